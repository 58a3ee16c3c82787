// Shapes of the `ct lsp` protocol (docs/lsp-protocol.md) and tolerant readers for its answers.
// The readers accept the documented shape and the close variants a server version may send
// (a bare array instead of a wrapper object, `kind` or `type` as the node tag), so a small
// protocol difference degrades one feature instead of emptying the whole tree.

export type ParamFormat = 'positional' | 'flag' | 'flag-equals' | 'dashdash-args';

export interface ParamDef {
  name: string;
  description?: string;
  default?: string;
  options?: string[];
  format?: ParamFormat;
  flag?: string;
}

/** PRODUCT.md §3 CommandItem, as `ct list --json` and the server emit it. */
export interface CommandItem {
  id: string;
  label: string;
  type: string;
  category: string;
  command: string;
  cwd?: string;
  filePath: string;
  tags: string[];
  params?: ParamDef[];
  description?: string;
  summary?: string;
  securityWarning?: string;
  line?: number;
  /** Sent by servers that know it; otherwise derived by `isPrivate`. */
  private?: boolean;
}

export type RunMode = 'newTerminal' | 'currentTerminal' | 'debug';

/** How the client runs a plan; upstream's routing per type (launch, vscode, markdown, rest). */
export type PlanAction = 'terminal' | 'debug' | 'task' | 'preview';

export interface Plan {
  action: PlanAction;
  commandLine: string;
  cwd?: string;
  env?: Record<string, string>;
  /** The shell dialect the command line is written for (`posix`, `fish`, ...), not a program. */
  shell?: string;
  debugConfiguration?: Record<string, unknown>;
  taskName?: string;
  securityWarning?: string;
  staleSummary?: boolean;
}

/** A command skill (`.commandtree/skills/*.md`) as `commandtree/commandSkills` lists it. */
export interface CommandSkill {
  id: string;
  name: string;
  /** A ThemeIcon id. */
  icon: string;
  description?: string;
}

/** `commandtree/proposeSkill`: the file and the model's whole new version of it. */
export interface SkillProposal {
  file: string;
  original: string;
  proposed: string;
}

export interface SearchHit {
  item: CommandItem;
  score: number;
}

export interface TreeFolder {
  kind: 'folder';
  label: string;
  children: TreeNode[];
}

export interface TreeCommand {
  kind: 'command';
  item: CommandItem;
}

export type TreeNode = TreeFolder | TreeCommand;

export interface TreeCategory {
  type: string;
  label: string;
  count: number;
  children: TreeNode[];
}

export interface TasksChanged {
  workspaceRoot?: string;
  tasks?: CommandItem[];
  added?: CommandItem[];
  updated?: CommandItem[];
  removed?: string[];
}

export const ErrorCodes = {
  workspaceNotFound: -32000,
  discoveryFailed: -32001,
  commandNotFound: -32002,
} as const;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isCommandItem(v: unknown): v is CommandItem {
  return (
    isObject(v) &&
    typeof v.id === 'string' &&
    typeof v.label === 'string' &&
    typeof v.type === 'string' &&
    typeof v.command === 'string'
  );
}

/** Normalises one CommandItem: missing arrays and strings become empty, never undefined. */
export function toItem(v: Json): CommandItem {
  const item = { ...v } as unknown as CommandItem;
  item.tags = Array.isArray(v.tags) ? (v.tags as unknown[]).filter((t): t is string => typeof t === 'string') : [];
  item.category = typeof v.category === 'string' ? v.category : '';
  item.filePath = typeof v.filePath === 'string' ? v.filePath : '';
  return item;
}

/** Upstream §1.6: make and mise targets starting with `_` are demoted, not hidden. */
export function isPrivate(item: CommandItem): boolean {
  if (typeof item.private === 'boolean') {
    return item.private;
  }
  return (item.type === 'make' || item.type === 'mise') && item.label.startsWith('_');
}

function listIn(v: unknown, ...keys: string[]): unknown[] {
  if (Array.isArray(v)) {
    return v;
  }
  if (isObject(v)) {
    for (const k of keys) {
      const inner = v[k];
      if (Array.isArray(inner)) {
        return inner;
      }
    }
  }
  return [];
}

