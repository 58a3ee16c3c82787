//! The terminal UI end to end, in a real terminal: tmux runs a shell, the shell runs `ct`, and
//! the test types keys and reads the screen (`send-keys`, `capture-pane`). It navigates,
//! filters, stars a command (checked with `ct quick --json`), runs a script with a parameter
//! from the form and sees its output and exit code, quits, and checks the terminal settings are
//! those from before.

use crate::support::{CT, Workspace, eventually, eventually_within, have};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// A tmux server of the test's own (its own socket), holding one session `t`. Dropping it
/// (also when an assertion panics) ends the server and every process started under it, so no
/// `ct` outlives its test, and then removes the folder of its socket.
struct Tmux {
    socket: std::path::PathBuf,
    /// Every process seen under the pane so far (the pane's own first), so the guard can end
    /// them even after the server is gone.
    seen: std::cell::RefCell<Vec<Proc>>,
    /// The folder of the socket, removed after the server has ended.
    _dir: tempfile::TempDir,
}

/// A process, with its start time so a reused pid is never taken for it.
#[derive(Clone, Copy, PartialEq)]
struct Proc {
    pid: u32,
    started: u64,
}

impl Proc {
    fn of(pid: u32) -> Option<Proc> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        Some(Proc {
            pid,
            started: stat_field(&stat, 19)?.parse().ok()?,
        })
    }
    /// Still running (a zombie has exited; only its parent has not collected it yet).
    fn alive(&self) -> bool {
        std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).is_ok_and(|s| {
            stat_field(&s, 0) != Some("Z")
                && stat_field(&s, 19).and_then(|t| t.parse().ok()) == Some(self.started)
        })
    }
}

impl Tmux {
    /// A server with one session running `command` in `cwd`, `cols` by `rows`.
    fn start(name: &str, cwd: &Path, size: (u16, u16), command: &[&str]) -> Tmux {
        let dir = tempfile::Builder::new()
            .prefix(&format!("ct-tui-{name}-"))
            .tempdir()
            .unwrap();
        let t = Tmux {
            socket: dir.path().join("tmux"),
            seen: Default::default(),
            _dir: dir,
        };
        let (cols, rows) = (size.0.to_string(), size.1.to_string());
        let mut args = vec![
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &cols,
            "-y",
            &rows,
            "-c",
            cwd.to_str().unwrap(),
        ];
        args.extend_from_slice(command);
        let started = t.cmd(&args);
        assert!(
            started.status.success(),
            "{}",
            String::from_utf8_lossy(&started.stderr)
        );
        t.processes();
        t
    }
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux")
    }
    fn keys(&self, keys: &[&str]) {
        let mut a = vec!["send-keys", "-t", "t"];
        a.extend_from_slice(keys);
        assert!(self.cmd(&a).status.success());
    }
    fn text(&self, s: &str) {
        assert!(
            self.cmd(&["send-keys", "-t", "t", "-l", s])
                .status
                .success()
        );
    }
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-t", "t", "-p"]).stdout).into_owned()
    }
    /// Waits until the screen shows `what`; panics with the screen when it never does.
    fn wait_for(&self, what: &str) -> String {
        self.wait_until(&[what], &[])
    }
    /// Waits until the screen shows all of `shown` and none of `gone` (a frame may be caught
    /// half written, so each check is of one whole screen).
    fn wait_until(&self, shown: &[&str], gone: &[&str]) -> String {
        let mut last = String::new();
        if eventually(|| {
            last = self.screen();
            shown.iter().all(|s| last.contains(s)) && !gone.iter().any(|g| last.contains(g))
        }) {
            return last;
        }
        panic!("the screen never showed {shown:?} without {gone:?}; it shows:\n{last}");
    }
    /// The process tmux started for the pane.
    fn pane_pid(&self) -> Option<u32> {
        let o = self.cmd(&["list-panes", "-t", "t", "-F", "#{pane_pid}"]);
        String::from_utf8_lossy(&o.stdout).trim().parse().ok()
    }
    /// The pane's process and every process below it (children, their children...); all
    /// are remembered for the guard.
    fn processes(&self) -> Vec<Proc> {
        let mut seen = self.seen.borrow_mut();
        if let Some(p) = self.pane_pid().and_then(Proc::of)
            && !seen.contains(&p)
        {
            seen.push(p);
        }
        let roots: Vec<Proc> = seen.iter().copied().filter(Proc::alive).collect();
        for r in roots {
            for d in descendants(r.pid).into_iter().filter_map(Proc::of) {
                if !seen.contains(&d) {
                    seen.push(d);
                }
            }
        }
        seen.iter().copied().filter(Proc::alive).collect()
    }
    /// Closes the terminal as closing a terminal window does: the server goes, and with it the
    /// pane's pseudo-terminal.
    fn hang_up(&self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        // Looked for before the server goes (and from what was seen before, should the test
        // have closed it already): a process that survives the hangup is no longer below
        // anything tmux knows.
        let left = self.processes();
        self.hang_up();
        for p in left {
            if !eventually_within(Duration::from_secs(5), || !p.alive()) && p.alive() {
                let _ = Command::new("kill")
                    .args(["-KILL", &p.pid.to_string()])
                    .status();
            }
        }
    }
}

