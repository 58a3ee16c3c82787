//! VS Code's predefined variables (`${workspaceFolder}`, `${env:X}`, `${input:x}`...) resolved
//! outside VS Code, for `tasks.json` and `launch.json`.
//!
//! Substitution keeps the resolved values apart from the text around them ([`Seg`]), so a
//! shell line can quote each value for the place it lands in (see [`render_sh`]): a value
//! never becomes shell syntax, whatever it holds.

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
            out.push(Seg::Val(self.resolve(name)?));
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
            Seg::Lit(t) | Seg::Val(t) => t.as_str(),
        })
        .collect()
}

/// A shell line written in a file, with each value quoted for where it lands: bare values are
/// single-quoted when they need it, values inside `'...'` have their quotes escaped, values
/// inside `"..."` have `"`, `\`, `$` and backticks escaped. The file's own text stays as written
/// (it is the author's shell code). Shells other than POSIX ones get each value quoted whole.
pub fn render_sh(segs: &[Seg], shell: Shell) -> Result<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum St {
        Bare,
        Single,
        Double,
    }
    let mut st = St::Bare;
    let mut escaped = false;
    let mut out = String::new();
    for seg in segs {
        match seg {
            Seg::Lit(t) => {
                for c in t.chars() {
                    out.push(c);
                    if escaped {
                        escaped = false;
                        continue;
                    }
                    st = match (st, c) {
                        (St::Bare | St::Double, '\\') => {
                            escaped = true;
                            st
                        }
                        (St::Bare, '\'') => St::Single,
                        (St::Bare, '"') => St::Double,
                        (St::Single, '\'') | (St::Double, '"') => St::Bare,
                        (s, _) => s,
                    };
                }
            }
            Seg::Val(v) => {
                if v.contains('\0') {
                    return Err(Error::failed("a variable's value contains a NUL byte"));
                }
                escaped = false;
                if shell != Shell::Posix {
                    out.push_str(&shell.word(v).map_err(Error::Failed)?);
                    continue;
                }
                match st {
                    St::Bare => out.push_str(&sh_word(v)),
                    St::Single => out.push_str(&v.replace('\'', "'\\''")),
                    St::Double => {
                        for c in v.chars() {
                            if matches!(c, '"' | '\\' | '$' | '`') {
                                out.push('\\');
                            }
                            out.push(c);
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// `"..."` around a template whose values must not expand (VS Code's `weak` quoting): the
/// author's `$VAR`s still expand, the values' do not.
pub fn render_weak(segs: &[Seg]) -> String {
    let mut out = String::from("\"");
    for seg in segs {
        match seg {
            Seg::Lit(t) => {
                for c in t.chars() {
                    if matches!(c, '"' | '\\') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
            Seg::Val(v) => {
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
    out
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
pub fn render_arg(segs: &[Seg], quoting: Option<&str>, shell: Shell) -> Result<String> {
    let whole = concat(segs);
    let q = |s: &str| shell.quote(s).map_err(Error::Failed);
    match (quoting, shell) {
        (Some("strong"), _) => q(&whole),
        (Some("escape"), Shell::Posix) => Ok(crate::quote::sh_escape(&whole)),
        (Some("weak"), Shell::Posix) => Ok(render_weak(segs)),
        (Some(_), _) => q(&whole),
        (None, Shell::Posix) if needs_quotes(&whole) => Ok(sh_quote(&whole)),
        (None, _) => render_sh(segs, shell),
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
            render_sh(&segs(nasty, "echo ", ""), Shell::Posix).unwrap(),
            r#"echo 'a'\''b"c $(x) `y`'"#
        );
        assert_eq!(
            render_sh(&segs(nasty, "echo '", "'"), Shell::Posix).unwrap(),
            r#"echo 'a'\''b"c $(x) `y`'"#
        );
        assert_eq!(
            render_sh(&segs(nasty, "echo \"", "\""), Shell::Posix).unwrap(),
            r#"echo "a'b\"c \$(x) \`y\`""#
        );
        assert_eq!(
            render_sh(&segs("plain", "cd ", "/sub"), Shell::Posix).unwrap(),
            "cd plain/sub"
        );
        assert_eq!(render_weak(&segs("$x", "a $HOME ", "")), r#""a $HOME \$x""#);
    }

    #[test]
    fn vs_code_arg_quoting() {
        assert!(needs_quotes("a b"));
        assert!(!needs_quotes("'a b'"));
        assert!(!needs_quotes("$HOME"));
        assert!(!needs_quotes(r"a\ b"));
        let s = |t: &str| vec![Seg::Lit(t.to_string())];
        assert_eq!(render_arg(&s("a b"), None, Shell::Posix).unwrap(), "'a b'");
        assert_eq!(
            render_arg(&s("$HOME"), None, Shell::Posix).unwrap(),
            "$HOME"
        );
        assert_eq!(
            render_arg(&s("a b"), Some("escape"), Shell::Posix).unwrap(),
            r"a\ b"
        );
        assert_eq!(
            render_arg(&[Seg::Val("$(rm)".into())], None, Shell::Posix).unwrap(),
            "'$(rm)'"
        );
    }
}
