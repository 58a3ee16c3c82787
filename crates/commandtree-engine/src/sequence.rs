//! Running a sequence (`[sequences.NAME]`, `commandtree_core::sources::sequence`): its
//! members are resolved as `ct run` resolves a name, each is planned as a run of its own
//! (parameters asked for or defaulted), and the plans are joined into one POSIX script that
//! names each step as it starts and, on a failure, which step failed and which did not run.
//! The sequence is then one run like any other (foreground, detached, in a window, in an
//! editor's terminal, captured by a server), gated as a whole through the closure.

use crate::envfiles::EnvFiles;
use crate::names::{self, At};
use crate::{Error, Loaded, Result};
use commandtree_core::sources::sequence::KIND;
use commandtree_core::{CommandItem, CommandType, Workspace};
use commandtree_exec::params::Prompter;
use commandtree_exec::plan::{self, Request, Runnable};
use commandtree_exec::quote::{Shell, sh_quote};

pub fn is_sequence(item: &CommandItem) -> bool {
    item.kind == KIND
}

/// The commands a sequence runs, in order, resolved from the workspace root.
pub fn members(loaded: &Loaded, seq: &CommandItem) -> Result<Vec<CommandItem>> {
    let at = At::root(&loaded.root);
    let mut out = Vec::new();
    for (i, step) in seq.steps.iter().enumerate() {
        let item = names::resolve(&loaded.commands, at, &step.name).map_err(|e| {
            Error::failed(format!(
                "sequence `{}`, step {} `{}`: {e}",
                seq.label,
                i + 1,
                step.name
            ))
        })?;
        let refuse = |why: &str| {
            Err(Error::failed(format!(
                "sequence `{}`, step {} `{}`: {why}",
                seq.label,
                i + 1,
                item.label
            )))
        };
        match item.command_type() {
            Some(CommandType::Sequence) => {
                return refuse("is a sequence itself; list its commands instead");
            }
            Some(CommandType::Launch) => {
                return refuse(
                    "is a launch configuration, which runs under a debugger, not in a sequence",
                );
            }
            Some(CommandType::Markdown | CommandType::Playbook) => {
                return refuse("is not a command a shell runs (a document or a playbook)");
            }
            Some(t) if t.is_ai_definition() => {
                return refuse("is an AI definition, which is read, never run");
            }
            _ => {}
        }
        out.push(item.clone());
    }
    Ok(out)
}

