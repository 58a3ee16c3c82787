//! `.vscode/commandtree.json`: tags declared in the repository, shared with the VS Code
//! extension.
//!
//! ```json
//! { "tags": { "build": ["npm:/w/package.json:build", { "type": "make" }, { "label": "test" }] } }
//! ```
//!
//! A string pattern is an exact command id; an object matches a command when every field it
//! gives (`type`, `label`, `id`) equals the command's, so `{}` matches everything.
//!
//! Unlike the extension, whose sync deletes every assignment of a configured tag that the file
//! does not match (hand-made ones included), the sync here adds and takes back only the
//! assignments it made itself, remembered in `config_tag_assignments`.

use crate::{Error, Store, validate_tag_name};
use commandtree_core::{CommandItem, Warning};
use rusqlite::{OptionalExtension, Transaction};
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

pub fn config_path(root: &Path) -> PathBuf {
    root.join(".vscode").join("commandtree.json")
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    Id(String),
    Fields {
        kind: Option<String>,
        label: Option<String>,
        id: Option<String>,
    },
}

impl Pattern {
    pub fn matches(&self, c: &CommandItem) -> bool {
        match self {
            Pattern::Id(id) => c.id == *id,
            Pattern::Fields { kind, label, id } => {
                kind.as_ref().is_none_or(|k| *k == c.kind)
                    && label.as_ref().is_none_or(|l| *l == c.label)
                    && id.as_ref().is_none_or(|i| *i == c.id)
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigTag {
    pub name: String,
    pub patterns: Vec<Pattern>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagConfig {
    pub tags: Vec<ConfigTag>,
    /// Tags the file names but whose entry could not be read. The sync leaves their
    /// assignments as they are rather than take them back because of a typo.
    pub unreadable: Vec<String>,
}

impl TagConfig {
    /// The configured tags that apply to `c`.
    pub fn tags_for(&self, c: &CommandItem) -> Vec<&str> {
        self.tags
            .iter()
            .filter(|t| t.patterns.iter().any(|p| p.matches(c)))
            .map(|t| t.name.as_str())
            .collect()
    }
}

/// The result of reading the file.
#[derive(Debug, Default)]
pub struct Loaded {
    pub exists: bool,
    /// `None` when the file exists but cannot be used at all (then nothing is synced).
    pub config: Option<TagConfig>,
    pub warnings: Vec<Warning>,
}

/// Reads `{root}/.vscode/commandtree.json`. An absent file is an empty configuration.
pub fn load(root: &Path) -> Loaded {
    let path = config_path(root);
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Loaded {
                exists: false,
                config: Some(TagConfig::default()),
                warnings: Vec::new(),
            };
        }
        _ => {}
    }
    match commandtree_core::fs::read_file(&path) {
        Ok(content) => {
            let (config, warnings) = parse(&path, &content);
            Loaded {
                exists: true,
                config,
                warnings,
            }
        }
        Err(e) => Loaded {
            exists: true,
            config: None,
            warnings: vec![Warning::new(
                &path,
                None,
                format!("{e}; tags from it are not applied"),
            )],
        },
    }
}

/// Parses the file's text; `path` only names it in warnings. Comments and trailing commas are
/// accepted (the extension wants strict JSON, which is a subset).
pub fn parse(path: &Path, content: &str) -> (Option<TagConfig>, Vec<Warning>) {
    let mut warnings = Vec::new();
    let value = match commandtree_core::text::parse_jsonc(content) {
        Ok(v) => v,
        Err((line, msg)) => {
            warnings.push(Warning::new(
                path,
                line,
                format!("{msg}; tags from it are not applied"),
            ));
            return (None, warnings);
        }
    };
    let Some(obj) = value.as_object() else {
        warnings.push(Warning::new(
            path,
            None,
            "the top level is not an object; tags from it are not applied",
        ));
        return (None, warnings);
    };
    let mut config = TagConfig::default();
    let tags = match obj.get("tags") {
        None | Some(serde_json::Value::Null) => return (Some(config), warnings),
        Some(serde_json::Value::Object(m)) => m,
        Some(_) => {
            warnings.push(Warning::new(
                path,
                None,
                "`tags` is not an object; tags from it are not applied",
            ));
            return (None, warnings);
        }
    };
    for (name, list) in tags {
        match parse_tag(name, list) {
            Ok(patterns) => config.tags.push(ConfigTag {
                name: name.clone(),
                patterns,
            }),
            Err(reason) => {
                warnings.push(Warning::new(
                    path,
                    None,
                    format!("tag `{name}`: {reason}; left as it is"),
                ));
                config.unreadable.push(name.clone());
            }
        }
    }
    (Some(config), warnings)
}

fn parse_tag(name: &str, list: &serde_json::Value) -> Result<Vec<Pattern>, String> {
    validate_tag_name(name).map_err(|e| match e {
        Error::InvalidTagName { reason, .. } => reason,
        other => other.to_string(),
    })?;
    let items = list
        .as_array()
        .ok_or("expected an array of command ids and {type, label, id} objects")?;
    let mut patterns = Vec::with_capacity(items.len());
    for item in items {
        match item {
            serde_json::Value::String(id) => patterns.push(Pattern::Id(id.clone())),
            serde_json::Value::Object(fields) => {
                let get = |key: &str| -> Result<Option<String>, String> {
                    match fields.get(key) {
                        None => Ok(None),
                        Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                        Some(_) => Err(format!("`{key}` must be a string")),
                    }
                };
                let p = Pattern::Fields {
                    kind: get("type")?,
                    label: get("label")?,
                    id: get("id")?,
                };
                // An unknown key would otherwise leave a pattern matching every command.
                if let Some(k) = fields
                    .keys()
                    .find(|k| !matches!(k.as_str(), "type" | "label" | "id"))
                {
                    return Err(format!(
                        "unknown key `{k}` (patterns take type, label and id)"
                    ));
                }
                patterns.push(p);
            }
            other => {
                return Err(format!(
                    "a pattern must be a command id or an object, not {other}"
                ));
            }
        }
    }
    Ok(patterns)
}

/// What a sync changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SyncReport {
    /// (command id, tag) assignments added.
    pub added: Vec<(String, String)>,
    /// (command id, tag) assignments taken back.
    pub removed: Vec<(String, String)>,
}

#[derive(Default)]
struct Plan {
    add: Vec<(String, String)>,
    remove: Vec<(String, String)>,
}

/// What `sync` would change, applied to what a read-only store returns instead of written:
/// listing shows the config's tags without writing to the database.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overlay {
    add: Vec<(String, String)>,
    remove: HashSet<(String, String)>,
}

impl Overlay {
    pub fn is_empty(&self) -> bool {
        self.add.is_empty() && self.remove.is_empty()
    }
    pub(crate) fn removes(&self, id: &str, tag: &str) -> bool {
        self.remove.contains(&(id.to_string(), tag.to_string()))
    }
    pub(crate) fn added(&self) -> impl Iterator<Item = (&str, &str)> {
        self.add.iter().map(|(i, t)| (i.as_str(), t.as_str()))
    }
}

/// Writes an overlay as `sync` would have (the first write of a store opened read-only). Only
/// what still holds is applied: an addition the command has meanwhile is left as it is, a
/// removal only takes back an assignment that is still the config's.
pub(crate) fn apply_overlay(tx: &Transaction<'_>, o: &Overlay) -> rusqlite::Result<()> {
    for (id, tag) in &o.add {
        if crate::ops::add_tag(tx, id, tag)? {
            tx.execute(
                "INSERT OR IGNORE INTO config_tag_assignments (command_id, tag_id)
                 SELECT ?1, tag_id FROM tags WHERE tag_name = ?2",
                (id, tag),
            )?;
        }
    }
    for (id, tag) in &o.remove {
        tx.execute(
            "DELETE FROM command_tags WHERE command_id = ?1
               AND tag_id = (SELECT tag_id FROM tags WHERE tag_name = ?2)
               AND EXISTS (SELECT 1 FROM config_tag_assignments a
                           WHERE a.command_id = command_tags.command_id AND a.tag_id = command_tags.tag_id)",
            (id, tag),
        )?;
    }
    Ok(())
}

/// For a read-only store: makes its tag reads show `config` applied to `commands`, as `sync`
/// would store it, without writing.
pub fn overlay(
    store: &mut Store,
    config: &TagConfig,
    commands: &[CommandItem],
) -> Result<(), Error> {
    let with_markers = store.has_table("config_tag_assignments")?;
    let p = store.read(|c| plan(c, config, commands, with_markers))?;
    store.set_overlay(Overlay {
        add: p.add,
        remove: p.remove.into_iter().collect(),
    });
    Ok(())
}

/// Brings the configured tags of `commands` in line with `config`:
/// - a command the config matches gets the tag, marked as the config's, unless it has it
///   already (then it stays the user's);
/// - a config-made assignment the config no longer matches is removed.
///
/// Only `commands` are touched, so a partial discovery (one type) never takes back the tags of
/// commands it did not look at, and commands that disappeared keep theirs until `prune`.
pub fn sync(
    store: &mut Store,
    config: &TagConfig,
    commands: &[CommandItem],
) -> Result<SyncReport, Error> {
    let first = store.read(|c| plan(c, config, commands, true))?;
    if first.add.is_empty() && first.remove.is_empty() {
        return Ok(SyncReport::default());
    }
    // Planned again under the write lock, as another process may have synced in between.
    store.write(|tx| {
        let plan = plan(tx, config, commands, true)?;
        apply(tx, &plan)?;
        Ok(SyncReport {
            added: plan.add,
            removed: plan.remove,
        })
    })
}

/// `with_markers`: `config_tag_assignments` exists (a database not yet opened for a write by
/// us may lack it; then no assignment is the config's).
fn plan(
    conn: &rusqlite::Connection,
    config: &TagConfig,
    commands: &[CommandItem],
    with_markers: bool,
) -> rusqlite::Result<Plan> {
    let mut present: HashSet<(String, String)> = HashSet::new();
    let mut ours: BTreeSet<(String, String)> = BTreeSet::new();
    {
        let mut st = conn.prepare(if with_markers {
            "SELECT ct.command_id, t.tag_name, a.command_id IS NOT NULL
             FROM command_tags ct JOIN tags t ON t.tag_id = ct.tag_id
             LEFT JOIN config_tag_assignments a ON a.command_id = ct.command_id AND a.tag_id = ct.tag_id"
        } else {
            "SELECT ct.command_id, t.tag_name, 0 FROM command_tags ct JOIN tags t ON t.tag_id = ct.tag_id"
        })?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, bool>(2)?,
            ))
        })?;
        for row in rows {
            let (id, tag, by_config) = row?;
            if by_config {
                ours.insert((id.clone(), tag.clone()));
            }
            present.insert((id, tag));
        }
    }
    let mut want: HashSet<(&str, &str)> = HashSet::new();
    let mut p = Plan::default();
    for c in commands {
        for tag in config.tags_for(c) {
            if want.insert((&c.id, tag)) && !present.contains(&(c.id.clone(), tag.to_string())) {
                p.add.push((c.id.clone(), tag.to_string()));
            }
        }
    }
    let here: HashSet<&str> = commands.iter().map(|c| c.id.as_str()).collect();
    for (id, tag) in ours {
        if here.contains(id.as_str())
            && !want.contains(&(id.as_str(), tag.as_str()))
            && !config.unreadable.contains(&tag)
        {
            p.remove.push((id, tag));
        }
    }
    Ok(p)
}

