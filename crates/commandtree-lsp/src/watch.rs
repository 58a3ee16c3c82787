//! The live index every request answers from, `commandtree/watchFiles` and
//! `commandtree/tasksChanged`: the engine's [`Live`] index keeps the commands current (one walk
//! when it starts, none per request); after `watchFiles`, each change of the listed commands
//! becomes one notification, in the form the client negotiated.

use crate::error::*;
use crate::protocol::{self as proto, TasksChangedDelta, TasksChangedFull, TasksChangedParams};
use crate::server::{Shared, lock};
use commandtree_core::{CancelToken, CommandItem};
use commandtree_engine::{Live, LiveEvent, listing};
use lsp_types::MessageType;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// The live index, started by the first request that needs it (with the client's excludes).
pub fn live(shared: &Arc<Shared>) -> RpcResult<Arc<Live>> {
    let mut slot = lock(&shared.live);
    if let Some(l) = &*slot {
        return Ok(l.clone());
    }
    let engine = shared.engine()?;
    let show = listing::Show::of(&engine, false, false);
    // Weak: the index lives inside `Shared`, so a strong reference would keep both alive.
    let weak = Arc::downgrade(shared);
    let root = shared.root.clone();
    let delta_form = shared.delta;
    let sink = move |ev: &LiveEvent| {
        let Some(shared) = Weak::upgrade(&weak) else {
            return;
        };
        match ev {
            LiveEvent::Ready { .. } | LiveEvent::Discovered(_) => {}
            LiveEvent::Changed(change) => {
                if !shared.watching.load(Ordering::SeqCst) {
                    return;
                }
                fn listed(v: &[CommandItem], show: listing::Show) -> Vec<CommandItem> {
                    v.iter()
                        .filter(|c| listing::shown(c, show))
                        .cloned()
                        .collect()
                }
                let params = if delta_form {
                    TasksChangedParams::Delta(TasksChangedDelta {
                        workspace_root: root.clone(),
                        added: listed(&change.added, show),
                        updated: listed(&change.updated, show),
                        removed: change.removed.clone(),
                    })
                } else {
                    TasksChangedParams::Full(TasksChangedFull {
                        workspace_root: root.clone(),
                        tasks: listed(&change.all, show),
                    })
                };
                shared.send::<proto::TasksChanged>(&params);
            }
            LiveEvent::Warning(w) => shared.log(MessageType::WARNING, w.to_string()),
        }
    };
    let live = Arc::new(Live::start(engine.into_workspace(), sink));
    if let Some(why) = live.unwatched() {
        shared.log(
            MessageType::WARNING,
            format!("{why}; every request discovers afresh, and no tasksChanged is sent"),
        );
    }
    *slot = Some(live.clone());
    Ok(live)
}

/// `commandtree/watchFiles`: changes are notified from now on. Answers after the first
/// discovery, so a `discoverTasks` sent after this answer is never older than what the
/// notifications build on.
pub fn start(shared: &Arc<Shared>, cancel: &CancelToken) -> RpcResult<()> {
    shared.watching.store(true, Ordering::SeqCst);
    crate::runs::watch(shared);
    let live = live(shared)?;
    live.commands(cancel)
        .map_err(crate::handlers::discovery_error)?;
    Ok(())
}

/// Starts the live index again (new exclude globs) if it is running.
pub fn restart(shared: &Arc<Shared>) -> RpcResult<()> {
    let old = lock(&shared.live).take();
    if old.is_some() {
        // Dropped outside the lock: stopping waits for the watcher's thread, whose sink may
        // be waiting to look at `Shared`.
        drop(old);
        live(shared)?;
    }
    Ok(())
}
