//! `ct prompt`, `ct agent show`, `ct export` and the rendered content `ct show` prints for AI
//! definitions. The definitions and all rendering come from `commandtree-agents`; this file
//! prints.

use crate::output;
use anyhow::{Result, bail};
use clap::{Args, Subcommand, ValueEnum};
use commandtree_agents::Definitions;
use commandtree_agents::export::{self, Target};
use commandtree_agents::sdk::McpServer;
use commandtree_core::CommandItem;
use commandtree_engine::Engine;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

#[derive(Args)]
pub struct PromptArgs {
    /// A prompt command id (`review-changes`, a `.github/commands/<id>.command.md`, ...).
    command: String,
    /// Its arguments: `$ARGUMENTS` gets them all, `$1`…`$9` one each (from 1),
    /// `$ARGUMENTS[n]` one each (from 0). Put arguments starting with `-` after `--`.
    args: Vec<String>,
    /// Precede the prompt with this agent's instructions and the table of skill definitions.
    #[arg(long, value_name = "AGENT")]
    agent: Option<String>,
    /// Send the rendered prompt to the configured LLM (the `task` LLM skill, without the context
    /// of `ct context`) and print the reply.
    #[arg(long, conflicts_with = "json")]
    send: bool,
    /// Print {command, agent, prompt} as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    action: AgentAction,
}

