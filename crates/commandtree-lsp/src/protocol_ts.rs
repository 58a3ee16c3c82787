//! The VS Code extension's `src/protocol.generated.ts`: TypeScript types made from the JSON
//! schemas of [`crate::protocol`], so the extension is compiled against the server's types.
//! The test fails while the committed file differs from what these types make; run it with
//! `UPDATE_PROTOCOL_TS=1` to write the file.
//!
//! The schemas map one to one (`$ref` to the type's name, unions, arrays, maps as `Record`),
//! except that a field that may be left out is not also `null`: the server never sends `null`
//! for one, and reads a missing one and `null` alike.

use crate::protocol::Direction;
use crate::protocol_schema::{Catalog, catalog, ref_name};
use serde_json::Value;
use std::fmt::Write;
use std::path::Path;

const FILE: &str = "editors/vscode/src/protocol.generated.ts";

fn generate() -> String {
    let cat = catalog();
    let mut out = String::from(
        "// Generated from crates/commandtree-lsp/src/protocol.rs (docs/lsp-protocol.md): do not\n\
         // edit. `UPDATE_PROTOCOL_TS=1 cargo test -p commandtree-lsp protocol_ts` writes it again.\n",
    );
    for (name, schema) in &cat.defs {
        out.push('\n');
        out.push_str(&doc_comment(schema, ""));
        match schema.get("properties").and_then(Value::as_object) {
            Some(p) if !p.is_empty() => {
                let _ = writeln!(
                    out,
                    "export interface {name} {}",
                    object_body(&cat, schema, "")
                );
            }
            _ => {
                let _ = writeln!(out, "export type {name} = {};", ts(&cat, schema, "", false));
            }
        }
    }
    let table = |direction: Direction, with_result: bool| {
        let mut t = String::new();
        for m in cat.methods.iter().filter(|m| m.direction == direction) {
            let params = ts(&cat, &m.params, "  ", false);
            match (&m.result, with_result) {
                (Some(r), true) => {
                    let result = ts(&cat, r, "  ", false);
                    let _ = writeln!(
                        t,
                        "  '{}': {{ params: {params}; result: {result} }};",
                        m.method
                    );
                }
                _ => {
                    let _ = writeln!(t, "  '{}': {params};", m.method);
                }
            }
        }
        t
    };
    let _ = write!(
        out,
        "\n/** The requests the server answers, by method. */\nexport interface Requests {{\n{}}}\n\
         \n/** The requests the server sends the client, by method. */\nexport interface ServerRequests {{\n{}}}\n\
         \n/** The notifications the server sends, by method: their params. */\nexport interface ServerNotifications {{\n{}}}\n\
         \n/** The client notifications the server reads, by method: their params. */\nexport interface ClientNotifications {{\n{}}}\n",
        table(Direction::ClientRequest, true),
        table(Direction::ServerRequest, true),
        table(Direction::ServerNotification, false),
        table(Direction::ClientNotification, false),
    );
    let requests: Vec<String> = cat
        .methods
        .iter()
        .filter(|m| m.direction == Direction::ClientRequest)
        .map(|m| format!("  '{}',\n", m.method))
        .collect();
    let _ = write!(
        out,
        "\n/** Every request the server answers. */\nexport const REQUESTS: readonly (keyof Requests)[] = [\n{}];\n",
        requests.concat()
    );
    for extra in &cat.extras {
        // Extras are named types, so they are among the definitions above.
        assert!(ref_name(extra).is_some(), "an extra type without a name");
    }
    out
}

/// A `/** … */` comment of the schema's description, indented by `indent`.
fn doc_comment(schema: &Value, indent: &str) -> String {
    let Some(text) = schema.get("description").and_then(Value::as_str) else {
        return String::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        return format!("{indent}/** {} */\n", lines[0]);
    }
    let mut out = format!("{indent}/**\n");
    for l in lines {
        let _ = writeln!(out, "{indent} *{}{l}", if l.is_empty() { "" } else { " " });
    }
    let _ = writeln!(out, "{indent} */");
    out
}

/// `{ field: T; … }` over several lines, the closing brace at `indent`.
fn object_body(cat: &Catalog, schema: &Value, indent: &str) -> String {
    let inner = format!("{indent}  ");
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = String::from("{\n");
    for (name, field) in schema["properties"].as_object().into_iter().flatten() {
        let optional = !required.contains(&name.as_str());
        out.push_str(&doc_comment(field, &inner));
        let _ = writeln!(
            out,
            "{inner}{name}{}: {};",
            if optional { "?" } else { "" },
            ts(cat, field, &inner, optional)
        );
    }
    out.push_str(indent);
    out.push('}');
    out
}

/// The TypeScript type of `schema`; `optional` leaves `null` out of it.
fn ts(cat: &Catalog, schema: &Value, indent: &str, optional: bool) -> String {
    let Value::Object(o) = schema else {
        return "unknown".into();
    };
    if let Some(name) = ref_name(schema) {
        return name.to_string();
    }
    if let Some(c) = o.get("const") {
        return literal(c);
    }
    if let Some(values) = o.get("enum").and_then(Value::as_array) {
        return union(values.iter().map(literal).collect());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(variants) = o.get(key).and_then(Value::as_array) {
            let parts = variants
                .iter()
                .filter(|v| !(optional && is_null(v)))
                .map(|v| ts(cat, v, indent, false))
                .collect();
            return union(parts);
        }
    }
    let types: Vec<&str> = match o.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return "unknown".into(),
    };
    let parts = types
        .into_iter()
        .filter(|t| !(optional && *t == "null"))
        .map(|t| match t {
            "string" => "string".to_string(),
            "integer" | "number" => "number".to_string(),
            "boolean" => "boolean".to_string(),
            "null" => "null".to_string(),
            "array" => {
                let item = o
                    .get("items")
                    .map_or("unknown".into(), |i| ts(cat, i, indent, false));
                if item.contains(' ') {
                    format!("({item})[]")
                } else {
                    format!("{item}[]")
                }
            }
            "object" => match o.get("properties").and_then(Value::as_object) {
                Some(p) if !p.is_empty() => object_body(cat, schema, indent),
                _ => match o.get("additionalProperties") {
                    Some(Value::Bool(false)) => "Record<string, never>".into(),
                    Some(a @ Value::Object(_)) => {
                        format!("Record<string, {}>", ts(cat, a, indent, false))
                    }
                    _ if o.contains_key("properties") => "Record<string, never>".into(),
                    _ => "Record<string, unknown>".into(),
                },
            },
            other => panic!("no TypeScript for JSON type {other}"),
        })
        .collect();
    union(parts)
}

fn is_null(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("null"))
}

fn literal(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        other => other.to_string(),
    }
}

fn union(mut parts: Vec<String>) -> String {
    parts.dedup();
    match parts.len() {
        0 => "never".into(),
        _ => parts.join(" | "),
    }
}

#[test]
fn the_extensions_protocol_types_are_made_from_these_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(FILE);
    let want = generate();
    if std::env::var_os("UPDATE_PROTOCOL_TS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{FILE} is not what crate::protocol makes: run \
         `UPDATE_PROTOCOL_TS=1 cargo test -p commandtree-lsp protocol_ts` and commit it"
    );
}
