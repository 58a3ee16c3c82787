//! The error codes of `docs/lsp-protocol.md` and how engine errors map onto them.

use commandtree_core::CommandItem;
use commandtree_engine::Error;
use serde_json::{Value, json};

pub const PARSE_ERROR: i32 = -32700;
pub const INVALID_REQUEST: i32 = -32600;
pub const METHOD_NOT_FOUND: i32 = -32601;
pub const INVALID_PARAMS: i32 = -32602;
pub const INTERNAL_ERROR: i32 = -32603;
pub const WORKSPACE_NOT_FOUND: i32 = -32000;
pub const DISCOVERY_FAILED: i32 = -32001;
pub const COMMAND_NOT_FOUND: i32 = -32002;
/// LSP's code for a request before `initialize`; the same number as "command not found".
pub const SERVER_NOT_INITIALIZED: i32 = -32002;
pub const NOT_TRUSTED: i32 = -32003;
pub const FAILED: i32 = -32004;
pub const REQUEST_CANCELLED: i32 = -32800;

/// An error response's code, message and data.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn params(message: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, message)
    }

    pub fn untrusted(what: &str) -> Self {
        RpcError::new(
            NOT_TRUSTED,
            format!(
                "this workspace is not trusted (restricted mode): {what} is not allowed; trust the workspace in the editor first"
            ),
        )
    }

    pub fn cancelled() -> Self {
        RpcError::new(REQUEST_CANCELLED, "cancelled")
    }
}

fn ids(cs: &[CommandItem]) -> Vec<&str> {
    cs.iter().map(|c| c.id.as_str()).collect()
}

impl From<Error> for RpcError {
    fn from(e: Error) -> Self {
        let message = e.to_string();
        match e {
            Error::Usage(_) => RpcError::new(INVALID_PARAMS, message),
            Error::Failed(_) | Error::NoDatabase(_) => RpcError::new(FAILED, message),
            Error::NoProvider { disabled_by: None } => {
                RpcError::new(FAILED, crate::editor_lm::how_to_configure())
            }
            Error::NoProvider { .. } => RpcError::new(FAILED, message),
            Error::NotFound {
                query,
                suggestions,
                typed,
                ..
            } => RpcError::new(COMMAND_NOT_FOUND, message).with_data(
                json!({"query": query, "suggestions": ids(&suggestions), "names": typed}),
            ),
            Error::Ambiguous {
                query,
                candidates,
                typed,
                more,
                ..
            } => RpcError::new(COMMAND_NOT_FOUND, message).with_data(
                json!({"query": query, "candidates": ids(&candidates), "names": typed, "more": more}),
            ),
            Error::Cancelled => RpcError::cancelled(),
        }
    }
}

pub type RpcResult<T = Value> = Result<T, RpcError>;
