// Playbooks and skills through a real `ct lsp` whose model requests come back to this client, as
// in VS Code: RpcServer sends, vscode-jsonrpc carries the cancellation, and this test answers
// `commandtree/languageModelRequest` in place of `vscode.lm` (no Copilot model can run here).
// Needs CT_BIN, like protocol.test.ts.

import * as assert from 'assert';
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  CancellationToken,
  CancellationTokenSource,
  MessageConnection,
  ProgressType,
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
} from 'vscode-jsonrpc/node';
import { LanguageModelRequest, readLanguageModelRequest } from '../../src/protocol';
import { Rpc, RpcServer, SummarizeProgress } from '../../src/server';

const ct = process.env.CT_BIN;
const fixture = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'workspace');
const PLAYBOOK =
  '---\nname: notes\ninputs:\n  - name: version\n---\n\n```step id=draft\n@task --prompt "Notes for {{inputs.version}}"\n```\n\n```step id=short\n@task --prompt "Shorten: {{steps.draft}}"\n```\n';

describe('playbooks against ct lsp with the editor answering the model requests', function () {
  this.timeout(60000);
  let proc: ChildProcess;
  let conn: MessageConnection;
  let root: string;
  let server: RpcServer;
  const asked: LanguageModelRequest[] = [];
  /** How the next model request is answered. */
  let answer: (req: LanguageModelRequest, token: CancellationToken) => Promise<unknown> = () => Promise.resolve({});

  before(async () => {
    assert.ok(ct, 'set CT_BIN to the ct binary to test against');
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ct-agent-')));
    fs.cpSync(fixture, root, { recursive: true });
    fs.mkdirSync(path.join(root, '.commandtree', 'playbooks'), { recursive: true });
    fs.writeFileSync(path.join(root, '.commandtree', 'playbooks', 'notes.playbook.md'), PLAYBOOK);
    // No provider anywhere, so the rule sends the model requests to this client.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('COMMANDTREE_LLM_') && k !== 'XDG_CONFIG_HOME'));
    // Playbooks come from the workspace: they run only once the user ran `ct trust` there (its
    // record goes under this HOME, not the real one).
    execFileSync(ct, ['--root', root, 'trust'], { cwd: root, env: { ...env, HOME: root }, stdio: 'ignore' });
    proc = spawn(ct, ['--root', root, 'lsp'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'], env: { ...env, HOME: root } });
    if (!proc.stdout || !proc.stdin) {
      throw new Error('no pipes to ct lsp');
    }
    conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    conn.onRequest('commandtree/languageModelRequest', (params: unknown, token: CancellationToken) => {
      const req = readLanguageModelRequest(params);
      asked.push(req);
      return answer(req, token);
    });
    conn.listen();
    const init = await conn.sendRequest<{ capabilities: { experimental?: { commandtree?: { languageModels?: boolean } } } }>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: { experimental: { commandtree: { languageModels: true } } },
      initializationOptions: { workspaceRoot: root, trusted: true },
    });
    assert.strictEqual(init.capabilities.experimental?.commandtree?.languageModels, true);
    await conn.sendNotification('initialized', {});
    const progressType = new ProgressType<SummarizeProgress & { kind: string }>();
    let n = 0;
    const rpc: Rpc = {
      sendRequest: <R>(method: string, params: unknown, token?: CancellationToken) => conn.sendRequest<R>(method, params, token),
      withProgress: async (run, onProgress) => {
        n += 1;
        const token = `agent-${n}`;
        const sub = conn.onProgress(progressType, token, (v) => {
          if (v.kind === 'report') {
            onProgress(v);
          }
        });
        try {
          return await run(token);
        } finally {
          sub.dispose();
        }
      },
    };
    server = new RpcServer(rpc, root);
  });

  after(async () => {
    await conn.sendRequest('shutdown').catch(() => undefined);
    await conn.sendNotification('exit').catch(() => undefined);
    conn.dispose();
    proc.kill();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists the playbook and runs it, the first reply going to the second step as assistant context', async () => {
    const [pb] = await server.playbooks();
    assert.deepStrictEqual(pb?.steps, ['draft', 'short']);
    asked.length = 0;
    answer = (req) => Promise.resolve({ text: `R${asked.length}:${req.messages.length}`, model: 'fake' });
    const steps: string[] = [];
    const replies = await server.runPlaybook('notes', { version: '2.0' }, CancellationToken.None, (p) => {
      if (p.step) {
        steps.push(p.step.reply === undefined ? `start ${p.step.id}` : `done ${p.step.id}: ${p.step.reply}`);
      }
    });
    assert.deepStrictEqual(replies, [
      { id: 'draft', reply: 'R1:1' },
      { id: 'short', reply: 'R2:2' },
    ]);
    assert.deepStrictEqual(asked[1]?.messages, [
      { role: 'assistant', content: 'R1:1' },
      { role: 'user', content: 'Shorten: R1:1' },
    ]);
    assert.deepStrictEqual(steps, ['start draft', 'done draft: R1:1', 'start short', 'done short: R2:2']);
  });

  it('cancelling the run cancels the model request the editor holds', async () => {
    let heldToken: CancellationToken | undefined;
    let received: () => void = () => undefined;
    const got = new Promise<void>((r) => (received = r));
    answer = (_req, token) => {
      heldToken = token;
      received();
      // Held until the server's $/cancelRequest reaches this handler's token.
      return new Promise((resolve) => token.onCancellationRequested(() => { resolve({ text: 'late', model: 'fake' }); }));
    };
    const source = new CancellationTokenSource();
    const run = server.runPlaybook('notes', { version: '1' }, source.token, () => undefined);
    await got;
    source.cancel();
    await assert.rejects(run);
    await new Promise<void>((resolve) => {
      if (heldToken?.isCancellationRequested) {
        resolve();
      }
      heldToken?.onCancellationRequested(() => { resolve(); });
    });
    assert.strictEqual(heldToken?.isCancellationRequested, true);
  });

  it('runs one skill and fails it with the editor’s error message', async () => {
    answer = () => Promise.resolve({ text: 'A summary.', model: 'fake' });
    assert.strictEqual(await server.runSkill('@task --prompt "Summarize this text"', CancellationToken.None, () => undefined), 'A summary.');
    answer = () => Promise.reject(new Error('no model here'));
    await assert.rejects(server.runSkill('@task --prompt x', CancellationToken.None, () => undefined), /no model here/);
  });
});
