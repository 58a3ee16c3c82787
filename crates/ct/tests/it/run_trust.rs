//! Regression tests: what a cloned repository must not be able to do through runs. Each test
//! plants the attack in a scratch workspace and checks that nothing leaked, ran or changed.

use crate::support::*;
use std::path::Path;

fn ws(name: &str) -> std::path::PathBuf {
    workspace("runtrust", name)
}

#[test]
fn detached_logs_never_write_through_a_planted_link() {
    let w = ws("loglink");
    let victim = write(&w, ".home/victim.txt", "precious\n");
    executable(&w, "job.sh", "#!/bin/sh\necho overwritten\n");
    // The first run of a new database gets id 1, so its log is logs/1.log.
    std::fs::create_dir_all(w.join(".commandtree/logs")).unwrap();
    std::os::unix::fs::symlink(&victim, w.join(".commandtree/logs/1.log")).unwrap();
    let o = ct(&w, &["run", "-d", "job.sh"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = run_id(&o);
    assert_eq!(id, 1);
    assert!(eventually(|| run_row(&w, id)["exitCode"] == 0));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let log = w.join(".commandtree/logs/1.log");
    let meta = std::fs::symlink_metadata(&log).unwrap();
    assert!(meta.is_file());
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let dir = std::fs::metadata(w.join(".commandtree/logs")).unwrap();
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "overwritten\n");
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
    let w = ws("steps");
    let tasks = write(&w, ".vscode/tasks.json", TASKS);
    write(&w, ".vscode/launch.json", LAUNCH);
    write(&w, "app.js", "console.log('app')\n");
    assert!(ct(&w, &["tag", "add", "vscode:all", "x"]).status.success());
    store_summary(
        &w,
        &format!("vscode:{}:wipe", tasks.display()),
        "h",
        "Deletes the data folder",
        Some("Deletes every file under data/"),
    );
    let o = ct(&w, &["run", "vscode:all"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Deletes every file under data/"),
        "{}",
        stderr(&o)
    );
    assert!(!w.join("wiped.txt").exists() && !w.join("all.txt").exists());
    let o = ct(&w, &["debug", "app", "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = ct(&w, &["debug", "app"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Deletes every file under data/"),
        "{}",
        stderr(&o)
    );
    assert!(!w.join("wiped.txt").exists());
    let o = ct(&w, &["run", "vscode:all", "--yes"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(w.join("wiped.txt").exists() && w.join("all.txt").exists());
}

#[test]
fn a_summary_of_an_older_version_is_reported_out_of_date() {
    let w = ws("stale");
    let script = executable(&w, "hello.sh", "#!/bin/sh\necho hello\n");
    assert!(ct(&w, &["tag", "add", "hello.sh", "x"]).status.success());
    // A "safe" summary whose hash is not the script's current one (it was edited since).
    store_summary(
        &w,
        &format!("shell:{}:hello.sh", script.display()),
        "0000",
        "Prints a greeting",
        None,
    );
    let o = ct(&w, &["run", "hello.sh"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("out of date"), "{}", stderr(&o));
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
    let w = ws("secrets");
    let secret = format!("s3cr3t-{}", std::process::id());
    write(
        &w,
        ".vscode/tasks.json",
        r#"{"version": "2.0.0", "tasks": [
            {"label": "publish", "type": "shell", "command": "echo ${env:CT_TEST_TOKEN} > seen.txt; sleep 30"}
        ]}"#,
    );
    let o = ct_with(
        &w,
        &[("CT_TEST_TOKEN", &secret)],
        &["run", "-d", "vscode:publish"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let id = run_id(&o);
    assert!(eventually(|| w.join("seen.txt").exists()
        && std::fs::read_to_string(w.join("seen.txt"))
            .is_ok_and(|s| s.contains(&secret))));
    assert_eq!(argv_holding(&secret), Vec::<String>::new());
    let row = run_row(&w, id);
    assert!(!row.to_string().contains(&secret), "{row}");
    assert!(ct(&w, &["stop", &id.to_string()]).status.success());
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
    let w = ws("pid");
    executable(&w, "long.sh", "#!/bin/sh\nsleep 300\n");
    let o = ct(&w, &["run", "-d", "long.sh"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = run_id(&o);
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
    let real: i64 = run_row(&w, id)["runId"].as_i64().unwrap();
    assert_eq!(real, id);
    let db = rusqlite::Connection::open(w.join(".commandtree/commandtree.sqlite3")).unwrap();
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
    std::fs::write(
        w.join(format!(".commandtree/runs/{id}.pid")),
        format!("{vpid} other-boot:12345\n"),
    )
    .unwrap();
    let o = ct(&w, &["stop", &id.to_string()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no longer the one that was started"),
        "{}",
        stderr(&o)
    );
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
    let w = ws("static");
    executable(
        &w,
        "install.sh",
        "#!/bin/sh\ncurl -fsSL https://get.example.com/install.sh | sh\n",
    );
    executable(&w, "wipe.sh", "#!/bin/sh\nrm -rf \"$HOME\"\n");
    executable(&w, "hello.sh", "#!/bin/sh\necho \"rm -rf /\"\n");
    write(
        &w,
        "package.json",
        r#"{"scripts": {"test": "node --test", "nuke": "sudo rm -rf /var/lib/app"}}"#,
    );
    let o = ct(&w, &["list", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let items: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    let warned = |label: &str| {
        items
            .iter()
            .find(|i| i["label"] == label)
            .unwrap_or_else(|| panic!("{label}"))
            .get("securityWarning")
            .is_some()
    };
    assert!(warned("install.sh") && warned("wipe.sh") && warned("nuke"));
    assert!(!warned("hello.sh") && !warned("test"));
    let o = ct(&w, &["list"]);
    assert!(stdout(&o).contains("⚠ install.sh"), "{}", stdout(&o));
    // And `ct run` asks before running it.
    let o = ct(&w, &["run", "wipe.sh"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("--yes"), "{}", stderr(&o));
}
