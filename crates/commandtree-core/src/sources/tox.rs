//! tox environments, from `tox.ini` (`[tox] envlist` / `env_list`, `[testenv:NAME]`),
//! `tox.toml` (`env_list`, `[env.NAME]`) and a `pyproject.toml`'s `[tool.tox]` (the same tables
//! under it, or a `legacy_tox_ini` string, as tox reads them when no other file is there): `tox` (the default environments) and one `tox -e
//! NAME` per environment, as `tox list` shows them. Factor groups expand as tox expands them
//! (`py3{12,13}-django{50,51}` is four environments, `py3{10-13}` four); an environment
//! without a section of its own gets the base section's description (`{envname}` filled in)
//! and its line, where its commands are. Environments whose name starts with a dot
//! (`.pkg`) are tox's own.

use super::common::runs_defaults;
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, StepHow, StepRef};
use crate::syntax::{ini, toml as toml_syntax};
use crate::text::sh_word;

const KIND: &str = "tox";

/// More environments than any real file lists: a crafted factor product stops here.
const MAX_ENVS: usize = 500;

/// An environment as listed: its name, its description, the line of its definition.
struct Env {
    name: String,
    description: Option<String>,
    line: usize,
}

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let is_toml = file
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let read = if is_toml {
        from_toml(file.content, &[])
    } else {
        from_ini(file.content)
    };
    commands(file, read)
}

/// `[tool.tox]` of a `pyproject.toml`, which tox reads only when the folder has no `tox.ini`
/// or `tox.toml` (those are listed instead).
pub fn parse_pyproject(file: &SourceFile<'_>) -> Parsed {
    let dir = file.dir();
    if file.fs.is_file(&dir.join("tox.ini")) || file.fs.is_file(&dir.join("tox.toml")) {
        return Parsed::default();
    }
    let Ok((doc, table)) = toml_syntax::parse_table(file.content) else {
        // The pyproject source warns about a broken file.
        return Parsed::default();
    };
    let Some(tox) = table
        .get("tool")
        .and_then(|t| t.get("tox"))
        .and_then(toml::Value::as_table)
    else {
        return Parsed::default();
    };
    let read = match tox.get("legacy_tox_ini").and_then(toml::Value::as_str) {
        // The INI's lines count from the string's; its first line is the key's, or the next
        // one for a string that starts with a line break, as `"""` strings do.
        Some(ini) => {
            let at = doc
                .key_line(&["tool", "tox"], "legacy_tox_ini")
                .unwrap_or(1);
            from_ini(ini).map(|(list, line, envs)| {
                let shift = |l: usize| l + at;
                (
                    list,
                    line.map(shift),
                    envs.into_iter()
                        .map(|e| Env {
                            line: shift(e.line),
                            ..e
                        })
                        .collect(),
                )
            })
        }
        None => from_toml(file.content, &["tool", "tox"]),
    };
    commands(file, read)
}

fn commands(file: &SourceFile<'_>, read: Result<Read, crate::syntax::Error>) -> Parsed {
    let mut out = Parsed::default();
    let (default_list, list_line, envs) = match read {
        Ok(r) => r,
        Err((line, msg)) => {
            out.warn(file.path, line, msg);
            return out;
        }
    };
    let all = runs_defaults("environments", &default_list, "Run the default environment");
    // `tox` runs the default environments: they are its steps (one per definition, since
    // environments made from one section run the same commands), and its own text is the
    // list, not the whole file.
    let mut run_all = CommandItem::new(KIND, file.path, "tox", "tox").description(all);
    if let Some(line) = list_line {
        run_all = run_all.line(line);
    }
    let mut seen_lines = Vec::new();
    for e in envs.iter().filter(|e| default_list.contains(&e.name)) {
        if !seen_lines.contains(&e.line) {
            seen_lines.push(e.line);
            run_all
                .steps
                .push(StepRef::new(e.name.clone(), StepHow::Call, false));
        }
    }
    out.commands.push(run_all);
    for e in envs {
        out.commands.push(
            CommandItem::new(
                KIND,
                file.path,
                &e.name,
                format!("tox -e {}", sh_word(&e.name)),
            )
            .opt_description(e.description.map(|d| fill(&d, &e.name)))
            .line(e.line),
        );
    }
    out
}

