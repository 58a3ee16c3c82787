//! Own versus auxiliary commands, and the default excludes that depend on what a folder holds.
//!
//! A command is *auxiliary* when it belongs to code the project carries but does not run day to
//! day: vendored code (GitHub Linguist's vendor conventions), test data, templates with
//! placeholders, examples and playgrounds below the root, and VS Code files of nested folders
//! (VS Code itself only reads the workspace folder's). `.gitattributes` `linguist-vendored` and
//! `linguist-generated` decide first, both ways: `=false` (or `-attr`) makes a conventionally
//! auxiliary path the project's own. Front ends list own commands and say how many auxiliary ones
//! they hid; JSON consumers see them with `--all`.

use crate::fs::Fs;
use crate::model::CommandItem;
use crate::settings::Settings;
use globset::{GlobBuilder, GlobMatcher};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Folder names that hold vendored code at any depth (Linguist `vendor.yml`).
const VENDOR_DIRS: &[&str] = &[
    "vendor",
    "vendors",
    // Python packages carry their vendored dependencies as a private subpackage (pip,
    // setuptools, pkg_resources).
    "_vendor",
    "vendored",
    "node_modules",
    "bower_components",
    "cache",
    "dist",
    "extern",
    "external",
    "externals",
    "carthage",
    "sparkle",
    ".google_apis",
    "ace-builds",
    "mathjax",
];

/// Folder names that hold vendored code only directly under the root (Linguist anchors them:
/// a nested `deps/` is often the project's own).
const ROOT_VENDOR_DIRS: &[&str] = &["deps", "dependencies", "debian", "pods", "puphpet"];

/// Test data: inputs for tests, never commands a user runs.
const TEST_DATA_DIRS: &[&str] = &[
    "testdata",
    "test-data",
    "test_data",
    "__fixtures__",
    "fixtures",
    "test-fixtures",
    "test_fixtures",
    "__snapshots__",
    "__mocks__",
];

/// Folders of a test suite (see `path_reason`: the apps it builds, deeper in).
const TEST_DIRS: &[&str] = &["test", "tests", "__tests__", "spec", "specs"];

/// Manifests a workspace's own build takes in wherever they are (a Cargo workspace's members,
/// a solution's projects, a multi-project Gradle or Maven build's modules).
const WORKSPACE_MEMBER_KINDS: &[&str] = &["cargo", "dotnet", "gradle", "maven", "ant"];

/// Examples and playgrounds: auxiliary when nested below the root (a workspace opened on the
/// example itself lists it as its own).
const EXAMPLE_DIRS: &[&str] = &[
    "example",
    "examples",
    "sample",
    "samples",
    "playground",
    "playgrounds",
    "demo",
    "demos",
];

/// Folders a static site serves as they are, and the site folders they count in.
const SERVED_DIRS: &[&str] = &["public", "static", "assets"];
const SITE_DIRS: &[&str] = &["website", "site", "docs", "doc", "www"];

const TEMPLATE_DIRS: &[&str] = &[
    "template",
    "templates",
    "_templates",
    "skeleton",
    "skeletons",
];

/// Extensions of template files (`Dockerfile.tt`, `Procfile.erb`, `compose.yml.j2`...).
const TEMPLATE_EXTS: &[&str] = &[
    "tt", "tmpl", "tpl", "template", "j2", "jinja", "jinja2", "hbs", "mustache", "ejs", "erb",
    "liquid", "njk",
];

/// Tokens that mark a file as a template still to be filled in.
const TEMPLATE_TOKENS: &[&str] = &["{{", "{%", "<%", "[%", "__PROJECT_NAME__", "%PROJECT_NAME%"];

fn lower_eq_any(name: &str, set: &[&str]) -> bool {
    set.iter().any(|s| name.eq_ignore_ascii_case(s))
}

fn is_third_party(name: &str) -> bool {
    let n = name.to_ascii_lowercase().replace(['-', '_'], "");
    n == "thirdparty" || n == "3rdparty"
}

/// Why a command is auxiliary, by path alone (no `.gitattributes`, no content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Vendored,
    TestData,
    Template,
    Example,
    NestedEditorConfig,
    /// Stand-ins a tool puts on `PATH` for other programs (Homebrew's `shims/super/cc`,
    /// pyenv's and rbenv's `shims/`): they run when a build calls `cc`, not as tasks.
    Shim,
}

