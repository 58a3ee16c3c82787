//! JSON and JSONC, read once by jsonc-parser. Its AST keeps every property in file order with
//! its range; values for code that wants `serde_json` come from the same tree ([`to_value`]).

use super::Error;
use crate::text::LineIndex;
use jsonc_parser::ast::{Object, ObjectProp, Value};
use jsonc_parser::common::Ranged;
use jsonc_parser::errors::ParseErrorKind;
use jsonc_parser::{CollectOptions, ParseOptions};
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// What `JSON.parse` and Composer accept: no comments, trailing commas or JSON5 forms.
    Strict,
    /// VS Code's JSONC (comments, trailing commas), also used for files their tools read
    /// leniently (turbo.json, project.json, deno.jsonc).
    Jsonc,
}

/// A JSON text: its tree (none for an empty JSONC text) and a line index over it.
pub(crate) struct Doc<'a> {
    root: Option<Value<'a>>,
    lines: LineIndex,
}

/// Parses `content`. An empty text is an error in strict JSON and no value in JSONC.
pub(crate) fn parse(content: &str, dialect: Dialect) -> Result<Doc<'_>, Error> {
    let options = match dialect {
        Dialect::Jsonc => ParseOptions::default(),
        Dialect::Strict => ParseOptions {
            allow_comments: false,
            allow_loose_object_property_names: false,
            allow_trailing_commas: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
        },
    };
    let root = jsonc_parser::parse_to_ast(content, &CollectOptions::default(), &options)
        .map_err(|e| {
            // A container left open is reported where the text ends, as serde_json and
            // jsonc-parser's value parser report it; the tree parser points at its bracket.
            let at = match e.kind() {
                ParseErrorKind::UnterminatedObject | ParseErrorKind::UnterminatedArray => {
                    content.len()
                }
                _ => e.range().start,
            };
            let line = crate::text::line_of(content, at);
            (Some(line), format!("invalid JSON: {}", e.kind()))
        })?
        .value;
    if root.is_none() && dialect == Dialect::Strict {
        return Err((Some(1), "invalid JSON: no value".to_string()));
    }
    Ok(Doc {
        root,
        lines: LineIndex::new(content),
    })
}

impl<'a> Doc<'a> {
    pub(crate) fn root(&self) -> Option<&Value<'a>> {
        self.root.as_ref()
    }

    /// The top-level object, when the text is one.
    pub(crate) fn object(&self) -> Option<&Object<'a>> {
        self.root.as_ref().and_then(Value::as_object)
    }

    /// 1-based line where `node` starts.
    pub(crate) fn line(&self, node: &impl Ranged) -> usize {
        self.lines.line(node.start())
    }
}

/// The property `key` whose value counts: the last one, as with `JSON.parse`.
pub(crate) fn prop<'x, 'a>(obj: &'x Object<'a>, key: &str) -> Option<&'x ObjectProp<'a>> {
    obj.properties.iter().rev().find(|p| p.name.as_str() == key)
}

/// The properties of `obj` in file order, a repeated key once: where it first appears, with the
/// property that counts (the last), as `JSON.parse` builds an object.
pub(crate) fn props<'x, 'a>(obj: &'x Object<'a>) -> Vec<&'x ObjectProp<'a>> {
    let mut out: Vec<&ObjectProp<'a>> = Vec::with_capacity(obj.properties.len());
    let mut index: HashMap<&str, usize> = HashMap::new();
    for p in &obj.properties {
        match index.get(p.name.as_str()) {
            Some(&i) => out[i] = p,
            None => {
                index.insert(p.name.as_str(), out.len());
                out.push(p);
            }
        }
    }
    out
}

/// A node as `serde_json` models it (objects sorted by key, a repeated key keeps its last value).
/// Recursion is bounded by the parser's nesting limit.
pub(crate) fn to_value(v: &Value<'_>) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::NullKeyword(_) => J::Null,
        Value::BooleanLit(b) => J::Bool(b.value),
        Value::StringLit(s) => J::String(s.value.to_string()),
        // Hexadecimal and other JSON5 forms are converted as jsonc-parser converts them.
        Value::NumberLit(n) => J::from(Value::NumberLit(n.clone())),
        Value::Array(a) => J::Array(a.elements.iter().map(to_value).collect()),
        Value::Object(o) => J::Object(
            o.properties
                .iter()
                .map(|p| (p.name.as_str().to_string(), to_value(&p.value)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_serde_json() {
        let text = "{\"b\": [1, -2.5, true, null, {\"x\": \"\\u00e9\"}], \"a\": 1e3, \"b\": 7}";
        let doc = parse(text, Dialect::Strict).unwrap();
        let expected: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(doc.root().map(to_value), Some(expected));
    }

    #[test]
    fn strict_json_refuses_what_json_parse_refuses() {
        for text in [
            "{// c\n}",
            "{\"a\": 1,}",
            "{a: 1}",
            "{'a': 1}",
            "[0x1]",
            "[+1]",
            "[.5]",
            "[NaN]",
            "{\"a\": 1} {}",
            "",
        ] {
            let (line, msg) = parse(text, Dialect::Strict)
                .err()
                .unwrap_or_else(|| panic!("{text:?}"));
            assert_eq!(line, Some(1), "{text:?}");
            assert!(msg.starts_with("invalid JSON"), "{msg}");
        }
        assert!(parse("{// c\n\"a\": [1,],}", Dialect::Jsonc).is_ok());
        assert!(parse("", Dialect::Jsonc).unwrap().root().is_none());
    }

    #[test]
    fn properties_in_file_order_with_the_one_that_counts() {
        let text = "{\n \"b\": 1,\n \"a\": 2,\n \"b\": 3\n}";
        let doc = parse(text, Dialect::Jsonc).unwrap();
        let obj = doc.object().unwrap();
        let got: Vec<_> = props(obj)
            .iter()
            .map(|p| (p.name.as_str(), doc.line(*p), to_value(&p.value)))
            .collect();
        assert_eq!(got, [("b", 4, 3.into()), ("a", 3, 2.into())]);
        assert_eq!(prop(obj, "b").map(|p| doc.line(p)), Some(4));
        assert!(prop(obj, "c").is_none());
    }
}
