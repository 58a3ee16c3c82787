//! Workspace trust for what a repository brings itself. Playbooks and command skills are files
//! of the workspace: running one sends the workspace's text to the user's LLM and may write
//! files. Like a workspace `config.toml` choosing the LLM, that needs the user's `ct trust`
//! for this workspace as it is now (every steering file, see `commandtree_core::trust`); until
//! then nothing is sent and nothing is written.

use commandtree_core::trust::{self, Verdict};
use std::path::Path;

/// [`Error::Untrusted`](crate::Error::Untrusted) with the explanation (what changed, when
/// something did) when `root` is not trusted. The [`Session`](crate::Session) checks it before
/// it runs a playbook or a command skill.
pub(crate) fn require(root: &Path, what: &str) -> crate::Result<()> {
    let verdict = trust::check(root);
    let Some(why) = verdict.reason() else {
        return Ok(());
    };
    let review = match verdict {
        Verdict::Changed(_) => "Review those files",
        _ => "Review .commandtree/ and the AI definition folders",
    };
    Err(crate::Error::Untrusted(format!(
        "{what} come from this workspace's own files, so they run only in a workspace you trust, \
         and {why}: nothing was sent and nothing was written. {review} and run `ct trust` in {}",
        root.display()
    )))
}
