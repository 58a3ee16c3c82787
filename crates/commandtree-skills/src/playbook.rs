//! Playbooks of LLM skill invocations (`.commandtree/playbooks/*.playbook.md`, format in
//! `commandtree_core::sources::playbook`): finding, inputs, the dry run, and the runner a
//! [`Session`](crate::Session) calls after its trust check. Steps run in order; each step's words
//! are split first and substituted after (`{{inputs.NAME}}`, `{{steps.ID}}`, `{{last}}`), so a
//! reply full of quotes is still one value. Each reply is appended to the playbook's context as
//! `assistant` (unless the step says `context=false`), on top of the active context the run started
//! with; the context lives as long as the run and is never written to the database. A failing or
//! cancelled step stops the playbook and is named.

use crate::api::{RequestOptions, SkillApi, SkillMessage, SkillResponse};
use crate::invocation::{self, Invocation};
use crate::{Error, Host, Registry, Result};
pub use commandtree_core::sources::playbook::{Input, Playbook, SUFFIX, Step};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub type Inputs = BTreeMap<String, String>;

/// `.commandtree/playbooks` of a workspace.
pub fn dir(root: &Path) -> PathBuf {
    root.join(".commandtree").join("playbooks")
}

/// A playbook file and what it says (or why it cannot be read).
pub struct Loaded {
    pub path: PathBuf,
    pub playbook: std::result::Result<Playbook, String>,
}

/// Every `*.playbook.md` in the workspace's playbook folder, by file name.
pub fn list(root: &Path) -> Vec<Loaded> {
    let Ok(entries) = std::fs::read_dir(dir(root)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(SUFFIX))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let playbook = load(&path);
            Loaded { path, playbook }
        })
        .collect()
}

/// Reads and parses one playbook file (the core rules: a regular file, at most 1 MiB).
pub fn load(path: &Path) -> std::result::Result<Playbook, String> {
    let text =
        commandtree_core::fs::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    commandtree_core::sources::playbook::parse_text(name, &text)
        .map(|(pb, _)| pb)
        .map_err(|(line, m)| match line {
            Some(l) => format!("{}:{l}: {m}", path.display()),
            None => format!("{}: {m}", path.display()),
        })
}

/// The playbook called `name` (front matter `name`, or the file name without `.playbook.md`).
pub fn find(root: &Path, name: &str) -> Result<(PathBuf, Playbook)> {
    let all = list(root);
    for l in &all {
        let stem = l
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .map(commandtree_core::sources::playbook::stem)
            .unwrap_or("");
        let named = matches!(&l.playbook, Ok(pb) if pb.name == name);
        if named || stem == name {
            return l
                .playbook
                .clone()
                .map(|pb| (l.path.clone(), pb))
                .map_err(Error::failed);
        }
    }
    let names: Vec<String> = all
        .iter()
        .filter_map(|l| l.playbook.as_ref().ok().map(|p| p.name.clone()))
        .collect();
    Err(Error::invalid(if names.is_empty() {
        format!("no playbook `{name}`: {} has none", dir(root).display())
    } else {
        format!("no playbook `{name}` (there are: {})", names.join(", "))
    }))
}

