// Server lookup and request shapes. Real files in a temporary folder stand for the binaries; the
// JSON-RPC side is a recording stub because no `ct lsp` runs in unit tests (test/e2e.sh runs one).

import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { bundledPath, checkServer, locateServer } from '../../src/locate';
import { Rpc, RpcServer } from '../../src/server';
import { CancellationTokenSource } from './vscode-mock';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ct-locate-'));
}

function exe(file: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\n');
  fs.chmodSync(file, mode);
  return file;
}

describe('locateServer', () => {
  const base = { platform: 'linux' as NodeJS.Platform, arch: 'x64' };

  it('prefers the user setting, then the bundled binary, then PATH', () => {
    const dir = tempDir();
    const ext = path.join(dir, 'ext');
    const onPath = exe(path.join(dir, 'path-bin', 'ct'));
    const pathEnv = [path.join(dir, 'empty'), path.join(dir, 'path-bin')].join(path.delimiter);
    assert.deepStrictEqual(locateServer({ ...base, serverPath: '', extensionPath: ext, pathEnv }), { path: onPath, source: 'path' });
    const bundled = exe(bundledPath(ext, 'linux', 'x64'));
    assert.strictEqual(bundled, path.join(ext, 'bin', 'linux-x64', 'ct'));
    assert.deepStrictEqual(locateServer({ ...base, serverPath: undefined, extensionPath: ext, pathEnv }), { path: bundled, source: 'bundled' });
    const mine = exe(path.join(dir, 'mine', 'ct'));
    assert.deepStrictEqual(locateServer({ ...base, serverPath: mine, extensionPath: ext, pathEnv }), { path: mine, source: 'setting' });
    fs.rmSync(dir, { recursive: true });
  });

  it('skips files that are not executable and explains when nothing is found', () => {
    const dir = tempDir();
    exe(path.join(dir, 'noexec', 'ct'), 0o644);
    const found = locateServer({ ...base, serverPath: '', extensionPath: dir, pathEnv: path.join(dir, 'noexec') });
    assert.ok('error' in found);
    assert.match(found.error, /not bundled for linux-x64 and not on PATH/);
    const bad = locateServer({ ...base, serverPath: path.join(dir, 'noexec', 'ct'), extensionPath: dir, pathEnv: '' });
    assert.ok('error' in bad && /not an executable file/.test(bad.error));
    fs.rmSync(dir, { recursive: true });
  });
});

describe('checkServer', () => {
  it('accepts a ct whose `lsp --help` works and explains anything else', async () => {
    const dir = tempDir();
    const good = path.join(dir, 'good');
    fs.writeFileSync(good, '#!/bin/sh\necho "Usage: ct lsp [OPTIONS]"\n', { mode: 0o755 });
    const old = path.join(dir, 'old');
    fs.writeFileSync(old, "#!/bin/sh\necho \"error: unrecognized subcommand 'lsp'\" >&2\nexit 2\n", { mode: 0o755 });
    assert.strictEqual(await checkServer(good), undefined);
    assert.match((await checkServer(old)) ?? '', /is not a ct with an editor server \(`ct lsp --help` failed: error: unrecognized subcommand 'lsp'\)/);
    assert.match((await checkServer(path.join(dir, 'missing'))) ?? '', /failed/);
    fs.rmSync(dir, { recursive: true });
  });
});

describe('RpcServer requests', () => {
  function recording(answers: Record<string, unknown>): { rpc: Rpc; sent: { method: string; params: unknown; token: unknown }[] } {
    const sent: { method: string; params: unknown; token: unknown }[] = [];
    const rpc: Rpc = {
      sendRequest: <R>(method: string, params: unknown, token?: unknown) => {
        sent.push({ method, params, token });
        return Promise.resolve(answers[method] as R);
      },
      withProgress: (run, onProgress) => {
        onProgress({ message: 'half', percentage: 50 });
        return run('tok-1');
      },
    };
    return { rpc, sent };
  }

  it('sends the issue\'s request shapes and reads the answers', async () => {
    const task = { id: 'npm:/ws/package.json:build', label: 'build', type: 'npm', category: 'Root', command: 'npm run build', filePath: '/ws/package.json', tags: [] };
    const { rpc, sent } = recording({
      'commandtree/discoverTasks': { tasks: [task], warnings: [{ file: '/ws/bad.json', line: 3, message: 'bad' }] },
      'commandtree/quick': { ids: [task.id], commands: [task] },
      'commandtree/plan': { id: task.id, action: 'terminal', commandLine: 'npm run build', cwd: '/ws', env: {} },
      'commandtree/search': { results: [{ command: task, score: 0.9 }] },
      'commandtree/show': { command: task, steps: [] },
    });
    const server = new RpcServer(rpc, '/ws');
    const found = await server.discoverTasks(['**/out/**']);
    assert.strictEqual(found.tasks[0]?.id, task.id);
    assert.deepStrictEqual(found.warnings, [{ file: '/ws/bad.json', line: 3, message: 'bad' }]);
    assert.deepStrictEqual(await server.quick(), [task.id]);
    await server.tag(task.id, 'ci', true);
    await server.star(task.id, false);
    await server.quickMove(task.id, 1);
    assert.strictEqual((await server.plan(task.id, 'newTerminal', {})).commandLine, 'npm run build');
    await server.plan(task.id, 'currentTerminal', { a: '1' });
    assert.strictEqual((await server.search('build it', 5))[0]?.score, 0.9);
    assert.strictEqual((await server.show(task.id))?.label, 'build');
    const source = new CancellationTokenSource();
    const progress: unknown[] = [];
    await server.summarize(undefined, true, source.token, (p) => progress.push(p));
    assert.deepStrictEqual(
      sent.map((s) => [s.method, s.params]),
      [
        ['commandtree/discoverTasks', { workspaceRoot: '/ws', excludePatterns: ['**/out/**'] }],
        ['commandtree/quick', {}],
        ['commandtree/tag', { id: task.id, tag: 'ci', add: true }],
        ['commandtree/star', { id: task.id, starred: false }],
        ['commandtree/quickMove', { id: task.id, position: 1 }],
        ['commandtree/plan', { id: task.id, mode: 'newTerminal' }],
        ['commandtree/plan', { id: task.id, mode: 'currentTerminal', params: { a: '1' } }],
        ['commandtree/search', { query: 'build it', limit: 5 }],
        ['commandtree/show', { id: task.id }],
        ['commandtree/summarize', { force: true, workDoneToken: 'tok-1' }],
      ],
    );
    assert.strictEqual(sent.pop()?.token, source.token, 'the cancellation token reaches the request');
    assert.deepStrictEqual(progress, [{ message: 'half', percentage: 50 }]);
  });
});