/// The convention a relative file path falls under, if any. `needs_content` is set for files
/// under a template folder: they are auxiliary only when they hold template tokens.
fn path_reason(rel: &Path, kind: &str) -> (Option<Reason>, bool) {
    let comps = names_in(rel);
    let Some((file, dirs)) = comps.split_last() else {
        return (None, false);
    };
    if (kind == "launch" || kind == "vscode") && dirs.len() > 1 {
        return (Some(Reason::NestedEditorConfig), false);
    }
    for (i, d) in dirs.iter().enumerate() {
        if lower_eq_any(d, VENDOR_DIRS) || is_third_party(d) {
            return (Some(Reason::Vendored), false);
        }
        if i == 0 && lower_eq_any(d, ROOT_VENDOR_DIRS) {
            return (Some(Reason::Vendored), false);
        }
        if i + 1 < dirs.len() && d.eq_ignore_ascii_case("godeps") && dirs[i + 1] == "_workspace" {
            return (Some(Reason::Vendored), false);
        }
        if i + 1 < dirs.len() && *d == "gradle" && dirs[i + 1] == "wrapper" {
            return (Some(Reason::Vendored), false);
        }
        if d.starts_with(".yarn") {
            return (Some(Reason::Vendored), false);
        }
        // Sphinx's build output and themes (`docs/_build/`, `doc/_templates/`).
        if (*d == "docs" || *d == "doc")
            && dirs.get(i + 1).is_some_and(|n| {
                matches!(
                    n.trim_start_matches('_'),
                    "build" | "theme" | "themes" | "template" | "templates" | "static"
                )
            })
        {
            return (Some(Reason::Vendored), false);
        }
        if lower_eq_any(d, TEST_DATA_DIRS) {
            return (Some(Reason::TestData), false);
        }
        if lower_eq_any(d, &["shims", "shim"]) {
            return (Some(Reason::Shim), false);
        }
        // A test suite's inputs kept beside its tests (`tests/data/src/pkg/setup.py`,
        // `test/resources/`): the same as a `testdata/` folder.
        if i > 0
            && lower_eq_any(dirs[i - 1], &["test", "tests"])
            && lower_eq_any(d, &["data", "resources", "files", "assets"])
        {
            return (Some(Reason::TestData), false);
        }
        // The apps a test suite builds and runs, each in a folder of its own two or more levels
        // into a test folder (`packages/kit/test/apps/basics/package.json`,
        // `tests/apps/go/check_deploy`, `tests/specs/install/bin/package.json`): fixtures, by the
        // hundred in a monorepo. A test folder's own runner one level in (`tests/e2e/`,
        // `tests/ci/run.sh`) is the project's, and so is a crate or project the workspace's own
        // build takes in (`tests/util/server/Cargo.toml`, `Tests/Frameworks/X.Specs.csproj`).
        if deep_in_tests(dirs, i) && !WORKSPACE_MEMBER_KINDS.contains(&kind) {
            return (Some(Reason::TestData), false);
        }
        // A Python file in a test suite that is not the suite's own runner: a test module
        // (`tests/query_runner/test_oracle.py`, run by pytest, not by hand) or a helper the
        // tests start as a process, a folder or more in (`tests/mockserver/http.py`,
        // `tests/CrawlerProcess/sleeping.py`). A runner directly in the test folder
        // (`tests/run.py`) stays the project's.
        if kind == "python"
            && lower_eq_any(d, TEST_DIRS)
            && is_python_test_support(file, dirs.len() - i)
        {
            return (Some(Reason::TestData), false);
        }
        // A website's served files (`website/src/public/Taskfile.yml`, `docs/static/install.sh`):
        // downloads and samples for readers, not the project's commands.
        // So are the files its pages show (Hugo's `content/`; the pages themselves are the
        // project's documents): traefik's
        // `docs/content/user-guides/docker-compose/acme-dns/docker-compose.yml` is a guide's.
        if (lower_eq_any(d, SERVED_DIRS)
            || (d.eq_ignore_ascii_case("content") && kind != "markdown"))
            && dirs[..i].iter().any(|a| lower_eq_any(a, SITE_DIRS))
        {
            return (Some(Reason::Example), false);
        }
        if lower_eq_any(d, EXAMPLE_DIRS) || is_named_example(d) {
            return (Some(Reason::Example), false);
        }
        // Cookiecutter and similar generators name folders after placeholders; scaffolders keep
        // one folder per template (`create-vite/template-react/`).
        if d.contains("{{") || d.contains("{%") || is_named_template(d) {
            return (Some(Reason::Template), false);
        }
    }
    if let Some((_, ext)) = file.rsplit_once('.')
        && lower_eq_any(ext, TEMPLATE_EXTS)
    {
        return (Some(Reason::Template), false);
    }
    if file.contains("{{") {
        return (Some(Reason::Template), false);
    }
    let in_templates = dirs.iter().any(|d| lower_eq_any(d, TEMPLATE_DIRS));
    // A project's manifest under a template folder is the template project's, copied out by
    // a generator, not the repository's own (`templates/starter/package.json`).
    if in_templates && PROJECT_MANIFEST_KINDS.contains(&kind) {
        return (Some(Reason::Template), false);
    }
    (None, in_templates)
}

