//! The commands a shell snippet runs, split into words the way a POSIX shell splits them, so
//! that a recipe or script calling its own runner (`$(MAKE) clean`, `just fmt`, `npm run lint`,
//! `task build`, `mise run db:seed`) can be recorded as a step of the command.
//!
//! This is not a shell: nothing is expanded. Quotes and escapes are removed; a word holding an
//! expansion (`$x`, `$(...)`, a backtick) is marked as not literal, and callers never take such
//! a word for a name. Commands inside `$(...)`, backticks and `sh -c '...'` are read too;
//! comments, redirection targets and heredoc bodies are not commands. Only what the shell would
//! run as a command counts: `echo npm run x` runs `echo`.

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The word with quotes and escapes removed.
    pub text: String,
    /// No expansion, substitution or glob in it: its text is what the program receives.
    pub literal: bool,
    /// The word as written, quotes and expansions kept (what a caller that follows a
    /// variable or a substitution reads).
    pub raw: String,
}

impl Word {
    /// The text when the word is literal.
    pub fn lit(&self) -> Option<&str> {
        self.literal.then_some(self.text.as_str())
    }
}

/// One simple command: its words, prefixes (`VAR=x`, `env`, `exec`, `time`, ...) removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Simple {
    pub words: Vec<Word>,
    /// A `cd`/`pushd` ran earlier in the same text: the command may run in another folder.
    pub after_cd: bool,
    /// How many `for`/`while`/`until` loops are open around it; a loop's own `for` line is
    /// counted outside its loop, so its body is the commands after it with a higher count.
    pub loops: u32,
    /// Read from a `$(...)`, a backtick or `sh -c` code inside another command.
    pub nested: bool,
}

impl Simple {
    /// The program's name (the last path component of a literal first word).
    pub fn program(&self) -> Option<&str> {
        let w = self.words.first()?.lit()?;
        Some(w.rsplit('/').next().unwrap_or(w))
    }
    /// The arguments after the program.
    pub fn args(&self) -> &[Word] {
        self.words.get(1..).unwrap_or(&[])
    }
}

/// Nesting of `$(...)`, backticks and `sh -c` read again: deep enough for real scripts, bounded
/// for crafted ones.
const MAX_DEPTH: usize = 4;
/// Texts longer than this are not read for calls (a recipe is never that long).
const MAX_TEXT: usize = 256 * 1024;

/// The simple commands of `text`, in order.
pub(crate) fn simple_commands(text: &str) -> Vec<Simple> {
    let mut out = Vec::new();
    if text.len() <= MAX_TEXT {
        let mut cd = Cd::default();
        split(text, 0, &mut out, &mut cd);
    }
    out
}

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time",
    "esac", "in",
];

/// Programs that run the rest of their words as a command.
const PREFIXES: &[&str] = &[
    "exec",
    "command",
    "builtin",
    "nohup",
    "time",
    "env",
    "cross-env",
    "cross-env-shell",
    "xargs",
    "nice",
];

/// Where the commands read so far left the shell: a `cd` moves it for good; a `pushd` until
/// its `popd`. Also the loops open at this point. Code in `$(...)` or `sh -c` runs in another
/// shell: it starts where the outer one is and moves only itself.
#[derive(Default, Clone, Copy)]
struct Cd {
    moved: bool,
    pushed: usize,
    loops: u32,
}

fn split(text: &str, depth: usize, out: &mut Vec<Simple>, cd: &mut Cd) {
    let mut lx = Lexer {
        chars: text.chars().collect(),
        i: 0,
        depth,
        nested: Vec::new(),
        heredocs: Vec::new(),
    };
    let mut words: Vec<Word> = Vec::new();
    let mut skip_next = false;
    let mut heredoc: Option<bool> = None;
    loop {
        let tok = lx.next_token();
        let nested = std::mem::take(&mut lx.nested);
        for n in nested {
            split(&n, depth + 1, out, &mut cd.clone());
        }
        match tok {
            Token::Word(w) => {
                if let Some(strip) = heredoc.take() {
                    lx.heredocs.push((w.text, strip));
                } else if skip_next {
                    skip_next = false;
                } else {
                    words.push(w);
                }
            }
            Token::Redirect => skip_next = true,
            Token::Heredoc { strip } => heredoc = Some(strip),
            Token::Nothing => {}
            Token::End | Token::Eof => {
                skip_next = false;
                heredoc = None;
                finish(std::mem::take(&mut words), depth, out, cd);
                if matches!(tok, Token::Eof) {
                    return;
                }
            }
        }
    }
}

