// Test doubles for the `ct lsp` process: unit tests run without a server binary, so `FakeServer`
// answers the requests from in-memory data and records every call. The protocol itself is
// checked against the real server by test/e2e.sh and by the server's own integration tests.

import type * as vscode from 'vscode';
import { Folder } from '../../src/folders';
import { Model, Settings } from '../../src/model';
import {
  CommandItem,
  CommandSkill,
  Plan,
  PlaybookInfo,
  RunMode,
  SearchHit,
  SkillProposal,
  TreeCategory,
  WireMessage,
} from '../../src/protocol';
import type { Deps, Problem, Run, RunningResult } from '../../src/protocol.generated';
import { Runner } from '../../src/runner';
import { Discovery, Server, SortOrder, StartedRun, SummarizeProgress } from '../../src/server';

export function item(over: Partial<CommandItem> & { label: string }): CommandItem {
  const type = over.type ?? 'shell';
  const filePath = over.filePath ?? `/ws/scripts/${over.label}`;
  return {
    id: over.id ?? `${type}:${filePath}:${over.label}`,
    type,
    category: 'scripts',
    command: `./${over.label}`,
    cwd: '/ws/scripts',
    filePath,
    tags: [],
    ...over,
  };
}

export class FakeServer implements Server {
  calls: { method: string; args: unknown[] }[] = [];
  tasks: CommandItem[] = [];
  categories: TreeCategory[] = [];
  quickIds: string[] = [];
  plans = new Map<string, Plan>();
  hits: SearchHit[] = [];
  skills: CommandSkill[] = [];
  /** What proposeSkill answers (per command id); a missing entry is the server's −32002. */
  proposals = new Map<string, SkillProposal>();
  /** The file contents applySkill writes to, keyed by path, as the server would see them. */
  files = new Map<string, string>();
  playbookList: PlaybookInfo[] = [];
  /** The replies of a playbook's steps, in order, reported as the server reports them. */
  stepReplies: string[] = [];
  skillReply = '';
  contextMessages: WireMessage[] = [];
  /** A playbook or skill run waits for this (or for its token's cancellation). */
  runGate: Promise<void> = Promise.resolve();
  /** Resolves pending discoveries; lets a test hold discovery open to see callers share it. */
  gate: Promise<void> = Promise.resolve();
  /** The history's state, as `running` answers it; `stop` ends runs in it as the server does. */
  runState: RunningResult = { running: [], last: [] };
  /** What `restart` answers, by run id. */
  restartPlans = new Map<number, Plan>();
  /** What `problems` answers for any output (the real parser is the server's). */
  problemList: Problem[] = [];
  /** What `deps` answers, by command id. */
  depsOf = new Map<string, Deps>();

