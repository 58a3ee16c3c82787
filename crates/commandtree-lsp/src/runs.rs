//! Runs after the start, for an editor: what runs now and how each command last ran
//! (`running`, and `runsChanged` after `watchFiles`), `stop`, `restart`, the problems in a run's
//! output (`problems`), a command's dependencies (`deps`), the runs the editor starts itself
//! (`runStarted`, `runEnded`: recorded in the history, so every front end sees them) and the
//! watch behind its "run on change" (`watchCommand`, `commandFilesChanged`). Each maps one
//! engine workflow (`runs`, `problems`, `deps`, `rerun`); the server only adds the polling
//! that turns the history's changes into notifications.
//!
//! The server never starts a process: the editor runs each command itself, reports it, and
//! sends its output to `problems`.

use crate::error::*;
use crate::handlers::{Ctx, check_query, load, plan_selected, values_of};
use crate::protocol::{self as proto, RunState, RunningResult};
use crate::server::{Shared, lock, path_of};
use commandtree_engine::problems::{self, Place, Which};
use commandtree_engine::runs::{RunRequest, Target};
use commandtree_engine::{Engine, deps, rerun, runs, supervisor};
use commandtree_exec::history::Run;
use commandtree_store::Store;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

/// The history as a read-only reader sees it: the database is opened (never created) and
/// reopens itself for writing only when settling a finished run needs it.
fn open_store(engine: &Engine) -> Option<Store> {
    Store::open_read_only(&engine.db_path()).ok().flatten()
}

/// What runs now and each command's newest run.
pub(crate) fn state(shared: &Shared) -> RpcResult<RunningResult> {
    let engine = shared.engine()?;
    let ws = engine.workspace();
    let mut store = open_store(&engine);
    let (running, latest): (Vec<Run>, Vec<Run>) = if shared.trusted() {
        let running = runs::running(ws, &mut store)?;
        let latest = runs::latest_by_command(ws, &mut store)?
            .into_values()
            .collect();
        (running, latest)
    } else {
        // Settling writes the history; an untrusted workspace is only read, so the rows are
        // taken as they are (a run that ended unseen shows as running until trusted).
        let all = match &store {
            Some(s) => {
                commandtree_exec::history::list(s, 1000, &commandtree_exec::process::group_alive)
                    .map_err(commandtree_engine::Error::from)?
            }
            None => Vec::new(),
        };
        let running = all.iter().filter(|r| !runs::is_over(r)).cloned().collect();
        let mut seen = std::collections::HashSet::new();
        let latest = all
            .into_iter()
            .filter(|r| seen.insert(r.command_id.clone()))
            .collect();
        (running, latest)
    };
    let now = SystemTime::now();
    let with_time = |r: Run| RunState {
        elapsed_ms: runs::elapsed(&r, now).map(|d| d.as_millis() as u64),
        run: r,
    };
    let mut last: Vec<RunState> = latest.into_iter().map(with_time).collect();
    last.sort_by_key(|s| std::cmp::Reverse(s.run.run_id));
    Ok(RunningResult {
        running: running.into_iter().map(with_time).collect(),
        last,
    })
}

pub(crate) fn running(ctx: &Ctx<'_>, _: proto::NoParams) -> RpcResult<RunningResult> {
    state(ctx.shared)
}

pub(crate) fn stop(ctx: &Ctx<'_>, p: proto::StopParams) -> RpcResult<proto::StopResult> {
    ctx.shared.require_trust("stopping runs")?;
    let (engine, ids, mut store) = match (p.run_id, p.id) {
        (Some(id), None) => {
            let engine = ctx.shared.engine()?;
            let store = open_store(&engine);
            (engine, vec![id], store)
        }
        (None, Some(name)) => {
            check_query(&ctx.shared.root, &name)?;
            let (engine, mut loaded) = load(ctx, false)?;
            let ids = runs::runs_named(&mut loaded, engine.workspace(), &name)?
                .into_iter()
                .map(|r| r.run_id)
                .collect();
            (engine, ids, loaded.store)
        }
        _ => return Err(RpcError::params("give one of runId and id")),
    };
    let mut stopped = Vec::new();
    for id in ids {
        stopped.push(runs::stop(engine.workspace(), &mut store, id)?);
    }
    Ok(proto::StopResult { stopped })
}

