//! End-to-end runs: the built `ct` really runs a shell script with parameters, an npm script, a
//! make target, a just recipe, VS Code tasks with `dependsOn` and inputs, a launch
//! configuration with its `preLaunchTask`, and detached runs whose log and exit code land in the
//! history; and it refuses clearly, recording nothing, when a run cannot start.

use crate::support::{Run, Workspace, eventually, have};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const ARGV: &str = "#!/bin/sh\n# @param name Who\n# @param greeting Word (default: hello)\npwd\nprintf '%s\\0' \"$@\"\nexit \"${CT_EXIT:-0}\"\n";

fn nul_args(out: &str) -> Vec<String> {
    let (_, rest) = out.split_once('\n').unwrap();
    let mut v: Vec<String> = rest.split('\0').map(String::from).collect();
    assert_eq!(v.pop().as_deref(), Some(""));
    v
}

#[test]
fn shell_script_with_params_quoting_cwd_and_exit_code() {
    let w = Workspace::new().executable("scripts/argv.sh", ARGV);
    let nasty = "it's \"q\" $HOME `id` ; rm -rf x\nnext line é😀";
    let out = w
        .run([
            "run",
            "argv.sh",
            "--param",
            &format!("name={nasty}"),
            "--",
            "-x",
            "a b",
        ])
        .success()
        .stdout();
    assert!(
        out.starts_with(&format!("{}/scripts\n", w.display())),
        "{out}"
    );
    assert_eq!(nul_args(&out), [nasty, "hello", "-x", "a b"]);
    // The child's exit code is ct's, and the history has the run.
    w.ct()
        .env("CT_EXIT", "7")
        .args(["run", "argv.sh", "-p", "name=x"])
        .run()
        .code(7);
    let r = w.runs();
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
    let out = w.run(["run", "--last"]).success().stdout();
    assert_eq!(nul_args(&out), ["x", "hello"]);
}

#[test]
fn a_child_killed_by_a_signal_exits_128_plus_n() {
    let w = Workspace::new().executable("die.sh", "#!/bin/sh\nkill -TERM $$\n");
    w.run(["run", "die.sh"]).code(128 + 15);
    assert_eq!(w.runs()[0]["status"], "killed");
}

#[test]
fn npm_script_gets_extra_arguments_after_dashdash() {
    if !have("npm", "scripts/test.sh installs it") || !have("node", "scripts/test.sh installs it") {
        return;
    }
    let w = Workspace::new()
        .file(
            "package.json",
            r#"{"name":"demo","private":true,"scripts":{"argv":"node argv.js"}}"#,
        )
        .file(
            "argv.js",
            "console.log('ARGV=' + JSON.stringify(process.argv.slice(2)));\n",
        );
    let out = w
        .ct()
        .env("npm_config_update_notifier", "false")
        .args(["run", "npm:argv", "--", "--flag", "a b", "it's"])
        .run()
        .success()
        .stdout();
    let line = out.lines().find(|l| l.starts_with("ARGV=")).expect(&out);
    assert_eq!(line, r#"ARGV=["--flag","a b","it's"]"#);
}

#[test]
fn make_target_runs_in_its_folder() {
    if !have("make", "scripts/test.sh installs it") {
        return;
    }
    let w = Workspace::new().file(
        "sub/Makefile",
        "hello:\n\t@echo \"make says $(WHO) in $$(pwd)\"\n",
    );
    w.run(["run", "make:hello", "--", "WHO=it's me"])
        .success()
        .stdout_is(format!("make says it's me in {}/sub\n", w.display()));
}

#[test]
fn just_recipe_with_parameters() {
    if !have("just", "scripts/test.sh installs it") {
        return;
    }
    Workspace::new()
        .file(
            "justfile",
            "greet who greeting='hello' *rest:\n    @printf '%s|%s|%s\\n' '{{who}}' '{{greeting}}' '{{rest}}'\n",
        )
        .run(["run", "greet", "-p", "who=ann", "-p", "rest=x y"])
        .success()
        .stdout_is("ann|hello|x y\n");
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
    let w = Workspace::new().file(".vscode/tasks.json", TASKS);
    w.run([
        "run",
        "vscode:deploy",
        "--param",
        "env=prod",
        "--param",
        "tag=v1;$(x)",
    ])
    .success();
    let base = w.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        w.read("order.txt"),
        format!("first:prod:shared\nsecond:v1;$(x)\nmain:prod:v1;$(x):{base}\n")
    );
    // Parallel dependsOn: both run, in some order.
    std::fs::remove_file(w.join("order.txt")).unwrap();
    w.run(["run", "fan", "-p", "tag=t"]).success();
    let mut lines: Vec<String> = w.read("order.txt").lines().map(String::from).collect();
    lines.sort();
    assert_eq!(lines, ["first:dev:shared", "second:t"]);
    // A required input without a value, a value outside the options, a command input.
    w.run(["run", "deploy"])
        .code(1)
        .stderr_has("input `tag` needs a value");
    w.run(["run", "deploy", "-p", "tag=x", "-p", "env=qa"])
        .code(2)
        .stderr_has("`qa` is not one of: dev, prod");
    w.run(["run", "secret"]).code(1).stderr_has("needs VS Code");
    w.run(["run", "secret", "-p", "token=abc"])
        .stdout_is("abc\n");
}

