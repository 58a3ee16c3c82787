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
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(ReadError::Binary);
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    if !text.contains('\r') {
        return Ok(text.into_owned());
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
    Ok(out)
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
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = opts.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    Ok((file, meta))
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
        }
    }

    fn note(&self, path: &Path) {
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
        self.dirs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(path.to_path_buf());
        self.inner.list_dir(path)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