#[derive(Subcommand)]
enum AgentAction {
    /// Print an agent's full system prompt: its body, its instructions, the table of skill
    /// definitions.
    Show {
        id: String,
        /// Print the agent and its system prompt as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the agents (built-in and the repository's).
    List {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
pub struct ExportArgs {
    /// claude-sdk: the Agent SDK `Options` as JSON; claude-code, copilot: each definition in
    /// that tool's own files.
    target: ExportTarget,
    /// claude-sdk: a JSON file of options to build on (its own entries win).
    #[arg(long, value_name = "FILE")]
    base: Option<PathBuf>,
    /// claude-code, copilot: write the files (default: list what would be written).
    #[arg(long)]
    write: bool,
    /// With --write: also replace files ct export did not write.
    #[arg(long)]
    force: bool,
    /// Print the files (or, with --write, what happened to each) as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportTarget {
    ClaudeSdk,
    ClaudeCode,
    Copilot,
}

/// The workspace's definitions; their warnings printed unless `quiet`.
pub fn definitions(engine: &Engine, quiet: bool) -> Definitions {
    let (defs, warnings) = commandtree_core::sources::ai::definitions(engine.workspace());
    if !quiet {
        output::warnings(&warnings);
    }
    defs
}

/// Text for the terminal: each line made safe (see `output::clean`); piped, exact, so it can be
/// fed to another program.
pub fn print_text(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    if std::io::stdout().is_terminal() {
        for line in text.split('\n') {
            writeln!(out, "{}", output::clean(line))?;
        }
        Ok(())
    } else {
        writeln!(out, "{text}")
    }
}

pub fn prompt(engine: &Engine, args: PromptArgs, quiet: bool) -> Result<()> {
    let defs = definitions(engine, quiet);
    let text = defs
        .render_command(&args.command, &args.args, args.agent.as_deref())
        .map_err(anyhow::Error::msg)?;
    if args.send {
        // The rendered prompt is the whole request (with --agent, the agent's instructions and
        // skills are in it): `ct context` is not sent in front of it.
        return crate::llm_skills::send_prompt(engine, text);
    }
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(
            &mut out,
            &serde_json::json!({"command": args.command, "agent": args.agent, "prompt": text}),
        )?;
        writeln!(out)?;
    } else {
        print_text(&mut out, &text)?;
    }
    out.flush()?;
    Ok(())
}

pub fn agent(engine: &Engine, args: AgentArgs, quiet: bool) -> Result<()> {
    let defs = definitions(engine, quiet);
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    match args.action {
        AgentAction::Show { id, json } => {
            let Some(a) = defs.agent(&id) else {
                bail!(
                    "no agent `{id}`; available: {}",
                    defs.agents()
                        .iter()
                        .map(|a| a.meta.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            };
            if !quiet {
                for s in defs.missing_skills(a) {
                    output::warnings(&[commandtree_core::Warning::new(
                        std::path::Path::new(&a.meta.file),
                        None,
                        format!("agent `{id}` uses the skill `{s}`, which does not exist"),
                    )]);
                }
            }
            let prompt = defs.system_prompt(&id).unwrap_or_default();
            if json {
                output::json(
                    &mut out,
                    &serde_json::json!({"agent": a, "systemPrompt": prompt}),
                )?;
                writeln!(out)?;
            } else {
                print_text(&mut out, &prompt)?;
            }
        }
        AgentAction::List { json } => {
            if json {
                output::json(&mut out, defs.agents())?;
                writeln!(out)?;
            } else {
                for a in defs.agents() {
                    writeln!(
                        out,
                        "{}  {}  ({})",
                        output::clean(&a.meta.id),
                        output::clean(&a.meta.description),
                        output::clean(&a.meta.file)
                    )?;
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}

pub fn export(engine: &Engine, args: ExportArgs, quiet: bool) -> Result<()> {
    let defs = definitions(engine, quiet);
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    let target = match args.target {
        ExportTarget::ClaudeSdk => {
            if args.write || args.force {
                bail!(
                    "`ct export claude-sdk` prints the options; --write and --force are for claude-code and copilot"
                );
            }
            let base = match &args.base {
                Some(p) => {
                    let text = std::fs::read_to_string(p)
                        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
                    Some(
                        serde_json::from_str(&text)
                            .map_err(|e| anyhow::anyhow!("{} is not JSON: {e}", p.display()))?,
                    )
                }
                None => None,
            };
            let (options, warnings) = defs
                .claude_sdk_options(base, &McpServer::default())
                .map_err(anyhow::Error::msg)?;
            if !quiet {
                print_agent_warnings(engine, &warnings);
            }
            serde_json::to_writer_pretty(&mut out, &options)?;
            writeln!(out)?;
            out.flush()?;
            return Ok(());
        }
        ExportTarget::ClaudeCode => Target::ClaudeCode,
        ExportTarget::Copilot => Target::Copilot,
    };
    if args.base.is_some() {
        bail!("--base is for `ct export claude-sdk`");
    }
    let (files, warnings) = export::plan(&defs, target);
    if !quiet {
        print_agent_warnings(engine, &warnings);
    }
    if !args.write {
        if args.json {
            output::json(&mut out, &files)?;
            writeln!(out)?;
        } else {
            for f in &files {
                writeln!(
                    out,
                    "{}  (from {})",
                    output::clean(&f.path),
                    output::clean(&f.from)
                )?;
            }
            writeln!(
                out,
                "{} file{} for {}; `ct export {} --write` writes them",
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                target.as_str(),
                target.as_str()
            )?;
        }
        out.flush()?;
        return Ok(());
    }
    let results = export::write(engine.root(), &files, args.force);
    let kept = results
        .iter()
        .filter(|(_, o)| matches!(o, export::Outcome::Kept(_)))
        .count();
    if args.json {
        let rows: Vec<_> = results
            .iter()
            .map(|(p, o)| serde_json::json!({"path": p, "outcome": o}))
            .collect();
        output::json(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        for (p, o) in &results {
            let what = match o {
                export::Outcome::Written => "written".to_string(),
                export::Outcome::Unchanged => "unchanged".to_string(),
                export::Outcome::Kept(why) => format!("kept: {why}"),
            };
            writeln!(out, "{}  {}", output::clean(p), output::clean(&what))?;
        }
    }
    out.flush()?;
    if kept > 0 {
        return Err(crate::Exit(1).into());
    }
    Ok(())
}

fn print_agent_warnings(engine: &Engine, warnings: &[commandtree_agents::Warning]) {
    let ws: Vec<commandtree_core::Warning> = warnings
        .iter()
        .map(|w| {
            commandtree_core::Warning::new(
                &engine.root().join(&w.file),
                w.line.map(|l| l as usize),
                w.message.clone(),
            )
        })
        .collect();
    output::warnings(&ws);
}

/// For `ct show`: the rendered content of an AI definition item, if it is one.
pub fn rendered(engine: &Engine, c: &CommandItem) -> Option<String> {
    let kind = c.command_type().filter(|k| k.is_ai_definition())?;
    let kind = commandtree_agents::KINDS
        .into_iter()
        .find(|k| k.as_str() == kind.as_str())?;
    let defs = definitions(engine, true);
    let rel = std::path::Path::new(&c.file_path)
        .strip_prefix(engine.root())
        .ok()?
        .components()
        .map(|x| x.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let def = defs.by_file(kind, &rel)?;
    Some(defs.rendered(&def))
}
