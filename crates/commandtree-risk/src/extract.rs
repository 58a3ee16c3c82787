//! The shell code inside a command's own text, by type: a make rule's recipe, a just recipe's
//! body, an npm script's value, a VS Code task's command and arguments, a workflow's `run:`
//! steps. Each fragment keeps the line it starts on, so findings point into the given text.

/// Shell code and the 1-based line (in the text given) where it starts.
pub struct Fragment {
    pub code: String,
    pub line: u32,
}

/// What a type's text holds.
pub enum Language {
    Shell,
    PowerShell,
    Python,
    /// A dispatched workflow: shell that runs on a CI runner, and the workflow's own settings.
    Workflow,
    /// A Compose file: the containers' configuration.
    Compose,
}

/// Types whose text never runs: documents and instructions for a model. A Markdown file is
/// opened in a pager; an AI definition is read by an assistant; a playbook's steps are skill
/// invocations, whose commands carry their own warnings.
pub fn is_document(kind: &str) -> bool {
    matches!(
        kind,
        "markdown" | "prompt" | "agent" | "skill" | "instructions" | "playbook"
    )
}

pub fn fragments(kind: &str, text: &str) -> Vec<(Language, Fragment)> {
    let shell = |f: Fragment| (Language::Shell, f);
    if is_document(kind) {
        return Vec::new();
    }
    if let Some(codes) = commandtree_core::sources::shell_code::of(kind, text) {
        return codes
            .into_iter()
            .map(|c| {
                shell(Fragment {
                    code: c.code,
                    line: c.line,
                })
            })
            .collect();
    }
    match kind {
        "shell" | "bash" | "sh" | "zsh" | "dash" | "ksh" => vec![shell(whole(text))],
        "powershell" => vec![(Language::PowerShell, whole(text))],
        "python" => vec![(Language::Python, whole(text))],
        "make" => vec![shell(make(text))],
        "just" => just(text).into_iter().map(shell).collect(),
        "npm" | "composer" | "deno" | "vscode" | "launch" | "turbo" | "nx" => {
            json(kind, text).into_iter().map(shell).collect()
        }
        "workflow" => vec![(Language::Workflow, whole(text))],
        "taskfile" => yaml(text).into_iter().map(shell).collect(),
        // A Dockerfile's steps change only the image being built; a Compose file says what its
        // containers get of the host.
        "docker" if is_compose(text) => vec![(Language::Compose, whole(text))],
        "docker" => Vec::new(),
        "mise" => mise(text),
        "cargo" => cargo_aliases(text).into_iter().map(shell).collect(),
        // A go.mod names modules and versions; what runs is the command line itself.
        "go" => Vec::new(),
        "pyproject" => toml_strings(text).into_iter().map(shell).collect(),
        "procfile" => vec![shell(procfile(text))],
        // nox runs what a session hands `session.run`, not the rest of its Python; tox each
        // command line of an environment, not the rest of its section.
        "nox" => shell_lines(commandtree_core::sources::nox::run_lines(text)),
        "tox" => shell_lines(commandtree_core::sources::tox::run_lines(text)),
        // C# and F# scripts are not shell.
        "csharp-script" | "fsharp-script" => Vec::new(),
        // Unknown or other tools' files: the text as shell. Only command positions count, so
        // prose and other languages rarely match.
        _ => vec![shell(whole(text))],
    }
}

/// Command lines a tool runs one by one (with their lines), each as shell.
fn shell_lines(lines: Vec<(usize, String)>) -> Vec<(Language, Fragment)> {
    lines
        .into_iter()
        .map(|(line, code)| {
            (
                Language::Shell,
                Fragment {
                    code,
                    line: line as u32,
                },
            )
        })
        .collect()
}

/// A Compose file (or one service cut out of it) rather than a Dockerfile.
fn is_compose(text: &str) -> bool {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    let word = first
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    // Every Dockerfile starts with an instruction (`FROM`, `ARG`, `# syntax=` comments aside).
    if matches!(
        word.as_str(),
        "FROM" | "ARG" | "RUN" | "ENV" | "LABEL" | "WORKDIR" | "COPY" | "ADD"
    ) {
        return false;
    }
    yaml_value(text).is_some_and(|v| v.is_object())
}

