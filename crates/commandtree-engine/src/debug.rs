//! Launch configurations as an editor's debugger takes them: the object from
//! `.vscode/launch.json` as written, variables unresolved, since the editor resolves
//! `${workspaceFolder}` and friends itself (the native-debugger plan in `commandtree-exec`
//! resolves them for a terminal instead).

use crate::{Error, Result};
use commandtree_core::{CommandItem, CommandType};
use serde_json::{Value, json};
use std::path::Path;

/// The configuration `item` (a `launch` command) names in its `launch.json`. A compound comes
/// back as `{"name", "compound": true, "configurations": [names]}`, which an editor starts by
/// name.
pub fn launch_configuration(item: &CommandItem) -> Result<Value> {
    if item.command_type() != Some(CommandType::Launch) {
        return Err(Error::failed(format!(
            "`{}` is a {} command, not a launch configuration: debugging starts the configurations of .vscode/launch.json",
            item.label, item.kind
        )));
    }
    let file = Path::new(&item.file_path);
    let root = commandtree_exec::launch::read(file)?;
    let named = |v: &&Value| v.get("name").and_then(Value::as_str) == Some(item.command.as_str());
    let list = |key: &str| root.get(key).and_then(Value::as_array).cloned();
    if let Some(c) = list("configurations")
        .unwrap_or_default()
        .iter()
        .find(named)
    {
        return Ok(c.clone());
    }
    if let Some(c) = list("compounds").unwrap_or_default().iter().find(named) {
        let configurations = c
            .get("configurations")
            .cloned()
            .unwrap_or_else(|| json!([]));
        return Ok(json!({
            "name": item.command,
            "compound": true,
            "configurations": configurations,
        }));
    }
    Err(Error::failed(format!(
        "{}: no configuration or compound is named `{}`",
        file.display(),
        item.command
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch_item(file: &Path, name: &str) -> CommandItem {
        let mut c = CommandItem {
            id: format!("launch:{}:{name}", file.display()),
            label: name.into(),
            kind: "launch".into(),
            command: name.into(),
            file_path: file.to_string_lossy().into_owned(),
            ..Default::default()
        };
        c.category = "VS Code Launch".into();
        c
    }

    #[test]
    fn configurations_come_back_as_written_and_compounds_by_name() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-engine-debug-")
            .tempdir()
            .unwrap();
        let file = scratch.path().join("launch.json");
        std::fs::write(
            &file,
            r#"{
  // comments are allowed
  "configurations": [
    {"name": "App", "type": "node", "request": "launch", "program": "${workspaceFolder}/app.js"},
  ],
  "compounds": [{"name": "Both", "configurations": ["App", "Other"]}]
}"#,
        )
        .unwrap();
        let v = launch_configuration(&launch_item(&file, "App")).unwrap();
        assert_eq!(v["program"], "${workspaceFolder}/app.js");
        assert_eq!(v["type"], "node");
        let v = launch_configuration(&launch_item(&file, "Both")).unwrap();
        assert_eq!(
            v,
            json!({"name": "Both", "compound": true, "configurations": ["App", "Other"]})
        );
        let e = launch_configuration(&launch_item(&file, "Gone")).unwrap_err();
        assert!(
            e.to_string()
                .contains("no configuration or compound is named `Gone`")
        );
        let mut npm = launch_item(&file, "App");
        npm.kind = "npm".into();
        assert!(launch_configuration(&npm).is_err());
    }
}
