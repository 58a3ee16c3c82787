//! CommandTree's terminal UI: Quick Launch on top, the tree of every command below, details
//! with a preview of each command's definition, runs in this terminal, in the background or in
//! a new window. Built on the engine facade (`commandtree-engine`): discovery, the database,
//! tags, runs, summaries and search all go through it, and its watcher keeps the tree live.
//!
//! [`run`] owns the terminal: raw mode and the alternate screen, restored on every way out
//! (quit, error, panic, SIGTERM). [`app::App`] holds the [`components`] (the tree, the filter
//! bar, the detail pane, the runs pane, the status line, the popups), each with its own state,
//! drawing and keys; [`keymap`] is the table of every key, which F1 and the footers are drawn
//! from; [`view`] lays the components out on the screen.

pub mod app;
mod cache;
pub mod components;
pub mod keymap;
pub mod rows;
pub mod theme;
pub mod view;
pub mod worker;

use app::{App, Effect, Level};
use commandtree_engine::Engine;
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyCode, KeyEvent, KeyModifiers,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use std::io::{Stdout, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};
use worker::Msg;

/// Measurement hooks for `bench/tui.sh` (hidden options of `ct tui`).
#[derive(Debug, Clone, Default)]
pub struct Bench {
    /// Print the time to the first frame showing commands (`first-frame-ms`: the last
    /// session's snapshot when there is one) and to the first showing discovery's
    /// (`fresh-frame-ms`), then quit.
    pub first_frame: bool,
    /// After the first full frame, press this many keys (down, then filter letters) and
    /// print the mean and worst time from key to drawn frame.
    pub keys: usize,
    /// When the process started (the first frame is timed from there); now when unset.
    pub started: Option<Instant>,
}

fn setup(out: &mut Stdout) -> std::io::Result<()> {
    enable_raw_mode()?;
    execute!(out, EnterAlternateScreen, EnableMouseCapture)
}

fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// Restores the terminal when dropped, so an error or a panic unwinding through the loop
/// never leaves it raw.
struct Guard;
impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Opens the UI on `engine`'s workspace and runs until the user quits. Returns the process
/// exit code.
pub fn run(engine: Engine, bench: Bench) -> anyhow::Result<i32> {
    let started = bench.started.unwrap_or_else(Instant::now);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        default_hook(info);
    }));
    let signals = Signals::register()?;
    watchdog(signals.clone());
    let mut out = std::io::stdout();
    setup(&mut out)?;
    let _guard = Guard;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    terminal.clear()?;
    let (tx, rx) = mpsc::channel();
    let mut app = App::new(engine, tx.clone());
    let watch = std::env::var_os("COMMANDTREE_TUI_NO_WATCH").is_none();
    worker::load(app.engine.root().to_path_buf(), tx, watch);
    event_loop(&mut terminal, &mut app, &rx, &signals, &bench, started)
}

/// SIGTERM and SIGHUP (the terminal closed) end the UI; the loop and the watchdog look at
/// these flags.
#[derive(Clone)]
struct Signals {
    term: Arc<AtomicBool>,
    hup: Arc<AtomicBool>,
}

impl Signals {
    fn register() -> std::io::Result<Signals> {
        let s = Signals {
            term: Arc::new(AtomicBool::new(false)),
            hup: Arc::new(AtomicBool::new(false)),
        };
        signal_hook::flag::register(signal_hook::consts::SIGTERM, s.term.clone())?;
        signal_hook::flag::register(signal_hook::consts::SIGHUP, s.hup.clone())?;
        Ok(s)
    }
    /// The exit code for a signal received (128 + its number), if one was.
    fn exit_code(&self) -> Option<i32> {
        if self.hup.load(Ordering::Relaxed) {
            Some(129)
        } else if self.term.load(Ordering::Relaxed) {
            Some(143)
        } else {
            None
        }
    }
}

/// Whether the terminal is still there: asking its size fails once it has hung up.
/// (`window_size`, not `size`: `size` falls back to running `tput`, which answers 80×24 with
/// no terminal at all.)
fn terminal_alive() -> bool {
    ratatui::crossterm::terminal::window_size().is_ok()
}