export function readTasks(v: unknown): CommandItem[] {
  return listIn(v, 'tasks', 'commands', 'items').filter(isCommandItem).map((i) => toItem(i as unknown as Json));
}

export function readWarnings(v: unknown): { file: string; line?: number; message: string }[] {
  return listIn(isObject(v) ? v.warnings : undefined)
    .filter(isObject)
    .map((w) => ({
      file: typeof w.file === 'string' ? w.file : '',
      line: typeof w.line === 'number' ? w.line : undefined,
      message: typeof w.message === 'string' ? w.message : JSON.stringify(w),
    }));
}

export function readQuick(v: unknown): string[] {
  return listIn(v, 'ids', 'quick', 'commands', 'tasks')
    .map((e) => (typeof e === 'string' ? e : isCommandItem(e) ? e.id : undefined))
    .filter((e): e is string => typeof e === 'string');
}

function readNode(v: unknown, known: Map<string, CommandItem>): TreeNode | undefined {
  if (typeof v === 'string') {
    const item = known.get(v);
    return item ? { kind: 'command', item } : undefined;
  }
  if (!isObject(v)) {
    return undefined;
  }
  const tag = v.kind ?? v.nodeType ?? v.node;
  if (tag === 'folder' || (tag === undefined && Array.isArray(v.children))) {
    const children = listIn(v.children).map((c) => readNode(c, known)).filter((c): c is TreeNode => c !== undefined);
    return { kind: 'folder', label: typeof v.label === 'string' ? v.label : '', children };
  }
  for (const key of ['item', 'command', 'task']) {
    const inner = v[key];
    if (isCommandItem(inner)) {
      return { kind: 'command', item: toItem(inner as unknown as Json) };
    }
  }
  if (isCommandItem(v)) {
    return { kind: 'command', item: toItem(v) };
  }
  if (typeof v.id === 'string') {
    const item = known.get(v.id);
    return item ? { kind: 'command', item } : undefined;
  }
  return undefined;
}

/**
 * Reads `commandtree/tree`: categories in display order, each with folders and commands.
 * `known` resolves nodes that carry only a command id.
 */
export function readTree(v: unknown, known: Map<string, CommandItem>): TreeCategory[] {
  return listIn(v, 'categories', 'tree', 'nodes')
    .filter(isObject)
    .map((c) => {
      const children = listIn(c.children).map((n) => readNode(n, known)).filter((n): n is TreeNode => n !== undefined);
      const label = typeof c.label === 'string' ? c.label : typeof c.type === 'string' ? c.type : '';
      return {
        type: typeof c.type === 'string' ? c.type : typeof c.kind === 'string' && c.kind !== 'category' ? c.kind : '',
        label: label.replace(/ \(\d+\)$/, ''),
        count: typeof c.count === 'number' ? c.count : countCommands(children),
        children,
      };
    });
}

export function countCommands(nodes: TreeNode[]): number {
  return nodes.reduce((n, c) => n + (c.kind === 'command' ? 1 : countCommands(c.children)), 0);
}

export function commandsOf(nodes: TreeNode[]): CommandItem[] {
  return nodes.flatMap((n) => (n.kind === 'command' ? [n.item] : commandsOf(n.children)));
}

