//! CommandTree's editor server (`ct lsp`): JSON-RPC 2.0 over stdio with LSP framing, the
//! `commandtree/*` requests and notifications of `docs/lsp-protocol.md`, over the engine facade.
//! One server serves one workspace root; it never runs a command itself (`commandtree/plan`
//! says what the editor should run).
//!
//! Threads, not async: `lsp-server` for the message types, framing read here so a malformed
//! message never ends the connection (see [`transport`]).

mod command_skills;
mod editor_lm;
mod error;
mod handlers;
mod llm_skills;
mod parent;
pub mod protocol;
#[cfg(test)]
mod protocol_doc;
#[cfg(test)]
mod protocol_schema;
#[cfg(test)]
mod protocol_ts;
mod runs;
mod server;
pub mod transport;
mod watch;

pub use editor_lm::LANGUAGE_MODEL_REQUEST;
pub use error::{
    COMMAND_NOT_FOUND, DISCOVERY_FAILED, FAILED, INVALID_PARAMS, NOT_TRUSTED, REQUEST_CANCELLED,
    RpcError, WORKSPACE_NOT_FOUND,
};
pub use handlers::{Kind, ROUTES, Route};
pub use server::{Options, serve};

/// Serves on this process's stdin and stdout. Returns the exit status LSP asks for.
pub fn serve_stdio(opts: Options) -> i32 {
    serve(opts, std::io::stdin(), std::io::stdout())
}