/// Field `n` after the command name of a `/proc/PID/stat` line (0: state, 1: parent pid,
/// 19: start time).
fn stat_field(stat: &str, n: usize) -> Option<&str> {
    stat.rsplit_once(')')?.1.split_whitespace().nth(n)
}

fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(stat) = std::fs::read_to_string(e.path().join("stat"))
            && let Some(ppid) = stat_field(&stat, 1).and_then(|p| p.parse::<u32>().ok())
        {
            parent_of.push((pid, ppid));
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for &(c, pp) in &parent_of {
            if pp == p && !out.contains(&c) {
                out.push(c);
                frontier.push(c);
            }
        }
    }
    out
}

/// The `ct` processes among `procs`.
fn ct_processes(procs: &[Proc]) -> Vec<Proc> {
    let ct = std::fs::canonicalize(CT).unwrap();
    procs
        .iter()
        .copied()
        .filter(|p| std::fs::read_link(format!("/proc/{}/exe", p.pid)).is_ok_and(|e| e == ct))
        .collect()
}

/// Whether tmux is here; under CI it must be (scripts/test.sh installs it).
fn tmux_available() -> bool {
    have("tmux", "scripts/test.sh installs it")
}

/// A plain `sh` in tmux with nothing of the caller's environment but `PATH`, and `HOME` = `home`.
fn clean_shell(name: &str, w: &Path, home: &Path, size: (u16, u16)) -> Tmux {
    Tmux::start(
        name,
        w,
        size,
        &[
            "env",
            "-i",
            &format!("PATH={}", std::env::var("PATH").unwrap_or_default()),
            &format!("HOME={}", home.display()),
            "TERM=xterm-256color",
            "NO_COLOR=1",
            "PS1=$ ",
            "sh",
        ],
    )
}

fn fixture() -> Workspace {
    Workspace::new()
        .file(
            "package.json",
            r#"{"name":"demo","scripts":{"build":"echo building","lint":"echo linting"}}"#,
        )
        .file(
            "Makefile",
            "build:\n\techo make-build\n\ntest:\n\techo make-test\n",
        )
        .executable(
            "scripts/greet.sh",
            "#!/bin/sh\n# Greets someone.\n# @param name Who to greet (default: world)\necho \"hello, $1!\"\nexit 3\n",
        )
}

