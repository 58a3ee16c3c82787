//! The LLM skill model and the registry of built-in LLM skills.

use crate::invocation::Invocation;
use crate::params::{self, ParamSpec, Params};
use crate::{Error, Result, SkillApi};
use commandtree_engine::{CancelToken, Engine, Live, LoadOptions, Loaded};
use std::path::Path;

/// What an LLM skill does with the model. The [`Session`](crate::Session) reads it to decide,
/// for each invocation and each playbook step, whether a model must answer (a provider or the
/// editor's models), whether the conversation's stored context is read and sent, and whether
/// the reply reaches the front end as it streams in: a skill says it once, here, and no front
/// end decides it by the skill's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModelUse {
    /// The skill sends requests to the model: one must be configured before it runs.
    pub asks_model: bool,
    /// The conversation's stored context goes in front of the skill's own messages.
    pub takes_context: bool,
    /// The reply is the model's text, shown as it streams in where the front end can.
    pub streams_reply: bool,
}

impl ModelUse {
    /// Never talks to the model (`file`, `run`, `search`).
    pub const NONE: ModelUse = ModelUse {
        asks_model: false,
        takes_context: false,
        streams_reply: false,
    };
    /// A turn of the conversation (`task`): the stored context, then the skill's message; the
    /// model's reply is the skill's reply.
    pub const CONVERSATION: ModelUse = ModelUse {
        asks_model: true,
        takes_context: true,
        streams_reply: true,
    };
}

/// An LLM skill: a built-in named action with typed parameters, invoked as `@name --flag value`
/// (alone or as a playbook step), that returns a string. Not a command skill
/// ([`crate::command_skill`]) and not a skill definition (the knowledge `commandtree-agents`
/// reads from `*.skill.md` and Agent Skills folders).
pub trait LlmSkill: Send + Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn params(&self) -> &'static [ParamSpec];
    /// Runs with parameters already bound and checked against [`LlmSkill::params`].
    fn execute(&self, api: &dyn SkillApi, host: &Host<'_>, params: &Params) -> Result<String>;

    /// What the skill does with the model; nothing unless it says otherwise.
    fn model_use(&self) -> ModelUse {
        ModelUse::NONE
    }

    /// The parameters as JSON Schema.
    fn schema(&self) -> serde_json::Value {
        params::schema(self.name(), self.description(), self.params())
    }
}

/// What an LLM skill may use besides the model: the workspace (through the engine), the
/// cancellation of the whole operation, and the user's answer to a confirmation.
pub struct Host<'a> {
    pub engine: &'a Engine,
    pub cancel: CancelToken,
    /// Confirmations are answered yes without asking (`--yes`).
    pub yes: bool,
    /// Asks the user a yes/no question; `None` when nobody can be asked (no terminal), and then
    /// anything needing a confirmation is refused.
    pub ask: Option<&'a (dyn Fn(&str) -> bool + Sync)>,
    /// A server's live index: commands are read from it instead of walking the workspace.
    pub live: Option<&'a Live>,
}

impl Host<'_> {
    pub fn root(&self) -> &Path {
        self.engine.root()
    }

    /// The workspace's commands with their database: from the live index when there is one.
    pub fn load(&self) -> commandtree_engine::Result<Loaded> {
        match self.live {
            Some(live) => live.load(&LoadOptions::default(), &self.cancel),
            None => self.engine.load(&LoadOptions::default()),
        }
    }

    /// `Ok` when the user agreed (or `--yes`), else [`Error::Declined`] naming `what`.
    pub fn confirm(&self, question: &str) -> Result<()> {
        if self.yes {
            return Ok(());
        }
        match self.ask {
            Some(ask) if ask(question) => Ok(()),
            Some(_) => Err(Error::Declined(question.to_string())),
            None => Err(Error::Declined(format!(
                "{question} (nobody to confirm; pass --yes)"
            ))),
        }
    }
}

/// The LLM skills an invocation can name.
pub struct Registry {
    skills: Vec<Box<dyn LlmSkill>>,
}

impl Default for Registry {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Registry {
    /// `task`, `file`, `run`, `search`.
    pub fn builtin() -> Registry {
        Registry {
            skills: crate::builtin::all(),
        }
    }

    pub fn skills(&self) -> impl Iterator<Item = &dyn LlmSkill> {
        self.skills.iter().map(|s| s.as_ref())
    }

    pub fn get(&self, name: &str) -> Result<&dyn LlmSkill> {
        self.skills().find(|s| s.name() == name).ok_or_else(|| {
            let known: Vec<&str> = self.skills().map(|s| s.name()).collect();
            Error::invalid(format!(
                "no skill `@{name}` (built-in skills: {})",
                known.join(", ")
            ))
        })
    }

    /// The skill `inv` names, with its words bound to the skill's parameters: an unknown skill,
    /// an unknown flag or a missing value is an error here, before anything is sent or asked.
    pub fn check(&self, inv: &Invocation) -> Result<(&dyn LlmSkill, Params)> {
        let skill = self.get(&inv.skill)?;
        let bound = params::bind(skill.name(), skill.params(), &inv.args)?;
        Ok((skill, bound))
    }

    /// Binds and runs an invocation.
    pub fn invoke(&self, inv: &Invocation, api: &dyn SkillApi, host: &Host<'_>) -> Result<String> {
        let (skill, bound) = self.check(inv)?;
        if host.cancel.is_cancelled() {
            return Err(Error::Cancelled);
        }
        skill.execute(api, host, &bound)
    }
}
