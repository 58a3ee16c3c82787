//! VS Code's predefined variables (`${workspaceFolder}`, `${env:X}`, `${input:x}`...) resolved
//! outside VS Code, for `tasks.json` and `launch.json`.
//!
//! Substitution keeps the resolved values apart from the text around them ([`Seg`]), so a
//! shell line can quote each value for the place it lands in (see [`render_sh`]): a value
//! never becomes shell syntax, whatever it holds. Where the place cannot be told for certain
//! (inside `$(...)`, backticks, `${...}`, `$'...'`, a comment, after a heredoc), the value is not
//! written into the line at all: it goes in an environment variable (`CT_INPUT_<id>`) and the
//! line reads `"${CT_INPUT_<id>}"`.

use crate::quote::{Shell, sh_quote, sh_word};
use crate::{Error, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A piece of a string after substitution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// Text as written in the file.
    Lit(String),
    /// The value of a variable.
    Val(String),
    /// The value of `${input:id}`: id, value.
    Input(String, String),
}

impl Seg {
    fn value(&self) -> Option<&str> {
        match self {
            Seg::Lit(_) => None,
            Seg::Val(v) | Seg::Input(_, v) => Some(v),
        }
    }
}

/// Where variable values come from.
pub struct Context<'a> {
    /// The workspace folder (the one holding `.vscode`).
    pub folder: PathBuf,
    /// `.vscode/settings.json`, for `${config:x}` (Null when absent).
    pub settings: Value,
    /// The file being resolved, for error messages.
    pub file: PathBuf,
    /// `${input:id}` values, asked for on first use.
    pub input: &'a mut dyn FnMut(&str) -> Result<String>,
    /// Label of the default build task, for `${defaultBuildTask}`.
    pub default_build_task: Option<String>,
}

impl Context<'_> {
    /// Reads `.vscode/settings.json` beside `folder`, or Null.
    pub fn load_settings(folder: &Path) -> Value {
        let path = folder.join(".vscode").join("settings.json");
        commandtree_core::fs::read_file(&path)
            .ok()
            .and_then(|c| commandtree_core::text::parse_jsonc(&c).ok())
            .unwrap_or(Value::Null)
    }

    /// Substitutes every `${...}` of `s`.
    pub fn substitute(&mut self, s: &str) -> Result<Vec<Seg>> {
        let mut out = Vec::new();
        let mut rest = s;
        while let Some(start) = rest.find("${") {
            let Some(len) = rest[start + 2..].find('}') else {
                break;
            };
            if start > 0 {
                out.push(Seg::Lit(rest[..start].to_string()));
            }
            let name = &rest[start + 2..start + 2 + len];
            let value = self.resolve(name)?;
            out.push(match name.trim().strip_prefix("input:") {
                Some(id) => Seg::Input(id.trim().to_string(), value),
                None => Seg::Val(value),
            });
            rest = &rest[start + 3 + len..];
        }
        if !rest.is_empty() {
            out.push(Seg::Lit(rest.to_string()));
        }
        Ok(out)
    }

    /// `s` substituted into one plain string (for argv, env values, paths).
    pub fn string(&mut self, s: &str) -> Result<String> {
        Ok(concat(&self.substitute(s)?))
    }

    fn resolve(&mut self, name: &str) -> Result<String> {
        let name = name.trim();
        let file = self.file.display().to_string();
        let not_here = |what: &str| {
            Err(Error::failed(format!(
                "{file}: `${{{name}}}` {what}; it has no meaning outside VS Code"
            )))
        };
        if let Some(id) = name.strip_prefix("input:") {
            return (self.input)(id.trim());
        }
        if let Some(var) = name.strip_prefix("env:") {
            return Ok(std::env::var(var.trim()).unwrap_or_default());
        }
        if let Some(key) = name.strip_prefix("config:") {
            return config_value(&self.settings, key.trim()).ok_or_else(|| {
                Error::failed(format!(
                    "{file}: `${{{name}}}` is not set in {}",
                    self.folder.join(".vscode/settings.json").display()
                ))
            });
        }
        if name.starts_with("command:") {
            return not_here("runs a VS Code command");
        }
        if let Some(folder) = name.strip_prefix("workspaceFolder:") {
            let base = basename(&self.folder);
            return if folder.trim() == base {
                Ok(self.folder.display().to_string())
            } else {
                Err(Error::failed(format!(
                    "{file}: `${{{name}}}` names another folder of a multi-root workspace; only `{base}` is known here"
                )))
            };
        }
        match name {
            "workspaceFolder" | "workspaceRoot" => Ok(self.folder.display().to_string()),
            "workspaceFolderBasename" => Ok(basename(&self.folder)),
            "pathSeparator" | "/" => Ok(std::path::MAIN_SEPARATOR.to_string()),
            "userHome" => Ok(std::env::var("HOME")
                .or_else(|_| std::env::var("USERPROFILE"))
                .unwrap_or_default()),
            "cwd" => Ok(std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_default()),
            "defaultBuildTask" => self.default_build_task.clone().ok_or_else(|| {
                Error::failed(format!(
                    "{file}: `${{defaultBuildTask}}` but no task is the default build task"
                ))
            }),
            "file"
            | "fileBasename"
            | "fileBasenameNoExtension"
            | "fileDirname"
            | "fileDirnameBasename"
            | "fileExtname"
            | "fileWorkspaceFolder"
            | "relativeFile"
            | "relativeFileDirname"
            | "lineNumber"
            | "columnNumber"
            | "selectedText" => not_here("refers to the file open in VS Code's editor"),
            "execPath" => not_here("is the path of the VS Code executable"),
            _ => Err(Error::failed(format!(
                "{file}: unknown variable `${{{name}}}`"
            ))),
        }
    }
}

