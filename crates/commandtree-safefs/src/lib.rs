//! The one way CommandTree writes a file. Every workspace is untrusted: a repository can commit
//! a symbolic link where the tool writes (`.mcp.json -> ~/.claude.json`, a linked `.claude/`
//! folder, a link at a temporary name it can guess), or a FIFO that makes a plain `open` wait
//! for ever. So every write here:
//!
//! - looks at the target with `lstat` (never by opening it) and refuses a symbolic link or
//!   anything that is not a regular file (a FIFO, a folder, a device, a socket), with an error
//!   that names the path and what it is;
//! - under a base folder ([`Options::within`]: the workspace root), opens every folder between
//!   the base and the target without following a link (`openat` with `O_NOFOLLOW|O_DIRECTORY`
//!   on Unix), creating the missing ones, so a committed `.commandtree -> ~/.ssh` or a folder
//!   swapped for a link meanwhile is refused, not written through;
//! - writes a whole file into a new temporary file in the target's folder, whose name is
//!   random from the OS (`getrandom`), created with `O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC` and
//!   the requested mode, then `fsync`s it, renames it over the target and `fsync`s the folder;
//!   the temporary file is removed on every error;
//! - appends (logs) with `O_NOFOLLOW|O_NONBLOCK`, so neither a link nor a FIFO is opened.
//!
//! Outside a base (the user's own folders: the cache, `~/.config/commandtree`), the folders on
//! the way are the user's, followed as they are (a dotfile manager's links keep working); the
//! target itself is still checked the same way.

use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

#[cfg(any(not(unix), test))]
mod portable;
#[cfg(unix)]
mod unix;

#[cfg(not(unix))]
use portable as sys;
#[cfg(unix)]
use unix as sys;

/// How a write is done: where it must stay, the mode of new files and folders.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    base: Option<&'a Path>,
    mode: u32,
    dir_mode: u32,
    keep_mode: bool,
    create_parents: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            base: None,
            mode: 0o666,
            dir_mode: 0o777,
            keep_mode: true,
            create_parents: true,
        }
    }
}

impl<'a> Options<'a> {
    /// Files as `File::create` makes them (0666 less the umask), folders as `create_dir_all`;
    /// a replaced file keeps its permissions; missing folders are created.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only the user can read: new files 0600, new folders 0700, and a replaced file gets 0600
    /// whatever it had.
    pub fn private() -> Self {
        Options {
            mode: 0o600,
            dir_mode: 0o700,
            keep_mode: false,
            ..Self::default()
        }
    }

    /// The target must lie under `base` (lexically, without `..`), and no folder between
    /// `base` and the target may be a symbolic link. `base` itself is taken as it is.
    pub fn within(mut self, base: &'a Path) -> Self {
        self.base = Some(base);
        self
    }

    /// The permission bits of a new file (the umask still applies).
    pub fn mode(mut self, mode: u32) -> Self {
        self.mode = mode;
        self
    }

    /// Whether a replaced file keeps its permission bits (default yes, except [`private`]).
    ///
    /// [`private`]: Options::private
    pub fn keep_mode(mut self, keep: bool) -> Self {
        self.keep_mode = keep;
        self
    }

    /// Whether missing folders on the way are created (default yes).
    pub fn create_parents(mut self, create: bool) -> Self {
        self.create_parents = create;
        self
    }
}

/// Writes `bytes` to `target` whole, replacing a regular file there (see the crate docs).
pub fn write(target: &Path, bytes: &[u8], o: &Options<'_>) -> io::Result<()> {
    let mut p = Pending::replace(target, o)?;
    io::Write::write_all(&mut p, bytes)?;
    p.commit()
}

/// Writes `bytes` to `target` whole, only if nothing is there: `AlreadyExists` otherwise, also
/// when a file appears there meanwhile (it is never replaced).
pub fn write_new(target: &Path, bytes: &[u8], o: &Options<'_>) -> io::Result<()> {
    let mut p = Pending::create_new(target, o)?;
    io::Write::write_all(&mut p, bytes)?;
    p.commit()
}

/// A file being written beside its target, put in place by [`Pending::commit`]. Dropped
/// without a commit, the temporary file is removed and the target is left as it was.
pub struct Pending(sys::Pending);

impl Pending {
    /// Starts a write that replaces `target` (a regular file or nothing) when committed.
    pub fn replace(target: &Path, o: &Options<'_>) -> io::Result<Pending> {
        sys::Pending::new(target, o, true).map(Pending)
    }

    /// Starts a write that creates `target` when committed, and fails if anything is there.
    pub fn create_new(target: &Path, o: &Options<'_>) -> io::Result<Pending> {
        sys::Pending::new(target, o, false).map(Pending)
    }

    /// `fsync`s the file, renames it over the target and `fsync`s the folder.
    pub fn commit(self) -> io::Result<()> {
        self.0.commit()
    }

    /// The temporary file's path (for messages and tests).
    pub fn temp_path(&self) -> PathBuf {
        self.0.temp_path()
    }
}

impl io::Write for Pending {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.file().write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.file().flush()
    }
}

