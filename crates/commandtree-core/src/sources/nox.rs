//! nox sessions from a `noxfile.py`: every function decorated with `@nox.session` (or
//! `@session`), run as `nox -s NAME` (the function's name, or the decorator's `name=`), its
//! description from the function's docstring and the Pythons it runs on; plus `nox`, which runs
//! the sessions `nox.options.sessions` names (every session when it names none). Read with the
//! Python tokenizer of [`super::python`], never run.

use super::common::runs_defaults;
use super::python::{Lexer, Tok, call_args, docstring, list_literal, string_literal};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, StepHow, StepRef};
use crate::text::{line_of, sh_word, truncate};

const KIND: &str = "nox";

/// A session as the noxfile declares it.
struct Session {
    name: String,
    description: Option<String>,
    pythons: Vec<String>,
    /// The line of its `def`.
    line: usize,
}

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let mut out = Parsed::default();
    let (sessions, defaults, defaults_line) = read(file.content);
    if sessions.is_empty() {
        return out;
    }
    let listed: Vec<&str> = if defaults.is_empty() {
        sessions.iter().map(|s| s.name.as_str()).collect()
    } else {
        defaults.iter().map(String::as_str).collect()
    };
    let description = runs_defaults("sessions", &defaults, "Run every session");
    let mut all = CommandItem::new(KIND, file.path, "nox", "nox").description(description);
    // What `nox` runs is its steps; its own text is the list (without one it runs every
    // session, and the whole file is what it runs).
    if let Some(line) = defaults_line {
        all = all.line(line);
    }
    all.steps = listed
        .iter()
        .map(|n| StepRef::new(*n, StepHow::Call, false))
        .collect();
    out.commands.push(all);
    for s in sessions {
        let on = match s.pythons.as_slice() {
            [] | [_] => String::new(),
            many => truncate(&many.join(", "), 60),
        };
        let description = match (&s.description, on.is_empty()) {
            (Some(d), false) => Some(format!("{d} (Python {on})")),
            (Some(d), true) => Some(d.clone()),
            (None, false) => Some(format!("On Python {on}")),
            (None, true) => None,
        };
        out.commands.push(
            CommandItem::new(
                KIND,
                file.path,
                &s.name,
                format!("nox -s {}", sh_word(&s.name)),
            )
            .opt_description(description)
            .line(s.line),
        );
    }
    out
}

/// The sessions of a noxfile, in file order, the names `nox.options.sessions` lists and its line.
fn read(content: &str) -> (Vec<Session>, Vec<String>, Option<usize>) {
    let mut sessions: Vec<Session> = Vec::new();
    let mut defaults = Vec::new();
    let mut defaults_line = None;
    let mut lx = Lexer::new(content);
    // The decorator seen last, waiting for its `def`: (name=, python=).
    let mut pending: Option<(Option<String>, Vec<String>)> = None;
    while let Some((_, tok)) = lx.next() {
        match tok {
            Tok::Punct('@') => {
                if let Some(d) = session_decorator(&mut lx) {
                    pending = Some(d);
                }
            }
            Tok::Ident("def") => {
                let Some((at, Tok::Ident(fname))) = lx.next() else {
                    continue;
                };
                let Some((name, pythons)) = pending.take() else {
                    continue;
                };
                let description = function_docstring(&mut lx, content);
                sessions.push(Session {
                    name: name.unwrap_or_else(|| fname.to_string()),
                    description,
                    pythons,
                    line: line_of(content, at),
                });
            }
            Tok::Ident("nox") => {
                let at = lx.pos();
                if let Some(names) = options_sessions(&mut lx) {
                    defaults = names;
                    defaults_line = Some(line_of(content, at));
                }
            }
            _ => {}
        }
    }
    (sessions, defaults, defaults_line)
}

/// After `@`: a `nox.session` or `session` decorator, with its `name=` and `python=`; `None`
/// for any other decorator (the cursor is left after what was read).
fn session_decorator(lx: &mut Lexer<'_>) -> Option<(Option<String>, Vec<String>)> {
    let first = lx.next()?.1;
    let is_session = match first {
        Tok::Ident("session") => true,
        Tok::Ident("nox") => {
            matches!(lx.next()?.1, Tok::Punct('.')) && matches!(lx.next()?.1, Tok::Ident("session"))
        }
        _ => false,
    };
    if !is_session {
        return None;
    }
    let save = lx.pos();
    if !matches!(lx.next(), Some((_, Tok::Punct('(')))) {
        lx.seek(save);
        return Some((None, Vec::new()));
    }
    let args = call_args(lx).unwrap_or_default();
    let (mut name, mut pythons) = (None, Vec::new());
    for a in &args {
        match a.as_slice() {
            [Tok::Ident("name"), Tok::Punct('='), rest @ ..] => name = string_literal(rest),
            [Tok::Ident("python" | "py"), Tok::Punct('='), rest @ ..] => {
                pythons = string_literal(rest)
                    .map(|p| vec![p])
                    .unwrap_or_else(|| list_literal(rest));
            }
            _ => {}
        }
    }
    Some((name, pythons))
}

