//! ARCHITECTURE.md's crate table says which crate may depend on which; this test holds it to
//! the `Cargo.toml` files, so the map a newcomer reads is the code's.
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
