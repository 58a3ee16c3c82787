//! Problems from a run's output: the errors and warnings a compiler, linter, type checker or
//! interpreter printed, as data (`file`, `line`, `column`, `severity`, `message`).
//!
//! The common formats are read by [`builtin`]: GCC and Clang (`a.c:3:5: error: msg`), rustc and
//! cargo (`error[E0308]: msg` with its ` --> file:line:col` line, and panics), `tsc` (both the
//! `file(line,col): error TS…` and the `file:line:col - error TS…` forms; MSBuild's `error CS…`
//! too), ESLint (stylish, unix and compact), `go vet`/`go build`/`go test` and anything else
//! printing `file:line[:col]: message`, and Python tracebacks. Users add their own as data
//! (`[[problems.patterns]]` in `config.toml`, read by [`patterns`]): a regex with named groups,
//! or several regexes matching consecutive lines. A line on which a user pattern completes a
//! problem is not read by the built-in formats too.
//!
//! A file named in the output is taken relative to the run's working folder, shown relative to
//! the workspace root, and kept (marked `outside_root`) when it lies elsewhere; it is never read,
//! so nothing here follows a path a run printed. The parser is streaming ([`Parser::feed`]) and
//! reads bytes (output need not be UTF-8), so a log of any size is read in chunks.

mod builtin;
pub mod patterns;

use crate::runs;
use crate::{Error, Result};
use commandtree_core::{Warning, Workspace};
use commandtree_exec::history::Run;
use commandtree_store::Store;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

pub use patterns::Matcher;

/// How bad a problem is.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    /// A note (`note:` of GCC and Clang, `info`).
    Info,
    /// A suggestion (`help:`, `hint`).
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }

    /// The severity a tool's word means (any case): `error`, `fatal error`, `e`; `warning`,
    /// `warn`, `w`; `note`, `info`, `remark`, `i`; `help`, `hint`, `suggestion`.
    pub fn from_word(word: &str) -> Option<Severity> {
        let w = word.trim().to_ascii_lowercase();
        Some(match w.as_str() {
            "error" | "err" | "e" | "fatal" | "fatal error" | "failure" | "fail" => Severity::Error,
            "warning" | "warn" | "w" => Severity::Warning,
            "note" | "info" | "information" | "remark" | "i" => Severity::Info,
            "help" | "hint" | "suggestion" => Severity::Hint,
            _ => return None,
        })
    }
}

/// One problem a run printed.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problem {
    /// The file as shown: relative to the workspace root when inside it, else absolute.
    pub file: String,
    /// The file's absolute path (the run's folder joined with what it printed, `.` and `..`
    /// taken out; links are not resolved and the file need not exist).
    pub path: String,
    /// 1-based, as the tool printed it.
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    pub severity: Severity,
    pub message: String,
    /// The tool's code for it (`E0308`, `TS2322`, an ESLint rule, `-Wunused-variable`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The format that read it (`gcc`, `rustc`, `rust-panic`, `tsc`, `msbuild`, `eslint`,
    /// `go`, `plain`, `python`) or the name of the user's pattern.
    pub source: Cow<'static, str>,
    /// The file lies outside the workspace root.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub outside_root: bool,
    /// The 1-based line of the output it was read from (its last line when it spans several).
    pub output_line: u64,
}

/// What a format read, before its file is resolved.
#[derive(Debug, Clone)]
pub(crate) struct Found<'a> {
    pub file: Cow<'a, str>,
    pub line: u32,
    pub column: Option<u32>,
    pub severity: Severity,
    pub message: Cow<'a, str>,
    pub code: Option<Cow<'a, str>>,
    pub source: Cow<'static, str>,
}

/// Where a run's paths are taken from and shown against.
#[derive(Debug, Clone)]
pub struct Place {
    root: PathBuf,
    /// The root with its links resolved, when that differs (tools often print real paths).
    real_root: Option<PathBuf>,
    cwd: PathBuf,
}

impl Place {
    /// Paths relative to `cwd` (itself relative to `root` when not absolute), shown against
    /// `root`.
    pub fn new(root: &Path, cwd: &Path) -> Place {
        let root = normalise(root);
        let real_root = std::fs::canonicalize(&root).ok().filter(|r| *r != root);
        let cwd = normalise(&root.join(cwd));
        Place {
            root,
            real_root,
            cwd,
        }
    }

