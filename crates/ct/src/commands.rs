//! The CLI's side of loading and of engine errors: printing load warnings the way each
//! subcommand wants, and turning an engine error into its message and exit code.

use crate::{Exit, output};
use commandtree_core::CommandItem;
use commandtree_engine::{Engine, Error, LoadOptions, Loaded};

/// Loads through the engine and prints its warnings (unless `quiet`; a moved database and, for
/// writes, why the database cannot be opened are said even then).
pub fn load(
    engine: &Engine,
    types: Vec<String>,
    quiet: bool,
    create: bool,
) -> anyhow::Result<Loaded> {
    let all = engine.workspace().settings.show_all;
    load_listing(engine, types, quiet, create, all)
}

/// [`load`] for a listing: warnings about auxiliary files (test data, vendored code, ...) are
/// counted in one line instead of printed, unless `show_all`, as their commands are.
pub fn load_listing(
    engine: &Engine,
    types: Vec<String>,
    quiet: bool,
    create: bool,
    show_all: bool,
) -> anyhow::Result<Loaded> {
    let loaded = engine
        .load(&LoadOptions {
            types,
            create_db: create,
        })
        .map_err(fail)?;
    if !quiet {
        let (own, hidden) = commandtree_core::classify::visible_warnings(
            engine.root(),
            &commandtree_core::fs::RealFs,
            &loaded.discovery_warnings,
            show_all,
        );
        output::warnings(&own);
        if hidden > 0 {
            eprintln!(
                "note: {hidden} warning{} about test data, vendored or example files not shown (`ct list --all` shows them)",
                if hidden == 1 { "" } else { "s" }
            );
        }
    }
    if let Some(r) = &loaded.recreated {
        output::warnings(std::slice::from_ref(r));
    }
    if !quiet || (create && loaded.store.is_none()) {
        output::warnings(&loaded.db_warnings);
    }
    Ok(loaded)
}

/// Prints an engine error (ambiguity with its candidates, a missing command with near matches)
/// and turns it into the exit code.
pub fn fail(e: Error) -> anyhow::Error {
    match &e {
        Error::Cancelled => eprintln!("cancelled"),
        Error::Ambiguous {
            candidates,
            typed,
            more,
            ..
        } => {
            output::error(&format!("{e}:"));
            output::named_candidates(candidates, typed, *more);
        }
        Error::NotFound {
            suggestions, typed, ..
        } => {
            output::error(&e.to_string());
            if !suggestions.is_empty() {
                eprintln!("did you mean:");
                output::named_candidates(suggestions, typed, 0);
            }
        }
        _ => output::error(&e.to_string()),
    }
    Exit(e.exit_code()).into()
}

/// How messages name a command: `build (npm)`, cleaned for the terminal.
pub fn name(c: &CommandItem) -> String {
    output::clean(&commandtree_engine::display_name(c)).into_owned()
}
