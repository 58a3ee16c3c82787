// Activation: the two views, the commands, and one `ct lsp` per window serving the first
// workspace folder (upstream also works on the first folder only).

import * as path from 'path';
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
import { Handlers } from './commands';
import { ModelChoice, answerLanguageModelRequest, hasLanguageModels } from './lm';
import { checkServer, locateServer } from './locate';
import { Model, Settings, explicitValue } from './model';
import { registerParticipant } from './participant';
import { readTasksChanged } from './protocol';
import { Runner, errorText } from './runner';
import { Rpc, RpcServer, Server, SortOrder, StepProgress } from './server';
import { SKILL_SCHEME } from './skills';
import { AllTreeProvider, QuickTreeProvider, RowDecorations } from './tree';

const INSTALL = 'How to Install';
const SET_PATH = 'Set Server Path';

let client: LanguageClient | undefined;

function settings(): Settings {
  return {
    excludePatterns: () => explicitValue(vscode.workspace.getConfiguration('commandtree').inspect<string[]>('excludePatterns')),
    sortOrder: () => vscode.workspace.getConfiguration('commandtree').get<SortOrder>('sortOrder') ?? 'folder',
  };
}

/** Only the user's own setting counts; `scope: machine` keeps it out of workspace files too. */
function userServerPath(): string | undefined {
  return vscode.workspace.getConfiguration('commandtree').inspect<string>('serverPath')?.globalValue;
}