  private record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
  }

  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  async discoverTasks(excludePatterns: string[] | undefined): Promise<Discovery> {
    this.record('discoverTasks', excludePatterns);
    await this.gate;
    return { tasks: this.tasks, warnings: [] };
  }
  watchFiles(): Promise<void> {
    this.record('watchFiles');
    return Promise.resolve();
  }
  tree(sort: SortOrder, tag: string | undefined): Promise<TreeCategory[]> {
    this.record('tree', sort, tag);
    return Promise.resolve(this.categories);
  }
  quick(): Promise<string[]> {
    this.record('quick');
    return Promise.resolve(this.quickIds);
  }
  tag(id: string, tag: string, add: boolean): Promise<void> {
    this.record('tag', id, tag, add);
    return Promise.resolve();
  }
  star(id: string, starred: boolean): Promise<void> {
    this.record('star', id, starred);
    this.quickIds = starred ? [...this.quickIds, id] : this.quickIds.filter((q) => q !== id);
    return Promise.resolve();
  }
  quickMove(id: string, position: number): Promise<void> {
    this.record('quickMove', id, position);
    return Promise.resolve();
  }
  plan(id: string, mode: RunMode, params: Record<string, string> | undefined): Promise<Plan> {
    this.record('plan', id, mode, params);
    const plan = this.plans.get(id);
    if (!plan) {
      return Promise.reject(new Error(`command not found: ${id}`));
    }
    // As docs/lsp-protocol.md: debug is for launch configurations only, and a current-terminal
    // plan carries its own `cd`.
    if (mode === 'debug' && plan.action !== 'debug') {
      return Promise.reject(new Error('only launch configurations can be debugged'));
    }
    if (mode === 'currentTerminal' && plan.action === 'terminal' && plan.cwd && !plan.commandLine.includes('\n')) {
      return Promise.resolve({ ...plan, commandLine: `cd -- '${plan.cwd}' && ${plan.commandLine}` });
    }
    return Promise.resolve(plan);
  }
  summarize(
    ids: string[] | undefined,
    force: boolean,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<unknown> {
    this.record('summarize', ids, force, token);
    progress({ message: '1/1', percentage: 100 });
    return Promise.resolve({ summarized: 1 });
  }
  search(query: string, limit: number): Promise<SearchHit[]> {
    this.record('search', query, limit);
    return Promise.resolve(this.hits);
  }
  commandSkills(): Promise<CommandSkill[]> {
    this.record('commandSkills');
    return Promise.resolve(this.skills);
  }
  proposeSkill(
    skill: string,
    id: string,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<SkillProposal> {
    this.record('proposeSkill', skill, id);
    if (token.isCancellationRequested) {
      return Promise.reject(new Error('cancelled'));
    }
    const p = this.proposals.get(id);
    if (!p) {
      return Promise.reject(new Error(`command not found: ${id}`));
    }
    progress({ message: 'asking the model' });
    return Promise.resolve(p);
  }
  /** As the server: writes only onto the text the proposal was made from. */
  applySkill(skill: string, id: string, original: string, proposed: string): Promise<void> {
    this.record('applySkill', skill, id, original, proposed);
    const file = this.tasks.find((t) => t.id === id)?.filePath ?? '';
    if (this.files.get(file) !== original) {
      return Promise.reject(new Error(`${file} changed meanwhile; nothing was written`));
    }
    this.files.set(file, proposed);
    return Promise.resolve();
  }
  private async gated(token: vscode.CancellationToken): Promise<void> {
    await Promise.race([
      this.runGate,
      new Promise<void>((resolve) => {
        if (token.isCancellationRequested) {
          resolve();
        }
        token.onCancellationRequested(() => { resolve(); });
      }),
    ]);
    if (token.isCancellationRequested) {
      throw new Error('cancelled');
    }
  }
  async runSkill(
    invocation: string,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<string> {
    this.record('runSkill', invocation, token);
    progress({ message: invocation });
    await this.gated(token);
    return this.skillReply;
  }
  playbooks(): Promise<PlaybookInfo[]> {
    this.record('playbooks');
    return Promise.resolve(this.playbookList);
  }
  async runPlaybook(
    name: string,
    inputs: Record<string, string>,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<{ id: string; reply: string }[]> {
    this.record('runPlaybook', name, inputs, token);
    const steps = this.playbookList.find((p) => p.name === name)?.steps ?? [];
    const total = steps.length;
    const out: { id: string; reply: string }[] = [];
    for (const [i, id] of steps.entries()) {
      progress({ message: `[${i + 1}/${total}] ${id}`, step: { index: i + 1, total, id, skill: 'task' } });
      await this.gated(token);
      const reply = this.stepReplies[i] ?? '';
      progress({ step: { index: i + 1, total, id, reply } });
      out.push({ id, reply });
    }
    return out;
  }
  context(): Promise<WireMessage[]> {
    this.record('context');
    return Promise.resolve(this.contextMessages);
  }
  running(): Promise<RunningResult> {
    this.record('running');
    return Promise.resolve(this.runState);
  }
  stop(target: { runId: number } | { id: string }): Promise<Run[]> {
    this.record('stop', target);
    const hit = this.runState.running.filter((r) => ('runId' in target ? r.run.runId === target.runId : r.run.commandId === target.id));
    if (hit.length === 0) {
      return Promise.reject(new Error('not running'));
    }
    const stopped = hit.map((r) => ({ ...r.run, status: 'stopped', exitCode: 143 }));
    this.runState = {
      running: this.runState.running.filter((r) => !hit.includes(r)),
      last: [...stopped.map((run) => ({ run })), ...this.runState.last.filter((l) => !stopped.some((s) => s.commandId === l.run.commandId))],
    };
    return Promise.resolve(stopped);
  }
  async restart(runId: number, mode: RunMode): Promise<Plan> {
    this.record('restart', runId, mode);
    const plan = this.restartPlans.get(runId);
    if (!plan) {
      throw new Error(`no run ${runId}`);
    }
    if (this.runState.running.some((r) => r.run.runId === runId)) {
      await this.stop({ runId });
    }
    return plan;
  }
  problems(output: string, cwd: string | undefined): Promise<Problem[]> {
    this.record('problems', output, cwd);
    return Promise.resolve(this.problemList);
  }
  runProblems(runId: number): Promise<Problem[]> {
    this.record('runProblems', runId);
    return Promise.resolve(this.problemList);
  }
  deps(id: string): Promise<Deps> {
    this.record('deps', id);
    const d = this.depsOf.get(id);
    return d ? Promise.resolve(d) : Promise.reject(new Error(`command not found: ${id}`));
  }
  /** The commands watched (`watchCommand`). */
  watching = new Set<string>();
  /** The folders `watchCommand` answers. */
  watchFolders = ['/ws'];
  private nextRun = 100;
  watchCommand(id: string, watch: boolean): Promise<string[]> {
    this.record('watchCommand', id, watch);
    if (watch) {
      this.watching.add(id);
    } else {
      this.watching.delete(id);
    }
    return Promise.resolve(watch ? this.watchFolders : []);
  }
  /** As the server: the run is in the history as running, so `running` reports it too. */
  runStarted(run: StartedRun): Promise<Run | undefined> {
    this.record('runStarted', run);
    const label = this.tasks.find((t) => t.id === run.id)?.label ?? run.id;
    const r: Run = {
      runId: this.nextRun++,
      commandId: run.id,
      label,
      commandLine: label,
      cwd: '/ws',
      startedAt: new Date().toISOString(),
      durationMs: null,
      exitCode: null,
      mode: 'editor',
      status: 'running',
    };
    this.runState = { running: [{ run: r }, ...this.runState.running], last: [{ run: r }, ...this.runState.last.filter((l) => l.run.commandId !== run.id)] };
    return Promise.resolve(r);
  }
  runEnded(runId: number, exitCode: number | undefined, stopped: boolean): Promise<void> {
    this.record('runEnded', runId, exitCode, stopped);
    this.runState = { ...this.runState, running: this.runState.running.filter((r) => r.run.runId !== runId) };
    return Promise.resolve();
  }
  show(id: string): Promise<CommandItem | undefined> {
    this.record('show', id);
    return Promise.resolve(this.tasks.find((t) => t.id === id));
  }
}

export function settings(sort: SortOrder = 'folder', excludes?: string[]): Settings {
  return { excludePatterns: () => excludes, sortOrder: () => sort };
}

export function modelWith(server: FakeServer, sort: SortOrder = 'folder'): Model {
  return new Model(server, settings(sort));
}

/**
 * A workspace folder served by a FakeServer, as the extension's FolderClient serves one by a
 * `ct lsp` process: `dispose` stops the server (it answers nothing afterwards) as the client's
 * `stop()` ends the process.
 */
export class FakeFolder implements Folder {
  readonly model: Model;
  readonly runner: Runner;
  running = true;
  restarts = 0;
  constructor(
    readonly name: string,
    readonly root: string,
    readonly fake: FakeServer,
  ) {
    this.model = new Model(fake, settings());
    this.runner = new Runner(
      () => this.server(),
      () => ({ uri: { fsPath: root, scheme: 'file', path: root }, name, index: 0 }) as unknown as vscode.WorkspaceFolder,
    );
  }
  server(): Server | undefined {
    return this.running ? this.fake : undefined;
  }
  restart(): Promise<void> {
    this.restarts += 1;
    this.running = true;
    this.model.setServer(this.fake);
    return Promise.resolve();
  }
  dispose(): Promise<void> {
    this.running = false;
    this.fake.calls.push({ method: 'stop', args: [] });
    this.model.setServer(undefined);
    return Promise.resolve();
  }
}
