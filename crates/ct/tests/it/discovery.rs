//! End-to-end: the built `ct` on a generated workspace, checking the JSON contract and that bad
//! input (malformed, binary, huge, CRLF, BOM, symlink loops, unreadable folders) never hides
//! other commands.

use crate::support::{Workspace, chmod, have, labelled, labels};
use serde_json::Value;
use std::process::Command;

fn fixture() -> Workspace {
    let w = Workspace::new()
        .executable(
            "scripts/deploy prod.sh",
            "#!/usr/bin/env bash\n# @description Deploy the app to production\n# @param env Target environment (default: staging)\n# @param force\necho deploying\n",
        )
        .file("scripts/build.sh", "#!/bin/sh\n# Build everything\nmake all\n")
        .executable("tools/release", "#!/usr/bin/env bash\n# Cut a release\n")
        .file(
            "tools/migrate.py",
            "\"\"\"Database migration tool.\"\"\"\nimport argparse\nif __name__ == \"__main__\":\n    pass\n",
        )
        .file("tools/lib.py", "def helper():\n    pass\n")
        .file(
            "package.json",
            r#"{"name":"demo","scripts":{"zeta":"echo z","alpha":"echo a","build":"tsc -p . && node scripts/bundle.js --minify --sourcemap --target es2020"}}"#,
        )
        .file("pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
        .file("node_modules/left-pad/package.json", r#"{"scripts":{"hidden":"x"}}"#)
        .file("bad/package.json", "{\n  \"scripts\": {\n    \"oops\": \n}\n")
        .file("bom/package.json", "\u{feff}{\"scripts\":{\"bom-ok\":\"echo bom\"}}")
        .file(
            "Makefile",
            "CC := gcc\nVERSION ?= 1.0\nURL = http://x:y\n.PHONY: all test\n\nall: build ## Build everything\n\tcc main.c\n\nbuild test: deps\n\techo hi\n\n%.o: %.c\n\tcc $<\n\ndefine TEMPLATE\nfake: target\nendef\n\n_private:\n\techo p\n",
        )
        .file("crlf/Makefile", "one:\r\n\techo 1\r\ntwo: one\r\n\techo 2\r\n")
        .file(
            ".vscode/tasks.json",
            "{\n  // tasks\n  \"version\": \"2.0.0\",\n  \"tasks\": [\n    { \"label\": \"serve\", \"type\": \"shell\", \"command\": \"serve ${input:port}\", \"detail\": \"Serve the site\" },\n    { \"type\": \"npm\", \"script\": \"build\" },\n  ],\n  \"inputs\": [ { \"id\": \"port\", \"type\": \"promptString\", \"description\": \"Port\", \"default\": \"8080\" } ]\n}\n",
        )
        .file(
            ".vscode/launch.json",
            "{\n  \"configurations\": [\n    /* main */ { \"name\": \"Debug app\", \"type\": \"node\", \"request\": \"launch\" },\n  ],\n}\n",
        )
        .file(
            "docker-compose.yml",
            "services:\n  web:\n    image: nginx\n  db:\n    image: postgres\n",
        )
        .file(
            "app/App.csproj",
            "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><OutputType>Exe</OutputType></PropertyGroup></Project>",
        )
        .file(
            "app/App.Tests.csproj",
            "<Project Sdk=\"Microsoft.NET.Sdk\"><ItemGroup><PackageReference Include=\"xunit\" Version=\"2.0\" /></ItemGroup></Project>",
        )
        .file("README.md", "# Demo project\n\nText.\n")
        .file("blob.sh", b"\x7fELF\x00\x00binary")
        .file("huge.md", "x".repeat(1024 * 1024 + 10))
        .file(".gitignore", "ignored/\n")
        .file("ignored/secret.sh", "echo no\n")
        .file(
            ".vscode/settings.json",
            "{ \"commandtree.excludePatterns\": [\"**/skipme/**\", \"**/node_modules/**\",], }",
        )
        .file("skipme/x.sh", "echo no\n")
        .file("dist/y.sh", "echo listed because settings replaced the defaults\n");
    std::os::unix::fs::symlink(&w, w.join("loop")).unwrap();
    w
}

/// `ct list --json EXTRA…` (it must succeed): the commands, and what it said on stderr.
fn json_list(w: &Workspace, extra: &[&str]) -> (Vec<Value>, String) {
    let o = w.ct().args(["list", "--json"]).args(extra).run().success();
    (o.json().as_array().unwrap().clone(), o.stderr())
}

fn find<'a>(items: &'a [Value], kind: &str, label: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["type"] == kind && i["label"] == label)
        .unwrap_or_else(|| {
            panic!(
                "no {kind} `{label}` in {:#?}",
                items.iter().map(|i| i["id"].clone()).collect::<Vec<_>>()
            )
        })
}

