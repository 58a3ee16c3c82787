//! One function per `commandtree/*` request (shapes in `docs/lsp-protocol.md`). Each discovers
//! afresh through the engine, so an answer always matches the files on disk; the watcher only
//! drives `commandtree/tasksChanged`.

use crate::editor_lm::{self, EditorToolCaller, Source};
use crate::error::*;
use crate::protocol::{self as proto, Direction, MethodInfo, Request};
use crate::server::{Shared, inside, lock, path_of};
use crate::watch;
use commandtree_core::tree::{Category, Node};
use commandtree_core::{CancelToken, CommandItem, CommandType, ProgressEvent, SortOrder};
use commandtree_engine::runs::{self, RunRequest, Target};
use commandtree_engine::{
    Error, LoadOptions, Loaded, debug, gate, listing, search, summaries, tags as engine_tags,
};
use commandtree_exec::quote::Shell;
use commandtree_llm::ToolCaller;
use lsp_server::RequestId;
use lsp_types::MessageType;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// How a request is scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One at a time, in the order they arrive.
    Serial,
    /// On a thread of its own (slow, cancellable).
    Parallel,
}

/// A request the server answers: its method, scheduling, handler and schemas.
pub struct Route {
    pub method: &'static str,
    pub kind: Kind,
    run: fn(&Ctx<'_>, Value) -> RpcResult<Arc<str>>,
    pub info: MethodInfo,
}

/// Reads the params as `R`'s, runs `handler` and writes its result as JSON text.
fn typed<R: Request>(
    ctx: &Ctx<'_>,
    params: Value,
    handler: fn(&Ctx<'_>, R::Params) -> RpcResult<R::Result>,
) -> RpcResult<Arc<str>>
where
    R::Params: DeserializeOwned,
    R::Result: Serialize,
{
    let result = handler(ctx, parse(params)?)?;
    serde_json::to_string(&result)
        .map(Arc::from)
        .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))
}

macro_rules! routes {
    ($($request:ident: $kind:ident => $handler:path,)*) => {
        /// Every request the server answers besides the lifecycle ones, each one type of
        /// [`crate::protocol`] with the function that answers it.
        pub static ROUTES: &[Route] = &[$(Route {
            method: <proto::$request as Request>::METHOD,
            kind: Kind::$kind,
            run: |ctx, params| typed::<proto::$request>(ctx, params, $handler),
            info: MethodInfo::request::<proto::$request>(Direction::ClientRequest),
        },)*];
    };
}

routes! {
    DiscoverTasks: Serial => discover_tasks,
    WatchFiles: Serial => watch_files,
    Tree: Serial => tree,
    Quick: Serial => quick,
    Tags: Serial => tags,
    Tag: Serial => tag,
    Star: Serial => star,
    QuickMove: Serial => quick_move,
    Plan: Serial => plan,
    Show: Serial => show,
    Runs: Serial => run_history,
    Running: Serial => crate::runs::running,
    Stop: Parallel => crate::runs::stop,
    Restart: Parallel => crate::runs::restart,
    Problems: Serial => crate::runs::problems,
    WatchCommand: Serial => crate::runs::watch_command,
    RunStarted: Serial => crate::runs::run_started,
    RunEnded: Serial => crate::runs::run_ended,
    Dependencies: Serial => crate::runs::dependencies,
    Summarize: Parallel => summarize,
    Search: Parallel => search_commands,
    CommandSkills: Serial => crate::command_skills::list,
    ProposeSkill: Parallel => crate::command_skills::propose,
    ApplySkill: Serial => crate::command_skills::apply,
    RunSkill: Parallel => crate::llm_skills::run_skill,
    Playbooks: Serial => crate::llm_skills::list_playbooks,
    RunPlaybook: Parallel => crate::llm_skills::run_playbook,
    Context: Serial => crate::llm_skills::context,
    AddContext: Serial => crate::llm_skills::add_context,
    ClearContext: Serial => crate::llm_skills::clear_context,
}

pub fn route(method: &str) -> Option<&'static Route> {
    ROUTES.iter().find(|r| r.method == method)
}

