// Command handler tests. `vscode` is the mock from vscode-mock.ts (it records terminals,
// messages, prompts and debug starts, and plays scripted user answers); the server is FakeServer
// (fakes.ts). File permissions use a real temporary file.

import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { Handlers, itemOf } from '../../src/commands';
import { Model } from '../../src/model';
import { RUN_ANYWAY, Runner } from '../../src/runner';
import { FakeServer, item, modelWith } from './fakes';
import { recorded } from './vscode-mock';

const script = item({
  label: 'build.sh',
  params: [
    { name: 'target', options: ['debug', 'release'], description: 'Build target' },
    { name: 'jobs', default: '4' },
  ],
});
const plain = item({ label: 'test.sh' });
const launch = item({ type: 'launch', label: 'Launch App', command: 'Launch App', filePath: '/ws/.vscode/launch.json' });
const task = item({ type: 'vscode', label: 'compile', command: 'compile', filePath: '/ws/.vscode/tasks.json' });
const doc = item({ type: 'markdown', label: 'README.md', filePath: '/ws/README.md' });

/** Read through a function: an earlier `deepStrictEqual(recorded.terminals, [])` narrows the array type. */
function sentTo(i: number): string[] | undefined {
  const terminals: { sent: string[] }[] = recorded.terminals;
  return terminals[i]?.sent;
}

interface Setup {
  server: FakeServer;
  model: Model;
  handlers: Handlers;
  restarts: number;
}

function setup(withServer = true): Setup {
  recorded.reset();
  const server = new FakeServer();
  server.tasks = [script, plain, launch, task, doc];
  server.plans.set(script.id, { action: 'terminal', commandLine: '/ws/scripts/build.sh "release" "8"', cwd: '/ws/scripts', env: { CI: '1' } });
  server.plans.set(plain.id, { action: 'terminal', commandLine: '/ws/scripts/test.sh', cwd: '/ws/scripts' });
  server.plans.set(launch.id, {
    action: 'debug',
    commandLine: 'node --inspect-brk app.js',
    debugConfiguration: { type: 'node', request: 'launch', name: 'Launch App' },
  });
  server.plans.set(task.id, { action: 'task', taskName: 'compile', commandLine: 'tsc -p .', cwd: '/ws' });
  const model = modelWith(server);
  const state: Setup = { server, model, handlers: undefined as unknown as Handlers, restarts: 0 };
  const current = (): FakeServer | undefined => (withServer ? server : undefined);
  state.handlers = new Handlers({
    model,
    server: current,
    runner: new Runner(current),
    workspaceRoot: '/ws',
    restart: () => {
      state.restarts += 1;
      return Promise.resolve();
    },
  });
  return state;
}

const notCommands: unknown[] = [
  undefined,
  null,
  { data: null },
  { kind: 'folder', id: 'category:shell/scripts', label: 'scripts', children: [] },
  { kind: 'category', id: 'category:make', label: 'Make Targets', type: 'make', count: 1, children: [] },
  { data: { nodeType: 'category', commandType: 'make' } },
];

