//! `ct trust`: lets this workspace's `.commandtree/config.toml` choose the LLM, its key
//! variable and the programs ct starts (see `commandtree_core::trust`).

use crate::output;
use anyhow::{Result, anyhow};
use clap::Args;
use commandtree_core::Workspace;
use commandtree_core::trust;
use std::io::Write;

#[derive(Args)]
pub struct TrustArgs {
    /// Forget this workspace: its configuration is limited to discovery and tree settings again.
    #[arg(long, conflicts_with = "list")]
    revoke: bool,
    /// List the trusted workspaces.
    #[arg(long)]
    list: bool,
}

pub fn trust(ws: &Workspace, args: TrustArgs) -> Result<()> {
    let mut out = anstream::stdout().lock();
    if args.list {
        let records = trust::list().map_err(|e| anyhow!(e))?;
        if records.is_empty() {
            writeln!(out, "No trusted workspaces.")?;
        }
        for r in records {
            let state = if !r.root.is_dir() {
                "folder gone"
            } else if trust::config_hash(&r.root) == r.config_sha256 {
                "trusted"
            } else {
                "config changed since, not trusted"
            };
            writeln!(
                out,
                "{}  ({state})",
                output::clean(&r.root.display().to_string())
            )?;
        }
        return Ok(());
    }
    let root = output::clean(&ws.root.display().to_string()).into_owned();
    if args.revoke {
        if trust::revoke(&ws.root).map_err(|e| anyhow!(e))? {
            writeln!(out, "{root} is no longer trusted.")?;
        } else {
            writeln!(out, "{root} was not trusted.")?;
        }
        return Ok(());
    }
    let path = trust::config_path(&ws.root);
    let text = commandtree_core::fs::read_file(&path).ok();
    let rec = trust::trust(&ws.root).map_err(|e| anyhow!(e))?;
    let keys = text
        .as_deref()
        .and_then(|t| commandtree_core::text::parse_toml(t).ok())
        .map(|t| trust::dotted_keys(&trust::split(t).1))
        .unwrap_or_default();
    writeln!(out, "Trusted {root}")?;
    if keys.is_empty() {
        writeln!(
            out,
            "  {} sets nothing that needs trust yet; any later change must be trusted again.",
            output::clean(&path.display().to_string())
        )?;
    } else {
        writeln!(
            out,
            "  now honoured from {}: {}",
            output::clean(&path.display().to_string()),
            output::clean(&keys.join(", "))
        )?;
    }
    if let Some(store) = trust::store_location() {
        writeln!(
            out,
            "  recorded in {} (sha256 {}); a changed file is untrusted again. Undo: ct trust --revoke",
            output::clean(&store.display().to_string()),
            &rec.config_sha256[..12]
        )?;
    }
    Ok(())
}
