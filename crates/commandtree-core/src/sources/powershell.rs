//! PowerShell scripts (`.ps1`) and batch files (`.bat`, `.cmd`): one command per file.
//!
//! For `.ps1` the script's own `param(...)` block is found the way PowerShell does: it is the
//! first statement of the script, after comments, `using` lines and attributes such as
//! `[CmdletBinding()]`. (The original took the first `param` substring anywhere, so a
//! `# @param` comment or a `.PARAMETER` help keyword hid the real block.) Parameter descriptions
//! come from `# @param` comments, comment-based help (`.PARAMETER Name`), `HelpMessage=` and
//! comments placed before a parameter inside the block.

use super::common::{one_command, param_comments};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef, ParamFormat};
use crate::text;
use std::collections::{HashMap, HashSet};

pub const KIND: &str = "powershell";

pub fn parse_ps1(file: &SourceFile<'_>) -> Parsed {
    let content = file.content;
    let host = if cfg!(windows) { "powershell" } else { "pwsh" };
    let command = format!("{host} -NoProfile -File {}", text::quote_path(file.path));
    let mut parsed = Parsed::default();
    let mut scanner = Scanner { s: content, pos: 0 };
    let (comments, block) = scanner.header();
    let help = Help::from_comments(&comments);
    let block = match block {
        Some(Ok(params)) => params,
        Some(Err(open)) => {
            parsed.warn(
                file.path,
                Some(text::line_of(content, open)),
                "unterminated param( block",
            );
            Vec::new()
        }
        None => Vec::new(),
    };
    let params = merge_params(comment_params(content), block, &help);
    let description = help
        .synopsis
        .clone()
        .or_else(|| help.description.clone())
        .or_else(|| ps1_description(content));
    parsed.commands.push(
        CommandItem::new(KIND, file.path, &file.file_name(), command)
            .params(params)
            .opt_description(description),
    );
    parsed
}

pub fn parse_batch(file: &SourceFile<'_>) -> Parsed {
    // Build-tool wrappers: their tasks are listed under Gradle and Maven.
    if matches!(
        file.file_name().as_ref(),
        "gradlew.bat" | "mvnw.cmd" | "mvnw.bat"
    ) {
        return Parsed::default();
    }
    let item = CommandItem::new(
        KIND,
        file.path,
        &file.file_name(),
        text::quote_path(file.path),
    )
    .opt_description(batch_description(file.content));
    one_command(item)
}

/// `# @param` comments in file order; the first of a name wins (names are case-insensitive, as
/// in PowerShell).
fn comment_params(content: &str) -> Vec<ParamDef> {
    let mut seen = HashSet::new();
    param_comments(content)
        .map(|(_, p)| p)
        .filter(|p| seen.insert(p.name.to_lowercase()))
        .collect()
}

/// Block parameters in declaration order (the order PowerShell binds positional values), each
/// completed from its `# @param` comment; then the comment-only parameters.
fn merge_params(comments: Vec<ParamDef>, block: Vec<BlockParam<'_>>, help: &Help) -> Vec<ParamDef> {
    let index: HashMap<String, usize> = comments
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.to_lowercase(), i))
        .collect();
    let mut comments: Vec<Option<ParamDef>> = comments.into_iter().map(Some).collect();
    let mut out: Vec<ParamDef> = Vec::new();
    let mut seen = HashSet::new();
    for bp in block {
        let key = bp.name.to_lowercase();
        if !seen.insert(key.clone()) {
            continue;
        }
        let doc = index
            .get(&key)
            .and_then(|&i| comments.get_mut(i))
            .and_then(Option::take);
        let mut p = ParamDef::new(bp.name);
        let help_text = help.params.get(&key).cloned();
        let description = doc
            .as_ref()
            .and_then(|d| d.description.clone())
            .or(help_text)
            .or_else(|| bp.help_message.clone())
            .or_else(|| bp.doc_comment());
        if let Some(d) = description {
            p = p.with_description(d);
        }
        if bp.switch {
            p.format = Some(ParamFormat::Flag);
            p.flag = Some(format!("-{}", bp.name));
            p.switch = true;
        } else {
            p.default = bp
                .default
                .and_then(default_literal)
                .or_else(|| doc.as_ref().and_then(|d| d.default.clone()));
            // PowerShell binds an unset optional parameter to its type's empty value, so only
            // `Mandatory` ones must be asked for; an empty default says "may be left out".
            if p.default.is_none() && !bp.mandatory {
                p.default = Some(String::new());
            }
        }
        p.options = if bp.options.is_empty() {
            doc.map(|d| d.options).unwrap_or_default()
        } else {
            bp.options
        };
        out.push(p);
    }
    out.extend(comments.into_iter().flatten());
    out
}

/// The `= value` of a parameter when it is a literal a user could type: a quoted string without
/// expansions, or a number. Expressions (`$PSScriptRoot`, `(Get-Date)`, `$true`) give none.
fn default_literal(expr: &str) -> Option<String> {
    let expr = expr.trim();
    if let Some(inner) = expr.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return (!inner.replace("''", "").contains('\'')).then(|| inner.replace("''", "'"));
    }
    if let Some(inner) = expr.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        let plain = !inner.replace("\"\"", "").contains(['"', '$', '`']);
        return plain.then(|| inner.replace("\"\"", "\""));
    }
    let digits = expr.strip_prefix('-').unwrap_or(expr);
    let number = digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.');
    number.then(|| expr.to_string())
}

