//! `ct`: the CommandTree command line. Clap wiring and output formatting only; the work is done
//! by the `commandtree-core` facade.

mod ai;
mod commands;
mod completions;
mod db;
mod deps;
mod doctor;
mod llm_skills;
mod lsp;
mod mcp;
mod output;
mod problems;
mod progress;
mod prompt;
mod rerun;
mod run;
mod search;
mod skill;
mod summarize;
mod tags;
mod trust;
mod watch;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use commandtree_core::{SortOrder, sources};
use commandtree_engine::{Engine, listing};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// CommandTree finds every runnable command in a workspace (scripts, npm, make, VS Code tasks,
/// just, Taskfile, Cargo, Docker Compose and more) and shows them as one tree.
#[derive(Parser)]
#[command(name = "ct", version, about, long_about = None, after_help = EXAMPLES)]
struct Cli {
    /// Workspace root (default: nearest folder with .commandtree/, else the git top level, else
    /// the current folder).
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Do not print discovery warnings.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

const EXAMPLES: &str = "Examples:
  ct list                      the tree of every command in this workspace
  ct list --type npm --json    npm scripts as JSON (CommandItem objects)
  ct show build                everything known about the command labelled `build`
  ct show make:test            the make target `test` (type:label)
  ct tag add build ci          tag the command `build` with `ci`
  ct list --tag ci             only the commands tagged `ci`
  ct star make:test            add it to Quick Launch; `ct quick` lists Quick Launch
  ct embed                     embed every command's summary (local model, once)
  ct search reset the db       commands by meaning, best first: `db-reset (71%)`
  ct deps build                what `build` runs and what runs it
  ct problems                  errors and warnings the newest detached run printed";

#[derive(Subcommand)]
enum Command {
    /// List every discovered command as a tree (or JSON with --json).
    #[command(alias = "ls")]
    List(ListArgs),
    /// Show one command: by id, by label, or as type:label.
    Show(ShowArgs),
    /// Add, remove and list tags (stored in the workspace database).
    Tag(tags::TagArgs),
    /// Add a command to Quick Launch (the `quick` tag), at the end.
    Star(tags::StarArgs),
    /// Remove a command from Quick Launch.
    Unstar(tags::StarArgs),
    /// List Quick Launch in order; `ct quick move <command> <position>` reorders it.
    Quick(tags::QuickArgs),
    /// The workspace database: `path`, `check`, `prune`.
    Db(db::DbArgs),
    /// Run a command with its parameters: in this terminal, in a new window, or detached.
    Run(run::RunArgs),
    /// Start a launch configuration under its debugger (node, debugpy, gdb/lldb, netcoredbg, dlv).
    Debug(run::DebugArgs),
    /// The run history, newest first; `--running` only what runs now, with elapsed time.
    Runs(run::RunsArgs),
    /// Print the output of a detached run (-f follows it).
    Logs(run::LogsArgs),
    /// Stop a run (its whole process group): by run id, or every running run of a command.
    Stop(run::StopArgs),
    /// Stop a run if it still runs and start it again, with the same parameters and arguments.
    Restart(run::RestartArgs),
    /// Errors and warnings a run printed (compilers, linters, tracebacks); --open N opens one in
    /// your editor.
    Problems(problems::ProblemsArgs),
    /// What a command runs (its steps, transitively) and what runs it, as two trees.
    Deps(deps::DepsArgs),
    /// Print a shell snippet binding a key that puts a picked command line on the prompt.
    Init(run::InitArgs),
    /// Pick a command and print its command line, `cd` included (used by `ct init`).
    Pick(run::PickArgs),
    /// Summaries and security warnings from your LLM, for commands that are new or changed.
    Summarize(summarize::SummarizeArgs),
    /// What was found (workspace, database, LLM provider and model) and a live model request.
    Doctor(doctor::DoctorArgs),
    /// Find commands by words and meaning, e.g. `ct search "reset the dev database"` or
    /// `ct search fmt` (a lexical index and local embeddings, ranked together).
    Search(search::SearchArgs),
    /// Make or update the embeddings `ct search` uses (all-MiniLM-L6-v2, on this machine).
    Embed(search::EmbedArgs),
    /// The terminal UI (what `ct` alone opens on a terminal): Quick Launch, the tree, details,
    /// runs. F1 lists the keys.
    Tui(TuiArgs),
    /// Print a shell completion script: `source <(ct completions bash)`, also zsh and fish.
    /// Command names complete from the workspace you are in.
    Completions(completions::CompletionsArgs),
    /// Let this workspace's .commandtree/config.toml choose the LLM, its key and programs.
    Trust(trust::TrustArgs),
    /// Keep discovering: one line per change (commands added, updated, removed; new tags and
    /// summaries from other processes) until interrupted. --json prints NDJSON.
    Watch(watch::WatchArgs),
    /// Serve this workspace's commands to AI agents (Model Context Protocol, stdio or loopback HTTP);
    /// `ct mcp install <client>` sets a client up.
    Mcp(mcp::McpArgs),
    /// Send a prompt to your LLM (after the context of `ct context`) and print the reply.
    Task(llm_skills::TaskArgs),
    /// Skills: `run` a built-in LLM skill (task, file, run, search), `list`, `schema`, `apply` a
    /// command skill of .commandtree/skills/ to a command's file, `load` a skill definition.
    Skill(llm_skills::SkillArgs),
    /// The context messages `ct task` and playbooks send first: `add`, `list`, `clear`.
    Context(llm_skills::ContextArgs),
    /// Playbooks of .commandtree/playbooks/: `run` one step by step, `list` them.
    Playbook(llm_skills::PlaybookArgs),
    /// Serve this workspace's commands to editors (JSON-RPC over stdio with LSP framing; the
    /// VS Code extension's server).
    Lsp(lsp::LspArgs),
    /// Print a prompt command (`.github/commands/*.command.md`, `.claude/commands/*.md`, ...)
    /// with its arguments filled in.
    Prompt(ai::PromptArgs),
    /// AI agents: `ct agent show <id>` prints an agent's full system prompt.
    Agent(ai::AgentArgs),
    /// AI definitions for other tools: the Agent SDK options (claude-sdk), or native files for
    /// Claude Code (claude-code) and Copilot (copilot).
    Export(ai::ExportArgs),
}

#[derive(Args, Default)]
struct ListArgs {
    /// Print a JSON array of CommandItem objects (tree order).
    #[arg(long)]
    json: bool,
    /// Only commands of this type (repeatable), e.g. --type npm --type make.
    #[arg(long = "type", short = 't', value_name = "TYPE", value_parser = type_names())]
    types: Vec<String>,
    /// Sort order inside each category (default: commandtree.sortOrder, else folder).
    #[arg(long, value_parser = ["folder", "name", "type"])]
    sort: Option<String>,
    /// Only commands with this tag (repeatable: commands with all of them).
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// Only commands the tool puts in this group (repeatable: any of them): just
    /// `[group('x')]`, a VS Code task's `group` (build, test).
    #[arg(long = "group", value_name = "GROUP")]
    groups: Vec<String>,
    /// Also auxiliary commands (vendored code, test data, templates, nested examples) and the
    /// ones a tool hides itself (just `[private]` recipes), and documents; default:
    /// `[discovery] show`.
    #[arg(long, short = 'a')]
    all: bool,
    /// Also documents (Markdown files: read, not run); default: `[discovery] docs`.
    #[arg(long)]
    docs: bool,
}

#[derive(Args)]
struct ShowArgs {
    /// A command id, a unique label, or type:label (e.g. npm:build).
    #[arg(add = completions::command_names())]
    command: String,
    /// Print the CommandItem as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Default)]
struct TuiArgs {
    /// Quit after the first frame that shows the commands, printing the time to it (bench/tui.sh).
    #[arg(long, hide = true)]
    bench_first_frame: bool,
    /// After the first frame, press N keys and print the time from key to frame (bench/tui.sh).
    #[arg(long, hide = true, value_name = "N", default_value_t = 0)]
    bench_keys: usize,
}

fn type_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(sources::TYPES.iter().map(|t| t.kind))
}

/// A failure that has already been explained to the user; carries the exit code.
struct Exit(u8);

/// When `ct` started: `bench/tui.sh` times the first frame from here.
static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

fn main() -> ExitCode {
    STARTED.get_or_init(std::time::Instant::now);
    // `COMPLETE=bash ct -- ct run b`: the shell asking for completions (see `ct completions`).
    completions::remember_shell();
    clap_complete::CompleteEnv::with_factory(<Cli as clap::CommandFactory>::command).complete();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(Exit(code)) = e.downcast_ref::<Exit>() {
                return ExitCode::from(*code);
            }
            // `ct list --json | head`: the reader had enough.
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            output::error(&format!("{e:#}"));
            ExitCode::from(1)
        }
    }
}

