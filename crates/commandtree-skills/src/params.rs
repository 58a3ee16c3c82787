//! An LLM skill's typed parameters: binding the words of an invocation to them (`--flag value`,
//! `--flag=value`, JSON for object and array flags), and exporting them as JSON Schema
//! (`ct skill schema task`). Errors name the flag.

use crate::{Error, Result};
use serde_json::{Map, Value, json};

/// The bound values, by parameter name (`prompt`, `modelOptions`, ...).
pub type Params = Map<String, Value>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    String,
    /// One of these words.
    Enum(&'static [&'static str]),
    /// `--flag` alone means true; `--flag=false` is allowed.
    Bool,
    Integer,
    /// A JSON object (`--modelOptions '{"temperature":0.7}'`).
    Object,
    /// A JSON array.
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// The flag's name as the seed writes it (`prompt`, `modelOptions`); `--model-options` is
    /// accepted too.
    pub name: &'static str,
    pub kind: ParamKind,
    pub required: bool,
    pub description: &'static str,
}

impl ParamSpec {
    pub const fn new(
        name: &'static str,
        kind: ParamKind,
        required: bool,
        description: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            name,
            kind,
            required,
            description,
        }
    }

    fn schema(&self) -> Value {
        let mut v = match self.kind {
            ParamKind::String => json!({"type": "string"}),
            ParamKind::Enum(words) => json!({"type": "string", "enum": words}),
            ParamKind::Bool => json!({"type": "boolean"}),
            ParamKind::Integer => json!({"type": "integer"}),
            ParamKind::Object => json!({"type": "object"}),
            ParamKind::Array => json!({"type": "array"}),
        };
        if self.required && self.kind == ParamKind::String {
            v["minLength"] = json!(1);
        }
        v["description"] = json!(self.description);
        v
    }
}

/// `modelOptions` -> `model-options`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn find<'a>(specs: &'a [ParamSpec], flag: &str) -> Option<&'a ParamSpec> {
    specs
        .iter()
        .find(|s| s.name == flag || kebab(s.name) == flag)
}

