// Running a command: parameters asked in the editor, the plan from the server, then VS Code's own
// terminal, task or debug API. The server never needs a terminal; it only says what to run.

import * as vscode from 'vscode';
import { RunDiagnostics } from './problems';
import { CommandItem, ParamDef, Plan, RunMode } from './protocol';
import { LocalRun, RunTracker } from './runs';
import { Server } from './server';

/** How a run comes about: a rerun on change accepts the warning confirmed before. */
export interface RunOptions {
  rerun?: boolean;
}

/** Where the runs of a folder are followed: their state on the rows, their problems. */
export interface Tracking {
  readonly root: string;
  readonly runs: RunTracker;
  readonly diagnostics?: RunDiagnostics;
}

/** How long a new terminal's shell integration is waited for before the line is just typed. */
const SHELL_INTEGRATION_WAIT_MS = 3000;
/** Output kept per run for its problems (the rest is not read). */
const OUTPUT_LIMIT = 8 * 1024 * 1024;

function shellIntegrationOf(terminal: vscode.Terminal, ms: number): Promise<vscode.TerminalShellIntegration | undefined> {
  if (terminal.shellIntegration) {
    return Promise.resolve(terminal.shellIntegration);
  }
  return new Promise((resolve) => {
    const done = (v: vscode.TerminalShellIntegration | undefined): void => {
      clearTimeout(timer);
      sub.dispose();
      resolve(v);
    };
    const sub = vscode.window.onDidChangeTerminalShellIntegration((e) => {
      if (e.terminal === terminal) {
        done(e.shellIntegration);
      }
    });
    const timer = setTimeout(() => {
      done(terminal.shellIntegration);
    }, ms);
  });
}

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
  /** The warning last confirmed for each command that runs on change: not asked again. */
  private readonly confirmed = new Map<string, string>();
  /** Commands being run again on change, and whether another change came meanwhile. */
  private readonly rerunning = new Map<string, boolean>();

  /** `folder`: where launch configurations start (the first workspace folder when omitted). */
  /** `tracking`: where this folder's runs are followed (none: runs are started and forgotten). */
  constructor(
    private readonly server: () => Server | undefined,
    private readonly folder: () => vscode.WorkspaceFolder | undefined = () => vscode.workspace.workspaceFolders?.[0],
    readonly tracking?: Tracking,
  ) {
    tracking?.runs.onDidEnd((run) => {
      void this.reportEnd(run);
    });
  }

  async run(item: CommandItem, mode: RunMode, opts: RunOptions = {}): Promise<void> {
    if (item.type === 'markdown' && mode !== 'debug') {
      await vscode.commands.executeCommand('markdown.showPreviewToSide', vscode.Uri.file(item.filePath));
      return;
    }
    if (!this.server()) {
      void vscode.window.showErrorMessage('CommandTree: the ct server is not running.');
      return;
    }
    const params = await collectParams(item.params);
    if (params === undefined) {
      return;
    }
    await this.runWith(item, mode, params, opts);
  }

  /** Runs `item` with parameter values already chosen (a restart runs as it ran before). */
  async runWith(item: CommandItem, mode: RunMode, params: Record<string, string> | undefined, opts: RunOptions = {}): Promise<void> {
    const server = this.server();
    if (!server) {
      void vscode.window.showErrorMessage('CommandTree: the ct server is not running.');
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
    await this.execute(item, plan, mode, params, opts);
  }

  /** Runs a plan the server made (`plan`, or `restart` of a run of the history). */
  async execute(item: CommandItem, plan: Plan, mode: RunMode, params: Record<string, string> | undefined, opts: RunOptions = {}): Promise<void> {
    const warning = plan.securityWarning;
    const accepted = opts.rerun === true && warning !== undefined && this.confirmed.get(item.id) === warning;
    if (!accepted && !(await confirmWarning(item, warning))) {
      return;
    }
    if (warning !== undefined && this.tracking?.runs.isWatched(item.id)) {
      this.confirmed.set(item.id, warning);
    }
    if (plan.staleSummary) {
      void vscode.window.showInformationMessage(
        `CommandTree: the summary of ${item.label} predates its current definition; its security verdict is unknown until summaries are generated again.`,
      );
    }
    if (plan.action !== 'preview') {
      // A command run again starts with no problems: its old ones may be fixed.
      this.tracking?.diagnostics?.clear(this.key(item));
    }
    const started = { item, mode, params };
    switch (plan.action) {
      case 'debug':
        await this.debug(item, plan, started);
        return;
      case 'preview':
        await vscode.commands.executeCommand('markdown.showPreviewToSide', vscode.Uri.file(item.filePath));
        return;
      case 'task':
        if (await this.runVsCodeTask(plan.taskName ?? item.label, started)) {
          return;
        }
        break;
      case 'terminal':
        break;
    }
    await this.inTerminal(item, plan, mode, started);
  }

  private key(item: CommandItem): string {
    return RunDiagnostics.key(this.tracking?.root ?? '', item.id);
  }

  private track(s: Started, kind: LocalRun['kind'], stop: LocalRun['stop'], pid?: number): LocalRun | undefined {
    const run = this.tracking?.runs.start({
      commandId: s.item.id,
      label: s.item.label,
      kind,
      mode: s.mode,
      params: s.params,
      stop,
    });
    if (run && kind !== 'task') {
      this.report(run, pid);
    }
    return run;
  }

  /**
   * Records a run of this window in the history (`runStarted`), so `ct runs --running`, the
   * terminal UI and other windows see it. Only in a trusted workspace (the server refuses
   * otherwise); a server that cannot record it leaves the run as it is.
   */
  report(run: LocalRun, pid: number | undefined): void {
    const server = this.server();
    if (!server || !vscode.workspace.isTrusted) {
      return;
    }
    run.reported = server.runStarted({ id: run.commandId, mode: run.mode, params: run.params, pid }).then(
      (r) => {
        run.historyId = r?.runId;
        return r?.runId;
      },
      () => undefined,
    );
  }

  private async reportEnd(run: LocalRun): Promise<void> {
    const id = await run.reported;
    const server = this.server();
    if (id === undefined || !server || !run.ended) {
      return;
    }
    await server.runEnded(id, run.ended.exitCode, run.ended.stopped).catch(() => undefined);
  }

  /** Run on Change on or off for `item`: the server watches what it depends on. */
  async toggleRunOnChange(item: CommandItem): Promise<void> {
    const runs = this.tracking?.runs;
    const server = this.server();
    if (!runs || !server) {
      void vscode.window.showErrorMessage('CommandTree: the ct server is not running.');
      return;
    }
    const on = !runs.isWatched(item.id);
    let folders: string[];
    try {
      folders = await server.watchCommand(item.id, on);
    } catch (e) {
      void vscode.window.showErrorMessage(`CommandTree: cannot watch ${item.label}: ${errorText(e)}`);
      return;
    }
    runs.setWatched(item.id, on);
    if (!on) {
      this.confirmed.delete(item.id);
    }
    const n = folders.length;
    void vscode.window.showInformationMessage(
      on
        ? `CommandTree: ${item.label} runs again when its files change (${n} ${n === 1 ? 'folder' : 'folders'} watched).`
        : `CommandTree: ${item.label} no longer runs on change.`,
    );
  }

  /**
   * The server says files `item` depends on changed: its run of this window going on is
   * stopped and it runs again as it last ran here (mode and values); one that never ran here
   * runs in a new terminal. A change while that happens runs it once more after.
   */
  async filesChanged(id: string, item: CommandItem | undefined): Promise<void> {
    const runs = this.tracking?.runs;
    if (!runs?.isWatched(id)) {
      return;
    }
    if (!item) {
      // The command is gone: nothing to run, nothing to watch.
      runs.setWatched(id, false);
      await this.server()?.watchCommand(id, false).catch(() => undefined);
      return;
    }
    if (this.rerunning.has(id)) {
      this.rerunning.set(id, true);
      return;
    }
    this.rerunning.set(id, false);
    try {
      do {
        this.rerunning.set(id, false);
        const mine = runs.localRunning(id);
        const last = mine[mine.length - 1] ?? runs.latestLocal(id);
        const stopped = await Promise.all(mine.map((r) => runs.stopAndWait(r)));
        if (stopped.includes(false)) {
          void vscode.window.showErrorMessage(`CommandTree: ${item.label} did not stop; not starting it again.`);
          return;
        }
        if (last) {
          await this.runWith(item, last.mode, last.params, { rerun: true });
        } else {
          await this.run(item, 'newTerminal', { rerun: true });
        }
      } while (this.rerunning.get(id) === true);
    } finally {
      this.rerunning.delete(id);
    }
  }

  /** A server started again: it watches what this window watched. */
  async rewatch(): Promise<void> {
    const server = this.server();
    for (const id of this.tracking?.runs.watchedIds() ?? []) {
      await server?.watchCommand(id, true).catch(() => undefined);
    }
  }

  /** Through VS Code's task system when it knows the task (problem matchers, dependsOn). */
  private async runVsCodeTask(name: string, s: Started): Promise<boolean> {
    const tasks = await vscode.tasks.fetchTasks();
    const task = tasks.find((t) => t.name === name);
    if (!task) {
      return false;
    }
    const execution = await vscode.tasks.executeTask(task);
    const tracker = this.tracking?.runs;
    const run = this.track(s, 'task', () => {
      execution.terminate();
    });
    if (run) {
      // Reported with its process, so the history can tell when it is gone.
      const starting = vscode.tasks.onDidStartTaskProcess((e) => {
        if (e.execution === execution) {
          starting.dispose();
          this.report(run, e.processId);
        }
      });
    }
    if (run && tracker) {
      // A task with a process ends with its exit code; one without (a custom execution) ends.
      const subs = [
        vscode.tasks.onDidEndTaskProcess((e) => {
          if (e.execution === execution) {
            tracker.end(run, e.exitCode);
          }
        }),
        vscode.tasks.onDidEndTask((e) => {
          if (e.execution === execution) {
            tracker.end(run, undefined);
            for (const d of subs) {
              d.dispose();
            }
          }
        }),
      ];
    }
    return true;
  }

  private async debug(item: CommandItem, plan: Plan, s: Started): Promise<void> {
    const folder = this.folder();
    if (!folder) {
      void vscode.window.showErrorMessage('No workspace folder found');
      return;
    }
    const conf = plan.debugConfiguration;
    // A compound (or a plan without the object) starts by name, as launch.json's own picker does.
    const config: vscode.DebugConfiguration | string =
      conf && conf.compound !== true ? (conf as vscode.DebugConfiguration) : typeof conf?.name === 'string' ? conf.name : item.command;
    const name = typeof config === 'string' ? config : config.name;
    const tracker = this.tracking?.runs;
    let session: vscode.DebugSession | undefined;
    // The session is only known from the start event, which comes before startDebugging's answer.
    const starting = vscode.debug.onDidStartDebugSession((sess) => {
      if (!session && (sess.name === name || sess.configuration.name === name)) {
        session = sess;
      }
    });
    let started: boolean;
    try {
      started = await vscode.debug.startDebugging(folder, config);
    } finally {
      starting.dispose();
    }
    if (!started) {
      void vscode.window.showErrorMessage(`Failed to start: ${item.label}`);
      return;
    }
    const sess = session;
    if (!sess || !tracker) {
      return;
    }
    const run = this.track(s, 'debug', () => vscode.debug.stopDebugging(sess));
    if (run) {
      const sub = vscode.debug.onDidTerminateDebugSession((ended) => {
        if (ended === sess) {
          sub.dispose();
          tracker.end(run, undefined);
        }
      });
    }
  }

  private async inTerminal(item: CommandItem, plan: Plan, mode: RunMode, s: Started): Promise<void> {
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
    const pid = await terminal.processId;
    // The server writes `cd -- '<cwd>' && ` into current-terminal plans itself; a multi-line
    // script comes without it, so the terminal is moved first.
    if (reuse && plan.cwd && !plan.commandLine.startsWith('cd ')) {
      terminal.sendText(`cd "${plan.cwd}"`, true);
    }
    // Shell integration says when the line ends, with which exit code, and what it printed;
    // without it the line is typed and the run is not followed.
    const integration = this.tracking ? await shellIntegrationOf(terminal, SHELL_INTEGRATION_WAIT_MS) : undefined;
    if (!integration) {
      terminal.sendText(plan.commandLine, true);
      return;
    }
    const execution = integration.executeCommand(plan.commandLine);
    this.follow(s, terminal, execution, plan.cwd, pid);
  }

  /** Follows a line run in a terminal: running until it ends, then its problems. */
  private follow(
    s: Started,
    terminal: vscode.Terminal,
    execution: vscode.TerminalShellExecution,
    cwd: string | undefined,
    pid: number | undefined,
  ): void {
    const tracker = this.tracking?.runs;
    // Read at once: only what is printed after the first read() is seen.
    const stream = execution.read();
    const run = this.track(
      s,
      'terminal',
      () => {
        terminal.sendText('\u0003', false);
      },
      pid,
    );
    if (!run || !tracker) {
      return;
    }
    let output = '';
    const reading = (async () => {
      try {
        for await (const data of stream) {
          if (output.length < OUTPUT_LIMIT) {
            output += data;
          }
        }
      } catch {
        // A terminal that went away ends its stream: what came so far is read.
      }
    })();
    const finish = async (exitCode: number | undefined): Promise<void> => {
      for (const d of subs) {
        d.dispose();
      }
      tracker.end(run, exitCode);
      // The stream ends with the execution; a stream that does not is not waited on long.
      await Promise.race([reading, new Promise((r) => setTimeout(r, 2000))]);
      await this.readProblems(s.item, output, cwd);
    };
    const subs = [
      vscode.window.onDidEndTerminalShellExecution((e) => {
        if (e.execution === execution) {
          void finish(e.exitCode);
        }
      }),
      vscode.window.onDidCloseTerminal((t) => {
        if (t === terminal) {
          void finish(undefined);
        }
      }),
    ];
  }

  /** The problems in a run's output, as diagnostics of its command. */
  async readProblems(item: CommandItem, output: string, cwd: string | undefined): Promise<void> {
    const diagnostics = this.tracking?.diagnostics;
    const server = this.server();
    if (!diagnostics || !server || output.trim() === '') {
      return;
    }
    try {
      diagnostics.set(this.key(item), item.label, await server.problems(output, cwd));
    } catch {
      // A server that cannot read them shows none; the run itself is unaffected.
    }
  }
}

/** What a run was started with (what Restart repeats). */
interface Started {
  item: CommandItem;
  mode: RunMode;
  params: Record<string, string> | undefined;
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
