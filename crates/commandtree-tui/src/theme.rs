//! Styles. Colours are the terminal's own named ones (they follow its light or dark palette);
//! with `NO_COLOR` only bold, dim and reverse remain.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set.
    pub fn from_env() -> Theme {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
    pub fn plain() -> Theme {
        Theme { color: false }
    }
    pub fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }
    pub fn dim(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }
    pub fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }
    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }
    pub fn warn(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    pub fn ok(&self) -> Style {
        self.fg(Color::Green)
    }
    pub fn accent(&self) -> Style {
        self.fg(Color::Cyan)
    }
    pub fn matched(&self) -> Style {
        self.fg(Color::Magenta)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
    /// One glyph and colour per type, as the extension's tree gives each type its icon.
    pub fn icon(&self, kind: &str) -> Span<'static> {
        let (g, c) = match kind {
            "shell" | "powershell" => ("$", Color::Green),
            "npm" | "deno" | "turbo" | "nx" => ("⬢", Color::Red),
            "make" | "just" | "taskfile" | "mise" | "rake" | "procfile" | "tox" | "nox" => {
                ("⚒", Color::Yellow)
            }
            "launch" => ("▶", Color::Magenta),
            "vscode" => ("◆", Color::Blue),
            "python" | "pyproject" => ("π", Color::Blue),
            "cargo" => ("⚙", Color::Red),
            "ruby" => ("♦", Color::Red),
            "go" => ("ɢ", Color::Cyan),
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
