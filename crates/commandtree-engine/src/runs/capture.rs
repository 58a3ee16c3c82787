//! Runs with their output captured instead of shown: for front ends without a terminal of their
//! own to give (a server answering over stdio). The command gets no input, its stdout and stderr
//! go to one pipe (so their order is kept), and only the last `max_output` bytes are kept. A
//! timeout or a cancellation ends the command's whole process group: SIGTERM, then SIGKILL.

use super::{Planned, history_store};
use crate::{Error, Result};
use commandtree_core::{CancelToken, Workspace};
use commandtree_exec::history::{self, mode};
use commandtree_exec::process;
use commandtree_store::Store;
use std::collections::VecDeque;
use std::io::Read;
use std::process::Stdio;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// How long a command may take to end after SIGTERM before it gets SIGKILL.
const GRACE: Duration = Duration::from_secs(2);
/// How long the output is still read after the command ended: a process it left in the
/// background may hold the pipe open for ever.
const DRAIN: Duration = Duration::from_millis(500);

/// Limits of a captured run.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// End the command after this long.
    pub timeout: Option<Duration>,
    /// Keep at most this many bytes of output (the end of it).
    pub max_output: usize,
}

/// How a captured run ended.
#[derive(Debug, Clone)]
pub struct Captured {
    pub run_id: Option<i64>,
    /// The command's process (and process group) id.
    pub pid: u32,
    /// The exit code (128 + N for signal N).
    pub code: i32,
    pub duration: Duration,
    /// The end of the output, stdout and stderr interleaved, decoded as UTF-8 (invalid bytes
    /// replaced).
    pub output: String,
    /// How many bytes of output came before the part kept.
    pub dropped_bytes: u64,
    /// The timeout ended it.
    pub timed_out: bool,
    /// A cancellation ended it.
    pub cancelled: bool,
    /// The history could not be written: why.
    pub history_warning: Option<String>,
}

#[derive(Default)]
struct Tail {
    kept: VecDeque<u8>,
    dropped: u64,
}

impl Tail {
    fn push(&mut self, bytes: &[u8], max: usize) {
        self.kept.extend(bytes);
        if self.kept.len() > max {
            let extra = self.kept.len() - max;
            self.kept.drain(..extra);
            self.dropped += extra as u64;
        }
    }
}

