//! Regression tests: what a cloned repository must not be able to do through runs. Each test
//! plants the attack in a scratch workspace and checks that nothing leaked, ran or changed.

use crate::support::{Workspace, eventually, labelled};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

#[test]
fn detached_logs_never_write_through_a_planted_link() {
    let w = Workspace::new()
        .file(".home/victim.txt", "precious\n")
        .executable("job.sh", "#!/bin/sh\necho overwritten\n")
        .dir(".commandtree/logs");
    // The first run of a new database gets id 1, so its log is logs/1.log.
    std::os::unix::fs::symlink(
        w.join(".home/victim.txt"),
        w.join(".commandtree/logs/1.log"),
    )
    .unwrap();
    let id = w.run(["run", "-d", "job.sh"]).success().run_id();
    assert_eq!(id, 1);
    assert!(eventually(|| w.run_row(id)["exitCode"] == 0));
    assert_eq!(w.read(".home/victim.txt"), "precious\n");
    let log = w.join(".commandtree/logs/1.log");
    let meta = std::fs::symlink_metadata(&log).unwrap();
    assert!(meta.is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let dir = std::fs::metadata(w.join(".commandtree/logs")).unwrap();
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    assert_eq!(w.read(".commandtree/logs/1.log"), "overwritten\n");
}

const TASKS: &str = r#"{
  "version": "2.0.0",
  "tasks": [
    {"label": "wipe", "type": "shell", "command": "touch wiped.txt"},
    {"label": "all", "type": "shell", "command": "touch all.txt", "dependsOn": ["wipe"]}
  ]
}"#;

const LAUNCH: &str = r#"{
  "version": "0.2.0",
  "configurations": [
    {"name": "app", "type": "node", "request": "launch", "program": "${workspaceFolder}/app.js", "preLaunchTask": "wipe"}
  ]
}"#;

#[test]
fn a_warned_step_needs_confirmation_like_the_command_itself() {
    let w = Workspace::new()
        .file(".vscode/tasks.json", TASKS)
        .file(".vscode/launch.json", LAUNCH)
        .file("app.js", "console.log('app')\n");
    w.run(["tag", "add", "vscode:all", "x"]).success();
    w.store_summary(
        &w.id("vscode", ".vscode/tasks.json", "wipe"),
        "h",
        "Deletes the data folder",
        Some("Deletes every file under data/"),
    );
    w.run(["run", "vscode:all"])
        .code(1)
        .stderr_has("Deletes every file under data/");
    assert!(!w.join("wiped.txt").exists() && !w.join("all.txt").exists());
    w.run(["debug", "app", "--dry-run"]).success();
    w.run(["debug", "app"])
        .code(1)
        .stderr_has("Deletes every file under data/");
    assert!(!w.join("wiped.txt").exists());
    w.run(["run", "vscode:all", "--yes"]).success();
    assert!(w.join("wiped.txt").exists() && w.join("all.txt").exists());
}

#[test]
fn a_summary_of_an_older_version_is_reported_out_of_date() {
    let w = Workspace::new().executable("hello.sh", "#!/bin/sh\necho hello\n");
    w.run(["tag", "add", "hello.sh", "x"]).success();
    // A "safe" summary whose hash is not the script's current one (it was edited since).
    w.store_summary(
        &w.id("shell", "hello.sh", "hello.sh"),
        "0000",
        "Prints a greeting",
        None,
    );
    w.run(["run", "hello.sh"])
        .success()
        .stderr_has("out of date");
}

/// Every process whose command line holds `needle`.
fn argv_holding(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline"))
            && String::from_utf8_lossy(&cmd).contains(needle)
        {
            out.push(String::from_utf8_lossy(&cmd).replace('\0', " "));
        }
    }
    out
}

