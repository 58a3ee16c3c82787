//! The command line of a discovered command: its `command` (built by discovery, paths already
//! quoted) plus the formatted parameters plus `-- extra args`, placed the way each tool wants
//! them, and a check that the program it starts exists before anything runs.

use crate::params::{Values, format_params};
use crate::quote::{Shell, split_words};
use crate::{Error, Result};
use commandtree_core::CommandItem;
use std::path::{Path, PathBuf};

/// The shell that reads a command's line on this platform. Everything is POSIX `sh` except on
/// Windows, where PowerShell scripts go to PowerShell and the rest to `cmd.exe`.
pub fn shell_for(item: &CommandItem) -> Shell {
    if cfg!(windows) {
        if item.kind == "powershell" && item.file_path.to_ascii_lowercase().ends_with(".ps1") {
            Shell::PowerShell
        } else {
            Shell::Cmd
        }
    } else {
        Shell::Posix
    }
}

/// `command` + parameters + extra arguments.
pub fn build(item: &CommandItem, values: &Values, extra: &[String]) -> Result<String> {
    let shell = shell_for(item);
    let mut line = item.command.clone();
    let mut dashdash = false;
    let mut params: &[commandtree_core::ParamDef] = &item.params;
    if item.kind == "taskfile" && item.id_name().contains('*') {
        let stars = item.id_name().matches('*').count().min(params.len());
        line = taskfile_wildcard_line(item, &params[..stars], values, shell)?;
        params = &params[stars..];
    }
    if item.kind == "rake" && !item.params.is_empty() {
        line = rake_line(item, values, shell)?;
    } else {
        let f = format_params(params, values, shell)?;
        dashdash = f.dashdash;
        for w in f.words {
            line.push(' ');
            line.push_str(&w);
        }
    }
    if !extra.is_empty() {
        if !dashdash && wants_dashdash(item) {
            line.push_str(" --");
        }
        for a in extra {
            line.push(' ');
            line.push_str(
                &shell
                    .word(a)
                    .map_err(|e| Error::failed(format!("extra argument `{a}`: {e}")))?,
            );
        }
    }
    Ok(line)
}

/// A Taskfile wildcard task (`release:*`) is run by its name with each `*` filled in:
/// `task release:minor`. The first parameters hold the values, in order.
fn taskfile_wildcard_line(
    item: &CommandItem,
    stars: &[commandtree_core::ParamDef],
    values: &Values,
    shell: Shell,
) -> Result<String> {
    let name = item.id_name();
    let mut filled = String::new();
    let mut params = stars.iter();
    for (i, part) in name.split('*').enumerate() {
        if i > 0 {
            let p = params
                .next()
                .ok_or_else(|| Error::failed(format!("`{}` needs a value for `*`", item.label)))?;
            let v = values
                .get(&p.name)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| {
                    Error::failed(format!("`{}` needs a value for `{}`", item.label, p.name))
                })?;
            filled.push_str(v);
        }
        filled.push_str(part);
    }
    let quoted = shell
        .word(&filled)
        .map_err(|e| Error::failed(format!("`{}`: a value {e}", item.label)))?;
    let bare = commandtree_core::text::sh_word(name);
    match item.command.strip_suffix(&bare) {
        Some(prefix) => Ok(format!("{prefix}{quoted}")),
        None => Ok(format!("{} {quoted}", item.command)),
    }
}

/// Rake takes task arguments inside the task name: `rake "deploy[prod,eu]"`. Commas and
/// backslashes in a value are backslash-escaped (rake unescapes them); trailing empty values
/// are dropped so the task's own defaults apply.
fn rake_line(item: &CommandItem, values: &Values, shell: Shell) -> Result<String> {
    let name = item.id_name();
    let mut args: Vec<String> = item
        .params
        .iter()
        .map(|p| {
            values
                .get(&p.name)
                .map(|v| v.replace('\\', "\\\\").replace(',', "\\,"))
                .unwrap_or_default()
        })
        .collect();
    while args.last().is_some_and(String::is_empty) {
        args.pop();
    }
    if args.is_empty() {
        return Ok(item.command.clone());
    }
    let task = format!("{name}[{}]", args.join(","));
    let quoted = shell
        .quote(&task)
        .map_err(|e| Error::failed(format!("`{}`: a value {e}", item.label)))?;
    let bare = commandtree_core::text::sh_word(name);
    match item.command.strip_suffix(&bare) {
        Some(prefix) => Ok(format!("{prefix}{quoted}")),
        None => Ok(format!("{} {quoted}", item.command)),
    }
}

