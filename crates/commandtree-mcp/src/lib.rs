//! CommandTree over the Model Context Protocol: `ct mcp` serves a workspace's commands to AI
//! agents on stdio, built with the official Rust SDK (`rmcp`) on the engine facade. Tokio stays
//! inside this crate: the CLI calls [`serve_stdio`], which blocks until the client hangs up.
//!
//! Tools: `list_commands`, `show_command`, `search_commands`, `run_command`, `tag_command`,
//! `star_command`, `summarize_commands`. Resources: `commandtree://command/{id}`. Prompts: none
//! until prompt definitions are discovered. The watcher keeps clients' resource lists current
//! (`notifications/resources/list_changed`).

pub mod install;
pub mod policy;
mod schema;
mod server;
mod text;

pub use policy::Policy;
pub use server::{COMMAND_URI, CommandTreeServer, OUTPUT_LIMIT, command_uri, id_of_uri};

use commandtree_core::{Warning, Workspace};
use commandtree_engine::{Engine, WatchEvent, WatchOptions, Watcher};
use rmcp::{Peer, RoleServer, ServiceExt};
use std::path::PathBuf;

/// How `ct mcp` was started.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--root`.
    pub root: Option<PathBuf>,
    pub cwd: PathBuf,
    /// Run commands with a security warning without asking (`--allow-warned`).
    pub allow_warned: bool,
}

/// Serves the workspace on stdin/stdout until the client closes the connection. Warnings
/// (settings, the `[mcp]` rules) go to `warn`, which the caller prints on stderr: stdout
/// belongs to the protocol.
pub fn serve_stdio(opts: Options, warn: &mut dyn FnMut(&Warning)) -> Result<(), String> {
    let engine = Engine::open(opts.root.as_deref(), &opts.cwd).map_err(|e| e.to_string())?;
    for w in engine.settings_warnings() {
        warn(w);
    }
    let (policy, problems) = Policy::from_user_config();
    for w in &problems {
        warn(w);
    }
    let root = engine.root().to_path_buf();
    let server = CommandTreeServer::new(engine, opts.allow_warned, policy);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP handshake failed: {e}"))?;
        let watcher = watch_workspace(Workspace::open(Some(&root), &root), service.peer().clone());
        let ended = service.waiting().await;
        if let Some(w) = watcher {
            w.stop();
        }
        ended.map(|_| ()).map_err(|e| e.to_string())
    })
}

/// Starts the watcher: every change of the workspace's commands after the first discovery
/// sends `notifications/resources/list_changed` to `peer`. `None` when the folder cannot be
/// watched (the server works without live updates then).
pub fn watch_workspace(ws: Workspace, peer: Peer<RoleServer>) -> Option<Watcher> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let watcher = Watcher::start(ws, WatchOptions::default(), move |event| {
        if let WatchEvent::Changed { delta, .. } = event
            && !(delta.added.is_empty() && delta.updated.is_empty() && delta.removed.is_empty())
        {
            let _ = tx.send(());
        }
    })
    .ok()?;
    tokio::spawn(async move {
        while rx.recv().await.is_some() {
            // One notification for a burst of batches.
            while rx.try_recv().is_ok() {}
            if commands_changed(&peer).await.is_err() {
                break;
            }
        }
    });
    Some(watcher)
}

/// Tells the client that the commands changed: the command resources are listed anew.
pub async fn commands_changed(peer: &Peer<RoleServer>) -> Result<(), rmcp::ServiceError> {
    peer.notify_resource_list_changed().await
}
