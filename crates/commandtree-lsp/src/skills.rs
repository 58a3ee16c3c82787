//! Command skills for editors (`.commandtree/skills/*.md`): list them, ask the model for a
//! skill's version of a command's file, and write it once the user has seen the diff. The server
//! never writes on `proposeSkill`; `applySkill` writes only what the editor showed, and only if
//! the file on disk is still the text the proposal was made from. Command skills are the
//! workspace's files, so both need the user's `ct trust` besides the editor's trust, as on the
//! command line.

use crate::editor_lm::{EditorSkillApi, Source};
use crate::error::*;
use crate::handlers::{Ctx, WorkDone, check_query, load, warning_json};
use commandtree_skills::builtin::file::{confine, write_atomic};
use commandtree_skills::{LlmSkillApi, RequestOptions, SkillApi, command_skill};
use lsp_types::MessageType;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn skill_error(e: commandtree_skills::Error) -> RpcError {
    use commandtree_skills::Error;
    match e {
        Error::Invalid(m) => RpcError::params(m),
        Error::Cancelled => RpcError::cancelled(),
        e @ (Error::Declined(_) | Error::Failed(_)) => RpcError::new(FAILED, e.to_string()),
    }
}

pub fn list(ctx: &Ctx<'_>) -> RpcResult {
    let (skills, warnings) = command_skill::discover(&ctx.shared.root);
    for w in &warnings {
        ctx.shared.log(MessageType::WARNING, w.to_string());
    }
    let skills: Vec<Value> = skills
        .iter()
        .map(|s| {
            let mut v = json!({"id": s.id, "name": s.name, "icon": s.icon});
            if let Some(d) = &s.description {
                v["description"] = json!(d);
            }
            v
        })
        .collect();
    let mut out = json!({"skills": skills});
    if !warnings.is_empty() {
        out["warnings"] = warnings.iter().map(warning_json).collect();
    }
    Ok(out)
}

/// The file that defines command `id`, checked to lie inside the root (links resolved).
fn command_file(ctx: &Ctx<'_>, id: &str) -> RpcResult<(PathBuf, String)> {
    check_query(&ctx.shared.root, id)?;
    let (engine, loaded) = load(ctx, false)?;
    let item = loaded.resolve(id)?;
    if item.file_path.is_empty() {
        return Err(RpcError::new(
            FAILED,
            format!("`{}` has no file to change", item.label),
        ));
    }
    let path = PathBuf::from(&item.file_path);
    let rel = relative(engine.root(), &path);
    confine(engine.root(), &rel).map_err(skill_error)?;
    Ok((path, rel))
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProposeParams {
    skill: String,
    id: String,
    model: Option<String>,
    work_done_token: Option<Value>,
}

pub fn propose(ctx: &Ctx<'_>, p: ProposeParams) -> RpcResult {
    ctx.shared
        .require_trust("command skills (they send a file to an LLM)")?;
    commandtree_skills::trust::require(&ctx.shared.root, "Command skills").map_err(skill_error)?;
    check_query(&ctx.shared.root, &p.id)?;
    let work = WorkDone::begin(ctx, p.work_done_token, "Applying a command skill");
    let skill = command_skill::find(&ctx.shared.root, &p.skill).map_err(skill_error)?;
    let (engine, loaded) = load(ctx, false)?;
    let item = loaded.resolve(&p.id)?.clone();
    // Fails here, before anything is sent, when no model can answer.
    let api = match crate::editor_lm::source(ctx.shared, engine.workspace())? {
        Source::Editor => Box::new(EditorSkillApi::new(
            ctx.shared.clone(),
            ctx.cancel.clone(),
            Vec::new(),
        )) as Box<dyn SkillApi>,
        Source::Provider(c) => Box::new(LlmSkillApi::new(
            commandtree_llm::Client::new(*c),
            ctx.cancel.clone(),
        )),
    };
    let options = RequestOptions {
        model: p.model,
        ..Default::default()
    };
    let proposal = command_skill::propose(engine.root(), &skill, &item, api.as_ref(), &options)
        .map_err(|e| match e {
            // A cancel closes the connection, which the client may report as a failure.
            _ if ctx.cancel.is_cancelled() => RpcError::cancelled(),
            e => skill_error(e),
        })?;
    let rel = relative(engine.root(), &proposal.path);
    work.finish(if proposal.changed() {
        format!("{} proposed changes to {rel}", skill.name)
    } else {
        format!("{} proposed no changes to {rel}", skill.name)
    });
    Ok(json!({
        "file": proposal.path,
        "original": proposal.before,
        "proposed": proposal.after,
    }))
}

#[derive(Deserialize)]
pub struct ApplyParams {
    skill: String,
    id: String,
    original: String,
    proposed: String,
}

pub fn apply(ctx: &Ctx<'_>, p: ApplyParams) -> RpcResult {
    ctx.shared.require_trust("applying a command skill")?;
    commandtree_skills::trust::require(&ctx.shared.root, "Command skills").map_err(skill_error)?;
    let (path, rel) = command_file(ctx, &p.id)?;
    let failed = |e: std::io::Error| {
        RpcError::new(
            FAILED,
            format!("{rel}: {}", commandtree_safefs::unprefixed(e, &path)),
        )
    };
    // Never waits on a FIFO; a file much larger than `original` only needs to be seen to differ.
    let limit = (p.original.len() as u64).saturating_mul(2).max(1 << 20);
    let now = commandtree_safefs::read_existing(&path, &commandtree_safefs::Options::new(), limit)
        .map_err(failed)?;
    // The user approved a diff against `original`; anything else on disk now (an edit in the
    // editor, a checkout) would be overwritten unseen.
    if now.as_deref() != Some(p.original.as_bytes()) {
        return Err(RpcError::new(
            FAILED,
            format!("{rel} changed meanwhile; nothing was written"),
        )
        .with_data(json!({"file": path})));
    }
    let written = p.proposed != p.original;
    if written {
        write_atomic(None, &path, p.proposed.as_bytes()).map_err(failed)?;
        ctx.shared.log(
            MessageType::INFO,
            format!("command skill `{}` applied to {rel}", p.skill),
        );
    }
    Ok(json!({"file": path, "written": written}))
}
