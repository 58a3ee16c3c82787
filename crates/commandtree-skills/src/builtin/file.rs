//! `@file --action read|write|delete --path P [--content TEXT] [--yes]`: files inside the
//! workspace root only. A path that resolves outside it (`..`, an absolute path elsewhere, a
//! symbolic link leading out) is an error; reads follow the core rules (regular files, at most
//! 1 MiB, no binary); writes are atomic; writing and deleting ask first unless `--yes`.
//!
//! Some files inside the root are never touched, whatever the invocation says (see
//! [`protected`]): git's folder (its config and hooks name programs git runs) and
//! CommandTree's own control files (`.commandtree/`, its settings in `.vscode/`, the user's
//! configuration and trust records).

use crate::params::{self, ParamKind, ParamSpec, Params};
use crate::{Error, Host, LlmSkill, Result, SkillApi};
use std::path::{Component, Path, PathBuf};

pub struct File;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "action",
        ParamKind::Enum(&["read", "write", "delete"]),
        true,
        "What to do.",
    ),
    ParamSpec::new(
        "path",
        ParamKind::String,
        true,
        "The file, relative to the workspace root (or absolute inside it).",
    ),
    ParamSpec::new(
        "content",
        ParamKind::String,
        false,
        "The new content (write).",
    ),
    ParamSpec::new(
        "yes",
        ParamKind::Bool,
        false,
        "Write or delete without asking.",
    ),
];

impl LlmSkill for File {
    fn name(&self) -> &'static str {
        "file"
    }
    fn description(&self) -> &'static str {
        "Read, write and delete files inside the workspace."
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn execute(&self, _api: &dyn SkillApi, host: &Host<'_>, p: &Params) -> Result<String> {
        let action = params::string(p, "action").ok_or_else(|| params::missing("action"))?;
        let raw = params::string(p, "path").ok_or_else(|| params::missing("path"))?;
        let path = confine(host.root(), raw)?;
        let shown = raw.trim();
        if let Some(why) = protected(host.root(), &path) {
            return Err(Error::invalid(format!(
                "Missing or invalid path: `{shown}` is {why}; the file skill never reads, writes \
                 or deletes it"
            )));
        }
        let yes = p.get("yes").and_then(|v| v.as_bool()).unwrap_or(false);
        let confirm = |q: String| {
            if yes { Ok(()) } else { host.confirm(&q) }
        };
        match action {
            "read" => commandtree_core::fs::read_file(&path)
                .map_err(|e| Error::failed(format!("{shown}: {e}"))),
            "write" => {
                let content =
                    params::string(p, "content").ok_or_else(|| params::missing("content"))?;
                let verb = if path.exists() { "Overwrite" } else { "Create" };
                confirm(format!("{verb} {shown} ({} bytes)?", content.len()))?;
                // The error names the path.
                write_atomic(Some(host.root()), &path, content.as_bytes())
                    .map_err(|e| Error::failed(e.to_string()))?;
                Ok(format!("Wrote {} bytes to {shown}", content.len()))
            }
            "delete" => {
                let meta = std::fs::symlink_metadata(&path)
                    .map_err(|e| Error::failed(format!("{shown}: {e}")))?;
                if !meta.is_file() {
                    return Err(Error::failed(format!("{shown}: not a regular file")));
                }
                confirm(format!("Delete {shown}?"))?;
                std::fs::remove_file(&path).map_err(|e| Error::failed(format!("{shown}: {e}")))?;
                Ok(format!("Deleted {shown}"))
            }
            other => Err(params::missing(&format!("action `{other}`"))),
        }
    }
}

/// `raw` as a path inside `root` (a real path), or an error. Checked twice: lexically (`..`
/// cannot climb out) and on disk (the deepest existing ancestor, links resolved, is inside).
pub fn confine(root: &Path, raw: &str) -> Result<PathBuf> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(params::missing("path"));
    }
    let outside = || {
        Error::invalid(format!(
            "Missing or invalid path: `{raw}` is outside the workspace root {}",
            root.display()
        ))
    };
    let joined = root.join(raw);
    let mut clean = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                if !clean.pop() {
                    return Err(outside());
                }
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    if !clean.starts_with(root) || clean == root {
        return Err(outside());
    }
    let real_root = std::fs::canonicalize(root)
        .map_err(|e| Error::failed(format!("{}: {e}", root.display())))?;
    let mut probe = clean.as_path();
    loop {
        if std::fs::symlink_metadata(probe).is_ok() {
            let real = std::fs::canonicalize(probe).map_err(|_| outside())?;
            if !real.starts_with(&real_root) {
                return Err(outside());
            }
            break;
        }
        probe = probe.parent().ok_or_else(outside)?;
    }
    Ok(clean)
}

