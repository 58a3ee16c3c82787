//! Cargo commands from every `Cargo.toml`.
//!
//! * A `[workspace]` manifest gives the workspace-wide commands once: `cargo build --workspace`,
//!   `cargo test --workspace`, `cargo check --workspace`, `cargo clean`,
//!   `cargo clippy --workspace`, `cargo fmt --all`, `cargo doc --workspace`.
//! * A `[package]` manifest gives the package commands (`cargo build`, `cargo test`, ...). When
//!   the package belongs to a workspace they select it with `-p NAME` (`cargo build -p core`),
//!   so they do just that package wherever they run. A manifest that is both (root package +
//!   workspace) gives the workspace commands plus the root package's run commands.
//! * `run` (`cargo run`) only when `cargo run` can pick a binary: exactly one, or
//!   `default-run`. One `run --bin X` per binary (explicit `[[bin]]` plus Cargo's inferred
//!   `src/main.rs`, `src/bin/*.rs`, `src/bin/*/main.rs` unless `autobins = false`) and one
//!   `run --example X` per example (`[[example]]` plus `examples/*.rs`, `examples/*/main.rs`
//!   unless `autoexamples = false`), de-duplicated by name within the manifest. As in Cargo,
//!   edition 2015 (the default when `edition` is absent) turns discovery of a kind off once
//!   one target of that kind is declared.
//! * `[alias]` entries of `.cargo/config.toml` (or `.cargo/config`) beside the manifest:
//!   `cargo X`. Only the config in the manifest's own folder is read, so each config file is
//!   listed once, by the manifest next to it (a config with no manifest beside it is not
//!   listed).
//!
//! Workspace membership follows Cargo: the nearest ancestor manifest (up to the workspace root)
//! with a `[workspace]` that does not `exclude` the package is its workspace, and the package is
//! a member when a `members` glob matches its folder (or `package.workspace` names the root).
//! Members that join only as path dependencies are not detected.

use super::common::{folders_up, with_line};
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::syntax::toml::{self as toml_syntax, Doc};
use crate::text::{parse_toml, sh_word};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use toml::de::DeValue;
use toml::{Table, Value};

const KIND: &str = "cargo";

const WORKSPACE: &[(&str, &str, &str)] = &[
    (
        "build",
        "cargo build --workspace",
        "Compile all workspace members",
    ),
    (
        "test",
        "cargo test --workspace",
        "Run tests of all workspace members",
    ),
    (
        "check",
        "cargo check --workspace",
        "Check all workspace members without building",
    ),
    ("clean", "cargo clean", "Remove build artifacts"),
    (
        "clippy",
        "cargo clippy --workspace",
        "Run Clippy lints on all workspace members",
    ),
    (
        "fmt",
        "cargo fmt --all",
        "Format all workspace members with rustfmt",
    ),
    (
        "doc",
        "cargo doc --workspace",
        "Build documentation for all workspace members",
    ),
];

/// Upstream's standard items, in its order (`run` goes after `build` when there is one).
const PACKAGE: &[(&str, &str)] = &[
    ("build", "Compile the current package"),
    ("test", "Run tests"),
    ("check", "Check code without building"),
    ("clean", "Remove build artifacts"),
    ("clippy", "Run Clippy lints"),
    ("fmt", "Format code with rustfmt"),
    ("doc", "Build documentation"),
];

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let (doc, manifest) = match toml_syntax::parse_table(file.content) {
        Ok(parsed) => parsed,
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let mut out = Parsed::default();
    let workspace = section(&manifest, "workspace", &doc, file, &mut out);
    let package = section(&manifest, "package", &doc, file, &mut out);

    if workspace.is_some() {
        let line = doc.key_line(&[], "workspace");
        for (name, command, description) in WORKSPACE {
            out.commands.push(with_line(
                CommandItem::new(KIND, file.path, name, *command).description(*description),
                line,
            ));
        }
    }
    if let Some(package) = package {
        match package
            .get("name")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            Some(name) => package_commands(
                file,
                &doc,
                &manifest,
                package,
                name,
                workspace.is_some(),
                &mut out,
            ),
            None => {
                let line = doc.key_line(&[], "package");
                out.warn(file.path, line, "`[package]` has no `name`");
            }
        }
    }
    if package.is_some() || workspace.is_some() {
        aliases(file, &mut out);
    }
    out
}

