//! The closure of a command: every step its runner executes by itself when it runs (make
//! prerequisites and `$(MAKE) x`, just dependencies and `just x`, npm `pre`/`post` scripts and
//! `npm run x`, Taskfile `deps` and `task:` calls, mise `depends` and `run`, VS Code `dependsOn`
//! and a launch configuration's `preLaunchTask`), followed transitively.
//!
//! Parsers record each command's steps by name in the runner's own namespace
//! (`CommandItem::steps`); this module resolves them to discovered commands and reports, as
//! data, the chain each step is reached through, the steps that name no command, and cycles.
//! It guesses nothing: a name that resolves to nothing is reported, never matched loosely.
//!
//! What a command's closure does is what running it does, so its steps' warnings are its own
//! too: [`annotate`] adds them to `security_warning` ("runs `clean`, which ..."), once for
//! every front end, and the gate (`crate::gate`) asks about each step.

use commandtree_core::{CommandItem, CommandType, StepHow, StepRef, StepScope};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Steps followed for one command at most: far beyond any real build, and a bound on the work a
/// crafted file with thousands of chained targets can cause.
pub const MAX_STEPS: usize = 1000;

/// How many step warnings a listing's warning names; the rest are counted.
const SHOWN: usize = 3;

/// A discovered command that runs as a step of another.
#[derive(Debug, Clone)]
pub struct Step<'a> {
    pub item: &'a CommandItem,
    pub how: StepHow,
    /// The labels of the steps it is reached through, outermost first (empty for a direct
    /// step): `build` → `lint` → `clean` gives `["lint"]` for `clean`.
    pub via: Vec<String>,
}

/// A step whose name matches no discovered command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    pub name: String,
    pub how: StepHow,
    pub via: Vec<String>,
}

/// Everything running a command pulls in.
#[derive(Debug, Clone, Default)]
pub struct Closure<'a> {
    /// Each step once, in the order it is first reached (depth first, file order).
    pub steps: Vec<Step<'a>>,
    /// Steps that name nothing CommandTree found, where that matters (`must_resolve`).
    pub unresolved: Vec<Unresolved>,
    /// Each cycle once, as the labels around it, the first repeated at the end:
    /// `["a", "b", "a"]`.
    pub cycles: Vec<Vec<String>>,
    /// More than [`MAX_STEPS`] steps: the rest were not followed.
    pub truncated: bool,
}

/// The commands steps are looked up among, indexed once.
/// Command indices by type, then by file (or folder).
type ByPlace<'a> = HashMap<&'a str, HashMap<&'a str, Vec<usize>>>;

pub struct Index<'a> {
    commands: &'a [CommandItem],
    by_file: ByPlace<'a>,
    by_folder: ByPlace<'a>,
}

impl<'a> Index<'a> {
    pub fn new(commands: &'a [CommandItem]) -> Index<'a> {
        let mut by_file: ByPlace<'a> = HashMap::new();
        let mut by_folder: ByPlace<'a> = HashMap::new();
        for (i, c) in commands.iter().enumerate() {
            by_file
                .entry(c.kind.as_str())
                .or_default()
                .entry(c.file_path.as_str())
                .or_default()
                .push(i);
            by_folder
                .entry(c.kind.as_str())
                .or_default()
                .entry(c.cwd.as_str())
                .or_default()
                .push(i);
        }
        Index {
            commands,
            by_file,
            by_folder,
        }
    }

    /// The commands `step` of `from` names: one, or several for a wildcard (`lint:*`); none
    /// when it names nothing discovered.
    pub fn resolve(&self, from: &CommandItem, step: &StepRef) -> Vec<&'a CommandItem> {
        if let StepScope::Named { at } = &step.scope {
            // A sequence's step: the one command `ct run NAME` would run from there; an
            // ambiguous or unknown name resolves to nothing (shown as a step nobody could check).
            let at = crate::names::At::root(at);
            return crate::names::resolve(self.commands, at, &step.name)
                .map(|c| vec![c])
                .unwrap_or_default();
        }
        let candidates: &[usize] = match &step.scope {
            StepScope::SameFile => self.in_file(&from.kind, &from.file_path),
            StepScope::SameFolder => place(&self.by_folder, &from.kind, &from.cwd),
            StepScope::File { kind, file } => self.in_file(kind, &file.to_string_lossy()),
            StepScope::Named { .. } => &[],
        };
        let cands = || candidates.iter().map(|&i| &self.commands[i]);
        let name = step.name.as_str();
        let named: Vec<&CommandItem> = cands().filter(|c| names(c, name)).collect();
        if !named.is_empty() {
            return named.into_iter().take(1).collect();
        }
        if name.contains('*') {
            // mise `depends = ["lint:*"]`: every task it matches.
            return cands()
                .filter(|c| commandtree_core::text::wildcard_match(name, c.id_name()))
                .collect();
        }
        // A Taskfile `release:*` task runs for `release:x`.
        if let Some(c) = cands().find(|c| {
            c.id_name().contains('*') && commandtree_core::text::wildcard_match(c.id_name(), name)
        }) {
            return vec![c];
        }
        // VS Code's detected `npm: script` (`npm: script - path`) task is the npm script.
        let tasks_file = match &step.scope {
            StepScope::File { kind, file } if kind == "vscode" => Some(file.clone()),
            StepScope::SameFile if from.command_type() == Some(CommandType::Vscode) => {
                Some(PathBuf::from(&from.file_path))
            }
            _ => None,
        };
        if let Some(tasks) = tasks_file
            && let Some(script) = name.strip_prefix("npm: ")
        {
            let (script, sub) = match script.split_once(" - ") {
                Some((s, p)) => (s, Some(p)),
                None => (script, None),
            };
            let folder = vscode_folder(&tasks);
            let pkg = match sub {
                Some(p) => folder.join(p).join("package.json"),
                None => folder.join("package.json"),
            };
            let pkg = pkg.to_string_lossy();
            return self
                .in_file("npm", &pkg)
                .iter()
                .map(|&i| &self.commands[i])
                .filter(|c| names(c, script))
                .take(1)
                .collect();
        }
        Vec::new()
    }