/// Turns the words of one command into a [`Simple`] (prefixes dropped), reading `sh -c` code.
fn finish(mut words: Vec<Word>, depth: usize, out: &mut Vec<Simple>, cd: &mut Cd) {
    loop {
        let Some(first) = words.first() else { return };
        let drop_first = match first.lit() {
            Some(w) if KEYWORDS.contains(&w) => {
                match w {
                    "while" | "until" => cd.loops += 1,
                    "done" => cd.loops = cd.loops.saturating_sub(1),
                    _ => {}
                }
                true
            }
            // `VAR=x cmd`, `VAR="$y" cmd`: an assignment, whatever its value.
            _ if is_assignment(&first.text) => true,
            Some(w) if PREFIXES.contains(&w) => {
                // `env -i A=b cmd`, `nice -n 5 cmd`: their options go with them.
                words.remove(0);
                while words.first().is_some_and(|w| {
                    w.lit().is_some_and(|t| t.starts_with('-')) || is_assignment(&w.text)
                }) {
                    let opt = words.remove(0);
                    if matches!(opt.lit(), Some("-n" | "-u" | "-C" | "-S")) && !words.is_empty() {
                        words.remove(0);
                    }
                }
                continue;
            }
            _ => false,
        };
        if !drop_first {
            break;
        }
        words.remove(0);
    }
    let simple = Simple {
        words,
        after_cd: cd.moved || cd.pushed > 0,
        loops: cd.loops,
        nested: depth > 0,
    };
    match simple.program() {
        Some("for" | "select") => cd.loops += 1,
        Some("cd") => cd.moved = true,
        Some("pushd") => cd.pushed += 1,
        Some("popd") if cd.pushed > 0 => cd.pushed -= 1,
        Some("popd") => cd.moved = true,
        _ => {}
    }
    if matches!(simple.program(), Some("cd" | "pushd" | "popd")) {
        return;
    }
    if depth < MAX_DEPTH
        && matches!(
            simple.program(),
            Some("sh" | "bash" | "zsh" | "dash" | "ksh")
        )
        && let Some(at) = simple.args().iter().position(|w| {
            w.lit()
                .is_some_and(|t| t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
        })
        && let Some(code) = simple.args().get(at + 1)
    {
        // The outer shell fills in its expansions first (`bash -lc "make test-$shell"`); they
        // are read again as expansions, so they still never make a name.
        let code = code.text.clone();
        split(&code, depth + 1, out, &mut cd.clone());
        return;
    }
    // `hyperfine --warmup=2 "basic/nvm" "basic/fnm"`: a benchmark runner runs each command it
    // is given through a shell, and its `--prepare`/`--setup`/`--cleanup` commands too.
    if depth < MAX_DEPTH && simple.program() == Some("hyperfine") {
        for code in hyperfine_commands(simple.args()) {
            split(&code, depth + 1, out, &mut cd.clone());
        }
        return;
    }
    out.push(simple);
}

/// The command lines `hyperfine` runs: its operands and the values of its command options.
fn hyperfine_commands(args: &[Word]) -> Vec<String> {
    const COMMANDS: &[&str] = &[
        "-p",
        "--prepare",
        "-c",
        "--cleanup",
        "-s",
        "--setup",
        "--conclude",
    ];
    const VALUES: &[&str] = &[
        "-w",
        "--warmup",
        "-m",
        "--min-runs",
        "-M",
        "--max-runs",
        "-r",
        "--runs",
        "-S",
        "--shell",
        "-u",
        "--time-unit",
        "-n",
        "--command-name",
        "-P",
        "--parameter-scan",
        "-D",
        "--parameter-step-size",
        "-L",
        "--parameter-list",
        "--style",
        "--sort",
        "--output",
        "--input",
        "--export-asciidoc",
        "--export-csv",
        "--export-json",
        "--export-markdown",
        "--export-orgmode",
        "--min-benchmarking-time",
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if COMMANDS.contains(&t) {
            out.extend(args.get(i + 1).map(|v| v.text.clone()));
            i += 2;
        } else if let Some((opt, v)) = t.split_once('=')
            && COMMANDS.contains(&opt)
        {
            out.push(v.to_string());
            i += 1;
        } else if VALUES.contains(&t) {
            // `-P x 1 5` takes three values.
            i += if matches!(t, "-P" | "--parameter-scan") {
                4
            } else {
                2
            };
        } else {
            if !t.starts_with('-') {
                out.push(w.text.clone());
            }
            i += 1;
        }
    }
    out
}

fn is_assignment(w: &str) -> bool {
    let Some((name, _)) = w.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

enum Token {
    Word(Word),
    /// `>`, `<`, `>>`, `2>`, `&>`: the next word is a file, not an argument.
    Redirect,
    /// `<<WORD`, `<<-WORD`: the next word ends a heredoc whose body follows the line.
    Heredoc {
        strip: bool,
    },
    /// Something that is no word (`2>&1`).
    Nothing,
    /// `;`, `&&`, `||`, `|`, `&`, a newline, `(`, `)`: the command ends.
    End,
    Eof,
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    depth: usize,
    /// Code found inside the current word (`$(...)`, backticks), read as commands of its own.
    nested: Vec<String>,
    /// Heredoc delimiters waiting for the end of the line, and whether `<<-` strips tabs.
    heredocs: Vec<(String, bool)>,
}

impl Lexer {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn next_token(&mut self) -> Token {
        // Blanks and line continuations.
        loop {
            match self.peek(0) {
                Some(' ' | '\t' | '\r') => self.i += 1,
                Some('\\') if self.peek(1) == Some('\n') => self.i += 2,
                Some('#') => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
        let Some(c) = self.peek(0) else {
            return Token::Eof;
        };
        match c {
            '\n' => {
                self.i += 1;
                self.skip_heredocs();
                return Token::End;
            }
            ';' | '&' | '|' | '(' | ')' => {
                self.i += 1;
                if c == '&' && self.peek(0) == Some('>') {
                    return self.redirect();
                }
                while self
                    .peek(0)
                    .is_some_and(|n| matches!(n, ';' | '&' | '|') && (n == c || c != '('))
                {
                    self.i += 1;
                }
                return Token::End;
            }
            '<' | '>' => return self.redirect(),
            _ => {}
        }
        let start = self.i;
        let mut w = Word {
            text: String::new(),
            literal: true,
            raw: String::new(),
        };
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' => {
                    // `2>file`: the digits were a file descriptor, not a word.
                    if !w.text.is_empty() && w.text.chars().all(|d| d.is_ascii_digit()) {
                        return self.redirect();
                    }
                    break;
                }
                '\\' => {
                    if self.peek(1) == Some('\n') {
                        self.i += 2;
                        continue;
                    }
                    if let Some(n) = self.peek(1) {
                        w.text.push(n);
                    }
                    self.i += 2;
                }
                '\'' => {
                    self.i += 1;
                    while let Some(n) = self.peek(0) {
                        self.i += 1;
                        if n == '\'' {
                            break;
                        }
                        w.text.push(n);
                    }
                }
                '"' => {
                    self.i += 1;
                    while let Some(n) = self.peek(0) {
                        match n {
                            '"' => {
                                self.i += 1;
                                break;
                            }
                            '\\' if self
                                .peek(1)
                                .is_some_and(|e| matches!(e, '$' | '`' | '"' | '\\' | '\n')) =>
                            {
                                let e = self.peek(1).unwrap_or('\\');
                                if e != '\n' {
                                    w.text.push(e);
                                }
                                self.i += 2;
                            }
                            '$' | '`' => self.expansion(&mut w),
                            _ => {
                                w.text.push(n);
                                self.i += 1;
                            }
                        }
                    }
                }
                '$' | '`' => self.expansion(&mut w),
                '*' | '?' | '[' => {
                    w.literal = false;
                    w.text.push(c);
                    self.i += 1;
                }
                _ => {
                    w.text.push(c);
                    self.i += 1;
                }
            }
        }
        w.raw = self.chars[start..self.i.min(self.chars.len())]
            .iter()
            .collect();
        Token::Word(w)
    }

    /// `$x`, `${...}`, `$((...))`, `$(...)`, `` `...` ``: the word is no longer literal; code in
    /// a substitution is kept to be read as commands.
    fn expansion(&mut self, w: &mut Word) {
        w.literal = false;
        let c = self.peek(0);
        if c == Some('`') {
            self.i += 1;
            let start = self.i;
            while self.peek(0).is_some_and(|n| n != '`') {
                if self.peek(0) == Some('\\') {
                    self.i += 1;
                }
                self.i += 1;
            }
            let code: String = self.chars[start..self.i.min(self.chars.len())]
                .iter()
                .collect();
            self.i += 1;
            w.text.push_str("$SUB");
            self.nest(code);
            return;
        }
        self.i += 1;
        match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                let end = self.balanced(self.i, '(', ')');
                self.i = end;
                w.text.push_str("$ARITH");
            }
            Some('(') => {
                let start = self.i + 1;
                let end = self.balanced(self.i, '(', ')');
                let code: String = self.chars[start..end.saturating_sub(1).max(start)]
                    .iter()
                    .collect();
                self.i = end;
                w.text.push_str("$SUB");
                self.nest(code);
            }
            Some('{') => {
                let end = self.balanced(self.i, '{', '}');
                self.i = end;
                w.text.push_str("$VAR");
            }
            Some(n) if n.is_ascii_alphanumeric() || "_@*#?$!-".contains(n) => {
                if n.is_ascii_alphabetic() || n == '_' {
                    while self
                        .peek(0)
                        .is_some_and(|n| n.is_ascii_alphanumeric() || n == '_')
                    {
                        self.i += 1;
                    }
                } else {
                    self.i += 1;
                }
                w.text.push_str("$VAR");
            }
            _ => w.text.push('$'),
        }
    }

    fn nest(&mut self, code: String) {
        if self.depth < MAX_DEPTH {
            self.nested.push(code);
        }
    }

    /// The index after the bracket group opening at `start`, skipping quoted text.
    fn balanced(&self, start: usize, open: char, close: char) -> usize {
        let mut depth = 0usize;
        let mut j = start;
        while let Some(&c) = self.chars.get(j) {
            match c {
                '\\' => j += 1,
                '\'' => {
                    j += 1;
                    while self.chars.get(j).is_some_and(|&n| n != '\'') {
                        j += 1;
                    }
                }
                '"' => {
                    j += 1;
                    while let Some(&n) = self.chars.get(j) {
                        if n == '\\' {
                            j += 1;
                        } else if n == '"' {
                            break;
                        }
                        j += 1;
                    }
                }
                c if c == open => depth += 1,
                c if c == close => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        self.chars.len()
    }

    /// A redirection operator at `self.i`; a heredoc's delimiter is remembered so that its body
    /// is skipped at the end of the line.
    fn redirect(&mut self) -> Token {
        let heredoc = self.peek(0) == Some('<') && self.peek(1) == Some('<');
        if heredoc && self.peek(2) != Some('<') {
            self.i += 2;
            let strip = self.peek(0) == Some('-');
            if strip {
                self.i += 1;
            }
            while matches!(self.peek(0), Some(' ' | '\t')) {
                self.i += 1;
            }
            // The next word is the delimiter, not an argument.
            return Token::Heredoc { strip };
        }
        while self
            .peek(0)
            .is_some_and(|c| matches!(c, '<' | '>' | '&' | '|'))
        {
            self.i += 1;
        }
        // `2>&1`, `>&-`: the target is a descriptor, not a word.
        if self.chars.get(self.i.wrapping_sub(1)) == Some(&'&')
            && self.peek(0).is_some_and(|c| c.is_ascii_digit() || c == '-')
        {
            while self.peek(0).is_some_and(|c| c.is_ascii_digit() || c == '-') {
                self.i += 1;
            }
            return Token::Nothing;
        }
        Token::Redirect
    }

    /// After a newline: the bodies of the heredocs opened on the line that ended.
    fn skip_heredocs(&mut self) {
        for (delim, strip) in std::mem::take(&mut self.heredocs) {
            loop {
                let start = self.i;
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let line: String = self.chars[start..self.i].iter().collect();
                if self.peek(0).is_some() {
                    self.i += 1;
                }
                let line = if strip {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line == delim || self.peek(0).is_none() {
                    break;
                }
            }
        }
    }
}

// ---- the runners' own command lines ----

/// What a call of a runner names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Call {
    /// The names as written (targets, recipes, tasks, scripts), in order.
    pub names: Vec<String>,
    /// A missing name is not an error for the runner (`npm run x --if-present`).
    pub optional: bool,
}

/// Options that take the next word as their value.
fn takes_value(opt: &str, with_value: &[&str]) -> bool {
    !opt.contains('=') && with_value.contains(&opt)
}

/// The positional words of `args` (options and their values skipped) until `--`, or `None`
/// when an option in `refuse` says the call runs something else (another file or folder, a
/// dry run, a listing).
fn positional<'a>(args: &'a [Word], with_value: &[&str], refuse: &[&str]) -> Option<Vec<&'a Word>> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(w) = it.next() {
        let Some(t) = w.lit() else {
            out.push(w);
            continue;
        };
        if t == "--" {
            break;
        }
        if t.starts_with('-') && t.len() > 1 {
            let name = t.split_once('=').map_or(t, |(n, _)| n);
            if refuse.contains(&name)
                || refuse
                    .iter()
                    .any(|r| r.len() == 2 && !r.starts_with("--") && t.starts_with(r))
            {
                return None;
            }
            if takes_value(t, with_value) {
                it.next();
            }
            continue;
        }
        out.push(w);
    }
    Some(out)
}