impl std::fmt::Debug for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {}", self.0)
    }
}
impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {}", self.0)
    }
}
impl std::error::Error for Exit {}

fn run(cli: Cli) -> Result<()> {
    let cwd = std::env::current_dir()?;
    let engine = Engine::open(cli.root.as_deref(), &cwd).map_err(|e| anyhow::anyhow!(e))?;
    let ws = &engine;
    if !cli.quiet {
        output::warnings(engine.settings_warnings());
    }
    let command = match cli.command {
        Some(c) => c,
        None if interactive_terminal() => Command::Tui(TuiArgs::default()),
        None => Command::List(ListArgs::default()),
    };
    match command {
        Command::List(args) => list(ws, args, cli.quiet),
        Command::Show(args) => show(ws, args, cli.quiet),
        Command::Tag(args) => tags::tag(ws, args, cli.quiet),
        Command::Star(args) => tags::star(ws, args, cli.quiet),
        Command::Unstar(args) => tags::unstar(ws, args, cli.quiet),
        Command::Quick(args) => tags::quick(ws, args, cli.quiet),
        Command::Db(args) => db::db(ws, args, cli.quiet),
        Command::Run(args) => run::run(ws, args, cli.quiet),
        Command::Debug(args) => run::debug(ws, args, cli.quiet),
        Command::Runs(args) => run::runs(ws, args),
        Command::Logs(args) => run::logs(ws, args),
        Command::Stop(args) => run::stop(ws, args),
        Command::Restart(args) => run::restart(ws, args, cli.quiet),
        Command::Problems(args) => problems::problems(ws, args, cli.quiet),
        Command::Deps(args) => deps::deps(ws, args, cli.quiet),
        Command::Init(args) => run::init(args),
        Command::Pick(args) => run::pick(ws, args),
        Command::Summarize(args) => summarize::summarize(ws, args, cli.quiet),
        Command::Doctor(args) => doctor::doctor(ws.workspace(), args),
        Command::Search(args) => search::search(ws, args, cli.quiet),
        Command::Embed(args) => search::embed(ws, args, cli.quiet),
        Command::Tui(args) => tui(engine, args),
        Command::Completions(args) => completions::print(args),
        Command::Trust(args) => trust::trust(ws.workspace(), args),
        Command::Watch(args) => watch::watch(
            commandtree_core::Workspace::open(cli.root.as_deref(), &cwd),
            args,
            cli.quiet,
        ),
        Command::Mcp(args) => mcp::mcp(cli.root.clone(), args),
        Command::Task(args) => llm_skills::task(ws, args),
        Command::Skill(args) => llm_skills::skill(ws, args, cli.quiet),
        Command::Context(args) => llm_skills::context(ws, args),
        Command::Playbook(args) => llm_skills::playbook(ws, args, cli.quiet),
        Command::Lsp(args) => lsp::lsp(cli.root.clone(), args),
        Command::Prompt(args) => ai::prompt(ws, args, cli.quiet),
        Command::Agent(args) => ai::agent(ws, args, cli.quiet),
        Command::Export(args) => ai::export(ws, args, cli.quiet),
    }
}

