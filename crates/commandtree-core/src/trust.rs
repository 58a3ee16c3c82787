//! Workspace trust. A repository someone just cloned must not choose where requests go (and with
//! which key) or which program runs. So a workspace's `.commandtree/config.toml` may set only the
//! sections in [`WORKSPACE_SAFE`] on its own; everything else it sets is honoured only after the
//! user ran `ct trust` there.
//!
//! Trust covers every file that steers the tool ([`steering_files`]): the configuration, the
//! playbooks and command skills of `.commandtree/`, and the AI definitions the definitions layer
//! reads (`.commandtree/`, `.github/`, `.claude/`, `AGENTS.md`, `CLAUDE.md`). `ct trust` records
//! the workspace root and a manifest (each file's path and SHA-256) in the user's own
//! `trusted-workspaces.toml` (beside the user `config.toml`); a file added, removed or edited
//! afterwards makes the workspace untrusted again, and [`check`] says which. The manifest is
//! computed only when a trust decision is needed (a configuration that sets keys needing trust,
//! a playbook, a command skill, `ct trust`), never for a plain listing.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Top-level sections a workspace file may set without trust: they only change what discovery
/// looks at, how the tree is sorted and how a run's output is read for problems (patterns in a
/// linear-time regex engine; a problem's file is never read, and only the user's own editor
/// opens it), never where a request goes or what runs. `[sequences]` only strings together
/// commands the workspace already has, each run through the same gate (a sequence carries the
/// warnings of every command it runs), as a Makefile target naming others does. Every other section (`[llm]`,
/// `[summaries]`, `[run]`, and any section added later) needs trust, so a new setting is safe
/// by default.
pub const WORKSPACE_SAFE: &[&str] = &["discovery", "tree", "problems", "sequences"];

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
    /// These dotted keys were ignored. `changed`: the workspace was trusted, and `why` says what
    /// changed since (or that the record is from an older version).
    Untrusted {
        ignored: Vec<String>,
        changed: bool,
        why: String,
    },
}

/// One `ct trust` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub root: PathBuf,
    /// Lowercase hex SHA-256 of the configuration text ([`config_hash`]).
    pub config_sha256: String,
    /// Every steering file's SHA-256 by its path relative to the root (`/`-separated).
    /// `None`: a record of an older version, which hashed only the configuration.
    pub files: Option<Manifest>,
}

/// Steering files by path relative to the root, `/`-separated, each with its lowercase hex
/// SHA-256 (a symbolic link: of its target's path, prefixed `link:`; it is never followed).
pub type Manifest = BTreeMap<String, String>;

/// How a steering file differs from what was trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
        }
    }
}

/// One steering file that differs from the trusted manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub kind: ChangeKind,
}

/// The trust of a workspace as a whole (its configuration and every steering file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Recorded by `ct trust` and nothing changed since.
    Trusted,
    /// No record for this root.
    NotTrusted,
    /// Trusted once; these files changed since.
    Changed(Vec<Change>),
    /// Recorded by an older version, which hashed only the configuration: trust again.
    OldRecord,
}

impl Verdict {
    pub fn is_trusted(&self) -> bool {
        matches!(self, Verdict::Trusted)
    }

    /// Why the workspace is not trusted, in one sentence fragment (`None` when it is).
    pub fn reason(&self) -> Option<String> {
        match self {
            Verdict::Trusted => None,
            Verdict::NotTrusted => Some("this workspace is not trusted".into()),
            Verdict::Changed(changes) => Some(format!(
                "the workspace changed since `ct trust`: {}",
                describe(changes)
            )),
            Verdict::OldRecord => Some(
                "the trust record is from an older version of ct, which recorded only \
                 .commandtree/config.toml and not the playbooks, command skills and AI definitions \
                 that also steer ct; run `ct trust` again after reviewing them"
                    .into(),
            ),
        }
    }
}

/// `added a, changed b, removed c` (at most 20 named, then how many more).
pub fn describe(changes: &[Change]) -> String {
    let mut parts: Vec<String> = changes
        .iter()
        .take(20)
        .map(|c| format!("{} {}", c.kind.as_str(), c.path))
        .collect();
    if changes.len() > 20 {
        parts.push(format!("and {} more", changes.len() - 20));
    }
    parts.join(", ")
}

