//! `ct skill load`: a skill definition's content (the `*.skill.md` / Agent Skill `SKILL.md`
//! knowledge that agents load on demand). The LLM skills and command skills of
//! `ct skill run|list|schema|apply` are in `llm_skills.rs`, which routes `load` here.

use crate::{ai, output};
use anyhow::{Result, bail};
use clap::Args;
use commandtree_engine::Engine;
use std::io::Write;

#[derive(Args)]
pub struct LoadArgs {
    /// The skill definition's id (`rest-api-design`, a `.github/skills/<id>/SKILL.md` folder
    /// name, ...).
    id: String,
    /// Print the skill definition's metadata and content as JSON.
    #[arg(long)]
    json: bool,
}

pub fn load(engine: &Engine, args: LoadArgs, quiet: bool) -> Result<()> {
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
