//! `ct run`, `ct debug`, `ct runs`, `ct logs`, `ct stop`, `ct init`, `ct pick` and the hidden
//! `ct __exec` supervisor behind detached runs and new windows. The work is done by
//! `commandtree-exec`; this file is argument handling and messages.

use crate::{Exit, output};
use anyhow::Result;
use clap::Args;
use commandtree_core::{CommandItem, Workspace};
use commandtree_exec::history::{self, NewRun, mode, status};
use commandtree_exec::params::{Prompter, Values, parse_assignments};
use commandtree_exec::plan::{self, Request, Runnable, config_str};
use commandtree_exec::prompt::{TermPrompter, interactive};
use commandtree_exec::quote::{sh_quote, split_words};
use commandtree_exec::shellinit::{self, InitShell};
use commandtree_exec::{Error, process};
use commandtree_store::{Store, db_path};
use std::io::{IsTerminal, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const RUN_EXAMPLES: &str = "Examples:
  ct run build                         run the command labelled `build`, here in the foreground
  ct run deploy.sh --param env=prod    give a parameter value (repeatable); on a terminal the
                                       others are asked for, defaults pre-filled
  ct run npm:test -- --watch           extra arguments after --, placed the way the tool wants
                                       them (`npm run test -- --watch`, `just test --watch`)
  ct run dev --new-terminal            a new tmux window inside tmux, else a window of $TERMINAL,
                                       else detached with its output in .commandtree/logs/<run>.log
  ct run --last                        the last run again, same parameters and arguments
  ct run deploy.sh --no-input --yes    for scripts: defaults only, no questions, no confirmation
  ct run build --dry-run               print the command line (with its cd) without running it

The exit code is the command's own (128+N when signal N ended it). `ct runs` lists past runs,
`ct logs <run> -f` follows a detached one, `ct stop <run>` ends it.";

const DEBUG_EXAMPLES: &str = "Examples:
  ct debug \"Launch Server\"             node --inspect-brk, after the preLaunchTask
  ct debug \"Python: app\" -- --port 1   python3 -m debugpy --listen 127.0.0.1:5678 --wait-for-client
  ct debug tests --new-terminal        the debugger in a new tmux/terminal window";

#[derive(Args, Default)]
#[command(after_help = RUN_EXAMPLES)]
pub struct RunArgs {
    /// The command: its id, a unique label, or type:label (e.g. npm:build). On a terminal,
    /// leaving it out lets you pick one.
    pub command: Option<String>,
    /// A parameter value, NAME=VALUE (repeatable). For VS Code tasks the names are input ids.
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Run in a new window: tmux inside tmux, else $TERMINAL (or `[run] terminal` in
    /// config.toml), else detached with a log.
    #[arg(short = 'n', long)]
    pub new_terminal: bool,
    /// Run detached, output in .commandtree/logs/<run>.log.
    #[arg(short = 'd', long, conflicts_with = "new_terminal")]
    pub detach: bool,
    /// Run the last run again (its parameters and arguments).
    #[arg(long, conflicts_with = "command")]
    pub last: bool,
    /// Ask nothing: defaults for missing values, and fail on a required one.
    #[arg(long)]
    pub no_input: bool,
    /// Run even when the command carries a security warning, without asking.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Print the command line (with its `cd`) instead of running it.
    #[arg(long)]
    pub dry_run: bool,
    /// Arguments for the command itself.
    #[arg(last = true, value_name = "ARGS")]
    pub args: Vec<String>,
}

#[derive(Args)]
#[command(after_help = DEBUG_EXAMPLES)]
pub struct DebugArgs {
    /// The launch configuration (or compound): its name or id.
    pub command: String,
    /// An input value, NAME=VALUE (repeatable).
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Start the debugger in a new window (tmux, $TERMINAL) or detached.
    #[arg(short = 'n', long)]
    pub new_terminal: bool,
    /// Ask nothing: input defaults, and fail on a required one.
    #[arg(long)]
    pub no_input: bool,
    /// Skip the security-warning confirmation.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Print the command line instead of running it.
    #[arg(long)]
    pub dry_run: bool,
    /// Arguments appended to the program's `args`.
    #[arg(last = true, value_name = "ARGS")]
    pub args: Vec<String>,
}

#[derive(Args)]
pub struct RunsArgs {
    /// Print a JSON array (newest first): runId, commandId, label, commandLine, cwd, startedAt,
    /// durationMs, exitCode, mode, status.
    #[arg(long)]
    pub json: bool,
    /// How many runs to show.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

#[derive(Args)]
pub struct LogsArgs {
    /// The run id (default: the newest run that has a log).
    pub run: Option<i64>,
    /// Keep printing new output until the run ends.
    #[arg(short = 'f', long)]
    pub follow: bool,
}

#[derive(Args)]
pub struct StopArgs {
    /// The run id (see `ct runs`).
    pub run: i64,
}

#[derive(Args)]
pub struct InitArgs {
    /// The shell to integrate with.
    #[arg(value_parser = ["bash", "zsh", "fish"])]
    pub shell: String,
    /// The key that opens the picker: ctrl-LETTER or alt-LETTER [default: $COMMANDTREE_KEY,
    /// else ctrl-g].
    #[arg(long)]
    pub key: Option<String>,
}

#[derive(Args)]
pub struct PickArgs {
    /// Start the picker with this text; a query naming exactly one command picks it at once.
    #[arg(long, default_value = "")]
    pub query: String,
}

/// Arguments of the supervisor `ct run` starts for detached runs and new windows.
#[derive(Args)]
pub struct ExecArgs {
    #[arg(long)]
    db: Option<PathBuf>,
    #[arg(long)]
    run: Option<i64>,
    #[arg(long)]
    cwd: PathBuf,
    #[arg(long, allow_hyphen_values = true)]
    label: String,
    #[arg(long = "env", allow_hyphen_values = true)]
    env: Vec<String>,
    /// In a window: wait for Enter after the command ends, so its output stays readable.
    #[arg(long)]
    attached: bool,
    #[arg(long, allow_hyphen_values = true)]
    script: String,
}

/// Prints an exec error (one line) and turns it into the exit code.
fn fail(e: Error) -> anyhow::Error {
    if !matches!(e, Error::Cancelled) {
        output::error(&e.to_string());
    } else {
        eprintln!("cancelled");
    }
    Exit(e.exit_code()).into()
}

/// What `--last` needs to repeat a run.
#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Saved {
    #[serde(default)]
    values: Values,
    #[serde(default)]
    extra: Vec<String>,
    #[serde(default)]
    debug: bool,
}

struct Options {
    query: Option<String>,
    given: Values,
    extra: Vec<String>,
    new_terminal: bool,
    detach: bool,
    no_input: bool,
    yes: bool,
    dry_run: bool,
    debug: bool,
    last: bool,
}

pub fn run(ws: &Workspace, args: RunArgs, quiet: bool) -> Result<()> {
    let given = parse_assignments(&args.params).map_err(fail)?;
    start(
        ws,
        Options {
            query: args.command,
            given,
            extra: args.args,
            new_terminal: args.new_terminal,
            detach: args.detach,
            no_input: args.no_input,
            yes: args.yes,
            dry_run: args.dry_run,
            debug: false,
            last: args.last,
        },
        quiet,
    )
}

pub fn debug(ws: &Workspace, args: DebugArgs, quiet: bool) -> Result<()> {
    let given = parse_assignments(&args.params).map_err(fail)?;
    start(
        ws,
        Options {
            query: Some(args.command),
            given,
            extra: args.args,
            new_terminal: args.new_terminal,
            detach: false,
            no_input: args.no_input,
            yes: args.yes,
            dry_run: args.dry_run,
            debug: true,
            last: false,
        },
        quiet,
    )
}

fn start(ws: &Workspace, mut o: Options, quiet: bool) -> Result<()> {
    let loaded = crate::commands::load(ws, Vec::new(), true, false);
    let commands = loaded.commands;
    let mut store = loaded.store;
    let item: CommandItem = if o.last {
        let Some(last) = store
            .as_ref()
            .and_then(|s| history::list(s, 1, &process::group_alive).ok())
            .and_then(|mut v| v.pop())
        else {
            return Err(fail(Error::failed(format!(
                "no runs recorded yet under {}",
                ws.root.display()
            ))));
        };
        let saved: Saved = serde_json::from_str(&last.request).unwrap_or_default();
        for (k, v) in saved.values {
            o.given.entry(k).or_insert(v);
        }
        if o.extra.is_empty() {
            o.extra = saved.extra;
        }
        o.debug = saved.debug;
        match commands.iter().find(|c| c.id == last.command_id) {
            Some(c) => c.clone(),
            None => {
                return Err(fail(Error::failed(format!(
                    "the last run was `{}` ({}), which no longer exists",
                    last.label, last.command_id
                ))));
            }
        }
    } else {
        let query = match o.query.clone() {
            Some(q) => q,
            None if interactive() && !o.no_input => match pick_index(&commands, "") {
                Some(i) => commands[i].id.clone(),
                None => return Err(Exit(130).into()),
            },
            None => {
                return Err(fail(Error::usage(
                    "name the command to run (an id, a label or type:label), or use --last",
                )));
            }
        };
        crate::commands::resolve(ws, &commands, &query)?.clone()
    };
    if !quiet {
        let own: Vec<_> = loaded
            .discovery_warnings
            .iter()
            .filter(|w| w.file == Path::new(&item.file_path))
            .cloned()
            .collect();
        output::warnings(&own);
    }
    if o.debug && item.kind != "launch" {
        return Err(fail(Error::failed(format!(
            "`{}` is a {} command, not a launch configuration: ct debug starts the configurations of .vscode/launch.json",
            item.label, item.kind
        ))));
    }
    let can_ask = interactive() && !o.no_input;
    let mut prompter = TermPrompter::default();
    if let Some(w) = item.security_warning.as_deref().filter(|w| !w.is_empty())
        && !o.yes
        && !o.dry_run
    {
        if !can_ask {
            return Err(fail(Error::failed(format!(
                "`{}` has a security warning ({w}); without a terminal to confirm it is not run: pass --yes to run it anyway",
                item.label
            ))));
        }
        eprintln!("warning: `{}`: {w}", item.label);
        if !prompter
            .confirm(&format!("Run `{}` anyway?", item.label))
            .map_err(fail)?
        {
            return Err(fail(Error::failed(format!("`{}` was not run", item.label))));
        }
    }
    let request = Request {
        values: o.given.clone(),
        extra: o.extra.clone(),
    };
    let asker: Option<&mut (dyn Prompter + 'static)> = if can_ask && !o.dry_run {
        Some(&mut prompter)
    } else {
        None
    };
    let runnable = plan::prepare(&item, &ws.root, &ws.settings, &request, asker).map_err(fail)?;
    if o.dry_run {
        let mut out = std::io::stdout().lock();
        match runnable.prompt_line() {
            Some(l) => writeln!(out, "{l}")?,
            None => writeln!(
                out,
                "cd -- {}\n{}",
                sh_quote(&runnable.cwd.to_string_lossy()),
                runnable.script
            )?,
        }
        return Ok(());
    }
    let saved = serde_json::to_string(&Saved {
        values: runnable.values.clone(),
        extra: o.extra.clone(),
        debug: o.debug,
    })?;
    if store.is_none() {
        store = open_store(ws, true);
    }
    let record = Record {
        item: &item,
        runnable: &runnable,
        request: &saved,
    };
    if o.detach {
        return detached(ws, &record, store);
    }
    if o.new_terminal {
        if std::env::var_os("TMUX").is_some_and(|v| !v.is_empty()) {
            return window(ws, &record, store, Window::Tmux);
        }
        if let Some(term) = terminal_command(ws) {
            return window(ws, &record, store, Window::Terminal(term));
        }
        return detached(ws, &record, store);
    }
    foreground(&record, store)
}

struct Record<'a> {
    item: &'a CommandItem,
    runnable: &'a Runnable,
    request: &'a str,
}

impl Record<'_> {
    fn new_run<'b>(&'b self, mode: &'b str, cwd: &'b str, pid: Option<u32>) -> NewRun<'b> {
        NewRun {
            command_id: &self.item.id,
            label: &self.item.label,
            command_line: &self.runnable.script,
            cwd,
            mode,
            pid,
            request: self.request,
        }
    }
}

