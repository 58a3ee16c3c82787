// One workspace folder's `ct lsp`: started for the folder, restarted after a crash (the client's
// default policy), stopped when the folder leaves the workspace. Its tree, Quick Launch and
// status live in the folder's own Model; the views merge the folders (folders.ts, tree.ts).

import * as vscode from 'vscode';
import {
  ClientCapabilities,
  CloseAction,
  ErrorAction,
  ErrorHandler,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  State,
  StaticFeature,
  WorkDoneProgress,
} from 'vscode-languageclient/node';
import { Folder } from './folders';
import { ModelChoice, answerLanguageModelRequest, hasLanguageModels } from './lm';
import { checkServer, locateServer } from './locate';
import { Model, Settings } from './model';
import { RunDiagnostics } from './problems';
import { readFilesChanged, readRunning, readTasksChanged } from './protocol';
import type { RunningResult, ServerNotifications, ServerRequests } from './protocol.generated';
import { Runner, errorText } from './runner';
import { Rpc, RpcServer, Server, StepProgress } from './server';

/** The server→client request for the editor's language models (docs/lsp-protocol.md). */
const LANGUAGE_MODEL_REQUEST: keyof ServerRequests = 'commandtree/languageModelRequest';
const TASKS_CHANGED: keyof ServerNotifications = 'commandtree/tasksChanged';
const RUNS_CHANGED: keyof ServerNotifications = 'commandtree/runsChanged';
const FILES_CHANGED: keyof ServerNotifications = 'commandtree/commandFilesChanged';
const REQUEST_CANCELLED = -32800;
const INTERNAL_ERROR = -32603;

/**
 * Asks for `tasksChanged` as deltas and offers to answer language model requests when this
 * VS Code has `vscode.lm` (docs/lsp-protocol.md, `initialize`).
 */
const deltaFeature: StaticFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = {
      ...(capabilities.experimental as object | undefined),
      commandtree: { tasksChangedDelta: true, languageModels: hasLanguageModels() },
    };
  },
  initialize(): void {
    // Nothing to set up: the capability is all this feature does.
  },
  getState: () => ({ kind: 'static' }),
  clear(): void {
    // Nothing to release.
  },
};

