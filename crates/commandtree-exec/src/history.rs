//! Run history: the `run_history` table of the workspace database, a table of our own beside
//! the seed spec's three (which never get extra columns). One row per run that started.

use commandtree_store::Store;
use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;

pub const SQL: &str = "CREATE TABLE IF NOT EXISTS run_history (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    command_id TEXT NOT NULL,
    label TEXT NOT NULL,
    command_line TEXT NOT NULL,
    cwd TEXT NOT NULL,
    started_at TEXT NOT NULL,
    duration_ms INTEGER,
    exit_code INTEGER,
    mode TEXT NOT NULL,
    status TEXT NOT NULL,
    pid INTEGER,
    log_path TEXT,
    request TEXT NOT NULL DEFAULT '{}'
)";

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
}

/// One run, as `ct runs --json` prints it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub run_id: i64,
    pub command_id: String,
    pub label: String,
    pub command_line: String,
    pub cwd: String,
    pub started_at: String,
    pub duration_ms: Option<i64>,
    pub exit_code: Option<i32>,
    pub mode: String,
    pub status: String,
    #[serde(skip)]
    pub pid: Option<i64>,
    #[serde(skip)]
    pub log_path: Option<String>,
    /// What `--last` needs to repeat the run (parameter values, extra arguments, debug).
    #[serde(skip)]
    pub request: String,
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

fn ensure(tx: &rusqlite::Connection) -> rusqlite::Result<()> {
    tx.execute_batch(SQL)
}

/// Records a started run; returns its id.
pub fn start(store: &mut Store, r: &NewRun<'_>) -> commandtree_store::Result<i64> {
    store.write(|tx| {
        ensure(tx)?;
        tx.execute(
            "INSERT INTO run_history (command_id, label, command_line, cwd, started_at, mode, status, pid, request)
             VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?5, ?6, ?7, ?8)",
            params![
                r.command_id,
                r.label,
                r.command_line,
                r.cwd,
                r.mode,
                status::RUNNING,
                r.pid,
                r.request
            ],
        )?;
        Ok(tx.last_insert_rowid())
    })
}

/// Forgets a run that did not start after all (its process could not be spawned).
pub fn discard(store: &mut Store, run_id: i64) -> commandtree_store::Result<()> {
    store.write(|tx| {
        tx.execute("DELETE FROM run_history WHERE run_id = ?1", [run_id])
            .map(|_| ())
    })
}

pub fn set_pid(store: &mut Store, run_id: i64, pid: i64) -> commandtree_store::Result<()> {
    store.write(|tx| {
        tx.execute(
            "UPDATE run_history SET pid = ?2 WHERE run_id = ?1",
            params![run_id, pid],
        )
        .map(|_| ())
    })
}

pub fn set_log(store: &mut Store, run_id: i64, log: &str) -> commandtree_store::Result<()> {
    store.write(|tx| {
        tx.execute(
            "UPDATE run_history SET log_path = ?2 WHERE run_id = ?1",
            params![run_id, log],
        )
        .map(|_| ())
    })
}

/// Records how a run ended.
pub fn finish(
    store: &mut Store,
    run_id: i64,
    exit_code: i32,
    duration_ms: Option<i64>,
    status: &str,
) -> commandtree_store::Result<()> {
    store.write(|tx| {
        tx.execute(
            "UPDATE run_history SET exit_code = ?2, duration_ms = coalesce(?3, duration_ms), status = ?4
             WHERE run_id = ?1",
            params![run_id, exit_code, duration_ms, status],
        )
        .map(|_| ())
    })
}

/// Marks a finished run as stopped by the user (`ct stop`).
pub fn mark_stopped(store: &mut Store, run_id: i64) -> commandtree_store::Result<()> {
    store.write(|tx| {
        tx.execute(
            "UPDATE run_history SET status = ?2 WHERE run_id = ?1",
            params![run_id, status::STOPPED],
        )
        .map(|_| ())
    })
}

const COLUMNS: &str = "run_id, command_id, label, command_line, cwd, started_at, duration_ms, exit_code, mode, status, pid, log_path, request";

fn row(r: &Row<'_>) -> rusqlite::Result<Run> {
    Ok(Run {
        run_id: r.get(0)?,
        command_id: r.get(1)?,
        label: r.get(2)?,
        command_line: r.get(3)?,
        cwd: r.get(4)?,
        started_at: r.get(5)?,
        duration_ms: r.get(6)?,
        exit_code: r.get(7)?,
        mode: r.get(8)?,
        status: r.get(9)?,
        pid: r.get(10)?,
        log_path: r.get(11)?,
        request: r.get(12)?,
    })
}

fn has_table(c: &rusqlite::Connection) -> rusqlite::Result<bool> {
    c.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'run_history'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// Newest first; `alive` settles rows left `running` by a process that is gone.
pub fn list(
    store: &Store,
    limit: usize,
    alive: &dyn Fn(i64) -> bool,
) -> commandtree_store::Result<Vec<Run>> {
    let mut runs = store.read(|c| {
        if !has_table(c)? {
            return Ok(Vec::new());
        }
        let mut st = c.prepare(&format!(
            "SELECT {COLUMNS} FROM run_history ORDER BY run_id DESC LIMIT ?1"
        ))?;
        st.query_map([limit as i64], row)?.collect()
    })?;
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
    let mut run = store.read(|c| {
        if !has_table(c)? {
            return Ok(None);
        }
        c.query_row(
            &format!("SELECT {COLUMNS} FROM run_history WHERE run_id = ?1"),
            [run_id],
            row,
        )
        .optional()
    })?;
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
        let dir = std::env::temp_dir().join(format!("ct-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = commandtree_store::db_path(&dir);
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
        assert!(get(&store, a, &|_| true).unwrap().is_some());
    }
}