fn basename(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A setting by its dotted key: the flat key VS Code writes (`"commandtree.sortOrder"`), else
/// the nested path. Non-string values are given as JSON text.
fn config_value(settings: &Value, key: &str) -> Option<String> {
    let v = settings
        .get(key)
        .or_else(|| key.split('.').try_fold(settings, |v, part| v.get(part)))?;
    Some(match v {
        Value::String(s) => s.clone(),
        Value::Null => return None,
        other => other.to_string(),
    })
}

pub fn concat(segs: &[Seg]) -> String {
    segs.iter()
        .map(|s| match s {
            Seg::Lit(t) | Seg::Val(t) | Seg::Input(_, t) => t.as_str(),
        })
        .collect()
}

/// Environment variables a rendered line reads its values from.
pub type Env = Vec<(String, String)>;

/// Puts `seg`'s value in `env` and returns the variable's name: `CT_INPUT_<id>` for inputs
/// (characters a name cannot hold become `_`), `CT_VAR_<n>` for other variables; a name taken
/// by another value gets a numeric suffix.
fn env_var(seg: &Seg, env: &mut Env) -> Result<String> {
    let (base, value) = match seg {
        Seg::Input(id, v) => {
            let id: String = id
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            (format!("CT_INPUT_{id}"), v)
        }
        Seg::Val(v) => (format!("CT_VAR_{}", env.len() + 1), v),
        Seg::Lit(_) => unreachable!("only values go in variables"),
    };
    if value.contains('\0') {
        return Err(Error::failed("a variable's value contains a NUL byte"));
    }
    let mut name = base.clone();
    let mut n = 1;
    loop {
        match env.iter().find(|(k, _)| *k == name) {
            Some((_, v)) if v == value => return Ok(name),
            Some(_) => {
                n += 1;
                name = format!("{base}_{n}");
            }
            None => {
                env.push((name.clone(), value.clone()));
                return Ok(name);
            }
        }
    }
}

/// The shell syntax a position of a line is in, as far as a simple scan can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// Words of a command: the line itself, or inside `$(...)`.
    Cmd,
    Single,
    Double,
    /// `$'...'`.
    Ansi,
    /// `` `...` ``.
    Backtick,
    /// `${...}`.
    Brace,
    /// `# ...` up to the end of the line.
    Comment,
    /// The body of a heredoc (its end is not tracked: everything after it is uncertain).
    Heredoc,
}

