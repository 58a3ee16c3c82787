//! The detail pane: the selected command (the line that runs, where, from which file, its
//! parameters and a preview of its definition) or the selected run of the history. On a narrow
//! terminal the same lines show in a popup (`i`).

use super::running::RunState;
use crate::theme::Theme;
use commandtree_core::{CommandItem, Workspace};
use commandtree_engine::Loaded;
use commandtree_engine::frontend::{self, Preview};
use commandtree_engine::runs::{self, RunRequest, Target};
use commandtree_exec::history::Run;
use commandtree_exec::params::Values;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use std::path::Path;

/// What the pane shows for one command, computed once per selection.
#[derive(Clone, Debug, Default)]
pub struct Details {
    pub id: String,
    /// The line that runs, as `cd <folder> && <command>` (folder relative to the root).
    pub line: String,
    /// The full line with the absolute folder, for the clipboard.
    pub copy: String,
    pub preview: Option<Preview>,
}

impl Details {
    /// `c`'s details: the line as the engine would plan the run, else as written.
    pub fn of(ws: &Workspace, loaded: Option<&Loaded>, c: &CommandItem) -> Details {
        let root = ws.root.as_path();
        let rel = |p: &str| super::rel(root, p);
        let planned = loaded.and_then(|l| {
            let sel = runs::select(
                l,
                RunRequest {
                    target: Target::Query(c.id.clone()),
                    values: Values::new(),
                    extra: Vec::new(),
                    debug: false,
                },
            )
            .ok()?;
            runs::plan(ws, &sel, None).ok()
        });
        let (line, copy) = match planned {
            Some(p) => {
                let cwd = p.runnable.cwd.to_string_lossy().into_owned();
                let mut shown = format!("cd {} && ", rel(&cwd));
                for (k, v) in &p.runnable.env {
                    shown.push_str(&format!("{k}={} ", commandtree_exec::quote::sh_quote(v)));
                }
                // Paths inside the workspace read relative to the folder the line `cd`s into,
                // so the line shown is one that works as typed from the root.
                shown.push_str(&relative_to_run_folder(
                    &p.runnable.script,
                    root,
                    &p.runnable.cwd,
                ));
                (shown, p.dry_run_text())
            }
            None => {
                let cwd = if c.cwd.is_empty() { "." } else { &c.cwd };
                (
                    format!(
                        "cd {} && {}",
                        rel(cwd),
                        relative_to_run_folder(&c.command, root, Path::new(cwd))
                    ),
                    format!(
                        "cd -- {} && {}",
                        commandtree_exec::quote::sh_quote(cwd),
                        c.command
                    ),
                )
            }
        };
        Details {
            id: c.id.clone(),
            line,
            copy,
            preview: frontend::preview(c),
        }
    }
}

/// What is selected.
#[derive(Clone, Copy)]
pub enum Shown<'a> {
    Command(&'a CommandItem),
    Run(&'a Run),
    Nothing,
}

#[derive(Default)]
pub struct DetailPane {
    cache: Option<Details>,
}

impl DetailPane {
    /// The commands changed: what was computed may be stale.
    pub fn forget(&mut self) {
        self.cache = None;
    }

    /// `c`'s details, made by `make` when the selection changed.
    pub fn details(
        &mut self,
        c: &CommandItem,
        make: impl FnOnce(&CommandItem) -> Details,
    ) -> &Details {
        if self.cache.as_ref().is_none_or(|d| d.id != c.id) {
            self.cache = Some(make(c));
        }
        self.cache.get_or_insert_with(Details::default)
    }

    pub fn lines(
        &mut self,
        t: &Theme,
        width: u16,
        (shown, root, states): (Shown<'_>, &Path, &RunState),
        make: impl FnOnce(&CommandItem) -> Details,
    ) -> Vec<Line<'static>> {
        let rel = |p: &str| super::rel(root, p);
        let c = match shown {
            Shown::Command(c) => c,
            Shown::Run(run) => return run_lines(t, run, &rel),
            Shown::Nothing => {
                return vec![Line::styled("Select a command to see it here.", t.dim())];
            }
        };
        let d = self.details(c, make);
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
            &rel(if c.cwd.is_empty() { "." } else { &c.cwd }),
        ));
        let file = match c.line {
            Some(l) => format!("{}:{l}", rel(&c.file_path)),
            None => rel(&c.file_path),
        };
        out.push(field(t, "file", &file));
        out.extend(states.line(&c.id, t));
        out.extend(states.watch_line(&c.id, t));
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

    pub fn draw(
        &mut self,
        f: &mut Frame<'_>,
        area: Rect,
        t: &Theme,
        shown: (Shown<'_>, &Path, &RunState),
        make: impl FnOnce(&CommandItem) -> Details,
    ) {
        let block = Block::default()
            .borders(Borders::ALL)
            .title(" Details ")
            .border_style(t.dim());
        let inner = block.inner(area);
        f.render_widget(block, area);
        let lines = self.lines(t, inner.width, shown, make);
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}

fn run_lines(t: &Theme, run: &Run, rel: &dyn Fn(&str) -> String) -> Vec<Line<'static>> {
    let exit = run
        .exit_code
        .map(|c| format!(" (exit {c})"))
        .unwrap_or_default();
    vec![
        Line::styled(run.label.clone(), t.bold()),
        field(t, "command", &run.command_line),
        field(t, "cwd", &rel(&run.cwd)),
        field(t, "started", &run.started_at.replace('T', " ")),
        field(t, "status", &format!("{}{exit}", run.status)),
        Line::styled("Enter runs it again.", t.dim()),
    ]
}

fn field(t: &Theme, name: &str, value: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<12}"), t.dim()),
        Span::raw(value.to_string()),
    ])
}