#[test]
fn navigate_filter_star_run_with_a_parameter_and_quit_restored() {
    if !tmux_available() {
        return;
    }
    let w = fixture();
    let ct = CT;
    let t = clean_shell("e2e", &w, &w.home(), (120, 36));
    t.keys(&["stty -g > before.stty; clear", "Enter"]);
    t.keys(&[
        &format!("{ct}; echo \"ct-exit=$?\"; stty -g > after.stty"),
        "Enter",
    ]);

    // The tree, with the first command selected and its details; discovery finished (a tree
    // still being checked refuses a star with "one moment").
    t.wait_until(
        &[
            "Make Targets (2)",
            "Quick Launch (0)",
            "greet.sh",
            "Details",
        ],
        &["looking for risky commands", "discovering commands"],
    );

    // The filter: typing selects the first match; Enter keeps it.
    t.keys(&["/"]);
    t.text("greet");
    // The filter hides what does not match, and the match is selected, its details shown.
    t.wait_until(&["/greet", "Who to greet"], &["Make Targets"]);
    t.keys(&["Enter"]);

    // Star it: Quick Launch shows it, and so does `ct quick --json`.
    t.keys(&["s"]);
    t.wait_for("greet.sh is in Quick Launch");
    let quick = w.run(["quick", "--json"]);
    assert_eq!(quick.json()[0]["label"], "greet.sh", "{}", quick.stdout());

    // Esc clears the filter; navigation moves the selection to the make target `test` (the
    // root's runners come first, the Makefile before package.json, so it is five rows above
    // the last one, the script: the Shell Scripts row, two npm scripts and their row between).
    t.keys(&["Escape"]);
    t.wait_for("Make Targets (2)");
    t.keys(&["End"]);
    for _ in 0..5 {
        t.keys(&["Up"]);
    }
    t.wait_until(&["echo make-test", "Makefile:4"], &[]);

    // Back to the script and run it: the form asks the parameter, default pre-filled.
    t.keys(&["/"]);
    t.text("greet");
    t.keys(&["Enter"]);
    t.wait_for("Who to greet");
    t.keys(&["Enter"]);
    // The default is pre-filled.
    t.wait_until(&["Run greet.sh", "world▏"], &[]);
    t.keys(&["C-u"]);
    t.text("Ada Lovelace");
    t.keys(&["Enter"]);
    t.wait_until(
        &["hello, Ada Lovelace!", "exit 3", "press a key to return"],
        &[],
    );
    t.keys(&["Space"]);
    t.wait_for("greet.sh: exit 3");
    // The run is in the History section (shown once the filter is cleared).
    t.keys(&["Escape"]);
    t.wait_until(&["History (1)", "failed exit 3"], &[]);

    // Quit: the shell is back, with the terminal settings it had.
    t.keys(&["q"]);
    t.wait_for("ct-exit=0");
    t.keys(&[
        "cmp before.stty after.stty && echo terminal-restored",
        "Enter",
    ]);
    t.wait_for("terminal-restored");
    let runs = w.runs();
    assert_eq!(runs[0]["exitCode"], 3, "{runs:?}");
}

/// Typing a filter selects the best match, not the first row in tree order: `/replace` then
/// Enter runs the make target `replace`, although an npm script that also matches comes first.
#[test]
fn the_filter_selects_the_best_match_and_enter_runs_it() {
    if !tmux_available() {
        return;
    }
    let w = Workspace::new()
        .file(
            "package.json",
            r#"{"scripts":{"recompile-all-packages-cleanly-everywhere":"echo wrong-one-ran"}}"#,
        )
        .file("Makefile", "replace:\n\t@echo replace-ran\n");
    let ct = CT;
    let t = clean_shell("best", &w, &w.home(), (100, 30));
    t.keys(&[&format!("{ct}; echo \"ct-exit=$?\""), "Enter"]);
    t.wait_until(
        &["Make Targets (1)", "recompile-all-packages"],
        &["looking for risky commands", "discovering commands"],
    );
    t.keys(&["/"]);
    t.text("replace");
    // Both still match; the details are the make target's: it is the one selected.
    t.wait_until(
        &["/replace", "recompile-all-packages", "echo replace-ran"],
        &[],
    );
    t.keys(&["Enter"]);
    t.keys(&["Enter"]);
    t.wait_until(
        &["replace-ran", "press a key to return"],
        &["wrong-one-ran"],
    );
    t.keys(&["Space"]);
    t.keys(&["q"]);
    t.wait_for("ct-exit=0");
    let runs = w.runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(
        runs[0]["commandId"]
            .as_str()
            .is_some_and(|id| id.starts_with("make:")),
        "{runs:?}"
    );
}

/// Closing the terminal ends `ct`: through SIGHUP when `ct` is in the terminal's session, and
/// through the terminal's end (reads fail) when it is not, where no signal comes at all.
#[test]
fn ct_exits_when_its_terminal_goes_away() {
    if !tmux_available() {
        return;
    }
    let w = fixture();
    let ct = CT;
    let path = format!("PATH={}", std::env::var("PATH").unwrap_or_default());
    let home = format!("HOME={}", w.home().display());
    // `setsid -w`: ct in a session of its own, the terminal still its input and output.
    for (name, wrapper) in [("sighup", &[][..]), ("eof", &["setsid", "-w"][..])] {
        let mut command = vec![
            "env",
            "-i",
            &path,
            &home,
            "TERM=xterm-256color",
            "NO_COLOR=1",
        ];
        command.extend_from_slice(wrapper);
        command.extend_from_slice(&[ct, "--root", w.to_str().unwrap(), "tui"]);
        let t = Tmux::start(name, &w, (100, 30), &command);
        t.wait_for("Make Targets (2)");
        let found = ct_processes(&t.processes());
        assert_eq!(found.len(), 1, "{name}: one ct process");
        t.hang_up();
        assert!(
            eventually(|| !found[0].alive()),
            "{name}: ct {} still runs after its terminal closed",
            found[0].pid
        );
    }
}

