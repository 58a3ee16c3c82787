//! Names resolve as the runners resolve them, on a monorepo-shaped workspace: the nearest
//! definition from the current directory, the root's own at the root, test data and templates
//! by path only, runner aliases, and at most ten candidates (with the text to type) when a name
//! is truly ambiguous.

use crate::support::*;
use std::process::Output;

fn monorepo(name: &str) -> std::path::PathBuf {
    let w = workspace("names", name);
    write(
        &w,
        "package.json",
        r#"{"scripts": {"build": "echo root-build"}}"#,
    );
    for p in ["app", "lib"] {
        write(
            &w,
            &format!("packages/{p}/package.json"),
            format!(r#"{{"scripts": {{"build": "echo {p}-build"}}}}"#),
        );
    }
    std::fs::create_dir_all(w.join("packages/app/src/deep")).unwrap();
    write(
        &w,
        "templates/starter/package.json",
        r#"{"scripts": {"build": "echo template-build", "only-here": "echo t"}}"#,
    );
    write(
        &w,
        "Taskfile.yml",
        "version: '3'\ntasks:\n  test:\n    aliases: [t]\n    cmds: [go test ./...]\n",
    );
    for i in 0..12 {
        write(
            &w,
            &format!("tools/t{i:02}/package.json"),
            r#"{"scripts": {"lint": "eslint ."}}"#,
        );
    }
    w
}

/// The folder a dry run changes into.
fn ran_in(o: &Output) -> String {
    assert!(o.status.success(), "{}{}", stdout(o), stderr(o));
    let out = stdout(o);
    let line = out.lines().last().unwrap_or_default().to_string();
    line.strip_prefix("cd -- '")
        .and_then(|r| r.split_once('\''))
        .map(|(d, _)| d.to_string())
        .unwrap_or_else(|| panic!("no cd in {line}"))
}

#[test]
fn a_plain_name_runs_the_nearest_definition() {
    let w = monorepo("nearest").canonicalize().unwrap();
    let root = w.to_string_lossy().into_owned();
    let at = |rel: &str| w.join(rel);
    // At the root: the root's own `build`, not one of the packages' or the template's.
    assert_eq!(ran_in(&ct_in(&w, &w, &["run", "build", "--dry-run"])), root);
    // In a package, or below one: that package's.
    let app = at("packages/app").to_string_lossy().into_owned();
    assert_eq!(
        ran_in(&ct_in(
            &w,
            &at("packages/app"),
            &["run", "build", "--dry-run"]
        )),
        app
    );
    assert_eq!(
        ran_in(&ct_in(
            &w,
            &at("packages/app/src/deep"),
            &["run", "build", "--dry-run"]
        )),
        app
    );
    // In the template folder the template's `build` is still not the one a plain name runs.
    assert_eq!(
        ran_in(&ct_in(
            &w,
            &at("templates/starter"),
            &["run", "build", "--dry-run"]
        )),
        root
    );
    // By path it runs, from anywhere.
    let tpl = at("templates/starter").to_string_lossy().into_owned();
    for name in ["templates/starter:build", "./templates/starter:build"] {
        assert_eq!(
            ran_in(&ct_in(&w, &w, &["run", name, "--dry-run"])),
            tpl,
            "{name}"
        );
    }
    assert_eq!(
        ran_in(&ct_in(
            &w,
            &at("packages"),
            &["run", "../templates/starter:build", "--dry-run"]
        )),
        tpl
    );
    // A name only test data or a template has says so, and how to name it.
    let o = ct_in(&w, &w, &["run", "only-here", "--dry-run"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("name one by path"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("templates/starter:only-here"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_runner_alias_runs_its_task() {
    let w = monorepo("alias");
    let o = ct(&w, &["run", "t", "--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).trim_end().ends_with("task test"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn an_ambiguous_name_shows_ten_candidates_with_the_text_that_runs_each() {
    let w = monorepo("ambiguous");
    let o = ct(&w, &["run", "lint", "--dry-run"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("`lint` matches 12 commands"), "{err}");
    let shown: Vec<&str> = err
        .lines()
        .filter(|l| l.trim_start().starts_with("tools/"))
        .collect();
    assert_eq!(shown.len(), 10, "{err}");
    assert!(err.contains("… and 2 more"), "{err}");
    // Each shown text runs its command.
    for line in shown {
        let name = line.split_whitespace().next().unwrap();
        let o = ct(&w, &["run", name, "--dry-run"]);
        assert!(o.status.success(), "`{name}`: {}", stderr(&o));
        let dir = name.split(':').next().unwrap();
        assert!(stdout(&o).contains(dir), "`{name}`: {}", stdout(&o));
    }
}