/// Whether the tool needs `--` before arguments meant for the script it runs.
fn wants_dashdash(item: &CommandItem) -> bool {
    let words: Vec<&str> = item.command.split_whitespace().collect();
    let first = words.first().copied().unwrap_or("");
    let sub = words.get(1).copied().unwrap_or("");
    match item.kind.as_str() {
        "npm" => matches!(first, "npm" | "pnpm" | "bun") && sub == "run",
        "composer" | "taskfile" | "turbo" => true,
        "cargo" => matches!(sub, "run" | "test" | "bench"),
        "dotnet" => sub == "run",
        "csharp-script" => true,
        _ => false,
    }
}

/// Fails with one clear line when the program a line starts is not there: not on PATH, a
/// missing or non-executable file, or a script whose `#!` interpreter is missing. Lines the
/// check cannot read (expansions, subshells) pass; the shell then reports.
pub fn check_program(label: &str, line: &str, cwd: &Path) -> Result<()> {
    let Some(program) = first_program(line) else {
        return Ok(());
    };
    let missing = |what: String| Err(Error::failed(format!("cannot run `{label}`: {what}")));
    if program.contains('/') {
        let path = if Path::new(&program).is_absolute() {
            PathBuf::from(&program)
        } else {
            cwd.join(&program)
        };
        if !path.is_file() {
            return missing(format!("`{}` does not exist", path.display()));
        }
        if !is_executable(&path) {
            return missing(format!("`{}` is not executable", path.display()));
        }
        if let Some(interp) = shebang_program(&path) {
            let found = if interp.contains('/') {
                Path::new(&interp).is_file()
            } else {
                which(&interp).is_some()
            };
            if !found {
                return missing(format!(
                    "its interpreter `{interp}` (from the `#!` line of {}) is not installed",
                    path.display()
                ));
            }
        }
        return Ok(());
    }
    if SH_BUILTINS.contains(&program.as_str()) || which(&program).is_some() {
        return Ok(());
    }
    missing(format!("`{program}` is not installed (not found on PATH)"))
}

const SH_BUILTINS: &[&str] = &[
    "cd", "echo", "exec", "exit", "export", "eval", "printf", "read", "set", "shift", "test", "[",
    "true", "false", ":", ".", "source", "trap", "type", "ulimit", "umask", "unset", "wait",
    "command", "if", "for", "while", "until", "case", "{", "!",
];