#[test]
fn launch_configuration_runs_its_pre_launch_task_then_the_debugger() {
    let w = Workspace::new()
        .file(
            ".vscode/tasks.json",
            r#"{"tasks":[{"label":"build","type":"shell","command":"echo built"}]}"#,
        )
        // `/bin/echo` stands in for gdb: what it prints is the debugger's command line.
        .file(
            ".vscode/launch.json",
            r#"{"configurations":[
            {"name":"Native","type":"cppdbg","request":"launch","program":"${workspaceFolder}/app",
             "args":["--n","1"],"MIMode":"gdb","miDebuggerPath":"/bin/echo","preLaunchTask":"build"},
            {"name":"Browser","type":"chrome","request":"launch"}]}"#,
        );
    w.run(["debug", "Native", "--", "more"])
        .success()
        .stdout_is(format!("built\n--args {}/app --n 1 more\n", w.display()));
    w.run(["debug", "Browser"])
        .code(1)
        .stderr_has("type `chrome`");
}

#[test]
fn detached_run_records_its_log_and_exit_code() {
    let w = Workspace::new().executable(
        "job.sh",
        "#!/bin/sh\necho \"out:$1\"\necho err >&2\nexit 5\n",
    );
    let o = w.run(["run", "--detach", "job.sh", "--", "a b"]).success();
    let id = o.run_id();
    o.stdout_has(format!(".commandtree/logs/{id}.log"));
    assert!(
        eventually(|| w.run_row(id)["exitCode"] == 5),
        "{}",
        w.run_row(id)
    );
    let row = w.run_row(id);
    assert_eq!(row["status"], "failed");
    assert_eq!(row["mode"], "detached");
    let log = w.read(format!(".commandtree/logs/{id}.log"));
    assert_eq!(log, "out:a b\nerr\n");
    w.run(["logs", &id.to_string()]).stdout_is(&log);
    w.run(["logs", &id.to_string(), "--follow"]).stdout_is(&log);
    // --new-terminal without tmux or a terminal emulator also runs detached.
    let id2 = w.run(["run", "--new-terminal", "job.sh"]).run_id();
    assert!(eventually(|| w.run_row(id2)["exitCode"] == 5));
}

