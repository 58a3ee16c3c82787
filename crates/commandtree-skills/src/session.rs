//! One session API for every front end: invoke an LLM skill, run a playbook, apply a command
//! skill, read and change the context store. The command line prints and asks, the editor
//! server maps it to the protocol and `$/progress`, the terminal UI draws; none of them decides
//! whether a model is needed, which context goes first or whether a reply streams (each
//! [`LlmSkill`]'s [`ModelUse`] says), and none can skip the trust check: playbooks and command
//! skills are the workspace's own files, so running one needs the user's `ct trust` for the
//! workspace as it is now ([`crate::trust::require`]), checked here before anything is sent,
//! asked or written.

use crate::api::SkillApi;
use crate::command_skill::{self, Applied, CommandSkill, Proposal};
use crate::context::Conversation;
use crate::invocation::Invocation;
use crate::models::{Models, Offline, ProviderModels, TextSink};
use crate::playbook::{self, Event, Inputs, Playbook, StepError};
use crate::{Error, Host, LlmSkill, ModelUse, Registry, RequestOptions, Result};
use commandtree_core::{CommandItem, Warning};
use commandtree_engine::{CancelToken, Engine, Live};
use std::path::PathBuf;
use std::sync::Arc;

/// Command skills in a trusted workspace, with a model to ask: what [`Session::proposer`]
/// returns.
pub struct Proposer<'s> {
    session: &'s Session<'s>,
    api: Box<dyn SkillApi + 's>,
}

impl Proposer<'_> {
    /// Asks the model for `skill`'s version of `item`'s file. Nothing is written: the proposal
    /// is for the user to see, and [`Session::apply`] writes it once they accept.
    pub fn propose(
        &self,
        skill: &CommandSkill,
        item: &CommandItem,
        options: &RequestOptions,
    ) -> Result<Proposal> {
        let s = self.session;
        command_skill::propose(s.engine.root(), skill, item, self.api.as_ref(), options)
            .map_err(|e| s.cancelled_or(e))
    }
}

/// What an LLM skill answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The skill's name (`task`, `file`, ...).
    pub skill: &'static str,
    pub text: String,
    /// The text already went to the session's text sink as it streamed in.
    pub streamed: bool,
}

/// Why a playbook did not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlaybookError {
    /// Before any step: an input is unknown or missing, or the workspace is not trusted.
    Playbook(Error),
    /// A step is wrong as written (what `--dry-run` reports): nothing was sent or asked.
    Step(StepError),
}

impl std::fmt::Display for PlaybookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlaybookError::Playbook(e) => e.fmt(f),
            PlaybookError::Step(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PlaybookError {}

/// A playbook whose inputs are bound and whose steps all check, in a workspace the user
/// trusts: what [`Session::run_playbook`] runs. Only [`Session::prepare_playbook`] makes one.
pub struct ReadyPlaybook<'p> {
    playbook: &'p Playbook,
    inputs: Inputs,
    /// What each step's skill does with the model, in step order.
    uses: Vec<ModelUse>,
}

impl ReadyPlaybook<'_> {
    pub fn playbook(&self) -> &Playbook {
        self.playbook
    }
}

/// The LLM skills, playbooks, command skills and context of one workspace, for one operation
/// or many: its cancellation token, how confirmations are answered, where models come from and
/// where streamed text goes.
pub struct Session<'a> {
    engine: &'a Engine,
    registry: Registry,
    models: Box<dyn Models + 'a>,
    cancel: CancelToken,
    yes: bool,
    ask: Option<&'a (dyn Fn(&str) -> bool + Sync)>,
    on_text: Option<TextSink>,
    live: Option<&'a Live>,
}

