//! The built-in formats, read line by line with a little state (a rustc header waiting for its
//! location, a Python traceback's frames, ESLint's file line above its rows).
//!
//! They are code rather than patterns for two reasons: some need state a pattern cannot say
//! (which traceback frame is the workspace's own), and a log is mostly lines that are no
//! problem at all, which a few byte checks turn away far faster than any regex (the
//! benchmark's target is 100 MB/s). Every check is anchored on something a format always
//! prints (a `file:LINE` colon, `--> `, `File "`, `(LINE,COL): `), so ordinary output is never
//! taken for a problem by accident more than the formats themselves allow.

use super::{Found, Severity, Sink};
use std::borrow::Cow;

/// Frames kept of one traceback (a recursion error prints a thousand).
const MAX_FRAMES: usize = 256;

#[derive(Default)]
pub(super) struct State {
    /// A rustc header (`error[E0308]: msg`) whose ` --> file:line:col` comes on the next line.
    rust: Option<Header>,
    /// `thread 'x' panicked at file:line:col:`, whose message comes on the next line.
    panic: Option<(String, u32, Option<u32>)>,
    /// Inside a Python traceback: its frames so far, innermost last.
    traceback: bool,
    frames: Vec<(String, u32)>,
    /// ESLint's stylish format: the file line its indented rows belong to.
    stylish: Option<String>,
}

struct Header {
    severity: Severity,
    code: Option<String>,
    message: String,
}

impl State {
    /// Another reader took this line: nothing waits for the next one.
    pub fn skip(&mut self) {
        self.rust = None;
        self.panic = None;
        self.stylish = None;
    }

    pub fn line(&mut self, line: &[u8], sink: &mut Sink) {
        let rust = self.rust.take();
        let panic = self.panic.take();
        let ind = indent(line);
        let body = &line[ind..];
        if body.is_empty() {
            self.stylish = None;
            return;
        }
        if let Some(h) = rust
            && let Some(rest) = body.strip_prefix(b"--> ")
            && let Some((file, line, column)) = location(rest)
        {
            return sink.problem(found(
                (lossy(file), line, column),
                h.severity,
                Cow::Owned(h.message),
                h.code.map(Cow::Owned),
                "rustc",
            ));
        }
        if let Some((file, line, column)) = panic {
            let at = (Cow::Owned(file), line, column);
            return sink.problem(found(at, Severity::Error, lossy(body), None, "rust-panic"));
        }
        if ind > 0 {
            if let Some(frame) = python_frame(body) {
                self.traceback = true;
                if let Some(frame) = frame {
                    if self.frames.len() == MAX_FRAMES {
                        self.frames.drain(..MAX_FRAMES / 2);
                    }
                    self.frames.push(frame);
                }
                return;
            }
            if self.traceback {
                // A traceback's source lines and markers.
                return;
            }
            if body[0].is_ascii_digit()
                && let Some(file) = &self.stylish
                && let Some(f) = stylish_row(file, body)
            {
                return sink.problem(f);
            }
            if let Some(f) = located(body) {
                sink.problem(f);
            }
            return;
        }
        if self.traceback && self.exception(body, sink) {
            return;
        }
        if body.starts_with(b"Traceback (most recent call last)") {
            self.traceback = true;
            self.frames.clear();
            return;
        }
        if body.starts_with(b"thread '")
            && let Some(found) = self.panicked(body)
        {
            if let Some(f) = found {
                sink.problem(f);
            }
            return;
        }
        if let Some(h) = rust_header(body) {
            self.rust = Some(h);
            self.stylish = None;
            return;
        }
        if let Some(f) = located(body) {
            self.stylish = None;
            return sink.problem(f);
        }
        self.stylish = stylish_file(body).then(|| lossy(body).into_owned());
    }

