//! Several processes on one workspace database: concurrent tagging through the `ct` binary and
//! through long-lived store connections (this test binary re-run as worker processes), and a
//! writer killed with SIGKILL in the middle of a burst.
//!
//! Nothing here depends on timing: the final states are computed from each worker's own
//! sequence of operations, and the crash test kills after a number of commits it has seen.

use crate::support::Workspace;
use commandtree_store::Store;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const WORKERS: usize = 4;
const OPS: usize = 200;
const SCRIPTS: usize = 12;
const WORKER_ENV: &str = "CT_DB_TEST_WORKER";

/// A workspace (its own git top level) with `SCRIPTS` npm scripts `s0`, `s1`, ….
fn workspace() -> Workspace {
    let scripts: Vec<String> = (0..SCRIPTS)
        .map(|n| format!("\"s{n}\": \"echo {n}\""))
        .collect();
    Workspace::new().dir(".git").file(
        "package.json",
        format!(
            "{{\"name\": \"demo\", \"scripts\": {{{}}}}}",
            scripts.join(", ")
        ),
    )
}

fn db(root: &Path) -> PathBuf {
    root.join(".commandtree/commandtree.sqlite3")
}

fn id(root: &Path, n: usize) -> String {
    format!("npm:{}:s{n}", root.join("package.json").display())
}

#[derive(Debug, Clone)]
struct Op {
    add: bool,
    script: usize,
    tag: String,
}

/// Worker `w`'s operations. Its own tag `w{w}` goes on and off any script; the shared tags
/// (`quick`, `shared`) only on the three scripts it owns, so every final state is determined
/// by the worker's own sequence while all workers contend for the same tables and the same
/// tags' display orders.
fn ops_of(w: usize) -> Vec<Op> {
    let own = |k: usize| 3 * w + k % 3;
    (0..OPS)
        .map(|i| {
            let (add, script, tag) = match i % 5 {
                0 => (true, own(i / 5), "quick".to_string()),
                1 => (false, own(i / 5 + 1), "quick".to_string()),
                2 => (true, (i * 7 + w) % SCRIPTS, format!("w{w}")),
                3 => (false, (i * 3 + w) % SCRIPTS, format!("w{w}")),
                _ if i % 10 == 4 => (true, own(i / 5), "shared".to_string()),
                _ => (false, own(i / 5 + 2), "shared".to_string()),
            };
            Op { add, script, tag }
        })
        .collect()
}

/// Final (tag -> scripts in order) after all workers, each worker's order within a shared tag.
fn expected() -> HashMap<String, Vec<Vec<usize>>> {
    let mut out: HashMap<String, Vec<Vec<usize>>> = HashMap::new();
    for w in 0..WORKERS {
        let mut state: HashMap<String, Vec<usize>> = HashMap::new();
        for op in ops_of(w) {
            let list = state.entry(op.tag.clone()).or_default();
            if op.add && !list.contains(&op.script) {
                list.push(op.script);
            } else if !op.add {
                list.retain(|s| *s != op.script);
            }
        }
        for (tag, list) in state {
            out.entry(tag).or_insert_with(|| vec![Vec::new(); WORKERS])[w] = list;
        }
    }
    out
}

/// The database holds exactly the expected assignments, each worker's commands in its order
/// within the shared tags, and no two assignments of a tag share a display order.
fn verify(root: &Path) {
    let store = Store::open(&db(root), false).unwrap().unwrap();
    let script_of: HashMap<String, usize> = (0..SCRIPTS).map(|n| (id(root, n), n)).collect();
    let want = expected();
    assert!(
        want["quick"].iter().any(|l| !l.is_empty()),
        "the scenario must leave starred commands"
    );
    for (tag, per_worker) in &want {
        let got: Vec<usize> = store
            .command_ids_by_tag(tag)
            .unwrap()
            .iter()
            .map(|i| script_of[i])
            .collect();
        if tag.starts_with('w') {
            let mut got = got.clone();
            got.sort();
            let mut exp = per_worker.concat();
            exp.sort();
            assert_eq!(got, exp, "tag {tag}");
            continue;
        }
        for (w, exp) in per_worker.iter().enumerate() {
            let mine: Vec<usize> = got.iter().copied().filter(|s| s / 3 == w).collect();
            assert_eq!(
                &mine, exp,
                "tag {tag}, worker {w}: members in starring order"
            );
        }
        // Read with a plain connection: every writer has exited.
        let orders: Vec<i64> = rusqlite::Connection::open(db(root))
            .unwrap()
            .prepare("SELECT ct.display_order FROM command_tags ct JOIN tags t USING (tag_id) WHERE t.tag_name = ?1")
            .unwrap()
            .query_map([tag], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let distinct: HashSet<i64> = orders.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            orders.len(),
            "tag {tag}: display orders {orders:?}"
        );
    }
    let total: usize = want
        .values()
        .map(|v| v.iter().map(Vec::len).sum::<usize>())
        .sum();
    assert_eq!(store.counts().unwrap().assignments as usize, total);
    let report = commandtree_store::check(&db(root)).unwrap().unwrap();
    assert!(report.ok(), "{report:?}");
    eprintln!("{WORKERS} x {OPS} operations: final state as expected ({total} assignments)");
}

