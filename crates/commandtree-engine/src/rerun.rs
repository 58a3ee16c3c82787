//! Rerun on change (`ct run --watch`): which folders a command depends on, a debounced watch
//! of them that reports only changes a user makes (not `.git`, `.commandtree`, ignored or
//! excluded files), and a run this process can stop and start again while it waits.
//!
//! A front end that keeps its own loop (the terminal UI, the editor server) watches through
//! [`Watching`]: the same [`Changes`] on a thread of its own, calling back with each batch.
//!
//! A command depends on the folder it runs in and the folders of the commands it runs (its
//! closure: prerequisites, calls, a sequence's members), below each of them. Changes are
//! debounced with the same setting as the engine's watcher (`[watch] debounce_ms`).

use crate::runs::{self, Planned};
use crate::supervisor::{self, RunFiles};
use crate::{Error, Loaded, Result};
use commandtree_core::discover::Excluder;
use commandtree_core::{CommandItem, Workspace};
use commandtree_exec::history::{self, status};
use commandtree_exec::process;
use commandtree_store::Store;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use notify::EventKind;
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The folders `item` depends on: where it runs and where each command of its closure runs,
/// without a folder that another one already holds. Only folders inside the root.
pub fn folders(loaded: &Loaded, item: &CommandItem) -> Vec<PathBuf> {
    let index = crate::closure::Index::new(&loaded.commands);
    let closure = index.closure(item);
    let mut all: Vec<PathBuf> = std::iter::once(item)
        .chain(closure.steps.iter().map(|s| s.item))
        .map(|c| {
            if c.cwd.is_empty() {
                loaded.root.clone()
            } else {
                c.cwd_path().to_path_buf()
            }
        })
        .filter(|d| d.starts_with(&loaded.root))
        .collect();
    all.sort();
    all.dedup();
    let mut out: Vec<PathBuf> = Vec::new();
    for d in all {
        if !out.iter().any(|o| d.starts_with(o)) {
            out.push(d);
        }
    }
    if out.is_empty() {
        out.push(loaded.root.clone());
    }
    out
}

/// A debounced watch of some folders, reporting the changed files that matter.
pub struct Changes {
    rx: mpsc::Receiver<Vec<PathBuf>>,
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
    filter: Filter,
    debounce: Duration,
}

impl Changes {
    pub fn start(ws: &Workspace, folders: &[PathBuf]) -> Result<Changes> {
        let (debounce, _) = crate::watch::debounce_setting(ws);
        let (tx, rx) = mpsc::channel();
        let mut debouncer = new_debouncer(debounce, None, move |r: DebounceEventResult| {
            if let Ok(events) = r {
                let paths: Vec<PathBuf> = events
                    .into_iter()
                    .filter(|e| !matches!(e.kind, EventKind::Access(_)))
                    .flat_map(|e| e.event.paths)
                    .collect();
                if !paths.is_empty() {
                    let _ = tx.send(paths);
                }
            }
        })
        .map_err(|e| Error::failed(format!("cannot start watching: {e}")))?;
        for f in folders {
            debouncer
                .watch(f, notify::RecursiveMode::Recursive)
                .map_err(|e| Error::failed(format!("{}: cannot watch: {e}", f.display())))?;
        }
        Ok(Changes {
            rx,
            _debouncer: debouncer,
            filter: Filter::new(ws),
            debounce,
        })
    }

    /// Drops what changed up to now and for one debounce period more (plus a margin for the
    /// events still on their way): after a run starts or ends, what changed then is the run's
    /// own work (a log it writes, a file a test creates), not a change to react to. Without
    /// this a command that writes a file beside its sources would rerun itself forever.
    pub fn settle(&mut self) {
        let until = Instant::now() + self.debounce + Duration::from_millis(300);
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            if self.rx.recv_timeout(left).is_err() {
                break;
            }
        }
    }

    /// The changed files that matter, once some came within `timeout` (`None` when none did).
    pub fn next(&mut self, timeout: Duration) -> Option<Vec<PathBuf>> {
        let until = Instant::now() + timeout;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let batch = self.rx.recv_timeout(left).ok()?;
            let mut wanted: Vec<PathBuf> = batch
                .into_iter()
                .filter(|p| self.filter.wanted(p))
                .collect();
            wanted.sort();
            wanted.dedup();
            if !wanted.is_empty() {
                return Some(wanted);
            }
        }
    }
}

