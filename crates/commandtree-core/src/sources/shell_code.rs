//! The exact strings a build file written in another language hands to a shell or an exec
//! call, for the sources whose own text is not shell: Rake (`sh`, `system`, backticks,
//! `%x()`), Gradle (`commandLine`, `executable`/`args`, `"…".execute()`), MSBuild
//! (`<Exec Command>`), Maven (exec and antrun plugins) and Ant (`<exec>`, `<apply>`).
//!
//! Everything else in those files is that language's own syntax (a Kotlin backtick
//! identifier, an MSBuild `$(Property)`, Ruby's `sh(Gem.ruby, …)`), never shell. An exec call
//! with separate arguments becomes one shell line of quoted words, so only its program is in
//! command position. Values known only when the build runs become shell variables
//! (`$BUILD_VALUE`), which the analyser treats as unknown; a Rakefile's `$0` is `rake` and
//! `Gem.ruby` is `ruby`.
//!
//! Readers are pure, never panic, and read any length in time linear in it (nesting is
//! bounded).

use super::common;
use crate::model::ShellCode;
use crate::text::sh_word;

/// The shell variable standing for a value the build computes.
const UNKNOWN: &str = "${BUILD_VALUE}";
/// Deeper interpolation (`"#{"#{"…"}"}"`) is read as one unknown value.
const MAX_NEST: usize = 16;

/// The shell code in `text`, the own text of a command of type `kind`, for the types whose
/// files are another language; `None` for other types (their text is shell or a format the
/// analyser reads itself).
pub fn of(kind: &str, text: &str) -> Option<Vec<ShellCode>> {
    match kind {
        // A Ruby script hands the shell what a Rakefile does: `system`, backticks, `%x()`.
        "rake" | "ruby" => Some(ruby(text)),
        "gradle" => Some(gradle(text)),
        "dotnet" => Some(msbuild(text)),
        "maven" => Some(maven(text)),
        "ant" => Some(ant(text)),
        _ => None,
    }
}

fn code(code: String, line: usize) -> ShellCode {
    ShellCode {
        code,
        line: u32::try_from(line).unwrap_or(u32::MAX),
        via: None,
    }
}

/// One argument of an exec call: literal text (`Some`, with unknown parts already written as
/// shell variables) or an expression only known at run time.
#[derive(Debug, Clone, PartialEq)]
enum Arg {
    Str(String),
    Expr(String),
}

