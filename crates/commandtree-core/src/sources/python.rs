//! Python scripts: a `.py` file is a command when it is runnable (a Python shebang, or an
//! `if __name__ == "__main__":` block), and so is an extensionless executable whose shebang
//! runs Python (routed here by it); library modules produce nothing. Parameters come from
//! `# @param` comments and argparse `add_argument(...)` calls; the description from the module
//! docstring or the first comment.

use super::common::{param_comments, shebang};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef, ParamFormat};
use crate::text;
use std::collections::{HashMap, HashSet};

pub const KIND: &str = "python";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let content = file.content;
    let runs_itself = runnable_shebang(content);
    if !runs_itself && !has_main_guard(content) && !shows_own_usage(content, &file.file_name()) {
        return Parsed::default();
    }
    let path = text::quote_path(file.path);
    let command = if file.executable && runs_itself {
        path
    } else {
        format!("{} {path}", interpreter(content))
    };
    let mut parsed = Parsed::default();
    let (argparse, unterminated) = argparse_params(content);
    if let Some(pos) = unterminated {
        parsed.warn(
            file.path,
            Some(text::line_of(content, pos)),
            "unterminated add_argument( call",
        );
    }
    let params = merge_params(comment_params(content), argparse);
    parsed.commands.push(
        CommandItem::new(KIND, file.path, &file.file_name(), command)
            .params(params)
            .opt_description(description(content).or_else(|| argparse_description(content))),
    );
    parsed
}

/// Whether `parse` could find a command in these raw bytes: a `#!` line (the parser judges it)
/// or `__main__` anywhere. Exact for the "nothing" answer, since both tests of `parse` need one
/// of them; a byte search, so a library module is never decoded.
pub fn may_run(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    bytes.starts_with(b"#!")
        || memchr::memmem::find(bytes, b"__main__").is_some()
        || memchr::memmem::find(bytes, b"sage:").is_some()
}

