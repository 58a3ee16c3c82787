//! Getting a connection to the workspace database safely: which files may be used at all, the
//! locking shared with the VS Code extension, stale-lock recovery and the busy retries.
//!
//! The extension opens the same file with node-sqlite3-wasm, which locks by creating the
//! directory `<db>.lock` (for every lock level) and cannot open a database in WAL mode. SQLite's
//! built-in `unix-dotfile` VFS locks with that very directory, so every connection here uses
//! it, with the default rollback journal: then the two tools exclude each other instead of
//! writing at once.

use crate::{DB_DIR, Error, Result};
use commandtree_core::Warning;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::cell::RefCell;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// The VFS whose locks the extension honours (see the module comment).
pub const VFS: &str = "unix-dotfile";

/// How long one statement waits for another process's lock before SQLite gives up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Further attempts after a busy error, for the cases SQLite's busy handler does not cover (a
/// lock held through a whole timeout by a long transaction).
pub(crate) const BUSY_RETRIES: u32 = 5;
/// A lock still held after this long, by a lock directory at least this old, was left by a
/// killed process: the extension's rule, so both tools recover the same way.
pub const STALE_LOCK: Duration = Duration::from_secs(10);

/// Files next to the database that SQLite opens or creates by name.
const SIDECARS: [&str; 4] = [".lock", "-journal", "-wal", "-shm"];

pub(crate) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

pub(crate) fn is_unreadable_file(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    )
}

fn sidecar(db: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", db.display()))
}

pub fn lock_dir(db: &Path) -> PathBuf {
    sidecar(db, ".lock")
}

/// Where the lock recovery reports (a warning per removed lock), read by the front end.
#[derive(Default)]
pub(crate) struct Notes(RefCell<Vec<Warning>>);

impl Notes {
    pub(crate) fn push(&self, w: Warning) {
        self.0.borrow_mut().push(w);
    }
    pub(crate) fn take(&self) -> Vec<Warning> {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

/// Runs `f` again while the database is busy, backing off a little more each time. Once the
/// lock has been busy for `STALE_LOCK` and its directory is that old too, the directory is
/// removed (once per call) and noted.
pub(crate) fn retry<T>(
    db: &Path,
    notes: &Notes,
    mut f: impl FnMut() -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    let start = Instant::now();
    let mut attempt = 0;
    let mut recovered = false;
    loop {
        match f() {
            Err(e) if is_busy(&e) => {
                if !recovered && start.elapsed() >= STALE_LOCK {
                    recovered = true;
                    if let Some(w) = remove_stale_lock(db) {
                        notes.push(w);
                        continue;
                    }
                }
                if attempt >= BUSY_RETRIES {
                    return Err(e);
                }
                attempt += 1;
                std::thread::sleep(Duration::from_millis(25 << attempt));
            }
            r => return r,
        }
    }
}

/// Removes `<db>.lock` when it is a directory (never a link) last touched `STALE_LOCK` ago or
/// earlier. SQLite touches it at every lock change, so a live holder keeps it young.
fn remove_stale_lock(db: &Path) -> Option<Warning> {
    let lock = lock_dir(db);
    let m = fs::symlink_metadata(&lock).ok()?;
    if !m.is_dir() {
        return None;
    }
    let age = SystemTime::now()
        .duration_since(m.modified().ok()?)
        .unwrap_or_default();
    if age < STALE_LOCK {
        return None;
    }
    fs::remove_dir_all(&lock).ok()?;
    Some(Warning::new(
        &lock,
        None,
        format!(
            "removed a stale lock (held for {} s, left by a process that was killed)",
            age.as_secs()
        ),
    ))
}

/// What `vet` found at the database path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    Missing,
    File,
}

fn untrusted(path: &Path, reason: &str) -> Error {
    Error::Untrusted {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source: commandtree_safefs::unprefixed(source, path),
    }
}

/// The folder the database must stay inside: the workspace root for the usual
/// `{root}/.commandtree/commandtree.sqlite3`, else the database's own folder.
fn trust_root(db: &Path) -> PathBuf {
    let dir = db.parent().unwrap_or(Path::new("."));
    match (dir.file_name(), dir.parent()) {
        (Some(name), Some(root)) if name == DB_DIR => root.to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// Decides whether the file at `db` may be used as the workspace database, creating its folder
/// (with a `.gitignore`) when `create` and it is missing. A repository decides what its
/// `.commandtree/` holds, so: the folder and the file must be what they claim (a real folder, a
/// regular file, no symbolic links, nothing resolving outside the workspace), and so must the
/// files SQLite creates next to it by name, which would otherwise be written through.
pub(crate) fn vet(db: &Path, write: bool, create: bool) -> Result<Found> {
    let root = trust_root(db);
    let dir = db.parent().unwrap_or(Path::new("."));
    if create && !root.exists() {
        commandtree_safefs::create_dir_all(&root, &commandtree_safefs::Options::new())
            .map_err(io(&root))?;
    }
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !create {
                return Ok(Found::Missing);
            }
            create_dir(&root, dir)?;
        }
        Err(e) => return Err(io(dir)(e)),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(untrusted(dir, "is a symbolic link"));
        }
        Ok(m) if !m.is_dir() => return Err(untrusted(dir, "is not a folder")),
        Ok(_) => {}
    }
    let real_root = fs::canonicalize(&root).map_err(io(&root))?;
    let real_dir = fs::canonicalize(dir).map_err(io(dir))?;
    if !real_dir.starts_with(&real_root) {
        return Err(untrusted(dir, "resolves outside the workspace"));
    }
    for s in SIDECARS {
        let p = sidecar(db, s);
        if fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(untrusted(&p, "is a symbolic link"));
        }
    }
    match fs::symlink_metadata(db) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Found::Missing),
        Err(e) => Err(io(db)(e)),
        Ok(m) if m.file_type().is_symlink() => Err(untrusted(db, "is a symbolic link")),
        Ok(m) if !m.is_file() => Err(untrusted(db, "is not a regular file")),
        Ok(m) if write && hard_links(&m) > 1 => Err(untrusted(
            db,
            "has other hard links (writing would change them too)",
        )),
        Ok(_) => Ok(Found::File),
    }
}

