//! `ct summarize`: plain-language summaries and security warnings from the user's LLM, redone
//! only for commands whose content changed.

use crate::{Exit, commands, output};
use anyhow::{Context, Result};
use clap::Args;
use commandtree_core::{CommandItem, Workspace};
use commandtree_llm::provider::{self, Detection, HOW_TO_CONFIGURE};
use commandtree_llm::summary::{self, Event, Pending, SummaryConfig};
use commandtree_llm::{CancelToken, Client, ProviderConfig};
use serde_json::json;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct SummarizeArgs {
    /// Only these commands (id, label or type:label); default: every command.
    #[arg(value_name = "COMMAND")]
    commands: Vec<String>,
    /// Summarize again even when the content did not change.
    #[arg(long)]
    force: bool,
    /// List what would be summarized and why, without asking the model.
    #[arg(long)]
    dry_run: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// The provider from the configuration and the environment.
pub fn detect(ws: &Workspace) -> Result<Detection> {
    provider::detect_for(ws).map_err(|e| anyhow::anyhow!(e.message))
}

/// The provider, or the explanation of how to configure one (printed) and exit 1.
fn require_provider(ws: &Workspace) -> Result<ProviderConfig> {
    match detect(ws)? {
        Detection::Found(c) => Ok(*c),
        Detection::Disabled(by) => {
            output::error(&format!(
                "AI features are switched off (provider = none, set in {by}); name a provider there to summarize"
            ));
            Err(Exit(1).into())
        }
        Detection::NotFound => {
            eprintln!("{HOW_TO_CONFIGURE}");
            Err(Exit(1).into())
        }
    }
}

pub fn summarize(ws: &Workspace, args: SummarizeArgs, quiet: bool) -> Result<()> {
    let cfg = SummaryConfig::from_config(&ws.settings.config, &provider::config_origin(ws))
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let provider = if args.dry_run {
        None
    } else {
        Some(require_provider(ws)?)
    };
    let loaded = crate::commands::load(ws, Vec::new(), quiet, !args.dry_run);
    let selected = select(ws, &loaded.commands, &args.commands)?;
    let subjects = summary::subjects(&selected);
    let stored = match &loaded.store {
        Some(s) => summary::stored(s)?,
        None => summary::Stored::new(),
    };
    let (pending, current) = summary::plan(subjects, &stored, args.force);
    if args.dry_run {
        return dry_run(&pending, current, args.json);
    }
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if pending.is_empty() {
        if args.json {
            output::json(
                &mut out,
                &json!({"summarized": [], "failed": [], "current": current, "notAttempted": 0}),
            )?;
        } else {
            writeln!(
                out,
                "All {current} command{} already have current summaries.",
                plural(current)
            )?;
        }
        out.flush()?;
        return Ok(());
    }
    let mut store = loaded.store.with_context(|| {
        format!(
            "{}: cannot open the workspace database",
            commandtree_store::db_path(&ws.root).display()
        )
    })?;
    let client = Client::new(provider.expect("checked above"));
    let mut bar = Bar::new(pending.len(), !quiet && std::io::stderr().is_terminal());
    let report = summary::run(
        &client,
        &mut store,
        pending,
        &cfg,
        &CancelToken::new(),
        &mut |ev| bar.on_event(ev, quiet),
    )?;
    bar.finish();
    // Embedding follows summarizing, as in the extension's background pipeline.
    crate::search::after_summaries(ws, &mut store, &loaded.commands, quiet);

    if args.json {
        let done: Vec<_> = report
            .done
            .iter()
            .map(|(s, a)| {
                let mut v = json!({"id": s.item.id, "label": s.item.label, "summary": a.summary});
                if let Some(w) = &a.security_warning {
                    v["securityWarning"] = json!(w);
                }
                v
            })
            .collect();
        let failed: Vec<_> = report
            .failed
            .iter()
            .map(|(s, e)| json!({"id": s.item.id, "label": s.item.label, "error": e.message}))
            .collect();
        let mut v = json!({
            "summarized": done,
            "failed": failed,
            "current": current,
            "notAttempted": report.not_attempted(),
        });
        if let Some(why) = &report.stopped {
            v["stopped"] = json!(why);
        }
        output::json(&mut out, &v)?;
    } else {
        for (s, a) in &report.done {
            if let Some(w) = &a.security_warning {
                writeln!(out, "⚠ {}: {w}", commands::name(&s.item))?;
            }
        }
        let mut line = format!(
            "Summarized {} of {} command{}",
            report.done.len(),
            report.total,
            plural(report.total)
        );
        if !report.failed.is_empty() {
            line.push_str(&format!(", {} failed", report.failed.len()));
        }
        if report.not_attempted() > 0 {
            line.push_str(&format!(", {} not attempted", report.not_attempted()));
        }
        line.push_str(&format!(" ({current} already current)."));
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    if let Some(why) = &report.stopped {
        output::error(why);
    }
    if report.failed.is_empty() {
        Ok(())
    } else {
        Err(Exit(1).into())
    }
}

/// The named commands (each must match exactly one), or all of them.
fn select(ws: &Workspace, all: &[CommandItem], queries: &[String]) -> Result<Vec<CommandItem>> {
    if queries.is_empty() {
        return Ok(all.to_vec());
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for q in queries {
        let c = crate::commands::resolve(ws, all, q)?;
        if seen.insert(c.id.clone()) {
            out.push(c.clone());
        }
    }
    Ok(out)
}

fn dry_run(pending: &[Pending], current: usize, as_json: bool) -> Result<()> {
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if as_json {
        let list: Vec<_> = pending
            .iter()
            .map(|p| {
                json!({"id": p.subject.item.id, "label": p.subject.item.label,
                       "type": p.subject.item.kind, "reason": p.reason.as_str()})
            })
            .collect();
        output::json(&mut out, &json!({"pending": list, "current": current}))?;
    } else {
        for p in pending {
            writeln!(
                out,
                "{:<8} {}",
                p.reason.as_str(),
                commands::name(&p.subject.item)
            )?;
        }
        writeln!(
            out,
            "{} to summarize, {current} already current.",
            pending.len()
        )?;
    }
    out.flush()?;
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A progress line on stderr for terminals: done/total, rate, time left, the latest command.
/// Failures are printed above it as they happen, on a terminal or not.
struct Bar {
    total: usize,
    done: usize,
    failed: usize,
    start: Instant,
    tty: bool,
}

impl Bar {
    fn new(total: usize, tty: bool) -> Bar {
        let b = Bar {
            total,
            done: 0,
            failed: 0,
            start: Instant::now(),
            tty,
        };
        b.draw("");
        b
    }

    fn on_event(&mut self, ev: &Event<'_>, quiet: bool) {
        match ev {
            Event::Done(s, _) => {
                self.done += 1;
                self.draw(&s.item.label);
            }
            Event::Failed(s, e) => {
                self.failed += 1;
                if self.tty {
                    eprint!("\r\x1b[2K");
                }
                if !quiet {
                    output::warnings(&[commandtree_core::Warning::new(
                        std::path::Path::new(&s.item.file_path),
                        s.item.line.map(|l| l as usize),
                        format!("{}: {e}", commands::name(&s.item)),
                    )]);
                }
                self.draw(&s.item.label);
            }
        }
    }

    fn draw(&self, label: &str) {
        if !self.tty {
            return;
        }
        let finished = self.done + self.failed;
        let width = 24;
        let filled = (finished * width).checked_div(self.total).unwrap_or(0);
        let elapsed = self.start.elapsed().as_secs_f64();
        let rate = if elapsed > 0.0 {
            finished as f64 / elapsed
        } else {
            0.0
        };
        let eta = if rate > 0.0 {
            let left = (self.total - finished) as f64 / rate;
            format!("ETA {}", clock(Duration::from_secs_f64(left)))
        } else {
            "ETA --".to_string()
        };
        let label = commandtree_core::text::truncate(label, 30);
        eprint!(
            "\r\x1b[2Ksummarizing [{}{}] {finished}/{} {rate:.1}/s {eta} {label}",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.total
        );
        let _ = std::io::stderr().flush();
    }

    fn finish(&self) {
        if self.tty {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
    }
}

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}
