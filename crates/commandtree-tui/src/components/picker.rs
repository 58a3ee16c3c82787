//! A choice from a list: a tag to filter by or remove, a command skill to apply.

use super::Outcome;
use crate::keymap::{Action, Context};
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

#[derive(Debug, Clone)]
pub struct Picker<T> {
    pub title: String,
    pub items: Vec<String>,
    pub sel: usize,
    /// What the choice is for.
    pub purpose: T,
}

const WIDTH: u16 = 40;

impl<T> Picker<T> {
    pub fn new(title: String, items: Vec<String>, purpose: T) -> Picker<T> {
        Picker {
            title,
            items,
            sel: 0,
            purpose,
        }
    }

    pub fn key(&mut self, a: Action) -> Outcome {
        match a {
            Action::Cancel => return Outcome::Cancel,
            Action::Accept => return Outcome::Done,
            Action::Up => self.sel = self.sel.saturating_sub(1),
            Action::Down => self.sel = (self.sel + 1).min(self.items.len().saturating_sub(1)),
            _ => {}
        }
        Outcome::Stay
    }

    /// The item chosen (by position too: two may read the same).
    pub fn chosen(&self) -> (usize, String) {
        (
            self.sel,
            self.items.get(self.sel).cloned().unwrap_or_default(),
        )
    }

    pub fn draw(&self, f: &mut Frame<'_>, area: Rect, t: &Theme) {
        let lines = (self.items.iter().enumerate())
            .map(|(i, x)| super::mark(Line::raw(format!(" {x} ")), i == self.sel, t))
            .collect();
        let keys = (Context::Picker, t.dim());
        super::fitted(f, (area, WIDTH), t, &self.title, lines, keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::screen;

    #[test]
    fn a_tag_to_filter_by() {
        let mut p = Picker::new(
            "Filter by tag".into(),
            vec!["build".into(), "deploy".into(), "test".into()],
            (),
        );
        assert_eq!(p.key(Action::Down), Outcome::Stay);
        p.key(Action::Down);
        p.key(Action::Down);
        p.key(Action::Up);
        insta::assert_snapshot!(screen(50, 9, |f| p.draw(f, f.area(), &Theme::plain())));
        assert_eq!(p.key(Action::Accept), Outcome::Done);
        assert_eq!(p.chosen(), (1, "deploy".into()));
        assert_eq!(p.key(Action::Cancel), Outcome::Cancel);
    }
}