fn section<'t>(
    manifest: &'t Table,
    key: &str,
    doc: &Doc<'_>,
    file: &SourceFile<'_>,
    out: &mut Parsed,
) -> Option<&'t Table> {
    match manifest.get(key)? {
        Value::Table(t) => Some(t),
        _ => {
            out.warn(
                file.path,
                doc.key_line(&[], key),
                format!("`{key}` is not a table"),
            );
            None
        }
    }
}

fn package_commands(
    file: &SourceFile<'_>,
    doc: &Doc<'_>,
    manifest: &Table,
    package: &Table,
    name: &str,
    is_workspace_root: bool,
    out: &mut Parsed,
) {
    let member = is_workspace_root || package.contains_key("workspace") || workspace_member(file);
    let select = if member {
        format!(" -p {}", sh_word(name))
    } else {
        String::new()
    };
    let line = doc.key_line(&[], "package");
    let bins = targets(file, doc, manifest, package, name, Kind::Bin);
    let examples = targets(file, doc, manifest, package, name, Kind::Example);
    let can_run = bins.len() == 1
        || (!bins.is_empty() && package.get("default-run").and_then(Value::as_str).is_some());

    // At a workspace root the workspace's commands stand for the package's, all but `run`;
    // elsewhere `run` goes after `build`, as upstream lists it.
    let (build, rest) = if is_workspace_root {
        (&PACKAGE[..0], &PACKAGE[..0])
    } else {
        PACKAGE.split_at(1)
    };
    let run: &[(&str, &str)] = if can_run {
        &[("run", "Run the main binary")]
    } else {
        &[]
    };
    for (word, description) in build.iter().chain(run).chain(rest) {
        let item = CommandItem::new(KIND, file.path, word, format!("cargo {word}{select}"))
            .description(*description);
        out.commands.push(with_line(item, line));
    }
    let bins = bins.into_iter().map(|t| (t, "run", "bin", "binary"));
    let examples = examples
        .into_iter()
        .map(|t| (t, "example", "example", "example"));
    for (t, id, flag, what) in bins.chain(examples) {
        let item = CommandItem::new(
            KIND,
            file.path,
            &format!("{id}-{}", t.name),
            format!("cargo run{select} --{flag} {}", sh_word(&t.name)),
        )
        .label(format!("run --{flag} {}", t.name))
        .description(format!("Run {} {what}", t.name));
        out.commands.push(with_line(item, t.line));
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bin,
    Example,
}

struct Target {
    name: String,
    line: Option<usize>,
}

/// Explicit `[[bin]]`/`[[example]]` tables, then the targets Cargo infers from the layout.
fn targets(
    file: &SourceFile<'_>,
    doc: &Doc<'_>,
    manifest: &Table,
    package: &Table,
    package_name: &str,
    kind: Kind,
) -> Vec<Target> {
    let (table, auto_key, folder) = match kind {
        Kind::Bin => ("bin", "autobins", "src/bin"),
        Kind::Example => ("example", "autoexamples", "examples"),
    };
    let mut out: Vec<Target> = Vec::new();
    let mut seen = HashSet::new();
    let mut explicit_paths = HashSet::new();
    if let Some(list) = manifest.get(table).and_then(Value::as_array) {
        let name_lines = target_name_lines(doc, table);
        for t in list {
            let Some(name) = t
                .get("name")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|n| !n.is_empty())
            else {
                continue;
            };
            if let Some(path) = t.get("path").and_then(Value::as_str) {
                explicit_paths.insert(path.trim_start_matches("./").to_string());
            }
            if seen.insert(name.to_string()) {
                out.push(Target {
                    name: name.to_string(),
                    line: name_lines.get(name).copied(),
                });
            }
        }
    }
    // Cargo's rule: discovery is on unless switched off, except that in edition 2015 (also the
    // default edition) declaring any target of a kind switches it off for that kind.
    let edition_2015 = match package.get("edition") {
        None => true,
        Some(v) => v.as_str() == Some("2015"),
    };
    let declared = manifest.get(table).is_some_and(Value::is_array);
    let auto = package
        .get(auto_key)
        .and_then(Value::as_bool)
        .unwrap_or(!(edition_2015 && declared));
    if !auto {
        return out;
    }
    let dir = file.dir();
    let mut inferred: Vec<(String, String)> = Vec::new();
    if kind == Kind::Bin && file.fs.is_file(&dir.join("src/main.rs")) {
        inferred.push((package_name.to_string(), "src/main.rs".to_string()));
    }
    for entry in file.fs.list_dir(&dir.join(folder)) {
        let Some(file_name) = entry.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if file.fs.is_file(&entry) {
            if let Some(stem) = file_name.strip_suffix(".rs").filter(|s| !s.is_empty()) {
                inferred.push((stem.to_string(), format!("{folder}/{file_name}")));
            }
        } else if file.fs.is_file(&entry.join("main.rs")) {
            inferred.push((
                file_name.to_string(),
                format!("{folder}/{file_name}/main.rs"),
            ));
        }
    }
    for (name, path) in inferred {
        if !explicit_paths.contains(&path) && seen.insert(name.clone()) {
            out.push(Target { name, line: None });
        }
    }
    out
}

