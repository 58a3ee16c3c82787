//! Small text helpers shared by the parsers, so every source treats quoting, truncation,
//! `(default: x)` markers and parse errors the same way, and finds the lines of keys the same
//! way where a parsed value no longer knows them.

use jsonc_parser::ast;
use std::collections::HashMap;
use std::path::Path;

/// Upstream's truncation: keep up to `max` chars, else the first `max - 3` plus `...`.
/// A run's duration as the run lists show it: `850ms`, `12.3s`, `4m05s`.
pub fn duration(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max.saturating_sub(3)).collect();
        out.push_str("...");
        out
    }
}

/// Double-quotes a string for POSIX shells (`"` `\` `$` and backtick escaped), so a path with
/// spaces or shell characters stays one word: `"/w/deploy prod.sh"`.
pub fn sh_quote_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

pub fn quote_path(p: &Path) -> String {
    sh_quote_double(&p.to_string_lossy())
}

/// A Markdown code fence for `text`: backticks, one more than the longest run of backticks
/// anywhere in it and at least three, so no line of the text can close the block early (a
/// closing fence must be at least as long as the opening one, and tildes never close a
/// backtick fence).
pub fn code_fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// Characters POSIX shells and fish treat as literal outside quotes. `=` too, except first
/// (zsh expands `=cmd` to the path of cmd).
pub fn is_plain_word(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('=')
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ':' | '@' | '+' | ',' | '=')
        })
}

/// POSIX single quotes: nothing inside is special, and a `'` is written `'\''`.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Quotes a word for a POSIX shell only when it needs it (task names such as `ns:build` stay
/// bare, `my task` becomes `'my task'`).
pub fn sh_word(s: &str) -> String {
    if is_plain_word(s) {
        s.to_string()
    } else {
        sh_quote(s)
    }
}

/// Splits `text (default: x) more` into (`text more`, Some(`x`)). The marker is
/// case-insensitive and ends at the first `)`. An empty default counts as none.
pub fn split_default(text: &str) -> (String, Option<String>) {
    let Some((before, inner, after)) = find_marker(text, "(default:") else {
        return (text.trim().to_string(), None);
    };
    let value = inner.trim().to_string();
    let rest = format!("{before}{after}")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (rest, (!value.is_empty()).then_some(value))
}

/// Splits `text (options: a, b, c) more` into (`text more`, [`a`, `b`, `c`]). The marker is
/// case-insensitive and ends at the first `)`; values are separated by `,` or `|`.
pub(crate) fn split_options(text: &str) -> (String, Vec<String>) {
    let Some((before, inner, after)) = find_marker(text, "(options:") else {
        return (text.trim().to_string(), Vec::new());
    };
    let options = inner
        .split([',', '|'])
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(str::to_string)
        .collect();
    let rest = format!("{before} {after}")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (rest, options)
}

/// The text before a case-insensitive `mark` such as `(default:`, between it and the first `)`
/// after it, and after that `)`. `None` without a mark or a closing `)`.
fn find_marker<'a>(text: &'a str, mark: &str) -> Option<(&'a str, &'a str, &'a str)> {
    // ASCII lowercasing keeps byte offsets, so a position in the lowercased copy is valid in
    // `text`.
    let start = text.to_ascii_lowercase().find(mark)?;
    let after = start + mark.len();
    let close = after + text.get(after..)?.find(')')?;
    Some((
        text.get(..start)?,
        text.get(after..close)?,
        text.get(close + 1..)?,
    ))
}

/// The first non-blank line, when it is a comment with `prefix`: its text (upstream
/// `parseFirstLineComment`).
pub fn first_line_comment(content: &str, prefix: &str) -> Option<String> {
    let line = content.lines().map(str::trim).find(|l| !l.is_empty())?;
    let rest = line.strip_prefix(prefix)?.trim();
    (!rest.is_empty()).then(|| rest.to_string())
}

