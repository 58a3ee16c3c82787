//! `ct problems`: the errors and warnings a run printed, read by the engine from the run's log,
//! listed as compilers print them, as JSON, or opened in the user's editor.

use crate::commands::{self, fail};
use crate::{Exit, output};
use anyhow::Result;
use clap::Args;
use commandtree_engine::problems::{self, Which};
use commandtree_engine::{Engine, Error};
use std::io::Write;

const EXAMPLES: &str = "Examples:
  ct run build --detach && ct problems     the problems of the newest run with a log
  ct problems 12                           those of run 12 (see `ct runs`)
  ct problems build                        those of the newest run of `build` with a log
  ct problems --json                       {\"run\": {...}, \"problems\": [{file, path, line, column,
                                           severity, message, code, source, outsideRoot,
                                           outputLine}]}
  ct problems --open 1                     open the first one in $VISUAL/$EDITOR at its line
  vim -q <(ct problems)                    or hand the list to an editor's error list

Formats read: GCC/Clang, rustc/cargo (and panics), tsc, MSBuild, ESLint (stylish, unix,
compact), go build/vet/test, Python tracebacks and warnings, anything printing
`file:line[:col]: message`; add your own with [[problems.patterns]] in config.toml. Logs come
from detached runs (`ct run --detach`).";

#[derive(Args)]
#[command(after_help = EXAMPLES)]
pub struct ProblemsArgs {
    /// A run id (see `ct runs`), or a command's name for its newest run with a log (default:
    /// the newest run with a log).
    #[arg(value_name = "RUN_ID|NAME", add = crate::completions::command_names())]
    pub run: Option<String>,
    /// Print the run and its problems as JSON.
    #[arg(long, conflicts_with = "open")]
    pub json: bool,
    /// Open the Nth problem of the list (1 is the first) in $VISUAL, else $EDITOR, else vi, at
    /// its line.
    #[arg(long, value_name = "N")]
    pub open: Option<usize>,
}

pub fn problems(engine: &Engine, args: ProblemsArgs, quiet: bool) -> Result<()> {
    let ws = engine.workspace();
    let (matcher, warnings) = problems::matcher(ws);
    if !quiet {
        output::warnings(&warnings);
    }
    let which = match args.run.as_deref().map(str::trim) {
        None => Which::Newest,
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => Which::Run(
            n.parse()
                .map_err(|_| fail(Error::usage(format!("no run {n}"))))?,
        ),
        Some(name) => {
            let loaded = commands::load(engine, Vec::new(), true, false)?;
            let c = loaded.resolve(name).map_err(fail)?;
            Which::Command {
                id: c.id.clone(),
                label: c.label.clone(),
            }
        }
    };
    let mut store = crate::run::open_store(engine);
    let found = problems::of_run(ws, &mut store, &which, &matcher).map_err(fail)?;
    if let Some(n) = args.open {
        return open(&found, n);
    }
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(&mut out, &found)?;
        out.flush()?;
        return Ok(());
    }
    for p in &found.problems {
        output::problem(&mut out, p)?;
    }
    out.flush()?;
    let count = |s: problems::Severity| found.problems.iter().filter(|p| p.severity == s).count();
    let plural = |n: usize, one: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    let run = &found.run;
    let summary = if found.problems.is_empty() {
        "no problems found in its output".to_string()
    } else {
        let (errors, warnings) = (
            count(problems::Severity::Error),
            count(problems::Severity::Warning),
        );
        let others = found.problems.len() - errors - warnings;
        let mut parts = vec![plural(errors, "error"), plural(warnings, "warning")];
        if others > 0 {
            parts.push(plural(others, "note"));
        }
        format!(
            "{}; `ct problems {} --open N` opens the Nth",
            parts.join(", "),
            run.run_id
        )
    };
    let still = if commandtree_engine::runs::is_over(run) {
        ""
    } else {
        " (still running: its output so far)"
    };
    eprintln!(
        "run {} (`{}`, {}){still}: {summary}",
        run.run_id,
        output::clean(&run.label),
        output::clean(&run.status)
    );
    Ok(())
}

/// Runs the user's editor on the Nth problem's file, with the terminal, and exits as it does.
fn open(found: &problems::RunProblems, n: usize) -> Result<()> {
    let Some(p) = n.checked_sub(1).and_then(|i| found.problems.get(i)) else {
        return Err(fail(Error::usage(format!(
            "run {} has {} problem{}; there is no problem {n} (they are numbered from 1)",
            found.run.run_id,
            found.problems.len(),
            if found.problems.len() == 1 { "" } else { "s" }
        ))));
    };
    let (program, args) = commandtree_engine::frontend::editor_command(
        std::path::Path::new(&p.path),
        Some(p.line),
        p.column,
    );
    let status = std::process::Command::new(&program)
        .args(&args)
        .status()
        .map_err(|e| {
            fail(Error::failed(format!(
                "cannot start the editor `{program}` ($VISUAL, $EDITOR): {e}"
            )))
        })?;
    match status.code() {
        Some(0) => Ok(()),
        code => Err(Exit(code.and_then(|c| u8::try_from(c).ok()).unwrap_or(1)).into()),
    }
}
