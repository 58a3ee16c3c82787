//! `ct watch --json` as a real process on real files: each kind of change must show up as the
//! right event. Every wait is for an expected line, with a generous deadline; nothing sleeps
//! to decide an outcome.

use crate::support::Workspace;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(30);

/// What the `changed` events said since the last check.
#[derive(Default, Debug)]
struct Seen {
    added: Vec<Value>,
    updated: Vec<Value>,
    removed: Vec<String>,
    warnings: Vec<Value>,
}

impl Seen {
    fn added_labels(&self) -> Vec<&str> {
        self.added
            .iter()
            .filter_map(|c| c["label"].as_str())
            .collect()
    }
}

struct Watch {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Seen,
}

impl Watch {
    /// Starts `ct watch --json` and waits for its `ready` line (the watch is set up by then).
    fn start(w: &Workspace) -> (Watch, Value) {
        let mut child = w
            .ct()
            .args(["watch", "--json"])
            .command()
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn ct watch");
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut w = Watch {
            child,
            lines: rx,
            seen: Seen::default(),
        };
        let first = w.next().expect("a first line");
        assert_eq!(first["event"], "ready", "{first}");
        (w, first)
    }

    fn next(&mut self) -> Option<Value> {
        let line = self.lines.recv_timeout(DEADLINE).ok()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")))
    }

    /// Reads events until `done` holds for what they said, then hands it over.
    fn until(&mut self, what: &str, done: impl Fn(&Seen) -> bool) -> Seen {
        let start = Instant::now();
        while !done(&self.seen) {
            let left = DEADLINE.saturating_sub(start.elapsed());
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(_) => panic!(
                    "no event for {what} within {DEADLINE:?}; seen {:?}",
                    self.seen
                ),
            };
            let v: Value = serde_json::from_str(&line).unwrap();
            match v["event"].as_str() {
                Some("changed") => {
                    assert!(v["elapsedMs"].as_f64().is_some(), "{v}");
                    let items = |k: &str| v[k].as_array().cloned().unwrap_or_default();
                    self.seen.added.extend(items("added"));
                    self.seen.updated.extend(items("updated"));
                    self.seen.removed.extend(
                        items("removed")
                            .iter()
                            .map(|x| x.as_str().unwrap().to_string()),
                    );
                }
                Some("warning") => self.seen.warnings.push(v),
                other => panic!("unexpected event {other:?}: {v}"),
            }
        }
        std::mem::take(&mut self.seen)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const PKG: &str = r#"{"scripts": {"build": "tsc", "test": "jest"}}"#;

#[test]
fn add_update_remove() {
    let root = Workspace::new().file("package.json", PKG);
    let (mut watch, ready) = Watch::start(&root);
    assert_eq!(ready["commands"], 2);
    assert!(ready["elapsedMs"].as_f64().is_some());

    root.write("tools/Makefile", "all:\n\techo all\n");
    let s = watch.until("a new Makefile", |s| !s.added.is_empty());
    assert_eq!(s.added_labels(), ["all"]);
    assert_eq!(s.added[0]["type"], "make");
    assert_eq!(s.added[0]["id"], root.id("make", "tools/Makefile", "all"));

    root.write(
        "package.json",
        r#"{"scripts": {"build": "tsc -b", "test": "jest"}}"#,
    );
    let s = watch.until("an edited script", |s| !s.updated.is_empty());
    assert_eq!(s.updated.len(), 1);
    assert_eq!(s.updated[0]["id"], root.id("npm", "package.json", "build"));
    assert_eq!(s.updated[0]["command"], "npm run build");
    assert!(s.added.is_empty() && s.removed.is_empty(), "{s:?}");

    std::fs::remove_file(root.join("tools/Makefile")).unwrap();
    let s = watch.until("a deleted Makefile", |s| !s.removed.is_empty());
    assert_eq!(s.removed, [root.id("make", "tools/Makefile", "all")]);
}

#[test]
fn folder_rename() {
    let root = Workspace::new();
    root.write("svc/package.json", PKG);
    root.write("svc/run.sh", "#!/bin/sh\necho run\n");
    let (mut watch, ready) = Watch::start(&root);
    assert_eq!(ready["commands"], 3);
    std::fs::rename(root.join("svc"), root.join("api")).unwrap();
    let s = watch.until("a renamed folder", |s| {
        s.added.len() == 3 && s.removed.len() == 3
    });
    assert!(
        s.removed
            .contains(&root.id("npm", "svc/package.json", "build"))
    );
    assert!(
        s.added
            .iter()
            .any(|c| c["id"] == root.id("npm", "api/package.json", "build"))
    );
}

#[test]
fn gitignore_change() {
    let root = Workspace::new().file("package.json", PKG);
    root.write("gen/make.sh", "echo\n");
    let (mut watch, ready) = Watch::start(&root);
    assert_eq!(ready["commands"], 3);
    root.write(".gitignore", "gen/\n");
    let s = watch.until("an ignored folder", |s| !s.removed.is_empty());
    assert_eq!(s.removed, [root.id("shell", "gen/make.sh", "make.sh")]);
    std::fs::remove_file(root.join(".gitignore")).unwrap();
    let s = watch.until("an ignore rule removed", |s| !s.added.is_empty());
    assert_eq!(s.added_labels(), ["make.sh"]);
}

#[test]
fn settings_change() {
    let root = Workspace::new().file("package.json", PKG);
    root.write("legacy/Makefile", "old:\n\ttrue\n");
    let (mut watch, _) = Watch::start(&root);
    root.write(
        ".vscode/settings.json",
        r#"{ // JSONC
  "commandtree.excludePatterns": ["**/legacy/**"],
}"#,
    );
    let s = watch.until("an exclude pattern", |s| !s.removed.is_empty());
    assert_eq!(s.removed, [root.id("make", "legacy/Makefile", "old")]);
    root.write(
        ".commandtree/config.toml",
        "[discovery]\nexclude = [\"package.json\"]\n",
    );
    let s = watch.until("a workspace config exclude", |s| s.removed.len() == 2);
    assert!(s.removed.contains(&root.id("npm", "package.json", "test")));
}

