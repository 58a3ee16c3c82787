// Generated from crates/commandtree-lsp/src/protocol.rs (docs/lsp-protocol.md): do not
// edit. `UPDATE_PROTOCOL_TS=1 cargo test -p commandtree-lsp protocol_ts` writes it again.

export interface AddContextParams {
  content: string;
  conversation?: string;
  type: ContextType;
}

export interface AddContextResult {
  /** The conversation's messages now. */
  count: number;
  id: number;
}

export interface ApplySkillParams {
  id: string;
  original: string;
  proposed: string;
  skill: string;
}

export interface ApplySkillResult {
  file: string;
  /** False when `proposed` equals `original`. */
  written: boolean;
}

export interface ClearContextResult {
  removed: number;
}

export interface CommandFilesChangedParams {
  /** The changed files that count (absolute), sorted. */
  files: string[];
  id: string;
}

/** One discovered command. Serialises to the CommandItem JSON of PRODUCT.md §3. */
export interface CommandItem {
  category: string;
  command: string;
  cwd: string;
  description?: string;
  filePath: string;
  id: string;
  label: string;
  line?: number;
  params?: ParamDef[];
  securityWarning?: string;
  summary?: string;
  tags: string[];
  type: string;
}

export interface CommandSkillInfo {
  description?: string;
  /** A VS Code ThemeIcon id. */
  icon: string;
  /** The file name without `.md`. */
  id: string;
  name: string;
}

export interface CommandSkillsResult {
  skills: CommandSkillInfo[];
  warnings?: Warning[];
}

/** One stored message. */
export interface ContextMessage {
  content: string;
  conversation: string;
  createdAt: string;
  id: number;
  type: ContextType;
}

export interface ContextResult {
  /** Oldest first. */
  messages: ContextMessage[];
  /**
   * What a chat front end sends its model: the rows as workspace data in one `user`
   * message; empty without rows.
   */
  send: SkillMessage[];
}

/** Who a context message speaks for. */
export type ContextType = 'assistant' | 'user' | 'agent';

export interface ConversationParams {
  /** Default `default`. */
  conversation?: string;
}

/** What a command runs and what runs it. */
export interface Deps {
  /** The command itself (`how` is empty and `via` too). */
  command: Link;
  /** Cycles met in its closure, each as the labels around it (`["a", "b", "a"]`). */
  cycles: string[][];
  /** Every command whose closure holds it, depth first from its direct callers. */
  runBy: Link[];
  /** Its closure, depth first. */
  runs: Link[];
  /** More than [`closure::MAX_STEPS`] commands in a direction: the rest were not followed. */
  truncated: boolean;
  /** Steps of its closure that name no command found here. */
  unresolved: Missing[];
}

export interface DiscoverTasksParams {
  all?: boolean;
  excludePatterns?: string[];
  workspaceRoot: string;
}

export interface DiscoverTasksResult {
  /** How many commands were left out because they are hidden by default. */
  hidden?: number;
  /** In tree order, as `ct list --json` prints them. */
  tasks: CommandItem[];
  warnings?: Warning[];
}

export interface IdParams {
  id: string;
}

export interface LanguageModelAnswer {
  /** The id of the model that answered. */
  model: string;
  /** The whole reply's text. */
  text: string;
  /** The reply's tool calls, in order. */
  toolCalls?: ToolCallAnswer[];
}

export interface LanguageModelOptions {
  justification?: string;
  /** A model id or family; the client's default otherwise. */
  model?: string;
  /** Passed to the model as they are. */
  modelOptions?: Record<string, unknown>;
  toolMode?: ToolMode;
  tools?: LanguageModelTool[];
}

export interface LanguageModelParams {
  /** In order; roles are the SkillApi's. */
  messages: SkillMessage[];
  options: LanguageModelOptions;
}

/** A tool the model is offered. */
export interface LanguageModelTool {
  description: string;
  /** The tool's JSON Schema. */
  inputSchema: Record<string, unknown>;
  name: string;
}

