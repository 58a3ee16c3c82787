//! Lexical ranking for search: BM25 over what a person searches a command by (its label and
//! aliases, its folder and file, the description its file gives, its command line, parameters,
//! the summary when there is one, and the first lines of its own text), tokenised for code:
//! `snake_case`, `camelCase`, `kebab-case`, `a:b` and `x.sh` split into words, words reduced to
//! a stem, and task words with the same meaning made one (`fmt`/`format`, `docs`/`documentation`,
//! `e2e`/`end-to-end`). Names and identifiers are where dense embeddings are weakest; the engine's
//! search fuses this ranking with the semantic one (`search`).

use commandtree_core::CommandItem;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// BM25's usual constants.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// How much a word counts in each field: a word of the name says more than one of the text.
const LABEL: f32 = 3.0;
const DESCRIPTION: f32 = 2.0;
const SUMMARY: f32 = 1.5;
const PATH: f32 = 1.0;
const COMMAND: f32 = 1.0;
const PARAMS: f32 = 1.0;
const OWN_TEXT: f32 = 0.5;

/// How much of a command's own text is indexed: its first lines say what it is (a script's
/// header, a recipe's first steps); the rest would drown the name in a long file.
const OWN_TEXT_CHARS: usize = 1500;

/// Words that carry no meaning in a search for a command (`run the tests` → `test`).
const STOP: &[&str] = &[
    "a", "an", "the", "to", "of", "for", "and", "or", "in", "on", "at", "with", "my", "me", "it",
    "is", "be", "this", "that", "from", "into", "by", "i", "how", "do", "doe", "what", "which",
    "then", "some", "any", "our", "we", "you", "your", "run", "command", "script", "task", "use",
    "using", "via", "s", "code", "cod", "please", "want", "need", "can",
];

/// Words of the same meaning in task vocabulary, each group's first word the one kept (compared
/// by their stems).
const SYNONYMS: &[&[&str]] = &[
    &["format", "fmt", "prettier", "reformat"],
    &["lint", "linter", "check", "clippy", "eslint"],
    // An integration test is not an end-to-end one ("run all the end-to-end tests":
    // `test:e2e`, not `test:integrations`).
    &["e2e", "endtoend"],
    &["doc", "document", "documentation", "manual"],
    // A manual page is not the documentation site ("generate the manual pages": `build_man`).
    &["manpage", "man"],
    &["dep", "dependency", "requirement"],
    &["test", "spec", "unittest"],
    &["dev", "develop", "development"],
    &[
        "db",
        "database",
        "postgres",
        "postgresql",
        "mysql",
        "sqlite",
    ],
    &["gen", "generate", "codegen", "regenerate"],
    &["bench", "benchmark"],
    &["analyze", "analyse", "analysis"],
    &[
        "cov",
        "coverage",
        // Erlang's and Elixir's coverage tool (`mix test --cover`, `make cover`).
        "cover",
        "gcov",
        "lcov",
        "kcov",
        "jacoco",
        "istanbul",
        "nyc",
        "tarpaulin",
    ],
    &["config", "configuration", "conf", "cfg", "setting"],
    &["env", "environment"],
    &[
        "clean", "clear", "cleanup", "purge", "remove", "delete", "rm", "wipe",
    ],
    &["build", "compile"],
    &["update", "upgrade", "bump"],
    &["init", "initialize", "initialise", "bootstrap"],
    &["serve", "server", "preview", "start", "launch"],
    // Publishing an image or a package is "pushing" it to its registry.
    &["release", "publish", "push"],
    &["deploy", "ship"],
    // TypeScript's declaration files are its types (`gen:types`, `build:types`, `dts`).
    &["type", "tsc", "typing", "declaration", "dts"],
    &[
        "i18n",
        "l10n",
        // Not "locale": its stem is "local"'s.
        "translation",
        "translate",
        "localization",
        "localisation",
        "internationalization",
        "internationalisation",
    ],
    // A web project's user interface, whatever its folder is called.
    &["frontend", "ui", "web", "webapp"],
    // "Start the web app": `bootRun` "Runs the Spring Boot application".
    &["app", "application"],
    &["java", "jdk", "jvm", "jre"],
    &["js", "javascript"],
    // JavaScript's module formats as bundles are named for them (`build-all-cjs`).
    &["cjs", "commonjs"],
    &["ts", "typescript"],
    &["py", "python"],
    &["deb", "debian", "dpkg"],
    &["repo", "repository"],
    &["ci", "continuous"],
    &["stop", "down", "halt"],
    &["log", "logs"],
    &["img", "image"],
    &["container", "docker"],
    &["k8s", "kubernetes", "kube", "kubectl"],
    &["valgrind", "memcheck"],
    &["viz", "visualization", "visualisation"],
    // Tests against the oldest versions a project supports (tox's and nox's `min`,
    // `lowest-direct`), and with its optional dependencies (Python's extras).
    &["min", "minimum", "minimal", "lowest", "oldest"],
    &["extra", "optional"],
    &["sw", "serviceworker"],
    // Go's and Rust's target names call macOS `darwin` (`binary-darwin-arm64`).
    &["macos", "mac", "darwin", "osx"],
];

/// Phrases of task vocabulary and the one word task names use for them: setting up, an end-to-end test,
/// and a task that reruns when files change (`watch`).
const PHRASES: &[(&str, &str)] = &[
    // "set up the environment" is a setup, not something brought up.
    ("set up", " setup "),
    ("manual page", " manpage "),
    ("man page", " manpage "),
    ("end-to-end", " e2e "),
    ("end to end", " e2e "),
    ("whenever a file changes", " watch "),
    ("when a file changes", " watch "),
    ("when files change", " watch "),
    ("on file change", " watch "),
    ("on change", " watch "),
    ("on save", " watch "),
    // "rebuild the extension whenever a TypeScript file changes", "… whenever I change a file".
    ("whenever", " watch "),
    ("while editing", " watch "),
    ("as i edit", " watch "),
    // The languages as their projects spell them (`FSharp.Specs`, `CSharpGuide`), not a lone
    // letter that a flag (`find -type f`) holds as well.
    ("f#", " fsharp "),
    ("c#", " csharp "),
    ("visual basic", " vb "),
    // `redis-cli`, `test:cli`: a command-line interface is a CLI.
    ("command-line", " cli "),
    ("command line", " cli "),
    ("es module", " esm "),
    // Vue's and Svelte's `.vue`/`.svelte` files (`dev-sfc`, the SFC playground).
    ("single file component", " sfc "),
    ("single-file component", " sfc "),
    ("service worker", " serviceworker "),
    // Cloudflare's Workers runtime is `workerd` (a test matrix's `test:workerd`).
    ("cloudflare workers", " workerd "),
    ("cloudflare worker", " workerd "),
];

/// The words of `text` as written, lowercase, neither stemmed nor merged with synonyms: a
/// folder's name spelled out in a query (`specs/` is not named by "tests", though a spec is a
/// test).
pub(crate) fn spelled_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .flat_map(camel_words)
        .map(|w| w.to_lowercase())
        .filter(|w| !w.is_empty() && !STOP.contains(&w.as_str()))
        .collect()
}

/// The words of `text` as search compares them.
pub fn tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    // Phrases that are one word in task names; prose, so its case changes do not matter.
    let source: Cow<'_, str> = if PHRASES.iter().any(|(p, _)| lower.contains(p)) {
        let mut s = lower;
        for (p, word) in PHRASES {
            s = s.replace(p, word);
        }
        Cow::Owned(s)
    } else {
        Cow::Borrowed(text)
    };
    let synonyms = synonyms();
    let mut out = Vec::new();
    for part in source.split(|c: char| !c.is_alphanumeric()) {
        let camel = camel_words(part);
        // A word in two capitalised halves is also the one word people type for it (`RuboCop`
        // is "rubocop", `MySQL` "mysql", `HttpServer` "httpserver").
        let joined = (camel.len() == 2 && part.chars().all(char::is_alphabetic)).then_some(part);
        for word in camel.into_iter().flat_map(compound).chain(joined) {
            let w = word.to_lowercase();
            let stem = stem(&w);
            if STOP.contains(&stem.as_str()) || STOP.contains(&w.as_str()) {
                continue;
            }
            // A name with a one-digit version (`NUnit3`, `python3`, `XUnit3Core`'s `xunit3`)
            // is also the name without it; `test262` and `sha256` are names of their own.
            let unversioned = w
                .strip_suffix(|c: char| c.is_ascii_digit())
                .filter(|r| r.len() >= 3 && r.chars().all(|c| c.is_alphabetic()))
                .map(str::to_string);
            out.push(synonyms.get(&stem).cloned().unwrap_or(stem));
            out.extend(unversioned);
        }
    }
    out
}

/// Task words written as one that are two to a reader (`typecheck` is "type check", so "check
/// the types" says all of it).
const COMPOUNDS: &[(&str, &[&str])] = &[
    ("typecheck", &["type", "check"]),
    // A task named for the tool it runs, the tool named for the task and the language:
    // `make gofmt` is "format the go code"; the tool's own name stays a word too. (Not
    // `shellcheck` nor `rustfmt`: named in a recipe or a description, "check" and "rust"
    // answered queries about other things on real repositories.)
    ("gofmt", &["gofmt", "go", "fmt"]),
    ("fmtcheck", &["fmt", "check"]),
    ("spellcheck", &["spell", "check"]),
    ("spellchecking", &["spell", "check"]),
    ("codespell", &["code", "spell"]),
    // Tests with coverage (`make testcov`).
    ("testcov", &["test", "cov"]),
    // Doing a task again is the task (`clean-install` for "delete node_modules and reinstall").
    ("recompile", &["compile"]),
    ("reinstall", &["install"]),
    ("redeploy", &["deploy"]),
    ("republish", &["publish"]),
    ("repackage", &["package"]),
    ("rerun", &["run"]),
    ("retest", &["test"]),
    ("restart", &["start"]),
    ("relaunch", &["launch"]),
    ("reinit", &["init"]),
    // A locale is translations ("build the translations": uutils' `locales`), though its stem
    // is "local"'s: it keeps that too.
    ("locale", &["locale", "i18n"]),
    ("locales", &["locales", "i18n"]),
];

fn compound(word: &str) -> Vec<&str> {
    COMPOUNDS
        .iter()
        .find(|(w, _)| w.eq_ignore_ascii_case(word))
        .map_or_else(|| vec![word], |(_, parts)| parts.to_vec())
}

/// Each synonym's stem → its group's first word's stem.
fn synonyms() -> &'static HashMap<String, String> {
    static MAP: OnceLock<HashMap<String, String>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut m = HashMap::new();
        for group in SYNONYMS {
            let head = stem(group[0]);
            for w in *group {
                m.insert(stem(w), head.clone());
            }
        }
        m
    })
}

/// What a task does, as groups of task words (compared as [`tokens`] gives them): a command
/// named for one thing (`ui-install`, `build:app:docker`, `start:production`) is not what a
/// query asking for another wants, though the rest of its name matches ("start the UI dev
/// server", "run the app in docker", "build the web app for production").
const ACTIONS: &[&[&str]] = &[
    // Trying a process without its effect is testing it ("try the release", a dry run); so is
    // feeding it random input (`fuzz.sh`).
    &[
        "test", "check", "e2e", "coverage", "verify", "validate", "try", "dry", "fuzz",
    ],
    &["build", "bundle", "package", "dist"],
    &["clean"],
    &["install", "setup", "init", "provision"],
    &["uninstall"],
    &["release", "deploy", "upload"],
    &["generate"],
    &["serve", "dev", "run", "up", "watch", "open"],
    &["stop"],
    &["update"],
    &["format"],
    &["bench"],
    &["print", "show", "list", "display"],
    &["export"],
    &["migrate"],
    // Filling a database with data to work on (`db:seed`, `seed.ps1`): not building the seeder.
    &["seed", "populate"],
    &["fix"],
    &["download", "fetch", "pull"],
    &["reset"],
    &["debug"],
];

/// The word a query says only to ask for a command to be run ("run the tests"): an action only
/// when it is the query's one action ("run the example app").
const RUN: &str = "run";