/// The names of a relative path's parts.
fn names_in(rel: &Path) -> Vec<&str> {
    rel.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect()
}

/// Whether `dirs[i]` is a test folder with two or more folders below it on the way to the file:
/// where a test suite keeps the apps and projects it builds.
fn deep_in_tests(dirs: &[&str], i: usize) -> bool {
    lower_eq_any(dirs[i], TEST_DIRS) && dirs.len() - i > 2
}

/// Whether a Python file `levels` folders into a test folder (1: directly in it) is the test
/// suite's: a test module by pytest's naming, `conftest.py`, or anything deeper than the suite's
/// own folder.
fn is_python_test_support(file: &str, levels: usize) -> bool {
    let stem = file.strip_suffix(".py").unwrap_or(file);
    levels > 1 || stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
}

/// Types whose file is a project's manifest.
const PROJECT_MANIFEST_KINDS: &[&str] = &[
    "npm",
    "cargo",
    "go",
    "composer",
    "dotnet",
    "gradle",
    "maven",
    "pyproject",
    "deno",
    "ant",
];

/// A folder named as one example of something (`basic-example`, `example_write_adapter`,
/// `examples-react`).
fn is_named_example(dir: &str) -> bool {
    let d = dir.to_ascii_lowercase();
    EXAMPLE_DIRS[..2].iter().any(|e| {
        [format!("{e}-"), format!("{e}_")]
            .iter()
            .any(|p| d.starts_with(p.as_str()) && d.len() > p.len())
            || [format!("-{e}"), format!("_{e}")]
                .iter()
                .any(|p| d.ends_with(p.as_str()) && d.len() > p.len())
    })
}

fn is_named_template(dir: &str) -> bool {
    let d = dir.to_ascii_lowercase();
    ["template-", "template_", "templates-"]
        .iter()
        .any(|p| d.starts_with(p) && d.len() > p.len())
        || d.ends_with("-template")
}

fn has_template_tokens(text: &str) -> bool {
    TEMPLATE_TOKENS.iter().any(|t| text.contains(t))
}

/// One line of a `.gitattributes` file that sets or unsets a Linguist attribute.
/// Each attribute: `None` = the line does not mention it, `Some(None)` = `!attr` (back to
/// unspecified), `Some(Some(b))` = set or unset.
struct AttrRule {
    glob: GlobMatcher,
    vendored: Option<Option<bool>>,
    generated: Option<Option<bool>>,
}

fn parse_gitattributes(text: &str) -> Vec<AttrRule> {
    let mut rules = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let Some(pattern) = words.next() else {
            continue;
        };
        let (mut vendored, mut generated) = (None, None);
        for w in words {
            let (name, value) = if let Some(n) = w.strip_prefix('-') {
                (n, Some(false))
            } else if let Some(n) = w.strip_prefix('!') {
                (n, None)
            } else if let Some((n, v)) = w.split_once('=') {
                (n, Some(!matches!(v, "false" | "0" | "no")))
            } else {
                (w, Some(true))
            };
            match name {
                "linguist-vendored" => vendored = Some(value),
                "linguist-generated" => generated = Some(value),
                _ => {}
            }
        }
        if vendored.is_none() && generated.is_none() {
            continue;
        }
        // Git's rules: a pattern without a slash matches a name at any depth; one with a slash
        // is relative to the `.gitattributes` folder. A trailing slash matches folders only,
        // which attributes never apply to.
        if pattern.ends_with('/') {
            continue;
        }
        let body = pattern.trim_start_matches('/');
        let glob = if pattern.contains('/') {
            body.to_string()
        } else {
            format!("**/{body}")
        };
        let Ok(g) = GlobBuilder::new(&glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
        else {
            continue;
        };
        rules.push(AttrRule {
            glob: g.compile_matcher(),
            vendored,
            generated,
        });
    }
    rules
}

/// The `.gitattributes` rules that apply below one folder: each folder's own rules (with the
/// folder they are relative to), from the root down, only folders that have some.
type AttrChain = Arc<Vec<(PathBuf, Arc<Vec<AttrRule>>)>>;

/// Classifies commands of one workspace. Reads `.gitattributes` files (root and nested) and,
/// for files under template folders, the file itself, each at most once. Shared by the walk's
/// threads: a command is classified on the thread that parsed its file.
pub struct Classifier<'a> {
    root: PathBuf,
    fs: &'a dyn Fs,
    /// Per folder, since most folders have no `.gitattributes` and share their parent's chain.
    chains: Mutex<HashMap<PathBuf, AttrChain>>,
    templated: Mutex<HashMap<PathBuf, bool>>,
    /// Per crate manifest below a test folder, whether a workspace takes it in.
    members: Mutex<HashMap<PathBuf, bool>>,
}

