//! CommandTree over the Model Context Protocol: `ct mcp` serves a workspace's commands to AI
//! agents on stdio, or with `--http` over Streamable HTTP on a loopback port behind a bearer
//! token ([`http`]), built with the official Rust SDK (`rmcp`) on the engine facade. Tokio stays
//! inside this crate: the CLI calls [`serve_stdio`] or [`serve_http`], which block until the
//! client hangs up or the process ends.
//!
//! Tools: `list_commands`, `show_command`, `search_commands`, `run_command`, `tag_command`,
//! `star_command`, `summarize_commands`, `load_skill`, and the runs' `list_runs`, `stop_run`,
//! `run_problems`. Resources: `commandtree://command/{id}`. Prompts: the
//! workspace's prompt commands (`.command.md`, Claude Code commands, Copilot prompt files), with
//! their arguments, rendered as `ct prompt` renders them. The engine's live index answers
//! every call (one walk at start) and keeps clients' lists current
//! (`notifications/resources/list_changed`, `notifications/prompts/list_changed`).

pub mod http;
pub mod install;
pub mod policy;
mod schema;
mod server;
mod text;

pub use http::HttpOptions;
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

/// The server `opts` asks for, with its start-up warnings (settings, the `[mcp]` rules) handed
/// to `warn`.
fn server(opts: Options, warn: &mut dyn FnMut(&Warning)) -> Result<CommandTreeServer, String> {
    let engine = Engine::open(opts.root.as_deref(), &opts.cwd).map_err(|e| e.to_string())?;
    for w in engine.settings_warnings() {
        warn(w);
    }
    let (policy, problems) = Policy::from_user_config();
    for w in &problems {
        warn(w);
    }
    let server = CommandTreeServer::new(engine, opts.allow_warned, policy);
    if let Some(why) = server.unwatched() {
        warn(&Warning::new(
            server.engine().root(),
            None,
            format!("{why}; every call discovers afresh and the resource list is not kept current"),
        ));
    }
    Ok(server)
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

/// Serves the workspace on stdin/stdout until the client closes the connection. Warnings
/// (settings, the `[mcp]` rules) go to `warn`, which the caller prints on stderr: stdout
/// belongs to the protocol.
pub fn serve_stdio(opts: Options, warn: &mut dyn FnMut(&Warning)) -> Result<(), String> {
    let server = server(opts, warn)?;
    runtime()?.block_on(async move {
        server.forward_changes();
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP handshake failed: {e}"))?;
        let ended = service.waiting().await;
        ended.map(|_| ()).map_err(|e| e.to_string())
    })
}

/// Serves the workspace over Streamable HTTP on a loopback address (see [`http`]) until the
/// process ends; `ready` gets the bound address (port 0 picks one) once requests are taken.
pub fn serve_http(
    opts: Options,
    http: HttpOptions,
    warn: &mut dyn FnMut(&Warning),
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), String> {
    if !http.addr.ip().is_loopback() {
        return Err(format!("{} is not a loopback address", http.addr));
    }
    http::check_token(&http.token)?;
    let server = server(opts, warn)?;
    runtime()?.block_on(http::serve(server, http, ready))
}

/// Tells the client that the commands changed: the command resources, and the prompts (the
/// prompt commands are among them), are listed anew.
pub async fn commands_changed(peer: &Peer<RoleServer>) -> Result<(), rmcp::ServiceError> {
    peer.notify_resource_list_changed().await?;
    peer.notify_prompt_list_changed().await
}
