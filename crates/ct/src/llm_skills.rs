//! LLM skills on the command line: `ct task`, `ct skill run|list|schema|apply`, `ct context`,
//! `ct playbook run|list`, and `ct run` of a playbook. Wiring and printing only; the work is in
//! `commandtree-skills`.

use crate::commands::{self, fail};
use crate::{Exit, output};
use anstyle::{AnsiColor, Style};
use anyhow::Result;
use clap::{Args, Subcommand};
use commandtree_core::CommandItem;
use commandtree_engine::{CancelToken, Engine};
use commandtree_skills::api::{self, LlmSkillApi};
use commandtree_skills::playbook::{self, Event};
use commandtree_skills::{Error, Host, Registry, RequestOptions, command_skill, invocation};
use commandtree_store::{ContextType, DEFAULT_CONVERSATION, Store};
use serde_json::json;
use std::io::{BufRead, IsTerminal, Write};

const SKILL_EXAMPLES: &str = "Examples:
  ct skill list                                    built-in skills and this workspace's command skills
  ct skill schema task                             the task skill's parameters as JSON Schema
  ct skill run task --prompt \"Summarize this text\" --model gpt-4o \\
      --modelOptions '{\"temperature\":0.7,\"max_tokens\":256}'
  ct skill run file --action write --path ./test.json --content \"hello world\"
  ct skill apply clean-up deploy.sh                diff from the model, written after you answer y
  ct skill load rest-api-design                    a definition skill's content (SKILL.md, *.skill.md)";

#[derive(Args)]
#[command(after_help = SKILL_EXAMPLES)]
pub struct SkillArgs {
    #[command(subcommand)]
    command: SkillCommand,
}

#[derive(Subcommand)]
enum SkillCommand {
    /// Run a built-in LLM skill: `ct skill run task --prompt "..."` (flags as in `@task ...`).
    Run(SkillRunArgs),
    /// The built-in LLM skills and the command skills of .commandtree/skills/.
    List(JsonArg),
    /// A skill's parameters as JSON Schema.
    Schema(SchemaArgs),
    /// Apply a command skill to a command's file: the model's version is shown as a diff and
    /// written only after you confirm.
    Apply(ApplyArgs),
    /// Print a definition skill's content (`.github/skills/<id>/SKILL.md`, `*.skill.md`, ...:
    /// what the `load_skill` tool returns).
    Load(crate::skill::LoadArgs),
}

#[derive(Args)]
struct SkillRunArgs {
    /// The skill (task, file, run, search), with or without `@`.
    skill: String,
    /// The skill's flags, as `--name value`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "FLAGS"
    )]
    flags: Vec<String>,
}

