//! The terminal UI end to end, in a real terminal: tmux runs a shell, the shell runs `ct`, and
//! the test types keys and reads the screen (`send-keys`, `capture-pane`). It navigates,
//! filters, stars a command (checked with `ct quick --json`), runs a script with a parameter
//! from the form and sees its output and exit code, quits, and checks the terminal settings are
//! those from before.

mod support;

use std::path::Path;
use std::process::Command;
use support::*;

struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
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
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn fixture(w: &Path) {
    write(
        w,
        "package.json",
        r#"{"name":"demo","scripts":{"build":"echo building","lint":"echo linting"}}"#,
    );
    write(
        w,
        "Makefile",
        "build:\n\techo make-build\n\ntest:\n\techo make-test\n",
    );
    executable(
        w,
        "scripts/greet.sh",
        "#!/bin/sh\n# Greets someone.\n# @param name Who to greet (default: world)\necho \"hello, $1!\"\nexit 3\n",
    );
}

#[test]
fn navigate_filter_star_run_with_a_parameter_and_quit_restored() {
    if !tmux_available() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "tmux is required for the terminal UI test under CI (scripts/test.sh installs it)"
        );
        eprintln!("skipped: tmux is not installed (scripts/test.sh installs it)");
        return;
    }
    let w = workspace("tui", "e2e");
    fixture(&w);
    let t = Tmux {
        socket: format!("ct-tui-test-{}", std::process::id()),
    };
    let home = w.join(".home");
    let ct = env!("CARGO_BIN_EXE_ct");
    let started = t.cmd(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "120",
        "-y",
        "36",
        "-c",
        w.to_str().unwrap(),
        "env",
        "-i",
        &format!("PATH={}", std::env::var("PATH").unwrap_or_default()),
        &format!("HOME={}", home.display()),
        "TERM=xterm-256color",
        "NO_COLOR=1",
        "PS1=$ ",
        "sh",
    ]);
    assert!(started.status.success(), "{}", stderr(&started));
    t.keys(&["stty -g > before.stty; clear", "Enter"]);
    t.keys(&[
        &format!("{ct}; echo \"ct-exit=$?\"; stty -g > after.stty"),
        "Enter",
    ]);

    // The tree, with the first command selected and its details.
    t.wait_until(
        &[
            "Make Targets (2)",
            "Quick Launch (0)",
            "greet.sh",
            "Details",
        ],
        &[],
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
    let quick = ct_with(&w, &[], &["quick", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&quick.stdout).unwrap();
    assert_eq!(v[0]["label"], "greet.sh", "{}", stdout(&quick));

    // Esc clears the filter; navigation moves the selection to the make target `test`.
    t.keys(&["Escape"]);
    t.wait_for("Make Targets (2)");
    t.keys(&["End"]);
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
    let runs = runs(&w);
    assert_eq!(runs[0]["exitCode"], 3, "{runs:?}");
    let _ = std::fs::remove_dir_all(&w);
}
