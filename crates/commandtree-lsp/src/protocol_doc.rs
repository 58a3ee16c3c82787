//! `docs/lsp-protocol.md` against the protocol's types ([`crate::protocol`]): every
//! `commandtree/*` method the server answers, sends or reads is documented under its section,
//! with the fields of its params and result, and the document describes no method or field the
//! types lack. The fields come from the types' JSON schemas, so a field added, renamed or
//! removed on one side only fails here.
//!
//! What is read from the document: in a method's text (its `### ` section, or its `- ` item
//! among the client notifications), each `Params:` and `Result:` (also `Params (full form):`)
//! is followed by a JSON-like example, inline or in a fenced block; its quoted keys are the
//! fields (`"shell"?:` for one that may be left out), `none` or `null` means no fields, and a
//! bare type name (`CommandItem`) stands for a type described under "Types".

use crate::protocol::Direction;
use crate::protocol_schema::{Catalog, catalog};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const DOC: &str = include_str!("../../../docs/lsp-protocol.md");

/// The `commandtree/*` names in the `### ` headings (or `- ` items) of the `## ` section titled
/// `title`.
fn documented(title: &str, items: bool) -> BTreeSet<String> {
    let mut inside = false;
    let mut out = BTreeSet::new();
    for line in DOC.lines() {
        if let Some(t) = line.strip_prefix("## ") {
            inside = t.trim() == title;
            continue;
        }
        let read = if items {
            line.starts_with("- ")
        } else {
            line.starts_with("### ")
        };
        if inside && read {
            out.extend(methods_in(line));
        }
    }
    out
}

/// Every `commandtree/name` in `text`.
fn methods_in(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("commandtree/") {
        let tail = &rest[at + "commandtree/".len()..];
        let name: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if !name.is_empty() {
            out.insert(format!("commandtree/{name}"));
        }
        rest = &tail[name.len()..];
    }
    out
}

/// The methods of the code going `direction`.
fn in_code(direction: Direction) -> BTreeSet<String> {
    crate::protocol_schema::infos()
        .into_iter()
        .filter(|i| i.direction == direction)
        .map(|i| i.method.to_string())
        .collect()
}

#[track_caller]
fn same(section: &str, doc: BTreeSet<String>, code: BTreeSet<String>) {
    let only_doc: Vec<&String> = doc.difference(&code).collect();
    let only_code: Vec<&String> = code.difference(&doc).collect();
    assert!(
        only_doc.is_empty() && only_code.is_empty(),
        "docs/lsp-protocol.md \"{section}\" and the code disagree: documented only {only_doc:?}, \
         in the code only {only_code:?}"
    );
}

#[test]
fn every_request_the_server_answers_is_documented_and_the_reverse() {
    same(
        "Requests",
        documented("Requests", false),
        in_code(Direction::ClientRequest),
    );
}

#[test]
fn every_request_and_notification_the_server_sends_is_documented_and_the_reverse() {
    same(
        "Requests from the server",
        documented("Requests from the server", false),
        in_code(Direction::ServerRequest),
    );
    same(
        "Notifications from the server",
        documented("Notifications from the server", false),
        in_code(Direction::ServerNotification),
    );
}

#[test]
fn every_client_notification_the_server_reads_is_documented_and_the_reverse() {
    same(
        "Client notifications the server reads",
        documented("Client notifications the server reads", true),
        in_code(Direction::ClientNotification),
    );
}

/// A method named anywhere but in the protocol's types would be one the checks above miss.
#[test]
fn methods_are_named_only_by_the_protocol_types() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".rs") || name.starts_with("protocol") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Up to the unit tests, which may speak the wire as a client does.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            if line.contains("\"commandtree/") {
                found.push(format!("{name}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "name methods through crate::protocol's types (`X::METHOD`), not as text:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_method_reader_finds_names_in_text() {
    let found = methods_in("### `commandtree/context`, `commandtree/addContext`, x/y");
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["commandtree/addContext", "commandtree/context"]
    );
}

/// Each documented method's text: its `### ` section, or its `- ` item among the client
/// notifications.
fn method_texts() -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut section = "";
    for line in DOC.lines() {
        if let Some(t) = line.strip_prefix("## ") {
            section = t.trim();
            current = None;
            continue;
        }
        let starts_item =
            section == "Client notifications the server reads" && line.starts_with("- ");
        if line.starts_with("### ") || starts_item {
            let names = methods_in(line);
            current = (names.len() == 1).then(|| names.into_iter().next().unwrap());
            if let Some(m) = &current {
                assert!(
                    !out.contains_key(m),
                    "{m} has two sections in docs/lsp-protocol.md"
                );
                out.insert(m.clone(), String::new());
            }
        }
        if let Some(m) = &current {
            let text = out.get_mut(m).unwrap();
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

/// The examples after each `word:` (or `word (note):`) in `text`: the JSON-like text of each,
/// empty for `none` or `null`.
fn examples<'a>(text: &'a str, word: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(word).map(|i| from + i) {
        from = at + word.len();
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric()) {
            continue;
        }
        let mut rest = &text[from..];
        if let Some(note) = rest.strip_prefix(" (") {
            match note.find(')') {
                Some(end) => rest = &note[end + 1..],
                None => continue,
            }
        }
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let start = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '`');
        if start.starts_with("none") || start.starts_with("null") {
            out.push("");
            continue;
        }
        let Some(open) = rest.find('{') else {
            panic!("no example after `{word}:` in:\n{text}");
        };
        out.push(balanced(&rest[open..]));
    }
    out
}

