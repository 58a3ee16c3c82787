//! Running commands: choosing what runs (a name, or the last run again), the security gate (the
//! command and every step it pulls in), planning with parameters, and launching in the
//! foreground, detached or in a new window, with the history, logs and stop that go with it.
//! Nothing here prints or asks by itself: questions go through the caller's [`Prompter`].

use crate::supervisor::{self, LOGS_DIR, ProcessId, RunFiles};
use crate::{Error, Loaded, Result, envfiles, sequence};
use commandtree_core::{CommandItem, CommandType, Workspace};
use commandtree_exec::history::{self, NewRun, Run, mode, status};
use commandtree_exec::params::{Prompter, Values};
use commandtree_exec::plan::{self, Request, Runnable, config_str};
use commandtree_exec::process;
use commandtree_exec::quote::{sh_quote, split_words};
use commandtree_store::Store;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

mod capture;
pub use capture::{CaptureOptions, Captured, run_captured};

/// Which command to run.
#[derive(Debug, Clone)]
pub enum Target {
    /// An id, `type:label` or unique label.
    Query(String),
    /// The last run again, with its parameters and arguments.
    Last,
    /// This run of the history again, with its parameters and arguments (a restart).
    Run(i64),
}

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub target: Target,
    /// Parameter values (`--param name=value`); for VS Code tasks the names are input ids.
    pub values: Values,
    /// Arguments for the command itself (after `--`).
    pub extra: Vec<String>,
    /// Start a launch configuration under its debugger.
    pub debug: bool,
}

/// The command chosen, with the values and arguments it will run with.
#[derive(Debug, Clone)]
pub struct Selected {
    pub item: CommandItem,
    pub values: Values,
    pub extra: Vec<String>,
    pub debug: bool,
    /// A sequence's commands, resolved when it was chosen (empty for any other command).
    pub members: Vec<CommandItem>,
}

/// What `--last` needs to repeat a run; stored with the run.
#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Saved {
    #[serde(default)]
    values: Values,
    #[serde(default)]
    extra: Vec<String>,
    #[serde(default)]
    debug: bool,
}

/// Chooses the command: by name, or the last run's (with its values and arguments, the given
/// ones winning).
pub fn select(loaded: &Loaded, req: RunRequest) -> Result<Selected> {
    let RunRequest {
        target,
        mut values,
        mut extra,
        mut debug,
    } = req;
    let item = match target {
        Target::Query(q) => loaded.resolve(&q)?.clone(),
        again @ (Target::Last | Target::Run(_)) => {
            let store = loaded.store.as_ref();
            let earlier = match again {
                Target::Run(id) => store
                    .and_then(|s| history::get(s, id, &process::group_alive).ok().flatten())
                    .ok_or_else(|| {
                        Error::failed(format!(
                            "no run {id} in the history of {}",
                            loaded.root.display()
                        ))
                    })?,
                _ => store
                    .and_then(|s| history::list(s, 1, &process::group_alive).ok())
                    .and_then(|mut v| v.pop())
                    .ok_or_else(|| {
                        Error::failed(format!(
                            "no runs recorded yet under {}",
                            loaded.root.display()
                        ))
                    })?,
            };
            let saved: Saved = serde_json::from_str(&earlier.request).unwrap_or_default();
            for (k, v) in saved.values {
                values.entry(k).or_insert(v);
            }
            if extra.is_empty() {
                extra = saved.extra;
            }
            debug = saved.debug;
            loaded
                .commands
                .iter()
                .find(|c| c.id == earlier.command_id)
                .cloned()
                .ok_or_else(|| {
                    Error::failed(format!(
                        "run {} was `{}` ({}), which no longer exists",
                        earlier.run_id, earlier.label, earlier.command_id
                    ))
                })?
        }
    };
    if debug && item.command_type() != Some(CommandType::Launch) {
        return Err(Error::failed(format!(
            "`{}` is a {} command, not a launch configuration: debugging starts the configurations of .vscode/launch.json",
            item.label, item.kind
        )));
    }
    let members = if sequence::is_sequence(&item) {
        if !values.is_empty() || !extra.is_empty() {
            return Err(Error::usage(format!(
                "`{}` is a sequence; its commands take their parameters' defaults or ask for them, not --param or extra arguments",
                item.label
            )));
        }
        sequence::members(loaded, &item)?
    } else {
        Vec::new()
    };
    Ok(Selected {
        item,
        values,
        extra,
        debug,
        members,
    })
}

