//! Keeping the `embedding` column of the `commands` table current.
//!
//! Every existing command gets an embedding: of its LLM summary when it has one, otherwise of
//! what discovery knows (label, folder, description, command line), so search works offline with no LLM
//! configured. Which text was embedded is remembered (as a hash) in a table of our own,
//! `embedding_sources`, never in extra columns of the shared seed tables. A command is
//! re-embedded exactly when that text changes: a new or edited summary replaces an embedding of
//! the discovered text, an edited summary replaces the old one.
//!
//! The store owns both tables (`Store::embedding_states`, `Store::store_embeddings`). A source
//! row only counts when the `commands` row also has a 1536-byte embedding.

use super::{BLOB_LEN, Embedder, Error, model::MODEL_NAME, to_blob};
use commandtree_core::CommandItem;
use commandtree_store::{EmbeddingState, NewEmbedding, Store};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};

pub const TABLE: &str = "embedding_sources";

/// Texts embedded together: enough for every thread to get full sub-batches, small enough
/// that progress and cancellation stay responsive.
const GROUP: usize = 256;

/// What an embedding was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The LLM summary.
    Summary,
    /// Label, description and command line, until there is a summary.
    Discovered,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Summary => "summary",
            Source::Discovered => "discovered",
        }
    }
}

/// Folders named for what kind of file they hold, not for a part of the project.
const GENERIC_FOLDERS: &[&str] = &[
    "scripts",
    "script",
    "bin",
    "tools",
    "tool",
    "src",
    "lib",
    "hack",
    "ci",
    "build",
    "utils",
    "util",
    "dev",
    "tasks",
    ".github",
    "workflows",
    ".vscode",
    ".",
];

/// Short words of task names and what they stand for: the model reads `cov` or `fmt` as
/// letters, not as coverage or formatting (celery's `make cov` was 158th by meaning for "run
/// the tests with coverage"). The lexical index has its own synonyms (`lexical::SYNONYMS`):
/// there both spellings are one word; here the model is told the long one.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("fmt", "format"),
    ("cov", "coverage"),
    ("deps", "dependencies"),
    ("dep", "dependency"),
    ("gen", "generate"),
    ("regen", "regenerate"),
    ("e2e", "end-to-end tests"),
    ("db", "database"),
    ("env", "environment"),
    ("i18n", "translations"),
    ("l10n", "translations"),
    ("bench", "benchmark"),
    ("perf", "performance"),
    ("prof", "profile"),
    ("init", "initialize"),
    ("tsc", "typescript compiler"),
    ("dts", "type declarations"),
    ("cjs", "commonjs"),
    ("esm", "es modules"),
    ("sfc", "single file component"),
    ("pkg", "package"),
    ("pkgs", "packages"),
    ("k8s", "kubernetes"),
    ("img", "image"),
    ("prod", "production"),
    ("dev", "development"),
    ("dist", "distribution"),
    ("lib", "library"),
    ("repl", "interactive shell"),
    ("ssr", "server-side rendering"),
    ("wasm", "webassembly"),
    ("pg", "postgres"),
    ("gql", "graphql"),
    ("cfg", "configuration"),
    ("conf", "configuration"),
    ("tpl", "template"),
    ("srv", "server"),
    ("deb", "debian package"),
    ("ts", "typescript"),
    ("js", "javascript"),
    ("py", "python"),
    ("lsp", "language server"),
    ("dl", "download"),
    ("ver", "version"),
    // Languages' interactive shells, by the names of their programs.
    ("iex", "interactive elixir shell"),
    ("irb", "interactive ruby shell"),
    ("ghci", "interactive haskell shell"),
    ("jshell", "interactive java shell"),
];

/// What the abbreviated words of a name stand for, each once, in the name's order.
fn expansions(label: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for word in label.split(|c: char| !c.is_ascii_alphanumeric()) {
        let word = word.to_ascii_lowercase();
        if let Some((_, long)) = ABBREVIATIONS.iter().find(|(short, _)| *short == word)
            && !out.contains(long)
        {
            out.push(long);
        }
    }
    out
}

