// Activation: the two views, the commands, and one `ct lsp` per workspace folder (the protocol's
// server serves one folder), started and stopped as folders are added and removed.

import * as path from 'path';
import * as vscode from 'vscode';
import type { ClientNotifications } from './protocol.generated';
import { ClientContext, FolderClient } from './client';
import { Handlers } from './commands';
import { Folders } from './folders';
import { ModelChoice, hasLanguageModels } from './lm';
import { Settings, explicitValue } from './model';
import { registerParticipant } from './participant';
import { RunDiagnostics } from './problems';
import { SortOrder } from './server';
import { SKILL_SCHEME } from './skills';
import { AllTreeProvider, QuickTreeProvider, RowDecorations } from './tree';

const INSTALL = 'How to Install';
const SET_PATH = 'Set Server Path';

let folders: Folders | undefined;

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

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  if (!vscode.workspace.workspaceFolders?.length) {
    return;
  }
  const output = vscode.window.createOutputChannel('CommandTree');
  context.subscriptions.push(output);
  const models = new ModelChoice();
  const diagnostics = new RunDiagnostics(vscode.languages.createDiagnosticCollection('commandtree'));
  context.subscriptions.push(diagnostics);
  const all = new Folders();
  folders = all;

  // Every folder's server is the same program: one missing binary is one message, not one per
  // folder. Cleared when the user restarts the servers.
  const shown = new Set<string>();
  const ctx: ClientContext = {
    extensionPath: context.extensionPath,
    output,
    models,
    settings,
    serverPath: userServerPath,
    diagnostics,
    problem: (reason, found) => {
      if (shown.has(reason)) {
        return;
      }
      shown.add(reason);
      const buttons = found ? [INSTALL] : [INSTALL, SET_PATH];
      void vscode.window.showErrorMessage(`CommandTree: ${reason}`, ...buttons).then(async (choice) => {
        if (choice === INSTALL) {
          await vscode.commands.executeCommand(
            'markdown.showPreview',
            vscode.Uri.file(path.join(context.extensionPath, 'README.md')),
          );
        } else if (choice === SET_PATH) {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'commandtree.serverPath');
        }
      });
    },
  };
  const clients = (): FolderClient[] => all.all().filter((f): f is FolderClient => f instanceof FolderClient);
  const restartAll = (): void => {
    shown.clear();
    for (const c of clients()) {
      void c.restart();
    }
  };
  const sync = async (): Promise<void> => {
    const added = await all.sync(vscode.workspace.workspaceFolders ?? [], (wf) => new FolderClient(wf, ctx));
    // Activation returns at once; discovery fills the views when it is done (upstream §8.3).
    for (const f of added) {
      if (f instanceof FolderClient) {
        void f.start();
      }
    }
  };

  const handlers = new Handlers({ folders: all });
  const allTree = new AllTreeProvider(all);
  const quick = new QuickTreeProvider(all, (id, pos, root) => handlers.quickMove(id, pos, root));
  const allView = vscode.window.createTreeView('commandtree', {
    treeDataProvider: allTree,
    dragAndDropController: allTree,
    showCollapseAll: true,
  });
  const quickView = vscode.window.createTreeView('commandtree-quick', {
    treeDataProvider: quick,
    dragAndDropController: quick,
  });
  all.onDidChange(() => {
    const status = all.status();
    allView.message = status;
    quickView.message = status;
  });
  context.subscriptions.push(
    allTree,
    quick,
    allView,
    quickView,
    vscode.window.registerFileDecorationProvider(new RowDecorations()),
    handlers.skillDocuments,
    vscode.workspace.registerTextDocumentContentProvider(SKILL_SCHEME, handlers.skillDocuments),
    ...handlers.table().map(([id, fn]) => vscode.commands.registerCommand(id, fn)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      void sync();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      for (const c of clients()) {
        const params: ClientNotifications['commandtree/setTrusted'] = { trusted: true };
        void c.languageClient?.sendNotification('commandtree/setTrusted', params);
        void c.model.refreshTree().catch(() => undefined);
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('commandtree.serverPath')) {
        restartAll();
        return;
      }
      for (const f of all.all()) {
        // Per folder: a folder's own .vscode/settings.json may be the one that changed.
        if (e.affectsConfiguration('commandtree.excludePatterns', vscode.Uri.file(f.root))) {
          void f.model.refresh().catch(() => undefined);
        } else if (e.affectsConfiguration('commandtree.sortOrder', vscode.Uri.file(f.root))) {
          void f.model.refreshTree().catch(() => undefined);
        }
      }
    }),
  );
  if (hasLanguageModels()) {
    context.subscriptions.push(
      registerParticipant({
        // A run goes to the active editor's folder, else the one picked; a plain prompt's context
        // messages come from the active editor's folder, else the first.
        server: async (run) => {
          const folder = all.active() ?? (run ? await all.pick('Run it in') : all.all()[0]);
          return folder?.server();
        },
        models,
        modelOptions: () => vscode.workspace.getConfiguration('commandtree').get<Record<string, unknown>>('agent.modelOptions'),
      }),
    );
    // VS Code refuses a participant its manifest does not declare, so this line means @agent is in the chat.
    output.appendLine(`[${new Date().toISOString()}] chat participant @agent registered (commandtree.agent)`);
  }
  await vscode.commands.executeCommand('setContext', 'commandtree.hasFilter', false);
  await sync();
}

export async function deactivate(): Promise<void> {
  const f = folders;
  folders = undefined;
  await f?.dispose();
}
