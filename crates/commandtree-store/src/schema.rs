//! The database structure: the seed spec's three tables, verbatim, plus tables of our own, and
//! the check that decides whether an existing file has that structure.

use rusqlite::{Connection, OptionalExtension};

/// The seed spec's schema, character for character (comments included), so `sqlite_master`
/// holds exactly what the spec declares and the VS Code extension finds its own tables.
pub const SEED_SQL: &str = r#"-- COMMANDS TABLE
-- Stores AI-generated summaries and embeddings for discovered commands
-- NOTE: This is NOT the source of truth - commands are discovered from filesystem
-- This table only adds AI features (summaries, semantic search) to the tree view
CREATE TABLE IF NOT EXISTS commands (
    command_id TEXT PRIMARY KEY,        -- Unique command identifier (e.g., "npm:/path/to/package.json:build")
    content_hash TEXT NOT NULL,         -- SHA-256 hash of command content for change detection
    summary TEXT NOT NULL,              -- AI-GENERATED SUMMARY: Plain-language description from GitHub Copilot (1-3 sentences)
                                        -- MUST be populated for EVERY command automatically in background
                                        -- Example: "Builds the TypeScript project and outputs to the dist directory"
    embedding BLOB,                     -- EMBEDDING VECTOR: 384 Float32 values (1536 bytes) generated from the summary
                                        -- MUST be populated by embedding the summary text using all-MiniLM-L6-v2
                                        -- Required for semantic search to work
    security_warning TEXT,              -- SECURITY WARNING: AI-detected security risk description (nullable)
                                        -- Populated via VS Code Language Model Tool API (structured output)
                                        -- When non-empty, tree view shows ⚠️ icon next to command
    last_updated TEXT NOT NULL          -- ISO 8601 timestamp of last summary/embedding generation
);

-- TAGS TABLE
-- Master list of available tags
CREATE TABLE IF NOT EXISTS tags (
    tag_id TEXT PRIMARY KEY,            -- UUID primary key
    tag_name TEXT NOT NULL UNIQUE,      -- Tag identifier (e.g., "quick", "deploy", "test")
    description TEXT                    -- Optional tag description
);

-- COMMAND_TAGS JUNCTION TABLE
-- Many-to-many relationship between commands and tags
-- STRICT REFERENTIAL INTEGRITY ENFORCED: Both FKs have CASCADE DELETE
-- When a command is deleted, all its tag assignments are automatically removed
-- When a tag is deleted, all command assignments are automatically removed
CREATE TABLE IF NOT EXISTS command_tags (
    command_id TEXT NOT NULL,           -- Foreign key to commands.command_id with CASCADE DELETE
    tag_id TEXT NOT NULL,               -- Foreign key to tags.tag_id with CASCADE DELETE
    display_order INTEGER NOT NULL DEFAULT 0,  -- Display order for drag-and-drop reordering
    PRIMARY KEY (command_id, tag_id),
    FOREIGN KEY (command_id) REFERENCES commands(command_id) ON DELETE CASCADE,
    FOREIGN KEY (tag_id) REFERENCES tags(tag_id) ON DELETE CASCADE
);
"#;

/// Tables beyond the seed. The seed's tables never get extra columns (the VS Code extension
/// shares them), so what only we need lives here.
///
/// `config_tag_assignments` remembers which `command_tags` rows the `.vscode/commandtree.json`
/// sync created, so the sync can take back its own rows without touching the ones a user
/// added by hand. It references the junction row, so removing that row (by us, by the
/// extension, or by a cascade) drops the marker with it.
pub const OWN_SQL: &str = r#"CREATE TABLE IF NOT EXISTS config_tag_assignments (
    command_id TEXT NOT NULL,
    tag_id TEXT NOT NULL,
    PRIMARY KEY (command_id, tag_id),
    FOREIGN KEY (command_id, tag_id) REFERENCES command_tags(command_id, tag_id) ON DELETE CASCADE
);

-- One row per run that started (`ct runs`, `ct stop`, `ct run --last`).
CREATE TABLE IF NOT EXISTS run_history (
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
);

