// Runs after the start: the running state on the rows (this window's runs through shell
// integration, tasks and the debugger, and the server's runs from elsewhere), Stop and Restart,
// the problems of a run as diagnostics, and the dependency view. `vscode` is the mock (its
// terminals have shell integration whose lines the tests print into and end); the server is
// FakeServer, whose problem parsing is the real server's business (crates/ct/tests/it/lsp.rs).

import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { Handlers, dependencyPicks, folderOf } from '../../src/commands';
import { Model } from '../../src/model';
import { RunDiagnostics, diagnosticOf } from '../../src/problems';
import { readDeps, readProblems, readRunning } from '../../src/protocol';
import type { Deps, Problem, Run } from '../../src/protocol.generated';
import { RUN_ANYWAY, Runner } from '../../src/runner';
import { RunTracker, formatDuration } from '../../src/runs';
import { commandRow } from '../../src/tree';
import { FakeServer, item, modelWith } from './fakes';
import { FakeDiagnosticCollection, fire, recorded } from './vscode-mock';

const build = item({ label: 'build.sh', params: [{ name: 'target', options: ['debug', 'release'] }] });
const serve = item({ type: 'make', label: 'serve', filePath: '/ws/Makefile', command: 'make serve' });
const task = item({ type: 'vscode', label: 'compile', command: 'compile', filePath: '/ws/.vscode/tasks.json' });
const launch = item({ type: 'launch', label: 'Launch App', command: 'Launch App', filePath: '/ws/.vscode/launch.json' });

const rustError: Problem = {
  file: 'src/main.rs',
  path: '/ws/src/main.rs',
  line: 3,
  column: 5,
  severity: 'error',
  message: 'mismatched types',
  code: 'E0308',
  source: 'rustc',
  outputLine: 2,
};

function run(over: Partial<Run> & { runId: number; commandId: string }): Run {
  return {
    label: 'serve',
    commandLine: 'make serve',
    cwd: '/ws',
    startedAt: new Date(Date.now() - 65_000).toISOString(),
    durationMs: null,
    exitCode: null,
    mode: 'detached',
    status: 'running',
    ...over,
  };
}

interface Setup {
  server: FakeServer;
  model: Model;
  runner: Runner;
  handlers: Handlers;
  collection: FakeDiagnosticCollection;
  diagnostics: RunDiagnostics;
}

function setup(): Setup {
  recorded.reset();
  const server = new FakeServer();
  server.tasks = [build, serve, task, launch];
  server.plans.set(build.id, { action: 'terminal', commandLine: './build.sh release', cwd: '/ws/scripts' });
  server.plans.set(serve.id, { action: 'terminal', commandLine: 'make serve', cwd: '/ws' });
  server.plans.set(task.id, { action: 'task', taskName: 'compile', commandLine: 'tsc -p .', cwd: '/ws' });
  server.plans.set(launch.id, {
    action: 'debug',
    commandLine: '',
    debugConfiguration: { type: 'node', request: 'launch', name: 'Launch App' },
  });
  const model = modelWith(server);
  const collection = new FakeDiagnosticCollection();
  const diagnostics = new RunDiagnostics(collection as unknown as vscode.DiagnosticCollection);
  const runner = new Runner(() => server, undefined, { root: '/ws', runs: model.runs, diagnostics });
  const handlers = new Handlers({ model, server: () => server, runner, workspaceRoot: '/ws', restart: () => Promise.resolve() });
  return { server, model, runner, handlers, collection, diagnostics };
}

