//! Background threads: loading (then watching), summaries, search, stopping a run. Each opens
//! what it needs itself (the workspace, its own database connection) and answers with a
//! [`Msg`], so the UI thread never waits.

use crate::app::Level;
use crate::cache;
use commandtree_core::{CancelToken, CommandItem, ProgressEvent, Workspace};
use commandtree_engine::frontend;
use commandtree_engine::{Loaded, WatchEvent, WatchOptions, Watcher};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::Sender;

pub enum Msg {
    /// The tree saved when this workspace was last open, to show while discovery runs.
    Cached(Vec<CommandItem>),
    /// Discovery's commands with the database's notes, before their static findings: to show
    /// while those are looked for.
    Early(Vec<CommandItem>),
    Loaded(Result<Box<Loaded>, String>),
    Watcher(Watcher),
    Watch(WatchEvent),
    /// Progress of the running background job, as a line for the status bar.
    Progress(String),
    /// The background job ended: what to say.
    Done(String, Level),
    /// Search results: query, then (command id, similarity).
    Found(String, Vec<(String, f32)>),
    Stopped(i64, Result<String, String>),
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
/// (the commands are final: [`Msg::Loaded`]). Then, with `watch`, the watcher: its changes
/// follow as [`Msg::Watch`], each command with its findings. The database is only read.
pub fn load(root: PathBuf, tx: Sender<Msg>, watch: bool) {
    std::thread::spawn(move || {
        let shown = match cache::read(&root) {
            Some(commands) => tx.send(Msg::Cached(commands)).is_ok(),
            None => false,
        };
        let w = ws(&root);
        // The model's warnings (before the findings are added), to tell later whether a
        // command the watcher reports is the one loaded.
        let mut model: HashMap<String, Option<String>> = HashMap::new();
        let r = frontend::load_early(&w, &CancelToken::new(), |commands| {
            model = commands
                .iter()
                .map(|c| (c.id.clone(), c.security_warning.clone()))
                .collect();
            if !shown {
                let _ = tx.send(Msg::Early(commands.to_vec()));
            }
        });
        let snapshot = r.as_ref().ok().map(|l| l.commands.clone());
        if tx
            .send(Msg::Loaded(r.map(Box::new).map_err(|e| e.to_string())))
            .is_err()
        {
            return;
        }
        let Some(commands) = snapshot else {
            return;
        };
        let _ = cache::write(&root, &commands);
        if !watch {
            return;
        }
        let mut sink = Sink {
            root: root.clone(),
            store: None,
            tx: tx.clone(),
            loaded: commands
                .into_iter()
                .map(|c| {
                    let m = model.remove(&c.id).flatten();
                    (c.id.clone(), (c, m))
                })
                .collect(),
        };
        match Watcher::start(w, WatchOptions::default(), move |e| sink.event(e)) {
            Ok(watcher) => {
                let _ = tx.send(Msg::Watcher(watcher));
            }
            Err(e) => {
                let _ = tx.send(Msg::Done(format!("live updates are off: {e}"), Level::Warn));
            }
        }
    });
}

/// Gives the watcher's commands their static findings, as a load gives them.
struct Sink {
    root: PathBuf,
    /// The database, read-only, opened once there is one.
    store: Option<commandtree_store::Store>,
    tx: Sender<Msg>,
    /// The commands of the load (with findings) and the model's warning of each, until the
    /// watcher's first pass: what it finds unchanged keeps its findings, so its 15,000
    /// commands are not analysed a second time right after the load.
    loaded: HashMap<String, (CommandItem, Option<String>)>,
}

impl Sink {
    fn event(&mut self, mut e: WatchEvent) {
        if self.store.is_none() {
            self.store =
                commandtree_store::Store::open_read_only(&commandtree_store::db_path(&self.root))
                    .ok()
                    .flatten();
        }
        match &mut e {
            WatchEvent::Ready { commands, .. } => {
                let loaded = std::mem::take(&mut self.loaded);
                let mut fresh = Vec::new();
                for c in commands.iter_mut() {
                    match loaded.get(&c.id) {
                        Some((l, model))
                            if *model == c.security_warning
                                && CommandItem {
                                    security_warning: None,
                                    step_warning: None,
                                    ..l.clone()
                                } == CommandItem {
                                    security_warning: None,
                                    step_warning: None,
                                    ..c.clone()
                                } =>
                        {
                            // Its own warning; the steps' are added to the whole list again.
                            c.security_warning = l.own_warning().map(str::to_string);
                        }
                        _ => fresh.push(std::mem::take(c)),
                    }
                }
                frontend::annotate_findings(self.store.as_mut(), &mut fresh);
                let mut fresh = fresh.into_iter();
                for c in commands.iter_mut().filter(|c| c.id.is_empty()) {
                    if let Some(f) = fresh.next() {
                        *c = f;
                    }
                }
            }
            WatchEvent::Changed { delta, .. } => {
                frontend::annotate_findings(self.store.as_mut(), &mut delta.added);
                frontend::annotate_findings(self.store.as_mut(), &mut delta.updated);
            }
            WatchEvent::Warning(_) => {}
        }
        let _ = self.tx.send(Msg::Watch(e));
    }
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
        use commandtree_llm::provider::Detection;
        let provider = match commandtree_engine::summaries::detect(&w) {
            Ok(Detection::Found(c)) => *c,
            Ok(Detection::Disabled(by)) => {
                return done(
                    format!("AI features are switched off (provider = none, set in {by})"),
                    Level::Warn,
                );
            }
            Ok(Detection::NotFound) => {
                return done(
                    "no LLM provider found: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or [llm] in .commandtree/config.toml (ct doctor explains)".into(),
                    Level::Error,
                );
            }
            Err(e) => return done(e.to_string(), Level::Error),
        };
        let mut loaded = Loaded::from_commands(&root, commands);
        if let Err(e) = loaded.writable_or_create() {
            return done(e.to_string(), Level::Error);
        }
        let plan = match commandtree_engine::summaries::plan(&loaded, &only, false) {
            Ok(p) => p,
            Err(e) => return done(e.to_string(), Level::Error),
        };
        if plan.pending.is_empty() {
            return done(
                format!("all {} summaries are current", plan.current),
                Level::Info,
            );
        }
        let ptx = tx.clone();
        let progress = move |e: ProgressEvent| {
            let _ = ptx.send(Msg::Progress(progress_line(&e)));
        };
        let r = commandtree_engine::summaries::run(
            &w,
            &mut loaded,
            plan,
            provider,
            &cancel,
            &progress,
            &mut |_| {},
        );
        match r {
            Ok((report, embed_problem)) => {
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
                let hits = found.hits.into_iter().map(|(c, s)| (c.id, s)).collect();
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
        let w = ws(&root);
        let mut store =
            commandtree_store::Store::open_read_only(&commandtree_store::db_path(&root))
                .ok()
                .flatten();
        let r = commandtree_engine::runs::stop(&w, &mut store, run_id)
            .map(|r| r.status)
            .map_err(|e| e.to_string());
        let _ = tx.send(Msg::Stopped(run_id, r));
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