/// `script` with absolute paths inside the workspace written relative to `cwd`, the folder the
/// shown line changes into first: `/w/a/b/x.sh` under `cd a/b` is `./x.sh`, `/w/x.sh` is
/// `../../x.sh`. Paths outside the workspace stay absolute.
pub fn relative_to_run_folder(script: &str, root: &Path, cwd: &Path) -> String {
    let Ok(inside) = cwd.strip_prefix(root) else {
        return script.to_string();
    };
    let depth = inside.components().count();
    let mut out = script.to_string();
    if depth > 0 {
        out = out.replace(&format!("{}/", cwd.display()), "./");
    }
    let up = if depth == 0 {
        "./".to_string()
    } else {
        "../".repeat(depth)
    };
    out.replace(&format!("{}/", root.display()), &up)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::screen;
    use commandtree_core::ParamDef;

    #[test]
    fn shown_paths_work_after_the_shown_cd() {
        for (script, cwd, shown) in [
            ("bash \"/w/a/b/x.sh\"", "/w/a/b", "bash \"./x.sh\""),
            ("sh /w/x.sh /w/a/b/y", "/w/a/b", "sh ../../x.sh ./y"),
            ("make -f /w/Makefile", "/w", "make -f ./Makefile"),
            ("cat /etc/x /w/ab/c", "/w/a", "cat /etc/x ../ab/c"),
            ("ls /w/x", "/elsewhere", "ls /w/x"),
        ] {
            let got = relative_to_run_folder(script, Path::new("/w"), Path::new(cwd));
            assert_eq!(got, shown, "{script} in {cwd}");
        }
    }

    fn command() -> CommandItem {
        let root = Path::new("/w");
        let mut c = CommandItem::new("shell", &root.join("scripts/greet.sh"), "greet.sh", "sh x");
        c.cwd = "/w/scripts".into();
        c.line = Some(1);
        c.description = Some("Greets someone.".into());
        c.tags = vec!["demo".into()];
        c.security_warning = Some("Talks to strangers.".into());
        c.params = vec![ParamDef {
            name: "name".into(),
            description: Some("Who to greet".into()),
            default: Some("world".into()),
            ..Default::default()
        }];
        c
    }

    #[test]
    fn a_command_with_its_warning_parameters_and_preview() {
        let c = command();
        let mut pane = DetailPane::default();
        let made = |_: &CommandItem| Details {
            id: c.id.clone(),
            line: "cd scripts && sh ./greet.sh".into(),
            copy: String::new(),
            preview: Some(Preview {
                first_line: 1,
                text: "#!/bin/sh\necho \"hello $1\"\n".into(),
                whole_file: true,
            }),
        };
        let t = Theme::plain();
        let mut states = RunState::default();
        let running = crate::components::running::run(9, &c.id, "running", None);
        states.set([(c.id.clone(), running)].into());
        states.at(crate::components::running::started() + std::time::Duration::from_secs(42));
        let shown = (Shown::Command(&c), Path::new("/w"), &states);
        insta::assert_snapshot!(screen(70, 17, |f| pane.draw(f, f.area(), &t, shown, made)));
        // Computed once per selection.
        let again = pane.details(&c, |_| panic!("made again"));
        assert_eq!(again.line, "cd scripts && sh ./greet.sh");
    }

    #[test]
    fn a_run_and_nothing() {
        let run = Run {
            run_id: 7,
            command_id: "make:/w/Makefile:test".into(),
            label: "test".into(),
            command_line: "make test".into(),
            cwd: "/w".into(),
            started_at: "2025-01-02T03:04:05".into(),
            duration_ms: Some(1200),
            exit_code: Some(2),
            mode: "foreground".into(),
            status: "failed".into(),
            pid: None,
            log_path: None,
            request: String::new(),
        };
        let mut pane = DetailPane::default();
        let t = Theme::plain();
        let root = Path::new("/w");
        let states = RunState::default();
        insta::assert_snapshot!(screen(50, 9, |f| pane.draw(
            f,
            f.area(),
            &t,
            (Shown::Run(&run), root, &states),
            |_| Details::default()
        )));
        let none = screen(50, 4, |f| {
            pane.draw(f, f.area(), &t, (Shown::Nothing, root, &states), |_| {
                Details::default()
            })
        });
        assert!(none.contains("Select a command"), "{none}");
    }
}