fn known(specs: &[ParamSpec]) -> String {
    specs
        .iter()
        .map(|s| format!("--{}", s.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Missing or invalid <name>`, as the seed words it for an empty prompt.
pub fn missing(name: &str) -> Error {
    Error::invalid(format!("Missing or invalid {name}"))
}

fn convert(spec: &ParamSpec, raw: &str) -> Result<Value> {
    let bad = |why: String| Error::invalid(format!("Missing or invalid {}: {why}", spec.name));
    match spec.kind {
        ParamKind::String => Ok(Value::String(raw.to_string())),
        ParamKind::Enum(words) => {
            if words.contains(&raw) {
                Ok(Value::String(raw.to_string()))
            } else {
                Err(bad(format!("`{raw}` is not one of {}", words.join(", "))))
            }
        }
        ParamKind::Bool => match raw {
            "true" | "yes" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "0" => Ok(Value::Bool(false)),
            _ => Err(bad(format!("`{raw}` is not true or false"))),
        },
        ParamKind::Integer => raw
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| bad(format!("`{raw}` is not a whole number"))),
        ParamKind::Object | ParamKind::Array => {
            let v: Value =
                serde_json::from_str(raw).map_err(|e| bad(format!("not valid JSON ({e})")))?;
            match (spec.kind, &v) {
                (ParamKind::Object, Value::Object(_)) | (ParamKind::Array, Value::Array(_)) => {
                    Ok(v)
                }
                (ParamKind::Object, _) => Err(bad("expected a JSON object".into())),
                _ => Err(bad("expected a JSON array".into())),
            }
        }
    }
}

/// Binds the words after `@skill` to `specs`. Unknown flags, stray words, repeated flags,
/// missing values and missing required parameters are errors naming the flag.
pub fn bind(skill: &str, specs: &[ParamSpec], args: &[String]) -> Result<Params> {
    let mut out = Params::new();
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        let Some(flag) = word.strip_prefix("--").filter(|f| !f.is_empty()) else {
            return Err(Error::invalid(format!(
                "@{skill}: unexpected `{word}`: values follow a flag (--name value)"
            )));
        };
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (flag, None),
        };
        let spec = find(specs, flag).ok_or_else(|| {
            Error::invalid(format!(
                "@{skill}: unknown flag --{flag} (known: {})",
                known(specs)
            ))
        })?;
        i += 1;
        let raw = match inline {
            Some(v) => v,
            None if spec.kind == ParamKind::Bool => "true".to_string(),
            None => {
                let Some(v) = args.get(i) else {
                    return Err(Error::invalid(format!(
                        "Missing or invalid {}: --{flag} needs a value",
                        spec.name
                    )));
                };
                i += 1;
                v.clone()
            }
        };
        if out.contains_key(spec.name) {
            return Err(Error::invalid(format!(
                "@{skill}: --{} is given twice",
                spec.name
            )));
        }
        out.insert(spec.name.to_string(), convert(spec, &raw)?);
    }
    for spec in specs.iter().filter(|s| s.required) {
        match out.get(spec.name) {
            None => return Err(missing(spec.name)),
            Some(Value::String(s)) if s.trim().is_empty() => return Err(missing(spec.name)),
            _ => {}
        }
    }
    Ok(out)
}

/// The parameters as a JSON Schema object (draft 2020-12), for introspection.
pub fn schema(name: &str, description: &str, specs: &[ParamSpec]) -> Value {
    let mut props = Map::new();
    for s in specs {
        props.insert(s.name.to_string(), s.schema());
    }
    let required: Vec<&str> = specs
        .iter()
        .filter(|s| s.required)
        .map(|s| s.name)
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": name,
        "description": description,
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

/// A string parameter, or `None` when absent.
pub fn string<'a>(p: &'a Params, name: &str) -> Option<&'a str> {
    p.get(name).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec::new("prompt", ParamKind::String, true, "p"),
        ParamSpec::new("modelOptions", ParamKind::Object, false, "o"),
        ParamSpec::new("action", ParamKind::Enum(&["read", "write"]), false, "a"),
        ParamSpec::new("yes", ParamKind::Bool, false, "y"),
        ParamSpec::new("limit", ParamKind::Integer, false, "l"),
    ];

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    fn err(args: &[&str]) -> String {
        bind("t", SPECS, &words(args)).unwrap_err().to_string()
    }

    #[test]
    fn values_json_bools_and_spellings() {
        let p = bind(
            "t",
            SPECS,
            &words(&[
                "--prompt",
                "--not a flag--",
                "--model-options",
                r#"{"temperature":0.7}"#,
                "--yes",
                "--action=write",
                "--limit",
                "3",
            ]),
        )
        .unwrap();
        assert_eq!(p["prompt"], "--not a flag--");
        assert_eq!(p["modelOptions"]["temperature"], 0.7);
        assert_eq!(p["yes"], true);
        assert_eq!(p["action"], "write");
        assert_eq!(p["limit"], 3);
        let p = bind("t", SPECS, &words(&["--prompt=x", "--yes=false"])).unwrap();
        assert_eq!(p["yes"], false);
    }

    #[test]
    fn errors_name_the_flag() {
        assert_eq!(err(&[]), "Missing or invalid prompt");
        assert_eq!(err(&["--prompt", "  "]), "Missing or invalid prompt");
        assert!(err(&["--prompt"]).contains("--prompt needs a value"));
        assert!(
            err(&["--prompt", "x", "--temperature", "1"]).contains("unknown flag --temperature")
        );
        assert!(
            err(&["--prompt", "x", "--modelOptions", "[1]"])
                .contains("modelOptions: expected a JSON object")
        );
        assert!(
            err(&["--prompt", "x", "--modelOptions", "{"]).contains("modelOptions: not valid JSON")
        );
        assert!(
            err(&["--prompt", "x", "--action", "delete"])
                .contains("`delete` is not one of read, write")
        );
        assert!(err(&["--prompt", "x", "--limit", "many"]).contains("limit"));
        assert!(err(&["--prompt", "x", "--prompt", "y"]).contains("given twice"));
        assert!(err(&["stray"]).contains("unexpected `stray`"));
    }

    #[test]
    fn schema_lists_types_and_required() {
        let s = schema("t", "d", SPECS);
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], json!(["prompt"]));
        assert_eq!(s["properties"]["modelOptions"]["type"], "object");
        assert_eq!(s["properties"]["action"]["enum"], json!(["read", "write"]));
        assert_eq!(s["additionalProperties"], false);
    }
}
