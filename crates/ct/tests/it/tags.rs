//! End-to-end: tags, Quick Launch, the tag filter, the tag config and `ct db`, through the built
//! `ct` on a temporary workspace (npm scripts only, so the fixture depends on one parser), and
//! interop with the `sqlite3` command-line tool.

use crate::support::{Workspace, have, labelled, labels};
use std::path::Path;
use std::process::Command;

/// `ct ARGS`: its exit code and stderr.
fn code(w: &Workspace, args: &[&str]) -> (i32, String) {
    let o = w.run(args);
    (o.status().code().unwrap_or(-1), o.stderr())
}

/// A git top level with an npm script (`echo NAME`) for each of `scripts`.
fn workspace(scripts: &[&str]) -> Workspace {
    let w = Workspace::new().dir(".git");
    write_scripts(&w, scripts);
    w
}

fn write_scripts(w: &Workspace, scripts: &[&str]) {
    let body: Vec<String> = scripts
        .iter()
        .map(|s| format!("\"{s}\": \"echo {s}\""))
        .collect();
    w.write(
        "package.json",
        format!(
            "{{\"name\": \"demo\", \"scripts\": {{{}}}}}",
            body.join(", ")
        ),
    );
}

fn id(w: &Workspace, script: &str) -> String {
    w.id("npm", "package.json", script)
}

