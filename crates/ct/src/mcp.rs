//! `ct mcp`: the Model Context Protocol server on stdio, and `ct mcp install <client>`, which
//! prints (or with --write merges) the client configuration that starts it.

use crate::output;
use anyhow::Result;
use clap::{Args, Subcommand};
use commandtree_engine::Engine;
use commandtree_mcp::install::{Client, Transport};
use std::path::{Path, PathBuf};

const MCP_EXAMPLES: &str = "Examples:
  ct mcp install claude           print the .mcp.json entry for Claude Code
  ct mcp install vscode --write   add it to .vscode/mcp.json (other servers are kept)
  ct mcp install cursor --write   add it to .cursor/mcp.json
  ct mcp install claude --http http://127.0.0.1:8123/mcp
                                  an entry for a running `ct mcp --http` (token from
                                  $COMMANDTREE_MCP_TOKEN; VS Code asks for it once)
  ct mcp                          serve this workspace on stdin/stdout (clients start this)
  ct mcp --http 8123              serve it on http://127.0.0.1:8123/mcp; prints a new token
  ct mcp --http 8123 --token-file ~/.config/commandtree/mcp-token
                                  the same, with the token kept in that file (made if missing)

Over HTTP every request needs `Authorization: Bearer <token>`; only loopback addresses are
served, a request whose Host is not a loopback name is refused, and so is a browser's request
from an Origin other than the server's own and those given with --allow-origin.

Commands with a security warning run only after the user confirms in the client; `[mcp] allow`
and `deny` globs in ~/.config/commandtree/config.toml limit what an agent may run at all.";

#[derive(Args)]
#[command(after_help = MCP_EXAMPLES)]
pub struct McpArgs {
    /// Run commands that carry a security warning without asking the user.
    #[arg(long)]
    allow_warned: bool,
    /// Serve over Streamable HTTP on this loopback address (PORT, 127.0.0.1:PORT or [::1]:PORT;
    /// port 0 picks a free one) instead of stdin/stdout.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// With --http: read the bearer token from this file, or write a new one there (private)
    /// when it does not exist. Without it a new token is printed.
    #[arg(long, value_name = "PATH", requires = "http")]
    token_file: Option<PathBuf>,
    /// With --http: also accept browser requests from this origin (e.g.
    /// http://localhost:6274). Repeatable.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
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
        /// An entry that connects to a running `ct mcp --http` at this URL (e.g.
        /// http://127.0.0.1:8123/mcp) instead of starting `ct mcp`. The token is not written:
        /// Claude Code and Cursor read it from $COMMANDTREE_MCP_TOKEN, VS Code asks for it once.
        #[arg(long, value_name = "URL")]
        http: Option<String>,
    },
}

pub fn mcp(root: Option<PathBuf>, args: McpArgs) -> Result<()> {
    let cwd = std::env::current_dir()?;
    let opts = commandtree_mcp::Options {
        root,
        cwd,
        allow_warned: args.allow_warned,
    };
    let mut warn = |w: &commandtree_core::Warning| output::warnings(std::slice::from_ref(w));
    match args.action {
        None => match args.http {
            None => commandtree_mcp::serve_stdio(opts, &mut warn).map_err(anyhow::Error::msg),
            Some(addr) => serve_http(opts, &addr, args.token_file, args.allow_origin, &mut warn),
        },
        Some(McpAction::Install {
            client,
            write,
            http,
        }) => {
            let engine =
                Engine::open(opts.root.as_deref(), &opts.cwd).map_err(|e| anyhow::anyhow!(e))?;
            let client = Client::parse(&client).expect("clap checked the name");
            if let Some(url) = &http
                && !(url.starts_with("http://127.0.0.1:")
                    || url.starts_with("http://localhost:")
                    || url.starts_with("http://[::1]:"))
            {
                anyhow::bail!(
                    "--http `{url}`: give the URL `ct mcp --http` printed, e.g. http://127.0.0.1:8123/mcp"
                );
            }
            install(engine.root(), client, write, http.as_deref())
        }
    }
}

/// `ct mcp --http`: the token from its file (or a new one), then the server until the process
/// ends. The address and, when it is new and has no file, the token are printed on stdout, the
/// only output there.
fn serve_http(
    opts: commandtree_mcp::Options,
    addr: &str,
    token_file: Option<PathBuf>,
    allow_origin: Vec<String>,
    warn: &mut dyn FnMut(&commandtree_core::Warning),
) -> Result<()> {
    let addr = commandtree_mcp::http::parse_addr(addr).map_err(anyhow::Error::msg)?;
    for o in &allow_origin {
        if !(o.starts_with("http://") || o.starts_with("https://")) || o.ends_with('/') {
            anyhow::bail!(
                "--allow-origin `{o}`: give an origin as a browser sends it, e.g. http://localhost:6274"
            );
        }
    }
    let (token, print_token) = match &token_file {
        Some(path) => (token_from_file(path)?, false),
        None => (
            commandtree_mcp::http::new_token().map_err(anyhow::Error::msg)?,
            true,
        ),
    };
    let http = commandtree_mcp::HttpOptions {
        addr,
        token: token.clone(),
        allowed_origins: allow_origin,
    };
    commandtree_mcp::serve_http(opts, http, warn, |bound| {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "url: http://{bound}{}", commandtree_mcp::http::PATH);
        if print_token {
            let _ = writeln!(out, "token: {token}");
        } else if let Some(p) = &token_file {
            let _ = writeln!(out, "token: in {}", p.display());
        }
        let _ = out.flush();
        eprintln!(
            "Serving MCP over HTTP; clients send `Authorization: Bearer <token>`. Ctrl-C stops."
        );
    })
    .map_err(anyhow::Error::msg)
}

/// The token kept in `path`, or a new one written there (private, never through a link) when
/// nothing is there yet.
fn token_from_file(path: &Path) -> Result<String> {
    let o = commandtree_safefs::Options::private();
    match commandtree_safefs::read_existing(path, &o, 4096)? {
        Some(bytes) => {
            let token = String::from_utf8(bytes)
                .map_err(|_| anyhow::anyhow!("{}: the token is not UTF-8", path.display()))?;
            let token = token.trim().to_string();
            commandtree_mcp::http::check_token(&token)
                .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
            Ok(token)
        }
        None => {
            let token = commandtree_mcp::http::new_token().map_err(anyhow::Error::msg)?;
            commandtree_safefs::write_new(path, format!("{token}\n").as_bytes(), &o)?;
            Ok(token)
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

fn install(root: &Path, client: Client, write: bool, http: Option<&str>) -> Result<()> {
    let program = program();
    let transport = match http {
        Some(url) => Transport::Http { url },
        None => Transport::Stdio { program: &program },
    };
    let file = root.join(client.file());
    if !write {
        println!(
            "{}",
            serde_json::to_string_pretty(&client.snippet(transport))?
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
        .merge(existing.as_deref(), transport)
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