    /// The last line of a traceback (`ValueError: bad value`), at the innermost frame in the
    /// workspace (else the innermost): the traceback ends either way. `false` when the line is
    /// not an exception's (`During handling of the above exception...`).
    fn exception(&mut self, body: &[u8], sink: &mut Sink) -> bool {
        self.traceback = false;
        let frames = std::mem::take(&mut self.frames);
        let name = body
            .iter()
            .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
            .unwrap_or(body.len());
        let is_exception = name > 0
            && (body[0].is_ascii_alphabetic() || body[0] == b'_')
            && (name == body.len() || body[name] == b':');
        if !is_exception {
            return false;
        }
        let frame = frames
            .iter()
            .rev()
            .find(|(f, _)| sink.inside_root(f))
            .or(frames.last());
        if let Some((file, line)) = frame {
            let at = (Cow::Borrowed(file.as_str()), *line, None);
            sink.problem(found(at, Severity::Error, lossy(body), None, "python"));
        }
        true
    }

    /// `thread 'main' panicked at src/main.rs:2:5:` (the message follows on the next line), or
    /// before Rust 1.73 `thread 'main' panicked at 'boom', src/main.rs:2:5`. `None` when the
    /// line is not a panic; `Some(None)` when its message is still to come.
    fn panicked<'a>(&mut self, body: &'a [u8]) -> Option<Option<Found<'a>>> {
        let at = memchr::memmem::find(body, b"' panicked at ")?;
        let rest = &body[at + b"' panicked at ".len()..];
        if let Some(loc) = rest.strip_suffix(b":") {
            let (file, line, column) = location(loc)?;
            self.panic = Some((lossy(file).into_owned(), line, column));
            return Some(None);
        }
        let comma = memchr::memmem::rfind(rest, b", ")?;
        let (file, line, column) = location(&rest[comma + 2..])?;
        let message = &rest[..comma];
        let message = message
            .strip_prefix(b"'")
            .and_then(|m| m.strip_suffix(b"'"))
            .unwrap_or(message);
        let at = (lossy(file), line, column);
        Some(Some(found(
            at,
            Severity::Error,
            lossy(message),
            None,
            "rust-panic",
        )))
    }
}

/// A problem at `(file, line, column)`, read by the format `source`.
fn found<'a>(
    (file, line, column): (Cow<'a, str>, u32, Option<u32>),
    severity: Severity,
    message: Cow<'a, str>,
    code: Option<Cow<'a, str>>,
    source: &'static str,
) -> Found<'a> {
    Found {
        file,
        line,
        column,
        severity,
        message,
        code,
        source: Cow::Borrowed(source),
    }
}

