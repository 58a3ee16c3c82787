//! Read-only view of the file system for parsers. Parsers never touch `std::fs` directly, so the
//! same parser runs on disk (`RealFs`) and on in-memory fixtures and fuzz input (`MemFs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub trait Fs: Sync {
    /// The file's text (BOM dropped, CRLF turned into LF), `None` when absent, unreadable,
    /// binary or over the size limit.
    fn read(&self, path: &Path) -> Option<String>;
    fn exists(&self, path: &Path) -> bool;
    fn is_file(&self, path: &Path) -> bool;
    fn is_executable(&self, path: &Path) -> bool;
    /// The entries of a folder, sorted; empty when it is absent.
    fn list_dir(&self, path: &Path) -> Vec<PathBuf>;
}

/// Files larger than this are skipped with a warning: no task file is that big, and reading a
/// stray database dump would cost time and memory.
pub const MAX_FILE_SIZE: u64 = 1024 * 1024;

/// Why a file's content cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    TooLarge(u64),
    Binary,
    /// A FIFO, socket, device or folder named like a task file.
    NotRegular,
    /// A symlink whose real path is outside the workspace root: never read.
    OutsideRoot,
    Io(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::TooLarge(n) => write!(f, "skipped: {n} bytes is over the 1 MiB limit"),
            ReadError::Binary => write!(f, "skipped: binary file"),
            ReadError::NotRegular => write!(f, "skipped: not a regular file"),
            ReadError::OutsideRoot => write!(
                f,
                "skipped: a link to a file outside the workspace (never read)"
            ),
            ReadError::Io(e) => write!(f, "unreadable: {e}"),
        }
    }
}

/// Turns raw bytes into parser text: rejects binary content, drops a UTF-8 BOM, turns CRLF and
/// lone CR line ends into LF (so every parser sees one line-end convention and line numbers stay
/// right), and replaces invalid UTF-8 rather than failing.
pub fn decode(bytes: &[u8]) -> Result<String, ReadError> {
    decode_borrowed(bytes).map(std::borrow::Cow::into_owned)
}

/// [`decode`] without a copy when the bytes are already parser text (valid UTF-8, no BOM, no
/// CR): the common case, so a file read into a reused buffer is parsed where it lies.
pub fn decode_borrowed(bytes: &[u8]) -> Result<std::borrow::Cow<'_, str>, ReadError> {
    use std::borrow::Cow;
    if is_binary(bytes) {
        return Err(ReadError::Binary);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    if memchr::memchr(b'\r', text.as_bytes()).is_none() {
        return Ok(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() == Some(&'\n') {
                chars.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    Ok(Cow::Owned(out))
}

/// A NUL in the first 8 KiB: how `decode` tells binary content from text.
pub fn is_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some()
}

pub fn read_file(path: &Path) -> Result<String, ReadError> {
    read_file_and_mode(path).map(|(text, _)| text)
}

/// Reads a file for parsing (size limit, binary check, `decode`) and tells whether it has an
/// execute bit, from the one open file handle.
pub fn read_file_and_mode(path: &Path) -> Result<(String, bool), ReadError> {
    use std::io::Read;
    let io = |e: std::io::Error| ReadError::Io(e.kind().to_string());
    let (file, meta) = open_regular(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidInput {
            ReadError::NotRegular
        } else {
            io(e)
        }
    })?;
    if meta.len() > MAX_FILE_SIZE {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok((decode(&bytes)?, mode_executable(&meta)))
}

/// A file [`read_into`] read: its handle, kept for [`Opened::check`].
pub struct Opened {
    file: std::fs::File,
    meta: Option<std::fs::Metadata>,
}

impl Opened {
    /// The handle's type checked (a regular file, else `NotRegular`) and its execute bit. Call
    /// it before the bytes are used for anything but a prefilter.
    pub fn check(&self) -> Result<bool, ReadError> {
        let meta = match &self.meta {
            Some(m) => m.clone(),
            None => self
                .file
                .metadata()
                .map_err(|e| ReadError::Io(e.kind().to_string()))?,
        };
        if !meta.is_file() {
            return Err(ReadError::NotRegular);
        }
        Ok(mode_executable(&meta))
    }
}

/// Reads a file for parsing into `buf` (cleared first, its capacity reused), with the size
/// limit; the bytes are not decoded. `known_regular`: the caller's directory entry already said
/// "regular file", so neither a `stat` before the open nor an `fstat` after it is made here:
/// the open and the read never block (`O_NONBLOCK`: a FIFO or device swapped in after the
/// directory was read gives what it has, at most the size limit), and [`Opened::check`]
/// re-checks the type on the handle before the bytes are parsed. Most files a walk reads are
/// rejected by a prefilter and never need that second system call.
pub fn read_into(path: &Path, known_regular: bool, buf: &mut Vec<u8>) -> Result<Opened, ReadError> {
    use std::io::Read;
    let io = |e: std::io::Error| ReadError::Io(e.kind().to_string());
    let opened = if known_regular {
        open_nonblocking(path).map(|f| Opened {
            file: f,
            meta: None,
        })
    } else {
        open_regular(path).map(|(file, meta)| Opened {
            file,
            meta: Some(meta),
        })
    };
    let opened = opened.map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidInput {
            ReadError::NotRegular
        } else {
            io(e)
        }
    })?;
    if let Some(m) = &opened.meta {
        if m.len() > MAX_FILE_SIZE {
            return Err(ReadError::TooLarge(m.len()));
        }
        buf.reserve(m.len() as usize + 1);
    }
    buf.clear();
    // One byte over the limit, so a file over it is seen without reading it whole.
    (&opened.file)
        .take(MAX_FILE_SIZE + 1)
        .read_to_end(buf)
        .map_err(io)?;
    if buf.len() as u64 > MAX_FILE_SIZE {
        let size = opened.file.metadata().map_or(buf.len() as u64, |m| m.len());
        return Err(ReadError::TooLarge(size));
    }
    Ok(opened)
}

