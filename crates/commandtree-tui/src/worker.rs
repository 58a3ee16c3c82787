//! Background threads: loading (then watching), summaries, search, stopping a run. Each opens
//! what it needs itself (the workspace, its own database connection) and answers with a
//! [`Msg`], so the UI thread never waits.

use crate::app::{How, Level};
use crate::cache;
use commandtree_core::{CancelToken, CommandItem, ProgressEvent, Workspace};
use commandtree_engine::frontend;
use commandtree_engine::problems::{self, RunProblems};
use commandtree_engine::runs::Planned;
use commandtree_engine::{Live, LiveEvent, LoadOptions, Loaded};
use commandtree_exec::history::Run;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;

pub enum Msg {
    /// The tree saved when this workspace was last open, to show while discovery runs.
    Cached(Vec<CommandItem>),
    /// Discovery's commands with the database's notes, before their static findings: to show
    /// while those are looked for.
    Early(Vec<CommandItem>),
    Loaded(Result<Box<Loaded>, String>),
    /// The live index keeping the list current (held by the UI: dropping it stops watching).
    Live(Arc<Live>),
    /// Every command after a change on disk or in the database, as a load gives them.
    Commands(Arc<Vec<CommandItem>>),
    /// A discovery, database or watcher problem (each once).
    Warning(commandtree_core::Warning),
    /// Progress of the running background job, as a line for the status bar.
    Progress(String),
    /// The background job ended: what to say.
    Done(String, Level),
    /// Search results: query, then (command id, similarity).
    Found(String, Vec<(String, f32)>),
    Stopped(i64, Result<String, String>),
    /// A run was stopped to be started again (a restart): the stop's answer, then the run to
    /// start and how.
    Restart(i64, Result<String, String>, Box<Planned>, How),
    /// The newest run of each command (by id), read from the history.
    Runs(Result<HashMap<String, Run>, String>),
    /// The problems of a run's output.
    Problems(Result<RunProblems, String>),
    /// Files a command that reruns on change depends on changed (its id, the files).
    FilesChanged(String, Vec<PathBuf>),
    /// A command skill's proposal for a command's file (skill name, then the proposal or why
    /// there is none).
    Proposed(
        String,
        Result<commandtree_skills::command_skill::Proposal, String>,
    ),
}

fn ws(root: &std::path::Path) -> Workspace {
    Workspace::open(Some(root), root)
}

/// Loads the workspace: the saved snapshot first (when there is one) for an immediate tree,
/// then discovery with the database (shown as soon as it is there), then the static findings
/// (the commands are final: [`Msg::Loaded`]). With `watch`, the engine's live index does all
/// of that with one walk and keeps the list current: each change follows as [`Msg::Commands`],
/// the whole list as a load would give it. The database is only read.
pub fn load(root: PathBuf, tx: Sender<Msg>, watch: bool) {
    std::thread::spawn(move || {
        let shown = match cache::read(&root) {
            Some(commands) => tx.send(Msg::Cached(commands)).is_ok(),
            None => false,
        };
        let w = ws(&root);
        if !watch {
            let r = frontend::load_early(&w, &CancelToken::new(), |commands| {
                if !shown {
                    let _ = tx.send(Msg::Early(commands.to_vec()));
                }
            });
            if let Ok(l) = &r {
                let _ = cache::write(&root, &l.commands);
            }
            let _ = tx.send(Msg::Loaded(r.map(Box::new).map_err(|e| e.to_string())));
            return;
        }
        let (events_tx, events) = std::sync::mpsc::channel::<LiveEvent>();
        let live = Arc::new(Live::start(w, move |e| {
            let _ = events_tx.send(e.clone());
        }));
        if let Some(why) = live.unwatched() {
            let _ = tx.send(Msg::Done(
                format!("live updates are off: {why}"),
                Level::Warn,
            ));
            let r = live.load(&LoadOptions::default(), &CancelToken::new());
            let _ = tx.send(Msg::Loaded(r.map(Box::new).map_err(|e| e.to_string())));
            return;
        }
        // The UI holds the index; this thread only relays its events, and ends with it.
        let weak = Arc::downgrade(&live);
        if tx.send(Msg::Live(live)).is_err() {
            return;
        }
        for e in events {
            let Some(live) = weak.upgrade() else { return };
            let sent = match e {
                LiveEvent::Discovered(commands) if !shown => tx.send(Msg::Early(commands)),
                LiveEvent::Discovered(_) => Ok(()),
                LiveEvent::Ready { .. } => {
                    let r = live.load(&LoadOptions::default(), &CancelToken::new());
                    if let Ok(l) = &r {
                        let _ = cache::write(&root, &l.commands);
                    }
                    tx.send(Msg::Loaded(r.map(Box::new).map_err(|e| e.to_string())))
                }
                LiveEvent::Changed(change) => tx.send(Msg::Commands(change.all)),
                LiveEvent::Warning(w) => tx.send(Msg::Warning(w)),
            };
            if sent.is_err() {
                return;
            }
        }
    });
}

