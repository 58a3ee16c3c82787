//! Rendering: a command's arguments, the instructions wrapper, the skills table, an agent's
//! system prompt. The shapes are those of the unified-definitions plan, byte for byte.

use crate::model::{InstructionsDef, Origin};

/// A command's content with its placeholders filled:
/// - `$ARGUMENTS`: every argument, joined by spaces;
/// - `$ARGUMENTS[n]`: the n-th argument, counted from 0 (Claude Code);
/// - `$1`…`$9`: the n-th argument, counted from 1 (shell, Codex, and Claude Code command files
///   written before 2026);
/// - `\$` before a placeholder keeps it literal; a placeholder past the last argument stays as
///   written.
///
/// Arguments are inserted once and never read again, so an argument holding `$1` stays as typed.
/// A content without any placeholder gets `ARGUMENTS: <args>` appended, as Claude Code does.
pub fn command(content: &str, args: &[String]) -> String {
    let joined = args.join(" ");
    let (mut out, used) = scan(content, true, |slot, original| match slot {
        Slot::All => joined.clone(),
        Slot::Index(n) => args.get(n).cloned().unwrap_or_else(|| original.to_string()),
    });
    if !used && !args.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("\nARGUMENTS: ");
        out.push_str(&joined);
    }
    out
}

/// The placeholders a command's text uses: `$ARGUMENTS` (all of them), and which positions
/// (`$1`…`$9`, `$ARGUMENTS[n]`, counted from 0). Escaped ones do not count.
pub fn slots(content: &str) -> (bool, std::collections::BTreeSet<usize>) {
    let mut all = false;
    let mut at = std::collections::BTreeSet::new();
    scan(content, false, |slot, original| {
        match slot {
            Slot::All => all = true,
            Slot::Index(n) => {
                at.insert(n);
            }
        }
        original.to_string()
    });
    (all, at)
}

/// Rewrites every placeholder for another tool: `all` for `$ARGUMENTS`, `index(n)` (counted
/// from 0) for `$ARGUMENTS[n]` and `$1`…`$9`. Escaped placeholders stay as written.
pub fn rewrite(content: &str, all: &str, index: impl Fn(usize) -> String) -> String {
    scan(content, false, |slot, _| match slot {
        Slot::All => all.to_string(),
        Slot::Index(n) => index(n),
    })
    .0
}

/// One pass over `content`, replacing each placeholder with `f(slot, its text)`; inserted text
/// is never scanned again. Returns whether any placeholder was seen.
fn scan(content: &str, unescape: bool, mut f: impl FnMut(Slot, &str) -> String) -> (String, bool) {
    let mut out = String::with_capacity(content.len());
    let mut used = false;
    let bytes = content.as_bytes();
    let mut i = 0;
    let mut plain_from = 0;
    while i < bytes.len() {
        let rest = &content[i..];
        if rest.starts_with("\\$")
            && let Some((len, _)) = placeholder(&rest[1..])
        {
            out.push_str(&content[plain_from..i]);
            let skip = if unescape { 1 } else { 0 };
            out.push_str(&rest[skip..1 + len]);
            i += 1 + len;
            plain_from = i;
            continue;
        }
        if bytes[i] == b'$'
            && let Some((len, slot)) = placeholder(rest)
        {
            out.push_str(&content[plain_from..i]);
            used = true;
            out.push_str(&f(slot, &rest[..len]));
            i += len;
            plain_from = i;
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    out.push_str(&content[plain_from..]);
    (out, used)
}

enum Slot {
    All,
    Index(usize),
}

/// The placeholder at the start of `s` (which starts with `$`): its length and slot.
fn placeholder(s: &str) -> Option<(usize, Slot)> {
    let rest = s.strip_prefix('$')?;
    if let Some(after) = rest.strip_prefix("ARGUMENTS") {
        if let Some(inner) = after.strip_prefix('[')
            && let Some(end) = inner.find(']')
            && end > 0
            && end <= 3
            && inner[..end].bytes().all(|b| b.is_ascii_digit())
        {
            let n: usize = inner[..end].parse().ok()?;
            return Some((1 + 9 + 1 + end + 1, Slot::Index(n)));
        }
        // `$ARGUMENTSX` is some other word.
        if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        return Some((10, Slot::All));
    }
    let d = rest.bytes().next()?;
    if (b'1'..=b'9').contains(&d) && !rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
        return Some((2, Slot::Index((d - b'1') as usize)));
    }
    None
}

/// Makes `text` safe inside a `<custom-instructions>` element: a closing tag in it would end
/// the wrapper early and let the rest pose as text outside it.
pub fn escape_closing_tag(text: &str) -> String {
    const TAG: &str = "</custom-instructions";
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, _) in lower.match_indices(TAG) {
        out.push_str(&text[last..i]);
        out.push_str("<\\/");
        out.push_str(&text[i + 2..i + TAG.len()]);
        last = i + TAG.len();
    }
    out.push_str(&text[last..]);
    out
}

