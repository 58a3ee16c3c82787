//! YAML front matter: `---` on the first line, YAML, then `---` (or `...`); the rest is the body.
//! Errors carry the file line, so a warning can point at the broken key.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A file split into its front matter fields and its body.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter {
    /// Every field, unknown ones included (kept and ignored by the readers).
    pub fields: Map<String, Value>,
    /// File line (1-based) of each top-level key.
    pub key_lines: BTreeMap<String, u32>,
    /// The Markdown after the front matter.
    pub body: String,
    /// File line where the body starts.
    pub body_line: u32,
}

impl FrontMatter {
    pub fn line_of(&self, key: &str) -> Option<u32> {
        self.key_lines.get(key).copied()
    }
}

/// Why front matter could not be read; `line` is a file line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FmError {
    pub line: u32,
    pub message: String,
}

/// Splits `content`. A file without front matter is all body. Unquoted values holding `: ` (a
/// common mistake other readers accept) are quoted and the YAML read again before giving up.
pub fn split(content: &str) -> Result<FrontMatter, FmError> {
    let mut lines = content.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Ok(FrontMatter {
            body: content.to_string(),
            body_line: 1,
            ..Default::default()
        });
    }
    let mut yaml = String::new();
    let mut offset = first.len();
    let mut closed = None;
    for (i, line) in lines.enumerate() {
        offset += line.len();
        let t = line.trim_end();
        if t == "---" || t == "..." {
            closed = Some(i as u32 + 3);
            break;
        }
        yaml.push_str(line);
    }
    let Some(body_line) = closed else {
        return Err(FmError {
            line: 1,
            message: "front matter is not closed: no `---` line after the opening one".into(),
        });
    };
    let fields = match parse_yaml(&yaml) {
        Ok(f) => f,
        Err(first_error) => match lenient_quote(&yaml).map(|y| parse_yaml(&y)) {
            Some(Ok(f)) => f,
            _ => return Err(first_error),
        },
    };
    let key_lines = yaml
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let key = top_level_key(l)?;
            Some((key.to_string(), i as u32 + 2))
        })
        .fold(BTreeMap::new(), |mut m, (k, l)| {
            m.entry(k).or_insert(l);
            m
        });
    Ok(FrontMatter {
        fields,
        key_lines,
        body: content[offset..].to_string(),
        body_line,
    })
}

fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, FmError> {
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).map_err(|e| FmError {
        // The YAML starts on file line 2.
        line: e.location().map_or(2, |l| l.line() as u32 + 1),
        message: format!(
            "front matter is not valid YAML: {}",
            first_sentence(&e.to_string())
        ),
    })?;
    match to_json(v) {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        _ => Err(FmError {
            line: 2,
            message: "front matter must be a mapping of `key: value` lines".into(),
        }),
    }
}

/// serde_yaml_ng's messages end with " at line X column Y"; the warning gives the line itself.
fn first_sentence(s: &str) -> String {
    match s.find(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

fn top_level_key(line: &str) -> Option<&str> {
    if line.starts_with([' ', '\t', '#', '-']) {
        return None;
    }
    let (k, _) = line.split_once(':')?;
    let k = k.trim().trim_matches(['"', '\'']);
    (!k.is_empty()).then_some(k)
}

/// Quotes plain top-level values that hold `: `; `None` when nothing changed.
fn lenient_quote(yaml: &str) -> Option<String> {
    let mut changed = false;
    let out: Vec<String> = yaml
        .lines()
        .map(|l| {
            if let Some(key) = top_level_key(l)
                && let Some((_, value)) = l.split_once(':')
            {
                let v = value.trim();
                let plain_colon = v.contains(": ")
                    && !v.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!']);
                // Claude Code's `argument-hint: [pr-number] [priority]`: brackets, not a list.
                let bracket_words =
                    v.starts_with('[') && v.find(']').is_some_and(|i| i + 1 < v.len());
                if plain_colon || bracket_words {
                    changed = true;
                    return format!("{key}: '{}'", v.replace('\'', "''"));
                }
            }
            l.to_string()
        })
        .collect();
    changed.then(|| out.join("\n"))
}

fn to_json(v: serde_yaml_ng::Value) -> Value {
    use serde_yaml_ng::Value as Y;
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Value::Null, Value::Number)
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(s) => Value::Array(s.into_iter().map(to_json).collect()),
        Y::Mapping(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (scalar_text(&k), to_json(v)))
                .collect(),
        ),
        Y::Tagged(t) => to_json(t.value),
    }
}

