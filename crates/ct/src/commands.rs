//! What most subcommands start with: one discovery plus what the workspace database adds
//! (tags, summaries, warnings, with `.vscode/commandtree.json` applied), and resolving the
//! command a user named.

use crate::{Exit, output};
use anyhow::{Context, Result};
use commandtree_core::workspace::{self, Lookup};
use commandtree_core::{CommandItem, Options, Warning, Workspace};
use commandtree_store::{AttachOptions, Store, WorkspaceDb};

/// Commands of one discovery, with what the database adds.
pub struct Loaded {
    pub commands: Vec<CommandItem>,
    pub store: Option<Store>,
    /// The discovery's own warnings (a file that failed to parse: its commands are missing).
    pub discovery_warnings: Vec<Warning>,
}

/// Discovers (all types when `types` is empty), then opens the database when there is one
/// (or when `create`), applies the tag config and fills in tags, summaries and warnings.
/// Database problems are warnings: the commands are listed anyway.
pub fn load(ws: &Workspace, types: Vec<String>, quiet: bool, create: bool) -> Loaded {
    let complete = types.is_empty();
    let d = ws.discover(&Options { types, threads: 0 });
    if !quiet {
        output::warnings(&d.warnings);
    }
    let mut commands = d.commands;
    let attached = ws.attach_db(&mut commands, AttachOptions { create, complete });
    // Said even with --quiet: the user's file was moved.
    if let Some(r) = &attached.recreated {
        output::warnings(&[Warning::new(&r.path, None, r.message())]);
    }
    // A write cannot go on without the database, so why it failed is always worth saying.
    if !quiet || (create && attached.store.is_none()) {
        output::warnings(&attached.warnings);
    }
    Loaded {
        commands,
        store: attached.store,
        discovery_warnings: d.warnings,
    }
}

/// The database for a write, or the error explaining why there is none (already printed as a
/// warning by `load`).
pub fn writable<'a>(ws: &Workspace, store: &'a mut Option<Store>) -> Result<&'a mut Store> {
    store.as_mut().with_context(|| {
        format!(
            "{}: cannot open the workspace database",
            ws.db_path().display()
        )
    })
}

/// The command `query` names (id, `type:label` or unique label), or an error already explained
/// on stderr (ambiguous, or not found with near matches).
pub fn resolve<'a>(
    ws: &Workspace,
    commands: &'a [CommandItem],
    query: &str,
) -> Result<&'a CommandItem> {
    match workspace::lookup(commands, query) {
        Lookup::Found(c) => Ok(c),
        Lookup::Ambiguous(cands) => {
            output::error(&format!(
                "`{query}` matches {} commands; name one by id or type:label:",
                cands.len()
            ));
            output::candidates(&cands);
            Err(Exit(1).into())
        }
        Lookup::NotFound => {
            output::error(&format!(
                "no command matches `{query}` under {}",
                ws.root.display()
            ));
            let near = workspace::suggestions(commands, query);
            if !near.is_empty() {
                eprintln!("did you mean:");
                output::candidates(&near);
            }
            Err(Exit(1).into())
        }
    }
}

/// How messages name a command: `build (npm)`.
pub fn name(c: &CommandItem) -> String {
    format!("{} ({})", c.label, c.kind)
}