#[test]
fn list_json_on_a_fixture_workspace() {
    let w = fixture();
    let root = w.to_string_lossy().to_string();
    let (items, stderr) = json_list(&w, &[]);

    // Contract fields, camelCase, optional ones omitted when empty.
    let deploy = find(&items, "shell", "deploy prod.sh");
    assert_eq!(
        deploy["id"],
        format!("shell:{root}/scripts/deploy prod.sh:deploy prod.sh")
    );
    assert_eq!(
        deploy["command"],
        format!("\"{root}/scripts/deploy prod.sh\"")
    );
    assert_eq!(deploy["cwd"], format!("{root}/scripts"));
    assert_eq!(deploy["filePath"], format!("{root}/scripts/deploy prod.sh"));
    assert_eq!(deploy["category"], "scripts");
    assert_eq!(deploy["tags"], Value::Array(vec![]));
    assert_eq!(deploy["description"], "Deploy the app to production");
    assert_eq!(deploy["params"][0]["name"], "env");
    assert_eq!(deploy["params"][0]["default"], "staging");
    assert_eq!(deploy["params"][1]["name"], "force");
    assert!(
        deploy["params"][1].get("description").is_none(),
        "@param without text must not swallow the next line"
    );
    assert!(deploy.get("summary").is_none() && deploy.get("line").is_none());
    // Non-executable script: run through its interpreter.
    assert!(
        find(&items, "shell", "build.sh")["command"]
            .as_str()
            .unwrap()
            .ends_with(&format!("\"{root}/scripts/build.sh\""))
    );
    // Extensionless executable with a bash shebang.
    find(&items, "shell", "release");

    // npm: file order, pnpm from the lock file, truncated description, node_modules skipped.
    let npm: Vec<&str> = items
        .iter()
        .filter(|i| i["type"] == "npm" && i["filePath"] == format!("{root}/package.json"))
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(npm.len(), 3);
    assert_eq!(find(&items, "npm", "alpha")["command"], "pnpm run alpha");
    let d = find(&items, "npm", "build")["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(d.chars().count(), 60);
    assert!(d.ends_with("..."));
    assert!(!items.iter().any(|i| i["label"] == "hidden"));
    find(&items, "npm", "bom-ok");

    // make: real targets only, with lines; private demoted (still listed).
    let make: Vec<&str> = items
        .iter()
        .filter(|i| i["type"] == "make" && i["filePath"] == format!("{root}/Makefile"))
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(make, vec!["all", "build", "test", "_private"]);
    assert_eq!(
        find(&items, "make", "all")["description"],
        "Build everything"
    );
    assert_eq!(find(&items, "make", "all")["line"], 6);
    assert!(
        find(&items, "make", "two")["filePath"]
            .as_str()
            .unwrap()
            .ends_with("crlf/Makefile")
    );

    // VS Code tasks and launch configurations: flat categories, JSONC, inputs as params.
    let serve = find(&items, "vscode", "serve");
    assert_eq!(serve["category"], "VS Code Tasks");
    assert_eq!(serve["description"], "Serve the site");
    assert_eq!(serve["params"][0]["name"], "port");
    assert_eq!(serve["params"][0]["default"], "8080");
    find(&items, "vscode", "npm: build");
    assert_eq!(
        find(&items, "launch", "Debug app")["category"],
        "VS Code Launch"
    );

    find(&items, "python", "migrate.py");
    assert!(!items.iter().any(|i| i["label"] == "lib.py"));
    find(&items, "docker", "up web");
    // Two projects in one folder: distinct ids and commands naming the project file.
    let b1 = find(&items, "dotnet", "App: build");
    let b2 = find(&items, "dotnet", "App.Tests: build");
    assert_ne!(b1["id"], b2["id"]);
    assert!(b1["command"].as_str().unwrap().contains("App.csproj"));
    find(&items, "dotnet", "App.Tests: test");
    // Documents are listed only when asked for (`--docs`, `--type markdown` or the setting).
    assert!(!items.iter().any(|i| i["type"] == "markdown"));
    let (docs, _) = json_list(&w, &["--docs"]);
    assert_eq!(
        find(&docs, "markdown", "README.md")["description"],
        "Demo project"
    );
    let (typed, _) = json_list(&w, &["--type", "markdown"]);
    assert!(typed.iter().all(|i| i["type"] == "markdown") && !typed.is_empty());

    // Excluded, ignored and skipped files.
    for label in ["secret.sh", "x.sh", "blob.sh", "huge.md"] {
        assert!(
            !items.iter().any(|i| i["label"] == label),
            "{label} should not be listed"
        );
    }
    // Not excluded (the settings replaced the defaults), but `dist/` is vendored by Linguist's
    // conventions: listed with --all only.
    assert!(!items.iter().any(|i| i["label"] == "y.sh"));
    find(&json_list(&w, &["--all"]).0, "shell", "y.sh");
    assert!(
        stderr.contains("bad/package.json:4: invalid JSON"),
        "{stderr}"
    );
    assert!(stderr.contains("blob.sh: skipped: binary file"), "{stderr}");
    assert!(stderr.contains("huge.md: skipped:"), "{stderr}");

    // Unique ids; tree order: the root's runners first (its Makefile, a dedicated runner, before
    // its package.json scripts), then the categories in upstream order.
    let mut ids: Vec<&str> = items.iter().map(|i| i["id"].as_str().unwrap()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n);
    let last_npm = items.iter().rposition(|i| i["type"] == "npm").unwrap();
    let first_shell = items.iter().position(|i| i["type"] == "shell").unwrap();
    assert_eq!(items[0]["type"], "make");
    let first_npm = items.iter().position(|i| i["type"] == "npm").unwrap();
    assert!(items[..first_npm].iter().all(|i| i["type"] == "make"));
    assert!(last_npm < first_shell);
}

#[test]
fn text_tree_type_filter_and_sorting() {
    let w = fixture();
    let text = w
        .run(["list", "--type", "make", "--sort", "name"])
        .success()
        .stdout_lacks("Shell Scripts")
        // No colour when not a terminal.
        .stdout_lacks("\u{1b}")
        .stdout();
    assert!(text.starts_with("Make Targets (6)\n"), "{text}");
    let pos = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s} missing in {text}"))
    };
    assert!(pos("crlf/") < pos("  all"), "folders before loose commands");
    assert!(pos("  all") < pos("  build") && pos("  test") < pos("  _private (private)"));

    // An unknown type is a usage error.
    w.run(["list", "--type", "nope"]).code(2);
}