/// Creates `target` as a new file and returns it open for writing, when a whole-file rename is
/// not wanted (a log another process appends to, a wrapper script): `O_CREAT|O_EXCL|O_NOFOLLOW`,
/// so whatever stands there (a link, a FIFO, an old file) makes it fail with `AlreadyExists`.
pub fn create_new(target: &Path, o: &Options<'_>) -> io::Result<File> {
    sys::create_new(target, o)
}

/// Opens `target` for appending, creating it when missing. A link, a FIFO or any other
/// non-regular file is refused without waiting (`O_NOFOLLOW|O_NONBLOCK`), and so is a file
/// with other hard links (appending would change them too).
pub fn append(target: &Path, o: &Options<'_>) -> io::Result<File> {
    sys::append(target, o)
}

/// Creates `dir` and its missing parents (mode per [`Options`]); under a base, no folder on the
/// way may be a link. An existing folder is fine.
pub fn create_dir_all(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    sys::create_dir_all(dir, o)
}

/// Creates `dir` itself (its parents per [`Options::create_parents`]): `AlreadyExists` when
/// something is there.
pub fn create_dir(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    sys::create_dir(dir, o)
}

/// As [`create_dir_all`], and the folder itself (new or not) is made 0700: for folders that
/// hold scripts and records only this user may change.
pub fn create_private_dir(dir: &Path, base: Option<&Path>) -> io::Result<()> {
    let mut o = Options::private();
    o.base = base;
    sys::create_private_dir(dir, &o)
}

/// The contents of `path` when it is a regular file of at most `limit` bytes, `None` when
/// nothing is there. A link or a FIFO is refused as for a write, and never opened in a way that
/// waits. For a read that precedes a write of the same file.
pub fn read_existing(path: &Path, o: &Options<'_>, limit: u64) -> io::Result<Option<Vec<u8>>> {
    sys::read_existing(path, o, limit)
}

/// Renames `from` to `to` (in the same folder tree), failing with `AlreadyExists` rather than
/// replacing anything at `to`.
pub fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    sys::rename_new(from, to)
}

/// The errors here start with the path they are about. For a caller whose own messages put
/// `path` first already: the same error without that prefix (other paths are kept).
pub fn unprefixed(e: io::Error, path: &Path) -> io::Error {
    let msg = e.to_string();
    match msg.strip_prefix(&format!("{}: ", path.display())) {
        Some(rest) => io::Error::new(e.kind(), rest.to_string()),
        None => e,
    }
}

// ---- shared by both implementations ----

/// How many random names are tried before giving up (a collision is already unlikely once).
const ATTEMPTS: u32 = 16;

/// A fresh temporary name: `.ct-<32 hex digits>.tmp`, the digits from the OS's random source.
fn temp_name() -> io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| io::Error::other(format!("no random numbers from the OS: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!(".ct-{hex}.tmp"))
}

fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

fn refused(path: &Path, why: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: {why}", path.display()),
    )
}

fn link_target(path: &Path) -> io::Error {
    refused(
        path,
        "is a symbolic link; CommandTree never writes through one (replace it with a regular file to have it written)"
            .into(),
    )
}

fn link_on_the_way(dir: &Path, base: &Path) -> io::Error {
    refused(
        dir,
        format!(
            "is a symbolic link; CommandTree never writes through a linked folder under {} (make it a real folder to have files written there)",
            base.display()
        ),
    )
}

/// What a non-regular file is, in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Folder,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Other,
}

fn not_regular(path: &Path, kind: Kind) -> io::Error {
    let what = match kind {
        Kind::Folder => "a folder",
        Kind::Fifo => "a named pipe (FIFO)",
        Kind::Socket => "a socket",
        Kind::CharDevice => "a character device",
        Kind::BlockDevice => "a block device",
        Kind::Other => "something other than a file",
    };
    refused(
        path,
        format!("is {what}, not a regular file; CommandTree leaves it alone"),
    )
}

fn not_a_folder(dir: &Path) -> io::Error {
    refused(dir, "is not a folder".into())
}

fn hard_linked(path: &Path) -> io::Error {
    refused(
        path,
        "has other hard links (appending would change them too); CommandTree leaves it alone"
            .into(),
    )
}

fn too_large(path: &Path, limit: u64) -> io::Error {
    refused(path, format!("is larger than {limit} bytes"))
}

fn exists(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{}: already exists; not replaced", path.display()),
    )
}

/// `target`'s folder and file name: the folder `.` when there is none.
fn split(target: &Path) -> io::Result<(&Path, &std::ffi::OsStr)> {
    let name = target
        .file_name()
        .ok_or_else(|| refused(target, "names no file".into()))?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

/// The names of the folders from `base` down to `dir` (which must lie under it, without `..`).
fn below<'p>(dir: &'p Path, base: &Path) -> io::Result<Vec<&'p std::ffi::OsStr>> {
    let rel = dir.strip_prefix(base).map_err(|_| {
        refused(
            dir,
            format!(
                "is outside {}; CommandTree writes only inside it",
                base.display()
            ),
        )
    })?;
    rel.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::Normal(n) => Ok(n),
            _ => Err(refused(
                dir,
                "has `..` in it; CommandTree writes only to plain paths".into(),
            )),
        })
        .collect()
}

#[cfg(all(test, unix))]
mod tests;