/// What a handler gets besides its params.
pub struct Ctx<'a> {
    pub shared: &'a Arc<Shared>,
    pub id: &'a RequestId,
    pub cancel: &'a CancelToken,
}

/// A serialized listing and what it was made from.
pub struct Kept {
    view: Arc<Vec<CommandItem>>,
    json: Arc<str>,
}

/// Answers a request with its result as JSON text. The listings (`discoverTasks`, `tree`) of an
/// unchanged live list, asked again with the same params and settings, are sent as the text
/// made the first time.
pub fn answer(ctx: &Ctx<'_>, route: &Route, params: Value) -> RpcResult<Arc<str>> {
    let discover = route.method == proto::DiscoverTasks::METHOD;
    if !discover && route.method != proto::Tree::METHOD {
        return (route.run)(ctx, params);
    }
    if discover {
        // Its side effects (root check, new excludes) come before any kept answer is used.
        let p: proto::DiscoverTasksParams = parse(params.clone())?;
        check_root(ctx.shared, &p.workspace_root)?;
        if let Some(ex) = p.exclude_patterns
            && ctx.shared.set_excludes(ex)
        {
            watch::restart(ctx.shared)?;
        }
    }
    let engine = ctx.shared.engine()?;
    let view = watch::live(ctx.shared)?
        .commands(ctx.cancel)
        .map_err(discovery_error)?;
    let settings = &engine.workspace().settings;
    let key = format!(
        "{} {params} {} {:?}",
        route.method, settings.show_all, settings.sort_order
    );
    if let Some(k) = lock(&ctx.shared.answers).get(&key)
        && Arc::ptr_eq(&k.view, &view)
    {
        return Ok(k.json.clone());
    }
    let json = (route.run)(ctx, params)?;
    let mut answers = lock(&ctx.shared.answers);
    answers.retain(|_, k| Arc::ptr_eq(&k.view, &view));
    answers.insert(
        key,
        Kept {
            view,
            json: json.clone(),
        },
    );
    Ok(json)
}

/// Params as `T`; absent params are an empty object, so a missing required field is named.
pub(crate) fn parse<T: DeserializeOwned>(params: Value) -> RpcResult<T> {
    let v = if params.is_null() { json!({}) } else { params };
    serde_json::from_value(v).map_err(|e| RpcError::params(format!("invalid params: {e}")))
}

/// Refuses an id whose file part is an absolute path outside the root; names and
/// `type:label` pass (they can only match commands discovered under the root).
pub(crate) fn check_query(root: &Path, query: &str) -> RpcResult<()> {
    if let Some((_, rest)) = query.split_once(':')
        && rest.starts_with('/')
        && !inside(root, Path::new(rest))
    {
        return Err(RpcError::params(format!(
            "`{query}` names a file outside the workspace root {}",
            root.display()
        )));
    }
    Ok(())
}

/// A failed or cancelled look at the commands, as the protocol reports it.
pub(crate) fn discovery_error(e: Error) -> RpcError {
    match e {
        Error::Cancelled => RpcError::cancelled(),
        e => RpcError::new(DISCOVERY_FAILED, format!("discovery failed: {e}")),
    }
}

/// The engine (settings read afresh) and the commands from the live index: no walk per
/// request.
pub(crate) fn load(
    ctx: &Ctx<'_>,
    create_db: bool,
) -> RpcResult<(commandtree_engine::Engine, Loaded)> {
    let engine = ctx.shared.engine()?;
    let loaded = watch::live(ctx.shared)?
        .load(
            &LoadOptions {
                types: Vec::new(),
                create_db: create_db && ctx.shared.trusted(),
            },
            ctx.cancel,
        )
        .map_err(discovery_error)?;
    Ok((engine, loaded))
}

