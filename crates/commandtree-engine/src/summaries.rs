//! Summaries and security warnings from the user's LLM: which commands need one, running the
//! batch with progress and cancellation, and whether a stored summary still describes the
//! command as it is now.

use crate::{Error, Loaded, Result};
use commandtree_core::{CancelToken, CommandItem, Progress, ProgressEvent, Workspace};
use commandtree_llm::provider::{self, Detection};
use commandtree_llm::summary::{self, Event, Pending, Report, SummaryConfig};
use commandtree_llm::{Client, ProviderConfig, ToolCaller};
use commandtree_store::Store;

/// The provider from the configuration and the environment.
pub fn detect(ws: &Workspace) -> Result<Detection> {
    provider::detect_for(ws).map_err(|e| Error::failed(e.message))
}

/// The provider that answers, or [`Error::NoProvider`] saying why none does (switched off, or
/// not configured: its text says how to configure one).
pub fn provider(ws: &Workspace) -> Result<ProviderConfig> {
    match detect(ws)? {
        Detection::Found(c) => Ok(*c),
        Detection::Disabled(by) => Err(Error::NoProvider {
            disabled_by: Some(by),
        }),
        Detection::NotFound => Err(Error::NoProvider { disabled_by: None }),
    }
}

/// What [`summarize`] did: how many were already current, and (when anything needed a summary)
/// the batch's report and a problem embedding the results.
pub struct Outcome {
    pub current: usize,
    pub report: Option<Report>,
    pub embed_problem: Option<String>,
}

/// The whole workflow every front end runs: the commands named by `queries` (all when empty)
/// that need a summary are summarized by `caller`, each stored as it arrives (see [`run`]).
#[allow(clippy::too_many_arguments)]
pub fn summarize(
    ws: &Workspace,
    loaded: &mut Loaded,
    queries: &[String],
    force: bool,
    caller: &dyn ToolCaller,
    cancel: &CancelToken,
    progress: &dyn Progress,
    on_event: &mut dyn FnMut(&Event<'_>),
) -> Result<Outcome> {
    let plan = plan(loaded, queries, force)?;
    let current = plan.current;
    if plan.pending.is_empty() {
        return Ok(Outcome {
            current,
            report: None,
            embed_problem: None,
        });
    }
    let (report, embed_problem) = run_with(ws, loaded, plan, caller, cancel, progress, on_event)?;
    Ok(Outcome {
        current,
        report: Some(report),
        embed_problem,
    })
}

/// The summary settings (`[summaries]`).
pub fn config(ws: &Workspace) -> Result<SummaryConfig> {
    SummaryConfig::from_config(&ws.settings.config, &provider::config_origin(ws))
        .map_err(|e| Error::failed(e.message))
}

/// What a batch would do: the commands that need a (new) summary, and how many are current.
pub struct Plan {
    pub pending: Vec<Pending>,
    pub current: usize,
}

/// The commands named by `queries` (all when empty) that need a summary: new, changed since
/// their summary, or all of them when `force`.
pub fn plan(loaded: &Loaded, queries: &[String], force: bool) -> Result<Plan> {
    let selected = if queries.is_empty() {
        loaded.workflow_commands()
    } else {
        loaded.resolve_all(queries)?
    };
    let subjects = summary::subjects(&selected);
    let stored = match &loaded.store {
        Some(s) => summary::stored(s)?,
        None => summary::Stored::new(),
    };
    let (pending, current) = summary::plan(subjects, &stored, force);
    Ok(Plan { pending, current })
}

/// Runs the batch: each result is stored as it arrives and reported through `on_event` (and as
/// a [`ProgressEvent`] to `progress`); `cancel` stops it between and during requests. After
/// summarizing, the commands whose summary changed are re-embedded when the model is on this
/// machine; a problem there comes back as the second value (the summaries are stored anyway).
pub fn run(
    ws: &Workspace,
    loaded: &mut Loaded,
    plan: Plan,
    provider: ProviderConfig,
    cancel: &CancelToken,
    progress: &dyn Progress,
    on_event: &mut dyn FnMut(&Event<'_>),
) -> Result<(Report, Option<String>)> {
    let client = Client::new(provider);
    run_with(ws, loaded, plan, &client, cancel, progress, on_event)
}

/// [`run`] with another model than the configured provider (an editor's language models).
pub fn run_with(
    ws: &Workspace,
    loaded: &mut Loaded,
    plan: Plan,
    caller: &dyn ToolCaller,
    cancel: &CancelToken,
    progress: &dyn Progress,
    on_event: &mut dyn FnMut(&Event<'_>),
) -> Result<(Report, Option<String>)> {
    let cfg = config(ws)?;
    let total = plan.pending.len() as u64;
    let mut done = 0u64;
    let commands = loaded.commands.clone();
    let store = loaded.writable()?;
    progress.report(ProgressEvent {
        operation: "summarize",
        done: 0,
        total: Some(total),
        message: None,
    });
    let report = summary::run(caller, store, plan.pending, &cfg, cancel, &mut |ev| {
        done += 1;
        let label = match ev {
            Event::Done(s, _) | Event::Failed(s, _) => s.item.label.clone(),
        };
        progress.report(ProgressEvent {
            operation: "summarize",
            done,
            total: Some(total),
            message: Some(label),
        });
        on_event(ev);
    })?;
    // Embedding follows summarizing, as in the extension's background pipeline.
    let embed_problem =
        crate::search::embed_after_summaries(ws, store, &commands, cancel, progress)
            .err()
            .map(|e| format!("summaries stored, but embedding them failed: {e}"));
    Ok((report, embed_problem))
}

/// Whether `item`'s stored summary was made from another version of it (its definition changed
/// since): such a summary, and its verdict on safety, no longer describe the command.
pub fn is_stale(store: &Store, item: &CommandItem) -> bool {
    let Ok(stored) = summary::stored(store) else {
        return false;
    };
    let Some((hash, text)) = stored.get(&item.id) else {
        return false;
    };
    if text.trim().is_empty() {
        return false;
    }
    let subject = summary::subjects(std::slice::from_ref(item));
    subject.first().is_some_and(|s| s.hash != *hash)
}
