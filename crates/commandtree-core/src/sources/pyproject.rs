//! Runnable entries of a `pyproject.toml`.
//!
//! * `[project.scripts]` / `[project.gui-scripts]` / `[tool.poetry.scripts]`: console scripts.
//!   They exist only once the project is installed into an environment, so the command goes
//!   through the project's tool, chosen by the nearest lock file (this folder, then ancestors up
//!   to the workspace root): `uv.lock` → `uv run NAME`, `poetry.lock` → `poetry run NAME`,
//!   `pdm.lock` → `pdm run NAME`. Without a lock file the bare `NAME` is used (the script on
//!   PATH after `pip install`); running `python -m MODULE` instead would import the module
//!   without calling the entry function. Poetry scripts without a lock still use
//!   `poetry run NAME`. The description names the entry point (`Entry point pkg.cli:main`).
//! * `[tool.poe.tasks]` (Poe the Poet): `poe NAME`, or `uv run poe NAME` under a `uv.lock`;
//!   `_`-prefixed tasks are Poe's hidden tasks and cannot be run directly, so they are skipped.
//!   Declared `args` become parameters (`--name VALUE`, or positional).
//! * `[tool.pdm.scripts]`: `pdm run NAME` (the `_` key holds shared settings, not a script).
//! * `[tool.hatch.envs.ENV.scripts]`: `hatch run ENV:NAME`, `hatch run NAME` for `default`.
//!
//! Id names: scripts use the bare name; the task runners use `poe:NAME`, `pdm:NAME` and
//! `hatch:ENV:NAME`, so a Poe task and a PDM script of the same name stay distinct.

use super::common::{nearest_marker, with_line};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef, ParamFormat};
use crate::syntax::toml::{self as toml_syntax, Doc};
use crate::text::{sh_word, truncate};
use toml::{Table, Value};

const KIND: &str = "pyproject";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lock {
    Uv,
    Poetry,
    Pdm,
}

/// The lock file that names the project's tool; the nearest folder holding one decides.
const LOCK_FILES: &[(&str, Lock)] = &[
    ("uv.lock", Lock::Uv),
    ("poetry.lock", Lock::Poetry),
    ("pdm.lock", Lock::Pdm),
];

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let (doc, root) = match toml_syntax::parse_table(file.content) {
        Ok(parsed) => parsed,
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let lock = nearest_marker(file, LOCK_FILES);
    let mut ctx = Ctx {
        file,
        doc,
        out: Parsed::default(),
        seen_scripts: std::collections::HashSet::new(),
    };

    for section in ["scripts", "gui-scripts"] {
        if let Some(scripts) = ctx.table(&root, &["project", section]) {
            for (name, value) in scripts {
                let entry = match value {
                    Value::String(s) => s.clone(),
                    _ => {
                        ctx.warn_type(&["project", section], name, "is not a string");
                        continue;
                    }
                };
                ctx.script(&["project", section], name, &entry, lock);
            }
        }
    }
    if let Some(scripts) = ctx.table(&root, &["tool", "poetry", "scripts"]) {
        let lock = lock.or(Some(Lock::Poetry));
        for (name, value) in scripts {
            let entry = match value {
                Value::String(s) => s.clone(),
                Value::Table(t) => match (t.get("callable"), t.get("reference")) {
                    (Some(Value::String(c)), _) => c.clone(),
                    (_, Some(Value::String(r))) => r.clone(),
                    _ => String::new(),
                },
                _ => {
                    ctx.warn_type(
                        &["tool", "poetry", "scripts"],
                        name,
                        "is not a string or table",
                    );
                    continue;
                }
            };
            ctx.script(&["tool", "poetry", "scripts"], name, &entry, lock);
        }
    }
    if let Some(tasks) = ctx.table(&root, &["tool", "poe", "tasks"]) {
        let poe = if lock == Some(Lock::Uv) {
            "uv run poe"
        } else {
            "poe"
        };
        for (name, def) in tasks {
            if name.starts_with('_') {
                continue;
            }
            let (description, params) = poe_task(def);
            let item = CommandItem::new(
                KIND,
                file.path,
                &format!("poe:{name}"),
                format!("{poe} {}", sh_word(name)),
            )
            .label(name)
            .opt_description(description)
            .params(params);
            ctx.push(item, &["tool", "poe", "tasks"], name);
        }
    }
    if let Some(scripts) = ctx.table(&root, &["tool", "pdm", "scripts"]) {
        for (name, def) in scripts {
            if name == "_" {
                continue;
            }
            let item = CommandItem::new(
                KIND,
                file.path,
                &format!("pdm:{name}"),
                format!("pdm run {}", sh_word(name)),
            )
            .label(name)
            .opt_description(pdm_description(def));
            ctx.push(item, &["tool", "pdm", "scripts"], name);
        }
    }
    if let Some(envs) = ctx.table(&root, &["tool", "hatch", "envs"]) {
        for (env, env_def) in envs {
            let Some(scripts) = env_def.get("scripts") else {
                continue;
            };
            let Some(scripts) = scripts.as_table() else {
                ctx.warn_type(&["tool", "hatch", "envs", env], "scripts", "is not a table");
                continue;
            };
            for (name, def) in scripts {
                let target = if env == "default" {
                    name.clone()
                } else {
                    format!("{env}:{name}")
                };
                let item = CommandItem::new(
                    KIND,
                    file.path,
                    &format!("hatch:{env}:{name}"),
                    format!("hatch run {}", sh_word(&target)),
                )
                .label(&target)
                .opt_description(command_text(def).map(|c| truncate(&c, 60)));
                ctx.push(item, &["tool", "hatch", "envs", env, "scripts"], name);
            }
        }
    }
    let mut out = ctx.out;
    out.commands.sort_by_key(|c| c.line.unwrap_or(u32::MAX));
    out
}

