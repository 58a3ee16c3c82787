//! One entry point from a discovered command to what runs: a [`Runnable`], i.e. a POSIX `sh`
//! script with its folder and environment, and the parameter values it was built with (kept in
//! the history so `ct run --last` can repeat it).

use crate::line::{check_program, shell_for, which};
use crate::params::{Prompter, Values, collect};
use crate::quote::{Shell, sh_quote};
use crate::script::Step;
use crate::{Error, Result, launch, vscode};
use commandtree_core::{CommandItem, CommandType, Settings};
use std::path::{Path, PathBuf};

/// What the user asked for, besides the command.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `--param name=value`.
    pub values: Values,
    /// Arguments after `--`.
    pub extra: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runnable {
    /// Run with `sh -c` (or the `shell` below on Windows).
    pub script: String,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// Variables from the environment files the configuration names (set before `env`, which
    /// wins). Kept apart because they may be secrets: set on the process only, never part of
    /// [`Runnable::prompt_line`], the script or anything recorded.
    pub file_env: Vec<(String, String)>,
    pub shell: Shell,
    /// Every parameter or input value the script was built with.
    pub values: Values,
}

impl Runnable {
    /// The script as one line a user could type at a POSIX prompt, `cd` included: `None` when it
    /// spans several lines (composite VS Code tasks).
    pub fn prompt_line(&self) -> Option<String> {
        if self.script.contains('\n') {
            return None;
        }
        let mut s = format!("cd -- {} && ", sh_quote(&self.cwd.to_string_lossy()));
        for (k, v) in &self.env {
            s.push_str(&format!("{k}={} ", sh_quote(v)));
        }
        s.push_str(&self.script);
        Some(s)
    }
}

