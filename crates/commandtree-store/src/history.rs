//! Run history: the `run_history` table, a table of our own beside the seed spec's three. One
//! row per run that started. What the statuses and modes mean is the run layer's business
//! (`commandtree-exec`); here they are text.

use crate::{Result, Store};
use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;

/// One run, as `ct runs --json` prints it.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
#[derive(Debug, Clone, Copy)]
pub struct NewRun<'a> {
    pub command_id: &'a str,
    pub label: &'a str,
    pub command_line: &'a str,
    pub cwd: &'a str,
    pub mode: &'a str,
    /// The status a started run has (`running`).
    pub status: &'a str,
    pub pid: Option<u32>,
    pub request: &'a str,
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

impl Store {
    /// Records a started run; returns its id.
    pub fn insert_run(&mut self, r: &NewRun<'_>) -> Result<i64> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO run_history (command_id, label, command_line, cwd, started_at, mode, status, pid, request)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    r.command_id,
                    r.label,
                    r.command_line,
                    r.cwd,
                    crate::time::iso_now(),
                    r.mode,
                    r.status,
                    r.pid,
                    r.request
                ],
            )?;
            Ok(tx.last_insert_rowid())
        })
    }

    /// Forgets a run that did not start after all.
    pub fn delete_run(&mut self, run_id: i64) -> Result<()> {
        self.update_run("DELETE FROM run_history WHERE run_id = ?1", params![run_id])
    }

    pub fn set_run_pid(&mut self, run_id: i64, pid: i64) -> Result<()> {
        self.update_run(
            "UPDATE run_history SET pid = ?2 WHERE run_id = ?1",
            params![run_id, pid],
        )
    }

    pub fn set_run_log(&mut self, run_id: i64, log: &str) -> Result<()> {
        self.update_run(
            "UPDATE run_history SET log_path = ?2 WHERE run_id = ?1",
            params![run_id, log],
        )
    }

    /// Records how a run ended; `duration_ms` `None` keeps the stored one.
    pub fn finish_run(
        &mut self,
        run_id: i64,
        exit_code: i32,
        duration_ms: Option<i64>,
        status: &str,
    ) -> Result<()> {
        self.update_run(
            // A run the user stopped stays `stopped` when its owner records the end afterwards.
            "UPDATE run_history SET exit_code = ?2, duration_ms = coalesce(?3, duration_ms),
             status = CASE WHEN status = 'stopped' THEN status ELSE ?4 END
             WHERE run_id = ?1",
            params![run_id, exit_code, duration_ms, status],
        )
    }

    pub fn set_run_status(&mut self, run_id: i64, status: &str) -> Result<()> {
        self.update_run(
            "UPDATE run_history SET status = ?2 WHERE run_id = ?1",
            params![run_id, status],
        )
    }

    fn update_run(&mut self, sql: &str, p: &[&dyn rusqlite::ToSql]) -> Result<()> {
        self.write(|tx| tx.execute(sql, p).map(|_| ()))
    }

    /// The newest `limit` runs, newest first, as stored.
    pub fn runs(&self, limit: usize) -> Result<Vec<Run>> {
        if !self.has_table("run_history")? {
            return Ok(Vec::new());
        }
        self.read(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM run_history ORDER BY run_id DESC LIMIT ?1"
            ))?;
            st.query_map([limit as i64], row)?.collect()
        })
    }

    pub fn run(&self, run_id: i64) -> Result<Option<Run>> {
        if !self.has_table("run_history")? {
            return Ok(None);
        }
        self.read(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM run_history WHERE run_id = ?1"),
                [run_id],
                row,
            )
            .optional()
        })
    }
}
