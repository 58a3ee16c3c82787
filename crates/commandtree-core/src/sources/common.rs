//! Helpers several sources share that are about sources rather than text formats: where a file
//! sits in the workspace, following includes safely, the `# @param` comment convention of
//! scripts, and the lines of the items a parser emits.

use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef};
use crate::text;
use std::path::{Path, PathBuf};

// ---- where a file sits ----

/// The file's folder and its ancestors up to and including the workspace root (only the folder
/// itself when it lies outside the root). Lock files, wrappers and workspace markers above the
/// root belong to some other project, so every upward lookup stops there.
pub(crate) fn folders_up<'a>(file: &'a SourceFile<'_>) -> impl Iterator<Item = &'a Path> + 'a {
    let root = file.root;
    let dir = file.dir();
    let inside = dir.starts_with(root);
    std::iter::successors(Some(dir), move |d| {
        if !inside || *d == root {
            None
        } else {
            d.parent()
        }
    })
}

/// The value of the first of `markers` (file name, value) found in the nearest folder up to the
/// workspace root; within one folder the order of `markers` decides. Lock files pick a tool
/// this way.
pub(crate) fn nearest_marker<T: Copy>(file: &SourceFile<'_>, markers: &[(&str, T)]) -> Option<T> {
    folders_up(file).find_map(|dir| {
        markers
            .iter()
            .find(|(name, _)| file.fs.is_file(&dir.join(name)))
            .map(|(_, value)| *value)
    })
}

/// How to call a wrapper script (`gradlew`, `mvnw`) from the file's folder: `./NAME` beside the
/// file, else the relative path to the nearest one up to the workspace root (`../../NAME`).
/// The command then still runs from the file's folder, so the tool builds just that module.
pub(crate) fn wrapper_command(file: &SourceFile<'_>, name: &str) -> Option<String> {
    let up = folders_up(file).position(|dir| file.fs.is_file(&dir.join(name)))?;
    let rel = if up == 0 {
        format!("./{name}")
    } else {
        format!("{}{name}", "../".repeat(up))
    };
    Some(text::sh_word(&rel))
}

// ---- following includes ----

/// Include and import nesting deeper than this is not followed: deep enough for any real chain,
/// small enough to bound the work on a crafted tree.
pub(crate) const MAX_INCLUDE_DEPTH: usize = 8;
/// Files read per root file, so that a tree of repeated includes stays cheap.
pub(crate) const MAX_INCLUDED_FILES: usize = 256;

/// Why an include is not followed.
pub(crate) enum Refusal {
    /// The target is already on the include path.
    Cycle,
    TooDeep,
    /// Over the file budget; `first` is true once, so that the caller warns once.
    TooManyFiles {
        first: bool,
    },
}

/// The limits a source that follows includes through `file.fs` (just, Taskfile) keeps, so that
/// a cycle or a crafted tree of includes cannot make a parse run away.
pub(crate) struct IncludeGuard {
    /// Files on the current include path.
    chain: Vec<PathBuf>,
    files: usize,
}

impl IncludeGuard {
    pub(crate) fn new(root: &Path) -> Self {
        IncludeGuard {
            chain: vec![root.to_path_buf()],
            files: 1,
        }
    }

    /// Whether `target`, included from a file at `depth`, may be read.
    pub(crate) fn check(&mut self, target: &Path, depth: usize) -> Result<(), Refusal> {
        if self.chain.iter().any(|p| p == target) {
            return Err(Refusal::Cycle);
        }
        if depth + 1 > MAX_INCLUDE_DEPTH {
            return Err(Refusal::TooDeep);
        }
        if self.files >= MAX_INCLUDED_FILES {
            let first = self.files == MAX_INCLUDED_FILES;
            if first {
                self.files += 1;
            }
            return Err(Refusal::TooManyFiles { first });
        }
        Ok(())
    }

    /// Counts one file against the budget.
    pub(crate) fn count_file(&mut self) {
        self.files += 1;
    }

    /// Puts `target` on the include path while its own includes are followed.
    pub(crate) fn enter(&mut self, target: &Path) {
        self.chain.push(target.to_path_buf());
    }

    pub(crate) fn leave(&mut self) {
        self.chain.pop();
    }
}

/// `path` with `.` dropped and `..` folded, without asking the file system (parsers only see
/// `Fs`), so that `./a/../x` and `x` compare equal in the cycle check.
pub(crate) fn normalize_path(path: &Path) -> PathBuf {
    crate::fs::lexical(path)
}

