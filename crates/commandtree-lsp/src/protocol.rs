//! The `commandtree/*` methods of `docs/lsp-protocol.md` as types: one [`Request`] or
//! [`Notification`] per method, with its params and result. The server answers, sends and reads
//! these types only, so the wire is what they serialize to; their JSON schemas hold the
//! document (`protocol_doc`) and the VS Code extension's `src/protocol.generated.ts`
//! (`protocol_ts`) to them.
//!
//! Field names are camelCase on the wire; empty optional fields are left out of what the server
//! sends, as the document says.

use commandtree_core::{CommandItem, Warning};
use commandtree_engine::deps::Deps;
use commandtree_engine::problems::Problem;
use commandtree_engine::tags::TagEntry;
use commandtree_exec::history::Run;
use commandtree_skills::SkillMessage;
use commandtree_skills::context::{ContextMessage, ContextType};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A request: `METHOD` with its params and result.
pub trait Request {
    const METHOD: &'static str;
    type Params: JsonSchema;
    type Result: JsonSchema;
}

/// A notification: `METHOD` with its params.
pub trait Notification {
    const METHOD: &'static str;
    type Params: JsonSchema;
}

/// Who sends a method, which decides whether its params are read or written by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The client asks, the server answers.
    ClientRequest,
    /// The server asks, the client answers.
    ServerRequest,
    ServerNotification,
    ClientNotification,
}

/// One method and how to make its params' and result's schemas.
#[derive(Clone, Copy)]
pub struct MethodInfo {
    pub method: &'static str,
    pub direction: Direction,
    pub params: fn(&mut SchemaGenerator) -> Schema,
    /// `None` for a notification.
    pub result: Option<fn(&mut SchemaGenerator) -> Schema>,
}

fn schema_of<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

impl MethodInfo {
    pub const fn request<R: Request>(direction: Direction) -> MethodInfo {
        MethodInfo {
            method: R::METHOD,
            direction,
            params: schema_of::<R::Params>,
            result: Some(schema_of::<R::Result>),
        }
    }

    pub const fn notification<N: Notification>(direction: Direction) -> MethodInfo {
        MethodInfo {
            method: N::METHOD,
            direction,
            params: schema_of::<N::Params>,
            result: None,
        }
    }
}

/// The requests the server sends the client.
pub const SERVER_REQUESTS: &[MethodInfo] = &[MethodInfo::request::<LanguageModelRequest>(
    Direction::ServerRequest,
)];

/// The notifications the server sends.
pub const SERVER_NOTIFICATIONS: &[MethodInfo] = &[
    MethodInfo::notification::<TasksChanged>(Direction::ServerNotification),
    MethodInfo::notification::<RunsChanged>(Direction::ServerNotification),
    MethodInfo::notification::<CommandFilesChanged>(Direction::ServerNotification),
];

/// The client notifications the server reads (besides LSP's own).
pub const CLIENT_NOTIFICATIONS: &[MethodInfo] = &[MethodInfo::notification::<SetTrusted>(
    Direction::ClientNotification,
)];

/// Types the extension reads outside any method's params or result: the `step` of a playbook's
/// `$/progress` reports.
pub fn extra_schemas(g: &mut SchemaGenerator) -> Vec<Schema> {
    vec![g.subschema_for::<PlaybookStep>()]
}

macro_rules! request {
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty => $result:ty) => {
        $(#[$doc])*
        pub enum $name {}
        impl Request for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
            type Result = $result;
        }
    };
}

macro_rules! notification {
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty) => {
        $(#[$doc])*
        pub enum $name {}
        impl Notification for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
        }
    };
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The params of a request that takes none: `{}`. Whatever a client sends is accepted and
/// ignored, as before the protocol had types.
#[derive(Debug, Clone, Copy, Default, Serialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct NoParams {}

impl<'de> Deserialize<'de> for NoParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(NoParams {})
    }
}

/// A client's work-done token (LSP's `ProgressToken`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ProgressToken {
    Number(i64),
    String(String),
}

