//! Live discovery: a [`Watcher`] keeps a workspace's commands current and reports each change
//! as a typed [`WatchEvent`], for any front end (the terminal UI, the editor server, the MCP
//! server, `ct watch`). It never prints.
//!
//! File system events (`notify`, debounced by `notify-debouncer-full`) go to core's incremental
//! [`Index`], which re-parses only the changed files and the files that read them. Changes to
//! the workspace database made by another process (a tag from another `ct`, a summary from the
//! VS Code extension) show up as `updated` commands: the database file and its journal are
//! watched, and tags, summaries and security warnings are read again and compared.

use commandtree_core::{
    CancelToken, CommandItem, Delta, Index, NoProgress, Options, Warning, Workspace,
};
use commandtree_store::{AttachOptions, Store, WorkspaceDb, tagconfig};
use notify::EventKind;
use notify_debouncer_full::{DebounceEventResult, new_debouncer};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The debounce when neither the options nor `[watch] debounce_ms` set one.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(100);
/// The largest `[watch] debounce_ms` taken; larger values warn and use this.
pub const MAX_DEBOUNCE: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Default)]
pub struct WatchOptions {
    /// Only these command types (all when empty).
    pub types: Vec<String>,
    /// How long a path must be quiet before its change is processed. `None`: the setting
    /// `[watch] debounce_ms`, else [`DEFAULT_DEBOUNCE`].
    pub debounce: Option<Duration>,
    /// Also send a [`WatchEvent::Snapshot`] after the first discovery and after every batch
    /// that changed something (a live index keeps its list from these).
    pub snapshots: bool,
}

/// What a watcher reports. `Ready` comes first, once; then `Changed` and `Warning` as they
/// happen. Commands carry the database's tags, summaries and security warnings.
#[derive(Debug, Clone)]
pub enum WatchEvent {
    /// The first full discovery is done.
    Ready {
        commands: Vec<CommandItem>,
        /// The time of that discovery, database included.
        elapsed: Duration,
    },
    /// One debounced batch of changes. `delta.warnings` is always empty: warnings come as
    /// `Warning` events right after.
    Changed { delta: Delta, elapsed: Duration },
    /// A discovery, settings or database problem (the initial ones after `Ready`, then each new
    /// one once), or a watcher error.
    Warning(Warning),
    /// Every command and discovery warning as they are now, discovery's alone (no database
    /// notes): only with [`WatchOptions::snapshots`]. `changed` names the commands the batch
    /// added or re-parsed (every one for the first snapshot).
    Snapshot {
        commands: Vec<CommandItem>,
        warnings: Vec<Warning>,
        changed: Vec<String>,
        first: bool,
    },
}

/// The watch could not be set up.
#[derive(Debug)]
pub struct WatchError(pub String);

impl std::fmt::Display for WatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WatchError {}

/// A running watch. Dropping it (or [`Watcher::stop`]) stops it.
pub struct Watcher {
    cancel: CancelToken,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Starts watching `workspace` on a thread of its own; `sink` receives every event on that
    /// thread, in order. Fails only when the root cannot be watched.
    pub fn start(
        workspace: Workspace,
        options: WatchOptions,
        sink: impl FnMut(WatchEvent) + Send + 'static,
    ) -> Result<Watcher, WatchError> {
        let (debounce, debounce_warning) = match options.debounce {
            Some(d) => (d, None),
            None => debounce_setting(&workspace),
        };
        let (tx, rx) = mpsc::channel::<Batch>();
        let err_tx = tx.clone();
        let mut debouncer = new_debouncer(debounce, None, move |r: DebounceEventResult| {
            let _ = match r {
                Ok(events) => {
                    let paths: Vec<PathBuf> = events
                        .into_iter()
                        // Reads (ours included: parsing opens files) change nothing.
                        .filter(|e| !matches!(e.kind, EventKind::Access(_)))
                        .flat_map(|e| e.event.paths)
                        .collect();
                    if paths.is_empty() {
                        return;
                    }
                    tx.send(Batch::Paths(paths))
                }
                Err(errors) => err_tx.send(Batch::Errors(
                    errors.into_iter().map(|e| e.to_string()).collect(),
                )),
            };
        })
        .map_err(|e| WatchError(format!("cannot start watching: {e}")))?;
        // Watch before the first discovery, so nothing written meanwhile is missed: those
        // events are applied after `Ready`.
        debouncer
            .watch(&workspace.root, notify::RecursiveMode::Recursive)
            .map_err(|e| WatchError(format!("{}: cannot watch: {e}", workspace.root.display())))?;
        let cancel = CancelToken::new();
        let token = cancel.clone();
        let thread = std::thread::Builder::new()
            .name("commandtree-watch".into())
            .spawn(move || {
                let mut sink = sink;
                let mut state = match State::start(workspace, &options, &token, &mut sink) {
                    Some(s) => s,
                    None => return,
                };
                if let Some(w) = debounce_warning {
                    sink(WatchEvent::Warning(w));
                }
                while !token.is_cancelled() {
                    match rx.recv_timeout(Duration::from_millis(50)) {
                        Ok(Batch::Paths(paths)) => state.changed(paths, &mut sink),
                        Ok(Batch::Errors(errors)) => {
                            for e in errors {
                                sink(WatchEvent::Warning(Warning::new(&state.root, None, e)));
                            }
                        }
                        Err(mpsc::RecvTimeoutError::Timeout) => {}
                        Err(mpsc::RecvTimeoutError::Disconnected) => break,
                    }
                }
                drop(debouncer);
            })
            .map_err(|e| WatchError(format!("cannot start the watch thread: {e}")))?;
        Ok(Watcher {
            cancel,
            thread: Some(thread),
        })
    }