    fn in_file(&self, kind: &str, file: &str) -> &[usize] {
        place(&self.by_file, kind, file)
    }

    /// The closure of `item`: its steps, their steps, and so on.
    pub fn closure(&self, item: &CommandItem) -> Closure<'a> {
        let mut walk = Walk {
            index: self,
            out: Closure::default(),
            seen: HashSet::new(),
            path: vec![(item.id.as_str().to_string(), item.label.clone())],
            cycles: HashSet::new(),
        };
        walk.seen.insert(item.id.clone());
        walk.visit(item, &[]);
        walk.out
    }
}

fn place<'m>(map: &'m ByPlace<'_>, kind: &str, at: &str) -> &'m [usize] {
    map.get(kind)
        .and_then(|m| m.get(at))
        .map_or(&[], Vec::as_slice)
}

/// Whether `c` answers to `name` in its runner's namespace: its id name (`db::migrate`,
/// `docs:serve`, `db:seed.sh`), its label (`db:seed`), or an alias.
fn names(c: &CommandItem, name: &str) -> bool {
    c.id_name() == name || c.label == name || c.aliases.iter().any(|a| a == name)
}

/// The folder VS Code runs a `.vscode/*.json` file's tasks in: the one holding `.vscode`.
fn vscode_folder(file: &Path) -> PathBuf {
    let dir = file.parent().unwrap_or(Path::new("."));
    if dir.file_name().is_some_and(|n| n == ".vscode") {
        dir.parent().unwrap_or(dir).to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

struct Walk<'i, 'a> {
    index: &'i Index<'a>,
    out: Closure<'a>,
    /// Commands already reached (the root included).
    seen: HashSet<String>,
    /// The commands from the root to the one being visited: (id, label).
    path: Vec<(String, String)>,
    /// Cycles met, by their sorted ids, so each is reported once.
    cycles: HashSet<Vec<String>>,
}

impl<'a> Walk<'_, 'a> {
    fn visit(&mut self, from: &CommandItem, via: &[String]) {
        for step in &from.steps {
            let found = self.index.resolve(from, step);
            if found.is_empty() {
                let u = Unresolved {
                    name: step.name.clone(),
                    how: step.how,
                    via: via.to_vec(),
                };
                if step.must_resolve && !self.out.unresolved.contains(&u) {
                    self.out.unresolved.push(u);
                }
                continue;
            }
            for c in found {
                if let Some(at) = self.path.iter().position(|(id, _)| *id == c.id) {
                    let mut ring: Vec<String> =
                        self.path[at..].iter().map(|(_, l)| l.clone()).collect();
                    ring.push(c.label.clone());
                    let mut key: Vec<String> =
                        self.path[at..].iter().map(|(id, _)| id.clone()).collect();
                    key.sort();
                    if self.cycles.insert(key) {
                        self.out.cycles.push(ring);
                    }
                    continue;
                }
                if !self.seen.insert(c.id.clone()) {
                    continue;
                }
                if self.out.steps.len() >= MAX_STEPS {
                    self.out.truncated = true;
                    return;
                }
                self.out.steps.push(Step {
                    item: c,
                    how: step.how,
                    via: via.to_vec(),
                });
                if !c.steps.is_empty() {
                    let mut deeper = via.to_vec();
                    deeper.push(c.label.clone());
                    self.path.push((c.id.clone(), c.label.clone()));
                    self.visit(c, &deeper);
                    self.path.pop();
                }
            }
        }
    }
}

/// The closure of `item` among `commands`.
pub fn of<'a>(commands: &'a [CommandItem], item: &CommandItem) -> Closure<'a> {
    Index::new(commands).closure(item)
}

