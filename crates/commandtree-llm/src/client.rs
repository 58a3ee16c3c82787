//! The client every AI feature calls: plain chat, streaming chat, and structured output through
//! one forced tool call. It is `Sync`: share one between threads; its concurrency limit covers
//! all of them.

use crate::chat::{
    ChatRequest, ChatResponse, Message, Options, StreamEvent, Tool, ToolCall, ToolChoice,
};
use crate::error::{ErrCtx, ErrorBody, ErrorKind, LlmError, Result};
use crate::http::{Http, Method, Reply};
use crate::provider::{ProviderConfig, Wire};
use crate::sse::{ReadError, read_events};
use crate::{anthropic, openai};
use commandtree_core::CancelToken;
use serde_json::Value;
use std::io::Read;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

pub struct Client {
    http: Http,
    /// The model the server lists first, when none is configured.
    listed_model: OnceLock<String>,
    force_mode: AtomicU8,
    drop_temperature: AtomicBool,
}

impl Client {
    pub fn new(cfg: ProviderConfig) -> Client {
        Client {
            http: Http::new(cfg),
            listed_model: OnceLock::new(),
            force_mode: AtomicU8::new(openai::ForceMode::Named as u8),
            drop_temperature: AtomicBool::new(false),
        }
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.http.cfg
    }

    fn ctx(&self, model: &str) -> ErrCtx {
        let c = &self.http.cfg;
        ErrCtx {
            provider: c.name.clone(),
            base_url: c.base_url.clone(),
            model: model.to_string(),
            key_source: c.api_key.as_ref().and(c.key_source.clone()),
        }
    }

    fn headers(&self) -> Vec<(String, String)> {
        let c = &self.http.cfg;
        let mut h = c.headers.clone();
        match (c.wire, &c.api_key) {
            (Wire::OpenAi, Some(k)) => {
                h.push(("Authorization".into(), format!("Bearer {}", k.expose())))
            }
            (Wire::Anthropic, Some(k)) => h.push(("x-api-key".into(), k.expose().to_string())),
            _ => {}
        }
        if c.wire == Wire::Anthropic {
            h.push(("anthropic-version".into(), anthropic::VERSION.into()));
        }
        h
    }

    /// The model requests go to: the configured one, else the first the server lists.
    pub fn model(&self, cancel: &CancelToken) -> Result<String> {
        if let Some(m) = &self.http.cfg.model {
            return Ok(m.clone());
        }
        if let Some(m) = self.listed_model.get() {
            return Ok(m.clone());
        }
        let models = self.list_models(cancel)?;
        let first = models.into_iter().next().ok_or_else(|| {
            LlmError::new(
                ErrorKind::ModelNotFound,
                format!(
                    "{} at {} lists no models; set COMMANDTREE_LLM_MODEL or [llm] model",
                    self.http.cfg.name, self.http.cfg.base_url
                ),
            )
        })?;
        Ok(self.listed_model.get_or_init(|| first).clone())
    }

    /// `GET /models` (`/v1/models` for Anthropic).
    pub fn list_models(&self, cancel: &CancelToken) -> Result<Vec<String>> {
        let ctx = self.ctx(self.http.cfg.model.as_deref().unwrap_or("?"));
        let path = match self.http.cfg.wire {
            Wire::OpenAi => "/models",
            Wire::Anthropic => "/v1/models",
        };
        let reply = self
            .http
            .send(path, Method::Get, false, &self.headers(), cancel, &ctx)?;
        let v = read_json(reply, cancel, &ctx, self.http.cfg.timeout)?;
        Ok(openai::model_ids(&v))
    }

    fn quirks(&self) -> openai::Quirks {
        openai::Quirks {
            force: openai::ForceMode::from_u8(self.force_mode.load(Ordering::Relaxed)),
            max_completion_tokens: self.http.cfg.is_openai_api(),
            drop_temperature: self.drop_temperature.load(Ordering::Relaxed),
        }
    }