/// Follows the author's text of a line through quotes and nesting. Values spliced as text are
/// only safe where the scan is certain of the syntax: the top level, or directly inside one
/// pair of quotes there; anything nested, commented or after a heredoc is not certain.
struct Tracker {
    stack: Vec<Frame>,
    escaped: bool,
    prev: Option<char>,
    /// After a heredoc: nothing later is certain.
    lost: bool,
    /// `<<` seen; its body starts at the next line.
    heredoc_next: bool,
}

impl Tracker {
    fn new(start: Frame) -> Tracker {
        let mut stack = vec![Frame::Cmd];
        if start != Frame::Cmd {
            stack.push(start);
        }
        Tracker {
            stack,
            escaped: false,
            prev: None,
            lost: false,
            heredoc_next: false,
        }
    }

    fn top(&self) -> Frame {
        *self
            .stack
            .last()
            .expect("the line itself stays on the stack")
    }

    /// Whether a value here may be written as quoted text.
    fn certain(&self) -> bool {
        !self.lost
            && matches!(
                self.stack.as_slice(),
                [Frame::Cmd] | [Frame::Cmd, Frame::Single | Frame::Double]
            )
    }

    fn feed(&mut self, c: char) {
        let prev = self.prev.replace(c);
        if self.escaped {
            self.escaped = false;
            return;
        }
        let word_start =
            prev.is_none_or(|p| p.is_whitespace() || matches!(p, ';' | '&' | '|' | '(' | ')'));
        match (self.top(), c) {
            (Frame::Cmd, '\n') if self.heredoc_next => {
                self.heredoc_next = false;
                self.stack.push(Frame::Heredoc);
            }
            (Frame::Heredoc, '\\') => self.escaped = true,
            (Frame::Heredoc, '`') => self.stack.push(Frame::Backtick),
            (Frame::Heredoc, '(') if prev == Some('$') => self.stack.push(Frame::Cmd),
            (Frame::Heredoc, '{') if prev == Some('$') => self.stack.push(Frame::Brace),
            (Frame::Heredoc, _) => {}
            (Frame::Single, '\'') => {
                self.stack.pop();
            }
            (Frame::Single, _) => {}
            (Frame::Comment, '\n') => {
                self.stack.pop();
            }
            (Frame::Comment, _) => {}
            (Frame::Ansi, '\\') => self.escaped = true,
            (Frame::Ansi, '\'') => {
                self.stack.pop();
            }
            (Frame::Ansi, _) => {}
            (_, '\\') => self.escaped = true,
            (Frame::Double, '"') => {
                self.stack.pop();
            }
            (Frame::Backtick, '`') => {
                self.stack.pop();
            }
            (_, '`') => self.stack.push(Frame::Backtick),
            (_, '(') if prev == Some('$') => self.stack.push(Frame::Cmd),
            (_, '{') if prev == Some('$') => self.stack.push(Frame::Brace),
            (Frame::Double, _) => {}
            (Frame::Brace, '}') => {
                self.stack.pop();
            }
            (Frame::Cmd, ')') if self.stack.len() > 1 => {
                self.stack.pop();
            }
            (_, '\'') if prev == Some('$') => self.stack.push(Frame::Ansi),
            (_, '\'') => self.stack.push(Frame::Single),
            (_, '"') => self.stack.push(Frame::Double),
            (_, '#') if word_start => self.stack.push(Frame::Comment),
            (_, '<') if prev == Some('<') => {
                self.lost = true;
                self.heredoc_next = true;
            }
            _ => {}
        }
    }

    /// What stands for the variable `name` here, so that the shell reads its value as one word
    /// (or as part of the quoted string it is in).
    fn reference(&self, name: &str) -> String {
        match self.top() {
            Frame::Double | Frame::Comment | Frame::Heredoc => format!("${{{name}}}"),
            Frame::Single => format!("'\"${{{name}}}\"'"),
            Frame::Ansi => format!("'\"${{{name}}}\"$'"),
            Frame::Cmd | Frame::Backtick | Frame::Brace => format!("\"${{{name}}}\""),
        }
    }
}