/// What `step`'s own warning makes of the command that runs it ("Danger: runs `clean`, which
/// deletes ..."); `None` when the step has no warning of its own.
pub fn step_text(step: &Step<'_>) -> Option<String> {
    let w = step.item.own_warning()?.trim();
    if w.is_empty() {
        return None;
    }
    if commandtree_core::sources::docker::is_merged_override(step.item) {
        // Not a step that runs: the file Compose merges into the command's own.
        let file = Path::new(&step.item.file_path)
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        return Some(commandtree_risk::merged_warning(&file, w));
    }
    Some(commandtree_risk::step_warning(
        &step.item.label,
        &step.via,
        w,
    ))
}

/// Adds to each command's `security_warning` the warnings of the steps it runs (and keeps them
/// apart in `step_warning`, so the gate asks about each once). Call it after the commands'
/// own warnings are final (static findings and the model's); calling it again after some
/// changed gives what one call on the changed list gives.
pub fn annotate(commands: &mut [CommandItem]) {
    let updates: Vec<(usize, Option<String>)> = {
        let index = Index::new(commands);
        commands
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.steps.is_empty() || c.step_warning.is_some())
            .filter_map(|(i, c)| {
                let text = derived_warning(&index.closure(c));
                (text != c.step_warning).then_some((i, text))
            })
            .collect()
    };
    for (i, text) in updates {
        commands[i].set_step_warning(text);
    }
}

