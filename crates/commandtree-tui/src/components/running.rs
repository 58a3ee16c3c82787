//! What each command's runs are doing: the newest run of every command (from the engine's
//! history, so runs of other processes and of every mode count), read again about once a
//! second on a thread. The tree marks a command's row with it (running with how long, or how
//! its last run ended until it runs again) and the detail pane says it in full; the app asks
//! here which run the stop and restart keys mean.

use crate::theme::Theme;
use commandtree_engine::runs;
use commandtree_exec::history::{Run, status};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant, SystemTime};

/// How often the runs are read while one runs (the elapsed time shown moves each second).
const BUSY_EVERY: Duration = Duration::from_secs(1);
/// How often they are read while nothing runs: a run another process starts shows up.
const IDLE_EVERY: Duration = Duration::from_secs(2);

#[derive(Default)]
pub struct RunState {
    /// Command id → its newest run.
    latest: HashMap<String, Run>,
    /// When the runs were last asked for (whether the answer came or not).
    asked: Option<Instant>,
    /// A read is under way on a thread.
    pub reading: bool,
    /// The clock the elapsed times are shown against, moved by [`RunState::tick`].
    now: Option<SystemTime>,
    /// The commands that rerun when their files change (`W`).
    watched: HashSet<String>,
}

impl RunState {
    /// The newest runs of every command, as the engine read them; whether any changed (one
    /// started, ended, or was stopped, here or elsewhere).
    pub fn set(&mut self, latest: HashMap<String, Run>) -> bool {
        let changed = self.latest != latest;
        self.latest = latest;
        self.reading = false;
        self.now = Some(SystemTime::now());
        changed
    }

    /// The answer did not come (the read failed): asked again later.
    pub fn failed(&mut self) {
        self.reading = false;
    }

    /// Something started or ended here: read the runs again at the next turn.
    pub fn soon(&mut self) {
        self.asked = None;
    }

    /// Whether the runs should be read again now; marks the read as under way when so.
    pub fn due(&mut self) -> bool {
        let every = if self.running() > 0 {
            BUSY_EVERY
        } else {
            IDLE_EVERY
        };
        if self.reading || self.asked.is_some_and(|t| t.elapsed() < every) {
            return false;
        }
        self.asked = Some(Instant::now());
        self.reading = true;
        true
    }

    /// The clock moved: whether what is shown changed (an elapsed time while something runs).
    pub fn tick(&mut self, now: SystemTime) -> bool {
        let shown = |t: Option<SystemTime>| {
            t.and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
                .map(|d| d.as_secs())
        };
        let moved = shown(self.now) != shown(Some(now));
        self.now = Some(now);
        moved && self.running() > 0
    }

    /// How many commands have a run going on.
    pub fn running(&self) -> usize {
        self.latest.values().filter(|r| !runs::is_over(r)).count()
    }

    /// Whether command `id` reruns on change: its row and details say so.
    pub fn set_watched(&mut self, id: &str, on: bool) {
        if on {
            self.watched.insert(id.to_string());
        } else {
            self.watched.remove(id);
        }
    }

    pub fn watched(&self, id: &str) -> bool {
        self.watched.contains(id)
    }

    /// The newest run of command `id`.
    pub fn of(&self, id: &str) -> Option<&Run> {
        self.latest.get(id)
    }

    /// Command `id`'s run going on now.
    pub fn running_run(&self, id: &str) -> Option<&Run> {
        self.of(id).filter(|r| !runs::is_over(r))
    }

    fn elapsed(&self, r: &Run) -> Option<Duration> {
        runs::elapsed(r, self.now.unwrap_or_else(SystemTime::now))
    }

    /// The marks after a command's label in the tree: `↻` while it reruns on change, then `●
    /// 12s` while it runs, else how its last run ended.
    pub fn badge(&self, id: &str, t: &Theme) -> Vec<Span<'static>> {
        let mut out = Vec::new();
        if self.watched(id) {
            out.push(Span::styled("  ↻", t.accent()));
        }
        let Some(r) = self.of(id) else {
            return out;
        };
        let (mark, style) = look(r, t);
        let text = if runs::is_over(r) {
            format!("  {mark} {}", ended(r))
        } else {
            let time = self.elapsed(r).map(clock).unwrap_or_default();
            format!("  {mark} {time}")
        };
        out.push(Span::styled(text, style));
        out
    }

    /// The detail pane's line for a command that reruns on change.
    pub fn watch_line(&self, id: &str, t: &Theme) -> Option<Line<'static>> {
        self.watched(id).then(|| {
            Line::from(vec![
                Span::styled(format!("{:<12}", "on change"), t.dim()),
                Span::styled("↻ reruns in the background", t.accent()),
            ])
        })
    }

    /// The detail pane's line for command `id`: what its newest run is doing or how it ended,
    /// with its run id and mode.
    pub fn line(&self, id: &str, t: &Theme) -> Option<Line<'static>> {
        let r = self.of(id)?;
        let (mark, style) = look(r, t);
        let (what, time) = if runs::is_over(r) {
            let took = self
                .elapsed(r)
                .map(|d| format!(" after {}", clock(d)))
                .unwrap_or_default();
            (ended(r), took)
        } else {
            let time = self
                .elapsed(r)
                .map(|d| format!(" for {}", clock(d)))
                .unwrap_or_default();
            ("running".to_string(), time)
        };
        Some(Line::from(vec![
            Span::styled(format!("{:<12}", "last run"), t.dim()),
            Span::styled(format!("{mark} {what}{time}"), style),
            Span::styled(
                format!(
                    " · run {} · {}",
                    r.run_id,
                    crate::components::runs::clean(&r.mode)
                ),
                t.dim(),
            ),
        ]))
    }
}

