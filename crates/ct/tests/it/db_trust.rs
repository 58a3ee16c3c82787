//! A cloned repository decides what its `.commandtree/` holds. Each test plants one attack on a
//! scratch workspace, runs the built `ct`, and checks that nothing was written where it must
//! not be.

use crate::support::{Workspace, labelled};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `repo`, a git top level with two npm scripts, and the folder `outside` beside it.
fn workspace() -> (Workspace, PathBuf) {
    let repo = Workspace::under("repo").dir(".git").file(
        "package.json",
        r#"{"name": "demo", "scripts": {"build": "echo b", "test": "echo t"}}"#,
    );
    let outside = repo.outside("outside");
    (repo, outside)
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

/// A tag config, which makes listing want a database too.
fn tag_config(repo: &Workspace) {
    repo.write(
        ".vscode/commandtree.json",
        r#"{"tags": {"ci": [{"label": "build"}]}}"#,
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_commandtree_folder_is_refused_and_nothing_is_written_through_it() {
    let (repo, outside) = workspace();
    foreign_database(&outside.join("commandtree.sqlite3"));
    std::os::unix::fs::symlink(&outside, repo.join(".commandtree")).unwrap();
    tag_config(&repo);
    let before = snapshot(&outside);
    let said = format!(
        "{}: is a symbolic link",
        repo.join(".commandtree").display()
    );
    for args in [
        &["list", "--json"][..],
        &["quick"],
        &["db", "check"],
        &["tag", "add", "build", "deploy"],
        &["star", "test"],
    ] {
        repo.run(args).stderr_has(&said);
    }
    // Listing still lists.
    repo.run(["list", "--json"]).success();
    repo.run(["tag", "add", "build", "deploy"]).failure();
    assert_eq!(
        snapshot(&outside),
        before,
        "nothing changed or added outside"
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_database_file_is_refused_and_never_rebuilt_or_copied() {
    let (repo, outside) = workspace();
    let victim = outside.join("victim.sqlite3");
    foreign_database(&victim);
    let repo = repo.dir(".commandtree");
    let db = repo.db();
    std::os::unix::fs::symlink(&victim, &db).unwrap();
    tag_config(&repo);
    let (outside_before, inside_before) =
        (snapshot(&outside), snapshot(&repo.join(".commandtree")));
    for args in [
        &["list"][..],
        &["tag", "add", "build", "x"],
        &["db", "check"],
    ] {
        repo.run(args)
            .stderr_has(format!("{}: is a symbolic link", db.display()));
    }
    assert_eq!(snapshot(&outside), outside_before);
    // In particular no `.bak-…` copy of the victim landed in the repository.
    assert_eq!(snapshot(&repo.join(".commandtree")), inside_before);
}

#[cfg(unix)]
#[test]
fn a_planted_journal_link_is_refused_before_sqlite_writes_through_it() {
    let (repo, outside) = workspace();
    repo.run(["tag", "add", "build", "ci"]).success();
    let victim = outside.join("notes.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    let journal = repo.join(".commandtree/commandtree.sqlite3-journal");
    std::os::unix::fs::symlink(&victim, &journal).unwrap();
    repo.run(["tag", "add", "test", "ci"])
        .failure()
        .stderr_has(format!("{}: is a symbolic link", journal.display()));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
}

#[cfg(unix)]
#[test]
fn a_database_hard_linked_to_a_file_outside_is_not_written() {
    let (repo, outside) = workspace();
    let victim = outside.join("other.sqlite3");
    foreign_database(&victim);
    let repo = repo.dir(".commandtree");
    std::fs::hard_link(&victim, repo.db()).unwrap();
    let before = std::fs::read(&victim).unwrap();
    repo.run(["tag", "add", "build", "ci"])
        .failure()
        .stderr_has("has other hard links");
    assert_eq!(std::fs::read(&victim).unwrap(), before);
}

#[test]
fn listing_and_other_reads_never_change_the_database() {
    let (repo, _outside) = workspace();
    let repo = repo.dir(".commandtree");
    foreign_database(&repo.db());
    // And in WAL mode, which a write would convert.
    rusqlite::Connection::open(repo.db())
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
        let _ = repo.run(args);
        assert_eq!(
            snapshot(&repo.join(".commandtree")),
            before,
            "ct {args:?} changed the database folder"
        );
    }
    // The tag config still shows in the listing, applied in memory.
    let o = repo.run(["list", "--json", "--tag", "ci"]);
    assert_eq!(o.json()[0]["label"], "build", "{}", o.stderr());
}

#[test]
fn creating_the_folder_writes_a_gitignore_for_the_database_logs_and_models() {
    let (repo, _outside) = workspace();
    repo.run(["tag", "add", "build", "ci"]).success();
    let ignore = repo.read(".commandtree/.gitignore");
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
    let (repo2, _) = workspace();
    let repo2 = repo2.dir(".commandtree");
    repo2.run(["tag", "add", "build", "ci"]).success();
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
    let (repo, _outside) = workspace();
    repo.run(["tag", "add", "build", "ci"]).success();
    let db = repo.db();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(HIDE_WARNINGS)
        .unwrap();
    // `ct db check` names them and fails.
    repo.run(["db", "check"])
        .code(1)
        .stdout_has("trigger `hide_warning_update`")
        .stdout_has("view `innocent`");
    // Listing warns and leaves the file alone.
    let before = std::fs::read(&db).unwrap();
    repo.run(["list"]).stderr_has("not CommandTree's");
    assert_eq!(std::fs::read(&db).unwrap(), before);
    // The summarizer's write path: the warning it stores is the warning that stays.
    let id = repo.id("npm", "package.json", "build");
    repo.store_summary(&id, "h", "Builds it.", Some("Deletes your home folder"));
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
    let v = repo.run(["list", "--json"]).json();
    assert_eq!(
        labelled(&v, "build")["securityWarning"],
        "Deletes your home folder"
    );
    repo.run(["db", "check"]).stdout_has("ok    triggers");
}

#[test]
fn a_view_standing_in_for_a_table_is_not_read() {
    let (repo, _outside) = workspace();
    let repo = repo.dir(".commandtree");
    let db = repo.db();
    let build = repo.id("npm", "package.json", "build");
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
    let o = repo
        .run(["list", "--json"])
        .success()
        .stderr_has("commandtree.sqlite3");
    let v = o.json();
    let listed = labelled(&v, "build");
    assert!(listed.get("summary").is_none(), "{listed}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

/// A database as a repository would ship it, with one finished detached run per log path.
fn shipped_history(repo: &Workspace, log_paths: &[&str]) {
    std::fs::create_dir_all(repo.join(".commandtree")).unwrap();
    drop(
        commandtree_store::Store::open(&repo.db(), true)
            .unwrap()
            .unwrap(),
    );
    let c = rusqlite::Connection::open(repo.db()).unwrap();
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
    let (repo, outside) = workspace();
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, "PRIVATE KEY MATERIAL\n").unwrap();
    repo.write(".commandtree/logs/ok.log", "the run's output\n");
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
        let o = repo.run(["logs", &run.to_string()]).code(1).stdout_is("");
        assert!(
            ["only logs in", "not a regular file", "is a symbolic link"]
                .iter()
                .any(|w| o.stderr().contains(w)),
            "run {run}: {}",
            o.stderr()
        );
    }
    repo.run(["logs", "7"])
        .success()
        .stdout_is("the run's output\n");

    // The log folder itself a link out of the workspace: nothing in it is read.
    std::fs::remove_dir_all(repo.join(".commandtree/logs")).unwrap();
    std::fs::write(outside.join("ok.log"), "PRIVATE\n").unwrap();
    symlink(&outside, repo.join(".commandtree/logs")).unwrap();
    repo.run(["logs", "7"])
        .code(1)
        .stdout_is("")
        .stderr_has("not a real folder");
}
