//! The Anthropic Messages wire format.

use crate::chat::{ChatRequest, ChatResponse, Role, StreamEvent, ToolCall, ToolChoice, Usage};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

pub(crate) const VERSION: &str = "2023-06-01";
/// Anthropic requires `max_tokens`.
const DEFAULT_MAX_TOKENS: u32 = 1024;

pub(crate) fn body(req: &ChatRequest, model: &str, stream: bool) -> Value {
    let system: Vec<&str> = req
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.as_str())
        .collect();
    // Only user and assistant turns exist, they must alternate, and the first must be the
    // user's: merge neighbours of one role, and open with an empty user turn if needed.
    let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
    for m in req.messages.iter().filter(|m| m.role != Role::System) {
        let (role, blocks) = match m.role {
            Role::User => ("user", vec![json!({"type": "text", "text": m.content})]),
            Role::Tool => (
                "user",
                vec![json!({"type": "tool_result",
                    "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                    "content": m.content})],
            ),
            Role::Assistant => {
                let mut b = Vec::new();
                if !m.content.is_empty() {
                    b.push(json!({"type": "text", "text": m.content}));
                }
                for c in &m.tool_calls {
                    b.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}));
                }
                ("assistant", b)
            }
            Role::System => unreachable!("filtered above"),
        };
        match turns.last_mut() {
            Some((r, b)) if *r == role => b.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    if turns.first().is_none_or(|(r, _)| *r != "user") {
        turns.insert(
            0,
            ("user", vec![json!({"type": "text", "text": "(start)"})]),
        );
    }
    let messages: Vec<Value> = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let mut b = Map::new();
    b.insert("model".into(), json!(model));
    b.insert(
        "max_tokens".into(),
        json!(req.options.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    if !system.is_empty() {
        b.insert("system".into(), json!(system.join("\n\n")));
    }
    b.insert("messages".into(), Value::Array(messages));
    if let Some(t) = req.options.temperature {
        b.insert("temperature".into(), json!(t));
    }
    if !req.options.stop.is_empty() {
        b.insert("stop_sequences".into(), json!(req.options.stop));
    }
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        b.insert("tools".into(), Value::Array(tools));
        let choice = match &req.tool_choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::None => json!({"type": "none"}),
            ToolChoice::Force(name) => json!({"type": "tool", "name": name}),
        };
        b.insert("tool_choice".into(), choice);
    }
    if stream {
        b.insert("stream".into(), json!(true));
    }
    for (k, v) in &req.options.extra {
        b.insert(k.clone(), v.clone());
    }
    Value::Object(b)
}

fn usage(v: Option<&Value>) -> Option<Usage> {
    let u = v?.as_object()?;
    Some(Usage {
        input_tokens: u.get("input_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0),
    })
}

pub(crate) fn parse(v: &Value) -> Result<ChatResponse, String> {
    if v.get("type").and_then(Value::as_str) == Some("error") {
        return Err(format!(
            "error in reply: {}",
            crate::error::one_line(&v["error"].to_string(), 200)
        ));
    }
    let content = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or("no `content` in the reply")?;
    let mut out = ChatResponse {
        finish_reason: v["stop_reason"].as_str().map(String::from),
        model: v["model"].as_str().unwrap_or_default().to_string(),
        usage: usage(v.get("usage")),
        ..Default::default()
    };
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => out
                .text
                .push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => out.tool_calls.push(ToolCall {
                id: block["id"].as_str().unwrap_or_default().to_string(),
                name: block["name"].as_str().unwrap_or_default().to_string(),
                arguments: block
                    .get("input")
                    .cloned()
                    .unwrap_or(Value::Object(Map::new())),
            }),
            _ => {}
        }
    }
    Ok(out)
}

enum Block {
    Text,
    Tool {
        id: String,
        name: String,
        json: String,
    },
    Other,
}

/// Assembles a streamed reply from `message_start`, `content_block_*`, `message_delta` and
/// `message_stop` events.
#[derive(Default)]
pub(crate) struct Stream {
    text: String,
    blocks: BTreeMap<usize, Block>,
    calls: Vec<ToolCall>,
    finish: Option<String>,
    model: String,
    input_tokens: u64,
    output_tokens: u64,
    pub done: bool,
}

