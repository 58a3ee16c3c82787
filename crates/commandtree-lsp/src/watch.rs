//! `commandtree/watchFiles` and `commandtree/tasksChanged`: the engine's [`Watcher`] keeps the
//! commands current; each batch that changed a command becomes one notification, in the form
//! the client negotiated.

use crate::error::*;
use crate::server::{Shared, lock};
use commandtree_core::{CommandItem, classify};
use commandtree_engine::{WatchEvent, WatchOptions, Watcher};
use lsp_types::MessageType;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::{Arc, Weak, mpsc};
use std::time::Duration;

/// How long `watchFiles` waits for the watcher's first discovery before answering anyway.
const READY_WAIT: Duration = Duration::from_secs(120);

/// Starts the watcher once. Answers after its first discovery, so a `discoverTasks` sent after
/// this answer is never older than what the deltas build on.
pub fn start(shared: &Arc<Shared>) -> RpcResult {
    let mut slot = lock(&shared.watcher);
    if slot.is_some() {
        return Ok(Value::Null);
    }
    let engine = shared.engine()?;
    let show_all = engine.workspace().settings.show_all;
    let (ready_tx, ready_rx) = mpsc::channel();
    // Weak: the watcher lives inside `Shared`, so a strong reference would keep both alive.
    let weak = Arc::downgrade(shared);
    let root = shared.root.clone();
    let delta_form = shared.delta;
    let mut all: Vec<CommandItem> = Vec::new();
    let sink = move |ev: WatchEvent| {
        let Some(shared) = Weak::upgrade(&weak) else {
            return;
        };
        match ev {
            WatchEvent::Ready { commands, .. } => {
                all = commands;
                let _ = ready_tx.send(());
            }
            WatchEvent::Changed { delta, .. } => {
                if delta.added.is_empty() && delta.updated.is_empty() && delta.removed.is_empty() {
                    return;
                }
                let removed: HashSet<&str> = delta.removed.iter().map(String::as_str).collect();
                all.retain(|c| !removed.contains(c.id.as_str()));
                for u in &delta.updated {
                    match all.iter_mut().find(|c| c.id == u.id) {
                        Some(c) => *c = u.clone(),
                        None => all.push(u.clone()),
                    }
                }
                all.extend(delta.added.iter().cloned());
                let listed = |v: &[CommandItem]| classify::visible(v.to_vec(), show_all).0;
                let params = if delta_form {
                    json!({
                        "workspaceRoot": root,
                        "added": listed(&delta.added),
                        "updated": listed(&delta.updated),
                        "removed": delta.removed,
                    })
                } else {
                    json!({"workspaceRoot": root, "tasks": listed(&all)})
                };
                shared.notify("commandtree/tasksChanged", params);
            }
            WatchEvent::Warning(w) => shared.log(MessageType::WARNING, w.to_string()),
        }
    };
    let watcher = Watcher::start(engine.into_workspace(), WatchOptions::default(), sink)
        .map_err(|e| RpcError::new(DISCOVERY_FAILED, e.to_string()))?;
    *slot = Some(watcher);
    drop(slot);
    let _ = ready_rx.recv_timeout(READY_WAIT);
    Ok(Value::Null)
}
