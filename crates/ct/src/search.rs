//! `ct search` (find commands by meaning) and `ct embed` (make the embeddings it searches):
//! arguments, progress on the terminal and output over the engine's search.

use crate::commands::fail;
use crate::{Exit, output};
use anstyle::Style;
use anyhow::Result;
use clap::Args;
use commandtree_core::{CancelToken, CommandItem, ProgressEvent};
use commandtree_embed::pipeline::Source;
use commandtree_embed::{Embedder, model};
use commandtree_engine::Engine;
use commandtree_engine::search::{self as engine_search, DEFAULT_THRESHOLD};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::progress::Bar;

const DIM: Style = Style::new().dimmed();
const LABEL: Style = Style::new().bold();

#[derive(Args)]
pub struct SearchArgs {
    /// What you are looking for, in your own words (e.g. "reset the dev database").
    #[arg(required = true, value_name = "QUERY")]
    query: Vec<String>,
    /// Print a JSON array of CommandItem objects, best first, each with a `score` (0-1) and
    /// why it ranks there: `lexicalRank` and `semanticRank` (1-based places in the two lists,
    /// absent when not in one), `similarity` and `exact` (the query is its name).
    #[arg(long)]
    json: bool,
    /// Show at most N results (0: every command that enters).
    #[arg(long, short = 'n', value_name = "N", default_value_t = 20)]
    limit: usize,
    /// A command enters the results by meaning alone at this similarity or above (0-1); one
    /// holding a word of the query enters whatever its similarity.
    #[arg(long, value_name = "SCORE", default_value_t = DEFAULT_THRESHOLD, value_parser = score)]
    threshold: f32,
    /// How to rank: `hybrid` (words and meaning fused, the exact name first: what every front
    /// end uses), `lexical` (words only; needs no model) or `semantic` (meaning only).
    #[arg(long, value_enum, default_value_t = ModeArg::Hybrid)]
    mode: ModeArg,
    /// Also search what listings hide by default (test data, templates, vendored code,
    /// examples, commands their tool hides).
    #[arg(long)]
    all: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ModeArg {
    Hybrid,
    Lexical,
    Semantic,
}

impl From<ModeArg> for engine_search::Mode {
    fn from(m: ModeArg) -> Self {
        match m {
            ModeArg::Hybrid => engine_search::Mode::Hybrid,
            ModeArg::Lexical => engine_search::Mode::Lexical,
            ModeArg::Semantic => engine_search::Mode::Semantic,
        }
    }
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

pub fn search(engine: &Engine, args: SearchArgs, quiet: bool) -> Result<()> {
    let query = args.query.join(" ");
    if query.trim().is_empty() {
        output::error("the search query is empty");
        return Err(Exit(2).into());
    }
    let mut loaded = crate::commands::load(engine, Vec::new(), quiet, false)?;
    let limit = if args.limit == 0 {
        usize::MAX
    } else {
        args.limit
    };
    let lexical_only = args.mode == ModeArg::Lexical;
    // The model before anything is written: without it there is nothing to index with.
    let embedder = if lexical_only {
        None
    } else {
        let first = !engine_search::has_embeddings(&loaded).map_err(fail)?;
        let embedder = match find_model(engine.root(), quiet) {
            Ok(e) => e,
            // Words alone still find names, paths and descriptions: better than nothing when
            // the model cannot be had (offline, no network).
            Err(e) if args.mode == ModeArg::Hybrid => {
                if !quiet {
                    eprintln!("note: {e}\nnote: searching by words only for now");
                }
                return search_by_words(engine, &mut loaded, &args, &query, limit, quiet);
            }
            Err(e) => return Err(fail(e)),
        };
        if first {
            // The first search indexes the workspace (the database is made for it); later ones
            // catch up on what changed since.
            loaded = crate::commands::load(engine, Vec::new(), true, true)?;
            if !quiet {
                let n = loaded.workflow_commands().len();
                eprintln!(
                    "note: indexing {n} command{} for search (first time; later searches only index what changed)",
                    plural(n)
                );
            }
        }
        Some(embedder)
    };
    // Commands added or whose summary changed since the last `ct embed` are embedded first:
    // cheap to catch up on now, and search would otherwise miss them.
    let bar = Bar::new("embedding", !quiet).min_total(64);
    let found = engine_search::search_with(
        &mut loaded,
        embedder.as_ref(),
        &query,
        &engine_search::Ask {
            threshold: args.threshold,
            limit,
            mode: args.mode.into(),
            all: args.all,
        },
        &CancelToken::new(),
        &|e: ProgressEvent| bar.event(&e),
    )
    .map_err(fail)?;
    bar.finish();
    show(engine, &args, &query, found, quiet)
}

/// A search by words alone (no model on this machine).
fn search_by_words(
    engine: &Engine,
    loaded: &mut commandtree_engine::Loaded,
    args: &SearchArgs,
    query: &str,
    limit: usize,
    quiet: bool,
) -> Result<()> {
    let found = engine_search::search_with(
        loaded,
        None,
        query,
        &engine_search::Ask {
            threshold: args.threshold,
            limit,
            mode: engine_search::Mode::Lexical,
            all: args.all,
        },
        &CancelToken::new(),
        &commandtree_core::NoProgress,
    )
    .map_err(fail)?;
    show(engine, args, query, found, quiet)
}

/// Prints what a search found, as text or JSON.
fn show(
    engine: &Engine,
    args: &SearchArgs,
    query: &str,
    found: engine_search::Found,
    quiet: bool,
) -> Result<()> {
    if let Some(w) = &found.refresh_warning
        && !quiet
    {
        output::warnings(&[commandtree_core::Warning::new(
            &engine.db_path(),
            None,
            w.clone(),
        )]);
    }
    let ws = engine.workspace();
    let round = |s: f32| (s as f64 * 10_000.0).round() / 10_000.0;
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        let items: Vec<Scored<'_>> = found
            .hits
            .iter()
            .map(|h| Scored {
                item: &h.command,
                score: round(h.score),
                similarity: h.similarity.map(round),
                lexical_rank: h.lexical_rank,
                semantic_rank: h.semantic_rank,
                exact: h.exact,
            })
            .collect();
        output::json(&mut out, &items)?;
    } else if found.hits.is_empty() {
        writeln!(
            out,
            "No command holds these words or is similar enough to \"{}\" (threshold {}); try other words, a lower --threshold or --all.",
            output::clean(query),
            args.threshold
        )?;
    } else {
        let found: Vec<(&CommandItem, f32)> =
            found.hits.iter().map(|h| (&h.command, h.score)).collect();
        print_hits(&mut out, &ws.root, &found)?;
    }
    out.flush()?;
    Ok(())
}

/// The hits as lines for a terminal: label, score, type, file and the first line of the summary
/// or description, each cleaned (they are workspace text, or a model's words about it).
fn print_hits(out: &mut impl Write, root: &Path, found: &[(&CommandItem, f32)]) -> Result<()> {
    for (c, s) in found {
        let pct = (s * 100.0).round() as i32;
        write!(
            out,
            "{LABEL}{}{LABEL:#} ({pct}%)  {DIM}{}",
            output::clean(&c.label),
            output::clean(&c.kind)
        )?;
        if let Some(rel) = relative(root, &c.file_path) {
            write!(out, "  {}", output::clean(&rel))?;
        }
        if let Some(d) = c.summary.as_deref().or(c.description.as_deref()) {
            let line = d.lines().next().unwrap_or("");
            write!(
                out,
                "  {}",
                output::clean(&commandtree_core::text::truncate(line, 80))
            )?;
        }
        writeln!(out, "{DIM:#}")?;
    }
    Ok(())
}

/// A search result in JSON: the CommandItem's fields, then its score and why.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Scored<'a> {
    #[serde(flatten)]
    item: &'a CommandItem,
    score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lexical_rank: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    semantic_rank: Option<usize>,
    exact: bool,
}