fn attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The instructions of one origin in their wrapper:
///
/// ```text
/// <custom-instructions source="repo" agent="architect">
/// ## Repository Custom Instructions
///
/// These instructions are defined by the repository maintainers:
///
/// ...
///
/// </custom-instructions>
/// ```
/// Without an agent the `agent` attribute is left out. `None` when there is nothing to wrap.
pub fn instructions(
    source: Origin,
    agent: Option<&str>,
    parts: &[&InstructionsDef],
) -> Option<String> {
    let texts: Vec<String> = parts
        .iter()
        .filter(|p| !p.content.trim().is_empty())
        .map(|p| {
            let body = escape_closing_tag(p.content.trim_matches('\n'));
            if p.apply_to.is_empty() {
                body
            } else {
                format!(
                    "Applies to files matching: {}\n\n{body}",
                    p.apply_to.join(", ")
                )
            }
        })
        .collect();
    if texts.is_empty() {
        return None;
    }
    let (heading, intro) = match source {
        Origin::Repo => (
            "## Repository Custom Instructions",
            "These instructions are defined by the repository maintainers:",
        ),
        Origin::Builtin => (
            "## Built-in Custom Instructions",
            "These instructions ship with CommandTree:",
        ),
    };
    let agent_attr = agent
        .map(|a| format!(" agent=\"{}\"", attr(a)))
        .unwrap_or_default();
    Some(format!(
        "<custom-instructions source=\"{}\"{agent_attr}>\n{heading}\n\n{intro}\n\n{}\n\n</custom-instructions>",
        source.as_str(),
        texts.join("\n\n")
    ))
}

fn cell(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// The "Available Skills" section with the `loadSkill` example, from (id, description) pairs;
/// `None` without skills.
pub fn skills_table(skills: &[(&str, &str)]) -> Option<String> {
    let (first, _) = skills.first()?;
    let mut s = String::from(
        "## Available Skills\n\nYou have access to domain-specific knowledge via skills. Use the loadSkill tool to load any of these:\n\n| Skill | Description |\n|-------|-------------|\n",
    );
    for (id, description) in skills {
        s.push_str(&format!("| {} | {} |\n", cell(id), cell(description)));
    }
    s.push_str(&format!(
        "\nExample: loadSkill({{ skillId: \"{}\" }})",
        first.replace('\\', "\\\\").replace('"', "\\\"")
    ));
    Some(s)
}

/// Joins the non-empty sections with a blank line.
pub fn join(sections: &[Option<String>]) -> String {
    sections
        .iter()
        .flatten()
        .map(|s| s.trim_matches('\n'))
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn placeholders() {
        let args = a(&["12", "high prio"]);
        assert_eq!(command("Review $ARGUMENTS.", &args), "Review 12 high prio.");
        assert_eq!(
            command("PR $1, priority $2, $3", &args),
            "PR 12, priority high prio, $3"
        );
        assert_eq!(
            command("$ARGUMENTS[0]/$ARGUMENTS[1]", &args),
            "12/high prio"
        );
        // Escaped placeholders are text, so the arguments are appended as for a file without any.
        assert_eq!(
            command("\\$1 and \\$ARGUMENTS", &args),
            "$1 and $ARGUMENTS\n\nARGUMENTS: 12 high prio"
        );
        assert_eq!(command("\\$1 $1", &args), "$1 12");
        assert_eq!(
            rewrite("\\$1 $1 $ARGUMENTS[2] $ARGUMENTS", "ALL", |n| format!(
                "<{n}>"
            )),
            "\\$1 <0> <2> ALL"
        );
        assert_eq!(
            command("$ARGUMENTSX $10 $0", &args),
            "$ARGUMENTSX $10 $0\n\nARGUMENTS: 12 high prio"
        );
        assert_eq!(command("cost: $5", &a(&[])), "cost: $5");
        assert_eq!(command("no args", &a(&[])), "no args");
        assert_eq!(command("$1", &a(&["$2"])), "$2");
        assert_eq!(command("é$1ü", &a(&["x"])), "éxü");
    }

    #[test]
    fn closing_tags_are_escaped() {
        assert_eq!(
            escape_closing_tag("a </custom-instructions> b </CUSTOM-instructions >"),
            "a <\\/custom-instructions> b <\\/CUSTOM-instructions >"
        );
        assert!(
            !escape_closing_tag("x</custom-instructions")
                .to_ascii_lowercase()
                .contains("</custom-instructions")
        );
    }
}
