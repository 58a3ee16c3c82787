//! VS Code launch configurations: `.vscode/launch.json` (JSONC). One command per configuration
//! and per compound; `command` is the name the debugger is started with.
//!
//! Steps: a configuration's `preLaunchTask` and `postDebugTask` (tasks of the `tasks.json`
//! beside it, with this platform's section applied), and a compound's configurations and its
//! own `preLaunchTask`.

use super::common::with_line;
use super::vscode::dot_vscode_parent;
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, StepHow, StepRef, StepScope};
use crate::syntax::json::{self, Dialect};
use jsonc_parser::ast;
use serde_json::Value;

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let doc = match json::parse(file.content, Dialect::Jsonc) {
        Ok(doc) => doc,
        Err((line, reason)) => return Parsed::with_warning(file.path, line, reason),
    };
    let Some(root) = doc.object() else {
        return Parsed::with_warning(file.path, None, "the top level is not an object");
    };
    let cwd = dot_vscode_parent(file);
    let mut out = Parsed::default();

    for (key, what) in [
        ("configurations", "configuration"),
        ("compounds", "compound"),
    ] {
        let entries = match json::prop(root, key) {
            None => continue,
            Some(p) => match &p.value {
                ast::Value::NullKeyword(_) => continue,
                ast::Value::Array(a) => &a.elements,
                _ => {
                    let line = Some(doc.line(p));
                    out.warn(file.path, line, format!("`{key}` is not an array"));
                    continue;
                }
            },
        };
        for (i, ast_entry) in entries.iter().enumerate() {
            let line = Some(doc.line(ast_entry));
            let entry = json::to_value(ast_entry);
            let Value::Object(entry) = entry else {
                out.warn(
                    file.path,
                    line,
                    format!("{what} #{} is not an object", i + 1),
                );
                continue;
            };
            let name = match entry.get("name") {
                Some(Value::String(s)) if !s.trim().is_empty() => s,
                _ => {
                    out.warn(file.path, line, format!("{what} #{} has no `name`", i + 1));
                    continue;
                }
            };
            let description = if what == "compound" {
                compound_description(entry.get("configurations"))
            } else {
                entry
                    .get("type")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            let mut item = CommandItem::new("launch", file.path, name, name.clone())
                .cwd(cwd)
                .opt_description(description);
            item.steps = launch_steps(file.path, &entry, what == "compound");
            out.commands.push(with_line(item, line));
        }
    }
    out
}

/// The tasks starting a configuration runs (`preLaunchTask` before, `postDebugTask` after) and,
/// for a compound, the configurations it starts.
fn launch_steps(
    file: &std::path::Path,
    entry: &serde_json::Map<String, Value>,
    compound: bool,
) -> Vec<StepRef> {
    let entry = super::vscode::with_platform(&Value::Object(entry.clone()));
    let tasks = StepScope::File {
        kind: "vscode".into(),
        file: file.with_file_name("tasks.json"),
    };
    let mut out = Vec::new();
    for (key, how) in [
        ("preLaunchTask", StepHow::Prerequisite),
        ("postDebugTask", StepHow::Hook),
    ] {
        // `${defaultBuildTask}` and other variables are chosen by VS Code.
        if let Some(t) = entry.get(key).and_then(Value::as_str)
            && !t.is_empty()
            && !t.contains("${")
        {
            out.push(StepRef::new(t, how, true).scope(tasks.clone()));
        }
    }
    if compound {
        for c in entry
            .get("configurations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = match c {
                Value::String(s) => Some(s.as_str()),
                // A configuration of another folder of a multi-root workspace is not here.
                Value::Object(m) if m.get("folder").is_none() => {
                    m.get("name").and_then(Value::as_str)
                }
                _ => None,
            };
            if let Some(n) = name {
                out.push(StepRef::new(n, StepHow::Call, true));
            }
        }
    }
    out
}

