//! Drawing. Only the rows on screen are turned into text, so a frame costs the screen, not the
//! number of commands. Colours are the terminal's own named ones (they follow its light or dark
//! palette); with `NO_COLOR` only bold, dim and reverse remain.

use crate::app::{App, Level, Popup};
use crate::rows::{Place, RowKind, Section};
use commandtree_engine::listing;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

struct Theme {
    color: bool,
}

impl Theme {
    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }
    fn dim(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }
    fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }
    fn warn(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    fn accent(&self) -> Style {
        self.fg(Color::Cyan)
    }
    fn matched(&self) -> Style {
        self.fg(Color::Magenta)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
    /// One glyph and colour per type, as the extension's tree gives each type its icon.
    fn icon(&self, kind: &str) -> Span<'static> {
        let (g, c) = match kind {
            "shell" | "powershell" => ("$", Color::Green),
            "npm" | "deno" | "turbo" | "nx" => ("⬢", Color::Red),
            "make" | "just" | "taskfile" | "mise" | "rake" | "procfile" => ("⚒", Color::Yellow),
            "launch" => ("▶", Color::Magenta),
            "vscode" => ("◆", Color::Blue),
            "python" | "pyproject" => ("π", Color::Blue),
            "cargo" => ("⚙", Color::Red),
            "gradle" | "maven" | "ant" => ("☕", Color::Yellow),
            "docker" => ("▣", Color::Cyan),
            "dotnet" | "csharp-script" | "fsharp-script" => ("#", Color::Magenta),
            "markdown" => ("¶", Color::Gray),
            "composer" => ("♪", Color::Magenta),
            "workflow" => ("↻", Color::Cyan),
            "prompt" => (">", Color::Cyan),
            "agent" => ("@", Color::Cyan),
            "skill" => ("✦", Color::Cyan),
            "instructions" => ("i", Color::Cyan),
            "playbook" => ("▤", Color::Magenta),
            _ => ("•", Color::Gray),
        };
        Span::styled(format!("{g} "), self.fg(c))
    }
}

/// Below this the details pane folds away (an 80×24 terminal shows the list alone).
pub fn narrow(area: Rect) -> bool {
    area.width <= 80 || area.height <= 24
}