/// 1-based line number of byte offset `pos` in `content`.
pub fn line_of(content: &str, pos: usize) -> usize {
    content.as_bytes()[..pos.min(content.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Byte offset → 1-based line by binary search, for parsers that look up many positions in one
/// text (`line_of` and roxmltree's `text_pos_at` rescan from the start each time).
pub(crate) struct LineIndex(Vec<usize>);

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        LineIndex(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        )
    }
    pub(crate) fn line(&self, pos: usize) -> usize {
        self.0.partition_point(|&nl| nl < pos) + 1
    }
}

/// Parses JSON that may hold comments and trailing commas (VS Code's JSONC). On failure, the
/// error message carries the line when the parser knows it.
pub fn parse_jsonc(content: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    let opts = jsonc_parser::ParseOptions::default();
    jsonc_parser::parse_to_serde_value::<serde_json::Value>(content, &opts)
        .map_err(|e| jsonc_error(content, &e))
}

fn jsonc_error(content: &str, e: &jsonc_parser::errors::ParseError) -> (Option<usize>, String) {
    let line = Some(line_of(content, e.range().start));
    (line, format!("invalid JSON: {}", e.kind()))
}

/// Strict JSON (package.json, composer.json) with the line of the error.
pub fn parse_json(content: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    serde_json::from_str(content).map_err(|e| (Some(e.line()), format!("invalid JSON: {e}")))
}

/// The jsonc-parser AST of a JSON(C) text, read with the options `parse_jsonc` uses (strict
/// JSON is a subset). Sources read it for what serde_json drops: key order and positions.
/// `Ok(None)` for an empty text.
pub(crate) fn parse_jsonc_ast(
    content: &str,
) -> Result<Option<ast::Value<'_>>, (Option<usize>, String)> {
    let opts = jsonc_parser::ParseOptions::default();
    jsonc_parser::parse_to_ast(content, &Default::default(), &opts)
        .map(|r| r.value)
        .map_err(|e| jsonc_error(content, &e))
}

/// The AST when the text parses, for sources that validated it another way and only want
/// positions: without it they go on without lines.
pub(crate) fn json_ast(content: &str) -> Option<ast::Value<'_>> {
    parse_jsonc_ast(content).ok().flatten()
}

/// The last property named `key`, the one whose value serde_json keeps too.
fn ast_prop_entry<'x, 'a>(obj: &'x ast::Object<'a>, key: &str) -> Option<&'x ast::ObjectProp<'a>> {
    obj.properties.iter().rev().find(|p| p.name.as_str() == key)
}

/// The AST value matching what `serde_json` gives for `obj[key]`.
pub(crate) fn ast_prop<'x, 'a>(obj: &'x ast::Object<'a>, key: &str) -> Option<&'x ast::Value<'a>> {
    ast_prop_entry(obj, key).map(|p| &p.value)
}

/// The line of that property, for warnings about its value.
pub(crate) fn ast_prop_line(obj: &ast::Object<'_>, key: &str, lines: &LineIndex) -> Option<usize> {
    ast_prop_entry(obj, key).map(|p| lines.line(p.range.start))
}

/// YAML to a JSON value, so the parsers handle one value model.
pub fn parse_yaml(content: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    parse_yaml_value(content).map(yaml_to_json)
}

/// YAML as serde_yaml_ng's own value, for sources that need the file order of mappings (the
/// JSON value of `parse_yaml` sorts keys).
pub(crate) fn parse_yaml_value(
    content: &str,
) -> Result<serde_yaml_ng::Value, (Option<usize>, String)> {
    serde_yaml_ng::from_str(content)
        .map_err(|e| (e.location().map(|l| l.line()), format!("invalid YAML: {e}")))
}

fn yaml_to_json(v: serde_yaml_ng::Value) -> serde_json::Value {
    use serde_json::Value as J;
    use serde_yaml_ng::Value as Y;
    match v {
        Y::Null => J::Null,
        Y::Bool(b) => J::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                J::from(i)
            } else if let Some(u) = n.as_u64() {
                J::from(u)
            } else {
                serde_json::Number::from_f64(n.as_f64().unwrap_or(0.0))
                    .map(J::Number)
                    .unwrap_or(J::Null)
            }
        }
        Y::String(s) => J::String(s),
        Y::Sequence(s) => J::Array(s.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(m) => {
            let mut out = serde_json::Map::new();
            for (k, v) in m {
                let key = match k {
                    Y::String(s) => s,
                    Y::Bool(b) => b.to_string(),
                    Y::Number(n) => n.to_string(),
                    Y::Null => "null".to_string(),
                    _ => continue,
                };
                out.insert(key, yaml_to_json(v));
            }
            J::Object(out)
        }
        Y::Tagged(t) => yaml_to_json(t.value),
    }
}

