//! LLM skills, command skills and playbooks on the command line: `ct task`,
//! `ct skill run|list|schema|apply`, `ct context`, `ct playbook run|list`, and `ct run` of a
//! playbook. Arguments, printing and the terminal's questions only; the work is the
//! `commandtree_skills::Session`'s.

use crate::commands::{self, fail};
use crate::{Exit, output};
use anstyle::{AnsiColor, Style};
use anyhow::Result;
use clap::{Args, Subcommand};
use commandtree_core::CommandItem;
use commandtree_engine::{CancelToken, Engine};
use commandtree_skills::context::{ContextType, DEFAULT_CONVERSATION};
use commandtree_skills::invocation::{self, Invocation};
use commandtree_skills::playbook::{self, Event};
use commandtree_skills::{Error, NoModel, PlaybookError, RequestOptions, Session, command_skill};
use serde_json::json;
use std::io::{BufRead, IsTerminal, Write};

const SKILL_EXAMPLES: &str = "Examples:
  ct skill list                                    the built-in LLM skills, this workspace's command skills
  ct skill schema task                             the task LLM skill's parameters as JSON Schema
  ct skill run task --prompt \"Summarize this text\" --model gpt-4o \\
      --modelOptions '{\"temperature\":0.7,\"max_tokens\":256}'
  ct skill run file --action write --path ./test.json --content \"hello world\"
  ct skill apply clean-up deploy.sh                diff from the model, written after you answer y
  ct skill load rest-api-design                    a skill definition's content (SKILL.md, *.skill.md)";

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
    /// An LLM skill's parameters as JSON Schema.
    Schema(SchemaArgs),
    /// Apply a command skill to a command's file: the model's version is shown as a diff and
    /// written only after you confirm.
    Apply(ApplyArgs),
    /// Print a skill definition's content (an Agent Skill's `.github/skills/<id>/SKILL.md`, a
    /// `*.skill.md`, ...: what the `load_skill` tool returns).
    Load(crate::skill::LoadArgs),
}