/// `./scripts/x.sh`, `scripts/x.sh args`, `bash scripts/x.sh`: the path of a script the command
/// runs, as written (relative, literal; nothing expanded). A script only sourced (`. lib.sh`)
/// is not run as a command of its own.
pub(crate) fn script_call(cmd: &Simple) -> Option<String> {
    if cmd.after_cd {
        return None;
    }
    let first = cmd.words.first()?.lit()?;
    let program = first.rsplit('/').next().unwrap_or(first);
    let path = if matches!(program, "sh" | "bash" | "zsh" | "dash" | "ksh") {
        let mut args = cmd.args().iter();
        loop {
            let w = args.next()?;
            let t = w.lit()?;
            if t == "-c" || t == "-s" {
                return None;
            }
            if !t.starts_with('-') {
                break t;
            }
        }
    } else {
        if !first.contains('/') {
            return None;
        }
        first
    };
    if path.starts_with('/') || path.starts_with('~') || path.is_empty() {
        return None;
    }
    Some(path.to_string())
}

/// `make x y` / `$(MAKE) x`: the targets, when the call runs this same makefile. Make variables
/// (`$(MAKE)`) must have been replaced by the caller.
pub(crate) fn make_call(cmd: &Simple) -> Option<Call> {
    let words = make_words(cmd)?;
    let names: Vec<String> = words
        .into_iter()
        .filter_map(Word::lit)
        // `-j 4`: a job count, not a target; `VAR=x`: a variable.
        .filter(|w| !w.contains('=') && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect();
    (!names.is_empty()).then_some(Call {
        names,
        optional: false,
    })
}

/// A `make` call from another runner (an npm script): its targets, a name made at run time
/// written as a pattern (`test-$shell` as `test-*`), and the variables it sets
/// (`TEST_SUITE=fast`; one set to a run-time value is left out, as its value is unknown).
pub(crate) struct MakeCall {
    pub targets: Vec<String>,
    pub overrides: Vec<(String, String)>,
}

/// [`MakeCall`] of `cmd`, when it runs the makefile of its folder.
pub(crate) fn make_call_with(cmd: &Simple) -> Option<MakeCall> {
    let words = make_words(cmd)?;
    let mut call = MakeCall {
        targets: Vec::new(),
        overrides: Vec::new(),
    };
    for w in words {
        if let Some((name, value)) = w.text.split_once('=')
            && is_assignment(&w.text)
        {
            if w.literal {
                call.overrides.push((name.to_string(), value.to_string()));
            }
            continue;
        }
        match w.lit() {
            Some(t) if t.chars().all(|c| c.is_ascii_digit()) => {}
            Some(t) => call.targets.push(t.to_string()),
            None => {
                let mut pattern = w.text.clone();
                for m in ["$VAR", "$SUB", "$ARITH"] {
                    pattern = pattern.replace(m, "*");
                }
                if pattern.chars().any(|c| c != '*') && !pattern.contains(['?', '[']) {
                    call.targets.push(pattern);
                }
            }
        }
    }
    (!call.targets.is_empty()).then_some(call)
}

/// The positional words of a `make` call that runs the makefile of its folder.
fn make_words(cmd: &Simple) -> Option<Vec<&Word>> {
    if !matches!(cmd.program(), Some("make" | "gmake")) || cmd.after_cd {
        return None;
    }
    positional(
        cmd.args(),
        &[
            "-I",
            "-o",
            "-W",
            "--include-dir",
            "--old-file",
            "--assume-old",
            "--what-if",
            "--new-file",
            "--assume-new",
            "--eval",
            "-O",
            "--output-sync",
        ],
        &[
            "-C",
            "--directory",
            "-f",
            "--file",
            "--makefile",
            "-n",
            "--just-print",
            "--dry-run",
            "--recon",
            "-q",
            "--question",
            "-p",
            "--print-data-base",
            "-v",
            "--version",
            "-h",
            "--help",
        ],
    )
}

/// `just a b`: the positional words (recipes, module paths, arguments), when the call runs the
/// justfile of this folder. The just parser, which knows the recipes, reads them.
pub(crate) fn just_call(cmd: &Simple) -> Option<Vec<String>> {
    if cmd.program() != Some("just") || cmd.after_cd {
        return None;
    }
    let words = positional(
        cmd.args(),
        &[
            "--shell",
            "--shell-arg",
            "--dotenv-filename",
            "--dotenv-path",
            "-E",
            "--color",
            "--command-color",
            "--chooser",
            "--list-heading",
            "--list-prefix",
            "--tempdir",
            "--timestamp-format",
            "--alias-style",
            "--explain",
        ],
        &[
            "-f",
            "--justfile",
            "-d",
            "--working-directory",
            "-g",
            "--global-justfile",
            "-l",
            "--list",
            "--summary",
            "-s",
            "--show",
            "--dump",
            "--evaluate",
            "--choose",
            "-n",
            "--dry-run",
            "-e",
            "--edit",
            "--init",
            "--fmt",
            "--variables",
            "--groups",
            "--completions",
            "-h",
            "--help",
            "-V",
            "--version",
            "--changelog",
            "--man",
            "--set",
        ],
    )?;
    let mut out = Vec::new();
    for w in words {
        // An argument built at run time ends what can be read.
        let t = w.lit()?;
        if out.is_empty() && t.contains('=') {
            continue;
        }
        out.push(t.to_string());
    }
    (!out.is_empty()).then_some(out)
}

/// `task a b`: the tasks, when the call runs the Taskfile of this folder.
pub(crate) fn task_call(cmd: &Simple) -> Option<Call> {
    if cmd.program() != Some("task") || cmd.after_cd {
        return None;
    }
    let words = positional(
        cmd.args(),
        &[
            "-o",
            "--output",
            "--output-group-begin",
            "--output-group-end",
            "-C",
            "--concurrency",
            "-I",
            "--interval",
            "--sort",
        ],
        &[
            "-d",
            "--dir",
            "-t",
            "--taskfile",
            "-g",
            "--global",
            "-l",
            "--list",
            "-a",
            "--list-all",
            "--summary",
            "-n",
            "--dry",
            "-i",
            "--init",
            "-h",
            "--help",
            "--version",
            "--status",
        ],
    )?;
    let names: Vec<String> = words
        .into_iter()
        .filter_map(Word::lit)
        .filter(|w| !w.contains('='))
        .map(str::to_string)
        .collect();
    (!names.is_empty()).then_some(Call {
        names,
        optional: false,
    })
}

/// `mise run a arg ::: b`: the tasks, when the call runs this project's tasks.
pub(crate) fn mise_call(cmd: &Simple) -> Option<Call> {
    if cmd.program() != Some("mise") || cmd.after_cd {
        return None;
    }
    let args = cmd.args();
    let mut i = 0;
    // Global options before the subcommand.
    while let Some(t) = args.get(i).and_then(Word::lit) {
        if !t.starts_with('-') {
            break;
        }
        if matches!(t, "-C" | "--cd") || t.starts_with("--cd=") {
            return None;
        }
        if matches!(t, "-E" | "--env" | "-j" | "--jobs") {
            i += 1;
        }
        i += 1;
    }
    let sub = args.get(i).and_then(Word::lit)?;
    i += 1;
    if matches!(sub, "task" | "tasks") {
        if args.get(i).and_then(Word::lit) != Some("run") {
            return None;
        }
        i += 1;
    } else if !matches!(sub, "run" | "r") {
        return None;
    }
    let mut names = Vec::new();
    let mut want = true;
    let mut it = args[i.min(args.len())..].iter();
    while let Some(w) = it.next() {
        let Some(t) = w.lit() else {
            want = false;
            continue;
        };
        if t == ":::" {
            want = true;
            continue;
        }
        if want && t.starts_with('-') {
            if matches!(t, "-C" | "--cd" | "-n" | "--dry-run") {
                return None;
            }
            if matches!(
                t,
                "-j" | "--jobs" | "-o" | "--output" | "-t" | "--tool" | "--timeout"
            ) {
                it.next();
            }
            continue;
        }
        if want {
            names.push(t.to_string());
            want = false;
        }
    }
    (!names.is_empty()).then_some(Call {
        names,
        optional: false,
    })
}

/// Subcommands of npm that run a script, and which script when it is fixed.
fn npm_script_command(sub: &str) -> Option<Option<&'static str>> {
    match sub {
        "run" | "run-script" | "rum" | "urn" => Some(None),
        "test" | "t" | "tst" => Some(Some("test")),
        "start" => Some(Some("start")),
        "stop" => Some(Some("stop")),
        "restart" => Some(Some("restart")),
        _ => None,
    }
}

