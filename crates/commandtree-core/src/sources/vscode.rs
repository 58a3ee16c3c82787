//! VS Code tasks: `.vscode/tasks.json` (JSONC).
//!
//! Each task becomes one command whose `command` is the task's label: the run layer hands the
//! label to VS Code, or resolves the real command line itself through [`read_tasks`], which keeps
//! every task's raw JSON (platform overrides, `dependsOn`, `options`, `args`...) intact.
//!
//! The file is read once into the jsonc-parser tree (`syntax::json`): it gives each task's line
//! and the file order of the strings in it; the task objects handed on are `serde_json` values
//! built from that tree.
//!
//! A task's steps are its `dependsOn` tasks (with this platform's section applied), and for a
//! `"type": "npm"` task the npm script it runs.

use super::common::with_line;
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef, StepHow, StepRef, StepScope};
use crate::syntax::json::{self, Dialect};
use jsonc_parser::ast;
use serde_json::{Map, Value};
use std::path::Path;

/// A parsed `tasks.json`, for discovery and for running tasks without VS Code.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TasksFile {
    /// Tasks that have a label (explicit or derived the way VS Code derives it), in file order.
    pub tasks: Vec<TaskDef>,
    /// The raw `inputs[]` entries (`promptString`, `pickString`, `command`).
    pub inputs: Vec<Value>,
    /// Top-level `options` (`cwd`, `env`, `shell`) shared by every task.
    pub options: Option<Value>,
    /// Top-level platform sections, which override the top-level properties on that platform.
    pub windows: Option<Value>,
    pub linux: Option<Value>,
    pub osx: Option<Value>,
    /// Entries that were skipped (no label, not an object...), with their line when known.
    pub problems: Vec<(Option<usize>, String)>,
}

/// One task of a `tasks.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskDef {
    /// The name VS Code shows and runs the task by.
    pub label: String,
    /// 1-based line of the task object, when known.
    pub line: Option<usize>,
    /// The task object exactly as written (minus comments).
    pub raw: Value,
    /// Ids of the `${input:id}` variables the task uses (in its own body, then in the top-level
    /// `options`), in the order they first appear in the file, without repeats.
    pub input_refs: Vec<String>,
}

impl TasksFile {
    /// The task VS Code would run for `label`.
    pub fn task(&self, label: &str) -> Option<&TaskDef> {
        self.tasks.iter().find(|t| t.label == label)
    }

    /// The `inputs[]` entry with this id.
    pub fn input(&self, id: &str) -> Option<&Value> {
        self.inputs
            .iter()
            .find(|i| i.get("id").and_then(Value::as_str) == Some(id))
    }
}

