//! Workspace trust in discovery: a cloned repository must not make discovery read files outside
//! it, nor hang it with a FIFO named like a task file.

#![cfg(unix)]

use commandtree_core::{Options, Settings, discover};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ct-trust-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::canonicalize(&d).unwrap()
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
    let base = tmp("outside");
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
    let root = tmp("fifo");
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
