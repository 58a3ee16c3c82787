//! Yes-or-no popups: a run with warnings, quitting with runs still going, a command skill's
//! proposed change. Each holds what a yes acts on; its keys and footer are its context's.

use super::Outcome;
use crate::keymap::{Action, Context};
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

/// How wide the popup is.
#[derive(Debug, Clone, Copy)]
pub enum Size {
    /// This many columns, as tall as its lines.
    Fit(u16),
    /// Nearly the whole screen (a diff to read).
    Screen,
}

#[derive(Debug, Clone)]
pub struct Confirm<T> {
    pub context: Context,
    pub title: String,
    pub lines: Vec<String>,
    /// Each line's style.
    pub tone: fn(&Theme, &str) -> Style,
    pub size: Size,
    pub scroll: usize,
    /// What a yes acts on.
    pub answer: T,
}

impl<T> Confirm<T> {
    /// A run held back by its warnings.
    pub fn warnings(title: String, warnings: &[String], answer: T) -> Confirm<T> {
        Confirm {
            context: Context::Confirm,
            title,
            lines: warnings.iter().map(|w| format!("⚠ {w}")).collect(),
            tone: |t, _| t.warn(),
            size: Size::Fit(72),
            scroll: 0,
            answer,
        }
    }

    /// Quitting while `running` background runs go on.
    pub fn quit(running: usize, answer: T) -> Confirm<T> {
        Confirm {
            context: Context::Quit,
            title: "Quit?".into(),
            lines: vec![format!(
                "{running} background run(s) still going; they keep running after you quit."
            )],
            tone: |_, _| Style::new(),
            size: Size::Fit(60),
            scroll: 0,
            answer,
        }
    }

    /// A change to a file, as a unified diff.
    pub fn diff(title: String, diff: Vec<String>, answer: T) -> Confirm<T> {
        Confirm {
            context: Context::Proposal,
            title,
            lines: diff,
            tone: |t, l| {
                if l.starts_with("+++") || l.starts_with("---") {
                    t.bold()
                } else if l.starts_with('+') {
                    t.ok()
                } else if l.starts_with('-') {
                    t.error()
                } else if l.starts_with("@@") {
                    t.accent()
                } else {
                    Style::new()
                }
            },
            size: Size::Screen,
            scroll: 0,
            answer,
        }
    }

    pub fn key(&mut self, a: Action) -> Outcome {
        match a {
            Action::Accept => Outcome::Done,
            Action::Cancel => Outcome::Cancel,
            _ => {
                super::scroll(&mut self.scroll, a, 10, self.lines.len().saturating_sub(1));
                Outcome::Stay
            }
        }
    }

    pub fn draw(&self, f: &mut Frame<'_>, area: Rect, t: &Theme) {
        let styled = |l: &String| Line::styled(l.clone(), (self.tone)(t, l));
        let keys = (self.context, t.bold());
        match self.size {
            Size::Fit(w) => {
                let mut lines: Vec<Line> = self.lines.iter().map(styled).collect();
                lines.push(Line::raw(""));
                super::fitted(f, (area, w), t, &self.title, lines, keys);
            }
            Size::Screen => {
                let w = area.width.saturating_sub(4);
                let h = area.height.saturating_sub(2).max(8);
                let footer = super::footer(keys.0, w.saturating_sub(2), keys.1);
                // The footer stays on screen: only the diff scrolls.
                let room = usize::from(h.saturating_sub(3)).saturating_sub(footer.len());
                let mut lines: Vec<Line> = (self.lines.iter().skip(self.scroll).take(room))
                    .map(styled)
                    .collect();
                lines.push(Line::raw(""));
                lines.extend(footer);
                super::popup(f, super::centered(area, w, h), t, &self.title, lines, 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::screen;

    #[test]
    fn confirmation_of_a_run_with_warnings() {
        let mut c = Confirm::warnings(
            "Run clean.sh?".into(),
            &["Deletes files recursively (rm -rf).".into()],
            "clean.sh",
        );
        insta::assert_snapshot!(screen(80, 12, |f| c.draw(f, f.area(), &Theme::plain())));
        assert_eq!(c.key(Action::Down), Outcome::Stay);
        assert_eq!(c.key(Action::Accept), Outcome::Done);
        assert_eq!(c.answer, "clean.sh");
        assert_eq!(c.key(Action::Cancel), Outcome::Cancel);
    }

    #[test]
    fn quitting_with_runs_going() {
        let c = Confirm::quit(2, ());
        insta::assert_snapshot!(screen(70, 9, |f| c.draw(f, f.area(), &Theme::plain())));
    }

    #[test]
    fn a_diff_scrolls_and_keeps_its_footer_on_screen() {
        let diff: Vec<String> = ["--- a/x.sh", "+++ b/x.sh", "@@ -1,30 +1,30 @@"]
            .into_iter()
            .map(String::from)
            .chain((1..=30).map(|n| format!("-line {n}")))
            .collect();
        let mut c = Confirm::diff("Tidy → x.sh".into(), diff, ());
        let t = Theme::plain();
        let first = screen(70, 14, |f| c.draw(f, f.area(), &t));
        insta::assert_snapshot!(first);
        c.key(Action::PageDown);
        let paged = screen(70, 14, |f| c.draw(f, f.area(), &t));
        assert!(
            paged.contains("-line 8") && !paged.contains("+++"),
            "{paged}"
        );
        assert!(paged.contains("y applies"), "{paged}");
        for _ in 0..100 {
            c.key(Action::Down);
        }
        assert!(screen(70, 14, |f| c.draw(f, f.area(), &t)).contains("-line 30"));
    }
}
