//! `ct tag`, `ct star`, `ct unstar`, `ct quick`, and the database half of every discovery:
//! tags, summaries and security warnings from the workspace database, with the
//! `.vscode/commandtree.json` tag config applied first.

use crate::commands::{Loaded, load, name, resolve, writable};
use crate::{Exit, output};
use anyhow::Result;
use clap::{Args, Subcommand};
use commandtree_core::{CommandItem, Warning, Workspace};
use commandtree_store::{QUICK_TAG, Store, WorkspaceDb, tagconfig, validate_tag_name};
use std::collections::HashSet;
use std::io::Write;

/// For removals: also an id the database knows but discovery no longer finds (a moved or
/// deleted file), so stale tags can still be taken off.
fn resolve_for_removal(ws: &Workspace, l: &Loaded, query: &str) -> Result<(String, String)> {
    if !l.commands.iter().any(|c| c.id == query)
        && let Some(store) = &l.store
        && !store.tags_for_command(query)?.is_empty()
    {
        return Ok((query.to_string(), query.to_string()));
    }
    let c = resolve(ws, &l.commands, query)?;
    Ok((c.id.clone(), name(c)))
}

fn tag_name(s: &str) -> Result<String, String> {
    validate_tag_name(s).map_err(|e| e.to_string())?;
    Ok(s.to_string())
}

#[derive(Args)]
pub struct TagArgs {
    #[command(subcommand)]
    action: TagAction,
}