/// A mise task: TOML (`run = …`), or a file task in the language of its shebang.
fn mise(text: &str) -> Vec<(Language, Fragment)> {
    if let Some(first) = text.lines().next()
        && let Some(sb) = first.strip_prefix("#!")
    {
        let words: Vec<&str> = sb
            .split_whitespace()
            .map(|w| w.rsplit('/').next().unwrap_or(w))
            .filter(|w| *w != "env" && !w.starts_with('-'))
            .collect();
        let prog = words.first().copied().unwrap_or("");
        return match prog {
            p if ["sh", "bash", "zsh", "dash", "ksh"].contains(&p) => {
                vec![(Language::Shell, whole(text))]
            }
            p if p.starts_with("python") => vec![(Language::Python, whole(text))],
            "pwsh" | "powershell" => vec![(Language::PowerShell, whole(text))],
            // node, bun, deno, ruby, …: not a language the analyser reads.
            _ => Vec::new(),
        };
    }
    toml_strings(text)
        .into_iter()
        .map(|f| (Language::Shell, f))
        .collect()
}

/// Cargo's `[alias]` values are arguments to cargo (`xtask = "run -p xtask --"`).
fn cargo_aliases(text: &str) -> Vec<Fragment> {
    let Ok(t) = commandtree_core::text::parse_toml(text) else {
        return Vec::new();
    };
    let alias = t.get("alias").and_then(toml::Value::as_table).unwrap_or(&t);
    let mut out = Vec::new();
    for v in alias.values() {
        let line = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Array(a) => a
                .iter()
                .filter_map(toml::Value::as_str)
                .map(commandtree_core::text::sh_word)
                .collect::<Vec<_>>()
                .join(" "),
            _ => continue,
        };
        out.push(Fragment {
            line: line_of(text, &line),
            code: format!("cargo {line}"),
        });
    }
    out
}

/// Recipe lines of a make target as the parser worked them out (variables filled in, file
/// prerequisites' recipes included), in make's syntax.
pub fn make_code(code: &str) -> String {
    let mut out = String::new();
    for (i, line) in code.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let body = if i == 0 {
            line.trim_start()
                .trim_start_matches(['@', '-', '+', ' ', '\t'])
        } else {
            line
        };
        out.push_str(&make_vars(body));
    }
    out
}

fn whole(text: &str) -> Fragment {
    Fragment {
        code: text.to_string(),
        line: 1,
    }
}

/// Recipe lines with make's own syntax turned into the shell's: `$$` is `$`, `$(VAR)` and
/// `${VAR}` are variables, `$(shell x)` runs `x`, the `@`/`-`/`+` prefixes go. Other lines
/// become empty, so line numbers stay.
fn make(text: &str) -> Fragment {
    let mut out = String::new();
    let mut in_recipe_continuation = false;
    for line in text.lines() {
        let recipe = line.starts_with('\t') || in_recipe_continuation;
        if recipe {
            let body = line.trim_start_matches('\t');
            let body = if in_recipe_continuation {
                body
            } else {
                body.trim_start_matches(['@', '-', '+', ' '])
            };
            out.push_str(&make_vars(body));
            in_recipe_continuation = line.ends_with('\\');
        } else {
            in_recipe_continuation = false;
        }
        out.push('\n');
    }
    Fragment { code: out, line: 1 }
}