/// Steps for the workspace's own scripts that `text` (shell code run in `cwd`) runs: each
/// script is looked up from `cwd`, and with `from_root` then from the workspace root (release
/// scripts are often written to run from there). A script is a step only when it is a file
/// inside the root. A test runner handed a folder (`urchin test/fast`) runs every script there,
/// and so does a loop over a folder's scripts that runs each (`for t in tests/test_*.sh; do
/// bash "$t"; done`).
pub(crate) fn script_steps(
    file: &super::SourceFile<'_>,
    text: &str,
    cwd: &Path,
    from_root: bool,
) -> Vec<crate::model::StepRef> {
    script_steps_of(file, &super::calls::simple_commands(text), cwd, from_root)
}

/// [`script_steps`] of commands already split.
pub(crate) fn script_steps_of(
    file: &super::SourceFile<'_>,
    commands: &[super::calls::Simple],
    cwd: &Path,
    from_root: bool,
) -> Vec<crate::model::StepRef> {
    use crate::model::{StepHow, StepRef, StepScope};
    let mut out: Vec<StepRef> = Vec::new();
    for cmd in commands {
        if !cmd.after_cd {
            for step in super::script_runs::runner_steps(file, cmd, cwd) {
                if !out.contains(&step) {
                    out.push(step);
                }
            }
        }
        let Some(rel) = super::calls::script_call(cmd) else {
            continue;
        };
        let bases: &[&Path] = if from_root { &[cwd, file.root] } else { &[cwd] };
        let found = bases
            .iter()
            .map(|base| normalize_path(&base.join(&rel)))
            .find(|p| p.starts_with(file.root) && p != file.path && file.fs.is_file(p));
        let Some(path) = found else { continue };
        let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let step = StepRef::new(name, StepHow::Call, false).scope(StepScope::File {
            kind: "shell".into(),
            file: path,
        });
        if !out.contains(&step) {
            out.push(step);
        }
    }
    for step in super::script_loops::made_path_steps(file, commands, cwd, from_root) {
        if !out.contains(&step) {
            out.push(step);
        }
    }
    for step in super::script_loops::loop_steps(file, commands, cwd, from_root) {
        if !out.contains(&step) {
            out.push(step);
        }
    }
    out
}

// ---- script comments ----

/// Whether a comment line is licence or copyright boilerplate rather than a description.
pub(crate) fn is_licence_text(comment: &str) -> bool {
    let l = comment.to_ascii_lowercase();
    const MARKERS: &[&str] = &[
        "copyright",
        "(c) ",
        "\u{a9}",
        "spdx-license-identifier",
        "spdx-filecopyrighttext",
        "licensed under",
        "licensed to ",
        "all rights reserved",
        "this file is part of",
        "license, version",
        "permission is hereby granted",
        "this program is free software",
        "this source code is licensed",
        // A licence's own paragraphs, for headers that set them apart with blank lines
        // (containerd's: "Unless required by applicable law or agreed to in writing, software"
        // begins a block of its own).
        "you may not use this file",
        "you may obtain a copy of the license",
        "unless required by applicable law",
        "distributed under the license",
        "without warranties or conditions",
        "limitations under the license",
        "apache.org/licenses/",
        "gnu.org/licenses/",
        "without any warranty",
        "merchantability",
        "redistribution and use in source and binary forms",
    ];
    MARKERS.iter().any(|m| l.contains(m))
}

/// Whether a comment line draws rather than says: a ruler (`####`, `-----`) or a banner's
/// ASCII art (curl's `Project ___| | | |  _ \| |`), more punctuation than letters and digits.
pub(crate) fn is_drawing(comment: &str) -> bool {
    let (mut said, mut drawn) = (0usize, 0usize);
    for ch in comment.chars() {
        if ch.is_alphanumeric() {
            said += 1;
        } else if !ch.is_whitespace() {
            drawn += 1;
        }
    }
    drawn > said
}

/// A ruler of three or more marks (`###...`, `# ***...`): a box around a header closes with one.
fn is_ruler(comment: &str) -> bool {
    comment.chars().count() >= 3
        && comment
            .chars()
            .all(|c| !c.is_alphanumeric() && !c.is_whitespace())
}

/// A usage line with the usage on it (`usage: script/sign <file>`); a bare `Usage:` heads a
/// paragraph that is the usage.
pub(crate) fn is_usage(comment: &str) -> bool {
    comment
        .get(..6)
        .is_some_and(|h| h.eq_ignore_ascii_case("usage:"))
        && !comment[6..].trim().is_empty()
}

