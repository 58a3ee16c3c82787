//! Make targets: `Makefile`, `makefile`, `GNUmakefile`.
//!
//! A static reading of the file, close to how GNU make splits lines: `\` continuations, `#`
//! comments (not `\#`, not inside `$(...)`), recipe lines (the recipe prefix in rule context),
//! `define ... endef` bodies, directives and every form of variable assignment are told apart, so
//! only real rule targets become commands. Nothing is evaluated: targets built from variables
//! (`$(BIN):`) are not listed, unless declared phony and named by values set outside every
//! conditional (`.PHONY: bin/gh$(EXE)` with `EXE =`: `bin/gh`).
//!
//! `include`, `-include` and `sinclude` are followed (through `file.fs`) when their paths are
//! literal, or `$(VAR)`/`${VAR}` of a variable set to a literal in the files read so far; paths are
//! relative to the Makefile's folder, where make runs, and `*` works in the file name. Included
//! targets are listed on the including Makefile, at the line of its `include`, and know the file
//! and line that define them (`CommandItem::defined_in`), where their text is read. A catch-all
//! `%: common-%` rule makes every `common-X` target runnable as `X`, so `X` is listed too.
//!
//! Each target's steps are its prerequisites (from every rule naming it; a prerequisite may be a
//! plain file, so one that names no listed target is not an error) and the targets its recipe
//! asks this same Makefile for (`$(MAKE) x`, `make x`; not `-C dir` or `-f other`).
//!
//! Descriptions follow the self-documenting help convention: `target: deps ## text`, a
//! `## text` line directly above the rule (`.PHONY` lines in between are fine), or
//! `.PHONY: target ## text` declaring that one target; a one-`#` comment directly above the rule
//! describes it only when it starts with the target's own name (`#? binary: Build the binary`, the
//! form a `sed -n 's/^#?//p'` help target prints), since a plain comment there is as often a note
//! or a disabled line.

use super::calls::{make_call, simple_commands};
use super::common::{self, IncludeGuard, Refusal, normalize_path, script_steps};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, Definition, StepHow, StepRef, StepScope};
use crate::text;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The file names GNU make tries, in order, when no `-f` is given.
const DEFAULT_NAMES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];

/// Directives that end a rule context and never start a rule.
const DIRECTIVES: &[&str] = &[
    "include", "-include", "sinclude", "vpath", "undefine", "load", "-load", "export", "unexport",
    "endef",
];

/// Conditionals may sit inside a recipe without ending it.
const CONDITIONALS: &[&str] = &["ifeq", "ifneq", "ifdef", "ifndef", "else", "endif"];

const MODIFIERS: &[&str] = &["export", "unexport", "override", "private"];

#[derive(Clone)]
struct Target {
    name: String,
    line: usize,
    description: Option<String>,
    /// The included file that defines it and the line there; `None` for the Makefile's own.
    defined_in: Option<(PathBuf, usize)>,
    /// Prerequisites, from every rule for it, in order.
    prereqs: Vec<String>,
    /// Targets its recipes run with `$(MAKE) x`.
    calls: Vec<String>,
    /// Its recipe lines as written (the recipe prefix taken off), with their file lines.
    recipe: Vec<(usize, String)>,
    /// Every prerequisite word as written, files and variables included (`$(GOLANGCI_LINT)`).
    raw_prereqs: Vec<String>,
    /// Targets of this Makefile its recipe runs with variables set (`$(MAKE) x PREFIX=..`).
    calls_with: Vec<(String, Overrides)>,
    /// Targets its recipe runs without setting variables.
    plain_calls: Vec<String>,
}

impl Target {
    fn new(name: &str, line: usize, description: Option<String>) -> Self {
        Target {
            name: name.to_string(),
            line,
            description,
            defined_in: None,
            prereqs: Vec::new(),
            calls: Vec::new(),
            recipe: Vec::new(),
            raw_prereqs: Vec::new(),
            calls_with: Vec::new(),
            plain_calls: Vec::new(),
        }
    }

    /// What a later rule for the same target adds: make merges the prerequisites of every
    /// rule, and runs each double-colon rule's recipe.
    fn merge(&mut self, other: &Target) {
        for p in &other.prereqs {
            if !self.prereqs.contains(p) {
                self.prereqs.push(p.clone());
            }
        }
        for c in &other.calls {
            if !self.calls.contains(c) {
                self.calls.push(c.clone());
            }
        }
        for p in &other.raw_prereqs {
            if !self.raw_prereqs.contains(p) {
                self.raw_prereqs.push(p.clone());
            }
        }
        self.recipe.extend(other.recipe.iter().cloned());
        self.calls_with.extend(other.calls_with.iter().cloned());
        self.plain_calls.extend(other.plain_calls.iter().cloned());
    }

    fn steps(&self) -> Vec<StepRef> {
        let mut out: Vec<StepRef> = self
            .prereqs
            .iter()
            .map(|p| StepRef::new(p, StepHow::Prerequisite, false))
            .collect();
        for c in &self.calls {
            // A dotted or path-like name is most likely a file built by a pattern rule.
            let must = is_command_name(c) && !c.contains('.');
            out.push(StepRef::new(c, StepHow::Call, must));
        }
        out
    }
}

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let mut out = Parsed::default();
    let (targets, all) = gather(file, &mut out);
    let prefix = make_prefix(file);
    let recipes: HashMap<String, Vec<(usize, String)>> = targets
        .iter()
        .map(|t| (t.name.clone(), t.recipe.clone()))
        .collect();
    for t in targets {
        let command = format!("{prefix} {}", text::sh_word(&t.name));
        let mut steps = t.steps();
        let code = run_code(&t, &all.seen, &all.file_rules, &all.raw_vars, &recipes);
        // A call whose values change the callee's recipe is read into this one's code instead.
        for via in code.iter().filter_map(|c| c.via.as_deref()) {
            if let Some((name, _)) = via.split_once(' ')
                && t.calls_with.iter().any(|(n, _)| n == name)
                && !t.plain_calls.iter().any(|n| n == name)
            {
                steps.retain(|s| !(s.name == name && s.how == StepHow::Call));
            }
        }
        for c in &code {
            if c.via.is_none() {
                for s in dir_calls(file, &c.code) {
                    if !steps.contains(&s) {
                        steps.push(s);
                    }
                }
            }
            // The scripts a file prerequisite's recipe runs (`test: $(SHELL_TARGETS)`, whose
            // rule runs `urchin test/$suite`) run as part of this target too.
            for s in code_scripts(file, &c.code) {
                if !steps.contains(&s) {
                    steps.push(s);
                }
            }
        }
        let mut item = CommandItem::new("make", file.path, &t.name, command)
            .opt_description(t.description)
            .line(t.line)
            .private(t.name.starts_with('_'));
        item.steps = steps;
        item.run_code = code;
        item.defined_in = t.defined_in.map(|(path, line)| Definition {
            file: path,
            line: u32::try_from(line).ok(),
            root: file.root.to_path_buf(),
        });
        out.commands.push(item);
    }
    sphinx_goals(file, &prefix, &mut out);
    out
}

/// The goals Sphinx's own Makefile hands to `sphinx-build -M` through its catch-all rule
/// (`%: Makefile` running `$(SPHINXBUILD) -M $@ ...`): the ones a person runs, `make html`
/// first, listed as make would run them, at that rule.
fn sphinx_goals(file: &SourceFile<'_>, prefix: &str, out: &mut Parsed) {
    const GOALS: &[(&str, &str)] = &[
        ("html", "Build the HTML documentation (sphinx-build)"),
        (
            "linkcheck",
            "Check the documentation's links (sphinx-build)",
        ),
        ("clean", "Remove the built documentation (sphinx-build)"),
    ];
    let lines: Vec<&str> = file.content.lines().collect();
    let Some(at) = lines.iter().enumerate().position(|(i, l)| {
        l.starts_with("%:")
            && lines[i + 1..]
                .iter()
                .take_while(|r| r.starts_with('\t'))
                .any(|r| r.contains("-M $@") && r.to_ascii_uppercase().contains("SPHINX"))
    }) else {
        return;
    };
    for (goal, description) in GOALS {
        if out.commands.iter().any(|c| c.label == *goal) {
            continue;
        }
        let command = format!("{prefix} {goal}");
        out.commands.push(
            CommandItem::new("make", file.path, goal, command)
                .description(*description)
                .line(at + 1),
        );
    }
}

/// The project's scripts a recipe line runs (make runs recipes in the Makefile's folder); a
/// `for` loop over literal words runs once for each (`for suite in fast; do urchin
/// test/$suite; done`).
fn code_scripts(file: &SourceFile<'_>, code: &str) -> Vec<StepRef> {
    let code = code
        .trim_start()
        .trim_start_matches(['@', '-', '+', ' ', '\t']);
    script_steps(
        file,
        &unroll_for(&make_vars_to_shell(code)),
        file.dir(),
        false,
    )
}

/// What `make VAR=x target…`, run by another runner (an npm script) in the folder of
/// `makefile`, runs. A target whose recipe the values leave as it is, is a step of its own; one
/// whose recipe they change gives the scripts that recipe then runs, with its prerequisites. A
/// name made at run time (`test-*` for `test-$shell`) matches the targets and the rules written
/// with variables (`$(SHELL_TARGETS):`) it can be.
pub(crate) fn call_steps(
    file: &SourceFile<'_>,
    makefile: &Path,
    targets: &[String],
    overrides: &[(String, String)],
) -> Vec<StepRef> {
    const MAX_MATCHES: usize = 16;
    let Some(content) = file.fs.read(makefile) else {
        return Vec::new();
    };
    let mf = SourceFile {
        path: makefile,
        content: &content,
        executable: false,
        root: file.root,
        fs: file.fs,
    };
    let (listed, all) = gather(&mf, &mut Parsed::default());
    let mut with = all.raw_vars.clone();
    for (k, v) in overrides {
        with.insert(k.clone(), v.clone());
    }
    let recipes: HashMap<String, Vec<(usize, String)>> = listed
        .iter()
        .map(|t| (t.name.clone(), t.recipe.clone()))
        .collect();
    let scope = || StepScope::File {
        kind: "make".into(),
        file: makefile.to_path_buf(),
    };
    let mut out: Vec<StepRef> = Vec::new();
    let push = |s: StepRef, out: &mut Vec<StepRef>| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for name in targets {
        let wild = name.contains('*');
        let matched: Vec<&Target> = listed
            .iter()
            .filter(|t| {
                if wild {
                    text::wildcard_match(name, &t.name)
                } else {
                    t.name == *name
                }
            })
            .take(MAX_MATCHES)
            .collect();
        for t in &matched {
            let code = run_code(t, &all.seen, &all.file_rules, &with, &recipes);
            if code == run_code(t, &all.seen, &all.file_rules, &all.raw_vars, &recipes) {
                push(
                    StepRef::new(&t.name, StepHow::Call, true).scope(scope()),
                    &mut out,
                );
                continue;
            }
            for p in &t.prereqs {
                push(
                    StepRef::new(p, StepHow::Prerequisite, false).scope(scope()),
                    &mut out,
                );
            }
            for c in &code {
                for s in code_scripts(&mf, &c.code) {
                    push(s, &mut out);
                }
            }
        }
        if !wild || !matched.is_empty() {
            continue;
        }
        // `$(SHELL_TARGETS):` where SHELL_TARGETS names `test-sh test-bash …`.
        let mut rules: Vec<(&String, &Target)> = all
            .file_rules
            .iter()
            .filter(|(k, _)| k.contains('$'))
            .collect();
        rules.sort_by(|a, b| a.0.cmp(b.0));
        for (key, rule) in rules {
            let names = expand_recipe(key, &with, "");
            for target in names
                .split_whitespace()
                .filter(|w| !w.contains('$') && text::wildcard_match(name, w))
                .take(MAX_MATCHES)
            {
                for (_, line) in &rule.recipe {
                    for s in code_scripts(&mf, &expand_recipe(line, &with, target)) {
                        push(s, &mut out);
                    }
                }
            }
        }
    }
    out
}