fn progress_line(e: &ProgressEvent) -> String {
    let mut s = match e.total {
        Some(t) => format!("{} {}/{}", e.operation, e.done, t),
        None => format!("{} {}", e.operation, e.done),
    };
    if let Some(m) = &e.message {
        s.push_str(" · ");
        s.push_str(m);
    }
    s.push_str(" (Ctrl-C cancels)");
    s
}

/// Summarizes `only` (all commands when empty) with the user's LLM.
pub fn summarize(
    root: PathBuf,
    commands: Vec<CommandItem>,
    only: Vec<String>,
    cancel: CancelToken,
    tx: Sender<Msg>,
) {
    std::thread::spawn(move || {
        let w = ws(&root);
        let done = |text: String, level| {
            let _ = tx.send(Msg::Done(text, level));
        };
        let provider = match commandtree_engine::summaries::provider(&w) {
            Ok(p) => p,
            Err(
                e @ commandtree_engine::Error::NoProvider {
                    disabled_by: Some(_),
                },
            ) => {
                return done(e.one_line(), Level::Warn);
            }
            Err(e) => return done(e.one_line(), Level::Error),
        };
        let mut loaded = Loaded::from_commands(&root, commands);
        loaded.docs = w.settings.show_docs;
        if let Err(e) = loaded.writable_or_create() {
            return done(e.to_string(), Level::Error);
        }
        let ptx = tx.clone();
        let progress = move |e: ProgressEvent| {
            let _ = ptx.send(Msg::Progress(progress_line(&e)));
        };
        let client = commandtree_llm::Client::new(provider);
        let r = commandtree_engine::summaries::summarize(
            &w,
            &mut loaded,
            &only,
            false,
            &client,
            &cancel,
            &progress,
            &mut |_| {},
        );
        match r {
            Ok(commandtree_engine::summaries::Outcome {
                report: None,
                current,
                ..
            }) => done(format!("all {current} summaries are current"), Level::Info),
            Ok(commandtree_engine::summaries::Outcome {
                report: Some(report),
                embed_problem,
                ..
            }) => {
                let mut text = format!(
                    "summarized {}, {} failed",
                    report.done.len(),
                    report.failed.len()
                );
                if let Some(p) = embed_problem {
                    text.push_str(&format!("; {p}"));
                }
                let level = if !report.failed.is_empty() {
                    Level::Warn
                } else {
                    Level::Info
                };
                done(text, level)
            }
            Err(commandtree_engine::Error::Cancelled) => done("cancelled".into(), Level::Info),
            Err(e) => done(e.to_string(), Level::Error),
        }
    });
}