struct Ctx<'f, 'a> {
    file: &'f SourceFile<'a>,
    doc: Doc<'a>,
    out: Parsed,
    seen_scripts: std::collections::HashSet<String>,
}

impl Ctx<'_, '_> {
    /// The table at `path`, `None` when absent; a warning when something else is there.
    fn table<'t>(&mut self, root: &'t Table, path: &[&str]) -> Option<&'t Table> {
        let mut cur = root;
        for (i, key) in path.iter().enumerate() {
            match cur.get(*key)? {
                Value::Table(t) => cur = t,
                _ => {
                    let message = format!("`{}` is not a table", path[..=i].join("."));
                    // `tool` is looked up once per runner; one warning is enough.
                    if !self.out.warnings.iter().any(|w| w.message == message) {
                        let line = self.doc.key_line(&path[..i], key);
                        self.out.warn(self.file.path, line, message);
                    }
                    return None;
                }
            }
        }
        Some(cur)
    }

    fn warn_type(&mut self, table: &[&str], key: &str, what: &str) {
        let line = self.doc.key_line(table, key);
        self.out.warn(
            self.file.path,
            line,
            format!("`{}.{key}` {what}", table.join(".")),
        );
    }

    fn script(&mut self, table: &[&str], name: &str, entry: &str, lock: Option<Lock>) {
        if !self.seen_scripts.insert(name.to_string()) {
            return;
        }
        let word = sh_word(name);
        let command = match lock {
            Some(Lock::Uv) => format!("uv run {word}"),
            Some(Lock::Poetry) => format!("poetry run {word}"),
            Some(Lock::Pdm) => format!("pdm run {word}"),
            None => word,
        };
        let entry = entry.trim();
        let item = CommandItem::new(KIND, self.file.path, name, command)
            .opt_description((!entry.is_empty()).then(|| format!("Entry point {entry}")));
        self.push(item, table, name);
    }

    fn push(&mut self, item: CommandItem, table: &[&str], key: &str) {
        let line = self.doc.key_line(table, key);
        self.out.commands.push(with_line(item, line));
    }
}

/// A command given as a string, or as an array of strings run one after another.
fn command_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Array(a) => {
            let parts: Vec<&str> = a.iter().filter_map(Value::as_str).map(str::trim).collect();
            (!parts.is_empty()).then(|| parts.join(" && "))
        }
        _ => None,
    }
}

fn poe_task(def: &Value) -> (Option<String>, Vec<ParamDef>) {
    match def {
        Value::String(cmd) => (Some(truncate(cmd.trim(), 60)), Vec::new()),
        Value::Array(steps) => (
            Some(truncate(&format!("Sequence: {}", poe_steps(steps)), 60)),
            Vec::new(),
        ),
        Value::Table(t) => {
            let help = t
                .get("help")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|h| !h.is_empty());
            let description = help.map(str::to_string).or_else(|| {
                for kind in ["cmd", "script", "shell", "expr", "ref"] {
                    if let Some(text) = t.get(kind).and_then(command_text) {
                        return Some(truncate(&text, 60));
                    }
                }
                let steps = t.get("sequence").and_then(Value::as_array)?;
                Some(truncate(&format!("Sequence: {}", poe_steps(steps)), 60))
            });
            (description, t.get("args").map(poe_args).unwrap_or_default())
        }
        _ => (None, Vec::new()),
    }
}

