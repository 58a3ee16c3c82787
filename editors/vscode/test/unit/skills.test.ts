// Command skills in the extension: the quick pick, the diff editor over in-memory documents, and
// the Apply/Discard decision. `vscode` is the mock from vscode-mock.ts (it records quick picks,
// messages, executed commands and diff tabs, and plays scripted answers); the server is
// FakeServer (fakes.ts), which like `ct lsp` writes only onto the text the proposal was made from.

import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { APPLY, DISCARD, Handlers } from '../../src/commands';
import { readProposal, readSkills } from '../../src/protocol';
import { Runner } from '../../src/runner';
import { Rpc, RpcServer } from '../../src/server';
import { SKILL_SCHEME } from '../../src/skills';
import { FakeServer, item, modelWith } from './fakes';
import { CancellationTokenSource, TabInputTextDiff, recorded } from './vscode-mock';

const deploy = item({ label: 'deploy.sh' });
const ORIGINAL = '#!/bin/sh\n# deploy\necho deploy\necho deploy\n';
const PROPOSED = '#!/bin/sh\necho deploy\n';
const cleanUp = { id: 'clean-up', name: 'Clean Up Script', icon: 'sparkle', description: 'Removes noise' };
const docs = { id: 'add-docs', name: 'Add Usage', icon: 'book' };

function setup(): { server: FakeServer; handlers: Handlers } {
  recorded.reset();
  const server = new FakeServer();
  server.tasks = [deploy];
  server.skills = [cleanUp, docs];
  server.proposals.set(deploy.id, { file: deploy.filePath, original: ORIGINAL, proposed: PROPOSED });
  server.files.set(deploy.filePath, ORIGINAL);
  const handlers = new Handlers({
    model: modelWith(server),
    server: () => server,
    runner: new Runner(() => server),
    workspaceRoot: '/ws',
    restart: () => Promise.resolve(),
  });
  return { server, handlers };
}

function messages(level: 'info' | 'error'): string[] {
  return recorded.messages.filter((m) => m.level === level).map((m) => m.text);
}