/// Lines of the `name` keys of the `[[table]]` entries, the first per name.
fn target_name_lines(doc: &Doc<'_>, table: &str) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    let Some(DeValue::Array(entries)) = doc.root().get(table).map(|v| v.get_ref()) else {
        return out;
    };
    for entry in entries.iter() {
        let DeValue::Table(entry) = entry.get_ref() else {
            continue;
        };
        if let Some((key, name)) = entry.get_key_value("name")
            && let DeValue::String(name) = name.get_ref()
        {
            out.entry(name.trim().to_string())
                .or_insert_with(|| doc.line(key.span().start));
        }
    }
    out
}

/// [`workspace_member`] of the manifest at `manifest`, for the classifier.
pub(crate) fn is_workspace_member(fs: &dyn crate::fs::Fs, root: &Path, manifest: &Path) -> bool {
    let file = SourceFile {
        path: manifest,
        content: "",
        executable: false,
        root,
        fs,
    };
    workspace_member(&file)
}

/// Whether the package is a member of a workspace whose root manifest is in an ancestor folder.
fn workspace_member(file: &SourceFile<'_>) -> bool {
    let pkg_dir = file.dir();
    for d in folders_up(file).skip(1) {
        if let Some(ws) = read_workspace(file, d) {
            let rel = relative(pkg_dir, d);
            if !excluded(&ws, &rel) {
                return is_member(&ws, &rel);
            }
        }
    }
    false
}

fn read_workspace(file: &SourceFile<'_>, dir: &Path) -> Option<Table> {
    let text = file.fs.read(&dir.join("Cargo.toml"))?;
    let mut manifest = parse_toml(&text).ok()?;
    match manifest.remove("workspace")? {
        Value::Table(t) => Some(t),
        _ => None,
    }
}

/// `/`-separated path of `path` below `base`.
fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .map(|r| {
            r.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default()
}

fn string_list<'a>(ws: &'a Table, key: &str) -> impl Iterator<Item = String> + 'a {
    ws.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|s| {
            s.trim()
                .trim_start_matches("./")
                .trim_end_matches('/')
                .to_string()
        })
}

fn glob_matches(pattern: &str, rel: &str) -> bool {
    if pattern == rel {
        return true;
    }
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .is_ok_and(|g| g.compile_matcher().is_match(rel))
}

/// Cargo's `exclude` entries are paths: a package at or below one is excluded.
fn excluded(ws: &Table, rel: &str) -> bool {
    string_list(ws, "exclude").any(|e| {
        !e.is_empty()
            && (rel == e
                || rel.strip_prefix(&e).is_some_and(|r| r.starts_with('/'))
                || glob_matches(&e, rel))
    })
}

