//! A cloned repository decides what its `.commandtree/` holds. Each test plants one attack on a
//! scratch workspace, runs the built `ct`, and checks that nothing was written where it must
//! not be.

use crate::support;

use crate::support::{ct, stderr};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

struct Ws(PathBuf);

impl Drop for Ws {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// `{tmp}/ct-trust-{name}/repo` with two npm scripts, and `{tmp}/ct-trust-{name}/outside`.
fn workspace(name: &str) -> (Ws, PathBuf, PathBuf) {
    let base = std::env::temp_dir().join(format!("ct-trust-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (repo, outside) = (base.join("repo"), base.join("outside"));
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        repo.join("package.json"),
        r#"{"name": "demo", "scripts": {"build": "echo b", "test": "echo t"}}"#,
    )
    .unwrap();
    let base = std::fs::canonicalize(&base).unwrap();
    (Ws(base.clone()), base.join("repo"), base.join("outside"))
}

/// Every file under `dir` with a digest of its content (folders and links too).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    use std::hash::{Hash, Hasher};
    let digest = |bytes: &[u8]| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        format!("{} bytes, {:016x}", bytes.len(), h.finish())
    };
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                todo.push(p.clone());
                out.insert(p, "folder".to_string());
            } else if m.file_type().is_symlink() {
                out.insert(
                    p.clone(),
                    format!("link to {}", std::fs::read_link(&p).unwrap().display()),
                );
            } else {
                out.insert(p.clone(), digest(&std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

/// A database the extension's older versions made (no `embedding` column): a structure `ct`
/// rebuilds, with a backup, when it opens it for a write.
fn foreign_database(path: &Path) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "CREATE TABLE commands (command_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', security_warning TEXT, last_updated TEXT NOT NULL DEFAULT '');
         CREATE TABLE tags (tag_id TEXT PRIMARY KEY, tag_name TEXT NOT NULL UNIQUE, description TEXT);
         CREATE TABLE command_tags (command_id TEXT NOT NULL, tag_id TEXT NOT NULL, display_order INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (command_id, tag_id), FOREIGN KEY (command_id) REFERENCES commands(command_id) ON DELETE CASCADE, FOREIGN KEY (tag_id) REFERENCES tags(tag_id) ON DELETE CASCADE);
         CREATE TABLE secrets (k TEXT, v TEXT);
         INSERT INTO secrets VALUES ('aws', 'AKIA-not-for-the-repo');",
    )
    .unwrap();
}

fn tag_config(repo: &Path) {
    std::fs::create_dir_all(repo.join(".vscode")).unwrap();
    std::fs::write(
        repo.join(".vscode/commandtree.json"),
        r#"{"tags": {"ci": [{"label": "build"}]}}"#,
    )
    .unwrap();
}

#[cfg(unix)]
#[test]
fn a_symlinked_commandtree_folder_is_refused_and_nothing_is_written_through_it() {
    let (_w, repo, outside) = workspace("dirlink");
    foreign_database(&outside.join("commandtree.sqlite3"));
    std::os::unix::fs::symlink(&outside, repo.join(".commandtree")).unwrap();
    // A tag config makes listing want a database too.
    tag_config(&repo);
    let before = snapshot(&outside);
    for args in [
        &["list", "--json"][..],
        &["quick"],
        &["db", "check"],
        &["tag", "add", "build", "deploy"],
        &["star", "test"],
    ] {
        let o = ct(&repo, args);
        let err = stderr(&o);
        assert!(
            err.contains(&format!(
                "{}: is a symbolic link",
                repo.join(".commandtree").display()
            )),
            "ct {args:?}: {err}"
        );
    }
    // Listing still lists.
    assert!(ct(&repo, &["list", "--json"]).status.success());
    assert!(
        !ct(&repo, &["tag", "add", "build", "deploy"])
            .status
            .success()
    );
    assert_eq!(
        snapshot(&outside),
        before,
        "nothing changed or added outside"
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_database_file_is_refused_and_never_rebuilt_or_copied() {
    let (_w, repo, outside) = workspace("filelink");
    let victim = outside.join("victim.sqlite3");
    foreign_database(&victim);
    std::fs::create_dir_all(repo.join(".commandtree")).unwrap();
    let db = repo.join(".commandtree/commandtree.sqlite3");
    std::os::unix::fs::symlink(&victim, &db).unwrap();
    tag_config(&repo);
    let (outside_before, inside_before) =
        (snapshot(&outside), snapshot(&repo.join(".commandtree")));
    for args in [
        &["list"][..],
        &["tag", "add", "build", "x"],
        &["db", "check"],
    ] {
        let err = stderr(&ct(&repo, args));
        assert!(
            err.contains(&format!("{}: is a symbolic link", db.display())),
            "ct {args:?}: {err}"
        );
    }
    assert_eq!(snapshot(&outside), outside_before);
    // In particular no `.bak-…` copy of the victim landed in the repository.
    assert_eq!(snapshot(&repo.join(".commandtree")), inside_before);
}

#[cfg(unix)]
#[test]
fn a_planted_journal_link_is_refused_before_sqlite_writes_through_it() {
    let (_w, repo, outside) = workspace("journal");
    assert!(ct(&repo, &["tag", "add", "build", "ci"]).status.success());
    let victim = outside.join("notes.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    let journal = repo.join(".commandtree/commandtree.sqlite3-journal");
    std::os::unix::fs::symlink(&victim, &journal).unwrap();
    let o = ct(&repo, &["tag", "add", "test", "ci"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(&format!("{}: is a symbolic link", journal.display())),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
}

#[cfg(unix)]
#[test]
fn a_database_hard_linked_to_a_file_outside_is_not_written() {
    let (_w, repo, outside) = workspace("hardlink");
    let victim = outside.join("other.sqlite3");
    foreign_database(&victim);
    std::fs::create_dir_all(repo.join(".commandtree")).unwrap();
    let db = repo.join(".commandtree/commandtree.sqlite3");
    std::fs::hard_link(&victim, &db).unwrap();
    let before = std::fs::read(&victim).unwrap();
    let o = ct(&repo, &["tag", "add", "build", "ci"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("has other hard links"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&victim).unwrap(), before);
}

#[test]
fn listing_and_other_reads_never_change_the_database() {
    let (_w, repo, _outside) = workspace("readonly");
    std::fs::create_dir_all(repo.join(".commandtree")).unwrap();
    let db = repo.join(".commandtree/commandtree.sqlite3");
    foreign_database(&db);
    // And in WAL mode, which a write would convert.
    rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
        .unwrap();
    tag_config(&repo);
    let before = snapshot(&repo.join(".commandtree"));
    for args in [
        &["list"][..],
        &["list", "--json", "--tag", "ci"],
        &["quick"],
        &["tag", "ls"],
        &["db", "check"],
        &["runs"],
        &["doctor"],
    ] {
        ct(&repo, args);
        assert_eq!(
            snapshot(&repo.join(".commandtree")),
            before,
            "ct {args:?} changed the database folder"
        );
    }
    // The tag config still shows in the listing, applied in memory.
    let o = ct(&repo, &["list", "--json", "--tag", "ci"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["label"], "build", "{}", stderr(&o));
}

#[test]
fn creating_the_folder_writes_a_gitignore_for_the_database_logs_and_models() {
    let (_w, repo, _outside) = workspace("gitignore");
    assert!(ct(&repo, &["tag", "add", "build", "ci"]).status.success());
    let ignore = std::fs::read_to_string(repo.join(".commandtree/.gitignore")).unwrap();
    for line in [
        "/commandtree.sqlite3",
        "/commandtree.sqlite3-journal",
        "/commandtree.sqlite3.lock/",
        "/commandtree.sqlite3.bak-*",
        "/logs/",
        "/models/",
    ] {
        assert!(ignore.lines().any(|l| l == line), "{line} in\n{ignore}");
    }
    // A folder the user made is left as it is.
    let (_w2, repo2, _) = workspace("gitignore-own");
    std::fs::create_dir_all(repo2.join(".commandtree")).unwrap();
    assert!(ct(&repo2, &["tag", "add", "build", "ci"]).status.success());
    assert!(!repo2.join(".commandtree/.gitignore").exists());
}

/// A trigger that blanks every security warning the summarizer stores, and a view.
const HIDE_WARNINGS: &str = "
CREATE TRIGGER hide_warning_insert AFTER INSERT ON commands BEGIN
  UPDATE commands SET security_warning = NULL WHERE command_id = new.command_id;
END;
CREATE TRIGGER hide_warning_update AFTER UPDATE OF security_warning ON commands BEGIN
  UPDATE commands SET security_warning = NULL WHERE command_id = new.command_id;
END;
CREATE VIEW innocent AS SELECT command_id FROM commands;
";

#[test]
fn foreign_triggers_and_views_are_reported_ignored_on_reads_and_dropped_on_writes() {
    let (_w, repo, _outside) = workspace("trigger");
    assert!(ct(&repo, &["tag", "add", "build", "ci"]).status.success());
    let db = repo.join(".commandtree/commandtree.sqlite3");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(HIDE_WARNINGS)
        .unwrap();
    // `ct db check` names them and fails.
    let o = ct(&repo, &["db", "check"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("trigger `hide_warning_update`") && out.contains("view `innocent`"),
        "{out}"
    );
    // Listing warns and leaves the file alone.
    let before = std::fs::read(&db).unwrap();
    let o = ct(&repo, &["list"]);
    assert!(stderr(&o).contains("not CommandTree's"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&db).unwrap(), before);
    // The summarizer's write path: the warning it stores is the warning that stays.
    let mut store = commandtree_store::Store::open(&db, false).unwrap().unwrap();
    let id = format!("npm:{}:build", repo.join("package.json").display());
    store
        .save_summary(&id, "h", "Builds it.", Some("Deletes your home folder"))
        .unwrap();
    drop(store);
    let c = rusqlite::Connection::open(&db).unwrap();
    let warning: Option<String> = c
        .query_row(
            "SELECT security_warning FROM commands WHERE command_id = ?1",
            [&id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(warning.as_deref(), Some("Deletes your home folder"));
    let left: i64 = c
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type IN ('trigger', 'view')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
    let v: serde_json::Value =
        serde_json::from_slice(&ct(&repo, &["list", "--json"]).stdout).unwrap();
    let build = v
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == "build")
        .unwrap();
    assert_eq!(build["securityWarning"], "Deletes your home folder");
    let out = String::from_utf8_lossy(&ct(&repo, &["db", "check"]).stdout).into_owned();
    assert!(out.contains("ok    triggers"), "{out}");
}

#[test]
fn a_view_standing_in_for_a_table_is_not_read() {
    let (_w, repo, _outside) = workspace("view");
    std::fs::create_dir_all(repo.join(".commandtree")).unwrap();
    let db = repo.join(".commandtree/commandtree.sqlite3");
    let build = format!("npm:{}:build", repo.join("package.json").display());
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(commandtree_store::schema::SEED_SQL)
        .unwrap();
    // `commands` replaced by a view that forges a summary and hides the stored warning.
    c.execute_batch(&format!(
        "INSERT INTO commands VALUES ('{build}', 'h', 'Wipes the disk.', NULL, 'Deletes everything', 'now');
         ALTER TABLE commands RENAME TO real_commands;
         CREATE VIEW commands AS SELECT command_id, content_hash, 'Totally safe.' AS summary, embedding, NULL AS security_warning, last_updated FROM real_commands;"
    ))
    .unwrap();
    drop(c);
    let before = std::fs::read(&db).unwrap();
    let o = ct(&repo, &["list", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let listed = v
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == "build")
        .unwrap();
    assert!(listed.get("summary").is_none(), "{listed}");
    assert!(stderr(&o).contains("commandtree.sqlite3"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

/// A database as a repository would ship it, with one finished detached run per log path.
fn shipped_history(repo: &Path, log_paths: &[&str]) {
    std::fs::create_dir_all(repo.join(".commandtree")).unwrap();
    let db = repo.join(".commandtree/commandtree.sqlite3");
    drop(commandtree_store::Store::open(&db, true).unwrap().unwrap());
    let c = rusqlite::Connection::open(&db).unwrap();
    for (i, p) in log_paths.iter().enumerate() {
        c.execute(
            "INSERT INTO run_history (run_id, command_id, label, command_line, cwd, started_at, exit_code, mode, status, log_path)
             VALUES (?1, 'npm:x:build', 'build', 'npm run build', '.', '2026-01-01T00:00:00.000Z', 0, 'detached', 'ok', ?2)",
            rusqlite::params![i as i64 + 1, p],
        )
        .unwrap();
    }
}

#[cfg(unix)]
#[test]
fn ct_logs_reads_only_the_workspaces_own_log_folder() {
    use std::os::unix::fs::symlink;
    let (_ws, repo, outside) = workspace("log-paths");
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, "PRIVATE KEY MATERIAL\n").unwrap();
    std::fs::create_dir_all(repo.join(".commandtree/logs")).unwrap();
    std::fs::write(repo.join(".commandtree/logs/ok.log"), "the run's output\n").unwrap();
    symlink(&secret, repo.join(".commandtree/logs/link.log")).unwrap();
    symlink(&outside, repo.join(".commandtree/logs/sub")).unwrap();
    let fifo = repo.join(".commandtree/logs/fifo.log");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let secret_s = secret.to_str().unwrap().to_string();
    shipped_history(
        &repo,
        &[
            &secret_s,
            "../outside/secret.txt",
            ".commandtree/logs/link.log",
            ".commandtree/logs/sub/secret.txt",
            ".commandtree/logs/../../../outside/secret.txt",
            ".commandtree/logs/fifo.log",
            ".commandtree/logs/ok.log",
        ],
    );
    for run in 1..=6 {
        let o = ct(&repo, &["logs", &run.to_string()]);
        assert_eq!(o.status.code(), Some(1), "run {run}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "run {run}: {}", support::stdout(&o));
        assert!(
            ["only logs in", "not a regular file", "is a symbolic link"]
                .iter()
                .any(|w| stderr(&o).contains(w)),
            "run {run}: {}",
            stderr(&o)
        );
    }
    let o = ct(&repo, &["logs", "7"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(support::stdout(&o), "the run's output\n");

    // The log folder itself a link out of the workspace: nothing in it is read.
    std::fs::remove_dir_all(repo.join(".commandtree/logs")).unwrap();
    std::fs::write(outside.join("ok.log"), "PRIVATE\n").unwrap();
    symlink(&outside, repo.join(".commandtree/logs")).unwrap();
    let o = ct(&repo, &["logs", "7"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("not a real folder"), "{}", stderr(&o));
}