#[test]
fn show_by_label_id_and_type_label() {
    let w = fixture();
    let v = w.json(["show", "make:all", "--json"]);
    assert_eq!(v["label"], "all");
    let id = v["id"].as_str().unwrap().to_string();
    w.run(["show", &id]).stdout_has("make all");

    // `build` is an npm script and a make target: ambiguous, candidates listed, exit 2.
    w.run(["-q", "show", "build"])
        .code(2)
        .stderr_has("matches")
        .stderr_has("npm:")
        .stderr_has("make:");

    let none = w.run(["-q", "show", "no-such-thing"]).code(1);
    assert_eq!(none.stderr().lines().count(), 1);
}

#[cfg(unix)]
#[test]
fn unreadable_folder_is_a_warning() {
    let w = Workspace::new()
        .file("ok.sh", "echo ok\n")
        .file("locked/inside.sh", "echo x\n");
    chmod(&w.join("locked"), 0o000);
    // Root reads everything, so drop to an unprivileged user when we are root.
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n")
        .unwrap_or(false);
    let mut ct = w.ct().home("/nonexistent").args(["list", "--json"]);
    if is_root {
        if !have(
            "setpriv",
            "running as root, it makes a folder unreadable; scripts/test.sh installs it",
        ) {
            return;
        }
        ct = ct.via([
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]);
    }
    let out = ct.run();
    chmod(&w.join("locked"), 0o755);
    let out = out
        .success()
        .stderr_has("locked")
        .stderr_has("permission denied");
    let items: Vec<Value> = serde_json::from_slice(&out.output.stdout).unwrap();
    assert!(items.iter().any(|i| i["label"] == "ok.sh"));
}

