// The command handlers behind `commandtree.*`. A handler called on a folder, a category, a
// placeholder, `undefined` or `null` does nothing (reference §7.1); on a row or a raw
// CommandItem it acts on that command, through the server of the workspace folder the command
// belongs to. Palette actions without a command ask for a folder when there are several.

import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { Folder, Folders, itemOf } from './folders';
import { Model } from './model';
import { CommandItem } from './protocol';
import type { Deps as Dependencies, Link } from './protocol.generated';
import { Runner, errorText } from './runner';
import { Server } from './server';
import { SkillDocuments } from './skills';

export { itemOf };

/** A window with one folder: its model, server and runner. */
export interface OneFolder {
  model: Model;
  server: () => Server | undefined;
  runner: Runner;
  workspaceRoot: string;
  /** Starts the server again when it is stopped (refresh after a crash or a fixed serverPath). */
  restart: () => Promise<void>;
}

interface Common {
  platform?: NodeJS.Platform;
  /** The diff editor's in-memory documents; the extension registers their provider. */
  skillDocuments?: SkillDocuments;
}

export type Deps = Common & (OneFolder | { folders: Folders });

export function folderOf(d: OneFolder, name = path.basename(d.workspaceRoot)): Folder {
  return { name, root: d.workspaceRoot, model: d.model, runner: d.runner, server: d.server, restart: d.restart };
}

export const APPLY = 'Apply';
export const DISCARD = 'Discard';

export class Handlers {
  readonly skillDocuments: SkillDocuments;
  private readonly folders: Folders;
  private readonly platform: NodeJS.Platform | undefined;

  constructor(d: Deps) {
    this.skillDocuments = d.skillDocuments ?? new SkillDocuments();
    this.folders = 'folders' in d ? d.folders : Folders.of(folderOf(d));
    this.platform = d.platform;
  }

  private async updated(folder: Folder): Promise<void> {
    await folder.model.refreshTree();
  }

  private need(folder: Folder | undefined): Server | undefined {
    const server = folder?.server();
    if (!server) {
      void vscode.window.showErrorMessage(
        folder || this.folders.all().length === 0
          ? 'CommandTree: the ct server is not running.'
          : 'CommandTree: this command is in none of the workspace folders.',
      );
    }
    return server;
  }

  /** Every tag on a current command of any folder, sorted. */
  private allTags(): string[] {
    return [...new Set(this.folders.all().flatMap((f) => f.model.allTags()))].sort();
  }

