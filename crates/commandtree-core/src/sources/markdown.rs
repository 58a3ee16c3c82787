//! Markdown files: one item per `.md` file. Running one opens it (a preview), so the command is
//! the bare absolute path, never a shell line.

use super::common::one_command;
use super::{Parsed, SourceFile};
use crate::model::CommandItem;

pub const KIND: &str = "markdown";

/// Longest description kept before it is cut and `...` appended (upstream keeps 150 + `...`).
const MAX_DESCRIPTION: usize = 150;

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let command = file.path.to_string_lossy().into_owned();
    let item = CommandItem::new(KIND, file.path, file.file_name(), command)
        .opt_description(description(file.content));
    one_command(item)
}

/// The first heading text or paragraph line; fences and `---` rules are stepped over, and a heading
/// with no text defers to the next line.
fn description(content: &str) -> Option<String> {
    for line in content.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("```") || t.starts_with("---") {
            continue;
        }
        let text = if t.starts_with('#') {
            t.trim_start_matches('#').trim()
        } else {
            t
        };
        if text.is_empty() {
            continue;
        }
        return Some(cut(text));
    }
    None
}

fn cut(s: &str) -> String {
    if s.chars().count() <= MAX_DESCRIPTION {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX_DESCRIPTION).collect();
    out.push_str("...");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    fn desc(content: &str) -> Option<String> {
        let p = parse_with(parse, "/w/README.md", content);
        assert!(p.warnings.is_empty());
        p.commands.into_iter().next().and_then(|c| c.description)
    }

    #[test]
    fn item_shape() {
        let p = parse_with(parse, "/w/docs/guide book.md", "# Guide\n\nText\n");
        let c = &p.commands[0];
        assert_eq!(c.id, "markdown:/w/docs/guide book.md:guide book.md");
        assert_eq!(c.label, "guide book.md");
        assert_eq!(c.kind, "markdown");
        // Opened, not run: the plain path, unquoted.
        assert_eq!(c.command, "/w/docs/guide book.md");
        assert_eq!(c.cwd, "/w/docs");
        assert!(c.params.is_empty());
        assert_eq!(c.description.as_deref(), Some("Guide"));
    }

    #[test]
    fn empty_and_whitespace_have_no_description() {
        assert_eq!(desc(""), None);
        assert_eq!(desc("   \n\t\n  "), None);
    }

    #[test]
    fn headings() {
        assert_eq!(desc("# My Title\n\nbody").as_deref(), Some("My Title"));
        assert_eq!(desc("### Deep Heading").as_deref(), Some("Deep Heading"));
        assert_eq!(
            desc("#\nfirst paragraph").as_deref(),
            Some("first paragraph")
        );
        assert_eq!(
            desc("# Test Project Documentation\n").as_deref(),
            Some("Test Project Documentation")
        );
    }

    #[test]
    fn paragraphs() {
        assert_eq!(
            desc("plain intro line\nmore").as_deref(),
            Some("plain intro line")
        );
        assert_eq!(desc("\n\n\nintro").as_deref(), Some("intro"));
        assert_eq!(desc("short").as_deref(), Some("short"));
    }

    #[test]
    fn fences_are_skipped_not_their_content() {
        assert_eq!(desc("```\nfoo").as_deref(), Some("foo"));
        assert_eq!(desc("```\n```"), None);
        assert_eq!(desc("```bash\n```\n").as_deref(), None);
    }

    #[test]
    fn rules_are_skipped() {
        assert_eq!(desc("---\ntitle: x").as_deref(), Some("title: x"));
        assert_eq!(desc("---"), None);
        assert_eq!(desc("---\n---\n"), None);
    }

    #[test]
    fn long_lines_are_cut_at_150() {
        let heading = format!("# {}", "h".repeat(200));
        let d = desc(&heading).unwrap();
        assert_eq!(d.chars().count(), 153);
        assert_eq!(d, format!("{}...", "h".repeat(150)));
        let para = "é".repeat(200);
        let d = desc(&para).unwrap();
        assert_eq!(d.chars().count(), 153);
        assert!(d.ends_with("..."));
        let exact = "x".repeat(150);
        assert_eq!(desc(&exact), Some(exact));
    }

    #[test]
    fn garbage_never_panics() {
        for content in ["\u{1}\u{fffd}", "#######", "```", "#\u{301}", "\u{feff}# x"] {
            let p = parse_with(parse, "/w/n.md", content);
            assert_eq!(labels(&p), vec!["n.md"]);
        }
        assert_eq!(desc("#######"), None);
    }
}
