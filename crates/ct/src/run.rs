//! `ct run`, `ct debug`, `ct runs`, `ct logs`, `ct stop`, `ct init`, `ct pick`: argument
//! handling, terminal questions and messages over the engine's runs.

use crate::commands::{self, fail};
use crate::prompt::{TermPrompter, interactive};
use crate::{Exit, output};
use anyhow::Result;
use clap::Args;
use commandtree_core::CommandItem;
use commandtree_engine::gate::{self, ConcernKind};
use commandtree_engine::runs::{self, RunRequest, Target, Window};
use commandtree_engine::{Engine, Error};
use commandtree_exec::history::mode as history_mode;
use commandtree_exec::params::{Prompter, Values, parse_assignments};
use commandtree_exec::quote::sh_quote;
use commandtree_exec::shellinit::{self, InitShell};
use commandtree_store::Store;
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::time::Duration;

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
  ct run test --watch                  run it again whenever a file it depends on changes

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
    #[arg(add = crate::completions::command_names())]
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
    /// Run it again whenever a file it depends on changes (its folder and those of what it
    /// runs; ignored files left out); a change while it runs restarts it. Ctrl-C ends the watch.
    #[arg(short = 'w', long, conflicts_with_all = ["detach", "new_terminal", "dry_run"])]
    pub watch: bool,
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
    /// Only the runs going on now (from any terminal, the terminal UI or a server), with how
    /// long each has been running.
    #[arg(long)]
    pub running: bool,
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
#[command(after_help = "Examples:
  ct stop 12          stop run 12 (`ct runs --running` lists what runs now)
  ct stop dev         stop every run of the command `dev` going on now")]
pub struct StopArgs {
    /// A run id (see `ct runs --running`), or a command's name: its runs going on now.
    #[arg(add = crate::completions::command_names())]
    pub run: String,
}

#[derive(Args)]
#[command(after_help = "Examples:
  ct restart dev      stop the running `dev` and start it again, as it was started
  ct restart 12       run 12 again (stopped first if it still runs)
  ct restart build -d a finished `build` again, detached

A run started detached restarts detached, one in a window in a new window, one in a terminal
in this terminal. The command is checked again (its security warnings ask again).")]
pub struct RestartArgs {
    /// A run id, or a command's name: its newest run going on now, else its last run.
    #[arg(add = crate::completions::command_names())]
    pub run: String,
    /// Start it detached, whatever mode it ran in.
    #[arg(short = 'd', long)]
    pub detach: bool,
    /// Ask nothing: defaults for missing values, and fail on a required one.
    #[arg(long)]
    pub no_input: bool,
    /// Run even when the command carries a security warning, without asking.
    #[arg(short = 'y', long)]
    pub yes: bool,
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

/// Prints a run-layer error (one line) and turns it into the exit code.
fn fail_exec(e: commandtree_exec::Error) -> anyhow::Error {
    fail(Error::from(e))
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
    /// `ct restart`: the run (or command name) to start again.
    restart: Option<String>,
    /// `ct run --watch`.
    watch: bool,
}

pub fn run(engine: &Engine, args: RunArgs, quiet: bool) -> Result<()> {
    let given = parse_assignments(&args.params).map_err(fail_exec)?;
    start(
        engine,
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
            restart: None,
            watch: args.watch,
        },
        quiet,
    )
}

pub fn restart(engine: &Engine, args: RestartArgs, quiet: bool) -> Result<()> {
    start(
        engine,
        Options {
            query: None,
            given: Values::new(),
            extra: Vec::new(),
            new_terminal: false,
            detach: args.detach,
            no_input: args.no_input,
            yes: args.yes,
            dry_run: false,
            debug: false,
            last: false,
            restart: Some(args.run),
            watch: false,
        },
        quiet,
    )
}

pub fn debug(engine: &Engine, args: DebugArgs, quiet: bool) -> Result<()> {
    let given = parse_assignments(&args.params).map_err(fail_exec)?;
    start(
        engine,
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
            restart: None,
            watch: false,
        },
        quiet,
    )
}

