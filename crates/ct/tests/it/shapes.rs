//! The first minutes on five repository shapes, as a new user meets them: miniatures of public
//! repositories (under `fixtures/shapes/`: a pnpm monorepo like vite, a Go task runner like
//! go-task, a Rust CLI with a justfile like just, a polyglot tool with mise tasks like mise, a
//! .NET stack like eShop). Each check is a surprise found on the real repository: the plain
//! name runs the repository's own command, the list leads with its runner and leaves out
//! documents, test data, templates and served samples, parameters are shown, and the dry run
//! prints the line even when the tool is not installed.

use crate::support::Workspace;
use serde_json::Value;

/// A fresh copy of the miniature `name`.
fn shape(name: &str) -> Workspace {
    Workspace::fixture(&format!("shapes/{name}"))
}

/// The line a dry run of `name` from `cwd` prints (exit 0 even when the tool is missing).
#[track_caller]
fn dry_run(w: &Workspace, cwd: &str, name: &str) -> String {
    let out = w
        .ct_in(cwd)
        .args(["run", name, "--dry-run"])
        .run()
        .success()
        .stdout();
    let prefix = w.to_string_lossy();
    out.lines()
        .last()
        .unwrap_or_default()
        .replace(prefix.as_ref(), "ROOT")
}

fn list(w: &Workspace) -> String {
    w.run(["list"]).success().stdout()
}

fn categories(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter(|l| !l.starts_with(' ') && l.ends_with(')'))
        .map(|l| l.rsplit_once(" (").unwrap().0.to_string())
        .collect()
}

fn json(w: &Workspace) -> Vec<Value> {
    w.json(["list", "--json"]).as_array().unwrap().clone()
}

#[test]
fn a_pnpm_monorepo() {
    let w = shape("vite");
    // `ct run build` from the root is the root's build (was: "matches 5 commands").
    assert_eq!(dry_run(&w, ".", "build"), "cd -- 'ROOT' && pnpm run build");
    // From a package, that package's (as pnpm runs it there).
    assert_eq!(
        dry_run(&w, "packages/vite", "build"),
        "cd -- 'ROOT/packages/vite' && pnpm run build"
    );
    // A template's script only by path, never by its plain name from inside it.
    assert_ne!(
        dry_run(&w, "packages/create-vite/template-react", "build"),
        "cd -- 'ROOT/packages/create-vite/template-react' && pnpm run build"
    );
    assert_eq!(
        dry_run(&w, ".", "packages/create-vite/template-react:build"),
        "cd -- 'ROOT/packages/create-vite/template-react' && pnpm run build"
    );
    let l = list(&w);
    assert_eq!(categories(&l), ["NPM Scripts", "Shell Scripts"]);
    assert!(!l.contains("preview"), "template scripts are hidden: {l}");
    assert!(
        !l.contains("serve  node server"),
        "playground scripts are hidden: {l}"
    );
    assert!(l.contains("6 more commands hidden"), "{l}");
    assert!(l.contains("2 documents (Markdown) not listed"), "{l}");
    assert!(l.contains("release.sh (scripts/)"), "{l}");
}

#[test]
fn a_go_task_runner() {
    let w = shape("go-task");
    // The root Taskfile's test, not the testdata copies; aliases run their task.
    assert_eq!(dry_run(&w, ".", "test"), "cd -- 'ROOT' && task test");
    assert_eq!(dry_run(&w, ".", "t"), "cd -- 'ROOT' && task test");
    assert_eq!(dry_run(&w, ".", "fmt"), "cd -- 'ROOT' && task format");
    let l = list(&w);
    assert_eq!(categories(&l)[0], "Taskfile");
    assert!(l.contains("test [alias: t]  Runs test suite"), "{l}");
    // The website's served sample Taskfile is not the project's.
    assert!(!l.contains("hello"), "{l}");
    // The text to type.
    w.run(["run", "hello", "--dry-run"])
        .code(2)
        .stderr_has("website/src/public:hello");
    assert!(l.contains("2 documents (Markdown) not listed"), "{l}");
}

