//! `ct mcp install <client>`: the configuration entry that starts `ct mcp` for a client, printed
//! or merged into the client's project file. Only the `commandtree` entry is ever written; other
//! servers' entries are kept as they are.

use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The name the server is registered under.
pub const SERVER_NAME: &str = "commandtree";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// Claude Code: `.mcp.json` at the project root.
    Claude,
    /// VS Code (Copilot agent mode): `.vscode/mcp.json`.
    Vscode,
    /// Cursor: `.cursor/mcp.json`.
    Cursor,
}

impl Client {
    pub const NAMES: [&str; 3] = ["claude", "vscode", "cursor"];

    pub fn parse(name: &str) -> Option<Client> {
        match name {
            "claude" => Some(Client::Claude),
            "vscode" => Some(Client::Vscode),
            "cursor" => Some(Client::Cursor),
            _ => None,
        }
    }

    /// The project file, relative to the workspace root.
    pub fn file(self) -> PathBuf {
        match self {
            Client::Claude => PathBuf::from(".mcp.json"),
            Client::Vscode => Path::new(".vscode").join("mcp.json"),
            Client::Cursor => Path::new(".cursor").join("mcp.json"),
        }
    }

    /// The key holding the servers.
    fn servers_key(self) -> &'static str {
        match self {
            Client::Vscode => "servers",
            Client::Claude | Client::Cursor => "mcpServers",
        }
    }

    /// The server entry starting `program mcp`. Claude Code starts servers in the project
    /// folder; VS Code and Cursor may not, so they pass the folder they have open.
    pub fn entry(self, program: &str) -> Value {
        match self {
            Client::Claude => json!({"type": "stdio", "command": program, "args": ["mcp"]}),
            Client::Vscode => json!({
                "type": "stdio",
                "command": program,
                "args": ["--root", "${workspaceFolder}", "mcp"]
            }),
            Client::Cursor => json!({
                "command": program,
                "args": ["--root", "${workspaceFolder}", "mcp"]
            }),
        }
    }

    /// The whole file as it would be with only this server.
    pub fn snippet(self, program: &str) -> Value {
        let mut servers = Map::new();
        servers.insert(SERVER_NAME.into(), self.entry(program));
        let mut root = Map::new();
        root.insert(self.servers_key().into(), Value::Object(servers));
        Value::Object(root)
    }

    /// `existing` (the file's text, when there is one) with the `commandtree` entry set. Fails,
    /// changing nothing, when the file is not a JSON object or its servers key is not one.
    pub fn merge(self, existing: Option<&str>, program: &str) -> Result<String, String> {
        let mut root = match existing.map(str::trim) {
            None | Some("") => Value::Object(Map::new()),
            Some(text) => serde_json::from_str::<Value>(text).map_err(|e| {
                format!("not plain JSON ({e}); comments are not kept by a rewrite, so add the entry by hand")
            })?,
        };
        let Some(obj) = root.as_object_mut() else {
            return Err("its top level is not a JSON object".into());
        };
        let servers = obj
            .entry(self.servers_key())
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(servers) = servers.as_object_mut() else {
            return Err(format!("`{}` is not a JSON object", self.servers_key()));
        };
        servers.insert(SERVER_NAME.into(), self.entry(program));
        let mut out = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?;
        out.push('\n');
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_other_servers_and_settings() {
        let existing = r#"{"mcpServers": {"other": {"command": "x", "args": ["y"]}}, "keep": 1}"#;
        let out = Client::Claude.merge(Some(existing), "ct").unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["mcpServers"]["other"],
            json!({"command": "x", "args": ["y"]})
        );
        assert_eq!(v["keep"], 1);
        assert_eq!(v["mcpServers"]["commandtree"]["args"], json!(["mcp"]));
        // Merging again changes nothing.
        assert_eq!(Client::Claude.merge(Some(&out), "ct").unwrap(), out);
    }

    #[test]
    fn each_client_has_its_own_file_and_key() {
        let v: Value =
            serde_json::from_str(&Client::Vscode.merge(None, "/bin/ct").unwrap()).unwrap();
        assert_eq!(v["servers"]["commandtree"]["command"], "/bin/ct");
        assert_eq!(v["servers"]["commandtree"]["type"], "stdio");
        assert_eq!(Client::Vscode.file(), Path::new(".vscode/mcp.json"));
        let v = Client::Cursor.snippet("ct");
        assert!(v["mcpServers"]["commandtree"]["args"][1] == "${workspaceFolder}");
        assert_eq!(Client::parse("claude"), Some(Client::Claude));
        assert_eq!(Client::parse("emacs"), None);
    }

    #[test]
    fn files_that_cannot_be_merged_are_left_alone() {
        assert!(Client::Vscode.merge(Some("// mine\n{}"), "ct").is_err());
        assert!(Client::Vscode.merge(Some("[]"), "ct").is_err());
        assert!(
            Client::Claude
                .merge(Some(r#"{"mcpServers": 3}"#), "ct")
                .is_err()
        );
    }
}
