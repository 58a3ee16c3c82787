//! A run as a tree of steps (a task and its `dependsOn`, a `preLaunchTask` then a debugger),
//! rendered as one POSIX `sh` script. Every run mode (foreground, detached, a tmux window, a
//! shell's edit line) then runs the same text.

use crate::quote::sh_quote;
use crate::{Error, Result};
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// One `sh` line, in `cwd`, with `env` added.
    Run {
        line: String,
        cwd: Option<PathBuf>,
        env: Vec<(String, String)>,
    },
    /// Each after the previous one succeeded.
    Seq(Vec<Step>),
    /// All at once; fails when any fails.
    Par(Vec<Step>),
}

impl Step {
    pub fn run(line: impl Into<String>) -> Step {
        Step::Run {
            line: line.into(),
            cwd: None,
            env: Vec::new(),
        }
    }

    /// Drops empty groups and unwraps groups of one.
    pub fn simplify(self) -> Step {
        match self {
            Step::Seq(v) | Step::Par(v) if v.len() == 1 => {
                v.into_iter().next().expect("one step").simplify()
            }
            Step::Seq(v) => Step::Seq(v.into_iter().map(Step::simplify).collect()),
            Step::Par(v) => Step::Par(v.into_iter().map(Step::simplify).collect()),
            s => s,
        }
    }

    /// The script. A lone step keeps its line as is (its folder and environment are then set on
    /// the process by the caller, see [`Step::single`]); composite ones put each step in a
    /// subshell with its own `cd` and `export`s.
    pub fn render(&self) -> Result<String> {
        let mut r = Renderer::default();
        let body = r.step(self)?;
        if r.jobs > 0 {
            // Background jobs of a non-interactive shell ignore SIGINT, so Ctrl-C or `ct stop`
            // would leave parallel steps running: pass the signal on to the whole group.
            Ok(format!("trap 'trap - INT TERM; kill 0' INT TERM\n{body}"))
        } else {
            Ok(body)
        }
    }

    /// The parts of a lone step.
    pub fn single(&self) -> Option<Single<'_>> {
        match self {
            Step::Run { line, cwd, env } => Some((line, cwd.as_ref(), env)),
            _ => None,
        }
    }
}

/// A lone step's line, folder and environment.
pub type Single<'a> = (&'a str, Option<&'a PathBuf>, &'a [(String, String)]);

#[derive(Default)]
struct Renderer {
    jobs: usize,
}

impl Renderer {
    fn step(&mut self, s: &Step) -> Result<String> {
        match s {
            Step::Run { line, cwd, env } => {
                let mut out = String::from("(\n");
                if let Some(d) = cwd {
                    out.push_str(&format!(
                        "cd -- {} || exit\n",
                        sh_quote(&d.to_string_lossy())
                    ));
                }
                for (k, v) in env {
                    out.push_str(&export(k, v)?);
                    out.push('\n');
                }
                out.push_str(line);
                out.push_str("\n)");
                Ok(out)
            }
            Step::Seq(v) if v.is_empty() => Ok("true".into()),
            Step::Par(v) if v.is_empty() => Ok("true".into()),
            Step::Seq(v) => {
                let parts: Result<Vec<String>> = v.iter().map(|s| self.step(s)).collect();
                Ok(parts?.join(" &&\n"))
            }
            Step::Par(v) => {
                let mut out = String::from("{\n");
                let mut pids = Vec::new();
                for s in v {
                    self.jobs += 1;
                    let var = format!("ct_p{}", self.jobs);
                    out.push_str(&format!("{{\n{}\n}} &\n{var}=$!\n", self.step(s)?));
                    pids.push(var);
                }
                let status = format!("ct_s{}", self.jobs);
                out.push_str(&format!("{status}=0\n"));
                for p in &pids {
                    out.push_str(&format!("wait ${p} || {status}=$?\n"));
                }
                out.push_str(&format!("(exit ${status})\n}}"));
                Ok(out)
            }
        }
    }
}

/// `export NAME='value'`; names a POSIX shell cannot export are refused rather than mangled.
pub fn export(k: &str, v: &str) -> Result<String> {
    let valid = !k.is_empty()
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !k.starts_with(|c: char| c.is_ascii_digit());
    if !valid {
        return Err(Error::failed(format!(
            "environment variable name `{k}` cannot be set from a shell"
        )));
    }
    if v.contains('\0') {
        return Err(Error::failed(format!(
            "environment variable `{k}`: the value contains a NUL byte"
        )));
    }
    Ok(format!("export {k}={}", sh_quote(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> (i32, String) {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    }

    #[test]
    fn sequence_stops_at_the_first_failure() {
        let s = Step::Seq(vec![
            Step::run("echo a"),
            Step::run("exit 3"),
            Step::run("echo never"),
        ]);
        assert_eq!(sh(&s.render().unwrap()), (3, "a\n".to_string()));
    }

    #[test]
    fn parallel_waits_for_all_and_reports_failure() {
        let s = Step::Seq(vec![
            Step::Par(vec![
                Step::run("sleep 0.2; echo slow"),
                Step::run("echo fast; exit 4"),
            ]),
            Step::run("echo after"),
        ]);
        let (code, out) = sh(&s.render().unwrap());
        assert_eq!(code, 4);
        assert!(
            out.contains("slow") && out.contains("fast") && !out.contains("after"),
            "{out}"
        );
        let ok = Step::Seq(vec![
            Step::Par(vec![Step::run("echo x"), Step::run("echo y")]),
            Step::run("echo after"),
        ]);
        let (code, out) = sh(&ok.render().unwrap());
        assert_eq!(code, 0);
        assert!(out.ends_with("after\n"), "{out}");
    }

    #[test]
    fn cwd_env_and_trailing_comments() {
        let s = Step::Seq(vec![
            Step::Run {
                line: "echo \"$PWD $CT_X\" # a comment".into(),
                cwd: Some(PathBuf::from("/")),
                env: vec![("CT_X".into(), "it's $x".into())],
            },
            Step::run("echo done"),
        ]);
        assert_eq!(
            sh(&s.render().unwrap()),
            (0, "/ it's $x\ndone\n".to_string())
        );
        assert!(export("A-B", "1").is_err());
    }

    #[test]
    fn simplify_unwraps() {
        let s = Step::Seq(vec![Step::Par(vec![Step::run("x")])]).simplify();
        assert_eq!(s, Step::run("x"));
    }
}
