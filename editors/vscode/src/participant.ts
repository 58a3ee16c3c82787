// The `agent` chat participant: `@agent <prompt>` sends the active context messages, this
// chat's earlier `@agent` turns and the prompt to the chat's model and streams the reply; `/playbook name k=v` and `/skill @task ...`
// run through `ct lsp` (whose model requests come back to this editor), with each step shown as
// it goes and the chat's Stop cancelling the run and the model request in flight.

import * as vscode from 'vscode';
import { ModelChoice, requestOptions, send, toChatMessage } from './lm';
import { WireMessage } from './protocol';
import { errorText } from './runner';
import { Server, SummarizeProgress } from './server';

export const PARTICIPANT_ID = 'commandtree.agent';

export interface ParticipantDeps {
  /**
   * The server of the folder a request goes to. `run` is true for /playbook and /skill, which
   * may ask the user for a folder; a plain prompt only wants the context messages.
   */
  server: (run: boolean) => Server | undefined | Promise<Server | undefined>;
  models: ModelChoice;
  /** `commandtree.agent.modelOptions`: sent with every chat prompt. */
  modelOptions: () => Record<string, unknown> | undefined;
}

/** Words split on blanks, with '…' and "…" quoting (quotes may sit inside a word: k="a b"). */
export function words(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let has = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) {
        quote = undefined;
      } else {
        cur += ch;
      }
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur !== '') {
        out.push(cur);
      }
      cur = '';
      has = false;
    } else {
      cur += ch;
    }
  }
  if (quote) {
    throw new Error(`unclosed ${quote}`);
  }
  if (has || cur !== '') {
    out.push(cur);
  }
  return out;
}

/** `/playbook NAME k=v ...`. */
export function parsePlaybookCommand(prompt: string): { name: string; inputs: Record<string, string> } {
  const [name, ...rest] = words(prompt);
  if (!name) {
    throw new Error('usage: /playbook NAME [input=value ...]');
  }
  const inputs: Record<string, string> = {};
  for (const w of rest) {
    const at = w.indexOf('=');
    if (at <= 0) {
      throw new Error(`\`${w}\` is not input=value`);
    }
    inputs[w.slice(0, at)] = w.slice(at + 1);
  }
  return { name, inputs };
}

function stepReporter(stream: vscode.ChatResponseStream): (p: SummarizeProgress) => void {
  return (p) => {
    const s = p.step;
    if (s?.reply !== undefined) {
      stream.markdown(`**${s.index}/${s.total} ${s.id}**\n\n${s.reply}\n\n`);
    } else if (s) {
      stream.progress(`Step ${s.index}/${s.total}: ${s.id}${s.skill ? ` (@${s.skill})` : ''}`);
    } else if (p.message) {
      stream.progress(p.message);
    }
  };
}

/**
 * Earlier turns of this chat with `@agent`, oldest first: plain prompts as `user`, the replies'
 * text as `assistant`. Slash-command turns (playbooks, skills) and replies without text are
 * left out: their text is step progress, not a conversation.
 */
export function historyMessages(history: readonly unknown[] | undefined): WireMessage[] {
  const out: WireMessage[] = [];
  // Whether the turn before was a prompt that was kept: only its reply follows it.
  let kept = false;
  for (const turn of history ?? []) {
    const t = turn as { prompt?: unknown; command?: unknown; response?: unknown };
    if (typeof t.prompt === 'string') {
      kept = t.command === undefined && t.prompt.trim() !== '';
      if (kept) {
        out.push({ role: 'user', content: t.prompt });
      }
    } else if (Array.isArray(t.response)) {
      const text = t.response
        .map((part: { value?: unknown }) => {
          const v = part.value as { value?: unknown } | undefined;
          return typeof v?.value === 'string' ? v.value : '';
        })
        .join('');
      if (kept && text.trim() !== '') {
        out.push({ role: 'assistant', content: text });
      }
      kept = false;
    }
  }
  return out;
}

function failed(message: string, stream: vscode.ChatResponseStream): vscode.ChatResult {
  stream.markdown(message);
  return { errorDetails: { message } };
}

export function chatHandler(d: ParticipantDeps): vscode.ChatRequestHandler {
  return async (request, chat, stream, token) => {
    d.models.remember(request.model);
    const run = request.command === 'playbook' || request.command === 'skill';
    const server = await d.server(run);
    if (run) {
      if (!server) {
        return failed('The CommandTree server (ct lsp) is not running.', stream);
      }
      try {
        if (request.command === 'playbook') {
          const { name, inputs } = parsePlaybookCommand(request.prompt);
          stream.progress(`Playbook ${name}`);
          // Each reply is shown as its step finishes (the step progress carries it).
          await server.runPlaybook(name, inputs, token, stepReporter(stream));
        } else {
          const invocation = request.prompt.trim();
          if (invocation === '') {
            return failed('usage: /skill @task --prompt "..."', stream);
          }
          stream.progress(invocation.split(/\s/)[0] ?? invocation);
          stream.markdown(await server.runSkill(invocation, token, stepReporter(stream)));
        }
      } catch (e) {
        return token.isCancellationRequested ? {} : failed(errorText(e), stream);
      }
      return {};
    }
    let context: WireMessage[] = [];
    if (server) {
      try {
        context = await server.context();
      } catch (e) {
        stream.progress(`Without the context messages: ${errorText(e)}`);
      }
    }
    const earlier = historyMessages(chat.history);
    const messages = [...context, ...earlier, { role: 'user' as const, content: request.prompt }].map(toChatMessage);
    const modelOptions = d.modelOptions();
    try {
      await send(
        request.model,
        messages,
        requestOptions(modelOptions && Object.keys(modelOptions).length > 0 ? { modelOptions } : {}),
        token,
        (t) => { stream.markdown(t); },
      );
    } catch (e) {
      return token.isCancellationRequested ? {} : failed(errorText(e), stream);
    }
    return {};
  };
}

export function registerParticipant(d: ParticipantDeps): vscode.ChatParticipant {
  const p = vscode.chat.createChatParticipant(PARTICIPANT_ID, chatHandler(d));
  p.iconPath = new vscode.ThemeIcon('list-tree');
  return p;
}