/// The parameter values and arguments in a form a front end can show before asking.
pub fn request_of(sel: &Selected) -> Request {
    Request {
        values: sel.values.clone(),
        extra: sel.extra.clone(),
    }
}

/// Plans what runs for `sel`: missing values come from `prompter` (when given), then defaults.
/// Never starts a process.
pub fn plan(
    ws: &Workspace,
    sel: &Selected,
    prompter: Option<&mut (dyn Prompter + 'static)>,
) -> Result<Planned> {
    let (runnable, env_files, missing) = prepare(ws, sel, prompter)?;
    if let Some(e) = missing {
        return Err(e);
    }
    let saved = serde_json::to_string(&Saved {
        values: runnable.values.clone(),
        extra: sel.extra.clone(),
        debug: sel.debug,
    })
    .unwrap_or_default();
    Ok(Planned {
        item: sel.item.clone(),
        runnable,
        env_files,
        saved,
    })
}

/// The environment files `[env]` names for `item`, read now; a variable this process already
/// has is kept (the command inherits it).
fn env_files_for(ws: &Workspace, item: &CommandItem) -> envfiles::EnvFiles {
    envfiles::for_command(ws, item, &|k| std::env::var_os(k).is_some())
}

/// What runs for `sel` (a sequence's members joined into one script), with the environment
/// files it gets, even when a program is missing, with why it could not run then.
fn prepare(
    ws: &Workspace,
    sel: &Selected,
    prompter: Option<&mut (dyn Prompter + 'static)>,
) -> Result<(Runnable, envfiles::EnvFiles, Option<Error>)> {
    if sequence::is_sequence(&sel.item) {
        return sequence::plan(ws, &sel.item, &sel.members, prompter, &|m| {
            env_files_for(ws, m)
        });
    }
    let (mut runnable, missing) = preview(ws, sel, prompter)?;
    let env = env_files_for(ws, &sel.item);
    runnable.file_env = env.vars.clone();
    Ok((runnable, env, missing.map(Error::from)))
}

/// The script for `sel` even when its program is missing, with why it could not run then.
fn preview(
    ws: &Workspace,
    sel: &Selected,
    prompter: Option<&mut (dyn Prompter + 'static)>,
) -> Result<(Runnable, Option<commandtree_exec::Error>)> {
    Ok(plan::preview(
        &sel.item,
        &ws.root,
        &ws.settings,
        &request_of(sel),
        prompter,
    )?)
}

/// What `--dry-run` shows for `sel`: the exact text ([`Planned::dry_run_text`]) even when the
/// program it needs is missing, with why it could not run then (the tool not installed).
pub fn dry_run(
    ws: &Workspace,
    sel: &Selected,
    prompter: Option<&mut (dyn Prompter + 'static)>,
) -> Result<(String, Option<String>)> {
    let (runnable, env, missing) = prepare(ws, sel, prompter)?;
    Ok((
        dry_run_text(&runnable, &env),
        missing.map(|e| e.to_string()),
    ))
}

/// The line (or `cd` and script), after the environment files' lines with their values masked.
fn dry_run_text(r: &Runnable, env: &envfiles::EnvFiles) -> String {
    let mut out = env.describe().join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    match r.prompt_line() {
        Some(l) => out.push_str(&l),
        None => out.push_str(&format!(
            "cd -- {}\n{}",
            sh_quote(&r.cwd.to_string_lossy()),
            r.script
        )),
    }
    out
}

/// A planned run, ready to launch.
#[derive(Debug, Clone)]
pub struct Planned {
    pub item: CommandItem,
    pub runnable: Runnable,
    /// The environment files it runs with (their values are in `runnable.file_env`).
    pub env_files: envfiles::EnvFiles,
    saved: String,
}

impl Planned {
    /// What `--dry-run` prints: one line with its `cd` a user could type, or the `cd` and the
    /// script when it spans several lines.
    pub fn dry_run_text(&self) -> String {
        dry_run_text(&self.runnable, &self.env_files)
    }

    /// The command line kept in the history. For VS Code tasks and launch configurations it is
    /// the definition as written, not the resolved script, so values such as `${env:NPM_TOKEN}`
    /// are never stored.
    fn recorded_line(&self) -> &str {
        match self.item.command_type() {
            Some(CommandType::Vscode | CommandType::Launch) => &self.item.command,
            _ => &self.runnable.script,
        }
    }

    fn new_run<'a>(&'a self, mode: &'a str, cwd: &'a str, pid: Option<u32>) -> NewRun<'a> {
        NewRun {
            command_id: &self.item.id,
            label: &self.item.label,
            command_line: self.recorded_line(),
            cwd,
            mode,
            pid,
            request: &self.saved,
        }
    }
}

/// Where a run goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Window {
    /// A new tmux window (inside tmux).
    Tmux,
    /// A terminal emulator: its program and the option taking the command (`alacritty -e`).
    Terminal(Vec<String>),
}

/// The window a "new terminal" run opens here: tmux inside tmux, else `[run] terminal` from the
/// configuration, else `$TERMINAL -e`; `None` when there is none (then run detached).
pub fn new_window(ws: &Workspace) -> Option<Window> {
    if std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()) {
        return Some(Window::Tmux);
    }
    if let Some(t) = config_str(&ws.settings, "run", "terminal") {
        return split_words(&t)
            .ok()
            .filter(|v| !v.is_empty())
            .map(Window::Terminal);
    }
    let t = std::env::var("TERMINAL")
        .ok()
        .filter(|t| !t.trim().is_empty())?;
    Some(Window::Terminal(vec![t, "-e".into()]))
}