fn start(engine: &Engine, mut o: Options, quiet: bool) -> Result<()> {
    let ws = engine.workspace();
    let mut loaded = commands::load(engine, Vec::new(), true, false)?;
    let sel = match o.restart.clone() {
        Some(name) => {
            let id = runs::restart_target(&mut loaded, ws, &name).map_err(fail)?;
            let was_running =
                runs::get(ws, &mut loaded.store, id).is_ok_and(|r| !runs::is_over(&r));
            let (sel, run) = runs::restart(&mut loaded, ws, id).map_err(fail)?;
            if was_running {
                eprintln!("run {id} (`{}`) stopped", output::clean(&run.label));
            }
            if !o.detach {
                match run.mode.as_str() {
                    history_mode::DETACHED => o.detach = true,
                    history_mode::TMUX | history_mode::TERMINAL => o.new_terminal = true,
                    _ => {}
                }
            }
            sel
        }
        None => select(&loaded, &o)?,
    };
    go(engine, &mut loaded, o, sel, quiet)
}

/// The command `ct run`/`ct debug` name (or the one picked on a terminal), with its values.
fn select(loaded: &commandtree_engine::Loaded, o: &Options) -> Result<runs::Selected> {
    let target = if o.last {
        Target::Last
    } else {
        match o.query.clone() {
            Some(q) => Target::Query(q),
            None if interactive() && !o.no_input => match pick_index(&loaded.commands, "")? {
                Some(i) => Target::Query(loaded.commands[i].id.clone()),
                None => return Err(Exit(130).into()),
            },
            None => {
                return Err(fail(Error::usage(
                    "name the command to run (an id, a label or type:label), or use --last",
                )));
            }
        }
    };
    runs::select(
        loaded,
        RunRequest {
            target,
            values: o.given.clone(),
            extra: o.extra.clone(),
            debug: o.debug,
        },
    )
    .map_err(fail)
}

/// Gates, plans and starts `sel` as `o` asks.
fn go(
    engine: &Engine,
    loaded: &mut commandtree_engine::Loaded,
    o: Options,
    sel: runs::Selected,
    quiet: bool,
) -> Result<()> {
    let ws = engine.workspace();
    let item = sel.item.clone();
    if item.kind == commandtree_core::sources::playbook::KIND {
        return crate::llm_skills::run_playbook_item(engine, &item, &sel.values, o.yes, o.dry_run);
    }
    if !quiet {
        let own: Vec<_> = loaded
            .discovery_warnings
            .iter()
            .filter(|w| w.file == Path::new(&item.file_path))
            .cloned()
            .collect();
        output::warnings(&own);
    }
    let can_ask = interactive() && !o.no_input;
    let mut prompter = TermPrompter::default();
    let gate = gate::Gate::of(loaded, &item);
    if !quiet && !o.dry_run {
        // Stale summaries, steps nobody could check, cycles: said, not asked.
        for c in gate.notes() {
            let about = if c.what == ConcernKind::StaleSummary {
                &c.label
            } else {
                &item.label
            };
            eprintln!(
                "note: `{}`: {}",
                output::clean(about),
                output::clean(c.line())
            );
        }
    }
    let mut confirmed = None;
    if let gate::Verdict::Confirm(lines) = gate.verdict(o.yes || o.dry_run) {
        if !can_ask {
            return Err(fail(Error::failed(format!(
                "`{}` has a security warning ({}); without a terminal to confirm it is not run: pass --yes to run it anyway",
                item.label,
                lines.join("; ")
            ))));
        }
        for line in &lines {
            // A step's text names the step: `build`: runs `clean`, which ...
            eprintln!(
                "warning: `{}`: {}",
                output::clean(&item.label),
                output::clean(line)
            );
        }
        if !prompter
            .confirm(&format!("Run `{}` anyway?", output::clean(&item.label)))
            .map_err(fail_exec)?
        {
            return Err(fail(Error::failed(format!("`{}` was not run", item.label))));
        }
        confirmed = Some(lines);
    }
    let mut shown = CleanPrompter(prompter);
    let asker: Option<&mut (dyn Prompter + 'static)> = if can_ask && !o.dry_run {
        Some(&mut shown)
    } else {
        None
    };
    if o.dry_run {
        let (text, missing) = runs::dry_run(ws, &sel, asker).map_err(fail)?;
        println!("{}", output::for_stdout(&text));
        if let Some(why) = missing {
            eprintln!("note: {} (a real run would stop here)", output::clean(&why));
        }
        return Ok(());
    }
    let planned = runs::plan(ws, &sel, asker).map_err(fail)?;
    if !quiet {
        for f in planned
            .env_files
            .files
            .iter()
            .filter(|f| f.problem.is_some())
        {
            eprintln!(
                "note: environment file {}: {}",
                output::clean(&f.name),
                output::clean(f.problem.as_deref().unwrap_or_default())
            );
        }
    }
    if o.watch {
        return crate::rerun::watch(
            engine,
            loaded,
            planned,
            sel.extra.clone(),
            crate::rerun::Confirmed {
                yes: o.yes,
                lines: confirmed,
            },
        );
    }
    let store = &mut loaded.store;
    if o.detach {
        return detached(ws, store, &planned);
    }
    if o.new_terminal {
        return match runs::new_window(ws) {
            Some(w) => window(ws, store, &planned, &w),
            None => detached(ws, store, &planned),
        };
    }
    let fin = runs::run_foreground(ws, store, &planned).map_err(fail)?;
    if let Some(w) = &fin.history_warning {
        eprintln!("warning: {}", output::clean(w));
    }
    if fin.code == 0 {
        Ok(())
    } else {
        Err(Exit(u8::try_from(fin.code).unwrap_or(1)).into())
    }
}

