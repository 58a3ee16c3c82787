//! The Claude Agent SDK's `Options`: `agents` as `Record<string, AgentDefinition>`, the MCP server
//! that serves `load_skill`, and the instructions and skills table in `systemPrompt`.

use crate::model::Warning;
use crate::render;
use crate::service::Definitions;
use serde_json::{Map, Value, json};

/// The MCP server entry put in `mcpServers`: `ct mcp` itself by default.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServer {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
}

impl Default for McpServer {
    fn default() -> Self {
        McpServer {
            name: "commandtree".into(),
            command: "ct".into(),
            args: vec!["mcp".into()],
        }
    }
}

/// An agent's `model` in the SDK's value set (`sonnet`, `opus`, `haiku`, `fable`, `inherit` or a
/// full `claude-…` id); `None` for a model the SDK cannot use (a Copilot display name such as
/// `GPT-4o`), which is then left out.
pub fn sdk_model(model: &str) -> Option<String> {
    let m = model.trim().to_ascii_lowercase();
    if matches!(
        m.as_str(),
        "sonnet" | "opus" | "haiku" | "fable" | "inherit"
    ) {
        return Some(m);
    }
    if m.starts_with("claude-") && !m.contains(char::is_whitespace) {
        return Some(model.trim().to_string());
    }
    ["opus", "sonnet", "haiku"]
        .into_iter()
        .find(|alias| m.starts_with("claude") && m.contains(alias))
        .map(str::to_string)
}

impl Definitions {
    /// `agents` for the SDK: each agent's description, full system prompt, tools, disallowed
    /// tools and model.
    pub fn claude_sdk_agents(&self) -> (Map<String, Value>, Vec<Warning>) {
        let mut out = Map::new();
        let mut warnings = Vec::new();
        for a in self.agents() {
            let mut v = Map::new();
            let description = if a.meta.description.trim().is_empty() {
                a.meta.name.clone()
            } else {
                a.meta.description.clone()
            };
            v.insert("description".into(), json!(description));
            v.insert(
                "prompt".into(),
                json!(self.system_prompt(&a.meta.id).unwrap_or_default()),
            );
            if let Some(t) = &a.tools {
                v.insert("tools".into(), json!(t));
            }
            if !a.disallowed_tools.is_empty() {
                v.insert("disallowedTools".into(), json!(a.disallowed_tools));
            }
            if let Some(m) = &a.model {
                match sdk_model(m) {
                    Some(m) => {
                        v.insert("model".into(), json!(m));
                    }
                    None => warnings.push(Warning::new(
                        &a.meta.file,
                        None,
                        format!("model `{m}` is not one the Agent SDK knows; the agent inherits the main model"),
                    )),
                }
            }
            for s in self.missing_skills(a) {
                warnings.push(Warning::new(
                    &a.meta.file,
                    None,
                    format!(
                        "agent `{}` uses the skill `{s}`, which does not exist",
                        a.meta.id
                    ),
                ));
            }
            out.insert(a.meta.id.clone(), Value::Object(v));
        }
        (out, warnings)
    }

    /// `Options` for the SDK, on top of `base` (an object; its own entries win on the same
    /// name): `agents`, `mcpServers` with `server`, `allowedTools` for the Agent tool and
    /// `load_skill`, and the general instructions and skills table appended to `systemPrompt`
    /// (a string base prompt gets them after a blank line; a preset gets them in `append`).
    pub fn claude_sdk_options(
        &self,
        base: Option<Value>,
        server: &McpServer,
    ) -> Result<(Value, Vec<Warning>), String> {
        let mut o = match base {
            None => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => return Err("the base options must be a JSON object".into()),
        };
        let (agents, warnings) = self.claude_sdk_agents();
        merge_record(&mut o, "agents", agents)?;
        let mut servers = Map::new();
        servers.insert(
            server.name.clone(),
            json!({"type": "stdio", "command": server.command, "args": server.args}),
        );
        merge_record(&mut o, "mcpServers", servers)?;

        let mut allowed = Vec::new();
        if !self.agents().is_empty() {
            allowed.push("Agent".to_string());
        }
        if !self.skills().is_empty() {
            allowed.push(format!("mcp__{}__load_skill", server.name));
        }
        let list = o.entry("allowedTools").or_insert_with(|| json!([]));
        let Value::Array(items) = list else {
            return Err("`allowedTools` in the base options must be an array".into());
        };
        for t in allowed {
            if !items.iter().any(|v| v == &Value::String(t.clone())) {
                items.push(Value::String(t));
            }
        }

        let context = render::join(&[
            Some(self.instructions_for(None).text),
            self.skills_table(&[]),
        ]);
        if !context.is_empty() {
            let sp = o
                .remove("systemPrompt")
                .unwrap_or_else(|| json!({"type": "preset", "preset": "claude_code"}));
            let sp = match sp {
                Value::String(s) => Value::String(render::join(&[Some(s), Some(context)])),
                Value::Object(mut m) => {
                    let before = m.get("append").and_then(Value::as_str).map(str::to_string);
                    m.insert(
                        "append".into(),
                        json!(render::join(&[before, Some(context)])),
                    );
                    Value::Object(m)
                }
                _ => {
                    return Err(
                        "`systemPrompt` in the base options must be a string or an object".into(),
                    );
                }
            };
            o.insert("systemPrompt".into(), sp);
        }
        Ok((Value::Object(o), warnings))
    }
}

/// Puts `ours` under `key`, keeping the base's own entries of the same name.
fn merge_record(
    o: &mut Map<String, Value>,
    key: &str,
    ours: Map<String, Value>,
) -> Result<(), String> {
    let entry = o.entry(key).or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(theirs) = entry else {
        return Err(format!("`{key}` in the base options must be an object"));
    };
    for (k, v) in ours {
        theirs.entry(k).or_insert(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_in_the_sdk_value_set() {
        assert_eq!(sdk_model("sonnet").as_deref(), Some("sonnet"));
        assert_eq!(sdk_model("Inherit").as_deref(), Some("inherit"));
        assert_eq!(
            sdk_model("claude-opus-4-5").as_deref(),
            Some("claude-opus-4-5")
        );
        assert_eq!(sdk_model("Claude Sonnet 4").as_deref(), Some("sonnet"));
        assert_eq!(sdk_model("GPT-4o"), None);
    }

    #[test]
    fn base_entries_win_and_prompts_are_appended() {
        let d = Definitions::builtin();
        let base = json!({
            "model": "claude-opus-4-5",
            "agents": {"architect": {"description": "mine", "prompt": "p"}},
            "systemPrompt": "Be brief.",
            "allowedTools": ["Read"]
        });
        let (o, w) = d
            .claude_sdk_options(Some(base), &McpServer::default())
            .unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(o["agents"]["architect"]["description"], "mine");
        assert_eq!(o["model"], "claude-opus-4-5");
        assert_eq!(o["mcpServers"]["commandtree"]["args"], json!(["mcp"]));
        assert_eq!(
            o["allowedTools"],
            json!(["Read", "Agent", "mcp__commandtree__load_skill"])
        );
        let sp = o["systemPrompt"].as_str().unwrap();
        assert!(
            sp.starts_with("Be brief.\n\n<custom-instructions source=\"builtin\">"),
            "{sp}"
        );
        assert!(
            sp.ends_with("Example: loadSkill({ skillId: \"rest-api-design\" })"),
            "{sp}"
        );
        assert!(
            d.claude_sdk_options(Some(json!([1])), &McpServer::default())
                .is_err()
        );
        assert!(
            d.claude_sdk_options(Some(json!({"agents": 1})), &McpServer::default())
                .is_err()
        );
    }
}
