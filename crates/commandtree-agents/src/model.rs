//! The four kinds of definition, as the service hands them out (camelCase JSON).

use serde::Serialize;
use serde_json::{Map, Value};

/// Which kind of definition; its string is the tree type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Prompt,
    Agent,
    Skill,
    Instructions,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Prompt => "prompt",
            Kind::Agent => "agent",
            Kind::Skill => "skill",
            Kind::Instructions => "instructions",
        }
    }
    /// Category label in the tree.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Prompt => "AI Prompts",
            Kind::Agent => "AI Agents",
            Kind::Skill => "AI Skills",
            Kind::Instructions => "AI Instructions",
        }
    }
    /// How messages name it: "prompt command", "agent", ...
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Prompt => "command",
            Kind::Agent => "agent",
            Kind::Skill => "skill",
            Kind::Instructions => "instructions",
        }
    }
}

/// Compiled into the binary, or read from the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Builtin,
    Repo,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Builtin => "builtin",
            Origin::Repo => "repo",
        }
    }

    pub fn is_builtin(self) -> bool {
        self == Origin::Builtin
    }
}

/// The file format a definition was read from. Its rank decides which of two definitions with
/// the same id wins: CommandTree's own folders over other tools' files, `.commandtree/` over
/// `.github/`, anything in the repository over a built-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Compiled into the binary.
    Builtin,
    /// `.commandtree/{commands,agents,skills,instructions}/`.
    Commandtree,
    /// `.github/{commands,agents,skills,instructions}/` in our formats (`*.command.md`, ...),
    /// which for agents and instructions are also Copilot's.
    Github,
    /// `.claude/commands/**/*.md`, `.claude/agents/**/*.md`.
    ClaudeCode,
    /// `.github/prompts/*.prompt.md`, `.github/copilot-instructions.md`.
    Copilot,
    /// `<dir>/SKILL.md` under `.github/skills/` or `.claude/skills/`.
    AgentSkills,
    /// `AGENTS.md`, `CLAUDE.md`.
    AgentsMd,
}

impl Format {
    pub fn rank(self) -> u8 {
        match self {
            Format::Builtin => 0,
            Format::ClaudeCode | Format::Copilot | Format::AgentSkills | Format::AgentsMd => 1,
            Format::Github => 2,
            Format::Commandtree => 3,
        }
    }
}

/// Fields every definition has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    /// From the file name (or, where the format says so, its `name` field or folder).
    pub id: String,
    pub name: String,
    pub description: String,
    pub source: Origin,
    pub format: Format,
    /// Path relative to the workspace root, `/`-separated; `builtin:<path>` for built-ins.
    pub file: String,
    /// Line where the definition starts (1).
    pub line: u32,
    /// Front matter fields this reader does not use, kept as they were.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

/// A prompt command (`*.command.md`): its content is injected as the prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandDef {
    #[serde(flatten)]
    pub meta: Meta,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    /// Agents that may use it; empty = all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
    pub content: String,
}

/// An agent (`*.agent.md`): the body is its system prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDef {
    #[serde(flatten)]
    pub meta: Meta,
    pub prompt: String,
    /// Allowed tools; `None` = inherit every tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disallowed_tools: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub use_skills: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub has_architecture_access: bool,
}

/// A skill definition with its content (`*.skill.md`, an Agent Skill's `SKILL.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillDef {
    #[serde(flatten)]
    pub meta: Meta,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    pub content: String,
}

/// What `skills()` hands out: everything but the content, which is loaded on demand.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillMeta {
    #[serde(flatten)]
    pub meta: Meta,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
}

/// Instructions (`*.instructions.md`, `copilot-instructions.md`, `AGENTS.md`, `CLAUDE.md`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionsDef {
    #[serde(flatten)]
    pub meta: Meta,
    /// Globs of the files they apply to (`applyTo`, `paths`); empty = always.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub apply_to: Vec<String>,
    /// Only for this agent (`.github/agents/{agent}/*.instructions.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub content: String,
}

/// One parsed definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Definition {
    Prompt(CommandDef),
    Agent(AgentDef),
    Skill(SkillDef),
    Instructions(InstructionsDef),
}

impl Definition {
    pub fn meta(&self) -> &Meta {
        match self {
            Definition::Prompt(d) => &d.meta,
            Definition::Agent(d) => &d.meta,
            Definition::Skill(d) => &d.meta,
            Definition::Instructions(d) => &d.meta,
        }
    }
    pub fn kind(&self) -> Kind {
        match self {
            Definition::Prompt(_) => Kind::Prompt,
            Definition::Agent(_) => Kind::Agent,
            Definition::Skill(_) => Kind::Skill,
            Definition::Instructions(_) => Kind::Instructions,
        }
    }
}

/// A problem with a file: `file` as in `Meta::file`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
}

impl Warning {
    pub fn new(file: &str, line: Option<u32>, message: impl Into<String>) -> Self {
        Warning {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}