/// What a Rust and a TypeScript build print when they fail.
const BUILD: &str = "#!/bin/sh\necho 'error[E0308]: mismatched types'\necho ' --> src/main.rs:2:18'\necho '  |'\necho \"src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\"\nexit 1\n";

/// Runs as the engine knows them, not only the UI's own: a run `ct` started in another process
/// shows on its command's row with how long it has been going, `x` stops it, `X` starts it
/// again as it ran (in the background), and a stop from another process shows too. `p` lists
/// the problems a build printed and Enter opens one in `$EDITOR`; `d` shows what a target runs
/// and what runs it, and Enter goes to one.
#[test]
fn runs_from_anywhere_are_shown_stopped_restarted_and_their_problems_opened() {
    if !tmux_available() {
        return;
    }
    let w = Workspace::new()
        .file(
            "Makefile",
            "serve:\n\tsleep 300\n\nci: check\n\t@echo ci-ran\n\ncheck:\n\t@echo check-ran\n\nwipe:\n\trm -rf \"$$HOME/.cache/ct-none\"\n",
        )
        .executable("build.sh", BUILD)
        .executable(
            ".home/editor.sh",
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$HOME/opened\"\n",
        );
    let serve = w.run(["run", "-d", "serve"]).success().run_id();
    let build = w.run(["run", "-d", "build.sh"]).success().run_id();
    w.run(["run", "--yes", "wipe"]).success();
    assert!(
        eventually(|| w.run_row(build)["status"] == "failed"),
        "{:?}",
        w.run_row(build)
    );
    let t = clean_shell("runs", &w, &w.home(), (120, 36));
    let editor = w.home().join("editor.sh");
    t.keys(&[
        &format!("EDITOR={} {CT}; echo \"ct-exit=$?\"", editor.display()),
        "Enter",
    ]);
    // Started elsewhere, seen here: running, with its time; the build's end as it ended.
    t.wait_until(
        &["Make Targets (4)", "serve  ● ", "build.sh  ✗ failed 1"],
        &["looking for risky commands", "discovering commands"],
    );
    t.keys(&["/"]);
    t.text("serve");
    t.keys(&["Enter"]);
    t.wait_for("● running for");
    // The runs pane lists it too, with its output, though another process started it.
    t.keys(&["r"]);
    t.wait_until(&["Background runs", "● serve running"], &[]);
    t.keys(&["r"]);
    t.wait_until(&["serve  ● "], &["Background runs"]);

    // `x` stops it: the row says so, and so does the history.
    t.keys(&["x"]);
    t.wait_until(&["serve  ■ stopped"], &["serve  ● "]);
    assert_eq!(w.run_row(serve)["status"], "stopped");

    // `X` runs it again as it ran: in the background, a new run.
    t.keys(&["X"]);
    t.wait_until(&["serve started in the background", "serve  ● "], &[]);
    let running = w.json(["runs", "--running", "--json"]);
    let again = running[0]["runId"].as_i64().unwrap();
    assert_ne!(again, serve, "{running}");
    assert_eq!(running[0]["mode"], "detached", "{running}");

    // Stopped by another process: the row follows.
    w.ok(["stop", "serve"]);
    t.wait_until(&["serve  ■ stopped"], &["serve  ● "]);

    // The build's problems; Enter opens the selected one in $EDITOR at its line, and the list
    // is there again after. (Each Escape alone: followed at once by a key, a terminal reads
    // the two as Alt and that key.)
    t.keys(&["Escape"]);
    // The History section (shown without a filter) follows the runs too.
    t.wait_until(
        &["Make Targets (4)", "History (4)"],
        &["│ /serve", "serve  running"],
    );
    t.keys(&["/"]);
    t.text("build");
    t.keys(&["Enter", "p"]);
    t.wait_until(
        &[
            &format!("Problems of run {build} (build.sh, failed): 2 problems"),
            "src/main.rs:2:18 error: mismatched types [E0308]",
            "src/index.ts:3:7 error: Type 'string'",
        ],
        &[],
    );
    t.keys(&["Down", "Enter"]);
    assert!(eventually(|| w.home().join("opened").exists()));
    assert_eq!(
        w.read(".home/opened"),
        format!("+3\n{}\n", w.join("src/index.ts").display())
    );
    t.wait_for("Problems of run");
    t.keys(&["Escape"]);
    t.wait_until(&["build.sh"], &["Problems of run"]);

    // What `check` runs and what runs it; Enter goes to `ci`.
    t.keys(&["Escape"]);
    t.wait_until(&["Make Targets (4)"], &["│ /build"]);
    t.keys(&["/"]);
    t.text("check");
    t.keys(&["Enter"]);
    t.wait_for("@echo check-ran");
    t.keys(&["Escape"]);
    t.wait_until(&["Make Targets (4)", "@echo check-ran"], &["│ /check"]);
    t.keys(&["d"]);
    t.wait_until(
        &[
            "Dependencies of check (make)",
            "nothing by itself",
            "run by:",
            "ci (make, prerequisite)  Makefile:4",
        ],
        &[],
    );
    t.keys(&["Enter"]);
    t.wait_until(&["@echo ci-ran"], &["Dependencies of check"]);

    // A restart is gated as any run: a warned command asks again, and `n` runs nothing.
    let before = w.runs().len();
    t.keys(&["/"]);
    t.text("wipe");
    t.keys(&["Enter"]);
    t.wait_until(&["wipe  ✓ ok"], &[]);
    t.keys(&["X"]);
    t.wait_until(&["Run wipe?", "outside the project"], &[]);
    t.keys(&["n"]);
    t.wait_until(&["not run"], &["Run wipe?"]);
    assert_eq!(w.runs().len(), before);
    t.keys(&["X"]);
    t.wait_for("Run wipe?");
    t.keys(&["y"]);
    // It ran as it last ran: here, in the terminal.
    t.wait_for("press a key to return");
    t.keys(&["Space"]);
    t.wait_for("wipe: exit 0");
    assert_eq!(w.runs().len(), before + 1);

    t.keys(&["q"]);
    t.wait_for("ct-exit=0");
}