/** Lets the awaits of the code under test run (the streams, the server's answers). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setImmediate(r));
  }
}

describe('runs', () => {
  afterEach(() => {
    recorded.reset();
  });

  it('formats elapsed times', () => {
    assert.strictEqual(formatDuration(0), '0s');
    assert.strictEqual(formatDuration(12_400), '12s');
    assert.strictEqual(formatDuration(65_000), '1m 05s');
    assert.strictEqual(formatDuration(2 * 3600_000 + 3 * 60_000), '2h 03m');
  });

  it('shows a command running while its line runs in the terminal, then how it ended', async () => {
    const { server, model, runner, collection } = setup();
    recorded.answers.push('release');
    await runner.run(build, 'newTerminal');
    const [execution] = recorded.executions;
    assert.ok(execution, 'the line runs through shell integration');
    assert.strictEqual(execution.commandLine, './build.sh release');
    let row = commandRow(build, false, model.runs);
    assert.strictEqual(row.contextValue, 'task-running');
    assert.match(String(row.description), /^running \ds · scripts$/);
    assert.strictEqual((row.iconPath as vscode.ThemeIcon).id, 'sync~spin');
    assert.match((row.tooltip as vscode.MarkdownString | undefined)?.value ?? '', /Running for/);

    server.problemList = [rustError];
    execution.print('   Compiling x\r\n');
    execution.print('error[E0308]: mismatched types\r\n  --> src/main.rs:3:5\r\n');
    execution.end(101);
    await settle();
    row = commandRow(build, false, model.runs);
    assert.strictEqual(row.contextValue, 'task', 'no Stop once it ended');
    assert.match(String(row.description), /^✗ exit 101 in \ds · scripts$/);
    assert.match((row.tooltip as vscode.MarkdownString | undefined)?.value ?? '', /Last run failed with exit code 101/);
    // The output went to the server's parser, from the folder the line ran in.
    const call = server.calls.find((c) => c.method === 'problems');
    assert.deepStrictEqual(call?.args, ['   Compiling x\r\nerror[E0308]: mismatched types\r\n  --> src/main.rs:3:5\r\n', '/ws/scripts']);
    const diags = collection.entries.get('/ws/src/main.rs') ?? [];
    assert.strictEqual(diags.length, 1);
    const [diag] = diags;
    assert.ok(diag);
    assert.strictEqual(diag.message, 'mismatched types');
    assert.strictEqual(diag.code, 'E0308');
    assert.strictEqual(diag.severity, vscode.DiagnosticSeverity.Error);
    assert.deepStrictEqual([diag.range.start.line, diag.range.start.character], [2, 4]);
    assert.strictEqual(diag.source, 'rustc (build.sh)');

    // Running it again clears its problems at once; a clean run shows none and a tick.
    recorded.answers.push('release');
    server.problemList = [];
    await runner.run(build, 'newTerminal');
    assert.strictEqual(collection.entries.size, 0);
    recorded.executions[1]?.print('ok\n');
    recorded.executions[1]?.end(0);
    await settle();
    assert.match(String(commandRow(build, false, model.runs).description), /^✓ in \ds · scripts$/);
    model.dispose();
  });

  it('stops a run of this window with Ctrl+C and restarts it with the same values, asking nothing', async () => {
    const { model, runner, handlers, server } = setup();
    recorded.answers.push('debug');
    await runner.run(build, 'newTerminal');
    const first = recorded.executions[0];
    assert.ok(first);
    // The terminal answers Ctrl+C by ending the line, as a shell does.
    const terminal = recorded.terminals[0];
    assert.ok(terminal);
    const send = terminal.sendText.bind(terminal);
    terminal.sendText = (text: string) => {
      send(text);
      if (text === '\u0003') {
        first.end(130);
      }
    };
    await handlers.stop(build);
    assert.ok(terminal.sent.includes('\u0003'));
    assert.match(String(commandRow(build, false, model.runs).description), /^■ stopped/);

    recorded.answers.push('release');
    await runner.run(build, 'newTerminal');
    const inputs = recorded.quickPicks.length;
    const second = recorded.executions[1];
    assert.ok(second);
    const t2 = second.terminal;
    const send2 = t2.sendText.bind(t2);
    t2.sendText = (text: string) => {
      send2(text);
      if (text === '\u0003') {
        second.end(130);
      }
    };
    const plansBefore = server.count('plan');
    await handlers.restart(build);
    assert.ok(t2.sent.includes('\u0003'), 'the running one is stopped first');
    assert.strictEqual(recorded.quickPicks.length, inputs, 'no parameter asked again');
    assert.strictEqual(server.count('plan'), plansBefore + 1, 'planned again, so a warning is checked again');
    const last = server.calls.filter((c) => c.method === 'plan').pop();
    assert.deepStrictEqual(last?.args, [build.id, 'newTerminal', { target: 'release' }]);
    assert.strictEqual(recorded.executions.length, 3);
    assert.strictEqual(commandRow(build, false, model.runs).contextValue, 'task-running');
    model.dispose();
  });

  it('shows runs the server reports from elsewhere, stops them and restarts them here', async () => {
    const { server, model, handlers } = setup();
    const r = run({ runId: 7, commandId: serve.id });
    server.runState = { running: [{ run: r, elapsedMs: 65_000 }], last: [{ run: r }] };
    model.runs.setServer(await server.running());
    let row = commandRow(serve, false, model.runs);
    assert.strictEqual(row.contextValue, 'task-running');
    assert.match(String(row.description), /^running 1m 0[5-6]s · scripts$/);

    await handlers.stop(serve);
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'stop')?.args, [{ id: serve.id }]);
    row = commandRow(serve, false, model.runs);
    assert.strictEqual(row.contextValue, 'task');
    assert.match(String(row.description), /^■ stopped/);

    const again = run({ runId: 8, commandId: serve.id });
    server.runState = { running: [{ run: again }], last: [{ run: again }] };
    model.runs.setServer(await server.running());
    server.restartPlans.set(8, { action: 'terminal', commandLine: 'make serve', cwd: '/ws', securityWarning: 'kills the dev server' });
    recorded.answers.push(RUN_ANYWAY);
    await handlers.restart(serve);
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'restart')?.args, [8, 'newTerminal']);
    assert.ok(recorded.messages.some((m) => m.level === 'warning' && m.text.includes('kills the dev server')), 'the warning is asked about again');
    assert.strictEqual(recorded.executions[0]?.commandLine, 'make serve');
    assert.strictEqual(commandRow(serve, false, model.runs).contextValue, 'task-running', 'running here now');
    model.dispose();
  });

  it('reports the server runs that ended, and the newest result wins on the row', () => {
    const tracker = new RunTracker(() => Date.parse('2026-11-23T00:10:00Z'));
    const r = run({ runId: 3, commandId: 'x', startedAt: '2026-11-23T00:00:00Z' });
    assert.deepStrictEqual(tracker.setServer({ running: [{ run: r }], last: [{ run: r }] }), []);
    assert.strictEqual(tracker.describe('x'), 'running 10m 00s');
    const done = { ...r, status: 'failed', exitCode: 2, durationMs: 1500 };
    const ended = tracker.setServer({ running: [], last: [{ run: done }] });
    assert.deepStrictEqual(ended, [done]);
    assert.strictEqual(tracker.describe('x'), '✗ exit 2 in 1s');
    assert.strictEqual(tracker.describe('never'), undefined);
    const mine = tracker.start({ commandId: 'x', label: 'x', kind: 'terminal', mode: 'newTerminal', params: undefined, stop: () => undefined });
    tracker.end(mine, 0);
    assert.strictEqual(tracker.describe('x'), '✓ in 0s', 'the run of this window ended last');
    tracker.dispose();
  });

  it('follows VS Code tasks to their exit code and stops them by terminating', async () => {
    const { model, runner, handlers } = setup();
    recorded.tasks = [{ name: 'compile' }];
    await runner.run(task, 'newTerminal');
    const [execution] = recorded.taskExecutions;
    assert.ok(execution);
    assert.strictEqual(commandRow(task, false, model.runs).contextValue, 'task-running');
    const stopping = handlers.stop(task);
    await settle();
    assert.ok(execution.terminated);
    fire.taskEnded(execution, 2);
    await stopping;
    assert.match(String(commandRow(task, false, model.runs).description), /^■ stopped/);
    model.dispose();
  });

  it('follows a debug session until it ends and stops it through the debugger', async () => {
    const { model, runner, handlers } = setup();
    await runner.run(launch, 'debug');
    const [session] = recorded.debugSessions;
    assert.ok(session);
    assert.ok(model.runs.isRunning(launch.id));
    const stopping = handlers.stop(launch);
    await settle();
    assert.deepStrictEqual(recorded.stoppedDebug, [session]);
    fire.debugEnded(session);
    await stopping;
    assert.strictEqual(model.runs.isRunning(launch.id), false);
    model.dispose();
  });

  it('keeps each command its own problems and clears only those', () => {
    const collection = new FakeDiagnosticCollection();
    const d = new RunDiagnostics(collection as unknown as vscode.DiagnosticCollection);
    const a = RunDiagnostics.key('/ws', 'a');
    const b = RunDiagnostics.key('/ws', 'b');
    d.set(a, 'a', [rustError]);
    d.set(b, 'b', [{ ...rustError, line: 9, column: undefined, severity: 'warning', message: 'unused', code: undefined }]);
    assert.strictEqual(collection.entries.get('/ws/src/main.rs')?.length, 2);
    d.clear(a);
    const left = collection.entries.get('/ws/src/main.rs') ?? [];
    assert.strictEqual(left.length, 1);
    const [warning] = left;
    assert.ok(warning);
    assert.strictEqual(warning.severity, vscode.DiagnosticSeverity.Warning);
    // No column: from the line's start.
    assert.strictEqual(warning.range.start.character, 0);
    assert.strictEqual(diagnosticOf({ ...rustError, severity: 'hint' }, 'x').severity, vscode.DiagnosticSeverity.Hint);
    d.set(b, 'b', []);
    assert.strictEqual(collection.entries.size, 0);
  });

  it('shows what a command runs and what runs it, indented, and opens the one picked', async () => {
    const { server, handlers } = setup();
    const link = (label: string, how: string, via: string[], line: number): Deps['runs'][number] => ({
      id: `make:/ws/Makefile:${label}`,
      label,
      type: 'make',
      filePath: '/ws/Makefile',
      line,
      how,
      via,
    });
    const deps: Deps = {
      command: { ...link('serve', '', [], 1) },
      runs: [link('build', 'prerequisite', [], 4), link('lint', 'prerequisite', ['build'], 7)],
      unresolved: [{ name: 'deploy', how: 'call', via: [] }],
      cycles: [],
      runBy: [link('ci', 'prerequisite', [], 10)],
      truncated: false,
    };
    server.depsOf.set(serve.id, deps);
    recorded.answers.push(2);
    await handlers.showDependencies(serve);
    const pick = recorded.quickPicks[0];
    assert.ok(pick);
    const labels = (pick.items as { label: string; kind?: number }[]).map((i) => `${i.kind === vscode.QuickPickItemKind.Separator ? '--' : ''}${i.label}`);
    assert.deepStrictEqual(labels, ['--Runs (2)', 'build', '\u2003lint', '$(warning) deploy', '--Run by (1)', 'ci']);
    const open = recorded.executed.find((e) => e.command === 'vscode.open');
    assert.strictEqual((open?.args[0] as vscode.Uri).fsPath, '/ws/Makefile');
    assert.strictEqual((open?.args[1] as { selection: vscode.Range }).selection.start.line, 6);

    server.depsOf.set(build.id, { ...deps, runs: [], unresolved: [], runBy: [] });
    await handlers.showDependencies(build);
    assert.ok(recorded.messages.some((m) => m.text.includes('runs no other command')));
    assert.deepStrictEqual(dependencyPicks({ ...deps, truncated: true }).pop()?.label, '$(ellipsis) more not shown');
  });

  it('reads the running state, problems and dependencies leniently', () => {
    const r = run({ runId: 1, commandId: 'c' });
    const state = readRunning({ running: [{ run: r, elapsedMs: 5 }, { run: { runId: 'x' } }], last: [{ run: r }] });
    assert.strictEqual(state.running.length, 1, 'a malformed run is left out');
    assert.strictEqual(state.running[0]?.elapsedMs, 5);
    assert.deepStrictEqual(state.last[0]?.run, r);
    assert.deepStrictEqual(readRunning(undefined), { running: [], last: [] });
    const problems = readProblems({ problems: [rustError, { path: '/x', line: 'one' }, { ...rustError, severity: 'fatal' }] });
    assert.strictEqual(problems.length, 2);
    assert.strictEqual(problems[1]?.severity, 'error');
    assert.throws(() => readDeps({}), /no command/);
    assert.deepStrictEqual(readDeps({ command: { id: 'a', label: 'a' } }).runs, []);
  });

  it('offers Stop and Restart only on running rows, and every other action on them too', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
      contributes: { menus: { 'view/item/context': { command: string; when: string }[] } };
    };
    const menus = manifest.contributes.menus['view/item/context'];
    // Enough of VS Code's when-clause language for these menus: `view == x`, `viewItem == x`,
    // `viewItem =~ /re/`, and `&&`; anything else counts as true.
    const shows = (when: string, view: string, viewItem: string): boolean =>
      when.split('&&').every((part) => {
        const p = part.trim();
        let m = /^view == (\S+)$/.exec(p);
        if (m) {
          return m[1] === view;
        }
        m = /^viewItem == (\S+)$/.exec(p);
        if (m) {
          return m[1] === viewItem;
        }
        m = /^viewItem =~ \/(.*)\/$/.exec(p);
        if (m) {
          return new RegExp(m[1] ?? '').test(viewItem);
        }
        return true;
      });
    const offered = (view: string, viewItem: string): string[] =>
      [...new Set(menus.filter((e) => shows(e.when, view, viewItem)).map((e) => e.command))].sort();
    for (const [view, quick] of [['commandtree', 'task'], ['commandtree', 'task-quick'], ['commandtree-quick', 'task-quick']] as const) {
      const idle = offered(view, quick);
      const running = offered(view, `${quick}-running`);
      assert.ok(!idle.includes('commandtree.stop') && !idle.includes('commandtree.restart'), `${view} ${quick}: ${idle.join()}`);
      assert.deepStrictEqual(
        running.filter((c) => c !== 'commandtree.stop' && c !== 'commandtree.restart'),
        idle,
        `${view} ${quick}: a running row keeps its actions`,
      );
      assert.ok(running.includes('commandtree.stop') && running.includes('commandtree.restart'), `${view} ${quick}-running: ${running.join()}`);
      assert.ok(idle.includes('commandtree.showDependencies'));
    }
  });

  it('a folder without tracking still runs, typing the line', async () => {
    recorded.reset();
    const server = new FakeServer();
    server.plans.set(build.id, { action: 'terminal', commandLine: './build.sh release', cwd: '/ws/scripts' });
    const model = modelWith(server);
    const h = new Handlers({ model, server: () => server, runner: new Runner(() => server), workspaceRoot: '/ws', restart: () => Promise.resolve() });
    assert.ok(folderOf({ model, server: () => server, runner: new Runner(() => server), workspaceRoot: '/ws', restart: () => Promise.resolve() }));
    recorded.answers.push('release');
    await h.run(build);
    assert.deepStrictEqual(recorded.terminals[0]?.sent, ['./build.sh release']);
    assert.strictEqual(recorded.executions.length, 0);
    assert.strictEqual(model.runs.isRunning(build.id), false);
    model.dispose();
  });

  it('reports a run of this window to the history with its shell, shows it once, and reports its end', async () => {
    const { server, model, runner } = setup();
    recorded.answers.push('release');
    await runner.run(build, 'newTerminal');
    await settle();
    const started = server.calls.find((c) => c.method === 'runStarted');
    assert.deepStrictEqual(started?.args, [{ id: build.id, mode: 'newTerminal', params: { target: 'release' }, pid: 4242 }]);
    // The history has it too: the row counts it once.
    model.runs.setServer(await server.running());
    assert.strictEqual(server.runState.running.length, 1);
    assert.match(String(commandRow(build, false, model.runs).description), /^running \ds · scripts$/);
    assert.deepStrictEqual(model.runs.serverRunning(build.id), []);

    recorded.executions[0]?.end(2);
    await settle();
    const ended = server.calls.find((c) => c.method === 'runEnded');
    assert.deepStrictEqual(ended?.args, [100, 2, false]);
    model.dispose();
  });

  it('records nothing in an untrusted workspace', async () => {
    const { server, model, runner } = setup();
    // The mock's workspace: its trust can be changed, as VS Code's restricted mode does.
    const ws = vscode.workspace as unknown as { isTrusted: boolean };
    ws.isTrusted = false;
    try {
      recorded.answers.push('release');
      await runner.run(build, 'newTerminal');
      recorded.executions[0]?.end(0);
      await settle();
      assert.strictEqual(server.count('runStarted') + server.count('runEnded'), 0);
    } finally {
      ws.isTrusted = true;
    }
    model.dispose();
  });

  it('runs a command again on change as it last ran here, stopping the run going on, until turned off', async () => {
    const { server, model, runner, handlers } = setup();
    await handlers.toggleRunOnChange(build);
    assert.deepStrictEqual([...server.watching], [build.id]);
    assert.strictEqual(commandRow(build, false, model.runs).description, '↻ on change · scripts');
    assert.match(recorded.messages.at(-1)?.text ?? '', /runs again when its files change \(1 folder watched\)/);

    recorded.answers.push('debug');
    await runner.run(build, 'newTerminal');
    const first = recorded.executions[0];
    assert.ok(first);
    const send = first.terminal.sendText.bind(first.terminal);
    first.terminal.sendText = (text: string) => {
      send(text);
      if (text === '\u0003') {
        first.end(130);
      }
    };
    assert.match(String(commandRow(build, false, model.runs).description), /^↻ running/);
    const picks = recorded.quickPicks.length;
    await runner.filesChanged(build.id, build);
    assert.ok(first.terminal.sent.includes('\u0003'), 'the run going on is stopped first');
    assert.strictEqual(recorded.executions.length, 2, 'and it runs again');
    assert.strictEqual(recorded.quickPicks.length, picks, 'with the values it had, asking nothing');
    const last = server.calls.filter((c) => c.method === 'plan').pop();
    assert.deepStrictEqual(last?.args, [build.id, 'newTerminal', { target: 'debug' }]);

    // Off: a late notification runs nothing.
    await handlers.toggleRunOnChange(build);
    assert.deepStrictEqual([...server.watching], []);
    await runner.filesChanged(build.id, build);
    assert.strictEqual(recorded.executions.length, 2);
    assert.doesNotMatch(String(commandRow(build, false, model.runs).description), /↻/);
    model.dispose();
  });

  it('asks about a warning once for a command run on change, and again when it changes', async () => {
    const { server, model, runner, handlers } = setup();
    server.plans.set(serve.id, { action: 'terminal', commandLine: 'make serve', cwd: '/ws', securityWarning: 'deletes files' });
    await handlers.toggleRunOnChange(serve);
    const asked = (): number => recorded.messages.filter((m) => m.level === 'warning').length;
    recorded.answers.push(RUN_ANYWAY);
    await runner.filesChanged(serve.id, serve);
    assert.strictEqual(asked(), 1);
    assert.strictEqual(recorded.executions.length, 1);
    recorded.executions[0]?.end(0);
    await settle();
    await runner.filesChanged(serve.id, serve);
    assert.strictEqual(asked(), 1, 'the same warning is not asked again');
    assert.strictEqual(recorded.executions.length, 2);
    recorded.executions[1]?.end(0);
    await settle();
    server.plans.set(serve.id, { action: 'terminal', commandLine: 'make serve', cwd: '/ws', securityWarning: 'sends files away' });
    recorded.answers.push(undefined);
    await runner.filesChanged(serve.id, serve);
    assert.strictEqual(asked(), 2, 'a new warning is');
    assert.strictEqual(recorded.executions.length, 2, 'and declined, nothing runs');
    model.dispose();
  });

  it('forgets a watched command that is gone, and watches again after a server restart', async () => {
    const { server, model, runner, handlers } = setup();
    await handlers.toggleRunOnChange(serve);
    await handlers.toggleRunOnChange(build);
    server.watching.clear();
    await runner.rewatch();
    assert.deepStrictEqual([...server.watching].sort(), [build.id, serve.id].sort());
    await runner.filesChanged(serve.id, undefined);
    assert.strictEqual(model.runs.isWatched(serve.id), false);
    assert.deepStrictEqual([...server.watching], [build.id]);
    assert.strictEqual(recorded.executions.length, 0);
    model.dispose();
  });
});
