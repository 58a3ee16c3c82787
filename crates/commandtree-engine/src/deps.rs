//! The dependency view of a command: what running it runs (its closure, [`crate::closure`]:
//! steps resolved transitively, the steps that name nothing, cycles) and what runs it (every
//! command whose closure holds it), as data a front end draws as two trees.
//!
//! Both directions come from the same resolved steps, so "A runs B" here exactly when B is in
//! A's closure, and B's "run by" lists A. Each command appears once per direction, where it is
//! first reached (depth first, file order); `via` says through which commands, so a front end
//! can indent it under them.

use crate::closure::{self, Closure, Index};
use commandtree_core::{CommandItem, StepHow};
use std::collections::{HashMap, HashSet};

/// A command in one of the two trees.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    pub id: String,
    pub label: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub file_path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// How the runner gets from the command above to this one: `prerequisite`, `call` or
    /// `hook`.
    pub how: &'static str,
    /// The labels of the commands in between, outermost first: in `runs`, those from the
    /// command down to this one (`build` → `lint` → `clean` gives `["lint"]` for `clean`); in
    /// `runBy`, those from this one down to the command (`ci` → `build` → `lint` gives
    /// `["build"]` for `ci` in `lint`'s view). Its length is the depth in the tree.
    pub via: Vec<String>,
}

/// A step that names no command found here.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Missing {
    pub name: String,
    pub how: &'static str,
    pub via: Vec<String>,
}

/// What a command runs and what runs it.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Deps {
    /// The command itself (`how` is empty and `via` too).
    pub command: Link,
    /// Its closure, depth first.
    pub runs: Vec<Link>,
    /// Steps of its closure that name no command found here.
    pub unresolved: Vec<Missing>,
    /// Cycles met in its closure, each as the labels around it (`["a", "b", "a"]`).
    pub cycles: Vec<Vec<String>>,
    /// Every command whose closure holds it, depth first from its direct callers.
    pub run_by: Vec<Link>,
    /// More than [`closure::MAX_STEPS`] commands in a direction: the rest were not followed.
    pub truncated: bool,
}

/// The steps of every command resolved once, both ways, for asking about many commands.
pub struct Graph<'a> {
    commands: &'a [CommandItem],
    index: Index<'a>,
    /// For a command's id: the commands with a step resolving to it, and how, in command order.
    callers: HashMap<&'a str, Vec<(usize, StepHow)>>,
}

