//! VS Code tasks (`.vscode/tasks.json`) run without VS Code: `shell` and `process` tasks with
//! their `args` quoting objects, `options.cwd/env/shell` (file-wide and per task), platform
//! sections, `dependsOn` in sequence or in parallel, variables and `${input:x}` values, and
//! the provider task types that map to a plain command (`npm`, `gulp`, `grunt`, `jake`,
//! `typescript`).
//!
//! Shell tasks without `options.shell` run under `bash` when it is installed (VS Code's usual
//! default on Linux and macOS, and what tasks written there expect), else `sh`.

use crate::line::which;
use crate::params::{Prompter, Values, is_required};
use crate::quote::{Shell, sh_quote, sh_word};
use crate::script::Step;
use crate::vars::{Context, Env, Seg, concat, render_arg, render_sh};
use crate::{Error, Result};
use commandtree_core::ParamDef;
use commandtree_core::sources::vscode::{TasksFile, read_tasks};
pub use commandtree_core::sources::vscode::{depends_on, overlay, platform_key, with_platform};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The input ids whose value only VS Code can produce (`"type": "command"`), with their command.
pub fn command_inputs(tf: &TasksFile) -> Vec<(String, String)> {
    tf.inputs
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("command"))
        .filter_map(|i| {
            Some((
                i.get("id")?.as_str()?.to_string(),
                i.get("command")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string(),
            ))
        })
        .collect()
}

/// The parameter an `inputs[]` entry asks for.
pub fn input_param(id: &str, input: &Value) -> ParamDef {
    let s = |k: &str| input.get(k).and_then(Value::as_str);
    let mut p = ParamDef::new(id);
    if let Some(d) = s("description") {
        p = p.with_description(d);
    }
    if let Some(d) = s("default") {
        p = p.with_default(d);
    }
    if s("type") == Some("pickString")
        && let Some(opts) = input.get("options").and_then(Value::as_array)
    {
        p.options = opts
            .iter()
            .filter_map(|o| match o {
                Value::String(s) => Some(s.clone()),
                Value::Object(m) => m.get("value").and_then(Value::as_str).map(String::from),
                _ => None,
            })
            .collect();
    }
    p
}

/// Values of `${input:id}`: given with `--param`, else asked, else the input's default.
/// Each is settled once per run, as VS Code does.
pub struct Inputs<'p> {
    pub file: PathBuf,
    pub defs: Vec<Value>,
    pub given: Values,
    pub prompter: Option<&'p mut (dyn Prompter + 'static)>,
    pub resolved: Values,
}

impl Inputs<'_> {
    pub fn get(&mut self, id: &str) -> Result<String> {
        if let Some(v) = self.resolved.get(id) {
            return Ok(v.clone());
        }
        let def = self
            .defs
            .iter()
            .find(|i| i.get("id").and_then(Value::as_str) == Some(id))
            .cloned();
        let file = self.file.display();
        let value = match (self.given.get(id), def) {
            (Some(v), def) => {
                let options = def.map(|d| input_param(id, &d).options).unwrap_or_default();
                if !options.is_empty() && !options.contains(v) {
                    return Err(Error::usage(format!(
                        "--param `{id}`: `{v}` is not one of: {}",
                        options.join(", ")
                    )));
                }
                v.clone()
            }
            (None, None) => {
                return Err(Error::failed(format!(
                    "{file}: `${{input:{id}}}` is used but `inputs` has no entry with that id"
                )));
            }
            (None, Some(def)) => {
                if def.get("type").and_then(Value::as_str) == Some("command") {
                    let cmd = def.get("command").and_then(Value::as_str).unwrap_or("?");
                    return Err(Error::failed(format!(
                        "{file}: input `{id}` takes its value from the VS Code command `{cmd}`, which needs VS Code; pass --param {id}=VALUE instead"
                    )));
                }
                let p = input_param(id, &def);
                if let Some(pr) = self.prompter.as_deref_mut() {
                    let v = pr.ask(&p)?;
                    if !p.options.is_empty() && !p.options.contains(&v) {
                        return Err(Error::failed(format!(
                            "input `{id}`: `{v}` is not one of: {}",
                            p.options.join(", ")
                        )));
                    }
                    v
                } else if let Some(d) = p.default.clone() {
                    d
                } else if is_required(&p) {
                    return Err(Error::failed(format!(
                        "{file}: input `{id}` needs a value and has no default: pass --param {id}=VALUE"
                    )));
                } else {
                    String::new()
                }
            }
        };
        self.resolved.insert(id.to_string(), value.clone());
        Ok(value)
    }
}