fn lossy(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

fn indent(line: &[u8]) -> usize {
    line.iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(line.len())
}

fn trim_start(b: &[u8]) -> &[u8] {
    &b[indent(b)..]
}

/// A run of ASCII digits at `at` (at most nine) and where it ends.
fn number(b: &[u8], at: usize) -> Option<(u32, usize)> {
    let len = b
        .get(at..)?
        .iter()
        .take(10)
        .take_while(|d| d.is_ascii_digit())
        .count();
    if len == 0 || len > 9 {
        return None;
    }
    let n = b[at..at + len]
        .iter()
        .fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    Some((n, at + len))
}

/// A whole `LINE` or `LINE:COL` or `LINE,COL` (the text is nothing else).
fn numbers(b: &[u8], sep: u8) -> Option<(u32, Option<u32>)> {
    let (line, end) = number(b, 0)?;
    if end == b.len() {
        return Some((line, None));
    }
    if b[end] != sep {
        return None;
    }
    let (col, end) = number(b, end + 1)?;
    (end == b.len()).then_some((line, Some(col)))
}

/// `file:line:col` (or `file:line`) as a whole; the file may hold colons (`C:\x.rs:1:2`).
fn location(b: &[u8]) -> Option<(&[u8], u32, Option<u32>)> {
    let b = b.trim_ascii_end();
    let last = memchr::memrchr(b':', b)?;
    let (last_n, end) = number(b, last + 1)?;
    if end != b.len() || last == 0 {
        return None;
    }
    let head = &b[..last];
    if let Some(prev) = memchr::memrchr(b':', head)
        && prev > 0
        && let Some((line, end)) = number(head, prev + 1)
        && end == head.len()
    {
        return Some((&b[..prev], line, Some(last_n)));
    }
    Some((head, last_n, None))
}

fn is_absolute(f: &[u8]) -> bool {
    f.first() == Some(&b'/')
        || (f.len() > 2
            && f[0].is_ascii_alphabetic()
            && f[1] == b':'
            && (f[2] == b'\\' || f[2] == b'/'))
}

/// Files without a dot that tools name in their messages.
const BARE_FILES: &[&[u8]] = &[
    b"Makefile",
    b"makefile",
    b"GNUmakefile",
    b"Dockerfile",
    b"Containerfile",
    b"Justfile",
    b"justfile",
    b"Rakefile",
    b"Gemfile",
    b"Jenkinsfile",
    b"Vagrantfile",
];

/// Whether `f` can be the file of a `file:line` problem: it starts like a path, holds white
/// space only when absolute (GCC prints `/home/me/my project/a.c:1:2:`), names a file (a dot
/// or a folder in it, or a known bare name), and is not a URL, a number, a version or an
/// address (`10.0.0.1:8080`).
fn plausible_file(f: &[u8]) -> bool {
    let Some(&first) = f.first() else {
        return false;
    };
    if !(first.is_ascii_alphanumeric() || matches!(first, b'.' | b'/' | b'\\' | b'_' | b'~'))
        || f.len() > 4096
    {
        return false;
    }
    if f.iter().any(u8::is_ascii_whitespace) && !is_absolute(f) {
        return false;
    }
    if memchr::memmem::find(f, b"://").is_some() {
        return false;
    }
    let named = f.iter().any(|&b| matches!(b, b'.' | b'/' | b'\\')) || BARE_FILES.contains(&f);
    named && !f.iter().all(|&b| b.is_ascii_digit() || b == b'.')
}

/// A line that can be ESLint stylish's file line: a path alone on its line.
fn stylish_file(body: &[u8]) -> bool {
    body.last() != Some(&b':')
        && plausible_file(body)
        && (is_absolute(body) || body.iter().any(|&b| b == b'/' || b == b'\\'))
}

/// `  File "x.py", line 3, in f` → `Some(Some(("x.py", 3)))`; a frame of no file
/// (`<frozen importlib._bootstrap>`, `<string>`) → `Some(None)`.
fn python_frame(body: &[u8]) -> Option<Option<(String, u32)>> {
    let rest = body.strip_prefix(b"File \"")?;
    let q = memchr::memmem::find(rest, b"\", line ")?;
    let (line, _) = number(rest, q + b"\", line ".len())?;
    let file = &rest[..q];
    if file.first() == Some(&b'<') {
        return Some(None);
    }
    Some(Some((lossy(file).into_owned(), line)))
}

/// `error[E0308]: msg`, `warning: msg`: a rustc diagnostic's first line.
fn rust_header(body: &[u8]) -> Option<Header> {
    let (severity, rest) = if let Some(r) = body.strip_prefix(b"error") {
        (Severity::Error, r)
    } else {
        (Severity::Warning, body.strip_prefix(b"warning")?)
    };
    let (code, rest) = match rest.strip_prefix(b"[") {
        Some(r) => {
            let end = memchr::memchr(b']', r)?;
            (Some(lossy(&r[..end]).into_owned()), &r[end + 1..])
        }
        None => (None, rest),
    };
    let message = rest.strip_prefix(b": ")?;
    Some(Header {
        severity,
        code,
        message: lossy(message).into_owned(),
    })
}

/// ESLint stylish's row under its file line: `  3:7  error  'x' is not defined  no-undef`.
fn stylish_row<'a>(file: &'a str, body: &'a [u8]) -> Option<Found<'a>> {
    let (line, end) = number(body, 0)?;
    if body.get(end) != Some(&b':') {
        return None;
    }
    let (column, end) = number(body, end + 1)?;
    let rest = body.get(end..)?;
    let rest_t = trim_start(rest);
    if rest_t.len() == rest.len() {
        return None;
    }
    let word_end = rest_t.iter().position(|&b| b == b' ')?;
    let severity = match &rest_t[..word_end] {
        b"error" => Severity::Error,
        b"warning" => Severity::Warning,
        _ => return None,
    };
    let text = trim_start(&rest_t[word_end..]).trim_ascii_end();
    // The rule is the last column, two spaces after the message.
    let (message, code) = match memchr::memmem::rfind(text, b"  ") {
        Some(i) if !trim_start(&text[i..]).contains(&b' ') => (
            text[..i].trim_ascii_end(),
            Some(lossy(trim_start(&text[i..]))),
        ),
        _ => (text, None),
    };
    let at = (Cow::Borrowed(file), line, Some(column));
    Some(found(at, severity, lossy(message), code, "eslint"))
}

/// A line that starts with where the problem is: `file:line[:col]: …`, `file:line:col - …`,
/// `file(line,col): …`, `file: line N, col M, …`.
fn located(body: &[u8]) -> Option<Found<'_>> {
    for i in memchr::memchr_iter(b':', body) {
        if i == 0 {
            continue;
        }
        if body[i - 1] == b')'
            && let Some(f) = parenthesised(body, i)
        {
            return Some(f);
        }
        match body.get(i + 1) {
            Some(d) if d.is_ascii_digit() => {}
            Some(b' ') if body[i..].starts_with(b": line ") => return compact(body, i),
            _ => continue,
        }
        let file = &body[..i];
        if !is_absolute(file) && file.iter().any(u8::is_ascii_whitespace) {
            // No later colon makes a file of it.
            return None;
        }
        if plausible_file(file)
            && let Some(f) = colon_form(body, i)
        {
            return Some(f);
        }
    }
    None
}

