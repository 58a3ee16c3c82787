//! `ct lsp`: the editor server on stdin/stdout (protocol: docs/lsp-protocol.md).

use clap::Args;
use std::path::PathBuf;

const LSP_EXAMPLES: &str = "Examples:
  ct lsp                 serve the workspace around the current folder (editors start this)
  ct --root ~/src/app lsp

The root an editor names in `initialize` (its workspace folder) wins over --root. Speaks
JSON-RPC 2.0 with LSP framing on stdin/stdout; see docs/lsp-protocol.md.";

#[derive(Args)]
#[command(after_help = LSP_EXAMPLES)]
pub struct LspArgs {}

pub fn lsp(root: Option<PathBuf>, _args: LspArgs) -> anyhow::Result<()> {
    let cwd = std::env::current_dir()?;
    match commandtree_lsp::serve_stdio(commandtree_lsp::Options { root, cwd }) {
        0 => Ok(()),
        code => Err(crate::Exit(code as u8).into()),
    }
}