/// Builds what runs for `item`. Values come from `req`, then `prompter` (when given), then
/// defaults; the program each step starts must exist.
pub fn prepare(
    item: &CommandItem,
    root: &Path,
    settings: &Settings,
    req: &Request,
    prompter: Option<&mut (dyn Prompter + 'static)>,
) -> Result<Runnable> {
    let (runnable, missing) = preview(item, root, settings, req, prompter)?;
    match missing {
        Some(e) => Err(e),
        None => Ok(runnable),
    }
}

/// [`prepare`] for a dry run: the exact script even when its program is missing (a user asks
/// what would run exactly when the tool is not installed), with why it could not run.
pub fn preview(
    item: &CommandItem,
    root: &Path,
    settings: &Settings,
    req: &Request,
    mut prompter: Option<&mut (dyn Prompter + 'static)>,
) -> Result<(Runnable, Option<Error>)> {
    let item_cwd = if item.cwd.is_empty() {
        root.to_path_buf()
    } else {
        item.cwd_path().to_path_buf()
    };
    let shell = shell_for(item);
    let (step, values) = match item.command_type() {
        Some(CommandType::Vscode) => {
            if item.file_path.is_empty() {
                return Err(Error::failed(format!(
                    "task `{}` belongs to no workspace folder; it can only run inside VS Code",
                    item.label
                )));
            }
            let file = item.path();
            let tf = vscode::load(file)?;
            check_input_names(item, &tf.inputs, &req.values)?;
            let mut inputs = vscode::Inputs {
                file: file.to_path_buf(),
                defs: Vec::new(),
                given: req.values.clone(),
                prompter: prompter.as_deref_mut(),
                resolved: Values::new(),
            };
            let step = vscode::plan_in(&tf, file, &item.command, &mut inputs, &req.extra)?;
            (step, inputs.resolved)
        }
        Some(CommandType::Launch) => {
            let file = item.path();
            let step = launch::plan(file, &item.command, &req.values, prompter, &req.extra)?;
            (step, req.values.clone())
        }
        Some(
            CommandType::Prompt
            | CommandType::Agent
            | CommandType::Skill
            | CommandType::Instructions,
        ) => {
            return Err(Error::usage(format!(
                "`{}` is an AI definition ({}); it is read, never run: `ct show` prints it, `ct prompt` renders a prompt command",
                item.label, item.kind
            )));
        }
        Some(CommandType::Sequence) => {
            return Err(Error::usage(format!(
                "`{}` is a sequence: the engine plans it from its commands (`ct run` does)",
                item.label
            )));
        }
        Some(CommandType::Markdown) => {
            if !req.values.is_empty() {
                return Err(Error::usage(format!(
                    "`{}` is a markdown file; it takes no parameters",
                    item.label
                )));
            }
            let opener = markdown_opener(settings);
            let line = format!("{opener} {}", sh_quote(&item.file_path));
            (Step::run(real_paths_quoted(item, line)), Values::new())
        }
        _ => {
            if cfg!(not(windows)) && is_batch(item) {
                return Err(Error::failed(format!(
                    "cannot run `{}`: it is a Windows batch file and needs cmd.exe, which only Windows has",
                    item.label
                )));
            }
            let values = collect(&item.label, &item.params, &req.values, prompter)?;
            let line = crate::line::build(item, &values, &req.extra)?;
            (Step::run(real_paths(item, line)), values)
        }
    };
    let missing = check_steps(&item.label, &step, &item_cwd).err();
    let runnable = match step.single() {
        Some((line, cwd, env)) => Runnable {
            script: line.to_string(),
            cwd: cwd.cloned().unwrap_or(item_cwd),
            env: env.to_vec(),
            file_env: Vec::new(),
            shell,
            values,
        },
        None => Runnable {
            script: step.render()?,
            cwd: item_cwd,
            env: Vec::new(),
            file_env: Vec::new(),
            shell,
            values,
        },
    };
    Ok((runnable, missing))
}

/// Discovery wrote the file's and folder's paths into the command lossily when they are not
/// UTF-8 (U+FFFD); the shell gets their real bytes instead.
#[cfg(unix)]
fn real_paths(item: &CommandItem, mut line: String) -> String {
    for real in [&item.os_file_path, &item.os_cwd].into_iter().flatten() {
        let lossy = commandtree_core::text::quote_path(real);
        line = line.replace(&lossy, &crate::quote::sh_path_bytes(real));
    }
    line
}

#[cfg(not(unix))]
fn real_paths(_item: &CommandItem, line: String) -> String {
    line
}

/// [`real_paths`] for a line that quoted the file with `sh_quote`.
#[cfg(unix)]
fn real_paths_quoted(item: &CommandItem, line: String) -> String {
    match &item.os_file_path {
        Some(real) => line.replace(
            &sh_quote(&item.file_path),
            &crate::quote::sh_path_bytes(real),
        ),
        None => line,
    }
}

#[cfg(not(unix))]
fn real_paths_quoted(_item: &CommandItem, line: String) -> String {
    line
}

fn is_batch(item: &CommandItem) -> bool {
    let f = item.file_path.to_ascii_lowercase();
    item.command_type() == Some(CommandType::Powershell)
        && (f.ends_with(".bat") || f.ends_with(".cmd"))
}

/// `--param` names of a VS Code task must be input ids of its file.
fn check_input_names(
    item: &CommandItem,
    inputs: &[serde_json::Value],
    given: &Values,
) -> Result<()> {
    for name in given.keys() {
        let known = inputs
            .iter()
            .any(|i| i.get("id").and_then(serde_json::Value::as_str) == Some(name));
        if !known {
            let ids: Vec<&str> = inputs
                .iter()
                .filter_map(|i| i.get("id").and_then(serde_json::Value::as_str))
                .collect();
            let hint = if ids.is_empty() {
                "its tasks.json declares no inputs".to_string()
            } else {
                format!("its inputs: {}", ids.join(", "))
            };
            return Err(Error::usage(format!(
                "--param `{name}`: task `{}` has no such input ({hint})",
                item.label
            )));
        }
    }
    Ok(())
}

/// Checks the program of every step.
fn check_steps(label: &str, step: &Step, default_cwd: &Path) -> Result<()> {
    match step {
        Step::Run { line, cwd, .. } => {
            check_program(label, line, cwd.as_deref().unwrap_or(default_cwd))
        }
        Step::Seq(v) | Step::Par(v) => v
            .iter()
            .try_for_each(|s| check_steps(label, s, default_cwd)),
    }
}

/// How markdown files open: `[run] markdown` in config.toml or `COMMANDTREE_MARKDOWN`:
/// `pager` (default: `$PAGER`, else less, else more), `editor` (`$VISUAL`, `$EDITOR`, else vi),
/// or a command of your own (`glow -p`).
pub fn markdown_opener(settings: &Settings) -> String {
    let choice = std::env::var("COMMANDTREE_MARKDOWN")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| config_str(settings, "run", "markdown"))
        .unwrap_or_else(|| "pager".to_string());
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    match choice.trim() {
        "pager" => env("PAGER").unwrap_or_else(|| {
            ["less", "more"]
                .into_iter()
                .find(|p| which(p).is_some())
                .unwrap_or("cat")
                .to_string()
        }),
        "editor" => env("VISUAL")
            .or_else(|| env("EDITOR"))
            .unwrap_or_else(|| "vi".to_string()),
        other => other.to_string(),
    }
}

/// A string setting from the merged `config.toml` files.
pub fn config_str(settings: &Settings, section: &str, key: &str) -> Option<String> {
    settings
        .config
        .get(section)?
        .get(key)?
        .as_str()
        .map(str::to_string)
        .filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use commandtree_core::ParamDef;

    #[test]
    fn plain_command_with_params() {
        let mut item =
            CommandItem::new("shell", Path::new("/tmp/x.sh"), "x.sh", "sh \"/tmp/x.sh\"");
        item.params = vec![ParamDef::new("env").with_default("dev")];
        let req = Request {
            values: [("env".to_string(), "a b".to_string())].into(),
            extra: vec!["--v".into()],
        };
        let r = prepare(&item, Path::new("/"), &Settings::default(), &req, None).unwrap();
        assert_eq!(r.script, "sh \"/tmp/x.sh\" 'a b' --v");
        assert_eq!(r.cwd, PathBuf::from("/tmp"));
        assert_eq!(r.values["env"], "a b");
        assert_eq!(
            r.prompt_line().unwrap(),
            "cd -- '/tmp' && sh \"/tmp/x.sh\" 'a b' --v"
        );
    }

    #[test]
    fn batch_files_need_windows() {
        let item = CommandItem::new("powershell", Path::new("/w/b.bat"), "b.bat", "\"/w/b.bat\"");
        if cfg!(not(windows)) {
            let e = prepare(
                &item,
                Path::new("/w"),
                &Settings::default(),
                &Request::default(),
                None,
            )
            .unwrap_err();
            assert!(e.to_string().contains("Windows batch file"), "{e}");
        }
    }
}
