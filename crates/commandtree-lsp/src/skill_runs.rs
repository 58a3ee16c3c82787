//! LLM skills and playbooks for editors: `runSkill`, `playbooks`, `runPlaybook`, and the
//! active context (`context`, `addContext`, `clearContext`). The work is the skills crate's;
//! this wires it to the request (cancel token, `$/progress`) and to the model source of
//! [`crate::editor_lm`]. Nobody can answer a confirmation here, so `file` writes and `run`
//! steps that need one are refused unless the request says `yes`. Playbooks are the
//! workspace's files: besides the editor's trust they need the user's `ct trust`, as on the
//! command line; a skill the editor's user invokes needs only the editor's trust, as `ct skill
//! run` needs none.

use crate::editor_lm::LazyApi;
use crate::error::*;
use crate::handlers::{Ctx, WorkDone};
use commandtree_skills::playbook::{self, Event, StepError};
use commandtree_skills::{Error, Host, Registry, api, invocation};
use commandtree_store::{ContextType, DEFAULT_CONVERSATION, Store};
use serde::Deserialize;
use serde_json::{Map, Value, json};

fn skill_error(e: Error) -> RpcError {
    match e {
        Error::Invalid(m) => RpcError::params(m),
        Error::Cancelled => RpcError::cancelled(),
        e @ (Error::Declined(_) | Error::Failed(_)) => RpcError::new(FAILED, e.to_string()),
    }
}

fn conversation(c: &Option<String>) -> &str {
    c.as_deref()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or(DEFAULT_CONVERSATION)
}

fn stored_context(ctx: &Ctx<'_>, conversation: &str) -> RpcResult<Vec<api::SkillMessage>> {
    let engine = ctx.shared.engine()?;
    let store = Store::open_read_only(&engine.db_path())
        .map_err(|e| RpcError::new(FAILED, e.to_string()))?;
    api::stored_context(store.as_ref(), conversation).map_err(skill_error)
}

/// A JSON value as the word a flag takes: strings as they are, the rest as JSON.
/// What a skill runs with here: the model chosen at its first request (editor or provider) and
/// the engine. Nobody is asked here: `yes` is the editor's answer.
fn skill_env<'a>(
    ctx: &'a Ctx<'_>,
    engine: &'a commandtree_engine::Engine,
    context: Vec<api::SkillMessage>,
    yes: bool,
) -> (LazyApi<'a>, Host<'a>) {
    let api = LazyApi::new(ctx.shared, engine.workspace(), ctx.cancel.clone(), context);
    let host = Host {
        engine,
        cancel: ctx.cancel.clone(),
        yes,
        ask: None,
    };
    (api, host)
}

