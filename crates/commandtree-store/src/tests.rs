//! Tests on real database files in a temporary folder.

use super::*;
use crate::tagconfig::{ConfigTag, Pattern, TagConfig};
use rusqlite::types::Value;
use std::path::Path;

/// A scratch folder, removed when dropped.
struct Dir(tempfile::TempDir);

impl Dir {
    fn new(name: &str) -> Dir {
        Dir(tempfile::Builder::new()
            .prefix(&format!("ct-store-{name}-"))
            .tempdir()
            .unwrap())
    }
    fn path(&self) -> &Path {
        self.0.path()
    }
    fn db(&self) -> PathBuf {
        db_path(self.path())
    }
}

fn open(path: &Path) -> Store {
    Store::open(path, true).unwrap().unwrap()
}

fn rows(conn: &Connection, sql: &str) -> Vec<Vec<Value>> {
    let mut st = conn.prepare(sql).unwrap();
    let n = st.column_count();
    st.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

fn t(s: &str) -> Value {
    Value::Text(s.to_string())
}
fn i(n: i64) -> Value {
    Value::Integer(n)
}
const NULL: Value = Value::Null;

fn cmd(kind: &str, file: &str, label: &str) -> CommandItem {
    CommandItem::new(kind, Path::new(file), label, label)
}

#[test]
fn schema_is_exactly_the_seed_spec() {
    let d = Dir::new("schema");
    let s = open(&d.db());
    let c = s.connection();
    // PRAGMA table_info: cid, name, type, notnull, dflt_value, pk, as the seed declares them.
    assert_eq!(
        rows(c, "PRAGMA table_info(commands)"),
        vec![
            vec![i(0), t("command_id"), t("TEXT"), i(0), NULL, i(1)],
            vec![i(1), t("content_hash"), t("TEXT"), i(1), NULL, i(0)],
            vec![i(2), t("summary"), t("TEXT"), i(1), NULL, i(0)],
            vec![i(3), t("embedding"), t("BLOB"), i(0), NULL, i(0)],
            vec![i(4), t("security_warning"), t("TEXT"), i(0), NULL, i(0)],
            vec![i(5), t("last_updated"), t("TEXT"), i(1), NULL, i(0)],
        ]
    );
    assert_eq!(
        rows(c, "PRAGMA table_info(tags)"),
        vec![
            vec![i(0), t("tag_id"), t("TEXT"), i(0), NULL, i(1)],
            vec![i(1), t("tag_name"), t("TEXT"), i(1), NULL, i(0)],
            vec![i(2), t("description"), t("TEXT"), i(0), NULL, i(0)],
        ]
    );
    assert_eq!(
        rows(c, "PRAGMA table_info(command_tags)"),
        vec![
            vec![i(0), t("command_id"), t("TEXT"), i(1), NULL, i(1)],
            vec![i(1), t("tag_id"), t("TEXT"), i(1), NULL, i(2)],
            vec![i(2), t("display_order"), t("INTEGER"), i(1), t("0"), i(0)],
        ]
    );
    // id, seq, table, from, to, on_update, on_delete, match
    let mut fks = rows(c, "PRAGMA foreign_key_list(command_tags)");
    fks.sort_by_key(|r| format!("{:?}", r[2]));
    assert_eq!(
        fks.into_iter().map(|r| r[2..].to_vec()).collect::<Vec<_>>(),
        vec![
            vec![
                t("commands"),
                t("command_id"),
                t("command_id"),
                t("NO ACTION"),
                t("CASCADE"),
                t("NONE")
            ],
            vec![
                t("tags"),
                t("tag_id"),
                t("tag_id"),
                t("NO ACTION"),
                t("CASCADE"),
                t("NONE")
            ],
        ]
    );
    assert!(rows(c, "PRAGMA foreign_key_list(commands)").is_empty());
    assert!(rows(c, "PRAGMA foreign_key_list(tags)").is_empty());
    // tag_name UNIQUE: an automatic unique index on exactly that column.
    let unique = rows(
        c,
        "SELECT ii.name FROM pragma_index_list('tags') il, pragma_index_info(il.name) ii WHERE il.\"unique\" = 1 AND il.origin = 'u'",
    );
    assert_eq!(unique, vec![vec![t("tag_name")]]);
    // Nothing but the three seed tables and ours.
    let tables = rows(
        c,
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    );
    assert_eq!(
        tables,
        vec![
            vec![t("command_findings")],
            vec![t("command_tags")],
            vec![t("commands")],
            vec![t("config_tag_assignments")],
            vec![t("context_messages")],
            vec![t("embedding_sources")],
            vec![t("run_history")],
            vec![t("sqlite_sequence")],
            vec![t("tags")]
        ]
    );
    // Connection settings the contract requires.
    assert_eq!(rows(c, "PRAGMA foreign_keys"), vec![vec![i(1)]]);
    // The rollback journal: the extension cannot open a WAL file.
    assert_eq!(rows(c, "PRAGMA journal_mode"), vec![vec![t("delete")]]);
    assert!(rows(c, "PRAGMA busy_timeout")[0][0] == i(5000));
}

#[test]
fn cascades_on_both_foreign_keys() {
    let d = Dir::new("cascade");
    let mut s = open(&d.db());
    s.add_tag("npm:/w/package.json:build", "ci").unwrap();
    s.add_tag("npm:/w/package.json:build", "deploy").unwrap();
    s.add_tag("npm:/w/package.json:test", "ci").unwrap();
    let c = s.connection();
    let count = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT count(*) FROM command_tags"), 3);
    c.execute(
        "DELETE FROM commands WHERE command_id = 'npm:/w/package.json:build'",
        [],
    )
    .unwrap();
    assert_eq!(
        count("SELECT count(*) FROM command_tags"),
        1,
        "deleting a command removes its assignments"
    );
    c.execute("DELETE FROM tags WHERE tag_name = 'ci'", [])
        .unwrap();
    assert_eq!(
        count("SELECT count(*) FROM command_tags"),
        0,
        "deleting a tag removes its assignments"
    );
    assert_eq!(count("SELECT count(*) FROM tags"), 1);
}

#[test]
fn orphans_are_impossible_and_placeholders_are_minimal() {
    let d = Dir::new("orphan");
    let mut s = open(&d.db());
    s.add_tag("make:/w/Makefile:all", "build").unwrap();
    let c = s.connection();
    let row = rows(
        c,
        "SELECT content_hash, summary, embedding, security_warning, length(last_updated) FROM commands",
    );
    assert_eq!(row, vec![vec![t(""), t(""), NULL, NULL, i(24)]]);
    let tag_id: String = c
        .query_row("SELECT tag_id FROM tags", [], |r| r.get(0))
        .unwrap();
    let u = uuid::Uuid::parse_str(&tag_id).unwrap();
    assert_eq!(u.get_version_num(), 4);
    // A junction row for a command or tag that does not exist is refused.
    let e = c
        .execute(
            "INSERT INTO command_tags (command_id, tag_id) VALUES ('nope', ?1)",
            [&tag_id],
        )
        .unwrap_err();
    assert_eq!(e.sqlite_error_code(), Some(ErrorCode::ConstraintViolation));
    let e = c
        .execute(
            "INSERT INTO command_tags (command_id, tag_id) VALUES ('make:/w/Makefile:all', 'nope')",
            [],
        )
        .unwrap_err();
    assert_eq!(e.sqlite_error_code(), Some(ErrorCode::ConstraintViolation));
    // A second connection has foreign keys on too.
    drop(s);
    let s = open(&d.db());
    let e = s
        .connection()
        .execute(
            "INSERT INTO command_tags (command_id, tag_id) VALUES ('nope', 'nope')",
            [],
        )
        .unwrap_err();
    assert_eq!(e.sqlite_error_code(), Some(ErrorCode::ConstraintViolation));
}

#[test]
fn tagging_is_idempotent_and_keeps_the_content_hash() {
    let d = Dir::new("idem");
    let mut s = open(&d.db());
    let id = "npm:/w/package.json:build";
    s.connection()
        .execute(
            "INSERT INTO commands VALUES (?1, 'abc123', 'Builds it', NULL, NULL, '2026-01-01T00:00:00.000Z')",
            [id],
        )
        .unwrap();
    assert!(s.add_tag(id, "ci").unwrap());
    assert!(!s.add_tag(id, "ci").unwrap());
    assert!(!s.add_tag(id, "ci").unwrap());
    assert_eq!(s.tags_for_command(id).unwrap(), ["ci"]);
    let row = rows(
        s.connection(),
        "SELECT content_hash, summary, last_updated FROM commands",
    );
    assert_eq!(
        row,
        vec![vec![
            t("abc123"),
            t("Builds it"),
            t("2026-01-01T00:00:00.000Z")
        ]]
    );
    assert_eq!(
        rows(s.connection(), "SELECT count(*) FROM tags"),
        vec![vec![i(1)]]
    );
    assert!(s.remove_tag(id, "ci").unwrap());
    assert!(!s.remove_tag(id, "ci").unwrap());
    assert!(!s.remove_tag(id, "never-existed").unwrap());
    // The tag stays for pickers.
    assert_eq!(s.all_tag_names().unwrap(), ["ci"]);
}

#[test]
fn tag_names_are_one_word() {
    for ok in [
        "quick",
        "deploy",
        "build-2",
        "long_name",
        "déploiement",
        "X",
    ] {
        validate_tag_name(ok).unwrap();
    }
    for (bad, why) in [
        ("", "empty"),
        ("two words", "a space"),
        ("a/b", "`/`"),
        ("tab\t", "a space"),
        ("semi;", "`;`"),
    ] {
        let e = validate_tag_name(bad).unwrap_err().to_string();
        assert!(e.contains(why), "{bad:?}: {e}");
    }
    let d = Dir::new("names");
    let mut s = open(&d.db());
    assert!(matches!(
        s.add_tag("x", "no good"),
        Err(Error::InvalidTagName { .. })
    ));
    assert!(s.all_tag_names().unwrap().is_empty());
}

#[test]
fn order_appends_moves_and_rewrites() {
    let d = Dir::new("order");
    let mut s = open(&d.db());
    for id in ["a", "b", "c"] {
        assert!(s.star(id).unwrap());
    }
    let orders = |s: &Store| {
        rows(
            s.connection(),
            "SELECT ct.command_id, ct.display_order FROM command_tags ct JOIN tags t USING (tag_id) WHERE t.tag_name = 'quick' ORDER BY ct.display_order",
        )
    };
    assert_eq!(
        orders(&s),
        vec![vec![t("a"), i(0)], vec![t("b"), i(1)], vec![t("c"), i(2)]]
    );
    // Unstarring the middle and starring again puts it at the end (max + 1).
    s.unstar("b").unwrap();
    s.star("b").unwrap();
    assert_eq!(s.quick().unwrap(), ["a", "c", "b"]);
    assert_eq!(orders(&s)[2], vec![t("b"), i(3)]);
    // Moving rewrites 0..n-1.
    let all = |_: &str| true;
    assert_eq!(s.move_in_tag(QUICK_TAG, "b", 0, &all).unwrap(), Some(0));
    assert_eq!(
        orders(&s),
        vec![vec![t("b"), i(0)], vec![t("a"), i(1)], vec![t("c"), i(2)]]
    );
    assert_eq!(
        s.move_in_tag(QUICK_TAG, "b", 99, &all).unwrap(),
        Some(2),
        "past the end = last"
    );
    assert_eq!(s.quick().unwrap(), ["a", "c", "b"]);
    assert_eq!(
        s.move_in_tag(QUICK_TAG, "c", 1, &all).unwrap(),
        Some(1),
        "onto itself"
    );
    assert_eq!(s.quick().unwrap(), ["a", "c", "b"]);
    assert_eq!(s.move_in_tag(QUICK_TAG, "zz", 0, &all).unwrap(), None);
    // Hidden commands (no longer discovered) do not count for positions and go last.
    let no_a = |id: &str| id != "a";
    assert_eq!(s.move_in_tag(QUICK_TAG, "b", 0, &no_a).unwrap(), Some(0));
    assert_eq!(s.quick().unwrap(), ["b", "c", "a"]);
    // updateTagDisplayOrder: the given ids first, then the rest as they were.
    s.update_tag_display_order(QUICK_TAG, &["a", "nope", "a"])
        .unwrap();
    assert_eq!(s.quick().unwrap(), ["a", "b", "c"]);
    assert_eq!(
        orders(&s).iter().map(|r| r[1].clone()).collect::<Vec<_>>(),
        [i(0), i(1), i(2)]
    );
}

#[test]
fn ties_from_the_extension_keep_insertion_order() {
    let d = Dir::new("ties");
    let s = open(&d.db());
    let c = s.connection();
    c.execute_batch(
        "INSERT INTO commands VALUES ('z', '', '', NULL, NULL, ''), ('a', '', '', NULL, NULL, ''), ('m', '', '', NULL, NULL, '');
         INSERT INTO tags VALUES ('t1', 'quick', NULL);
         INSERT INTO command_tags VALUES ('z', 't1', 0), ('a', 't1', 0), ('m', 't1', 0);",
    )
    .unwrap();
    assert_eq!(s.quick().unwrap(), ["z", "a", "m"]);
}

#[test]
fn opening_without_create_leaves_no_trace() {
    let d = Dir::new("nocreate");
    assert!(Store::open(&d.db(), false).unwrap().is_none());
    assert!(!d.path().join(DB_DIR).exists());
    let mut cmds = vec![cmd("npm", "/w/package.json", "build")];
    let a = attach(d.path(), &mut cmds, AttachOptions::default());
    assert!(a.store.is_none() && a.warnings.is_empty());
    assert!(!d.path().join(DB_DIR).exists());
    assert!(check(&d.db()).unwrap().is_none());
}

/// The schema the VS Code extension actually creates today (no `embedding`, DEFAULT '').
const UPSTREAM_ACTUAL: &str = "
CREATE TABLE commands (command_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '', security_warning TEXT, last_updated TEXT NOT NULL DEFAULT '');
CREATE TABLE tags (tag_id TEXT PRIMARY KEY, tag_name TEXT NOT NULL UNIQUE, description TEXT);
CREATE TABLE command_tags (command_id TEXT NOT NULL, tag_id TEXT NOT NULL, display_order INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (command_id, tag_id), FOREIGN KEY (command_id) REFERENCES commands(command_id) ON DELETE CASCADE, FOREIGN KEY (tag_id) REFERENCES tags(tag_id) ON DELETE CASCADE);
INSERT INTO commands VALUES ('npm:/w/package.json:build', 'h1', 'Builds the app', NULL, '2025-01-01T00:00:00.000Z');
INSERT INTO commands VALUES ('npm:/w/package.json:gone', 'h2', 'Was removed', NULL, '2025-01-01T00:00:00.000Z');
INSERT INTO commands VALUES ('make:/w/Makefile:test', '', '', NULL, '');
INSERT INTO tags VALUES ('11111111-1111-4111-8111-111111111111', 'quick', NULL), ('22222222-2222-4222-8222-222222222222', 'ci', 'Continuous integration');
INSERT INTO command_tags VALUES ('make:/w/Makefile:test', '11111111-1111-4111-8111-111111111111', 0);
INSERT INTO command_tags VALUES ('npm:/w/package.json:build', '11111111-1111-4111-8111-111111111111', 1);
INSERT INTO command_tags VALUES ('npm:/w/package.json:gone', '11111111-1111-4111-8111-111111111111', 2);
INSERT INTO command_tags VALUES ('npm:/w/package.json:build', '22222222-2222-4222-8222-222222222222', 0);
";

#[test]
fn wrong_structure_is_backed_up_and_tags_of_existing_commands_carried_over() {
    let d = Dir::new("rebuild");
    std::fs::create_dir_all(d.db().parent().unwrap()).unwrap();
    {
        let c = Connection::open(d.db()).unwrap();
        c.execute_batch(UPSTREAM_ACTUAL).unwrap();
    }
    let before = std::fs::read(d.db()).unwrap();
    let exists = |id: &str| id != "npm:/w/package.json:gone";
    let s = Store::open_with(&d.db(), false, Some(&exists))
        .unwrap()
        .unwrap();
    let r = s.recreated().expect("recreated").clone();
    assert!(
        r.reason.contains("commands: missing column embedding"),
        "{}",
        r.reason
    );
    assert_eq!(r.carried_tags, 3);
    let line = r.to_string();
    assert!(
        !line.contains('\n')
            && line.contains(".bak-")
            && line.contains("3 tag assignments carried over"),
        "{line}"
    );
    let name = r.backup.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("commandtree.sqlite3.bak-"), "{name}");
    // The backup holds the old database untouched.
    let b = Connection::open(&r.backup).unwrap();
    assert_eq!(
        rows(&b, "SELECT count(*) FROM command_tags"),
        vec![vec![i(4)]]
    );
    assert_eq!(schema::column_names(&b, "commands").unwrap().len(), 5);
    assert!(!before.is_empty());
    // The new one has the right structure and the carried data, order included.
    assert_eq!(s.read(schema::inspect).unwrap(), Status::Ok);
    assert_eq!(
        s.quick().unwrap(),
        ["make:/w/Makefile:test", "npm:/w/package.json:build"]
    );
    assert_eq!(
        s.tags_for_command("npm:/w/package.json:build").unwrap(),
        ["ci", "quick"]
    );
    assert_eq!(
        rows(
            s.connection(),
            "SELECT tag_id, description FROM tags WHERE tag_name = 'ci'"
        ),
        vec![vec![
            t("22222222-2222-4222-8222-222222222222"),
            t("Continuous integration")
        ]]
    );
    assert_eq!(
        rows(
            s.connection(),
            "SELECT content_hash, summary, embedding FROM commands WHERE command_id = 'npm:/w/package.json:build'"
        ),
        vec![vec![t("h1"), t("Builds the app"), NULL]]
    );
    assert!(
        rows(
            s.connection(),
            "SELECT 1 FROM commands WHERE command_id LIKE '%gone'"
        )
        .is_empty()
    );
    assert!(check(&d.db()).unwrap().unwrap().ok());
    drop(s);
    // Opened again: nothing to do any more.
    let s = open(&d.db());
    assert!(s.recreated().is_none());
}