#[test]
fn stop_ends_a_detached_run_and_its_children() {
    let w = Workspace::new();
    let marker = w.join("child.pid");
    w.write_executable(
        "long.sh",
        format!(
            "#!/bin/sh\nsleep 300 &\necho $! > '{}'\nwait\n",
            marker.display()
        ),
    );
    let id = w.run(["run", "-d", "long.sh"]).run_id();
    assert!(eventually(
        || std::fs::read_to_string(&marker).is_ok_and(|s| s.ends_with('\n'))
    ));
    let child: i32 = w.read("child.pid").trim().parse().unwrap();
    w.run(["stop", &id.to_string()]).success();
    let row = w.run_row(id);
    assert_eq!(row["status"], "stopped");
    assert_eq!(row["exitCode"], 128 + 15);
    // The background `sleep` of the script went with it.
    assert!(eventually(|| !Path::new(&format!("/proc/{child}"))
        .exists()
        || std::fs::read_to_string(format!("/proc/{child}/stat"))
            .is_ok_and(|s| s.contains(") Z "))));
    w.run(["stop", &id.to_string()]).code(1);
}

#[test]
fn runs_that_never_start_fail_in_one_line_and_leave_no_history() {
    let w = Workspace::new()
        .executable("ok.sh", "#!/bin/sh\necho ok\n")
        .executable(
            "needs.sh",
            "#!/usr/bin/env ct-no-such-interpreter\n# @param x\n",
        )
        .executable("tool.ps1", "param([string]$Name)\nWrite-Host $Name\n")
        .file("win.bat", "@echo off\necho hi\n")
        .dir(".home/empty-path");
    w.run(["run", "ok.sh"]).success();
    let before = w.runs().len();
    assert_eq!(before, 1);
    let one_line = |o: Run, code: i32, needle: &str| {
        let e = o.code(code).stderr_has(needle).stderr();
        assert_eq!(
            e.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{e}"
        );
    };
    one_line(
        w.run(["run", "no-such-command"]),
        1,
        "no command matches `no-such-command`",
    );
    one_line(
        w.run(["run", "needs.sh", "-p", "x=1"]),
        1,
        "its interpreter `ct-no-such-interpreter`",
    );
    // On a PATH without PowerShell, whether or not this machine has it.
    one_line(
        w.ct()
            .env("PATH", w.join(".home/empty-path"))
            .args(["run", "tool.ps1", "-p", "Name=x"])
            .run(),
        1,
        "`pwsh` is not installed",
    );
    one_line(w.run(["run", "win.bat"]), 1, "Windows batch file");
    one_line(
        w.run(["run", "ok.sh", "--param", "nope=1"]),
        2,
        "has no such parameter",
    );
    one_line(
        w.run(["run", "ok.sh", "--param", "nope"]),
        2,
        "expected NAME=VALUE",
    );
    one_line(w.run(["run", "needs.sh"]), 1, "needs a value for `x`");
    one_line(
        w.run(["run", "-d", "needs.sh", "-p", "x=1"]),
        1,
        "ct-no-such-interpreter",
    );
    assert_eq!(
        w.runs().len(),
        before,
        "nothing recorded for runs that never started"
    );
    assert!(!w.join(".commandtree/logs").exists());
}

#[test]
fn security_warning_needs_yes_without_a_terminal() {
    let w = Workspace::new().executable("wipe.sh", "#!/bin/sh\necho wiped\n");
    // Create the database, then store a warning for the script as the summaries would.
    w.run(["run", "wipe.sh", "--yes"]).success();
    w.store_summary(
        &w.id("shell", "wipe.sh", "wipe.sh"),
        "h",
        "Deletes files",
        Some("Deletes everything in the folder"),
    );
    w.run(["run", "wipe.sh"])
        .code(1)
        .stderr_has("Deletes everything in the folder")
        .stderr_has("--yes")
        .stdout_is("");
    w.run(["run", "wipe.sh", "--yes"]).stdout_is("wiped\n");
}

#[test]
fn markdown_opens_with_the_pager_and_dry_run_prints_the_line() {
    let w = Workspace::new().file("docs/notes.md", "# Notes\nhello\n");
    w.ct()
        .env("PAGER", "cat")
        .args(["run", "notes.md"])
        .run()
        .success()
        .stdout_is("# Notes\nhello\n");
    let recorded = w.runs().len();
    assert_eq!(recorded, 1);
    w.write_executable("a b/x.sh", "#!/bin/sh\n# @param v\n");
    w.run(["run", "x.sh", "-p", "v=it's", "--dry-run"])
        .stdout_is(format!(
            "cd -- '{0}/a b' && \"{0}/a b/x.sh\" 'it'\\''s'\n",
            w.display()
        ));
    assert_eq!(w.runs().len(), recorded, "a dry run is not a run");
}

