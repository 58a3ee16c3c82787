//! A live index: the workspace's commands kept current by a [`Watcher`], answered from memory.
//! A server (the editor's, the MCP one) holds one and answers every list, tree, lookup and
//! search from it: one walk when it starts, none per request. A change on disk reaches the
//! next request as soon as the watcher has applied it; a change of the database (a tag written
//! by this server or by another process, a summary from the extension) is seen by the next
//! request, which compares the database file's stamp with the one the list was built from.
//!
//! The commands it hands out are those [`crate::load`] gives for the same files and database:
//! the database's tags, summaries and model warnings, the static findings (kept per command and
//! worked out again only for the commands a batch re-parsed), and the steps' warnings.
//! When the folder cannot be watched, each request loads afresh (and says why once).

use crate::findings;
use crate::watch::{WatchEvent, WatchOptions, Watcher};
use crate::{CancelToken, Error, LoadOptions, Loaded, NoProgress, Result};
use commandtree_core::{CommandItem, Warning, Workspace};
use commandtree_risk::Finding;
use commandtree_store::{AttachOptions, Store, WorkspaceDb};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

/// What changed in the listed commands between two states of a [`Live`] index, worked out on
/// the final commands (so a command whose step changed is `updated` too).
#[derive(Debug, Clone, Default)]
pub struct LiveChange {
    pub added: Vec<CommandItem>,
    pub updated: Vec<CommandItem>,
    pub removed: Vec<String>,
    /// Every command after the change.
    pub all: Arc<Vec<CommandItem>>,
}

impl LiveChange {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.updated.is_empty() && self.removed.is_empty()
    }
}

/// What a live index reports to its holder.
#[derive(Debug, Clone)]
pub enum LiveEvent {
    /// Discovery's commands with the database's notes, before their static findings: a front
    /// end may draw them while those are worked out (nothing should run from them).
    Discovered(Vec<CommandItem>),
    /// The first list is ready.
    Ready { commands: usize },
    /// The commands changed (files or the database).
    Changed(LiveChange),
    /// A discovery, database or watcher problem, each once.
    Warning(Warning),
}

type Sink = Box<dyn FnMut(&LiveEvent) + Send>;

/// The list now, discovery's warnings, the database's warnings.
type Current = (Arc<Vec<CommandItem>>, Vec<Warning>, Vec<Warning>);

/// A workspace's commands, kept current. Dropping it stops the watcher.
pub struct Live {
    inner: Arc<Inner>,
    watcher: Option<Watcher>,
    /// Why the folder is not watched (each request then loads afresh).
    unwatched: Option<String>,
}

struct Inner {
    ws: Workspace,
    state: Mutex<State>,
    ready: Condvar,
    sink: Mutex<Sink>,
}

#[derive(Default)]
struct State {
    ready: bool,
    /// Discovery's commands as the watcher last listed them (no database notes).
    discovered: Vec<CommandItem>,
    /// Static findings per command id.
    found: HashMap<String, Vec<Finding>>,
    /// What requests get: `discovered` with the database's notes, findings and steps' warnings.
    view: Arc<Vec<CommandItem>>,
    discovery_warnings: Vec<Warning>,
    db_warnings: Vec<Warning>,
    /// The database files as they were when `view` was built.
    db_stamp: Stamp,
    /// Warnings already reported, so each is said once.
    said: HashSet<String>,
}

/// Size and modification time of the database, its journal and the tag config, and the
/// database's change counter: a write by anyone changes one of them (the counter even when two
/// writes fall within one tick of the file system's clock).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Stamp(Vec<Option<(u64, SystemTime)>>, Option<[u8; 4]>);

