//! Workspace trust for what a repository brings itself. Playbooks and command skills are files
//! of the workspace: running one sends the workspace's text to the user's LLM and may write
//! files. Like a workspace `config.toml` choosing the LLM, that needs the user's `ct trust`
//! for this workspace; until then nothing is sent and nothing is written.

use std::path::Path;

/// Whether the user ran `ct trust` here for the configuration as it is now.
pub fn is_trusted(root: &Path) -> bool {
    let hash = commandtree_core::trust::config_hash(root);
    commandtree_core::trust::list()
        .unwrap_or_default()
        .iter()
        .any(|r| r.root == root && r.config_sha256 == hash)
}

/// `Err` with the explanation when `root` is not trusted.
pub fn require(root: &Path, what: &str) -> crate::Result<()> {
    if is_trusted(root) {
        return Ok(());
    }
    Err(crate::Error::failed(format!(
        "{what} come from this workspace's own files, so they run only in a workspace you trust: \
         nothing was sent and nothing was written. Review .commandtree/ and run `ct trust` in {}",
        root.display()
    )))
}
