//! Rerun on change: the commands the user asked to run again when their files change (`W`),
//! each with the engine's watch of what it depends on (`rerun::Watching`, the rules of `ct run
//! --watch`) and the warnings confirmed for it. A change comes back to the app as a message;
//! the app reruns the command in the background, through the gate, as a restart of its newest
//! run (same values). The tree's mark comes from [`RunState`](super::running::RunState).

use commandtree_engine::rerun::Watching;
use commandtree_exec::history::Run;
use std::collections::HashMap;

struct Entry {
    watch: Watching,
    /// The warnings the user said yes to for it (`None`: it had none): a rerun whose command
    /// now has others asks again.
    confirmed: Option<Vec<String>>,
    /// Its newest run as last seen (id, going on): when it is seen ended, what changes then is
    /// the run's own work (what changes as a rerun starts is dropped by the watch itself).
    seen: Option<(i64, bool)>,
    /// A change came while a popup was open: rerun once it closes.
    due: bool,
}

#[derive(Default)]
pub struct Reruns {
    on: HashMap<String, Entry>,
}

impl Reruns {
    pub fn add(&mut self, id: String, watch: Watching, confirmed: Option<Vec<String>>) {
        self.on.insert(
            id,
            Entry {
                watch,
                confirmed,
                seen: None,
                due: false,
            },
        );
    }

    /// Stops watching `id`; whether it was watched.
    pub fn remove(&mut self, id: &str) -> bool {
        self.on.remove(id).is_some()
    }

    pub fn is_on(&self, id: &str) -> bool {
        self.on.contains_key(id)
    }

    /// The folders watched for `id`.
    pub fn folders(&self, id: &str) -> usize {
        self.on.get(id).map_or(0, |e| e.watch.folders().len())
    }

    /// Whether `lines` are the warnings confirmed for `id` (no warnings always are).
    pub fn confirmed(&self, id: &str, lines: Option<&Vec<String>>) -> bool {
        lines.is_none()
            || self
                .on
                .get(id)
                .is_some_and(|e| e.confirmed.as_ref() == lines)
    }

    pub fn set_confirmed(&mut self, id: &str, lines: Option<Vec<String>>) {
        if let Some(e) = self.on.get_mut(id) {
            e.confirmed = lines;
        }
    }

    /// The newest run of each watched command, as just read: when one has ended since, the
    /// changes of the next moments are dropped. Whether any was.
    pub fn seen(&mut self, latest: impl Fn(&str) -> Option<(i64, bool)>) -> bool {
        let mut settled = false;
        for (id, e) in &mut self.on {
            let now = latest(id);
            if let Some((_, false)) = now
                && now != e.seen
            {
                e.watch.settle();
                settled = true;
            }
            e.seen = now;
        }
        settled
    }

    /// Marks `id` to rerun when no popup is open.
    pub fn postpone(&mut self, id: &str) {
        if let Some(e) = self.on.get_mut(id) {
            e.due = true;
        }
    }

    /// The commands whose rerun waited for a popup to close.
    pub fn take_due(&mut self) -> Vec<String> {
        let mut out: Vec<String> = self
            .on
            .iter_mut()
            .filter_map(|(id, e)| std::mem::take(&mut e.due).then(|| id.clone()))
            .collect();
        out.sort();
        out
    }
}

/// A run's identity and whether it goes on, for [`Reruns::seen`].
pub fn run_mark(r: &Run) -> (i64, bool) {
    (r.run_id, !commandtree_engine::runs::is_over(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use commandtree_core::Workspace;

    /// A scratch folder for the watched workspaces, removed when dropped (after the watchers,
    /// when it is made first).
    fn scratch() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("ct-tui-rerun-")
            .tempdir()
            .unwrap()
    }

    /// A watch on the workspace `name` of `scratch`.
    fn watch(scratch: &tempfile::TempDir, name: &str) -> Watching {
        let root = scratch.path().join(name);
        std::fs::create_dir_all(&root).unwrap();
        let ws = Workspace::open(Some(&root), &root);
        Watching::start(&ws, vec![root], |_| {}).unwrap()
    }

    #[test]
    fn warnings_confirmed_once_are_not_asked_again_until_they_change() {
        let scratch = scratch();
        let mut r = Reruns::default();
        let lines = vec!["runs `rm -rf`".to_string()];
        r.add("a".into(), watch(&scratch, "a"), Some(lines.clone()));
        r.add("b".into(), watch(&scratch, "b"), None);
        assert!(r.is_on("a") && r.is_on("b") && !r.is_on("c"));
        assert!(r.confirmed("a", Some(&lines)));
        assert!(r.confirmed("b", None), "nothing to confirm");
        let other = vec!["writes outside the project".to_string()];
        assert!(!r.confirmed("a", Some(&other)), "new warnings ask again");
        assert!(!r.confirmed("b", Some(&other)));
        r.set_confirmed("b", Some(other.clone()));
        assert!(r.confirmed("b", Some(&other)));
        assert!(
            !r.confirmed("c", Some(&other)),
            "not watched: never confirmed"
        );
        assert_eq!(r.folders("a"), 1);
        assert!(r.remove("a"));
        assert!(!r.remove("a"));
    }

    #[test]
    fn a_rerun_waits_for_a_popup_once() {
        let scratch = scratch();
        let mut r = Reruns::default();
        r.add("a".into(), watch(&scratch, "due"), None);
        assert!(r.take_due().is_empty());
        r.postpone("a");
        r.postpone("gone");
        assert_eq!(r.take_due(), ["a"]);
        assert!(r.take_due().is_empty());
        assert!(!r.seen(|_| Some((3, true))), "a run going on");
        assert!(r.seen(|_| Some((3, false))), "it ended");
        assert!(!r.seen(|_| Some((3, false))), "seen ended before");
        assert!(!r.seen(|_| None));
    }
}
