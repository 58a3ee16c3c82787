//! `@file --action read|write|delete --path P [--content TEXT] [--yes]`: files inside the
//! workspace root only. A path that resolves outside it (`..`, an absolute path elsewhere, a
//! symbolic link leading out) is an error; reads follow the core rules (regular files, at most
//! 1 MiB, no binary); writes are atomic; writing and deleting ask first unless `--yes`.

use crate::params::{self, ParamKind, ParamSpec, Params};
use crate::{Error, Host, Result, Skill, SkillApi};
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

impl Skill for File {
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