pub(crate) fn restart(ctx: &Ctx<'_>, p: proto::RestartParams) -> RpcResult<proto::PlanResult> {
    ctx.shared.require_trust("running commands")?;
    let (engine, mut loaded) = load(ctx, false)?;
    let (sel, _) = runs::restart(&mut loaded, engine.workspace(), p.run_id)?;
    plan_selected(
        &engine,
        &loaded,
        sel,
        p.mode.unwrap_or(proto::RunMode::NewTerminal),
    )
}

pub(crate) fn problems(
    ctx: &Ctx<'_>,
    p: proto::ProblemsParams,
) -> RpcResult<proto::ProblemsResult> {
    let engine = ctx.shared.engine()?;
    let ws = engine.workspace();
    let (matcher, warnings) = problems::matcher(ws);
    match (p.output, p.run_id) {
        (Some(output), None) => {
            // Only joined to the paths the output names; nothing there is opened.
            let cwd = p.cwd.map_or_else(|| ws.root.clone(), |c| path_of(&c));
            let place = Place::new(&ws.root, &cwd);
            Ok(proto::ProblemsResult {
                problems: problems::parse(&matcher, place, output.as_bytes()),
                run: None,
                warnings,
            })
        }
        (None, Some(id)) => {
            // Reading a run settles the history, which writes.
            ctx.shared.require_trust("reading a run's problems")?;
            let mut store = open_store(&engine);
            let found = problems::of_run(ws, &mut store, &Which::Run(id), &matcher)?;
            Ok(proto::ProblemsResult {
                problems: found.problems,
                run: Some(found.run),
                warnings,
            })
        }
        _ => Err(RpcError::params("give one of output and runId")),
    }
}

/// Starts or stops watching what a command depends on; each batch of changed files that count
/// (the engine's rules, as for `ct run --watch`) is sent as `commandFilesChanged`. The editor
/// reruns the command itself, the server never starts it.
pub(crate) fn watch_command(
    ctx: &Ctx<'_>,
    p: proto::WatchCommandParams,
) -> RpcResult<proto::WatchCommandResult> {
    let off = |id: String| proto::WatchCommandResult {
        id,
        watching: false,
        folders: Vec::new(),
    };
    // A command that is gone since can still be unwatched by the id it was watched as.
    if !p.watch && lock(&ctx.shared.watched).remove(&p.id).is_some() {
        return Ok(off(p.id));
    }
    ctx.shared.require_trust("rerunning commands on change")?;
    check_query(&ctx.shared.root, &p.id)?;
    let (engine, loaded) = load(ctx, false)?;
    let item = loaded.resolve(&p.id)?.clone();
    if !p.watch {
        lock(&ctx.shared.watched).remove(&item.id);
        return Ok(off(item.id));
    }
    // Dropped first: a watch asked for again takes the command's folders as they are now.
    lock(&ctx.shared.watched).remove(&item.id);
    let weak: Weak<Shared> = Arc::downgrade(ctx.shared);
    let id = item.id.clone();
    let w = rerun::Watching::start(
        engine.workspace(),
        rerun::folders(&loaded, &item),
        move |files| {
            if let Some(s) = weak.upgrade() {
                s.send::<proto::CommandFilesChanged>(&proto::CommandFilesChangedParams {
                    id: id.clone(),
                    files,
                });
            }
        },
    )?;
    let folders = w.folders().to_vec();
    lock(&ctx.shared.watched).insert(item.id.clone(), w);
    Ok(proto::WatchCommandResult {
        id: item.id,
        watching: true,
        folders,
    })
}

/// A run of a watched command started or ended: what changes in the moments after is its own
/// work, not a change to rerun it for.
fn settle_watch(shared: &Shared, id: &str) {
    if let Some(w) = lock(&shared.watched).get(id) {
        w.settle();
    }
}

/// Records a run the editor started, planned as the server would plan it with the same
/// values, so `ct runs --running`, the terminal UI and a restart anywhere see it.
pub(crate) fn run_started(
    ctx: &Ctx<'_>,
    p: proto::RunStartedParams,
) -> RpcResult<proto::RunStartedResult> {
    ctx.shared.require_trust("recording runs")?;
    check_query(&ctx.shared.root, &p.id)?;
    let values = values_of(p.params)?;
    let (engine, mut loaded) = load(ctx, true)?;
    let sel = runs::select(
        &loaded,
        RunRequest {
            target: Target::Query(p.id),
            values,
            extra: p.extra_args,
            debug: p.mode == proto::RunMode::Debug,
        },
    )?;
    let ws = engine.workspace();
    let run_id = runs::record_editor_run(ws, &mut loaded.store, &sel, p.pid)?;
    settle_watch(ctx.shared, &sel.item.id);
    Ok(proto::RunStartedResult {
        run: runs::get(ws, &mut loaded.store, run_id)?,
    })
}

