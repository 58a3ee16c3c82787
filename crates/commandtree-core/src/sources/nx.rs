//! Nx targets from `project.json`. Only inside an Nx workspace (an `nx.json` in the folder or an
//! ancestor up to the workspace root): Angular, .NET and other tools also write `project.json`
//! files that have nothing to do with Nx. `nx.json` itself holds `targetDefaults`, which are
//! defaults for other projects' targets, not runnable commands, so it yields nothing.
//!
//! Targets Nx infers from plugins or `package.json` scripts are not listed: finding them needs
//! Nx itself (`nx show project`), which would run project code.

use super::common::{folders_up, with_line};
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::syntax::json::{self, Dialect};
use crate::text::sh_word;
use serde_json::Value;

const KIND: &str = "nx";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    if file.file_name() != "project.json"
        || !folders_up(file).any(|dir| file.fs.is_file(&dir.join("nx.json")))
    {
        return Parsed::default();
    }
    let doc = match json::parse(file.content, Dialect::Jsonc) {
        Ok(doc) => doc,
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let Some(obj) = doc.object() else {
        return Parsed::with_warning(file.path, None, "project.json is not a JSON object");
    };
    let project = json::prop(obj, "name")
        .and_then(|p| p.value.as_string_lit())
        .map(|n| n.value.trim())
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .or_else(|| {
            file.dir()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    let Some(targets) = json::prop(obj, "targets") else {
        return Parsed::default();
    };
    let Some(targets) = targets.value.as_object() else {
        return Parsed::with_warning(file.path, None, "`targets` is not an object");
    };
    let mut out = Parsed::default();
    for prop in json::props(targets) {
        let target = prop.name.as_str();
        let command = format!("npx nx run {}", sh_word(&format!("{project}:{target}")));
        let def = json::to_value(&prop.value);
        let item =
            CommandItem::new(KIND, file.path, target, command).opt_description(describe(&def));
        out.commands.push(with_line(item, Some(doc.line(prop))));
    }
    out
}

/// The shell command of an `nx:run-commands` target says most; else the executor name.
fn describe(def: &Value) -> Option<String> {
    let options = def.get("options");
    let command = def
        .get("command")
        .or_else(|| options.and_then(|o| o.get("command")))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            let cmds = options?.get("commands")?.as_array()?;
            let parts: Vec<&str> = cmds
                .iter()
                .filter_map(|c| c.as_str().or_else(|| c.get("command")?.as_str()))
                .collect();
            (!parts.is_empty()).then(|| parts.join(" && "))
        });
    command.or_else(|| def.get("executor")?.as_str().map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{labels, parse_in, parse_with};

    const PROJECT: &str = r#"{
  "name": "web-app",
  "$schema": "../../node_modules/nx/schemas/project-schema.json",
  "sourceRoot": "apps/web-app/src",
  "targets": {
    "build": {
      "executor": "@nx/vite:build",
      "outputs": ["{options.outputPath}"]
    },
    "serve": { "executor": "@nx/vite:dev-server", "options": { "buildTarget": "web-app:build" } },
    "seed": { "executor": "nx:run-commands", "options": { "command": "node tools/seed.js" } },
    "deploy": { "command": "fly deploy" },
    "ci": { "executor": "nx:run-commands", "options": { "commands": ["nx lint", { "command": "nx test" }] } },
    "e2e": {}
  }
}
"#;

    fn workspace() -> MemFs {
        MemFs::new()
            .file(
                "/w/nx.json",
                r#"{"targetDefaults": {"build": {"dependsOn": ["^build"]}}}"#,
            )
            .file("/w/apps/web-app/project.json", PROJECT)
    }

    #[test]
    fn targets_with_commands_and_descriptions() {
        let p = parse_in(parse, &workspace(), "/w/apps/web-app/project.json");
        assert!(p.warnings.is_empty());
        assert_eq!(
            labels(&p),
            ["build", "serve", "seed", "deploy", "ci", "e2e"]
        );
        let get = |l: &str| p.commands.iter().find(|c| c.label == l).unwrap();
        assert_eq!(get("build").command, "npx nx run web-app:build");
        assert_eq!(get("build").id, "nx:/w/apps/web-app/project.json:build");
        assert_eq!(get("build").description.as_deref(), Some("@nx/vite:build"));
        assert_eq!(get("build").line, Some(6));
        assert_eq!(
            get("seed").description.as_deref(),
            Some("node tools/seed.js")
        );
        assert_eq!(get("deploy").description.as_deref(), Some("fly deploy"));
        assert_eq!(get("ci").description.as_deref(), Some("nx lint && nx test"));
        assert_eq!(get("e2e").description, None);
        assert_eq!(get("e2e").cwd, "/w/apps/web-app");
    }

    #[test]
    fn project_name_defaults_to_folder() {
        let fs = MemFs::new().file("/w/nx.json", "{}").file(
            "/w/libs/my ui/project.json",
            r#"{"targets": {"test": {"executor": "@nx/jest:jest"}}}"#,
        );
        let p = parse_in(parse, &fs, "/w/libs/my ui/project.json");
        assert_eq!(p.commands[0].command, "npx nx run 'my ui:test'");
    }

    #[test]
    fn without_nx_json_nothing() {
        let fs = MemFs::new().file("/w/apps/web-app/project.json", PROJECT);
        let p = parse_in(parse, &fs, "/w/apps/web-app/project.json");
        assert!(p.commands.is_empty() && p.warnings.is_empty());
        // An nx.json above the workspace root does not count.
        let fs = MemFs::new()
            .file("/nx.json", "{}")
            .file("/w/project.json", PROJECT);
        assert!(parse_in(parse, &fs, "/w/project.json").commands.is_empty());
    }

    #[test]
    fn nx_json_itself_yields_nothing() {
        let p = parse_in(parse, &workspace(), "/w/nx.json");
        assert!(p.commands.is_empty() && p.warnings.is_empty());
    }

    #[test]
    fn malformed_warns() {
        let fs = MemFs::new()
            .file("/w/nx.json", "{}")
            .file("/w/a/project.json", "{\"targets\": {")
            .file("/w/b/project.json", r#"{"targets": "build"}"#)
            .file("/w/c/project.json", "\u{1}garbage]]");
        let p = parse_in(parse, &fs, "/w/a/project.json");
        assert!(p.commands.is_empty());
        assert!(p.warnings[0].message.starts_with("invalid JSON"));
        let p = parse_in(parse, &fs, "/w/b/project.json");
        assert_eq!(p.warnings[0].message, "`targets` is not an object");
        let p = parse_in(parse, &fs, "/w/c/project.json");
        assert_eq!(p.warnings.len(), 1);
        let p = parse_with(parse, "/w/project.json", "{}");
        assert!(p.warnings.is_empty());
    }
}