function rpcOf(c: LanguageClient): Rpc {
  return {
    sendRequest: <R>(method: string, params: unknown, token?: vscode.CancellationToken) =>
      token ? c.sendRequest<R>(method, params, token) : c.sendRequest<R>(method, params),
    withProgress: async (run, onProgress) => {
      const token = `commandtree-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const sub = c.onProgress(WorkDoneProgress.type, token, (v) => {
        if (v.kind !== 'end') {
          // A playbook's reports carry `step` beyond LSP's fields.
          const step = (v as { step?: unknown }).step;
          onProgress({
            message: v.message,
            percentage: v.percentage,
            ...(typeof step === 'object' && step !== null ? { step: step as StepProgress } : {}),
          });
        }
      });
      try {
        return await run(token);
      } finally {
        sub.dispose();
      }
    },
  };
}

/** What every folder's client shares. */
export interface ClientContext {
  extensionPath: string;
  output: vscode.OutputChannel;
  models: ModelChoice;
  settings: () => Settings;
  serverPath: () => string | undefined;
  /** The server could not be found or started; shown once, not once per folder. */
  problem: (message: string, found: boolean) => void;
  /** Where the problems of runs are shown (one collection for every folder). */
  diagnostics?: RunDiagnostics;
}

export class FolderClient implements Folder {
  readonly name: string;
  readonly root: string;
  readonly model: Model;
  readonly runner: Runner;
  private client: LanguageClient | undefined;
  private current: Server | undefined;
  private restarts = 0;
  private stopped = false;

  constructor(
    private readonly folder: vscode.WorkspaceFolder,
    private readonly ctx: ClientContext,
  ) {
    this.name = folder.name;
    this.root = folder.uri.fsPath;
    this.model = new Model(undefined, ctx.settings());
    this.runner = new Runner(
      () => this.current,
      () => this.folder,
      { root: this.root, runs: this.model.runs, diagnostics: ctx.diagnostics },
    );
  }

  server(): Server | undefined {
    return this.current;
  }

  /** The running client (for notifications every folder's server gets). */
  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  restart(): Promise<void> {
    this.restarts = 0;
    return this.start();
  }

  async dispose(): Promise<void> {
    this.stopped = true;
    const c = this.client;
    this.client = undefined;
    this.current = undefined;
    this.model.setServer(undefined);
    await c?.stop().catch(() => undefined);
    this.model.dispose();
  }

  async start(): Promise<void> {
    const { output, models } = this.ctx;
    const root = this.root;
    const model = this.model;
    if (this.client) {
      await this.client.stop().catch(() => undefined);
      this.client = undefined;
    }
    this.current = undefined;
    model.setServer(undefined);
    if (this.stopped) {
      return;
    }
    const found = locateServer({
      serverPath: this.ctx.serverPath(),
      extensionPath: this.ctx.extensionPath,
      platform: process.platform,
      arch: process.arch,
      pathEnv: process.env.PATH,
    });
    const problem = 'error' in found ? found.error : await checkServer(found.path);
    if ('error' in found || problem !== undefined) {
      const reason = problem ?? '';
      model.setStatus(`${reason} Install ct, then run "Refresh Commands".`);
      this.ctx.problem(reason, false);
      return;
    }
    output.appendLine(`[${new Date().toISOString()}] starting ${found.path} (${found.source}) for ${root}`);
    const serverOptions: ServerOptions = {
      command: found.path,
      args: ['--root', root, 'lsp'],
      // No `transport`: with TransportKind.stdio the client would append `--stdio` to the args.
      options: { cwd: root },
    };
    // The default handler (restart up to 4 times in 3 minutes) needs the client, which needs this.
    const holder: { fallback?: ErrorHandler } = {};
    const errorHandler: ErrorHandler = {
      error: (e, m, count) => holder.fallback?.error(e, m, count) ?? { action: ErrorAction.Continue },
      closed: async () => {
        if (this.stopped) {
          // Stopped on purpose: the folder left the workspace.
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        const decided = (await holder.fallback?.closed()) ?? { action: CloseAction.DoNotRestart };
        this.restarts += 1;
        model.setStatus(
          decided.action === CloseAction.Restart
            ? 'The CommandTree server stopped unexpectedly and is being restarted.'
            : 'The CommandTree server stopped and was not restarted (it crashed too often). Run "Refresh Commands" to start it again.',
        );
        if (decided.action !== CloseAction.Restart) {
          this.current = undefined;
          model.setServer(undefined);
        }
        return decided;
      },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [],
      outputChannel: output,
      errorHandler,
      // Functions, so a restart after a crash sends the values of that moment.
      initializationOptions: () => ({
        workspaceRoot: root,
        excludePatterns: this.ctx.settings().excludePatterns(),
        trusted: vscode.workspace.isTrusted,
      }),
    };
    const c = new LanguageClient('commandtree', 'CommandTree', serverOptions, clientOptions);
    c.registerFeature(deltaFeature);
    holder.fallback = c.createDefaultErrorHandler(4);
    this.client = c;
    const rpc = new RpcServer(rpcOf(c), root);
    c.onDidChangeState((e) => {
      // Each (re)start: the watcher lives in the server process, so ask for it again.
      if (e.newState === State.Running && this.restarts > 0 && this.client === c) {
        model.setStatus(`The CommandTree server crashed and was restarted (${this.restarts}×).`);
        void this.afterStart(rpc);
      }
    });
    try {
      await c.start();
    } catch (e) {
      model.setStatus(`The CommandTree server did not start: ${errorText(e)}`);
      this.ctx.problem(`${found.path} lsp did not start: ${errorText(e)}`, true);
      return;
    }
    if (!this.owns(c)) {
      // The folder left the workspace (or the server was restarted) while this one started.
      await c.stop().catch(() => undefined);
      return;
    }
    type Answer = ServerRequests[typeof LANGUAGE_MODEL_REQUEST]['result'];
    c.onRequest(LANGUAGE_MODEL_REQUEST, async (params: unknown, token: vscode.CancellationToken): Promise<Answer | ResponseError> => {
      try {
        return await answerLanguageModelRequest(params, token, models);
      } catch (e) {
        // Returned, not thrown: a thrown error's message would be wrapped in the client's words.
        return new ResponseError(token.isCancellationRequested ? REQUEST_CANCELLED : INTERNAL_ERROR, errorText(e));
      }
    });
    c.onNotification(TASKS_CHANGED, (p: unknown) => {
      void model.applyChange(readTasksChanged(p)).catch((e: unknown) => {
        output.appendLine(`tree (${this.name}): ${errorText(e)}`);
      });
    });
    c.onNotification(RUNS_CHANGED, (p: unknown) => {
      this.serverRuns(rpc, readRunning(p));
    });
    c.onNotification(FILES_CHANGED, (p: unknown) => {
      const changed = readFilesChanged(p);
      if (changed) {
        void this.runner.filesChanged(changed.id, model.tasks.get(changed.id));
      }
    });
    this.current = rpc;
    model.setServer(rpc);
    await this.afterStart(rpc);
  }

  /**
   * The server's runs on the rows; a detached run that ended meanwhile (started in a shell or
   * the terminal UI) has its log read for problems, as the runs of this window have their output.
   */
  private serverRuns(rpc: Server, state: RunningResult): void {
    const ended = this.model.runs.setServer(state);
    const diagnostics = this.ctx.diagnostics;
    for (const run of ended.filter((r) => r.mode === 'detached')) {
      if (!diagnostics || !vscode.workspace.isTrusted) {
        continue;
      }
      rpc.runProblems(run.runId).then(
        (problems) => {
          diagnostics.set(RunDiagnostics.key(this.root, run.commandId), run.label, problems);
        },
        (e: unknown) => {
          this.ctx.output.appendLine(`problems of run ${run.runId} (${this.name}): ${errorText(e)}`);
        },
      );
    }
  }

  // A method, so the check is made after the awaits above (a field read would be narrowed).
  private owns(c: LanguageClient): boolean {
    return !this.stopped && this.client === c;
  }

  private async afterStart(rpc: Server): Promise<void> {
    try {
      // The first paint does not wait for the watcher; a change that lands before the watcher
      // is up would then be missed, so discovery runs once more when it is.
      await this.model.refresh();
      await rpc.watchFiles();
      await this.model.refresh();
    } catch (e) {
      this.model.setStatus(`Discovery failed: ${errorText(e)}`);
      return;
    }
    await this.runner.rewatch();
    try {
      this.model.runs.setServer(await rpc.running());
    } catch (e) {
      // An older server without runs: the rows show this window's runs only.
      this.ctx.output.appendLine(`runs (${this.name}): ${errorText(e)}`);
    }
  }
}