/// A run that was started in the background or in a window.
#[derive(Debug, Clone)]
pub struct Started {
    /// Its id in the history (`None` when the history could not be written).
    pub run_id: Option<i64>,
    /// `detached`, `tmux` or `terminal`.
    pub mode: &'static str,
    /// The log of a detached run.
    pub log: Option<PathBuf>,
    /// The history could not be written (the run went ahead): why.
    pub history_warning: Option<String>,
}

/// How a foreground run ended.
#[derive(Debug, Clone)]
pub struct Finished {
    pub run_id: Option<i64>,
    /// The exit code (128 + N for signal N).
    pub code: i32,
    pub duration: Duration,
    /// The history could not be written: why.
    pub history_warning: Option<String>,
}

/// The workspace database for the history, created when needed. `Err` says why there is none;
/// a run goes ahead without history then.
fn history_store(ws: &Workspace, store: &mut Option<Store>) -> std::result::Result<(), String> {
    if store.is_none() {
        match Store::open(&commandtree_store::db_path(&ws.root), true) {
            Ok(s) => *store = s,
            Err(e) => return Err(format!("the run is not recorded in the history: {e}")),
        }
    }
    Ok(())
}

/// Runs in this process's terminal, in the foreground: signals go to the command, and the
/// exit code is its own.
pub fn run_foreground(ws: &Workspace, store: &mut Option<Store>, p: &Planned) -> Result<Finished> {
    let mut warn = history_store(ws, store).err();
    let cwd = p.runnable.cwd.to_string_lossy().into_owned();
    let started = Instant::now();
    let mut run_id = None;
    let result = process::run_foreground(&p.runnable, &mut |pid| {
        if let Some(s) = store.as_mut() {
            match history::start(s, &p.new_run(mode::FOREGROUND, &cwd, Some(pid))) {
                Ok(id) => {
                    run_id = Some(id);
                    record_foreground(ws, id, pid);
                }
                Err(e) => warn = Some(format!("the run history was not updated: {e}")),
            }
        }
    });
    if let Some(id) = run_id {
        supervisor::cleanup(&RunFiles::new(&ws.root, &id.to_string()));
    }
    let code =
        result.map_err(|e| Error::failed(format!("cannot start `{}`: {e}", p.item.label)))?;
    let duration = started.elapsed();
    if let (Some(s), Some(id)) = (store.as_mut(), run_id) {
        // The shell reports a signal death as 128+N too; record it as killed only when the
        // number is a signal's.
        let signaled = code > 128 && code < 128 + 65;
        if let Err(e) = history::finish(
            s,
            id,
            code,
            Some(duration.as_millis() as i64),
            history::status_for(code, signaled),
        ) {
            warn = Some(format!("the run history was not updated: {e}"));
        }
    }
    Ok(Finished {
        run_id,
        code,
        duration,
        history_warning: warn,
    })
}

