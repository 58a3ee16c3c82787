//! `ct watch`: one line per watcher event, as text or NDJSON, until SIGINT or SIGTERM.

use anyhow::Result;
use clap::Args;
use commandtree_core::{CommandItem, Workspace};
use commandtree_engine::watch::{WatchEvent, WatchOptions, Watcher};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::io::Write;
use std::time::Duration;

#[derive(Args)]
pub struct WatchArgs {
    /// One JSON object per line: `ready`, then `changed` (added/updated CommandItems, removed
    /// ids) and `warning` events.
    #[arg(long)]
    json: bool,
    /// Only commands of this type (repeatable).
    #[arg(long = "type", short = 't', value_name = "TYPE", value_parser = crate::type_names())]
    types: Vec<String>,
    /// Milliseconds a change must be quiet before it is processed (default: `[watch]
    /// debounce_ms`, else 100).
    #[arg(long, value_name = "MS")]
    debounce_ms: Option<u64>,
}

pub fn watch(ws: Workspace, args: WatchArgs, quiet: bool) -> Result<()> {
    // Registered before the watch thread starts, so every thread inherits the handling.
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    let handle = signals.handle();
    let json = args.json;
    let options = WatchOptions {
        types: args.types,
        debounce: args.debounce_ms.map(Duration::from_millis),
        snapshots: false,
    };
    let watcher = Watcher::start(ws, options, move |event| {
        if matches!(event, WatchEvent::Snapshot { .. })
            || (quiet && matches!(event, WatchEvent::Warning(_)))
        {
            return;
        }
        let line = if json {
            json_line(&event)
        } else {
            // Labels, ids and warnings are workspace text; the line is one line.
            crate::output::clean(&text_line(&event)).into_owned()
        };
        let mut out = std::io::stdout().lock();
        if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
            // Nobody reads any more (a closed pipe): stop as if interrupted.
            handle.close();
        }
    })?;
    let _ = signals.forever().next();
    watcher.stop();
    Ok(())
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// Keys in a fixed order, `event` first, so a reader can dispatch on the line's start.
fn json_line(event: &WatchEvent) -> String {
    match event {
        WatchEvent::Ready { commands, elapsed } => format!(
            r#"{{"event":"ready","commands":{},"elapsedMs":{}}}"#,
            commands.len(),
            ms(*elapsed)
        ),
        WatchEvent::Changed { delta, elapsed } => format!(
            r#"{{"event":"changed","added":{},"updated":{},"removed":{},"elapsedMs":{}}}"#,
            s(&delta.added),
            s(&delta.updated),
            s(&delta.removed),
            ms(*elapsed)
        ),
        WatchEvent::Warning(w) => {
            let line = w
                .line
                .map(|l| format!(r#","line":{l}"#))
                .unwrap_or_default();
            format!(
                r#"{{"event":"warning","file":{}{line},"message":{}}}"#,
                s(&w.file),
                s(&w.message)
            )
        }
        WatchEvent::Snapshot { .. } => String::new(),
    }
}

fn s(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

fn text_line(event: &WatchEvent) -> String {
    let names = |sign: char, items: &[CommandItem]| {
        items
            .iter()
            .map(|c| format!("{sign}{} ({})", c.label, c.kind))
            .collect::<Vec<_>>()
    };
    match event {
        WatchEvent::Ready { commands, elapsed } => {
            format!(
                "ready: {} commands ({:.1} ms)",
                commands.len(),
                ms(*elapsed)
            )
        }
        WatchEvent::Changed { delta, elapsed } => {
            let mut parts = names('+', &delta.added);
            parts.extend(names('~', &delta.updated));
            parts.extend(delta.removed.iter().map(|id| format!("-{id}")));
            format!("changed: {} ({:.1} ms)", parts.join(", "), ms(*elapsed))
        }
        WatchEvent::Warning(w) => match w.line {
            Some(l) => format!("warning: {}:{l}: {}", w.file.display(), w.message),
            None => format!("warning: {}: {}", w.file.display(), w.message),
        },
        WatchEvent::Snapshot { .. } => String::new(),
    }
}