/// `W` reruns a command in the background when a file it depends on changes: the row says it
/// is watched, an ignored file changes nothing, a change while it runs stops that run and starts
/// it again, and `W` again stops watching.
#[test]
fn a_watched_command_reruns_in_the_background_when_its_files_change() {
    if !tmux_available() {
        return;
    }
    let w = Workspace::new()
        .file("Makefile", "serve:\n\tcat src/conf.txt; sleep 300\n")
        .file(".gitignore", "*.log\n")
        .file("src/conf.txt", "one\n");
    let t = clean_shell("watch", &w, &w.home(), (120, 36));
    t.keys(&[&format!("{CT}; echo \"ct-exit=$?\""), "Enter"]);
    t.wait_until(
        &["Make Targets (1)"],
        &["looking for risky commands", "discovering commands"],
    );
    t.keys(&["/"]);
    t.text("serve");
    t.keys(&["Enter"]);
    t.wait_for("cat src/conf.txt");
    t.keys(&["W"]);
    t.wait_until(
        &[
            "serve reruns in the background when its files change",
            "serve  ↻",
        ],
        &[],
    );
    assert!(w.runs().is_empty());

    // Ignored by the workspace's .gitignore: no run.
    w.write("build.log", "noise\n");
    std::thread::sleep(Duration::from_secs(2));
    assert!(w.runs().is_empty(), "{:?}", w.runs());

    w.write("src/conf.txt", "two\n");
    assert!(eventually(|| w.runs().len() == 1), "{:?}", w.runs());
    let first = w.runs()[0].clone();
    assert_eq!(first["mode"], "detached", "{first}");
    assert_eq!(first["status"], "running", "{first}");
    t.wait_for("serve  ↻  ● ");

    // A change while it runs: stopped, and started again. (What changes in the moments after a
    // rerun starts is taken for the run's own work, as `ct run --watch` takes it: the change
    // comes after those.)
    std::thread::sleep(Duration::from_secs(1));
    w.write("src/conf.txt", "three\n");
    assert!(eventually(|| w.runs().len() == 2), "{:?}", w.runs());
    let first_id = first["runId"].as_i64().unwrap();
    assert!(
        eventually(|| w.run_row(first_id)["status"] == "stopped"),
        "{:?}",
        w.run_row(first_id)
    );
    let running = w.json(["runs", "--running", "--json"]);
    assert_eq!(running.as_array().unwrap().len(), 1, "{running}");
    assert_ne!(running[0]["runId"], first_id);
    assert_eq!(running[0]["mode"], "detached");

    // Off: a change runs nothing more.
    t.keys(&["W"]);
    t.wait_until(&["serve: rerun on change off"], &["serve  ↻"]);
    w.write("src/conf.txt", "four\n");
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(w.runs().len(), 2, "{:?}", w.runs());

    t.keys(&["x"]);
    t.wait_until(&["serve  ■ stopped"], &["serve  ● "]);
    t.keys(&["q"]);
    t.wait_for("ct-exit=0");
}
