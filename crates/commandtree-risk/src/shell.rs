//! Shell text, parsed with tree-sitter-bash: only what the shell would execute counts, so a
//! pattern inside a quoted argument (`echo "rm -rf /"`), a comment or a heredoc fed to `cat` is
//! not a finding, while one inside `$(…)`, `bash -c '…'`, `eval '…'` or a heredoc fed to a shell
//! is.

use crate::{Finding, Level};
use std::collections::HashMap;
use tree_sitter::{Node, Parser};

/// Nested `bash -c` / `eval` / variable expansion depth: deeper text is only flagged, never
/// re-parsed, so crafted input cannot recurse without end.
const MAX_DEPTH: usize = 4;
const MAX_TREE_DEPTH: usize = 400;

/// Analyses `text` as a shell script; `first_line` is the line of `text`'s first line in what
/// the caller was given (findings carry that numbering).
pub fn analyse(text: &str, first_line: u32, out: &mut Vec<Finding>) {
    let mut vars = HashMap::new();
    analyse_nested(text, first_line, 0, &mut vars, out);
}

fn analyse_nested(
    text: &str,
    first_line: u32,
    depth: usize,
    vars: &mut HashMap<String, String>,
    out: &mut Vec<Finding>,
) {
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
    let Some(tree) = parser.parse(text, None) else {
        return;
    };
    let mut a = Analyser {
        src: text.as_bytes(),
        first_line,
        depth,
        vars,
        out,
        nest: 0,
    };
    a.walk(tree.root_node());
}

#[derive(Debug, Clone, PartialEq)]
enum Piece {
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
struct Word {
    raw: String,
    pieces: Vec<Piece>,
}

impl Word {
    fn lit(text: &str) -> Word {
        Word {
            raw: text.to_string(),
            pieces: vec![Piece::Lit(text.to_string())],
        }
    }

    /// The value when it has no run-time part.
    fn literal(&self) -> Option<String> {
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
    fn text(&self) -> String {
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

    fn substs(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Subst(r) => Some(r.as_str()),
            _ => None,
        })
    }
}

struct Cmd {
    name: String,
    args: Vec<Word>,
    line: u32,
    snippet: String,
}

impl Cmd {
    fn has_flag(&self, short: char, long: &str) -> bool {
        self.args.iter().any(|a| {
            let t = a.text();
            if let Some(l) = t.strip_prefix("--") {
                !long.is_empty() && l == long
            } else if let Some(s) = t.strip_prefix('-') {
                !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()) && s.contains(short)
            } else {
                false
            }
        })
    }

    fn arg_texts(&self) -> Vec<String> {
        self.args.iter().map(Word::text).collect()
    }

