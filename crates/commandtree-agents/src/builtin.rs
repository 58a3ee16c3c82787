//! The definitions compiled into the binary. A repository definition with the same id replaces
//! one of these.

use crate::model::{Format, Kind, Origin};
use crate::parse::{Parsed, parse_as};

/// (path under `builtin/`, text).
pub const FILES: &[(&str, &str)] = &[
    (
        "commands/review-changes.command.md",
        include_str!("../builtin/commands/review-changes.command.md"),
    ),
    (
        "agents/architect.agent.md",
        include_str!("../builtin/agents/architect.agent.md"),
    ),
    (
        "skills/rest-api-design.skill.md",
        include_str!("../builtin/skills/rest-api-design.skill.md"),
    ),
    (
        "instructions/commandtree.instructions.md",
        include_str!("../builtin/instructions/commandtree.instructions.md"),
    ),
];

fn kind_of(path: &str) -> Option<Kind> {
    match path.split('/').next()? {
        "commands" => Some(Kind::Prompt),
        "agents" => Some(Kind::Agent),
        "skills" => Some(Kind::Skill),
        "instructions" => Some(Kind::Instructions),
        _ => None,
    }
}

/// Every built-in definition.
pub fn definitions() -> Parsed {
    let mut out = Parsed::default();
    for (path, text) in FILES {
        let Some(kind) = kind_of(path) else { continue };
        let p = parse_as(
            kind,
            Format::Builtin,
            &format!("builtin:{path}"),
            text,
            Origin::Builtin,
        );
        out.definitions.extend(p.definitions);
        out.warnings.extend(p.warnings);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_builtin_parses_without_warnings() {
        let p = super::definitions();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.definitions.len(), super::FILES.len());
    }
}