/// A bare `Usage:` heading: the usage itself is the paragraph it heads.
pub(crate) fn is_usage_heading(comment: &str) -> bool {
    comment.trim().eq_ignore_ascii_case("usage:")
}

/// A comment that is only a link (`# https://cmake-format.readthedocs.io/...`): a reference,
/// not a description.
pub(crate) fn is_only_a_link(comment: &str) -> bool {
    let mut c = comment.trim();
    // Pointing at where the description is: Homebrew's `Documentation defined in
    // Library/Homebrew/cmd/update.rb`, `See docs/RELEASE.md`.
    let lower = c.to_ascii_lowercase();
    for pointer in [
        "documentation defined in ",
        "documentation is in ",
        "documented in ",
        "see ",
    ] {
        if let Some(target) = lower.strip_prefix(pointer) {
            let target = target.trim().trim_end_matches('.');
            if !target.is_empty()
                && !target.contains(char::is_whitespace)
                && target.contains(['/', '.'])
            {
                return true;
            }
        }
    }
    // Named as a reference: `ref: <https://...>`, `See https://...`.
    if let Some((head, rest)) = c.split_once(char::is_whitespace)
        && (head.ends_with(':') && head.len() <= 8 || head.eq_ignore_ascii_case("see"))
    {
        c = rest.trim();
    }
    let c = c.trim_start_matches('<').trim_end_matches('>');
    (c.starts_with("https://") || c.starts_with("http://")) && !c.contains(char::is_whitespace)
}

/// The sentence a description's first line begins, when it runs on into the next lines of its
/// comment or docstring (`next`: each following line's text, `None` past the block): a line
/// ending mid-sentence (a comma, a word such as "the" or "to") or followed by one starting in
/// lower case is continued ("Builds and installs cni plugins to /opt/cni/bin," + "and create
/// basic cni config in /etc/cni/net.d."), up to [`SENTENCE_LINES`] lines. A line ending with
/// a full stop, an empty line, a directive or a usage line ends it.
pub(crate) fn sentence_on<'a>(
    first: &str,
    next: impl IntoIterator<Item = Option<&'a str>>,
) -> String {
    let mut out = first.trim().to_string();
    // A first sentence ended on the first line ("Script to build release-archives with. Note
    // that this requires a checkout"): the line is read as before.
    if sentence_end(&out).is_some() {
        return out;
    }
    // Lines written all in lower case are each their own ("hack script for running a kind e2e"
    // + "must be run with a kubernetes checkout"): only a capital's sentence runs on into one.
    let capital = out.chars().next().is_some_and(char::is_uppercase);
    for line in next.into_iter().take(SENTENCE_LINES - 1) {
        let Some(line) = line.map(str::trim) else {
            break;
        };
        let ends = out.ends_with(['.', '!', '?', ':', ';']);
        let lower = capital && line.chars().next().is_some_and(char::is_lowercase);
        let usage = line
            .get(..5)
            .is_some_and(|h| h.eq_ignore_ascii_case("usage") || h.eq_ignore_ascii_case("examp"));
        if ends
            || line.is_empty()
            || line.starts_with('@')
            || usage
            || is_drawing(line)
            || !(lower || runs_on(&out))
        {
            break;
        }
        out.push(' ');
        if let Some(end) = sentence_end(line) {
            out.push_str(&line[..end]);
            break;
        }
        out.push_str(line);
    }
    out
}

/// Where a sentence ends inside `line`, another beginning after it: just past its `.`, `!` or
/// `?`.
fn sentence_end(line: &str) -> Option<usize> {
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?')
            && chars.peek().is_some_and(|(_, n)| n.is_whitespace())
            && line[i + 1..]
                .trim_start()
                .chars()
                .next()
                .is_some_and(char::is_uppercase)
        {
            return Some(i + 1);
        }
    }
    None
}

/// The lines of a block that `close` ends (a docstring's quotes, a PowerShell help block's
/// `#>`): each line up to and with the one holding `close`, that one cut before it.
pub(crate) fn up_to_close<'a>(
    lines: impl Iterator<Item = &'a str>,
    close: &'a str,
) -> impl Iterator<Item = &'a str> {
    let mut closed = false;
    lines.map_while(move |line| {
        if closed {
            return None;
        }
        Some(match line.split_once(close) {
            Some((inner, _)) => {
                closed = true;
                inner
            }
            None => line,
        })
    })
}

