//! Shell text, parsed with tree-sitter-bash: only what the shell would execute counts, so a
//! pattern inside a quoted argument (`echo "rm -rf /"`), a comment or a heredoc fed to `cat` is
//! not a finding, while one inside `$(…)`, `bash -c '…'`, `eval '…'`, `trap '…'` or a heredoc
//! fed to a shell is.
//!
//! The rules for each command live in `rules`; this module reads the text: words and what they
//! expand to (literal variables, `$HOME` as `~`, `$(mktemp -d)` as a temporary folder, `$(pwd)`
//! as the project), wrappers (`sudo`, `env`, `bundle exec`, `npx`, …), pipelines, redirections
//! and heredocs.

use crate::flow::Facts;
use crate::{Finding, Level};
use std::collections::{HashMap, HashSet};
use tree_sitter::{Node, Parser};

/// Nested `bash -c` / `eval` / variable expansion depth: deeper text is only flagged, never
/// re-parsed, so crafted input cannot recurse without end.
pub(crate) const MAX_DEPTH: usize = 4;
pub(crate) const MAX_TREE_DEPTH: usize = 400;

/// Where the code runs, which decides what can hurt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// On the user's machine: everything counts.
    Host,
    /// On someone else's machine (a CI runner a dispatched workflow starts): only what reaches
    /// shared things counts (publishing, pushing, deploying, changing the shared repository).
    Remote,
}

/// Analyses `text` as a shell script run on the user's machine; `first_line` is the line of
/// `text`'s first line in what the caller was given (findings carry that numbering).
pub fn analyse(text: &str, first_line: u32, out: &mut Vec<Finding>) {
    analyse_below(text, first_line, 0, out);
}

/// [`analyse`] for code run from a folder `below_root` levels below the project root: a
/// relative path that climbs no higher (`../../x` from two levels down) is inside the project.
pub fn analyse_below(text: &str, first_line: u32, below_root: u16, out: &mut Vec<Finding>) {
    analyse_script(text, first_line, below_root, &HashSet::new(), out);
}

/// [`analyse_below`] for a script that takes the variables `elsewhere` from the project files
/// it sources (`CommandItem::sourced_vars`): they are set, though not by its own text.
pub fn analyse_script(
    text: &str,
    first_line: u32,
    below_root: u16,
    elsewhere: &HashSet<String>,
    out: &mut Vec<Finding>,
) {
    let mut vars = HashMap::new();
    let at = Place {
        scope: Scope::Host,
        below_root,
        elsewhere,
    };
    analyse_nested(text, first_line, 0, &at, &mut vars, out);
}

/// [`analyse`] for code that runs in `scope`.
pub fn analyse_in(text: &str, first_line: u32, scope: Scope, out: &mut Vec<Finding>) {
    let mut vars = HashMap::new();
    let at = Place {
        scope,
        below_root: 0,
        elsewhere: &HashSet::new(),
    };
    analyse_nested(text, first_line, 0, &at, &mut vars, out);
}

/// Where code runs: whose machine, from which folder, with which variables set before it.
pub(crate) struct Place<'a> {
    pub scope: Scope,
    pub below_root: u16,
    /// Variables set outside the text: by the project files a script sources, or by the code
    /// that hands it to `bash -c`/`eval`.
    pub elsewhere: &'a HashSet<String>,
}

pub(crate) fn analyse_nested(
    text: &str,
    first_line: u32,
    depth: usize,
    at: &Place<'_>,
    vars: &mut HashMap<String, String>,
    out: &mut Vec<Finding>,
) {
    let (scope, below_root) = (at.scope, at.below_root);
    if depth > MAX_DEPTH {
        return;
    }
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_err()
    {
        return;
    }
    // `\. ./lib.sh` (the `.` builtin, escaped against an alias) after another line is read by
    // the grammar as more arguments of the line before: ` .` has the same bytes' places.
    let unescaped;
    let mut text = text;
    if text.starts_with("\\.") || text.contains("\n\\.") {
        unescaped = unescape_dot(text);
        text = &unescaped;
    }
    let Some(mut tree) = parser.parse(text, None) else {
        return;
    };
    // Where the grammar gave up (zsh syntax), a heredoc's text can be read as commands: its
    // body is blanked when no shell reads it, and the script read again.
    let blanked;
    if tree.root_node().has_error()
        && let Some(b) = blank_text_heredocs(text)
        && let Some(t) = parser.parse(&b, None)
    {
        blanked = b;
        text = &blanked;
        tree = t;
    }
    let root = tree.root_node();
    let functions = function_ranges(root, text.as_bytes());
    let facts = Facts::of(root, text.as_bytes());
    let homes = facts
        .used
        .iter()
        .filter(|n| {
            !facts.assigned.contains(*n)
                && !at.elsewhere.contains(*n)
                && is_tool_home(n, &facts.programs)
        })
        .cloned()
        .collect();
    let mut elsewhere = at.elsewhere.clone();
    elsewhere.extend(facts.assigned.iter().cloned());
    let mut a = Analyser {
        src: text.as_bytes(),
        first_line,
        depth,
        scope,
        below_root,
        vars,
        out,
        nest: 0,
        functions,
        called: HashSet::new(),
        dispatch: false,
        called_prefixes: HashSet::new(),
        facts,
        homes,
        elsewhere,
        at: 0,
        inline: 0,
        cwd: None,
    };
    a.walk(root);
    // A test harness the script hands itself to (`run_tests` of a helper, shunit2, bashunit)
    // runs every function named `test…`, though nothing in this text calls one.
    if a.called.iter().any(|name| {
        let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
        base != "test"
            && (base.contains("test") || base.contains("shunit"))
            && !a.functions.iter().any(|f| &f.name == name)
    }) {
        a.called_prefixes.insert("test".to_string());
    }
    // A function's body runs only when something that runs calls it: a library of functions
    // (a shell plugin, a sourced helper file) does nothing when the file itself is run. A
    // call by name walks the body there and then (`call_function`); the rest are walked here:
    // a positional parameter run as a command (`"$@"`, `$1`) may call any of them.
    loop {
        let next = a.functions.iter().position(|f| {
            !f.active
                && (a.dispatch
                    || a.called.contains(&f.name)
                    || a.called_prefixes
                        .iter()
                        .any(|p| f.name.starts_with(p.as_str())))
        });
        let Some(i) = next else { break };
        a.functions[i].active = true;
        let (start, end) = (a.functions[i].start, a.functions[i].end);
        a.walk_within(root, start, end);
    }
}

/// `text` with the bodies of the heredocs no shell reads (`cat > f <<'EOF'`) replaced by
/// empty lines (so lines keep their numbers); `None` when there are none. A body that expands
/// commands (`$(…)`, backticks) under an unquoted delimiter is kept: those run.
fn blank_text_heredocs(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    let mut changed = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        out.push(line);
        i += 1;
        let Some(at) = line.find("<<").filter(|&a| !line[a..].starts_with("<<<")) else {
            continue;
        };
        let mut rest = &line[at + 2..];
        let dash = rest.starts_with('-');
        if dash {
            rest = &rest[1..];
        }
        let rest = rest.trim_start();
        let quoted = rest.starts_with(['\'', '"', '\\']);
        let delim: String = rest
            .trim_start_matches(['\'', '"', '\\'])
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        if delim.is_empty() {
            continue;
        }
        // A heredoc a shell or an interpreter reads is code.
        let first = line.split_whitespace().find(|w| {
            !matches!(
                *w,
                "sudo" | "env" | "command" | "exec" | "then" | "do" | "{" | "("
            ) && !w.contains('=')
        });
        let reads_code = first.is_some_and(|w| {
            let w = basename(w);
            is_shell(w) || is_interpreter(w) || matches!(w, "ssh" | "eval" | "source" | ".")
        }) || {
            // A pipe into the command (not `>|`, not `||`).
            let b = &line.as_bytes()[..at];
            (0..b.len()).any(|k| {
                b[k] == b'|'
                    && (k == 0 || !matches!(b[k - 1], b'>' | b'|'))
                    && b.get(k + 1) != Some(&b'|')
            })
        };
        let end = lines[i..].iter().position(|l| {
            let l = if dash { l.trim_start_matches('\t') } else { l };
            l.trim_end() == delim
        });
        let Some(end) = end else { continue };
        let body = &lines[i..i + end];
        let expands = !quoted && body.iter().any(|l| l.contains("$(") || l.contains('`'));
        if reads_code || expands {
            continue;
        }
        out.extend(std::iter::repeat_n("", end));
        i += end;
        changed = changed || end > 0;
    }
    changed.then(|| out.join("\n"))
}