/** A command in one of the two trees. */
export interface Link {
  filePath: string;
  /**
   * How the runner gets from the command above to this one: `prerequisite`, `call` or
   * `hook`.
   */
  how: string;
  id: string;
  label: string;
  line?: number;
  type: string;
  /**
   * The labels of the commands in between, outermost first: in `runs`, those from the
   * command down to this one (`build` → `lint` → `clean` gives `["lint"]` for `clean`); in
   * `runBy`, those from this one down to the command (`ci` → `build` → `lint` gives
   * `["build"]` for `ci` in `lint`'s view). Its length is the depth in the tree.
   */
  via: string[];
}

/** A step that names no command found here. */
export interface Missing {
  how: string;
  name: string;
  via: string[];
}

/**
 * The params of a request that takes none: `{}`. Whatever a client sends is accepted and
 * ignored, as before the protocol had types.
 */
export type NoParams = Record<string, never>;

export interface ParamDef {
  default?: string;
  description?: string;
  flag?: string;
  format?: ParamFormat;
  name: string;
  options?: string[];
}

/** How a parameter value is put on the command line (seed spec, "Parameter Formats"). */
export type ParamFormat = 'positional' | 'flag' | 'flag-equals' | 'dashdash-args';

/** A parameter value: numbers and booleans are taken as their text. */
export type ParamValue = string | number | boolean;

/** How the client runs a plan, by the command's type. */
export type PlanAction = 'terminal' | 'debug' | 'task' | 'preview';

export interface PlanParams {
  extraArgs?: string[];
  id: string;
  mode: RunMode;
  /** Values by parameter name or VS Code input id. */
  params?: Record<string, ParamValue>;
}

export interface PlanResult {
  action: PlanAction;
  /** `""` for a launch configuration or VS Code task whose program is not installed. */
  commandLine: string;
  cwd: string;
  /** The configuration from `.vscode/launch.json` as written. */
  debugConfiguration?: Record<string, unknown>;
  env: Record<string, string>;
  id: string;
  /** Ask the user before running when present. */
  securityWarning?: string;
  shell?: ShellDialect;
  staleSummary?: boolean;
  taskName?: string;
}

export interface PlaybookInfo {
  description?: string;
  file: string;
  inputs: PlaybookInput[];
  name: string;
  /** The steps' ids. */
  steps: string[];
}

export interface PlaybookInput {
  default?: string;
  description?: string;
  name: string;
}

/**
 * The `step` of a playbook's `$/progress` report: with `skill` when the step starts, with
 * `reply` when it is done.
 */
export interface PlaybookStep {
  id: string;
  /** 1-based. */
  index: number;
  reply?: string;
  skill?: string;
  total: number;
}

export interface PlaybooksResult {
  playbooks: PlaybookInfo[];
  /** Playbook files that could not be read (no line). */
  warnings?: Warning[];
}

/** One problem a run printed. */
export interface Problem {
  /** The tool's code for it (`E0308`, `TS2322`, an ESLint rule, `-Wunused-variable`). */
  code?: string;
  column?: number;
  /** The file as shown: relative to the workspace root when inside it, else absolute. */
  file: string;
  /** 1-based, as the tool printed it. */
  line: number;
  message: string;
  /** The 1-based line of the output it was read from (its last line when it spans several). */
  outputLine: number;
  /** The file lies outside the workspace root. */
  outsideRoot?: boolean;
  /**
   * The file's absolute path (the run's folder joined with what it printed, `.` and `..`
   * taken out; links are not resolved and the file need not exist).
   */
  path: string;
  severity: Severity;
  /**
   * The format that read it (`gcc`, `rustc`, `rust-panic`, `tsc`, `msbuild`, `eslint`,
   * `go`, `plain`, `python`) or the name of the user's pattern.
   */
  source: string;
}

/** `output` (with `cwd`), or `runId`. */
export interface ProblemsParams {
  /** The folder the run ran in (relative paths are taken from the root); default the root. */
  cwd?: string;
  /** A run's output as the client saw it (escape sequences are dropped by the server). */
  output?: string;
  /** A run of the history whose log is read. */
  runId?: number;
}

