//! `ct mcp install <client>`: the configuration entry that starts `ct mcp` for a client, printed
//! or merged into the client's project file. Only the `commandtree` entry is ever written; other
//! servers' entries are kept as they are.

use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The name the server is registered under.
pub const SERVER_NAME: &str = "commandtree";

/// The environment variable the HTTP entries of Claude Code and Cursor take the token from: a
/// project file may be committed, so the token itself is never written into one.
pub const TOKEN_ENV: &str = "COMMANDTREE_MCP_TOKEN";

/// VS Code's input (asked once, kept in its secret storage) holding the token.
const VSCODE_TOKEN_INPUT: &str = "commandtree-mcp-token";

/// How the client reaches the server.
#[derive(Debug, Clone, Copy)]
pub enum Transport<'a> {
    /// The client starts `program mcp` and talks on its stdin/stdout.
    Stdio { program: &'a str },
    /// The client connects to a running `ct mcp --http` at `url`.
    Http { url: &'a str },
}

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

    /// The server entry. Claude Code starts servers in the project folder; VS Code and Cursor
    /// may not, so they pass the folder they have open. Over HTTP the token comes from where
    /// each client keeps secrets: an environment variable, or VS Code's password input.
    pub fn entry(self, transport: Transport<'_>) -> Value {
        let bearer = |reference: String| json!({"Authorization": format!("Bearer {reference}")});
        match (self, transport) {
            (Client::Claude, Transport::Stdio { program }) => {
                json!({"type": "stdio", "command": program, "args": ["mcp"]})
            }
            (Client::Vscode, Transport::Stdio { program }) => json!({
                "type": "stdio",
                "command": program,
                "args": ["--root", "${workspaceFolder}", "mcp"]
            }),
            (Client::Cursor, Transport::Stdio { program }) => json!({
                "command": program,
                "args": ["--root", "${workspaceFolder}", "mcp"]
            }),
            (Client::Claude, Transport::Http { url }) => json!({
                "type": "http",
                "url": url,
                "headers": bearer(format!("${{{TOKEN_ENV}}}"))
            }),
            (Client::Vscode, Transport::Http { url }) => json!({
                "type": "http",
                "url": url,
                "headers": bearer(format!("${{input:{VSCODE_TOKEN_INPUT}}}"))
            }),
            (Client::Cursor, Transport::Http { url }) => json!({
                "url": url,
                "headers": bearer(format!("${{env:{TOKEN_ENV}}}"))
            }),
        }
    }

    /// The top-level entries the server entry refers to: VS Code's token input.
    fn extras(self, transport: Transport<'_>) -> Vec<(&'static str, Value)> {
        match (self, transport) {
            (Client::Vscode, Transport::Http { .. }) => vec![(
                "inputs",
                json!({
                    "type": "promptString",
                    "id": VSCODE_TOKEN_INPUT,
                    "description": "CommandTree MCP token (printed by `ct mcp --http`, or in its --token-file)",
                    "password": true
                }),
            )],
            _ => Vec::new(),
        }
    }

    /// The whole file as it would be with only this server.
    pub fn snippet(self, transport: Transport<'_>) -> Value {
        let mut servers = Map::new();
        servers.insert(SERVER_NAME.into(), self.entry(transport));
        let mut root = Map::new();
        for (key, item) in self.extras(transport) {
            root.insert(key.into(), Value::Array(vec![item]));
        }
        root.insert(self.servers_key().into(), Value::Object(servers));
        Value::Object(root)
    }

    /// `existing` (the file's text, when there is one) with the `commandtree` entry set. Fails,
    /// changing nothing, when the file is not a JSON object or its servers key is not one.
    pub fn merge(self, existing: Option<&str>, transport: Transport<'_>) -> Result<String, String> {
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
        servers.insert(SERVER_NAME.into(), self.entry(transport));
        for (key, item) in self.extras(transport) {
            let list = obj.entry(key).or_insert_with(|| Value::Array(Vec::new()));
            let Some(list) = list.as_array_mut() else {
                return Err(format!("`{key}` is not a JSON array"));
            };
            // Replaced by id, so merging again changes nothing.
            list.retain(|i| i.get("id") != item.get("id"));
            list.push(item);
        }
        let mut out = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?;
        out.push('\n');
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STDIO: Transport<'static> = Transport::Stdio { program: "ct" };
    const HTTP: Transport<'static> = Transport::Http {
        url: "http://127.0.0.1:8123/mcp",
    };

    #[test]
    fn http_entries_name_the_url_and_take_the_token_from_a_secret() {
        let v = Client::Claude.snippet(HTTP);
        let e = &v["mcpServers"]["commandtree"];
        assert_eq!(e["type"], "http");
        assert_eq!(e["url"], "http://127.0.0.1:8123/mcp");
        assert_eq!(
            e["headers"]["Authorization"],
            "Bearer ${COMMANDTREE_MCP_TOKEN}"
        );
        let v = Client::Cursor.snippet(HTTP);
        assert_eq!(
            v["mcpServers"]["commandtree"]["headers"]["Authorization"],
            "Bearer ${env:COMMANDTREE_MCP_TOKEN}"
        );
        // VS Code asks for it once, as a password, through an input the entry names.
        let existing = r#"{"inputs": [{"id": "other", "type": "promptString"}], "servers": {}}"#;
        let out = Client::Vscode.merge(Some(existing), HTTP).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["servers"]["commandtree"]["headers"]["Authorization"],
            "Bearer ${input:commandtree-mcp-token}"
        );
        let inputs = v["inputs"].as_array().unwrap();
        assert_eq!(inputs.len(), 2);
        assert_eq!(inputs[1]["id"], "commandtree-mcp-token");
        assert_eq!(inputs[1]["password"], true);
        assert_eq!(Client::Vscode.merge(Some(&out), HTTP).unwrap(), out);
    }

    #[test]
    fn merging_keeps_other_servers_and_settings() {
        let existing = r#"{"mcpServers": {"other": {"command": "x", "args": ["y"]}}, "keep": 1}"#;
        let out = Client::Claude.merge(Some(existing), STDIO).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["mcpServers"]["other"],
            json!({"command": "x", "args": ["y"]})
        );
        assert_eq!(v["keep"], 1);
        assert_eq!(v["mcpServers"]["commandtree"]["args"], json!(["mcp"]));
        // Merging again changes nothing.
        assert_eq!(Client::Claude.merge(Some(&out), STDIO).unwrap(), out);
    }

    #[test]
    fn each_client_has_its_own_file_and_key() {
        let v: Value = serde_json::from_str(
            &Client::Vscode
                .merge(None, Transport::Stdio { program: "/bin/ct" })
                .unwrap(),
        )
        .unwrap();
        assert_eq!(v["servers"]["commandtree"]["command"], "/bin/ct");
        assert_eq!(v["servers"]["commandtree"]["type"], "stdio");
        assert_eq!(Client::Vscode.file(), Path::new(".vscode/mcp.json"));
        let v = Client::Cursor.snippet(STDIO);
        assert!(v["mcpServers"]["commandtree"]["args"][1] == "${workspaceFolder}");
        assert_eq!(Client::parse("claude"), Some(Client::Claude));
        assert_eq!(Client::parse("emacs"), None);
    }

    #[test]
    fn files_that_cannot_be_merged_are_left_alone() {
        assert!(Client::Vscode.merge(Some("// mine\n{}"), STDIO).is_err());
        assert!(Client::Vscode.merge(Some("[]"), STDIO).is_err());
        assert!(
            Client::Claude
                .merge(Some(r#"{"mcpServers": 3}"#), STDIO)
                .is_err()
        );
    }
}
