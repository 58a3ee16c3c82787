//! The runs pane: the background runs started here, and those another process started (`ct run
//! --detach` in a shell, another TUI) while they go on; the selected one's output as it grows.

use crate::keymap::{self, Action, Context};
use crate::theme::Theme;
use commandtree_core::Workspace;
use commandtree_engine::runs;
use commandtree_store::Store;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use std::io::Read;
use std::time::{Duration, Instant};

/// A background run started here, with its output read as it grows.
pub struct BgRun {
    pub run_id: Option<i64>,
    pub label: String,
    pub status: String,
    pub exit: Option<i32>,
    pub lines: Vec<String>,
    partial: String,
    log: Option<std::fs::File>,
    /// Started by this process (quitting asks about these); else seen going on in the history.
    here: bool,
}

const MAX_LOG_LINES: usize = 2000;

impl BgRun {
    /// A run just started, its output read from `log`.
    pub fn new(run_id: Option<i64>, label: String, log: Option<std::fs::File>) -> BgRun {
        BgRun {
            run_id,
            label,
            status: "running".into(),
            exit: None,
            lines: Vec::new(),
            partial: String::new(),
            log,
            here: true,
        }
    }

    fn read(&mut self) {
        let Some(f) = self.log.as_mut() else { return };
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_err() || buf.is_empty() {
            return;
        }
        self.partial.push_str(&String::from_utf8_lossy(&buf));
        while let Some(at) = self.partial.find('\n') {
            let line: String = self.partial[..at].trim_end_matches('\r').to_string();
            self.lines.push(clean(&line));
            self.partial.drain(..=at);
        }
        if self.lines.len() > MAX_LOG_LINES {
            let cut = self.lines.len() - MAX_LOG_LINES;
            self.lines.drain(..cut);
        }
    }
    pub fn running(&self) -> bool {
        self.exit.is_none() && self.status == "running"
    }
    /// The lines, with an unfinished last one.
    pub fn tail(&self, n: usize) -> Vec<String> {
        let mut all: Vec<String> = self.lines.clone();
        if !self.partial.is_empty() {
            all.push(clean(&self.partial));
        }
        let from = all.len().saturating_sub(n);
        all.split_off(from)
    }
}

