//! The MCP server: tools, resources and prompts (the workspace's prompt commands) over the
//! engine facade. Every
//! engine call blocks (SQLite, processes, HTTP to the LLM), so each runs on tokio's blocking
//! pool. Commands come from the engine's live index, started with the server: one walk, then
//! the watcher keeps it current, so answers match the files on disk without a walk per call.

use crate::policy::Policy;
use crate::schema::*;
use crate::text;
use commandtree_core::{CancelToken, CommandItem, NoProgress, ProgressEvent, sources};
use commandtree_engine::runs::{self, CaptureOptions, RunRequest, Target};
use commandtree_engine::{
    Engine, Error, Live, LiveEvent, LoadOptions, Loaded, gate, listing, problems, search,
    summaries, tags as engine_tags,
};
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::{
    ErrorData as McpError, Peer, RoleServer, ServerHandler, tool, tool_handler, tool_router,
};
use serde::Serialize;
use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Commands returned by `list_commands` unless `all` is set.
const LIST_LIMIT: usize = 100;
/// Bytes of output `run_command` returns: the end of it.
pub const OUTPUT_LIMIT: usize = 16 * 1024;
const DEFAULT_TIMEOUT: u64 = 600;
const MAX_TIMEOUT: u64 = 3600;
/// The scheme and authority of command resources.
pub const COMMAND_URI: &str = "commandtree://command/";

struct Inner {
    engine: Engine,
    live: Live,
    /// Each change of the commands (taken once, by [`CommandTreeServer::forward_changes`]).
    changes: std::sync::Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<()>>>,
    /// The clients to tell of changes: one on stdio, one per session over HTTP.
    peers: std::sync::Mutex<Vec<Peer<RoleServer>>>,
    allow_warned: bool,
    policy: Policy,
}

impl Inner {
    /// The commands from the live index (no walk), with the database as `opts` asks.
    fn load(&self, opts: &LoadOptions) -> Result<Loaded, Error> {
        self.live.load(opts, &CancelToken::new())
    }
}

/// The server for one workspace.
#[derive(Clone)]
pub struct CommandTreeServer {
    inner: Arc<Inner>,
    tool_router: ToolRouter<Self>,
}

type ToolResult = Result<CallToolResult, McpError>;

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, McpError> {
    tokio::task::spawn_blocking(f).await.map_err(internal)
}

/// A result with structured content and its short text form.
fn structured<T: Serialize>(value: &T, text: String, is_error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(text)];
    let mut r = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    r.structured_content = serde_json::to_value(value).ok();
    r
}

fn failure(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}

/// An engine error as a tool error the agent can act on: near matches and candidates by the
/// names it can pass back.
fn engine_failure(e: &Error) -> CallToolResult {
    let mut msg = e.to_string();
    match e {
        Error::NotFound {
            suggestions, typed, ..
        } if !suggestions.is_empty() => {
            msg.push_str("\ndid you mean:");
            for (c, name) in suggestions.iter().zip(typed) {
                msg.push_str(&format!("\n  {name}  ({})", c.id));
            }
        }
        Error::Ambiguous {
            candidates,
            typed,
            more,
            ..
        } => {
            for (c, name) in candidates.iter().zip(typed) {
                msg.push_str(&format!("\n  {name}  ({})", c.id));
            }
            if *more > 0 {
                msg.push_str(&format!("\n  … and {more} more"));
            }
        }
        _ => {}
    }
    failure(msg)
}

/// A token cancelled when the client cancels the request, and the task watching for that
/// (to abort when the call ends).
fn cancelled_with(ctx: &RequestContext<RoleServer>) -> (CancelToken, tokio::task::JoinHandle<()>) {
    let cancel = CancelToken::new();
    let stop = cancel.clone();
    let ct = ctx.ct.clone();
    let watch = tokio::spawn(async move {
        ct.cancelled().await;
        stop.cancel();
    });
    (cancel, watch)
}

fn internal(e: impl std::fmt::Display) -> McpError {
    McpError::internal_error(e.to_string(), None)
}

/// Runs `f` on the blocking pool; an engine error fails the request.
async fn blocking_engine<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, McpError> {
    blocking(f).await?.map_err(internal)
}

/// Runs `f` on the blocking pool and turns an engine error into a tool error.
async fn tool_call(
    f: impl FnOnce() -> Result<CallToolResult, Error> + Send + 'static,
) -> ToolResult {
    Ok(blocking(f).await?.unwrap_or_else(|e| engine_failure(&e)))
}

fn warning_texts(loaded: &Loaded) -> Vec<String> {
    loaded.warnings().map(|w| w.to_string()).collect()
}

