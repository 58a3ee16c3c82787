//! Nothing a repository commits can steer a write of the built `ct`: a symbolic link planted at
//! a file it writes (or at the temporary name it once used beside it), a linked folder on the
//! way, or a FIFO where a file should be is refused with a clear error, the file outside the
//! workspace is left as it was, and no write waits on a FIFO.
#![cfg(unix)]

use crate::support::{command, ct, stderr, stdout, workspace, write};
use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A workspace with one definition `ct export` turns into `.claude/commands/review-pr.md`, and
/// a folder beside it (outside the workspace) holding the file an attacker aims at.
fn repo(name: &str) -> (PathBuf, PathBuf) {
    let w = workspace("safe-writes", name);
    write(
        &w,
        ".github/commands/review-pr.command.md",
        "---\nname: review-pr\ndescription: Review a pull request\n---\nReview PR $1.\n",
    );
    let outside = workspace("safe-writes-outside", name);
    write(&outside, "authorized_keys", "ssh-ed25519 AAAA the-owner\n");
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

/// `ct --root W ARGS`, killed after `limit`: a write that waits on a FIFO fails the test
/// instead of hanging it. `None` when it had to be killed.
fn ct_within(w: &Path, args: &[&str], limit: Duration) -> Option<Output> {
    let mut c = command(Some(w), &w.join(".home"));
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().expect("run ct");
    let until = Instant::now() + limit;
    loop {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn export_never_writes_through_the_temporary_name_a_repository_commits() {
    let (w, outside) = repo("export-tmp");
    let victim = outside.join("authorized_keys");
    // The fixed name the export once wrote first, next to the target.
    std::fs::create_dir_all(w.join(".claude/commands")).unwrap();
    symlink(&victim, w.join(".claude/commands/review-pr.ct-export.tmp")).unwrap();
    let o = ct(&w, &["export", "claude-code", "--write"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
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
    let (w, outside) = repo("export-target");
    let victim = outside.join("authorized_keys");
    std::fs::create_dir_all(w.join(".claude/commands")).unwrap();
    symlink(&victim, w.join(".claude/commands/review-pr.md")).unwrap();
    let o = ct(&w, &["export", "claude-code", "--write", "--force"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let said = stdout(&o) + &stderr(&o);
    assert!(
        said.contains("review-pr.md") && said.contains("is a symbolic link"),
        "{said}"
    );
    assert_eq!(read(&victim), "ssh-ed25519 AAAA the-owner\n");
    assert!(is_link(&w.join(".claude/commands/review-pr.md")));

    std::fs::remove_file(w.join(".claude/commands/review-pr.md")).unwrap();
    mkfifo(&w.join(".claude/commands/review-pr.md"));
    let o = ct_within(
        &w,
        &["export", "claude-code", "--write", "--force"],
        Duration::from_secs(30),
    )
    .expect("`ct export` waited on a FIFO");
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let said = stdout(&o) + &stderr(&o);
    assert!(said.contains("FIFO"), "{said}");
    assert!(is_fifo(&w.join(".claude/commands/review-pr.md")));

    // A committed `.claude -> elsewhere` is not written through either.
    let w2 = repo("export-folder").0;
    symlink(&outside, w2.join(".claude")).unwrap();
    let o = ct(&w2, &["export", "claude-code", "--write"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    assert!(
        !outside.join("commands").exists(),
        "nothing written outside"
    );
    assert!(
        (stdout(&o) + &stderr(&o)).contains("is a symbolic link"),
        "{}",
        stdout(&o)
    );
}

/// A client configuration the user keeps outside the workspace, which a committed link aims at.
fn client_config(outside: &Path) -> PathBuf {
    write(
        outside,
        "client.json",
        "{\n  \"mcpServers\": {\n    \"mine\": { \"command\": \"mine\" }\n  }\n}\n",
    )
}

#[test]
fn mcp_install_write_refuses_a_linked_client_config() {
    let (w, outside) = repo("mcp-link");
    let victim = client_config(&outside);
    let before = read(&victim);
    symlink(&victim, w.join(".mcp.json")).unwrap();
    let o = ct(&w, &["mcp", "install", "claude", "--write"]);
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(".mcp.json") && stderr(&o).contains("is a symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(read(&victim), before);
    assert!(is_link(&w.join(".mcp.json")));

    // `.vscode -> elsewhere`: the folder on the way is a link.
    symlink(&outside, w.join(".vscode")).unwrap();
    let o = ct(&w, &["mcp", "install", "vscode", "--write"]);
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(stderr(&o).contains("is a symbolic link"), "{}", stderr(&o));
    assert!(
        !outside.join("mcp.json").exists(),
        "nothing written outside"
    );
}

#[test]
fn mcp_install_write_fails_at_once_on_a_fifo() {
    let (w, _) = repo("mcp-fifo");
    mkfifo(&w.join(".mcp.json"));
    let o = ct_within(
        &w,
        &["mcp", "install", "claude", "--write"],
        Duration::from_secs(30),
    )
    .expect("`ct mcp install --write` waited on a FIFO");
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains(".mcp.json") && stderr(&o).contains("FIFO"),
        "{}",
        stderr(&o)
    );
    assert!(is_fifo(&w.join(".mcp.json")));
}

#[test]
fn tags_are_never_written_through_a_linked_commandtree_folder_or_database() {
    let (w, outside) = repo("tag");
    write(&w, "Makefile", "build:\n\techo hi\n");
    symlink(&outside, w.join(".commandtree")).unwrap();
    let o = ct(&w, &["tag", "add", "build", "x"]);
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(stderr(&o).contains("is a symbolic link"), "{}", stderr(&o));
    let mut names: Vec<_> = std::fs::read_dir(&outside)
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
    symlink(
        outside.join("db"),
        w.join(".commandtree/commandtree.sqlite3"),
    )
    .unwrap();
    let o = ct(&w, &["tag", "add", "build", "x"]);
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(stderr(&o).contains("is a symbolic link"), "{}", stderr(&o));
    assert!(!outside.join("db").exists());
}
