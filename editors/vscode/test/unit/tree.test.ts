// Tree provider tests. `vscode` is the mock from vscode-mock.ts and the server is FakeServer
// (fakes.ts): neither VS Code nor `ct lsp` can run inside a unit test.

import * as assert from 'assert';
import * as vscode from 'vscode';
import { explicitValue } from '../../src/model';
import { readQuick, readSearch, readTree, readPlan } from '../../src/protocol';
import {
  AllTreeProvider,
  EMPTY_QUICK,
  Element,
  QUICK_MIME,
  QuickTreeProvider,
  RowDecorations,
  SCRIPT_MIME,
  commandRow,
} from '../../src/tree';
import { FakeServer, item, modelWith } from './fakes';

const build = item({ label: 'build.sh' });
const deploy = item({ label: 'deploy.sh', securityWarning: 'Runs rm -rf on the remote host' });
const hidden = item({ type: 'make', label: '_hidden', filePath: '/ws/Makefile', category: 'Root', line: 12 });
const makeBuild = item({ type: 'make', label: 'build', filePath: '/ws/Makefile', category: 'Root', line: 5 });
const readme = item({ type: 'markdown', label: 'README.md', filePath: '/ws/README.md', category: 'Root' });

function fixture(): FakeServer {
  const server = new FakeServer();
  server.tasks = [build, deploy, hidden, makeBuild, readme];
  server.categories = [
    {
      type: 'shell',
      label: 'Shell Scripts',
      count: 2,
      children: [{ kind: 'folder', label: 'scripts', children: [{ kind: 'command', item: build }, { kind: 'command', item: deploy }] }],
    },
    {
      type: 'make',
      label: 'Make Targets',
      count: 2,
      children: [{ kind: 'command', item: makeBuild }, { kind: 'command', item: hidden }],
    },
    { type: 'npm', label: 'NPM Scripts', count: 0, children: [] },
    { type: 'markdown', label: 'Markdown Files', count: 1, children: [{ kind: 'command', item: readme }] },
  ];
  return server;
}

/** `ThemeColor.id` is missing from older @types/vscode; the mock always has it. */
function colorId(c: unknown): string | undefined {
  return typeof c === 'object' && c !== null && 'id' in c && typeof c.id === 'string' ? c.id : undefined;
}

async function labels(provider: AllTreeProvider, parent?: Element): Promise<string[]> {
  const children = await provider.getChildren(parent);
  return children.map((c) => provider.getTreeItem(c).label as string);
}

