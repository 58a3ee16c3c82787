//! The seed spec's tag operations as statements on a connection. Callers run the writing ones
//! inside a `BEGIN IMMEDIATE` transaction, so a read-modify-write (the next display order) is
//! never interleaved with another process's.

use rusqlite::{Connection, OptionalExtension};

/// `ensureCommandExists`: a placeholder row (empty hash and summary, no embedding) so the
/// junction row's foreign key holds. An existing row is left exactly as it is: resetting its
/// content hash would make the summary pipeline redo work (upstream bug).
pub fn ensure_command(conn: &Connection, command_id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO commands (command_id, content_hash, summary, embedding, security_warning, last_updated)
         VALUES (?1, '', '', NULL, NULL, ?2)
         ON CONFLICT(command_id) DO NOTHING",
        (command_id, crate::time::iso_now()),
    )?;
    Ok(())
}

pub fn tag_id(conn: &Connection, tag: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT tag_id FROM tags WHERE tag_name = ?1", [tag], |r| {
        r.get(0)
    })
    .optional()
}

/// The tag's id, creating the tag (UUID v4, no description) when it is new.
pub fn ensure_tag(conn: &Connection, tag: &str) -> rusqlite::Result<String> {
    if let Some(id) = tag_id(conn, tag)? {
        return Ok(id);
    }
    let id = uuid::Uuid::new_v4().to_string();
    conn.execute(
        "INSERT INTO tags (tag_id, tag_name, description) VALUES (?1, ?2, NULL)",
        (&id, tag),
    )?;
    Ok(id)
}

/// `addTagToCommand`: appended after the tag's other commands (display order max + 1), so every
/// tag, Quick Launch included, keeps the order in which commands were added. Returns false when
/// the command already had the tag (its position is kept).
pub fn add_tag(conn: &Connection, command_id: &str, tag: &str) -> rusqlite::Result<bool> {
    ensure_command(conn, command_id)?;
    let tag_id = ensure_tag(conn, tag)?;
    let exists = conn
        .query_row(
            "SELECT 1 FROM command_tags WHERE command_id = ?1 AND tag_id = ?2",
            (command_id, &tag_id),
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if exists {
        return Ok(false);
    }
    conn.execute(
        "INSERT INTO command_tags (command_id, tag_id, display_order)
         VALUES (?1, ?2, (SELECT COALESCE(MAX(display_order), -1) + 1 FROM command_tags WHERE tag_id = ?2))",
        (command_id, &tag_id),
    )?;
    Ok(true)
}

/// `removeTagFromCommand`: the junction row only. The tag itself stays, so pickers still offer
/// it (as in the extension). Returns whether there was such a row.
pub fn remove_tag(conn: &Connection, command_id: &str, tag: &str) -> rusqlite::Result<bool> {
    let n = conn.execute(
        "DELETE FROM command_tags
         WHERE command_id = ?1 AND tag_id = (SELECT tag_id FROM tags WHERE tag_name = ?2)",
        (command_id, tag),
    )?;
    Ok(n > 0)
}

/// `getCommandIdsByTag`: by display order; ties (the extension writes 0 for every tag but the
/// quick one) in insertion order.
pub fn command_ids_by_tag(conn: &Connection, tag: &str) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare_cached(
        "SELECT ct.command_id FROM command_tags ct JOIN tags t ON t.tag_id = ct.tag_id
         WHERE t.tag_name = ?1 ORDER BY ct.display_order, ct.rowid",
    )?;
    st.query_map([tag], |r| r.get(0))?.collect()
}

/// `getTagsForCommand`, by name.
pub fn tags_for_command(conn: &Connection, command_id: &str) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare_cached(
        "SELECT t.tag_name FROM command_tags ct JOIN tags t ON t.tag_id = ct.tag_id
         WHERE ct.command_id = ?1 ORDER BY t.tag_name",
    )?;
    st.query_map([command_id], |r| r.get(0))?.collect()
}

/// `getAllTagNames`, by name.
pub fn all_tag_names(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut st = conn.prepare_cached("SELECT tag_name FROM tags ORDER BY tag_name")?;
    st.query_map([], |r| r.get(0))?.collect()
}

/// Rewrites the tag's display orders to 0..n-1 following `order`.
pub fn write_order(conn: &Connection, tag: &str, order: &[String]) -> rusqlite::Result<()> {
    let Some(tag_id) = tag_id(conn, tag)? else {
        return Ok(());
    };
    let mut st = conn.prepare_cached(
        "UPDATE command_tags SET display_order = ?1 WHERE command_id = ?2 AND tag_id = ?3",
    )?;
    for (i, id) in order.iter().enumerate() {
        st.execute((i as i64, id, &tag_id))?;
    }
    Ok(())
}

/// `order` first (ids that do not carry the tag, and repeats, are dropped), then the tag's
/// other commands in their current order.
pub fn merged_order(current: &[String], order: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(current.len());
    for id in order {
        if current.iter().any(|c| c == id) && !out.iter().any(|o| o == id) {
            out.push((*id).to_string());
        }
    }
    for c in current {
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    out
}
