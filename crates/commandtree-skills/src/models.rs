//! Who answers a session's model requests. The [`Session`](crate::Session) opens a model only
//! for work that asks one (an LLM skill whose [`ModelUse`](crate::ModelUse) says so, a playbook
//! with such a step, a command skill); a front end chooses where the answers come from by the
//! [`Models`] it hands the session: the configured provider ([`ProviderModels`], the command
//! line and the terminal UI), the editor's language models (the editor server), or a test's.

use crate::api::{LlmSkillApi, RequestOptions, SkillApi, SkillMessage, SkillResponse};
use crate::{Error, NoModel, Result};
use commandtree_engine::{CancelToken, Engine, summaries};
use commandtree_llm::ProviderConfig;
use commandtree_llm::provider::{Detection, HOW_TO_CONFIGURE};
use std::sync::Arc;

/// Sees each piece of a reply's text as it streams in.
pub type TextSink = Arc<dyn Fn(&str) + Send + Sync>;

/// A source of models for a session.
pub trait Models {
    /// The [`SkillApi`] for one operation: it sends `context` in front of a skill's own
    /// messages, stops when `cancel` is cancelled, and hands streamed text to `on_text` (a
    /// source that does not stream may ignore it). Fails with [`Error::NoModel`] (or another
    /// error saying why) when no model can answer; nothing is sent then.
    fn open(
        &self,
        engine: &Engine,
        cancel: &CancelToken,
        context: Vec<SkillMessage>,
        on_text: Option<TextSink>,
    ) -> Result<Box<dyn SkillApi + '_>>;
}

/// The user's LLM provider: the one the workspace's settings and the environment name or
/// offer (`commandtree_engine::summaries::detect`, as summaries use), or one given outright.
pub enum ProviderModels {
    Detect,
    Given(Box<ProviderConfig>),
}

impl ProviderModels {
    /// The provider found for the session's workspace when a model is first needed.
    pub fn detect() -> ProviderModels {
        ProviderModels::Detect
    }

    /// Always `config`.
    pub fn given(config: ProviderConfig) -> ProviderModels {
        ProviderModels::Given(Box::new(config))
    }

    fn config(&self, engine: &Engine) -> Result<ProviderConfig> {
        match self {
            ProviderModels::Given(c) => Ok((**c).clone()),
            ProviderModels::Detect => match summaries::detect(engine.workspace())? {
                Detection::Found(c) => Ok(*c),
                Detection::Disabled(by) => Err(Error::NoModel(NoModel::SwitchedOff(by))),
                Detection::NotFound => Err(Error::NoModel(NoModel::NotConfigured(
                    HOW_TO_CONFIGURE.to_string(),
                ))),
            },
        }
    }
}

impl Models for ProviderModels {
    fn open(
        &self,
        engine: &Engine,
        cancel: &CancelToken,
        context: Vec<SkillMessage>,
        on_text: Option<TextSink>,
    ) -> Result<Box<dyn SkillApi + '_>> {
        let client = commandtree_llm::Client::new(self.config(engine)?);
        let api = LlmSkillApi::new(client, cancel.clone()).with_context(context);
        Ok(Box::new(match on_text {
            Some(sink) => api.on_text(move |t| sink(t)),
            None => api,
        }))
    }
}

/// The API of work in which no skill asks the model: nothing is configured for it and nothing
/// can be sent through it.
pub(crate) struct Offline;

impl SkillApi for Offline {
    fn active_context(&self) -> Result<Vec<SkillMessage>> {
        Ok(Vec::new())
    }
    fn send_request(&self, _: Vec<SkillMessage>, _: &RequestOptions) -> Result<SkillResponse> {
        Err(Error::failed("this skill does not talk to the LLM"))
    }
}