/// The warning a command gets from its closure: each warned step's, the most severe first, at
/// most [`SHOWN`] named.
fn derived_warning(closure: &Closure<'_>) -> Option<String> {
    let mut texts: Vec<String> = closure.steps.iter().filter_map(step_text).collect();
    if texts.is_empty() {
        return None;
    }
    let rank = |t: &String| {
        if t.starts_with("Danger:") {
            0
        } else if t.starts_with("Caution:") {
            1
        } else {
            2
        }
    };
    texts.sort_by_key(rank);
    let more = texts.len().saturating_sub(SHOWN);
    texts.truncate(SHOWN);
    let mut out = texts.join("; ");
    if more > 0 {
        out.push_str(&format!("; and {more} more steps with warnings"));
    }
    Some(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::Path;

    /// A command of `kind` in `file` whose runner runs `steps` (each must resolve).
    pub(crate) fn cmd(
        kind: &str,
        file: &str,
        name: &str,
        steps: &[(&str, StepHow)],
    ) -> CommandItem {
        let mut c = CommandItem::new(kind, Path::new(file), name, format!("{kind} {name}"));
        c.steps = steps
            .iter()
            .map(|(n, how)| StepRef::new(*n, *how, true))
            .collect();
        c
    }

    fn labels(c: &Closure<'_>) -> Vec<(String, Vec<String>)> {
        c.steps
            .iter()
            .map(|s| (s.item.label.clone(), s.via.clone()))
            .collect()
    }

    #[test]
    fn steps_resolve_transitively_in_the_same_file_with_their_chain() {
        let p = StepHow::Prerequisite;
        let cs = vec![
            cmd("make", "/w/Makefile", "build", &[("lint", p), ("gen.o", p)]),
            cmd("make", "/w/Makefile", "lint", &[("clean", p)]),
            cmd("make", "/w/Makefile", "clean", &[]),
            // Same name, other file: never a step of /w/Makefile's targets.
            cmd("make", "/w/sub/Makefile", "gen.o", &[]),
        ];
        let c = of(&cs, &cs[0]);
        assert_eq!(
            labels(&c),
            [
                ("lint".to_string(), vec![]),
                ("clean".to_string(), vec!["lint".to_string()])
            ]
        );
        assert_eq!(
            c.unresolved,
            [Unresolved {
                name: "gen.o".into(),
                how: p,
                via: vec![]
            }]
        );
        assert!(c.cycles.is_empty() && !c.truncated);
    }

    #[test]
    fn cycles_end_and_are_reported_once() {
        let p = StepHow::Prerequisite;
        let cs = vec![
            cmd("just", "/w/justfile", "a", &[("b", p)]),
            cmd("just", "/w/justfile", "b", &[("a", p), ("c", p)]),
            cmd("just", "/w/justfile", "c", &[("c", p), ("b", p)]),
        ];
        let c = of(&cs, &cs[0]);
        assert_eq!(
            labels(&c),
            [
                ("b".to_string(), vec![]),
                ("c".to_string(), vec!["b".to_string()])
            ]
        );
        assert_eq!(
            c.cycles,
            [
                vec!["a".to_string(), "b".into(), "a".into()],
                vec!["c".to_string(), "c".into()],
                vec!["b".to_string(), "c".into(), "b".into()],
            ]
        );
    }

    #[test]
    fn scopes_wildcards_aliases_and_vscode_npm_tasks() {
        let mut build = cmd("mise", "/w/mise.toml", "build", &[]);
        build.steps = vec![
            StepRef::new("lint:*", StepHow::Prerequisite, true).scope(StepScope::SameFolder),
            StepRef::new("d", StepHow::Call, true).scope(StepScope::SameFolder),
        ];
        let mut deploy = cmd("mise", "/w/mise-tasks/deploy", "deploy", &[]).cwd(Path::new("/w"));
        deploy.aliases = vec!["d".into()];
        let cs = vec![
            build,
            cmd("mise", "/w/mise.toml", "lint:a", &[]),
            cmd("mise", "/w/mise.toml", "lint:b", &[]),
            deploy,
            cmd(
                "taskfile",
                "/w/Taskfile.yml",
                "go",
                &[("release:x", StepHow::Call)],
            ),
            cmd("taskfile", "/w/Taskfile.yml", "release:*", &[]),
            cmd(
                "vscode",
                "/w/.vscode/tasks.json",
                "all",
                &[("npm: test - web", StepHow::Prerequisite)],
            ),
            cmd("npm", "/w/web/package.json", "test", &[]),
        ];
        let got: Vec<String> = of(&cs, &cs[0])
            .steps
            .iter()
            .map(|s| s.item.id.clone())
            .collect();
        assert_eq!(
            got,
            [
                "mise:/w/mise.toml:lint:a",
                "mise:/w/mise.toml:lint:b",
                "mise:/w/mise-tasks/deploy:deploy"
            ]
        );
        assert_eq!(
            labels(&of(&cs, &cs[4])),
            [("release:*".to_string(), vec![])]
        );
        assert_eq!(
            of(&cs, &cs[6]).steps[0].item.id,
            "npm:/w/web/package.json:test"
        );
    }

    #[test]
    fn step_warnings_reach_the_commands_that_run_them_once() {
        let p = StepHow::Prerequisite;
        let mut cs = vec![
            cmd("make", "/w/Makefile", "build", &[("lint", p)]),
            cmd("make", "/w/Makefile", "lint", &[("clean", p)]),
            cmd("make", "/w/Makefile", "clean", &[]),
        ];
        cs[2].security_warning = Some("Danger: deletes the home folder (line 2: rm -rf ~)".into());
        cs[0].security_warning = Some("Caution: runs as root (sudo) (line 2)".into());
        annotate(&mut cs);
        assert_eq!(
            cs[0].security_warning.as_deref(),
            Some(
                "Caution: runs as root (sudo) (line 2); Danger: runs `clean` (through `lint`), which deletes the home folder (line 2: rm -rf ~)"
            )
        );
        assert_eq!(
            cs[0].own_warning(),
            Some("Caution: runs as root (sudo) (line 2)")
        );
        assert_eq!(
            cs[1].security_warning.as_deref(),
            Some("Danger: runs `clean`, which deletes the home folder (line 2: rm -rf ~)")
        );
        assert_eq!(cs[1].own_warning(), None);
        // Annotating again changes nothing; a step that lost its warning takes it away.
        let before = cs.clone();
        annotate(&mut cs);
        assert_eq!(cs, before);
        cs[2].security_warning = None;
        annotate(&mut cs);
        assert_eq!(
            cs[0].security_warning.as_deref(),
            Some("Caution: runs as root (sudo) (line 2)")
        );
        assert_eq!(cs[1].security_warning, None);
    }

    /// `t0` needs `t1`, which needs `t2`, ... up to `t{n-1}`, which needs `t{n}` (not there).
    pub(crate) fn chain(n: usize) -> Vec<CommandItem> {
        (0..n)
            .map(|i| {
                let next = format!("t{}", i + 1);
                cmd(
                    "make",
                    "/w/Makefile",
                    &format!("t{i}"),
                    &[(&next, StepHow::Prerequisite)],
                )
            })
            .collect()
    }

    #[test]
    fn a_long_chain_is_cut_at_the_limit() {
        let cs = chain(MAX_STEPS + 10);
        let c = of(&cs, &cs[0]);
        assert_eq!(c.steps.len(), MAX_STEPS);
        assert!(c.truncated);
    }
}
