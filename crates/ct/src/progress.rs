//! The one progress bar of the CLI (summaries, embeddings, the model download): on stderr, drawn
//! only on a terminal, fed by the engine's `ProgressEvent`s.

use commandtree_core::ProgressEvent;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Bar {
    pb: ProgressBar,
    /// Below this many units the bar stays hidden (a quick catch-up needs none).
    min_total: u64,
}

impl Bar {
    /// A bar for `what` ("summarizing", "embedding"); hidden when `show` is false or stderr is
    /// not a terminal.
    pub fn new(what: &str, show: bool) -> Bar {
        Bar::styled(
            what,
            show,
            "{prefix} [{bar:24}] {pos}/{len} {per_sec} {eta} {msg}",
        )
    }

    /// A bar counting bytes, for downloads.
    pub fn bytes(what: &str, show: bool) -> Bar {
        Bar::styled(
            what,
            show,
            "  {prefix} [{bar:24}] {bytes}/{total_bytes} {bytes_per_sec}",
        )
    }

    fn styled(what: &str, show: bool, template: &str) -> Bar {
        let target = if show {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let pb = ProgressBar::with_draw_target(None, target);
        if let Ok(style) = ProgressStyle::with_template(template) {
            pb.set_style(style.progress_chars("#>-"));
        }
        pb.set_prefix(what.to_string());
        Bar { pb, min_total: 0 }
    }

    /// Stays hidden when the work is smaller than `n` units.
    pub fn min_total(mut self, n: u64) -> Bar {
        self.min_total = n;
        self
    }

    /// Shows one progress event.
    pub fn event(&self, e: &ProgressEvent) {
        if let Some(t) = e.total {
            if t < self.min_total {
                return;
            }
            self.pb.set_length(t);
        }
        self.pb.set_position(e.done);
        if let Some(m) = &e.message {
            // Messages name commands (their labels are workspace text).
            self.pb.set_message(
                crate::output::clean(&commandtree_core::text::truncate(m, 30)).into_owned(),
            );
        }
    }

    /// Bytes done of `total` (downloads), with the file's name.
    pub fn progress(&self, name: &str, done: u64, total: u64) {
        self.pb.set_prefix(name.to_string());
        self.pb.set_length(total);
        self.pb.set_position(done);
    }

    /// Prints a line above the bar (a failure as it happens) without tearing it.
    pub fn suspend(&self, f: impl FnOnce()) {
        self.pb.suspend(f);
    }

    pub fn finish(&self) {
        self.pb.finish_and_clear();
    }
}
