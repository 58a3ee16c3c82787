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
    // `ct show` says it runs, and how the last run of a finished command ended.
    let shown = w.ok(["show", "worker"]);
    assert!(
        shown.contains(&format!("run {new_id}: running for")),
        "{shown}"
    );
    let shown = w.ok(["show", "quick"]);
    assert!(shown.contains(": ok, exit 0, took"), "{shown}");
    // The exit code is make's: 143 when the signal reaches make first, 2 when its recipe's
    // shell dies of it first and make reports that; either way the run was stopped.
    let shown = w.ok(["show", "server"]);
    assert!(
        shown.contains(&format!("run {server}: stopped, exit 143"))
            || shown.contains(&format!("run {server}: stopped, exit 2,")),
        "{shown}"
    );

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

#[test]
fn a_sequence_runs_its_commands_in_order_stops_at_a_failure_and_is_gated_as_a_whole() {
    let w = Workspace::new()
        .file(
            "Makefile",
            "check:\n\techo checked >> trail; exit 4\nbuild:\n\techo built >> trail\nwipe:\n\trm -rf ~/.cache/ct-sequence-test\n",
        )
        .executable("deploy.sh", "#!/bin/sh\necho deployed >> trail\n")
        .file(
            ".commandtree/config.toml",
            "[sequences.ci]\nsteps = [\"check\", \"build\", \"deploy.sh\"]\n\n[sequences.ship]\nsteps = [\"build\", \"deploy.sh\"]\ndescription = \"build and deploy\"\n\n[sequences.both]\nsteps = [\"build\", \"deploy.sh\"]\nparallel = true\n\n[sequences.fresh]\nsteps = [\"wipe\", \"build\"]\n\n[sequences.broken]\nsteps = [\"build\", \"nothing-by-that-name\"]\n",
        );
    // Listed as commands of their own, with what they run; no trust needed.
    let list = w.json(["list", "--json", "--type", "sequence"]);
    let ship = list
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == "ship")
        .unwrap();
    assert_eq!(ship["type"], "sequence");
    assert_eq!(ship["command"], "build, then deploy.sh");
    assert_eq!(ship["description"], "build and deploy");

    // The first member fails: nothing after it runs, and the output says so.
    w.run(["run", "ci"])
        .code(2)
        .stderr_has("==> ci [1/3]: check")
        .stderr_has("==> ci: step 1 `check` failed (exit 2); not run: build, deploy.sh");
    assert_eq!(w.read("trail"), "checked\n");
    let runs = w.runs();
    assert_eq!(runs[0]["label"], "ci");
    assert_eq!(runs[0]["status"], "failed");

    std::fs::remove_file(w.join("trail")).unwrap();
    w.run(["run", "ship"])
        .success()
        .stderr_has("==> ship: all 2 steps succeeded");
    assert_eq!(w.read("trail"), "built\ndeployed\n");
    w.run(["run", "both"]).success();
    assert_eq!(w.read("trail").lines().count(), 4);

    // Gated with the warnings of every command it runs.
    w.run(["run", "fresh", "--no-input"])
        .code(1)
        .stderr_has("runs `wipe`")
        .stderr_has("--yes");
    let shown = w.ok(["show", "fresh"]);
    assert!(shown.contains("wipe"), "{shown}");
    // A step that names nothing is refused before anything runs.
    w.run(["run", "broken"])
        .code(1)
        .stderr_has("sequence `broken`, step 2 `nothing-by-that-name`");
    assert_eq!(w.read("trail").lines().count(), 4);
    // What it runs, as the dependency view shows it.
    let deps = w.json(["deps", "ship", "--json"]);
    let runs_text = deps["runs"].to_string();
    assert!(
        runs_text.contains("deploy.sh") && runs_text.contains("build"),
        "{deps}"
    );
}

#[test]
fn watch_reruns_on_a_change_restarts_a_run_going_on_and_ignores_ignored_files() {
    let w = Workspace::new()
        .file(".gitignore", "out/\n")
        .file("src/input.txt", "one\n")
        .file(
            "Makefile",
            "show:\n\t@cat src/input.txt >> trail\nserve:\n\t@echo started >> served; echo log > serve.log; sleep 300\n",
        )
        .dir("out");
    let lines = |f: &str| std::fs::read_to_string(w.join(f)).map_or(0, |s| s.lines().count());
    let mut ct = w.ct().args(["run", "show", "--watch"]).spawn();
    assert!(eventually(|| lines("trail") == 1));
    // Give the watch time to settle, then change a file it depends on.
    std::thread::sleep(std::time::Duration::from_millis(1000));
    std::fs::write(w.join("src/input.txt"), "two\n").unwrap();
    assert!(eventually(|| lines("trail") == 2));
    assert_eq!(w.read("trail"), "one\ntwo\n");
    // An ignored file changes nothing.
    std::fs::write(w.join("out/build.o"), "x").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    assert_eq!(lines("trail"), 2);
    interrupt(&ct);
    let status = ct.wait().unwrap();
    assert_eq!(status.code(), Some(0), "the last run succeeded");

    // A long run is stopped and started again by a change, and Ctrl-C ends both.
    let mut ct = w.ct().args(["run", "serve", "--watch"]).spawn();
    assert!(eventually(|| lines("served") == 1));
    std::thread::sleep(std::time::Duration::from_millis(1000));
    std::fs::write(w.join("src/input.txt"), "three\n").unwrap();
    assert!(eventually(|| lines("served") == 2));
    assert!(eventually(|| running(&w).len() == 1));
    interrupt(&ct);
    assert_eq!(ct.wait().unwrap().code(), Some(130));
    assert!(eventually(|| running(&w).is_empty()));
    let serves: Vec<Value> = w
        .runs()
        .into_iter()
        .filter(|r| r["label"] == "serve")
        .collect();
    assert_eq!(serves.len(), 2);
    assert!(
        serves.iter().all(|r| r["status"] == "stopped"),
        "{serves:?}"
    );
}

/// Ctrl-C, as a terminal sends it to `ct` (the watched run has a process group of its own).
fn interrupt(child: &std::process::Child) {
    let ok = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}
