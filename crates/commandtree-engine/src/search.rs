//! Embeddings and semantic search: keeping every command's embedding current, loading (or
//! downloading) the model, searching by meaning, and the embedding checks of a database check.

use crate::{Error, Loaded, Result};
use commandtree_core::{CancelToken, CommandItem, Progress, ProgressEvent, Workspace};
use commandtree_embed::pipeline::{self, Plan, Report};
use commandtree_embed::{Embedder, model};
use commandtree_store::{Check, Store};
use std::path::{Path, PathBuf};

pub use commandtree_embed::search::DEFAULT_THRESHOLD;

/// The commands whose embedding is missing or out of date (all of them with `force`).
pub fn plan(loaded: &Loaded, force: bool) -> Result<Plan> {
    let store = loaded
        .store
        .as_ref()
        .ok_or_else(|| Error::NoDatabase(commandtree_store::db_path(&loaded.root)))?;
    Ok(pipeline::plan(store, &loaded.workflow_commands(), force)?)
}

/// Finds the model (or downloads it, reporting each file's progress) and loads it.
pub fn load_model(
    root: &Path,
    on_download: &mut dyn FnMut(model::Progress<'_>),
) -> Result<Embedder> {
    let dir: PathBuf =
        model::ensure(root, on_download).map_err(|e| Error::failed(e.to_string()))?;
    Embedder::load(&dir).map_err(|e| Error::failed(e.to_string()))
}

/// Loads the model when it is already on this machine; never downloads (for front ends that
/// must not start a large download on their own, such as a server).
pub fn local_model(root: &Path) -> Result<Option<Embedder>> {
    match model::find(root) {
        Some(dir) => Embedder::load(&dir)
            .map(Some)
            .map_err(|e| Error::failed(e.to_string())),
        None => Ok(None),
    }
}

/// Where the embedding model is on this machine, or what to do to get it (for `ct doctor`).
pub fn model_status(root: &Path) -> std::result::Result<PathBuf, String> {
    commandtree_embed::model::find(root).ok_or_else(|| {
        let mut m = commandtree_embed::model::missing_message(root);
        if commandtree_embed::model::offline() {
            m.push_str(" (downloads are off now)");
        }
        m
    })
}

/// Gets a server's search ready without a manual step: the model when it is on this machine
/// (else what to do about it), and, the first time, a database to index into (made when
/// `may_write`; the next [`search`] embeds what is missing). Never downloads.
pub fn ready(loaded: &mut Loaded, may_write: bool) -> Result<Embedder> {
    let Some(embedder) = local_model(&loaded.root)? else {
        return Err(Error::failed(commandtree_embed::model::missing_message(
            &loaded.root,
        )));
    };
    if !has_embeddings(loaded)? {
        if !may_write {
            return Err(Error::failed(no_embeddings_message(loaded.commands.len())));
        }
        // A listing's read-only handle cannot take the embeddings: open it for writing.
        if loaded.store.as_ref().is_some_and(|s| s.is_read_only()) {
            loaded.store = None;
        }
        loaded.writable_or_create()?;
    }
    Ok(embedder)
}

/// Embeds what `plan` lists, storing each group as it is done.
pub fn embed(
    store: &mut Store,
    embedder: &Embedder,
    plan: Plan,
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<Report> {
    let r = pipeline::run(
        store,
        embedder,
        plan,
        &mut |done, total| {
            progress.report(ProgressEvent {
                operation: "embed",
                done: done as u64,
                total: Some(total as u64),
                message: None,
            })
        },
        &|| cancel.is_cancelled(),
    )
    .map_err(|e| Error::failed(e.to_string()))?;
    if cancel.is_cancelled() {
        return Err(Error::Cancelled);
    }
    Ok(r)
}

/// After summaries were stored: re-embeds the commands whose text changed, when the model is on
/// this machine (never downloads here). Returns how many were embedded.
pub fn embed_after_summaries(
    ws: &Workspace,
    store: &mut Store,
    commands: &[CommandItem],
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<usize> {
    let Some(dir) = model::find(&ws.root) else {
        return Ok(0);
    };
    let plan = pipeline::plan(store, commands, false)?;
    if plan.items.is_empty() {
        return Ok(0);
    }
    let embedder = Embedder::load(&dir).map_err(|e| Error::failed(e.to_string()))?;
    Ok(embed(store, &embedder, plan, cancel, progress)?.embedded)
}

/// Search results: each command with its similarity (0–1), best first.
pub struct Found {
    pub hits: Vec<(CommandItem, f32)>,
    /// Commands added or changed since the last embedding were embedded first; a problem
    /// storing them (the search still ran) is said here.
    pub refresh_warning: Option<String>,
}

/// Why a search cannot run yet.
pub fn no_embeddings_message(n: usize) -> String {
    format!(
        "no command has an embedding yet; run `ct embed` to make them ({n} command{})",
        if n == 1 { "" } else { "s" }
    )
}

/// Refreshes what changed since the last embedding, then searches: the commands that exist now,
/// similar to `query` at or above `threshold`, at most `limit`.
pub fn search(
    loaded: &mut Loaded,
    embedder: &Embedder,
    query: &str,
    threshold: f32,
    limit: usize,
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<Found> {
    let n = loaded.commands.len();
    let commands = loaded.workflow_commands();
    let Some(store) = loaded.store.as_mut() else {
        return Err(Error::failed(no_embeddings_message(n)));
    };
    let plan = pipeline::plan(store, &commands, false)?;
    let mut refresh_warning = None;
    if !plan.items.is_empty()
        && let Err(e) = embed(store, embedder, plan, cancel, progress)
    {
        if matches!(e, Error::Cancelled) {
            return Err(e);
        }
        refresh_warning = Some(format!("could not store new embeddings: {e}"));
    }
    let hits = commandtree_embed::search::search_commands(
        store, &commands, embedder, query, threshold, limit,
    )
    .map_err(|e| Error::failed(e.to_string()))?
    .into_iter()
    .map(|(i, score)| (commands[i].clone(), score))
    .collect();
    Ok(Found {
        hits,
        refresh_warning,
    })
}

/// Whether any command has an embedding (search needs one).
pub fn has_embeddings(loaded: &Loaded) -> Result<bool> {
    match &loaded.store {
        None => Ok(false),
        Some(s) => Ok(pipeline::plan(s, &loaded.commands, false)?.with_embedding > 0),
    }
}

/// The embedding lines of a database check, for the commands discovered now. Reads the file
/// without changing it. Sizes are always checked; completeness (a row, a summary and an
/// embedding for every command, the seed spec's verification recipe) once the AI features are
/// in use, i.e. the database holds any summary or embedding: a database used only for tags
/// passes.
pub fn checks(commands: &[CommandItem], db: &Path) -> Vec<Check> {
    let ids: Vec<&str> = commands.iter().map(|c| c.id.as_str()).collect();
    let cov = match pipeline::coverage_of_file(db, &ids) {
        Ok(Some(c)) => c,
        // No `commands` table: the schema check already fails and says why.
        Ok(None) => return Vec::new(),
        Err(e) => {
            return vec![Check {
                name: "embeddings",
                ok: false,
                detail: e.to_string(),
            }];
        }
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_model_is_read_from_disk_and_never_downloaded() {
        let root = std::env::temp_dir().join(format!("ct-local-model-{}", std::process::id()));
        let dir = root
            .join(".commandtree")
            .join("models")
            .join(model::MODEL_NAME);
        std::fs::create_dir_all(&dir).unwrap();
        // A model folder of the workspace comes before the user cache; a broken one is an
        // error rather than a reason to fetch another.
        for f in model::FILES {
            std::fs::write(dir.join(f.name), b"not a model").unwrap();
        }
        assert!(local_model(&root).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }
}