impl<'a> Graph<'a> {
    pub fn new(commands: &'a [CommandItem]) -> Graph<'a> {
        let index = Index::new(commands);
        let mut callers: HashMap<&'a str, Vec<(usize, StepHow)>> = HashMap::new();
        for (i, c) in commands.iter().enumerate() {
            for step in &c.steps {
                for target in index.resolve(c, step) {
                    let list = callers.entry(target.id.as_str()).or_default();
                    if !list.iter().any(|&(j, _)| j == i) {
                        list.push((i, step.how));
                    }
                }
            }
        }
        Graph {
            commands,
            index,
            callers,
        }
    }

    /// What `item` runs and what runs it.
    pub fn deps(&self, item: &CommandItem) -> Deps {
        let closure = self.index.closure(item);
        let (run_by, by_truncated) = self.run_by(item);
        let Closure {
            steps,
            unresolved,
            cycles,
            truncated,
        } = closure;
        Deps {
            command: link(item, None, Vec::new()),
            runs: steps
                .into_iter()
                .map(|s| link(s.item, Some(s.how), s.via))
                .collect(),
            unresolved: unresolved
                .into_iter()
                .map(|u| Missing {
                    name: u.name,
                    how: u.how.as_str(),
                    via: u.via,
                })
                .collect(),
            cycles,
            run_by,
            truncated: truncated || by_truncated,
        }
    }

    /// The commands whose closure holds `item`, depth first, each once.
    fn run_by(&self, item: &CommandItem) -> (Vec<Link>, bool) {
        let mut out = Vec::new();
        let mut seen: HashSet<&str> = HashSet::from([item.id.as_str()]);
        // A caller to visit: how it runs the command below it, and the labels from that
        // command down to `item`. Callers are pushed in reverse so they pop in command order.
        let mut stack: Vec<(&'a CommandItem, StepHow, Vec<String>)> = Vec::new();
        let push = |stack: &mut Vec<_>, of: &CommandItem, via: Vec<String>| {
            for &(i, how) in self.callers.get(of.id.as_str()).into_iter().flatten().rev() {
                stack.push((&self.commands[i], how, via.clone()));
            }
        };
        push(&mut stack, item, Vec::new());
        while let Some((c, how, via)) = stack.pop() {
            if !seen.insert(c.id.as_str()) {
                continue;
            }
            if out.len() >= closure::MAX_STEPS {
                return (out, true);
            }
            let mut deeper = Vec::with_capacity(via.len() + 1);
            deeper.push(c.label.clone());
            deeper.extend(via.iter().cloned());
            out.push(link(c, Some(how), via));
            push(&mut stack, c, deeper);
        }
        (out, false)
    }
}

fn link(c: &CommandItem, how: Option<StepHow>, via: Vec<String>) -> Link {
    Link {
        id: c.id.clone(),
        label: c.label.clone(),
        kind: c.kind.clone(),
        file_path: c.file_path.clone(),
        line: c.line,
        how: how.map_or("", StepHow::as_str),
        via,
    }
}

/// What `item` runs and what runs it, among `commands`.
pub fn of(commands: &[CommandItem], item: &CommandItem) -> Deps {
    Graph::new(commands).deps(item)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::closure::tests::{chain, cmd};
    use commandtree_core::{StepRef, StepScope};
    use std::path::PathBuf;

    fn tree(links: &[Link]) -> Vec<String> {
        links
            .iter()
            .map(|l| format!("{}{} ({})", "  ".repeat(l.via.len()), l.label, l.how))
            .collect()
    }

    /// `ci` (npm) calls `make build`; `build` needs `gen` and `lint`, `lint` needs `gen`;
    /// `release` calls `ci`; `loop` needs itself; `x` needs a file nobody builds.
    fn workspace() -> Vec<CommandItem> {
        let p = StepHow::Prerequisite;
        let mut ci = cmd("npm", "/w/package.json", "ci", &[]);
        ci.steps = vec![
            StepRef::new("build", StepHow::Call, true).scope(StepScope::File {
                kind: "make".into(),
                file: PathBuf::from("/w/Makefile"),
            }),
        ];
        vec![
            cmd("make", "/w/Makefile", "build", &[("gen", p), ("lint", p)]),
            cmd("make", "/w/Makefile", "gen", &[]),
            cmd("make", "/w/Makefile", "lint", &[("gen", p)]),
            cmd("make", "/w/Makefile", "loop", &[("loop", p)]),
            cmd("make", "/w/Makefile", "x", &[("missing", StepHow::Call)]),
            ci,
            cmd(
                "npm",
                "/w/package.json",
                "release",
                &[("ci", StepHow::Call)],
            ),
        ]
    }

    #[test]
    fn what_a_command_runs_and_what_runs_it() {
        let cs = workspace();
        let g = Graph::new(&cs);
        let build = g.deps(&cs[0]);
        assert_eq!(
            tree(&build.runs),
            ["gen (prerequisite)", "lint (prerequisite)"]
        );
        assert_eq!(tree(&build.run_by), ["ci (call)", "  release (call)"]);
        assert_eq!(build.run_by[1].via, ["ci"]);
        let generated = g.deps(&cs[1]);
        assert!(generated.runs.is_empty());
        assert_eq!(
            tree(&generated.run_by),
            [
                "build (prerequisite)",
                "  ci (call)",
                "    release (call)",
                "lint (prerequisite)"
            ]
        );
        assert_eq!(generated.run_by[2].via, ["ci", "build"]);
        let release = g.deps(&cs[6]);
        assert_eq!(
            tree(&release.runs),
            [
                "ci (call)",
                "  build (call)",
                "    gen (prerequisite)",
                "    lint (prerequisite)"
            ]
        );
        assert!(release.run_by.is_empty() && !release.truncated);
    }

    #[test]
    fn unresolved_steps_and_cycles_are_data_and_the_shape_is_documented() {
        let cs = workspace();
        let d = of(&cs, &cs[4]);
        assert_eq!(
            d.unresolved,
            [Missing {
                name: "missing".into(),
                how: "call",
                via: vec![]
            }]
        );
        let l = of(&cs, &cs[3]);
        assert_eq!(l.cycles, [vec!["loop".to_string(), "loop".into()]]);
        assert!(l.runs.is_empty() && l.run_by.is_empty());
        let json = serde_json::to_value(of(&cs, &cs[2])).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "command": {"id": "make:/w/Makefile:lint", "label": "lint", "type": "make",
                            "filePath": "/w/Makefile", "how": "", "via": []},
                "runs": [{"id": "make:/w/Makefile:gen", "label": "gen", "type": "make",
                          "filePath": "/w/Makefile", "how": "prerequisite", "via": []}],
                "unresolved": [],
                "cycles": [],
                "runBy": [
                    {"id": "make:/w/Makefile:build", "label": "build", "type": "make",
                     "filePath": "/w/Makefile", "how": "prerequisite", "via": []},
                    {"id": "npm:/w/package.json:ci", "label": "ci", "type": "npm",
                     "filePath": "/w/package.json", "how": "call", "via": ["build"]},
                    {"id": "npm:/w/package.json:release", "label": "release", "type": "npm",
                     "filePath": "/w/package.json", "how": "call", "via": ["ci", "build"]}
                ],
                "truncated": false
            })
        );
    }

    #[test]
    fn a_long_chain_of_callers_is_cut_at_the_limit() {
        let n = closure::MAX_STEPS + 10;
        let cs = chain(n);
        let d = of(&cs, &cs[n - 1]);
        assert_eq!(d.run_by.len(), closure::MAX_STEPS);
        assert!(d.truncated);
    }
}
