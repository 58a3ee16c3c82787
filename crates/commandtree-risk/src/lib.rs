//! Security warnings without an LLM: a static analyser over what a command runs (the script
//! file, the npm script body, the make recipe, the just recipe, the VS Code task, the strings a
//! Rakefile or a Gradle build hands to a shell, …) for well-known destructive or risky
//! patterns, and the rules that combine its findings with what a model said.
//!
//! Only what runs is analysed, each in its language and in the context it runs in:
//!
//! - Shell text is parsed with tree-sitter-bash, so only what the shell would run counts: the
//!   same words inside a quoted argument, a comment or a heredoc fed to `cat` are not findings;
//!   inside `$(…)`, `bash -c '…'`, `eval '…'`, a heredoc fed to a shell or a variable that
//!   holds a command they are. PowerShell and Python scripts get a tokenizer that keeps strings
//!   and comments apart from code.
//! - Build files in other languages give only the strings they hand to a shell or an exec call
//!   (`commandtree_core::sources::shell_code`); a make target gives the recipe its parser
//!   worked out (`CommandItem::run_code`).
//! - Documents and AI definitions give nothing: nothing in them runs.
//! - A Dockerfile's steps change only the image; a Compose file is judged by what its
//!   containers get of the host (`container`). A dispatched workflow runs on GitHub: only what
//!   it does to shared things counts (`workflow`).
//!
//! Severity: `Danger` loses data or credentials outside the project, runs remote code or
//! force-rewrites shared history; `Caution` needs privileges, changes the machine or talks to
//! production (publishing, pushing, deploying). Nothing else is a finding.
//!
//! - `analyse(kind, text)`: the findings, in line order.
//! - `analyse_command(item, text, from_file)`: the same for a discovered command, which may
//!   carry more than its text (a make recipe's variables, a Compose command's services, the
//!   project files a script sources, read where it sources them: `sourced`).
//! - `warning_text(findings)`: the one line a user sees.
//! - `normalise_warning(text)`: a model's (or another tool's) warning, or `None` when it is
//!   a placeholder or a negation ("none", "Not a security warning", "N/A", …).
//! - `effective_warning(model, risk, findings)`: what to show: static findings always, the
//!   model's warning unless it said `none`.
//! - `step_warning(step, via, warning)`: what a command shows for a step it runs;
//!   `merged_warning(file, warning)` for a file its tool merges into its own.
//! - `RULES`: every rule of the shell analysis as data (name, family, severity, where it
//!   counts, what it matches, the reason shown, an example), one module of `rules` per family.

mod container;
mod extract;
mod flow;
mod other;
mod rules;
mod shell;
mod sourced;
mod warning;
mod workflow;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use rules::{Family, RULES, Reach, Rule};
pub use warning::{
    AGENT_MARK, effective_warning, effective_warning_for, merged_warning, normalise_warning,
    step_warning, warning_text,
};

/// Bump when the rules change, so stored findings are recomputed.
pub const ANALYSER_VERSION: u32 = 14;

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
    analyse_below(kind, text, 0)
}

/// [`analyse`] for a command whose working folder is `below_root` folders below the project
/// root (`CommandItem::below_root`): its shell code's `../` paths that climb no higher are
/// inside the project.
pub fn analyse_below(kind: &str, text: &str, below_root: u16) -> Vec<Finding> {
    analyse_with(kind, text, below_root, &[])
}

/// [`analyse_below`] for a script whose sourced project files set the variables `sourced`
/// (`CommandItem::sourced_vars`).
fn analyse_with(kind: &str, text: &str, below_root: u16, sourced: &[String]) -> Vec<Finding> {
    let elsewhere: std::collections::HashSet<String> = sourced.iter().cloned().collect();
    let mut out = Vec::new();
    for (lang, f) in extract::fragments(kind, text) {
        let mut found = Vec::new();
        match lang {
            extract::Language::Shell => {
                shell::analyse_script(&f.code, f.line, below_root, &elsewhere, &mut found)
            }
            extract::Language::PowerShell => other::powershell(&f.code, &mut found),
            extract::Language::Python => other::python(&f.code, &mut found),
            extract::Language::Workflow => workflow::analyse(&f.code, &mut found),
            extract::Language::Compose => container::compose(&f.code, &mut found),
        }
        merge(&mut out, found);
    }
    sort(&mut out);
    out
}

