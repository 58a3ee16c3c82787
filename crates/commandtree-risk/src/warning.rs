//! Turning findings and a model's answer into the one warning a user sees.

use crate::{Finding, Level, Risk};

/// How many findings the one-line warning names; the rest are counted.
const SHOWN: usize = 3;

/// The one-line warning for `findings` (`None` when there are none): the most severe first,
/// each with its line.
///
/// `Danger: pipes a download (curl) into sh (line 3: curl -fsSL https://get.x | sh); runs as root (sudo) (line 5)`
pub fn warning_text(findings: &[Finding]) -> Option<String> {
    let mut sorted: Vec<&Finding> = Vec::new();
    for f in findings {
        if !sorted.iter().any(|s| s.reason == f.reason) {
            sorted.push(f);
        }
    }
    sorted.sort_by(|a, b| b.level.cmp(&a.level).then(a.line.cmp(&b.line)));
    let top = sorted.first()?;
    let head = match top.level {
        Level::Danger => "Danger",
        Level::Caution => "Caution",
    };
    let mut out = format!("{head}: {} (line {}", top.reason, top.line);
    if !top.snippet.is_empty() {
        out.push_str(": ");
        out.push_str(&top.snippet);
    }
    out.push(')');
    for f in sorted.iter().skip(1).take(SHOWN - 1) {
        out.push_str(&format!("; {} (line {})", f.reason, f.line));
    }
    if sorted.len() > SHOWN {
        out.push_str(&format!("; and {} more", sorted.len() - SHOWN));
    }
    Some(out)
}

/// The warning a command gets from a step it runs, built from that step's own warning:
/// `Danger: deletes ~/x (line 2: rm -rf ~/x)` of step `clean` becomes `Danger: runs `clean`,
/// which deletes ~/x (line 2: rm -rf ~/x)`; `via` names the steps in between
/// (`runs `clean` (through `lint`), which ...`). A warning in other words (a model's) is quoted
/// after the step: `runs `clean`: Wipes the cache.`.
pub fn step_warning(step: &str, via: &[String], warning: &str) -> String {
    let mut who = format!("runs `{step}`");
    if !via.is_empty() {
        let chain: Vec<String> = via.iter().map(|v| format!("`{v}`")).collect();
        who.push_str(&format!(" (through {})", chain.join(" → ")));
    }
    led(&who, ", which ", warning)
}

/// `warning` said of `lead`: its severity first ("Caution: {lead}{join}{rest}").
fn led(lead: &str, join: &str, warning: &str) -> String {
    for head in ["Danger", "Caution"] {
        if let Some(rest) = warning
            .strip_prefix(head)
            .and_then(|r| r.strip_prefix(": "))
        {
            return format!("{head}: {lead}{join}{rest}");
        }
    }
    format!("{lead}: {warning}")
}

/// What a command shows for a file its tool merges into its own (a Compose override):
/// "Caution: with `compose.override.yml` merged in, service web ...".
pub fn merged_warning(file: &str, warning: &str) -> String {
    led(&format!("with `{file}` merged in"), ", ", warning)
}

/// Words that make a one-word answer a warning after all.
const ONE_WORD_WARNINGS: &[&str] = &[
    "dangerous",
    "destructive",
    "risky",
    "unsafe",
    "insecure",
    "irreversible",
    "danger",
    "caution",
];

/// Answers that say "nothing to report" in the warning field.
const PLACEHOLDERS: &[&str] = &[
    "",
    "none",
    "no",
    "n/a",
    "na",
    "nil",
    "null",
    "undefined",
    "false",
    "empty",
    "empty string",
    "safe",
    "ok",
    "okay",
    "fine",
    "harmless",
    "nothing",
    "not applicable",
    "none found",
    "none identified",
    "none detected",
    "securitywarning",
    "security warning",
    "security warnings",
    "warning",
    "summary",
    "risk",
    "string",
    "<empty>",
    "-",
    "—",
    "...",
    "…",
];

/// Words from which answers about the answer itself are made ("Security warning not yet
/// available", "Summary: to be determined", "Unknown"): text made only of these says nothing.
const STATUS_WORDS: &[&str] = &[
    "security",
    "securitywarning",
    "warning",
    "warnings",
    "summary",
    "information",
    "info",
    "data",
    "details",
    "the",
    "a",
    "is",
    "are",
    "was",
    "currently",
    "still",
    "not",
    "yet",
    "no",
    "none",
    "available",
    "unavailable",
    "unknown",
    "tbd",
    "pending",
    "to",
    "be",
    "determined",
    "provided",
    "specified",
    "given",
    "applicable",
    "n/a",
    "na",
];

const RISK_NOUNS: &[&str] = &[
    "risk",
    "risks",
    "warning",
    "warnings",
    "issue",
    "issues",
    "concern",
    "concerns",
    "threat",
    "threats",
    "danger",
    "dangers",
    "vulnerability",
    "vulnerabilities",
    "problem",
    "problems",
    "security",
    "dangerous",
    "risky",
    "harmful",
    "unsafe",
];

/// Stems that name a real effect: a sentence with one of these is a warning even when it
/// starts with "no" ("No backup is made before deleting the folder").
const EFFECTS: &[&str] = &[
    "delet",
    "remov",
    "overwrit",
    "download",
    "pipe",
    "sudo",
    "root",
    "credential",
    "force",
    "erase",
    "wipe",
    "destroy",
    "drop",
    "format",
    "upload",
    "expos",
    "leak",
    "password",
    "secret",
    "token",
    "key",
    "privileg",
    "execut",
    "curl",
    "wget",
];

