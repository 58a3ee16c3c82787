//! `docs/lsp-protocol.md` against the code: every `commandtree/*` method the server answers,
//! sends or reads is documented under its section, and nothing documented is missing from the
//! code. A method added on one side only fails here.

use std::collections::BTreeSet;
use std::path::Path;

const DOC: &str = include_str!("../../../docs/lsp-protocol.md");

/// The `commandtree/*` names in the `### ` headings (or `- ` items) of the `## ` section titled
/// `title`.
fn documented(title: &str, items: bool) -> BTreeSet<String> {
    let mut inside = false;
    let mut out = BTreeSet::new();
    for line in DOC.lines() {
        if let Some(t) = line.strip_prefix("## ") {
            inside = t.trim() == title;
            continue;
        }
        let read = if items {
            line.starts_with("- ")
        } else {
            line.starts_with("### ")
        };
        if inside && read {
            out.extend(methods_in(line));
        }
    }
    out
}

/// Every `commandtree/name` in `text`.
fn methods_in(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("commandtree/") {
        let tail = &rest[at + "commandtree/".len()..];
        let name: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if !name.is_empty() {
            out.insert(format!("commandtree/{name}"));
        }
        rest = &tail[name.len()..];
    }
    out
}

/// The `commandtree/*` string literals of the lines of the crate's sources that `pick` accepts.
fn in_sources(pick: impl Fn(&str) -> bool) -> BTreeSet<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "rs") || path.ends_with("protocol_doc.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().filter(|l| pick(l)) {
            out.extend(methods_in(line));
        }
    }
    out
}

#[track_caller]
fn same(section: &str, doc: BTreeSet<String>, code: BTreeSet<String>) {
    let only_doc: Vec<&String> = doc.difference(&code).collect();
    let only_code: Vec<&String> = code.difference(&doc).collect();
    assert!(
        only_doc.is_empty() && only_code.is_empty(),
        "docs/lsp-protocol.md \"{section}\" and the code disagree: documented only {only_doc:?}, \
         in the code only {only_code:?}"
    );
}

#[test]
fn every_request_the_server_answers_is_documented_and_the_reverse() {
    let code: BTreeSet<String> = crate::handlers::METHODS
        .iter()
        .map(|(m, _)| m.to_string())
        .collect();
    same("Requests", documented("Requests", false), code);
}

#[test]
fn every_request_and_notification_the_server_sends_is_documented_and_the_reverse() {
    same(
        "Requests from the server",
        documented("Requests from the server", false),
        [crate::editor_lm::LANGUAGE_MODEL_REQUEST.to_string()].into(),
    );
    same(
        "Notifications from the server",
        documented("Notifications from the server", false),
        in_sources(|l| l.contains("notify(\"commandtree/")),
    );
}

#[test]
fn every_client_notification_the_server_reads_is_documented_and_the_reverse() {
    // The notification handler's arms: `"commandtree/x" => {`.
    same(
        "Client notifications the server reads",
        documented("Client notifications the server reads", true),
        in_sources(|l| l.trim_start().starts_with("\"commandtree/") && l.contains("=> {")),
    );
}

#[test]
fn the_method_reader_finds_names_in_text() {
    let found = methods_in("### `commandtree/context`, `commandtree/addContext`, x/y");
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["commandtree/addContext", "commandtree/context"]
    );
}
