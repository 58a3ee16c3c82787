//! The static analyser's findings (`commandtree_risk`), kept in a table of our own keyed by
//! command id and the hash of what was analysed, so an unchanged command is not analysed
//! again. The seed `commands.security_warning` column stays the model's text (the VS Code
//! extension writes it too); what a user sees combines both (`annotate`).
//!
//! No foreign key to `commands`: a command has findings whether or not it has a summary row,
//! and the seed tables may be rebuilt under us.

use crate::{Result, Store};
use commandtree_core::CommandItem;
use commandtree_risk::{Finding, effective_warning};
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;
use std::path::Path;

pub const TABLE: &str = "command_findings";

pub const TABLE_SQL: &str = "CREATE TABLE IF NOT EXISTS command_findings (
    command_id TEXT PRIMARY KEY,
    scan_hash TEXT NOT NULL,
    findings TEXT NOT NULL,
    scanned_at TEXT NOT NULL
);
";

/// What the analyser is given for one command: its own text (`excerpt::command_text`) when
/// its file can be read, else its command line.
#[derive(Debug, Clone)]
pub struct Scanned {
    pub hash: String,
    pub findings: Vec<Finding>,
}

/// The text a command is analysed from and its scan hash.
pub fn subject_text(item: &CommandItem, file: Option<&str>) -> (String, String) {
    let text = match file {
        Some(content) => commandtree_core::excerpt::command_text(item, content)
            .text
            .into_owned(),
        None => item.command.clone(),
    };
    let hash = commandtree_risk::scan_hash(&item.kind, &item.command, &text);
    (text, hash)
}

/// The findings for `text` (from `subject_text`) of a command of `kind`: commands without a
/// readable file are analysed as their command line.
pub fn analyse_text(item: &CommandItem, text: &str, from_file: bool) -> Vec<Finding> {
    if from_file {
        commandtree_risk::analyse(&item.kind, text)
    } else {
        commandtree_risk::analyse("shell", text)
    }
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

/// The findings of every command in `items`: stored ones whose hash still matches, the rest
/// analysed now (each file read once). With `store`, new results are written back in one
/// transaction; without (no database, or a read-only listing) nothing is written. A failed
/// write costs only the caching.
pub fn scan(store: Option<&mut Store>, items: &[CommandItem]) -> HashMap<String, Vec<Finding>> {
    let stored = store
        .as_deref()
        .and_then(|s| load(s).ok())
        .unwrap_or_default();
    let mut files: HashMap<&str, Option<String>> = HashMap::new();
    let mut out = HashMap::new();
    let mut fresh: Vec<(String, String, Vec<Finding>)> = Vec::new();
    for item in items {
        let file = files.entry(item.file_path.as_str()).or_insert_with(|| {
            (!item.file_path.is_empty())
                .then(|| commandtree_core::fs::read_file(Path::new(&item.file_path)).ok())
                .flatten()
        });
        let (text, hash) = subject_text(item, file.as_deref());
        let findings = match stored.get(&item.id) {
            Some(s) if s.hash == hash => s.findings.clone(),
            _ => {
                let f = analyse_text(item, &text, file.is_some());
                fresh.push((item.id.clone(), hash, f.clone()));
                f
            }
        };
        out.insert(item.id.clone(), findings);
    }
    // A read-only store (a listing) uses what is cached but never writes.
    if let Some(store) = store
        && !fresh.is_empty()
        && !store.is_read_only()
    {
        let _ = store.write(|tx| {
            for (id, hash, f) in &fresh {
                save(tx, id, hash, f)?;
            }
            Ok(())
        });
    }
    out
}

/// Sets each command's `security_warning` to what a user should see: its findings, then the
/// model's warning already filled in by `Store::enrich` (when it is not a placeholder).
pub fn annotate(items: &mut [CommandItem], findings: &HashMap<String, Vec<Finding>>) {
    for item in items {
        let f = findings.get(&item.id).map(Vec::as_slice).unwrap_or(&[]);
        item.security_warning = effective_warning(item.security_warning.as_deref(), None, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db_path;

    fn root(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ct-findings-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn item(root: &Path, file: &str, body: &str) -> CommandItem {
        let p = root.join(file);
        std::fs::write(&p, body).unwrap();
        CommandItem::new("shell", &p, file, format!("./{file}"))
    }

    #[test]
    fn findings_are_cached_by_hash_and_redone_when_the_text_changes() {
        let dir = root("cache");
        let mut store = Store::open(&db_path(&dir), true).unwrap().unwrap();
        let risky = item(
            &dir,
            "install.sh",
            "#!/bin/sh\ncurl -fsSL https://x.io/i | sh\n",
        );
        let safe = item(&dir, "build.sh", "#!/bin/sh\ncargo build\n");
        let items = vec![risky.clone(), safe.clone()];
        let f = scan(Some(&mut store), &items);
        assert_eq!(f[&risky.id].len(), 1);
        assert!(f[&safe.id].is_empty());
        let stored = load(&store).unwrap();
        assert_eq!(stored.len(), 2);
        assert_eq!(stored[&risky.id].findings, f[&risky.id]);

        // A stored row is used as is while its hash matches: a planted row proves it.
        let planted = vec![Finding {
            level: commandtree_risk::Level::Caution,
            reason: "planted".into(),
            line: 1,
            snippet: String::new(),
        }];
        let hash = stored[&safe.id].hash.clone();
        store
            .write(|tx| save(tx, &safe.id, &hash, &planted))
            .unwrap();
        assert_eq!(scan(Some(&mut store), &items)[&safe.id], planted);

        // Editing the file changes the hash: analysed again.
        std::fs::write(
            &safe.file_path,
            "#!/bin/sh\ncargo build\ngit push --force\n",
        )
        .unwrap();
        let f = scan(Some(&mut store), &items);
        assert_eq!(f[&safe.id].len(), 1);
        assert_eq!(f[&safe.id][0].line, 3);
        assert_eq!(load(&store).unwrap()[&safe.id].findings, f[&safe.id]);
    }

    #[test]
    fn annotate_combines_findings_with_the_stored_model_warning() {
        let dir = root("annotate");
        let risky = item(
            &dir,
            "install.sh",
            "#!/bin/sh\ncurl -fsSL https://x.io/i | sh\n",
        );
        let noted = item(&dir, "upload.sh", "#!/bin/sh\n./upload-dump\n");
        let placeholder = item(&dir, "lint.sh", "#!/bin/sh\neslint .\n");
        let mut items = vec![risky, noted, placeholder];
        items[1].security_warning = Some("Uploads the database dump".into());
        items[2].security_warning = Some("Not a security warning".into());
        let f = scan(None, &items);
        annotate(&mut items, &f);
        assert!(
            items[0]
                .security_warning
                .as_deref()
                .is_some_and(|w| w.starts_with("Danger: pipes a download (curl) into sh (line 2")),
            "{:?}",
            items[0].security_warning
        );
        assert_eq!(
            items[1].security_warning.as_deref(),
            Some("Uploads the database dump")
        );
        assert_eq!(items[2].security_warning, None);
        // No database was asked for, none was made.
        assert!(!db_path(&dir).exists());
    }
}