/// A shared description as tox shows it for one environment: `{envname}` and `{env_name}`
/// filled in, the interpreter for `{basepython}` (the one its name asks for, else "Python"),
/// paths under `{toxinidir}` relative, `{/}` as `/`.
fn fill(description: &str, env: &str) -> String {
    // A line ending in a backslash goes on on the next (tox's line continuation).
    let one_line = description
        .split_whitespace()
        .filter(|w| *w != "\\")
        .collect::<Vec<_>>()
        .join(" ");
    let python = interpreter(env).unwrap_or_else(|| "Python".to_string());
    one_line
        .replace("{envname}", env)
        .replace("{env_name}", env)
        .replace("`{basepython}`", &python)
        .replace("{basepython}", &python)
        .replace("{toxinidir}{/}", "")
        .replace("{toxinidir}", ".")
        .replace("{/}", "/")
}

/// The lines of a `tox.ini` setting that apply to environment `env`: a line with a factor
/// condition (`xdist: with pytest in parallel mode`) only when the environment's name has
/// those factors, without the condition.
fn of_env(value: &str, env: &str) -> String {
    value
        .split('\n')
        .filter_map(|l| for_env(l, env))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line of a setting for environment `env`: itself, or what follows its factor condition
/// when the condition holds, else `None`.
fn for_env<'a>(line: &'a str, env: &str) -> Option<&'a str> {
    let rest = without_factors(line);
    if rest.len() == line.len() {
        return Some(line);
    }
    let cond = line[..line.len() - rest.len()]
        .trim_end()
        .trim_end_matches(':');
    let factors: Vec<&str> = env.split('-').collect();
    // `a,b:` is either; `a-b:` both; `!a:` without it (tox's factor conditions).
    let holds = cond.split(',').any(|all| {
        all.split('-').all(|f| match f.strip_prefix('!') {
            Some(not) => !factors.contains(&not),
            None => factors.contains(&f),
        })
    });
    holds.then_some(rest)
}

/// The default list, the line of what holds it (`[tox]`), every environment.
type Read = (Vec<String>, Option<usize>, Vec<Env>);

/// The default list and every environment of a `tox.ini`.
fn from_ini(content: &str) -> Result<Read, crate::syntax::Error> {
    let sections = ini::parse(content)?;
    let tox = sections.iter().find(|s| s.name == "tox");
    let base = sections.iter().find(|s| s.name == "testenv");
    let base_description = base
        .and_then(|s| s.get("description"))
        .map(|e| e.value.as_str());
    let mut envs: Vec<Env> = Vec::new();
    let mut default_list = Vec::new();
    if let Some(list) = tox.and_then(|t| t.get("env_list").or_else(|| t.get("envlist"))) {
        default_list = expand_list(&list.value);
        for name in &default_list {
            let own = sections
                .iter()
                .find(|s| s.name.strip_prefix("testenv:") == Some(name.as_str()));
            envs.push(Env {
                name: name.clone(),
                description: own
                    .and_then(|s| s.get("description"))
                    .map(|e| e.value.as_str())
                    .or(base_description)
                    .map(|d| of_env(d, name)),
                line: own.or(base).map_or(list.line, |s| s.line),
            });
        }
    }
    for s in &sections {
        let Some(pattern) = s.name.strip_prefix("testenv:") else {
            continue;
        };
        for name in expand(pattern.trim()) {
            if !envs.iter().any(|e| e.name == name) {
                envs.push(Env {
                    description: s
                        .get("description")
                        .map(|e| e.value.as_str())
                        .or(base_description)
                        .map(|d| of_env(d, &name)),
                    name,
                    line: s.line,
                });
            }
        }
    }
    Ok((default_list, tox.map(|t| t.line), finish(envs)))
}

