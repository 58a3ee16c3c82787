// The two views: `commandtree` (All: categories, folders, commands) and `commandtree-quick`
// (Quick Launch, reorderable by drag and drop). Rows render as upstream's (reference §4.5).
// With several workspace folders, All has one top-level row per folder with its categories
// beneath, and Quick Launch lists every folder's starred commands, named by folder.

import * as path from 'path';
import * as vscode from 'vscode';
import { Model } from './model';
import { CommandItem, TreeNode, isPrivate } from './protocol';
import { RunTracker, formatDuration } from './runs';

/**
 * `root` is the workspace folder the row was listed for, so an action on it reaches that
 * folder's server.
 */
export type Element =
  | { kind: 'root'; id: string; label: string; root: string }
  | { kind: 'category'; id: string; label: string; type: string; count: number; children: TreeNode[]; root?: string }
  | { kind: 'folder'; id: string; label: string; children: TreeNode[]; root?: string }
  | { kind: 'command'; item: CommandItem; root?: string }
  | { kind: 'placeholder'; message: string };

/** What the views need of a workspace folder. */
export interface ShownFolder {
  readonly name: string;
  readonly root: string;
  readonly model: Model;
}

/** The folders the views show, in the explorer's order. */
export interface ShownFolders {
  all(): readonly ShownFolder[];
  readonly onDidChange: vscode.Event<void>;
}

/** One folder's model as the views' source (a window with a single folder). */
function oneFolder(model: Model): ShownFolders {
  return { all: () => [{ name: '', root: '', model }], onDidChange: model.onDidChange };
}

function sourceOf(source: Model | ShownFolders): ShownFolders {
  return source instanceof Model ? oneFolder(source) : source;
}

/** Row ids must be unique in a view; nested folders can list the same command. */
function multiRowId(root: string, id: string): string {
  return `${root}|${id}`;
}

/** Codicon and colour per type (reference §1.2), then ours for the types upstream lacks. */
const ICONS: Record<string, [string, string]> = {
  shell: ['terminal', 'terminal.ansiGreen'],
  npm: ['package', 'terminal.ansiMagenta'],
  make: ['tools', 'terminal.ansiYellow'],
  launch: ['debug-alt', 'debugIcon.startForeground'],
  vscode: ['gear', 'terminal.ansiBlue'],
  python: ['symbol-misc', 'terminal.ansiCyan'],
  powershell: ['terminal-powershell', 'terminal.ansiBlue'],
  gradle: ['symbol-property', 'terminal.ansiGreen'],
  cargo: ['package', 'terminal.ansiRed'],
  maven: ['library', 'terminal.ansiRed'],
  ant: ['symbol-constructor', 'terminal.ansiYellow'],
  just: ['checklist', 'terminal.ansiMagenta'],
  taskfile: ['tasklist', 'terminal.ansiCyan'],
  deno: ['symbol-namespace', 'terminal.ansiWhite'],
  rake: ['ruby', 'terminal.ansiRed'],
  composer: ['symbol-interface', 'terminal.ansiYellow'],
  docker: ['server-environment', 'terminal.ansiBlue'],
  dotnet: ['circuit-board', 'terminal.ansiMagenta'],
  markdown: ['markdown', 'terminal.ansiCyan'],
  'csharp-script': ['file-code', 'terminal.ansiMagenta'],
  'fsharp-script': ['file-code', 'terminal.ansiBlue'],
  mise: ['package', 'terminal.ansiCyan'],
  pyproject: ['symbol-misc', 'terminal.ansiYellow'],
  procfile: ['server-process', 'terminal.ansiGreen'],
  tox: ['beaker', 'terminal.ansiYellow'],
  nox: ['beaker', 'terminal.ansiGreen'],
  workflow: ['github-action', 'terminal.ansiBlue'],
  turbo: ['zap', 'terminal.ansiRed'],
  nx: ['type-hierarchy', 'terminal.ansiCyan'],
};

export const PRIVATE_SCHEME = 'commandtree-private';
export const WARNING_SCHEME = 'commandtree-warning';
export const QUICK_MIME = 'application/vnd.commandtree.quicktask';
export const SCRIPT_MIME = 'application/vnd.commandtree.script';
export const EMPTY_QUICK = 'No quick commands - star commands to add them here';