fn poe_steps(steps: &[Value]) -> String {
    steps
        .iter()
        .filter_map(|s| match s {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Table(t) => ["ref", "cmd", "script", "shell"]
                .iter()
                .find_map(|k| t.get(*k).and_then(Value::as_str))
                .map(|s| s.trim().to_string()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Poe `args`: `["name"]`, `[{ name = "x", ... }]` or `{ x = { ... } }`. Boolean args take no
/// value, which no parameter format can express, so they are left out.
fn poe_args(args: &Value) -> Vec<ParamDef> {
    let mut out = Vec::new();
    let mut add = |name: &str, spec: Option<&Table>| {
        let name = name.trim();
        if name.is_empty() {
            return;
        }
        let get = |k: &str| spec.and_then(|s| s.get(k));
        if get("type").and_then(Value::as_str) == Some("boolean") {
            return;
        }
        let mut p = ParamDef::new(name);
        if let Some(help) = get("help").and_then(Value::as_str) {
            p = p.with_description(help);
        }
        if let Some(d) = get("default").and_then(scalar) {
            p = p.with_default(d);
        }
        if get("positional").and_then(Value::as_bool) == Some(true) {
            p.variadic = get("multiple").and_then(Value::as_bool) == Some(true);
        } else {
            let flag = get("options")
                .and_then(Value::as_array)
                .and_then(|o| {
                    o.iter()
                        .filter_map(Value::as_str)
                        .find(|o| o.starts_with('-'))
                })
                .map(str::to_string)
                .unwrap_or_else(|| format!("--{name}"));
            p.format = Some(ParamFormat::Flag);
            p.flag = Some(flag);
        }
        out.push(p);
    };
    match args {
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::String(n) => add(n, None),
                    Value::Table(t) => {
                        if let Some(n) = t.get("name").and_then(Value::as_str) {
                            add(n, Some(t));
                        }
                    }
                    _ => {}
                }
            }
        }
        Value::Table(t) => {
            for (n, spec) in t {
                add(n, spec.as_table());
            }
        }
        _ => {}
    }
    out
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Integer(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn pdm_description(def: &Value) -> Option<String> {
    match def {
        Value::Table(t) => {
            if let Some(help) = t
                .get("help")
                .and_then(Value::as_str)
                .filter(|h| !h.trim().is_empty())
            {
                return Some(help.trim().to_string());
            }
            if let Some(steps) = t.get("composite").and_then(Value::as_array) {
                let parts: Vec<&str> = steps.iter().filter_map(Value::as_str).collect();
                return Some(truncate(&format!("Composite: {}", parts.join(", ")), 60));
            }
            ["cmd", "shell", "call"].iter().find_map(|k| {
                let v = t.get(*k)?;
                let text = match v {
                    Value::Array(a) => a
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" "),
                    other => other.as_str()?.trim().to_string(),
                };
                Some(truncate(&text, 60))
            })
        }
        other => Some(truncate(other.as_str()?.trim(), 60)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{labels, parse_in, parse_with, warnings};

    const PEP621: &str = r#"[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "acme-tools"
version = "0.3.0"
dependencies = [
    "click>=8",
    "httpx",
]

[project.scripts]
acme = "acme.cli:main"
acme-migrate = "acme.db:migrate"

[project.gui-scripts]
acme-gui = "acme.gui:run"
"#;

    fn get<'a>(p: &'a Parsed, label: &str) -> &'a CommandItem {
        p.commands
            .iter()
            .find(|c| c.label == label)
            .unwrap_or_else(|| panic!("no {label}"))
    }

    #[test]
    fn project_scripts_without_lock_run_bare() {
        let p = parse_with(parse, "/w/pyproject.toml", PEP621);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["acme", "acme-migrate", "acme-gui"]);
        let a = get(&p, "acme");
        assert_eq!(a.id, "pyproject:/w/pyproject.toml:acme");
        assert_eq!(a.command, "acme");
        assert_eq!(a.description.as_deref(), Some("Entry point acme.cli:main"));
        assert_eq!(a.line, Some(14));
        assert_eq!(a.cwd, "/w");
        assert_eq!(get(&p, "acme-gui").line, Some(18));
    }

    #[test]
    fn lock_file_picks_the_runner() {
        for (lock, expect) in [
            ("/w/uv.lock", "uv run acme"),
            ("/w/poetry.lock", "poetry run acme"),
            ("/w/pdm.lock", "pdm run acme"),
        ] {
            let fs = MemFs::new()
                .file("/w/pyproject.toml", PEP621)
                .file(lock, "");
            assert_eq!(
                get(&parse_in(parse, &fs, "/w/pyproject.toml"), "acme").command,
                expect
            );
        }
        // uv workspace: the lock sits at the workspace root, above the member.
        let fs = MemFs::new()
            .file("/w/uv.lock", "")
            .file("/w/packages/acme/pyproject.toml", PEP621);
        let p = parse_in(parse, &fs, "/w/packages/acme/pyproject.toml");
        assert_eq!(get(&p, "acme").command, "uv run acme");
        // The nearest lock wins over one further up.
        let fs = MemFs::new()
            .file("/w/uv.lock", "")
            .file("/w/svc/poetry.lock", "")
            .file("/w/svc/pyproject.toml", PEP621);
        assert_eq!(
            get(&parse_in(parse, &fs, "/w/svc/pyproject.toml"), "acme").command,
            "poetry run acme"
        );
        // Above the workspace root does not count.
        let fs = MemFs::new()
            .file("/uv.lock", "")
            .file("/w/pyproject.toml", PEP621);
        assert_eq!(
            get(&parse_in(parse, &fs, "/w/pyproject.toml"), "acme").command,
            "acme"
        );
    }

    #[test]
    fn poetry_scripts() {
        let text = "[tool.poetry]\nname = \"svc\"\n\n[tool.poetry.scripts]\nserve = \"svc.app:serve\"\nsetup-db = { callable = \"svc.db:setup\" }\n";
        let p = parse_with(parse, "/w/pyproject.toml", text);
        assert_eq!(labels(&p), ["serve", "setup-db"]);
        assert_eq!(get(&p, "serve").command, "poetry run serve");
        assert_eq!(
            get(&p, "setup-db").description.as_deref(),
            Some("Entry point svc.db:setup")
        );
        assert_eq!(get(&p, "setup-db").line, Some(6));
        // The same name in [project.scripts] (Poetry 2) is listed once.
        let both = "[project]\nname = \"svc\"\n[project.scripts]\nserve = \"svc.app:serve\"\n[tool.poetry.scripts]\nserve = \"svc.app:serve\"\n";
        let p = parse_with(parse, "/w/pyproject.toml", both);
        assert_eq!(labels(&p), ["serve"]);
        assert_eq!(p.commands[0].command, "serve");
    }

    const POE: &str = r#"[tool.poe.tasks]
test = "pytest --cov=acme"
lint = ["format", "typecheck"]
_helper = "echo hidden"

[tool.poe.tasks.format]
cmd = "ruff format ."
help = "Format the code"

[tool.poe.tasks.serve]
script = "acme.server:run(host=host, port=port)"
args = [
  { name = "host", help = "Bind address", default = "127.0.0.1" },
  { name = "port", options = ["-p", "--port"], default = 8000 },
  { name = "verbose", type = "boolean" },
  { name = "files", positional = true, multiple = true },
]

[tool.poe.tasks.typecheck]
shell = "mypy src && echo done"
"#;

    #[test]
    fn poe_tasks() {
        let p = parse_with(parse, "/w/pyproject.toml", POE);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["test", "lint", "format", "serve", "typecheck"]);
        let t = get(&p, "test");
        assert_eq!(t.id, "pyproject:/w/pyproject.toml:poe:test");
        assert_eq!(t.command, "poe test");
        assert_eq!(t.description.as_deref(), Some("pytest --cov=acme"));
        assert_eq!(t.line, Some(2));
        assert_eq!(
            get(&p, "lint").description.as_deref(),
            Some("Sequence: format, typecheck")
        );
        assert_eq!(
            get(&p, "format").description.as_deref(),
            Some("Format the code")
        );
        assert_eq!(get(&p, "format").line, Some(6));
        assert_eq!(
            get(&p, "typecheck").description.as_deref(),
            Some("mypy src && echo done")
        );
        let s = get(&p, "serve");
        assert_eq!(s.params.len(), 3);
        assert_eq!(s.params[0].name, "host");
        assert_eq!(s.params[0].description.as_deref(), Some("Bind address"));
        assert_eq!(s.params[0].default.as_deref(), Some("127.0.0.1"));
        assert_eq!(s.params[0].format, Some(ParamFormat::Flag));
        assert_eq!(s.params[0].flag.as_deref(), Some("--host"));
        assert_eq!(s.params[1].flag.as_deref(), Some("-p"));
        assert_eq!(s.params[1].default.as_deref(), Some("8000"));
        assert_eq!(s.params[2].name, "files");
        assert_eq!(s.params[2].format, None);
        assert!(s.params[2].variadic);
    }

    #[test]
    fn poe_args_as_table_and_uv_runner() {
        let text = "[tool.poe.tasks.greet]\ncmd = \"echo hi\"\nargs.name = { help = \"Who\" }\n";
        let fs = MemFs::new()
            .file("/w/pyproject.toml", text)
            .file("/w/uv.lock", "");
        let p = parse_in(parse, &fs, "/w/pyproject.toml");
        assert_eq!(p.commands[0].command, "uv run poe greet");
        assert_eq!(p.commands[0].params[0].name, "name");
        assert_eq!(p.commands[0].params[0].flag.as_deref(), Some("--name"));
    }

    #[test]
    fn pdm_scripts() {
        let text = r#"[tool.pdm.scripts]
_.env_file = ".env"
start = "flask run -p 54321"
migrate = { cmd = ["alembic", "upgrade", "head"], help = "Apply migrations" }
all = { composite = ["lint", "test"] }
ship = { shell = "make dist && twine upload dist/*" }
"#;
        let p = parse_with(parse, "/w/pyproject.toml", text);
        assert_eq!(labels(&p), ["start", "migrate", "all", "ship"]);
        let s = get(&p, "start");
        assert_eq!(s.id, "pyproject:/w/pyproject.toml:pdm:start");
        assert_eq!(s.command, "pdm run start");
        assert_eq!(s.description.as_deref(), Some("flask run -p 54321"));
        assert_eq!(s.line, Some(3));
        assert_eq!(
            get(&p, "migrate").description.as_deref(),
            Some("Apply migrations")
        );
        assert_eq!(
            get(&p, "all").description.as_deref(),
            Some("Composite: lint, test")
        );
        assert_eq!(
            get(&p, "ship").description.as_deref(),
            Some("make dist && twine upload dist/*")
        );
    }

    #[test]
    fn hatch_scripts() {
        let text = r#"[tool.hatch.envs.default.scripts]
test = "pytest {args:tests}"
cov = ["test-cov", "cov-report"]

[tool.hatch.envs.docs]
dependencies = ["mkdocs"]
[tool.hatch.envs.docs.scripts]
build = "mkdocs build --clean --strict"
"#;
        let p = parse_with(parse, "/w/pyproject.toml", text);
        assert_eq!(labels(&p), ["test", "cov", "docs:build"]);
        assert_eq!(get(&p, "test").command, "hatch run test");
        assert_eq!(
            get(&p, "test").id,
            "pyproject:/w/pyproject.toml:hatch:default:test"
        );
        assert_eq!(
            get(&p, "cov").description.as_deref(),
            Some("test-cov && cov-report")
        );
        let b = get(&p, "docs:build");
        assert_eq!(b.command, "hatch run docs:build");
        assert_eq!(b.id, "pyproject:/w/pyproject.toml:hatch:docs:build");
        assert_eq!(b.line, Some(8));
    }

    #[test]
    fn no_scripts_no_items() {
        let p = parse_with(
            parse,
            "/w/pyproject.toml",
            "[tool.ruff]\nline-length = 100\n",
        );
        assert!(p.commands.is_empty() && p.warnings.is_empty());
    }

    #[test]
    fn wrong_types_warn_and_keep_the_rest() {
        let text = "[project]\nname = \"x\"\nscripts = \"oops\"\n\n[tool.pdm.scripts]\nok = \"echo ok\"\n\n[tool.poetry.scripts]\nbad = 3\n";
        let p = parse_with(parse, "/w/pyproject.toml", text);
        assert_eq!(labels(&p), ["ok"]);
        let msgs = warnings(&p);
        assert_eq!(
            msgs,
            [
                (Some(3), "`project.scripts` is not a table"),
                (
                    Some(9),
                    "`tool.poetry.scripts.bad` is not a string or table"
                )
            ]
        );
    }

    #[test]
    fn non_table_tool_warns_once() {
        let p = parse_with(parse, "/w/pyproject.toml", "tool = 1\n");
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].message, "`tool` is not a table");
        assert_eq!(p.warnings[0].line, Some(1));
    }

    #[test]
    fn malformed_toml_warns() {
        let p = parse_with(
            parse,
            "/w/pyproject.toml",
            "[project.scripts]\nacme = \"acme.cli:main\n",
        );
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].message.starts_with("invalid TOML"));
        assert_eq!(p.warnings[0].line, Some(2));
        let p = parse_with(parse, "/w/pyproject.toml", "\u{1}\u{FFFD}[[[[");
        assert_eq!(p.warnings.len(), 1);
    }
}