/// What differs between a trusted manifest and the files now.
pub fn diff(trusted: &Manifest, now: &Manifest) -> Vec<Change> {
    let mut out = Vec::new();
    for (path, hash) in now {
        match trusted.get(path) {
            None => out.push(Change {
                path: path.clone(),
                kind: ChangeKind::Added,
            }),
            Some(h) if h != hash => out.push(Change {
                path: path.clone(),
                kind: ChangeKind::Changed,
            }),
            Some(_) => {}
        }
    }
    for path in trusted.keys().filter(|p| !now.contains_key(*p)) {
        out.push(Change {
            path: path.clone(),
            kind: ChangeKind::Removed,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Folders of `.commandtree/` whose Markdown files are playbooks or command skills.
const COMMANDTREE_STEERING: &[&str] = &["playbooks", "skills"];
/// The folders walked for steering files, relative to the root: `.commandtree/` and the AI
/// definition folders `commandtree_agents::parse::route` reads (only what it routes counts
/// there, so a workflow in `.github/` is not one).
const WALKED: &[&str] = &[".commandtree", ".github", ".claude"];
/// Files at the root the definitions layer reads.
const ROOT_FILES: &[&str] = &["AGENTS.md", "CLAUDE.md"];
/// Folders of `.commandtree/` that hold the tool's own state, never steering files.
const COMMANDTREE_STATE: &[&str] = &["logs", "runs", "models"];
/// A walk stops after this many entries, so a planted tree cannot make a trust check slow; the
/// manifest then says so, and it differs from any complete one.
const MAX_ENTRIES: usize = 20_000;

/// Whether `rel` (relative to the root, `/`-separated) is a file that steers the tool.
pub fn is_steering(rel: &str) -> bool {
    if rel == ".commandtree/config.toml" {
        return true;
    }
    let parts: Vec<&str> = rel.split('/').collect();
    if let [".commandtree", dir, .., last] = parts.as_slice()
        && COMMANDTREE_STEERING.contains(dir)
        && last.ends_with(".md")
    {
        return true;
    }
    commandtree_agents::parse::route(rel).is_some()
}

/// Every steering file of `root` with its hash (see [`Manifest`]). Links are recorded, not
/// followed; unreadable files are recorded as such, so they still count as present.
pub fn steering_files(root: &Path) -> Manifest {
    let mut out = Manifest::new();
    let mut seen = 0usize;
    for name in ROOT_FILES {
        record(root, name, &mut out);
    }
    for dir in WALKED {
        walk(root, dir, 0, &mut seen, &mut out);
    }
    if seen > MAX_ENTRIES {
        out.insert(
            "(more files than a trust check reads)".into(),
            seen.to_string(),
        );
    }
    out
}

fn walk(root: &Path, rel: &str, depth: usize, seen: &mut usize, out: &mut Manifest) {
    if depth > 12 || *seen > MAX_ENTRIES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return;
    };
    for e in entries.flatten() {
        *seen += 1;
        if *seen > MAX_ENTRIES {
            return;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        let child = format!("{rel}/{name}");
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            if depth == 0 && rel == ".commandtree" && COMMANDTREE_STATE.contains(&name.as_str()) {
                continue;
            }
            walk(root, &child, depth + 1, seen, out);
        } else if is_steering(&child) || (ft.is_symlink() && is_steering_dir(&child)) {
            record(root, &child, out);
        }
    }
}

/// Whether a link at `rel` could stand for a steering folder (so it is recorded, unfollowed).
fn is_steering_dir(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        [".commandtree", d] => {
            COMMANDTREE_STEERING.contains(d) || ["commands", "agents", "instructions"].contains(d)
        }
        [".github" | ".claude", _] => true,
        _ => false,
    }
}

fn record(root: &Path, rel: &str, out: &mut Manifest) {
    let path = root.join(rel);
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return;
    };
    let hash = if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&path).unwrap_or_default();
        format!(
            "link:{}",
            hex(&Sha256::digest(target.to_string_lossy().as_bytes()))
        )
    } else if meta.is_file() {
        match hash_file(&path) {
            Some(h) => h,
            None => "unreadable".into(),
        }
    } else {
        return;
    };
    out.insert(rel.to_string(), hash);
}

fn hash_file(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A FIFO named like a playbook must not hang a trust check.
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut f = o.open(path).ok()?;
    if !f.metadata().ok()?.is_file() {
        return None;
    }
    let mut h = Sha256::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = f.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Some(hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The trust of `root` as a whole, from the records and the files as they are now. An
/// unreadable record store trusts nothing.
pub fn check(root: &Path) -> Verdict {
    let records = list().unwrap_or_default();
    let Some(r) = records.iter().find(|r| r.root == root) else {
        return Verdict::NotTrusted;
    };
    let Some(files) = &r.files else {
        return Verdict::OldRecord;
    };
    let changes = diff(files, &steering_files(root));
    if changes.is_empty() {
        Verdict::Trusted
    } else {
        Verdict::Changed(changes)
    }
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
            let files = w.get("files").and_then(toml::Value::as_table).map(|t| {
                t.iter()
                    .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                    .collect::<Manifest>()
            });
            if let (Some(root), Some(hash)) = (root, hash) {
                out.push(Record {
                    root: PathBuf::from(root),
                    config_sha256: hash.to_string(),
                    files,
                });
            }
        }
    }
    Ok(out)
}

/// The status of a configuration with `sensitive` the keys it sets that need trust: trusted
/// only while the whole workspace is as `ct trust` recorded it ([`check`]; the files are
/// hashed only here, when a key needs trust).
pub fn status(root: &Path, sensitive: Vec<String>) -> Status {
    if sensitive.is_empty() {
        return Status::NotNeeded;
    }
    let verdict = check(root);
    match verdict.reason() {
        None => Status::Trusted,
        Some(why) => Status::Untrusted {
            ignored: sensitive,
            changed: !matches!(verdict, Verdict::NotTrusted),
            why,
        },
    }
}

