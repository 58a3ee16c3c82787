//! The static analyser's findings (`commandtree_risk`), kept in a table of our own keyed by
//! command id and the hash of what was analysed, so an unchanged command is not analysed
//! again. The seed `commands.security_warning` column stays the model's text (the VS Code
//! extension writes it too); what a user sees combines both (the engine's `findings`, which
//! works them out; this module only keeps the table).
//!
//! No foreign key to `commands`: a command has findings whether or not it has a summary row,
//! and the seed tables may be rebuilt under us.

use crate::{Result, Store};
use commandtree_risk::Finding;
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;

pub const TABLE: &str = "command_findings";

pub const TABLE_SQL: &str = "CREATE TABLE IF NOT EXISTS command_findings (
    command_id TEXT PRIMARY KEY,
    scan_hash TEXT NOT NULL,
    findings TEXT NOT NULL,
    scanned_at TEXT NOT NULL
);
";

/// A stored row: the scan hash of what was analysed and the findings.
#[derive(Debug, Clone)]
pub struct Scanned {
    pub hash: String,
    pub findings: Vec<Finding>,
}

/// Stored `(scan_hash, findings)` by command id; empty when the table is absent (a database
/// opened read-only that predates it).
pub fn load(store: &Store) -> Result<HashMap<String, Scanned>> {
    store.read(|c| {
        let exists: Option<String> = c
            .query_row(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [TABLE],
                |r| r.get(0),
            )
            .optional()?;
        if exists.is_none() {
            return Ok(HashMap::new());
        }
        let mut st = c.prepare("SELECT command_id, scan_hash, findings FROM command_findings")?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, Option<String>>(0)?.unwrap_or_default(),
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = HashMap::new();
        for row in rows {
            let (id, hash, json) = row?;
            // A row another version wrote in another shape is as good as none.
            if let Ok(findings) = serde_json::from_str(&json) {
                out.insert(id, Scanned { hash, findings });
            }
        }
        Ok(out)
    })
}

/// Stores one command's findings; for use inside a `Store::write` transaction.
pub fn save(conn: &Connection, id: &str, hash: &str, findings: &[Finding]) -> rusqlite::Result<()> {
    let json = serde_json::to_string(findings).unwrap_or_else(|_| "[]".into());
    conn.execute(
        "INSERT INTO command_findings (command_id, scan_hash, findings, scanned_at)
         VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
         ON CONFLICT(command_id) DO UPDATE SET
           scan_hash = excluded.scan_hash,
           findings = excluded.findings,
           scanned_at = excluded.scanned_at",
        (id, hash, &json),
    )?;
    Ok(())
}

/// Stores the findings of several commands in one transaction: `(id, scan hash, findings)`.
pub fn save_all(store: &mut Store, rows: &[(&str, &str, &[Finding])]) -> Result<()> {
    store.write(|tx| {
        for (id, hash, findings) in rows {
            save(tx, id, hash, findings)?;
        }
        Ok(())
    })
}