/// Reads a `tasks.json`. Fails only when the file as a whole is unusable (invalid JSONC, not an
/// object, `tasks` not an array); single bad tasks are reported in [`TasksFile::problems`].
pub fn read_tasks(content: &str) -> Result<TasksFile, (Option<usize>, String)> {
    let doc = json::parse(content, Dialect::Jsonc)?;
    let Some(ast_root) = doc.object() else {
        return Err((None, "the top level is not an object".to_string()));
    };
    let prop = |key: &str| json::prop(ast_root, key);
    let value = |key: &str| prop(key).map(|p| json::to_value(&p.value));
    let mut out = TasksFile {
        options: value("options"),
        windows: value("windows"),
        linux: value("linux"),
        osx: value("osx"),
        ..Default::default()
    };
    let options_refs = prop("options")
        .map(|p| input_refs_in(&ast_strings(&p.value)))
        .unwrap_or_default();

    if let Some(inputs) = prop("inputs") {
        match json::to_value(&inputs.value) {
            Value::Null => {}
            Value::Array(a) => out.inputs = a,
            _ => out.problems.push((
                Some(doc.line(inputs)),
                "`inputs` is not an array".to_string(),
            )),
        }
    }

    let tasks = match prop("tasks") {
        None => return Ok(out),
        Some(p) => match &p.value {
            ast::Value::NullKeyword(_) => return Ok(out),
            ast::Value::Array(a) => &a.elements,
            _ => return Err((Some(doc.line(p)), "`tasks` is not an array".to_string())),
        },
    };

    for (i, ast_task) in tasks.iter().enumerate() {
        let line = Some(doc.line(ast_task));
        let task = json::to_value(ast_task);
        let Value::Object(obj) = &task else {
            out.problems
                .push((line, format!("task #{} is not an object", i + 1)));
            continue;
        };
        let label = match task_label(obj) {
            Ok(l) => l,
            Err(reason) => {
                out.problems
                    .push((line, format!("task #{} {reason}", i + 1)));
                continue;
            }
        };
        let mut input_refs = input_refs_in(&ast_strings(ast_task));
        for id in &options_refs {
            if !input_refs.contains(id) {
                input_refs.push(id.clone());
            }
        }
        out.tasks.push(TaskDef {
            label,
            line,
            raw: task,
            input_refs,
        });
    }
    Ok(out)
}

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let tasks = match read_tasks(file.content) {
        Ok(t) => t,
        Err((line, reason)) => return Parsed::with_warning(file.path, line, reason),
    };
    let mut out = Parsed::default();
    for (line, reason) in &tasks.problems {
        out.warn(file.path, *line, reason.clone());
    }
    let cwd = dot_vscode_parent(file);
    for task in &tasks.tasks {
        let mut params = Vec::new();
        for id in &task.input_refs {
            match tasks.input(id) {
                Some(input) => params.push(input_param(id, input)),
                None => {
                    out.warn(
                        file.path,
                        task.line,
                        format!(
                            "task `{}` uses `${{input:{id}}}` but `inputs` has no such id",
                            task.label
                        ),
                    );
                    params.push(ParamDef::new(id.clone()));
                }
            }
        }
        let detail = task
            .raw
            .get("detail")
            .and_then(Value::as_str)
            .map(str::to_string);
        let hidden = task.raw.get("hide").and_then(Value::as_bool) == Some(true);
        let mut item = CommandItem::new("vscode", file.path, &task.label, task.label.clone())
            .cwd(cwd)
            .opt_description(detail)
            .params(params)
            // Hidden tasks are helpers for `dependsOn`; VS Code keeps them out of its picker.
            .private(hidden);
        item.group = task_group(&task.raw);
        item.steps = task_steps(&task.raw, cwd);
        out.commands.push(with_line(item, task.line));
    }
    out
}

/// The platform section VS Code applies on this machine.
pub fn platform_key() -> &'static str {
    if cfg!(windows) {
        "windows"
    } else if cfg!(target_os = "macos") {
        "osx"
    } else {
        "linux"
    }
}

