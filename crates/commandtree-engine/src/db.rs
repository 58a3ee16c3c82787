//! The workspace database as a whole: its check and pruning the rows of commands that no longer
//! exist.

use crate::{Loaded, Result};
use std::collections::HashSet;

/// Rows of commands that no longer exist, with their tags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prune {
    /// Rows to delete (deleted when the prune was not a dry run).
    pub stale: Vec<(String, Vec<String>)>,
    /// Rows of files that failed to parse this time: kept, since their commands may well exist.
    pub kept: Vec<(String, Vec<String>)>,
    /// How many rows were deleted.
    pub deleted: usize,
}

/// Finds (and, unless `dry_run`, deletes) the rows of commands that no longer exist. `None`
/// when there is no database.
pub fn prune(loaded: &mut Loaded, dry_run: bool) -> Result<Option<Prune>> {
    let present: HashSet<String> = loaded.commands.iter().map(|c| c.id.clone()).collect();
    // A file that failed to parse this time yields no commands; its rows are not stale.
    let unparsed: Vec<String> = loaded
        .discovery_warnings
        .iter()
        .map(|w| format!(":{}:", w.file.display()))
        .collect();
    let Some(store) = loaded.store.as_mut() else {
        return Ok(None);
    };
    let stale = store.stale(&|id: &str| present.contains(id))?;
    let (kept, stale): (Vec<_>, Vec<_>) = stale
        .into_iter()
        .partition(|(id, _)| unparsed.iter().any(|f| id.contains(f.as_str())));
    let deleted = if dry_run {
        0
    } else {
        let ids: Vec<String> = stale.iter().map(|(id, _)| id.clone()).collect();
        store.delete_commands(&ids)?
    };
    Ok(Some(Prune {
        stale,
        kept,
        deleted,
    }))
}
