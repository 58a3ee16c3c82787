//! CommandTree's AI layer: an LLM client over the two wire protocols users already have
//! (OpenAI-compatible chat completions and Anthropic Messages), chosen from configuration or
//! the environment, and the summary pipeline that explains every command and flags dangerous
//! ones. Threads, not async: requests block their thread and can be cancelled from another.

mod anthropic;
mod chat;
mod client;
mod error;
mod http;
mod openai;
pub mod provider;
mod sse;
pub mod summary;

pub use chat::{
    ChatRequest, ChatResponse, Message, Options, Role, StreamEvent, Tool, ToolCall, ToolChoice,
    Usage,
};
pub use client::{Client, ToolCaller, tool_arguments};
pub use commandtree_core::CancelToken;
pub use error::{ErrorKind, LlmError, Result};
pub use provider::{Detection, ProviderConfig, Secret, Wire};