/// The workspace database for the history, or a warning saying why there is none (the run
/// goes on without history).
fn open_store(ws: &Workspace, create: bool) -> Option<Store> {
    let path = db_path(&ws.root);
    // Reading the history must not migrate the file; a store opened for reading reopens
    // itself for writing on its first write.
    let opened = if create {
        Store::open(&path, true)
    } else {
        Store::open_read_only(&path)
    };
    match opened {
        Ok(s) => s,
        Err(e) => {
            if create {
                output::warnings(&[commandtree_core::Warning::new(
                    &path,
                    None,
                    format!("the run is not recorded in the history: {e}"),
                )]);
            }
            None
        }
    }
}

fn warn_history(e: commandtree_store::Error) {
    eprintln!("warning: the run history was not updated: {e}");
}

fn foreground(rec: &Record<'_>, mut store: Option<Store>) -> Result<()> {
    let cwd = rec.runnable.cwd.to_string_lossy().into_owned();
    let started = Instant::now();
    let mut run_id = None;
    let result = process::run_foreground(rec.runnable, &mut |pid| {
        if let Some(s) = store.as_mut() {
            match history::start(s, &rec.new_run(mode::FOREGROUND, &cwd, Some(pid))) {
                Ok(id) => run_id = Some(id),
                Err(e) => warn_history(e),
            }
        }
    });
    let code = match result {
        Ok(c) => c,
        Err(e) => {
            return Err(fail(Error::failed(format!(
                "cannot start `{}`: {e}",
                rec.item.label
            ))));
        }
    };
    if let (Some(s), Some(id)) = (store.as_mut(), run_id) {
        let ms = started.elapsed().as_millis() as i64;
        // The shell reports a signal death as 128+N too; record it as killed only when the
        // number is a signal's.
        let signaled = code > 128 && code < 128 + 65;
        if let Err(e) = history::finish(s, id, code, Some(ms), history::status_for(code, signaled))
        {
            warn_history(e);
        }
    }
    if code == 0 {
        Ok(())
    } else {
        Err(Exit(u8::try_from(code).unwrap_or(1)).into())
    }
}