/// Upstream's description rules: the first text of a leading `<# ... #>` block or `#` comment,
/// skipping help keywords (`.SYNOPSIS`), `@param` lines and directives; code ends the search.
fn ps1_description(content: &str) -> Option<String> {
    let mut lines = content.lines();
    let mut licence = super::common::LicenceHeader::default();
    while let Some(line) = lines.next() {
        let t = line.trim();
        // `#!/usr/bin/env pwsh`: how it runs, not what it does.
        if t.starts_with("#!") {
            continue;
        }
        let comment = t
            .strip_prefix('#')
            .filter(|_| !t.starts_with("#>"))
            .map(str::trim);
        if licence.skip(comment) || t.is_empty() {
            continue;
        }
        if let Some(after) = t.strip_prefix("<#") {
            let after = after.trim();
            if !after.starts_with('.') {
                let text = after.split("#>").next().unwrap_or("").trim();
                if !text.is_empty() {
                    return Some(text.to_string());
                }
            }
            if after.contains("#>") {
                continue;
            }
            for inner in lines.by_ref() {
                let it = inner.trim();
                if let Some((before, _)) = it.split_once("#>") {
                    let before = before.trim();
                    return (!before.is_empty() && !before.starts_with('.'))
                        .then(|| before.to_string());
                }
                if it.is_empty() || it.starts_with('.') {
                    continue;
                }
                // The block's next lines, up to its `#>` or a help keyword.
                let more = super::common::up_to_close(lines, "#>").map(|l| {
                    let l = l.trim();
                    (!l.starts_with('.')).then_some(l)
                });
                return Some(super::common::sentence_on(it, more));
            }
            return None;
        }
        let c = t.strip_prefix('#')?.trim();
        if c.is_empty() || c.starts_with('@') || c.starts_with('.') || is_directive(c) {
            continue;
        }
        let more = lines.map(|l| {
            l.trim()
                .strip_prefix('#')
                .map(str::trim)
                .filter(|c| !c.starts_with('.') && !is_directive(c))
        });
        return Some(super::common::sentence_on(c, more));
    }
    None
}

/// `#requires`, `#region` and rulers are not prose.
fn is_directive(c: &str) -> bool {
    let lower = c.to_ascii_lowercase();
    !c.chars().any(char::is_alphanumeric)
        || super::common::is_only_a_link(c)
        || ["requires", "region", "endregion"]
            .iter()
            .any(|d| lower.starts_with(d))
}

/// The first `REM` / `::` comment, after `@echo off` and `setlocal`, past a licence header and a
/// banner's drawing; code ends the search.
fn batch_description(content: &str) -> Option<String> {
    let mut licence = super::common::LicenceHeader::default();
    for line in content.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let lower = t.to_ascii_lowercase();
        if lower.starts_with("@echo")
            || lower == "echo off"
            || lower.trim_start_matches('@').starts_with("setlocal")
        {
            continue;
        }
        let body = t.strip_prefix('@').unwrap_or(t);
        let text = strip_rem(body)
            .or_else(|| body.strip_prefix("::"))
            .map(str::trim);
        if licence.skip(text) {
            continue;
        }
        let text = text?;
        if text.chars().any(char::is_alphanumeric) {
            return Some(text.to_string());
        }
    }
    None
}

fn strip_rem(line: &str) -> Option<&str> {
    let head = line.get(..3)?;
    let rest = line.get(3..)?;
    (head.eq_ignore_ascii_case("rem") && (rest.is_empty() || rest.starts_with(char::is_whitespace)))
        .then_some(rest)
}

/// One `$Name` declaration of a `param(...)` block.
#[derive(Debug, Default)]
struct BlockParam<'a> {
    name: &'a str,
    default: Option<&'a str>,
    switch: bool,
    options: Vec<String>,
    help_message: Option<String>,
    /// `[Parameter(Mandatory)]`: PowerShell asks for it, so it has no empty default.
    mandatory: bool,
    /// Comments written before the declaration inside the block (PowerShell reads them as help).
    comments: Vec<Comment<'a>>,
}

impl BlockParam<'_> {
    fn doc_comment(&self) -> Option<String> {
        self.comments
            .iter()
            .flat_map(|c| c.text.lines())
            .map(str::trim)
            .find(|l| {
                l.chars().any(char::is_alphanumeric) && !l.starts_with('.') && !l.starts_with('@')
            })
            .map(str::to_string)
    }

    fn apply_attribute(&mut self, attr: &str) {
        let inner = attr
            .trim()
            .strip_prefix('[')
            .and_then(|a| a.strip_suffix(']'))
            .unwrap_or("")
            .trim();
        let (name, args) = match inner.split_once('(') {
            Some((n, a)) => (n.trim(), a.strip_suffix(')').unwrap_or(a)),
            None => (inner, ""),
        };
        let name = name.rsplit('.').next().unwrap_or(name);
        if name.eq_ignore_ascii_case("switch") || name.eq_ignore_ascii_case("SwitchParameter") {
            self.switch = true;
        } else if name.eq_ignore_ascii_case("ValidateSet") {
            self.options = string_literals(args)
                .into_iter()
                .filter(|(_, s)| !s.trim().is_empty())
                .map(|(_, s)| s)
                .collect();
        } else if name.eq_ignore_ascii_case("Parameter") {
            let lower = args.to_ascii_lowercase();
            self.mandatory |= is_mandatory(&lower);
            if let Some(at) = lower.find("helpmessage") {
                let after = args.get(at + "helpmessage".len()..).unwrap_or("");
                let after = after.trim_start();
                if let Some(value) = after.strip_prefix('=') {
                    self.help_message = string_literals(value)
                        .into_iter()
                        .next()
                        .filter(|(start, _)| {
                            value.get(..*start).is_some_and(|b| b.trim().is_empty())
                        })
                        .map(|(_, s)| s);
                }
            }
        }
    }
}