fn detached(
    ws: &commandtree_core::Workspace,
    store: &mut Option<Store>,
    p: &runs::Planned,
) -> Result<()> {
    let started = runs::start_detached(ws, store, p).map_err(fail)?;
    if let Some(w) = &started.history_warning {
        eprintln!("warning: {}", output::clean(w));
    }
    let log = started.log.clone().unwrap_or_default();
    let shown = log
        .strip_prefix(&ws.root)
        .unwrap_or(&log)
        .display()
        .to_string();
    let shown = output::clean(&shown);
    let label = output::clean(&p.item.label);
    match started.run_id {
        Some(id) => {
            println!("run {id}: `{label}` started in the background; output in {shown}");
            eprintln!("  ct logs {id} -f    follow it\n  ct stop {id}       stop it");
        }
        None => println!("`{label}` started in the background; output in {shown}"),
    }
    Ok(())
}

fn window(
    ws: &commandtree_core::Workspace,
    store: &mut Option<Store>,
    p: &runs::Planned,
    how: &Window,
) -> Result<()> {
    let started = runs::start_window(ws, store, p, how).map_err(fail)?;
    if let Some(w) = &started.history_warning {
        eprintln!("warning: {}", output::clean(w));
    }
    let label = output::clean(&p.item.label);
    let mode = output::clean(started.mode);
    match started.run_id {
        Some(id) => println!("run {id}: `{label}` opened in a new {mode} window"),
        None => println!("`{label}` opened in a new {mode} window"),
    }
    Ok(())
}

/// The workspace database, when there is one. Reading the history never creates or migrates
/// it; the store reopens itself for writing on its first write (settling a finished run).
pub fn open_store(engine: &Engine) -> Option<Store> {
    Store::open_read_only(&engine.db_path()).ok().flatten()
}