#[test]
fn init_snippets_and_pick() {
    let w = Workspace::new().executable("build.sh", "#!/bin/sh\necho b\n");
    let snippet = w
        .run(["init", "bash"])
        .success()
        .stdout_has(r#"bind -x '"\C-g": __ct_pick'"#)
        .stdout();
    let check = Command::new("bash")
        .arg("-n")
        .arg("-c")
        .arg(&snippet)
        .status()
        .unwrap();
    assert!(check.success());
    w.run(["init", "zsh", "--key", "alt-r"])
        .stdout_has("bindkey '^[r' __ct_pick");
    w.run(["init", "fish", "--key", "f5"]).code(2);
    w.run(["pick", "--query", "build.sh"]).stdout_is(format!(
        "cd -- '{}' && \"{}/build.sh\"\n",
        w.display(),
        w.display()
    ));
}

#[test]
fn new_terminal_opens_the_configured_terminal_emulator() {
    let w = Workspace::new().executable("hi.sh", "#!/bin/sh\necho \"hi $1\" > out.txt\nexit 4\n");
    // A stand-in emulator: drops its `-e` and runs the command it is given.
    let term = w.write_executable(".home/fake-term", "#!/bin/sh\nshift\nexec \"$@\"\n");
    let id = w
        .ct()
        .env("TERMINAL", &term)
        .args(["run", "--new-terminal", "hi.sh", "--", "there"])
        .run()
        .success()
        .stdout_has("opened in a new terminal window")
        .run_id();
    assert!(eventually(|| w.run_row(id)["exitCode"] == 4));
    assert_eq!(w.run_row(id)["mode"], "terminal");
    assert_eq!(w.read("out.txt"), "hi there\n");
}

#[test]
fn pick_with_stdin_closed_or_from_dev_null_exits_with_an_error() {
    let w = Workspace::new()
        .file(
            "package.json",
            r#"{"scripts":{"build":"tsc","serve":"vite"}}"#,
        )
        .dir(".home/empty-path");
    // `ct pick` with no fzf on PATH: the built-in list must not spin on a stdin that ends at
    // once, but exit with an error.
    let pick = || w.ct().arg("pick").env("PATH", w.join(".home/empty-path"));
    for (what, ct) in [("/dev/null", pick()), ("a closed pipe", pick().stdin(""))] {
        ct.run_within(Duration::from_secs(20))
            .unwrap_or_else(|| {
                panic!("ct pick with stdin from {what} was still running after 20 s")
            })
            .code(2)
            .stderr_has("needs a terminal")
            .stdout_is("");
    }
}

/// `--dry-run` is for seeing what would run, most of all when the runner is not installed: it
/// prints the exact line, says what is missing, and exits 0. A variadic parameter's default is
/// left to the runner, so extra arguments are not mixed with it.
#[test]
fn dry_run_prints_the_line_when_the_runner_is_missing() {
    let w = Workspace::new()
        .file("justfile", "watch *args=\"lcheck\":\n\techo {{args}}\n")
        .dir(".empty-path");
    let no_just = || w.ct().env("PATH", w.join(".empty-path"));
    let out = no_just()
        .args(["run", "watch", "--dry-run", "--", "foo"])
        .run()
        .code(0)
        .stderr_has("`just` is not installed")
        .stdout();
    assert!(out.trim_end().ends_with("just watch foo"), "{out}");
    let out = no_just().args(["run", "watch", "--dry-run"]).run().stdout();
    assert!(out.trim_end().ends_with("just watch"), "{out}");
    // A real run still refuses, in one line.
    no_just()
        .args(["run", "watch"])
        .run()
        .code(1)
        .stderr_has("`just` is not installed");
}