/// Records a foreground run this process started itself (`rerun`'s watched runs) in the
/// history, with its process so another process can stop it: its run id, or `None` when the
/// history cannot be written (the run goes on).
pub(crate) fn record_started(
    ws: &Workspace,
    store: &mut Option<Store>,
    p: &Planned,
    pid: u32,
) -> Option<i64> {
    history_store(ws, store).ok()?;
    let cwd = p.runnable.cwd.to_string_lossy().into_owned();
    let id = history::start(
        store.as_mut()?,
        &p.new_run(mode::FOREGROUND, &cwd, Some(pid)),
    )
    .ok()?;
    record_foreground(ws, id, pid);
    Some(id)
}

/// Records a run an editor started itself (in its terminal, task system or debugger) and
/// reports: planned as `sel` runs here, so the history keeps its line and values and a restart
/// from any front end repeats it. `pid` is the editor's terminal shell when it knows it: the
/// run counts as going on while that process lives and until [`record_editor_end`]. Without a
/// pid the run reads `unknown` at once to every other reader, since nothing can tell whether
/// it still goes on.
pub fn record_editor_run(
    ws: &Workspace,
    store: &mut Option<Store>,
    sel: &Selected,
    pid: Option<u32>,
) -> Result<i64> {
    // A program that is missing here may be found by the editor: the run is recorded anyway.
    let (runnable, env_files, _missing) = prepare(ws, sel, None)?;
    let saved = serde_json::to_string(&Saved {
        values: runnable.values.clone(),
        extra: sel.extra.clone(),
        debug: sel.debug,
    })
    .unwrap_or_default();
    let p = Planned {
        item: sel.item.clone(),
        runnable,
        env_files,
        saved,
    };
    history_store(ws, store).map_err(Error::failed)?;
    let s = store.as_mut().expect("history_store opened it");
    let cwd = p.runnable.cwd.to_string_lossy().into_owned();
    let id = history::start(s, &p.new_run(mode::EDITOR, &cwd, pid))?;
    if let Some(pid) = pid {
        record_foreground(ws, id, pid);
    }
    Ok(id)
}

/// Records how an editor's run ended: its exit code, or `None` when the editor could not
/// tell (its terminal closed, a debug session ended); `stopped` when the user stopped it
/// there. Only a run recorded by [`record_editor_run`] that is still going on can be ended
/// this way, so a client can never rewrite another run's outcome.
pub fn record_editor_end(
    ws: &Workspace,
    store: &mut Option<Store>,
    run_id: i64,
    exit_code: Option<i32>,
    stopped: bool,
) -> Result<Run> {
    let run = get(ws, store, run_id)?;
    if run.mode != mode::EDITOR {
        return Err(Error::failed(format!(
            "run {run_id} (`{}`) was not started by an editor ({} mode)",
            run.label, run.mode
        )));
    }
    if run.exit_code.is_some() || (run.status != status::RUNNING && run.status != status::UNKNOWN) {
        return Err(Error::failed(format!(
            "run {run_id} (`{}`) has already ended ({})",
            run.label, run.status
        )));
    }
    let s = store.as_mut().expect("get() found the run in the store");
    let ms = started_ms(&run.started_at).and_then(|start| {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .ok()?
            .as_millis() as i64;
        Some((now - start).max(0))
    });
    match exit_code {
        Some(code) => {
            let signaled = code > 128 && code < 128 + 65;
            let st = if stopped {
                status::STOPPED
            } else {
                history::status_for(code, signaled)
            };
            history::finish(s, run_id, code, ms, st)?;
        }
        None => s.set_run_status(
            run_id,
            if stopped {
                status::STOPPED
            } else {
                status::UNKNOWN
            },
        )?,
    }
    supervisor::cleanup(&RunFiles::new(&ws.root, &run_id.to_string()));
    get(ws, store, run_id)
}

/// Records who a foreground run's process is (pid and start time) in its run files, so another
/// process can stop it and can tell a reused pid from it. Best effort: without the record the
/// run still goes on, it just cannot be stopped from elsewhere.
pub(crate) fn record_foreground(ws: &Workspace, run_id: i64, pid: u32) {
    if supervisor::private_dir(&ws.root, supervisor::RUNS_DIR).is_ok() {
        let _ =
            ProcessId::current(pid as i64).record(&RunFiles::new(&ws.root, &run_id.to_string()));
    }
}

