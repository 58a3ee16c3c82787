//! End-to-end: `ct embed`, `ct search` and the embedding checks of `ct db check`, through the
//! built `ct`, on a fixture workspace whose summaries are stored in its database, with the real
//! all-MiniLM-L6-v2 model (fetched by `scripts/fetch-test-model.sh`).

use crate::support::{Workspace, labelled, model_dir};
use commandtree_store::Store;
use serde_json::Value;
use std::path::Path;

/// A git top level whose `ct` finds the model at `model` and never downloads.
fn bare(model: &Path) -> Workspace {
    Workspace::new()
        .dir(".git")
        .env("COMMANDTREE_MODEL_DIR", model)
        .env("COMMANDTREE_OFFLINE", "1")
}

/// A make target, npm scripts and two shell scripts (see [`SUMMARIES`]).
fn workspace(model: &Path) -> Workspace {
    bare(model)
        .file("Makefile", MAKEFILE)
        .file("package.json", PACKAGE_JSON)
        .file(
            "scripts/backup.sh",
            "#!/bin/sh\npg_dump prod > backup.sql\n",
        )
        .file("scripts/deploy.sh", "#!/bin/sh\nhelm upgrade app ./chart\n")
}

/// Ids by label, from `ct list --json`.
fn id(w: &Workspace, label: &str) -> String {
    labelled(&w.json(["list", "--json"]), label)["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Stores summaries as the summary pipeline does (row with hash, summary, no embedding).
fn store_summaries(w: &Workspace, summaries: &[(&str, &str)]) {
    let ids: Vec<(String, &str)> = summaries.iter().map(|(l, s)| (id(w, l), *s)).collect();
    let mut store = Store::open(&w.db(), true).unwrap().unwrap();
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

/// `ct search --json QUERY`: (label, score), best first.
fn search(w: &Workspace, query: &str) -> Vec<(String, f64)> {
    w.json(["search", "--json", query])
        .as_array()
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

#[track_caller]
fn first(w: &Workspace, query: &str) -> String {
    let hits = search(w, query);
    assert!(!hits.is_empty(), "no result for {query:?}");
    hits[0].0.clone()
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
    let Some(model) = model_dir() else {
        return;
    };
    let w = workspace(&model);
    store_summaries(&w, SUMMARIES);

    // Nothing embedded yet: the first search indexes the workspace itself, offline, and finds.
    w.run(["search", "reset the development database"])
        .success()
        .stderr_has("indexing 10 commands for search")
        .stdout_has("db-reset");
    // Everything is indexed now: `ct embed` has nothing left to do.
    let r = w.json(["embed", "--json"]);
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
        assert_eq!(first(&w, query), want, "{query}: {:?}", search(&w, query));
    }

    // JSON: CommandItem objects, best first, with a score in 0..1.
    let v = w.json(["search", "--json", "database"]);
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
        w.json(["search", "--json", "--limit", "1", "database"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // The threshold gates what enters by meaning alone: a semantic search at 0.99 finds
    // nothing, a hybrid one only what holds the word.
    assert!(
        w.json([
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
        .json(["search", "--json", "--threshold", "0.99", "database"])
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap().to_string())
        .collect();
    worded.sort();
    assert_eq!(worded, ["backup.sh", "db-reset"]);

    // Text: `label (NN%)`.
    let text = w
        .run(["search", "reset the development database"])
        .success()
        .stdout();
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("db-reset ("), "{text}");
    assert!(first.contains("%)"), "{text}");

    // Everything current: nothing to do.
    assert_eq!(w.json(["embed", "--json"])["embedded"], 0);

    // Usage errors.
    w.run(["search", "--threshold", "2", "x"]).code(2);
    w.run(["search", " "]).code(2);
}

#[test]
fn changed_summaries_reembed_and_fallbacks_are_replaced() {
    let Some(model) = model_dir() else {
        return;
    };
    let w = workspace(&model);
    // Only some summaries: the others are embedded from what discovery knows.
    store_summaries(&w, &SUMMARIES[..5]);
    let r = w.json(["embed", "--json"]);
    assert_eq!(
        (r["fromSummary"].as_u64(), r["fromDiscovered"].as_u64()),
        (Some(5), Some(5)),
        "{r}"
    );
    // A discovered-text embedding works offline with no LLM: here the script's name.
    assert_eq!(first(&w, "run the deploy script"), "deploy.sh");
    let conn = rusqlite::Connection::open(w.db()).unwrap();
    let source = |label: &str| -> String {
        conn.query_row(
            "SELECT source FROM embedding_sources WHERE command_id = ?1",
            [id(&w, label)],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(source("deploy.sh"), "discovered");
    assert_eq!(source("docs"), "summary");

    // The real summary arrives (the pipeline clears the embedding of a changed summary).
    store_summaries(&w, &SUMMARIES[5..]);
    let r = w.json(["embed", "--json"]);
    assert_eq!(r["embedded"], 5, "{r}");
    assert_eq!(source("deploy.sh"), "summary");

    // A summary edited in place, embedding left behind: `ct search` catches up by itself.
    let lint = id(&w, "lint");
    conn.execute(
        "UPDATE commands SET summary = 'Generates the API reference documentation from the source comments.' WHERE command_id = ?1",
        [&lint],
    )
    .unwrap();
    assert_eq!(
        first(&w, "API reference documentation from source comments"),
        "lint"
    );
    assert_eq!(w.json(["embed", "--json"])["embedded"], 0);

    // A command that no longer exists is never returned, even with its row still there.
    std::fs::write(w.join("Makefile"), "test:\n\tpytest\n").unwrap();
    let hits = search(&w, "reset the development database");
    assert!(hits.iter().all(|(l, _)| l != "db-reset"), "{hits:?}");

    // --force embeds everything again.
    let r = w.json(["embed", "--force", "--json"]);
    assert_eq!(r["embedded"], 7, "{r}");
}

#[test]
fn db_check_verifies_sizes_and_coverage() {
    let Some(model) = model_dir() else {
        return;
    };
    let w = workspace(&model);
    store_summaries(&w, &SUMMARIES[..9]);
    w.run(["embed"]).success();
    // One command has no summary yet.
    let v = w.run(["db", "check", "--json"]).code(1).json();
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

    store_summaries(&w, &SUMMARIES[9..]);
    w.run(["embed"]).success();
    let text = w.run(["db", "check"]).success().stdout();
    assert!(text.contains("ok    coverage"), "{text}");
    assert!(
        text.contains("all 10 commands have a row, a summary and an embedding"),
        "{text}"
    );

    // A BLOB of the wrong size (written by something else): check fails and names it.
    let conn = rusqlite::Connection::open(w.db()).unwrap();
    conn.execute(
        "UPDATE commands SET embedding = zeroblob(12) WHERE command_id = ?1",
        [id(&w, "lint")],
    )
    .unwrap();
    w.run(["db", "check"])
        .code(1)
        .stdout_has("FAIL  embeddings")
        .stdout_has("(12 bytes)");
    // `ct embed` repairs it (the size is part of "current").
    assert_eq!(w.json(["embed", "--json"])["embedded"], 1);
    w.run(["db", "check"]).success();
}

#[test]
fn a_missing_model_offline_names_the_folders_looked_in() {
    let Some(model) = model_dir() else {
        return;
    };
    let w = workspace(&model);
    store_summaries(&w, SUMMARIES);
    let nowhere = w.join("no-model-here");
    let err = w
        .ct()
        .arg("embed")
        .env("COMMANDTREE_MODEL_DIR", &nowhere)
        .env("XDG_CACHE_HOME", w.join("cache"))
        .run()
        .code(1)
        .stderr();
    assert_eq!(err.lines().count(), 1, "{err}");
    for dir in [
        nowhere.clone(),
        w.join(".commandtree/models/all-MiniLM-L6-v2"),
        w.join("cache/commandtree/models/all-MiniLM-L6-v2"),
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
    let Some(model) = model_dir() else {
        return;
    };
    // No summaries and nothing indexed before: the first search works offline with what
    // discovery knows (names, descriptions, the recipes' own text).
    let w = bare(&model)
        .file("justfile", JUSTFILE)
        .file("Taskfile.yml", TASKFILE)
        .file("internal/testdata/Taskfile.yml", TASKFILE);
    let out = w.run(["search", "format the code"]).success().stdout();
    assert!(
        out.starts_with("fmt ("),
        "a paraphrase of a name finds it: {out}"
    );
    // An exact name wins over commands that only mention it or mean something near it.
    let v = w.json(["search", "--json", "clippy"]);
    assert_eq!(v[0]["label"], "clippy", "{v}");
    assert_eq!(v[0]["exact"], true, "{v}");
    assert_eq!(v[0]["score"], 1.0, "{v}");
    assert!(v[0]["lexicalRank"].as_u64().is_some(), "{v}");
    assert!(v[0]["semanticRank"].as_u64().is_some(), "{v}");
    assert_eq!(first(&w, "open the manual page"), "man");
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
    let tests = own(&w.json(["search", "--json", "run the tests"]));
    assert!(!tests.is_empty());
    assert!(tests.iter().all(|p| !p.contains("testdata")), "{tests:?}");
    let all = own(&w.json(["search", "--json", "--all", "run the tests"]));
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(all.last().unwrap().contains("testdata"), "{all:?}");
    // Words alone need no model.
    let v = w.json(["search", "--json", "--mode", "lexical", "lint"]);
    assert_eq!(v[0]["label"], "lint", "{v}");
    assert!(v[0].get("semanticRank").is_none(), "{v}");
    // Without the model (offline, nowhere to be found) a search says so and goes by words.
    let v = w
        .ct()
        .args(["search", "--json", "fmt"])
        .env("COMMANDTREE_MODEL_DIR", w.join("no-model-here"))
        .env("XDG_CACHE_HOME", w.join("cache"))
        .run()
        .success()
        .stderr_has("searching by words only")
        .json();
    assert_eq!(v[0]["label"], "fmt", "{v}");
}

#[test]
fn a_test_app_named_by_its_folder_is_searched_though_not_listed() {
    // Words alone: no model needed.
    let w = Workspace::new()
        .dir(".git")
        .env("COMMANDTREE_OFFLINE", "1")
        .file(
            "package.json",
            r#"{"scripts":{"build":"vite build","test":"vitest run"}}"#,
        )
        .file(
            "test/apps/basics/package.json",
            r#"{"scripts":{"dev":"vite dev","build":"vite build"}}"#,
        )
        .file(
            "test/apps/options/package.json",
            r#"{"scripts":{"dev":"vite dev"}}"#,
        )
        .file(
            "test/apps/build/package.json",
            r#"{"scripts":{"dev":"vite dev"}}"#,
        )
        .file("third_party/zlib/tests/Makefile", "check:\n\ttrue\n")
        // httpx's `tests/client/`: the tests of its client, not a client.
        .file(
            "tests/client/test_headers.py",
            "#!/usr/bin/env python3\n\"\"\"Headers of the client.\"\"\"\nif __name__ == \"__main__\":\n    pass\n",
        )
        // Kafka's demos: named whole by their file's name.
        .file(
            "examples/bin/exactly-once-demo.sh",
            "#!/bin/sh\njava -cp demo.jar Demo\n",
        )
        .file("examples/bin/build-demo.sh", "#!/bin/sh\njava -cp demo.jar Build\n");
    let paths = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["search", "--json", "--mode", "lexical"];
        a.extend(args);
        w.json(a)
            .as_array()
            .unwrap()
            .iter()
            .map(|c| format!("{} {}", c["filePath"].as_str().unwrap(), c["label"]))
            .collect()
    };
    let listed = w.json(["list", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    let found = paths(&["start the basics test app's dev server"]);
    assert!(
        found[0].contains("test/apps/basics/package.json") && found[0].ends_with("\"dev\""),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|p| p.contains("apps/options")),
        "{found:?}"
    );
    // A query that names no test app's folder searches the listed commands alone...
    let found = paths(&["start the dev server"]);
    assert!(!found.iter().any(|p| p.contains("test/apps")), "{found:?}");
    // ...nor does a word a listed command's name holds ("build")...
    let found = paths(&["start the build test app's dev server"]);
    assert!(!found.iter().any(|p| p.contains("test/apps")), "{found:?}");
    // ...and one naming a kind of folder names no one thing: not the vendored library's
    // `tests/` folder.
    let found = paths(&["check the tests"]);
    assert!(
        !found.iter().any(|p| p.contains("third_party")),
        "{found:?}"
    );
    // A folder inside a kind of folder is named with its kind: "the client tests" are
    // `tests/client/`'s, "the command line client" is not.
    let found = paths(&["run the command line client"]);
    assert!(
        !found.iter().any(|p| p.contains("tests/client")),
        "{found:?}"
    );
    let found = paths(&["run the client tests"]);
    assert!(
        found.iter().any(|p| p.contains("tests/client")),
        "{found:?}"
    );
    // A script named whole by the query, by its own file's name.
    let found = paths(&["run the exactly once demo"]);
    assert!(found[0].contains("exactly-once-demo.sh"), "{found:?}");
    // Not one whose name's words are all a listed command's ("build").
    let found = paths(&["run the build demo"]);
    assert!(!found.iter().any(|p| p.contains("examples")), "{found:?}");
    let all = paths(&["--all", "check the tests"]);
    assert!(all.iter().any(|p| p.contains("third_party")), "{all:?}");
}
