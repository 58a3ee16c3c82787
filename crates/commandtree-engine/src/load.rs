//! What most operations start with: one discovery plus what the workspace database adds (tags,
//! summaries, warnings, with `.vscode/commandtree.json` applied), and resolving the command a
//! user named.

use crate::{Error, Result};
use commandtree_core::{CancelToken, CommandItem, Options, Progress, Warning, Workspace};
use commandtree_store::{AttachOptions, Store, WorkspaceDb};
use std::collections::HashSet;
use std::path::PathBuf;

/// What to load.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Only these types (all when empty).
    pub types: Vec<String>,
    /// Create the database when there is none (for writes).
    pub create_db: bool,
}

impl LoadOptions {
    /// Every type, the database created when there is none: for a command that writes to it.
    pub fn writing() -> LoadOptions {
        LoadOptions {
            types: Vec::new(),
            create_db: true,
        }
    }
}

/// Commands of one discovery, with what the database adds.
pub struct Loaded {
    pub root: PathBuf,
    /// Where the user stands (the root for servers): names resolve nearest-first from here.
    pub cwd: PathBuf,
    /// Whether documents (Markdown files) are summarized and searched like commands
    /// (`[discovery] docs = true`); they are listed through `listing` either way.
    pub docs: bool,
    /// Whether what listings hide by default is shown and searched too (`[discovery] show =
    /// "all"`).
    pub show_all: bool,
    pub commands: Vec<CommandItem>,
    pub store: Option<Store>,
    /// The discovery's own warnings (a file that failed to parse: its commands are missing).
    pub discovery_warnings: Vec<Warning>,
    /// Problems with the tag config or the database; the commands are listed anyway.
    pub db_warnings: Vec<Warning>,
    /// Set when the database had another structure and was moved aside and recreated: always
    /// worth telling the user, since their file was moved.
    pub recreated: Option<Warning>,
}

/// Discovers, then opens the database when there is one (or when `create_db`), applies the tag
/// config and fills in tags, summaries and warnings. Database problems are warnings.
pub fn load(
    ws: &Workspace,
    opts: &LoadOptions,
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<Loaded> {
    let _ = progress;
    load_then(ws, opts, cancel, |_| {})
}

/// [`load`], calling `early` with the commands as soon as discovery and the database have
/// answered, before the findings the database caches are combined in (a front end can draw
/// them meanwhile).
pub(crate) fn load_then(
    ws: &Workspace,
    opts: &LoadOptions,
    cancel: &CancelToken,
    early: impl FnOnce(&[CommandItem]),
) -> Result<Loaded> {
    let complete = opts.types.is_empty();
    // The static findings are worked out on the walker threads from the text they read; their
    // hashes only matter when there is (or will be) a database to compare with.
    let hashing = opts.create_db || commandtree_store::db_path(&ws.root).exists();
    let prescan = crate::findings::Prescan::new(hashing);
    let d = ws
        .discover_hooked(
            &Options {
                types: opts.types.clone(),
                threads: 0,
            },
            cancel,
            &commandtree_core::NoProgress,
            &prescan,
        )
        .map_err(|_| Error::Cancelled)?;
    let mut commands = d.commands;
    let attached = ws.attach_db(
        &mut commands,
        AttachOptions {
            create: opts.create_db,
            complete,
        },
    );
    early(&commands);
    let mut store = attached.store;
    // Static findings show wherever a warning shows, with or without an LLM.
    crate::findings::apply(store.as_mut(), &mut commands, Some(prescan));
    // A command runs its steps: their warnings are its own too.
    crate::closure::annotate(&mut commands);
    Ok(Loaded {
        root: ws.root.clone(),
        cwd: ws.cwd.clone(),
        docs: ws.settings.show_docs,
        show_all: ws.settings.show_all,
        commands,
        store,
        discovery_warnings: d.warnings,
        db_warnings: attached.warnings,
        recreated: attached
            .recreated
            .map(|r| Warning::new(&r.path, None, r.message())),
    })
}

impl Loaded {
    /// The commands the model summarizes and search looks through: documents only when
    /// [`Loaded::docs`].
    pub fn workflow_commands(&self) -> Vec<CommandItem> {
        self.commands
            .iter()
            .filter(|c| self.docs || !crate::listing::is_document(c))
            .cloned()
            .collect()
    }

    /// The command `query` names for the user where they stand (see [`crate::names`]).
    pub fn resolve(&self, query: &str) -> Result<&CommandItem> {
        crate::names::resolve(&self.commands, self.at(), query)
    }

    /// Where names are typed: the root, and the user's current directory.
    pub fn at(&self) -> crate::names::At<'_> {
        crate::names::At {
            root: &self.root,
            cwd: &self.cwd,
        }
    }

    /// Each of `queries` resolved, without repeats, in the order given.
    pub fn resolve_all(&self, queries: &[String]) -> Result<Vec<CommandItem>> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for q in queries {
            let c = self.resolve(q)?;
            if seen.insert(c.id.clone()) {
                out.push(c.clone());
            }
        }
        Ok(out)
    }

    /// The database for a write, or why there is none.
    pub fn writable(&mut self) -> Result<&mut Store> {
        let path = commandtree_store::db_path(&self.root);
        self.store.as_mut().ok_or(Error::NoDatabase(path))
    }

    /// The id and a display name for a removal: also an id the database knows but discovery no
    /// longer finds (a moved or deleted file), so stale tags can still be taken off.
    pub fn resolve_for_removal(&self, query: &str) -> Result<(String, String)> {
        if !self.commands.iter().any(|c| c.id == query)
            && let Some(store) = &self.store
            && !store.tags_for_command(query)?.is_empty()
        {
            return Ok((query.to_string(), query.to_string()));
        }
        let c = self.resolve(query)?;
        Ok((c.id.clone(), display_name(c)))
    }

    /// Every warning of the load, discovery's first.
    pub fn warnings(&self) -> impl Iterator<Item = &Warning> {
        self.discovery_warnings
            .iter()
            .chain(self.recreated.iter())
            .chain(self.db_warnings.iter())
    }
}

/// Resolves `query` among `commands` for a user at the root (see [`crate::names::resolve`]);
/// ambiguity and near matches come back as data in the error.
pub fn resolve<'a>(
    root: &std::path::Path,
    commands: &'a [CommandItem],
    query: &str,
) -> Result<&'a CommandItem> {
    crate::names::resolve(commands, crate::names::At::root(root), query)
}

/// How messages name a command: `build (npm)`.
pub fn display_name(c: &CommandItem) -> String {
    format!("{} ({})", c.label, c.kind)
}
