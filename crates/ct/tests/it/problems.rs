//! Through the real `ct`: `ct problems` reads the log of a real detached run (a script printing
//! a rustc and a tsc error) into problems with their file and line, as text and JSON, with the
//! workspace's own patterns, and opens one in `$EDITOR`; `ct deps` shows what a command runs
//! and what runs it on a Makefile with prerequisites and npm scripts.

use crate::support::{Workspace, eventually};
use serde_json::Value;

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
fn run_detached(w: &Workspace, name: &str) -> i64 {
    let id = w.run(["run", "--detach", "--yes", name]).success().run_id();
    assert!(
        eventually(|| w.run_row(id)["status"] != "running"),
        "run {id} did not end"
    );
    id
}

fn problems_json(w: &Workspace, args: &[&str]) -> Value {
    w.ct()
        .args(["problems", "--json"])
        .args(args)
        .run()
        .success()
        .json()
}

fn workspace() -> Workspace {
    Workspace::new().executable("build.sh", BUILD)
}

#[test]
fn a_rustc_and_a_tsc_error_of_a_real_run_are_two_problems_with_their_file_and_line() {
    let w = workspace();
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
    w.run(["problems", &id.to_string()])
        .success()
        .stdout_is(
            "src/main.rs:2:18: error: mismatched types [E0308]\n\
             src/index.ts:3:7: error: Type 'string' is not assignable to type 'number'. [TS2322]\n",
        )
        .stderr_has(format!(
            "run {id} (`build.sh`, failed): 2 errors, 0 warnings"
        ));
}

#[test]
fn a_run_without_a_log_or_no_run_at_all_says_why() {
    let w = workspace();
    w.run(["problems"])
        .code(1)
        .stderr_has("no run with a log yet");
    // A foreground run's output went to its terminal.
    w.run(["run", "--yes", "build.sh"]).code(1);
    let id = w.runs()[0]["runId"].as_i64().unwrap();
    w.run(["problems", &id.to_string()])
        .code(1)
        .stderr_has("foreground mode");
    w.run(["problems", "build.sh"])
        .code(1)
        .stderr_has("no run of `build.sh` with a log yet");
}

#[test]
fn the_workspace_adds_patterns_and_hears_about_a_bad_one() {
    let w = workspace();
    w.write(
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
    w.write_executable(
        "check.sh",
        "#!/bin/sh\necho 'WARN lib/a.x:4 something odd'\necho 'src/b.c:1:2: error: built-in'\n",
    );
    run_detached(&w, "check.sh");
    let v = w
        .run(["problems", "--json"])
        .success()
        .stderr_has("[[problems.patterns]] #2 (`broken`): the regex does not compile")
        // A workspace may set problem patterns without `ct trust`: nothing else was ignored.
        .stderr_lacks("ignored")
        .json();
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
    let w = workspace();
    w.write_executable(
        "odd.sh",
        "#!/bin/sh\nprintf 'src/a.c:1:2: warning: bell\\007 and \\342\\200\\256 override\\n'\nprintf '/elsewhere/b.c:3:4: error: outside\\n'\n",
    );
    run_detached(&w, "odd.sh");
    w.run(["problems"]).success().stdout_is(
        "src/a.c:1:2: warning: bell\\x07 and \\u{202e} override\n\
         /elsewhere/b.c:3:4: error: outside (outside the workspace)\n",
    );
    let editor = w.write_executable(
        ".home/editor.sh",
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$HOME/opened\"\n",
    );
    let editor = editor.to_str().unwrap();
    // What the editor was given to open the Nth problem, with these variables.
    let opened = |vars: &[(&str, &str)], n: &str| {
        w.ct()
            .envs(vars.iter().copied())
            .args(["problems", "--open", n])
            .run()
            .success();
        w.read(".home/opened")
    };
    assert_eq!(
        opened(&[("EDITOR", editor), ("VISUAL", "")], "1"),
        format!("+1\n{}\n", w.join("src/a.c").display())
    );
    // $VISUAL first; a number past the end is a usage error.
    let opened = opened(&[("VISUAL", editor), ("EDITOR", "false")], "2");
    assert_eq!(opened, "+3\n/elsewhere/b.c\n");
    w.ct()
        .env("EDITOR", editor)
        .args(["problems", "--open", "3"])
        .run()
        .code(2)
        .stderr_has("there is no problem 3");
}

const MAKEFILE: &str = "build: gen lint\n\t@echo build\n\ngen:\n\t@echo gen\n\nlint: gen\n\t@echo lint\n\nloop: loop\n\t@echo loop\n";
const PACKAGE: &str = r#"{"scripts": {
  "ci": "make build",
  "release": "npm run ci && npm run publish-all",
  "pretest": "npm run ci",
  "test": "echo test"
}}"#;

fn deps_json(w: &Workspace, name: &str) -> Value {
    w.json(["deps", name, "--json"])
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
    let w = Workspace::new()
        .file("Makefile", MAKEFILE)
        .file("package.json", PACKAGE);

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
    // An npm script's `make build` is a step: its callers run `gen` too, through `build`.
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

    w.run(["deps", "make:gen"]).success().stdout_is(
        "gen (make)  Makefile:4\nruns:\n  nothing by itself\nrun by:\n  build (make, prerequisite)  Makefile:1\n    ci (npm, call)  package.json:2\n      release (npm, call)  package.json:3\n      pretest (npm, call)  package.json:4\n        test (npm, hook)  package.json:5\n  lint (make, prerequisite)  Makefile:7\n",
    );
    w.run(["deps", "release"])
        .stdout_has("  publish-all (call): names no command found here\n");
    w.run(["deps", "nothing-here"]).code(1);
}

/// `make build` in an npm script is a step: the npm source records a script's `make` calls (the
/// Makefile beside the package.json).
#[test]
fn an_npm_script_calling_make_runs_the_target_and_its_prerequisites() {
    let w = Workspace::new()
        .file("Makefile", MAKEFILE)
        .file("package.json", PACKAGE);
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