export function iconFor(item: CommandItem): vscode.ThemeIcon {
  const [icon, colour] = ICONS[item.type] ?? ['play', 'terminal.ansiWhite'];
  return new vscode.ThemeIcon(icon, new vscode.ThemeColor(isPrivate(item) ? 'descriptionForeground' : colour));
}

/** `-running` is added while the command runs: the menus offer Stop and Restart then. */
export function contextValue(item: CommandItem, quick: boolean, running = false): string {
  if (item.type === 'markdown') {
    return quick ? 'task-markdown-quick' : 'task-markdown';
  }
  return `${quick ? 'task-quick' : 'task'}${running ? '-running' : ''}`;
}

/** The line the tooltip gives a command's runs: running now, or how its last run ended. */
function runLine(item: CommandItem, runs: RunTracker | undefined): string | undefined {
  const s = runs?.stateOf(item.id);
  if (!s) {
    return undefined;
  }
  if (s.running) {
    const n = s.count > 1 ? ` (${s.count} runs)` : '';
    return `Running for ${formatDuration(Date.now() - s.since)}${n}`;
  }
  const took = s.durationMs !== undefined ? ` after ${formatDuration(s.durationMs)}` : '';
  const how =
    s.outcome === 'succeeded'
      ? 'succeeded'
      : s.outcome === 'failed'
        ? `failed with exit code ${s.exitCode ?? '?'}`
        : s.outcome === 'stopped'
          ? 'was stopped'
          : 'ended';
  return `Last run ${how}${took}, ${new Date(s.endedAt).toLocaleTimeString()}`;
}

export function tooltip(item: CommandItem, runs?: RunTracker): vscode.MarkdownString {
  const parts = [`**${item.label}**`];
  const run = runLine(item, runs);
  if (run) {
    parts.push(run);
  }
  if (item.securityWarning) {
    parts.push(`⚠️ **Security Warning:** ${item.securityWarning}`, '---');
  }
  if (item.summary) {
    parts.push(`> ${item.summary}`, '---');
  }
  parts.push(`Type: \`${item.type}\``, `Command: \`${item.command}\``);
  if (item.cwd) {
    parts.push(`Working Dir: \`${item.cwd}\``);
  }
  if (item.tags.length > 0) {
    parts.push(`Tags: ${item.tags.map((t) => `\`${t}\``).join(', ')}`);
  }
  parts.push(`Source: \`${item.filePath}\``);
  return new vscode.MarkdownString(parts.join('\n\n'));
}

export function commandRow(item: CommandItem, quick: boolean, runs?: RunTracker): vscode.TreeItem {
  const warned = (item.securityWarning ?? '') !== '';
  const row = new vscode.TreeItem(warned ? `⚠️ ${item.label}` : item.label, vscode.TreeItemCollapsibleState.None);
  row.id = item.id;
  const priv = isPrivate(item);
  const tags = item.tags.length > 0 ? ` [${item.tags.join(', ')}]` : '';
  const running = runs?.isRunning(item.id) ?? false;
  const ran = runs?.describe(item.id);
  row.description = `${ran ? `${ran} · ` : ''}${item.category}${priv ? ' private' : ''}${tags}`;
  row.iconPath = running ? new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue')) : iconFor(item);
  row.tooltip = tooltip(item, runs);
  row.contextValue = contextValue(item, quick, running);
  // Decorations attach to a URI; a made-up scheme keeps them off real files.
  if (warned) {
    row.resourceUri = vscode.Uri.parse(`${WARNING_SCHEME}:/${encodeURIComponent(item.id)}`);
  } else if (priv) {
    row.resourceUri = vscode.Uri.parse(`${PRIVATE_SCHEME}:/${encodeURIComponent(item.id)}`);
  }
  if (item.filePath) {
    const selection = item.line !== undefined && item.line > 0 ? new vscode.Range(item.line - 1, 0, item.line - 1, 0) : undefined;
    row.command = {
      command: 'vscode.open',
      title: 'Open',
      arguments: [vscode.Uri.file(item.filePath), selection ? { selection } : {}],
    };
  }
  return row;
}

function nodeElements(nodes: TreeNode[], parentId: string, root: string | undefined): Element[] {
  return nodes.map((n) =>
    n.kind === 'folder'
      ? { kind: 'folder', id: `${parentId}/${n.label}`, label: n.label, children: n.children, ...(root !== undefined ? { root } : {}) }
      : { kind: 'command', item: n.item, ...(root !== undefined ? { root } : {}) },
  );
}