pub fn draw(f: &mut Frame<'_>, app: &mut App) {
    let t = Theme { color: app.color };
    let area = f.area();
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let (upper, runs) = if app.runs_pane {
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
    draw_list(f, app, &t, list);
    if let Some(d) = details {
        draw_details(f, app, &t, d);
    }
    if let Some(r) = runs {
        draw_runs(f, app, &t, r);
    }
    draw_status(f, app, &t, status);
    if let Some(p) = app.popup.clone() {
        draw_popup(f, app, &t, &p, area);
    }
}

fn draw_list(f: &mut Frame<'_>, app: &mut App, t: &Theme, area: Rect) {
    app.list_area = area;
    let title = if app.loaded.is_none() {
        " CommandTree ".to_string()
    } else {
        format!(" CommandTree — {} ", app.name)
    };
    let focused = !app.runs_focus;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(if focused { t.accent() } else { t.dim() });
    let inner = block.inner(area);
    f.render_widget(block, area);
    if app.loaded.is_none() {
        let text = app
            .load_error
            .clone()
            .or_else(|| app.progress.clone())
            .unwrap_or_default();
        f.render_widget(Paragraph::new(Span::styled(text, t.dim())), inner);
        return;
    }
    let h = inner.height as usize;
    if app.sel < app.scroll {
        app.scroll = app.sel;
    } else if h > 0 && app.sel >= app.scroll + h {
        app.scroll = app.sel + 1 - h;
    }
    if app.scroll + h > app.rows.len() {
        app.scroll = app.rows.len().saturating_sub(h);
    }
    let end = (app.scroll + h).min(app.rows.len());
    let mut lines = Vec::with_capacity(h);
    for i in app.scroll..end {
        let mut line = row_line(app, t, i);
        if i == app.sel {
            line = line.style(Style::new().add_modifier(Modifier::REVERSED));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inner);
}

fn row_line(app: &mut App, t: &Theme, i: usize) -> Line<'static> {
    let row = app.rows[i].clone();
    let mut spans: Vec<Span<'static>> = vec![Span::raw("  ".repeat(row.depth as usize))];
    let arrow = |open: bool| if open { "▾ " } else { "▸ " };
    match &row.kind {
        RowKind::Section { section, count } => {
            let (name, style) = match section {
                Section::Quick => ("★ Quick Launch", t.warn()),
                Section::History => ("◷ History", t.accent().add_modifier(Modifier::BOLD)),
                Section::Search => ("? Search results", t.accent().add_modifier(Modifier::BOLD)),
            };
            spans.push(Span::raw(arrow(row.open)));
            spans.push(Span::styled(name, style));
            spans.push(Span::styled(format!(" ({count})"), t.dim()));
        }
        RowKind::Category { label, count } => {
            spans.push(Span::raw(arrow(row.open)));
            spans.push(Span::styled(label.to_string(), t.bold()));
            spans.push(Span::styled(format!(" ({count})"), t.dim()));
        }
        RowKind::Folder { label, count } => {
            spans.push(Span::raw(arrow(row.open)));
            spans.push(Span::styled(
                format!("{label}/"),
                t.fg(Color::Blue).add_modifier(Modifier::BOLD),
            ));
            spans.push(Span::styled(format!(" ({count})"), t.dim()));
        }
        RowKind::Command { idx, score, place } => {
            let in_quick = *place == Place::Quick;
            let idx = *idx;
            let positions = app.match_positions(idx);
            let c = &app.commands()[idx];
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
                    t.fg(Color::Green).add_modifier(Modifier::BOLD),
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
            if !tags.is_empty() {
                spans.push(Span::styled(format!(" [{}]", tags.join(", ")), t.accent()));
            }
            if let Some(d) = c.description.as_deref().or(c.summary.as_deref()) {
                let first = d.lines().next().unwrap_or("");
                spans.push(Span::styled(format!("  {first}"), t.dim()));
            }
        }
        RowKind::Run(n) => {
            if let Some(r) = app.history.get(*n) {
                let (mark, st) = match (r.status.as_str(), r.exit_code) {
                    ("ok", _) => ("✓", t.fg(Color::Green)),
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
                let dur = r.duration_ms.map(duration).unwrap_or_default();
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

pub use commandtree_core::text::duration;

fn details_lines(app: &mut App, t: &Theme, width: u16) -> Vec<Line<'static>> {
    let Some(c) = app.selected_command().cloned() else {
        let mut out = vec![Line::styled("Select a command to see it here.", t.dim())];
        if let Some(r) = app.selected_row()
            && let RowKind::Run(n) = r.kind
            && let Some(run) = app.history.get(n)
        {
            out = vec![
                Line::styled(run.label.clone(), t.bold()),
                field(t, "command", &run.command_line),
                field(t, "cwd", &app.rel(&run.cwd)),
                field(t, "started", &run.started_at.replace('T', " ")),
                field(
                    t,
                    "status",
                    &format!(
                        "{}{}",
                        run.status,
                        run.exit_code
                            .map(|c| format!(" (exit {c})"))
                            .unwrap_or_default()
                    ),
                ),
                Line::styled("Enter runs it again.", t.dim()),
            ];
        }
        return out;
    };
    let d = app.details().cloned().unwrap_or_default();
    let mut out = vec![Line::from(vec![
        t.icon(&c.kind),
        Span::styled(c.label.clone(), t.bold()),
        Span::styled(format!("  {} · {}", c.kind, c.category), t.dim()),
    ])];
    if let Some(w) = c
        .security_warning
        .as_deref()
        .filter(|w| !w.trim().is_empty())
    {
        out.push(Line::styled(format!("⚠ {w}"), t.warn()));
    }
    out.push(field(t, "runs", &d.line));
    out.push(field(
        t,
        "cwd",
        &app.rel(if c.cwd.is_empty() { "." } else { &c.cwd }),
    ));
    let file = match c.line {
        Some(l) => format!("{}:{l}", app.rel(&c.file_path)),
        None => app.rel(&c.file_path),
    };
    out.push(field(t, "file", &file));
    if let Some(desc) = &c.description {
        out.push(field(t, "description", desc));
    }
    if !c.tags.is_empty() {
        out.push(field(t, "tags", &c.tags.join(", ")));
    }
    if let Some(s) = &c.summary {
        out.push(field(t, "summary", s));
    }
    if !c.params.is_empty() {
        out.push(Line::styled("parameters", t.dim()));
        for p in &c.params {
            let mut s = vec![Span::styled(format!("  {}", p.name), t.accent())];
            if let Some(d) = &p.description {
                s.push(Span::raw(format!("  {d}")));
            }
            if let Some(d) = &p.default {
                s.push(Span::styled(format!("  (default: {d})"), t.dim()));
            }
            if !p.options.is_empty() {
                s.push(Span::styled(
                    format!("  [{}]", p.options.join(" | ")),
                    t.dim(),
                ));
            }
            out.push(Line::from(s));
        }
    }
    if let Some(p) = &d.preview {
        let rule = "─".repeat(width.saturating_sub(14) as usize);
        out.push(Line::styled(format!("─ definition {rule}"), t.dim()));
        let last = p.first_line + p.text.lines().count();
        let wnum = last.to_string().len();
        for (n, l) in p.text.lines().take(200).enumerate() {
            out.push(Line::from(vec![
                Span::styled(format!("{:>wnum$} ", p.first_line + n), t.dim()),
                Span::raw(l.replace('\t', "    ")),
            ]));
        }
    }
    out
}

fn field(t: &Theme, name: &str, value: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<12}"), t.dim()),
        Span::raw(value.to_string()),
    ])
}

fn draw_details(f: &mut Frame<'_>, app: &mut App, t: &Theme, area: Rect) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Details ")
        .border_style(t.dim());
    let inner = block.inner(area);
    f.render_widget(block, area);
    let lines = details_lines(app, t, inner.width);
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

fn draw_runs(f: &mut Frame<'_>, app: &mut App, t: &Theme, area: Rect) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Background runs (Tab focus · x stop · r hide) ")
        .border_style(if app.runs_focus { t.accent() } else { t.dim() });
    let inner = block.inner(area);
    f.render_widget(block, area);
    if app.bg.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled(
                "No background runs yet: b runs the selected command in the background.",
                t.dim(),
            )),
            inner,
        );
        return;
    }
    let [list, out] =
        Layout::horizontal([Constraint::Length(30), Constraint::Min(10)]).areas(inner);
    let mut lines = Vec::new();
    for (i, r) in app.bg.iter().enumerate() {
        let (mark, st) = match (r.running(), r.exit) {
            (true, _) => ("●", t.accent()),
            (false, Some(0)) => ("✓", t.fg(Color::Green)),
            _ => ("✗", t.error()),
        };
        let state = match r.exit {
            Some(c) => format!("exit {c}"),
            None => r.status.clone(),
        };
        let mut line = Line::from(vec![
            Span::styled(format!("{mark} "), st),
            Span::raw(r.label.clone()),
            Span::styled(format!(" {state}"), t.dim()),
        ]);
        if i == app.runs_sel {
            line = line.style(Style::new().add_modifier(Modifier::REVERSED));
        }
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), list);
    if let Some(r) = app.bg.get(app.runs_sel) {
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

fn draw_status(f: &mut Frame<'_>, app: &App, t: &Theme, area: Rect) {
    let mut spans = vec![Span::styled(format!(" {} ", app.name), t.bold())];
    let sep = || Span::styled(" │ ", t.dim());
    if app.loaded.is_some() {
        spans.push(sep());
        let n = app.counts();
        spans.push(Span::raw(format!("{} commands", n.shown)));
        let mut more = Vec::new();
        if n.hidden > 0 {
            more.push(format!("{} hidden", n.hidden));
        }
        if n.hidden_docs > 0 {
            more.push(format!("{} documents", n.hidden_docs));
        }
        if !more.is_empty() {
            spans.push(Span::styled(format!(" (+{}: a)", more.join(", ")), t.dim()));
        }
    }
    if app.filtering || !app.filter.is_empty() {
        spans.push(sep());
        spans.push(Span::styled("/", t.accent()));
        spans.push(Span::raw(app.filter.clone()));
        if app.filtering {
            spans.push(Span::styled("▏", t.accent()));
        }
    }
    if let Some(tag) = &app.tag_filter {
        spans.push(sep());
        spans.push(Span::styled(format!("tag:{tag}"), t.accent()));
    }
    let running = app.running();
    if running > 0 {
        spans.push(sep());
        spans.push(Span::styled(format!("● {running} running"), t.accent()));
    }
    if matches!(
        app.engine.workspace().settings.trust,
        commandtree_core::trust::Status::Untrusted { .. }
    ) {
        // As the CLI: the workspace configuration's LLM, key and program settings are ignored.
        spans.push(sep());
        spans.push(Span::styled("config not trusted: ct trust", t.warn()));
    }
    if app.warnings > 0 {
        spans.push(sep());
        let s = if app.warnings == 1 { "" } else { "s" };
        spans.push(Span::styled(
            format!("{} warning{s}", app.warnings),
            t.warn(),
        ));
    }
    // A message answers the last key, so it comes before the progress of background work.
    if let Some((m, level)) = &app.message {
        spans.push(sep());
        let st = match level {
            Level::Info => Style::new(),
            Level::Warn => t.warn(),
            Level::Error => t.error(),
        };
        spans.push(Span::styled(m.clone(), st));
    } else if let Some(p) = &app.progress
        && app.loaded.is_some()
    {
        spans.push(sep());
        spans.push(Span::styled(p.clone(), t.accent()));
    }
    spans.push(sep());
    spans.push(Span::styled("F1 help", t.dim()));
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The keys F1 lists: quitting first, each key at most [`KEY_WIDTH`] and each text at most
/// [`TEXT_WIDTH`] columns, so two columns fit an 80×24 terminal (`help_fits_80_by_24`).
pub const KEYS: &[(&str, &str)] = &[
    ("q / Ctrl-C", "quit"),
    ("F1", "this help"),
    ("↑↓ / j k", "move"),
    ("← → / h l", "close / open, to parent"),
    ("Space", "open or close a group"),
    ("PgUp PgDn", "page up / down"),
    ("Home End", "first / last"),
    ("E / C", "expand all / collapse all"),
    ("/", "filter; Enter keeps it"),
    ("?", "search by meaning"),
    ("t", "filter by tag"),
    ("Esc", "clear filters and search"),
    ("g", "sort: folder / name / type"),
    ("a", "show or hide auxiliary"),
    ("Enter", "run here (or rerun)"),
    ("b", "run in the background"),
    ("w", "run in a new window"),
    ("D", "debug a launch config"),
    ("A", "run with extra arguments"),
    (".", "run the last run again"),
    ("r / Tab", "runs pane / focus it"),
    ("x", "stop a background run"),
    ("s", "star / unstar"),
    ("J / K", "move in Quick Launch"),
    ("+ / -", "add / remove a tag"),
    ("e", "open the file at its line"),
    ("y", "copy the command line"),
    ("S", "summarize selection/filter"),
    ("m", "command skill: diff, apply"),
    ("i", "details (narrow terminals)"),
    ("F5 / R", "discover again"),
    ("mouse", "click; double-click runs"),
];

pub const KEY_WIDTH: usize = 10;
pub const TEXT_WIDTH: usize = 27;

/// The help's lines for a screen `area`: one column when it is tall enough, else two.
fn help_lines(t: &Theme, area: Rect) -> (Vec<Line<'static>>, u16, u16) {
    let cell = |(k, what): &(&str, &str)| {
        vec![
            Span::styled(format!("{k:<KEY_WIDTH$} "), t.accent()),
            Span::raw(format!("{what:<TEXT_WIDTH$}")),
        ]
    };
    let one_column = KEYS.len() as u16 + 2 <= area.height;
    if one_column {
        let lines = KEYS.iter().map(|k| Line::from(cell(k))).collect();
        return (
            lines,
            (KEY_WIDTH + TEXT_WIDTH + 3) as u16,
            KEYS.len() as u16 + 2,
        );
    }
    let rows = KEYS.len().div_ceil(2);
    let lines = (0..rows)
        .map(|r| {
            let mut spans = cell(&KEYS[r]);
            if let Some(k) = KEYS.get(r + rows) {
                spans.push(Span::raw(" "));
                spans.extend(cell(k));
            }
            Line::from(spans)
        })
        .collect();
    (
        lines,
        (2 * (KEY_WIDTH + TEXT_WIDTH + 1) + 3) as u16,
        rows as u16 + 2,
    )
}

fn draw_popup(f: &mut Frame<'_>, app: &mut App, t: &Theme, p: &Popup, area: Rect) {
    let (title, lines, w, h): (String, Vec<Line<'static>>, u16, u16) = match p {
        Popup::Help => {
            let (lines, w, h) = help_lines(t, area);
            (" Keys (Esc closes) ".into(), lines, w, h)
        }
        Popup::Details => {
            let lines = details_lines(app, t, area.width.saturating_sub(4));
            (
                " Details (Esc closes) ".into(),
                lines,
                area.width,
                area.height,
            )
        }
        Popup::Quit => (
            " Quit? ".into(),
            vec![
                Line::raw(format!(
                    "{} background run(s) still going; they keep running after you quit.",
                    app.running()
                )),
                Line::styled("y quits, any other key stays", t.dim()),
            ],
            60,
            5,
        ),
        Popup::Confirm { title, lines, .. } => {
            let mut l: Vec<Line> = lines
                .iter()
                .map(|x| Line::styled(x.clone(), t.warn()))
                .collect();
            l.push(Line::raw(""));
            l.push(Line::styled(
                "y runs it anyway · n or Esc does not",
                t.bold(),
            ));
            let h = l.len() as u16 + 4;
            (format!(" {title} "), l, 72, h)
        }
        Popup::Form {
            label,
            fields,
            focus,
            ..
        } => {
            let mut l = Vec::new();
            for (i, fl) in fields.iter().enumerate() {
                let mut name = Span::styled(format!("{:<14}", fl.param.name), t.accent());
                if i == *focus {
                    name = name.patch_style(Style::new().add_modifier(Modifier::REVERSED));
                }
                let value = if fl.param.options.is_empty() {
                    let mut v = fl.value.clone();
                    if i == *focus {
                        v.push('▏');
                    }
                    Span::raw(v)
                } else {
                    Span::raw(format!("◂ {} ▸", fl.value))
                };
                l.push(Line::from(vec![name, Span::raw(" "), value]));
                let mut hint = fl.param.description.clone().unwrap_or_default();
                if !fl.param.options.is_empty() {
                    hint.push_str(&format!("  ({})", fl.param.options.join(" | ")));
                }
                if let Some(d) = &fl.param.default {
                    hint.push_str(&format!("  default: {d}"));
                }
                if !hint.trim().is_empty() {
                    l.push(Line::styled(format!("{:14} {}", "", hint.trim()), t.dim()));
                }
            }
            l.push(Line::raw(""));
            l.push(Line::styled(
                "Enter runs · Tab/↑↓ next field · ←→ options · Esc cancels",
                t.dim(),
            ));
            let h = l.len() as u16 + 2;
            (format!(" Run {label} "), l, 72, h)
        }
        Popup::Diff {
            title,
            lines,
            scroll,
            ..
        } => {
            let h = area.height.saturating_sub(2).max(8);
            let room = usize::from(h.saturating_sub(4));
            let mut l: Vec<Line> = lines
                .iter()
                .skip(*scroll)
                .take(room)
                .map(|x| {
                    let style = if x.starts_with("+++") || x.starts_with("---") {
                        t.bold()
                    } else if x.starts_with('+') {
                        t.fg(Color::Green)
                    } else if x.starts_with('-') {
                        t.error()
                    } else if x.starts_with("@@") {
                        t.accent()
                    } else {
                        Style::new()
                    };
                    Line::styled(x.clone(), style)
                })
                .collect();
            l.push(Line::raw(""));
            l.push(Line::styled(
                "y applies · n or Esc does not · ↑↓ PgUp PgDn scroll",
                t.bold(),
            ));
            (format!(" {title} "), l, area.width.saturating_sub(4), h)
        }
        Popup::Input { title, value, .. } => (
            format!(" {title} "),
            vec![
                Line::from(vec![
                    Span::raw(value.clone()),
                    Span::styled("▏", t.accent()),
                ]),
                Line::styled("Enter confirms · Esc cancels", t.dim()),
            ],
            60,
            4,
        ),
        Popup::Pick {
            title, items, sel, ..
        } => {
            let l: Vec<Line> = items
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    let line = Line::raw(format!(" {x} "));
                    if i == *sel {
                        line.style(Style::new().add_modifier(Modifier::REVERSED))
                    } else {
                        line
                    }
                })
                .collect();
            let h = l.len() as u16 + 2;
            (format!(" {title} "), l, 40, h)
        }
    };
    let r = centered(area, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(
            Block::default()
                .borders(Borders::ALL)
                .title(title)
                .border_style(t.accent()),
        ),
        r,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_fits_80_by_24_and_says_how_to_quit() {
        for (k, what) in KEYS {
            assert!(k.chars().count() <= KEY_WIDTH, "{k}");
            assert!(what.chars().count() <= TEXT_WIDTH, "{what}");
        }
        assert_eq!(KEYS[0], ("q / Ctrl-C", "quit"));
        let t = Theme { color: false };
        let area = Rect::new(0, 0, 80, 24);
        let (lines, w, h) = help_lines(&t, area);
        assert!(w <= 80 && h <= 24, "{w}×{h}");
        // Every line fits inside the borders, and every key is on one of them.
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        for l in &text {
            assert!(l.chars().count() as u16 <= w - 2, "{l}");
        }
        for (k, _) in KEYS {
            assert!(text.iter().any(|l| l.contains(k)), "{k} missing");
        }
        // A tall terminal gets one column.
        let (_, w, h) = help_lines(&t, Rect::new(0, 0, 120, 50));
        assert_eq!((w, h), (40, KEYS.len() as u16 + 2));
    }
}