#[test]
fn resolved_secrets_stay_out_of_argv_and_the_history() {
    let secret = format!("s3cr3t-{}", std::process::id());
    let w = Workspace::new().file(
        ".vscode/tasks.json",
        r#"{"version": "2.0.0", "tasks": [
            {"label": "publish", "type": "shell", "command": "echo ${env:CT_TEST_TOKEN} > seen.txt; sleep 30"}
        ]}"#,
    );
    let id = w
        .ct()
        .env("CT_TEST_TOKEN", &secret)
        .args(["run", "-d", "vscode:publish"])
        .run()
        .success()
        .run_id();
    assert!(eventually(|| w.join("seen.txt").exists()
        && std::fs::read_to_string(w.join("seen.txt"))
            .is_ok_and(|s| s.contains(&secret))));
    assert_eq!(argv_holding(&secret), Vec::<String>::new());
    let row = w.run_row(id);
    assert!(!row.to_string().contains(&secret), "{row}");
    w.run(["stop", &id.to_string()]).success();
    // Nothing with the secret is left in the workspace's run files either.
    let leftovers: Vec<_> = std::fs::read_dir(w.join(".commandtree/runs"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    for f in leftovers {
        assert!(
            !std::fs::read_to_string(&f)
                .unwrap_or_default()
                .contains(&secret),
            "{}",
            f.display()
        );
    }
}

#[test]
fn stop_never_signals_a_process_that_merely_reuses_a_recorded_pid() {
    let w = Workspace::new().executable("long.sh", "#!/bin/sh\nsleep 300\n");
    let id = w.run(["run", "-d", "long.sh"]).success().run_id();
    // A process the run has nothing to do with, in a group of its own.
    let mut victim = std::process::Command::new("setsid")
        .args(["sleep", "300"])
        .spawn()
        .unwrap();
    let vpid = victim.id() as i64;
    assert!(eventually(|| {
        std::fs::read_to_string(format!("/proc/{vpid}/comm")).is_ok_and(|c| c.trim() == "sleep")
    }));
    // The history (and the pid file) now name the victim, as after a reboot or pid reuse.
    let real: i64 = w.run_row(id)["runId"].as_i64().unwrap();
    assert_eq!(real, id);
    let db = rusqlite::Connection::open(w.db()).unwrap();
    let old_pid: i64 = db
        .query_row("SELECT pid FROM run_history WHERE run_id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap();
    db.execute(
        "UPDATE run_history SET pid = ?1 WHERE run_id = ?2",
        [vpid, id],
    )
    .unwrap();
    drop(db);
    w.write(
        format!(".commandtree/runs/{id}.pid"),
        format!("{vpid} other-boot:12345\n"),
    );
    w.run(["stop", &id.to_string()])
        .code(1)
        .stderr_has("no longer the one that was started");
    assert!(Path::new(&format!("/proc/{vpid}")).exists());
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the victim was killed"
    );
    let _ = victim.kill();
    let _ = victim.wait();
    // Clean up the real run.
    kill_group(old_pid);
}

fn kill_group(pgid: i64) {
    let _ = std::process::Command::new("kill")
        .args(["-TERM", "--", &format!("-{pgid}")])
        .status();
}

#[test]
fn without_an_llm_risky_commands_are_marked_and_harmless_ones_are_not() {
    let w = Workspace::new()
        .executable(
            "install.sh",
            "#!/bin/sh\ncurl -fsSL https://get.example.com/install.sh | sh\n",
        )
        .executable("wipe.sh", "#!/bin/sh\nrm -rf \"$HOME\"\n")
        .executable("hello.sh", "#!/bin/sh\necho \"rm -rf /\"\n")
        .file(
            "package.json",
            r#"{"scripts": {"test": "node --test", "nuke": "sudo rm -rf /var/lib/app"}}"#,
        );
    let items = w.json(["list", "--json"]);
    let warned = |label: &str| labelled(&items, label).get("securityWarning").is_some();
    assert!(warned("install.sh") && warned("wipe.sh") && warned("nuke"));
    assert!(!warned("hello.sh") && !warned("test"));
    w.run(["list"]).stdout_has("⚠ install.sh");
    // And `ct run` asks before running it.
    w.run(["run", "wipe.sh"]).code(1).stderr_has("--yes");
}