#[test]
fn without_a_filter_every_tag_is_carried() {
    let d = Dir::new("rebuild-all");
    std::fs::create_dir_all(d.db().parent().unwrap()).unwrap();
    Connection::open(d.db())
        .unwrap()
        .execute_batch(UPSTREAM_ACTUAL)
        .unwrap();
    let s = open(&d.db());
    assert_eq!(s.recreated().unwrap().carried_tags, 4);
    assert_eq!(s.quick().unwrap().len(), 3);
}

#[test]
fn a_file_that_is_not_a_database_is_renamed_aside() {
    let d = Dir::new("notadb");
    std::fs::create_dir_all(d.db().parent().unwrap()).unwrap();
    let junk = b"this is not a database, but somebody's notes\n".repeat(200);
    std::fs::write(d.db(), &junk).unwrap();
    let mut s = open(&d.db());
    let r = s.recreated().unwrap().clone();
    assert_eq!(std::fs::read(&r.backup).unwrap(), junk);
    assert_eq!(r.carried_tags, 0);
    s.add_tag("a", "b").unwrap();
    assert!(check(&d.db()).unwrap().unwrap().ok());
}

#[test]
fn a_database_made_from_the_seed_sql_is_used_as_is() {
    let d = Dir::new("seedsql");
    std::fs::create_dir_all(d.db().parent().unwrap()).unwrap();
    {
        let c = Connection::open(d.db()).unwrap();
        c.execute_batch(schema::SEED_SQL).unwrap();
        c.execute_batch(
            "INSERT INTO commands VALUES ('a', 'h', 's', x'00', NULL, 'now');
             INSERT INTO tags VALUES ('t', 'quick', NULL);
             INSERT INTO command_tags VALUES ('a', 't', 0);",
        )
        .unwrap();
    }
    let mut s = open(&d.db());
    assert!(s.recreated().is_none());
    assert_eq!(s.quick().unwrap(), ["a"]);
    s.star("b").unwrap();
    assert_eq!(s.quick().unwrap(), ["a", "b"]);
    let files: Vec<_> = std::fs::read_dir(d.db().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".bak-"))
        .collect();
    assert!(files.is_empty(), "{files:?}");
}

