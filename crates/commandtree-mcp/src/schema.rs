//! The tools' inputs and outputs. Outputs are objects (clients validate `structuredContent`
//! against `outputSchema`, whose root must be an object); a command inside them is the
//! CommandItem JSON of the product contract, described here by [`CommandSchema`].

use commandtree_core::CommandItem;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A discovered command: the CommandItem JSON (`ct list --json`). Only used for its schema;
/// the values sent are `commandtree_core::CommandItem` serialised as they are.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct CommandSchema {
    /// `{type}:{absolute file path}:{name}`; pass it (or `type:label`, or a unique label) as
    /// `id` to the other tools.
    id: String,
    label: String,
    /// npm, make, shell, vscode, launch, just, cargo, ...
    #[serde(rename = "type")]
    kind: String,
    category: String,
    /// The command line or definition as written.
    command: String,
    cwd: String,
    file_path: String,
    tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    params: Vec<ParamSchema>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    /// A plain-language summary from the user's LLM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    summary: Option<String>,
    /// Why running it may be risky; such a command needs a confirmation to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    security_warning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
}

/// A parameter a command takes (pass its value in `run_command`'s `params`).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ParamSchema {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    options: Vec<String>,
    /// positional, flag, flag-equals or dashdash-args.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flag: Option<String>,
}

