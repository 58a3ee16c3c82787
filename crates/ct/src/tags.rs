//! `ct tag`, `ct star`, `ct unstar`, `ct quick`: argument handling and messages over the
//! engine's tag operations.

use crate::commands::{fail, load, name};
use crate::output;
use anyhow::Result;
use clap::{Args, Subcommand};
use commandtree_engine::{Engine, tags};
use commandtree_store::validate_tag_name;
use std::io::Write;

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

pub fn tag(engine: &Engine, args: TagArgs, quiet: bool) -> Result<()> {
    match args.action {
        TagAction::Add { command, tags } => add(engine, &command, &tags, quiet),
        TagAction::Rm { command, tags } => remove(engine, &command, &tags, quiet),
        TagAction::Ls { command, json } => list(engine, command.as_deref(), json, quiet),
    }
}

fn add(engine: &Engine, query: &str, tag_names: &[String], quiet: bool) -> Result<()> {
    let mut l = load(engine, Vec::new(), quiet, true)?;
    let (c, added) = tags::add(&mut l, query, tag_names).map_err(fail)?;
    let mut out = std::io::stdout().lock();
    for (tag, new) in tag_names.iter().zip(added) {
        let tag = output::clean(tag);
        if new {
            writeln!(out, "{}: tagged `{tag}`", name(&c))?;
        } else {
            writeln!(out, "{}: already tagged `{tag}`", name(&c))?;
        }
    }
    Ok(())
}

fn remove(engine: &Engine, query: &str, tag_names: &[String], quiet: bool) -> Result<()> {
    let mut l = load(engine, Vec::new(), quiet, false)?;
    let (label, removals) = tags::remove(&mut l, query, tag_names).map_err(fail)?;
    let label = output::clean(&label);
    let mut out = std::io::stdout().lock();
    for r in removals {
        let tag = output::clean(&r.tag);
        if r.removed {
            writeln!(out, "{label}: removed tag `{tag}`")?;
        } else {
            writeln!(out, "{label}: had no tag `{tag}`")?;
        }
        if let Some(cfg) = &r.from_config {
            eprintln!(
                "note: {} gives {label} the tag `{tag}`; it comes back at the next discovery unless it is removed there",
                output::clean(&cfg.display().to_string())
            );
        }
    }
    Ok(())
}

fn list(engine: &Engine, query: Option<&str>, json: bool, quiet: bool) -> Result<()> {
    let l = load(engine, Vec::new(), quiet, false)?;
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if let Some(q) = query {
        let c = l.resolve(q).map_err(fail)?;
        if json {
            output::json(&mut out, &c.tags)?;
        } else if c.tags.is_empty() {
            writeln!(out, "{} has no tags", name(c))?;
        } else {
            for t in &c.tags {
                writeln!(out, "{}", output::clean(t))?;
            }
        }
        out.flush()?;
        return Ok(());
    }
    let entries = tags::list(&l).map_err(fail)?;
    if json {
        output::json(&mut out, &entries)?;
    } else if entries.is_empty() {
        writeln!(
            out,
            "No tags yet. Tag a command with `ct tag add <command> <tag>`."
        )?;
    } else {
        let width = output::column_width(entries.iter().map(|t| t.name.as_str()));
        for t in &entries {
            let labels: Vec<String> = t
                .commands
                .iter()
                .filter_map(|id| l.commands.iter().find(|c| &c.id == id))
                .map(name)
                .collect();
            writeln!(
                out,
                "{:<width$}  {:>3}  {}",
                output::clean(&t.name),
                t.commands.len(),
                labels.join(", ")
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn star(engine: &Engine, args: StarArgs, quiet: bool) -> Result<()> {
    let mut l = load(engine, Vec::new(), quiet, true)?;
    let (c, added) = tags::star(&mut l, &args.command).map_err(fail)?;
    if added {
        println!("{}: added to Quick Launch", name(&c));
    } else {
        println!("{}: already in Quick Launch", name(&c));
    }
    Ok(())
}

pub fn unstar(engine: &Engine, args: StarArgs, quiet: bool) -> Result<()> {
    let mut l = load(engine, Vec::new(), quiet, false)?;
    let (label, removed) = tags::unstar(&mut l, &args.command).map_err(fail)?;
    let label = output::clean(&label);
    if removed {
        println!("{label}: removed from Quick Launch");
    } else {
        println!("{label}: was not in Quick Launch");
    }
    Ok(())
}

pub fn quick(engine: &Engine, args: QuickArgs, quiet: bool) -> Result<()> {
    let mut l = load(engine, Vec::new(), quiet, false)?;
    if let Some(QuickAction::Move { command, position }) = args.action {
        return match tags::quick_move(&mut l, &command, position as usize - 1) {
            Ok((c, at)) => {
                println!("{}: now at position {} in Quick Launch", name(&c), at + 1);
                Ok(())
            }
            Err(commandtree_engine::Error::Failed(m)) => Err(fail(
                commandtree_engine::Error::Failed(format!("{m} with `ct star {command}`")),
            )),
            Err(e) => Err(fail(e)),
        };
    }
    let items = tags::quick(&l).map_err(fail)?;
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(&mut out, &items)?;
    } else if items.is_empty() {
        writeln!(
            out,
            "No quick commands - star commands to add them here (`ct star <command>`)"
        )?;
    } else {
        let width = output::column_width(items.iter().map(|c| c.label.as_str()));
        for (i, c) in items.iter().enumerate() {
            writeln!(
                out,
                "{:>2}. {:<width$}  {:<8}  {}",
                i + 1,
                output::clean(&c.label),
                output::clean(&c.kind),
                output::clean(&c.command)
            )?;
        }
    }
    out.flush()?;
    Ok(())
}