export function readPlan(v: unknown): Plan {
  if (!isObject(v) || typeof v.commandLine !== 'string') {
    throw new Error('the server sent no command line for this command');
  }
  const env = isObject(v.env)
    ? Object.fromEntries(Object.entries(v.env).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : undefined;
  const action = v.action === 'debug' || v.action === 'task' || v.action === 'preview' ? v.action : 'terminal';
  return {
    action,
    commandLine: v.commandLine,
    cwd: typeof v.cwd === 'string' && v.cwd !== '' ? v.cwd : undefined,
    env: env && Object.keys(env).length > 0 ? env : undefined,
    shell: typeof v.shell === 'string' && v.shell !== '' ? v.shell : undefined,
    debugConfiguration: isObject(v.debugConfiguration) ? v.debugConfiguration : undefined,
    taskName: typeof v.taskName === 'string' && v.taskName !== '' ? v.taskName : undefined,
    securityWarning:
      typeof v.securityWarning === 'string' && v.securityWarning !== '' ? v.securityWarning : undefined,
    staleSummary: v.staleSummary === true ? true : undefined,
  };
}

export function readSearch(v: unknown): SearchHit[] {
  return listIn(v, 'results', 'hits', 'items')
    .filter(isObject)
    .map((h) => {
      const score = typeof h.score === 'number' ? h.score : 0;
      const inner = isCommandItem(h.item) ? h.item : isCommandItem(h.command) ? h.command : h;
      return isCommandItem(inner) ? { item: toItem(inner as unknown as Json), score } : undefined;
    })
    .filter((h): h is SearchHit => h !== undefined);
}

/** `commandtree/show`: `{command, steps}`; a bare CommandItem is accepted too. */
export function readShown(v: unknown): CommandItem | undefined {
  const inner = isObject(v) && isCommandItem(v.command) ? v.command : v;
  return isCommandItem(inner) ? toItem(inner as unknown as Json) : undefined;
}

export function readTasksChanged(v: unknown): TasksChanged {
  if (!isObject(v)) {
    return {};
  }
  const items = (k: string): CommandItem[] | undefined =>
    Array.isArray(v[k]) ? readTasks(v[k]) : undefined;
  return {
    workspaceRoot: typeof v.workspaceRoot === 'string' ? v.workspaceRoot : undefined,
    tasks: items('tasks'),
    added: items('added'),
    updated: items('updated'),
    removed: Array.isArray(v.removed) ? v.removed.filter((r): r is string => typeof r === 'string') : undefined,
  };
}

/** `commandtree/commandSkills`: `{skills}` or a bare list; an entry without a name is skipped. */
export function readSkills(v: unknown): CommandSkill[] {
  return listIn(v, 'skills')
    .filter(isObject)
    .map((s) => {
      const name = typeof s.name === 'string' ? s.name : undefined;
      const id = typeof s.id === 'string' ? s.id : name;
      if (name === undefined || id === undefined) {
        return undefined;
      }
      const skill: CommandSkill = { id, name, icon: typeof s.icon === 'string' && s.icon !== '' ? s.icon : 'wand' };
      if (typeof s.description === 'string' && s.description !== '') {
        skill.description = s.description;
      }
      return skill;
    })
    .filter((s): s is CommandSkill => s !== undefined);
}

/** `commandtree/proposeSkill`; anything without the three strings is a protocol error. */
export function readProposal(v: unknown): SkillProposal {
  if (isObject(v) && typeof v.file === 'string' && typeof v.original === 'string' && typeof v.proposed === 'string') {
    return { file: v.file, original: v.original, proposed: v.proposed };
  }
  throw new Error('the server sent no proposal (file, original, proposed)');
}

/** A playbook (`.commandtree/playbooks/*.playbook.md`) as `commandtree/playbooks` lists it. */
export interface PlaybookInfo {
  name: string;
  description?: string;
  file: string;
  steps: string[];
  inputs: { name: string; description?: string; default?: string }[];
}

/** A SkillApi role on the wire (`commandtree/languageModelRequest`, `commandtree/context`). */
export type WireRole = 'agent' | 'assistant' | 'user';

export interface WireMessage {
  role: WireRole;
  content: string;
}

function isRole(v: unknown): v is WireRole {
  return v === 'agent' || v === 'assistant' || v === 'user';
}

/** `commandtree/playbooks`; an entry without a name is skipped. */
export function readPlaybooks(v: unknown): PlaybookInfo[] {
  return listIn(v, 'playbooks')
    .filter(isObject)
    .map((p) => {
      if (typeof p.name !== 'string') {
        return undefined;
      }
      const info: PlaybookInfo = {
        name: p.name,
        file: typeof p.file === 'string' ? p.file : '',
        steps: Array.isArray(p.steps) ? p.steps.filter((s): s is string => typeof s === 'string') : [],
        inputs: (Array.isArray(p.inputs) ? p.inputs : []).filter(isObject).flatMap((i) =>
          typeof i.name === 'string'
            ? [
                {
                  name: i.name,
                  ...(typeof i.description === 'string' ? { description: i.description } : {}),
                  ...(typeof i.default === 'string' ? { default: i.default } : {}),
                },
              ]
            : [],
        ),
      };
      if (typeof p.description === 'string' && p.description !== '') {
        info.description = p.description;
      }
      return info;
    })
    .filter((p): p is PlaybookInfo => p !== undefined);
}

/**
 * `commandtree/context`: what to send a model. The database is a file of the workspace, so the
 * server gives its rows as data (`send`: one `user` message naming where they come from, each
 * row fenced); an older server's bare rows are read with their `type` as the role.
 */
export function readContext(v: unknown): WireMessage[] {
  if (isObject(v) && Array.isArray(v.send)) {
    return v.send
      .filter(isObject)
      .flatMap((m) => (isRole(m.role) && typeof m.content === 'string' ? [{ role: m.role, content: m.content }] : []));
  }
  return listIn(v, 'messages')
    .filter(isObject)
    .flatMap((m) => {
      const role = m.type ?? m.role;
      return isRole(role) && typeof m.content === 'string' ? [{ role, content: m.content }] : [];
    });
}

/** `commandtree/runSkill`: the reply. */
export function readSkillReply(v: unknown): string {
  if (isObject(v) && typeof v.reply === 'string') {
    return v.reply;
  }
  throw new Error('the server sent no reply');
}

/** `commandtree/runPlaybook`: each step's id and reply, in order. */
export function readPlaybookRun(v: unknown): { id: string; reply: string }[] {
  return listIn(v, 'steps')
    .filter(isObject)
    .flatMap((s) => (typeof s.id === 'string' && typeof s.reply === 'string' ? [{ id: s.id, reply: s.reply }] : []));
}

/** The params of `commandtree/languageModelRequest`; a malformed request is an error. */
/** A tool the model is offered: `inputSchema` is a JSON Schema object. */
export interface WireTool {
  name: string;
  description: string;
  inputSchema?: Record<string, unknown>;
}

export interface LanguageModelRequest {
  messages: WireMessage[];
  options: {
    model?: string;
    modelOptions?: Record<string, unknown>;
    justification?: string;
    tools?: WireTool[];
    /** `required`: the model must answer by calling a tool (the summary pipeline's answer). */
    toolMode?: 'auto' | 'required';
  };
}

/** A tool call in the answer to `commandtree/languageModelRequest`. */
export interface WireToolCall {
  name: string;
  input: unknown;
}

export function readLanguageModelRequest(v: unknown): LanguageModelRequest {
  if (!isObject(v) || !Array.isArray(v.messages)) {
    throw new Error('commandtree/languageModelRequest: `messages` is missing');
  }
  const messages = v.messages.map((m, i): WireMessage => {
    if (isObject(m) && isRole(m.role) && typeof m.content === 'string') {
      return { role: m.role, content: m.content };
    }
    throw new Error(`commandtree/languageModelRequest: message ${i} is not {role: agent|assistant|user, content}`);
  });
  const o = isObject(v.options) ? v.options : {};
  const options: LanguageModelRequest['options'] = {};
  if (typeof o.model === 'string' && o.model !== '') {
    options.model = o.model;
  }
  if (isObject(o.modelOptions)) {
    options.modelOptions = o.modelOptions;
  }
  if (typeof o.justification === 'string' && o.justification !== '') {
    options.justification = o.justification;
  }
  if (Array.isArray(o.tools)) {
    options.tools = o.tools.map((t, i): WireTool => {
      if (isObject(t) && typeof t.name === 'string' && typeof t.description === 'string') {
        return isObject(t.inputSchema)
          ? { name: t.name, description: t.description, inputSchema: t.inputSchema }
          : { name: t.name, description: t.description };
      }
      throw new Error(`commandtree/languageModelRequest: tool ${i} is not {name, description, inputSchema?}`);
    });
  }
  if (o.toolMode === 'auto' || o.toolMode === 'required') {
    options.toolMode = o.toolMode;
  }
  return { messages, options };
}
