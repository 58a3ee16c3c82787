//! Small text helpers shared by the parsers, so every source treats quoting, truncation,
//! `(default: x)` markers and parse errors the same way. Where a source needs the lines of keys,
//! it reads them from the tree `crate::syntax` parsed, never from the text.

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

/// The index of the line (`---` or `...`) that closes the front matter `lines[0]` opens, or the
/// error of one left open, as a parse warning at line 1.
pub fn front_matter_end(lines: &[&str]) -> Result<usize, (Option<usize>, String)> {
    lines
        .iter()
        .skip(1)
        .position(|l| matches!(l.trim_end(), "---" | "..."))
        .map(|p| p + 1)
        .ok_or((Some(1), "the front matter has no closing `---`".to_string()))
}

/// YAML to a JSON value, so the parsers handle one value model. Sources that need the file
/// order of mappings or lines use `syntax::yaml` (the JSON value sorts keys).
pub fn parse_yaml(content: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    crate::syntax::yaml::parse(content).map(|doc| yaml_to_json(doc.value))
}

pub(crate) fn yaml_to_json(v: serde_yaml_ng::Value) -> serde_json::Value {
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

fn toml_error(content: &str, e: &toml::de::Error) -> (Option<usize>, String) {
    let line = e.span().map(|s| line_of(content, s.start));
    (line, format!("invalid TOML: {}", e.message()))
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
    fn wildcards() {
        assert!(wildcard_match("build:*", "build:a"));
        assert!(wildcard_match("*:a", "build:a"));
        assert!(wildcard_match("a*b*c", "axxbyyc"));
        assert!(!wildcard_match("a*b*c", "axxc"));
        assert!(!wildcard_match("build", "build:a"));
    }
}