#[test]
fn concurrent_ct_processes_tag_and_untag_without_losing_anything() {
    let root = workspace();
    std::thread::scope(|sc| {
        for w in 0..WORKERS {
            let root = &root;
            sc.spawn(move || {
                for op in ops_of(w) {
                    let target = format!("npm:s{}", op.script);
                    let args: Vec<&str> = match (op.add, op.tag.as_str()) {
                        (true, "quick") => vec!["star", &target],
                        (false, "quick") => vec!["unstar", &target],
                        (true, tag) => vec!["tag", "add", &target, tag],
                        (false, tag) => vec!["tag", "rm", &target, tag],
                    };
                    root.run(&args).success().stderr_is("");
                }
            });
        }
    });
    verify(&root);
    root.run(["db", "check"]).success();
}

/// Re-runs this test binary as a worker process (see `worker`).
fn spawn_worker(spec: &str) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "db_processes::worker",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WORKER_ENV, spec)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Not a test of its own: the body of the worker processes, which does nothing unless the
/// environment names a job.
#[test]
fn worker() {
    let Ok(spec) = std::env::var(WORKER_ENV) else {
        return;
    };
    let mut parts = spec.splitn(3, '|');
    let (job, arg, root) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        PathBuf::from(parts.next().unwrap()),
    );
    let mut store = Store::open(&db(&root), true).unwrap().unwrap();
    match job {
        "ops" => {
            let w: usize = arg.parse().unwrap();
            for op in ops_of(w) {
                let cmd = id(&root, op.script);
                if op.add {
                    store.add_tag(&cmd, &op.tag).unwrap();
                } else {
                    store.remove_tag(&cmd, &op.tag).unwrap();
                }
            }
        }
        "burst" => {
            let size: usize = arg.parse().unwrap();
            // Until killed: batches of `size` assignments, one transaction each, reported once
            // committed.
            for b in 0..1_000_000 {
                let tag = format!("b{b}");
                let ids: Vec<String> = (0..size).map(|k| format!("cmd{k}")).collect();
                let batch: Vec<(&str, &str)> =
                    ids.iter().map(|id| (id.as_str(), tag.as_str())).collect();
                store.add_tags(&batch).unwrap();
                println!("committed {b}");
            }
        }
        other => panic!("unknown job {other}"),
    }
}

#[test]
fn concurrent_store_connections_in_separate_processes() {
    let root = workspace();
    // Created first, so the workers meet an existing file (its creation is covered above).
    drop(Store::open(&root.db(), true).unwrap());
    let children: Vec<_> = (0..WORKERS)
        .map(|w| spawn_worker(&format!("ops|{w}|{}", root.display())))
        .collect();
    for (w, c) in children.into_iter().enumerate() {
        let o = c.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success(),
            "worker {w}: {err}\n{}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(!err.contains("locked"), "worker {w}: {err}");
    }
    verify(&root);
}

#[test]
fn a_writer_killed_mid_burst_leaves_a_sound_database_with_every_committed_tag() {
    const BATCH: usize = 25;
    const SEEN: usize = 60;
    let root = workspace();
    let mut child = spawn_worker(&format!("burst|{BATCH}|{}", root.display()));
    let stdout = child.stdout.take().unwrap();
    let mut committed: Option<usize> = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix("committed ") {
            let n: usize = n.parse().unwrap();
            committed = Some(n);
            if n + 1 >= SEEN {
                break;
            }
        }
    }
    // SIGKILL on Unix: no destructor, no rollback, no checkpoint.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the writer must have been killed, not have finished"
    );
    let last = committed.expect("the writer committed something before the kill");
    assert!(last + 1 >= SEEN);

    root.run(["db", "check"]).success();
    let store = Store::open(&root.db(), false).unwrap().unwrap();
    assert!(store.recreated().is_none());
    // Every batch is whole (25 assignments) or absent; the whole ones are a prefix of the
    // sequence covering at least what was reported committed (the writer may have got further
    // before the signal landed).
    let count = |b: usize| store.command_ids_by_tag(&format!("b{b}")).unwrap().len();
    let mut b = 0;
    while count(b) > 0 {
        assert_eq!(count(b), BATCH, "batch {b} is torn");
        b += 1;
    }
    assert!(b > last, "committed batch {} is missing", b);
    for later in b..b + 10 {
        assert_eq!(count(later), 0, "batch {later} after the missing batch {b}");
    }
    assert!(store.counts().unwrap().assignments as usize == b * BATCH);
    eprintln!(
        "killed after {} reported commits; {b} whole batches of {BATCH} found, none torn",
        last + 1
    );
}

/// A process killed while it held the lock leaves `<db>.lock` behind (the extension's engine
/// and the `unix-dotfile` VFS both lock with that directory). Still busy after 10 s with a lock
/// at least that old, it is removed with a warning, as the extension does.
#[test]
fn a_stale_lock_directory_is_removed_after_ten_seconds() {
    let root = workspace();
    root.run(["tag", "add", "npm:s0", "ci"]).success();
    let lock = PathBuf::from(format!("{}.lock", root.db().display()));
    std::fs::create_dir(&lock).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    root.run(["tag", "add", "npm:s1", "ci"])
        .success()
        .stderr_has(format!("{}: removed a stale lock", lock.display()));
    assert!(!lock.exists());
    let store = Store::open_read_only(&root.db()).unwrap().unwrap();
    assert_eq!(
        store.command_ids_by_tag("ci").unwrap(),
        [id(&root, 0), id(&root, 1)]
    );
}
