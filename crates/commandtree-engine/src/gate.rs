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

/// Everything standing between a command and its run, worked out once for every front end:
/// the concerns of the command and its whole closure, and what to do about them.
#[derive(Debug, Clone)]
pub struct Gate {
    pub concerns: Vec<Concern>,
}

/// What a front end does before running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing to confirm.
    Clear,
    /// Ask the user first; these are the lines to show (each names its step when it is one).
    Confirm(Vec<String>),
}

impl Gate {
    /// The gate of `item` (see [`concerns`]).
    pub fn of(loaded: &Loaded, item: &CommandItem) -> Gate {
        Gate {
            concerns: concerns(loaded, item),
        }
    }

    /// The warnings to confirm: the command's own and every step's.
    pub fn to_confirm(&self) -> impl Iterator<Item = &Concern> {
        self.concerns.iter().filter(|c| c.needs_confirmation())
    }

    /// What is only said: a stale summary, steps nobody could check, cycles.
    pub fn notes(&self) -> impl Iterator<Item = &Concern> {
        self.concerns.iter().filter(|c| !c.needs_confirmation())
    }

    /// The warnings to confirm as one line (`; ` between them), if any.
    pub fn warning_line(&self) -> Option<String> {
        let lines: Vec<&str> = self.to_confirm().map(Concern::line).collect();
        (!lines.is_empty()).then(|| lines.join("; "))
    }

    /// Whether the command's summary was made from an older version of it.
    pub fn stale_summary(&self) -> bool {
        self.concerns
            .iter()
            .any(|c| c.what == ConcernKind::StaleSummary)
    }

    /// What to do: `already_confirmed` is the user's `--yes`, an agent server's
    /// `--allow-warned`, or a confirmation given in a form.
    pub fn verdict(&self, already_confirmed: bool) -> Verdict {
        let lines: Vec<String> = self.to_confirm().map(|c| c.line().to_string()).collect();
        if lines.is_empty() || already_confirmed {
            Verdict::Clear
        } else {
            Verdict::Confirm(lines)
        }
    }
}

#[cfg(test)]
mod verdict_tests {
    use super::*;

    fn concern(what: ConcernKind, text: &str) -> Concern {
        Concern {
            id: "x".into(),
            label: "x".into(),
            what,
            text: text.into(),
        }
    }

    #[test]
    fn only_warnings_are_confirmed_and_a_confirmation_clears_them() {
        let g = Gate {
            concerns: vec![
                concern(ConcernKind::Warning, "Danger: deletes ~"),
                concern(ConcernKind::StaleSummary, "out of date"),
                concern(ConcernKind::StepWarning, "runs `clean`, which deletes out/"),
                concern(ConcernKind::UnresolvedStep, "runs `gen`, not found"),
            ],
        };
        assert_eq!(
            g.verdict(false),
            Verdict::Confirm(vec![
                "Danger: deletes ~".into(),
                "runs `clean`, which deletes out/".into()
            ])
        );
        assert_eq!(g.verdict(true), Verdict::Clear);
        assert_eq!(g.notes().count(), 2);
        assert!(g.stale_summary());
        assert_eq!(
            g.warning_line().as_deref(),
            Some("Danger: deletes ~; runs `clean`, which deletes out/")
        );
        let quiet = Gate {
            concerns: vec![concern(ConcernKind::Cycle, "a cycle")],
        };
        assert_eq!(quiet.verdict(false), Verdict::Clear);
        assert_eq!(quiet.warning_line(), None);
    }
}