/// The values of every input: `given` (`NAME=VALUE`) first, then defaults. An unknown name or
/// an input with neither is an error naming it.
pub fn inputs(pb: &Playbook, given: &[(String, String)]) -> Result<Inputs> {
    let mut out = Inputs::new();
    for (k, v) in given {
        if !pb.inputs.iter().any(|i| &i.name == k) {
            let known: Vec<&str> = pb.inputs.iter().map(|i| i.name.as_str()).collect();
            return Err(Error::invalid(format!(
                "playbook `{}` has no input `{k}` (inputs: {})",
                pb.name,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
        out.insert(k.clone(), v.clone());
    }
    for i in &pb.inputs {
        if out.contains_key(&i.name) {
            continue;
        }
        match &i.default {
            Some(d) => {
                out.insert(i.name.clone(), d.clone());
            }
            None => {
                return Err(Error::invalid(format!(
                    "Missing or invalid input {0}: give it with --input {0}=VALUE",
                    i.name
                )));
            }
        }
    }
    Ok(out)
}

/// What `{{steps.ID}}` and `{{last}}` stand for: real replies, or (dry run) placeholders.
pub trait Replies {
    fn step(&self, id: &str) -> Option<String>;
    fn last(&self) -> Option<String>;
}

/// Replaces every `{{ ... }}` in `word`. Unknown placeholders, inputs and steps are errors.
pub fn substitute(word: &str, inputs: &Inputs, replies: &dyn Replies) -> Result<String> {
    let mut out = String::new();
    let mut rest = word;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let expr = after[..end].trim();
        let value = if expr == "last" {
            replies
                .last()
                .ok_or_else(|| Error::invalid("`{{last}}` has no earlier step to refer to"))?
        } else if let Some(name) = expr.strip_prefix("inputs.") {
            inputs.get(name).cloned().ok_or_else(|| {
                Error::invalid(format!("`{{{{{expr}}}}}`: there is no input `{name}`"))
            })?
        } else if let Some(id) = expr.strip_prefix("steps.") {
            replies.step(id).ok_or_else(|| {
                Error::invalid(format!("`{{{{{expr}}}}}`: no earlier step has id `{id}`"))
            })?
        } else {
            return Err(Error::invalid(format!(
                "`{{{{{expr}}}}}` is not a placeholder (inputs.NAME, steps.ID or last)"
            )));
        };
        out.push_str(&value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A step's invocation with its placeholders filled in.
pub fn prepare(step: &Step, inputs: &Inputs, replies: &dyn Replies) -> Result<Invocation> {
    let words = invocation::split(&step.body)?;
    let words = words
        .iter()
        .map(|w| substitute(w, inputs, replies))
        .collect::<Result<Vec<_>>>()?;
    invocation::from_words(words)
}

struct Done<'a> {
    ids: &'a [(String, bool)],
    replies: &'a [String],
}

impl Replies for Done<'_> {
    fn step(&self, id: &str) -> Option<String> {
        self.ids
            .iter()
            .zip(self.replies)
            .find(|((sid, named), _)| *named && sid == id)
            .map(|(_, r)| r.clone())
    }
    fn last(&self) -> Option<String> {
        self.replies.last().cloned()
    }
}

struct Placeholders<'a> {
    earlier: &'a [(String, bool)],
}

impl Replies for Placeholders<'_> {
    fn step(&self, id: &str) -> Option<String> {
        self.earlier
            .iter()
            .any(|(sid, named)| *named && sid == id)
            .then(|| format!("<reply of step {id}>"))
    }
    fn last(&self) -> Option<String> {
        self.earlier
            .last()
            .map(|(id, _)| format!("<reply of step {id}>"))
    }
}

/// Flag names that answer a confirmation in advance, in any spelling a CLI takes for them
/// (compared lowercase, `_` as `-`). The file skill's `--yes` is the one an LLM skill accepts
/// today; the rest keep an LLM skill added later from growing one a playbook could pass.
const AUTO_APPROVE: &[&str] = &[
    "yes",
    "y",
    "assume-yes",
    "assumeyes",
    "force",
    "auto-approve",
    "autoapprove",
    "no-confirm",
    "noconfirm",
    "no-prompt",
    "non-interactive",
    "noninteractive",
    "yolo",
    "dangerously-skip-permissions",
];

/// A playbook is the workspace's text, not the user: a step may not carry a flag that answers
/// the user's confirmation (`--yes`, `--yes=true`, `-y`, `-qy`, ...), whether written in the
/// step or filled in from an input. The words are walked as [`crate::params::bind`] reads
/// them, so a value (`--content "--yes"`) is not taken for a flag.
pub fn no_auto_approval(inv: &Invocation, specs: &[crate::params::ParamSpec]) -> Result<()> {
    let refuse = |word: &str| {
        Err(Error::invalid(format!(
            "@{}: `{word}` would answer the confirmation for you, and a playbook step may not \
             do that: the step asks you when it runs (or pass --yes to `ct playbook run` \
             yourself); remove it from the playbook",
            inv.skill
        )))
    };
    let mut words = inv.args.iter();
    while let Some(word) = words.next() {
        if let Some(flag) = word.strip_prefix("--") {
            let (name, inline) = match flag.split_once('=') {
                Some((n, _)) => (n, true),
                None => (flag, false),
            };
            let norm = name.to_lowercase().replace('_', "-");
            if AUTO_APPROVE.contains(&norm.as_str()) {
                return refuse(word);
            }
            let takes_value = specs
                .iter()
                .find(|s| s.name == name || s.name.eq_ignore_ascii_case(&name.replace('-', "")))
                .is_some_and(|s| s.kind != crate::params::ParamKind::Bool);
            if takes_value && !inline {
                words.next();
            }
        } else if let Some(short) = word.strip_prefix('-')
            && !short.is_empty()
            && short.chars().all(|c| c.is_ascii_alphabetic())
            && short
                .chars()
                .any(|c| c.eq_ignore_ascii_case(&'y') || c.eq_ignore_ascii_case(&'f'))
        {
            return refuse(word);
        }
    }
    Ok(())
}

/// A step's problem, with the step named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepError {
    /// 1-based.
    pub index: usize,
    pub id: String,
    pub line: usize,
    pub error: Error,
}

impl std::fmt::Display for StepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.error {
            Error::Cancelled => write!(f, "step {} `{}` was cancelled", self.index, self.id),
            e => write!(
                f,
                "step {} `{}` (line {}) failed: {e}",
                self.index, self.id, self.line
            ),
        }
    }
}

