//! The problems of a run: the errors and warnings its output holds (read by the engine,
//! `problems::of_run`), one a line as compilers print them. Enter opens the selected one in the
//! user's editor at its line (the app suspends the UI for it); the list stays open after, for
//! the next one.

use super::Outcome;
use super::runs::clean;
use crate::keymap::{Action, Context};
use crate::theme::Theme;
use commandtree_engine::problems::{Problem, RunProblems, Severity};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct ProblemList {
    pub title: String,
    pub problems: Vec<Problem>,
    pub sel: usize,
    scroll: usize,
    /// Rows of the list on the last frame, for paging.
    page: usize,
}

impl ProblemList {
    pub fn new(found: &RunProblems) -> ProblemList {
        let r = &found.run;
        let still = if commandtree_engine::runs::is_over(r) {
            ""
        } else {
            ", still running"
        };
        let n = found.problems.len();
        ProblemList {
            title: format!(
                "Problems of run {} ({}, {}{still}): {n} problem{}",
                r.run_id,
                clean(&r.label),
                clean(&r.status),
                if n == 1 { "" } else { "s" }
            ),
            problems: found.problems.clone(),
            sel: 0,
            scroll: 0,
            page: 1,
        }
    }

    pub fn key(&mut self, a: Action) -> Outcome {
        let last = self.problems.len().saturating_sub(1);
        match a {
            Action::Cancel => return Outcome::Cancel,
            Action::Accept if !self.problems.is_empty() => return Outcome::Done,
            Action::First => self.sel = 0,
            Action::Last => self.sel = last,
            _ => {
                super::scroll(&mut self.sel, a, self.page.max(1), last);
            }
        }
        Outcome::Stay
    }

    /// Where the selected problem is: its file, line and column.
    pub fn chosen(&self) -> Option<(PathBuf, u32, Option<u32>)> {
        let p = self.problems.get(self.sel)?;
        Some((PathBuf::from(&p.path), p.line, p.column))
    }

    pub fn draw(&mut self, f: &mut Frame<'_>, area: Rect, t: &Theme) {
        let w = area.width.saturating_sub(4).max(20);
        let inner = w.saturating_sub(2);
        let footer = super::footer(Context::Problems, inner, t.dim());
        let room = usize::from(area.height.saturating_sub(4))
            .saturating_sub(footer.len())
            .max(1);
        self.page = room;
        self.scroll = super::in_view(self.sel, self.scroll, room);
        let mut lines: Vec<Line> = if self.problems.is_empty() {
            vec![Line::styled(
                "No problems found in its output (errors and warnings of compilers, linters, test runners and tracebacks are read).",
                t.dim(),
            )]
        } else {
            self.problems
                .iter()
                .enumerate()
                .skip(self.scroll)
                .take(room)
                .map(|(i, p)| super::mark(problem_line(p, t), i == self.sel, t))
                .collect()
        };
        let h = (lines.len() + footer.len()) as u16 + 2;
        lines.extend(footer);
        let r = super::centered(area, w, h);
        super::popup(f, r, t, &self.title, lines, 0);
    }
}

fn problem_line(p: &Problem, t: &Theme) -> Line<'static> {
    let (word, style) = match p.severity {
        Severity::Error => ("error", t.error()),
        Severity::Warning => ("warning", t.warn()),
        Severity::Info => ("note", t.dim()),
        Severity::Hint => ("hint", t.dim()),
    };
    let col = p.column.map(|c| format!(":{c}")).unwrap_or_default();
    let mut spans = vec![
        Span::styled(format!("{}:{}{col}", clean(&p.file), p.line), t.accent()),
        Span::raw(" "),
        Span::styled(format!("{word}:"), style),
        Span::raw(format!(" {}", clean(&p.message))),
    ];
    if let Some(code) = &p.code {
        spans.push(Span::styled(format!(" [{}]", clean(code)), t.dim()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::running::run;
    use crate::components::screen;
    use crate::keymap;
    use commandtree_engine::problems::{Matcher, Place, parse};
    use std::path::Path;

    fn found(output: &str) -> RunProblems {
        let place = Place::new(Path::new("/w"), Path::new("/w"));
        RunProblems {
            run: run(7, "shell:/w/build.sh:build.sh", "failed", Some(1)),
            problems: parse(&Matcher::builtin_only(), place, output.as_bytes()),
        }
    }

    const OUTPUT: &str = "error[E0308]: mismatched types\n --> src/main.rs:2:18\n  |\n\
        src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n\
        lib/util.c:14:3: warning: unused variable 'x' [-Wunused-variable]\n";

    /// Presses `code` as the app does: the popup's keys from the keymap.
    fn press(l: &mut ProblemList, code: ratatui::crossterm::event::KeyCode) -> Outcome {
        let (_, a) = keymap::action(Context::Problems, &crate::components::press(code)).unwrap();
        l.key(a)
    }

    #[test]
    fn the_problems_of_a_run_and_the_one_to_open() {
        use ratatui::crossterm::event::KeyCode;
        let mut l = ProblemList::new(&found(OUTPUT));
        assert_eq!(l.problems.len(), 3);
        assert_eq!(press(&mut l, KeyCode::Down), Outcome::Stay);
        insta::assert_snapshot!(screen(90, 10, |f| l.draw(f, f.area(), &Theme::plain())));
        assert_eq!(
            l.chosen(),
            Some((PathBuf::from("/w/src/index.ts"), 3, Some(7)))
        );
        press(&mut l, KeyCode::End);
        assert_eq!(l.chosen().unwrap().0, PathBuf::from("/w/lib/util.c"));
        assert_eq!(press(&mut l, KeyCode::Enter), Outcome::Done);
        assert_eq!(press(&mut l, KeyCode::Esc), Outcome::Cancel);
    }

    #[test]
    fn a_run_without_problems_says_so_and_enter_opens_nothing() {
        use ratatui::crossterm::event::KeyCode;
        let mut l = ProblemList::new(&found("compiling\nall good\n"));
        insta::assert_snapshot!(screen(90, 7, |f| l.draw(f, f.area(), &Theme::plain())));
        assert_eq!(press(&mut l, KeyCode::Enter), Outcome::Stay);
        assert_eq!(l.chosen(), None);
    }
}