export interface ProblemsResult {
  problems: Problem[];
  /** The run whose log was read (with `runId`). */
  run?: Run;
  /** User patterns left out (`[[problems.patterns]]` that cannot be used). */
  warnings?: Warning[];
}

/** A client's work-done token (LSP's `ProgressToken`). */
export type ProgressToken = number | string;

export interface ProposeSkillParams {
  id: string;
  model?: string;
  /** A command skill's id or name. */
  skill: string;
  workDoneToken?: ProgressToken;
}

export interface ProposeSkillResult {
  file: string;
  original: string;
  proposed: string;
}

export interface QuickMoveParams {
  id: string;
  /** 0-based among the Quick Launch commands present now; past the end means last. */
  position: number;
}

export interface QuickMoveResult {
  id: string;
  /** The new Quick Launch order. */
  ids: string[];
  position: number;
}

export interface QuickResult {
  commands: CommandItem[];
  /** Quick Launch in its order. */
  ids: string[];
}

export interface RestartParams {
  /** Default `newTerminal`. */
  mode?: RunMode;
  runId: number;
}

/** One run, as `ct runs --json` prints it. */
export interface Run {
  commandId: string;
  commandLine: string;
  cwd: string;
  durationMs: number | null;
  exitCode: number | null;
  label: string;
  mode: string;
  runId: number;
  startedAt: string;
  status: string;
}

export interface RunEndedParams {
  /** Left out when the editor cannot tell (a terminal closed, a debug session ended). */
  exitCode?: number;
  runId: number;
  /** The user stopped it in the editor. */
  stopped?: boolean;
}

export type RunMode = 'newTerminal' | 'currentTerminal' | 'debug';

export interface RunPlaybookParams {
  conversation?: string;
  /** Values by input name; non-strings are taken as JSON text. */
  inputs?: Record<string, unknown>;
  name: string;
  workDoneToken?: ProgressToken;
  yes?: boolean;
}

export interface RunPlaybookResult {
  name: string;
  steps: StepReply[];
}

export interface RunSkillParams {
  /** Send the stored context first (default true). */
  context?: boolean;
  conversation?: string;
  /** `@task --prompt "..."`, as in a playbook step. */
  invocation?: string;
  params?: Record<string, unknown>;
  /** Or the skill's name with its flags in `params`. */
  skill?: string;
  workDoneToken?: ProgressToken;
  yes?: boolean;
}

export interface RunSkillResult {
  reply: string;
  skill: string;
}

export interface RunStartedParams {
  extraArgs?: string[];
  id: string;
  /** How it was started, as for `plan`. */
  mode: RunMode;
  /** The values it was started with, as for `plan`. */
  params?: Record<string, ParamValue>;
  /** The process it runs under (a terminal's shell, a task's process) when the editor knows it. */
  pid?: number;
}

export interface RunStartedResult {
  run: Run;
}

export interface RunState {
  /**
   * How long it has been running, or how long it took; left out when unknown. For a run
   * going on it is the time at the answer: the client counts on from `startedAt`.
   */
  elapsedMs?: number;
  run: Run;
}

/**
 * What runs now and how each command last ran: the answer of `running` and the params of
 * `runsChanged`.
 */
export interface RunningResult {
  /** The newest run of each command that ran (going on or ended), newest first. */
  last: RunState[];
  /** The runs going on now (from any front end), newest first. */
  running: RunState[];
}

export interface RunsParams {
  /** Default 20. */
  limit?: number;
}

export interface RunsResult {
  /** Newest first. */
  runs: Run[];
}

export interface SearchHit {
  command: CommandItem;
  /** The query is the command's name or one of its aliases. */
  exact: boolean;
  lexicalRank: number | null;
  score: number;
  semanticRank: number | null;
  similarity: number | null;
}

export interface SearchParams {
  /** Default 10. */
  limit?: number;
  query: string;
  /** 0–1, default 0.3. */
  threshold?: number;
  workDoneToken?: ProgressToken;
}

