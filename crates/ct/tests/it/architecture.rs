//! The maps a newcomer reads, held to the code: ARCHITECTURE.md's crate table to the
//! `Cargo.toml` files, the layout of these tests (one test crate) to what Cargo builds, the
//! tests SECURITY.md names to the test functions there are, and the README's list of ignored
//! tests to the `#[ignore]`s there are.
//!
//! ARCHITECTURE.md's crate table says which crate may depend on which.
//!
//! The rule for the "depends on" column: notes in parentheses are dropped, items are separated
//! by `,` or `+`, and the first word of an item is a dependency: a workspace crate by its short
//! name (`core` for `commandtree-core`), anything else by its crate name. Every workspace-crate
//! edge must be listed and every listed one must exist; every third-party crate a crate depends
//! on must be listed, except `serde` and `serde_json` (nearly every crate has them); a listed
//! third-party crate must exist. Only `[dependencies]` (also per target) count: dev-dependencies
//! are the tests' business.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const UNLISTED: &[&str] = &["serde", "serde_json"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Each crate table row: (path, the dependencies it lists).
fn table() -> Vec<(String, BTreeSet<String>)> {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("| crate | path | room | depends on |") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        if cells.len() < 4 || cells[0].starts_with("---") {
            continue;
        }
        let path = cells[1].trim_matches('`').to_string();
        let mut deps = BTreeSet::new();
        let mut column = String::new();
        let mut depth = 0usize;
        for ch in cells[cells.len() - 1].chars() {
            match ch {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ if depth == 0 => column.push(ch),
                _ => {}
            }
        }
        for item in column.split([',', '+']) {
            if let Some(word) = item.split_whitespace().next() {
                deps.insert(word.to_string());
            }
        }
        rows.push((path, deps));
    }
    assert!(!rows.is_empty(), "no crate table in ARCHITECTURE.md");
    rows
}

/// The `[dependencies]` of a manifest, target-specific ones included.
fn manifest_deps(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let mut out = BTreeSet::new();
    let mut add = |t: Option<&toml::Value>| {
        if let Some(t) = t.and_then(toml::Value::as_table) {
            out.extend(t.keys().cloned());
        }
    };
    add(doc.get("dependencies"));
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for t in targets.values() {
            add(t.get("dependencies"));
        }
    }
    out
}