describe('All tree', () => {
  it('asks for discovery on first display and shows categories with counts, empty ones left out', async () => {
    const server = fixture();
    const provider = new AllTreeProvider(modelWith(server));
    assert.deepStrictEqual(await labels(provider), ['Shell Scripts (2)', 'Make Targets (2)', 'Markdown Files (1)']);
    assert.strictEqual(server.count('discoverTasks'), 1);
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'tree')?.args, ['folder', undefined]);
  });

  it('shares one discovery between concurrent first requests', async () => {
    const server = fixture();
    let open!: () => void;
    server.gate = new Promise((r) => (open = r));
    const model = modelWith(server);
    const provider = new AllTreeProvider(model);
    const a = provider.getChildren();
    const b = model.refresh();
    open();
    await Promise.all([a, b]);
    assert.strictEqual(server.count('discoverTasks'), 1);
  });

  it('nests folders, gives them ids under their category and keeps category ids stable', async () => {
    const provider = new AllTreeProvider(modelWith(fixture()));
    const [shell] = await provider.getChildren();
    assert.ok(shell);
    assert.strictEqual(provider.getTreeItem(shell).id, 'category:shell');
    assert.strictEqual(provider.getTreeItem(shell).contextValue, 'category');
    assert.strictEqual(provider.getTreeItem(shell).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
    const [folder] = await provider.getChildren(shell);
    assert.ok(folder);
    assert.strictEqual(provider.getTreeItem(folder).id, 'category:shell/scripts');
    assert.deepStrictEqual(await labels(provider, folder), ['build.sh', '⚠️ deploy.sh']);
  });

  it('renders a command row as upstream: description, icon, context value, click opens the file at its line', () => {
    const row = commandRow(makeBuild, false);
    assert.strictEqual(row.id, makeBuild.id);
    assert.strictEqual(row.description, 'Root');
    assert.strictEqual(row.contextValue, 'task');
    const icon = row.iconPath as vscode.ThemeIcon;
    assert.strictEqual(icon.id, 'tools');
    assert.strictEqual(colorId(icon.color), 'terminal.ansiYellow');
    assert.strictEqual(row.command?.command, 'vscode.open');
    const [uri, opts] = row.command.arguments as [vscode.Uri, { selection: vscode.Range }];
    assert.strictEqual(uri.fsPath, '/ws/Makefile');
    assert.strictEqual(opts.selection.start.line, 4);
    assert.strictEqual(row.resourceUri, undefined);
  });

  it('dims private commands and marks warned ones through their decoration URIs', () => {
    const priv = commandRow({ ...hidden, tags: ['ci', 'quick'] }, true);
    assert.strictEqual(priv.description, 'Root private [ci, quick]');
    assert.strictEqual(colorId((priv.iconPath as vscode.ThemeIcon).color), 'descriptionForeground');
    assert.strictEqual(priv.contextValue, 'task-quick');
    assert.strictEqual(priv.resourceUri?.scheme, 'commandtree-private');
    const warned = commandRow(deploy, false);
    assert.strictEqual(warned.label, '⚠️ deploy.sh');
    assert.strictEqual(warned.resourceUri?.scheme, 'commandtree-warning');
    const decorations = new RowDecorations();
    assert.strictEqual(colorId(decorations.provideFileDecoration(priv.resourceUri)?.color), 'descriptionForeground');
    assert.strictEqual(decorations.provideFileDecoration(warned.resourceUri)?.tooltip, 'Security warning');
    assert.strictEqual(decorations.provideFileDecoration(vscode.Uri.file('/ws/x')), undefined);
    // Only make and mise demote `_` names.
    assert.strictEqual(commandRow(item({ label: '_x.sh' }), false).resourceUri, undefined);
  });

  it('writes the tooltip in upstream order: warning, summary, type, command, cwd, tags, source', () => {
    const row = commandRow({ ...deploy, summary: 'Deploys the site.', tags: ['ci'] }, false);
    const text = (row.tooltip as vscode.MarkdownString).value;
    const order = ['**deploy.sh**', '⚠️ **Security Warning:** Runs rm -rf', '> Deploys the site.', 'Type: `shell`', 'Command: `./deploy.sh`', 'Working Dir: `/ws/scripts`', 'Tags: `ci`', 'Source: `/ws/scripts/deploy.sh`'];
    let at = -1;
    for (const part of order) {
      const next = text.indexOf(part);
      assert.ok(next > at, `${part} after the previous part in:\n${text}`);
      at = next;
    }
  });

  it('gives markdown rows their own context values', () => {
    assert.strictEqual(commandRow(readme, false).contextValue, 'task-markdown');
    assert.strictEqual(commandRow(readme, true).contextValue, 'task-markdown-quick');
  });

  it('drags command rows as URIs, paths and ids, and ignores other rows', async () => {
    const provider = new AllTreeProvider(modelWith(fixture()));
    const data = new vscode.DataTransfer();
    provider.handleDrag([{ kind: 'command', item: build }, { kind: 'command', item: makeBuild }], data);
    assert.strictEqual(await data.get(SCRIPT_MIME)?.asString(), `${build.id}\n${makeBuild.id}`);
    assert.strictEqual(await data.get('text/plain')?.asString(), '/ws/scripts/build.sh\n/ws/Makefile');
    const empty = new vscode.DataTransfer();
    provider.handleDrag([{ kind: 'placeholder', message: 'x' }], empty);
    assert.strictEqual(empty.get(SCRIPT_MIME), undefined);
  });

  it('re-reads the tree after a tasksChanged notification, with the added command', async () => {
    const server = fixture();
    const model = modelWith(server);
    const provider = new AllTreeProvider(model);
    await provider.getChildren();
    let fired = 0;
    provider.onDidChangeTreeData(() => (fired += 1));
    const added = item({ label: 'new.sh' });
    server.categories = [{ type: 'shell', label: 'Shell Scripts', count: 1, children: [{ kind: 'command', item: added }] }];
    await model.applyChange({ added: [added] });
    assert.ok(fired >= 1);
    assert.deepStrictEqual(await labels(provider), ['Shell Scripts (1)']);
    assert.strictEqual(model.tasks.get(added.id)?.label, 'new.sh');
    server.categories = [];
    await model.applyChange({ removed: [added.id] });
    assert.strictEqual(model.tasks.has(added.id), false);
    assert.strictEqual(server.count('discoverTasks'), 1, 'a watched change never re-runs discovery');
  });

  it('coalesces tree re-reads that arrive while one is running into exactly one more', async () => {
    const server = fixture();
    const model = modelWith(server);
    await model.refresh();
    const before = server.count('tree');
    await Promise.all([model.refreshTree(), model.refreshTree(), model.refreshTree()]);
    assert.strictEqual(server.count('tree') - before, 2);
  });

  it('sends exclude patterns only where the user set them', () => {
    assert.strictEqual(explicitValue<string[]>({}), undefined);
    assert.strictEqual(explicitValue(undefined), undefined);
    assert.deepStrictEqual(explicitValue({ globalValue: ['a'], workspaceValue: ['b'] }), ['b']);
    assert.deepStrictEqual(explicitValue({ globalValue: ['a'], workspaceValue: ['b'], workspaceFolderValue: ['c'] }), ['c']);
  });

  it('sends the sort order and the tag filter to the server', async () => {
    const server = fixture();
    const model = modelWith(server, 'name');
    await model.setFilter('ci');
    assert.deepStrictEqual(server.calls.filter((c) => c.method === 'tree').pop()?.args, ['name', 'ci']);
  });
});

