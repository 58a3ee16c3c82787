// Multi-root workspaces: one server per workspace folder. `vscode` is the mock from
// vscode-mock.ts and each folder's server is a FakeServer (fakes.ts): neither VS Code nor
// `ct lsp` can run inside a unit test. The real server's one-folder protocol is checked by
// test/e2e.sh and crates/ct/tests/it/lsp.rs.

import * as assert from 'assert';
import * as vscode from 'vscode';
import { Handlers } from '../../src/commands';
import { Folders } from '../../src/folders';
import { chatHandler } from '../../src/participant';
import { ModelChoice } from '../../src/lm';
import { AllTreeProvider, Element, QUICK_MIME, QuickTreeProvider } from '../../src/tree';
import { FakeFolder, FakeServer, item } from './fakes';
import { Uri as MockUri, recorded, workspace as mockWorkspace } from './vscode-mock';

const apiBuild = item({ label: 'build.sh', filePath: '/a/scripts/build.sh', cwd: '/a/scripts' });
const apiTest = item({ label: 'test.sh', filePath: '/a/scripts/test.sh', cwd: '/a/scripts' });
const webMake = item({ type: 'make', label: 'serve', filePath: '/b/Makefile', category: 'Root', cwd: '/b' });
const webDeploy = item({ label: 'deploy.sh', filePath: '/b/deploy.sh', cwd: '/b' });

function apiServer(): FakeServer {
  const s = new FakeServer();
  s.tasks = [apiBuild, apiTest];
  s.categories = [
    {
      type: 'shell',
      label: 'Shell Scripts',
      count: 2,
      children: [{ kind: 'folder', label: 'scripts', children: [{ kind: 'command', item: apiBuild }, { kind: 'command', item: apiTest }] }],
    },
  ];
  s.quickIds = [apiTest.id, apiBuild.id];
  s.plans.set(apiBuild.id, { action: 'terminal', commandLine: '/a/scripts/build.sh', cwd: '/a/scripts' });
  return s;
}

function webServer(): FakeServer {
  const s = new FakeServer();
  s.tasks = [webMake, webDeploy];
  s.categories = [
    { type: 'shell', label: 'Shell Scripts', count: 1, children: [{ kind: 'command', item: webDeploy }] },
    { type: 'make', label: 'Make Targets', count: 1, children: [{ kind: 'command', item: webMake }] },
  ];
  s.quickIds = [webMake.id];
  s.plans.set(webMake.id, { action: 'terminal', commandLine: 'make serve', cwd: '/b' });
  return s;
}

interface Two {
  api: FakeFolder;
  web: FakeFolder;
  folders: Folders;
  handlers: Handlers;
}

function two(): Two {
  recorded.reset();
  mockWorkspace.workspaceFolders = [
    { uri: MockUri.file('/a'), name: 'api', index: 0 },
    { uri: MockUri.file('/b'), name: 'web', index: 1 },
  ];
  const api = new FakeFolder('api', '/a', apiServer());
  const web = new FakeFolder('web', '/b', webServer());
  const folders = Folders.of(api, web);
  return { api, web, folders, handlers: new Handlers({ folders }) };
}

async function labels(provider: AllTreeProvider, parent?: Element): Promise<string[]> {
  return (await provider.getChildren(parent)).map((c) => provider.getTreeItem(c).label as string);
}