/// The root a request names must be this server's.
fn check_root(shared: &Shared, given: &str) -> RpcResult<()> {
    let p = path_of(given);
    let not_found = |why: String| {
        Err(RpcError::new(WORKSPACE_NOT_FOUND, why).with_data(json!({"workspaceRoot": given})))
    };
    let Ok(c) = std::fs::canonicalize(&p) else {
        return not_found(format!(
            "workspace not found: {} does not exist",
            p.display()
        ));
    };
    if c == shared.root {
        Ok(())
    } else if inside(&shared.root, &c) {
        not_found(format!(
            "workspace not found: {} is inside {}, the root this server serves; start one server per workspace folder",
            c.display(),
            shared.root.display()
        ))
    } else {
        Err(RpcError::params(format!(
            "{} is outside the workspace root {}",
            c.display(),
            shared.root.display()
        )))
    }
}

fn discover_tasks(
    ctx: &Ctx<'_>,
    p: proto::DiscoverTasksParams,
) -> RpcResult<proto::DiscoverTasksResult> {
    check_root(ctx.shared, &p.workspace_root)?;
    if let Some(ex) = p.exclude_patterns
        && ctx.shared.set_excludes(ex)
    {
        watch::restart(ctx.shared)?;
    }
    let (engine, loaded) = load(ctx, false)?;
    let mut warnings: Vec<commandtree_core::Warning> = engine.settings_warnings().to_vec();
    warnings.extend(loaded.warnings().cloned());
    for w in &warnings {
        ctx.shared.log(MessageType::WARNING, w.to_string());
    }
    let shown = listing::listing(
        &engine,
        loaded.commands,
        loaded.store.as_ref(),
        &listing::Query {
            all: p.all,
            ..listing::Query::default()
        },
    );
    Ok(proto::DiscoverTasksResult {
        // Tree order, as `ct list --json`.
        tasks: shown.ordered().into_iter().cloned().collect(),
        warnings,
        hidden: shown.hidden + shown.hidden_docs,
    })
}

fn node(n: &Node, commands: &[CommandItem]) -> proto::TreeNode {
    match n {
        Node::Folder { label, children } => proto::TreeNode::Folder {
            label: label.clone(),
            children: children.iter().map(|c| node(c, commands)).collect(),
        },
        Node::Command(i) => proto::TreeNode::Command {
            command: Box::new(commands[*i].clone()),
        },
    }
}

fn category(c: &Category, commands: &[CommandItem]) -> proto::TreeCategory {
    proto::TreeCategory {
        kind: c.kind.to_string(),
        label: c.label.to_string(),
        count: c.count,
        children: c.children.iter().map(|n| node(n, commands)).collect(),
    }
}

fn tree(ctx: &Ctx<'_>, p: proto::TreeParams) -> RpcResult<proto::TreeResult> {
    let order: Option<SortOrder> = p
        .sort
        .as_deref()
        .map(|s| {
            s.parse()
                .map_err(|_| RpcError::params(format!("sort: `{s}` is not folder, name or type")))
        })
        .transpose()?;
    let (engine, loaded) = load(ctx, false)?;
    let shown = listing::listing(
        &engine,
        loaded.commands,
        loaded.store.as_ref(),
        &listing::Query {
            tags: p.tag.into_iter().collect(),
            all: p.all,
            order,
            ..listing::Query::default()
        },
    );
    Ok(proto::TreeResult {
        categories: shown
            .tree
            .iter()
            .map(|c| category(c, &shown.commands))
            .collect(),
        hidden: shown.hidden + shown.hidden_docs,
        warnings: shown.unknown_tags,
    })
}

fn watch_files(ctx: &Ctx<'_>, _: proto::NoParams) -> RpcResult<()> {
    watch::start(ctx.shared, ctx.cancel)
}

fn quick_ids(loaded: &Loaded) -> RpcResult<(Vec<String>, Vec<CommandItem>)> {
    let commands = engine_tags::quick(loaded)?;
    Ok((commands.iter().map(|c| c.id.clone()).collect(), commands))
}

fn quick(ctx: &Ctx<'_>, _: proto::NoParams) -> RpcResult<proto::QuickResult> {
    let (_, loaded) = load(ctx, false)?;
    let (ids, commands) = quick_ids(&loaded)?;
    Ok(proto::QuickResult { ids, commands })
}

