//! The facade every front end calls (CLI, terminal UI, editor and agent servers), so none of
//! them re-implements discovery, lookup or tree building.

use crate::cancel::{CancelToken, Progress};
use crate::discover::{self, Cancelled, Discovery, Options};
use crate::incremental::Index;
use crate::model::{CommandItem, Warning};
use crate::settings::{Settings, SortOrder, resolve_root};
use crate::tree::{self, Category};
use std::path::{Path, PathBuf};

#[derive(Clone)]
pub struct Workspace {
    pub root: PathBuf,
    /// Where the user stands (the root when that is outside it): a name resolves to the
    /// nearest definition from here, as npm, just and task do.
    pub cwd: PathBuf,
    pub settings: Settings,
    /// Problems found while loading settings.
    pub warnings: Vec<Warning>,
}

impl Workspace {
    /// Opens the workspace for `explicit_root` (`--root`) or the one around `cwd`.
    pub fn open(explicit_root: Option<&Path>, cwd: &Path) -> Workspace {
        let root = resolve_root(explicit_root, cwd);
        let (settings, warnings) = Settings::load(&root);
        let cwd = std::fs::canonicalize(cwd)
            .ok()
            .filter(|c| c.starts_with(&root))
            .unwrap_or_else(|| root.clone());
        Workspace {
            root,
            cwd,
            settings,
            warnings,
        }
    }

    pub fn discover(&self, opts: &Options) -> Discovery {
        discover::discover(&self.root, &self.settings, opts)
    }

    /// [`Workspace::discover`] with progress and cancellation, for big trees.
    pub fn discover_with(
        &self,
        opts: &Options,
        cancel: &CancelToken,
        progress: &dyn Progress,
    ) -> Result<Discovery, Cancelled> {
        discover::discover_with(&self.root, &self.settings, opts, cancel, progress)
    }

    /// [`Workspace::discover_with`], showing each parsed file's text to `hook` on the walker
    /// thread that read it (see [`FileHook`](crate::FileHook)).
    pub fn discover_hooked(
        &self,
        opts: &Options,
        cancel: &CancelToken,
        progress: &dyn Progress,
        hook: &dyn crate::FileHook,
    ) -> Result<Discovery, Cancelled> {
        discover::discover_hooked(
            &self.root,
            &self.settings,
            opts,
            cancel,
            progress,
            Some(hook),
        )
    }

    /// Discovers and keeps the result per file, for incremental updates
    /// ([`Index::apply_changes`]).
    pub fn index(
        &self,
        opts: &Options,
        cancel: &CancelToken,
        progress: &dyn Progress,
    ) -> Result<Index, Cancelled> {
        let mut index =
            Index::build_with(&self.root, self.settings.clone(), opts, cancel, progress)?;
        index.set_settings_warnings(self.warnings.clone());
        Ok(index)
    }

    pub fn tree(&self, commands: &[CommandItem], order: Option<SortOrder>) -> Vec<Category> {
        tree::build(
            commands,
            &self.root,
            order.unwrap_or(self.settings.sort_order),
        )
    }
}
