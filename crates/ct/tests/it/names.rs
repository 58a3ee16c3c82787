//! Names resolve as the runners resolve them, on a monorepo-shaped workspace: the nearest
//! definition from the current directory, the root's own at the root, test data and templates
//! by path only, runner aliases, and at most ten candidates (with the text to type) when a name
//! is truly ambiguous.

use crate::support::{Run, Workspace};

fn monorepo() -> Workspace {
    let mut w = Workspace::new()
        .file(
            "package.json",
            r#"{"scripts": {"build": "echo root-build"}}"#,
        )
        .dir("packages/app/src/deep")
        .file(
            "templates/starter/package.json",
            r#"{"scripts": {"build": "echo template-build", "only-here": "echo t"}}"#,
        )
        .file(
            "Taskfile.yml",
            "version: '3'\ntasks:\n  test:\n    aliases: [t]\n    cmds: [go test ./...]\n",
        );
    for p in ["app", "lib"] {
        w = w.file(
            format!("packages/{p}/package.json"),
            format!(r#"{{"scripts": {{"build": "echo {p}-build"}}}}"#),
        );
    }
    for i in 0..12 {
        w = w.file(
            format!("tools/t{i:02}/package.json"),
            r#"{"scripts": {"lint": "eslint ."}}"#,
        );
    }
    w
}

/// `ct run NAME --dry-run` from `cwd` (a folder of the workspace).
fn dry_run(w: &Workspace, cwd: &str, name: &str) -> Run {
    w.ct_in(cwd).args(["run", name, "--dry-run"]).run()
}

/// The folder a dry run changes into.
#[track_caller]
fn ran_in(o: Run) -> String {
    let out = o.success().stdout();
    let line = out.lines().last().unwrap_or_default().to_string();
    line.strip_prefix("cd -- '")
        .and_then(|r| r.split_once('\''))
        .map(|(d, _)| d.to_string())
        .unwrap_or_else(|| panic!("no cd in {line}"))
}

#[test]
fn a_plain_name_runs_the_nearest_definition() {
    let w = monorepo();
    let root = w.to_string_lossy().into_owned();
    let at = |rel: &str| w.join(rel).to_string_lossy().into_owned();
    // At the root: the root's own `build`, not one of the packages' or the template's.
    assert_eq!(ran_in(dry_run(&w, ".", "build")), root);
    // In a package, or below one: that package's.
    let app = at("packages/app");
    assert_eq!(ran_in(dry_run(&w, "packages/app", "build")), app);
    assert_eq!(ran_in(dry_run(&w, "packages/app/src/deep", "build")), app);
    // In the template folder the template's `build` is still not the one a plain name runs.
    assert_eq!(ran_in(dry_run(&w, "templates/starter", "build")), root);
    // By path it runs, from anywhere.
    let tpl = at("templates/starter");
    for name in ["templates/starter:build", "./templates/starter:build"] {
        assert_eq!(ran_in(dry_run(&w, ".", name)), tpl, "{name}");
    }
    assert_eq!(
        ran_in(dry_run(&w, "packages", "../templates/starter:build")),
        tpl
    );
    // A name only test data or a template has says so, and how to name it.
    dry_run(&w, ".", "only-here")
        .code(2)
        .stderr_has("name one by path")
        .stderr_has("templates/starter:only-here");
}

#[test]
fn a_runner_alias_runs_its_task() {
    let out = monorepo().run(["run", "t", "--dry-run"]).success().stdout();
    assert!(out.trim_end().ends_with("task test"), "{out}");
}

#[test]
fn an_ambiguous_name_shows_ten_candidates_with_the_text_that_runs_each() {
    let w = monorepo();
    let err = w
        .run(["run", "lint", "--dry-run"])
        .code(2)
        .stderr_has("`lint` matches 12 commands")
        .stderr_has("… and 2 more")
        .stderr();
    let shown: Vec<&str> = err
        .lines()
        .filter(|l| l.trim_start().starts_with("tools/"))
        .collect();
    assert_eq!(shown.len(), 10, "{err}");
    // Each shown text runs its command.
    for line in shown {
        let name = line.split_whitespace().next().unwrap();
        let dir = name.split(':').next().unwrap();
        w.run(["run", name, "--dry-run"]).success().stdout_has(dir);
    }
}
