//! End-to-end: `ct embed`, `ct search` and the embedding checks of `ct db check`, through the
//! built `ct`, on a fixture workspace whose summaries are stored in its database, with the real
//! all-MiniLM-L6-v2 model (fetched by `scripts/fetch-test-model.sh`).

use crate::support;

use commandtree_store::Store;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

struct Ws {
    root: PathBuf,
    model: PathBuf,
}

impl Drop for Ws {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

impl Ws {
    /// A workspace holding only `files` (path, text).
    fn bare(name: &str, model: PathBuf, files: &[(&str, &str)]) -> Ws {
        let dir = std::env::temp_dir().join(format!("ct-search-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        let root = std::fs::canonicalize(&dir).unwrap();
        for (path, text) in files {
            support::write(&root, path, text);
        }
        Ws { root, model }
    }

    fn new(name: &str, model: PathBuf) -> Ws {
        let dir = std::env::temp_dir().join(format!("ct-search-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        let root = std::fs::canonicalize(&dir).unwrap();
        std::fs::write(root.join("Makefile"), MAKEFILE).unwrap();
        std::fs::write(root.join("package.json"), PACKAGE_JSON).unwrap();
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(
            root.join("scripts/backup.sh"),
            "#!/bin/sh\npg_dump prod > backup.sql\n",
        )
        .unwrap();
        std::fs::write(
            root.join("scripts/deploy.sh"),
            "#!/bin/sh\nhelm upgrade app ./chart\n",
        )
        .unwrap();
        Ws { root, model }
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = support::command(Some(&self.root), &self.root.join(".no-home"));
        c.args(args)
            .env("COMMANDTREE_MODEL_DIR", &self.model)
            .env("COMMANDTREE_OFFLINE", "1");
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run ct")
    }

    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(
            o.status.success(),
            "ct {args:?} exited {:?}\nstdout: {}\nstderr: {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(args)).unwrap()
    }

    fn db(&self) -> PathBuf {
        self.root.join(".commandtree/commandtree.sqlite3")
    }

    /// Ids by label, from `ct list --json`.
    fn id(&self, label: &str) -> String {
        let list = self.json(&["list", "--json"]);
        list.as_array()
            .unwrap()
            .iter()
            .find(|c| c["label"] == label)
            .unwrap_or_else(|| panic!("no command {label}: {list}"))["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Stores summaries as the summary pipeline does (row with hash, summary, no embedding).
    fn store_summaries(&self, summaries: &[(&str, &str)]) {
        let ids: Vec<(String, &str)> = summaries.iter().map(|(l, s)| (self.id(l), *s)).collect();
        let mut store = Store::open(&self.db(), true).unwrap().unwrap();
        store
            .write(|tx| {
                for (id, summary) in &ids {
                    tx.execute(
                        "INSERT INTO commands (command_id, content_hash, summary, embedding, security_warning, last_updated)
                         VALUES (?1, 'hash', ?2, NULL, NULL, '2026-01-01T00:00:00.000Z')
                         ON CONFLICT(command_id) DO UPDATE SET summary = excluded.summary,
                           embedding = CASE WHEN commands.summary = excluded.summary THEN commands.embedding END",
                        (id, summary),
                    )?;
                }
                Ok(())
            })
            .unwrap();
    }

    fn search(&self, query: &str) -> Vec<(String, f64)> {
        let v = self.json(&["search", "--json", query]);
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["label"].as_str().unwrap().to_string(),
                    c["score"].as_f64().unwrap(),
                )
            })
            .collect()
    }

    fn first(&self, query: &str) -> String {
        let hits = self.search(query);
        assert!(!hits.is_empty(), "no result for {query:?}");
        hits[0].0.clone()
    }
}

const MAKEFILE: &str = "db-reset:\n\t./scripts/reset-db.sh\n\ntest:\n\tpytest\n\ndocker-push:\n\tdocker push app\n\ndocs:\n\tmkdocs build\n";
const PACKAGE_JSON: &str = r#"{"name": "web", "scripts": {"build": "tsc -p .", "dev": "vite", "lint": "eslint src", "clean": "rimraf dist"}}"#;

const SUMMARIES: &[(&str, &str)] = &[
    (
        "db-reset",
        "Drops the development database, recreates it, applies all migrations and loads the seed data.",
    ),
    ("test", "Runs the Python unit test suite with pytest."),
    (
        "docker-push",
        "Uploads the application's Docker image to the container registry.",
    ),
    (
        "docs",
        "Builds the project documentation website with MkDocs.",
    ),
    ("build", "Compiles the TypeScript sources into JavaScript."),
    (
        "dev",
        "Starts the Vite development server with hot module reloading.",
    ),
    (
        "lint",
        "Checks the source code for style problems and common mistakes with ESLint.",
    ),
    ("clean", "Deletes the dist folder with the build output."),
    (
        "backup.sh",
        "Dumps the production PostgreSQL database to a backup file.",
    ),
    (
        "deploy.sh",
        "Deploys the application to the Kubernetes cluster with Helm.",
    ),
];

#[test]
fn natural_language_queries_find_the_intended_command_first() {
    let Some(model) = support::model_dir() else {
        return;
    };
    let w = Ws::new("queries", model);
    w.store_summaries(SUMMARIES);

    // Nothing embedded yet: the first search indexes the workspace itself, offline, and finds.
    let o = w.run(&["search", "reset the development database"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("indexing 10 commands for search"), "{err}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("db-reset"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // Everything is indexed now: `ct embed` has nothing left to do.
    let r = w.json(&["embed", "--json"]);
    assert_eq!(r["embedded"], 0, "{r}");

    for (query, want) in [
        ("reset the development database", "db-reset"),
        ("run the unit tests", "test"),
        ("publish the container image", "docker-push"),
        ("generate the documentation site", "docs"),
        ("compile typescript", "build"),
        ("start a local web server that reloads on changes", "dev"),
        ("find code style issues", "lint"),
        ("remove build artifacts", "clean"),
        ("save a copy of the production data", "backup.sh"),
        ("ship it to kubernetes", "deploy.sh"),
    ] {
        assert_eq!(w.first(query), want, "{query}: {:?}", w.search(query));
    }

    // JSON: CommandItem objects, best first, with a score in 0..1.
    let v = w.json(&["search", "--json", "database"]);
    let arr = v.as_array().unwrap();
    assert!(!arr.is_empty());
    for c in arr {
        for field in [
            "id", "label", "type", "category", "command", "cwd", "filePath", "tags",
        ] {
            assert!(c.get(field).is_some(), "{field} in {c}");
        }
        let s = c["score"].as_f64().unwrap();
        assert!((0.3..=1.0).contains(&s), "{c}");
    }
    let scores: Vec<f64> = arr.iter().map(|c| c["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|p| p[0] >= p[1]), "{scores:?}");
    assert_eq!(
        w.json(&["search", "--json", "--limit", "1", "database"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // The threshold gates what enters by meaning alone: a semantic search at 0.99 finds
    // nothing, a hybrid one only what holds the word.
    assert!(
        w.json(&[
            "search",
            "--json",
            "--mode",
            "semantic",
            "--threshold",
            "0.99",
            "database"
        ])
        .as_array()
        .unwrap()
        .is_empty()
    );
    let mut worded: Vec<String> = w
        .json(&["search", "--json", "--threshold", "0.99", "database"])
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap().to_string())
        .collect();
    worded.sort();
    assert_eq!(worded, ["backup.sh", "db-reset"]);

    // Text: `label (NN%)`.
    let text = w.ok(&["search", "reset the development database"]);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("db-reset ("), "{text}");
    assert!(first.contains("%)"), "{text}");

    // Everything current: nothing to do.
    assert_eq!(w.json(&["embed", "--json"])["embedded"], 0);

    // Usage errors.
    assert_eq!(
        w.run(&["search", "--threshold", "2", "x"]).status.code(),
        Some(2)
    );
    assert_eq!(w.run(&["search", " "]).status.code(), Some(2));
}

#[test]
fn changed_summaries_reembed_and_fallbacks_are_replaced() {
    let Some(model) = support::model_dir() else {
        return;
    };
    let w = Ws::new("changes", model);
    // Only some summaries: the others are embedded from what discovery knows.
    w.store_summaries(&SUMMARIES[..5]);
    let r = w.json(&["embed", "--json"]);
    assert_eq!(
        (r["fromSummary"].as_u64(), r["fromDiscovered"].as_u64()),
        (Some(5), Some(5)),
        "{r}"
    );
    // A discovered-text embedding works offline with no LLM: here the script's name.
    assert_eq!(w.first("run the deploy script"), "deploy.sh");
    let conn = rusqlite::Connection::open(w.db()).unwrap();
    let source = |label: &str| -> String {
        conn.query_row(
            "SELECT source FROM embedding_sources WHERE command_id = ?1",
            [w.id(label)],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(source("deploy.sh"), "discovered");
    assert_eq!(source("docs"), "summary");

    // The real summary arrives (the pipeline clears the embedding of a changed summary).
    w.store_summaries(&SUMMARIES[5..]);
    let r = w.json(&["embed", "--json"]);
    assert_eq!(r["embedded"], 5, "{r}");
    assert_eq!(source("deploy.sh"), "summary");

    // A summary edited in place, embedding left behind: `ct search` catches up by itself.
    let lint = w.id("lint");
    conn.execute(
        "UPDATE commands SET summary = 'Generates the API reference documentation from the source comments.' WHERE command_id = ?1",
        [&lint],
    )
    .unwrap();
    assert_eq!(
        w.first("API reference documentation from source comments"),
        "lint"
    );
    assert_eq!(w.json(&["embed", "--json"])["embedded"], 0);

    // A command that no longer exists is never returned, even with its row still there.
    std::fs::write(w.root.join("Makefile"), "test:\n\tpytest\n").unwrap();
    let hits = w.search("reset the development database");
    assert!(hits.iter().all(|(l, _)| l != "db-reset"), "{hits:?}");

    // --force embeds everything again.
    let r = w.json(&["embed", "--force", "--json"]);
    assert_eq!(r["embedded"], 7, "{r}");
}

#[test]
fn db_check_verifies_sizes_and_coverage() {
    let Some(model) = support::model_dir() else {
        return;
    };
    let w = Ws::new("check", model);
    w.store_summaries(&SUMMARIES[..9]);
    w.ok(&["embed"]);
    // One command has no summary yet.
    let o = w.run(&["db", "check", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let check = |v: &Value, name: &str| -> Value {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {v}"))
            .clone()
    };
    assert_eq!(check(&v, "embeddings")["ok"], true, "{v}");
    let cov = check(&v, "coverage");
    assert_eq!(cov["ok"], false, "{v}");
    assert!(
        cov["detail"]
            .as_str()
            .unwrap()
            .contains("1 without a summary"),
        "{cov}"
    );

    w.store_summaries(&SUMMARIES[9..]);
    w.ok(&["embed"]);
    let text = w.ok(&["db", "check"]);
    assert!(text.contains("ok    coverage"), "{text}");
    assert!(
        text.contains("all 10 commands have a row, a summary and an embedding"),
        "{text}"
    );

    // A BLOB of the wrong size (written by something else): check fails and names it.
    let conn = rusqlite::Connection::open(w.db()).unwrap();
    conn.execute(
        "UPDATE commands SET embedding = zeroblob(12) WHERE command_id = ?1",
        [w.id("lint")],
    )
    .unwrap();
    let o = w.run(&["db", "check"]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("FAIL  embeddings"), "{out}");
    assert!(out.contains("(12 bytes)"), "{out}");
    // `ct embed` repairs it (the size is part of "current").
    assert_eq!(w.json(&["embed", "--json"])["embedded"], 1);
    w.ok(&["db", "check"]);
}

#[test]
fn a_missing_model_offline_names_the_folders_looked_in() {
    let Some(model) = support::model_dir() else {
        return;
    };
    let w = Ws::new("nomodel", model);
    w.store_summaries(SUMMARIES);
    let nowhere = w.root.join("no-model-here");
    let o = w
        .cmd(&["embed"])
        .env("COMMANDTREE_MODEL_DIR", &nowhere)
        .env("XDG_CACHE_HOME", w.root.join("cache"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    for dir in [
        nowhere.clone(),
        w.root.join(".commandtree/models/all-MiniLM-L6-v2"),
        w.root.join("cache/commandtree/models/all-MiniLM-L6-v2"),
    ] {
        assert!(err.contains(&dir.display().to_string()), "{dir:?} in {err}");
    }
    assert!(err.contains("offline"), "{err}");
}

const JUSTFILE: &str = "\
# everyone's favorite animate paper clip
clippy:
  cargo clippy --all --all-targets -- --deny warnings

fmt:
  cargo fmt --all

replace FROM TO:
  sd '{{FROM}}' '{{TO}}' src/*.rs

test:
  cargo test --all

man:
  cargo run -- --man > man/just.1
";

const TASKFILE: &str = "version: '3'\ntasks:\n  test:\n    desc: Runs the test suite\n    cmds: [go test ./...]\n  lint:\n    cmds: [golangci-lint run]\n";

#[test]
fn words_and_meaning_together_the_name_first_own_before_test_data() {
    let Some(model) = support::model_dir() else {
        return;
    };
    // No summaries and nothing indexed before: the first search works offline with what
    // discovery knows (names, descriptions, the recipes' own text).
    let w = Ws::bare(
        "hybrid",
        model,
        &[
            ("justfile", JUSTFILE),
            ("Taskfile.yml", TASKFILE),
            ("internal/testdata/Taskfile.yml", TASKFILE),
        ],
    );
    let o = w.run(&["search", "format the code"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("fmt ("),
        "a paraphrase of a name finds it: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    // An exact name wins over commands that only mention it or mean something near it.
    let v = w.json(&["search", "--json", "clippy"]);
    assert_eq!(v[0]["label"], "clippy", "{v}");
    assert_eq!(v[0]["exact"], true, "{v}");
    assert_eq!(v[0]["score"], 1.0, "{v}");
    assert!(v[0]["lexicalRank"].as_u64().is_some(), "{v}");
    assert!(v[0]["semanticRank"].as_u64().is_some(), "{v}");
    assert_eq!(w.first("open the manual page"), "man");
    // The project's own `test`, not its test data's copy: that one is searched only with --all,
    // and ranks after the project's own then.
    let own = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .filter(|c| c["label"] == "test")
            .map(|c| c["filePath"].as_str().unwrap().to_string())
            .collect()
    };
    let tests = own(&w.json(&["search", "--json", "run the tests"]));
    assert!(!tests.is_empty());
    assert!(tests.iter().all(|p| !p.contains("testdata")), "{tests:?}");
    let all = own(&w.json(&["search", "--json", "--all", "run the tests"]));
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(all.last().unwrap().contains("testdata"), "{all:?}");
    // Words alone need no model.
    let v = w.json(&["search", "--json", "--mode", "lexical", "lint"]);
    assert_eq!(v[0]["label"], "lint", "{v}");
    assert!(v[0].get("semanticRank").is_none(), "{v}");
    // Without the model (offline, nowhere to be found) a search says so and goes by words.
    let o = w
        .cmd(&["search", "--json", "fmt"])
        .env("COMMANDTREE_MODEL_DIR", w.root.join("no-model-here"))
        .env("XDG_CACHE_HOME", w.root.join("cache"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("searching by words only"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[0]["label"], "fmt", "{v}");
}