/// The body of a shell function, by bytes: walked only once the function is called.
#[derive(Debug)]
pub(crate) struct FunctionBody {
    name: String,
    start: usize,
    end: usize,
    active: bool,
}

/// The function bodies of a script: from the grammar's definitions and, where the grammar
/// gave up (zsh syntax leaves an ERROR node), from the text (`name() {`, `function name {`).
fn function_ranges(root: Node, src: &[u8]) -> Vec<FunctionBody> {
    let mut out = Vec::new();
    for (name, def) in function_definitions(root, src) {
        if let Some(body) = def.child_by_field_name("body") {
            out.push(FunctionBody {
                name,
                start: body.start_byte(),
                end: body.end_byte(),
                active: false,
            });
        }
    }
    if root.has_error() {
        for f in textual_functions(src) {
            if !out.iter().any(|g| g.start < f.end && f.start < g.end) {
                out.push(f);
            }
        }
    }
    out
}

/// `name() {`, `function name {`, `function name() {` at the start of a line, to the `}`
/// that closes it (braces inside quotes and comments not counted).
fn textual_functions(src: &[u8]) -> Vec<FunctionBody> {
    let text = String::from_utf8_lossy(src);
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let here = offset;
        offset += line.len();
        let t = line.trim_start();
        let indent = line.len() - t.len();
        let (keyword, rest) = match t.strip_prefix("function ") {
            Some(r) => (true, r.trim_start()),
            None => (false, t),
        };
        let name_len = rest
            .find(|c: char| {
                !(c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '.' | '+' | '@'))
            })
            .unwrap_or(rest.len());
        if name_len == 0 {
            continue;
        }
        let name = &rest[..name_len];
        let mut after = rest[name_len..].trim_start();
        let parens = after.starts_with("()");
        if parens {
            after = after[2..].trim_start();
        }
        if !(keyword || parens) || !after.starts_with('{') {
            continue;
        }
        let open = here + indent + (t.len() - after.len());
        if let Some(close) = closing_brace(src, open) {
            out.push(FunctionBody {
                name: name.to_string(),
                start: open,
                end: close + 1,
                active: false,
            });
        }
    }
    out
}

/// The `}` matching the `{` at `open`, skipping quoted text and comments.
fn closing_brace(src: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    let mut quote: Option<u8> = None;
    while i < src.len() {
        let b = src[i];
        match quote {
            Some(q) => {
                if b == b'\\' && q == b'"' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'\\' => i += 1,
                b'\'' | b'"' => quote = Some(b),
                b'#' if i == 0 || src[i - 1].is_ascii_whitespace() => {
                    while i < src.len() && src[i] != b'\n' {
                        i += 1;
                    }
                }
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// Drops the options before a wrapper's program (`sudo -u x`, `xargs -n 1`): `with_value`
/// take the next word too.
fn skip_options(words: &mut Vec<Word>, with_value: &[&str]) {
    let mut i = 0;
    while i < words.len() {
        let t = words[i].text();
        if with_value.contains(&t.as_str()) {
            i += 2;
        } else if t.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    words.drain(..i.min(words.len()));
}

/// Every function definition in the tree, by name, outermost first.
fn function_definitions<'t>(root: Node<'t>, src: &[u8]) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        if depth > MAX_TREE_DEPTH {
            continue;
        }
        if n.kind() == "function_definition"
            && let Some(name) = n.child_by_field_name("name")
        {
            out.push((name.utf8_text(src).unwrap_or("").to_string(), n));
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        stack.extend(kids.into_iter().rev().map(|k| (k, depth + 1)));
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    Lit(String),
    /// An expansion whose value is unknown; `guarded` when it fails or has a default when
    /// empty (`${X:?}`, `${X:-y}`).
    Var {
        name: String,
        guarded: bool,
    },
    /// `$(…)`, `<(…)`, `$((…))`: the raw text.
    Subst(String),
}

#[derive(Debug, Clone)]
pub(crate) struct Word {
    pub raw: String,
    pub pieces: Vec<Piece>,
}

impl Word {
    pub fn lit(text: &str) -> Word {
        Word {
            raw: text.to_string(),
            pieces: vec![Piece::Lit(text.to_string())],
        }
    }

    /// The value when it has no run-time part.
    pub fn literal(&self) -> Option<String> {
        let mut s = String::new();
        for p in &self.pieces {
            match p {
                Piece::Lit(t) => s.push_str(t),
                _ => return None,
            }
        }
        Some(s)
    }

    /// The value with unknown parts written as `$name` / `$(…)`, for matching and messages.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for p in &self.pieces {
            match p {
                Piece::Lit(t) => s.push_str(t),
                Piece::Var { name, .. } => {
                    s.push('$');
                    s.push_str(name);
                }
                Piece::Subst(r) => s.push_str(r),
            }
        }
        s
    }

    pub fn substs(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Subst(r) => Some(r.as_str()),
            _ => None,
        })
    }
}

pub(crate) struct Cmd {
    pub name: String,
    pub args: Vec<Word>,
    pub line: u32,
    pub snippet: String,
}

impl Cmd {
    pub fn has_flag(&self, short: char, long: &str) -> bool {
        self.args.iter().any(|a| {
            let t = a.text();
            if let Some(l) = t.strip_prefix("--") {
                !long.is_empty()
                    && (l == long || l.strip_prefix(long).is_some_and(|r| r.starts_with('=')))
            } else if let Some(s) = t.strip_prefix('-') {
                !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()) && s.contains(short)
            } else {
                false
            }
        })
    }

    pub fn arg_texts(&self) -> Vec<String> {
        self.args.iter().map(Word::text).collect()
    }

    /// Arguments that are not options.
    pub fn operands(&self) -> Vec<&Word> {
        let mut after_dd = false;
        let mut out = Vec::new();
        for a in &self.args {
            let t = a.text();
            if !after_dd && t == "--" {
                after_dd = true;
                continue;
            }
            if !after_dd && t.starts_with('-') && t.len() > 1 {
                continue;
            }
            out.push(a);
        }
        out
    }

    /// The first operand, skipping options that take a value (`git -C dir push`).
    pub fn subcommand(&self, with_value: &[&str]) -> Option<(usize, String)> {
        let mut skip = false;
        for (i, a) in self.args.iter().enumerate() {
            let t = a.text();
            if skip {
                skip = false;
                continue;
            }
            if with_value.contains(&t.as_str()) {
                skip = true;
                continue;
            }
            if t.starts_with('-') {
                continue;
            }
            return Some((i, t));
        }
        None
    }

    /// The same command with its first `n` arguments taken off and the next as its name.
    pub fn shifted(&self, n: usize) -> Option<Cmd> {
        let first = self.args.get(n)?;
        Some(Cmd {
            name: basename(&first.text()).to_string(),
            args: self.args[n + 1..].to_vec(),
            line: self.line,
            snippet: self.snippet.clone(),
        })
    }
}

pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "mksh", "busybox",
];
const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "php",
    "pwsh",
    "powershell",
];
pub(crate) const DOWNLOADERS: &[&str] = &[
    "curl", "wget", "fetch", "http", "https", "xh", "aria2c", "iwr", "irm",
];
pub(crate) const DECODERS: &[&str] = &["base64", "base32", "xxd", "openssl", "uudecode", "rev"];
pub(crate) const NETWORK: &[&str] = &[
    "curl", "wget", "nc", "ncat", "netcat", "scp", "rsync", "http", "https", "xh", "socat", "sftp",
    "ftp",
];

/// Variables that name a well-known tool (`$(GIT)`, `${DOCKER}`, make's `$(RM)`): used as a
/// command name they run that tool.
const TOOL_VARIABLES: &[(&str, &str)] = &[
    ("GIT", "git"),
    ("DOCKER", "docker"),
    ("PODMAN", "podman"),
    ("GO", "go"),
    ("GOCMD", "go"),
    ("CARGO", "cargo"),
    ("NPM", "npm"),
    ("PNPM", "pnpm"),
    ("YARN", "yarn"),
    ("RM", "rm"),
    ("KUBECTL", "kubectl"),
    ("HELM", "helm"),
    ("TERRAFORM", "terraform"),
    ("PIP", "pip"),
    ("TWINE", "twine"),
    ("GH", "gh"),
    ("AWS", "aws"),
    ("CURL", "curl"),
    ("WGET", "wget"),
    ("SUDO", "sudo"),
    ("INSTALL", "install"),
    ("CP", "cp"),
    ("MV", "mv"),
    ("LN", "ln"),
    ("MKDIR", "mkdir"),
    ("CHMOD", "chmod"),
    ("GEM", "gem"),
    ("BUNDLE", "bundle"),
    ("RAKE", "rake"),
    ("MVN", "mvn"),
];

/// `$(ssh-agent -s)`, `$(direnv export bash)`: tools whose whole job is printing shell code for
/// `eval`.
pub(crate) fn is_env_setup(subst: &str) -> bool {
    let inner = subst.trim_start_matches(['$', '<']).trim_start_matches('(');
    let first = inner.split_whitespace().next().unwrap_or("");
    matches!(
        basename(first),
        "ssh-agent"
            | "direnv"
            | "pyenv"
            | "rbenv"
            | "nodenv"
            | "goenv"
            | "jenv"
            | "fnm"
            | "brew"
            | "starship"
            | "zoxide"
            | "conda"
            | "mise"
            | "rtx"
            | "asdf"
            | "dircolors"
            | "gpg-agent"
            | "keychain"
            | "opam"
            | "luarocks"
            | "rustup"
            | "nvm"
            | "docker-machine"
            | "minikube"
    )
}

/// `text` with each `\.` that starts a line (after indentation) and is followed by a blank
/// written ` .`.
fn unescape_dot(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
        match line[lead..].strip_prefix("\\.") {
            Some(rest) if rest.starts_with([' ', '\t']) => {
                out.push_str(&line[..lead]);
                out.push_str(" .");
                out.push_str(rest);
            }
            _ => out.push_str(line),
        }
    }
    out
}

pub(crate) fn basename(s: &str) -> &str {
    let s = s.trim_start_matches('\\');
    s.rsplit('/').next().unwrap_or(s)
}

/// Where well-known tools keep what they install, by variable.
const TOOL_HOMES: &[&str] = &[
    "NVM_DIR",
    "SDKMAN_DIR",
    "ASDF_DIR",
    "ASDF_DATA_DIR",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "VOLTA_HOME",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_INSTALL",
    "DENO_DIR",
    "N_PREFIX",
    "FNM_DIR",
    "NVS_HOME",
    "GVM_ROOT",
    "rvm_path",
    "PIPX_HOME",
    "POETRY_HOME",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "ANDROID_HOME",
    "ANDROID_SDK_ROOT",
    "GRADLE_USER_HOME",
    "M2_HOME",
    "MAVEN_HOME",
    "CONDA_PREFIX",
    "MISE_DATA_DIR",
    "PROTO_HOME",
];

/// First words of place variables that name the project's own folders, not a tool's.
const PROJECT_PLACES: &[&str] = &[
    "build", "out", "output", "src", "source", "test", "tests", "tmp", "temp", "work", "cache",
    "data", "log", "logs", "config", "conf", "base", "root", "top", "dist", "target", "bin", "lib",
    "install", "dest", "script", "scripts", "repo", "project", "proj", "docs", "doc", "site",
    "app", "deps", "vendor", "pkg", "release", "backup", "download", "staging", "prefix",
    "current", "parent", "this", "my", "local", "home", "share", "run", "state", "git", "ci",
];

/// Whether the variable `name` says where a tool lives (`PYENV_ROOT`, `NVM_DIR`,
/// `CARGO_HOME`): a well-known one, a version manager's `*ENV_ROOT`, or `<tool>_HOME`-like
/// for a tool the script runs (`FOO_DIR` where it runs `foo`).
pub(crate) fn is_tool_home(name: &str, programs: &HashSet<String>) -> bool {
    if TOOL_HOMES.contains(&name) {
        return true;
    }
    let upper = name.to_ascii_uppercase();
    let Some(prefix) = ["_ROOT", "_DIR", "_HOME", "_INSTALL", "_PREFIX"]
        .iter()
        .find_map(|s| upper.strip_suffix(s))
    else {
        return false;
    };
    let tool = prefix.to_ascii_lowercase();
    !tool.is_empty()
        && !PROJECT_PLACES.contains(&tool.as_str())
        && (tool.ends_with("env") && !tool.contains('_') || programs.contains(&tool))
}

pub(crate) fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

pub(crate) fn is_interpreter(name: &str) -> bool {
    is_shell(name)
        || INTERPRETERS.contains(&name)
        || name.starts_with("python3.")
        || name.starts_with("python2.")
}

pub(crate) fn mentions_any(raw: &str, names: &[&str]) -> Option<String> {
    raw.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .find(|w| names.contains(w))
        .map(str::to_string)
}

/// What a command substitution stands for when its value is known in kind: a fresh temporary
/// folder (`mktemp -d`), the project (`pwd`, `dirname "$0"`, `git rev-parse --show-toplevel`).
fn known_substitution(raw: &str) -> Option<&'static str> {
    let inner = raw
        .trim_start_matches('$')
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let inner = inner.trim_start_matches('`').trim_end_matches('`').trim();
    // `$(cd "$(dirname "$0")/.." && pwd)`: the last command decides.
    let last = inner.rsplit("&&").next().unwrap_or(inner).trim();
    let first = last.split_whitespace().next().unwrap_or("");
    match basename(first) {
        "mktemp" => Some(TEMP_DIR),
        "pwd" => Some("."),
        "dirname" | "realpath" | "readlink"
            if last.contains("$0") || last.contains("BASH_SOURCE") =>
        {
            Some(".")
        }
        "git" if last.contains("--show-toplevel") => Some("."),
        _ => None,
    }
}

/// Marks a variable's value as a template: text with run-time parts, not a literal.
const TEMPLATE: char = '\u{1}';

fn ensure_template(v: &str) -> String {
    if v.starts_with(TEMPLATE) {
        v.to_string()
    } else {
        format!("{TEMPLATE}{v}")
    }
}

/// The value `$(mktemp -d)` and friends stand for: somewhere under the temporary folder.
pub(crate) const TEMP_DIR: &str = "/tmp/mktemp";

