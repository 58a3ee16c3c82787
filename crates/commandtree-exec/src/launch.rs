//! Launch configurations (`.vscode/launch.json`) started under the native debugger of their
//! type, after their `preLaunchTask`:
//!
//! | type | runs |
//! |---|---|
//! | `node`, `pwa-node`, `node2` | `node --inspect-brk[=port] runtimeArgs program args` (another `runtimeExecutable` gets `NODE_OPTIONS=--inspect-brk`) |
//! | `node-terminal` | its `command` with `NODE_OPTIONS=--inspect-brk` |
//! | `python`, `debugpy` | `python3 -m debugpy --listen host:port --wait-for-client program args` (`module` → `-m module`) |
//! | `cppdbg` | `gdb --args program args`, or `lldb -- program args` for `MIMode: lldb` (`miDebuggerPath` honoured) |
//! | `lldb`, `lldb-dap` | `lldb -- program args` |
//! | `gdb` | `gdb --args target arguments` |
//! | `coreclr` | `netcoredbg --interpreter=cli -- dotnet program.dll args` |
//! | `go` | `dlv debug|test|exec program -- args` |
//!
//! `program`, `args`, `cwd`, `env` and `envFile` go through the same variables as tasks; a
//! compound starts each of its configurations at once. `postDebugTask` is not run.