/// After `def NAME`: the first line of the function's docstring, if its body starts with one.
fn function_docstring(lx: &mut Lexer<'_>, content: &str) -> Option<String> {
    // The parameters, an optional `-> type`, then `:`.
    if !matches!(lx.next()?.1, Tok::Punct('(')) {
        return None;
    }
    call_args(lx)?;
    loop {
        let save = lx.pos();
        match lx.next()?.1 {
            Tok::Punct(':') => break,
            Tok::Ident("def") => {
                lx.seek(save);
                return None;
            }
            _ => {}
        }
    }
    let at = lx.pos();
    let save = at;
    let (start, tok) = lx.next()?;
    if !matches!(tok, Tok::Str(_)) {
        lx.seek(save);
        return None;
    }
    let mut rest = content[start..].lines();
    let first = rest.next()?;
    docstring(first.trim_start(), &mut rest)
}

/// After `nox`: `.options.sessions = [...]`, the default sessions.
fn options_sessions(lx: &mut Lexer<'_>) -> Option<Vec<String>> {
    let save = lx.pos();
    let want = [
        Tok::Punct('.'),
        Tok::Ident("options"),
        Tok::Punct('.'),
        Tok::Ident("sessions"),
        Tok::Punct('='),
    ];
    for w in want {
        if lx.next().map(|(_, t)| t) != Some(w) {
            lx.seek(save);
            return None;
        }
    }
    let (_, open) = lx.next()?;
    if !matches!(open, Tok::Punct('[' | '(')) {
        return None;
    }
    let mut toks = vec![open];
    let inner = call_args(lx)?;
    for (i, a) in inner.into_iter().enumerate() {
        if i > 0 {
            toks.push(Tok::Punct(','));
        }
        toks.extend(a);
    }
    toks.push(Tok::Punct(']'));
    Some(list_literal(&toks))
}

/// The command lines a nox session's text (its function) runs through `session.run(...)`,
/// `run_always` and `run_install`, with their lines in `text`: each call whose leading
/// arguments are string literals, joined into one shell line. What the risk analysis reads.
pub fn run_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut lx = Lexer::new(text);
    while let Some((at, tok)) = lx.next() {
        if tok != Tok::Ident("session") {
            continue;
        }
        let save = lx.pos();
        let call = matches!(lx.next(), Some((_, Tok::Punct('.'))))
            && matches!(
                lx.next(),
                Some((_, Tok::Ident("run" | "run_always" | "run_install")))
            )
            && matches!(lx.next(), Some((_, Tok::Punct('('))));
        if !call {
            lx.seek(save);
            continue;
        }
        let Some(args) = call_args(&mut lx) else {
            break;
        };
        let words: Vec<String> = args
            .iter()
            .map_while(|a| string_literal(a))
            .map(|w| sh_word(&w))
            .collect();
        if !words.is_empty() {
            out.push((line_of(text, at), words.join(" ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with, steps};

    const NOXFILE: &str = r#"import nox

nox.options.sessions = ["lint", "test"]


def helper(session: nox.Session) -> None:
    """Not a session."""
    session.run("pytest")


@nox.session(python=["3.12", "3.13"])
def test(session: nox.Session) -> None:
    """Run the test suite.

    More text.
    """
    session.install(".")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session):
    session.run("ruff", "check", ".")


@nox.session(name="docs-live", python="3.12")
@nox.parametrize("builder", ["html"])
def docs_live(session: nox.Session, builder: str) -> None:
    '''Serve the docs.'''
    session.run("rm", "-rf", "docs/_build")
"#;

    #[test]
    fn sessions_their_names_docstrings_and_pythons() {
        let p = parse_with(parse, "/w/noxfile.py", NOXFILE);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["nox", "test", "lint", "docs-live"]);
        let c = |i: usize| &p.commands[i];
        assert_eq!(
            c(0).description.as_deref(),
            Some("Run the default sessions: lint, test")
        );
        assert_eq!(
            steps(&p, "nox"),
            [("lint".to_string(), "call"), ("test".to_string(), "call")]
        );
        assert_eq!(c(0).line, Some(3));
        assert_eq!(c(1).command, "nox -s test");
        assert_eq!(
            c(1).description.as_deref(),
            Some("Run the test suite. (Python 3.12, 3.13)")
        );
        assert_eq!(c(1).line, Some(12));
        assert_eq!(c(2).description, None);
        assert_eq!(c(3).command, "nox -s docs-live");
        assert_eq!(c(3).description.as_deref(), Some("Serve the docs."));
        assert_eq!(c(1).id, "nox:/w/noxfile.py:test");
    }

    #[test]
    fn without_default_sessions_nox_runs_every_one_and_a_file_without_any_lists_nothing() {
        let p = parse_with(
            parse,
            "/w/noxfile.py",
            "from nox import session\n\n@session\ndef a(s):\n    pass\n",
        );
        assert_eq!(labels(&p), ["nox", "a"]);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Run every session")
        );
        assert!(
            parse_with(parse, "/w/noxfile.py", "import nox\n")
                .commands
                .is_empty()
        );
    }

    #[test]
    fn the_command_lines_the_analysis_reads() {
        assert_eq!(
            run_lines(NOXFILE),
            [
                (8, "pytest".to_string()),
                (18, "pytest".to_string()),
                (23, "ruff check .".to_string()),
                (30, "rm -rf docs/_build".to_string()),
            ]
        );
    }
}
