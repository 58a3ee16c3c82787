//! The command types as an enum, with the type strings of the JSON contract as their string
//! form. `CommandItem::kind` stays a string (the contract, and types the enum does not know yet
//! still round-trip); code that decides by type matches on this enum instead of comparing
//! string literals.

/// A command's type, as `CommandItem::kind` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandType {
    Shell,
    Npm,
    Make,
    Launch,
    Vscode,
    Python,
    /// Ruby scripts (`#!/usr/bin/env ruby`).
    Ruby,
    Powershell,
    Gradle,
    Cargo,
    /// Go modules (`go.mod`).
    Go,
    Maven,
    Ant,
    Just,
    Taskfile,
    Deno,
    Rake,
    Composer,
    Docker,
    Dotnet,
    Markdown,
    CsharpScript,
    FsharpScript,
    Mise,
    Pyproject,
    Procfile,
    /// tox environments (`tox.ini`, `tox.toml`).
    Tox,
    /// nox sessions (`noxfile.py`).
    Nox,
    Workflow,
    Turbo,
    Nx,
    /// AI definitions (`commandtree-agents`): read, never run.
    Prompt,
    Agent,
    Skill,
    Instructions,
    Playbook,
    /// Commands a user strung together in `.commandtree/config.toml` (`[sequences.NAME]`).
    Sequence,
}

impl CommandType {
    /// Every type, in the order of the tree's categories.
    pub const ALL: &'static [CommandType] = &[
        CommandType::Shell,
        CommandType::Npm,
        CommandType::Make,
        CommandType::Launch,
        CommandType::Vscode,
        CommandType::Python,
        CommandType::Ruby,
        CommandType::Powershell,
        CommandType::Gradle,
        CommandType::Cargo,
        CommandType::Go,
        CommandType::Maven,
        CommandType::Ant,
        CommandType::Just,
        CommandType::Taskfile,
        CommandType::Deno,
        CommandType::Rake,
        CommandType::Composer,
        CommandType::Docker,
        CommandType::Dotnet,
        CommandType::Markdown,
        CommandType::CsharpScript,
        CommandType::FsharpScript,
        CommandType::Mise,
        CommandType::Pyproject,
        CommandType::Procfile,
        CommandType::Tox,
        CommandType::Nox,
        CommandType::Workflow,
        CommandType::Turbo,
        CommandType::Nx,
        CommandType::Prompt,
        CommandType::Agent,
        CommandType::Skill,
        CommandType::Instructions,
        CommandType::Playbook,
        CommandType::Sequence,
    ];

    /// The type string of the JSON contract (`csharp-script`, `npm`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            CommandType::Shell => "shell",
            CommandType::Npm => "npm",
            CommandType::Make => "make",
            CommandType::Launch => "launch",
            CommandType::Vscode => "vscode",
            CommandType::Python => "python",
            CommandType::Ruby => "ruby",
            CommandType::Powershell => "powershell",
            CommandType::Gradle => "gradle",
            CommandType::Cargo => "cargo",
            CommandType::Go => "go",
            CommandType::Maven => "maven",
            CommandType::Ant => "ant",
            CommandType::Just => "just",
            CommandType::Taskfile => "taskfile",
            CommandType::Deno => "deno",
            CommandType::Rake => "rake",
            CommandType::Composer => "composer",
            CommandType::Docker => "docker",
            CommandType::Dotnet => "dotnet",
            CommandType::Markdown => "markdown",
            CommandType::CsharpScript => "csharp-script",
            CommandType::FsharpScript => "fsharp-script",
            CommandType::Mise => "mise",
            CommandType::Pyproject => "pyproject",
            CommandType::Procfile => "procfile",
            CommandType::Tox => "tox",
            CommandType::Nox => "nox",
            CommandType::Workflow => "workflow",
            CommandType::Turbo => "turbo",
            CommandType::Nx => "nx",
            CommandType::Prompt => "prompt",
            CommandType::Agent => "agent",
            CommandType::Skill => "skill",
            CommandType::Instructions => "instructions",
            CommandType::Playbook => "playbook",
            CommandType::Sequence => "sequence",
        }
    }
}

impl CommandType {
    /// AI definitions (prompt commands, agents, skill definitions, instructions): shown, tagged and
    /// starred
    /// like any command, but only ever read.
    pub fn is_ai_definition(self) -> bool {
        matches!(
            self,
            CommandType::Prompt
                | CommandType::Agent
                | CommandType::Skill
                | CommandType::Instructions
        )
    }
}

impl std::fmt::Display for CommandType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for CommandType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CommandType::ALL
            .iter()
            .copied()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("`{s}` is not a command type"))
    }
}

impl crate::CommandItem {
    /// The item's type as an enum; `None` for a type string this build does not know.
    pub fn command_type(&self) -> Option<CommandType> {
        self.kind.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_type_has_a_variant_with_the_same_string() {
        for t in crate::sources::TYPES {
            let parsed: CommandType = t.kind.parse().unwrap();
            assert_eq!(parsed.as_str(), t.kind);
        }
        assert_eq!(CommandType::ALL.len(), crate::sources::TYPES.len());
        assert!("nope".parse::<CommandType>().is_err());
    }
}