fn config(tags: &[(&str, Vec<Pattern>)]) -> TagConfig {
    TagConfig {
        tags: tags
            .iter()
            .map(|(n, p)| ConfigTag {
                name: n.to_string(),
                patterns: p.clone(),
            })
            .collect(),
        unreadable: Vec::new(),
    }
}

fn kind(k: &str) -> Pattern {
    Pattern::Fields {
        kind: Some(k.into()),
        label: None,
        id: None,
    }
}
fn label(l: &str) -> Pattern {
    Pattern::Fields {
        kind: None,
        label: Some(l.into()),
        id: None,
    }
}

#[test]
fn tag_config_adds_and_takes_back_only_its_own_assignments() {
    let d = Dir::new("config");
    let mut s = open(&d.db());
    let cmds = vec![
        cmd("npm", "/w/package.json", "build"),
        cmd("npm", "/w/package.json", "lint"),
        cmd("make", "/w/Makefile", "build"),
        cmd("shell", "/w/deploy.sh", "deploy.sh"),
    ];
    let [npm_build, npm_lint, make_build, deploy] = [0, 1, 2, 3].map(|n| cmds[n].id.clone());
    // The user tagged things by hand before the config existed.
    s.add_tag(&deploy, "build").unwrap();
    s.add_tag(&npm_lint, "build").unwrap();

    let cfg = config(&[
        ("build", vec![label("build"), kind("npm")]),
        ("ci", vec![Pattern::Id(npm_lint.clone())]),
    ]);
    let r = tagconfig::sync(&mut s, &cfg, &cmds).unwrap();
    assert_eq!(r.added.len(), 3, "{r:?}");
    assert!(r.removed.is_empty());
    let mut build = s.command_ids_by_tag("build").unwrap();
    build.sort();
    let mut want = vec![
        npm_build.clone(),
        npm_lint.clone(),
        make_build.clone(),
        deploy.clone(),
    ];
    want.sort();
    assert_eq!(build, want, "manual assignments kept, matches added");
    assert_eq!(
        s.command_ids_by_tag("ci").unwrap(),
        std::slice::from_ref(&npm_lint)
    );
    // Idempotent.
    assert_eq!(
        tagconfig::sync(&mut s, &cfg, &cmds).unwrap(),
        Default::default()
    );

    // The config narrows: only what it added is taken back; the hand-made npm:lint stays.
    let cfg = config(&[("build", vec![Pattern::Id(make_build.clone())])]);
    let r = tagconfig::sync(&mut s, &cfg, &cmds).unwrap();
    let mut removed = r.removed.clone();
    removed.sort();
    let mut want_removed = vec![
        (npm_build.clone(), "build".to_string()),
        (npm_lint.clone(), "ci".to_string()),
    ];
    want_removed.sort();
    assert_eq!(removed, want_removed);
    let mut build = s.command_ids_by_tag("build").unwrap();
    build.sort();
    let mut want = vec![npm_lint.clone(), make_build.clone(), deploy.clone()];
    want.sort();
    assert_eq!(build, want);

    // Adding a config-made assignment by hand makes it the user's.
    s.add_tag(&make_build, "build").unwrap();
    let r = tagconfig::sync(&mut s, &TagConfig::default(), &cmds).unwrap();
    assert!(r.removed.is_empty(), "{r:?}");
    assert_eq!(s.command_ids_by_tag("build").unwrap().len(), 3);
}