/// `compound: a, b` from the compound's `configurations` (names, or `{name, folder}` objects in
/// multi-root workspaces).
fn compound_description(configs: Option<&Value>) -> Option<String> {
    let names: Vec<&str> = configs
        .and_then(Value::as_array)?
        .iter()
        .filter_map(|c| match c {
            Value::String(s) => Some(s.as_str()),
            Value::Object(m) => m.get("name").and_then(Value::as_str),
            _ => None,
        })
        .collect();
    (!names.is_empty()).then(|| format!("compound: {}", names.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{assert_one_warning, labels, parse_with, warnings};

    const PATH: &str = "/w/.vscode/launch.json";

    #[test]
    fn pre_launch_tasks_and_compound_members_are_steps() {
        let p = parse_with(
            parse,
            PATH,
            r#"{"configurations": [
  {"name": "a", "type": "node", "preLaunchTask": "build", "postDebugTask": "stop"},
  {"name": "b", "type": "node", "preLaunchTask": "${defaultBuildTask}"}
], "compounds": [{"name": "both", "configurations": ["a", {"name": "b"}, {"name": "c", "folder": "x"}], "preLaunchTask": "npm: setup"}]}"#,
        );
        let steps = |i: usize| -> Vec<(String, &'static str, StepScope)> {
            p.commands[i]
                .steps
                .iter()
                .map(|s| (s.name.clone(), s.how.as_str(), s.scope.clone()))
                .collect()
        };
        let tasks = StepScope::File {
            kind: "vscode".into(),
            file: "/w/.vscode/tasks.json".into(),
        };
        assert_eq!(
            steps(0),
            [
                ("build".to_string(), "prerequisite", tasks.clone()),
                ("stop".to_string(), "hook", tasks.clone())
            ]
        );
        assert!(steps(1).is_empty());
        assert_eq!(
            steps(2),
            [
                ("npm: setup".to_string(), "prerequisite", tasks),
                ("a".to_string(), "call", StepScope::SameFile),
                ("b".to_string(), "call", StepScope::SameFile)
            ]
        );
    }

    #[test]
    fn configurations_and_compounds() {
        let p = parse_with(
            parse,
            PATH,
            r#"{
    // Use IntelliSense to learn about possible attributes.
    "version": "0.2.0",
    "configurations": [
        {
            "type": "node",
            "request": "launch",
            "name": "Launch Server",
            "program": "${workspaceFolder}/server/index.js",
        },
        {
            "type": "chrome",
            "request": "launch",
            "name": "Launch Chrome",
            "url": "http://localhost:8080"
        },
        { "name": "No type", "request": "attach" }
    ],
    "compounds": [
        {
            "name": "Server/Client",
            "configurations": ["Launch Server", { "name": "Launch Chrome", "folder": "web" }],
            "stopAll": true
        }
    ]
}"#,
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            ["Launch Server", "Launch Chrome", "No type", "Server/Client"]
        );
        let s = &p.commands[0];
        assert_eq!(s.kind, "launch");
        assert_eq!(s.id, "launch:/w/.vscode/launch.json:Launch Server");
        assert_eq!(s.command, "Launch Server");
        assert_eq!(s.description.as_deref(), Some("node"));
        assert_eq!(s.cwd, "/w");
        assert_eq!(s.file_path, PATH);
        assert_eq!(s.line, Some(5));
        assert_eq!(p.commands[1].description.as_deref(), Some("chrome"));
        assert_eq!(p.commands[1].line, Some(11));
        assert_eq!(p.commands[2].description, None);
        let c = &p.commands[3];
        assert_eq!(c.id, "launch:/w/.vscode/launch.json:Server/Client");
        assert_eq!(c.command, "Server/Client");
        assert_eq!(
            c.description.as_deref(),
            Some("compound: Launch Server, Launch Chrome")
        );
        assert_eq!(c.line, Some(20));
    }

    #[test]
    fn nested_workspace_folder() {
        let p = parse_with(
            parse,
            "/w/svc/.vscode/launch.json",
            r#"{"configurations":[{"name":"Debug","type":"go"}]}"#,
        );
        assert_eq!(p.commands[0].cwd, "/w/svc");
        assert_eq!(p.commands[0].id, "launch:/w/svc/.vscode/launch.json:Debug");
    }

    #[test]
    fn entries_without_name_warn_with_line() {
        let p = parse_with(
            parse,
            PATH,
            r#"{
  "configurations": [
    { "type": "node", "request": "launch" },
    { "type": "node", "name": "" },
    42,
    { "type": "python", "name": "ok" }
  ],
  "compounds": [ { "configurations": ["ok"] } ]
}"#,
        );
        assert_eq!(labels(&p), ["ok"]);
        assert_eq!(
            warnings(&p),
            [
                (Some(3), "configuration #1 has no `name`"),
                (Some(4), "configuration #2 has no `name`"),
                (Some(5), "configuration #3 is not an object"),
                (Some(8), "compound #1 has no `name`"),
            ]
        );
    }

    #[test]
    fn duplicate_names_are_all_emitted_for_central_dedupe() {
        let p = parse_with(
            parse,
            PATH,
            r#"{"configurations":[{"name":"a","type":"x"},{"name":"a","type":"y"}]}"#,
        );
        assert_eq!(labels(&p), ["a", "a"]);
    }

    #[test]
    fn compound_without_configurations_list() {
        let p = parse_with(parse, PATH, r#"{"compounds":[{"name":"c"}]}"#);
        assert_eq!(p.commands[0].description, None);
        let p = parse_with(
            parse,
            PATH,
            r#"{"compounds":[{"name":"c","configurations":[]}]}"#,
        );
        assert_eq!(p.commands[0].description, None);
    }

    #[test]
    fn malformed_files_warn_without_panicking() {
        let cases: &[(&str, Option<u32>, &str)] = &[
            (
                "{\n \"configurations\": [\n  { \"name\": \"a\",",
                Some(3),
                "invalid JSON",
            ),
            ("\"just a string\"", None, "the top level is not an object"),
            (
                "{\n\"configurations\": {\"name\": \"a\"}}",
                Some(2),
                "`configurations` is not an array",
            ),
            ("\u{1}\u{2}\u{fffd}", Some(1), "invalid JSON"),
            ("", None, "the top level is not an object"),
        ];
        for (content, line, msg) in cases {
            let p = parse_with(parse, PATH, content);
            assert!(p.commands.is_empty(), "{content:?}");
            assert_one_warning(&p, *line, msg, content);
        }
    }
}