fn tags(ctx: &Ctx<'_>, _: proto::NoParams) -> RpcResult<proto::TagsResult> {
    let (_, loaded) = load(ctx, false)?;
    Ok(proto::TagsResult {
        tags: engine_tags::list(&loaded)?,
    })
}

fn tag(ctx: &Ctx<'_>, p: proto::TagParams) -> RpcResult<proto::TagResult> {
    ctx.shared.require_trust("tagging")?;
    check_query(&ctx.shared.root, &p.id)?;
    let (_, mut loaded) = load(ctx, true)?;
    let tag = std::slice::from_ref(&p.tag);
    if p.add {
        let (c, added) = engine_tags::add(&mut loaded, &p.id, tag)?;
        return Ok(proto::TagResult {
            id: c.id,
            tag: p.tag,
            tagged: true,
            changed: added.first().copied().unwrap_or(false),
            from_config: None,
        });
    }
    let (id, _) = loaded.resolve_for_removal(&p.id)?;
    let (_, removals) = engine_tags::remove(&mut loaded, &id, tag)?;
    let r = removals.into_iter().next();
    Ok(proto::TagResult {
        id,
        tag: p.tag,
        tagged: false,
        changed: r.as_ref().is_some_and(|r| r.removed),
        from_config: r.and_then(|r| r.from_config),
    })
}

fn star(ctx: &Ctx<'_>, p: proto::StarParams) -> RpcResult<proto::StarResult> {
    ctx.shared.require_trust("changing Quick Launch")?;
    check_query(&ctx.shared.root, &p.id)?;
    let (_, mut loaded) = load(ctx, true)?;
    let (id, changed) = if p.starred {
        let (c, added) = engine_tags::star(&mut loaded, &p.id)?;
        (c.id, added)
    } else {
        let (id, _) = loaded.resolve_for_removal(&p.id)?;
        let (_, removed) = engine_tags::unstar(&mut loaded, &id)?;
        (id, removed)
    };
    Ok(proto::StarResult {
        id,
        starred: p.starred,
        changed,
    })
}

fn quick_move(ctx: &Ctx<'_>, p: proto::QuickMoveParams) -> RpcResult<proto::QuickMoveResult> {
    ctx.shared.require_trust("changing Quick Launch")?;
    check_query(&ctx.shared.root, &p.id)?;
    let (_, mut loaded) = load(ctx, true)?;
    let (c, at) = engine_tags::quick_move(&mut loaded, &p.id, p.position)?;
    let (ids, _) = quick_ids(&loaded)?;
    Ok(proto::QuickMoveResult {
        id: c.id,
        position: at,
        ids,
    })
}

fn dialect(s: Shell) -> proto::ShellDialect {
    match s {
        Shell::Posix => proto::ShellDialect::Posix,
        Shell::Fish => proto::ShellDialect::Fish,
        Shell::PowerShell => proto::ShellDialect::PowerShell,
        Shell::Cmd => proto::ShellDialect::Cmd,
    }
}

/// The warnings to confirm before `item` runs (its own and its steps'), and whether its summary
/// is out of date.
fn security(loaded: &Loaded, item: &CommandItem) -> (Option<String>, bool) {
    let g = gate::Gate::of(loaded, item);
    (g.warning_line(), g.stale_summary())
}

/// Parameter values as the protocol sends them (numbers and booleans as their text).
pub(crate) fn values_of(
    params: serde_json::Map<String, Value>,
) -> RpcResult<commandtree_exec::params::Values> {
    let mut values = commandtree_exec::params::Values::new();
    for (k, v) in params {
        let s = match v {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => {
                return Err(RpcError::params(format!(
                    "params.{k}: a string, number or boolean expected"
                )));
            }
        };
        values.insert(k, s);
    }
    Ok(values)
}

fn plan(ctx: &Ctx<'_>, p: proto::PlanParams) -> RpcResult<proto::PlanResult> {
    ctx.shared.require_trust("running commands")?;
    check_query(&ctx.shared.root, &p.id)?;
    let values = values_of(p.params)?;
    let (engine, loaded) = load(ctx, false)?;
    let sel = runs::select(
        &loaded,
        RunRequest {
            target: Target::Query(p.id.clone()),
            values,
            extra: p.extra_args,
            debug: p.mode == proto::RunMode::Debug,
        },
    )?;
    plan_selected(&engine, &loaded, sel, p.mode)
}

