//! The tree: Quick Launch, the categories of commands and the run history as rows
//! ([`rows`](crate::rows)), the selection, what is folded, scrolling and the mouse. Only the
//! rows on screen are turned into text, so a frame costs the screen, not the number of
//! commands.

use super::filter::Passing;
use super::running::RunState;
use crate::keymap::Action;
use crate::rows::{self, Folding, Place, Row, RowId, RowKind, Section};
use crate::theme::Theme;
use commandtree_core::tree::Category;
use commandtree_core::{CommandItem, SortOrder};
use commandtree_engine::{Engine, Loaded, listing, tags};
use commandtree_exec::history::Run;
use ratatui::Frame;
use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// What the rows are made of besides the tree's own state.
#[derive(Clone, Copy)]
pub struct Source<'a> {
    pub commands: &'a [CommandItem],
    pub history: &'a [Run],
    pub passing: Passing<'a>,
}

/// What a mouse event asks of the app.
#[derive(Debug, PartialEq, Eq)]
pub enum Click {
    Nothing,
    /// A double click: run the row, as Enter does.
    Run,
}

pub struct TreeView {
    pub categories: Vec<Category>,
    pub order: SortOrder,
    /// Quick Launch, by command index, in its order.
    pub quick: Vec<usize>,
    pub folding: Folding,
    pub rows: Vec<Row>,
    pub sel: usize,
    pub scroll: usize,
    /// Where the list was drawn, for the mouse and the page size.
    pub area: Rect,
    last_click: Option<(Instant, usize)>,
}

impl TreeView {
    pub fn new(order: SortOrder) -> TreeView {
        TreeView {
            categories: Vec::new(),
            order,
            quick: Vec::new(),
            folding: Folding::default(),
            rows: Vec::new(),
            sel: 0,
            scroll: 0,
            area: Rect::default(),
            last_click: None,
        }
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.rows.get(self.sel)
    }

    /// The selected command's index.
    pub fn selected_command(&self) -> Option<usize> {
        self.selected_row()?.command()
    }

    /// What the selected row is, to find it again after a rebuild.
    pub fn selected_id(&self, commands: &[CommandItem]) -> Option<RowId> {
        let row = self.selected_row()?;
        if row.command().is_some_and(|i| i >= commands.len()) {
            return None;
        }
        Some(RowId::of(row, commands))
    }

    pub fn select_id(&mut self, id: &RowId, commands: &[CommandItem]) -> bool {
        match self.rows.iter().position(|r| id.is(r, commands)) {
            Some(i) => {
                self.sel = i;
                true
            }
            None => false,
        }
    }

    /// The row of command `best` (in the tree rather than Quick Launch), else the first
    /// command.
    pub fn select_best(&mut self, best: Option<usize>) {
        let of = |place: Option<Place>| {
            let rows = &self.rows;
            move |b: usize| {
                rows.iter().position(|r| {
                    r.command() == Some(b) && place.is_none_or(|p| r.place() == Some(p))
                })
            }
        };
        let best_row = best.and_then(|b| of(Some(Place::Tree))(b).or_else(|| of(None)(b)));
        if let Some(i) = best_row.or_else(|| {
            self.rows
                .iter()
                .position(|r| r.place() == Some(Place::Tree))
                .or_else(|| self.rows.iter().position(|r| r.command().is_some()))
        }) {
            self.sel = i;
        }
        self.clamp();
    }

    pub fn clamp(&mut self) {
        if self.sel >= self.rows.len() {
            self.sel = self.rows.len().saturating_sub(1);
        }
    }

    pub fn move_by(&mut self, d: isize) {
        if self.rows.is_empty() {
            return;
        }
        let n = self.rows.len() as isize;
        self.sel = (self.sel as isize + d).clamp(0, n - 1) as usize;
    }

    /// The categories again, for these commands in the current order.
    pub fn regroup(&mut self, engine: &Engine, commands: &[CommandItem]) {
        self.categories = engine.tree(commands, Some(self.order));
    }