fn is_member(ws: &Table, rel: &str) -> bool {
    string_list(ws, "members").any(|m| glob_matches(&m, rel))
}

/// `[alias]` of the Cargo config beside the manifest. Cargo reads `config` when both it and
/// `config.toml` exist.
fn aliases(file: &SourceFile<'_>, out: &mut Parsed) {
    let cargo_dir = file.dir().join(".cargo");
    let Some((path, text)) = ["config", "config.toml"].iter().find_map(|n| {
        let p = cargo_dir.join(n);
        file.fs.read(&p).map(|t| (p, t))
    }) else {
        return;
    };
    let (doc, config) = match toml_syntax::parse_table(&text) {
        Ok(parsed) => parsed,
        Err((line, msg)) => {
            out.warn(&path, line, msg);
            return;
        }
    };
    let Some(alias) = config.get("alias") else {
        return;
    };
    let Some(alias) = alias.as_table() else {
        out.warn(&path, doc.key_line(&[], "alias"), "`alias` is not a table");
        return;
    };
    for (name, value) in alias {
        let expansion = match value {
            Value::String(s) => s.trim().to_string(),
            Value::Array(a) => a
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            _ => {
                out.warn(
                    &path,
                    doc.key_line(&["alias"], name),
                    format!("alias `{name}` is not a string or array"),
                );
                continue;
            }
        };
        out.commands.push(
            CommandItem::new(
                KIND,
                file.path,
                &format!("alias-{name}"),
                format!("cargo {}", sh_word(name)),
            )
            .label(name)
            .description(expansion),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{labels, parse_in, parse_with};

    fn get<'a>(p: &'a Parsed, label: &str) -> &'a CommandItem {
        p.commands
            .iter()
            .find(|c| c.label == label)
            .unwrap_or_else(|| panic!("no {label}"))
    }

    fn commands(p: &Parsed) -> Vec<&str> {
        p.commands.iter().map(|c| c.command.as_str()).collect()
    }

    /// The labels of `/w/Cargo.toml`'s commands that start with `prefix`.
    fn labels_from(fs: &MemFs, prefix: &str) -> Vec<String> {
        let p = parse_in(parse, fs, "/w/Cargo.toml");
        labels(&p)
            .into_iter()
            .filter(|l| l.starts_with(prefix))
            .map(String::from)
            .collect()
    }

    const APP: &str = "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde = \"1\"\n";

    #[test]
    fn single_binary_package_like_upstream() {
        let fs = MemFs::new()
            .file("/w/Cargo.toml", APP)
            .file("/w/src/main.rs", "fn main() {}");
        let p = parse_in(parse, &fs, "/w/Cargo.toml");
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            [
                "build",
                "run",
                "test",
                "check",
                "clean",
                "clippy",
                "fmt",
                "doc",
                "run --bin app"
            ]
        );
        assert_eq!(
            commands(&p),
            [
                "cargo build",
                "cargo run",
                "cargo test",
                "cargo check",
                "cargo clean",
                "cargo clippy",
                "cargo fmt",
                "cargo doc",
                "cargo run --bin app"
            ]
        );
        let descriptions: Vec<_> = p
            .commands
            .iter()
            .map(|c| c.description.as_deref().unwrap())
            .collect();
        assert_eq!(
            descriptions,
            [
                "Compile the current package",
                "Run the main binary",
                "Run tests",
                "Check code without building",
                "Remove build artifacts",
                "Run Clippy lints",
                "Format code with rustfmt",
                "Build documentation",
                "Run app binary"
            ]
        );
        assert_eq!(p.commands[0].id, "cargo:/w/Cargo.toml:build");
        assert_eq!(p.commands[0].line, Some(1));
        assert_eq!(get(&p, "run --bin app").id, "cargo:/w/Cargo.toml:run-app");
        assert_eq!(get(&p, "run --bin app").line, None);
    }

    #[test]
    fn library_has_no_run() {
        let fs = MemFs::new()
            .file("/w/Cargo.toml", APP)
            .file("/w/src/lib.rs", "");
        let p = parse_in(parse, &fs, "/w/Cargo.toml");
        assert_eq!(
            labels(&p),
            ["build", "test", "check", "clean", "clippy", "fmt", "doc"]
        );
    }

    /// Upstream read `[[bin]]` names with `\w+`, so `my-app` was missed.
    #[test]
    fn regression_hyphenated_bin_names() {
        let text = "[package]\nname = \"tools\"\nversion = \"0.1.0\"\n\n[[bin]]\nname = \"my-app\"\npath = \"src/app.rs\"\n\n[[bin]]\nname = 'other_tool' # comment\npath = \"src/other.rs\"\n";
        let p = parse_with(parse, "/w/Cargo.toml", text);
        let run = get(&p, "run --bin my-app");
        assert_eq!(run.command, "cargo run --bin my-app");
        assert_eq!(run.id, "cargo:/w/Cargo.toml:run-my-app");
        assert_eq!(run.description.as_deref(), Some("Run my-app binary"));
        assert_eq!(run.line, Some(6));
        assert_eq!(get(&p, "run --bin other_tool").line, Some(10));
        // Two binaries, no default-run: `cargo run` could not choose.
        assert!(!labels(&p).contains(&"run"));
    }

    #[test]
    fn default_run_allows_plain_run() {
        let text = "[package]\nname = \"tools\"\ndefault-run = \"a\"\n[[bin]]\nname = \"a\"\n[[bin]]\nname = \"b\"\n";
        let p = parse_with(parse, "/w/Cargo.toml", text);
        assert_eq!(get(&p, "run").command, "cargo run");
    }

    #[test]
    fn inferred_binaries_and_examples() {
        let fs = MemFs::new()
            .file("/w/Cargo.toml", "[package]\nname = \"kit\"\nedition = \"2021\"\n\n[[example]]\nname = \"demo-explicit\"\npath = \"examples/custom.rs\"\n")
            .file("/w/src/main.rs", "")
            .file("/w/src/bin/migrate.rs", "")
            .file("/w/src/bin/server/main.rs", "")
            .file("/w/src/bin/server/util.rs", "")
            .file("/w/src/bin/notes.txt", "")
            .file("/w/examples/basic.rs", "")
            .file("/w/examples/custom.rs", "")
            .file("/w/examples/multi/main.rs", "")
            .file("/w/examples/data/input.json", "");
        let p = parse_in(parse, &fs, "/w/Cargo.toml");
        assert_eq!(
            labels_from(&fs, "run --"),
            [
                "run --bin kit",
                "run --bin migrate",
                "run --bin server",
                "run --example demo-explicit",
                "run --example basic",
                "run --example multi"
            ]
        );
        let ex = get(&p, "run --example basic");
        assert_eq!(ex.id, "cargo:/w/Cargo.toml:example-basic");
        assert_eq!(ex.command, "cargo run --example basic");
        assert_eq!(ex.description.as_deref(), Some("Run basic example"));
        assert_eq!(get(&p, "run --example demo-explicit").line, Some(6));
        assert!(!labels(&p).contains(&"run"));
    }

    #[test]
    fn autobins_and_autoexamples_off() {
        let fs = MemFs::new()
            .file("/w/Cargo.toml", "[package]\nname = \"kit\"\nautobins = false\nautoexamples = false\n[[bin]]\nname = \"only\"\npath = \"src/main.rs\"\n")
            .file("/w/src/main.rs", "")
            .file("/w/src/bin/extra.rs", "")
            .file("/w/examples/basic.rs", "");
        assert_eq!(labels_from(&fs, "run"), ["run", "run --bin only"]);
    }

    #[test]
    fn edition_2015_declared_targets_switch_discovery_off() {
        let fs = |manifest: &str| {
            MemFs::new()
                .file("/w/Cargo.toml", manifest)
                .file("/w/src/main.rs", "")
                .file("/w/src/bin/extra.rs", "")
                .file("/w/examples/basic.rs", "")
        };
        let runs = |manifest: &str| labels_from(&fs(manifest), "run --");
        // No edition key means 2015: the declared bin replaces discovery of bins, not examples.
        assert_eq!(
            runs("[package]\nname = \"kit\"\n[[bin]]\nname = \"tool\"\npath = \"src/tool.rs\"\n"),
            ["run --bin tool", "run --example basic"]
        );
        assert_eq!(
            runs(
                "[package]\nname = \"kit\"\nedition = \"2018\"\n[[bin]]\nname = \"tool\"\npath = \"src/tool.rs\"\n"
            ),
            [
                "run --bin tool",
                "run --bin kit",
                "run --bin extra",
                "run --example basic"
            ]
        );
        assert_eq!(
            runs(
                "[package]\nname = \"kit\"\nautobins = true\n[[bin]]\nname = \"tool\"\npath = \"src/tool.rs\"\n"
            ),
            [
                "run --bin tool",
                "run --bin kit",
                "run --bin extra",
                "run --example basic"
            ]
        );
        // Nothing declared: discovery on in every edition.
        assert_eq!(
            runs("[package]\nname = \"kit\"\n"),
            ["run --bin kit", "run --bin extra", "run --example basic"]
        );
    }

    #[test]
    fn explicit_bin_at_main_rs_is_not_listed_twice() {
        let fs = MemFs::new()
            .file("/w/Cargo.toml", "[package]\nname = \"kit\"\nedition = \"2024\"\n[[bin]]\nname = \"kit-cli\"\npath = \"src/main.rs\"\n[[bin]]\nname = \"kit-cli\"\n")
            .file("/w/src/main.rs", "");
        assert_eq!(labels_from(&fs, "run"), ["run", "run --bin kit-cli"]);
    }

    /// Upstream skipped a `[[bin]]` whose label an earlier manifest already had; each manifest
    /// now lists its own.
    #[test]
    fn regression_same_bin_name_in_two_manifests() {
        let fs = MemFs::new()
            .file(
                "/w/a/Cargo.toml",
                "[package]\nname = \"a\"\n[[bin]]\nname = \"cli\"\n",
            )
            .file(
                "/w/b/Cargo.toml",
                "[package]\nname = \"b\"\n[[bin]]\nname = \"cli\"\n",
            );
        for path in ["/w/a/Cargo.toml", "/w/b/Cargo.toml"] {
            let p = parse_in(parse, &fs, path);
            assert_eq!(get(&p, "run --bin cli").command, "cargo run --bin cli");
        }
    }

    const WS_ROOT: &str = "[workspace]\nresolver = \"2\"\nmembers = [\n  \"crates/*\",\n  \"tools/xtask/\",\n]\nexclude = [\"crates/legacy\"]\n";

    #[test]
    fn virtual_workspace_commands() {
        let p = parse_with(parse, "/w/Cargo.toml", WS_ROOT);
        assert!(p.warnings.is_empty());
        assert_eq!(
            labels(&p),
            ["build", "test", "check", "clean", "clippy", "fmt", "doc"]
        );
        assert_eq!(
            commands(&p),
            [
                "cargo build --workspace",
                "cargo test --workspace",
                "cargo check --workspace",
                "cargo clean",
                "cargo clippy --workspace",
                "cargo fmt --all",
                "cargo doc --workspace"
            ]
        );
        assert_eq!(p.commands[0].id, "cargo:/w/Cargo.toml:build");
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Compile all workspace members")
        );
        assert_eq!(p.commands[0].line, Some(1));
    }

    fn ws_fs() -> MemFs {
        MemFs::new()
            .file("/w/Cargo.toml", WS_ROOT)
            .file(
                "/w/crates/core/Cargo.toml",
                "[package]\nname = \"demo-core\"\n",
            )
            .file("/w/crates/core/src/lib.rs", "")
            .file(
                "/w/crates/cli/Cargo.toml",
                "[package]\nname = \"demo-cli\"\n",
            )
            .file("/w/crates/cli/src/main.rs", "")
            .file(
                "/w/crates/legacy/Cargo.toml",
                "[package]\nname = \"legacy\"\n",
            )
            .file(
                "/w/crates/nested/deep/Cargo.toml",
                "[package]\nname = \"deep\"\n",
            )
            .file("/w/tools/xtask/Cargo.toml", "[package]\nname = \"xtask\"\n")
            .file("/w/tools/xtask/src/main.rs", "")
    }

    #[test]
    fn member_package_commands_select_the_package() {
        let fs = ws_fs();
        let p = parse_in(parse, &fs, "/w/crates/cli/Cargo.toml");
        assert_eq!(
            commands(&p),
            [
                "cargo build -p demo-cli",
                "cargo run -p demo-cli",
                "cargo test -p demo-cli",
                "cargo check -p demo-cli",
                "cargo clean -p demo-cli",
                "cargo clippy -p demo-cli",
                "cargo fmt -p demo-cli",
                "cargo doc -p demo-cli",
                "cargo run -p demo-cli --bin demo-cli"
            ]
        );
        assert_eq!(p.commands[0].cwd, "/w/crates/cli");
        let p = parse_in(parse, &fs, "/w/tools/xtask/Cargo.toml");
        assert_eq!(get(&p, "build").command, "cargo build -p xtask");
    }

    #[test]
    fn excluded_and_unmatched_packages_are_standalone() {
        let fs = ws_fs();
        let p = parse_in(parse, &fs, "/w/crates/legacy/Cargo.toml");
        assert_eq!(get(&p, "build").command, "cargo build");
        // `crates/*` matches one folder level only.
        let p = parse_in(parse, &fs, "/w/crates/nested/deep/Cargo.toml");
        assert_eq!(get(&p, "build").command, "cargo build");
    }

    #[test]
    fn package_workspace_key_marks_membership() {
        let fs = MemFs::new()
            .file("/w/ws/Cargo.toml", "[workspace]\nmembers = []\n")
            .file(
                "/w/other/Cargo.toml",
                "[package]\nname = \"o\"\nworkspace = \"../ws\"\n",
            );
        let p = parse_in(parse, &fs, "/w/other/Cargo.toml");
        assert_eq!(get(&p, "build").command, "cargo build -p o");
    }

    #[test]
    fn workspace_above_root_is_ignored() {
        let fs = MemFs::new()
            .file("/Cargo.toml", "[workspace]\nmembers = [\"w\"]\n")
            .file("/w/Cargo.toml", APP);
        assert_eq!(
            get(&parse_in(parse, &fs, "/w/Cargo.toml"), "build").command,
            "cargo build"
        );
    }

    #[test]
    fn root_package_with_workspace() {
        let fs = MemFs::new()
            .file(
                "/w/Cargo.toml",
                "[package]\nname = \"app\"\n\n[workspace]\nmembers = [\"crates/*\"]\n\n[[example]]\nname = \"tour\"\n",
            )
            .file("/w/src/main.rs", "");
        let p = parse_in(parse, &fs, "/w/Cargo.toml");
        assert_eq!(
            labels(&p),
            [
                "build",
                "test",
                "check",
                "clean",
                "clippy",
                "fmt",
                "doc",
                "run",
                "run --bin app",
                "run --example tour"
            ]
        );
        assert_eq!(get(&p, "build").command, "cargo build --workspace");
        assert_eq!(get(&p, "build").line, Some(4));
        assert_eq!(get(&p, "run").command, "cargo run -p app");
        assert_eq!(get(&p, "run").line, Some(1));
        assert_eq!(
            get(&p, "run --bin app").command,
            "cargo run -p app --bin app"
        );
        assert_eq!(
            get(&p, "run --example tour").command,
            "cargo run -p app --example tour"
        );
    }

    #[test]
    fn aliases_from_config_beside_manifest() {
        let config = "[alias]\nb = \"build\"\nxtask = \"run --package xtask --\"\nci = [\"test\", \"--workspace\", \"--all-features\"]\nbad = 3\n";
        let fs = MemFs::new()
            .file("/w/Cargo.toml", WS_ROOT)
            .file("/w/.cargo/config.toml", config)
            .file(
                "/w/crates/core/Cargo.toml",
                "[package]\nname = \"demo-core\"\n",
            );
        let p = parse_in(parse, &fs, "/w/Cargo.toml");
        let x = get(&p, "xtask");
        assert_eq!(x.id, "cargo:/w/Cargo.toml:alias-xtask");
        assert_eq!(x.command, "cargo xtask");
        assert_eq!(x.description.as_deref(), Some("run --package xtask --"));
        assert_eq!(
            get(&p, "ci").description.as_deref(),
            Some("test --workspace --all-features")
        );
        assert_eq!(get(&p, "b").command, "cargo b");
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].file, Path::new("/w/.cargo/config.toml"));
        assert_eq!(p.warnings[0].line, Some(5));
        // A member does not repeat its ancestor's aliases.
        let p = parse_in(parse, &fs, "/w/crates/core/Cargo.toml");
        assert!(
            p.commands
                .iter()
                .all(|c| !c.id_name().starts_with("alias-"))
        );
    }

    #[test]
    fn legacy_config_name_and_malformed_config() {
        let fs = MemFs::new()
            .file("/w/Cargo.toml", APP)
            .file("/w/.cargo/config", "[alias]\nt = \"test\"\n");
        assert_eq!(
            get(&parse_in(parse, &fs, "/w/Cargo.toml"), "t").command,
            "cargo t"
        );
        let fs = MemFs::new()
            .file("/w/Cargo.toml", APP)
            .file("/w/.cargo/config.toml", "[alias\nt = 1");
        let p = parse_in(parse, &fs, "/w/Cargo.toml");
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].file, Path::new("/w/.cargo/config.toml"));
        assert!(p.warnings[0].message.starts_with("invalid TOML"));
        assert_eq!(p.commands.len(), 7);
    }

    #[test]
    fn malformed_manifests() {
        let p = parse_with(
            parse,
            "/w/Cargo.toml",
            "[package]\nname = \"x\nversion = 1\n",
        );
        assert!(p.commands.is_empty());
        assert!(p.warnings[0].message.starts_with("invalid TOML"));
        assert_eq!(p.warnings[0].line, Some(2));

        let p = parse_with(parse, "/w/Cargo.toml", "[package]\nversion = \"1.0.0\"\n");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings[0].message, "`[package]` has no `name`");
        assert_eq!(p.warnings[0].line, Some(1));

        let p = parse_with(parse, "/w/Cargo.toml", "package = \"x\"\nworkspace = 1\n");
        assert!(p.commands.is_empty());
        let msgs: Vec<_> = p.warnings.iter().map(|w| w.message.as_str()).collect();
        assert_eq!(
            msgs,
            ["`workspace` is not a table", "`package` is not a table"]
        );

        let p = parse_with(
            parse,
            "/w/Cargo.toml",
            "[package]\nname = \"x\"\nbin = 3\nexample = [1, \"a\", {path = \"p\"}]\n",
        );
        assert_eq!(p.commands.len(), 7);

        let p = parse_with(parse, "/w/Cargo.toml", "\u{1}\u{FFFD}[[[[\u{7f}");
        assert_eq!(p.warnings.len(), 1);

        // Neither package nor workspace (a fixture or template): nothing, quietly.
        let p = parse_with(parse, "/w/Cargo.toml", "[dependencies]\nserde = \"1\"\n");
        assert!(p.commands.is_empty() && p.warnings.is_empty());
    }

    #[test]
    fn hostile_member_globs_do_not_panic() {
        let fs = MemFs::new()
            .file(
                "/w/Cargo.toml",
                "[workspace]\nmembers = [\"[\", \"**/{\", 3, \"\"]\nexclude = [\"\", \"{a\"]\n",
            )
            .file("/w/x/Cargo.toml", "[package]\nname = \"x\"\n");
        assert_eq!(
            get(&parse_in(parse, &fs, "/w/x/Cargo.toml"), "build").command,
            "cargo build"
        );
    }
}
