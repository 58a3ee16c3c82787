//! Quoting for the shells a command line is handed to. Every value a user gives goes through
//! here, so whatever it holds (quotes, `$`, backticks, `;`, newlines, unicode) reaches the
//! program as exactly one argument.

/// The shell that will read a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// `sh`, `bash`, `zsh`, `dash`, `ksh`.
    Posix,
    Fish,
    PowerShell,
    /// `cmd.exe`.
    Cmd,
}

impl Shell {
    /// The shell a program name stands for (`/bin/zsh`, `pwsh.exe`, `cmd`...). Unknown names are
    /// taken as POSIX shells, the common case for `options.shell.executable`.
    pub fn from_program(program: &str) -> Shell {
        let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
        let base = base.to_ascii_lowercase();
        let base = base.strip_suffix(".exe").unwrap_or(&base);
        match base {
            "fish" => Shell::Fish,
            "pwsh" | "powershell" => Shell::PowerShell,
            "cmd" => Shell::Cmd,
            _ => Shell::Posix,
        }
    }

    /// `s` as one word of this shell, always quoted.
    pub fn quote(self, s: &str) -> Result<String, String> {
        if s.contains('\0') {
            return Err("contains a NUL byte, which no program can receive".into());
        }
        Ok(match self {
            Shell::Posix => sh_quote(s),
            Shell::Fish => fish_quote(s),
            Shell::PowerShell => ps_quote(s),
            Shell::Cmd => cmd_quote(s)?,
        })
    }

    /// `s` as one word, quoted only when it has to be (keeps lines readable: `npm run build`
    /// rather than `'npm' 'run' 'build'`).
    pub fn word(self, s: &str) -> Result<String, String> {
        let plain = match self {
            Shell::Posix | Shell::Fish => is_plain(s),
            // `,` separates array items in PowerShell and arguments of batch files in cmd.
            Shell::PowerShell | Shell::Cmd => {
                !s.is_empty()
                    && s.chars().all(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '\\')
                    })
            }
        };
        if plain {
            Ok(s.to_string())
        } else {
            self.quote(s)
        }
    }
}

// One definition of POSIX word quoting, shared with the command lines discovery builds.
pub use commandtree_core::text::{is_plain_word as is_plain, sh_quote, sh_word};

/// Backslash-escapes every special character (VS Code's `escape` quoting). A newline cannot be
/// escaped that way (backslash-newline joins lines), so such a value is single-quoted instead.
pub fn sh_escape(s: &str) -> String {
    if s.is_empty() || s.contains('\n') {
        return sh_quote(s);
    }
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '@' | '+' | ',')) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// fish single quotes: `\` and `'` are the only escapes inside.
pub fn fish_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if matches!(c, '\\' | '\'') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// PowerShell verbatim string. PowerShell also takes the typographic single quotes as quote
/// characters, so those are doubled too.
pub fn ps_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// One argument on a `cmd.exe` line: first quoted the way programs split their command line
/// (`CommandLineToArgvW`), then every cmd metacharacter caret-escaped, quotes included, so cmd
/// expands nothing (`%VAR%`, `&`, `|`...) and passes the quoted word through.
pub fn cmd_quote(s: &str) -> Result<String, String> {
    if s.contains(['\n', '\r']) {
        return Err("contains a line break, which cmd.exe cannot pass to a program".into());
    }
    let argv = argv_quote(s);
    let mut out = String::with_capacity(argv.len() * 2);
    for c in argv.chars() {
        if matches!(c, '(' | ')' | '%' | '!' | '^' | '"' | '<' | '>' | '&' | '|') {
            out.push('^');
        }
        out.push(c);
    }
    Ok(out)
}

/// The text after `cmd /d /s /c`, passed as is (`raw_arg` on Windows). With `/s`, cmd drops the
/// first and the last quote of that text and runs the rest exactly: the script keeps its own
/// carets and quotes. Passed as a normal argument instead, the standard library would quote it
/// for `CommandLineToArgvW` (backslashes before quotes doubled, quotes escaped), which cmd does
/// not undo, and the script's quoting would be changed on the way.
pub fn cmd_c_tail(script: &str) -> String {
    format!("\"{script}\"")
}

/// The Windows argument convention: quotes around the word, backslashes doubled only where they
/// precede a quote.
fn argv_quote(s: &str) -> String {
    if !s.is_empty() && !s.contains([' ', '\t', '"', '\n', '\u{b}']) {
        return s.to_string();
    }
    let mut out = String::from("\"");
    let mut backslashes = 0usize;
    for c in s.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                out.extend(std::iter::repeat_n('\\', backslashes * 2 + 1));
                out.push('"');
                backslashes = 0;
            }
            _ => {
                out.extend(std::iter::repeat_n('\\', backslashes));
                out.push(c);
                backslashes = 0;
            }
        }
    }
    out.extend(std::iter::repeat_n('\\', backslashes * 2));
    out.push('"');
    out
}