/// A shell line written in a file, with each value quoted for where it lands: bare values are
/// single-quoted when they need it, values inside `'...'` have their quotes escaped, values
/// inside `"..."` have `"`, `\`, `$` and backticks escaped. The file's own text stays as written
/// (it is the author's shell code). Where the place is not certain (see [`Tracker`]) the value
/// goes in `env` and the line refers to it. Shells other than POSIX ones get each value quoted
/// whole.
pub fn render_sh(segs: &[Seg], shell: Shell, env: &mut Env) -> Result<String> {
    let mut t = Tracker::new(Frame::Cmd);
    let mut out = String::new();
    for seg in segs {
        let Some(v) = seg.value() else {
            if let Seg::Lit(text) = seg {
                for c in text.chars() {
                    out.push(c);
                    t.feed(c);
                }
            }
            continue;
        };
        if v.contains('\0') {
            return Err(Error::failed("a variable's value contains a NUL byte"));
        }
        t.escaped = false;
        if shell != Shell::Posix {
            out.push_str(&shell.word(v).map_err(Error::Failed)?);
            continue;
        }
        if !t.certain() {
            out.push_str(&t.reference(&env_var(seg, env)?));
            continue;
        }
        match t.top() {
            Frame::Single => out.push_str(&v.replace('\'', "'\\''")),
            Frame::Double => {
                for c in v.chars() {
                    if matches!(c, '"' | '\\' | '$' | '`') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
            _ => out.push_str(&sh_word(v)),
        }
        // A value is one word: what follows it starts nothing new.
        t.prev = Some('x');
    }
    Ok(out)
}

/// `"..."` around a template whose values must not expand (VS Code's `weak` quoting): the
/// author's `$VAR`s still expand, the values' do not. A value after nested syntax of the
/// author's (`$(`, backticks, `${`) goes in `env`.
pub fn render_weak(segs: &[Seg], env: &mut Env) -> Result<String> {
    let mut t = Tracker::new(Frame::Double);
    let mut out = String::from("\"");
    for seg in segs {
        match seg {
            Seg::Lit(text) => {
                for c in text.chars() {
                    if matches!(c, '"' | '\\') {
                        // Escaped by us: a literal character, no syntax.
                        out.push('\\');
                        out.push(c);
                        t.prev = Some(c);
                    } else {
                        out.push(c);
                        t.feed(c);
                    }
                }
            }
            Seg::Val(v) | Seg::Input(_, v) => {
                if !t.certain() {
                    out.push_str(&format!("${{{}}}", env_var(seg, env)?));
                    continue;
                }
                for c in v.chars() {
                    if matches!(c, '"' | '\\' | '$' | '`') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
        }
    }
    out.push('"');
    Ok(out)
}

/// VS Code quotes a plain string argument of a shell task only when it has a space outside
/// quotes; otherwise the author's text goes to the shell as is.
pub fn needs_quotes(s: &str) -> bool {
    if s.len() >= 2 {
        let f = s.as_bytes()[0];
        if (f == b'\'' || f == b'"') && s.as_bytes()[s.len() - 1] == f {
            return false;
        }
    }
    let mut quote: Option<char> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\\' => {
                    chars.next();
                }
                '\'' | '"' => quote = Some(c),
                c if c.is_whitespace() => return true,
                _ => {}
            },
        }
    }
    false
}

