//! The workspace database `{root}/.commandtree/commandtree.sqlite3`, shared with the CommandTree
//! VS Code extension: the seed spec's three tables (`commands`, `tags`, `command_tags`), tags,
//! Quick Launch (the `quick` tag), the `.vscode/commandtree.json` tag config, summaries,
//! embeddings and the run history. Every table is declared in [`schema::TABLES`] and reached
//! through typed methods of [`Store`].
//!
//! The database only enriches: discovery decides which commands exist. Several processes (CLI,
//! terminal UI, watcher, servers, the extension) use one file at once, so every connection uses
//! the rollback journal and the `unix-dotfile` VFS (the extension's lock, see [`open`]), a busy
//! timeout, writes take the write lock up front (`BEGIN IMMEDIATE`), and a busy database is
//! retried rather than reported.
//!
//! A repository can ship its own `.commandtree/`. Reading ([`Store::open_read_only`]) never
//! changes the file; only opening for a write migrates, converts the journal or drops foreign
//! triggers and views, and only a regular file inside the workspace is opened at all.

mod carry;
pub mod context;
mod embeddings;
pub mod findings;
pub mod history;
pub mod open;
mod ops;
pub mod schema;
pub mod tagconfig;
mod time;
pub mod workspace;

use commandtree_core::{CommandItem, Warning};
use open::{BUSY_RETRIES, Found, Notes, VFS, is_busy, is_unreadable_file};
use rusqlite::{Connection, ErrorCode, Transaction, TransactionBehavior};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub use context::{ContextMessage, ContextType, DEFAULT_CONVERSATION};
pub use embeddings::{EmbeddingState, NewEmbedding, StoredSummary};
pub use open::{BUSY_TIMEOUT, GITIGNORE, STALE_LOCK, ensure_dir};
pub use ops::merged_order;
pub use schema::Status;
pub use workspace::{AttachOptions, Attached, WorkspaceDb, attach};

pub const DB_DIR: &str = ".commandtree";
pub const DB_FILE: &str = "commandtree.sqlite3";
/// Quick Launch is this tag, as in the extension.
pub const QUICK_TAG: &str = "quick";

pub fn db_path(root: &Path) -> PathBuf {
    root.join(DB_DIR).join(DB_FILE)
}

#[derive(Debug)]
pub enum Error {
    Db {
        path: PathBuf,
        source: rusqlite::Error,
    },
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    InvalidTagName {
        name: String,
        reason: String,
    },
    /// The database, its folder or a file SQLite would create next to it is not something the
    /// store may use (a symbolic link, not a regular file, outside the workspace).
    Untrusted {
        path: PathBuf,
        reason: String,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Db { path, source } if is_busy(source) => write!(
                f,
                "{}: the database stayed locked by another process (gave up after {} attempts of {} s)",
                path.display(),
                BUSY_RETRIES + 1,
                BUSY_TIMEOUT.as_secs()
            ),
            Error::Db { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::InvalidTagName { name, reason } => {
                write!(f, "invalid tag name `{name}`: {reason}")
            }
            Error::Untrusted { path, reason } => write!(
                f,
                "{}: {reason}; refusing to use it for the workspace database (nothing was read or written there)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Db { source, .. } => Some(source),
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Tags are one word: letters, digits, `-` and `_` (the extension's examples: `quick`,
/// `deploy`, `test`).
pub fn validate_tag_name(name: &str) -> Result<()> {
    let bad = |reason: String| {
        Err(Error::InvalidTagName {
            name: name.to_string(),
            reason,
        })
    };
    if name.is_empty() {
        return bad("a tag name cannot be empty".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || *c == '-' || *c == '_'))
    {
        let found = if c.is_whitespace() {
            "a space".to_string()
        } else {
            format!("`{c}`")
        };
        return bad(format!(
            "a tag is one word of letters, digits, `-` and `_` (found {found})"
        ));
    }
    Ok(())
}

/// Written when an existing file did not have the expected structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recreated {
    pub path: PathBuf,
    /// The old file (a copy when it could still be read, else the file itself, renamed).
    pub backup: PathBuf,
    pub reason: String,
    /// Tag assignments copied into the new database.
    pub carried_tags: usize,
}

impl Recreated {
    /// What happened, without the database path (for messages that name the file first).
    pub fn message(&self) -> String {
        format!(
            "not the CommandTree database structure ({}); moved it aside to {} and created a new one ({} tag assignment{} carried over)",
            self.reason,
            self.backup.display(),
            self.carried_tags,
            if self.carried_tags == 1 { "" } else { "s" }
        )
    }
}

impl std::fmt::Display for Recreated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message())
    }
}

/// An open workspace database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    recreated: Option<Recreated>,
    read_only: bool,
    /// Foreign triggers and views dropped when opening for a write.
    dropped: Vec<(String, String)>,
    /// A read-only store's view of what the tag config would change.
    overlay: Option<tagconfig::Overlay>,
    notes: Notes,
}