    /// `file` as shown, its absolute path, and whether it is outside the root.
    pub fn resolve(&self, file: &str) -> (String, String, bool) {
        let path = normalise(&self.cwd.join(file));
        let inside = std::iter::once(&self.root)
            .chain(self.real_root.as_ref())
            .find_map(|r| path.strip_prefix(r).ok());
        let abs = path.to_string_lossy().into_owned();
        match inside {
            Some(rel) if rel.as_os_str().is_empty() => (".".into(), abs, false),
            Some(rel) => (rel.to_string_lossy().into_owned(), abs, false),
            None => (abs.clone(), abs, true),
        }
    }
}

/// `p` with `.` and `..` taken out, without touching the disk.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Longest line read: a problem is never longer, and a log's megabyte-long line (minified code,
/// a progress bar redrawn with `\r`) is cut rather than kept whole.
const MAX_LINE: usize = 64 * 1024;

/// Reads problems from output given in pieces of any size.
pub struct Parser<'m> {
    matcher: &'m Matcher,
    builtin: builtin::State,
    user: Vec<patterns::Progress>,
    /// The start of a line whose end has not come yet.
    carry: Vec<u8>,
    /// A line without its escape sequences.
    plain: Vec<u8>,
    sink: Sink,
}

impl<'m> Parser<'m> {
    pub fn new(matcher: &'m Matcher, place: Place) -> Parser<'m> {
        Parser {
            user: matcher.progress(),
            matcher,
            builtin: builtin::State::default(),
            carry: Vec::new(),
            plain: Vec::new(),
            sink: Sink {
                place,
                line_no: 0,
                out: Vec::new(),
                seen: HashSet::new(),
                resolved: HashMap::new(),
            },
        }
    }

    /// Reads the next piece of output.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        if !self.carry.is_empty() {
            let Some(end) = memchr::memchr(b'\n', bytes) else {
                self.keep(bytes);
                return;
            };
            self.keep(&bytes[..end]);
            let line = std::mem::take(&mut self.carry);
            self.line(&line);
            self.carry = line;
            self.carry.clear();
            bytes = &bytes[end + 1..];
        }
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', bytes) {
            self.line(&bytes[start..end.min(start + MAX_LINE)]);
            start = end + 1;
        }
        self.keep(&bytes[start..]);
    }

    fn keep(&mut self, bytes: &[u8]) {
        let room = MAX_LINE.saturating_sub(self.carry.len());
        self.carry
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// The problems read, in the order of the output; an unfinished last line is read too.
    pub fn finish(mut self) -> Vec<Problem> {
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.line(&line);
        }
        self.sink.out
    }

    fn line(&mut self, raw: &[u8]) {
        self.sink.line_no += 1;
        let mut line = raw.strip_suffix(b"\r").unwrap_or(raw);
        // A line redrawn with `\r` (a progress bar, then the message) shows its last part.
        if let Some(cr) = memchr::memrchr(b'\r', line) {
            line = &line[cr + 1..];
        }
        if memchr::memchr(0x1b, line).is_some() {
            strip_escapes(line, &mut self.plain);
            line = &self.plain;
        }
        let mut taken = false;
        for (p, progress) in self.matcher.patterns().iter().zip(self.user.iter_mut()) {
            taken |= p.read(progress, line, &mut |f| self.sink.problem(f));
        }
        if taken {
            // The line was the user's problem: the built-in formats do not read it again.
            self.builtin.skip();
        } else if self.matcher.builtin() {
            self.builtin.line(line, &mut self.sink);
        }
    }
}

/// Where problems go once read: their files resolved (once per name), each kept once.
pub(crate) struct Sink {
    place: Place,
    /// The line being read, 1-based.
    line_no: u64,
    out: Vec<Problem>,
    /// Keys of the problems kept (see [`Fnv`]).
    seen: HashSet<u64>,
    resolved: HashMap<String, (String, String, bool)>,
}

