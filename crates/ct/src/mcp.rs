//! `ct mcp`: the Model Context Protocol server on stdio, and `ct mcp install <client>`, which
//! prints (or with --write merges) the client configuration that starts it.

use crate::output;
use anyhow::Result;
use clap::{Args, Subcommand};
use commandtree_engine::Engine;
use commandtree_mcp::install::Client;
use std::path::{Path, PathBuf};

const MCP_EXAMPLES: &str = "Examples:
  ct mcp install claude           print the .mcp.json entry for Claude Code
  ct mcp install vscode --write   add it to .vscode/mcp.json (other servers are kept)
  ct mcp install cursor --write   add it to .cursor/mcp.json
  ct mcp                          serve this workspace on stdin/stdout (clients start this)

Commands with a security warning run only after the user confirms in the client; `[mcp] allow`
and `deny` globs in ~/.config/commandtree/config.toml limit what an agent may run at all.";

#[derive(Args)]
#[command(after_help = MCP_EXAMPLES)]
pub struct McpArgs {
    /// Run commands that carry a security warning without asking the user.
    #[arg(long)]
    allow_warned: bool,
    #[command(subcommand)]
    action: Option<McpAction>,
}

#[derive(Subcommand)]
enum McpAction {
    /// Print the configuration that starts `ct mcp` for a client, or merge it into the
    /// client's project file with --write.
    Install {
        /// claude (.mcp.json), vscode (.vscode/mcp.json) or cursor (.cursor/mcp.json).
        #[arg(value_parser = Client::NAMES)]
        client: String,
        /// Merge the entry into the project file instead of printing it.
        #[arg(long)]
        write: bool,
    },
}

pub fn mcp(root: Option<PathBuf>, args: McpArgs) -> Result<()> {
    let cwd = std::env::current_dir()?;
    match args.action {
        None => commandtree_mcp::serve_stdio(
            commandtree_mcp::Options {
                root,
                cwd,
                allow_warned: args.allow_warned,
            },
            &mut |w| output::warnings(std::slice::from_ref(w)),
        )
        .map_err(anyhow::Error::msg),
        Some(McpAction::Install { client, write }) => {
            let engine = Engine::open(root.as_deref(), &cwd).map_err(|e| anyhow::anyhow!(e))?;
            let client = Client::parse(&client).expect("clap checked the name");
            install(engine.root(), client, write)
        }
    }
}

/// `ct` as the client should start it: the name when this binary is the `ct` found on PATH,
/// else its full path.
fn program() -> String {
    let me = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("ct"))
            .find(|p| p.is_file())
            .and_then(|p| p.canonicalize().ok())
    });
    match (me, on_path) {
        (Some(me), Some(found)) if me == found => "ct".into(),
        (Some(me), _) => me.to_string_lossy().into_owned(),
        _ => "ct".into(),
    }
}

/// Far larger than any client configuration.
const MAX_CONFIG: u64 = 16 << 20;

fn install(root: &Path, client: Client, write: bool) -> Result<()> {
    let program = program();
    let file = root.join(client.file());
    if !write {
        println!(
            "{}",
            serde_json::to_string_pretty(&client.snippet(&program))?
        );
        eprintln!(
            "(the entry for {}; `ct mcp install {} --write` merges it there)",
            file.display(),
            Client::NAMES[client as usize]
        );
        return Ok(());
    }
    // A repository decides what stands at `.mcp.json` or `.vscode/`: a link is not followed
    // (it may lead to the user's own client configuration), a FIFO is not waited on.
    let o = commandtree_safefs::Options::new().within(root);
    let nothing = |e: std::io::Error| anyhow::anyhow!("{e}; nothing was written");
    let existing = commandtree_safefs::read_existing(&file, &o, MAX_CONFIG)
        .map_err(nothing)?
        .map(|b| {
            String::from_utf8(b)
                .map_err(|_| anyhow::anyhow!("{}: not UTF-8; nothing was written", file.display()))
        })
        .transpose()?;
    let merged = client
        .merge(existing.as_deref(), &program)
        .map_err(|why| anyhow::anyhow!("{}: {why}; nothing was written", file.display()))?;
    match existing {
        Some(_) => commandtree_safefs::write(&file, merged.as_bytes(), &o),
        // Created only if still missing: one that appears meanwhile is not replaced unread.
        None => commandtree_safefs::write_new(&file, merged.as_bytes(), &o),
    }
    .map_err(nothing)?;
    println!("{}: the `commandtree` server entry is set", file.display());
    Ok(())
}