describe('command handlers', () => {
  it('do nothing for folders, categories, undefined and null', async () => {
    const { handlers, server } = setup();
    for (const arg of notCommands) {
      assert.strictEqual(itemOf(arg), undefined);
      await handlers.run(arg);
      await handlers.runInCurrentTerminal(arg);
      await handlers.debug(arg);
      await handlers.copyRelativePath(arg);
      await handlers.copyFullPath(arg);
      await handlers.makeExecutable(arg);
      await handlers.addTag(arg, 'x');
      await handlers.removeTag(arg, 'x');
      await handlers.addToQuick(arg);
      await handlers.removeFromQuick(arg);
    }
    assert.deepStrictEqual(recorded.terminals, []);
    assert.strictEqual(recorded.clipboard, '');
    assert.deepStrictEqual(server.calls, []);
    assert.deepStrictEqual(recorded.messages, []);
  });

  it('accept a tree row, a raw CommandItem or an upstream {data} node', () => {
    assert.strictEqual(itemOf({ kind: 'command', item: plain }), plain);
    assert.strictEqual(itemOf(plain), plain);
    assert.strictEqual(itemOf({ data: plain }), plain);
  });

  it('run: asks each parameter (options as a quick pick, default pre-filled), plans, and runs in a new terminal', async () => {
    const { handlers, server } = setup();
    recorded.answers = [1, '8'];
    await handlers.run({ kind: 'command', item: script });
    assert.deepStrictEqual(recorded.quickPicks[0]?.items, ['debug', 'release']);
    assert.strictEqual(recorded.quickPicks[0].options.placeHolder, 'Build target');
    assert.strictEqual(recorded.inputBoxes[0]?.value, '4');
    assert.strictEqual(recorded.inputBoxes[0].prompt, 'Enter jobs');
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'plan')?.args, [script.id, 'newTerminal', { target: 'release', jobs: '8' }]);
    assert.strictEqual(recorded.terminals.length, 1);
    const [t] = recorded.terminals;
    assert.ok(t);
    assert.strictEqual(t.name, 'CommandTree: build.sh');
    assert.strictEqual(t.options.cwd, '/ws/scripts');
    assert.deepStrictEqual(t.options.env, { CI: '1' });
    assert.deepStrictEqual(t.sent, ['/ws/scripts/build.sh "release" "8"']);
    assert.ok(t.shown);
  });

  it('run: cancelling a parameter prompt cancels the run before any plan', async () => {
    const { handlers, server } = setup();
    recorded.answers = ['debug', undefined];
    await handlers.run(script);
    assert.strictEqual(server.count('plan'), 0);
    assert.deepStrictEqual(recorded.terminals, []);
  });

  it('run: every run gets a new terminal', async () => {
    const { handlers } = setup();
    await handlers.run(plain);
    await handlers.run(plain);
    assert.strictEqual(recorded.terminals.length, 2);
  });

  it('runInCurrentTerminal: sends the server\'s cd-prefixed line to the active terminal, else opens one', async () => {
    const { handlers, server } = setup();
    await handlers.runInCurrentTerminal(plain);
    assert.strictEqual(recorded.terminals.length, 1);
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'plan')?.args, [plain.id, 'currentTerminal', {}]);
    const existing = vscode.window.createTerminal({ name: 'Existing Test Terminal' }) as unknown as (typeof recorded.terminals)[number];
    recorded.activeTerminal = existing;
    await handlers.runInCurrentTerminal(plain);
    assert.strictEqual(recorded.terminals.length, 2, 'no terminal beyond the existing one');
    assert.deepStrictEqual(existing.sent, ["cd -- '/ws/scripts' && /ws/scripts/test.sh"]);
    assert.strictEqual(existing.name, 'Existing Test Terminal');
    // A multi-line script comes without the cd; the terminal is moved first.
    server.plans.set(plain.id, { action: 'terminal', commandLine: 'echo one\necho two', cwd: '/ws/scripts' });
    await handlers.runInCurrentTerminal(plain);
    assert.deepStrictEqual(existing.sent.slice(1), ['cd "/ws/scripts"', 'echo one\necho two']);
  });

  it('a command with a security warning runs only after confirmation', async () => {
    const { handlers, server } = setup();
    server.plans.set(plain.id, { action: 'terminal', commandLine: 'rm -rf /tmp/x', cwd: '/ws', securityWarning: 'Deletes files' });
    recorded.answers = [undefined];
    await handlers.run(plain);
    assert.deepStrictEqual(recorded.terminals, []);
    assert.match(recorded.messages[0]?.text ?? '', /security warning: Deletes files/);
    assert.deepStrictEqual(recorded.messages[0]?.options.slice(1), [RUN_ANYWAY]);
    recorded.answers = [RUN_ANYWAY];
    await handlers.run(plain);
    assert.deepStrictEqual(sentTo(0), ['rm -rf /tmp/x']);
  });

  it('debug: starts the debug configuration the server planned, in the first folder', async () => {
    const { handlers, server } = setup();
    await handlers.run(launch);
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'plan')?.args, [launch.id, 'debug', {}]);
    assert.deepStrictEqual(recorded.debugStarts[0]?.config, { type: 'node', request: 'launch', name: 'Launch App' });
    assert.deepStrictEqual(recorded.terminals, []);
    recorded.debugResult = false;
    await handlers.debug(launch);
    assert.strictEqual(recorded.messages.pop()?.text, 'Failed to start: Launch App');
  });

  it('debug: a compound starts by name; a command that is not a launch configuration reports the server\'s refusal', async () => {
    const { handlers, server } = setup();
    server.plans.set(launch.id, {
      action: 'debug',
      commandLine: '',
      debugConfiguration: { name: 'Both', compound: true, configurations: ['A', 'B'] },
    });
    await handlers.debug(launch);
    assert.strictEqual(recorded.debugStarts[0]?.config, 'Both');
    await handlers.debug(plain);
    assert.match(recorded.messages.pop()?.text ?? '', /cannot debug test\.sh: only launch configurations/);
    assert.deepStrictEqual(recorded.terminals, []);
  });

  it('markdown opens a preview to the side and never plans or opens a terminal', async () => {
    const { handlers, server } = setup();
    await handlers.run(doc);
    assert.strictEqual(recorded.executed[0]?.command, 'markdown.showPreviewToSide');
    assert.strictEqual(server.count('plan'), 0);
    assert.deepStrictEqual(recorded.terminals, []);
  });

  it('VS Code tasks go through the task system when VS Code knows the task', async () => {
    const { handlers, server } = setup();
    recorded.tasks = [{ name: 'other' }, { name: 'compile' }];
    await handlers.run(task);
    assert.deepStrictEqual(recorded.executedTasks, [{ name: 'compile' }]);
    assert.deepStrictEqual(recorded.terminals, []);
    assert.strictEqual(server.count('plan'), 1, 'planned first, for its security warning');
    recorded.tasks = [];
    await handlers.run(task);
    assert.deepStrictEqual(sentTo(0), ['tsc -p .']);
    // Neither VS Code nor the server can run it: say so rather than type an empty line.
    server.plans.set(task.id, { action: 'task', taskName: 'compile', commandLine: '', cwd: '/ws' });
    await handlers.run(task);
    assert.strictEqual(recorded.terminals.length, 1);
    assert.match(recorded.messages.pop()?.text ?? '', /nothing to run for compile/);
  });

  it('reports a plan the server refuses', async () => {
    const { handlers, server } = setup();
    server.plans.delete(plain.id);
    await handlers.run(plain);
    assert.match(recorded.messages[0]?.text ?? '', /cannot run test\.sh: command not found/);
    assert.deepStrictEqual(recorded.terminals, []);
  });

  it('Quick Launch: star and unstar through the server, then re-read the tree', async () => {
    const { handlers, server, model } = setup();
    await handlers.addToQuick({ kind: 'command', item: plain });
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'star')?.args, [plain.id, true]);
    assert.deepStrictEqual(model.quickIds, [plain.id]);
    await handlers.removeFromQuick(plain);
    assert.deepStrictEqual(model.quickIds, []);
    await handlers.quickMove(plain.id, 2);
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'quickMove')?.args, [plain.id, 2]);
  });

  it('addTag: a second argument skips the UI; otherwise an existing tag is picked or a new one typed', async () => {
    const { handlers, server, model } = setup();
    await model.refresh();
    await handlers.addTag(plain, ' ci ');
    recorded.answers = ['  deploy '];
    await handlers.addTag(plain);
    const tags = server.calls.filter((c) => c.method === 'tag').map((c) => c.args);
    assert.deepStrictEqual(tags, [
      [plain.id, 'ci', true],
      [plain.id, 'deploy', true],
    ]);
    recorded.answers = [''];
    await handlers.addTag(plain);
    assert.strictEqual(server.count('tag'), 2, 'an empty name cancels');
  });

  it('removeTag: says so when there are no tags, else picks one of the command\'s tags', async () => {
    const { handlers, server } = setup();
    await handlers.removeTag(plain);
    assert.strictEqual(recorded.messages[0]?.text, 'This command has no tags');
    recorded.answers = [1];
    await handlers.removeTag({ ...plain, tags: ['ci', 'quick'] });
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'tag')?.args, [plain.id, 'quick', false]);
  });

  it('filterByTag: offers the tags, sets the filter and the context key; clearFilter clears both', async () => {
    const { handlers, server, model } = setup();
    await handlers.filterByTag();
    assert.strictEqual(recorded.messages[0]?.text, 'No tags defined. Right-click commands to add tags.');
    server.tasks = [{ ...plain, tags: ['ci'] }, { ...script, tags: ['build', 'ci'] }];
    await model.refresh();
    recorded.answers = [2];
    await handlers.filterByTag();
    assert.deepStrictEqual(recorded.quickPicks[0]?.items, ['$(close) Clear tag filter', '$(tag) build', '$(tag) ci']);
    assert.strictEqual(model.filterTag, 'ci');
    assert.deepStrictEqual(recorded.executed.pop()?.args, ['commandtree.hasFilter', true]);
    assert.deepStrictEqual(server.calls.filter((c) => c.method === 'tree').pop()?.args, ['folder', 'ci']);
    await handlers.clearFilter();
    assert.strictEqual(model.filterTag, undefined);
    assert.deepStrictEqual(recorded.executed.pop()?.args, ['commandtree.hasFilter', false]);
  });

  it('copies the relative and the full path', async () => {
    const { handlers } = setup();
    await handlers.copyRelativePath(plain);
    assert.strictEqual(recorded.clipboard, path.join('scripts', 'test.sh'));
    await handlers.copyFullPath(plain);
    assert.strictEqual(recorded.clipboard, '/ws/scripts/test.sh');
  });

  it('makeExecutable adds exactly the execute bits to a real file', async function () {
    if (process.platform === 'win32') {
      // Execute bits do not exist there; under CI every test must run, so a CI on Windows
      // fails here rather than passing a test that did nothing.
      assert.ok(
        ['', 'false', '0'].includes(process.env.CI ?? ''),
        'execute bits cannot be checked on Windows, and CI runs every test',
      );
      this.skip();
    }
    const { handlers } = setup();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-exec-'));
    const file = path.join(dir, 'run.sh');
    fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o640 });
    fs.chmodSync(file, 0o640);
    await handlers.makeExecutable({ ...plain, filePath: file });
    assert.strictEqual(fs.statSync(file).mode & 0o777, 0o751);
    assert.strictEqual(recorded.messages[0]?.text, 'CommandTree: Made run.sh executable');
    await handlers.makeExecutable({ ...plain, filePath: path.join(dir, 'missing.sh') });
    assert.match(recorded.messages[1]?.text ?? '', /^CommandTree: ENOENT/);
    fs.rmSync(dir, { recursive: true });
  });

  it('semanticSearch shows scores as percentages and runs the chosen command', async () => {
    const { handlers, server } = setup();
    server.hits = [
      { item: plain, score: 0.8125 },
      { item: script, score: 0.4 },
    ];
    recorded.answers = ['run the tests', 0, '$(play) Run'];
    const chosen = await handlers.semanticSearch();
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'search')?.args, ['run the tests', 20]);
    const shown = recorded.quickPicks[0]?.items as { label: string; description: string }[];
    assert.deepStrictEqual(shown.map((s) => s.description), ['81%  scripts', '40%  scripts']);
    assert.strictEqual(chosen?.id, plain.id);
    assert.deepStrictEqual(sentTo(0), ['/ws/scripts/test.sh']);
  });

  it('generateSummaries passes a cancellation token and refreshes afterwards', async () => {
    const { handlers, server } = setup();
    await handlers.generateSummaries();
    const call = server.calls.find((c) => c.method === 'summarize');
    assert.deepStrictEqual(call?.args.slice(0, 2), [undefined, false]);
    assert.strictEqual(typeof (call.args[2] as vscode.CancellationToken).isCancellationRequested, 'boolean');
    assert.strictEqual(server.count('discoverTasks'), 1);
    await handlers.generateSummaries(plain);
    assert.deepStrictEqual(server.calls.filter((c) => c.method === 'summarize').pop()?.args.slice(0, 2), [[plain.id], true]);
  });

  it('without a server: refresh starts it again, other actions say it is not running', async () => {
    const state = setup(false);
    await state.handlers.refresh();
    assert.strictEqual(state.restarts, 1);
    await state.handlers.addToQuick(plain);
    await state.handlers.run(plain);
    assert.deepStrictEqual(
      recorded.messages.map((m) => m.text),
      ['CommandTree: the ct server is not running.', 'CommandTree: the ct server is not running.'],
    );
  });

  it('lists a handler for every command the package contributes', () => {
    const { handlers } = setup();
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { commands: { command: string }[] };
    };
    const contributed = pkg.contributes.commands.map((c) => c.command).sort();
    assert.deepStrictEqual(handlers.table().map(([id]) => id).sort(), contributed);
  });
});
