//! The JSON schemas of every `commandtree/*` method's params and result, for the tests that
//! hold `docs/lsp-protocol.md` (`protocol_doc`) and the extension's types (`protocol_ts`) to
//! [`crate::protocol`]. What the server sends is described as it serializes, what it reads as
//! it deserializes (a field the server leaves out when empty is optional, one it fills in when
//! missing is optional).

use crate::protocol::{self, Direction, MethodInfo};
use schemars::generate::SchemaSettings;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The types every listing shares, documented once under "Types" in the document: a method's
/// fields stop at them.
pub const SHARED: &[&str] = &["CommandItem", "Warning", "Run"];

pub struct Method {
    pub method: &'static str,
    pub direction: Direction,
    pub params: Value,
    pub result: Option<Value>,
}

pub struct Catalog {
    pub methods: Vec<Method>,
    /// Every named type, by name.
    pub defs: BTreeMap<String, Value>,
    /// Types outside any method (see [`protocol::extra_schemas`]).
    pub extras: Vec<Value>,
}

/// Every `commandtree/*` method of the code.
pub fn infos() -> Vec<MethodInfo> {
    crate::handlers::ROUTES
        .iter()
        .map(|r| r.info)
        .chain(protocol::SERVER_REQUESTS.iter().copied())
        .chain(protocol::SERVER_NOTIFICATIONS.iter().copied())
        .chain(protocol::CLIENT_NOTIFICATIONS.iter().copied())
        .collect()
}

pub fn catalog() -> Catalog {
    let mut read = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let mut sent = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut methods = Vec::new();
    for info in infos() {
        let server_reads_params = matches!(
            info.direction,
            Direction::ClientRequest | Direction::ClientNotification
        );
        let (p, r) = if server_reads_params {
            (&mut read, &mut sent)
        } else {
            (&mut sent, &mut read)
        };
        methods.push(Method {
            method: info.method,
            direction: info.direction,
            params: (info.params)(p).to_value(),
            result: info.result.map(|f| f(r).to_value()),
        });
    }
    let extras = protocol::extra_schemas(&mut sent)
        .into_iter()
        .map(|s| s.to_value())
        .collect();
    let mut defs = BTreeMap::new();
    for (name, schema) in read
        .take_definitions(true)
        .into_iter()
        .chain(sent.take_definitions(true))
    {
        if let Some(other) = defs.get(&name) {
            assert_eq!(
                other, &schema,
                "{name} is read and sent with different shapes; give each direction its own type"
            );
        }
        defs.insert(name, schema);
    }
    Catalog {
        methods,
        defs,
        extras,
    }
}

impl Catalog {
    /// `schema` with its `$ref` followed.
    pub fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match ref_name(schema) {
            Some(name) => self
                .defs
                .get(name)
                .unwrap_or_else(|| panic!("no schema named {name}")),
            None => schema,
        }
    }

    /// The schemas a value of `schema` may have: the variants of a union (`anyOf`, `oneOf`)
    /// and the element of an array, refs followed, `null` left out.
    fn shapes<'a>(&'a self, schema: &'a Value) -> Vec<&'a Value> {
        let schema = self.resolve(schema);
        for key in ["anyOf", "oneOf"] {
            if let Some(variants) = schema.get(key).and_then(Value::as_array) {
                return variants.iter().flat_map(|v| self.shapes(v)).collect();
            }
        }
        if let Some(items) = schema.get("items") {
            return self.shapes(items);
        }
        if schema.get("type") == Some(&Value::from("null")) {
            return Vec::new();
        }
        vec![schema]
    }

    /// The fields a value of `schema` may have with each field's schema, or `None` when it is a
    /// free-form object (any keys).
    pub fn fields<'a>(&'a self, schema: &'a Value) -> Option<BTreeMap<&'a str, &'a Value>> {
        let mut out = BTreeMap::new();
        let mut free = false;
        for shape in self.shapes(schema) {
            match shape.get("properties").and_then(Value::as_object) {
                Some(p) if !p.is_empty() => out.extend(p.iter().map(|(k, v)| (k.as_str(), v))),
                _ => free |= is_free(shape),
            }
        }
        if free { None } else { Some(out) }
    }

    /// Every field path (`summarized.securityWarning`) of `schema`, not below a shared type
    /// (unless it is the one asked for) nor into a type already on the way.
    pub fn paths(&self, schema: &Value) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.paths_into(schema, "", &mut Vec::new(), &mut out);
        out
    }

    fn paths_into<'a>(
        &'a self,
        schema: &'a Value,
        prefix: &str,
        on_the_way: &mut Vec<&'a str>,
        out: &mut BTreeSet<String>,
    ) {
        let Some(fields) = self.fields(schema) else {
            return;
        };
        for (name, field) in fields {
            let path = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}.{name}")
            };
            out.insert(path.clone());
            let named: Vec<&str> = self.named_within(field);
            if named
                .iter()
                .any(|n| SHARED.contains(n) || on_the_way.contains(n))
            {
                continue;
            }
            let depth = on_the_way.len();
            on_the_way.extend(named);
            self.paths_into(field, &path, on_the_way, out);
            on_the_way.truncate(depth);
        }
    }

    /// The named types a value of `schema` may be.
    fn named_within<'a>(&'a self, schema: &'a Value) -> Vec<&'a str> {
        let mut out = Vec::new();
        if let Some(n) = ref_name(schema) {
            out.push(n);
        }
        for key in ["anyOf", "oneOf"] {
            for v in schema
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                out.extend(self.named_within(v));
            }
        }
        if let Some(items) = schema.get("items") {
            out.extend(self.named_within(items));
        }
        out
    }
}

/// The name a `$ref` schema points to.
pub fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

/// An object whose keys are data (a map), or any value.
fn is_free(schema: &Value) -> bool {
    const ABOUT: &[&str] = &["description", "title", "default", "examples"];
    match schema {
        Value::Bool(b) => *b,
        Value::Object(o) => {
            o.keys().all(|k| ABOUT.contains(&k.as_str()))
                || o.get("additionalProperties")
                    .is_some_and(|a| a != &Value::Bool(false))
                || (o.get("type") == Some(&Value::from("object"))
                    && !o.contains_key("properties")
                    && !o.contains_key("additionalProperties"))
        }
        _ => false,
    }
}
