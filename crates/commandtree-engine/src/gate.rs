//! The security gate: everything about a command the user should confirm before it runs. That
//! is the command's own warning, and the warning of every step it pulls in (a VS Code task's
//! `dependsOn`, a launch configuration's `preLaunchTask`), since those run too; and a summary
//! made from an older version of the command is not taken as its current verdict.

use crate::Loaded;
use commandtree_core::{CommandItem, CommandType};
use commandtree_exec::vscode;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// One thing to confirm (or, for a stale summary, to say) before running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Concern {
    /// The command the concern is about: the one run, or a step it pulls in.
    pub id: String,
    pub label: String,
    pub what: ConcernKind,
    /// The text for the user.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConcernKind {
    /// A security warning of the command itself.
    Warning,
    /// A security warning of a step that runs with it.
    StepWarning,
    /// The summary was made from another version of the command: its verdict is unknown now.
    StaleSummary,
}

impl Concern {
    /// Whether this concern needs a confirmation (a warning), or only a mention.
    pub fn needs_confirmation(&self) -> bool {
        matches!(self.what, ConcernKind::Warning | ConcernKind::StepWarning)
    }
}

/// What to confirm before running `item`: its warning, its steps' warnings, and whether its
/// summary is out of date.
pub fn concerns(loaded: &Loaded, item: &CommandItem) -> Vec<Concern> {
    let mut out = Vec::new();
    if let Some(w) = warning_of(item) {
        out.push(Concern {
            id: item.id.clone(),
            label: item.label.clone(),
            what: ConcernKind::Warning,
            text: w.to_string(),
        });
    }
    for step in steps(loaded, item) {
        if let Some(w) = warning_of(step) {
            out.push(Concern {
                id: step.id.clone(),
                label: step.label.clone(),
                what: ConcernKind::StepWarning,
                text: format!("runs first as a step of `{}`: {w}", item.label),
            });
        }
    }
    if item.summary.is_some()
        && let Some(store) = &loaded.store
        && crate::summaries::is_stale(store, item)
    {
        out.push(Concern {
            id: item.id.clone(),
            label: item.label.clone(),
            what: ConcernKind::StaleSummary,
            text: "its AI summary is out of date (the command changed since it was summarized; `ct summarize` renews it)".into(),
        });
    }
    out
}

fn warning_of(c: &CommandItem) -> Option<&str> {
    c.security_warning
        .as_deref()
        .map(str::trim)
        .filter(|w| !w.is_empty())
}

/// The discovered commands that run as steps of `item` (transitively), without `item` itself.
pub fn steps<'a>(loaded: &'a Loaded, item: &CommandItem) -> Vec<&'a CommandItem> {
    let mut labels: Vec<(std::path::PathBuf, String)> = Vec::new();
    match item.command_type() {
        Some(CommandType::Vscode) => {
            let file = Path::new(&item.file_path);
            task_closure(file, &item.command, &mut labels);
            labels.retain(|(_, l)| *l != item.command);
        }
        Some(CommandType::Launch) => {
            let file = Path::new(&item.file_path);
            let tasks = file.with_file_name("tasks.json");
            for t in pre_launch_tasks(file, &item.command) {
                task_closure(&tasks, &t, &mut labels);
            }
        }
        _ => {}
    }
    let mut out: Vec<&CommandItem> = Vec::new();
    for (file, label) in &labels {
        if let Some(c) = find_task(loaded, file, label)
            && !out.iter().any(|o| o.id == c.id)
        {
            out.push(c);
        }
    }
    out
}

/// `label` and every task it depends on, transitively, as (tasks.json, label).
fn task_closure(file: &Path, label: &str, out: &mut Vec<(std::path::PathBuf, String)>) {
    let Ok(tf) = vscode::load(file) else {
        return;
    };
    let mut seen: HashSet<String> = HashSet::new();
    let mut todo = vec![label.to_string()];
    while let Some(l) = todo.pop() {
        if !seen.insert(l.clone()) {
            continue;
        }
        out.push((file.to_path_buf(), l.clone()));
        if let Some(def) = tf.tasks.iter().find(|t| t.label == l)
            && let Ok(deps) = vscode::depends_on(&vscode::with_platform(&def.raw))
        {
            todo.extend(deps);
        }
    }
}

/// The `preLaunchTask`s that starting configuration or compound `name` runs.
fn pre_launch_tasks(file: &Path, name: &str) -> Vec<String> {
    let Ok(content) = commandtree_core::fs::read_file(file) else {
        return Vec::new();
    };
    let Ok(root) = commandtree_core::text::parse_jsonc(&content) else {
        return Vec::new();
    };
    let list = |key: &str| -> Vec<Value> {
        root.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let named = |v: &Value, n: &str| v.get("name").and_then(Value::as_str) == Some(n);
    let pre = |v: &Value| {
        vscode::with_platform(v)
            .get("preLaunchTask")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let configs = list("configurations");
    if let Some(c) = configs.iter().find(|c| named(c, name)) {
        return pre(c).into_iter().collect();
    }
    let mut out = Vec::new();
    if let Some(compound) = list("compounds").into_iter().find(|c| named(c, name)) {
        out.extend(pre(&compound));
        for m in compound
            .get("configurations")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
        {
            let n = match &m {
                Value::String(s) => s.clone(),
                Value::Object(o) => o
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                _ => continue,
            };
            if let Some(c) = configs.iter().find(|c| named(c, &n)) {
                out.extend(pre(c));
            }
        }
    }
    out
}

/// The discovered command for task `label` of `file`: the VS Code task itself, or for VS Code's
/// auto-detected `npm: script` tasks, the npm script.
fn find_task<'a>(loaded: &'a Loaded, file: &Path, label: &str) -> Option<&'a CommandItem> {
    let file_s = file.to_string_lossy();
    if let Some(c) = loaded.commands.iter().find(|c| {
        c.command_type() == Some(CommandType::Vscode) && c.file_path == file_s && c.command == label
    }) {
        return Some(c);
    }
    let script = label.strip_prefix("npm: ")?;
    let (script, sub) = match script.split_once(" - ") {
        Some((s, p)) => (s, Some(p)),
        None => (script, None),
    };
    let folder = vscode::folder_of(file);
    let pkg = match sub {
        Some(p) => folder.join(p).join("package.json"),
        None => folder.join("package.json"),
    };
    let pkg = pkg.to_string_lossy();
    loaded.commands.iter().find(|c| {
        c.command_type() == Some(CommandType::Npm) && c.file_path == pkg && c.label == script
    })
}
