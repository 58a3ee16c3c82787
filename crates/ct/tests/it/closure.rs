//! The closure of a command is what is analysed and gated, through the real `ct`: a command
//! defined in an included file (make `include`, just `import`/`mod`, an included Taskfile, a
//! mise include) carries the warning of its own text, and a command whose runner executes a
//! dangerous step by itself (make prerequisites and `$(MAKE) x`, just dependencies and
//! `just x`, `npm run x`, Taskfile `deps` and `task:` calls, mise `depends`) carries that
//! step's warning and is not run without a confirmation. The dangerous step is `rm -rf ~/x`,
//! with `HOME` inside the workspace: a marker file in `~/x` surviving proves nothing ran.

use crate::support::{Workspace, have};

/// A workspace whose `~/x/keep` (under `HOME` = `.home`) is what `rm -rf ~/x` would delete.
fn workspace() -> Workspace {
    Workspace::new().file(".home/x/keep", "still here\n")
}

fn kept(w: &Workspace) -> bool {
    w.join(".home/x/keep").exists()
}

/// Each command's `securityWarning` from `ct list --json`, by id name (the part after the file).
fn warnings(w: &Workspace) -> Vec<(String, Option<String>)> {
    w.json(["list", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let id = c["id"].as_str().unwrap();
            let file = c["filePath"].as_str().unwrap();
            let kind = c["type"].as_str().unwrap();
            let name = id[kind.len() + 1 + file.len() + 1..].to_string();
            (name, c["securityWarning"].as_str().map(str::to_string))
        })
        .collect()
}

#[track_caller]
fn warning_of(w: &Workspace, name: &str) -> String {
    let all = warnings(w);
    all.iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no `{name}` in {all:?}"))
        .1
        .clone()
        .unwrap_or_else(|| panic!("`{name}` has no securityWarning: {all:?}"))
}

/// `ct run NAME` with stdin closed and no `--yes`: refused, saying why, and nothing ran.
#[track_caller]
fn refused(w: &Workspace, name: &str, why: &[&str]) {
    let o = w
        .run(["run", name])
        .code(1)
        .stderr_has("has a security warning")
        .stderr_has("--yes");
    why.iter().fold(o, |o, reason| o.stderr_has(reason));
    assert!(kept(w), "`{name}` ran: ~/x is gone");
}

#[test]
fn make_targets_of_an_included_file_are_warned_and_gated() {
    let w = workspace()
        .file("Makefile", "include mk/tools.mk\n\nhello:\n\t@echo hello\n")
        .file("mk/tools.mk", "# Tools\nclean:\n\trm -rf ~/x\n");
    let clean = warning_of(&w, "clean");
    assert!(clean.contains("rm -rf ~/x"), "{clean}");
    assert!(warnings(&w).contains(&("hello".into(), None)));
    refused(&w, "clean", &["rm -rf ~/x"]);
    // The recipe is real: confirmed, it runs and deletes.
    if have("make", "scripts/test.sh installs it") {
        w.run(["run", "clean", "--yes"]).success();
        assert!(!kept(&w));
    }
}

#[test]
fn make_prerequisites_and_recursive_make_carry_the_steps_warning() {
    let w = workspace().file(
        "Makefile",
        "build: clean\n\t@echo built\n\nclean:\n\trm -rf ~/x\n\nrelease:\n\t$(MAKE) clean\n\nall: build\n",
    );
    let build = warning_of(&w, "build");
    assert!(
        build.starts_with("Caution: runs `clean`, which deletes ~/x"),
        "{build}"
    );
    let release = warning_of(&w, "release");
    assert!(release.contains("runs `clean`"), "{release}");
    let all = warning_of(&w, "all");
    assert!(all.contains("runs `clean` (through `build`)"), "{all}");
    refused(&w, "build", &["runs `clean`", "rm -rf ~/x"]);
    refused(&w, "release", &["runs `clean`"]);
    refused(&w, "all", &["runs `clean`"]);
    // Confirmed, `build` really runs `clean` first.
    if have("make", "scripts/test.sh installs it") {
        w.run(["run", "build", "--yes"]).success();
        assert!(!kept(&w));
    }
}

#[test]
fn just_imports_modules_dependencies_and_calls() {
    let w = workspace()
        .file(
            "justfile",
            "import 'tools.just'\nmod ops\n\nbuild: clean\n    echo built\n\ndeploy:\n    just ops wipe\n\nsafe:\n    echo safe\n",
        )
        .file("tools.just", "# Wipe the cache\nclean:\n    rm -rf ~/x\n")
        .file("ops.just", "wipe:\n    rm -rf ~/x\n");
    for name in ["clean", "ops::wipe"] {
        let warning = warning_of(&w, name);
        assert!(warning.contains("rm -rf ~/x"), "{name}: {warning}");
    }
    assert!(warning_of(&w, "build").contains("runs `clean`, which deletes ~/x"));
    assert!(warning_of(&w, "deploy").contains("runs `ops::wipe`"));
    assert!(warnings(&w).contains(&("safe".into(), None)));
    refused(&w, "clean", &["rm -rf ~/x"]);
    refused(&w, "build", &["runs `clean`"]);
    refused(&w, "deploy", &["runs `ops::wipe`"]);
}