/// Runs `p` without a terminal, capturing its output, and records it in the history like a
/// foreground run. Returns when it ends, times out or `cancel` is cancelled.
pub fn run_captured(
    ws: &Workspace,
    store: &mut Option<Store>,
    p: &Planned,
    opts: &CaptureOptions,
    cancel: &CancelToken,
) -> Result<Captured> {
    let mut warn = history_store(ws, store).err();
    let cwd = p.runnable.cwd.to_string_lossy().into_owned();
    let cannot = |e: std::io::Error| Error::failed(format!("cannot start `{}`: {e}", p.item.label));
    let (mut reader, writer) = std::io::pipe().map_err(cannot)?;
    let mut cmd = process::command(&p.runnable);
    cmd.stdin(Stdio::null())
        .stdout(writer.try_clone().map_err(cannot)?)
        .stderr(writer);
    // A group of its own, so a timeout ends everything the command started.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let started = Instant::now();
    let mut child = cmd.spawn().map_err(cannot)?;
    // The parent's copies of the write end must go, or the reader never sees the end.
    drop(cmd);
    let pid = child.id();
    let run_id = match store.as_mut() {
        Some(s) => match history::start(s, &p.new_run(mode::FOREGROUND, &cwd, Some(pid))) {
            Ok(id) => {
                super::record_foreground(ws, id, pid);
                Some(id)
            }
            Err(e) => {
                warn = Some(format!("the run history was not updated: {e}"));
                None
            }
        },
        None => None,
    };

    let tail = Arc::new(Mutex::new(Tail::default()));
    let (eof_tx, eof_rx) = mpsc::channel::<()>();
    {
        let tail = Arc::clone(&tail);
        let max = opts.max_output;
        std::thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => tail
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(&buf[..n], max),
                }
            }
            let _ = eof_tx.send(());
        });
    }

    let mut timed_out = false;
    let mut cancelled = false;
    let mut term_sent: Option<Instant> = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {}
            Err(e) => return Err(Error::failed(format!("`{}`: {e}", p.item.label))),
        }
        let now = Instant::now();
        match term_sent {
            None => {
                if opts
                    .timeout
                    .is_some_and(|t| now.duration_since(started) >= t)
                {
                    timed_out = true;
                } else if cancel.is_cancelled() {
                    cancelled = true;
                }
                if timed_out || cancelled {
                    let _ = process::signal_group(pid as i64, false);
                    term_sent = Some(now);
                }
            }
            Some(at) if now.duration_since(at) >= GRACE => {
                let _ = process::signal_group(pid as i64, true);
                let _ = child.kill();
            }
            Some(_) => {}
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let duration = started.elapsed();
    let (code, signaled) = process::exit_code(status);
    let _ = eof_rx.recv_timeout(DRAIN);
    let (output, dropped_bytes) = {
        let t = tail.lock().unwrap_or_else(|e| e.into_inner());
        let bytes: Vec<u8> = t.kept.iter().copied().collect();
        (String::from_utf8_lossy(&bytes).into_owned(), t.dropped)
    };
    if let Some(id) = run_id {
        crate::supervisor::cleanup(&crate::supervisor::RunFiles::new(&ws.root, &id.to_string()));
    }
    if let (Some(s), Some(id)) = (store.as_mut(), run_id) {
        let status = if timed_out || cancelled {
            history::status::STOPPED
        } else {
            history::status_for(code, signaled)
        };
        if let Err(e) = history::finish(s, id, code, Some(duration.as_millis() as i64), status) {
            warn = Some(format!("the run history was not updated: {e}"));
        }
    }
    Ok(Captured {
        run_id,
        pid,
        code,
        duration,
        output,
        dropped_bytes,
        timed_out,
        cancelled,
        history_warning: warn,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::{self, RunRequest, Target};
    use crate::{Engine, LoadOptions};
    use std::path::{Path, PathBuf};

    /// A workspace by its real path, removed when the returned guard is dropped.
    fn workspace(name: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("ct-capture-{name}-"))
            .tempdir()
            .unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        (dir, real)
    }

    fn script(root: &Path, rel: &str, body: &str) {
        let p = root.join(rel);
        std::fs::write(&p, body).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn run(root: &Path, name: &str, opts: CaptureOptions, cancel: &CancelToken) -> Captured {
        let engine = Engine::open(Some(root), root).unwrap();
        let mut loaded = engine.load(&LoadOptions::default()).unwrap();
        let sel = runs::select(
            &loaded,
            RunRequest {
                target: Target::Query(name.into()),
                values: Default::default(),
                extra: Vec::new(),
                debug: false,
            },
        )
        .unwrap();
        let planned = runs::plan(engine.workspace(), &sel, None).unwrap();
        run_captured(
            engine.workspace(),
            &mut loaded.store,
            &planned,
            &opts,
            cancel,
        )
        .unwrap()
    }

    #[test]
    fn keeps_the_end_of_both_streams_and_the_exit_code() {
        let (_scratch, w) = workspace("tail");
        script(
            &w,
            "noisy.sh",
            "#!/bin/sh\necho first; echo err >&2; i=0; while [ $i -lt 200 ]; do echo line$i; i=$((i+1)); done; echo last; exit 3\n",
        );
        let opts = CaptureOptions {
            timeout: None,
            max_output: 40,
        };
        let c = run(&w, "noisy.sh", opts, &CancelToken::new());
        assert_eq!(c.code, 3);
        assert!(c.output.ends_with("line199\nlast\n"), "{:?}", c.output);
        assert_eq!(c.output.len(), 40);
        assert!(c.dropped_bytes > 0);
        assert!(!c.timed_out && !c.cancelled);
        let small = CaptureOptions {
            timeout: None,
            max_output: 1 << 20,
        };
        let c = run(&w, "noisy.sh", small, &CancelToken::new());
        assert!(
            c.output.starts_with("first\nerr\nline0\n"),
            "{:?}",
            c.output
        );
        assert_eq!(c.dropped_bytes, 0);
        // Recorded in the history like a foreground run.
        let engine = Engine::open(Some(&w), &w).unwrap();
        let mut store = engine.load(&LoadOptions::default()).unwrap().store;
        let h = runs::history(engine.workspace(), &mut store, 10).unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].exit_code, Some(3));
    }

    #[test]
    fn a_timeout_ends_the_whole_process_group() {
        let (_scratch, w) = workspace("timeout");
        // The background child would keep the pipe open if it were not ended with the group.
        script(
            &w,
            "hang.sh",
            "#!/bin/sh\necho started\nsleep 300 &\nsleep 300\n",
        );
        let opts = CaptureOptions {
            timeout: Some(Duration::from_millis(300)),
            max_output: 1024,
        };
        let c = run(&w, "hang.sh", opts, &CancelToken::new());
        assert!(c.timed_out);
        assert_eq!(c.code, 128 + libc::SIGTERM);
        assert_eq!(c.output, "started\n");
        // The background `sleep` was in the group too; it is gone once it has been reaped.
        let until = Instant::now() + Duration::from_secs(30);
        while process::group_alive(c.pid as i64) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!process::group_alive(c.pid as i64));
    }

    #[test]
    fn a_cancellation_stops_it() {
        let (_scratch, w) = workspace("cancel");
        script(&w, "wait.sh", "#!/bin/sh\nsleep 300\n");
        let cancel = CancelToken::new();
        cancel.cancel();
        let opts = CaptureOptions {
            timeout: None,
            max_output: 1024,
        };
        let c = run(&w, "wait.sh", opts, &cancel);
        assert!(c.cancelled);
        assert_ne!(c.code, 0);
    }
}
