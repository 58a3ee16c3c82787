//! LLM skills, playbooks, command skills and the context store, behind one [`Session`] that
//! every front end (the command line, the terminal UI, the editor server) goes through.
//!
//! Words (one meaning each; the file formats, CLI subcommands and protocol methods keep their
//! names):
//! - an **LLM skill** ([`LlmSkill`]) is a built-in action invoked as `@name --flag value`
//!   (`task`, `file`, `run`, `search`), alone (`ct task`, `ct skill run`, `commandtree/runSkill`)
//!   or as a playbook step; what it does with the model is its [`ModelUse`];
//! - a **playbook** (`.commandtree/playbooks/*.playbook.md`) runs LLM skill invocations step by
//!   step, passing replies on;
//! - a **command skill** ([`command_skill::CommandSkill`], `.commandtree/skills/*.md`) is
//!   instructions the model applies to one command's file, written after the user saw the diff;
//! - a **skill definition** (`*.skill.md`, or an **Agent Skill**: a `SKILL.md` folder of the
//!   Agent Skills format) is knowledge an agent loads on demand; those are `commandtree-agents`'
//!   and are not here.
//!
//! Layers: [`invocation`] turns `@name --flag value` into words, [`params`] binds the words to a
//! skill's typed parameters (and exports them as JSON Schema), [`api`] is the [`SkillApi`] the
//! skills send through (context messages, role mapping, request options) with the real
//! implementation over `commandtree-llm`, [`models`] says who answers, [`builtin`] holds the
//! LLM skills, [`playbook`] parses and checks playbooks, [`command_skill`] finds command skills
//! and makes their diffs, [`context`] is the context store, and [`session`] runs all of it with
//! the trust checks. Every slow call takes the engine's
//! [`CancelToken`](commandtree_engine::CancelToken).
//!
//! This crate sits above `commandtree-engine` (the `run` and `search` skills are engine
//! workflows, and the engine knows nothing of models' conversations), so the engine stays free
//! of it and no edge points back.

pub mod api;
pub mod builtin;
pub mod command_skill;
pub mod context;
mod error;
pub mod invocation;
pub mod models;
pub mod params;
pub mod playbook;
pub mod session;
mod skill;
mod trust;

pub use api::{
    LlmSkillApi, RequestOptions, SkillApi, SkillMessage, SkillResponse, SkillRole, ToolMode,
    ToolSpec,
};
pub use error::{Error, NoModel, Result};
pub use models::{Models, ProviderModels, TextSink};
pub use params::{ParamKind, ParamSpec, Params};
pub use session::{PlaybookError, Proposer, ReadyPlaybook, Reply, Session};
pub use skill::{Host, LlmSkill, ModelUse, Registry};