/// Row counts, for `ct db check`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub commands: u64,
    pub tags: u64,
    pub assignments: u64,
    pub summaries: u64,
}

impl Store {
    /// Opens the database at `path` for writing: creates missing tables, converts a WAL file
    /// back to the rollback journal, drops triggers and views that are not ours, and rebuilds a
    /// file with another structure. Without `create`, a missing file gives `Ok(None)` and is
    /// not created.
    pub fn open(path: &Path, create: bool) -> Result<Option<Store>> {
        Self::open_with(path, create, None)
    }

    /// As `open`; when the file has to be recreated, `exists` says which commands still exist:
    /// only their tags are carried over (all are when `None`). The old file is kept either way.
    pub fn open_with(
        path: &Path,
        create: bool,
        exists: Option<&dyn Fn(&str) -> bool>,
    ) -> Result<Option<Store>> {
        if open::vet(path, true, create)? == Found::Missing && !create {
            return Ok(None);
        }
        let notes = Notes::default();
        let err = |source| Error::Db {
            path: path.to_path_buf(),
            source,
        };
        if open::is_wal(path) {
            open::leave_wal(path, &notes).map_err(err)?;
        }
        match Self::connect(path, create, exists, notes) {
            Ok(s) => Ok(Some(s)),
            Err((Error::Db { source, .. }, notes)) if is_unreadable_file(&source) => {
                // Not a database at all (or damaged beyond reading its schema): nothing can be
                // copied out, so the file itself goes aside.
                let backup = move_aside(path)?;
                let mut s = Self::connect(path, true, None, notes).map_err(|(e, _)| e)?;
                s.recreated = Some(Recreated {
                    path: path.to_path_buf(),
                    backup,
                    reason: source.to_string(),
                    carried_tags: 0,
                });
                Ok(Some(s))
            }
            Err((e, _)) => Err(e),
        }
    }