#[test]
fn tag_config_leaves_unlisted_commands_and_unreadable_tags_alone() {
    let d = Dir::new("config-partial");
    let mut s = open(&d.db());
    let cmds = vec![
        cmd("npm", "/w/package.json", "build"),
        cmd("make", "/w/Makefile", "all"),
    ];
    let cfg = config(&[(
        "all",
        vec![Pattern::Fields {
            kind: None,
            label: None,
            id: None,
        }],
    )]);
    tagconfig::sync(&mut s, &cfg, &cmds).unwrap();
    assert_eq!(s.command_ids_by_tag("all").unwrap().len(), 2);
    // A discovery of one type only: the make command is not in the list and keeps its tag.
    let r = tagconfig::sync(&mut s, &TagConfig::default(), &cmds[..1]).unwrap();
    assert_eq!(r.removed, [(cmds[0].id.clone(), "all".to_string())]);
    assert_eq!(s.command_ids_by_tag("all").unwrap(), [cmds[1].id.clone()]);
    // A tag whose entry could not be read is not taken back.
    let mut broken = TagConfig::default();
    broken.unreadable.push("all".into());
    let r = tagconfig::sync(&mut s, &broken, &cmds).unwrap();
    assert!(r.removed.is_empty());
    assert_eq!(s.command_ids_by_tag("all").unwrap(), [cmds[1].id.clone()]);
}