    /// Quick Launch again, from the database's tags.
    pub fn requick(&mut self, loaded: Option<&Loaded>) {
        let commands = loaded.map_or(&[][..], |l| &l.commands[..]);
        self.quick = match loaded.map(tags::quick) {
            Some(Ok(q)) => {
                let at: HashMap<&str, usize> = commands
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (c.id.as_str(), i))
                    .collect();
                q.iter()
                    .filter_map(|c| at.get(c.id.as_str()).copied())
                    .collect()
            }
            _ => Vec::new(),
        };
    }

    /// The next sort order (`g`).
    pub fn resort(&mut self) -> SortOrder {
        self.order = match self.order {
            SortOrder::Folder => SortOrder::Name,
            SortOrder::Name => SortOrder::Type,
            SortOrder::Type => SortOrder::Folder,
        };
        self.order
    }

    pub fn rebuild(&mut self, s: &Source<'_>) {
        self.rows = rows::build(&rows::Inputs {
            commands: s.commands,
            tree: &self.categories,
            quick: &self.quick,
            history_len: s.history.len(),
            folding: &self.folding,
            visible: s.passing.visible,
            force_open: s.passing.narrowed,
            search: s.passing.search,
        });
    }

    /// Rebuilds the rows, keeping `keep` selected.
    pub fn rebuild_keeping(&mut self, s: &Source<'_>, keep: Option<RowId>) {
        self.rebuild(s);
        if let Some(k) = keep {
            self.select_id(&k, s.commands);
        }
        self.clamp();
    }

    /// Rebuilds the rows after a fold or unfold: the selection stays, or, when it is inside
    /// something now closed, goes to the nearest enclosing row still shown.
    pub fn refold(&mut self, s: &Source<'_>) {
        let keep = self.selected_id(s.commands);
        let mut enclosing = Vec::new();
        if let Some(row) = self.selected_row() {
            let mut depth = row.depth;
            for r in self.rows[..self.sel].iter().rev() {
                if r.depth < depth {
                    enclosing.push(r.key.clone());
                    depth = r.depth;
                }
            }
        }
        self.rebuild(s);
        let found = keep.is_some_and(|k| self.select_id(&k, s.commands))
            || enclosing
                .into_iter()
                .any(|k| self.select_id(&RowId::Group(k), s.commands));
        if !found {
            self.clamp();
        }
    }

    /// Moving and folding; whether `a` was one of those.
    pub fn key(&mut self, a: Action, s: &Source<'_>) -> bool {
        let page = self.area.height.saturating_sub(2).max(1) as isize;
        match a {
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-page),
            Action::PageDown => self.move_by(page),
            Action::First => self.sel = 0,
            Action::Last => self.sel = self.rows.len().saturating_sub(1),
            Action::Close => self.close(s),
            Action::Open => self.open(s),
            Action::Toggle => self.toggle(s),
            Action::ExpandAll | Action::CollapseAll => {
                self.folding.all(a == Action::ExpandAll);
                self.refold(s);
            }
            _ => return false,
        }
        true
    }

    fn close(&mut self, s: &Source<'_>) {
        let Some(r) = self.selected_row().cloned() else {
            return;
        };
        if r.expandable() && r.open {
            self.folding.set(&r.key, false);
            self.refold(s);
        } else if r.depth > 0 {
            // To the parent.
            if let Some(p) = self.rows[..self.sel]
                .iter()
                .rposition(|x| x.depth < r.depth && x.expandable())
            {
                self.sel = p;
            }
        }
    }

    fn open(&mut self, s: &Source<'_>) {
        let Some(r) = self.selected_row().cloned() else {
            return;
        };
        if r.expandable() {
            if !r.open {
                self.folding.set(&r.key, true);
                self.refold(s);
            } else {
                self.move_by(1);
            }
        }
    }

    pub fn toggle(&mut self, s: &Source<'_>) {
        if let Some(r) = self.selected_row().cloned()
            && r.expandable()
        {
            self.folding.set(&r.key, !r.open);
            self.refold(s);
        }
    }

    /// The wheel scrolls, a click selects (and opens or closes a group), a double click runs.
    pub fn mouse(&mut self, m: MouseEvent, s: &Source<'_>) -> Click {
        let a = self.area;
        let inside = m.column >= a.x
            && m.column < a.x + a.width
            && m.row > a.y
            && m.row < a.y + a.height.saturating_sub(1);
        match m.kind {
            MouseEventKind::ScrollDown if inside => self.move_by(3),
            MouseEventKind::ScrollUp if inside => self.move_by(-3),
            MouseEventKind::Down(MouseButton::Left) if inside => {
                let i = self.scroll + (m.row - a.y - 1) as usize;
                if i < self.rows.len() {
                    let double = self
                        .last_click
                        .is_some_and(|(t, r)| r == i && t.elapsed() < Duration::from_millis(400));
                    self.sel = i;
                    self.last_click = Some((Instant::now(), i));
                    if double {
                        self.last_click = None;
                        return Click::Run;
                    }
                    if self.rows[i].expandable() {
                        self.toggle(s);
                    }
                }
            }
            _ => {}
        }
        Click::Nothing
    }

    /// The list in its frame. `placeholder` instead of rows while nothing is loaded;
    /// `highlight` gives the matched characters of a command's label.
    pub fn draw(
        &mut self,
        f: &mut Frame<'_>,
        area: Rect,
        t: &Theme,
        look: Look<'_>,
        highlight: &mut dyn FnMut(usize) -> Vec<u32>,
    ) {
        self.area = area;
        let block = Block::default()
            .borders(Borders::ALL)
            .title(look.title.as_str())
            .border_style(if look.focused { t.accent() } else { t.dim() });
        let inner = block.inner(area);
        f.render_widget(block, area);
        if let Some(text) = look.placeholder {
            f.render_widget(Paragraph::new(Span::styled(text, t.dim())), inner);
            return;
        }
        let h = inner.height as usize;
        if self.sel < self.scroll {
            self.scroll = self.sel;
        } else if h > 0 && self.sel >= self.scroll + h {
            self.scroll = self.sel + 1 - h;
        }
        if self.scroll + h > self.rows.len() {
            self.scroll = self.rows.len().saturating_sub(h);
        }
        let end = (self.scroll + h).min(self.rows.len());
        let lines: Vec<Line> = (self.scroll..end)
            .map(|i| {
                super::mark(
                    row_line(&self.rows[i], t, &look, highlight),
                    i == self.sel,
                    t,
                )
            })
            .collect();
        f.render_widget(Paragraph::new(lines), inner);
    }
}