#[derive(Args)]
struct SkillRunArgs {
    /// The LLM skill (task, file, run, search), with or without `@`.
    skill: String,
    /// The LLM skill's flags, as `--name value`.
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
/// Without a model, the way to configure one (as `ct summarize` says it).
fn skill_fail(e: Error) -> anyhow::Error {
    let code = match &e {
        Error::Invalid(_) => 2,
        Error::Cancelled => 130,
        Error::NoModel(NoModel::NotConfigured(how)) => {
            eprintln!("{how}");
            return Exit(1).into();
        }
        Error::NoModel(NoModel::SwitchedOff(_)) => {
            output::error(&format!("{e}; name a provider there to summarize"));
            return Exit(1).into();
        }
        _ => 1,
    };
    output::error(&e.to_string());
    Exit(code).into()
}

/// A playbook that did not start: a step that does not check is a usage error (exit 2).
fn playbook_fail(e: PlaybookError) -> anyhow::Error {
    match e {
        PlaybookError::Playbook(e) => skill_fail(e),
        PlaybookError::Step(e) => {
            output::error(&e.to_string());
            Exit(2).into()
        }
    }
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

/// The session of one `ct` command: Ctrl-C cancels it, questions go to the terminal, answers
/// come from the configured provider and, with `stream`, stream to stdout.
fn session(engine: &Engine, yes: bool, stream: bool) -> Result<Session<'_>> {
    let session = Session::new(engine)
        .with_cancel(interrupt_token()?)
        .with_yes(yes)
        .with_ask(&ASK);
    Ok(if stream {
        session.with_streaming(|t| {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(terminal_text(t).as_bytes());
            let _ = out.flush();
        })
    } else {
        session
    })
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
    let inv = Invocation {
        skill: "task".into(),
        args: words,
    };
    let conversation = (!args.no_context).then_some(args.conversation.as_str());
    run_invocation(engine, &inv, conversation)
}

/// `ct prompt --send`: a rendered prompt command through the `task` skill, alone.
pub fn send_prompt(engine: &Engine, prompt: String) -> Result<()> {
    let inv = Invocation {
        skill: "task".into(),
        args: vec!["--prompt".to_string(), prompt],
    };
    run_invocation(engine, &inv, None)
}

fn run_invocation(engine: &Engine, inv: &Invocation, conversation: Option<&str>) -> Result<()> {
    let session = session(engine, false, std::io::stdout().is_terminal())?;
    let reply = session.invoke(inv, conversation).map_err(skill_fail)?;
    print_reply(&reply.text, reply.streamed)
}

pub fn skill(engine: &Engine, args: SkillArgs, quiet: bool) -> Result<()> {
    match args.command {
        SkillCommand::Run(a) => {
            let mut words = vec![a.skill];
            words.extend(a.flags);
            let inv = invocation::from_words(words).map_err(skill_fail)?;
            run_invocation(engine, &inv, Some(DEFAULT_CONVERSATION))
        }
        SkillCommand::List(a) => list_skills(engine, a.json, quiet),
        SkillCommand::Load(a) => crate::skill::load(engine, a, quiet),
        SkillCommand::Schema(a) => {
            let name = a.skill.trim_start_matches('@');
            let session = Session::new(engine);
            let skill = session.registry().get(name).map_err(skill_fail)?;
            let mut out = std::io::stdout().lock();
            output::json(&mut out, &skill.schema())?;
            Ok(())
        }
        SkillCommand::Apply(a) => apply(engine, a, quiet),
    }
}

fn list_skills(engine: &Engine, json: bool, quiet: bool) -> Result<()> {
    let session = Session::new(engine);
    let (found, warnings) = session.command_skills();
    if !quiet {
        output::warnings(&warnings);
    }
    let mut out = std::io::stdout().lock();
    if json {
        let builtin: Vec<_> = session
            .registry()
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
    for s in session.registry().skills() {
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
    let session = session(engine, false, false)?;
    let skill = session.find_command_skill(&a.skill).map_err(skill_fail)?;
    let loaded = commands::load(engine, Vec::new(), quiet, false)?;
    let item: CommandItem = loaded.resolve(&a.command).map_err(fail)?.clone();
    let proposer = session.proposer().map_err(skill_fail)?;
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
    let proposal = proposer
        .propose(&skill, &item, &options)
        .map_err(skill_fail)?;
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
        if session.cancel_token().is_cancelled() {
            return Err(skill_fail(Error::Cancelled));
        }
        eprintln!("Not applied; {} is unchanged.", output::clean(&rel));
        return Err(Exit(1).into());
    }
    session.apply(&proposal).map_err(skill_fail)?;
    println!("Applied to {}.", output::clean(&rel));
    Ok(())
}

pub fn context(engine: &Engine, args: ContextArgs) -> Result<()> {
    let session = Session::new(engine);
    let conversation = session.conversation(Some(&args.conversation));
    match args.command {
        ContextCommand::Add(a) => {
            let kind: ContextType = a.kind.parse().map_err(anyhow::Error::msg)?;
            let n = conversation.add(kind, &a.text).map_err(skill_fail)?.count;
            println!(
                "Added ({n} message{} in the context).",
                if n == 1 { "" } else { "s" }
            );
            Ok(())
        }
        ContextCommand::List(a) => {
            let rows = conversation.messages().map_err(skill_fail)?;
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
            let n = conversation.clear().map_err(skill_fail)?;
            println!("Removed {n} message{}.", if n == 1 { "" } else { "s" });
            Ok(())
        }
    }
}

pub fn playbook(engine: &Engine, args: PlaybookArgs, quiet: bool) -> Result<()> {
    match args.command {
        PlaybookCommand::List(a) => {
            let all = Session::new(engine).playbooks();
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
            let (_, pb) = Session::new(engine)
                .find_playbook(&a.name)
                .map_err(skill_fail)?;
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
    let stream = std::io::stdout().is_terminal() && !as_json;
    let session = session(engine, yes, stream)?;
    if dry_run {
        let steps = session.plan_playbook(pb, given).map_err(playbook_fail)?;
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
    let ready = session.prepare_playbook(pb, given).map_err(playbook_fail)?;
    let result = session.run_playbook(ready, Some(DEFAULT_CONVERSATION), &mut |ev| match ev {
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
        }
        Event::Finished {
            reply, streamed, ..
        } => {
            if !as_json {
                let _ = print_reply(reply, streamed);
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
        // Looked for before the first step runs, and said as for a single skill.
        Err(e) if matches!(e.error, Error::NoModel(_)) => Err(skill_fail(e.error)),
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
