//! Runs after the start: what runs now (seen from another process), stop and restart, by run
//! id or by the command's name.

use crate::support::{Workspace, eventually};
use serde_json::Value;

fn running(w: &Workspace) -> Vec<Value> {
    w.json(["runs", "--running", "--json"])
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn labels(runs: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = runs
        .iter()
        .map(|r| r["label"].as_str().unwrap_or_default().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn two_long_runs_listed_from_another_process_one_stopped_the_other_restarted() {
    let w = Workspace::new().file(
        "Makefile",
        "server:\n\tsleep 300\nworker:\n\tsleep 300\nquick:\n\ttrue\n",
    );
    let server = w.run(["run", "-d", "server"]).run_id();
    let worker = w.run(["run", "-d", "worker"]).run_id();
    w.ok(["run", "quick"]);
    // Each `ct` below is a process of its own: the state lives in the workspace, not in one.
    let now = running(&w);
    assert_eq!(labels(&now), ["server", "worker"], "{now:?}");
    let table = w.ok(["runs", "--running"]);
    assert!(
        table.contains("server") && table.contains("running"),
        "{table}"
    );
    assert!(
        !table.contains("quick"),
        "a finished run is not running: {table}"
    );

    // Stopped by the command's name.
    let out = w.ok(["stop", "server"]);
    assert!(
        out.contains(&format!("run {server} (`server`) stopped")),
        "{out}"
    );
    assert_eq!(w.run_row(server)["status"], "stopped");
    assert_eq!(labels(&running(&w)), ["worker"]);

    // Restarted: the old run stops, a new one of the same command starts, detached as it was.
    let again = w
        .run(["restart", "worker"])
        .success()
        .stderr_has(format!("run {worker} (`worker`) stopped"));
    let new_id = again.run_id();
    assert_ne!(new_id, worker);
    assert_eq!(w.run_row(worker)["status"], "stopped");
    let now = running(&w);
    assert_eq!(now.len(), 1, "{now:?}");
    assert_eq!(now[0]["runId"], new_id);
    assert_eq!(now[0]["mode"], "detached");

    // Stopped by its run id; then nothing runs.
    w.ok(["stop", &new_id.to_string()]);
    assert!(running(&w).is_empty());
    w.run(["stop", "worker"])
        .code(1)
        .stderr_has("`worker` is not running");
    // A finished command restarts as it last ran: in the foreground, here.
    let before = w.runs().len();
    w.run(["restart", "quick"]).success();
    assert_eq!(w.runs().len(), before + 1);
}

#[test]
fn a_foreground_run_is_seen_and_stopped_from_another_process() {
    let w = Workspace::new().file("Makefile", "serve:\n\tsleep 300\n");
    let mut fg = w.ct().args(["run", "serve"]).spawn();
    assert!(eventually(|| running(&w).len() == 1));
    let now = running(&w);
    assert_eq!(now[0]["mode"], "foreground");
    let id = now[0]["runId"].as_i64().unwrap();
    w.ok(["stop", &id.to_string()]);
    let status = fg.wait().unwrap();
    assert_eq!(status.code(), Some(128 + 15));
    assert_eq!(w.run_row(id)["status"], "stopped");
    assert!(running(&w).is_empty());
}

/// Every byte under `.commandtree/` (database, journal, logs, run files), for "the secret is
/// not there".
fn state_bytes(w: &Workspace) -> Vec<u8> {
    fn walk(dir: &std::path::Path, out: &mut Vec<u8>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if let Ok(b) = std::fs::read(&p) {
                out.extend(b);
            }
        }
    }
    let mut out = Vec::new();
    walk(&w.join(".commandtree"), &mut out);
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn an_env_file_reaches_the_process_masked_in_the_dry_run_and_never_stored() {
    const SECRET: &str = "s3cr3t-Value-42";
    let w = Workspace::new()
        .file(
            ".env",
            format!("API_TOKEN={SECRET}\nexport MODE=\"dev mode\"\n"),
        )
        .file(
            ".commandtree/config.toml",
            "[env]\nfiles = [\".env\", \"local.env\"]\n",
        )
        .executable(
            "show.sh",
            "#!/bin/sh\nprintf '%s|%s' \"$API_TOKEN\" \"$MODE\" > got.txt\necho done\n",
        );
    // A workspace's own configuration chooses no environment before it is trusted.
    w.run(["run", "show.sh"])
        .success()
        .stderr_has("ignored")
        .stderr_has("ct trust");
    assert_eq!(w.read("got.txt"), "|");
    w.ok(["trust"]);

    let dry = w.ok(["run", "show.sh", "--dry-run"]);
    assert!(
        dry.contains("# environment from .env: API_TOKEN=**** MODE=****"),
        "{dry}"
    );
    assert!(dry.contains("local.env: not found"), "{dry}");
    assert!(!dry.contains(SECRET) && !dry.contains("dev mode"), "{dry}");

    w.run(["run", "show.sh"])
        .success()
        .stderr_has("note: environment file local.env: not found");
    assert_eq!(w.read("got.txt"), format!("{SECRET}|dev mode"));
    // Detached: through its wrapper, which is gone once it started.
    std::fs::remove_file(w.join("got.txt")).unwrap();
    let id = w.run(["run", "-d", "show.sh"]).run_id();
    assert!(eventually(|| w.run_row(id)["status"] == "ok"));
    assert_eq!(w.read("got.txt"), format!("{SECRET}|dev mode"));
    // A variable the caller has set wins over the file, as with dotenv.
    w.ct()
        .args(["run", "show.sh"])
        .env("API_TOKEN", "from-shell")
        .run()
        .success();
    assert_eq!(w.read("got.txt"), "from-shell|dev mode");

    let state = state_bytes(&w);
    assert!(!state.is_empty());
    assert!(
        !contains(&state, SECRET),
        "the secret is stored under .commandtree/"
    );
    assert!(!contains(&w.ok(["runs", "--json"]).into_bytes(), SECRET));
}