/// The text to embed for `c`, given the summary stored for it.
pub fn source_text(c: &CommandItem, summary: Option<&str>) -> (String, Source) {
    if let Some(s) = summary.map(str::trim).filter(|s| !s.is_empty()) {
        return (s.to_string(), Source::Summary);
    }
    let mut text = c.label.trim().to_string();
    for long in expansions(&c.label) {
        text.push_str(", ");
        text.push_str(long);
    }
    // A tox environment named for an interpreter (`py312`) runs on it; the model cannot read
    // that from the name.
    if c.kind == "tox"
        && let Some(python) = commandtree_core::sources::tox::interpreter(&c.label)
    {
        text.push_str(", ");
        text.push_str(&python);
    }
    // Where it is says which package or part of the project it acts on ("build the
    // plugin-legacy package"); a folder that only holds scripts says nothing and would blur a
    // short name.
    let folder = c.category.trim();
    let last = folder.rsplit('/').next().unwrap_or(folder);
    if !folder.is_empty() && folder != "Root" && !GENERIC_FOLDERS.contains(&last) {
        text.push_str(" (");
        text.push_str(folder);
        text.push(')');
    }
    if let Some(d) = c
        .description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        text.push_str(": ");
        text.push_str(d);
    }
    // The command's own folder is in most command lines (`"/home/me/proj/scripts/x.sh"`); to
    // the model it is noise that makes every command of a workspace look alike.
    let mut command = c.command.trim().to_string();
    if !c.cwd.is_empty() {
        command = command.replace(&format!("{}/", c.cwd.trim_end_matches('/')), "");
    }
    let bare = command.trim_matches(|ch| ch == '"' || ch == '\'');
    if !bare.is_empty() && bare != c.label.trim() {
        text.push('\n');
        text.push_str(&command);
    }
    (text, Source::Discovered)
}

pub fn text_hash(text: &str, source: Source) -> String {
    let mut h = Sha256::new();
    h.update(MODEL_NAME.as_bytes());
    h.update([0]);
    h.update(source.as_str().as_bytes());
    h.update([0]);
    h.update(text.as_bytes());
    super::model::hex(&h.finalize())
}

/// A command whose embedding is missing or out of date.
#[derive(Debug, Clone)]
pub struct Item {
    pub id: String,
    pub text: String,
    pub source: Source,
    pub hash: String,
    /// The summary column as read: the embedding is written only if it is still the same, so
    /// a summary stored meanwhile by another process is not paired with a stale embedding.
    summary: String,
    has_row: bool,
}

/// What `plan` found.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub items: Vec<Item>,
    /// Existing commands whose embedding is current.
    pub up_to_date: usize,
    /// Existing commands with a stored embedding (current or not).
    pub with_embedding: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    pub embedded: usize,
    pub up_to_date: usize,
    /// Skipped because another process changed the summary meanwhile (the next run embeds it).
    pub changed_meanwhile: usize,
    pub cancelled: bool,
}

/// Which of `commands` need a (new) embedding; all of them with `force`.
pub fn plan(
    store: &Store,
    commands: &[CommandItem],
    force: bool,
) -> commandtree_store::Result<Plan> {
    let rows = store.embedding_states()?;
    let mut plan = Plan::default();
    let mut seen = HashSet::new();
    for c in commands {
        if !seen.insert(c.id.as_str()) {
            continue;
        }
        let row = rows.get(&c.id);
        let (text, source) = source_text(c, row.map(|r| r.summary.as_str()));
        let hash = text_hash(&text, source);
        let has_blob = row.is_some_and(|r| r.embedding_len == Some(BLOB_LEN));
        if has_blob {
            plan.with_embedding += 1;
        }
        if !force && has_blob && row.and_then(|r| r.text_hash.as_deref()) == Some(hash.as_str()) {
            plan.up_to_date += 1;
            continue;
        }
        plan.items.push(Item {
            id: c.id.clone(),
            text,
            source,
            hash,
            summary: row.map(|r| r.summary.clone()).unwrap_or_default(),
            has_row: row.is_some(),
        });
    }
    Ok(plan)
}

/// Embeds the plan's items and stores them, `GROUP` at a time (each group one transaction).
/// `progress(done, total)` is called after each group; `cancelled()` is asked before each.
pub fn run(
    store: &mut Store,
    embedder: &Embedder,
    plan: Plan,
    progress: &mut dyn FnMut(usize, usize),
    cancelled: &dyn Fn() -> bool,
) -> Result<Report, Error> {
    let mut report = Report {
        up_to_date: plan.up_to_date,
        ..Report::default()
    };
    let mut items = plan.items;
    // Similar lengths in one group make similar sub-batches.
    items.sort_by_key(|i| i.text.len());
    let total = items.len();
    progress(0, total);
    for group in items.chunks(GROUP) {
        if cancelled() {
            report.cancelled = true;
            break;
        }
        let texts: Vec<&str> = group.iter().map(|i| i.text.as_str()).collect();
        let vectors = embedder.embed(&texts)?;
        let blobs: Vec<Vec<u8>> = vectors.iter().map(to_blob).collect();
        let new: Vec<NewEmbedding<'_>> = group
            .iter()
            .zip(&blobs)
            .map(|(item, blob)| NewEmbedding {
                command_id: &item.id,
                embedding: blob,
                summary: &item.summary,
                text_hash: &item.hash,
                source: item.source.as_str(),
                model: MODEL_NAME,
                create_row: !item.has_row,
            })
            .collect();
        let written = store
            .store_embeddings(&new)
            .map_err(|e| Error(e.to_string()))?;
        report.embedded += written;
        report.changed_meanwhile += group.len() - written;
        progress(report.embedded + report.changed_meanwhile, total);
    }
    Ok(report)
}

