//! AI definitions written once and shared with every agent: prompt commands (`*.command.md`),
//! agents (`*.agent.md`), skill definitions (`*.skill.md`: knowledge an agent loads on demand)
//! and instructions (`*.instructions.md`), plus the files users already have for Claude Code,
//! GitHub Copilot and the Agent Skills format (a `SKILL.md` folder is one more skill
//! definition). Not the LLM skills and command skills of `commandtree-skills`.
//!
//! Parsing is pure (`parse::parse(rel_path, text)`); the service (`Definitions`) combines the
//! built-in definitions compiled into the binary with a repository's files, and renders what each
//! consumer needs: a command's prompt, an agent's system prompt, the Agent SDK `Options`, and
//! native files for Claude Code and Copilot (`export`). Nothing here runs a program.

pub mod builtin;
pub mod export;
pub mod frontmatter;
pub mod model;
pub mod parse;
pub mod render;
pub mod sdk;
pub mod service;
pub mod skillspec;

pub use model::{
    AgentDef, CommandDef, Definition, Format, InstructionsDef, Kind, Origin, SkillDef, SkillMeta,
    Warning,
};
pub use parse::{Parsed, parse, route};
pub use service::{ComposedInstructions, Definitions};

/// The tree types of the four kinds, in category order.
pub const KINDS: [Kind; 4] = [Kind::Prompt, Kind::Agent, Kind::Skill, Kind::Instructions];

/// Whether a `CommandItem` type string names one of these definitions.
pub fn is_definition_type(kind: &str) -> bool {
    KINDS.iter().any(|k| k.as_str() == kind)
}