#[cfg(unix)]
fn hard_links(m: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(m)
}

#[cfg(not(unix))]
fn hard_links(_: &fs::Metadata) -> u64 {
    1
}

/// What the store writes into `.commandtree/.gitignore` when it creates the folder: the
/// database and its side files, logs and models are this machine's, not the repository's
/// (`config.toml` stays shareable).
pub const GITIGNORE: &str = "# Written by CommandTree: this machine's state, not the repository's.
/commandtree.sqlite3
/commandtree.sqlite3-journal
/commandtree.sqlite3-wal
/commandtree.sqlite3-shm
/commandtree.sqlite3.lock/
/commandtree.sqlite3.bak-*
/logs/
/runs/
/models/
";

fn create_dir(root: &Path, dir: &Path) -> Result<()> {
    let o = commandtree_safefs::Options::new().within(root);
    match commandtree_safefs::create_dir(dir, &o) {
        Ok(()) => {}
        // Another process made it meanwhile; `vet`'s checks still run on what is there.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => return Err(io(dir)(e)),
    }
    let ignore = dir.join(".gitignore");
    match commandtree_safefs::write_new(&ignore, GITIGNORE.as_bytes(), &o) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(io(&ignore)(e)),
        _ => Ok(()),
    }
}

/// Creates `{root}/.commandtree/` (with its `.gitignore`) when missing and returns it, after
/// the same checks as the database's folder: for anything else the store's folder holds (run
/// logs, models).
pub fn ensure_dir(root: &Path) -> Result<PathBuf> {
    let db = crate::db_path(root);
    vet(&db, true, true)?;
    Ok(root.join(DB_DIR))
}

/// Whether the file's header says WAL (the file format versions at offsets 18 and 19 are 2).
pub(crate) fn is_wal(db: &Path) -> bool {
    let mut header = [0u8; 20];
    fs::File::open(db)
        .and_then(|mut f| f.read_exact(&mut header))
        .is_ok_and(|()| header.starts_with(b"SQLite format 3\0") && header[18] == 2)
}

/// Opens a connection. Our schema has no triggers or views, so both are switched off: a
/// trigger shipped in a repository's database can never run on our writes, and reads see only
/// tables. `trusted_schema` off keeps anything else in the schema (index expressions, CHECK
/// constraints) from calling functions with side effects.
pub(crate) fn connect(
    db: &Path,
    write: bool,
    create: bool,
    vfs: &str,
) -> rusqlite::Result<Connection> {
    let mut flags = OpenFlags::SQLITE_OPEN_NO_MUTEX;
    flags |= if write {
        OpenFlags::SQLITE_OPEN_READ_WRITE
    } else {
        OpenFlags::SQLITE_OPEN_READ_ONLY
    };
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags_and_vfs(db, flags, vfs)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_VIEW, false)?;
    // Off by default in SQLite and per connection: without it cascades silently stop working.
    conn.execute_batch("PRAGMA foreign_keys = ON")?;
    if !write {
        conn.execute_batch("PRAGMA query_only = ON")?;
    }
    Ok(conn)
}

/// Reads a WAL-mode file (an earlier version's) without creating its `-wal` and `-shm`
/// files: as immutable, from the main file alone. Refused while a `-wal` file holds
/// changes the main file does not have yet.
pub(crate) fn connect_immutable(db: &Path) -> rusqlite::Result<Connection> {
    if fs::metadata(sidecar(db, "-wal")).is_ok_and(|m| m.len() > 0) {
        return Err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some(
                "in WAL mode with changes not yet in the main file (an earlier version of ct is using it); the next write converts it"
                    .into(),
            ),
        ));
    }
    let mut uri = String::from("file:");
    for b in db.as_os_str().as_encoded_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(*b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri.push_str("?immutable=1");
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_VIEW, false)?;
    conn.execute_batch("PRAGMA query_only = ON")?;
    Ok(conn)
}

/// Switches a WAL database (written by an earlier version) back to the rollback journal the
/// extension can open. The `unix-dotfile` VFS cannot open WAL files, so this one connection
/// uses the default VFS; switching needs every other connection gone, hence the retries.
pub(crate) fn leave_wal(db: &Path, notes: &Notes) -> rusqlite::Result<()> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    retry(db, notes, || {
        conn.query_row("PRAGMA journal_mode = DELETE", [], |r| {
            r.get::<_, String>(0)
        })
    })?;
    Ok(())
}
