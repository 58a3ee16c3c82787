// The `ct lsp` protocol (docs/lsp-protocol.md) as the extension uses it: the wire types come
// from protocol.generated.ts (made from the server's types), and tolerant readers turn answers
// into the views' shapes. The readers accept the documented shape and the close variants a
// server version may send (a bare array instead of a wrapper object, `kind` or `type` as the
// node tag), so a small protocol difference degrades one feature instead of emptying the whole
// tree; they name fields through the wire types (`fields`), so a field renamed on the server
// fails to compile here.

import type * as wire from './protocol.generated';

export type ParamFormat = wire.ParamFormat;
export type ParamDef = wire.ParamDef;
export type RunMode = wire.RunMode;
/** How the client runs a plan; upstream's routing per type (launch, vscode, markdown, rest). */
export type PlanAction = wire.PlanAction;

/** PRODUCT.md §3 CommandItem, as `ct list --json` and the server emit it. */
export interface CommandItem extends Omit<wire.CommandItem, 'cwd'> {
  /** Left out by older servers. */
  cwd?: string;
  /** Sent by servers that know it; otherwise derived by `isPrivate`. */
  private?: boolean;
}

/** A plan as the runner uses it: empty strings and objects left out. */
export interface Plan {
  action: PlanAction;
  commandLine: string;
  cwd?: string;
  env?: Record<string, string>;
  /** The shell dialect the command line is written for (`posix`, `fish`, ...), not a program. */
  shell?: wire.ShellDialect;
  debugConfiguration?: Record<string, unknown>;
  taskName?: string;
  securityWarning?: string;
  staleSummary?: boolean;
}

/** A command skill (`.commandtree/skills/*.md`) as `commandtree/commandSkills` lists it. */
export type CommandSkill = wire.CommandSkillInfo;

/** `commandtree/proposeSkill`: the file and the model's whole new version of it. */
export type SkillProposal = wire.ProposeSkillResult;

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

/** The keys of `T`, of every member when `T` is a union. */
type KeysOf<T> = T extends unknown ? keyof T : never;

/** An answer's fields, named as the wire type `T` names them, each still to be checked. */
export type Fields<T> = Partial<Record<KeysOf<T>, unknown>>;

/** `v` read as a `T`: its fields by `T`'s names (none when it is not an object). */
export function fields<T>(v: unknown): Fields<T> {
  return isObject(v) ? (v as Fields<T>) : {};
}

/** A field name of the wire type `T`, checked by the compiler. */
function key<T>(k: KeysOf<T> & string): string {
  return k;
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
  return listIn(v, key<wire.DiscoverTasksResult | wire.TasksChangedFull>('tasks'), 'commands', 'items').filter(isCommandItem).map((i) => toItem(i as unknown as Json));
}

export function readWarnings(v: unknown): { file: string; line?: number; message: string }[] {
  return listIn(fields<wire.DiscoverTasksResult>(v).warnings)
    .map((e) => fields<wire.Warning>(e))
    .map((w) => ({
      file: typeof w.file === 'string' ? w.file : '',
      line: typeof w.line === 'number' ? w.line : undefined,
      message: typeof w.message === 'string' ? w.message : JSON.stringify(w),
    }));
}