/// pnpm and bun commands that are not scripts (`pnpm install`, `bun test`); yarn's are the npm
/// source's own list.
const PNPM_BUILTINS: &[&str] = &[
    "add",
    "install",
    "i",
    "update",
    "up",
    "upgrade",
    "remove",
    "rm",
    "uninstall",
    "un",
    "link",
    "ln",
    "unlink",
    "import",
    "rebuild",
    "rb",
    "prune",
    "fetch",
    "patch",
    "patch-commit",
    "exec",
    "dlx",
    "create",
    "init",
    "publish",
    "pack",
    "audit",
    "list",
    "ls",
    "outdated",
    "why",
    "env",
    "store",
    "server",
    "setup",
    "root",
    "bin",
    "config",
    "c",
    "licenses",
    "deploy",
    "doctor",
    "recursive",
    "multi",
    "m",
    "help",
];
const BUN_BUILTINS: &[&str] = &[
    "test", "x", "repl", "exec", "install", "i", "add", "a", "remove", "rm", "update", "outdated",
    "link", "unlink", "pm", "build", "init", "create", "c", "upgrade", "publish", "patch", "audit",
    "info", "why", "help",
];

/// `npm run x`, `npm test`, `yarn x`, `pnpm run x`, `bun run x`, `run-s a b`: the scripts of
/// this same package.json the call runs. `is_script` says whether a name is one of its scripts
/// (`yarn x` runs script `x` only when there is one; `run-s 'build:*'` runs every match).
pub(crate) fn npm_call(cmd: &Simple, scripts: &[&str]) -> Option<Call> {
    if cmd.after_cd {
        return None;
    }
    let program = cmd.program()?;
    let args = cmd.args();
    // Options that point the call at another package.
    const ELSEWHERE: &[&str] = &[
        "--prefix",
        "-C",
        "--dir",
        "-w",
        "--workspace",
        "--workspaces",
        "-ws",
        "-r",
        "--recursive",
        "--filter",
        "-F",
        "--cwd",
        "--global",
        "-g",
        "--include-workspace-root",
        "--workspace-root",
    ];
    let elsewhere = |w: &Word| {
        w.lit().is_some_and(|t| {
            let name = t.split_once('=').map_or(t, |(n, _)| n);
            ELSEWHERE.contains(&name)
        })
    };
    if matches!(program, "npm-run-all" | "run-s" | "run-p" | "npm-run-all2") {
        let mut names = Vec::new();
        let mut it = args.iter();
        while let Some(w) = it.next() {
            // A quoted `'build:*'` is literal; an unquoted one is a glob the shell leaves alone
            // when nothing matches it, so its text is what npm-run-all sees either way.
            let t = w.lit().unwrap_or(&w.text);
            if t.starts_with('-') {
                if matches!(t, "--npm-path" | "--max-parallel" | "-r" | "--race") {
                    it.next();
                }
                continue;
            }
            // `"build -- --watch"`: the script is the first word.
            let name = t.split_whitespace().next().unwrap_or("");
            let glob = name.contains('*');
            if glob {
                names.extend(
                    scripts
                        .iter()
                        .filter(|s| crate::text::wildcard_match(name, s))
                        .map(|s| s.to_string()),
                );
            } else if w.literal && !name.is_empty() {
                names.push(name.to_string());
            }
        }
        return (!names.is_empty()).then_some(Call {
            names,
            optional: false,
        });
    }
    if !matches!(program, "npm" | "yarn" | "pnpm" | "bun") || args.iter().any(elsewhere) {
        return None;
    }
    let mut i = 0;
    while args
        .get(i)
        .and_then(Word::lit)
        .is_some_and(|t| t.starts_with('-'))
    {
        i += 1;
    }
    let sub = args.get(i).and_then(Word::lit)?;
    let rest = &args[i + 1..];
    let optional = rest.iter().any(|w| w.lit() == Some("--if-present"));
    let first_positional = || {
        rest.iter()
            .take_while(|w| w.lit() != Some("--"))
            .find(|w| !w.lit().is_some_and(|t| t.starts_with('-')))
            .and_then(|w| w.lit())
            .map(str::to_string)
    };
    let name = match (program, npm_script_command(sub)) {
        ("npm", Some(Some(fixed))) => Some(fixed.to_string()),
        ("npm" | "yarn" | "pnpm", Some(None)) => first_positional(),
        ("bun", Some(None)) if sub == "run" => first_positional(),
        ("yarn" | "pnpm", Some(Some(fixed))) => Some(fixed.to_string()),
        ("yarn", None) if !super::npm::YARN_BUILTINS.contains(&sub) && scripts.contains(&sub) => {
            Some(sub.to_string())
        }
        ("pnpm", None) if !PNPM_BUILTINS.contains(&sub) && scripts.contains(&sub) => {
            Some(sub.to_string())
        }
        ("bun", None) if !BUN_BUILTINS.contains(&sub) && scripts.contains(&sub) => {
            Some(sub.to_string())
        }
        _ => None,
    }?;
    Some(Call {
        names: vec![name],
        optional,
    })
}