/// How many lines a description's sentence may run over.
const SENTENCE_LINES: usize = 3;

/// Whether a line stops mid-sentence: on a comma or a word a sentence does not end with.
fn runs_on(line: &str) -> bool {
    const OPEN: &[&str] = &[
        "the", "a", "an", "to", "of", "and", "or", "for", "with", "in", "on", "from", "by", "into",
        "that", "which", "as", "at", "its", "their", "is", "are",
    ];
    line.ends_with([',', '-', '(']) || {
        let last = line.rsplit(char::is_whitespace).next().unwrap_or("");
        OPEN.iter().any(|w| last.eq_ignore_ascii_case(w))
    }
}

/// Follows a script's leading comments and says which belong to a licence or copyright header:
/// from a line with a licence marker to the end of that comment block (a blank line, code, or
/// the ruler closing a boxed header), so the text of the licence (`you may not use this
/// file...`) is skipped with it. A banner's drawing before the licence is skipped too.
#[derive(Default)]
pub(crate) struct LicenceHeader {
    inside: bool,
}

impl LicenceHeader {
    /// `comment` is the line's comment text (its own marks kept, so a `####` ruler is seen),
    /// `None` for a blank line or code. True = skip it.
    pub(crate) fn skip(&mut self, comment: Option<&str>) -> bool {
        match comment {
            None => {
                self.inside = false;
                false
            }
            Some(c) if is_licence_text(c) => {
                self.inside = true;
                true
            }
            Some(c) if self.inside && is_ruler(c) => {
                self.inside = false;
                true
            }
            Some(c) => self.inside || is_drawing(c),
        }
    }
}

/// The interpreter named by a `#!` first line, as (program basename, arguments). `env` is looked
/// through, including `env -S prog args` and `env VAR=x prog`.
pub(crate) fn shebang(content: &str) -> Option<(&str, Vec<&str>)> {
    let first = content.lines().next()?;
    let rest = first.strip_prefix("#!")?;
    let mut words = rest.split_whitespace();
    let prog = words.next()?;
    let name = prog.rsplit('/').next().unwrap_or(prog);
    let args: Vec<&str> = words.collect();
    if name != "env" {
        return (!name.is_empty()).then_some((name, args));
    }
    let idx = args
        .iter()
        .position(|w| !w.starts_with('-') && !w.contains('='))?;
    let prog = args[idx];
    let name = prog.rsplit('/').next().unwrap_or(prog);
    let rest = args.get(idx + 1..).unwrap_or(&[]).to_vec();
    (!name.is_empty()).then_some((name, rest))
}

/// The text after `tag` (trimmed) when `line` is a `# @tag ...` comment (`#@tag`, `## @tag`
/// too) and the tag ends at whitespace or the line end. Only the line itself is looked at: a
/// bare `# @param name` never takes the next line as its description.
pub(crate) fn tag_comment<'a>(line: &'a str, tag: &str) -> Option<&'a str> {
    let body = line.trim_start().strip_prefix('#')?;
    let rest = body
        .trim_start_matches('#')
        .trim_start()
        .strip_prefix(tag)?;
    if rest.is_empty() || rest.starts_with(char::is_whitespace) {
        Some(rest.trim())
    } else {
        None
    }
}

/// The `# @param` comments' parameters, the first of a repeated name winning (shell and Ruby
/// scripts; Python merges them with argparse's by offset).
pub(crate) fn first_params(content: &str) -> Vec<ParamDef> {
    let mut seen = std::collections::HashSet::new();
    param_comments(content)
        .map(|(_, p)| p)
        .filter(|p| seen.insert(p.name.clone()))
        .collect()
}

/// Every `# @param name text (default: x) (options: a, b)` comment of a script, with the byte
/// offset of its line, in file order. Shell, Python and PowerShell scripts share the
/// convention; each source decides which of a repeated name wins.
pub(crate) fn param_comments(content: &str) -> impl Iterator<Item = (usize, ParamDef)> + '_ {
    let mut offset = 0;
    content.split('\n').filter_map(move |line| {
        let at = offset;
        offset += line.len() + 1;
        tag_comment(line, "@param")
            .and_then(param_from_comment)
            .map(|p| (at, p))
    })
}

