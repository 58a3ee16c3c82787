//! The status line: the workspace, how many commands are listed, the filter, background work,
//! warnings, the answer to the last key, and the footer of the keys that have the focus.

use crate::keymap::{self, Action, Context};
use crate::theme::Theme;
use commandtree_core::CancelToken;
use commandtree_engine::listing;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::collections::HashSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

#[derive(Default)]
pub struct Status {
    /// The answer to the last key.
    pub message: Option<(String, Level)>,
    /// What the background work is doing.
    pub progress: Option<String>,
    /// The background job under way (summaries, search, a command skill), to cancel.
    pub job: Option<CancelToken>,
    /// The different warnings seen (settings, discovery, database): the watcher repeats the
    /// load's when it starts, and says a lasting problem again on each change.
    warnings: HashSet<String>,
}

/// What the rest of the UI shows in the line.
pub struct Facts<'a> {
    pub name: &'a str,
    /// How many commands are listed and hidden, once loaded.
    pub counts: Option<listing::Counts>,
    pub filter: Vec<Span<'static>>,
    pub running: usize,
    pub untrusted: bool,
    /// Whose keys the footer lists.
    pub keys: Context,
}

impl Status {
    pub fn say(&mut self, text: impl Into<String>, level: Level) {
        self.message = Some((text.into(), level));
    }

    pub fn warn(&mut self, w: impl ToString) {
        self.warnings.insert(w.to_string());
    }

    pub fn warnings(&self) -> usize {
        self.warnings.len()
    }

    /// Starts a background job: its token, for the thread.
    pub fn start(&mut self, doing: String) -> CancelToken {
        let token = CancelToken::new();
        self.job = Some(token.clone());
        self.progress = Some(doing);
        token
    }

    /// The job answered.
    pub fn finished(&mut self) {
        self.job = None;
        self.progress = None;
    }

    /// Cancels the job under way; whether there was one.
    pub fn cancel(&mut self) -> bool {
        let Some(t) = self.job.take() else {
            return false;
        };
        t.cancel();
        self.say("cancelled", Level::Info);
        true
    }

    pub fn draw(&self, f: &mut Frame<'_>, area: Rect, t: &Theme, facts: Facts<'_>) {
        let mut spans = vec![Span::styled(format!(" {} ", facts.name), t.bold())];
        let sep = || Span::styled(" │ ", t.dim());
        if let Some(n) = facts.counts {
            spans.push(sep());
            spans.push(Span::raw(format!("{} commands", n.shown)));
            let mut more = Vec::new();
            if n.hidden > 0 {
                more.push(format!("{} hidden", n.hidden));
            }
            if n.hidden_docs > 0 {
                more.push(format!("{} documents", n.hidden_docs));
            }
            if !more.is_empty() {
                let show = keymap::key(Context::Tree, Action::ToggleAux);
                spans.push(Span::styled(
                    format!(" (+{}: {show})", more.join(", ")),
                    t.dim(),
                ));
            }
        }
        if !facts.filter.is_empty() {
            spans.push(sep());
            spans.extend(facts.filter);
        }
        if facts.running > 0 {
            spans.push(sep());
            spans.push(Span::styled(
                format!("● {} running", facts.running),
                t.accent(),
            ));
        }
        if facts.untrusted {
            // As the CLI: the workspace configuration's LLM, key and program settings are ignored.
            spans.push(sep());
            spans.push(Span::styled("config not trusted: ct trust", t.warn()));
        }
        let warnings = self.warnings();
        if warnings > 0 {
            spans.push(sep());
            let s = if warnings == 1 { "" } else { "s" };
            spans.push(Span::styled(format!("{warnings} warning{s}"), t.warn()));
        }
        // A message answers the last key, so it comes before the progress of background work.
        if let Some((m, level)) = &self.message {
            spans.push(sep());
            let st = match level {
                Level::Info => Style::new(),
                Level::Warn => t.warn(),
                Level::Error => t.error(),
            };
            spans.push(Span::styled(m.clone(), st));
        } else if let Some(p) = &self.progress
            && facts.counts.is_some()
        {
            spans.push(sep());
            spans.push(Span::styled(p.clone(), t.accent()));
        }
        spans.push(sep());
        spans.push(Span::styled(
            keymap::footer(facts.keys).join(" · "),
            t.dim(),
        ));
        f.render_widget(Paragraph::new(Line::from(spans)), area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::screen;

    fn facts(keys: Context) -> Facts<'static> {
        Facts {
            name: "demo",
            counts: Some(listing::Counts {
                shown: 9,
                hidden: 1,
                hidden_docs: 2,
            }),
            filter: Vec::new(),
            running: 0,
            untrusted: false,
            keys,
        }
    }

    #[test]
    fn counts_warnings_a_message_and_the_footer() {
        let mut s = Status::default();
        s.warn("a");
        s.warn("a");
        s.warn("b");
        s.progress = Some("summarizing…".into());
        let t = Theme::plain();
        insta::assert_snapshot!(screen(110, 1, |f| s.draw(
            f,
            f.area(),
            &t,
            facts(Context::Tree)
        )));
        s.say("build is in Quick Launch", Level::Info);
        let shown = screen(180, 1, |f| {
            s.draw(
                f,
                f.area(),
                &t,
                Facts {
                    running: 2,
                    untrusted: true,
                    ..facts(Context::Filter)
                },
            )
        });
        insta::assert_snapshot!(shown);
    }

    #[test]
    fn a_job_is_cancelled_once() {
        let mut s = Status::default();
        let token = s.start("searching…".into());
        assert!(s.cancel());
        assert!(token.is_cancelled());
        assert!(!s.cancel());
        assert_eq!(s.message, Some(("cancelled".into(), Level::Info)));
    }
}