/// Opens `path` for reading only when it is a regular file. A FIFO, socket or device named like
/// a task file (`build.sh`, `package.json`) would block a plain `open` or `read` forever, so the
/// type is checked before opening, the open does not block (a FIFO swapped in after the check
/// opens at once instead of waiting for a writer), and the type is checked again on the handle.
pub fn open_regular(path: &Path) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let not_regular = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (skipped)",
        )
    };
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    open_regular_unchecked(path)
}

/// The open and the check on the handle of [`open_regular`], after its `stat`.
fn open_regular_unchecked(path: &Path) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (skipped)",
        ));
    }
    Ok((file, meta))
}

/// Opens for reading without ever blocking: no wait for a FIFO's writer, no controlling
/// terminal taken.
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    opts.open(path)
}

#[cfg(unix)]
fn mode_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn mode_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

pub struct RealFs;

impl Fs for RealFs {
    fn read(&self, path: &Path) -> Option<String> {
        read_file(path).ok()
    }
    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }
    fn is_executable(&self, path: &Path) -> bool {
        is_executable_path(path)
    }
    fn list_dir(&self, path: &Path) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(path)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.sort();
        v
    }
}

pub fn is_executable_path(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| mode_executable(&m))
}

/// Whether the real path of `path` (symlinks resolved) lies under `root`, itself a real path.
/// A missing file is not inside.
pub fn real_path_inside(root: &Path, path: &Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|real| real.starts_with(root))
}

/// The `Fs` a parser gets during discovery. It records every other path the parser asks about
/// (read, checked or listed), so a change to any of them re-parses the file that asked: an
/// include, a lock file choosing the npm runner, a Cargo workspace member. Parsers need not
/// declare what they include. With a `root`, it also refuses to read a file whose real path is
/// outside it (a symlinked `Taskfile` include pointing at `~/.aws/credentials`).
pub struct RecordingFs<'a> {
    inner: &'a dyn Fs,
    root: Option<&'a Path>,
    paths: std::sync::Mutex<Vec<PathBuf>>,
    dirs: std::sync::Mutex<Vec<PathBuf>>,
    record: bool,
}

/// What a parser looked at besides its own file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Dependencies {
    /// Files read or asked about (whether or not they exist: creating one matters too).
    pub paths: Vec<PathBuf>,
    /// Folders listed: adding or removing an entry matters.
    pub dirs: Vec<PathBuf>,
}

impl<'a> RecordingFs<'a> {
    /// `root` (a real path) guards reads; `None` for in-memory trees.
    pub fn new(inner: &'a dyn Fs, root: Option<&'a Path>) -> Self {
        RecordingFs {
            inner,
            root,
            paths: Default::default(),
            dirs: Default::default(),
            record: true,
        }
    }

