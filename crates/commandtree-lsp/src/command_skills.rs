//! Command skills for editors (`.commandtree/skills/*.md`): list them, ask the model for a
//! command skill's version of a command's file, and write it once the user has seen the diff.
//! The server never writes on `proposeSkill`; `applySkill` writes only what the editor showed,
//! and only if the file on disk is still the text the proposal was made from. The skills
//! crate's [`Session`](commandtree_skills::Session) does the work, with the user's `ct trust`
//! checked there besides the editor's trust here, as on the command line.

use crate::error::*;
use crate::handlers::{Ctx, WorkDone, check_query, load};
use crate::llm_skills::{session, skill_error};
use crate::protocol::{self as proto, ApplySkillParams, ProposeSkillParams};
use commandtree_engine::Engine;
use commandtree_skills::command_skill::{self, Applied, Proposal};
use commandtree_skills::{Error, RequestOptions};
use lsp_types::MessageType;
use serde_json::json;
use std::path::{Path, PathBuf};

pub fn list(ctx: &Ctx<'_>, _: proto::NoParams) -> RpcResult<proto::CommandSkillsResult> {
    let (skills, warnings) = command_skill::discover(&ctx.shared.root);
    for w in &warnings {
        ctx.shared.log(MessageType::WARNING, w.to_string());
    }
    let skills = skills
        .into_iter()
        .map(|s| proto::CommandSkillInfo {
            id: s.id,
            name: s.name,
            icon: s.icon,
            description: s.description,
        })
        .collect();
    Ok(proto::CommandSkillsResult { skills, warnings })
}

/// The file that defines command `id` (the session checks that it lies inside the root).
fn command_file(ctx: &Ctx<'_>, id: &str) -> RpcResult<(Engine, PathBuf, String)> {
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
    Ok((engine, path, rel))
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

pub fn propose(ctx: &Ctx<'_>, p: ProposeSkillParams) -> RpcResult<proto::ProposeSkillResult> {
    ctx.shared
        .require_trust("command skills (they send a file to an LLM)")?;
    check_query(&ctx.shared.root, &p.id)?;
    let work = WorkDone::begin(ctx, p.work_done_token, "Applying a command skill");
    let (engine, loaded) = load(ctx, false)?;
    let live = crate::watch::live(ctx.shared)?;
    let session = session(ctx, &engine, &live, false);
    let skill = session.find_command_skill(&p.skill).map_err(skill_error)?;
    let item = loaded.resolve(&p.id)?.clone();
    let options = RequestOptions {
        model: p.model,
        ..Default::default()
    };
    let proposal = session
        .proposer()
        .and_then(|p| p.propose(&skill, &item, &options))
        .map_err(skill_error)?;
    let rel = relative(engine.root(), &proposal.path);
    work.finish(if proposal.changed() {
        format!("{} proposed changes to {rel}", skill.name)
    } else {
        format!("{} proposed no changes to {rel}", skill.name)
    });
    Ok(proto::ProposeSkillResult {
        file: proposal.path,
        original: proposal.before,
        proposed: proposal.after,
    })
}

pub fn apply(ctx: &Ctx<'_>, p: ApplySkillParams) -> RpcResult<proto::ApplySkillResult> {
    ctx.shared.require_trust("applying a command skill")?;
    let (engine, path, rel) = command_file(ctx, &p.id)?;
    // The user approved a diff against `original`; anything else on disk now (an edit in the
    // editor, a checkout) is left alone.
    let proposal = Proposal {
        path: path.clone(),
        before: p.original,
        after: p.proposed,
    };
    let live = crate::watch::live(ctx.shared)?;
    let applied = session(ctx, &engine, &live, false)
        .apply(&proposal)
        .map_err(|e| match e {
            Error::Changed(_) => RpcError::new(
                FAILED,
                format!("{rel} changed meanwhile; nothing was written"),
            )
            .with_data(json!({"file": path})),
            Error::Failed(m) => {
                let m = m
                    .strip_prefix(&format!("{}: ", path.display()))
                    .unwrap_or(&m);
                RpcError::new(FAILED, format!("{rel}: {m}"))
            }
            e => skill_error(e),
        })?;
    let written = applied == Applied::Written;
    if written {
        ctx.shared.log(
            MessageType::INFO,
            format!("command skill `{}` applied to {rel}", p.skill),
        );
    }
    Ok(proto::ApplySkillResult {
        file: path,
        written,
    })
}
