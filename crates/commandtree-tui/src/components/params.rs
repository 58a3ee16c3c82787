//! The parameters form: every value a run asks for in one popup, defaults filled in, options
//! stepped through with the arrows.

use super::Outcome;
use crate::keymap::{Action, Context};
use crate::theme::Theme;
use commandtree_core::ParamDef;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

#[derive(Debug, Clone)]
pub struct Field {
    pub param: ParamDef,
    pub value: String,
}

#[derive(Debug, Clone)]
pub struct Params<T> {
    /// The command's label.
    pub label: String,
    pub fields: Vec<Field>,
    pub focus: usize,
    /// The run the values are for.
    pub run: T,
}

const WIDTH: u16 = 72;
const NAME: usize = 14;

impl<T> Params<T> {
    /// A form for `params`, each holding its default, else its first option.
    pub fn new(label: String, params: Vec<ParamDef>, run: T) -> Params<T> {
        let fields = params
            .into_iter()
            .map(|param| Field {
                value: param
                    .default
                    .clone()
                    .or_else(|| param.options.first().cloned())
                    .unwrap_or_default(),
                param,
            })
            .collect();
        Params {
            label,
            fields,
            focus: 0,
            run,
        }
    }

    pub fn key(&mut self, a: Action, k: &KeyEvent) -> Outcome {
        let n = self.fields.len().max(1);
        match a {
            Action::Cancel => return Outcome::Cancel,
            Action::Accept => return Outcome::Done,
            Action::NextField => self.focus = (self.focus + 1) % n,
            Action::PreviousField => self.focus = (self.focus + n - 1) % n,
            _ => {}
        }
        let Some(f) = self.fields.get_mut(self.focus) else {
            return Outcome::Stay;
        };
        match (a, k.code) {
            (Action::NextOption | Action::PreviousOption, _) if !f.param.options.is_empty() => {
                let options = &f.param.options;
                let n = options.len();
                let next = match (options.iter().position(|o| *o == f.value), a) {
                    (None, _) => 0,
                    (Some(i), Action::NextOption) => (i + 1) % n,
                    (Some(i), _) => (i + n - 1) % n,
                };
                f.value = options[next].clone();
            }
            (Action::Delete, _) => {
                f.value.pop();
            }
            (Action::ClearField, _) => f.value.clear(),
            (Action::Type, KeyCode::Char(c)) => f.value.push(c),
            _ => {}
        }
        Outcome::Stay
    }

    /// The values by parameter name, and the run.
    pub fn into_values(self) -> (impl Iterator<Item = (String, String)>, T) {
        (
            self.fields.into_iter().map(|f| (f.param.name, f.value)),
            self.run,
        )
    }

    pub fn draw(&self, f: &mut Frame<'_>, area: Rect, t: &Theme) {
        let mut lines = Vec::new();
        for (i, fl) in self.fields.iter().enumerate() {
            let focused = i == self.focus;
            let mut name = Span::styled(format!("{:<NAME$}", fl.param.name), t.accent());
            if focused {
                name = name.patch_style(t.selected());
            }
            let value = if fl.param.options.is_empty() {
                let mut v = fl.value.clone();
                if focused {
                    v.push('▏');
                }
                Span::raw(v)
            } else {
                Span::raw(format!("◂ {} ▸", fl.value))
            };
            lines.push(Line::from(vec![name, Span::raw(" "), value]));
            let mut hint = fl.param.description.clone().unwrap_or_default();
            if !fl.param.options.is_empty() {
                hint.push_str(&format!("  ({})", fl.param.options.join(" | ")));
            }
            if let Some(d) = &fl.param.default {
                hint.push_str(&format!("  default: {d}"));
            }
            if !hint.trim().is_empty() {
                lines.push(Line::styled(
                    format!("{:NAME$} {}", "", hint.trim()),
                    t.dim(),
                ));
            }
        }
        lines.push(Line::raw(""));
        let title = format!("Run {}", self.label);
        super::fitted(
            f,
            (area, WIDTH),
            t,
            &title,
            lines,
            (Context::Params, t.dim()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::{press, screen};
    use crate::keymap;
    use ratatui::crossterm::event::{KeyEvent, KeyModifiers};

    fn param(name: &str, default: Option<&str>, options: &[&str]) -> ParamDef {
        ParamDef {
            name: name.into(),
            description: Some(format!("the {name}")),
            default: default.map(String::from),
            options: options.iter().map(|o| o.to_string()).collect(),
            ..Default::default()
        }
    }

    /// Presses `k` as the app does: the keymap says what it does in the form.
    fn key(p: &mut Params<()>, k: KeyEvent) -> Outcome {
        let (_, a) = keymap::action(Context::Params, &k).expect("bound");
        p.key(a, &k)
    }

    fn form() -> Params<()> {
        Params::new(
            "greet.sh".into(),
            vec![
                param("name", Some("world"), &[]),
                param("mood", None, &["calm", "loud"]),
            ],
            (),
        )
    }

    #[test]
    fn defaults_and_first_options_are_filled_in() {
        let p = form();
        insta::assert_snapshot!(screen(80, 12, |f| p.draw(f, f.area(), &Theme::plain())));
    }

    #[test]
    fn keys_edit_step_and_submit() {
        let mut p = form();
        let ctrl_u = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL);
        assert_eq!(key(&mut p, ctrl_u), Outcome::Stay);
        for c in "Ada".chars() {
            key(&mut p, press(KeyCode::Char(c)));
        }
        key(&mut p, press(KeyCode::Backspace));
        key(&mut p, press(KeyCode::Tab));
        key(&mut p, press(KeyCode::Right));
        // Up goes back to the previous field, as the footer says.
        key(&mut p, press(KeyCode::Up));
        assert_eq!(p.focus, 0);
        key(&mut p, press(KeyCode::Down));
        key(&mut p, press(KeyCode::Left));
        key(&mut p, press(KeyCode::Left));
        let shown = screen(80, 12, |f| p.draw(f, f.area(), &Theme::plain()));
        assert!(shown.contains("◂ loud ▸"), "{shown}");
        assert_eq!(key(&mut p, press(KeyCode::Enter)), Outcome::Done);
        let (values, ()) = p.into_values();
        let values: Vec<_> = values.collect();
        assert_eq!(
            values,
            [("name".into(), "Ad".into()), ("mood".into(), "loud".into())]
        );
        assert_eq!(key(&mut form(), press(KeyCode::Esc)), Outcome::Cancel);
    }
}