impl<'a> Session<'a> {
    /// The built-in LLM skills, the configured provider, a token nobody cancels, nobody to ask
    /// (anything needing a confirmation is refused) and no streaming.
    pub fn new(engine: &'a Engine) -> Session<'a> {
        Session {
            engine,
            registry: Registry::builtin(),
            models: Box::new(ProviderModels::detect()),
            cancel: CancelToken::new(),
            yes: false,
            ask: None,
            on_text: None,
            live: None,
        }
    }

    /// Reads the workspace's commands from a server's live index (the `run` and `search` LLM
    /// skills), so a request never walks the tree.
    pub fn with_live(mut self, live: &'a Live) -> Self {
        self.live = Some(live);
        self
    }

    /// Where the models come from.
    pub fn with_models(mut self, models: impl Models + 'a) -> Self {
        self.models = Box::new(models);
        self
    }

    /// Stops a request in flight (its connection is closed), a running step and the steps
    /// after it.
    pub fn with_cancel(mut self, cancel: CancelToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Confirmations are answered yes without asking.
    pub fn with_yes(mut self, yes: bool) -> Self {
        self.yes = yes;
        self
    }

    /// Asks the user a yes/no question (a `file` write, a `run` of a command with a warning).
    pub fn with_ask(mut self, ask: &'a (dyn Fn(&str) -> bool + Sync)) -> Self {
        self.ask = Some(ask);
        self
    }

    /// Sees the text of each reply that streams (see [`ModelUse::streams_reply`]) as it comes.
    pub fn with_streaming(mut self, sink: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_text = Some(Arc::new(sink));
        self
    }

    pub fn engine(&self) -> &'a Engine {
        self.engine
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    fn host(&self) -> Host<'a> {
        Host {
            engine: self.engine,
            cancel: self.cancel.clone(),
            yes: self.yes,
            ask: self.ask,
            live: self.live,
        }
    }

    /// A failure once the token is cancelled is the cancel: a question left unanswered by
    /// Ctrl-C reads as "no", and a closed connection as a failed request.
    fn cancelled_or(&self, e: Error) -> Error {
        if self.cancel.is_cancelled() {
            Error::Cancelled
        } else {
            e
        }
    }

    fn sink_for(&self, uses: ModelUse) -> Option<TextSink> {
        self.on_text.clone().filter(|_| uses.streams_reply)
    }

    fn trust(&self, what: &str) -> Result<()> {
        crate::trust::require(self.engine.root(), what)
    }

    /// The API for work whose skills use the model as `uses` says: the conversation's context
    /// when they take it, a model when they ask one, nothing otherwise.
    fn open(&self, uses: ModelUse, conversation: Option<&str>) -> Result<Box<dyn SkillApi + '_>> {
        if !uses.asks_model {
            return Ok(Box::new(Offline));
        }
        let context = match conversation {
            Some(name) if uses.takes_context => {
                Conversation::new(self.engine, Some(name)).to_send()?
            }
            _ => Vec::new(),
        };
        self.models
            .open(self.engine, &self.cancel, context, self.sink_for(uses))
    }

    // ---- LLM skills ----

    /// The skill `inv` names, its words checked against its parameters. Nothing is sent or
    /// asked; [`Session::invoke`] checks the same first.
    pub fn check(&self, inv: &Invocation) -> Result<&dyn LlmSkill> {
        self.registry.check(inv).map(|(skill, _)| skill)
    }

    /// Runs one LLM skill. `conversation`: whose stored context goes first, for a skill that
    /// takes context (`None`: no stored context). A model is looked for only when the skill
    /// asks one, after its words check.
    pub fn invoke(&self, inv: &Invocation, conversation: Option<&str>) -> Result<Reply> {
        let skill = self.check(inv)?;
        let uses = skill.model_use();
        let api = self.open(uses, conversation)?;
        let text = self
            .registry
            .invoke(inv, api.as_ref(), &self.host())
            .map_err(|e| self.cancelled_or(e))?;
        Ok(Reply {
            skill: skill.name(),
            text,
            streamed: self.on_text.is_some() && uses.streams_reply,
        })
    }

    // ---- playbooks ----

    /// Every playbook of the workspace (or why one cannot be read), by file name.
    pub fn playbooks(&self) -> Vec<playbook::Loaded> {
        playbook::list(self.engine.root())
    }

    /// The playbook called `name` (its front matter `name` or its file name).
    pub fn find_playbook(&self, name: &str) -> Result<(PathBuf, Playbook)> {
        playbook::find(self.engine.root(), name)
    }

    fn checked(
        &self,
        pb: &Playbook,
        given: &[(String, String)],
    ) -> Result<(Inputs, Vec<Invocation>), PlaybookError> {
        let inputs = playbook::inputs(pb, given).map_err(PlaybookError::Playbook)?;
        let steps = playbook::dry_run(pb, &inputs, &self.registry).map_err(PlaybookError::Step)?;
        Ok((inputs, steps))
    }

