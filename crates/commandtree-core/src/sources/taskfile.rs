//! go-task `Taskfile.yml` tasks (upstream §3.13 [INTENDED], fixing the [ACTUAL] bug of §17.1:
//! only the keys of the top-level `tasks` map are tasks).
//!
//! Read with `syntax::yaml` rather than `text::parse_yaml`: its value keeps the file order that
//! the `serde_json` conversion would sort away, and its spans give each task's line. Local
//! `includes` are followed through `file.fs` and namespaced `ns:task`, like `task --list-all`
//! does; remote and templated includes cannot be resolved without running Task and are skipped.
//! Included tasks are listed on the root Taskfile and know the file and line that define them.
//!
//! A task's steps are its `deps` and the tasks its `cmds` run (`- task: x`, `defer: {task: x}`,
//! and `task x` in a shell command), named as Task resolves them: relative to the including
//! namespace, `:x` from the root.

use super::calls::{simple_commands, task_call};
use super::common::{IncludeGuard, MAX_INCLUDED_FILES, Refusal, normalize_path, with_line};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, Definition, ParamDef, ParamFormat, StepHow, StepRef};
use crate::syntax::yaml::{self, Spans};
use crate::text;
use serde_yaml_ng::{Mapping, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

const KIND: &str = "taskfile";

/// The names Task looks for in a folder, in its priority order.
const TASKFILE_NAMES: &[&str] = &[
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "taskfile.dist.yml",
    "Taskfile.dist.yaml",
    "taskfile.dist.yaml",
];

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let (doc, spans) = match load(file.content) {
        Ok(doc) => doc,
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    if included_from_above(file) {
        // Listed once, under its namespace, by the Taskfile that includes it.
        return Parsed::default();
    }
    let mut ctx = Ctx {
        file,
        base: base_command(file),
        out: Parsed::default(),
        guard: IncludeGuard::new(file.path),
    };
    let unit = Unit {
        path: file.path,
        spans: &spans,
        prefix: String::new(),
        include_line: None,
        excludes: HashSet::new(),
    };
    ctx.collect(&doc, &unit, 0);
    ctx.out
}

/// Whether a Taskfile in a folder above (up to the workspace root) includes this file.
fn included_from_above(file: &SourceFile<'_>) -> bool {
    let mut dirs = super::common::folders_up(file);
    dirs.next();
    dirs.any(|dir| {
        let Some(parent) = TASKFILE_NAMES
            .iter()
            .map(|n| dir.join(n))
            .find(|p| file.fs.is_file(p))
        else {
            return false;
        };
        let Some(Value::Mapping(includes)) = file
            .fs
            .read(&parent)
            .and_then(|c| load(&c).ok())
            .and_then(|(d, _)| d.get("includes").cloned())
        else {
            return false;
        };
        includes
            .values()
            .filter_map(Include::from_value)
            .any(|inc| {
                is_local(&inc.taskfile)
                    && resolve(file, dir, &inc.taskfile).as_deref() == Some(file.path)
            })
    })
}

/// The Taskfile's value, merge keys applied, and the spans of the text as written.
fn load(content: &str) -> Result<(Value, Spans), (Option<usize>, String)> {
    let yaml::Doc { mut value, spans } = yaml::parse(content)?;
    // `<<: *defaults` merge keys are common in Taskfiles; a malformed merge only loses the
    // merged keys, so its error is not worth a warning.
    let _ = value.apply_merge();
    Ok((value, spans))
}

/// `task NAME` finds the first Taskfile of `TASKFILE_NAMES` in the folder; any other file (a
/// `.dist` file beside a `Taskfile.yml`) has to be named.
fn base_command(file: &SourceFile<'_>) -> String {
    let name = &*file.file_name();
    for candidate in TASKFILE_NAMES {
        if *candidate == name {
            return "task".to_string();
        }
        if file.fs.is_file(&file.dir().join(candidate)) {
            break;
        }
    }
    format!("task --taskfile {}", text::sh_word(name))
}

struct Ctx<'a, 'f> {
    file: &'a SourceFile<'f>,
    base: String,
    out: Parsed,
    guard: IncludeGuard,
}

/// One Taskfile being read: the root, or an include reached from it.
struct Unit<'a> {
    path: &'a Path,
    spans: &'a Spans,
    /// `ns:` prefixes of the includes that led here.
    prefix: String,
    /// For included tasks: the line of the root's `includes` entry (lines always refer to the
    /// root file, which is the item's `filePath`).
    include_line: Option<usize>,
    excludes: HashSet<String>,
}

