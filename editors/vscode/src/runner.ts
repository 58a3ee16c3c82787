// Running a command: parameters asked in the editor, the plan from the server, then VS Code's own
// terminal, task or debug API. The server never needs a terminal; it only says what to run.

import * as vscode from 'vscode';
import { CommandItem, ParamDef, Plan, RunMode } from './protocol';
import { Server } from './server';

/**
 * Reference §7.1: options become a quick pick, everything else an input box pre-filled with the
 * default. Cancelling any prompt cancels the run (undefined).
 */
export async function collectParams(params: ParamDef[] | undefined): Promise<Record<string, string> | undefined> {
  const values: Record<string, string> = {};
  for (const p of params ?? []) {
    let value: string | undefined;
    if (p.options && p.options.length > 0) {
      value = await vscode.window.showQuickPick(p.options, {
        placeHolder: p.description ?? `Select ${p.name}`,
        title: p.name,
      });
    } else {
      value = await vscode.window.showInputBox({
        prompt: p.description ?? `Enter ${p.name}`,
        title: p.name,
        ...(p.default !== undefined ? { value: p.default } : {}),
      });
    }
    if (value === undefined) {
      return undefined;
    }
    values[p.name] = value;
  }
  return values;
}

export const RUN_ANYWAY = 'Run Anyway';

/** A warned command runs only after the user says so in a modal dialog. */
export async function confirmWarning(item: CommandItem, warning: string | undefined): Promise<boolean> {
  if (!warning) {
    return true;
  }
  const answer = await vscode.window.showWarningMessage(
    `"${item.label}" has a security warning: ${warning}`,
    { modal: true, detail: item.command },
    RUN_ANYWAY,
  );
  return answer === RUN_ANYWAY;
}

export function terminalName(item: CommandItem): string {
  return `CommandTree: ${item.label}`;
}

export class Runner {
  /** `folder`: where launch configurations start (the first workspace folder when omitted). */
  constructor(
    private readonly server: () => Server | undefined,
    private readonly folder: () => vscode.WorkspaceFolder | undefined = () => vscode.workspace.workspaceFolders?.[0],
  ) {}

  async run(item: CommandItem, mode: RunMode): Promise<void> {
    if (item.type === 'markdown' && mode !== 'debug') {
      await vscode.commands.executeCommand('markdown.showPreviewToSide', vscode.Uri.file(item.filePath));
      return;
    }
    const server = this.server();
    if (!server) {
      void vscode.window.showErrorMessage('CommandTree: the ct server is not running.');
      return;
    }
    const params = await collectParams(item.params);
    if (params === undefined) {
      return;
    }
    // A launch configuration only ever runs under the debugger (upstream §7.1).
    const planMode: RunMode = item.type === 'launch' ? 'debug' : mode;
    let plan: Plan;
    try {
      plan = await server.plan(item.id, planMode, params);
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: cannot ${mode === 'debug' ? 'debug' : 'run'} ${item.label}: ${errorText(e)}`);
      return;
    }
    if (!(await confirmWarning(item, plan.securityWarning))) {
      return;
    }
    if (plan.staleSummary) {
      void vscode.window.showInformationMessage(
        `CommandTree: the summary of ${item.label} predates its current definition; its security verdict is unknown until summaries are generated again.`,
      );
    }
    switch (plan.action) {
      case 'debug':
        await this.debug(item, plan);
        return;
      case 'preview':
        await vscode.commands.executeCommand('markdown.showPreviewToSide', vscode.Uri.file(item.filePath));
        return;
      case 'task':
        if (await this.runVsCodeTask(plan.taskName ?? item.label)) {
          return;
        }
        break;
      case 'terminal':
        break;
    }
    await this.inTerminal(item, plan, mode);
  }

  /** Through VS Code's task system when it knows the task (problem matchers, dependsOn). */
  private async runVsCodeTask(name: string): Promise<boolean> {
    const tasks = await vscode.tasks.fetchTasks();
    const task = tasks.find((t) => t.name === name);
    if (!task) {
      return false;
    }
    await vscode.tasks.executeTask(task);
    return true;
  }

  private async debug(item: CommandItem, plan: Plan): Promise<void> {
    const folder = this.folder();
    if (!folder) {
      void vscode.window.showErrorMessage('No workspace folder found');
      return;
    }
    const conf = plan.debugConfiguration;
    // A compound (or a plan without the object) starts by name, as launch.json's own picker does.
    const config: vscode.DebugConfiguration | string =
      conf && conf.compound !== true ? (conf as vscode.DebugConfiguration) : typeof conf?.name === 'string' ? conf.name : item.command;
    const started = await vscode.debug.startDebugging(folder, config);
    if (!started) {
      void vscode.window.showErrorMessage(`Failed to start: ${item.label}`);
    }
  }

  private async inTerminal(item: CommandItem, plan: Plan, mode: RunMode): Promise<void> {
    if (plan.commandLine.trim() === '') {
      // A task VS Code does not know, whose program the server could not find either.
      void vscode.window.showErrorMessage(`CommandTree: nothing to run for ${item.label}: its program was not found.`);
      return;
    }
    const reuse = mode === 'currentTerminal' ? vscode.window.activeTerminal : undefined;
    const terminal =
      reuse ??
      vscode.window.createTerminal({
        name: terminalName(item),
        ...(plan.cwd ? { cwd: plan.cwd } : {}),
        ...(plan.env ? { env: plan.env } : {}),
      });
    terminal.show(true);
    // Text sent before the shell has started can be lost by some shells' line editors.
    await terminal.processId;
    // The server writes `cd -- '<cwd>' && ` into current-terminal plans itself; a multi-line
    // script comes without it, so the terminal is moved first.
    if (reuse && plan.cwd && !plan.commandLine.startsWith('cd ')) {
      terminal.sendText(`cd "${plan.cwd}"`, true);
    }
    terminal.sendText(plan.commandLine, true);
  }
}

export function errorText(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  if (typeof e === 'object' && e !== null && 'message' in e && typeof e.message === 'string') {
    return e.message;
  }
  return String(e);
}