/// `plan` then `run`: what the background pipeline calls after discovery and after summaries
/// are stored.
pub fn sync(
    store: &mut Store,
    embedder: &Embedder,
    commands: &[CommandItem],
    force: bool,
    progress: &mut dyn FnMut(usize, usize),
    cancelled: &dyn Fn() -> bool,
) -> Result<Report, Error> {
    let plan = plan(store, commands, force).map_err(|e| Error(e.to_string()))?;
    run(store, embedder, plan, progress, cancelled)
}

/// The seed spec's verification recipe for the commands that exist now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    pub commands: usize,
    /// Ids of existing commands without a row.
    pub missing_row: Vec<String>,
    pub missing_summary: Vec<String>,
    pub missing_embedding: Vec<String>,
    /// Rows (of any command) whose embedding is not NULL and not 1536 bytes.
    pub bad_size: Vec<(String, usize)>,
    /// Rows with a summary or an embedding: whether the AI features are in use at all.
    pub ai_rows: usize,
}

pub fn coverage(rows: &HashMap<String, EmbeddingState>, existing: &[&str]) -> Coverage {
    let mut cov = Coverage::default();
    let mut seen = HashSet::new();
    for &id in existing {
        if !seen.insert(id) {
            continue;
        }
        cov.commands += 1;
        match rows.get(id) {
            None => cov.missing_row.push(id.to_string()),
            Some(r) => {
                if r.summary.trim().is_empty() {
                    cov.missing_summary.push(id.to_string());
                }
                if r.embedding_len != Some(BLOB_LEN) {
                    cov.missing_embedding.push(id.to_string());
                }
            }
        }
    }
    let mut bad: Vec<(String, usize)> = rows
        .iter()
        .filter_map(|(id, r)| match r.embedding_len {
            Some(n) if n != BLOB_LEN => Some((id.clone(), n)),
            _ => None,
        })
        .collect();
    bad.sort();
    cov.bad_size = bad;
    cov.ai_rows = rows
        .values()
        .filter(|r| !r.summary.trim().is_empty() || r.embedding_len.is_some())
        .count();
    cov
}

/// `coverage` of the database file at `path`, opened read-only (nothing is created or
/// changed). `None` when it has no `commands` table.
pub fn coverage_of_file(
    path: &std::path::Path,
    existing: &[&str],
) -> Result<Option<Coverage>, Error> {
    let err = |e: commandtree_store::Error| Error(e.to_string());
    let Some(store) = Store::open_read_only(path).map_err(err)? else {
        return Ok(None);
    };
    if !store.has_table("commands").map_err(err)? {
        return Ok(None);
    }
    let rows = store.embedding_states().map_err(err)?;
    Ok(Some(coverage(&rows, existing)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn summary_wins_over_discovered_text() {
        let c = CommandItem::new(
            "make",
            Path::new("/w/Makefile"),
            "db-reset",
            "make db-reset",
        )
        .description("Drop and recreate the dev database");
        let (t, s) = source_text(&c, None);
        assert_eq!(s, Source::Discovered);
        assert_eq!(
            t,
            "db-reset, database: Drop and recreate the dev database\nmake db-reset"
        );
        let script = CommandItem::new(
            "shell",
            Path::new("/w/scripts/deploy.sh"),
            "deploy.sh",
            "\"/w/scripts/deploy.sh\" --prod",
        );
        assert_eq!(
            source_text(&script, None).0,
            "deploy.sh\n\"deploy.sh\" --prod"
        );
        let bare = CommandItem::new(
            "shell",
            Path::new("/w/scripts/deploy.sh"),
            "deploy.sh",
            "\"/w/scripts/deploy.sh\"",
        );
        assert_eq!(source_text(&bare, None).0, "deploy.sh");
        // The short words of a name are said in full for the model.
        let cov = CommandItem::new("make", Path::new("/w/Makefile"), "cov", "make cov");
        assert_eq!(source_text(&cov, None).0, "cov, coverage\nmake cov");
        let e2e = CommandItem::new("npm", Path::new("/w/package.json"), "test:e2e:dev", "x");
        assert!(
            source_text(&e2e, None)
                .0
                .starts_with("test:e2e:dev, end-to-end tests, development\n")
        );
        let (t, s) = source_text(&c, Some("  "));
        assert_eq!(s, Source::Discovered);
        assert!(t.starts_with("db-reset"));
        let (t, s) = source_text(&c, Some(" Resets the database. "));
        assert_eq!((t.as_str(), s), ("Resets the database.", Source::Summary));
        assert_ne!(
            text_hash("x", Source::Summary),
            text_hash("x", Source::Discovered)
        );
    }
}
