//! LLM skills: named actions with typed parameters that talk to the user's LLM (`task`), touch
//! workspace files (`file`), run CommandTree commands (`run`) or search them (`search`);
//! playbooks that chain skill invocations step by step; and command skills, markdown
//! instructions in `.commandtree/skills/` that rewrite a command's file after a confirmed diff.
//!
//! These are not the knowledge-only `.skill.md` definitions (another crate): an LLM skill
//! *does* something and returns a string.
//!
//! Layers: [`invocation`] turns `@name --flag value` into words, [`params`] binds the words to a
//! skill's typed parameters (and exports them as JSON Schema), [`api`] is the [`SkillApi`] the
//! skills send through (context messages, role mapping, request options) with the real
//! implementation over `commandtree-llm`, [`builtin`] holds the skills, [`playbook`] runs
//! playbooks and [`command_skill`] applies command skills. Every slow call takes the engine's
//! [`CancelToken`](commandtree_engine::CancelToken).

pub mod api;
pub mod builtin;
pub mod command_skill;
mod error;
pub mod invocation;
pub mod params;
pub mod playbook;
mod skill;
pub mod trust;

pub use api::{
    LlmSkillApi, RequestOptions, SkillApi, SkillMessage, SkillResponse, SkillRole, ToolMode,
    ToolSpec,
};
pub use error::{Error, Result};
pub use params::{ParamKind, ParamSpec, Params};
pub use skill::{Host, Registry, Skill};
