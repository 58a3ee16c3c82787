//! Paths that are not UTF-8 and names that hold control characters: a workspace under such a
//! folder lists and runs its commands (the real bytes reach the shell and the file system), a
//! file so named gets a readable label, and no human-readable output lets a name forge lines
//! or terminal escapes.
#![cfg(unix)]

use crate::support::{Workspace, eventually};
use serde_json::Value;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

fn list(w: &Workspace) -> Vec<Value> {
    w.json(["list", "--json", "--all"])
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_workspace_under_a_folder_that_is_not_utf8_runs_its_commands() {
    let w = Workspace::under(OsStr::from_bytes(b"caf\xe9 ws"))
        .file("Makefile", "hello:\n\t@echo made > made.txt\n")
        .executable(
            OsStr::from_bytes(b"b\xffd.sh"),
            "#!/bin/sh\n# Say hi\necho ran > ran.txt\n",
        );

    let items = list(&w);
    let shell = items
        .iter()
        .find(|i| i["type"] == "shell")
        .unwrap_or_else(|| panic!("{items:#?}"));
    assert_eq!(shell["label"], "b\u{fffd}d.sh");
    assert_eq!(shell["description"], "Say hi");
    assert!(
        shell["filePath"]
            .as_str()
            .unwrap()
            .ends_with("caf\u{fffd} ws/b\u{fffd}d.sh")
    );

    w.run(["run", "make:hello"]).success();
    assert_eq!(w.read("made.txt"), "made\n");

    w.run(["run", shell["id"].as_str().unwrap()]).success();
    assert_eq!(w.read("ran.txt"), "ran\n");

    // Detached: the supervisor's wrapper goes to the same folder, byte for byte.
    std::fs::remove_file(w.join("made.txt")).unwrap();
    let id = w.run(["run", "--detach", "make:hello"]).success().run_id();
    assert!(
        eventually(|| w.run_row(id)["exitCode"] == 0),
        "{:#?}",
        w.run_row(id)
    );
    assert_eq!(w.read("made.txt"), "made\n");
}

#[test]
fn control_characters_in_names_are_escaped_in_every_text_output() {
    let name = "evil\u{1b}[2J\nfake.sh";
    let w = Workspace::new().executable(name, "#!/bin/sh\n# Line one\u{1b}[31m red\necho ok\n");
    let items = list(&w);
    let id = items[0]["id"].as_str().unwrap().to_string();
    // JSON keeps the real text (escaped by JSON itself).
    assert_eq!(items[0]["label"], name);
    for args in [
        vec!["list"],
        vec!["show", &id],
        vec!["run", &id],
        vec!["runs"],
        vec!["show", "evil\u{1b}[2J\nnothing"],
    ] {
        w.run(&args)
            .stdout_lacks("\u{1b}")
            .stdout_lacks("\nfake.sh")
            .stderr_lacks("\u{1b}")
            .stderr_lacks("\nfake.sh");
    }
}
