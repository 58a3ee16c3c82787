//! LLM skills and playbooks for editors: `runSkill`, `playbooks`, `runPlaybook`, and the
//! context store (`context`, `addContext`, `clearContext`). The work is the skills crate's
//! [`Session`]; this maps requests onto it (cancel token, `$/progress`, the models of
//! [`crate::editor_lm`]). Nobody can answer a confirmation here, so `file` writes and `run`
//! steps that need one are refused unless the request says `yes`. Playbooks are the
//! workspace's files: besides the editor's trust the session wants the user's `ct trust`, as
//! on the command line; a skill the editor's user invokes needs only the editor's trust, as
//! `ct skill run` needs none.

use crate::editor_lm::EditorModels;
use crate::error::*;
use crate::handlers::{Ctx, WorkDone};
use crate::protocol::{self as proto, RunPlaybookParams, RunSkillParams};
use commandtree_core::Warning;
use commandtree_engine::{Engine, Live};
use commandtree_skills::context::ContextType;
use commandtree_skills::invocation::{self, Invocation};
use commandtree_skills::playbook::{Event, StepError};
use commandtree_skills::{Error, PlaybookError, Session};
use serde_json::json;

/// A skills error as the protocol says it: a wrong invocation is a params error.
pub(crate) fn skill_error(e: Error) -> RpcError {
    match e {
        Error::Invalid(m) => RpcError::params(m),
        Error::Cancelled => RpcError::cancelled(),
        e => RpcError::new(FAILED, e.to_string()),
    }
}

/// The session of one request: its cancel token, the editor's answer to confirmations, the
/// models of [`crate::editor_lm`], and the server's live index (so `@run`/`@search` never walk).
pub(crate) fn session<'a>(
    ctx: &'a Ctx<'_>,
    engine: &'a Engine,
    live: &'a Live,
    yes: bool,
) -> Session<'a> {
    Session::new(engine)
        .with_live(live)
        .with_models(EditorModels::new(ctx.shared))
        .with_cancel(ctx.cancel.clone())
        .with_yes(yes)
}

fn invocation_of(p: &RunSkillParams) -> RpcResult<Invocation> {
    match (&p.invocation, &p.skill) {
        (Some(text), None) if p.params.is_empty() => invocation::parse(text).map_err(skill_error),
        (None, Some(name)) => invocation::from_params(name, &p.params).map_err(skill_error),
        _ => Err(RpcError::params(
            "give either `invocation` (\"@task --prompt ...\") or `skill` with `params`",
        )),
    }
}

pub fn run_skill(ctx: &Ctx<'_>, p: RunSkillParams) -> RpcResult<proto::RunSkillResult> {
    ctx.shared
        .require_trust("running skills (they talk to an LLM and touch files)")?;
    let inv = invocation_of(&p)?;
    let engine = ctx.shared.engine()?;
    let live = crate::watch::live(ctx.shared)?;
    let session = session(ctx, &engine, &live, p.yes);
    let name = session.check(&inv).map_err(skill_error)?.name();
    let work = WorkDone::begin(ctx, p.work_done_token.clone(), &format!("@{name}"));
    let conversation = p
        .context
        .unwrap_or(true)
        .then(|| p.conversation.as_deref().unwrap_or_default());
    let reply = session.invoke(&inv, conversation).map_err(skill_error)?;
    work.finish(format!("@{name} done"));
    Ok(proto::RunSkillResult {
        skill: reply.skill.to_string(),
        reply: reply.text,
    })
}

pub fn list_playbooks(ctx: &Ctx<'_>, _: proto::NoParams) -> RpcResult<proto::PlaybooksResult> {
    let all = commandtree_skills::playbook::list(&ctx.shared.root);
    let mut playbooks = Vec::new();
    let mut warnings = Vec::new();
    for l in all {
        match l.playbook {
            Ok(p) => playbooks.push(proto::PlaybookInfo {
                name: p.name,
                file: l.path,
                steps: p.steps.iter().map(|s| s.id.clone()).collect(),
                inputs: p
                    .inputs
                    .into_iter()
                    .map(|i| proto::PlaybookInput {
                        name: i.name,
                        description: i.description,
                        default: i.default,
                    })
                    .collect(),
                description: p.description,
            }),
            Err(e) => {
                ctx.shared
                    .log(lsp_types::MessageType::WARNING, format!("playbook {e}"));
                warnings.push(Warning::new(&l.path, None, e));
            }
        }
    }
    Ok(proto::PlaybooksResult {
        playbooks,
        warnings,
    })
}