impl Ctx<'_, '_> {
    fn collect(&mut self, doc: &Value, unit: &Unit<'_>, depth: usize) {
        let map = match doc {
            Value::Mapping(m) => m,
            Value::Null => return,
            _ => {
                self.out.warn(unit.path, Some(1), "Taskfile is not a map");
                return;
            }
        };
        self.tasks(map, unit);
        self.includes(map, unit, depth);
    }

    fn tasks(&mut self, map: &Mapping, unit: &Unit<'_>) {
        let tasks = match map.get("tasks") {
            None | Some(Value::Null) => return,
            Some(Value::Mapping(t)) => t,
            Some(_) => {
                let line = unit.spans.key_line("tasks");
                self.out.warn(unit.path, line, "`tasks` is not a map");
                return;
            }
        };
        // For the root, the lines of the listing; for an include, where each task is defined.
        let lines = unit.spans.key_lines_under("tasks");
        for (key, value) in tasks {
            let Some(name) = key_string(key) else {
                continue;
            };
            if unit.excludes.contains(&name) {
                continue;
            }
            let own_line = lines.get(name.as_str()).copied();
            let line = unit.include_line.or(own_line);
            let (description, params) = match value {
                Value::Mapping(task) => {
                    if task.get("internal").and_then(Value::as_bool) == Some(true) {
                        continue;
                    }
                    (task_description(task), required_vars(task))
                }
                // Short syntax: `build: go build` / `build: [cmd1, cmd2]`.
                Value::String(_) | Value::Sequence(_) | Value::Null => (None, Vec::new()),
                _ => {
                    self.out.warn(
                        unit.path,
                        line,
                        format!("task `{name}` is not a map, a string or a list"),
                    );
                    continue;
                }
            };
            let full = format!("{}{name}", unit.prefix);
            let command = format!("{} {}", self.base, text::sh_word(&full));
            let mut params = params;
            // `release:*`: each `*` is filled by the run layer from a parameter, in order.
            let stars = full.matches('*').count();
            for i in 0..stars {
                let pname = if stars == 1 {
                    "arg".to_string()
                } else {
                    format!("arg{}", i + 1)
                };
                params.insert(
                    i,
                    ParamDef::new(pname).with_description(format!("fills `*` in {full}")),
                );
            }
            let mut item = CommandItem::new(KIND, self.file.path, &full, command)
                .opt_description(description)
                .params(params);
            item.steps = task_steps(value, &unit.prefix);
            // `aliases: [t]`: `task t` runs it (an included file's aliases take its prefix).
            if let Value::Mapping(task) = value
                && let Some(Value::Sequence(aliases)) = task.get("aliases")
            {
                item.aliases = aliases
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|a| format!("{}{a}", unit.prefix))
                    .collect();
            }
            if unit.include_line.is_some() {
                item.defined_in = Some(Definition {
                    file: unit.path.to_path_buf(),
                    line: own_line.and_then(|l| u32::try_from(l).ok()),
                    root: self.file.root.to_path_buf(),
                });
            }
            self.out.commands.push(with_line(item, line));
        }
    }

    fn includes(&mut self, map: &Mapping, unit: &Unit<'_>, depth: usize) {
        let includes = match map.get("includes") {
            None | Some(Value::Null) => return,
            Some(Value::Mapping(i)) => i,
            Some(_) => {
                let line = unit.spans.key_line("includes");
                self.out.warn(unit.path, line, "`includes` is not a map");
                return;
            }
        };
        let lines = match unit.include_line {
            None => unit.spans.key_lines_under("includes"),
            Some(_) => HashMap::new(),
        };
        for (key, spec) in includes {
            let Some(ns) = key_string(key) else {
                continue;
            };
            let line = unit
                .include_line
                .or_else(|| lines.get(ns.as_str()).copied());
            let Some(inc) = Include::from_value(spec) else {
                self.out.warn(
                    unit.path,
                    line,
                    format!("include `{ns}` has no `taskfile` path"),
                );
                continue;
            };
            if inc.internal || !is_local(&inc.taskfile) {
                continue;
            }
            let base_dir = unit.path.parent().unwrap_or(Path::new("/"));
            let Some(target) = resolve(self.file, base_dir, &inc.taskfile) else {
                if !inc.optional {
                    let msg = format!("included Taskfile `{}` not found", inc.taskfile);
                    self.out.warn(unit.path, line, msg);
                }
                continue;
            };
            if let Err(refusal) = self.guard.check(&target, depth) {
                let message = match refusal {
                    Refusal::Cycle => format!("include `{ns}` forms a cycle; not followed"),
                    Refusal::TooDeep => {
                        format!("include `{ns}` is nested too deeply; not followed")
                    }
                    Refusal::TooManyFiles { first: false } => continue,
                    Refusal::TooManyFiles { first: true } => format!(
                        "more than {MAX_INCLUDED_FILES} included Taskfiles; the rest are skipped"
                    ),
                };
                self.out.warn(unit.path, line, message);
                continue;
            }
            self.guard.count_file();
            let Some(content) = self.file.fs.read(&target) else {
                if !inc.optional {
                    let msg = format!("included Taskfile `{}` is unreadable", inc.taskfile);
                    self.out.warn(unit.path, line, msg);
                }
                continue;
            };
            let (doc, spans) = match load(&content) {
                Ok(loaded) => loaded,
                Err((l, msg)) => {
                    self.out.warn(&target, l, msg);
                    continue;
                }
            };
            let prefix = if inc.flatten {
                unit.prefix.clone()
            } else {
                format!("{}{ns}:", unit.prefix)
            };
            let child = Unit {
                path: &target,
                spans: &spans,
                prefix,
                include_line: line.or(Some(1)),
                excludes: inc.excludes,
            };
            self.guard.enter(&target);
            self.collect(&doc, &child, depth + 1);
            self.guard.leave();
        }
    }
}

