//! The sources take the lines of keys from the tree `syntax` parsed (JSON/JSONC, TOML, YAML),
//! never by scanning the text for a key: a scanner beside a parser disagrees with it on
//! quoting, flow style, comments and multi-line strings. This test fails when one comes back:
//! a helper by a name the removed scanners had, or a line-by-line walk of the text in a source
//! of these formats.

use std::path::Path;

/// Names of the scanners the syntax layer replaced.
const SCANNER_NAMES: &[&str] = &[
    "fn key_line",
    "fn key_lines",
    "fn top_key_line",
    "fn section_key_lines",
    "fn yaml_section_lines",
    "fn yaml_key(",
    "fn service_line",
    "fn service_section_line",
    "fn json_key_lines",
    "fn first_lines",
    "fn toml_key_line",
    "TomlLines",
    "fn array_table_name_lines",
    "fn sort_in_file_order",
];

/// Sources that read JSON, TOML or YAML. Their text is parsed; walking its lines can only be a
/// second, hand-written reading of the format. (mise reads TOML and YAML configs too, but its
/// file tasks are scripts whose `#MISE` comment lines are read line by line: only the scanner
/// names are checked there.)
const STRUCTURED: &[&str] = &[
    "cargo.rs",
    "composer.rs",
    "deno.rs",
    "docker.rs",
    "launch.rs",
    "npm.rs",
    "nx.rs",
    "pyproject.rs",
    "taskfile.rs",
    "turbo.rs",
    "vscode.rs",
    "workflow.rs",
];

/// Ways to find a key's line by hand: walking the lines with their numbers, locating a line,
/// searching the text for a quoted key.
const LINE_WALKS: &[&str] = &[
    ".lines().enumerate()",
    ".lines().position(",
    "content.find(",
    "content\n        .find(",
];

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of a source file without its `#[cfg(test)]` module (tests may build inputs line by
/// line).
fn without_tests(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or(text)
}

#[test]
fn no_hand_written_key_line_scanner_in_the_sources() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("text.rs")];
    for entry in std::fs::read_dir(src.join("sources")).unwrap() {
        files.push(entry.unwrap().path());
    }
    files.sort();
    let mut found = Vec::new();
    for path in &files {
        let text = read(path);
        let code = without_tests(&text);
        let name = path.file_name().unwrap().to_string_lossy();
        for pattern in SCANNER_NAMES {
            if code.contains(pattern) {
                found.push(format!("{name}: `{pattern}`"));
            }
        }
        if STRUCTURED.contains(&&*name) {
            for pattern in LINE_WALKS {
                if code.contains(pattern) {
                    found.push(format!("{name}: `{}`", pattern.replace('\n', " ")));
                }
            }
        }
    }
    assert!(
        files.len() > 20,
        "the sources folder was not found: {files:?}"
    );
    assert!(
        found.is_empty(),
        "key lines must come from `syntax`'s trees, not from scanning the text:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_scanner() {
    let scanner = "fn key_line(content: &str, key: &str) -> Option<usize> {\n    content\n        .find(&format!(\"\\\"{key}\\\"\"))\n}\n#[cfg(test)]\nmod tests {}\n";
    let code = without_tests(scanner);
    assert!(SCANNER_NAMES.iter().any(|p| code.contains(p)));
    assert!(LINE_WALKS.iter().any(|p| code.contains(p)));
    assert!(!without_tests("#[cfg(test)]\nfn key_line() {}").contains("fn key_line"));
}
