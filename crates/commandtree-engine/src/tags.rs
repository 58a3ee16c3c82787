//! Tags, stars and Quick Launch order, as operations that return what happened. The `quick` tag
//! is Quick Launch, as in the extension.

use crate::{Error, Loaded, Result, display_name};
use commandtree_core::{CommandItem, Warning};
use commandtree_store::{QUICK_TAG, Store, tagconfig};
use std::collections::HashSet;
use std::path::PathBuf;

/// One tag taken off (or not) a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    pub tag: String,
    /// The command had the tag in the database.
    pub removed: bool,
    /// `.vscode/commandtree.json` gives the command this tag, so it comes back at the next
    /// discovery unless it is removed there: the file's path.
    pub from_config: Option<PathBuf>,
}

/// One tag with the commands (present now) that carry it, in Quick Launch/display order.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TagEntry {
    pub name: String,
    pub commands: Vec<String>,
}

/// Tags `query`'s command with each of `tags`: for each, whether it was new.
pub fn add(loaded: &mut Loaded, query: &str, tags: &[String]) -> Result<(CommandItem, Vec<bool>)> {
    let c = loaded.resolve(query)?.clone();
    let store = loaded.writable()?;
    let mut added = Vec::new();
    for tag in tags {
        commandtree_store::validate_tag_name(tag)
            .map_err(|e| Error::usage(format!("tag `{tag}`: {e}")))?;
        added.push(store.add_tag(&c.id, tag)?);
    }
    Ok((c, added))
}

/// Takes `tags` off `query`'s command (also a command that no longer exists but still has
/// tags). Returns the display name and one [`Removal`] per tag.
pub fn remove(loaded: &mut Loaded, query: &str, tags: &[String]) -> Result<(String, Vec<Removal>)> {
    let (id, label) = loaded.resolve_for_removal(query)?;
    let configured: Vec<String> = match (
        loaded.commands.iter().find(|c| c.id == id),
        tagconfig::load(&loaded.root).config,
    ) {
        (Some(c), Some(cfg)) => cfg.tags_for(c).into_iter().map(String::from).collect(),
        _ => Vec::new(),
    };
    let config_path = tagconfig::config_path(&loaded.root);
    let mut out = Vec::new();
    for tag in tags {
        let removed = match loaded.store.as_mut() {
            Some(s) => s.remove_tag(&id, tag)?,
            None => false,
        };
        out.push(Removal {
            tag: tag.clone(),
            removed,
            from_config: configured.contains(tag).then(|| config_path.clone()),
        });
    }
    Ok((label, out))
}

/// Every tag with the commands present now that carry it.
pub fn list(loaded: &Loaded) -> Result<Vec<TagEntry>> {
    let present: HashSet<&str> = loaded.commands.iter().map(|c| c.id.as_str()).collect();
    let mut tags = Vec::new();
    if let Some(store) = &loaded.store {
        for t in store.all_tag_names()? {
            let ids = store
                .command_ids_by_tag(&t)?
                .into_iter()
                .filter(|id| present.contains(id.as_str()))
                .collect();
            tags.push(TagEntry {
                name: t,
                commands: ids,
            });
        }
    }
    Ok(tags)
}

/// Adds `query`'s command to Quick Launch, at the end: whether it was new there.
pub fn star(loaded: &mut Loaded, query: &str) -> Result<(CommandItem, bool)> {
    let c = loaded.resolve(query)?.clone();
    let added = loaded.writable()?.star(&c.id)?;
    Ok((c, added))
}

/// Takes `query`'s command out of Quick Launch: its display name and whether it was there.
pub fn unstar(loaded: &mut Loaded, query: &str) -> Result<(String, bool)> {
    let (id, label) = loaded.resolve_for_removal(query)?;
    let removed = match loaded.store.as_mut() {
        Some(s) => s.unstar(&id)?,
        None => false,
    };
    Ok((label, removed))
}

/// Quick Launch in order; commands no longer discovered are left out.
pub fn quick(loaded: &Loaded) -> Result<Vec<CommandItem>> {
    let ids = match &loaded.store {
        Some(s) => s.quick()?,
        None => Vec::new(),
    };
    Ok(ids
        .iter()
        .filter_map(|id| loaded.commands.iter().find(|c| &c.id == id))
        .cloned()
        .collect())
}

/// Moves a starred command to `position` (0-based, among the Quick Launch commands present
/// now). Returns the command and its new position.
pub fn quick_move(
    loaded: &mut Loaded,
    query: &str,
    position: usize,
) -> Result<(CommandItem, usize)> {
    let c = loaded.resolve(query)?.clone();
    let present: HashSet<String> = loaded.commands.iter().map(|c| c.id.clone()).collect();
    let visible = |id: &str| present.contains(id);
    let moved = match loaded.store.as_mut() {
        Some(s) => s.move_in_tag(QUICK_TAG, &c.id, position, &visible)?,
        None => None,
    };
    match moved {
        Some(at) => Ok((c, at)),
        None => Err(Error::failed(format!(
            "{} is not in Quick Launch; star it first",
            display_name(&c)
        ))),
    }
}

/// The commands carrying every one of `tags`, and a warning for each tag nobody has (an empty
/// list alone would not tell a typo from an unused tag).
pub fn filter(
    root: &std::path::Path,
    commands: Vec<CommandItem>,
    tags: &[String],
    store: Option<&Store>,
) -> (Vec<CommandItem>, Vec<Warning>) {
    if tags.is_empty() {
        return (commands, Vec::new());
    }
    let known: HashSet<String> = store
        .and_then(|s| s.all_tag_names().ok())
        .unwrap_or_default()
        .into_iter()
        .collect();
    let db = commandtree_store::db_path(root);
    let warnings = tags
        .iter()
        .filter(|t| !known.contains(*t))
        .map(|t| {
            let why = if store.is_some() {
                ""
            } else {
                " (there is no database yet)"
            };
            Warning::new(&db, None, format!("no tag named `{t}`{why}"))
        })
        .collect();
    let kept = commands
        .into_iter()
        .filter(|c| tags.iter().all(|t| c.tags.contains(t)))
        .collect();
    (kept, warnings)
}