/// TOML with the line of the error.
pub fn parse_toml(content: &str) -> Result<toml::Table, (Option<usize>, String)> {
    content
        .parse::<toml::Table>()
        .map_err(|e| toml_error(content, &e))
}

/// TOML with the spans of keys and values, for sources that need the file order or lines of
/// keys (`toml::Table` sorts them and keeps no positions).
pub(crate) fn parse_toml_spanned(
    content: &str,
) -> Result<toml::de::DeTable<'_>, (Option<usize>, String)> {
    toml::de::DeTable::parse(content)
        .map(toml::Spanned::into_inner)
        .map_err(|e| toml_error(content, &e))
}

fn toml_error(content: &str, e: &toml::de::Error) -> (Option<usize>, String) {
    let line = e.span().map(|s| line_of(content, s.start));
    (line, format!("invalid TOML: {}", e.message()))
}

/// 1-based lines of the keys of the object found at `parent` (a path of keys from the top-level
/// object) in a JSON or JSONC text. A single forward scan with an explicit stack, so deeply
/// nested input costs neither recursion nor memory beyond the stack itself.
pub(crate) fn json_key_lines(content: &str, parent: &[&str]) -> Vec<(String, usize)> {
    struct Frame {
        object: bool,
        expect_key: bool,
        key: Option<String>,
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut out = Vec::new();
    let mut line = 1usize;
    let mut chars = content.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            '\n' => line += 1,
            '/' if chars.peek().map(|&(_, n)| n) == Some('/') => {
                for (_, n) in chars.by_ref() {
                    if n == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '/' if chars.peek().map(|&(_, n)| n) == Some('*') => {
                chars.next();
                let mut prev = ' ';
                for (_, n) in chars.by_ref() {
                    if n == '\n' {
                        line += 1;
                    }
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            '{' | '[' => stack.push(Frame {
                object: c == '{',
                expect_key: c == '{',
                key: None,
            }),
            '}' | ']' => {
                stack.pop();
            }
            ',' => {
                if let Some(top) = stack.last_mut() {
                    top.expect_key = top.object;
                }
            }
            ':' => {
                if let Some(top) = stack.last_mut() {
                    top.expect_key = false;
                }
            }
            '"' => {
                let key_line = line;
                let mut end = content.len();
                let mut escaped = false;
                for (i, n) in chars.by_ref() {
                    if n == '\n' {
                        line += 1;
                    }
                    if escaped {
                        escaped = false;
                    } else if n == '\\' {
                        escaped = true;
                    } else if n == '"' {
                        end = i + 1;
                        break;
                    }
                }
                let Some(top) = stack.last_mut() else {
                    continue;
                };
                if !(top.object && top.expect_key) {
                    continue;
                }
                let raw = content.get(start..end).unwrap_or("");
                let key = serde_json::from_str::<String>(raw)
                    .unwrap_or_else(|_| raw.trim_matches('"').to_string());
                top.expect_key = false;
                let depth = stack.len();
                if depth == parent.len() + 1
                    && stack[..depth - 1]
                        .iter()
                        .zip(parent)
                        .all(|(f, p)| f.object && f.key.as_deref() == Some(*p))
                {
                    out.push((key.clone(), key_line));
                }
                if let Some(top) = stack.last_mut() {
                    top.key = Some(key);
                }
            }
            _ => {}
        }
    }
    out
}

/// Key → line of its first occurrence, from `json_key_lines`.
pub(crate) fn first_lines(keys: &[(String, usize)]) -> HashMap<&str, usize> {
    let mut out = HashMap::new();
    for (k, l) in keys {
        out.entry(k.as_str()).or_insert(*l);
    }
    out
}

/// Where keys are defined in a TOML text (the parsed table has no positions): the 1-based
/// line of the first definition of each key path — a `[a.b]` header, `k = ...` under a header,
/// or a dotted `x.k = ...`. One line scan that skips the inside of multi-line strings and
/// arrays; paths are kept to `MAX_KEY_DEPTH` keys, which bounds the memory on hostile input.
pub(crate) struct TomlLines {
    first: HashMap<Vec<String>, usize>,
}

const MAX_KEY_DEPTH: usize = 8;

impl TomlLines {
    pub(crate) fn new(content: &str) -> Self {
        let mut first: HashMap<Vec<String>, usize> = HashMap::new();
        let mut record = |path: &[String], line: usize| {
            for n in 1..=path.len().min(MAX_KEY_DEPTH) {
                if !first.contains_key(&path[..n]) {
                    first.insert(path[..n].to_vec(), line);
                }
            }
        };
        let mut header: Vec<String> = Vec::new();
        let mut multi: Option<&str> = None;
        let mut depth: i32 = 0;
        for (idx, raw) in content.lines().enumerate() {
            let line = raw.trim();
            if let Some(delim) = multi {
                if line.matches(delim).count() % 2 == 1 {
                    multi = None;
                }
                continue;
            }
            if depth > 0 {
                depth += bracket_balance(line);
                continue;
            }
            if line.starts_with('[') {
                let inner = line.trim_start_matches('[');
                let end = closing_bracket(inner).unwrap_or(inner.len());
                header = split_dotted(&inner[..end]);
                header.truncate(MAX_KEY_DEPTH);
                record(&header, idx + 1);
                continue;
            }
            let Some((k, value)) = split_assignment(line) else {
                continue;
            };
            let mut path = header.clone();
            path.extend(split_dotted(k).into_iter().take(MAX_KEY_DEPTH));
            record(&path, idx + 1);
            for delim in ["\"\"\"", "'''"] {
                if value.matches(delim).count() % 2 == 1 {
                    multi = Some(delim);
                }
            }
            if multi.is_none() {
                depth = bracket_balance(value).max(0);
            }
        }
        TomlLines { first }
    }

    /// The line of `key` in the table at `table`.
    pub(crate) fn line(&self, table: &[&str], key: &str) -> Option<usize> {
        let path: Vec<String> = table
            .iter()
            .copied()
            .chain([key])
            .map(str::to_string)
            .collect();
        self.first.get(&path).copied()
    }
}

/// One-off lookup; build a `TomlLines` for several.
pub(crate) fn toml_key_line(content: &str, table: &[&str], key: &str) -> Option<usize> {
    TomlLines::new(content).line(table, key)
}

/// Net `[`/`{` opened on a line, outside strings and comments.
fn bracket_balance(line: &str) -> i32 {
    let mut n = 0;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' | '{' => n += 1,
                ']' | '}' => n -= 1,
                '#' => break,
                _ => {}
            },
        }
    }
    n
}

/// Byte index of the `]` ending a header's key, outside quotes.
fn closing_bracket(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == ']' => return Some(i),
            None => {}
        }
    }
    None
}