/// A severity word at the start of `rest` (`error`, `fatal error`, `warning`, `note`, ...; any
/// case) and what follows it.
fn severity_word(rest: &[u8]) -> Option<(Severity, &[u8])> {
    const WORDS: &[(&[u8], Severity)] = &[
        (b"fatal error", Severity::Error),
        (b"error", Severity::Error),
        (b"warning", Severity::Warning),
        (b"note", Severity::Info),
        (b"remark", Severity::Info),
        (b"info", Severity::Info),
        (b"help", Severity::Hint),
        (b"hint", Severity::Hint),
    ];
    WORDS.iter().find_map(|(w, s)| {
        let head = rest.get(..w.len())?;
        head.eq_ignore_ascii_case(w).then(|| (*s, &rest[w.len()..]))
    })
}

/// `file:line[:col]` then `: error: msg` (GCC, Clang, rustc's short form), `: msg [Error/rule]`
/// (ESLint unix), `: msg` (go, pytest, Python warnings) or ` - error TS2322: msg` (tsc).
fn colon_form(body: &[u8], colon: usize) -> Option<Found<'_>> {
    let file = lossy(&body[..colon]);
    let (line, end) = number(body, colon + 1)?;
    let (column, end) = match (body.get(end), body.get(end + 1)) {
        (Some(b':'), Some(d)) if d.is_ascii_digit() => {
            let (c, e) = number(body, end + 1)?;
            (Some(c), e)
        }
        _ => (None, end),
    };
    let rest = &body[end..];
    let found = |severity, message, code, source| {
        found(
            (file.clone(), line, column),
            severity,
            message,
            code,
            source,
        )
    };
    if let Some(r) = rest.strip_prefix(b" - ") {
        let (severity, after) = severity_word(r)?;
        let (code, message) = coded(after)?;
        return Some(found(severity, message, code, "tsc"));
    }
    let rest = trim_start(rest.strip_prefix(b":")?);
    if rest.is_empty() {
        return None;
    }
    if let Some((severity, after)) = severity_word(rest)
        && (after.starts_with(b":") || after.starts_with(b"["))
    {
        let (code, after) = match after.strip_prefix(b"[") {
            Some(r) => {
                let e = memchr::memchr(b']', r)?;
                (Some(lossy(&r[..e])), &r[e + 1..])
            }
            None => (None, after),
        };
        let message = trim_start(after.strip_prefix(b":")?).trim_ascii_end();
        let rust = body[..colon].ends_with(b".rs");
        // GCC and Clang end a warning with the flag that enables it: `[-Wunused-variable]`.
        let (message, code) = match (code, message.strip_suffix(b"]")) {
            (None, Some(m)) => match memchr::memmem::rfind(m, b" [-W") {
                Some(i) => (&m[..i], Some(lossy(&m[i + 2..]))),
                None => (message, None),
            },
            (code, _) => (message, code),
        };
        let source = if rust { "rustc" } else { "gcc" };
        return Some(found(severity, lossy(message), code, source));
    }
    let rest = rest.trim_ascii_end();
    if let Some(m) = rest.strip_suffix(b"]")
        && let Some(i) = memchr::memmem::rfind(m, b" [")
        && let Some(slash) = memchr::memchr(b'/', &m[i + 2..])
        && let Some(severity) = Severity::from_word(&lossy(&m[i + 2..i + 2 + slash]))
    {
        let code = lossy(&m[i + 3 + slash..]);
        return Some(found(severity, lossy(&m[..i]), Some(code), "eslint"));
    }
    let name = &body[..colon];
    // `x.py:3: DeprecationWarning: old` is Python's warnings module.
    let word = &rest[..rest.iter().position(|&b| b == b':').unwrap_or(0)];
    let (severity, source) = if name.ends_with(b".go") {
        (Severity::Error, "go")
    } else if name.ends_with(b".py") {
        if word.ends_with(b"Warning") && !word.contains(&b' ') {
            (Severity::Warning, "python")
        } else {
            (Severity::Error, "python")
        }
    } else {
        (Severity::Error, "plain")
    };
    Some(found(severity, lossy(rest), None, source))
}

