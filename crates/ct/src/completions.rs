//! `ct completions bash|zsh|fish`: the registration script of clap_complete's dynamic
//! completion. The script calls `ct` back for each completion, so options stay in step with the
//! binary and command names come from the workspace the user is in.

use crate::output;
use anyhow::Result;
use clap::Args;
use clap_complete::engine::{ArgValueCompleter, CompletionCandidate};
use clap_complete::env::Shells;
use commandtree_engine::{Engine, LoadOptions};
use std::ffi::OsStr;

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_parser = ["bash", "zsh", "fish"])]
    shell: String,
}

pub fn print(args: CompletionsArgs) -> Result<()> {
    let shells = Shells::builtins();
    let shell = shells
        .completer(&args.shell)
        .ok_or_else(|| anyhow::anyhow!("no completion for shell `{}`", args.shell))?;
    let mut out = std::io::stdout().lock();
    // `ct` from PATH: the script keeps working after the binary is rebuilt or moved.
    shell.write_registration("COMPLETE", "ct", "ct", "ct", &mut out)?;
    Ok(())
}

/// Candidates for a `<command>` argument: each label of the workspace around the current
/// folder, or `type:label` where a label is shared by several commands.
///
/// A label is workspace text, and the shell puts the chosen candidate on the command line:
/// bash inserts it as it is (`test; touch x` would become two commands), while zsh and fish
/// quote what they insert themselves. So bash gets each name as one quoted word, in the style
/// of what was typed so far, and every shell is matched against the typed word with its quotes
/// taken off. Names with control characters are never offered: the shells read candidates one
/// per line, so such a name could smuggle in a candidate of its own.
pub fn command_names() -> ArgValueCompleter {
    ArgValueCompleter::new(|current: &OsStr| {
        let shell = SHELL.get().map(String::as_str).unwrap_or_default();
        let typed = current.to_string_lossy();
        candidates(shell, &typed, &workspace_names())
    })
}

/// The shell asking (`COMPLETE`), which clap_complete removes from the environment before the
/// candidates are asked for.
static SHELL: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Keeps `COMPLETE` for [`command_names`]; called before clap_complete reads it.
pub fn remember_shell() {
    if let Ok(shell) = std::env::var("COMPLETE") {
        let _ = SHELL.set(shell);
    }
}

/// `(name, help)` of every command of the workspace around the current folder.
fn workspace_names() -> Vec<(String, String)> {
    let Ok(cwd) = std::env::current_dir() else {
        return Vec::new();
    };
    let Ok(engine) = Engine::open(None, &cwd) else {
        return Vec::new();
    };
    let Ok(loaded) = engine.load(&LoadOptions::default()) else {
        return Vec::new();
    };
    // One rule with `ct run`: each name offered resolves to exactly its command.
    commandtree_engine::names::names(&loaded.commands, loaded.at())
        .into_iter()
        .map(|(c, name)| (name, format!("{} · {}", c.kind, c.category)))
        .collect()
}

/// The candidates `shell` gets for the word typed so far.
fn candidates(shell: &str, typed: &str, names: &[(String, String)]) -> Vec<CompletionCandidate> {
    let (prefix, style) = unquote_prefix(typed);
    names
        .iter()
        .filter(|(name, _)| name.starts_with(&prefix) && !output::has_unsafe(name))
        .map(|(name, help)| {
            let value = if shell == "bash" {
                bash_word(name, style)
            } else {
                name.clone()
            };
            CompletionCandidate::new(value).help(Some(help.clone().into()))
        })
        .collect()
}

/// How the typed word opened: the candidates for bash keep that quoting, so what was typed
/// stays a prefix of what is inserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Bare,
    Single,
    Double,
}

/// The typed word as the shell will read it (POSIX quoting, unfinished quotes allowed), and
/// the quoting it started with.
fn unquote_prefix(typed: &str) -> (String, Style) {
    let style = match typed.chars().next() {
        Some('\'') => Style::Single,
        Some('"') => Style::Double,
        _ => Style::Bare,
    };
    let mut out = String::new();
    let mut chars = typed.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '\\') => out.extend(chars.next()),
            (Some('"'), '\\') => match chars.next() {
                Some(n @ ('"' | '\\' | '$' | '`')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => {}
            },
            (_, c) => out.push(c),
        }
    }
    (out, style)
}

/// `name` as one bash word that reads back as exactly `name`.
fn bash_word(name: &str, style: Style) -> String {
    let plain = |c: char| {
        c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '@' | '%' | '+' | ',')
    };
    match style {
        Style::Single => format!("'{}'", name.replace('\'', "'\\''")),
        Style::Double => {
            let mut out = String::from("\"");
            for c in name.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    out.push('\\');
                }
                out.push(c);
            }
            // `!` is history expansion inside double quotes and cannot be escaped there.
            out.push('"');
            out.replace('!', "\"'!'\"")
        }
        Style::Bare => {
            let mut out = String::new();
            for c in name.chars() {
                if !plain(c) {
                    out.push('\\');
                }
                out.push(c);
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(shell: &str, typed: &str, names: &[&str]) -> Vec<String> {
        let names: Vec<(String, String)> = names
            .iter()
            .map(|n| (n.to_string(), "npm · npm".to_string()))
            .collect();
        candidates(shell, typed, &names)
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn bash_gets_quoted_words_in_the_style_typed() {
        let names = ["test; touch x", "it's $(id)", "plain-name.sh"];
        assert_eq!(values("bash", "te", &names), [r"test\;\ touch\ x"],);
        assert_eq!(values("bash", "'te", &names), ["'test; touch x'"]);
        assert_eq!(values("bash", "\"it", &names), [r#""it's \$(id)""#]);
        assert_eq!(values("bash", "it\\'", &names), [r"it\'s\ \$\(id\)"]);
        assert_eq!(values("bash", "'it'\\''s", &names), [r"'it'\''s $(id)'"]);
        assert_eq!(values("bash", "", &names).len(), 3);
        assert_eq!(values("bash", "pl", &names), ["plain-name.sh"]);
    }

    #[test]
    fn zsh_and_fish_get_the_name_and_match_the_unquoted_word() {
        for shell in ["zsh", "fish"] {
            assert_eq!(
                values(shell, "'test;", &["test; touch x"]),
                ["test; touch x"]
            );
            assert_eq!(
                values(shell, "test\\;", &["test; touch x"]),
                ["test; touch x"]
            );
        }
    }

    #[test]
    fn names_with_control_characters_are_never_offered() {
        for shell in ["bash", "zsh", "fish"] {
            assert!(values(shell, "", &["a\nrm -rf ~", "b\x0bc", "d\u{202e}"]).is_empty());
        }
    }
}
