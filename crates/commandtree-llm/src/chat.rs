//! Provider-neutral chat types: what every AI feature (summaries, skills, the task skill,
//! playbooks) builds, and what every provider translates to its own wire format.

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Instructions for the model (Anthropic puts these in the top-level `system` field).
    System,
    User,
    Assistant,
    /// The result of a tool call, answering `tool_call_id`.
    Tool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// Tool calls an assistant message made (echoed back when continuing a tool conversation).
    pub tool_calls: Vec<ToolCall>,
    /// For `Role::Tool`: the call this message answers.
    pub tool_call_id: Option<String>,
}

impl Message {
    fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
    pub fn tool_result(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Message {
            tool_call_id: Some(call_id.into()),
            ..Self::new(Role::Tool, content)
        }
    }
}

/// A function the model may call; `parameters` is a JSON Schema object.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    #[default]
    Auto,
    None,
    /// The model must call this tool.
    Force(String),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Options {
    /// Overrides the provider's configured model.
    pub model: Option<String>,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    pub stop: Vec<String>,
    /// Passed through into the request body as is (`top_p`, `seed`, server-specific sampling
    /// parameters...). They override what the provider would send for the same key.
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub tools: Vec<Tool>,
    pub tool_choice: ToolChoice,
    pub options: Options,
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>) -> Self {
        ChatRequest {
            messages,
            ..Default::default()
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The parsed arguments (an object when the model behaved).
    pub arguments: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatResponse {
    /// The text the model wrote (joined text blocks).
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    /// The provider's own finish or stop reason (`stop`, `length`, `tool_calls`, `end_turn`...).
    pub finish_reason: Option<String>,
    /// The model that answered, as the server names it.
    pub model: String,
    pub usage: Option<Usage>,
}

impl ChatResponse {
    /// The answer was cut off by the token limit.
    pub fn truncated(&self) -> bool {
        matches!(self.finish_reason.as_deref(), Some("length" | "max_tokens"))
    }
}

/// What a streaming request reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent<'a> {
    /// A piece of the answer's text.
    Text(&'a str),
    /// A piece of a tool call's arguments (JSON text, to be joined).
    ToolArguments { index: usize, fragment: &'a str },
}