/// `name text (default: x) (options: a, b)` into a parameter. `None` when there is no usable
/// name.
fn param_from_comment(rest: &str) -> Option<ParamDef> {
    let rest = rest.trim();
    let (name, text) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    // `# @param env: Target env` and PowerShell's `# @param $Env ...` name the same parameter.
    let name = name.trim_start_matches('$').trim_end_matches(':');
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return None;
    }
    let (text, options) = text::split_options(text);
    let (text, default) = text::split_default(&text);
    let mut p = ParamDef::new(name).with_description(text);
    p.default = default;
    p.options = options;
    Some(p)
}

// ---- items ----

/// What a source that makes one command per file (scripts, Markdown, Dockerfiles) returns.
pub(crate) fn one_command(item: CommandItem) -> Parsed {
    Parsed {
        commands: vec![item],
        warnings: Vec::new(),
    }
}

/// Sets the line when the source knows it; `CommandItem::line` takes a plain number.
pub(crate) fn with_line(item: CommandItem, line: Option<usize>) -> CommandItem {
    match line {
        Some(l) => item.line(l),
        None => item,
    }
}

/// The index of the bracket that closes the `(` or `{` at `chars[at]` (nested pairs counted),
/// or `chars.len()` when none does: the end of a `$(…)`/`${…}` reference.
pub(crate) fn closing_bracket(chars: &[char], at: usize) -> usize {
    let (open, close) = if chars[at] == '(' {
        ('(', ')')
    } else {
        ('{', '}')
    };
    let mut depth = 0usize;
    let mut j = at;
    while j < chars.len() {
        if chars[j] == open {
            depth += 1;
        } else if chars[j] == close {
            depth -= 1;
            if depth == 0 {
                break;
            }
        }
        j += 1;
    }
    j
}

/// What a tool's bare run (`tox`, `nox`) does: its default list, or `otherwise` without one.
pub(crate) fn runs_defaults(noun: &str, defaults: &[String], otherwise: &str) -> String {
    if defaults.is_empty() {
        otherwise.to_string()
    } else {
        format!(
            "Run the default {noun}: {}",
            crate::text::truncate(&defaults.join(", "), 80)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_description_is_the_sentence_its_first_line_begins() {
        let on = |first: &str, rest: &[&str]| sentence_on(first, rest.iter().map(|l| Some(*l)));
        // Run on past a comma or an open word, or into a line starting in lower case; cut where
        // the sentence ends.
        assert_eq!(
            on(
                "Sort the libs found in libcurl.pc and curl-config files,",
                &[
                    "then diff the generated ones. Exits 1 on a difference.",
                    "more"
                ]
            ),
            "Sort the libs found in libcurl.pc and curl-config files, then diff the generated ones."
        );
        assert_eq!(
            on(
                "Regenerates ground-truth.json after seeding the",
                &["scale preset"]
            ),
            "Regenerates ground-truth.json after seeding the scale preset"
        );
        // A sentence already ended, a heading followed by another, a usage line: not joined.
        assert_eq!(
            on("Build the docs.", &["and serve them"]),
            "Build the docs."
        );
        assert_eq!(
            on(
                "Script to build archives with. Note that this needs a",
                &["checkout from git"]
            ),
            "Script to build archives with. Note that this needs a"
        );
        assert_eq!(
            on("Build the project", &["Usage: ./build.sh"]),
            "Build the project"
        );
        assert_eq!(
            on("Build the project", &["usage: ./build.sh"]),
            "Build the project"
        );
        assert_eq!(on("Build the", &[""]), "Build the");
        // At most three lines.
        assert_eq!(on("A and", &["b and", "c and", "d"]), "A and b and c and");
        // Lines all in lower case are each their own, unless one ends mid-sentence.
        assert_eq!(
            on(
                "hack script for running a kind e2e",
                &["must be run from a checkout"]
            ),
            "hack script for running a kind e2e"
        );
        assert_eq!(
            on("`dwr` - delete workflow runs", &["ref: <https://x>"]),
            "`dwr` - delete workflow runs"
        );
        assert_eq!(
            on("run the tests with", &["coverage"]),
            "run the tests with coverage"
        );
        // Past the comment block: nothing more.
        assert_eq!(
            sentence_on("Install the", [None, Some("tools")]),
            "Install the"
        );
    }

    #[test]
    fn shebang_parsing() {
        assert_eq!(shebang("#!/bin/bash -x\n"), Some(("bash", vec!["-x"])));
        assert_eq!(
            shebang("#!/usr/bin/env -S zsh -f"),
            Some(("zsh", vec!["-f"]))
        );
        assert_eq!(shebang("#!/usr/bin/env"), None);
        assert_eq!(shebang("# no"), None);
    }
}
