//! `deno.json` / `deno.jsonc` tasks (upstream §3.14), string and object forms.
//!
//! Read through the JSONC tree (`syntax::json`) rather than `text::parse_jsonc`: the tree keeps
//! the tasks in file order and gives each one its line, where a `serde_json` map would sort them.

use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::syntax::json::{self, Dialect};
use crate::text;
use jsonc_parser::ast::{Object, Value};

const KIND: &str = "deno";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let doc = match json::parse(file.content, Dialect::Jsonc) {
        Ok(doc) => doc,
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let Some(root) = doc.root() else {
        return Parsed::with_warning(file.path, None, "empty file");
    };
    let Value::Object(root) = root else {
        return Parsed::with_warning(
            file.path,
            Some(1),
            format!("{} is not an object", file.file_name()),
        );
    };
    let Some(tasks) = root.get("tasks") else {
        return Parsed::default();
    };
    let Value::Object(tasks) = &tasks.value else {
        return Parsed::with_warning(file.path, Some(doc.line(tasks)), "`tasks` is not a map");
    };

    let mut out = Parsed::default();
    for prop in &tasks.properties {
        let name = prop.name.as_str();
        let line = doc.line(prop);
        let description = match &prop.value {
            Value::StringLit(cmd) => Some(text::truncate(&cmd.value, 60)),
            Value::Object(task) => object_description(task),
            _ => {
                out.warn(
                    file.path,
                    Some(line),
                    format!("task `{name}` is not a string or an object"),
                );
                continue;
            }
        };
        let command = format!("deno task {}", text::sh_word(name));
        out.commands.push(
            CommandItem::new(KIND, file.path, name, command)
                .opt_description(description)
                .line(line),
        );
    }
    out
}

/// `{"description": ..., "command": ..., "dependencies": [...]}`: the description, else a
/// preview of the command. A task with only dependencies is still runnable.
fn object_description(task: &Object<'_>) -> Option<String> {
    let described = task
        .get_string("description")
        .map(|d| d.value.trim().to_string())
        .filter(|d| !d.is_empty());
    described.or_else(|| {
        task.get_string("command")
            .map(|c| text::truncate(&c.value, 60))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    const PATH: &str = "/w/web/deno.jsonc";

    fn parse(content: &str) -> Parsed {
        parse_with(super::parse, PATH, content)
    }

    const FIXTURE: &str = r#"{
  // Fresh project
  "name": "@acme/web",
  "tasks": {
    "dev": "deno run -A --watch=static/,routes/ dev.ts",
    "build": {
      "description": "Build the production bundle",
      "command": "deno run -A dev.ts build",
    },
    "start": "deno run -A main.ts",
    "check": {
      "command": "deno fmt --check && deno lint && deno check **/*.ts && deno test -A --parallel"
    },
    "ci": { "dependencies": ["check", "build"] },
    /* generated */
    "update": "deno run -A -r https://fresh.deno.dev/update .",
  },
  "imports": { "$fresh/": "https://deno.land/x/fresh@1.6.8/" },
}
"#;

    #[test]
    fn tasks_in_file_order() {
        let p = parse(FIXTURE);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            ["dev", "build", "start", "check", "ci", "update"]
        );
    }

    #[test]
    fn item_shape() {
        let p = parse(FIXTURE);
        let dev = &p.commands[0];
        assert_eq!(dev.id, "deno:/w/web/deno.jsonc:dev");
        assert_eq!(dev.kind, "deno");
        assert_eq!(dev.command, "deno task dev");
        assert_eq!(dev.cwd, "/w/web");
        assert_eq!(dev.line, Some(5));
        assert_eq!(p.commands[1].line, Some(6));
    }

    #[test]
    fn string_task_description_is_the_command() {
        let p = parse(FIXTURE);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("deno run -A --watch=static/,routes/ dev.ts")
        );
        let update = &p.commands[5];
        assert_eq!(
            update.description.as_deref(),
            Some("deno run -A -r https://fresh.deno.dev/update .")
        );
    }

    #[test]
    fn object_task_uses_description() {
        let p = parse(FIXTURE);
        assert_eq!(
            p.commands[1].description.as_deref(),
            Some("Build the production bundle")
        );
    }

    #[test]
    fn object_task_without_description_previews_the_command() {
        let p = parse(FIXTURE);
        let check = p.commands[3].description.as_deref().unwrap_or("");
        assert_eq!(check.chars().count(), 60);
        assert_eq!(
            check,
            "deno fmt --check && deno lint && deno check **/*.ts && de..."
        );
    }

    #[test]
    fn dependencies_only_task_is_listed_without_description() {
        let p = parse(FIXTURE);
        assert_eq!(p.commands[4].label, "ci");
        assert_eq!(p.commands[4].command, "deno task ci");
        assert_eq!(p.commands[4].description, None);
    }

    #[test]
    fn empty_command_gives_no_description() {
        let p = parse(r#"{"tasks": {"noop": "", "blank": {"description": " ", "command": ""}}}"#);
        assert_eq!(labels(&p), ["noop", "blank"]);
        assert_eq!(p.commands[0].description, None);
        assert_eq!(p.commands[1].description, None);
    }

    #[test]
    fn odd_names_are_quoted() {
        let p = parse(r#"{"tasks": {"test:unit": "deno test", "a b": "x", "$(rm)": "y"}}"#);
        assert_eq!(p.commands[0].command, "deno task test:unit");
        assert_eq!(p.commands[1].command, "deno task 'a b'");
        assert_eq!(p.commands[2].command, "deno task '$(rm)'");
        assert_eq!(p.commands[2].id, "deno:/w/web/deno.jsonc:$(rm)");
    }

    #[test]
    fn no_tasks_no_commands() {
        let p = parse(r#"{"compilerOptions": {"strict": true}}"#);
        assert!(p.commands.is_empty());
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn malformed_json_warns_with_line() {
        let p = parse("{\n  \"tasks\": {\n    \"dev\": \"deno run main.ts\"\n    \"x\": }\n}");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, Some(4));
        assert!(
            p.warnings[0].message.starts_with("invalid JSON"),
            "{}",
            p.warnings[0].message
        );
    }

    #[test]
    fn truncated_file_warns() {
        let p = parse("{\n  \"tasks\": {\n    \"dev\": \"deno run");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn wrong_types_warn() {
        let p = parse("{\n  \"tasks\": [\"dev\"]\n}");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings[0].message, "`tasks` is not a map");
        assert_eq!(p.warnings[0].line, Some(2));

        let p = parse("[]");
        assert_eq!(p.warnings[0].message, "deno.jsonc is not an object");

        let p = parse(r#"{"tasks": {"n": 3, "ok": "deno test"}}"#);
        assert_eq!(labels(&p), ["ok"]);
        assert_eq!(
            p.warnings[0].message,
            "task `n` is not a string or an object"
        );
    }

    #[test]
    fn garbage_does_not_panic() {
        for junk in [
            "",
            "   // only a comment",
            "\u{1}\u{2}\u{3}",
            "{{{{",
            "{\"tasks\": {\"é\u{301}\": \"\u{10FFFF}",
        ] {
            let p = parse(junk);
            assert!(p.commands.is_empty());
            assert_eq!(p.warnings.len(), 1, "{junk:?}");
        }
        let deep = format!("{{\"tasks\": {}", "[".repeat(50_000));
        assert_eq!(parse(&deep).warnings.len(), 1);
    }
}