/// Each task word of [`ACTIONS`] (as [`tokens`] gives it) → the bit of its group.
fn action_bits() -> &'static HashMap<String, u32> {
    static MAP: OnceLock<HashMap<String, u32>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut m = HashMap::new();
        for (g, group) in ACTIONS.iter().enumerate() {
            for w in *group {
                let word = if *w == RUN {
                    RUN.to_string()
                } else {
                    let t = tokens(w);
                    debug_assert_eq!(t.len(), 1, "an action is one word: {w}");
                    t.into_iter().next().unwrap_or_default()
                };
                m.insert(word, 1 << g);
            }
        }
        m
    })
}

/// The groups of [`ACTIONS`] a command's name says it does, one bit each; 0 when it says none.
/// "run" (no word to [`tokens`]) counts when the name says no other task: `cargo run`,
/// `run-deno` run a program, `run-tests` tests.
pub fn actions(name: &str) -> u32 {
    let bits = action_bits();
    // A hook named for what it comes before or after (`pre-push`, `post-install`) does not do
    // that.
    let words = tokens(name);
    let said = words
        .iter()
        .enumerate()
        .filter(|(k, _)| *k == 0 || !["pre", "post"].contains(&words[k - 1].as_str()))
        .filter_map(|(_, t)| bits.get(t))
        .fold(0, |a, b| a | b);
    let runs = || {
        name.split(|c: char| !c.is_alphanumeric())
            .any(|w| w.eq_ignore_ascii_case(RUN))
    };
    // A name that prints something only shows what the rest of it names:
    // `print-golangci-lint-version` lints nothing.
    let print = bits["print"];
    if said & print != 0 {
        return print;
    }
    if said == 0 && runs() { bits[RUN] } else { said }
}

/// How many of a query's first words may say what it asks for: a request starts with its verb
/// ("build the docs", "type check the project"); a task word further on is most often its object
/// ("clone cpython for the benchmarks", "start the mail catcher").
const ASKING_WORDS: usize = 2;

/// Verbs that ask only for something to be done, the task named by what follows.
const DOING_VERBS: &[&str] = &["prepare", "perform", "do", "execute", "create", "cut"];

/// The groups of [`ACTIONS`] a query asks for, one bit each: every task word it holds when one
/// of its first [`ASKING_WORDS`] words is one ("build the docs and serve them": both) or when
/// it says "run" ("run the erlang unit tests": testing), else running something when it says
/// "run" ("run the example app"); 0 when it asks for no task.
pub fn asked_actions(query: &str) -> u32 {
    let bits = action_bits();
    let words = tokens(query);
    let named = mentioned_actions(query);
    // Each request of a list ("lint, test and build", "build the docs and serve them") starts
    // with its verb; a task word further into one names what it acts on ("start the test app's
    // dev server": not testing).
    // A verb that only says to do it leaves the task to the words after ("prepare a stable
    // release": releasing).
    let doing: Vec<String> = DOING_VERBS.iter().flat_map(|v| tokens(v)).collect();
    let verbs = clauses(query)
        .flat_map(|c| {
            let t = tokens(c);
            // A verb first says the task; a task word after it is its object ("delete the
            // build output": cleaning).
            let take = if t.first().is_some_and(|v| doing.contains(v)) {
                t.len()
            } else if t.first().is_some_and(|v| bits.contains_key(v)) {
                1
            } else {
                ASKING_WORDS
            };
            t.into_iter().take(take)
        })
        .filter_map(|t| bits.get(&t))
        .fold(0, |a, b| a | b);
    // Fetching a project's dependencies installs them (`go mod download`, `cargo fetch`, a
    // `setup` that runs `go mod tidy`): "download the go dependencies".
    let verbs = if verbs & bits["download"] != 0 && words.iter().any(|w| w == "dep") {
        verbs | bits["install"]
    } else {
        verbs
    };
    // Generating something again updates it: "regenerate the documentation of the cops" is
    // rubocop's `update_cops_documentation`.
    let bit = |w: &str| {
        tokens(w)
            .first()
            .and_then(|t| bits.get(t))
            .copied()
            .unwrap_or(0)
    };
    let verbs = if verbs & bit("generate") != 0
        && spelled_words(query)
            .iter()
            .any(|w| w.starts_with("regen") || w.starts_with("refresh"))
    {
        verbs | bit("update")
    } else {
        verbs
    };
    // Checking for newer versions asks what updates there are: "check for newer dependency
    // versions" is Gradle's `dependencyUpdates`, not its `check`.
    let verbs = if verbs & bit("check") != 0
        && spelled_words(query).iter().any(|w| {
            matches!(w.as_str(), "newer" | "outdated" | "latest")
                || w.starts_with("update")
                || w.starts_with("upgrade")
        }) {
        verbs | bit("update")
    } else {
        verbs
    };
    if verbs != 0 {
        // "… whenever a file changes" asks for a watch wherever it is said.
        let watch = if words.iter().any(|w| w == "watch") {
            bits["watch"]
        } else {
            0
        };
        return verbs | watch;
    }
    let says_run = query
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case(RUN) || w.eq_ignore_ascii_case("running"));
    // "run the erlang unit tests": what is run names the task.
    match (says_run, named) {
        (false, _) => 0,
        (true, 0) => bits[RUN],
        (true, named) => named,
    }
}

/// The requests of a query that lists several: cut at commas, colons and semicolons and
/// before "and", "then" and "or".
pub(crate) fn clauses(query: &str) -> impl Iterator<Item = &str> {
    query.split([',', ';', ':']).flat_map(|part| {
        let mut cuts = vec![0];
        let mut at = 0;
        for w in part.split_inclusive(char::is_whitespace) {
            let word = w.trim();
            if ["and", "then", "or"]
                .iter()
                .any(|c| word.eq_ignore_ascii_case(c))
            {
                cuts.push(at);
            }
            at += w.len();
        }
        cuts.push(part.len());
        cuts.windows(2)
            .map(|c| &part[c[0]..c[1]])
            .collect::<Vec<_>>()
    })
}

/// The words of the project's own name, its folder's (`elixir`, `elixir-lang+elixir`).
pub fn project_words(root: &Path) -> Vec<String> {
    root.file_name()
        .map(|n| tokens(&n.to_string_lossy()))
        .unwrap_or_default()
}

/// The groups of [`ACTIONS`] any word of a query names, asked for or not ("open the playwright
/// test UI" asks to open and speaks of testing).
pub fn mentioned_actions(query: &str) -> u32 {
    let bits = action_bits();
    tokens(query)
        .iter()
        .filter_map(|t| bits.get(t))
        .fold(0, |a, b| a | b)
}

/// The tasks a query speaks of as tasks: [`mentioned_actions`] without a doer named by its
/// task ("the server implementations", "the test runner", "the installer"), a thing the query
/// speaks of whose word shares the task's stem. ("Run the code generators" still asks to
/// generate: the verb it asks for is read by [`asked_actions`].)
pub fn mentioned_tasks(query: &str) -> u32 {
    let bits = action_bits();
    let is_doer = |w: &str| w.len() > 4 && (w.ends_with("er") || w.ends_with("ers"));
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .collect();
    let of = |doers: bool| -> HashSet<String> {
        words
            .iter()
            .filter(|w| is_doer(w) == doers)
            .flat_map(|w| tokens(w))
            .collect()
    };
    let (doers, tasks) = (of(true), of(false));
    tokens(query)
        .iter()
        .filter(|t| !doers.contains(*t) || tasks.contains(*t))
        .filter_map(|t| bits.get(t))
        .fold(0, |a, b| a | b)
}

/// Whether `query` asks to run something and names no other task ("run pre-commit hooks on all
/// files"): what is to be run is in its other words.
pub fn asks_only_to_run(query: &str) -> bool {
    asked_actions(query) == action_bits()[RUN]
}

/// Folder words of a documentation site or its build (`docs/`, `dev-docs/`, `website/`,
/// `documentation/prometheus-mixin/`): its `start`, `build` and `typecheck` are the site's, not
/// the project's, unless the query speaks of documentation.
const DOC_FOLDER_WORDS: &[&str] = &["doc", "website", "site"];

/// Whether `words` (from [`tokens`]) speak of documentation or its site.
pub fn speaks_of_docs(words: &[String]) -> bool {
    static DOC: OnceLock<Vec<String>> = OnceLock::new();
    let doc = DOC.get_or_init(|| DOC_FOLDER_WORDS.iter().flat_map(|w| tokens(w)).collect());
    words.iter().any(|w| doc.contains(w))
}

/// `copyKotlinTemplates` → copy, Kotlin, Templates; `HTTPServer` → HTTP, Server; `vc2017` stays.
fn camel_words(part: &str) -> Vec<&str> {
    let b: Vec<(usize, char)> = part.char_indices().collect();
    let mut cuts = vec![0];
    for i in 1..b.len() {
        let (at, c) = b[i];
        let prev = b[i - 1].1;
        let next_lower = b.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        // Not after a first letter alone: `NUnit`, `xUnit`, `MSpec`, `iOS` are one word.
        if i > 1
            && (((prev.is_lowercase() || prev.is_ascii_digit()) && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower))
        {
            cuts.push(at);
        }
    }
    cuts.push(part.len());
    cuts.windows(2)
        .map(|w| &part[w[0]..w[1]])
        .filter(|w| !w.is_empty())
        .collect()
}

/// The targets a Makefile names its build by, by convention.
const MAKE_BUILD_GOALS: &[&str] = &["all", "default"];

/// A light English stemmer: the plural, `-ing`, `-ed`, `-er` and a final `e` go, a doubled last
/// consonant left by them is halved (`running` → `run`, `formatted` → `format`). Short words
/// and numbers are kept as they are.
pub(crate) fn stem(w: &str) -> String {
    if w.len() <= 3 || w.chars().any(|c| c.is_ascii_digit()) {
        return w.to_string();
    }
    let mut s = w.to_string();
    if let Some(x) = s.strip_suffix("ies").filter(|x| x.len() >= 3) {
        s = format!("{x}y");
    } else if s.ends_with('s') && !s.ends_with("ss") && !s.ends_with("us") && !s.ends_with("is") {
        s.pop();
    }
    for suffix in ["ing", "ed", "er"] {
        if let Some(x) = s
            .strip_suffix(suffix)
            .filter(|x| x.len() >= 3 + (suffix == "er") as usize)
        {
            s = x.to_string();
            let b = s.as_bytes();
            let n = b.len();
            if n >= 2 && b[n - 1] == b[n - 2] && !b"aeiouls".contains(&b[n - 1]) {
                s.pop();
            }
            break;
        }
    }
    // A verb in `-ate` and its noun in `-ation` are one word (`migrate`, `migrations`:
    // `migr`; `validated`, `validation`: `valid`), as are `install` and `installation`.
    if let Some(x) = ["ation", "ate", "at"]
        .iter()
        .find_map(|suffix| s.strip_suffix(suffix))
        .filter(|x| x.len() >= 3)
    {
        return x.to_string();
    }
    // Not where the word left is another one: "notes" are not "not".
    if s.len() > 3 && s.ends_with('e') && s != "note" {
        s.pop();
    }
    s
}

/// A .NET solution's command (`dotnet test App.slnx`): over every project of it.
pub(crate) fn is_solution(c: &CommandItem) -> bool {
    c.kind == "dotnet"
        && c.path()
            .extension()
            .is_some_and(|e| e == "sln" || e == "slnx")
}

