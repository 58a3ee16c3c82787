//! The VS Code extension and `ct` on one database: `tests/extension/extension.js` runs the
//! extension's own engine (node-sqlite3-wasm 0.8 from npm, pinned by its package-lock.json)
//! with the extension's statements, against the built `ct`.
//!
//! Node and npm are Debian packages (`scripts/test.sh` installs them and runs `npm ci` here);
//! without them the tests are skipped, except under CI, where they fail.

use crate::support::{Workspace, labels, on_path, skip};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn script_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/extension")
}

/// Whether node and the installed package are there; installs the package (`npm ci`) once
/// when only it is missing.
fn node_ready() -> bool {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    let r = READY.get_or_init(|| {
        if !on_path("node") || !on_path("npm") {
            return Err("node and npm are not installed (apt-get install nodejs npm)".into());
        }
        if !script_dir().join("node_modules/node-sqlite3-wasm").exists() {
            let o = Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(script_dir())
                .output()
                .map_err(|e| e.to_string())?;
            if !o.status.success() {
                return Err(format!(
                    "npm ci failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
        }
        Ok(())
    });
    match r {
        Ok(()) => true,
        Err(why) => {
            skip(why);
            false
        }
    }
}

fn node(db: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("node");
    c.arg(script_dir().join("extension.js"))
        .arg(args[0])
        .arg(db)
        .args(&args[1..]);
    c
}

fn node_ok(db: &Path, args: &[&str]) -> String {
    let o = node(db, args).output().unwrap();
    assert!(
        o.status.success(),
        "node {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A git top level with two npm scripts.
fn workspace() -> Workspace {
    Workspace::new().dir(".git").file(
        "package.json",
        r#"{"name": "demo", "scripts": {"build": "echo b", "test": "echo t"}}"#,
    )
}

fn tags(db: &Path) -> Vec<(String, String)> {
    serde_json::from_str(&node_ok(db, &["tags"])).unwrap()
}

fn listed(w: &Workspace, args: &[&str]) -> Vec<String> {
    labels(&w.json(args))
}

#[test]
fn the_extension_reads_and_writes_ct_tags_and_waits_for_each_others_locks() {
    if !node_ready() {
        return;
    }
    let w = workspace();
    let db = w.db();
    let (build, test) = (
        w.id("npm", "package.json", "build"),
        w.id("npm", "package.json", "test"),
    );
    w.ok(["tag", "add", "build", "ci"]);
    // The extension reads what ct wrote.
    assert_eq!(tags(&db), [(build.clone(), "ci".to_string())]);
    // ct reads what the extension wrote.
    node_ok(&db, &["add", &test, "fromext"]);
    assert_eq!(
        listed(&w, &["list", "--json", "--tag", "fromext"]),
        ["test"]
    );

    // The extension holds a write transaction for 2 s; ct's write waits for it, then succeeds.
    let mut holder = node(&db, &["hold", &test, "held", "2000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(holder.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "holding");
    w.run(["tag", "add", "build", "held"])
        .success()
        .stderr_is("");
    assert_eq!(lines.next().unwrap().unwrap(), "committed");
    assert!(holder.wait().unwrap().success());
    // Had ct written through the lock, both would have taken display order 0 (or one write
    // would be lost); waiting, ct appended after the extension's row.
    let held: Vec<String> = tags(&db)
        .into_iter()
        .filter(|(_, t)| t == "held")
        .map(|(c, _)| c)
        .collect();
    assert_eq!(held, [test.clone(), build.clone()]);
    let c = rusqlite::Connection::open(&db).unwrap();
    let orders: Vec<i64> = c
        .prepare("SELECT display_order FROM command_tags JOIN tags USING (tag_id) WHERE tag_name = 'held' ORDER BY display_order")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(orders, [0, 1]);
    let check = w.ok(["db", "check"]);
    assert!(check.contains("ok    integrity"), "{check}");
}

#[test]
fn a_wal_database_is_converted_back_by_the_first_write() {
    if !node_ready() {
        return;
    }
    let w = workspace();
    let db = w.db();
    w.ok(["tag", "add", "build", "ci"]);
    // An earlier version of ct left the file in WAL mode.
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        let mode: String = c
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
    let header = |p: &Path| std::fs::read(p).unwrap()[18];
    assert_eq!(header(&db), 2);
    // The extension's engine cannot open it at all: why ct must never use WAL.
    let o = node(&db, &["tags"]).output().unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("Could not open"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Listing reads it without converting it.
    assert_eq!(listed(&w, &["list", "--json", "--tag", "ci"]), ["build"]);
    assert_eq!(header(&db), 2);
    // The first write converts it; the extension opens it again.
    w.ok(["tag", "add", "test", "ci"]);
    assert_eq!(header(&db), 1);
    assert_eq!(
        tags(&db),
        [
            (w.id("npm", "package.json", "build"), "ci".to_string()),
            (w.id("npm", "package.json", "test"), "ci".to_string())
        ]
    );
}