    /// Sends the request; adapts once to a server that rejects a forced tool choice or a
    /// temperature, and remembers it for later requests.
    fn exchange<'a>(
        &self,
        req: &ChatRequest,
        stream: bool,
        cancel: &'a CancelToken,
    ) -> Result<(Reply<'a>, ErrCtx)> {
        let model = match &req.options.model {
            Some(m) => m.clone(),
            None => self.model(cancel)?,
        };
        let ctx = self.ctx(&model);
        loop {
            let q = self.quirks();
            let body = match self.http.cfg.wire {
                Wire::OpenAi => openai::body(req, &model, stream, &q),
                Wire::Anthropic => anthropic::body(req, &model, stream),
            };
            let bytes = serde_json::to_vec(&body).map_err(|e| ctx.bad_response(&e.to_string()))?;
            match self.http.send(
                match self.http.cfg.wire {
                    Wire::OpenAi => "/chat/completions",
                    Wire::Anthropic => "/v1/messages",
                },
                Method::Post(&bytes),
                stream,
                &self.headers(),
                cancel,
                &ctx,
            ) {
                Ok(reply) => return Ok((reply, ctx)),
                Err(e) if self.http.cfg.wire == Wire::OpenAi && self.adapt(req, &e, &q) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Whether a 400 names something this client can leave out. Servers word it variously;
    /// the parameter name in the message is the common ground.
    fn adapt(&self, req: &ChatRequest, e: &LlmError, q: &openai::Quirks) -> bool {
        if e.status != Some(400) && e.status != Some(422) {
            return false;
        }
        let text = e.message.to_lowercase();
        if matches!(req.tool_choice, ToolChoice::Force(_))
            && (text.contains("tool_choice") || text.contains("tool choice"))
            && let Some(weaker) = q.force.weaker()
        {
            self.force_mode.store(weaker as u8, Ordering::Relaxed);
            return true;
        }
        if req.options.temperature.is_some() && !q.drop_temperature && text.contains("temperature")
        {
            self.drop_temperature.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// One request, the whole answer at once.
    pub fn chat(&self, req: &ChatRequest, cancel: &CancelToken) -> Result<ChatResponse> {
        let (reply, ctx) = self.exchange(req, false, cancel)?;
        let v = read_json(reply, cancel, &ctx, self.http.cfg.timeout)?;
        let parsed = match self.http.cfg.wire {
            Wire::OpenAi => openai::parse(&v),
            Wire::Anthropic => anthropic::parse(&v),
        };
        parsed.map_err(|e| ctx.bad_response(&e))
    }

    /// One request whose answer arrives in pieces: `on_event` sees each piece as it comes;
    /// the assembled answer is returned at the end. Cancelling the token stops the transfer.
    pub fn chat_stream(
        &self,
        req: &ChatRequest,
        cancel: &CancelToken,
        on_event: &mut dyn FnMut(StreamEvent<'_>),
    ) -> Result<ChatResponse> {
        let (mut reply, ctx) = self.exchange(req, true, cancel)?;
        if !reply.is_event_stream() && reply.content_type.contains("json") {
            // A server that ignores `stream: true` sends the whole answer as JSON.
            let v = read_json(reply, cancel, &ctx, self.http.cfg.timeout)?;
            let r = match self.http.cfg.wire {
                Wire::OpenAi => openai::parse(&v),
                Wire::Anthropic => anthropic::parse(&v),
            }
            .map_err(|e| ctx.bad_response(&e))?;
            if !r.text.is_empty() {
                on_event(StreamEvent::Text(&r.text));
            }
            return Ok(r);
        }
        let bad = |m: String| {
            if m.starts_with("the server reported") {
                LlmError::new(
                    ErrorKind::Server,
                    format!("{} at {}: {m}", ctx.provider, ctx.base_url),
                )
            } else {
                ctx.bad_response(&m)
            }
        };
        let result = match self.http.cfg.wire {
            Wire::OpenAi => {
                let mut s = openai::Stream::default();
                let r = read_events(&mut reply.body, |ev| {
                    s.on_data(&ev.data, on_event).map_err(bad)?;
                    Ok(!s.done)
                });
                r.map(|_| s.finish())
            }
            Wire::Anthropic => {
                let mut s = anthropic::Stream::default();
                let r = read_events(&mut reply.body, |ev| {
                    s.on_event(&ev.name, &ev.data, on_event).map_err(bad)?;
                    Ok(!s.done)
                });
                r.map(|_| s.finish())
            }
        };
        match result {
            Ok(r) => Ok(r),
            Err(_) if cancel.is_cancelled() => Err(LlmError::cancelled()),
            Err(ReadError::Llm(e)) => Err(e),
            Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => {
                Err(ctx.timeout(self.http.cfg.timeout))
            }
            Err(ReadError::Io(e)) => Err(ctx.unreachable(&format!("the stream broke off: {e}"))),
        }
    }

    /// Structured output: the model must answer by calling `tool`, whose arguments are
    /// returned. Only that tool is offered and it is forced; a model that writes text instead
    /// is asked once more, then the call fails with `NoToolCall`. A JSON object in the text
    /// that has every required property counts too (servers that ignore tool choice).
    pub fn call_tool(
        &self,
        messages: Vec<Message>,
        tool: Tool,
        options: Options,
        cancel: &CancelToken,
    ) -> Result<Value> {
        let name = tool.name.clone();
        let required = required_keys(&tool.parameters);
        let mut req = ChatRequest {
            messages,
            tools: vec![tool],
            tool_choice: ToolChoice::Force(name.clone()),
            options,
        };
        for attempt in 0..2 {
            let resp = self.chat(&req, cancel)?;
            if let Some(args) = tool_arguments(&req.tools[0], &resp.tool_calls, &resp.text) {
                return Ok(args);
            }
            if attempt == 0 {
                req.messages.push(Message::assistant(resp.text.clone()));
                req.messages.push(Message::user(format!(
                    "Answer only by calling the `{name}` tool with its required arguments ({}). Do not write any text.",
                    required.join(", ")
                )));
            }
        }
        let model = match &req.options.model {
            Some(m) => m.clone(),
            None => self.model(cancel).unwrap_or_default(),
        };
        Err(self.ctx(&model).no_tool_call(&name))
    }
}

/// What the summary pipeline needs from a model: one answer through a forced tool call. The
/// configured provider ([`Client`]) and an editor's language models both give it.
pub trait ToolCaller: Sync {
    /// The arguments the model called `tool` with (see [`Client::call_tool`]).
    fn call_tool(
        &self,
        messages: Vec<Message>,
        tool: Tool,
        options: Options,
        cancel: &CancelToken,
    ) -> Result<Value>;

    /// How many requests may be under way at once.
    fn concurrency(&self) -> usize;
}

impl ToolCaller for Client {
    fn call_tool(
        &self,
        messages: Vec<Message>,
        tool: Tool,
        options: Options,
        cancel: &CancelToken,
    ) -> Result<Value> {
        Client::call_tool(self, messages, tool, options, cancel)
    }

    fn concurrency(&self) -> usize {
        self.config().concurrency
    }
}

/// The arguments of an answer that was asked to call `tool`: those of the call named `tool`
/// (else of the first call), else a JSON object in `text` (a model or server that ignores the
/// forced choice writes it there). `None` when neither holds every required property.
pub fn tool_arguments(tool: &Tool, calls: &[ToolCall], text: &str) -> Option<Value> {
    let required = required_keys(&tool.parameters);
    calls
        .iter()
        .find(|c| c.name == tool.name)
        .or_else(|| calls.first())
        .and_then(|c| as_object(&c.arguments, &required))
        .or_else(|| json_in_text(text, &required))
}

fn read_json(
    mut reply: Reply<'_>,
    cancel: &CancelToken,
    ctx: &ErrCtx,
    timeout: std::time::Duration,
) -> Result<Value> {
    let mut text = String::new();
    if let Err(e) = reply.body.read_to_string(&mut text) {
        if cancel.is_cancelled() {
            return Err(LlmError::cancelled());
        }
        return Err(match e.kind() {
            std::io::ErrorKind::TimedOut => ctx.timeout(timeout),
            std::io::ErrorKind::InvalidData => ctx.bad_response("the reply is not UTF-8"),
            _ => ctx.unreachable(&format!("the reply broke off: {e}")),
        });
    }
    serde_json::from_str(&text).map_err(|e| {
        let err = ErrorBody::parse(&text);
        ctx.bad_response(&format!(
            "malformed JSON: {e}; it begins `{}`",
            crate::error::one_line(&err.message, 80)
        ))
    })
}

fn required_keys(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// The arguments as an object holding every required key; a JSON string is unwrapped.
fn as_object(v: &Value, required: &[String]) -> Option<Value> {
    let v = match v {
        Value::String(s) => serde_json::from_str(s).ok()?,
        other => other.clone(),
    };
    let obj = v.as_object()?;
    required.iter().all(|k| obj.contains_key(k)).then_some(v)
}

/// The first `{...}` in `text` (possibly inside a code fence) that parses and has every
/// required key.
fn json_in_text(text: &str, required: &[String]) -> Option<Value> {
    if required.is_empty() {
        return None;
    }
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    if end <= start {
        return None;
    }
    let v: Value = serde_json::from_str(&text[start..=end]).ok()?;
    // `{"name": "...", "arguments": {...}}` is how some models write a call as text.
    let v = match v.get("arguments").or_else(|| v.get("parameters")) {
        Some(inner) if inner.is_object() => inner.clone(),
        _ => v,
    };
    as_object(&v, required)
}