/// What one command is searched by, field by field, with how much each counts.
pub fn fields<'a>(
    c: &'a CommandItem,
    root: &Path,
    own_text: Option<&'a str>,
) -> Vec<(f32, String)> {
    let mut f = match derived_label(c) {
        // VS Code names a task it derives by its type (`npm: build:vscode`): the type says
        // which runner, as a path does, not what the task is ("publish the packages to npm").
        Some((runner, name)) => vec![(LABEL, name.to_string()), (PATH, runner.to_string())],
        None => vec![(LABEL, c.label.clone())],
    };
    for a in &c.aliases {
        f.push((LABEL, a.clone()));
    }
    // A .NET project's test says "Run all tests" (the extension's wording) of its own project
    // only; a solution's commands are the ones over every project.
    let solution = is_solution(c);
    if c.kind == "dotnet" && !solution && c.description.as_deref() == Some("Run all tests") {
        f.push((DESCRIPTION, "Run the tests of the project".to_string()));
    } else if let Some(d) = &c.description {
        f.push((DESCRIPTION, d.clone()));
    } else if c.kind == "make" && MAKE_BUILD_GOALS.contains(&c.label.as_str()) {
        // What `make` with no goal does, by convention: build the project ("build redis").
        f.push((DESCRIPTION, "build".to_string()));
    }
    if let Some(s) = &c.summary {
        f.push((SUMMARY, s.clone()));
    }
    if let Some(g) = &c.group {
        f.push((PATH, g.clone()));
    }
    if solution {
        f.push((PATH, "solution: all projects".to_string()));
    }
    if c.kind == "tox"
        && let Some(python) = commandtree_core::sources::tox::interpreter(&c.label)
    {
        // Its version, and PyPy by name; every tox environment says "python" already.
        f.push((DESCRIPTION, python.trim_start_matches("Python").to_string()));
    }
    if let Some((_, language)) = LANGUAGES.iter().find(|(k, _)| *k == c.kind) {
        f.push((PATH, language.to_string()));
    }
    let rel = c.path().strip_prefix(root).unwrap_or(c.path());
    f.push((PATH, rel.to_string_lossy().into_owned()));
    // The folder the command line names is already in the path; the rest says what it runs.
    let mut command = c.command.clone();
    if !c.cwd.is_empty() {
        command = command.replace(&format!("{}/", c.cwd.trim_end_matches('/')), "");
    }
    f.push((COMMAND, command));
    for p in &c.params {
        f.push((PARAMS, p.name.clone()));
        if let Some(d) = &p.description {
            f.push((PARAMS, d.clone()));
        }
    }
    if let Some(t) = own_text {
        let end = t
            .char_indices()
            .nth(OWN_TEXT_CHARS)
            .map_or(t.len(), |(i, _)| i);
        f.push((OWN_TEXT, t[..end].to_string()));
    }
    f
}

/// A VS Code task's name split into the runner VS Code derived it from and the task's own name.
fn derived_label(c: &CommandItem) -> Option<(&str, &str)> {
    if c.kind != "vscode" {
        return None;
    }
    commandtree_core::sources::vscode::derived_name(&c.label)
}

/// The language a command's type works in, as a person names it ("run the rust tests" is
/// Cargo's `test`, "lint the python code" a Python tool's).
const LANGUAGES: &[(&str, &str)] = &[
    ("cargo", "rust"),
    ("go", "go golang"),
    ("npm", "javascript node npm"),
    ("deno", "typescript javascript"),
    ("python", "python"),
    ("pyproject", "python"),
    ("tox", "python"),
    ("nox", "python"),
    ("gradle", "java kotlin"),
    ("maven", "java"),
    ("ant", "java"),
    ("dotnet", "dotnet csharp"),
    ("csharp-script", "csharp"),
    ("fsharp-script", "fsharp"),
    ("composer", "php"),
    ("rake", "ruby"),
    ("ruby", "ruby"),
    ("powershell", "powershell"),
];

/// The words of the language a type's commands work in (`go`: "go", "golang"), as tokens.
pub fn language_words(kind: &str) -> Vec<String> {
    LANGUAGES
        .iter()
        .filter(|(k, _)| *k == kind)
        .flat_map(|(_, words)| tokens(words))
        .collect()
}

/// One document's words with how much each counts, its weighted length, and the words of each
/// of its names.
#[derive(Debug, Default, Clone)]
pub struct Doc {
    /// Each word with its weighted count outside the command's own text and in it.
    terms: Vec<(String, f32, f32)>,
    /// The weighted length outside its own text, and of its own text: each is measured
    /// against its own kind (BM25F), so a long script's body does not make its name and
    /// description count for less.
    len: f32,
    own_len: f32,
    names: Vec<Vec<String>>,
    /// The [`actions`] of the well-known tools it runs ([`TOOLS`]: `bundle exec rubocop`
    /// lints, whatever the command is named).
    runs: u32,
    /// The words of each program its command line and its own text call (`rubocop`,
    /// `pre-commit`), for [`Ranked::invokes`].
    programs: Vec<Vec<String>>,
}

impl Doc {
    /// The fields weighted as a name ([`LABEL`]: the label and the runner's aliases) are also
    /// kept as names, for [`Index::rank`]'s `name`.
    pub fn of(fields: impl IntoIterator<Item = (f32, String)>) -> Doc {
        let mut tf: HashMap<String, (f32, f32)> = HashMap::new();
        let (mut len, mut own_len) = (0.0, 0.0);
        let mut names = Vec::new();
        for (weight, text) in fields {
            let words = tokens(&text);
            let own = weight == OWN_TEXT;
            for t in &words {
                let e = tf.entry(t.clone()).or_default();
                if own {
                    e.1 += weight;
                    own_len += weight;
                } else {
                    e.0 += weight;
                    len += weight;
                }
            }
            if weight == LABEL {
                // A guess at how the name reads, so it counts as a path's words do.
                for part in words.iter().filter_map(|w| task_suffixed(w)).flatten() {
                    tf.entry(part).or_default().0 += PATH;
                    len += PATH;
                }
                names.push(name_words(words));
            }
        }
        Doc {
            terms: tf.into_iter().map(|(t, (a, b))| (t, a, b)).collect(),
            len,
            own_len,
            names,
            runs: 0,
            programs: Vec::new(),
        }
    }
}

/// Task words a name ends with, written as one with what they act on (curl's `perlcheck.sh`,
/// `cmakelint.sh`, `pythonlint.sh`; `installcheck`, `selftest`).
const TASK_SUFFIXES: &[&str] = &["check", "lint", "fmt", "test", "spell"];

/// A name's word split before the task word it ends with (`perlcheck`: "perl", "check"), as
/// [`tokens`] gives them. In a name only: a recipe or a description that merely mentions
/// `shellcheck` does not check anything. Not npm's hooks (`pretest`, `posttest`): those are
/// named for when they run, nor a well-known tool's name (`shellcheck`, `yamllint`): that
/// is read as the tool, and [`TOOLS`] says what it does.
fn task_suffixed(word: &str) -> Option<Vec<String>> {
    if TOOLS.iter().any(|(tool, _, _)| *tool == word) {
        return None;
    }
    let (head, tail) = TASK_SUFFIXES
        .iter()
        .find_map(|t| word.strip_suffix(t).map(|h| (h, *t)))?;
    (head.len() >= 3 && head.chars().all(char::is_alphabetic) && !matches!(head, "pre" | "post"))
        .then(|| tokens(&format!("{head} {tail}")))
}

/// A name's distinct words without a script's extension (`lint-fix.sh` is named `lint-fix`).
fn name_words(mut words: Vec<String>) -> Vec<String> {
    if words.len() > 1
        && words
            .last()
            .is_some_and(|w| SCRIPT_EXTENSIONS.contains(&w.as_str()))
    {
        words.pop();
    }
    words.sort();
    words.dedup();
    words
}

/// Extensions that name a script's language, not the command (each one word to [`tokens`]).
pub(crate) const SCRIPT_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "py", "rb", "js", "ts", "mjs", "ps1", "cmd", "bat",
];

/// One document of [`Index::rank`]'s list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    pub doc: usize,
    /// BM25.
    pub score: f32,
    /// How many of the query's distinct words it holds.
    pub held: u16,
    /// What the well-known tools it runs do, as [`actions`] bits.
    pub runs: u32,
    /// Whether the query names a program it calls, one few commands call and not named for a
    /// task ("lint the ruby code with rubocop": `script/fmt`, whose text is `bundle exec
    /// rubocop`): a person names a command by the tool it runs as well as by its own name.
    pub invokes: bool,
    /// How much of the query its name says, 0–1 (the best of its label and aliases): the
    /// query's words in the name, weighed by rarity, over all the query's words the index
    /// knows, times the share of the name's words the query holds. 1 when the name is the
    /// query in other spelling (`test-unit` for "run the unit tests"); a name the query only
    /// shares a common word with (`test` there) says little.
    pub name: f32,
}

/// A BM25 index over documents made of weighted fields.
#[derive(Debug, Default, Clone)]
pub struct Index {
    /// Word → (document, weighted count of the word in it, each part normalised by its
    /// length against the average).
    postings: HashMap<String, Vec<(u32, f32)>>,
    /// Each document's weighted length.
    lengths: Vec<f32>,
    /// Each document's [`Doc::runs`].
    runs: Vec<u32>,
    /// Name word → (document, which of its names), so that only documents a query word names
    /// are looked at for [`Ranked::name`].
    name_postings: HashMap<String, Vec<(u32, u16)>>,
    /// Each document's names' word counts.
    name_lengths: Vec<Vec<u16>>,
    /// Each program's words (see [`Doc::programs`]) and the documents calling it.
    programs: Vec<(Vec<String>, Vec<u32>)>,
    /// Word → the programs (in `programs`) whose words hold it.
    program_words: HashMap<String, Vec<u32>>,
}

impl Index {
    /// Indexes `docs` in order: document `i` is the `i`th.
    pub fn build<I, F>(docs: I) -> Index
    where
        I: IntoIterator<Item = F>,
        F: IntoIterator<Item = (f32, String)>,
    {
        let docs: Vec<Arc<Doc>> = docs.into_iter().map(|f| Arc::new(Doc::of(f))).collect();
        Index::of_docs(&docs)
    }

    /// Indexes documents already tokenised.
    pub fn of_docs(docs: &[Arc<Doc>]) -> Index {
        let mut index = Index::default();
        let mut seen_programs: HashMap<Vec<String>, usize> = HashMap::new();
        let average = |len: &dyn Fn(&Doc) -> f32| {
            let (sum, n) = docs
                .iter()
                .map(|d| len(d))
                .filter(|l| *l > 0.0)
                .fold((0.0, 0usize), |(s, n), l| (s + l, n + 1));
            (sum / n.max(1) as f32).max(1.0)
        };
        let (average, own_average) = (average(&|d| d.len), average(&|d| d.own_len));
        for (i, d) in docs.iter().enumerate() {
            let main = 1.0 - B + B * d.len / average;
            let own = 1.0 - B + B * d.own_len / own_average;
            for (t, a, b) in &d.terms {
                let n = a / main + b / own;
                match index.postings.get_mut(t) {
                    Some(list) => list.push((i as u32, n)),
                    None => {
                        index.postings.insert(t.clone(), vec![(i as u32, n)]);
                    }
                }
            }
            index.lengths.push(d.len);
            index.runs.push(d.runs);
            for (k, name) in d.names.iter().enumerate() {
                for w in name {
                    index
                        .name_postings
                        .entry(w.clone())
                        .or_default()
                        .push((i as u32, k as u16));
                }
            }
            index
                .name_lengths
                .push(d.names.iter().map(|n| n.len() as u16).collect());
            for p in &d.programs {
                match seen_programs.get(p) {
                    Some(&k) => index.programs[k].1.push(i as u32),
                    None => {
                        let k = index.programs.len();
                        seen_programs.insert(p.clone(), k);
                        index.programs.push((p.clone(), vec![i as u32]));
                    }
                }
            }
        }
        for (k, (words, _)) in index.programs.iter().enumerate() {
            let mut distinct = words.clone();
            distinct.sort();
            distinct.dedup();
            for w in distinct {
                index.program_words.entry(w).or_default().push(k as u32);
            }
        }
        index
    }

    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The documents that hold a word of `query`, by BM25 score, best first (ties by
    /// position).
    pub fn rank(&self, query: &str) -> Vec<Ranked> {
        let mut words = tokens(query);
        words.extend(self.joined(query));
        words.sort();
        words.dedup();
        let n = self.lengths.len() as f32;
        let mut idfs: HashMap<&str, f32> = HashMap::new();
        // Per document, in a flat list: a common word holds most of a large workspace.
        let mut scores: Vec<(f32, u16)> = Vec::new();
        for w in &words {
            let Some(list) = self.postings.get(w) else {
                continue;
            };
            let df = list.len() as f32;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            idfs.insert(w, idf);
            if scores.is_empty() {
                scores = vec![(0.0, 0); self.lengths.len()];
            }
            for &(doc, tf) in list {
                let s = idf * tf * (K1 + 1.0) / (tf + K1);
                let e = &mut scores[doc as usize];
                e.0 += s;
                e.1 += 1;
            }
        }
        // A word no command holds says nothing about which name fits.
        let total: f32 = idfs.values().sum::<f32>().max(f32::EPSILON);
        // Per document and name: the rarity of the query's words it holds, and how many. Most
        // commands have one name (the label): those in a flat list, the rest by key.
        let mut label: Vec<(f32, u16)> = Vec::new();
        let mut aliases: HashMap<(u32, u16), (f32, u16)> = HashMap::new();
        for (w, idf) in &idfs {
            for &(doc, k) in self.name_postings.get(*w).into_iter().flatten() {
                let e = if k == 0 {
                    if label.is_empty() {
                        label = vec![(0.0, 0); self.lengths.len()];
                    }
                    &mut label[doc as usize]
                } else {
                    aliases.entry((doc, k)).or_default()
                };
                e.0 += idf;
                e.1 += 1;
            }
        }
        let says = |doc: u32, k: u16, (rarity, held): (f32, u16)| -> f32 {
            let len = self.name_lengths[doc as usize][k as usize].max(1);
            rarity / total * f32::from(held) / f32::from(len)
        };
        let mut names: Vec<f32> = label
            .iter()
            .enumerate()
            .map(|(d, &e)| if e.1 == 0 { 0.0 } else { says(d as u32, 0, e) })
            .collect();
        for ((doc, k), e) in aliases {
            if names.is_empty() {
                names = vec![0.0; self.lengths.len()];
            }
            let v = says(doc, k, e);
            let slot = &mut names[doc as usize];
            *slot = slot.max(v);
        }
        let name = |doc: u32| names.get(doc as usize).copied().unwrap_or(0.0);
        let invoked = self.invoked(&words);
        let mut ranked: Vec<Ranked> = scores
            .into_iter()
            .enumerate()
            .filter(|(_, (_, w))| *w > 0)
            .map(|(d, (s, w))| Ranked {
                doc: d,
                score: s,
                held: w,
                name: name(d as u32),
                runs: self.runs[d],
                invokes: invoked.contains(&(d as u32)),
            })
            .collect();
        // Each document once: the order is total, and an unstable sort gives the same list.
        ranked.sort_unstable_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
        ranked
    }
}

impl Index {
    /// Two neighbouring words of `query` a command writes as one ("active record" for
    /// `activerecord/`, "code mirror" for `codemirror-promql`, "hello world" for
    /// `helloworld`): the one word, when some command holds it.
    fn joined(&self, query: &str) -> Vec<String> {
        let words: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        words
            .windows(2)
            .filter(|p| p[0].len() >= 2 && p[1].len() >= 2)
            .filter_map(|p| {
                let one = tokens(&format!("{}{}", p[0], p[1]));
                // Two words each of meaning ("VS Code" is `vs` and a word searched by none).
                let new = one.len() == 1
                    && self.postings.contains_key(&one[0])
                    && p.iter().all(|w| {
                        let t = tokens(w);
                        !t.is_empty() && !t.contains(&one[0])
                    });
                new.then(|| one[0].clone())
            })
            .collect()
    }