function categoryElements(folder: ShownFolder, prefix: string, root: string | undefined): Element[] {
  // Stable ids (type, not "Label (count)") keep a category open while its count changes.
  return folder.model.categories
    .filter((c) => c.count > 0)
    .map((c) => ({
      kind: 'category',
      id: `${prefix}category:${c.type || c.label}`,
      label: c.label,
      type: c.type,
      count: c.count,
      children: c.children,
      ...(root !== undefined ? { root } : {}),
    }));
}

async function load(folder: ShownFolder): Promise<void> {
  if (!folder.model.loaded && folder.model.hasServer) {
    await folder.model.refresh().catch(() => undefined);
  }
}

export class AllTreeProvider implements vscode.TreeDataProvider<Element>, vscode.TreeDragAndDropController<Element> {
  private readonly changed = new vscode.EventEmitter<Element | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly dragMimeTypes = ['text/uri-list', 'text/plain', SCRIPT_MIME];
  readonly dropMimeTypes: string[] = [];
  private readonly folders: ShownFolders;

  constructor(source: Model | ShownFolders) {
    this.folders = sourceOf(source);
    this.folders.onDidChange(() => {
      this.changed.fire(undefined);
    });
  }

  private folderOf(e: { root?: string }): ShownFolder | undefined {
    const all = this.folders.all();
    return all.length === 1 ? all[0] : all.find((f) => f.root === e.root);
  }

  getTreeItem(e: Element): vscode.TreeItem {
    switch (e.kind) {
      case 'root': {
        const row = new vscode.TreeItem(e.label, vscode.TreeItemCollapsibleState.Expanded);
        row.id = e.id;
        row.contextValue = 'workspaceFolder';
        row.iconPath = new vscode.ThemeIcon('root-folder');
        row.tooltip = new vscode.MarkdownString(`\`${e.root}\``);
        const status = this.folderOf(e)?.model.status;
        if (status) {
          row.description = status;
        }
        return row;
      }
      case 'category': {
        const row = new vscode.TreeItem(`${e.label} (${e.count})`, vscode.TreeItemCollapsibleState.Collapsed);
        row.id = e.id;
        row.contextValue = 'category';
        return row;
      }
      case 'folder': {
        const row = new vscode.TreeItem(e.label, vscode.TreeItemCollapsibleState.Collapsed);
        row.id = e.id;
        row.contextValue = 'category';
        row.iconPath = new vscode.ThemeIcon('folder');
        return row;
      }
      case 'command': {
        const folder = this.folderOf(e);
        const row = commandRow(e.item, folder?.model.isQuick(e.item) ?? false, folder?.model.runs);
        if (this.folders.all().length > 1 && e.root !== undefined) {
          row.id = multiRowId(e.root, e.item.id);
        }
        return row;
      }
      case 'placeholder': {
        const row = new vscode.TreeItem(e.message, vscode.TreeItemCollapsibleState.None);
        row.contextValue = 'placeholder';
        return row;
      }
    }
  }

  async getChildren(e?: Element): Promise<Element[]> {
    const all = this.folders.all();
    if (!e) {
      // Once loaded, the rows are answered without an await: an extra turn here was enough for
      // a row expanded during a refresh to stay closed in VS Code (seen in test/e2e.sh).
      const [only] = all;
      if (all.length === 1 && only) {
        // One folder: no folder level, exactly as a single-folder window always showed it.
        if (!only.model.loaded && only.model.hasServer) {
          await load(only);
        }
        return categoryElements(only, '', only.root === '' ? undefined : only.root);
      }
      if (all.some((f) => !f.model.loaded && f.model.hasServer)) {
        await Promise.all(all.map(load));
      }
      return all.map((f) => ({ kind: 'root', id: `root:${f.root}`, label: f.name, root: f.root }));
    }
    if (e.kind === 'root') {
      const folder = this.folderOf(e);
      return folder ? categoryElements(folder, `${e.id}/`, e.root) : [];
    }
    if (e.kind === 'category' || e.kind === 'folder') {
      return nodeElements(e.children, e.id, e.root);
    }
    return [];
  }

