//! The dependency view of a command, as a tree popup: what running it runs (its closure,
//! indented under the commands it goes through) and what runs it, from the engine's `deps`.
//! The arrows move over the commands; Enter goes to the selected one in the tree.

use super::Outcome;
use super::runs::clean;
use crate::keymap::{Action, Context};
use crate::theme::Theme;
use commandtree_engine::deps::{Deps, Link};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::path::Path;

/// A line of the view: a heading, a command (its id, to go to), or a note.
#[derive(Debug, Clone)]
enum Item {
    Heading(&'static str),
    Command {
        id: String,
        line: Vec<(String, Tone)>,
    },
    Note(String, Tone),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tone {
    Plain,
    Label,
    Dim,
    Warn,
}

#[derive(Debug, Clone)]
pub struct DepsView {
    pub title: String,
    items: Vec<Item>,
    /// The selected line (always a command's when there is one).
    sel: usize,
    scroll: usize,
    page: usize,
}

impl DepsView {
    pub fn new(d: &Deps, root: &Path) -> DepsView {
        let place = |l: &Link| {
            let p = Path::new(&l.file_path);
            let file = p.strip_prefix(root).unwrap_or(p).display().to_string();
            match l.line {
                Some(n) => format!("{file}:{n}"),
                None => file,
            }
        };
        let node = |l: &Link| {
            let how = if l.how.is_empty() {
                String::new()
            } else {
                format!(", {}", l.how)
            };
            Item::Command {
                id: l.id.clone(),
                line: vec![
                    ("  ".repeat(l.via.len() + 1), Tone::Plain),
                    (clean(&l.label), Tone::Label),
                    (format!(" ({}{how})", clean(&l.kind)), Tone::Plain),
                    (format!("  {}", clean(&place(l))), Tone::Dim),
                ],
            }
        };
        let mut items = vec![Item::Heading("runs")];
        if d.runs.is_empty() && d.unresolved.is_empty() {
            items.push(Item::Note("  nothing by itself".into(), Tone::Dim));
        }
        items.extend(d.runs.iter().map(node));
        for u in &d.unresolved {
            let via = if u.via.is_empty() {
                String::new()
            } else {
                format!(", through {}", u.via.join(" > "))
            };
            items.push(Item::Note(
                clean(&format!(
                    "  {} ({}{via}): names no command found here",
                    u.name, u.how
                )),
                Tone::Warn,
            ));
        }
        for c in &d.cycles {
            items.push(Item::Note(
                clean(&format!("  cycle: {}", c.join(" > "))),
                Tone::Warn,
            ));
        }
        items.push(Item::Heading("run by"));
        if d.run_by.is_empty() {
            items.push(Item::Note("  nothing here runs it".into(), Tone::Dim));
        }
        items.extend(d.run_by.iter().map(node));
        if d.truncated {
            items.push(Item::Note(
                "more than 1,000 commands: the rest were not followed".into(),
                Tone::Warn,
            ));
        }
        let mut v = DepsView {
            title: format!(
                "Dependencies of {} ({})  {}",
                clean(&d.command.label),
                clean(&d.command.kind),
                clean(&place(&d.command))
            ),
            items,
            sel: 0,
            scroll: 0,
            page: 1,
        };
        v.sel = v.commands().first().copied().unwrap_or(0);
        v
    }

    /// The lines that are commands.
    fn commands(&self) -> Vec<usize> {
        (0..self.items.len())
            .filter(|&i| matches!(self.items[i], Item::Command { .. }))
            .collect()
    }

    /// The selected command's id.
    pub fn chosen(&self) -> Option<&str> {
        match self.items.get(self.sel)? {
            Item::Command { id, .. } => Some(id),
            _ => None,
        }
    }

    /// `n` commands down (up when negative), stopping at the ends.
    fn step(&mut self, n: isize) {
        let list = self.commands();
        let Some(at) = list.iter().position(|&i| i == self.sel) else {
            return;
        };
        let to = (at as isize + n).clamp(0, list.len() as isize - 1) as usize;
        self.sel = list[to];
    }

    pub fn key(&mut self, a: Action) -> Outcome {
        let page = self.page.max(1) as isize;
        match a {
            Action::Cancel => return Outcome::Cancel,
            Action::Accept if self.chosen().is_some() => return Outcome::Done,
            Action::Up => self.step(-1),
            Action::Down => self.step(1),
            Action::PageUp => self.step(-page),
            Action::PageDown => self.step(page),
            Action::First => self.sel = self.commands().first().copied().unwrap_or(0),
            Action::Last => self.sel = self.commands().last().copied().unwrap_or(0),
            _ => {}
        }
        Outcome::Stay
    }

    pub fn draw(&mut self, f: &mut Frame<'_>, area: Rect, t: &Theme) {
        let w = area.width.saturating_sub(4).max(20);
        let footer = super::footer(Context::Deps, w.saturating_sub(2), t.dim());
        let room = usize::from(area.height.saturating_sub(4))
            .saturating_sub(footer.len())
            .max(1);
        self.page = room;
        self.scroll = super::in_view(self.sel, self.scroll, room);
        // The heading above the first command stays in view.
        if self.scroll == 1 && self.sel < room {
            self.scroll = 0;
        }
        let tone = |tone: Tone| match tone {
            Tone::Plain => ratatui::style::Style::new(),
            Tone::Label => t.bold(),
            Tone::Dim => t.dim(),
            Tone::Warn => t.warn(),
        };
        let mut lines: Vec<Line> = self
            .items
            .iter()
            .enumerate()
            .skip(self.scroll)
            .take(room)
            .map(|(i, item)| match item {
                Item::Heading(h) => Line::styled(format!("{h}:"), t.accent()),
                Item::Note(text, k) => Line::styled(text.clone(), tone(*k)),
                Item::Command { line, .. } => super::mark(
                    Line::from(
                        line.iter()
                            .map(|(s, k)| Span::styled(s.clone(), tone(*k)))
                            .collect::<Vec<_>>(),
                    ),
                    i == self.sel,
                    t,
                ),
            })
            .collect();
        let h = (lines.len() + footer.len()) as u16 + 2;
        lines.extend(footer);
        let r = super::centered(area, w, h);
        super::popup(f, r, t, &self.title, lines, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::screen;
    use crate::keymap;
    use commandtree_core::{CommandItem, StepHow, StepRef};
    use ratatui::crossterm::event::KeyCode;

    /// `ci` runs `build`, which runs `lint` (a prerequisite) and calls `missing`.
    fn commands() -> Vec<CommandItem> {
        let m = |label: &str, line: u32, steps: &[(&str, StepHow)]| {
            let mut c = CommandItem::new("make", Path::new("/w/Makefile"), label, label);
            c.line = Some(line);
            c.steps = steps
                .iter()
                .map(|(n, how)| StepRef::new(*n, *how, true))
                .collect();
            c
        };
        vec![
            m("ci", 1, &[("build", StepHow::Prerequisite)]),
            m(
                "build",
                4,
                &[("lint", StepHow::Prerequisite), ("missing", StepHow::Call)],
            ),
            m("lint", 8, &[]),
        ]
    }

    fn press(v: &mut DepsView, code: KeyCode) -> Outcome {
        let (_, a) = keymap::action(Context::Deps, &crate::components::press(code)).unwrap();
        v.key(a)
    }

    #[test]
    fn what_a_command_runs_and_what_runs_it() {
        let commands = commands();
        let d = commandtree_engine::deps::of(&commands, &commands[1]);
        let mut v = DepsView::new(&d, Path::new("/w"));
        insta::assert_snapshot!(screen(70, 12, |f| v.draw(f, f.area(), &Theme::plain())));
        assert_eq!(v.chosen(), Some(commands[2].id.as_str()));
        assert_eq!(press(&mut v, KeyCode::Down), Outcome::Stay);
        assert_eq!(v.chosen(), Some(commands[0].id.as_str()), "past the notes");
        press(&mut v, KeyCode::Down);
        assert_eq!(v.chosen(), Some(commands[0].id.as_str()), "the last one");
        press(&mut v, KeyCode::Home);
        assert_eq!(v.chosen(), Some(commands[2].id.as_str()));
        assert_eq!(press(&mut v, KeyCode::Enter), Outcome::Done);
        assert_eq!(press(&mut v, KeyCode::Esc), Outcome::Cancel);
    }

    #[test]
    fn a_command_alone_says_nothing_runs_it() {
        let commands = commands();
        let d = commandtree_engine::deps::of(&commands, &commands[2]);
        let mut v = DepsView::new(&d, Path::new("/w"));
        assert_eq!(v.chosen(), Some(commands[1].id.as_str()));
        let shown = screen(70, 10, |f| v.draw(f, f.area(), &Theme::plain()));
        assert!(shown.contains("nothing by itself"), "{shown}");
        assert!(shown.contains("build (make, prerequisite)"), "{shown}");
        assert!(shown.contains("ci (make, prerequisite)"), "{shown}");
    }
}