    /// The guard alone, recording nothing: a one-off discovery keeps no dependencies.
    pub fn guard(inner: &'a dyn Fs, root: &'a Path) -> Self {
        RecordingFs {
            record: false,
            ..Self::new(inner, Some(root))
        }
    }

    fn note(&self, path: &Path) {
        if !self.record {
            return;
        }
        let mut v = self.paths.lock().unwrap_or_else(|e| e.into_inner());
        if !v.iter().any(|p| p == path) {
            v.push(path.to_path_buf());
        }
    }

    /// What was recorded, sorted and without repeats; `own` (the parsed file) left out.
    pub fn into_dependencies(self, own: &Path) -> Dependencies {
        let finish = |m: std::sync::Mutex<Vec<PathBuf>>| {
            let mut v = m.into_inner().unwrap_or_else(|e| e.into_inner());
            v.retain(|p| p != own);
            v.sort();
            v.dedup();
            v
        };
        Dependencies {
            paths: finish(self.paths),
            dirs: finish(self.dirs),
        }
    }
}

impl Fs for RecordingFs<'_> {
    fn read(&self, path: &Path) -> Option<String> {
        self.note(path);
        if let Some(root) = self.root
            && !real_path_inside(root, path)
        {
            return None;
        }
        self.inner.read(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.note(path);
        self.inner.exists(path)
    }
    fn is_file(&self, path: &Path) -> bool {
        self.note(path);
        self.inner.is_file(path)
    }
    fn is_executable(&self, path: &Path) -> bool {
        self.note(path);
        self.inner.is_executable(path)
    }
    fn list_dir(&self, path: &Path) -> Vec<PathBuf> {
        if self.record {
            self.dirs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(path.to_path_buf());
        }
        self.inner.list_dir(path)
    }
}

/// `path` relative to `root` (`""` for the root itself), as `Path::strip_prefix` gives it,
/// without its component-by-component comparison when `path` spells `root` out byte for byte
/// (every path a walk from `root` builds): it runs for every file of a big tree.
pub fn strip_root<'p>(path: &'p Path, root: &Path) -> Option<&'p Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let p = path.as_os_str().as_bytes();
        let r = root.as_os_str().as_bytes();
        if let Some(rest) = p.strip_prefix(r) {
            let rest = match rest {
                [] => Some(rest),
                [b'/', tail @ ..] if r.last() != Some(&b'/') => Some(tail),
                _ if r.last() == Some(&b'/') => Some(rest),
                _ => None,
            };
            // A plain tail (no `.`, `..`, empty or trailing components) is what strip_prefix
            // would return; anything else takes the slow path to stay exactly equal.
            if let Some(tail) = rest.filter(|t| plain_relative(t)) {
                return Some(Path::new(std::ffi::OsStr::from_bytes(tail)));
            }
        }
    }
    path.strip_prefix(root).ok()
}

/// Compares paths of one list as `Path`'s own order does (component by component), by their
/// bytes when every path allows it: a big listing sorts thousands of paths.
pub struct PathOrder<'a> {
    paths: &'a [PathBuf],
    bytewise: bool,
}

impl<'a> PathOrder<'a> {
    pub fn new(paths: &'a [PathBuf]) -> Self {
        #[cfg(unix)]
        let bytewise = paths.iter().all(|p| {
            let b = p.as_os_str().as_encoded_bytes();
            plain_relative(b.strip_prefix(b"/").unwrap_or(b))
        });
        #[cfg(not(unix))]
        let bytewise = false;
        PathOrder { paths, bytewise }
    }

    /// The order of `paths[a]` and `paths[b]`.
    pub fn cmp(&self, a: usize, b: usize) -> std::cmp::Ordering {
        let (pa, pb) = (&self.paths[a], &self.paths[b]);
        if !self.bytewise {
            return pa.cmp(pb);
        }
        // With no empty or `.` components and no trailing separator, comparing components is
        // comparing bytes with the separator below every other byte.
        let (x, y) = (
            pa.as_os_str().as_encoded_bytes(),
            pb.as_os_str().as_encoded_bytes(),
        );
        let n = x.iter().zip(y).take_while(|(p, q)| p == q).count();
        let rank = |c: Option<&u8>| c.map(|&c| if c == b'/' { 0 } else { u16::from(c) + 1 });
        rank(x.get(n)).cmp(&rank(y.get(n)))
    }
}