const SAFE_WORDS: &[&str] = &[
    "safe",
    "harmless",
    "benign",
    "fine",
    "ok",
    "okay",
    "innocuous",
];

/// A model's (or another tool's) warning text, cleaned, or `None` when it says there is
/// nothing to warn about: empty, a placeholder ("none", "N/A", "safe", the field's own name),
/// a negation ("No security risks", "Not a security warning", "This command is safe"), or a
/// single word that is not a warning.
pub fn normalise_warning(text: &str) -> Option<String> {
    let cleaned = text
        .trim()
        .trim_matches(|c: char| {
            matches!(
                c,
                '"' | '\'' | '`' | '*' | '[' | ']' | '(' | ')' | '{' | '}'
            )
        })
        .trim();
    let mut l = cleaned
        .to_lowercase()
        .replace(['-', '_'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    l = l
        .trim_end_matches(['.', '!', ',', ';', ':'])
        .trim()
        .to_string();
    // "Security warning: none", "Risk - N/A".
    for prefix in [
        "security warning",
        "securitywarning",
        "warning",
        "risk",
        "security",
    ] {
        if let Some(rest) = l.strip_prefix(prefix)
            && let Some(rest) = rest.trim_start().strip_prefix(':')
        {
            l = rest.trim().to_string();
            break;
        }
    }
    let l = l.as_str();
    if PLACEHOLDERS.contains(&l) {
        return None;
    }
    let words: Vec<&str> = l
        .split(|c: char| !(c.is_alphanumeric() || c == '/'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.iter().all(|w| STATUS_WORDS.contains(w)) {
        return None;
    }
    // One identifier naming the field ("use-security-warning", "security_warning_text"): a
    // model writing out the schema, not a sentence about the command.
    let identifier = !cleaned.contains(char::is_whitespace) && cleaned.contains(['-', '_']);
    if identifier
        && words
            .iter()
            .any(|w| matches!(*w, "security" | "warning" | "warnings" | "risk" | "summary"))
    {
        return None;
    }
    let has_effect = EFFECTS.iter().any(|e| l.contains(e));
    let negated = matches!(words[0], "no" | "not" | "none" | "nothing" | "without")
        || l.starts_with("there are no")
        || l.starts_with("there is no")
        || l.starts_with("there's no")
        || words.windows(2).any(|w| {
            matches!(w[0], "not" | "no" | "doesn't" | "does" | "don't" | "isn't")
                && matches!(
                    w[1],
                    "pose"
                        | "any"
                        | "a"
                        | "known"
                        | "obvious"
                        | "significant"
                        | "apparent"
                        | "security"
                        | "risk"
                        | "risks"
                        | "dangerous"
                        | "harmful"
                )
        });
    let names_risk = words.iter().any(|w| RISK_NOUNS.contains(w));
    if negated && names_risk && !has_effect && words.len() <= 14 {
        return None;
    }
    let says_safe = words.iter().any(|w| SAFE_WORDS.contains(w))
        && !words
            .iter()
            .any(|w| matches!(*w, "not" | "unsafe" | "isn't"));
    if says_safe && !has_effect && words.len() <= 10 {
        return None;
    }
    if words.len() == 1 && !ONE_WORD_WARNINGS.contains(&words[0]) && !has_effect {
        return None;
    }
    Some(cleaned.to_string())
}

/// The warning to show for a command: the static findings always (a model that answered
/// `none` cannot clear them), then the model's warning when it gave one that is not a
/// placeholder and did not rate the command `none`. `model_risk` is `None` when unknown (a
/// warning read back from the database: a stored warning was never rated `none`).
pub fn effective_warning(
    model_warning: Option<&str>,
    model_risk: Option<Risk>,
    findings: &[Finding],
) -> Option<String> {
    let model = match model_risk {
        Some(Risk::None) => None,
        _ => model_warning.and_then(normalise_warning),
    };
    let stat = warning_text(findings);
    match (stat, model) {
        (None, None) => None,
        (Some(s), None) => Some(s),
        (None, Some(m)) => Some(m),
        (Some(s), Some(m)) => Some(format!("{s}. {m}")),
    }
}

/// What marks a model's warning about an AI definition: its text is instructions for an
/// assistant, so the warning is about what it tells an agent to do, not about code that runs.
pub const AGENT_MARK: &str = "Instructions for an AI agent: ";

/// [`effective_warning`] for a command of type `kind`. Documents get no static finding; an AI
/// definition's model warning is shown marked as being about its instructions ([`AGENT_MARK`]).
pub fn effective_warning_for(
    kind: &str,
    model_warning: Option<&str>,
    model_risk: Option<Risk>,
    findings: &[Finding],
) -> Option<String> {
    let agent = matches!(kind, "prompt" | "agent" | "skill" | "instructions");
    if !agent {
        return effective_warning(model_warning, model_risk, findings);
    }
    let marked = model_warning.map(|m| {
        if m.starts_with(AGENT_MARK) {
            m.to_string()
        } else {
            format!("{AGENT_MARK}{m}")
        }
    });
    let model = match model_risk {
        Some(Risk::None) => None,
        _ => model_warning.and_then(normalise_warning).and(marked),
    };
    let stat = warning_text(findings);
    match (stat, model) {
        (None, None) => None,
        (Some(s), None) => Some(s),
        (None, Some(m)) => Some(m),
        (Some(s), Some(m)) => Some(format!("{s}. {m}")),
    }
}
