//! `ct summarize`: plain-language summaries and security warnings from the user's LLM, redone
//! only for commands whose content changed.

use crate::commands::fail;
use crate::progress::Bar;
use crate::{Exit, commands, output};
use anyhow::Result;
use clap::Args;
use commandtree_core::{CancelToken, ProgressEvent};
use commandtree_engine::{Engine, summaries};
use commandtree_llm::ProviderConfig;
use commandtree_llm::summary::{Event, Pending};
use serde_json::json;
use std::io::{IsTerminal, Write};

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

/// The provider, or why there is none printed (how to configure one) and exit 1.
pub(crate) fn require_provider(engine: &Engine) -> Result<ProviderConfig> {
    match summaries::provider(engine.workspace()) {
        Ok(p) => Ok(p),
        Err(
            e @ commandtree_engine::Error::NoProvider {
                disabled_by: Some(_),
            },
        ) => {
            output::error(&format!("{e}; name a provider there to summarize"));
            Err(Exit(1).into())
        }
        Err(e @ commandtree_engine::Error::NoProvider { disabled_by: None }) => {
            eprintln!("{e}");
            Err(Exit(1).into())
        }
        Err(e) => Err(fail(e)),
    }
}

pub fn summarize(engine: &Engine, args: SummarizeArgs, quiet: bool) -> Result<()> {
    summaries::config(engine.workspace()).map_err(fail)?;
    let provider = if args.dry_run {
        None
    } else {
        Some(require_provider(engine)?)
    };
    let mut loaded = commands::load(engine, Vec::new(), quiet, !args.dry_run)?;
    let Some(provider) = provider else {
        let plan = summaries::plan(&loaded, &args.commands, args.force).map_err(fail)?;
        return dry_run(&plan.pending, plan.current, args.json);
    };
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    let bar = Bar::new("summarizing", !quiet && std::io::stderr().is_terminal());
    let client = commandtree_llm::Client::new(provider);
    let outcome = summaries::summarize(
        engine.workspace(),
        &mut loaded,
        &args.commands,
        args.force,
        &client,
        &CancelToken::new(),
        &|e: ProgressEvent| bar.event(&e),
        &mut |ev| {
            if let Event::Failed(s, e) = ev
                && !quiet
            {
                bar.suspend(|| {
                    output::warnings(&[commandtree_core::Warning::new(
                        std::path::Path::new(&s.item.file_path),
                        s.item.line.map(|l| l as usize),
                        format!("{}: {e}", commands::name(&s.item)),
                    )])
                });
            }
        },
    )
    .map_err(fail)?;
    let current = outcome.current;
    let Some(report) = outcome.report else {
        bar.finish();
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
    };
    let embed_problem = outcome.embed_problem;
    bar.finish();
    if let Some(w) = embed_problem
        && !quiet
    {
        output::warnings(&[commandtree_core::Warning::new(&engine.db_path(), None, w)]);
    }

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
                writeln!(out, "⚠ {}: {}", commands::name(&s.item), output::clean(w))?;
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