/// A [`Changes`] watch on a thread of its own, for a front end with its own loop: each batch
/// of files that count goes to the callback, and what changes in the moments after (the rerun
/// the callback starts writing its own files) is dropped, as `ct run --watch` drops it.
/// Dropping it ends the watch.
pub struct Watching {
    folders: Vec<PathBuf>,
    stop: Arc<AtomicBool>,
    settle: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// How long the thread waits for changes before it looks whether it should end.
const POLL: Duration = Duration::from_millis(200);

impl Watching {
    /// Watches `folders` (what a command depends on: [`folders`]); `on_change` gets the changed
    /// files that count.
    pub fn start(
        ws: &Workspace,
        folders: Vec<PathBuf>,
        mut on_change: impl FnMut(Vec<PathBuf>) + Send + 'static,
    ) -> Result<Watching> {
        let mut changes = Changes::start(ws, &folders)?;
        let stop = Arc::new(AtomicBool::new(false));
        let settle = Arc::new(AtomicBool::new(false));
        let (s, t) = (stop.clone(), settle.clone());
        let thread = std::thread::Builder::new()
            .name("commandtree-rerun".into())
            .spawn(move || {
                while !s.load(Ordering::SeqCst) {
                    if t.swap(false, Ordering::SeqCst) {
                        changes.settle();
                    }
                    if let Some(paths) = changes.next(POLL) {
                        on_change(paths);
                        changes.settle();
                    }
                }
            })
            .map_err(|e| Error::failed(format!("cannot start watching: {e}")))?;
        Ok(Watching {
            folders,
            stop,
            settle,
            thread: Some(thread),
        })
    }

    /// The folders watched.
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// A run of the command started or ended elsewhere: what changes now is its own work.
    pub fn settle(&self) {
        self.settle.store(true, Ordering::SeqCst);
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Not joined: a callback may be the one dropping it, and the thread ends by itself
        // within one poll.
        self.thread.take();
    }
}

/// Which changed paths count: inside the root, not in `.git` or `.commandtree`, not excluded
/// by the settings, not ignored by a `.gitignore` or `.ignore` on the way from the root.
struct Filter {
    root: PathBuf,
    excluder: Excluder,
    ignores: HashMap<PathBuf, Option<Gitignore>>,
}

impl Filter {
    fn new(ws: &Workspace) -> Filter {
        let (patterns, _) = commandtree_core::classify::effective_excludes(&ws.settings);
        let excluder = Excluder::new(&patterns, &ws.root, &mut Vec::new());
        Filter {
            root: std::fs::canonicalize(&ws.root).unwrap_or_else(|_| ws.root.clone()),
            excluder,
            ignores: HashMap::new(),
        }
    }

    fn wanted(&mut self, path: &Path) -> bool {
        let Ok(rel) = path
            .strip_prefix(&self.root)
            .map(Path::to_path_buf)
            .or_else(|_| {
                std::fs::canonicalize(path.parent().unwrap_or(path))
                    .ok()
                    .and_then(|p| {
                        p.join(path.file_name()?)
                            .strip_prefix(&self.root)
                            .ok()
                            .map(Path::to_path_buf)
                    })
                    .ok_or(())
            })
        else {
            return false;
        };
        if rel
            .components()
            .any(|c| c.as_os_str() == ".git" || c.as_os_str() == commandtree_store::DB_DIR)
        {
            return false;
        }
        if self.excluder.excludes_file(&rel) {
            return false;
        }
        let mut dir = PathBuf::new();
        let parents: Vec<PathBuf> = rel
            .parent()
            .map(|p| p.components().map(|c| c.as_os_str().into()).collect())
            .unwrap_or_default();
        if self.ignored_in(&dir.clone(), &rel) {
            return false;
        }
        for part in parents {
            dir.push::<PathBuf>(part);
            if self.excluder.excludes_dir(&dir) || self.excluder.excludes_file(&dir) {
                return false;
            }
            if self.ignored_in(&dir.clone(), &rel) {
                return false;
            }
        }
        true
    }

    /// Whether the ignore files of folder `dir` (relative to the root) ignore `rel`.
    fn ignored_in(&mut self, dir: &Path, rel: &Path) -> bool {
        let root = self.root.clone();
        let gi = self.ignores.entry(dir.to_path_buf()).or_insert_with(|| {
            let abs = root.join(dir);
            let mut b = GitignoreBuilder::new(&abs);
            let mut any = false;
            for name in [".gitignore", ".ignore"] {
                let f = abs.join(name);
                if f.is_file() && b.add(&f).is_none() {
                    any = true;
                }
            }
            if dir.as_os_str().is_empty() {
                let f = abs.join(".git").join("info").join("exclude");
                if f.is_file() && b.add(&f).is_none() {
                    any = true;
                }
            }
            any.then(|| b.build().ok()).flatten()
        });
        let Some(gi) = gi else {
            return false;
        };
        let abs = root.join(rel);
        gi.matched_path_or_any_parents(&abs, abs.is_dir())
            .is_ignore()
    }
}

/// A run this process started and can stop: in a process group of its own (so stopping it
/// stops what it started), recorded in the history as a foreground run, with its output on
/// this terminal. The terminal stays with `ct`, so Ctrl-C reaches the watch, which stops it.
pub struct Watched {
    child: Child,
    run_id: Option<i64>,
    started: Instant,
    pub pid: u32,
}

impl Watched {
    pub fn start(ws: &Workspace, store: &mut Option<Store>, p: &Planned) -> Result<Watched> {
        let mut cmd = process::command(&p.runnable);
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd
            .spawn()
            .map_err(|e| Error::failed(format!("cannot start `{}`: {e}", p.item.label)))?;
        let pid = child.id();
        let run_id = runs::record_started(ws, store, p, pid);
        Ok(Watched {
            child,
            run_id,
            started: Instant::now(),
            pid,
        })
    }