impl Stream {
    pub fn on_event(
        &mut self,
        name: &str,
        data: &str,
        emit: &mut dyn FnMut(StreamEvent<'_>),
    ) -> Result<(), String> {
        if name == "ping" || data.trim().is_empty() {
            return Ok(());
        }
        let v: Value =
            serde_json::from_str(data).map_err(|e| format!("a stream event is not JSON ({e})"))?;
        let kind = if name.is_empty() {
            v.get("type").and_then(Value::as_str).unwrap_or("")
        } else {
            name
        };
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        match kind {
            "message_start" => {
                let m = &v["message"];
                self.model = m["model"].as_str().unwrap_or_default().to_string();
                if let Some(u) = usage(m.get("usage")) {
                    self.input_tokens = u.input_tokens;
                    self.output_tokens = u.output_tokens;
                }
            }
            "content_block_start" => {
                let b = &v["content_block"];
                let block = match b["type"].as_str() {
                    Some("text") => {
                        if let Some(t) = b["text"].as_str().filter(|t| !t.is_empty()) {
                            emit(StreamEvent::Text(t));
                            self.text.push_str(t);
                        }
                        Block::Text
                    }
                    Some("tool_use") => Block::Tool {
                        id: b["id"].as_str().unwrap_or_default().to_string(),
                        name: b["name"].as_str().unwrap_or_default().to_string(),
                        json: String::new(),
                    },
                    _ => Block::Other,
                };
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let d = &v["delta"];
                match (d["type"].as_str(), self.blocks.get_mut(&index)) {
                    (Some("text_delta"), _) => {
                        let t = d["text"].as_str().unwrap_or("");
                        emit(StreamEvent::Text(t));
                        self.text.push_str(t);
                    }
                    (Some("input_json_delta"), Some(Block::Tool { json, .. })) => {
                        let frag = d["partial_json"].as_str().unwrap_or("");
                        emit(StreamEvent::ToolArguments {
                            index,
                            fragment: frag,
                        });
                        json.push_str(frag);
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(Block::Tool { id, name, json }) = self.blocks.remove(&index) {
                    let arguments = if json.trim().is_empty() {
                        Value::Object(Map::new())
                    } else {
                        serde_json::from_str(&json).map_err(|e| {
                            format!("the arguments of tool call `{name}` are not JSON ({e})")
                        })?
                    };
                    self.calls.push(ToolCall {
                        id,
                        name,
                        arguments,
                    });
                }
            }
            "message_delta" => {
                if let Some(r) = v["delta"]["stop_reason"].as_str() {
                    self.finish = Some(r.to_string());
                }
                if let Some(n) = v["usage"]["output_tokens"].as_u64() {
                    self.output_tokens = n;
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let e = &v["error"];
                return Err(format!(
                    "the server reported an error mid-stream: {} {}",
                    e["type"].as_str().unwrap_or(""),
                    crate::error::one_line(e["message"].as_str().unwrap_or(""), 300)
                ));
            }
            _ => {}
        }
        Ok(())
    }

    pub fn finish(self) -> ChatResponse {
        ChatResponse {
            text: self.text,
            tool_calls: self.calls,
            finish_reason: self.finish,
            model: self.model,
            usage: Some(Usage {
                input_tokens: self.input_tokens,
                output_tokens: self.output_tokens,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::Message;

    /// The roles of a request body's messages, in order.
    fn roles(body: &Value) -> Vec<&str> {
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn agent_messages_become_the_top_level_system() {
        let mut req = ChatRequest::new(vec![
            Message::system("be brief"),
            Message::user("q1"),
            Message::assistant("a1"),
            Message::system("now formal"),
            Message::user("q2"),
        ]);
        req.options.extra.insert("top_p".into(), json!(0.5));
        let b = body(&req, "m", false);
        assert_eq!(b["system"], "be brief\n\nnow formal");
        assert_eq!(roles(&b), ["user", "assistant", "user"]);
        assert_eq!(b["top_p"], 0.5);
    }

    #[test]
    fn roles_are_merged_and_system_lifted() {
        let mut a = Message::assistant("");
        a.tool_calls.push(ToolCall {
            id: "t1".into(),
            name: "emit".into(),
            arguments: json!({"x": 1}),
        });
        let req = ChatRequest::new(vec![
            Message::system("s1"),
            Message::assistant("hello"),
            Message::user("u1"),
            Message::user("u2"),
            a,
            Message::tool_result("t1", "done"),
        ]);
        let b = body(&req, "claude", false);
        assert_eq!(b["system"], "s1");
        assert_eq!(b["max_tokens"], 1024);
        assert_eq!(
            roles(&b),
            ["user", "assistant", "user", "assistant", "user"]
        );
        assert_eq!(b["messages"][2]["content"].as_array().unwrap().len(), 2);
        assert_eq!(b["messages"][4]["content"][0]["type"], "tool_result");
    }
}