/// The default list and every environment of a `tox.toml`, or of the tables under `prefix`
/// (`tool.tox` in a `pyproject.toml`).
fn from_toml(content: &str, prefix: &[&str]) -> Result<Read, crate::syntax::Error> {
    let (doc, root) = toml_syntax::parse_table(content)?;
    let mut table = &root;
    for key in prefix {
        match table.get(*key).and_then(toml::Value::as_table) {
            Some(t) => table = t,
            None => return Ok((Vec::new(), None, Vec::new())),
        }
    }
    let path = |more: &[&str]| -> Vec<String> {
        prefix
            .iter()
            .chain(more)
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    let line = |table_path: &[&str], key: &str| {
        let p = path(table_path);
        let p: Vec<&str> = p.iter().map(String::as_str).collect();
        doc.key_line(&p, key)
    };
    let strings = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(toml::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(toml::Value::as_str)
                    .flat_map(expand)
                    .collect()
            })
            .unwrap_or_default()
    };
    let default_list = strings(table.get("env_list"));
    let describe = |t: Option<&toml::Value>| {
        t.and_then(|t| t.get("description"))
            .and_then(toml::Value::as_str)
            .map(str::to_string)
    };
    let base = table.get("env_run_base");
    let base_line = line(&[], "env_run_base");
    let env_table = table.get("env").and_then(toml::Value::as_table);
    let mut envs: Vec<Env> = Vec::new();
    let list_line = line(&[], "env_list");
    let top_line = list_line.unwrap_or(1);
    for name in &default_list {
        let own = env_table.and_then(|t| t.get(name.as_str()));
        envs.push(Env {
            name: name.clone(),
            description: describe(own).or_else(|| describe(base)),
            line: own
                .and_then(|_| line(&["env"], name))
                .or(base_line)
                .unwrap_or(top_line),
        });
    }
    for (name, t) in env_table.into_iter().flatten() {
        if !envs.iter().any(|e| &e.name == name) {
            envs.push(Env {
                name: name.clone(),
                description: describe(Some(t)).or_else(|| describe(base)),
                line: line(&["env"], name).unwrap_or(top_line),
            });
        }
    }
    Ok((default_list, list_line, finish(envs)))
}

fn finish(mut envs: Vec<Env>) -> Vec<Env> {
    envs.retain(|e| !e.name.is_empty() && !e.name.starts_with('.'));
    envs.truncate(MAX_ENVS);
    envs
}

/// A tox.ini `envlist`: names separated by commas or lines (not the commas inside braces),
/// each expanded.
fn expand_list(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    let push = |item: &str, out: &mut Vec<String>| {
        for name in expand(item.trim()) {
            if out.len() < MAX_ENVS && !out.contains(&name) {
                out.push(name);
            }
        }
    };
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' | '\n' if depth == 0 => {
                push(&list[start..i], &mut out);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&list[start..], &mut out);
    out
}

/// One name with its factor groups expanded, in order: `py3{12,13}-lint` → `py312-lint`,
/// `py313-lint`; `py3{10-12}` → `py310`, `py311`, `py312`.
fn expand(name: &str) -> Vec<String> {
    let Some(open) = name.find('{') else {
        return if name.is_empty() {
            Vec::new()
        } else {
            vec![name.to_string()]
        };
    };
    let Some(close) = name[open..].find('}').map(|c| open + c) else {
        return vec![name.to_string()];
    };
    let (head, group, tail) = (&name[..open], &name[open + 1..close], &name[close + 1..]);
    let mut choices: Vec<String> = Vec::new();
    for part in group.split(',').map(str::trim) {
        match part
            .split_once('-')
            .map(|(a, b)| (a.parse::<u32>(), b.parse::<u32>()))
        {
            Some((Ok(a), Ok(b))) if a <= b && b - a < 100 => {
                choices.extend((a..=b).map(|n| n.to_string()));
            }
            _ => choices.push(part.to_string()),
        }
    }
    let rests = expand(tail);
    let rests = if rests.is_empty() {
        vec![String::new()]
    } else {
        rests
    };
    let mut out = Vec::new();
    for c in &choices {
        for r in &rests {
            if out.len() >= MAX_ENVS {
                return out;
            }
            out.push(format!("{head}{c}{r}"));
        }
    }
    out
}

