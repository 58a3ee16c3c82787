//! AI definitions (prompt commands, agents, skill definitions, instructions) as tree items. The
//! reading is `commandtree_agents::parse`; this turns its result into commands whose `command` is
//! the file (they are read, never run).

use super::{Parsed, SourceFile};
use crate::model::{CommandItem, Warning};
use commandtree_agents::{Definition, Kind};
use std::path::Path;

pub fn parse_prompt(file: &SourceFile<'_>) -> Parsed {
    parse_kind(file, Kind::Prompt)
}
pub fn parse_agent(file: &SourceFile<'_>) -> Parsed {
    parse_kind(file, Kind::Agent)
}
pub fn parse_skill(file: &SourceFile<'_>) -> Parsed {
    parse_kind(file, Kind::Skill)
}
pub fn parse_instructions(file: &SourceFile<'_>) -> Parsed {
    parse_kind(file, Kind::Instructions)
}

/// The path relative to the root with `/`, as `commandtree_agents` routes it.
pub fn relative(file: &SourceFile<'_>) -> String {
    let rel = file.path.strip_prefix(file.root).unwrap_or(file.path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn parse_kind(file: &SourceFile<'_>, kind: Kind) -> Parsed {
    let rel = relative(file);
    let p = commandtree_agents::parse(&rel, file.content);
    let mut out = Parsed::default();
    for w in p.warnings {
        out.warnings.push(Warning::new(
            file.path,
            w.line.map(|l| l as usize),
            w.message,
        ));
    }
    for d in p.definitions.into_iter().filter(|d| d.kind() == kind) {
        let m = d.meta();
        let description = match &d {
            Definition::Instructions(i) if m.description.is_empty() => {
                commandtree_agents::parse::first_line(&i.content)
            }
            _ => m.description.clone(),
        };
        let item = CommandItem::new(
            kind.as_str(),
            file.path,
            &m.id,
            file.path.to_string_lossy().into_owned(),
        )
        .opt_description((!description.is_empty()).then_some(description))
        .line(m.line as usize);
        out.commands.push(item);
    }
    out
}

/// Every AI definition of the workspace: the built-ins plus the files discovery finds (the same
/// walker, ignore rules and checks as every source), read by the `commandtree_agents` service.
/// Its warnings (broken front matter, duplicate ids) come back as workspace warnings.
pub fn definitions(ws: &crate::Workspace) -> (commandtree_agents::Definitions, Vec<Warning>) {
    let opts = crate::Options {
        types: commandtree_agents::KINDS
            .iter()
            .map(|k| k.as_str().to_string())
            .collect(),
        threads: 0,
    };
    let found = ws.discover(&opts);
    let mut files: Vec<std::path::PathBuf> = found
        .commands
        .iter()
        .map(|c| std::path::PathBuf::from(&c.file_path))
        .collect();
    files.sort();
    files.dedup();
    let defs = commandtree_agents::Definitions::load(&ws.root, files);
    let mut warnings = found.warnings;
    let known: std::collections::HashSet<(std::path::PathBuf, Option<u32>, String)> = warnings
        .iter()
        .map(|w| (w.file.clone(), w.line, w.message.clone()))
        .collect();
    for w in defs.warnings() {
        let file = match w.file.strip_prefix("builtin:") {
            Some(_) => std::path::PathBuf::from(&w.file),
            None => ws.root.join(&w.file),
        };
        // Front-matter errors were already reported by discovery.
        if !known.contains(&(file.clone(), w.line, w.message.clone())) {
            warnings.push(Warning::new(
                &file,
                w.line.map(|l| l as usize),
                w.message.clone(),
            ));
        }
    }
    (defs, warnings)
}

/// The definitions among `commands` already discovered (a live index's): the built-ins plus
/// the files those commands come from, read again, without a walk.
pub fn definitions_among(root: &Path, commands: &[CommandItem]) -> commandtree_agents::Definitions {
    let mut files: Vec<std::path::PathBuf> = commands
        .iter()
        .filter(|c| commandtree_agents::is_definition_type(&c.kind))
        .map(|c| c.path().to_path_buf())
        .collect();
    files.sort();
    files.dedup();
    commandtree_agents::Definitions::load(root, files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::*;

    #[test]
    fn one_item_per_definition_with_warnings_at_their_lines() {
        let p = parse_with(
            parse_agent,
            "/w/.github/agents/architect.agent.md",
            "---\nname: architect\ndescription: Designs plans\n---\nYou plan.\n",
        );
        assert_eq!(labels(&p), ["architect"]);
        let c = &p.commands[0];
        assert_eq!(c.kind, "agent");
        assert_eq!(c.description.as_deref(), Some("Designs plans"));
        assert_eq!(c.line, Some(1));
        assert_eq!(c.command, "/w/.github/agents/architect.agent.md");
        let p = parse_with(
            parse_skill,
            "/w/.github/skills/x/SKILL.md",
            "---\nname: x\ndescription: [a\n---\n",
        );
        assert!(p.commands.is_empty());
        assert_eq!(warnings(&p).len(), 1);
        assert!(warnings(&p)[0].0.is_some());
        // Its text (what summaries and content hashes see) is the whole file.
        let text = "---\nname: architect\ndescription: Designs plans\n---\nYou plan.\n";
        assert!(crate::excerpt::command_text(c, text).whole_file);
        let p = parse_with(parse_instructions, "/w/AGENTS.md", "# Rules\n\nBe kind.\n");
        assert_eq!(labels(&p), ["AGENTS.md"]);
        assert_eq!(p.commands[0].description.as_deref(), Some("Rules"));
    }
}
