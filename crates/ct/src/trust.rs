//! `ct trust`: lets this workspace's `.commandtree/config.toml` choose the LLM, its key
//! variable and the programs ct starts, and its playbooks and command skills run, for the
//! workspace as it is now: every file that steers ct is listed and recorded with its hash, and
//! what changed since an earlier `ct trust` is shown (see `commandtree_core::trust`).

use crate::output;
use anyhow::{Result, anyhow};
use clap::Args;
use commandtree_core::Workspace;
use commandtree_core::trust::{self, Verdict};
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
                "folder gone".to_string()
            } else {
                match trust::check(&r.root) {
                    Verdict::Trusted => "trusted".to_string(),
                    Verdict::Changed(c) => {
                        format!("changed since, not trusted: {}", trust::describe(&c))
                    }
                    Verdict::OldRecord => {
                        "recorded by an older ct for its config only, not trusted: run `ct trust` there again".to_string()
                    }
                    Verdict::NotTrusted => "not trusted".to_string(),
                }
            };
            writeln!(
                out,
                "{}  ({})",
                output::clean(&r.root.display().to_string()),
                output::clean(&state)
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
    let before = trust::check(&ws.root);
    let rec = trust::trust(&ws.root).map_err(|e| anyhow!(e))?;
    let keys = text
        .as_deref()
        .and_then(|t| commandtree_core::text::parse_toml(t).ok())
        .map(|t| trust::dotted_keys(&trust::split(t).1))
        .unwrap_or_default();
    writeln!(out, "Trusted {root}")?;
    match &before {
        Verdict::Changed(changes) => {
            writeln!(out, "  changed since you last trusted it:")?;
            for c in changes {
                writeln!(out, "    {:<8} {}", c.kind.as_str(), output::clean(&c.path))?;
            }
        }
        Verdict::OldRecord => writeln!(
            out,
            "  the earlier record (an older ct) covered only .commandtree/config.toml; every file below is recorded now"
        )?,
        Verdict::Trusted => writeln!(out, "  nothing changed since you last trusted it")?,
        Verdict::NotTrusted => {}
    }
    let files = rec.files.as_ref().map(|f| f.len()).unwrap_or(0);
    if files == 0 {
        writeln!(
            out,
            "  no playbook, command skill or AI definition steers ct here yet; one added later must be trusted again"
        )?;
    } else {
        writeln!(
            out,
            "  {files} file{} steer{} ct here (configuration, playbooks, command skills, AI definitions):",
            if files == 1 { "" } else { "s" },
            if files == 1 { "s" } else { "" }
        )?;
        for p in rec.files.iter().flat_map(|f| f.keys()) {
            writeln!(out, "    {}", output::clean(p))?;
        }
    }
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
            "  recorded in {} with the SHA-256 of each; a file added, removed or changed makes the workspace untrusted again. Undo: ct trust --revoke",
            output::clean(&store.display().to_string())
        )?;
    }
    Ok(())
}
