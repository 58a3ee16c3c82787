//! One function per `commandtree/*` request (shapes in `docs/lsp-protocol.md`). Each discovers
//! afresh through the engine, so an answer always matches the files on disk; the watcher only
//! drives `commandtree/tasksChanged`.

use crate::editor_lm::{self, EditorToolCaller, Source};
use crate::error::*;
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
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
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

/// Every request the server answers besides the lifecycle ones.
pub const METHODS: &[(&str, Kind)] = &[
    ("commandtree/discoverTasks", Kind::Serial),
    ("commandtree/watchFiles", Kind::Serial),
    ("commandtree/tree", Kind::Serial),
    ("commandtree/quick", Kind::Serial),
    ("commandtree/tags", Kind::Serial),
    ("commandtree/tag", Kind::Serial),
    ("commandtree/star", Kind::Serial),
    ("commandtree/quickMove", Kind::Serial),
    ("commandtree/plan", Kind::Serial),
    ("commandtree/show", Kind::Serial),
    ("commandtree/runs", Kind::Serial),
    ("commandtree/summarize", Kind::Parallel),
    ("commandtree/search", Kind::Parallel),
    ("commandtree/commandSkills", Kind::Serial),
    ("commandtree/proposeSkill", Kind::Parallel),
    ("commandtree/applySkill", Kind::Serial),
    ("commandtree/runSkill", Kind::Parallel),
    ("commandtree/playbooks", Kind::Serial),
    ("commandtree/runPlaybook", Kind::Parallel),
    ("commandtree/context", Kind::Serial),
    ("commandtree/addContext", Kind::Serial),
    ("commandtree/clearContext", Kind::Serial),
];

pub fn kind(method: &str) -> Option<Kind> {
    METHODS.iter().find(|(m, _)| *m == method).map(|(_, k)| *k)
}

/// What a handler gets besides its params.
pub struct Ctx<'a> {
    pub shared: &'a Arc<Shared>,
    pub id: &'a RequestId,
    pub cancel: &'a CancelToken,
}

/// A request's result: a value, or JSON text kept from an identical earlier request.
pub enum Answer {
    Value(Value),
    Json(Arc<str>),
}

/// A serialized listing and what it was made from.
pub struct Kept {
    view: Arc<Vec<CommandItem>>,
    json: Arc<str>,
}

/// Answers a request. The listings (`discoverTasks`, `tree`) of an unchanged live list, asked
/// again with the same params and settings, are sent as the JSON text made the first time.
pub fn answer(ctx: &Ctx<'_>, method: &str, params: Value) -> RpcResult<Answer> {
    if !matches!(method, "commandtree/discoverTasks" | "commandtree/tree") {
        return handle(ctx, method, params).map(Answer::Value);
    }
    if method == "commandtree/discoverTasks" {
        // Its side effects (root check, new excludes) come before any kept answer is used.
        let p: DiscoverParams = parse(params.clone())?;
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
        "{method} {params} {} {:?}",
        settings.show_all, settings.sort_order
    );
    if let Some(k) = lock(&ctx.shared.answers).get(&key)
        && Arc::ptr_eq(&k.view, &view)
    {
        return Ok(Answer::Json(k.json.clone()));
    }
    let value = handle(ctx, method, params)?;
    let json: Arc<str> = serde_json::to_string(&value)
        .map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))?
        .into();
    let mut answers = lock(&ctx.shared.answers);
    answers.retain(|_, k| Arc::ptr_eq(&k.view, &view));
    answers.insert(
        key,
        Kept {
            view,
            json: json.clone(),
        },
    );
    Ok(Answer::Json(json))
}

pub fn handle(ctx: &Ctx<'_>, method: &str, params: Value) -> RpcResult {
    match method {
        "commandtree/discoverTasks" => discover_tasks(ctx, parse(params)?),
        "commandtree/watchFiles" => watch::start(ctx.shared, ctx.cancel),
        "commandtree/tree" => tree(ctx, parse(params)?),
        "commandtree/quick" => quick(ctx),
        "commandtree/tags" => tags(ctx),
        "commandtree/tag" => tag(ctx, parse(params)?),
        "commandtree/star" => star(ctx, parse(params)?),
        "commandtree/quickMove" => quick_move(ctx, parse(params)?),
        "commandtree/plan" => plan(ctx, parse(params)?),
        "commandtree/show" => show(ctx, parse(params)?),
        "commandtree/runs" => run_history(ctx, parse(params)?),
        "commandtree/summarize" => summarize(ctx, parse(params)?),
        "commandtree/search" => search_commands(ctx, parse(params)?),
        "commandtree/commandSkills" => crate::command_skills::list(ctx),
        "commandtree/proposeSkill" => crate::command_skills::propose(ctx, parse(params)?),
        "commandtree/applySkill" => crate::command_skills::apply(ctx, parse(params)?),
        "commandtree/runSkill" => crate::llm_skills::run_skill(ctx, parse(params)?),
        "commandtree/playbooks" => crate::llm_skills::list_playbooks(ctx),
        "commandtree/runPlaybook" => crate::llm_skills::run_playbook(ctx, parse(params)?),
        "commandtree/context" => crate::llm_skills::context(ctx, parse(params)?),
        "commandtree/addContext" => crate::llm_skills::add_context(ctx, parse(params)?),
        "commandtree/clearContext" => crate::llm_skills::clear_context(ctx, parse(params)?),
        _ => Err(RpcError::new(
            METHOD_NOT_FOUND,
            format!("unknown method `{method}`"),
        )),
    }
}

