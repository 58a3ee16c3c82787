//! Embeddings and semantic search: keeping every command's embedding current, loading (or
//! downloading) the model, searching by meaning, and the embedding checks of a database check.

use crate::{Error, Loaded, Result};
use commandtree_core::{CancelToken, CommandItem, Progress, ProgressEvent, StepHow, Workspace};
use commandtree_embed::pipeline::{self, Plan, Report};
use commandtree_embed::{Embedder, model};
use commandtree_store::{Check, Store};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use commandtree_embed::search::DEFAULT_THRESHOLD;

/// The commands whose embedding is missing or out of date (all of them with `force`).
pub fn plan(loaded: &Loaded, force: bool) -> Result<Plan> {
    let store = loaded
        .store
        .as_ref()
        .ok_or_else(|| Error::NoDatabase(commandtree_store::db_path(&loaded.root)))?;
    Ok(pipeline::plan(store, &loaded.workflow_commands(), force)?)
}

/// Finds the model (or downloads it, reporting each file's progress) and loads it.
pub fn load_model(
    root: &Path,
    on_download: &mut dyn FnMut(model::Progress<'_>),
) -> Result<Embedder> {
    let dir: PathBuf =
        model::ensure(root, on_download).map_err(|e| Error::failed(e.to_string()))?;
    Embedder::load(&dir).map_err(|e| Error::failed(e.to_string()))
}

/// Loads the model when it is already on this machine; never downloads (for front ends that
/// must not start a large download on their own, such as a server).
pub fn local_model(root: &Path) -> Result<Option<Embedder>> {
    match model::find(root) {
        Some(dir) => Embedder::load(&dir)
            .map(Some)
            .map_err(|e| Error::failed(e.to_string())),
        None => Ok(None),
    }
}

/// Where the embedding model is on this machine, or what to do to get it (for `ct doctor`).
pub fn model_status(root: &Path) -> std::result::Result<PathBuf, String> {
    commandtree_embed::model::find(root).ok_or_else(|| {
        let mut m = commandtree_embed::model::missing_message(root);
        if commandtree_embed::model::offline() {
            m.push_str(" (downloads are off now)");
        }
        m
    })
}

/// Gets a server's search ready without a manual step: the model when it is on this machine
/// (else what to do about it), and, the first time, a database to index into (made when
/// `may_write`; the next [`search`] embeds what is missing). Never downloads.
pub fn ready(loaded: &mut Loaded, may_write: bool) -> Result<Embedder> {
    let Some(embedder) = local_model(&loaded.root)? else {
        return Err(Error::failed(commandtree_embed::model::missing_message(
            &loaded.root,
        )));
    };
    if !has_embeddings(loaded)? {
        if !may_write {
            return Err(Error::failed(no_embeddings_message(loaded.commands.len())));
        }
        // A listing's read-only handle cannot take the embeddings: open it for writing.
        if loaded.store.as_ref().is_some_and(|s| s.is_read_only()) {
            loaded.store = None;
        }
        loaded.writable_or_create()?;
    }
    Ok(embedder)
}

/// Embeds what `plan` lists, storing each group as it is done.
pub fn embed(
    store: &mut Store,
    embedder: &Embedder,
    plan: Plan,
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<Report> {
    let r = pipeline::run(
        store,
        embedder,
        plan,
        &mut |done, total| {
            progress.report(ProgressEvent {
                operation: "embed",
                done: done as u64,
                total: Some(total as u64),
                message: None,
            })
        },
        &|| cancel.is_cancelled(),
    )
    .map_err(|e| Error::failed(e.to_string()))?;
    if cancel.is_cancelled() {
        return Err(Error::Cancelled);
    }
    Ok(r)
}

/// After summaries were stored: re-embeds the commands whose text changed, when the model is on
/// this machine (never downloads here). Returns how many were embedded.
pub fn embed_after_summaries(
    ws: &Workspace,
    store: &mut Store,
    commands: &[CommandItem],
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<usize> {
    let Some(dir) = model::find(&ws.root) else {
        return Ok(0);
    };
    let plan = pipeline::plan(store, commands, false)?;
    if plan.items.is_empty() {
        return Ok(0);
    }
    let embedder = Embedder::load(&dir).map_err(|e| Error::failed(e.to_string()))?;
    Ok(embed(store, &embedder, plan, cancel, progress)?.embedded)
}

/// One search result and why it ranks where it does.
#[derive(Debug, Clone)]
pub struct Hit {
    pub command: CommandItem,
    /// Relevance, 0–1: 1 for the exact name, else the fused rank against the best possible
    /// (first in both lists).
    pub score: f32,
    /// Cosine similarity of the query and the command's embedding.
    pub similarity: Option<f32>,
    /// 1-based place in the lexical (BM25) list; `None` when no word of the query is in it.
    pub lexical_rank: Option<usize>,
    /// 1-based place in the semantic list (all commands by similarity).
    pub semantic_rank: Option<usize>,
    /// The query is its name or one of its aliases.
    pub exact: bool,
}

/// Search results, best first.
pub struct Found {
    pub hits: Vec<Hit>,
    /// Commands added or changed since the last embedding were embedded first; a problem
    /// storing them (the search still ran) is said here.
    pub refresh_warning: Option<String>,
}

/// Why a search cannot run yet.
pub fn no_embeddings_message(n: usize) -> String {
    format!(
        "no command has an embedding yet; run `ct embed` to make them ({n} command{})",
        if n == 1 { "" } else { "s" }
    )
}

/// Which lists a search ranks by. Every front end searches `Hybrid`; the single lists are
/// there to measure it against (`ct search --mode`, `bench/search.sh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Hybrid,
    Lexical,
    Semantic,
}

/// Several commands share a name (`dev` in every package, `test` in every Gradle module): the
/// one the query points to takes the best place among them. That is the one whose folder the
/// query names (more of its folder's words, then more whole folder names: "run the okhttp module
/// tests" means `okhttp/`, not `okhttp-brotli/`), else the one a name would resolve to (nearest
/// the current folder, the root's own at the root). What else a member's text holds does not
/// choose between them: every copy of a task says much the same. The chosen one may come from
/// below the shortlist (`rest`): forty modules with the same `test` tie, and the root's may be
/// the forty-first. A script's extension does not make another name (`lint-fix.sh`, `lint-fix`).
/// A command's name as one key without allocating (this runs over every command that entered):
/// FNV-1a over its label's lowercase bytes, a script extension left out, so `lint-fix.sh` and
/// `lint-fix.ps1` are one name.
fn name_key(c: &CommandItem) -> u64 {
    let l = c.label.as_bytes();
    let end = match l.iter().rposition(|&b| b == b'.') {
        Some(p)
            if p > 0
                && crate::lexical::SCRIPT_EXTENSIONS
                    .iter()
                    .any(|e| l[p + 1..].eq_ignore_ascii_case(e.as_bytes())) =>
        {
            p
        }
        _ => l.len(),
    };
    l[..end].iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What `nearest_of_a_name_first` knows of each command beside its score: how many of the
/// query's words it holds and whether a task the project wrote stands for it
/// (`shadowed_verbs`); and the units a query asks for all of (`all_units`).
struct Known<'a> {
    held: &'a [u16],
    shadowed: &'a [bool],
    units: &'a [String],
}

fn nearest_of_a_name_first(
    at: crate::names::At<'_>,
    commands: &[CommandItem],
    query: &str,
    known: &Known<'_>,
    scored: &mut Vec<(usize, f32, bool)>,
    rest: &[(usize, f32, bool)],
) {
    let Known {
        held,
        shadowed,
        units,
    } = *known;
    let name = |i: usize| name_key(&commands[i]);
    let mut groups: std::collections::HashMap<u64, Vec<(usize, f32, bool)>> = Default::default();
    for e in scored.iter() {
        groups.entry(name(e.0)).or_default().push(*e);
    }
    // Only names already on the shortlist matter; their other members may be further down.
    // Read in the listing's order: in `rest`'s, each command is a cache miss, 20 ms on
    // 100,000.
    if !rest.is_empty() {
        let mut wanted: Vec<u64> = groups.keys().copied().collect();
        wanted.sort_unstable();
        let mut in_rest = vec![u32::MAX; commands.len()];
        for (k, e) in rest.iter().enumerate() {
            in_rest[e.0] = k as u32;
        }
        for (i, c) in commands.iter().enumerate() {
            if in_rest[i] == u32::MAX {
                continue;
            }
            let key = name_key(c);
            if wanted.binary_search(&key).is_ok()
                && let Some(g) = groups.get_mut(&key)
            {
                g.push(rest[in_rest[i] as usize]);
            }
        }
    }
    // "Every package" names no package's folder (`packages/package/`): it asks for all of them.
    let all_of = |w: &String| {
        units
            .iter()
            .any(|u| crate::lexical::stem(u) == crate::lexical::stem(w))
    };
    let asked: std::collections::HashSet<String> = crate::lexical::tokens(query)
        .into_iter()
        .filter(|w| !all_of(w))
        .collect();
    // A folder spelled out in the query as it is written: "the spec tests under tests/specs"
    // names `tests/specs/` though `spec` and `test` are one word to the index (not so
    // "packages" for `packaging/`, which only shares a stem).
    let spelled_out: std::collections::HashSet<String> = crate::lexical::spelled_words(query)
        .into_iter()
        .filter(|w| !all_of(w))
        .collect();
    // Each folder's own name as words, split once: many members share a folder.
    let mut folders: std::collections::HashMap<&Path, (Vec<String>, Vec<String>)> =
        Default::default();
    let mut chosen_of: std::collections::HashMap<u64, usize> = Default::default();
    for members in groups.values().filter(|m| m.len() > 1) {
        let label = &commands[members[0].0].label;
        let own = crate::lexical::tokens(label);
        // Stems, not synonyms: `module-tests/` is not named apart from `test` by "tests", but
        // `specs/` is.
        let own_stems: Vec<String> = crate::lexical::spelled_words(label)
            .iter()
            .map(|w| crate::lexical::stem(w))
            .collect();
        let mut key = |e: &(usize, f32, bool)| {
            let c = &commands[e.0];
            let dir = c.path().parent().unwrap_or(Path::new(""));
            let (folder, folder_spelled) = folders.entry(dir).or_insert_with(|| {
                let name = dir
                    .strip_prefix(at.root)
                    .ok()
                    .and_then(|r| r.file_name())
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (
                    crate::lexical::tokens(&name),
                    crate::lexical::spelled_words(&name),
                )
            });
            let spelled = !folder_spelled.is_empty()
                && folder_spelled.iter().all(|w| {
                    spelled_out.contains(w) && !own_stems.contains(&crate::lexical::stem(w))
                });
            // The query names the folder as a whole besides the name: "run the okhttp module
            // tests" is `okhttp/`, not `okhttp-brotli/`, nor `module-tests/`.
            let named =
                !folder.is_empty() && folder.iter().all(|w| asked.contains(w) && !own.contains(w));
            // A build tool's verb under a task of its name the project wrote (the root
            // Taskfile's `fmt` over the docs site's `www/go.mod`; see `shadowed_verbs`) is not
            // the one meant, however many of the query's words its tool's text holds.
            let outranked = shadowed[e.0];
            let (auxiliary, distance, tier, _) = crate::names::rank(at, c);
            (
                // "Type check all the packages": the one over every package, not the package
                // whose own text holds more of the words.
                of_one_unit(at.root, c, units),
                outranked,
                std::cmp::Reverse(held[e.0]),
                std::cmp::Reverse(named || spelled),
                auxiliary,
                distance,
                tier,
            )
        };
        // Of equals (scripts of one name in one folder: `lint-fix.sh`, `lint-fix.ps1`) the
        // better ranked.
        let chosen = *members
            .iter()
            .map(|e| (key(e), e))
            .min_by(|(ka, a), (kb, b)| ka.cmp(kb).then(b.1.total_cmp(&a.1)))
            .expect("a group has members")
            .1;
        chosen_of.insert(name(chosen.0), chosen.0);
        // The best of the others; a tie goes to the chosen one too.
        let Some(best) = members
            .iter()
            .filter(|e| e.0 != chosen.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .copied()
        else {
            continue;
        };
        if best.1 >= chosen.1 {
            let lifted = (chosen.0, best.1 + 1e-4, chosen.2);
            match scored.iter_mut().find(|e| e.0 == chosen.0) {
                Some(e) => *e = lifted,
                None => scored.push(lifted),
            }
        }
    }
    // The others are the same task for another folder: a user who means one of them names it
    // (and it is chosen). Left in place, forty crates' `clippy` fill the first page and push
    // down the script a paraphrase means.
    for e in scored.iter_mut() {
        if chosen_of.get(&name(e.0)).is_some_and(|&c| c != e.0) {
            e.1 *= OTHER_OF_A_NAME;
        }
    }
}

/// How much a command keeps of its score when another of its name is chosen (see
/// `nearest_of_a_name_first`): as much as an auxiliary command.
const OTHER_OF_A_NAME: f32 = 0.5;

/// A similarity from which a command's meaning is a confident match (see
/// [`decisive_meaning`]).
const CONFIDENT: f32 = 0.5;

/// How far a confident match's similarity must be ahead of every other command's to be the
/// one meant. Over the benchmark's tuning and seen queries, 44 of 45 first semantic results
/// this confident and this far ahead were right; most wrong ones were within 0.07 of the next.
const DECISIVE_MARGIN: f32 = 0.1;

/// The command whose meaning is a confident match and clearly the closest (by
/// [`DECISIVE_MARGIN`] over the next), if there is one.
fn decisive_meaning(sims: &[Option<f32>]) -> Option<usize> {
    let (mut first, mut second) = ((usize::MAX, f32::MIN), f32::MIN);
    for (i, s) in sims.iter().enumerate() {
        let Some(s) = *s else { continue };
        if s > first.1 {
            second = first.1;
            first = (i, s);
        } else if s > second {
            second = s;
        }
    }
    (first.1 >= CONFIDENT && first.1 - second >= DECISIVE_MARGIN).then_some(first.0)
}

/// The words that only start a task by its name (`make lint`, `just fmt`, `npm run x`).
const RUNNER_WORDS: &[&str] = &[
    "make", "just", "task", "mise", "run", "npm", "yarn", "pnpm", "bun", "rake", "cargo",
];

/// Whether all a command's embedded text says is its name (`make common-build`: its name, its
/// runner, its folder, nothing describing it): then how far it is in meaning is how far its
/// name is, and says nothing of what its recipe does.
fn meaning_is_its_name(c: &CommandItem) -> bool {
    let said = |t: &Option<String>| t.as_deref().is_some_and(|t| !t.trim().is_empty());
    if said(&c.description) || said(&c.summary) {
        return false;
    }
    let name = crate::lexical::tokens(&c.label);
    let runner = crate::lexical::tokens(&c.kind);
    // Its runner's options (`tox -e twinecheck`) say nothing either.
    c.command
        .split_whitespace()
        .filter(|w| !w.starts_with('-'))
        .flat_map(crate::lexical::tokens)
        .all(|w| name.contains(&w) || runner.contains(&w) || RUNNER_WORDS.contains(&w.as_str()))
}

/// How far ahead of the next command's the best BM25 score must be for its words to say which
/// command is meant: the next scores at most this share of it. Over the benchmark's tuning and
/// seen queries, a first lexical result this far ahead was right where the fused rank let a
/// command both lists put a little lower pass it ("run the database migrations": the script
/// whose comment says so, ahead of a Compose `up db` semantically near).
const DECISIVE_WORDS: f32 = 0.7;

/// Decisive words count only for a command this high in the semantic list: words far ahead
/// in a command far from the query in meaning are a coincidence of vocabulary (vite's
/// `test-serve-bundled`, 26th by meaning, for "start the dev server").
const DECISIVE_WORDS_MEANING: usize = 10;

/// Words this far ahead (the next command's BM25 score at most this share of the first's), and
/// more of the query's words than any other command holds, are no coincidence, however far the
/// command is in meaning: a recipe of `pre-commit run --all-files` for "run pre-commit hooks on
/// all files", one of `ruff check` and `black --check` for "check python code style with ruff
/// and black", where the small model puts every Python script nearer for the word "python".
/// A script that says "run" and "specs" over and over is not "run the F# specs" though: the F#
/// project's `test` holds as many of the words.
const DECISIVE_WORDS_FAR: f32 = 0.45;

/// The command whose words match the query far better than any other's (see
/// [`DECISIVE_WORDS`]), or the only one holding any of them, and whether they are so far ahead
/// that its meaning need not be near ([`DECISIVE_WORDS_FAR`]). Not one of several of its name
/// that hold the query's words, unless that far ahead of them: which of those is meant is
/// `nearest_of_a_name_first`'s to say.
fn decisive_words(
    commands: &[CommandItem],
    lexical: &[crate::lexical::Ranked],
) -> Option<(usize, bool)> {
    let (first, far) = match lexical {
        [only] => (only.doc, false),
        [first, second, ..] if second.score <= first.score * DECISIVE_WORDS => (
            first.doc,
            second.score <= first.score * DECISIVE_WORDS_FAR
                && lexical[1..].iter().all(|l| l.held < first.held),
        ),
        _ => return None,
    };
    let name = name_key(&commands[first]);
    (far || !lexical[1..]
        .iter()
        .any(|l| name_key(&commands[l.doc]) == name))
    .then_some((first, far))
}

/// How deep the semantic list is ranked (see `fuse`).
const SEMANTIC_DEPTH: usize = 1000;

/// A name that says less than this share of the query is not near its exact name (`test` for
/// "only run the tests matching a pattern").
const NAME_SAYS_ENOUGH: f32 = 0.5;

/// How much of the query a program a command runs says when the query names it (see
/// `crate::lexical::Ranked::invokes`): enough to count as a name.
const INVOKED_NAME: f32 = NAME_SAYS_ENOUGH;

/// How much a name that says all of the query lifts a command: enough to pass a neighbour
/// both lists put a little higher, not one far above.
const NAME_WEIGHT: f32 = 0.5;

/// How much a command named for another task than the query asks keeps of its score: it
/// passes a neighbour named for the asked task only from well above.
const OTHER_ACTION: f32 = 0.85;

/// How much a command named for the task the query asks for gains over one whose name says no
/// task: enough to pass a neighbour the lists put level, not one clearly ahead.
const SAME_ACTION: f32 = 1.05;

/// How much a command named only for the project keeps of its score when the query asks for
/// more than the name ("start the interactive elixir shell": not the `elixir` target).
const PROJECT_NAME_ONLY: f32 = 0.85;

/// How much a documentation site's command keeps of its score for a query not about docs.
const DOCS_SITE: f32 = 0.7;

/// Words of a query that speak of CI (and "pull request").
const CI_WORDS: &[&str] = &[
    "ci", "workflow", "github", "action", "pipeline", "runner", "pr",
];

/// Words of a query about an agent's instructions.
const AGENT_WORDS: &[&str] = &[
    "agent",
    "instruction",
    "claude",
    "copilot",
    "cursor",
    "gemini",
    "codex",
    "ai",
    "llm",
    "prompt",
    "rule",
    "guideline",
];

/// A query's words as written, lowercase, without "the" ("all the tests" reads as "all
/// tests"): what `asks_whole` and `asks_everything` look at in pairs.
fn plain_words(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("the"))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Whether a query asks for the whole workspace: it names the solution, or all of its tests
/// or projects ("run all the tests", "every project"); "every supported test framework" or
/// "the whole CI pipeline" is something else.
fn asks_whole(query: &str) -> bool {
    let words = plain_words(query);
    words.iter().any(|w| w == "solution")
        || words.windows(2).any(|p| {
            ["all", "every", "whole", "entire"].contains(&p[0].as_str())
                && ["test", "tests", "spec", "specs", "project", "projects"]
                    .contains(&p[1].as_str())
        })
}

/// How many commands a command runs for it to be one that runs a set of them (`tox`, `ci`),
/// not a task done in a few steps.
const MANY_STEPS: usize = 4;

/// How much a command running many others keeps of its score when one of them is found too.
const AGGREGATE: f32 = 0.8;

/// The steps `c` runs as commands of their own (not its hooks).
fn calls(c: &CommandItem) -> usize {
    c.steps.iter().filter(|s| s.how != StepHow::Hook).count()
}

/// Whether a query asks for everything, the default set or what CI runs: "run everything CI
/// runs", "the full test suite", "run all the checks" (all or every of tasks or of the things
/// that run them); not "the tests with all the optional dependencies".
fn asks_everything(query: &str) -> bool {
    let words = plain_words(query);
    let of_tasks = |w: &str| {
        crate::lexical::tokens(w).iter().any(|t| {
            crate::lexical::actions(t) != 0
                || ["env", "step", "target", "job", "suite", "hook", "session"]
                    .contains(&t.as_str())
        }) || ["tasks", "task"].contains(&w)
    };
    // All of the units of a project ("build all the npm packages") is everything too.
    !all_units(query).is_empty()
        || words.iter().enumerate().any(|(i, w)| {
            [
                "everything",
                "whole",
                "entire",
                "full",
                "complete",
                "default",
                "ci",
            ]
            .contains(&w.as_str())
                || (["all", "every"].contains(&w.as_str())
                    && words.get(i + 1).is_some_and(|next| of_tasks(next)))
        })
}

/// The requests of a query listing several ("clean, format and test"), each as its words;
/// `None` for a query asking one thing.
fn requests(query: &str) -> Option<Vec<Vec<String>>> {
    let requests: Vec<Vec<String>> = crate::lexical::clauses(query)
        .map(crate::lexical::tokens)
        .filter(|t| !t.is_empty())
        .collect();
    (requests.len() >= 2).then_some(requests)
}

/// The command whose own steps do every request a query lists, when one does so alone:
/// "clean, format, test and build in one go" is `all: clean format tests build`, "the full test
/// suite including backend, frontend and lint" is `test: backend-unit-tests frontend-unit-tests
/// lint`, though each step's name is nearer one request. Each request is done by a different
/// name, the command's own or a direct step's (a make prerequisite, an `npm run x` it calls),
/// holding one of the request's words: a command of one name does one request however many
/// words it holds (`deploy-test-checks-root`). Nothing for a query of one request, nor when no
/// command does every request (`ci: lint tests` is not "lint, test and deploy"). Only among
/// the commands `near` the query, first few by words or by meaning: steps named "deploy" and
/// "lint" do not make `test` "deploy all the sample apps and check that they respond".
/// `asked` is the query's words ([`crate::lexical::tokens`]).
fn covering(
    commands: &[CommandItem],
    query: &str,
    asked: &[String],
    near: impl Fn(usize) -> bool,
) -> Option<usize> {
    let requests = requests(query)?;
    let composites: Vec<usize> = (0..commands.len())
        .filter(|&i| !commands[i].steps.is_empty() && near(i))
        .collect();
    if composites.is_empty() {
        return None;
    }
    let index = crate::closure::Index::new(commands);
    let done = |i: usize| -> usize {
        let c = &commands[i];
        let mut names = vec![crate::lexical::tokens(&c.label)];
        for s in c.steps.iter().filter(|s| s.how != StepHow::Hook) {
            names.extend(
                index
                    .resolve(c, s)
                    .into_iter()
                    .map(|d| crate::lexical::tokens(&d.label)),
            );
        }
        let can: Vec<Vec<usize>> = requests
            .iter()
            .map(|r| {
                (0..names.len())
                    .filter(|&n| names[n].iter().any(|w| r.contains(w)))
                    .collect()
            })
            .collect();
        matching(&can, names.len())
    };
    // Of two doing as much, the one whose name says nothing else (`test` before
    // `test-ci-docker`, both running lint, unit and deploy tests).
    let besides = |i: usize| {
        crate::lexical::tokens(&commands[i].label)
            .iter()
            .filter(|w| !asked.contains(w))
            .count()
    };
    let mut done_by: Vec<(usize, usize, usize)> = composites
        .iter()
        .map(|&i| (i, done(i), besides(i)))
        .collect();
    done_by.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
    let (winner, n, extra) = done_by[0];
    let tied = done_by.get(1).is_some_and(|s| s.1 == n && s.2 == extra);
    (n == requests.len() && !tied).then_some(winner)
}

/// A query asking for several of a Compose file's services together ("start the database and
/// cache services", "bring up the dev environment with postgres and redis"): the file's `up`,
/// which starts them all, not the one service a word names. A service is named by its own name
/// or by what its description says it is (`redis`: "in-memory store (cache, queues)"); two
/// requests must each name a different service. Of several files that have them (a CI one
/// beside the project's), the one whose service ranks best by `rank`.
fn services_together(
    commands: &[CommandItem],
    query: &str,
    rank: impl Fn(usize) -> usize,
) -> Option<usize> {
    let requests = requests(query)?;
    let mut files: Vec<(&str, Option<usize>, Vec<usize>)> = Vec::new();
    for (i, c) in commands.iter().enumerate() {
        if c.kind != "docker" || c.auxiliary || c.hidden {
            continue;
        }
        let at = match files.iter().position(|f| f.0 == c.file_path) {
            Some(at) => at,
            None => {
                files.push((c.file_path.as_str(), None, Vec::new()));
                files.len() - 1
            }
        };
        match commandtree_core::sources::docker::started_service(&c.label) {
            Some(_) => files[at].2.push(i),
            None if c.label == "up" => files[at].1 = Some(i),
            None => {}
        }
    }
    let found = files.into_iter().filter_map(|(_, up, services)| {
        let up = up?;
        let words: Vec<Vec<String>> = services
            .iter()
            .map(|&i| {
                let c = &commands[i];
                let service = commandtree_core::sources::docker::started_service(&c.label);
                let mut w = crate::lexical::tokens(service.unwrap_or_default());
                if let Some((_, what)) = c.description.as_deref().and_then(|d| d.split_once(':')) {
                    w.extend(crate::lexical::tokens(what));
                }
                w
            })
            .collect();
        let can: Vec<Vec<usize>> = requests
            .iter()
            .map(|r| {
                (0..words.len())
                    .filter(|&n| {
                        r.iter()
                            .any(|w| crate::lexical::actions(w) == 0 && words[n].contains(w))
                    })
                    .collect()
            })
            .collect();
        let best = can.iter().flatten().map(|&n| rank(services[n])).min()?;
        (matching(&can, words.len()) >= 2).then_some((best, up))
    });
    found.min().map(|(_, up)| up)
}

/// The size of a largest matching of requests to names, `can[r]` the names request `r` may
/// take (augmenting paths; a query lists a handful of requests, a command a few dozen steps).
fn matching(can: &[Vec<usize>], names: usize) -> usize {
    fn augment(
        r: usize,
        can: &[Vec<usize>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for &n in &can[r] {
            if seen[n] {
                continue;
            }
            seen[n] = true;
            if owner[n].is_none_or(|o| augment(o, can, seen, owner)) {
                owner[n] = Some(r);
                return true;
            }
        }
        false
    }
    let mut owner = vec![None; names];
    (0..can.len())
        .filter(|&r| augment(r, can, &mut vec![false; names], &mut owner))
        .count()
}

/// Puts `d` above every other entry of `scored` that `passes` (by `margin`), unless it is
/// already: a decisive command's, or one doing every request's, place among the priors.
fn lift_above(
    scored: &mut [(usize, f32, bool)],
    d: usize,
    margin: f32,
    passes: impl Fn(usize) -> bool,
) {
    let top = scored
        .iter()
        .filter(|e| e.0 != d && passes(e.0))
        .map(|e| e.1)
        .fold(f32::MIN, f32::max);
    if let Some(e) = scored.iter_mut().find(|e| e.0 == d)
        && e.1 <= top
    {
        e.1 = top + margin;
    }
}

/// How far down either list a command doing every request of a query may be ([`covering`]).
const COVERING_NEAR: usize = 3;

/// Nouns of a workspace's units: "every package", "all the plugins" ask for each of them, which a
/// command of one unit (in `packages/kit/`, `go-build-plugin` taking a plugin's name) does not
/// do, and a command at the root or named for all of them does.
const UNITS: &[&str] = &[
    "package",
    "project",
    "crate",
    "module",
    "plugin",
    "app",
    "library",
    "service",
    "component",
    "extension",
    "adapter",
    "integration",
];

/// The units a query asks for all of (see [`UNITS`]), as their one-unit spelling (`plugin`
/// for "all the plugins", `package` for "every package's code").
fn all_units(query: &str) -> Vec<String> {
    let words = crate::lexical::spelled_words(query);
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        if !ALL_WORDS.contains(&w.as_str()) {
            continue;
        }
        // "all the plugins", "every single package": the noun within two words.
        for next in words.iter().skip(k + 1).take(2) {
            let one = crate::lexical::stem(next);
            if let Some(u) = UNITS.iter().find(|u| crate::lexical::stem(u) == one) {
                out.push((*u).to_string());
                break;
            }
        }
    }
    out
}

/// The words that ask for every one of something ("all the plugins", `package:all`).
const ALL_WORDS: &[&str] = &["all", "every", "each"];

/// Whether `c` does one of the units the query asks all of: its name holds the unit as one
/// (`go-test-plugin`, not `test-plugins`, nor `package:all`) or it lies in a unit's folder
/// (`packages/kit/`, `plugins/certs/`).
fn of_one_unit(root: &Path, c: &CommandItem, units: &[String]) -> bool {
    if units.is_empty() {
        return false;
    }
    let own = crate::lexical::spelled_words(&c.label);
    let names_one = own.iter().any(|w| units.contains(w))
        && !own.iter().any(|w| ALL_WORDS.contains(&w.as_str()));
    let rel = c
        .path()
        .parent()
        .and_then(|d| d.strip_prefix(root).ok())
        .unwrap_or(Path::new(""));
    let in_one = rel.components().any(|part| {
        let part = crate::lexical::stem(&part.as_os_str().to_string_lossy().to_ascii_lowercase());
        units.iter().any(|u| crate::lexical::stem(u) == part)
    });
    names_one || in_one
}

/// Folder names that say what a folder holds, not which one thing it is: "start the api example
/// app" names no template's `app/`, "every test in the workspace" no fixture's `workspace/`.
const GENERIC_FOLDERS: &[&str] = &[
    "app",
    "apps",
    "application",
    "workspace",
    "project",
    "package",
    "packages",
    "member",
    "members",
    "module",
    "modules",
    "src",
    "lib",
    "main",
    "core",
    "common",
    "shared",
];

/// Which of the auxiliary commands `rest` (left out of a listing) the query asks for by their
/// own folder's name: "start the basics test app's dev server" means
/// `packages/kit/test/apps/basics/`'s `dev`. They are searched with the listed commands,
/// ranked as the project's own: they were asked for. The folder's name must hold a word that
/// no listed command's name or folder holds, nor the project's name ("run the deno CLI" names
/// no fixture's `members/deno/`), and be neither a kind of folder (`tests`, `examples`) nor a
/// generic one ([`GENERIC_FOLDERS`]): those name no one thing. A folder inside a kind of folder
/// is named with its kind ("the client tests" for `tests/client/`). So is a script the query
/// names whole by its own file name, of two or more words, one of them no listed command's and
/// no kind of folder ("run the exactly once demo": Kafka's `examples/bin/exactly-once-demo.sh`;
/// not `build-demo.sh` for "run the build demo").
fn named_auxiliary(
    root: &Path,
    query: &str,
    shown: &[CommandItem],
    rest: &[CommandItem],
) -> Vec<bool> {
    let asked = crate::lexical::spelled_words(query);
    let asked_tokens = crate::lexical::tokens(query);
    let listed: std::cell::OnceCell<std::collections::HashSet<String>> = Default::default();
    let listed = || {
        listed.get_or_init(|| {
            shown
                .iter()
                .flat_map(|c| {
                    let dir = c.path().parent().unwrap_or(c.path());
                    let rel = dir.strip_prefix(root).unwrap_or(dir);
                    let mut w = crate::lexical::spelled_words(&rel.to_string_lossy());
                    w.extend(crate::lexical::spelled_words(&c.label));
                    w
                })
                .chain(
                    root.file_name()
                        .map(|n| crate::lexical::spelled_words(&n.to_string_lossy()))
                        .unwrap_or_default(),
                )
                .collect()
        })
    };
    let names_itself = |c: &CommandItem| {
        let stem = Path::new(&c.label)
            .file_stem()
            .map_or(c.label.clone(), |s| s.to_string_lossy().into_owned());
        let words: Vec<String> = crate::lexical::spelled_words(&stem)
            .into_iter()
            .filter(|w| w.len() >= 3)
            .collect();
        words.len() >= 2
            && words.iter().all(|w| asked.contains(w))
            && words.iter().any(|w| {
                !listed().contains(w)
                    && !commandtree_core::classify::names_a_kind_of_folder(w)
                    && !GENERIC_FOLDERS.contains(&w.as_str())
            })
    };
    // Commands share folders: each folder is judged once.
    let mut judged: std::collections::HashMap<&Path, bool> = Default::default();
    rest.iter()
        .map(|c| {
            if !c.auxiliary || c.hidden || crate::listing::is_document(c) {
                return false;
            }
            let Some(dir) = c.path().parent() else {
                return false;
            };
            // Only a script's name is its file's; a recipe's is a word of its runner's.
            if matches!(c.kind.as_str(), "shell" | "python" | "powershell") && names_itself(c) {
                return true;
            }
            *judged.entry(dir).or_insert_with(|| {
                let Some(name) = dir
                    .strip_prefix(root)
                    .ok()
                    .and_then(Path::file_name)
                    .map(|n| n.to_string_lossy().to_lowercase())
                else {
                    return false;
                };
                let words = crate::lexical::spelled_words(&name);
                if words.is_empty()
                    || !words.iter().any(|w| w.len() >= 3)
                    || !words.iter().all(|w| asked.contains(w))
                    || commandtree_core::classify::names_a_kind_of_folder(&name)
                    || GENERIC_FOLDERS.contains(&name.as_str())
                {
                    return false;
                }
                // A folder inside a kind of folder is named with its kind: "the basics test
                // app" is `test/apps/basics/`, but "the httpx command line client" is not the
                // tests' `tests/client/`.
                let kinds_said = dir
                    .strip_prefix(root)
                    .ok()
                    .and_then(Path::parent)
                    .into_iter()
                    .flat_map(Path::components)
                    .map(|part| part.as_os_str().to_string_lossy().to_lowercase())
                    .filter(|part| commandtree_core::classify::names_a_kind_of_folder(part))
                    .all(|part| {
                        crate::lexical::tokens(&part)
                            .iter()
                            .any(|w| asked_tokens.contains(w))
                    });
                if !kinds_said {
                    return false;
                }
                words.iter().any(|w| w.len() >= 3 && !listed().contains(w))
            })
        })
        .collect()
}

/// How much a command of one unit keeps of its score when the query asks for all of them.
const ONE_UNIT: f32 = 0.7;

/// Whether `c` is a documentation site's or build's (a folder between the root and it is
/// named for docs: `docs/`, `dev-docs/`, `website/`, `documentation/mixin/`).
fn in_docs_folder(root: &Path, c: &CommandItem) -> bool {
    let Some(dir) = c.path().parent() else {
        return false;
    };
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    rel.components().any(|part| {
        crate::lexical::speaks_of_docs(&crate::lexical::tokens(&part.as_os_str().to_string_lossy()))
    })
}

/// The types of the tasks a project's runner names (not scripts, workflows or launch
/// configurations, which are not named as a build tool's verbs are).
const RUNNER_KINDS: &[&str] = &[
    "make",
    "just",
    "taskfile",
    "mise",
    "npm",
    "deno",
    "rake",
    "composer",
    "vscode",
    "turbo",
    "nx",
    "tox",
    "nox",
    "pyproject",
];

/// Build tools' verbs (`go fmt`, `cargo test`, `dotnet build`; not a Cargo alias the project
/// wrote) near the top of either list for which the project's runner has a task of the same
/// name, the tool's language aside (`make format`, `make gofmt` for `go fmt`), in the verb's
/// folder or above it: as `ct run format` resolves, the project's own is meant, with its flags
/// and versions. Not when the query names the tool's language and the task is another
/// language's (`npm run format`, prettier, for "format the rust code").
fn shadowed_verbs<'a>(root: &Path, commands: &'a [CommandItem], query: &str) -> Vec<bool> {
    let n = commands.len();
    let mut shadowed = vec![false; n];
    let builtin = |c: &CommandItem| {
        crate::names::tier(c) == 1 && !(c.kind == "cargo" && c.id_name().starts_with("alias-"))
    };
    let verbs: Vec<usize> = (0..n).filter(|&i| builtin(&commands[i])).collect();
    if verbs.is_empty() {
        return shadowed;
    }
    // Few names among many commands (`build`, `test` in every crate): each read once.
    let mut words: HashMap<(&str, &str), Vec<String>> = HashMap::new();
    let mut words_of = |c: &'a CommandItem| -> Vec<String> {
        let name = crate::names::project_verb(c).unwrap_or(&c.label);
        words
            .entry((c.kind.as_str(), name))
            .or_insert_with(|| {
                let mut w = crate::lexical::tokens(name);
                w.sort();
                w.dedup();
                w
            })
            .clone()
    };
    // Every folder at or above a verb's, then the runners' tasks in those.
    let mut above: std::collections::HashSet<&Path> = Default::default();
    for &i in &verbs {
        let mut f = Some(crate::names::folder(&commands[i]));
        while let Some(d) = f {
            if !above.insert(d) {
                break;
            }
            f = d.parent();
        }
    }
    // Each folder's tasks: the runner's type and the task's name words.
    let mut tasks: HashMap<&Path, Vec<(&str, Vec<String>)>> = HashMap::new();
    for c in commands {
        if RUNNER_KINDS.contains(&c.kind.as_str()) && !c.auxiliary && !c.hidden {
            let f = crate::names::folder(c);
            if above.contains(f) {
                let w = words_of(c);
                tasks.entry(f).or_default().push((c.kind.as_str(), w));
            }
        }
    }
    if tasks.is_empty() {
        return shadowed;
    }
    // "Every plugin" names no plugin's folder (`plugins/plugin/`).
    let units = all_units(query);
    // Each type's language words, read once (a query may weigh hundreds of verbs and tasks).
    let languages: HashMap<&str, Vec<String>> = commands
        .iter()
        .map(|c| c.kind.as_str())
        .filter(|k| RUNNER_KINDS.contains(k) || crate::names::TOOL_BUILTINS.contains(k))
        .collect::<std::collections::HashSet<_>>()
        .into_iter()
        .map(|k| (k, crate::lexical::language_words(k)))
        .collect();
    let language_of = |k: &str| languages.get(k).map_or(&[][..], Vec::as_slice);
    let asked: Vec<String> = crate::lexical::tokens(query)
        .into_iter()
        .filter(|w| {
            !units
                .iter()
                .any(|u| crate::lexical::stem(u) == crate::lexical::stem(w))
        })
        .collect();
    for i in verbs {
        let c = &commands[i];
        let here = crate::names::folder(c);
        // Not a verb whose own folder the query names ("test the app-json plugin").
        let folder_named = here != root
            && here.file_name().is_some_and(|f| {
                let w = crate::lexical::tokens(&f.to_string_lossy());
                // Not by the task it asks for: "remove build artifacts" names no `rm/`.
                !w.is_empty()
                    && w.iter().all(|w| asked.contains(w))
                    && w.iter().any(|w| crate::lexical::actions(w) == 0)
            });
        if folder_named {
            continue;
        }
        let verb = words_of(c);
        let language = language_of(&c.kind);
        let asks_language = language.iter().any(|w| asked.contains(w));
        shadowed[i] = here
            .ancestors()
            .take_while(|d| d.starts_with(root))
            .filter_map(|d| tasks.get(d))
            .flatten()
            .any(|(kind, task)| {
                let other = language_of(kind);
                let other_language = !other.is_empty() && other != language;
                task_words_but_language(task, language) == verb
                    && !(asks_language && other_language)
            });
    }
    shadowed
}

/// A task's name words without the language's: `make gofmt` (`gofmt`, `go`, `format`) is
/// `format`, as `go fmt` is.
fn task_words_but_language(task: &[String], language: &[String]) -> Vec<String> {
    task.iter()
        .filter(|w| !language.contains(w))
        .filter(|w| {
            // The language and the task written as one word.
            !language.iter().any(|l| {
                w.strip_prefix(l.as_str()).is_some_and(|rest| {
                    let rest = crate::lexical::tokens(rest);
                    !rest.is_empty() && rest.iter().all(|r| task.contains(r))
                })
            })
        })
        .cloned()
        .collect()
}

/// Reciprocal rank fusion's constant (Cormack et al.): a rank r counts 1 / (K + r).
const RRF_K: f32 = 60.0;

/// A best similarity under this says no command is near the query in meaning.
const FAR_IN_MEANING: f32 = 0.3;

/// How much the rank by meaning counts then, against the words' 1.
const FAR_MEANING_WEIGHT: f32 = 0.5;

/// Refreshes what changed since the last embedding, then searches (hybrid: see [`search_with`]):
/// the commands that exist now, at most `limit`.
pub fn search(
    loaded: &mut Loaded,
    embedder: &Embedder,
    query: &str,
    threshold: f32,
    limit: usize,
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<Found> {
    search_with(
        loaded,
        Some(embedder),
        query,
        &Ask {
            threshold,
            limit,
            ..Ask::default()
        },
        cancel,
        progress,
    )
}

/// What a search asks besides its words.
#[derive(Debug, Clone, Copy)]
pub struct Ask {
    /// A command enters the results by similarity only at or above this; a command holding a
    /// word of the query enters whatever its similarity.
    pub threshold: f32,
    pub limit: usize,
    pub mode: Mode,
    /// Also what listings hide by default (test data, templates, vendored code, examples,
    /// commands their tool hides); `[discovery] show = "all"` turns it on too.
    pub all: bool,
}

impl Default for Ask {
    fn default() -> Self {
        Ask {
            threshold: DEFAULT_THRESHOLD,
            limit: 10,
            mode: Mode::Hybrid,
            all: false,
        }
    }
}

/// The search every front end runs. The commands searched are the ones a listing shows
/// (documents only with `[discovery] docs`, hidden ones only with `all`). Two lists rank them:
/// lexical (BM25 over names, paths, descriptions, command lines and their own text:
/// [`crate::lexical`]) and semantic (similarity of embeddings; what changed since the last
/// embedding is embedded first). Hybrid fuses the two by reciprocal rank, then puts what a user
/// expects first: the exact name (or alias) of a command, nearest the current folder first;
/// commands before documents; own commands before auxiliary ones. `embedder` may be `None` for
/// a lexical search only.
pub fn search_with(
    loaded: &mut Loaded,
    embedder: Option<&Embedder>,
    query: &str,
    ask: &Ask,
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<Found> {
    let n = loaded.commands.len();
    let show = crate::listing::Show {
        all: ask.all || loaded.show_all,
        docs: true,
    };
    let (mut commands, rest): (Vec<CommandItem>, Vec<CommandItem>) = loaded
        .workflow_commands()
        .into_iter()
        .partition(|c| crate::listing::shown(c, show));
    let named = named_auxiliary(&loaded.root, query, &commands, &rest);
    commands.extend(
        rest.into_iter()
            .zip(named)
            .filter(|(_, n)| *n)
            .map(|(c, _)| c),
    );
    let mut refresh_warning = None;
    let semantic = match (ask.mode, embedder) {
        (Mode::Lexical, _) | (_, None) => None,
        (_, Some(embedder)) => {
            let Some(store) = loaded.store.as_mut() else {
                return Err(Error::failed(no_embeddings_message(n)));
            };
            let plan = pipeline::plan(store, &commands, false)?;
            if !plan.items.is_empty()
                && let Err(e) = embed(store, embedder, plan, cancel, progress)
            {
                if matches!(e, Error::Cancelled) {
                    return Err(e);
                }
                refresh_warning = Some(format!("could not store new embeddings: {e}"));
            }
            Some(
                commandtree_embed::search::similarities(store, &commands, embedder, query)
                    .map_err(|e| Error::failed(e.to_string()))?,
            )
        }
    };
    if ask.mode == Mode::Semantic && semantic.is_none() {
        return Err(Error::failed("a semantic search needs the embedding model"));
    }
    let lexical = if ask.mode == Mode::Semantic {
        Vec::new()
    } else {
        crate::lexical::index_for(&loaded.root, &commands).rank(query)
    };
    let hits = fuse(
        loaded.at(),
        &commands,
        query,
        &lexical,
        semantic.as_deref(),
        &Ask {
            all: show.all,
            ..*ask
        },
    );
    Ok(Found {
        hits,
        refresh_warning,
    })
}

/// Ranks `commands` from the lexical list (`crate::lexical::Index::rank`) and their
/// similarities (the same order as `commands`), as [`search_with`] describes: the ranking step
/// alone, for a benchmark. Without `ask.all`, `commands` are the listed ones and the auxiliary
/// ones the query names by their folder.
pub fn fuse(
    at: crate::names::At<'_>,
    commands: &[CommandItem],
    query: &str,
    lexical: &[crate::lexical::Ranked],
    similarity: Option<&[Option<f32>]>,
    ask: &Ask,
) -> Vec<Hit> {
    let n = commands.len();
    let mut lexical_rank = vec![None; n];
    for (r, l) in lexical.iter().enumerate() {
        lexical_rank[l.doc] = Some(r + 1);
    }
    let mut semantic_rank = vec![None; n];
    if let Some(sims) = similarity {
        let mut order: Vec<usize> = (0..n).filter(|&i| sims[i].is_some()).collect();
        let by_sim = |a: &usize, b: &usize| {
            sims[*b]
                .unwrap()
                .total_cmp(&sims[*a].unwrap())
                .then(a.cmp(b))
        };
        // Past this depth a rank adds under 1/1000 to a fused score: not worth sorting for.
        if order.len() > SEMANTIC_DEPTH {
            order.select_nth_unstable_by(SEMANTIC_DEPTH - 1, by_sim);
            order.truncate(SEMANTIC_DEPTH);
        }
        order.sort_by(by_sim);
        for (r, i) in order.into_iter().enumerate() {
            semantic_rank[i] = Some(r + 1);
        }
    }
    let sim = |i: usize| similarity.and_then(|s| s[i]);
    // A build tool's verb the project's runner names a task for, in its folder or above
    // (`go fmt` under the Makefile's `format`), is not what a user means: it leaves both lists,
    // so that it neither takes the task's place nor pushes it down.
    let shadowed = if ask.mode == Mode::Hybrid {
        shadowed_verbs(at.root, commands, query)
    } else {
        vec![false; n]
    };
    if shadowed.iter().any(|&s| s) {
        // The verb leaves both lists; the task keeps its own places. (Giving the task the
        // verb's place when better, its description being the tool's, lifted `make build`
        // over dokku's `go-build` with the place of 37 plugins' `go build`.)
        let rerank = |order: &mut dyn Iterator<Item = usize>, ranks: &mut Vec<Option<usize>>| {
            let mut r = 0;
            ranks.iter_mut().for_each(|x| *x = None);
            for d in order.filter(|&d| !shadowed[d]) {
                r += 1;
                ranks[d] = Some(r);
            }
        };
        rerank(&mut lexical.iter().map(|l| l.doc), &mut lexical_rank);
        let mut order: Vec<(usize, usize)> = semantic_rank
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| (r, i)))
            .collect();
        order.sort_unstable();
        rerank(&mut order.into_iter().map(|(_, i)| i), &mut semantic_rank);
    }
    let top_lexical = lexical.first().map_or(1.0, |l| l.score).max(f32::EPSILON);
    let mut bm25 = vec![0.0; n];
    let mut named = vec![0f32; n];
    let mut held = vec![0u16; n];
    let mut runs = vec![0u32; n];
    let mut invokes = vec![false; n];
    for l in lexical {
        invokes[l.doc] = l.invokes;
        bm25[l.doc] = l.score;
        // The tool a command runs, named in the query, names the command as much as a name
        // saying half the query.
        named[l.doc] = if l.invokes {
            l.name.max(INVOKED_NAME)
        } else {
            l.name
        };
        held[l.doc] = l.held;
        runs[l.doc] = l.runs;
    }
    let q = query.trim();
    let best = 2.0 / (RRF_K + 1.0);
    let hybrid = ask.mode == Mode::Hybrid;
    // When no command is near the query in meaning, the order by meaning is noise: it counts
    // for less than the words ("format the code" where every script's meaning is under 0.2 of
    // it and `lint` runs `ruff format`).
    let meaning_weight = match similarity.and_then(|s| s.iter().flatten().copied().reduce(f32::max))
    {
        Some(top) if top < FAR_IN_MEANING => FAR_MEANING_WEIGHT,
        _ => 1.0,
    };
    let mut scored: Vec<(usize, f32, bool)> = Vec::new();
    for i in 0..n {
        let c = &commands[i];
        let enters = match ask.mode {
            Mode::Lexical => lexical_rank[i].is_some(),
            Mode::Semantic => sim(i).is_some_and(|s| s >= ask.threshold),
            Mode::Hybrid => lexical_rank[i].is_some() || sim(i).is_some_and(|s| s >= ask.threshold),
        };
        if !enters {
            continue;
        }
        let exact = hybrid && crate::names::answers_to(c, q, true);
        let score = match ask.mode {
            Mode::Semantic => sim(i).unwrap_or(0.0),
            Mode::Lexical => bm25[i] / top_lexical,
            // A query no command holds a word of is judged by meaning alone, and one searched
            // without the model by words alone: then that list's own score says how close.
            Mode::Hybrid if lexical.is_empty() => sim(i).unwrap_or(0.0),
            Mode::Hybrid if similarity.is_none() => bm25[i] / top_lexical,
            Mode::Hybrid => {
                let rrf = |r: Option<usize>| r.map_or(0.0, |r| 1.0 / (RRF_K + r as f32));
                (rrf(lexical_rank[i]) + meaning_weight * rrf(semantic_rank[i])) / best
            }
        };
        scored.push((i, score, exact));
    }
    let by_score = |a: &(usize, f32, bool), b: &(usize, f32, bool)| {
        b.2.cmp(&a.2).then(b.1.total_cmp(&a.1)).then(a.0.cmp(&b.0))
    };
    if hybrid {
        // What a user expects first, weighed among the best few by fused rank: the priors
        // reorder neighbours, they do not lift a command from far down (and stay cheap on
        // 100,000 commands).
        let shortlist = (ask.limit.saturating_mul(4)).max(50);
        let mut rest = Vec::new();
        if scored.len() > shortlist {
            scored.select_nth_unstable_by(shortlist - 1, by_score);
            rest = scored.split_off(shortlist);
        }
        let units = all_units(query);
        let known = Known {
            held: &held,
            shadowed: &shadowed,
            units: &units,
        };
        nearest_of_a_name_first(at, commands, query, &known, &mut scored, &rest);
        // A decisive meaning, else decisive words: each list's own certainty, which rank fusion
        // alone does not see.
        let asked = crate::lexical::tokens(query);
        // Read, not run: a document answers after the commands that do the thing, and so
        // does an agent's instructions file (`CLAUDE.md` tells an agent how to run the
        // tests; it does not run them) unless the query asks about agents.
        let asks_agents = AGENT_WORDS
            .iter()
            .any(|w| crate::lexical::tokens(w).iter().any(|t| asked.contains(t)));
        let read_only = |c: &CommandItem| {
            crate::listing::is_document(c) || (c.kind == "instructions" && !asks_agents)
        };
        let asked_actions = crate::lexical::asked_actions(query);
        let mentioned = crate::lexical::mentioned_tasks(query);
        // Named for another task, and not running a tool known for the asked one (`fmt` that
        // runs `rubocop` lints), nor for one the query speaks of besides (`test:ui` for "open
        // the playwright test UI").
        // Nor when the query only asks to run the program it calls, naming no task ("run the
        // pre-commit hooks on every file": `lint`, whose session runs `pre-commit`; not "preview
        // the email templates" for `export`, whose script runs `email`).
        let only_run = crate::lexical::asks_only_to_run(query);
        let runs_named_program = only_run && mentioned == 0;
        // Cleaning undoes the task whose output it removes: a command doing that task is not
        // it, though the query speaks of it ("delete the build output": not `build`).
        let cleans = asked_actions & crate::lexical::actions("clean") != 0;
        // Testing something runs it: for a query that only asks to run something ("run the
        // code examples from the documentation"), a command named for testing it
        // (`test-examples`) is not named for another task.
        let runs_it = if only_run {
            asked_actions | crate::lexical::actions("test")
        } else {
            asked_actions
        };
        // The task a command's name says: a .NET project's verb, not its project's name
        // (`Emby.Server.Implementations.Fuzz: build` builds; it does not fuzz).
        let named_action = |c: &CommandItem| {
            crate::lexical::actions(crate::names::project_verb(c).unwrap_or(&c.label))
        };
        // Running the program of a unit named for a task does that task: `run` of the
        // `Benchmarks` project benchmarks, `run-reparse` of a `fuzz/` crate fuzzes.
        let run_bit = crate::lexical::actions("run");
        let unit_action = |c: &CommandItem| {
            if named_action(c) != run_bit {
                return 0;
            }
            let folder = crate::names::folder(c)
                .file_name()
                .map(|f| crate::lexical::actions(&f.to_string_lossy()))
                .unwrap_or(0);
            let project =
                crate::names::project_and_verb(c).map_or(0, |(p, _)| crate::lexical::actions(p));
            folder | project
        };
        let other_action = |i: usize| {
            let does = named_action(&commands[i]);
            asked_actions != 0
                && does != 0
                && does & runs_it == 0
                && (runs[i] | unit_action(&commands[i])) & asked_actions == 0
                && (does & mentioned == 0 || cleans)
                && !(runs_named_program && invokes[i])
        };
        let same_action = |i: usize| {
            asked_actions != 0
                && (named_action(&commands[i]) | runs[i] | unit_action(&commands[i]))
                    & asked_actions
                    != 0
        };
        // Neither is decisive for a command named for another task than the one asked for
        // (`uninstall` for "remove build output"), unless the query only asks to run what its
        // other words name and the command's words for it, far ahead, are in what it runs, not
        // its name (`format`, whose recipe is `pre-commit run --all-files`, for "run pre-commit
        // hooks on all files"; not `build:app:docker` for "run the app in docker").
        // How many of the query's words a command's name holds.
        let holds = |name: &str| {
            let mut own = crate::lexical::tokens(name);
            own.sort();
            own.dedup();
            own.iter().filter(|w| asked.contains(w)).count()
        };
        let name_holds = |i: usize| holds(&commands[i].label);
        let asks_docs = crate::lexical::speaks_of_docs(&asked);
        let asks_ci = crate::lexical::spelled_words(query).iter().any(|w| {
            CI_WORDS.contains(&w.as_str()) || CI_WORDS.contains(&crate::lexical::stem(w).as_str())
        }) || query.to_lowercase().contains("pull request");
        let runs_what_is_asked = |d: usize| only_run && name_holds(d) == 0;
        let words = decisive_words(commands, lexical);
        let decisive = similarity
            .and_then(|s| match decisive_meaning(s) {
                // Each list sure of a different command: neither is the one meant, and the fused
                // rank decides ("run the unit tests": `check`, "runs the linters and tests",
                // nearest in meaning, and `tests`, "executes any unit tests", far ahead by
                // words).
                Some(m) if words.is_some_and(|(w, far)| far && w != m) => None,
                Some(m) => Some((m, false)),
                // A command whose meaning is only its name is as far in meaning as its name
                // is from the query: its words decide ("build the prometheus binaries":
                // `common-build`, whose recipe says "building binaries").
                None => words.filter(|&(d, far)| {
                    far || semantic_rank[d].is_some_and(|r| r <= DECISIVE_WORDS_MEANING)
                        || meaning_is_its_name(&commands[d])
                }),
            })
            .filter(|&(d, far)| !other_action(d) || (far && runs_what_is_asked(d)))
            .map(|(d, _)| d)
            .filter(|&d| !of_one_unit(at.root, &commands[d], &units))
            .filter(|&d| !read_only(&commands[d]))
            // Nor a build tool's verb when the project wrote a command for the task: its
            // description is the tool's own, near every query about the task.
            .filter(|&d| !shadowed[d])
            // A documentation site's `coverage` (of its docs) is not "run the tests with
            // coverage", however near its name.
            .filter(|&d| asks_docs || !in_docs_folder(at.root, &commands[d]))
            // Nor a CI workflow for a query not about CI, unless a name of it (its `name:`, its
            // file's) holds two of the query's words: the comments of its YAML ("then runs the
            // test suite and builds the docs") are not what a person runs here;
            // `browser_e2e.yml` is "run the browser end-to-end tests".
            .filter(|&d| {
                asks_ci
                    || commands[d].kind != "workflow"
                    || crate::names::names_of(&commands[d]).any(|n| holds(n) >= 2)
            });
        if let Some(d) = decisive
            && !scored.iter().any(|e| e.0 == d)
            && let Some(e) = rest.iter().find(|e| e.0 == d)
        {
            scored.push(*e);
        }
        let asks_whole = asks_whole(query);
        // The project's own name (its folder's: `elixir`, `elixir-lang+elixir`) is in half of
        // the queries about it; a command named only that says nothing of the task asked.
        let project = crate::lexical::project_words(at.root);
        let asks_more = asked.iter().any(|w| !project.contains(w));
        for (i, score, exact) in scored.iter_mut() {
            let c = &commands[*i];
            // A name that says what the query asks (`test-unit` for "run the unit tests",
            // `gcov` for "measure test coverage") before commands that only mention it or
            // mean something near it.
            // Not when it says another task besides (`build:app:docker` for "run the app in
            // docker").
            let other = other_action(*i);
            // "Compile the code of all the plugins": not one plugin's build, though its name
            // says "plugin" too.
            let one_unit = of_one_unit(at.root, c, &units);
            if named[*i] >= NAME_SAYS_ENOUGH && !other && !one_unit {
                *score *= 1.0 + NAME_WEIGHT * named[*i];
            }
            if read_only(c) {
                *score *= 0.5;
            }
            // Without `all`, an auxiliary command searched is one the query asked for by its
            // folder's name (`named_auxiliary`): as much the answer as the project's own.
            if (c.auxiliary && ask.all) || c.hidden {
                *score *= 0.5;
            }
            // Named for another task than the one asked for (`ui-install` for "start the UI dev
            // server"), or for the one asked for (`install` for "install elixir on my system",
            // before `docs_elixir`, which holds as many of the words).
            // Not one whose name says another task besides, one the query does not speak of
            // (`test:kit:build`, building for the tests, for "build all the publishable
            // packages").
            let does = named_action(c);
            let besides = does & !(asked_actions | mentioned) != 0;
            if other {
                *score *= OTHER_ACTION;
            } else if same_action(*i) && !besides {
                *score *= SAME_ACTION;
            }
            if asks_more && !project.is_empty() {
                let own = crate::lexical::tokens(&c.label);
                if !own.is_empty() && own.iter().all(|w| project.contains(w)) {
                    *score *= PROJECT_NAME_ONLY;
                }
            }
            if one_unit {
                *score *= ONE_UNIT;
            }
            // "Run all the tests" of a .NET workspace: the solution's, over every project.
            if asks_whole && crate::lexical::is_solution(c) {
                *score *= 1.0 + NAME_WEIGHT;
            }
            // A documentation site's own tasks, for a query that does not ask about docs.
            if !asks_docs && in_docs_folder(at.root, c) {
                *score *= DOCS_SITE;
            }
            if *exact {
                *score = 1.0;
            }
        }
        // A command running many others (`tox` running the default environments, a `ci` of
        // four steps) holds all their words, and means something near every query about one
        // of them, but does none of them alone: it makes way for any of its steps found, unless
        // the query asks for everything or for several tasks, or its name says the query (`lint`
        // for "lint the code") or holds a word of it besides a task (`gen-analyzer` for
        // "regenerate the analyzer code"; not `build-sfc-playground`, running four builds, for
        // "build the commonjs bundles").
        let names_its_object = |i: usize| {
            crate::lexical::tokens(&commands[i].label)
                .iter()
                .any(|w| asked.contains(w) && crate::lexical::actions(w) == 0)
        };
        // Nor when its name says every word of the query but the project's name: `install`
        // (building, then installing the manual pages, completions and translations) for
        // "install coreutils".
        let says_all_but_project = |i: usize| {
            let own = crate::lexical::tokens(&commands[i].label);
            let rest: Vec<&String> = asked.iter().filter(|w| !project.contains(w)).collect();
            !rest.is_empty() && rest.iter().all(|w| own.contains(w))
        };
        if !asks_everything(query) && crate::lexical::clauses(query).nth(1).is_none() {
            let aggregates: Vec<usize> = scored
                .iter()
                .map(|e| e.0)
                .filter(|&i| {
                    named[i] < NAME_SAYS_ENOUGH
                        && !names_its_object(i)
                        && !says_all_but_project(i)
                        && calls(&commands[i]) >= MANY_STEPS
                })
                .collect();
            if !aggregates.is_empty() {
                let index = crate::closure::Index::new(commands);
                let found: std::collections::HashSet<&str> =
                    scored.iter().map(|e| commands[e.0].id.as_str()).collect();
                for a in aggregates {
                    let c = &commands[a];
                    let makes_way = c
                        .steps
                        .iter()
                        .filter(|s| s.how != StepHow::Hook)
                        .flat_map(|s| index.resolve(c, s))
                        .any(|d| d.id != c.id && found.contains(d.id.as_str()));
                    if makes_way && let Some(e) = scored.iter_mut().find(|e| e.0 == a) {
                        e.1 *= AGGREGATE;
                    }
                }
            }
        }
        // A command whose meaning is far closer to the query than any other's is what was
        // asked for, though the query's words are common in the workspace ("build the
        // documentation": `Documentation`, where every docs target says "build"); so is one
        // whose words match far better than any other's, though its meaning is a little
        // further. Rank fusion alone keeps only its place, not how far ahead it is. An exact
        // name still comes first.
        if let Some(d) = decisive {
            // Not past a command named for the asked task whose name holds more of the query's
            // words and says enough of it ("build the dialyzer PLT": `build_plt`, though
            // `dialyze`'s recipe holds the rare word far more; not `alias-benchmark` for "clone
            // cpython for the benchmarks", which asks for no task).
            let holds = name_holds(d);
            // Nor past one running the tool the query names when it does not ("lint the ruby
            // code with rubocop": `fmt`, whose text runs `rubocop`, not `rubies`, nearer in
            // meaning).
            let says_more = |i: usize| {
                same_action(i)
                    && ((named[i] >= NAME_SAYS_ENOUGH && name_holds(i) > holds)
                        || (invokes[i] && !invokes[d]))
            };
            lift_above(&mut scored, d, 1e-4, |i| !says_more(i));
        }
        // A query listing several requests, one command doing them all by its steps: first,
        // past a decisive one that does one of them.
        let near = |i: usize| {
            lexical_rank[i].is_some_and(|r| r <= COVERING_NEAR)
                || semantic_rank[i].is_some_and(|r| r <= COVERING_NEAR)
        };
        if let Some(w) = covering(commands, query, &asked, near).or_else(|| {
            services_together(commands, query, |i| lexical_rank[i].unwrap_or(usize::MAX))
        }) {
            if !scored.iter().any(|e| e.0 == w) {
                let e = rest
                    .iter()
                    .find(|e| e.0 == w)
                    .copied()
                    .unwrap_or((w, 0.0, false));
                scored.push(e);
            }
            lift_above(&mut scored, w, 2e-4, |_| true);
        }
    }
    // The exact name first, nearest the current folder first (as a name resolves), then by
    // score; ties keep the listing's order.
    let order = |a: &(usize, f32, bool), b: &(usize, f32, bool)| {
        b.2.cmp(&a.2)
            .then_with(|| {
                if a.2 && b.2 {
                    crate::names::rank(at, &commands[a.0])
                        .cmp(&crate::names::rank(at, &commands[b.0]))
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .then(b.1.total_cmp(&a.1))
            // A tie (first by words and second by meaning, against the other way round): the
            // better place by words, the surer list on real repositories (the benchmark's words
            // alone find more first than meaning alone).
            .then_with(|| {
                let words = |i: usize| lexical_rank[i].unwrap_or(usize::MAX);
                words(a.0).cmp(&words(b.0))
            })
            .then(a.0.cmp(&b.0))
    };
    if ask.limit > 0 && scored.len() > ask.limit {
        scored.select_nth_unstable_by(ask.limit - 1, order);
    }
    scored.truncate(ask.limit);
    scored.sort_by(order);
    scored
        .into_iter()
        .map(|(i, score, exact)| Hit {
            command: commands[i].clone(),
            // Sorted on the raw score (a lift above a first place can pass 1); shown in 0-1.
            score: score.clamp(0.0, 1.0),
            similarity: sim(i),
            lexical_rank: lexical_rank[i],
            semantic_rank: semantic_rank[i],
            exact,
        })
        .collect()
}

/// Whether any command has an embedding (search needs one).
pub fn has_embeddings(loaded: &Loaded) -> Result<bool> {
    match &loaded.store {
        None => Ok(false),
        Some(s) => Ok(pipeline::plan(s, &loaded.commands, false)?.with_embedding > 0),
    }
}

/// The embedding lines of a database check, for the commands discovered now. Reads the file
/// without changing it. Sizes are always checked; completeness (a row, a summary and an
/// embedding for every command, the seed spec's verification recipe) once the AI features are
/// in use, i.e. the database holds any summary or embedding: a database used only for tags
/// passes.
pub fn checks(commands: &[CommandItem], db: &Path) -> Vec<Check> {
    let ids: Vec<&str> = commands.iter().map(|c| c.id.as_str()).collect();
    let cov = match pipeline::coverage_of_file(db, &ids) {
        Ok(Some(c)) => c,
        // No `commands` table: the schema check already fails and says why.
        Ok(None) => return Vec::new(),
        Err(e) => {
            return vec![Check {
                name: "embeddings",
                ok: false,
                detail: e.to_string(),
            }];
        }
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut out = Vec::new();
    out.push(if cov.bad_size.is_empty() {
        Check {
            name: "embeddings",
            ok: true,
            detail: "every stored embedding is 1536 bytes (384 f32)".into(),
        }
    } else {
        let list: Vec<String> = cov
            .bad_size
            .iter()
            .take(5)
            .map(|(id, n)| format!("{id} ({n} bytes)"))
            .collect();
        Check {
            name: "embeddings",
            ok: false,
            detail: format!(
                "{} embedding{} not 1536 bytes: {}{} (`ct embed --force` rewrites them)",
                cov.bad_size.len(),
                if cov.bad_size.len() == 1 {
                    " is"
                } else {
                    "s are"
                },
                list.join(", "),
                if cov.bad_size.len() > 5 { ", ..." } else { "" }
            ),
        }
    });
    let n = cov.commands;
    out.push(if cov.ai_rows == 0 {
        Check {
            name: "coverage",
            ok: true,
            detail: format!(
                "no summaries or embeddings yet ({n} command{}; `ct summarize`, `ct embed`)",
                plural(n)
            ),
        }
    } else if cov.missing_row.is_empty()
        && cov.missing_summary.is_empty()
        && cov.missing_embedding.is_empty()
    {
        Check {
            name: "coverage",
            ok: true,
            detail: format!(
                "all {n} command{} have a row, a summary and an embedding",
                plural(n)
            ),
        }
    } else {
        let mut parts = Vec::new();
        if !cov.missing_row.is_empty() {
            parts.push(format!("{} without a row", cov.missing_row.len()));
        }
        if !cov.missing_summary.is_empty() {
            parts.push(format!(
                "{} without a summary (`ct summarize`)",
                cov.missing_summary.len()
            ));
        }
        if !cov.missing_embedding.is_empty() {
            parts.push(format!(
                "{} without an embedding (`ct embed`)",
                cov.missing_embedding.len()
            ));
        }
        Check {
            name: "coverage",
            ok: false,
            detail: format!("of {n} command{}: {}", plural(n), parts.join(", ")),
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexical::Ranked;

    /// A lexical list: (document, BM25, distinct words of the query held).
    #[test]
    fn words_far_better_than_any_others_come_first_though_another_is_nearer_in_meaning() {
        let script = |name: &str| {
            CommandItem::new(
                "shell",
                &Path::new("/w/scripts").join(name),
                name,
                format!("bash scripts/{name}"),
            )
        };
        let commands = vec![
            script("db-shell.sh"),
            script("prestart.sh"),
            script("lint.sh"),
        ];
        let at = crate::names::At::root(Path::new("/w"));
        let query = "run the database migrations";
        // The semantic list puts `db-shell.sh` first, not decisively; `prestart.sh` is third.
        let sims = [Some(0.38), Some(0.30), Some(0.33)];
        let first = |lexical: &[Ranked]| {
            fuse(at, &commands, query, lexical, Some(&sims), &Ask::default())[0]
                .command
                .label
                .clone()
        };
        // Its comment says "run migrations": BM25 far ahead of the next.
        assert_eq!(first(&ranked(&[(1, 3.0, 2), (0, 1.9, 1)])), "prestart.sh");
        // Only a little ahead: the fused ranks decide.
        assert_eq!(first(&ranked(&[(1, 3.0, 2), (0, 2.8, 1)])), "db-shell.sh");
        // Far ahead in words but far from the query in meaning (12th): the fused ranks decide.
        let mut many = commands.clone();
        let mut far = sims.to_vec();
        for i in 0..10 {
            many.push(script(&format!("other-{i}.sh")));
            far.push(Some(0.31 + i as f32 / 1000.0));
        }
        let hits = fuse(
            at,
            &many,
            query,
            &ranked(&[(1, 3.0, 2), (0, 1.9, 1)]),
            Some(&far),
            &Ask::default(),
        );
        assert_eq!(hits[0].semantic_rank, Some(1));
        assert_ne!(hits[0].command.label, "prestart.sh");
    }

    #[test]
    fn when_nothing_is_near_in_meaning_the_words_count_for_more() {
        let commands = scripts(&["alpha", "bravo", "charlie", "delta", "echo"]);
        // `alpha` holds the query's words best, `bravo` is nearest in meaning; neither is
        // decisive.
        let lexical = ranked(&[(0, 3.0, 1), (1, 2.9, 1), (2, 2.8, 1), (3, 2.7, 1)]);
        let first = |top: f32| {
            let sims = [top - 0.02, top, top - 0.01, top - 0.03, top - 0.04].map(Some);
            fuse_at_root(&commands, "zulu", &lexical, &sims)[0]
                .command
                .label
                .clone()
        };
        // Near in meaning: the fused ranks, where the first by meaning and second by words
        // passes the first by words and third by meaning.
        assert_eq!(first(0.6), "bravo");
        // Nothing near (every similarity under 0.3): the words decide.
        assert_eq!(first(0.2), "alpha");
    }

    #[test]
    fn of_two_commands_tied_the_better_place_by_words_comes_first() {
        let commands = scripts(&["alpha", "bravo", "charlie"]);
        // `charlie` first by words and second by meaning, `bravo` the other way round: the
        // same fused score, and the order of the listing would put `bravo` first.
        let lexical = ranked(&[(2, 3.0, 1), (1, 2.9, 1), (0, 2.8, 1)]);
        let sims = [Some(0.45), Some(0.55), Some(0.5)];
        let hits = fuse_at_root(&commands, "zulu", &lexical, &sims);
        assert_eq!(hits[0].score, hits[1].score);
        assert_eq!(hits[0].command.label, "charlie");
    }

    /// Shell scripts of these names in `/w/scripts`, their own command lines.
    fn scripts(names: &[&str]) -> Vec<CommandItem> {
        names
            .iter()
            .map(|name| CommandItem::new("shell", &Path::new("/w/scripts").join(name), name, *name))
            .collect()
    }

    /// `fuse` at the workspace root `/w`, with the default ask.
    fn fuse_at_root(
        commands: &[CommandItem],
        query: &str,
        lexical: &[Ranked],
        sims: &[Option<f32>],
    ) -> Vec<Hit> {
        let at = crate::names::At::root(Path::new("/w"));
        fuse(at, commands, query, lexical, Some(sims), &Ask::default())
    }

    fn ranked(l: &[(usize, f32, u16)]) -> Vec<Ranked> {
        l.iter()
            .map(|&(doc, score, held)| Ranked {
                runs: 0,
                invokes: false,
                doc,
                score,
                held,
                name: 0.2,
            })
            .collect()
    }

    #[test]
    fn of_one_folders_commands_of_a_name_the_one_a_name_resolves_to_comes_first() {
        let up = |file: &str| {
            CommandItem::new("docker", Path::new(file), "up", "docker compose up")
                .description("Start all services")
        };
        let commands = vec![up("/w/compose.deploy.yml"), up("/w/compose.yml")];
        let at = crate::names::At::root(Path::new("/w"));
        // The deploy file's comes first in both lists, as a path sorts.
        let lexical = ranked(&[(0, 2.0, 1), (1, 2.0, 1)]);
        let sims = vec![Some(0.55), Some(0.55)];
        let hits = fuse(
            at,
            &commands,
            "start the whole stack",
            &lexical,
            Some(&sims),
            &Ask::default(),
        );
        assert_eq!(hits[0].command.file_path, "/w/compose.yml");
    }

    #[test]
    fn of_commands_sharing_a_name_the_nearest_comes_first_unless_another_holds_more_words() {
        let item = |file: &str| CommandItem::new("gradle", Path::new(file), "test", "gradle test");
        let commands = vec![
            item("/w/okhttp-sse/build.gradle.kts"),
            item("/w/mockwebserver/build.gradle.kts"),
            item("/w/build.gradle.kts"),
        ];
        let at = crate::names::At::root(Path::new("/w"));
        // The modules come first in both lists (as forty identical modules may); each holds
        // the query's one word.
        let lexical = ranked(&[(0, 2.0, 1), (1, 1.9, 1), (2, 1.8, 1)]);
        let sims = vec![Some(0.61), Some(0.60), Some(0.59)];
        let ask = Ask::default();
        let hits = fuse(at, &commands, "run the tests", &lexical, Some(&sims), &ask);
        assert_eq!(hits[0].command.file_path, "/w/build.gradle.kts");
        // A module the query names holds more of its words: it keeps the first place.
        let lexical = ranked(&[(0, 4.0, 2), (1, 1.9, 1), (2, 1.8, 1)]);
        let hits = fuse(
            at,
            &commands,
            "run the sse tests",
            &lexical,
            Some(&sims),
            &ask,
        );
        assert_eq!(hits[0].command.file_path, "/w/okhttp-sse/build.gradle.kts");
    }

    #[test]
    fn the_other_commands_of_a_chosen_name_make_way_for_other_names() {
        let clippy =
            |file: &str| CommandItem::new("cargo", Path::new(file), "clippy", "cargo clippy");
        let commands = vec![
            clippy("/w/crates/cache/Cargo.toml"),
            clippy("/w/crates/index/Cargo.toml"),
            clippy("/w/Cargo.toml"),
            CommandItem::new(
                "shell",
                Path::new("/w/scripts/run_comparisons.sh"),
                "run_comparisons.sh",
                "sh scripts/run_comparisons.sh",
            ),
        ];
        let at = crate::names::At::root(Path::new("/w"));
        // Every crate's `clippy` holds the query's "linters"; the script is what it means.
        let lexical = ranked(&[(0, 3.0, 1), (1, 2.9, 1), (2, 2.8, 1), (3, 2.0, 1)]);
        let sims = vec![Some(0.40), Some(0.39), Some(0.38), Some(0.45)];
        let hits = fuse(
            at,
            &commands,
            "compare the speed with other linters",
            &lexical,
            Some(&sims),
            &Ask::default(),
        );
        let order: Vec<&str> = hits.iter().map(|h| h.command.file_path.as_str()).collect();
        // One `clippy` stands for its name (the workspace's), the script comes next.
        assert_eq!(order[0], "/w/Cargo.toml");
        assert_eq!(order[1], "/w/scripts/run_comparisons.sh");
    }

    #[test]
    fn a_meaning_far_closer_than_any_other_comes_first_though_its_words_are_common() {
        let make = |label: &str| {
            CommandItem::new(
                "make",
                Path::new("/w/Makefile"),
                label,
                format!("make {label}"),
            )
        };
        let commands = vec![
            make("build"),
            make("docker-docs"),
            make("json"),
            make("Documentation"),
        ];
        let at = crate::names::At::root(Path::new("/w"));
        // Every docs target's recipe says "build": the lexical list puts `Documentation` last.
        let lexical = ranked(&[(0, 3.0, 2), (1, 2.9, 2), (2, 2.8, 2), (3, 2.0, 1)]);
        let query = "build the documentation";
        let first = |sims: &[Option<f32>]| {
            fuse(at, &commands, query, &lexical, Some(sims), &Ask::default())[0]
                .command
                .label
                .clone()
        };
        assert_eq!(
            first(&[Some(0.44), Some(0.40), Some(0.39), Some(0.85)]),
            "Documentation"
        );
        // Only a little closer: the fused ranks decide.
        assert_eq!(
            first(&[Some(0.44), Some(0.40), Some(0.39), Some(0.50)]),
            "build"
        );
    }

    #[test]
    fn a_folder_the_query_names_whole_picks_among_commands_of_one_name() {
        let item = |file: &str| CommandItem::new("gradle", Path::new(file), "test", "gradle test");
        let commands = vec![
            item("/w/okhttp-brotli/build.gradle.kts"),
            item("/w/module-tests/build.gradle.kts"),
            item("/w/okhttp/build.gradle.kts"),
            item("/w/build.gradle.kts"),
        ];
        let at = crate::names::At::root(Path::new("/w"));
        let lexical = crate::lexical::Index::build(
            commands
                .iter()
                .map(|c| crate::lexical::fields(c, Path::new("/w"), None)),
        )
        .rank("run the okhttp module tests");
        // Each module holds two of the query's words; the one a word names as its whole folder
        // is meant, though both lists put it last of them.
        let sims = vec![Some(0.62), Some(0.61), Some(0.57), Some(0.5)];
        let hits = fuse(
            at,
            &commands,
            "run the okhttp module tests",
            &lexical,
            Some(&sims),
            &Ask::default(),
        );
        assert_eq!(hits[0].command.file_path, "/w/okhttp/build.gradle.kts");
        // Without a folder named, the root's.
        let lexical = crate::lexical::Index::build(
            commands
                .iter()
                .map(|c| crate::lexical::fields(c, Path::new("/w"), None)),
        )
        .rank("run the tests");
        let hits = fuse(
            at,
            &commands,
            "run the tests",
            &lexical,
            Some(&sims),
            &Ask::default(),
        );
        assert_eq!(hits[0].command.file_path, "/w/build.gradle.kts");
    }

    #[test]
    fn a_folder_named_as_written_picks_its_command_though_another_holds_more_words() {
        let cargo =
            |path: &str, script: &str| CommandItem::new("cargo", Path::new(path), "test", script);
        // The root's text names every member (`tests/specs` too); `spec` and `test` are one
        // word to the index, not to a folder's name.
        let commands = vec![
            cargo(
                "/w/Cargo.toml",
                "cargo test members tests/specs tests/unit cli",
            ),
            cargo("/w/tests/specs/Cargo.toml", "cargo test"),
            cargo("/w/tests/unit/Cargo.toml", "cargo test"),
        ];
        let got = ranked_by(
            &commands,
            "run the spec tests under tests/specs",
            &[Some(0.3), Some(0.52), Some(0.5)],
        );
        assert_eq!(got[0], "/w/tests/specs/Cargo.toml:test", "{got:#?}");
    }

    #[test]
    fn a_query_for_every_unit_means_the_command_over_all_of_them_not_one_units() {
        let npm = |file: &str, label: &str, script: &str| {
            CommandItem::new("npm", Path::new(file), label, script)
        };
        // The package named `package` is not named by "every package", and the one whose own
        // text holds more of the words is still one package's.
        let commands = vec![
            npm(
                "/w/packages/package/package.json",
                "format",
                "prettier --write . src",
            ),
            npm(
                "/w/packages/kit/package.json",
                "format",
                "prettier --write .",
            ),
            npm("/w/package.json", "format", "pnpm -r format"),
        ];
        let got = ranked_by(
            &commands,
            "format every package's code",
            &[Some(0.7), Some(0.65), Some(0.6)],
        );
        assert_eq!(got[0], "/w/package.json:format", "{got:#?}");
        // Named for one of them (taking its name) against named for all of them.
        let make = |label: &str| CommandItem::new("make", Path::new("/w/Makefile"), label, "make");
        let commands = vec![make("go-build-plugin"), make("go-build")];
        let got = ranked_by(
            &commands,
            "compile the go code of all the plugins",
            &[Some(0.75), Some(0.6)],
        );
        assert_eq!(got[0], "/w/Makefile:go-build", "{got:#?}");
        // One plugin asked for: its own.
        let got = ranked_by(
            &commands,
            "compile the go code of the certs plugin",
            &[Some(0.75), Some(0.6)],
        );
        assert_eq!(got[0], "/w/Makefile:go-build-plugin", "{got:#?}");
        // A name for all of them (sinatra's `package:all`, "Build all packages") is not one
        // package's, though it says "package".
        let rake = |label: &str, description: &str| {
            let mut c = CommandItem::new("rake", Path::new("/w/Rakefile"), label, "rake");
            c.description = Some(description.into());
            c
        };
        let commands = vec![
            rake(
                "install:all",
                "Build and install all of the gems as local gems",
            ),
            rake("package:all", "Build all packages"),
        ];
        let got = ranked_by(
            &commands,
            "build all the gem packages",
            &[Some(0.6), Some(0.55)],
        );
        assert_eq!(got[0], "/w/Rakefile:package:all", "{got:#?}");
        assert_eq!(
            all_units("run the go unit tests of every plugin"),
            ["plugin"]
        );
        assert_eq!(all_units("type check all the packages"), ["package"]);
        assert!(all_units("run all the tests").is_empty());
    }

    #[test]
    fn an_agents_instructions_answer_after_the_commands_unless_agents_are_asked_about() {
        let commands = vec![
            CommandItem::new(
                "instructions",
                Path::new("/w/CLAUDE.md"),
                "CLAUDE.md",
                "CLAUDE.md",
            )
            .description("Run all the unit tests with pnpm test before a commit"),
            CommandItem::new("npm", Path::new("/w/package.json"), "test", "vitest run"),
        ];
        let sims = [Some(0.6), Some(0.55)];
        let got = ranked_by(&commands, "run all the unit tests", &sims);
        assert_eq!(got[0], "/w/package.json:test", "{got:#?}");
        let got = ranked_by(&commands, "the agent instructions about unit tests", &sims);
        assert_eq!(got[0], "/w/CLAUDE.md:CLAUDE.md", "{got:#?}");
    }

    #[test]
    fn a_name_for_the_asked_task_or_a_tool_for_it_goes_before_a_name_for_none() {
        let make = |label: &str, recipe: &str| {
            CommandItem::new("make", Path::new("/w/Makefile"), label, recipe)
        };
        // Both hold the project's name; one is named for installing.
        let commands = vec![
            make("docs_elixir", "make docs_elixir"),
            make("install", "make install"),
        ];
        let got = ranked_by(
            &commands,
            "install elixir on my system",
            &[Some(0.55), Some(0.54)],
        );
        assert_eq!(got[0], "/w/Makefile:install", "{got:#?}");
        // `fmt` runs a linter: not another task than linting.
        let commands = vec![
            CommandItem::new(
                "shell",
                Path::new("/w/script/matrix"),
                "matrix",
                "script/matrix",
            )
            .description("Run the lint on every ruby version"),
            CommandItem::new(
                "shell",
                Path::new("/w/script/fmt"),
                "fmt",
                "bundle exec rubocop -D",
            ),
        ];
        let hits = fused(
            &commands,
            "lint the ruby code with rubocop",
            &[Some(0.6), Some(0.55)],
        );
        assert_eq!(hits[0].command.label, "fmt", "{hits:#?}");
    }

    #[test]
    fn a_command_running_the_tool_the_query_names_goes_before_one_nearer_in_meaning() {
        let shell = |label: &str, command: &str| {
            CommandItem::new("shell", &Path::new("/w/script").join(label), label, command)
        };
        let commands = vec![
            shell("rubies", "script/rubies").description("Test on every ruby we can find"),
            shell("fmt", "bundle exec rubocop -D"),
            shell("bootstrap", "bundle install"),
        ];
        // `rubies` is far nearer in meaning: decisive, but not past the command running the
        // named tool.
        let hits = fused(
            &commands,
            "lint the ruby code with rubocop",
            &[Some(0.75), Some(0.3), Some(0.2)],
        );
        assert_eq!(hits[0].command.label, "fmt", "{hits:#?}");
    }

    #[test]
    fn a_query_asking_to_run_a_program_finds_the_nox_session_running_it() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-nox-session-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        std::fs::write(
            dir.join("noxfile.py"),
            "import nox\n\n\
             @nox.session\ndef lint(session):\n    session.install(\"pre-commit\")\n    \
             session.run(\"pre-commit\", \"run\", \"--all-files\")\n\n\
             @nox.session\ndef tests(session):\n    session.run(\"pytest\", *session.posargs)\n\n\
             @nox.session\ndef docs(session):\n    session.run(\"sphinx-build\", \"docs\", \"out\")\n",
        )
        .unwrap();
        let ws = commandtree_core::Workspace::open(Some(&dir), &dir);
        let mut commands: Vec<CommandItem> = ws
            .discover(&commandtree_core::Options::default())
            .commands
            .into_iter()
            .filter(|c| c.kind == "nox" && c.label != "nox")
            .collect();
        commands.sort_by(|a, b| a.label.cmp(&b.label));
        let labels: Vec<&str> = commands.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["docs", "lint", "tests"]);
        let lexical = crate::lexical::index_for(&dir, &commands)
            .rank("run the pre-commit hooks on every file");
        let hits = fuse(
            crate::names::At::root(&dir),
            &commands,
            "run the pre-commit hooks on every file",
            &lexical,
            // `lint` is the furthest in meaning.
            Some(&[Some(0.2), Some(0.0), Some(0.15)]),
            &Ask::default(),
        );
        assert_eq!(hits[0].command.label, "lint", "{hits:#?}");
        assert!(lexical.iter().any(|r| r.invokes && r.doc == 1));
    }

    #[test]
    fn a_ci_workflow_comes_after_a_command_run_here_unless_the_query_speaks_of_ci() {
        let commands = vec![
            CommandItem::new(
                "workflow",
                Path::new("/w/.github/workflows/latest-deps.yml"),
                "Test against latest dependencies",
                "gh workflow run latest-deps.yml",
            )
            .description("Resolves the dependencies, then runs the test suite and builds the docs"),
            CommandItem::new("npm", Path::new("/w/package.json"), "test", "jest"),
            CommandItem::new("npm", Path::new("/w/package.json"), "lint", "eslint ."),
        ];
        let sims = [Some(0.25), Some(0.42), Some(0.3)];
        // Its words are far ahead ("suite" only it holds): still not decisive.
        let hits = fused(&commands, "run the test suite", &sims);
        assert_eq!(hits[0].command.label, "test", "{hits:#?}");
        // Its name saying the query, it is.
        let hits = fused(&commands, "test against the latest dependencies", &sims);
        assert_eq!(hits[0].command.kind, "workflow", "{hits:#?}");
        let hits = fused(&commands, "run the CI test suite", &sims);
        assert_eq!(hits[0].command.kind, "workflow", "{hits:#?}");
    }

    #[test]
    fn a_documentation_sites_task_is_not_decisive_for_a_query_not_about_docs() {
        let make = |file: &str, label: &str, recipe: &str| {
            CommandItem::new("make", Path::new(file), label, recipe)
        };
        let commands = vec![
            make("/w/docs/Makefile", "coverage", "make coverage"),
            make("/w/Makefile", "cov", "$(PYTEST) -x --cov=$(PROJ)"),
        ];
        let hits = fused(
            &commands,
            "run the tests with coverage",
            &[Some(0.68), Some(0.1)],
        );
        assert_eq!(hits[0].command.label, "cov", "{hits:#?}");
    }

    #[test]
    fn a_decisive_match_does_not_pass_a_name_that_says_more_of_the_query() {
        let make = |label: &str, d: &str| {
            CommandItem::new("make", Path::new("/w/Makefile"), label, "make").description(d)
        };
        let commands = vec![
            make(
                "dialyze",
                "Run dialyzer over the dialyzer plt with dialyzer warnings as dialyzer errors",
            ),
            make("build_plt", "Make the plt"),
            make("docs", "Make the docs"),
            make("test", "Make the tests"),
        ];
        let got = ranked_by(
            &commands,
            "build the dialyzer PLT",
            &[Some(0.7), Some(0.55), Some(0.3), Some(0.3)],
        );
        assert_eq!(got[0], "/w/Makefile:build_plt", "{got:#?}");
    }

    #[test]
    fn a_command_that_runs_a_program_is_another_task_than_building_it() {
        let cargo = |label: &str, script: &str| {
            CommandItem::new("cargo", Path::new("/w/cli/Cargo.toml"), label, script)
        };
        let commands = vec![
            cargo("run-deno", "cargo run --bin deno"),
            cargo("build", "cargo build"),
        ];
        let got = ranked_by(&commands, "build the deno binary", &[Some(0.6), Some(0.55)]);
        assert_eq!(got[0], "/w/cli/Cargo.toml:build", "{got:#?}");
        assert_eq!(
            crate::lexical::actions("run-tests"),
            crate::lexical::actions("test")
        );
        assert_ne!(crate::lexical::actions("run"), 0);
        assert_eq!(
            crate::lexical::actions("common-print-golangci-lint-version"),
            crate::lexical::actions("print")
        );
    }

    #[test]
    fn a_near_exact_name_wins_over_a_paraphrase_both_lists_put_level() {
        let npm = |label: &str, script: &str| {
            CommandItem::new("npm", Path::new("/w/package.json"), label, script)
        };
        // `test` first in the listing: a tie would go to it.
        let commands = vec![
            npm("test", "pnpm test-unit && pnpm test-serve"),
            npm("test-unit", "vitest run"),
            npm("test-serve", "vitest run -c vitest.config.e2e.ts"),
        ];
        let at = crate::names::At::root(Path::new("/w"));
        let query = "run the unit tests";
        let lexical = crate::lexical::Index::build(
            commands
                .iter()
                .map(|c| crate::lexical::fields(c, Path::new("/w"), None)),
        )
        .rank(query);
        let lexical_first = lexical[0].doc;
        // The paraphrase is first by meaning, the name first or second by words.
        let sims = vec![Some(0.62), Some(0.58), Some(0.5)];
        let hits = fuse(at, &commands, query, &lexical, Some(&sims), &Ask::default());
        assert_eq!(hits[0].command.label, "test-unit", "{lexical_first}");
        assert!(!hits[0].exact);
    }

    /// Hybrid hits of `query` over `commands` with these similarities, lexical ranks from the
    /// real index; the labels with their folders, best first.
    /// `fuse` over the lexical index a search builds (the commands' own texts and the programs
    /// they call), at `/w`.
    fn fused(commands: &[CommandItem], query: &str, sims: &[Option<f32>]) -> Vec<Hit> {
        let lexical = crate::lexical::index_for(Path::new("/w"), commands).rank(query);
        fuse(
            crate::names::At::root(Path::new("/w")),
            commands,
            query,
            &lexical,
            Some(sims),
            &Ask::default(),
        )
    }

    fn ranked_by(commands: &[CommandItem], query: &str, sims: &[Option<f32>]) -> Vec<String> {
        let at = crate::names::At::root(Path::new("/w"));
        let lexical = crate::lexical::Index::build(
            commands
                .iter()
                .map(|c| crate::lexical::fields(c, Path::new("/w"), None)),
        )
        .rank(query);
        fuse(at, commands, query, &lexical, Some(sims), &Ask::default())
            .into_iter()
            .map(|h| format!("{}:{}", h.command.file_path, h.command.label))
            .collect()
    }

    /// A .NET project's command as the dotnet source names it (`Data.Test: build`), under `/w`.
    fn dotnet_project(path: &str, verb: &str, description: &str) -> CommandItem {
        let name = Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        CommandItem::new(
            "dotnet",
            &Path::new("/w").join(path),
            &format!("{name}: {verb}"),
            format!("dotnet {verb}"),
        )
        .description(description)
    }

    /// Seeding a database is a task of its own: not building or cleaning the seeder projects,
    /// whose names hold the word as often.
    #[test]
    fn seeding_is_not_building_the_seeder() {
        let seed = CommandItem::new(
            "powershell",
            Path::new("/w/dev/seed.ps1"),
            "seed.ps1",
            "pwsh seed.ps1",
        )
        .description("Runs SeederUtility for each entry defined in seeds.json.");
        let commands = vec![
            dotnet_project(
                "test/Data.Test/Data.Test.csproj",
                "build",
                "Build the project",
            ),
            dotnet_project("test/Data.Test/Data.Test.csproj", "test", "Run all tests"),
            dotnet_project("util/Seeder/Seeder.csproj", "build", "Build the project"),
            dotnet_project(
                "test/SeederApi.Test/SeederApi.Test.csproj",
                "test",
                "Run all tests",
            ),
            seed,
        ];
        // bitwarden/server's: every project nearer in meaning than the script.
        let sims = [0.33, 0.36, 0.35, 0.39, 0.13].map(Some);
        let got = ranked_by(&commands, "seed the database with test data", &sims);
        let at = |id: &str| got.iter().position(|g| g == id).unwrap();
        // ("test data" still finds the test projects first: a task word used as a noun.)
        assert!(
            at("/w/dev/seed.ps1:seed.ps1") < at("/w/util/Seeder/Seeder.csproj:Seeder: build")
                && at("/w/dev/seed.ps1:seed.ps1")
                    < at("/w/test/Data.Test/Data.Test.csproj:Data.Test: build"),
            "{got:?}"
        );
    }

    /// Prometheus's Makefile beside its go.mod: the tool's verbs describe themselves, the
    /// project's targets say nothing, yet `make format` is how the project formats.
    #[test]
    fn a_task_the_project_wrote_goes_before_the_build_tools_verb_for_it() {
        let make = |label: &str| {
            CommandItem::new(
                "make",
                Path::new("/w/Makefile"),
                label,
                format!("make {label}"),
            )
        };
        let go = |label: &str, command: &str, description: &str| {
            CommandItem::new("go", Path::new("/w/go.mod"), label, command).description(description)
        };
        let commands = vec![
            make("format"),
            make("lint"),
            make("build"),
            go(
                "fmt",
                "go fmt ./...",
                "Format the Go code of every package with gofmt",
            ),
            go(
                "lint",
                "golangci-lint run",
                "Lint the module with golangci-lint",
            ),
            go(
                "tidy",
                "go mod tidy",
                "Add missing and remove unused module requirements",
            ),
        ];
        // By meaning the tool's verbs are far nearer.
        let sims = [0.3, 0.3, 0.2, 0.7, 0.7, 0.5].map(Some);
        let first = |q: &str| {
            let h = &fused(&commands, q, &sims)[0];
            format!("{}:{}", h.command.kind, h.command.label)
        };
        assert_eq!(first("format the go code"), "make:format");
        assert_eq!(first("lint the go code with golangci-lint"), "make:lint");
        // Nothing the project wrote tidies the modules.
        assert_eq!(first("tidy the module dependencies"), "go:tidy");

        // Below the root too: goreleaser's Taskfile `fmt` over its docs site's `www/go.mod`.
        let task = CommandItem::new("taskfile", Path::new("/w/Taskfile.yml"), "fmt", "task fmt")
            .description("gofumpt all code");
        let www = CommandItem::new("go", Path::new("/w/www/go.mod"), "fmt", "go fmt ./...")
            .description("Format the Go code of every package with gofmt");
        let commands = vec![task, www];
        let hits = fused(&commands, "format the go code", &[Some(0.4), Some(0.7)]);
        assert_eq!(hits[0].command.kind, "taskfile");
        // A task of another language's runner does not stand for the tool's verb when the
        // query names the tool's language: tauri's `npm run format` is prettier.
        let commands = vec![
            CommandItem::new(
                "npm",
                Path::new("/w/package.json"),
                "format",
                "npm run format",
            )
            .description("prettier --write ."),
            CommandItem::new(
                "cargo",
                Path::new("/w/Cargo.toml"),
                "fmt",
                "cargo fmt --all",
            )
            .description("Format all workspace members with rustfmt"),
        ];
        let hits = fused(&commands, "format the rust code", &[Some(0.4), Some(0.6)]);
        assert_eq!(hits[0].command.kind, "cargo");
        let hits = fused(&commands, "format the code", &[Some(0.4), Some(0.6)]);
        assert_eq!(hits[0].command.kind, "npm");

        // Kind's `make gofmt` is `go fmt`.
        let commands = vec![
            CommandItem::new("make", Path::new("/w/Makefile"), "gofmt", "make gofmt"),
            CommandItem::new("go", Path::new("/w/go.mod"), "fmt", "go fmt ./...")
                .description("Format the Go code of every package with gofmt"),
        ];
        let hits = fused(&commands, "format the go code", &[Some(0.3), Some(0.7)]);
        assert_eq!(hits[0].command.kind, "make");
        // The verb left both lists.
        assert!(
            hits.iter()
                .filter(|h| h.command.kind == "go")
                .all(|h| h.lexical_rank.is_none() && h.semantic_rank.is_none())
        );

        // Dokku's root `make test` over each plugin's go.mod: they neither take its place nor
        // lift it; one plugin the query names keeps its own.
        let mut commands = vec![
            CommandItem::new("make", Path::new("/w/Makefile"), "test", "make test"),
            CommandItem::new(
                "make",
                Path::new("/w/Makefile"),
                "go-tests",
                "make go-tests",
            ),
        ];
        for p in ["apps", "builder", "certs", "plugin"] {
            commands.push(
                CommandItem::new(
                    "go",
                    &Path::new("/w/plugins").join(p).join("go.mod"),
                    "test",
                    "go test ./...",
                )
                .description("Run the tests of every package of the module"),
            );
        }
        let sims = [0.1, 0.4, 0.6, 0.6, 0.6, 0.6].map(Some);
        let hits = fused(&commands, "run the go unit tests of every plugin", &sims);
        assert_eq!(hits[0].command.label, "go-tests");
        let hits = fused(&commands, "test the certs plugin", &sims);
        assert_eq!(hits[0].command.file_path, "/w/plugins/certs/go.mod");
        // A folder named for a task is not named by asking for the task (uutils' `rm/`).
        let commands = vec![
            CommandItem::new("make", Path::new("/w/GNUmakefile"), "clean", "make clean"),
            CommandItem::new(
                "cargo",
                Path::new("/w/src/uu/rm/Cargo.toml"),
                "clean",
                "cargo clean",
            )
            .description("Remove build artifacts"),
        ];
        let hits = fused(&commands, "remove build artifacts", &[Some(0.2), Some(0.8)]);
        assert_eq!(hits[0].command.kind, "make");
    }

    /// Jellyfin's fuzz folders: a .NET project named for what it fuzzes beside the script that
    /// fuzzes it, and launch configurations beside `dotnet run`.
    #[test]
    fn fuzzing_is_testing_and_a_launch_configuration_debugs() {
        let fuzz = "fuzz/Emby.Server.Implementations.Fuzz/Emby.Server.Implementations.Fuzz.csproj";
        let commands = vec![
            dotnet_project(fuzz, "run", "Run the application"),
            dotnet_project(fuzz, "build", "Build the project"),
            CommandItem::new(
                "shell",
                Path::new("/w/fuzz/Emby.Server.Implementations.Fuzz/fuzz.sh"),
                "fuzz.sh",
                "./fuzz.sh",
            ),
        ];
        // By meaning the project's `build` is first: it builds, it does not fuzz, though its
        // project's name says so. Running that project fuzzes.
        let sims = [0.4, 0.6, 0.5].map(Some);
        let got = ranked_by(&commands, "fuzz the server implementations", &sims);
        let at = |end: &str| got.iter().position(|g| g.ends_with(end)).unwrap();
        assert!(at("fuzz.sh") < at(": build"), "{got:?}");
        let benchmarks = "Tests/Benchmarks/Benchmarks.csproj";
        let commands = vec![
            dotnet_project(benchmarks, "build", "Build the project"),
            dotnet_project(benchmarks, "run", "Run the application"),
        ];
        let got = ranked_by(
            &commands,
            "run the performance benchmarks",
            &[Some(0.55), Some(0.5)],
        );
        assert!(got[0].ends_with("Benchmarks: run"), "{got:?}");

        let server = "Jellyfin.Server/Jellyfin.Server.csproj";
        let launch = |label: &str| {
            CommandItem::new("launch", Path::new("/w/.vscode/launch.json"), label, label)
                .description("coreclr")
        };
        let commands = vec![
            dotnet_project(server, "run", "Run the application"),
            dotnet_project(server, "build", "Build the project"),
            launch(".NET Launch (console)"),
            launch(".NET Launch (nowebclient)"),
        ];
        let sims = [0.5, 0.45, 0.3, 0.32].map(Some);
        let first = |q: &str| fused(&commands, q, &sims)[0].command.label.clone();
        assert!(first("debug the server without the web client").contains("Launch"));
        // Asked to build it, the build stays first.
        assert_eq!(first("build the server"), "Jellyfin.Server: build");
    }

    #[test]
    fn a_query_listing_requests_finds_the_command_whose_steps_do_them_all() {
        use crate::closure::tests::cmd;
        let p = StepHow::Prerequisite;
        let commands = vec![
            cmd("make", "/w/Makefile", "clean", &[]),
            cmd("make", "/w/Makefile", "format", &[]),
            cmd("make", "/w/Makefile", "tests", &[]),
            cmd("make", "/w/Makefile", "build", &[("format", p)]),
            cmd(
                "make",
                "/w/Makefile",
                "all",
                &[("clean", p), ("format", p), ("tests", p), ("build", p)],
            ),
            cmd("make", "/w/Makefile", "deploy-test-checks-lint", &[]),
            cmd("make", "/w/Makefile", "ci", &[("lint", p), ("tests", p)]),
            cmd("make", "/w/Makefile", "lint", &[]),
        ];
        // `clean` is nearest in meaning, `all` third.
        let sims = [0.53, 0.37, 0.52, 0.35, 0.5, 0.3, 0.3, 0.3].map(Some);
        let first = |q: &str| fused(&commands, q, &sims)[0].command.label.clone();
        assert_eq!(first("clean, format, test and build in one go"), "all");
        // Far down both lists, its steps do not make it the answer.
        let mut far = sims;
        far[4] = Some(0.1);
        assert_eq!(
            fused(&commands, "clean, format, test and build in one go", &far)[0]
                .command
                .label,
            "clean"
        );
        // One request: the composite is not preferred for it.
        assert_eq!(first("clean the build output"), "clean");
        // Three requests, `all` does one (it lints nothing), `ci` two: neither is first; a
        // command of one name holding every word (`deploy-test-checks-lint`) does one.
        let q = "lint, test and deploy";
        assert_ne!(first(q), "all");
        assert_ne!(first(q), "ci");
        // Matching: each request takes a different name.
        assert_eq!(matching(&[vec![0], vec![0], vec![0, 1]], 2), 2);
        assert_eq!(matching(&[vec![0, 1], vec![0]], 2), 2);
        assert_eq!(matching(&[vec![], vec![1]], 2), 1);
    }

    #[test]
    fn a_query_asking_for_several_compose_services_finds_the_files_up() {
        let compose = |file: &str, label: &str, description: &str| {
            let mut c = CommandItem::new("docker", Path::new(file), label, "docker compose up");
            c.description = Some(description.to_string());
            c
        };
        let f = "/w/docker-compose.yml";
        let ci = "/w/.ci/compose.ci.yml";
        let commands = vec![
            compose(f, "up", "Start all services"),
            compose(f, "up -d", "Start in background"),
            compose(f, "up mysql", "Start mysql service"),
            compose(
                f,
                "up redis",
                "Start redis service: Redis in-memory store (cache, queues)",
            ),
            compose(f, "up mailpit", "Start mailpit service"),
            compose(ci, "up", "Start all services"),
            compose(ci, "up mysql", "Start mysql service"),
            compose(ci, "up redis", "Start redis service"),
        ];
        // The services, nearest in meaning; `up` is far.
        let sims = [0.2, 0.19, 0.25, 0.34, 0.1, 0.15, 0.24, 0.33].map(Some);
        let first = |q: &str| {
            let h = &fused(&commands, q, &sims)[0].command;
            format!("{}:{}", h.file_path, h.label)
        };
        // A database and a cache: two services, each named by a request; the project's file
        // (its services rank first by words), not the CI one.
        assert_eq!(
            first("start the database and cache services"),
            "/w/docker-compose.yml:up"
        );
        assert_eq!(
            first("bring up the dev environment with mysql and redis"),
            "/w/docker-compose.yml:up"
        );
        // One service, or two requests naming the same one: that service.
        assert_eq!(first("start redis"), "/w/docker-compose.yml:up redis");
        assert_eq!(
            first("start the cache and the redis store"),
            "/w/docker-compose.yml:up redis"
        );
    }

    #[test]
    fn a_command_doing_one_request_by_its_name_and_another_by_its_step_does_both() {
        use crate::closure::tests::cmd;
        let mut clean_install = cmd(
            "npm",
            "/w/package.json",
            "clean-install",
            &[("rm:node_modules", StepHow::Call)],
        );
        clean_install.command = "yarn rm:node_modules && yarn install".into();
        let mut rm = cmd("npm", "/w/package.json", "rm:node_modules", &[]);
        rm.command = "rimraf --glob node_modules packages/*/node_modules".into();
        let mut commands = vec![rm, clean_install];
        for n in 0..10 {
            commands.push(cmd("npm", "/w/package.json", &format!("build:{n}"), &[]));
        }
        // The step alone is far nearer in meaning.
        let mut sims = vec![Some(0.8), Some(0.65)];
        sims.extend((0..10).map(|n| Some(0.3 - 0.01 * n as f32)));
        let hits = fused(&commands, "delete node_modules and reinstall", &sims);
        assert_eq!(hits[0].command.label, "clean-install");
        // Asked for the one request, the step is the answer.
        let hits = fused(&commands, "delete node_modules", &sims);
        assert_eq!(hits[0].command.label, "rm:node_modules");
    }

    #[test]
    fn a_name_saying_another_task_besides_the_asked_one_gains_nothing_for_it() {
        let npm = |label: &str, script: &str| {
            CommandItem::new("npm", Path::new("/w/package.json"), label, script)
        };
        let mut commands = vec![
            npm("test:kit:build", "pnpm run --dir packages/kit test:build"),
            npm("build:libs", "pnpm --filter '@sveltejs/*' -r build"),
        ];
        // Building is in most scripts of a monorepo, and packages in most folders.
        for n in 0..10 {
            commands.push(npm(&format!("check:{n}"), "pnpm build && tsc"));
            commands.push(CommandItem::new(
                "npm",
                Path::new(&format!("/w/packages/p{n}/package.json")),
                "check",
                "tsc",
            ));
        }
        let mut sims = vec![Some(0.45), Some(0.44)];
        sims.extend((0..20).map(|n| Some(0.3 - 0.01 * n as f32)));
        let first = |q: &str| fused(&commands, q, &sims)[0].command.label.clone();
        assert_eq!(first("build all the publishable packages"), "build:libs");
        // Asked for both, the name saying both is the answer.
        assert_eq!(first("build the kit for the tests"), "test:kit:build");
    }

    #[test]
    fn when_each_list_is_sure_of_another_command_the_fused_rank_decides() {
        let make = |label: &str, description: &str| {
            let mut c = CommandItem::new(
                "make",
                Path::new("/w/Makefile"),
                label,
                format!("make {label}"),
            );
            c.description = Some(description.into());
            c
        };
        let mut commands = vec![
            make(
                "check",
                "Runs the linters, the formatter, the vet checks and the tests.",
            ),
            make("tests", "Executes any unit tests."),
            make("wpt", "Web platform tests."),
        ];
        for n in 0..10 {
            commands.push(make(&format!("task-{n}"), "Does another thing."));
        }
        // `check` is nearest in meaning by a margin that would decide alone; `tests` holds
        // "unit" and is far ahead by words.
        let mut sims = vec![Some(0.67), Some(0.55), Some(0.33)];
        sims.extend((0..10).map(|n| Some(0.3 - 0.01 * n as f32)));
        let hits = fused(&commands, "run the unit tests", &sims);
        assert_eq!(hits[0].command.label, "tests");
        // Where the words are not sure, the meaning decides.
        let hits = fused(&commands, "run the linters", &sims);
        assert_eq!(hits[0].command.label, "check");
    }

    #[test]
    fn words_far_ahead_decide_for_a_command_whose_meaning_is_only_its_name() {
        let c = |kind: &str, file: &str, label: &str, command: &str| {
            CommandItem::new(kind, Path::new(file), label, command)
        };
        let mut commands = vec![c(
            "make",
            "/w/Makefile",
            "common-build",
            "make common-build",
        )];
        for (i, lib) in ["lexer", "parser", "codemirror", "ui", "editor"]
            .iter()
            .enumerate()
        {
            let mut b = c(
                "shell",
                &format!("/w/web/{lib}/build.sh"),
                "build.sh",
                &format!("bash web/{lib}/build.sh"),
            );
            b.description = Some(format!("build the {lib} library ({i})"));
            commands.push(b);
        }
        for n in 0..6 {
            commands.push(c("make", "/w/Makefile", &format!("other-{n}"), "true"));
        }
        let recipe = "@echo \">> building binaries\"\n\t$(PROMU) build --prefix $(PREFIX)";
        let index =
            crate::lexical::Index::build(commands.iter().enumerate().map(|(i, c)| {
                crate::lexical::fields(c, Path::new("/w"), (i == 0).then_some(recipe))
            }));
        let query = "build the binaries";
        let lexical = index.rank(query);
        assert_eq!(commands[lexical[0].doc].label, "common-build");
        // By meaning the make target is last: all the model sees is its name.
        let mut sims: Vec<Option<f32>> = vec![Some(0.05)];
        sims.extend((0..5).map(|i| Some(0.45 - 0.01 * i as f32)));
        sims.extend((0..6).map(|n| Some(0.3 - 0.01 * n as f32)));
        let hits = fuse(
            crate::names::At::root(Path::new("/w")),
            &commands,
            query,
            &lexical,
            Some(&sims),
            &Ask::default(),
        );
        assert_eq!(hits[0].command.label, "common-build");
    }

    #[test]
    fn a_command_running_many_others_makes_way_for_the_one_asked_for() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-aggregate-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        let ini = dir.join("tox.ini");
        let envs = ["docs", "docs-tests", "docs-links", "docs-coverage", "serve"];
        // The file's header speaks of what its environments do, as many do.
        let mut text = format!(
            "# Build the docs, test their examples, find broken links in them.\n[tox]\nenvlist = {}\n",
            envs.join(", ")
        );
        let mut lines = Vec::new();
        for (e, run) in envs.iter().zip([
            "sphinx-build -b html . out",
            "pytest",
            "sphinx-build -W -b linkcheck . out",
            "sphinx-build -b coverage . out",
            "python -m http.server",
        ]) {
            lines.push(text.lines().count() + 2);
            text.push_str(&format!("\n[testenv:{e}]\ncommands = {run}\n"));
        }
        std::fs::write(&ini, &text).unwrap();
        let mut all = CommandItem::new("tox", &ini, "tox", "tox").line(2);
        all.description = Some(format!("Run the default environments: {}", envs.join(", ")));
        all.steps = envs
            .iter()
            .map(|e| commandtree_core::StepRef::new(e.to_string(), StepHow::Call, false))
            .collect();
        let mut commands = vec![all];
        for (e, line) in envs.iter().zip(&lines) {
            commands.push(CommandItem::new("tox", &ini, e, format!("tox -e {e}")).line(*line));
        }
        // By meaning the list of every environment is near any query about one of them, and
        // it holds every one's words.
        let sims = [
            Some(0.5),
            Some(0.1),
            Some(0.2),
            Some(0.45),
            Some(0.2),
            Some(0.1),
        ];
        let first = |q: &str| {
            let lexical = crate::lexical::index_for(&dir, &commands).rank(q);
            let at = crate::names::At::root(&dir);
            let h = fuse(at, &commands, q, &lexical, Some(&sims), &Ask::default());
            h[0].command.label.clone()
        };
        assert_eq!(first("find broken links in the docs"), "docs-links");
        // Asked for everything, it is the answer.
        assert_eq!(first("run all the default environments"), "tox");
    }

    #[test]
    fn a_command_named_for_all_the_query_but_the_projects_name_keeps_its_place() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-aggregate-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().join("coreutils");
        std::fs::create_dir(&dir).unwrap();
        let mk = dir.join("GNUmakefile");
        let parts = [
            "build",
            "install-manpages",
            "install-completions",
            "install-locales",
        ];
        let mut text = format!("install: {}\n\tinstall -d $(BINDIR)\n", parts.join(" "));
        for p in parts {
            // The project's name is in the text of many of its commands.
            text.push_str(&format!("{p}:\n\tcp -r out/{p} $(DESTDIR)/coreutils\n"));
        }
        std::fs::write(&mk, &text).unwrap();
        let mut install = CommandItem::new("make", &mk, "install", "make install")
            .line(1)
            .description("install coreutils");
        install.steps = parts
            .iter()
            .map(|p| commandtree_core::StepRef::new(p.to_string(), StepHow::Call, false))
            .collect();
        let mut commands = vec![install];
        for (i, p) in parts.iter().enumerate() {
            commands.push(
                CommandItem::new("make", &mk, p, format!("make {p}"))
                    .line(3 + 2 * i)
                    .description(format!("{p} for coreutils")),
            );
        }
        // A workspace of many commands, few of which say the project's name, and a crate
        // whose name is the task's (`src/uu/install/`).
        for i in 0..30 {
            let manifest = dir.join(format!("src/uu/install/c{i}/Cargo.toml"));
            commands.push(CommandItem::new("cargo", &manifest, "test", "cargo test"));
        }
        // By meaning, building is nearest.
        let mut sims = vec![Some(0.37), Some(0.65), Some(0.32), Some(0.29), Some(0.31)];
        sims.resize(commands.len(), Some(0.1));
        let lexical = crate::lexical::index_for(&dir, &commands).rank("install coreutils");
        let at = crate::names::At::root(&dir);
        let h = fuse(
            at,
            &commands,
            "install coreutils",
            &lexical,
            Some(&sims),
            &Ask::default(),
        );
        assert_eq!(h[0].command.label, "install");
    }

    #[test]
    fn a_query_asks_for_everything_by_all_of_its_tasks_not_all_of_anything() {
        for q in [
            "run all the checks",
            "run every linter",
            "run everything CI runs",
            "the full test suite",
            "run all the default environments",
            // A command building each package in turn is what is asked.
            "build all the packages",
            "build all the npm packages",
        ] {
            assert!(asks_everything(q), "{q}");
        }
        for q in [
            "run the tests with all the optional dependencies installed",
            "check the docs for broken links",
        ] {
            assert!(!asks_everything(q), "{q}");
        }
    }

    #[test]
    fn a_runners_options_say_nothing_of_what_a_command_does() {
        assert!(meaning_is_its_name(&CommandItem::new(
            "tox",
            Path::new("/w/tox.ini"),
            "twinecheck",
            "tox -e twinecheck",
        )));
        assert!(!meaning_is_its_name(&CommandItem::new(
            "tox",
            Path::new("/w/tox.ini"),
            "docs",
            "tox -e docs -- sphinx",
        )));
    }

    #[test]
    fn the_name_in_a_commands_id_is_an_exact_name() {
        let commands = vec![
            CommandItem::new("shell", Path::new("/w/app.bash"), "app.bash", "x"),
            CommandItem::new("cargo", Path::new("/w/Cargo.toml"), "run-app", "cargo run")
                .label("run --bin app"),
        ];
        assert_eq!(
            ranked_by(&commands, "run-app", &[Some(0.6), Some(0.5)])[0],
            "/w/Cargo.toml:run --bin app"
        );
    }

    #[test]
    fn words_far_ahead_decide_though_the_meaning_is_far() {
        let c = |kind: &str, file: &str, label: &str, command: &str| {
            CommandItem::new(kind, Path::new(file), label, command)
        };
        let mut commands = vec![
            c(
                "make",
                "/w/Makefile",
                "format",
                "pre-commit run --all-files",
            ),
            c(
                "make",
                "/w/Makefile",
                "lint",
                "ruff check . && black --check .",
            ),
            c("npm", "/w/package.json", "start", "webpack serve"),
        ];
        let mut sims = vec![Some(0.05), Some(0.1), Some(0.3)];
        // A dozen Python scripts the small model puts nearer for the word "python".
        for i in 0..12 {
            let name = format!("t{i}.py");
            commands.push(c(
                "python",
                &format!("/w/tools/{name}"),
                &name,
                &format!("python tools/{name}"),
            ));
            sims.push(Some(0.5 - i as f32 * 0.01));
        }
        assert_eq!(
            ranked_by(
                &commands,
                "check python code style with ruff and black",
                &sims
            )[0],
            "/w/Makefile:lint"
        );
        // Asked only to run what the other words name: the recipe that runs it, though its
        // name says another task.
        assert_eq!(
            ranked_by(&commands, "run pre-commit hooks on all files", &sims)[0],
            "/w/Makefile:format"
        );
    }

    #[test]
    fn a_command_named_only_for_the_project_does_not_answer_a_task() {
        let root = Path::new("/src/elixir");
        let make = |label: &str| {
            CommandItem::new(
                "make",
                &root.join("Makefile"),
                label,
                format!("make {label}"),
            )
        };
        let mut iex = CommandItem::new("shell", &root.join("bin/iex"), "iex", "bin/iex");
        iex.description = Some("Interactive Elixir shell".to_string());
        let mut elixir = make("elixir");
        elixir.description = Some("Starts the Elixir shell".to_string());
        let commands = vec![elixir, iex, make("clean")];
        let lexical = crate::lexical::Index::build(
            commands
                .iter()
                .map(|c| crate::lexical::fields(c, root, None)),
        );
        let first = |query: &str, sims: &[Option<f32>]| {
            fuse(
                crate::names::At::root(root),
                &commands,
                query,
                &lexical.rank(query),
                Some(sims),
                &Ask::default(),
            )[0]
            .command
            .label
            .clone()
        };
        // Every query about the project names it; the target named so is nearest in meaning.
        let sims = [Some(0.45), Some(0.40), Some(0.10)];
        assert_eq!(first("start the interactive elixir shell", &sims), "iex");
        // Asked by its name alone, it is the answer.
        assert_eq!(first("elixir", &sims), "elixir");
    }

    #[test]
    fn all_the_tests_of_a_dotnet_workspace_are_the_solutions() {
        let dotnet = |path: &str, label: &str, description: &str| {
            let mut c = CommandItem::new("dotnet", Path::new(path), label, "dotnet test");
            c.description = Some(description.to_string());
            c
        };
        let commands = vec![
            dotnet(
                "/w/Tests/Approval.Tests/Approval.Tests.csproj",
                "Approval.Tests: test",
                "Run all tests",
            ),
            dotnet(
                "/w/Tests/VB.Specs/VB.Specs.vbproj",
                "VB.Specs: test",
                "Run all tests",
            ),
            dotnet("/w/App.slnx", "App: test", "Run the tests of the solution"),
        ];
        // Each project says "Run all tests" of itself, and is nearer in meaning.
        let sims = [Some(0.62), Some(0.58), Some(0.50)];
        assert_eq!(
            ranked_by(&commands, "run all the tests", &sims)[0],
            "/w/App.slnx:App: test"
        );
        // Not for a query about something else of every kind.
        assert_ne!(
            ranked_by(&commands, "check every supported test framework", &sims)[0],
            "/w/App.slnx:App: test"
        );
    }

    #[test]
    fn a_command_named_for_another_task_makes_way_for_one_named_for_the_asked() {
        let make = |label: &str| CommandItem::new("make", Path::new("/w/Makefile"), label, "make");
        let npm = |label: &str| {
            CommandItem::new(
                "npm",
                Path::new("/w/web/ui/package.json"),
                label,
                "npm start",
            )
        };
        let commands = vec![make("ui-install"), make("ui-build"), npm("start")];
        // By meaning the Makefile's targets come first; the words are level.
        let sims = [Some(0.62), Some(0.6), Some(0.5)];
        let first = |q: &str| ranked_by(&commands, q, &sims)[0].clone();
        assert_eq!(
            first("start the ui dev server"),
            "/w/web/ui/package.json:start"
        );
        // Asked to install, the install target stays first.
        assert_eq!(first("install the ui"), "/w/Makefile:ui-install");
        // A query that asks for no task changes nothing.
        assert_eq!(first("the ui"), "/w/Makefile:ui-install");
        // "run" and a task further on asks for that task.
        let erlang = vec![
            CommandItem::new("make", Path::new("/w/Makefile"), "erlang", "make erlang"),
            CommandItem::new(
                "make",
                Path::new("/w/Makefile"),
                "test_erlang",
                "make test_erlang",
            ),
        ];
        assert_eq!(
            ranked_by(
                &erlang,
                "run the erlang unit tests with eunit",
                &[Some(0.62), Some(0.6)]
            )[0],
            "/w/Makefile:test_erlang"
        );
        // "run" alone asks to run something: a build is not that, though its name says all
        // the rest ("run the app in docker": `build:app:docker`).
        let docker = vec![
            CommandItem::new("npm", Path::new("/w/package.json"), "build:app:docker", "x"),
            CommandItem::new(
                "docker",
                Path::new("/w/compose.yml"),
                "up",
                "docker compose up",
            ),
        ];
        assert_eq!(
            ranked_by(&docker, "run the app in docker", &[Some(0.6), Some(0.55)])[0],
            "/w/compose.yml:up"
        );
        // A task word past the query's first words is its object: no task asked.
        let bench = vec![
            CommandItem::new("cargo", Path::new("/w/Cargo.toml"), "alias-benchmark", "x"),
            CommandItem::new("shell", Path::new("/w/scripts/setup.sh"), "setup.sh", "x"),
        ];
        assert_eq!(
            ranked_by(
                &bench,
                "clone cpython for the benchmarks",
                &[Some(0.4), Some(0.6)]
            )[0],
            "/w/scripts/setup.sh:setup.sh"
        );
        // Testing something runs it: `test-examples` is "run the code examples from the
        // documentation", not another task than running.
        let examples = vec![
            make("docs"),
            make("docs-serve"),
            CommandItem::new("cargo", Path::new("/w/core/Cargo.toml"), "doc", "cargo doc"),
            make("test-examples"),
        ];
        assert_eq!(
            ranked_by(
                &examples,
                "run the code examples from the documentation",
                &[Some(0.22), Some(0.24), Some(0.31), Some(0.55)]
            )[0],
            "/w/Makefile:test-examples"
        );
        // Cleaning undoes the task it names: `build` is not "delete the build output", though
        // it is nearer in meaning.
        let npm = |label: &str| CommandItem::new("npm", Path::new("/w/package.json"), label, "x");
        // Twenty others between them by meaning, as in a monorepo's scripts.
        let mut clean = vec![npm("build"), npm("clean")];
        let mut sims = vec![Some(0.36), Some(0.25)];
        for i in 0..20 {
            clean.push(npm(&format!("other{i}")));
            sims.push(Some(0.3));
        }
        assert_eq!(
            ranked_by(&clean, "delete the build output", &sims)[0],
            "/w/package.json:clean"
        );
    }

    #[test]
    fn a_documentation_sites_task_makes_way_for_the_projects_unless_docs_are_asked_for() {
        let npm = |file: &str, label: &str| CommandItem::new("npm", Path::new(file), label, "tsc");
        let commands = vec![
            npm("/w/dev-docs/package.json", "typecheck"),
            npm("/w/package.json", "test:typecheck"),
        ];
        let sims = [Some(0.62), Some(0.6)];
        assert_eq!(
            ranked_by(&commands, "type check the project", &sims)[0],
            "/w/package.json:test:typecheck"
        );
        assert_eq!(
            ranked_by(&commands, "type check the docs", &sims)[0],
            "/w/dev-docs/package.json:typecheck"
        );
    }

    #[test]
    fn the_local_model_is_read_from_disk_and_never_downloaded() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-local-model-")
            .tempdir()
            .unwrap();
        let root = scratch.path().to_path_buf();
        let dir = root
            .join(".commandtree")
            .join("models")
            .join(model::MODEL_NAME);
        std::fs::create_dir_all(&dir).unwrap();
        // A model folder of the workspace comes before the user cache; a broken one is an
        // error rather than a reason to fetch another.
        for f in model::FILES {
            std::fs::write(dir.join(f.name), b"not a model").unwrap();
        }
        assert!(local_model(&root).is_err());
    }
}