/// The tasks a task runs by itself: `deps`, `cmds` entries `task: x` (also deferred ones and
/// `for` loops), and `task x` in its shell commands. `prefix` is the task's namespace (`ns:`).
fn task_steps(task: &Value, prefix: &str) -> Vec<StepRef> {
    let mut out: Vec<StepRef> = Vec::new();
    let mut push = |name: String, how: StepHow| {
        let step = StepRef::new(name, how, true);
        if !out.contains(&step) {
            out.push(step);
        }
    };
    // `deps`/`task:` names are relative to the namespace; `:x` is the root's `x`.
    let relative = |name: &str| match name.strip_prefix(':') {
        Some(root) => root.to_string(),
        None => format!("{prefix}{name}"),
    };
    let named = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Mapping(m) => m.get("task").and_then(key_string),
            _ => None,
        }
    };
    let cmds: Vec<&Value> = match task {
        Value::Mapping(m) => {
            if let Some(Value::Sequence(deps)) = m.get("deps") {
                for d in deps {
                    if let Some(n) = named(d).filter(|n| !n.contains("{{")) {
                        push(relative(&n), StepHow::Prerequisite);
                    }
                }
            }
            let mut v: Vec<&Value> = Vec::new();
            match m.get("cmds") {
                Some(Value::Sequence(list)) => v.extend(list),
                Some(other) => v.push(other),
                None => {}
            }
            v.extend(m.get("cmd"));
            v
        }
        Value::Sequence(list) => list.iter().collect(),
        other => vec![other],
    };
    for c in cmds {
        let (shell, call) = match c {
            Value::String(s) => (Some(s.as_str()), None),
            Value::Mapping(m) => {
                let inner = m.get("defer").unwrap_or(c);
                match inner {
                    Value::String(s) => (Some(s.as_str()), None),
                    Value::Mapping(im) => (
                        im.get("cmd").and_then(Value::as_str),
                        im.get("task").and_then(key_string),
                    ),
                    _ => (None, None),
                }
            }
            _ => (None, None),
        };
        if let Some(n) = call.filter(|n| !n.contains("{{")) {
            push(relative(&n), StepHow::Call);
        }
        if let Some(sh) = shell.filter(|s| s.contains("task") || s.contains("TASK_EXE")) {
            for cmd in simple_commands(&templates_to_shell(sh)) {
                // Task starts a `task` command in the root Taskfile's folder: its names are
                // the root's.
                for n in task_call(&cmd).map(|c| c.names).unwrap_or_default() {
                    push(n.trim_start_matches(':').to_string(), StepHow::Call);
                }
            }
        }
    }
    out
}