    /// The documents calling a program all of whose words `words` (the query's, distinct) hold,
    /// where the program is one few documents call (a tool named for the task, not the
    /// workspace's every `cargo` or `docker`). Programs named for a task (`./build.sh`, `test`:
    /// the query's task words already count) or common to every kind of script are not kept.
    fn invoked(&self, words: &[String]) -> HashSet<u32> {
        let few = (self.lengths.len() / FEW_CALL).max(FEW_CALL_LEAST);
        let mut out = HashSet::new();
        let mut looked = HashSet::new();
        for w in words {
            for &k in self.program_words.get(w).into_iter().flatten() {
                if !looked.insert(k) {
                    continue;
                }
                let (program, docs) = &self.programs[k as usize];
                if docs.len() <= few && program.iter().all(|p| words.contains(p)) {
                    out.extend(docs);
                }
            }
        }
        out
    }
}

/// A program one in this many documents calls, or at most [`FEW_CALL_LEAST`], is one few call.
const FEW_CALL: usize = 50;
const FEW_CALL_LEAST: usize = 3;

/// Programs every kind of script calls, whose name in a query is another word ("find the
/// slow tests", "sort the imports").
const COMMON_PROGRAMS: &[&str] = &[
    "echo", "cd", "set", "export", "exit", "if", "then", "else", "fi", "for", "while", "done",
    "true", "false", "printf", "read", "local", "return", "source", "eval", "shift", "trap",
    "wait", "sleep", "cat", "mkdir", "cp", "mv", "ln", "ls", "chmod", "grep", "sed", "awk", "find",
    "xargs", "sort", "head", "tail", "tee", "touch", "sh", "bash", "time", "date", "which",
    "command", "open", "kill", "curl", "wget", "tar", "unzip", "zip", "make", "sudo",
    // Languages and their runtimes: "the go binaries" names a language, not a tool.
    "go", "node", "ruby", "java", "php", "perl", "dotnet", "deno", "rustc", "cargo", "npm",
];

/// The lexical index of the last workspace searched in this process, kept between searches
/// (the servers and the terminal UI search many times): each command's words are kept with a
/// fingerprint of what they were made from (its fields and its file's size and time), so a
/// search after a change reads and splits only the files that changed, and a search after none
/// reuses the whole index.
struct Cache {
    root: PathBuf,
    key: u64,
    index: Arc<Index>,
    docs: HashMap<String, (u64, Arc<Doc>)>,
}

/// One entry per workspace root, the most recently used first: a process serving several
/// workspaces (the editor server with several folders) keeps each one's index.
static CACHE: Mutex<Vec<Cache>> = Mutex::new(Vec::new());

/// Workspaces whose indexes are kept.
const CACHED_ROOTS: usize = 4;

/// The lexical index of `commands` (document `i` is `commands[i]`), from the cache when
/// nothing it was made from changed.
pub fn index_for(root: &Path, commands: &[CommandItem]) -> Arc<Index> {
    let mut stamps: HashMap<&Path, Option<(u128, u64)>> = HashMap::new();
    let fps: Vec<u64> = commands
        .iter()
        .map(|c| {
            let stamp = *stamps.entry(c.definition_path()).or_insert_with(|| {
                let m = std::fs::metadata(c.definition_path()).ok()?;
                let t = m
                    .modified()
                    .ok()?
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()?;
                Some((t.as_nanos(), m.len()))
            });
            fingerprint(c, stamp)
        })
        .collect();
    let handed = handed_to(commands);
    // A command's words include those of the commands it hands its work to, so it is read
    // again when one of them changes.
    let fps: Vec<u64> = fps
        .iter()
        .zip(&handed)
        .map(|(fp, to)| {
            if to.is_empty() {
                return *fp;
            }
            let mut h = std::collections::hash_map::DefaultHasher::new();
            fp.hash(&mut h);
            for &t in to {
                fps[t].hash(&mut h);
            }
            h.finish()
        })
        .collect();
    let key = {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        fps.hash(&mut h);
        root.hash(&mut h);
        h.finish()
    };
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    let old = match cache.iter().position(|c| c.root == root) {
        Some(at) if cache[at].key == key => {
            let hit = cache.remove(at);
            let index = hit.index.clone();
            cache.insert(0, hit);
            return index;
        }
        Some(at) => cache.remove(at).docs,
        None => HashMap::new(),
    };
    let mut docs: Vec<Option<Arc<Doc>>> = commands
        .iter()
        .zip(&fps)
        .map(|(c, fp)| {
            old.get(&c.id)
                .filter(|(was, _)| was == fp)
                .map(|(_, d)| d.clone())
        })
        .collect();
    // What changed, and what those hand their work to, read once per file and cut per command.
    let mut wanted: Vec<usize> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        if d.is_none() {
            wanted.push(i);
            wanted.extend(&handed[i]);
        }
    }
    wanted.sort_unstable();
    wanted.dedup();
    let mut by_file: HashMap<&Path, Vec<usize>> = HashMap::new();
    for &i in &wanted {
        by_file
            .entry(commands[i].definition_path())
            .or_default()
            .push(i);
    }
    let project = project_words(root);
    let mut own: HashMap<usize, String> = HashMap::new();
    // Whose own text is its whole file (`nox`, running the default sessions): it calls what
    // each of them does only through them.
    let mut whole: HashSet<usize> = HashSet::new();
    for idx in by_file.values() {
        let Ok(content) = commandtree_core::excerpt::read_definition(&commands[idx[0]]) else {
            continue;
        };
        let cut = commandtree_core::excerpt::Excerpts::new(&content);
        for &i in idx {
            let t = cut.of(&commands[i]);
            if commands[i].kind == "tox" && commands[i].command != "tox" {
                own.insert(i, tox_env_text(&commands[i], &content, &t.text));
            } else if commands[i].kind == "dotnet" && !is_solution(&commands[i]) {
                // What kind of project it is ("run the whole stack with aspire": the Aspire
                // app host), not the packages and settings of its file.
                own.insert(i, commandtree_core::sources::dotnet::sdk_words(&content));
            } else if own_text_is_the_commands(&commands[i], &t) {
                own.insert(i, t.text.to_string());
                if t.whole_file {
                    whole.insert(i);
                }
            }
        }
    }
    for i in 0..commands.len() {
        if docs[i].is_some() {
            continue;
        }
        let mut f = fields(&commands[i], root, own.get(&i).map(String::as_str));
        for t in &handed[i] {
            if let Some(text) = own.get(t) {
                f.push((OWN_TEXT, text.clone()));
            }
        }
        let c = &commands[i];
        let mut says = tool_words(std::iter::once(c.command.as_str()));
        merge(&mut says, named_tools(&c.label));
        let mut programs = programs_of(&c.command);
        if let Some(text) = own.get(&i) {
            merge(&mut says, tool_words(std::iter::once(text.as_str())));
            // A workflow's YAML, an agent's markdown or a program's source starts its lines
            // with words that call nothing.
            if CALLING_TEXT.contains(&c.kind.as_str()) {
                merge(&mut programs, programs_of(text));
            } else if c.kind == "nox" && !whole.contains(&i) {
                merge(&mut programs, session_programs(text));
            }
        }
        // What the commands it hands its work to run, it runs; their programs are theirs.
        merge(
            &mut says,
            tool_words(
                handed[i]
                    .iter()
                    .filter_map(|t| own.get(t).map(String::as_str)),
            ),
        );
        let says = says.join(" ");
        if !says.is_empty() {
            f.push((COMMAND, says.clone()));
        }
        let mut doc = Doc::of(f);
        doc.runs = actions(&says) | described_action(c);
        // A launch configuration starts its program under the editor's debugger.
        if c.kind == "launch" {
            doc.runs |= action_bits()["debug"];
        }
        // Its own name (`pnpm run ci`, `python3 fuzz.py`) counts as a name already, and the
        // project's own program (`elixir` in elixir's scripts, `dokku` in dokku's) is named in
        // half the queries about it.
        let own_name = name_words(tokens(&c.label));
        doc.programs = programs
            .iter()
            .filter(|p| !COMMON_PROGRAMS.contains(&p.as_str()))
            .map(|p| tokens(p))
            .filter(|t| !t.is_empty() && t.iter().all(|w| !action_bits().contains_key(w)))
            .filter(|t| name_words(t.clone()) != own_name)
            .filter(|t| !t.iter().all(|w| project.contains(w)))
            .collect();
        docs[i] = Some(Arc::new(doc));
    }
    let docs: Vec<Arc<Doc>> = docs.into_iter().map(|d| d.unwrap_or_default()).collect();
    let index = Arc::new(Index::of_docs(&docs));
    cache.truncate(CACHED_ROOTS - 1);
    cache.insert(
        0,
        Cache {
            root: root.to_path_buf(),
            key,
            index: index.clone(),
            docs: commands
                .iter()
                .zip(fps)
                .zip(docs)
                .map(|((c, fp), d)| (c.id.clone(), (fp, d)))
                .collect(),
        },
    );
    index
}

/// The task a command's description starts with ("Setup git hooks" for a Taskfile's `dev`): it
/// does that whatever its name says.
fn described_action(c: &CommandItem) -> u32 {
    let Some(first) = c
        .description
        .as_deref()
        .and_then(|d| d.split_whitespace().next())
    else {
        return 0;
    };
    let bits = actions(first);
    // "Run ..." says only that it runs something.
    if bits == action_bits().get(RUN).copied().unwrap_or(0) {
        0
    } else {
        bits
    }
}