/// How the list looks this frame.
pub struct Look<'a> {
    pub title: String,
    pub focused: bool,
    pub placeholder: Option<String>,
    pub commands: &'a [CommandItem],
    pub history: &'a [Run],
    /// What each command's runs are doing, for the mark after its label.
    pub states: &'a RunState,
}

fn row_line(
    row: &Row,
    t: &Theme,
    look: &Look<'_>,
    highlight: &mut dyn FnMut(usize) -> Vec<u32>,
) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = vec![Span::raw("  ".repeat(row.depth as usize))];
    let arrow = |open: bool| if open { "▾ " } else { "▸ " };
    let group = |spans: &mut Vec<Span<'static>>, name: String, style: Style, count: usize| {
        spans.push(Span::raw(arrow(row.open)));
        spans.push(Span::styled(name, style));
        spans.push(Span::styled(format!(" ({count})"), t.dim()));
    };
    match &row.kind {
        RowKind::Section { section, count } => {
            let (name, style) = match section {
                Section::Quick => ("★ Quick Launch", t.warn()),
                Section::History => ("◷ History", t.accent().add_modifier(Modifier::BOLD)),
                Section::Search => ("? Search results", t.accent().add_modifier(Modifier::BOLD)),
            };
            group(&mut spans, name.into(), style, *count);
        }
        RowKind::Category { label, count } => {
            group(&mut spans, label.to_string(), t.bold(), *count);
        }
        RowKind::Folder { label, count } => {
            let style = t.fg(Color::Blue).add_modifier(Modifier::BOLD);
            group(&mut spans, format!("{label}/"), style, *count);
        }
        RowKind::Command { idx, score, place } => {
            let positions = highlight(*idx);
            let c = &look.commands[*idx];
            let badge = look.states.badge(&c.id, t);
            command_spans(&mut spans, t, c, (*score, *place), &positions, badge);
        }
        RowKind::Run(n) => {
            if let Some(r) = look.history.get(*n) {
                let (mark, st) = match (r.status.as_str(), r.exit_code) {
                    ("ok", _) => ("✓", t.ok()),
                    ("running", _) => ("●", t.accent()),
                    (_, Some(_)) => ("✗", t.error()),
                    _ => ("?", t.dim()),
                };
                spans.push(Span::raw("  "));
                spans.push(Span::styled(format!("{mark} "), st));
                spans.push(Span::raw(r.label.clone()));
                let exit = r
                    .exit_code
                    .map(|c| format!(" exit {c}"))
                    .unwrap_or_default();
                let dur = r
                    .duration_ms
                    .map(commandtree_core::text::duration)
                    .unwrap_or_default();
                spans.push(Span::styled(
                    format!("  {}{exit} {dur} · {}", r.status, r.mode),
                    t.dim(),
                ));
            }
        }
        RowKind::Note(text) => {
            spans.push(Span::styled(format!("  {text}"), t.dim()));
        }
    }
    Line::from(spans)
}

