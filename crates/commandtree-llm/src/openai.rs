//! The OpenAI Chat Completions wire format (also GitHub Models, Ollama, llama.cpp, vLLM,
//! LM Studio).

use crate::chat::{ChatRequest, ChatResponse, Role, StreamEvent, ToolCall, ToolChoice, Usage};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// How a forced tool call is asked for. Servers differ: OpenAI and vLLM take the named
/// function, llama.cpp's server only `"required"`, some only `"auto"` (then the prompt asks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ForceMode {
    Named = 0,
    Required = 1,
    Auto = 2,
}

impl ForceMode {
    pub fn from_u8(v: u8) -> ForceMode {
        match v {
            0 => ForceMode::Named,
            1 => ForceMode::Required,
            _ => ForceMode::Auto,
        }
    }
    pub fn weaker(self) -> Option<ForceMode> {
        match self {
            ForceMode::Named => Some(ForceMode::Required),
            ForceMode::Required => Some(ForceMode::Auto),
            ForceMode::Auto => None,
        }
    }
}

pub(crate) struct Quirks {
    pub force: ForceMode,
    /// OpenAI's own API wants `max_completion_tokens`; compatible servers know `max_tokens`.
    pub max_completion_tokens: bool,
    /// The model refused a non-default temperature once: stop sending it.
    pub drop_temperature: bool,
}

pub(crate) fn body(req: &ChatRequest, model: &str, stream: bool, q: &Quirks) -> Value {
    let messages: Vec<Value> = req.messages.iter().map(message).collect();
    let mut b = Map::new();
    b.insert("model".into(), json!(model));
    b.insert("messages".into(), Value::Array(messages));
    if let Some(t) = req.options.temperature.filter(|_| !q.drop_temperature) {
        b.insert("temperature".into(), json!(t));
    }
    if let Some(n) = req.options.max_tokens {
        let key = if q.max_completion_tokens {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        b.insert(key.into(), json!(n));
    }
    if !req.options.stop.is_empty() {
        b.insert("stop".into(), json!(req.options.stop));
    }
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters}})
            })
            .collect();
        b.insert("tools".into(), Value::Array(tools));
        let choice = match &req.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Force(name) => match q.force {
                ForceMode::Named => json!({"type": "function", "function": {"name": name}}),
                ForceMode::Required => json!("required"),
                ForceMode::Auto => json!("auto"),
            },
        };
        b.insert("tool_choice".into(), choice);
    }
    b.insert("stream".into(), json!(stream));
    for (k, v) in &req.options.extra {
        b.insert(k.clone(), v.clone());
    }
    Value::Object(b)
}

fn message(m: &crate::chat::Message) -> Value {
    match m.role {
        Role::System => json!({"role": "system", "content": m.content}),
        Role::User => json!({"role": "user", "content": m.content}),
        Role::Assistant if m.tool_calls.is_empty() => {
            json!({"role": "assistant", "content": m.content})
        }
        Role::Assistant => {
            let calls: Vec<Value> = m
                .tool_calls
                .iter()
                .map(|c| {
                    json!({"id": c.id, "type": "function", "function": {
                        "name": c.name, "arguments": c.arguments.to_string()}})
                })
                .collect();
            let content = if m.content.is_empty() {
                Value::Null
            } else {
                json!(m.content)
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        Role::Tool => json!({
            "role": "tool",
            "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
            "content": m.content}),
    }
}

/// Tool arguments arrive as a JSON string (OpenAI) or as an object (Ollama at times).
fn arguments(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => parse_arguments(s),
        Some(Value::Null) | None => Value::Object(Map::new()),
        Some(other) => other.clone(),
    }
}

pub(crate) fn parse_arguments(s: &str) -> Value {
    if s.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_string()))
}

/// Message content: a string, null, or (some servers) an array of `{type:"text", text}` parts.
fn content_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn usage(v: Option<&Value>) -> Option<Usage> {
    let u = v?.as_object()?;
    Some(Usage {
        input_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: u
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    })
}

