//! Nothing a repository commits can steer a write of the built `ct`: a symbolic link planted at
//! a file it writes (or at the temporary name it once used beside it), a linked folder on the
//! way, or a FIFO where a file should be is refused with a clear error, the file outside the
//! workspace is left as it was, and no write waits on a FIFO.
#![cfg(unix)]

use crate::support::{Run, Workspace};
use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A workspace with one definition `ct export` turns into `.claude/commands/review-pr.md`, and
/// a folder beside it (outside the workspace) holding the file an attacker aims at.
fn repo() -> (Workspace, Workspace) {
    let w = Workspace::new().file(
        ".github/commands/review-pr.command.md",
        "---\nname: review-pr\ndescription: Review a pull request\n---\nReview PR $1.\n",
    );
    let outside = Workspace::new().file("authorized_keys", "ssh-ed25519 AAAA the-owner\n");
    (w, outside)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

fn mkfifo(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let st = Command::new("mkfifo")
        .arg(p)
        .status()
        .expect("mkfifo (coreutils)");
    assert!(st.success(), "mkfifo {}", p.display());
}

fn is_fifo(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_fifo())
}

/// `ct ARGS`, killed after 30 s: a write that waits on a FIFO fails the test instead of
/// hanging it.
#[track_caller]
fn ct_within(w: &Workspace, args: &[&str]) -> Run {
    w.ct()
        .args(args)
        .run_within(Duration::from_secs(30))
        .unwrap_or_else(|| panic!("`ct {}` waited on a FIFO", args.join(" ")))
}

/// What `ct` said, stdout and stderr together.
fn said(o: &Run) -> String {
    o.stdout() + &o.stderr()
}

#[test]
fn export_never_writes_through_the_temporary_name_a_repository_commits() {
    let (w, outside) = repo();
    let victim = outside.join("authorized_keys");
    // The fixed name the export once wrote first, next to the target.
    let w = w.dir(".claude/commands");
    symlink(&victim, w.join(".claude/commands/review-pr.ct-export.tmp")).unwrap();
    w.run(["export", "claude-code", "--write"]).success();
    assert_eq!(read(&victim), "ssh-ed25519 AAAA the-owner\n");
    let written = w.join(".claude/commands/review-pr.md");
    assert!(!is_link(&written), "the export is a file of its own");
    assert!(read(&written).contains("Review PR"), "{}", read(&written));
    // The planted link is left alone, and no temporary file is left behind.
    assert!(is_link(&w.join(".claude/commands/review-pr.ct-export.tmp")));
    let names: Vec<String> = std::fs::read_dir(w.join(".claude/commands"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".ct-")),
        "a temporary file was left behind: {names:?}"
    );
}

#[test]
fn export_refuses_a_target_that_is_a_link_or_a_fifo_or_behind_a_linked_folder() {
    let (w, outside) = repo();
    let victim = outside.join("authorized_keys");
    let w = w.dir(".claude/commands");
    symlink(&victim, w.join(".claude/commands/review-pr.md")).unwrap();
    let o = w
        .run(["export", "claude-code", "--write", "--force"])
        .code(1);
    let text = said(&o);
    assert!(
        text.contains("review-pr.md") && text.contains("is a symbolic link"),
        "{text}"
    );
    assert_eq!(read(&victim), "ssh-ed25519 AAAA the-owner\n");
    assert!(is_link(&w.join(".claude/commands/review-pr.md")));

    std::fs::remove_file(w.join(".claude/commands/review-pr.md")).unwrap();
    mkfifo(&w.join(".claude/commands/review-pr.md"));
    let o = ct_within(&w, &["export", "claude-code", "--write", "--force"]).code(1);
    assert!(said(&o).contains("FIFO"), "{}", said(&o));
    assert!(is_fifo(&w.join(".claude/commands/review-pr.md")));

    // A committed `.claude -> elsewhere` is not written through either.
    let (w2, _) = repo();
    symlink(&*outside, w2.join(".claude")).unwrap();
    let o = w2.run(["export", "claude-code", "--write"]).code(1);
    assert!(
        !outside.join("commands").exists(),
        "nothing written outside"
    );
    assert!(said(&o).contains("is a symbolic link"), "{}", o.stdout());
}

/// A client configuration the user keeps outside the workspace, which a committed link aims at.
fn client_config(outside: &Workspace) -> PathBuf {
    outside.write(
        "client.json",
        "{\n  \"mcpServers\": {\n    \"mine\": { \"command\": \"mine\" }\n  }\n}\n",
    )
}

#[test]
fn mcp_install_write_refuses_a_linked_client_config() {
    let (w, outside) = repo();
    let victim = client_config(&outside);
    let before = read(&victim);
    symlink(&victim, w.join(".mcp.json")).unwrap();
    w.run(["mcp", "install", "claude", "--write"])
        .failure()
        .stderr_has(".mcp.json")
        .stderr_has("is a symbolic link");
    assert_eq!(read(&victim), before);
    assert!(is_link(&w.join(".mcp.json")));

    // `.vscode -> elsewhere`: the folder on the way is a link.
    symlink(&*outside, w.join(".vscode")).unwrap();
    w.run(["mcp", "install", "vscode", "--write"])
        .failure()
        .stderr_has("is a symbolic link");
    assert!(
        !outside.join("mcp.json").exists(),
        "nothing written outside"
    );
}

#[test]
fn mcp_install_write_fails_at_once_on_a_fifo() {
    let (w, _) = repo();
    mkfifo(&w.join(".mcp.json"));
    ct_within(&w, &["mcp", "install", "claude", "--write"])
        .failure()
        .stderr_has(".mcp.json")
        .stderr_has("FIFO");
    assert!(is_fifo(&w.join(".mcp.json")));
}

#[test]
fn tags_are_never_written_through_a_linked_commandtree_folder_or_database() {
    let (w, outside) = repo();
    let w = w.file("Makefile", "build:\n\techo hi\n");
    symlink(&*outside, w.join(".commandtree")).unwrap();
    w.run(["tag", "add", "build", "x"])
        .failure()
        .stderr_has("is a symbolic link");
    let mut names: Vec<_> = std::fs::read_dir(&*outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [".home", "authorized_keys"],
        "nothing written outside"
    );

    std::fs::remove_file(w.join(".commandtree")).unwrap();
    std::fs::create_dir(w.join(".commandtree")).unwrap();
    symlink(outside.join("db"), w.db()).unwrap();
    w.run(["tag", "add", "build", "x"])
        .failure()
        .stderr_has("is a symbolic link");
    assert!(!outside.join("db").exists());
}