#[derive(Deserialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListInput {
    /// Only commands of this type (npm, make, shell, vscode, just, cargo, ...).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// Only commands carrying this tag.
    #[serde(default)]
    pub tag: Option<String>,
    /// Only commands whose label, id, command line, description or summary contain this text
    /// (case-insensitive).
    #[serde(default)]
    pub query: Option<String>,
    /// Return every match; without it at most 100 are returned.
    #[serde(default)]
    pub all: bool,
    /// Also list the commands hidden by default (test data, vendored code, templates,
    /// examples, hidden by their tool), as `ct list --all` does.
    #[serde(default)]
    pub include_hidden: bool,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListOutput {
    #[schemars(with = "Vec<CommandSchema>")]
    pub commands: Vec<CommandItem>,
    /// How many commands matched (more than returned when cut at 100 without `all`).
    pub total: usize,
    /// How many more matched but are hidden by default (test data, vendored code, templates,
    /// examples, documents); `includeHidden` lists them.
    pub hidden: usize,
    /// Problems found while discovering (a file that failed to parse, an unknown tag).
    pub warnings: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdInput {
    /// The command: its id, `type:label` (e.g. `npm:build`) or a unique label.
    pub id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoadSkillInput {
    /// The skill id, as the Available Skills table lists it (e.g. `rest-api-design`).
    pub skill_id: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadSkillOutput {
    pub skill_id: String,
    /// The skill's instructions (its file without the front matter).
    pub content: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShowOutput {
    #[schemars(with = "CommandSchema")]
    pub command: CommandItem,
    /// Steps that run with it (make prerequisites, just dependencies, `npm run x` in a
    /// script, Taskfile deps, mise depends, a VS Code task's dependsOn, a launch
    /// configuration's preLaunchTask), transitively, by id.
    pub steps: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchInput {
    /// What the command should do, in plain words (e.g. "reset the dev database").
    pub query: String,
    /// At most this many results (default 10).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Lowest similarity returned, 0 to 1.
    #[serde(default)]
    pub threshold: Option<f32>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    #[schemars(with = "CommandSchema")]
    pub command: CommandItem,
    /// Relevance, 0 to 1: 1 for the exact name, else how close to first in both the word
    /// (lexical) and the meaning (semantic) rankings.
    pub score: f32,
    /// Cosine similarity of the query and the command, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
    /// 1-based place among the commands holding the query's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lexical_rank: Option<usize>,
    /// 1-based place among all commands by meaning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_rank: Option<usize>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchOutput {
    pub results: Vec<SearchHit>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunInput {
    /// The command: its id, `type:label` or a unique label.
    pub id: String,
    /// Parameter values by name (see the command's `params`); each value reaches the command
    /// as one argument, never interpreted by a shell.
    #[serde(default)]
    pub params: Option<BTreeMap<String, String>>,
    /// Extra arguments for the command itself, placed the way its tool wants them.
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// End the command after this many seconds (default 600, at most 3600).
    #[serde(default)]
    pub timeout_sec: Option<u64>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunOutput {
    pub id: String,
    /// The exit code (128 + N when signal N ended it).
    pub exit_code: i32,
    pub duration_ms: u64,
    /// The end of the combined stdout and stderr.
    pub output: String,
    /// Bytes of earlier output left out.
    pub output_omitted_bytes: u64,
    pub timed_out: bool,
    /// Its id in the run history (`ct runs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<i64>,
}

#[derive(Deserialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRunsInput {
    /// Only the runs going on now (started here, by `ct`, the terminal UI or the editor).
    #[serde(default)]
    pub running: bool,
    /// At most this many runs, newest first (default 20).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A run of the history.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunInfo {
    /// Pass it to `stop_run` and `run_problems`.
    pub run_id: i64,
    /// The command's id.
    pub command_id: String,
    pub label: String,
    /// `running`; then `ok`, `failed`, `killed` or `stopped`; `unknown` when its process went
    /// away without a word.
    pub status: String,
    pub running: bool,
    /// `foreground` (run_command, `ct run`), `detached` (in the background, with a log),
    /// `tmux` or `terminal` (a window of its own).
    pub mode: String,
    /// When it started (UTC, RFC 3339).
    pub started_at: String,
    /// How long it has been running, or how long it took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The line it ran.
    pub command_line: String,
    /// Its output was kept (a detached run): `run_problems` can read it.
    pub has_log: bool,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListRunsOutput {
    pub runs: Vec<RunInfo>,
    /// How many runs are going on now (all of them, whatever `limit` says).
    pub running: usize,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopRunInput {
    /// A run id (`list_runs`), or a command's id, `type:label` or label: every run of it going
    /// on now.
    pub run: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StopRunOutput {
    /// The runs stopped, as they are now.
    pub stopped: Vec<RunInfo>,
}

#[derive(Deserialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunProblemsInput {
    /// A run id (`list_runs`), or a command's id, `type:label` or label: its newest run with a
    /// log. Default: the newest run with a log.
    #[serde(default)]
    pub run: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunProblemsOutput {
    pub run: RunInfo,
    /// The errors and warnings its output holds (compilers, linters, test runners,
    /// tracebacks), in output order.
    pub problems: Vec<commandtree_engine::problems::Problem>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TagInput {
    /// The command: its id, `type:label` or a unique label.
    pub id: String,
    pub tag: String,
    /// true adds the tag, false removes it.
    pub add: bool,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TagOutput {
    pub id: String,
    pub tag: String,
    /// Whether the command carries the tag now.
    pub tagged: bool,
    /// Whether this call changed anything.
    pub changed: bool,
    /// Set when `.vscode/commandtree.json` gives the tag back at the next discovery.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StarInput {
    /// The command: its id, `type:label` or a unique label.
    pub id: String,
    /// true adds it to Quick Launch, false takes it out.
    pub starred: bool,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StarOutput {
    pub id: String,
    pub starred: bool,
    pub changed: bool,
}

#[derive(Deserialize, JsonSchema, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SummarizeInput {
    /// Only these commands (ids, `type:label` or labels); default: every command that is new or
    /// changed since its summary.
    #[serde(default)]
    pub ids: Option<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summarized {
    pub id: String,
    pub label: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_warning: Option<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SummaryFailure {
    pub id: String,
    pub label: String,
    pub error: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SummarizeOutput {
    pub summarized: Vec<Summarized>,
    pub failed: Vec<SummaryFailure>,
    /// Commands whose summary was already current.
    pub current: usize,
    pub not_attempted: usize,
    /// Why the batch stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// The answer to the confirmation asked before running a command with a security warning.
#[derive(Deserialize, JsonSchema)]
pub struct Confirm {
    /// Run the command despite the warning.
    pub run: bool,
}
rmcp::elicit_safe!(Confirm);

#[cfg(test)]
mod tests {
    use super::*;
    use commandtree_core::{ParamDef, ParamFormat};

    /// The schema is written apart from the model; every key the model can produce must be in
    /// it, or a validating client rejects the result.
    #[test]
    fn the_command_schema_covers_every_commanditem_key() {
        let mut c = CommandItem::new("shell", std::path::Path::new("/w/a.sh"), "a.sh", "x");
        c.tags = vec!["t".into()];
        c.description = Some("d".into());
        c.summary = Some("s".into());
        c.security_warning = Some("w".into());
        c.line = Some(3);
        let mut p = ParamDef::new("n");
        p.description = Some("d".into());
        p.default = Some("x".into());
        p.options = vec!["a".into()];
        p.format = Some(ParamFormat::FlagEquals);
        p.flag = Some("--n".into());
        c.params = vec![p];
        let v = serde_json::to_value(&c).unwrap();
        let schema = serde_json::to_value(schemars::schema_for!(CommandSchema)).unwrap();
        let props = schema["properties"].as_object().unwrap();
        for k in v.as_object().unwrap().keys() {
            assert!(props.contains_key(k), "{k} missing from the schema");
        }
        let param = schema["$defs"]["ParamSchema"]["properties"]
            .as_object()
            .unwrap();
        for k in v["params"][0].as_object().unwrap().keys() {
            assert!(param.contains_key(k), "params.{k} missing from the schema");
        }
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r.as_str())
            .collect();
        let minimal = serde_json::to_value(CommandItem::default()).unwrap();
        for r in required {
            assert!(
                minimal.get(r).is_some(),
                "{r} is required but may be absent"
            );
        }
    }
}