/// `yarn --cwd ./app start`, `npm --prefix web run build`, `pnpm -C docs dev`: a script of the
/// package in that folder (as written, relative to the calling package's), and the call. A
/// script name is taken as written: the other package's scripts are not known here, so only a
/// runner's own commands (`yarn --cwd app install`) are told apart.
pub(crate) fn npm_call_in(cmd: &Simple) -> Option<(String, Call)> {
    if cmd.after_cd || !matches!(cmd.program()?, "npm" | "yarn" | "pnpm" | "bun") {
        return None;
    }
    let args = cmd.args();
    let mut dir = None;
    let mut words = vec![cmd.words[0].clone()];
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        i += 1;
        if let Some(t) = w.lit() {
            let (name, value) = t.split_once('=').map_or((t, None), |(n, v)| (n, Some(v)));
            if matches!(name, "--prefix" | "-C" | "--dir" | "--cwd") {
                let value = match value {
                    Some(v) => v.to_string(),
                    None => {
                        i += 1;
                        args.get(i - 1)?.lit()?.to_string()
                    }
                };
                if dir.replace(value).is_some() {
                    return None;
                }
                continue;
            }
        }
        words.push(w.clone());
    }
    let dir = dir.filter(|d| !d.is_empty())?;
    let inner = Simple {
        words,
        ..cmd.clone()
    };
    let names: Vec<&str> = inner.args().iter().filter_map(Word::lit).collect();
    let call = npm_call(&inner, &names)?;
    Some((dir, call))
}

