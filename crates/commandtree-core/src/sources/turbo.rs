//! Turborepo tasks from `turbo.json`: `tasks` (turbo 2) or `pipeline` (turbo 1). Names may be
//! plain (`build`), package-scoped (`web#build`) or root-only (`//#format`); turbo accepts all
//! three forms on `turbo run`. The command goes through `npx` so it works whether turbo is a
//! local dev dependency or not installed at all; persistent (dev-server) tasks are listed too.

use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::text::{parse_jsonc, sh_word};
use serde_json::Value;

const KIND: &str = "turbo";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let root = match parse_jsonc(file.content) {
        Ok(v) => v,
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let Some(obj) = root.as_object() else {
        return Parsed::with_warning(file.path, None, "turbo.json is not a JSON object");
    };
    let key = if obj.contains_key("tasks") {
        "tasks"
    } else {
        "pipeline"
    };
    let Some(tasks) = obj.get(key) else {
        return Parsed::default();
    };
    let Some(tasks) = tasks.as_object() else {
        return Parsed::with_warning(file.path, None, format!("`{key}` is not an object"));
    };
    let lines = json_key_lines(file.content, &[key]);
    let line_by_key = first_lines(&lines);
    let mut out = Parsed::default();
    for (name, def) in tasks {
        let line = line_by_key.get(name.as_str()).copied();
        let mut item = CommandItem::new(
            KIND,
            file.path,
            name,
            format!("npx turbo run {}", sh_word(name)),
        )
        .opt_description(describe(def));
        if let Some(l) = line {
            item = item.line(l);
        }
        out.commands.push(item);
    }
    sort_in_file_order(&mut out.commands, &lines);
    out
}

fn describe(def: &Value) -> Option<String> {
    let mut parts = Vec::new();
    let deps: Vec<&str> = def
        .get("dependsOn")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !deps.is_empty() {
        parts.push(format!("depends on {}", deps.join(", ")));
    }
    if def.get("persistent").and_then(Value::as_bool) == Some(true) {
        parts.push("persistent (long-running)".to_string());
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// Key → line of its first occurrence.
pub(crate) fn first_lines(keys: &[(String, usize)]) -> std::collections::HashMap<&str, usize> {
    let mut out = std::collections::HashMap::new();
    for (k, l) in keys {
        out.entry(k.as_str()).or_insert(*l);
    }
    out
}

/// JSON objects arrive with their keys sorted; users expect the file order, which `keys` (from
/// `json_key_lines`) holds. Items are matched on their id name.
pub(crate) fn sort_in_file_order(items: &mut [CommandItem], keys: &[(String, usize)]) {
    let mut rank = std::collections::HashMap::new();
    for (i, (k, _)) in keys.iter().enumerate() {
        rank.entry(k.as_str()).or_insert(i);
    }
    items.sort_by_key(|c| rank.get(c.id_name()).copied().unwrap_or(usize::MAX));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    const TURBO2: &str = r#"{
  "$schema": "https://turborepo.com/schema.json",
  // comments are allowed in turbo.json
  "tasks": {
    "build": {
      "dependsOn": ["^build"],
      "outputs": [".next/**", "!.next/cache/**"]
    },
    "lint": {},
    "dev": { "cache": false, "persistent": true },
    "web#build": { "dependsOn": ["^build", "codegen"] },
    "//#format": {},
  }
}
"#;

    #[test]
    fn turbo2_tasks_in_file_order() {
        let p = parse_with(parse, "/w/turbo.json", TURBO2);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            ["build", "lint", "dev", "web#build", "//#format"]
        );
        let lines: Vec<_> = p.commands.iter().map(|c| c.line).collect();
        assert_eq!(lines, [Some(5), Some(9), Some(10), Some(11), Some(12)]);
    }

    #[test]
    fn commands_ids_and_descriptions() {
        let p = parse_with(parse, "/w/turbo.json", TURBO2);
        let get = |l: &str| p.commands.iter().find(|c| c.label == l).unwrap();
        assert_eq!(get("build").command, "npx turbo run build");
        assert_eq!(get("build").id, "turbo:/w/turbo.json:build");
        assert_eq!(
            get("build").description.as_deref(),
            Some("depends on ^build")
        );
        assert_eq!(get("lint").description, None);
        assert_eq!(
            get("dev").description.as_deref(),
            Some("persistent (long-running)")
        );
        assert_eq!(get("web#build").command, "npx turbo run 'web#build'");
        assert_eq!(get("web#build").id, "turbo:/w/turbo.json:web#build");
        assert_eq!(
            get("web#build").description.as_deref(),
            Some("depends on ^build, codegen")
        );
        assert_eq!(get("//#format").command, "npx turbo run '//#format'");
        assert_eq!(get("build").cwd, "/w");
    }

    #[test]
    fn turbo1_pipeline() {
        let p = parse_with(
            parse,
            "/w/apps/web/turbo.json",
            r#"{"extends": ["//"], "pipeline": {"test": {"dependsOn": ["build"]}, "build": {}}}"#,
        );
        assert_eq!(labels(&p), ["test", "build"]);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("depends on build")
        );
        assert_eq!(p.commands[0].cwd, "/w/apps/web");
    }

    #[test]
    fn no_tasks_is_empty_without_warning() {
        let p = parse_with(parse, "/w/turbo.json", r#"{"globalEnv": ["CI"]}"#);
        assert!(p.commands.is_empty() && p.warnings.is_empty());
    }

    #[test]
    fn malformed_warns() {
        let p = parse_with(
            parse,
            "/w/turbo.json",
            "{\n  \"tasks\": {\n    \"build\": \n",
        );
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].message.starts_with("invalid JSON"));

        let p = parse_with(parse, "/w/turbo.json", r#"{"tasks": ["build"]}"#);
        assert_eq!(p.warnings[0].message, "`tasks` is not an object");
        let p = parse_with(parse, "/w/turbo.json", "[1,2]");
        assert_eq!(p.warnings[0].message, "turbo.json is not a JSON object");
        let p = parse_with(parse, "/w/turbo.json", "\u{1}\u{FFFD}{{{{");
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn key_lines_ignore_nested_strings_and_comments() {
        let text = "{\n \"a\": {\"x\": 1},\n /* \"tasks\": { \"no\": 1 } */\n \"tasks\": {\n  \"b\\\"q\": {\"env\": \"tasks\"},\n  // \"c\": 1\n  \"c\": [ {\"d\": 2} ]\n }\n}";
        let lines = json_key_lines(text, &["tasks"]);
        assert_eq!(lines, [("b\"q".to_string(), 5), ("c".to_string(), 7)]);
        assert_eq!(json_key_lines(text, &[]).len(), 2);
        assert!(json_key_lines(&"[{".repeat(100_000), &["a"]).is_empty());
    }
}
