//! `ct lsp`: the editor server on stdin/stdout (protocol: docs/lsp-protocol.md).

use clap::Args;
use std::path::PathBuf;

const LSP_EXAMPLES: &str = "Examples:
  ct lsp                 serve the workspace around the current folder (editors start this)
  ct --root ~/src/app lsp

The root an editor names in `initialize` (its workspace folder) wins over --root. Speaks
JSON-RPC 2.0 with LSP framing on stdin/stdout; see docs/lsp-protocol.md. The server ends when
the editor process (`--clientProcessId`, else `processId` of `initialize`) is gone.";

#[derive(Args)]
#[command(after_help = LSP_EXAMPLES)]
pub struct LspArgs {
    /// Serve on stdin/stdout (the only transport; accepted because language clients add it)
    #[arg(long)]
    stdio: bool,
    /// The editor's process id: the server exits when it is gone
    #[arg(long = "clientProcessId", value_name = "PID")]
    client_process_id: Option<u32>,
}

pub fn lsp(root: Option<PathBuf>, args: LspArgs) -> anyhow::Result<()> {
    let _ = args.stdio;
    let cwd = std::env::current_dir()?;
    let opts = commandtree_lsp::Options {
        root,
        cwd,
        exit_with_client: Some(args.client_process_id),
    };
    match commandtree_lsp::serve_stdio(opts) {
        0 => Ok(()),
        code => Err(crate::Exit(code as u8).into()),
    }
}
