//! The VS Code extension and `ct` on one database: `tests/extension/extension.js` runs the
//! extension's own engine (node-sqlite3-wasm 0.8 from npm, pinned by its package-lock.json)
//! with the extension's statements, against the built `ct`.
//!
//! Node and npm are Debian packages (`scripts/test.sh` installs them and runs `npm ci` here);
//! without them the tests say so and pass, except under CI, where they fail.

use crate::support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

fn ct(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ct"))
        .arg("--root")
        .arg(root)
        .args(args)
        .env("NO_COLOR", "1")
        .env("HOME", root.join(".no-home"))
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .expect("run ct")
}

fn ok(root: &Path, args: &[&str]) -> String {
    let o = ct(root, args);
    assert!(
        o.status.success(),
        "ct {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn script_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/extension")
}

/// Whether node and the installed package are there; installs the package (`npm ci`) once
/// when only it is missing.
fn node_ready() -> bool {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    let r = READY.get_or_init(|| {
        let has = |tool: &str| {
            Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !has("node") || !has("npm") {
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
            support::skip(why);
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

struct Ws(PathBuf);

impl Drop for Ws {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn workspace(name: &str) -> Ws {
    let dir = std::env::temp_dir().join(format!("ct-ext-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(
        dir.join("package.json"),
        r#"{"name": "demo", "scripts": {"build": "echo b", "test": "echo t"}}"#,
    )
    .unwrap();
    Ws(std::fs::canonicalize(&dir).unwrap())
}

fn db(root: &Path) -> PathBuf {
    root.join(".commandtree/commandtree.sqlite3")
}

fn id(root: &Path, script: &str) -> String {
    format!("npm:{}:{script}", root.join("package.json").display())
}

fn labels(list_json: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(list_json).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap().to_string())
        .collect()
}

fn tags(db: &Path) -> Vec<(String, String)> {
    serde_json::from_str(&node_ok(db, &["tags"])).unwrap()
}

#[test]
fn the_extension_reads_and_writes_ct_tags_and_waits_for_each_others_locks() {
    if !node_ready() {
        return;
    }
    let w = workspace("share");
    let root = &w.0;
    let (build, test) = (id(root, "build"), id(root, "test"));
    ok(root, &["tag", "add", "build", "ci"]);
    // The extension reads what ct wrote.
    assert_eq!(tags(&db(root)), [(build.clone(), "ci".to_string())]);
    // ct reads what the extension wrote.
    node_ok(&db(root), &["add", &test, "fromext"]);
    assert_eq!(
        labels(&ok(root, &["list", "--json", "--tag", "fromext"])),
        ["test"]
    );

    // The extension holds a write transaction for 2 s; ct's write waits for it, then succeeds.
    let mut holder = node(&db(root), &["hold", &test, "held", "2000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(holder.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "holding");
    let o = ct(root, &["tag", "add", "build", "held"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(lines.next().unwrap().unwrap(), "committed");
    assert!(holder.wait().unwrap().success());
    // Had ct written through the lock, both would have taken display order 0 (or one write
    // would be lost); waiting, ct appended after the extension's row.
    let held: Vec<String> = tags(&db(root))
        .into_iter()
        .filter(|(_, t)| t == "held")
        .map(|(c, _)| c)
        .collect();
    assert_eq!(held, [test.clone(), build.clone()]);
    let c = rusqlite::Connection::open(db(root)).unwrap();
    let orders: Vec<i64> = c
        .prepare("SELECT display_order FROM command_tags JOIN tags USING (tag_id) WHERE tag_name = 'held' ORDER BY display_order")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(orders, [0, 1]);
    let check = ok(root, &["db", "check"]);
    assert!(check.contains("ok    integrity"), "{check}");
}

#[test]
fn a_wal_database_is_converted_back_by_the_first_write() {
    if !node_ready() {
        return;
    }
    let w = workspace("wal");
    let root = &w.0;
    ok(root, &["tag", "add", "build", "ci"]);
    // An earlier version of ct left the file in WAL mode.
    {
        let c = rusqlite::Connection::open(db(root)).unwrap();
        let mode: String = c
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }
    let header = |p: &Path| std::fs::read(p).unwrap()[18];
    assert_eq!(header(&db(root)), 2);
    // The extension's engine cannot open it at all: why ct must never use WAL.
    let o = node(&db(root), &["tags"]).output().unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("Could not open"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Listing reads it without converting it.
    assert_eq!(
        labels(&ok(root, &["list", "--json", "--tag", "ci"])),
        ["build"]
    );
    assert_eq!(header(&db(root)), 2);
    // The first write converts it; the extension opens it again.
    ok(root, &["tag", "add", "test", "ci"]);
    assert_eq!(header(&db(root)), 1);
    assert_eq!(
        tags(&db(root)),
        [
            (id(root, "build"), "ci".to_string()),
            (id(root, "test"), "ci".to_string())
        ]
    );
}
