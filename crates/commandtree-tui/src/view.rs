//! The screen's layout: where each component draws. The components draw themselves; this only
//! cuts the screen and hands each its area and what it shows of the app.

use crate::app::{App, Popup};
use crate::components::detail::{Details, Shown};
use crate::components::status::Facts;
use crate::components::tree::Look;
use crate::rows::RowKind;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};

/// Below this the details pane folds away (an 80×24 terminal shows the list alone).
pub fn narrow(area: Rect) -> bool {
    area.width <= 80 || area.height <= 24
}

pub fn draw(f: &mut Frame<'_>, app: &mut App) {
    let area = f.area();
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let (upper, runs_area) = if app.runs.open {
        let [u, r] =
            Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(main);
        (u, Some(r))
    } else {
        (main, None)
    };
    let (list, details) = if narrow(area) {
        (upper, None)
    } else {
        let [l, d] = Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
            .areas(upper);
        (l, Some(d))
    };
    let name = app.name();
    let keys = app.pane_context();
    let App {
        engine,
        loaded,
        load_error,
        history,
        theme: t,
        tree,
        filter,
        detail,
        runs,
        status: line,
        popup,
        states,
        ..
    } = app;
    let (loaded, history): (&_, &_) = (loaded, history);
    let commands = loaded.as_ref().map_or(&[][..], |l| &l.commands[..]);
    let (ws, root) = (engine.workspace(), engine.root());
    let make = |c: &commandtree_core::CommandItem| Details::of(ws, loaded.as_ref(), c);

    let look = Look {
        title: match loaded {
            None => " CommandTree ".to_string(),
            Some(_) => format!(" CommandTree — {name} "),
        },
        focused: !runs.focus,
        placeholder: loaded.is_none().then(|| {
            load_error
                .clone()
                .or_else(|| line.progress.clone())
                .unwrap_or_default()
        }),
        commands,
        history,
        states,
    };
    tree.draw(f, list, t, look, &mut |i| filter.positions(i, commands));
    let shown = match tree.selected_row().map(|r| &r.kind) {
        Some(RowKind::Command { idx, .. }) => {
            commands.get(*idx).map_or(Shown::Nothing, Shown::Command)
        }
        Some(RowKind::Run(n)) => history.get(*n).map_or(Shown::Nothing, Shown::Run),
        _ => Shown::Nothing,
    };
    if let Some(d) = details {
        detail.draw(f, d, t, (shown, root, states), make);
    }
    if let Some(r) = runs_area {
        runs.draw(f, r, t);
    }
    let facts = Facts {
        name: &name,
        counts: loaded.is_some().then(|| filter.counts(commands.len())),
        filter: filter.spans(t),
        running: states.running().max(runs.running()),
        untrusted: matches!(
            ws.settings.trust,
            commandtree_core::trust::Status::Untrusted { .. }
        ),
        keys,
    };
    line.draw(f, status, t, facts);
    match popup {
        None => {}
        Some(Popup::Help(v)) => v.draw_help(f, area, t),
        Some(Popup::Details(v)) => {
            let lines = detail.lines(t, area.width.saturating_sub(4), (shown, root, states), make);
            v.draw(f, area, t, ("Details", lines), (area.width, area.height));
        }
        Some(Popup::Quit(c)) => c.draw(f, area, t),
        Some(Popup::Confirm(c)) => c.draw(f, area, t),
        Some(Popup::Proposal(c)) => c.draw(f, area, t),
        Some(Popup::Params(p)) => p.draw(f, area, t),
        Some(Popup::Prompt(p)) => p.draw(f, area, t),
        Some(Popup::Pick(p)) => p.draw(f, area, t),
        Some(Popup::Problems(p)) => p.draw(f, area, t),
        Some(Popup::Deps(d)) => d.draw(f, area, t),
    }
}
