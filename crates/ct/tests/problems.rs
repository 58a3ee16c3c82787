//! Through the real `ct`: `ct problems` reads the log of a real detached run (a script printing
//! a rustc and a tsc error) into problems with their file and line, as text and JSON, with the
//! workspace's own patterns, and opens one in `$EDITOR`; `ct deps` shows what a command runs
//! and what runs it on a Makefile with prerequisites and npm scripts.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::*;

const BUILD: &str = r#"#!/bin/sh
# Prints what a Rust and a TypeScript build print, then fails.
echo "   Compiling app v0.1.0 ($PWD)"
echo "error[E0308]: mismatched types"
echo " --> src/main.rs:2:18"
echo "  |"
echo "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."
exit 1
"#;

/// Runs `name` detached and waits until its run is over; returns the run id.
fn run_detached(w: &Path, name: &str) -> i64 {
    let o = ct(w, &["run", "--detach", "--yes", name]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = run_id(&o);
    assert!(
        eventually(|| run_row(w, id)["status"] != "running"),
        "run {id} did not end"
    );
    id
}

fn problems_json(w: &Path, args: &[&str]) -> Value {
    let mut all = vec!["problems", "--json"];
    all.extend_from_slice(args);
    let o = ct(w, &all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn workspace(name: &str) -> PathBuf {
    let w = support::workspace("problems", name);
    executable(&w, "build.sh", BUILD);
    w
}

#[test]
fn a_rustc_and_a_tsc_error_of_a_real_run_are_two_problems_with_their_file_and_line() {
    let w = workspace("rustc-tsc");
    let id = run_detached(&w, "build.sh");
    let v = problems_json(&w, &[]);
    assert_eq!(v["run"]["runId"], id);
    assert_eq!(v["run"]["status"], "failed");
    let ps = v["problems"].as_array().unwrap();
    assert_eq!(ps.len(), 2, "{v:#}");
    let at = |p: &Value| {
        (
            p["file"].as_str().unwrap().to_string(),
            p["line"].as_u64().unwrap(),
            p["column"].as_u64(),
            p["severity"].as_str().unwrap().to_string(),
            p["source"].as_str().unwrap().to_string(),
        )
    };
    assert_eq!(
        at(&ps[0]),
        (
            "src/main.rs".into(),
            2,
            Some(18),
            "error".into(),
            "rustc".into()
        )
    );
    assert_eq!(
        at(&ps[1]),
        (
            "src/index.ts".into(),
            3,
            Some(7),
            "error".into(),
            "tsc".into()
        )
    );
    assert_eq!(ps[0]["message"], "mismatched types");
    assert_eq!(ps[0]["code"], "E0308");
    assert_eq!(ps[1]["code"], "TS2322");
    assert_eq!(ps[0]["path"], w.join("src/main.rs").to_str().unwrap());
    assert_eq!(ps[0]["outputLine"], 3);
    assert_eq!(ps[0].get("outsideRoot"), None);

    // The same run by its id and by its command's name; as text, one line a problem.
    assert_eq!(problems_json(&w, &[&id.to_string()]), v);
    assert_eq!(problems_json(&w, &["build.sh"]), v);
    let o = ct(&w, &["problems", &id.to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "src/main.rs:2:18: error: mismatched types [E0308]\n\
         src/index.ts:3:7: error: Type 'string' is not assignable to type 'number'. [TS2322]\n"
    );
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "run {id} (`build.sh`, failed): 2 errors, 0 warnings"
        )),
        "{err}"
    );
}

#[test]
fn a_run_without_a_log_or_no_run_at_all_says_why() {
    let w = workspace("no-log");
    let o = ct(&w, &["problems"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no run with a log yet"),
        "{}",
        stderr(&o)
    );
    // A foreground run's output went to its terminal.
    let o = ct(&w, &["run", "--yes", "build.sh"]);
    assert_eq!(o.status.code(), Some(1));
    let id = runs(&w)[0]["runId"].as_i64().unwrap();
    let o = ct(&w, &["problems", &id.to_string()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("foreground mode"), "{}", stderr(&o));
    let o = ct(&w, &["problems", "build.sh"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no run of `build.sh` with a log yet"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_workspace_adds_patterns_and_hears_about_a_bad_one() {
    let w = workspace("patterns");
    write(
        &w,
        ".commandtree/config.toml",
        r#"
[[problems.patterns]]
name = "checker"
regex = '^(?P<severity>WARN|ERROR) (?P<file>[^:]+):(?P<line>\d+) (?P<message>.*)$'

[[problems.patterns]]
name = "broken"
regex = '^(?P<file>[^:]+:(?P<line>\d+)'
"#,
    );
    executable(
        &w,
        "check.sh",
        "#!/bin/sh\necho 'WARN lib/a.x:4 something odd'\necho 'src/b.c:1:2: error: built-in'\n",
    );
    run_detached(&w, "check.sh");
    let o = ct(&w, &["problems", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("[[problems.patterns]] #2 (`broken`): the regex does not compile"),
        "{err}"
    );
    // A workspace may set problem patterns without `ct trust`: nothing else was ignored.
    assert!(!err.contains("ignored"), "{err}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let got: Vec<String> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}:{} {} {} ({})",
                p["file"].as_str().unwrap(),
                p["line"],
                p["severity"].as_str().unwrap(),
                p["message"].as_str().unwrap(),
                p["source"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "lib/a.x:4 warning something odd (checker)",
            "src/b.c:1 error built-in (gcc)"
        ]
    );
}

#[test]
fn open_runs_the_users_editor_at_the_line_and_text_reaches_the_terminal_cleaned() {
    let w = workspace("open");
    executable(
        &w,
        "odd.sh",
        "#!/bin/sh\nprintf 'src/a.c:1:2: warning: bell\\007 and \\342\\200\\256 override\\n'\nprintf '/elsewhere/b.c:3:4: error: outside\\n'\n",
    );
    run_detached(&w, "odd.sh");
    let o = ct(&w, &["problems"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "src/a.c:1:2: warning: bell\\x07 and \\u{202e} override\n\
         /elsewhere/b.c:3:4: error: outside (outside the workspace)\n"
    );
    let editor = executable(
        &w,
        ".home/editor.sh",
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$HOME/opened\"\n",
    );
    let editor = editor.to_str().unwrap();
    // What the editor was given to open the Nth problem, with these variables.
    let opened = |vars: &[(&str, &str)], n: &str| {
        let o = ct_with(&w, vars, &["problems", "--open", n]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(w.join(".home/opened")).unwrap()
    };
    assert_eq!(
        opened(&[("EDITOR", editor), ("VISUAL", "")], "1"),
        format!("+1\n{}\n", w.join("src/a.c").display())
    );
    // $VISUAL first; a number past the end is a usage error.
    let opened = opened(&[("VISUAL", editor), ("EDITOR", "false")], "2");
    assert_eq!(opened, "+3\n/elsewhere/b.c\n");
    let o = ct_with(&w, &[("EDITOR", editor)], &["problems", "--open", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("there is no problem 3"),
        "{}",
        stderr(&o)
    );
}

const MAKEFILE: &str = "build: gen lint\n\t@echo build\n\ngen:\n\t@echo gen\n\nlint: gen\n\t@echo lint\n\nloop: loop\n\t@echo loop\n";
const PACKAGE: &str = r#"{"scripts": {
  "ci": "make build",
  "release": "npm run ci && npm run publish-all",
  "pretest": "npm run ci",
  "test": "echo test"
}}"#;

fn deps_json(w: &Path, name: &str) -> Value {
    let o = ct(w, &["deps", name, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `label (how)` of each link, indented by its depth.
fn tree(links: &Value) -> Vec<String> {
    links
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            format!(
                "{}{} ({})",
                "  ".repeat(l["via"].as_array().unwrap().len()),
                l["label"].as_str().unwrap(),
                l["how"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn deps_of_make_prerequisites_and_npm_scripts() {
    let w = support::workspace("deps", "make-npm");
    write(&w, "Makefile", MAKEFILE);
    write(&w, "package.json", PACKAGE);

    let build = deps_json(&w, "make:build");
    assert_eq!(
        build["command"]["id"],
        format!("make:{}:build", w.join("Makefile").display())
    );
    assert_eq!(build["command"]["type"], "make");
    assert_eq!(
        tree(&build["runs"]),
        ["gen (prerequisite)", "lint (prerequisite)"]
    );
    let gen_deps = deps_json(&w, "make:gen");
    assert_eq!(gen_deps["runs"], serde_json::json!([]));
    // `npm run ci` runs `make build`, so what runs build runs gen too.
    assert_eq!(
        tree(&gen_deps["runBy"]),
        [
            "build (prerequisite)",
            "  ci (call)",
            "    release (call)",
            "    pretest (call)",
            "      test (hook)",
            "lint (prerequisite)"
        ]
    );
    let lp = deps_json(&w, "loop");
    assert_eq!(lp["cycles"], serde_json::json!([["loop", "loop"]]));

    let release = deps_json(&w, "release");
    assert_eq!(
        tree(&release["runs"]),
        [
            "ci (call)",
            "  build (call)",
            "    gen (prerequisite)",
            "    lint (prerequisite)"
        ]
    );
    assert_eq!(release["unresolved"][0]["name"], "publish-all");
    assert_eq!(release["unresolved"][0]["how"], "call");
    assert_eq!(
        tree(&deps_json(&w, "npm:ci")["runBy"]),
        ["release (call)", "pretest (call)", "  test (hook)"]
    );

    let o = ct(&w, &["deps", "make:gen"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "gen (make)  Makefile:4\nruns:\n  nothing by itself\nrun by:\n  build (make, prerequisite)  Makefile:1\n    ci (npm, call)  package.json:2\n      release (npm, call)  package.json:3\n      pretest (npm, call)  package.json:4\n        test (npm, hook)  package.json:5\n  lint (make, prerequisite)  Makefile:7\n"
    );
    let o = ct(&w, &["deps", "release"]);
    assert!(
        stdout(&o).contains("  publish-all (call): names no command found here\n"),
        "{}",
        stdout(&o)
    );
    let o = ct(&w, &["deps", "nothing-here"]);
    assert_eq!(o.status.code(), Some(1));
}

/// `make build` in an npm script is a step once the npm source records a script's `make`
/// calls (the Makefile beside the package.json); until then the script runs nothing found.
#[test]
fn an_npm_script_calling_make_runs_the_target_and_its_prerequisites() {
    let w = support::workspace("deps", "npm-make");
    write(&w, "Makefile", MAKEFILE);
    write(&w, "package.json", PACKAGE);
    // Labels by depth only: how the npm source will call the step is its own business.
    let labels = |links: &Value| -> Vec<String> {
        tree(links)
            .iter()
            .map(|l| l[..l.rfind(" (").unwrap()].to_string())
            .collect()
    };
    assert_eq!(
        labels(&deps_json(&w, "npm:ci")["runs"]),
        ["build", "  gen", "  lint"]
    );
    assert_eq!(
        labels(&deps_json(&w, "make:gen")["runBy"]),
        [
            "build",
            "  ci",
            "    release",
            "    pretest",
            "      test",
            "lint"
        ]
    );
}
