//! Security warnings without an LLM: a static analyser over a command's own text (the script
//! file, the npm script body, the make rule, the just recipe, the VS Code task, …) for
//! well-known destructive or risky patterns, and the rules that combine its findings with what
//! a model said.
//!
//! Shell text is parsed with tree-sitter-bash, so only what the shell would run counts: the
//! same words inside a quoted argument, a comment or a heredoc fed to `cat` are not findings;
//! inside `$(…)`, `bash -c '…'`, `eval '…'`, a heredoc fed to a shell or a variable that holds
//! a command they are. PowerShell and Python scripts get a tokenizer that keeps strings and
//! comments apart from code.
//!
//! - `analyse(kind, text)`: the findings, in line order.
//! - `warning_text(findings)`: the one line a user sees.
//! - `normalise_warning(text)`: a model's (or another tool's) warning, or `None` when it is
//!   a placeholder or a negation ("none", "Not a security warning", "N/A", …).
//! - `effective_warning(model, risk, findings)`: what to show: static findings always, the
//!   model's warning unless it said `none`.
//! - `step_warning(step, via, warning)`: what a command shows for a step it runs.

mod extract;
mod other;
mod shell;
mod warning;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use warning::{effective_warning, normalise_warning, step_warning, warning_text};

/// Bump when the rules change, so stored findings are recomputed.
pub const ANALYSER_VERSION: u32 = 1;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Risky depending on context: runs as root, evaluates generated text, edits a startup file.
    Caution,
    /// Destroys data or runs code from elsewhere: `rm -rf ~`, `curl … | sh`, `git push --force`.
    Danger,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Caution => "caution",
            Level::Danger => "danger",
        }
    }
}

/// A model's own rating, the summary tool's `risk` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Risk {
    None,
    Caution,
    Danger,
}

impl Risk {
    /// `none` | `caution` | `danger`, any case; other text is not a rating.
    pub fn parse(s: &str) -> Option<Risk> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" | "safe" | "no" | "low" => Some(Risk::None),
            "caution" | "medium" | "moderate" | "warning" => Some(Risk::Caution),
            "danger" | "dangerous" | "high" | "critical" => Some(Risk::Danger),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Risk::None => "none",
            Risk::Caution => "caution",
            Risk::Danger => "danger",
        }
    }
}

/// One risky pattern in a command's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub level: Level,
    /// Short, lowercase, what the code does: "pipes a download (curl) into sh".
    pub reason: String,
    /// 1-based, in the text given to `analyse`.
    pub line: u32,
    /// The command it was found in, on one line, at most 80 characters.
    pub snippet: String,
}

/// The findings in `text`, the own text of a command of type `kind` (a `CommandItem::kind`:
/// `shell`, `npm`, `make`, `just`, `vscode`, `powershell`, …), sorted by line. The whole text
/// is read, however long.
pub fn analyse(kind: &str, text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for (lang, f) in extract::fragments(kind, text) {
        let mut found = Vec::new();
        match lang {
            extract::Language::Shell => shell::analyse(&f.code, f.line, &mut found),
            extract::Language::PowerShell => other::powershell(&f.code, &mut found),
            extract::Language::Python => other::python(&f.code, &mut found),
        }
        for x in found {
            if !out
                .iter()
                .any(|o: &Finding| o.line == x.line && o.reason == x.reason)
            {
                out.push(x);
            }
        }
    }
    out.sort_by(|a, b| a.line.cmp(&b.line).then(b.level.cmp(&a.level)));
    out
}

/// The highest level among `findings`.
pub fn level(findings: &[Finding]) -> Option<Level> {
    findings.iter().map(|f| f.level).max()
}

/// The key stored findings are kept under: changes with the type, the command line, the text
/// and the analyser's rules. Lowercase hex SHA-256.
pub fn scan_hash(kind: &str, command: &str, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(ANALYSER_VERSION.to_le_bytes());
    for part in [kind, command, text] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The findings of one discovered command: its own text (`file_text` is the content of
/// `item.file_path`, when it could be read) and, for types whose definition is the command
/// line itself (a VS Code task without a file), that line.
pub fn analyse_item(item: &commandtree_core::CommandItem, file_text: Option<&str>) -> Vec<Finding> {
    match file_text {
        Some(content) => {
            let t = commandtree_core::excerpt::command_text(item, content);
            analyse(&item.kind, &t.text)
        }
        None => analyse("shell", &item.command),
    }
}

#[cfg(test)]
mod tests;