-- What each stored embedding was made from, so it is redone exactly when that text changes.
CREATE TABLE IF NOT EXISTS embedding_sources (
    command_id TEXT PRIMARY KEY,
    text_hash TEXT NOT NULL,      -- SHA-256 of the model name, the source and the embedded text
    source TEXT NOT NULL,         -- 'summary' or 'discovered'
    model TEXT NOT NULL,
    embedded_at TEXT NOT NULL
);
"#;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnSpec {
    pub name: &'static str,
    pub ty: &'static str,
    pub not_null: bool,
    /// Position in the primary key (1-based), 0 when not part of it.
    pub pk: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForeignKeySpec {
    pub table: &'static str,
    pub from: &'static [&'static str],
    pub to: &'static [&'static str],
    pub on_delete: &'static str,
}

#[derive(Debug, Clone, Copy)]
pub struct TableSpec {
    pub name: &'static str,
    pub columns: &'static [ColumnSpec],
    pub foreign_keys: &'static [ForeignKeySpec],
    /// Column lists that must carry a UNIQUE index (besides the primary key).
    pub unique: &'static [&'static [&'static str]],
    /// One of the seed spec's tables (else one of ours).
    pub seed: bool,
    /// Joined to the seed tables by foreign keys: rebuilt together with them, its rows carried
    /// over. An independent table with another structure is rebuilt alone (its old rows stay
    /// in the backup).
    pub linked: bool,
}

const fn col(name: &'static str, ty: &'static str, not_null: bool, pk: u32) -> ColumnSpec {
    ColumnSpec {
        name,
        ty,
        not_null,
        pk,
    }
}

/// A table of our own that nothing references: the fields `TABLES` entries leave out.
const OWN_TABLE: TableSpec = TableSpec {
    name: "",
    columns: &[],
    foreign_keys: &[],
    unique: &[],
    seed: false,
    linked: false,
};

/// Every table we rely on, parents before children.
pub const TABLES: &[TableSpec] = &[
    TableSpec {
        name: "commands",
        columns: &[
            col("command_id", "TEXT", false, 1),
            col("content_hash", "TEXT", true, 0),
            col("summary", "TEXT", true, 0),
            col("embedding", "BLOB", false, 0),
            col("security_warning", "TEXT", false, 0),
            col("last_updated", "TEXT", true, 0),
        ],
        foreign_keys: &[],
        unique: &[],
        seed: true,
        linked: true,
    },
    TableSpec {
        name: "tags",
        columns: &[
            col("tag_id", "TEXT", false, 1),
            col("tag_name", "TEXT", true, 0),
            col("description", "TEXT", false, 0),
        ],
        foreign_keys: &[],
        unique: &[&["tag_name"]],
        seed: true,
        linked: true,
    },
    TableSpec {
        name: "command_tags",
        columns: &[
            col("command_id", "TEXT", true, 1),
            col("tag_id", "TEXT", true, 2),
            col("display_order", "INTEGER", true, 0),
        ],
        foreign_keys: &[
            ForeignKeySpec {
                table: "commands",
                from: &["command_id"],
                to: &["command_id"],
                on_delete: "CASCADE",
            },
            ForeignKeySpec {
                table: "tags",
                from: &["tag_id"],
                to: &["tag_id"],
                on_delete: "CASCADE",
            },
        ],
        unique: &[],
        seed: true,
        linked: true,
    },
    TableSpec {
        name: "config_tag_assignments",
        columns: &[
            col("command_id", "TEXT", true, 1),
            col("tag_id", "TEXT", true, 2),
        ],
        foreign_keys: &[ForeignKeySpec {
            table: "command_tags",
            from: &["command_id", "tag_id"],
            to: &["command_id", "tag_id"],
            on_delete: "CASCADE",
        }],
        unique: &[],
        seed: false,
        linked: true,
    },
    TableSpec {
        name: "run_history",
        columns: &[
            col("run_id", "INTEGER", false, 1),
            col("command_id", "TEXT", true, 0),
            col("label", "TEXT", true, 0),
            col("command_line", "TEXT", true, 0),
            col("cwd", "TEXT", true, 0),
            col("started_at", "TEXT", true, 0),
            col("duration_ms", "INTEGER", false, 0),
            col("exit_code", "INTEGER", false, 0),
            col("mode", "TEXT", true, 0),
            col("status", "TEXT", true, 0),
            col("pid", "INTEGER", false, 0),
            col("log_path", "TEXT", false, 0),
            col("request", "TEXT", true, 0),
        ],
        ..OWN_TABLE
    },
    TableSpec {
        name: "embedding_sources",
        columns: &[
            col("command_id", "TEXT", false, 1),
            col("text_hash", "TEXT", true, 0),
            col("source", "TEXT", true, 0),
            col("model", "TEXT", true, 0),
            col("embedded_at", "TEXT", true, 0),
        ],
        ..OWN_TABLE
    },
    TableSpec {
        name: crate::findings::TABLE,
        columns: &[
            col("command_id", "TEXT", false, 1),
            col("scan_hash", "TEXT", true, 0),
            col("findings", "TEXT", true, 0),
            col("scanned_at", "TEXT", true, 0),
        ],
        ..OWN_TABLE
    },
    TableSpec {
        name: crate::context::TABLE,
        columns: &[
            col("id", "INTEGER", false, 1),
            col("conversation", "TEXT", true, 0),
            col("type", "TEXT", true, 0),
            col("content", "TEXT", true, 0),
            col("created_at", "TEXT", true, 0),
        ],
        ..OWN_TABLE
    },
];

/// What an existing file holds compared with `TABLES`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Every table is there with the right structure.
    Ok,
    /// The tables present are right; these are absent (a new file, or one written by an older
    /// version of either tool) and can simply be created.
    Missing(Vec<&'static str>),
    /// At least one table has another structure: the reason, for the user.
    Wrong(String),
}

/// Compares the file's tables with `TABLES`.
///
/// Column order and DEFAULT clauses are not compared: the VS Code extension's own versions
/// differ in both (it adds columns with ALTER TABLE and declares `DEFAULT ''`), and neither
/// changes what a query by column name reads or writes. Names, types, NOT NULL, primary keys,
/// UNIQUE and foreign keys with their cascades are compared exactly.
pub fn inspect(conn: &Connection) -> rusqlite::Result<Status> {
    let mut missing = Vec::new();
    let mut problems = Vec::new();
    for t in TABLES {
        match object_type(conn, t.name)?.as_deref() {
            None => missing.push(t.name),
            Some("table") => problems.extend(table_problems(conn, t)?),
            Some(other) => problems.push(format!("`{}` is a {other}, not a table", t.name)),
        }
    }
    Ok(if !problems.is_empty() {
        Status::Wrong(problems.join("; "))
    } else if missing.is_empty() {
        Status::Ok
    } else {
        Status::Missing(missing)
    })
}

/// What `sqlite_master` says `name` is (`table`, `view`, ...), `None` when absent.
fn object_type(conn: &Connection, name: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        "SELECT type FROM sqlite_master WHERE name = ?1",
        [name],
        |r| r.get(0),
    )
    .optional()
}

