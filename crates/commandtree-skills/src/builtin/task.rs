//! `@task --prompt "Summarize this text" --model "gpt-4o" --modelOptions '{"temperature":0.7}'`:
//! sends the prompt as `user`, after the active context, and returns the reply.

use crate::params::{self, ParamKind, ParamSpec, Params};
use crate::{Host, LlmSkill, ModelUse, RequestOptions, Result, SkillApi, SkillMessage};

pub struct Task;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "prompt",
        ParamKind::String,
        true,
        "What to ask the model (sent as the user).",
    ),
    ParamSpec::new(
        "model",
        ParamKind::String,
        false,
        "The model to ask (default: the configured one).",
    ),
    ParamSpec::new(
        "modelOptions",
        ParamKind::Object,
        false,
        "Copied into the provider's request body: temperature, max_tokens, top_p, stop, seed...",
    ),
    ParamSpec::new(
        "justification",
        ParamKind::String,
        false,
        "Why the request is made (shown where the user is asked for consent).",
    ),
    ParamSpec::new(
        "tools",
        ParamKind::Array,
        false,
        "Tools the model may call: [{name, description, inputSchema}] (validated; calling them is not supported yet).",
    ),
    ParamSpec::new(
        "toolMode",
        ParamKind::Enum(&["auto", "required"]),
        false,
        "Whether the model must call a tool.",
    ),
];

impl LlmSkill for Task {
    fn name(&self) -> &'static str {
        "task"
    }
    fn description(&self) -> &'static str {
        "Send a prompt to the LLM and return the response. The active context messages go first (agent, assistant and user turns, in order), then the prompt as the user."
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn model_use(&self) -> ModelUse {
        ModelUse::CONVERSATION
    }
    fn execute(&self, api: &dyn SkillApi, _host: &Host<'_>, p: &Params) -> Result<String> {
        let prompt = params::string(p, "prompt")
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| params::missing("prompt"))?;
        let options = RequestOptions::from_params(p)?;
        let mut messages = api.active_context()?;
        messages.push(SkillMessage::user(prompt));
        Ok(api.send_request(messages, &options)?.response)
    }
}
