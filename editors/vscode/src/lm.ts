// The editor's language models (`vscode.lm`, the user's Copilot models) for ct: the role mapping
// from the SkillApi's `agent`/`assistant`/`user`, the choice of model, and the answer to the
// server's `commandtree/languageModelRequest`, so skills, playbooks and summaries run by `ct lsp`
// need no API key in VS Code.

import * as vscode from 'vscode';
import { LanguageModelRequest, WireMessage, WireToolCall, readLanguageModelRequest } from './protocol';
import type { LanguageModelAnswer } from './protocol.generated';

export const NO_MODEL = 'No language model available: sign in to GitHub Copilot or configure a provider for ct';

/**
 * VS Code's chat messages have two roles, User and Assistant; there is no system role. `agent`
 * messages (instructions) therefore go as User turns, in their place, which is how VS Code's
 * own guide writes prompts for `vscode.lm`.
 */
export function toChatMessage(m: WireMessage): vscode.LanguageModelChatMessage {
  return m.role === 'assistant'
    ? vscode.LanguageModelChatMessage.Assistant(m.content)
    : vscode.LanguageModelChatMessage.User(m.content);
}

/** The model the `agent` participant last answered with: the default for the server's requests. */
export class ModelChoice {
  current: vscode.LanguageModelChat | undefined;

  remember(model: vscode.LanguageModelChat | undefined): void {
    if (model) {
      this.current = model;
    }
  }
}

/** Whether this VS Code has the language model API at all. */
export function hasLanguageModels(): boolean {
  return typeof (vscode as { lm?: { selectChatModels?: unknown } }).lm?.selectChatModels === 'function';
}

/**
 * `wanted` by id, then by family; without one, the chat's current model, else the first Copilot
 * model, else any. None at all is {@link NO_MODEL}.
 */
export async function pickModel(wanted: string | undefined, choice: ModelChoice): Promise<vscode.LanguageModelChat> {
  if (wanted !== undefined) {
    const found =
      (await vscode.lm.selectChatModels({ id: wanted }))[0] ?? (await vscode.lm.selectChatModels({ family: wanted }))[0];
    if (found) {
      return found;
    }
    const all = await vscode.lm.selectChatModels();
    if (all.length === 0) {
      throw new Error(NO_MODEL);
    }
    throw new Error(`No language model "${wanted}" in this editor (there are: ${all.map((m) => m.id).join(', ')})`);
  }
  if (choice.current) {
    return choice.current;
  }
  const model = (await vscode.lm.selectChatModels({ vendor: 'copilot' }))[0] ?? (await vscode.lm.selectChatModels())[0];
  if (!model) {
    throw new Error(NO_MODEL);
  }
  return model;
}

export function requestOptions(o: LanguageModelRequest['options']): vscode.LanguageModelChatRequestOptions {
  const options: vscode.LanguageModelChatRequestOptions = {};
  if (o.modelOptions) {
    options.modelOptions = o.modelOptions;
  }
  if (o.justification !== undefined) {
    options.justification = o.justification;
  }
  if (o.tools && o.tools.length > 0) {
    options.tools = o.tools.map(
      (t): vscode.LanguageModelChatTool =>
        t.inputSchema ? { name: t.name, description: t.description, inputSchema: t.inputSchema } : { name: t.name, description: t.description },
    );
    if (o.toolMode === 'required') {
      options.toolMode = vscode.LanguageModelChatToolMode.Required;
    }
  }
  return options;
}

/** Sends and collects the streamed reply; `onText` sees each piece. Cancelled is an error. */
export async function send(
  model: vscode.LanguageModelChat,
  messages: vscode.LanguageModelChatMessage[],
  options: vscode.LanguageModelChatRequestOptions,
  token: vscode.CancellationToken,
  onText?: (t: string) => void,
): Promise<string> {
  const response = await model.sendRequest(messages, options, token);
  let text = '';
  for await (const piece of response.text) {
    if (token.isCancellationRequested) {
      break;
    }
    text += piece;
    onText?.(piece);
  }
  if (token.isCancellationRequested) {
    throw new Error('cancelled');
  }
  return text;
}

/**
 * Sends a request that offers tools and collects its reply's parts: text parts into `text`, tool
 * call parts into `toolCalls` (in order). Cancelled is an error.
 */
export async function sendWithTools(
  model: vscode.LanguageModelChat,
  messages: vscode.LanguageModelChatMessage[],
  options: vscode.LanguageModelChatRequestOptions,
  token: vscode.CancellationToken,
): Promise<{ text: string; toolCalls: WireToolCall[] }> {
  const response = await model.sendRequest(messages, options, token);
  let text = '';
  const toolCalls: WireToolCall[] = [];
  for await (const part of response.stream) {
    if (token.isCancellationRequested) {
      break;
    }
    if (part instanceof vscode.LanguageModelTextPart) {
      text += part.value;
    } else if (part instanceof vscode.LanguageModelToolCallPart) {
      toolCalls.push({ name: part.name, input: part.input });
    }
  }
  if (token.isCancellationRequested) {
    throw new Error('cancelled');
  }
  return { text, toolCalls };
}

/**
 * The answer to `commandtree/languageModelRequest`: `{text, model}`, and `toolCalls` when the
 * request offered tools.
 */
export async function answerLanguageModelRequest(
  params: unknown,
  token: vscode.CancellationToken,
  choice: ModelChoice,
): Promise<LanguageModelAnswer> {
  const req = readLanguageModelRequest(params);
  const model = await pickModel(req.options.model, choice);
  const messages = req.messages.map(toChatMessage);
  const options = requestOptions(req.options);
  if (options.tools) {
    const { text, toolCalls } = await sendWithTools(model, messages, options, token);
    return { text, model: model.id, toolCalls };
  }
  const text = await send(model, messages, options, token);
  return { text, model: model.id };
}