/// Why the file skill must leave `path` (a path inside `root`, as [`confine`] returns it)
/// alone, or `None`. Checked on the path as given and on its real path (the deepest existing
/// folder with its links resolved), and case-insensitively, so neither `..`, nor a linked
/// folder, nor `.GIT` on a case-insensitive file system reaches one:
///
/// - any `.git` component: git runs what `.git/config` (`core.fsmonitor`, `core.pager`...) and
///   `.git/hooks/` name, so a write there is code the next `git status` executes;
/// - `.commandtree/` at the root: CommandTree's configuration, playbooks, command skills,
///   definitions, database, run files and logs;
/// - `.vscode/settings.json` and `.vscode/commandtree.json`: CommandTree's settings and tag
///   configuration in the editor's files;
/// - the user's CommandTree folders (configuration, trust records, cache), when the root holds
///   them (a workspace opened at the home folder).
pub fn protected(root: &Path, path: &Path) -> Option<String> {
    let lexical = path.strip_prefix(root).ok().map(Path::to_path_buf);
    let real_root = std::fs::canonicalize(root).ok();
    let real = real_path(path);
    let real_rel = match (&real, &real_root) {
        (Some(r), Some(root)) => r.strip_prefix(root).ok().map(Path::to_path_buf),
        _ => None,
    };
    for rel in [lexical, real_rel].into_iter().flatten() {
        if let Some(why) = control_file(&rel) {
            return Some(why.to_string());
        }
    }
    let user_dirs = [
        commandtree_core::settings::user_config_dir(),
        std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .map(|c| c.join("commandtree")),
    ];
    for dir in user_dirs.into_iter().flatten() {
        let real_dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        if real.as_deref().unwrap_or(path).starts_with(&real_dir) || path.starts_with(&real_dir) {
            return Some(
                "in your own CommandTree folder (configuration, trust records, cache)".into(),
            );
        }
    }
    None
}

/// The rule of [`protected`] for a path relative to the root.
fn control_file(rel: &Path) -> Option<&'static str> {
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect();
    if parts.iter().any(|p| p == ".git") {
        return Some("inside .git/, whose configuration and hooks name programs git runs");
    }
    match parts.as_slice() {
        [first, ..] if first == ".commandtree" => Some(
            "in .commandtree/, CommandTree's own folder (configuration, playbooks, skills, \
             database, run files)",
        ),
        [vscode, file]
            if vscode == ".vscode" && (file == "settings.json" || file == "commandtree.json") =>
        {
            Some("CommandTree's settings in .vscode/")
        }
        _ => None,
    }
}

/// `path` with the links of its deepest existing ancestor resolved (the rest appended).
fn real_path(path: &Path) -> Option<PathBuf> {
    let mut rest = Vec::new();
    let mut probe = path;
    loop {
        if std::fs::symlink_metadata(probe).is_ok() {
            let mut real = std::fs::canonicalize(probe).ok()?;
            for part in rest.iter().rev() {
                real.push(part);
            }
            return Some(real);
        }
        rest.push(probe.file_name()?.to_os_string());
        probe = probe.parent()?;
    }
}

/// Written beside the target under a random name and renamed over it, so a reader never sees
/// half a file; the file keeps its permissions. A link or anything but a regular file at
/// `path` is refused, never written through or waited on, and under `root` no folder on the
/// way may be a link (`commandtree_safefs`).
pub fn write_atomic(root: Option<&Path>, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let o = commandtree_safefs::Options::new();
    let o = match root {
        Some(r) => o.within(r),
        None => o,
    };
    commandtree_safefs::write(path, bytes, &o)
}