impl<'a> Classifier<'a> {
    pub fn new(root: &Path, fs: &'a dyn Fs) -> Self {
        Classifier {
            root: root.to_path_buf(),
            fs,
            chains: Mutex::new(HashMap::new()),
            templated: Mutex::new(HashMap::new()),
            members: Mutex::new(HashMap::new()),
        }
    }

    /// The rules that apply to files in `dir` (a folder at or below the root).
    fn chain(&self, dir: &Path) -> AttrChain {
        if let Some(c) = lock(&self.chains).get(dir) {
            return c.clone();
        }
        let inherited = match dir.parent() {
            Some(parent)
                if dir != self.root && crate::fs::strip_root(parent, &self.root).is_some() =>
            {
                self.chain(parent)
            }
            _ => Arc::new(Vec::new()),
        };
        let own = self
            .fs
            .read(&dir.join(".gitattributes"))
            .map(|t| parse_gitattributes(&t))
            .unwrap_or_default();
        let chain = if own.is_empty() {
            inherited
        } else {
            let mut v = inherited.as_ref().clone();
            v.push((dir.to_path_buf(), Arc::new(own)));
            Arc::new(v)
        };
        lock(&self.chains).insert(dir.to_path_buf(), chain.clone());
        chain
    }

    /// `(vendored, generated)` from every `.gitattributes` between the root and the file; a
    /// deeper file and a later line win.
    fn linguist_attrs(&self, file: &Path) -> (Option<bool>, Option<bool>) {
        let (mut vendored, mut generated) = (None, None);
        let Some(parent) = file
            .parent()
            .filter(|p| crate::fs::strip_root(p, &self.root).is_some())
        else {
            return (None, None);
        };
        for (dir, rules) in self.chain(parent).iter() {
            let Some(sub) = crate::fs::strip_root(file, dir) else {
                continue;
            };
            for r in rules.iter() {
                if r.glob.is_match(sub) {
                    if let Some(v) = r.vendored {
                        vendored = v;
                    }
                    if let Some(g) = r.generated {
                        generated = g;
                    }
                }
            }
        }
        (vendored, generated)
    }

    /// Whether the command is auxiliary, and why (`None` = the project's own).
    pub fn reason(&self, item: &CommandItem) -> Option<Reason> {
        self.reason_with_text(item, None)
    }

    /// [`Classifier::reason`], given the text of the command's file when the caller has it
    /// (the walk), so a file under a template folder is not read again.
    pub fn reason_with_text(&self, item: &CommandItem, text: Option<&str>) -> Option<Reason> {
        let file = Path::new(&item.file_path);
        let reason = self.reason_of(item, file, text);
        if reason.is_none() && item.kind == "cargo" && self.is_test_fixture_crate(file) {
            return Some(Reason::TestData);
        }
        reason
    }

    /// A crate two or more folders into a test folder that no workspace takes in: a fixture
    /// the tests build (rubygems'
    /// `test/rubygems/test_gem_ext_cargo_builder/custom_name/ext/custom_name_lib/`), where a
    /// member is the project's own (deno's `tests/util/server/`).
    fn is_test_fixture_crate(&self, manifest: &Path) -> bool {
        let Some(rel) = crate::fs::strip_root(manifest, &self.root) else {
            return false;
        };
        let dirs = rel.parent().map(names_in).unwrap_or_default();
        if !(0..dirs.len()).any(|i| deep_in_tests(&dirs, i)) {
            return false;
        }
        if let Some(&member) = lock(&self.members).get(manifest) {
            return !member;
        }
        let member = crate::sources::cargo::is_workspace_member(self.fs, &self.root, manifest);
        lock(&self.members).insert(manifest.to_path_buf(), member);
        !member
    }

    fn reason_of(&self, item: &CommandItem, file: &Path, text: Option<&str>) -> Option<Reason> {
        match self.attrs_then_path(file, &item.kind) {
            (Some(r), _) => Some(r),
            (None, true) => {
                let templated = match text {
                    Some(t) => has_template_tokens(t),
                    None => {
                        if let Some(&t) = lock(&self.templated).get(file) {
                            t
                        } else {
                            let t = self.fs.read(file).is_some_and(|t| has_template_tokens(&t));
                            lock(&self.templated).insert(file.to_path_buf(), t);
                            t
                        }
                    }
                };
                templated.then_some(Reason::Template)
            }
            (None, false) => None,
        }
    }

