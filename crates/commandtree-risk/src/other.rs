//! PowerShell and Python scripts. No grammar for them is packaged for tree-sitter's Rust
//! bindings, so a small tokenizer drops comments and keeps string literals apart from code: a
//! pattern written inside a string or a comment is not code.

use crate::{Finding, Level};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Punct(char),
    Newline,
}

/// Tokens of PowerShell (`#` and `<# #>` comments, `'…'` and `"…"` strings, backtick escapes)
/// or Python (`#` comments, single/double/triple-quoted strings with prefixes), each with
/// its 1-based line.
fn tokens(text: &str, python: bool) -> Vec<(Tok, u32)> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1u32;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            out.push((Tok::Newline, line));
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if !python && c == '<' && b.get(i + 1) == Some(&'#') {
            while i < b.len() && !(b[i] == '#' && b.get(i + 1) == Some(&'>')) {
                if b[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
        } else if c == '#' {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '"' || c == '\'' {
            let triple = python && b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
            let start_line = line;
            let mut s = String::new();
            i += if triple { 3 } else { 1 };
            while i < b.len() {
                if triple {
                    if b[i] == c && b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c) {
                        i += 3;
                        break;
                    }
                } else if b[i] == c {
                    // PowerShell doubles a quote to escape it.
                    if !python && b.get(i + 1) == Some(&c) {
                        s.push(c);
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                } else if b[i] == '\n' && python {
                    break;
                }
                let esc = if python { '\\' } else { '`' };
                if b[i] == esc && i + 1 < b.len() && (python || c == '"') {
                    s.push(b[i + 1]);
                    i += 2;
                    continue;
                }
                if b[i] == '\n' {
                    line += 1;
                }
                s.push(b[i]);
                i += 1;
            }
            out.push((Tok::Str(s), start_line));
        } else if c.is_alphanumeric() || matches!(c, '_' | '-' | '$' | '.' | ':' | '\\' | '/' | '~')
        {
            let mut s = String::new();
            while i < b.len()
                && (b[i].is_alphanumeric()
                    || matches!(b[i], '_' | '-' | '$' | '.' | ':' | '\\' | '/' | '~' | '*'))
            {
                s.push(b[i]);
                i += 1;
            }
            out.push((Tok::Word(s), line));
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

fn add(out: &mut Vec<Finding>, level: Level, line: u32, reason: &str, text: &str) {
    if out.iter().any(|f| f.line == line && f.reason == reason) {
        return;
    }
    let snippet = text
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("")
        .trim()
        .chars()
        .take(80)
        .collect();
    out.push(Finding {
        level,
        reason: reason.to_string(),
        line,
        snippet,
    });
}

pub fn powershell(text: &str, out: &mut Vec<Finding>) {
    let toks = tokens(text, false);
    // Statements: split on newlines and `;`; pipelines stay together.
    let mut stmt: Vec<(String, bool, u32)> = Vec::new();
    let flush = |stmt: &mut Vec<(String, bool, u32)>, out: &mut Vec<Finding>| {
        if !stmt.is_empty() {
            ps_statement(stmt, text, out);
            stmt.clear();
        }
    };
    for (t, line) in toks {
        match t {
            Tok::Newline | Tok::Punct(';') => flush(&mut stmt, out),
            Tok::Word(w) => stmt.push((w, false, line)),
            Tok::Str(s) => stmt.push((s, true, line)),
            Tok::Punct(c) => stmt.push((c.to_string(), false, line)),
        }
    }
    flush(&mut stmt, out);
}

fn ps_statement(stmt: &[(String, bool, u32)], text: &str, out: &mut Vec<Finding>) {
    let line = stmt[0].2;
    ps_native_commands(stmt, out);
    let code: Vec<String> = stmt
        .iter()
        .filter(|(_, is_str, _)| !is_str)
        .map(|(w, _, _)| w.to_ascii_lowercase())
        .collect();
    let code: Vec<&str> = code.iter().map(String::as_str).collect();
    let has = |names: &[&str]| code.iter().any(|w| names.contains(w));
    let strings = || {
        stmt.iter()
            .filter(|(_, s, _)| *s)
            .map(|(w, _, _)| w.to_ascii_lowercase())
    };
    let download = has(&[
        "iwr",
        "irm",
        "invoke-webrequest",
        "invoke-restmethod",
        "curl",
        "wget",
        "start-bitstransfer",
    ]) || code.iter().any(|w| {
        w.contains("downloadstring") || w.contains("downloadfile") || w.contains("net.webclient")
    });
    let exec = has(&["iex", "invoke-expression"])
        || code.iter().any(|w| w.contains("scriptblock]::create"));
    if exec && download {
        add(
            out,
            Level::Danger,
            line,
            "runs a script downloaded from the internet (iex)",
            text,
        );
    } else if exec && code.iter().any(|w| w.contains("frombase64string")) {
        add(
            out,
            Level::Danger,
            line,
            "runs hidden code decoded from base64 (iex)",
            text,
        );
    }
    // Other text evaluated (`mise activate pwsh | Invoke-Expression`) is judged where it is
    // made.
    if code
        .iter()
        .any(|w| *w == "-encodedcommand" || *w == "-enc" || *w == "-e")
        && has(&["powershell", "pwsh", "powershell.exe", "pwsh.exe"])
    {
        add(
            out,
            Level::Danger,
            line,
            "runs hidden base64-encoded code (-EncodedCommand)",
            text,
        );
    }
    if has(&["remove-item", "rm", "del", "rmdir", "ri", "rd", "erase"])
        && code
            .iter()
            .any(|w| w.starts_with("-r") && "-recurse".starts_with(w))
    {
        let targets: Vec<String> = stmt
            .iter()
            .skip(1)
            .map(|(w, _, _)| w.to_ascii_lowercase())
            .filter(|w| !w.starts_with('-'))
            .collect();
        for t in targets {
            let t = t.replace('/', "\\");
            let bad = t == "\\"
                || t == "~"
                || t == "~\\"
                || t == "c:\\"
                || t == "c:"
                || t == "c:\\*"
                || t == "$home"
                || t == "$env:userprofile"
                || t == "$env:systemroot"
                || t.starts_with("c:\\windows")
                || t == "c:\\users"
                || t == "$home\\*"
                || t == "~\\*";
            if bad {
                add(
                    out,
                    Level::Danger,
                    line,
                    &format!("deletes {t} recursively (Remove-Item -Recurse)"),
                    text,
                );
            }
        }
    }
    if has(&[
        "format-volume",
        "clear-disk",
        "initialize-disk",
        "remove-partition",
    ]) {
        add(out, Level::Danger, line, "formats or wipes a disk", text);
    }
    if has(&["set-executionpolicy"]) && code.iter().any(|w| *w == "unrestricted" || *w == "bypass")
    {
        add(
            out,
            Level::Caution,
            line,
            "turns off script signing checks (Set-ExecutionPolicy)",
            text,
        );
    }
    if has(&["start-process"]) && code.contains(&"runas") {
        add(
            out,
            Level::Caution,
            line,
            "runs as administrator (-Verb RunAs)",
            text,
        );
    }
    if has(&["stop-computer", "restart-computer"]) {
        add(out, Level::Danger, line, "shuts the machine down", text);
    }
    // A Chocolatey package's install script: the installer it downloads runs for the whole
    // machine (an MSI or EXE, silently).
    if has(&[
        "install-chocolateypackage",
        "install-chocolateyinstallpackage",
        "install-windowsfeature",
        "enable-windowsoptionalfeature",
    ]) {
        add(
            out,
            Level::Caution,
            line,
            "installs a program or feature on the machine",
            text,
        );
    }
    let writes = has(&[
        "set-content",
        "add-content",
        "out-file",
        ">",
        "sc",
        "ac",
        "copy-item",
        "cp",
    ]);
    if writes
        && (strings().chain(code.iter().map(|s| s.to_string())))
            .any(|w| w.contains(".ssh") || w.contains(".aws") || w.contains("$profile"))
    {
        add(
            out,
            Level::Danger,
            line,
            "writes to credentials or the PowerShell profile",
            text,
        );
    }
}

/// Words that start a PowerShell statement without running a program: keywords, and the
/// built-in aliases whose names are also Unix programs (`rm`, `curl`: cmdlets here, judged
/// above by what the cmdlet does).
const PS_NOT_PROGRAMS: &[&str] = &[
    "if",
    "elseif",
    "else",
    "foreach",
    "for",
    "while",
    "do",
    "until",
    "switch",
    "function",
    "filter",
    "param",
    "return",
    "throw",
    "try",
    "catch",
    "finally",
    "begin",
    "process",
    "end",
    "trap",
    "exit",
    "break",
    "continue",
    "class",
    "enum",
    "using",
    "data",
    "default",
    "in",
    "rm",
    "del",
    "erase",
    "rd",
    "ri",
    "rmdir",
    "cp",
    "copy",
    "cpi",
    "mv",
    "move",
    "mi",
    "ls",
    "dir",
    "gci",
    "cat",
    "gc",
    "type",
    "echo",
    "write",
    "curl",
    "wget",
    "iwr",
    "irm",
    "iex",
    "mkdir",
    "md",
    "cd",
    "chdir",
    "sl",
    "pwd",
    "gl",
    "sleep",
    "sort",
    "kill",
    "spps",
    "ps",
    "gps",
    "sc",
    "ac",
    "select",
    "where",
    "foreach-object",
    "%",
    "?",
    "man",
    "help",
    "clear",
    "cls",
    "start",
    "saps",
    "tee",
    "diff",
    "compare",
    "set",
    "sv",
    "gv",
    "ni",
    "ii",
    "h",
    "history",
    "r",
    "measure",
    "fl",
    "ft",
    "fw",
    "gm",
    "group",
    "icm",
    "ipmo",
    "mount",
    "popd",
    "pushd",
    "ren",
    "rni",
    "rv",
    "sal",
    "sp",
    "gp",
    "gsv",
    "gu",
    "oh",
];

/// The programs a PowerShell statement runs by name (`choco push …`, `& git push --force`,
/// `if ($k) { npm publish }`): each handed to the shell rules as the command line it is.
/// Cmdlets (`Verb-Noun`), variables and the aliases above are PowerShell's own, judged by
/// [`ps_statement`].
fn ps_native_commands(stmt: &[(String, bool, u32)], out: &mut Vec<Finding>) {
    for segment in stmt.split(|(w, is_str, _)| !is_str && matches!(w.as_str(), "{" | "}" | "|")) {
        let mut words = segment
            .iter()
            .skip_while(|(w, is_str, _)| !is_str && matches!(w.as_str(), "&" | "."))
            .peekable();
        let Some((first, false, line)) = words.peek().map(|(w, s, l)| (w.as_str(), *s, *l)) else {
            continue;
        };
        let lower = first.to_ascii_lowercase();
        let cmdlet = lower.split_once('-').is_some_and(|(verb, noun)| {
            !verb.is_empty() && !noun.is_empty() && !lower.contains('.')
        }) && lower.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if cmdlet
            || PS_NOT_PROGRAMS.contains(&lower.as_str())
            || !first.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '/')
        {
            continue;
        }
        let mut code = String::new();
        for (w, is_str, _) in words {
            if *is_str {
                if !code.ends_with('=') {
                    code.push(' ');
                }
                code.push('\'');
                code.push_str(&w.replace('\'', "'\\''"));
                code.push('\'');
            } else if w == "=" {
                code.push('=');
            } else if w.chars().count() == 1 && !w.starts_with(|c: char| c.is_alphanumeric()) {
                // Other punctuation (`(`, `,`, `@`) is PowerShell's, not the program's.
                continue;
            } else {
                if !code.ends_with('=') {
                    code.push(' ');
                }
                code.push_str(w);
            }
        }
        crate::shell::analyse(code.trim(), line, out);
    }
}

/// Python's ways of running a command line or an argument list.
const PY_RUNS: &[&str] = &[
    "os.system",
    "os.popen",
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "check_call",
    "check_output",
    "Popen",
];

/// The script's own functions that run a command (`def run_s3cmd(command): …
/// subprocess.check_call(s3cmd)`): a call of one with a literal command line runs that line.
/// A function's body is taken to reach the next `def` or `class`.
fn python_runners(toks: &[(Tok, u32)]) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    let mut current: Option<&str> = None;
    for (i, (t, _)) in toks.iter().enumerate() {
        let Tok::Word(w) = t else { continue };
        match w.as_str() {
            "def" => {
                current = match toks.get(i + 1) {
                    Some((Tok::Word(name), _)) => Some(name.as_str()),
                    _ => None,
                }
            }
            "class" => current = None,
            w if PY_RUNS.contains(&w) && matches!(toks.get(i + 1), Some((Tok::Punct('('), _))) => {
                if let Some(name) = current {
                    out.insert(name.to_string());
                }
            }
            _ => {}
        }
    }
    out
}

/// A script that writes a GitHub release through the REST API (`requests.post` or a helper
/// handed `"post"`/`"patch"`, to `api.github.com` and `…/releases`): it publishes, as `gh
/// release create` does.
fn github_release_api(toks: &[(Tok, u32)], text: &str, out: &mut Vec<Finding>) {
    let strs = || {
        toks.iter().filter_map(|(t, l)| match t {
            Tok::Str(s) => Some((s.as_str(), *l)),
            _ => None,
        })
    };
    let api = strs().any(|(s, _)| s.contains("api.github.com") || s.contains("uploads.github.com"));
    let releases = strs().find(|(s, _)| s.contains("/releases"));
    let writes = strs().any(|(s, _)| {
        matches!(s.to_ascii_lowercase().as_str(), "post" | "patch" | "put")
    }) || toks.iter().any(|(t, _)| {
        matches!(t, Tok::Word(w) if [".post", ".patch", ".put"].iter().any(|m| w.ends_with(m)))
    });
    if let (true, Some((_, line)), true) = (api, releases, writes) {
        add(
            out,
            Level::Caution,
            line,
            "creates or changes a GitHub release through its API: publishes",
            text,
        );
    }
}

pub fn python(text: &str, out: &mut Vec<Finding>) {
    let toks = tokens(text, true);
    github_release_api(&toks, text, out);
    let runners = python_runners(&toks);
    for (i, (t, line)) in toks.iter().enumerate() {
        let Tok::Word(w) = t else { continue };
        // `def run_s3cmd(…)` itself is no call.
        if i > 0 && matches!(&toks[i - 1].0, Tok::Word(d) if d == "def") {
            continue;
        }
        let next_is_call = matches!(toks.get(i + 1), Some((Tok::Punct('('), _)));
        if !next_is_call {
            continue;
        }
        // The literal arguments of the call, up to its closing parenthesis.
        let mut depth = 0;
        let mut args: Vec<&str> = Vec::new();
        let mut words: Vec<&str> = Vec::new();
        for (t, _) in &toks[i + 1..] {
            match t {
                Tok::Punct('(') | Tok::Punct('[') => depth += 1,
                Tok::Punct(')') | Tok::Punct(']') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Tok::Str(s) => args.push(s),
                Tok::Word(w) => words.push(w),
                _ => {}
            }
        }
        let line = *line;
        // `runner.run_or_fail(["git", "push", ...])`: a project's own wrapper around
        // subprocess, handed an argument list.
        let mut after = toks[i + 1..]
            .iter()
            .skip(1)
            .filter(|(t, _)| !matches!(t, Tok::Newline));
        let argv_list = matches!(after.next(), Some((Tok::Punct('['), _)))
            && matches!(after.next(), Some((Tok::Str(_), _)));
        let runner_name = {
            let last = w.rsplit('.').next().unwrap_or(w).to_ascii_lowercase();
            ["run", "call", "exec", "spawn", "popen", "check"]
                .iter()
                .any(|k| last.contains(k))
        };
        match w.as_str() {
            _ if (argv_list && runner_name) || runners.contains(w.as_str()) => {
                let code = args.join(" ");
                let mut inner = Vec::new();
                crate::shell::analyse(&code, line, &mut inner);
                out.extend(inner.into_iter().map(|mut f| {
                    f.line = line;
                    f
                }));
            }
            "os.system"
            | "os.popen"
            | "subprocess.run"
            | "subprocess.call"
            | "subprocess.check_call"
            | "subprocess.check_output"
            | "subprocess.Popen"
            | "run"
            | "call"
            | "check_call"
            | "check_output"
            | "Popen"
            | "system" => {
                let code = args.join(" ");
                let mut inner = Vec::new();
                crate::shell::analyse(&code, line, &mut inner);
                out.extend(inner.into_iter().map(|mut f| {
                    f.line = line;
                    f
                }));
            }
            "shutil.rmtree" | "rmtree" => {
                let home = words
                    .iter()
                    .any(|w| w.contains("expanduser") || w.contains("home"))
                    || args
                        .iter()
                        .any(|a| *a == "~" || *a == "/" || a.starts_with("~"));
                let root = args.iter().any(|a| *a == "/" || *a == "C:\\");
                if home || root {
                    add(
                        out,
                        Level::Danger,
                        line,
                        "deletes the home or root folder (shutil.rmtree)",
                        text,
                    );
                }
            }
            "exec" | "eval" => {
                let remote = words.iter().any(|w| {
                    w.contains("urlopen")
                        || w.contains("requests.get")
                        || w.contains(".get")
                        || w.contains("b64decode")
                });
                if remote {
                    add(
                        out,
                        Level::Danger,
                        line,
                        "runs downloaded or decoded code (exec)",
                        text,
                    );
                }
            }
            _ => {}
        }
    }
}
