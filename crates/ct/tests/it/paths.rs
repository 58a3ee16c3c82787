//! Paths that are not UTF-8 and names that hold control characters: a workspace under such a
//! folder lists and runs its commands (the real bytes reach the shell and the file system), a
//! file so named gets a readable label, and no human-readable output lets a name forge lines
//! or terminal escapes.
#![cfg(unix)]

use crate::support;

use crate::support::*;
use serde_json::Value;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

fn workspace(name: &str) -> PathBuf {
    support::workspace("paths", name)
}

fn list(root: &std::path::Path) -> Vec<Value> {
    json_array(root, &["list", "--json", "--all"])
}

#[test]
fn a_workspace_under_a_folder_that_is_not_utf8_runs_its_commands() {
    let root = workspace("nonutf8").join(OsStr::from_bytes(b"caf\xe9 ws"));
    std::fs::create_dir_all(root.join(".home")).unwrap();
    write(&root, "Makefile", "hello:\n\t@echo made > made.txt\n");
    let script = root.join(OsStr::from_bytes(b"b\xffd.sh"));
    std::fs::write(&script, "#!/bin/sh\n# Say hi\necho ran > ran.txt\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    let items = list(&root);
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

    let o = ct(&root, &["run", "make:hello"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(root.join("made.txt")).unwrap(),
        "made\n"
    );

    let o = ct(&root, &["run", shell["id"].as_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(root.join("ran.txt")).unwrap(),
        "ran\n"
    );

    // Detached: the supervisor's wrapper goes to the same folder, byte for byte.
    std::fs::remove_file(root.join("made.txt")).unwrap();
    let o = ct(&root, &["run", "--detach", "make:hello"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = run_id(&o);
    assert!(
        eventually(|| run_row(&root, id)["exitCode"] == 0),
        "{:#?}",
        run_row(&root, id)
    );
    assert_eq!(
        std::fs::read_to_string(root.join("made.txt")).unwrap(),
        "made\n"
    );
}

#[test]
fn control_characters_in_names_are_escaped_in_every_text_output() {
    let w = workspace("control");
    let name = "evil\u{1b}[2J\nfake.sh";
    executable(&w, name, "#!/bin/sh\n# Line one\u{1b}[31m red\necho ok\n");
    let items = list(&w);
    let id = items[0]["id"].as_str().unwrap().to_string();
    // JSON keeps the real text (escaped by JSON itself).
    assert_eq!(items[0]["label"], name);
    let clean = |out: &[u8]| {
        let s = String::from_utf8_lossy(out);
        assert!(!s.contains('\u{1b}'), "{s:?}");
        assert!(!s.contains("\nfake.sh"), "{s:?}");
    };
    for args in [
        vec!["list"],
        vec!["show", &id],
        vec!["run", &id],
        vec!["runs"],
        vec!["show", "evil\u{1b}[2J\nnothing"],
    ] {
        let o = ct(&w, &args);
        clean(&o.stdout);
        clean(&o.stderr);
    }
}
