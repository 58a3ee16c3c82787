//! The skill model and the registry of built-in skills.

use crate::invocation::Invocation;
use crate::params::{self, ParamSpec, Params};
use crate::{Error, Result, SkillApi};
use commandtree_engine::{CancelToken, Engine};
use std::path::Path;

/// A named action with typed parameters that returns a string.
pub trait Skill: Send + Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn params(&self) -> &'static [ParamSpec];
    /// Runs with parameters already bound and checked against [`Skill::params`].
    fn execute(&self, api: &dyn SkillApi, host: &Host<'_>, params: &Params) -> Result<String>;

    /// The parameters as JSON Schema.
    fn schema(&self) -> serde_json::Value {
        params::schema(self.name(), self.description(), self.params())
    }
}

/// What a skill may use besides the LLM: the workspace (through the engine), the cancellation
/// of the whole operation, and the user's answer to a confirmation.
pub struct Host<'a> {
    pub engine: &'a Engine,
    pub cancel: CancelToken,
    /// Confirmations are answered yes without asking (`--yes`).
    pub yes: bool,
    /// Asks the user a yes/no question; `None` when nobody can be asked (no terminal), and then
    /// anything needing a confirmation is refused.
    pub ask: Option<&'a (dyn Fn(&str) -> bool + Sync)>,
}

impl Host<'_> {
    pub fn root(&self) -> &Path {
        self.engine.root()
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

/// The skills an invocation can name.
pub struct Registry {
    skills: Vec<Box<dyn Skill>>,
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

    pub fn skills(&self) -> impl Iterator<Item = &dyn Skill> {
        self.skills.iter().map(|s| s.as_ref())
    }

    pub fn get(&self, name: &str) -> Result<&dyn Skill> {
        self.skills().find(|s| s.name() == name).ok_or_else(|| {
            let known: Vec<&str> = self.skills().map(|s| s.name()).collect();
            Error::invalid(format!(
                "no skill `@{name}` (built-in skills: {})",
                known.join(", ")
            ))
        })
    }

    /// Binds and runs an invocation.
    pub fn invoke(&self, inv: &Invocation, api: &dyn SkillApi, host: &Host<'_>) -> Result<String> {
        let skill = self.get(&inv.skill)?;
        let bound = params::bind(skill.name(), skill.params(), &inv.args)?;
        if host.cancel.is_cancelled() {
            return Err(Error::Cancelled);
        }
        skill.execute(api, host, &bound)
    }
}