describe('multi-root: the All tree', () => {
  it('with one folder has no folder level and the ids a single-folder window always had', async () => {
    recorded.reset();
    const api = new FakeFolder('api', '/a', apiServer());
    const provider = new AllTreeProvider(Folders.of(api));
    const top = await provider.getChildren();
    assert.deepStrictEqual(top.map((e) => provider.getTreeItem(e).label), ['Shell Scripts (2)']);
    const [shell] = top;
    assert.ok(shell);
    assert.strictEqual(provider.getTreeItem(shell).id, 'category:shell');
    const [scripts] = await provider.getChildren(shell);
    assert.ok(scripts);
    assert.strictEqual(provider.getTreeItem(scripts).id, 'category:shell/scripts');
    const rows = await provider.getChildren(scripts);
    assert.deepStrictEqual(rows.map((r) => provider.getTreeItem(r).id), [apiBuild.id, apiTest.id]);
  });

  it('with two folders shows one node per folder, by name, its categories beneath with unique ids', async () => {
    const { api, web, folders } = two();
    const provider = new AllTreeProvider(folders);
    const roots = await provider.getChildren();
    assert.deepStrictEqual(roots.map((r) => provider.getTreeItem(r).label), ['api', 'web']);
    const [apiRoot, webRoot] = roots;
    assert.ok(apiRoot && webRoot);
    assert.strictEqual(provider.getTreeItem(webRoot).collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
    assert.strictEqual(provider.getTreeItem(webRoot).contextValue, 'workspaceFolder');
    // Both folders were discovered for the first paint, each by its own server.
    assert.strictEqual(api.fake.count('discoverTasks'), 1);
    assert.strictEqual(web.fake.count('discoverTasks'), 1);
    assert.deepStrictEqual(await labels(provider, apiRoot), ['Shell Scripts (2)']);
    assert.deepStrictEqual(await labels(provider, webRoot), ['Shell Scripts (1)', 'Make Targets (1)']);
    const [apiShell] = await provider.getChildren(apiRoot);
    const [webShell, webMakeCat] = await provider.getChildren(webRoot);
    assert.ok(apiShell && webShell && webMakeCat);
    assert.notStrictEqual(provider.getTreeItem(apiShell).id, provider.getTreeItem(webShell).id);
    assert.strictEqual(provider.getTreeItem(webShell).id, 'root:/b/category:shell');
    const [serve] = await provider.getChildren(webMakeCat);
    assert.ok(serve);
    assert.deepStrictEqual(serve, { kind: 'command', item: webMake, root: '/b' });
    const row = provider.getTreeItem(serve);
    assert.strictEqual(row.id, `/b|${webMake.id}`);
    assert.strictEqual(row.contextValue, 'task-quick', 'starred in its own folder');
  });

  it("shows a folder's status on its node and names it in the views' message", async () => {
    const { web, folders } = two();
    const provider = new AllTreeProvider(folders);
    web.model.setStatus('Discovery failed: boom');
    const [apiRoot, webRoot] = await provider.getChildren();
    assert.ok(apiRoot && webRoot);
    assert.strictEqual(provider.getTreeItem(webRoot).description, 'Discovery failed: boom');
    assert.strictEqual(provider.getTreeItem(apiRoot).description, undefined);
    assert.strictEqual(folders.status(), 'web: Discovery failed: boom');
  });
});

describe('multi-root: Quick Launch', () => {
  it("merges every folder's starred commands in folder order, named by folder", async () => {
    const { folders, api, web } = two();
    await Promise.all([api.model.refresh(), web.model.refresh()]);
    const provider = new QuickTreeProvider(folders, () => Promise.resolve());
    const rows = provider.getChildren().map((e) => provider.getTreeItem(e));
    assert.deepStrictEqual(rows.map((r) => r.label), ['test.sh', 'build.sh', 'serve']);
    assert.deepStrictEqual(rows.map((r) => r.description), ['api · scripts', 'api · scripts', 'web · Root']);
    assert.deepStrictEqual(rows.map((r) => r.id), [`/a|${apiTest.id}`, `/a|${apiBuild.id}`, `/b|${webMake.id}`]);
  });

  it('with one folder keeps the rows as they were (no folder name)', async () => {
    recorded.reset();
    const api = new FakeFolder('api', '/a', apiServer());
    await api.model.refresh();
    const provider = new QuickTreeProvider(Folders.of(api), () => Promise.resolve());
    const rows = provider.getChildren().map((e) => provider.getTreeItem(e));
    assert.deepStrictEqual(rows.map((r) => r.description), ['scripts', 'scripts']);
    assert.deepStrictEqual(rows.map((r) => r.id), [apiTest.id, apiBuild.id]);
  });

  it("reorders within the dragged command's folder and ignores a drop on another folder's row", async () => {
    const { folders, api, web } = two();
    await Promise.all([api.model.refresh(), web.model.refresh()]);
    const moves: [string, number, string][] = [];
    const provider = new QuickTreeProvider(folders, (id, pos, root) => {
      moves.push([id, pos, root]);
      return Promise.resolve();
    });
    const [first, second, third] = provider.getChildren();
    assert.ok(first && second && third);
    const data = new vscode.DataTransfer();
    provider.handleDrag([second], data);
    await provider.handleDrop(third, data);
    assert.deepStrictEqual(moves, [], 'a command cannot move into another folder');
    await provider.handleDrop(first, data);
    assert.deepStrictEqual(moves, [[apiBuild.id, 0, '/a']]);
    const tail = new vscode.DataTransfer();
    tail.set(QUICK_MIME, new vscode.DataTransferItem(`/a\n${apiTest.id}`));
    await provider.handleDrop(undefined, tail);
    assert.deepStrictEqual(moves[moves.length - 1], [apiTest.id, 1, '/a'], 'empty space: the end of its own folder');
  });

  it("sends a reorder to the dragged command's folder's server", async () => {
    const { handlers, api, web } = two();
    await handlers.quickMove(webMake.id, 0, '/b');
    assert.deepStrictEqual(web.fake.calls.find((c) => c.method === 'quickMove')?.args, [webMake.id, 0]);
    assert.strictEqual(api.fake.count('quickMove'), 0);
  });
});

describe('multi-root: actions go to the right server', () => {
  it("runs, stars and tags a command through its own folder's server", async () => {
    const { handlers, api, web, folders } = two();
    await Promise.all([api.model.refresh(), web.model.refresh()]);
    const provider = new AllTreeProvider(folders);
    const [, webRoot] = await provider.getChildren();
    assert.ok(webRoot);
    const [, makeCat] = await provider.getChildren(webRoot);
    assert.ok(makeCat);
    const [serveRow] = await provider.getChildren(makeCat);
    await handlers.run(serveRow);
    assert.deepStrictEqual(web.fake.calls.find((c) => c.method === 'plan')?.args, [webMake.id, 'newTerminal', {}]);
    assert.strictEqual(api.fake.count('plan'), 0);
    assert.deepStrictEqual(recorded.terminals[0]?.sent, ['make serve']);

    await handlers.addToQuick(webDeploy);
    await handlers.addTag(apiBuild, 'ci');
    assert.deepStrictEqual(web.fake.calls.find((c) => c.method === 'star')?.args, [webDeploy.id, true]);
    assert.deepStrictEqual(api.fake.calls.find((c) => c.method === 'tag')?.args, [apiBuild.id, 'ci', true]);
    assert.strictEqual(api.fake.count('star'), 0);
    assert.strictEqual(web.fake.count('tag'), 0);

    await handlers.copyRelativePath(webDeploy);
    assert.strictEqual(recorded.clipboard, 'deploy.sh', "relative to the command's own folder");
  });

  it('starts a launch configuration in its own workspace folder', async () => {
    const { handlers, web } = two();
    const launch = item({ type: 'launch', label: 'Web', command: 'Web', filePath: '/b/.vscode/launch.json' });
    web.fake.tasks.push(launch);
    web.fake.plans.set(launch.id, { action: 'debug', commandLine: '', debugConfiguration: { type: 'node', request: 'launch', name: 'Web' } });
    await web.model.refresh();
    await handlers.debug(launch);
    const folder = recorded.debugStarts[0]?.folder as { name: string } | undefined;
    assert.strictEqual(folder?.name, 'web');
  });

  it('asks for the folder of a palette action when there are several, and does nothing when cancelled', async () => {
    const { handlers, api, web } = two();
    web.fake.playbookList = [{ name: 'notes', file: '/b/.commandtree/playbooks/notes.playbook.md', steps: [], inputs: [] }];
    recorded.answers = [1, 0];
    await handlers.runPlaybook();
    assert.strictEqual(recorded.folderPicks.length, 1);
    assert.strictEqual(web.fake.count('runPlaybook'), 1);
    assert.strictEqual(api.fake.count('playbooks'), 0);

    recorded.answers = [undefined];
    await handlers.runSkill('@task --prompt "x"');
    await handlers.semanticSearch('build');
    assert.strictEqual(api.fake.count('runSkill') + web.fake.count('runSkill'), 0);
    assert.strictEqual(recorded.folderPicks.length, 3);
    assert.deepStrictEqual(recorded.messages.filter((m) => m.level === 'error'), []);
  });

  it("sends the @agent participant's /skill to the server it is given", async () => {
    const { api, web, folders } = two();
    recorded.activeEditor = MockUri.file('/b/src/app.ts');
    assert.strictEqual(folders.active(), web);
    const asked: boolean[] = [];
    const handler = chatHandler({
      server: (run) => {
        asked.push(run);
        return folders.active()?.server();
      },
      models: new ModelChoice(),
      modelOptions: () => undefined,
    }) as unknown as (r: unknown, c: unknown, s: unknown, t: unknown) => Promise<unknown>;
    const stream = { markdown: () => undefined, progress: () => undefined };
    const token = new vscode.CancellationTokenSource().token;
    await handler({ command: 'skill', prompt: '@task --prompt "hi"', model: undefined }, { history: [] }, stream, token);
    assert.deepStrictEqual(asked, [true]);
    assert.strictEqual(web.fake.count('runSkill'), 1);
    assert.strictEqual(api.fake.count('runSkill'), 0);
  });
});

describe('multi-root: folders come and go', () => {
  it('stops the server of a removed folder and drops it from the views', async () => {
    const { api, web, folders, handlers } = two();
    const provider = new AllTreeProvider(folders);
    let changes = 0;
    provider.onDidChangeTreeData(() => {
      changes += 1;
    });
    const [, webRoot] = await provider.getChildren();
    assert.ok(webRoot);
    const [, makeCat] = await provider.getChildren(webRoot);
    assert.ok(makeCat);
    const [serveRow] = await provider.getChildren(makeCat);
    const before = changes;
    await folders.sync([{ uri: vscode.Uri.file('/a'), name: 'api' }], () => {
      throw new Error('nothing is added');
    });
    assert.strictEqual(web.fake.count('stop'), 1);
    assert.strictEqual(api.fake.count('stop'), 0);
    assert.strictEqual(web.server(), undefined);
    assert.ok(changes > before, 'the views were told');
    assert.deepStrictEqual(await labels(provider), ['Shell Scripts (2)'], 'one folder left: no folder level');
    // A row of the removed folder, still on screen, reaches no server.
    await handlers.run(serveRow);
    assert.strictEqual(web.fake.count('plan'), 0);
    assert.strictEqual(api.fake.count('plan'), 0);
    assert.strictEqual(web.fake.count('discoverTasks'), 1);
  });

  it('adds a new folder in the explorer order and keeps the existing ones running', async () => {
    recorded.reset();
    const api = new FakeFolder('api', '/a', apiServer());
    const folders = Folders.of(api);
    const web = new FakeFolder('web', '/b', webServer());
    const added = await folders.sync(
      [
        { uri: vscode.Uri.file('/b'), name: 'web' },
        { uri: vscode.Uri.file('/a'), name: 'api' },
      ],
      () => web,
    );
    assert.deepStrictEqual(added, [web]);
    assert.deepStrictEqual(folders.all().map((f) => f.name), ['web', 'api']);
    assert.strictEqual(api.fake.count('stop'), 0);
  });
});