/// A name for the files of a run the history could not record.
fn unrecorded_name() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("unrecorded-{secs}-{}", std::process::id())
}

/// Starts the run detached from this terminal, in a session of its own, its output in
/// `.commandtree/logs/<run>.log`. Returns at once; the run's end is recorded by its wrapper and
/// settled into the history by whoever reads it next.
pub fn start_detached(ws: &Workspace, store: &mut Option<Store>, p: &Planned) -> Result<Started> {
    let mut warn = history_store(ws, store).err();
    let cwd = p.runnable.cwd.to_string_lossy().into_owned();
    let run_id = match store.as_mut() {
        Some(s) => match history::start(s, &p.new_run(mode::DETACHED, &cwd, None)) {
            Ok(id) => Some(id),
            Err(e) => {
                warn = Some(format!("the run history was not updated: {e}"));
                None
            }
        },
        None => None,
    };
    let name = run_id.map_or_else(unrecorded_name, |id| id.to_string());
    let files = RunFiles::new(&ws.root, &name);
    let spawned = (|| -> Result<(u32, PathBuf)> {
        let dir = supervisor::private_dir(&ws.root, LOGS_DIR)?;
        let log = dir.join(format!("{name}.log"));
        // The run's output goes to this very file, never to a path opened again later.
        let out = supervisor::create_private(&ws.root, &log)?;
        supervisor::write_wrapper(&ws.root, &p.runnable, &files, &p.item.label, false)?;
        let pid = process::spawn_detached(
            Path::new("sh"),
            // The path's own bytes: a workspace folder need not be UTF-8.
            &[files.script.as_os_str()],
            Some(out),
        )
        .map_err(|e| Error::failed(e.to_string()))?;
        Ok((pid, log))
    })();
    let (pid, log) = match spawned {
        Ok(x) => x,
        Err(e) => {
            supervisor::cleanup(&files);
            if let (Some(s), Some(id)) = (store.as_mut(), run_id) {
                let _ = history::discard(s, id);
            }
            return Err(Error::failed(format!(
                "cannot start `{}` in the background: {e}",
                p.item.label
            )));
        }
    };
    // Recorded now, before the wrapper's own pid file can be trusted to exist.
    let _ = ProcessId::current(pid as i64).record(&files);
    if let (Some(s), Some(id)) = (store.as_mut(), run_id)
        && let Err(e) = history::set_pid(s, id, pid as i64)
            .and_then(|_| history::set_log(s, id, &log.to_string_lossy()))
    {
        warn = Some(format!("the run history was not updated: {e}"));
    }
    Ok(Started {
        run_id,
        mode: mode::DETACHED,
        log: Some(log),
        history_warning: warn,
    })
}

/// Opens a new window running the command; the window stays open after it ends until Enter.
pub fn start_window(
    ws: &Workspace,
    store: &mut Option<Store>,
    p: &Planned,
    how: &Window,
) -> Result<Started> {
    let mut warn = history_store(ws, store).err();
    let cwd = p.runnable.cwd.to_string_lossy().into_owned();
    let m = match how {
        Window::Tmux => mode::TMUX,
        Window::Terminal(_) => mode::TERMINAL,
    };
    let run_id = match store.as_mut() {
        Some(s) => match history::start(s, &p.new_run(m, &cwd, None)) {
            Ok(id) => Some(id),
            Err(e) => {
                warn = Some(format!("the run history was not updated: {e}"));
                None
            }
        },
        None => None,
    };
    let name = run_id.map_or_else(unrecorded_name, |id| id.to_string());
    let files = RunFiles::new(&ws.root, &name);
    let opened = supervisor::write_wrapper(&ws.root, &p.runnable, &files, &p.item.label, true)
        .and_then(|_| {
            let argv = vec![
                "sh".to_string(),
                files.script.to_string_lossy().into_owned(),
            ];
            match how {
                Window::Tmux => process::tmux_window(&p.item.label, &p.runnable.cwd, &argv),
                Window::Terminal(term) => process::terminal_window(term, &argv),
            }
            .map_err(|e| Error::failed(e.to_string()))
        });
    if let Err(e) = opened {
        supervisor::cleanup(&files);
        if let (Some(s), Some(id)) = (store.as_mut(), run_id) {
            let _ = history::discard(s, id);
        }
        let what = match how {
            Window::Tmux => "a tmux window".to_string(),
            Window::Terminal(t) => format!("a terminal window with `{}`", t.join(" ")),
        };
        return Err(Error::failed(format!(
            "cannot open {what} for `{}`: {e}",
            p.item.label
        )));
    }
    Ok(Started {
        run_id,
        mode: m,
        log: None,
        history_warning: warn,
    })
}

