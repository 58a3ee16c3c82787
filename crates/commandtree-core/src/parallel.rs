//! Work spread over threads, the caller's among them.

/// Runs `work` on `threads` threads (the caller's is one of them) and gathers what each returns,
/// the caller's first. Each `work` claims its own share, typically from a shared counter. A
/// worker's panic goes on in the caller, as it would have on one thread: a result quietly
/// missing a part would look complete.
pub fn on_threads<T: Send>(threads: usize, work: impl Fn() -> Vec<T> + Sync) -> Vec<T> {
    if threads <= 1 {
        return work();
    }
    std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads).map(|_| s.spawn(&work)).collect();
        let mut all = work();
        for h in helpers {
            match h.join() {
                Ok(part) => all.extend(part),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        all
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_share_is_claimed_once() {
        let next = AtomicUsize::new(0);
        let mut got = on_threads(3, || {
            let mut mine = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= 100 {
                    return mine;
                }
                mine.push(i);
            }
        });
        got.sort_unstable();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    }
}