/// JSON Schema's own `format` names (2020-12). The schema generator also writes Rust's
/// (`uint32`, `int64`, `double`); validating clients warn about each unknown one on every call,
/// and the bounds they stand for are already given as `minimum`.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The tools with every non-standard `format` taken out of their input and output schemas.
fn standard_formats<S>(mut router: ToolRouter<S>) -> ToolRouter<S> {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                if map
                    .get("format")
                    .and_then(|f| f.as_str())
                    .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
                {
                    map.remove("format");
                }
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let strip_object = |o: &mut Arc<JsonObject>| {
        Arc::make_mut(o).values_mut().for_each(strip);
    };
    for route in router.map.values_mut() {
        strip_object(&mut route.attr.input_schema);
        if let Some(out) = route.attr.output_schema.as_mut() {
            strip_object(out);
        }
    }
    router
}

/// The names of the listed commands that hold `typed` (case-insensitively), as
/// `commandtree://command/{id}` takes them: the shortest name each resolves by (`npm:build`,
/// `build.sh`), those starting with it first, then the rest, each group in listing order.
fn completions(loaded: &Loaded, typed: &str) -> Vec<String> {
    let typed = typed.to_lowercase();
    let names = commandtree_engine::names::names(&loaded.commands, loaded.at());
    let (mut first, mut then) = (Vec::new(), Vec::new());
    for (c, name) in names {
        if c.auxiliary || c.hidden {
            continue;
        }
        let lower = name.to_lowercase();
        if lower.starts_with(&typed) {
            first.push(name);
        } else if lower.contains(&typed) || c.id.to_lowercase().contains(&typed) {
            then.push(name);
        }
    }
    first.extend(then);
    first
}

/// What stands between a selected command and its run.
enum Gate {
    Refused(String),
    Confirm(String),
    Clear,
}

#[tool_router]
impl CommandTreeServer {
    /// A server for `engine`'s workspace; its live index starts discovering now.
    pub fn new(engine: Engine, allow_warned: bool, policy: Policy) -> Self {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<()>();
        let live = Live::start(engine.workspace().clone(), move |ev| {
            if let LiveEvent::Changed(_) = ev {
                let _ = tx.send(());
            }
        });
        CommandTreeServer {
            inner: Arc::new(Inner {
                engine,
                live,
                changes: std::sync::Mutex::new(Some(rx)),
                peers: std::sync::Mutex::new(Vec::new()),
                allow_warned,
                policy,
            }),
            tool_router: standard_formats(Self::tool_router()),
        }
    }

    /// Tells every initialized client when the commands change (after the first list; one
    /// notification per burst), from a task on the current tokio runtime. Clients that hung up
    /// are forgotten. Only the first call starts the task.
    pub fn forward_changes(&self) {
        let Some(mut rx) = self
            .inner
            .changes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        else {
            return;
        };
        let inner = self.inner.clone();
        tokio::spawn(async move {
            while rx.recv().await.is_some() {
                while rx.try_recv().is_ok() {}
                let peers: Vec<Peer<RoleServer>> = {
                    let mut peers = inner.peers.lock().unwrap_or_else(|p| p.into_inner());
                    peers.retain(|p| !p.is_transport_closed());
                    peers.clone()
                };
                for peer in peers {
                    // A client gone between the check and the send is dropped next time.
                    let _ = crate::commands_changed(&peer).await;
                }
            }
        });
    }