/// `Mandatory`, `Mandatory=$true` or `Mandatory = $True` among lowercased `[Parameter(...)]`
/// arguments (`Mandatory=$false` is not).
fn is_mandatory(lower_args: &str) -> bool {
    lower_args.split(',').any(|arg| {
        let mut kv = arg.splitn(2, '=');
        let key = kv.next().unwrap_or("").trim();
        let value = kv.next().map(str::trim);
        key == "mandatory" && !matches!(value, Some("$false" | "0"))
    })
}

/// The quoted strings in an attribute's arguments, with their start offsets.
fn string_literals(s: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut sc = Scanner { s, pos: 0 };
    while let Some(c) = sc.peek() {
        if c == '\'' || c == '"' {
            let start = sc.pos;
            sc.skip_string();
            let raw = s.get(start..sc.pos).unwrap_or("");
            if let Some(v) = default_literal(raw) {
                out.push((start, v));
            }
        } else {
            sc.bump(c);
        }
    }
    out
}

/// Comment-based help: `.SYNOPSIS`, `.DESCRIPTION` and `.PARAMETER Name`, each the first paragraph
/// of its section.
#[derive(Debug, Default)]
struct Help {
    synopsis: Option<String>,
    description: Option<String>,
    /// `.PARAMETER` text by lowercased name; the first section of a name wins.
    params: HashMap<String, String>,
}

enum Section {
    None,
    Synopsis,
    Description,
    Parameter(String),
    Other,
}

impl Help {
    fn from_comments(comments: &[Comment<'_>]) -> Help {
        const KEYWORDS: &[&str] = &[
            "synopsis",
            "description",
            "parameter",
            "example",
            "inputs",
            "outputs",
            "notes",
            "link",
            "component",
            "role",
            "functionality",
            "forwardhelptargetname",
            "forwardhelpcategory",
            "remotehelprunspace",
            "externalhelp",
        ];
        let mut help = Help::default();
        let mut section = Section::None;
        let mut text: Vec<&str> = Vec::new();
        let mut paragraph_done = false;
        for comment in comments {
            for line in comment.text.lines() {
                let t = line.trim().trim_start_matches('#').trim();
                let keyword = t.strip_prefix('.').and_then(|k| {
                    let (word, rest) = k.split_once(char::is_whitespace).unwrap_or((k, ""));
                    let lower = word.to_ascii_lowercase();
                    KEYWORDS
                        .contains(&lower.as_str())
                        .then_some((lower, rest.trim()))
                });
                if let Some((word, rest)) = keyword {
                    help.close(&section, &text);
                    text.clear();
                    paragraph_done = false;
                    section = match word.as_str() {
                        "synopsis" => Section::Synopsis,
                        "description" => Section::Description,
                        "parameter" => Section::Parameter(rest.trim_start_matches('$').to_string()),
                        _ => Section::Other,
                    };
                } else if t.starts_with('@') {
                    help.close(&section, &text);
                    text.clear();
                    section = Section::None;
                } else if t.is_empty() {
                    paragraph_done = !text.is_empty();
                } else if !paragraph_done {
                    text.push(t);
                }
            }
            // A help section never runs on past the end of its block comment; `#` lines
            // continue one another.
            if comment.block {
                help.close(&section, &text);
                text.clear();
                section = Section::None;
                paragraph_done = false;
            }
        }
        help.close(&section, &text);
        help
    }

    fn close(&mut self, section: &Section, text: &[&str]) {
        if text.is_empty() {
            return;
        }
        let joined = text.join(" ");
        match section {
            Section::Synopsis if self.synopsis.is_none() => self.synopsis = Some(joined),
            Section::Description if self.description.is_none() => {
                self.description = text.first().map(|l| l.to_string());
            }
            Section::Parameter(name) if !name.is_empty() => {
                self.params.entry(name.to_lowercase()).or_insert(joined);
            }
            _ => {}
        }
    }
}

/// The text of a `#` line comment (after the `#`) or of a `<# ... #>` block.
#[derive(Debug, Clone, Copy)]
struct Comment<'a> {
    text: &'a str,
    block: bool,
}

/// The comments before the first statement, and the `param(...)` block when that statement is
/// one (`Err` holds the offset of an unterminated block's `(`).
type Header<'a> = (Vec<Comment<'a>>, Option<Result<Vec<BlockParam<'a>>, usize>>);

