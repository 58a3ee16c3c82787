//! Which model answers an LLM skill, a playbook or a command skill run by this server
//! ([`EditorModels`]), and the SkillApi over the editor's language
//! models (`commandtree/languageModelRequest`, a request from the server to the client).
//!
//! The rule: when the client said in `initialize` that it answers language model requests and
//! nothing names a provider (no `llm.provider`, `llm.base_url` or `llm.api_key_env` in the
//! configuration, no `COMMANDTREE_LLM_PROVIDER`, `COMMANDTREE_LLM_BASE_URL` or
//! `COMMANDTREE_LLM_API_KEY`), the editor answers; otherwise the configured (or detected)
//! provider does. `provider = "none"` names a provider, so it still switches AI off.

use crate::error::*;
use crate::protocol::{
    LanguageModelAnswer, LanguageModelOptions, LanguageModelParams, LanguageModelRequest,
    LanguageModelTool, Request as _, ToolMode,
};
use crate::server::{ClientError, Shared};
use commandtree_core::{CancelToken, Workspace};
use commandtree_engine::Engine;
use commandtree_engine::summaries;
use commandtree_llm::provider::{HOW_TO_CONFIGURE, ProviderConfig};
use commandtree_llm::{ErrorKind, LlmError, Message, Options, Role, Tool, ToolCall, ToolCaller};
use commandtree_skills::{
    Error, LlmSkillApi, Models, RequestOptions, Result, SkillApi, SkillMessage, SkillResponse,
    SkillRole, TextSink,
};
use serde_json::Value;
use std::sync::Arc;

/// The server→client request.
pub const LANGUAGE_MODEL_REQUEST: &str = LanguageModelRequest::METHOD;

/// Said when neither the editor nor a provider can answer.
pub fn how_to_configure() -> String {
    format!(
        "{HOW_TO_CONFIGURE} In VS Code, the editor's language models (GitHub Copilot) answer when no provider is named."
    )
}

/// Who answers a skill's requests.
pub enum Source {
    Editor,
    Provider(Box<ProviderConfig>),
}

/// Whether the configuration (`llm.KEY`) or the environment names a provider.
pub fn names_provider(
    config: &dyn Fn(&str) -> Option<String>,
    env: &dyn Fn(&str) -> Option<String>,
) -> bool {
    ["provider", "base_url", "api_key_env"]
        .iter()
        .any(|k| config(k).is_some_and(|v| !v.trim().is_empty()))
        || [
            "COMMANDTREE_LLM_PROVIDER",
            "COMMANDTREE_LLM_BASE_URL",
            "COMMANDTREE_LLM_API_KEY",
        ]
        .iter()
        .any(|k| env(k).is_some())
}

/// The source for `ws` under the rule above.
pub fn source(shared: &Shared, ws: &Workspace) -> RpcResult<Source> {
    let config = |k: &str| {
        ws.settings
            .config
            .get("llm")
            .and_then(|t| t.as_table())
            .and_then(|t| t.get(k))
            .and_then(|v| v.as_str())
            .map(String::from)
    };
    if shared.language_models && !names_provider(&config, &commandtree_llm::provider::process_env) {
        return Ok(Source::Editor);
    }
    Ok(Source::Provider(Box::new(summaries::provider(ws)?)))
}

/// The params of `commandtree/languageModelRequest`: the messages with the SkillApi's roles
/// (`agent`, `assistant`, `user`: the editor maps them to what its API has) and the options
/// an editor can honour (tools are not sent yet).
pub fn request_params(messages: &[SkillMessage], options: &RequestOptions) -> LanguageModelParams {
    LanguageModelParams {
        messages: messages.to_vec(),
        options: LanguageModelOptions {
            model: options.model.clone(),
            model_options: options.model_options.clone(),
            justification: options.justification.clone(),
            ..LanguageModelOptions::default()
        },
    }
}

/// The editor's answer, or what is wrong with it.
fn read_answer(v: Value) -> std::result::Result<LanguageModelAnswer, String> {
    serde_json::from_value(v)
        .map_err(|e| format!("the editor's answer to {LANGUAGE_MODEL_REQUEST} is malformed: {e}"))
}

/// The SkillApi over the client's language models.
pub struct EditorSkillApi {
    shared: Arc<Shared>,
    cancel: CancelToken,
    context: Vec<SkillMessage>,
}

impl EditorSkillApi {
    pub fn new(shared: Arc<Shared>, cancel: CancelToken, context: Vec<SkillMessage>) -> Self {
        EditorSkillApi {
            shared,
            cancel,
            context,
        }
    }
}

impl SkillApi for EditorSkillApi {
    fn active_context(&self) -> Result<Vec<SkillMessage>> {
        Ok(self.context.clone())
    }