    /// Why the folder is not watched (each call then discovers afresh), if it is not.
    pub fn unwatched(&self) -> Option<&str> {
        self.inner.live.unwatched()
    }

    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    #[tool(
        description = "List the runnable commands of this workspace (npm scripts, make targets, shell scripts, VS Code tasks and launch configurations, just, Taskfile, Cargo, Docker Compose, ...), optionally filtered by type, tag or text. Use these instead of guessing how to build, test or run the project.",
        output_schema = schema_for_output::<ListOutput>(),
        annotations(title = "List commands", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_commands(&self, Parameters(p): Parameters<ListInput>) -> ToolResult {
        if let Some(k) = &p.kind
            && !sources::TYPES.iter().any(|t| t.kind == k)
        {
            let known: Vec<&str> = sources::TYPES.iter().map(|t| t.kind).collect();
            return Ok(failure(format!(
                "unknown type `{k}`; known types: {}",
                known.join(", ")
            )));
        }
        let inner = self.inner.clone();
        tool_call(move || {
            let engine = &inner.engine;
            let loaded = inner.load(&LoadOptions {
                types: p.kind.clone().into_iter().collect(),
                create_db: false,
            })?;
            let mut warnings = warning_texts(&loaded);
            let shown = listing::listing(
                engine,
                loaded.commands,
                loaded.store.as_ref(),
                &listing::Query {
                    tags: p.tag.clone().into_iter().collect(),
                    text: p.query.clone(),
                    all: p.include_hidden,
                    docs: p.kind.as_deref() == Some("markdown"),
                    ..listing::Query::default()
                },
            );
            warnings.extend(shown.unknown_tags.iter().map(|w| w.to_string()));
            let mut ordered: Vec<CommandItem> = shown.ordered().into_iter().cloned().collect();
            let total = ordered.len();
            if !p.all {
                ordered.truncate(LIST_LIMIT);
            }
            let text = text::command_table(&ordered, total, shown.hidden + shown.hidden_docs);
            Ok(structured(
                &ListOutput {
                    commands: ordered,
                    total,
                    hidden: shown.hidden + shown.hidden_docs,
                    warnings,
                },
                text,
                false,
            ))
        })
        .await
    }

    #[tool(
        description = "Everything known about one command: its command line, folder, parameters, tags, summary, security warning, and the steps that run with it.",
        output_schema = schema_for_output::<ShowOutput>(),
        annotations(title = "Show a command", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn show_command(&self, Parameters(p): Parameters<IdInput>) -> ToolResult {
        let inner = self.inner.clone();
        tool_call(move || {
            let loaded = inner.load(&LoadOptions::default())?;
            let c = loaded.resolve(&p.id)?.clone();
            let steps: Vec<String> = gate::steps(&loaded, &c)
                .into_iter()
                .map(|s| s.id.clone())
                .collect();
            let text = text::details(&c, &steps);
            Ok(structured(&ShowOutput { command: c, steps }, text, false))
        })
        .await
    }

    #[tool(
        description = "Find commands by what they do or by name (e.g. \"reset the dev database\", \"fmt\"), best first, with a relevance score: the words of the query (names, paths, descriptions, the commands' own text) and its meaning (local embeddings) ranked together, an exact name first. The first search indexes the workspace; later ones only what changed.",
        output_schema = schema_for_output::<SearchOutput>(),
        annotations(title = "Search commands", read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn search_commands(&self, Parameters(p): Parameters<SearchInput>) -> ToolResult {
        let inner = self.inner.clone();
        tool_call(move || {
            let mut loaded = inner.load(&LoadOptions::default())?;
            let embedder = match search::ready(&mut loaded, true) {
                Ok(e) => e,
                Err(e) => return Ok(failure(e.to_string())),
            };
            let threshold = p
                .threshold
                .unwrap_or(search::DEFAULT_THRESHOLD)
                .clamp(0.0, 1.0);
            let found = search::search(
                &mut loaded,
                &embedder,
                &p.query,
                threshold,
                p.limit.unwrap_or(10).max(1),
                &CancelToken::new(),
                &NoProgress,
            )?;
            let results: Vec<SearchHit> = found
                .hits
                .into_iter()
                .map(|h| SearchHit {
                    command: h.command,
                    score: h.score,
                    similarity: h.similarity,
                    lexical_rank: h.lexical_rank,
                    semantic_rank: h.semantic_rank,
                })
                .collect();
            let text = text::search_table(&results);
            Ok(structured(&SearchOutput { results }, text, false))
        })
        .await
    }

    #[tool(
        description = "Run a command of this workspace to completion, as `ct run --no-input` would: in its folder, no input, parameters from `params` (else their defaults), `args` appended the way its tool expects. Returns the exit code, the time taken and the end of its output. A command with a security warning runs only after the user confirms; rules in the user's config may forbid some commands.",
        output_schema = schema_for_output::<RunOutput>(),
        annotations(title = "Run a command", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = true)
    )]
    async fn run_command(
        &self,
        Parameters(p): Parameters<RunInput>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let inner = self.inner.clone();
        let values = p.params.clone().unwrap_or_default();
        let extra = p.args.clone().unwrap_or_default();
        let id = p.id.clone();
        let prepared = blocking(move || -> Result<_, Error> {
            let loaded = inner.load(&LoadOptions::default())?;
            let sel = runs::select(
                &loaded,
                RunRequest {
                    target: Target::Query(id),
                    values,
                    extra,
                    debug: false,
                },
            )?;
            // `[mcp] deny` covers every step the command pulls in, not only the command.
            let refusal = inner.policy.refusal(&sel.item).or_else(|| {
                inner.policy.step_refusal(
                    &sel.item,
                    &gate::steps(&loaded, &sel.item),
                    &gate::unresolved_steps(&loaded, &sel.item),
                )
            });
            let gate = if let Some(why) = refusal {
                Gate::Refused(why)
            } else {
                match gate::Gate::of(&loaded, &sel.item).verdict(inner.allow_warned) {
                    gate::Verdict::Clear => Gate::Clear,
                    gate::Verdict::Confirm(lines) => Gate::Confirm(lines.join("; ")),
                }
            };
            Ok((loaded, sel, gate))
        })
        .await?;
        let (loaded, sel, gate) = match prepared {
            Ok(x) => x,
            Err(e) => return Ok(engine_failure(&e)),
        };
        match gate {
            Gate::Refused(why) => return Ok(failure(why)),
            Gate::Clear => {}
            Gate::Confirm(warning) => {
                if let Some(refusal) = confirm(&ctx.peer, &sel.item, &warning).await {
                    return Ok(failure(refusal));
                }
            }
        }
        let inner = self.inner.clone();
        let timeout = Duration::from_secs(
            p.timeout_sec
                .unwrap_or(DEFAULT_TIMEOUT)
                .clamp(1, MAX_TIMEOUT),
        );
        let (cancel, watch) = cancelled_with(&ctx);
        let result = tool_call(move || {
            let mut loaded = loaded;
            let ws = inner.engine.workspace();
            let planned = runs::plan(ws, &sel, None)?;
            let c = runs::run_captured(
                ws,
                &mut loaded.store,
                &planned,
                &CaptureOptions {
                    timeout: Some(timeout),
                    max_output: OUTPUT_LIMIT,
                },
                &cancel,
            )?;
            let out = RunOutput {
                id: sel.item.id.clone(),
                exit_code: c.code,
                duration_ms: c.duration.as_millis() as u64,
                output: c.output,
                output_omitted_bytes: c.dropped_bytes,
                timed_out: c.timed_out,
                run_id: c.run_id,
            };
            let text = text::run_report(&sel.item, &out, timeout);
            Ok(structured(&out, text, c.code != 0))
        })
        .await;
        watch.abort();
        result
    }

    #[tool(
        description = "The runs of this workspace's commands, newest first: those going on now (started by run_command, `ct run`, the terminal UI or the editor, in the foreground, the background or a window of their own) and those that ended, with status, elapsed time, exit code and mode. `running: true` lists only what runs now.",
        output_schema = schema_for_output::<ListRunsOutput>(),
        annotations(title = "List runs", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn list_runs(&self, Parameters(p): Parameters<ListRunsInput>) -> ToolResult {
        let inner = self.inner.clone();
        tool_call(move || {
            let ws = inner.engine.workspace();
            let mut store = inner.load(&LoadOptions::default())?.store;
            let running = runs::running(ws, &mut store)?;
            let limit = p.limit.unwrap_or(RUNS_LIMIT).max(1);
            let list = if p.running {
                running.clone()
            } else {
                runs::history(ws, &mut store, limit)?
            };
            let now = SystemTime::now();
            let out = ListRunsOutput {
                runs: list.iter().take(limit).map(|r| run_info(r, now)).collect(),
                running: running.len(),
            };
            let text = text::runs_table(&out.runs, out.running);
            Ok(structured(&out, text, false))
        })
        .await
    }

    #[tool(
        description = "Stop a run going on now: by its run id (list_runs), or every run of a command (its id, `type:label` or label). The run's process group gets SIGTERM, then SIGKILL after 5 s; a process that is no longer the one started is never signalled. Only runs of commands the user's rules let the agent run can be stopped.",
        output_schema = schema_for_output::<StopRunOutput>(),
        annotations(title = "Stop a run", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn stop_run(&self, Parameters(p): Parameters<StopRunInput>) -> ToolResult {
        let inner = self.inner.clone();
        tool_call(move || {
            let ws = inner.engine.workspace();
            let mut loaded = inner.load(&LoadOptions::default())?;
            let name = p.run.trim();
            let targets = runs::runs_named(&mut loaded, ws, name)?;
            for r in &targets {
                let refusal = match loaded.commands.iter().find(|c| c.id == r.command_id) {
                    Some(c) => inner.policy.refusal(c),
                    None => Some(format!(
                        "the command of run {} (`{}`) is no longer in this workspace; the user can stop it with `ct stop {}`",
                        r.run_id, r.label, r.run_id
                    )),
                };
                if let Some(why) = refusal {
                    return Ok(failure(why));
                }
            }
            let mut stopped = Vec::new();
            for r in targets {
                let after = runs::stop(ws, &mut loaded.store, r.run_id)?;
                stopped.push(run_info(&after, SystemTime::now()));
            }
            let text = stopped
                .iter()
                .map(|r| format!("run {} (`{}`) stopped", r.run_id, r.label))
                .collect::<Vec<_>>()
                .join("\n");
            Ok(structured(&StopRunOutput { stopped }, text, false))
        })
        .await
    }

    #[tool(
        description = "The errors and warnings a run printed (GCC/Clang, rustc/cargo, tsc, ESLint, go, MSBuild, Python tracebacks, `file:line:col: message`, and the user's own patterns), each with its file, line, column, severity and message. Reads the output kept by runs in the background (`ct run --detach`, the terminal UI's background runs): by run id, by command (its newest run with a log), else the newest run with a log. A run still going is read as far as it got.",
        output_schema = schema_for_output::<RunProblemsOutput>(),
        annotations(title = "Problems of a run", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn run_problems(&self, Parameters(p): Parameters<RunProblemsInput>) -> ToolResult {
        let inner = self.inner.clone();
        tool_call(move || {
            let ws = inner.engine.workspace();
            let (matcher, _) = problems::matcher(ws);
            let mut loaded = inner.load(&LoadOptions::default())?;
            let which = match p.run.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
                None => problems::Which::Newest,
                Some(n) => match n.parse::<i64>() {
                    Ok(id) => problems::Which::Run(id),
                    Err(_) => {
                        let c = loaded.resolve(n)?;
                        problems::Which::Command {
                            id: c.id.clone(),
                            label: c.label.clone(),
                        }
                    }
                },
            };
            let found = problems::of_run(ws, &mut loaded.store, &which, &matcher)?;
            let out = RunProblemsOutput {
                run: run_info(&found.run, SystemTime::now()),
                problems: found.problems,
            };
            let text = text::problems_report(&out);
            Ok(structured(&out, text, false))
        })
        .await
    }

    #[tool(
        description = "Add a tag to a command (add: true) or take it off (add: false). Tags are stored in the workspace database, shared with the VS Code extension, and filter list_commands.",
        output_schema = schema_for_output::<TagOutput>(),
        annotations(title = "Tag a command", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn tag_command(&self, Parameters(p): Parameters<TagInput>) -> ToolResult {
        let inner = self.inner.clone();
        tool_call(move || {
            let mut loaded = inner.load(&LoadOptions::writing())?;
            let out = if p.add {
                let (c, added) = engine_tags::add(&mut loaded, &p.id, std::slice::from_ref(&p.tag))?;
                TagOutput {
                    id: c.id,
                    tag: p.tag.clone(),
                    tagged: true,
                    changed: added.first().copied().unwrap_or(false),
                    note: None,
                }
            } else {
                let (id, _) = loaded.resolve_for_removal(&p.id)?;
                let (_, removals) =
                    engine_tags::remove(&mut loaded, &id, std::slice::from_ref(&p.tag))?;
                let r = removals.into_iter().next();
                TagOutput {
                    id,
                    tag: p.tag.clone(),
                    tagged: false,
                    changed: r.as_ref().is_some_and(|r| r.removed),
                    note: r.and_then(|r| r.from_config).map(|f| {
                        format!(
                            "{} assigns this tag; it comes back at the next discovery unless removed there",
                            f.display()
                        )
                    }),
                }
            };
            let text = text::tag_report(&out);
            Ok(structured(&out, text, false))
        })
        .await
    }

    #[tool(
        description = "Add a command to Quick Launch (starred: true), at the end, or take it out (starred: false).",
        output_schema = schema_for_output::<StarOutput>(),
        annotations(title = "Star a command", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn star_command(&self, Parameters(p): Parameters<StarInput>) -> ToolResult {
        let inner = self.inner.clone();
        tool_call(move || {
            let mut loaded = inner.load(&LoadOptions::writing())?;
            let out = if p.starred {
                let (c, added) = engine_tags::star(&mut loaded, &p.id)?;
                StarOutput {
                    id: c.id,
                    starred: true,
                    changed: added,
                }
            } else {
                let (id, _) = loaded.resolve_for_removal(&p.id)?;
                let (_, removed) = engine_tags::unstar(&mut loaded, &id)?;
                StarOutput {
                    id,
                    starred: false,
                    changed: removed,
                }
            };
            let text = format!(
                "{} {}{}",
                out.id,
                if out.starred {
                    "is in Quick Launch"
                } else {
                    "is not in Quick Launch"
                },
                if out.changed { "" } else { " (unchanged)" }
            );
            Ok(structured(&out, text, false))
        })
        .await
    }

    #[tool(
        description = "Ask the user's configured LLM for a plain-language summary and a security review of commands that are new or changed since their last summary (or of `ids`). Reports progress per command and stops when cancelled.",
        output_schema = schema_for_output::<SummarizeOutput>(),
        annotations(title = "Summarize commands", read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn summarize_commands(
        &self,
        Parameters(p): Parameters<SummarizeInput>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let inner = self.inner.clone();
        let (cancel, watch) = cancelled_with(&ctx);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ProgressEvent>();
        let forward = ctx.meta.get_progress_token().map(|token| {
            let peer = ctx.peer.clone();
            tokio::spawn(async move {
                while let Some(ev) = rx.recv().await {
                    let mut n = ProgressNotificationParam::new(token.clone(), ev.done as f64);
                    n.total = ev.total.map(|t| t as f64);
                    n.message = ev.message.map(|m| format!("{}: {m}", ev.operation));
                    let _ = peer.notify_progress(n).await;
                }
            })
        });
        let result = tool_call(move || {
            let ws = inner.engine.workspace();
            let provider = match summaries::provider(ws) {
                Ok(p) => p,
                Err(e @ Error::NoProvider { .. }) => return Ok(failure(e.to_string())),
                Err(e) => return Err(e),
            };
            let mut loaded = inner.load(&LoadOptions::writing())?;
            let ids = p.ids.clone().unwrap_or_default();
            let progress = move |e: ProgressEvent| {
                let _ = tx.send(e);
            };
            let client = commandtree_llm::Client::new(provider);
            let outcome = summaries::summarize(
                ws,
                &mut loaded,
                &ids,
                false,
                &client,
                &cancel,
                &progress,
                &mut |_| {},
            )?;
            let (current, report, embed_problem) =
                (outcome.current, outcome.report, outcome.embed_problem);
            let out = match report {
                None => SummarizeOutput {
                    summarized: Vec::new(),
                    failed: Vec::new(),
                    current,
                    not_attempted: 0,
                    stopped: None,
                },
                Some(r) => SummarizeOutput {
                    summarized: r
                        .done
                        .iter()
                        .map(|(s, a)| Summarized {
                            id: s.item.id.clone(),
                            label: s.item.label.clone(),
                            summary: a.summary.clone(),
                            security_warning: a.security_warning.clone(),
                        })
                        .collect(),
                    failed: r
                        .failed
                        .iter()
                        .map(|(s, e)| SummaryFailure {
                            id: s.item.id.clone(),
                            label: s.item.label.clone(),
                            error: e.message.clone(),
                        })
                        .collect(),
                    current,
                    not_attempted: r.not_attempted(),
                    stopped: r.stopped.clone().or(embed_problem),
                },
            };
            let text = text::summarize_report(&out);
            let failed = !out.failed.is_empty();
            Ok(structured(&out, text, failed))
        })
        .await;
        watch.abort();
        if let Some(f) = forward {
            // The sender went with the finished call, so the forwarder ends after sending
            // what is left.
            let _ = f.await;
        }
        result
    }

    #[tool(
        description = "Load a skill to get domain-specific knowledge: its full instructions. The skills of this workspace (built-in, .github/skills, .claude/skills, .commandtree/skills) are listed in the agent's system prompt under Available Skills.",
        output_schema = schema_for_output::<LoadSkillOutput>(),
        annotations(title = "Load a skill", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn load_skill(&self, Parameters(p): Parameters<LoadSkillInput>) -> ToolResult {
        let inner = self.inner.clone();
        blocking(move || {
            let (defs, _) = sources::ai::definitions(inner.engine.workspace());
            match defs.load_skill_answer(&p.skill_id) {
                Ok(content) => structured(
                    &LoadSkillOutput {
                        skill_id: p.skill_id,
                        content: content.clone(),
                    },
                    content,
                    false,
                ),
                Err(not_found) => failure(not_found),
            }
        })
        .await
    }
}

/// Runs `list_runs` returns without `limit`.
const RUNS_LIMIT: usize = 20;

fn run_info(r: &commandtree_exec::history::Run, now: SystemTime) -> RunInfo {
    RunInfo {
        run_id: r.run_id,
        command_id: r.command_id.clone(),
        label: r.label.clone(),
        status: r.status.clone(),
        running: !runs::is_over(r),
        mode: r.mode.clone(),
        started_at: r.started_at.clone(),
        elapsed_ms: runs::elapsed(r, now).map(|d| d.as_millis() as u64),
        exit_code: r.exit_code,
        command_line: r.command_line.clone(),
        has_log: r.log_path.is_some(),
    }
}

/// Asks the user (through the client) to confirm running a warned command. `None`: confirmed.
async fn confirm(peer: &Peer<RoleServer>, c: &CommandItem, warning: &str) -> Option<String> {
    let refused = format!(
        "`{}` has a security warning ({warning}); it was not run",
        c.label
    );
    if !peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return Some(format!(
            "{refused}: this client cannot ask the user to confirm (no elicitation); the user can run it with `ct run`, or start the server with `ct mcp --allow-warned`"
        ));
    }
    let question = format!(
        "`{}` ({}) has a security warning: {warning}\nRun it anyway?",
        c.label, c.kind
    );
    match peer.elicit::<Confirm>(question).await {
        Ok(Some(Confirm { run: true })) => None,
        Ok(_) => Some(format!("{refused}: the user did not confirm")),
        Err(e) => Some(format!("{refused}: the user did not confirm ({e})")),
    }
}

/// `commandtree://command/<id, percent-encoded>`.
pub fn command_uri(id: &str) -> String {
    let mut s = String::from(COMMAND_URI);
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// The id in a command URI.
pub fn id_of_uri(uri: &str) -> Option<String> {
    let enc = uri.strip_prefix(COMMAND_URI)?.as_bytes();
    let mut out = Vec::with_capacity(enc.len());
    let mut i = 0;
    while i < enc.len() {
        if enc[i] == b'%' {
            let hex = std::str::from_utf8(enc.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(enc[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CommandTreeServer {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_completions()
            .build();
        let mut info = InitializeResult::new(caps).with_instructions(
            "CommandTree knows every runnable command of this workspace: npm scripts, make targets, shell scripts, VS Code tasks and launch configurations, just, Taskfile, Cargo, Docker Compose and more. Call list_commands (or search_commands) to find how to build, test, lint or start the project instead of guessing, show_command for details, and run_command to run one; list_runs shows what runs now (also what the user started), stop_run stops a run, and run_problems lists the errors a background run printed. Commands are named by id, `type:label` (e.g. npm:test) or a unique label.",
        );
        info.server_info = Implementation::new("commandtree", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let inner = self.inner.clone();
        let found = blocking_engine(move || {
            let loaded = inner.load(&LoadOptions::default())?;
            let arg = &request.argument;
            Ok(match &request.r#ref {
                Reference::Resource(r) if r.uri == format!("{COMMAND_URI}{{id}}") => {
                    if arg.name == "id" {
                        Ok(completions(&loaded, &arg.value))
                    } else {
                        Err(format!(
                            "the command template has one argument, `id`, not `{}`",
                            arg.name
                        ))
                    }
                }
                Reference::Resource(r) => Err(format!(
                    "{}: not a resource template of this server ({COMMAND_URI}{{id}})",
                    r.uri
                )),
                Reference::Prompt(p) => {
                    let defs = sources::ai::definitions_among(&loaded.root, &loaded.commands);
                    match defs
                        .command(&p.name)
                        .filter(|c| !c.meta.source.is_builtin())
                    {
                        // A prompt's arguments are free text: nothing to offer.
                        Some(_) => Ok(Vec::new()),
                        None => Err(format!("no prompt `{}`", p.name)),
                    }
                }
                _ => Err("an unknown kind of completion reference".to_string()),
            })
        })
        .await?;
        let values = found.map_err(|why| McpError::invalid_params(why, None))?;
        let total = values.len();
        let shown: Vec<String> = values
            .into_iter()
            .take(CompletionInfo::MAX_VALUES)
            .collect();
        let more = total > shown.len();
        let info = CompletionInfo::with_pagination(shown, u32::try_from(total).ok(), more)
            .map_err(internal)?;
        Ok(CompleteResult::new(info))
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        self.inner
            .peers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(context.peer);
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        // The session-based revisions: this server keeps one stdio session and asks the
        // client through server-to-client requests (elicitation).
        Cow::Borrowed(ProtocolVersion::known_up_to(
            &ProtocolVersion::LATEST_WITH_INITIALIZE,
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let inner = self.inner.clone();
        let loaded = blocking_engine(move || inner.load(&LoadOptions::default())).await?;
        let resources = loaded
            .commands
            .iter()
            .map(|c| {
                let mut r = Resource::new(command_uri(&c.id), format!("{}:{}", c.kind, c.label))
                    .with_mime_type("text/markdown");
                if let Some(d) = c.summary.as_ref().or(c.description.as_ref()) {
                    r = r.with_description(d.clone());
                }
                r
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{COMMAND_URI}{{id}}"), "command")
                .with_description(
                    "A command's definition (the part of its file that defines it) and its summary; {id} is the command id or any name `ct run` takes (completion offers the shortest), percent-encoded",
                )
                .with_mime_type("text/markdown"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.clone();
        let Some(id) = id_of_uri(&uri) else {
            return Err(McpError::resource_not_found(
                format!("{uri}: not a command resource ({COMMAND_URI}<id>)"),
                None,
            ));
        };
        let inner = self.inner.clone();
        let found = blocking(move || -> Result<String, Error> {
            let loaded = inner.load(&LoadOptions::default())?;
            let c = loaded.resolve(&id)?;
            Ok(text::resource(c))
        })
        .await?;
        match found {
            Ok(md) => Ok(
                ReadResourceResult::new(vec![ResourceContents::TextResourceContents {
                    uri,
                    mime_type: Some("text/markdown".into()),
                    text: md,
                    meta: None,
                }])
                .into(),
            ),
            Err(e) => Err(McpError::resource_not_found(e.to_string(), None)),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let inner = self.inner.clone();
        let prompts = blocking_engine(move || {
            let loaded = inner.load(&LoadOptions::default())?;
            let defs = sources::ai::definitions_among(&loaded.root, &loaded.commands);
            // The workspace's own, as list_commands lists them; the built-in prompts stay
            // with `ct prompt`.
            Ok(defs
                .commands()
                .iter()
                .filter(|c| !c.meta.source.is_builtin())
                .map(|c| {
                    let args = defs
                        .command_arguments(&c.meta.id)
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(name, about)| {
                            PromptArgument::new(name)
                                .with_description(about)
                                .with_required(false)
                        })
                        .collect();
                    let about =
                        (!c.meta.description.is_empty()).then(|| c.meta.description.clone());
                    let mut p = Prompt::new(c.meta.id.clone(), about, Some(args));
                    if c.meta.name != c.meta.id {
                        p = p.with_title(c.meta.name.clone());
                    }
                    p
                })
                .collect())
        })
        .await?;
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let inner = self.inner.clone();
        let name = request.name.clone();
        let given = request.arguments.clone().unwrap_or_default();
        let rendered = blocking_engine(move || {
            let loaded = inner.load(&LoadOptions::default())?;
            let defs = sources::ai::definitions_among(&loaded.root, &loaded.commands);
            let Some(about) = defs
                .command(&name)
                .filter(|c| !c.meta.source.is_builtin())
                .map(|c| c.meta.description.clone())
            else {
                let own: Vec<String> = defs
                    .commands()
                    .iter()
                    .filter(|c| !c.meta.source.is_builtin())
                    .map(|c| c.meta.id.clone())
                    .collect();
                return Ok(Err(if own.is_empty() {
                    format!("no prompt `{name}`: this workspace defines none")
                } else {
                    format!("no prompt `{name}`; available: {}", own.join(", "))
                }));
            };
            // Rendered as `ct prompt` renders it for the model: the same placeholders,
            // the same escaping.
            let named = |n: &str| -> Option<String> {
                given.get(n).map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
            };
            Ok(defs.render_named(&name, &named).map(|text| (text, about)))
        })
        .await?;
        match rendered {
            Ok((text, about)) => {
                let mut r = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
                if !about.is_empty() {
                    r.description = Some(about);
                }
                Ok(r.into())
            }
            Err(e) => Err(McpError::invalid_params(e, None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_schemas_use_only_json_schema_formats() {
        let router = standard_formats(CommandTreeServer::tool_router());
        let text = serde_json::to_string(&router.list_all()).unwrap();
        assert!(!text.contains("uint"), "{text}");
        assert!(!text.contains("\"int64\""), "{text}");
        // The bounds stay.
        assert!(text.contains("\"minimum\":0"), "{text}");
    }

    #[test]
    fn command_uris_round_trip_any_id() {
        for id in [
            "npm:/w/package.json:build",
            "shell:/w/a b/ü%.sh:x?y#z",
            "make:/w/Makefile:a/b",
        ] {
            let uri = command_uri(id);
            assert!(
                !uri[COMMAND_URI.len()..].contains(['/', ' ', '?', '#', ':']),
                "{uri}"
            );
            assert_eq!(id_of_uri(&uri).as_deref(), Some(id));
        }
        assert_eq!(id_of_uri("commandtree://skill/x"), None);
        assert_eq!(id_of_uri("commandtree://command/%zz"), None);
    }
}