#[derive(Args)]
struct JsonArg {
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct SchemaArgs {
    skill: String,
}

#[derive(Args)]
struct ApplyArgs {
    /// The command skill: its file name without `.md`, or its `name`.
    skill: String,
    /// The command whose file is changed (id, label or type:label).
    command: String,
    /// Write without asking.
    #[arg(short = 'y', long, conflicts_with = "dry_run")]
    yes: bool,
    /// Only show the diff.
    #[arg(long)]
    dry_run: bool,
    /// The model to ask (default: the configured one).
    #[arg(long)]
    model: Option<String>,
}

#[derive(Args)]
pub struct TaskArgs {
    /// What to ask.
    #[arg(long)]
    prompt: String,
    /// The model (default: the configured one).
    #[arg(long)]
    model: Option<String>,
    /// JSON object copied into the request body, e.g. '{"temperature":0.7,"max_tokens":256}'.
    #[arg(long, value_name = "JSON")]
    model_options: Option<String>,
    /// Send the context messages of `ct context` first (the default).
    #[arg(long, overrides_with = "no_context")]
    context: bool,
    /// Send only the prompt.
    #[arg(long)]
    no_context: bool,
    /// The conversation whose context is sent.
    #[arg(long, value_name = "NAME", default_value = DEFAULT_CONVERSATION)]
    conversation: String,
}

#[derive(Args)]
pub struct ContextArgs {
    /// The conversation (separate contexts in one workspace).
    #[arg(long, global = true, value_name = "NAME", default_value = DEFAULT_CONVERSATION)]
    conversation: String,
    #[command(subcommand)]
    command: ContextCommand,
}

#[derive(Subcommand)]
enum ContextCommand {
    /// Append a message to the active context.
    Add(ContextAddArgs),
    /// The active context, oldest first.
    List(JsonArg),
    /// Remove every message of the active context.
    Clear,
}

#[derive(Args)]
struct ContextAddArgs {
    /// The message's type: agent, assistant or user. The context lives in the workspace
    /// database, so it is sent to the model as data from the workspace (one user message, each
    /// message fenced with its type), never as the model's instructions.
    #[arg(long = "type", value_parser = ["agent", "assistant", "user"], default_value = "user")]
    kind: String,
    text: String,
}

const PLAYBOOK_EXAMPLES: &str = "Examples:
  ct playbook list
  ct playbook run release-notes --input version=2.0
  ct playbook run release-notes --input version=2.0 --dry-run   the steps, filled in, nothing sent
  ct run release-notes -p version=2.0                            the same, as a command";

#[derive(Args)]
#[command(after_help = PLAYBOOK_EXAMPLES)]
pub struct PlaybookArgs {
    #[command(subcommand)]
    command: PlaybookCommand,
}

#[derive(Subcommand)]
enum PlaybookCommand {
    /// Run a playbook's steps in order; Ctrl-C stops it (and the request in flight).
    Run(PlaybookRunArgs),
    /// The playbooks of .commandtree/playbooks/.
    List(JsonArg),
}

#[derive(Args)]
struct PlaybookRunArgs {
    /// The playbook's `name`, or its file name without `.playbook.md`.
    name: String,
    /// An input value, NAME=VALUE (repeatable).
    #[arg(short = 'i', long = "input", value_name = "NAME=VALUE")]
    inputs: Vec<String>,
    /// Show the steps with inputs filled in; send nothing.
    #[arg(long)]
    dry_run: bool,
    /// Answer yes to the confirmations of file and run steps.
    #[arg(short = 'y', long)]
    yes: bool,
    /// Print the replies as JSON: {"steps": [{"id", "reply"}]}.
    #[arg(long)]
    json: bool,
}

/// An error of the skills layer, printed; exit 2 for a wrong invocation, 130 when cancelled.
fn skill_fail(e: Error) -> anyhow::Error {
    let code = match e {
        Error::Invalid(_) => 2,
        Error::Cancelled => 130,
        _ => 1,
    };
    output::error(&e.to_string());
    Exit(code).into()
}

/// The process's token, cancelled by the first SIGINT or SIGTERM; a second one ends the
/// process at once (130), so nothing can make Ctrl-C hang.
fn interrupt_token() -> Result<CancelToken> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    static TOKEN: std::sync::OnceLock<CancelToken> = std::sync::OnceLock::new();
    if let Some(t) = TOKEN.get() {
        return Ok(t.clone());
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let token = TOKEN.get_or_init(CancelToken::new).clone();
    let t = token.clone();
    std::thread::spawn(move || {
        let mut seen = 0;
        for _ in signals.forever() {
            seen += 1;
            if seen > 1 {
                std::process::exit(130);
            }
            t.cancel();
        }
    });
    Ok(token)
}

/// A yes/no question on stderr, answered by a line on stdin (`y` or `yes`); end of input, or
/// Ctrl-C while waiting, is no.
fn ask(question: &str) -> bool {
    let mut e = std::io::stderr().lock();
    let _ = write!(e, "{} [y/N] ", output::clean(question));
    let _ = e.flush();
    drop(e);
    let cancel = interrupt_token().ok();
    let (tx, rx) = std::sync::mpsc::channel();
    // Read on a thread of its own, so a Ctrl-C (the token) ends the wait; the thread ends
    // with the process.
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = std::io::stdin().lock().read_line(&mut line).unwrap_or(0);
        let _ = tx.send((read, line));
    });
    let (read, line) = loop {
        match rx.recv_timeout(std::time::Duration::from_millis(50)) {
            Ok(got) => break got,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break (0, String::new()),
            Err(_) if cancel.as_ref().is_some_and(|c| c.is_cancelled()) => {
                break (0, String::new());
            }
            Err(_) => continue,
        }
    };
    // A terminal echoes the answer and its newline; piped input does not.
    if read == 0 || !std::io::stdin().is_terminal() {
        let _ = writeln!(std::io::stderr());
    }
    read > 0 && matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