/// A tox environment's own text as searched: the notes above its section and the commands it
/// runs ([`commandtree_core::sources::tox::env_commands`]), not the dependencies it pins.
fn tox_env_text(c: &CommandItem, content: &str, section: &str) -> String {
    let mut out: Vec<String> = section
        .lines()
        .map(str::trim)
        .take_while(|l| l.is_empty() || l.starts_with('#') || l.starts_with(';'))
        .filter(|l| !l.is_empty())
        .map(|l| l.trim_start_matches(['#', ';']).trim().to_string())
        .collect();
    out.extend(commandtree_core::sources::tox::env_commands(
        c.definition_path(),
        content,
        section,
        &c.label,
    ));
    out.join("\n")
}

/// A build tool's own verbs (`gradle test`, `cargo fmt -p crate`) point at their project file
/// or its first section (`[package]`): that is the project's text, not the command's, and would
/// make every module's `test` differ by what its manifest says (a crate's `rust-version` made
/// forty crates' `fmt` answer "format the rust code" before the workspace's own). A task the
/// project file defines itself (a Gradle `tasks.register("dist")`) is named on its first line;
/// a crate's `[package]` does not name its `test`, even when the crate is `ty_test`.
fn own_text_is_the_commands(
    c: &CommandItem,
    t: &commandtree_core::excerpt::CommandText<'_>,
) -> bool {
    if !crate::names::TOOL_BUILTINS.contains(&c.kind.as_str()) {
        return true;
    }
    if t.whole_file {
        return false;
    }
    let first = t
        .text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"))
        .unwrap_or("");
    let name = tokens(&c.label);
    !name.is_empty()
        && tokens(first)
            .windows(name.len())
            .any(|w| w == name.as_slice())
}

/// What well-known tools do when a command runs them, in the words a person asks with: `vite`
/// alone starts a development server, and nothing in its name says so. A subcommand of `*` is
/// any (a test runner's first argument is a path or a file's name); a tool whose own name or
/// subcommand already holds the words (`cargo test`, `eslint`, `prettier`) needs no entry.
const TOOLS: &[(&str, &[&str], &str)] = &[
    ("vite", &["", "dev", "serve"], "dev server"),
    ("vite", &["preview"], "preview server"),
    ("next", &["dev"], "dev server"),
    ("nuxt", &["dev"], "dev server"),
    ("nuxi", &["dev"], "dev server"),
    ("astro", &["dev"], "dev server"),
    ("remix", &["dev"], "dev server"),
    ("svelte-kit", &["dev"], "dev server"),
    ("webpack", &["serve"], "dev server"),
    ("webpack-dev-server", &[""], "dev server"),
    ("react-scripts", &["start"], "dev server"),
    ("ng", &["serve"], "dev server"),
    ("gatsby", &["develop"], "dev server"),
    ("nodemon", &[""], "dev server"),
    ("parcel", &["", "serve"], "dev server"),
    ("flask", &["run"], "dev server"),
    ("uvicorn", &[""], "server"),
    ("manage.py", &["runserver"], "dev server"),
    ("storybook", &["dev"], "dev server"),
    ("start-storybook", &["*"], "dev server"),
    // Bundlers build by default.
    ("webpack", &["", "build"], "build"),
    ("rollup", &["*"], "build"),
    ("esbuild", &["*"], "build"),
    ("tsup", &["*"], "build"),
    ("build-storybook", &["*"], "build"),
    ("maturin", &["develop"], "build dev"),
    // Test runners by their own names ("run the tests with coverage": `cov`, whose recipe is
    // `$(PYTEST) --cov`).
    ("pytest", &["*"], "test"),
    ("py.test", &["*"], "test"),
    ("jest", &["*"], "test"),
    ("vitest", &["*"], "test"),
    ("mocha", &["*"], "test"),
    ("ava", &["*"], "test"),
    ("jasmine", &["*"], "test"),
    ("karma", &["start", "run"], "test"),
    ("rspec", &["*"], "test"),
    ("phpunit", &["*"], "test"),
    ("pest", &["*"], "test"),
    ("ctest", &["*"], "test"),
    ("bats", &["*"], "test"),
    ("cargo", &["nextest"], "test"),
    ("playwright", &["test"], "e2e"),
    ("cypress", &["run", "open"], "e2e test"),
    ("nyc", &["*"], "coverage"),
    ("c8", &["*"], "coverage"),
    // Linters and formatters by their own names ("lint the ruby code": `bundle exec rubocop`).
    ("rubocop", &[""], "lint"),
    ("standardrb", &[""], "lint"),
    ("shellcheck", &[""], "lint"),
    ("flake8", &[""], "lint"),
    ("pylint", &[""], "lint"),
    ("ruff", &["", "check"], "lint"),
    ("ruff", &["format"], "format"),
    ("golangci-lint", &["", "run"], "lint"),
    ("go", &["vet"], "lint"),
    ("stylelint", &[""], "lint"),
    ("hadolint", &["*"], "lint"),
    ("markdownlint", &["*"], "lint"),
    ("markdownlint-cli2", &["*"], "lint"),
    ("yamllint", &["*"], "lint"),
    ("actionlint", &["*"], "lint"),
    ("oxlint", &["*"], "lint"),
    ("ktlint", &["*"], "lint"),
    ("swiftlint", &["*"], "lint"),
    ("biome", &["lint", "check", "ci"], "lint"),
    // Static analysers ("run the static analysis": composer's `phpstan`).
    ("phpstan", &["*"], "static analysis"),
    ("psalm", &["*"], "static analysis"),
    ("phan", &["*"], "static analysis"),
    ("staticcheck", &["*"], "static analysis lint"),
    ("cppcheck", &["*"], "static analysis"),
    ("clang-tidy", &["*"], "static analysis lint"),
    ("semgrep", &["*"], "static analysis"),
    ("mypy", &["*"], "type check"),
    ("pyright", &["*"], "type check"),
    ("black", &[""], "format"),
    ("gofmt", &[""], "format"),
    ("rustfmt", &[""], "format"),
    ("clang-format", &[""], "format"),
    ("shfmt", &["*"], "format"),
    ("isort", &["*"], "format"),
    ("autopep8", &["*"], "format"),
    ("yapf", &["*"], "format"),
    ("stylua", &["*"], "format"),
    ("swiftformat", &["*"], "format"),
    // Documentation generators and their servers.
    ("mkdocs", &["build", "gh-deploy"], "docs build"),
    ("mkdocs", &["serve"], "docs server"),
    ("sphinx-build", &["*"], "docs build"),
    ("sphinx-autobuild", &["*"], "docs server"),
    ("mdbook", &["build"], "docs build"),
    ("mdbook", &["serve"], "docs server"),
    ("typedoc", &["*"], "docs"),
    ("jsdoc", &["*"], "docs"),
    ("doxygen", &["*"], "docs"),
    ("pdoc", &["*"], "docs"),
    ("javadoc", &["*"], "docs"),
    ("rustdoc", &["*"], "docs"),
    // Link checkers ("check the documentation site for broken links": `bundle exec
    // htmlproofer ./_site`).
    ("htmlproofer", &["*"], "check links"),
    ("htmltest", &["*"], "check links"),
    ("lychee", &["*"], "check links"),
    ("linkchecker", &["*"], "check links"),
    ("markdown-link-check", &["*"], "check links"),
    ("linkinator", &["*"], "check links"),
    ("muffet", &["*"], "check links"),
    ("blc", &["*"], "check links"),
    // What a JavaScript package ships and depends on ("find unused files and dependencies":
    // `knip`; "check the published types are correct": `attw`, "are the types wrong").
    ("knip", &["*"], "lint unused files dependencies exports"),
    ("depcheck", &["*"], "check unused dependencies"),
    ("attw", &["*"], "check published package types"),
    ("publint", &["*"], "lint published package"),
    // Packaging ("check the package metadata before uploading to pypi": `twine check dist/*`).
    ("twine", &["check"], "check package"),
    ("twine", &["upload"], "publish package"),
    // Database migrations.
    ("alembic", &["upgrade", "downgrade"], "db migrate"),
    ("prisma", &["migrate"], "db"),
    ("manage.py", &["migrate"], "db"),
    ("flyway", &["migrate"], "db"),
];

/// Package managers and the subcommands with which they install what a project depends on
/// (`bundle install`, `npm ci`, bare `yarn`): "install the project's dependencies" whatever
/// the command is named (`bootstrap`). Each is also a word that only starts another tool
/// (`bundle exec rubocop`), so these are read before [`TOOL_WRAPPERS`] are passed over.
const INSTALLERS: &[(&str, &[&str], &str)] = &[
    ("bundle", &["", "install"], INSTALLS),
    ("npm", &["install", "ci", "i"], INSTALLS),
    ("yarn", &["", "install"], INSTALLS),
    ("pnpm", &["install", "i"], INSTALLS),
    ("bun", &["install", "i"], INSTALLS),
    ("poetry", &["install"], INSTALLS),
    ("uv", &["sync"], INSTALLS),
    ("pipenv", &["install", "sync"], INSTALLS),
    ("composer", &["install"], INSTALLS),
    ("mix", &["deps.get"], INSTALLS),
];

const INSTALLS: &str = "install dependencies";

/// Adds to `out` what the entries of `table` ([`TOOLS`], [`INSTALLERS`]) say `program` does
/// when run with `sub` (its first plain argument, or "").
fn push_says(
    table: &[(&str, &[&str], &'static str)],
    program: &str,
    sub: &str,
    out: &mut Vec<&'static str>,
) {
    for (tool, subs, says) in table {
        if *tool == program && (subs.contains(&sub) || subs.contains(&"*")) && !out.contains(says) {
            out.push(says);
        }
    }
}

/// What the tools a name is made of do, when they do it whatever they are given (`test:attw`
/// runs a script that runs `attw`, "are the types wrong").
fn named_tools(label: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    for part in label.split([':', ' ', '/']) {
        for (tool, subs, says) in TOOLS {
            if *tool == part.to_ascii_lowercase() && subs.contains(&"*") && !out.contains(says) {
                out.push(*says);
            }
        }
    }
    out
}

/// Words that only start a tool (`npx vite`, `cross-env A=1 vite`, `yarn vite`).
const TOOL_WRAPPERS: &[&str] = &[
    "time",
    "bundle",
    "npx",
    "bunx",
    "yarn",
    "pnpm",
    "bun",
    "exec",
    "cross-env",
    "env",
    "dotenv",
    "python",
    "python3",
    "uv",
    "run",
    "poetry",
];

/// The words [`TOOLS`] gives for the tools `texts` (command lines, a script's text) run.
fn tool_words<'t>(texts: impl Iterator<Item = &'t str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for text in texts {
        for segment in text.split(['&', ';', '|', '\n', '"', '\'', '`', '(', ')', '{', '}']) {
            let mut called = segment.split_whitespace().skip_while(|w| w.contains('='));
            if let Some(manager) = called.next() {
                let sub = called.find(|w| !w.starts_with('-')).unwrap_or("");
                push_says(INSTALLERS, manager, sub, &mut out);
            }
            let mut words = segment
                .split_whitespace()
                .skip_while(|w| w.contains('=') || w.starts_with('-') || TOOL_WRAPPERS.contains(w));
            let Some(program) = words.next() else {
                continue;
            };
            // `$(PYTEST)` is make's name for `pytest`.
            let program = program.rsplit('/').next().unwrap_or(program).to_lowercase();
            // A subcommand is a plain word; `vite --port 3000` runs vite itself.
            let sub = words
                .find(|w| !w.starts_with('-'))
                .filter(|w| w.chars().all(|c| c.is_ascii_alphabetic() || c == '-'))
                .unwrap_or("");
            push_says(TOOLS, &program, sub, &mut out);
        }
    }
    out
}

/// The programs the lines of `text` call, each as it is called: lowercase, without its folder
/// or a script's extension (`./script/fmt.sh` → `fmt`, make's `$(PYTEST)` → `pytest`). A
/// program starts a line or follows `&&`, `||`, `;`, `|` or `$(`; a package script's line
/// (`"lint": "eslint ."`) is its value.
fn programs_of(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // A script's own functions (`server() {`, `function deploy`) are not programs it calls.
    let mut functions: Vec<String> = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        let defined = l
            .strip_prefix("function ")
            .map(|r| {
                r.split(|c: char| c.is_whitespace() || c == '(')
                    .next()
                    .unwrap_or("")
            })
            .or_else(|| l.split_once("()").map(|(n, _)| n.trim()))
            .filter(|n| !n.is_empty() && !n.contains(char::is_whitespace));
        if let Some(f) = defined {
            functions.push(f.to_lowercase());
        }
        let line = match line.split_once("\": \"") {
            Some((_, value)) => value,
            None => line,
        };
        for (piece, variable) in line.split(['&', ';', '|', '`']).flat_map(substitutions) {
            let mut words = piece
                .split_whitespace()
                .map(|w| w.trim_start_matches(['@', '-', '+', '"', '\'']))
                .skip_while(|w| w.contains('=') || TOOL_WRAPPERS.contains(w));
            let Some(word) = words.next() else {
                continue;
            };
            // A `case` branch (`shell)`), not a call.
            if word.ends_with(')') && !variable && !word.starts_with("${") {
                continue;
            }
            // A variable before the program is its folder (`${PREFIX}ruff`, `$(BIN)/tool`).
            let word = match word.strip_prefix("${").and_then(|w| w.split_once('}')) {
                Some((_, after)) if !after.is_empty() => after,
                Some((variable, _)) => variable,
                None => word,
            }
            .trim_end_matches(['"', '\'', ')', '}']);
            let name = word.rsplit('/').next().unwrap_or(word).to_lowercase();
            let name = match name.rsplit_once('.') {
                Some((stem, ext)) if SCRIPT_EXTENSIONS.contains(&ext) => stem.to_string(),
                _ => name,
            };
            let looks_called = name.starts_with(|c: char| c.is_ascii_alphanumeric())
                && name.chars().any(|c| c.is_ascii_alphabetic())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
            if looks_called && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out.retain(|p| !functions.contains(p));
    out
}

/// The programs a nox session runs: the first argument of its `session.run("pre-commit", …)`
/// (and `run_always`, `run_install`), as [`programs_of`] names them; what it installs is not run.
fn session_programs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("session.run") {
        let rest = &text[at + "session.run".len()..];
        let Some(args) = rest
            .trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_')
            .strip_prefix('(')
        else {
            continue;
        };
        let args = args.trim_start().trim_start_matches('[').trim_start();
        let Some(quote) = args.chars().next().filter(|q| *q == '"' || *q == '\'') else {
            continue;
        };
        if let Some((program, _)) = args[1..].split_once(quote) {
            merge(&mut out, programs_of(program));
        }
    }
    out
}

/// A piece of a command line and the commands substituted in it (`$(git describe)`); a
/// variable (make's `$(PYTEST)`, `$(APP)`) is not one, unless it starts the piece.
/// Each with whether it starts with a variable (`PYTEST) -x` of `$(PYTEST) -x`).
fn substitutions(piece: &str) -> Vec<(&str, bool)> {
    let mut parts = piece.split("$(");
    let first = parts.next().unwrap_or("");
    let mut out = Vec::new();
    if first
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, '@' | '-' | '+'))
        .is_empty()
    {
        // `$(PYTEST) -x`: the variable is the program.
        if let Some(p) = parts.next() {
            out.push((p, !p.starts_with(|c: char| c.is_ascii_lowercase())));
        }
    } else {
        out.push((first, false));
    }
    out.extend(
        parts
            .filter(|p| p.starts_with(|c: char| c.is_ascii_lowercase()))
            .map(|p| (p, false)),
    );
    out
}