/// The program word of a line, unquoted, after any `VAR=value` prefixes.
pub fn first_program(line: &str) -> Option<String> {
    let head: String = line
        .chars()
        .take_while(|c| !matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>' | '\n'))
        .collect();
    if head.contains(['$', '`']) {
        return None;
    }
    let words = split_words(&head).ok()?;
    words
        .into_iter()
        .find(|w| !is_assignment(w))
        .filter(|w| !w.is_empty())
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// The program a `#!` line runs (`env` looked through).
fn shebang_program(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut buf = [0u8; 256];
    let n = std::fs::File::open(path).ok()?.read(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf[..n]);
    let first = text.lines().next()?;
    let rest = first.strip_prefix("#!")?;
    let mut words = rest.split_whitespace();
    let prog = words.next()?;
    if prog.rsplit('/').next() == Some("env") {
        return words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .map(String::from);
    }
    Some(prog.to_string())
}

/// The full path of `program` on PATH.
pub fn which(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        let cand = dir.join(program);
        if cand.is_file() && is_executable(&cand) {
            return Some(cand);
        }
        if cfg!(windows) {
            for ext in ["exe", "cmd", "bat", "com"] {
                let c = cand.with_extension(ext);
                if c.is_file() {
                    return Some(c);
                }
            }
        }
    }
    None
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;
    use commandtree_core::{ParamDef, ParamFormat};

    fn item(kind: &str, file: &str, name: &str, command: &str) -> CommandItem {
        CommandItem::new(kind, Path::new(file), name, command)
    }

    fn extra(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn extra_args_per_tool() {
        let none = Values::new();
        let cases = [
            ("npm", "npm run build", "npm run build -- a 'b c'"),
            ("npm", "pnpm run build", "pnpm run build -- a 'b c'"),
            ("npm", "bun run build", "bun run build -- a 'b c'"),
            ("npm", "yarn build", "yarn build a 'b c'"),
            ("just", "just build", "just build a 'b c'"),
            ("make", "make build", "make build a 'b c'"),
            ("taskfile", "task build", "task build -- a 'b c'"),
            ("mise", "mise run build", "mise run build a 'b c'"),
            ("cargo", "cargo run -p x", "cargo run -p x -- a 'b c'"),
            ("cargo", "cargo build", "cargo build a 'b c'"),
            (
                "dotnet",
                "dotnet run --project \"/w/a.csproj\"",
                "dotnet run --project \"/w/a.csproj\" -- a 'b c'",
            ),
            (
                "composer",
                "composer run-script t",
                "composer run-script t -- a 'b c'",
            ),
            ("deno", "deno task t", "deno task t a 'b c'"),
        ];
        for (kind, cmd, want) in cases {
            let it = item(kind, "/w/f", "x", cmd);
            assert_eq!(build(&it, &none, &extra(&["a", "b c"])).unwrap(), want);
        }
    }

    #[test]
    fn dashdash_param_is_not_doubled() {
        let mut it = item("dotnet", "/w/a.csproj", "run", "dotnet run");
        it.params = vec![ParamDef {
            format: Some(ParamFormat::DashdashArgs),
            ..ParamDef::new("args")
        }];
        let v: Values = [("args".to_string(), "x y".to_string())].into();
        assert_eq!(
            build(&it, &v, &extra(&["z"])).unwrap(),
            "dotnet run -- 'x' 'y' z"
        );
    }

    #[test]
    fn taskfile_wildcards_are_filled_in() {
        let mut it = item(
            "taskfile",
            "/w/Taskfile.yml",
            "release:*",
            "task 'release:*'",
        );
        it.params = vec![ParamDef::new("arg")];
        let v: Values = [("arg".to_string(), "minor".to_string())].into();
        assert_eq!(build(&it, &v, &[]).unwrap(), "task release:minor");
        assert!(build(&it, &Values::new(), &[]).is_err());
    }

    #[test]
    fn rake_arguments_go_in_brackets() {
        let mut it = item("rake", "/w/Rakefile", "db:seed", "bundle exec rake db:seed");
        it.params = vec![
            ParamDef::new("env"),
            ParamDef::new("count"),
            ParamDef::new("x"),
        ];
        let v: Values = [
            ("env".to_string(), "a,b\\c".to_string()),
            ("count".to_string(), String::new()),
            ("x".to_string(), "it's".to_string()),
        ]
        .into();
        assert_eq!(
            build(&it, &v, &[]).unwrap(),
            r"bundle exec rake 'db:seed[a\,b\\c,,it'\''s]'"
        );
        let v: Values = [("env".to_string(), "prod".to_string())].into();
        assert_eq!(
            build(&it, &v, &[]).unwrap(),
            "bundle exec rake 'db:seed[prod]'"
        );
        assert_eq!(
            build(&it, &Values::new(), &[]).unwrap(),
            "bundle exec rake db:seed"
        );
    }

    #[test]
    fn program_words() {
        assert_eq!(first_program("npm run x").as_deref(), Some("npm"));
        assert_eq!(
            first_program("\"/w/my dir/x.sh\" 'a'").as_deref(),
            Some("/w/my dir/x.sh")
        );
        assert_eq!(first_program("FOO=1 BAR=2 make x").as_deref(), Some("make"));
        assert_eq!(first_program("$EDITOR x"), None);
        assert_eq!(first_program("(cd x)"), None);
    }

    #[test]
    fn missing_programs_are_named() {
        let tmp = std::env::temp_dir();
        let e = check_program("x", "ct-surely-missing-program --v", &tmp).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot run `x`: `ct-surely-missing-program` is not installed (not found on PATH)"
        );
        assert!(check_program("x", "sh -c true", &tmp).is_ok());
        assert!(check_program("x", "cd /tmp && ls", &tmp).is_ok());
        let e = check_program("x", "\"/nonexistent/x.sh\"", &tmp).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
    }
}