/// `key = value` split at the first `=` outside quotes.
fn split_assignment(line: &str) -> Option<(&str, &str)> {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '=' => return Some((&line[..i], &line[i + 1..])),
            None if c == '#' => return None,
            None => {}
        }
    }
    None
}

fn split_dotted(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in key.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '.' => parts.push(std::mem::take(&mut cur).trim().to_string()),
            None => cur.push(c),
        }
    }
    parts.push(cur.trim().to_string());
    parts
}

/// `*` matching any run of characters, everything else itself (npm-run-all's `build:*`, mise
/// `depends = ["lint:*"]`).
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(at) => rest = &rest[at + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_fence_is_longer_than_any_backtick_run() {
        assert_eq!(code_fence("plain"), "```");
        assert_eq!(code_fence("a `b` c"), "```");
        assert_eq!(code_fence("```\nx\n```"), "````");
        assert_eq!(code_fence("~~~~~~~~\n```````"), "````````");
    }

    #[test]
    fn truncation_matches_upstream() {
        assert_eq!(truncate("short", 60), "short");
        let long = "x".repeat(61);
        let t = truncate(&long, 60);
        assert_eq!(t.chars().count(), 60);
        assert!(t.ends_with("..."));
        assert_eq!(truncate(&"y".repeat(60), 60), "y".repeat(60));
    }

    #[test]
    fn default_marker() {
        assert_eq!(
            split_default("Build configuration (default: debug)"),
            ("Build configuration".into(), Some("debug".into()))
        );
        assert_eq!(
            split_default("The env (DEFAULT: dev) here"),
            ("The env here".into(), Some("dev".into()))
        );
        assert_eq!(split_default("x (default: )"), ("x".into(), None));
        assert_eq!(split_default("no marker"), ("no marker".into(), None));
    }

    #[test]
    fn quoting() {
        assert_eq!(
            sh_quote_double("/w/deploy prod.sh"),
            "\"/w/deploy prod.sh\""
        );
        assert_eq!(sh_quote_double("a\"$`\\b"), "\"a\\\"\\$\\`\\\\b\"");
        assert_eq!(sh_word("ns:build"), "ns:build");
        assert_eq!(sh_word("it's"), "'it'\\''s'");
        assert_eq!(sh_word(""), "''");
    }

    #[test]
    fn first_comment() {
        assert_eq!(
            first_line_comment("\n\n// Hello\ncode", "//").as_deref(),
            Some("Hello")
        );
        assert_eq!(first_line_comment("//\ncode", "//"), None);
        assert_eq!(first_line_comment("code\n// later", "//"), None);
    }

    #[test]
    fn jsonc_with_comments_and_trailing_commas() {
        let v = parse_jsonc("{ // c\n \"a\": [1, 2,], /* b */ }").unwrap();
        assert_eq!(v["a"][1], 2);
        let (line, msg) = parse_jsonc("{\n\"a\": \n}").unwrap_err();
        assert_eq!(line, Some(3));
        assert!(msg.contains("invalid JSON"));
    }

    #[test]
    fn line_index_counts_newlines_before_the_offset() {
        let idx = LineIndex::new("a\nbc\n\nd");
        let lines: Vec<_> = [0, 1, 2, 4, 5, 6, 99]
            .iter()
            .map(|p| idx.line(*p))
            .collect();
        assert_eq!(lines, [1, 1, 2, 2, 3, 4, 4]);
    }

    #[test]
    fn line_index_at_line_starts() {
        let l = LineIndex::new("ab\ncd\n\nx");
        assert_eq!(
            [
                l.line(0),
                l.line(2),
                l.line(3),
                l.line(6),
                l.line(7),
                l.line(99)
            ],
            [1, 1, 2, 3, 4, 4]
        );
    }

    #[test]
    fn key_lines_ignore_nested_strings_and_comments() {
        let text = "{\n \"a\": {\"x\": 1},\n /* \"tasks\": { \"no\": 1 } */\n \"tasks\": {\n  \"b\\\"q\": {\"env\": \"tasks\"},\n  // \"c\": 1\n  \"c\": [ {\"d\": 2} ]\n }\n}";
        let lines = json_key_lines(text, &["tasks"]);
        assert_eq!(lines, [("b\"q".to_string(), 5), ("c".to_string(), 7)]);
        assert_eq!(json_key_lines(text, &[]).len(), 2);
        assert!(json_key_lines(&"[{".repeat(100_000), &["a"]).is_empty());
    }

    #[test]
    fn key_line_finder() {
        let text = "[a]\nx = \"\"\"\n[b]\ny = 1\n\"\"\"\nlist = [\n  [1],\n]\n[b]\n\"q.k\" = 2\nc.d = 3\n[b.e]\n";
        assert_eq!(toml_key_line(text, &["b"], "y"), None);
        assert_eq!(toml_key_line(text, &["b"], "q.k"), Some(10));
        assert_eq!(toml_key_line(text, &["b", "c"], "d"), Some(11));
        assert_eq!(toml_key_line(text, &["b"], "e"), Some(12));
        assert_eq!(toml_key_line(text, &["a"], "list"), Some(6));
    }
    #[test]
    fn wildcards() {
        assert!(wildcard_match("build:*", "build:a"));
        assert!(wildcard_match("*:a", "build:a"));
        assert!(wildcard_match("a*b*c", "axxbyyc"));
        assert!(!wildcard_match("a*b*c", "axxc"));
        assert!(!wildcard_match("build", "build:a"));
    }
}
