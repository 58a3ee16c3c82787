//! `ct deps`: what a command runs and what runs it, computed by the engine (`deps`), printed
//! as two trees or as JSON.

use crate::commands::{self, fail};
use crate::output;
use anyhow::Result;
use clap::Args;
use commandtree_engine::Engine;
use std::io::Write;

const EXAMPLES: &str = "Examples:
  ct deps build            what `build` runs (prerequisites, calls, hooks; transitively) and
                           what runs it
  ct deps npm:ci --json    {command, runs: [link], unresolved: [{name, how, via}],
                           cycles: [[label]], runBy: [link], truncated}; a link is
                           {id, label, type, filePath, line?, how, via: [label]}";

#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct DepsArgs {
    /// The command: its id, a unique label, or type:label (e.g. make:build).
    #[arg(add = crate::completions::command_names())]
    pub command: String,
    /// Print the command's dependencies as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn deps(engine: &Engine, args: DepsArgs, quiet: bool) -> Result<()> {
    let loaded = commands::load(engine, Vec::new(), quiet, false)?;
    let item = loaded.resolve(&args.command).map_err(fail)?;
    let d = commandtree_engine::deps::of(&loaded.commands, item);
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(&mut out, &d)?;
    } else {
        output::deps(&mut out, &d, engine.root())?;
    }
    out.flush()?;
    Ok(())
}