/// Splits a typed list of arguments into words, the way a POSIX shell would but without any
/// expansion: `a 'b c' "d\"e"` is `a`, `b c`, `d"e`. `$`, backticks and globs stay literal.
pub fn split_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\' | '$' | '`')) => cur.push(x),
                            Some('\n') => {}
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => return Err("unterminated double quote".into()),
                        },
                        Some(x) => cur.push(x),
                        None => return Err("unterminated double quote".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(x) => {
                    in_word = true;
                    cur.push(x);
                }
                None => {
                    in_word = true;
                    cur.push('\\');
                }
            },
            _ => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

/// The inverse of [`split_words`]: `split_words(&join_words(v)) == v`.
pub fn join_words<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|w| sh_word(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix() {
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
        assert_eq!(sh_word("build"), "build");
        assert_eq!(sh_word("a b"), "'a b'");
        assert_eq!(sh_word("$HOME"), "'$HOME'");
        assert_eq!(sh_word("~"), "'~'");
        assert_eq!(sh_word("--raw-field=env"), "--raw-field=env");
        assert_eq!(sh_word("=ls"), "'=ls'");
        assert_eq!(sh_escape("a b$c"), r"a\ b\$c");
        assert_eq!(sh_escape("a\nb"), "'a\nb'");
    }

    #[test]
    fn fish_and_powershell() {
        assert_eq!(fish_quote(r"it's a\b"), r"'it\'s a\\b'");
        assert_eq!(ps_quote("it's $x"), "'it''s $x'");
        assert_eq!(ps_quote("a\u{2019}b"), "'a\u{2019}\u{2019}b'");
    }

    #[test]
    fn cmd() {
        assert_eq!(cmd_quote("plain").unwrap(), "plain");
        assert_eq!(cmd_quote("a b").unwrap(), r#"^"a b^""#);
        assert_eq!(cmd_quote(r#"say "hi""#).unwrap(), r#"^"say \^"hi\^"^""#);
        assert_eq!(cmd_quote(r"C:\dir\ x\").unwrap(), r#"^"C:\dir\ x\\^""#);
        assert_eq!(cmd_quote("100%&|").unwrap(), "100^%^&^|");
        assert_eq!(cmd_quote("").unwrap(), r#"^"^""#);
        assert!(cmd_quote("a\nb").is_err());
    }

    #[test]
    fn cmd_tail_survives_slash_s() {
        // What `cmd /s /c` does with the rest of its command line: drop the first and the last
        // quote, keep everything else.
        fn cmd_slash_s(tail: &str) -> String {
            let first = tail.find('"').unwrap();
            let last = tail.rfind('"').unwrap();
            format!(
                "{}{}{}",
                &tail[..first],
                &tail[first + 1..last],
                &tail[last + 1..]
            )
        }
        for words in [
            vec!["echo", "plain"],
            vec![
                "prog",
                "a b",
                r#"say "hi""#,
                r"C:\dir\ x\",
                "100%&|<>^!",
                "",
            ],
        ] {
            let script = words
                .iter()
                .map(|w| cmd_quote(w).unwrap())
                .collect::<Vec<_>>()
                .join(" ");
            assert_eq!(cmd_slash_s(&cmd_c_tail(&script)), script);
        }
        assert_eq!(cmd_c_tail(r#"x ^"a b^""#), r#""x ^"a b^"""#);
    }

    #[test]
    fn shells_by_program() {
        assert_eq!(Shell::from_program("/usr/bin/zsh"), Shell::Posix);
        assert_eq!(Shell::from_program("pwsh.exe"), Shell::PowerShell);
        assert_eq!(
            Shell::from_program(r"C:\Windows\System32\cmd.exe"),
            Shell::Cmd
        );
        assert_eq!(Shell::from_program("fish"), Shell::Fish);
        assert!(Shell::Posix.quote("a\0b").is_err());
    }

    #[test]
    fn words() {
        assert_eq!(
            split_words(r#" a 'b c'  "d\"e\$" f\ g '' "#).unwrap(),
            ["a", "b c", "d\"e$", "f g", ""]
        );
        assert_eq!(split_words("$HOME `x` *").unwrap(), ["$HOME", "`x`", "*"]);
        assert_eq!(split_words(r#""a\nb""#).unwrap(), [r"a\nb"]);
        assert!(split_words("'open").is_err());
        assert!(split_words("\"open").is_err());
        let v = ["it's", "", "a b", "\"q\"", "\\"];
        assert_eq!(split_words(&join_words(&v)).unwrap(), v);
    }
}