fn apply(tx: &Transaction<'_>, plan: &Plan) -> rusqlite::Result<()> {
    for (id, tag) in &plan.add {
        crate::ops::add_tag(tx, id, tag)?;
        let tag_id: Option<String> = tx
            .query_row("SELECT tag_id FROM tags WHERE tag_name = ?1", [tag], |r| {
                r.get(0)
            })
            .optional()?;
        tx.execute(
            "INSERT OR IGNORE INTO config_tag_assignments (command_id, tag_id) VALUES (?1, ?2)",
            (id, tag_id),
        )?;
    }
    for (id, tag) in &plan.remove {
        crate::ops::remove_tag(tx, id, tag)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(kind: &str, file: &str, label: &str) -> CommandItem {
        CommandItem::new(kind, Path::new(file), label, label)
    }

    #[test]
    fn patterns_match_like_upstream() {
        let build = cmd("npm", "/w/package.json", "build");
        assert!(Pattern::Id("npm:/w/package.json:build".into()).matches(&build));
        assert!(!Pattern::Id("npm:/w/package.json:buil".into()).matches(&build));
        let fields = |k: Option<&str>, l: Option<&str>| Pattern::Fields {
            kind: k.map(String::from),
            label: l.map(String::from),
            id: None,
        };
        assert!(
            fields(None, None).matches(&build),
            "{{}} matches everything"
        );
        assert!(fields(Some("npm"), None).matches(&build));
        assert!(fields(Some("npm"), Some("build")).matches(&build));
        assert!(!fields(Some("npm"), Some("test")).matches(&build));
        assert!(!fields(Some("make"), Some("build")).matches(&build));
    }

    #[test]
    fn jsonc_is_accepted_and_bad_entries_are_set_aside() {
        let text = r#"{
            // shared with the extension
            "tags": {
                "build": [{ "label": "build" }, { "type": "npm" }],
                "bad name": [{ "type": "npm" }],
                "typo": [{ "typ": "npm" }],
                "notalist": "npm",
                "ci": ["npm:/w/package.json:lint",],
            },
        }"#;
        let (cfg, warnings) = parse(Path::new("/w/.vscode/commandtree.json"), text);
        let cfg = cfg.unwrap();
        assert_eq!(
            cfg.tags.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["build", "ci"]
        );
        let mut unreadable = cfg.unreadable.clone();
        unreadable.sort();
        assert_eq!(unreadable, ["bad name", "notalist", "typo"]);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.message.contains("unknown key `typ`"))
        );
    }

    #[test]
    fn unusable_files_sync_nothing() {
        for text in ["{ \"tags\": ", "[1]", "{\"tags\": []}"] {
            let (cfg, warnings) = parse(Path::new("/w/c.json"), text);
            assert!(cfg.is_none(), "{text}");
            assert_eq!(warnings.len(), 1, "{text}");
        }
        let (cfg, warnings) = parse(Path::new("/w/c.json"), "{}");
        assert_eq!(cfg, Some(TagConfig::default()));
        assert!(warnings.is_empty());
    }
}