    pub fn run_id(&self) -> Option<i64> {
        self.run_id
    }

    /// Its exit code once it ended (recorded in the history then), else `None`.
    pub fn ended(&mut self, ws: &Workspace, store: &mut Option<Store>) -> Result<Option<i32>> {
        match self.child.try_wait() {
            Ok(Some(s)) => {
                let (code, signaled) = process::exit_code(s);
                self.finish(ws, store, code, history::status_for(code, signaled));
                Ok(Some(code))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(Error::failed(e.to_string())),
        }
    }

    /// Stops it (SIGTERM to its group, SIGKILL after 5 s) and records it as stopped.
    pub fn stop(mut self, ws: &Workspace, store: &mut Option<Store>) -> i32 {
        let _ = process::signal_group(self.pid as i64, false);
        let until = Instant::now() + Duration::from_secs(5);
        let status = loop {
            if let Ok(Some(s)) = self.child.try_wait() {
                break Some(s);
            }
            if Instant::now() >= until {
                let _ = process::signal_group(self.pid as i64, true);
                break self.child.wait().ok();
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let code = status.map_or(128 + 9, |s| process::exit_code(s).0);
        self.finish(ws, store, code, status::STOPPED);
        code
    }

    fn finish(&mut self, ws: &Workspace, store: &mut Option<Store>, code: i32, st: &str) {
        let Some(id) = self.run_id.take() else {
            return;
        };
        supervisor::cleanup(&RunFiles::new(&ws.root, &id.to_string()));
        if let Some(s) = store.as_mut() {
            let ms = self.started.elapsed().as_millis() as i64;
            let _ = history::finish(s, id, code, Some(ms), st);
        }
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // A watch that ends (an error, Ctrl-C) never leaves its run behind.
        if self.run_id.is_some() || matches!(self.child.try_wait(), Ok(None)) {
            let _ = process::signal_group(self.pid as i64, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::scratch;

    #[test]
    fn only_changes_a_user_makes_count() {
        let (_scratch, root) = scratch("filter");
        std::fs::create_dir_all(root.join("src/gen")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join(".gitignore"), "/out/\n*.log\n").unwrap();
        std::fs::write(root.join("src/.gitignore"), "gen/\n").unwrap();
        let ws = Workspace::open(Some(&root), &root);
        let mut f = Filter::new(&ws);
        assert!(f.wanted(&root.join("src/main.rs")));
        assert!(f.wanted(&root.join("Makefile")));
        for no in [
            "out/a.o",
            "build.log",
            "src/gen/x.rs",
            ".git/index",
            ".commandtree/commandtree.db",
            "node_modules/x/index.js",
        ] {
            assert!(!f.wanted(&root.join(no)), "{no}");
        }
        assert!(!f.wanted(Path::new("/etc/passwd")));
    }

    #[test]
    fn watching_calls_back_with_a_change_and_stops_when_dropped() {
        let (_scratch, root) = scratch("watching");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        let ws = Workspace::open(Some(&root), &root);
        let (tx, rx) = mpsc::channel();
        let w = Watching::start(&ws, vec![root.join("src")], move |p| {
            let _ = tx.send(p);
        })
        .unwrap();
        assert_eq!(w.folders(), [root.join("src")]);
        // Ignored, then outside the folders: neither counts.
        std::fs::write(root.join("src/build.log"), "x").unwrap();
        std::fs::write(root.join("other.rs"), "x").unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(30)).expect("a change");
        let names: Vec<_> = got.iter().filter_map(|p| p.file_name()).collect();
        assert_eq!(names, ["main.rs"], "{got:?}");
        drop(w);
        // The thread is gone within a poll, and its end drops the callback with the sender.
        assert!(matches!(
            rx.recv_timeout(Duration::from_secs(30)),
            Err(mpsc::RecvTimeoutError::Disconnected)
        ));
    }
}