fn word(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSkillParams {
    /// `@task --prompt "..."`, as in a playbook step.
    invocation: Option<String>,
    /// Or the skill's name and its flags as an object.
    skill: Option<String>,
    #[serde(default)]
    params: Map<String, Value>,
    conversation: Option<String>,
    /// Send the stored context first (default true).
    context: Option<bool>,
    #[serde(default)]
    yes: bool,
    work_done_token: Option<Value>,
}

fn invocation_of(p: &RunSkillParams) -> RpcResult<invocation::Invocation> {
    match (&p.invocation, &p.skill) {
        (Some(text), None) if p.params.is_empty() => {
            let words = invocation::split(text).map_err(skill_error)?;
            invocation::from_words(words).map_err(skill_error)
        }
        (None, Some(name)) => {
            let mut words = vec![name.trim_start_matches('@').to_string()];
            for (k, v) in &p.params {
                words.push(format!("--{k}"));
                words.push(word(v));
            }
            invocation::from_words(words).map_err(skill_error)
        }
        _ => Err(RpcError::params(
            "give either `invocation` (\"@task --prompt ...\") or `skill` with `params`",
        )),
    }
}

pub fn run_skill(ctx: &Ctx<'_>, p: RunSkillParams) -> RpcResult {
    ctx.shared
        .require_trust("running skills (they talk to an LLM and touch files)")?;
    let inv = invocation_of(&p)?;
    let registry = Registry::builtin();
    let skill = registry.get(&inv.skill).map_err(skill_error)?;
    commandtree_skills::params::bind(skill.name(), skill.params(), &inv.args)
        .map_err(skill_error)?;
    let work = WorkDone::begin(
        ctx,
        p.work_done_token.clone(),
        &format!("@{}", skill.name()),
    );
    let context = if p.context.unwrap_or(true) && skill.name() == "task" {
        stored_context(ctx, conversation(&p.conversation))?
    } else {
        Vec::new()
    };
    let engine = ctx.shared.engine()?;
    let (api, host) = skill_env(ctx, &engine, context, p.yes);
    let reply = registry.invoke(&inv, &api, &host).map_err(|e| {
        if ctx.cancel.is_cancelled() {
            RpcError::cancelled()
        } else {
            skill_error(e)
        }
    })?;
    work.finish(format!("@{} done", skill.name()));
    Ok(json!({"skill": skill.name(), "reply": reply}))
}

pub fn list_playbooks(ctx: &Ctx<'_>) -> RpcResult {
    let all = playbook::list(&ctx.shared.root);
    let mut playbooks = Vec::new();
    let mut warnings = Vec::new();
    for l in all {
        match l.playbook {
            Ok(p) => {
                let inputs: Vec<Value> = p
                    .inputs
                    .iter()
                    .map(|i| {
                        let mut v = json!({"name": i.name});
                        if let Some(d) = &i.description {
                            v["description"] = json!(d);
                        }
                        if let Some(d) = &i.default {
                            v["default"] = json!(d);
                        }
                        v
                    })
                    .collect();
                let mut v = json!({
                    "name": p.name,
                    "file": l.path,
                    "steps": p.steps.iter().map(|s| s.id.clone()).collect::<Vec<_>>(),
                    "inputs": inputs,
                });
                if let Some(d) = &p.description {
                    v["description"] = json!(d);
                }
                playbooks.push(v);
            }
            Err(e) => {
                ctx.shared
                    .log(lsp_types::MessageType::WARNING, format!("playbook {e}"));
                warnings.push(json!({"file": l.path, "message": e}));
            }
        }
    }
    let mut out = json!({"playbooks": playbooks});
    if !warnings.is_empty() {
        out["warnings"] = json!(warnings);
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunPlaybookParams {
    name: String,
    #[serde(default)]
    inputs: Map<String, Value>,
    conversation: Option<String>,
    #[serde(default)]
    yes: bool,
    work_done_token: Option<Value>,
}

fn step_error(e: StepError) -> RpcError {
    let data = json!({"step": e.index, "id": e.id, "line": e.line});
    let code = match &e.error {
        Error::Cancelled => REQUEST_CANCELLED,
        Error::Invalid(_) => INVALID_PARAMS,
        Error::Declined(_) | Error::Failed(_) => FAILED,
    };
    RpcError::new(code, e.to_string()).with_data(data)
}

pub fn run_playbook(ctx: &Ctx<'_>, p: RunPlaybookParams) -> RpcResult {
    ctx.shared
        .require_trust("running playbooks (they talk to an LLM and touch files)")?;
    // A playbook is the workspace's own text: as on the command line, it runs only where the
    // user ran `ct trust` and nothing that steers ct changed since.
    commandtree_skills::trust::require(&ctx.shared.root, "Playbooks").map_err(skill_error)?;
    let (_, pb) = playbook::find(&ctx.shared.root, &p.name).map_err(skill_error)?;
    let given: Vec<(String, String)> = p.inputs.iter().map(|(k, v)| (k.clone(), word(v))).collect();
    let inputs = playbook::inputs(&pb, &given).map_err(skill_error)?;
    let registry = Registry::builtin();
    // Every step checked before anything is sent, as `--dry-run` does.
    playbook::dry_run(&pb, &inputs, &registry).map_err(step_error)?;
    let work = WorkDone::begin(
        ctx,
        p.work_done_token.clone(),
        &format!("Playbook {}", pb.name),
    );
    let context = stored_context(ctx, conversation(&p.conversation))?;
    let engine = ctx.shared.engine()?;
    let (api, host) = skill_env(ctx, &engine, context, p.yes);
    let total = pb.steps.len();
    let result = playbook::run(&pb, &inputs, &registry, &api, &host, &mut |ev| match ev {
        Event::Started {
            index,
            total,
            step,
            invocation,
        } => work.report_step(
            format!("[{index}/{total}] {} @{}", step.id, invocation.skill),
            (index - 1) * 100 / total.max(1),
            json!({"index": index, "total": total, "id": step.id, "skill": invocation.skill}),
        ),
        Event::Finished { index, step, reply } => work.report_step(
            format!("[{index}/{total}] {} done", step.id),
            index * 100 / total.max(1),
            json!({"index": index, "total": total, "id": step.id, "reply": reply}),
        ),
    });
    let replies = result.map_err(step_error)?;
    work.finish(format!(
        "{} step{} done",
        total,
        if total == 1 { "" } else { "s" }
    ));
    let steps: Vec<Value> = replies
        .into_iter()
        .map(|(id, reply)| json!({"id": id, "reply": reply}))
        .collect();
    Ok(json!({"name": pb.name, "steps": steps}))
}

#[derive(Deserialize)]
pub struct ContextParams {
    conversation: Option<String>,
}

pub fn context(ctx: &Ctx<'_>, p: ContextParams) -> RpcResult {
    let engine = ctx.shared.engine()?;
    let store = Store::open_read_only(&engine.db_path())
        .map_err(|e| RpcError::new(FAILED, e.to_string()))?;
    let rows = match &store {
        Some(s) => s
            .context(conversation(&p.conversation))
            .map_err(|e| RpcError::new(FAILED, e.to_string()))?,
        None => Vec::new(),
    };
    // What a chat front end sends to its model: the rows as workspace data, never as
    // instructions (the same message runSkill and runPlaybook send).
    let pairs: Vec<(ContextType, String)> =
        rows.iter().map(|r| (r.kind, r.content.clone())).collect();
    let send: Vec<api::SkillMessage> = api::context_as_data(&pairs).into_iter().collect();
    Ok(json!({"messages": rows, "send": send}))
}

#[derive(Deserialize)]
pub struct AddContextParams {
    conversation: Option<String>,
    #[serde(rename = "type")]
    kind: String,
    content: String,
}

fn writable_store(ctx: &Ctx<'_>) -> RpcResult<Store> {
    let engine = ctx.shared.engine()?;
    Store::open(&engine.db_path(), true)
        .map_err(|e| RpcError::new(FAILED, e.to_string()))?
        .ok_or_else(|| RpcError::new(FAILED, "the workspace database cannot be created"))
}

pub fn add_context(ctx: &Ctx<'_>, p: AddContextParams) -> RpcResult {
    ctx.shared.require_trust("changing the context messages")?;
    let kind: ContextType = p
        .kind
        .parse()
        .map_err(|_| RpcError::params("type: agent, assistant or user expected"))?;
    let mut store = writable_store(ctx)?;
    let c = conversation(&p.conversation);
    let id = store
        .add_context(c, kind, &p.content)
        .map_err(|e| RpcError::new(FAILED, e.to_string()))?;
    let count = store
        .context(c)
        .map_err(|e| RpcError::new(FAILED, e.to_string()))?
        .len();
    Ok(json!({"id": id, "count": count}))
}

pub fn clear_context(ctx: &Ctx<'_>, p: ContextParams) -> RpcResult {
    ctx.shared.require_trust("changing the context messages")?;
    let engine = ctx.shared.engine()?;
    let removed = match Store::open(&engine.db_path(), false)
        .map_err(|e| RpcError::new(FAILED, e.to_string()))?
    {
        Some(mut s) => s
            .clear_context(conversation(&p.conversation))
            .map_err(|e| RpcError::new(FAILED, e.to_string()))?,
        None => 0,
    };
    Ok(json!({"removed": removed}))
}
