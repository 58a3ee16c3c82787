//! `ct search` (find commands by meaning) and `ct embed` (make the embeddings it searches), plus
//! the embedding checks of `ct db check`.

use crate::{Exit, output};
use anstyle::Style;
use anyhow::{Context, Result};
use clap::Args;
use commandtree_core::{CommandItem, Options, Workspace};
use commandtree_embed::pipeline::{self, Source};
use commandtree_embed::search::DEFAULT_THRESHOLD;
use commandtree_embed::{Embedder, model};
use commandtree_store::{Check, Store, WorkspaceDb};
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

const DIM: Style = Style::new().dimmed();
const LABEL: Style = Style::new().bold();

#[derive(Args)]
pub struct SearchArgs {
    /// What you are looking for, in your own words (e.g. "reset the dev database").
    #[arg(required = true, value_name = "QUERY")]
    query: Vec<String>,
    /// Print a JSON array of CommandItem objects, best first, each with a `score` (0-1).
    #[arg(long)]
    json: bool,
    /// Show at most N results (0: all above the threshold).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 20)]
    limit: usize,
    /// Keep results whose similarity is at least this (0-1).
    #[arg(long, value_name = "SCORE", default_value_t = DEFAULT_THRESHOLD, value_parser = score)]
    threshold: f32,
}

#[derive(Args)]
pub struct EmbedArgs {
    /// Embed every command again, even those whose text did not change.
    #[arg(long)]
    force: bool,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

fn score(s: &str) -> Result<f32, String> {
    let v: f32 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is not between 0 and 1"))
    }
}