fn step_error(e: StepError) -> RpcError {
    let data = json!({"step": e.index, "id": e.id, "line": e.line});
    let code = match &e.error {
        Error::Cancelled => REQUEST_CANCELLED,
        Error::Invalid(_) => INVALID_PARAMS,
        _ => FAILED,
    };
    RpcError::new(code, e.to_string()).with_data(data)
}

pub fn run_playbook(ctx: &Ctx<'_>, p: RunPlaybookParams) -> RpcResult<proto::RunPlaybookResult> {
    ctx.shared
        .require_trust("running playbooks (they talk to an LLM and touch files)")?;
    let engine = ctx.shared.engine()?;
    let live = crate::watch::live(ctx.shared)?;
    let session = session(ctx, &engine, &live, p.yes);
    let (_, pb) = session.find_playbook(&p.name).map_err(skill_error)?;
    let given: Vec<(String, String)> = p
        .inputs
        .iter()
        .map(|(k, v)| (k.clone(), invocation::word(v)))
        .collect();
    // Every step checked, and the user's `ct trust`, before anything is sent.
    let ready = session.prepare_playbook(&pb, &given).map_err(|e| match e {
        PlaybookError::Playbook(e) => skill_error(e),
        PlaybookError::Step(e) => step_error(e),
    })?;
    let work = WorkDone::begin(
        ctx,
        p.work_done_token.clone(),
        &format!("Playbook {}", pb.name),
    );
    let total = pb.steps.len();
    let conversation = p.conversation.as_deref().unwrap_or_default();
    let result = session.run_playbook(ready, Some(conversation), &mut |ev| match ev {
        Event::Started {
            index,
            total,
            step,
            invocation,
        } => work.report_step(
            format!("[{index}/{total}] {} @{}", step.id, invocation.skill),
            (index - 1) * 100 / total.max(1),
            proto::PlaybookStep {
                index,
                total,
                id: step.id.clone(),
                skill: Some(invocation.skill.clone()),
                reply: None,
            },
        ),
        Event::Finished {
            index, step, reply, ..
        } => work.report_step(
            format!("[{index}/{total}] {} done", step.id),
            index * 100 / total.max(1),
            proto::PlaybookStep {
                index,
                total,
                id: step.id.clone(),
                skill: None,
                reply: Some(reply.to_string()),
            },
        ),
    });
    let replies = result.map_err(step_error)?;
    work.finish(format!(
        "{} step{} done",
        total,
        if total == 1 { "" } else { "s" }
    ));
    let steps = replies
        .into_iter()
        .map(|(id, reply)| proto::StepReply { id, reply })
        .collect();
    Ok(proto::RunPlaybookResult {
        name: pb.name,
        steps,
    })
}

pub fn context(ctx: &Ctx<'_>, p: proto::ConversationParams) -> RpcResult<proto::ContextResult> {
    let engine = ctx.shared.engine()?;
    let conversation = Session::new(&engine).conversation(p.conversation.as_deref());
    let rows = conversation.messages().map_err(skill_error)?;
    // What a chat front end sends to its model: the rows as workspace data, never as
    // instructions (the same message runSkill and runPlaybook send).
    let send = commandtree_skills::context::as_data(&rows);
    Ok(proto::ContextResult {
        messages: rows,
        send,
    })
}

pub fn add_context(
    ctx: &Ctx<'_>,
    p: proto::AddContextParams,
) -> RpcResult<proto::AddContextResult> {
    ctx.shared.require_trust("changing the context messages")?;
    let kind: ContextType = p
        .kind
        .parse()
        .map_err(|_| RpcError::params("type: agent, assistant or user expected"))?;
    let engine = ctx.shared.engine()?;
    let added = Session::new(&engine)
        .conversation(p.conversation.as_deref())
        .add(kind, &p.content)
        .map_err(skill_error)?;
    Ok(proto::AddContextResult {
        id: added.id,
        count: added.count,
    })
}

pub fn clear_context(
    ctx: &Ctx<'_>,
    p: proto::ConversationParams,
) -> RpcResult<proto::ClearContextResult> {
    ctx.shared.require_trust("changing the context messages")?;
    let engine = ctx.shared.engine()?;
    let removed = Session::new(&engine)
        .conversation(p.conversation.as_deref())
        .clear()
        .map_err(skill_error)?;
    Ok(proto::ClearContextResult { removed })
}