/// The command lines of a tox environment's definition (`text`: its `[testenv:x]` section, or
/// its `[env.x]` table), with their lines in `text`: what the risk analysis reads. A factor
/// condition (`unit: pytest`) and tox's ignore-the-exit-code dash are dropped; a `tox.toml`
/// argument list is joined into one shell line.
pub fn run_lines(text: &str) -> Vec<(usize, String)> {
    run_lines_of(text, None)
}

/// [`run_lines`], for environment `env` only when given: a line whose factor condition it does
/// not meet is left out.
fn run_lines_of(text: &str, env: Option<&str>) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // A `tox.ini` section is never TOML (`[testenv:x]`, bare words), so TOML is tried first.
    if let Ok((doc, table)) = toml_syntax::parse_table(text) {
        toml_commands(&doc, &table, &mut Vec::new(), &mut out);
        return out;
    }
    // A `legacy_tox_ini` section cut out of a `pyproject.toml` may end with the string's
    // closing quotes.
    let ini_text: String = text
        .lines()
        .filter(|l| !matches!(l.trim(), "\"\"\"" | "'''"))
        .collect::<Vec<_>>()
        .join("\n");
    let Ok(sections) = ini::parse(&ini_text) else {
        return out;
    };
    for e in sections.iter().flat_map(|s| &s.entries) {
        if !matches!(
            e.key.to_ascii_lowercase().as_str(),
            "commands" | "commands_pre" | "commands_post"
        ) {
            continue;
        }
        for (n, l) in e.value.split('\n').enumerate() {
            let Some(l) = env.map_or(Some(l), |env| for_env(l, env)) else {
                continue;
            };
            let code = command_of(l);
            if !code.is_empty() {
                out.push((e.line + n, code.to_string()));
            }
        }
    }
    out
}

/// The `commands_pre`, `commands` and `commands_post` argument lists of every table in
/// `table` (an `[env.x]` table cut out of a `tox.toml`, or `[tool.tox.env.x]`), each joined
/// into one shell line; an argument that is not a string (`{replace = "posargs"}`) is left out.
fn toml_commands<'t>(
    doc: &toml_syntax::Doc<'_>,
    table: &'t toml::Table,
    path: &mut Vec<&'t str>,
    out: &mut Vec<(usize, String)>,
) {
    for field in ["commands_pre", "commands", "commands_post"] {
        let Some(lists) = table.get(field).and_then(toml::Value::as_array) else {
            continue;
        };
        let line = doc.key_line(path, field).unwrap_or(1);
        for argv in lists.iter().filter_map(toml::Value::as_array) {
            let words: Vec<String> = argv
                .iter()
                .filter_map(toml::Value::as_str)
                .map(sh_word)
                .collect();
            if !words.is_empty() {
                out.push((line, words.join(" ")));
            }
        }
    }
    for (key, v) in table {
        if let Some(t) = v.as_table() {
            path.push(key);
            toml_commands(doc, t, path, out);
            path.pop();
        }
    }
}