/// The types whose own text is lines of commands (a script, a recipe, a task's `cmds`, a
/// package's script), whose programs a command calls.
const CALLING_TEXT: &[&str] = &[
    "shell", "make", "just", "npm", "taskfile", "mise", "procfile", "deno", "composer",
];

/// Adds to `into` what `more` holds that it does not.
fn merge<T: PartialEq>(into: &mut Vec<T>, more: Vec<T>) {
    for m in more {
        if !into.contains(&m) {
            into.push(m);
        }
    }
}

/// How many commands of another file one command's words may take in.
const HANDED_TO: usize = 4;

/// For each command, the commands of its own type in another file it calls (a root script's
/// `yarn --cwd ./app start` runs the app's `start`, whose `vite` says what it does), and for
/// `tox` with no environment, the default environments of its own file (one per definition): it
/// does what they do, and its own text is only their list (black's `tox`, whose environments run
/// pytest, for "run the tests"). Not a launcher many commands call (Kafka's 44 `bin/` scripts
/// each `exec kafka-run-class.sh <class>`): what it says is every caller's, and none's task.
fn handed_to(commands: &[CommandItem]) -> Vec<Vec<usize>> {
    let mut handed = calls_in_other_files(commands);
    let mut callers = vec![0usize; commands.len()];
    for &t in handed.iter().flatten() {
        callers[t] += 1;
    }
    for list in &mut handed {
        list.retain(|&t| callers[t] < SHARED_LAUNCHER);
    }
    handed
}

/// Callers from which a command called from other files is a shared launcher.
const SHARED_LAUNCHER: usize = 6;

fn calls_in_other_files(commands: &[CommandItem]) -> Vec<Vec<usize>> {
    use commandtree_core::{StepHow, StepScope};
    let mut at: HashMap<(&str, &Path, &str), usize> = HashMap::new();
    for (i, c) in commands.iter().enumerate() {
        at.entry((c.kind.as_str(), c.path(), c.label.as_str()))
            .or_insert(i);
    }
    commands
        .iter()
        .map(|c| {
            c.steps
                .iter()
                .filter(|s| s.how == StepHow::Call)
                .filter_map(|s| match &s.scope {
                    StepScope::File { kind, file } if *kind == c.kind && file != c.path() => at
                        .get(&(kind.as_str(), file.as_path(), s.name.as_str()))
                        .copied(),
                    StepScope::SameFile if runs_default_envs(c) => at
                        .get(&(c.kind.as_str(), c.path(), s.name.as_str()))
                        .copied(),
                    _ => None,
                })
                .take(HANDED_TO)
                .collect()
        })
        .collect()
}

/// `tox` alone: the runner of a file's default environments.
fn runs_default_envs(c: &CommandItem) -> bool {
    c.kind == "tox" && c.command == "tox"
}

