//! `ct watch --json` as a real process on real files: each kind of change must show up as the
//! right event. Every wait is for an expected line, with a generous deadline; nothing sleeps
//! to decide an outcome.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(30);

fn workspace(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ct-watch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::canonicalize(&dir).unwrap()
}

fn write(root: &Path, rel: &str, content: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
}

fn ct(root: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ct"));
    c.arg("--root")
        .arg(root)
        .env("NO_COLOR", "1")
        .env("HOME", root.join(".no-home"))
        .env_remove("XDG_CONFIG_HOME");
    c
}

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
    root: PathBuf,
}

impl Watch {
    /// Starts `ct watch --json` and waits for its `ready` line (the watch is set up by then).
    fn start(root: &Path) -> (Watch, Value) {
        let mut child = ct(root)
            .args(["watch", "--json"])
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
            root: root.to_path_buf(),
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

    fn id(&self, kind: &str, rel: &str, name: &str) -> String {
        format!("{kind}:{}:{name}", self.root.join(rel).display())
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
    let root = workspace("aur");
    write(&root, "package.json", PKG);
    let (mut w, ready) = Watch::start(&root);
    assert_eq!(ready["commands"], 2);
    assert!(ready["elapsedMs"].as_f64().is_some());

    write(&root, "tools/Makefile", "all:\n\techo all\n");
    let s = w.until("a new Makefile", |s| !s.added.is_empty());
    assert_eq!(s.added_labels(), ["all"]);
    assert_eq!(s.added[0]["type"], "make");
    assert_eq!(s.added[0]["id"], w.id("make", "tools/Makefile", "all"));

    write(
        &root,
        "package.json",
        r#"{"scripts": {"build": "tsc -b", "test": "jest"}}"#,
    );
    let s = w.until("an edited script", |s| !s.updated.is_empty());
    assert_eq!(s.updated.len(), 1);
    assert_eq!(s.updated[0]["id"], w.id("npm", "package.json", "build"));
    assert_eq!(s.updated[0]["command"], "npm run build");
    assert!(s.added.is_empty() && s.removed.is_empty(), "{s:?}");

    std::fs::remove_file(root.join("tools/Makefile")).unwrap();
    let s = w.until("a deleted Makefile", |s| !s.removed.is_empty());
    assert_eq!(s.removed, [w.id("make", "tools/Makefile", "all")]);
}

#[test]
fn folder_rename() {
    let root = workspace("rename");
    write(&root, "svc/package.json", PKG);
    write(&root, "svc/run.sh", "#!/bin/sh\necho run\n");
    let (mut w, ready) = Watch::start(&root);
    assert_eq!(ready["commands"], 3);
    std::fs::rename(root.join("svc"), root.join("api")).unwrap();
    let s = w.until("a renamed folder", |s| {
        s.added.len() == 3 && s.removed.len() == 3
    });
    assert!(
        s.removed
            .contains(&w.id("npm", "svc/package.json", "build"))
    );
    assert!(
        s.added
            .iter()
            .any(|c| c["id"] == w.id("npm", "api/package.json", "build"))
    );
}

#[test]
fn gitignore_change() {
    let root = workspace("gitignore");
    write(&root, "package.json", PKG);
    write(&root, "gen/make.sh", "echo\n");
    let (mut w, ready) = Watch::start(&root);
    assert_eq!(ready["commands"], 3);
    write(&root, ".gitignore", "gen/\n");
    let s = w.until("an ignored folder", |s| !s.removed.is_empty());
    assert_eq!(s.removed, [w.id("shell", "gen/make.sh", "make.sh")]);
    std::fs::remove_file(root.join(".gitignore")).unwrap();
    let s = w.until("an ignore rule removed", |s| !s.added.is_empty());
    assert_eq!(s.added_labels(), ["make.sh"]);
}

#[test]
fn settings_change() {
    let root = workspace("settings");
    write(&root, "package.json", PKG);
    write(&root, "legacy/Makefile", "old:\n\ttrue\n");
    let (mut w, _) = Watch::start(&root);
    write(
        &root,
        ".vscode/settings.json",
        r#"{ // JSONC
  "commandtree.excludePatterns": ["**/legacy/**"],
}"#,
    );
    let s = w.until("an exclude pattern", |s| !s.removed.is_empty());
    assert_eq!(s.removed, [w.id("make", "legacy/Makefile", "old")]);
    write(
        &root,
        ".commandtree/config.toml",
        "[discovery]\nexclude = [\"package.json\"]\n",
    );
    let s = w.until("a workspace config exclude", |s| s.removed.len() == 2);
    assert!(s.removed.contains(&w.id("npm", "package.json", "test")));
}

#[test]
fn tag_written_by_another_process() {
    let root = workspace("tag");
    write(&root, "package.json", PKG);
    let (mut w, _) = Watch::start(&root);
    let status = ct(&root)
        .args(["tag", "add", "npm:build", "ci"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let s = w.until("a tag from another ct", |s| !s.updated.is_empty());
    assert_eq!(s.updated.len(), 1, "{s:?}");
    assert_eq!(s.updated[0]["id"], w.id("npm", "package.json", "build"));
    assert_eq!(s.updated[0]["tags"], serde_json::json!(["ci"]));

    // A second tag, now that the database exists, and its removal.
    let ok = |args: &[&str]| {
        assert!(
            ct(&root)
                .args(args)
                .stdout(Stdio::null())
                .status()
                .unwrap()
                .success()
        )
    };
    ok(&["tag", "add", "npm:test", "slow"]);
    let s = w.until("a second tag", |s| !s.updated.is_empty());
    assert_eq!(s.updated[0]["tags"], serde_json::json!(["slow"]));
    ok(&["tag", "remove", "npm:build", "ci"]);
    let s = w.until("a removed tag", |s| !s.updated.is_empty());
    assert_eq!(s.updated[0]["id"], w.id("npm", "package.json", "build"));
    assert_eq!(s.updated[0]["tags"], serde_json::json!([]));
}

#[test]
fn warnings_are_events() {
    let root = workspace("warn");
    write(&root, "package.json", PKG);
    let (mut w, _) = Watch::start(&root);
    write(&root, "web/package.json", "{ \"scripts\": ");
    let s = w.until("a malformed file", |s| !s.warnings.is_empty());
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
        let root = workspace(&format!("sig{signal}"));
        write(&root, "package.json", PKG);
        let (mut w, _) = Watch::start(&root);
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(w.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
        let start = Instant::now();
        let code = loop {
            if let Some(s) = w.child.try_wait().unwrap() {
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