export interface SearchResult {
  /** Best first. */
  results: SearchHit[];
}

export interface SetTrustedParams {
  /** The editor's workspace trust. */
  trusted: boolean;
}

/** How bad a problem is. */
export type Severity = 'error' | 'warning' | 'info' | 'hint';

/** The shell dialect a command line is written for (not a program). */
export type ShellDialect = 'posix' | 'fish' | 'powershell' | 'cmd';

export interface ShowResult {
  command: CommandItem;
  staleSummary?: boolean;
  /** The ids of the steps it pulls in, transitively. */
  steps: string[];
}

export interface SkillMessage {
  content: string;
  role: SkillRole;
}

/** A chat role at the SkillApi level. */
export type SkillRole = 'agent' | 'assistant' | 'user';

/** A sort order's name (`commandtree.sortOrder`). */
export type SortName = 'folder' | 'name' | 'type';

export interface StarParams {
  id: string;
  starred: boolean;
}

export interface StarResult {
  changed: boolean;
  id: string;
  starred: boolean;
}

export interface StepReply {
  id: string;
  reply: string;
}

/** One of the two. */
export interface StopParams {
  /** A command: every run of it going on now. */
  id?: string;
  runId?: number;
}

export interface StopResult {
  /** The runs as they are after stopping. */
  stopped: Run[];
}

export interface SummarizeParams {
  force?: boolean;
  /** All commands when left out. */
  ids?: string[];
  workDoneToken?: ProgressToken;
}

export interface SummarizeResult {
  /** Commands whose summary was already current. */
  current: number;
  failed: SummaryFailure[];
  notAttempted: number;
  /** Why the batch stopped early. */
  stopped?: string;
  summarized: Summarized[];
}

export interface Summarized {
  id: string;
  label: string;
  securityWarning?: string;
  summary: string;
}

export interface SummaryFailure {
  error: string;
  id: string;
  label: string;
}

/** One tag with the commands (present now) that carry it, in Quick Launch/display order. */
export interface TagEntry {
  commands: string[];
  name: string;
}

export interface TagParams {
  add: boolean;
  id: string;
  tag: string;
}

export interface TagResult {
  changed: boolean;
  /** On removal: the `.vscode/commandtree.json` that assigns the tag, so it comes back. */
  fromConfig?: string;
  id: string;
  tag: string;
  tagged: boolean;
}

export interface TagsResult {
  tags: TagEntry[];
}

export interface TasksChangedDelta {
  added: CommandItem[];
  /** Ids. */
  removed: string[];
  updated: CommandItem[];
  workspaceRoot: string;
}

export interface TasksChangedFull {
  /** Every listed command now, in no particular order. */
  tasks: CommandItem[];
  workspaceRoot: string;
}

/** The form the client negotiated in `initialize` (`tasksChangedDelta`). */
export type TasksChangedParams = TasksChangedFull | TasksChangedDelta;

export interface ToolCallAnswer {
  /** The tool's arguments. */
  input: unknown;
  name: string;
}

export type ToolMode = 'required';

export interface TreeCategory {
  children: TreeNode[];
  count: number;
  label: string;
  /** The command type (`shell`, `npm`, ...). */
  type: string;
}

export type TreeNode = {
  children: TreeNode[];
  kind: 'folder';
  label: string;
} | {
  command: CommandItem;
  kind: 'command';
};

export interface TreeParams {
  all?: boolean;
  sort?: SortName;
  tag?: string;
}

export interface TreeResult {
  categories: TreeCategory[];
  hidden: number;
  warnings?: Warning[];
}

/** A problem found while discovering. Never fatal: discovery goes on. */
export interface Warning {
  file: string;
  line?: number;
  message: string;
}

export interface WatchCommandParams {
  id: string;
  /**
   * `true` starts watching (again, with the command's folders as they are now), `false`
   * stops.
   */
  watch: boolean;
}

export interface WatchCommandResult {
  /** The folders watched (empty when not watching). */
  folders: string[];
  /** The command's id (the params may name it another way). */
  id: string;
  watching: boolean;
}

