//! The database as the front ends meet it, after each discovery: open it when there is one,
//! apply `.vscode/commandtree.json`, and fill tags, summaries and security warnings into the
//! discovered commands.

use crate::{Recreated, Store, db_path, tagconfig};
use commandtree_core::{CommandItem, Warning, Workspace};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, Default)]
pub struct AttachOptions {
    /// Open the database for writing, creating it when it does not exist (for writes:
    /// tagging, starring). Otherwise an existing database is opened read-only.
    pub create: bool,
    /// The commands are a whole discovery, not one type's. Only then does a rebuild of a
    /// wrong-structure file drop the tags of commands that no longer exist.
    pub complete: bool,
}

#[derive(Default)]
pub struct Attached {
    /// `None` when there is no database and nothing asked for one, or it could not be opened
    /// (then `warnings` says why).
    pub store: Option<Store>,
    /// Problems with the tag config or the database. Never fatal: the commands are still there.
    pub warnings: Vec<Warning>,
    /// Set when the file had another structure and was recreated; tell the user.
    pub recreated: Option<Recreated>,
}

/// Opens the workspace database for `commands` (the result of a discovery under `root`),
/// applies the tag config and fills in `tags`, `summary` and `securityWarning`.
///
/// Without `opts.create` an existing database is opened read-only: the tag config is applied
/// to what is returned, not written, and nothing is migrated. With `opts.create`, or when a tag
/// config exists and there is no database yet (its tags need somewhere to live), the database
/// is opened for writing (created as needed) and the config is synced into it. Otherwise
/// nothing is created and the commands are left as discovered.
pub fn attach(root: &Path, commands: &mut [CommandItem], opts: AttachOptions) -> Attached {
    let path = db_path(root);
    let config = tagconfig::load(root);
    let mut out = Attached {
        warnings: config.warnings,
        ..Attached::default()
    };
    // A dangling link is "there" too: it is refused rather than created through.
    let present = std::fs::symlink_metadata(&path).is_ok();
    let write = opts.create || (config.exists && !present);
    if !write && !present {
        return out;
    }
    let ids: HashSet<&str> = commands.iter().map(|c| c.id.as_str()).collect();
    let exists = |id: &str| ids.contains(id);
    let filter: Option<&dyn Fn(&str) -> bool> = if opts.complete { Some(&exists) } else { None };
    let opened = if write {
        Store::open_with(&path, true, filter)
    } else {
        Store::open_read_only(&path)
    };
    let mut store = match opened {
        Ok(Some(s)) => s,
        Ok(None) => return out,
        Err(e) => {
            out.warnings.push(warning(&path, &e));
            return out;
        }
    };
    out.recreated = store.recreated().cloned();
    for (kind, name) in store.dropped_objects() {
        out.warnings.push(Warning::new(
            &path,
            None,
            format!("dropped {kind} `{name}`: not CommandTree's (a database can only be trusted with its own schema)"),
        ));
    }
    if !write {
        match store.read(crate::schema::foreign_objects) {
            Ok(found) if !found.is_empty() => out.warnings.push(Warning::new(
                &path,
                None,
                format!(
                    "{} trigger(s) or view(s) that are not CommandTree's; ignored, dropped by the next write (`ct db check` lists them)",
                    found.len()
                ),
            )),
            Ok(_) => {}
            Err(e) => out.warnings.push(warning(&path, &e)),
        }
    }
    if let Some(cfg) = &config.config {
        let applied = if write {
            tagconfig::sync(&mut store, cfg, commands).map(|_| ())
        } else {
            tagconfig::overlay(&mut store, cfg, commands)
        };
        if let Err(e) = applied {
            out.warnings.push(warning(&path, &e));
        }
    }
    if let Err(e) = store.enrich(commands) {
        out.warnings.push(warning(&path, &e));
    }
    out.warnings.extend(store.take_warnings());
    out.store = Some(store);
    out
}

/// A store error as a discovery-style warning; the error text already names the file.
fn warning(path: &Path, e: &crate::Error) -> Warning {
    let text = e.to_string();
    let prefix = format!("{}: ", path.display());
    Warning::new(
        path,
        None,
        text.strip_prefix(&prefix).unwrap_or(&text).to_string(),
    )
}

/// The database as a service of the `Workspace` facade.
pub trait WorkspaceDb {
    fn db_path(&self) -> PathBuf;
    /// `attach` for this workspace.
    fn attach_db(&self, commands: &mut [CommandItem], opts: AttachOptions) -> Attached;
}

impl WorkspaceDb for Workspace {
    fn db_path(&self) -> PathBuf {
        db_path(&self.root)
    }

    fn attach_db(&self, commands: &mut [CommandItem], opts: AttachOptions) -> Attached {
        attach(&self.root, commands, opts)
    }
}