/// Records in the history what the wrappers of supervised runs wrote since: pids of runs in
/// windows, and how runs ended. Any reader calls this first; it is cheap when nothing is new.
pub fn settle(ws: &Workspace, store: &mut Store) -> Result<()> {
    let running: Vec<Run> = history::list(store, 1000, &|_| true)?
        .into_iter()
        // `unknown` too: the liveness check says so for a window run whose pid is not known
        // yet, while the row itself still says running.
        .filter(|r| {
            r.exit_code.is_none()
                && (r.status == status::RUNNING || r.status == status::UNKNOWN)
                && r.mode != mode::FOREGROUND
        })
        .collect();
    for r in running {
        let files = RunFiles::new(&ws.root, &r.run_id.to_string());
        if let Some(pid) = supervisor::read_pid(&files) {
            if pid.start.is_none() {
                // First sight of a window run's pid: record who it is now.
                let id = ProcessId::current(pid.pid);
                let _ = id.record(&files);
            }
            if r.pid != Some(pid.pid) {
                history::set_pid(store, r.run_id, pid.pid)?;
            }
        }
        if let Some((code, ended)) = supervisor::read_exit(&files) {
            let ms = started_ms(&r.started_at).and_then(|s| {
                let end = ended
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .ok()?
                    .as_millis() as i64;
                Some((end - s).max(0))
            });
            let signaled = code > 128 && code < 128 + 65;
            history::finish(
                store,
                r.run_id,
                code,
                ms,
                history::status_for(code, signaled),
            )?;
            supervisor::cleanup(&files);
        }
    }
    Ok(())
}

/// Milliseconds since the epoch of a stored `started_at` (`YYYY-MM-DDTHH:MM:SS.sssZ`).
fn started_ms(s: &str) -> Option<i64> {
    let t: jiff::Timestamp = s.parse().ok()?;
    Some(t.as_millisecond())
}

/// The history, newest first, with what supervised runs recorded settled in.
pub fn history(ws: &Workspace, store: &mut Option<Store>, limit: usize) -> Result<Vec<Run>> {
    let Some(s) = store.as_mut() else {
        return Ok(Vec::new());
    };
    settle(ws, s)?;
    Ok(history::list(s, limit, &process::group_alive)?)
}

/// One run of the history.
pub fn get(ws: &Workspace, store: &mut Option<Store>, run_id: i64) -> Result<Run> {
    let not_found = || {
        Error::failed(format!(
            "no run {run_id} in the history of {}",
            ws.root.display()
        ))
    };
    let s = store.as_mut().ok_or_else(not_found)?;
    settle(ws, s)?;
    history::get(s, run_id, &process::group_alive)?.ok_or_else(not_found)
}

/// Whether a run has ended (or can no longer be followed).
pub fn is_over(r: &Run) -> bool {
    r.exit_code.is_some() || r.status != status::RUNNING
}

/// The runs going on now, newest first: foreground runs whose process is alive, detached and
/// window runs not yet ended. What every front end shows as "running".
pub fn running(ws: &Workspace, store: &mut Option<Store>) -> Result<Vec<Run>> {
    Ok(history(ws, store, RUNNING_SCAN)?
        .into_iter()
        .filter(|r| !is_over(r))
        .collect())
}

/// How many of the newest runs are looked at for what is running and for each command's last
/// run; a run older than that many others is not shown as running.
const RUNNING_SCAN: usize = 1000;