impl Stamp {
    fn of(root: &Path) -> Stamp {
        let db = commandtree_store::db_path(root);
        let name = db.file_name().unwrap_or_default().to_string_lossy();
        let files = [
            db.with_file_name(format!("{name}-journal")),
            commandtree_store::tagconfig::config_path(root),
            db.clone(),
        ];
        let times = files
            .iter()
            .map(|p| {
                std::fs::symlink_metadata(p)
                    .ok()
                    .map(|m| (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
            })
            .collect();
        Stamp(times, change_counter(&db))
    }
}

/// SQLite's file change counter (header bytes 24..28), bumped by every write transaction.
/// Only a regular file is opened, without waiting (a FIFO planted there never blocks).
fn change_counter(db: &Path) -> Option<[u8; 4]> {
    use std::io::Read;
    let (mut f, _) = commandtree_core::fs::open_regular(db).ok()?;
    let mut head = [0u8; 28];
    f.read_exact(&mut head).ok()?;
    Some([head[24], head[25], head[26], head[27]])
}

/// How long a request waits for the first list before it loads on its own.
const FIRST_LIST_WAIT: Duration = Duration::from_secs(600);

impl Live {
    /// Starts watching `ws` and builds the first list on the watcher's thread. `sink` hears
    /// about every change after that (on the watcher's thread, or on a request's thread when
    /// a request notices a database change first).
    pub fn start(ws: Workspace, sink: impl FnMut(&LiveEvent) + Send + 'static) -> Live {
        let inner = Arc::new(Inner {
            ws: ws.clone(),
            state: Mutex::new(State::default()),
            ready: Condvar::new(),
            sink: Mutex::new(Box::new(sink)),
        });
        let weak = Arc::downgrade(&inner);
        let options = WatchOptions {
            snapshots: true,
            ..WatchOptions::default()
        };
        let started = Watcher::start(ws, options, move |event| {
            if let Some(inner) = weak.upgrade() {
                inner.on_watch(event);
            }
        });
        match started {
            Ok(w) => Live {
                inner,
                watcher: Some(w),
                unwatched: None,
            },
            Err(e) => Live {
                inner,
                watcher: None,
                unwatched: Some(e.to_string()),
            },
        }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.inner.ws
    }

    pub fn root(&self) -> &Path {
        &self.inner.ws.root
    }

    /// Why changes are not followed (then every request loads afresh), if they are not.
    pub fn unwatched(&self) -> Option<&str> {
        self.unwatched.as_deref()
    }

    /// The commands as they are now (waiting for the first list), as [`crate::load`] of every
    /// type would give them, without walking the tree again.
    pub fn commands(&self, cancel: &CancelToken) -> Result<Arc<Vec<CommandItem>>> {
        if self.watcher.is_none() {
            return Ok(Arc::new(
                self.fresh(&LoadOptions::default(), cancel)?.commands,
            ));
        }
        Ok(self.current(cancel)?.0)
    }

    /// The list as it is now (database changes taken in first) and its warnings: discovery's,
    /// then the database's.
    fn current(&self, cancel: &CancelToken) -> Result<Current> {
        let mut st = self.wait_ready(cancel)?;
        let told = self.inner.refresh_db(&mut st);
        let got = (
            st.view.clone(),
            st.discovery_warnings.clone(),
            st.db_warnings.clone(),
        );
        drop(st);
        self.inner.report(told);
        Ok(got)
    }

    /// A [`Loaded`] from the live list: the commands of `opts.types` (all when empty), the
    /// database opened read-only, or for writing (created when missing) with `opts.create_db`.
    pub fn load(&self, opts: &LoadOptions, cancel: &CancelToken) -> Result<Loaded> {
        if self.watcher.is_none() {
            return self.fresh(opts, cancel);
        }
        let (view, discovery_warnings, mut db_warnings) = self.current(cancel)?;
        let commands: Vec<CommandItem> = if opts.types.is_empty() {
            view.as_ref().clone()
        } else {
            view.iter()
                .filter(|c| opts.types.contains(&c.kind))
                .cloned()
                .collect()
        };
        let root = self.root().to_path_buf();
        let db = commandtree_store::db_path(&root);
        let store = if opts.create_db {
            match Store::open(&db, true) {
                Ok(s) => s,
                Err(e) => {
                    db_warnings.push(Warning::new(&db, None, e.to_string()));
                    None
                }
            }
        } else {
            Store::open_read_only(&db).ok().flatten()
        };
        Ok(Loaded {
            cwd: self.inner.ws.cwd.clone(),
            docs: self.inner.ws.settings.show_docs,
            show_all: self.inner.ws.settings.show_all,
            root,
            commands,
            store,
            discovery_warnings,
            db_warnings,
            recreated: None,
        })
    }

    fn fresh(&self, opts: &LoadOptions, cancel: &CancelToken) -> Result<Loaded> {
        crate::load(&self.inner.ws, opts, cancel, &NoProgress)
    }

    fn wait_ready(&self, cancel: &CancelToken) -> Result<MutexGuard<'_, State>> {
        let mut st = lock(&self.inner.state);
        let mut waited = Duration::ZERO;
        while !st.ready {
            if cancel.is_cancelled() {
                return Err(Error::Cancelled);
            }
            if waited >= FIRST_LIST_WAIT {
                return Err(Error::failed(
                    "the first discovery of the workspace did not finish",
                ));
            }
            let step = Duration::from_millis(50);
            st = self
                .inner
                .ready
                .wait_timeout(st, step)
                .unwrap_or_else(|p| p.into_inner())
                .0;
            waited += step;
        }
        Ok(st)
    }

    /// Stops watching; requests made afterwards load afresh.
    pub fn stop(mut self) {
        if let Some(w) = self.watcher.take() {
            w.stop();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    fn on_watch(&self, event: WatchEvent) {
        match event {
            WatchEvent::Snapshot {
                commands,
                warnings,
                changed,
                first,
            } => {
                let mut st = lock(&self.state);
                st.discovered = commands;
                st.discovery_warnings = warnings;
                let mut found = std::mem::take(&mut st.found);
                {
                    let keep: HashSet<&str> = st.discovered.iter().map(|c| c.id.as_str()).collect();
                    let changed: HashSet<&str> = changed.iter().map(String::as_str).collect();
                    found.retain(|id, _| {
                        keep.contains(id.as_str()) && !changed.contains(id.as_str())
                    });
                }
                st.found = found;
                let event = self.rebuild(&mut st);
                if first {
                    st.ready = true;
                    self.ready.notify_all();
                    let n = st.view.len();
                    let warnings = self.unsaid(&mut st);
                    drop(st);
                    self.tell(&LiveEvent::Ready { commands: n });
                    for w in warnings {
                        self.tell(&LiveEvent::Warning(w));
                    }
                } else {
                    let warnings = self.unsaid(&mut st);
                    drop(st);
                    self.report((event, warnings));
                }
            }
            WatchEvent::Warning(w) => {
                let mut st = lock(&self.state);
                if st.said.insert(w.to_string()) {
                    drop(st);
                    self.tell(&LiveEvent::Warning(w));
                }
            }
            WatchEvent::Ready { commands, .. } => self.tell(&LiveEvent::Discovered(commands)),
            // The snapshots carry everything a live index needs.
            WatchEvent::Changed { .. } => {}
        }
    }

    fn tell(&self, event: &LiveEvent) {
        (lock(&self.sink))(event);
    }

    /// Tells the holder; never called with the state locked (the sink may ask for the list).
    fn report(&self, (change, warnings): (LiveChange, Vec<Warning>)) {
        if !change.is_empty() {
            self.tell(&LiveEvent::Changed(change));
        }
        for w in warnings {
            self.tell(&LiveEvent::Warning(w));
        }
    }

    fn unsaid(&self, st: &mut State) -> Vec<Warning> {
        let all: Vec<Warning> = st
            .discovery_warnings
            .iter()
            .chain(&st.db_warnings)
            .cloned()
            .collect();
        all.into_iter()
            .filter(|w| st.said.insert(w.to_string()))
            .collect()
    }

    /// Builds the view again when the database changed since it was built; what changed is
    /// for [`Inner::report`] once the state is unlocked (the holder hears of a database change
    /// once, from whoever noticed it first: a request or the watcher).
    fn refresh_db(&self, st: &mut State) -> (LiveChange, Vec<Warning>) {
        if !st.ready || Stamp::of(&self.ws.root) == st.db_stamp {
            return (LiveChange::default(), Vec::new());
        }
        let change = self.rebuild(st);
        (change, self.unsaid(st))
    }

    /// The view from `discovered`: the database's notes, the static findings (worked out for
    /// the commands that have none yet), the steps' warnings. Returns what changed.
    fn rebuild(&self, st: &mut State) -> LiveChange {
        st.db_stamp = Stamp::of(&self.ws.root);
        let mut commands = st.discovered.clone();
        let attached = self.ws.attach_db(
            &mut commands,
            AttachOptions {
                create: false,
                complete: true,
            },
        );
        st.db_warnings = attached.warnings;
        let mut store = attached.store;
        let missing: Vec<CommandItem> = commands
            .iter()
            .filter(|c| !st.found.contains_key(&c.id))
            .cloned()
            .collect();
        if !missing.is_empty() {
            let mut new = findings::scan(store.as_mut(), &missing);
            for c in &missing {
                let f = new.remove(&c.id).unwrap_or_default();
                st.found.insert(c.id.clone(), f);
            }
        }
        findings::annotate(&mut commands, &st.found);
        crate::closure::annotate(&mut commands);
        let mut change = diff(&st.view, &commands);
        st.view = Arc::new(commands);
        change.all = st.view.clone();
        change
    }
}

/// What differs between two lists of commands, by id.
fn diff(before: &[CommandItem], after: &[CommandItem]) -> LiveChange {
    let old: HashMap<&str, &CommandItem> = before.iter().map(|c| (c.id.as_str(), c)).collect();
    let new: HashSet<&str> = after.iter().map(|c| c.id.as_str()).collect();
    let mut change = LiveChange::default();
    for c in after {
        match old.get(c.id.as_str()) {
            None => change.added.push(c.clone()),
            Some(o) if *o != c => change.updated.push(c.clone()),
            Some(_) => {}
        }
    }
    change.removed = before
        .iter()
        .filter(|c| !new.contains(c.id.as_str()))
        .map(|c| c.id.clone())
        .collect();
    change
}

impl Drop for Live {
    fn drop(&mut self) {
        if let Some(w) = self.watcher.take() {
            w.stop();
        }
    }
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").field("root", &self.root()).finish()
    }
}
