//! Run history: what a run's status and mode mean, and the liveness check for rows still
//! `running`. The rows live in the store's `run_history` table (`commandtree_store::history`).

use commandtree_store::Store;

pub use commandtree_store::history::Run;

/// `running` until the end; then `ok`, `failed` (non-zero exit), `killed` (by a signal) or
/// `stopped` (by `ct stop`). A row still `running` whose process is gone reads `unknown`.
pub mod status {
    pub const RUNNING: &str = "running";
    pub const OK: &str = "ok";
    pub const FAILED: &str = "failed";
    pub const KILLED: &str = "killed";
    pub const STOPPED: &str = "stopped";
    pub const UNKNOWN: &str = "unknown";
}

/// How a run was started.
pub mod mode {
    pub const FOREGROUND: &str = "foreground";
    pub const DETACHED: &str = "detached";
    pub const TMUX: &str = "tmux";
    pub const TERMINAL: &str = "terminal";
    /// Started by an editor in its own terminal, task or debugger, and reported by it: its
    /// pid (when known) is the terminal's shell, which outlives the run, so the editor reports
    /// the end too.
    pub const EDITOR: &str = "editor";
}

/// The fields known when a run starts.
pub struct NewRun<'a> {
    pub command_id: &'a str,
    pub label: &'a str,
    pub command_line: &'a str,
    pub cwd: &'a str,
    pub mode: &'a str,
    pub pid: Option<u32>,
    pub request: &'a str,
}

/// The status for an exit code (signals are 128 + N).
pub fn status_for(code: i32, signaled: bool) -> &'static str {
    match (code, signaled) {
        (0, _) => status::OK,
        (_, true) => status::KILLED,
        _ => status::FAILED,
    }
}

/// Records a started run; returns its id.
pub fn start(store: &mut Store, r: &NewRun<'_>) -> commandtree_store::Result<i64> {
    store.insert_run(&commandtree_store::history::NewRun {
        command_id: r.command_id,
        label: r.label,
        command_line: r.command_line,
        cwd: r.cwd,
        mode: r.mode,
        status: status::RUNNING,
        pid: r.pid,
        request: r.request,
    })
}

/// Forgets a run that did not start after all (its process could not be spawned).
pub fn discard(store: &mut Store, run_id: i64) -> commandtree_store::Result<()> {
    store.delete_run(run_id)
}

pub fn set_pid(store: &mut Store, run_id: i64, pid: i64) -> commandtree_store::Result<()> {
    store.set_run_pid(run_id, pid)
}

pub fn set_log(store: &mut Store, run_id: i64, log: &str) -> commandtree_store::Result<()> {
    store.set_run_log(run_id, log)
}

/// Records how a run ended.
pub fn finish(
    store: &mut Store,
    run_id: i64,
    exit_code: i32,
    duration_ms: Option<i64>,
    status: &str,
) -> commandtree_store::Result<()> {
    store.finish_run(run_id, exit_code, duration_ms, status)
}

/// Marks a finished run as stopped by the user (`ct stop`).
pub fn mark_stopped(store: &mut Store, run_id: i64) -> commandtree_store::Result<()> {
    store.set_run_status(run_id, status::STOPPED)
}

/// Newest first; `alive` settles rows left `running` by a process that is gone.
pub fn list(
    store: &Store,
    limit: usize,
    alive: &dyn Fn(i64) -> bool,
) -> commandtree_store::Result<Vec<Run>> {
    let mut runs = store.runs(limit)?;
    for r in &mut runs {
        settle(r, alive);
    }
    Ok(runs)
}

pub fn get(
    store: &Store,
    run_id: i64,
    alive: &dyn Fn(i64) -> bool,
) -> commandtree_store::Result<Option<Run>> {
    let mut run = store.run(run_id)?;
    if let Some(r) = &mut run {
        settle(r, alive);
    }
    Ok(run)
}

fn settle(r: &mut Run, alive: &dyn Fn(i64) -> bool) {
    if r.status == status::RUNNING && r.exit_code.is_none() && !r.pid.is_some_and(alive) {
        r.status = status::UNKNOWN.to_string();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_leave_the_seed_schema_alone() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-history-")
            .tempdir()
            .unwrap();
        let path = commandtree_store::db_path(scratch.path());
        let mut store = Store::open(&path, true).unwrap().unwrap();
        let none = list(&store, 10, &|_| true).unwrap();
        assert!(none.is_empty());
        let new = |label: &'static str| NewRun {
            command_id: "shell:/w/a.sh:a.sh",
            label,
            command_line: "\"/w/a.sh\" 'x'",
            cwd: "/w",
            mode: mode::FOREGROUND,
            pid: Some(1),
            request: "{}",
        };
        let a = start(&mut store, &new("first")).unwrap();
        let b = start(&mut store, &new("second")).unwrap();
        finish(&mut store, a, 3, Some(12), status_for(3, false)).unwrap();
        let runs = list(&store, 10, &|_| false).unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].run_id, b);
        assert_eq!(runs[0].status, status::UNKNOWN);
        assert_eq!(runs[1].exit_code, Some(3));
        assert_eq!(runs[1].status, "failed");
        assert_eq!(runs[1].duration_ms, Some(12));
        assert!(runs[1].started_at.ends_with('Z') && runs[1].started_at.len() == 24);
        let json = serde_json::to_value(&runs[1]).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "commandId",
                "commandLine",
                "cwd",
                "durationMs",
                "exitCode",
                "label",
                "mode",
                "runId",
                "startedAt",
                "status"
            ]
        );
        discard(&mut store, b).unwrap();
        assert_eq!(list(&store, 10, &|_| true).unwrap().len(), 1);
        drop(store);
        // Reopening keeps the database as it is: our table is not a structure problem.
        let store = Store::open(&path, false).unwrap().unwrap();
        assert!(store.recreated().is_none());
        let store = Store::open_read_only(&path).unwrap().unwrap();
        assert!(get(&store, a, &|_| true).unwrap().is_some());
    }
}
