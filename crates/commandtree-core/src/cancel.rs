//! The one progress and cancellation convention of every slow operation (discovery of a big
//! tree, summaries, embeddings, runs, LLM requests): the caller passes a [`CancelToken`] and a
//! [`Progress`] sink; the operation checks the token between steps and reports what it did.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

type Hook = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    next_id: AtomicU64,
    /// Run once on cancel: a request in flight registers how to interrupt its socket, so a
    /// blocked read returns at once instead of waiting for the server or a timeout.
    hooks: Mutex<Vec<(u64, Hook)>>,
    wake: Condvar,
}

/// A cheap, clonable flag. Clones share state; cancelling any clone cancels all.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CancelToken(cancelled: {})", self.is_cancelled())
    }
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        if self.inner.cancelled.swap(true, Ordering::SeqCst) {
            return;
        }
        let hooks = std::mem::take(&mut *lock(&self.inner.hooks));
        for (_, hook) in hooks {
            hook();
        }
        self.inner.wake.notify_all();
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Sleeps for `d` or until cancelled. Returns false when cancelled.
    pub fn sleep(&self, d: Duration) -> bool {
        let guard = lock(&self.inner.hooks);
        let (_guard, _) = self
            .inner
            .wake
            .wait_timeout_while(guard, d, |_| !self.is_cancelled())
            .unwrap_or_else(|e| e.into_inner());
        !self.is_cancelled()
    }

    /// Runs `hook` when the token is cancelled while the returned guard lives (at once when it
    /// already is).
    pub fn on_cancel(&self, hook: impl FnOnce() + Send + 'static) -> HookGuard<'_> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut hooks = lock(&self.inner.hooks);
        if self.is_cancelled() {
            drop(hooks);
            hook();
        } else {
            hooks.push((id, Box::new(hook)));
        }
        HookGuard { token: self, id }
    }
}

pub struct HookGuard<'a> {
    token: &'a CancelToken,
    id: u64,
}

impl Drop for HookGuard<'_> {
    fn drop(&mut self) {
        lock(&self.token.inner.hooks).retain(|(id, _)| *id != self.id);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One step of a slow operation, as the caller sees it. The same type for every operation, so a
/// front end draws one kind of progress bar and one kind of "cancel" button.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgressEvent {
    /// What is being done, e.g. "discover", "summarize", "embed", "run".
    pub operation: &'static str,
    /// Units finished so far.
    pub done: u64,
    /// Units in all, when known.
    pub total: Option<u64>,
    /// What the unit just finished or now started was (a file, a command label), for display.
    pub message: Option<String>,
}

/// Where progress goes. A closure is one; [`NoProgress`] discards everything.
pub trait Progress: Send + Sync {
    fn report(&self, event: ProgressEvent);
}

impl<F: Fn(ProgressEvent) + Send + Sync> Progress for F {
    fn report(&self, event: ProgressEvent) {
        self(event)
    }
}

/// A [`Progress`] that discards every event.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn report(&self, _: ProgressEvent) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn cancel_wakes_sleepers_and_runs_hooks_once() {
        let t = CancelToken::new();
        let hits = Arc::new(AtomicU64::new(0));
        let h = hits.clone();
        let guard = t.on_cancel(move || {
            h.fetch_add(1, Ordering::SeqCst);
        });
        let t2 = t.clone();
        let start = Instant::now();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            t2.cancel();
        });
        assert!(!t.sleep(Duration::from_secs(10)));
        assert!(start.elapsed() < Duration::from_secs(5));
        t.cancel();
        drop(guard);
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        // Registered after cancelling: runs at once.
        let h = hits.clone();
        drop(t.on_cancel(move || {
            h.fetch_add(1, Ordering::SeqCst);
        }));
        assert_eq!(hits.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn dropped_guard_unregisters() {
        let t = CancelToken::new();
        let hits = Arc::new(AtomicU64::new(0));
        let h = hits.clone();
        drop(t.on_cancel(move || {
            h.fetch_add(1, Ordering::SeqCst);
        }));
        t.cancel();
        assert_eq!(hits.load(Ordering::SeqCst), 0);
        assert!(!t.sleep(Duration::ZERO));
    }
}