impl Sink {
    pub fn problem(&mut self, f: Found<'_>) {
        if f.message.trim().is_empty() || f.file.is_empty() {
            return;
        }
        let (file, path, outside_root) = self.resolve(&f.file).clone();
        let message = f.message.trim();
        let mut h = Fnv::default();
        (&path, f.line, f.column, f.severity, message, &f.code).hash(&mut h);
        if !self.seen.insert(h.finish()) {
            // The same problem again (a tool run twice, a rebuild): once is enough.
            return;
        }
        self.out.push(Problem {
            file,
            path,
            line: f.line,
            column: f.column,
            severity: f.severity,
            message: message.to_string(),
            code: f.code.map(Cow::into_owned),
            source: f.source,
            outside_root,
            output_line: self.line_no,
        });
    }

    /// Whether `file` (as printed) is inside the workspace root: which of a traceback's frames
    /// is the workspace's own.
    pub fn inside_root(&mut self, file: &str) -> bool {
        !self.resolve(file).2
    }

    /// `file` as [`Place::resolve`] gives it, worked out once per name.
    fn resolve(&mut self, file: &str) -> &(String, String, bool) {
        if !self.resolved.contains_key(file) {
            let r = self.place.resolve(file);
            self.resolved.insert(file.to_string(), r);
        }
        &self.resolved[file]
    }
}

/// FNV-1a, for a problem's key in `seen`: quicker than the default hasher on these short
/// texts, and a collision, even one crafted by a run's output, only drops a problem that same
/// output printed. The sets and maps keep the default hasher, so crafted keys cannot slow them.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// `raw` without its terminal escape sequences (colours, cursor moves, OSC titles and links).
fn strip_escapes(raw: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] != 0x1b {
            out.push(raw[i]);
            i += 1;
            continue;
        }
        i += 1;
        match raw.get(i) {
            Some(b'[') => {
                i += 1;
                while i < raw.len() && !(0x40..=0x7e).contains(&raw[i]) {
                    i += 1;
                }
                i += 1;
            }
            Some(b']') => {
                // Ends at BEL or at ESC \.
                while i < raw.len() && raw[i] != 0x07 && raw[i] != 0x1b {
                    i += 1;
                }
                i += if raw.get(i) == Some(&0x1b) { 2 } else { 1 };
            }
            Some(_) => i += 1,
            None => {}
        }
    }
}

/// The problems in `output`, read as a whole.
pub fn parse(matcher: &Matcher, place: Place, output: &[u8]) -> Vec<Problem> {
    let mut p = Parser::new(matcher, place);
    p.feed(output);
    p.finish()
}

/// The patterns of the configuration (`[[problems.patterns]]`) with the built-in formats, and a
/// warning for each pattern that cannot be used (it is left out; the others still work).
pub fn matcher(ws: &Workspace) -> (Matcher, Vec<Warning>) {
    Matcher::from_settings(&ws.settings)
}

/// Which run's output to read.
#[derive(Debug, Clone)]
pub enum Which {
    /// The newest run that has a log.
    Newest,
    /// A run by its id in the history.
    Run(i64),
    /// The newest run with a log of the command of this id.
    Command { id: String, label: String },
}

/// A run and the problems of its output.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunProblems {
    pub run: Run,
    pub problems: Vec<Problem>,
}

/// The problems in the log of a run (a detached run's: runs in the foreground or a window print
/// to their terminal and keep no log). A run still going is read as far as it got.
pub fn of_run(
    ws: &Workspace,
    store: &mut Option<Store>,
    which: &Which,
    matcher: &Matcher,
) -> Result<RunProblems> {
    let run = match which {
        Which::Newest => runs::newest_with_log(ws, store)?,
        Which::Run(id) => runs::get(ws, store, *id)?,
        Which::Command { id, label } => runs::history(ws, store, 1000)?
            .into_iter()
            .find(|r| r.command_id == *id && r.log_path.is_some())
            .ok_or_else(|| {
                Error::failed(format!(
                    "no run of `{label}` with a log yet (logs come from detached runs)"
                ))
            })?,
    };
    let mut log = runs::open_log(ws, &run)?;
    let cwd = if run.cwd.is_empty() {
        ws.root.clone()
    } else {
        PathBuf::from(&run.cwd)
    };
    let mut parser = Parser::new(matcher, Place::new(&ws.root, &cwd));
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = log
            .read(&mut buf)
            .map_err(|e| Error::failed(format!("run {}: reading its log: {e}", run.run_id)))?;
        if n == 0 {
            break;
        }
        parser.feed(&buf[..n]);
    }
    Ok(RunProblems {
        problems: parser.finish(),
        run,
    })
}

#[cfg(test)]
mod tests;