    /// Opens the database at `path` for reading: nothing is created, migrated, converted or
    /// backed up, and no statement of ours can write. `Ok(None)` when there is no file. A
    /// `write` later reopens it as `open` would (same checks, then the migrations).
    pub fn open_read_only(path: &Path) -> Result<Option<Store>> {
        if open::vet(path, false, false)? == Found::Missing {
            return Ok(None);
        }
        let err = |source| Error::Db {
            path: path.to_path_buf(),
            source,
        };
        // A WAL file from an earlier version: the dotfile VFS cannot read it, and the default
        // one would create `-wal` and `-shm` files. Read as immutable (the main file only)
        // when the WAL holds nothing; the next write converts it.
        let wal = open::is_wal(path);
        let vfs = if wal { "unix" } else { VFS };
        let conn = if wal {
            open::connect_immutable(path).map_err(err)?
        } else {
            open::connect(path, false, false, vfs).map_err(err)?
        };
        let mut store = Store::new(conn, path, true, Notes::default());
        let first = store.read(|c| {
            c.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })
        });
        match first {
            Err(Error::Db { source, .. })
                if source.sqlite_error_code() == Some(ErrorCode::ReadOnly) =>
            {
                // A hot journal left by a writer that was killed: only a connection that may
                // write can roll it back, which restores the file as it was before that
                // transaction. Statements of ours still cannot write (`query_only`).
                open::vet(path, true, false)?;
                let conn = open::connect(path, true, false, vfs).map_err(err)?;
                conn.execute_batch("PRAGMA query_only = ON").map_err(err)?;
                store.conn = conn;
                store.read(|c| {
                    c.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                        r.get::<_, i64>(0)
                    })
                })?;
            }
            r => {
                r?;
            }
        }
        Ok(Some(store))
    }

    fn new(conn: Connection, path: &Path, read_only: bool, notes: Notes) -> Store {
        Store {
            conn,
            path: path.to_path_buf(),
            recreated: None,
            read_only,
            dropped: Vec::new(),
            overlay: None,
            notes,
        }
    }

    /// On an error the notes come back, so a stale-lock warning is not lost.
    fn connect(
        path: &Path,
        create: bool,
        exists: Option<&dyn Fn(&str) -> bool>,
        notes: Notes,
    ) -> std::result::Result<Store, (Error, Notes)> {
        let conn = match open::connect(path, true, create, VFS) {
            Ok(c) => c,
            Err(source) => {
                return Err((
                    Error::Db {
                        path: path.to_path_buf(),
                        source,
                    },
                    notes,
                ));
            }
        };
        let mut store = Store::new(conn, path, false, notes);
        let prepared = store
            .read(|c| {
                c.query_row("PRAGMA journal_mode = DELETE", [], |r| {
                    r.get::<_, String>(0)
                })
            })
            .and_then(|_| store.prepare_schema(exists));
        match prepared {
            Ok(()) => Ok(store),
            Err(e) => Err((e, store.notes)),
        }
    }

    fn prepare_schema(&mut self, exists: Option<&dyn Fn(&str) -> bool>) -> Result<()> {
        let (status, foreign) =
            self.read(|c| Ok((schema::inspect(c)?, schema::foreign_objects(c)?)))?;
        if status == Status::Ok && foreign.is_empty() {
            return Ok(());
        }
        let (dropped, wrong) = self.write(|tx| {
            let dropped = schema::drop_foreign_objects(tx)?;
            match schema::inspect(tx)? {
                Status::Ok => Ok((dropped, false)),
                Status::Missing(_) => schema::create(tx).map(|_| (dropped, false)),
                Status::Wrong(_) => Ok((dropped, true)),
            }
        })?;
        self.dropped = dropped;
        if wrong {
            self.rebuild(exists)?;
        }
        Ok(())
    }

    /// Copies the file aside, then replaces the tables in place in one transaction, carrying
    /// over the tags. In place rather than by renaming files, because other processes may have
    /// the database open: they see either the old tables or the new ones.
    fn rebuild(&mut self, exists: Option<&dyn Fn(&str) -> bool>) -> Result<()> {
        let backup = backup_path(&self.path);
        // SQLite creates the copy by name, following a link; created here first (empty, which
        // `VACUUM INTO` accepts) it is a file of ours, never a link planted at that name.
        drop(
            commandtree_safefs::create_new(&backup, &commandtree_safefs::Options::new()).map_err(
                |source| Error::Io {
                    source: commandtree_safefs::unprefixed(source, &backup),
                    path: backup.clone(),
                },
            )?,
        );
        let backup_str = backup.to_string_lossy().into_owned();
        if let Err(e) = open::retry(&self.path, &self.notes, || {
            self.conn.execute("VACUUM INTO ?1", [&backup_str])
        }) {
            let _ = std::fs::remove_file(&backup);
            return Err(self.err(e));
        }
        // Off while the old tables are dropped (their constraints are unknown); the result is
        // checked with foreign_key_check before committing.
        self.conn
            .execute_batch("PRAGMA foreign_keys = OFF")
            .map_err(|e| self.err(e))?;
        let result = self.write(|tx| {
            let reason = match schema::inspect(tx)? {
                Status::Wrong(reason) => reason,
                // Another process rebuilt it meanwhile.
                _ => return Ok(None),
            };
            let wrong = schema::wrong_tables(tx)?;
            let carried = carry::read(tx, exists);
            carry::drop_tables(tx, &wrong)?;
            schema::create(tx)?;
            let n = carry::write(tx, &carried)?;
            let violations: i64 =
                tx.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                    r.get(0)
                })?;
            if violations > 0 {
                return Err(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY),
                    Some("carried-over rows break a foreign key".into()),
                ));
            }
            Ok(Some((reason, n)))
        });
        let on = self.conn.execute_batch("PRAGMA foreign_keys = ON");
        match result? {
            Some((reason, carried_tags)) => {
                self.recreated = Some(Recreated {
                    path: self.path.clone(),
                    backup,
                    reason,
                    carried_tags,
                })
            }
            None => {
                let _ = std::fs::remove_file(&backup);
            }
        }
        on.map_err(|e| self.err(e))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opened with `open_read_only` and not written since.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Set when opening found another structure and recreated the database; the front end
    /// tells the user (one line).
    pub fn recreated(&self) -> Option<&Recreated> {
        self.recreated.as_ref()
    }

    /// Triggers and views (`(type, name)`) that were not ours and were dropped when opening.
    pub fn dropped_objects(&self) -> &[(String, String)] {
        &self.dropped
    }

    /// Warnings gathered since the last call (a stale lock removed); the front end shows them.
    pub fn take_warnings(&self) -> Vec<Warning> {
        self.notes.take()
    }

    /// The connection, for this crate's own tests.
    #[cfg(test)]
    pub(crate) fn connection(&self) -> &Connection {
        &self.conn
    }

    fn err(&self, source: rusqlite::Error) -> Error {
        Error::Db {
            path: self.path.clone(),
            source,
        }
    }

    /// A read, retried while the database is busy.
    ///
    /// Transitional: the summary pipeline and search still pass SQL through here and `write`;
    /// new code uses the typed methods (`summaries`, `save_summary`, `embeddings`, ...).
    pub fn read<T>(&self, mut f: impl FnMut(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        open::retry(&self.path, &self.notes, || f(&self.conn)).map_err(|e| self.err(e))
    }

    /// A write transaction that holds the write lock from its first statement
    /// (`BEGIN IMMEDIATE`), so what it reads cannot change before it writes. Retried as a whole
    /// while the database is busy. Transitional, as `read`.
    pub fn write<T>(
        &mut self,
        mut f: impl FnMut(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T> {
        if self.read_only {
            self.reopen_for_writing()?;
        }
        let conn = &mut self.conn;
        let r = open::retry(&self.path, &self.notes, || {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let v = f(&tx)?;
            tx.commit()?;
            Ok(v)
        });
        r.map_err(|e| Error::Db {
            path: self.path.clone(),
            source: e,
        })
    }

    /// The first write on a store opened read-only: reopened with the checks and migrations of
    /// `open` (every tag carried over if the file has to be rebuilt), then the tag config's
    /// overlay is written, as a write-mode `attach` would have synced it.
    fn reopen_for_writing(&mut self) -> Result<()> {
        let err = |source| Error::Db {
            path: self.path.clone(),
            source,
        };
        if open::vet(&self.path, true, false)? == Found::Missing {
            return Err(Error::Io {
                path: self.path.clone(),
                source: std::io::ErrorKind::NotFound.into(),
            });
        }
        if open::is_wal(&self.path) {
            open::leave_wal(&self.path, &self.notes).map_err(err)?;
        }
        self.conn = open::connect(&self.path, true, false, VFS).map_err(err)?;
        self.read_only = false;
        self.read(|c| {
            c.query_row("PRAGMA journal_mode = DELETE", [], |r| {
                r.get::<_, String>(0)
            })
        })?;
        self.prepare_schema(None)?;
        if let Some(o) = self.overlay.take() {
            self.write(|tx| tagconfig::apply_overlay(tx, &o))?;
        }
        Ok(())
    }

    /// Whether the file has a table of that name (a database written by another tool or an
    /// older version may lack some).
    pub fn has_table(&self, name: &str) -> Result<bool> {
        self.read(|c| {
            c.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [name],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
        })
    }

    pub(crate) fn set_overlay(&mut self, overlay: tagconfig::Overlay) {
        self.overlay = Some(overlay).filter(|o| !o.is_empty());
    }

    /// `ensureCommandExists`.
    pub fn ensure_command_exists(&mut self, command_id: &str) -> Result<()> {
        self.write(|tx| ops::ensure_command(tx, command_id))
    }

    /// `addTagToCommand`: creates the command row and the tag as needed and appends the command
    /// to the tag's order. Returns false when it already had the tag. A hand-made assignment is
    /// the user's even if the tag config also matches: the config never takes it back.
    pub fn add_tag(&mut self, command_id: &str, tag: &str) -> Result<bool> {
        validate_tag_name(tag)?;
        self.write(|tx| {
            let added = ops::add_tag(tx, command_id, tag)?;
            tx.execute(
                "DELETE FROM config_tag_assignments
                 WHERE command_id = ?1 AND tag_id = (SELECT tag_id FROM tags WHERE tag_name = ?2)",
                (command_id, tag),
            )?;
            Ok(added)
        })
    }

    /// `removeTagFromCommand`. Any existing tag name is accepted, valid or not (the extension
    /// does not validate). Returns false when the command did not have the tag.
    pub fn remove_tag(&mut self, command_id: &str, tag: &str) -> Result<bool> {
        self.write(|tx| ops::remove_tag(tx, command_id, tag))
    }

    /// `getCommandIdsByTag`, in display order.
    pub fn command_ids_by_tag(&self, tag: &str) -> Result<Vec<String>> {
        let mut ids = self.read(|c| ops::command_ids_by_tag(c, tag))?;
        if let Some(o) = &self.overlay {
            ids.retain(|id| !o.removes(id, tag));
            for (id, _) in o.added().filter(|(_, t)| *t == tag) {
                if !ids.iter().any(|i| i == id) {
                    ids.push(id.to_string());
                }
            }
        }
        Ok(ids)
    }

    /// `getTagsForCommand`, by name.
    pub fn tags_for_command(&self, command_id: &str) -> Result<Vec<String>> {
        let mut tags = self.read(|c| ops::tags_for_command(c, command_id))?;
        if let Some(o) = &self.overlay {
            tags.retain(|t| !o.removes(command_id, t));
            tags.extend(
                o.added()
                    .filter(|(id, _)| *id == command_id)
                    .map(|(_, t)| t.to_string()),
            );
            tags.sort();
            tags.dedup();
        }
        Ok(tags)
    }

    /// `getAllTagNames`, by name; tags stay after their last command is untagged.
    pub fn all_tag_names(&self) -> Result<Vec<String>> {
        let mut names = self.read(ops::all_tag_names)?;
        if let Some(o) = &self.overlay {
            names.extend(o.added().map(|(_, t)| t.to_string()));
            names.sort();
            names.dedup();
        }
        Ok(names)
    }

    /// Adds many tag assignments in one transaction (each as `add_tag`); returns how many were
    /// new.
    pub fn add_tags(&mut self, assignments: &[(&str, &str)]) -> Result<usize> {
        for (_, tag) in assignments {
            validate_tag_name(tag)?;
        }
        self.write(|tx| {
            let mut added = 0;
            for (id, tag) in assignments {
                if ops::add_tag(tx, id, tag)? {
                    added += 1;
                }
                tx.execute(
                    "DELETE FROM config_tag_assignments
                     WHERE command_id = ?1 AND tag_id = (SELECT tag_id FROM tags WHERE tag_name = ?2)",
                    (id, tag),
                )?;
            }
            Ok(added)
        })
    }

    /// `updateTagDisplayOrder`: the commands of `order` first, in that order, then the tag's
    /// others as they were; display orders become 0..n-1.
    pub fn update_tag_display_order(&mut self, tag: &str, order: &[&str]) -> Result<()> {
        self.write(|tx| {
            let current = ops::command_ids_by_tag(tx, tag)?;
            ops::write_order(tx, tag, &merged_order(&current, order))
        })
    }

    /// Moves `command_id` to `index` (0-based) among the tag's commands that `visible` accepts
    /// (the ones a front end shows; others keep their relative order after them), and rewrites
    /// the display orders to 0..n-1. Returns the new index, or `None` when the command does not
    /// have the tag. Done in one transaction, so a concurrent star is not lost.
    pub fn move_in_tag(
        &mut self,
        tag: &str,
        command_id: &str,
        index: usize,
        visible: &dyn Fn(&str) -> bool,
    ) -> Result<Option<usize>> {
        self.write(|tx| {
            let current = ops::command_ids_by_tag(tx, tag)?;
            let (mut shown, hidden): (Vec<String>, Vec<String>) =
                current.into_iter().partition(|id| visible(id));
            let Some(from) = shown.iter().position(|id| id == command_id) else {
                return Ok(None);
            };
            let id = shown.remove(from);
            let to = index.min(shown.len());
            shown.insert(to, id);
            shown.extend(hidden);
            ops::write_order(tx, tag, &shown)?;
            Ok(Some(to))
        })
    }

    /// Stars a command: adds it at the end of Quick Launch.
    pub fn star(&mut self, command_id: &str) -> Result<bool> {
        self.add_tag(command_id, QUICK_TAG)
    }

    pub fn unstar(&mut self, command_id: &str) -> Result<bool> {
        self.remove_tag(command_id, QUICK_TAG)
    }

    /// Quick Launch ids in display order.
    pub fn quick(&self) -> Result<Vec<String>> {
        self.command_ids_by_tag(QUICK_TAG)
    }

    /// Every (command id, tag) assignment, by tag name then display order.
    pub fn assignments(&self) -> Result<Vec<(String, String)>> {
        let mut all: Vec<(String, String)> = self.read(|c| {
            let mut st = c.prepare(
                "SELECT ct.command_id, t.tag_name FROM command_tags ct JOIN tags t ON t.tag_id = ct.tag_id
                 ORDER BY t.tag_name, ct.display_order, ct.rowid",
            )?;
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect()
        })?;
        if let Some(o) = &self.overlay {
            all.retain(|(id, tag)| !o.removes(id, tag));
            for (id, tag) in o.added() {
                if !all.iter().any(|(i, t)| i == id && t == tag) {
                    all.push((id.to_string(), tag.to_string()));
                }
            }
            // Stable: within a tag, stored order first, then the config's additions.
            all.sort_by(|a, b| a.1.cmp(&b.1));
        }
        Ok(all)
    }

    /// Fills `tags` (by name), `summary` and `securityWarning` of `commands` from the database.
    pub fn enrich(&self, commands: &mut [CommandItem]) -> Result<()> {
        let mut tags: HashMap<String, Vec<String>> = HashMap::new();
        for (id, tag) in self.assignments()? {
            tags.entry(id).or_default().push(tag);
        }
        let notes: HashMap<String, (String, Option<String>)> = self.read(|c| {
            let mut st = c.prepare(
                "SELECT command_id, summary, security_warning FROM commands
                 WHERE summary <> '' OR coalesce(security_warning, '') <> ''",
            )?;
            st.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?
                .collect()
        })?;
        for c in commands {
            let mut t = tags.get(&c.id).cloned().unwrap_or_default();
            t.sort();
            c.tags = t;
            if let Some((summary, warning)) = notes.get(&c.id) {
                c.summary = non_empty(summary);
                // The extension writes this column too; its placeholders are no warning.
                c.security_warning = warning
                    .as_deref()
                    .and_then(commandtree_risk::normalise_warning);
            }
        }
        Ok(())
    }

    /// Rows of commands `exists` rejects, with their tags: what `prune` would delete.
    pub fn stale(&self, exists: &dyn Fn(&str) -> bool) -> Result<Vec<(String, Vec<String>)>> {
        let ids: Vec<String> = self.read(|c| {
            let mut st = c.prepare("SELECT command_id FROM commands ORDER BY command_id")?;
            st.query_map([], |r| r.get::<_, Option<String>>(0))?
                .map(|r| r.map(Option::unwrap_or_default))
                .collect()
        })?;
        let mut out = Vec::new();
        for id in ids.into_iter().filter(|id| !exists(id)) {
            let tags = self.tags_for_command(&id)?;
            out.push((id, tags));
        }
        Ok(out)
    }

    /// Deletes the rows of `ids` (their tag assignments go with them, by cascade). Returns how
    /// many rows were deleted.
    pub fn delete_commands(&mut self, ids: &[String]) -> Result<usize> {
        self.write(|tx| {
            let mut st = tx.prepare_cached("DELETE FROM commands WHERE command_id = ?1")?;
            let mut n = 0;
            for id in ids {
                n += st.execute([id])?;
            }
            Ok(n)
        })
    }

    pub fn counts(&self) -> Result<Counts> {
        self.read(counts)
    }
}

fn counts(c: &Connection) -> rusqlite::Result<Counts> {
    let n = |sql: &str| {
        c.query_row(sql, [], |r| r.get::<_, i64>(0))
            .map(|v| v as u64)
    };
    Ok(Counts {
        commands: n("SELECT count(*) FROM commands")?,
        tags: n("SELECT count(*) FROM tags")?,
        assignments: n("SELECT count(*) FROM command_tags")?,
        summaries: n("SELECT count(*) FROM commands WHERE summary <> ''")?,
    })
}

fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// `{db}.bak-<UTC timestamp>`, with a counter when that name is taken.
fn backup_path(db: &Path) -> PathBuf {
    let base = format!(
        "{}.bak-{}",
        db.display(),
        time::file_stamp(SystemTime::now())
    );
    let mut p = PathBuf::from(&base);
    let mut n = 1;
    // A link counts as taken, dangling or not: nothing is ever written through one.
    while std::fs::symlink_metadata(&p).is_ok() {
        n += 1;
        p = PathBuf::from(format!("{base}-{n}"));
    }
    p
}

/// Renames the file (and its journal files) to the backup name.
fn move_aside(db: &Path) -> Result<PathBuf> {
    let backup = backup_path(db);
    // Never over anything that appeared at the backup's name meanwhile.
    commandtree_safefs::rename_new(db, &backup).map_err(|source| Error::Io {
        path: db.to_path_buf(),
        source: commandtree_safefs::unprefixed(source, db),
    })?;
    for suffix in ["-journal", "-wal", "-shm"] {
        let side = PathBuf::from(format!("{}{suffix}", db.display()));
        if side.exists() {
            let _ = commandtree_safefs::rename_new(
                &side,
                Path::new(&format!("{}{suffix}", backup.display())),
            );
        }
    }
    Ok(backup)
}

/// One line of `ct db check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
}

#[derive(Debug, Clone)]
pub struct CheckReport {
    pub path: PathBuf,
    pub checks: Vec<Check>,
    pub counts: Option<Counts>,
}

impl CheckReport {
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }
}

