// The extension's requests against a real `ct lsp` (no mocks): RpcServer and the protocol readers
// on the server's actual answers. Needs CT_BIN, the path of a built `ct`; `npm run test:server`
// fails without it (test/e2e.sh runs it with the binary it bundles).

import * as assert from 'assert';
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { MessageConnection, StreamMessageReader, StreamMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import { CommandItem, readTasksChanged, TasksChanged } from '../../src/protocol';
import { Rpc, RpcServer } from '../../src/server';

const ct = process.env.CT_BIN;
const fixture = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'workspace');

describe('RpcServer against ct lsp', function () {
  this.timeout(60000);
  let proc: ChildProcess;
  let conn: MessageConnection;
  let root: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let server: RpcServer;
  const changes: TasksChanged[] = [];

  before(async () => {
    assert.ok(ct, 'set CT_BIN to the ct binary to test against');
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ct-proto-')));
    fs.cpSync(fixture, root, { recursive: true });
    fs.mkdirSync(path.join(root, '.vscode'));
    fs.writeFileSync(
      path.join(root, '.vscode', 'launch.json'),
      JSON.stringify({ version: '0.2.0', configurations: [{ type: 'node', request: 'launch', name: 'Run app', program: '${workspaceFolder}/app.js' }] }),
    );
    // A HOME of its own: `ct trust` below writes its record there, never into the real one.
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ct-proto-home-')));
    env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'XDG_CONFIG_HOME')), HOME: home };
    proc = spawn(ct, ['--root', root, 'lsp'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'], env });
    if (!proc.stdout || !proc.stdin) {
      throw new Error('no pipes to ct lsp');
    }
    conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    conn.onNotification('commandtree/tasksChanged', (p: unknown) => changes.push(readTasksChanged(p)));
    conn.listen();
    const init = await conn.sendRequest<{ capabilities: { experimental?: { commandtree?: { tasksChangedDelta?: boolean } } } }>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: { experimental: { commandtree: { tasksChangedDelta: true } } },
      initializationOptions: { workspaceRoot: root, trusted: true },
    });
    assert.strictEqual(init.capabilities.experimental?.commandtree?.tasksChangedDelta, true);
    await conn.sendNotification('initialized', {});
    const rpc: Rpc = {
      sendRequest: <R>(method: string, params: unknown) => conn.sendRequest<R>(method, params),
      withProgress: (run) => run('tok'),
    };
    server = new RpcServer(rpc, root);
  });

  after(async () => {
    await conn.sendRequest('shutdown').catch(() => undefined);
    await conn.sendNotification('exit').catch(() => undefined);
    conn.dispose();
    proc.kill();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  const byLabel = (tasks: CommandItem[], label: string): CommandItem => {
    const found = tasks.find((t) => t.label === label);
    assert.ok(found, `no command labelled ${label} in ${tasks.map((t) => t.label).join(', ')}`);
    return found;
  };

  it('discovers the fixture and reads the tree as the views show it', async () => {
    const { tasks } = await server.discoverTasks(undefined);
    assert.deepStrictEqual(tasks.map((t) => t.label).sort(), ['Run app', '_cleanup', 'all', 'build', 'hello.sh', 'lint', 'test'].sort());
    const known = new Map(tasks.map((t) => [t.id, t]));
    const tree = await server.tree('folder', undefined, known);
    assert.deepStrictEqual(
      tree.map((c) => [c.type, c.label, c.count]),
      // The repository's own runners come first: its Makefile (a dedicated runner), then its
      // package.json scripts.
      [
        ['make', 'Make Targets', 3],
        ['npm', 'NPM Scripts', 2],
        ['shell', 'Shell Scripts', 1],
        ['launch', 'VS Code Launch', 1],
      ],
    );
    const make = tree[0]?.children.map((n) => (n.kind === 'command' ? n.item.label : `folder ${n.label}`));
    assert.deepStrictEqual(make, ['all', 'test', '_cleanup']);
  });

  it('stars, reorders Quick Launch and tags, as later reads show', async () => {
    const { tasks } = await server.discoverTasks(undefined);
    const build = byLabel(tasks, 'build');
    const lint = byLabel(tasks, 'lint');
    await server.star(build.id, true);
    await server.star(lint.id, true);
    assert.deepStrictEqual(await server.quick(), [build.id, lint.id]);
    await server.quickMove(lint.id, 0);
    assert.deepStrictEqual(await server.quick(), [lint.id, build.id]);
    await server.tag(build.id, 'ci', true);
    const again = await server.discoverTasks(undefined);
    assert.ok(byLabel(again.tasks, 'build').tags.includes('ci'));
    const filtered = await server.tree('name', 'ci', new Map());
    assert.deepStrictEqual(filtered.map((c) => c.count), [1]);
    assert.strictEqual((await server.show(build.id))?.id, build.id);
  });

  it('plans each mode as the runner expects', async () => {
    const { tasks } = await server.discoverTasks(undefined);
    const hello = byLabel(tasks, 'hello.sh');
    const fresh = await server.plan(hello.id, 'newTerminal', undefined);
    assert.strictEqual(fresh.action, 'terminal');
    assert.match(fresh.commandLine, /hello\.sh/);
    assert.strictEqual(fresh.cwd, path.join(root, 'scripts'));
    const current = await server.plan(hello.id, 'currentTerminal', {});
    assert.match(current.commandLine, /^cd /);
    const debug = await server.plan(byLabel(tasks, 'Run app').id, 'debug', undefined);
    assert.strictEqual(debug.action, 'debug');
    assert.strictEqual(debug.debugConfiguration?.type, 'node');
    await assert.rejects(server.plan(hello.id, 'debug', undefined));
  });

  it('lists command skills and applies a reviewed proposal only onto the text it was made from', async () => {
    fs.mkdirSync(path.join(root, '.commandtree', 'skills'), { recursive: true });
    fs.writeFileSync(
      path.join(root, '.commandtree', 'skills', 'clean-up.md'),
      '---\nname: Clean Up Script\nicon: sparkle\n---\n\n- Remove superfluous comments\n',
    );
    assert.deepStrictEqual(await server.commandSkills(), [{ id: 'clean-up', name: 'Clean Up Script', icon: 'sparkle' }]);
    // Command skills come from the workspace: applying one needs `ct trust` as it is now.
    execFileSync(ct as string, ['--root', root, 'trust'], { cwd: root, env, stdio: 'ignore' });
    const { tasks } = await server.discoverTasks(undefined);
    const hello = byLabel(tasks, 'hello.sh');
    const original = fs.readFileSync(hello.filePath, 'utf8');
    const proposed = `${original}# cleaned\n`;
    await assert.rejects(server.applySkill('clean-up', hello.id, 'not what is on disk\n', proposed), /changed meanwhile/);
    assert.strictEqual(fs.readFileSync(hello.filePath, 'utf8'), original);
    await server.applySkill('clean-up', hello.id, original, proposed);
    assert.strictEqual(fs.readFileSync(hello.filePath, 'utf8'), proposed);
  });

  it('sends tasksChanged after a file is added', async () => {
    await server.watchFiles();
    fs.writeFileSync(path.join(root, 'scripts', 'late.sh'), '#!/bin/sh\necho late\n', { mode: 0o755 });
    for (let i = 0; i < 200 && !changes.some((c) => c.added?.some((t) => t.label === 'late.sh')); i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(
      changes.some((c) => c.added?.some((t) => t.label === 'late.sh')),
      `no delta adding late.sh in ${JSON.stringify(changes)}`,
    );
  });
});
