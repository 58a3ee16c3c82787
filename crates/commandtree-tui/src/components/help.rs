//! F1 and the details popup: popups that only show something, scrolled when it does not fit.
//! F1's lines are the keymap's entries, so it lists exactly the keys the UI answers.

use super::Outcome;
use crate::keymap::{self, Action, Context, Entry};
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// A popup of lines to read: Esc closes it, the arrows scroll it.
#[derive(Debug, Clone, Default)]
pub struct Viewer {
    pub scroll: usize,
    /// From the last frame: rows a page, and the last scroll position that still shows a
    /// full page.
    page: usize,
    last: usize,
}

impl Viewer {
    pub fn key(&mut self, a: Action) -> Outcome {
        if a == Action::Cancel {
            return Outcome::Cancel;
        }
        super::scroll(&mut self.scroll, a, self.page.max(1), self.last);
        Outcome::Stay
    }

    /// Draws `lines` in a `w`×`h` popup centered in `area`.
    pub fn draw(
        &mut self,
        f: &mut Frame<'_>,
        area: Rect,
        t: &Theme,
        (what, lines): (&str, Vec<Line<'_>>),
        (w, h): (u16, u16),
    ) {
        let r = super::centered(area, w, h);
        let inner = r.width.saturating_sub(2);
        self.page = usize::from(r.height.saturating_sub(2));
        self.last = super::rows(&lines, inner).saturating_sub(self.page);
        self.scroll = self.scroll.min(self.last);
        let title = format!("{what} ({})", keymap::footer(Context::Viewer).join(" · "));
        super::popup(f, r, t, &title, lines, self.scroll);
    }

    /// F1 at its size for `area`.
    pub fn draw_help(&mut self, f: &mut Frame<'_>, area: Rect, t: &Theme) {
        let (lines, w, h) = help_lines(t, area);
        self.draw(f, area, t, ("Keys", lines), (w, h));
    }
}

/// One line of F1: an entry's keys and what it says, or a heading.
enum Item {
    Heading(&'static str),
    Keys(String, &'static str),
}

fn items() -> Vec<Item> {
    let mut out = Vec::new();
    for (heading, contexts) in keymap::HELP {
        if !heading.is_empty() {
            out.push(Item::Heading(heading));
        }
        out.extend(
            keymap::KEYMAP
                .iter()
                .filter(|e| contexts.contains(&e.context))
                .map(|e: &Entry| Item::Keys(e.label(), e.says)),
        );
    }
    out
}

/// F1's lines for a screen `area` and the popup's size: one column when it is tall enough,
/// else two.
pub fn help_lines(t: &Theme, area: Rect) -> (Vec<Line<'static>>, u16, u16) {
    let items = items();
    let width = |f: fn(&Item) -> usize| items.iter().map(f).max().unwrap_or(0);
    let kw = width(|i| match i {
        Item::Keys(k, _) => k.chars().count(),
        Item::Heading(_) => 0,
    });
    let tw = width(|i| match i {
        Item::Keys(_, s) => s.chars().count(),
        Item::Heading(h) => h.chars().count(),
    })
    .max(kw + 1);
    let cell = |i: &Item| match i {
        Item::Keys(k, what) => vec![
            Span::styled(format!("{k:<kw$} "), t.accent()),
            Span::raw(format!("{what:<tw$}")),
        ],
        Item::Heading(h) => vec![Span::styled(format!("{h:<w$}", w = kw + 1 + tw), t.bold())],
    };
    let column = kw + 1 + tw;
    let one_column = items.len() + 2 <= usize::from(area.height);
    if one_column {
        let lines = items.iter().map(|i| Line::from(cell(i))).collect();
        return (lines, (column + 2) as u16, items.len() as u16 + 2);
    }
    let rows = items.len().div_ceil(2);
    let lines = (0..rows)
        .map(|r| {
            let mut spans = cell(&items[r]);
            if let Some(i) = items.get(r + rows) {
                spans.push(Span::raw(" "));
                spans.extend(cell(i));
            }
            Line::from(spans)
        })
        .collect();
    (lines, (2 * column + 3) as u16, rows as u16 + 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::screen;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn help_fits_80_by_24_and_lists_every_entry_it_should() {
        let t = Theme::plain();
        let (lines, w, h) = help_lines(&t, Rect::new(0, 0, 80, 24));
        assert!(w <= 80 && h <= 24, "{w}×{h}");
        let text = text(&lines);
        assert!(text[0].starts_with("q "), "quitting first: {}", text[0]);
        for l in &text {
            assert!(l.chars().count() as u16 <= w - 2, "{l}");
        }
        for (heading, contexts) in keymap::HELP {
            assert!(text.iter().any(|l| l.contains(heading)), "{heading}");
            for e in keymap::KEYMAP
                .iter()
                .filter(|e| contexts.contains(&e.context))
            {
                let row = format!("{} ", e.label());
                assert!(
                    text.iter().any(|l| l.contains(&row) && l.contains(e.says)),
                    "{row}{} missing",
                    e.says
                );
            }
        }
        // A tall terminal gets one column.
        let (one, _, h) = help_lines(&t, Rect::new(0, 0, 120, 60));
        assert_eq!(usize::from(h), one.len() + 2);
    }

    #[test]
    fn help_popup() {
        let mut v = Viewer::default();
        insta::assert_snapshot!(screen(80, 24, |f| v.draw_help(
            f,
            f.area(),
            &Theme::plain()
        )));
    }

    #[test]
    fn a_short_screen_scrolls_the_help_and_esc_closes_it() {
        let mut v = Viewer::default();
        let t = Theme::plain();
        let first = screen(80, 12, |f| v.draw_help(f, f.area(), &t));
        assert!(first.contains("q "), "{first}");
        assert_eq!(v.key(Action::PageDown), Outcome::Stay);
        let paged = screen(80, 12, |f| v.draw_help(f, f.area(), &t));
        assert_ne!(first, paged);
        for _ in 0..50 {
            v.key(Action::Down);
        }
        let end = screen(80, 12, |f| v.draw_help(f, f.area(), &t));
        assert!(
            end.contains("stop / restart / problems"),
            "the last entry is reachable:\n{end}"
        );
        assert_eq!(v.key(Action::Cancel), Outcome::Cancel);
    }
}
