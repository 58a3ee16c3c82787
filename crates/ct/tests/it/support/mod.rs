//! What the `ct` integration tests share: running the built binary on a scratch workspace with a
//! clean environment, writing files, and waiting for something to happen.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Variables a test's `ct` never inherits from the machine: the user's CommandTree settings, the
/// LLM providers and their keys.
pub const SCRUBBED: &[&str] = &[
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "TMUX",
    "TERMINAL",
    "COMMANDTREE_MARKDOWN",
    "COMMANDTREE_KEY",
    "COMMANDTREE_EXCLUDE",
    "COMMANDTREE_SORT_ORDER",
    "COMMANDTREE_LLM_PROVIDER",
    "COMMANDTREE_LLM_BASE_URL",
    "COMMANDTREE_LLM_MODEL",
    "COMMANDTREE_LLM_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GITHUB_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
];

/// The LLM providers, their keys and base URLs: a test's `ct` never sends to the developer's own.
pub const LLM_VARS: &[&str] = &[
    "COMMANDTREE_KEY",
    "COMMANDTREE_LLM_PROVIDER",
    "COMMANDTREE_LLM_BASE_URL",
    "COMMANDTREE_LLM_MODEL",
    "COMMANDTREE_LLM_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GITHUB_TOKEN",
];

/// A loopback address nothing listens on, for `OLLAMA_HOST`: a local Ollama is never found.
pub fn closed_port() -> String {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .to_string()
}

/// Removes [`LLM_VARS`] from `c` and points `OLLAMA_HOST` at [`closed_port`].
pub fn no_llm(c: &mut Command) {
    for v in LLM_VARS {
        c.env_remove(v);
    }
    c.env("OLLAMA_HOST", closed_port());
}

/// The built `ct` (with `--root ROOT` when given), not yet run: `HOME` is `home`, stdin is
/// closed, no colour, none of [`SCRUBBED`], and `OLLAMA_HOST` a loopback port nothing listens
/// on, so a local Ollama is never found. Callers add arguments and variables.
pub fn command(root: Option<&Path>, home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ct"));
    if let Some(r) = root {
        c.arg("--root").arg(r);
    }
    c.stdin(Stdio::null())
        .env("NO_COLOR", "1")
        .env("HOME", home);
    for v in SCRUBBED {
        c.env_remove(v);
    }
    c.env("OLLAMA_HOST", closed_port());
    c
}

/// `ct --root ROOT ARGS` with `HOME` = `home` and `vars` set (see [`command`]).
pub fn ct_home(root: &Path, home: &Path, vars: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = command(Some(root), home);
    c.args(args);
    for (k, v) in vars {
        c.env(k, v);
    }
    c.output().expect("run ct")
}

/// `ct --root ROOT ARGS` with `vars` set and a `HOME` inside the workspace (`ROOT/.home`), so
/// the user's own configuration never leaks in.
pub fn ct_with(root: &Path, vars: &[(&str, &str)], args: &[&str]) -> Output {
    ct_home(root, &root.join(".home"), vars, args)
}

pub fn ct(root: &Path, args: &[&str]) -> Output {
    ct_with(root, &[], args)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    p
}

pub fn executable(root: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = write(root, rel, content);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    p
}

/// A fresh scratch folder (with a `.home` for `HOME`), canonicalized.
pub fn workspace(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ct-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".home")).unwrap();
    std::fs::canonicalize(&dir).unwrap()
}

/// Polls `f` every 50 ms for up to 60 s: bounded, and generous enough for a loaded machine.
pub fn eventually(mut f: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + Duration::from_secs(60);
    while Instant::now() < until {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// The JSON array `ct --root ROOT ARGS` prints (it must succeed).
pub fn json_array(root: &Path, args: &[&str]) -> Vec<Value> {
    let o = ct(root, args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice::<Value>(&o.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// `ct --root ROOT ARGS` run from `cwd` (names resolve nearest `cwd` first).
pub fn ct_in(root: &Path, cwd: &Path, args: &[&str]) -> Output {
    let mut c = command(Some(root), &root.join(".home"));
    c.current_dir(cwd).args(args);
    c.output().expect("run ct")
}

/// The run history as `ct runs --json` prints it.
pub fn runs(root: &Path) -> Vec<Value> {
    json_array(root, &["runs", "--json", "--limit", "100"])
}

pub fn run_row(w: &Path, id: i64) -> Value {
    runs(w)
        .into_iter()
        .find(|r| r["runId"] == id)
        .expect("run in history")
}

/// The run id `ct run` printed (`run N: ...`).
pub fn run_id(o: &Output) -> i64 {
    let s = stdout(o);
    let rest = s.strip_prefix("run ").unwrap_or_else(|| panic!("{s}"));
    rest[..rest.find(':').unwrap()].parse().unwrap()
}

/// Stores a summary and a security warning for `id` as the summary pipeline (or the extension)
/// would, with `hash` as the content hash.
pub fn store_summary(root: &Path, id: &str, hash: &str, summary: &str, warning: Option<&str>) {
    let db = rusqlite::Connection::open(root.join(".commandtree/commandtree.sqlite3")).unwrap();
    db.execute(
        "INSERT INTO commands (command_id, content_hash, summary, security_warning, last_updated)
         VALUES (?1, ?2, ?3, ?4, '2026-01-01T00:00:00.000Z')
         ON CONFLICT(command_id) DO UPDATE SET content_hash = ?2, summary = ?3, security_warning = ?4",
        rusqlite::params![id, hash, summary, warning],
    )
    .unwrap();
}

/// A test that cannot run here because a tool is missing. Under CI (`CI=true`, where
/// `scripts/test.sh` installs every tool the tests need) that is a failure, never a pass.
pub fn skip(why: &str) {
    let ci = std::env::var("CI").unwrap_or_default();
    assert!(
        ci.is_empty() || ci == "false" || ci == "0",
        "{why}: under CI every test must run (scripts/test.sh installs what they need)"
    );
    eprintln!("skipped: {why}");
}

/// The all-MiniLM-L6-v2 model (`scripts/fetch-test-model.sh`), which `ct search`, `@search` and
/// `ct embed` need. Missing: the test is skipped (a failure under CI, which fetches it first).
pub fn model_dir() -> Option<PathBuf> {
    let found = commandtree_embed::model::find(Path::new("/nonexistent-root"));
    if found.is_none() {
        skip("the all-MiniLM-L6-v2 model is missing (bash scripts/fetch-test-model.sh)");
    }
    found
}

/// Reads LSP frames from `r` and hands on each body as JSON.
pub fn read_frames(r: impl std::io::Read, tx: std::sync::mpsc::Sender<Value>) {
    use std::io::{BufRead, Read};
    let mut r = std::io::BufReader::new(r);
    loop {
        let mut len = None;
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let t = line.trim_end();
            if t.is_empty() {
                break;
            }
            if let Some(v) = t.strip_prefix("Content-Length: ") {
                len = Some(v.parse::<usize>().expect("a length"));
            }
        }
        let mut body = vec![0; len.expect("Content-Length from the server")];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let v: Value = serde_json::from_slice(&body).expect("the server sends JSON");
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        if tx.send(v).is_err() {
            return;
        }
    }
}
