// The requests the extension sends to `ct lsp`, behind one interface so the tree and the
// command handlers never touch JSON-RPC and unit tests can stand in for the server process.

import type * as vscode from 'vscode';
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
  readContext,
  readDeps,
  readPlaybookRun,
  readPlaybooks,
  readSkillReply,
  readPlan,
  readProblems,
  readProposal,
  readRecorded,
  readQuick,
  readRunning,
  readStopped,
  readSearch,
  readShown,
  readSkills,
  readTasks,
  readTree,
  readWarnings,
  readWatched,
} from './protocol';
import type { Deps, PlaybookStep, Problem, Requests, Run, RunningResult } from './protocol.generated';

export type SortOrder = 'folder' | 'name' | 'type';

export interface Discovery {
  tasks: CommandItem[];
  warnings: { file: string; line?: number; message: string }[];
}

export interface SummarizeProgress {
  message?: string;
  percentage?: number;
  /** A playbook's step: sent when it starts (with `skill`) and when it is done (with `reply`). */
  step?: StepProgress;
}

export type StepProgress = PlaybookStep;

export interface Server {
  discoverTasks(excludePatterns: string[] | undefined): Promise<Discovery>;
  watchFiles(): Promise<void>;
  tree(sort: SortOrder, tag: string | undefined, known: Map<string, CommandItem>): Promise<TreeCategory[]>;
  quick(): Promise<string[]>;
  tag(id: string, tag: string, add: boolean): Promise<void>;
  star(id: string, starred: boolean): Promise<void>;
  quickMove(id: string, position: number): Promise<void>;
  plan(id: string, mode: RunMode, params: Record<string, string> | undefined): Promise<Plan>;
  summarize(
    ids: string[] | undefined,
    force: boolean,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<unknown>;
  search(query: string, limit: number): Promise<SearchHit[]>;
  show(id: string): Promise<CommandItem | undefined>;
  commandSkills(): Promise<CommandSkill[]>;
  /** The model's version of command `id`'s file under `skill`; the server writes nothing. */
  proposeSkill(
    skill: string,
    id: string,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<SkillProposal>;
  /** Writes `proposed` if the file still holds `original` (else the server answers −32004). */
  applySkill(skill: string, id: string, original: string, proposed: string): Promise<void>;
  /** Runs `@skill --flag value ...`; its model requests come back as `languageModelRequest`. */
  runSkill(invocation: string, token: vscode.CancellationToken, progress: (p: SummarizeProgress) => void): Promise<string>;
  playbooks(): Promise<PlaybookInfo[]>;
  /** Runs a playbook; cancelling `token` stops it and the model request in flight. */
  runPlaybook(
    name: string,
    inputs: Record<string, string>,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<{ id: string; reply: string }[]>;
  /** The active context messages (the `default` conversation), oldest first. */
  context(): Promise<WireMessage[]>;
  /** What runs now (anywhere) and each command's newest run in the history. */
  running(): Promise<RunningResult>;
  /** Stops a run of the history, or every run of a command going on now. */
  stop(target: { runId: number } | { id: string }): Promise<Run[]>;
  /** Stops a run of the history if it still runs; the plan to start it again here. */
  restart(runId: number, mode: RunMode): Promise<Plan>;
  /** The problems in output a run printed in `cwd`. */
  problems(output: string, cwd: string | undefined): Promise<Problem[]>;
  /** The problems in the log of a run of the history. */
  runProblems(runId: number): Promise<Problem[]>;
  /** What a command runs and what runs it. */
  deps(id: string): Promise<Deps>;
  /** Starts or stops watching what a command depends on; the folders watched. */
  watchCommand(id: string, watch: boolean): Promise<string[]>;
  /** Records a run this window started in the history; the run as recorded. */
  runStarted(run: StartedRun): Promise<Run | undefined>;
  /** Records how a run reported with `runStarted` ended. */
  runEnded(runId: number, exitCode: number | undefined, stopped: boolean): Promise<void>;
}

/** What the history needs of a run this window started. */
export interface StartedRun {
  id: string;
  mode: RunMode;
  params: Record<string, string> | undefined;
  /** The terminal's shell or the task's process, when VS Code says. */
  pid: number | undefined;
}

/** The JSON-RPC side a `Server` needs: what `LanguageClient` offers, narrowed. */
export interface Rpc {
  sendRequest<R>(method: string, params: unknown, token?: vscode.CancellationToken): Promise<R>;
  withProgress<R>(
    run: (workDoneToken: string) => Promise<R>,
    onProgress: (p: SummarizeProgress) => void,
  ): Promise<R>;
}

export class RpcServer implements Server {
  constructor(
    private readonly rpc: Rpc,
    private readonly workspaceRoot: string,
  ) {}

  /** Sends request `M` with its params as the server's types have them. */
  private request<M extends keyof Requests>(
    method: M,
    params: Requests[M]['params'],
    token?: vscode.CancellationToken,
  ): Promise<Requests[M]['result']> {
    return this.rpc.sendRequest<Requests[M]['result']>(method, params, token);
  }

  async discoverTasks(excludePatterns: string[] | undefined): Promise<Discovery> {
    const answer = await this.request('commandtree/discoverTasks', {
      workspaceRoot: this.workspaceRoot,
      ...(excludePatterns ? { excludePatterns } : {}),
    });
    return { tasks: readTasks(answer), warnings: readWarnings(answer) };
  }

  async watchFiles(): Promise<void> {
    await this.request('commandtree/watchFiles', {});
  }

  async tree(sort: SortOrder, tag: string | undefined, known: Map<string, CommandItem>): Promise<TreeCategory[]> {
    const answer = await this.request('commandtree/tree', {
      sort,
      ...(tag !== undefined ? { tag } : {}),
    });
    return readTree(answer, known);
  }

  async quick(): Promise<string[]> {
    return readQuick(await this.request('commandtree/quick', {}));
  }

  async tag(id: string, tag: string, add: boolean): Promise<void> {
    await this.request('commandtree/tag', { id, tag, add });
  }

  async star(id: string, starred: boolean): Promise<void> {
    await this.request('commandtree/star', { id, starred });
  }

  async quickMove(id: string, position: number): Promise<void> {
    await this.request('commandtree/quickMove', { id, position });
  }

  async plan(id: string, mode: RunMode, params: Record<string, string> | undefined): Promise<Plan> {
    const answer = await this.request('commandtree/plan', {
      id,
      mode,
      ...(params && Object.keys(params).length > 0 ? { params } : {}),
    });
    return readPlan(answer);
  }

  summarize(
    ids: string[] | undefined,
    force: boolean,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<unknown> {
    return this.rpc.withProgress(
      (workDoneToken) =>
        this.request('commandtree/summarize', { ...(ids ? { ids } : {}), force, workDoneToken }, token),
      progress,
    );
  }

  async search(query: string, limit: number): Promise<SearchHit[]> {
    return readSearch(await this.request('commandtree/search', { query, limit }));
  }

  async show(id: string): Promise<CommandItem | undefined> {
    return readShown(await this.request('commandtree/show', { id }));
  }

  async commandSkills(): Promise<CommandSkill[]> {
    return readSkills(await this.request('commandtree/commandSkills', {}));
  }

  async proposeSkill(
    skill: string,
    id: string,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<SkillProposal> {
    const answer = await this.rpc.withProgress(
      (workDoneToken) => this.request('commandtree/proposeSkill', { skill, id, workDoneToken }, token),
      progress,
    );
    return readProposal(answer);
  }

  async applySkill(skill: string, id: string, original: string, proposed: string): Promise<void> {
    await this.request('commandtree/applySkill', { skill, id, original, proposed });
  }

  async runSkill(
    invocation: string,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<string> {
    const answer = await this.rpc.withProgress(
      (workDoneToken) => this.request('commandtree/runSkill', { invocation, workDoneToken }, token),
      progress,
    );
    return readSkillReply(answer);
  }

  async playbooks(): Promise<PlaybookInfo[]> {
    return readPlaybooks(await this.request('commandtree/playbooks', {}));
  }

  async runPlaybook(
    name: string,
    inputs: Record<string, string>,
    token: vscode.CancellationToken,
    progress: (p: SummarizeProgress) => void,
  ): Promise<{ id: string; reply: string }[]> {
    const answer = await this.rpc.withProgress(
      (workDoneToken) => this.request('commandtree/runPlaybook', { name, inputs, workDoneToken }, token),
      progress,
    );
    return readPlaybookRun(answer);
  }

  async context(): Promise<WireMessage[]> {
    return readContext(await this.request('commandtree/context', {}));
  }

  async running(): Promise<RunningResult> {
    return readRunning(await this.request('commandtree/running', {}));
  }

  async stop(target: { runId: number } | { id: string }): Promise<Run[]> {
    return readStopped(await this.request('commandtree/stop', target));
  }

  async restart(runId: number, mode: RunMode): Promise<Plan> {
    return readPlan(await this.request('commandtree/restart', { runId, mode }));
  }

  async problems(output: string, cwd: string | undefined): Promise<Problem[]> {
    return readProblems(await this.request('commandtree/problems', { output, ...(cwd ? { cwd } : {}) }));
  }

  async runProblems(runId: number): Promise<Problem[]> {
    return readProblems(await this.request('commandtree/problems', { runId }));
  }

  async deps(id: string): Promise<Deps> {
    return readDeps(await this.request('commandtree/deps', { id }));
  }

  async watchCommand(id: string, watch: boolean): Promise<string[]> {
    return readWatched(await this.request('commandtree/watchCommand', { id, watch }));
  }

  async runStarted(run: StartedRun): Promise<Run | undefined> {
    const answer = await this.request('commandtree/runStarted', {
      id: run.id,
      mode: run.mode,
      ...(run.params && Object.keys(run.params).length > 0 ? { params: run.params } : {}),
      ...(run.pid !== undefined ? { pid: run.pid } : {}),
    });
    return readRecorded(answer);
  }

  async runEnded(runId: number, exitCode: number | undefined, stopped: boolean): Promise<void> {
    await this.request('commandtree/runEnded', {
      runId,
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(stopped ? { stopped } : {}),
    });
  }
}
