//! `ct skill …`: skills of the workspace. Each subcommand is one variant and one function.

use crate::{ai, output};
use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use commandtree_engine::Engine;
use std::io::Write;

#[derive(Args)]
pub struct SkillArgs {
    #[command(subcommand)]
    action: SkillAction,
}

#[derive(Subcommand)]
enum SkillAction {
    /// Print a skill's content (what the `load_skill` tool returns).
    Load(LoadArgs),
}

#[derive(Args)]
struct LoadArgs {
    /// Skill id (`rest-api-design`, a `.github/skills/<id>/SKILL.md` folder name, ...).
    id: String,
    /// Print the skill's metadata and content as JSON.
    #[arg(long)]
    json: bool,
}

pub fn skill(engine: &Engine, args: SkillArgs, quiet: bool) -> Result<()> {
    match args.action {
        SkillAction::Load(a) => load(engine, a, quiet),
    }
}

fn load(engine: &Engine, args: LoadArgs, quiet: bool) -> Result<()> {
    let defs = ai::definitions(engine, quiet);
    let Some(skill) = defs.skill(&args.id) else {
        bail!(
            "{}",
            defs.load_skill_answer(&args.id).err().unwrap_or_default()
        );
    };
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(&mut out, skill)?;
        writeln!(out)?;
    } else {
        ai::print_text(&mut out, &skill.content)?;
    }
    out.flush()?;
    Ok(())
}