/// The tables of `TABLES` present with another structure.
pub fn wrong_tables(conn: &Connection) -> rusqlite::Result<Vec<&'static TableSpec>> {
    let mut out = Vec::new();
    for t in TABLES {
        match object_type(conn, t.name)?.as_deref() {
            None => {}
            Some("table") if table_problems(conn, t)?.is_empty() => {}
            Some(_) => out.push(t),
        }
    }
    Ok(out)
}

/// Triggers and views: our schema has none, so every one is somebody else's (a repository can
/// ship a database whose trigger rewrites `security_warning`). `(type, name)`, sorted.
pub fn foreign_objects(conn: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    let mut st = conn.prepare(
        "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') ORDER BY type, name",
    )?;
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
}

/// Drops the triggers and views `foreign_objects` lists.
pub fn drop_foreign_objects(conn: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    let found = foreign_objects(conn)?;
    for (kind, name) in &found {
        let what = if kind == "view" { "VIEW" } else { "TRIGGER" };
        conn.execute_batch(&format!(
            "DROP {what} IF EXISTS \"{}\"",
            name.replace('"', "\"\"")
        ))?;
    }
    Ok(found)
}

#[derive(Debug)]
struct ColumnInfo {
    name: String,
    ty: String,
    not_null: bool,
    pk: u32,
}

fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<ColumnInfo>> {
    let mut st = conn.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)")?;
    st.query_map([table], |r| {
        Ok(ColumnInfo {
            name: r.get(0)?,
            ty: r.get(1)?,
            not_null: r.get::<_, i64>(2)? != 0,
            pk: r.get::<_, i64>(3)? as u32,
        })
    })?
    .collect()
}

/// Column names of `table` (lowercase), empty when it does not exist.
pub fn column_names(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    Ok(columns(conn, table)?
        .into_iter()
        .map(|c| c.name.to_ascii_lowercase())
        .collect())
}

fn table_problems(conn: &Connection, t: &TableSpec) -> rusqlite::Result<Vec<String>> {
    let mut out = Vec::new();
    let cols = columns(conn, t.name)?;
    for want in t.columns {
        match cols.iter().find(|c| c.name.eq_ignore_ascii_case(want.name)) {
            None => out.push(format!("{}: missing column {}", t.name, want.name)),
            Some(c) => {
                if !c.ty.eq_ignore_ascii_case(want.ty) {
                    out.push(format!(
                        "{}.{}: type {:?}, expected {}",
                        t.name, want.name, c.ty, want.ty
                    ));
                }
                if c.not_null != want.not_null {
                    let state = if want.not_null {
                        "nullable"
                    } else {
                        "NOT NULL"
                    };
                    out.push(format!("{}.{}: is {state}", t.name, want.name));
                }
                if c.pk != want.pk {
                    out.push(format!("{}.{}: primary key differs", t.name, want.name));
                }
            }
        }
    }
    for c in &cols {
        if !t
            .columns
            .iter()
            .any(|w| c.name.eq_ignore_ascii_case(w.name))
        {
            out.push(format!("{}: unexpected column {}", t.name, c.name));
        }
    }
    for u in t.unique {
        if !has_unique_index(conn, t.name, u)? {
            out.push(format!("{}: {} is not UNIQUE", t.name, u.join(", ")));
        }
    }
    let fks = foreign_keys(conn, t.name)?;
    for want in t.foreign_keys {
        let found = fks.iter().any(|f| {
            f.table.eq_ignore_ascii_case(want.table)
                && same_columns(&f.from, want.from)
                && (same_columns(&f.to, want.to) || f.to.iter().all(|c| c.is_none()))
                && f.on_delete.eq_ignore_ascii_case(want.on_delete)
        });
        if !found {
            out.push(format!(
                "{}: no foreign key ({}) -> {}({}) ON DELETE {}",
                t.name,
                want.from.join(", "),
                want.table,
                want.to.join(", "),
                want.on_delete
            ));
        }
    }
    if fks.len() > t.foreign_keys.len() {
        out.push(format!("{}: unexpected foreign keys", t.name));
    }
    Ok(out)
}

fn same_columns(have: &[Option<String>], want: &[&str]) -> bool {
    have.len() == want.len()
        && have
            .iter()
            .zip(want)
            .all(|(h, w)| h.as_deref().is_some_and(|h| h.eq_ignore_ascii_case(w)))
}

#[derive(Debug)]
struct ForeignKeyInfo {
    table: String,
    from: Vec<Option<String>>,
    to: Vec<Option<String>>,
    on_delete: String,
}

fn foreign_keys(conn: &Connection, table: &str) -> rusqlite::Result<Vec<ForeignKeyInfo>> {
    let mut st = conn.prepare(
        "SELECT id, \"table\", \"from\", \"to\", on_delete FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
    )?;
    let rows = st.query_map([table], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, String>(4)?,
        ))
    })?;
    let mut out: Vec<(i64, ForeignKeyInfo)> = Vec::new();
    for row in rows {
        let (id, parent, from, to, on_delete) = row?;
        match out.last_mut() {
            Some((last, fk)) if *last == id => {
                fk.from.push(from);
                fk.to.push(to);
            }
            _ => out.push((
                id,
                ForeignKeyInfo {
                    table: parent,
                    from: vec![from],
                    to: vec![to],
                    on_delete,
                },
            )),
        }
    }
    Ok(out.into_iter().map(|(_, f)| f).collect())
}