/// An argument of a shell task with its VS Code quoting (`escape`, `strong`, `weak`, or none).
pub fn render_arg(
    segs: &[Seg],
    quoting: Option<&str>,
    shell: Shell,
    env: &mut Env,
) -> Result<String> {
    let whole = concat(segs);
    let q = |s: &str| shell.quote(s).map_err(Error::Failed);
    match (quoting, shell) {
        (Some("strong"), _) => q(&whole),
        (Some("escape"), Shell::Posix) => Ok(crate::quote::sh_escape(&whole)),
        (Some("weak"), Shell::Posix) => render_weak(segs, env),
        (Some(_), _) => q(&whole),
        (None, Shell::Posix) if needs_quotes(&whole) => Ok(sh_quote(&whole)),
        (None, _) => render_sh(segs, shell, env),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx_with<'a>(input: &'a mut dyn FnMut(&str) -> Result<String>) -> Context<'a> {
        Context {
            folder: PathBuf::from("/w/my app"),
            settings: serde_json::json!({
                "commandtree.sortOrder": "name",
                "python": { "venv": "/v" },
                "n": 3
            }),
            file: PathBuf::from("/w/my app/.vscode/tasks.json"),
            input,
            default_build_task: Some("build".into()),
        }
    }

    #[test]
    fn variables() {
        let mut inp = |id: &str| Ok(format!("<{id}>"));
        let mut c = ctx_with(&mut inp);
        unsafe { std::env::set_var("CT_VARS_TEST", "v1") };
        assert_eq!(
            c.string("${workspaceFolder}/x ${workspaceFolderBasename} ${env:CT_VARS_TEST} ${input:a} ${config:commandtree.sortOrder} ${config:python.venv} ${config:n} ${pathSeparator} ${defaultBuildTask}")
                .unwrap(),
            "/w/my app/x my app v1 <a> name /v 3 / build"
        );
        assert_eq!(
            c.string("${env:CT_VARS_TEST_UNSET}|${unclosed").unwrap(),
            "|${unclosed"
        );
        let e = c.string("${file}").unwrap_err().to_string();
        assert_eq!(
            e,
            "/w/my app/.vscode/tasks.json: `${file}` refers to the file open in VS Code's editor; it has no meaning outside VS Code"
        );
        assert!(
            c.string("${config:nope}")
                .unwrap_err()
                .to_string()
                .contains("is not set")
        );
        assert!(
            c.string("${bogus}")
                .unwrap_err()
                .to_string()
                .contains("unknown variable")
        );
        assert!(c.string("${command:pick}").is_err());
    }

    #[test]
    fn values_are_quoted_for_their_place() {
        let segs = |v: &str, before: &str, after: &str| {
            vec![
                Seg::Lit(before.to_string()),
                Seg::Val(v.to_string()),
                Seg::Lit(after.to_string()),
            ]
        };
        let nasty = "a'b\"c $(x) `y`";
        assert_eq!(
            render_sh(&segs(nasty, "echo ", ""), Shell::Posix, &mut Env::new()).unwrap(),
            r#"echo 'a'\''b"c $(x) `y`'"#
        );
        assert_eq!(
            render_sh(&segs(nasty, "echo '", "'"), Shell::Posix, &mut Env::new()).unwrap(),
            r#"echo 'a'\''b"c $(x) `y`'"#
        );
        assert_eq!(
            render_sh(&segs(nasty, "echo \"", "\""), Shell::Posix, &mut Env::new()).unwrap(),
            r#"echo "a'b\"c \$(x) \`y\`""#
        );
        assert_eq!(
            render_sh(&segs("plain", "cd ", "/sub"), Shell::Posix, &mut Env::new()).unwrap(),
            "cd plain/sub"
        );
        assert_eq!(
            render_weak(&segs("$x", "a $HOME ", ""), &mut Env::new()).unwrap(),
            r#""a $HOME \$x""#
        );
    }

    #[test]
    fn vs_code_arg_quoting() {
        assert!(needs_quotes("a b"));
        assert!(!needs_quotes("'a b'"));
        assert!(!needs_quotes("$HOME"));
        assert!(!needs_quotes(r"a\ b"));
        let s = |t: &str| vec![Seg::Lit(t.to_string())];
        assert_eq!(
            render_arg(&s("a b"), None, Shell::Posix, &mut Env::new()).unwrap(),
            "'a b'"
        );
        assert_eq!(
            render_arg(&s("$HOME"), None, Shell::Posix, &mut Env::new()).unwrap(),
            "$HOME"
        );
        assert_eq!(
            render_arg(&s("a b"), Some("escape"), Shell::Posix, &mut Env::new()).unwrap(),
            r"a\ b"
        );
        assert_eq!(
            render_arg(
                &[Seg::Val("$(rm)".into())],
                None,
                Shell::Posix,
                &mut Env::new()
            )
            .unwrap(),
            "'$(rm)'"
        );
    }
}