/// The newest run of each command (by command id) among the newest [`RUNNING_SCAN`] runs:
/// what a front end shows on a command (running, or how its last run ended) until it runs again.
pub fn latest_by_command(
    ws: &Workspace,
    store: &mut Option<Store>,
) -> Result<std::collections::HashMap<String, Run>> {
    let mut out = std::collections::HashMap::new();
    for r in history(ws, store, RUNNING_SCAN)? {
        out.entry(r.command_id.clone()).or_insert(r);
    }
    Ok(out)
}

/// How long a run has been going (while it runs) or took (once it ended, when known).
pub fn elapsed(r: &Run, now: SystemTime) -> Option<Duration> {
    if let Some(ms) = r.duration_ms.filter(|_| is_over(r)) {
        return Some(Duration::from_millis(ms.max(0) as u64));
    }
    if is_over(r) {
        return None;
    }
    let start = started_ms(&r.started_at)?;
    let now = now.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_millis() as i64;
    Some(Duration::from_millis((now - start).max(0) as u64))
}

/// The runs a name given to `stop` or `restart` means: a run id (digits) is that run; anything
/// else names a command (as `ct run` resolves it) and means its runs going on now, newest first
/// (none is an error naming the command).
pub fn runs_named(loaded: &mut Loaded, ws: &Workspace, name: &str) -> Result<Vec<Run>> {
    if let Ok(id) = name.parse::<i64>() {
        return Ok(vec![get(ws, &mut loaded.store, id)?]);
    }
    let item = loaded.resolve(name)?.clone();
    let mine: Vec<Run> = running(ws, &mut loaded.store)?
        .into_iter()
        .filter(|r| r.command_id == item.id)
        .collect();
    if mine.is_empty() {
        return Err(Error::failed(format!(
            "`{}` is not running (`ct runs` lists the runs)",
            item.label
        )));
    }
    Ok(mine)
}

/// The run a name given to `restart` means: a run id is that run; a command's name means its
/// newest run going on now, else its newest run (restarting a finished command runs it again
/// as it last ran).
pub fn restart_target(loaded: &mut Loaded, ws: &Workspace, name: &str) -> Result<i64> {
    if let Ok(id) = name.parse::<i64>() {
        return Ok(id);
    }
    let item = loaded.resolve(name)?.clone();
    let latest = latest_by_command(ws, &mut loaded.store)?;
    let running = running(ws, &mut loaded.store)?;
    running
        .iter()
        .find(|r| r.command_id == item.id)
        .or_else(|| latest.get(&item.id))
        .map(|r| r.run_id)
        .ok_or_else(|| {
            Error::failed(format!(
                "`{}` has not run yet here: `ct run {}` starts it",
                item.label, item.label
            ))
        })
}

/// A restart: stops run `run_id` when it is still going (as [`stop`] does), then chooses the
/// same command again with the same parameter values and arguments. The caller gates, plans and
/// starts the result as any run (in the mode the run had: [`Run::mode`]), so a command that
/// changed since is checked again.
pub fn restart(loaded: &mut Loaded, ws: &Workspace, run_id: i64) -> Result<(Selected, Run)> {
    let run = get(ws, &mut loaded.store, run_id)?;
    let run = if is_over(&run) {
        run
    } else {
        stop(ws, &mut loaded.store, run_id)?
    };
    let sel = select(
        loaded,
        RunRequest {
            target: Target::Run(run_id),
            values: Values::new(),
            extra: Vec::new(),
            debug: false,
        },
    )?;
    Ok((sel, run))
}

/// The newest run that has a log.
pub fn newest_with_log(ws: &Workspace, store: &mut Option<Store>) -> Result<Run> {
    history(ws, store, 1000)?
        .into_iter()
        .find(|r| r.log_path.is_some())
        .ok_or_else(|| Error::failed("no run with a log yet (logs come from detached runs)"))
}