/// Deep-merges `over` into `base`: objects merge key by key, anything else replaces.
pub fn overlay(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(k) {
                    Some(existing) => overlay(existing, v),
                    None => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// `obj` with its platform section applied.
pub fn with_platform(obj: &Value) -> Value {
    let mut v = obj.clone();
    if let Some(p) = obj.get(platform_key()) {
        overlay(&mut v, p);
    }
    v
}

/// The labels of `dependsOn`: strings, or task identifiers (`{ "type": "npm", "script": "x" }`).
pub fn depends_on(task: &Value) -> std::result::Result<Vec<String>, String> {
    let items: Vec<&Value> = match task.get("dependsOn") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a.iter().collect(),
        Some(v) => vec![v],
    };
    items
        .into_iter()
        .map(|d| match d {
            Value::String(s) => Ok(s.clone()),
            Value::Object(m) => {
                let f = |k: &str| m.get(k).and_then(Value::as_str);
                match (f("type"), f("script"), f("task"), f("label")) {
                    (_, _, _, Some(l)) => Ok(l.to_string()),
                    (Some("npm"), Some(s), _, _) => Ok(match f("path") {
                        Some(p) => format!("npm: {s} - {}", p.trim_end_matches('/')),
                        None => format!("npm: {s}"),
                    }),
                    (Some(k @ ("gulp" | "grunt" | "jake")), _, Some(t), _) => {
                        Ok(format!("{k}: {t}"))
                    }
                    (_, _, Some(t), _) => Ok(t.to_string()),
                    _ => Err(format!("`dependsOn` entry {d} names no task")),
                }
            }
            other => Err(format!("`dependsOn` entry {other} is not a task name")),
        })
        .collect()
}

/// `"group": "test"` or `{ "kind": "build", ... }`; VS Code's `"none"` is no group.
fn task_group(task: &Value) -> Option<String> {
    let g = match task.get("group")? {
        Value::Object(o) => o.get("kind")?.as_str()?,
        v => v.as_str()?,
    };
    (!g.is_empty() && g != "none").then(|| g.to_string())
}

/// What running a task runs besides its own command: its `dependsOn` tasks (labels of this
/// file, or VS Code's detected `npm: x` tasks, which the engine finds in the package.json) and,
/// for an npm task, its script.
fn task_steps(raw: &Value, folder: &Path) -> Vec<StepRef> {
    let task = with_platform(raw);
    let mut out: Vec<StepRef> = depends_on(&task)
        .unwrap_or_default()
        .into_iter()
        .filter(|l| !l.is_empty())
        .map(|l| StepRef::new(l, StepHow::Prerequisite, true))
        .collect();
    if task.get("type").and_then(Value::as_str) == Some("npm")
        && let Some(script) = task.get("script").and_then(Value::as_str)
    {
        let dir = match task.get("path").and_then(Value::as_str) {
            Some(p) => folder.join(p.trim_end_matches('/')),
            None => folder.to_path_buf(),
        };
        out.push(
            StepRef::new(script, StepHow::Call, true).scope(StepScope::File {
                kind: "npm".into(),
                file: dir.join("package.json"),
            }),
        );
    }
    out
}

/// The folder holding `.vscode`, where VS Code runs tasks and launch configurations by default.
pub(crate) fn dot_vscode_parent<'a>(file: &'a SourceFile<'_>) -> &'a Path {
    let dir = file.dir();
    if dir.file_name().is_some_and(|n| n == ".vscode") {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    }
}

/// The name VS Code gives a task: its `label`, else the name its provider derives.
fn task_label(task: &Map<String, Value>) -> Result<String, String> {
    for key in ["label", "taskName"] {
        match task.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if !s.trim().is_empty() => return Ok(s.clone()),
            Some(Value::String(_)) => return Err(format!("has an empty `{key}`")),
            Some(_) => return Err(format!("has a `{key}` that is not a string")),
        }
    }
    let field = |k: &str| {
        task.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let kind = field("type").unwrap_or("");
    let derived = match kind {
        "npm" => field("script").map(|script| match field("path") {
            Some(path) => format!("npm: {script} - {}", path.trim_end_matches('/')),
            None => format!("npm: {script}"),
        }),
        "gulp" | "grunt" | "jake" => field("task").map(|t| format!("{kind}: {t}")),
        "typescript" => field("tsconfig").map(|cfg| {
            let mode = if field("option") == Some("watch") {
                "watch"
            } else {
                "build"
            };
            format!("tsc: {mode} - {cfg}")
        }),
        _ => None,
    };
    derived.ok_or_else(|| "has no `label`".to_string())
}

/// The runners whose name starts the names [`task_label`] derives (`npm: lint`, `gulp: build`,
/// `tsc: watch - tsconfig.json`).
const DERIVED_RUNNERS: &[&str] = &["npm", "gulp", "grunt", "jake", "tsc"];

/// A task's name as VS Code derives it, split into the runner and the task's own name
/// (`npm: build:vscode` → `npm`, `build:vscode`); `None` for a name of another form.
pub fn derived_name(label: &str) -> Option<(&str, &str)> {
    let (runner, name) = label.split_once(": ")?;
    (DERIVED_RUNNERS.contains(&runner) && !name.trim().is_empty()).then_some((runner, name))
}

/// The parameter a `${input:id}` reference asks for, from its `inputs[]` entry.
fn input_param(id: &str, input: &Value) -> ParamDef {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let mut p = ParamDef::new(id);
    let description = s("description").map(str::trim).filter(|d| !d.is_empty());
    match s("type").unwrap_or("") {
        "command" => {
            let cmd = s("command").unwrap_or("?");
            let d = match description {
                Some(d) => format!("{d} (needs VS Code: value from command `{cmd}`)"),
                None => format!("Needs VS Code: value from command `{cmd}`"),
            };
            p = p.with_description(d);
        }
        kind => {
            if let Some(d) = description {
                p = p.with_description(d);
            }
            if let Some(d) = s("default") {
                p = p.with_default(d);
            }
            let options = input.get("options").and_then(Value::as_array);
            if let (true, Some(opts)) = (kind == "pickString", options) {
                p.options = opts
                    .iter()
                    .filter_map(|o| match o {
                        Value::String(s) => Some(s.clone()),
                        Value::Object(m) => {
                            m.get("value").and_then(Value::as_str).map(str::to_string)
                        }
                        _ => None,
                    })
                    .collect();
            }
        }
    }
    p
}

/// `${input:id}` ids in `strings`, in order, without repeats.
fn input_refs_in(strings: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in strings {
        let mut rest = *s;
        while let Some(start) = rest.find("${input:") {
            rest = &rest[start + "${input:".len()..];
            let Some(end) = rest.find('}') else { break };
            let id = rest[..end].trim();
            if !id.is_empty() && !out.iter().any(|o| o == id) {
                out.push(id.to_string());
            }
            rest = &rest[end + 1..];
        }
    }
    out
}

/// Every string value inside `v` (keys excluded), in file order.
fn ast_strings<'x>(v: &'x ast::Value<'_>) -> Vec<&'x str> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            ast::Value::StringLit(s) => out.push(s.value.as_ref()),
            ast::Value::Array(a) => stack.extend(a.elements.iter().rev()),
            ast::Value::Object(o) => stack.extend(o.properties.iter().rev().map(|p| &p.value)),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParamFormat;
    use crate::sources::testing::{assert_one_warning, labels, parse_with, warnings};

    const PATH: &str = "/w/.vscode/tasks.json";

    fn parse_tasks(content: &str) -> Parsed {
        parse_with(parse, PATH, content)
    }

    #[test]
    fn depends_on_and_npm_scripts_are_steps() {
        let p = parse_tasks(
            r#"{"tasks": [
  {"label": "build", "dependsOn": ["clean", {"type": "npm", "script": "lint", "path": "web/"}],
   "linux": {"dependsOn": "clean"}, "osx": {"dependsOn": "clean"}, "windows": {"dependsOn": "clean"}},
  {"label": "clean", "type": "shell", "command": "rm -rf ~/x"},
  {"label": "npm task", "type": "npm", "script": "test", "path": "web"}
]}"#,
        );
        let steps = |i: usize| -> Vec<(String, &'static str, StepScope)> {
            p.commands[i]
                .steps
                .iter()
                .map(|s| (s.name.clone(), s.how.as_str(), s.scope.clone()))
                .collect()
        };
        // This platform's section replaces `dependsOn`.
        assert_eq!(
            steps(0),
            [("clean".to_string(), "prerequisite", StepScope::SameFile)]
        );
        assert!(steps(1).is_empty());
        assert_eq!(
            steps(2),
            [(
                "test".to_string(),
                "call",
                StepScope::File {
                    kind: "npm".into(),
                    file: "/w/web/package.json".into()
                }
            )]
        );
        let p = parse_tasks(
            r#"{"tasks": [{"label": "b", "dependsOn": [{"type": "npm", "script": "lint", "path": "web/"}, "x"]}]}"#,
        );
        let names: Vec<&str> = p.commands[0]
            .steps
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, ["npm: lint - web", "x"]);
    }

    #[test]
    fn task_groups_are_kept() {
        let p = parse_tasks(
            r#"{"tasks": [
    {"label": "a", "command": "x", "group": {"kind": "build", "isDefault": true}},
    {"label": "b", "command": "x", "group": "test"},
    {"label": "c", "command": "x", "group": "none"},
    {"label": "d", "command": "x"}
]}"#,
        );
        let groups: Vec<Option<&str>> = p.commands.iter().map(|c| c.group.as_deref()).collect();
        assert_eq!(groups, [Some("build"), Some("test"), None, None]);
    }

    #[test]
    fn labelled_tasks_with_detail_cwd_and_line() {
        let p = parse_tasks(
            r#"{
  // See https://go.microsoft.com/fwlink/?LinkId=733558
  "version": "2.0.0",
  "tasks": [
    {
      "label": "build",
      "type": "shell",
      "command": "cargo build",
      "group": { "kind": "build", "isDefault": true },
      "detail": "Compile the workspace",
    },
    {
      "label": "test all",
      "type": "process",
      "command": "cargo",
      "args": ["test"]
    }
  ]
}"#,
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["build", "test all"]);
        let b = &p.commands[0];
        assert_eq!(b.kind, "vscode");
        assert_eq!(b.id, "vscode:/w/.vscode/tasks.json:build");
        assert_eq!(b.command, "build");
        assert_eq!(b.cwd, "/w");
        assert_eq!(b.file_path, PATH);
        assert_eq!(b.description.as_deref(), Some("Compile the workspace"));
        assert_eq!(b.line, Some(5));
        assert!(b.params.is_empty());
        let t = &p.commands[1];
        assert_eq!(t.id, "vscode:/w/.vscode/tasks.json:test all");
        assert_eq!(t.command, "test all");
        assert_eq!(t.description, None);
        assert_eq!(t.line, Some(12));
    }

    #[test]
    fn nested_folder_cwd_is_the_folder_holding_dot_vscode() {
        let p = parse_with(
            parse,
            "/w/app/.vscode/tasks.json",
            r#"{"tasks":[{"label":"x","command":"ls"}]}"#,
        );
        assert_eq!(p.commands[0].cwd, "/w/app");
        assert_eq!(p.commands[0].id, "vscode:/w/app/.vscode/tasks.json:x");
    }

    #[test]
    fn provider_tasks_get_the_names_vs_code_derives() {
        let p = parse_tasks(
            r#"{
  "version": "2.0.0",
  "tasks": [
    { "type": "npm", "script": "build", "group": "build", "detail": "tsc -p ." },
    { "type": "npm", "script": "lint", "path": "packages/web/" },
    { "type": "npm", "script": "test", "path": "packages/api" },
    { "type": "gulp", "task": "default" },
    { "type": "grunt", "task": "concat" },
    { "type": "jake", "task": "release" },
    { "type": "typescript", "tsconfig": "tsconfig.json", "problemMatcher": ["$tsc"] },
    { "type": "typescript", "tsconfig": "src/tsconfig.json", "option": "watch" }
  ]
}"#,
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            [
                "npm: build",
                "npm: lint - packages/web",
                "npm: test - packages/api",
                "gulp: default",
                "grunt: concat",
                "jake: release",
                "tsc: build - tsconfig.json",
                "tsc: watch - src/tsconfig.json",
            ]
        );
        assert_eq!(p.commands[0].command, "npm: build");
        assert_eq!(p.commands[0].id, "vscode:/w/.vscode/tasks.json:npm: build");
        assert_eq!(p.commands[0].description.as_deref(), Some("tsc -p ."));
    }

    #[test]
    fn explicit_label_wins_over_derived_name() {
        let p = parse_tasks(r#"{"tasks":[{"type":"npm","script":"build","label":"Build web"}]}"#);
        assert_eq!(labels(&p), ["Build web"]);
    }

    #[test]
    fn deprecated_task_name_is_a_label() {
        let p =
            parse_tasks(r#"{"version":"0.1.0","tasks":[{"taskName":"compile","command":"make"}]}"#);
        assert_eq!(labels(&p), ["compile"]);
    }

    #[test]
    fn shell_task_without_label_is_skipped_with_warning() {
        let p = parse_tasks(
            r#"{
  "tasks": [
    { "type": "shell", "command": "echo hi" },
    { "label": "ok", "type": "shell", "command": "true" },
    { "type": "npm" },
    { "label": 42, "command": "x" },
    { "label": "  ", "command": "x" },
    "not a task"
  ]
}"#,
        );
        assert_eq!(labels(&p), ["ok"]);
        assert_eq!(
            warnings(&p),
            [
                (Some(3), "task #1 has no `label`"),
                (Some(5), "task #3 has no `label`"),
                (Some(6), "task #4 has a `label` that is not a string"),
                (Some(7), "task #5 has an empty `label`"),
                (Some(8), "task #6 is not an object"),
            ]
        );
    }

    #[test]
    fn inputs_become_params_in_first_reference_order() {
        let p = parse_tasks(
            r#"{
  "version": "2.0.0",
  "tasks": [
    {
      "label": "deploy",
      "type": "shell",
      "command": "./deploy.sh ${input:env}",
      "args": ["--region", "${input:region}", "--tag=${input:tag}"],
      "options": { "env": { "TOKEN": "${input:token}", "AGAIN": "${input:env}" } }
    }
  ],
  "inputs": [
    { "id": "token", "type": "command", "command": "secrets.get", "args": "deploy" },
    { "id": "tag", "type": "promptString", "description": "Image tag", "default": "latest" },
    {
      "id": "region",
      "type": "pickString",
      "description": "Target region",
      "options": ["eu-west-1", { "label": "US East", "value": "us-east-1" }],
      "default": "eu-west-1"
    },
    { "id": "env", "type": "pickString", "options": ["dev", "prod"] }
  ]
}"#,
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let params = &p.commands[0].params;
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["env", "region", "tag", "token"]);
        assert_eq!(params[0].options, ["dev", "prod"]);
        assert_eq!(params[0].description, None);
        assert_eq!(params[0].default, None);
        assert_eq!(params[1].description.as_deref(), Some("Target region"));
        assert_eq!(params[1].options, ["eu-west-1", "us-east-1"]);
        assert_eq!(params[1].default.as_deref(), Some("eu-west-1"));
        assert_eq!(params[2].description.as_deref(), Some("Image tag"));
        assert_eq!(params[2].default.as_deref(), Some("latest"));
        assert!(params[2].options.is_empty());
        assert_eq!(
            params[3].description.as_deref(),
            Some("Needs VS Code: value from command `secrets.get`")
        );
        assert_eq!(params[3].format, None::<ParamFormat>);
        // The command stays the label: the run layer substitutes inputs itself.
        assert_eq!(p.commands[0].command, "deploy");
    }

    #[test]
    fn command_input_with_description_keeps_it() {
        let p = parse_tasks(
            r#"{"tasks":[{"label":"a","command":"x ${input:pick}"}],
                "inputs":[{"id":"pick","type":"command","command":"extension.pickFile","description":"File"}]}"#,
        );
        assert_eq!(
            p.commands[0].params[0].description.as_deref(),
            Some("File (needs VS Code: value from command `extension.pickFile`)")
        );
    }

    #[test]
    fn top_level_options_inputs_apply_to_every_task() {
        let p = parse_tasks(
            r#"{
  "options": { "env": { "PROFILE": "${input:profile}" } },
  "tasks": [
    { "label": "a", "command": "run ${input:target}" },
    { "label": "b", "command": "run" }
  ],
  "inputs": [
    { "id": "profile", "type": "promptString" },
    { "id": "target", "type": "promptString" }
  ]
}"#,
        );
        let names = |i: usize| {
            p.commands[i]
                .params
                .iter()
                .map(|p| p.name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(0), ["target", "profile"]);
        assert_eq!(names(1), ["profile"]);
    }

    #[test]
    fn unknown_input_gives_bare_param_and_warning() {
        let p = parse_tasks(r#"{"tasks":[{"label":"a","command":"x ${input:nope}"}]}"#);
        assert_eq!(p.commands[0].params, [ParamDef::new("nope")]);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(
            p.warnings[0].message,
            "task `a` uses `${input:nope}` but `inputs` has no such id"
        );
    }

    #[test]
    fn hidden_tasks_are_private() {
        let p = parse_tasks(
            r#"{"tasks":[{"label":"prep","hide":true,"command":"x"},{"label":"main","dependsOn":["prep"]}]}"#,
        );
        assert!(p.commands[0].private);
        assert!(!p.commands[1].private);
    }

    #[test]
    fn read_tasks_keeps_raw_sections_for_the_run_layer() {
        let tf = read_tasks(
            r#"{
  "version": "2.0.0",
  "options": { "cwd": "${workspaceFolder}/app" },
  "windows": { "options": { "shell": { "executable": "cmd.exe" } } },
  "linux": { "options": { "env": { "X": "1" } } },
  "tasks": [
    {
      "label": "all",
      "dependsOn": ["b", "a"],
      "dependsOrder": "sequence",
      "windows": { "command": "build.cmd" },
      "osx": { "command": "./build-mac.sh" },
    },
  ],
  "inputs": [{ "id": "x", "type": "promptString" }],
}"#,
        )
        .unwrap();
        assert_eq!(
            tf.options.as_ref().unwrap()["cwd"],
            "${workspaceFolder}/app"
        );
        assert_eq!(
            tf.windows.as_ref().unwrap()["options"]["shell"]["executable"],
            "cmd.exe"
        );
        assert_eq!(tf.linux.as_ref().unwrap()["options"]["env"]["X"], "1");
        assert_eq!(tf.osx, None);
        let all = tf.task("all").unwrap();
        assert_eq!(all.raw["dependsOn"], serde_json::json!(["b", "a"]));
        assert_eq!(all.raw["dependsOrder"], "sequence");
        assert_eq!(all.raw["windows"]["command"], "build.cmd");
        assert_eq!(all.raw["osx"]["command"], "./build-mac.sh");
        assert_eq!(all.line, Some(7));
        assert_eq!(tf.input("x").unwrap()["type"], "promptString");
        assert!(tf.input("y").is_none());
        assert!(tf.task("nope").is_none());
    }

    #[test]
    fn no_tasks_key_gives_nothing() {
        let p = parse_tasks(r#"{"version":"2.0.0"}"#);
        assert!(p.commands.is_empty());
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn malformed_files_warn_without_panicking() {
        let cases: &[(&str, Option<u32>, &str)] = &[
            (
                "{\n  \"tasks\": [\n    { \"label\": \"a\"\n",
                Some(4),
                "invalid JSON",
            ),
            ("[1, 2]", None, "the top level is not an object"),
            (
                "{\n\"tasks\": {\"label\": \"a\"}}",
                Some(2),
                "`tasks` is not an array",
            ),
            ("\u{1}\u{2}garbage\u{7f}", Some(1), "invalid JSON"),
        ];
        for (content, line, msg) in cases {
            let p = parse_tasks(content);
            assert!(p.commands.is_empty(), "{content:?}");
            assert_one_warning(&p, *line, msg, content);
        }
    }

    #[test]
    fn inputs_not_an_array_warns_but_tasks_stay() {
        let p = parse_tasks("{\"tasks\":[{\"label\":\"a\"}],\n\"inputs\": {}}");
        assert_eq!(labels(&p), ["a"]);
        assert_eq!(p.warnings[0].message, "`inputs` is not an array");
        assert_eq!(p.warnings[0].line, Some(2));
    }

    #[test]
    fn input_ref_edge_cases() {
        assert_eq!(
            input_refs_in(&[
                "${input:a}${input:b} ${input:a}",
                "${input:",
                "${input:}",
                "é${input: c }"
            ]),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let deep = format!(
            "{{\"tasks\":[{{\"label\":\"a\",\"x\":{}1{}}}]}}",
            "[".repeat(5000),
            "]".repeat(5000)
        );
        let p = parse_tasks(&deep);
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
    }
}
