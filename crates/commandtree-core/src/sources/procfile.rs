//! Procfile process types (`web: gunicorn app:app`), as read by Heroku, foreman, honcho and
//! overmind. Each entry runs its own command line directly: the process managers only add
//! environment (`$PORT`, `.env`), which the shell supplies or leaves empty.

use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::text::truncate;

const KIND: &str = "procfile";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let mut out = Parsed::default();
    for (idx, raw) in file.content.lines().enumerate() {
        let line_no = idx + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, command)) = line.split_once(':') else {
            out.warn(
                file.path,
                Some(line_no),
                "invalid Procfile line: expected `name: command`",
            );
            continue;
        };
        let valid_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid_name {
            out.warn(
                file.path,
                Some(line_no),
                format!(
                    "invalid process name `{}`: only letters, digits, `_` and `-` are allowed",
                    truncate(name, 40)
                ),
            );
            continue;
        }
        let command = command.trim();
        if command.is_empty() {
            out.warn(
                file.path,
                Some(line_no),
                format!("process `{name}` has no command"),
            );
            continue;
        }
        out.commands.push(
            CommandItem::new(KIND, file.path, name, command)
                .description(truncate(command, 60))
                .line(line_no),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    #[test]
    fn heroku_procfile() {
        let p = parse_with(
            parse,
            "/w/Procfile",
            "# processes\nweb: gunicorn app.wsgi --bind 0.0.0.0:$PORT\n\nworker: celery -A app worker -l info\nrelease: python manage.py migrate\n",
        );
        assert!(p.warnings.is_empty());
        assert_eq!(labels(&p), ["web", "worker", "release"]);
        let web = &p.commands[0];
        assert_eq!(web.id, "procfile:/w/Procfile:web");
        assert_eq!(web.command, "gunicorn app.wsgi --bind 0.0.0.0:$PORT");
        assert_eq!(
            web.description.as_deref(),
            Some("gunicorn app.wsgi --bind 0.0.0.0:$PORT")
        );
        assert_eq!(web.cwd, "/w");
        assert_eq!(web.line, Some(2));
        assert_eq!(p.commands[1].line, Some(4));
    }

    #[test]
    fn variant_file_and_names_with_dash_and_underscore() {
        let p = parse_with(
            parse,
            "/w/app/Procfile.dev",
            "web-dev: npm run dev\nasset_watch:bin/watch\n",
        );
        assert_eq!(labels(&p), ["web-dev", "asset_watch"]);
        assert_eq!(p.commands[0].id, "procfile:/w/app/Procfile.dev:web-dev");
        assert_eq!(p.commands[1].command, "bin/watch");
        assert_eq!(p.commands[1].cwd, "/w/app");
    }

    #[test]
    fn long_command_description_truncated_command_kept() {
        let cmd = format!(
            "bundle exec sidekiq {}",
            "-q default ".repeat(10).trim_end()
        );
        let p = parse_with(parse, "/w/Procfile", &format!("worker: {cmd}\n"));
        let w = &p.commands[0];
        assert_eq!(w.command, cmd);
        let d = w.description.as_deref().unwrap();
        assert_eq!(d.chars().count(), 60);
        assert!(d.ends_with("..."));
    }

    #[test]
    fn invalid_lines_warn_with_line_and_others_survive() {
        let p = parse_with(
            parse,
            "/w/Procfile",
            "web: rails s\njust some text\nbad name: x\nempty:\n  # indented comment\nworker: sidekiq\n",
        );
        assert_eq!(labels(&p), ["web", "worker"]);
        let lines: Vec<_> = p.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [Some(2), Some(3), Some(4)]);
        assert!(p.warnings[0].message.contains("invalid Procfile line"));
        assert!(
            p.warnings[1]
                .message
                .contains("invalid process name `bad name`")
        );
        assert!(p.warnings[2].message.contains("`empty` has no command"));
    }

    #[test]
    fn garbage_does_not_panic() {
        let p = parse_with(parse, "/w/Procfile", "\u{FFFD}\u{1}é: x\n::::\n\u{7f}");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 3);
    }
}