/// `concurrently "npm run a" "npm run b"`: the commands it starts, each a shell line.
pub(crate) fn concurrently_lines(cmd: &Simple) -> Vec<String> {
    if !matches!(cmd.program(), Some("concurrently" | "conc")) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut it = cmd.args().iter();
    while let Some(w) = it.next() {
        match w.lit() {
            Some(t) if t.starts_with('-') => {
                if matches!(
                    t,
                    "-n" | "--names"
                        | "-c"
                        | "--prefix-colors"
                        | "-p"
                        | "--prefix"
                        | "-s"
                        | "--success"
                        | "--max-processes"
                        | "-m"
                ) {
                    it.next();
                }
            }
            Some(t) => out.push(t.to_string()),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmds(text: &str) -> Vec<Vec<String>> {
        simple_commands(text)
            .into_iter()
            .map(|s| s.words.into_iter().map(|w| w.text).collect())
            .collect()
    }

    #[test]
    fn a_benchmark_runner_runs_the_commands_it_is_given() {
        assert_eq!(
            cmds(
                "hyperfine --warmup=2 -m 40 --export-json=r.json -p 'make clean' \"basic/nvm\" 'just b x'"
            ),
            [
                vec!["make", "clean"],
                vec!["basic/nvm"],
                vec!["just", "b", "x"]
            ]
        );
        assert_eq!(
            cmds("hyperfine -P n 1 5 --setup=\"npm ci\" 'sleep {n}'"),
            [vec!["npm", "ci"], vec!["sleep", "{n}"]]
        );
    }

    #[test]
    fn splits_lists_pipes_and_quotes() {
        assert_eq!(
            cmds("npm run clean && tsc -p . || echo 'npm run x'; A=1 make \"b c\" | tee log"),
            [
                vec!["npm", "run", "clean"],
                vec!["tsc", "-p", "."],
                vec!["echo", "npm run x"],
                vec!["make", "b c"],
                vec!["tee", "log"],
            ]
        );
    }

    #[test]
    fn comments_redirections_and_heredocs_are_not_commands() {
        assert_eq!(
            cmds(
                "# npm run no\nmake a > out.txt 2>&1 # npm run nope\ncat <<EOF > f\nnpm run body\nEOF\njust b"
            ),
            [vec!["make", "a"], vec!["cat"], vec!["just", "b"],]
        );
    }

    #[test]
    fn substitutions_and_shell_c_are_read() {
        let got = cmds("echo $(npm run a) `just b`; bash -c 'task c && make d'");
        assert!(
            got.contains(&vec!["npm".into(), "run".into(), "a".into()]),
            "{got:?}"
        );
        assert!(got.contains(&vec!["just".into(), "b".into()]), "{got:?}");
        assert!(got.contains(&vec!["task".into(), "c".into()]), "{got:?}");
        assert!(got.contains(&vec!["make".into(), "d".into()]), "{got:?}");
        let s = simple_commands("npm run \"$X\"");
        assert!(!s[0].words[2].literal);
    }

    #[test]
    fn prefixes_are_dropped_and_cd_is_remembered() {
        let s = simple_commands(
            "cross-env NODE_ENV=production env -i FOO=1 npm run build\ncd sub && make x",
        );
        assert_eq!(s[0].program(), Some("npm"));
        assert!(!s[0].after_cd);
        assert_eq!(s[1].program(), Some("make"));
        assert!(s[1].after_cd);
        // A `cd` in a substitution or `sh -c` moves only that shell.
        let s = simple_commands("ROOT=\"$(cd .. && pwd)\"\nsh -c 'cd x && make'\n./run.sh");
        let run = s.iter().find(|c| c.program() == Some("run.sh")).unwrap();
        assert!(!run.after_cd, "{s:?}");
        let make = s.iter().find(|c| c.program() == Some("make")).unwrap();
        assert!(make.after_cd && make.nested, "{s:?}");
    }

    #[test]
    fn a_loops_body_is_counted_inside_it() {
        let s = simple_commands(
            "for f in a b; do\n  while read -r l; do echo \"$l\"; done < \"$f\"\n  bash \"$f\"\ndone\necho end",
        );
        let loops: Vec<(Option<&str>, u32)> = s.iter().map(|c| (c.program(), c.loops)).collect();
        assert_eq!(
            loops,
            [
                (Some("for"), 0),
                (Some("read"), 2),
                (Some("echo"), 2),
                (Some("bash"), 1),
                (Some("echo"), 0)
            ]
        );
        assert_eq!(s[3].words[1].raw, "\"$f\"");
    }

    #[test]
    fn runner_calls() {
        let one = |t: &str| simple_commands(t).into_iter().next().unwrap();
        let names = |c: Option<Call>| c.map(|c| c.names).unwrap_or_default();
        assert_eq!(
            names(make_call(&one("make -j 4 -s clean all V=1"))),
            ["clean", "all"]
        );
        assert!(make_call(&one("make -C sub all")).is_none());
        assert!(make_call(&one("make -n all")).is_none());
        assert_eq!(
            just_call(&one("just --yes fmt check")).unwrap(),
            ["fmt", "check"]
        );
        assert!(just_call(&one("just -f other.just x")).is_none());
        assert_eq!(
            names(task_call(&one("task lint test -- --x"))),
            ["lint", "test"]
        );
        assert!(task_call(&one("task -d sub x")).is_none());
        assert_eq!(
            names(mise_call(&one("mise run lint --fix ::: test"))),
            ["lint", "test"]
        );
        assert_eq!(names(mise_call(&one("mise -E ci r db:seed"))), ["db:seed"]);
        assert!(mise_call(&one("mise exec -- node x")).is_none());
        let scripts = ["clean", "build:a", "build:b", "lint"];
        let npm = |t: &str| names(npm_call(&one(t), &scripts));
        let elsewhere =
            |t: &str| npm_call_in(&one(t)).map(|(dir, call)| (dir, call.names, call.optional));
        let named = |dir: &str, name: &str| Some((dir.to_string(), vec![name.to_string()], false));
        assert_eq!(elsewhere("yarn --cwd ./app start"), named("./app", "start"));
        assert_eq!(
            elsewhere("yarn --cwd=app build:app"),
            named("app", "build:app")
        );
        assert_eq!(
            elsewhere("npm --prefix web run build"),
            named("web", "build")
        );
        assert_eq!(
            elsewhere("npm run build --prefix web"),
            named("web", "build")
        );
        assert_eq!(elsewhere("pnpm -C docs dev"), named("docs", "dev"));
        assert_eq!(elsewhere("npm test --prefix=web"), named("web", "test"));
        // A runner's own command, another package's workspace or a folder known at run time
        // only: no script.
        assert_eq!(elsewhere("yarn --cwd app install"), None);
        assert_eq!(elsewhere("npm --prefix web install"), None);
        assert_eq!(elsewhere("npm --prefix web run build --workspace x"), None);
        assert_eq!(elsewhere("yarn --cwd \"$DIR\" start"), None);
        assert_eq!(elsewhere("yarn start"), None);
        assert_eq!(npm("npm run clean"), ["clean"]);
        assert_eq!(npm("npm run-script -s clean -- --x"), ["clean"]);
        assert_eq!(npm("npm test"), ["test"]);
        assert_eq!(npm("yarn lint"), ["lint"]);
        assert!(npm("yarn install").is_empty());
        assert!(npm("yarn nothere").is_empty());
        assert_eq!(npm("pnpm run lint"), ["lint"]);
        assert!(npm("bun test").is_empty());
        assert_eq!(npm("bun run lint"), ["lint"]);
        assert!(npm("npm run lint --workspace=a").is_empty());
        assert!(npm("npm --prefix x run lint").is_empty());
        assert_eq!(
            npm("run-s clean 'build:*'"),
            ["clean", "build:a", "build:b"]
        );
        assert!(
            npm_call(&one("npm run x --if-present"), &scripts)
                .unwrap()
                .optional
        );
        assert_eq!(
            concurrently_lines(&one("concurrently -n a,b \"npm run a\" 'npm run b'")),
            ["npm run a", "npm run b"]
        );
    }

    #[test]
    fn odd_input_never_panics() {
        for t in [
            "",
            "$(",
            "`",
            "'",
            "\"",
            "\\",
            "$((",
            "${",
            "<<",
            "<<-",
            "a <<",
            ">",
            "2>",
            "&>",
            "$(echo $(echo `x`))",
            "sh -c",
            "bash -c \"",
            "((((",
            "))))",
            "\u{fffd}$é",
        ] {
            let _ = simple_commands(t);
        }
        let deep = "$(".repeat(500);
        let _ = simple_commands(&deep);
        // Long runs of redirections and heredocs cost no stack.
        for unit in ["2>&1 ", "<<a ", "> ", "<<-", "&>x "] {
            let _ = simple_commands(&unit.repeat(60_000));
        }
    }
}
