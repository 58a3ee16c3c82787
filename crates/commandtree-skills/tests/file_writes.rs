//! The `@file` skill's writes on a real workspace: a symbolic link or a FIFO where the file
//! should be, a link planted at the temporary name the skill once used, or a linked folder on
//! the way is refused (or left alone) and never written through, and nothing waits on a FIFO.
#![cfg(unix)]

use commandtree_engine::{CancelToken, Engine};
use commandtree_skills::invocation;
use commandtree_skills::{Error, Host, Registry, RequestOptions, SkillApi, SkillMessage};
use commandtree_skills::{SkillResponse, SkillRole};
use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file skill never talks to a model.
struct NoApi;

impl SkillApi for NoApi {
    fn active_context(&self) -> commandtree_skills::Result<Vec<SkillMessage>> {
        Ok(Vec::new())
    }
    fn send_request(
        &self,
        _: Vec<SkillMessage>,
        _: &RequestOptions,
    ) -> commandtree_skills::Result<SkillResponse> {
        unreachable!("the file skill sent a request ({:?})", SkillRole::User)
    }
}

/// A fresh folder by its real path, removed when the returned guard is dropped.
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("ct-file-writes-{name}-"))
        .tempdir()
        .unwrap();
    let real = std::fs::canonicalize(dir.path()).unwrap();
    (dir, real)
}

fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

/// `@file --action write --path PATH --content new --yes` in `root`, on a thread of its own so
/// a write that waits on a FIFO fails the test instead of hanging it.
fn write_file(root: &Path, path: &str) -> Result<String, String> {
    let root = root.to_path_buf();
    let text = format!("@file --action write --path '{path}' --content new --yes");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let engine = Engine::open(Some(&root), &root).unwrap();
        let host = Host {
            engine: &engine,
            cancel: CancelToken::new(),
            yes: false,
            ask: None,
            live: None,
        };
        let r = Registry::builtin()
            .invoke(&invocation::parse(&text).unwrap(), &NoApi, &host)
            .map_err(|e: Error| e.to_string());
        let _ = tx.send(r);
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the file skill waited on a FIFO")
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

#[test]
fn a_link_at_the_target_is_refused_not_replaced_or_followed() {
    let (_scratch, root) = scratch("link");
    let aimed = write(&root, "keep/real.txt", "mine");
    symlink(&aimed, root.join("notes.txt")).unwrap();
    let e = write_file(&root, "notes.txt").unwrap_err();
    assert!(
        e.contains("notes.txt") && e.contains("is a symbolic link"),
        "{e}"
    );
    assert!(
        is_link(&root.join("notes.txt")),
        "the link is left as it was"
    );
    assert_eq!(std::fs::read_to_string(&aimed).unwrap(), "mine");
}

#[test]
fn a_fifo_at_the_target_is_refused_at_once() {
    let (_scratch, root) = scratch("fifo");
    let fifo = root.join("pipe.txt");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo (coreutils)");
    assert!(st.success());
    let e = write_file(&root, "pipe.txt").unwrap_err();
    assert!(e.contains("pipe.txt") && e.contains("FIFO"), "{e}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the FIFO is left as it was"
    );
}

#[test]
fn a_link_planted_at_the_old_temporary_name_is_never_written_through() {
    let (_scratch, root) = scratch("tmp");
    let (_outside, outside) = scratch("tmp-outside");
    let victim = write(&outside, "authorized_keys", "the owner's key\n");
    // The name the skill used to write first: guessable from the process id.
    let planted = root.join(format!(".notes.txt.ct-{}.tmp", std::process::id()));
    symlink(&victim, &planted).unwrap();
    write(&root, "notes.txt", "old");
    assert_eq!(
        write_file(&root, "notes.txt").unwrap(),
        "Wrote 3 bytes to notes.txt"
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "the owner's key\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "new"
    );
    assert!(!is_link(&root.join("notes.txt")));
    assert!(is_link(&planted), "the planted link is left alone");
    let left: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") && !n.starts_with(".notes.txt.ct-"))
        .collect();
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
}

#[test]
fn a_linked_folder_inside_the_workspace_is_not_written_through() {
    let (_scratch, root) = scratch("folder");
    write(&root, "real/keep.txt", "mine");
    symlink(root.join("real"), root.join("alias")).unwrap();
    let e = write_file(&root, "alias/new.txt").unwrap_err();
    assert!(
        e.contains("alias") && e.contains("is a symbolic link"),
        "{e}"
    );
    assert!(!root.join("real/new.txt").exists());
}