/// The one script that runs `members` as `seq` says, and the environment files of its members
/// (together: the process gets them once).
pub fn plan(
    ws: &Workspace,
    seq: &CommandItem,
    members: &[CommandItem],
    mut prompter: Option<&mut (dyn Prompter + 'static)>,
    env_of: &dyn Fn(&CommandItem) -> EnvFiles,
) -> Result<(Runnable, EnvFiles, Option<Error>)> {
    let mut parts = Vec::new();
    let mut env = EnvFiles::default();
    let mut missing = None;
    for m in members {
        let (r, why) = plan::preview(
            m,
            &ws.root,
            &ws.settings,
            &Request::default(),
            prompter.as_deref_mut(),
        )?;
        if missing.is_none() {
            missing = why.map(Error::from);
        }
        parts.push((m.label.clone(), step_text(&r)?));
        let e = env_of(m);
        for f in e.files {
            if !env.files.iter().any(|x| x.path == f.path) {
                env.files.push(f);
            }
        }
        for (k, v) in e.vars {
            match env.vars.iter_mut().find(|(n, _)| *n == k) {
                Some(slot) => slot.1 = v,
                None => env.vars.push((k, v)),
            }
        }
        for k in e.kept.into_iter().chain(e.skipped) {
            if !env.kept.contains(&k) {
                env.kept.push(k);
            }
        }
    }
    let script = if seq.parallel {
        parallel(&seq.label, &parts)
    } else {
        sequential(&seq.label, &parts)
    };
    let runnable = Runnable {
        script,
        cwd: ws.root.clone(),
        env: Vec::new(),
        file_env: env.vars.clone(),
        shell: Shell::Posix,
        values: Default::default(),
    };
    Ok((runnable, env, missing))
}

/// One member as a subshell of the joined script: its folder, its own variables, its line.
fn step_text(r: &Runnable) -> Result<String> {
    let line = match r.shell {
        Shell::Posix | Shell::Fish => r.script.clone(),
        Shell::PowerShell => format!("pwsh -NoProfile -Command {}", sh_quote(&r.script)),
        Shell::Cmd => {
            return Err(Error::failed(
                "a Windows batch file cannot run in a sequence here (it needs cmd.exe)",
            ));
        }
    };
    let mut out = format!("cd -- {} || exit\n", sh_quote(&r.cwd.to_string_lossy()));
    for (k, v) in &r.env {
        out.push_str(&commandtree_exec::script::export(k, v)?);
        out.push('\n');
    }
    out.push_str(&line);
    Ok(out)
}

/// A line on stderr, its text quoted for the shell.
fn say(text: &str) -> String {
    format!("printf '%s\\n' {} >&2", sh_quote(text))
}

/// One after another; the first failure ends it, saying which step failed and what did not run.
/// The whole is one subshell, so its `exit` never ends a shell the script is typed into.
fn sequential(label: &str, parts: &[(String, String)]) -> String {
    let n = parts.len();
    let mut s = String::from("(\n");
    for (i, (name, text)) in parts.iter().enumerate() {
        s.push_str(&say(&format!("==> {label} [{}/{n}]: {name}", i + 1)));
        s.push('\n');
        let rest: Vec<&str> = parts[i + 1..].iter().map(|(n, _)| n.as_str()).collect();
        let not_run = if rest.is_empty() {
            String::new()
        } else {
            format!("; not run: {}", rest.join(", "))
        };
        s.push_str(&format!(
            "(\n{text}\n) || {{ ct_s=$?; printf '%s%s%s\\n' {} \"$ct_s\" {} >&2; exit \"$ct_s\"; }}\n",
            sh_quote(&format!("==> {label}: step {} `{name}` failed (exit ", i + 1)),
            sh_quote(&format!("){not_run}")),
        ));
    }
    s.push_str(&say(&format!("==> {label}: all {n} steps succeeded")));
    s.push_str("\n)");
    s
}

/// All at once; waits for every one, names each that failed, and ends with the first failure's
/// code. Ctrl-C or a stop reaches every step (background jobs of a script ignore SIGINT).
fn parallel(label: &str, parts: &[(String, String)]) -> String {
    let n = parts.len();
    let mut s = String::from("(\ntrap 'trap - INT TERM; kill 0' INT TERM\n");
    s.push_str(&say(&format!(
        "==> {label}: {n} steps at once: {}",
        parts
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )));
    s.push('\n');
    for (i, (_, text)) in parts.iter().enumerate() {
        s.push_str(&format!("(\n{text}\n) &\nct_p{i}=$!\n"));
    }
    s.push_str("ct_s=0\n");
    for (i, (name, _)) in parts.iter().enumerate() {
        s.push_str(&format!(
            "wait \"$ct_p{i}\" || {{ ct_c=$?; printf '%s%s)\\n' {} \"$ct_c\" >&2; [ \"$ct_s\" -ne 0 ] || ct_s=$ct_c; }}\n",
            sh_quote(&format!("==> {label}: `{name}` failed (exit ")),
        ));
    }
    s.push_str(&format!(
        "[ \"$ct_s\" -ne 0 ] || {}\nexit \"$ct_s\"\n)",
        say(&format!("==> {label}: all {n} steps succeeded"))
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> (i32, String, String) {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn part(name: &str, line: &str) -> (String, String) {
        (name.to_string(), format!("cd -- /tmp || exit\n{line}"))
    }

    #[test]
    fn a_failing_step_stops_the_sequence_and_says_what_did_not_run() {
        let parts = [
            part("lint", "echo linted"),
            part("test", "echo testing; exit 3"),
            part("build", "echo built"),
            part("it's", "echo quoted"),
        ];
        let (code, out, err) = sh(&sequential("ci", &parts));
        assert_eq!(code, 3);
        assert_eq!(out, "linted\ntesting\n");
        assert!(err.contains("==> ci [2/4]: test"), "{err}");
        assert!(
            err.contains("==> ci: step 2 `test` failed (exit 3); not run: build, it's"),
            "{err}"
        );
        let (code, out, err) = sh(&sequential("ci", &parts[..1]));
        assert_eq!((code, out.as_str()), (0, "linted\n"));
        assert!(err.contains("all 1 steps succeeded"), "{err}");
    }

    #[test]
    fn parallel_steps_all_run_and_the_first_failure_is_the_code() {
        let parts = [
            part("slow", "sleep 0.2; echo slow; exit 4"),
            part("fast", "echo fast; exit 5"),
            part("ok", "echo ok"),
        ];
        let (code, out, err) = sh(&parallel("dev", &parts));
        assert_eq!(code, 4, "{err}");
        for w in ["slow", "fast", "ok"] {
            assert!(out.contains(w), "{out}");
        }
        assert!(
            err.contains("`slow` failed (exit 4)") && err.contains("`fast` failed (exit 5)"),
            "{err}"
        );
        let (code, _, err) = sh(&parallel("dev", &parts[2..]));
        assert_eq!(code, 0);
        assert!(err.contains("all 1 steps succeeded"), "{err}");
    }

    #[test]
    fn a_typed_script_never_exits_the_shell_it_is_typed_into() {
        let script = sequential("ci", &[part("x", "exit 2")]);
        let (code, out, _) = sh(&format!("{script}\necho still here"));
        assert_eq!((code, out.as_str()), (0, "still here\n"));
    }
}