    /// What `.gitattributes` (first, both ways) and then the path conventions say about `file`:
    /// `(reason, whether its template tokens still decide)`, as [`path_reason`].
    fn attrs_then_path(&self, file: &Path, kind: &str) -> (Option<Reason>, bool) {
        let (vendored, generated) = self.linguist_attrs(file);
        if vendored == Some(true) || generated == Some(true) {
            return (Some(Reason::Vendored), false);
        }
        if vendored == Some(false) || generated == Some(false) {
            return (None, false);
        }
        let rel = crate::fs::strip_root(file, &self.root).unwrap_or(file);
        path_reason(rel, kind)
    }

    pub fn is_auxiliary(&self, item: &CommandItem) -> bool {
        self.reason(item).is_some()
    }
}

/// A cache lock: a panic elsewhere cannot leave a cache half-written in a way that matters.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sets `auxiliary` on every command (the discovery pass calls this once at its end), after
/// dropping script entries for files a task runner already lists as its own tasks (an executable
/// `mise-tasks/x.sh` is `mise run x`, listed once).
pub fn classify(root: &Path, fs: &dyn Fs, commands: &mut Vec<CommandItem>) {
    drop_scripts_listed_as_tasks(commands);
    let c = Classifier::new(root, fs);
    for item in commands {
        item.auxiliary = c.is_auxiliary(item);
    }
}

/// Drops script entries for files a task runner already lists as its own tasks.
pub(crate) fn drop_scripts_listed_as_tasks(commands: &mut Vec<CommandItem>) {
    let tasks: std::collections::HashSet<String> = commands
        .iter()
        .filter(|c| c.kind == "mise")
        .map(|c| c.file_path.clone())
        .collect();
    if tasks.is_empty() {
        return;
    }
    commands.retain(|c| {
        !(matches!(c.kind.as_str(), "shell" | "python" | "powershell")
            && tasks.contains(&c.file_path))
    });
}

/// Whether `name` is a folder name of a kind, not of one thing: a test, vendor, fixture,
/// example, template or site folder (`tests`, `examples`), which a query naming it does not
/// mean one command by.
pub fn names_a_kind_of_folder(name: &str) -> bool {
    [
        VENDOR_DIRS,
        ROOT_VENDOR_DIRS,
        TEST_DATA_DIRS,
        TEST_DIRS,
        EXAMPLE_DIRS,
        TEMPLATE_DIRS,
        SERVED_DIRS,
        SITE_DIRS,
    ]
    .iter()
    .any(|set| lower_eq_any(name, set))
        || is_third_party(name)
}

/// Whether a front end lists the command without `--all`: the project's own commands that the
/// tool's own listing shows (`just --list` hides `[private]` recipes, `mise tasks` hidden tasks).
pub fn listed_by_default(c: &CommandItem) -> bool {
    !c.auxiliary && !c.hidden
}

/// Splits discovery warnings into those about the project's own files and the number about
/// auxiliary ones (test data, vendored code, templates, examples): a listing that hides a
/// fixture's commands hides the complaints about its deliberately broken files too, unless
/// `show_all`. Judged by the file's path and `.gitattributes`, as commands are.
pub fn visible_warnings(
    root: &Path,
    fs: &dyn Fs,
    warnings: &[crate::Warning],
    show_all: bool,
) -> (Vec<crate::Warning>, usize) {
    if show_all {
        return (warnings.to_vec(), 0);
    }
    let c = Classifier::new(root, fs);
    let mut hidden = 0;
    let mut kept = Vec::new();
    for w in warnings {
        let file = if w.file.is_absolute() {
            w.file.clone()
        } else {
            root.join(&w.file)
        };
        // A file outside the workspace (the user's own config) is never the workspace's test data.
        if file.starts_with(root) && c.attrs_then_path(&file, "").0.is_some() {
            hidden += 1;
        } else {
            kept.push(w.clone());
        }
    }
    (kept, hidden)
}

/// The default excludes that are decided per folder rather than by name.
const SMART_DEFAULTS: &[&str] = &["**/env/**", "**/bin/**"];

/// The glob excludes to apply, and whether the per-folder rules for `env/` and `bin/` apply
/// (only while the built-in defaults are in force: an explicit `commandtree.excludePatterns`
/// replaces them exactly, `bin/` and `env/` globs included).
pub fn effective_excludes(settings: &Settings) -> (Vec<String>, bool) {
    if !settings.default_excludes {
        return (settings.exclude_patterns.clone(), false);
    }
    let mut out = settings.exclude_patterns.clone();
    for s in SMART_DEFAULTS {
        if let Some(i) = out.iter().position(|p| p == s) {
            out.remove(i);
        }
    }
    (out, true)
}