    fn send_request(
        &self,
        messages: Vec<SkillMessage>,
        options: &RequestOptions,
    ) -> Result<SkillResponse> {
        options.validate()?;
        let params = request_params(&messages, options);
        match self
            .shared
            .request_client::<LanguageModelRequest>(&params, &self.cancel)
        {
            Ok(v) => {
                let answer = read_answer(v).map_err(Error::Failed)?;
                Ok(SkillResponse {
                    response: answer.text,
                    model: answer.model,
                })
            }
            Err(ClientError::Cancelled) => Err(Error::Cancelled),
            Err(ClientError::Failed(_, m)) => Err(Error::Failed(m)),
        }
    }
}

/// The params of a `commandtree/languageModelRequest` that must be answered through `tool`:
/// the messages with the SkillApi's roles (instructions go as `agent`), the tool with its
/// JSON Schema as `inputSchema`, and `toolMode: "required"`.
pub fn tool_request_params(messages: &[Message], tool: &Tool) -> LanguageModelParams {
    let messages = messages
        .iter()
        .map(|m| {
            let role = match m.role {
                Role::System => SkillRole::Agent,
                Role::Assistant => SkillRole::Assistant,
                // The summary pipeline sends no tool results; were one sent, the editor's API
                // has no role for it outside a tool conversation, so it reads as user text.
                Role::User | Role::Tool => SkillRole::User,
            };
            SkillMessage::new(role, m.content.clone())
        })
        .collect();
    LanguageModelParams {
        messages,
        options: LanguageModelOptions {
            tools: Some(vec![LanguageModelTool {
                name: tool.name.clone(),
                description: tool.description.clone(),
                input_schema: tool.parameters.clone(),
            }]),
            tool_mode: Some(ToolMode::Required),
            ..LanguageModelOptions::default()
        },
    }
}

/// The arguments in the editor's answer `{text, model, toolCalls?: [{name, input}]}` to a
/// request made with [`tool_request_params`].
pub fn tool_answer(v: Value, tool: &Tool) -> std::result::Result<Value, LlmError> {
    let answer = read_answer(v).map_err(|m| LlmError::new(ErrorKind::BadResponse, m))?;
    let calls: Vec<ToolCall> = answer
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .map(|c| ToolCall {
            id: String::new(),
            name: c.name,
            arguments: c.input,
        })
        .collect();
    if let Some(args) = commandtree_llm::tool_arguments(tool, &calls, &answer.text) {
        return Ok(args);
    }
    let model = answer.model;
    Err(LlmError::new(
        ErrorKind::NoToolCall,
        format!(
            "the editor's model `{model}` answered without calling the `{}` tool; choose another model in the editor or configure a provider for ct",
            tool.name
        ),
    ))
}

/// The summary pipeline's model when the editor answers: one request at a time, since the
/// editor may ask the user before the first and its models are rate-limited per user.
pub struct EditorToolCaller {
    shared: Arc<Shared>,
}

impl EditorToolCaller {
    pub fn new(shared: Arc<Shared>) -> Self {
        EditorToolCaller { shared }
    }
}

impl ToolCaller for EditorToolCaller {
    fn call_tool(
        &self,
        messages: Vec<Message>,
        tool: Tool,
        // Sampling options are provider parameters; the editor's models take their own.
        _options: Options,
        cancel: &CancelToken,
    ) -> std::result::Result<Value, LlmError> {
        let params = tool_request_params(&messages, &tool);
        match self
            .shared
            .request_client::<LanguageModelRequest>(&params, cancel)
        {
            Ok(v) => tool_answer(v, &tool),
            Err(ClientError::Cancelled) => Err(LlmError::cancelled()),
            Err(ClientError::Failed(_, m)) => Err(LlmError::new(ErrorKind::Server, m)),
        }
    }

    fn concurrency(&self) -> usize {
        1
    }
}

/// The models of skills run by this server, under the rule above: the editor's, or the
/// configured (or detected) provider's. A session opens them only for work that asks a model,
/// so `file` and `run` need neither.
pub struct EditorModels<'a> {
    shared: &'a Arc<Shared>,
}

impl<'a> EditorModels<'a> {
    pub fn new(shared: &'a Arc<Shared>) -> Self {
        EditorModels { shared }
    }
}