/// How often the watchdog looks at the signals and the terminal.
const LIVENESS_EVERY: Duration = Duration::from_millis(100);
/// How long SIGTERM waits for the loop to restore the terminal and return by itself.
const TERM_GRACE: Duration = Duration::from_secs(1);

/// Ends the process once its terminal is gone, from a thread of its own. The event loop cannot
/// be relied on to notice: reading a hung-up terminal returns end of file at once, every time,
/// and crossterm's reader loops on that inside `poll` without ever returning (a core at 100%,
/// forever). A closed terminal does not always send SIGHUP either (a process outside the
/// terminal's session gets none), so the terminal itself is asked too. With the terminal gone
/// there is nothing to restore. SIGTERM leaves the loop a moment to restore the terminal and
/// return; after that this thread restores it and exits.
fn watchdog(signals: Signals) {
    let spawned = std::thread::Builder::new()
        .name("commandtree-tui-watchdog".into())
        .spawn(move || {
            let mut term_since: Option<Instant> = None;
            loop {
                std::thread::sleep(LIVENESS_EVERY);
                if signals.hup.load(Ordering::Relaxed) || !terminal_alive() {
                    std::process::exit(129);
                }
                if signals.term.load(Ordering::Relaxed) {
                    let since = *term_since.get_or_insert_with(Instant::now);
                    if since.elapsed() >= TERM_GRACE {
                        restore();
                        std::process::exit(143);
                    }
                }
            }
        });
    // Without the thread the UI still works; only a vanished terminal goes unnoticed.
    drop(spawned);
}

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
    rx: &Receiver<Msg>,
    signals: &Signals,
    bench: &Bench,
    started: Instant,
) -> anyhow::Result<i32> {
    let mut dirty = true;
    let mut first_drawn = false;
    loop {
        if let Some(code) = signals.exit_code() {
            return Ok(code);
        }
        while let Ok(m) = rx.try_recv() {
            app.message(m);
            dirty = true;
        }
        dirty |= app.tick();
        if dirty {
            terminal.draw(|f| view::draw(f, app))?;
            dirty = false;
            let measuring = bench.first_frame || bench.keys > 0;
            if measuring && app.loaded.is_some() && !first_drawn {
                first_drawn = true;
                eprintln!(
                    "first-frame-ms {:.3}",
                    started.elapsed().as_secs_f64() * 1e3
                );
            }
            if measuring && app.fresh {
                eprintln!(
                    "fresh-frame-ms {:.3}",
                    started.elapsed().as_secs_f64() * 1e3
                );
                if bench.keys > 0 {
                    bench_keys(terminal, app, bench.keys)?;
                }
                return Ok(0);
            }
        }
        // Input first: a key is handled as soon as it comes. Background messages are looked at
        // between polls: often until discovery's tree is in (a frame waits on it) or while
        // work is under way, rarely when idle.
        let wait = if !app.fresh && app.load_error.is_none() {
            Duration::from_millis(2)
        } else if app.status.job.is_some() || app.running() > 0 {
            Duration::from_millis(16)
        } else {
            Duration::from_millis(50)
        };
        let effect = if let Some(queued) = app.queued.take() {
            // A background answer's terminal work (a restart's run here): drawn first.
            terminal.draw(|f| view::draw(f, app))?;
            Some(queued)
        } else {
            if !event::poll(wait)? {
                continue;
            }
            match event::read()? {
                Event::Key(k) => app.key(k),
                Event::Mouse(m) => app.mouse(m),
                Event::Resize(..) => None,
                _ => None,
            }
        };
        dirty = true;
        match effect {
            None => {}
            Some(Effect::Quit) => return Ok(0),
            Some(Effect::Foreground(planned)) => {
                foreground(terminal, app, &planned, signals)?;
            }
            Some(Effect::Edit(file, line, column)) => edit(terminal, app, &file, (line, column))?,
            Some(Effect::Copy(text)) => {
                let mut o = std::io::stdout();
                write!(o, "\x1b]52;c;{}\x07", base64(text.as_bytes()))?;
                o.flush()?;
            }
        }
    }
}