pub(crate) fn run_ended(
    ctx: &Ctx<'_>,
    p: proto::RunEndedParams,
) -> RpcResult<proto::RunStartedResult> {
    ctx.shared.require_trust("recording runs")?;
    let engine = ctx.shared.engine()?;
    let mut store = open_store(&engine);
    let run = runs::record_editor_end(
        engine.workspace(),
        &mut store,
        p.run_id,
        p.exit_code,
        p.stopped,
    )?;
    settle_watch(ctx.shared, &run.command_id);
    Ok(proto::RunStartedResult { run })
}

pub(crate) fn dependencies(ctx: &Ctx<'_>, p: proto::IdParams) -> RpcResult<deps::Deps> {
    check_query(&ctx.shared.root, &p.id)?;
    let (_, loaded) = load(ctx, false)?;
    let item = loaded.resolve(&p.id)?;
    Ok(deps::of(&loaded.commands, item))
}

/// The polling thread behind `runsChanged`, stopped with the server.
pub(crate) struct Watch {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Watch {
    pub(crate) fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.thread.join();
    }
}

/// How often the history's files are looked at.
const TICK: Duration = Duration::from_secs(1);
/// While something runs, the state is read again this many ticks apart even when no file
/// changed: a foreground run killed outright writes nothing, only its process is gone.
const RECHECK_TICKS: u32 = 5;

/// What changes when a run starts, is settled or ends: the database file and the supervisor's
/// files of detached and window runs (pid, exit code).
fn stamp(root: &Path) -> Vec<(PathBuf, Option<SystemTime>, u64)> {
    let of = |p: PathBuf| {
        let m = std::fs::metadata(&p).ok();
        let t = m.as_ref().and_then(|m| m.modified().ok());
        let len = m.map_or(0, |m| m.len());
        (p, t, len)
    };
    let mut out = vec![of(commandtree_store::db_path(root))];
    let dir = root
        .join(commandtree_store::DB_DIR)
        .join(supervisor::RUNS_DIR);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut files: Vec<_> = entries.flatten().map(|e| of(e.path())).collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// The runs of a state, without the times that change on every reading.
fn runs_of(s: &RunningResult) -> (Vec<&Run>, Vec<&Run>) {
    (
        s.running.iter().map(|r| &r.run).collect(),
        s.last.iter().map(|r| &r.run).collect(),
    )
}

/// Starts sending `runsChanged` (once; later calls do nothing).
pub(crate) fn watch(shared: &Arc<Shared>) {
    let mut slot = lock(&shared.runs_watch);
    if slot.is_some() {
        return;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    // Weak: the thread is owned through `Shared`.
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let root = shared.root.clone();
    let thread = std::thread::Builder::new()
        .name("commandtree-lsp-runs".into())
        .spawn(move || {
            let mut seen_stamp = stamp(&root);
            let mut seen = weak.upgrade().and_then(|s| state(&s).ok());
            let mut ticks = 0u32;
            loop {
                for _ in 0..10 {
                    if flag.load(Ordering::SeqCst) {
                        return;
                    }
                    std::thread::sleep(TICK / 10);
                }
                let Some(shared) = weak.upgrade() else {
                    return;
                };
                ticks += 1;
                let now_stamp = stamp(&root);
                let busy = seen.as_ref().is_some_and(|s| !s.running.is_empty());
                if now_stamp == seen_stamp && !(busy && ticks.is_multiple_of(RECHECK_TICKS)) {
                    continue;
                }
                seen_stamp = now_stamp;
                let Ok(now) = state(&shared) else {
                    continue;
                };
                if seen.as_ref().map(runs_of) != Some(runs_of(&now)) {
                    shared.send::<proto::RunsChanged>(&now);
                    // Settling may have written the database: that is this state, not news.
                    seen_stamp = stamp(&root);
                    seen = Some(now);
                }
            }
        });
    if let Ok(thread) = thread {
        *slot = Some(Watch { stop, thread });
    }
}
