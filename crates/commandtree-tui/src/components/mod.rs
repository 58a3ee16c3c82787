//! The parts of the screen. Each holds its own state, draws itself and carries out the
//! [`Action`](crate::keymap::Action)s of its [`Context`](crate::keymap::Context); what needs
//! the engine (running, tagging, asking a model) goes back to [`App`](crate::app::App) as an
//! [`Outcome`] or a return value. None of them reads the terminal.
//!
//! The tree, the filter bar, the detail pane, the runs pane and the status line are always
//! there, with [`running`] (what each command's runs are doing, and which rerun on change:
//! [`rerun`]) marking the tree and the details; the popups ([`help`], [`params`], [`confirm`], [`picker`], [`prompt`],
//! [`problems`], [`deps`]) come and go.

pub mod confirm;
pub mod deps;
pub mod detail;
pub mod filter;
pub mod help;
pub mod params;
pub mod picker;
pub mod problems;
pub mod prompt;
pub mod rerun;
pub mod running;
pub mod runs;
pub mod status;
pub mod tree;

use crate::keymap::{self, Action, Context};
use crate::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// What a popup says after a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Still open.
    Stay,
    /// Closed without its answer.
    Cancel,
    /// Closed with its answer (the popup holds it).
    Done,
}

pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// A popup's frame at `r`: cleared, bordered, titled; `lines` wrapped inside from `scroll`.
pub fn popup(
    f: &mut Frame<'_>,
    r: Rect,
    t: &Theme,
    title: &str,
    lines: Vec<Line<'_>>,
    scroll: usize,
) {
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(format!(" {title} "))
                    .border_style(t.accent()),
            ),
        r,
    );
}

/// A popup `width` columns wide and as tall as `lines` and the footer of `keys` (in
/// `style`), centered in `area`.
pub fn fitted(
    f: &mut Frame<'_>,
    (area, width): (Rect, u16),
    t: &Theme,
    title: &str,
    mut lines: Vec<Line<'_>>,
    (keys, style): (Context, Style),
) {
    let inner = width.saturating_sub(2);
    lines.extend(footer(keys, inner, style));
    let h = rows(&lines, inner) as u16 + 2;
    popup(f, centered(area, width, h), t, title, lines, 0);
}

/// `line`, reversed when it is the selected one.
pub fn mark<'a>(line: Line<'a>, selected: bool, t: &Theme) -> Line<'a> {
    if selected {
        line.style(t.selected())
    } else {
        line
    }
}

/// The keys of `context` as footer lines fitting `width` columns.
pub fn footer(context: Context, width: u16, style: Style) -> Vec<Line<'static>> {
    keymap::footer_lines(context, usize::from(width))
        .into_iter()
        .map(|l| Line::styled(l, style))
        .collect()
}

/// How many rows `lines` take when wrapped to `width` columns (at least: wrapping at words can
/// take more).
pub fn rows(lines: &[Line<'_>], width: u16) -> usize {
    let w = usize::from(width.max(1));
    lines.iter().map(|l| l.width().max(1).div_ceil(w)).sum()
}

/// A scroll position moved by a scrolling action, at most `last`; `page` rows a page. Whether
/// the action was a scroll.
pub fn scroll(at: &mut usize, a: Action, page: usize, last: usize) -> bool {
    *at = match a {
        Action::Up => at.saturating_sub(1),
        Action::Down => *at + 1,
        Action::PageUp => at.saturating_sub(page),
        Action::PageDown => *at + page,
        _ => return false,
    }
    .min(last);
    true
}

/// The first row a list shows so that row `sel` is in view, from `scroll` (the first row shown
/// until now) and `room` (rows it has).
pub fn in_view(sel: usize, scroll: usize, room: usize) -> usize {
    if sel < scroll {
        sel
    } else if sel >= scroll + room {
        sel + 1 - room
    } else {
        scroll
    }
}

/// A path relative to the workspace root, for display.
pub fn rel(root: &std::path::Path, p: &str) -> String {
    match std::path::Path::new(p).strip_prefix(root) {
        Ok(r) if r.as_os_str().is_empty() => ".".into(),
        Ok(r) => r.display().to_string(),
        Err(_) => p.to_string(),
    }
}

/// Commands for the components' tests, in `/w`: npm `build` (described, tagged `ci`) and
/// `lint`, the make target `rebuild-all`, the scripts `greet.sh` (in Quick Launch, tagged) and
/// `clean.sh` (with a warning), and an auxiliary example.
#[cfg(test)]
pub fn sample() -> Vec<commandtree_core::CommandItem> {
    let root = std::path::Path::new("/w");
    let c = |kind, file: &str, label, command| {
        commandtree_core::CommandItem::new(kind, &root.join(file), label, command)
    };
    let mut out = vec![
        c("npm", "package.json", "build", "tsc -p ."),
        c("npm", "package.json", "lint", "eslint ."),
        c("make", "Makefile", "rebuild-all", "make all"),
        c("shell", "scripts/greet.sh", "greet.sh", "sh greet.sh"),
        c("shell", "scripts/clean.sh", "clean.sh", "sh clean.sh"),
        c("shell", "examples/x.sh", "x.sh", "sh x.sh"),
    ];
    out[0].description = Some("Compiles.".into());
    out[0].tags = vec!["ci".into()];
    out[3].tags = vec![commandtree_store::QUICK_TAG.into(), "demo".into()];
    out[4].security_warning = Some("Deletes files.".into());
    out[5].auxiliary = true;
    out
}

/// Draws into a test terminal and returns the screen as text, trailing blanks cut.
#[cfg(test)]
pub fn screen(w: u16, h: u16, draw: impl FnOnce(&mut Frame<'_>)) -> String {
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    term.draw(draw).unwrap();
    let buf = term.backend().buffer().clone();
    (0..buf.area.height)
        .map(|y| {
            let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            format!("{}\n", line.trim_end())
        })
        .collect()
}

#[cfg(test)]
pub fn press(code: ratatui::crossterm::event::KeyCode) -> ratatui::crossterm::event::KeyEvent {
    ratatui::crossterm::event::KeyEvent::new(code, ratatui::crossterm::event::KeyModifiers::NONE)
}