describe('Quick Launch', () => {
  async function quickFixture(ids: string[]): Promise<{ server: FakeServer; provider: QuickTreeProvider; moves: [string, number][] }> {
    const server = fixture();
    server.quickIds = ids;
    const model = modelWith(server);
    await model.refresh();
    const moves: [string, number][] = [];
    const provider = new QuickTreeProvider(model, (id, pos) => {
      moves.push([id, pos]);
      return Promise.resolve();
    });
    return { server, provider, moves };
  }

  it('shows a placeholder when empty', async () => {
    const { provider } = await quickFixture([]);
    const rows = provider.getChildren();
    assert.strictEqual(rows.length, 1);
    const [row] = rows;
    assert.ok(row);
    assert.strictEqual(provider.getTreeItem(row).label, EMPTY_QUICK);
    assert.strictEqual(provider.getTreeItem(row).contextValue, 'placeholder');
  });

  it('lists starred commands in the stored order, skipping ids that no longer exist', async () => {
    const { provider } = await quickFixture([makeBuild.id, 'shell:/gone:gone', build.id]);
    const rows = provider.getChildren().map((r) => provider.getTreeItem(r));
    assert.deepStrictEqual(rows.map((r) => r.label), ['build', 'build.sh']);
    assert.deepStrictEqual(rows.map((r) => r.contextValue), ['task-quick', 'task-quick']);
  });

  it('reorders by drag and drop as upstream (§6)', async () => {
    const { provider, moves } = await quickFixture([build.id, makeBuild.id, deploy.id]);
    const drag = (id: string): vscode.DataTransfer => {
      const d = new vscode.DataTransfer();
      d.set(QUICK_MIME, new vscode.DataTransferItem(id));
      return d;
    };
    await provider.handleDrop({ kind: 'command', item: build }, drag(build.id));
    assert.strictEqual(moves.length, 0, 'dropping onto itself changes nothing');
    await provider.handleDrop({ kind: 'command', item: build }, drag(deploy.id));
    assert.deepStrictEqual(moves.pop(), [deploy.id, 0]);
    await provider.handleDrop(undefined, drag(build.id));
    assert.deepStrictEqual(moves.pop(), [build.id, 2]);
    await provider.handleDrop({ kind: 'command', item: build }, new vscode.DataTransfer());
    await provider.handleDrop({ kind: 'command', item: build }, drag('shell:/not/starred:x'));
    assert.strictEqual(moves.length, 0);
    const out = new vscode.DataTransfer();
    provider.handleDrag([{ kind: 'command', item: makeBuild }, { kind: 'command', item: build }], out);
    assert.strictEqual(await out.get(QUICK_MIME)?.asString(), makeBuild.id);
  });
});

describe('protocol readers', () => {
  const known = new Map([[build.id, build]]);

  it('reads the tree wrapped or bare, with nodes tagged by kind, by nodeType, or given as ids', () => {
    const wrapped = readTree(
      { categories: [{ type: 'shell', label: 'Shell Scripts (1)', children: [{ kind: 'folder', label: 'scripts', children: [{ kind: 'command', item: build }] }] }] },
      known,
    );
    assert.strictEqual(wrapped[0]?.label, 'Shell Scripts');
    assert.strictEqual(wrapped[0].count, 1);
    const bare = readTree([{ type: 'shell', label: 'Shell Scripts', count: 1, children: [{ nodeType: 'command', id: build.id }, build.id, { id: 'unknown' }] }], known);
    assert.deepStrictEqual(bare[0]?.children, [{ kind: 'command', item: build }, { kind: 'command', item: build }]);
    assert.deepStrictEqual(readTree({ nothing: true }, known), []);
  });

  it('reads Quick Launch as ids or items', () => {
    assert.deepStrictEqual(readQuick(['a', 'b']), ['a', 'b']);
    assert.deepStrictEqual(readQuick({ ids: ['a'] }), ['a']);
    assert.deepStrictEqual(readQuick({ commands: [build] }), [build.id]);
  });

  it('reads search hits nested or flat', () => {
    assert.deepStrictEqual(readSearch([{ item: build, score: 0.5 }]), [{ item: build, score: 0.5 }]);
    assert.strictEqual(readSearch({ results: [{ ...build, score: 0.7 }] })[0]?.score, 0.7);
  });

  it('refuses a plan without a command line and drops empty optional fields', () => {
    assert.throws(() => readPlan({ cwd: '/ws' }), /no command line/);
    assert.deepStrictEqual(readPlan({ commandLine: 'make', cwd: '', env: {}, securityWarning: '' }), {
      action: 'terminal',
      commandLine: 'make',
      cwd: undefined,
      env: undefined,
      shell: undefined,
      debugConfiguration: undefined,
      taskName: undefined,
      securityWarning: undefined,
      staleSummary: undefined,
    });
    const task = readPlan({ action: 'task', taskName: 'compile', commandLine: 'tsc', staleSummary: true, shell: 'posix' });
    assert.strictEqual(task.action, 'task');
    assert.strictEqual(task.taskName, 'compile');
    assert.strictEqual(task.staleSummary, true);
    assert.strictEqual(readPlan({ action: 'launch-rockets', commandLine: 'x' }).action, 'terminal');
  });
});