    /// Arguments that are not options.
    fn operands(&self) -> Vec<&Word> {
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
    fn subcommand(&self, with_value: &[&str]) -> Option<(usize, String)> {
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
}

const SHELLS: &[&str] = &[
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
const DOWNLOADERS: &[&str] = &[
    "curl", "wget", "fetch", "http", "https", "xh", "aria2c", "iwr", "irm",
];
const DECODERS: &[&str] = &["base64", "base32", "xxd", "openssl", "uudecode", "rev"];
const NETWORK: &[&str] = &[
    "curl", "wget", "nc", "ncat", "netcat", "scp", "rsync", "http", "https", "xh", "socat", "sftp",
    "ftp",
];

/// `$(ssh-agent -s)`, `$(direnv export bash)`: tools whose whole job is printing shell code for
/// `eval`.
fn is_env_setup(subst: &str) -> bool {
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

fn basename(s: &str) -> &str {
    let s = s.trim_start_matches('\\');
    s.rsplit('/').next().unwrap_or(s)
}

fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

fn is_interpreter(name: &str) -> bool {
    is_shell(name)
        || INTERPRETERS.contains(&name)
        || name.starts_with("python3.")
        || name.starts_with("python2.")
}

fn mentions_any(raw: &str, names: &[&str]) -> Option<String> {
    raw.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .find(|w| names.contains(w))
        .map(str::to_string)
}

/// `~/…` for a path under the home folder (`$HOME` is folded into `~` already).
fn home_rel(p: &str) -> Option<&str> {
    if p == "~" {
        Some("")
    } else {
        p.strip_prefix("~/")
    }
}

/// A file whose change or leak hurts: (level, what it is).
pub(crate) fn sensitive_path(p: &str) -> Option<(Level, &'static str)> {
    let p = p.trim_matches(['"', '\'']);
    if let Some(rel) = home_rel(p) {
        let rel = rel.trim_start_matches("./");
        const CREDS: &[&str] = &[
            ".ssh",
            ".aws",
            ".gnupg",
            ".netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            ".docker/config.json",
            ".kube/config",
            ".config/gcloud",
            ".azure",
            ".config/gh/hosts.yml",
            ".cargo/credentials",
            ".cargo/credentials.toml",
        ];
        const STARTUP: &[&str] = &[
            ".bashrc",
            ".bash_profile",
            ".bash_login",
            ".profile",
            ".zshrc",
            ".zprofile",
            ".zshenv",
            ".config/fish/config.fish",
            ".gitconfig",
        ];
        let under = |list: &[&str]| {
            list.iter()
                .any(|c| rel == *c || rel.starts_with(&format!("{c}/")))
        };
        if under(CREDS) {
            return Some((Level::Danger, "a credentials file"));
        }
        if under(STARTUP) {
            return Some((Level::Caution, "a shell startup file"));
        }
        return None;
    }
    if p.ends_with("/authorized_keys") || p.contains("/.ssh/") {
        return Some((Level::Danger, "a credentials file"));
    }
    if p == "/etc/sudoers"
        || p.starts_with("/etc/sudoers.d")
        || p == "/etc/passwd"
        || p == "/etc/shadow"
    {
        return Some((Level::Danger, "a system account file"));
    }
    if matches!(p, "/etc/profile" | "/etc/bash.bashrc" | "/etc/environment")
        || p.starts_with("/etc/profile.d/")
    {
        return Some((Level::Caution, "a shell startup file"));
    }
    None
}

fn is_block_device(p: &str) -> bool {
    let Some(d) = p.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "loop",
    ]
    .iter()
    .any(|x| d.starts_with(x))
}

const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "opt",
    "proc",
    "root",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "Users",
    "System",
    "Library",
    "Applications",
    "mnt",
    "media",
    "snap",
];

struct Analyser<'a> {
    src: &'a [u8],
    first_line: u32,
    depth: usize,
    vars: &'a mut HashMap<String, String>,
    out: &'a mut Vec<Finding>,
    nest: usize,
}

impl Analyser<'_> {
    fn text(&self, n: Node) -> String {
        n.utf8_text(self.src).unwrap_or("").to_string()
    }

    fn line(&self, n: Node) -> u32 {
        self.first_line + n.start_position().row as u32
    }

    fn add(&mut self, level: Level, line: u32, reason: impl Into<String>, snippet: &str) {
        let snippet = one_line(snippet);
        let reason = reason.into();
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

    fn walk(&mut self, n: Node) {
        // Deeper trees are not real scripts; walking them would only risk the stack.
        if self.nest > MAX_TREE_DEPTH {
            return;
        }
        match n.kind() {
            "comment" | "heredoc_body" => return,
            "variable_assignment" => self.assignment(n),
            "command" => {
                if let Some(c) = self.command(n) {
                    self.check_command(&c, n);
                }
            }
            "pipeline" => self.pipeline(n),
            "redirected_statement" => self.redirected(n),
            "file_redirect" => self.file_redirect(n),
            "function_definition" => self.fork_bomb(n),
            _ => {}
        }
        let mut cursor = n.walk();
        let children: Vec<Node> = n.named_children(&mut cursor).collect();
        self.nest += 1;
        for c in children {
            self.walk(c);
        }
        self.nest -= 1;
    }

    fn assignment(&mut self, n: Node) {
        let Some(name) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name);
        match n.child_by_field_name("value").map(|v| self.word(v)) {
            Some(w) => match w.literal() {
                Some(v) => {
                    self.vars.insert(name, v);
                }
                None => {
                    self.vars.remove(&name);
                }
            },
            None => {
                self.vars.insert(name, String::new());
            }
        }
    }

    fn word(&self, n: Node) -> Word {
        let mut pieces = Vec::new();
        self.pieces(n, &mut pieces);
        Word {
            raw: self.text(n),
            pieces,
        }
    }

