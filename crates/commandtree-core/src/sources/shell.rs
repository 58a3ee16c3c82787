//! Shell scripts (`.sh`, `.bash`, `.zsh`, and extensionless executables whose shebang names a
//! shell): one command per file, with parameters and a description from header comments.
//!
//! Parameters come from `# @param name text (default: x) (options: a, b)` comments, the
//! convention Python and PowerShell scripts share (see `common::param_comments`).

use super::calls::simple_commands;
use super::common::{
    LicenceHeader, is_drawing, is_only_a_link, one_command, script_steps_of, sentence_on, shebang,
    tag_comment,
};
use super::script_loops::is_name;
use super::script_runs::sibling_steps;
use super::sourcing::sourced;
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::text;

pub const KIND: &str = "shell";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let content = file.content;
    let name = &*file.file_name();
    // Build-tool wrappers: their tasks are listed under Gradle and Maven.
    if matches!(name, "gradlew" | "mvnw") {
        return Parsed::default();
    }
    // A library of functions does nothing run: it is sourced, not a command.
    if only_defines(content) {
        return Parsed::default();
    }
    let path = text::quote_path(file.path);
    // An executable script runs through its own shebang; otherwise the interpreter has to be named,
    // or the shell would refuse to run it ("permission denied").
    let command = if file.executable {
        path
    } else {
        format!("{} {path}", interpreter(content, name))
    };
    let mut item = CommandItem::new(KIND, file.path, name, command)
        .params(super::common::first_params(content))
        .opt_description(description(content));
    // The project's scripts it runs are steps: their warnings are its own.
    let commands = simple_commands(content);
    item.steps = script_steps_of(file, &commands, file.dir(), true);
    for step in sibling_steps(file, &commands) {
        if !item.steps.contains(&step) {
            item.steps.push(step);
        }
    }
    let sourced = sourced(file, content);
    item.sourced_vars = sourced.vars;
    item.sourced = sourced.files;
    one_command(item)
}

/// Whether a script only defines: functions (one at least), variables, shell options and the
/// files it sources, with nothing run at its top level. Run, it would do nothing; it is
/// sourced by others (Homebrew's `Library/Homebrew/utils/*.sh`, a project's `scripts/lib.sh`).
/// Read line by line: a function's body is skipped by its braces (outside quotes, `${…}` and
/// here-documents); anything else at the top level, or anything not understood, is a script.
fn only_defines(content: &str) -> bool {
    let mut depth = 0usize;
    let mut functions = 0usize;
    let mut continued = false;
    let mut heredoc: Option<String> = None;
    let mut awaiting_body = false;
    for line in content.lines() {
        let t = line.trim();
        if let Some(end) = &heredoc {
            if t == end {
                heredoc = None;
            }
            continue;
        }
        let was_continued = continued;
        continued = t.ends_with('\\');
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let code = structural(t);
        heredoc = heredoc_end(&code);
        let (opens, closes) = (code.matches('{').count(), code.matches('}').count());
        if depth > 0 || awaiting_body {
            if awaiting_body && !code.starts_with('{') {
                return false;
            }
            awaiting_body = false;
            match (depth + opens).checked_sub(closes) {
                Some(d) => depth = d,
                None => return false,
            }
            continue;
        }
        if was_continued {
            continue;
        }
        if heredoc.is_some() {
            return false;
        }
        if super::script_runs::function_defined(t).is_some() {
            functions += 1;
            // `name() (` runs its body in a subshell, to the line closing it.
            if code.trim_end().ends_with('(') {
                return false;
            }
            if opens == 0 {
                awaiting_body = true;
            }
            match opens.checked_sub(closes) {
                Some(d) => depth = d,
                None => return false,
            }
            continue;
        }
        if !is_definition(t) {
            return false;
        }
    }
    functions > 0 && depth == 0 && heredoc.is_none() && !awaiting_body
}

/// A line without its quoted strings, `${…}` expansions and comment: the braces left are the
/// shell's own.
fn structural(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '\'' => {
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    match c {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '$' if chars.peek() == Some(&'{') => {
                let mut depth = 0usize;
                for c in chars.by_ref() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            '#' if out.is_empty() || out.ends_with(char::is_whitespace) => break,
            _ => out.push(c),
        }
    }
    out
}

/// The word ending a here-document this line opens (`cat <<EOF`, `<<-'END'`).
fn heredoc_end(code: &str) -> Option<String> {
    let at = code.find("<<")?;
    let rest = code[at + 2..].trim_start_matches('-').trim_start();
    // `<<<` is a here-string, on its line.
    if rest.starts_with('<') {
        return None;
    }
    let word: String = rest
        .trim_start_matches(['\'', '"'])
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!word.is_empty()).then_some(word)
}