fn scalar_text(v: &serde_yaml_ng::Value) -> String {
    use serde_yaml_ng::Value as Y;
    match v {
        Y::String(s) => s.clone(),
        Y::Bool(b) => b.to_string(),
        Y::Number(n) => n.to_string(),
        Y::Null => "null".into(),
        other => serde_yaml_ng::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

/// A field as text: strings as they are, numbers and booleans written out.
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A list field: a YAML list, or one string separated by commas or spaces (Claude Code's
/// `tools: Read, Grep`, Agent Skills' `allowed-tools: Bash(git:*) Read`). Separators inside
/// parentheses belong to the item (`Bash(git add:*)`).
pub fn list(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Array(a) => a.iter().map(text).collect(),
        Value::String(s) => Some(split_list(s)),
        Value::Null => Some(Vec::new()),
        _ => None,
    }
}

pub fn split_list(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        let t = cur.trim();
        if !t.is_empty() {
            out.push(t.to_string());
        }
        cur.clear();
    };
    for ch in s.chars() {
        match ch {
            '(' | '[' => {
                depth += 1;
                cur.push(ch)
            }
            ')' | ']' => {
                depth = depth.saturating_sub(1);
                cur.push(ch)
            }
            ',' if depth == 0 => flush(&mut cur, &mut out),
            c if c.is_whitespace() && depth == 0 => flush(&mut cur, &mut out),
            c => cur.push(c),
        }
    }
    flush(&mut cur, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_front_matter_is_all_body() {
        let f = split("# Title\n\ntext\n").unwrap();
        assert!(f.fields.is_empty());
        assert_eq!(f.body, "# Title\n\ntext\n");
        assert_eq!(f.body_line, 1);
    }

    #[test]
    fn fields_body_and_lines() {
        let f = split("---\nname: x\n# c\ndescription: \"d\"\ntools: [a, b]\n---\nbody\n").unwrap();
        assert_eq!(f.fields["name"], "x");
        assert_eq!(f.fields["tools"], serde_json::json!(["a", "b"]));
        assert_eq!(f.line_of("description"), Some(4));
        assert_eq!(f.body, "body\n");
        assert_eq!(f.body_line, 7);
    }

    #[test]
    fn errors_point_at_the_file_line() {
        let e = split("---\nname: x\ntools: [a, b\n---\nbody").unwrap_err();
        assert!(e.line >= 3, "{e:?}");
        assert!(
            e.message.starts_with("front matter is not valid YAML"),
            "{e:?}"
        );
        let e = split("---\nname: x\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = split("---\n- a\n- b\n---\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn unquoted_colons_are_read_leniently() {
        let f = split("---\ndescription: Use when: the API changes\n---\n").unwrap();
        assert_eq!(f.fields["description"], "Use when: the API changes");
    }

    #[test]
    fn bracketed_words_are_text() {
        let f = split("---\nargument-hint: [pr-number] [priority]\n---\n").unwrap();
        assert_eq!(f.fields["argument-hint"], "[pr-number] [priority]");
    }

    #[test]
    fn lists_in_every_spelling() {
        assert_eq!(
            split_list("Read, Grep,Bash(git add:*) Glob"),
            ["Read", "Grep", "Bash(git add:*)", "Glob"]
        );
        assert_eq!(
            list(&serde_json::json!(["a", 1])).unwrap(),
            ["a".to_string(), "1".to_string()]
        );
        assert!(list(&serde_json::json!({"a": 1})).is_none());
    }
}
