//! `ct summarize`, `ct doctor`, and summaries in `ct list` / `ct show`, with the built binary
//! against a mock model on loopback.

use crate::llm as common;
use crate::support::Workspace;
use common::{Reply, Server};
use serde_json::json;

fn workspace() -> Workspace {
    Workspace::new()
        .file("scripts/clean.sh", "#!/bin/sh\nrm -rf build dist\n")
        .file("scripts/hello.sh", "#!/bin/sh\necho hello\n")
        .file(
            "package.json",
            r#"{"name": "d", "scripts": {"build": "tsc", "test": "jest"}}"#,
        )
}

fn model() -> Server {
    Server::start(|req, _| {
        if req.method == "GET" {
            return common::model_list();
        }
        let name = common::name_in(req);
        let warning = if req.body.contains("rm -rf") {
            "Deletes the build and dist folders."
        } else {
            ""
        };
        common::analysis_reply(&format!("Runs {name}."), warning)
    })
}

#[test]
fn without_a_provider_everything_else_works_and_summarize_explains() {
    let root = workspace();
    let err = root
        .run(["summarize"])
        .code(1)
        .stderr_has("COMMANDTREE_LLM_BASE_URL")
        .stderr_has("[llm]")
        .stderr();
    assert!(err.starts_with("No LLM provider is configured."), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one paragraph: {err}");

    root.run(["list"]).code(0).stdout_has("clean.sh");

    // A dry run needs no model and writes nothing.
    let v = root
        .run(["summarize", "--dry-run", "--json"])
        .code(0)
        .json();
    assert_eq!(v["pending"].as_array().unwrap().len(), 4);
    assert_eq!(v["pending"][0]["reason"], "new");
    assert!(!root.join(".commandtree").exists());

    root.run(["doctor"])
        .code(1)
        .stdout_has("provider   none found");

    root.ct()
        .env("COMMANDTREE_LLM_PROVIDER", "none")
        .arg("summarize")
        .run()
        .code(1)
        .stderr_has("switched off");
}

#[test]
fn summarize_then_show_list_doctor() {
    let server = model();
    let root = workspace().env("COMMANDTREE_LLM_BASE_URL", server.v1());

    let v = root.run(["summarize", "--json"]).code(0).json();
    assert_eq!(v["summarized"].as_array().unwrap().len(), 4);
    assert_eq!(v["failed"], json!([]));
    // The model list (no model configured) and one request per command.
    assert_eq!(server.posts().len(), 4);

    root.run(["summarize"])
        .code(0)
        .stdout_has("All 4 commands already have current summaries");
    assert_eq!(
        server.posts().len(),
        4,
        "an unchanged workspace asks nothing"
    );

    root.run(["list"])
        .stdout_has("⚠ clean.sh")
        .stdout_lacks("⚠ hello.sh");

    root.run(["show", "clean.sh"])
        .stdout_has("Runs clean.sh.")
        .stdout_has("⚠ Deletes the build and dist folders.");
    let v = root.run(["show", "npm:build", "--json"]).json();
    assert_eq!(v["summary"], "Runs build.");
    assert!(v.get("securityWarning").is_none());

    // Named and forced: exactly that one.
    root.run(["summarize", "--force", "npm:build"])
        .code(0)
        .stdout_has("Summarized 1 of 1 command");
    assert_eq!(server.posts().len(), 5);

    // An edited script is pending again, and only it.
    root.write("scripts/hello.sh", "#!/bin/sh\necho hello world\n");
    root.run(["summarize", "--dry-run"])
        .stdout_has("changed  hello.sh (shell)")
        .stdout_has("1 to summarize, 3 already current");

    root.run(["doctor"])
        .code(0)
        .stdout_has("OpenAI-compatible server (found through COMMANDTREE_LLM_BASE_URL)")
        .stdout_has("model      mock-model (the first the server lists)")
        .stdout_has("live test  ok");
}

#[test]
fn a_bad_key_stops_the_batch_with_the_reason_and_never_shows_the_key() {
    let server = Server::start(|req, _| {
        let auth = req.header("authorization").unwrap_or("").to_string();
        Reply::raw(
            401,
            &json!({"error": {"message": format!("Incorrect API key provided: {auth}")}})
                .to_string(),
        )
    });
    let root = workspace()
        .env("COMMANDTREE_LLM_BASE_URL", server.v1())
        .env("COMMANDTREE_LLM_MODEL", "m")
        .env("COMMANDTREE_LLM_API_KEY", "sk-very-secret-42")
        // The user's own config ($HOME/.config/commandtree, HOME as `ct` sets it): a workspace
        // file may set [llm] and [summaries] only after `ct trust`.
        .file(
            ".home/.config/commandtree/config.toml",
            "[llm]\nconcurrency = 1\n[summaries]\nmax_consecutive_failures = 2\n",
        );
    let out = root
        .run(["summarize"])
        .code(1)
        .stderr_has("stopped after 2 failures in a row")
        .stderr_has("rejected the API key")
        .stderr_has("set COMMANDTREE_LLM_API_KEY")
        .stdout_has("Summarized 0 of 4 commands, 2 failed, 2 not attempted");
    let all = format!("{}{}", out.stderr(), out.stdout());
    assert!(!all.contains("sk-very-secret-42"), "{all}");
    assert_eq!(server.count(), 2);
    let db = std::fs::read(root.db()).unwrap_or_default();
    assert!(!String::from_utf8_lossy(&db).contains("sk-very-secret-42"));
}
