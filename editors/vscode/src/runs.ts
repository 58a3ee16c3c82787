// What runs and how each command last ran, for the rows of the views: the runs this window
// started (in VS Code's terminals, tasks and debugger: the server never starts a process, so
// the extension follows them, and reports them to the history with `commandtree/runStarted`
// so every other front end sees them) merged with the server's history (runs started anywhere
// else, `ct run -d` in a shell, the terminal UI), which `commandtree/running` and
// `commandtree/runsChanged` report. A run of this window is shown once: the history's row of
// it is left out. Also which commands run again when their files change (Run on Change).

import * as vscode from 'vscode';
import type { Run, RunningResult } from './protocol.generated';
import type { RunMode } from './protocol';

export type LocalKind = 'terminal' | 'task' | 'debug';

/** How a run of this window can be stopped and started again. */
export interface LocalRun {
  readonly seq: number;
  readonly commandId: string;
  readonly label: string;
  readonly kind: LocalKind;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  /** What to run again on Restart: the mode and the parameter values it was started with. */
  readonly mode: RunMode;
  readonly params: Record<string, string> | undefined;
  ended?: { at: number; exitCode: number | undefined; stopped: boolean };
  /** Stop was asked for: however it then ends, it was stopped. */
  stopping?: boolean;
  /** Its run id in the history, once the server recorded it. */
  historyId?: number;
  /** The server's answer to `runStarted` (its run id; `undefined` when not recorded). */
  reported?: Promise<number | undefined>;
  /** Asks it to stop (Ctrl+C to its terminal, terminate the task, stop the debug session). */
  stop(): void | Thenable<void>;
}

/** What a row shows for its command. */
export type RowState =
  | { running: true; since: number; count: number }
  | { running: false; outcome: Outcome; durationMs: number | undefined; exitCode: number | undefined; endedAt: number };

export type Outcome = 'succeeded' | 'failed' | 'stopped' | 'ended';

function startedMs(r: Run): number {
  const t = Date.parse(r.startedAt);
  return Number.isNaN(t) ? 0 : t;
}

function outcomeOf(r: Run): Outcome {
  // The history's statuses (`ct runs`): ok, failed, killed (a signal), stopped, unknown.
  switch (r.status) {
    case 'ok':
      return 'succeeded';
    case 'stopped':
      return 'stopped';
    case 'failed':
    case 'killed':
      return 'failed';
    default:
      return r.exitCode === 0 ? 'succeeded' : r.exitCode !== null ? 'failed' : 'ended';
  }
}