/// The labels of `items`, sorted.
fn sorted_labels(items: &[Value]) -> Vec<String> {
    let mut v = labels(&Value::Array(items.to_vec()));
    v.sort();
    v
}

#[test]
fn auxiliary_commands_are_listed_only_with_all() {
    let w = Workspace::new()
        .file("Makefile", "build:\n\tcc\n")
        .file("deps/lua/Makefile", "lua:\n\tcc\n")
        .file("pkg/testdata/Makefile", "fixture:\n\tcc\n")
        .file(
            "examples/app/package.json",
            "{\"scripts\": {\"dev\": \"vite\"}}",
        )
        .file(
            "justfile",
            "[private]\nhelper:\n    echo h\n\nrelease:\n    echo r\n",
        );
    let (own, _) = json_list(&w, &[]);
    assert_eq!(sorted_labels(&own), ["build", "release"]);
    let (all, _) = json_list(&w, &["--all"]);
    assert_eq!(
        sorted_labels(&all),
        ["build", "dev", "fixture", "helper", "lua", "release"]
    );
    assert!(all.iter().all(|i| i.get("auxiliary").is_none()));

    w.run(["list"])
        .stdout_has("4 more commands hidden")
        .stdout_has("ct list --all")
        .stdout_lacks("lua");

    w.write(".commandtree/config.toml", "[discovery]\nshow = \"all\"\n");
    let (shown, _) = json_list(&w, &[]);
    assert_eq!(shown.len(), 6);
}

#[test]
fn bin_of_scripts_is_listed_and_build_output_is_not() {
    let w = Workspace::new()
        .executable("bin/setup", "#!/usr/bin/env bash\necho setup\n")
        .file(
            "app/app.csproj",
            "<Project Sdk=\"Microsoft.NET.Sdk\"></Project>",
        )
        .file("app/bin/Debug/net8.0/run.sh", "echo x\n")
        .file("env/tool.sh", "echo tool\n")
        .file("venv2/env/pyvenv.cfg", "home = /usr/bin\n")
        .file("venv2/env/lib/activate.sh", "echo a\n");
    let (items, _) = json_list(&w, &["--type", "shell"]);
    let paths: Vec<&str> = items
        .iter()
        .map(|i| i["filePath"].as_str().unwrap())
        .collect();
    assert!(paths.iter().any(|p| p.ends_with("bin/setup")), "{paths:?}");
    assert!(
        paths.iter().any(|p| p.ends_with("env/tool.sh")),
        "{paths:?}"
    );
    assert!(!paths.iter().any(|p| p.contains("Debug")), "{paths:?}");
    assert!(!paths.iter().any(|p| p.contains("activate")), "{paths:?}");

    w.write(
        ".vscode/settings.json",
        "{\"commandtree.excludePatterns\": [\"**/bin/**\"]}",
    );
    let (items, _) = json_list(&w, &["--type", "shell"]);
    let paths: Vec<&str> = items
        .iter()
        .map(|i| i["filePath"].as_str().unwrap())
        .collect();
    assert!(!paths.iter().any(|p| p.ends_with("bin/setup")), "{paths:?}");
    assert!(!paths.iter().any(|p| p.contains("Debug")), "{paths:?}");
    assert!(
        paths.iter().any(|p| p.contains("activate")),
        "an explicit list replaces the defaults exactly: {paths:?}"
    );
}

#[test]
fn group_filter_lists_just_groups_and_vscode_task_groups() {
    let w = Workspace::new()
        .file(
            "justfile",
            "[group('ci')]\nlint:\n    echo l\n\n[group: 'docs']\nbook:\n    echo b\n\nplain:\n    echo p\n",
        )
        .file(
            ".vscode/tasks.json",
            r#"{"version":"2.0.0","tasks":[
            {"label":"compile","type":"shell","command":"make","group":{"kind":"build","isDefault":true}},
            {"label":"unit","type":"shell","command":"make test","group":"test"},
            {"label":"free","type":"shell","command":"true"}]}"#,
        );
    let (ci, _) = json_list(&w, &["--group", "ci"]);
    assert_eq!(sorted_labels(&ci), ["lint"]);
    let (two, _) = json_list(&w, &["--group", "docs", "--group", "build"]);
    assert_eq!(sorted_labels(&two), ["book", "compile"]);
    let (test, _) = json_list(&w, &["--group", "test"]);
    assert_eq!(sorted_labels(&test), ["unit"]);
    let (all, _) = json_list(&w, &[]);
    assert_eq!(all.len(), 6);
    // The contract gains no field: groups stay out of the JSON.
    assert!(all.iter().all(|i| i.get("group").is_none()));
    w.run(["list", "--group", "nope"])
        .success()
        .stdout_has("No commands in group nope");
}

