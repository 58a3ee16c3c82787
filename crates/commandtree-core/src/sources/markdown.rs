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

/// `description:` or `title:` of the front matter; else the first heading text or paragraph line.
/// Front matter, HTML comments, HTML tags, badge and image lines, fences and `---` rules are
/// stepped over, and a heading with no text defers to the next line.
fn description(content: &str) -> Option<String> {
    let mut lines = content.lines().peekable();
    if let Some(first) = lines.peek().map(|l| l.trim())
        && (first == "---" || first == "+++")
    {
        let fence = first.to_string();
        lines.next();
        let mut title = None;
        let mut desc = None;
        for line in lines.by_ref() {
            let t = line.trim();
            if t == fence || (fence == "---" && t == "...") {
                break;
            }
            let Some((key, value)) = t.split_once([':', '=']) else {
                continue;
            };
            let value = value.trim().trim_matches(['"', '\'']).trim();
            if value.is_empty() || value == "|" || value == ">" {
                continue;
            }
            match key.trim() {
                "description" | "summary" | "about" if desc.is_none() => {
                    desc = Some(value.to_string())
                }
                "title" if title.is_none() => title = Some(value.to_string()),
                _ => {}
            }
        }
        if let Some(d) = desc.or(title) {
            return Some(cut(&d));
        }
    }
    let mut in_comment = false;
    for line in lines {
        let mut t = line.trim().to_string();
        if in_comment {
            match t.find("-->") {
                Some(i) => {
                    in_comment = false;
                    t = t[i + 3..].trim().to_string();
                }
                None => continue,
            }
        }
        while let Some(i) = t.find("<!--") {
            match t[i..].find("-->") {
                Some(j) => t.replace_range(i..i + j + 3, ""),
                None => {
                    in_comment = true;
                    t.truncate(i);
                }
            }
        }
        let t = strip_tags(t.trim());
        let t = t.trim();
        if t.is_empty() || t.starts_with("```") || t.starts_with("---") || is_badge_line(t) {
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

/// The text with HTML tags (`<p align="center">`, `<img ...>`, `</h1>`) removed.
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        let after = &rest[i + 1..];
        let is_tag = after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/');
        match after.find('>').filter(|_| is_tag) {
            Some(j) => {
                out.push_str(&rest[..i]);
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[..=i]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A line of only images and image links (`[![CI](badge.svg)](url) ![logo](x.png)`).
fn is_badge_line(t: &str) -> bool {
    if !t.starts_with("![") && !t.starts_with("[![") {
        return false;
    }
    // Every word-ish piece outside the brackets and parentheses is markup.
    let mut depth = 0i32;
    for c in t.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            c if depth <= 0 && !c.is_whitespace() && c != '!' => return false,
            _ => {}
        }
    }
    true
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
        assert_eq!(desc("intro\n\n---\nnext").as_deref(), Some("intro"));
        assert_eq!(desc("---"), None);
        assert_eq!(desc("---\n---\n"), None);
    }

    #[test]
    fn front_matter_gives_description_or_title_never_raw() {
        assert_eq!(desc("---\ntitle: x").as_deref(), Some("x"));
        assert_eq!(
            desc("---\ntitle: \"Install\"\ndescription: How to install it\nlayout: doc\n---\n# Other\n")
                .as_deref(),
            Some("How to install it")
        );
        assert_eq!(
            desc("---\nlayout: doc\n---\n\n# Getting started\n").as_deref(),
            Some("Getting started")
        );
        assert_eq!(
            desc("+++\ntitle = 'Hugo page'\n+++\nbody").as_deref(),
            Some("Hugo page")
        );
    }

    #[test]
    fn html_comments_tags_and_badges_are_skipped() {
        assert_eq!(
            desc("<!-- markdownlint-disable -->\n<!--\nlong\ncomment -->\n# Title\n").as_deref(),
            Some("Title")
        );
        assert_eq!(
            desc("<p align=\"center\">\n  <img src=\"logo.png\" width=\"200\">\n</p>\n<h1 align=\"center\">Zap</h1>\n").as_deref(),
            Some("Zap")
        );
        assert_eq!(
            desc("[![CI](https://x/badge.svg)](https://x) ![v](https://v.svg)\n\nA fast tool.\n")
                .as_deref(),
            Some("A fast tool.")
        );
        assert_eq!(desc("a < b and c > d").as_deref(), Some("a < b and c > d"));
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