#[test]
fn attach_syncs_the_config_file_and_enriches() {
    let d = Dir::new("attach");
    let root = d.path();
    let pkg = root.join("package.json");
    let mut cmds = vec![
        CommandItem::new("npm", &pkg, "build", "npm run build"),
        CommandItem::new("npm", &pkg, "test", "npm test"),
    ];
    // No database and no config: nothing is created.
    let a = attach(root, &mut cmds, AttachOptions::default());
    assert!(a.store.is_none());
    assert!(!d.db().exists());
    // The config file alone creates the database.
    std::fs::create_dir_all(root.join(".vscode")).unwrap();
    std::fs::write(
        root.join(".vscode/commandtree.json"),
        "{ \"tags\": { \"ci\": [ { \"type\": \"npm\", \"label\": \"test\" } ], } } // JSONC",
    )
    .unwrap();
    let a = attach(root, &mut cmds, AttachOptions::default());
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    let mut s = a.store.unwrap();
    assert!(d.db().exists());
    assert_eq!(cmds[1].tags, ["ci"]);
    assert!(cmds[0].tags.is_empty());
    s.connection()
        .execute(
            "UPDATE commands SET summary = 'Runs the tests', security_warning = 'Deletes /tmp' WHERE command_id = ?1",
            [&cmds[1].id],
        )
        .unwrap();
    s.star(&cmds[0].id).unwrap();
    drop(s);
    let a = attach(root, &mut cmds, AttachOptions::default());
    assert!(a.warnings.is_empty());
    assert_eq!(cmds[0].tags, ["quick"]);
    assert_eq!(cmds[1].summary.as_deref(), Some("Runs the tests"));
    assert_eq!(cmds[1].security_warning.as_deref(), Some("Deletes /tmp"));
    let json = serde_json::to_value(&cmds[1]).unwrap();
    assert_eq!(json["securityWarning"], "Deletes /tmp");
    assert_eq!(json["tags"], serde_json::json!(["ci"]));
    // A broken config warns, naming the file and line, and changes nothing.
    std::fs::write(
        root.join(".vscode/commandtree.json"),
        "{ \"tags\": {\n  \"ci\": [ \n",
    )
    .unwrap();
    let a = attach(root, &mut cmds, AttachOptions::default());
    assert_eq!(a.warnings.len(), 1);
    assert!(
        a.warnings[0].to_string().contains("commandtree.json:"),
        "{}",
        a.warnings[0]
    );
    assert_eq!(cmds[1].tags, ["ci"]);
}