fn make_vars(s: &str) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '$' && i + 1 < b.len() {
            match b[i + 1] {
                '$' => {
                    out.push('$');
                    i += 2;
                    continue;
                }
                '(' | '{' => {
                    let close = if b[i + 1] == '(' { ')' } else { '}' };
                    let mut depth = 0;
                    let mut j = i + 1;
                    while j < b.len() {
                        if b[j] == b[i + 1] {
                            depth += 1;
                        } else if b[j] == close {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        j += 1;
                    }
                    let inner: String = b[i + 2..j.min(b.len())].iter().collect();
                    if let Some(cmd) = inner.strip_prefix("shell ") {
                        out.push_str(&format!("$({})", make_vars(cmd)));
                    } else if inner
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
                    {
                        let name: String = inner
                            .chars()
                            .map(|c| if c == '.' || c == '-' { '_' } else { c })
                            .collect();
                        out.push_str(&format!("${{{name}}}"));
                    } else {
                        // A make function (`$(wildcard …)`, `$(patsubst …)`): a value.
                        out.push_str("${MAKE_FUNCTION}");
                    }
                    i = j + 1;
                    continue;
                }
                c if c.is_ascii_alphanumeric() || c == '@' || c == '<' || c == '^' => {
                    out.push_str("${MAKE_AUTO}");
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// The recipe body (indented lines), with `{{x}}` as variables; a recipe with a shebang line
/// for another language is left out.
fn just(text: &str) -> Vec<Fragment> {
    let mut out = String::new();
    let mut other_language = false;
    let mut first_body = true;
    for line in text.lines() {
        let indented = line.starts_with(' ') || line.starts_with('\t');
        if indented && !line.trim().is_empty() {
            let body = line.trim_start();
            if first_body {
                first_body = false;
                if let Some(sb) = body.strip_prefix("#!") {
                    other_language = !["sh", "bash", "zsh", "dash", "ksh"]
                        .iter()
                        .any(|s| sb.split(['/', ' ']).any(|w| w == *s));
                }
            }
            if !other_language {
                let body = body.trim_start_matches(['@', '-']);
                out.push_str(&just_vars(body));
            }
        }
        out.push('\n');
    }
    vec![Fragment { code: out, line: 1 }]
}

fn just_vars(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) => {
                let inner = after[..j].trim();
                let name: String = inner
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                out.push_str(&format!("${{{name}}}"));
                rest = &after[j + 2..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The line of `text` where `needle` (a value's first line, as written in the file) starts.
pub(crate) fn line_of(text: &str, needle: &str) -> u32 {
    let first: String = needle
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(40)
        .collect();
    if first.trim().is_empty() {
        return 1;
    }
    // The file writes the value JSON- or YAML-escaped; try the raw form, then the JSON form.
    let json = serde_json::to_string(&first).unwrap_or_default();
    let json = json.trim_matches('"');
    for n in [first.as_str(), json] {
        if let Some(pos) = text.find(n) {
            return text[..pos].matches('\n').count() as u32 + 1;
        }
    }
    1
}

fn json(kind: &str, text: &str) -> Vec<Fragment> {
    use serde_json::Value;
    let value = commandtree_core::text::parse_jsonc(text)
        // A task cut out of its array keeps the comma after it.
        .or_else(|_| commandtree_core::text::parse_jsonc(text.trim().trim_end_matches(',')))
        .or_else(|_| {
            // The npm excerpt is `"name": "body"` lines: an object without its braces.
            let body = text
                .trim()
                .trim_end_matches(',')
                .replace("\"\n\"", "\",\n\"");
            commandtree_core::text::parse_jsonc(&format!("{{{body}}}"))
        })
        .unwrap_or(Value::Null);
    let mut codes: Vec<String> = Vec::new();
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    match kind {
        "vscode" | "launch" => {
            // A task: its command with its arguments, per platform too.
            fn task(v: &Value, out: &mut Vec<String>) {
                let Some(o) = v.as_object() else { return };
                let mut line = String::new();
                if let Some(c) = o.get("command").and_then(Value::as_str) {
                    line.push_str(c);
                }
                if let Some(args) = o.get("args").and_then(Value::as_array) {
                    for a in args {
                        let s = match a {
                            Value::String(s) => s.clone(),
                            Value::Object(q) => q
                                .get("value")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_string(),
                            _ => continue,
                        };
                        line.push(' ');
                        line.push_str(&s);
                    }
                }
                if !line.trim().is_empty() {
                    out.push(line);
                }
                for p in ["windows", "linux", "osx"] {
                    if let Some(sub) = o.get(p) {
                        task(sub, out);
                    }
                }
            }
            match &value {
                Value::Object(o) if o.contains_key("tasks") => {
                    for t in o["tasks"].as_array().into_iter().flatten() {
                        task(t, &mut codes);
                    }
                }
                v => task(v, &mut codes),
            }
        }
        _ => strings(&value, &mut codes),
    }
    if value.is_null() {
        return vec![whole(text)];
    }
    codes
        .into_iter()
        .map(|c| Fragment {
            line: line_of(text, &c),
            code: if matches!(kind, "vscode" | "launch") {
                vscode_vars(&c)
            } else {
                c
            },
        })
        .collect()
}

/// VS Code's `${…}` variables as the shell would see them after VS Code resolved them.
fn vscode_vars(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(j) = after.find('}') else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let inner = &after[..j];
        let replaced = match inner {
            "userHome" | "env:HOME" | "env:USERPROFILE" => "~".to_string(),
            "workspaceFolder" | "workspaceRoot" | "fileDirname" | "cwd" => ".".to_string(),
            v => match v.strip_prefix("env:") {
                Some(name) => format!("${{{name}}}"),
                None => "VSCODE_VALUE".to_string(),
            },
        };
        out.push_str(&replaced);
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    out
}

/// Keys whose values are shell code in workflow, Taskfile and Compose files.
const CODE_KEYS: &[&str] = &[
    "run",
    "cmd",
    "cmds",
    "command",
    "commands",
    "entrypoint",
    "script",
    "shell",
    "sh",
    "exec",
];

/// `text` read as YAML; an excerpt (an indented piece of a larger file) has its common
/// indentation taken off first.
pub(crate) fn yaml_value(text: &str) -> Option<serde_json::Value> {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let dedented: String = text
        .lines()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n");
    commandtree_core::text::parse_yaml(&dedented).ok()
}

fn yaml(text: &str) -> Vec<Fragment> {
    use serde_json::Value;
    let Some(value) = yaml_value(text) else {
        return vec![whole(text)];
    };
    let mut codes = Vec::new();
    fn walk(v: &Value, code: bool, out: &mut Vec<String>) {
        match v {
            Value::String(s) if code => out.push(s.clone()),
            Value::Array(a) => {
                if code && a.iter().all(Value::is_string) && !a.is_empty() {
                    // Compose's exec form `["sh", "-c", "…"]`, or a list of commands (Taskfile).
                    let items: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
                    if items.len() > 1
                        && matches!(items[0], "sh" | "bash" | "/bin/sh" | "/bin/bash")
                    {
                        out.push(
                            items
                                .iter()
                                .map(|s| commandtree_core::text::sh_word(s))
                                .collect::<Vec<_>>()
                                .join(" "),
                        );
                        return;
                    }
                }
                a.iter().for_each(|x| walk(x, code, out))
            }
            Value::Object(o) => {
                for (k, x) in o {
                    walk(x, code || CODE_KEYS.contains(&k.as_str()), out);
                }
            }
            _ => {}
        }
    }
    walk(&value, false, &mut codes);
    codes
        .into_iter()
        .map(|c| Fragment {
            line: line_of(text, &c),
            code: c,
        })
        .collect()
}

fn toml_strings(text: &str) -> Vec<Fragment> {
    let Ok(t) = commandtree_core::text::parse_toml(text) else {
        return vec![whole(text)];
    };
    let mut codes = Vec::new();
    fn walk(v: &toml::Value, code: bool, out: &mut Vec<String>) {
        match v {
            toml::Value::String(s) if code => out.push(s.clone()),
            toml::Value::Array(a) => a.iter().for_each(|x| walk(x, code, out)),
            toml::Value::Table(t) => {
                for (k, x) in t {
                    walk(x, code || CODE_KEYS.contains(&k.as_str()), out)
                }
            }
            _ => {}
        }
    }
    for (k, v) in &t {
        // Cargo aliases and mise's short form are strings at the top of the excerpt.
        walk(v, CODE_KEYS.contains(&k.as_str()) || v.is_str(), &mut codes);
    }
    codes
        .into_iter()
        .map(|c| Fragment {
            line: line_of(text, &c),
            code: c,
        })
        .collect()
}

fn procfile(text: &str) -> Fragment {
    let code = text
        .lines()
        .map(|l| match l.split_once(':') {
            Some((name, cmd)) if !name.contains(' ') && !l.trim_start().starts_with('#') => cmd,
            _ => "",
        })
        .collect::<Vec<_>>()
        .join("\n");
    Fragment { code, line: 1 }
}