/// A call's arguments as a shell line: one string is a shell command (Ruby's `system("a b")`),
/// several are a program and its arguments, each one word.
fn shell_line(args: &[Arg], expr: impl Fn(&str) -> String) -> Option<String> {
    match args {
        [] => None,
        [Arg::Str(s)] => Some(s.clone()),
        _ => Some(
            args.iter()
                .map(|a| match a {
                    Arg::Str(s) if s.contains("${BUILD_VALUE}") => format!("\"{s}\""),
                    Arg::Str(s) => sh_word(s),
                    Arg::Expr(e) => expr(e),
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
    }
}

/// Characters of `text` with the 1-based line each starts on.
struct Chars {
    c: Vec<char>,
    line: Vec<usize>,
}

impl Chars {
    fn new(text: &str) -> Chars {
        let c: Vec<char> = text.chars().collect();
        let mut line = Vec::with_capacity(c.len());
        let mut l = 1;
        for ch in &c {
            line.push(l);
            if *ch == '\n' {
                l += 1;
            }
        }
        Chars { c, line }
    }

    fn get(&self, i: usize) -> Option<char> {
        self.c.get(i).copied()
    }

    fn line(&self, i: usize) -> usize {
        self.line.get(i).copied().unwrap_or(1)
    }

    /// The index after the identifier characters (`[A-Za-z0-9_]`) from `i`.
    fn word_end(&self, mut i: usize) -> usize {
        while self
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            i += 1;
        }
        i
    }

    fn skip_spaces(&self, mut i: usize) -> usize {
        while matches!(self.get(i), Some(' ' | '\t')) {
            i += 1;
        }
        i
    }
}

// ----- Ruby -----

/// Methods that hand their arguments to a shell or exec them.
const RUBY_EXEC: &[&str] = &[
    "sh",
    "system",
    "exec",
    "spawn",
    "popen",
    "popen2",
    "popen3",
    "capture2",
    "capture2e",
    "capture3",
    "safe_system",
];
/// Receivers those methods are called on (`Open3.capture2`, `Kernel.system`).
const RUBY_RECEIVERS: &[&str] = &["Kernel", "FileUtils", "IO", "Open3", "Process", "Rake"];

fn ruby_expr(e: &str) -> String {
    match e.trim() {
        "$0" | "$PROGRAM_NAME" => "rake".into(),
        "Gem.ruby" | "RbConfig.ruby" | "FileUtils::RUBY" | "RUBY" | "Gem::ruby" => "ruby".into(),
        _ => UNKNOWN.into(),
    }
}

/// `sh`, `system`, `exec`, `spawn`, `Open3.*`, `IO.popen`, backticks and `%x()` in Ruby code.
pub fn ruby(text: &str) -> Vec<ShellCode> {
    let s = Chars::new(text);
    let wrappers = ruby_exec_wrappers(text);
    let mut out = Vec::new();
    let mut i = 0;
    let mut at_line_start = true;
    while i < s.c.len() {
        let ch = s.c[i];
        if at_line_start && ch == '=' && text_at(&s, i, "=begin") {
            // A block comment up to `=end` at a line start.
            while i < s.c.len()
                && !(s.c[i] == '=' && (i == 0 || s.c[i - 1] == '\n') && text_at(&s, i, "=end"))
            {
                i += 1;
            }
            continue;
        }
        at_line_start = ch == '\n';
        match ch {
            '#' => {
                while i < s.c.len() && s.c[i] != '\n' {
                    i += 1;
                }
            }
            '"' | '\'' => {
                i = ruby_string(&s, i + 1, ch, None, 0).1;
            }
            '`' => {
                let line = s.line(i);
                let (body, end) = ruby_string(&s, i + 1, '`', None, 0);
                out.push(code(body, line));
                i = end;
            }
            '%' if matches!(s.get(i + 1), Some('x' | 'X'))
                && s.get(i + 2).is_some_and(is_delimiter) =>
            {
                let line = s.line(i);
                let open = s.c[i + 2];
                let (body, end) = ruby_string(&s, i + 3, closer(open), Some(open), 0);
                out.push(code(body, line));
                i = end;
            }
            '%' if percent_string(&s, i).is_some() => {
                i = percent_string(&s, i).map_or(i + 1, |(_, end)| end);
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                i = s.word_end(i);
                let mut word: String = s.c[start..i].iter().collect();
                if let Some(mark) = s.get(i).filter(|m| matches!(m, '?' | '!')) {
                    i += 1;
                    word.push(mark);
                    if !wrappers.contains(&word) {
                        continue;
                    }
                } else if !RUBY_EXEC.contains(&word.as_str()) && !wrappers.contains(&word) {
                    continue;
                }
                // A method's definition (`def system!(*)`), not a call.
                if start >= 4 && s.c[start - 4..start].iter().collect::<String>() == "def " {
                    continue;
                }
                // A method of some other object (`task.sh`) or a symbol (`:sh`) is not it.
                if start > 0 && s.c[start - 1] == ':' {
                    continue;
                }
                if start > 0 && s.c[start - 1] == '.' {
                    let mut r = start - 1;
                    while r > 0 && (s.c[r - 1].is_ascii_alphanumeric() || s.c[r - 1] == '_') {
                        r -= 1;
                    }
                    let receiver: String = s.c[r..start - 1].iter().collect();
                    if !RUBY_RECEIVERS.contains(&receiver.as_str()) {
                        continue;
                    }
                }
                let line = s.line(start);
                let (args, end) = ruby_args(&s, i);
                i = end;
                if let Some(line_code) = shell_line(&args, ruby_expr) {
                    out.push(code(line_code, line));
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// Methods a Ruby file defines to hand their arguments to `system` or `exec` as they are
/// (Rails' `bin/setup`: `def system!(*)` / `system(*, exception: true)`): each call of one is
/// a call of that.
fn ruby_exec_wrappers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim().strip_prefix("def ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '!' | '?'))
            .collect();
        let Some(params) = rest[name.len()..].strip_prefix('(') else {
            continue;
        };
        let params = params.split(')').next().unwrap_or("").trim();
        // The arguments taken whole (`*`, `*args`) and handed on whole (`system(*, …)`).
        let Some(splat) = params.strip_prefix('*').filter(|p| !p.contains(',')) else {
            continue;
        };
        let forwards = lines.clone().take(3).map(str::trim).any(|body| {
            ["system(", "exec(", "Kernel.system(", "Kernel.exec("]
                .iter()
                .any(|call| {
                    body.starts_with(call) && body[call.len()..].starts_with(&format!("*{splat}"))
                })
        });
        if forwards && !name.is_empty() {
            out.push(name);
        }
    }
    out
}

fn text_at(s: &Chars, i: usize, want: &str) -> bool {
    want.chars()
        .enumerate()
        .all(|(k, c)| s.get(i + k) == Some(c))
}

fn is_delimiter(c: char) -> bool {
    matches!(c, '(' | '[' | '{' | '<' | '|' | '!' | '/')
}

fn closer(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        c => c,
    }
}

/// `%(…)`, `%Q{…}`, `%q[…]`, `%w(…)`: (whether it interpolates, end index).
fn percent_string(s: &Chars, i: usize) -> Option<(bool, usize)> {
    let (interp, open_at) = match s.get(i + 1)? {
        c if is_delimiter(c) && c != '/' => (true, i + 1),
        'Q' | 'W' | 'I' => (true, i + 2),
        'q' | 'w' | 'i' | 's' => (false, i + 2),
        _ => return None,
    };
    let open = s.get(open_at).filter(|c| is_delimiter(*c))?;
    let nest = (open != closer(open)).then_some(open);
    let (_, end) = ruby_string(s, open_at + 1, closer(open), nest, 0);
    Some((interp, end))
}

/// Reads a string body from `i` (after its opening quote) to `close`; `nest` is the opening
/// bracket of a bracketed literal, which nests. `#{…}` becomes what it stands for (single
/// quotes do not interpolate). Returns the value and the index after the closing quote.
fn ruby_string(
    s: &Chars,
    mut i: usize,
    close: char,
    nest: Option<char>,
    depth: usize,
) -> (String, usize) {
    let interpolates = close != '\'';
    let mut out = String::new();
    let mut level = 0usize;
    while let Some(c) = s.get(i) {
        if c == '\\' {
            if let Some(n) = s.get(i + 1) {
                if interpolates || n == close || n == '\\' {
                    out.push(n);
                } else {
                    out.push('\\');
                    out.push(n);
                }
            }
            i += 2;
            continue;
        }
        if Some(c) == nest {
            level += 1;
        } else if c == close {
            if level == 0 {
                return (out, i + 1);
            }
            level -= 1;
        }
        if interpolates && c == '#' && s.get(i + 1) == Some('{') {
            let (expr, end) = ruby_interpolation(s, i + 2, depth);
            out.push_str(&ruby_expr(&expr));
            i = end;
            continue;
        }
        out.push(c);
        i += 1;
    }
    (out, i)
}

/// The expression of `#{…}` from `i` (after `#{`): its text and the index after `}`.
fn ruby_interpolation(s: &Chars, mut i: usize, depth: usize) -> (String, usize) {
    let start = i;
    let mut level = 0usize;
    while let Some(c) = s.get(i) {
        match c {
            '"' | '\'' | '`' if depth < MAX_NEST => {
                i = ruby_string(s, i + 1, c, None, depth + 1).1;
                continue;
            }
            '{' => level += 1,
            '}' if level == 0 => {
                let expr: String = s.c[start..i].iter().collect();
                return (expr, i + 1);
            }
            '}' => level -= 1,
            _ => {}
        }
        i += 1;
    }
    (s.c[start..].iter().collect(), i)
}

/// The arguments of a call whose name ends at `i`: in parentheses, or up to the end of the
/// line (a trailing comma or backslash continues it). Keyword options (`chdir: x`) and an
/// environment hash (`{ "A" => "b" }`) are not part of the command.
fn ruby_args(s: &Chars, i: usize) -> (Vec<Arg>, usize) {
    let mut i = s.skip_spaces(i);
    let parens = s.get(i) == Some('(');
    if parens {
        i += 1;
    } else {
        match s.get(i) {
            // `sh = …`, `sh.x`, `sh)`: not a call with arguments.
            Some('=' | '.' | ')' | ',' | '\n' | ';' | '}' | ']') | None => return (Vec::new(), i),
            _ => {}
        }
    }
    let mut args = Vec::new();
    let mut after_comma = false;
    loop {
        i = skip_blank(s, i, parens || after_comma);
        after_comma = false;
        match s.get(i) {
            None => break,
            Some(')') if parens => {
                i += 1;
                break;
            }
            Some('\n' | ';') if !parens => break,
            Some('#') if !parens => break,
            Some(',') => {
                i += 1;
                after_comma = true;
                continue;
            }
            Some('d')
                if !parens
                    && text_at(s, i, "do")
                    && !s
                        .get(i + 2)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                break;
            }
            Some('{') if !parens && !args.is_empty() => break,
            _ => {}
        }
        let (arg, end) = ruby_arg(s, i);
        if end <= i {
            i += 1;
            continue;
        }
        i = end;
        if let Some(a) = arg {
            args.push(a);
        }
    }
    (args, i)
}

fn skip_blank(s: &Chars, mut i: usize, newlines: bool) -> usize {
    loop {
        match s.get(i) {
            Some(' ' | '\t') => i += 1,
            Some('\\') if s.get(i + 1) == Some('\n') => i += 2,
            Some('\n') if newlines => i += 1,
            Some('#') if newlines => {
                while s.get(i).is_some_and(|c| c != '\n') {
                    i += 1;
                }
            }
            _ => return i,
        }
    }
}

/// One argument from `i`; `None` for an option or an environment hash.
fn ruby_arg(s: &Chars, i: usize) -> (Option<Arg>, usize) {
    match s.get(i) {
        Some(q @ ('"' | '\'')) => {
            let (v, end) = ruby_string(s, i + 1, q, None, 0);
            (Some(Arg::Str(v)), end)
        }
        Some('%') if matches!(s.get(i + 1), Some('x' | 'X')) => {
            let open = s.get(i + 2).unwrap_or('(');
            let (v, end) = ruby_string(s, i + 3, closer(open), Some(open), 0);
            (Some(Arg::Str(v)), end)
        }
        Some('%') if percent_string(s, i).is_some() => {
            let open_at = if s.get(i + 1).is_some_and(is_delimiter) {
                i + 1
            } else {
                i + 2
            };
            let open = s.get(open_at).unwrap_or('(');
            let interp = !matches!(s.get(i + 1), Some('q' | 'w' | 'i' | 's'));
            let close = if interp { closer(open) } else { '\'' };
            let (v, end) = if interp {
                ruby_string(
                    s,
                    open_at + 1,
                    close,
                    (open != closer(open)).then_some(open),
                    0,
                )
            } else {
                let (_, end) = percent_string(s, i).unwrap_or((false, i + 1));
                let body: String = s.c
                    [(open_at + 1).min(end)..end.saturating_sub(1).max(open_at + 1)]
                    .iter()
                    .collect();
                (body, end)
            };
            (Some(Arg::Str(v)), end)
        }
        Some('<') if s.get(i + 1) == Some('<') => ruby_heredoc(s, i),
        _ => {
            // An expression up to the next comma or closing parenthesis at this depth.
            let start = i;
            let mut j = i;
            let mut level = 0usize;
            while let Some(c) = s.get(j) {
                match c {
                    '(' | '[' | '{' => level += 1,
                    ')' | ']' | '}' if level == 0 => break,
                    ')' | ']' | '}' => level -= 1,
                    ',' | '\n' | ';' if level == 0 => break,
                    '"' | '\'' => {
                        j = ruby_string(s, j + 1, c, None, 0).1;
                        continue;
                    }
                    _ => {}
                }
                j += 1;
            }
            let expr: String = s.c[start..j].iter().collect::<String>().trim().to_string();
            let keyword = expr.split_once(':').is_some_and(|(k, v)| {
                !k.contains(' ')
                    && !v.starts_with(':')
                    && !k.is_empty()
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            if expr.is_empty() || keyword || expr.starts_with('{') || expr.contains("=>") {
                (None, j.max(i + 1))
            } else {
                (Some(Arg::Expr(expr)), j)
            }
        }
    }
}

/// `<<~EOS` … `EOS` as an argument: the body lines, read from the line after the call's.
fn ruby_heredoc(s: &Chars, i: usize) -> (Option<Arg>, usize) {
    let mut j = i + 2;
    if matches!(s.get(j), Some('~' | '-')) {
        j += 1;
    }
    let quoted = s.get(j).filter(|c| matches!(c, '\'' | '"'));
    if quoted.is_some() {
        j += 1;
    }
    let start = j;
    j = s.word_end(j);
    let tag: String = s.c[start..j].iter().collect();
    if tag.is_empty() {
        return (None, i + 2);
    }
    if quoted.is_some() {
        j += 1;
    }
    // The body starts on the next line; the rest of this line is read on as usual.
    let mut k = j;
    while s.get(k).is_some_and(|c| c != '\n') {
        k += 1;
    }
    let mut body = String::new();
    let mut pos = k + 1;
    while pos < s.c.len() {
        let mut end = pos;
        while s.get(end).is_some_and(|c| c != '\n') {
            end += 1;
        }
        let l: String = s.c[pos..end].iter().collect();
        if l.trim() == tag {
            break;
        }
        body.push_str(&l);
        body.push('\n');
        pos = end + 1;
    }
    (Some(Arg::Str(body)), j)
}

// ----- Gradle (Kotlin and Groovy) -----

/// `commandLine(…)`, `executable` + `args`, `"…".execute()`, `ProcessBuilder(…)`,
/// `Runtime.getRuntime().exec(…)` in a Gradle build script.
pub fn gradle(text: &str) -> Vec<ShellCode> {
    let s = Chars::new(text);
    let mut out: Vec<ShellCode> = Vec::new();
    let mut pending_exe: Option<(String, usize)> = None;
    let mut i = 0;
    while i < s.c.len() {
        let ch = s.c[i];
        match ch {
            '/' if s.get(i + 1) == Some('/') => {
                while s.get(i).is_some_and(|c| c != '\n') {
                    i += 1;
                }
            }
            '/' if s.get(i + 1) == Some('*') => {
                i += 2;
                while i < s.c.len() && !(s.c[i] == '*' && s.get(i + 1) == Some('/')) {
                    i += 1;
                }
                i += 2;
            }
            '"' | '\'' => {
                let line = s.line(i);
                let (v, end) = jvm_string(&s, i);
                i = end;
                // `"git push".execute()`.
                if text_at(&s, i, ".execute(") {
                    out.push(code(v, line));
                }
            }
            '`' => {
                // A Kotlin identifier in backticks: never code.
                i += 1;
                while s.get(i).is_some_and(|c| c != '`' && c != '\n') {
                    i += 1;
                }
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                i = s.word_end(i);
                let word: String = s.c[start..i].iter().collect();
                let line = s.line(start);
                match word.as_str() {
                    "commandLine" | "ProcessBuilder" => {
                        let (args, end) = jvm_args(&s, i);
                        i = end;
                        if let Some(l) = shell_line(&args, |_| UNKNOWN.to_string()) {
                            out.push(code(l, line));
                        }
                    }
                    "exec" if start > 0 && s.c[start - 1] == '.' => {
                        // `Runtime.getRuntime().exec("…")`; `project.exec {` is a block.
                        let (args, end) = jvm_args(&s, i);
                        i = end;
                        if let Some(l) = shell_line(&args, |_| UNKNOWN.to_string()) {
                            out.push(code(l, line));
                        }
                    }
                    "executable" => {
                        let (args, end) = jvm_args(&s, i);
                        i = end;
                        if let Some(Arg::Str(e) | Arg::Expr(e)) = args.first() {
                            let exe = match &args[0] {
                                Arg::Str(_) => sh_word(e),
                                Arg::Expr(_) => UNKNOWN.to_string(),
                            };
                            if let Some((prev, l)) = pending_exe.take() {
                                out.push(code(prev, l));
                            }
                            pending_exe = Some((exe, line));
                        }
                    }
                    "args" | "setArgs" => {
                        let (args, end) = jvm_args(&s, i);
                        i = end;
                        if let Some((exe, _)) = pending_exe.as_mut() {
                            for a in &args {
                                exe.push(' ');
                                exe.push_str(&match a {
                                    Arg::Str(v) => sh_word(v),
                                    Arg::Expr(_) => UNKNOWN.to_string(),
                                });
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => i += 1,
        }
    }
    if let Some((exe, l)) = pending_exe {
        out.push(code(exe, l));
    }
    out.sort_by_key(|c| c.line);
    out
}

/// A Kotlin/Groovy string from its opening quote at `i`: `"…"` and `"""…"""` interpolate
/// (`$x`, `${…}` become unknown values), `'…'` and `'''…'''` do not. Returns the value and the
/// index after it.
fn jvm_string(s: &Chars, i: usize) -> (String, usize) {
    let q = s.c[i];
    let triple = s.get(i + 1) == Some(q) && s.get(i + 2) == Some(q);
    let mut j = if triple { i + 3 } else { i + 1 };
    let mut out = String::new();
    while let Some(c) = s.get(j) {
        if triple {
            if c == q && s.get(j + 1) == Some(q) && s.get(j + 2) == Some(q) {
                return (out, j + 3);
            }
        } else if c == q {
            return (out, j + 1);
        } else if c == '\n' {
            return (out, j);
        }
        if c == '\\' && !triple {
            if let Some(n) = s.get(j + 1) {
                out.push(n);
            }
            j += 2;
            continue;
        }
        if q == '"' && c == '$' {
            if s.get(j + 1) == Some('{') {
                out.push_str(UNKNOWN);
                j = common::closing_bracket(&s.c, j + 1) + 1;
                continue;
            }
            if s.get(j + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            {
                let mut k = j + 1;
                while s
                    .get(k)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                {
                    k += 1;
                }
                out.push_str(UNKNOWN);
                j = k;
                continue;
            }
        }
        out.push(c);
        j += 1;
    }
    (out, j)
}

/// The arguments after a Gradle call's name at `i`: `(…)`, `= listOf(…)`, `= [...]` or
/// Groovy's paren-less list up to the end of the line. Lists are flattened.
fn jvm_args(s: &Chars, i: usize) -> (Vec<Arg>, usize) {
    let mut i = s.skip_spaces(i);
    if s.get(i) == Some('=') && s.get(i + 1) != Some('=') {
        i = s.skip_spaces(i + 1);
    }
    let mut args = Vec::new();
    let parens = matches!(s.get(i), Some('(' | '['));
    let mut level = 0usize;
    if parens {
        level = 1;
        i += 1;
    } else if !s
        .get(i)
        .is_some_and(|c| c == '"' || c == '\'' || c.is_ascii_alphabetic())
    {
        return (args, i);
    }
    let mut expr = String::new();
    let flush = |expr: &mut String, args: &mut Vec<Arg>| {
        let e = expr.trim();
        let e = e
            .trim_start_matches("listOf(")
            .trim_start_matches("arrayOf(")
            .trim_start_matches("mutableListOf(")
            .trim();
        if !e.is_empty() && e != ")" {
            args.push(Arg::Expr(e.to_string()));
        }
        expr.clear();
    };
    while let Some(c) = s.get(i) {
        match c {
            '"' | '\'' => {
                let (v, end) = jvm_string(s, i);
                args.push(Arg::Str(v));
                expr.clear();
                i = end;
                continue;
            }
            '(' | '[' => {
                level += 1;
                let before = expr.trim();
                if !(before.ends_with("listOf")
                    || before.ends_with("arrayOf")
                    || before.ends_with("mutableListOf")
                    || before.is_empty())
                {
                    expr.push(c);
                } else {
                    expr.clear();
                }
            }
            ')' | ']' => {
                if level <= 1 {
                    flush(&mut expr, &mut args);
                    i += 1;
                    break;
                }
                level -= 1;
            }
            ',' => flush(&mut expr, &mut args),
            '\n' if !parens => {
                flush(&mut expr, &mut args);
                break;
            }
            '{' | '}' if !parens => {
                flush(&mut expr, &mut args);
                break;
            }
            _ => expr.push(c),
        }
        i += 1;
    }
    args.retain(|a| !matches!(a, Arg::Expr(e) if e.is_empty()));
    (args, i)
}

// ----- XML: MSBuild, Maven, Ant -----

/// `<Exec Command="…">` of an MSBuild project: `$(Prop)`, `@(Item)` and `%(Meta)` are the
/// build's own values, not shell.
pub fn msbuild(text: &str) -> Vec<ShellCode> {
    let Ok(doc) = roxmltree::Document::parse(text) else {
        return Vec::new();
    };
    doc.descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "Exec")
        .filter_map(|n| {
            let cmd = n.attribute("Command")?;
            Some(code(
                msbuild_values(cmd),
                doc.text_pos_at(n.range().start).row as usize,
            ))
        })
        .collect()
}

fn msbuild_values(cmd: &str) -> String {
    let mut out = String::new();
    let c: Vec<char> = cmd.chars().collect();
    let mut i = 0;
    while i < c.len() {
        if matches!(c[i], '$' | '@' | '%') && c.get(i + 1) == Some(&'(') {
            out.push_str(UNKNOWN);
            i = common::closing_bracket(&c, i + 1) + 1;
            continue;
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// The exec plugin (`<executable>` with `<arguments>`/`<commandlineArgs>`) and antrun's
/// `<exec>` in a Maven POM.
pub fn maven(text: &str) -> Vec<ShellCode> {
    let Ok(doc) = roxmltree::Document::parse(text) else {
        return Vec::new();
    };
    let mut out = ant_exec(&doc);
    for exe in doc
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "executable")
    {
        let Some(cfg) = exe.parent() else { continue };
        let mut line = sh_word(&maven_value(exe.text().unwrap_or("")));
        for n in cfg.descendants().filter(|n| n.is_element()) {
            match n.tag_name().name() {
                "argument" => {
                    line.push(' ');
                    line.push_str(&sh_word(&maven_value(n.text().unwrap_or(""))));
                }
                "commandlineArgs" => {
                    line.push(' ');
                    line.push_str(&maven_value(n.text().unwrap_or("")));
                }
                _ => {}
            }
        }
        out.push(code(line, doc.text_pos_at(exe.range().start).row as usize));
    }
    out.sort_by_key(|c| c.line);
    out
}

fn maven_value(v: &str) -> String {
    let mut out = String::new();
    let mut rest = v.trim();
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        match rest[i..].find('}') {
            Some(j) => {
                out.push_str(UNKNOWN);
                rest = &rest[i + j + 1..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Ant's `<exec executable>` and `<apply executable>` with their `<arg value|line|file>`.
pub fn ant(text: &str) -> Vec<ShellCode> {
    let Ok(doc) = roxmltree::Document::parse(text) else {
        return Vec::new();
    };
    ant_exec(&doc)
}

fn ant_exec(doc: &roxmltree::Document) -> Vec<ShellCode> {
    doc.descendants()
        .filter(|n| n.is_element() && matches!(n.tag_name().name(), "exec" | "apply"))
        .filter_map(|n| {
            let exe = n.attribute("executable")?;
            let mut line = sh_word(&maven_value(exe));
            for a in n
                .children()
                .filter(|c| c.is_element() && c.tag_name().name() == "arg")
            {
                if let Some(v) = a
                    .attribute("value")
                    .or_else(|| a.attribute("file"))
                    .or_else(|| a.attribute("path"))
                {
                    line.push(' ');
                    line.push_str(&sh_word(&maven_value(v)));
                } else if let Some(l) = a.attribute("line") {
                    line.push(' ');
                    line.push_str(&maven_value(l));
                }
            }
            Some(code(line, doc.text_pos_at(n.range().start).row as usize))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(v: Vec<ShellCode>) -> Vec<(String, u32)> {
        v.into_iter().map(|c| (c.code, c.line)).collect()
    }

    #[test]
    fn ruby_calls_backticks_and_percent_x() {
        let rb = r#"task :drop do
  # sh "rm -rf /" is a comment
  puts "sh 'not a call'"
  sh "dropdb --if-exists #{db}"
  system(%(cd activerecord && #{$0} db:drop --trace))
  %x( mysql -e "drop database IF EXISTS #{connection["database"]}" )
  out = `git status`
  sh(Gem.ruby, "-r", railtie, "-e", "'OK'")
  Open3.capture2("ls", chdir: dir)
  task.sh "x"
end
"#;
        assert_eq!(
            codes(ruby(rb)),
            [
                ("dropdb --if-exists ${BUILD_VALUE}".to_string(), 4),
                ("cd activerecord && rake db:drop --trace".to_string(), 5),
                (
                    " mysql -e \"drop database IF EXISTS ${BUILD_VALUE}\" ".to_string(),
                    6
                ),
                ("git status".to_string(), 7),
                (r"ruby -r ${BUILD_VALUE} -e ''\''OK'\'''".to_string(), 8),
                ("ls".to_string(), 9),
            ]
        );
    }

    #[test]
    fn a_method_handing_its_arguments_to_system_is_a_call_of_it() {
        // Rails' `bin/setup`.
        let rb = r#"def system!(*)
  system(*, exception: true)
end

def run(*args)
  Kernel.system(*args)
end

def quiet!(cmd)
  system(cmd, out: File::NULL)
end

system! "gem install bundler --conservative"
system("bundle check") || system!("bundle install")
run "bin/rails", "db:prepare"
quiet! "rm -rf tmp"
other! "x"
"#;
        // The wrappers' own bodies hand on what only a run knows.
        assert_eq!(
            codes(ruby(rb)),
            [
                ("${BUILD_VALUE}".to_string(), 2),
                ("${BUILD_VALUE}".to_string(), 6),
                ("${BUILD_VALUE}".to_string(), 10),
                ("gem install bundler --conservative".to_string(), 13),
                ("bundle check".to_string(), 14),
                ("bundle install".to_string(), 14),
                ("bin/rails db:prepare".to_string(), 15),
            ]
        );
    }

    #[test]
    fn ruby_heredocs_and_paren_less_lists() {
        let rb = "sh <<~SH\n  git push --force\nSH\nsh \"git\", \"push\",\n  \"origin\"\n";
        assert_eq!(
            codes(ruby(rb)),
            [
                ("  git push --force\n".to_string(), 1),
                ("git push origin".to_string(), 4),
            ]
        );
    }

    #[test]
    fn gradle_exec_calls_only() {
        let kts = r#"plugins {
  `kotlin-dsl`
  id("x")
}
tasks.register<Exec>("wipe") {
  commandLine("rm", "-rf", "$buildDir/../..")
}
tasks.register<Exec>("push") {
  executable = "git"
  args = listOf("push", "--force")
}
val out = "git push -f".execute()
"#;
        assert_eq!(
            codes(gradle(kts)),
            [
                ("rm -rf \"${BUILD_VALUE}/../..\"".to_string(), 6),
                ("git push --force".to_string(), 9),
                ("git push -f".to_string(), 12),
            ]
        );
        let groovy =
            "task x(type: Exec) {\n  commandLine 'sh', '-c', 'curl -s https://x | sh'\n}\n";
        assert_eq!(
            codes(gradle(groovy)),
            [("sh -c 'curl -s https://x | sh'".to_string(), 2)]
        );
    }

    #[test]
    fn msbuild_exec_with_properties() {
        let proj = r#"<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><NoWarn>$(NoWarn);RZ10021</NoWarn><OutDir>$(OutDir)</OutDir></PropertyGroup>
  <Target Name="Clean2" AfterTargets="Build">
    <Exec Command="rm -rf &quot;$(OutDir)&quot;/cache" />
  </Target>
</Project>"#;
        assert_eq!(
            codes(msbuild(proj)),
            [("rm -rf \"${BUILD_VALUE}\"/cache".to_string(), 4)]
        );
        assert!(
            msbuild("<Project><PropertyGroup><X>$(NoWarn)</X></PropertyGroup></Project>")
                .is_empty()
        );
    }

    #[test]
    fn maven_and_ant_exec() {
        let pom = r#"<project><build><plugins><plugin>
  <artifactId>exec-maven-plugin</artifactId>
  <configuration>
    <executable>git</executable>
    <arguments><argument>push</argument><argument>--force</argument></arguments>
  </configuration>
</plugin></plugins></build></project>"#;
        assert_eq!(codes(maven(pom)), [("git push --force".to_string(), 4)]);
        let ant_xml = r#"<project><target name="x">
  <exec executable="sh"><arg value="-c"/><arg value="rm -rf ~"/></exec>
</target></project>"#;
        assert_eq!(codes(ant(ant_xml)), [("sh -c 'rm -rf ~'".to_string(), 2)]);
    }

    #[test]
    fn malformed_input_does_not_panic() {
        for t in [
            "%x(",
            "sh(",
            "`",
            "#{",
            "sh \"#{\"#{",
            "commandLine(",
            "\"\"\"",
            "<Exec",
            "%",
            "sh <<~",
            "executable",
            "args(",
            "%q",
            "sh %w",
        ] {
            let _ = ruby(t);
            let _ = gradle(t);
            let _ = msbuild(t);
            let _ = maven(t);
            let _ = ant(t);
        }
        let deep = "\"#{".repeat(10_000);
        let _ = ruby(&format!("sh {deep}"));
        // Random texts made of the pieces the readers care about.
        const PIECES: &[&str] = &[
            "\"",
            "'",
            "`",
            "%x(",
            "%(",
            "%q[",
            "#{",
            "}",
            "(",
            ")",
            "[",
            "]",
            "{",
            "<<~E\n",
            "E\n",
            "\n",
            "\\",
            " ",
            ",",
            "sh ",
            "system(",
            "commandLine(",
            "executable ",
            "args(",
            "listOf(",
            "$",
            "${",
            "<Exec Command=\"",
            "/>",
            "<exec executable=\"x\">",
            "<arg line=\"",
            "=begin\n",
            "=end\n",
            "#",
            "//",
            "/*",
            "*/",
            "\"\"\"",
            ".execute(",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..3_000 {
            let mut t = String::new();
            for _ in 0..(seed % 40) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                t.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
            }
            for kind in ["rake", "gradle", "dotnet", "maven", "ant"] {
                let _ = of(kind, &t);
            }
        }
    }
}