#[test]
fn a_rust_cli_with_a_justfile() {
    let w = shape("just");
    // The justfile's recipe before `cargo build`, and its alias.
    assert_eq!(dry_run(&w, ".", "build"), "cd -- 'ROOT' && just build");
    assert_eq!(dry_run(&w, ".", "t"), "cd -- 'ROOT' && just test");
    // A variadic parameter's default is the runner's to fill in.
    assert_eq!(dry_run(&w, ".", "watch"), "cd -- 'ROOT' && just watch");
    let l = list(&w);
    assert_eq!(
        categories(&l),
        ["Just Recipes", "Shell Scripts", "Cargo (Rust)"]
    );
    assert!(
        l.contains("  filter PATTERN  only run tests matching `PATTERN`\n"),
        "{l}"
    );
    assert!(l.contains("  replace FROM TO\n"), "{l}");
    assert!(l.contains("  watch [args…=test]\n"), "{l}");
    assert!(!l.contains("_ci-setup"), "private recipes are hidden: {l}");
    // The README's `rm -rf /` is documentation: not listed, not warned.
    assert!(!l.contains('⚠'), "{l}");
    let items = json(&w);
    let filter = items.iter().find(|c| c["label"] == "filter").unwrap();
    assert_eq!(filter["params"][0]["name"], "PATTERN");
}

#[test]
fn a_polyglot_tool_with_mise_tasks() {
    let w = shape("mise");
    // mise's test, not `npm init`'s failing placeholder nor `cargo test`.
    assert_eq!(dry_run(&w, ".", "test"), "cd -- 'ROOT' && mise run test");
    assert_eq!(dry_run(&w, ".", "build"), "cd -- 'ROOT' && mise run build");
    let l = list(&w);
    // The dedicated runner leads, before the package.json scripts at the same root.
    assert_eq!(
        categories(&l),
        ["Mise Tasks", "NPM Scripts", "Shell Scripts", "Cargo (Rust)"]
    );
    assert!(!l.contains("no test specified"), "{l}");
    assert!(l.contains("3 documents (Markdown) not listed"), "{l}");
    // The documents are there when asked for.
    w.run(["list", "--docs"]).stdout_has("Markdown Files (3)");
}

#[test]
fn a_dotnet_stack() {
    let w = shape("eshop");
    // In a project's folder, `test` is that project's, as `dotnet test` there.
    assert_eq!(
        dry_run(&w, "tests/Basket.UnitTests", "test"),
        "cd -- 'ROOT/tests/Basket.UnitTests' && dotnet test \"ROOT/tests/Basket.UnitTests/Basket.UnitTests.csproj\""
    );
    // At the root, the solution's.
    assert_eq!(
        dry_run(&w, ".", "test"),
        "cd -- 'ROOT' && dotnet test \"ROOT/eShop.sln\""
    );
    // The solution and Compose both offer `build` at the root: the project's build tool's,
    // as a user typing it means; `docker:build` names the images'.
    assert_eq!(
        dry_run(&w, ".", "build"),
        "cd -- 'ROOT' && dotnet build \"ROOT/eShop.sln\""
    );
    w.run(["run", "docker:build", "--dry-run"])
        .success()
        .stdout_has("docker compose -f");
    let items = json(&w);
    let tests: Vec<&str> = items
        .iter()
        .filter(|c| c["label"].as_str().unwrap().ends_with(": test"))
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    // Arcade-style test projects are test projects without a test SDK reference.
    assert_eq!(
        tests,
        [
            "Basket.UnitTests: test",
            "Ordering.FunctionalTests: test",
            "eShop: test"
        ]
    );
    let l = list(&w);
    assert_eq!(
        categories(&l),
        ["Docker Compose", "Dockerfiles", ".NET Projects"]
    );
    // A Dockerfile's `RUN rm -rf` changes the image only.
    assert!(!l.contains('⚠'), "{l}");
}