#[test]
fn stale_rows_are_listed_and_pruned_with_their_tags() {
    let d = Dir::new("prune");
    let mut s = open(&d.db());
    s.add_tag("here", "quick").unwrap();
    s.add_tag("gone", "quick").unwrap();
    s.add_tag("gone", "ci").unwrap();
    s.ensure_command_exists("also-gone").unwrap();
    let exists = |id: &str| id == "here";
    let stale = s.stale(&exists).unwrap();
    assert_eq!(
        stale,
        vec![
            ("also-gone".to_string(), vec![]),
            (
                "gone".to_string(),
                vec!["ci".to_string(), "quick".to_string()]
            )
        ]
    );
    let ids: Vec<String> = stale.into_iter().map(|(id, _)| id).collect();
    assert_eq!(s.delete_commands(&ids).unwrap(), 2);
    assert_eq!(s.quick().unwrap(), ["here"]);
    assert_eq!(s.counts().unwrap().assignments, 1);
}

#[test]
fn check_reports_orphans_and_wrong_structure() {
    let d = Dir::new("check");
    let mut s = open(&d.db());
    s.add_tag("a", "x").unwrap();
    let r = check(&d.db()).unwrap().unwrap();
    assert!(r.ok(), "{r:?}");
    assert_eq!(r.counts.unwrap().assignments, 1);
    // Another tool wrote with foreign keys off.
    s.connection()
        .execute_batch("PRAGMA foreign_keys = OFF; INSERT INTO command_tags VALUES ('ghost', 'nope', 0); PRAGMA foreign_keys = ON;")
        .unwrap();
    let r = check(&d.db()).unwrap().unwrap();
    assert!(!r.ok());
    let fk = r.checks.iter().find(|c| c.name == "foreign keys").unwrap();
    assert!(!fk.ok && fk.detail.contains("command_tags"), "{fk:?}");
    s.connection()
        .execute_batch("ALTER TABLE tags ADD COLUMN color TEXT")
        .unwrap();
    let r = check(&d.db()).unwrap().unwrap();
    let schema = r.checks.iter().find(|c| c.name == "schema").unwrap();
    assert!(
        !schema.ok && schema.detail.contains("unexpected column color"),
        "{schema:?}"
    );
}