fn has_unique_index(conn: &Connection, table: &str, cols: &[&str]) -> rusqlite::Result<bool> {
    let mut st = conn.prepare("SELECT name FROM pragma_index_list(?1) WHERE \"unique\" = 1")?;
    let names: Vec<String> = st
        .query_map([table], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for name in names {
        let mut st = conn.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?;
        let indexed: Vec<Option<String>> = st
            .query_map([&name], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if same_columns(&indexed, cols) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Creates whatever tables are absent. Safe to run concurrently: every statement is
/// `IF NOT EXISTS`.
pub fn create(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(SEED_SQL)?;
    conn.execute_batch(OWN_SQL)?;
    conn.execute_batch(crate::findings::TABLE_SQL)?;
    conn.execute_batch(crate::context::TABLE_SQL)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem() -> Connection {
        Connection::open_in_memory().unwrap()
    }

    #[test]
    fn created_schema_passes_its_own_check() {
        let c = mem();
        assert_eq!(
            inspect(&c).unwrap(),
            Status::Missing(TABLES.iter().map(|t| t.name).collect())
        );
        create(&c).unwrap();
        assert_eq!(inspect(&c).unwrap(), Status::Ok);
        create(&c).unwrap();
        assert_eq!(inspect(&c).unwrap(), Status::Ok);
    }

    #[test]
    fn upstream_variants_with_defaults_and_reordered_columns_are_accepted() {
        let c = mem();
        c.execute_batch(
            "CREATE TABLE commands (command_id TEXT PRIMARY KEY, embedding BLOB, content_hash TEXT NOT NULL DEFAULT '',
               summary TEXT NOT NULL DEFAULT '', security_warning TEXT, last_updated TEXT NOT NULL DEFAULT '');",
        )
        .unwrap();
        assert_eq!(
            inspect(&c).unwrap(),
            Status::Missing(vec![
                "tags",
                "command_tags",
                "config_tag_assignments",
                "run_history",
                "embedding_sources",
                "command_findings",
                "context_messages"
            ])
        );
    }

    #[test]
    fn wrong_structures_are_named() {
        let cases = [
            (
                "CREATE TABLE commands (command_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', security_warning TEXT, last_updated TEXT NOT NULL DEFAULT '')",
                "commands: missing column embedding",
            ),
            (
                "CREATE TABLE tags (tag_id TEXT PRIMARY KEY, tag_name TEXT NOT NULL, description TEXT)",
                "tags: tag_name is not UNIQUE",
            ),
            (
                "CREATE TABLE command_tags (command_id TEXT NOT NULL, tag_id TEXT NOT NULL, display_order INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (command_id, tag_id), FOREIGN KEY (command_id) REFERENCES commands(command_id), FOREIGN KEY (tag_id) REFERENCES tags(tag_id) ON DELETE CASCADE)",
                "command_tags: no foreign key (command_id) -> commands(command_id) ON DELETE CASCADE",
            ),
            (
                "CREATE TABLE tags (tag_id TEXT PRIMARY KEY, tag_name TEXT NOT NULL UNIQUE, description TEXT, color TEXT)",
                "tags: unexpected column color",
            ),
            (
                "CREATE VIEW tags AS SELECT 1",
                "`tags` is a view, not a table",
            ),
            (
                "CREATE TABLE commands (command_id INTEGER PRIMARY KEY, content_hash TEXT NOT NULL, summary TEXT NOT NULL, embedding BLOB, security_warning TEXT, last_updated TEXT NOT NULL)",
                "commands.command_id: type \"INTEGER\", expected TEXT",
            ),
        ];
        for (sql, want) in cases {
            let c = mem();
            c.execute_batch(sql).unwrap();
            match inspect(&c).unwrap() {
                Status::Wrong(reason) => assert!(reason.contains(want), "{sql}\n=> {reason}"),
                other => panic!("{sql}\n=> {other:?}"),
            }
        }
    }
}