/// The argv of the supervisor for run `run_id`.
fn exec_argv(
    ws: &Workspace,
    rec: &Record<'_>,
    run_id: Option<i64>,
    attached: bool,
) -> Result<Vec<String>> {
    let exe = std::env::current_exe()?;
    let mut v = vec![
        exe.to_string_lossy().into_owned(),
        "--root".into(),
        ws.root.to_string_lossy().into_owned(),
        "--quiet".into(),
        "__exec".into(),
        "--db".into(),
        db_path(&ws.root).to_string_lossy().into_owned(),
        "--cwd".into(),
        rec.runnable.cwd.to_string_lossy().into_owned(),
        format!("--label={}", rec.item.label),
    ];
    if let Some(id) = run_id {
        v.push("--run".into());
        v.push(id.to_string());
    }
    for (k, val) in &rec.runnable.env {
        v.push(format!("--env={k}={val}"));
    }
    if attached {
        v.push("--attached".into());
    }
    v.push(format!("--script={}", rec.runnable.script));
    Ok(v)
}

fn logs_dir(ws: &Workspace) -> PathBuf {
    ws.root.join(commandtree_store::DB_DIR).join("logs")
}

fn detached(ws: &Workspace, rec: &Record<'_>, mut store: Option<Store>) -> Result<()> {
    let cwd = rec.runnable.cwd.to_string_lossy().into_owned();
    let run_id = match store.as_mut() {
        Some(s) => match history::start(s, &rec.new_run(mode::DETACHED, &cwd, None)) {
            Ok(id) => Some(id),
            Err(e) => {
                warn_history(e);
                None
            }
        },
        None => None,
    };
    let name = match run_id {
        Some(id) => id.to_string(),
        None => format!(
            "unrecorded-{}-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            std::process::id()
        ),
    };
    let dir = logs_dir(ws);
    let log = dir.join(format!("{name}.log"));
    let spawned = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::File::create(&log).map(|_| ()))
        .map_err(anyhow::Error::from)
        .and_then(|_| exec_argv(ws, rec, run_id, false))
        .and_then(|argv| {
            process::spawn_detached(Path::new(&argv[0]), &argv[1..], Some(&log))
                .map_err(anyhow::Error::from)
        });
    let pid = match spawned {
        Ok(pid) => pid,
        Err(e) => {
            if let (Some(s), Some(id)) = (store.as_mut(), run_id) {
                let _ = history::discard(s, id);
            }
            return Err(fail(Error::failed(format!(
                "cannot start `{}` in the background: {e:#}",
                rec.item.label
            ))));
        }
    };
    if let (Some(s), Some(id)) = (store.as_mut(), run_id) {
        let log_s = log.to_string_lossy();
        if let Err(e) =
            history::set_pid(s, id, pid as i64).and_then(|_| history::set_log(s, id, &log_s))
        {
            warn_history(e);
        }
    }
    let shown = log
        .strip_prefix(&ws.root)
        .unwrap_or(&log)
        .display()
        .to_string();
    match run_id {
        Some(id) => {
            println!(
                "run {id}: `{}` started in the background; output in {shown}",
                rec.item.label
            );
            eprintln!("  ct logs {id} -f    follow it\n  ct stop {id}       stop it");
        }
        None => println!(
            "`{}` started in the background; output in {shown}",
            rec.item.label
        ),
    }
    Ok(())
}

