//! mise tasks (upstream §3.22): `[tasks]` of the config files, and file tasks (executable
//! scripts in the task folders).
//!
//! Config files are read once by `syntax`: TOML into its spanned tree (each task's line and file
//! order), YAML into a value whose mappings keep file order, with the lines of its keys.
//!
//! File task names follow mise: the path under the task folder with `/` turned into `:` (a `:`
//! inside a part becomes `_`, a trailing `:_default` is dropped), extension kept — so
//! `mise-tasks/db/seed.sh` is `db:seed.sh`. That full name is the id name and what the command
//! runs (`mise run db:seed.sh` always names exactly this task); the label drops the extension
//! like `mise tasks` displays it (`db:seed`).
//!
//! Arguments come from usage specs (`#USAGE` lines, the TOML `usage` field): `arg` nodes are
//! positional params; `flag "--env <env>"` is a `flag` param; a flag without a value
//! (`flag "--force"`) is a positional param whose only option is the flag itself, so choosing it
//! appends `--force` and leaving it empty omits it.
//!
//! A task's steps are its `depends` and `depends_post` (`wait_for` runs nothing: it only orders
//! tasks that run anyway) and the tasks its `run` starts (`{ task = "x" }`, `{ tasks = [..] }`,
//! `mise run x` in a script), looked up among the tasks of the same project folder.

use super::calls::{mise_call, simple_commands};
use super::common::{one_command, with_line};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef, ParamFormat, StepHow, StepRef, StepScope};
use crate::syntax::{toml as toml_syntax, yaml};
use crate::text;
use std::path::{Path, PathBuf};
use toml::de::DeValue;

const KIND: &str = "mise";

/// Task folders, as path component sequences, in mise's search order.
const TASK_DIRS: &[&[&str]] = &[
    &["mise-tasks"],
    &[".mise-tasks"],
    &[".mise", "tasks"],
    &[".config", "mise", "tasks"],
    &["mise", "tasks"],
];

/// What one config task says about itself.
struct TaskDef {
    name: String,
    line: Option<usize>,
    description: Option<String>,
    hide: bool,
    usage: Option<String>,
    aliases: Vec<String>,
    steps: Vec<StepRef>,
}

/// A TOML or YAML value, as far as steps need one.
enum Plain {
    Str(String),
    List(Vec<Plain>),
    Map(Vec<(String, Plain)>),
    Other,
}