/// The Makefile's targets (its includes' too, and those a catch-all rule exposes) and what
/// else reading it gathered.
fn gather(file: &SourceFile<'_>, out: &mut Parsed) -> (Vec<Target>, Collected) {
    let main = scan(file.content);
    let mut all = Collected {
        seen: main.targets.iter().map(|t| t.name.clone()).collect(),
        targets: main.targets,
        vars: main.vars,
        raw_vars: main.raw_vars,
        file_rules: main.file_rules,
        catch_all: main.catch_all,
        guard: IncludeGuard::new(file.path),
    };
    follow_includes(file, &main.includes, None, 0, &mut all, out);
    // Make sets `CURDIR` to the folder it runs in, the Makefile's, where its recipes start:
    // `rm -rf $(CURDIR)/bin` is the project's `bin/`, never `/bin` (kind's
    // `REPO_ROOT:=${CURDIR}`).
    all.raw_vars
        .entry("CURDIR".to_string())
        .or_insert_with(|| ".".to_string());
    let mut targets = std::mem::take(&mut all.targets);
    for prefix in &all.catch_all {
        let exposed: Vec<Target> = targets
            .iter()
            .filter_map(|t| {
                let short = t.name.strip_prefix(prefix.as_str())?;
                (!short.is_empty() && !all.seen.contains(short)).then(|| Target {
                    name: short.to_string(),
                    ..t.clone()
                })
            })
            .collect();
        for t in exposed {
            if all.seen.insert(t.name.clone()) {
                targets.push(t);
            }
        }
    }
    // The `FORCE:` idiom, an empty rule named in capitals that other rules depend on, only
    // makes them always run: nothing to run by itself. (An empty `lint:` that `check` depends
    // on is a placeholder a person may still run.)
    let forcing: Vec<String> = targets
        .iter()
        .filter(|t| {
            t.name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                && t.recipe.is_empty()
                && t.raw_prereqs.is_empty()
                && t.description.is_none()
                && targets
                    .iter()
                    .chain(all.file_rules.values())
                    .any(|o| o.raw_prereqs.contains(&t.name))
        })
        .map(|t| t.name.clone())
        .collect();
    targets.retain(|t| !forcing.contains(&t.name));
    (targets, all)
}

struct Collected {
    targets: Vec<Target>,
    seen: HashSet<String>,
    vars: HashMap<String, String>,
    raw_vars: HashMap<String, String>,
    file_rules: HashMap<String, Target>,
    catch_all: Vec<String>,
    guard: IncludeGuard,
}

fn follow_includes(
    file: &SourceFile<'_>,
    includes: &[Include],
    root_line: Option<usize>,
    depth: usize,
    all: &mut Collected,
    out: &mut Parsed,
) {
    let dir = file.dir();
    for inc in includes {
        let line = root_line.unwrap_or(inc.line);
        for word in &inc.words {
            let Some(rel) = expand_vars(word, &all.vars) else {
                continue;
            };
            let targets = include_targets(file, dir, &rel);
            if targets.is_empty() {
                if !inc.optional && !rel.contains('*') {
                    out.warn(
                        file.path,
                        Some(inc.line).filter(|_| root_line.is_none()),
                        format!("included file `{rel}` not found"),
                    );
                }
                continue;
            }
            for target in targets {
                if let Err(r) = all.guard.check(&target, depth) {
                    if let Refusal::Cycle | Refusal::TooManyFiles { first: false } = r {
                        continue;
                    }
                    out.warn(
                        file.path,
                        Some(line),
                        format!(
                            "`{}` is nested too deeply or too many; not followed",
                            target.display()
                        ),
                    );
                    continue;
                }
                let Some(content) = file.fs.read(&target) else {
                    continue;
                };
                all.guard.count_file();
                let sub = scan(&content);
                for (k, v) in sub.vars {
                    all.vars.entry(k).or_insert(v);
                }
                for (k, v) in sub.raw_vars {
                    all.raw_vars.entry(k).or_insert(v);
                }
                for (k, mut v) in sub.file_rules {
                    v.defined_in = Some((target.clone(), v.line));
                    all.file_rules.entry(k).or_insert(v);
                }
                all.catch_all.extend(sub.catch_all);
                for mut t in sub.targets {
                    if all.seen.insert(t.name.clone()) {
                        t.defined_in = Some((target.clone(), t.line));
                        t.line = line;
                        all.targets.push(t);
                    } else if let Some(first) = all.targets.iter_mut().find(|f| f.name == t.name) {
                        first.merge(&t);
                    }
                }
                all.guard.enter(&target);
                follow_includes(file, &sub.includes, Some(line), depth + 1, all, out);
                all.guard.leave();
            }
        }
    }
}

/// The files an include word names: one path, or the matches of a `*` in its file name.
fn include_targets(file: &SourceFile<'_>, dir: &Path, rel: &str) -> Vec<PathBuf> {
    if rel.starts_with('~') || rel.is_empty() {
        return Vec::new();
    }
    let path = normalize_path(&dir.join(rel));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !name.contains('*') {
        return if file.fs.is_file(&path) {
            vec![path]
        } else {
            Vec::new()
        };
    }
    if path
        .parent()
        .is_some_and(|p| p.to_string_lossy().contains('*'))
    {
        return Vec::new();
    }
    let (head, tail) = name.split_once('*').unwrap_or((name, ""));
    if tail.contains('*') {
        return Vec::new();
    }
    let parent = path.parent().unwrap_or(dir);
    file.fs
        .list_dir(parent)
        .into_iter()
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.len() >= head.len() + tail.len() && n.starts_with(head) && n.ends_with(tail)
            }) && file.fs.is_file(p)
        })
        .collect()
}