/** `1m 05s`, `2h 03m`, `12s`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) {
    return `${s}s`;
  }
  const m = Math.floor(s / 60);
  if (m < 60) {
    return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  }
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

export class RunTracker {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fired when a run starts or ends, and every second while something runs (elapsed time). */
  readonly onDidChange = this.changed.event;
  private readonly local: LocalRun[] = [];
  private readonly ended = new vscode.EventEmitter<LocalRun>();
  /** Fired once when a run of this window ends (for the history). */
  readonly onDidEnd = this.ended.event;
  private readonly watched = new Set<string>();
  private server: RunningResult = { running: [], last: [] };
  private next = 1;
  private readonly waiting: (() => void)[] = [];
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Records a run this window started; it runs until `end`. */
  start(run: Omit<LocalRun, 'seq' | 'startedAt' | 'ended'>): LocalRun {
    const full: LocalRun = { ...run, seq: this.next++, startedAt: this.now() };
    // One entry per command once ended: the newest says how the command last ran.
    for (let i = this.local.length - 1; i >= 0; i--) {
      const r = this.local[i];
      if (r && r.commandId === run.commandId && r.ended) {
        this.local.splice(i, 1);
      }
    }
    this.local.push(full);
    this.fire();
    return full;
  }

  end(run: LocalRun, exitCode: number | undefined): void {
    if (run.ended) {
      return;
    }
    run.ended = { at: this.now(), exitCode, stopped: run.stopping === true };
    this.fire();
    this.ended.fire(run);
    for (const w of this.waiting.splice(0)) {
      w();
    }
  }

  /** Asks `run` to stop and waits until it ended, or `timeoutMs` passed; whether it ended. */
  async stopAndWait(run: LocalRun, timeoutMs = 5000): Promise<boolean> {
    run.stopping = true;
    await run.stop();
    const until = this.now() + timeoutMs;
    while (!run.ended && this.now() < until) {
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return run.ended !== undefined;
  }

  /**
   * The server's state (`running`, `runsChanged`). Returns the runs it had as running before
   * that have ended now.
   */
  setServer(state: RunningResult): Run[] {
    const ids = new Set(state.running.map((r) => r.run.runId));
    const ended = this.server.running.map((r) => r.run).filter((r) => !ids.has(r.runId));
    this.server = state;
    this.fire();
    return ended.map((r) => state.last.find((l) => l.run.runId === r.runId)?.run ?? r);
  }

  /** This window's runs of `commandId` going on now. */
  localRunning(commandId: string): LocalRun[] {
    return this.local.filter((r) => r.commandId === commandId && !r.ended);
  }

  /** The newest run of `commandId` this window started (going on or ended). */
  latestLocal(commandId: string): LocalRun | undefined {
    return [...this.local].reverse().find((r) => r.commandId === commandId);
  }

  /** The server's runs of `commandId` going on now, newest first (not this window's own). */
  serverRunning(commandId: string): Run[] {
    const mine = new Set(this.local.map((r) => r.historyId));
    return this.server.running.map((r) => r.run).filter((r) => r.commandId === commandId && !mine.has(r.runId));
  }

  /** Whether `commandId` runs again when its files change. */
  isWatched(commandId: string): boolean {
    return this.watched.has(commandId);
  }

  setWatched(commandId: string, on: boolean): void {
    if (on) {
      this.watched.add(commandId);
    } else {
      this.watched.delete(commandId);
    }
    this.fire();
  }

  /** The commands that run again when their files change. */
  watchedIds(): string[] {
    return [...this.watched];
  }

  /** The server's newest run of `commandId`. */
  serverLast(commandId: string): Run | undefined {
    return this.server.last.find((r) => r.run.commandId === commandId)?.run;
  }

  isRunning(commandId: string): boolean {
    return this.localRunning(commandId).length > 0 || this.serverRunning(commandId).length > 0;
  }

  anyRunning(): boolean {
    const mine = new Set(this.local.map((r) => r.historyId));
    return this.local.some((r) => !r.ended) || this.server.running.some((r) => !mine.has(r.run.runId));
  }

  /** Running (since the oldest run going on), else how the newest run ended; none never ran. */
  stateOf(commandId: string): RowState | undefined {
    const local = this.localRunning(commandId);
    const remote = this.serverRunning(commandId);
    if (local.length + remote.length > 0) {
      const since = Math.min(...local.map((r) => r.startedAt), ...remote.map(startedMs));
      return { running: true, since, count: local.length + remote.length };
    }
    const mine = this.latestLocal(commandId);
    const theirs = this.serverLast(commandId);
    const mineEnd = mine?.ended ? mine.ended.at : undefined;
    const theirEnd = theirs ? startedMs(theirs) + (theirs.durationMs ?? 0) : undefined;
    if (mine?.ended && mineEnd !== undefined && (theirEnd === undefined || mineEnd >= theirEnd)) {
      const e = mine.ended;
      const outcome: Outcome = e.stopped ? 'stopped' : e.exitCode === undefined ? 'ended' : e.exitCode === 0 ? 'succeeded' : 'failed';
      return { running: false, outcome, exitCode: e.exitCode, durationMs: e.at - mine.startedAt, endedAt: e.at };
    }
    if (theirs && theirEnd !== undefined) {
      return {
        running: false,
        outcome: outcomeOf(theirs),
        exitCode: theirs.exitCode ?? undefined,
        durationMs: theirs.durationMs ?? undefined,
        endedAt: theirEnd,
      };
    }
    return undefined;
  }

  /** What a row's description starts with (`↻` when it runs on change); `undefined` for a
   * command that never ran and is not watched. */
  describe(commandId: string): string | undefined {
    const ran = this.describeRun(commandId);
    if (!this.isWatched(commandId)) {
      return ran;
    }
    return ran ? `↻ ${ran}` : '↻ on change';
  }

  private describeRun(commandId: string): string | undefined {
    const s = this.stateOf(commandId);
    if (!s) {
      return undefined;
    }
    if (s.running) {
      const n = s.count > 1 ? ` ×${s.count}` : '';
      return `running ${formatDuration(this.now() - s.since)}${n}`;
    }
    const took = s.durationMs !== undefined ? ` in ${formatDuration(s.durationMs)}` : '';
    switch (s.outcome) {
      case 'succeeded':
        return `✓${took}`;
      case 'failed':
        return `✗ exit ${s.exitCode ?? '?'}${took}`;
      case 'stopped':
        return '■ stopped';
      case 'ended':
        return `ended${took}`;
    }
  }

  private fire(): void {
    this.changed.fire();
    // A second's tick only while something runs: the rows' elapsed time moves on.
    if (this.anyRunning() && !this.ticker) {
      this.ticker = setInterval(() => {
        if (this.anyRunning()) {
          this.changed.fire();
        } else {
          this.stopTicker();
        }
      }, 1000);
      // A tick must never keep the extension host (or a test run) alive.
      this.ticker.unref();
    } else if (!this.anyRunning()) {
      this.stopTicker();
    }
  }

  private stopTicker(): void {
    if (this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  dispose(): void {
    this.stopTicker();
    this.changed.dispose();
    this.ended.dispose();
  }
}
