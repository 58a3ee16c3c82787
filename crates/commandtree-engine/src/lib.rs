//! CommandTree's engine: the one facade every front end calls (the CLI, the terminal UI, the
//! editor server, the MCP server). It opens a workspace, loads its commands (discovery plus what
//! the database adds), resolves what a user typed, and owns tags and Quick Launch, runs (the
//! security gate, foreground/detached/window launches and their supervision, history, logs,
//! stop), summaries, embeddings and search, and the database check and prune. Every command's
//! closure (the steps its runner executes by itself, `closure`) is analysed and gated with it;
//! `deps` gives that closure and its reverse (what runs a command) as a view, and `problems`
//! reads the errors and warnings a run printed. It returns data and typed events and never
//! prints: formatting belongs to the front ends.
//!
//! Slow operations share one convention: a [`CancelToken`] the caller may cancel from another
//! thread, and a [`Progress`] sink receiving [`ProgressEvent`]s.

pub mod closure;
pub mod db;
pub mod debug;
pub mod deps;
pub mod envfiles;
mod error;
pub mod findings;
pub mod frontend;
pub mod gate;
pub mod lexical;
pub mod listing;
pub mod live;
mod load;
pub mod names;
pub mod problems;
pub mod rerun;
pub mod runs;
pub mod search;
pub mod sequence;
pub mod summaries;
pub mod supervisor;
pub mod tags;
pub mod watch;

pub use commandtree_core::{
    CancelToken, CommandItem, NoProgress, Progress, ProgressEvent, SortOrder, Warning, Workspace,
};
pub use error::{Error, Result};
pub use live::{Live, LiveChange, LiveEvent};
pub use load::{LoadOptions, Loaded, display_name, load, resolve};
pub use watch::{WatchError, WatchEvent, WatchOptions, Watcher};

use std::path::Path;

/// A workspace opened for a front end.
pub struct Engine {
    ws: Workspace,
}

impl Engine {
    /// Opens the workspace of `explicit_root` (`--root`), or the one around `cwd`: the nearest
    /// ancestor holding `.commandtree/`, else the git top level, else `cwd`.
    pub fn open(explicit_root: Option<&Path>, cwd: &Path) -> Result<Engine> {
        let ws = Workspace::open(explicit_root, cwd);
        if let Some(r) = explicit_root
            && !ws.root.is_dir()
        {
            return Err(Error::failed(format!(
                "{}: no such folder (given with --root)",
                r.display()
            )));
        }
        Ok(Engine { ws })
    }

    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// The workspace, for a front end that hands it on (a [`Watcher`] owns its own).
    pub fn into_workspace(self) -> Workspace {
        self.ws
    }

    /// Replaces the exclude globs with `patterns`, as an editor does with its own
    /// `commandtree.excludePatterns`: an explicit list replaces the built-in defaults exactly
    /// (the per-folder `env/` and `bin/` rules included), as the setting does.
    pub fn set_exclude_patterns(&mut self, patterns: Vec<String>) {
        self.ws.settings.set_client_excludes(patterns);
    }

    pub fn root(&self) -> &Path {
        &self.ws.root
    }

    /// The workspace database's path (it may not exist yet).
    pub fn db_path(&self) -> std::path::PathBuf {
        commandtree_store::db_path(&self.ws.root)
    }

    /// Problems found while reading the settings.
    pub fn settings_warnings(&self) -> &[Warning] {
        &self.ws.warnings
    }

    /// Discovery plus the database (see [`load`]), without progress or cancellation.
    pub fn load(&self, opts: &LoadOptions) -> Result<Loaded> {
        load(&self.ws, opts, &CancelToken::new(), &NoProgress)
    }

    /// As [`Engine::load`], reporting progress and stopping when `cancel` is cancelled.
    pub fn load_with(
        &self,
        opts: &LoadOptions,
        cancel: &CancelToken,
        progress: &dyn Progress,
    ) -> Result<Loaded> {
        load(&self.ws, opts, cancel, progress)
    }

    /// The tree of `commands` as every front end shows it.
    pub fn tree(
        &self,
        commands: &[CommandItem],
        order: Option<SortOrder>,
    ) -> Vec<commandtree_core::tree::Category> {
        self.ws.tree(commands, order)
    }
}

/// Helpers shared by the unit tests of several modules.
#[cfg(test)]
pub(crate) mod testutil {
    use std::path::PathBuf;

    /// A fresh, empty folder of the system's temporary folder, its real path; removed when the
    /// returned guard is dropped (when the test ends, passed or failed).
    pub fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::Builder::new()
            .prefix(&format!("ct-engine-{name}-"))
            .tempdir()
            .unwrap();
        let real = d.path().canonicalize().unwrap();
        (d, real)
    }
}