fn merge(out: &mut Vec<Finding>, found: Vec<Finding>) {
    for x in found {
        if !out
            .iter()
            .any(|o: &Finding| o.line == x.line && o.reason == x.reason)
        {
            out.push(x);
        }
    }
}

fn sort(out: &mut [Finding]) {
    out.sort_by(|a, b| a.line.cmp(&b.line).then(b.level.cmp(&a.level)));
}

/// The findings of a discovered command whose own text (`excerpt::command_text` of its
/// definition file) is `text`; `from_file` is false when no file could be read and `text` is
/// its command line. Beyond [`analyse`]: a make target is read from the recipe its parser
/// worked out, and a Compose command only counts when it starts containers.
pub fn analyse_command(
    item: &commandtree_core::CommandItem,
    text: &str,
    from_file: bool,
) -> Vec<Finding> {
    analyse_command_with(item, text, from_file, &sourced::read_from_disk)
}

/// [`analyse_command`] reading the project files a script sources (`CommandItem::sourced`)
/// with `read`: they are read as if written where the script sources them. A file that reads
/// otherwise than discovery read it (its hash) is left out.
pub fn analyse_command_with(
    item: &commandtree_core::CommandItem,
    text: &str,
    from_file: bool,
    read: &dyn Fn(&commandtree_core::SourcedFile) -> Option<String>,
) -> Vec<Finding> {
    if !from_file {
        if extract::is_document(&item.kind) {
            return Vec::new();
        }
        return analyse_below("shell", text, item.below_root);
    }
    match item.kind.as_str() {
        "make" if !item.run_code.is_empty() => make_findings(item, text),
        _ if !item.run_code.is_empty() => library_findings(item),
        "docker" if !starts_containers(item) => Vec::new(),
        kind => match sourced::combine(text, &item.sourced, read) {
            Some(c) if !item.sourced.is_empty() => {
                let found = analyse_with(kind, &c.text, item.below_root, &item.sourced_vars);
                let mut out = Vec::new();
                merge(&mut out, c.map_back(found, &item.sourced));
                sort(&mut out);
                out
            }
            _ => analyse_with(kind, text, item.below_root, &item.sourced_vars),
        },
    }
}

/// What besides its text decides a command's findings: commands whose texts and keys are
/// equal have equal findings, so a caller may analyse such a text once.
pub fn analysis_key(item: &commandtree_core::CommandItem, from_file: bool) -> String {
    let mut key = format!(
        "{}\0{}\0{}",
        item.below_root,
        item.sourced_vars.join(" "),
        analysis_key_of_kind(item, from_file)
    );
    for f in &item.sourced {
        key.push_str(&format!(
            "\0{}\0{}\0{}\0{}",
            f.rel,
            f.from.map_or(0, |i| i + 1),
            f.line,
            f.hash
        ));
    }
    key
}

fn analysis_key_of_kind(item: &commandtree_core::CommandItem, from_file: bool) -> String {
    if !from_file {
        return if extract::is_document(&item.kind) {
            item.kind.clone()
        } else {
            "shell".into()
        };
    }
    match item.kind.as_str() {
        "make" if !item.run_code.is_empty() => {
            let mut key = format!("make\0{}", item.definition_line().unwrap_or(0));
            for c in &item.run_code {
                key.push_str(&format!(
                    "\0{}\0{}\0{}",
                    c.line,
                    c.via.as_deref().unwrap_or(""),
                    c.code
                ));
            }
            key
        }
        "docker" => format!("docker\0{}", starts_containers(item)),
        kind if !item.run_code.is_empty() => {
            let mut key = format!("{kind}\0library");
            for c in &item.run_code {
                key.push_str(&format!("\0{}\0{}", c.via.as_deref().unwrap_or(""), c.code));
            }
            key
        }
        kind => kind.to_string(),
    }
}

/// A task a library defines (`require "bundler/gem_tasks"`: `release`): its own text is the
/// line that loads the library, so what the parser says the library runs for it is read, and
/// told as the library's.
fn library_findings(item: &commandtree_core::CommandItem) -> Vec<Finding> {
    let mut out = Vec::new();
    for piece in &item.run_code {
        let mut found = Vec::new();
        shell::analyse_below(&piece.code, 1, item.below_root, &mut found);
        for f in &mut found {
            f.line = 1;
            if let Some(via) = &piece.via {
                f.reason = format!("{} (as `{via}` defines it)", f.reason);
            }
        }
        merge(&mut out, found);
    }
    sort(&mut out);
    out
}