/// `$(VAR)`/`${VAR}` replaced by the literal values known; `None` when one is unknown or the
/// word holds another function.
fn expand_vars(word: &str, vars: &HashMap<String, String>) -> Option<String> {
    let mut out = String::new();
    let mut rest = word;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let close = match after.chars().next() {
            Some('(') => ')',
            Some('{') => '}',
            _ => return None,
        };
        let end = after.find(close)?;
        let name = &after[1..end];
        out.push_str(vars.get(name)?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// `make`, or `make -f NAME` when make would not pick this file by itself in its folder.
fn make_prefix(file: &SourceFile<'_>) -> String {
    let name = &*file.file_name();
    let rank = DEFAULT_NAMES.iter().position(|n| *n == name);
    let shadowed = match rank {
        None => true,
        Some(rank) => {
            // Listing the folder compares exact names, which stays right on case-insensitive
            // file systems where `makefile` would also "exist" beside `Makefile`.
            let siblings = file.fs.list_dir(file.dir());
            DEFAULT_NAMES[..rank].iter().any(|earlier| {
                siblings
                    .iter()
                    .any(|s| s.file_name().is_some_and(|n| n == *earlier) && file.fs.is_file(s))
            })
        }
    };
    if shadowed {
        format!("make -f {}", text::sh_word(name))
    } else {
        "make".to_string()
    }
}

/// Rule targets users can run, in file order.
struct Include {
    words: Vec<String>,
    optional: bool,
    line: usize,
}

struct Scan {
    targets: Vec<Target>,
    includes: Vec<Include>,
    /// Variables set to literals (no `$`), for include paths.
    vars: HashMap<String, String>,
    /// Every variable as written (`define` bodies too), for reading recipes.
    raw_vars: HashMap<String, String>,
    /// Rules whose targets are files or built from variables (`$(BIN):`, `main.o:`): not
    /// commands, but their recipes run when a command needs them.
    file_rules: HashMap<String, Target>,
    /// Prefixes of catch-all rules `%: PREFIX%`.
    catch_all: Vec<String>,
}

fn scan(content: &str) -> Scan {
    let physical: Vec<&str> = content.split('\n').collect();
    let mut includes: Vec<Include> = Vec::new();
    let mut vars: HashMap<String, String> = HashMap::new();
    let mut catch_all: Vec<String> = Vec::new();
    let mut targets: Vec<Target> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut phony: HashSet<String> = HashSet::new();
    let mut recipe_prefix = '\t';
    let mut in_rule = false;
    let mut define_depth = 0usize;
    let mut define_name: Option<String> = None;
    let mut define_body: Vec<&str> = Vec::new();
    let mut raw_vars: HashMap<String, String> = HashMap::new();
    // Assignments outside every conditional: the values that hold when no branch is taken
    // (`EXE =` before `ifeq ($(GOOS),windows) EXE = .exe endif`).
    let mut plain_vars: HashMap<String, String> = HashMap::new();
    let mut conditional_depth = 0usize;
    let mut file_rules: HashMap<String, Target> = HashMap::new();
    let mut pending: Option<String> = None;
    // The last one-`#` comment line, when the lines since are only comments and `.PHONY`.
    let mut named: Option<String> = None;
    let mut phony_help: HashMap<String, String> = HashMap::new();
    // The targets the current rule names (their indices): its recipe lines are theirs.
    let mut current: Vec<usize> = Vec::new();
    // The file rules the current rule names.
    let mut current_files: Vec<String> = Vec::new();

    let mut i = 0;
    while i < physical.len() {
        let start = i;
        // A line continues while it ends in an odd number of backslashes.
        while i + 1 < physical.len() && ends_with_continuation(physical[i]) {
            i += 1;
        }
        let parts = &physical[start..=i];
        i += 1;
        let line_no = start + 1;
        let first = parts[0];

        if define_depth > 0 {
            let mut ended = false;
            if !first.starts_with(recipe_prefix) {
                let trimmed = first.trim_start();
                if first_word(trimmed) == "endef" {
                    define_depth -= 1;
                    ended = define_depth == 0;
                } else if first_word(strip_modifiers(trimmed).0) == "define" {
                    define_depth += 1;
                }
            }
            if ended {
                if let Some(name) = define_name.take() {
                    raw_vars.insert(name, define_body.join("\n"));
                }
                define_body.clear();
            } else {
                define_body.extend(parts.iter().copied());
            }
            continue;
        }
        if in_rule && first.starts_with(recipe_prefix) {
            (pending, named) = (None, None);
            if !current.is_empty() {
                let (plain, with) = recipe_calls_split(parts, recipe_prefix);
                let mut calls = plain.clone();
                for (n, _) in &with {
                    if !calls.contains(n) {
                        calls.push(n.clone());
                    }
                }
                for &at in &current {
                    let t = &mut targets[at];
                    add_calls(t, &calls);
                    t.calls_with.extend(with.iter().cloned());
                    for n in &plain {
                        if !t.plain_calls.contains(n) {
                            t.plain_calls.push(n.clone());
                        }
                    }
                }
            }
            if !current.is_empty() || !current_files.is_empty() {
                let text = recipe_text(parts, recipe_prefix);
                for &at in &current {
                    targets[at].recipe.push((line_no, text.clone()));
                }
                for f in &current_files {
                    if let Some(r) = file_rules.get_mut(f) {
                        r.recipe.push((line_no, text.clone()));
                    }
                }
            }
            continue;
        }

        let joined = join_continued(parts);
        let (code, comment) = split_comment(&joined);
        let code = code.trim();
        if code.is_empty() {
            pending = comment.and_then(help_text).map(|t| match pending.take() {
                Some(p) => format!("{p} {t}"),
                None => t,
            });
            named = comment.and_then(named_text);
            continue;
        }

        let (rest, modified) = strip_modifiers(code);
        let word = first_word(rest);
        if word == "define" {
            define_depth += 1;
            define_name = rest[word.len()..]
                .trim()
                .trim_end_matches(['=', ':', '?', '+', '!'])
                .split_whitespace()
                .next()
                .map(str::to_string);
            define_body.clear();
            in_rule = false;
            (pending, named) = (None, None);
            continue;
        }
        if CONDITIONALS.contains(&word) || word.starts_with("ifeq(") || word.starts_with("ifneq(") {
            if word == "endif" {
                conditional_depth = conditional_depth.saturating_sub(1);
            } else if word.starts_with("if") {
                conditional_depth += 1;
            }
            (pending, named) = (None, None);
            continue;
        }
        let assigns_directive_name =
            matches!(classify(rest), Some(Line::Assign { name, .. }) if name == word);
        if matches!(word, "include" | "-include" | "sinclude")
            && !modified
            && !assigns_directive_name
        {
            includes.push(Include {
                words: split_words(rest[word.len()..].trim())
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
                optional: word != "include",
                line: line_no,
            });
        }
        if modified || DIRECTIVES.contains(&word) {
            if let Some(Line::Assign { name, value }) = classify(rest) {
                if name == ".RECIPEPREFIX" {
                    recipe_prefix = value.trim_start().chars().next().unwrap_or('\t');
                }
                record_literal(&mut vars, name, value);
                record_raw(&mut raw_vars, rest, name, value);
                if conditional_depth == 0 {
                    record_raw(&mut plain_vars, rest, name, value);
                }
            }
            in_rule = false;
            (pending, named) = (None, None);
            continue;
        }

        match classify(code) {
            Some(Line::Assign { name, value }) => {
                if name == ".RECIPEPREFIX" {
                    recipe_prefix = value.trim_start().chars().next().unwrap_or('\t');
                }
                record_literal(&mut vars, name, value);
                record_raw(&mut raw_vars, code, name, value);
                if conditional_depth == 0 {
                    record_raw(&mut plain_vars, code, name, value);
                }
                in_rule = false;
                (pending, named) = (None, None);
            }
            Some(Line::Rule {
                targets: names,
                prereqs,
            }) => {
                let inline_recipe =
                    find_top_level(prereqs, |c| c == ';').map(|i| &prereqs[i + 1..]);
                let prereqs = until_semicolon(prereqs);
                if find_top_level(prereqs, |c| c == '=').is_some() {
                    // `t: X = y` sets a target-specific variable; it defines no rule.
                    in_rule = false;
                    (pending, named) = (None, None);
                    continue;
                }
                in_rule = true;
                current.clear();
                current_files.clear();
                let names = names.trim().trim_end_matches('&');
                if names == "%"
                    && let [pre] = split_words(prereqs).as_slice()
                    && let Some(prefix) = pre.strip_suffix('%')
                    && !prefix.is_empty()
                    && is_command_name(prefix)
                {
                    catch_all.push(prefix.to_string());
                }
                let words = split_words(names);
                if words.iter().all(|w| w.starts_with('.')) {
                    if words.contains(&".PHONY") {
                        let declared = split_words(prereqs);
                        // `.PHONY: install  ## Install the package`: the help convention that
                        // lists `^.PHONY: .*?## ` lines describes the one target it declares.
                        if let [one] = declared.as_slice()
                            && let Some(help) = comment.and_then(help_text)
                        {
                            phony_help.entry(one.to_string()).or_insert(help);
                        }
                        phony.extend(declared.into_iter().map(str::to_string));
                    }
                    // Special targets sit between a `## text` line and its rule.
                    continue;
                }
                let inline = comment.and_then(help_text);
                let above = pending.take();
                let named_above = named.take();
                // Order-only prerequisites (after `|`) are made too when missing.
                let prereq_names: Vec<String> = split_words(prereqs)
                    .into_iter()
                    .filter(|w| *w != "|" && is_command_name(w))
                    .map(str::to_string)
                    .collect();
                let inline_calls = inline_recipe
                    .map(|r| recipe_calls(&[r], recipe_prefix))
                    .unwrap_or_default();
                let raw_prereqs: Vec<String> = split_words(prereqs)
                    .into_iter()
                    .filter(|w| *w != "|")
                    .map(str::to_string)
                    .collect();
                let inline_text = inline_recipe
                    .map(str::trim)
                    .filter(|r| !r.is_empty())
                    .map(|r| (line_no, r.to_string()));
                for name in words {
                    if !is_command_name(name) {
                        // A file or a variable's value: its recipe runs when a command needs it.
                        if !name.contains('%') && !name.starts_with('.') {
                            let r = file_rules
                                .entry(name.to_string())
                                .or_insert_with(|| Target::new(name, line_no, None));
                            for p in &raw_prereqs {
                                if !r.raw_prereqs.contains(p) {
                                    r.raw_prereqs.push(p.clone());
                                }
                            }
                            r.recipe.extend(inline_text.clone());
                            current_files.push(name.to_string());
                        }
                        continue;
                    }
                    let description = inline
                        .clone()
                        .or_else(|| above.as_deref().map(|d| strip_name(d, name)))
                        .or_else(|| named_above.as_deref().and_then(|d| after_name(d, name)));
                    let at = match index.get(name) {
                        Some(&at) => {
                            if let Some(t) = targets.get_mut(at)
                                && t.description.is_none()
                            {
                                t.description = description;
                            }
                            at
                        }
                        None => {
                            index.insert(name.to_string(), targets.len());
                            targets.push(Target::new(name, line_no, description));
                            targets.len() - 1
                        }
                    };
                    let t = &mut targets[at];
                    for p in &prereq_names {
                        if !t.prereqs.contains(p) {
                            t.prereqs.push(p.clone());
                        }
                    }
                    for p in &raw_prereqs {
                        if !t.raw_prereqs.contains(p) {
                            t.raw_prereqs.push(p.clone());
                        }
                    }
                    t.recipe.extend(inline_text.clone());
                    add_calls(t, &inline_calls);
                    current.push(at);
                }
            }
            None => {
                in_rule = false;
                (pending, named) = (None, None);
            }
        }
    }
    for t in &mut targets {
        if t.description.is_none() {
            t.description = phony_help.remove(&t.name);
        }
    }
    phony_paths(&phony, &file_rules, &plain_vars, &mut targets);
    // A dotted name is usually a file (`main.o`, `index.html`); it is a command only when the
    // Makefile declares it phony (`test.unit`, `docker.build`).
    let (keep, files): (Vec<Target>, Vec<Target>) = targets
        .into_iter()
        .partition(|t| !t.name.contains('.') || phony.contains(&t.name));
    for f in files {
        file_rules.entry(f.name.clone()).or_insert(f);
    }
    Scan {
        targets: keep,
        includes,
        vars,
        raw_vars,
        file_rules,
        catch_all,
    }
}

/// A rule declared phony whose name is a path or built from variables (cli/cli's
/// `.PHONY: bin/gh$(EXE)`, the rule that builds the program): a command after all, listed under
/// the name make gives it when its variables have values outside every conditional (`EXE =`),
/// and kept as a file rule too, for the rules that name it as a prerequisite.
fn phony_paths(
    phony: &HashSet<String>,
    file_rules: &HashMap<String, Target>,
    plain_vars: &HashMap<String, String>,
    targets: &mut Vec<Target>,
) {
    let mut declared: Vec<&String> = phony
        .iter()
        .filter(|p| file_rules.contains_key(*p))
        .collect();
    declared.sort();
    for raw in declared {
        let name = if raw.contains('$') {
            expand_recipe(raw, plain_vars, "")
        } else {
            raw.clone()
        };
        // Each segment a command name: none empty (`/abs`, `dir/`), none `..`.
        let path_ok = !name.contains(char::is_whitespace) && name.split('/').all(is_command_name);
        if !path_ok || targets.iter().any(|t| t.name == name) {
            continue;
        }
        let mut t = file_rules[raw].clone();
        t.name = name;
        t.prereqs = t
            .raw_prereqs
            .iter()
            .filter(|p| is_command_name(p))
            .cloned()
            .collect();
        let at = targets.partition_point(|o| o.line <= t.line);
        targets.insert(at, t);
    }
}

fn add_calls(t: &mut Target, calls: &[String]) {
    for c in calls {
        if !t.calls.contains(c) {
            t.calls.push(c.clone());
        }
    }
}

/// The targets of this Makefile a recipe line (its physical lines `parts`) asks make for:
/// `$(MAKE) x`, `${MAKE} x`, `make x`. Make's own variables are not known here; a word built
/// from one is not a name.
fn recipe_calls(parts: &[&str], prefix: char) -> Vec<String> {
    let (mut names, with) = recipe_calls_split(parts, prefix);
    for (n, _) in with {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// `recipe_calls`, with the calls that set variables (`$(MAKE) install PREFIX=..`) apart: when
/// the values change what the target's recipe runs, it is not the same step; its recipe is read
/// with those values instead (`run_code`).
type Overrides = Vec<(String, String)>;

fn recipe_calls_split(parts: &[&str], prefix: char) -> (Vec<String>, Vec<(String, Overrides)>) {
    let mut shell = String::new();
    for (i, p) in parts.iter().enumerate() {
        // Make hands `\`-newline to the shell, dropping the recipe prefix of the next line.
        let p = if i > 0 {
            p.strip_prefix(prefix).unwrap_or(p)
        } else {
            p.strip_prefix(prefix).unwrap_or(p).trim_start()
        };
        let p = if i == 0 {
            p.trim_start_matches(['@', '-', '+', ' ', '\t'])
        } else {
            p
        };
        shell.push_str(p);
        shell.push('\n');
    }
    if !shell.contains("make") && !shell.contains("MAKE") {
        return (Vec::new(), Vec::new());
    }
    let shell = make_vars_to_shell(&shell);
    let mut out = Vec::new();
    let mut with = Vec::new();
    for cmd in simple_commands(&shell) {
        if let Some(call) = make_call(&cmd) {
            let overrides: Overrides = cmd
                .args()
                .iter()
                .filter_map(|w| w.lit())
                .filter_map(|w| w.split_once('='))
                .filter(|(k, _)| {
                    !k.is_empty()
                        && !k.starts_with('-')
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                })
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            for n in call.names {
                if !is_command_name(&n) {
                    continue;
                }
                if overrides.is_empty() {
                    if !out.contains(&n) {
                        out.push(n);
                    }
                } else {
                    with.push((n, overrides.clone()));
                }
            }
        }
    }
    (out, with)
}

/// `for d in a b; do BODY; done` with a literal list, written out once per value, so the
/// commands of each pass can be read (`$(MAKE) -C $$d install` for every `d`).
fn unroll_for(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = find_word(rest, "for") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let Some(unrolled) = one_loop(after) else {
            out.push_str("for");
            rest = after;
            continue;
        };
        out.push_str(&unrolled.0);
        rest = &after[unrolled.1..];
    }
    out.push_str(rest);
    out
}

/// The loop after `for` written out, and how much of `s` it used.
fn one_loop(s: &str) -> Option<(String, usize)> {
    let t = s.trim_start();
    let var: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if var.is_empty() {
        return None;
    }
    let t2 = t[var.len()..].trim_start();
    let list_start = t2.strip_prefix("in ")?;
    let end_list = list_start.find([';', '\n'])?;
    let values: Vec<&str> = list_start[..end_list].split_whitespace().collect();
    if values.is_empty()
        || values.len() > 32
        || values
            .iter()
            .any(|v| v.contains(['$', '*', '?', '`', '"', '\'']))
    {
        return None;
    }
    let after_list = list_start[end_list + 1..].trim_start();
    let body_start = after_list.strip_prefix("do")?;
    let done = find_word(body_start, "done")?;
    let body = body_start[..done].trim().trim_end_matches(';');
    let mut unrolled = String::new();
    for v in &values {
        let b = body
            .replace(&format!("${{{var}}}"), v)
            .replace(&format!("${var}"), v);
        unrolled.push_str(&b);
        unrolled.push_str("; ");
    }
    let used_to = s.len() - (body_start.len() - done - "done".len());
    Some((unrolled, used_to))
}

/// Byte offset of `word` standing alone (not inside a longer word).
fn find_word(s: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find(word) {
        let at = from + i;
        let before = s[..at].chars().last();
        let after = s[at + word.len()..].chars().next();
        let edge = |c: Option<char>| c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        if edge(before) && edge(after) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// `$(MAKE) -C DIR target…` (once per pass of a `for` loop over literal folders): the targets
/// of another folder's Makefile, as steps.
fn dir_calls(file: &SourceFile<'_>, code: &str) -> Vec<StepRef> {
    if !code.contains("-C") && !code.contains("--directory") {
        return Vec::new();
    }
    let shell = unroll_for(&make_vars_to_shell(code));
    let mut out = Vec::new();
    for cmd in simple_commands(&shell) {
        if !matches!(cmd.program(), Some("make" | "gmake")) || cmd.after_cd {
            continue;
        }
        let args = cmd.args();
        let mut dir: Option<String> = None;
        let mut names = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let Some(t) = args[i].lit() else {
                i += 1;
                continue;
            };
            if t == "-C" || t == "--directory" {
                dir = args.get(i + 1).and_then(|w| w.lit()).map(str::to_string);
                i += 2;
                continue;
            }
            if let Some(d) = t.strip_prefix("--directory=") {
                dir = Some(d.to_string());
            } else if !t.starts_with('-') && !t.contains('=') && is_command_name(t) {
                names.push(t.to_string());
            } else if t == "-f" || t == "--file" {
                // Another makefile than the folder's own: not followed.
                dir = None;
                break;
            }
            i += 1;
        }
        let Some(dir) = dir.filter(|d| !d.starts_with('/') && !d.starts_with('~')) else {
            continue;
        };
        let folder = normalize_path(&file.dir().join(&dir));
        if !folder.starts_with(file.root) {
            continue;
        }
        let Some(makefile) = DEFAULT_NAMES
            .iter()
            .map(|n| folder.join(n))
            .find(|p| file.fs.is_file(p))
        else {
            continue;
        };
        for n in names {
            let step = StepRef::new(n, StepHow::Call, false).scope(crate::model::StepScope::File {
                kind: "make".into(),
                file: makefile.clone(),
            });
            if !out.contains(&step) {
                out.push(step);
            }
        }
    }
    out
}

/// `$(MAKE)`/`${MAKE}` become `make`, `$$` a shell `$`, and any other make reference a shell
/// variable (unknown here, so never a name).
fn make_vars_to_shell(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '$' {
            out.push(c);
            i += 1;
            continue;
        }
        match chars.get(i + 1) {
            Some('$') => {
                out.push('$');
                i += 2;
            }
            Some('(' | '{') => {
                let j = common::closing_bracket(&chars, i + 1);
                let name: String = chars[i + 2..j.min(chars.len())].iter().collect();
                out.push_str(if name.trim() == "MAKE" {
                    "make"
                } else {
                    "$MAKEVAR"
                });
                i = j + 1;
            }
            Some(_) => {
                out.push_str("$MAKEVAR");
                i += 2;
            }
            None => i += 1,
        }
    }
    out
}

fn record_literal(vars: &mut HashMap<String, String>, name: &str, value: &str) {
    let value = value.trim();
    if !value.contains('$') && !name.contains('$') && !value.is_empty() {
        vars.entry(name.to_string())
            .or_insert_with(|| value.to_string());
    }
}

/// Keeps every assignment as make would end up with it (conditionals aside: both branches are
/// read, the later one wins): `?=` only sets a variable not set yet, `+=` appends, `!=` runs a
/// shell command, so its value is unknown.
fn record_raw(vars: &mut HashMap<String, String>, code: &str, name: &str, value: &str) {
    if name.contains('$') || name.is_empty() {
        return;
    }
    let value = value.trim();
    let Some(at) = find_top_level(code, |c| c == '=') else {
        return;
    };
    match code[..at].chars().last() {
        Some('?') => {
            vars.entry(name.to_string())
                .or_insert_with(|| value.to_string());
        }
        Some('+') => {
            let v = vars.entry(name.to_string()).or_default();
            if !v.is_empty() {
                v.push(' ');
            }
            v.push_str(value);
        }
        Some('!') => {
            vars.remove(name);
        }
        _ => {
            vars.insert(name.to_string(), value.to_string());
        }
    }
}

/// Recipe lines as make hands them to the shell: the recipe prefix off each physical line,
/// `\`-newlines kept.
fn recipe_text(parts: &[&str], prefix: char) -> String {
    parts
        .iter()
        .map(|p| p.strip_prefix(prefix).unwrap_or(p))
        .collect::<Vec<_>>()
        .join("\n")
}

/// How many variable references one expansion may resolve, and how long its result may grow:
/// a crafted Makefile cannot make reading it explode.
const EXPAND_STEPS: usize = 2_000;
const EXPAND_MAX: usize = 64 * 1024;

/// `text` with the Makefile's variables filled in where they are known (`$(PREFIX)`,
/// `${INSTALL_BIN}`, `$(call NAME,a,b)`, `$@`); unknown references and make's functions
/// (`$(shell …)`, `$(wildcard …)`) stay as written, and `$$` stays `$$`.
fn expand_recipe(text: &str, vars: &HashMap<String, String>, target: &str) -> String {
    let mut steps = 0;
    expand_in(text, vars, target, &[], 0, &mut steps)
}

fn expand_in(
    text: &str,
    vars: &HashMap<String, String>,
    target: &str,
    args: &[String],
    depth: usize,
    steps: &mut usize,
) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if out.len() > EXPAND_MAX {
            break;
        }
        let c = chars[i];
        if c != '$' {
            out.push(c);
            i += 1;
            continue;
        }
        match chars.get(i + 1) {
            Some('$') => {
                out.push_str("$$");
                i += 2;
            }
            Some('@') => {
                out.push_str(target);
                i += 2;
            }
            Some('(' | '{') => {
                let j = common::closing_bracket(&chars, i + 1);
                let inner: String = chars[i + 2..j.min(chars.len())].iter().collect();
                let raw: String = chars[i..(j + 1).min(chars.len())].iter().collect();
                i = j + 1;
                *steps += 1;
                if depth > 10 || *steps > EXPAND_STEPS {
                    out.push_str(&raw);
                    continue;
                }
                let name = inner.trim();
                if let Ok(n) = name.parse::<usize>()
                    && n >= 1
                    && n <= args.len()
                {
                    out.push_str(&args[n - 1]);
                } else if let Some(call) = name.strip_prefix("call ") {
                    let parts = split_args(call);
                    let fname = parts.first().map(|s| s.trim()).unwrap_or("");
                    match vars.get(fname) {
                        Some(body) => {
                            let a: Vec<String> = parts[1..]
                                .iter()
                                .map(|p| expand_in(p, vars, target, args, depth + 1, steps))
                                .collect();
                            out.push_str(&expand_in(body, vars, target, &a, depth + 1, steps));
                        }
                        None => out.push_str(&raw),
                    }
                } else if let Some((func, rest)) = name.split_once(' ')
                    && matches!(func, "addprefix" | "addsuffix")
                    && let [fix, list] = split_args(rest).as_slice()
                {
                    // `$(addprefix test-,$(SHELLS))`: known when its parts are.
                    let fix = expand_in(fix, vars, target, args, depth + 1, steps);
                    let list = expand_in(list, vars, target, args, depth + 1, steps);
                    if fix.contains('$') || list.contains('$') {
                        out.push_str(&raw);
                    } else {
                        let fix = fix.trim();
                        let words: Vec<String> = list
                            .split_whitespace()
                            .map(|w| {
                                if func == "addprefix" {
                                    format!("{fix}{w}")
                                } else {
                                    format!("{w}{fix}")
                                }
                            })
                            .collect();
                        out.push_str(&words.join(" "));
                    }
                } else if !name.contains(char::is_whitespace)
                    && !name.contains(',')
                    && let Some(v) = vars.get(name)
                {
                    let value = expand_in(v, vars, target, args, depth + 1, steps);
                    // A value make computes (`$(shell …)`, `$(firstword …)`) says less than
                    // the variable's name (`$(FIRST_GOPATH)`): keep the reference.
                    if computed(&value) {
                        out.push_str(&raw);
                    } else {
                        out.push_str(&value);
                    }
                } else {
                    out.push_str(&raw);
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Whether an expanded value still calls one of make's functions (`$(shell …)`, `$(eval …)`).
fn computed(value: &str) -> bool {
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        let after = &rest[i + 1..];
        if let Some(inner) = after.strip_prefix('(').or_else(|| after.strip_prefix('{')) {
            let head: String = inner
                .chars()
                .take_while(|c| !matches!(c, ')' | '}'))
                .collect();
            if head.contains(char::is_whitespace) || head.contains(',') {
                return true;
            }
        }
        rest = after.strip_prefix('$').unwrap_or(after);
    }
    false
}

/// A function's arguments: split at the commas outside parentheses.
fn split_args(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' | '{' => {
                depth += 1;
                cur.push(c);
            }
            ')' | '}' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// How many file rules one target's code may pull in.
const FILE_RULES_MAX: usize = 32;

/// What make runs for `t`: its own recipe, and the recipes of prerequisites that are file
/// rules (made first when missing), with variables filled in.
fn run_code(
    t: &Target,
    commands: &HashSet<String>,
    file_rules: &HashMap<String, Target>,
    vars: &HashMap<String, String>,
    recipes: &HashMap<String, Vec<(usize, String)>>,
) -> Vec<crate::model::ShellCode> {
    let own_line = t.defined_in.as_ref().map_or(t.line, |(_, l)| *l);
    let mut out: Vec<crate::model::ShellCode> = t
        .recipe
        .iter()
        .map(|(line, text)| crate::model::ShellCode {
            code: expand_recipe(text, vars, &t.name),
            line: u32::try_from(*line).unwrap_or(u32::MAX),
            via: None,
        })
        .collect();
    // `$(MAKE) install PREFIX=..`: install's recipe with those values.
    for (name, overrides) in &t.calls_with {
        let Some(recipe) = recipes.get(name) else {
            continue;
        };
        let mut with = vars.clone();
        for (k, v) in overrides {
            with.insert(k.clone(), v.clone());
        }
        let same = recipe
            .iter()
            .all(|(_, r)| expand_recipe(r, &with, name) == expand_recipe(r, vars, name));
        if same {
            // `$(MAKE) lint V=1`: the values do not reach the recipe; an ordinary step.
            continue;
        }
        let how: Vec<String> = overrides.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for (_, text) in recipe {
            out.push(crate::model::ShellCode {
                code: expand_recipe(text, &with, name),
                line: u32::try_from(own_line).unwrap_or(u32::MAX),
                via: Some(format!("{name} {}", how.join(" "))),
            });
        }
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let mut queue: Vec<(&str, usize)> = t.raw_prereqs.iter().map(|p| (p.as_str(), 0)).collect();
    queue.reverse();
    while let Some((p, depth)) = queue.pop() {
        if commands.contains(p) || seen.len() >= FILE_RULES_MAX || !seen.insert(p) {
            continue;
        }
        let rule = file_rules.get(p).or_else(|| {
            // `bin/tool` names the rule written `$(BIN)/tool`.
            let want = expand_recipe(p, vars, "");
            file_rules
                .iter()
                .find(|(k, _)| k.contains('$') && expand_recipe(k, vars, "") == want)
                .map(|(_, r)| r)
        });
        let Some(rule) = rule else { continue };
        for (_, text) in &rule.recipe {
            out.push(crate::model::ShellCode {
                code: expand_recipe(text, vars, &expand_recipe(p, vars, "")),
                line: u32::try_from(own_line).unwrap_or(u32::MAX),
                via: Some(p.to_string()),
            });
        }
        if depth < 3 {
            for q in rule.raw_prereqs.iter().rev() {
                queue.push((q.as_str(), depth + 1));
            }
        }
    }
    out
}

enum Line<'a> {
    Assign { name: &'a str, value: &'a str },
    Rule { targets: &'a str, prereqs: &'a str },
}

/// Tells a variable assignment (`=`, `:=`, `::=`, `:::=`, `?=`, `+=`, `!=`) from a rule line, the
/// way make does: whichever of `=` and `:` comes first outside `$(...)` decides.
fn classify(code: &str) -> Option<Line<'_>> {
    let at = find_top_level(code, |c| c == '=' || c == ':')?;
    let (before, after) = code.split_at(at);
    if let Some(value) = after.strip_prefix('=') {
        let name = before
            .trim_end()
            .trim_end_matches(['?', '+', '!'])
            .trim_end();
        return Some(Line::Assign { name, value });
    }
    let after_colons = after.trim_start_matches(':');
    if let Some(value) = after_colons.strip_prefix('=') {
        return Some(Line::Assign {
            name: before.trim(),
            value,
        });
    }
    Some(Line::Rule {
        targets: before,
        prereqs: after_colons,
    })
}

/// Byte offset of the first char matching `pred` outside `$(...)`/`${...}`.
fn find_top_level(s: &str, pred: impl Fn(char) -> bool) -> Option<usize> {
    scan_top_level(s, false, pred)
}

/// `find_top_level`, optionally passing over backslash-escaped chars (`\#` is not a comment).
fn scan_top_level(s: &str, escapes: bool, pred: impl Fn(char) -> bool) -> Option<usize> {
    let mut depth = 0usize;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if escapes => {
                chars.next();
            }
            '$' => {
                if let Some(&(_, n)) = chars.peek() {
                    if n == '(' || n == '{' {
                        depth += 1;
                        chars.next();
                    } else if n == '$' {
                        chars.next();
                    }
                }
            }
            '(' | '{' if depth > 0 => depth += 1,
            ')' | '}' if depth > 0 => depth -= 1,
            _ if depth == 0 && pred(c) => return Some(i),
            _ => {}
        }
    }
    None
}

fn until_semicolon(s: &str) -> &str {
    match find_top_level(s, |c| c == ';') {
        Some(i) => &s[..i],
        None => s,
    }
}

/// Words separated by whitespace outside `$(...)`, so `$(addprefix x, a b)` stays one word.
fn split_words(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while !rest.is_empty() {
        let end = find_top_level(rest, char::is_whitespace).unwrap_or(rest.len());
        out.push(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    out
}

/// Splits off a comment: `#` outside `$(...)`, not escaped as `\#`.
fn split_comment(line: &str) -> (&str, Option<&str>) {
    match scan_top_level(line, true, |c| c == '#') {
        Some(i) => (&line[..i], Some(&line[i + 1..])),
        None => (line, None),
    }
}

/// The text of a `## text` help comment (given what follows the first `#`). `##@ Section`
/// headers are not descriptions.
fn help_text(comment: &str) -> Option<String> {
    let rest = comment.strip_prefix('#')?.trim_start_matches('#');
    if rest.starts_with('@') {
        return None;
    }
    let t = rest.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The text of a one-`#` comment (given what follows the `#`), after a help marker such as `?`
/// or `!`; `None` for a `##` comment (that is [`help_text`]'s) or a `#@` section header.
fn named_text(comment: &str) -> Option<String> {
    if comment.starts_with(['#', '@']) {
        return None;
    }
    let t = comment.trim_start_matches(['?', '!', '>', '*']).trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// `Compile it` from `build: Compile it` when `name` is `build`; `None` when the text does not
/// start with the name and a colon, or says nothing after it.
fn after_name(text: &str, name: &str) -> Option<String> {
    let rest = text
        .strip_prefix(name)?
        .trim_start()
        .strip_prefix(':')?
        .trim();
    (!rest.is_empty()).then(|| rest.to_string())
}

/// `## build: Compile it` above `build:` describes it as `Compile it`.
fn strip_name(desc: &str, name: &str) -> String {
    match desc.strip_prefix(name).and_then(|r| r.strip_prefix(':')) {
        Some(r) if !r.trim().is_empty() => r.trim().to_string(),
        _ => desc.to_string(),
    }
}

fn ends_with_continuation(line: &str) -> bool {
    line.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1
}

/// Joins continued lines: the backslash-newline and the blanks around it become one space.
fn join_continued(parts: &[&str]) -> String {
    let last = parts.len().saturating_sub(1);
    let mut out = String::new();
    for (i, p) in parts.iter().enumerate() {
        let p = if i < last {
            p.strip_suffix('\\').unwrap_or(p).trim_end()
        } else {
            p
        };
        let p = if i > 0 { p.trim_start() } else { p };
        if i > 0 {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

fn first_word(s: &str) -> &str {
    s.split(char::is_whitespace).next().unwrap_or("")
}

/// Drops leading `export`/`override`/`private`/`unexport` words; says whether there were any.
fn strip_modifiers(mut s: &str) -> (&str, bool) {
    let mut any = false;
    loop {
        let w = first_word(s);
        let rest = &s[w.len()..];
        if MODIFIERS.contains(&w) && rest.starts_with(char::is_whitespace) {
            s = rest.trim_start();
            any = true;
        } else {
            return (s, any);
        }
    }
}

/// A target users can type: no special (`.x`) targets, patterns, variables, paths, globs or
/// archive members.
fn is_command_name(name: &str) -> bool {
    const BAD: &[char] = &[
        '/', '$', '%', '\\', '(', ')', '*', '?', '[', ']', '{', '}', '"', '\'', ';', '=', '#', '|',
        '&', '<', '>', '`', ':', ',', '~',
    ];
    !name.is_empty() && !name.starts_with('.') && !name.contains(BAD)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{labels, parse_in, parse_with};

    fn make(content: &str) -> Parsed {
        parse_with(parse, "/w/Makefile", content)
    }

    /// The `FORCE:` idiom: an empty rule that makes the rules depending on it always run.
    #[test]
    fn an_empty_rule_others_depend_on_only_forces_them() {
        assert_eq!(
            names(
                "gen: bin/gen FORCE\n\tgen $@\nbin/x: x.go FORCE\n\tgo build\nFORCE:\n\nall: gen\nLONELY:\n"
            ),
            ["gen", "all", "LONELY"]
        );
        // Files built from it (containerd's `bin/*: ... FORCE`) depend on it just the same.
        assert_eq!(
            names("bin/x: x.go FORCE\n\tgo build\nFORCE:\n\nall: bin/x\n"),
            ["all"]
        );
    }

    /// `sphinx-quickstart`'s Makefile: `help`, and every other goal handed to Sphinx.
    #[test]
    fn sphinxs_catch_all_rule_lists_the_goals_a_person_runs() {
        let quickstart = "SPHINXBUILD   ?= sphinx-build\nSOURCEDIR     = .\nBUILDDIR      = _build\n\nhelp:\n\t@$(SPHINXBUILD) -M help \"$(SOURCEDIR)\" \"$(BUILDDIR)\" $(SPHINXOPTS) $(O)\n\n.PHONY: help Makefile\n\n%: Makefile\n\t@$(SPHINXBUILD) -M $@ \"$(SOURCEDIR)\" \"$(BUILDDIR)\" $(SPHINXOPTS) $(O)\n\nregen:\n\techo regen\n";
        let p = make(quickstart);
        assert_eq!(labels(&p), ["help", "regen", "html", "linkcheck", "clean"]);
        let html = &p.commands[2];
        assert_eq!(html.line, Some(10));
        assert_eq!(
            html.description.as_deref(),
            Some("Build the HTML documentation (sphinx-build)")
        );
        // A pattern rule of another tool lists nothing more.
        let other = make("all:\n\techo\n%.o: %.c\n\t$(CC) -c $< -o $@\n");
        assert_eq!(labels(&other), ["all"]);
    }

    fn names(content: &str) -> Vec<String> {
        make(content)
            .commands
            .iter()
            .map(|c| c.label.clone())
            .collect()
    }

    #[test]
    fn includes_are_followed() {
        let fs = MemFs::new()
            .file(
                "/w/Makefile",
                "MK_DIR := mk\ninclude common.mk\n-include $(MK_DIR)/extra.mk missing.mk\nsinclude ${MK_DIR}/opt-*.mk\ninclude $(shell echo x).mk\n\nbuild: ## Build\n\tcc\n",
            )
            .file("/w/common.mk", "fmt: ## Format code\n\tgofmt\nbuild: ## Not this one\n\tx\n")
            .file("/w/mk/extra.mk", "include mk/deeper.mk\nlint:\n\tx\n")
            .file("/w/mk/deeper.mk", "vet: ## Vet\n\tx\n")
            .file("/w/mk/opt-a.mk", "opt-a:\n\tx\n")
            .file("/w/mk/other.mk", "never:\n\tx\n");
        let p = parse_in(parse, &fs, "/w/Makefile");
        let got: Vec<(&str, Option<&str>, Option<u32>)> = p
            .commands
            .iter()
            .map(|c| (c.label.as_str(), c.description.as_deref(), c.line))
            .collect();
        assert_eq!(
            got,
            [
                ("build", Some("Build"), Some(7)),
                ("fmt", Some("Format code"), Some(2)),
                ("lint", None, Some(3)),
                ("vet", Some("Vet"), Some(3)),
                ("opt-a", None, Some(4)),
            ]
        );
        assert!(p.commands.iter().all(|c| c.file_path == "/w/Makefile"));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let p = parse_in(
            parse,
            &MemFs::new().file("/w/Makefile", "include nope.mk\ninclude = x\n"),
            "/w/Makefile",
        );
        assert_eq!(
            crate::sources::testing::warnings(&p),
            [(Some(1), "included file `nope.mk` not found")]
        );
    }

    fn steps(p: &Parsed, label: &str) -> Vec<(String, &'static str, bool)> {
        p.commands
            .iter()
            .find(|c| c.label == label)
            .unwrap_or_else(|| panic!("no {label}"))
            .steps
            .iter()
            .map(|s| (s.name.clone(), s.how.as_str(), s.must_resolve))
            .collect()
    }

    #[test]
    fn included_targets_know_the_file_and_line_that_define_them() {
        let fs = MemFs::new()
            .file("/w/Makefile", "include mk/tools.mk\n\nbuild: clean\n\tcc\n")
            .file(
                "/w/mk/tools.mk",
                "# tools\n\nclean:\n\trm -rf ~/x\ninclude mk/deep.mk\n",
            )
            .file("/w/mk/deep.mk", "\nwipe:\n\trm -rf /tmp/y\n");
        let p = parse_in(parse, &fs, "/w/Makefile");
        let def = |label: &str| {
            let c = p.commands.iter().find(|c| c.label == label).unwrap();
            (
                c.line,
                c.defined_in.as_ref().map(|d| (d.file.clone(), d.line)),
            )
        };
        assert_eq!(def("build"), (Some(3), None));
        assert_eq!(
            def("clean"),
            (Some(1), Some((PathBuf::from("/w/mk/tools.mk"), Some(3))))
        );
        // A nested include is listed at the root include's line, defined in the deepest file.
        assert_eq!(
            def("wipe"),
            (Some(1), Some((PathBuf::from("/w/mk/deep.mk"), Some(2))))
        );
        let clean = p.commands.iter().find(|c| c.label == "clean").unwrap();
        assert_eq!(clean.definition_path(), Path::new("/w/mk/tools.mk"));
        let text = crate::fs::Fs::read(&fs, clean.definition_path()).unwrap();
        assert_eq!(
            crate::excerpt::command_text(clean, &text).text,
            "clean:\n\trm -rf ~/x"
        );
    }

    #[test]
    fn a_test_runner_in_a_prerequisite_rule_makes_the_suites_scripts_steps() {
        // `test: $(SHELL_TARGETS)`, a rule named by a variable, runs urchin on every suite.
        let fs = MemFs::new()
            .file(
                "/w/Makefile",
                "SHELLS := sh bash\n\
                 SHELL_TARGETS := $(addprefix test-,$(SHELLS))\n\
                 TEST_SUITE := $(shell find ./test/* -type d -prune -exec basename {} \\;)\n\
                 $(SHELL_TARGETS):\n\
                 \t@for suite in $(TEST_SUITE); do urchin -f test/$$suite || exit; done\n\
                 test: $(SHELL_TARGETS)\n\
                 hooks:\n\
                 \trun-parts --test hooks.d && run-parts hooks.d\n",
            )
            .exe("/w/test/fast/a", "#!/bin/sh\n")
            .exe("/w/test/slow/deep/b", "#!/bin/sh\n")
            .file("/w/test/slow/data.json", "{}")
            .exe("/w/hooks.d/10-x", "#!/bin/sh\n");
        let p = parse_in(parse, &fs, "/w/Makefile");
        let files = |name: &str| -> Vec<String> {
            crate::sources::testing::step_refs(&p, name)
                .iter()
                .filter_map(|s| match &s.scope {
                    StepScope::File { file, .. } => Some(file.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(files("test"), ["/w/test/fast/a", "/w/test/slow/deep/b"]);
        assert_eq!(files("hooks"), ["/w/hooks.d/10-x"]);
    }

    #[test]
    fn prerequisites_and_recursive_make_calls_are_steps() {
        let p = make(
            "all: build | dirs\n\
             build: clean gen.o $(OBJ)\n\
             \t@$(MAKE) --no-print-directory lint V=1\n\
             \t-${MAKE} -j 4 fmt && make test\n\
             \t$(MAKE) -C sub other\n\
             \techo make no\n\
             \tcd x && make cd-ed\n\
             build: extra\n\
             quick: ; $(MAKE) lint\n\
             clean lint fmt test extra dirs:\n\
             \ttrue\n",
        );
        assert_eq!(
            steps(&p, "all"),
            [
                ("build".to_string(), "prerequisite", false),
                ("dirs".to_string(), "prerequisite", false)
            ]
        );
        assert_eq!(
            steps(&p, "build"),
            [
                ("clean".to_string(), "prerequisite", false),
                ("gen.o".to_string(), "prerequisite", false),
                ("extra".to_string(), "prerequisite", false),
                ("lint".to_string(), "call", true),
                ("fmt".to_string(), "call", true),
                ("test".to_string(), "call", true),
            ]
        );
        assert_eq!(steps(&p, "quick"), [("lint".to_string(), "call", true)]);
        assert!(steps(&p, "clean").is_empty());
    }

    #[test]
    fn steps_follow_includes_and_catch_all_targets() {
        let fs = MemFs::new()
            .file(
                "/w/Makefile",
                "include tools.mk\n%: common-%\n\t@:\nbuild: clean\n\tcc\n",
            )
            .file(
                "/w/tools.mk",
                "clean: wipe\n\t$(MAKE) nuke\ncommon-lint: clean\n\tx\nbuild: more\n",
            );
        let p = parse_in(parse, &fs, "/w/Makefile");
        assert_eq!(
            steps(&p, "build"),
            [
                ("clean".to_string(), "prerequisite", false),
                ("more".to_string(), "prerequisite", false)
            ]
        );
        assert_eq!(
            steps(&p, "clean"),
            [
                ("wipe".to_string(), "prerequisite", false),
                ("nuke".to_string(), "call", true)
            ]
        );
        assert_eq!(
            steps(&p, "lint"),
            [("clean".to_string(), "prerequisite", false)]
        );
    }

    #[test]
    fn include_cycles_stop() {
        let fs = MemFs::new()
            .file("/w/Makefile", "include a.mk\nm:\n\tx\n")
            .file("/w/a.mk", "include Makefile\ninclude a.mk\na:\n\tx\n");
        let p = parse_in(parse, &fs, "/w/Makefile");
        assert_eq!(labels(&p), ["m", "a"]);
    }

    #[test]
    fn catch_all_rule_exposes_prefixed_targets() {
        let fs = MemFs::new()
            .file(
                "/w/Makefile",
                "include common.mk\n%: common-%\n\t@:\n\ntest: ## Ours\n\tx\n",
            )
            .file(
                "/w/common.mk",
                "common-lint: ## Lint\n\tx\ncommon-test:\n\tx\n",
            );
        let p = parse_in(parse, &fs, "/w/Makefile");
        let got: Vec<(&str, Option<&str>)> = p
            .commands
            .iter()
            .map(|c| (c.label.as_str(), c.description.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("test", Some("Ours")),
                ("common-lint", Some("Lint")),
                ("common-test", None),
                ("lint", Some("Lint")),
            ]
        );
        assert_eq!(p.commands[3].command, "make lint");
    }

    #[test]
    fn conventions_fixture() {
        let p = make(
            ".PHONY: help build _private\n\
             \n\
             aaa_file:\n\
             \ttouch aaa_file\n\
             \n\
             help:\n\
             \t@echo help\n\
             \n\
             build:\n\
             \t@echo build\n\
             \n\
             %.o: %.c\n\
             \t$(CC) -c $< -o $@\n\
             \n\
             .DEFAULT:\n\
             \t@echo default\n\
             \n\
             _private:\n\
             \t@echo private\n",
        );
        assert!(p.warnings.is_empty());
        assert_eq!(labels(&p), ["aaa_file", "help", "build", "_private"]);
        let b = &p.commands[2];
        assert_eq!(b.kind, "make");
        assert_eq!(b.id, "make:/w/Makefile:build");
        assert_eq!(b.command, "make build");
        assert_eq!(b.cwd, "/w");
        assert_eq!(b.line, Some(9));
        assert!(!b.private);
        assert!(p.commands[3].private);
        assert_eq!(p.commands[3].line, Some(18));
    }

    #[test]
    fn variable_assignments_are_not_targets() {
        let p = names(
            "VAR := x\n\
             SIMPLE ::= y\n\
             POSIX :::= z\n\
             COND ?= a\n\
             APPEND += b\n\
             SHELL_OUT != uname -s\n\
             RECURSIVE = a:b\n\
             NOSPACE:=1\n\
             export GOFLAGS := -mod=mod\n\
             override CFLAGS = -O2\n\
             private P = 1\n\
             export\n\
             unexport FOO\n\
             UNAME:\n\
             build: ; @echo x=y\n",
        );
        assert_eq!(p, ["UNAME", "build"]);
    }

    #[test]
    fn multi_target_double_colon_and_grouped_rules() {
        assert_eq!(
            names(
                "clean distclean: stop\n\trm -rf out\nall:: one\nall:: two\nfoo bar &: gen.sh\n\t./gen.sh\n"
            ),
            ["clean", "distclean", "all", "foo", "bar"]
        );
        let p = make("a b: c\n");
        assert_eq!(p.commands[1].line, Some(1));
        assert_eq!(p.commands[1].id, "make:/w/Makefile:b");
    }

    #[test]
    fn target_specific_variables_are_not_rules() {
        assert_eq!(
            names(
                "debug: CFLAGS += -g\nrelease: export MODE := prod\nprod: X = y\nbuild:\n\tgo build\n"
            ),
            ["build"]
        );
        // ...but a later real rule for the same target counts.
        assert_eq!(
            names("debug: CFLAGS += -g\ndebug: build\n\t./run\n"),
            ["debug"]
        );
    }

    #[test]
    fn special_pattern_variable_and_path_targets_are_skipped() {
        assert_eq!(
            names(
                ".PHONY: all\n.SUFFIXES:\n.c.o:\n\tcc\n%.o: %.c\n\tcc\n$(BIN): main.o\n\tld\n\
                 ${OUT}/x: y\nbuild/app.o: app.c\n\tcc\nlib(a.o): a.o\n*.txt: x\nall: $(BIN)\n"
            ),
            ["all"]
        );
    }

    #[test]
    fn dotted_names_only_when_phony() {
        assert_eq!(
            names(
                ".PHONY: test.unit\nmain.o: main.c\n\tcc -c main.c\ntest.unit:\n\tgo test ./...\nindex.html: index.md\n"
            ),
            ["test.unit"]
        );
    }

    #[test]
    fn phony_paths_and_variable_names_are_listed_as_make_names_them() {
        // cli/cli: the rule that builds the program, named by a path and a variable whose value
        // outside the conditional is empty.
        let p = make(
            "EXE =\nifeq ($(shell go env GOOS),windows)\nEXE = .exe\nendif\n\n.PHONY: bin/gh$(EXE)\nbin/gh$(EXE): script/build$(EXE)\n\t@script/build$(EXE) $@\n\nscript/build$(EXE): script/build.go\n\tgo build -o $@ $<\n\n.PHONY: completions\ncompletions: bin/gh$(EXE)\n\tbin/gh$(EXE) completion -s bash\n.PHONY: image/build/do\nimage/build/do:\n\tpacker build x.pkr.hcl\n",
        );
        assert_eq!(labels(&p), ["bin/gh", "completions", "image/build/do"]);
        assert_eq!(p.commands[0].command, "make bin/gh");
        // Not phony, a value only a conditional sets, several names, or a path out of the
        // folder: files, as before.
        assert_eq!(
            names(
                "bin/tool:\n\tgo build\nifdef CI\nX = ci\nendif\n.PHONY: run-$(X)\nrun-$(X):\n\techo\nARCHS = amd64 arm64\n.PHONY: docker-$(ARCHS)\ndocker-$(ARCHS):\n\techo\n.PHONY: ../up /abs\n../up:\n\techo\n/abs:\n\techo\nall:\n\techo\n"
            ),
            ["all"]
        );
    }

    #[test]
    fn variable_reference_words_stay_whole() {
        assert_eq!(
            names("$(addprefix out/, a b) extra: src\n\tcp\n"),
            ["extra"]
        );
    }

    #[test]
    fn define_blocks_are_skipped() {
        assert_eq!(
            names(
                "define HELP_TEXT\nusage: make <target>\nbuild: compile it\nendef\n\
                 override define NESTED\ndefine INNER\nfake: x\nendef\nalso_fake: y\nendef # done\n\
                 export define EXPORTED =\nx: y\nendef\nreal:\n\t@echo $(HELP_TEXT)\n"
            ),
            ["real"]
        );
    }

    #[test]
    fn recipe_lines_are_not_rules() {
        assert_eq!(
            names("build:\n\techo done: ok\n\t@printf 'x: y\\n'\n\n\tdeploy: not-a-rule\ntest:\n"),
            ["build", "test"]
        );
    }

    #[test]
    fn tab_lines_outside_rule_context_are_makefile_lines() {
        // Make reads a tab-indented line before any rule (or after an assignment) as a normal
        // line, so conditionals may indent their assignments with tabs.
        assert_eq!(
            names("ifeq ($(OS),Windows_NT)\n\tEXE := .exe\nelse\n\tEXE :=\nendif\nall:\n\techo\n"),
            ["all"]
        );
        assert_eq!(
            names("ifdef CI\n\tci-only:\n\t\techo\nendif\n"),
            ["ci-only"]
        );
    }

    #[test]
    fn recipe_prefix_can_be_changed() {
        assert_eq!(
            names(".RECIPEPREFIX = >\nbuild:\n> echo step: one\n> deploy: no\ntest:\n> true\n"),
            ["build", "test"]
        );
    }

    #[test]
    fn continuations_and_comments() {
        let p = make(
            "# build: not a target\n\
             all: one \\\n  two \\\n  three\n\
             \t@echo $@\n\
             # a comment that continues \\\n\
             fake: target\n\
             x\\#y: z\n\
             hash: ; echo \\# not a comment ## Prints a hash\n\
             url := http://example.com # trailing: comment\n\
             ok: $(shell echo '#') ## Uses a hash in a function\n",
        );
        assert_eq!(labels(&p), ["all", "hash", "ok"]);
        assert_eq!(p.commands[1].description.as_deref(), Some("Prints a hash"));
        assert_eq!(p.commands[1].line, Some(9));
        assert_eq!(
            p.commands[2].description.as_deref(),
            Some("Uses a hash in a function")
        );
    }

    #[test]
    fn continued_rule_line_keeps_its_first_line_number() {
        let p = make("\n\nfirst \\\n second: dep\n\ttrue\n");
        assert_eq!(labels(&p), ["first", "second"]);
        assert_eq!(p.commands[0].line, Some(3));
        assert_eq!(p.commands[1].line, Some(3));
    }

    #[test]
    fn even_backslashes_do_not_continue() {
        assert_eq!(names("a: b\\\\\nc:\n"), ["a", "c"]);
    }

    #[test]
    fn a_phony_line_with_a_help_comment_describes_the_target_it_declares() {
        let p = make(
            ".PHONY: install  ## Install the package for local development
             install: .uv
             	uv sync
             
             .PHONY: .rust  # Check that Rust is installed
             .rust:
             	cargo --version
             
             .PHONY: lint typecheck  ## Two targets: no one's description
             lint:
             	ruff check
             typecheck:
             	pyright
             
             .PHONY: docs-serve  ## Not this one
             docs-serve: ## Build and serve the documentation
             	mkdocs serve
",
        );
        let desc = |name: &str| {
            p.commands
                .iter()
                .find(|c| c.label == name)
                .unwrap_or_else(|| panic!("no {name}"))
                .description
                .clone()
        };
        assert_eq!(
            desc("install").as_deref(),
            Some("Install the package for local development")
        );
        assert_eq!(desc("lint"), None);
        assert_eq!(desc("typecheck"), None);
        // The rule's own comment comes first.
        assert_eq!(
            desc("docs-serve").as_deref(),
            Some("Build and serve the documentation")
        );
    }

    /// Each target's name and description, in order.
    fn descriptions(p: &Parsed) -> Vec<(&str, Option<&str>)> {
        p.commands
            .iter()
            .map(|c| (c.label.as_str(), c.description.as_deref()))
            .collect()
    }

    #[test]
    fn help_comment_descriptions() {
        let p = make(
            "##@ General\n\
             \n\
             .PHONY: help\n\
             help: ## Display this help.\n\
             \t@awk 'BEGIN {FS = \":.*##\"} ...' $(MAKEFILE_LIST)\n\
             \n\
             ## Build the binary\n\
             .PHONY: build\n\
             build: fmt vet\n\
             \tgo build ./...\n\
             \n\
             ## Format the code\n\
             ## with gofmt\n\
             fmt:\n\
             \tgofmt -w .\n\
             \n\
             ## vet: Run go vet\n\
             vet:\n\
             \tgo vet ./...\n\
             \n\
             ## Not attached: blank line below\n\
             \n\
             lint:\n\
             # plain comments are not descriptions\n\
             test:\n\
             run: build ## Run it\n\
             ##@ Deploy\n\
             deploy:\n",
        );
        let d = descriptions(&p);
        assert_eq!(
            d,
            [
                ("help", Some("Display this help.")),
                ("build", Some("Build the binary")),
                ("fmt", Some("Format the code with gofmt")),
                ("vet", Some("Run go vet")),
                ("lint", None),
                ("test", None),
                ("run", Some("Run it")),
                ("deploy", None),
            ]
        );
    }

    #[test]
    fn a_one_hash_comment_naming_the_target_describes_it() {
        // traefik's Makefile: `help` prints the `#?` lines with `sed -n 's/^#?//p'`.
        let p = make(
            "#? binary: Build the binary\n\
             .PHONY: binary\n\
             binary: dist\n\
             \tgo build ./...\n\
             \n\
             # test-unit: Run the unit tests\n\
             test-unit:\n\
             \tgo test ./...\n\
             \n\
             # Run the linters, then the tests\n\
             check: lint\n\
             \n\
             #? lint: Run golangci-lint\n\
             \n\
             lint:\n\
             \n\
             #? dist:\n\
             dist:\n\
             \n\
             #? other: Not this one\n\
             docs:\n",
        );
        let d = descriptions(&p);
        assert_eq!(
            d,
            [
                ("binary", Some("Build the binary")),
                ("test-unit", Some("Run the unit tests")),
                ("check", None),
                ("lint", None),
                ("dist", None),
                ("docs", None),
            ]
        );
    }

    #[test]
    fn first_definition_wins_and_later_rules_only_add_a_description() {
        let p = make(
            "build: a\n\ttrue\nbuild: b ## Build everything\ntest: ## First\ntest: ## Second\n",
        );
        assert_eq!(labels(&p), ["build", "test"]);
        assert_eq!(p.commands[0].line, Some(1));
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Build everything")
        );
        assert_eq!(p.commands[1].description.as_deref(), Some("First"));
    }

    #[test]
    fn upstream_false_positive_targets_fixed() {
        // Upstream reported `EXT_PUBLISHER` and `UNAME` from `VAR := x` and missed `a b: c`.
        assert_eq!(
            names("EXT_PUBLISHER := nimblesite\nUNAME := $(shell uname)\nlint test: deps\n"),
            ["lint", "test"]
        );
    }

    #[test]
    fn directives_are_not_rules() {
        assert_eq!(
            names(
                "include common.mk\n-include $(DEPS)\nsinclude x.mk\nvpath %.c src:lib\n\
                 ifeq ($(A),b:c)\nifneq (a,b)\nendif\nundefine X\ninclude: ## A target named include\n"
            ),
            ["include"]
        );
    }

    #[test]
    fn space_indented_rules_count() {
        assert_eq!(names("ifdef X\n  spaced: dep\nendif\n"), ["spaced"]);
    }

    #[test]
    fn make_picks_the_file_or_gets_dash_f() {
        let cmd = |fs: &MemFs, path: &str| parse_in(parse, fs, path).commands[0].command.clone();
        let fs = MemFs::new().file("/w/Makefile", "build:\n");
        assert_eq!(cmd(&fs, "/w/Makefile"), "make build");
        let fs = MemFs::new()
            .file("/w/Makefile", "build:\n")
            .file("/w/GNUmakefile", "x:\n");
        assert_eq!(cmd(&fs, "/w/Makefile"), "make -f Makefile build");
        assert_eq!(cmd(&fs, "/w/GNUmakefile"), "make x");
        let fs = MemFs::new()
            .file("/w/Makefile", "build:\n")
            .file("/w/makefile", "y:\n");
        assert_eq!(cmd(&fs, "/w/Makefile"), "make -f Makefile build");
        assert_eq!(cmd(&fs, "/w/makefile"), "make y");
        // A sibling folder named like a makefile does not count.
        let fs = MemFs::new()
            .file("/w/Makefile", "build:\n")
            .file("/w/makefile/x", "");
        assert_eq!(cmd(&fs, "/w/Makefile"), "make build");
        let fs = MemFs::new().file("/w/sub/build.mk", "build:\n");
        assert_eq!(cmd(&fs, "/w/sub/build.mk"), "make -f build.mk build");
    }

    #[test]
    fn nested_makefile_cwd_and_id() {
        let p = parse_with(parse, "/w/svc/api/Makefile", "run:\n\tgo run .\n");
        assert_eq!(p.commands[0].cwd, "/w/svc/api");
        assert_eq!(p.commands[0].id, "make:/w/svc/api/Makefile:run");
    }

    #[test]
    fn odd_input_never_panics() {
        for content in [
            "",
            "\\",
            ":",
            "::",
            "=",
            ":=",
            "a:\\",
            "$(",
            "${:",
            ")))): x",
            "é: ü ## ÿ\n",
            "define\n",
            "endef\nendef\n",
            "#\\",
            "\t\t\t",
            "\u{1}\u{2}\u{7f}: \u{fffd}",
            "a: b ; c \\\n",
        ] {
            let _ = make(content);
        }
        assert_eq!(names("é: ü ## ÿ\n"), ["é"]);
        let long = "a\\\n".repeat(10_000);
        assert!(make(&long).commands.is_empty());
    }

    #[test]
    fn token_soup_never_panics() {
        const TOKENS: &[&str] = &[
            "a",
            "_b",
            ".PHONY",
            ":",
            "::",
            "=",
            ":=",
            "?=",
            "$(",
            "${",
            ")",
            "}",
            "(",
            "#",
            "##",
            "\\",
            "\\#",
            "\n",
            "\t",
            " ",
            "\u{3000}",
            "é",
            "define ",
            "endef",
            "export ",
            ".RECIPEPREFIX",
            ">",
            ";",
            "&",
            "%",
            "/",
            "ifeq",
            "$$",
            "include ",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..3000 {
            let mut s = String::new();
            for _ in 0..40 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                s.push_str(TOKENS[(seed >> 33) as usize % TOKENS.len()]);
            }
            for c in make(&s).commands {
                assert!(is_command_name(&c.label), "{s:?} gave {:?}", c.label);
            }
        }
    }

    fn code(p: &Parsed, label: &str) -> Vec<(String, u32, Option<String>)> {
        p.commands
            .iter()
            .find(|c| c.label == label)
            .unwrap_or_else(|| panic!("no {label}"))
            .run_code
            .iter()
            .map(|c| (c.code.clone(), c.line, c.via.clone()))
            .collect()
    }

    #[test]
    fn run_code_fills_in_variables_and_keeps_computed_ones() {
        let p = make(
            "PREFIX ?= /usr/local\n\
             INSTALL_BIN = $(DESTDIR)$(PREFIX)/bin\n\
             GOPATH := $(shell go env GOPATH)\n\
             define copy\n\
             \tcp $(1) $(2)\n\
             endef\n\
             install:\n\
             \t@mkdir -p $(INSTALL_BIN)\n\
             \t$(call copy,app,$(INSTALL_BIN)) && echo $@ $$HOME\n\
             ifeq ($(X),1)\n\
             \tcp tool $(GOPATH)/bin\n\
             endif\n",
        );
        assert_eq!(
            code(&p, "install"),
            [
                ("@mkdir -p $(DESTDIR)/usr/local/bin".to_string(), 8, None),
                (
                    "\tcp app $(DESTDIR)/usr/local/bin && echo install $$HOME".to_string(),
                    9,
                    None
                ),
                // Recipe lines inside a conditional run too; a computed value keeps its name.
                ("cp tool $(GOPATH)/bin".to_string(), 11, None),
            ]
        );
    }

    #[test]
    fn curdir_is_the_folder_make_runs_in_unless_the_makefile_sets_it() {
        // kind's `REPO_ROOT:=${CURDIR}`: its `clean` deletes the project's `bin/`, not `/bin`.
        let p = make(
            "REPO_ROOT:=${CURDIR}\nOUT_DIR=$(REPO_ROOT)/bin\nclean:\n\trm -rf \"$(OUT_DIR)/\"\n",
        );
        assert_eq!(
            code(&p, "clean"),
            [("rm -rf \"./bin/\"".to_string(), 4, None)]
        );
        let p = make("CURDIR = /srv\nclean:\n\trm -rf $(CURDIR)/tmp\n");
        assert_eq!(
            code(&p, "clean"),
            [("rm -rf /srv/tmp".to_string(), 3, None)]
        );
    }

    #[test]
    fn run_code_includes_the_recipes_of_file_prerequisites() {
        let p = make(
            "LINT := $(BIN)/golangci-lint\n\
             lint: $(LINT) tools/gen.sh\n\
             \t$(LINT) run\n\
             $(LINT):\n\
             \tcurl -sfL https://x.io/install.sh | sh -s -- -b $(BIN)\n\
             tools/gen.sh: stamp.txt\n\
             \ttouch $@\n\
             stamp.txt:\n\
             \tdate > $@\n",
        );
        assert_eq!(
            code(&p, "lint"),
            [
                ("$(BIN)/golangci-lint run".to_string(), 3, None),
                (
                    "curl -sfL https://x.io/install.sh | sh -s -- -b $(BIN)".to_string(),
                    2,
                    Some("$(LINT)".to_string())
                ),
                (
                    "touch tools/gen.sh".to_string(),
                    2,
                    Some("tools/gen.sh".to_string())
                ),
                (
                    "date > stamp.txt".to_string(),
                    2,
                    Some("stamp.txt".to_string())
                ),
            ]
        );
        assert_eq!(labels(&p), ["lint"]);
    }

    #[test]
    fn a_call_that_sets_variables_the_recipe_uses_is_read_with_them() {
        let p = make(
            "INSTALL_TOP = /usr/local\n\
             install:\n\
             \tcp lua $(INSTALL_TOP)/bin\n\
             local:\n\
             \t$(MAKE) install INSTALL_TOP=..\n\
             verbose:\n\
             \t$(MAKE) install V=1\n",
        );
        // The values change what `install` runs: its recipe with them, not the step.
        assert!(steps(&p, "local").is_empty());
        assert_eq!(
            code(&p, "local"),
            [
                ("$(MAKE) install INSTALL_TOP=..".to_string(), 5, None),
                (
                    "cp lua ../bin".to_string(),
                    4,
                    Some("install INSTALL_TOP=..".to_string())
                ),
            ]
        );
        assert_eq!(
            steps(&p, "verbose"),
            [("install".to_string(), "call", true)]
        );
    }

    #[test]
    fn scripts_and_other_folders_makefiles_are_steps() {
        let fs = MemFs::new()
            .file(
                "/w/Makefile",
                "SUBDIRS = src lib\n\
                 proto:\n\
                 \t@./scripts/gen.sh\n\
                 install:\n\
                 \tfor d in $(SUBDIRS); do $(MAKE) -C $$d $@; done\n\
                 missing:\n\
                 \t./scripts/none.sh && $(MAKE) -C /abs x\n",
            )
            .file("/w/scripts/gen.sh", "#!/bin/sh\ngo install x\n")
            .file("/w/src/Makefile", "install:\n\ttrue\n")
            .file("/w/lib/GNUmakefile", "install:\n\ttrue\n");
        let p = parse_in(parse, &fs, "/w/Makefile");
        let item = |l: &str| p.commands.iter().find(|c| c.label == l).unwrap();
        let scopes = |l: &str| {
            item(l)
                .steps
                .iter()
                .map(|s| (s.name.clone(), s.scope.clone()))
                .collect::<Vec<_>>()
        };
        use crate::model::StepScope;
        assert_eq!(
            scopes("proto"),
            [(
                "gen.sh".to_string(),
                StepScope::File {
                    kind: "shell".into(),
                    file: PathBuf::from("/w/scripts/gen.sh")
                }
            )]
        );
        assert_eq!(
            scopes("install"),
            [
                (
                    "install".to_string(),
                    StepScope::File {
                        kind: "make".into(),
                        file: PathBuf::from("/w/src/Makefile")
                    }
                ),
                (
                    "install".to_string(),
                    StepScope::File {
                        kind: "make".into(),
                        file: PathBuf::from("/w/lib/GNUmakefile")
                    }
                ),
            ]
        );
        assert!(scopes("missing").is_empty());
    }

    #[test]
    fn expansion_of_a_crafted_makefile_stays_bounded() {
        let mut mk = String::from("A0 = x\n");
        for i in 1..40 {
            mk.push_str(&format!("A{i} = $(A{}) $(A{})\n", i - 1, i - 1));
        }
        mk.push_str("B = $(B)$(B)\nt:\n\techo $(A39) $(B)\n");
        let p = make(&mk);
        let c = code(&p, "t");
        assert!(c[0].0.len() <= 70 * 1024, "{}", c[0].0.len());
    }
}