/// Leaves the UI for a program that needs the terminal, and comes back to it.
fn suspended<T>(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    f: impl FnOnce() -> T,
) -> anyhow::Result<T> {
    restore();
    let r = f();
    setup(&mut std::io::stdout())?;
    terminal.clear()?;
    Ok(r)
}

fn foreground(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
    planned: &commandtree_engine::runs::Planned,
    signals: &Signals,
) -> anyhow::Result<()> {
    let ws = app.engine.workspace();
    let Some(loaded) = app.loaded.as_mut() else {
        return Ok(());
    };
    let label = planned.item.label.clone();
    let result = suspended(terminal, || {
        let mut o = std::io::stdout();
        let shown = planned.dry_run_text();
        let _ = writeln!(o, "\x1b[1m$ {shown}\x1b[0m");
        let r = commandtree_engine::runs::run_foreground(ws, &mut loaded.store, planned);
        let text = match &r {
            Ok(fin) => format!(
                "\n\x1b[1mexit {}\x1b[0m ({}) — press a key to return",
                fin.code,
                commandtree_core::text::duration(fin.duration.as_millis() as i64)
            ),
            Err(e) => format!("\n{e} — press a key to return"),
        };
        let _ = writeln!(o, "{text}");
        let _ = o.flush();
        wait_key(signals);
        r
    })?;
    match result {
        Ok(fin) => {
            let level = if fin.code == 0 {
                Level::Info
            } else {
                Level::Warn
            };
            app.say(format!("{label}: exit {}", fin.code), level);
        }
        Err(e) => app.say(e.to_string(), Level::Error),
    }
    app.refresh_history();
    Ok(())
}

/// One key, in raw mode, without echo; also returns when the terminal goes away or a signal
/// ends the UI (never a blocking read that could outlive the terminal).
fn wait_key(signals: &Signals) {
    if enable_raw_mode().is_err() {
        return;
    }
    // Whatever the program left unread is not the answer.
    while event::poll(Duration::ZERO).unwrap_or(false) {
        let _ = event::read();
    }
    while signals.exit_code().is_none() && terminal_alive() {
        match event::poll(LIVENESS_EVERY) {
            Ok(false) => continue,
            Ok(true) => match event::read() {
                Ok(Event::Key(KeyEvent { kind, .. })) if kind != event::KeyEventKind::Release => {
                    break;
                }
                Ok(_) => continue,
                Err(_) => break,
            },
            Err(_) => break,
        }
    }
    let _ = disable_raw_mode();
}

fn edit(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
    file: &std::path::Path,
    (line, column): (Option<u32>, Option<u32>),
) -> anyhow::Result<()> {
    let (program, words) = commandtree_engine::frontend::editor_command(file, line, column);
    let r = suspended(terminal, || {
        std::process::Command::new(&program).args(&words).status()
    })?;
    if let Err(e) = r {
        app.say(format!("cannot start {program}: {e}"), Level::Error);
    }
    Ok(())
}

fn bench_keys<B: Backend>(terminal: &mut Terminal<B>, app: &mut App, n: usize) -> anyhow::Result<()>
where
    B::Error: Send + Sync + 'static,
{
    let letters = ['b', 'u', 'i', 'l', 'd'];
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let k = if i % 10 < 5 {
            KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)
        } else if i % 10 == 5 {
            KeyEvent::new(KeyCode::Char('/'), KeyModifiers::NONE)
        } else if i % 10 < 9 {
            KeyEvent::new(KeyCode::Char(letters[i % 10 - 6]), KeyModifiers::NONE)
        } else {
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)
        };
        let t = Instant::now();
        let _ = app.key(k);
        terminal.draw(|f| view::draw(f, app))?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let p95 = sorted[(sorted.len() * 95 / 100).min(sorted.len() - 1)];
    let max = sorted[sorted.len() - 1];
    eprintln!(
        "keys {} commands {} mean-ms {mean:.3} p95-ms {p95:.3} max-ms {max:.3}",
        n,
        app.commands().len()
    );
    Ok(())
}

/// Standard base64, for OSC 52.
fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(i.as_bytes()), o);
        }
    }
}