/// A top-level line that only defines: a variable (not one set for a command after it), an
/// option, an alias, a file sourced, `: "${X:=default}"`.
fn is_definition(t: &str) -> bool {
    const DEFINING: &[&str] = &[
        "export ",
        "readonly ",
        "declare ",
        "typeset ",
        "local ",
        "unset ",
        "set ",
        "shopt ",
        "setopt ",
        "alias ",
        "source ",
        ". ",
        ": ",
        "unalias ",
        "emulate ",
    ];
    if DEFINING.iter().any(|d| t.starts_with(d)) {
        return true;
    }
    let name_end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    if !is_name(&t[..name_end]) {
        return false;
    }
    let after = &t[name_end..];
    let Some(value) = after.strip_prefix("+=").or_else(|| after.strip_prefix('=')) else {
        return false;
    };
    // The value, then nothing but a `;` or a comment: `X=1 make` runs make.
    let rest = structural(value);
    let rest = rest.trim();
    let rest = match rest.strip_prefix("$(").or_else(|| rest.strip_prefix('(')) {
        Some(_) => rest.rfind(')').map_or("", |i| &rest[i + 1..]),
        None => rest.split_once(char::is_whitespace).map_or("", |(_, r)| r),
    };
    rest.trim().trim_start_matches(';').trim().is_empty()
}

/// The interpreter command for a non-executable script: the shebang's program (basename) and its
/// options, else one inferred from the extension.
fn interpreter(content: &str, file_name: &str) -> String {
    if let Some((prog, args)) = shebang(content) {
        let mut words = vec![text::sh_word(prog)];
        words.extend(args.iter().map(|a| text::sh_word(a)));
        return words.join(" ");
    }
    if file_name.ends_with(".zsh") {
        "zsh".to_string()
    } else {
        "bash".to_string()
    }
}

/// `# @description text` anywhere in the header wins; otherwise the first real comment after the
/// shebang, stopping at the first line of code. A usage line first (`# usage: script/sign
/// <file>`) gives way to the prose paragraph after it in the same comment block, when there is
/// one: that says what the script does.
fn description(content: &str) -> Option<String> {
    if let Some(d) = content.lines().find_map(tagged_description) {
        return Some(d);
    }
    let mut licence = LicenceHeader::default();
    let mut lines = content.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.starts_with("#!") {
            continue;
        }
        if licence.skip(t.strip_prefix('#').map(str::trim)) || t.is_empty() || is_shell_setup(t) {
            continue;
        }
        let comment = comment_text(t)?;
        if comment.starts_with('@') || is_noise_comment(comment) {
            continue;
        }
        if is_note_on_next_line(comment, lines.clone()) {
            // Past the rest of its block: the line below is code.
            while lines
                .clone()
                .next()
                .is_some_and(|l| comment_text(l.trim()).is_some())
            {
                lines.next();
            }
            continue;
        }
        if super::common::is_usage(comment)
            && let Some(prose) = paragraph_after(&mut lines)
        {
            return Some(prose.to_string());
        }
        if super::common::is_usage_heading(comment) {
            // Caddy's `setcap.sh`: "USAGE:", the usage indented below, then "(Example: …)";
            // where the usage ends is not written, so nothing after it is taken either.
            return None;
        }
        return Some(sentence_on(
            comment,
            lines.map(|l| comment_text(l.trim()).filter(|c| !is_noise_comment(c))),
        ));
    }
    None
}

/// Whether the comment block starting with `first` (its other lines in `rest`, then the code)
/// explains the line right below it rather than the script: the variable it sets (uutils'
/// "Use GNU version for realpath on *BSD" over `REALPATH=…`, Kafka's "The version of Kibosh to
/// use for testing." over `export KIBOSH_VERSION=…`: every part of the name is in the
/// comment), or the shell option it sets ("Exit on any failures" over `set +x`). A header's
/// sentence over `set -e` is still the description.
fn is_note_on_next_line<'a>(first: &str, rest: impl Iterator<Item = &'a str>) -> bool {
    let mut said = first.to_ascii_lowercase();
    let mut below = None;
    for line in rest {
        let t = line.trim();
        match comment_text(t) {
            // A note is a line or two; a header of paragraphs says what the script does.
            Some(c) if c.is_empty() || said.len() > first.len() => return false,
            Some(c) => {
                said.push(' ');
                said.push_str(&c.to_ascii_lowercase());
            }
            None => {
                below = Some(t);
                break;
            }
        }
    }
    let Some(below) = below.filter(|b| !b.is_empty()) else {
        return false;
    };
    if is_shell_setup(below) {
        return ["exit", "fail", "error", "abort", "debug", "trace"]
            .iter()
            .any(|w| said.contains(w));
    }
    let assigned = below
        .strip_prefix("export ")
        .or_else(|| below.strip_prefix("readonly "))
        .or_else(|| below.strip_prefix("local "))
        .unwrap_or(below)
        .trim_start()
        .split_once('=')
        .map(|(name, _)| name)
        .filter(|n| is_name(n));
    let Some(name) = assigned else {
        return false;
    };
    let parts: Vec<String> = name
        .split('_')
        .filter(|p| p.len() >= 3)
        .map(str::to_ascii_lowercase)
        .collect();
    !parts.is_empty() && parts.iter().all(|p| said.contains(p.as_str()))
}