request!(DiscoverTasks, "commandtree/discoverTasks", DiscoverTasksParams => DiscoverTasksResult);

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverTasksParams {
    pub workspace_root: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_patterns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub all: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiscoverTasksResult {
    /// In tree order, as `ct list --json` prints them.
    pub tasks: Vec<CommandItem>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// How many commands were left out because they are hidden by default.
    #[serde(skip_serializing_if = "is_zero")]
    pub hidden: usize,
}

request!(WatchFiles, "commandtree/watchFiles", NoParams => ());

request!(Tree, "commandtree/tree", TreeParams => TreeResult);

/// A sort order's name (`commandtree.sortOrder`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SortName {
    Folder,
    Name,
    Type,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct TreeParams {
    // Read as text so a wrong name gets the server's own message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<SortName>")]
    pub sort: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub all: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TreeResult {
    pub categories: Vec<TreeCategory>,
    pub hidden: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TreeCategory {
    /// The command type (`shell`, `npm`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    pub label: String,
    pub count: usize,
    pub children: Vec<TreeNode>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TreeNode {
    Folder {
        label: String,
        children: Vec<TreeNode>,
    },
    Command {
        // Boxed: a folder is far smaller than a command.
        command: Box<CommandItem>,
    },
}

request!(Quick, "commandtree/quick", NoParams => QuickResult);

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QuickResult {
    /// Quick Launch in its order.
    pub ids: Vec<String>,
    pub commands: Vec<CommandItem>,
}

request!(Tags, "commandtree/tags", NoParams => TagsResult);

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TagsResult {
    pub tags: Vec<TagEntry>,
}

request!(Tag, "commandtree/tag", TagParams => TagResult);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TagParams {
    pub id: String,
    pub tag: String,
    pub add: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TagResult {
    pub id: String,
    pub tag: String,
    pub tagged: bool,
    pub changed: bool,
    /// On removal: the `.vscode/commandtree.json` that assigns the tag, so it comes back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_config: Option<PathBuf>,
}

request!(Star, "commandtree/star", StarParams => StarResult);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StarParams {
    pub id: String,
    pub starred: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StarResult {
    pub id: String,
    pub starred: bool,
    pub changed: bool,
}

request!(QuickMove, "commandtree/quickMove", QuickMoveParams => QuickMoveResult);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QuickMoveParams {
    pub id: String,
    /// 0-based among the Quick Launch commands present now; past the end means last.
    pub position: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QuickMoveResult {
    pub id: String,
    pub position: usize,
    /// The new Quick Launch order.
    pub ids: Vec<String>,
}

request!(Plan, "commandtree/plan", PlanParams => PlanResult);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RunMode {
    NewTerminal,
    CurrentTerminal,
    Debug,
}

/// A parameter value: numbers and booleans are taken as their text.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum ParamValue {
    String(String),
    Number(f64),
    Bool(bool),
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanParams {
    pub id: String,
    pub mode: RunMode,
    /// Values by parameter name or VS Code input id.
    // Read as JSON so a wrong kind of value is named by the server.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[schemars(with = "BTreeMap<String, ParamValue>")]
    pub params: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_args: Vec<String>,
}

/// How the client runs a plan, by the command's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PlanAction {
    Terminal,
    Debug,
    Task,
    Preview,
}

/// The shell dialect a command line is written for (not a program).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ShellDialect {
    Posix,
    Fish,
    PowerShell,
    Cmd,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanResult {
    pub id: String,
    pub action: PlanAction,
    /// `""` for a launch configuration or VS Code task whose program is not installed.
    pub command_line: String,
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell: Option<ShellDialect>,
    /// The configuration from `.vscode/launch.json` as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub debug_configuration: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_name: Option<String>,
    /// Ask the user before running when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_warning: Option<String>,
    #[serde(skip_serializing_if = "is_false")]
    pub stale_summary: bool,
}

request!(Show, "commandtree/show", IdParams => ShowResult);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct IdParams {
    pub id: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShowResult {
    pub command: CommandItem,
    /// The ids of the steps it pulls in, transitively.
    pub steps: Vec<String>,
    #[serde(skip_serializing_if = "is_false")]
    pub stale_summary: bool,
}

request!(Runs, "commandtree/runs", RunsParams => RunsResult);

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct RunsParams {
    /// Default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunsResult {
    /// Newest first.
    pub runs: Vec<Run>,
}

request!(Running, "commandtree/running", NoParams => RunningResult);

/// What runs now and how each command last ran: the answer of `running` and the params of
/// `runsChanged`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RunningResult {
    /// The runs going on now (from any front end), newest first.
    pub running: Vec<RunState>,
    /// The newest run of each command that ran (going on or ended), newest first.
    pub last: Vec<RunState>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunState {
    pub run: Run,
    /// How long it has been running, or how long it took; left out when unknown. For a run
    /// going on it is the time at the answer: the client counts on from `startedAt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
}

request!(Stop, "commandtree/stop", StopParams => StopResult);

/// One of the two.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StopParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<i64>,
    /// A command: every run of it going on now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StopResult {
    /// The runs as they are after stopping.
    pub stopped: Vec<Run>,
}

request!(Restart, "commandtree/restart", RestartParams => PlanResult);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RestartParams {
    pub run_id: i64,
    /// Default `newTerminal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<RunMode>,
}

request!(
    /// Starts or stops watching the files a command depends on (`commandFilesChanged`).
    WatchCommand,
    "commandtree/watchCommand",
    WatchCommandParams => WatchCommandResult
);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WatchCommandParams {
    pub id: String,
    /// `true` starts watching (again, with the command's folders as they are now), `false`
    /// stops.
    pub watch: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WatchCommandResult {
    /// The command's id (the params may name it another way).
    pub id: String,
    pub watching: bool,
    /// The folders watched (empty when not watching).
    pub folders: Vec<PathBuf>,
}

request!(
    /// A run the editor started itself, recorded in the history.
    RunStarted,
    "commandtree/runStarted",
    RunStartedParams => RunStartedResult
);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunStartedParams {
    pub id: String,
    /// How it was started, as for `plan`.
    pub mode: RunMode,
    /// The values it was started with, as for `plan`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[schemars(with = "BTreeMap<String, ParamValue>")]
    pub params: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_args: Vec<String>,
    /// The process it runs under (a terminal's shell, a task's process) when the editor knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunStartedResult {
    pub run: Run,
}

request!(
    /// How a run the editor reported with `runStarted` ended.
    RunEnded,
    "commandtree/runEnded",
    RunEndedParams => RunStartedResult
);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunEndedParams {
    pub run_id: i64,
    /// Left out when the editor cannot tell (a terminal closed, a debug session ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The user stopped it in the editor.
    #[serde(default, skip_serializing_if = "is_false")]
    pub stopped: bool,
}

request!(Problems, "commandtree/problems", ProblemsParams => ProblemsResult);

/// `output` (with `cwd`), or `runId`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProblemsParams {
    /// A run's output as the client saw it (escape sequences are dropped by the server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The folder the run ran in (relative paths are taken from the root); default the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// A run of the history whose log is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<i64>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProblemsResult {
    pub problems: Vec<Problem>,
    /// The run whose log was read (with `runId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<Run>,
    /// User patterns left out (`[[problems.patterns]]` that cannot be used).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

request!(Dependencies, "commandtree/deps", IdParams => Deps);

request!(Summarize, "commandtree/summarize", SummarizeParams => SummarizeResult);

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SummarizeParams {
    /// All commands when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub force: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_done_token: Option<ProgressToken>,
}

// The MCP server's `summarize_commands` answers with the same fields; each protocol keeps its
// own type, so a change to one contract never changes the other unnoticed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SummarizeResult {
    pub summarized: Vec<Summarized>,
    pub failed: Vec<SummaryFailure>,
    /// Commands whose summary was already current.
    pub current: usize,
    pub not_attempted: usize,
    /// Why the batch stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summarized {
    pub id: String,
    pub label: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_warning: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SummaryFailure {
    pub id: String,
    pub label: String,
    pub error: String,
}

request!(Search, "commandtree/search", SearchParams => SearchResult);

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchParams {
    pub query: String,
    /// Default 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// 0–1, default 0.3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_done_token: Option<ProgressToken>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchResult {
    /// Best first.
    pub results: Vec<SearchHit>,
}

// Scores are doubles: the engine's single-precision values widened, as they always were on
// the wire (written as `f32`, their shortest text would differ).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub command: CommandItem,
    pub score: f64,
    pub similarity: Option<f64>,
    pub lexical_rank: Option<usize>,
    pub semantic_rank: Option<usize>,
    /// The query is the command's name or one of its aliases.
    pub exact: bool,
}

request!(CommandSkills, "commandtree/commandSkills", NoParams => CommandSkillsResult);

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CommandSkillsResult {
    pub skills: Vec<CommandSkillInfo>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CommandSkillInfo {
    /// The file name without `.md`.
    pub id: String,
    pub name: String,
    /// A VS Code ThemeIcon id.
    pub icon: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

request!(ProposeSkill, "commandtree/proposeSkill", ProposeSkillParams => ProposeSkillResult);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProposeSkillParams {
    /// A command skill's id or name.
    pub skill: String,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_done_token: Option<ProgressToken>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProposeSkillResult {
    pub file: PathBuf,
    pub original: String,
    pub proposed: String,
}

request!(ApplySkill, "commandtree/applySkill", ApplySkillParams => ApplySkillResult);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ApplySkillParams {
    pub skill: String,
    pub id: String,
    pub original: String,
    pub proposed: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ApplySkillResult {
    pub file: PathBuf,
    /// False when `proposed` equals `original`.
    pub written: bool,
}

request!(RunSkill, "commandtree/runSkill", RunSkillParams => RunSkillResult);

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunSkillParams {
    /// `@task --prompt "..."`, as in a playbook step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<String>,
    /// Or the skill's name with its flags in `params`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub params: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// Send the stored context first (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<bool>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub yes: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_done_token: Option<ProgressToken>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunSkillResult {
    pub skill: String,
    pub reply: String,
}

request!(Playbooks, "commandtree/playbooks", NoParams => PlaybooksResult);

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlaybooksResult {
    pub playbooks: Vec<PlaybookInfo>,
    /// Playbook files that could not be read (no line).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlaybookInfo {
    pub name: String,
    pub file: PathBuf,
    /// The steps' ids.
    pub steps: Vec<String>,
    pub inputs: Vec<PlaybookInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlaybookInput {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

request!(RunPlaybook, "commandtree/runPlaybook", RunPlaybookParams => RunPlaybookResult);

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunPlaybookParams {
    pub name: String,
    /// Values by input name; non-strings are taken as JSON text.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub inputs: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub yes: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_done_token: Option<ProgressToken>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunPlaybookResult {
    pub name: String,
    pub steps: Vec<StepReply>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StepReply {
    pub id: String,
    pub reply: String,
}

/// The `step` of a playbook's `$/progress` report: with `skill` when the step starts, with
/// `reply` when it is done.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlaybookStep {
    /// 1-based.
    pub index: usize,
    pub total: usize,
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
}

request!(Context, "commandtree/context", ConversationParams => ContextResult);

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct ConversationParams {
    /// Default `default`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ContextResult {
    /// Oldest first.
    pub messages: Vec<ContextMessage>,
    /// What a chat front end sends its model: the rows as workspace data in one `user`
    /// message; empty without rows.
    pub send: Vec<SkillMessage>,
}

request!(AddContext, "commandtree/addContext", AddContextParams => AddContextResult);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AddContextParams {
    // Read as text so a wrong type gets the server's own message.
    #[serde(rename = "type")]
    #[schemars(with = "ContextType")]
    pub kind: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AddContextResult {
    pub id: i64,
    /// The conversation's messages now.
    pub count: usize,
}

request!(ClearContext, "commandtree/clearContext", ConversationParams => ClearContextResult);

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ClearContextResult {
    pub removed: usize,
}

request!(
    /// Sent only to a client that offered `languageModels` in `initialize`.
    LanguageModelRequest,
    "commandtree/languageModelRequest",
    LanguageModelParams => LanguageModelAnswer
);

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LanguageModelParams {
    /// In order; roles are the SkillApi's.
    pub messages: Vec<SkillMessage>,
    pub options: LanguageModelOptions,
}

#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LanguageModelOptions {
    /// A model id or family; the client's default otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Passed to the model as they are.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub model_options: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub justification: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<LanguageModelTool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_mode: Option<ToolMode>,
}

/// A tool the model is offered.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LanguageModelTool {
    pub name: String,
    pub description: String,
    /// The tool's JSON Schema.
    #[schemars(with = "Map<String, Value>")]
    pub input_schema: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// The model must answer by calling a tool.
    Required,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LanguageModelAnswer {
    /// The whole reply's text.
    pub text: String,
    /// The id of the model that answered.
    pub model: String,
    /// The reply's tool calls, in order.
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCallAnswer>>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ToolCallAnswer {
    pub name: String,
    /// The tool's arguments.
    pub input: Value,
}

notification!(
    /// After `watchFiles`, once per batch of changes that changed any listed command.
    TasksChanged,
    "commandtree/tasksChanged",
    TasksChangedParams
);

/// The form the client negotiated in `initialize` (`tasksChangedDelta`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum TasksChangedParams {
    Full(TasksChangedFull),
    Delta(TasksChangedDelta),
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TasksChangedFull {
    pub workspace_root: PathBuf,
    /// Every listed command now, in no particular order.
    pub tasks: Vec<CommandItem>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TasksChangedDelta {
    pub workspace_root: PathBuf,
    pub added: Vec<CommandItem>,
    pub updated: Vec<CommandItem>,
    /// Ids.
    pub removed: Vec<String>,
}

notification!(
    /// After `watchFiles`, when what runs, or how a command last ran, changed.
    RunsChanged,
    "commandtree/runsChanged",
    RunningResult
);

notification!(
    /// After `watchCommand`, when files the command depends on changed.
    CommandFilesChanged,
    "commandtree/commandFilesChanged",
    CommandFilesChangedParams
);

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CommandFilesChangedParams {
    pub id: String,
    /// The changed files that count (absolute), sorted.
    pub files: Vec<PathBuf>,
}

notification!(SetTrusted, "commandtree/setTrusted", SetTrustedParams);

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SetTrustedParams {
    /// The editor's workspace trust.
    pub trusted: bool,
}
