//! Turborepo tasks from `turbo.json`: `tasks` (turbo 2) or `pipeline` (turbo 1). Names may be
//! plain (`build`), package-scoped (`web#build`) or root-only (`//#format`); turbo accepts all
//! three forms on `turbo run`. The command goes through `npx` so it works whether turbo is a
//! local dev dependency or not installed at all; persistent (dev-server) tasks are listed too.

use super::common::with_line;
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::syntax::json::{self, Dialect};
use crate::text::sh_word;
use serde_json::Value;

const KIND: &str = "turbo";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let doc = match json::parse(file.content, Dialect::Jsonc) {
        Ok(doc) => doc,
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let Some(obj) = doc.object() else {
        return Parsed::with_warning(file.path, None, "turbo.json is not a JSON object");
    };
    let key = if json::prop(obj, "tasks").is_some() {
        "tasks"
    } else {
        "pipeline"
    };
    let Some(tasks) = json::prop(obj, key) else {
        return Parsed::default();
    };
    let Some(tasks) = tasks.value.as_object() else {
        return Parsed::with_warning(file.path, None, format!("`{key}` is not an object"));
    };
    let mut out = Parsed::default();
    for prop in json::props(tasks) {
        let name = prop.name.as_str();
        let item = CommandItem::new(
            KIND,
            file.path,
            name,
            format!("npx turbo run {}", sh_word(name)),
        )
        .opt_description(describe(&json::to_value(&prop.value)));
        out.commands.push(with_line(item, Some(doc.line(prop))));
    }
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
}
