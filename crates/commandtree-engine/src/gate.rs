//! The security gate: everything about a command the user should confirm before it runs. That
//! is the command's own warning, and the warning of every step its runner executes with it (its
//! closure, [`crate::closure`]: make prerequisites, just dependencies, `npm run x` inside a
//! script, Taskfile `deps`, mise `depends`, VS Code `dependsOn`, a launch's `preLaunchTask`),
//! since those run too. Steps that name no command and cycles are said, not guessed; and a
//! summary made from an older version of the command is not taken as its current verdict.

use crate::Loaded;
use crate::closure;
use commandtree_core::CommandItem;

/// One thing to confirm (or, for a stale summary, to say) before running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Concern {
    /// The command the concern is about: the one run, or a step it pulls in.
    pub id: String,
    pub label: String,
    pub what: ConcernKind,
    /// The text for the user. A step's says which step it is ("runs `clean`, which ...").
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConcernKind {
    /// A security warning of the command itself.
    Warning,
    /// A security warning of a step that runs with it.
    StepWarning,
    /// The summary was made from another version of the command: its verdict is unknown now.
    StaleSummary,
    /// A step names no command CommandTree found, so nobody checked what it runs.
    UnresolvedStep,
    /// Steps that run each other in a cycle (followed once; the runner decides what happens).
    Cycle,
}

impl Concern {
    /// Whether this concern needs a confirmation (a warning), or only a mention.
    pub fn needs_confirmation(&self) -> bool {
        matches!(self.what, ConcernKind::Warning | ConcernKind::StepWarning)
    }

    /// The line a front end shows: the text, which names the step when it is about one.
    pub fn line(&self) -> &str {
        &self.text
    }
}

/// What to confirm before running `item`: its own warning, the warning of each step of its
/// closure, the steps nobody could check and the cycles, and whether its summary is out of
/// date. The warning a listing shows on `item` already holds its steps' (see
/// [`closure::annotate`]); each is asked about once here, as the step's.
pub fn concerns(loaded: &Loaded, item: &CommandItem) -> Vec<Concern> {
    let mut out = Vec::new();
    if let Some(w) = item.own_warning().map(str::trim).filter(|w| !w.is_empty()) {
        out.push(Concern {
            id: item.id.clone(),
            label: item.label.clone(),
            what: ConcernKind::Warning,
            text: w.to_string(),
        });
    }
    let c = closure::of(&loaded.commands, item);
    for step in &c.steps {
        if let Some(text) = closure::step_text(step) {
            out.push(Concern {
                id: step.item.id.clone(),
                label: step.item.label.clone(),
                what: ConcernKind::StepWarning,
                text,
            });
        }
    }
    for u in &c.unresolved {
        let through = if u.via.is_empty() {
            String::new()
        } else {
            let chain: Vec<String> = u.via.iter().map(|v| format!("`{v}`")).collect();
            format!(" (through {})", chain.join(" → "))
        };
        out.push(Concern {
            id: item.id.clone(),
            label: u.name.clone(),
            what: ConcernKind::UnresolvedStep,
            text: format!(
                "runs `{}`{through}, which is not a command CommandTree found, so what it does was not checked",
                u.name
            ),
        });
    }
    for ring in &c.cycles {
        let chain: Vec<String> = ring.iter().map(|l| format!("`{l}`")).collect();
        out.push(Concern {
            id: item.id.clone(),
            label: ring.first().cloned().unwrap_or_default(),
            what: ConcernKind::Cycle,
            text: format!(
                "its steps run each other in a cycle ({})",
                chain.join(" → ")
            ),
        });
    }
    if c.truncated {
        out.push(Concern {
            id: item.id.clone(),
            label: item.label.clone(),
            what: ConcernKind::UnresolvedStep,
            text: format!(
                "it runs more than {} steps; the rest were not checked",
                closure::MAX_STEPS
            ),
        });
    }
    if item.summary.is_some()
        && let Some(store) = &loaded.store
        && crate::summaries::is_stale(store, item)
    {
        out.push(Concern {
            id: item.id.clone(),
            label: item.label.clone(),
            what: ConcernKind::StaleSummary,
            text: "its AI summary is out of date (the command changed since it was summarized; `ct summarize` renews it)".into(),
        });
    }
    out
}

/// The discovered commands that run as steps of `item` (transitively), without `item` itself.
pub fn steps<'a>(loaded: &'a Loaded, item: &CommandItem) -> Vec<&'a CommandItem> {
    closure::of(&loaded.commands, item)
        .steps
        .into_iter()
        .map(|s| s.item)
        .collect()
}

/// The names of the steps of `item` that match no discovered command (for rules that must
/// apply to every step, such as an agent's `[mcp] deny` patterns, which match names).
pub fn unresolved_steps(loaded: &Loaded, item: &CommandItem) -> Vec<String> {
    closure::of(&loaded.commands, item)
        .unresolved
        .into_iter()
        .map(|u| u.name)
        .collect()
}
