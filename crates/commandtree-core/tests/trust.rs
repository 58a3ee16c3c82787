//! Workspace trust in discovery: a cloned repository must not make discovery read files outside
//! it, nor hang it with a FIFO named like a task file.

#![cfg(unix)]

use commandtree_core::{Options, Settings, discover};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// A fresh folder by its real path, removed when the returned guard is dropped.
fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::Builder::new()
        .prefix(&format!("ct-trust-{name}-"))
        .tempdir()
        .unwrap();
    let real = std::fs::canonicalize(d.path()).unwrap();
    (d, real)
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn everything(d: &discover::Discovery) -> String {
    format!(
        "{}\n{:?}",
        serde_json::to_string(&d.commands).unwrap(),
        d.warnings
    )
}

/// `docs.md -> ../secret/credentials` (and a Taskfile including it) must be skipped with a
/// warning; the secret's text must appear nowhere.
#[test]
fn links_outside_the_root_are_never_read() {
    let (_scratch, base) = tmp("outside");
    let secret = "aws_secret_access_key = SECRETSECRET";
    write(&base, "home/.aws/credentials", &format!("# {secret}\n"));
    write(
        &base,
        "home/.aws/run.sh",
        &format!("#!/bin/sh\n# {secret}\necho\n"),
    );
    let root = base.join("repo");
    write(&root, "package.json", r#"{"scripts": {"build": "tsc"}}"#);
    std::os::unix::fs::symlink("../home/.aws/credentials", root.join("docs.md")).unwrap();
    std::os::unix::fs::symlink("../home/.aws/run.sh", root.join("deploy.sh")).unwrap();
    std::os::unix::fs::symlink("../home/.aws/credentials", root.join("inc.yml")).unwrap();
    write(
        &root,
        "Taskfile.yml",
        "version: '3'\nincludes:\n  a: ./inc.yml\n  b: ../home/.aws/credentials\ntasks:\n  t:\n    cmds: [echo]\n",
    );
    // A link to a file inside the root is still listed.
    write(&root, "notes/real.md", "# Real\n");
    std::os::unix::fs::symlink("notes/real.md", root.join("alias.md")).unwrap();

    let (settings, _) = Settings::load(&root);
    let d = discover::discover(&root, &settings, &Options::default());
    let all = everything(&d);
    assert!(!all.contains("SECRETSECRET"), "{all}");
    let labels: Vec<&str> = d.commands.iter().map(|c| c.label.as_str()).collect();
    assert!(
        !labels.contains(&"docs.md") && !labels.contains(&"deploy.sh"),
        "{labels:?}"
    );
    assert!(
        labels.contains(&"alias.md") && labels.contains(&"build"),
        "{labels:?}"
    );
    for f in ["docs.md", "deploy.sh"] {
        assert!(
            d.warnings
                .iter()
                .any(|w| w.file == root.join(f) && w.message.contains("outside the workspace")),
            "{f}: {:?}",
            d.warnings
        );
    }
}

fn mkfifo(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

/// FIFOs named like task files and settings files: discovery and settings loading finish (a
/// blocking open would wait forever for a writer) and say what was skipped.
#[test]
fn fifos_never_hang_discovery_or_settings() {
    let (_scratch, root) = tmp("fifo");
    write(&root, "Justfile", "ok:\n    echo ok\n");
    for f in [
        "build.sh",
        "package.json",
        "Makefile",
        ".vscode/tasks.json",
        ".vscode/settings.json",
        ".commandtree/config.toml",
    ] {
        mkfifo(&root.join(f));
    }
    let (tx, rx) = mpsc::channel();
    let r = root.clone();
    std::thread::spawn(move || {
        let (settings, settings_warnings) = Settings::load(&r);
        let d = discover::discover(&r, &settings, &Options::default());
        let _ = tx.send((settings_warnings, d));
    });
    // A deadline to turn a hang into a failure, not a timing assertion.
    let (_, d) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("discovery hung on a FIFO");
    let labels: Vec<&str> = d.commands.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["ok"]);
    for f in ["build.sh", "package.json", "Makefile", ".vscode/tasks.json"] {
        assert!(
            d.warnings
                .iter()
                .any(|w| w.file == root.join(f) && w.message.contains("not a regular file")),
            "{f}: {:?}",
            d.warnings
        );
    }
}

/// A FIFO swapped in after the walker read its folder (the entry still says "regular file"):
/// reading it neither blocks nor lets its bytes be parsed.
#[test]
fn a_fifo_swapped_in_after_the_folder_was_read_never_blocks_and_is_never_parsed() {
    let (_scratch, root) = tmp("fifo-swap");
    let fifo = root.join("Makefile");
    mkfifo(&fifo);
    let (tx, rx) = mpsc::channel();
    let f = fifo.clone();
    std::thread::spawn(move || {
        let mut buf = b"left over".to_vec();
        let opened = commandtree_core::fs::read_into(&f, true, &mut buf);
        let _ = tx.send((opened.map(|o| o.check()), buf));
    });
    // A deadline to turn a hang into a failure, not a timing assertion.
    let (checked, buf) = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("reading a FIFO blocked");
    assert!(buf.is_empty(), "{buf:?}");
    assert_eq!(
        checked.expect("opened without blocking"),
        Err(commandtree_core::fs::ReadError::NotRegular)
    );
}