  handleDrag(source: readonly Element[], data: vscode.DataTransfer): void {
    const items = source.flatMap((e) => (e.kind === 'command' ? [e.item] : []));
    if (items.length === 0) {
      return;
    }
    data.set('text/uri-list', new vscode.DataTransferItem(items.map((i) => vscode.Uri.file(i.filePath).toString()).join('\r\n')));
    data.set('text/plain', new vscode.DataTransferItem(items.map((i) => i.filePath).join('\n')));
    data.set(SCRIPT_MIME, new vscode.DataTransferItem(items.map((i) => i.id).join('\n')));
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export class QuickTreeProvider implements vscode.TreeDataProvider<Element>, vscode.TreeDragAndDropController<Element> {
  private readonly changed = new vscode.EventEmitter<Element | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly dragMimeTypes = [QUICK_MIME];
  readonly dropMimeTypes = [QUICK_MIME];
  private readonly folders: ShownFolders;

  /** `move` gets the position in the dragged command's own folder's Quick Launch. */
  constructor(
    source: Model | ShownFolders,
    private readonly move: (id: string, position: number, root: string) => Promise<void>,
  ) {
    this.folders = sourceOf(source);
    this.folders.onDidChange(() => {
      this.changed.fire(undefined);
    });
  }

  getTreeItem(e: Element): vscode.TreeItem {
    if (e.kind === 'command') {
      const all = this.folders.all();
      const folder = all.length === 1 ? all[0] : all.find((f) => f.root === e.root);
      const row = commandRow(e.item, true, folder?.model.runs);
      if (all.length > 1 && folder) {
        row.id = multiRowId(folder.root, e.item.id);
        row.description = `${folder.name} · ${row.description ?? ''}`;
      }
      return row;
    }
    const row = new vscode.TreeItem(e.kind === 'placeholder' ? e.message : e.label, vscode.TreeItemCollapsibleState.None);
    row.contextValue = 'placeholder';
    return row;
  }

  /** Every folder's starred commands, folder by folder in the explorer's order. */
  private rows(): { item: CommandItem; root: string }[] {
    return this.folders.all().flatMap((f) => f.model.quickItems().map((item) => ({ item, root: f.root })));
  }

  getChildren(e?: Element): Element[] {
    if (e) {
      return [];
    }
    const rows = this.rows();
    if (rows.length === 0) {
      const all = this.folders.all();
      return all.length > 0 && all.every((f) => f.model.loaded) ? [{ kind: 'placeholder', message: EMPTY_QUICK }] : [];
    }
    // A single folder's rows carry no root, as they always did.
    return rows.map(({ item, root }) => (root === '' ? { kind: 'command', item } : { kind: 'command', item, root }));
  }

  handleDrag(source: readonly Element[], data: vscode.DataTransfer): void {
    const first = source.find((e) => e.kind === 'command');
    if (first?.kind === 'command') {
      data.set(QUICK_MIME, new vscode.DataTransferItem(first.root ? `${first.root}\n${first.item.id}` : first.item.id));
    }
  }

  /**
   * Reference §6: drop on a row takes its place; drop on empty space moves to the end. Each
   * folder keeps its own order, so a drop on another folder's row changes nothing.
   */
  async handleDrop(target: Element | undefined, data: vscode.DataTransfer): Promise<void> {
    const dragged = await data.get(QUICK_MIME)?.asString();
    if (!dragged) {
      return;
    }
    const cut = dragged.lastIndexOf('\n');
    const id = cut < 0 ? dragged : dragged.slice(cut + 1);
    const all = this.folders.all();
    const folder = cut < 0 ? all[0] : all.find((f) => f.root === dragged.slice(0, cut));
    if (!folder || (target?.kind === 'command' && target.root !== undefined && target.root !== folder.root)) {
      return;
    }
    const order = folder.model.quickItems().map((i) => i.id);
    const from = order.indexOf(id);
    if (from < 0) {
      return;
    }
    const to = target === undefined ? order.length - 1 : target.kind === 'command' ? order.indexOf(target.item.id) : -1;
    if (to < 0 || to === from) {
      return;
    }
    await this.move(id, to, folder.root);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Dims private rows and marks warned ones, by the made-up URIs `commandRow` gives them. */
export class RowDecorations implements vscode.FileDecorationProvider {
  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme === PRIVATE_SCHEME) {
      return new vscode.FileDecoration(undefined, 'Private task', new vscode.ThemeColor('descriptionForeground'));
    }
    if (uri.scheme === WARNING_SCHEME) {
      return new vscode.FileDecoration('⚠', 'Security warning', new vscode.ThemeColor('list.warningForeground'));
    }
    return undefined;
  }
}

export function relativePath(root: string, file: string): string {
  return path.relative(root, file);
}
