//! `ct summarize`, `ct doctor`, and summaries in `ct list` / `ct show`, with the built binary
//! against a mock model on loopback.

use crate::support;

use crate::llm as common;

use crate::support::ct_with as ct;
use common::{Reply, Server};
use serde_json::{Value, json};
use std::path::PathBuf;

fn workspace(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ct-sum-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dir = std::fs::canonicalize(&dir).unwrap();
    let w = |rel: &str, content: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    };
    w("scripts/clean.sh", "#!/bin/sh\nrm -rf build dist\n");
    w("scripts/hello.sh", "#!/bin/sh\necho hello\n");
    w(
        "package.json",
        r#"{"name": "d", "scripts": {"build": "tsc", "test": "jest"}}"#,
    );
    dir
}

fn model() -> Server {
    Server::start(|req, _| {
        if req.method == "GET" {
            return Reply::json(200, json!({"data": [{"id": "mock-model"}]}));
        }
        let name = common::name_in(req);
        let warning = if req.body.contains("rm -rf") {
            "Deletes the build and dist folders."
        } else {
            ""
        };
        Reply::json(
            200,
            common::openai_tool_reply(
                "report_command_analysis",
                &json!({"summary": format!("Runs {name}."), "securityWarning": warning}),
            ),
        )
    })
}

#[test]
fn without_a_provider_everything_else_works_and_summarize_explains() {
    let root = workspace("none");
    let out = ct(&root, &[], &["summarize"]);
    assert_eq!(out.status.code(), Some(1));
    let err = support::stderr(&out);
    assert!(err.starts_with("No LLM provider is configured."), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one paragraph: {err}");
    assert!(err.contains("COMMANDTREE_LLM_BASE_URL") && err.contains("[llm]"));

    let out = ct(&root, &[], &["list"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(support::stdout(&out).contains("clean.sh"));

    // A dry run needs no model and writes nothing.
    let out = ct(&root, &[], &["summarize", "--dry-run", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["pending"].as_array().unwrap().len(), 4);
    assert_eq!(v["pending"][0]["reason"], "new");
    assert!(!root.join(".commandtree").exists());

    let out = ct(&root, &[], &["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        support::stdout(&out).contains("provider   none found"),
        "{}",
        support::stdout(&out)
    );

    let out = ct(
        &root,
        &[("COMMANDTREE_LLM_PROVIDER", "none")],
        &["summarize"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(support::stderr(&out).contains("switched off"));
}

#[test]
fn summarize_then_show_list_doctor() {
    let root = workspace("mock");
    let server = model();
    let base = server.v1();
    let env = [("COMMANDTREE_LLM_BASE_URL", base.as_str())];

    let out = ct(&root, &env, &["summarize", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summarized"].as_array().unwrap().len(), 4);
    assert_eq!(v["failed"], json!([]));
    // The model list (no model configured) and one request per command.
    assert_eq!(server.posts().len(), 4);

    let out = ct(&root, &env, &["summarize"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        support::stdout(&out).contains("All 4 commands already have current summaries"),
        "{}",
        support::stdout(&out)
    );
    assert_eq!(
        server.posts().len(),
        4,
        "an unchanged workspace asks nothing"
    );

    let out = ct(&root, &env, &["list"]);
    let listing = support::stdout(&out);
    assert!(listing.contains("⚠ clean.sh"), "{listing}");
    assert!(!listing.contains("⚠ hello.sh"), "{listing}");

    let out = ct(&root, &env, &["show", "clean.sh"]);
    let shown = support::stdout(&out);
    assert!(
        shown.contains("Runs clean.sh.") && shown.contains("⚠ Deletes the build and dist folders."),
        "{shown}"
    );
    let out = ct(&root, &env, &["show", "npm:build", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"], "Runs build.");
    assert!(v.get("securityWarning").is_none());

    // Named and forced: exactly that one.
    let out = ct(&root, &env, &["summarize", "--force", "npm:build"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert!(
        support::stdout(&out).contains("Summarized 1 of 1 command"),
        "{}",
        support::stdout(&out)
    );
    assert_eq!(server.posts().len(), 5);

    // An edited script is pending again, and only it.
    std::fs::write(
        root.join("scripts/hello.sh"),
        "#!/bin/sh\necho hello world\n",
    )
    .unwrap();
    let out = ct(&root, &env, &["summarize", "--dry-run"]);
    let plan = support::stdout(&out);
    assert!(
        plan.contains("changed  hello.sh (shell)")
            && plan.contains("1 to summarize, 3 already current"),
        "{plan}"
    );

    let out = ct(&root, &env, &["doctor"]);
    let report = support::stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert!(
        report.contains("OpenAI-compatible server (found through COMMANDTREE_LLM_BASE_URL)"),
        "{report}"
    );
    assert!(
        report.contains("model      mock-model (the first the server lists)"),
        "{report}"
    );
    assert!(report.contains("live test  ok"), "{report}");
}

#[test]
fn a_bad_key_stops_the_batch_with_the_reason_and_never_shows_the_key() {
    let root = workspace("badkey");
    let server = Server::start(|req, _| {
        let auth = req.header("authorization").unwrap_or("").to_string();
        Reply::raw(
            401,
            &json!({"error": {"message": format!("Incorrect API key provided: {auth}")}})
                .to_string(),
        )
    });
    let base = server.v1();
    let env = [
        ("COMMANDTREE_LLM_BASE_URL", base.as_str()),
        ("COMMANDTREE_LLM_MODEL", "m"),
        ("COMMANDTREE_LLM_API_KEY", "sk-very-secret-42"),
    ];
    // The user's own config ($HOME/.config/commandtree, HOME as `ct` sets it): a workspace
    // file may set [llm] and [summaries] only after `ct trust`.
    let user = root.join(".home/.config/commandtree");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("config.toml"),
        "[llm]\nconcurrency = 1\n[summaries]\nmax_consecutive_failures = 2\n",
    )
    .unwrap();
    let out = ct(&root, &env, &["summarize"]);
    assert_eq!(out.status.code(), Some(1));
    let err = support::stderr(&out);
    let all = format!("{err}{}", support::stdout(&out));
    assert!(err.contains("stopped after 2 failures in a row"), "{err}");
    assert!(
        err.contains("rejected the API key") && err.contains("set COMMANDTREE_LLM_API_KEY"),
        "{err}"
    );
    assert!(!all.contains("sk-very-secret-42"), "{all}");
    assert!(
        support::stdout(&out).contains("Summarized 0 of 4 commands, 2 failed, 2 not attempted"),
        "{}",
        support::stdout(&out)
    );
    assert_eq!(server.count(), 2);
    let db = std::fs::read(root.join(".commandtree/commandtree.sqlite3")).unwrap_or_default();
    assert!(!String::from_utf8_lossy(&db).contains("sk-very-secret-42"));
}