    /// The steps as they would run (inputs filled in, replies as `<reply of step ID>`):
    /// nothing is sent or asked, and no trust is needed to look.
    pub fn plan_playbook(
        &self,
        pb: &Playbook,
        given: &[(String, String)],
    ) -> Result<Vec<Invocation>, PlaybookError> {
        self.checked(pb, given).map(|(_, steps)| steps)
    }

    /// Binds `given` (`NAME=VALUE`, then the defaults), checks every step as
    /// [`Session::plan_playbook`] does, then the user's trust: nothing is sent or asked before.
    pub fn prepare_playbook<'p>(
        &self,
        pb: &'p Playbook,
        given: &[(String, String)],
    ) -> Result<ReadyPlaybook<'p>, PlaybookError> {
        let (inputs, steps) = self.checked(pb, given)?;
        self.trust("Playbooks").map_err(PlaybookError::Playbook)?;
        let uses = steps
            .iter()
            .map(|inv| self.registry.get(&inv.skill).map(|s| s.model_use()))
            .collect::<Result<_>>()
            .map_err(PlaybookError::Playbook)?;
        Ok(ReadyPlaybook {
            playbook: pb,
            inputs,
            uses,
        })
    }

    /// Runs the steps in order; returns `(step id, reply)` of each. `conversation`: whose
    /// stored context the run starts with (each reply is added to the run's context after it,
    /// unless its step says `context=false`). When a step asks the model, the model is looked
    /// for before the first step runs, and its absence is that step's error. Stops at the first
    /// failure or at cancellation, naming the step.
    pub fn run_playbook(
        &self,
        ready: ReadyPlaybook<'_>,
        conversation: Option<&str>,
        on_event: &mut dyn FnMut(Event<'_>),
    ) -> Result<Vec<(String, String)>, StepError> {
        let pb = ready.playbook;
        let uses = ModelUse {
            asks_model: ready.uses.iter().any(|u| u.asks_model),
            takes_context: ready.uses.iter().any(|u| u.takes_context),
            streams_reply: ready.uses.iter().any(|u| u.streams_reply),
        };
        let api = self.open(uses, conversation).map_err(|error| {
            // Named after the first step that needs what could not be had.
            let at = ready
                .uses
                .iter()
                .position(|u| u.asks_model || u.takes_context)
                .unwrap_or(0);
            let step = &pb.steps[at];
            StepError {
                index: at + 1,
                id: step.id.clone(),
                line: step.line,
                error,
            }
        })?;
        playbook::run(
            pb,
            &ready.inputs,
            &self.registry,
            api.as_ref(),
            &self.host(),
            self.on_text.is_some(),
            on_event,
        )
        .map_err(|mut e| {
            e.error = self.cancelled_or(e.error);
            e
        })
    }

    // ---- command skills ----

    /// Every command skill of the workspace; unreadable or malformed files as warnings.
    pub fn command_skills(&self) -> (Vec<CommandSkill>, Vec<Warning>) {
        command_skill::discover(self.engine.root())
    }

    /// The command skill named `query`: its file name without `.md`, or its `name`.
    pub fn find_command_skill(&self, query: &str) -> Result<CommandSkill> {
        command_skill::find(self.engine.root(), query)
    }

    /// The trust check and the model for command skills: after this, [`Proposer::propose`]
    /// only has the request to make. (A front end says "asking the model" in between.)
    pub fn proposer(&self) -> Result<Proposer<'_>> {
        self.trust("Command skills")?;
        let api = self
            .models
            .open(self.engine, &self.cancel, Vec::new(), None)?;
        Ok(Proposer { session: self, api })
    }

    /// Writes a proposal the user accepted, after the trust check, if its file (inside the
    /// root) still holds exactly the text the proposal was made from.
    pub fn apply(&self, proposal: &Proposal) -> Result<Applied> {
        self.trust("Command skills")?;
        let root = self.engine.root();
        let rel = proposal.path.strip_prefix(root).unwrap_or(&proposal.path);
        crate::builtin::file::confine(root, &rel.to_string_lossy())?;
        command_skill::apply(proposal)
    }

    // ---- the context store ----

    /// The stored context of `conversation` (none or blank: the default one).
    pub fn conversation(&self, name: Option<&str>) -> Conversation<'a> {
        Conversation::new(self.engine, name)
    }
}