/** The requests the server answers, by method. */
export interface Requests {
  'commandtree/discoverTasks': { params: DiscoverTasksParams; result: DiscoverTasksResult };
  'commandtree/watchFiles': { params: NoParams; result: null };
  'commandtree/tree': { params: TreeParams; result: TreeResult };
  'commandtree/quick': { params: NoParams; result: QuickResult };
  'commandtree/tags': { params: NoParams; result: TagsResult };
  'commandtree/tag': { params: TagParams; result: TagResult };
  'commandtree/star': { params: StarParams; result: StarResult };
  'commandtree/quickMove': { params: QuickMoveParams; result: QuickMoveResult };
  'commandtree/plan': { params: PlanParams; result: PlanResult };
  'commandtree/show': { params: IdParams; result: ShowResult };
  'commandtree/runs': { params: RunsParams; result: RunsResult };
  'commandtree/running': { params: NoParams; result: RunningResult };
  'commandtree/stop': { params: StopParams; result: StopResult };
  'commandtree/restart': { params: RestartParams; result: PlanResult };
  'commandtree/problems': { params: ProblemsParams; result: ProblemsResult };
  'commandtree/watchCommand': { params: WatchCommandParams; result: WatchCommandResult };
  'commandtree/runStarted': { params: RunStartedParams; result: RunStartedResult };
  'commandtree/runEnded': { params: RunEndedParams; result: RunStartedResult };
  'commandtree/deps': { params: IdParams; result: Deps };
  'commandtree/summarize': { params: SummarizeParams; result: SummarizeResult };
  'commandtree/search': { params: SearchParams; result: SearchResult };
  'commandtree/commandSkills': { params: NoParams; result: CommandSkillsResult };
  'commandtree/proposeSkill': { params: ProposeSkillParams; result: ProposeSkillResult };
  'commandtree/applySkill': { params: ApplySkillParams; result: ApplySkillResult };
  'commandtree/runSkill': { params: RunSkillParams; result: RunSkillResult };
  'commandtree/playbooks': { params: NoParams; result: PlaybooksResult };
  'commandtree/runPlaybook': { params: RunPlaybookParams; result: RunPlaybookResult };
  'commandtree/context': { params: ConversationParams; result: ContextResult };
  'commandtree/addContext': { params: AddContextParams; result: AddContextResult };
  'commandtree/clearContext': { params: ConversationParams; result: ClearContextResult };
}

/** The requests the server sends the client, by method. */
export interface ServerRequests {
  'commandtree/languageModelRequest': { params: LanguageModelParams; result: LanguageModelAnswer };
}

/** The notifications the server sends, by method: their params. */
export interface ServerNotifications {
  'commandtree/tasksChanged': TasksChangedParams;
  'commandtree/runsChanged': RunningResult;
  'commandtree/commandFilesChanged': CommandFilesChangedParams;
}

/** The client notifications the server reads, by method: their params. */
export interface ClientNotifications {
  'commandtree/setTrusted': SetTrustedParams;
}

/** Every request the server answers. */
export const REQUESTS: readonly (keyof Requests)[] = [
  'commandtree/discoverTasks',
  'commandtree/watchFiles',
  'commandtree/tree',
  'commandtree/quick',
  'commandtree/tags',
  'commandtree/tag',
  'commandtree/star',
  'commandtree/quickMove',
  'commandtree/plan',
  'commandtree/show',
  'commandtree/runs',
  'commandtree/running',
  'commandtree/stop',
  'commandtree/restart',
  'commandtree/problems',
  'commandtree/watchCommand',
  'commandtree/runStarted',
  'commandtree/runEnded',
  'commandtree/deps',
  'commandtree/summarize',
  'commandtree/search',
  'commandtree/commandSkills',
  'commandtree/proposeSkill',
  'commandtree/applySkill',
  'commandtree/runSkill',
  'commandtree/playbooks',
  'commandtree/runPlaybook',
  'commandtree/context',
  'commandtree/addContext',
  'commandtree/clearContext',
];