/// The plan of a chosen command (`plan`, `restart`).
pub(crate) fn plan_selected(
    engine: &commandtree_engine::Engine,
    loaded: &Loaded,
    sel: runs::Selected,
    mode: proto::RunMode,
) -> RpcResult<proto::PlanResult> {
    let item = sel.item.clone();
    let action = match item.command_type() {
        Some(CommandType::Launch) => proto::PlanAction::Debug,
        Some(CommandType::Vscode) => proto::PlanAction::Task,
        Some(CommandType::Markdown) => proto::PlanAction::Preview,
        _ => proto::PlanAction::Terminal,
    };
    let runs_itself = matches!(action, proto::PlanAction::Debug | proto::PlanAction::Task);
    let (command_line, cwd, env, shell) = match runs::plan(engine.workspace(), &sel, None) {
        Ok(planned) => {
            let r = planned.runnable;
            let line = match mode {
                proto::RunMode::CurrentTerminal => {
                    r.prompt_line().unwrap_or_else(|| r.script.clone())
                }
                _ => r.script.clone(),
            };
            // The environment files' values go to the editor's terminal or task, never into
            // the line it shows.
            let env = r.file_env.into_iter().chain(r.env).collect();
            (line, r.cwd, env, Some(dialect(r.shell)))
        }
        // The editor starts launch configurations and VS Code tasks itself; a line for a
        // terminal is a bonus there, so a missing debugger or program is not an error.
        Err(Error::Failed(_)) if runs_itself => {
            let cwd = if item.cwd.is_empty() {
                engine.root().to_path_buf()
            } else {
                item.cwd.clone().into()
            };
            (String::new(), cwd, Default::default(), None)
        }
        Err(e) => return Err(e.into()),
    };
    let debug_configuration = match action {
        proto::PlanAction::Debug => Some(debug::launch_configuration(&item)?),
        _ => None,
    };
    let (security_warning, stale_summary) = security(loaded, &item);
    Ok(proto::PlanResult {
        id: item.id.clone(),
        action,
        command_line,
        cwd,
        env,
        shell,
        debug_configuration,
        task_name: (action == proto::PlanAction::Task).then(|| item.command.clone()),
        security_warning,
        stale_summary,
    })
}

fn show(ctx: &Ctx<'_>, p: proto::IdParams) -> RpcResult<proto::ShowResult> {
    check_query(&ctx.shared.root, &p.id)?;
    let (_, loaded) = load(ctx, false)?;
    let c = loaded.resolve(&p.id)?.clone();
    let steps: Vec<String> = gate::steps(&loaded, &c)
        .into_iter()
        .map(|s| s.id.clone())
        .collect();
    let stale_summary = loaded
        .store
        .as_ref()
        .is_some_and(|s| summaries::is_stale(s, &c));
    Ok(proto::ShowResult {
        command: c,
        steps,
        stale_summary,
    })
}

fn run_history(ctx: &Ctx<'_>, p: proto::RunsParams) -> RpcResult<proto::RunsResult> {
    let limit = p.limit.unwrap_or(20).max(1);
    let (engine, mut loaded) = load(ctx, false)?;
    let runs = if ctx.shared.trusted() {
        runs::history(engine.workspace(), &mut loaded.store, limit)?
    } else {
        // Settling the history writes; an untrusted workspace is only read.
        match &loaded.store {
            Some(s) => {
                commandtree_exec::history::list(s, limit, &commandtree_exec::process::group_alive)
                    .map_err(Error::from)?
            }
            None => Vec::new(),
        }
    };
    Ok(proto::RunsResult { runs })
}

/// `$/progress` for one request with a client's work-done token; `end` is sent on drop, so it
/// goes out however the request ends.
pub(crate) struct WorkDone {
    shared: Arc<Shared>,
    token: Option<proto::ProgressToken>,
    end: std::sync::Mutex<Option<String>>,
}