impl std::error::Error for StepError {}

/// The steps as they would run: words split, inputs filled in, replies shown as
/// `<reply of step ID>`. Errors are what a run would stop on before asking anything.
pub fn dry_run(
    pb: &Playbook,
    inputs: &Inputs,
    registry: &Registry,
) -> Result<Vec<Invocation>, StepError> {
    let mut earlier: Vec<(String, bool)> = Vec::new();
    let mut out = Vec::new();
    for (i, step) in pb.steps.iter().enumerate() {
        let fail = |error| StepError {
            index: i + 1,
            id: step.id.clone(),
            line: step.line,
            error,
        };
        let inv = prepare(step, inputs, &Placeholders { earlier: &earlier }).map_err(fail)?;
        let skill = registry.get(&inv.skill).map_err(fail)?;
        no_auto_approval(&inv, skill.params()).map_err(fail)?;
        crate::params::bind(skill.name(), skill.params(), &inv.args).map_err(fail)?;
        out.push(inv);
        earlier.push((step.id.clone(), step.named));
    }
    Ok(out)
}

/// What a run reports as it goes.
pub enum Event<'a> {
    Started {
        index: usize,
        total: usize,
        step: &'a Step,
        invocation: &'a Invocation,
    },
    Finished {
        index: usize,
        step: &'a Step,
        reply: &'a str,
        /// The reply already went to the session's text sink as it streamed in (a skill whose
        /// reply streams, in a session with a sink): a front end that printed it need not again.
        streamed: bool,
    },
}

/// The active context of the run: what the run started with, then the replies so far.
struct PlaybookApi<'a> {
    inner: &'a dyn SkillApi,
    added: RefCell<Vec<SkillMessage>>,
}

impl SkillApi for PlaybookApi<'_> {
    fn active_context(&self) -> Result<Vec<SkillMessage>> {
        let mut c = self.inner.active_context()?;
        c.extend(self.added.borrow().iter().cloned());
        Ok(c)
    }
    fn send_request(
        &self,
        messages: Vec<SkillMessage>,
        options: &RequestOptions,
    ) -> Result<SkillResponse> {
        self.inner.send_request(messages, options)
    }
}

/// Runs every step; returns `(step id, reply)` in order. Stops at the first failure or at
/// cancellation (`host.cancel`), naming the step. `streaming`: text the model sends reaches a
/// sink as it comes (see [`Event::Finished`]). Only a [`Session`](crate::Session) runs a
/// playbook, after its trust check.
pub(crate) fn run(
    pb: &Playbook,
    inputs: &Inputs,
    registry: &Registry,
    api: &dyn SkillApi,
    host: &Host<'_>,
    streaming: bool,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Vec<(String, String)>, StepError> {
    let api = PlaybookApi {
        inner: api,
        added: RefCell::new(Vec::new()),
    };
    let ids: Vec<(String, bool)> = pb.steps.iter().map(|s| (s.id.clone(), s.named)).collect();
    let mut replies: Vec<String> = Vec::new();
    let total = pb.steps.len();
    for (i, step) in pb.steps.iter().enumerate() {
        let fail = |error| StepError {
            index: i + 1,
            id: step.id.clone(),
            line: step.line,
            error,
        };
        if host.cancel.is_cancelled() {
            return Err(fail(Error::Cancelled));
        }
        let done = Done {
            ids: &ids[..i],
            replies: &replies,
        };
        let inv = prepare(step, inputs, &done).map_err(fail)?;
        let skill = registry.get(&inv.skill).map_err(fail)?;
        no_auto_approval(&inv, skill.params()).map_err(fail)?;
        on_event(Event::Started {
            index: i + 1,
            total,
            step,
            invocation: &inv,
        });
        let reply = match registry.invoke(&inv, &api, host) {
            Ok(r) => r,
            Err(_) if host.cancel.is_cancelled() => return Err(fail(Error::Cancelled)),
            Err(e) => return Err(fail(e)),
        };
        if step.context {
            api.added
                .borrow_mut()
                .push(SkillMessage::assistant(reply.clone()));
        }
        on_event(Event::Finished {
            index: i + 1,
            step,
            reply: &reply,
            streamed: streaming && skill.model_use().streams_reply,
        });
        replies.push(reply);
    }
    Ok(ids.into_iter().map(|(id, _)| id).zip(replies).collect())
}