    fn var_piece(&self, name: &str, guarded: bool) -> Piece {
        match name {
            "HOME" | "USERPROFILE" => Piece::Lit("~".into()),
            _ => match self.vars.get(name) {
                Some(v) if !guarded => Piece::Lit(v.clone()),
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
                let t = self.text(n);
                out.push(self.var_piece(t.trim_start_matches('$'), false));
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
                if name.is_empty() || !(rest.is_empty() || guarded) {
                    out.push(Piece::Var {
                        name: inner.clone(),
                        guarded: false,
                    });
                } else {
                    out.push(self.var_piece(&name, guarded));
                }
            }
            "command_substitution" | "process_substitution" | "arithmetic_expansion" => {
                out.push(Piece::Subst(self.text(n)))
            }
            "string" | "concatenation" | "command_name" | "translated_string" => {
                let mut cursor = n.walk();
                let kids: Vec<Node> = n.named_children(&mut cursor).collect();
                if n.kind() == "string" && kids.is_empty() {
                    out.push(Piece::Lit(String::new()));
                }
                // Text between the named parts of a concatenation (`a"b"c`) is anonymous.
                let mut end = n.start_byte();
                for k in kids {
                    if n.kind() == "concatenation" && k.start_byte() > end {
                        let gap = String::from_utf8_lossy(&self.src[end..k.start_byte()]);
                        out.push(Piece::Lit(unescape(&gap)));
                    }
                    self.pieces(k, out);
                    end = k.end_byte();
                }
                if n.kind() == "concatenation" && n.end_byte() > end {
                    let gap = String::from_utf8_lossy(&self.src[end..n.end_byte()]);
                    out.push(Piece::Lit(unescape(&gap)));
                }
            }
            _ => out.push(Piece::Lit(self.text(n))),
        }
    }

    /// The command with wrappers (`sudo`, `env`, `nohup`, …) taken off; `sudo` is a finding.
    fn command(&mut self, n: Node) -> Option<Cmd> {
        let name_node = n.child_by_field_name("name")?;
        let name_word = self.word(name_node);
        let mut words: Vec<Word> = vec![name_word];
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
        let line = self.line(n);
        let snippet = self.text(n);
        self.unwrap(words, line, &snippet, 0)
    }