/** The server→client request for the editor's language models (docs/lsp-protocol.md). */
const LANGUAGE_MODEL_REQUEST = 'commandtree/languageModelRequest';
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

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    return;
  }
  const root = folder.uri.fsPath;
  const output = vscode.window.createOutputChannel('CommandTree');
  context.subscriptions.push(output);
  let server: Server | undefined;
  const model = new Model(undefined, settings());
  const runner = new Runner(() => server);
  const models = new ModelChoice();

  let restarts = 0;
  const start = async (): Promise<void> => {
    if (client) {
      await client.stop().catch(() => undefined);
      client = undefined;
    }
    server = undefined;
    model.setServer(undefined);
    const found = locateServer({
      serverPath: userServerPath(),
      extensionPath: context.extensionPath,
      platform: process.platform,
      arch: process.arch,
      pathEnv: process.env.PATH,
    });
    const problem = 'error' in found ? found.error : await checkServer(found.path);
    if ('error' in found || problem !== undefined) {
      const reason = problem ?? '';
      model.setStatus(`${reason} Install ct, then run "Refresh Commands".`);
      void vscode.window.showErrorMessage(`CommandTree: ${reason}`, INSTALL, SET_PATH).then(async (choice) => {
        if (choice === INSTALL) {
          await vscode.commands.executeCommand(
            'markdown.showPreview',
            vscode.Uri.file(path.join(context.extensionPath, 'README.md')),
          );
        } else if (choice === SET_PATH) {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'commandtree.serverPath');
        }
      });
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
        const decided = (await holder.fallback?.closed()) ?? { action: CloseAction.DoNotRestart };
        restarts += 1;
        model.setStatus(
          decided.action === CloseAction.Restart
            ? 'The CommandTree server stopped unexpectedly and is being restarted.'
            : 'The CommandTree server stopped and was not restarted (it crashed too often). Run "Refresh Commands" to start it again.',
        );
        if (decided.action !== CloseAction.Restart) {
          server = undefined;
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
        excludePatterns: settings().excludePatterns(),
        trusted: vscode.workspace.isTrusted,
      }),
    };
    const c = new LanguageClient('commandtree', 'CommandTree', serverOptions, clientOptions);
    c.registerFeature(deltaFeature);
    holder.fallback = c.createDefaultErrorHandler(4);
    client = c;
    const rpc = new RpcServer(rpcOf(c), root);
    c.onDidChangeState((e) => {
      // Each (re)start: the watcher lives in the server process, so ask for it again.
      if (e.newState === State.Running && restarts > 0 && client === c) {
        model.setStatus(`The CommandTree server crashed and was restarted (${restarts}×).`);
        void afterStart(rpc);
      }
    });
    try {
      await c.start();
    } catch (e) {
      model.setStatus(`The CommandTree server did not start: ${errorText(e)}`);
      void vscode.window.showErrorMessage(`CommandTree: ${found.path} lsp did not start: ${errorText(e)}`, INSTALL);
      return;
    }
    c.onRequest(LANGUAGE_MODEL_REQUEST, async (params: unknown, token: vscode.CancellationToken) => {
      try {
        return await answerLanguageModelRequest(params, token, models);
      } catch (e) {
        // Returned, not thrown: a thrown error's message would be wrapped in the client's words.
        return new ResponseError(token.isCancellationRequested ? REQUEST_CANCELLED : INTERNAL_ERROR, errorText(e));
      }
    });
    c.onNotification('commandtree/tasksChanged', (p: unknown) => {
      void model.applyChange(readTasksChanged(p)).catch((e: unknown) => {
        output.appendLine(`tree: ${errorText(e)}`);
      });
    });
    server = rpc;
    model.setServer(rpc);
    await afterStart(rpc);
  };

  const afterStart = async (rpc: Server): Promise<void> => {
    try {
      // The first paint does not wait for the watcher; a change that lands before the watcher
      // is up would then be missed, so discovery runs once more when it is.
      await model.refresh();
      await rpc.watchFiles();
      await model.refresh();
    } catch (e) {
      model.setStatus(`Discovery failed: ${errorText(e)}`);
    }
  };

  const handlers = new Handlers({
    model,
    server: () => server,
    runner,
    workspaceRoot: root,
    restart: () => {
      restarts = 0;
      return start();
    },
  });
  const all = new AllTreeProvider(model);
  const quick = new QuickTreeProvider(model, (id, pos) => handlers.quickMove(id, pos));
  const allView = vscode.window.createTreeView('commandtree', {
    treeDataProvider: all,
    dragAndDropController: all,
    showCollapseAll: true,
  });
  const quickView = vscode.window.createTreeView('commandtree-quick', {
    treeDataProvider: quick,
    dragAndDropController: quick,
  });
  model.onDidChange(() => {
    allView.message = model.status;
    quickView.message = model.status;
  });
  context.subscriptions.push(
    all,
    quick,
    allView,
    quickView,
    model,
    vscode.window.registerFileDecorationProvider(new RowDecorations()),
    handlers.skillDocuments,
    vscode.workspace.registerTextDocumentContentProvider(SKILL_SCHEME, handlers.skillDocuments),
    ...handlers.table().map(([id, fn]) => vscode.commands.registerCommand(id, fn)),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void client?.sendNotification('commandtree/setTrusted', { trusted: true });
      void model.refreshTree().catch(() => undefined);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('commandtree.serverPath')) {
        restarts = 0;
        void start();
      } else if (e.affectsConfiguration('commandtree.excludePatterns')) {
        void model.refresh().catch(() => undefined);
      } else if (e.affectsConfiguration('commandtree.sortOrder')) {
        void model.refreshTree().catch(() => undefined);
      }
    }),
  );
  if (hasLanguageModels()) {
    context.subscriptions.push(
      registerParticipant({
        server: () => server,
        models,
        modelOptions: () => vscode.workspace.getConfiguration('commandtree').get<Record<string, unknown>>('agent.modelOptions'),
      }),
    );
    // VS Code refuses a participant its manifest does not declare, so this line means @agent is in the chat.
    output.appendLine(`[${new Date().toISOString()}] chat participant @agent registered (commandtree.agent)`);
  }
  await vscode.commands.executeCommand('setContext', 'commandtree.hasFilter', false);
  // Activation returns at once; discovery fills the views when it is done (upstream §8.3).
  void start();
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  await c?.stop().catch(() => undefined);
}
