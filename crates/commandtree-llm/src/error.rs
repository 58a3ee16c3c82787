//! Errors that say what the user must do. Each message is one line, names the server, and never
//! contains the API key (server messages are scrubbed of it before they are quoted).

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// No provider is configured or detected.
    NotConfigured,
    /// The configuration is invalid (unknown provider name, wrong value type).
    Config,
    /// The key is missing, wrong or lacks permission (HTTP 401/403).
    Auth,
    /// The server does not know the model.
    ModelNotFound,
    /// Nothing answers at the base URL (refused, unknown host, TLS failure).
    Unreachable,
    /// HTTP 429, still after the retries.
    RateLimited,
    /// HTTP 5xx (or Anthropic's 529), still after the retries.
    Server,
    /// Another 4xx: the server rejected the request.
    BadRequest,
    /// The reply was not what the protocol says (malformed JSON, missing fields).
    BadResponse,
    /// The model answered with text where a tool call was required.
    NoToolCall,
    Timeout,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmError {
    pub kind: ErrorKind,
    pub message: String,
    /// The HTTP status, when the server answered.
    pub status: Option<u16>,
}

impl LlmError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        LlmError {
            kind,
            message: message.into(),
            status: None,
        }
    }
    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }
    pub fn cancelled() -> Self {
        Self::new(ErrorKind::Cancelled, "cancelled")
    }
    pub fn is_cancelled(&self) -> bool {
        self.kind == ErrorKind::Cancelled
    }
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LlmError {}

pub type Result<T, E = LlmError> = std::result::Result<T, E>;

/// What an error message needs to know about the request.
#[derive(Debug, Clone)]
pub(crate) struct ErrCtx {
    pub provider: String,
    pub base_url: String,
    pub model: String,
    /// Where the key came from (an environment variable name), `None` when none was sent.
    pub key_source: Option<String>,
}

impl ErrCtx {
    fn key_hint(&self) -> String {
        match self.key_source.as_deref() {
            Some("COMMANDTREE_LLM_API_KEY") | None => "set COMMANDTREE_LLM_API_KEY".to_string(),
            Some(var) => format!("set {var} (or COMMANDTREE_LLM_API_KEY)"),
        }
    }

    pub fn unreachable(&self, reason: &str) -> LlmError {
        LlmError::new(
            ErrorKind::Unreachable,
            format!(
                "cannot reach {} at {} ({reason}); start the server, or set COMMANDTREE_LLM_BASE_URL / [llm] base_url to its address",
                self.provider, self.base_url
            ),
        )
    }

    pub fn timeout(&self, after: Duration) -> LlmError {
        LlmError::new(
            ErrorKind::Timeout,
            format!(
                "{} at {} did not answer within {} s; try again, or raise [llm] timeout_secs for slow models",
                self.provider,
                self.base_url,
                after.as_secs()
            ),
        )
    }

    pub fn bad_response(&self, what: &str) -> LlmError {
        LlmError::new(
            ErrorKind::BadResponse,
            format!(
                "{} at {} sent a reply that does not follow its API ({what}); check that the base URL points at the {} API",
                self.provider, self.base_url, self.provider
            ),
        )
    }

    /// An error reply after the retries are used up (or one that is not retried).
    pub fn http(&self, status: u16, body: &str, retries: u32) -> LlmError {
        let detail = ErrorBody::parse(body);
        let msg = detail.message.as_str();
        let quoted = if msg.is_empty() {
            String::new()
        } else {
            format!(": {msg}")
        };
        let lower = format!(
            "{} {} {}",
            msg.to_lowercase(),
            detail.code.to_lowercase(),
            detail.kind.to_lowercase()
        );
        let model_problem = lower.contains("model")
            && (lower.contains("not found")
                || lower.contains("not_found")
                || lower.contains("does not exist")
                || lower.contains("unknown")
                || lower.contains("invalid")
                || lower.contains("not available")
                || lower.contains("unsupported"));
        let after = if retries > 0 {
            format!(", still after {retries} retries")
        } else {
            String::new()
        };
        let (kind, text) = match status {
            401 | 403 if self.key_source.is_none() => (
                ErrorKind::Auth,
                format!(
                    "{} at {} requires an API key (HTTP {status}{quoted}); {} to your key",
                    self.provider,
                    self.base_url,
                    self.key_hint()
                ),
            ),
            401 | 403 => (
                ErrorKind::Auth,
                format!(
                    "{} at {} rejected the API key (HTTP {status}{quoted}); {} to a valid key",
                    self.provider,
                    self.base_url,
                    self.key_hint()
                ),
            ),
            400 | 404 | 422 if model_problem => (
                ErrorKind::ModelNotFound,
                format!(
                    "model `{}` is not available at {} (HTTP {status}{quoted}); set COMMANDTREE_LLM_MODEL or [llm] model to a model the server offers",
                    self.model, self.base_url
                ),
            ),
            404 => (
                ErrorKind::BadRequest,
                format!(
                    "{} answered HTTP 404{quoted}; check COMMANDTREE_LLM_BASE_URL / [llm] base_url (OpenAI-compatible servers usually end in /v1)",
                    self.base_url
                ),
            ),
            429 => (
                ErrorKind::RateLimited,
                format!(
                    "{} at {} is rate limiting requests (HTTP 429{after}{quoted}); wait and run again, or lower [llm] concurrency",
                    self.provider, self.base_url
                ),
            ),
            500.. => (
                ErrorKind::Server,
                format!(
                    "{} at {} failed with HTTP {status}{after}{quoted}; try again later",
                    self.provider, self.base_url
                ),
            ),
            _ => (
                ErrorKind::BadRequest,
                format!(
                    "{} at {} rejected the request (HTTP {status}{quoted})",
                    self.provider, self.base_url
                ),
            ),
        };
        LlmError::new(kind, text).with_status(status)
    }