/// A forward-only scanner over PowerShell text that knows comments, strings and bracket nesting:
/// just enough to find the script's `param(...)` block without being fooled by `# @param`,
/// `.PARAMETER`, `'param('` or a `param` inside a function.
struct Scanner<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn bump(&mut self, c: char) {
        self.pos += c.len_utf8();
    }

    fn skip_to(&mut self, needle: &str) {
        self.pos = self
            .rest()
            .find(needle)
            .map_or(self.s.len(), |i| self.pos + i + needle.len());
    }

    /// Skips whitespace, line continuations and comments, collecting the comments' text.
    fn skip_trivia(&mut self, comments: &mut Vec<Comment<'a>>) {
        while let Some(c) = self.peek() {
            let rest = self.rest();
            if rest.starts_with("<#") {
                let body = rest.get(2..).unwrap_or("");
                let inner = body.split_once("#>").map_or(body, |(i, _)| i);
                comments.push(Comment {
                    text: inner,
                    block: true,
                });
                self.pos += 2;
                self.skip_to("#>");
            } else if c == '#' {
                let line = rest.split('\n').next().unwrap_or("");
                comments.push(Comment {
                    text: line.get(1..).unwrap_or(""),
                    block: false,
                });
                self.pos += line.len();
            } else if c.is_whitespace() || c == '`' {
                self.bump(c);
            } else {
                break;
            }
        }
    }

    /// Skips a string starting at the quote under the cursor (`''` and backtick escapes, and
    /// here-strings when the cursor is on the `@`). An unterminated string ends the text.
    fn skip_string(&mut self) {
        let rest = self.rest();
        for (open, close) in [("@'", "\n'@"), ("@\"", "\n\"@")] {
            if rest.starts_with(open) {
                self.pos += open.len();
                self.skip_to(close);
                return;
            }
        }
        let Some(q) = self.peek() else {
            return;
        };
        self.bump(q);
        while let Some(c) = self.peek() {
            self.bump(c);
            if c == '`' && q == '"' {
                if let Some(n) = self.peek() {
                    self.bump(n);
                }
            } else if c == q {
                if self.peek() == Some(q) {
                    self.bump(q);
                } else {
                    return;
                }
            }
        }
    }

    /// Skips a `#` comment on the rest of the current line: after `$A = 1, # note` the note is
    /// about `$A`, not the parameter on the next line.
    fn skip_trailing_comment(&mut self) {
        let rest = self.rest();
        let line = rest.split('\n').next().unwrap_or("");
        if line.trim_start().starts_with('#') {
            self.pos += line.len();
        }
    }

    fn at_string(&self) -> bool {
        let rest = self.rest();
        rest.starts_with(['\'', '"']) || rest.starts_with("@'") || rest.starts_with("@\"")
    }

    /// Skips a bracketed group starting at the opener under the cursor, through nested groups,
    /// strings and comments. Iterative, so hostile nesting depth costs no stack. `false` when the
    /// text ends first.
    fn skip_group(&mut self) -> bool {
        let mut depth = 0usize;
        let mut sink = Vec::new();
        loop {
            self.skip_trivia(&mut sink);
            sink.clear();
            if self.at_string() {
                self.skip_string();
                continue;
            }
            let Some(c) = self.peek() else {
                return false;
            };
            self.bump(c);
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return true;
                    }
                }
                _ => {}
            }
        }
    }

    fn word(&mut self) -> &'a str {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        self.pos += len;
        rest.get(..len).unwrap_or("")
    }

    /// Reads the script header, stepping over `using` lines and attributes.
    fn header(&mut self) -> Header<'a> {
        let mut comments = Vec::new();
        loop {
            self.skip_trivia(&mut comments);
            match self.peek() {
                Some('[') => {
                    if !self.skip_group() {
                        return (comments, None);
                    }
                }
                Some(c) if c.is_alphabetic() => {
                    let word = self.word();
                    if word.eq_ignore_ascii_case("using") {
                        self.skip_to("\n");
                        continue;
                    }
                    if !word.eq_ignore_ascii_case("param") {
                        return (comments, None);
                    }
                    self.skip_trivia(&mut comments);
                    if self.peek() != Some('(') {
                        return (comments, None);
                    }
                    return (comments, Some(self.param_block()));
                }
                _ => return (comments, None),
            }
        }
    }

    fn param_block(&mut self) -> Result<Vec<BlockParam<'a>>, usize> {
        let open = self.pos;
        self.bump('(');
        let mut params = Vec::new();
        let mut cur = BlockParam::default();
        let mut named = false;
        loop {
            let mut comments = Vec::new();
            self.skip_trivia(&mut comments);
            if !named {
                cur.comments.extend(comments);
            }
            if self.at_string() {
                self.skip_string();
                continue;
            }
            let Some(c) = self.peek() else {
                return Err(open);
            };
            match c {
                ')' | ',' => {
                    self.bump(c);
                    if named {
                        params.push(std::mem::take(&mut cur));
                    }
                    cur = BlockParam::default();
                    named = false;
                    if c == ')' {
                        return Ok(params);
                    }
                    self.skip_trailing_comment();
                }
                '[' => {
                    let start = self.pos;
                    if !self.skip_group() {
                        return Err(open);
                    }
                    if !named {
                        cur.apply_attribute(self.s.get(start..self.pos).unwrap_or(""));
                    }
                }
                '(' | '{' => {
                    if !self.skip_group() {
                        return Err(open);
                    }
                }
                '$' => {
                    self.bump(c);
                    let name = if self.peek() == Some('{') {
                        let rest = self.rest();
                        let inner = rest
                            .get(1..)
                            .and_then(|r| r.split_once('}'))
                            .map(|(n, _)| n);
                        self.skip_to("}");
                        inner.unwrap_or("")
                    } else {
                        self.word()
                    };
                    if !named && !name.is_empty() {
                        cur.name = name;
                        named = true;
                    }
                }
                '=' => {
                    self.bump(c);
                    let value = self.expression().map_err(|()| open)?;
                    if named && cur.default.is_none() {
                        cur.default = Some(value);
                    }
                }
                _ => self.bump(c),
            }
        }
    }

    /// A default value expression, up to the `,` or `)` that ends its parameter (not consumed).
    fn expression(&mut self) -> Result<&'a str, ()> {
        let start = self.pos;
        let mut end = self.pos;
        let mut sink = Vec::new();
        loop {
            self.skip_trivia(&mut sink);
            sink.clear();
            if self.at_string() {
                self.skip_string();
                end = self.pos;
                continue;
            }
            let Some(c) = self.peek() else {
                return Err(());
            };
            match c {
                ',' | ')' => return Ok(self.s.get(start..end).unwrap_or("").trim()),
                '(' | '[' | '{' => {
                    if !self.skip_group() {
                        return Err(());
                    }
                }
                _ => self.bump(c),
            }
            end = self.pos;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    const HOST: &str = if cfg!(windows) { "powershell" } else { "pwsh" };

    fn ps(content: &str) -> CommandItem {
        let p = parse_with(parse_ps1, "/w/scripts/build.ps1", content);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        p.commands.into_iter().next().unwrap()
    }

    fn params(content: &str) -> Vec<ParamDef> {
        ps(content).params
    }

    fn names(content: &str) -> Vec<String> {
        params(content).into_iter().map(|p| p.name).collect()
    }

    fn p(name: &str, desc: Option<&str>) -> ParamDef {
        ParamDef {
            name: name.into(),
            description: desc.map(Into::into),
            ..Default::default()
        }
    }

    /// A `param()` entry that is not `Mandatory`: optional, so its default is empty.
    fn opt(name: &str, desc: Option<&str>) -> ParamDef {
        ParamDef {
            default: Some(String::new()),
            ..p(name, desc)
        }
    }

    fn bat(content: &str) -> Option<String> {
        parse_with(parse_batch, "/w/run.bat", content).commands[0]
            .description
            .clone()
    }

    #[test]
    fn ps1_item() {
        let p = parse_with(parse_ps1, "/w/my scripts/Deploy App.ps1", "Write-Host hi\n");
        let c = &p.commands[0];
        assert_eq!(
            c.id,
            "powershell:/w/my scripts/Deploy App.ps1:Deploy App.ps1"
        );
        assert_eq!(c.label, "Deploy App.ps1");
        assert_eq!(c.kind, "powershell");
        assert_eq!(
            c.command,
            format!("{HOST} -NoProfile -File \"/w/my scripts/Deploy App.ps1\"")
        );
        assert_eq!(c.cwd, "/w/my scripts");
        assert!(c.params.is_empty());
        assert_eq!(c.description, None);
    }

    #[test]
    fn batch_items() {
        for path in ["/w/tools/run tests.bat", "/w/tools/run tests.cmd"] {
            let p = parse_with(parse_batch, path, "@echo off\nREM Run the tests\n");
            let c = &p.commands[0];
            let name = path.rsplit('/').next().unwrap();
            assert_eq!(c.id, format!("powershell:{path}:{name}"));
            assert_eq!(c.kind, "powershell");
            assert_eq!(c.command, format!("\"{path}\""));
            assert_eq!(c.cwd, "/w/tools");
            assert!(c.params.is_empty());
            assert_eq!(c.description.as_deref(), Some("Run the tests"));
        }
    }

    // Upstream unit-test facts (§3.7).

    #[test]
    fn upstream_comment_params_and_block() {
        assert_eq!(
            params(
                "# @param config The configuration file\n# @param verbose Enable verbose output\nparam($config, $verbose)\n"
            ),
            vec![
                opt("config", Some("The configuration file")),
                opt("verbose", Some("Enable verbose output"))
            ]
        );
    }

    #[test]
    fn upstream_comment_default() {
        let got = params("# @param env The environment (default: dev)\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].default.as_deref(), Some("dev"));
        assert_eq!(got[0].description.as_deref(), Some("The environment"));
    }

    #[test]
    fn upstream_block_order() {
        assert_eq!(
            names("param($Alpha, $Beta, $Gamma)"),
            vec!["Alpha", "Beta", "Gamma"]
        );
    }

    #[test]
    fn upstream_block_then_comment() {
        assert_eq!(
            params("param($config, $verbose)\n# @param config Config file\n"),
            vec![opt("config", Some("Config file")), opt("verbose", None)]
        );
    }

    #[test]
    fn upstream_no_params() {
        assert!(params("Write-Host 'hello'\n").is_empty());
        assert!(params("").is_empty());
    }

    #[test]
    fn upstream_bare_comment_param_and_block() {
        assert_eq!(
            params("# @param config\nparam($config)\n"),
            vec![opt("config", None)]
        );
    }

    #[test]
    fn upstream_param_without_paren() {
        assert!(params("param\nWrite-Host hi\n").is_empty());
    }

    #[test]
    fn upstream_empty_param_comment() {
        assert!(params("# @param \n# @param\nWrite-Host hi\n").is_empty());
    }

    #[test]
    fn a_shebang_licence_and_banner_are_not_the_description() {
        assert_eq!(
            ps("#!/usr/bin/env pwsh\n\nif ($null -eq $Env:X) { exit }\n").description,
            None
        );
        assert_eq!(
            ps("#!/usr/bin/env pwsh\n# Sign the Windows binaries\n")
                .description
                .as_deref(),
            Some("Sign the Windows binaries")
        );
        assert_eq!(
            bat("@echo off\nrem *****************\nrem *  Project   ___| | | |  _ \\| |\nrem *\nrem * Copyright (C) Someone\nrem * SPDX-License-Identifier: curl\nrem *****************\nrem Generate the project files\n").as_deref(),
            Some("Generate the project files")
        );
        assert_eq!(
            bat(
                "@echo off\nrem Copyright (C) Someone\nrem Licensed under the MIT license.\n\n:begin\n"
            ),
            None
        );
    }

    /// A first sentence running over comment lines, or over a help block's lines, is read
    /// whole; a help keyword or the next sentence ends it.
    #[test]
    fn a_sentence_over_lines_is_the_description() {
        assert_eq!(
            ps("# Validates that new migration files follow naming conventions and\n# chronological order.\n# Run it before a merge.\nparam()\n")
                .description
                .as_deref(),
            Some("Validates that new migration files follow naming conventions and chronological order.")
        );
        assert_eq!(
            ps("<#\nHelper script for applying the same user secrets to each project\n.EXAMPLE\n  ./setup_secrets.ps1\n#>\n")
                .description
                .as_deref(),
            Some("Helper script for applying the same user secrets to each project")
        );
        // Nothing past the block's end is read into it.
        assert_eq!(
            ps("<#\nSets up the\nsecrets #>\nfoo bar\n")
                .description
                .as_deref(),
            Some("Sets up the secrets")
        );
    }

    #[test]
    fn upstream_descriptions() {
        let d = |s: &str| ps(s).description;
        assert_eq!(
            d("# This script does something\n").as_deref(),
            Some("This script does something")
        );
        assert_eq!(
            d("<#\n.SYNOPSIS\nDoes great things\n#>\n").as_deref(),
            Some("Does great things")
        );
        assert_eq!(
            d("<# Build automation script #>\n").as_deref(),
            Some("Build automation script")
        );
        assert_eq!(d(""), None);
        assert_eq!(
            d("# @param foo\n# .SYNOPSIS\n# Actual description\n").as_deref(),
            Some("Actual description")
        );
        assert_eq!(d("param($x)\n# too late\n"), None);
        assert_eq!(d("<#\n#>\n"), None);
    }

    #[test]
    fn upstream_batch_descriptions() {
        assert_eq!(
            bat("@echo off\nREM Deploy the application\n").as_deref(),
            Some("Deploy the application")
        );
        assert_eq!(bat(":: Run all tests\n").as_deref(), Some("Run all tests"));
        assert_eq!(
            bat("\n\n@echo off\n\n:: After blanks\n").as_deref(),
            Some("After blanks")
        );
        assert_eq!(bat(""), None);
        assert_eq!(bat("@echo off\nset FOO=bar\n"), None);
        assert_eq!(bat("REM "), None);
        assert_eq!(bat("::"), None);
    }

    #[test]
    fn batch_description_extras() {
        assert_eq!(
            bat("@ECHO OFF\r\nsetlocal EnableDelayedExpansion\n@rem Build it\n").as_deref(),
            Some("Build it")
        );
        assert_eq!(
            bat("@echo off\nREM ==========\nREM\nrem   Package   \n").as_deref(),
            Some("Package")
        );
        assert_eq!(bat("REMOVE-ME\n"), None);
        assert_eq!(bat("echo REM nope\nREM late\n"), None);
    }

    // Upstream [ACTUAL] bug §3.7 / §17.6: the first `param` substring anywhere was taken.

    #[test]
    fn at_param_comment_does_not_hide_the_block() {
        let src = "# @param Verbose Show more\n[CmdletBinding()]\nparam(\n    [string]$Config,\n    [switch]$Verbose\n)\n";
        let got = params(src);
        assert_eq!(names(src), vec!["Config", "Verbose"]);
        assert_eq!(got[1].description.as_deref(), Some("Show more"));
        assert_eq!(got[1].format, Some(ParamFormat::Flag));
        assert_eq!(got[1].flag.as_deref(), Some("-Verbose"));
    }

    #[test]
    fn dot_parameter_help_does_not_hide_the_block() {
        let src = r#"<#
.SYNOPSIS
    Deploys the web app.

.DESCRIPTION
    Builds, packages and deploys
    to the given slot.

.PARAMETER Environment
    Target environment
    (dev or prod).

.PARAMETER Force
    Skip confirmation.

.EXAMPLE
    ./deploy.ps1 -Environment prod
#>
[CmdletBinding(SupportsShouldProcess = $true)]
[OutputType([void])]
param(
    [Parameter(Mandatory = $true, Position = 0)]
    [ValidateSet('dev', 'staging', "prod")]
    [string]$Environment = 'dev',

    [Parameter()]
    [switch]$Force,

    [int]$Retries = 3
)

Write-Host "Deploying to $Environment"
"#;
        let c = ps(src);
        assert_eq!(c.description.as_deref(), Some("Deploys the web app."));
        assert_eq!(
            c.params,
            vec![
                ParamDef {
                    name: "Environment".into(),
                    description: Some("Target environment (dev or prod).".into()),
                    default: Some("dev".into()),
                    options: vec!["dev".into(), "staging".into(), "prod".into()],
                    ..Default::default()
                },
                ParamDef {
                    name: "Force".into(),
                    description: Some("Skip confirmation.".into()),
                    format: Some(ParamFormat::Flag),
                    flag: Some("-Force".into()),
                    switch: true,
                    ..Default::default()
                },
                ParamDef {
                    name: "Retries".into(),
                    default: Some("3".into()),
                    ..Default::default()
                },
            ]
        );
    }

    #[test]
    fn upstream_test_fixture_verbose_is_found() {
        // The upstream fixture `test.ps1`, whose `$Verbose` upstream never saw.
        let src = "<#\n.SYNOPSIS\nTest PowerShell script\n.PARAMETER Config\nConfiguration name\n#>\n# @param Config Configuration name (default: Debug)\nparam(\n    [string]$Config = \"Debug\",\n    [switch]$Verbose\n)\nWrite-Host \"Config: $Config\"\n";
        let c = ps(src);
        assert_eq!(c.description.as_deref(), Some("Test PowerShell script"));
        assert_eq!(names(src), vec!["Config", "Verbose"]);
        assert_eq!(c.params[0].default.as_deref(), Some("Debug"));
        assert_eq!(
            c.params[0].description.as_deref(),
            Some("Configuration name")
        );
    }

    #[test]
    fn param_word_in_strings_comments_and_functions_is_ignored() {
        assert!(params("Write-Host 'param($a)'\nparam($b)\n").is_empty());
        assert!(params("function Go {\n  param($Inner)\n}\n").is_empty());
        assert!(params("$x = @param\nparam($b)\n").is_empty());
        assert!(params("<# param($NotMe) #>\n# param($NorMe)\n").is_empty());
        assert_eq!(
            names("<# param($NotMe) #>\n# param($NorMe)\nPARAM ( $Me )\n"),
            vec!["Me"]
        );
    }

    #[test]
    fn using_and_requires_may_precede_the_block() {
        let src = "#Requires -Version 7.0\nusing namespace System.IO\nusing module ./Helpers.psm1\n\nparam([string]$Path)\n";
        assert_eq!(names(src), vec!["Path"]);
        assert_eq!(ps(src).description, None);
    }

    #[test]
    fn nested_parens_and_mandatory_true_are_not_params() {
        // Upstream took every `$word` up to the first `)`: `$true` became a parameter.
        let src = "param(\n  [Parameter(Mandatory=$true, HelpMessage='Where to write (a folder)')]\n  [ValidateScript({ Test-Path $_ -PathType Container })]\n  [string]$OutDir,\n  [string[]]$Tags = @('a', 'b'),\n  [datetime]$Since = (Get-Date).AddDays(-1)\n)\n";
        let got = params(src);
        assert_eq!(
            got.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            vec!["OutDir", "Tags", "Since"]
        );
        assert_eq!(
            got[0].description.as_deref(),
            Some("Where to write (a folder)")
        );
        // Mandatory: asked for. Expression defaults: left to PowerShell (empty = leave out).
        assert_eq!(got[0].default, None);
        assert_eq!(got[1].default.as_deref(), Some(""));
        assert_eq!(got[2].default.as_deref(), Some(""));
    }

    #[test]
    fn defaults_are_literals_only() {
        let src = "param(\n  $A = 'it''s',\n  $B = \"plain\",\n  $C = \"$env:HOME\",\n  $D = $PSScriptRoot,\n  $E = 1.5,\n  $F = -2,\n  $G = $true,\n  $H = 'a' + 'b',\n  [switch]$I = $false\n)\n";
        let got = params(src);
        let d: Vec<Option<&str>> = got.iter().map(|p| p.default.as_deref()).collect();
        assert_eq!(
            d,
            vec![
                Some("it's"),
                Some("plain"),
                Some(""),
                Some(""),
                Some("1.5"),
                Some("-2"),
                Some(""),
                Some(""),
                None
            ]
        );
    }

    #[test]
    fn comments_inside_the_block_describe_the_next_param() {
        let src = "param(\n    # The target environment\n    [string]$Env = 'dev', # trailing note\n    <# Number of workers #>\n    [int]$Workers\n)\n";
        assert_eq!(
            params(src),
            vec![
                ParamDef {
                    name: "Env".into(),
                    description: Some("The target environment".into()),
                    default: Some("dev".into()),
                    ..Default::default()
                },
                opt("Workers", Some("Number of workers")),
            ]
        );
    }

    #[test]
    fn description_priority_for_params() {
        let src = "<#\n.PARAMETER Name\nFrom help\n#>\n# @param name From comment\nparam(\n  # From inline\n  [Parameter(HelpMessage = 'From attribute')]\n  $Name,\n  [Parameter(HelpMessage = \"Only attribute\")]\n  $Other\n)\n";
        // The block's spelling of the name is the real one.
        assert_eq!(
            params(src),
            vec![
                opt("Name", Some("From comment")),
                opt("Other", Some("Only attribute"))
            ]
        );
        // Without the `@param` comment, comment-based help is next.
        let src = src.replace("# @param name From comment\n", "");
        assert_eq!(params(&src)[0], opt("Name", Some("From help")));
    }

    #[test]
    fn comment_only_params_follow_block_params() {
        let src = "# @param Extra Not in the block (options: x, y)\nparam($First)\n";
        let got = params(src);
        assert_eq!(
            got.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            vec!["First", "Extra"]
        );
        assert_eq!(got[1].options, vec!["x", "y"]);
    }

    #[test]
    fn comment_default_and_options_fill_block_gaps() {
        let src = "# @param Region Cloud region (default: eu-west-1) (options: eu-west-1, us-east-1)\nparam([string]$Region)\n";
        let got = params(src);
        assert_eq!(got[0].name, "Region");
        assert_eq!(got[0].default.as_deref(), Some("eu-west-1"));
        assert_eq!(got[0].options, vec!["eu-west-1", "us-east-1"]);
    }

    #[test]
    fn duplicate_block_params_keep_the_first() {
        assert_eq!(names("param($a, $A, $b)"), vec!["a", "b"]);
    }

    #[test]
    fn braced_variable_names_and_here_strings() {
        let src = "param(\n  ${Log File} = @'\nnot ) a param $X\n'@,\n  $Next\n)\n";
        assert_eq!(names(src), vec!["Log File", "Next"]);
    }

    #[test]
    fn help_description_when_no_synopsis() {
        let c = ps("<#\n.DESCRIPTION\nRotates the logs.\nSecond line.\n#>\nparam()\n");
        assert_eq!(c.description.as_deref(), Some("Rotates the logs."));
        assert!(c.params.is_empty());
    }

    #[test]
    fn synopsis_wins_over_earlier_sections() {
        let c = ps("<#\n.PARAMETER X\nThe x\n.SYNOPSIS\nDoes Y\n#>\n");
        assert_eq!(c.description.as_deref(), Some("Does Y"));
    }

    #[test]
    fn line_comment_help_and_directives() {
        let c = ps(
            "#Requires -RunAsAdministrator\n#region Header\n# ------\n# Cleans the cache\nparam()\n",
        );
        assert_eq!(c.description.as_deref(), Some("Cleans the cache"));
        let c = ps("# .SYNOPSIS\n#   Line help\n# .PARAMETER Path\n#   Where\nparam($Path)\n");
        assert_eq!(c.description.as_deref(), Some("Line help"));
        assert_eq!(c.params, vec![opt("Path", Some("Where"))]);
    }

    #[test]
    fn unterminated_block_warns() {
        let p = parse_with(
            parse_ps1,
            "/w/x.ps1",
            "# Setup\n\nparam(\n  [string]$Config,\n  [ValidateSet('a'\n",
        );
        assert_eq!(labels(&p), vec!["x.ps1"]);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, Some(3));
        assert_eq!(p.warnings[0].message, "unterminated param( block");
        assert!(p.commands[0].params.is_empty());
        assert_eq!(p.commands[0].description.as_deref(), Some("Setup"));
    }

    #[test]
    fn unterminated_default_string_warns() {
        let p = parse_with(parse_ps1, "/w/x.ps1", "param($A = 'open)\n");
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn garbage_never_panics() {
        for src in [
            "\u{1}\u{2}\u{fffd}",
            "param(",
            "param(((((((([[[[{{{{",
            "param($",
            "param(${",
            "param(${x",
            "param($a=",
            "param($a='",
            "param($a=\"`",
            "param([",
            "[CmdletBinding(",
            "<#",
            "<# .PARAMETER",
            "#",
            "param(@'",
            "param([Parameter(HelpMessage=)]$a)",
            "param([Parameter(HelpMessage='é')]$ü)",
            "param([ValidateSet(]$a)",
            "param(\u{301}$a)",
            "`",
        ] {
            let p = parse_with(parse_ps1, "/w/g.ps1", src);
            assert_eq!(labels(&p), vec!["g.ps1"], "{src:?}");
            let p = parse_with(parse_batch, "/w/g.cmd", src);
            assert_eq!(labels(&p), vec!["g.cmd"]);
        }
    }

    #[test]
    fn deep_nesting_is_linear_and_stack_safe() {
        let src = format!("param({}$a{})", "(".repeat(200_000), ")".repeat(200_000));
        let p = parse_with(parse_ps1, "/w/deep.ps1", &src);
        assert_eq!(labels(&p), vec!["deep.ps1"]);
        let src = format!("{}param($a)", "[x]".repeat(100_000));
        assert_eq!(names(&src), vec!["a"]);
    }
}
