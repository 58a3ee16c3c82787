//! The servers answer from the engine's live index: after the walk that starts it, no request
//! walks the tree again, and a change on disk or in the database still reaches the next
//! answer. The servers run in this process (the editor server over pipes, the MCP server over
//! an in-memory duplex with the SDK's client) so the walks can be counted
//! (`commandtree_core::discover::full_walks`, per root).

use crate::support::lsp::{Lsp, WAIT};
use crate::support::{Workspace, eventually};
use commandtree_core::discover::full_walks;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

fn sample() -> Workspace {
    Workspace::new()
        .file(
            "Makefile",
            "build:\n\tcc -o app main.c\n\nclean:\n\trm -rf out\n",
        )
        .file(
            "package.json",
            r#"{"scripts": {"test": "node test.js", "lint": "eslint ."}}"#,
        )
        .executable("scripts/deploy.sh", "#!/bin/sh\necho deploy\n")
}

/// The editor server of this process, initialized for `root`.
fn editor(root: &Path) -> Lsp {
    let mut ed = Lsp::in_process(root);
    ed.ok(
        "initialize",
        json!({"rootUri": null, "initializationOptions": {"workspaceRoot": root}}),
    );
    ed.notify("initialized", json!({}));
    ed
}

/// The listing's commands, as `commandtree/discoverTasks` answers.
fn tasks(ed: &mut Lsp, root: &Path) -> Vec<Value> {
    ed.ok("commandtree/discoverTasks", json!({"workspaceRoot": root}))["tasks"]
        .as_array()
        .unwrap()
        .clone()
}

fn task(ed: &mut Lsp, root: &Path, label: &str) -> Value {
    tasks(ed, root)
        .into_iter()
        .find(|t| t["label"] == label)
        .unwrap()
}

fn labels(ed: &mut Lsp, root: &Path) -> Vec<String> {
    tasks(ed, root)
        .iter()
        .map(|t| t["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn editor_requests_after_start_do_not_walk_the_tree() {
    let w = sample();
    let root = w.root();
    let mut ed = editor(root);
    let first = labels(&mut ed, root);
    assert!(first.contains(&"build".to_string()), "{first:?}");
    assert_eq!(full_walks(root), 1, "the live index's first walk");
    for _ in 0..5 {
        assert_eq!(labels(&mut ed, root), first);
        ed.ok("commandtree/tree", json!({}));
        ed.ok("commandtree/quick", json!({}));
        ed.ok("commandtree/tags", json!({}));
    }
    // The `@run` LLM skill finds its command in the live index too.
    let ran = ed.ok(
        "commandtree/runSkill",
        json!({"invocation": "@run --command deploy.sh", "context": false}),
    );
    assert!(ran.to_string().contains("deploy"), "{ran}");
    assert_eq!(full_walks(root), 1, "requests answered without a walk");

    // A tag written through the server shows in the very next answer.
    let id = task(&mut ed, root, "build")["id"].clone();
    ed.ok(
        "commandtree/tag",
        json!({"id": id, "tag": "ci", "add": true}),
    );
    let tree = ed.ok("commandtree/tree", json!({"tag": "ci"}));
    assert!(tree.to_string().contains("\"build\""), "{tree}");
    // The listing asked before (and kept) is not answered from the old list.
    let build = task(&mut ed, root, "build");
    assert_eq!(build["tags"], json!(["ci"]), "{build}");

    // A new file reaches the answers through the watcher, still without a walk.
    w.write_executable("scripts/release.sh", "#!/bin/sh\nrm -rf ~/out\n");
    assert!(
        eventually(|| labels(&mut ed, root).contains(&"release.sh".to_string())),
        "the new script is listed"
    );
    let release = task(&mut ed, root, "release.sh");
    assert!(
        release["securityWarning"]
            .as_str()
            .is_some_and(|w| w.contains("rm")),
        "a watched command carries its static findings as a load gives them: {release}"
    );
    assert_eq!(full_walks(root), 1);
}

#[tokio::test]
async fn mcp_calls_after_start_do_not_walk_the_tree() {
    let w = sample();
    let root = w.root();
    let engine = commandtree_engine::Engine::open(Some(root), root).unwrap();
    let server =
        commandtree_mcp::CommandTreeServer::new(engine, false, commandtree_mcp::Policy::default());
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("server handshake");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("client handshake");
    let list = |client: &rmcp::service::RunningService<rmcp::RoleClient, ()>| {
        let peer = client.peer().clone();
        async move {
            let r = peer
                .call_tool(
                    CallToolRequestParams::new("list_commands")
                        .with_arguments(json!({"all": true}).as_object().unwrap().clone()),
                )
                .await
                .expect("list_commands");
            r.structured_content.unwrap_or(Value::Null).to_string()
        }
    };
    assert!(list(&client).await.contains("deploy.sh"));
    assert_eq!(full_walks(root), 1);
    for _ in 0..5 {
        list(&client).await;
        client
            .peer()
            .call_tool(
                CallToolRequestParams::new("show_command")
                    .with_arguments(json!({"id": "build"}).as_object().unwrap().clone()),
            )
            .await
            .expect("show_command");
        client.peer().list_resources(None).await.expect("resources");
        client
            .peer()
            .read_resource(ReadResourceRequestParams::new(
                "commandtree://command/scripts%2Fdeploy.sh",
            ))
            .await
            .ok();
    }
    assert_eq!(full_walks(root), 1, "calls answered without a walk");
    w.write_executable("scripts/release.sh", "#!/bin/sh\necho release\n");
    let until = Instant::now() + WAIT;
    while !list(&client).await.contains("release.sh") {
        assert!(Instant::now() < until, "the new script is listed in time");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(full_walks(root), 1);
    let _ = client.cancel().await;
}