#[test]
fn the_crate_table_lists_every_dependency_edge_and_no_other() {
    let root = repo();
    // The workspace's members are `crates/*`: every folder there with a manifest.
    let mut members: Vec<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("Cargo.toml").is_file())
        .map(|e| format!("crates/{}", e.file_name().to_string_lossy()))
        .collect();
    members.sort();
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(
        workspace.contains(r#"members = ["crates/*"]"#),
        "the workspace's members changed; teach this test where they are"
    );
    // Package name -> short name used in the table.
    let mut short = BTreeMap::new();
    for m in &members {
        let doc: toml::Table =
            toml::from_str(&std::fs::read_to_string(root.join(m).join("Cargo.toml")).unwrap())
                .unwrap();
        let name = doc["package"]["name"].as_str().unwrap().to_string();
        let s = name
            .strip_prefix("commandtree-")
            .unwrap_or(&name)
            .to_string();
        short.insert(name, s);
    }
    let table = table();
    let mut problems = Vec::new();
    for m in &members {
        let Some((_, listed)) = table.iter().find(|(p, _)| p == m) else {
            problems.push(format!("{m}: no row in ARCHITECTURE.md's crate table"));
            continue;
        };
        let actual: BTreeSet<String> = manifest_deps(&root.join(m).join("Cargo.toml"))
            .into_iter()
            .map(|d| short.get(&d).cloned().unwrap_or(d))
            .collect();
        for d in &actual {
            if !listed.contains(d) && !UNLISTED.contains(&d.as_str()) {
                problems.push(format!("{m} depends on `{d}`, which its row does not list"));
            }
        }
        for d in listed {
            if !actual.contains(d) {
                problems.push(format!(
                    "{m}: its row lists `{d}`, which is not a dependency"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's crate table and the Cargo.toml files disagree; update the \
         table's \"depends on\" column (or the dependency):\n  {}",
        problems.join("\n  ")
    );
}

/// The `mod NAME;` lines of a module file.
fn declared_modules(file: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let l = l.trim_start().trim_start_matches("pub ");
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect()
}

/// Cargo makes a test binary of every `tests/*.rs` and `tests/*/main.rs`, and compiles a file of
/// `tests/it/` only when its parent module declares it: a test written beside the crate (or
/// left undeclared) would be built on its own again, or never run at all.
#[test]
fn the_binarys_integration_tests_are_one_test_crate() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut problems = Vec::new();
    for e in std::fs::read_dir(&tests).unwrap().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.extension().is_some_and(|x| x == "rs") {
            problems.push(format!(
                "tests/{name}: a test binary of its own; make it a module of tests/it/"
            ));
        } else if name != "it" && p.join("main.rs").is_file() {
            problems.push(format!(
                "tests/{name}/main.rs: a test binary of its own; make it a module of tests/it/"
            ));
        }
    }
    for (dir, parent) in [("it", "main.rs"), ("it/support", "mod.rs")] {
        let declared = declared_modules(&tests.join(dir).join(parent));
        for e in std::fs::read_dir(tests.join(dir)).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(module) = name.strip_suffix(".rs") else {
                if e.path().join("mod.rs").is_file() && !declared.contains(&name) {
                    problems.push(format!("tests/{dir}/{name}/ is not declared in {parent}"));
                }
                continue;
            };
            if module != parent.trim_end_matches(".rs") && !declared.contains(module) {
                problems.push(format!(
                    "tests/{dir}/{name} is not declared in {parent}: it never runs"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every test `SECURITY.md` names (`crates/x/tests/y.rs::name`, `ct/tests/it/y.rs::name`, and
/// `::name` for another of the file before) is a function of that file: a test moved or renamed
/// takes its row along.
#[test]
fn security_md_names_tests_that_exist() {
    let root = repo();
    let text = std::fs::read_to_string(root.join("SECURITY.md")).unwrap();
    let mut problems = Vec::new();
    let mut checked = 0;
    for line in text.lines().filter(|l| l.starts_with('|')) {
        let mut file: Option<PathBuf> = None;
        for (i, token) in line.split('`').enumerate() {
            if i % 2 == 0 || !token.contains("::") {
                continue;
            }
            let (path, name) = token.rsplit_once("::").unwrap();
            if !path.is_empty() {
                let path = match path.strip_prefix("ct/") {
                    Some(rest) => format!("crates/ct/{rest}"),
                    None => path.to_string(),
                };
                file = Some(root.join(path));
            }
            let Some(f) = &file else {
                problems.push(format!("`{token}` names no file: {line}"));
                continue;
            };
            let source = std::fs::read_to_string(f).unwrap_or_default();
            if !source.contains(&format!("fn {name}(")) {
                problems.push(format!("{}: no fn {name}", f.display()));
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} tests found in SECURITY.md");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() && e.file_name() != "target" && e.file_name() != "node_modules" {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A test that is not run by default must say why (`#[ignore = "..."]`) and be listed in the
/// README's Testing section, so nobody takes a green run for a run of everything.
#[test]
fn every_ignored_test_gives_its_reason_and_is_listed_in_the_readme() {
    let root = repo();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let testing = readme
        .split_once("### Testing")
        .expect("a Testing section in the README")
        .1;
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    let mut problems = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let l = l.trim();
            if !l.starts_with("#[ignore") {
                continue;
            }
            let name = lines[i + 1..]
                .iter()
                .find_map(|l| {
                    let rest = l.trim().split("fn ").nth(1)?;
                    Some(rest[..rest.find('(')?].to_string())
                })
                .unwrap_or_default();
            let at = format!("{}:{}", f.display(), i + 1);
            if !l.starts_with("#[ignore = \"") {
                problems.push(format!("{at}: `{name}` is ignored without a reason"));
            }
            if !testing.contains(&format!("::{name}`")) {
                problems.push(format!(
                    "{at}: `{name}` is ignored but not listed in the README's Testing section"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