/// Whether the walk skips this folder under the per-folder default rules: `env/` when it is a
/// Python virtualenv (holds `pyvenv.cfg`), `bin/` when it is .NET or Java build output
/// (`Debug/`/`Release/` inside, or a project file beside it and no script in it). A `bin/` of
/// scripts is walked, also beside a `build.gradle` (Kafka's `bin/kafka-server-start.sh`).
pub fn smart_default_excludes_dir(dir: &Path) -> bool {
    match dir.file_name().and_then(|n| n.to_str()) {
        Some("env") => dir.join("pyvenv.cfg").is_file(),
        Some("bin") => is_build_output_bin(dir),
        _ => false,
    }
}

fn is_build_output_bin(dir: &Path) -> bool {
    if dir.join("Debug").is_dir() || dir.join("Release").is_dir() {
        return true;
    }
    let Some(parent) = dir.parent() else {
        return false;
    };
    let Ok(rd) = std::fs::read_dir(parent) else {
        return false;
    };
    let beside_project = rd.filter_map(|e| e.ok()).any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        is_jvm_or_dotnet_project_file(&name)
    });
    beside_project && !holds_scripts(dir)
}

/// Whether a folder holds a script at its top level: a file named as one (`.sh`, `.bat`,
/// `.cmd`, `.ps1`) or starting with `#!`. Build output holds classes and assemblies, in
/// folders of their own (`bin/main/`, `bin/Debug/`), never a script beside them.
fn holds_scripts(dir: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    rd.filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy().to_ascii_lowercase();
            [".sh", ".bat", ".cmd", ".ps1"]
                .iter()
                .any(|x| name.ends_with(x))
                || starts_with_shebang(&e.path())
        })
}

fn starts_with_shebang(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == b"#!")
}