impl WorkDone {
    pub(crate) fn begin(
        ctx: &Ctx<'_>,
        token: Option<proto::ProgressToken>,
        title: &str,
    ) -> WorkDone {
        if let Some(t) = &token {
            ctx.shared.bind_token(t, ctx.id);
            ctx.shared.notify(
                "$/progress",
                json!({"token": t, "value": {"kind": "begin", "title": title, "cancellable": true, "percentage": 0}}),
            );
        }
        WorkDone {
            shared: ctx.shared.clone(),
            token,
            end: std::sync::Mutex::new(None),
        }
    }

    fn report(&self, e: &ProgressEvent) {
        let Some(t) = &self.token else {
            return;
        };
        let mut value = json!({"kind": "report", "cancellable": true});
        if let Some(total) = e.total.filter(|t| *t > 0) {
            value["percentage"] = json!((e.done * 100 / total).min(100));
        }
        let message = match (&e.message, e.operation) {
            (Some(m), "summarize") => Some(m.clone()),
            (Some(m), op) => Some(format!("{op}: {m}")),
            (None, "summarize") => None,
            (None, op) => Some(op.to_string()),
        };
        if let Some(m) = message {
            value["message"] = json!(m);
        }
        self.shared
            .notify("$/progress", json!({"token": t, "value": value}));
    }

    /// A report with a message, a percentage and `step` (what a playbook is at).
    pub(crate) fn report_step(
        &self,
        message: String,
        percentage: usize,
        step: proto::PlaybookStep,
    ) {
        let Some(t) = &self.token else {
            return;
        };
        self.shared.notify(
            "$/progress",
            json!({"token": t, "value": {
                "kind": "report", "cancellable": true, "message": message,
                "percentage": percentage.min(100), "step": step,
            }}),
        );
    }

    pub(crate) fn finish(&self, message: String) {
        *lock(&self.end) = Some(message);
    }
}

impl Drop for WorkDone {
    fn drop(&mut self) {
        if let Some(t) = &self.token {
            let mut value = json!({"kind": "end"});
            if let Some(m) = lock(&self.end).take() {
                value["message"] = json!(m);
            }
            self.shared
                .notify("$/progress", json!({"token": t, "value": value}));
        }
    }
}

fn summarize(ctx: &Ctx<'_>, p: proto::SummarizeParams) -> RpcResult<proto::SummarizeResult> {
    summarize_inner(ctx, p).map_err(|e| match e.code {
        // Cancelled before any summary was stored (still loading, or waiting on the first).
        REQUEST_CANCELLED if e.data.is_none() => e.with_data(json!({"summarized": 0})),
        _ => e,
    })
}