#[test]
fn threads_with_their_own_connections_never_share_a_display_order() {
    let d = Dir::new("threads");
    drop(open(&d.db()));
    let path = d.db();
    std::thread::scope(|sc| {
        for w in 0..4 {
            let path = path.clone();
            sc.spawn(move || {
                let mut s = open(&path);
                for n in 0..50 {
                    s.star(&format!("w{w}-{n}")).unwrap();
                }
            });
        }
    });
    let s = open(&path);
    let orders: Vec<i64> = rows(
        s.connection(),
        "SELECT display_order FROM command_tags ORDER BY display_order",
    )
    .into_iter()
    .map(|r| match r[0] {
        Value::Integer(n) => n,
        _ => panic!(),
    })
    .collect();
    assert_eq!(orders, (0..200).collect::<Vec<_>>());
}

#[test]
fn context_messages_keep_order_per_conversation_and_clear() {
    let d = Dir::new("context");
    let mut s = open(&d.db());
    s.add_context("default", ContextType::Agent, "Be brief.")
        .unwrap();
    s.add_context("other", ContextType::User, "elsewhere")
        .unwrap();
    s.add_context("default", ContextType::User, "What is make?")
        .unwrap();
    s.add_context("default", ContextType::Assistant, "A build tool.")
        .unwrap();
    let got: Vec<(ContextType, String)> = s
        .context("default")
        .unwrap()
        .into_iter()
        .map(|m| (m.kind, m.content))
        .collect();
    assert_eq!(
        got,
        vec![
            (ContextType::Agent, "Be brief.".to_string()),
            (ContextType::User, "What is make?".to_string()),
            (ContextType::Assistant, "A build tool.".to_string()),
        ]
    );
    // A row another tool wrote with an unknown type is left out, not misread.
    s.write(|tx| {
        tx.execute(
            "INSERT INTO context_messages (conversation, type, content, created_at) VALUES ('default', 'system', 'x', 'now')",
            [],
        )
    })
    .unwrap();
    assert_eq!(s.context("default").unwrap().len(), 3);
    assert_eq!(s.clear_context("default").unwrap(), 4);
    assert!(s.context("default").unwrap().is_empty());
    assert_eq!(s.context("other").unwrap().len(), 1);
    assert!("robot".parse::<ContextType>().is_err());
}