#[test]
fn tag_written_by_another_process() {
    let root = Workspace::new().file("package.json", PKG);
    let (mut watch, _) = Watch::start(&root);
    root.run(["tag", "add", "npm:build", "ci"]).success();
    let s = watch.until("a tag from another ct", |s| !s.updated.is_empty());
    assert_eq!(s.updated.len(), 1, "{s:?}");
    assert_eq!(s.updated[0]["id"], root.id("npm", "package.json", "build"));
    assert_eq!(s.updated[0]["tags"], serde_json::json!(["ci"]));

    // A second tag, now that the database exists, and its removal.
    root.run(["tag", "add", "npm:test", "slow"]).success();
    let s = watch.until("a second tag", |s| !s.updated.is_empty());
    assert_eq!(s.updated[0]["tags"], serde_json::json!(["slow"]));
    root.run(["tag", "remove", "npm:build", "ci"]).success();
    let s = watch.until("a removed tag", |s| !s.updated.is_empty());
    assert_eq!(s.updated[0]["id"], root.id("npm", "package.json", "build"));
    assert_eq!(s.updated[0]["tags"], serde_json::json!([]));
}

#[test]
fn warnings_are_events() {
    let root = Workspace::new().file("package.json", PKG);
    let (mut watch, _) = Watch::start(&root);
    root.write("web/package.json", "{ \"scripts\": ");
    let s = watch.until("a malformed file", |s| !s.warnings.is_empty());
    let warning = &s.warnings[0];
    assert_eq!(
        warning["file"].as_str().unwrap(),
        root.join("web/package.json").to_str().unwrap()
    );
    assert!(warning["message"].as_str().is_some());
}

#[cfg(unix)]
#[test]
fn exits_0_on_sigint_and_sigterm() {
    for signal in ["INT", "TERM"] {
        let root = Workspace::new();
        root.write("package.json", PKG);
        let (mut watch, _) = Watch::start(&root);
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(watch.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
        let start = Instant::now();
        let code = loop {
            if let Some(s) = watch.child.try_wait().unwrap() {
                break s.code();
            }
            assert!(
                start.elapsed() < DEADLINE,
                "ct watch did not exit on SIG{signal}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(code, Some(0), "SIG{signal}");
    }
}