/// What tox environment `env` runs, for search: the command lines of its definition (`text`,
/// as [`run_lines`] reads them), or, when it has no `commands` of its own, those of the base
/// environment it inherits them from (`[testenv]`, `env_run_base`); a `{[section]key}`
/// reference is replaced by that key's lines, read from `content` (the whole file, `file`).
/// Its dependencies and settings are left out: a pinned `pytest` among a type checker's
/// dependencies does not make it run the tests.
pub fn env_commands(file: &std::path::Path, content: &str, text: &str, env: &str) -> Vec<String> {
    let own: Vec<String> = run_lines_of(text, Some(env))
        .into_iter()
        .map(|(_, l)| l)
        .collect();
    let is_ini = file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ini"));
    if !is_ini && let Ok((doc, table)) = toml_syntax::parse_table(content) {
        let tox = table
            .get("tool")
            .and_then(|t| t.get("tox"))
            .and_then(toml::Value::as_table);
        if let Some(ini) = tox
            .and_then(|t| t.get("legacy_tox_ini"))
            .and_then(toml::Value::as_str)
        {
            return ini_env_commands(ini, text, own, env);
        }
        if !own.is_empty() {
            return own;
        }
        let base = tox
            .unwrap_or(&table)
            .get("env_run_base")
            .and_then(toml::Value::as_table);
        let mut out = Vec::new();
        if let Some(base) = base {
            toml_commands(&doc, base, &mut Vec::new(), &mut out);
        }
        return out.into_iter().map(|(_, l)| l).collect();
    }
    ini_env_commands(content, text, own, env)
}

fn ini_env_commands(content: &str, text: &str, own: Vec<String>, env: &str) -> Vec<String> {
    let Ok(sections) = ini::parse(content) else {
        return own;
    };
    let has_commands = text.lines().any(|l| {
        l.split_once(['=', ':'])
            .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case("commands"))
    });
    let mut lines = own;
    if !has_commands
        && let Some(base) = sections
            .iter()
            .find(|s| s.name == "testenv")
            .and_then(|s| s.get("commands"))
    {
        lines.extend(
            base.value
                .split('\n')
                .filter_map(|l| for_env(l, env))
                .map(command_of)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
    }
    let mut out = Vec::new();
    for line in lines {
        resolve(&sections, &line, 0, &mut out);
    }
    out
}

/// `line` with each `{[section]key}` replaced by that key's value, a reference's own
/// references too (a few levels: tox files chain `[testenv:x]` to `[min]` to `[testenv]`).
fn resolve(sections: &[ini::Section], line: &str, depth: usize, out: &mut Vec<String>) {
    let reference = line.find("{[").and_then(|at| {
        let close = line[at..].find(']')? + at;
        let end = line[close..].find('}')? + close;
        let section = &line[at + 2..close];
        let key = &line[close + 1..end];
        let value = sections.iter().find(|s| s.name == section)?.get(key)?;
        Some((at, end, value.value.clone()))
    });
    match reference {
        Some((at, end, value)) if depth < 4 => {
            let (head, tail) = (&line[..at], &line[end + 1..]);
            for v in value.split('\n').filter(|v| !v.trim().is_empty()) {
                let joined = format!("{head}{}{tail}", without_factors(v.trim()));
                resolve(sections, joined.trim(), depth + 1, out);
            }
        }
        _ => out.push(line.to_string()),
    }
}

/// The interpreter an environment's name asks tox for, as a person names it: tox runs an
/// environment named with a factor such as `py312`, `py3.12`, `py3` or `pypy310` on that
/// Python ("Python 3.12", "PyPy 3.10").
pub fn interpreter(env: &str) -> Option<String> {
    env.split('-').find_map(|factor| {
        let (name, version) = if let Some(v) = factor.strip_prefix("pypy") {
            ("PyPy", v)
        } else {
            ("Python", factor.strip_prefix("py")?)
        };
        let digits: String = version.chars().filter(|c| *c != '.').collect();
        if digits.is_empty() {
            return (version.is_empty() && name == "PyPy").then(|| name.to_string());
        }
        if !digits.chars().all(|c| c.is_ascii_digit()) || digits.len() > 3 {
            return None;
        }
        let (major, minor) = digits.split_at(1);
        Some(if minor.is_empty() {
            format!("{name} {major}")
        } else {
            format!("{name} {major}.{minor}")
        })
    })
}

/// The command of one line of a `commands` value: without its factor condition and tox's
/// ignore-the-exit-code dash.
fn command_of(line: &str) -> &str {
    without_factors(line).trim_start_matches('-').trim()
}