    /// [`Watcher::start`] delivering events through a channel.
    pub fn channel(
        workspace: Workspace,
        options: WatchOptions,
    ) -> Result<(Watcher, mpsc::Receiver<WatchEvent>), WatchError> {
        let (tx, rx) = mpsc::channel();
        let w = Self::start(workspace, options, move |e| {
            let _ = tx.send(e);
        })?;
        Ok((w, rx))
    }

    /// Stops watching and waits for the watch thread to finish (at most one discovery or one
    /// batch: a first discovery in progress is cancelled).
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.cancel.cancel();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.shutdown();
    }
}

enum Batch {
    Paths(Vec<PathBuf>),
    Errors(Vec<String>),
}

/// `[watch] debounce_ms` from the settings (user and workspace config), with a warning when it
/// is not a whole number of milliseconds up to [`MAX_DEBOUNCE`].
pub fn debounce_setting(ws: &Workspace) -> (Duration, Option<Warning>) {
    let Some(v) = ws
        .settings
        .config
        .get("watch")
        .and_then(|w| w.get("debounce_ms"))
    else {
        return (DEFAULT_DEBOUNCE, None);
    };
    let warn = |m: &str| {
        Some(Warning::new(
            &ws.root.join(".commandtree").join("config.toml"),
            None,
            m.to_string(),
        ))
    };
    match v.as_integer() {
        Some(ms) if ms >= 0 && Duration::from_millis(ms as u64) <= MAX_DEBOUNCE => {
            (Duration::from_millis(ms as u64), None)
        }
        Some(_) => (
            MAX_DEBOUNCE,
            warn("`watch.debounce_ms` must be between 0 and 10000; using 10000"),
        ),
        None => (
            DEFAULT_DEBOUNCE,
            warn("`watch.debounce_ms` must be a number of milliseconds; using 100"),
        ),
    }
}

/// What the database adds to one command.
#[derive(PartialEq, Eq, Clone, Default)]
struct Notes {
    tags: Vec<String>,
    summary: Option<String>,
    security_warning: Option<String>,
}

impl Notes {
    fn of(c: &CommandItem) -> Notes {
        Notes {
            tags: c.tags.clone(),
            summary: c.summary.clone(),
            security_warning: c.security_warning.clone(),
        }
    }
}

struct State {
    root: PathBuf,
    index: Index,
    store: Option<Store>,
    /// What the database said last, per command id (only commands with something).
    notes: HashMap<String, Notes>,
    db_files: [PathBuf; 3],
    tag_config: PathBuf,
    snapshots: bool,
}

impl State {
    fn start(
        ws: Workspace,
        options: &WatchOptions,
        cancel: &CancelToken,
        sink: &mut impl FnMut(WatchEvent),
    ) -> Option<State> {
        let started = Instant::now();
        let opts = Options {
            types: options.types.clone(),
            threads: 0,
        };
        let index = ws.index(&opts, cancel, &NoProgress).ok()?;
        let mut commands = index.commands();
        let complete = options.types.is_empty();
        let attached = ws.attach_db(
            &mut commands,
            AttachOptions {
                create: false,
                complete,
            },
        );
        let db = ws.db_path();
        let name = db.file_name().unwrap_or_default().to_string_lossy();
        let db_files = [
            db.clone(),
            db.with_file_name(format!("{name}-journal")),
            db.with_file_name(format!("{name}-wal")),
        ];
        let mut state = State {
            root: ws.root.clone(),
            store: attached.store,
            notes: HashMap::new(),
            db_files,
            tag_config: tagconfig::config_path(&ws.root),
            index,
            snapshots: options.snapshots,
        };
        state.remember(&commands);
        let mut warnings = ws.warnings.clone();
        warnings.extend(state.index.warnings());
        warnings.extend(attached.warnings);
        if let Some(r) = &attached.recreated {
            warnings.push(Warning::new(&r.path, None, r.message()));
        }
        sink(WatchEvent::Ready {
            commands,
            elapsed: started.elapsed(),
        });
        for w in warnings {
            sink(WatchEvent::Warning(w));
        }
        state.snapshot(None, sink);
        Some(state)
    }