/// Params as `T`; absent params are an empty object, so a missing required field is named.
pub(crate) fn parse<T: DeserializeOwned>(params: Value) -> RpcResult<T> {
    let v = if params.is_null() { json!({}) } else { params };
    serde_json::from_value(v).map_err(|e| RpcError::params(format!("invalid params: {e}")))
}

fn to_value(v: impl serde::Serialize) -> RpcResult {
    serde_json::to_value(v).map_err(|e| RpcError::new(INTERNAL_ERROR, e.to_string()))
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DiscoverParams {
    workspace_root: String,
    exclude_patterns: Option<Vec<String>>,
    #[serde(default)]
    all: bool,
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

pub(crate) fn warning_json(w: &commandtree_core::Warning) -> Value {
    serde_json::to_value(w).unwrap_or(Value::Null)
}

fn discover_tasks(ctx: &Ctx<'_>, p: DiscoverParams) -> RpcResult {
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
    let hidden = shown.hidden + shown.hidden_docs;
    let mut out = Map::new();
    // Tree order, as `ct list --json`.
    out.insert("tasks".into(), to_value(shown.ordered())?);
    if !warnings.is_empty() {
        out.insert(
            "warnings".into(),
            warnings.iter().map(warning_json).collect(),
        );
    }
    if hidden > 0 {
        out.insert("hidden".into(), json!(hidden));
    }
    Ok(Value::Object(out))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TreeParams {
    sort: Option<String>,
    tag: Option<String>,
    #[serde(default)]
    all: bool,
}

fn node_json(n: &Node, commands: &[CommandItem]) -> Value {
    match n {
        Node::Folder { label, children } => json!({
            "kind": "folder",
            "label": label,
            "children": children.iter().map(|c| node_json(c, commands)).collect::<Vec<_>>(),
        }),
        Node::Command(i) => json!({"kind": "command", "command": commands[*i]}),
    }
}

fn category_json(c: &Category, commands: &[CommandItem]) -> Value {
    json!({
        "type": c.kind,
        "label": c.label,
        "count": c.count,
        "children": c.children.iter().map(|n| node_json(n, commands)).collect::<Vec<_>>(),
    })
}

fn tree(ctx: &Ctx<'_>, p: TreeParams) -> RpcResult {
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
    let mut out = Map::new();
    out.insert(
        "categories".into(),
        shown
            .tree
            .iter()
            .map(|c| category_json(c, &shown.commands))
            .collect(),
    );
    out.insert("hidden".into(), json!(shown.hidden + shown.hidden_docs));
    if !shown.unknown_tags.is_empty() {
        out.insert(
            "warnings".into(),
            shown.unknown_tags.iter().map(warning_json).collect(),
        );
    }
    Ok(Value::Object(out))
}

fn quick_ids(loaded: &Loaded) -> RpcResult<(Vec<String>, Vec<CommandItem>)> {
    let commands = engine_tags::quick(loaded)?;
    Ok((commands.iter().map(|c| c.id.clone()).collect(), commands))
}

fn quick(ctx: &Ctx<'_>) -> RpcResult {
    let (_, loaded) = load(ctx, false)?;
    let (ids, commands) = quick_ids(&loaded)?;
    Ok(json!({"ids": ids, "commands": commands}))
}

fn tags(ctx: &Ctx<'_>) -> RpcResult {
    let (_, loaded) = load(ctx, false)?;
    Ok(json!({"tags": engine_tags::list(&loaded)?}))
}

#[derive(Deserialize)]
struct TagParams {
    id: String,
    tag: String,
    add: bool,
}

fn tag(ctx: &Ctx<'_>, p: TagParams) -> RpcResult {
    ctx.shared.require_trust("tagging")?;
    check_query(&ctx.shared.root, &p.id)?;
    let (_, mut loaded) = load(ctx, true)?;
    let tag = std::slice::from_ref(&p.tag);
    if p.add {
        let (c, added) = engine_tags::add(&mut loaded, &p.id, tag)?;
        return Ok(json!({
            "id": c.id, "tag": p.tag, "tagged": true,
            "changed": added.first().copied().unwrap_or(false),
        }));
    }
    let (id, _) = loaded.resolve_for_removal(&p.id)?;
    let (_, removals) = engine_tags::remove(&mut loaded, &id, tag)?;
    let r = removals.into_iter().next();
    let mut out = json!({
        "id": id, "tag": p.tag, "tagged": false,
        "changed": r.as_ref().is_some_and(|r| r.removed),
    });
    if let Some(f) = r.and_then(|r| r.from_config) {
        out["fromConfig"] = json!(f);
    }
    Ok(out)
}

#[derive(Deserialize)]
struct StarParams {
    id: String,
    starred: bool,
}

fn star(ctx: &Ctx<'_>, p: StarParams) -> RpcResult {
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
    Ok(json!({"id": id, "starred": p.starred, "changed": changed}))
}

#[derive(Deserialize)]
struct QuickMoveParams {
    id: String,
    position: usize,
}

fn quick_move(ctx: &Ctx<'_>, p: QuickMoveParams) -> RpcResult {
    ctx.shared.require_trust("changing Quick Launch")?;
    check_query(&ctx.shared.root, &p.id)?;
    let (_, mut loaded) = load(ctx, true)?;
    let (c, at) = engine_tags::quick_move(&mut loaded, &p.id, p.position)?;
    let (ids, _) = quick_ids(&loaded)?;
    Ok(json!({"id": c.id, "position": at, "ids": ids}))
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
enum Mode {
    NewTerminal,
    CurrentTerminal,
    Debug,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PlanParams {
    id: String,
    mode: Mode,
    #[serde(default)]
    params: Map<String, Value>,
    #[serde(default)]
    extra_args: Vec<String>,
}

fn shell_name(s: Shell) -> &'static str {
    match s {
        Shell::Posix => "posix",
        Shell::Fish => "fish",
        Shell::PowerShell => "powershell",
        Shell::Cmd => "cmd",
    }
}

/// The warnings to confirm before `item` runs (its own and its steps'), and whether its summary
/// is out of date.
fn security(loaded: &Loaded, item: &CommandItem) -> (Option<String>, bool) {
    let g = gate::Gate::of(loaded, item);
    (g.warning_line(), g.stale_summary())
}

fn plan(ctx: &Ctx<'_>, p: PlanParams) -> RpcResult {
    ctx.shared.require_trust("running commands")?;
    check_query(&ctx.shared.root, &p.id)?;
    let mut values = commandtree_exec::params::Values::new();
    for (k, v) in p.params {
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
    let (engine, loaded) = load(ctx, false)?;
    let sel = runs::select(
        &loaded,
        RunRequest {
            target: Target::Query(p.id.clone()),
            values,
            extra: p.extra_args,
            debug: p.mode == Mode::Debug,
        },
    )?;
    let item = sel.item.clone();
    let action = match item.command_type() {
        Some(CommandType::Launch) => "debug",
        Some(CommandType::Vscode) => "task",
        Some(CommandType::Markdown) => "preview",
        _ => "terminal",
    };
    let mut out = Map::new();
    out.insert("id".into(), json!(item.id));
    out.insert("action".into(), json!(action));
    match runs::plan(engine.workspace(), &sel, None) {
        Ok(planned) => {
            let r = &planned.runnable;
            let line = match p.mode {
                Mode::CurrentTerminal => r.prompt_line().unwrap_or_else(|| r.script.clone()),
                _ => r.script.clone(),
            };
            let env: Map<String, Value> =
                r.env.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            out.insert("commandLine".into(), json!(line));
            out.insert("cwd".into(), json!(r.cwd));
            out.insert("env".into(), Value::Object(env));
            out.insert("shell".into(), json!(shell_name(r.shell)));
        }
        // The editor starts launch configurations and VS Code tasks itself; a line for a
        // terminal is a bonus there, so a missing debugger or program is not an error.
        Err(Error::Failed(_)) if action == "debug" || action == "task" => {
            let cwd = if item.cwd.is_empty() {
                engine.root().to_string_lossy().into_owned()
            } else {
                item.cwd.clone()
            };
            out.insert("commandLine".into(), json!(""));
            out.insert("cwd".into(), json!(cwd));
            out.insert("env".into(), json!({}));
        }
        Err(e) => return Err(e.into()),
    }
    if action == "debug" {
        out.insert(
            "debugConfiguration".into(),
            debug::launch_configuration(&item)?,
        );
    }
    if action == "task" {
        out.insert("taskName".into(), json!(item.command));
    }
    let (warning, stale) = security(&loaded, &item);
    if let Some(w) = warning {
        out.insert("securityWarning".into(), json!(w));
    }
    if stale {
        out.insert("staleSummary".into(), json!(true));
    }
    Ok(Value::Object(out))
}

#[derive(Deserialize)]
struct ShowParams {
    id: String,
}

fn show(ctx: &Ctx<'_>, p: ShowParams) -> RpcResult {
    check_query(&ctx.shared.root, &p.id)?;
    let (_, loaded) = load(ctx, false)?;
    let c = loaded.resolve(&p.id)?.clone();
    let steps: Vec<String> = gate::steps(&loaded, &c)
        .into_iter()
        .map(|s| s.id.clone())
        .collect();
    let mut out = json!({"command": c, "steps": steps});
    if loaded
        .store
        .as_ref()
        .is_some_and(|s| summaries::is_stale(s, &c))
    {
        out["staleSummary"] = json!(true);
    }
    Ok(out)
}

#[derive(Deserialize)]
struct RunsParams {
    limit: Option<usize>,
}

fn run_history(ctx: &Ctx<'_>, p: RunsParams) -> RpcResult {
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
    Ok(json!({"runs": runs}))
}

/// `$/progress` for one request with a client's work-done token; `end` is sent on drop, so it
/// goes out however the request ends.
pub(crate) struct WorkDone {
    shared: Arc<Shared>,
    token: Option<Value>,
    end: std::sync::Mutex<Option<String>>,
}

impl WorkDone {
    pub(crate) fn begin(ctx: &Ctx<'_>, token: Option<Value>, title: &str) -> WorkDone {
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
    pub(crate) fn report_step(&self, message: String, percentage: usize, step: Value) {
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SummarizeParams {
    ids: Option<Vec<String>>,
    #[serde(default)]
    force: bool,
    work_done_token: Option<Value>,
}

fn summarize(ctx: &Ctx<'_>, p: SummarizeParams) -> RpcResult {
    summarize_inner(ctx, p).map_err(|e| match e.code {
        // Cancelled before any summary was stored (still loading, or waiting on the first).
        REQUEST_CANCELLED if e.data.is_none() => e.with_data(json!({"summarized": 0})),
        _ => e,
    })
}

fn summarize_inner(ctx: &Ctx<'_>, p: SummarizeParams) -> RpcResult {
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
        return Ok(json!({
            "summarized": [], "failed": [], "current": current, "notAttempted": 0,
        }));
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
    let summarized: Vec<Value> = report
        .done
        .iter()
        .map(|(s, a)| {
            let mut v = json!({"id": s.item.id, "label": s.item.label, "summary": a.summary});
            if let Some(w) = a.security_warning.as_ref().filter(|w| !w.is_empty()) {
                v["securityWarning"] = json!(w);
            }
            v
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
    let failed: Vec<Value> = report
        .failed
        .iter()
        .map(|(s, e)| json!({"id": s.item.id, "label": s.item.label, "error": e.message}))
        .collect();
    let mut out = json!({
        "summarized": summarized,
        "failed": failed,
        "current": current,
        "notAttempted": report.not_attempted(),
    });
    if let Some(s) = report.stopped.clone().or(embed_problem) {
        out["stopped"] = json!(s);
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearchParams {
    query: String,
    limit: Option<usize>,
    threshold: Option<f32>,
    work_done_token: Option<Value>,
}

fn search_commands(ctx: &Ctx<'_>, p: SearchParams) -> RpcResult {
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
    let results: Vec<Value> = found
        .hits
        .into_iter()
        .map(|h| {
            json!({
                "command": h.command,
                "score": h.score,
                "similarity": h.similarity,
                "lexicalRank": h.lexical_rank,
                "semanticRank": h.semantic_rank,
                "exact": h.exact,
            })
        })
        .collect();
    work.finish(format!("{} found", results.len()));
    Ok(json!({"results": results}))
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
    fn every_method_is_scheduled_and_handled() {
        for (m, _) in METHODS {
            assert!(kind(m).is_some());
        }
        assert_eq!(kind("commandtree/summarize"), Some(Kind::Parallel));
        assert_eq!(kind("textDocument/hover"), None);
    }
}