export function readQuick(v: unknown): string[] {
  return listIn(v, key<wire.QuickResult>('ids'), 'quick', key<wire.QuickResult>('commands'), 'tasks')
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
  const node = fields<wire.TreeNode>(v);
  const tag = node.kind ?? v.nodeType ?? v.node;
  if (tag === 'folder' || (tag === undefined && Array.isArray(node.children))) {
    const children = listIn(node.children).map((c) => readNode(c, known)).filter((c): c is TreeNode => c !== undefined);
    return { kind: 'folder', label: typeof node.label === 'string' ? node.label : '', children };
  }
  for (const k of ['item', key<wire.TreeNode>('command'), 'task']) {
    const inner = v[k];
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
  return listIn(v, key<wire.TreeResult>('categories'), 'tree', 'nodes')
    .filter(isObject)
    .map((json) => {
      const c = fields<wire.TreeCategory>(json);
      const children = listIn(c.children).map((n) => readNode(n, known)).filter((n): n is TreeNode => n !== undefined);
      const label = typeof c.label === 'string' ? c.label : typeof c.type === 'string' ? c.type : '';
      return {
        type: typeof c.type === 'string' ? c.type : typeof json.kind === 'string' && json.kind !== 'category' ? json.kind : '',
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

export function readPlan(answer: unknown): Plan {
  const v = fields<wire.PlanResult>(answer);
  if (typeof v.commandLine !== 'string') {
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
    shell: isShell(v.shell) ? v.shell : undefined,
    debugConfiguration: isObject(v.debugConfiguration) ? v.debugConfiguration : undefined,
    taskName: typeof v.taskName === 'string' && v.taskName !== '' ? v.taskName : undefined,
    securityWarning:
      typeof v.securityWarning === 'string' && v.securityWarning !== '' ? v.securityWarning : undefined,
    staleSummary: v.staleSummary === true ? true : undefined,
  };
}

const SHELLS: readonly unknown[] = ['posix', 'fish', 'powershell', 'cmd'] satisfies wire.ShellDialect[];

function isShell(v: unknown): v is wire.ShellDialect {
  return SHELLS.includes(v);
}

export function readSearch(v: unknown): SearchHit[] {
  return listIn(v, key<wire.SearchResult>('results'), 'hits', 'items')
    .filter(isObject)
    .map((json) => {
      const h = fields<wire.SearchHit>(json);
      const score = typeof h.score === 'number' ? h.score : 0;
      const inner = isCommandItem(json.item) ? json.item : isCommandItem(h.command) ? h.command : json;
      return isCommandItem(inner) ? { item: toItem(inner as unknown as Json), score } : undefined;
    })
    .filter((h): h is SearchHit => h !== undefined);
}

/** `commandtree/show`: `{command, steps}`; a bare CommandItem is accepted too. */
export function readShown(v: unknown): CommandItem | undefined {
  const shown = fields<wire.ShowResult>(v);
  const inner = isCommandItem(shown.command) ? shown.command : v;
  return isCommandItem(inner) ? toItem(inner as unknown as Json) : undefined;
}

export function readTasksChanged(params: unknown): TasksChanged {
  const v = fields<wire.TasksChangedParams>(params);
  const items = (list: unknown): CommandItem[] | undefined => (Array.isArray(list) ? readTasks(list) : undefined);
  return {
    workspaceRoot: typeof v.workspaceRoot === 'string' ? v.workspaceRoot : undefined,
    tasks: items(v.tasks),
    added: items(v.added),
    updated: items(v.updated),
    removed: Array.isArray(v.removed) ? v.removed.filter((r): r is string => typeof r === 'string') : undefined,
  };
}

/** `commandtree/commandSkills`: `{skills}` or a bare list; an entry without a name is skipped. */
export function readSkills(v: unknown): CommandSkill[] {
  return listIn(v, key<wire.CommandSkillsResult>('skills'))
    .filter(isObject)
    .map((json) => {
      const s = fields<wire.CommandSkillInfo>(json);
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
export function readProposal(answer: unknown): SkillProposal {
  const v = fields<wire.ProposeSkillResult>(answer);
  if (typeof v.file === 'string' && typeof v.original === 'string' && typeof v.proposed === 'string') {
    return { file: v.file, original: v.original, proposed: v.proposed };
  }
  throw new Error('the server sent no proposal (file, original, proposed)');
}

/** A playbook (`.commandtree/playbooks/*.playbook.md`) as `commandtree/playbooks` lists it. */
export type PlaybookInfo = wire.PlaybookInfo;

/** A SkillApi role on the wire (`commandtree/languageModelRequest`, `commandtree/context`). */
export type WireRole = wire.SkillRole;

export type WireMessage = wire.SkillMessage;

const ROLES: readonly unknown[] = ['agent', 'assistant', 'user'] satisfies WireRole[];

function isRole(v: unknown): v is WireRole {
  return ROLES.includes(v);
}

/** `commandtree/playbooks`; an entry without a name is skipped. */
export function readPlaybooks(v: unknown): PlaybookInfo[] {
  return listIn(v, key<wire.PlaybooksResult>('playbooks'))
    .map((json) => fields<wire.PlaybookInfo>(json))
    .map((p) => {
      if (typeof p.name !== 'string') {
        return undefined;
      }
      const info: PlaybookInfo = {
        name: p.name,
        file: typeof p.file === 'string' ? p.file : '',
        steps: Array.isArray(p.steps) ? p.steps.filter((s): s is string => typeof s === 'string') : [],
        inputs: listIn(p.inputs)
          .map((json) => fields<wire.PlaybookInput>(json))
          .flatMap((i) =>
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
  const context = fields<wire.ContextResult>(v);
  if (Array.isArray(context.send)) {
    return context.send
      .map((json) => fields<wire.SkillMessage>(json))
      .flatMap((m) => (isRole(m.role) && typeof m.content === 'string' ? [{ role: m.role, content: m.content }] : []));
  }
  return listIn(v, key<wire.ContextResult>('messages'))
    .map((json) => fields<wire.ContextMessage | wire.SkillMessage>(json))
    .flatMap((m) => {
      const role = m.type ?? m.role;
      return isRole(role) && typeof m.content === 'string' ? [{ role, content: m.content }] : [];
    });
}

/** `commandtree/runSkill`: the reply. */
export function readSkillReply(v: unknown): string {
  const reply = fields<wire.RunSkillResult>(v).reply;
  if (typeof reply === 'string') {
    return reply;
  }
  throw new Error('the server sent no reply');
}

/** `commandtree/runPlaybook`: each step's id and reply, in order. */
export function readPlaybookRun(v: unknown): wire.StepReply[] {
  return listIn(v, key<wire.RunPlaybookResult>('steps'))
    .map((json) => fields<wire.StepReply>(json))
    .flatMap((s) => (typeof s.id === 'string' && typeof s.reply === 'string' ? [{ id: s.id, reply: s.reply }] : []));
}

/** A tool the model is offered: `inputSchema` is a JSON Schema object, left out when none came. */
export type WireTool = Omit<wire.LanguageModelTool, 'inputSchema'> & Partial<Pick<wire.LanguageModelTool, 'inputSchema'>>;

/** The params of `commandtree/languageModelRequest`, checked. */
export interface LanguageModelRequest {
  messages: WireMessage[];
  options: Omit<wire.LanguageModelOptions, 'tools'> & { tools?: WireTool[] };
}

/** A tool call in the answer to `commandtree/languageModelRequest`. */
export type WireToolCall = wire.ToolCallAnswer;

/** Reads the params of `commandtree/languageModelRequest`; a malformed request is an error. */
export function readLanguageModelRequest(params: unknown): LanguageModelRequest {
  const v = fields<wire.LanguageModelParams>(params);
  if (!Array.isArray(v.messages)) {
    throw new Error('commandtree/languageModelRequest: `messages` is missing');
  }
  const messages = v.messages.map((json, i): WireMessage => {
    const m = fields<wire.SkillMessage>(json);
    if (isRole(m.role) && typeof m.content === 'string') {
      return { role: m.role, content: m.content };
    }
    throw new Error(`commandtree/languageModelRequest: message ${i} is not {role: agent|assistant|user, content}`);
  });
  const o = fields<wire.LanguageModelOptions>(v.options);
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
    options.tools = o.tools.map((json, i): WireTool => {
      const t = fields<wire.LanguageModelTool>(json);
      if (typeof t.name === 'string' && typeof t.description === 'string') {
        return isObject(t.inputSchema)
          ? { name: t.name, description: t.description, inputSchema: t.inputSchema }
          : { name: t.name, description: t.description };
      }
      throw new Error(`commandtree/languageModelRequest: tool ${i} is not {name, description, inputSchema?}`);
    });
  }
  if (o.toolMode === 'required') {
    options.toolMode = o.toolMode;
  }
  return { messages, options };
}

/** A run of the history, or `undefined` when the object lacks what the views need. */
export function readRun(v: unknown): wire.Run | undefined {
  const r = fields<wire.Run>(v);
  if (typeof r.runId !== 'number' || typeof r.commandId !== 'string' || typeof r.startedAt !== 'string') {
    return undefined;
  }
  const num = (x: unknown): number | null => (typeof x === 'number' ? x : null);
  const str = (x: unknown): string => (typeof x === 'string' ? x : '');
  return {
    runId: r.runId,
    commandId: r.commandId,
    label: str(r.label),
    commandLine: str(r.commandLine),
    cwd: str(r.cwd),
    startedAt: r.startedAt,
    durationMs: num(r.durationMs),
    exitCode: num(r.exitCode),
    mode: str(r.mode),
    status: str(r.status),
  };
}

function readStates(v: unknown): wire.RunState[] {
  return listIn(v).flatMap((json) => {
    const s = fields<wire.RunState>(json);
    const run = readRun(s.run);
    if (!run) {
      return [];
    }
    return [typeof s.elapsedMs === 'number' ? { run, elapsedMs: s.elapsedMs } : { run }];
  });
}

/** `commandtree/running`'s answer and `commandtree/runsChanged`'s params. */
export function readRunning(v: unknown): wire.RunningResult {
  const r = fields<wire.RunningResult>(v);
  return { running: readStates(r.running), last: readStates(r.last) };
}

/** The run in a `runStarted` or `runEnded` answer. */
export function readRecorded(v: unknown): wire.Run | undefined {
  return readRun(fields<wire.RunStartedResult>(v).run);
}

/** The folders a `watchCommand` answer says are watched. */
export function readWatched(v: unknown): string[] {
  return listIn(fields<wire.WatchCommandResult>(v).folders).filter((f): f is string => typeof f === 'string');
}

/** The command a `commandFilesChanged` notification is about, and its files. */
export function readFilesChanged(v: unknown): { id: string; files: string[] } | undefined {
  const p = fields<wire.CommandFilesChangedParams>(v);
  if (typeof p.id !== 'string') {
    return undefined;
  }
  return { id: p.id, files: listIn(p.files).filter((f): f is string => typeof f === 'string') };
}

export function readStopped(v: unknown): wire.Run[] {
  return listIn(fields<wire.StopResult>(v).stopped).flatMap((r) => readRun(r) ?? []);
}

const SEVERITIES: readonly unknown[] = ['error', 'warning', 'info', 'hint'] satisfies wire.Severity[];

export function readProblems(v: unknown): wire.Problem[] {
  return listIn(fields<wire.ProblemsResult>(v).problems).flatMap((json): wire.Problem[] => {
    const p = fields<wire.Problem>(json);
    if (typeof p.path !== 'string' || typeof p.line !== 'number' || typeof p.message !== 'string') {
      return [];
    }
    const severity = SEVERITIES.includes(p.severity) ? (p.severity as wire.Severity) : 'error';
    return [
      {
        file: typeof p.file === 'string' ? p.file : p.path,
        path: p.path,
        line: p.line,
        ...(typeof p.column === 'number' ? { column: p.column } : {}),
        severity,
        message: p.message,
        ...(typeof p.code === 'string' ? { code: p.code } : {}),
        source: typeof p.source === 'string' ? p.source : 'ct',
        outputLine: typeof p.outputLine === 'number' ? p.outputLine : 0,
      },
    ];
  });
}

function readLink(v: unknown): wire.Link | undefined {
  const l = fields<wire.Link>(v);
  if (typeof l.id !== 'string' || typeof l.label !== 'string') {
    return undefined;
  }
  return {
    id: l.id,
    label: l.label,
    type: typeof l.type === 'string' ? l.type : '',
    filePath: typeof l.filePath === 'string' ? l.filePath : '',
    ...(typeof l.line === 'number' ? { line: l.line } : {}),
    how: typeof l.how === 'string' ? l.how : '',
    via: listIn(l.via).filter((x): x is string => typeof x === 'string'),
  };
}

/** `commandtree/deps`. */
export function readDeps(v: unknown): wire.Deps {
  const d = fields<wire.Deps>(v);
  const command = readLink(d.command);
  if (!command) {
    throw new Error('the server sent no command for these dependencies');
  }
  return {
    command,
    runs: listIn(d.runs).flatMap((l) => readLink(l) ?? []),
    runBy: listIn(d.runBy).flatMap((l) => readLink(l) ?? []),
    unresolved: listIn(d.unresolved).flatMap((json) => {
      const m = fields<wire.Missing>(json);
      return typeof m.name === 'string'
        ? [{ name: m.name, how: typeof m.how === 'string' ? m.how : '', via: listIn(m.via).filter((x): x is string => typeof x === 'string') }]
        : [];
    }),
    cycles: listIn(d.cycles).map((c) => listIn(c).filter((x): x is string => typeof x === 'string')),
    truncated: d.truncated === true,
  };
}