/// Relative, `/`-separated, with no empty, `.` or `..` component (or empty).
#[cfg(unix)]
pub(crate) fn plain_relative(tail: &[u8]) -> bool {
    tail.is_empty()
        || (tail.first() != Some(&b'/')
            && tail.last() != Some(&b'/')
            && tail
                .split(|&b| b == b'/')
                .all(|c| !c.is_empty() && c != b"." && c != b".."))
}

/// In-memory file tree for tests and fuzzing. Folders exist implicitly.
#[derive(Default, Clone)]
pub struct MemFs {
    files: BTreeMap<PathBuf, (String, bool)>,
}

impl MemFs {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn file(mut self, path: impl Into<PathBuf>, content: &str) -> Self {
        self.files.insert(path.into(), (content.to_string(), false));
        self
    }
    pub fn exe(mut self, path: impl Into<PathBuf>, content: &str) -> Self {
        self.files.insert(path.into(), (content.to_string(), true));
        self
    }
    pub fn paths(&self) -> impl Iterator<Item = &PathBuf> {
        self.files.keys()
    }
}

impl Fs for MemFs {
    fn read(&self, path: &Path) -> Option<String> {
        self.files
            .get(path)
            .and_then(|(c, _)| decode(c.as_bytes()).ok())
    }
    fn exists(&self, path: &Path) -> bool {
        self.files.contains_key(path) || self.files.keys().any(|k| k.starts_with(path))
    }
    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }
    fn is_executable(&self, path: &Path) -> bool {
        self.files.get(path).is_some_and(|(_, x)| *x)
    }
    fn list_dir(&self, path: &Path) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .files
            .keys()
            .filter_map(|k| {
                let rel = k.strip_prefix(path).ok()?;
                let first = rel.components().next()?;
                Some(path.join(first))
            })
            .collect();
        out.dedup();
        out
    }
}

/// `path` with `.` dropped and `..` folded into its parent, without asking the file system
/// (so a link is not followed and a missing path is fine).
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATHS: &[&str] = &[
        "/w",
        "/w/",
        "/w/a",
        "/w/a/",
        "/w/a/b",
        "/w/a-b",
        "/w/a b",
        "/w/a.b",
        "/w/a/./b",
        "/w//a",
        "/w/ab",
        "/wa",
        "/w/../x",
        "/w/a/..",
        "w",
        "w/a",
        "./w/a",
        "/",
        "/x/w/a",
        "/w/a\\b",
        "/w/A",
        "/w/a/b/c d/e",
    ];

    #[test]
    fn strip_root_is_strip_prefix() {
        for root in ["/w", "/w/", "/", "w", "./w", "/w/a"] {
            for p in PATHS {
                let (p, r) = (Path::new(p), Path::new(root));
                assert_eq!(
                    strip_root(p, r),
                    p.strip_prefix(r).ok(),
                    "{p:?} under {r:?}"
                );
            }
        }
    }

    #[test]
    fn path_order_is_path_order() {
        let all: Vec<PathBuf> = PATHS.iter().map(PathBuf::from).collect();
        // Plain paths alone (compared bytewise) and all of them (compared as `Path` does).
        let plain: Vec<PathBuf> = [
            "/w/a", "/w/a-b", "/w/a/b", "/w/a b", "/w/ab", "/w/a.b", "/w/A",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        for paths in [&plain, &all] {
            let order = PathOrder::new(paths);
            for i in 0..paths.len() {
                for j in 0..paths.len() {
                    assert_eq!(
                        order.cmp(i, j),
                        paths[i].cmp(&paths[j]),
                        "{:?} {:?}",
                        paths[i],
                        paths[j]
                    );
                }
            }
        }
        assert!(PathOrder::new(&plain).bytewise);
    }

    #[test]
    fn decode_normalises() {
        assert_eq!(decode(b"\xEF\xBB\xBFa\r\nb\rc\n").unwrap(), "a\nb\nc\n");
        assert_eq!(decode(b"a\0b"), Err(ReadError::Binary));
        assert_eq!(decode(b"caf\xE9").unwrap(), "caf\u{FFFD}");
    }

    #[test]
    fn memfs_lists_children_once() {
        let fs = MemFs::new()
            .file("/w/a/x", "")
            .file("/w/a/y", "")
            .file("/w/b", "");
        assert_eq!(
            fs.list_dir(Path::new("/w")),
            vec![PathBuf::from("/w/a"), PathBuf::from("/w/b")]
        );
        assert!(fs.exists(Path::new("/w/a")));
        assert!(!fs.is_file(Path::new("/w/a")));
    }
}