/// What a command's words are made from: its fields and its file's (time, size).
fn fingerprint(c: &CommandItem, stamp: Option<(u128, u64)>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        &c.id,
        &c.label,
        &c.aliases,
        &c.description,
        &c.summary,
        &c.group,
        &c.command,
        &c.cwd,
    )
        .hash(&mut h);
    for p in &c.params {
        (&p.name, &p.description).hash(&mut h);
    }
    stamp.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verb_and_its_noun_share_a_stem() {
        for (a, b) in [
            ("migrate", "migrations"),
            ("migrating", "migration"),
            ("generated", "generation"),
            ("validate", "validation"),
            ("install", "installation"),
            ("compile", "compilation"),
            ("configure", "configuration"),
            ("format", "formatted"),
            ("update", "updating"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_eq!(stem("that"), "that");
        assert_eq!(stem("notes"), stem("note"));
        assert_ne!(stem("notes"), stem("not"));
        assert_eq!(stem("data"), "data");
        assert_eq!(stem("running"), "run");
    }

    #[test]
    fn code_words_split_stem_and_share_a_meaning() {
        assert_eq!(tokens("copyKotlinTemplates"), ["copy", "kotlin", "templ"]);
        assert_eq!(tokens("Run RuboCop"), ["rubo", "cop", "rubocop"]);
        assert!(tokens("a MySQL database").contains(&tokens("db")[0]));
        assert_eq!(tokens("build-types:check"), ["build", "typ", "lint"]);
        assert_eq!(tokens("test_unit.sh"), ["test", "unit", "sh"]);
        assert_eq!(tokens("Format the code"), tokens("fmt code"));
        assert_eq!(tokens("run the end-to-end tests"), ["e2e", "test"]);
        assert_eq!(tokens("documentation"), tokens("docs"));
        assert_eq!(tokens("update dependencies"), tokens("upgrade deps"));
        assert_eq!(tokens("testing linting"), ["test", "lint"]);
        assert_eq!(tokens("binary-darwin-arm64"), tokens("binary mac arm64"));
        assert_eq!(tokens("test:workerd"), tokens("test Cloudflare Workers"));
        assert_eq!(tokens("formatted"), tokens("format"));
        assert_eq!(
            tokens("HTTPServer vc2017"),
            ["http", "serv", "httpserv", "vc2017"]
        );
    }

    #[test]
    fn a_name_ending_in_a_task_word_also_says_the_two_words() {
        let has = |fields: Vec<(f32, &str)>, word: &str| {
            let doc = Doc::of(fields.into_iter().map(|(w, t)| (w, t.to_string())));
            let want = tokens(word);
            want.iter()
                .all(|w| doc.terms.iter().any(|(t, _, _)| t == w))
        };
        // curl's `scripts/perlcheck.sh`, `cmakelint.sh`: "check the perl scripts".
        assert!(has(vec![(LABEL, "perlcheck.sh")], "perl check"));
        assert!(has(vec![(LABEL, "cmakelint.sh")], "cmake lint"));
        // Only in a name: a recipe or description naming a compound does not do it.
        assert!(!has(
            vec![(LABEL, "verify"), (DESCRIPTION, "runs perlcheck")],
            "perl"
        ));
        // Not a well-known tool's name, nor npm's hooks, nor a short head.
        assert!(!has(vec![(LABEL, "shellcheck.sh")], "shell"));
        assert!(!has(vec![(LABEL, "pretest")], "pre"));
        assert_eq!(task_suffixed("pytest"), None);
        // The guess counts less than the name's own words.
        let doc = Doc::of([(LABEL, "perlcheck".to_string())]);
        let weight = |w: &str| {
            doc.terms
                .iter()
                .find(|(t, _, _)| t == w)
                .map(|(_, f, o)| *f + *o)
        };
        assert_eq!(weight("perl"), Some(PATH));
        assert_eq!(weight("perlcheck"), Some(LABEL));
    }

    #[test]
    fn task_phrases_and_compounds_are_the_words_task_names_use() {
        assert_eq!(tokens("typecheck"), tokens("type check"));
        assert_eq!(tokens("check the types"), ["lint", "typ"]);
        // A tool named for its task and its object says both, and is still its own word.
        let gofmt = tokens("gofmt");
        let asked = tokens("format the go code");
        assert_eq!(
            gofmt.iter().filter(|w| asked.contains(w)).count(),
            2,
            "{gofmt:?}"
        );
        assert!(gofmt.contains(&"gofmt".to_string()), "{gofmt:?}");
        // A locale is translations, and still "local" to a search for it.
        assert!(tokens("locales").contains(&tokens("translations")[0]));
        assert!(tokens("locales").contains(&tokens("local")[0]));
        assert!(!tokens("run it locally").contains(&tokens("translations")[0]));
        // Static analysis is what phpstan does, however it is spelled.
        assert_eq!(tokens("analyse"), tokens("analysis"));
        assert!(tokens("rebuild whenever a file changes").contains(&"watch".to_string()));
        assert_eq!(tokens("reload on save"), ["reload", "watch"]);
        assert_eq!(tokens("set up the environment"), ["setup", "env"]);
        // A leading letter alone is not a word; a one-digit version is also the bare name.
        assert_eq!(tokens("NUnit3.Specs"), ["nunit3", "nunit", "test"]);
        assert_eq!(tokens("XUnit3Core"), ["xunit3", "xunit", "cor"]);
        assert_eq!(tokens("MSpec iOS"), ["mspec", "ios"]);
        // F# and C# as their projects spell them; not the lone letter of `find -type f`.
        assert_eq!(tokens("FSharp.Specs"), tokens("F# specs"));
        assert_eq!(tokens("CSharpGuide")[..2], tokens("the c# guide"));
        assert_eq!(tokens("VB.Specs"), tokens("Visual Basic specs"));
        assert_eq!(tokens("redis-cli"), tokens("redis command line"));
        assert_eq!(tokens("build:viz"), tokens("build the visualization"));
        assert!(
            !tokens("find -type f")
                .iter()
                .any(|t| tokens("F#").contains(t))
        );
        assert_eq!(
            tokens("test262 HTTPServer"),
            ["test262", "http", "serv", "httpserv"]
        );
        assert_eq!(
            tokens("generate the man pages"),
            tokens("generate the manual page")
        );
        assert_ne!(tokens("manual page"), tokens("documentation"));
        assert_eq!(tokens("cover"), tokens("coverage"));
        // "check the spelling" is what `codespell` and "spellchecking" say.
        assert_eq!(tokens("codespell"), ["spell"]);
        let sorted = |t: &str| {
            let mut w = tokens(t);
            w.sort();
            w
        };
        assert_eq!(sorted("do spellchecking"), sorted("check the spelling"));
        // Module formats, Vue's components, the oldest and the optional dependencies.
        assert_eq!(tokens("build-all-cjs"), tokens("build all commonjs"));
        assert_eq!(tokens("dev-sfc"), tokens("dev single file component"));
        assert_eq!(tokens("build:sw"), tokens("build the service worker"));
        assert_eq!(
            sorted("min-extra-deps"),
            sorted("oldest optional dependencies")
        );
    }

    #[test]
    fn a_name_that_says_the_whole_query_is_told_from_one_sharing_a_word() {
        let docs = vec![
            vec![
                (LABEL, "test".to_string()),
                (COMMAND, "pnpm test-unit && pnpm test-serve".to_string()),
            ],
            vec![
                (LABEL, "test-unit".to_string()),
                (COMMAND, "vitest run".to_string()),
            ],
            vec![
                (LABEL, "test-serve".to_string()),
                (COMMAND, "vitest run -c vitest.config.e2e.ts".to_string()),
            ],
            vec![
                (LABEL, "test-build".to_string()),
                (COMMAND, "vitest run -c vitest.config.build.ts".to_string()),
            ],
            vec![
                (LABEL, "typecheck".to_string()),
                (COMMAND, "tsc --noEmit".to_string()),
            ],
            vec![
                (LABEL, "lint-fix.sh".to_string()),
                (COMMAND, "eslint --fix .".to_string()),
            ],
        ];
        let index = Index::build(docs);
        let name = |q: &str, doc: usize| {
            index
                .rank(q)
                .into_iter()
                .find(|r| r.doc == doc)
                .map_or(0.0, |r| r.name)
        };
        assert_eq!(name("run the unit tests", 1), 1.0);
        // `test` holds the query's common word only.
        assert!(name("run the unit tests", 0) < 0.5);
        assert_eq!(name("check the types", 4), 1.0);
        // A script's extension is not part of what it is named.
        assert_eq!(name("lint fix", 5), 1.0);
        // A name the query says only half of counts half.
        assert!((name("unit", 1) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn a_makefile_build_goal_is_found_by_build() {
        let root = Path::new("/w");
        let make = |label: &str| {
            CommandItem::new(
                "make",
                Path::new("/w/Makefile"),
                label,
                format!("make {label}"),
            )
        };
        let commands = [make("install"), make("all"), make("clean")];
        let index = Index::build(commands.iter().map(|c| fields(c, root, None)));
        let ranked = index.rank("build the project");
        assert_eq!(ranked.len(), 1);
        assert_eq!(ranked[0].doc, 1);
    }

    #[test]
    fn two_words_a_folder_writes_as_one_find_it() {
        let root = Path::new("/w");
        let rake = |gem: &str| {
            CommandItem::new(
                "rake",
                &root.join(gem).join("Rakefile"),
                "test",
                "rake test",
            )
        };
        let commands = [
            rake("actionpack"),
            rake("activerecord"),
            rake("activejob"),
            rake("activecode"),
        ];
        let index = Index::build(commands.iter().map(|c| fields(c, root, None)));
        assert_eq!(index.rank("run the active record tests")[0].doc, 1);
        assert_eq!(index.rank("run the Active Job tests")[0].doc, 2);
        // Only a new word some command holds ("unittests" is "test" again).
        assert_eq!(index.joined("the unit tests"), Vec::<String>::new());
        assert_eq!(index.joined("the action cable tests"), Vec::<String>::new());
        // Nor a stop word's ("VS Code" is not `.vscode/`).
        assert_eq!(index.joined("the active code"), Vec::<String>::new());
    }

    #[test]
    fn a_name_outranks_a_mention_and_rare_words_count_more() {
        let docs = vec![
            vec![
                (LABEL, "fmt".to_string()),
                (COMMAND, "cargo fmt --all".to_string()),
            ],
            vec![
                (LABEL, "replace".to_string()),
                (OWN_TEXT, "sd 'format' 'fmt' src/*.rs".to_string()),
            ],
            vec![
                (LABEL, "test".to_string()),
                (COMMAND, "cargo test".to_string()),
            ],
        ];
        let index = Index::build(docs);
        let ranked = index.rank("format the code");
        assert_eq!(ranked[0].doc, 0);
        assert_eq!(ranked.len(), 2);
        assert!(index.rank("deploy").is_empty());
        assert_eq!(index.rank("tests")[0].doc, 2);
    }

    #[test]
    fn a_build_tools_verb_is_not_searched_by_its_manifests_section() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-lexical-verbs-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        std::fs::create_dir_all(dir.join("crates/parser")).unwrap();
        let root = dir.join("Cargo.toml");
        let member = dir.join("crates/parser/Cargo.toml");
        let gradle = dir.join("build.gradle.kts");
        std::fs::write(&root, "[workspace]\nmembers = [\"crates/*\"]\n").unwrap();
        std::fs::write(
            &member,
            "[package]\nname = \"parser\"\nrust-version.workspace = true\n",
        )
        .unwrap();
        std::fs::write(
            &gradle,
            "plugins { java }\n\ntasks.register(\"dist\") {\n    description = \"zip the release\"\n}\n",
        )
        .unwrap();
        let commands = vec![
            CommandItem::new("cargo", &root, "fmt", "cargo fmt --all")
                .description("Format all workspace members with rustfmt")
                .line(1),
            CommandItem::new("cargo", &member, "fmt", "cargo fmt -p parser")
                .description("Format code with rustfmt")
                .line(1),
            CommandItem::new("gradle", &gradle, "dist", "gradle dist").line(3),
        ];
        let index = index_for(&dir, &commands);
        // The member's `[package]` says `rust-version`: not a word of its `fmt`, else it holds
        // more of "format the rust code" than the workspace's own. Both say "rust" only as
        // Cargo's commands.
        let rust = index.rank("rust");
        assert_eq!(rust.len(), 2);
        assert!(rust.iter().all(|r| commands[r.doc].kind == "cargo"));
        assert_eq!(rust[0].held, rust[1].held);
        let ranked = index.rank("format the rust code");
        assert_eq!(ranked.len(), 2);
        assert_eq!(ranked[0].held, ranked[1].held);
        // A task the build file defines is searched by its own text.
        assert_eq!(index.rank("zip")[0].doc, 2);
    }

    #[test]
    fn a_script_handing_its_work_to_another_packages_is_found_by_what_that_one_runs() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-lexical-hand-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        std::fs::create_dir_all(dir.join("app")).unwrap();
        let root_pkg = dir.join("package.json");
        let app_pkg = dir.join("app/package.json");
        std::fs::write(
            &root_pkg,
            r#"{"scripts": {"start": "yarn --cwd ./app start", "lint": "eslint ."}}"#,
        )
        .unwrap();
        std::fs::write(&app_pkg, r#"{"scripts": {"start": "yarn && vite"}}"#).unwrap();
        let ws = commandtree_core::Workspace::open(Some(&dir), &dir);
        let commands: Vec<CommandItem> = ws
            .discover(&commandtree_core::Options::default())
            .commands
            .into_iter()
            .filter(|c| c.kind == "npm")
            .collect();
        let index = index_for(&dir, &commands);
        let found: Vec<&str> = index
            .rank("dev server")
            .iter()
            .map(|r| commands[r.doc].file_path.as_str())
            .collect();
        // The app's `vite` is a dev server; the root's `start` runs it.
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.contains(&root_pkg.to_str().unwrap()));
        assert!(found.contains(&app_pkg.to_str().unwrap()));
        // A change in the app's script is a change in what the root's does.
        std::fs::write(
            &app_pkg,
            r#"{"scripts": {"start": "node server.js --watch"}}"#,
        )
        .unwrap();
        let commands: Vec<CommandItem> = ws
            .discover(&commandtree_core::Options::default())
            .commands
            .into_iter()
            .filter(|c| c.kind == "npm")
            .collect();
        let index = index_for(&dir, &commands);
        assert!(index.rank("vite").is_empty());
    }

    #[test]
    fn a_launcher_many_scripts_call_says_nothing_of_each() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-lexical-launcher-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(
            dir.join("bin/run-class.sh"),
            "#!/bin/bash\n# Convert paths to Windows format under Cygwin.\nexec \"$JAVA\" -cp x \"$@\"\n",
        )
        .unwrap();
        let tools = ["topics", "acls", "configs", "jmx", "storage", "features"];
        for t in tools {
            std::fs::write(
                dir.join(format!("bin/kafka-{t}.sh")),
                format!(
                    "#!/bin/bash\nexec $(dirname $0)/run-class.sh org.example.{t}Command \"$@\"\n"
                ),
            )
            .unwrap();
        }
        std::fs::write(
            dir.join("fmt.sh"),
            "#!/bin/sh\n# Format the sources\nspotless apply\n",
        )
        .unwrap();
        for e in std::fs::read_dir(dir.join("bin")).unwrap() {
            use std::os::unix::fs::PermissionsExt;
            let path = e.unwrap().path();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let ws = commandtree_core::Workspace::open(Some(&dir), &dir);
        let commands = ws.discover(&commandtree_core::Options::default()).commands;
        let index = index_for(&dir, &commands);
        let found: Vec<&str> = index
            .rank("format")
            .iter()
            .map(|r| commands[r.doc].label.as_str())
            .collect();
        // The launcher's own text is its own; its six callers do not take it in.
        assert_eq!(found, ["fmt.sh", "run-class.sh"]);
        // A script called by a few keeps handing its words to them.
        let few: Vec<CommandItem> = commands
            .iter()
            .filter(|c| !["kafka-storage.sh", "kafka-features.sh"].contains(&c.label.as_str()))
            .cloned()
            .collect();
        let index = index_for(&dir, &few);
        assert_eq!(index.rank("windows").len(), 5);
    }

    #[test]
    fn a_commands_type_says_its_language() {
        let commands = [
            CommandItem::new("npm", Path::new("/w/package.json"), "test", "npm test"),
            CommandItem::new("cargo", Path::new("/w/Cargo.toml"), "test", "cargo test"),
            CommandItem::new("tox", Path::new("/w/tox.ini"), "py312", "tox -e py312"),
        ];
        let index = Index::build(commands.iter().map(|c| fields(c, Path::new("/w"), None)));
        assert_eq!(index.rank("run the rust tests")[0].doc, 1);
        assert_eq!(index.rank("test the javascript")[0].doc, 0);
        assert_eq!(index.rank("python tests")[0].doc, 2);
    }

    #[test]
    fn the_runner_vs_code_names_a_task_by_is_not_its_name() {
        let mut commands = vec![
            CommandItem::new(
                "vscode",
                Path::new("/w/.vscode/tasks.json"),
                "npm: build:vscode",
                "npm run build:vscode",
            ),
            CommandItem::new(
                "npm",
                Path::new("/w/package.json"),
                "release",
                "pnpm run build && changeset publish",
            ),
        ];
        // Releasing is common in a monorepo's scripts; "npm" in a name is not.
        for n in 0..8 {
            commands.push(CommandItem::new(
                "npm",
                Path::new(&format!("/w/packages/p{n}/package.json")),
                "prerelease",
                "pnpm run build && pnpm run release:check",
            ));
        }
        let index = Index::build(commands.iter().map(|c| fields(c, Path::new("/w"), None)));
        let ranked = index.rank("publish the packages to npm");
        assert_eq!(ranked[0].doc, 1);
        // Its own name still finds it, and the runner as a path word does, not as its name.
        assert_eq!(index.rank("build vscode")[0].doc, 0);
        let by_runner = index.rank("npm");
        let task = by_runner
            .iter()
            .find(|r| r.doc == 0)
            .expect("found by its runner");
        assert_eq!(task.name, 0.0);
        let other = CommandItem::new("vscode", Path::new("/w/.vscode/tasks.json"), "a: b", "x");
        assert_eq!(derived_label(&other), None);
        assert_eq!(derived_label(&commands[0]), Some(("npm", "build:vscode")));
    }

    #[test]
    fn tools_say_what_they_do_in_a_persons_words() {
        let says = |t: &str| tool_words(std::iter::once(t));
        assert_eq!(says("yarn vite"), ["dev server"]);
        assert_eq!(says("cross-env A=1 vite --port 3000"), ["dev server"]);
        assert_eq!(says("npx next dev -p 4000"), ["dev server"]);
        assert_eq!(says("vite preview --port 5000"), ["preview server"]);
        assert!(says("vite build").is_empty());
        assert!(says("node scripts/vite.js").is_empty());
        // Linters and formatters say what they are, through `bundle exec` too.
        assert_eq!(says("bundle exec rubocop -D $@"), ["lint"]);
        assert_eq!(
            says("golangci-lint run ./... && gofmt -l ."),
            ["lint", "format"]
        );
        // Package managers installing what the project depends on, whatever starts them.
        assert_eq!(says("bundle install -j8"), ["install dependencies"]);
        assert_eq!(
            says("CI=1 npm ci && npm run build"),
            ["install dependencies"]
        );
        assert_eq!(says("yarn && vite"), ["install dependencies", "dev server"]);
        assert!(says("yarn --cwd ./app build").is_empty());
        assert!(says("npm run install:all").is_empty());
        // Test runners, through make's variables too; documentation servers.
        assert_eq!(says("$(PYTEST) -x --cov=$(PROJ)"), ["test"]);
        assert_eq!(says("vitest --ui"), ["test"]);
        assert_eq!(says("jest tests/unit"), ["test"]);
        assert_eq!(says("mkdocs serve -a 0.0.0.0:8000"), ["docs server"]);
        assert_eq!(
            says("time bundle exec htmlproofer ./_site --allow-hash-href"),
            ["check links"]
        );
        assert_eq!(says("ruff check ."), ["lint"]);
        assert_eq!(says("${PREFIX}ruff format $SOURCE_FILES"), ["format"]);
        assert_eq!(
            says("knip --production"),
            ["lint unused files dependencies exports"]
        );
        assert_eq!(says("attw --pack ."), ["check published package types"]);
        // A name made of a tool's, whatever its script runs.
        assert_eq!(named_tools("test:attw"), ["check published package types"]);
        assert_eq!(named_tools("lint:markdownlint"), ["lint"]);
        // A static analyser by its name alone (composer's `phpstan` script).
        assert_eq!(named_tools("phpstan"), ["static analysis"]);
        assert_eq!(says("vendor/bin/psalm --no-cache"), ["static analysis"]);
        assert!(named_tools("test:e2e").is_empty());
        assert!(
            named_tools("vite").is_empty(),
            "vite does what its subcommand says"
        );
    }

    #[test]
    fn the_programs_a_script_calls_start_its_lines() {
        let script = "#!/bin/sh\n\
            server() {\n  gunicorn app:main\n}\n\
            case \"$1\" in\n  shell)\n    exec ./manage.py shell\n    ;;\nesac\n\
            stdlib: $(KERNEL) $(APP)\n\
            \t$(PYTEST) -x --cov=$(PROJ)\n\
            \t@echo \"version $(git describe)\" && FOO=1 bundle exec rubocop -D | tee out.txt\n";
        let p = programs_of(script);
        assert_eq!(
            programs_of("${PREFIX}ruff check --fix ${FILES}\n${MYPY} ."),
            ["ruff", "mypy"]
        );
        for called in ["gunicorn", "manage", "pytest", "git", "rubocop", "tee"] {
            assert!(p.contains(&called.to_string()), "{called}: {p:?}");
        }
        // Its own function, a `case` branch, make's variables and prerequisites, an argument.
        for not in [
            "server", "shell", "kernel", "app", "proj", "stdlib", "describe", "-x",
        ] {
            assert!(!p.contains(&not.to_string()), "{not}: {p:?}");
        }
        // A package script's line is its value.
        assert_eq!(
            programs_of(r#"    "lint": "eslint . && prettier --check .","#),
            ["eslint", "prettier"]
        );
    }

    #[test]
    fn a_nox_session_calls_what_it_runs_not_what_it_installs() {
        let session = "def lint(session: nox.Session) -> None:\n\
            \x20   session.install(\"pre-commit\")\n\
            \x20   session.run(\"pre-commit\", \"run\", *args)\n\
            \x20   session.run_always('sphinx-build', '-b', 'html')\n\
            \x20   session.run(\n        \"./tools/ci.sh\", \"--all\"\n    )\n\
            \x20   session.run(*session.posargs)\n";
        assert_eq!(
            session_programs(session),
            ["pre-commit", "sphinx-build", "ci"]
        );
    }

    #[test]
    fn a_query_naming_a_program_few_commands_call_names_those_commands() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-invokes-myproj-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        std::fs::create_dir_all(dir.join("script")).unwrap();
        let script = |name: &str, text: &str| {
            let path = dir.join("script").join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{text}\n")).unwrap();
            CommandItem::new("shell", &path, name, format!("script/{name}"))
        };
        let mut commands = vec![
            script("fmt", "bundle exec rubocop -D"),
            script("matrix", "for r in 3.2 3.3; do echo ruby $r; done"),
            script("serve", "myproj serve --port 4000"),
            CommandItem::new("python", &dir.join("fuzz.py"), "fuzz.py", "python3 fuzz.py"),
        ];
        for i in 0..4 {
            commands.push(script(&format!("report{i}"), "jq . out.json"));
        }
        let index = index_for(&dir, &commands);
        let invoked = |query: &str| -> Vec<&str> {
            index
                .rank(query)
                .iter()
                .filter(|r| r.invokes)
                .map(|r| commands[r.doc].label.as_str())
                .collect()
        };
        assert_eq!(invoked("lint the ruby code with rubocop"), ["fmt"]);
        // The project's own program, the command's own name, a program most commands call.
        assert!(invoked("serve the myproj site").is_empty());
        assert!(invoked("fuzz the parser").is_empty());
        assert!(invoked("query the report with jq").is_empty());
    }

    #[test]
    fn each_request_of_a_query_starts_with_its_verb() {
        let bits = action_bits();
        let b = |w: &str| bits[&tokens(w)[0]];
        // "test" names the app, "dev" the server: only starting is asked for.
        assert_eq!(
            asked_actions("start the basics test app's dev server to poke at it"),
            b("serve")
        );
        assert_eq!(
            asked_actions("build the docs and serve them"),
            b("build") | b("serve")
        );
        assert_eq!(
            asked_actions("clean, format, test and build in one go"),
            b("clean") | b("format") | b("test") | b("build")
        );
        // A watch is asked for wherever it is said.
        assert_eq!(
            asked_actions("build the site scripts whenever they change"),
            b("build") | b("watch")
        );
        assert_eq!(
            mentioned_actions("open the playwright test UI"),
            b("open") | b("test")
        );
        // Doing a task again is the task.
        assert_eq!(tokens("reinstall"), tokens("install"));
        assert_eq!(tokens("redeploy"), tokens("deploy"));
        // A hook does not do what it comes before.
        assert_eq!(actions("pre-push"), 0);
        assert_eq!(actions("push"), b("release"));
        // A verb that only says to do it leaves the task to what follows.
        assert_eq!(
            asked_actions("prepare a stable cli release: bump version and tag"),
            b("release") | b("update")
        );
        assert_eq!(asked_actions("cut a new release"), b("release"));
        assert_eq!(asked_actions("bump the version for a release"), b("update"));
        // Checking for newer versions asks what updates there are.
        assert_eq!(
            asked_actions("check for newer dependency versions"),
            b("check") | b("update")
        );
        assert_eq!(asked_actions("check for broken links"), b("check"));
        // A task word right after the verb is its object.
        assert_eq!(asked_actions("delete the build output"), b("clean"));
        assert_eq!(asked_actions("type check the project"), b("check"));
        // Fetching dependencies installs them; fetching anything else does not.
        assert_eq!(
            asked_actions("download the go dependencies"),
            b("download") | b("install")
        );
        assert_eq!(
            asked_actions("download the web platform tests"),
            b("download")
        );
        // Generating again updates; generating the first time does not.
        assert_eq!(
            asked_actions("regenerate the documentation of the cops"),
            b("generate") | b("update")
        );
        assert_eq!(asked_actions("generate a new cop"), b("generate"));
    }

    #[test]
    fn a_description_starting_with_a_task_says_what_the_command_does() {
        let task = |label: &str, description: &str| {
            let mut c = CommandItem::new("taskfile", Path::new("/w/Taskfile.yml"), label, "x");
            c.description = Some(description.into());
            c
        };
        let bits = action_bits();
        assert_eq!(
            described_action(&task("dev", "Setup git hooks")),
            bits["install"]
        );
        assert_eq!(described_action(&task("ci", "Run all CI steps")), 0);
        assert_eq!(described_action(&task("fmt", "gofumpt all code")), 0);
    }

    #[test]
    fn a_tox_environment_is_found_by_what_it_runs_and_the_python_it_names() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-tox-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        let ini = dir.join("tox.ini");
        // Line numbers: [testenv] 4, [min] 9, [testenv:min] 12, [testenv:mypy] 16,
        // [testenv:twinecheck] 23.
        std::fs::write(
            &ini,
            "[tox]\nenvlist = py311, py312, min, mypy, twinecheck\n\n[testenv]\ndeps = coverage\ncommands =\n    pytest {posargs:tests}\n\n[min]\ncommands = pytest --strict\n\n[testenv:min]\ndeps = attrs==20.1\ncommands = {[min]commands}\n\n[testenv:mypy]\ndeps =\n    pytest==8.0\n    mypy\ncommands = mypy src tests\n\n\n# Check the package metadata PyPI shows.\n[testenv:twinecheck]\ncommands =\n    python -m build --sdist\n    twine check dist/*\n",
        )
        .unwrap();
        let env = |name: &str, line: usize| {
            CommandItem::new("tox", &ini, name, format!("tox -e {name}")).line(line)
        };
        // `tox` runs the default environments, one step per definition, as the parser lists it.
        let mut default = CommandItem::new("tox", &ini, "tox", "tox").line(1);
        for step in ["py311", "min", "mypy"] {
            default.steps.push(commandtree_core::StepRef::new(
                step,
                commandtree_core::StepHow::Call,
                false,
            ));
        }
        let commands = vec![
            env("py311", 4),
            env("py312", 4),
            env("min", 12),
            env("mypy", 16),
            env("twinecheck", 24),
            default,
        ];
        let index = index_for(&dir, &commands);
        let first = |q: &str| commands[index.rank(q)[0].doc].label.clone();
        assert_eq!(first("run the tests on python 3.12"), "py312");
        // `min` runs the tests by a reference to another section; `mypy` only pins pytest.
        let testing: Vec<&str> = index
            .rank("pytest")
            .iter()
            .map(|r| commands[r.doc].label.as_str())
            .collect();
        assert!(testing.contains(&"min"), "{testing:?}");
        // The default run does what its environments do.
        assert!(testing.contains(&"tox"), "{testing:?}");
        assert!(!testing.contains(&"mypy"), "{testing:?}");
        assert_eq!(
            first("check the package metadata before uploading to pypi"),
            "twinecheck"
        );
    }

    #[test]
    fn the_index_is_kept_between_searches_and_a_changed_file_is_read_again() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-lexical-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        let a = dir.join("a.sh");
        let b = dir.join("b.sh");
        std::fs::write(&a, "#!/bin/sh\npg_dump prod > backup.sql\n").unwrap();
        std::fs::write(&b, "#!/bin/sh\nhelm upgrade app ./chart\n").unwrap();
        let commands = vec![
            CommandItem::new("shell", &a, "a.sh", "sh a.sh"),
            CommandItem::new("shell", &b, "b.sh", "sh b.sh"),
        ];
        let first = index_for(&dir, &commands);
        assert_eq!(first.rank("helm")[0].doc, 1);
        // Nothing changed: the same index.
        assert!(Arc::ptr_eq(&first, &index_for(&dir, &commands)));
        // b.sh's text changed (its size too): its words are read again.
        std::fs::write(&b, "#!/bin/sh\nkubectl rollout restart deployment/app\n").unwrap();
        let second = index_for(&dir, &commands);
        assert!(!Arc::ptr_eq(&first, &second));
        assert!(second.rank("helm").is_empty());
        assert_eq!(second.rank("rollout")[0].doc, 1);
        assert_eq!(second.rank("pg_dump")[0].doc, 0);
    }
}