fn comment_text(line: &str) -> Option<&str> {
    line.strip_prefix('#')
        .map(|c| c.trim_start_matches('#').trim())
}

/// The first line of the next paragraph of the comment block `lines` is in: after an empty
/// comment line, before a blank line or code.
fn paragraph_after<'a>(lines: &mut impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut after_break = false;
    for line in lines {
        let c = comment_text(line.trim())?;
        if c.is_empty() {
            after_break = true;
        } else if after_break && !is_noise_comment(c) {
            return Some(c);
        }
    }
    None
}

/// Option lines scripts open with (`set -euo pipefail`, `shopt -s nullglob`): not the end of
/// the header a description may follow.
fn is_shell_setup(line: &str) -> bool {
    ["set -", "set +", "shopt ", "setopt ", "emulate "]
        .iter()
        .any(|p| line.starts_with(p))
}

fn tagged_description(line: &str) -> Option<String> {
    let d = tag_comment(line, "@description")?;
    (!d.is_empty()).then(|| d.to_string())
}

/// Comment lines that are not prose: rulers (`# -----`), linter and editor directives.
fn is_noise_comment(comment: &str) -> bool {
    const DIRECTIVES: &[&str] = &[
        "shellcheck ",
        "shellcheck:",
        "vim:",
        "vi:",
        "-*-",
        "shfmt:",
        "compdef",
        // cspell's word lists.
        "spell-checker:",
        "cspell:",
    ];
    !comment.chars().any(char::is_alphanumeric)
        || is_drawing(comment)
        || is_only_a_link(comment)
        || is_code(comment)
        || is_variable_note(comment)
        || DIRECTIVES.iter().any(|d| comment.starts_with(d))
}

/// A note on where the script's variables come from (Homebrew's "HOMEBREW_LIBRARY is set by
/// bin/brew", "HOMEBREW_OPT and HOMEBREW_SDKROOT are set by extend/ENV/super.rb"): about the
/// line below it, not what the script does.
fn is_variable_note(comment: &str) -> bool {
    let mut words = comment.split_whitespace().peekable();
    let mut names = 0;
    while let Some(w) = words.next_if(|w| {
        let name = w.trim_matches(['`', '$', ',', '{', '}']);
        *w == "and"
            || name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '*')
                && name.chars().any(|c| c.is_ascii_uppercase())
    }) {
        names += usize::from(w != "and");
    }
    // A line only of names: a list of variables, whose note goes on below.
    if names >= 2 && words.peek().is_none() {
        return true;
    }
    // `HOMEBREW_*` variables are set by brew.sh; HOMEBREW_LIBRARY is from the user environment.
    words.next_if(|w| matches!(*w, "variables" | "variable"));
    names > 0
        && matches!(words.next(), Some("is" | "are"))
        && matches!(
            words.next(),
            Some("set" | "defined" | "exported" | "provided" | "from")
        )
}

