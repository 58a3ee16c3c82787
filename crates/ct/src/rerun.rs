//! `ct run --watch`: runs a command, and again whenever a file it depends on changes (the
//! engine's `rerun`: the folders of the command and of what it runs, ignored files left out).
//! A change while it runs stops it and starts it again; Ctrl-C stops both and ends the watch.

use crate::commands::{self, fail};
use crate::prompt::interactive;
use crate::{Exit, output};
use anyhow::Result;
use commandtree_engine::gate::{self, Verdict};
use commandtree_engine::rerun::{self, Changes, Watched};
use commandtree_engine::runs::{self, Planned, RunRequest, Target};
use commandtree_engine::{Engine, Error, Loaded};
use commandtree_exec::params::Prompter;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What the first run was confirmed with: a rerun whose command now carries other warnings
/// asks again.
pub struct Confirmed {
    pub yes: bool,
    pub lines: Option<Vec<String>>,
}

pub fn watch(
    engine: &Engine,
    loaded: &mut Loaded,
    first: Planned,
    extra: Vec<String>,
    mut confirmed: Confirmed,
) -> Result<()> {
    let ws = engine.workspace();
    let folders = rerun::folders(loaded, &first.item);
    let mut changes = Changes::start(ws, &folders).map_err(fail)?;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&stop))?;
    }
    let shown: Vec<String> = folders.iter().map(|f| shown_path(&ws.root, f)).collect();
    eprintln!(
        "==> watching {} for changes (Ctrl-C stops)",
        output::clean(&shown.join(", "))
    );
    let id = first.item.id.clone();
    let values = first.runnable.values.clone();
    let mut planned = first;
    loop {
        let label = output::clean(&planned.item.label);
        let mut run = Watched::start(ws, &mut loaded.store, &planned).map_err(fail)?;
        match run.run_id() {
            Some(n) => eprintln!("==> run {n}: `{label}` started"),
            None => eprintln!("==> `{label}` started"),
        }
        let mut started = true;
        let changed: Vec<PathBuf> = 'wait: loop {
            if stop.load(Ordering::SeqCst) {
                run.stop(ws, &mut loaded.store);
                eprintln!("==> `{label}` stopped; watch ended");
                return Err(Exit(130).into());
            }
            if let Some(code) = run.ended(ws, &mut loaded.store).map_err(fail)? {
                // What it wrote while it ran is its own work, not a change to rerun for.
                changes.settle();
                eprintln!("==> `{label}` exited {code}; waiting for changes (Ctrl-C stops)");
                loop {
                    if stop.load(Ordering::SeqCst) {
                        eprintln!("==> watch ended");
                        return if code == 0 {
                            Ok(())
                        } else {
                            Err(Exit(u8::try_from(code).unwrap_or(1)).into())
                        };
                    }
                    if let Some(paths) = changes.next(Duration::from_millis(200)) {
                        break 'wait paths;
                    }
                }
            }
            if started {
                // What it writes as it starts (a pid file, a log) is not a change either.
                changes.settle();
                started = false;
                continue;
            }
            if let Some(paths) = changes.next(Duration::from_millis(100)) {
                run.stop(ws, &mut loaded.store);
                eprintln!("==> `{label}` stopped for the change");
                break paths;
            }
        };
        let first_changed = changed
            .first()
            .map(|p| shown_path(&ws.root, p))
            .unwrap_or_default();
        let more = match changed.len() {
            0 | 1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        eprintln!(
            "==> changed: {}{more}; running again",
            output::clean(&first_changed)
        );
        // The definitions may have changed too: find the command again and plan it afresh.
        *loaded = commands::load(engine, Vec::new(), true, false)?;
        let sel = runs::select(
            loaded,
            RunRequest {
                target: Target::Query(id.clone()),
                values: values.clone(),
                extra: extra.clone(),
                debug: false,
            },
        )
        .map_err(|e| {
            fail(Error::failed(format!(
                "`{label}` cannot run again: {e}; watch ended"
            )))
        })?;
        let g = gate::Gate::of(loaded, &sel.item);
        if let Verdict::Confirm(lines) = g.verdict(confirmed.yes)
            && confirmed.lines.as_ref() != Some(&lines)
        {
            if !interactive() {
                return Err(fail(Error::failed(format!(
                    "`{label}` now has a security warning ({}); watch ended (--yes runs it anyway)",
                    lines.join("; ")
                ))));
            }
            for line in &lines {
                eprintln!("warning: `{label}`: {}", output::clean(line));
            }
            let mut p = crate::prompt::TermPrompter::default();
            if !p
                .confirm(&format!("Run `{label}` again anyway?"))
                .map_err(|e| fail(Error::from(e)))?
            {
                return Err(fail(Error::failed(format!(
                    "`{label}` was not run again; watch ended"
                ))));
            }
            confirmed.lines = Some(lines);
        }
        planned = runs::plan(ws, &sel, None).map_err(fail)?;
    }
}

fn shown_path(root: &Path, p: &Path) -> String {
    match p.strip_prefix(root) {
        Ok(r) if r.as_os_str().is_empty() => ".".to_string(),
        Ok(r) => r.display().to_string(),
        Err(_) => p.display().to_string(),
    }
}
