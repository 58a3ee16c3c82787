//! Small text helpers shared by the parsers, so every source treats quoting, truncation and
//! `(default: x)` markers the same way.

use std::path::Path;

/// Upstream's truncation: keep up to `max` chars, else the first `max - 3` plus `...`.
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

/// Quotes a word for a POSIX shell only when it needs it (task names such as `ns:build` stay
/// bare, `my task` becomes `'my task'`).
pub fn sh_word(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '/' | ':' | '@' | '+' | '=' | ',')
        });
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Splits `text (default: x) more` into (`text more`, Some(`x`)). The marker is
/// case-insensitive and ends at the first `)`. An empty default counts as none.
pub fn split_default(text: &str) -> (String, Option<String>) {
    let lower = text.to_ascii_lowercase();
    let Some(start) = lower.find("(default:") else {
        return (text.trim().to_string(), None);
    };
    let after = start + "(default:".len();
    let Some(close_rel) = text[after..].find(')') else {
        return (text.trim().to_string(), None);
    };
    let value = text[after..after + close_rel].trim().to_string();
    let mut rest = String::new();
    rest.push_str(&text[..start]);
    rest.push_str(&text[after + close_rel + 1..]);
    let rest = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    (rest, (!value.is_empty()).then_some(value))
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

/// Parses JSON that may hold comments and trailing commas (VS Code's JSONC). On failure, the
/// error message carries the line when the parser knows it.
pub fn parse_jsonc(content: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    let opts = jsonc_parser::ParseOptions::default();
    match jsonc_parser::parse_to_serde_value::<serde_json::Value>(content, &opts) {
        Ok(v) => Ok(v),
        Err(e) => {
            let line = Some(line_of(content, e.range().start));
            Err((line, format!("invalid JSON: {}", e.kind())))
        }
    }
}

/// Strict JSON (package.json, composer.json) with the line of the error.
pub fn parse_json(content: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    serde_json::from_str(content).map_err(|e| (Some(e.line()), format!("invalid JSON: {e}")))
}

/// YAML to a JSON value, so the parsers handle one value model.
pub fn parse_yaml(content: &str) -> Result<serde_json::Value, (Option<usize>, String)> {
    match serde_yaml_ng::from_str::<serde_yaml_ng::Value>(content) {
        Ok(v) => Ok(yaml_to_json(v)),
        Err(e) => Err((e.location().map(|l| l.line()), format!("invalid YAML: {e}"))),
    }
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
    content.parse::<toml::Table>().map_err(|e| {
        let line = e.span().map(|s| line_of(content, s.start));
        (line, format!("invalid TOML: {}", e.message()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