fn command_spans(
    spans: &mut Vec<Span<'static>>,
    t: &Theme,
    c: &CommandItem,
    (score, place): (Option<f32>, Place),
    positions: &[u32],
    run: Vec<Span<'static>>,
) {
    let in_quick = place == Place::Quick;
    spans.push(Span::raw("  "));
    spans.push(t.icon(&c.kind));
    if c.security_warning
        .as_deref()
        .is_some_and(|w| !w.trim().is_empty())
    {
        spans.push(Span::styled("⚠ ", t.warn()));
    }
    let own = listing::Show {
        all: false,
        docs: true,
    };
    let base = if listing::shown(c, own) {
        Style::new()
    } else {
        t.dim()
    };
    if positions.is_empty() {
        spans.push(Span::styled(c.label.clone(), base));
    } else {
        for (n, ch) in c.label.chars().enumerate() {
            let st = if positions.binary_search(&(n as u32)).is_ok() {
                t.matched()
            } else {
                base
            };
            spans.push(Span::styled(ch.to_string(), st));
        }
    }
    if let Some(s) = score {
        spans.push(Span::styled(
            format!("  {:.0}%", s * 100.0),
            t.ok().add_modifier(Modifier::BOLD),
        ));
    }
    if in_quick || score.is_some() {
        spans.push(Span::styled(format!("  {}", c.kind), t.dim()));
    }
    let tags: Vec<&str> = c
        .tags
        .iter()
        .map(String::as_str)
        .filter(|t| *t != commandtree_store::QUICK_TAG)
        .collect();
    if c.tags.iter().any(|x| x == commandtree_store::QUICK_TAG) && !in_quick {
        spans.push(Span::styled(" ★", t.warn()));
    }
    spans.extend(run);
    if !tags.is_empty() {
        spans.push(Span::styled(format!(" [{}]", tags.join(", ")), t.accent()));
    }
    if let Some(d) = c.description.as_deref().or(c.summary.as_deref()) {
        let first = d.lines().next().unwrap_or("");
        spans.push(Span::styled(format!("  {first}"), t.dim()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::{sample as commands, screen};
    use crate::keymap::{self, Context};
    use commandtree_core::Workspace;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    fn tree(commands: &[CommandItem]) -> TreeView {
        let mut t = TreeView::new(SortOrder::Folder);
        t.categories =
            Workspace::open(Some(std::path::Path::new("/w")), std::path::Path::new("/w"))
                .tree(commands, None);
        t.quick = vec![3];
        t.rebuild(&source(commands));
        t
    }

    fn source(commands: &[CommandItem]) -> Source<'_> {
        Source {
            commands,
            history: &[],
            passing: Passing::default(),
        }
    }

    fn draw(t: &mut TreeView, commands: &[CommandItem], h: u16) -> String {
        draw_with(t, commands, h, &RunState::default())
    }

    fn draw_with(t: &mut TreeView, commands: &[CommandItem], h: u16, states: &RunState) -> String {
        screen(60, h, |f| {
            let look = Look {
                title: " CommandTree — w ".into(),
                focused: true,
                placeholder: None,
                commands,
                history: &[],
                states,
            };
            let mut highlight = |i: usize| {
                if commands[i].label == "lint" {
                    vec![0, 1]
                } else {
                    Vec::new()
                }
            };
            t.draw(f, f.area(), &Theme::plain(), look, &mut highlight);
        })
    }

    /// Presses `code` as the app does: the tree's keys from the keymap.
    fn press(t: &mut TreeView, commands: &[CommandItem], code: KeyCode) {
        let k = ratatui::crossterm::event::KeyEvent::new(code, KeyModifiers::NONE);
        let (_, a) = keymap::action(Context::Tree, &k).unwrap();
        assert!(t.key(a, &source(commands)), "{code:?} is the tree's");
    }

    #[test]
    fn quick_launch_categories_folders_and_marks() {
        let commands = commands();
        let mut t = tree(&commands);
        t.sel = 1;
        insta::assert_snapshot!(draw(&mut t, &commands, 14));
    }

    #[test]
    fn keys_move_fold_and_go_to_the_parent() {
        let commands = commands();
        let mut t = tree(&commands);
        let label = |t: &TreeView| {
            t.selected_command()
                .map(|i| commands[i].label.clone())
                .unwrap_or_else(|| t.selected_row().unwrap().key.clone())
        };
        press(&mut t, &commands, KeyCode::End);
        assert_eq!(label(&t), "x.sh");
        press(&mut t, &commands, KeyCode::Char('k'));
        assert_eq!(label(&t), "greet.sh");
        press(&mut t, &commands, KeyCode::Char('h'));
        assert!(label(&t).ends_with("/scripts"), "{}", label(&t));
        press(&mut t, &commands, KeyCode::Left);
        let shown = draw(&mut t, &commands, 14);
        assert!(shown.contains("▸ scripts/ (2)"), "{shown}");
        press(&mut t, &commands, KeyCode::Char('C'));
        let shown = draw(&mut t, &commands, 14);
        assert!(shown.contains("▸ Shell Scripts (3)"), "{shown}");
        assert!(
            label(&t).starts_with("c:shell"),
            "the enclosing category: {}",
            label(&t)
        );
        press(&mut t, &commands, KeyCode::Char('E'));
        press(&mut t, &commands, KeyCode::Home);
        press(&mut t, &commands, KeyCode::Char(' '));
        assert!(draw(&mut t, &commands, 14).contains("▸ ★ Quick Launch (1)"));
        press(&mut t, &commands, KeyCode::Char('l'));
        press(&mut t, &commands, KeyCode::Char('l'));
        assert_eq!(label(&t), "greet.sh");
        assert_eq!(t.selected_row().unwrap().place(), Some(Place::Quick));
    }

    /// A command running shows how long, one that ran shows how it ended, until it runs again.
    #[test]
    fn rows_show_what_each_commands_runs_are_doing() {
        use crate::components::running::run;
        let commands = commands();
        let mut t = tree(&commands);
        let mut states = RunState::default();
        states.set(
            [
                (
                    commands[0].id.clone(),
                    run(5, &commands[0].id, "running", None),
                ),
                (
                    commands[1].id.clone(),
                    run(4, &commands[1].id, "failed", Some(2)),
                ),
                (
                    commands[3].id.clone(),
                    run(3, &commands[3].id, "ok", Some(0)),
                ),
                (
                    commands[4].id.clone(),
                    run(2, &commands[4].id, "stopped", Some(137)),
                ),
            ]
            .into(),
        );
        states.at(crate::components::running::started() + Duration::from_millis(75_400));
        insta::assert_snapshot!(draw_with(&mut t, &commands, 14, &states));
    }

    /// A command that reruns on change says so on its row, with its run's state beside it.
    #[test]
    fn a_command_that_reruns_on_change_is_marked() {
        use crate::components::running::run;
        let commands = commands();
        let mut t = tree(&commands);
        let mut states = RunState::default();
        states.set(
            [(
                commands[0].id.clone(),
                run(7, &commands[0].id, "running", None),
            )]
            .into(),
        );
        states.at(crate::components::running::started() + Duration::from_secs(3));
        states.set_watched(&commands[0].id, true);
        states.set_watched(&commands[3].id, true);
        let shown = draw_with(&mut t, &commands, 14, &states);
        insta::assert_snapshot!(shown);
        states.set_watched(&commands[3].id, false);
        let shown = draw_with(&mut t, &commands, 14, &states);
        assert_eq!(shown.matches('↻').count(), 1, "{shown}");
    }

    #[test]
    fn the_list_scrolls_to_the_selection() {
        let commands = commands();
        let mut t = tree(&commands);
        press(&mut t, &commands, KeyCode::End);
        let shown = draw(&mut t, &commands, 5);
        assert!(
            shown.contains("greet.sh") && !shown.contains("Quick"),
            "{shown}"
        );
    }

    #[test]
    fn a_click_selects_and_a_double_click_runs() {
        let commands = commands();
        let mut t = tree(&commands);
        draw(&mut t, &commands, 14);
        let click = |row| MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 5,
            row,
            modifiers: KeyModifiers::NONE,
        };
        assert_eq!(t.mouse(click(2), &source(&commands)), Click::Nothing);
        assert_eq!(t.sel, 1);
        assert_eq!(t.mouse(click(2), &source(&commands)), Click::Run);
    }
}