  async refresh(): Promise<void> {
    const all = this.folders.all();
    const running = all.filter((f) => f.server());
    await Promise.all(all.filter((f) => !f.server()).map((f) => f.restart()));
    if (running.length === 0) {
      return;
    }
    for (const f of running) {
      f.model.setStatus(undefined);
    }
    try {
      await Promise.all(running.map((f) => f.model.refresh()));
      void vscode.window.showInformationMessage('CommandTree refreshed');
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: refresh failed: ${errorText(e)}`);
    }
  }

  async refreshQuick(): Promise<void> {
    await Promise.all(this.folders.all().map((f) => f.model.refreshTree()));
  }

  private async runAs(arg: unknown, mode: 'newTerminal' | 'currentTerminal' | 'debug'): Promise<void> {
    const item = itemOf(arg);
    if (!item) {
      return;
    }
    const folder = this.folders.forItem(arg);
    if (!folder) {
      this.need(undefined);
      return;
    }
    await folder.runner.run(item, mode);
  }

  async run(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    if (item?.type === 'playbook') {
      // Through the server, so the steps' model requests can be answered by this editor.
      await this.runPlaybook(arg);
    } else {
      await this.runAs(arg, 'newTerminal');
    }
  }

  async runInCurrentTerminal(arg: unknown): Promise<void> {
    await this.runAs(arg, 'currentTerminal');
  }

  async debug(arg: unknown): Promise<void> {
    await this.runAs(arg, 'debug');
  }

  async filterByTag(): Promise<void> {
    const tags = this.allTags();
    if (tags.length === 0) {
      void vscode.window.showInformationMessage('No tags defined. Right-click commands to add tags.');
      return;
    }
    const clear = '$(close) Clear tag filter';
    const picked = await vscode.window.showQuickPick([clear, ...tags.map((t) => `$(tag) ${t}`)], {
      placeHolder: 'Select tag to filter by',
    });
    if (picked === undefined) {
      return;
    }
    await this.setFilter(picked === clear ? undefined : picked.replace(/^\$\(tag\) /, ''));
  }

  async clearFilter(): Promise<void> {
    await this.setFilter(undefined);
  }

  private async setFilter(tag: string | undefined): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'commandtree.hasFilter', tag !== undefined);
    await Promise.all(this.folders.all().map((f) => f.model.setFilter(tag)));
  }

  async addToQuick(arg: unknown): Promise<void> {
    await this.star(arg, true);
  }

  async removeFromQuick(arg: unknown): Promise<void> {
    await this.star(arg, false);
  }

  private async star(arg: unknown, starred: boolean): Promise<void> {
    const item = itemOf(arg);
    const folder = item && this.folders.forItem(arg);
    const server = item && this.need(folder);
    if (item && folder && server) {
      await server.star(item.id, starred);
      await this.updated(folder);
    }
  }

  /** `root`: the folder whose Quick Launch is reordered (the only one when omitted). */
  async quickMove(id: string, position: number, root?: string): Promise<void> {
    const folder = root !== undefined ? this.folders.byRoot(root) : this.folders.all()[0];
    const server = this.need(folder);
    if (folder && server) {
      await server.quickMove(id, position);
      await this.updated(folder);
    }
  }

  /** Reference §5.3: pick an existing tag or type a new one; a second argument skips the UI. */
  async addTag(arg: unknown, tagArg?: unknown): Promise<void> {
    const item = itemOf(arg);
    if (!item) {
      return;
    }
    let tag = typeof tagArg === 'string' ? tagArg.trim() : undefined;
    if (tag === undefined) {
      tag = await this.pickOrType(this.allTags(), `Type new tag or select existing — "${item.label}"`);
    }
    const folder = this.folders.forItem(arg);
    const server = tag ? this.need(folder) : undefined;
    if (tag && folder && server) {
      await server.tag(item.id, tag, true);
      await this.updated(folder);
    }
  }

  private pickOrType(existing: string[], placeholder: string): Promise<string | undefined> {
    return new Promise((resolve) => {
      const pick = vscode.window.createQuickPick();
      pick.placeholder = placeholder;
      pick.items = existing.map((label) => ({ label }));
      let done = false;
      const finish = (value: string | undefined): void => {
        if (!done) {
          done = true;
          resolve(value && value.trim() !== '' ? value.trim() : undefined);
          pick.hide();
        }
      };
      pick.onDidAccept(() => {
        finish(pick.selectedItems[0]?.label ?? pick.value);
      });
      pick.onDidHide(() => {
        finish(undefined);
        pick.dispose();
      });
      pick.show();
    });
  }

  async removeTag(arg: unknown, tagArg?: unknown): Promise<void> {
    const item = itemOf(arg);
    if (!item) {
      return;
    }
    let tag = typeof tagArg === 'string' ? tagArg : undefined;
    if (tag === undefined) {
      if (item.tags.length === 0) {
        void vscode.window.showInformationMessage('This command has no tags');
        return;
      }
      const picked = await vscode.window.showQuickPick(
        item.tags.map((t) => `$(tag) ${t}`),
        { placeHolder: `Remove tag from "${item.label}"` },
      );
      tag = picked?.replace(/^\$\(tag\) /, '');
    }
    const folder = this.folders.forItem(arg);
    const server = tag ? this.need(folder) : undefined;
    if (tag && folder && server) {
      await server.tag(item.id, tag, false);
      await this.updated(folder);
    }
  }

  async openPreview(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    if (item?.filePath) {
      await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.file(item.filePath));
    }
  }

  async copyRelativePath(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    const root = this.folders.forItem(arg)?.root;
    if (item?.filePath) {
      // A file outside every folder keeps its full path (there is nothing to be relative to).
      await vscode.env.clipboard.writeText(root !== undefined ? path.relative(root, item.filePath) : item.filePath);
    }
  }

  async copyFullPath(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    if (item?.filePath) {
      await vscode.env.clipboard.writeText(item.filePath);
    }
  }

  async makeExecutable(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    if (!item?.filePath || (this.platform ?? process.platform) === 'win32') {
      return;
    }
    try {
      const mode = (await fs.promises.stat(item.filePath)).mode;
      await fs.promises.chmod(item.filePath, mode | 0o111);
      void vscode.window.showInformationMessage(`CommandTree: Made ${path.basename(item.filePath)} executable`);
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: ${errorText(e)}`);
    }
  }

  async generateSummaries(arg?: unknown): Promise<void> {
    const item = itemOf(arg);
    const folder = item ? this.folders.forItem(arg) : await this.folders.pick('Generate summaries for the commands of');
    if (!item && !folder && this.folders.multi) {
      return;
    }
    const server = this.need(folder);
    if (!folder || !server) {
      return;
    }
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'CommandTree: summaries', cancellable: true },
      async (progress, token) => {
        let last = 0;
        try {
          await server.summarize(item ? [item.id] : undefined, item !== undefined, token, (p) => {
            const increment = p.percentage !== undefined ? Math.max(0, p.percentage - last) : undefined;
            last = p.percentage ?? last;
            progress.report({ message: p.message, increment });
          });
        } catch (e) {
          if (!token.isCancellationRequested) {
            void vscode.window.showErrorMessage(`CommandTree: summaries failed: ${errorText(e)}`);
          }
          return;
        }
        await folder.model.refresh();
      },
    );
  }

  /** A quick pick of the server's semantic matches with their scores; choosing one opens it. */
  async semanticSearch(queryArg?: unknown): Promise<CommandItem | undefined> {
    const folder = await this.folders.pick('Search the commands of');
    if (!folder && this.folders.multi) {
      return undefined;
    }
    const server = this.need(folder);
    if (!folder || !server) {
      return undefined;
    }
    const query =
      typeof queryArg === 'string'
        ? queryArg
        : await vscode.window.showInputBox({ prompt: 'Describe the command you are looking for', title: 'CommandTree: Semantic Search' });
    if (!query) {
      return undefined;
    }
    let hits;
    try {
      hits = await server.search(query, 20);
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: search failed: ${errorText(e)}`);
      return undefined;
    }
    if (hits.length === 0) {
      void vscode.window.showInformationMessage(`CommandTree: nothing matches "${query}"`);
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      hits.map((h) => ({
        label: h.item.label,
        description: `${Math.round(h.score * 100)}%  ${h.item.category}`,
        detail: h.item.summary ?? h.item.command,
        item: h.item,
      })),
      { placeHolder: `Commands matching "${query}"`, matchOnDescription: true, matchOnDetail: true },
    );
    if (!picked) {
      return undefined;
    }
    const action = await vscode.window.showQuickPick(['$(play) Run', '$(go-to-file) Open'], {
      placeHolder: picked.item.label,
    });
    if (action === '$(play) Run') {
      await folder.runner.run(picked.item, 'newTerminal');
    } else if (action === '$(go-to-file) Open' && picked.item.filePath) {
      const line = picked.item.line !== undefined && picked.item.line > 0 ? picked.item.line - 1 : 0;
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(picked.item.filePath), {
        selection: new vscode.Range(line, 0, line, 0),
      });
    }
    return picked.item;
  }

  /**
   * A command skill on one command: pick the skill (a second argument names one and skips the
   * pick), let the server ask the model, show the proposed file against the original in a diff
   * editor, and write it only after "Apply". The server refuses the write if the file changed
   * while the diff was open.
   */
  async applySkill(arg: unknown, skillArg?: unknown): Promise<void> {
    const item = itemOf(arg);
    const folder = item && this.folders.forItem(arg);
    const server = item && this.need(folder);
    if (!item || !folder || !server) {
      return;
    }
    let skills;
    try {
      skills = await server.commandSkills();
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: ${errorText(e)}`);
      return;
    }
    if (skills.length === 0) {
      void vscode.window.showInformationMessage(
        'CommandTree: no command skills yet. Add a markdown file to .commandtree/skills/ with front matter `name` (and `icon`) and the instructions as its body.',
      );
      return;
    }
    let skill = typeof skillArg === 'string' ? skills.find((s) => s.id === skillArg || s.name === skillArg) : undefined;
    if (!skill) {
      const picked = await vscode.window.showQuickPick(
        skills.map((s) => ({ label: `$(${s.icon}) ${s.name}`, description: s.description, skill: s })),
        { placeHolder: `Apply a skill to "${item.label}"`, matchOnDescription: true },
      );
      if (!picked) {
        return;
      }
      skill = picked.skill;
    }
    const chosen = skill;
    const proposal = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `CommandTree: ${chosen.name} on ${item.label}`, cancellable: true },
      async (progress, token) => {
        try {
          return await server.proposeSkill(chosen.id, item.id, token, (p) => {
            progress.report({ message: p.message });
          });
        } catch (e) {
          if (!token.isCancellationRequested) {
            void vscode.window.showErrorMessage(`CommandTree: ${chosen.name} failed: ${errorText(e)}`);
          }
          return undefined;
        }
      },
    );
    if (!proposal) {
      return;
    }
    const rel = path.relative(folder.root, proposal.file);
    if (proposal.original === proposal.proposed) {
      void vscode.window.showInformationMessage(`CommandTree: ${chosen.name} proposed no changes to ${rel}`);
      return;
    }
    const pair = this.skillDocuments.open(proposal.file, proposal.original, proposal.proposed);
    try {
      await vscode.commands.executeCommand('vscode.diff', pair.left, pair.right, `${path.basename(proposal.file)} ↔ ${chosen.name}`, {
        preview: true,
      });
      const answer = await vscode.window.showInformationMessage(`Apply "${chosen.name}" to ${rel}?`, APPLY, DISCARD);
      if (answer !== APPLY) {
        return;
      }
      try {
        await server.applySkill(chosen.id, item.id, proposal.original, proposal.proposed);
      } catch (e) {
        void vscode.window.showErrorMessage(`CommandTree: ${rel} was not changed: ${errorText(e)}`);
        return;
      }
      void vscode.window.showInformationMessage(`CommandTree: applied ${chosen.name} to ${rel}`);
    } finally {
      await closeDiff(pair.right);
      pair.release();
    }
  }

  /**
   * "Run Playbook": a playbook (picked, or the tree's playbook row), its inputs asked for (the
   * defaults filled in), then run by the server with each step in the progress notification;
   * Cancel stops it and the model request in flight. The replies open as a markdown document.
   */
  async runPlaybook(arg?: unknown): Promise<void> {
    const folder = itemOf(arg) ? this.folders.forItem(arg) : await this.folders.pick('Run a playbook of');
    if (!folder && this.folders.multi && !itemOf(arg)) {
      return;
    }
    const server = this.need(folder);
    if (!server) {
      return;
    }
    let playbooks;
    try {
      playbooks = await server.playbooks();
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: ${errorText(e)}`);
      return;
    }
    const item = itemOf(arg);
    let playbook = item
      ? playbooks.find((p) => p.file === item.filePath || p.name === item.label)
      : typeof arg === 'string'
        ? playbooks.find((p) => p.name === arg)
        : undefined;
    if (!playbook) {
      if (playbooks.length === 0) {
        void vscode.window.showInformationMessage(
          'CommandTree: no playbooks yet. Add a *.playbook.md file to .commandtree/playbooks/ with one ```step block per skill invocation.',
        );
        return;
      }
      const picked = await vscode.window.showQuickPick(
        playbooks.map((p) => ({ label: p.name, description: p.description, detail: p.steps.join(' → '), playbook: p })),
        { placeHolder: 'Run a playbook', matchOnDescription: true },
      );
      if (!picked) {
        return;
      }
      playbook = picked.playbook;
    }
    const inputs: Record<string, string> = {};
    for (const input of playbook.inputs) {
      const value = await vscode.window.showInputBox({
        title: `${playbook.name}: ${input.name}`,
        prompt: input.description ?? `Value of ${input.name}`,
        value: input.default ?? '',
      });
      if (value === undefined) {
        return;
      }
      inputs[input.name] = value;
    }
    const chosen = playbook;
    const steps = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `CommandTree: ${chosen.name}`, cancellable: true },
      async (progress, token) => {
        try {
          return await server.runPlaybook(chosen.name, inputs, token, (p) => { progress.report({ message: p.message }); });
        } catch (e) {
          if (!token.isCancellationRequested) {
            void vscode.window.showErrorMessage(`CommandTree: ${chosen.name}: ${errorText(e)}`);
          }
          return undefined;
        }
      },
    );
    if (steps) {
      await showText(`# ${chosen.name}\n\n${steps.map((s) => `## ${s.id}\n\n${s.reply}\n`).join('\n')}`);
    }
  }

  /** "Run Skill": an invocation (`@task --prompt "..."`) run by the server; the reply opens. */
  async runSkill(invocationArg?: unknown): Promise<void> {
    const folder = await this.folders.pick('Run the skill in');
    if (!folder && this.folders.multi) {
      return;
    }
    const server = this.need(folder);
    if (!server) {
      return;
    }
    const invocation =
      typeof invocationArg === 'string'
        ? invocationArg
        : await vscode.window.showInputBox({
            title: 'Run a skill',
            prompt: 'A skill invocation: @task, @file, @run or @search with its flags',
            placeHolder: '@task --prompt "Summarize this text"',
            value: '@task --prompt ""',
          });
    if (invocation === undefined || invocation.trim() === '') {
      return;
    }
    const reply = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `CommandTree: ${invocation.trim().split(/\s/)[0]}`, cancellable: true },
      async (progress, token) => {
        try {
          return await server.runSkill(invocation, token, (p) => { progress.report({ message: p.message }); });
        } catch (e) {
          if (!token.isCancellationRequested) {
            void vscode.window.showErrorMessage(`CommandTree: ${errorText(e)}`);
          }
          return undefined;
        }
      },
    );
    if (reply !== undefined) {
      await showText(reply);
    }
  }

  /**
   * Stop: every run of the command going on now, this window's (Ctrl+C to its terminal, the
   * task terminated, the debug session stopped) and the server's (runs started elsewhere).
   */
  async stop(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    const folder = item && this.folders.forItem(arg);
    if (!item || !folder) {
      return;
    }
    const runs = folder.model.runs;
    const mine = runs.localRunning(item.id);
    const theirs = runs.serverRunning(item.id);
    if (mine.length === 0 && theirs.length === 0) {
      void vscode.window.showInformationMessage(`CommandTree: ${item.label} is not running.`);
      return;
    }
    await Promise.all(mine.map((r) => runs.stopAndWait(r)));
    const server = theirs.length > 0 ? this.need(folder) : undefined;
    if (server) {
      try {
        await server.stop({ id: item.id });
        runs.setServer(await server.running());
      } catch (e) {
        void vscode.window.showErrorMessage(`CommandTree: cannot stop ${item.label}: ${errorText(e)}`);
      }
    }
  }

  /**
   * Restart: stops the command's run and starts it again as it was started: a run of this
   * window with the same mode and parameter values, a run from elsewhere in a new terminal
   * here with the values it had (the server plans it again, so a warning is asked about again).
   */
  async restart(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    const folder = item && this.folders.forItem(arg);
    if (!item || !folder) {
      return;
    }
    const runs = folder.model.runs;
    const mine = runs.localRunning(item.id);
    const theirs = runs.serverRunning(item.id)[0];
    if (mine.length > 0 || !theirs) {
      const last = mine[mine.length - 1] ?? runs.latestLocal(item.id);
      const stopped = await Promise.all(mine.map((r) => runs.stopAndWait(r)));
      if (stopped.includes(false)) {
        void vscode.window.showErrorMessage(`CommandTree: ${item.label} did not stop; not starting it again.`);
        return;
      }
      if (last) {
        await folder.runner.runWith(item, last.mode, last.params);
      } else {
        await folder.runner.run(item, 'newTerminal');
      }
      return;
    }
    const server = this.need(folder);
    if (!server) {
      return;
    }
    let plan;
    try {
      plan = await server.restart(theirs.runId, 'newTerminal');
      runs.setServer(await server.running());
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: cannot restart ${item.label}: ${errorText(e)}`);
      return;
    }
    await folder.runner.execute(item, plan, 'newTerminal', undefined);
  }

  /** Run on Change: the command runs again (as it last ran here) when its files change. */
  async toggleRunOnChange(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    const folder = item && this.folders.forItem(arg);
    if (!item || !folder || !this.need(folder)) {
      return;
    }
    await folder.runner.toggleRunOnChange(item);
  }

  /** What a command runs and what runs it, as a quick pick; choosing one opens its definition. */
  async showDependencies(arg: unknown): Promise<void> {
    const item = itemOf(arg);
    const folder = item && this.folders.forItem(arg);
    const server = item && this.need(folder);
    if (!item || !server) {
      return;
    }
    let deps;
    try {
      deps = await server.deps(item.id);
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: ${errorText(e)}`);
      return;
    }
    const picks = dependencyPicks(deps);
    if (picks.every((p) => p.kind === vscode.QuickPickItemKind.Separator)) {
      void vscode.window.showInformationMessage(`CommandTree: ${item.label} runs no other command, and no command runs it.`);
      return;
    }
    const picked = await vscode.window.showQuickPick(picks, {
      title: `Dependencies of ${item.label}`,
      placeHolder: 'What it runs, and what runs it; pick one to open its definition',
      matchOnDescription: true,
    });
    if (picked?.link?.filePath) {
      const line = picked.link.line !== undefined && picked.link.line > 0 ? picked.link.line - 1 : 0;
      await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(picked.link.filePath), {
        selection: new vscode.Range(line, 0, line, 0),
      });
    }
  }

  /** Every contributed command id and its handler. */
  table(): [string, (...args: unknown[]) => Promise<unknown>][] {
    return [
      ['commandtree.refresh', () => this.refresh()],
      ['commandtree.refreshQuick', () => this.refreshQuick()],
      ['commandtree.run', (a) => this.run(a)],
      ['commandtree.runInCurrentTerminal', (a) => this.runInCurrentTerminal(a)],
      ['commandtree.debug', (a) => this.debug(a)],
      ['commandtree.filterByTag', () => this.filterByTag()],
      ['commandtree.clearFilter', () => this.clearFilter()],
      ['commandtree.addToQuick', (a) => this.addToQuick(a)],
      ['commandtree.removeFromQuick', (a) => this.removeFromQuick(a)],
      ['commandtree.addTag', (a, t) => this.addTag(a, t)],
      ['commandtree.removeTag', (a, t) => this.removeTag(a, t)],
      ['commandtree.openPreview', (a) => this.openPreview(a)],
      ['commandtree.copyRelativePath', (a) => this.copyRelativePath(a)],
      ['commandtree.copyFullPath', (a) => this.copyFullPath(a)],
      ['commandtree.makeExecutable', (a) => this.makeExecutable(a)],
      ['commandtree.generateSummaries', (a) => this.generateSummaries(a)],
      ['commandtree.semanticSearch', (a) => this.semanticSearch(a)],
      ['commandtree.applySkill', (a, s) => this.applySkill(a, s)],
      ['commandtree.runPlaybook', (a) => this.runPlaybook(a)],
      ['commandtree.runSkill', (a) => this.runSkill(a)],
      ['commandtree.stop', (a) => this.stop(a)],
      ['commandtree.restart', (a) => this.restart(a)],
      ['commandtree.showDependencies', (a) => this.showDependencies(a)],
      ['commandtree.toggleRunOnChange', (a) => this.toggleRunOnChange(a)],
    ];
  }
}