enum Window {
    Tmux,
    Terminal(Vec<String>),
}

/// `[run] terminal` in config.toml (the program and the option taking the command, e.g.
/// `"alacritty -e"`), else `$TERMINAL -e`.
fn terminal_command(ws: &Workspace) -> Option<Vec<String>> {
    if let Some(t) = config_str(&ws.settings, "run", "terminal") {
        return split_words(&t).ok().filter(|v| !v.is_empty());
    }
    let t = std::env::var("TERMINAL")
        .ok()
        .filter(|t| !t.trim().is_empty())?;
    Some(vec![t, "-e".into()])
}

fn window(ws: &Workspace, rec: &Record<'_>, mut store: Option<Store>, how: Window) -> Result<()> {
    let cwd = rec.runnable.cwd.to_string_lossy().into_owned();
    let m = match how {
        Window::Tmux => mode::TMUX,
        Window::Terminal(_) => mode::TERMINAL,
    };
    let run_id = match store.as_mut() {
        Some(s) => history::start(s, &rec.new_run(m, &cwd, None))
            .map_err(warn_history)
            .ok(),
        None => None,
    };
    let argv = exec_argv(ws, rec, run_id, true)?;
    let opened = match &how {
        Window::Tmux => process::tmux_window(&rec.item.label, &rec.runnable.cwd, &argv),
        Window::Terminal(term) => process::terminal_window(term, &argv),
    };
    if let Err(e) = opened {
        if let (Some(s), Some(id)) = (store.as_mut(), run_id) {
            let _ = history::discard(s, id);
        }
        let what = match how {
            Window::Tmux => "a tmux window".to_string(),
            Window::Terminal(t) => format!("a terminal window with `{}`", t.join(" ")),
        };
        return Err(fail(Error::failed(format!(
            "cannot open {what} for `{}`: {e}",
            rec.item.label
        ))));
    }
    match run_id {
        Some(id) => println!("run {id}: `{}` opened in a new {m} window", rec.item.label),
        None => println!("`{}` opened in a new {m} window", rec.item.label),
    }
    Ok(())
}