/// Reads and parses a `tasks.json`, failing with the file and the reason.
pub fn load(file: &Path) -> Result<TasksFile> {
    let content = commandtree_core::fs::read_file(file)
        .map_err(|e| Error::failed(format!("{}: {e}", file.display())))?;
    read_tasks(&content).map_err(|(line, reason)| match line {
        Some(l) => Error::failed(format!("{}:{l}: {reason}", file.display())),
        None => Error::failed(format!("{}: {reason}", file.display())),
    })
}

/// The folder VS Code runs a `.vscode/*.json` file's tasks in: the one holding `.vscode`.
pub fn folder_of(file: &Path) -> PathBuf {
    let dir = file.parent().unwrap_or(Path::new("."));
    if dir.file_name().is_some_and(|n| n == ".vscode") {
        dir.parent().unwrap_or(dir).to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// The steps that run task `label` of `file`, its `dependsOn` first. `extra` is appended to the
/// task's own command.
pub fn plan(file: &Path, label: &str, inputs: &mut Inputs<'_>, extra: &[String]) -> Result<Step> {
    let tf = load(file)?;
    plan_in(&tf, file, label, inputs, extra)
}

/// As [`plan`], for an already parsed file.
pub fn plan_in(
    tf: &TasksFile,
    file: &Path,
    label: &str,
    inputs: &mut Inputs<'_>,
    extra: &[String],
) -> Result<Step> {
    inputs.defs = tf.inputs.clone();
    inputs.file = file.to_path_buf();
    let folder = folder_of(file);
    let mut top = Value::Object(Map::new());
    if let Some(o) = &tf.options {
        top["options"] = o.clone();
    }
    let platform = match platform_key() {
        "windows" => &tf.windows,
        "osx" => &tf.osx,
        _ => &tf.linux,
    };
    if let Some(p) = platform
        && let Some(o) = p.get("options")
    {
        let mut base = top.get("options").cloned().unwrap_or(Value::Null);
        if base.is_null() {
            base = o.clone();
        } else {
            overlay(&mut base, o);
        }
        top["options"] = base;
    }
    let default_build_task = tf
        .tasks
        .iter()
        .find(|t| {
            let g = &t.raw["group"];
            g.get("kind").and_then(Value::as_str) == Some("build")
                && g.get("isDefault").and_then(Value::as_bool) == Some(true)
        })
        .map(|t| t.label.clone());
    // Ask for the task's own inputs first, in the order the file uses them.
    if let Some(t) = tf.task(label) {
        for id in &t.input_refs {
            if tf.input(id).is_some() {
                inputs.get(id)?;
            }
        }
    }
    let mut b = Builder {
        tf,
        file,
        folder: folder.clone(),
        global_options: top.get("options").cloned().unwrap_or(Value::Null),
        settings: Context::load_settings(&folder),
        default_build_task,
        inputs,
        scheduled: HashSet::new(),
    };
    let mut stack = Vec::new();
    Ok(b.task(label, &mut stack, extra)?.simplify())
}

struct Builder<'a, 'i, 'p> {
    tf: &'a TasksFile,
    file: &'a Path,
    folder: PathBuf,
    global_options: Value,
    settings: Value,
    default_build_task: Option<String>,
    inputs: &'i mut Inputs<'p>,
    /// Tasks already in the plan: a task reached twice through `dependsOn` runs once.
    scheduled: HashSet<String>,
}

impl Builder<'_, '_, '_> {
    fn ctx_string(&mut self, s: &str) -> Result<String> {
        Ok(concat(&self.segs(s)?))
    }

    fn segs(&mut self, s: &str) -> Result<Vec<Seg>> {
        let inputs = &mut *self.inputs;
        let mut get = |id: &str| inputs.get(id);
        let mut ctx = Context {
            folder: self.folder.clone(),
            settings: self.settings.clone(),
            file: self.file.to_path_buf(),
            input: &mut get,
            default_build_task: self.default_build_task.clone(),
        };
        ctx.substitute(s)
    }

    fn task(&mut self, label: &str, stack: &mut Vec<String>, extra: &[String]) -> Result<Step> {
        if stack.iter().any(|l| l == label) {
            stack.push(label.to_string());
            return Err(Error::failed(format!(
                "{}: `dependsOn` goes round in a circle: {}",
                self.file.display(),
                stack.join(" → ")
            )));
        }
        let Some(def) = self.tf.task(label) else {
            let msg = match stack.last() {
                Some(parent) => format!(
                    "{}: task `{parent}` depends on `{label}`, which is not defined there",
                    self.file.display()
                ),
                None => format!("{}: no task is labelled `{label}`", self.file.display()),
            };
            return Err(Error::failed(msg));
        };
        self.scheduled.insert(label.to_string());
        let task = with_platform(&def.raw);
        stack.push(label.to_string());
        let mut deps = Vec::new();
        for dep in depends_on(&task)
            .map_err(|e| Error::failed(format!("{}: task `{label}`: {e}", self.file.display())))?
        {
            if self.scheduled.contains(&dep) && !stack.contains(&dep) {
                continue;
            }
            deps.push(self.task(&dep, stack, &[])?);
        }
        stack.pop();
        let own = self.own(label, &task, extra)?;
        let deps_step = if task.get("dependsOrder").and_then(Value::as_str) == Some("sequence") {
            Step::Seq(deps)
        } else {
            Step::Par(deps)
        };
        let empty = matches!(&deps_step, Step::Seq(v) | Step::Par(v) if v.is_empty());
        match (empty, own) {
            (true, Some(own)) => Ok(own),
            (false, Some(own)) => Ok(Step::Seq(vec![deps_step, own])),
            (false, None) => Ok(deps_step),
            (true, None) => Err(Error::failed(format!(
                "{}: task `{label}` has no `command` and no `dependsOn`",
                self.file.display()
            ))),
        }
    }

    /// The task's own command, or None when it only groups its dependencies.
    fn own(&mut self, label: &str, task: &Value, extra: &[String]) -> Result<Option<Step>> {
        let kind = task.get("type").and_then(Value::as_str);
        let has_command = task.get("command").is_some_and(|c| !c.is_null());
        let mut options = self.global_options.clone();
        if let Some(o) = task.get("options") {
            if options.is_null() {
                options = o.clone();
            } else {
                overlay(&mut options, o);
            }
        }
        let mut cwd = match options.get("cwd").and_then(Value::as_str) {
            Some(c) => Some(self.path(c)?),
            None => None,
        };
        let mut env = Vec::new();
        if let Some(Value::Object(m)) = options.get("env") {
            for (k, v) in m {
                let v = match v {
                    Value::String(s) => self.ctx_string(s)?,
                    Value::Null => continue,
                    other => other.to_string(),
                };
                env.push((k.clone(), v));
            }
        }
        let file = self.file.display().to_string();
        let line = match kind {
            Some("shell") if has_command => self.shell_line(task, &options, extra, &mut env)?,
            None | Some("process") if has_command => self.process_line(task, extra)?,
            Some("shell" | "process") | None => return Ok(None),
            Some("npm") => {
                let script = task.get("script").and_then(Value::as_str).ok_or_else(|| {
                    Error::failed(format!("{file}: npm task `{label}` has no `script`"))
                })?;
                let dir = match task.get("path").and_then(Value::as_str) {
                    Some(p) => self.path(p)?,
                    None => self.folder.clone(),
                };
                let runner = package_manager(&dir);
                if cwd.is_none() {
                    cwd = Some(dir);
                }
                let mut l = if runner == "yarn" {
                    format!("yarn {}", sh_word(script))
                } else {
                    format!("{runner} run {}", sh_word(script))
                };
                if !extra.is_empty() && runner != "yarn" {
                    l.push_str(" --");
                }
                push_words(&mut l, extra);
                l
            }
            Some(k @ ("gulp" | "grunt" | "jake")) => {
                let t = task.get("task").and_then(Value::as_str).ok_or_else(|| {
                    Error::failed(format!("{file}: {k} task `{label}` has no `task`"))
                })?;
                let mut l = format!("npx {k} {}", sh_word(t));
                push_words(&mut l, extra);
                l
            }
            Some("typescript") => {
                let cfg = task
                    .get("tsconfig")
                    .and_then(Value::as_str)
                    .unwrap_or("tsconfig.json");
                let mut l = format!("npx tsc -p {}", sh_word(cfg));
                if task.get("option").and_then(Value::as_str) == Some("watch") {
                    l.push_str(" --watch");
                }
                push_words(&mut l, extra);
                l
            }
            Some(other) => {
                return Err(Error::failed(format!(
                    "{file}: task `{label}` has type `{other}`, which a VS Code extension runs; it cannot run outside VS Code"
                )));
            }
        };
        Ok(Some(Step::Run {
            line,
            cwd: Some(cwd.unwrap_or_else(|| self.folder.clone())),
            env,
        }))
    }

    /// A path from the file, relative ones taken from the workspace folder.
    fn path(&mut self, s: &str) -> Result<PathBuf> {
        let p = PathBuf::from(self.ctx_string(s)?);
        Ok(if p.is_absolute() {
            p
        } else {
            self.folder.join(p)
        })
    }

    /// The task's line; values the line cannot hold as text for certain go in `env`.
    fn shell_line(
        &mut self,
        task: &Value,
        options: &Value,
        extra: &[String],
        env: &mut Env,
    ) -> Result<String> {
        let custom = options.get("shell");
        let exe = match custom
            .and_then(|s| s.get("executable"))
            .and_then(Value::as_str)
        {
            Some(e) => Some(self.ctx_string(e)?),
            None => None,
        };
        let shell = exe
            .as_deref()
            .map(Shell::from_program)
            .unwrap_or(Shell::Posix);
        let mut inner = match task.get("command") {
            Some(Value::String(s)) => {
                let segs = self.segs(s)?;
                render_sh(&segs, shell, env)?
            }
            Some(Value::Array(parts)) => {
                let mut v = Vec::new();
                for p in parts {
                    if let Some(s) = p.as_str() {
                        let segs = self.segs(s)?;
                        v.push(render_sh(&segs, shell, env)?);
                    }
                }
                v.join(" ")
            }
            Some(q @ Value::Object(_)) => self.quoted(q, shell, env)?,
            _ => String::new(),
        };
        if let Some(Value::Array(args)) = task.get("args") {
            for a in args {
                let rendered = match a {
                    Value::String(s) => {
                        let segs = self.segs(s)?;
                        render_arg(&segs, None, shell, env)?
                    }
                    q @ Value::Object(_) => self.quoted(q, shell, env)?,
                    other => other.to_string(),
                };
                inner.push(' ');
                inner.push_str(&rendered);
            }
        }
        for a in extra {
            inner.push(' ');
            inner.push_str(&shell.word(a).map_err(Error::Failed)?);
        }
        let (exe, args) = match exe {
            Some(e) => {
                let args: Vec<String> = match custom.and_then(|s| s.get("args")) {
                    Some(Value::Array(a)) => {
                        let mut v = Vec::new();
                        for x in a.iter().filter_map(Value::as_str) {
                            v.push(self.ctx_string(x)?);
                        }
                        v
                    }
                    _ => default_shell_args(shell),
                };
                (e, args)
            }
            None => {
                let sh = if which("bash").is_some() {
                    "bash"
                } else {
                    "sh"
                };
                (sh.to_string(), vec!["-c".to_string()])
            }
        };
        let mut line = sh_word(&exe);
        for a in &args {
            line.push(' ');
            line.push_str(&sh_word(a));
        }
        line.push(' ');
        line.push_str(&sh_quote(&inner));
        Ok(line)
    }

    /// `{ "value": ..., "quoting": "escape" | "strong" | "weak" }`.
    fn quoted(&mut self, q: &Value, shell: Shell, env: &mut Env) -> Result<String> {
        let quoting = q.get("quoting").and_then(Value::as_str);
        let value = match q.get("value") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        };
        let segs = self.segs(&value)?;
        render_arg(&segs, quoting.or(Some("strong")), shell, env)
    }

    fn process_line(&mut self, task: &Value, extra: &[String]) -> Result<String> {
        let program = match task.get("command") {
            Some(Value::String(s)) => self.ctx_string(s)?,
            Some(Value::Object(o)) => match o.get("value").and_then(Value::as_str) {
                Some(s) => self.ctx_string(s)?,
                None => String::new(),
            },
            _ => String::new(),
        };
        let mut line = sh_word(&program);
        if let Some(Value::Array(args)) = task.get("args") {
            for a in args {
                let s = match a {
                    Value::String(s) => self.ctx_string(s)?,
                    Value::Object(o) => match o.get("value").and_then(Value::as_str) {
                        Some(s) => self.ctx_string(s)?,
                        None => continue,
                    },
                    other => other.to_string(),
                };
                line.push(' ');
                line.push_str(&sh_word(&s));
            }
        }
        push_words(&mut line, extra);
        Ok(line)
    }
}