describe('command skills', () => {
  it('pick a skill by its icon and name, show the proposal as a diff, and write it after Apply', async () => {
    const { server, handlers } = setup();
    let left: unknown;
    let right: unknown;
    const origExecute = vscode.commands.executeCommand;
    // Read the in-memory documents while the diff is open, as the diff editor does.
    const seen: string[] = [];
    (vscode.commands as { executeCommand: typeof origExecute }).executeCommand = (command: string, ...args: unknown[]) => {
      if (command === 'vscode.diff') {
        [left, right] = args;
        seen.push(handlers.skillDocuments.provideTextDocumentContent(left as vscode.Uri));
        seen.push(handlers.skillDocuments.provideTextDocumentContent(right as vscode.Uri));
      }
      return origExecute(command, ...args);
    };
    try {
      recorded.answers = [0, APPLY];
      await handlers.applySkill({ kind: 'command', item: deploy });
    } finally {
      (vscode.commands as { executeCommand: typeof origExecute }).executeCommand = origExecute;
    }
    const pick = recorded.quickPicks[0];
    assert.ok(pick);
    assert.deepStrictEqual(
      (pick.items as { label: string; description?: string }[]).map((i) => [i.label, i.description]),
      [
        ['$(sparkle) Clean Up Script', 'Removes noise'],
        ['$(book) Add Usage', undefined],
      ],
    );
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'proposeSkill')?.args, ['clean-up', deploy.id]);
    assert.deepStrictEqual(seen, [ORIGINAL, PROPOSED]);
    assert.strictEqual((left as vscode.Uri).scheme, SKILL_SCHEME);
    assert.ok((right as vscode.Uri).path.endsWith('/proposed/deploy.sh'), 'the file name keeps its language');
    const ask = recorded.messages.find((m) => m.text.startsWith('Apply "Clean Up Script"'));
    assert.ok(ask);
    assert.strictEqual(ask.text, 'Apply "Clean Up Script" to scripts/deploy.sh?');
    assert.deepStrictEqual(ask.options, [APPLY, DISCARD]);
    assert.deepStrictEqual(server.calls.find((c) => c.method === 'applySkill')?.args, ['clean-up', deploy.id, ORIGINAL, PROPOSED]);
    assert.strictEqual(server.files.get(deploy.filePath), PROPOSED);
    assert.ok(messages('info').includes('CommandTree: applied Clean Up Script to scripts/deploy.sh'));
    // The diff tab is closed and its texts forgotten.
    assert.strictEqual(recorded.tabs.length, 0);
    assert.strictEqual(recorded.closedTabs.length, 1);
    assert.ok(recorded.closedTabs[0]?.input instanceof TabInputTextDiff);
    assert.strictEqual(handlers.skillDocuments.size, 0);
  });

  it('Discard, or dismissing the question, writes nothing', async () => {
    for (const answer of [DISCARD, undefined]) {
      const { server, handlers } = setup();
      recorded.answers = [1, answer];
      await handlers.applySkill(deploy);
      assert.deepStrictEqual(server.calls.find((c) => c.method === 'proposeSkill')?.args, ['add-docs', deploy.id]);
      assert.strictEqual(server.count('applySkill'), 0);
      assert.strictEqual(server.files.get(deploy.filePath), ORIGINAL);
      assert.strictEqual(recorded.tabs.length, 0, 'the diff is closed');
      assert.strictEqual(handlers.skillDocuments.size, 0);
    }
  });

  it('a file changed while the diff was open is not overwritten, and the user is told why', async () => {
    const { server, handlers } = setup();
    server.files.set(deploy.filePath, '#!/bin/sh\necho edited\n');
    recorded.answers = [APPLY];
    await handlers.applySkill(deploy, 'clean-up');
    assert.strictEqual(recorded.quickPicks.length, 0, 'a named skill skips the pick');
    assert.strictEqual(server.files.get(deploy.filePath), '#!/bin/sh\necho edited\n');
    const errors = messages('error');
    assert.strictEqual(errors.length, 1);
    assert.ok(errors[0]?.includes('scripts/deploy.sh was not changed') && errors[0].includes('changed meanwhile'), errors[0]);
    assert.ok(!messages('info').some((m) => m.startsWith('CommandTree: applied')));
  });

  it('no skills, no changes, a cancelled or failed proposal: no diff and nothing written', async () => {
    let { server, handlers } = setup();
    server.skills = [];
    await handlers.applySkill(deploy);
    assert.strictEqual(server.count('proposeSkill'), 0);
    assert.ok(messages('info')[0]?.includes('.commandtree/skills/'));

    ({ server, handlers } = setup());
    server.proposals.set(deploy.id, { file: deploy.filePath, original: ORIGINAL, proposed: ORIGINAL });
    await handlers.applySkill(deploy, 'clean-up');
    assert.deepStrictEqual(messages('info'), ['CommandTree: Clean Up Script proposed no changes to scripts/deploy.sh']);

    ({ server, handlers } = setup());
    recorded.cancelProgress = true;
    await handlers.applySkill(deploy, 'clean-up');
    assert.strictEqual(server.count('proposeSkill'), 1);
    assert.deepStrictEqual(recorded.messages, [], 'a cancel is not an error');

    ({ server, handlers } = setup());
    server.proposals.clear();
    await handlers.applySkill(deploy, 'clean-up');
    assert.ok(messages('error')[0]?.startsWith('CommandTree: Clean Up Script failed: command not found'));

    assert.strictEqual(server.count('applySkill'), 0);
    assert.ok(!recorded.executed.some((e) => e.command === 'vscode.diff'));
    assert.strictEqual(handlers.skillDocuments.size, 0);

    // Not a command (a folder, nothing): not even the skills are asked for.
    ({ server, handlers } = setup());
    await handlers.applySkill({ kind: 'folder', label: 'scripts', children: [] });
    await handlers.applySkill(undefined);
    assert.deepStrictEqual(server.calls, []);
  });

  it('is offered in the 4_skills group of command rows, only in a trusted workspace', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { menus: Record<string, { command: string; when?: string; group?: string }[]> };
    };
    const entries = (pkg.contributes.menus['view/item/context'] ?? []).filter((m) => m.command === 'commandtree.applySkill');
    assert.deepStrictEqual(entries, [
      { command: 'commandtree.applySkill', when: 'viewItem =~ /^task/ && isWorkspaceTrusted', group: '4_skills@1' },
    ]);
    const palette = pkg.contributes.menus.commandPalette ?? [];
    assert.ok(palette.some((m) => m.command === 'commandtree.applySkill' && m.when === 'false'));
  });

  it('read the server answers tolerantly, and refuse a proposal without its texts', () => {
    assert.deepStrictEqual(
      readSkills({ skills: [{ id: 'a', name: 'A', icon: 'zap', description: 'd' }, { id: 'b', name: 'B' }, { icon: 'x' }] }),
      [
        { id: 'a', name: 'A', icon: 'zap', description: 'd' },
        { id: 'b', name: 'B', icon: 'wand' },
      ],
    );
    assert.deepStrictEqual(readSkills([{ name: 'Only Name', icon: '' }]), [{ id: 'Only Name', name: 'Only Name', icon: 'wand' }]);
    assert.deepStrictEqual(readSkills(null), []);
    assert.deepStrictEqual(readProposal({ file: '/f', original: 'a', proposed: 'b', extra: 1 }), { file: '/f', original: 'a', proposed: 'b' });
    assert.throws(() => readProposal({ file: '/f', original: 'a' }), /no proposal/);
  });

  it('RpcServer sends the documented request shapes, with a work-done token and the cancellation token', async () => {
    const sent: { method: string; params: unknown; token: unknown }[] = [];
    const answers: Record<string, unknown> = {
      'commandtree/commandSkills': { skills: [cleanUp] },
      'commandtree/proposeSkill': { file: '/ws/x.sh', original: 'a\n', proposed: 'b\n' },
      'commandtree/applySkill': { file: '/ws/x.sh', written: true },
    };
    const rpc: Rpc = {
      sendRequest: <R>(method: string, params: unknown, token?: unknown) => {
        sent.push({ method, params, token });
        return Promise.resolve(answers[method] as R);
      },
      withProgress: (run, onProgress) => {
        onProgress({ message: 'asking' });
        return run('tok-9');
      },
    };
    const server = new RpcServer(rpc, '/ws');
    assert.deepStrictEqual(await server.commandSkills(), [cleanUp]);
    const source = new CancellationTokenSource();
    const progress: unknown[] = [];
    const p = await server.proposeSkill('clean-up', 'shell:/ws/x.sh:x.sh', source.token, (m) => progress.push(m));
    assert.deepStrictEqual(p, { file: '/ws/x.sh', original: 'a\n', proposed: 'b\n' });
    await server.applySkill('clean-up', 'shell:/ws/x.sh:x.sh', 'a\n', 'b\n');
    assert.deepStrictEqual(
      sent.map((x) => [x.method, x.params]),
      [
        ['commandtree/commandSkills', {}],
        ['commandtree/proposeSkill', { skill: 'clean-up', id: 'shell:/ws/x.sh:x.sh', workDoneToken: 'tok-9' }],
        ['commandtree/applySkill', { skill: 'clean-up', id: 'shell:/ws/x.sh:x.sh', original: 'a\n', proposed: 'b\n' }],
      ],
    );
    assert.strictEqual(sent[1]?.token, source.token);
    assert.deepStrictEqual(progress, [{ message: 'asking' }]);
  });
});
