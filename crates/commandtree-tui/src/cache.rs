//! The tree as it was when this workspace was last open, kept in the user's cache
//! (`$XDG_CACHE_HOME/commandtree/tui/`, else `~/.cache/commandtree/tui/`), so the next start
//! draws it at once while discovery runs: walking a big tree takes a second or more. The
//! snapshot only shows: until discovery answers, nothing runs and nothing is written from it.
//! It is the user's own file, never the workspace's, so opening an untrusted workspace still
//! writes nothing into it.

use commandtree_core::CommandItem;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Bumped when the file's shape changes; another version is ignored (and replaced).
const VERSION: u32 = 1;
/// A snapshot larger than this is not read (no tree of commands comes near it).
const MAX_BYTES: u64 = 256 << 20;

#[derive(Serialize, Deserialize)]
struct Snapshot {
    version: u32,
    root: PathBuf,
    commands: Vec<Entry>,
}

/// A command with the fields the JSON contract leaves out and the tree needs.
#[derive(Serialize, Deserialize)]
struct Entry {
    c: CommandItem,
    #[serde(default)]
    private: bool,
    #[serde(default)]
    auxiliary: bool,
    #[serde(default)]
    hidden: bool,
    #[serde(default)]
    group: Option<String>,
}

fn cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = env("XDG_CACHE_HOME")
        .or_else(|| env("HOME").map(|h| h.join(".cache")))
        .or_else(|| env("LOCALAPPDATA"))?;
    Some(base.join("commandtree").join("tui"))
}

/// One file per workspace root.
fn file_for(dir: &Path, root: &Path) -> PathBuf {
    let digest = Sha256::digest(root.to_string_lossy().as_bytes());
    let name: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{name}.json"))
}

/// The commands saved for `root`, if any (a missing, unreadable, foreign or other-version file
/// is no snapshot).
pub fn read(root: &Path) -> Option<Vec<CommandItem>> {
    read_in(&cache_dir()?, root)
}

/// Saves `commands` as `root`'s snapshot.
pub fn write(root: &Path, commands: &[CommandItem]) -> std::io::Result<()> {
    let dir = cache_dir().ok_or_else(|| std::io::Error::other("no cache folder"))?;
    write_in(&dir, root, commands)
}

fn read_in(dir: &Path, root: &Path) -> Option<Vec<CommandItem>> {
    let path = file_for(dir, root);
    if std::fs::metadata(&path).ok()?.len() > MAX_BYTES {
        return None;
    }
    let bytes = std::fs::read(&path).ok()?;
    let snap: Snapshot = serde_json::from_slice(&bytes).ok()?;
    if snap.version != VERSION || snap.root != root {
        return None;
    }
    Some(
        snap.commands
            .into_iter()
            .map(|e| CommandItem {
                private: e.private,
                auxiliary: e.auxiliary,
                hidden: e.hidden,
                group: e.group,
                ..e.c
            })
            .collect(),
    )
}

/// Written beside the snapshot under a random name and renamed over it, so a reader never sees
/// half a file. Only the user can read the folder and the file.
fn write_in(dir: &Path, root: &Path, commands: &[CommandItem]) -> std::io::Result<()> {
    let path = file_for(dir, root);
    let snap = Snapshot {
        version: VERSION,
        root: root.to_path_buf(),
        commands: commands
            .iter()
            .map(|c| Entry {
                private: c.private,
                auxiliary: c.auxiliary,
                hidden: c.hidden,
                group: c.group.clone(),
                c: c.clone(),
            })
            .collect(),
    };
    let mut out = std::io::BufWriter::new(commandtree_safefs::Pending::replace(
        &path,
        &commandtree_safefs::Options::private(),
    )?);
    serde_json::to_writer(&mut out, &snap)?;
    out.into_inner().map_err(|e| e.into_error())?.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder, removed when the returned guard is dropped.
    fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::Builder::new()
            .prefix(&format!("ct-tui-cache-{name}-"))
            .tempdir()
            .unwrap();
        let path = d.path().to_path_buf();
        (d, path)
    }

    #[test]
    fn a_snapshot_comes_back_with_the_fields_the_contract_leaves_out() {
        let (_scratch, d) = scratch("roundtrip");
        let root = d.join("ws");
        let mut c = CommandItem::new("just", &root.join("justfile"), "build", "just build");
        c.auxiliary = true;
        c.hidden = true;
        c.private = true;
        c.group = Some("ci".into());
        c.tags = vec!["quick".into()];
        let dir = d.join("cache");
        write_in(&dir, &root, std::slice::from_ref(&c)).unwrap();
        assert_eq!(read_in(&dir, &root), Some(vec![c]));
    }

    #[test]
    fn another_root_or_a_damaged_file_is_no_snapshot() {
        let (_scratch, d) = scratch("other");
        let (a, b) = (d.join("a"), d.join("b"));
        let c = CommandItem::new("shell", &a.join("x.sh"), "x.sh", "./x.sh");
        let dir = d.join("cache");
        write_in(&dir, &a, std::slice::from_ref(&c)).unwrap();
        assert!(read_in(&dir, &a).is_some());
        assert!(read_in(&dir, &b).is_none());
        std::fs::write(file_for(&dir, &a), b"{\"version\":1,\"root\":").unwrap();
        assert!(read_in(&dir, &a).is_none());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
    }
}