fn save(records: &[Record]) -> Result<(), String> {
    let path = store_path()?;
    let mut text = String::from(
        "# Workspaces whose .commandtree/config.toml may choose the LLM, its key variable and\n\
         # the programs ct starts, and whose playbooks and command skills may run: each with the\n\
         # SHA-256 of every file that steers ct, as trusted. Written by `ct trust`;\n\
         # `ct trust --revoke` removes an entry.\n",
    );
    let mut list = Vec::new();
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
        if let Some(files) = &r.files {
            let files: toml::Table = files
                .iter()
                .map(|(k, v)| (k.clone(), toml::Value::String(v.clone())))
                .collect();
            t.insert("files".into(), toml::Value::Table(files));
        }
        list.push(toml::Value::Table(t));
    }
    // One document, so each record's `files` lands in its own `[workspace.files]` table.
    let mut doc = toml::Table::new();
    doc.insert("workspace".into(), toml::Value::Array(list));
    text.push('\n');
    text.push_str(&toml::to_string(&doc).map_err(|e| e.to_string())?);
    // The user's own folder (a dotfile manager may link it); the file itself is never a link
    // written through, and a crash never leaves half a file.
    commandtree_safefs::write(
        &path,
        text.as_bytes(),
        &commandtree_safefs::Options::private(),
    )
    .map_err(|e| e.to_string())
}

/// Trusts `root` as it is now: its configuration and every steering file (replacing an older
/// record of the same root).
pub fn trust(root: &Path) -> Result<Record, String> {
    let mut records = list()?;
    let rec = Record {
        root: root.to_path_buf(),
        config_sha256: config_hash(root),
        files: Some(steering_files(root)),
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
    fn a_manifest_survives_the_store_and_diffs_name_each_file() {
        let mut files = Manifest::new();
        files.insert(".commandtree/config.toml".into(), "a".repeat(64));
        files.insert(".claude/commands/x y.md".into(), "b".repeat(64));
        let records = [
            Record {
                root: PathBuf::from("/w/one"),
                config_sha256: "c".repeat(64),
                files: Some(files.clone()),
            },
            Record {
                root: PathBuf::from("/w/old"),
                config_sha256: "d".repeat(64),
                files: None,
            },
        ];
        let mut list = Vec::new();
        for r in &records {
            let mut t = toml::Table::new();
            t.insert("root".into(), r.root.to_str().unwrap().into());
            t.insert("config_sha256".into(), r.config_sha256.clone().into());
            if let Some(f) = &r.files {
                t.insert(
                    "files".into(),
                    toml::Value::Table(
                        f.iter()
                            .map(|(k, v)| (k.clone(), v.clone().into()))
                            .collect(),
                    ),
                );
            }
            list.push(toml::Value::Table(t));
        }
        let mut doc = toml::Table::new();
        doc.insert("workspace".into(), toml::Value::Array(list));
        let text = toml::to_string(&doc).unwrap();
        let back: toml::Table = text.parse().unwrap();
        let ws = back["workspace"].as_array().unwrap();
        assert_eq!(
            ws[0]["files"][".claude/commands/x y.md"].as_str(),
            Some(&*"b".repeat(64))
        );
        assert!(ws[1].get("files").is_none());

        let mut now = files.clone();
        now.insert(
            ".commandtree/playbooks/new.playbook.md".into(),
            "e".repeat(64),
        );
        now.insert(".commandtree/config.toml".into(), "f".repeat(64));
        now.remove(".claude/commands/x y.md");
        let d = diff(&files, &now);
        assert_eq!(
            describe(&d),
            "removed .claude/commands/x y.md, changed .commandtree/config.toml, added .commandtree/playbooks/new.playbook.md"
        );
    }

    #[test]
    fn steering_files_are_the_config_playbooks_skills_and_definitions() {
        for yes in [
            ".commandtree/config.toml",
            ".commandtree/playbooks/release.playbook.md",
            ".commandtree/skills/clean-up.md",
            ".commandtree/skills/api.skill.md",
            ".commandtree/commands/x.command.md",
            ".commandtree/agents/a.agent.md",
            ".claude/commands/deep/x.md",
            ".claude/agents/a.md",
            ".claude/skills/s/SKILL.md",
            ".github/prompts/p.prompt.md",
            ".github/copilot-instructions.md",
            "AGENTS.md",
            "CLAUDE.md",
        ] {
            assert!(is_steering(yes), "{yes}");
        }
        for no in [
            ".commandtree/commandtree.sqlite3",
            ".commandtree/logs/1.log",
            ".github/workflows/ci.yml",
            "docs/AGENTS.md",
            "README.md",
        ] {
            assert!(!is_steering(no), "{no}");
        }
    }

    #[test]
    fn hashes_differ_by_text_and_absence() {
        assert_ne!(hash_text(Some("")), hash_text(None));
        assert_ne!(hash_text(Some("a")), hash_text(Some("b")));
        assert_eq!(hash_text(Some("a")).len(), 64);
    }
}