/// A line of code commented out (`ME_dir="$(dirname -- "${ME}")"`, `cp /etc/ssl/openssl.cnf .`):
/// an assignment, or a common program called with a flag, a path or a variable.
fn is_code(comment: &str) -> bool {
    const PROGRAMS: &[&str] = &[
        "cp", "mv", "rm", "cd", "ln", "export", "mkdir", "sudo", "source", "exec", "curl", "wget",
        "git", "make", "docker", "npm", "go", "cargo", "python", "python3", "pip", "echo",
        "openssl", "chmod", "tar",
    ];
    let mut words = comment.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let assignment = first.split_once('=').is_some_and(|(name, _)| is_name(name));
    assignment
        || (PROGRAMS.contains(&first)
            && words.any(|w| w.starts_with(['-', '/', '$', '.']) || w.contains('=')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::model::ParamDef;
    use crate::sources::testing::{labels, parse_in, parse_with};

    fn one(path: &str, content: &str) -> CommandItem {
        let p = parse_with(parse, path, content);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.commands.len(), 1);
        p.commands.into_iter().next().unwrap()
    }

    fn exe(path: &str, content: &str) -> CommandItem {
        let p = parse_in(parse, &MemFs::new().exe(path, content), path);
        p.commands.into_iter().next().unwrap()
    }

    fn param(name: &str, desc: Option<&str>, default: Option<&str>) -> ParamDef {
        ParamDef {
            name: name.into(),
            description: desc.map(Into::into),
            default: default.map(Into::into),
            ..Default::default()
        }
    }

    const BUILD_SH: &str = "#!/bin/bash\n\
        # Build the project with optional configuration\n\
        # @param config Build configuration (default: debug)\n\
        # @param verbose Enable verbose output\n\
        \n\
        set -euo pipefail\n\
        CONFIG=${1:-debug}\n\
        echo \"Building $CONFIG\"\n";

    #[test]
    fn upstream_build_fixture() {
        let c = exe("/w/scripts/build.sh", BUILD_SH);
        assert_eq!(c.id, "shell:/w/scripts/build.sh:build.sh");
        assert_eq!(c.label, "build.sh");
        assert_eq!(c.kind, "shell");
        assert_eq!(c.command, "\"/w/scripts/build.sh\"");
        assert_eq!(c.cwd, "/w/scripts");
        assert_eq!(c.file_path, "/w/scripts/build.sh");
        assert_eq!(
            c.description.as_deref(),
            Some("Build the project with optional configuration")
        );
        assert_eq!(
            c.params,
            vec![
                param("config", Some("Build configuration"), Some("debug")),
                param("verbose", Some("Enable verbose output"), None),
            ]
        );
        assert_eq!(c.category, "");
    }

    #[test]
    fn executable_path_with_spaces_and_dollar_is_one_word() {
        let c = exe("/w/scripts/deploy prod$1.sh", "#!/bin/sh\necho hi\n");
        assert_eq!(c.command, "\"/w/scripts/deploy prod\\$1.sh\"");
        assert_eq!(c.label, "deploy prod$1.sh");
    }

    #[test]
    fn non_executable_runs_through_shebang_interpreter() {
        assert_eq!(
            one("/w/x.sh", "#!/bin/sh\necho\n").command,
            "sh \"/w/x.sh\""
        );
        assert_eq!(
            one("/w/x.sh", "#!/usr/bin/env zsh\n").command,
            "zsh \"/w/x.sh\""
        );
        assert_eq!(
            one("/w/x.sh", "#!/usr/bin/env -S bash -eu\n").command,
            "bash -eu \"/w/x.sh\""
        );
        assert_eq!(
            one("/w/x.sh", "#! /bin/bash -e\n").command,
            "bash -e \"/w/x.sh\""
        );
        assert_eq!(
            one("/w/x.sh", "#!/usr/bin/env LC_ALL=C dash\n").command,
            "dash \"/w/x.sh\""
        );
    }

    #[test]
    fn non_executable_without_shebang_uses_extension() {
        assert_eq!(one("/w/a b/x.sh", "echo\n").command, "bash \"/w/a b/x.sh\"");
        assert_eq!(one("/w/x.bash", "echo\n").command, "bash \"/w/x.bash\"");
        assert_eq!(one("/w/x.zsh", "echo\n").command, "zsh \"/w/x.zsh\"");
        // A bare `#!` names nothing.
        assert_eq!(one("/w/x.zsh", "#!\necho\n").command, "zsh \"/w/x.zsh\"");
    }

    #[test]
    fn extensionless_executable_keeps_its_name() {
        let c = exe("/w/bin/release", "#!/usr/bin/env bash\n# Cut a release\n");
        assert_eq!(c.id, "shell:/w/bin/release:release");
        assert_eq!(c.label, "release");
        assert_eq!(c.command, "\"/w/bin/release\"");
        assert_eq!(c.cwd, "/w/bin");
        assert_eq!(c.description.as_deref(), Some("Cut a release"));
    }

    #[test]
    fn bare_param_does_not_swallow_next_line() {
        // Upstream regression: `\s+` crossed the newline and made `echo hi` the description.
        let c = one("/w/x.sh", "#!/bin/bash\n# @param foo\necho hi\n");
        assert_eq!(c.params, vec![param("foo", None, None)]);
        let c = one("/w/x.sh", "# @param foo   \n# @param bar Bar value\n");
        assert_eq!(
            c.params,
            vec![
                param("foo", None, None),
                param("bar", Some("Bar value"), None)
            ]
        );
    }

    #[test]
    fn param_options_and_default() {
        let c = one(
            "/w/deploy.sh",
            "#!/bin/bash\n# @param env Target environment (options: dev, staging, prod) (default: dev)\n",
        );
        assert_eq!(
            c.params,
            vec![ParamDef {
                name: "env".into(),
                description: Some("Target environment".into()),
                default: Some("dev".into()),
                options: vec!["dev".into(), "staging".into(), "prod".into()],
                ..Default::default()
            }]
        );
    }

    #[test]
    fn options_marker_is_case_insensitive_and_needs_a_close() {
        let c = one(
            "/w/x.sh",
            "# @param mode Mode (OPTIONS: a|b) to use\n# @param z Z (options: a, b\n",
        );
        assert_eq!(c.params[0].options, vec!["a", "b"]);
        assert_eq!(c.params[0].description.as_deref(), Some("Mode to use"));
        assert!(c.params[1].options.is_empty());
        assert_eq!(c.params[1].description.as_deref(), Some("Z (options: a, b"));
    }

    #[test]
    fn upstream_spec_example_parens_stay_in_description() {
        let c = one(
            "/w/x.sh",
            "#!/bin/bash\n# @param environment Target environment (staging, production)\n# @param verbose Enable verbose output (default: false)\n",
        );
        assert_eq!(
            c.params,
            vec![
                param(
                    "environment",
                    Some("Target environment (staging, production)"),
                    None
                ),
                param("verbose", Some("Enable verbose output"), Some("false")),
            ]
        );
    }

    #[test]
    fn param_spellings() {
        let c = one(
            "/w/x.sh",
            "#@param a A\n## @param b: B\n  # @param c C\n# @params d D\n# @param $e E\n# @param {x} bad\n# @param a again\n",
        );
        let names: Vec<&str> = c.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, vec!["a", "b", "c", "e"]);
        assert_eq!(c.params[0].description.as_deref(), Some("A"));
        assert_eq!(c.params[1].description.as_deref(), Some("B"));
    }

    #[test]
    fn empty_default_is_none() {
        let c = one("/w/x.sh", "# @param tag Image tag (default: )\n");
        assert_eq!(c.params, vec![param("tag", Some("Image tag"), None)]);
    }

    #[test]
    fn description_skips_licence_headers_directives_and_set_e() {
        let c = one(
            "/w/x.sh",
            "#!/usr/bin/env bash\n# Copyright 2021 The Authors.\n#\n# Licensed under the Apache License, Version 2.0 (the \"License\");\n# you may not use this file except in compliance with the License.\n\n# shellcheck disable=SC2034\nset -euo pipefail\n\n# Build release archives\nmake dist\n",
        );
        assert_eq!(c.description.as_deref(), Some("Build release archives"));
        let c = one(
            "/w/y.sh",
            "#!/bin/sh\n# SPDX-License-Identifier: MIT\nset -e\n# Start the dev server\n",
        );
        assert_eq!(c.description.as_deref(), Some("Start the dev server"));
        let c = one("/w/z.sh", "#!/bin/sh\n# Copyright (c) 2020 X\necho hi\n");
        assert_eq!(c.description, None);
        // Code commented out is not a description.
        let c = one(
            "/w/logs.sh",
            "#!/bin/sh\n# ME=\"${0}\"\n# ME_dir=\"$(dirname -- \"${ME}\")\"\n# cp /etc/ssl/openssl.cnf .\n\n# Delete the old workflow logs\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some("Delete the old workflow logs")
        );
        let c = one(
            "/w/gha.sh",
            "#!/bin/sh\n# ref: <https://stackoverflow.com/questions/57927115/x>\n# See https://example.com/a\n\n# Delete the old workflow logs\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some("Delete the old workflow logs")
        );
        assert!(!is_code("Make sure the binary is built first"));
        assert!(!is_code("Run git bisect over the range"));
        // cspell's word lists are directives too.
        let c = one(
            "/w/show-utils.sh",
            "#!/bin/sh\n\n# spell-checker:ignore (shell) OSTYPE\n# spell-checker:ignore (jq) deps\n\n# Show the utilities\n\nREALPATH=x\n",
        );
        assert_eq!(c.description.as_deref(), Some("Show the utilities"));
    }

    /// containerd's header: the Apache licence in paragraphs set apart by blank lines, each
    /// one licence text, then the description.
    #[test]
    fn description_skips_a_licence_in_paragraphs() {
        let c = one(
            "/w/install-cni",
            "#!/usr/bin/env bash\n\n#   Copyright The containerd Authors.\n\n#   Licensed under the Apache License, Version 2.0 (the \"License\");\n#   you may not use this file except in compliance with the License.\n#   You may obtain a copy of the License at\n\n#       http://www.apache.org/licenses/LICENSE-2.0\n\n#   Unless required by applicable law or agreed to in writing, software\n#   distributed under the License is distributed on an \"AS IS\" BASIS,\n#   WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.\n#   See the License for the specific language governing permissions and\n#   limitations under the License.\n\n#\n# Builds and installs cni plugins to /opt/cni/bin,\n# and create basic cni config in /etc/cni/net.d.\nset -eu\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some(
                "Builds and installs cni plugins to /opt/cni/bin, and create basic cni config in /etc/cni/net.d."
            )
        );
    }

    /// curl's header: a banner drawn in ASCII, the licence, a ruler closing the box, and the
    /// description after it in the same comment block.
    const CURL_HEADER: &str = "#!/bin/sh\n#***************************************************************************\n#                                  _   _ ____  _\n#  Project                     ___| | | |  _ \\| |\n#                             / __| | | | |_) | |\n#\n# Copyright (C) Daniel Stenberg, <daniel@haxx.se>, et al.\n#\n# This software is licensed as described in the file COPYING, which\n#\n# SPDX-License-Identifier: curl\n#\n###########################################################################\n";

    #[test]
    fn description_skips_a_drawn_banner_and_ends_a_licence_at_its_closing_ruler() {
        let c = one(
            "/w/verify-release",
            &format!("{CURL_HEADER}# This script remakes a provided curl release\n#\nset -eu\n"),
        );
        assert_eq!(
            c.description.as_deref(),
            Some("This script remakes a provided curl release")
        );
        let c = one(
            "/w/coverage.sh",
            &format!("{CURL_HEADER}\nset -eu\nautoreconf -fi\n"),
        );
        assert_eq!(c.description, None);
        // The same box drawn with `# *` sides.
        let c = one(
            "/w/db2pem.sh",
            "#!/bin/sh\n# ***********\n# *  Project     ___| | | |  _ \\| |\n# *\n# * Copyright (C) Someone\n# *\n# ***********\n# This shell script creates a fresh ca-bundle.crt file\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some("This shell script creates a fresh ca-bundle.crt file")
        );
        // Nor a note on the line below it: the variable it sets, the shell option.
        for script in [
            "#!/bin/bash\n\n# Use GNU version for realpath on *BSD\nREALPATH=$(command -v grealpath)\n",
            "set -ex\n\n# The version of Kibosh to use for testing.\n# If you update this, also \
             update tests/docker/Dockerfile\nexport KIBOSH_VERSION=8841dd3\n",
            "#!/bin/bash\n\n# Exit on any failures\nset +x\n\ncargo build\n",
        ] {
            assert_eq!(one("/w/a.sh", script).description, None, "{script}");
        }
        for (script, said) in [
            (
                "#!/bin/sh\n# Build the site\nset -e\nmake\n",
                "Build the site",
            ),
            (
                "#!/bin/bash\n# Usage: script/travis [ruby-version [file]]\n# Example: script/travis \
                 2.0 test/failing_test.rb\n# Example: script/travis 2.3.0\nset -e\n",
                "Usage: script/travis [ruby-version [file]]",
            ),
            (
                "#!/bin/sh\n# Deploy to production\nSITE=x\n",
                "Deploy to production",
            ),
        ] {
            assert_eq!(one("/w/a.sh", script).description.as_deref(), Some(said));
        }
        // Nor a pointer to where it is documented, or a note on where a variable is set.
        let c = one(
            "/w/update.sh",
            "# Documentation defined in Library/Homebrew/cmd/update.rb\n\n\
             # HOMEBREW_OPT and HOMEBREW_SDKROOT are set by extend/ENV/super.rb\n\
             # Fetch the newest formulae.\n",
        );
        assert_eq!(c.description.as_deref(), Some("Fetch the newest formulae."));
        assert!(!is_variable_note("PATH handling is set up below"));
        assert!(is_variable_note(
            "`HOMEBREW_*` variables are set by brew.sh before sourcing this command."
        ));
        assert!(is_variable_note(
            "HOMEBREW_CACHE, HOMEBREW_CURLRC and HOMEBREW_DEBUG are from the user environment"
        ));
        assert!(is_variable_note(
            "HOMEBREW_CACHE, HOMEBREW_CURLRC, HOMEBREW_DEBUG,"
        ));
        assert!(!is_variable_note("CI"));
        // A link is a reference, not what the script does.
        let c = one(
            "/w/lint.sh",
            "#!/bin/sh\n# https://cmake-format.readthedocs.io/en/latest/cmake-lint.html\n\n# Run cmakelint on the source\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some("Run cmakelint on the source")
        );
    }

    #[test]
    fn a_library_of_functions_is_sourced_not_run() {
        for lib in [
            // Homebrew's `utils/lock.sh`: definitions, a variable, a file sourced.
            "#!/bin/bash\n# Create a lock using flock(2).\nsource \"${HOMEBREW_LIBRARY}/utils.sh\"\n\
             LOCK_DIR=\"${HOME}/locks\"\nexport X=1\n\nlock() {\n  local name=\"$1\"\n  \
             if [[ -z \"${name}\" ]]; then\n    echo \"}\" >&2\n  fi\n  { flock 200; } 200>x\n}\n\n\
             function unlock {\n  rm -f \"${LOCK_DIR}/$1\"\n}\n",
            // A body on the next line, a here-document holding a brace, an array.
            "helpers=(a b c)\nusage()\n{\n  cat <<EOF\n}\nUsage: x\nEOF\n}\n: \"${CI:=false}\"\n",
        ] {
            assert!(only_defines(lib), "{lib}");
            assert!(parse_with(parse, "/w/lib.sh", lib).commands.is_empty());
        }
        for script in [
            // Something runs at the top level.
            "#!/bin/sh\nmain() {\n  make\n}\nmain \"$@\"\n",
            "f() { echo; }\nif [ -n \"$CI\" ]; then f; fi\n",
            // A variable set for a command.
            "f() { echo; }\nFOO=1 make build\n",
            // No function: not a library of them.
            "#!/bin/sh\nexport FOO=1\n",
            // A top-level here-document runs its command.
            "f() { :; }\ncat <<EOF\nhi\nEOF\n",
        ] {
            assert!(!only_defines(script), "{script}");
        }
    }

    #[test]
    fn a_bare_usage_heading_is_no_description_nor_is_what_follows_it() {
        let usage = "#!/bin/sh\n\n# USAGE:\n# \tgo run -exec ./setcap.sh main.go <args...>\n#\n";
        let with = |after: &str| {
            let text = format!("{usage}{after}\nsudo setcap x \"$1\"\n");
            parse_with(parse, "/w/setcap.sh", &text).commands[0]
                .description
                .clone()
        };
        assert_eq!(
            with("# (Example: `go run -exec ./setcap.sh main.go run`)\n"),
            None
        );
        assert_eq!(with(""), None);
        // A description before the usage is still one.
        let text =
            "#!/bin/sh\n# Lets a binary bind to low ports.\n#\n# Usage:\n#   setcap.sh BIN\nx\n";
        assert_eq!(
            parse_with(parse, "/w/setcap.sh", text).commands[0]
                .description
                .as_deref(),
            Some("Lets a binary bind to low ports.")
        );
    }

    #[test]
    fn a_usage_line_gives_way_to_the_paragraph_after_it() {
        let c = one(
            "/w/sign",
            "#!/bin/bash\n# usage: script/sign <file>\n#\n# Signs macOS binaries using codesign, and Windows EXE files.\n# More on the second line.\nset -e\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some("Signs macOS binaries using codesign, and Windows EXE files.")
        );
        // Usage and its continuation only: the usage it is.
        let c = one(
            "/w/nolint-insert",
            "#!/bin/bash\n# Usage: script/nolint-insert\n#        script/nolint-insert 'nolint:x'\nset -e\n# Not the header any more\n",
        );
        assert_eq!(
            c.description.as_deref(),
            Some("Usage: script/nolint-insert")
        );
        // A bare heading: the paragraph after it is the usage, not a description.
        let c = one(
            "/w/build.sh",
            "#!/bin/bash\n# Usage:\n#\n# With the archive:\n#\n#     ZIP=x.zip ./build.sh\nset -e\n",
        );
        assert_eq!(c.description, None);
    }

    #[test]
    fn build_tool_wrappers_are_not_scripts() {
        for name in ["gradlew", "mvnw"] {
            let fs = MemFs::new().exe(
                format!("/w/{name}"),
                "#!/bin/sh\n# Gradle start up script\n",
            );
            assert!(
                parse_in(parse, &fs, &format!("/w/{name}"))
                    .commands
                    .is_empty()
            );
        }
        let p = crate::sources::testing::parse_with(
            crate::sources::powershell::parse_batch,
            "/w/gradlew.bat",
            "@rem Gradle startup script for Windows\n",
        );
        assert!(p.commands.is_empty());
    }

    #[test]
    fn description_tag_wins() {
        // Upstream [ACTUAL] ignored `@description`; it is documented, so it is honoured.
        let c = one(
            "/w/x.sh",
            "#!/bin/bash\n# Some header\n# @description Deploy the stack\n# @param env Env\n",
        );
        assert_eq!(c.description.as_deref(), Some("Deploy the stack"));
        let c = one("/w/x.sh", "#!/bin/bash\n# @description\n# Real text\n");
        assert_eq!(c.description.as_deref(), Some("Real text"));
    }

    #[test]
    fn description_skips_blank_lines_and_at_lines() {
        let c = one(
            "/w/x.sh",
            "#!/bin/bash\n\n\n# @param env Env\n# Deploys things\necho\n",
        );
        assert_eq!(c.description.as_deref(), Some("Deploys things"));
    }

    #[test]
    fn description_stops_at_code() {
        let c = one(
            "/w/x.sh",
            "#!/bin/bash\ncd \"$(dirname \"$0\")\"\n# Too late\n",
        );
        assert_eq!(c.description, None);
        assert_eq!(one("/w/x.sh", "").description, None);
        assert_eq!(one("/w/x.sh", "#!/bin/sh\n#\n#   \n").description, None);
    }

    #[test]
    fn description_skips_rulers_and_directives() {
        let c = one(
            "/w/x.sh",
            "#!/usr/bin/env bash\n# shellcheck disable=SC2034\n##########\n# -*- mode: sh -*-\n#   Sync the mirror   \n",
        );
        assert_eq!(c.description.as_deref(), Some("Sync the mirror"));
    }

    #[test]
    fn garbage_never_panics() {
        for content in [
            "\u{1}\u{2}\u{fffd}#!",
            "#!/usr/bin/env",
            "#!/usr/bin/env -S",
            "# @param",
            "# @param é (options: ü, (default: ä",
            "# @param x (default: y (options: z)",
            "#\u{301}@param x",
        ] {
            let p = parse_with(parse, "/w/g.sh", content);
            assert_eq!(labels(&p), vec!["g.sh"]);
        }
        assert_eq!(
            one("/w/g.sh", "#!/usr/bin/env\n").command,
            "bash \"/w/g.sh\""
        );
    }

    #[test]
    fn the_projects_scripts_it_runs_are_steps() {
        let fs = MemFs::new()
            .file(
                "/w/scripts/release.sh",
                "#!/bin/sh\n./scripts/publish.sh\npushd out\npopd\nbash scripts/tag.sh v1\n. ./scripts/lib.sh\n\
                 ./missing.sh\n$DIR/x.sh\ncd sub && ./scripts/publish.sh\n",
            )
            .file("/w/scripts/publish.sh", "#!/bin/sh\n")
            .file("/w/scripts/tag.sh", "#!/bin/sh\n")
            .file("/w/scripts/lib.sh", "#!/bin/sh\n");
        let p = parse_in(parse, &fs, "/w/scripts/release.sh");
        let files: Vec<(String, String)> = p.commands[0]
            .steps
            .iter()
            .map(|s| match &s.scope {
                crate::model::StepScope::File { kind, file } => {
                    (s.name.clone(), format!("{kind} {}", file.display()))
                }
                other => panic!("{other:?}"),
            })
            .collect();
        // Looked up from the script's folder, then from the workspace root; sourced files,
        // missing ones, computed paths and calls after a `cd` (not one undone by `popd`) are
        // not steps.
        assert_eq!(
            files,
            [
                ("publish.sh".into(), "shell /w/scripts/publish.sh".into()),
                ("tag.sh".into(), "shell /w/scripts/tag.sh".into()),
            ]
        );
    }

    #[test]
    fn a_bin_script_runs_its_siblings_and_takes_what_sourced_files_set() {
        let fs = MemFs::new()
            .exe(
                "/w/plugins/build/bin/tool-install",
                "#!/usr/bin/env bash\ntool-build \"$DEF\" \"$TOOL_ROOT/versions/$V\"\n",
            )
            .exe("/w/plugins/build/bin/tool-build", "#!/usr/bin/env bash\n")
            .file(
                "/w/nvm.sh",
                "NVM_DIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n",
            )
            .exe(
                "/w/test/fast/t",
                "#!/bin/sh\n: nvm.sh\n\\. ../../nvm.sh\nrm -rf \"$NVM_DIR/v0.1\" \"$TOOL_ROOT\"\n",
            );
        let p = parse_in(parse, &fs, "/w/plugins/build/bin/tool-install");
        let steps: Vec<String> = p.commands[0]
            .steps
            .iter()
            .map(|s| format!("{} {:?}", s.name, s.scope))
            .collect();
        assert_eq!(
            steps,
            [format!(
                "tool-build {:?}",
                crate::model::StepScope::File {
                    kind: "shell".into(),
                    file: "/w/plugins/build/bin/tool-build".into()
                }
            )]
        );
        assert!(p.commands[0].sourced_vars.is_empty());
        let p = parse_in(parse, &fs, "/w/test/fast/t");
        assert_eq!(p.commands[0].sourced_vars, ["NVM_DIR"]);
    }
}