/// A whole (non-streaming) reply. The error names what was wrong.
pub(crate) fn parse(v: &Value) -> Result<ChatResponse, String> {
    if let Some(e) = v.get("error") {
        return Err(format!(
            "error in reply: {}",
            crate::error::one_line(&e.to_string(), 200)
        ));
    }
    let choice = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("no `choices` in the reply")?;
    let msg = choice
        .get("message")
        .ok_or("no `message` in the first choice")?;
    let tool_calls = msg
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let f = c.get("function");
                    ToolCall {
                        id: c
                            .get("id")
                            .and_then(Value::as_str)
                            .map_or_else(|| format!("call_{i}"), String::from),
                        name: f
                            .and_then(|f| f.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        arguments: arguments(f.and_then(|f| f.get("arguments"))),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(ChatResponse {
        text: content_text(msg.get("content")),
        tool_calls,
        finish_reason: choice["finish_reason"].as_str().map(String::from),
        model: v["model"].as_str().unwrap_or_default().to_string(),
        usage: usage(v.get("usage")),
    })
}

/// Assembles a streamed reply from its chunks.
#[derive(Default)]
pub(crate) struct Stream {
    text: String,
    /// By `index`: id, name, argument fragments joined.
    calls: BTreeMap<usize, (String, String, String)>,
    finish: Option<String>,
    model: String,
    usage: Option<Usage>,
    pub done: bool,
}

impl Stream {
    /// One `data:` payload. `Err` carries a mid-stream error message from the server or a
    /// description of malformed data.
    pub fn on_data(
        &mut self,
        data: &str,
        emit: &mut dyn FnMut(StreamEvent<'_>),
    ) -> Result<(), String> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let v: Value =
            serde_json::from_str(data).map_err(|e| format!("a stream chunk is not JSON ({e})"))?;
        if let Some(e) = v.get("error") {
            let msg = e
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| e.to_string(), String::from);
            return Err(format!(
                "the server reported an error mid-stream: {}",
                crate::error::one_line(&msg, 300)
            ));
        }
        if let Some(m) = v.get("model").and_then(Value::as_str) {
            self.model = m.to_string();
        }
        if let Some(u) = usage(v.get("usage")) {
            self.usage = Some(u);
        }
        // The usage chunk has `choices: []` (vLLM: null).
        let Some(choice) = v
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(());
        };
        if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish = Some(f.to_string());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(());
        };
        let piece = content_text(delta.get("content"));
        if !piece.is_empty() {
            emit(StreamEvent::Text(&piece));
            self.text.push_str(&piece);
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (pos, c) in calls.iter().enumerate() {
                let index = c
                    .get("index")
                    .and_then(Value::as_u64)
                    .map_or(pos, |i| i as usize);
                let entry = self.calls.entry(index).or_default();
                if let Some(id) = c.get("id").and_then(Value::as_str) {
                    entry.0 = id.to_string();
                }
                let f = c.get("function");
                if let Some(name) = f.and_then(|f| f.get("name")).and_then(Value::as_str) {
                    entry.1.push_str(name);
                }
                match f.and_then(|f| f.get("arguments")) {
                    Some(Value::String(frag)) => {
                        emit(StreamEvent::ToolArguments {
                            index,
                            fragment: frag,
                        });
                        entry.2.push_str(frag);
                    }
                    Some(Value::Null) | None => {}
                    Some(obj) => entry.2.push_str(&obj.to_string()),
                }
            }
        }
        Ok(())
    }

    pub fn finish(self) -> ChatResponse {
        ChatResponse {
            text: self.text,
            tool_calls: self
                .calls
                .into_iter()
                .map(|(i, (id, name, args))| ToolCall {
                    id: if id.is_empty() {
                        format!("call_{i}")
                    } else {
                        id
                    },
                    name,
                    arguments: parse_arguments(&args),
                })
                .collect(),
            finish_reason: self.finish,
            model: self.model,
            usage: self.usage,
        }
    }
}

/// The list of `GET /models`.
pub(crate) fn model_ids(v: &Value) -> Vec<String> {
    let list = v
        .get("data")
        .or_else(|| v.get("models"))
        .and_then(Value::as_array);
    list.map(|l| {
        l.iter()
            .filter_map(|m| {
                m.get("id")
                    .or_else(|| m.get("name"))
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .collect()
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{Message, Tool};

    #[test]
    fn request_shape() {
        let mut req = ChatRequest::new(vec![Message::system("s"), Message::user("u")]);
        req.tools = vec![Tool {
            name: "emit".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }];
        req.tool_choice = ToolChoice::Force("emit".into());
        req.options.max_tokens = Some(100);
        req.options.temperature = Some(0.2);
        req.options.extra.insert("seed".into(), json!(7));
        let q = Quirks {
            force: ForceMode::Named,
            max_completion_tokens: false,
            drop_temperature: false,
        };
        let b = body(&req, "m", false, &q);
        assert_eq!(b["tool_choice"]["function"]["name"], "emit");
        assert_eq!(b["max_tokens"], 100);
        assert_eq!(b["seed"], 7);
        assert_eq!(b["messages"][0]["role"], "system");
        let q = Quirks {
            force: ForceMode::Required,
            max_completion_tokens: true,
            drop_temperature: true,
        };
        let b = body(&req, "m", true, &q);
        assert_eq!(b["tool_choice"], "required");
        assert_eq!(b["max_completion_tokens"], 100);
        assert!(b.get("temperature").is_none());
        assert_eq!(b["stream"], true);
    }

    #[test]
    fn agent_messages_are_system_messages_in_place() {
        let req = ChatRequest::new(vec![
            Message::system("be brief"),
            Message::user("q1"),
            Message::assistant("a1"),
            Message::system("now formal"),
            Message::user("q2"),
        ]);
        let q = Quirks {
            force: ForceMode::Named,
            max_completion_tokens: false,
            drop_temperature: false,
        };
        let b = body(&req, "m", false, &q);
        let roles: Vec<&str> = b["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "system", "user"]);
        assert_eq!(b["messages"][3]["content"], "now formal");
    }

    #[test]
    fn stream_assembles_fragments() {
        let mut s = Stream::default();
        let mut texts = Vec::new();
        for d in [
            r#"{"model":"m","choices":[{"delta":{"role":"assistant","content":"Hi"}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"emit","arguments":"{\"a\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":": 1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
            "[DONE]",
        ] {
            s.on_data(d, &mut |e| {
                if let StreamEvent::Text(t) = e {
                    texts.push(t.to_string())
                }
            })
            .unwrap();
        }
        assert!(s.done);
        let r = s.finish();
        assert_eq!(r.text, "Hi");
        assert_eq!(texts, vec!["Hi"]);
        assert_eq!(r.tool_calls[0].arguments, json!({"a": 1}));
        assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(r.usage.unwrap().output_tokens, 4);
    }
}