/// `{{.TASK_EXE}}` becomes `task`; any other template a shell variable.
fn templates_to_shell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str("$TPL");
            return out;
        };
        let expr: String = after[..end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        out.push_str(if expr == ".TASK_EXE" { "task" } else { "$TPL" });
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

struct Include {
    taskfile: String,
    optional: bool,
    internal: bool,
    flatten: bool,
    excludes: HashSet<String>,
}

impl Include {
    /// `ns: ./path` or `ns: {taskfile: ./path, optional, internal, flatten, excludes, dir}`.
    fn from_value(v: &Value) -> Option<Include> {
        match v {
            Value::String(s) => Some(Include {
                taskfile: s.clone(),
                optional: false,
                internal: false,
                flatten: false,
                excludes: HashSet::new(),
            }),
            Value::Mapping(m) => {
                let flag = |k: &str| m.get(k).and_then(Value::as_bool).unwrap_or(false);
                let excludes = m
                    .get("excludes")
                    .and_then(Value::as_sequence)
                    .map(|s| s.iter().filter_map(key_string).collect())
                    .unwrap_or_default();
                Some(Include {
                    taskfile: m.get("taskfile").and_then(Value::as_str)?.to_string(),
                    optional: flag("optional"),
                    internal: flag("internal"),
                    flatten: flag("flatten"),
                    excludes,
                })
            }
            _ => None,
        }
    }
}

/// Remote (`https://`, `git@`) and templated (`{{.OS}}`) includes need Task itself.
fn is_local(path: &str) -> bool {
    !(path.contains("://")
        || path.starts_with("git@")
        || path.contains("{{")
        || path.starts_with('~'))
}

/// The Taskfile an include path names: the file itself, or the first Taskfile of a folder.
fn resolve(file: &SourceFile<'_>, base_dir: &Path, rel: &str) -> Option<PathBuf> {
    let path = normalize_path(&base_dir.join(rel));
    if file.fs.is_file(&path) {
        return Some(path);
    }
    if !file.fs.exists(&path) {
        return None;
    }
    TASKFILE_NAMES
        .iter()
        .map(|n| path.join(n))
        .find(|p| file.fs.is_file(p))
}

fn key_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `desc`, else the first line of `summary` (what `task --summary` starts with).
fn task_description(task: &Mapping) -> Option<String> {
    let text = |k: &str| {
        task.get(k)
            .and_then(key_string)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    text("desc")
        .or_else(|| {
            text("summary").and_then(|s| {
                s.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
            })
        })
        .or_else(|| text("description"))
}

/// `requires: {vars: [ENV, {name: MODE, enum: [dev, prod]}]}`: variables Task refuses to run
/// without, passed as `task NAME VAR=value`.
fn required_vars(task: &Mapping) -> Vec<ParamDef> {
    let Some(vars) = task
        .get("requires")
        .and_then(|r| r.get("vars"))
        .and_then(Value::as_sequence)
    else {
        return Vec::new();
    };
    vars.iter()
        .filter_map(|v| {
            let (name, options) = match v {
                Value::Mapping(m) => {
                    let name = m.get("name").and_then(key_string)?;
                    let options = m
                        .get("enum")
                        .and_then(Value::as_sequence)
                        .map(|e| e.iter().filter_map(key_string).collect())
                        .unwrap_or_default();
                    (name, options)
                }
                other => (key_string(other)?, Vec::new()),
            };
            let mut p = ParamDef::new(name.clone());
            p.options = options;
            p.format = Some(ParamFormat::FlagEquals);
            p.flag = Some(name);
            Some(p)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::common::MAX_INCLUDE_DEPTH;
    use crate::sources::testing::{descriptions, labels, parse_in, parse_with, steps};

    #[test]
    fn aliases_are_recorded() {
        let p = parse_with(
            super::parse,
            "/w/Taskfile.yml",
            "version: '3'\ntasks:\n  test:\n    aliases: [t, tst]\n    cmds: [go test ./...]\n",
        );
        assert_eq!(p.commands[0].aliases, vec!["t", "tst"]);
    }

    #[test]
    fn colon_names_get_lines_and_wildcards_take_a_parameter() {
        let p = parse_with(
            super::parse,
            "/w/Taskfile.yml",
            "version: '3'\ntasks:\n  db:migrate:\n    cmds: [x]\n  'quoted:name':\n    cmds: [x]\n  release:*:\n    desc: Release a part\n    cmds:\n      - echo {{index .MATCH 0}}\n",
        );
        let got: Vec<(&str, Option<u32>)> = p
            .commands
            .iter()
            .map(|c| (c.label.as_str(), c.line))
            .collect();
        assert_eq!(
            got,
            [
                ("db:migrate", Some(3)),
                ("quoted:name", Some(5)),
                ("release:*", Some(7))
            ]
        );
        let release = &p.commands[2];
        assert_eq!(release.params.len(), 1);
        assert_eq!(release.params[0].name, "arg");
        assert_eq!(release.command, "task 'release:*'");
    }

    #[test]
    fn an_included_taskfile_is_listed_once_under_its_namespace() {
        let fs = MemFs::new()
            .file(
                "/w/Taskfile.yml",
                "version: '3'\nincludes:\n  docs: ./docs\ntasks:\n  build:\n    cmds: [x]\n",
            )
            .file(
                "/w/docs/Taskfile.yml",
                "version: '3'\ntasks:\n  serve:\n    cmds: [x]\n",
            )
            .file(
                "/w/other/Taskfile.yml",
                "version: '3'\ntasks:\n  own:\n    cmds: [x]\n",
            );
        assert_eq!(
            labels(&parse_in(super::parse, &fs, "/w/Taskfile.yml")),
            ["build", "docs:serve"]
        );
        assert!(
            parse_in(super::parse, &fs, "/w/docs/Taskfile.yml")
                .commands
                .is_empty()
        );
        assert_eq!(
            labels(&parse_in(super::parse, &fs, "/w/other/Taskfile.yml")),
            ["own"]
        );
    }

    const PATH: &str = "/w/svc/Taskfile.yml";

    fn parse(content: &str) -> Parsed {
        parse_with(super::parse, PATH, content)
    }

    /// The upstream fixture shape that produced 14 bogus tasks (§3.13 [ACTUAL]).
    const FIXTURE: &str = r#"version: '3'

vars:
  GREETING: hello

tasks:
  build:
    desc: Build the project
    cmds:
      - go build ./...
  test:
    desc: "Run tests"
    deps: [build]
    cmds:
      - go test ./...
  lint:
    cmds:
      - golangci-lint run
  deploy:
    description: 'Deploy to production'
    cmds:
      - ./deploy.sh
  clean:
    cmds:
      - rm -rf dist
    vars:
      OUTPUT_DIR: dist
  format:
    summary: |
      Format all Go files.

      Uses gofumpt.
    cmds:
      - gofumpt -w .
  generate: go generate ./...
  setup-env:
    - cp .env.example .env
    - echo done
  helper:
    internal: true
    cmds:
      - echo internal
"#;

    #[test]
    fn only_top_level_task_keys_are_tasks_regression_3_13() {
        let p = parse(FIXTURE);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            [
                "build",
                "test",
                "lint",
                "deploy",
                "clean",
                "format",
                "generate",
                "setup-env"
            ]
        );
    }

    #[test]
    fn descriptions_are_attached_regression_3_13() {
        let p = parse(FIXTURE);
        let d = descriptions(&p);
        assert_eq!(
            d,
            [
                Some("Build the project"),
                Some("Run tests"),
                None,
                Some("Deploy to production"),
                None,
                Some("Format all Go files."),
                None,
                None
            ]
        );
    }

    #[test]
    fn item_shape_with_lines() {
        let p = parse(FIXTURE);
        let build = &p.commands[0];
        assert_eq!(build.id, "taskfile:/w/svc/Taskfile.yml:build");
        assert_eq!(build.kind, "taskfile");
        assert_eq!(build.command, "task build");
        assert_eq!(build.cwd, "/w/svc");
        assert_eq!(build.line, Some(7));
        assert_eq!(p.commands[1].line, Some(11));
        assert_eq!(p.commands[7].line, Some(36));
    }

    #[test]
    fn internal_tasks_are_not_emitted() {
        let p = parse(FIXTURE);
        assert!(!labels(&p).contains(&"helper"));
    }

    #[test]
    fn short_syntax_tasks() {
        let p = parse(
            "version: '3'\ntasks:\n  hello: echo hello\n  multi:\n    - echo a\n    - echo b\n  empty:\n",
        );
        assert_eq!(labels(&p), ["hello", "multi", "empty"]);
        assert_eq!(p.commands[0].command, "task hello");
    }

    #[test]
    fn required_vars_become_params() {
        let p = parse(
            "version: '3'\ntasks:\n  deploy:\n    requires:\n      vars:\n        - IMAGE\n        \
             - name: ENV\n          enum: [dev, staging, prod]\n    cmds:\n      - ./deploy {{.ENV}}\n",
        );
        let params = &p.commands[0].params;
        assert_eq!(params.len(), 2);
        assert_eq!(params[0].name, "IMAGE");
        assert_eq!(params[0].format, Some(ParamFormat::FlagEquals));
        assert_eq!(params[0].flag.as_deref(), Some("IMAGE"));
        assert!(params[0].options.is_empty());
        assert_eq!(params[1].name, "ENV");
        assert_eq!(params[1].options, ["dev", "staging", "prod"]);
        assert_eq!(params[1].flag.as_deref(), Some("ENV"));
    }

    #[test]
    fn keys_stay_in_file_order_and_odd_names_are_quoted() {
        let p = parse(
            "tasks:\n  zeta: echo z\n  'docker:build': echo d\n  alpha: echo a\n  \"with space\": echo s\n",
        );
        assert_eq!(labels(&p), ["zeta", "docker:build", "alpha", "with space"]);
        assert_eq!(p.commands[1].command, "task docker:build");
        assert_eq!(p.commands[1].line, Some(3));
        assert_eq!(p.commands[3].command, "task 'with space'");
        assert_eq!(p.commands[3].line, Some(5));
    }

    #[test]
    fn merge_keys_are_applied() {
        let p = parse(
            "x-defaults: &defaults\n  desc: Shared description\n  cmds: [echo hi]\ntasks:\n  a:\n    <<: *defaults\n  b:\n    <<: *defaults\n    desc: Own\n",
        );
        assert_eq!(labels(&p), ["a", "b"]);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Shared description")
        );
        assert_eq!(p.commands[1].description.as_deref(), Some("Own"));
    }

    #[test]
    fn deps_and_task_calls_are_steps_named_as_task_resolves_them() {
        let fs = MemFs::new()
            .file(
                "/w/Taskfile.yml",
                "version: '3'\nincludes:\n  tools: ./tools.yml\ntasks:\n  build:\n    deps: [clean, {task: gen, vars: {A: 1}}]\n    cmds:\n      - go build\n      - task: tools:lint\n      - defer: {task: notify}\n      - '{{.TASK_EXE}} fmt && task -d sub x'\n      - cmd: task vet test\n  short: [task clean]\n  clean: rm -rf ~/x\n  gen: x\n  notify: x\n  fmt: x\n  vet: x\n  test: x\n",
            )
            .file(
                "/w/tools.yml",
                "version: '3'\ntasks:\n  lint:\n    deps: [helper, ':clean']\n    cmds: [task: other]\n  helper: x\n  other: x\n",
            );
        let p = parse_in(super::parse, &fs, "/w/Taskfile.yml");
        assert_eq!(
            steps(&p, "build"),
            [
                ("clean".to_string(), "prerequisite"),
                ("gen".to_string(), "prerequisite"),
                ("tools:lint".to_string(), "call"),
                ("notify".to_string(), "call"),
                ("fmt".to_string(), "call"),
                ("vet".to_string(), "call"),
                ("test".to_string(), "call"),
            ]
        );
        assert_eq!(steps(&p, "short"), [("clean".to_string(), "call")]);
        assert_eq!(
            steps(&p, "tools:lint"),
            [
                ("tools:helper".to_string(), "prerequisite"),
                ("clean".to_string(), "prerequisite"),
                ("tools:other".to_string(), "call"),
            ]
        );
        let lint = p
            .commands
            .iter()
            .find(|c| c.id_name() == "tools:lint")
            .unwrap();
        assert_eq!(lint.line, Some(3), "listed at the include");
        let d = lint.defined_in.as_ref().unwrap();
        assert_eq!(
            (d.file.as_path(), d.line),
            (Path::new("/w/tools.yml"), Some(3))
        );
        let text = crate::fs::Fs::read(&fs, lint.definition_path()).unwrap();
        assert_eq!(
            crate::excerpt::command_text(lint, &text).text,
            "  lint:\n    deps: [helper, ':clean']\n    cmds: [task: other]"
        );
        assert!(
            p.commands
                .iter()
                .find(|c| c.id_name() == "build")
                .unwrap()
                .defined_in
                .is_none()
        );
    }

    fn tree() -> MemFs {
        MemFs::new()
            .file(
                PATH,
                "version: '3'\nincludes:\n  docs: ./documentation\n  docker:\n    taskfile: ./DockerTasks.yml\n  \
                 secret:\n    taskfile: ./internal.yml\n    internal: true\n  maybe:\n    taskfile: ./missing.yml\n    \
                 optional: true\n  remote: https://example.com/Taskfile.yml\n  os: ./Taskfile_{{OS}}.yml\n  \
                 flat:\n    taskfile: ./flat.yml\n    flatten: true\n    excludes: [skipme]\n\
                 tasks:\n  default:\n    cmds: [task --list]\n",
            )
            .file(
                "/w/svc/documentation/Taskfile.yml",
                "version: '3'\nincludes:\n  api: ./api\ntasks:\n  serve:\n    desc: Serve docs\n  hidden:\n    internal: true\n",
            )
            .file("/w/svc/documentation/api/Taskfile.yaml", "tasks:\n  gen: echo gen\n")
            .file("/w/svc/DockerTasks.yml", "tasks:\n  build:\n    desc: Build image\n")
            .file("/w/svc/internal.yml", "tasks:\n  nope: echo\n")
            .file("/w/svc/flat.yml", "tasks:\n  flat-task: echo\n  skipme: echo\n")
    }

    #[test]
    fn local_includes_are_namespaced() {
        let p = parse_in(super::parse, &tree(), PATH);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            [
                "default",
                "docs:serve",
                "docs:api:gen",
                "docker:build",
                "flat-task"
            ]
        );
        let serve = &p.commands[1];
        assert_eq!(serve.id, "taskfile:/w/svc/Taskfile.yml:docs:serve");
        assert_eq!(serve.command, "task docs:serve");
        assert_eq!(serve.file_path, PATH);
        assert_eq!(serve.cwd, "/w/svc");
        assert_eq!(serve.description.as_deref(), Some("Serve docs"));
        assert_eq!(
            serve.line,
            Some(3),
            "the line of the include entry in the root file"
        );
        assert_eq!(p.commands[2].line, Some(3));
        assert_eq!(p.commands[3].line, Some(4));
    }

    #[test]
    fn missing_required_include_warns() {
        let fs = MemFs::new().file(
            PATH,
            "includes:\n  lib: ./lib/Taskfile.yml\ntasks:\n  a: echo\n",
        );
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(labels(&p), ["a"]);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(
            p.warnings[0].message,
            "included Taskfile `./lib/Taskfile.yml` not found"
        );
        assert_eq!(p.warnings[0].line, Some(2));
    }

    #[test]
    fn include_cycles_stop() {
        let fs = MemFs::new()
            .file(PATH, "includes:\n  other: ./other\ntasks:\n  a: echo\n")
            .file(
                "/w/svc/other/Taskfile.yml",
                "includes:\n  back: ../\ntasks:\n  b: echo\n",
            );
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(labels(&p), ["a", "other:b"]);
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].message.contains("cycle"));
        assert_eq!(p.warnings[0].file, Path::new("/w/svc/other/Taskfile.yml"));
    }

    #[test]
    fn self_include_chain_is_bounded() {
        let mut fs = MemFs::new().file(PATH, "includes:\n  n: ./d0\n");
        for i in 0..20 {
            fs = fs.file(
                format!("/w/svc/d{i}/Taskfile.yml"),
                &format!("includes:\n  n: ../d{}\ntasks:\n  t: echo\n", i + 1),
            );
        }
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(p.commands.len(), MAX_INCLUDE_DEPTH);
        assert!(p.warnings.iter().any(|w| w.message.contains("too deeply")));
    }

    #[test]
    fn include_fan_out_is_bounded() {
        let includes = |next: usize| {
            (0..4)
                .map(|k| format!("  n{k}: ./t{next}.yml\n"))
                .collect::<String>()
        };
        let mut fs = MemFs::new().file(PATH, &format!("includes:\n{}", includes(0)));
        for i in 0..8 {
            fs = fs.file(
                format!("/w/svc/t{i}.yml"),
                &format!("includes:\n{}tasks:\n  t: echo\n", includes(i + 1)),
            );
        }
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(p.commands.len(), MAX_INCLUDED_FILES - 1);
        assert!(
            p.warnings
                .iter()
                .any(|w| w.message.contains("the rest are skipped"))
        );
    }

    #[test]
    fn malformed_include_warns_on_that_file() {
        let fs = MemFs::new()
            .file(PATH, "includes:\n  bad: ./bad.yml\ntasks:\n  a: echo\n")
            .file("/w/svc/bad.yml", "tasks:\n  x: [\n");
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(labels(&p), ["a"]);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].file, Path::new("/w/svc/bad.yml"));
        assert!(p.warnings[0].message.starts_with("invalid YAML"));
    }

    #[test]
    fn dist_file_beside_a_taskfile_is_named_in_the_command() {
        let fs = MemFs::new()
            .file("/w/Taskfile.yml", "tasks:\n  a: echo\n")
            .file("/w/Taskfile.dist.yml", "tasks:\n  b: echo\n");
        let p = parse_in(super::parse, &fs, "/w/Taskfile.dist.yml");
        assert_eq!(p.commands[0].command, "task --taskfile Taskfile.dist.yml b");
        let p = parse_in(super::parse, &fs, "/w/Taskfile.yml");
        assert_eq!(p.commands[0].command, "task a");
        let alone = MemFs::new().file("/w/taskfile.dist.yaml", "tasks:\n  c: echo\n");
        let p = parse_in(super::parse, &alone, "/w/taskfile.dist.yaml");
        assert_eq!(p.commands[0].command, "task c");
    }

    #[test]
    fn malformed_yaml_warns_with_line() {
        let p = parse("version: '3'\ntasks:\n  build:\n    cmds: [\n  test:\n");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert!(
            p.warnings[0].message.starts_with("invalid YAML"),
            "{}",
            p.warnings[0].message
        );
        assert!(p.warnings[0].line.is_some());
    }

    #[test]
    fn wrong_types_warn() {
        let p = parse("version: '3'\ntasks:\n  - build\n  - test\n");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings[0].message, "`tasks` is not a map");
        assert_eq!(p.warnings[0].line, Some(2));

        let p = parse("- a\n- b\n");
        assert_eq!(p.warnings[0].message, "Taskfile is not a map");

        let p = parse("tasks:\n  n: 42\n  ok: echo\n");
        assert_eq!(labels(&p), ["ok"]);
        assert_eq!(
            p.warnings[0].message,
            "task `n` is not a map, a string or a list"
        );
        assert_eq!(p.warnings[0].line, Some(2));

        let p = parse("includes: [a, b]\ntasks:\n  ok: echo\n");
        assert_eq!(labels(&p), ["ok"]);
        assert_eq!(p.warnings[0].message, "`includes` is not a map");

        let p = parse("includes:\n  x:\n    dir: ./x\n");
        assert_eq!(p.warnings[0].message, "include `x` has no `taskfile` path");
    }

    #[test]
    fn empty_and_garbage_inputs() {
        let p = parse("");
        assert!(p.commands.is_empty() && p.warnings.is_empty());
        for junk in [
            "\u{1}\u{2}\u{3}:",
            "tasks: {{{",
            "tasks:\n\t- x\n  y: [",
            "&a [*a]",
            "key: 'unterminated",
        ] {
            let p = parse(junk);
            assert!(p.commands.is_empty(), "{junk:?}");
        }
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
                    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n\
                    g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\ntasks:\n  t: echo\n";
        let p = parse(bomb);
        assert!(p.commands.is_empty());
        assert!(
            p.warnings[0].message.contains("repetition limit"),
            "{}",
            p.warnings[0].message
        );
        let deep = format!("tasks: {}", "[".repeat(10_000));
        assert_eq!(parse(&deep).warnings.len(), 1);
    }
}