#[test]
fn summaries_and_embeddings_are_read_and_written_through_the_store() {
    let d = Dir::new("summaries-embeddings");
    let mut s = open(&d.db());
    s.save_summary("a", "h1", "Builds it.", Some("Deletes ~/x"))
        .unwrap();
    s.save_summary("b", "h2", "Tests it.", None).unwrap();
    let stored = s.summaries().unwrap();
    assert_eq!(stored["a"], ("h1".to_string(), "Builds it.".to_string()));
    assert_eq!(stored["b"], ("h2".to_string(), "Tests it.".to_string()));
    // A text value where a BLOB belongs (a hand-edited or foreign file) is skipped, NULL ones
    // never reach the caller, and `keep` chooses the commands.
    s.connection()
        .execute(
            "UPDATE commands SET embedding = CASE command_id WHEN 'a' THEN x'0102' ELSE 'text' END",
            [],
        )
        .unwrap();
    s.save_summary("c", "h3", "Lints it.", None).unwrap();
    let mut seen = Vec::new();
    s.each_embedding(&|id| id != "c", &mut |id, blob| {
        seen.push((id.to_string(), blob.to_vec()))
    })
    .unwrap();
    assert_eq!(seen, vec![("a".to_string(), vec![1u8, 2])]);
    assert_eq!(s.embeddings(&|_| true).unwrap(), seen);
    // A summary saved again with other text drops the embedding made from the old text.
    s.save_summary("a", "h4", "Builds it all.", None).unwrap();
    assert!(s.embeddings(&|_| true).unwrap().is_empty());
}