/// The `{…}` `text` starts with, strings skipped.
fn balanced(text: &str) -> &str {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return &text[..=i];
                }
            }
            _ => {}
        }
    }
    panic!("an unbalanced example: {text}")
}

/// The field paths of a JSON-like example: `"key":` and `"key"?:` at any depth, joined with
/// `.` (an array adds nothing to the path).
fn example_paths(example: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    // (is an object, its path)
    let mut stack: Vec<(bool, String)> = Vec::new();
    let mut last_key: Option<String> = None;
    let mut chars = example.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                let mut end = i + 1;
                let mut escaped = false;
                for (j, d) in chars.by_ref() {
                    end = j;
                    match d {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        '"' => break,
                        _ => {}
                    }
                }
                let key = &example[i + 1..end];
                let after = example[end + 1..].trim_start();
                let after = after.strip_prefix('?').unwrap_or(after).trim_start();
                if let (Some((true, path)), true) = (stack.last(), after.starts_with(':')) {
                    let full = if path.is_empty() {
                        key.to_string()
                    } else {
                        format!("{path}.{key}")
                    };
                    out.insert(full.clone());
                    last_key = Some(full);
                }
            }
            '{' | '[' => {
                let path = match stack.last() {
                    Some((true, p)) => last_key.take().unwrap_or_else(|| p.clone()),
                    Some((false, p)) => p.clone(),
                    None => String::new(),
                };
                stack.push((c == '{', path));
            }
            '}' | ']' => {
                stack.pop();
                last_key = None;
            }
            ',' => last_key = None,
            _ => {}
        }
    }
    out
}

/// What is wrong between the documented `paths` and `schema`: documented fields the type lacks,
/// and the type's fields left undocumented.
fn compare(cat: &Catalog, what: &str, schema: &Value, paths: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for path in paths {
        let mut at = schema;
        for segment in path.split('.') {
            let Some(fields) = cat.fields(at) else {
                // A free-form object (a map, a launch configuration): its keys are data.
                break;
            };
            match fields.get(segment) {
                Some(s) => at = s,
                None => {
                    problems.push(format!(
                        "{what}: `{path}` is documented, the type has no such field"
                    ));
                    break;
                }
            }
        }
    }
    for path in cat.paths(schema) {
        if !paths.contains(&path) {
            problems.push(format!(
                "{what}: the type's field `{path}` is not documented"
            ));
        }
    }
    problems
}

#[test]
fn every_method_documents_the_fields_of_its_types_and_no_other() {
    let cat = catalog();
    let texts = method_texts();
    let mut problems = Vec::new();
    for m in &cat.methods {
        let Some(text) = texts.get(m.method) else {
            problems.push(format!("{}: no section", m.method));
            continue;
        };
        let results = examples(text, "Result");
        if m.result.is_none() && !results.is_empty() {
            problems.push(format!("{}: a notification has no result", m.method));
        }
        let parts = [("Params", Some(&m.params), examples(text, "Params"))];
        let parts = parts
            .into_iter()
            .chain([("Result", m.result.as_ref(), results)]);
        for (word, schema, found) in parts {
            let Some(schema) = schema else {
                continue;
            };
            if found.is_empty() {
                problems.push(format!("{}: no `{word}:`", m.method));
            }
            let paths = found.iter().flat_map(|e| example_paths(e)).collect();
            let what = format!("{} {}", m.method, word.to_lowercase());
            problems.extend(compare(&cat, &what, schema, &paths));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/lsp-protocol.md and crate::protocol disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_shared_types_are_documented_with_every_field() {
    let cat = catalog();
    let mut problems = Vec::new();
    for name in crate::protocol_schema::SHARED {
        let types = DOC.split("\n## Types").nth(1).unwrap_or("");
        let types = types.split("\n## ").next().unwrap_or("");
        let heading = format!("**{name}**");
        let Some(at) = types.find(&heading) else {
            problems.push(format!("{name}: not under \"Types\""));
            continue;
        };
        let rest = &types[at..];
        let example = balanced(&rest[rest.find('{').unwrap()..]);
        let schema = serde_json::json!({ "$ref": format!("#/$defs/{name}") });
        let full = cat.paths(cat.resolve(&schema));
        problems.extend(compare(&cat, name, &schema, &example_paths(example)));
        assert!(!full.is_empty(), "{name} has no fields");
    }
    assert!(
        problems.is_empty(),
        "docs/lsp-protocol.md and crate::protocol disagree:\n{}",
        problems.join("\n")
    );
}

#[test]
fn examples_are_read_with_their_paths() {
    let text = "Params: none. Result: the list:\n\n```json\n{ \"a\": [{ \"b\"?: \"x, {y}\", \
                \"c\": { \"d\": 1 } }], \"e\": CommandItem }\n```\nLater: {\"z\": 1}";
    assert_eq!(examples(text, "Params"), [""]);
    let result = examples(text, "Result");
    assert_eq!(result.len(), 1);
    let paths: Vec<String> = example_paths(result[0]).into_iter().collect();
    assert_eq!(paths, ["a", "a.b", "a.c", "a.c.d", "e"]);
    assert_eq!(examples("Results: {}", "Result"), Vec::<&str>::new());
    assert_eq!(
        examples("Params (delta form): `{ \"x\": 1 }`", "Params"),
        ["{ \"x\": 1 }"]
    );
}