impl Models for EditorModels<'_> {
    fn open(
        &self,
        engine: &Engine,
        cancel: &CancelToken,
        context: Vec<SkillMessage>,
        // The editor's answer comes whole; a provider's is not shown before it is complete.
        _on_text: Option<TextSink>,
    ) -> Result<Box<dyn SkillApi + '_>> {
        match source(self.shared, engine.workspace()) {
            Ok(Source::Editor) => Ok(Box::new(EditorSkillApi::new(
                self.shared.clone(),
                cancel.clone(),
                context,
            ))),
            Ok(Source::Provider(c)) => Ok(Box::new(
                LlmSkillApi::new(commandtree_llm::Client::new(*c), cancel.clone())
                    .with_context(context),
            )),
            Err(e) => Err(Error::failed(e.message)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commandtree_skills::context::ContextType;
    use commandtree_skills::{Session, SkillRole};
    use serde_json::json;

    #[test]
    fn stored_context_reaches_the_editor_as_one_user_message_in_order() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-lsp-roles-")
            .tempdir()
            .unwrap();
        let dir = scratch.path();
        let engine = Engine::open(Some(dir), dir).unwrap();
        let conversation = Session::new(&engine).conversation(None);
        for (t, text) in [
            (ContextType::Agent, "be brief"),
            (ContextType::User, "hi"),
            (ContextType::Assistant, "hello"),
        ] {
            conversation.add(t, text).unwrap();
        }
        let mut messages = conversation.to_send().unwrap();
        messages.push(SkillMessage::new(SkillRole::User, "go"));
        let mut options = RequestOptions {
            model: Some("gpt-4o".into()),
            justification: Some("a playbook step".into()),
            ..Default::default()
        };
        options
            .model_options
            .insert("temperature".into(), json!(0.2));
        let p = serde_json::to_value(request_params(&messages, &options)).unwrap();
        // Stored context is workspace data: one user message holding every row, in order.
        let sent = p["messages"].as_array().unwrap();
        assert_eq!(sent.len(), 2, "{sent:?}");
        assert_eq!(sent[0]["role"], "user");
        let data = sent[0]["content"].as_str().unwrap();
        let at = |needle: &str| {
            data.find(needle)
                .unwrap_or_else(|| panic!("{needle}: {data}"))
        };
        assert!(at("type=\"agent\"") < at("be brief"));
        assert!(at("be brief") < at("type=\"user\""));
        assert!(at("type=\"user\"") < at("hi\n</"));
        assert!(at("type=\"assistant\"") < at("hello"));
        assert_eq!(sent[1], json!({"role": "user", "content": "go"}));
        assert_eq!(
            p["options"],
            json!({"model": "gpt-4o", "modelOptions": {"temperature": 0.2}, "justification": "a playbook step"})
        );
        assert_eq!(
            serde_json::to_value(request_params(&[], &RequestOptions::default())).unwrap()["options"],
            json!({})
        );
    }

    #[test]
    fn a_summary_request_carries_the_tool_required_and_reads_a_call_or_json_text() {
        let tool = commandtree_llm::summary::tool();
        let p = serde_json::to_value(tool_request_params(
            &[Message::system("explain"), Message::user("make clean")],
            &tool,
        ))
        .unwrap();
        assert_eq!(
            p["messages"],
            json!([
                {"role": "agent", "content": "explain"},
                {"role": "user", "content": "make clean"},
            ])
        );
        assert_eq!(p["options"]["toolMode"], "required");
        assert_eq!(p["options"]["tools"][0]["name"], "report_command_analysis");
        assert_eq!(p["options"]["tools"][0]["inputSchema"], tool.parameters);

        let args = json!({"summary": "Cleans.", "securityWarning": ""});
        let called = json!({"text": "", "model": "m", "toolCalls": [{"name": "report_command_analysis", "input": args}]});
        assert_eq!(tool_answer(called.clone(), &tool).unwrap(), args);
        // A call under another name still counts when it holds the required properties.
        let renamed =
            json!({"text": "", "model": "m", "toolCalls": [{"name": "x", "input": args}]});
        assert_eq!(tool_answer(renamed.clone(), &tool).unwrap(), args);
        let in_text = json!({"text": format!("```json\n{args}\n```"), "model": "m"});
        assert_eq!(tool_answer(in_text.clone(), &tool).unwrap(), args);

        let prose = json!({"text": "It cleans the build.", "model": "copilot-x"});
        let e = tool_answer(prose.clone(), &tool).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NoToolCall);
        assert!(e.message.contains("copilot-x"), "{e}");
        let incomplete = json!({"text": "", "model": "m", "toolCalls": [{"name": "report_command_analysis", "input": {"summary": "x"}}]});
        assert_eq!(
            tool_answer(incomplete.clone(), &tool).unwrap_err().kind,
            ErrorKind::NoToolCall
        );
        let bad = json!({"text": "", "toolCalls": {"name": "report_command_analysis"}});
        assert_eq!(
            tool_answer(bad.clone(), &tool).unwrap_err().kind,
            ErrorKind::BadResponse
        );
    }

    #[test]
    fn a_named_provider_or_its_variables_keep_the_editor_out() {
        let none = |_: &str| None;
        assert!(!names_provider(&none, &none));
        let blank = |_: &str| Some("  ".to_string());
        assert!(!names_provider(&blank, &none));
        for key in ["provider", "base_url", "api_key_env"] {
            let cfg = move |k: &str| (k == key).then(|| "x".to_string());
            assert!(names_provider(&cfg, &none), "{key}");
        }
        for var in [
            "COMMANDTREE_LLM_PROVIDER",
            "COMMANDTREE_LLM_BASE_URL",
            "COMMANDTREE_LLM_API_KEY",
        ] {
            let env = move |k: &str| (k == var).then(|| "x".to_string());
            assert!(names_provider(&none, &env), "{var}");
        }
        // A key the environment merely has is found by detection, not named.
        let env = |k: &str| (k == "OPENAI_API_KEY").then(|| "sk".to_string());
        assert!(!names_provider(&none, &env));
    }
}