export interface DependencyPick extends vscode.QuickPickItem {
  link?: Link;
}

/** The two trees as quick pick rows: indented by depth, under a separator each. */
export function dependencyPicks(deps: Dependencies): DependencyPick[] {
  const rows = (links: Link[]): DependencyPick[] =>
    links.map((l) => ({
      label: `${'\u2003'.repeat(l.via.length)}${l.label}`,
      description: `${l.type} · ${l.how}`,
      detail: l.via.length > 0 ? `via ${l.via.join(' → ')}` : undefined,
      link: l,
    }));
  const out: DependencyPick[] = [];
  const runs = rows(deps.runs);
  const missing = deps.unresolved.map((m) => ({
    label: `${'\u2003'.repeat(m.via.length)}$(warning) ${m.name}`,
    description: `${m.how} · not found in this workspace`,
  }));
  if (runs.length + missing.length > 0) {
    out.push({ label: `Runs (${runs.length})`, kind: vscode.QuickPickItemKind.Separator }, ...runs, ...missing);
  }
  const by = rows(deps.runBy);
  if (by.length > 0) {
    out.push({ label: `Run by (${by.length})`, kind: vscode.QuickPickItemKind.Separator }, ...by);
  }
  for (const c of deps.cycles) {
    out.push({ label: `$(sync) cycle: ${c.join(' → ')}` });
  }
  if (deps.truncated) {
    out.push({ label: '$(ellipsis) more not shown' });
  }
  return out;
}

/** A reply in an untitled markdown editor (the user saves it or not). */
async function showText(content: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ content, language: 'markdown' });
  await vscode.window.showTextDocument(doc, { preview: true });
}

/** Closes the diff editors showing `right` (the decision is made; the texts go away). */
async function closeDiff(right: vscode.Uri): Promise<void> {
  const shown = right.toString();
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === shown);
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs);
  }
}