fn push_words(line: &mut String, words: &[String]) {
    for w in words {
        line.push(' ');
        line.push_str(&sh_word(w));
    }
}

fn default_shell_args(shell: Shell) -> Vec<String> {
    match shell {
        Shell::PowerShell => vec!["-NoProfile".into(), "-Command".into()],
        Shell::Cmd => vec!["/d".into(), "/c".into()],
        Shell::Posix | Shell::Fish => vec!["-c".into()],
    }
}

/// The package manager of a folder's lock file, as VS Code's npm support detects it.
fn package_manager(dir: &Path) -> &'static str {
    if dir.join("pnpm-lock.yaml").exists() {
        "pnpm"
    } else if dir.join("yarn.lock").exists() {
        "yarn"
    } else if dir.join("bun.lockb").exists() || dir.join("bun.lock").exists() {
        "bun"
    } else {
        "npm"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tf(json: &str) -> TasksFile {
        read_tasks(json).unwrap()
    }

    fn inputs(given: &[(&str, &str)]) -> Inputs<'static> {
        Inputs {
            file: PathBuf::new(),
            defs: Vec::new(),
            given: given
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            prompter: None,
            resolved: Values::new(),
        }
    }

    fn plan_of(json: &str, label: &str, given: &[(&str, &str)]) -> Result<Step> {
        plan_in(
            &tf(json),
            Path::new("/w/.vscode/tasks.json"),
            label,
            &mut inputs(given),
            &[],
        )
    }

    fn leaf(line: &str, cwd: &str) -> Step {
        Step::Run {
            line: line.into(),
            cwd: Some(PathBuf::from(cwd)),
            env: Vec::new(),
        }
    }

    #[test]
    fn process_task_with_variables_and_inputs() {
        let s = plan_of(
            r#"{"tasks":[{"label":"p","type":"process","command":"${workspaceFolder}/bin/tool",
                 "args":["--env","${input:env}","it's"]}],
               "inputs":[{"id":"env","type":"pickString","options":["dev","prod"],"default":"dev"}]}"#,
            "p",
            &[],
        )
        .unwrap();
        assert_eq!(s, leaf("/w/bin/tool --env dev 'it'\\''s'", "/w"));
    }

    #[test]
    fn depends_on_sequence_parallel_and_dedupe() {
        let json = r#"{"tasks":[
            {"label":"a","type":"process","command":"a"},
            {"label":"b","type":"process","command":"b","dependsOn":"a"},
            {"label":"all","dependsOn":["a","b"],"dependsOrder":"sequence"},
            {"label":"par","type":"process","command":"main","dependsOn":["a","b"]}
        ]}"#;
        let s = plan_of(json, "all", &[]).unwrap();
        assert_eq!(s, Step::Seq(vec![leaf("a", "/w"), leaf("b", "/w")]));
        let s = plan_of(json, "par", &[]).unwrap();
        assert_eq!(
            s,
            Step::Seq(vec![
                Step::Par(vec![leaf("a", "/w"), leaf("b", "/w")]),
                leaf("main", "/w")
            ])
        );
    }

    #[test]
    fn cycles_and_missing_tasks_are_named() {
        let json = r#"{"tasks":[{"label":"x","dependsOn":"y"},{"label":"y","dependsOn":"x"},
                                {"label":"z","dependsOn":"nope"}]}"#;
        let e = plan_of(json, "x", &[]).unwrap_err().to_string();
        assert!(
            e.ends_with("`dependsOn` goes round in a circle: x → y → x"),
            "{e}"
        );
        let e = plan_of(json, "z", &[]).unwrap_err().to_string();
        assert!(e.contains("task `z` depends on `nope`"), "{e}");
    }

    #[test]
    fn shell_task_options_and_platform() {
        let json = r#"{
          "options": {"env": {"A": "1"}, "cwd": "${workspaceFolder}/sub"},
          "linux": {"options": {"env": {"B": "2"}}},
          "osx": {"options": {"env": {"B": "2"}}},
          "tasks": [{
            "label": "s", "type": "shell", "command": "echo ${input:msg}",
            "args": ["x y", {"value": "$v", "quoting": "escape"}],
            "options": {"shell": {"executable": "/bin/sh", "args": ["-c"]}, "env": {"C": "${env:CT_NO_SUCH_VAR}"}},
            "linux": {"command": "printf %s ${input:msg}"},
            "osx": {"command": "printf %s ${input:msg}"}
          }],
          "inputs": [{"id": "msg", "type": "promptString"}]
        }"#;
        let s = plan_of(json, "s", &[("msg", "a;b")]).unwrap();
        let Step::Run { line, cwd, env } = s else {
            panic!()
        };
        assert_eq!(line, r"/bin/sh -c 'printf %s '\''a;b'\'' '\''x y'\'' \$v'");
        assert_eq!(cwd.unwrap(), PathBuf::from("/w/sub"));
        assert_eq!(
            env,
            [
                ("A".to_string(), "1".to_string()),
                ("B".to_string(), "2".to_string()),
                ("C".to_string(), String::new())
            ]
        );
    }

    #[test]
    fn input_failures() {
        let json = r#"{"tasks":[{"label":"t","command":"x ${input:tok}"},{"label":"u","command":"x ${input:need}"}],
            "inputs":[{"id":"tok","type":"command","command":"secrets.get"},{"id":"need","type":"promptString"}]}"#;
        let e = plan_of(json, "t", &[]).unwrap_err().to_string();
        assert!(
            e.contains("VS Code command `secrets.get`, which needs VS Code"),
            "{e}"
        );
        assert!(plan_of(json, "t", &[("tok", "v")]).is_ok());
        let e = plan_of(json, "u", &[]).unwrap_err().to_string();
        assert!(e.contains("input `need` needs a value"), "{e}");
    }

    #[test]
    fn provider_tasks() {
        let s = plan_of(
            r#"{"tasks":[{"type":"npm","script":"build","path":"web"},{"label":"x","type":"cmake","command":"build"}]}"#,
            "npm: build - web",
            &[],
        )
        .unwrap();
        assert_eq!(s, leaf("npm run build", "/w/web"));
        let e = plan_of(
            r#"{"tasks":[{"label":"x","type":"cmake","command":"build"}]}"#,
            "x",
            &[],
        )
        .unwrap_err();
        assert!(e.to_string().contains("type `cmake`"), "{e}");
    }
}