/// `ct __exec`: runs the script, records its end, and in a window waits for Enter.
pub fn exec(args: ExecArgs) -> Result<()> {
    let mut env = Vec::new();
    for kv in &args.env {
        if let Some((k, v)) = kv.split_once('=') {
            env.push((k.to_string(), v.to_string()));
        }
    }
    let r = Runnable {
        script: args.script.clone(),
        cwd: args.cwd.clone(),
        env,
        shell: commandtree_exec::quote::Shell::Posix,
        values: Values::new(),
    };
    let mut store = match (&args.db, args.run) {
        (Some(db), Some(_)) => Store::open(db, false).ok().flatten(),
        _ => None,
    };
    let started = Instant::now();
    let result = process::supervise(&r, &mut |group| {
        if let (Some(s), Some(id)) = (store.as_mut(), args.run)
            && let Err(e) = history::set_pid(s, id, group as i64)
        {
            warn_history(e);
        }
    });
    let (code, signaled) = match result {
        Ok(x) => x,
        Err(e) => {
            eprintln!("ct: cannot start `{}`: {e}", args.label);
            (127, false)
        }
    };
    if let (Some(s), Some(id)) = (store.as_mut(), args.run) {
        let ms = started.elapsed().as_millis() as i64;
        if let Err(e) = history::finish(s, id, code, Some(ms), history::status_for(code, signaled))
        {
            warn_history(e);
        }
    }
    if args.attached && std::io::stdin().is_terminal() {
        eprint!("\n[{}: exit code {code}; press Enter to close]", args.label);
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
    }
    if code == 0 {
        Ok(())
    } else {
        Err(Exit(u8::try_from(code).unwrap_or(1)).into())
    }
}

