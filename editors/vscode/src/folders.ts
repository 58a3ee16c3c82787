// The workspace folders the extension serves, one `ct lsp` each (docs/lsp-protocol.md: a server
// serves one folder). Every action finds its folder here: by the command it acts on, by the
// active editor, or by asking the user when there are several.

import * as path from 'path';
import * as vscode from 'vscode';
import { Model } from './model';
import { CommandItem, isCommandItem } from './protocol';
import { Runner } from './runner';
import { Server } from './server';

/** One workspace folder with its server, its view of the commands and its runner. */
export interface Folder {
  /** The name VS Code's explorer shows for the folder. */
  readonly name: string;
  /** The folder's path on disk (the server's `--root`). */
  readonly root: string;
  readonly model: Model;
  readonly runner: Runner;
  server(): Server | undefined;
  /** Starts the server again when it is stopped (refresh after a crash or a fixed serverPath). */
  restart(): Promise<void>;
  /** Stops the server (the folder left the workspace, or the window closes). */
  dispose?(): Promise<void>;
}

export function itemOf(arg: unknown): CommandItem | undefined {
  if (typeof arg !== 'object' || arg === null) {
    return undefined;
  }
  if ('kind' in arg && arg.kind === 'command' && 'item' in arg && isCommandItem(arg.item)) {
    return arg.item;
  }
  if ('data' in arg && isCommandItem(arg.data)) {
    return arg.data;
  }
  return isCommandItem(arg) ? arg : undefined;
}

/** The `root` a tree element carries (each row knows the folder it was listed for). */
function rootOf(arg: unknown): string | undefined {
  return typeof arg === 'object' && arg !== null && 'root' in arg && typeof arg.root === 'string' ? arg.root : undefined;
}

export function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export class Folders {
  private list: Folder[] = [];
  private readonly subscriptions = new Map<Folder, { dispose(): unknown }>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** A folder came or went, or one folder's commands, tree or status changed. */
  readonly onDidChange = this.changed.event;

  static of(...folders: Folder[]): Folders {
    const f = new Folders();
    for (const folder of folders) {
      f.add(folder);
    }
    return f;
  }

  all(): readonly Folder[] {
    return this.list;
  }

  get multi(): boolean {
    return this.list.length > 1;
  }

  add(folder: Folder): void {
    this.list.push(folder);
    this.subscriptions.set(
      folder,
      folder.model.onDidChange(() => {
        this.changed.fire();
      }),
    );
    this.changed.fire();
  }

  /** Takes the folder out of every view and stops its server. */
  async remove(root: string): Promise<void> {
    const gone = this.list.filter((f) => f.root === root);
    this.list = this.list.filter((f) => f.root !== root);
    for (const f of gone) {
      this.subscriptions.get(f)?.dispose();
      this.subscriptions.delete(f);
    }
    this.changed.fire();
    await Promise.all(gone.map((f) => (f.dispose ? f.dispose() : Promise.resolve())));
  }

  /**
   * Matches the list to the workspace's folders: a new folder gets `create`'s folder (its server
   * started by the caller), a removed one is stopped, and the order follows the explorer's.
   */
  async sync<W extends { uri: { fsPath: string } }>(folders: readonly W[], create: (folder: W) => Folder): Promise<Folder[]> {
    const wanted = folders.map((f) => f.uri.fsPath);
    const removed = this.list.filter((f) => !wanted.includes(f.root)).map((f) => f.root);
    await Promise.all(removed.map((r) => this.remove(r)));
    const added: Folder[] = [];
    for (const wf of folders) {
      if (!this.list.some((f) => f.root === wf.uri.fsPath)) {
        const folder = create(wf);
        added.push(folder);
        this.add(folder);
      }
    }
    this.list.sort((a, b) => wanted.indexOf(a.root) - wanted.indexOf(b.root));
    if (added.length > 0) {
      this.changed.fire();
    }
    return added;
  }

  byRoot(root: string): Folder | undefined {
    return this.list.find((f) => f.root === root);
  }

  /** The folder holding `file`; the innermost one when folders are nested. */
  forPath(file: string): Folder | undefined {
    return this.list
      .filter((f) => inside(f.root, file))
      .sort((a, b) => b.root.length - a.root.length)[0];
  }

  /**
   * The folder a command belongs to: the one the row was listed under, else (a bare command)
   * the only folder, the one that listed the id, or the one holding its file.
   */
  forItem(arg: unknown): Folder | undefined {
    const root = rootOf(arg);
    if (root !== undefined) {
      // A row of a folder that has left the workspace since it was shown reaches no server.
      return this.byRoot(root);
    }
    if (this.list.length === 1) {
      return this.list[0];
    }
    const item = itemOf(arg);
    if (!item) {
      return undefined;
    }
    const owners = this.list.filter((f) => f.model.tasks.has(item.id));
    if (owners.length === 1) {
      return owners[0];
    }
    return this.forPath(item.filePath);
  }

  /** The folder of the active editor's file; with one folder, that one. */
  active(): Folder | undefined {
    if (this.list.length === 1) {
      return this.list[0];
    }
    const uri = vscode.window.activeTextEditor?.document.uri;
    return uri?.scheme === 'file' ? this.forPath(uri.fsPath) : undefined;
  }

  /** With one folder, that one; with several, the user picks (undefined when they cancel). */
  async pick(placeHolder: string): Promise<Folder | undefined> {
    if (this.list.length <= 1) {
      return this.list[0];
    }
    const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder });
    return picked ? this.byRoot(picked.uri.fsPath) : undefined;
  }

  /** What the views show above their rows: each folder's line, named when there are several. */
  status(): string | undefined {
    const lines = this.list.flatMap((f) => (f.model.status ? [this.multi ? `${f.name}: ${f.model.status}` : f.model.status] : []));
    return lines.length > 0 ? lines.join(' ') : undefined;
  }

  async dispose(): Promise<void> {
    const all = this.list;
    this.list = [];
    for (const s of this.subscriptions.values()) {
      s.dispose();
    }
    this.subscriptions.clear();
    this.changed.dispose();
    await Promise.all(all.map((f) => (f.dispose ? f.dispose() : Promise.resolve())));
  }
}