impl Plain {
    fn toml(v: &DeValue<'_>) -> Plain {
        match v {
            DeValue::String(s) => Plain::Str(s.to_string()),
            DeValue::Array(a) => Plain::List(a.iter().map(|x| Plain::toml(x.get_ref())).collect()),
            DeValue::Table(t) => Plain::Map(
                t.iter()
                    .map(|(k, v)| (k.get_ref().to_string(), Plain::toml(v.get_ref())))
                    .collect(),
            ),
            _ => Plain::Other,
        }
    }
    fn toml_value(v: &toml::Value) -> Plain {
        match v {
            toml::Value::String(s) => Plain::Str(s.clone()),
            toml::Value::Array(a) => Plain::List(a.iter().map(Plain::toml_value).collect()),
            toml::Value::Table(t) => Plain::Map(
                t.iter()
                    .map(|(k, v)| (k.clone(), Plain::toml_value(v)))
                    .collect(),
            ),
            _ => Plain::Other,
        }
    }
    fn yaml(v: &serde_yaml_ng::Value) -> Plain {
        use serde_yaml_ng::Value;
        match v {
            Value::String(s) => Plain::Str(s.clone()),
            Value::Sequence(a) => Plain::List(a.iter().map(Plain::yaml).collect()),
            Value::Mapping(m) => Plain::Map(
                m.iter()
                    .filter_map(|(k, v)| Some((k.as_str()?.to_string(), Plain::yaml(v))))
                    .collect(),
            ),
            _ => Plain::Other,
        }
    }
    fn get(&self, key: &str) -> Option<&Plain> {
        match self {
            Plain::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    /// A string, or each string of a list.
    fn strings(&self) -> Vec<&str> {
        match self {
            Plain::Str(s) => vec![s.as_str()],
            Plain::List(l) => l
                .iter()
                .filter_map(|x| match x {
                    Plain::Str(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The steps of a task: `depends`, `depends_post`, and what `run` starts. `depends` entries are
/// a task name with arguments (`"build --release"`) or `{ task = "x" }`.
fn task_steps(task: &Plain) -> Vec<StepRef> {
    let mut out: Vec<StepRef> = Vec::new();
    let mut push = |name: &str, how: StepHow| {
        let step = StepRef::new(name, how, true).scope(StepScope::SameFolder);
        if !name.is_empty() && !name.contains("{{") && !out.contains(&step) {
            out.push(step);
        }
    };
    for (key, how) in [
        ("depends", StepHow::Prerequisite),
        ("depends_post", StepHow::Hook),
    ] {
        let entries: Vec<&Plain> = match task.get(key) {
            Some(Plain::List(l)) => l.iter().collect(),
            Some(v) => vec![v],
            None => Vec::new(),
        };
        for e in entries {
            match e {
                Plain::Str(s) => push(s.split_whitespace().next().unwrap_or(""), how),
                Plain::Map(_) => {
                    for n in e.get("task").map(Plain::strings).unwrap_or_default() {
                        push(n, how);
                    }
                }
                _ => {}
            }
        }
    }
    let runs: Vec<&Plain> = match task {
        Plain::Map(_) => match task.get("run") {
            Some(Plain::List(l)) => l.iter().collect(),
            Some(v) => vec![v],
            None => Vec::new(),
        },
        Plain::List(l) => l.iter().collect(),
        other => vec![other],
    };
    for r in runs {
        match r {
            Plain::Str(script) => {
                for n in script_calls(script) {
                    push(&n, StepHow::Call);
                }
            }
            Plain::Map(_) => {
                for key in ["task", "tasks"] {
                    for n in r.get(key).map(Plain::strings).unwrap_or_default() {
                        push(n.split_whitespace().next().unwrap_or(""), StepHow::Call);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The tasks a script starts with `mise run x`.
fn script_calls(script: &str) -> Vec<String> {
    if !script.contains("mise") {
        return Vec::new();
    }
    simple_commands(script)
        .iter()
        .filter_map(mise_call)
        .flat_map(|c| c.names)
        .collect()
}

pub fn parse_config(file: &SourceFile<'_>) -> Parsed {
    let mut out = Parsed::default();
    let name = &*file.file_name();
    let mut includes = Vec::new();
    let defs = if name.ends_with(".yaml") || name.ends_with(".yml") {
        yaml_tasks(file, &mut out, &mut includes)
    } else {
        toml_tasks(file, &mut out, &mut includes)
    };
    let cwd = config_project_dir(file.path);
    let base = base_command(name);
    emit(&mut out, file.path, &cwd, &base, defs);
    if !includes.is_empty() {
        let mut walk = IncludeWalk {
            file,
            project: &cwd,
            base: &base,
            out: &mut out,
            files: 0,
        };
        for (rel, line) in includes {
            walk.include(&rel, line);
        }
    }
    out
}

/// `mise run`, or `mise -E ENV run` for a `mise.ENV.toml` that only applies in that environment.
fn base_command(config_name: &str) -> String {
    let env = config_name
        .trim_start_matches('.')
        .strip_prefix("mise.")
        .and_then(|r| r.strip_suffix(".toml"))
        .map(|r| r.strip_suffix(".local").unwrap_or(r))
        .filter(|e| !e.is_empty() && *e != "local");
    match env {
        Some(e) => format!("mise -E {} run", text::sh_word(e)),
        None => "mise run".to_string(),
    }
}

fn emit(out: &mut Parsed, path: &Path, cwd: &Path, base: &str, defs: Vec<TaskDef>) {
    for def in defs {
        if def.hide {
            continue;
        }
        let params = def.usage.as_deref().map(usage_params).unwrap_or_default();
        let command = format!("{base} {}", text::sh_word(&def.name));
        let mut item = CommandItem::new(KIND, path, &def.name, command)
            .cwd(cwd)
            .opt_description(def.description)
            .params(params)
            .private(def.name.starts_with('_'));
        item.steps = def.steps;
        item.aliases = def.aliases;
        out.commands.push(with_line(item, def.line));
    }
}

/// Files read through `[task_config] includes`, per config file: enough for any real task tree,
/// bounded against a crafted one.
const MAX_INCLUDED_TASK_FILES: usize = 512;
const MAX_INCLUDE_DEPTH: usize = 8;

/// Follows `[task_config] includes`: a `.toml` file is a TOML task file (each top-level table a
/// task); a folder holds file tasks (executable files, named by their path in it) and TOML task
/// files, searched recursively. Default task folders are left to `parse_file_task`, which the
/// walk routes them to, so nothing is listed twice.
struct IncludeWalk<'a, 'f> {
    file: &'a SourceFile<'f>,
    project: &'a Path,
    base: &'a str,
    out: &'a mut Parsed,
    files: usize,
}

impl IncludeWalk<'_, '_> {
    fn include(&mut self, rel: &str, line: Option<usize>) {
        if rel.starts_with('~') || rel.starts_with('/') || rel.contains("{{") {
            return;
        }
        let target = super::common::normalize_path(&self.project.join(rel));
        if !target.starts_with(self.file.root) {
            return;
        }
        let fs = self.file.fs;
        if fs.is_file(&target) {
            self.toml_file(&target);
        } else if fs.exists(&target) {
            if split_task_path(&target.join("x")).is_some_and(|(p, _)| p == self.project) {
                return;
            }
            self.folder(&target, &target, 0);
        } else {
            self.out.warn(
                self.file.path,
                line,
                format!("included task path `{rel}` not found"),
            );
        }
    }

    fn budget(&mut self) -> bool {
        self.files += 1;
        if self.files == MAX_INCLUDED_TASK_FILES + 1 {
            self.out.warn(
                self.file.path,
                None,
                format!(
                    "more than {MAX_INCLUDED_TASK_FILES} included task files; the rest are skipped"
                ),
            );
        }
        self.files <= MAX_INCLUDED_TASK_FILES
    }

    fn toml_file(&mut self, path: &Path) {
        if !self.budget() {
            return;
        }
        let Some(content) = self.file.fs.read(path) else {
            self.out
                .warn(path, None, "included task file is unreadable".to_string());
            return;
        };
        let defs = toml_task_file(path, &content, self.out);
        emit(self.out, path, self.project, self.base, defs);
    }

    fn folder(&mut self, top: &Path, dir: &Path, depth: usize) {
        if depth > MAX_INCLUDE_DEPTH {
            return;
        }
        let fs = self.file.fs;
        for entry in fs.list_dir(dir) {
            let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with('.') {
                continue;
            }
            if fs.is_file(&entry) {
                if name.ends_with(".toml") && !is_config_name(name) {
                    self.toml_file(&entry);
                } else if fs.is_executable(&entry) && self.budget() {
                    let rel: Vec<String> = entry
                        .strip_prefix(top)
                        .unwrap_or(&entry)
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    let content = fs.read(&entry).unwrap_or_default();
                    if let Some(item) = file_task_item(&entry, &content, self.project, &rel) {
                        self.out.commands.push(item);
                    }
                }
            } else if fs.exists(&entry) {
                self.folder(top, &entry, depth + 1);
            }
        }
    }
}

/// mise config file names, which a task folder's TOML task files are not.
fn is_config_name(name: &str) -> bool {
    let n = name.trim_start_matches('.');
    n == "config.toml" || (n.starts_with("mise.") && n.ends_with(".toml"))
}

/// A TOML task file: every top-level table is a task.
fn toml_task_file(path: &Path, content: &str, out: &mut Parsed) -> Vec<TaskDef> {
    match toml_syntax::parse(content) {
        Ok(doc) => task_defs(path, &doc, doc.root(), out),
        Err((line, msg)) => {
            out.warn(path, line, msg);
            Vec::new()
        }
    }
}

/// The folder mise treats as the project for a config file: `.config/mise.toml`,
/// `.config/mise/config.toml`, `mise/config.toml` and `.mise/config.toml` belong to the folder
/// above `.config`/`mise`/`.mise`.
fn config_project_dir(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("/"));
    let dir_name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let up = |d: &Path| d.parent().unwrap_or(d).to_path_buf();
    match (dir_name, file_name) {
        (".config", "mise.toml") | (".mise" | "mise", "config.toml") => {
            let parent = up(dir);
            let in_dot_config = dir_name == "mise"
                && parent.file_name().and_then(|n| n.to_str()) == Some(".config");
            if in_dot_config { up(&parent) } else { parent }
        }
        _ => dir.to_path_buf(),
    }
}

fn toml_tasks(
    file: &SourceFile<'_>,
    out: &mut Parsed,
    includes: &mut Vec<(String, Option<usize>)>,
) -> Vec<TaskDef> {
    let doc = match toml_syntax::parse(file.content) {
        Ok(doc) => doc,
        Err((line, msg)) => {
            out.warn(file.path, line, msg);
            return Vec::new();
        }
    };
    let root = doc.root();
    if let Some(tc) = root.get("task_config")
        && let DeValue::Table(tc) = tc.get_ref()
        && let Some(inc) = tc.get("includes")
        && let DeValue::Array(list) = inc.get_ref()
    {
        for v in list.iter() {
            if let DeValue::String(p) = v.get_ref() {
                includes.push((p.to_string(), Some(doc.line(v.span().start))));
            }
        }
    }
    let Some(tasks) = root.get("tasks") else {
        return Vec::new();
    };
    let DeValue::Table(tasks) = tasks.get_ref() else {
        out.warn(
            file.path,
            Some(doc.line(tasks.span().start)),
            "`tasks` is not a table",
        );
        return Vec::new();
    };
    task_defs(file.path, &doc, tasks, out)
}

/// The tasks of a TOML table of tasks (`[tasks]` of a config, or a whole TOML task file).
fn task_defs(
    path: &Path,
    doc: &toml_syntax::Doc<'_>,
    tasks: &toml::de::DeTable<'_>,
    out: &mut Parsed,
) -> Vec<TaskDef> {
    let mut entries: Vec<_> = tasks.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut defs = Vec::new();
    for (key, value) in entries {
        let name = key.get_ref().to_string();
        let line = doc.line(key.span().start);
        let plain = Plain::toml(value.get_ref());
        let def = match value.get_ref() {
            DeValue::String(_) | DeValue::Array(_) => TaskDef {
                name,
                line: Some(line),
                description: None,
                hide: false,
                usage: None,
                aliases: Vec::new(),
                steps: task_steps(&plain),
            },
            DeValue::Table(t) => {
                let string = |k: &str| match t.get(k).map(|v| v.get_ref()) {
                    Some(DeValue::String(s)) => Some(s.to_string()),
                    _ => None,
                };
                let hide = matches!(
                    t.get("hide").map(|v| v.get_ref()),
                    Some(DeValue::Boolean(true))
                );
                TaskDef {
                    name,
                    line: Some(line),
                    description: string("description"),
                    hide,
                    usage: string("usage"),
                    aliases: aliases(&plain),
                    steps: task_steps(&plain),
                }
            }
            _ => {
                out.warn(
                    path,
                    Some(line),
                    format!("task `{name}` is not a table, a string or an array"),
                );
                continue;
            }
        };
        defs.push(def);
    }
    defs
}

fn yaml_tasks(
    file: &SourceFile<'_>,
    out: &mut Parsed,
    includes: &mut Vec<(String, Option<usize>)>,
) -> Vec<TaskDef> {
    use serde_yaml_ng::Value;
    let (doc, spans) = match yaml::parse(file.content) {
        Ok(d) => (d.value, d.spans),
        Err((line, msg)) => {
            out.warn(file.path, line, msg);
            return Vec::new();
        }
    };
    if let Some(Value::Sequence(list)) = doc.get("task_config").and_then(|t| t.get("includes")) {
        let items = spans
            .at(&["task_config", "includes"])
            .map(yaml::Spans::items)
            .unwrap_or_default();
        for (i, p) in list.iter().enumerate() {
            if let Some(p) = p.as_str() {
                includes.push((p.to_string(), items.get(i).map(|s| s.line)));
            }
        }
    }
    let tasks = match doc.get("tasks") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Mapping(t)) => t,
        Some(_) => {
            out.warn(file.path, spans.key_line("tasks"), "`tasks` is not a map");
            return Vec::new();
        }
    };
    let lines = spans.key_lines_under("tasks");
    let mut defs = Vec::new();
    for (key, value) in tasks {
        let Some(name) = key.as_str().map(str::to_string) else {
            continue;
        };
        let line = lines.get(name.as_str()).copied();
        let plain = Plain::yaml(value);
        let def = match value {
            // `world:` with nothing under it: mise and the upstream extension list it.
            Value::String(_) | Value::Sequence(_) | Value::Null => TaskDef {
                name,
                line,
                description: None,
                hide: false,
                usage: None,
                aliases: Vec::new(),
                steps: task_steps(&plain),
            },
            Value::Mapping(t) => TaskDef {
                description: t
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                hide: t.get("hide").and_then(Value::as_bool) == Some(true),
                usage: t.get("usage").and_then(Value::as_str).map(str::to_string),
                aliases: aliases(&plain),
                steps: task_steps(&plain),
                name,
                line,
            },
            _ => {
                out.warn(
                    file.path,
                    line,
                    format!("task `{name}` is not a map, a string or a list"),
                );
                continue;
            }
        };
        defs.push(def);
    }
    defs
}

/// `alias = "b"` or `alias = ["b", "c"]`: other names `mise run` takes.
fn aliases(task: &Plain) -> Vec<String> {
    task.get("alias")
        .map(Plain::strings)
        .unwrap_or_default()
        .into_iter()
        .map(str::to_string)
        .collect()
}

pub fn parse_file_task(file: &SourceFile<'_>) -> Parsed {
    let Some((project, rel)) = split_task_path(file.path) else {
        return Parsed::default();
    };
    if rel.iter().any(|part| part.starts_with('.')) {
        return Parsed::default();
    }
    // A `.toml` file in a task folder is a TOML task file (mise's task discovery).
    let name = &*file.file_name();
    if !file.executable && name.ends_with(".toml") && !is_config_name(name) {
        let mut out = Parsed::default();
        let defs = toml_task_file(file.path, file.content, &mut out);
        emit(&mut out, file.path, &project, "mise run", defs);
        return out;
    }
    // mise only runs executable files; anything else in a task folder is a helper or data.
    if !file.executable {
        return Parsed::default();
    }
    match file_task_item(file.path, file.content, &project, &rel) {
        Some(item) => one_command(item),
        None => Parsed::default(),
    }
}

/// The command for an executable file task at `path`, `rel` being its path parts under the
/// task folder.
fn file_task_item(
    path: &Path,
    content: &str,
    project: &Path,
    rel: &[String],
) -> Option<CommandItem> {
    let name = task_name(rel);
    if name.is_empty() {
        return None;
    }
    let header = file_header(content);
    if header.hide {
        return None;
    }
    let params = usage_params(&header.usage);
    let command = format!("mise run {}", text::sh_word(&name));
    let label = display_name(&name);
    let private = label.starts_with('_');
    // The file is the task's script: its header's `depends`, then what the script runs.
    let mut keys = header.keys;
    keys.push(("run".to_string(), Plain::Str(content.to_string())));
    let spec = Plain::Map(keys);
    let mut item = CommandItem::new(KIND, path, &name, command)
        .label(label)
        .cwd(project)
        .opt_description(header.description)
        .params(params)
        .private(private);
    item.steps = task_steps(&spec);
    item.aliases = aliases(&spec);
    Some(item)
}

/// The project folder and the path parts under the innermost task folder.
fn split_task_path(path: &Path) -> Option<(PathBuf, Vec<String>)> {
    let parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let mut best: Option<(usize, usize)> = None;
    for start in 0..parts.len() {
        for dir in TASK_DIRS {
            let end = start + dir.len();
            if end < parts.len()
                && parts[start..end]
                    .iter()
                    .zip(dir.iter())
                    .all(|(a, b)| a == b)
            {
                // The innermost folder wins; of two ending at the same place the longer one
                // does (`.config/mise/tasks` rather than its tail `mise/tasks`).
                if best.is_none_or(|(s, e)| end > e || (end == e && start < s)) {
                    best = Some((start, end));
                }
            }
        }
    }
    let (start, end) = best?;
    let project: PathBuf = parts[..start].iter().collect();
    Some((project, parts[end..].to_vec()))
}

fn task_name(rel: &[String]) -> String {
    let name = rel
        .iter()
        .map(|p| p.replace(':', "_"))
        .collect::<Vec<_>>()
        .join(":");
    match name.strip_suffix(":_default") {
        Some(n) => n.to_string(),
        None => name,
    }
}

/// The name without the extension of its last part (`db:seed.sh` → `db:seed`).
fn display_name(name: &str) -> String {
    let (prefix, last) = match name.rsplit_once(':') {
        Some((p, l)) => (Some(p), l),
        None => (None, name),
    };
    let stem = match last.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => last,
    };
    match prefix {
        Some(p) => format!("{p}:{stem}"),
        None => stem.to_string(),
    }
}

#[derive(Default)]
struct FileHeader {
    description: Option<String>,
    hide: bool,
    usage: String,
    /// `#MISE depends=[..]`, `depends_post`, `alias` as written.
    keys: Vec<(String, Plain)>,
}

/// `#MISE key=value` (also `# [MISE]`, `//MISE`, `::MISE`, and the older `# mise key=value`)
/// lines are TOML; `#USAGE ...` lines form a usage spec.
fn file_header(content: &str) -> FileHeader {
    let mut h = FileHeader::default();
    for line in content.lines() {
        if let Some(kv) = mise_directive(line) {
            if let Ok(table) = text::parse_toml(kv) {
                if let Some(d) = table.get("description").and_then(|v| v.as_str()) {
                    h.description = Some(d.to_string());
                }
                if let Some(b) = table.get("hide").and_then(|v| v.as_bool()) {
                    h.hide = b;
                }
                for key in ["depends", "depends_post", "alias"] {
                    if let Some(v) = table.get(key) {
                        h.keys.push((key.to_string(), Plain::toml_value(v)));
                    }
                }
            }
        } else if let Some(spec) = usage_directive(line) {
            h.usage.push_str(spec);
            h.usage.push('\n');
        }
    }
    h
}

fn mise_directive(line: &str) -> Option<&str> {
    let rest = ["#", "//", "::"]
        .iter()
        .find_map(|p| line.strip_prefix(p))?;
    let kv = rest
        .strip_prefix("MISE ")
        .or_else(|| rest.strip_prefix("[MISE] "))
        .or_else(|| rest.strip_prefix(" [MISE] "))
        .or_else(|| {
            (!line.starts_with("::"))
                .then(|| rest.strip_prefix(" mise "))
                .flatten()
        })?;
    let (key, _) = kv.split_once('=')?;
    let valid = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '.' | '-'));
    valid.then_some(kv)
}

fn usage_directive(line: &str) -> Option<&str> {
    let rest = ["#", "//", "::"]
        .iter()
        .find_map(|p| line.strip_prefix(p))?;
    rest.strip_prefix("USAGE")
        .or_else(|| rest.strip_prefix("[USAGE]"))
        .or_else(|| rest.strip_prefix(" [USAGE]"))
        .filter(|r| r.is_empty() || r.starts_with([' ', '\t']))
}

// ---- usage spec (a small subset of KDL) ----

#[derive(Debug, Clone, PartialEq)]
enum KTok {
    Word(String),
    Str(String),
    Eq,
    Open,
    Close,
    End,
}

#[derive(Debug, Default)]
struct Node {
    name: String,
    args: Vec<String>,
    props: Vec<(String, String)>,
    children: Vec<Node>,
}

impl Node {
    fn prop(&self, key: &str) -> Option<&str> {
        self.props
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    fn flag(&self, key: &str) -> bool {
        matches!(self.prop(key), Some("#true" | "true"))
    }
}

/// Nesting beyond this is not a usage spec anyone writes; it stops runaway recursion.
const MAX_KDL_DEPTH: usize = 16;

fn kdl_tokens(src: &str) -> Vec<KTok> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '\n' | ';' => {
                out.push(KTok::End);
                i += 1;
            }
            '{' => {
                out.push(KTok::Open);
                i += 1;
            }
            '}' => {
                out.push(KTok::Close);
                i += 1;
            }
            '=' => {
                out.push(KTok::Eq);
                i += 1;
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while chars.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
            }
            '"' => {
                let mut s = String::new();
                i += 1;
                while let Some(&c) = chars.get(i) {
                    i += 1;
                    match c {
                        '\\' => {
                            let esc = chars.get(i).copied();
                            i += 1;
                            match esc {
                                Some('n') => s.push('\n'),
                                Some('t') => s.push('\t'),
                                Some(e) => s.push(e),
                                None => {}
                            }
                        }
                        '"' => break,
                        c => s.push(c),
                    }
                }
                out.push(KTok::Str(s));
            }
            c if c.is_whitespace() => i += 1,
            _ => {
                let start = i;
                while chars.get(i).is_some_and(|&c| {
                    !c.is_whitespace() && !matches!(c, '{' | '}' | ';' | '=' | '"')
                }) {
                    i += 1;
                }
                out.push(KTok::Word(chars[start..i].iter().collect()));
            }
        }
    }
    out
}

fn kdl_nodes(toks: &[KTok], pos: &mut usize, depth: usize) -> Vec<Node> {
    let mut nodes = Vec::new();
    while let Some(tok) = toks.get(*pos) {
        match tok {
            KTok::Close => {
                *pos += 1;
                if depth > 0 {
                    return nodes;
                }
            }
            KTok::End | KTok::Eq | KTok::Open => *pos += 1,
            KTok::Word(name) | KTok::Str(name) => {
                *pos += 1;
                let mut node = Node {
                    name: name.clone(),
                    ..Default::default()
                };
                while let Some(tok) = toks.get(*pos) {
                    match tok {
                        KTok::Word(w) | KTok::Str(w) => {
                            *pos += 1;
                            if toks.get(*pos) == Some(&KTok::Eq) {
                                *pos += 1;
                                if let Some(KTok::Word(v) | KTok::Str(v)) = toks.get(*pos) {
                                    node.props.push((w.clone(), v.clone()));
                                    *pos += 1;
                                }
                            } else {
                                node.args.push(w.clone());
                            }
                        }
                        KTok::Open => {
                            *pos += 1;
                            if depth < MAX_KDL_DEPTH {
                                node.children = kdl_nodes(toks, pos, depth + 1);
                            } else {
                                skip_block(toks, pos);
                            }
                            break;
                        }
                        KTok::Eq => *pos += 1,
                        KTok::End | KTok::Close => break,
                    }
                }
                nodes.push(node);
            }
        }
    }
    nodes
}

fn skip_block(toks: &[KTok], pos: &mut usize) {
    let mut level = 1usize;
    while let Some(tok) = toks.get(*pos) {
        *pos += 1;
        match tok {
            KTok::Open => level += 1,
            KTok::Close => {
                level -= 1;
                if level == 0 {
                    return;
                }
            }
            _ => {}
        }
    }
}

/// Params from a usage spec's `arg` and `flag` nodes.
fn usage_params(spec: &str) -> Vec<ParamDef> {
    let toks = kdl_tokens(spec);
    let mut pos = 0;
    kdl_nodes(&toks, &mut pos, 0)
        .iter()
        .filter_map(|node| match node.name.as_str() {
            "arg" => arg_param(node),
            "flag" => flag_param(node),
            _ => None,
        })
        .collect()
}

fn choices(node: &Node) -> Vec<String> {
    node.children
        .iter()
        .filter(|c| c.name == "choices")
        .flat_map(|c| c.args.iter().cloned())
        .collect()
}

/// `arg "<file>"` (required), `arg "[file]"` (optional), `arg "<files>..."` (variadic).
fn arg_param(node: &Node) -> Option<ParamDef> {
    let spec = node.args.first()?.trim();
    let (spec, variadic) = match spec.strip_suffix("...") {
        Some(s) => (s.trim_end(), true),
        None => (spec, false),
    };
    let (name, optional) = if let Some(n) = spec.strip_prefix('<').and_then(|s| s.strip_suffix('>'))
    {
        (n, false)
    } else if let Some(n) = spec.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        (n, true)
    } else {
        (spec, false)
    };
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let mut p = ParamDef::new(name);
    if let Some(help) = node.prop("help") {
        p = p.with_description(help);
    }
    p.variadic = variadic || node.flag("var");
    let optional = optional || matches!(node.prop("required"), Some("#false" | "false"));
    if let Some(d) = node.prop("default") {
        p = p.with_default(d);
    } else if optional {
        p = p.with_default("");
    }
    p.options = choices(node);
    Some(p)
}

/// `flag "-f --force"` (a switch) or `flag "-e --env <env>"` (takes a value).
fn flag_param(node: &Node) -> Option<ParamDef> {
    let spec = node.args.first()?;
    let words: Vec<&str> = spec.split_whitespace().collect();
    let names: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| w.starts_with('-'))
        .collect();
    let takes_value = words
        .iter()
        .any(|w| w.starts_with('<') || w.starts_with('['));
    let flag = names
        .iter()
        .find(|n| n.starts_with("--"))
        .or_else(|| names.first())
        .copied()?;
    let name = flag.trim_start_matches('-');
    if name.is_empty() {
        return None;
    }
    let mut p = ParamDef::new(name);
    if let Some(help) = node.prop("help") {
        p = p.with_description(help);
    }
    if takes_value {
        p.format = Some(ParamFormat::Flag);
        p.flag = Some(flag.to_string());
        p.options = choices(node);
        if let Some(d) = node.prop("default") {
            p = p.with_default(d);
        }
    } else {
        p.options = vec![flag.to_string()];
        p = p.with_default("");
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{labels, parse_in, parse_with, step_refs, warnings};

    fn config(path: &str, content: &str) -> Parsed {
        parse_with(parse_config, path, content)
    }

    fn file_task(path: &str, content: &str) -> Parsed {
        parse_in(parse_file_task, &MemFs::new().exe(path, content), path)
    }

    fn steps(p: &Parsed, name: &str) -> Vec<(String, &'static str)> {
        for s in step_refs(p, name) {
            assert_eq!(s.scope, StepScope::SameFolder);
        }
        crate::sources::testing::steps(p, name)
    }

    #[test]
    fn depends_and_run_entries_are_steps() {
        let p = config(
            "/w/mise.toml",
            "[tasks.build]\nalias = \"b\"\ndepends = [\"clean\", \"gen --fast\"]\ndepends_post = \"notify\"\nwait_for = [\"db\"]\nrun = [\"cargo build\", { task = \"lint\" }, { tasks = [\"a\", \"b2\"] }, \"mise run fmt ::: vet && mise exec -- x\"]\n\n[tasks.short]\nrun = \"mise r clean\"\n[tasks.list]\n",
        );
        assert_eq!(
            steps(&p, "build"),
            [
                ("clean".to_string(), "prerequisite"),
                ("gen".to_string(), "prerequisite"),
                ("notify".to_string(), "hook"),
                ("lint".to_string(), "call"),
                ("a".to_string(), "call"),
                ("b2".to_string(), "call"),
                ("fmt".to_string(), "call"),
                ("vet".to_string(), "call"),
            ]
        );
        assert_eq!(p.commands[0].aliases, ["b"]);
        assert_eq!(steps(&p, "short"), [("clean".to_string(), "call")]);
        let p = config(
            "/w/mise.yaml",
            "tasks:\n  build:\n    depends: [clean]\n    run: mise run fmt\n",
        );
        assert_eq!(
            steps(&p, "build"),
            [
                ("clean".to_string(), "prerequisite"),
                ("fmt".to_string(), "call")
            ]
        );
    }

    #[test]
    fn file_task_headers_and_scripts_give_steps() {
        let p = file_task(
            "/w/mise-tasks/deploy",
            "#!/bin/sh\n#MISE depends=[\"build\"]\n#MISE alias=\"d\"\nmise run notify\n",
        );
        assert_eq!(
            steps(&p, "deploy"),
            [
                ("build".to_string(), "prerequisite"),
                ("notify".to_string(), "call")
            ]
        );
        assert_eq!(p.commands[0].aliases, ["d"]);
    }

    #[test]
    fn task_config_includes_files_and_folders() {
        let fs = MemFs::new()
            .file(
                "/w/mise.toml",
                "[task_config]\nincludes = [\"tasks.toml\", \"xtasks\", \"missing\"]\n",
            )
            .file(
                "/w/tasks.toml",
                "[build]\ndescription = \"Build the project\"\nrun = \"cargo build\"\n",
            )
            .exe(
                "/w/xtasks/e2e",
                "#!/usr/bin/env bash\n#MISE description=\"Run end-to-end tests\"\nnpm test\n",
            )
            .exe("/w/xtasks/db/seed.sh", "#!/bin/sh\n")
            .file("/w/xtasks/helper.txt", "not a task")
            .file("/w/xtasks/more.toml", "[lint]\nrun = \"x\"\n");
        let p = parse_in(parse_config, &fs, "/w/mise.toml");
        let got: Vec<(&str, &str, Option<&str>)> = p
            .commands
            .iter()
            .map(|c| {
                (
                    c.label.as_str(),
                    c.command.as_str(),
                    c.description.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("build", "mise run build", Some("Build the project")),
                ("db:seed", "mise run db:seed.sh", None),
                ("e2e", "mise run e2e", Some("Run end-to-end tests")),
                ("lint", "mise run lint", None),
            ]
        );
        assert_eq!(p.commands[0].file_path, "/w/tasks.toml");
        assert_eq!(p.commands[0].line, Some(1));
        assert_eq!(p.commands[2].file_path, "/w/xtasks/e2e");
        assert_eq!(p.commands[2].cwd, "/w");
        assert_eq!(
            warnings(&p),
            [(Some(2), "included task path `missing` not found")]
        );
    }

    #[test]
    fn env_configs_run_in_their_environment() {
        let p = config("/w/mise.staging.toml", "[tasks.deploy]\nrun = \"x\"\n");
        assert_eq!(p.commands[0].command, "mise -E staging run deploy");
        let p = config("/w/mise.local.toml", "[tasks.x]\nrun = \"x\"\n");
        assert_eq!(p.commands[0].command, "mise run x");
        let p = config("/w/.mise.ci.local.toml", "[tasks.x]\nrun = \"x\"\n");
        assert_eq!(p.commands[0].command, "mise -E ci run x");
    }

    #[test]
    fn toml_task_files_in_task_folders() {
        let p = parse_with(
            parse_file_task,
            "/w/.mise/tasks/ci.toml",
            "[check]\ndescription = \"All checks\"\nrun = \"x\"\n",
        );
        assert_eq!(labels(&p), ["check"]);
        assert_eq!(p.commands[0].cwd, "/w");
        assert_eq!(p.commands[0].description.as_deref(), Some("All checks"));
    }

    #[test]
    fn null_task_body_is_listed() {
        let p = config(
            "/w/mise.yaml",
            "tasks:\n  hello:\n    run: echo hi\n  world:\n",
        );
        assert_eq!(labels(&p), ["hello", "world"]);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let p = config(
            "/w/mise.toml",
            "[tasks.hello]\nrun = \"echo hi\"\n\n[tasks.world]\n",
        );
        assert_eq!(labels(&p), ["hello", "world"]);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    const MISE_TOML: &str = r#"[tools]
node = "22"
python = "3.12"

[env]
NODE_ENV = "development"

[tasks]
fmt = "prettier --write ."
check = ["cargo check", "cargo clippy"]
inline = { run = "echo inline", description = "Inline table task" }

[tasks.build]
description = "Build the CLI"
run = "cargo build"
alias = "b"

[tasks."docker:push"]
description = 'Push the image'
run = "docker push app"
depends = ["build"]

[tasks._cleanup]
run = "rm -rf tmp"

[tasks.secret]
run = "echo hidden"
hide = true

[tasks.deploy]
description = "Deploy"
run = "./deploy.sh"
usage = '''
arg "<env>" help="Target environment" {
  choices "dev" "prod"
}
arg "[tag]" help="Image tag" default="latest"
flag "-f --force" help="Skip checks"
flag "--region <region>" default="eu-west-1"
'''
"#;

    #[test]
    fn toml_tasks_in_file_order() {
        let p = config("/w/app/mise.toml", MISE_TOML);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            [
                "fmt",
                "check",
                "inline",
                "build",
                "docker:push",
                "_cleanup",
                "deploy"
            ]
        );
    }

    #[test]
    fn toml_item_shape() {
        let p = config("/w/app/mise.toml", MISE_TOML);
        let build = &p.commands[3];
        assert_eq!(build.id, "mise:/w/app/mise.toml:build");
        assert_eq!(build.kind, "mise");
        assert_eq!(build.command, "mise run build");
        assert_eq!(build.cwd, "/w/app");
        assert_eq!(build.description.as_deref(), Some("Build the CLI"));
        assert_eq!(build.line, Some(13));
        assert_eq!(p.commands[0].line, Some(9));
        assert_eq!(
            p.commands[2].description.as_deref(),
            Some("Inline table task")
        );
        assert_eq!(p.commands[0].description, None);
    }

    #[test]
    fn quoted_keys_are_unquoted_regression() {
        let p = config("/w/app/mise.toml", MISE_TOML);
        let push = &p.commands[4];
        assert_eq!(push.label, "docker:push");
        assert_eq!(push.id, "mise:/w/app/mise.toml:docker:push");
        assert_eq!(push.command, "mise run docker:push");
        assert_eq!(push.description.as_deref(), Some("Push the image"));
    }

    #[test]
    fn hidden_tasks_are_dropped_and_underscore_tasks_are_private() {
        let p = config("/w/app/mise.toml", MISE_TOML);
        assert!(!labels(&p).contains(&"secret"));
        let private: Vec<&str> = p
            .commands
            .iter()
            .filter(|c| c.private)
            .map(|c| c.label.as_str())
            .collect();
        assert_eq!(private, ["_cleanup"]);
    }

    #[test]
    fn usage_field_gives_params() {
        let p = config("/w/app/mise.toml", MISE_TOML);
        let params = &p.commands[6].params;
        assert_eq!(params.len(), 4);
        assert_eq!(params[0].name, "env");
        assert_eq!(params[0].description.as_deref(), Some("Target environment"));
        assert_eq!(params[0].default, None);
        assert_eq!(params[0].options, ["dev", "prod"]);
        assert_eq!(params[1].name, "tag");
        assert_eq!(params[1].default.as_deref(), Some("latest"));
        assert_eq!(params[2].name, "force");
        assert_eq!(params[2].options, ["--force"]);
        assert_eq!(params[2].default.as_deref(), Some(""));
        assert_eq!(params[2].format, None);
        assert_eq!(params[3].name, "region");
        assert_eq!(params[3].format, Some(ParamFormat::Flag));
        assert_eq!(params[3].flag.as_deref(), Some("--region"));
        assert_eq!(params[3].default.as_deref(), Some("eu-west-1"));
    }

    #[test]
    fn upstream_unit_cases() {
        let p = config(
            "/w/mise.toml",
            "[tools]\ngo = \"1\"\n[tasks.lint]\nrun = \"x\"\n[tasks.test]\nrun = \"y\"\n",
        );
        assert_eq!(labels(&p), ["lint", "test"]);
        let p = config("/w/mise.toml", "[tasks]\n[tasks.build]\nrun = \"x\"\n");
        assert_eq!(labels(&p), ["build"]);
        let p = config(
            "/w/mise.toml",
            "[tasks.format]\nrun = \"a\"\n[env]\nX = \"1\"\n[tasks.build]\nrun = \"b\"\n",
        );
        assert_eq!(labels(&p), ["format", "build"]);
        let p = config("/w/mise.toml", "[tools]\nnode = \"20\"\n");
        assert!(p.commands.is_empty() && p.warnings.is_empty());
    }

    #[test]
    fn dotted_keys_at_the_root() {
        let p = config(
            "/w/mise.toml",
            "tasks.a = \"echo a\"\ntasks.b.run = \"echo b\"\ntasks.b.description = \"B\"\n",
        );
        assert_eq!(labels(&p), ["a", "b"]);
        assert_eq!(p.commands[1].description.as_deref(), Some("B"));
    }

    #[test]
    fn project_folder_of_nested_configs() {
        let cwd = |path: &str| {
            config(path, "[tasks.t]\nrun = \"x\"\n").commands[0]
                .cwd
                .clone()
        };
        assert_eq!(cwd("/w/p/.config/mise.toml"), "/w/p");
        assert_eq!(cwd("/w/p/.config/mise/config.toml"), "/w/p");
        assert_eq!(cwd("/w/p/mise/config.toml"), "/w/p");
        assert_eq!(cwd("/w/p/.mise/config.toml"), "/w/p");
        assert_eq!(cwd("/w/p/.mise.local.toml"), "/w/p");
        assert_eq!(cwd("/w/mise/mise.toml"), "/w/mise");
    }

    #[test]
    fn yaml_config() {
        let p = config(
            "/w/mise.yaml",
            "tools:\n  go: latest\ntasks:\n  lint:\n    run: golangci-lint run\n    description: \"Lint code\"\n  \
             test:\n    run: go test ./...\n  short: echo hi\n  hidden:\n    run: x\n    hide: true\n",
        );
        assert!(p.warnings.is_empty());
        assert_eq!(labels(&p), ["lint", "test", "short"]);
        assert_eq!(p.commands[0].description.as_deref(), Some("Lint code"));
        assert_eq!(p.commands[0].line, Some(4));
        assert_eq!(p.commands[2].line, Some(9));
        let p = config("/w/mise.yml", "tools:\n  go: latest\n");
        assert!(p.commands.is_empty());
    }

    #[test]
    fn malformed_config_warns() {
        let p = config("/w/mise.toml", "[tasks.build\nrun = \"x\"\n");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, Some(1));
        assert!(p.warnings[0].message.starts_with("invalid TOML"));

        let p = config("/w/mise.toml", "tasks = \"nope\"\n");
        assert_eq!(p.warnings[0].message, "`tasks` is not a table");
        assert_eq!(p.warnings[0].line, Some(1));

        let p = config("/w/mise.toml", "[tasks]\nok = \"x\"\nbad = 3\n");
        assert_eq!(labels(&p), ["ok"]);
        assert_eq!(
            p.warnings[0].message,
            "task `bad` is not a table, a string or an array"
        );
        assert_eq!(p.warnings[0].line, Some(3));

        let p = config("/w/mise.yaml", "tasks: [a, b]\n");
        assert_eq!(p.warnings[0].message, "`tasks` is not a map");
        let p = config("/w/mise.yaml", "tasks:\n  a: [\n");
        assert!(p.warnings[0].message.starts_with("invalid YAML"));
    }

    #[test]
    fn garbage_configs_do_not_panic() {
        for junk in [
            "",
            "\u{1}\u{2}",
            "[[[[",
            "a = [[[[[[",
            "tasks.\"é\u{301}\" = { run = ",
            "=\n=\n",
        ] {
            let _ = config("/w/mise.toml", junk);
            let _ = config("/w/mise.yaml", junk);
        }
        let deep = format!("x = {}", "[".repeat(50_000));
        assert_eq!(config("/w/mise.toml", &deep).warnings.len(), 1);
    }

    const BUILD_SH: &str = "#!/usr/bin/env bash\n#MISE description=\"Build the CLI\"\n#MISE alias=\"b\"\n\
                            #MISE sources=[\"Cargo.toml\", \"src/**/*.rs\"]\n#USAGE arg \"<target>\" help=\"Build target\"\n\
                            #USAGE flag \"--release\" help=\"Optimised build\"\nset -euo pipefail\ncargo build\n";

    #[test]
    fn file_task_shape() {
        let p = file_task("/w/app/mise-tasks/build.sh", BUILD_SH);
        assert_eq!(p.commands.len(), 1);
        let t = &p.commands[0];
        assert_eq!(t.id, "mise:/w/app/mise-tasks/build.sh:build.sh");
        assert_eq!(t.label, "build");
        assert_eq!(t.command, "mise run build.sh");
        assert_eq!(t.cwd, "/w/app");
        assert_eq!(t.file_path, "/w/app/mise-tasks/build.sh");
        assert_eq!(t.description.as_deref(), Some("Build the CLI"));
        let names: Vec<&str> = t.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["target", "release"]);
        assert_eq!(t.params[0].description.as_deref(), Some("Build target"));
        assert_eq!(t.params[1].options, ["--release"]);
    }

    #[test]
    fn file_task_names_follow_the_folder_tree() {
        let name = |path: &str| {
            let p = file_task(path, "#!/bin/sh\n");
            let t = &p.commands[0];
            (t.id_name().to_string(), t.label.clone(), t.cwd.clone())
        };
        assert_eq!(
            name("/w/.mise/tasks/build"),
            ("build".into(), "build".into(), "/w".into())
        );
        assert_eq!(
            name("/w/p/.config/mise/tasks/db/seed.py"),
            ("db:seed.py".into(), "db:seed".into(), "/w/p".into())
        );
        assert_eq!(
            name("/w/mise/tasks/test/_default"),
            ("test".into(), "test".into(), "/w".into())
        );
        assert_eq!(
            name("/w/mise-tasks/a/b/c.sh"),
            ("a:b:c.sh".into(), "a:b:c".into(), "/w".into())
        );
        assert_eq!(
            name("/w/mise-tasks/odd:name"),
            ("odd_name".into(), "odd_name".into(), "/w".into())
        );
        assert_eq!(
            name("/w/sub/mise-tasks/x.tar.gz"),
            ("x.tar.gz".into(), "x.tar".into(), "/w/sub".into())
        );
    }

    #[test]
    fn non_executable_files_give_nothing() {
        let fs = MemFs::new().file("/w/mise-tasks/README.md", "# docs\n");
        let p = parse_in(parse_file_task, &fs, "/w/mise-tasks/README.md");
        assert!(p.commands.is_empty() && p.warnings.is_empty());
    }

    #[test]
    fn hidden_and_private_file_tasks() {
        let p = file_task("/w/mise-tasks/secret", "#!/bin/sh\n#MISE hide=true\n");
        assert!(p.commands.is_empty());
        let p = file_task("/w/mise-tasks/_helper.sh", "#!/bin/sh\n");
        assert!(p.commands[0].private);
        assert_eq!(p.commands[0].label, "_helper");
        let p = file_task("/w/mise-tasks/.hidden", "#!/bin/sh\n");
        assert!(p.commands.is_empty());
    }

    #[test]
    fn header_spellings() {
        let desc = |content: &str| {
            file_task("/w/mise-tasks/t", content).commands[0]
                .description
                .clone()
        };
        assert_eq!(
            desc("#!/bin/sh\n# [MISE] description=\"A\"\n").as_deref(),
            Some("A")
        );
        assert_eq!(
            desc("#!/bin/sh\n#[MISE] description=\"B\"\n").as_deref(),
            Some("B")
        );
        assert_eq!(
            desc("#!/bin/sh\n# mise description=\"C\"\n").as_deref(),
            Some("C")
        );
        assert_eq!(
            desc("#!/usr/bin/env node\n//MISE description=\"D\"\n").as_deref(),
            Some("D")
        );
        assert_eq!(desc("#!/bin/sh\n#MISE description=\"unterminated\n"), None);
        assert_eq!(desc("#!/bin/sh\n  #MISE description=\"indented\"\n"), None);
        assert_eq!(desc("#!/bin/sh\n#MISE DESCRIPTION=\"upper\"\n"), None);
    }

    #[test]
    fn usage_spec_variants() {
        let p = file_task(
            "/w/mise-tasks/deploy",
            "#!/bin/bash\n#USAGE arg \"<files>...\" help=\"Files\"\n#USAGE arg \"[mode]\"\n\
             #USAGE arg \"<env>\" {\n#USAGE   choices \"dev\" \"prod\"\n#USAGE }\n\
             #USAGE flag \"-v --verbose\"\n#USAGE flag \"-o <out>\" help=\"Output\"\n#USAGE cmd \"ignored\"\n\
             #USAGE arg \"<rest>\" var=#true\n",
        );
        let params = &p.commands[0].params;
        let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["files", "mode", "env", "verbose", "o", "rest"]);
        assert!(params[0].variadic);
        assert_eq!(params[0].default, None);
        assert_eq!(params[1].default.as_deref(), Some(""));
        assert!(!params[1].variadic);
        assert_eq!(params[2].options, ["dev", "prod"]);
        assert_eq!(params[3].options, ["--verbose"]);
        assert_eq!(params[4].flag.as_deref(), Some("-o"));
        assert_eq!(params[4].format, Some(ParamFormat::Flag));
        assert!(params[5].variadic);
    }

    #[test]
    fn garbage_file_tasks_do_not_panic() {
        for junk in [
            "",
            "#USAGE arg",
            "#USAGE arg \"",
            "#USAGE {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{",
            "#USAGE }}}}",
            "#USAGE flag \"-\"",
            "#USAGE arg \"<>\" default=",
            "#MISE =",
            "#MISE description=",
            "\u{1}\u{2}é\u{301}",
        ] {
            let p = file_task("/w/mise-tasks/x", junk);
            assert_eq!(p.commands.len(), 1, "{junk:?}");
        }
        let deep = format!("#USAGE arg \"<a>\" {}\n", "{ x ".repeat(10_000));
        assert_eq!(
            file_task("/w/mise-tasks/x", &deep).commands[0].params.len(),
            1
        );
    }

    #[test]
    fn files_outside_task_folders_give_nothing() {
        let p = file_task("/w/scripts/build.sh", "#!/bin/sh\n");
        assert!(p.commands.is_empty());
        let p = file_task("/w/mise-tasks", "#!/bin/sh\n");
        assert!(p.commands.is_empty());
    }
}