    fn unwrap(
        &mut self,
        mut words: Vec<Word>,
        line: u32,
        snippet: &str,
        depth: usize,
    ) -> Option<Cmd> {
        loop {
            let first = words.first()?.clone();
            let Some(lit) = first.literal() else {
                // `$SHELL`: the user's shell.
                if let [Piece::Var { name, .. }] = first.pieces.as_slice()
                    && matches!(name.as_str(), "SHELL" | "BASH")
                {
                    return Some(Cmd {
                        name: "sh".into(),
                        args: words[1..].to_vec(),
                        line,
                        snippet: snippet.to_string(),
                    });
                }
                if first.substs().next().is_some() {
                    self.add(
                        Level::Caution,
                        line,
                        "runs a command whose name is computed at run time",
                        snippet,
                    );
                }
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
            match name.as_str() {
                "sudo" | "doas" | "pkexec" | "run0" => {
                    self.add(
                        Level::Caution,
                        line,
                        format!("runs as root ({name})"),
                        snippet,
                    );
                    words.remove(0);
                    let mut i = 0;
                    while i < words.len() {
                        let t = words[i].text();
                        if matches!(
                            t.as_str(),
                            "-u" | "-g" | "-U" | "-C" | "-h" | "-p" | "-r" | "-t"
                        ) {
                            i += 2;
                        } else if t.starts_with('-') {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    words.drain(..i.min(words.len()));
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

    /// Analyses code handed to a shell or `eval` as text: literal code is parsed in turn; code
    /// made at run time is judged by where it comes from.
    fn nested_code(&mut self, code: &[&Word], c: &Cmd, what: &str) {
        let literal: Option<Vec<String>> = code.iter().map(|w| w.literal()).collect();
        match literal {
            Some(parts) => {
                let text = parts.join(" ");
                let mut vars = self.vars.clone();
                analyse_nested(&text, c.line, self.depth + 1, &mut vars, self.out);
            }
            None => {
                let raw: String = code.iter().map(|w| w.text()).collect::<Vec<_>>().join(" ");
                if code.iter().all(|w| {
                    w.substs().all(is_env_setup)
                        && w.pieces.iter().all(|p| !matches!(p, Piece::Var { .. }))
                }) && code.iter().any(|w| w.substs().next().is_some())
                {
                    return;
                }
                if let Some(d) = mentions_any(&raw, DOWNLOADERS) {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("runs code downloaded with {d}"),
                        &c.snippet,
                    );
                } else if let Some(d) = mentions_any(&raw, DECODERS) {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("runs hidden code decoded with {d}"),
                        &c.snippet,
                    );
                } else {
                    self.add(
                        Level::Caution,
                        c.line,
                        format!("{what} text built at run time"),
                        &c.snippet,
                    );
                }
                // The substitutions run too.
                for w in code {
                    for s in w.substs() {
                        let inner = s
                            .trim_start_matches(['$', '<', '>'])
                            .trim_start_matches('(')
                            .trim_end_matches(')')
                            .to_string();
                        let mut vars = self.vars.clone();
                        analyse_nested(&inner, c.line, self.depth + 1, &mut vars, self.out);
                    }
                }
            }
        }
    }

    fn check_command(&mut self, c: &Cmd, node: Node) {
        let args = c.arg_texts();
        let name = c.name.as_str();
        // Code passed as text to a shell or eval.
        if name == "eval" && !c.args.is_empty() {
            let code: Vec<&Word> = c.args.iter().collect();
            self.nested_code(&code, c, "evaluates");
        }
        if is_interpreter(name) || name == "su" {
            if let Some(i) = args
                .iter()
                .position(|a| a == "-c" || a == "-e" || a == "--command")
                && let Some(code) = c.args.get(i + 1)
            {
                // Literal code for another language (`python -c 'print(1)'`) is not shell.
                if is_shell(name) || name == "su" || code.literal().is_none() {
                    self.nested_code(&[code], c, "runs");
                }
            }
            // `bash <(curl …)`, `python <(wget -O- …)`.
            for w in &c.args {
                for s in w.substs() {
                    if s.starts_with("<(")
                        && let Some(d) = mentions_any(s, DOWNLOADERS)
                    {
                        self.add(
                            Level::Danger,
                            c.line,
                            format!("runs a script downloaded with {d}"),
                            &c.snippet,
                        );
                    }
                }
            }
        }
        if matches!(name, "source" | ".") {
            for w in &c.args {
                for s in w.substs() {
                    if let Some(d) = mentions_any(s, DOWNLOADERS) {
                        self.add(
                            Level::Danger,
                            c.line,
                            format!("runs a script downloaded with {d}"),
                            &c.snippet,
                        );
                    }
                }
            }
        }
        match name {
            "rm" | "rmdir" => self.rm(c),
            "chmod" => self.chmod(c),
            "chown" | "chgrp"
                if c.has_flag('R', "recursive")
                    && c.operands()
                        .iter()
                        .skip(1)
                        .any(|w| outside_level(&w.text()).is_some()) =>
            {
                self.add(
                    Level::Danger,
                    c.line,
                    "changes the owner of files outside the project, recursively",
                    &c.snippet,
                );
            }
            "dd" => {
                if let Some(dev) = args
                    .iter()
                    .find_map(|a| a.strip_prefix("of="))
                    .filter(|d| is_block_device(d))
                {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("overwrites the disk {dev}"),
                        &c.snippet,
                    );
                }
            }
            "mkfs" | "mke2fs" | "mkswap" | "fdisk" | "sfdisk" | "gdisk" | "sgdisk" | "parted"
            | "wipefs" | "blkdiscard" | "diskutil" | "format" => {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("formats or repartitions a disk ({name})"),
                    &c.snippet,
                );
            }
            n if n.starts_with("mkfs.") => {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("formats a disk ({n})"),
                    &c.snippet,
                );
            }
            "shred" if args.iter().any(|a| is_block_device(a)) => {
                self.add(Level::Danger, c.line, "wipes a disk (shred)", &c.snippet);
            }
            "shutdown" | "reboot" | "halt" | "poweroff" => {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("shuts the machine down ({name})"),
                    &c.snippet,
                );
            }
            "git" => self.git(c),
            "docker" | "podman" => self.docker(c),
            "kubectl" | "oc" => {
                if let Some((_, sub)) = c.subcommand(&["-n", "--namespace", "--context", "-l"])
                    && matches!(sub.as_str(), "delete" | "drain")
                {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("deletes cluster resources (kubectl {sub})"),
                        &c.snippet,
                    );
                }
            }
            "helm" => {
                if let Some((_, sub)) = c.subcommand(&["-n", "--namespace"])
                    && matches!(sub.as_str(), "uninstall" | "delete" | "del" | "un")
                {
                    self.add(
                        Level::Danger,
                        c.line,
                        "removes a deployed release (helm uninstall)",
                        &c.snippet,
                    );
                }
            }
            "terraform" | "tofu" | "terragrunt" | "pulumi" | "cdk" | "cdktf" => {
                let destroy = c.subcommand(&["-chdir", "--stack", "-s"]).map(|s| s.1)
                    == Some("destroy".into())
                    || args.iter().any(|a| a == "-destroy");
                if destroy {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("destroys infrastructure ({name} destroy)"),
                        &c.snippet,
                    );
                }
            }
            "aws" | "gcloud" | "az" | "gsutil" | "doctl" => {
                let destructive = args.iter().any(|a| {
                    matches!(
                        a.as_str(),
                        "rb" | "delete"
                            | "terminate-instances"
                            | "delete-stack"
                            | "delete-bucket"
                            | "delete-db-instance"
                            | "delete-cluster"
                    ) || a.starts_with("delete-")
                }) || ((args.iter().any(|a| a == "rm"))
                    && (c.has_flag('r', "recursive")));
                if destructive {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("deletes cloud resources ({name})"),
                        &c.snippet,
                    );
                }
            }
            "dropdb" | "dropuser" => {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("drops a database ({name})"),
                    &c.snippet,
                );
            }
            "psql" | "mysql" | "mariadb" | "sqlite3" | "sqlcmd" | "cockroach"
            | "clickhouse-client" => {
                let mut take = false;
                for (i, a) in args.iter().enumerate() {
                    let inline = a
                        .strip_prefix("--command=")
                        .or_else(|| a.strip_prefix("--execute="))
                        .or_else(|| a.strip_prefix("--query="));
                    let sql = if let Some(s) = inline {
                        Some(s.to_string())
                    } else if take || (name == "sqlite3" && i > 0 && !a.starts_with('-')) {
                        Some(a.clone())
                    } else {
                        None
                    };
                    take = matches!(
                        a.as_str(),
                        "-c" | "-e" | "--command" | "--execute" | "-q" | "-Q" | "--query"
                    );
                    if let Some(sql) = sql {
                        self.sql(&sql, c.line, &c.snippet);
                    }
                }
            }
            "mongo" | "mongosh"
                if args
                    .iter()
                    .any(|a| a.contains("dropDatabase") || a.contains(".drop()")) =>
            {
                self.add(
                    Level::Danger,
                    c.line,
                    "drops a database (mongo)",
                    &c.snippet,
                );
            }
            "redis-cli"
                if args.iter().any(|a| {
                    a.eq_ignore_ascii_case("flushall") || a.eq_ignore_ascii_case("flushdb")
                }) =>
            {
                self.add(Level::Danger, c.line, "erases a Redis database", &c.snippet);
            }
            "rails" | "rake"
                if args.iter().any(|a| {
                    matches!(
                        a.as_str(),
                        "db:drop" | "db:reset" | "db:schema:load" | "db:purge"
                    )
                }) =>
            {
                self.add(
                    Level::Danger,
                    c.line,
                    "drops the database (rails db:drop/reset)",
                    &c.snippet,
                );
            }
            "nc" | "ncat" | "netcat" if args.iter().any(|a| a == "-e" || a == "-c") => {
                self.add(
                    Level::Danger,
                    c.line,
                    "opens a remote shell (nc -e)",
                    &c.snippet,
                );
            }
            "find" => {
                let start = c.args.first().map(Word::text).unwrap_or_default();
                let deletes = args.iter().any(|a| a == "-delete")
                    || args.windows(2).any(|w| {
                        (w[0] == "-exec" || w[0] == "-execdir") && basename(&w[1]) == "rm"
                    });
                if deletes && let Some(l) = outside_level(&start) {
                    self.add(
                        l,
                        c.line,
                        format!("deletes files under {start}"),
                        &c.snippet,
                    );
                }
            }
            "tee" | "cp" | "mv" | "install" | "ln" | "rsync" | "sed" | "truncate" => {
                let targets: Vec<String> = match name {
                    "tee" => c.operands().iter().map(|w| w.text()).collect(),
                    "sed" if c.has_flag('i', "in-place") => {
                        c.operands().iter().skip(1).map(|w| w.text()).collect()
                    }
                    "sed" => Vec::new(),
                    "truncate" => c.operands().iter().map(|w| w.text()).collect(),
                    _ => c
                        .operands()
                        .last()
                        .map(|w| vec![w.text()])
                        .unwrap_or_default(),
                };
                for t in targets {
                    self.write_to(&t, c.line, &c.snippet);
                }
            }
            "crontab" if !args.iter().any(|a| a == "-l") => {
                self.add(
                    Level::Caution,
                    c.line,
                    "replaces the user's crontab",
                    &c.snippet,
                );
            }
            _ => {}
        }
        if NETWORK.contains(&name) {
            for a in &args {
                let p = a
                    .trim_start_matches(|ch: char| {
                        ch != '@' && a.contains('@') && !a.starts_with('~')
                    })
                    .trim_start_matches('@');
                let p = p
                    .split_once('=')
                    .map(|(_, v)| v.trim_start_matches('@'))
                    .unwrap_or(p);
                if let Some((Level::Danger, what)) = sensitive_path(p) {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("sends {what} over the network ({name})"),
                        &c.snippet,
                    );
                }
            }
        }
        let _ = node;
    }

    fn rm(&mut self, c: &Cmd) {
        let recursive = c.has_flag('r', "recursive") || c.has_flag('R', "recursive");
        if c.args.iter().any(|a| a.text() == "--no-preserve-root") {
            self.add(
                Level::Danger,
                c.line,
                "deletes the root folder (--no-preserve-root)",
                &c.snippet,
            );
        }
        if !recursive && c.name == "rm" {
            return;
        }
        for w in c.operands() {
            // `"$DIR"/…` with DIR empty is `/…`.
            let mut lead = w
                .pieces
                .iter()
                .skip_while(|p| matches!(p, Piece::Lit(t) if t.is_empty()));
            if let Some(Piece::Var {
                name,
                guarded: false,
            }) = lead.next()
            {
                let rest: String = w
                    .pieces
                    .iter()
                    .skip_while(|p| !matches!(p, Piece::Var { .. }))
                    .skip(1)
                    .map(|p| match p {
                        Piece::Lit(t) => t.clone(),
                        _ => "x".into(),
                    })
                    .collect();
                if rest.starts_with('/') {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("deletes from / if ${name} is empty"),
                        &c.snippet,
                    );
                    continue;
                }
            }
            let t = w.text();
            if let Some(level) = outside_level(&t) {
                let what = if level == Level::Danger {
                    match t.trim_end_matches(['/', '*']) {
                        "" => "deletes everything under /".to_string(),
                        "~" => "deletes the home folder".to_string(),
                        p => format!("deletes the system folder {p}"),
                    }
                } else {
                    format!("deletes {t}, outside the project")
                };
                self.add(level, c.line, format!("{what} (rm -r)"), &c.snippet);
            } else if let Some((lvl, what)) = sensitive_path(&t) {
                let _ = lvl;
                self.add(Level::Danger, c.line, format!("deletes {what}"), &c.snippet);
            }
        }
    }

    fn chmod(&mut self, c: &Cmd) {
        let ops = c.operands();
        let Some(mode) = ops.first().map(|w| w.text()) else {
            return;
        };
        let m = mode.trim_start_matches('0');
        let world_writable = (m.len() == 3 && matches!(m.as_bytes()[2], b'2' | b'3' | b'6' | b'7'))
            || (m.len() == 4 && matches!(m.as_bytes()[3], b'2' | b'3' | b'6' | b'7'))
            || ((mode.starts_with('o') || mode.starts_with('a') || mode.starts_with('+'))
                && mode.contains('+')
                && mode.split('+').nth(1).is_some_and(|p| p.contains('w'))
                && !mode.starts_with("u"));
        let targets_outside = ops
            .iter()
            .skip(1)
            .any(|w| outside_level(&w.text()).is_some());
        if world_writable {
            let recursive = c.has_flag('R', "recursive");
            let level = if recursive || targets_outside {
                Level::Danger
            } else {
                Level::Caution
            };
            let how = if recursive { ", recursively" } else { "" };
            self.add(
                level,
                c.line,
                format!("makes files writable by everyone (chmod {mode}{how})"),
                &c.snippet,
            );
        } else if c.has_flag('R', "recursive") && targets_outside {
            self.add(
                Level::Danger,
                c.line,
                "changes permissions outside the project, recursively",
                &c.snippet,
            );
        }
        if mode.contains("+s") || (m.len() == 4 && matches!(m.as_bytes()[0], b'4' | b'6')) {
            self.add(Level::Caution, c.line, "sets the setuid bit", &c.snippet);
        }
    }

    fn git(&mut self, c: &Cmd) {
        let Some((i, sub)) = c.subcommand(&["-C", "-c", "--git-dir", "--work-tree"]) else {
            return;
        };
        let rest: Vec<String> = c.args[i + 1..].iter().map(Word::text).collect();
        let flag = |short: char, long: &str| {
            rest.iter().any(|a| {
                a == &format!("--{long}")
                    || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains(short))
            })
        };
        match sub.as_str() {
            "push" => {
                if flag('f', "force")
                    || rest
                        .iter()
                        .any(|a| a == "--mirror" || a.starts_with("--force"))
                    || rest.iter().any(|a| a.starts_with('+') && a.len() > 1)
                {
                    self.add(
                        Level::Danger,
                        c.line,
                        "overwrites remote history (git push --force)",
                        &c.snippet,
                    );
                } else if flag('d', "delete")
                    || rest.iter().any(|a| a.starts_with(':') && a.len() > 1)
                {
                    self.add(
                        Level::Caution,
                        c.line,
                        "deletes a remote branch (git push --delete)",
                        &c.snippet,
                    );
                }
            }
            "reset" if rest.iter().any(|a| a == "--hard") => {
                self.add(
                    Level::Danger,
                    c.line,
                    "discards uncommitted changes (git reset --hard)",
                    &c.snippet,
                );
            }
            "clean" if flag('f', "force") => {
                let (level, what) = if flag('x', "") || flag('X', "") || flag('d', "") {
                    (
                        Level::Danger,
                        "deletes untracked and ignored files (git clean -fdx)",
                    )
                } else {
                    (Level::Caution, "deletes untracked files (git clean -f)")
                };
                self.add(level, c.line, what, &c.snippet);
            }
            "checkout" | "restore"
                if rest.iter().any(|a| a == ".") && !rest.iter().any(|a| a == "-b") =>
            {
                self.add(
                    Level::Caution,
                    c.line,
                    format!("discards uncommitted changes (git {sub} .)"),
                    &c.snippet,
                );
            }
            "branch" if rest.iter().any(|a| a == "-D") => {
                self.add(
                    Level::Caution,
                    c.line,
                    "deletes a branch that may be unmerged (git branch -D)",
                    &c.snippet,
                );
            }
            "filter-branch" | "filter-repo" => {
                self.add(
                    Level::Caution,
                    c.line,
                    format!("rewrites history (git {sub})"),
                    &c.snippet,
                );
            }
            _ => {}
        }
    }

    fn docker(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let pos: Vec<&str> = args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .map(String::as_str)
            .collect();
        match pos.as_slice() {
            ["system", "prune", ..] => self.add(
                Level::Danger,
                c.line,
                "deletes all unused containers, images and networks (docker system prune)",
                &c.snippet,
            ),
            ["volume", "prune", ..] | ["volume", "rm", ..] => self.add(
                Level::Danger,
                c.line,
                "deletes Docker volumes and their data",
                &c.snippet,
            ),
            [_, "prune", ..] => self.add(
                Level::Caution,
                c.line,
                "deletes unused Docker objects (prune)",
                &c.snippet,
            ),
            ["compose", "down", ..] | ["compose", ..]
                if args.iter().any(|a| a == "-v" || a == "--volumes")
                    && pos.get(1) == Some(&"down") =>
            {
                self.add(
                    Level::Caution,
                    c.line,
                    "deletes the project's volumes and their data (compose down -v)",
                    &c.snippet,
                )
            }
            _ => {}
        }
        if args.iter().any(|a| a == "--privileged") {
            self.add(
                Level::Caution,
                c.line,
                "runs a container with full access to the host (--privileged)",
                &c.snippet,
            );
        }
        if args.windows(2).any(|w| {
            (w[0] == "-v" || w[0] == "--volume") && (w[1].starts_with("/:") || w[1] == "/")
        }) {
            self.add(
                Level::Caution,
                c.line,
                "mounts the whole host filesystem into a container",
                &c.snippet,
            );
        }
    }

    fn sql(&mut self, sql: &str, line: u32, snippet: &str) {
        let words: Vec<String> = sql
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(|w| w.to_ascii_uppercase())
            .collect();
        for w in words.windows(2) {
            let what = match (w[0].as_str(), w[1].as_str()) {
                ("DROP", "DATABASE" | "SCHEMA") => "drops a database (DROP DATABASE)",
                ("DROP", "TABLE") => "drops a table (DROP TABLE)",
                ("TRUNCATE", _) => "empties a table (TRUNCATE)",
                _ => continue,
            };
            self.add(Level::Danger, line, what, snippet);
            return;
        }
    }

    fn write_to(&mut self, target: &str, line: u32, snippet: &str) {
        if let Some((level, what)) = sensitive_path(target) {
            self.add(level, line, format!("writes to {what} ({target})"), snippet);
        } else if is_block_device(target) {
            self.add(
                Level::Danger,
                line,
                format!("overwrites the disk {target}"),
                snippet,
            );
        } else if target.starts_with("/dev/tcp/") || target.starts_with("/dev/udp/") {
            self.add(
                Level::Danger,
                line,
                "connects to a network address through /dev/tcp (a reverse shell pattern)",
                snippet,
            );
        } else if target.starts_with("/etc/") {
            self.add(
                Level::Caution,
                line,
                format!("writes system configuration ({target})"),
                snippet,
            );
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
        let target = self.word(dest).text();
        let line = self.line(n);
        let snippet = n
            .parent()
            .map(|p| self.text(p))
            .unwrap_or_else(|| self.text(n));
        self.write_to(&target, line, &snippet);
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
                let mut vars = self.vars.clone();
                analyse_nested(&text, line, self.depth + 1, &mut vars, self.out);
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
                    self.add(
                        Level::Danger,
                        line,
                        format!("pipes a download ({d}) into {}", c.name),
                        &snippet,
                    );
                } else if let Some(d) = names.iter().find(|n| DECODERS.contains(n)) {
                    self.add(
                        Level::Danger,
                        line,
                        format!("runs hidden code decoded with {d}"),
                        &snippet,
                    );
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
                    let mut vars = self.vars.clone();
                    analyse_nested(&parts.join(" "), line, self.depth + 1, &mut vars, self.out);
                } else if names.first() == Some(&"cat") {
                    // `cat <<EOF | sh`: the heredoc is analysed as a script.
                } else {
                    self.add(
                        Level::Caution,
                        line,
                        format!("pipes generated text into {}", c.name),
                        &snippet,
                    );
                }
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
                        if let Some((Level::Danger, what)) = sensitive_path(&a) {
                            self.add(
                                Level::Danger,
                                line,
                                format!("sends {what} over the network ({})", c.name),
                                &snippet,
                            );
                        }
                    }
                }
            }
        }
    }

    /// `:(){ :|:& };:`: a function that pipes into itself.
    fn fork_bomb(&mut self, n: Node) {
        let Some(name) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name);
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let body_text = self.text(body);
        let calls = body_text
            .split(|c: char| c.is_whitespace() || matches!(c, '|' | '&' | ';' | '{' | '}'))
            .filter(|w| *w == name)
            .count();
        if calls >= 2 && body_text.contains('|') {
            let line = self.line(n);
            let snippet = self.text(n);
            self.add(
                Level::Danger,
                line,
                "a fork bomb: exhausts the machine's processes",
                &snippet,
            );
        }
    }
}

