//! A line of text: a tag to add, arguments for a run, what to search for.

use super::Outcome;
use crate::keymap::{Action, Context};
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

#[derive(Debug, Clone)]
pub struct Prompt<T> {
    pub title: String,
    pub value: String,
    /// What the text is for.
    pub purpose: T,
}

const WIDTH: u16 = 60;

impl<T> Prompt<T> {
    pub fn new(title: String, purpose: T) -> Prompt<T> {
        Prompt {
            title,
            value: String::new(),
            purpose,
        }
    }

    pub fn key(&mut self, a: Action, k: &KeyEvent) -> Outcome {
        match (a, k.code) {
            (Action::Cancel, _) => return Outcome::Cancel,
            (Action::Accept, _) => return Outcome::Done,
            (Action::Delete, _) => {
                self.value.pop();
            }
            (Action::Type, KeyCode::Char(c)) => self.value.push(c),
            _ => {}
        }
        Outcome::Stay
    }

    pub fn draw(&self, f: &mut Frame<'_>, area: Rect, t: &Theme) {
        let lines = vec![Line::from(vec![
            Span::raw(self.value.as_str()),
            Span::styled("▏", t.accent()),
        ])];
        let keys = (Context::Prompt, t.dim());
        super::fitted(f, (area, WIDTH), t, &self.title, lines, keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::{press, screen};
    use crate::keymap;

    #[test]
    fn typing_a_tag() {
        let mut p = Prompt::new("Add a tag to build".into(), ());
        for code in [
            KeyCode::Char('c'),
            KeyCode::Char('x'),
            KeyCode::Backspace,
            KeyCode::Char('i'),
        ] {
            let k = press(code);
            let (_, a) = keymap::action(Context::Prompt, &k).unwrap();
            assert_eq!(p.key(a, &k), Outcome::Stay);
        }
        assert_eq!(p.value, "ci");
        insta::assert_snapshot!(screen(64, 6, |f| p.draw(f, f.area(), &Theme::plain())));
        let enter = press(KeyCode::Enter);
        assert_eq!(p.key(Action::Accept, &enter), Outcome::Done);
    }
}