/// The log of a detached run, opened for reading.
///
/// The path comes from the run history, which is a database file of the workspace (a
/// repository can ship one), so it is followed only inside the workspace's own log folder
/// (`.commandtree/logs/`): that folder and `.commandtree/` must be real folders (not links),
/// the path with its links resolved must lie inside it, the file itself is never a link, and
/// only a regular file is read (a FIFO is opened without waiting and refused).
pub fn open_log(ws: &Workspace, r: &Run) -> Result<std::fs::File> {
    let Some(log) = r.log_path.as_deref() else {
        return Err(Error::failed(format!(
            "run {} (`{}`) ran in {} mode; its output went to a terminal, not a log",
            r.run_id, r.label, r.mode
        )));
    };
    let path = log_inside_logs_dir(&ws.root, r.run_id, Path::new(log))?;
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::failed(format!(
            "run {}: {log} is a symbolic link; not reading it",
            r.run_id
        )));
    }
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = o
        .open(&path)
        .map_err(|e| Error::failed(format!("{log}: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| Error::failed(format!("{log}: {e}")))?;
    if !meta.is_file() {
        return Err(Error::failed(format!(
            "run {}: {log} is not a regular file; not reading it",
            r.run_id
        )));
    }
    Ok(file)
}

/// `log` (relative paths are taken from the root) as a path inside `root`'s log folder, with
/// its folders' links resolved, or why not.
fn log_inside_logs_dir(root: &Path, run_id: i64, log: &Path) -> Result<PathBuf> {
    let base = root.join(commandtree_store::DB_DIR);
    let logs = base.join(LOGS_DIR);
    let refuse = |why: String| {
        Error::failed(format!(
            "run {run_id}: its log {} {why}; only logs in {} are read (the run history is a file \
             of the workspace and may come from the repository): nothing was read",
            log.display(),
            logs.display()
        ))
    };
    for d in [&base, &logs] {
        match std::fs::symlink_metadata(d) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(refuse(format!(
                    "is not readable here: {} is not a real folder",
                    d.display()
                )));
            }
            Err(e) => {
                return Err(refuse(format!(
                    "is not readable here: {}: {e}",
                    d.display()
                )));
            }
        }
    }
    let real_logs =
        std::fs::canonicalize(&logs).map_err(|e| refuse(format!("cannot be checked: {e}")))?;
    let full = root.join(log);
    let (Some(parent), Some(name)) = (full.parent(), full.file_name()) else {
        return Err(refuse("is not a file path".into()));
    };
    // The folders are resolved; the file itself must not be a link (opened with O_NOFOLLOW).
    let real_parent =
        std::fs::canonicalize(parent).map_err(|e| refuse(format!("cannot be checked: {e}")))?;
    if !real_parent.starts_with(&real_logs) {
        return Err(refuse("is outside the workspace's log folder".into()));
    }
    Ok(real_parent.join(name))
}

/// Stops a detached or window run: SIGTERM to its process group, SIGKILL after 5 s. The
/// process must still be the one that was started (its start time is checked), so a stored
/// pid that now belongs to another process is never signalled.
pub fn stop(ws: &Workspace, store: &mut Option<Store>, run_id: i64) -> Result<Run> {
    let run = get(ws, store, run_id)?;
    if is_over(&run) {
        return Err(Error::failed(format!(
            "run {run_id} (`{}`) is not running (status {})",
            run.label, run.status
        )));
    }
    let files = RunFiles::new(&ws.root, &run_id.to_string());
    let Some(pid) =
        supervisor::read_pid(&files).filter(|p| Some(p.pid) == run.pid || run.pid.is_none())
    else {
        return Err(Error::failed(format!(
            "run {run_id} has no process recorded"
        )));
    };
    if !pid.still_same() {
        return Err(Error::failed(format!(
            "run {run_id}: process {} is no longer the one that was started; not signalling it",
            pid.pid
        )));
    }
    process::signal_group(pid.pid, false)
        .map_err(|e| Error::failed(format!("cannot stop run {run_id}: {e}")))?;
    let ended = |store: &mut Option<Store>, wait: Duration| -> Result<bool> {
        let until = Instant::now() + wait;
        loop {
            if is_over(&get(ws, store, run_id)?) || !process::group_alive(pid.pid) {
                return Ok(true);
            }
            if Instant::now() >= until {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    if !ended(store, Duration::from_secs(5))? {
        let _ = process::signal_group(pid.pid, true);
        ended(store, Duration::from_secs(2))?;
    }
    let s = store.as_mut().expect("get() found the run in the store");
    settle(ws, s)?;
    let after = history::get(s, run_id, &process::group_alive)?;
    if after.as_ref().is_none_or(|r| r.exit_code.is_none()) {
        history::finish(s, run_id, 128 + 9, None, status::STOPPED)?;
    }
    history::mark_stopped(s, run_id)?;
    supervisor::cleanup(&files);
    get(ws, store, run_id)
}
