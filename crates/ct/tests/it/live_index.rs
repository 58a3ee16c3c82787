//! The servers answer from the engine's live index: after the walk that starts it, no request
//! walks the tree again, and a change on disk or in the database still reaches the next
//! answer. The servers run in this process (the editor server over pipes, the MCP server over
//! an in-memory duplex with the SDK's client) so the walks can be counted
//! (`commandtree_core::discover::full_walks`, per root).

use crate::support;

use crate::support::{eventually, executable, workspace, write};
use commandtree_core::discover::full_walks;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(60);

fn sample(name: &str) -> PathBuf {
    let root = workspace("live", name).canonicalize().unwrap();
    write(
        &root,
        "Makefile",
        "build:\n\tcc -o app main.c\n\nclean:\n\trm -rf out\n",
    );
    write(
        &root,
        "package.json",
        r#"{"scripts": {"test": "node test.js", "lint": "eslint ."}}"#,
    );
    executable(&root, "scripts/deploy.sh", "#!/bin/sh\necho deploy\n");
    root
}

/// An editor server in this process, spoken to over pipes.
struct Editor {
    to: std::io::PipeWriter,
    from: Receiver<Value>,
    next: i64,
    server: Option<std::thread::JoinHandle<i32>>,
}

impl Editor {
    fn start(root: &Path) -> Editor {
        let (server_in, to) = std::io::pipe().unwrap();
        let (from_server, server_out) = std::io::pipe().unwrap();
        let opts = commandtree_lsp::Options {
            root: Some(root.to_path_buf()),
            cwd: root.to_path_buf(),
            exit_with_client: None,
        };
        let server =
            std::thread::spawn(move || commandtree_lsp::serve(opts, server_in, server_out));
        let (tx, from) = mpsc::channel();
        std::thread::spawn(move || support::read_frames(from_server, tx));
        let mut e = Editor {
            to,
            from,
            next: 1,
            server: Some(server),
        };
        e.request(
            "initialize",
            json!({"rootUri": null, "initializationOptions": {"workspaceRoot": root}}),
        );
        e.notify("initialized", json!({}));
        e
    }

    fn send(&mut self, v: Value) {
        let body = v.to_string();
        write!(self.to, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.to.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let until = Instant::now() + WAIT;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let v = self.from.recv_timeout(left).expect("an answer in time");
            if v["id"] == json!(id) {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    fn labels(&mut self, root: &Path) -> Vec<String> {
        let r = self.request("commandtree/discoverTasks", json!({"workspaceRoot": root}));
        r["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["label"].as_str().unwrap().to_string())
            .collect()
    }
}

impl Drop for Editor {
    fn drop(&mut self) {
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        if let Some(s) = self.server.take() {
            let _ = s.join();
        }
    }
}

#[test]
fn editor_requests_after_start_do_not_walk_the_tree() {
    let root = sample("lsp");
    let mut ed = Editor::start(&root);
    let first = ed.labels(&root);
    assert!(first.contains(&"build".to_string()), "{first:?}");
    assert_eq!(full_walks(&root), 1, "the live index's first walk");
    for _ in 0..5 {
        assert_eq!(ed.labels(&root), first);
        ed.request("commandtree/tree", json!({}));
        ed.request("commandtree/quick", json!({}));
        ed.request("commandtree/tags", json!({}));
    }
    // The `@run` LLM skill finds its command in the live index too.
    let ran = ed.request(
        "commandtree/runSkill",
        json!({"invocation": "@run --command deploy.sh", "context": false}),
    );
    assert!(ran.to_string().contains("deploy"), "{ran}");
    assert_eq!(full_walks(&root), 1, "requests answered without a walk");

    // A tag written through the server shows in the very next answer.
    let id = ed.request("commandtree/discoverTasks", json!({"workspaceRoot": root}))["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["label"] == "build")
        .unwrap()["id"]
        .clone();
    ed.request(
        "commandtree/tag",
        json!({"id": id, "tag": "ci", "add": true}),
    );
    let tree = ed.request("commandtree/tree", json!({"tag": "ci"}));
    assert!(tree.to_string().contains("\"build\""), "{tree}");
    // The listing asked before (and kept) is not answered from the old list.
    let tasks = ed.request("commandtree/discoverTasks", json!({"workspaceRoot": root}));
    let build = tasks["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["label"] == "build")
        .unwrap()
        .clone();
    assert_eq!(build["tags"], json!(["ci"]), "{build}");

    // A new file reaches the answers through the watcher, still without a walk.
    executable(&root, "scripts/release.sh", "#!/bin/sh\nrm -rf ~/out\n");
    assert!(
        eventually(|| ed.labels(&root).contains(&"release.sh".to_string())),
        "the new script is listed"
    );
    let tasks = ed.request("commandtree/discoverTasks", json!({"workspaceRoot": root}));
    let release = tasks["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["label"] == "release.sh")
        .unwrap()
        .clone();
    assert!(
        release["securityWarning"]
            .as_str()
            .is_some_and(|w| w.contains("rm")),
        "a watched command carries its static findings as a load gives them: {release}"
    );
    assert_eq!(full_walks(&root), 1);
    let _ = std::fs::remove_dir_all(&root);
}

#[tokio::test]
async fn mcp_calls_after_start_do_not_walk_the_tree() {
    let root = sample("mcp");
    let engine = commandtree_engine::Engine::open(Some(&root), &root).unwrap();
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
    assert_eq!(full_walks(&root), 1);
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
    assert_eq!(full_walks(&root), 1, "calls answered without a walk");
    executable(&root, "scripts/release.sh", "#!/bin/sh\necho release\n");
    let until = Instant::now() + WAIT;
    while !list(&client).await.contains("release.sh") {
        assert!(Instant::now() < until, "the new script is listed in time");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(full_walks(&root), 1);
    let _ = client.cancel().await;
    let _ = std::fs::remove_dir_all(&root);
}
