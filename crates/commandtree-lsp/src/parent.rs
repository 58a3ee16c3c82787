//! Ending the server with its editor: LSP asks a server to exit when the process that started
//! it is gone, so a crashed editor does not leave servers (and their watchers) behind.

use commandtree_engine::supervisor::ProcessId;
use std::time::Duration;

/// How often the editor's process is looked at; a leftover server costs little for this long.
const EVERY: Duration = Duration::from_secs(2);

/// Ends this process with status 1 once `pid` is gone (or is no longer the same process: the
/// pid reused by another). Where a process's identity cannot be read (no /proc), nothing is
/// watched: closing stdin still ends the server.
pub fn exit_when_gone(pid: u32) {
    let recorded = ProcessId::current(i64::from(pid));
    if recorded.start.is_none() {
        return;
    }
    std::thread::Builder::new()
        .name("lsp-client-watch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(EVERY);
                if !recorded.still_same() {
                    std::process::exit(1);
                }
            }
        })
        .ok();
}