/// ` TS2322: msg` / `: msg` after a severity word: the code (no spaces) and the message.
fn coded(after: &[u8]) -> Option<(Option<Cow<'_, str>>, Cow<'_, str>)> {
    if let Some(m) = after.strip_prefix(b":") {
        return Some((None, lossy(trim_start(m).trim_ascii_end())));
    }
    let r = after.strip_prefix(b" ")?;
    let colon = memchr::memchr(b':', r)?;
    let code = &r[..colon];
    if code.is_empty() || code.contains(&b' ') {
        return None;
    }
    Some((
        Some(lossy(code)),
        lossy(trim_start(&r[colon + 1..]).trim_ascii_end()),
    ))
}

/// `src/a.ts(3,7): error TS2322: msg` (tsc), `Program.cs(12,5): warning CS0168: msg`,
/// `a.c(12): error C2065: msg` (MSBuild, MSVC); the colon after `)` is at `colon`.
fn parenthesised(body: &[u8], colon: usize) -> Option<Found<'_>> {
    let open = memchr::memrchr(b'(', &body[..colon - 1])?;
    let (line, column) = numbers(&body[open + 1..colon - 1], b',')?;
    let file = &body[..open];
    if !plausible_file(file) {
        return None;
    }
    let rest = trim_start(&body[colon + 1..]);
    let (severity, after) = severity_word(rest)?;
    let (code, message) = coded(after)?;
    let source = if code.as_deref().is_some_and(|c| c.starts_with("TS")) {
        "tsc"
    } else {
        "msbuild"
    };
    Some(found(
        (lossy(file), line, column),
        severity,
        message,
        code,
        source,
    ))
}

/// ESLint compact: `/w/a.js: line 1, col 10, Error - Missing semicolon. (semi)`.
fn compact(body: &[u8], colon: usize) -> Option<Found<'_>> {
    let file = &body[..colon];
    if !plausible_file(file) {
        return None;
    }
    let rest = &body[colon + b": line ".len()..];
    let (line, end) = number(rest, 0)?;
    let rest = rest[end..].strip_prefix(b", col ")?;
    let (column, end) = number(rest, 0)?;
    let rest = rest[end..].strip_prefix(b", ")?;
    let dash = memchr::memmem::find(rest, b" - ")?;
    let severity = Severity::from_word(&lossy(&rest[..dash]))?;
    let text = rest[dash + 3..].trim_ascii_end();
    let (message, code) = match text.strip_suffix(b")") {
        Some(t) => match memchr::memmem::rfind(t, b" (") {
            Some(i) if !t[i + 2..].contains(&b' ') => (&t[..i], Some(lossy(&t[i + 2..]))),
            _ => (text, None),
        },
        None => (text, None),
    };
    let at = (lossy(file), line, Some(column));
    Some(found(at, severity, lossy(message), code, "eslint"))
}