pub(crate) struct Analyser<'a> {
    pub src: &'a [u8],
    pub first_line: u32,
    pub depth: usize,
    pub scope: Scope,
    /// How many folders the code's working folder is below the project root.
    pub below_root: u16,
    pub vars: &'a mut HashMap<String, String>,
    pub out: &'a mut Vec<Finding>,
    pub nest: usize,
    /// The script's function bodies: walked only once called (see `analyse_nested`).
    pub functions: Vec<FunctionBody>,
    /// Names of the commands run so far, and whether one was a name computed at run time.
    pub called: HashSet<String>,
    pub dispatch: bool,
    /// Literal beginnings of names made at run time (`build_package_` of
    /// `"build_package_${step}"`): every function named so may be called.
    pub called_prefixes: HashSet<String>,
    /// What the whole script says about its variables (`flow`).
    pub facts: Facts,
    /// Tool homes it reads but never sets (`$PYENV_ROOT`, `$NVM_DIR`): the user's own
    /// installs of those tools, outside the project.
    pub homes: HashSet<String>,
    /// Variables set before nested code runs: those set elsewhere and by this text.
    pub elsewhere: HashSet<String>,
    /// The byte the node being judged starts at.
    pub at: usize,
    /// How many function calls deep the walk is (`call_function`).
    pub inline: usize,
    /// The folder a `cd` moved to, when it is outside the project (`cd "$HOME/bin"`): an
    /// archive extracted there without `-C` lands there.
    pub cwd: Option<Word>,
}

/// Variables every session has: a default given for one is not what runs.
const ALWAYS_SET: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "PATH",
    "SHELL",
    "PWD",
    "TERM",
    "LANG",
    "USERPROFILE",
    "TMPDIR",
    "HOSTNAME",
    "UID",
    "EUID",
    "OSTYPE",
    "BASH_SOURCE",
    "BASH_VERSION",
    "ZSH_VERSION",
];

/// Nested function calls walked at their call site; deeper ones wait (`call_function`).
const MAX_INLINE: usize = 16;