/// The mark and colour of a run's state.
fn look(r: &Run, t: &Theme) -> (&'static str, Style) {
    if !runs::is_over(r) {
        return ("●", t.accent());
    }
    match r.status.as_str() {
        status::OK => ("✓", t.ok()),
        status::STOPPED => ("■", t.dim()),
        status::UNKNOWN => ("?", t.dim()),
        _ => ("✗", t.error()),
    }
}

/// How a run ended, in words: `ok`, `failed 2`, `stopped`, `killed 137`.
fn ended(r: &Run) -> String {
    let st = crate::components::runs::clean(&r.status);
    match r.exit_code {
        Some(c) if r.status == status::FAILED || r.status == status::KILLED => format!("{st} {c}"),
        _ => st,
    }
}

/// A running time in whole seconds: `12s`, `3m04s`, `1h02m`.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s < 60 {
        format!("{s}s")
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}

/// When [`run`]'s runs started: 2026-01-01T00:00:00Z.
#[cfg(test)]
pub fn started() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600)
}

#[cfg(test)]
impl RunState {
    /// The clock the elapsed times are shown against.
    pub fn at(&mut self, now: SystemTime) {
        self.now = Some(now);
    }
}

#[cfg(test)]
pub fn run(id: i64, command: &str, status: &str, exit: Option<i32>) -> Run {
    Run {
        run_id: id,
        command_id: command.into(),
        label: command.rsplit(':').next().unwrap_or(command).into(),
        command_line: String::new(),
        cwd: String::new(),
        started_at: "2026-01-01T00:00:00.000Z".into(),
        duration_ms: exit.map(|_| 3_400),
        exit_code: exit,
        mode: "detached".into(),
        status: status.into(),
        pid: None,
        log_path: None,
        request: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::screen;
    use ratatui::widgets::Paragraph;

    fn state() -> RunState {
        let mut s = RunState::default();
        let runs = [
            run(4, "make:/w/Makefile:serve", "running", None),
            run(3, "make:/w/Makefile:build", "ok", Some(0)),
            run(2, "make:/w/Makefile:lint", "failed", Some(2)),
            run(1, "make:/w/Makefile:dev", "stopped", Some(137)),
        ];
        s.set(
            runs.into_iter()
                .map(|r| (r.command_id.clone(), r))
                .collect(),
        );
        // 75 s after the running one started.
        s.at(started() + Duration::from_millis(75_400));
        s
    }

    #[test]
    fn marks_and_lines_of_a_running_and_of_finished_commands() {
        let s = state();
        let t = Theme::plain();
        let ids = ["serve", "build", "lint", "dev", "never"];
        let lines: Vec<Line> = ids
            .iter()
            .flat_map(|n| {
                let id = format!("make:/w/Makefile:{n}");
                let mut badge = s.badge(&id, &t);
                if badge.is_empty() {
                    badge.push(Span::raw("  (no run)"));
                }
                let mut spans = vec![Span::raw(n.to_string())];
                spans.extend(badge);
                let mut out = vec![Line::from(spans)];
                out.extend(s.line(&id, &t));
                out
            })
            .collect();
        insta::assert_snapshot!(
            screen(60, 10, |f| f.render_widget(Paragraph::new(lines), f.area()))
        );
        assert_eq!(s.running(), 1);
        assert!(s.running_run("make:/w/Makefile:serve").is_some());
        assert!(s.running_run("make:/w/Makefile:build").is_none());
    }

    #[test]
    fn read_each_second_while_something_runs_and_redrawn_as_the_seconds_pass() {
        let mut s = state();
        assert!(
            !s.set(s.latest.clone()),
            "the same runs again change nothing"
        );
        assert!(s.due(), "never read yet");
        assert!(!s.due(), "a read is under way");
        s.failed();
        assert!(!s.due(), "asked less than a second ago");
        s.asked = Some(Instant::now() - BUSY_EVERY);
        assert!(s.due(), "a run goes on: once a second");
        // On a whole second, so 100 ms later is still the same second whatever the clock says.
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        s.now = Some(now);
        assert!(!s.tick(now + Duration::from_millis(100)));
        assert!(
            s.tick(now + Duration::from_secs(1)),
            "the elapsed time moved"
        );
        s.set(HashMap::new());
        s.asked = Some(Instant::now() - BUSY_EVERY);
        assert!(!s.due(), "nothing runs: every two seconds");
        assert!(!s.tick(now + Duration::from_secs(5)));
    }

    #[test]
    fn clock_reads_in_whole_seconds() {
        assert_eq!(clock(Duration::from_millis(12_900)), "12s");
        assert_eq!(clock(Duration::from_secs(184)), "3m04s");
        assert_eq!(clock(Duration::from_secs(3720)), "1h02m");
    }
}