/// Test fixtures are often broken on purpose: their warnings are hidden with their commands and
/// counted in one line, while a broken file of the project's own is still reported.
#[test]
fn warnings_about_test_data_are_counted_not_printed_unless_all() {
    let w = Workspace::new()
        .file("package.json", "{\"scripts\": {\"build\": ")
        .file("testdata/broken/package.json", "{\"scripts\": ")
        .file("Makefile", "all:\n\techo all\n");

    w.run(["list"])
        .success()
        .stderr_has(w.join("package.json").display().to_string())
        .stderr_lacks("testdata")
        .stderr_has("1 warning about test data, vendored or example files not shown");

    w.run(["list", "--all"])
        .stderr_has("testdata/broken/package.json")
        .stderr_lacks("not shown");
}

/// A big listing (serialized in parallel parts) read whole is one JSON array in tree order;
/// one whose reader stops early (`| head`) ends quietly with success.
#[test]
fn a_big_listing_is_whole_json_and_a_closed_pipe_is_no_error() {
    use std::io::Read;
    let scripts: serde_json::Map<String, Value> = (0..6000)
        .map(|i| (format!("s{i:04}"), Value::from(format!("echo {i}"))))
        .collect();
    let w = Workspace::new().file(
        "package.json",
        serde_json::json!({"name": "big", "scripts": scripts}).to_string(),
    );
    let (items, _) = json_list(&w, &[]);
    let want: Vec<String> = (0..6000).map(|i| format!("s{i:04}")).collect();
    assert_eq!(labels(&Value::Array(items)), want);

    let mut child = w.ct().args(["list", "--json"]).spawn();
    let mut head = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // The read end is closed now; ct is still writing hundreds of kilobytes.
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(head.starts_with(b"[{"));
}

/// A folder with one command is not drawn as a folder, but its path stays on the command.
#[test]
fn a_single_command_folder_keeps_its_path_in_the_listing() {
    Workspace::new()
        .executable("scripts/deploy/only.sh", "#!/bin/sh\necho a\n")
        .executable("tools/x.sh", "#!/bin/sh\necho b\n")
        .executable("tools/y.sh", "#!/bin/sh\necho c\n")
        .run(["list"])
        .stdout_has("only.sh (scripts/deploy/)")
        .stdout_has("  tools/\n    x.sh\n");
}

#[test]
fn the_listing_shows_parameters_and_dockerfiles_apart() {
    let w = Workspace::new()
        .file(
            "justfile",
            "replace FROM TO:\n  echo {{FROM}} {{TO}}\n\nwatch +args='lcheck':\n  echo {{args}}\n\ndeploy env='staging':\n  echo {{env}}\n",
        )
        .file("svc/Dockerfile", "FROM alpine\n")
        .file("compose.yaml", "services:\n  web:\n    image: nginx\n");
    let out = w
        .run(["list"])
        .stdout_has("  replace FROM TO\n")
        .stdout_has("  watch [args…=lcheck]\n")
        .stdout_has("  deploy [env=staging]\n")
        .stdout();
    let compose = out.find("Docker Compose (").expect(&out);
    let dockerfiles = out.find("Dockerfiles (1)").expect(&out);
    assert!(compose < dockerfiles, "{out}");
    assert!(
        !out[compose..dockerfiles].contains("build Dockerfile"),
        "{out}"
    );
    // The JSON keeps the contract: the type stays `docker`, parameters as `params`.
    let items = w.run(["list", "--json"]).json();
    assert_eq!(labelled(&items, "build Dockerfile")["type"], "docker");
    let replace = labelled(&items, "replace");
    assert_eq!(replace["params"][0]["name"], "FROM");
    assert_eq!(replace["params"][1]["name"], "TO");
}