/// `ct` alone opens the UI only when a person is there to use it: stdin and stdout on a
/// terminal. Piped or redirected, it prints the tree as before.
fn interactive_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::io::stdin().is_terminal()
}

fn tui(engine: Engine, args: TuiArgs) -> Result<()> {
    let code = commandtree_tui::run(
        engine,
        commandtree_tui::Bench {
            first_frame: args.bench_first_frame,
            keys: args.bench_keys,
            started: STARTED.get().copied(),
        },
    )?;
    if code == 0 {
        Ok(())
    } else {
        Err(Exit(u8::try_from(code).unwrap_or(1)).into())
    }
}

fn list(engine: &Engine, args: ListArgs, quiet: bool) -> Result<()> {
    let show_all = listing::Show::of(engine, args.all, false).all;
    // Asking for the type is asking for the documents.
    let docs = args.docs || args.types.iter().any(|t| t == "markdown");
    let loaded = crate::commands::load_listing(engine, args.types, quiet, false, show_all)?;
    let order: Option<SortOrder> = args
        .sort
        .as_deref()
        .map(|s| s.parse().map_err(anyhow::Error::msg))
        .transpose()?;
    let shown = listing::listing(
        engine,
        loaded.commands,
        loaded.store.as_ref(),
        &listing::Query {
            tags: args.tags.clone(),
            groups: args.groups.clone(),
            text: None,
            all: args.all,
            docs,
            order,
        },
    );
    output::warnings(&shown.unknown_tags);
    if args.json {
        // JSON escapes every control character, so there is nothing for anstream to strip.
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        output::json_items(&mut out, &shown.ordered())?;
        out.flush()?;
        // `ct` exits next: freeing a big listing piece by piece would only delay that.
        std::mem::forget(shown);
        return Ok(());
    }
    let listing::Listing {
        commands,
        tree,
        hidden,
        hidden_docs,
        ..
    } = shown;
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    output::tree(&mut out, &tree, &commands)?;
    if commands.is_empty() && !args.tags.is_empty() {
        writeln!(
            out,
            "No commands tagged {}",
            output::clean(&args.tags.join(" and "))
        )?;
    } else if commands.is_empty() && !args.groups.is_empty() {
        writeln!(
            out,
            "No commands in group {}",
            output::clean(&args.groups.join(" or "))
        )?;
    } else if commands.is_empty() && hidden == 0 && hidden_docs == 0 {
        writeln!(
            out,
            "No commands found under {}",
            output::clean(&engine.root().display().to_string())
        )?;
    }
    if hidden > 0 {
        let s = if hidden == 1 { "" } else { "s" };
        writeln!(
            out,
            "{hidden} more command{s} hidden (vendored, test data, templates, examples, private): `ct list --all` or `[discovery] show = \"all\"` lists them"
        )?;
    }
    if hidden_docs > 0 {
        let s = if hidden_docs == 1 { "" } else { "s" };
        writeln!(
            out,
            "{hidden_docs} document{s} (Markdown) not listed: `ct list --docs` or `[discovery] docs = true` lists them"
        )?;
    }
    out.flush()?;
    Ok(())
}

fn show(engine: &Engine, args: ShowArgs, quiet: bool) -> Result<()> {
    let mut loaded = crate::commands::load(engine, Vec::new(), quiet, false)?;
    let c = loaded
        .resolve(&args.command)
        .map_err(crate::commands::fail)?
        .clone();
    // Running now, or how its last run ended (until it runs again); nothing when it never ran.
    let last = commandtree_engine::runs::latest_by_command(engine.workspace(), &mut loaded.store)
        .ok()
        .and_then(|mut m| m.remove(&c.id));
    let c = &c;
    let mut out = std::io::BufWriter::new(anstream::stdout().lock());
    if args.json {
        output::json(&mut out, c)?;
    } else {
        output::details(&mut out, c)?;
        output::steps(
            &mut out,
            &commandtree_engine::closure::of(&loaded.commands, c),
        )?;
        if let Some(r) = &last {
            output::last_run(&mut out, r, std::time::SystemTime::now())?;
        }
        if let Some(text) = ai::rendered(engine, c) {
            writeln!(out)?;
            ai::print_text(&mut out, &text)?;
        }
    }
    out.flush()?;
    Ok(())
}
