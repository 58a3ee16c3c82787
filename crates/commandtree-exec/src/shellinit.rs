//! `ct init bash|zsh|fish`: a snippet that binds a key (Ctrl-G unless told otherwise) to pick a
//! command with `ct pick` and put its full line, `cd` included, on the shell's edit line
//! without running it — the "run in current terminal" of the original, with the user's finger
//! on Enter.

use crate::quote::{fish_quote, is_plain, sh_word};
use crate::{Error, Result};

pub const DEFAULT_KEY: &str = "ctrl-g";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitShell {
    Bash,
    Zsh,
    Fish,
}

impl std::str::FromStr for InitShell {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "bash" => Ok(InitShell::Bash),
            "zsh" => Ok(InitShell::Zsh),
            "fish" => Ok(InitShell::Fish),
            other => Err(Error::usage(format!(
                "unknown shell `{other}` (expected bash, zsh or fish)"
            ))),
        }
    }
}

/// A key written `ctrl-X` or `alt-X` (X a letter), in each shell's own notation.
fn key_notation(shell: InitShell, key: &str) -> Result<String> {
    let lower = key.trim().to_ascii_lowercase();
    let bad = || {
        Error::usage(format!(
            "key `{key}`: write it as ctrl-LETTER or alt-LETTER (e.g. ctrl-g, alt-r)"
        ))
    };
    let (mods, letter) = lower.rsplit_once('-').ok_or_else(bad)?;
    let mut chars = letter.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return Err(bad());
    };
    if !c.is_ascii_lowercase() {
        return Err(bad());
    }
    Ok(match (mods, shell) {
        ("ctrl", InitShell::Bash) => format!("\\C-{c}"),
        ("ctrl", InitShell::Zsh) => format!("^{}", c.to_ascii_uppercase()),
        ("ctrl", InitShell::Fish) => format!("\\c{c}"),
        ("alt", InitShell::Bash) => format!("\\e{c}"),
        ("alt", InitShell::Zsh) => format!("^[{c}"),
        ("alt", InitShell::Fish) => format!("\\e{c}"),
        _ => return Err(bad()),
    })
}

/// The snippet for `shell`, binding `key` (see [`DEFAULT_KEY`]); `ct` is the program to call.
///
/// `ct pick` prints a POSIX `sh` line. fish reads quotes differently (`\'` ends nothing inside
/// `'...'` in sh but escapes the quote in fish), so the fish snippet never puts that text on the
/// prompt as fish code: it puts `sh -c` and the line as one fish-escaped word.
pub fn snippet(shell: InitShell, key: &str, ct: &str) -> Result<String> {
    let k = key_notation(shell, key)?;
    let ct = match shell {
        InitShell::Bash | InitShell::Zsh => sh_word(ct),
        InitShell::Fish if is_plain(ct) => ct.to_string(),
        InitShell::Fish => fish_quote(ct),
    };
    Ok(match shell {
        InitShell::Bash => format!(
            r#"# CommandTree: {key} picks a command and puts its line on the prompt (not run).
# Add to ~/.bashrc:  eval "$(ct init bash)"   (another key: ct init bash --key alt-r)
__ct_pick() {{
  local line
  line="$({ct} pick --query "$READLINE_LINE")" || return
  READLINE_LINE="$line"
  READLINE_POINT=${{#READLINE_LINE}}
}}
bind -x '"{k}": __ct_pick'
"#
        ),
        InitShell::Zsh => format!(
            r#"# CommandTree: {key} picks a command and puts its line on the prompt (not run).
# Add to ~/.zshrc:  eval "$(ct init zsh)"   (another key: ct init zsh --key alt-r)
__ct_pick() {{
  local line
  line="$({ct} pick --query "$BUFFER" </dev/tty)"
  if [[ $? -eq 0 ]]; then
    BUFFER="$line"
    CURSOR=${{#BUFFER}}
  fi
  zle reset-prompt
}}
zle -N __ct_pick
bindkey '{k}' __ct_pick
"#
        ),
        InitShell::Fish => format!(
            r#"# CommandTree: {key} picks a command and puts its line on the prompt (not run).
# Add to ~/.config/fish/config.fish:  ct init fish | source   (another key: --key alt-r)
function __ct_pick
    set -l line ({ct} pick --query (commandline) | string collect)
    and commandline -r -- (__ct_fish_line $line)
    commandline -f repaint
end
# `ct pick` prints a POSIX sh line; fish quotes differently, so it runs under sh, as one word.
function __ct_fish_line
    printf '%s' 'sh -c '(string escape --style=script -- $argv[1])
end
bind {k} __ct_pick
"#
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_in_each_notation() {
        assert_eq!(key_notation(InitShell::Bash, "ctrl-g").unwrap(), "\\C-g");
        assert_eq!(key_notation(InitShell::Zsh, "Ctrl-G").unwrap(), "^G");
        assert_eq!(key_notation(InitShell::Fish, "alt-r").unwrap(), "\\er");
        assert!(key_notation(InitShell::Bash, "f5").is_err());
        assert!(key_notation(InitShell::Bash, "ctrl-gg").is_err());
    }

    #[test]
    fn snippets_bind_the_key() {
        let b = snippet(InitShell::Bash, "ctrl-g", "ct").unwrap();
        assert!(b.contains("bind -x '\"\\C-g\": __ct_pick'"), "{b}");
        assert!(b.contains("ct pick --query \"$READLINE_LINE\""));
        let z = snippet(InitShell::Zsh, "alt-r", "ct").unwrap();
        assert!(z.contains("bindkey '^[r' __ct_pick"), "{z}");
        let f = snippet(InitShell::Fish, "ctrl-g", "ct").unwrap();
        assert!(f.contains("bind \\cg __ct_pick"), "{f}");
    }

    #[test]
    fn the_program_is_quoted_for_each_shell() {
        let b = snippet(InitShell::Bash, "ctrl-g", "/opt/my ct/ct").unwrap();
        assert!(b.contains("$('/opt/my ct/ct' pick"), "{b}");
        let f = snippet(InitShell::Fish, "ctrl-g", "/opt/it's/ct").unwrap();
        assert!(f.contains(r"('/opt/it\'s/ct' pick"), "{f}");
    }

    #[test]
    fn bash_accepts_the_snippet() {
        if !crate::skip::have("bash", "scripts/test.sh installs it") {
            return;
        }
        let s = snippet(InitShell::Bash, "ctrl-g", "ct").unwrap();
        // `bind` needs an interactive shell; parse only.
        let out = std::process::Command::new("bash")
            .arg("-n")
            .arg("-c")
            .arg(&s)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
