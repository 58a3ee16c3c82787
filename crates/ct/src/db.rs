//! `ct db`: where the workspace database is, whether it is sound, and pruning the rows of
//! commands that no longer exist.

use crate::commands::{self, fail};
use crate::{Exit, output};
use anyhow::Result;
use clap::{Args, Subcommand};
use commandtree_engine::Engine;
use commandtree_store::WorkspaceDb;
use serde_json::json;
use std::io::Write;

#[derive(Args)]
pub struct DbArgs {
    #[command(subcommand)]
    action: DbAction,
}

#[derive(Subcommand)]
enum DbAction {
    /// Print the database file's path (it may not exist yet).
    Path {
        /// Print {"path", "exists"}.
        #[arg(long)]
        json: bool,
    },
    /// Check structure, integrity and foreign keys without changing anything; exit 1 on a
    /// problem.
    Check {
        #[arg(long)]
        json: bool,
    },
    /// Delete the rows (and tags) of commands that no longer exist. Lists them unless --yes.
    Prune {
        /// Delete them.
        #[arg(long)]
        yes: bool,
        #[arg(long)]
        json: bool,
    },
}

pub fn db(engine: &Engine, args: DbArgs, quiet: bool) -> Result<()> {
    match args.action {
        DbAction::Path { json } => path(engine, json),
        DbAction::Check { json } => check(engine, json),
        DbAction::Prune { yes, json } => prune(engine, yes, json, quiet),
    }
}

fn path(engine: &Engine, json: bool) -> Result<()> {
    let p = engine.db_path();
    let mut out = std::io::stdout().lock();
    if json {
        output::json(&mut out, &json!({ "path": p, "exists": p.exists() }))?;
    } else {
        writeln!(out, "{}", output::clean(&p.display().to_string()))?;
    }
    Ok(())
}

fn check(engine: &Engine, json: bool) -> Result<()> {
    let ws = engine.workspace();
    let p = ws.db_path();
    let mut out = std::io::stdout().lock();
    let Some(mut report) = commandtree_store::check(&p)? else {
        if json {
            output::json(
                &mut out,
                &json!({ "path": p, "exists": false, "ok": true, "checks": [] }),
            )?;
        } else {
            writeln!(
                out,
                "No database at {} (the first `ct tag add` or `ct star` creates it)",
                output::clean(&p.display().to_string())
            )?;
        }
        return Ok(());
    };
    let discovered = ws.discover(&commandtree_core::Options::default());
    report
        .checks
        .extend(commandtree_engine::search::checks(&discovered.commands, &p));
    if json {
        let checks: Vec<_> = report
            .checks
            .iter()
            .map(|c| json!({ "name": c.name, "ok": c.ok, "detail": c.detail }))
            .collect();
        let counts = report.counts.map(|c| {
            json!({ "commands": c.commands, "tags": c.tags, "assignments": c.assignments, "summaries": c.summaries })
        });
        output::json(
            &mut out,
            &json!({ "path": p, "exists": true, "ok": report.ok(), "checks": checks, "counts": counts }),
        )?;
    } else {
        writeln!(out, "{}", output::clean(&p.display().to_string()))?;
        for c in &report.checks {
            // Details quote the database, which may be a repository's own file.
            writeln!(
                out,
                "  {:<4}  {:<12}  {}",
                if c.ok { "ok" } else { "FAIL" },
                output::clean(c.name),
                output::clean(&c.detail)
            )?;
        }
        if let Some(c) = report.counts {
            writeln!(
                out,
                "  {} command rows ({} with a summary), {} tags, {} tag assignments",
                c.commands, c.summaries, c.tags, c.assignments
            )?;
        }
    }
    out.flush()?;
    if report.ok() {
        Ok(())
    } else {
        if !json {
            output::error(&format!(
                "{}: the database has problems (see above)",
                p.display()
            ));
        }
        Err(Exit(1).into())
    }
}

fn prune(engine: &Engine, yes: bool, json: bool, quiet: bool) -> Result<()> {
    let mut loaded = commands::load(engine, Vec::new(), quiet, false)?;
    let mut out = std::io::stdout().lock();
    let Some(commandtree_engine::db::Prune {
        stale,
        kept,
        deleted,
    }) = commandtree_engine::db::prune(&mut loaded, !yes).map_err(fail)?
    else {
        if json {
            output::json(
                &mut out,
                &json!({ "dryRun": !yes, "stale": [], "kept": [] }),
            )?;
        } else {
            writeln!(
                out,
                "No database at {}; nothing to prune.",
                output::clean(&engine.db_path().display().to_string())
            )?;
        }
        return Ok(());
    };
    if json {
        let rows = |v: &[(String, Vec<String>)]| -> Vec<serde_json::Value> {
            v.iter()
                .map(|(id, tags)| json!({ "id": id, "tags": tags }))
                .collect()
        };
        output::json(
            &mut out,
            &json!({ "dryRun": !yes, "stale": rows(&stale), "kept": rows(&kept), "deleted": deleted }),
        )?;
        return Ok(());
    }
    if stale.is_empty() {
        writeln!(
            out,
            "Nothing to prune: every row belongs to a command in this workspace."
        )?;
    } else {
        let verb = if yes { "Deleted" } else { "Would delete" };
        writeln!(
            out,
            "{verb} {} row{} of commands no longer in the workspace:",
            stale.len(),
            if stale.len() == 1 { "" } else { "s" }
        )?;
        for (id, tags) in &stale {
            let id = output::clean(id);
            if tags.is_empty() {
                writeln!(out, "  {id}")?;
            } else {
                writeln!(out, "  {id}  [{}]", output::clean(&tags.join(", ")))?;
            }
        }
        if !yes {
            writeln!(out, "Run `ct db prune --yes` to delete them.")?;
        }
    }
    if !kept.is_empty() {
        writeln!(
            out,
            "Kept {} row(s) of files that failed to parse this time (see the warnings).",
            kept.len()
        )?;
    }
    Ok(())
}