    fn snapshot(&self, changed: Option<Vec<String>>, sink: &mut impl FnMut(WatchEvent)) {
        if !self.snapshots {
            return;
        }
        let commands = self.index.commands();
        let first = changed.is_none();
        let changed = changed.unwrap_or_else(|| commands.iter().map(|c| c.id.clone()).collect());
        sink(WatchEvent::Snapshot {
            commands,
            warnings: self.index.warnings(),
            changed,
            first,
        });
    }

    fn remember(&mut self, commands: &[CommandItem]) {
        for c in commands {
            let n = Notes::of(c);
            if n == Notes::default() {
                self.notes.remove(&c.id);
            } else {
                self.notes.insert(c.id.clone(), n);
            }
        }
    }

    fn changed(&mut self, paths: Vec<PathBuf>, sink: &mut impl FnMut(WatchEvent)) {
        let started = Instant::now();
        let mut db_changed = false;
        let mut config_changed = false;
        let mut files = Vec::with_capacity(paths.len());
        for p in paths {
            if self.db_files.contains(&p) {
                db_changed = true;
            } else {
                if p == self.tag_config {
                    config_changed = true;
                }
                files.push(p);
            }
        }
        let mut delta = self.index.apply_changes(&files);
        let reparsed: Vec<String> = delta
            .added
            .iter()
            .chain(&delta.updated)
            .map(|c| c.id.clone())
            .collect();
        let mut warnings = std::mem::take(&mut delta.warnings);
        for id in &delta.removed {
            self.notes.remove(id);
        }
        if config_changed {
            // The tag config is applied to the database, as `ct list` does; then every
            // command's tags are compared.
            let mut all = self.index.commands();
            let attached = commandtree_store::attach(
                &self.root,
                &mut all,
                AttachOptions {
                    create: false,
                    complete: true,
                },
            );
            warnings.extend(attached.warnings);
            self.store = attached.store.or(self.store.take());
            db_changed = true;
        }
        if self.store.is_none() && (db_changed || self.db_files[0].exists()) {
            // Created since (by another process): open it without creating anything.
            self.store = Store::open(&self.db_files[0], false).ok().flatten();
        }
        if let Some(store) = &self.store {
            let mut fresh: Vec<CommandItem> =
                delta.added.iter().chain(&delta.updated).cloned().collect();
            if let Err(e) = store.enrich(&mut fresh) {
                warnings.push(Warning::new(&self.db_files[0], None, e.to_string()));
            }
            let (added, updated) = fresh.split_at(delta.added.len());
            delta.added = added.to_vec();
            delta.updated = updated.to_vec();
            self.remember(&fresh);
            if db_changed {
                self.reread(&mut delta, &mut warnings);
            }
        }
        let elapsed = started.elapsed();
        let something = !delta.is_empty() || db_changed || !warnings.is_empty();
        if !delta.is_empty() {
            sink(WatchEvent::Changed { delta, elapsed });
        }
        for w in warnings {
            sink(WatchEvent::Warning(w));
        }
        if something {
            self.snapshot(Some(reparsed), sink);
        }
    }

    /// Reads every command's tags, summary and warning again; those that differ from what was
    /// last seen become `updated`.
    fn reread(&mut self, delta: &mut Delta, warnings: &mut Vec<Warning>) {
        let Some(store) = &self.store else { return };
        let mut all = self.index.commands();
        if let Err(e) = store.enrich(&mut all) {
            warnings.push(Warning::new(&self.db_files[0], None, e.to_string()));
            return;
        }
        let seen: std::collections::HashSet<String> = delta
            .added
            .iter()
            .chain(&delta.updated)
            .map(|c| c.id.clone())
            .collect();
        let mut changed = Vec::new();
        for c in all {
            let now = Notes::of(&c);
            let before = self.notes.get(&c.id).cloned().unwrap_or_default();
            if now != before && !seen.contains(&c.id) {
                changed.push(c);
            }
        }
        self.remember(&changed);
        delta.updated.extend(changed);
    }
}
