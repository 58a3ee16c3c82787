//! Workspace trust. A repository someone just cloned must not choose where requests go (and with
//! which key) or which program runs. So a workspace's `.commandtree/config.toml` may set only the
//! sections in [`WORKSPACE_SAFE`] on its own; everything else it sets is honoured only after the
//! user ran `ct trust` there, which records the workspace root and the SHA-256 of the
//! configuration's text in the user's own `trusted-workspaces.toml` (beside the user
//! `config.toml`). A configuration that changed afterwards is untrusted again.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Top-level sections a workspace file may set without trust: they only change what discovery
/// looks at and how the tree is sorted, never where a request goes or what runs. Every other
/// section (`[llm]`, `[summaries]`, `[run]`, and any section added later) needs trust, so a new
/// setting is safe by default.
pub const WORKSPACE_SAFE: &[&str] = &["discovery", "tree"];

/// The file (in the user config folder) that lists trusted workspaces.
pub const STORE_FILE: &str = "trusted-workspaces.toml";

/// The trust of one workspace's configuration.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Status {
    /// The workspace file sets nothing that needs trust (or there is no file).
    #[default]
    NotNeeded,
    /// Recorded by `ct trust` for this exact configuration: every key is honoured.
    Trusted,
    /// These dotted keys were ignored. `changed`: the workspace was trusted for another version
    /// of the file.
    Untrusted { ignored: Vec<String>, changed: bool },
}

/// One `ct trust` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub root: PathBuf,
    /// Lowercase hex SHA-256 of the configuration text ([`config_hash`]).
    pub config_sha256: String,
}

/// The workspace configuration file of `root`.
pub fn config_path(root: &Path) -> PathBuf {
    root.join(".commandtree").join("config.toml")
}

/// SHA-256 of the configuration text as it is parsed (`None`: no file, hashed as empty text).
pub fn hash_text(text: Option<&str>) -> String {
    let mut h = Sha256::new();
    match text {
        Some(t) => {
            h.update(b"config.toml\0");
            h.update(t.as_bytes());
        }
        None => h.update(b"absent\0"),
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The hash of `root`'s configuration as it is on disk now.
pub fn config_hash(root: &Path) -> String {
    let text = crate::fs::read_file(&config_path(root)).ok();
    hash_text(text.as_deref())
}

/// Splits a workspace table into what it may set alone and what needs trust.
pub fn split(table: toml::Table) -> (toml::Table, toml::Table) {
    table
        .into_iter()
        .partition(|(k, _)| WORKSPACE_SAFE.contains(&k.as_str()))
}

/// `section.key` names of every leaf of `table` (a section set to a non-table is its own name).
pub fn dotted_keys(table: &toml::Table) -> Vec<String> {
    fn walk(prefix: &str, t: &toml::Table, out: &mut Vec<String>) {
        for (k, v) in t {
            let name = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(inner) if !inner.is_empty() => walk(&name, inner, out),
                _ => out.push(name),
            }
        }
    }
    let mut out = Vec::new();
    walk("", table, &mut out);
    out
}

fn store_path() -> Result<PathBuf, String> {
    crate::settings::user_config_dir()
        .map(|d| d.join(STORE_FILE))
        .ok_or_else(|| "no user config folder: set HOME or XDG_CONFIG_HOME".to_string())
}

/// Where the trust records live (for messages).
pub fn store_location() -> Option<PathBuf> {
    store_path().ok()
}

/// Every trust record. A missing file is an empty list; a malformed one is an error (so
/// `ct trust` never overwrites a file it cannot read).
pub fn list() -> Result<Vec<Record>, String> {
    let path = store_path()?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    if let Some(list) = table.get("workspace").and_then(toml::Value::as_array) {
        for w in list {
            let root = w.get("root").and_then(toml::Value::as_str);
            let hash = w.get("config_sha256").and_then(toml::Value::as_str);
            if let (Some(root), Some(hash)) = (root, hash) {
                out.push(Record {
                    root: PathBuf::from(root),
                    config_sha256: hash.to_string(),
                });
            }
        }
    }
    Ok(out)
}

/// The status of a configuration whose text hashes to `hash`, with `sensitive` the keys it sets
/// that need trust.
pub fn status(root: &Path, hash: &str, sensitive: Vec<String>) -> Status {
    if sensitive.is_empty() {
        return Status::NotNeeded;
    }
    // An unreadable store trusts nothing.
    let records = list().unwrap_or_default();
    let mine = records.iter().find(|r| r.root == root);
    match mine {
        Some(r) if r.config_sha256 == hash => Status::Trusted,
        Some(_) => Status::Untrusted {
            ignored: sensitive,
            changed: true,
        },
        None => Status::Untrusted {
            ignored: sensitive,
            changed: false,
        },
    }
}

fn save(records: &[Record]) -> Result<(), String> {
    let path = store_path()?;
    let mut text = String::from(
        "# Workspaces whose .commandtree/config.toml may choose the LLM, its key variable and\n\
         # the programs ct starts. Written by `ct trust`; `ct trust --revoke` removes an entry.\n",
    );
    for r in records {
        let root = r
            .root
            .to_str()
            .ok_or_else(|| format!("{}: the path is not valid UTF-8", r.root.display()))?;
        let mut t = toml::Table::new();
        t.insert("root".into(), toml::Value::String(root.to_string()));
        t.insert(
            "config_sha256".into(),
            toml::Value::String(r.config_sha256.clone()),
        );
        let body = toml::to_string(&t).map_err(|e| e.to_string())?;
        text.push_str("\n[[workspace]]\n");
        text.push_str(&body);
    }
    // The user's own folder (a dotfile manager may link it); the file itself is never a link
    // written through, and a crash never leaves half a file.
    commandtree_safefs::write(
        &path,
        text.as_bytes(),
        &commandtree_safefs::Options::private(),
    )
    .map_err(|e| e.to_string())
}

/// Trusts `root`'s configuration as it is now (replacing an older record of the same root).
pub fn trust(root: &Path) -> Result<Record, String> {
    let mut records = list()?;
    let rec = Record {
        root: root.to_path_buf(),
        config_sha256: config_hash(root),
    };
    records.retain(|r| r.root != root);
    records.push(rec.clone());
    save(&records)?;
    Ok(rec)
}

/// Forgets `root`. `false`: it was not trusted.
pub fn revoke(root: &Path) -> Result<bool, String> {
    let mut records = list()?;
    let before = records.len();
    records.retain(|r| r.root != root);
    if records.len() == before {
        return Ok(false);
    }
    save(&records)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_only_safe_sections() {
        let t: toml::Table =
            "[discovery]\nexclude=[\"x\"]\n[tree]\nsort=\"name\"\n[llm]\nbase_url=\"http://e\"\napi_key_env=\"K\"\n[run]\nterminal=\"x\"\n[future]\nprogram=\"y\"\n"
                .parse()
                .unwrap();
        let (safe, sensitive) = split(t);
        assert_eq!(dotted_keys(&safe), ["discovery.exclude", "tree.sort"]);
        assert_eq!(
            dotted_keys(&sensitive),
            [
                "future.program",
                "llm.api_key_env",
                "llm.base_url",
                "run.terminal"
            ]
        );
    }

    #[test]
    fn hashes_differ_by_text_and_absence() {
        assert_ne!(hash_text(Some("")), hash_text(None));
        assert_ne!(hash_text(Some("a")), hash_text(Some("b")));
        assert_eq!(hash_text(Some("a")).len(), 64);
    }
}