pub fn embed(engine: &Engine, args: EmbedArgs, quiet: bool) -> Result<()> {
    let mut loaded = crate::commands::load(engine, Vec::new(), quiet, true)?;
    let plan = engine_search::plan(&loaded, args.force).map_err(fail)?;
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
    let embedder = load_model(engine.root(), quiet)?;
    let start = Instant::now();
    let bar = Bar::new("embedding", !quiet);
    let store = loaded.writable().map_err(fail)?;
    let report = engine_search::embed(
        store,
        &embedder,
        plan,
        &CancelToken::new(),
        &|e: ProgressEvent| bar.event(&e),
    )
    .map_err(fail)?;
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
fn load_model(root: &Path, quiet: bool) -> Result<Embedder> {
    find_model(root, quiet).map_err(fail)
}

/// The model, downloaded (with progress) when it is missing and downloads are allowed.
fn find_model(
    root: &Path,
    quiet: bool,
) -> std::result::Result<Embedder, commandtree_engine::Error> {
    let bar = Bar::bytes("model", !quiet);
    let mut announced = false;
    let found = engine_search::load_model(root, &mut |p| {
        if !announced && !quiet {
            bar.suspend(|| {
                eprintln!(
                    "downloading {} from {} into {}",
                    model::MODEL_NAME,
                    model::endpoint(),
                    model::cache_dir().unwrap_or_default().display()
                )
            });
            announced = true;
        }
        bar.progress(p.file, p.done, p.total);
    });
    bar.finish();
    found
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_printed_without_raw_escapes() {
        let hostile = "\x1b[31mred\x1b]0;title\x07\u{202e}evil";
        let mut c = CommandItem::new(
            "npm",
            Path::new("/w/\x1b[2Jpackage.json"),
            hostile,
            format!("npm run {hostile}"),
        );
        c.summary = Some(format!("Summary {hostile}\nsecond line"));
        let mut out = Vec::new();
        print_hits(&mut out, Path::new("/w"), &[(&c, 0.5)]).unwrap();
        // Our own styling (bold, dim, reset) is ours; anything else raw would be the label's.
        let mut text = String::from_utf8(out).unwrap();
        for own in [LABEL, DIM] {
            text = text
                .replace(&own.render().to_string(), "")
                .replace(&own.render_reset().to_string(), "");
        }
        for raw in ['\x1b', '\x07', '\u{202e}'] {
            assert!(!text.contains(raw), "{raw:?} in {text:?}");
        }
        assert!(
            text.contains("\\x1b[31mred\\x1b]0;title\\x07\\u{202e}evil (50%)"),
            "{text}"
        );
        assert!(text.contains("\\x1b[2Jpackage.json"), "{text}");
    }
}