/// Searches by meaning (refreshing embeddings first, as `ct search` does).
pub fn search(
    root: PathBuf,
    commands: Vec<CommandItem>,
    query: String,
    cancel: CancelToken,
    tx: Sender<Msg>,
) {
    std::thread::spawn(move || {
        let done = |text: String, level| {
            let _ = tx.send(Msg::Done(text, level));
        };
        if commandtree_embed::model::find(&root).is_none() {
            return done(
                "the embedding model is not on this machine yet: run `ct embed` once".into(),
                Level::Warn,
            );
        }
        let embedder = match commandtree_engine::search::load_model(&root, &mut |_| {}) {
            Ok(e) => e,
            Err(e) => return done(e.to_string(), Level::Error),
        };
        let mut loaded = Loaded::from_commands(&root, commands);
        loaded.docs = ws(&root).settings.show_docs;
        let ptx = tx.clone();
        let progress = move |e: ProgressEvent| {
            let _ = ptx.send(Msg::Progress(progress_line(&e)));
        };
        match commandtree_engine::search::search(
            &mut loaded,
            &embedder,
            &query,
            commandtree_engine::search::DEFAULT_THRESHOLD,
            50,
            &cancel,
            &progress,
        ) {
            Ok(found) => {
                let hits = found
                    .hits
                    .into_iter()
                    .map(|h| (h.command.id, h.score))
                    .collect();
                let _ = tx.send(Msg::Found(query, hits));
            }
            Err(commandtree_engine::Error::Cancelled) => done("cancelled".into(), Level::Info),
            Err(e) => done(e.to_string(), Level::Error),
        }
    });
}

/// Stops a detached run (which can take seconds: SIGTERM, then SIGKILL).
pub fn stop(root: PathBuf, run_id: i64, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let _ = tx.send(Msg::Stopped(run_id, stop_run(&root, run_id)));
    });
}

fn history(root: &std::path::Path) -> Option<commandtree_store::Store> {
    commandtree_store::Store::open_read_only(&commandtree_store::db_path(root))
        .ok()
        .flatten()
}

fn stop_run(root: &std::path::Path, run_id: i64) -> Result<String, String> {
    commandtree_engine::runs::stop(&ws(root), &mut history(root), run_id)
        .map(|r| r.status)
        .map_err(|e| e.to_string())
}

/// Stops run `run_id`, then hands `planned` back to be started `how` (a restart: the gate and
/// the parameters were gone through before the stop).
pub fn stop_then_start(
    root: PathBuf,
    run_id: i64,
    planned: Box<Planned>,
    how: How,
    tx: Sender<Msg>,
) {
    std::thread::spawn(move || {
        let r = stop_run(&root, run_id);
        let _ = tx.send(Msg::Restart(run_id, r, planned, how));
    });
}

/// Reads the newest run of every command (runs of every process and mode).
pub fn read_runs(root: PathBuf, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let r = commandtree_engine::runs::latest_by_command(&ws(&root), &mut history(&root))
            .map_err(|e| e.to_string());
        let _ = tx.send(Msg::Runs(r));
    });
}

/// Reads the problems of a run's output.
pub fn read_problems(root: PathBuf, which: problems::Which, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let w = ws(&root);
        let (matcher, _) = problems::matcher(&w);
        let r =
            problems::of_run(&w, &mut history(&root), &which, &matcher).map_err(|e| e.to_string());
        let _ = tx.send(Msg::Problems(r));
    });
}

/// Asks the model for command skill `skill`'s version of `command`'s file. Nothing is written
/// here: the proposal comes back for the user to confirm. The session checks `ct trust` first,
/// as for `ct skill apply`, since the instructions are the workspace's own files.
pub fn propose_command_skill(
    root: PathBuf,
    command: CommandItem,
    skill: String,
    cancel: CancelToken,
    tx: Sender<Msg>,
) {
    use commandtree_skills::{Error, RequestOptions, Session};
    std::thread::spawn(move || {
        let engine = match commandtree_engine::Engine::open(Some(&root), &root) {
            Ok(e) => e,
            Err(e) => {
                let _ = tx.send(Msg::Proposed(skill, Err(e.to_string())));
                return;
            }
        };
        let session = Session::new(&engine).with_cancel(cancel);
        let found = session.find_command_skill(&skill);
        let name = found.as_ref().map_or(skill.clone(), |s| s.name.clone());
        let r = found
            .and_then(|s| {
                session
                    .proposer()?
                    .propose(&s, &command, &RequestOptions::default())
            })
            .map_err(|e| match e {
                Error::Cancelled => "cancelled".to_string(),
                e => e.to_string(),
            });
        let _ = tx.send(Msg::Proposed(name, r));
    });
}