/// Whether the module's header (its comments and docstring, before the first import or
/// definition) shows how to run the file by its own name: Kafka's `release.py`, a script of
/// top-level statements with no `__main__` guard, opens with "Usage: release.py [subcommand]".
fn shows_own_usage(content: &str, name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    content
        .lines()
        .take_while(|l| {
            !["import ", "from ", "def ", "class ", "async def "]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .any(|l| {
            let l = l.to_ascii_lowercase();
            l.find("usage:").is_some_and(|at| {
                l[at..]
                    .split_whitespace()
                    .skip(1)
                    .take(3)
                    .any(|w| w.rsplit(['/', '\\']).next() == Some(name.as_str()))
            })
        })
}

/// A `#!` first line that runs the file with Python (or through `uv run`, which reads PEP 723
/// inline metadata and then runs Python).
fn runnable_shebang(content: &str) -> bool {
    let first = content.lines().next().unwrap_or("");
    if !first.starts_with("#!") {
        return false;
    }
    first.contains("python")
        || shebang(content).is_some_and(|(prog, args)| prog == "uv" && args.contains(&"run"))
}

/// `if __name__ == "__main__":` in any quote style and spacing, either operand order, with or
/// without parentheses; not inside a triple-quoted string (a template of the scripts a tool
/// writes, as pip's wheel installer holds).
fn has_main_guard(content: &str) -> bool {
    const FORMS: &[&str] = &[
        "__name__==\"__main__\":",
        "__name__=='__main__':",
        "\"__main__\"==__name__:",
        "'__main__'==__name__:",
    ];
    let mut open: Option<&str> = None;
    content.lines().any(|line| {
        let in_string = open.is_some();
        // Where each triple quote opens or closes a string, in order.
        let mut rest = line;
        loop {
            let next = match open {
                Some(q) => rest.find(q).map(|i| (i, q)),
                None => ["\"\"\"", "\'\'\'"]
                    .iter()
                    .filter_map(|q| rest.find(q).map(|i| (i, *q)))
                    .min_by_key(|(i, _)| *i),
            };
            let Some((i, q)) = next else { break };
            open = if open.is_some() { None } else { Some(q) };
            rest = &rest[i + 3..];
        }
        if in_string {
            return false;
        }
        let Some(rest) = line.trim_start().strip_prefix("if") else {
            return false;
        };
        if !rest.starts_with(|c: char| c.is_whitespace() || c == '(') {
            return false;
        }
        let compact: String = rest
            .chars()
            .filter(|c| !c.is_whitespace() && !matches!(c, '(' | ')'))
            .collect();
        FORMS.iter().any(|f| compact.starts_with(f))
    })
}

/// The interpreter for a script that is not run through its own shebang. A bare `python` in the
/// shebang is taken as Python 3: many systems no longer have a `python` command.
fn interpreter(content: &str) -> String {
    if cfg!(windows) {
        return "python".to_string();
    }
    match shebang(content) {
        Some((prog, _))
            if prog.starts_with("python")
                && prog != "python"
                && prog.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') =>
        {
            prog.to_string()
        }
        _ => "python3".to_string(),
    }
}

/// `# @param` comments with their byte offsets; the first of a repeated name wins.
fn comment_params(content: &str) -> Vec<(usize, ParamDef)> {
    let mut seen = HashSet::new();
    param_comments(content)
        .filter(|(_, p)| seen.insert(p.name.clone()))
        .collect()
}

/// Comment params win field by field; argparse fills what they leave out (how the value is passed,
/// default, choices) and places the parameter where the parser defines it, because positional
/// arguments must keep their command-line order.
fn merge_params(
    comments: Vec<(usize, ParamDef)>,
    argparse: Vec<(usize, ParamDef)>,
) -> Vec<ParamDef> {
    let index: HashMap<String, usize> = comments
        .iter()
        .enumerate()
        .map(|(i, (_, p))| (p.name.clone(), i))
        .collect();
    let mut comments: Vec<Option<(usize, ParamDef)>> = comments.into_iter().map(Some).collect();
    let mut all: Vec<(usize, ParamDef)> = Vec::new();
    for (pos, a) in argparse {
        let doc = index
            .get(&a.name)
            .and_then(|&i| comments.get_mut(i))
            .and_then(Option::take);
        let merged = match doc {
            Some((_, mut c)) => {
                c.description = c.description.or(a.description);
                c.default = c.default.or(a.default);
                if c.options.is_empty() {
                    c.options = a.options;
                }
                c.format = a.format;
                c.flag = a.flag;
                c
            }
            None => a,
        };
        all.push((pos, merged));
    }
    all.extend(comments.into_iter().flatten());
    all.sort_by_key(|(pos, _)| *pos);
    all.into_iter().map(|(_, p)| p).collect()
}

/// What `argparse.ArgumentParser(description="…")` says the program does (its `--help` shows
/// it first): the first paragraph, on one line. For a script without a docstring or a comment
/// saying so (curl's `tests/http/scorecard.py`).
fn argparse_description(content: &str) -> Option<String> {
    let mut lx = Lexer { s: content, pos: 0 };
    next_call(&mut lx, "ArgumentParser")?;
    let args = call_args(&mut lx)?;
    let text = args.iter().find_map(|arg| match arg.as_slice() {
        [Tok::Ident("description"), Tok::Punct('='), value @ ..] => string_literal(value),
        _ => None,
    })?;
    let first = text
        .trim()
        .split("\n\n")
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!first.is_empty()).then_some(first)
}

/// Parameters from `add_argument(` calls, with their byte offsets, and the offset of an
/// unterminated call if there is one.
fn argparse_params(content: &str) -> (Vec<(usize, ParamDef)>, Option<usize>) {
    let mut out: Vec<(usize, ParamDef)> = Vec::new();
    let mut seen = HashSet::new();
    let mut lx = Lexer { s: content, pos: 0 };
    while let Some(pos) = next_call(&mut lx, "add_argument") {
        let Some(args) = call_args(&mut lx) else {
            return (out, Some(pos));
        };
        if let Some(p) = argparse_param(&args)
            && seen.insert(p.name.clone())
        {
            out.push((pos, p));
        }
    }
    (out, None)
}

/// Moves `lx` past the next call of `name` (`name(`) and gives the offset of the name; `None`
/// when there is none.
fn next_call(lx: &mut Lexer<'_>, name: &str) -> Option<usize> {
    while let Some((pos, tok)) = lx.next() {
        if tok != Tok::Ident(name) {
            continue;
        }
        let save = lx.pos;
        if matches!(lx.next(), Some((_, Tok::Punct('(')))) {
            return Some(pos);
        }
        lx.pos = save;
    }
    None
}

/// The top-level arguments of a call whose `(` was just read, as token lists; `None` when the
/// file ends first.
pub(crate) fn call_args<'a>(lx: &mut Lexer<'a>) -> Option<Vec<Vec<Tok<'a>>>> {
    let mut args: Vec<Vec<Tok<'a>>> = vec![Vec::new()];
    let mut depth = 1usize;
    loop {
        let (_, tok) = lx.next()?;
        match tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    args.retain(|a| !a.is_empty());
                    return Some(args);
                }
            }
            Tok::Punct(',') if depth == 1 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push(tok);
        }
    }
}