pub fn runs(ws: &Workspace, args: RunsArgs) -> Result<()> {
    let list = match open_store(ws, false) {
        Some(s) => history::list(&s, args.limit, &process::group_alive)?,
        None => Vec::new(),
    };
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(&mut out, &list)?;
    } else if list.is_empty() {
        writeln!(out, "No runs recorded under {}", ws.root.display())?;
    } else {
        writeln!(
            out,
            "{:>5}  {:<8} {:>4}  {:>8}  {:<19}  {:<10}  COMMAND",
            "RUN", "STATUS", "EXIT", "TIME", "STARTED (UTC)", "MODE"
        )?;
        for r in &list {
            let exit = r.exit_code.map(|c| c.to_string()).unwrap_or_default();
            let time = r.duration_ms.map(duration).unwrap_or_default();
            let started = r.started_at.replace('T', " ");
            let started = started.get(..19).unwrap_or(&started);
            writeln!(
                out,
                "{:>5}  {:<8} {:>4}  {:>8}  {:<19}  {:<10}  {}",
                r.run_id, r.status, exit, time, started, r.mode, r.label
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

fn duration(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

fn find_run(ws: &Workspace, run: i64) -> Result<(Store, history::Run)> {
    let not_found = || {
        fail(Error::failed(format!(
            "no run {run} in the history of {}",
            ws.root.display()
        )))
    };
    let store = open_store(ws, false).ok_or_else(not_found)?;
    let r = history::get(&store, run, &process::group_alive)?.ok_or_else(not_found)?;
    Ok((store, r))
}

pub fn logs(ws: &Workspace, args: LogsArgs) -> Result<()> {
    let id = match args.run {
        Some(id) => id,
        None => {
            let newest = open_store(ws, false)
                .and_then(|s| history::list(&s, 1000, &process::group_alive).ok())
                .and_then(|v| v.into_iter().find(|r| r.log_path.is_some()));
            match newest {
                Some(r) => r.run_id,
                None => {
                    return Err(fail(Error::failed(
                        "no run with a log yet (logs come from detached runs)",
                    )));
                }
            }
        }
    };
    let (store, run) = find_run(ws, id)?;
    let Some(log) = run.log_path.clone() else {
        return Err(fail(Error::failed(format!(
            "run {id} (`{}`) ran in {} mode; its output went to a terminal, not a log",
            run.label, run.mode
        ))));
    };
    let mut file =
        std::fs::File::open(&log).map_err(|e| fail(Error::failed(format!("{log}: {e}"))))?;
    let mut out = std::io::stdout().lock();
    let mut buf = Vec::new();
    file.read_to_end(&mut buf)?;
    out.write_all(&buf)?;
    out.flush()?;
    if !args.follow {
        return Ok(());
    }
    loop {
        let r = history::get(&store, id, &process::group_alive)?;
        let done = r.is_none_or(|r| r.exit_code.is_some() || r.status != status::RUNNING);
        let pos = file.stream_position()?;
        buf.clear();
        file.read_to_end(&mut buf)?;
        if !buf.is_empty() {
            out.write_all(&buf)?;
            out.flush()?;
        }
        if done {
            // Whatever was written between the last read and the end.
            buf.clear();
            file.read_to_end(&mut buf)?;
            out.write_all(&buf)?;
            out.flush()?;
            return Ok(());
        }
        if file.stream_position()? == pos {
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

pub fn stop(ws: &Workspace, args: StopArgs) -> Result<()> {
    let (mut store, run) = find_run(ws, args.run)?;
    let id = run.run_id;
    if run.exit_code.is_some() || run.status != status::RUNNING {
        return Err(fail(Error::failed(format!(
            "run {id} (`{}`) is not running (status {})",
            run.label, run.status
        ))));
    }
    let Some(pid) = run.pid else {
        return Err(fail(Error::failed(format!(
            "run {id} has no process recorded"
        ))));
    };
    if let Err(e) = process::signal_group(pid, false) {
        return Err(fail(Error::failed(format!("cannot stop run {id}: {e}"))));
    }
    let ended = |store: &Store, wait: Duration| -> Result<bool> {
        let until = Instant::now() + wait;
        loop {
            let r = history::get(store, id, &process::group_alive)?;
            if r.is_none_or(|r| r.exit_code.is_some()) {
                return Ok(true);
            }
            if Instant::now() >= until {
                return Ok(false);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    if !ended(&store, Duration::from_secs(5))? {
        let _ = process::signal_group(pid, true);
        if !ended(&store, Duration::from_secs(2))? {
            history::finish(&mut store, id, 128 + 9, None, status::STOPPED)?;
        }
    }
    history::mark_stopped(&mut store, id)?;
    println!("run {id} (`{}`) stopped", run.label);
    Ok(())
}

pub fn init(args: InitArgs) -> Result<()> {
    let shell: InitShell = args.shell.parse().map_err(fail)?;
    let key = args
        .key
        .or_else(|| {
            std::env::var("COMMANDTREE_KEY")
                .ok()
                .filter(|k| !k.trim().is_empty())
        })
        .unwrap_or_else(|| shellinit::DEFAULT_KEY.to_string());
    let text = shellinit::snippet(shell, &key, "ct").map_err(fail)?;
    print!("{text}");
    Ok(())
}

/// The line `ct pick` puts on the prompt: `cd` plus the command for shell-line types, else a
/// `ct run` that resolves the task or configuration itself.
fn prompt_line(item: &CommandItem) -> String {
    match item.kind.as_str() {
        "vscode" | "launch" | "markdown" => format!("ct run {}", sh_quote(&item.id)),
        _ => {
            let cwd = if item.cwd.is_empty() { "." } else { &item.cwd };
            format!("cd -- {} && {}", sh_quote(cwd), item.command)
        }
    }
}

pub fn pick(ws: &Workspace, args: PickArgs) -> Result<()> {
    let commands = crate::commands::load(ws, Vec::new(), true, false).commands;
    if !args.query.trim().is_empty()
        && let commandtree_core::workspace::Lookup::Found(c) =
            commandtree_core::workspace::lookup(&commands, args.query.trim())
    {
        println!("{}", prompt_line(c));
        return Ok(());
    }
    match pick_index(&commands, &args.query) {
        Some(i) => {
            println!("{}", prompt_line(&commands[i]));
            Ok(())
        }
        None => Err(Exit(130).into()),
    }
}

/// A fuzzy pick: `fzf` when installed, else a built-in list on the terminal.
fn pick_index(commands: &[CommandItem], query: &str) -> Option<usize> {
    if commands.is_empty() {
        eprintln!("no commands found");
        return None;
    }
    let rows: Vec<String> = commands
        .iter()
        .map(|c| format!("{}\t{}\t{}", c.label, c.kind, c.category))
        .collect();
    if commandtree_exec::line::which("fzf").is_some() {
        let input: String = rows
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{r}\t{i}\n"))
            .collect();
        let mut child = std::process::Command::new("fzf")
            .args([
                "--delimiter",
                "\t",
                "--with-nth",
                "1..3",
                "--height",
                "40%",
                "--reverse",
                "--query",
                query,
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .ok()?;
        child.stdin.take()?.write_all(input.as_bytes()).ok()?;
        let out = child.wait_with_output().ok()?;
        if !out.status.success() {
            return None;
        }
        let line = String::from_utf8_lossy(&out.stdout);
        return line.trim_end().rsplit('\t').next()?.parse().ok();
    }
    let shown: Vec<String> = commands
        .iter()
        .map(|c| format!("{}  ({}, {})", c.label, c.kind, c.category))
        .collect();
    TermPrompter::default().pick("command", &shown, query)
}