fn backups(w: &Workspace) -> Vec<String> {
    std::fs::read_dir(w.join(".commandtree"))
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".bak-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn tags_quick_launch_and_the_tag_filter() {
    let w = workspace(&["build", "test", "lint", "deploy"]);
    // Listing works without a database and does not create one.
    let all = w.json(["list", "--json"]);
    assert_eq!(all.as_array().unwrap().len(), 4);
    assert!(
        all.as_array()
            .unwrap()
            .iter()
            .all(|c| c["tags"] == serde_json::json!([]))
    );
    assert!(
        w.json(["list", "--json", "--tag", "ci"])
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(
        !w.join(".commandtree").exists(),
        "listing must not create the database"
    );

    // Tagging creates it; by label, type:label or id; idempotent.
    assert_eq!(
        w.ok(["tag", "add", "build", "ci"]),
        "build (npm): tagged `ci`\n"
    );
    assert!(w.db().exists());
    w.ok(["tag", "add", "npm:test", "ci", "slow"]);
    w.ok(["tag", "add", &id(&w, "deploy"), "prod"]);
    assert_eq!(
        w.ok(["tag", "add", "build", "ci"]),
        "build (npm): already tagged `ci`\n"
    );

    // Several --tag mean all of them.
    assert_eq!(
        labels(&w.json(["list", "--json", "--tag", "ci"])),
        ["build", "test"]
    );
    assert_eq!(
        labels(&w.json(["list", "--json", "--tag", "ci", "--tag", "slow"])),
        ["test"]
    );
    let text = w.ok(["list", "--tag", "ci"]);
    assert!(
        text.contains("build [ci]") && !text.contains("lint"),
        "{text}"
    );

    // show and list carry the tags.
    assert_eq!(
        w.json(["show", "test", "--json"])["tags"],
        serde_json::json!(["ci", "slow"])
    );
    assert_eq!(
        w.json(["tag", "ls", "test", "--json"]),
        serde_json::json!(["ci", "slow"])
    );
    let tags = w.json(["tag", "ls", "--json"]);
    assert_eq!(
        tags,
        serde_json::json!([
            { "name": "ci", "commands": [id(&w, "build"), id(&w, "test")] },
            { "name": "prod", "commands": [id(&w, "deploy")] },
            { "name": "slow", "commands": [id(&w, "test")] },
        ])
    );

    // Quick Launch keeps the starring order; moving rewrites it.
    for s in ["lint", "build", "deploy"] {
        w.ok(["star", s]);
    }
    assert_eq!(
        w.ok(["star", "lint"]),
        "lint (npm): already in Quick Launch\n"
    );
    assert_eq!(
        labels(&w.json(["quick", "--json"])),
        ["lint", "build", "deploy"]
    );
    w.ok(["quick", "move", "deploy", "1"]);
    assert_eq!(
        labels(&w.json(["quick", "--json"])),
        ["deploy", "lint", "build"]
    );
    w.ok(["quick", "move", "deploy", "99"]);
    assert_eq!(
        labels(&w.json(["quick", "--json"])),
        ["lint", "build", "deploy"]
    );
    let text = w.ok(["quick"]);
    assert!(text.starts_with(" 1. lint"), "{text}");
    w.ok(["unstar", "build"]);
    w.ok(["star", "build"]);
    assert_eq!(
        labels(&w.json(["quick", "--json"])),
        ["lint", "deploy", "build"]
    );

    // Removal.
    assert_eq!(
        w.ok(["tag", "rm", "test", "slow"]),
        "test (npm): removed tag `slow`\n"
    );
    assert_eq!(
        w.ok(["tag", "rm", "test", "slow"]),
        "test (npm): had no tag `slow`\n"
    );
    assert_eq!(
        labels(&w.json(["list", "--json", "--tag", "slow"])),
        Vec::<String>::new()
    );

    // Exit codes: usage errors 2, unknown command or not starred 1.
    let (c, err) = code(&w, &["tag", "add", "build", "two words"]);
    assert_eq!(c, 2);
    assert!(err.contains("one word"), "{err}");
    assert_eq!(code(&w, &["tag", "add", "build", "a/b"]).0, 2);
    assert_eq!(code(&w, &["quick", "move", "lint", "0"]).0, 2);
    assert_eq!(code(&w, &["tag", "add"]).0, 2);
    let (c, err) = code(&w, &["tag", "add", "nope", "ci"]);
    assert_eq!(c, 1);
    assert!(err.contains("no command matches `nope`"), "{err}");
    let (c, err) = code(&w, &["quick", "move", "test", "1"]);
    assert_eq!(c, 1);
    assert!(err.contains("not in Quick Launch"), "{err}");
    let (c, err) = code(&w, &["list", "--tag", "nosuch"]);
    assert_eq!(c, 0);
    assert!(err.contains("no tag named `nosuch`"), "{err}");

    assert!(
        w.ok(["db", "path"])
            .trim_end()
            .ends_with(".commandtree/commandtree.sqlite3")
    );
    let check = w.json(["db", "check", "--json"]);
    assert_eq!(check["ok"], true, "{check}");
    assert!(backups(&w).is_empty());
}

#[test]
fn list_json_reads_summaries_and_warnings_from_the_database() {
    let w = workspace(&["build", "clean"]);
    w.ok(["star", "clean"]);
    let c = rusqlite::Connection::open(w.db()).unwrap();
    c.execute(
        "UPDATE commands SET content_hash = 'h', summary = 'Deletes build output.', security_warning = 'Removes files without asking' WHERE command_id = ?1",
        [id(&w, "clean")],
    )
    .unwrap();
    drop(c);
    let v = w.json(["list", "--json"]);
    let clean = labelled(&v, "clean");
    assert_eq!(clean["summary"], "Deletes build output.");
    assert_eq!(clean["securityWarning"], "Removes files without asking");
    assert_eq!(clean["tags"], serde_json::json!(["quick"]));
    let build = labelled(&v, "build");
    assert!(build.get("summary").is_none() && build.get("securityWarning").is_none());
    let text = w.ok(["list"]);
    assert!(text.contains("⚠ clean [quick]"), "{text}");
    // Starring again did not reset the hash the summary pipeline relies on.
    w.ok(["tag", "add", "clean", "danger"]);
    let c = rusqlite::Connection::open(w.db()).unwrap();
    let hash: String = c
        .query_row(
            "SELECT content_hash FROM commands WHERE command_id = ?1",
            [id(&w, "clean")],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(hash, "h");
}

#[test]
fn tag_config_file_is_applied_without_touching_manual_tags() {
    let w = workspace(&["build", "test", "lint"]);
    let config = |body: &str| {
        w.write(".vscode/commandtree.json", body);
    };
    config(
        r#"{ "tags": { "ci": [{ "type": "npm", "label": "lint" }, { "type": "npm", "label": "test" }] } }"#,
    );
    // The config alone creates the database on the first discovery.
    assert_eq!(
        labels(&w.json(["list", "--json", "--tag", "ci"])),
        ["lint", "test"]
    );
    assert!(w.db().exists());
    w.ok(["tag", "add", "build", "ci"]);
    // The config narrows: its own assignment to test goes, the hand-made one on build stays.
    config(
        "{\n  // JSONC is fine\n  \"tags\": { \"ci\": [\"PLACEHOLDER\",], },\n}"
            .replace("PLACEHOLDER", &id(&w, "lint"))
            .as_str(),
    );
    assert_eq!(
        labels(&w.json(["list", "--json", "--tag", "ci"])),
        ["build", "lint"]
    );
    // Removing a configured tag by hand says it will come back.
    w.run(["tag", "rm", "lint", "ci"]).stderr_has("comes back");
    assert_eq!(
        labels(&w.json(["list", "--json", "--tag", "ci"])),
        ["build", "lint"]
    );
    // A broken file warns with the file and line, and nothing of it is applied: the listing
    // shows the database as last written (listing itself never writes, so lint's return above
    // was shown, not stored).
    config("{ \"tags\": {\n \"ci\": [ \n");
    let o = w
        .run(["list", "--json", "--tag", "ci"])
        .stderr_has("commandtree.json:");
    assert_eq!(labels(&o.json()), ["build"]);
    // The file gone: the config's assignments go, the user's stay.
    std::fs::remove_file(w.join(".vscode/commandtree.json")).unwrap();
    assert_eq!(
        labels(&w.json(["list", "--json", "--tag", "ci"])),
        ["build"]
    );
}

#[test]
fn rows_of_vanished_commands_keep_their_tags_until_pruned() {
    let w = workspace(&["build", "old"]);
    w.ok(["star", "old"]);
    w.ok(["tag", "add", "old", "legacy"]);
    w.ok(["star", "build"]);
    write_scripts(&w, &["build"]);
    assert_eq!(labels(&w.json(["quick", "--json"])), ["build"]);
    // The script comes back: so do its tags and its place.
    write_scripts(&w, &["build", "old"]);
    assert_eq!(labels(&w.json(["quick", "--json"])), ["old", "build"]);
    write_scripts(&w, &["build"]);
    let dry = w.ok(["db", "prune"]);
    assert!(
        dry.contains("Would delete 1 row")
            && dry.contains(&id(&w, "old"))
            && dry.contains("[legacy, quick]"),
        "{dry}"
    );
    let v = w.json(["db", "prune", "--json"]);
    assert_eq!(v["dryRun"], true);
    assert_eq!(v["stale"][0]["id"], id(&w, "old"));
    // Dry runs deleted nothing.
    write_scripts(&w, &["build", "old"]);
    assert_eq!(labels(&w.json(["quick", "--json"])), ["old", "build"]);
    write_scripts(&w, &["build"]);
    let done = w.ok(["db", "prune", "--yes"]);
    assert!(done.contains("Deleted 1 row"), "{done}");
    write_scripts(&w, &["build", "old"]);
    assert_eq!(labels(&w.json(["quick", "--json"])), ["build"]);
    assert_eq!(
        w.json(["tag", "ls", "old", "--json"]),
        serde_json::json!([])
    );
    assert!(w.ok(["db", "prune"]).contains("Nothing to prune"));
}

/// The schema the VS Code extension creates today: no `embedding` column.
const UPSTREAM_ACTUAL: &str = "
CREATE TABLE commands (command_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', security_warning TEXT, last_updated TEXT NOT NULL DEFAULT '');
CREATE TABLE tags (tag_id TEXT PRIMARY KEY, tag_name TEXT NOT NULL UNIQUE, description TEXT);
CREATE TABLE command_tags (command_id TEXT NOT NULL, tag_id TEXT NOT NULL, display_order INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (command_id, tag_id), FOREIGN KEY (command_id) REFERENCES commands(command_id) ON DELETE CASCADE, FOREIGN KEY (tag_id) REFERENCES tags(tag_id) ON DELETE CASCADE);
";

#[test]
fn a_database_of_another_structure_is_moved_aside_once_with_its_tags_carried() {
    let w = workspace(&["build", "test"]).dir(".commandtree");
    let c = rusqlite::Connection::open(w.db()).unwrap();
    c.execute_batch(UPSTREAM_ACTUAL).unwrap();
    for (cmd, tag, order) in [
        (id(&w, "test"), "quick", 0),
        (id(&w, "build"), "quick", 1),
        (id(&w, "gone"), "quick", 2),
    ] {
        c.execute(
            "INSERT OR IGNORE INTO commands (command_id) VALUES (?1)",
            [&cmd],
        )
        .unwrap();
        c.execute("INSERT OR IGNORE INTO tags VALUES (?1, ?1, NULL)", [tag])
            .unwrap();
        c.execute(
            "INSERT INTO command_tags VALUES (?1, ?2, ?3)",
            (&cmd, tag, order),
        )
        .unwrap();
    }
    drop(c);
    // Reading uses the file as it is: the extension's tables answer the queries, and nothing
    // is rebuilt or copied.
    let before = std::fs::read(w.db()).unwrap();
    let o = w.run(["quick", "--json"]).success().stderr_is("");
    assert_eq!(labels(&o.json()), ["test", "build"]);
    assert!(backups(&w).is_empty());
    assert_eq!(std::fs::read(w.db()).unwrap(), before);
    // The first write rebuilds it, once.
    let err = w.run(["tag", "add", "build", "ci"]).success().stderr();
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("commandtree.sqlite3"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("missing column embedding")
            && lines[0].contains(".bak-")
            && lines[0].contains("2 tag assignments carried over"),
        "{}",
        lines[0]
    );
    assert_eq!(labels(&w.json(["quick", "--json"])), ["test", "build"]);
    assert_eq!(backups(&w).len(), 1);
    // The backup is the old database, all three assignments in it.
    let b = rusqlite::Connection::open(w.join(".commandtree").join(&backups(&w)[0])).unwrap();
    let n: i64 = b
        .query_row("SELECT count(*) FROM command_tags", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3);
    // Once is enough.
    w.run(["quick", "--json"]).stderr_is("");
    assert_eq!(backups(&w).len(), 1);
    assert_eq!(w.json(["db", "check", "--json"])["ok"], true);
}

#[test]
fn db_check_fails_on_orphans_and_on_another_structure() {
    let w = workspace(&["build"]);
    assert!(w.ok(["db", "check"]).contains("No database"));
    w.ok(["star", "build"]);
    let text = w.ok(["db", "check"]);
    assert!(text.contains("ok    integrity"), "{text}");
    let c = rusqlite::Connection::open(w.db()).unwrap();
    c.execute_batch(
        "PRAGMA foreign_keys = OFF; INSERT INTO command_tags VALUES ('ghost', 'nope', 0);",
    )
    .unwrap();
    drop(c);
    let (c, err) = code(&w, &["db", "check"]);
    assert_eq!(c, 1);
    assert!(err.contains("commandtree.sqlite3"), "{err}");
    let v = w.run(["db", "check", "--json"]).json();
    assert_eq!(v["ok"], false);
    // Checking never repairs.
    assert_eq!(code(&w, &["db", "check"]).0, 1);
}

const SQLITE3: &str = "/usr/bin/sqlite3";

/// SQL goes on stdin: the seed's script starts with `--`, which sqlite3 would take for an option.
fn sqlite3(db: &Path, sql: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(SQLITE3)
        .arg(db)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run sqlite3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sql.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "sqlite3 {sql}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn interop_with_the_sqlite3_command_line_tool() {
    if !have(
        SQLITE3,
        "apt-get install sqlite3; scripts/test.sh installs it",
    ) {
        return;
    }
    let w = workspace(&["build", "test", "deploy"]).dir(".commandtree");
    // The seed's SQL, as the extension or a user would run it, plus a tag set outside ct.
    sqlite3(&w.db(), commandtree_store::schema::SEED_SQL);
    sqlite3(
        &w.db(),
        &format!(
            "PRAGMA foreign_keys = ON;
             INSERT INTO commands VALUES ('{0}', 'abc', 'Deploys to production.', NULL, 'Pushes to prod', '2026-01-01T00:00:00.000Z');
             INSERT INTO tags VALUES ('6f1c1f7e-2d47-4d1e-9d57-0f7b1b1e0a01', 'deploy', NULL);
             INSERT INTO command_tags VALUES ('{0}', '6f1c1f7e-2d47-4d1e-9d57-0f7b1b1e0a01', 0);",
            id(&w, "deploy")
        ),
    );
    // ct uses it as it is.
    let v = w.json(["list", "--json", "--tag", "deploy"]);
    assert_eq!(labels(&v), ["deploy"]);
    assert_eq!(v[0]["summary"], "Deploys to production.");
    assert_eq!(v[0]["securityWarning"], "Pushes to prod");
    w.ok(["tag", "add", "build", "deploy"]);
    w.ok(["star", "test"]);
    assert!(
        backups(&w).is_empty(),
        "a seed-SQL database must not be replaced"
    );
    // sqlite3 reads back what ct wrote, with the spec's own filter query.
    let got = sqlite3(
        &w.db(),
        "SELECT c.command_id FROM commands c JOIN command_tags ct ON c.command_id = ct.command_id JOIN tags t ON ct.tag_id = t.tag_id WHERE t.tag_name = 'deploy' ORDER BY ct.display_order",
    );
    assert_eq!(got, format!("{}\n{}\n", id(&w, "deploy"), id(&w, "build")));
    let quick = sqlite3(
        &w.db(),
        "SELECT ct.command_id, length(t.tag_id) FROM command_tags ct JOIN tags t USING (tag_id) WHERE t.tag_name = 'quick'",
    );
    assert_eq!(quick, format!("{}|36\n", id(&w, "test")));
    assert_eq!(sqlite3(&w.db(), "PRAGMA integrity_check"), "ok\n");
    assert_eq!(sqlite3(&w.db(), "PRAGMA foreign_key_check"), "");
    // The rollback journal, which the extension's engine needs.
    assert_eq!(sqlite3(&w.db(), "PRAGMA journal_mode"), "delete\n");
    // The content hash sqlite3 wrote survived the tagging.
    assert_eq!(
        sqlite3(
            &w.db(),
            &format!(
                "SELECT content_hash FROM commands WHERE command_id = '{}'",
                id(&w, "deploy")
            )
        ),
        "abc\n"
    );
}