/// A log line without escape sequences or control characters, which would move the cursor or
/// recolour the UI.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ ... final byte in @..~; other escapes: ESC + one char.
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            } else {
                chars.next();
            }
        } else if c == '\t' {
            out.push_str("    ");
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

/// What a key in the pane asks of the app.
#[derive(Debug, PartialEq, Eq)]
pub enum RunsKey {
    Done,
    /// Stop the selected run.
    Stop,
    /// Stop it if it goes on, then run it again as it ran.
    Restart,
    /// Show the problems of its output.
    Problems,
    /// Not the pane's key: the tree's.
    Tree,
}

pub struct RunsPane {
    pub open: bool,
    /// The pane has the keys.
    pub focus: bool,
    pub sel: usize,
    pub runs: Vec<BgRun>,
    last_tick: Instant,
}

impl Default for RunsPane {
    fn default() -> Self {
        RunsPane {
            open: false,
            focus: false,
            sel: 0,
            runs: Vec::new(),
            last_tick: Instant::now(),
        }
    }
}

impl RunsPane {
    /// How many runs this process started go on.
    pub fn running(&self) -> usize {
        self.runs.iter().filter(|r| r.here && r.running()).count()
    }

    pub fn focused(&self) -> bool {
        self.open && self.focus
    }

    pub fn selected(&self) -> Option<&BgRun> {
        self.runs.get(self.sel)
    }

    /// Shows the pane on a run just started.
    pub fn push(&mut self, run: BgRun) {
        self.runs.push(run);
        self.sel = self.runs.len() - 1;
        self.open = true;
    }

    /// Runs going on that write a log and are not in the pane yet (started by another process)
    /// join it, oldest first, without moving the selection or opening the pane. Returns how many
    /// joined.
    pub fn adopt<'a>(
        &mut self,
        ws: &Workspace,
        going: impl IntoIterator<Item = &'a commandtree_exec::history::Run>,
    ) -> usize {
        let mut new: Vec<&commandtree_exec::history::Run> = going
            .into_iter()
            .filter(|r| !runs::is_over(r) && r.log_path.is_some())
            .filter(|r| !self.runs.iter().any(|b| b.run_id == Some(r.run_id)))
            .collect();
        new.sort_by_key(|r| r.run_id);
        for r in &new {
            let log = runs::open_log(ws, r).ok();
            self.runs.push(BgRun {
                here: false,
                ..BgRun::new(Some(r.run_id), r.label.clone(), log)
            });
        }
        new.len()
    }

    /// Shows or hides the pane; either way the tree has the keys.
    pub fn toggle(&mut self) {
        self.open = !self.open;
        self.focus = false;
    }

    /// The keys of the pane when it has them.
    pub fn key(&mut self, a: Action) -> RunsKey {
        match a {
            Action::Leave => self.focus = false,
            Action::ToggleRuns => self.toggle(),
            Action::Up => self.sel = self.sel.saturating_sub(1),
            Action::Down => self.sel = (self.sel + 1).min(self.runs.len().saturating_sub(1)),
            Action::StopRun => return RunsKey::Stop,
            Action::RestartRun => return RunsKey::Restart,
            Action::Problems => return RunsKey::Problems,
            _ => return RunsKey::Tree,
        }
        RunsKey::Done
    }

    /// A run stopped: its status now.
    pub fn stopped(&mut self, id: i64, status: String) {
        if let Some(r) = self.runs.iter_mut().find(|r| r.run_id == Some(id)) {
            r.status = status;
        }
    }

    /// Every ~250 ms: the runs' new output, and which ended. Whether anything changed, and
    /// whether a run ended (the history has a new end).
    pub fn tick(&mut self, ws: &Workspace, store: &mut Option<Store>) -> (bool, bool) {
        if self.last_tick.elapsed() < Duration::from_millis(250) {
            return (false, false);
        }
        self.last_tick = Instant::now();
        let (mut changed, mut ended) = (false, false);
        for r in self.runs.iter_mut() {
            let before = r.lines.len() + r.partial.len();
            r.read();
            changed |= r.lines.len() + r.partial.len() != before;
            if r.running()
                && let Some(id) = r.run_id
                && let Ok(run) = runs::get(ws, store, id)
                && runs::is_over(&run)
            {
                r.read();
                r.status = run.status.clone();
                r.exit = run.exit_code;
                changed = true;
                ended = true;
            }
        }
        (changed, ended)
    }

    pub fn draw(&self, f: &mut Frame<'_>, area: Rect, t: &Theme) {
        let title = format!(
            " Background runs ({} focus · {} stop · {} restart · {} problems · {} hide) ",
            keymap::key(Context::Tree, Action::FocusRuns),
            keymap::key(Context::Runs, Action::StopRun),
            keymap::key(Context::Runs, Action::RestartRun),
            keymap::key(Context::Runs, Action::Problems),
            keymap::key(Context::Tree, Action::ToggleRuns),
        );
        let block = Block::default()
            .borders(Borders::ALL)
            .title(title)
            .border_style(if self.focus { t.accent() } else { t.dim() });
        let inner = block.inner(area);
        f.render_widget(block, area);
        if self.runs.is_empty() {
            let hint = format!(
                "No background runs yet: {} runs the selected command in the background.",
                keymap::key(Context::Tree, Action::RunBackground)
            );
            f.render_widget(Paragraph::new(Span::styled(hint, t.dim())), inner);
            return;
        }
        let [list, out] =
            Layout::horizontal([Constraint::Length(30), Constraint::Min(10)]).areas(inner);
        let lines: Vec<Line> = self
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let (mark, st) = match (r.running(), r.exit) {
                    (true, _) => ("●", t.accent()),
                    (false, Some(0)) => ("✓", t.ok()),
                    _ => ("✗", t.error()),
                };
                let state = match r.exit {
                    Some(c) => format!("exit {c}"),
                    None => r.status.clone(),
                };
                let line = Line::from(vec![
                    Span::styled(format!("{mark} "), st),
                    Span::raw(r.label.clone()),
                    Span::styled(format!(" {state}"), t.dim()),
                ]);
                super::mark(line, i == self.sel, t)
            })
            .collect();
        f.render_widget(Paragraph::new(lines), list);
        if let Some(r) = self.selected() {
            let tail: Vec<Line> = r
                .tail(out.height as usize)
                .into_iter()
                .map(Line::raw)
                .collect();
            f.render_widget(
                Paragraph::new(tail).block(Block::default().borders(Borders::LEFT)),
                out,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::screen;

    fn run(label: &str, status: &str, exit: Option<i32>, lines: &[&str]) -> BgRun {
        BgRun {
            status: status.into(),
            exit,
            lines: lines.iter().map(|l| l.to_string()).collect(),
            partial: "almost".into(),
            ..BgRun::new(Some(1), label.into(), None)
        }
    }

    fn history_row(run_id: i64, status: &str, log: Option<&str>) -> commandtree_exec::history::Run {
        commandtree_exec::history::Run {
            run_id,
            command_id: format!("make:/w/Makefile:t{run_id}"),
            label: format!("t{run_id}"),
            command_line: String::new(),
            cwd: "/w".into(),
            started_at: String::new(),
            duration_ms: None,
            exit_code: None,
            mode: "detached".into(),
            status: status.into(),
            pid: None,
            log_path: log.map(str::to_string),
            request: String::new(),
        }
    }

    #[test]
    fn runs_another_process_started_join_once_and_do_not_hold_up_quitting() {
        let ws = Workspace::open(Some(std::path::Path::new("/w")), std::path::Path::new("/w"));
        let mut p = RunsPane::default();
        p.push(run("mine", "running", None, &[]));
        let seen = [
            history_row(1, "running", Some("/w/.commandtree/logs/1.log")),
            history_row(7, "running", Some("/w/.commandtree/logs/7.log")),
            history_row(5, "running", Some("/w/.commandtree/logs/5.log")),
            history_row(8, "ok", Some("/w/.commandtree/logs/8.log")),
            history_row(9, "running", None),
        ];
        // Run 1 is the pane's own; 8 ended; 9 ran in a terminal, with no log to show.
        assert_eq!(p.adopt(&ws, &seen), 2);
        let ids: Vec<_> = p.runs.iter().map(|r| r.run_id).collect();
        assert_eq!(ids, [Some(1), Some(5), Some(7)]);
        assert_eq!(p.sel, 0, "the selection stays");
        assert_eq!(p.adopt(&ws, &seen), 0, "already there");
        assert_eq!(
            p.running(),
            1,
            "only the run started here keeps quitting waiting"
        );
    }

    #[test]
    fn an_empty_pane_says_how_to_start_a_run() {
        let p = RunsPane::default();
        insta::assert_snapshot!(screen(100, 4, |f| p.draw(f, f.area(), &Theme::plain())));
    }

    #[test]
    fn runs_and_the_selected_ones_output() {
        let mut p = RunsPane::default();
        p.push(run("build", "ok", Some(0), &["compiling", "done"]));
        p.push(run("serve", "running", None, &["listening on :8080"]));
        p.push(run("lint", "failed", Some(2), &["3 problems"]));
        p.focus = true;
        assert_eq!(p.key(Action::Up), RunsKey::Done);
        assert_eq!(p.selected().unwrap().label, "serve");
        assert_eq!(p.running(), 1);
        insta::assert_snapshot!(screen(80, 6, |f| p.draw(f, f.area(), &Theme::plain())));
        assert_eq!(p.key(Action::StopRun), RunsKey::Stop);
        assert_eq!(p.key(Action::RestartRun), RunsKey::Restart);
        assert_eq!(p.key(Action::Problems), RunsKey::Problems);
        assert_eq!(p.key(Action::Star), RunsKey::Tree);
        assert_eq!(p.key(Action::Leave), RunsKey::Done);
        assert!(!p.focused() && p.open);
        p.key(Action::ToggleRuns);
        assert!(!p.open);
    }

    #[test]
    fn log_lines_lose_escapes_and_control_characters() {
        assert_eq!(clean("\x1b[1;31mred\x1b[0m\tx\x07"), "red    x");
    }
}