fn argparse_param(args: &[Vec<Tok<'_>>]) -> Option<ParamDef> {
    let mut names: Vec<String> = Vec::new();
    let mut keywords: Vec<(&str, &[Tok<'_>])> = Vec::new();
    for arg in args {
        match arg.as_slice() {
            [Tok::Ident(k), Tok::Punct('='), value @ ..]
                if value.first() != Some(&Tok::Punct('=')) =>
            {
                keywords.push((k, value));
            }
            value if keywords.is_empty() => {
                if let Some(s) = string_literal(value) {
                    names.push(s);
                }
            }
            _ => {}
        }
    }
    // The long option is the name users know (`--dry-run` rather than `-n`).
    let option = names
        .iter()
        .find(|n| n.starts_with("--"))
        .or_else(|| names.first())?;
    let name = option.trim_start_matches('-');
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return None;
    }
    let mut p = ParamDef::new(name);
    if option.starts_with('-') {
        p.format = Some(ParamFormat::Flag);
        p.flag = Some(option.clone());
    }
    for (key, value) in keywords {
        match key {
            "help" => {
                if value.contains(&Tok::Ident("SUPPRESS")) {
                    return None;
                }
                let leading: String = value
                    .iter()
                    .map_while(|t| match t {
                        Tok::Str(s) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect();
                let help = leading.split_whitespace().collect::<Vec<_>>().join(" ");
                p = p.with_description(help);
            }
            "default" => p.default = scalar_literal(value),
            "choices" => p.options = list_literal(value),
            "action" => match string_literal(value).as_deref() {
                Some("help" | "version") => return None,
                Some("store_true" | "store_false" | "store_const" | "count") => p.switch = true,
                _ => {}
            },
            _ => {}
        }
    }
    Some(p)
}

/// One string literal, or adjacent ones (`"a" "b"`), concatenated.
pub(crate) fn string_literal(toks: &[Tok<'_>]) -> Option<String> {
    if toks.is_empty() {
        return None;
    }
    let mut out = String::new();
    for t in toks {
        match t {
            Tok::Str(s) => out.push_str(s),
            _ => return None,
        }
    }
    Some(out)
}

fn scalar_literal(toks: &[Tok<'_>]) -> Option<String> {
    match toks {
        [Tok::Num(n)] => Some((*n).to_string()),
        [Tok::Punct('-'), Tok::Num(n)] => Some(format!("-{n}")),
        _ => string_literal(toks),
    }
}

/// `["a", "b"]` / `("a", "b")` / `{"a", "b"}` of string or number literals.
pub(crate) fn list_literal(toks: &[Tok<'_>]) -> Vec<String> {
    let inner = match toks {
        [
            Tok::Punct('[' | '(' | '{'),
            inner @ ..,
            Tok::Punct(']' | ')' | '}'),
        ] => inner,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for item in inner.split(|t| *t == Tok::Punct(',')) {
        match item {
            [] => {}
            [Tok::Num(n)] => out.push((*n).to_string()),
            _ => match string_literal(item) {
                Some(s) => out.push(s),
                None => return Vec::new(),
            },
        }
    }
    out
}

/// The module docstring's first line; without a docstring, the first prose comment before the
/// first statement.
fn description(content: &str) -> Option<String> {
    let mut first_comment: Option<&str> = None;
    let mut in_metadata = false;
    let mut licence = super::common::LicenceHeader::default();
    let mut lines = content.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        let t = line.trim();
        // PEP 723 inline script metadata (`# /// script` ... `# ///`) is TOML, not prose; its
        // closing `# ///` is no ruler.
        if let Some(c) = t.strip_prefix('#').map(str::trim)
            && c.starts_with("///")
        {
            in_metadata = c != "///" || !in_metadata;
            continue;
        }
        if licence.skip(t.strip_prefix('#').map(str::trim)) {
            continue;
        }
        if t.is_empty() || (i == 0 && t.starts_with("#!")) {
            continue;
        }
        if let Some(comment) = t.strip_prefix('#') {
            let c = comment.trim();
            if first_comment.is_none() && !in_metadata && is_prose_comment(c) {
                first_comment = Some(c);
            }
            continue;
        }
        return docstring(t, &mut (&mut lines).map(|(_, l)| l))
            .or(first_comment.map(str::to_string));
    }
    first_comment.map(str::to_string)
}

fn is_prose_comment(c: &str) -> bool {
    const DIRECTIVES: &[&str] = &[
        "-*-",
        "coding:",
        "coding=",
        "vim:",
        "vi:",
        "pylint:",
        "type:",
        "noqa",
        "flake8:",
        "mypy:",
        "fmt:",
        "pyright:",
        "ruff:",
        "isort:",
        "pragma:",
        "nosec",
        "pyre-",
        "spdx-",
        "spell-checker:",
        "cspell:",
    ];
    let c = c.to_ascii_lowercase();
    let c = c.as_str();
    !c.starts_with('@')
        && c.chars().any(char::is_alphanumeric)
        && !super::common::is_only_a_link(c)
        && !DIRECTIVES.iter().any(|d| c.starts_with(d))
}

/// When `first` opens a string literal statement, the first non-empty line of it.
pub(crate) fn docstring<'a>(
    first: &'a str,
    rest: &mut dyn Iterator<Item = &'a str>,
) -> Option<String> {
    let body = first.trim_start_matches(['r', 'R', 'u', 'U']);
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|q| body.starts_with(q))?;
    let after = body.get(quote.len()..).unwrap_or("");
    if let Some((inner, _)) = after.split_once(quote) {
        return nonblank(inner);
    }
    if quote.len() == 1 {
        return nonblank(after);
    }
    // The docstring's lines after its first, up to its closing quotes.
    let mut more = super::common::up_to_close(rest, quote);
    let first = match nonblank(after) {
        Some(d) => d,
        None => loop {
            let line = more.next()?;
            if let Some(d) = nonblank(line) {
                break d;
            }
        },
    };
    // A usage line first gives way to the paragraph after it, which says what the script
    // does (Kafka's `notes.py`: "Usage: python notes.py <version> > RELEASE_NOTES.html", then
    // "Generates release notes for a release in HTML format …").
    if super::common::is_usage(&first) {
        let mut after_break = false;
        while let Some(line) = more.next() {
            match nonblank(line) {
                None => after_break = true,
                Some(d) if after_break => {
                    return Some(super::common::sentence_on(&d, more.map(Some)));
                }
                Some(_) => {}
            }
        }
        return Some(first);
    }
    Some(super::common::sentence_on(&first, more.map(Some)))
}

fn nonblank(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The few token kinds argparse calls need. Comments and whitespace are skipped; strings are
/// decoded (escapes, prefixes, triple quotes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    Str(String),
    Ident(&'a str),
    Num(&'a str),
    Punct(char),
}

pub(crate) struct Lexer<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `s`.
    pub(crate) fn new(s: &'a str) -> Self {
        Lexer { s, pos: 0 }
    }

    /// Where the next token is read from.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn seek(&mut self, pos: usize) {
        self.pos = pos;
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.pos..)?.chars().next()
    }

    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn bump(&mut self, c: char) {
        self.pos += c.len_utf8();
    }

    /// The next token and its byte offset.
    pub(crate) fn next(&mut self) -> Option<(usize, Tok<'a>)> {
        loop {
            let c = self.peek()?;
            if c == '#' {
                self.pos = self
                    .rest()
                    .find('\n')
                    .map_or(self.s.len(), |i| self.pos + i);
            } else if c.is_whitespace() || c == '\\' {
                self.bump(c);
            } else {
                break;
            }
        }
        let start = self.pos;
        let c = self.peek()?;
        if c == '"' || c == '\'' {
            return Some((start, Tok::Str(self.string(false))));
        }
        if c.is_alphabetic() || c == '_' {
            let word = self.take_while(|c| c.is_alphanumeric() || c == '_');
            let prefix = word.len() <= 2 && word.chars().all(|c| "rRbBuUfF".contains(c));
            if prefix && matches!(self.peek(), Some('"' | '\'')) {
                return Some((start, Tok::Str(self.string(word.contains(['r', 'R'])))));
            }
            return Some((start, Tok::Ident(word)));
        }
        if c.is_ascii_digit() {
            let num = self.take_while(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
            return Some((start, Tok::Num(num)));
        }
        self.bump(c);
        Some((start, Tok::Punct(c)))
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let rest = self.rest();
        let len = rest.find(|c| !f(c)).unwrap_or(rest.len());
        self.pos += len;
        rest.get(..len).unwrap_or("")
    }

    /// A string literal starting at the quote under the cursor. An unterminated one-line string
    /// ends at the line end, a triple-quoted one at the end of the file.
    fn string(&mut self, raw: bool) -> String {
        let Some(q) = self.peek() else {
            return String::new();
        };
        let triple_q: String = [q, q, q].iter().collect();
        let triple = self.rest().starts_with(&triple_q);
        self.pos += if triple { 3 } else { 1 };
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if triple && self.rest().starts_with(&triple_q) {
                self.pos += 3;
                break;
            }
            if !triple && c == q {
                self.bump(c);
                break;
            }
            if !triple && c == '\n' {
                break;
            }
            self.bump(c);
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(n) = self.peek() else {
                out.push('\\');
                break;
            };
            self.bump(n);
            match n {
                _ if raw => {
                    out.push('\\');
                    out.push(n);
                }
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '\\' | '\'' | '"' => out.push(n),
                '\n' => {}
                _ => {
                    out.push('\\');
                    out.push(n);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{labels, parse_in, parse_with};

    const PY3: &str = if cfg!(windows) { "python" } else { "python3" };

    fn one(content: &str) -> CommandItem {
        let p = parse_with(parse, "/w/scripts/tool.py", content);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.commands.len(), 1, "not runnable");
        p.commands.into_iter().next().unwrap()
    }

    fn flag(name: &str, flag: &str, desc: Option<&str>) -> ParamDef {
        ParamDef {
            name: name.into(),
            description: desc.map(Into::into),
            format: Some(ParamFormat::Flag),
            flag: Some(flag.into()),
            ..Default::default()
        }
    }

    fn positional(name: &str, desc: Option<&str>, default: Option<&str>) -> ParamDef {
        ParamDef {
            name: name.into(),
            description: desc.map(Into::into),
            default: default.map(Into::into),
            ..Default::default()
        }
    }

    const ANALYZE: &str = r#"#!/usr/bin/env python3
"""Analyze data with configurable parameters."""
# @param input Input file path
# @param limit Maximum rows (default: 100)

import argparse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", help="Output directory")
    args = parser.parse_args()


if __name__ == "__main__":
    main()
"#;

    #[test]
    fn upstream_analyze_fixture() {
        let p = parse_in(
            parse,
            &MemFs::new().exe("/w/scripts/analyze.py", ANALYZE),
            "/w/scripts/analyze.py",
        );
        let c = &p.commands[0];
        assert_eq!(c.id, "python:/w/scripts/analyze.py:analyze.py");
        assert_eq!(c.label, "analyze.py");
        assert_eq!(c.kind, "python");
        assert_eq!(c.command, "\"/w/scripts/analyze.py\"");
        assert_eq!(c.cwd, "/w/scripts");
        assert_eq!(
            c.description.as_deref(),
            Some("Analyze data with configurable parameters.")
        );
        assert_eq!(
            c.params,
            vec![
                positional("input", Some("Input file path"), None),
                positional("limit", Some("Maximum rows"), Some("100")),
                flag("output", "--output", Some("Output directory")),
            ]
        );
    }

    #[test]
    fn non_executable_runs_through_python3_quoted() {
        let c = parse_with(parse, "/w/my scripts/a.py", ANALYZE)
            .commands
            .remove(0);
        assert_eq!(c.command, format!("{PY3} \"/w/my scripts/a.py\""));
    }

    #[test]
    fn a_usage_line_gives_way_to_the_paragraph_after_it() {
        let notes = "\"\"\"\nUsage: python notes.py <version> > RELEASE_NOTES.html\n\n\
                     Generates release notes for a release in HTML format containing\n\
                     introductory information about the release.\n\nThe script will fail.\n\
                     \"\"\"\nif __name__ == \"__main__\":\n    pass\n";
        let c = parse_with(parse, "/w/release/notes.py", notes)
            .commands
            .remove(0);
        assert_eq!(
            c.description.as_deref(),
            Some(
                "Generates release notes for a release in HTML format containing introductory \
                 information about the release."
            )
        );
        // With nothing after it, the usage is what there is.
        let only = "\"\"\"\nUsage: python notes.py <version>\n\"\"\"\nif __name__ == \"__main__\":\n    pass\n";
        let c = parse_with(parse, "/w/notes.py", only).commands.remove(0);
        assert_eq!(
            c.description.as_deref(),
            Some("Usage: python notes.py <version>")
        );
    }

    #[test]
    fn a_script_whose_header_shows_its_own_usage_runs_without_a_main_guard() {
        let release = "#\n# Licensed to the ASF\n#\n\n\"\"\"\nUtility for creating release \
                       candidates.\n\nUsage: release.py [subcommand]\n\"\"\"\n\nimport os\n\
                       print(os.getcwd())\n";
        let p = parse_with(parse, "/w/release/release.py", release);
        assert_eq!(p.commands.len(), 1);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Utility for creating release candidates.")
        );
        assert!(may_run(release.as_bytes()));
        // Another file's usage, or a usage shown after the code starts, is not this file's.
        for module in [
            "\"\"\"Helpers.\n\nUsage: release.py stage\n\"\"\"\nimport os\n",
            "import os\n\"\"\"Usage: util.py\"\"\"\n",
        ] {
            assert!(
                parse_with(parse, "/w/release/util.py", module)
                    .commands
                    .is_empty()
            );
        }
    }

    #[test]
    fn a_main_guard_inside_a_string_is_a_template_not_a_script() {
        let template = "class Maker:\n    script_template = textwrap.dedent(\"\"\"\\\n        \
                        import sys\n        if __name__ == '__main__':\n            sys.exit(1)\n\"\"\")\n";
        assert!(!has_main_guard(template));
        let one_line = "DOC = '''a''' \nX = '''\nif __name__ == '__main__':\n'''\n";
        assert!(!has_main_guard(one_line));
        let after = format!("{template}\nif __name__ == \"__main__\":\n    main()\n");
        assert!(has_main_guard(&after));
    }

    #[test]
    fn main_guard_without_shebang_needs_interpreter_even_when_executable() {
        let src = "def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n";
        let p = parse_in(parse, &MemFs::new().exe("/w/m.py", src), "/w/m.py");
        assert_eq!(p.commands[0].command, format!("{PY3} \"/w/m.py\""));
    }

    #[test]
    fn versioned_shebang_interpreter() {
        if cfg!(windows) {
            return;
        }
        assert_eq!(
            one("#!/usr/bin/env python2\nprint 1\n").command,
            "python2 \"/w/scripts/tool.py\""
        );
        assert_eq!(
            one("#!/usr/bin/python3.12\n").command,
            "python3.12 \"/w/scripts/tool.py\""
        );
        assert_eq!(
            one("#!/usr/bin/python\n").command,
            "python3 \"/w/scripts/tool.py\""
        );
    }

    #[test]
    fn uv_script_shebang_is_runnable() {
        let src = "#!/usr/bin/env -S uv run --script\n# /// script\n# dependencies = [\"httpx\"]\n# ///\n# Fetch the feed\nimport httpx\n";
        let p = parse_in(parse, &MemFs::new().exe("/w/fetch.py", src), "/w/fetch.py");
        let c = &p.commands[0];
        assert_eq!(c.command, "\"/w/fetch.py\"");
        assert_eq!(c.description.as_deref(), Some("Fetch the feed"));
    }

    #[test]
    fn library_modules_produce_nothing() {
        for src in [
            "def helper():\n    return 1\n",
            "",
            "# if __name__ == '__main__':\n",
            "x = '__name__ == \"__main__\"'\n",
            "#!/bin/sh\necho\n",
            "ifx __name__ == '__main__':\n",
            "if __name__ == '__notmain__':\n",
        ] {
            let p = parse_with(parse, "/w/utils.py", src);
            assert!(p.commands.is_empty(), "{src:?}");
            assert!(p.warnings.is_empty());
        }
    }

    #[test]
    fn the_byte_prefilter_never_rejects_a_runnable_file() {
        let runnable = [
            "#!/usr/bin/env python3\nprint(1)\n",
            "\u{feff}#!/usr/bin/python\n",
            "#!/usr/bin/env -S uv run --script\n",
            "import sys\nif __name__ == '__main__':\n    main()\n",
            "\u{feff}if (__name__ == \"__main__\"):\r\n    main()\r\n",
        ];
        for src in runnable {
            assert!(may_run(src.as_bytes()), "{src:?}");
            let text = crate::fs::decode(src.as_bytes()).unwrap();
            assert!(
                !parse_with(parse, "/w/x.py", &text).commands.is_empty(),
                "{src:?}"
            );
        }
        // What it rejects, the parser finds nothing in: no shebang and no `__main__`.
        for src in [
            "def helper():\n    return 1\n",
            "",
            "if __name__ == 'main':\n",
        ] {
            assert!(!may_run(src.as_bytes()), "{src:?}");
            assert!(parse_with(parse, "/w/x.py", src).commands.is_empty());
        }
        // Invalid UTF-8 is no reason to reject: the parser sees it decoded lossily.
        assert!(may_run(b"\xff\xfe\nif __name__ == '__main__':\n    go()\n"));
    }

    #[test]
    fn main_guard_spellings() {
        for guard in [
            "if __name__ == \"__main__\":",
            "if __name__=='__main__':",
            "if __name__  ==  '__main__' :  # pragma: no cover",
            "if (__name__ == \"__main__\"):",
            "if \"__main__\" == __name__:",
            "if __name__ == '__main__': main()",
            "    if __name__ == '__main__':",
        ] {
            let p = parse_with(
                parse,
                "/w/x.py",
                &format!("import sys\n{guard}\n    main()\n"),
            );
            assert_eq!(labels(&p), vec!["x.py"], "{guard}");
        }
    }

    #[test]
    fn argparse_long_option_wins_and_keeps_inner_dashes() {
        let c = one(
            "if __name__ == '__main__':\n    p.add_argument('-n', '--dry-run', action='store_true', help='Only print')\n",
        );
        let mut expected = flag("dry-run", "--dry-run", Some("Only print"));
        expected.switch = true;
        assert_eq!(c.params, vec![expected]);
    }

    #[test]
    fn argparse_positional_and_short_only() {
        let c = one(
            "if __name__ == '__main__':\n    p.add_argument('target', help='What to build')\n    p.add_argument('-v', action='count')\n",
        );
        let mut verbose = flag("v", "-v", None);
        verbose.switch = true;
        assert_eq!(
            c.params,
            vec![positional("target", Some("What to build"), None), verbose]
        );
    }

    #[test]
    fn argparse_default_and_choices() {
        let src = r#"import argparse
if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", default="dev", choices=["dev", "staging", "prod"], help="Target env")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--delta", type=int, default=-1)
    parser.add_argument("--level", choices=(1, 2, 3), default=None)
    parser.add_argument("--root", default=os.getcwd(), choices=sorted(x))
    parser.add_argument("--flag", default=False)
"#;
        let c = one(src);
        let by = |n: &str| c.params.iter().find(|p| p.name == n).unwrap().clone();
        assert_eq!(
            by("env"),
            ParamDef {
                name: "env".into(),
                description: Some("Target env".into()),
                default: Some("dev".into()),
                options: vec!["dev".into(), "staging".into(), "prod".into()],
                format: Some(ParamFormat::Flag),
                flag: Some("--env".into()),
                variadic: false,
                switch: false,
            }
        );
        assert_eq!(by("port").default.as_deref(), Some("8080"));
        assert_eq!(by("delta").default.as_deref(), Some("-1"));
        assert_eq!(by("level").options, vec!["1", "2", "3"]);
        assert_eq!(by("level").default, None);
        assert_eq!(by("root").default, None);
        assert!(by("root").options.is_empty());
        assert_eq!(by("flag").default, None);
        let names: Vec<&str> = c.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, vec!["env", "port", "delta", "level", "root", "flag"]);
    }

    #[test]
    fn argparse_multi_line_calls() {
        let src = r#"if __name__ == "__main__":
    parser.add_argument(
        "--config",  # the config file
        "-c",
        default='app.toml',
        help=(
            "Path to the configuration "
            'file (TOML)'
        ),
    )
    parser.add_argument(
        '--mode', choices=[
            'fast',
            'safe',  # default
        ],
        help="""Run mode""",
    )
"#;
        let c = one(src);
        assert_eq!(c.params.len(), 2);
        assert_eq!(c.params[0].name, "config");
        assert_eq!(c.params[0].flag.as_deref(), Some("--config"));
        assert_eq!(c.params[0].default.as_deref(), Some("app.toml"));
        // A parenthesised help is not a bare literal: only a direct literal is read.
        assert_eq!(c.params[0].description, None);
        assert_eq!(c.params[1].options, vec!["fast", "safe"]);
        assert_eq!(c.params[1].description.as_deref(), Some("Run mode"));
    }

    #[test]
    fn argparse_help_concatenation_escapes_and_formatting() {
        let src = "if __name__ == '__main__':\n    p.add_argument('--name', help='Who\\'s '\n        \"greeted \" 'here' % x)\n    p.add_argument(r'--re', help=r'a\\d+')\n";
        let c = one(src);
        assert_eq!(
            c.params[0].description.as_deref(),
            Some("Who's greeted here")
        );
        assert_eq!(c.params[1].name, "re");
        assert_eq!(c.params[1].description.as_deref(), Some("a\\d+"));
    }

    #[test]
    fn argparse_skips_help_version_suppressed_and_commented_calls() {
        let src = r#"if __name__ == "__main__":
    p.add_argument("--version", action="version", version="1.0")
    p.add_argument("--debug-internal", help=argparse.SUPPRESS)
    # p.add_argument("--old", help="gone")
    x = "p.add_argument('--fake')"
    p.add_argument(*NAMES)
    p.add_argument("--real")
    p.add_argument_group("g")
"#;
        let c = one(src);
        assert_eq!(c.params, vec![flag("real", "--real", None)]);
    }

    #[test]
    fn comment_params_win_over_argparse() {
        let src = r#"#!/usr/bin/env python3
# @param env Deployment target (default: staging) (options: staging, prod)
# @param dry Only pretend
import argparse
if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("target", help="Thing")
    p.add_argument("--env", default="dev", help="Environment")
"#;
        let c = one(src);
        assert_eq!(
            c.params,
            vec![
                positional("dry", Some("Only pretend"), None),
                positional("target", Some("Thing"), None),
                ParamDef {
                    name: "env".into(),
                    description: Some("Deployment target".into()),
                    default: Some("staging".into()),
                    options: vec!["staging".into(), "prod".into()],
                    format: Some(ParamFormat::Flag),
                    flag: Some("--env".into()),
                    variadic: false,
                    switch: false,
                },
            ]
        );
    }

    #[test]
    fn comment_param_without_text_is_kept_alone() {
        let c = one("#!/usr/bin/env python3\n# @param config\nimport os\n");
        assert_eq!(c.params, vec![positional("config", None, None)]);
    }

    #[test]
    fn upstream_python_debug_example() {
        let c = one(
            "#!/usr/bin/env python3\n# @param config Config file path\n# @param debug Enable debug mode (default: False)\n",
        );
        assert_eq!(
            c.params,
            vec![
                positional("config", Some("Config file path"), None),
                positional("debug", Some("Enable debug mode"), Some("False")),
            ]
        );
    }

    #[test]
    fn docstring_forms() {
        let guard = "\nif __name__ == '__main__':\n    pass\n";
        let d = |s: &str| one(&format!("{s}{guard}")).description;
        assert_eq!(
            d("\"\"\"\nDatabase migration tool.\n\nLonger text.\n\"\"\"").as_deref(),
            Some("Database migration tool.")
        );
        assert_eq!(
            d("'''Deploy to production environment\n\nMore.\n'''").as_deref(),
            Some("Deploy to production environment")
        );
        assert_eq!(
            d("#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\n\"\"\"One liner.\"\"\"")
                .as_deref(),
            Some("One liner.")
        );
        assert_eq!(
            d("r\"\"\"Raw doc \\d.\"\"\"").as_deref(),
            Some("Raw doc \\d.")
        );
        assert_eq!(
            d("\"Single quoted doc.\"").as_deref(),
            Some("Single quoted doc.")
        );
        assert_eq!(d("\"\"\"\n\n   \n\"\"\"\nimport os"), None);
        assert_eq!(
            d("\"\"\"   \n   Indented first line\n\"\"\"").as_deref(),
            Some("Indented first line")
        );
        // A first sentence running over lines is read whole; the next paragraph is not.
        assert_eq!(
            d("\"\"\"\nThis script is part of the release process which is triggered in the Actions\ntab of the repository.\n\nIt needs a token.\n\"\"\"").as_deref(),
            Some("This script is part of the release process which is triggered in the Actions tab of the repository.")
        );
        assert_eq!(
            d("\"\"\"Invoke development tasks.\nusage: release.py VERSION\"\"\"").as_deref(),
            Some("Invoke development tasks.")
        );
        assert_eq!(
            d("\"\"\"Build the wheels\nand upload them\"\"\"").as_deref(),
            Some("Build the wheels and upload them")
        );
    }

    #[test]
    fn docstring_after_license_comment_wins() {
        let c = one(
            "#!/usr/bin/env python3\n# Copyright 2024 Example Corp\n# SPDX-License-Identifier: MIT\n\"\"\"Rebuild the search index.\"\"\"\n",
        );
        assert_eq!(c.description.as_deref(), Some("Rebuild the search index."));
    }

    #[test]
    fn an_argparse_description_describes_a_script_that_says_nothing_else() {
        let src = "import argparse\n\ndef main():\n    parser = argparse.ArgumentParser(prog='scorecard', description=\"\"\"\n        Run a range of tests to give a scorecard for an HTTP protocol\n        implementation in curl.\n\n        More detail.\n        \"\"\")\n    parser.add_argument('--port', help='Port')\n\nif __name__ == \"__main__\":\n    main()\n";
        let p = parse_with(parse, "/w/scorecard.py", src);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some(
                "Run a range of tests to give a scorecard for an HTTP protocol implementation in curl."
            )
        );
        // A docstring still wins.
        let p = parse_with(
            parse,
            "/w/tool.py",
            &format!("\"\"\"Rebuild the index.\"\"\"\n{src}"),
        );
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Rebuild the index.")
        );
    }

    #[test]
    fn a_drawn_banner_is_not_the_description() {
        let p = parse_with(
            parse,
            "/w/combos.py",
            "#!/usr/bin/env python3\n#*************\n#  Project     ___| | | |  _ \\| |\n#\n# Copyright (C) Someone\n#\n# SPDX-License-Identifier: curl\n#\n#*************\n#\n# Print every combination of the options\nif __name__ == \"__main__\":\n    main()\n",
        );
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Print every combination of the options")
        );
    }

    #[test]
    fn licence_header_is_not_the_description() {
        let p = parse_with(
            parse,
            "/w/tool.py",
            "#!/usr/bin/env python3\n# Copyright 2020 Example Inc.\n# Licensed under the MIT license.\n\n# Rebuild the search index\nif __name__ == \"__main__\":\n    main()\n",
        );
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Rebuild the search index")
        );
    }

    #[test]
    fn first_comment_without_docstring() {
        let c = one(
            "#!/usr/bin/env python3\n# coding: utf-8\n# pylint: disable=all\n# pragma: no file cover\n# @param x X\n#\n# Deploy to production environment\nimport os\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some("Deploy to production environment")
        );
        assert_eq!(
            one("#!/usr/bin/env python3\nimport os\n# late\n").description,
            None
        );
        assert_eq!(one("#!/usr/bin/env python3\n").description, None);
    }

    #[test]
    fn unterminated_call_warns_and_keeps_the_rest() {
        let src = "#!/usr/bin/env python3\n\"\"\"Tool.\"\"\"\np.add_argument('--ok', help='fine')\np.add_argument('--broken',\n    help='never closed'\n";
        let p = parse_with(parse, "/w/t.py", src);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, Some(4));
        assert_eq!(p.warnings[0].message, "unterminated add_argument( call");
        let c = &p.commands[0];
        assert_eq!(c.params, vec![flag("ok", "--ok", Some("fine"))]);
        assert_eq!(c.description.as_deref(), Some("Tool."));
    }

    #[test]
    fn garbage_never_panics() {
        for src in [
            "#!python\n\u{1}\u{2}\u{fffd}add_argument(",
            "#!python\nadd_argument('",
            "#!python\nadd_argument(\"\"\"",
            "#!python\nadd_argument('\\",
            "#!python\nadd_argument)))((('a', b'\\x', f'{x}')",
            "#!python\n\"\"\"",
            "#!python\nr",
            "#!python\n'''\u{301}",
            "#!python\nadd_argument(é='ü', ='x', help=)",
            "#!python\nadd_argument(-)\nadd_argument('-')\nadd_argument('--')",
        ] {
            let p = parse_with(parse, "/w/g.py", src);
            assert_eq!(labels(&p), vec!["g.py"], "{src:?}");
        }
    }

    #[test]
    fn long_files_stay_fast() {
        let mut src = String::from("#!/usr/bin/env python3\n");
        for i in 0..20_000 {
            src.push_str(&format!(
                "p.add_argument('--o{i}', help='x')  # add_argument(\n"
            ));
        }
        src.push_str(&"add_argument(".repeat(20_000));
        let p = parse_with(parse, "/w/big.py", &src);
        assert_eq!(p.commands[0].params.len(), 20_000);
        assert_eq!(p.warnings.len(), 1);
    }
}