static ASK: fn(&str) -> bool = ask;

/// Text for a terminal: line breaks and tabs kept, every other control character escaped.
fn terminal_text(s: &str) -> String {
    output::clean_lines(s).into_owned()
}

/// The SkillApi over the configured provider; replies stream to stdout on a terminal.
fn skill_api(
    engine: &Engine,
    cancel: &CancelToken,
    context: Vec<api::SkillMessage>,
    stream: bool,
) -> Result<LlmSkillApi> {
    let provider = crate::summarize::require_provider(engine)?;
    let api = LlmSkillApi::new(commandtree_llm::Client::new(provider), cancel.clone())
        .with_context(context);
    Ok(if stream {
        api.on_text(|t| {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(terminal_text(t).as_bytes());
            let _ = out.flush();
        })
    } else {
        api
    })
}

fn active_context(engine: &Engine, conversation: &str) -> Result<Vec<api::SkillMessage>> {
    let store = Store::open_read_only(&engine.db_path()).map_err(|e| anyhow::anyhow!(e))?;
    api::stored_context(store.as_ref(), conversation).map_err(skill_fail)
}

/// Prints a reply: streamed already on a terminal (then only the final newline), whole
/// otherwise. A reply carries workspace text (a file `@file` read, a command's output and
/// label from `@run`, labels from `@search`) or a model's words about it: on a terminal it is
/// cleaned like everything else from the workspace; piped, it stays exact.
fn print_reply(reply: &str, streamed: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if streamed {
        if !reply.ends_with('\n') {
            writeln!(out)?;
        }
    } else {
        write!(out, "{}", output::for_stdout(reply))?;
        if !reply.ends_with('\n') {
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn task(engine: &Engine, args: TaskArgs) -> Result<()> {
    let mut words = vec!["--prompt".to_string(), args.prompt];
    if let Some(m) = args.model {
        words.extend(["--model".to_string(), m]);
    }
    if let Some(o) = args.model_options {
        words.extend(["--modelOptions".to_string(), o]);
    }
    let inv = invocation::Invocation {
        skill: "task".into(),
        args: words,
    };
    let context = if args.no_context {
        Vec::new()
    } else {
        active_context(engine, &args.conversation)?
    };
    run_invocation(engine, &inv, context)
}

/// `ct prompt --send`: a rendered prompt command through the `task` skill, alone.
pub fn send_prompt(engine: &Engine, prompt: String) -> Result<()> {
    let inv = invocation::Invocation {
        skill: "task".into(),
        args: vec!["--prompt".to_string(), prompt],
    };
    run_invocation(engine, &inv, Vec::new())
}

fn run_invocation(
    engine: &Engine,
    inv: &invocation::Invocation,
    context: Vec<api::SkillMessage>,
) -> Result<()> {
    let registry = Registry::builtin();
    // Checked before a provider is needed, so a wrong flag is named even without one.
    let skill = registry.get(&inv.skill).map_err(skill_fail)?;
    commandtree_skills::params::bind(skill.name(), skill.params(), &inv.args)
        .map_err(skill_fail)?;
    let cancel = interrupt_token()?;
    let stream = std::io::stdout().is_terminal();
    let api: Box<dyn commandtree_skills::SkillApi> = if skill.name() == "task" {
        Box::new(skill_api(engine, &cancel, context, stream)?)
    } else {
        // Only `task` talks to the model; the others must not need a provider.
        Box::new(NoLlm)
    };
    let host = Host {
        engine,
        cancel,
        yes: false,
        ask: Some(&ASK),
    };
    let reply = registry.invoke(inv, api.as_ref(), &host).map_err(|e| {
        // A question left unanswered by Ctrl-C reads as "no"; report the Ctrl-C.
        skill_fail(if host.cancel.is_cancelled() {
            Error::Cancelled
        } else {
            e
        })
    })?;
    print_reply(&reply, stream && skill.name() == "task")
}

/// For skills that never ask the model.
struct NoLlm;

impl commandtree_skills::SkillApi for NoLlm {
    fn active_context(&self) -> commandtree_skills::Result<Vec<api::SkillMessage>> {
        Ok(Vec::new())
    }
    fn send_request(
        &self,
        _: Vec<api::SkillMessage>,
        _: &RequestOptions,
    ) -> commandtree_skills::Result<commandtree_skills::SkillResponse> {
        Err(Error::failed("this skill does not talk to the LLM"))
    }
}

pub fn skill(engine: &Engine, args: SkillArgs, quiet: bool) -> Result<()> {
    match args.command {
        SkillCommand::Run(a) => {
            let mut words = vec![a.skill];
            words.extend(a.flags);
            let inv = invocation::from_words(words).map_err(skill_fail)?;
            let context = if inv.skill == "task" {
                active_context(engine, DEFAULT_CONVERSATION)?
            } else {
                Vec::new()
            };
            run_invocation(engine, &inv, context)
        }
        SkillCommand::List(a) => list_skills(engine, a.json, quiet),
        SkillCommand::Load(a) => crate::skill::load(engine, a, quiet),
        SkillCommand::Schema(a) => {
            let name = a.skill.trim_start_matches('@');
            let registry = Registry::builtin();
            let skill = registry.get(name).map_err(skill_fail)?;
            let mut out = std::io::stdout().lock();
            output::json(&mut out, &skill.schema())?;
            Ok(())
        }
        SkillCommand::Apply(a) => apply(engine, a, quiet),
    }
}

fn list_skills(engine: &Engine, json: bool, quiet: bool) -> Result<()> {
    let registry = Registry::builtin();
    let (found, warnings) = command_skill::discover(engine.root());
    if !quiet {
        output::warnings(&warnings);
    }
    let mut out = std::io::stdout().lock();
    if json {
        let builtin: Vec<_> = registry
            .skills()
            .map(|s| json!({"name": s.name(), "description": s.description()}))
            .collect();
        output::json(
            &mut out,
            &json!({"builtin": builtin, "commandSkills": found}),
        )?;
        return Ok(());
    }
    writeln!(out, "Built-in skills (ct skill run NAME --flag value):")?;
    for s in registry.skills() {
        writeln!(out, "  @{:<8} {}", s.name(), s.description())?;
    }
    if found.is_empty() {
        writeln!(
            out,
            "No command skills in {}.",
            output::clean(&command_skill::dir(engine.root()).display().to_string())
        )?;
    } else {
        writeln!(out, "Command skills (ct skill apply SKILL COMMAND):")?;
        for s in &found {
            writeln!(
                out,
                "  {:<16} {} (icon {})",
                output::clean(&s.id),
                output::clean(&s.name),
                output::clean(&s.icon)
            )?;
        }
    }
    Ok(())
}

fn colour_diff(diff: &str) -> String {
    const ADD: Style = AnsiColor::Green.on_default();
    const DEL: Style = AnsiColor::Red.on_default();
    const HUNK: Style = AnsiColor::Cyan.on_default();
    const HEAD: Style = Style::new().bold();
    diff.lines()
        .map(|l| {
            let text = terminal_text(l);
            let style = if l.starts_with("+++") || l.starts_with("---") {
                HEAD
            } else if l.starts_with('+') {
                ADD
            } else if l.starts_with('-') {
                DEL
            } else if l.starts_with("@@") {
                HUNK
            } else {
                Style::new()
            };
            format!("{style}{text}{style:#}\n")
        })
        .collect()
}

fn apply(engine: &Engine, a: ApplyArgs, quiet: bool) -> Result<()> {
    let root = engine.root();
    let skill = command_skill::find(root, &a.skill).map_err(skill_fail)?;
    let loaded = commands::load(engine, Vec::new(), quiet, false)?;
    let item: CommandItem = loaded.resolve(&a.command).map_err(fail)?.clone();
    commandtree_skills::trust::require(root, "Command skills").map_err(skill_fail)?;
    let cancel = interrupt_token()?;
    let api = skill_api(engine, &cancel, Vec::new(), false)?;
    let options = RequestOptions {
        model: a.model,
        ..Default::default()
    };
    if !quiet {
        eprintln!(
            "Asking the model to apply `{}` to {} ...",
            output::clean(&skill.name),
            output::clean(&commands::name(&item))
        );
    }
    let proposal =
        command_skill::propose(root, &skill, &item, &api, &options).map_err(skill_fail)?;
    if !proposal.changed() {
        println!(
            "No changes proposed for {}.",
            output::clean(&item.file_path)
        );
        return Ok(());
    }
    let diff = proposal.diff(root);
    {
        let mut out = anstream::stdout().lock();
        write!(out, "{}", colour_diff(&diff))?;
        out.flush()?;
    }
    if a.dry_run {
        return Ok(());
    }
    let rel = proposal
        .path
        .strip_prefix(root)
        .unwrap_or(&proposal.path)
        .display()
        .to_string();
    if !a.yes && !ask(&format!("Apply these changes to {rel}?")) {
        if cancel.is_cancelled() {
            return Err(skill_fail(Error::Cancelled));
        }
        eprintln!("Not applied; {} is unchanged.", output::clean(&rel));
        return Err(Exit(1).into());
    }
    command_skill::apply(&proposal).map_err(skill_fail)?;
    println!("Applied to {}.", output::clean(&rel));
    Ok(())
}

pub fn context(engine: &Engine, args: ContextArgs) -> Result<()> {
    let conversation = args.conversation.as_str();
    match args.command {
        ContextCommand::Add(a) => {
            let kind: ContextType = a.kind.parse().map_err(anyhow::Error::msg)?;
            let mut store = Store::open(&engine.db_path(), true)
                .map_err(|e| anyhow::anyhow!(e))?
                .ok_or_else(|| anyhow::anyhow!("the workspace database cannot be created"))?;
            store
                .add_context(conversation, kind, &a.text)
                .map_err(|e| anyhow::anyhow!(e))?;
            let n = store
                .context(conversation)
                .map_err(|e| anyhow::anyhow!(e))?
                .len();
            println!(
                "Added ({n} message{} in the context).",
                if n == 1 { "" } else { "s" }
            );
            Ok(())
        }
        ContextCommand::List(a) => {
            let store = Store::open_read_only(&engine.db_path()).map_err(|e| anyhow::anyhow!(e))?;
            let rows = match &store {
                Some(s) => s.context(conversation).map_err(|e| anyhow::anyhow!(e))?,
                None => Vec::new(),
            };
            let mut out = std::io::stdout().lock();
            if a.json {
                output::json(&mut out, &rows)?;
            } else if rows.is_empty() {
                writeln!(
                    out,
                    "The context is empty; `ct context add --type agent TEXT` adds to it."
                )?;
            } else {
                for r in rows {
                    writeln!(out, "{:<9} {}", r.kind.as_str(), output::clean(&r.content))?;
                }
            }
            Ok(())
        }
        ContextCommand::Clear => {
            let n = match Store::open(&engine.db_path(), false).map_err(|e| anyhow::anyhow!(e))? {
                Some(mut s) => s
                    .clear_context(conversation)
                    .map_err(|e| anyhow::anyhow!(e))?,
                None => 0,
            };
            println!("Removed {n} message{}.", if n == 1 { "" } else { "s" });
            Ok(())
        }
    }
}

pub fn playbook(engine: &Engine, args: PlaybookArgs, quiet: bool) -> Result<()> {
    match args.command {
        PlaybookCommand::List(a) => {
            let all = playbook::list(engine.root());
            let mut out = std::io::stdout().lock();
            if a.json {
                let list: Vec<_> = all
                    .iter()
                    .map(|l| match &l.playbook {
                        Ok(p) => {
                            json!({"name": p.name, "description": p.description, "path": l.path,
                            "steps": p.steps.iter().map(|s| s.id.clone()).collect::<Vec<_>>(),
                            "inputs": p.inputs.iter().map(|i| i.name.clone()).collect::<Vec<_>>()})
                        }
                        Err(e) => json!({"path": l.path, "error": e}),
                    })
                    .collect();
                output::json(&mut out, &list)?;
                return Ok(());
            }
            if all.is_empty() {
                writeln!(
                    out,
                    "No playbooks in {}.",
                    output::clean(&playbook::dir(engine.root()).display().to_string())
                )?;
            }
            for l in all {
                match l.playbook {
                    Ok(p) => writeln!(
                        out,
                        "{:<20} {} step{}{}",
                        output::clean(&p.name),
                        p.steps.len(),
                        if p.steps.len() == 1 { "" } else { "s" },
                        p.description
                            .map(|d| format!("  {}", output::clean(&d)))
                            .unwrap_or_default()
                    )?,
                    Err(e) if !quiet => output::error(&e),
                    Err(_) => {}
                }
            }
            Ok(())
        }
        PlaybookCommand::Run(a) => {
            let given = commandtree_exec::params::parse_assignments(&a.inputs).map_err(|e| {
                output::error(&e.to_string());
                anyhow::Error::from(Exit(2))
            })?;
            let (_, pb) = playbook::find(engine.root(), &a.name).map_err(skill_fail)?;
            let given: Vec<(String, String)> = given.into_iter().collect();
            run_playbook(engine, &pb, &given, a.yes, a.dry_run, a.json)
        }
    }
}

/// `ct run <playbook>`: the command's parameters are the playbook's inputs.
pub fn run_playbook_item(
    engine: &Engine,
    item: &CommandItem,
    values: &commandtree_exec::params::Values,
    yes: bool,
    dry_run: bool,
) -> Result<()> {
    let pb = playbook::load(std::path::Path::new(&item.file_path))
        .map_err(|e| skill_fail(Error::Failed(e)))?;
    let given: Vec<(String, String)> = values.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    run_playbook(engine, &pb, &given, yes, dry_run, false)
}

fn run_playbook(
    engine: &Engine,
    pb: &playbook::Playbook,
    given: &[(String, String)],
    yes: bool,
    dry_run: bool,
    as_json: bool,
) -> Result<()> {
    let inputs = playbook::inputs(pb, given).map_err(skill_fail)?;
    let registry = Registry::builtin();
    if dry_run {
        let steps = playbook::dry_run(pb, &inputs, &registry)
            .map_err(|e| skill_fail(Error::Invalid(e.to_string())))?;
        let mut out = std::io::stdout().lock();
        for (step, inv) in pb.steps.iter().zip(steps) {
            let words: Vec<String> = inv
                .args
                .iter()
                .map(|w| commandtree_core::text::sh_word(w))
                .collect();
            writeln!(
                out,
                "{}{}: @{} {}",
                output::clean(&step.id),
                if step.context { "" } else { " (context=false)" },
                output::clean(&inv.skill),
                output::clean(&words.join(" "))
            )?;
        }
        return Ok(());
    }
    // Every step checked before anything is sent or asked, as `--dry-run` does.
    playbook::dry_run(pb, &inputs, &registry).map_err(|e| {
        output::error(&e.to_string());
        anyhow::Error::from(Exit(2))
    })?;
    commandtree_skills::trust::require(engine.root(), "Playbooks").map_err(skill_fail)?;
    let cancel = interrupt_token()?;
    let stream = std::io::stdout().is_terminal() && !as_json;
    let api = skill_api(
        engine,
        &cancel,
        active_context(engine, DEFAULT_CONVERSATION)?,
        stream,
    )?;
    let host = Host {
        engine,
        cancel,
        yes,
        ask: Some(&ASK),
    };
    let mut printed_by_stream = false;
    let result = playbook::run(pb, &inputs, &registry, &api, &host, &mut |ev| match ev {
        Event::Started {
            index,
            total,
            step,
            invocation,
        } => {
            eprintln!(
                "[{index}/{total}] {} @{}",
                output::clean(&step.id),
                output::clean(&invocation.skill)
            );
            printed_by_stream = stream && invocation.skill == "task";
        }
        Event::Finished { reply, .. } => {
            if !as_json {
                let _ = print_reply(reply, printed_by_stream);
            }
        }
    });
    match result {
        Ok(replies) => {
            if as_json {
                let steps: Vec<_> = replies
                    .iter()
                    .map(|(id, reply)| json!({"id": id, "reply": reply}))
                    .collect();
                output::json(&mut std::io::stdout().lock(), &json!({"steps": steps}))?;
            }
            Ok(())
        }
        Err(e) => {
            if stream {
                println!();
            }
            output::error(&e.to_string());
            let code = match e.error {
                Error::Cancelled => 130,
                Error::Invalid(_) => 2,
                _ => 1,
            };
            Err(Exit(code).into())
        }
    }
}