pub fn runs(engine: &Engine, args: RunsArgs) -> Result<()> {
    let mut store = open_store(engine);
    let list = if args.running {
        let mut v = runs::running(engine.workspace(), &mut store).map_err(fail)?;
        v.truncate(args.limit);
        v
    } else {
        runs::history(engine.workspace(), &mut store, args.limit).map_err(fail)?
    };
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    let now = std::time::SystemTime::now();
    if args.json {
        output::json(&mut out, &list)?;
    } else if list.is_empty() {
        let what = if args.running {
            "Nothing running"
        } else {
            "No runs recorded"
        };
        writeln!(
            out,
            "{what} under {}",
            output::clean(&engine.root().display().to_string())
        )?;
    } else {
        writeln!(
            out,
            "{:>5}  {:<8} {:>4}  {:>8}  {:<19}  {:<10}  COMMAND",
            "RUN", "STATUS", "EXIT", "TIME", "STARTED (UTC)", "MODE"
        )?;
        for r in &list {
            let exit = r.exit_code.map(|c| c.to_string()).unwrap_or_default();
            // A run going on shows how long it has been running so far.
            let time = runs::elapsed(r, now)
                .map(|d| commandtree_core::text::duration(d.as_millis() as i64))
                .unwrap_or_default();
            let started = r.started_at.replace('T', " ");
            let started = started.get(..19).unwrap_or(&started);
            writeln!(
                out,
                "{:>5}  {:<8} {:>4}  {:>8}  {:<19}  {:<10}  {}",
                r.run_id,
                output::clean(&r.status),
                exit,
                time,
                // The history can come from a repository's own database: nothing in it is
                // trusted to be free of control characters.
                output::clean(started),
                output::clean(&r.mode),
                output::clean(&r.label)
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn logs(engine: &Engine, args: LogsArgs) -> Result<()> {
    let ws = engine.workspace();
    let mut store = open_store(engine);
    let run = match args.run {
        Some(id) => runs::get(ws, &mut store, id),
        None => runs::newest_with_log(ws, &mut store),
    }
    .map_err(fail)?;
    let id = run.run_id;
    let mut file = runs::open_log(ws, &run).map_err(fail)?;
    let mut out = std::io::stdout().lock();
    let mut buf = Vec::new();
    file.read_to_end(&mut buf)?;
    out.write_all(&buf)?;
    out.flush()?;
    if !args.follow {
        return Ok(());
    }
    loop {
        let done = runs::get(ws, &mut store, id).map_or(true, |r| runs::is_over(&r));
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

pub fn stop(engine: &Engine, args: StopArgs) -> Result<()> {
    let ws = engine.workspace();
    let (mut store, ids) = match args.run.parse::<i64>() {
        Ok(id) => (open_store(engine), vec![id]),
        Err(_) => {
            let mut loaded = commands::load(engine, Vec::new(), true, false)?;
            let ids = runs::runs_named(&mut loaded, ws, &args.run)
                .map_err(fail)?
                .iter()
                .map(|r| r.run_id)
                .collect();
            (loaded.store.take(), ids)
        }
    };
    for id in ids {
        let run = runs::stop(ws, &mut store, id).map_err(fail)?;
        println!(
            "run {} (`{}`) stopped",
            run.run_id,
            output::clean(&run.label)
        );
    }
    Ok(())
}

pub fn init(args: InitArgs) -> Result<()> {
    let shell: InitShell = args.shell.parse().map_err(fail_exec)?;
    let key = args
        .key
        .or_else(|| {
            std::env::var("COMMANDTREE_KEY")
                .ok()
                .filter(|k| !k.trim().is_empty())
        })
        .unwrap_or_else(|| shellinit::DEFAULT_KEY.to_string());
    let text = shellinit::snippet(shell, &key, "ct").map_err(fail_exec)?;
    print!("{text}");
    Ok(())
}

/// The terminal prompts with what they show cleaned: a parameter's name, description, options
/// and default come from the workspace. An option is answered with its own (uncleaned) value;
/// a default that would show differently is not pre-filled, so nothing invisible is ever
/// accepted with Enter.
struct CleanPrompter(TermPrompter);

impl Prompter for CleanPrompter {
    fn ask(&mut self, p: &commandtree_core::ParamDef) -> commandtree_exec::Result<String> {
        let mut shown = p.clone();
        shown.name = output::clean(&p.name).into_owned();
        shown.description = p
            .description
            .as_deref()
            .map(|d| output::clean(d).into_owned());
        shown.options = p
            .options
            .iter()
            .map(|o| output::clean(o).into_owned())
            .collect();
        shown.default = p.default.as_deref().and_then(|d| {
            let c = output::clean(d);
            // An option's default is matched against the cleaned options; a typed default
            // is pre-filled only when it reads as it is.
            (!p.options.is_empty() || !output::has_unsafe(d)).then(|| c.into_owned())
        });
        let answer = self.0.ask(&shown)?;
        Ok(match shown.options.iter().position(|o| *o == answer) {
            Some(i) => p.options[i].clone(),
            None => answer,
        })
    }

    fn confirm(&mut self, question: &str) -> commandtree_exec::Result<bool> {
        self.0.confirm(&output::clean(question))
    }
}

/// The line `ct pick` puts on the prompt: `cd` plus the command for shell-line types, else a
/// `ct run` that resolves the task or configuration itself.
fn prompt_line(item: &CommandItem) -> String {
    use commandtree_core::CommandType::{Launch, Markdown, Vscode};
    match item.command_type() {
        Some(Vscode | Launch | Markdown) => format!("ct run {}", sh_quote(&item.id)),
        _ => {
            let cwd = if item.cwd.is_empty() { "." } else { &item.cwd };
            format!("cd -- {} && {}", sh_quote(cwd), item.command)
        }
    }
}

pub fn pick(engine: &Engine, args: PickArgs) -> Result<()> {
    let loaded = commands::load(engine, Vec::new(), true, false)?;
    if !args.query.trim().is_empty()
        && let Ok(c) = loaded.resolve(args.query.trim())
    {
        return print_prompt_line(c);
    }
    let commands = loaded.commands;
    match pick_index(&commands, &args.query)? {
        Some(i) => print_prompt_line(&commands[i]),
        None => Err(Exit(130).into()),
    }
}

/// The picked line goes onto the shell's edit line, where the user reads it before pressing
/// Enter: a line with control characters or bidi overrides would show as something else than
/// what runs, so it is refused rather than put there disguised (or escaped into another
/// command).
fn print_prompt_line(item: &CommandItem) -> Result<()> {
    let line = prompt_line(item);
    if output::has_unsafe(&line) {
        output::error(&format!(
            "the command line of `{}` holds control characters or bidi overrides, so it is not \
             put on the prompt, where it would read differently from what runs: \
             {}; run it with `ct run` and pick it there, or by its id (`ct list --json`)",
            item.label,
            output::clean(&line)
        ));
        return Err(Exit(1).into());
    }
    println!("{line}");
    Ok(())
}

/// A fuzzy pick: `fzf` when installed, else a built-in list on the terminal. The rows are
/// workspace text shown on the terminal, so they are cleaned (a tab in a label would also
/// shift fzf's columns).
fn pick_index(commands: &[CommandItem], query: &str) -> Result<Option<usize>> {
    if commands.is_empty() {
        eprintln!("no commands found");
        return Ok(None);
    }
    let parts = |c: &CommandItem| {
        [
            output::clean(&c.label).into_owned(),
            output::clean(&c.kind).into_owned(),
            output::clean(&c.category).into_owned(),
        ]
    };
    if commandtree_exec::line::which("fzf").is_some() {
        let input: String = commands
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{}\t{i}\n", parts(c).join("\t")))
            .collect();
        let Ok(mut child) = std::process::Command::new("fzf")
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
        else {
            return Ok(None);
        };
        let Some(mut stdin) = child.stdin.take() else {
            return Ok(None);
        };
        if stdin.write_all(input.as_bytes()).is_err() {
            return Ok(None);
        }
        drop(stdin);
        let Ok(out) = child.wait_with_output() else {
            return Ok(None);
        };
        if !out.status.success() {
            return Ok(None);
        }
        let line = String::from_utf8_lossy(&out.stdout);
        return Ok(line
            .trim_end()
            .rsplit('\t')
            .next()
            .and_then(|i| i.parse().ok()));
    }
    // The built-in list reads keys from stdin: on a closed or redirected stdin every read
    // ends at once and the list would redraw forever.
    if !interactive() {
        output::error(
            "ct pick needs a terminal to pick on (stdin or stderr is not one): give a name that \
             matches one command with --query NAME, or list them with `ct list`",
        );
        return Err(Exit(2).into());
    }
    let shown: Vec<String> = commands
        .iter()
        .map(|c| {
            let [label, kind, category] = parts(c);
            format!("{label}  ({kind}, {category})")
        })
        .collect();
    Ok(TermPrompter::default().pick("command", &shown, query))
}