use crate::line::which;
use crate::params::{Prompter, Values};
use crate::quote::{sh_quote, sh_word, split_words};
use crate::script::Step;
use crate::vars::Context;
use crate::vscode::{Inputs, folder_of, with_platform};
use crate::{Error, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A `launch.json` (JSON with comments), with the file and line in the error.
pub fn read(file: &Path) -> Result<Value> {
    let content = commandtree_core::fs::read_file(file)
        .map_err(|e| Error::failed(format!("{}: {e}", file.display())))?;
    commandtree_core::text::parse_jsonc(&content).map_err(|(line, reason)| {
        Error::failed(match line {
            Some(l) => format!("{}:{l}: {reason}", file.display()),
            None => format!("{}: {reason}", file.display()),
        })
    })
}

/// The steps that start configuration (or compound) `name` of `file`.
pub fn plan(
    file: &Path,
    name: &str,
    given: &Values,
    mut prompter: Option<&mut (dyn Prompter + 'static)>,
    extra: &[String],
) -> Result<Step> {
    let root = read(file)?;
    let list = |key: &str| -> Vec<Value> {
        root.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let configs = list("configurations");
    let named = |v: &Value| v.get("name").and_then(Value::as_str) == Some(name);
    let defs = list("inputs");
    let mut resolved = Values::new();
    if let Some(c) = configs.iter().find(|c| named(c)) {
        return config_step(file, c, &defs, given, &mut resolved, prompter, extra);
    }
    let Some(compound) = list("compounds").into_iter().find(|c| named(c)) else {
        return Err(Error::failed(format!(
            "{}: no configuration or compound is named `{name}`",
            file.display()
        )));
    };
    let mut steps = Vec::new();
    for member in compound
        .get("configurations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        let member_name = match &member {
            Value::String(s) => s.clone(),
            Value::Object(m) => m
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            _ => continue,
        };
        let c = configs
            .iter()
            .find(|c| c.get("name").and_then(Value::as_str) == Some(&member_name))
            .ok_or_else(|| {
                Error::failed(format!(
                    "{}: compound `{name}` names `{member_name}`, which is not a configuration there",
                    file.display()
                ))
            })?;
        steps.push(config_step(
            file,
            c,
            &defs,
            given,
            &mut resolved,
            prompter.as_deref_mut(),
            &[],
        )?);
    }
    let run = Step::Par(steps);
    let step = match compound.get("preLaunchTask").and_then(Value::as_str) {
        Some(task) => Step::Seq(vec![pre_launch(file, task, given, prompter)?, run]),
        None => run,
    };
    Ok(step.simplify())
}

fn pre_launch(
    file: &Path,
    task: &str,
    given: &Values,
    prompter: Option<&mut (dyn Prompter + 'static)>,
) -> Result<Step> {
    let tasks = file.with_file_name("tasks.json");
    let mut inputs = Inputs {
        file: tasks.clone(),
        defs: Vec::new(),
        given: given.clone(),
        prompter,
        resolved: Values::new(),
    };
    crate::vscode::plan(&tasks, task, &mut inputs, &[])
}

/// One configuration: its `preLaunchTask`, then the debugger. `resolved` carries the input
/// values across the configurations of a compound, so each input is asked once.
fn config_step(
    file: &Path,
    raw: &Value,
    defs: &[Value],
    given: &Values,
    resolved: &mut Values,
    mut prompter: Option<&mut (dyn Prompter + 'static)>,
    extra: &[String],
) -> Result<Step> {
    let c = with_platform(raw);
    let name = c.get("name").and_then(Value::as_str).unwrap_or("?");
    let folder = folder_of(file);
    let mut inputs = Inputs {
        file: file.to_path_buf(),
        defs: defs.to_vec(),
        given: given.clone(),
        prompter: prompter.as_deref_mut(),
        resolved: std::mem::take(resolved),
    };
    let debug = Resolver {
        file,
        folder: folder.clone(),
        settings: Context::load_settings(&folder),
        inputs: &mut inputs,
    }
    .debug_step(name, &c, extra);
    *resolved = std::mem::take(&mut inputs.resolved);
    drop(inputs);
    let debug = debug?;
    match c.get("preLaunchTask").and_then(Value::as_str) {
        Some(task) => Ok(Step::Seq(vec![
            pre_launch(file, task, given, prompter)?,
            debug,
        ])),
        None => Ok(debug),
    }
}

struct Resolver<'a, 'i, 'p> {
    file: &'a Path,
    folder: PathBuf,
    settings: Value,
    inputs: &'i mut Inputs<'p>,
}

impl Resolver<'_, '_, '_> {
    fn string(&mut self, s: &str) -> Result<String> {
        let inputs = &mut *self.inputs;
        let mut get = |id: &str| inputs.get(id);
        Context {
            folder: self.folder.clone(),
            settings: self.settings.clone(),
            file: self.file.to_path_buf(),
            input: &mut get,
            default_build_task: None,
        }
        .string(s)
    }

    /// A shell line of the file: each value quoted for its place, or passed in `env`.
    fn shell_line(&mut self, s: &str, env: &mut crate::vars::Env) -> Result<String> {
        let inputs = &mut *self.inputs;
        let mut get = |id: &str| inputs.get(id);
        let segs = Context {
            folder: self.folder.clone(),
            settings: self.settings.clone(),
            file: self.file.to_path_buf(),
            input: &mut get,
            default_build_task: None,
        }
        .substitute(s)?;
        crate::vars::render_sh(&segs, crate::quote::Shell::Posix, env)
    }

    fn field(&mut self, c: &Value, key: &str) -> Result<Option<String>> {
        match c.get(key).and_then(Value::as_str) {
            Some(s) => self.string(s).map(Some),
            None => Ok(None),
        }
    }

    fn list(&mut self, c: &Value, key: &str) -> Result<Vec<String>> {
        match c.get(key) {
            Some(Value::Array(a)) => {
                let mut out = Vec::new();
                for s in a.iter().filter_map(Value::as_str) {
                    out.push(self.string(s)?);
                }
                Ok(out)
            }
            // Some debuggers take `args` as one command-line string.
            Some(Value::String(s)) => {
                let s = self.string(s)?;
                split_words(&s)
                    .map_err(|e| Error::failed(format!("{}: `{key}`: {e}", self.file.display())))
            }
            _ => Ok(Vec::new()),
        }
    }

    fn path(&mut self, s: &str, base: &Path) -> Result<String> {
        let p = PathBuf::from(self.string(s)?);
        Ok(if p.is_absolute() { p } else { base.join(p) }
            .display()
            .to_string())
    }

    fn debug_step(&mut self, name: &str, c: &Value, extra: &[String]) -> Result<Step> {
        let file = self.file.display().to_string();
        let kind = c.get("type").and_then(Value::as_str).unwrap_or("");
        let request = c.get("request").and_then(Value::as_str).unwrap_or("launch");
        if request != "launch" {
            return Err(Error::failed(format!(
                "{file}: configuration `{name}` attaches to a running program (`request: {request}`); start the program yourself, then attach a debugger to it"
            )));
        }
        let cwd = match c.get("cwd").and_then(Value::as_str) {
            Some(s) => PathBuf::from(self.path(s, &self.folder.clone())?),
            None => self.folder.clone(),
        };
        let mut env: Vec<(String, String)> = Vec::new();
        if let Some(f) = c.get("envFile").and_then(Value::as_str) {
            let path = self.path(f, &cwd)?;
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::failed(format!("{path}: {e} (the `envFile` of `{name}`)")))?;
            env.extend(parse_env_file(&text));
        }
        if let Some(Value::Object(m)) = c.get("env") {
            for (k, v) in m {
                let v = match v {
                    Value::String(s) => self.string(s)?,
                    Value::Null => continue,
                    other => other.to_string(),
                };
                env.retain(|(ek, _)| ek != k);
                env.push((k.clone(), v));
            }
        }
        let program = match c.get("program").or_else(|| c.get("target")) {
            Some(Value::String(s)) => Some(self.path(s, &cwd)?),
            _ => None,
        };
        let need_program = || {
            Error::failed(format!(
                "{file}: configuration `{name}` (type `{kind}`) has no `program`"
            ))
        };
        let mut args = if kind == "gdb" {
            self.list(c, "arguments")?
        } else {
            self.list(c, "args")?
        };
        args.extend(extra.iter().cloned());
        let mut argv: Vec<String> = Vec::new();
        let mut line_override = None;
        let mut guard: Option<String> = None;
        match kind {
            "node" | "pwa-node" | "node2" => {
                let runtime = self
                    .field(c, "runtimeExecutable")?
                    .unwrap_or_else(|| "node".into());
                let runtime_args = self.list(c, "runtimeArgs")?;
                let inspect = match c.get("port").and_then(Value::as_u64) {
                    Some(p) => format!("--inspect-brk={p}"),
                    None => "--inspect-brk".to_string(),
                };
                let is_node = Path::new(&runtime).file_stem().is_some_and(|s| s == "node");
                argv.push(runtime);
                if is_node {
                    argv.push(inspect);
                } else {
                    env.push(("NODE_OPTIONS".into(), inspect));
                }
                argv.extend(runtime_args);
                if let Some(p) = program {
                    argv.push(p);
                } else if is_node {
                    return Err(need_program());
                }
                argv.extend(args);
            }
            "node-terminal" => {
                let raw = c.get("command").and_then(Value::as_str).ok_or_else(|| {
                    Error::failed(format!("{file}: configuration `{name}` has no `command`"))
                })?;
                let cmd = self.shell_line(raw, &mut env)?;
                env.push(("NODE_OPTIONS".into(), "--inspect-brk".into()));
                line_override = Some(cmd);
            }
            "python" | "debugpy" => {
                let python = self
                    .field(c, "python")?
                    .or(self.field(c, "pythonPath")?)
                    .unwrap_or_else(|| "python3".into());
                require(&python, name, kind)?;
                // Whether debugpy is installed is asked when the line runs, not while planning:
                // `python` may be the repository's own file, and planning (`--dry-run`, `ct pick`)
                // must never start a program.
                let hint = format!(
                    "ct: configuration `{name}` needs debugpy, which is not installed for `{python}`: install it with `{python} -m pip install debugpy`"
                );
                guard = Some(format!(
                    "{} -c 'import debugpy' 2>/dev/null || {{ printf '%s\\n' {} >&2; exit 1; }}; ",
                    sh_word(&python),
                    sh_quote(&hint)
                ));
                let host = c
                    .get("host")
                    .and_then(Value::as_str)
                    .unwrap_or("127.0.0.1")
                    .to_string();
                let port = c.get("port").and_then(Value::as_u64).unwrap_or(5678);
                argv.extend([
                    python,
                    "-m".into(),
                    "debugpy".into(),
                    "--listen".into(),
                    format!("{host}:{port}"),
                    "--wait-for-client".into(),
                ]);
                if let Some(m) = self.field(c, "module")? {
                    argv.extend(["-m".into(), m]);
                } else {
                    argv.push(program.ok_or_else(need_program)?);
                }
                argv.extend(args);
            }
            "cppdbg" | "lldb" | "lldb-dap" | "lldb-vscode" | "gdb" => {
                let mode = c.get("MIMode").and_then(Value::as_str);
                let use_lldb = kind != "gdb" && (kind != "cppdbg" || mode == Some("lldb"));
                let debugger = match self.field(c, "miDebuggerPath")? {
                    Some(p) if kind == "cppdbg" => p,
                    _ if use_lldb => "lldb".into(),
                    _ => "gdb".into(),
                };
                require(&debugger, name, kind)?;
                argv.push(debugger);
                if use_lldb {
                    argv.push("--".into());
                } else {
                    argv.push("--args".into());
                }
                argv.push(program.ok_or_else(need_program)?);
                argv.extend(args);
            }
            "coreclr" => {
                require("netcoredbg", name, kind)?;
                argv.extend(["netcoredbg".into(), "--interpreter=cli".into(), "--".into()]);
                let program = program.ok_or_else(need_program)?;
                if program.ends_with(".dll") {
                    argv.push("dotnet".into());
                }
                argv.push(program);
                argv.extend(args);
            }
            "go" => {
                require("dlv", name, kind)?;
                let mode = match c.get("mode").and_then(Value::as_str) {
                    Some("test") => "test",
                    Some("exec") => "exec",
                    _ => "debug",
                };
                argv.extend(["dlv".into(), mode.into()]);
                argv.push(program.ok_or_else(need_program)?);
                if !args.is_empty() {
                    argv.push("--".into());
                    argv.extend(args);
                }
            }
            "" => {
                return Err(Error::failed(format!(
                    "{file}: configuration `{name}` has no `type`"
                )));
            }
            other => {
                return Err(Error::failed(format!(
                    "configuration `{name}` has type `{other}`, which ct cannot debug outside VS Code (it can: node, python/debugpy, cppdbg, lldb, gdb, coreclr, go)"
                )));
            }
        }
        let line = match line_override {
            Some(l) => l,
            None => {
                let mut words = argv.iter();
                let mut l = guard.unwrap_or_default();
                l.push_str(&sh_word(words.next().map(String::as_str).unwrap_or("")));
                for w in words {
                    l.push(' ');
                    l.push_str(&sh_word(w));
                }
                l
            }
        };
        Ok(Step::Run {
            line,
            cwd: Some(cwd),
            env,
        })
    }
}

fn require(program: &str, name: &str, kind: &str) -> Result<()> {
    let found = if program.contains('/') {
        Path::new(program).is_file()
    } else {
        which(program).is_some()
    };
    if found {
        Ok(())
    } else {
        Err(Error::failed(format!(
            "configuration `{name}` (type `{kind}`) needs `{program}`, which is not installed (not found on PATH)"
        )))
    }
}

/// `KEY=value` lines of a dotenv file: `#` comments, an optional `export `, and values in
/// single or double quotes (the quotes removed).
pub fn parse_env_file(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let k = k.trim().to_string();
        if k.is_empty() {
            continue;
        }
        let v = v.trim();
        let v = if v.len() >= 2
            && ((v.starts_with('"') && v.ends_with('"'))
                || (v.starts_with('\'') && v.ends_with('\'')))
        {
            let inner = &v[1..v.len() - 1];
            if v.starts_with('"') {
                inner.replace("\\n", "\n").replace("\\\"", "\"")
            } else {
                inner.to_string()
            }
        } else {
            v.split(" #").next().unwrap_or(v).trim_end().to_string()
        };
        out.retain(|(ek, _)| *ek != k);
        out.push((k, v));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workspace with `launch.json` (and `tasks.json`) in a scratch folder, removed when the
    /// returned guard is dropped.
    fn workspace(name: &str, launch: &str, tasks: Option<&str>) -> (tempfile::TempDir, PathBuf) {
        let scratch = tempfile::Builder::new()
            .prefix(&format!("ct-launch-{name}-"))
            .tempdir()
            .unwrap();
        let d = scratch.path().to_path_buf();
        std::fs::create_dir_all(d.join(".vscode")).unwrap();
        std::fs::write(d.join(".vscode/launch.json"), launch).unwrap();
        if let Some(t) = tasks {
            std::fs::write(d.join(".vscode/tasks.json"), t).unwrap();
        }
        (scratch, d)
    }

    fn plan_of(dir: &Path, name: &str) -> Result<Step> {
        plan(
            &dir.join(".vscode/launch.json"),
            name,
            &Values::new(),
            None,
            &["x y".to_string()],
        )
    }

    #[test]
    fn node_with_pre_launch_task_env_file_and_compound() {
        let (_scratch, d) = workspace(
            "node",
            r#"{
  "configurations": [
    {"name": "Server", "type": "node", "request": "launch",
     "program": "${workspaceFolder}/index.js", "args": ["--port", "8080"],
     "envFile": "${workspaceFolder}/.env", "env": {"B": "env"}, "preLaunchTask": "build"},
    {"name": "Other", "type": "pwa-node", "request": "launch", "program": "o.js", "cwd": "sub"},
    {"name": "Web", "type": "chrome", "request": "launch"},
    {"name": "Att", "type": "node", "request": "attach"}
  ],
  "compounds": [{"name": "Both", "configurations": ["Server", "Other"]}]
}"#,
            Some(r#"{"tasks":[{"label":"build","type":"process","command":"true"}]}"#),
        );
        std::fs::write(d.join(".env"), "# c\nA=1\nexport B='file'\nC=\"q\\\"x\"\n").unwrap();
        let s = plan_of(&d, "Server").unwrap();
        let Step::Seq(v) = &s else { panic!("{s:?}") };
        assert_eq!(v[0].single().unwrap().0, "true");
        let (line, cwd, env) = v[1].single().unwrap();
        assert_eq!(
            line,
            format!(
                "node --inspect-brk {}/index.js --port 8080 'x y'",
                d.display()
            )
        );
        assert_eq!(cwd.unwrap(), &d);
        assert_eq!(
            env,
            [
                ("A".to_string(), "1".to_string()),
                ("C".to_string(), "q\"x".to_string()),
                ("B".to_string(), "env".to_string())
            ]
        );
        let both = plan(
            &d.join(".vscode/launch.json"),
            "Both",
            &Values::new(),
            None,
            &[],
        )
        .unwrap();
        let Step::Par(members) = both else { panic!() };
        assert_eq!(members.len(), 2);
        let (line, cwd, _) = members[1].single().unwrap();
        assert_eq!(line, format!("node --inspect-brk {}/sub/o.js", d.display()));
        assert_eq!(cwd.unwrap(), &d.join("sub"));
        let e = plan_of(&d, "Web").unwrap_err().to_string();
        assert!(e.contains("type `chrome`"), "{e}");
        let e = plan_of(&d, "Att").unwrap_err().to_string();
        assert!(e.contains("request: attach"), "{e}");
        let e = plan_of(&d, "Nope").unwrap_err().to_string();
        assert!(
            e.contains("no configuration or compound is named `Nope`"),
            "{e}"
        );
    }

    #[test]
    fn native_debuggers() {
        let (_scratch, d) = workspace(
            "native",
            r#"{"configurations": [
    {"name": "C", "type": "cppdbg", "request": "launch", "program": "${workspaceFolder}/a.out", "args": ["1"], "MIMode": "gdb", "miDebuggerPath": "/bin/true"},
    {"name": "Core", "type": "coreclr", "request": "launch", "program": "bin/app.dll"},
    {"name": "Py", "type": "debugpy", "request": "launch", "program": "m.py", "python": "/nonexistent/python"}
]}"#,
            None,
        );
        let s = plan_of(&d, "C").unwrap();
        assert_eq!(
            s.single().unwrap().0,
            format!("/bin/true --args {}/a.out 1 'x y'", d.display())
        );
        if which("netcoredbg").is_none() {
            let e = plan_of(&d, "Core").unwrap_err().to_string();
            assert!(e.contains("needs `netcoredbg`"), "{e}");
        }
        let e = plan_of(&d, "Py").unwrap_err().to_string();
        assert!(e.contains("needs `/nonexistent/python`"), "{e}");
    }

    #[test]
    fn env_files() {
        assert_eq!(
            parse_env_file("A=1 # note\nB=\nexport C=\"a b\"\n=x\nA=2"),
            [
                ("B".to_string(), String::new()),
                ("C".to_string(), "a b".to_string()),
                ("A".to_string(), "2".to_string())
            ]
        );
    }
}