fn summarize_inner(ctx: &Ctx<'_>, p: proto::SummarizeParams) -> RpcResult<proto::SummarizeResult> {
    ctx.shared
        .require_trust("summarizing (it sends commands to an LLM)")?;
    let ids = p.ids.unwrap_or_default();
    for id in &ids {
        check_query(&ctx.shared.root, id)?;
    }
    let work = WorkDone::begin(ctx, p.work_done_token, "Summarizing commands");
    let engine = ctx.shared.engine()?;
    let ws = engine.workspace();
    // The same rule as skills: the editor's models when it offers them and nothing names a
    // provider; fails here, before anything is loaded, when no model can answer.
    let caller: Box<dyn ToolCaller> = match editor_lm::source(ctx.shared, ws)? {
        Source::Editor => Box::new(EditorToolCaller::new(ctx.shared.clone())),
        Source::Provider(c) => Box::new(commandtree_llm::Client::new(*c)),
    };
    let (_, mut loaded) = load(ctx, true)?;
    let plan = summaries::plan(&loaded, &ids, p.force)?;
    let current = plan.current;
    if plan.pending.is_empty() {
        work.finish(format!("all {current} summaries are current"));
        return Ok(proto::SummarizeResult {
            summarized: Vec::new(),
            failed: Vec::new(),
            current,
            not_attempted: 0,
            stopped: None,
        });
    }
    let progress = |e: ProgressEvent| work.report(&e);
    let (report, embed_problem) = summaries::run_with(
        ws,
        &mut loaded,
        plan,
        caller.as_ref(),
        ctx.cancel,
        &progress,
        &mut |_| {},
    )?;
    let summarized: Vec<proto::Summarized> = report
        .done
        .iter()
        .map(|(s, a)| proto::Summarized {
            id: s.item.id.clone(),
            label: s.item.label.clone(),
            summary: a.summary.clone(),
            security_warning: a.security_warning.clone().filter(|w| !w.is_empty()),
        })
        .collect();
    work.finish(format!(
        "{} summarized, {} failed",
        report.done.len(),
        report.failed.len()
    ));
    if report.cancelled || ctx.cancel.is_cancelled() {
        return Err(RpcError::cancelled().with_data(json!({"summarized": summarized.len()})));
    }
    let failed = report
        .failed
        .iter()
        .map(|(s, e)| proto::SummaryFailure {
            id: s.item.id.clone(),
            label: s.item.label.clone(),
            error: e.message.clone(),
        })
        .collect();
    Ok(proto::SummarizeResult {
        summarized,
        failed,
        current,
        not_attempted: report.not_attempted(),
        stopped: report.stopped.clone().or(embed_problem),
    })
}

fn search_commands(ctx: &Ctx<'_>, p: proto::SearchParams) -> RpcResult<proto::SearchResult> {
    ctx.shared
        .require_trust("searching (it stores new embeddings)")?;
    if p.query.trim().is_empty() {
        return Err(RpcError::params("query: empty"));
    }
    let threshold = p.threshold.unwrap_or(search::DEFAULT_THRESHOLD);
    if !(0.0..=1.0).contains(&threshold) {
        return Err(RpcError::params("threshold: between 0 and 1"));
    }
    let work = WorkDone::begin(ctx, p.work_done_token, "Searching commands");
    // The first search indexes the workspace, which needs a database: only when trusted.
    let (_engine, mut loaded) = load(ctx, false)?;
    let embedder = search::ready(&mut loaded, ctx.shared.trusted())
        .map_err(|e| RpcError::new(FAILED, e.to_string()))?;
    let progress = |e: ProgressEvent| work.report(&e);
    let found = search::search(
        &mut loaded,
        &embedder,
        &p.query,
        threshold,
        p.limit.unwrap_or(10).max(1),
        ctx.cancel,
        &progress,
    )?;
    if let Some(w) = &found.refresh_warning {
        ctx.shared.log(MessageType::WARNING, w.clone());
    }
    let results: Vec<proto::SearchHit> = found
        .hits
        .into_iter()
        .map(|h| proto::SearchHit {
            command: h.command,
            score: f64::from(h.score),
            similarity: h.similarity.map(f64::from),
            lexical_rank: h.lexical_rank,
            semantic_rank: h.semantic_rank,
            exact: h.exact,
        })
        .collect();
    work.finish(format!("{} found", results.len()));
    Ok(proto::SearchResult { results })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_outside_the_root_are_refused_names_pass() {
        let root = Path::new("/w");
        assert!(check_query(root, "npm:/w/package.json:build").is_ok());
        assert!(check_query(root, "npm:/w/package.json:build:prod").is_ok());
        assert!(check_query(root, "npm:build").is_ok());
        assert!(check_query(root, "build").is_ok());
        let e = check_query(root, "shell:/etc/passwd:x").unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS);
        assert!(check_query(root, "shell:/w/../etc/x.sh:x").is_err());
    }

    #[test]
    fn every_method_is_routed_once() {
        for r in ROUTES {
            assert_eq!(r.info.method, r.method);
            assert!(
                std::ptr::eq(route(r.method).unwrap(), r),
                "{} twice",
                r.method
            );
        }
        assert_eq!(
            route("commandtree/summarize").map(|r| r.kind),
            Some(Kind::Parallel)
        );
        assert!(route("textDocument/hover").is_none());
    }
}