/// How bad a recursive delete (or similar) of `p` is, when `p` is outside the project.
fn outside_level(p: &str) -> Option<Level> {
    let p = p.trim();
    if p.is_empty() {
        return None;
    }
    if let Some(rel) = home_rel(p) {
        let rel = rel.trim_matches('/');
        return Some(if rel.is_empty() || rel == "*" || rel == ".*" {
            Level::Danger
        } else {
            Level::Caution
        });
    }
    if p.starts_with('~') {
        // `~user`.
        return Some(Level::Danger);
    }
    if let Some(abs) = p.strip_prefix('/') {
        let abs = abs.trim_end_matches('/');
        if abs.is_empty() || abs == "*" || abs == ".*" {
            return Some(Level::Danger);
        }
        let first = abs.split('/').next().unwrap_or("");
        if first == "tmp" || first == "private" && abs.starts_with("private/tmp") {
            return None;
        }
        let depth = abs.split('/').filter(|s| !s.is_empty()).count();
        if SYSTEM_DIRS.contains(&first) && (depth == 1 || abs.ends_with("/*")) {
            return Some(Level::Danger);
        }
        return Some(Level::Caution);
    }
    if p == ".." || p.starts_with("../") {
        return Some(Level::Caution);
    }
    None
}

fn one_line(s: &str) -> String {
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