pub fn search(ws: &Workspace, args: SearchArgs, quiet: bool) -> Result<()> {
    let query = args.query.join(" ");
    if query.trim().is_empty() {
        output::error("the search query is empty");
        return Err(Exit(2).into());
    }
    let loaded = crate::commands::load(ws, Vec::new(), quiet, false);
    let commands = loaded.commands;
    let how = format!(
        "no command has an embedding yet; run `ct embed` to make them ({} command{})",
        commands.len(),
        plural(commands.len())
    );
    let Some(mut store) = loaded.store else {
        output::error(&how);
        return Err(Exit(1).into());
    };
    let plan = pipeline::plan(&store, &commands, false)?;
    if plan.with_embedding == 0 {
        output::error(&how);
        return Err(Exit(1).into());
    }
    let embedder = load_model(ws, quiet)?;
    // Commands added or whose summary changed since the last `ct embed`: cheap to catch up on
    // now, and search would otherwise miss them.
    if !plan.items.is_empty() {
        let bar = Bar::new(
            "embedding",
            plan.items.len(),
            !quiet && plan.items.len() >= 64,
        );
        let r = pipeline::run(
            &mut store,
            &embedder,
            plan,
            &mut |d, t| bar.draw(d, t),
            &|| false,
        );
        bar.finish();
        if let Err(e) = r
            && !quiet
        {
            output::warnings(&[commandtree_core::Warning::new(
                store.path(),
                None,
                format!("could not store new embeddings: {e}"),
            )]);
        }
    }
    let limit = if args.limit == 0 {
        usize::MAX
    } else {
        args.limit
    };
    let found: Vec<(&CommandItem, f32)> = commandtree_embed::search::search_commands(
        &store,
        &commands,
        &embedder,
        &query,
        args.threshold,
        limit,
    )?
    .into_iter()
    .map(|(i, score)| (&commands[i], score))
    .collect();
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        let items: Vec<Scored<'_>> = found
            .iter()
            .map(|(c, s)| Scored {
                item: c,
                score: (*s as f64 * 10_000.0).round() / 10_000.0,
            })
            .collect();
        output::json(&mut out, &items)?;
    } else if found.is_empty() {
        writeln!(
            out,
            "No command is similar enough to \"{query}\" (threshold {}); try other words or a lower --threshold.",
            args.threshold
        )?;
    } else {
        for (c, s) in &found {
            let pct = (s * 100.0).round() as i32;
            write!(out, "{LABEL}{}{LABEL:#} ({pct}%)  {DIM}{}", c.label, c.kind)?;
            if let Some(rel) = relative(&ws.root, &c.file_path) {
                write!(out, "  {rel}")?;
            }
            if let Some(d) = c.summary.as_deref().or(c.description.as_deref()) {
                let line = d.lines().next().unwrap_or("");
                write!(out, "  {}", commandtree_core::text::truncate(line, 80))?;
            }
            writeln!(out, "{DIM:#}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// A search result in JSON: the CommandItem's fields, then `score`.
#[derive(serde::Serialize)]
struct Scored<'a> {
    #[serde(flatten)]
    item: &'a CommandItem,
    score: f64,
}

/// For `ct summarize`, after it stored summaries: re-embeds the commands whose text changed,
/// when the model is on this machine (never downloads here). Problems are warnings; the
/// summaries are stored either way.
pub fn after_summaries(ws: &Workspace, store: &mut Store, commands: &[CommandItem], quiet: bool) {
    let Some(dir) = model::find(&ws.root) else {
        return;
    };
    let result = (|| -> Result<usize> {
        let plan = pipeline::plan(store, commands, false)?;
        if plan.items.is_empty() {
            return Ok(0);
        }
        let embedder = Embedder::load(&dir)?;
        let bar = Bar::new("embedding", plan.items.len(), !quiet);
        let r = pipeline::run(store, &embedder, plan, &mut |d, t| bar.draw(d, t), &|| {
            false
        });
        bar.finish();
        Ok(r?.embedded)
    })();
    if let Err(e) = result
        && !quiet
    {
        output::warnings(&[commandtree_core::Warning::new(
            store.path(),
            None,
            format!("summaries stored, but embedding them failed: {e:#}"),
        )]);
    }
}

pub fn embed(ws: &Workspace, args: EmbedArgs, quiet: bool) -> Result<()> {
    let loaded = crate::commands::load(ws, Vec::new(), quiet, true);
    let mut store = loaded.store.with_context(|| {
        format!(
            "{}: cannot open the workspace database",
            ws.db_path().display()
        )
    })?;
    let plan = pipeline::plan(&store, &loaded.commands, args.force)?;
    let current = plan.up_to_date;
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if plan.items.is_empty() {
        if args.json {
            output::json(
                &mut out,
                &json!({"embedded": 0, "fromSummary": 0, "fromDiscovered": 0, "current": current}),
            )?;
        } else {
            writeln!(
                out,
                "All {current} command{} already have current embeddings.",
                plural(current)
            )?;
        }
        out.flush()?;
        return Ok(());
    }
    let from_summary = plan
        .items
        .iter()
        .filter(|i| i.source == Source::Summary)
        .count();
    let from_discovered = plan.items.len() - from_summary;
    let embedder = load_model(ws, quiet)?;
    let start = Instant::now();
    let bar = Bar::new("embedding", plan.items.len(), !quiet);
    let report = pipeline::run(
        &mut store,
        &embedder,
        plan,
        &mut |d, t| bar.draw(d, t),
        &|| false,
    )?;
    bar.finish();
    let secs = start.elapsed().as_secs_f64();
    if args.json {
        output::json(
            &mut out,
            &json!({
                "embedded": report.embedded,
                "fromSummary": from_summary,
                "fromDiscovered": from_discovered,
                "current": current,
                "changedMeanwhile": report.changed_meanwhile,
                "seconds": (secs * 1000.0).round() / 1000.0,
                "model": embedder.dir(),
                "isa": embedder.isa(),
                "threads": embedder.threads(),
            }),
        )?;
    } else {
        writeln!(
            out,
            "Embedded {} command{} in {secs:.1} s ({from_summary} from summaries, {from_discovered} from discovered text until they have one); {current} already current.",
            report.embedded,
            plural(report.embedded),
        )?;
        if report.changed_meanwhile > 0 {
            writeln!(
                out,
                "{} summar{} changed meanwhile; run `ct embed` again for them.",
                report.changed_meanwhile,
                if report.changed_meanwhile == 1 {
                    "y"
                } else {
                    "ies"
                }
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Finds (or downloads, with progress on a terminal) and loads the model.
fn load_model(ws: &Workspace, quiet: bool) -> Result<Embedder> {
    let tty = !quiet && std::io::stderr().is_terminal();
    let mut announced = false;
    let mut line_open = false;
    let mut last_draw = Instant::now();
    let found = model::ensure(&ws.root, &mut |p| {
        if !announced && !quiet {
            eprintln!(
                "downloading {} from {} into {}",
                model::MODEL_NAME,
                model::endpoint(),
                model::cache_dir().unwrap_or_default().display()
            );
            announced = true;
        }
        if tty && (p.done == p.total || last_draw.elapsed().as_millis() >= 100) {
            last_draw = Instant::now();
            let width = 24;
            let filled = (p.done * width)
                .checked_div(p.total)
                .unwrap_or(0)
                .min(width) as usize;
            eprint!(
                "\r\x1b[2K  {} [{}{}] {:.1}/{:.1} MB",
                p.file,
                "#".repeat(filled),
                "-".repeat(width as usize - filled),
                p.done as f64 / 1e6,
                p.total as f64 / 1e6
            );
            line_open = p.done != p.total;
            if !line_open {
                eprintln!();
            }
            let _ = std::io::stderr().flush();
        }
    });
    if line_open {
        // A failed download: the error goes on a line of its own.
        eprintln!();
    }
    let dir: PathBuf = found?;
    Ok(Embedder::load(&dir)?)
}

/// The embedding lines of `ct db check`, for the commands discovered now. Reads the file
/// without changing it. Sizes are always checked; completeness (a row, a summary and an
/// embedding for every command, the seed spec's verification recipe) once the AI features are
/// in use, i.e. the database holds any summary or embedding: a database used only for tags
/// passes.
pub fn checks(ws: &Workspace, db: &Path) -> Result<Vec<Check>> {
    let d = ws.discover(&Options {
        types: Vec::new(),
        threads: 0,
    });
    let ids: Vec<&str> = d.commands.iter().map(|c| c.id.as_str()).collect();
    let cov = match pipeline::coverage_of_file(db, &ids) {
        Ok(Some(c)) => c,
        // No `commands` table: the schema check already fails and says why.
        Ok(None) => return Ok(Vec::new()),
        Err(e) => {
            return Ok(vec![Check {
                name: "embeddings",
                ok: false,
                detail: e.to_string(),
            }]);
        }
    };
    let mut out = Vec::new();
    out.push(if cov.bad_size.is_empty() {
        Check {
            name: "embeddings",
            ok: true,
            detail: "every stored embedding is 1536 bytes (384 f32)".into(),
        }
    } else {
        let list: Vec<String> = cov
            .bad_size
            .iter()
            .take(5)
            .map(|(id, n)| format!("{id} ({n} bytes)"))
            .collect();
        Check {
            name: "embeddings",
            ok: false,
            detail: format!(
                "{} embedding{} not 1536 bytes: {}{} (`ct embed --force` rewrites them)",
                cov.bad_size.len(),
                if cov.bad_size.len() == 1 {
                    " is"
                } else {
                    "s are"
                },
                list.join(", "),
                if cov.bad_size.len() > 5 { ", ..." } else { "" }
            ),
        }
    });
    let n = cov.commands;
    out.push(if cov.ai_rows == 0 {
        Check {
            name: "coverage",
            ok: true,
            detail: format!(
                "no summaries or embeddings yet ({n} command{}; `ct summarize`, `ct embed`)",
                plural(n)
            ),
        }
    } else if cov.missing_row.is_empty()
        && cov.missing_summary.is_empty()
        && cov.missing_embedding.is_empty()
    {
        Check {
            name: "coverage",
            ok: true,
            detail: format!(
                "all {n} command{} have a row, a summary and an embedding",
                plural(n)
            ),
        }
    } else {
        let mut parts = Vec::new();
        if !cov.missing_row.is_empty() {
            parts.push(format!("{} without a row", cov.missing_row.len()));
        }
        if !cov.missing_summary.is_empty() {
            parts.push(format!(
                "{} without a summary (`ct summarize`)",
                cov.missing_summary.len()
            ));
        }
        if !cov.missing_embedding.is_empty() {
            parts.push(format!(
                "{} without an embedding (`ct embed`)",
                cov.missing_embedding.len()
            ));
        }
        Check {
            name: "coverage",
            ok: false,
            detail: format!("of {n} command{}: {}", plural(n), parts.join(", ")),
        }
    });
    Ok(out)
}

fn relative(root: &Path, file: &str) -> Option<String> {
    Path::new(file)
        .strip_prefix(root)
        .ok()
        .map(|p| p.display().to_string())
        .filter(|s| !s.is_empty())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A progress line on stderr, on terminals only.
struct Bar {
    what: &'static str,
    tty: bool,
    start: Instant,
}

impl Bar {
    fn new(what: &'static str, total: usize, show: bool) -> Bar {
        let b = Bar {
            what,
            tty: show && std::io::stderr().is_terminal(),
            start: Instant::now(),
        };
        b.draw(0, total);
        b
    }

    fn draw(&self, done: usize, total: usize) {
        if !self.tty {
            return;
        }
        let width = 24;
        let filled = (done * width).checked_div(total).unwrap_or(0).min(width);
        let secs = self.start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
        eprint!(
            "\r\x1b[2K{} [{}{}] {done}/{total} {rate:.0}/s",
            self.what,
            "#".repeat(filled),
            "-".repeat(width - filled)
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