/// `docker compose up`, `up -d`, `up SERVICE`: the commands that start containers.
fn starts_containers(item: &commandtree_core::CommandItem) -> bool {
    item.label == "up"
        || item.label.starts_with("up ")
        || commandtree_core::sources::docker::is_merged_override(item)
}

/// A make target's recipe as its parser gave it, numbered in `text` (the target's own text,
/// which begins with any comment lines above the rule). What a file prerequisite's recipe does
/// is told as such (`makes `$(LINT)`, which …`).
fn make_findings(item: &commandtree_core::CommandItem, text: &str) -> Vec<Finding> {
    let header = text
        .lines()
        .position(|l| {
            let t = l.trim_start();
            !(t.is_empty() || t.starts_with('#'))
        })
        .unwrap_or(0) as u32;
    let def = item.definition_line().unwrap_or(1);
    let mut out = Vec::new();
    // A file prerequisite's recipe is read as one text: its lines run in shells of their own,
    // but what one leaves on disk the next finds (`curl -o bin/tool …`, then `chmod +x
    // bin/tool`).
    let mut pieces: Vec<commandtree_core::ShellCode> = Vec::new();
    for piece in &item.run_code {
        let code = extract::make_code(&piece.code);
        match pieces.last_mut() {
            Some(last) if piece.via.is_some() && last.via == piece.via => {
                last.code.push('\n');
                last.code.push_str(&code);
            }
            _ => pieces.push(commandtree_core::ShellCode {
                code,
                ..piece.clone()
            }),
        }
    }
    for piece in &pieces {
        let first = match &piece.via {
            None => (piece.line.saturating_sub(def)) + header + 1,
            Some(_) => header + 1,
        };
        let mut found = Vec::new();
        shell::analyse_below(&piece.code, first, item.below_root, &mut found);
        if let Some(via) = &piece.via {
            for f in &mut found {
                f.line = first;
                f.reason = format!("makes `{via}`, which {}", f.reason);
            }
        }
        merge(&mut out, found);
    }
    sort(&mut out);
    out
}
/// The highest level among `findings`.
pub fn level(findings: &[Finding]) -> Option<Level> {
    findings.iter().map(|f| f.level).max()
}

/// The key stored findings are kept under: changes with the type, the command line, the text,
/// whatever else the analyser reads of the command (its label, the code its parser worked
/// out) and the analyser's rules. Lowercase hex SHA-256.
pub fn scan_hash(item: &commandtree_core::CommandItem, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(ANALYSER_VERSION.to_le_bytes());
    let part = |h: &mut Sha256, s: &str| {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    for p in [
        item.kind.as_str(),
        item.command.as_str(),
        text,
        item.label.as_str(),
    ] {
        part(&mut h, p);
    }
    h.update((item.run_code.len() as u64).to_le_bytes());
    for c in &item.run_code {
        part(&mut h, &c.code);
        h.update(c.line.to_le_bytes());
        part(&mut h, c.via.as_deref().unwrap_or(""));
    }
    if let Some(l) = item.definition_line() {
        h.update(l.to_le_bytes());
    }
    h.update(item.below_root.to_le_bytes());
    h.update((item.sourced_vars.len() as u64).to_le_bytes());
    for v in &item.sourced_vars {
        part(&mut h, v);
    }
    h.update((item.sourced.len() as u64).to_le_bytes());
    for f in &item.sourced {
        part(&mut h, &f.rel);
        h.update((f.from.map_or(0, |i| i + 1) as u64).to_le_bytes());
        h.update(f.line.to_le_bytes());
        part(&mut h, &f.hash);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The findings of one discovered command: its own text (`file_text` is the content of its
/// definition file, when it could be read) and, for types whose definition is the command
/// line itself (a VS Code task without a file), that line.
pub fn analyse_item(item: &commandtree_core::CommandItem, file_text: Option<&str>) -> Vec<Finding> {
    match file_text {
        Some(content) => {
            let t = commandtree_core::excerpt::command_text(item, content);
            analyse_command(item, &t.text, true)
        }
        None => analyse_command(item, &item.command, false),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod tests_classes;