#[test]
fn included_taskfile_tasks_deps_and_task_calls() {
    let w = workspace()
        .file(
            "Taskfile.yml",
            "version: '3'\nincludes:\n  tools: ./tools.yml\ntasks:\n  build:\n    deps: [tools:clean]\n    cmds: [echo built]\n  release:\n    cmds:\n      - echo releasing\n      - task: tools:clean\n",
        )
        .file(
            "tools.yml",
            "version: '3'\ntasks:\n  clean:\n    cmds:\n      - rm -rf ~/x\n",
        );
    assert!(warning_of(&w, "tools:clean").contains("rm -rf ~/x"));
    assert!(warning_of(&w, "build").contains("runs `tools:clean`"));
    assert!(warning_of(&w, "release").contains("runs `tools:clean`"));
    refused(&w, "tools:clean", &["rm -rf ~/x"]);
    refused(&w, "build", &["runs `tools:clean`"]);
    refused(&w, "release", &["runs `tools:clean`"]);
}

#[test]
fn mise_depends_on_a_task_of_an_included_file() {
    let w = workspace()
        .file(
            "mise.toml",
            "[task_config]\nincludes = [\"tasks.toml\"]\n\n[tasks.build]\ndepends = [\"clean\"]\nrun = \"echo built\"\n\n[tasks.ci]\nrun = [{ task = \"build\" }]\n",
        )
        .file("tasks.toml", "[clean]\nrun = \"rm -rf ~/x\"\n");
    assert!(warning_of(&w, "clean").contains("rm -rf ~/x"));
    assert!(warning_of(&w, "build").contains("runs `clean`"));
    assert!(warning_of(&w, "ci").contains("runs `clean` (through `build`)"));
    refused(&w, "build", &["runs `clean`"]);
    refused(&w, "ci", &["runs `clean`"]);
}

#[test]
fn npm_scripts_that_run_other_scripts_and_hooks() {
    let w = workspace().file(
        "package.json",
        r#"{"name": "w", "private": true, "scripts": {
  "build": "npm run clean && tsc",
  "clean": "rm -rf ~/x",
  "pretest": "npm run clean",
  "test": "echo tested",
  "lint": "eslint ."
}}"#,
    );
    assert!(warning_of(&w, "build").contains("runs `clean`"));
    // `npm test` runs `pretest` first, which runs `clean`.
    assert!(warning_of(&w, "test").contains("runs `clean` (through `pretest`)"));
    assert!(warnings(&w).contains(&("lint".into(), None)));
    refused(&w, "build", &["runs `clean`"]);
    refused(&w, "npm:test", &["runs `clean`"]);
}

#[test]
fn cycles_end_and_unresolved_steps_are_shown() {
    let w = workspace().file(
        "Makefile",
        "a: b\n\t@echo a\n\nb: a\n\t@echo b\n\nc:\n\t$(MAKE) nothere\n",
    );
    let all = warnings(&w);
    assert!(all.iter().all(|(_, warning)| warning.is_none()), "{all:?}");
    // Not warnings: nothing to confirm, but said before the run.
    w.run(["run", "a", "--dry-run"]).success();
    w.run(["run", "a"])
        .stderr_has("its steps run each other in a cycle (`a` → `b` → `a`)");
    w.run(["run", "c"])
        .stderr_has("runs `nothere`, which is not a command CommandTree found");
}

#[test]
fn show_lists_the_steps_a_command_pulls_in_and_its_cycles() {
    let w = workspace()
        .file("tools.mk", "clean:\n\trm -rf ~/x\n")
        .file(
            "Makefile",
            "include tools.mk\nbuild: clean gen.o\n\techo build\n\t$(MAKE) lint\nlint: build\n\techo lint\n",
        );
    let out = w.run(["show", "build"]).success().stdout();
    let line = |start: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no line starting with `{start}`:\n{out}"))
            .trim()
            .to_string()
    };
    assert_eq!(line("steps"), "steps        clean (make, prerequisite) ⚠");
    assert_eq!(line("lint"), "lint (make, call)");
    assert_eq!(line("cycle"), "cycle        build > lint > build");
    // A prerequisite that may be a plain file is not a step anyone must check.
    assert!(!out.contains("gen.o"), "{out}");
    assert!(kept(&w));
}