/// `unit,lint: pytest` → `pytest`: a line that runs only for environments with those factors.
fn without_factors(line: &str) -> &str {
    match line.split_once(": ") {
        Some((cond, rest))
            if !cond.is_empty()
                && cond.chars().all(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, ',' | '-' | '_' | '.' | '!')
                }) =>
        {
            rest
        }
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    const INI: &str = "[tox]
envlist =
    py3{12,13}-unit
    lint

[testenv]
description = run the tests on {envname}
commands =
    unit: pytest {posargs}

[testenv:lint]
description = run linters
commands = - ruff check .

[testenv:docs]
commands = sphinx-build docs out

[testenv:.pkg]
";

    #[test]
    fn the_default_run_then_every_environment_expanded() {
        let p = parse_with(parse, "/w/tox.ini", INI);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            ["tox", "py312-unit", "py313-unit", "lint", "docs"]
        );
        let c = |i: usize| &p.commands[i];
        assert_eq!(c(0).command, "tox");
        assert_eq!(
            c(0).line,
            Some(1),
            "its text is the list, not every environment"
        );
        assert_eq!(
            crate::sources::testing::steps(&p, "tox"),
            [
                ("py312-unit".to_string(), "call"),
                ("lint".to_string(), "call")
            ],
            "one step per definition of a default environment"
        );
        assert_eq!(
            c(0).description.as_deref(),
            Some("Run the default environments: py312-unit, py313-unit, lint")
        );
        assert_eq!(c(1).command, "tox -e py312-unit");
        assert_eq!(
            c(1).description.as_deref(),
            Some("run the tests on py312-unit")
        );
        assert_eq!(
            c(1).line,
            Some(6),
            "the base section, where its commands are"
        );
        assert_eq!(c(3).description.as_deref(), Some("run linters"));
        assert_eq!(c(3).line, Some(11));
        assert_eq!(c(4).line, Some(15));
        assert_eq!(c(1).id, "tox:/w/tox.ini:py312-unit");
    }

    #[test]
    fn tox_toml_lists_its_environments() {
        let p = parse_with(
            parse,
            "/w/tox.toml",
            "env_list = [\"3.13\", \"type\"]\n\n[env_run_base]\ndescription = \"run tests\"\ncommands = [[\"pytest\"]]\n\n[env.type]\ndescription = \"type check\"\ncommands = [[\"mypy\", \"src\"]]\n\n[env.fix]\ncommands = [[\"ruff\", \"--fix\"]]\n",
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["tox", "3.13", "type", "fix"]);
        assert_eq!(p.commands[1].description.as_deref(), Some("run tests"));
        assert_eq!(p.commands[1].line, Some(3));
        assert_eq!(p.commands[2].description.as_deref(), Some("type check"));
        assert_eq!(p.commands[2].line, Some(7));
        assert_eq!(p.commands[3].command, "tox -e fix");
    }

    #[test]
    fn pyproject_tool_tox_tables_and_legacy_ini() {
        let native = "[project]\nname = \"x\"\n\n[tool.tox]\nenv_list = [\"py3.13\", \"style\"]\n\n[tool.tox.env_run_base]\ndescription = \"pytest\"\ncommands = [[\"pytest\", {replace = \"posargs\"}]]\n\n[tool.tox.env.style]\ndescription = \"pre-commit\"\ncommands = [[\"pre-commit\", \"run\"]]\n";
        let p = parse_with(parse_pyproject, "/w/pyproject.toml", native);
        assert_eq!(labels(&p), ["tox", "py3.13", "style"]);
        assert_eq!(p.commands[0].line, Some(5));
        assert_eq!(p.commands[1].line, Some(7));
        assert_eq!(p.commands[2].line, Some(11));
        assert_eq!(p.commands[2].description.as_deref(), Some("pre-commit"));
        assert_eq!(
            run_lines("[tool.tox.env.style]\ncommands = [[\"rm\", \"-rf\", \"x\"]]\n"),
            [(2, "rm -rf x".to_string())]
        );
        let legacy = "[tool.tox]\nlegacy_tox_ini = \"\"\"\n[tox]\nenvlist = lint\n\n[testenv:lint]\ncommands = ruff check\n\"\"\"\n";
        let p = parse_with(parse_pyproject, "/w/pyproject.toml", legacy);
        assert_eq!(labels(&p), ["tox", "lint"]);
        assert_eq!(
            p.commands[1].line,
            Some(6),
            "the section's line in the pyproject"
        );
        // A tox.ini beside it is what tox reads.
        let fs = crate::fs::MemFs::new()
            .file("/w/pyproject.toml", native)
            .file("/w/tox.ini", "[tox]\n");
        let p = crate::sources::testing::parse_in(parse_pyproject, &fs, "/w/pyproject.toml");
        assert!(p.commands.is_empty());
        assert!(
            parse_with(parse_pyproject, "/w/pyproject.toml", "[project]\n")
                .commands
                .is_empty()
        );
    }

    #[test]
    fn factor_groups_and_ranges_expand_as_tox_does() {
        assert_eq!(expand("py3{10-12}"), ["py310", "py311", "py312"]);
        assert_eq!(
            expand("py{39,310}-django{42,50}"),
            [
                "py39-django42",
                "py39-django50",
                "py310-django42",
                "py310-django50"
            ]
        );
        assert_eq!(expand_list("a, {b,c}-x\n  d"), ["a", "b-x", "c-x", "d"]);
        let huge = "{1-99}".repeat(6);
        assert_eq!(expand(&huge).len(), MAX_ENVS);
    }

    #[test]
    fn malformed_ini_warns_with_the_line() {
        let p = parse_with(parse, "/w/tox.ini", "[tox]\nnonsense\n");
        assert_eq!(p.commands.len(), 0);
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, Some(2));
    }

    #[test]
    fn the_command_lines_the_analysis_reads() {
        let text = "[testenv:clean]\ncommands_pre = - rm -rf build\ncommands =\n    unit,lint: pytest\n    bash -c \"echo a: b\"\ndeps = rm -rf /\n";
        assert_eq!(
            run_lines(text),
            [
                (2, "rm -rf build".to_string()),
                (4, "pytest".to_string()),
                (5, "bash -c \"echo a: b\"".to_string()),
            ]
        );
        let toml = "[env.clean]\ncommands = [[\"rm\", \"-rf\", \"~/x y\"]]\n";
        assert_eq!(run_lines(toml), [(2, "rm -rf '~/x y'".to_string())]);
    }

    #[test]
    fn what_an_environment_runs_follows_tox_inheritance_and_references() {
        use std::path::Path;
        let ini = "[tox]\nenvlist = py312, min, mypy\n\n[testenv]\ndeps = pytest\ncommands =\n    pytest tests\n\n[min]\ncommands = pytest --min {posargs}\n\n[testenv:min]\ndeps = attrs==1.0\ncommands = {[min]commands} -x\n\n[testenv:mypy]\ndeps =\n    pytest\n    mypy\ncommands = mypy src\n\n[testenv:extra]\ndeps = boto3\n";
        let section = |name: &str| {
            let at = ini.find(&format!("[testenv:{name}]")).unwrap();
            let end = ini[at + 1..].find("\n[").map_or(ini.len(), |e| at + 1 + e);
            &ini[at..end]
        };
        // No section of its own: the base section is its definition.
        let base_at = ini.find("[testenv]").unwrap();
        let base = &ini[base_at..ini.find("[min]").unwrap()];
        assert_eq!(
            env_commands(Path::new("tox.ini"), ini, base, "py312"),
            ["pytest tests"]
        );
        assert_eq!(
            env_commands(Path::new("tox.ini"), ini, section("min"), "min"),
            ["pytest --min {posargs} -x"]
        );
        assert_eq!(
            env_commands(Path::new("tox.ini"), ini, section("mypy"), "mypy"),
            ["mypy src"],
            "what it pins is not what it runs"
        );
        assert_eq!(
            env_commands(Path::new("tox.ini"), ini, section("extra"), "extra"),
            ["pytest tests"],
            "without commands of its own it runs the base environment's"
        );
        let toml = "env_list = [\"py312\", \"lint\"]\n[env_run_base]\ncommands = [[\"pytest\"]]\n[env.lint]\ncommands = [[\"ruff\", \"check\"]]\n[env.docs]\ndeps = [\"sphinx\"]\n";
        assert_eq!(
            env_commands(
                Path::new("tox.toml"),
                toml,
                "[env.lint]\ncommands = [[\"ruff\", \"check\"]]\n",
                "lint"
            ),
            ["ruff check"]
        );
        assert_eq!(
            env_commands(
                Path::new("tox.toml"),
                toml,
                "[env.docs]\ndeps = [\"sphinx\"]\n",
                "docs"
            ),
            ["pytest"]
        );
    }

    /// pytest's `[testenv]`: one description and one command list for every environment,
    /// each line with a factor condition meant only for the environments with those factors.
    const FACTORS: &str = "[tox]\nenvlist = py310, py310-xdist, doctesting-coverage, linting\n\n[testenv]\ndescription =\n    run the tests\n    coverage: collecting coverage\n    xdist: with pytest in parallel mode\n    under `{basepython}`\n    doctesting: including doctests\n    !xdist-!doctesting: one at a time\ncommands =\n    pytest {posargs}\n    doctesting: pytest --doctest-modules\n    coverage: coverage combine\n\n[testenv:linting]\ndescription = run the linters under `{basepython}` into \\\n    {toxinidir}{/}doc{/}html\ncommands = pre-commit run\n";

    #[test]
    fn a_line_with_a_factor_condition_is_for_the_environments_with_those_factors() {
        let p = parse_with(parse, "/w/tox.ini", FACTORS);
        let d = |name: &str| {
            p.commands
                .iter()
                .find(|c| c.label == name)
                .and_then(|c| c.description.clone())
        };
        assert_eq!(
            d("py310").as_deref(),
            Some("run the tests under Python 3.10 one at a time")
        );
        assert_eq!(
            d("py310-xdist").as_deref(),
            Some("run the tests with pytest in parallel mode under Python 3.10")
        );
        assert_eq!(
            d("doctesting-coverage").as_deref(),
            Some("run the tests collecting coverage under Python including doctests")
        );
        assert_eq!(
            d("linting").as_deref(),
            Some("run the linters under Python into doc/html")
        );
        let base = &FACTORS[FACTORS.find("[testenv]").unwrap()..FACTORS.find("[testenv:").unwrap()];
        let runs = |env: &str| env_commands(std::path::Path::new("tox.ini"), FACTORS, base, env);
        assert_eq!(runs("py310"), ["pytest {posargs}"]);
        assert_eq!(
            runs("doctesting-coverage"),
            [
                "pytest {posargs}",
                "pytest --doctest-modules",
                "coverage combine"
            ]
        );
        // What the security analysis reads keeps every line, whoever it is for.
        assert_eq!(run_lines(base).len(), 3);
    }

    #[test]
    fn an_environment_named_for_an_interpreter_runs_on_it() {
        assert_eq!(interpreter("py312").as_deref(), Some("Python 3.12"));
        assert_eq!(
            interpreter("py3.11-django50").as_deref(),
            Some("Python 3.11")
        );
        assert_eq!(interpreter("py3").as_deref(), Some("Python 3"));
        assert_eq!(interpreter("py27").as_deref(), Some("Python 2.7"));
        assert_eq!(interpreter("min-pypy3").as_deref(), Some("PyPy 3"));
        assert_eq!(interpreter("pypy310").as_deref(), Some("PyPy 3.10"));
        assert_eq!(interpreter("pypy").as_deref(), Some("PyPy"));
        for none in ["pylint", "mypy", "py", "docs", "pyright", "py3k"] {
            assert_eq!(interpreter(none), None, "{none}");
        }
    }
}