/// The variable `raw` is when it is one alone: `$x`, `"$x"`, `${x}`, `"${x}"`.
pub(crate) fn lone_variable(raw: &str) -> Option<String> {
    let t = raw.trim();
    let t = t
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(t);
    let name = t
        .strip_prefix("${")
        .and_then(|r| r.strip_suffix('}'))
        .or_else(|| t.strip_prefix('$'))?;
    (name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then(|| name.to_string())
}

impl Analyser<'_> {
    pub fn text(&self, n: Node) -> String {
        n.utf8_text(self.src).unwrap_or("").to_string()
    }

    pub fn line(&self, n: Node) -> u32 {
        self.first_line + n.start_position().row as u32
    }

    /// A finding about the machine the code runs on: dropped when that is not the user's.
    pub fn add(&mut self, level: Level, line: u32, reason: impl Into<String>, snippet: &str) {
        if self.scope == Scope::Host {
            self.push(level, line, reason.into(), snippet);
        }
    }

    /// A finding about something shared (a registry, a remote repository, a deployed
    /// service): it counts wherever the code runs.
    pub fn shared(&mut self, level: Level, line: u32, reason: impl Into<String>, snippet: &str) {
        self.push(level, line, reason.into(), snippet);
    }

    fn push(&mut self, level: Level, line: u32, reason: String, snippet: &str) {
        let snippet = one_line(snippet);
        if self
            .out
            .iter()
            .any(|f| f.line == line && f.reason == reason)
        {
            return;
        }
        self.out.push(Finding {
            level,
            reason,
            line,
            snippet,
        });
    }

    /// Analyses `text` as shell code run from here (one level deeper).
    pub fn nested(&mut self, text: &str, line: u32) {
        let mut vars = self.vars.clone();
        let at = Place {
            scope: self.scope,
            below_root: self.below_root,
            elsewhere: &self.elsewhere,
        };
        analyse_nested(text, line, self.depth + 1, &at, &mut vars, self.out);
    }

    /// Whether `n` lies in the body of a function nothing has called yet.
    fn in_uncalled_function(&self, n: Node) -> bool {
        let (s, e) = (n.start_byte(), n.end_byte());
        self.functions
            .iter()
            .any(|f| !f.active && f.start <= s && e <= f.end)
    }

    /// Walks the nodes that lie within `start..end` (a function body just called).
    fn walk_within(&mut self, n: Node, start: usize, end: usize) {
        if n.end_byte() <= start || end <= n.start_byte() || self.nest > MAX_TREE_DEPTH {
            return;
        }
        if start <= n.start_byte() && n.end_byte() <= end {
            self.walk(n);
            return;
        }
        let mut cursor = n.walk();
        let children: Vec<Node> = n.named_children(&mut cursor).collect();
        self.nest += 1;
        for c in children {
            self.walk_within(c, start, end);
        }
        self.nest -= 1;
    }

    fn walk(&mut self, n: Node) {
        // Deeper trees are not real scripts; walking them would only risk the stack.
        if self.nest > MAX_TREE_DEPTH || self.in_uncalled_function(n) {
            return;
        }
        self.at = n.start_byte();
        match n.kind() {
            "comment" | "heredoc_body" => return,
            "variable_assignment" => self.assignment(n),
            "command" => {
                if let Some(c) = self.command(n) {
                    self.check_command(&c);
                    self.call_function(n, &c.name);
                }
                for c in self.alternatives(n) {
                    self.check_command(&c);
                }
            }
            // `( cd "$BIN"; tar xf … )`: the folder changes for the subshell only.
            "subshell" | "command_substitution" => {
                let cwd = self.cwd.clone();
                self.walk_children(n);
                self.cwd = cwd;
                return;
            }
            "pipeline" => self.pipeline(n),
            "redirected_statement" => self.redirected(n),
            "file_redirect" => self.file_redirect(n),
            "function_definition" => self.fork_bomb(n),
            _ => {}
        }
        self.walk_children(n);
    }

    fn walk_children(&mut self, n: Node) {
        let mut cursor = n.walk();
        let children: Vec<Node> = n.named_children(&mut cursor).collect();
        self.nest += 1;
        for c in children {
            self.walk(c);
        }
        self.nest -= 1;
    }

    /// A call of one of the script's functions runs its body there and then, so what the body
    /// sets (`init_vars` setting `BIN`) is set for what follows the call. A function already
    /// walked is not walked again; past [`MAX_INLINE`] nested calls the body waits for the
    /// walk of called functions after the script's own text (`analyse_nested`).
    fn call_function(&mut self, n: Node, name: &str) {
        if self.inline >= MAX_INLINE || self.nest > MAX_TREE_DEPTH / 2 {
            return;
        }
        let Some(i) = self
            .functions
            .iter()
            .position(|f| !f.active && f.name == name)
        else {
            return;
        };
        self.functions[i].active = true;
        let (start, end) = (self.functions[i].start, self.functions[i].end);
        let mut root = n;
        while let Some(p) = root.parent() {
            root = p;
        }
        let at = self.at;
        let before = self.vars.clone();
        self.inline += 1;
        self.walk_within(root, start, end);
        self.inline -= 1;
        self.at = at;
        // The callee's `local` variables are gone when it returns: the caller's own are back.
        let name = self.functions[i].name.clone();
        let locals: Vec<String> = self
            .vars
            .keys()
            .filter(|k| self.facts.is_local(&name, k))
            .cloned()
            .collect();
        for k in locals {
            match before.get(&k) {
                Some(v) => self.vars.insert(k, v.clone()),
                None => self.vars.remove(&k),
            };
        }
    }

    /// The command `n` is when the variable it is named by holds another of the values the
    /// script gives it: `$sh_c 'apt-get install …'` with `sh_c='sudo -E sh -c'` when not root
    /// and `sh_c=echo` for a dry run runs under sudo on some path.
    fn alternatives(&mut self, n: Node) -> Vec<Cmd> {
        let Some(name_node) = n.child_by_field_name("name") else {
            return Vec::new();
        };
        let raw = self.text(name_node);
        let Some(var) = lone_variable(&raw) else {
            return Vec::new();
        };
        let Some(values) = self.facts.values.get(&var).filter(|v| v.len() > 1).cloned() else {
            return Vec::new();
        };
        let current = self.vars.get(&var).cloned();
        let args = self.arg_words(n, name_node);
        let line = self.line(n);
        let snippet = self.text(n);
        let mut out = Vec::new();
        for v in values {
            if Some(&v) == current.as_ref() || v.trim().is_empty() {
                continue;
            }
            let mut words: Vec<Word> = v.split_whitespace().map(Word::lit).collect();
            words.extend(args.iter().cloned());
            if let Some(c) = self.unwrap(words, line, &snippet, 1) {
                self.called.insert(c.name.clone());
                out.push(c);
            }
        }
        out
    }

    /// A command's arguments, up to a line end the grammar ran over.
    fn arg_words(&self, n: Node, name_node: Node) -> Vec<Word> {
        let mut words = Vec::new();
        let mut cursor = n.walk();
        let mut prev_end = name_node.end_byte();
        for a in n.children_by_field_name("argument", &mut cursor) {
            // tree-sitter-bash sometimes runs a command on over a line end (`… | bash` then a
            // line with a redirect): a newline that is not escaped ends the command.
            let gap = &self.src[prev_end.min(a.start_byte())..a.start_byte()];
            if gap.contains(&b'\n') && !gap.windows(2).any(|w| w == b"\\\n") {
                break;
            }
            prev_end = a.end_byte();
            words.push(self.word(a));
        }
        words
    }

    fn assignment(&mut self, n: Node) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name_node);
        // `HOME=/tmp/x cmd`: only that command sees it. `if [ -z "$HOME" ]; then HOME=…`: a
        // fallback finding the user's home. Only a script that sets HOME on every path (a test
        // helper's sandbox) writes elsewhere through it.
        if name == "HOME" && (n.parent().is_some_and(|p| p.kind() == "command") || conditional(n)) {
            return;
        }
        let append = self.src[name_node.end_byte()..].starts_with(b"+=");
        // `cmd+=" --dry-run"` under an `if`: the command may run without it, which is the
        // one that matters.
        if append && conditional(n) {
            return;
        }
        // `x="$(… && echo "$engine compose" || echo '')"`: what it prints; the first text it
        // may print stands for it, as a literal value does.
        if !append
            && let Some(v) = n
                .child_by_field_name("value")
                .and_then(|v| self.printed_values(v))
        {
            let first = v.into_iter().find(|x| !x.is_empty()).unwrap_or_default();
            self.vars.insert(name, first);
            return;
        }
        let before = if append {
            self.vars.get(&name).cloned()
        } else {
            None
        };
        // `PREFIX="${PREFIX:-/usr/local}"`: run as ct runs it, with nothing set by the caller,
        // it is the default.
        if !append
            && let Some(default) = n
                .child_by_field_name("value")
                .and_then(|v| self.self_default(&name, v))
        {
            self.vars.insert(name, default);
            return;
        }
        let value = match n.child_by_field_name("value").map(|v| self.word(v)) {
            Some(w) => match w.literal() {
                Some(v) => v,
                // Not known before it runs: kept as a template (`cmd="pnpm publish --tag
                // ${tag}"`), which only `eval "$cmd"` reads.
                None => format!("{TEMPLATE}{}", w.text()),
            },
            None => String::new(),
        };
        // `g_mirror_folder_name="$1"` under an `if`: on the other paths the variable keeps the
        // value it had (`node`), which is what is known.
        if !append
            && value.starts_with(TEMPLATE)
            && conditional(n)
            && self
                .vars
                .get(&name)
                .is_some_and(|v| !v.starts_with(TEMPLATE))
        {
            return;
        }
        let value = match before {
            Some(b) => match (b.starts_with(TEMPLATE), value.strip_prefix(TEMPLATE)) {
                (_, Some(v)) => format!("{}{v}", ensure_template(&b)),
                (true, None) => format!("{b}{value}"),
                (false, None) => format!("{b}{value}"),
            },
            None if append => format!("{TEMPLATE}${name}{}", value.trim_start_matches(TEMPLATE)),
            None => value,
        };
        self.vars.insert(name, value);
    }

    /// The values a command substitution that is the whole of `value` prints, when all it
    /// prints is literal text (`echo`, `printf` without a format) and whatever else it runs
    /// prints nothing (a test, output sent to /dev/null): each `echo` is one value it may have.
    fn printed_values(&self, value: Node) -> Option<Vec<String>> {
        let mut v = value;
        if v.kind() == "string" && v.named_child_count() == 1 {
            v = v.named_child(0)?;
        }
        if v.kind() != "command_substitution" {
            return None;
        }
        let mut out: Vec<String> = Vec::new();
        let mut stack = vec![(v, 0usize)];
        while let Some((k, depth)) = stack.pop() {
            if depth > MAX_TREE_DEPTH {
                return None;
            }
            match k.kind() {
                "command_substitution" | "process_substitution" | "subshell" if k != v => {
                    return None;
                }
                "command" => {
                    let name_node = k.child_by_field_name("name")?;
                    let name = self.word(name_node).literal().unwrap_or_default();
                    let args = self.arg_words(k, name_node);
                    let printed = match name.as_str() {
                        "echo" => {
                            let words: Vec<&Word> = args
                                .iter()
                                .skip_while(|a| matches!(a.text().as_str(), "-n" | "-e" | "-E"))
                                .collect();
                            words
                                .iter()
                                .map(|w| w.literal())
                                .collect::<Option<Vec<String>>>()?
                                .join(" ")
                        }
                        "printf" => {
                            let format = args.first()?.literal()?;
                            let rest = args[1..]
                                .iter()
                                .map(Word::literal)
                                .collect::<Option<Vec<String>>>()?;
                            match format.trim_end_matches("\\n") {
                                "%s" => rest.join(" "),
                                f if !f.contains('%') && rest.is_empty() => f.to_string(),
                                _ => return None,
                            }
                        }
                        "[" | "[[" | "test" | "true" | "false" | ":" => continue,
                        _ if silenced(k, self.src) => continue,
                        _ => return None,
                    };
                    if !out.contains(&printed) {
                        out.push(printed);
                    }
                }
                _ => {
                    let mut c = k.walk();
                    stack.extend(k.named_children(&mut c).map(|x| (x, depth + 1)));
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The literal default of `${name:-default}` (also `-`, `=`, `:=`) when `value` is just
    /// that expansion of the variable being set.
    fn self_default(&self, name: &str, value: Node) -> Option<String> {
        let mut n = value;
        if n.kind() == "string" {
            if n.named_child_count() != 1 {
                return None;
            }
            n = n.named_child(0)?;
        }
        if n.kind() != "expansion" || n.named_child_count() != 2 {
            return None;
        }
        let t = self.text(n);
        let inner = t.strip_prefix("${")?;
        let other: String = inner
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `BIN="${DOCKER_BIN:-$HOME/bin}"`: the default of a variable the script never sets,
        // nor the system always does, is the value too.
        if other != name
            && (self.elsewhere.contains(&other)
                || self.vars.contains_key(&other)
                || !other.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                || ALWAYS_SET.contains(&other.as_str()))
        {
            return None;
        }
        let rest = &inner[other.len()..];
        if !["-", ":-", "=", ":="].iter().any(|op| rest.starts_with(op))
            || rest.starts_with(":-") && rest.len() < 3
        {
            return None;
        }
        let default = self.word(n.named_child(1)?).literal()?;
        (!default.is_empty()).then_some(default)
    }

    /// The code a variable holds when it was set from text with run-time parts.
    pub fn template(&self, name: &str) -> Option<&str> {
        self.vars.get(name).and_then(|v| v.strip_prefix(TEMPLATE))
    }

    /// What the script set `name` to, literal or with its run-time parts written as `$x`.
    pub fn assigned(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(|v| v.strip_prefix(TEMPLATE).unwrap_or(v))
    }

    pub fn word(&self, n: Node) -> Word {
        let mut pieces = Vec::new();
        self.pieces(n, &mut pieces);
        Word {
            raw: self.text(n),
            pieces,
        }
    }

    fn var_piece(&self, name: &str, guarded: bool) -> Piece {
        match name {
            // A script that points HOME elsewhere (a test helper's sandbox, `HOME="$BASE_DIR"`)
            // writes there from then on, not into the user's home.
            "HOME" if self.vars.contains_key("HOME") => match self.vars.get(name) {
                Some(v) if !guarded && !v.starts_with(TEMPLATE) => Piece::Lit(v.clone()),
                _ => Piece::Var {
                    name: name.to_string(),
                    guarded,
                },
            },
            "HOME" | "USERPROFILE" => Piece::Lit("~".into()),
            "PWD" => Piece::Lit(".".into()),
            "TMPDIR" | "RUNNER_TEMP" | "TMP" | "TEMP" => Piece::Lit(TEMP_DIR.into()),
            _ => match self.vars.get(name) {
                Some(v) if !guarded && !v.starts_with(TEMPLATE) => Piece::Lit(v.clone()),
                _ => Piece::Var {
                    name: name.to_string(),
                    guarded,
                },
            },
        }
    }

    fn pieces(&self, n: Node, out: &mut Vec<Piece>) {
        match n.kind() {
            "word" | "number" | "command_name" if n.named_child_count() == 0 => {
                out.push(Piece::Lit(unescape(&self.text(n))))
            }
            "raw_string" => {
                let t = self.text(n);
                out.push(Piece::Lit(
                    t.strip_prefix('\'')
                        .and_then(|t| t.strip_suffix('\''))
                        .unwrap_or(&t)
                        .to_string(),
                ))
            }
            "ansi_c_string" => {
                let t = self.text(n);
                out.push(Piece::Lit(
                    t.strip_prefix("$'")
                        .and_then(|t| t.strip_suffix('\''))
                        .unwrap_or(&t)
                        .to_string(),
                ))
            }
            "string_content" => out.push(Piece::Lit(unescape_dq(&self.text(n)))),
            "simple_expansion" => {
                // In a string, the grammar starts the node at the blank before it (`"$a $b"`):
                // that blank is text.
                let t = self.text(n);
                let name = t.trim_start();
                if name.len() < t.len() {
                    out.push(Piece::Lit(t[..t.len() - name.len()].to_string()));
                }
                out.push(self.var_piece(name.trim_start_matches('$'), false));
            }
            "expansion" => {
                let t = self.text(n);
                let inner = t.trim_start_matches("${").trim_end_matches('}').to_string();
                let name: String = inner
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let rest = &inner[name.len()..];
                let guarded = rest.starts_with(":?")
                    || rest.starts_with('?')
                    || rest.starts_with(":-")
                    || rest.starts_with('-')
                    || rest.starts_with(":=")
                    || rest.starts_with('=');
                let known = self.vars.get(&name).filter(|v| !v.starts_with(TEMPLATE));
                if let Some(v) = known
                    && matches!(rest, "%/" | "%%/")
                {
                    // `${PREFIX%/}`: the same folder without a trailing slash.
                    out.push(Piece::Lit(v.trim_end_matches('/').to_string()));
                } else if name.is_empty() || !(rest.is_empty() || guarded) {
                    out.push(Piece::Var {
                        name: inner.clone(),
                        guarded: false,
                    });
                } else {
                    out.push(self.var_piece(&name, guarded));
                }
            }
            "command_substitution" => {
                let t = self.text(n);
                match known_substitution(&t) {
                    Some(v) => out.push(Piece::Lit(v.to_string())),
                    None => out.push(Piece::Subst(t)),
                }
            }
            "process_substitution" | "arithmetic_expansion" => out.push(Piece::Subst(self.text(n))),
            "string" | "concatenation" | "command_name" | "translated_string" => {
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                if n.kind() == "string" && kids.is_empty() {
                    out.push(Piece::Lit(String::new()));
                }
                // Text between the named parts of a concatenation (`a"b"c`) is anonymous; so
                // are the line breaks around a string's parts (`"\n. $P\nfnm install\n"`).
                let string = n.kind() == "string" && self.src.get(n.start_byte()) == Some(&b'"');
                let mut end = n.start_byte() + usize::from(string);
                for k in kids {
                    if n.kind() == "concatenation" && k.start_byte() > end {
                        let gap = String::from_utf8_lossy(&self.src[end..k.start_byte()]);
                        out.push(Piece::Lit(unescape(&gap)));
                    }
                    if string && k.start_byte() > end {
                        let gap = String::from_utf8_lossy(&self.src[end..k.start_byte()]);
                        if gap.trim().is_empty() {
                            out.push(Piece::Lit(gap.into_owned()));
                        }
                    }
                    self.pieces(k, out);
                    end = k.end_byte();
                }
                if n.kind() == "concatenation" && n.end_byte() > end {
                    let gap = String::from_utf8_lossy(&self.src[end..n.end_byte()]);
                    out.push(Piece::Lit(unescape(&gap)));
                }
                if string && n.end_byte() > end + 1 {
                    let gap = String::from_utf8_lossy(&self.src[end..n.end_byte() - 1]);
                    if gap.trim().is_empty() {
                        out.push(Piece::Lit(gap.into_owned()));
                    }
                }
            }
            _ => out.push(Piece::Lit(self.text(n))),
        }
    }

    /// The command with wrappers (`sudo`, `env`, `nohup`, …) taken off; `sudo` is a finding.
    pub fn command(&mut self, n: Node) -> Option<Cmd> {
        let name_node = n.child_by_field_name("name")?;
        let name_word = self.word(name_node);
        match name_word.literal() {
            Some(name) => {
                // A file sourced is recorded by its name too (`. "$(dirname "$0")/shunit2"`):
                // what it is says whether a harness takes over (see `analyse_script`).
                if matches!(name.as_str(), "." | "source")
                    && let Some(arg) = n.child_by_field_name("argument")
                {
                    let t = self.text(arg);
                    let base = t.trim_matches(['"', '\'']).rsplit('/').next().unwrap_or("");
                    if !base.is_empty() {
                        self.called.insert(format!("source:{base}"));
                    }
                }
                self.called.insert(name);
            }
            // Exactly a positional parameter (`"$@"`, `$1`, `${1}`), not text around one.
            None if matches!(
                name_word
                    .pieces
                    .iter()
                    .filter(|p| !matches!(p, Piece::Lit(t) if t.is_empty()))
                    .collect::<Vec<_>>()[..],
                [Piece::Var { name, .. }] if name == "@" || name == "*" || name.parse::<u8>().is_ok()
            ) =>
            {
                self.dispatch = true
            }
            // `"build_package_${step}"`: any function whose name starts that way.
            None => {
                if let Some(Piece::Lit(prefix)) = name_word.pieces.first()
                    && !prefix.is_empty()
                    && !prefix.contains(['/', ' '])
                {
                    self.called_prefixes.insert(prefix.clone());
                }
            }
        }
        let mut words: Vec<Word> = vec![name_word];
        words.extend(self.arg_words(n, name_node));
        // `trap cleanup EXIT`: the handler runs.
        if words[0].literal().as_deref() == Some("trap")
            && let Some(code) = words.get(1).map(Word::text)
        {
            for name in code.split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
            {
                if !name.is_empty() {
                    self.called.insert(name.to_string());
                }
            }
        }
        let line = self.line(n);
        let snippet = self.text(n);
        let c = self.unwrap(words, line, &snippet, 0)?;
        // `sudo fn`, `xargs fn`: the program named after a wrapper runs.
        self.called.insert(c.name.clone());
        Some(c)
    }

    pub fn unwrap(
        &mut self,
        mut words: Vec<Word>,
        line: u32,
        snippet: &str,
        depth: usize,
    ) -> Option<Cmd> {
        loop {
            let first = words.first()?.clone();
            // `curl -o "$file" "$url"` … `"$file"`: a program fetched from elsewhere runs here.
            if let Some(tool) = self.facts.downloaded_by(&first.raw).map(str::to_string) {
                self.hit(&crate::rules::RUNS_DOWNLOADED, line, snippet, &[&tool]);
            }
            let Some(lit) = first.literal() else {
                if let [Piece::Var { name, .. }] = first.pieces.as_slice() {
                    // `$SHELL`: the user's shell; `$SHELL_TO_RUN -c "…"`: a shell picked at run
                    // time, given code.
                    if matches!(name.as_str(), "SHELL" | "BASH")
                        || (name.to_ascii_uppercase().contains("SHELL")
                            && words.get(1).is_some_and(|w| w.text() == "-c"))
                    {
                        return Some(Cmd {
                            name: "sh".into(),
                            args: words[1..].to_vec(),
                            line,
                            snippet: snippet.to_string(),
                        });
                    }
                    // `$(GIT) clean -xdf`: a variable named after a tool runs that tool.
                    if let Some((_, tool)) = TOOL_VARIABLES.iter().find(|(v, _)| v == name) {
                        words[0] = Word::lit(tool);
                        continue;
                    }
                }
                // A name made at run time: what it runs is judged where it is made.
                return Some(Cmd {
                    name: String::new(),
                    args: words[1..].to_vec(),
                    line,
                    snippet: snippet.to_string(),
                });
            };
            // `X="rm -rf"; $X /`: a literal that came from a variable may hold several words.
            if first.raw.starts_with('$') && lit.contains(char::is_whitespace) && depth < MAX_DEPTH
            {
                let mut w: Vec<Word> = lit.split_whitespace().map(Word::lit).collect();
                w.extend(words.drain(1..));
                return self.unwrap(w, line, snippet, depth + 1);
            }
            let name = basename(&lit).to_string();
            let opt = |w: &Word| w.text().starts_with('-');
            // `capture_command make install`: the script's own function runs its arguments.
            if self.facts.wrappers.contains(&lit) && words.len() > 1 {
                words.remove(0);
                continue;
            }
            match name.as_str() {
                "sudo" | "doas" | "pkexec" | "run0" => {
                    self.hit(&crate::rules::AS_ROOT, line, snippet, &[&name]);
                    words.remove(0);
                    skip_options(
                        &mut words,
                        &["-u", "-g", "-U", "-C", "-h", "-p", "-r", "-t"],
                    );
                }
                "env" | "command" | "builtin" | "exec" | "nohup" | "time" | "stdbuf" | "nice"
                | "ionice" | "chronic" | "unbuffer" => {
                    words.remove(0);
                    let mut i = 0;
                    while i < words.len() {
                        let t = words[i].text();
                        if t == "-n" || t == "-u" || t == "-C" {
                            i += 2;
                        } else if t.starts_with('-')
                            || (name == "env" && t.contains('=') && !t.starts_with('='))
                        {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    words.drain(..i.min(words.len()));
                }
                "timeout" => {
                    words.remove(0);
                    let i = words
                        .iter()
                        .position(|w| {
                            let t = w.text();
                            !t.starts_with('-') && !t.starts_with(|c: char| c.is_ascii_digit())
                        })
                        .unwrap_or(words.len());
                    words.drain(..i);
                }
                // `… | xargs npm install -g`: the program named next gets the input as arguments.
                "xargs" => {
                    words.remove(0);
                    skip_options(
                        &mut words,
                        &["-n", "-I", "-L", "-P", "-d", "-s", "-E", "-a"],
                    );
                }
                // `nvm exec 20 npm publish`: a Node version manager runs the program named after
                // the version.
                "nvm" | "fnm" if words.get(1).is_some_and(|w| w.text() == "exec") => {
                    words.drain(..2);
                    while words.first().is_some_and(opt) {
                        words.remove(0);
                    }
                    let version = |t: &str| {
                        let t = t.trim_start_matches('v');
                        t.starts_with(|c: char| c.is_ascii_digit())
                            || matches!(t, "node" | "stable" | "iojs" | "default" | "system")
                            || t.starts_with("lts/")
                    };
                    if words.len() > 1 && version(&words[0].text()) {
                        words.remove(0);
                    }
                    if words.first().is_some_and(|w| w.text() == "--") {
                        words.remove(0);
                    }
                }
                // Runners that start the program named next: `npx netlify deploy`.
                "npx" | "pnpx" | "bunx" => {
                    words.remove(0);
                    let mut i = 0;
                    while i < words.len() && opt(&words[i]) {
                        i += if matches!(words[i].text().as_str(), "-p" | "--package") {
                            2
                        } else {
                            1
                        };
                    }
                    words.drain(..i.min(words.len()));
                }
                "bundle" | "uv" | "poetry" | "pipenv" | "pdm" | "hatch" | "rye"
                    if words
                        .get(1)
                        .is_some_and(|w| matches!(w.text().as_str(), "exec" | "run")) =>
                {
                    words.drain(..2);
                    while words.first().is_some_and(opt) {
                        words.remove(0);
                    }
                }
                "pnpm" | "yarn" | "npm" | "bun"
                    if words
                        .get(1)
                        .is_some_and(|w| matches!(w.text().as_str(), "exec" | "dlx" | "x")) =>
                {
                    words.drain(..2);
                    while words.first().is_some_and(|w| opt(w) && w.text() != "--") {
                        words.remove(0);
                    }
                    if words.first().is_some_and(|w| w.text() == "--") {
                        words.remove(0);
                    }
                }
                // `mise x node@20 -- npm publish`, `mise exec -- cmd`.
                "mise" | "rtx"
                    if words
                        .get(1)
                        .is_some_and(|w| matches!(w.text().as_str(), "x" | "exec")) =>
                {
                    match words.iter().position(|w| w.text() == "--") {
                        Some(i) => {
                            words.drain(..=i);
                        }
                        None => {
                            return Some(Cmd {
                                name,
                                args: words[1..].to_vec(),
                                line,
                                snippet: snippet.to_string(),
                            });
                        }
                    }
                }
                _ => {
                    return Some(Cmd {
                        name,
                        args: words[1..].to_vec(),
                        line,
                        snippet: snippet.to_string(),
                    });
                }
            }
        }
    }

    fn file_redirect(&mut self, n: Node) {
        let op: String = {
            let mut cursor = n.walk();
            n.children(&mut cursor)
                .filter(|c| !c.is_named())
                .map(|c| self.text(c))
                .collect()
        };
        if !op.contains('>') {
            return;
        }
        let Some(dest) = n.child_by_field_name("destination") else {
            return;
        };
        let target = self.word(dest);
        let line = self.line(n);
        let snippet = n
            .parent()
            .map(|p| self.text(p))
            .unwrap_or_else(|| self.text(n));
        self.write_to(&target, line, &snippet, false);
    }

    fn redirected(&mut self, n: Node) {
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let mut cursor = n.walk();
        let redirects: Vec<Node> = n.children_by_field_name("redirect", &mut cursor).collect();
        for r in redirects {
            if r.kind() != "heredoc_redirect" && r.kind() != "herestring_redirect" {
                continue;
            }
            // Who reads the heredoc: the command itself, or the end of a pipeline after it.
            let consumer = {
                let mut c = r.walk();
                let piped: Vec<Node> = r
                    .named_children(&mut c)
                    .filter(|k| k.kind() == "pipeline" || k.kind() == "command")
                    .collect();
                piped.last().copied()
            };
            let body_name = self.first_command_name(body);
            let consumer_name = consumer
                .map(|c| self.last_command_name(c))
                .unwrap_or_default();
            let text = if r.kind() == "heredoc_redirect" {
                let mut c = r.walk();
                r.named_children(&mut c)
                    .find(|k| k.kind() == "heredoc_body")
                    .map(|b| (self.text(b), self.line(b)))
            } else {
                let mut c = r.walk();
                r.named_children(&mut c)
                    .last()
                    .map(|k| (self.word(k).text(), self.line(k)))
            };
            let Some((text, line)) = text else { continue };
            let reader = if is_shell(&consumer_name)
                || (matches!(body_name.as_str(), "cat" | "tee") && consumer.is_some())
            {
                consumer_name.clone()
            } else {
                body_name.clone()
            };
            if is_shell(&reader) {
                self.nested(&text, line);
            } else if matches!(
                reader.as_str(),
                "psql" | "mysql" | "mariadb" | "sqlite3" | "sqlcmd"
            ) {
                let snippet = self.text(n);
                self.sql(&text, line, &snippet);
            }
        }
    }

    fn first_command_name(&mut self, n: Node) -> String {
        if n.kind() == "command" {
            let saved = self.out.len();
            let name = self.command(n).map(|c| c.name).unwrap_or_default();
            self.out.truncate(saved);
            return name;
        }
        let mut c = n.walk();
        let first = n
            .named_children(&mut c)
            .find(|k| k.kind() == "command" || k.kind() == "pipeline");
        first
            .map(|k| self.first_command_name(k))
            .unwrap_or_default()
    }

    fn last_command_name(&mut self, n: Node) -> String {
        if n.kind() == "command" {
            return self.first_command_name(n);
        }
        let mut c = n.walk();
        let last = n
            .named_children(&mut c)
            .filter(|k| k.kind() == "command")
            .last();
        last.map(|k| self.first_command_name(k)).unwrap_or_default()
    }

    fn pipeline(&mut self, n: Node) {
        // Stages, with pipelines nested by the grammar (`a | b | c >f`) flattened.
        fn stages_of<'t>(n: Node<'t>, out: &mut Vec<Node<'t>>) {
            let mut cursor = n.walk();
            for s in n.named_children(&mut cursor) {
                match s.kind() {
                    "pipeline" => stages_of(s, out),
                    "redirected_statement"
                        if s.child_by_field_name("body")
                            .is_some_and(|b| b.kind() == "pipeline") =>
                    {
                        if let Some(b) = s.child_by_field_name("body") {
                            stages_of(b, out)
                        }
                    }
                    _ => out.push(s),
                }
            }
        }
        if n.parent().is_some_and(|p| {
            p.kind() == "pipeline"
                || (p.kind() == "redirected_statement"
                    && p.parent().is_some_and(|g| g.kind() == "pipeline"))
        }) {
            // Judged as part of the outer pipeline.
            return;
        }
        let mut stages = Vec::new();
        stages_of(n, &mut stages);
        let saved = self.out.len();
        let cmds: Vec<Option<Cmd>> = stages
            .iter()
            .map(|s| match s.kind() {
                "command" => self.command(*s),
                "redirected_statement" => s
                    .child_by_field_name("body")
                    .filter(|b| b.kind() == "command")
                    .and_then(|b| self.command(b)),
                _ => None,
            })
            .collect();
        // The stages are walked again as children; their own findings come from there.
        self.out.truncate(saved);
        let line = self.line(n);
        let snippet = self.text(n);
        for (i, c) in cmds.iter().enumerate().skip(1) {
            let Some(c) = c else { continue };
            let reads_stdin = if is_shell(&c.name) {
                !c.args.iter().any(|a| a.text() == "-c")
                    && c.operands().iter().all(|w| w.text() == "-")
                    || c.args.iter().any(|a| a.text() == "-s")
            } else if is_interpreter(&c.name) {
                c.operands().is_empty()
                    || c.operands().first().map(|w| w.text()) == Some("-".into())
            } else {
                false
            };
            let before = &cmds[..i];
            let names: Vec<&str> = before.iter().flatten().map(|b| b.name.as_str()).collect();
            if reads_stdin {
                if let Some(d) = names.iter().find(|n| DOWNLOADERS.contains(n)) {
                    self.hit(&crate::rules::PIPES_DOWNLOAD, line, &snippet, &[d, &c.name]);
                } else if let Some(d) = names.iter().find(|n| DECODERS.contains(n)) {
                    self.hit(&crate::rules::PIPES_DECODED, line, &snippet, &[d]);
                } else if let [Some(src)] = before
                    && matches!(src.name.as_str(), "echo" | "printf")
                    && let Some(parts) = src
                        .args
                        .iter()
                        .filter(|a| !a.text().starts_with('-'))
                        .map(Word::literal)
                        .collect::<Option<Vec<String>>>()
                {
                    // Literal text: judge what it says.
                    self.nested(&parts.join(" "), line);
                }
                // Other generated text (a project's own generator, `cat <<EOF | sh`, whose
                // heredoc is analysed as a script) is judged where it is made.
            }
            if matches!(c.name.as_str(), "psql" | "mysql" | "mariadb" | "sqlite3")
                && let [Some(src)] = before
                && matches!(src.name.as_str(), "echo" | "printf")
            {
                let sql = src.arg_texts().join(" ");
                self.sql(&sql, line, &snippet);
            }
            if NETWORK.contains(&c.name.as_str()) {
                for b in before.iter().flatten() {
                    for a in b.arg_texts() {
                        if let Some((Level::Danger, what)) = crate::rules::sensitive_path(&a) {
                            self.hit(
                                &crate::rules::SENDS_SECRETS,
                                line,
                                &snippet,
                                &[what, &c.name],
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Whether command `n` prints nothing: its output goes to /dev/null (`&>/dev/null`,
/// `>/dev/null`).
fn silenced(n: Node, src: &[u8]) -> bool {
    let Some(p) = n.parent().filter(|p| p.kind() == "redirected_statement") else {
        return false;
    };
    let mut c = p.walk();
    p.children_by_field_name("redirect", &mut c).any(|r| {
        let t: String = r.utf8_text(src).unwrap_or("").split_whitespace().collect();
        [
            "&>/dev/null",
            ">/dev/null",
            "1>/dev/null",
            "&>>/dev/null",
            ">>/dev/null",
        ]
        .contains(&t.as_str())
    })
}

/// Whether `n` runs only on some paths: under an `if`, a `case`, a loop or a `&&`/`||` list
/// (within its function).
fn conditional(n: Node) -> bool {
    let mut cur = n.parent();
    let mut steps = 0;
    while let Some(p) = cur {
        match p.kind() {
            "if_statement"
            | "elif_clause"
            | "else_clause"
            | "case_item"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "list" => return true,
            "function_definition" | "program" => return false,
            _ => {}
        }
        steps += 1;
        if steps > MAX_TREE_DEPTH {
            return false;
        }
        cur = p.parent();
    }
    false
}

pub(crate) fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 80 {
        let mut t: String = s.chars().take(77).collect();
        t.push('…');
        t
    } else {
        s
    }
}

/// An unquoted word's value: backslash escapes removed.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(n) = it.next()
                && n != '\n'
            {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A double-quoted part's value: only `\"`, `\\`, `\$`, `` \` `` are escapes there.
fn unescape_dq(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\' && matches!(it.peek(), Some('"' | '\\' | '$' | '`')) {
            out.push(it.next().unwrap_or('\\'));
        } else {
            out.push(c);
        }
    }
    out
}
