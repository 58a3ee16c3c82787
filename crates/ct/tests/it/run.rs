//! End-to-end runs: the built `ct` really runs a shell script with parameters, an npm script, a
//! make target, a just recipe (when just is installed), VS Code tasks with `dependsOn` and
//! inputs, a launch configuration with its `preLaunchTask`, and detached runs whose log and
//! exit code land in the history; and it refuses clearly, recording nothing, when a run cannot
//! start.

use crate::support;

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn workspace(name: &str) -> PathBuf {
    support::workspace("run", name)
}

fn installed(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

const ARGV: &str = "#!/bin/sh\n# @param name Who\n# @param greeting Word (default: hello)\npwd\nprintf '%s\\0' \"$@\"\nexit \"${CT_EXIT:-0}\"\n";

fn nul_args(out: &str) -> Vec<String> {
    let (_, rest) = out.split_once('\n').unwrap();
    let mut v: Vec<String> = rest.split('\0').map(String::from).collect();
    assert_eq!(v.pop().as_deref(), Some(""));
    v
}

#[test]
fn shell_script_with_params_quoting_cwd_and_exit_code() {
    let w = workspace("shell");
    executable(&w, "scripts/argv.sh", ARGV);
    let nasty = "it's \"q\" $HOME `id` ; rm -rf x\nnext line é😀";
    let o = ct(
        &w,
        &[
            "run",
            "argv.sh",
            "--param",
            &format!("name={nasty}"),
            "--",
            "-x",
            "a b",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with(&format!("{}/scripts\n", w.display())),
        "{out}"
    );
    assert_eq!(nul_args(&out), [nasty, "hello", "-x", "a b"]);
    // The child's exit code is ct's, and the history has the run.
    let o = ct_with(&w, &[("CT_EXIT", "7")], &["run", "argv.sh", "-p", "name=x"]);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    let r = runs(&w);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["exitCode"], 7);
    assert_eq!(r[0]["status"], "failed");
    assert_eq!(r[0]["mode"], "foreground");
    assert_eq!(r[0]["label"], "argv.sh");
    assert_eq!(r[0]["cwd"], format!("{}/scripts", w.display()));
    assert!(
        r[0]["commandLine"]
            .as_str()
            .unwrap()
            .ends_with("'x' 'hello'")
    );
    assert!(r[0]["durationMs"].as_i64().unwrap() >= 0);
    assert_eq!(r[1]["exitCode"], 0);
    assert_eq!(r[1]["status"], "ok");
    // --last repeats it with the same values.
    let o = ct(&w, &["run", "--last"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(nul_args(&stdout(&o)), ["x", "hello"]);
}

#[test]
fn a_child_killed_by_a_signal_exits_128_plus_n() {
    let w = workspace("signal");
    executable(&w, "die.sh", "#!/bin/sh\nkill -TERM $$\n");
    let o = ct(&w, &["run", "die.sh"]);
    assert_eq!(o.status.code(), Some(128 + 15), "{}", stderr(&o));
    assert_eq!(runs(&w)[0]["status"], "killed");
}

#[test]
fn npm_script_gets_extra_arguments_after_dashdash() {
    if !installed("npm") || !installed("node") {
        support::skip("npm or node is not installed");
        return;
    }
    let w = workspace("npm");
    write(
        &w,
        "package.json",
        r#"{"name":"demo","private":true,"scripts":{"argv":"node argv.js"}}"#,
    );
    write(
        &w,
        "argv.js",
        "console.log('ARGV=' + JSON.stringify(process.argv.slice(2)));\n",
    );
    let o = ct_with(
        &w,
        &[("npm_config_update_notifier", "false")],
        &["run", "npm:argv", "--", "--flag", "a b", "it's"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out.lines().find(|l| l.starts_with("ARGV=")).expect(&out);
    assert_eq!(line, r#"ARGV=["--flag","a b","it's"]"#);
}

#[test]
fn make_target_runs_in_its_folder() {
    if !installed("make") {
        support::skip("make is not installed");
        return;
    }
    let w = workspace("make");
    write(
        &w,
        "sub/Makefile",
        "hello:\n\t@echo \"make says $(WHO) in $$(pwd)\"\n",
    );
    let o = ct(&w, &["run", "make:hello", "--", "WHO=it's me"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("make says it's me in {}/sub\n", w.display())
    );
}

#[test]
fn just_recipe_with_parameters() {
    if !installed("just") {
        support::skip("just is not installed (scripts/test.sh installs it)");
        return;
    }
    let w = workspace("just");
    write(
        &w,
        "justfile",
        "greet who greeting='hello' *rest:\n    @printf '%s|%s|%s\\n' '{{who}}' '{{greeting}}' '{{rest}}'\n",
    );
    let o = ct(&w, &["run", "greet", "-p", "who=ann", "-p", "rest=x y"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "ann|hello|x y\n");
}

const TASKS: &str = r#"{
  // JSONC, as VS Code writes it
  "version": "2.0.0",
  "options": { "env": { "CT_SHARED": "shared" } },
  "tasks": [
    { "label": "first", "type": "shell", "command": "echo first:${input:env}:$CT_SHARED >> order.txt" },
    { "label": "second", "type": "process", "command": "sh",
      "args": ["-c", "echo second:$1 >> order.txt", "sh", "${input:tag}"] },
    { "label": "deploy", "type": "shell",
      "command": "echo main:${input:env}:${input:tag}:${workspaceFolderBasename} >> order.txt",
      "dependsOn": ["first", "second"], "dependsOrder": "sequence" },
    { "label": "fan", "dependsOn": ["first", "second"] },
    { "label": "secret", "type": "shell", "command": "echo ${input:token}" },
  ],
  "inputs": [
    { "id": "env", "type": "pickString", "options": ["dev", "prod"], "default": "dev" },
    { "id": "tag", "type": "promptString", "description": "Image tag" },
    { "id": "token", "type": "command", "command": "secrets.get" },
  ],
}"#;

#[test]
fn vscode_task_with_depends_on_and_inputs() {
    let w = workspace("vscode");
    write(&w, ".vscode/tasks.json", TASKS);
    let order = w.join("order.txt");
    let o = ct(
        &w,
        &[
            "run",
            "vscode:deploy",
            "--param",
            "env=prod",
            "--param",
            "tag=v1;$(x)",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let base = w.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        std::fs::read_to_string(&order).unwrap(),
        format!("first:prod:shared\nsecond:v1;$(x)\nmain:prod:v1;$(x):{base}\n")
    );
    // Parallel dependsOn: both run, in some order.
    std::fs::remove_file(&order).unwrap();
    let o = ct(&w, &["run", "fan", "-p", "tag=t"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut lines: Vec<String> = std::fs::read_to_string(&order)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines.sort();
    assert_eq!(lines, ["first:dev:shared", "second:t"]);
    // A required input without a value, a value outside the options, a command input.
    let o = ct(&w, &["run", "deploy"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("input `tag` needs a value"),
        "{}",
        stderr(&o)
    );
    let o = ct(&w, &["run", "deploy", "-p", "tag=x", "-p", "env=qa"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("`qa` is not one of: dev, prod"),
        "{}",
        stderr(&o)
    );
    let o = ct(&w, &["run", "secret"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("needs VS Code"), "{}", stderr(&o));
    let o = ct(&w, &["run", "secret", "-p", "token=abc"]);
    assert_eq!(stdout(&o), "abc\n");
}

#[test]
fn launch_configuration_runs_its_pre_launch_task_then_the_debugger() {
    let w = workspace("launch");
    write(
        &w,
        ".vscode/tasks.json",
        r#"{"tasks":[{"label":"build","type":"shell","command":"echo built"}]}"#,
    );
    // `/bin/echo` stands in for gdb: what it prints is the debugger's command line.
    write(
        &w,
        ".vscode/launch.json",
        r#"{"configurations":[
            {"name":"Native","type":"cppdbg","request":"launch","program":"${workspaceFolder}/app",
             "args":["--n","1"],"MIMode":"gdb","miDebuggerPath":"/bin/echo","preLaunchTask":"build"},
            {"name":"Browser","type":"chrome","request":"launch"}]}"#,
    );
    let o = ct(&w, &["debug", "Native", "--", "more"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("built\n--args {}/app --n 1 more\n", w.display())
    );
    let o = ct(&w, &["debug", "Browser"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("type `chrome`"), "{}", stderr(&o));
}

#[test]
fn detached_run_records_its_log_and_exit_code() {
    let w = workspace("detached");
    executable(
        &w,
        "job.sh",
        "#!/bin/sh\necho \"out:$1\"\necho err >&2\nexit 5\n",
    );
    let o = ct(&w, &["run", "--detach", "job.sh", "--", "a b"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = run_id(&o);
    assert!(stdout(&o).contains(&format!(".commandtree/logs/{id}.log")));
    assert!(
        eventually(|| run_row(&w, id)["exitCode"] == 5),
        "{}",
        run_row(&w, id)
    );
    let row = run_row(&w, id);
    assert_eq!(row["status"], "failed");
    assert_eq!(row["mode"], "detached");
    let log = std::fs::read_to_string(w.join(format!(".commandtree/logs/{id}.log"))).unwrap();
    assert_eq!(log, "out:a b\nerr\n");
    let o = ct(&w, &["logs", &id.to_string()]);
    assert_eq!(stdout(&o), log);
    let o = ct(&w, &["logs", &id.to_string(), "--follow"]);
    assert_eq!(stdout(&o), log);
    // --new-terminal without tmux or a terminal emulator also runs detached.
    let o = ct(&w, &["run", "--new-terminal", "job.sh"]);
    let id2 = run_id(&o);
    assert!(eventually(|| run_row(&w, id2)["exitCode"] == 5));
}

#[test]
fn stop_ends_a_detached_run_and_its_children() {
    let w = workspace("stop");
    let marker = w.join("child.pid");
    executable(
        &w,
        "long.sh",
        format!(
            "#!/bin/sh\nsleep 300 &\necho $! > '{}'\nwait\n",
            marker.display()
        ),
    );
    let o = ct(&w, &["run", "-d", "long.sh"]);
    let id = run_id(&o);
    assert!(eventually(
        || std::fs::read_to_string(&marker).is_ok_and(|s| s.ends_with('\n'))
    ));
    let child: i32 = std::fs::read_to_string(&marker)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let o = ct(&w, &["stop", &id.to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let row = run_row(&w, id);
    assert_eq!(row["status"], "stopped");
    assert_eq!(row["exitCode"], 128 + 15);
    // The background `sleep` of the script went with it.
    assert!(eventually(|| !Path::new(&format!("/proc/{child}"))
        .exists()
        || std::fs::read_to_string(format!("/proc/{child}/stat"))
            .is_ok_and(|s| s.contains(") Z "))));
    let o = ct(&w, &["stop", &id.to_string()]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn runs_that_never_start_fail_in_one_line_and_leave_no_history() {
    let w = workspace("refused");
    executable(&w, "ok.sh", "#!/bin/sh\necho ok\n");
    executable(
        &w,
        "needs.sh",
        "#!/usr/bin/env ct-no-such-interpreter\n# @param x\n",
    );
    executable(&w, "tool.ps1", "param([string]$Name)\nWrite-Host $Name\n");
    write(&w, "win.bat", "@echo off\necho hi\n");
    let o = ct(&w, &["run", "ok.sh"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = runs(&w).len();
    assert_eq!(before, 1);
    let one_line = |o: &Output, code: i32, needle: &str| {
        assert_eq!(o.status.code(), Some(code), "{}", stderr(o));
        let e = stderr(o);
        assert_eq!(
            e.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{e}"
        );
        assert!(e.contains(needle), "{e}");
    };
    one_line(
        &ct(&w, &["run", "no-such-command"]),
        1,
        "no command matches `no-such-command`",
    );
    one_line(
        &ct(&w, &["run", "needs.sh", "-p", "x=1"]),
        1,
        "its interpreter `ct-no-such-interpreter`",
    );
    if !installed("pwsh") {
        one_line(
            &ct(&w, &["run", "tool.ps1", "-p", "Name=x"]),
            1,
            "`pwsh` is not installed",
        );
    }
    one_line(&ct(&w, &["run", "win.bat"]), 1, "Windows batch file");
    one_line(
        &ct(&w, &["run", "ok.sh", "--param", "nope=1"]),
        2,
        "has no such parameter",
    );
    one_line(
        &ct(&w, &["run", "ok.sh", "--param", "nope"]),
        2,
        "expected NAME=VALUE",
    );
    one_line(&ct(&w, &["run", "needs.sh"]), 1, "needs a value for `x`");
    one_line(
        &ct(&w, &["run", "-d", "needs.sh", "-p", "x=1"]),
        1,
        "ct-no-such-interpreter",
    );
    assert_eq!(
        runs(&w).len(),
        before,
        "nothing recorded for runs that never started"
    );
    assert!(!w.join(".commandtree/logs").exists());
}

#[test]
fn security_warning_needs_yes_without_a_terminal() {
    let w = workspace("warning");
    let script = executable(&w, "wipe.sh", "#!/bin/sh\necho wiped\n");
    // Create the database, then store a warning for the script as the summaries would.
    assert!(ct(&w, &["run", "wipe.sh", "--yes"]).status.success());
    let db = rusqlite::Connection::open(w.join(".commandtree/commandtree.sqlite3")).unwrap();
    db.execute(
        "INSERT INTO commands (command_id, content_hash, summary, security_warning, last_updated)
         VALUES (?1, 'h', 'Deletes files', 'Deletes everything in the folder', '2026-01-01T00:00:00.000Z')",
        [format!("shell:{}:wipe.sh", script.display())],
    )
    .unwrap();
    drop(db);
    let o = ct(&w, &["run", "wipe.sh"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("Deletes everything in the folder"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("--yes"), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    let o = ct(&w, &["run", "wipe.sh", "--yes"]);
    assert_eq!(stdout(&o), "wiped\n");
}

#[test]
fn markdown_opens_with_the_pager_and_dry_run_prints_the_line() {
    let w = workspace("markdown");
    write(&w, "docs/notes.md", "# Notes\nhello\n");
    let o = ct_with(&w, &[("PAGER", "cat")], &["run", "notes.md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "# Notes\nhello\n");
    let recorded = runs(&w).len();
    assert_eq!(recorded, 1);
    executable(&w, "a b/x.sh", "#!/bin/sh\n# @param v\n");
    let o = ct(&w, &["run", "x.sh", "-p", "v=it's", "--dry-run"]);
    assert_eq!(
        stdout(&o),
        format!(
            "cd -- '{0}/a b' && \"{0}/a b/x.sh\" 'it'\\''s'\n",
            w.display()
        )
    );
    assert_eq!(runs(&w).len(), recorded, "a dry run is not a run");
}

#[test]
fn init_snippets_and_pick() {
    let w = workspace("init");
    executable(&w, "build.sh", "#!/bin/sh\necho b\n");
    let o = ct(&w, &["init", "bash"]);
    assert!(o.status.success());
    let snippet = stdout(&o);
    assert!(
        snippet.contains(r#"bind -x '"\C-g": __ct_pick'"#),
        "{snippet}"
    );
    let check = Command::new("bash")
        .arg("-n")
        .arg("-c")
        .arg(&snippet)
        .status()
        .unwrap();
    assert!(check.success());
    let o = ct(&w, &["init", "zsh", "--key", "alt-r"]);
    assert!(stdout(&o).contains("bindkey '^[r' __ct_pick"));
    let o = ct(&w, &["init", "fish", "--key", "f5"]);
    assert_eq!(o.status.code(), Some(2));
    let o = ct(&w, &["pick", "--query", "build.sh"]);
    assert_eq!(
        stdout(&o),
        format!("cd -- '{}' && \"{}/build.sh\"\n", w.display(), w.display())
    );
}

#[test]
fn new_terminal_opens_the_configured_terminal_emulator() {
    let w = workspace("terminal");
    executable(&w, "hi.sh", "#!/bin/sh\necho \"hi $1\" > out.txt\nexit 4\n");
    // A stand-in emulator: drops its `-e` and runs the command it is given.
    let term = executable(&w, ".home/fake-term", "#!/bin/sh\nshift\nexec \"$@\"\n");
    let o = ct_with(
        &w,
        &[("TERMINAL", term.to_str().unwrap())],
        &["run", "--new-terminal", "hi.sh", "--", "there"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("opened in a new terminal window"),
        "{}",
        stdout(&o)
    );
    let id = run_id(&o);
    assert!(eventually(|| run_row(&w, id)["exitCode"] == 4));
    assert_eq!(run_row(&w, id)["mode"], "terminal");
    assert_eq!(
        std::fs::read_to_string(w.join("out.txt")).unwrap(),
        "hi there\n"
    );
}

/// `ct pick` started with `stdin` as given and no fzf on PATH: the built-in list must not
/// spin on a stdin that ends at once, but exit with an error. `None`: still running after 20 s.
fn pick_without_a_terminal(w: &Path, stdin: Stdio, close_stdin: bool) -> Option<Output> {
    let empty = w.join(".home/empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let mut child = command(Some(w), &w.join(".home"))
        .arg("pick")
        .env("PATH", &empty)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if close_stdin {
        drop(child.stdin.take());
    }
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < until {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn pick_with_stdin_closed_or_from_dev_null_exits_with_an_error() {
    let w = workspace("pick-closed");
    write(
        &w,
        "package.json",
        r#"{"scripts":{"build":"tsc","serve":"vite"}}"#,
    );
    for (what, stdin, close) in [
        ("/dev/null", Stdio::null(), false),
        ("a closed pipe", Stdio::piped(), true),
    ] {
        let o = pick_without_a_terminal(&w, stdin, close).unwrap_or_else(|| {
            panic!("ct pick with stdin from {what} was still running after 20 s")
        });
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("needs a terminal"),
            "{what}: {}",
            stderr(&o)
        );
        assert!(o.stdout.is_empty(), "{what}: {}", stdout(&o));
    }
}

/// `--dry-run` is for seeing what would run, most of all when the runner is not installed: it
/// prints the exact line, says what is missing, and exits 0. A variadic parameter's default is
/// left to the runner, so extra arguments are not mixed with it.
#[test]
fn dry_run_prints_the_line_when_the_runner_is_missing() {
    let w = workspace("dry-missing");
    write(&w, "justfile", "watch *args=\"lcheck\":\n\techo {{args}}\n");
    let empty = w.join(".empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let path = empty.to_string_lossy().into_owned();
    let o = ct_with(
        &w,
        &[("PATH", &path)],
        &["run", "watch", "--dry-run", "--", "foo"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).trim_end().ends_with("just watch foo"),
        "{}",
        stdout(&o)
    );
    assert!(
        stderr(&o).contains("`just` is not installed"),
        "{}",
        stderr(&o)
    );
    let o = ct_with(&w, &[("PATH", &path)], &["run", "watch", "--dry-run"]);
    assert!(
        stdout(&o).trim_end().ends_with("just watch"),
        "{}",
        stdout(&o)
    );
    // A real run still refuses, in one line.
    let o = ct_with(&w, &[("PATH", &path)], &["run", "watch"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("`just` is not installed"),
        "{}",
        stderr(&o)
    );
}
