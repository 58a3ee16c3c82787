//! CommandTree over the Model Context Protocol: `ct mcp` serves a workspace's commands to AI
//! agents on stdio, built with the official Rust SDK (`rmcp`) on the engine facade. Tokio stays
//! inside this crate: the CLI calls [`serve_stdio`], which blocks until the client hangs up.
//!
//! Tools: `list_commands`, `show_command`, `search_commands`, `run_command`, `tag_command`,
//! `star_command`, `summarize_commands`. Resources: `commandtree://command/{id}`. Prompts: the
//! workspace's prompt commands (`.command.md`, Claude Code commands, Copilot prompt files), with
//! their arguments, rendered as `ct prompt` renders them. The engine's live index answers
//! every call (one walk at start) and keeps clients' lists current
//! (`notifications/resources/list_changed`, `notifications/prompts/list_changed`).

pub mod install;
pub mod policy;
mod schema;
mod server;
mod text;

pub use policy::Policy;
pub use server::{COMMAND_URI, CommandTreeServer, OUTPUT_LIMIT, command_uri, id_of_uri};

use commandtree_core::Warning;
use commandtree_engine::Engine;
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
    let server = CommandTreeServer::new(engine, opts.allow_warned, policy);
    let changes = server.take_changes();
    if let Some(why) = server.unwatched() {
        warn(&Warning::new(
            server.engine().root(),
            None,
            format!("{why}; every call discovers afresh and the resource list is not kept current"),
        ));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP handshake failed: {e}"))?;
        if let Some(rx) = changes {
            forward_changes(rx, service.peer().clone());
        }
        let ended = service.waiting().await;
        ended.map(|_| ()).map_err(|e| e.to_string())
    })
}

/// Sends `notifications/resources/list_changed` to `peer` for every change of the commands
/// after the first list (one notification for a burst).
pub fn forward_changes(mut rx: tokio::sync::mpsc::UnboundedReceiver<()>, peer: Peer<RoleServer>) {
    tokio::spawn(async move {
        while rx.recv().await.is_some() {
            while rx.try_recv().is_ok() {}
            if commands_changed(&peer).await.is_err() {
                break;
            }
        }
    });
}

/// Tells the client that the commands changed: the command resources, and the prompts (the
/// prompt commands are among them), are listed anew.
pub async fn commands_changed(peer: &Peer<RoleServer>) -> Result<(), rmcp::ServiceError> {
    peer.notify_resource_list_changed().await?;
    peer.notify_prompt_list_changed().await
}
