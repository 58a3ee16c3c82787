//! What survives a rebuild of a file with another structure: tags, their assignments (with
//! their order and whether the tag config made them) and command rows, read from whatever
//! columns of the old tables are there. Best effort by design: the old file is kept as a
//! backup, so anything unreadable here is still not lost.

use crate::schema::{self, TABLES, TableSpec};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension};
use std::collections::{HashMap, HashSet};

#[derive(Debug, Default)]
pub struct Carried {
    commands: Vec<CommandRow>,
    /// (tag_id, tag_name, description)
    tags: Vec<(String, String, Option<String>)>,
    /// (command_id, tag_name, display_order, made by the tag config)
    assignments: Vec<(String, String, i64, bool)>,
}

#[derive(Debug)]
struct CommandRow {
    id: String,
    content_hash: String,
    summary: String,
    embedding: Option<Vec<u8>>,
    security_warning: Option<String>,
    last_updated: String,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Integer(i) => Some(i.to_string()),
        Value::Real(f) => Some(f.to_string()),
        Value::Text(s) => Some(s.clone()),
        Value::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
    }
}

/// `SELECT` of the wanted columns, `NULL` for the ones the old table lacks; `None` when the
/// table or its key column is missing.
fn select(conn: &Connection, table: &str, wanted: &[&str], key: &str) -> Option<Vec<Vec<Value>>> {
    let have = schema::column_names(conn, table).ok()?;
    if !have.iter().any(|c| c == key) {
        return None;
    }
    let cols: Vec<String> = wanted
        .iter()
        .map(|w| {
            if have.iter().any(|h| h == w) {
                format!("\"{w}\"")
            } else {
                "NULL".to_string()
            }
        })
        .collect();
    let sql = format!("SELECT {} FROM \"{table}\"", cols.join(", "));
    let mut st = conn.prepare(&sql).ok()?;
    let n = wanted.len();
    let rows = st
        .query_map([], |r| {
            (0..n)
                .map(|i| r.get::<_, Value>(i))
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .ok()?;
    Some(rows.filter_map(Result::ok).collect())
}

pub fn read(conn: &Connection, exists: Option<&dyn Fn(&str) -> bool>) -> Carried {
    let keep = |id: &str| exists.is_none_or(|f| f(id));
    let mut out = Carried::default();

    // Tags by name; the old id is kept when it is usable, so the file stays recognisable to a
    // tool that cached ids.
    let mut name_of: HashMap<String, String> = HashMap::new();
    let mut seen_ids: HashSet<String> = HashSet::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for row in select(
        conn,
        "tags",
        &["tag_id", "tag_name", "description"],
        "tag_name",
    )
    .unwrap_or_default()
    {
        let Some(name) = text(&row[1]) else { continue };
        let old_id = text(&row[0]);
        if let Some(&i) = by_name.get(&name) {
            if let Some(old) = old_id {
                name_of.insert(old, out.tags[i].1.clone());
            }
            continue;
        }
        let id = match &old_id {
            Some(id) if !id.is_empty() && seen_ids.insert(id.clone()) => id.clone(),
            _ => uuid::Uuid::new_v4().to_string(),
        };
        if let Some(old) = old_id {
            name_of.insert(old, name.clone());
        }
        by_name.insert(name.clone(), out.tags.len());
        out.tags.push((id, name, text(&row[2])));
    }

    let mut by_config: HashSet<(String, String)> = HashSet::new();
    for row in select(
        conn,
        "config_tag_assignments",
        &["command_id", "tag_id"],
        "command_id",
    )
    .unwrap_or_default()
    {
        if let (Some(c), Some(t)) = (
            text(&row[0]),
            text(&row[1]).and_then(|t| name_of.get(&t).cloned()),
        ) {
            by_config.insert((c, t));
        }
    }

    let mut pairs: HashSet<(String, String)> = HashSet::new();
    for row in select(
        conn,
        "command_tags",
        &["command_id", "tag_id", "display_order"],
        "command_id",
    )
    .unwrap_or_default()
    {
        let (Some(id), Some(tag)) = (
            text(&row[0]),
            text(&row[1]).and_then(|t| name_of.get(&t).cloned()),
        ) else {
            continue;
        };
        if !keep(&id) || !pairs.insert((id.clone(), tag.clone())) {
            continue;
        }
        let order = match &row[2] {
            Value::Integer(i) => *i,
            v => text(v).and_then(|s| s.trim().parse().ok()).unwrap_or(0),
        };
        let config = by_config.contains(&(id.clone(), tag.clone()));
        out.assignments.push((id, tag, order, config));
    }

    let wanted = [
        "command_id",
        "content_hash",
        "summary",
        "embedding",
        "security_warning",
        "last_updated",
    ];
    let now = crate::time::iso_now();
    for row in select(conn, "commands", &wanted, "command_id").unwrap_or_default() {
        let Some(id) = text(&row[0]) else { continue };
        if !keep(&id) {
            continue;
        }
        out.commands.push(CommandRow {
            id,
            content_hash: text(&row[1]).unwrap_or_default(),
            summary: text(&row[2]).unwrap_or_default(),
            embedding: match &row[3] {
                Value::Blob(b) => Some(b.clone()),
                _ => None,
            },
            security_warning: text(&row[4]),
            last_updated: text(&row[5])
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| now.clone()),
        });
    }
    out
}

/// Drops the old tables (and views, triggers or indexes squatting on their names), children
/// first: the linked tables, and of the independent ones those in `wrong`.
pub fn drop_tables(conn: &Connection, wrong: &[&TableSpec]) -> rusqlite::Result<()> {
    for t in TABLES.iter().rev() {
        if !t.linked && !wrong.iter().any(|w| w.name == t.name) {
            continue;
        }
        let kind: Option<String> = conn
            .query_row(
                "SELECT type FROM sqlite_master WHERE name = ?1",
                [t.name],
                |r| r.get(0),
            )
            .optional()?;
        let what = match kind.as_deref() {
            None => continue,
            Some("view") => "VIEW",
            Some("index") => "INDEX",
            Some("trigger") => "TRIGGER",
            Some(_) => "TABLE",
        };
        conn.execute_batch(&format!("DROP {what} IF EXISTS \"{}\"", t.name))?;
    }
    Ok(())
}

/// Writes what was carried into the new tables. Returns the number of tag assignments.
pub fn write(conn: &Connection, c: &Carried) -> rusqlite::Result<usize> {
    for r in &c.commands {
        conn.execute(
            "INSERT OR IGNORE INTO commands (command_id, content_hash, summary, embedding, security_warning, last_updated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            (&r.id, &r.content_hash, &r.summary, &r.embedding, &r.security_warning, &r.last_updated),
        )?;
    }
    for (id, name, description) in &c.tags {
        conn.execute(
            "INSERT INTO tags (tag_id, tag_name, description) VALUES (?1, ?2, ?3)",
            (id, name, description),
        )?;
    }
    for (id, tag, order, config) in &c.assignments {
        // The old file may have had foreign keys off: give orphaned assignments their row.
        crate::ops::ensure_command(conn, id)?;
        let tag_id = crate::ops::ensure_tag(conn, tag)?;
        conn.execute(
            "INSERT OR IGNORE INTO command_tags (command_id, tag_id, display_order) VALUES (?1, ?2, ?3)",
            (id, &tag_id, order),
        )?;
        if *config {
            conn.execute(
                "INSERT OR IGNORE INTO config_tag_assignments (command_id, tag_id) VALUES (?1, ?2)",
                (id, &tag_id),
            )?;
        }
    }
    Ok(c.assignments.len())
}