/// Checks the file at `path` without changing it (no schema creation, no repair): structure,
/// integrity and foreign keys. `Ok(None)` when there is no file.
pub fn check(path: &Path) -> Result<Option<CheckReport>> {
    let Some(store) = Store::open_read_only(path)? else {
        return Ok(None);
    };
    let conn = &store.conn;
    let mut checks = Vec::new();
    let fail = |name, e: rusqlite::Error| Check {
        name,
        ok: false,
        detail: e.to_string(),
    };
    let own: Vec<&str> = schema::TABLES
        .iter()
        .filter(|t| !t.seed)
        .map(|t| t.name)
        .collect();
    checks.push(
        match open::retry(path, &store.notes, || schema::inspect(conn)) {
            Ok(Status::Ok) => Check {
                name: "schema",
                ok: true,
                detail: format!(
                    "the three tables of the spec, exactly, plus {}",
                    own.join(", ")
                ),
            },
            // Independent tables of ours are created by the first write that needs them.
            Ok(Status::Missing(t))
                if t.iter()
                    .all(|n| schema::TABLES.iter().any(|s| s.name == *n && !s.linked)) =>
            {
                Check {
                    name: "schema",
                    ok: true,
                    detail: format!(
                        "the three tables of the spec, exactly; {} not created yet",
                        t.join(", ")
                    ),
                }
            }
            Ok(Status::Missing(t)) => Check {
                name: "schema",
                ok: false,
                detail: format!("missing table(s): {}", t.join(", ")),
            },
            Ok(Status::Wrong(reason)) => Check {
                name: "schema",
                ok: false,
                detail: reason,
            },
            Err(e) => fail("schema", e),
        },
    );
    checks.push(
        match open::retry(path, &store.notes, || {
            let mut st = conn.prepare("PRAGMA integrity_check")?;
            st.query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<_>>>()
        }) {
            Ok(lines) if lines == ["ok"] => Check {
                name: "integrity",
                ok: true,
                detail: "ok".into(),
            },
            Ok(lines) => Check {
                name: "integrity",
                ok: false,
                detail: lines.join("; "),
            },
            Err(e) => fail("integrity", e),
        },
    );
    checks.push(
        match open::retry(path, &store.notes, || {
            let mut st = conn.prepare("PRAGMA foreign_key_check")?;
            st.query_map([], |r| {
                Ok(format!(
                    "{} row {} -> {}",
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<i64>>(1)?
                        .map(|v| v.to_string())
                        .unwrap_or_default(),
                    r.get::<_, String>(2)?
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        }) {
            Ok(v) if v.is_empty() => Check {
                name: "foreign keys",
                ok: true,
                detail: "no orphaned rows".into(),
            },
            Ok(v) => Check {
                name: "foreign keys",
                ok: false,
                detail: format!("{} orphaned row(s): {}", v.len(), v.join(", ")),
            },
            Err(e) => fail("foreign keys", e),
        },
    );
    checks.push(
        match open::retry(path, &store.notes, || schema::foreign_objects(conn)) {
            Ok(found) if found.is_empty() => Check {
                name: "triggers",
                ok: true,
                detail: "no triggers or views".into(),
            },
            Ok(found) => Check {
                name: "triggers",
                ok: false,
                detail: format!(
                    "not CommandTree's, dropped by the next write: {}",
                    found
                        .iter()
                        .map(|(kind, name)| format!("{kind} `{name}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            Err(e) => fail("triggers", e),
        },
    );
    let counts = if checks[0].ok {
        open::retry(path, &store.notes, || counts(conn)).ok()
    } else {
        None
    };
    Ok(Some(CheckReport {
        path: path.to_path_buf(),
        checks,
        counts,
    }))
}

#[cfg(test)]
mod tests;