    pub fn no_tool_call(&self, tool: &str) -> LlmError {
        LlmError::new(
            ErrorKind::NoToolCall,
            format!(
                "model `{}` answered with text instead of calling the `{tool}` tool (asked twice); choose a model that supports tool calls with COMMANDTREE_LLM_MODEL or [llm] model",
                self.model
            ),
        )
    }
}

/// The useful parts of an error body in any of the shapes servers use: OpenAI's
/// `{"error":{"message","type","code","param"}}`, Anthropic's
/// `{"type":"error","error":{"type","message"}}`, `{"error":"text"}` (Ollama, llama.cpp) and
/// FastAPI's `{"detail":...}`.
#[derive(Debug, Default, Clone)]
pub(crate) struct ErrorBody {
    pub message: String,
    pub kind: String,
    pub code: String,
    pub param: String,
}

impl ErrorBody {
    pub fn parse(body: &str) -> ErrorBody {
        let mut out = ErrorBody::default();
        match serde_json::from_str::<serde_json::Value>(body) {
            Ok(v) => {
                let e = v.get("error").unwrap_or(&v);
                let s = |v: Option<&serde_json::Value>| match v {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(serde_json::Value::Null) | None => String::new(),
                    Some(other) => other.to_string(),
                };
                out.message = match e {
                    serde_json::Value::String(s) => s.clone(),
                    _ => s(e.get("message").or_else(|| v.get("detail"))),
                };
                out.kind = s(e.get("type"));
                out.code = s(e.get("code"));
                out.param = s(e.get("param"));
            }
            Err(_) => out.message = body.to_string(),
        }
        out.message = one_line(&out.message, 300);
        out
    }
}

/// Collapses whitespace and caps the length, so a quoted server message keeps the error on
/// one line.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        joined
    } else {
        let mut t: String = joined.chars().take(max).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(key: Option<&str>) -> ErrCtx {
        ErrCtx {
            provider: "OpenAI".into(),
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-x".into(),
            key_source: key.map(String::from),
        }
    }

    #[test]
    fn messages_tell_what_to_do() {
        let e = ctx(Some("OPENAI_API_KEY")).http(
            401,
            r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#,
            0,
        );
        assert_eq!(e.kind, ErrorKind::Auth);
        assert!(
            e.message
                .contains("set OPENAI_API_KEY (or COMMANDTREE_LLM_API_KEY)"),
            "{e}"
        );
        let e = ctx(None).http(401, "", 0);
        assert!(e.message.contains("requires an API key"), "{e}");
        let e = ctx(Some("X")).http(
            404,
            r#"{"error":{"message":"The model `gpt-x` does not exist","code":"model_not_found"}}"#,
            0,
        );
        assert_eq!(e.kind, ErrorKind::ModelNotFound);
        assert!(e.message.contains("COMMANDTREE_LLM_MODEL"));
        let e = ctx(Some("X")).http(
            404,
            r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}"#,
            0,
        );
        assert_eq!(e.kind, ErrorKind::ModelNotFound);
        let e = ctx(Some("X")).http(
            404,
            r#"{"error":"model \"llama9\" not found, try pulling it first"}"#,
            0,
        );
        assert_eq!(e.kind, ErrorKind::ModelNotFound);
        let e = ctx(Some("X")).http(429, "slow down", 3);
        assert_eq!(e.kind, ErrorKind::RateLimited);
        assert!(e.message.contains("still after 3 retries"));
        let e = ctx(Some("X")).http(503, "<html>\n<b>oops</b>\n</html>", 2);
        assert_eq!(e.kind, ErrorKind::Server);
        assert!(!e.message.contains('\n'));
    }
}