#[derive(Subcommand)]
enum TagAction {
    /// Tag a command (the database is created if needed).
    Add {
        /// A command id, a unique label, or type:label.
        command: String,
        /// One word: letters, digits, `-` and `_`.
        #[arg(required = true, value_parser = tag_name)]
        tags: Vec<String>,
    },
    /// Take tags off a command.
    #[command(alias = "remove")]
    Rm {
        /// A command id, a unique label, or type:label.
        command: String,
        #[arg(required = true)]
        tags: Vec<String>,
    },
    /// Every tag with its commands, or the tags of one command.
    #[command(alias = "list")]
    Ls {
        /// A command id, a unique label, or type:label.
        command: Option<String>,
        /// Print JSON: [{"name", "commands": [ids]}], or the command's tag names.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
pub struct StarArgs {
    /// A command id, a unique label, or type:label.
    command: String,
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct QuickArgs {
    #[command(subcommand)]
    action: Option<QuickAction>,
    /// Print the Quick Launch commands as a JSON array of CommandItem objects, in order.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum QuickAction {
    /// Move a starred command to a position (1 = first, as `ct quick` numbers them).
    Move {
        /// A command id, a unique label, or type:label.
        command: String,
        #[arg(value_parser = clap::value_parser!(u32).range(1..))]
        position: u32,
    },
}

pub fn tag(ws: &Workspace, args: TagArgs, quiet: bool) -> Result<()> {
    match args.action {
        TagAction::Add { command, tags } => add(ws, &command, &tags, quiet),
        TagAction::Rm { command, tags } => remove(ws, &command, &tags, quiet),
        TagAction::Ls { command, json } => list(ws, command.as_deref(), json, quiet),
    }
}

fn add(ws: &Workspace, query: &str, tags: &[String], quiet: bool) -> Result<()> {
    let mut l = load(ws, Vec::new(), quiet, true);
    let c = resolve(ws, &l.commands, query)?;
    let store = writable(ws, &mut l.store)?;
    let mut out = std::io::stdout().lock();
    for tag in tags {
        if store.add_tag(&c.id, tag)? {
            writeln!(out, "{}: tagged `{tag}`", name(c))?;
        } else {
            writeln!(out, "{}: already tagged `{tag}`", name(c))?;
        }
    }
    Ok(())
}

fn remove(ws: &Workspace, query: &str, tags: &[String], quiet: bool) -> Result<()> {
    let mut l = load(ws, Vec::new(), quiet, false);
    let (id, label) = resolve_for_removal(ws, &l, query)?;
    let configured: Vec<String> = match (
        l.commands.iter().find(|c| c.id == id),
        tagconfig::load(&ws.root).config,
    ) {
        (Some(c), Some(cfg)) => cfg.tags_for(c).into_iter().map(String::from).collect(),
        _ => Vec::new(),
    };
    let mut out = std::io::stdout().lock();
    for tag in tags {
        let removed = match l.store.as_mut() {
            Some(s) => s.remove_tag(&id, tag)?,
            None => false,
        };
        if removed {
            writeln!(out, "{label}: removed tag `{tag}`")?;
        } else {
            writeln!(out, "{label}: had no tag `{tag}`")?;
        }
        if configured.contains(tag) {
            eprintln!(
                "note: {} gives {label} the tag `{tag}`; it comes back at the next discovery unless it is removed there",
                tagconfig::config_path(&ws.root).display()
            );
        }
    }
    Ok(())
}

fn list(ws: &Workspace, query: Option<&str>, json: bool, quiet: bool) -> Result<()> {
    let l = load(ws, Vec::new(), quiet, false);
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if let Some(q) = query {
        let c = resolve(ws, &l.commands, q)?;
        if json {
            output::json(&mut out, &c.tags)?;
        } else if c.tags.is_empty() {
            writeln!(out, "{} has no tags", name(c))?;
        } else {
            for t in &c.tags {
                writeln!(out, "{t}")?;
            }
        }
        out.flush()?;
        return Ok(());
    }
    let present: HashSet<&str> = l.commands.iter().map(|c| c.id.as_str()).collect();
    let mut tags: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(store) = &l.store {
        for t in store.all_tag_names()? {
            let ids = store
                .command_ids_by_tag(&t)?
                .into_iter()
                .filter(|id| present.contains(id.as_str()))
                .collect();
            tags.push((t, ids));
        }
    }
    if json {
        let v: Vec<serde_json::Value> = tags
            .iter()
            .map(|(t, ids)| serde_json::json!({ "name": t, "commands": ids }))
            .collect();
        output::json(&mut out, &v)?;
    } else if tags.is_empty() {
        writeln!(
            out,
            "No tags yet. Tag a command with `ct tag add <command> <tag>`."
        )?;
    } else {
        let width = tags
            .iter()
            .map(|(t, _)| t.chars().count())
            .max()
            .unwrap_or(0);
        for (t, ids) in &tags {
            let labels: Vec<String> = ids
                .iter()
                .filter_map(|id| l.commands.iter().find(|c| &c.id == id))
                .map(name)
                .collect();
            writeln!(out, "{t:<width$}  {:>3}  {}", ids.len(), labels.join(", "))?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn star(ws: &Workspace, args: StarArgs, quiet: bool) -> Result<()> {
    let mut l = load(ws, Vec::new(), quiet, true);
    let c = resolve(ws, &l.commands, &args.command)?;
    let store = writable(ws, &mut l.store)?;
    if store.star(&c.id)? {
        println!("{}: added to Quick Launch", name(c));
    } else {
        println!("{}: already in Quick Launch", name(c));
    }
    Ok(())
}

pub fn unstar(ws: &Workspace, args: StarArgs, quiet: bool) -> Result<()> {
    let mut l = load(ws, Vec::new(), quiet, false);
    let (id, label) = resolve_for_removal(ws, &l, &args.command)?;
    let removed = match l.store.as_mut() {
        Some(s) => s.unstar(&id)?,
        None => false,
    };
    if removed {
        println!("{label}: removed from Quick Launch");
    } else {
        println!("{label}: was not in Quick Launch");
    }
    Ok(())
}

pub fn quick(ws: &Workspace, args: QuickArgs, quiet: bool) -> Result<()> {
    let mut l = load(ws, Vec::new(), quiet, false);
    if let Some(QuickAction::Move { command, position }) = args.action {
        let c = resolve(ws, &l.commands, &command)?.clone();
        let present: HashSet<String> = l.commands.iter().map(|c| c.id.clone()).collect();
        let visible = |id: &str| present.contains(id);
        let moved = match l.store.as_mut() {
            Some(s) => s.move_in_tag(QUICK_TAG, &c.id, position as usize - 1, &visible)?,
            None => None,
        };
        return match moved {
            Some(at) => {
                println!("{}: now at position {} in Quick Launch", name(&c), at + 1);
                Ok(())
            }
            None => {
                output::error(&format!(
                    "{} is not in Quick Launch; star it first with `ct star {command}`",
                    name(&c)
                ));
                Err(Exit(1).into())
            }
        };
    }
    // Ordered by the database; commands no longer discovered are left out.
    let ids = match &l.store {
        Some(s) => s.quick()?,
        None => Vec::new(),
    };
    let items: Vec<&CommandItem> = ids
        .iter()
        .filter_map(|id| l.commands.iter().find(|c| &c.id == id))
        .collect();
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(&mut out, &items)?;
    } else if items.is_empty() {
        writeln!(
            out,
            "No quick commands - star commands to add them here (`ct star <command>`)"
        )?;
    } else {
        let width = items
            .iter()
            .map(|c| c.label.chars().count())
            .max()
            .unwrap_or(0);
        for (i, c) in items.iter().enumerate() {
            writeln!(
                out,
                "{:>2}. {:<width$}  {:<8}  {}",
                i + 1,
                c.label,
                c.kind,
                c.command
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The `--tag` filter of `ct list`: commands carrying every one of `tags`. Names a tag nobody
/// has on stderr, since an empty list alone would not tell a typo from an unused tag.
pub fn filter(
    ws: &Workspace,
    commands: Vec<CommandItem>,
    tags: &[String],
    store: Option<&Store>,
) -> Vec<CommandItem> {
    if tags.is_empty() {
        return commands;
    }
    let known: HashSet<String> = store
        .and_then(|s| s.all_tag_names().ok())
        .unwrap_or_default()
        .into_iter()
        .collect();
    for t in tags.iter().filter(|t| !known.contains(*t)) {
        let why = if store.is_some() {
            ""
        } else {
            " (there is no database yet)"
        };
        output::warnings(&[Warning::new(
            &ws.db_path(),
            None,
            format!("no tag named `{t}`{why}"),
        )]);
    }
    commands
        .into_iter()
        .filter(|c| tags.iter().all(|t| c.tags.contains(t)))
        .collect()
}