fn is_jvm_or_dotnet_project_file(name: &str) -> bool {
    matches!(
        name,
        "pom.xml"
            | "build.gradle"
            | "build.gradle.kts"
            | "build.xml"
            | ".classpath"
            | "project.clj"
            | "build.sbt"
    ) || [".csproj", ".fsproj", ".vbproj", ".sln", ".slnx"]
        .iter()
        .any(|e| name.ends_with(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;

    fn item(kind: &str, path: &str) -> CommandItem {
        CommandItem::new(kind, Path::new(path), "x", "x")
    }

    fn aux(fs: &MemFs, kind: &str, path: &str) -> bool {
        Classifier::new(Path::new("/w"), fs).is_auxiliary(&item(kind, path))
    }

    #[test]
    fn vendor_conventions() {
        let fs = MemFs::new();
        assert!(aux(&fs, "make", "/w/deps/jemalloc/Makefile"));
        assert!(
            !aux(&fs, "make", "/w/src/deps/Makefile"),
            "deps/ only at the root"
        );
        assert!(aux(&fs, "shell", "/w/third_party/x/build.sh"));
        assert!(aux(&fs, "shell", "/w/lib/Third-Party/x/build.sh"));
        assert!(aux(&fs, "npm", "/w/a/vendor/p/package.json"));
        assert!(aux(&fs, "shell", "/w/external/x.sh"));
        assert!(aux(&fs, "python", "/w/src/pip/_vendor/rich/console.py"));
        assert!(!aux(&fs, "make", "/w/Makefile"));
        assert!(!aux(&fs, "shell", "/w/scripts/release.sh"));
        assert!(!aux(&fs, "shell", "/w/bin/setup"));
        // A program's stand-ins on PATH are no tasks.
        assert!(aux(&fs, "shell", "/w/Library/Homebrew/shims/super/cc"));
        assert!(aux(&fs, "shell", "/w/libexec/shim/git"));
    }

    #[test]
    fn test_data_templates_examples() {
        let fs = MemFs::new()
            .file(
                "/w/gen/templates/app/package.json",
                "{\"name\": \"{{name}}\"}",
            )
            .file("/w/gen/templates/plain/package.json", "{\"name\": \"x\"}")
            .file("/w/gen/templates/render.sh", "#!/bin/sh\necho render\n");
        assert!(aux(&fs, "make", "/w/pkg/testdata/Makefile"));
        assert!(aux(&fs, "python", "/w/tests/data/src/simple/setup.py"));
        assert!(aux(&fs, "shell", "/w/test/resources/fake-tool.sh"));
        assert!(
            !aux(&fs, "shell", "/w/data/import.sh"),
            "a data folder is test data only in a test folder"
        );
        assert!(aux(&fs, "npm", "/w/src/__fixtures__/a/package.json"));
        assert!(aux(&fs, "npm", "/w/x/__snapshots__/package.json"));
        assert!(aux(&fs, "npm", "/w/gen/templates/app/package.json"));
        // A project's manifest under a template folder is the template project's own.
        assert!(aux(&fs, "npm", "/w/gen/templates/plain/package.json"));
        // Other files there count only with template tokens.
        assert!(!aux(&fs, "shell", "/w/gen/templates/render.sh"));
        assert!(aux(&fs, "docker", "/w/lib/generators/Dockerfile.tt"));
        assert!(aux(
            &fs,
            "npm",
            "/w/packages/create-vite/template-react/package.json"
        ));
        assert!(!aux(&fs, "npm", "/w/packages/templater/package.json"));
        // The apps a test suite builds, two levels or more into a test folder; not its runner
        // one level in, nor a crate or project the workspace builds.
        assert!(aux(
            &fs,
            "npm",
            "/w/packages/kit/test/apps/basics/package.json"
        ));
        assert!(aux(&fs, "shell", "/w/tests/apps/go/check_deploy"));
        assert!(aux(&fs, "deno", "/w/tests/specs/run/env/deno.json"));
        assert!(!aux(&fs, "npm", "/w/tests/e2e/package.json"));
        assert!(!aux(&fs, "shell", "/w/tests/ci/setup.sh"));
        let workspace = MemFs::new().file(
            "/w/Cargo.toml",
            "[workspace]\nmembers = [\"cli\", \"tests/util/*\"]\n",
        );
        assert!(!aux(&workspace, "cargo", "/w/tests/util/server/Cargo.toml"));
        // A crate there that no workspace takes in is a fixture the tests build (rubygems'
        // native extension fixtures), and so is one with a workspace of its own.
        assert!(aux(
            &workspace,
            "cargo",
            "/w/test/rubygems/ext_builder/custom_name/ext/lib/Cargo.toml"
        ));
        assert!(aux(&fs, "cargo", "/w/tests/util/server/Cargo.toml"));
        assert!(!aux(&fs, "cargo", "/w/tests/bench/Cargo.toml"));
        assert!(!aux(
            &fs,
            "dotnet",
            "/w/Tests/Frameworks/NUnit.Specs/NUnit.Specs.csproj"
        ));
        // A test suite's Python modules and the helpers its tests start; not its runner.
        assert!(aux(&fs, "python", "/w/tests/mockserver/http.py"));
        assert!(aux(&fs, "python", "/w/tests/query_runner/test_oracle.py"));
        assert!(aux(&fs, "python", "/w/pkg/tests/test_cli.py"));
        assert!(aux(&fs, "python", "/w/test/conftest.py"));
        assert!(!aux(&fs, "python", "/w/tests/run_all.py"));
        assert!(!aux(&fs, "python", "/w/scripts/test_release.py"));
        assert!(!aux(&fs, "shell", "/w/tests/ci/unit_test_runner.sh"));
        assert!(aux(&fs, "npm", "/w/{{cookiecutter.slug}}/package.json"));
        assert!(aux(&fs, "npm", "/w/examples/basic/package.json"));
        assert!(aux(&fs, "npm", "/w/packages/x/playground/package.json"));
        assert!(!aux(&fs, "npm", "/w/package.json"));
        // A site's served files are samples and downloads; a web app's own `public/` is not a
        // site folder's.
        assert!(aux(&fs, "taskfile", "/w/website/src/public/Taskfile.yml"));
        assert!(aux(&fs, "shell", "/w/docs/static/install.sh"));
        // And its pages' folder: the files a guide shows.
        assert!(aux(
            &fs,
            "docker",
            "/w/docs/content/user-guides/acme-dns/docker-compose.yml"
        ));
        assert!(!aux(&fs, "npm", "/w/packages/content/package.json"));
        assert!(!aux(&fs, "markdown", "/w/docs/content/getting-started.md"));
        // A folder named as one example.
        assert!(aux(
            &fs,
            "docker",
            "/w/docs/guides/basic-example/docker-compose.yml"
        ));
        assert!(aux(&fs, "make", "/w/contrib/example_adapter/Makefile"));
        assert!(!aux(&fs, "npm", "/w/packages/exampler/package.json"));
        assert!(!aux(&fs, "shell", "/w/app/public/build.sh"));
        assert!(!aux(&fs, "shell", "/w/website/scripts/deploy.sh"));
    }

    #[test]
    fn nested_vscode_files_are_auxiliary() {
        let fs = MemFs::new();
        assert!(!aux(&fs, "launch", "/w/.vscode/launch.json"));
        assert!(!aux(&fs, "vscode", "/w/.vscode/tasks.json"));
        assert!(aux(&fs, "launch", "/w/ext/.vscode/launch.json"));
        assert!(aux(&fs, "vscode", "/w/a/b/.vscode/tasks.json"));
    }

    #[test]
    fn gitattributes_both_ways() {
        let fs = MemFs::new()
            .file(
                "/w/.gitattributes",
                "# linguist\nlib/gen/** linguist-generated\nvendor/ours/** -linguist-vendored\n*.pb.sh linguist-generated=true\nexamples/** linguist-vendored=false\n",
            )
            .file("/w/sub/.gitattributes", "tools/* linguist-vendored\n");
        assert!(aux(&fs, "shell", "/w/lib/gen/run.sh"));
        assert!(aux(&fs, "shell", "/w/a/b/x.pb.sh"));
        assert!(!aux(&fs, "shell", "/w/vendor/ours/run.sh"));
        assert!(aux(&fs, "shell", "/w/vendor/theirs/run.sh"));
        assert!(!aux(&fs, "npm", "/w/examples/app/package.json"));
        assert!(aux(&fs, "shell", "/w/sub/tools/x.sh"));
        assert!(!aux(&fs, "shell", "/w/sub/tools/deeper/x.sh"));
        assert!(!aux(&fs, "shell", "/w/tools/x.sh"));
    }

    #[test]
    fn file_tasks_are_listed_once_as_mise() {
        let fs = MemFs::new()
            .exe(
                "/w/mise-tasks/lint.sh",
                "#!/bin/sh\n#MISE description=\"Lint\"\n",
            )
            .file(
                "/w/mise-tasks/notes.sh",
                "echo not executable, so not a mise task\n",
            )
            .file("/w/mise.toml", "[task_config]\nincludes = [\"xtasks\"]\n")
            .exe(
                "/w/xtasks/e2e",
                "#!/usr/bin/env bash\n#MISE description=\"E2E\"\n",
            );
        let d = crate::discover::discover_fs(Path::new("/w"), &fs, &Default::default());
        let got: Vec<(&str, &str)> = d
            .commands
            .iter()
            .map(|c| (c.kind.as_str(), c.label.as_str()))
            .collect();
        assert_eq!(
            got,
            [("shell", "notes.sh"), ("mise", "lint"), ("mise", "e2e")]
        );
    }

    #[test]
    fn auxiliary_and_tool_hidden_are_not_listed_by_default() {
        let mut a = item("make", "/w/deps/Makefile");
        a.auxiliary = true;
        let mut h = item("just", "/w/justfile");
        h.hidden = true;
        let own = item("make", "/w/Makefile");
        assert!(!listed_by_default(&a));
        assert!(!listed_by_default(&h));
        assert!(listed_by_default(&own));
    }

    #[test]
    fn smart_excludes_only_with_defaults() {
        let s = Settings::default();
        let (plain, smart) = effective_excludes(&s);
        assert!(smart);
        assert!(!plain.iter().any(|p| p == "**/bin/**" || p == "**/env/**"));
        assert!(plain.iter().any(|p| p == "**/node_modules/**"));
        let explicit = Settings {
            exclude_patterns: vec!["**/bin/**".into()],
            default_excludes: false,
            ..Settings::default()
        };
        assert_eq!(
            effective_excludes(&explicit),
            (vec!["**/bin/**".to_string()], false)
        );
    }

    #[test]
    fn smart_excludes_look_inside_folders() {
        let (_scratch, d) = crate::settings::tests::tempdir("smartex");
        for p in [
            "py/env",
            "scripts/env",
            "app/bin/Debug",
            "java/bin",
            "repo/bin",
            "kafka/bin",
            "gradle/bin/main",
        ] {
            std::fs::create_dir_all(d.join(p)).unwrap();
        }
        std::fs::write(d.join("py/env/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        std::fs::write(d.join("java/pom.xml"), "<project/>").unwrap();
        std::fs::write(d.join("repo/bin/setup"), "#!/bin/sh\n").unwrap();
        // A Gradle build's scripts folder beside its build file; Gradle's Eclipse output,
        // whose resources may hold a script one folder down.
        std::fs::write(d.join("kafka/build.gradle"), "").unwrap();
        std::fs::write(d.join("kafka/bin/kafka-server-start.sh"), "exec java\n").unwrap();
        std::fs::write(d.join("gradle/build.gradle"), "").unwrap();
        std::fs::write(d.join("gradle/bin/main/run.sh"), "#!/bin/sh\n").unwrap();
        std::fs::write(d.join("gradle/bin/main/App.class"), "").unwrap();
        assert!(smart_default_excludes_dir(&d.join("py/env")));
        assert!(!smart_default_excludes_dir(&d.join("scripts/env")));
        assert!(smart_default_excludes_dir(&d.join("app/bin")));
        assert!(smart_default_excludes_dir(&d.join("java/bin")));
        assert!(!smart_default_excludes_dir(&d.join("repo/bin")));
        assert!(!smart_default_excludes_dir(&d.join("kafka/bin")));
        assert!(smart_default_excludes_dir(&d.join("gradle/bin")));
    }
}
