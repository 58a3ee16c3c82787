//! `ct lsp` spoken to as an editor does: the built binary on a scratch workspace, LSP framing
//! over its stdin and stdout, answers checked against the protocol document and against what
//! the CLI (`ct list`, `ct quick`, `ct show`) sees in the same database. The LLM is a loopback
//! HTTP server (the llm crate's test server), the only part that cannot be real here.

use crate::llm;
use crate::support::lsp::Lsp;
use crate::support::{self, Workspace, eventually, labelled};
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

/// `ct lsp ARGS` started in `w` (no `--root`: the client's `initialize` names the root), with
/// `vars` in its environment.
fn start_args(w: &Workspace, vars: &[(&str, &str)], args: &[&str]) -> Lsp {
    Lsp::spawn(
        w.ct()
            .no_root()
            .current_dir(w)
            .arg("lsp")
            .args(args)
            .envs(vars.iter().copied()),
    )
}

fn start(w: &Workspace, vars: &[(&str, &str)]) -> Lsp {
    start_args(w, vars, &[])
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("an array: {v}"))
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// Scripts, npm scripts, a make target, a VS Code task and launch configuration, and two
/// auxiliary commands (test data, a nested example) that are hidden by default.
fn fixture() -> Workspace {
    Workspace::new()
        .executable("scripts/hello.sh", "#!/bin/sh\necho \"hello $1\"\n")
        .executable(
            "scripts/mark.sh",
            "#!/bin/sh\n# Writes a marker file.\necho ran > \"$1\"\n",
        )
        .file(
            "package.json",
            r#"{"name": "f", "scripts": {"build": "tsc", "test": "jest", "lint": "eslint ."}}"#,
        )
        .file("Makefile", "all:\n\techo all\n\nclean:\n\trm -rf out\n")
        .file(
            ".vscode/tasks.json",
            r#"{"version": "2.0.0", "tasks": [{"label": "compile", "type": "shell", "command": "echo compiling"}]}"#,
        )
        .file(
            ".vscode/launch.json",
            r#"{
  // A comment, as VS Code allows.
  "version": "0.2.0",
  "configurations": [
    {"name": "Run app", "type": "node", "request": "launch", "program": "${workspaceFolder}/app.js", "args": ["--port", "3000"]}
  ]
}"#,
        )
        .file("app.js", "console.log('app')\n")
        .executable("testdata/t.sh", "#!/bin/sh\necho t\n")
        .file(
            "examples/app/package.json",
            r#"{"scripts": {"start": "node ."}}"#,
        )
}

#[test]
fn initialize_discover_tree_show_and_the_error_codes() {
    let w = fixture();
    let mut s = start(&w, &[]);
    // Before initialize: LSP's "server not initialized".
    s.fails_with(-32002, "commandtree/quick", json!({}));

    let init = s.initialize(&w, json!({}), false);
    assert_eq!(init["workspaceRoot"], json!(w.root()));
    assert_eq!(init["serverInfo"]["name"], "commandtree");
    let caps = &init["capabilities"]["experimental"]["commandtree"];
    assert_eq!(caps["tasksChangedDelta"], false, "not asked for: {caps}");
    assert!(
        caps["methods"]
            .as_array()
            .unwrap()
            .contains(&json!("commandtree/plan"))
    );
    // A second initialize is refused.
    s.fails_with(-32600, "initialize", json!({"capabilities": {}}));

    // The same commands as `ct list --json`, in the same order; hidden ones only with `all`.
    let found = s.ok(
        "commandtree/discoverTasks",
        json!({"workspaceRoot": w.to_str().unwrap()}),
    );
    let listed = w.json(["list", "--json"]);
    assert_eq!(ids(&found["tasks"]), ids(&listed));
    assert_eq!(found["hidden"], 2, "{found}");
    assert!(found.get("warnings").is_none(), "{found}");
    let hello = labelled(&found["tasks"], "hello.sh");
    assert_eq!(hello["type"], "shell");
    assert_eq!(hello["filePath"], json!(w.join("scripts/hello.sh")));
    assert_eq!(hello["tags"], json!([]));
    for absent in ["summary", "securityWarning", "params", "auxiliary"] {
        assert!(hello.get(absent).is_none(), "{absent} in {hello}");
    }
    let everything = s.ok(
        "commandtree/discoverTasks",
        json!({"workspaceRoot": format!("file://{}", w.display()), "all": true}),
    );
    assert_eq!(
        ids(&everything["tasks"]),
        ids(&w.json(["list", "--json", "--all"]))
    );
    assert_eq!(
        everything["tasks"].as_array().unwrap().len(),
        listed.as_array().unwrap().len() + 2
    );

    // Roots: missing, another folder inside, and outside.
    s.fails_with(
        -32000,
        "commandtree/discoverTasks",
        json!({"workspaceRoot": w.join("nope").to_str().unwrap()}),
    );
    let e = s.fails_with(
        -32000,
        "commandtree/discoverTasks",
        json!({"workspaceRoot": w.join("scripts").to_str().unwrap()}),
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("one server per workspace folder")
    );
    let e = s.fails_with(
        -32602,
        "commandtree/discoverTasks",
        json!({"workspaceRoot": std::env::temp_dir().to_str().unwrap()}),
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("outside the workspace root")
    );
    let e = s.fails_with(-32602, "commandtree/discoverTasks", json!({}));
    assert!(
        e["message"].as_str().unwrap().contains("workspaceRoot"),
        "{e}"
    );

    // The tree: the root's runners first (a dedicated runner before package.json scripts),
    // then type order, with counts, folders, commands.
    let tree = s.ok("commandtree/tree", json!({}));
    let cats = tree["categories"].as_array().unwrap();
    let types: Vec<&str> = cats.iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["make", "npm", "shell", "launch", "vscode"],
        "{tree}"
    );
    assert_eq!(cats[1]["label"], "NPM Scripts");
    assert_eq!(cats[1]["count"], 3);
    assert!(
        cats[1]["children"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["kind"] == "command")
    );
    assert_eq!(tree["hidden"], 2);
    s.fails_with(-32602, "commandtree/tree", json!({"sort": "size"}));
    let by_tag = s.ok("commandtree/tree", json!({"tag": "nobody"}));
    assert_eq!(by_tag["categories"], json!([]));
    assert!(
        by_tag["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no tag named `nobody`")
    );

    // show: by id, by type:label; not found with suggestions; outside the root refused.
    let shown = s.ok("commandtree/show", json!({"id": "npm:build"}));
    assert_eq!(
        shown["command"]["id"],
        json!(format!("npm:{}:build", w.join("package.json").display()))
    );
    assert_eq!(shown["steps"], json!([]));
    let e = s.fails_with(-32002, "commandtree/show", json!({"id": "buil"}));
    assert!(
        e["data"]["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v.as_str().unwrap().ends_with(":build")),
        "{e}"
    );
    s.fails_with(
        -32602,
        "commandtree/show",
        json!({"id": "shell:/etc/passwd:passwd"}),
    );
    s.fails_with(-32602, "commandtree/show", json!({"id": 7}));

    assert_eq!(s.finish(), Some(0));
}

#[test]
fn tags_stars_and_quick_launch_order_round_trip_with_the_cli() {
    let w = fixture();
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);

    let a = s.ok(
        "commandtree/star",
        json!({"id": "npm:build", "starred": true}),
    );
    assert_eq!(a["starred"], true);
    assert_eq!(a["changed"], true);
    let build = a["id"].as_str().unwrap().to_string();
    let again = s.ok("commandtree/star", json!({"id": build, "starred": true}));
    assert_eq!(again["changed"], false, "starring twice is a no-op");
    let test = s.ok(
        "commandtree/star",
        json!({"id": "npm:test", "starred": true}),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    let hello = s.ok(
        "commandtree/star",
        json!({"id": "hello.sh", "starred": true}),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();

    let quick = s.ok("commandtree/quick", json!({}));
    assert_eq!(quick["ids"], json!([build, test, hello]));
    assert_eq!(
        ids(&quick["commands"]),
        [build.clone(), test.clone(), hello.clone()]
    );
    assert_eq!(
        ids(&w.json(["quick", "--json"])),
        [build.clone(), test.clone(), hello.clone()]
    );

    // Drag the third onto the first, then the first to the end (past the end means last).
    let moved = s.ok("commandtree/quickMove", json!({"id": hello, "position": 0}));
    assert_eq!(moved["position"], 0);
    assert_eq!(moved["ids"], json!([hello, build, test]));
    assert_eq!(
        ids(&w.json(["quick", "--json"])),
        [hello.clone(), build.clone(), test.clone()]
    );
    let moved = s.ok(
        "commandtree/quickMove",
        json!({"id": hello, "position": 99}),
    );
    assert_eq!(moved["ids"], json!([build, test, hello]));
    assert_eq!(
        ids(&w.json(["quick", "--json"])),
        [build.clone(), test.clone(), hello.clone()]
    );
    s.fails_with(
        -32004,
        "commandtree/quickMove",
        json!({"id": "npm:lint", "position": 0}),
    );
    s.fails_with(
        -32602,
        "commandtree/quickMove",
        json!({"id": "npm:lint", "position": -1}),
    );

    // Unstar through the CLI: the server sees it.
    w.run(["unstar", "npm:test"]).success();
    assert_eq!(
        s.ok("commandtree/quick", json!({}))["ids"],
        json!([build, hello])
    );
    let off = s.ok("commandtree/star", json!({"id": hello, "starred": false}));
    assert_eq!(
        (off["starred"].clone(), off["changed"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(ids(&w.json(["quick", "--json"])), vec![build.clone()]);

    // Tags: added here, seen by the CLI and in the tree filter; removed again.
    let t = s.ok(
        "commandtree/tag",
        json!({"id": "make:clean", "tag": "danger", "add": true}),
    );
    assert_eq!(
        (t["tagged"].clone(), t["changed"].clone()),
        (json!(true), json!(true))
    );
    let clean = t["id"].as_str().unwrap().to_string();
    let shown = w.json(["show", "make:clean", "--json"]);
    assert_eq!(shown["tags"], json!(["danger"]));
    let tags = s.ok("commandtree/tags", json!({}));
    let danger = tags["tags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "danger")
        .unwrap_or_else(|| panic!("{tags}"));
    assert_eq!(danger["commands"], json!([clean]));
    let tree = s.ok("commandtree/tree", json!({"tag": "danger"}));
    assert_eq!(tree["categories"].as_array().unwrap().len(), 1);
    assert_eq!(
        tree["categories"][0]["children"][0]["command"]["id"],
        json!(clean)
    );
    s.fails_with(
        -32602,
        "commandtree/tag",
        json!({"id": clean, "tag": "bad tag\n", "add": true}),
    );
    let t = s.ok(
        "commandtree/tag",
        json!({"id": clean, "tag": "danger", "add": false}),
    );
    assert_eq!(
        (t["tagged"].clone(), t["changed"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(w.json(["show", "make:clean", "--json"])["tags"], json!([]));
    // `add` is required.
    s.fails_with(-32602, "commandtree/tag", json!({"id": clean, "tag": "x"}));

    assert_eq!(s.finish(), Some(0));
}

/// Runs a plan's command line the way a terminal would (a real shell), in its folder.
fn run_plan(plan: &Value) -> std::process::Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(plan["commandLine"].as_str().unwrap())
        .current_dir(plan["cwd"].as_str().unwrap());
    for (k, v) in plan["env"].as_object().unwrap() {
        c.env(k, v.as_str().unwrap());
    }
    c.output().unwrap()
}

#[test]
fn plan_for_each_mode_says_what_to_run_and_never_runs_it() {
    let w = fixture();
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);
    let marker = w.join("marker.txt");

    // New terminal: the line without `cd`, to type in a terminal opened in `cwd`.
    let p = s.ok(
        "commandtree/plan",
        json!({"id": "mark.sh", "mode": "newTerminal", "extraArgs": [marker.to_str().unwrap()]}),
    );
    assert_eq!(p["action"], "terminal");
    assert_eq!(p["shell"], "posix");
    assert_eq!(p["cwd"], json!(w.join("scripts")));
    let line = p["commandLine"].as_str().unwrap();
    assert!(!line.starts_with("cd "), "{line}");
    assert!(
        line.contains("mark.sh") && line.contains("marker.txt"),
        "{line}"
    );
    assert!(p.get("securityWarning").is_none() && p.get("debugConfiguration").is_none());
    assert!(!marker.exists(), "planning never runs the command");
    let o = run_plan(&p);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "ran\n");
    std::fs::remove_file(&marker).unwrap();

    // Current terminal: `cd` included, runnable from anywhere.
    let p = s.ok(
        "commandtree/plan",
        json!({"id": "hello.sh", "mode": "currentTerminal", "extraArgs": ["a b; rm -rf /"]}),
    );
    let line = p["commandLine"].as_str().unwrap();
    assert!(
        line.starts_with(&format!("cd -- '{}' && ", w.join("scripts").display())),
        "{line}"
    );
    let o = Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir("/")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "hello a b; rm -rf /\n",
        "arguments stay one word"
    );

    // Debug: the launch configuration as written, for the editor's debugger.
    let p = s.ok(
        "commandtree/plan",
        json!({"id": "launch:Run app", "mode": "debug"}),
    );
    assert_eq!(p["action"], "debug");
    assert_eq!(
        p["debugConfiguration"],
        json!({"name": "Run app", "type": "node", "request": "launch", "program": "${workspaceFolder}/app.js", "args": ["--port", "3000"]})
    );
    assert_eq!(p["cwd"], json!(w.root()));
    let e = s.fails_with(
        -32004,
        "commandtree/plan",
        json!({"id": "npm:build", "mode": "debug"}),
    );
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("not a launch configuration"),
        "{e}"
    );

    // A VS Code task: the editor runs it by name; the line is there for a terminal.
    let p = s.ok(
        "commandtree/plan",
        json!({"id": "vscode:compile", "mode": "newTerminal"}),
    );
    assert_eq!(p["action"], "task");
    assert_eq!(p["taskName"], "compile");
    assert!(
        p["commandLine"]
            .as_str()
            .unwrap()
            .contains("echo compiling"),
        "{p}"
    );

    // Bad params: an unknown mode, a non-scalar value; unknown command.
    s.fails_with(
        -32602,
        "commandtree/plan",
        json!({"id": "npm:build", "mode": "window"}),
    );
    s.fails_with(
        -32602,
        "commandtree/plan",
        json!({"id": "npm:build", "mode": "newTerminal", "params": {"x": [1]}}),
    );
    s.fails_with(
        -32002,
        "commandtree/plan",
        json!({"id": "nothing-like-it", "mode": "newTerminal"}),
    );

    // The security gate: a warned command's plan carries the warning for the client to confirm.
    s.ok(
        "commandtree/star",
        json!({"id": "make:clean", "starred": true}),
    );
    let clean = s.ok("commandtree/show", json!({"id": "make:clean"}))["command"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    w.store_summary(&clean, "x", "Removes out.", Some("Deletes the out folder."));
    let p = s.ok(
        "commandtree/plan",
        json!({"id": "make:clean", "mode": "newTerminal"}),
    );
    assert!(
        p["securityWarning"]
            .as_str()
            .unwrap()
            .contains("Deletes the out folder."),
        "{p}"
    );
    assert!(w.join("Makefile").exists());

    assert_eq!(s.finish(), Some(0));
}

#[test]
fn a_plan_carries_the_warning_of_an_included_command_and_of_the_steps_it_runs() {
    let w = Workspace::new()
        .file(
            "Makefile",
            "include tools.mk\n\nbuild: clean\n\t@echo built\n",
        )
        .file("tools.mk", "clean:\n\trm -rf ~/x\n");
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);
    let p = s.ok(
        "commandtree/plan",
        json!({"id": "make:clean", "mode": "newTerminal"}),
    );
    let warning = p["securityWarning"].as_str().unwrap_or_default();
    assert!(warning.contains("rm -rf ~/x"), "{p}");
    let p = s.ok(
        "commandtree/plan",
        json!({"id": "make:build", "mode": "newTerminal"}),
    );
    let warning = p["securityWarning"].as_str().unwrap_or_default();
    assert!(warning.contains("runs `clean`, which deletes ~/x"), "{p}");
    // Asked once, as the step's, not again as the command's own.
    assert_eq!(warning.matches("rm -rf ~/x").count(), 1, "{warning}");
    let shown = s.ok("commandtree/show", json!({"id": "make:build"}));
    assert_eq!(
        shown["steps"],
        json!([format!("make:{}:clean", w.join("Makefile").display())])
    );
    assert_eq!(s.finish(), Some(0));
}

fn tasks_changed(s: &mut Lsp, pred: impl Fn(&Value) -> bool) -> Value {
    s.notification("commandtree/tasksChanged", pred)
}

fn has_label(list: &Value, label: &str) -> bool {
    list.as_array()
        .is_some_and(|a| a.iter().any(|c| c["label"] == label))
}

#[test]
fn file_changes_produce_tasks_changed_in_the_negotiated_form() {
    // Delta form.
    let w = fixture();
    let mut s = start(&w, &[]);
    let init = s.initialize(&w, json!({}), true);
    assert_eq!(
        init["capabilities"]["experimental"]["commandtree"]["tasksChangedDelta"],
        true
    );
    assert_eq!(s.ok("commandtree/watchFiles", json!({})), Value::Null);
    assert_eq!(
        s.ok("commandtree/watchFiles", Value::Null),
        Value::Null,
        "a second call is harmless"
    );
    w.write_executable("scripts/deploy.sh", "#!/bin/sh\necho deploy\n");
    let n = tasks_changed(&mut s, |p| has_label(&p["added"], "deploy.sh"));
    assert_eq!(n["workspaceRoot"], json!(w.root()));
    assert_eq!(n["removed"], json!([]));
    let deploy = n["added"][0]["id"].as_str().unwrap().to_string();
    std::fs::remove_file(w.join("scripts/deploy.sh")).unwrap();
    tasks_changed(&mut s, |p| p["removed"] == json!([deploy]));
    // A tag written by another process is an update.
    w.run(["tag", "add", "npm:lint", "ci"]).success();
    let n = tasks_changed(&mut s, |p| {
        p["updated"].as_array().is_some_and(|a| {
            a.iter()
                .any(|c| c["label"] == "lint" && c["tags"] == json!(["ci"]))
        })
    });
    assert!(n.get("tasks").is_none(), "{n}");
    // Auxiliary commands stay out of the notifications, as out of discoverTasks.
    w.write_executable("testdata/more.sh", "#!/bin/sh\n");
    w.write_executable("scripts/after.sh", "#!/bin/sh\n");
    let n = tasks_changed(&mut s, |p| has_label(&p["added"], "after.sh"));
    assert!(!has_label(&n["added"], "more.sh"), "{n}");
    // New exclude globs from the client reach the running watcher too.
    let found = s.ok(
        "commandtree/discoverTasks",
        json!({"workspaceRoot": w.to_str().unwrap(), "excludePatterns": ["**/extra/**"]}),
    );
    assert!(has_label(&found["tasks"], "after.sh"));
    w.write_executable("extra/skipped.sh", "#!/bin/sh\n");
    w.write_executable("scripts/later.sh", "#!/bin/sh\n");
    let n = tasks_changed(&mut s, |p| has_label(&p["added"], "later.sh"));
    assert!(!has_label(&n["added"], "skipped.sh"), "{n}");
    assert!(
        !s.seen
            .iter()
            .any(|v| has_label(&v["params"]["added"], "skipped.sh")),
        "{:?}",
        s.seen
    );
    assert_eq!(s.finish(), Some(0));

    // Full form.
    let w = fixture();
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);
    s.ok("commandtree/watchFiles", json!({}));
    w.write(
        "package.json",
        r#"{"scripts": {"build": "tsc", "serve": "vite"}}"#,
    );
    let n = tasks_changed(&mut s, |p| has_label(&p["tasks"], "serve"));
    let labels = support::labels(&n["tasks"]);
    let has = |l: &str| labels.iter().any(|x| x == l);
    assert!(!has("test") && !has("lint"), "{labels:?}");
    assert!(has("hello.sh") && !has("t.sh"), "{labels:?}");
    let mut now = ids(&n["tasks"]);
    now.sort();
    let mut listed = ids(&w.json(["list", "--json"]));
    listed.sort();
    assert_eq!(now, listed, "the full form is the whole list");
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn a_slow_summarize_reports_progress_and_stops_when_cancelled() {
    let w = fixture();
    // hello.sh is answered at once; every other command keeps the model busy far longer than
    // the test waits, so only cancellation can end the request.
    let server = llm::Server::start(|req, _| {
        if req.method == "GET" {
            return llm::model_list();
        }
        let name = llm::name_in(req);
        if name != "hello.sh" {
            return llm::Reply::Silence(Duration::from_secs(300));
        }
        llm::analysis_reply("Greets.", "")
    });
    let base = server.v1();
    let mut s = start(&w, &[("COMMANDTREE_LLM_BASE_URL", base.as_str())]);
    s.initialize(&w, json!({}), false);

    let id = s.send_request("commandtree/summarize", json!({"workDoneToken": "sum-1"}));
    let begin = s.notification("$/progress", |p| p["token"] == "sum-1");
    assert_eq!(begin["value"]["kind"], "begin", "{begin}");
    assert_eq!(begin["value"]["cancellable"], true);
    let report = s.notification("$/progress", |p| {
        p["token"] == "sum-1" && p["value"]["message"] == "hello.sh"
    });
    assert_eq!(report["value"]["kind"], "report");
    assert!(
        report["value"]["percentage"].as_u64().unwrap() < 100,
        "{report}"
    );

    // Other requests are answered while the batch waits on the model.
    assert!(ids(&s.ok("commandtree/quick", json!({}))["ids"]).is_empty());

    s.notify("$/cancelRequest", json!({"id": id}));
    let r = s.response(id);
    assert_eq!(r["error"]["code"], -32800, "{r}");
    assert_eq!(r["error"]["data"]["summarized"], 1, "{r}");
    let end = s.notification("$/progress", |p| {
        p["token"] == "sum-1" && p["value"]["kind"] == "end"
    });
    assert!(
        end["value"]["message"]
            .as_str()
            .unwrap()
            .contains("1 summarized"),
        "{end}"
    );
    // What was done before the cancel is stored.
    let shown = w.json(["show", "hello.sh", "--json"]);
    assert_eq!(shown["summary"], "Greets.");

    // Cancelling by the work-done token (the editor's progress "Cancel" button) works too.
    server.clear();
    let id = s.send_request(
        "commandtree/summarize",
        json!({"ids": ["npm:build"], "workDoneToken": 42}),
    );
    s.notification("$/progress", |p| {
        p["token"] == 42 && p["value"]["kind"] == "begin"
    });
    // Wait until the model has the request, so the cancel lands mid-request.
    assert!(eventually(|| {
        server.posts().iter().any(|r| llm::name_in(r) == "build")
    }));
    s.notify("window/workDoneProgress/cancel", json!({"token": 42}));
    let r = s.response(id);
    assert_eq!(r["error"]["code"], -32800, "{r}");
    assert_eq!(r["error"]["data"]["summarized"], 0, "{r}");

    assert_eq!(s.finish(), Some(0));
}

#[test]
fn summarize_without_a_provider_says_how_to_configure_one() {
    let w = fixture();
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);
    let e = s.fails_with(-32004, "commandtree/summarize", json!({}));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("No LLM provider is configured."),
        "{e}"
    );
    let e = s.fails_with(
        -32004,
        "commandtree/search",
        json!({"query": "build the app"}),
    );
    assert!(e["message"].as_str().unwrap().contains("ct embed"), "{e}");
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn malformed_messages_and_unknown_methods_leave_the_server_running() {
    let w = fixture();
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);

    // A body that is not JSON: a parse error with id null.
    s.send_raw(b"Content-Length: 9\r\n\r\n{\"id\": 1,");
    let e = s.wait_for("parse error", |v| v["error"]["code"] == -32700);
    assert_eq!(e["id"], Value::Null);
    // JSON that is not a message, and a batch.
    s.send(&json!({"id": 77, "method": 5}));
    let e = s.wait_for("invalid request", |v| v["id"] == 77);
    assert_eq!(e["error"]["code"], -32600);
    s.send(&json!([{"jsonrpc": "2.0", "id": 78, "method": "commandtree/quick"}]));
    let e = s.wait_for("batch refused", |v| {
        v["error"]["code"] == -32600 && v["id"].is_null()
    });
    assert!(e["error"]["message"].as_str().unwrap().contains("batch"));
    // A header without a length, a bad length: skipped.
    s.send_raw(b"Content-Type: application/json\r\n\r\n");
    s.send_raw(b"Content-Length: many\r\n\r\n");
    // Unknown requests and notifications.
    s.fails_with(-32601, "textDocument/hover", json!({}));
    let e = s.fails_with(-32601, "commandtree/nothing", json!({}));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("commandtree/nothing")
    );
    s.notify("workspace/didChangeConfiguration", json!({"settings": {}}));
    s.notify("$/cancelRequest", json!({"id": 123456}));
    s.notify("$/cancelRequest", json!({"id": {"not": "an id"}}));
    // Still serving.
    let found = s.ok(
        "commandtree/discoverTasks",
        json!({"workspaceRoot": w.to_str().unwrap()}),
    );
    assert!(has_label(&found["tasks"], "hello.sh"));

    // After shutdown only exit; exit then ends with 0.
    assert_eq!(s.ok("shutdown", Value::Null), Value::Null);
    s.fails_with(-32600, "commandtree/quick", json!({}));
    s.notify("exit", Value::Null);
    assert_eq!(s.wait_exit(), Some(0));

    // exit without shutdown: 1, as LSP asks; so does a client that just goes away.
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);
    s.notify("exit", Value::Null);
    assert_eq!(s.wait_exit(), Some(1));
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);
    s.close();
    assert_eq!(s.wait_exit(), Some(1));
}

#[test]
fn an_untrusted_workspace_is_read_only_until_trusted() {
    let w = fixture();
    let mut s = start(&w, &[]);
    s.initialize(
        &w,
        json!({"trusted": false, "excludePatterns": ["**/Makefile"]}),
        false,
    );

    let found = s.ok(
        "commandtree/discoverTasks",
        json!({"workspaceRoot": w.to_str().unwrap()}),
    );
    assert!(has_label(&found["tasks"], "hello.sh"));
    assert!(
        !found["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "make"),
        "the client's excludes apply"
    );
    for (method, params) in [
        (
            "commandtree/tag",
            json!({"id": "npm:build", "tag": "x", "add": true}),
        ),
        (
            "commandtree/star",
            json!({"id": "npm:build", "starred": true}),
        ),
        (
            "commandtree/quickMove",
            json!({"id": "npm:build", "position": 0}),
        ),
        (
            "commandtree/plan",
            json!({"id": "npm:build", "mode": "newTerminal"}),
        ),
        ("commandtree/summarize", json!({})),
        ("commandtree/search", json!({"query": "build"})),
        ("commandtree/stop", json!({"runId": 1})),
        ("commandtree/restart", json!({"runId": 1})),
        ("commandtree/problems", json!({"runId": 1})),
    ] {
        let (code, e) = s.err(method, params);
        assert_eq!(code, -32003, "{method}: {e}");
    }
    s.ok("commandtree/quick", json!({}));
    s.ok("commandtree/tags", json!({}));
    s.ok("commandtree/runs", json!({}));
    let r = s.ok("commandtree/running", json!({}));
    assert_eq!(r, json!({"running": [], "last": []}));
    s.ok("commandtree/deps", json!({"id": "npm:build"}));
    let p = s.ok(
        "commandtree/problems",
        json!({"output": "src/a.c:3:5: error: x undeclared\n"}),
    );
    assert_eq!(p["problems"][0]["line"], 3, "{p}");
    s.ok("commandtree/show", json!({"id": "npm:build"}));
    assert!(!w.join(".commandtree").exists(), "nothing was written");

    s.notify("commandtree/setTrusted", json!({"trusted": true}));
    let a = s.ok(
        "commandtree/star",
        json!({"id": "npm:build", "starred": true}),
    );
    assert_eq!(a["changed"], true);
    assert!(w.join(".commandtree/commandtree.sqlite3").exists());
    assert_eq!(s.finish(), Some(0));
}

/// Language clients start servers with `--stdio` and may name their own process; a server whose
/// editor died must not stay behind with its watcher.
#[test]
fn the_server_accepts_client_arguments_and_ends_with_its_editor() {
    let root = fixture();
    let mut editor = Command::new("sleep").arg("600").spawn().unwrap();
    let pid = editor.id().to_string();
    let mut s = start_args(&root, &[], &["--stdio", "--clientProcessId", &pid]);
    s.initialize(&root, json!({}), false);
    let r = s.ok("commandtree/quick", json!({}));
    assert!(r.is_object() || r.is_array(), "{r}");
    assert_eq!(
        s.child.as_mut().unwrap().try_wait().unwrap(),
        None,
        "the server ended while its editor runs"
    );
    editor.kill().unwrap();
    editor.wait().unwrap();
    assert_eq!(s.wait_exit(), Some(1));

    // The same through `initialize`'s processId, with no argument.
    let mut editor = Command::new("sleep").arg("600").spawn().unwrap();
    let mut s = start(&root, &[]);
    let uri = format!("file://{}", root.display());
    s.ok(
        "initialize",
        json!({"processId": editor.id(), "rootUri": uri, "capabilities": {}}),
    );
    s.notify("initialized", json!({}));
    editor.kill().unwrap();
    editor.wait().unwrap();
    assert_eq!(s.wait_exit(), Some(1));
}

/// A workspace with the `clean-up` command skill and one malformed skill file.
fn skills_fixture() -> Workspace {
    let w = fixture();
    w.write(
        ".commandtree/skills/clean-up.md",
        "---\nname: Clean Up Script\nicon: sparkle\ndescription: Removes noise\n---\n\n- Remove superfluous comments\n",
    );
    w.write(".commandtree/skills/broken.md", "no front matter\n");
    user_trusts(&w);
    w
}

/// `ct trust` in `w`, as its user would after reviewing it (the server shares its `HOME`).
fn user_trusts(w: &Workspace) {
    w.run(["trust"]).success();
}

const CLEANED: &str = "#!/bin/sh\necho \"hello $1\"\n# cleaned\n";

#[test]
fn command_skills_are_listed_proposed_without_writing_and_applied_only_onto_the_same_text() {
    let w = skills_fixture();
    let hello = w.join("scripts/hello.sh");
    let before = std::fs::read_to_string(&hello).unwrap();
    let server = llm::Server::start(|req, _| {
        if req.method == "GET" {
            return llm::model_list();
        }
        llm::Reply::json(
            200,
            llm::openai_text_reply(&format!("Here it is:\n```sh\n{CLEANED}```\n")),
        )
    });
    let base = server.v1();
    let mut s = start(&w, &[("COMMANDTREE_LLM_BASE_URL", base.as_str())]);
    let init = s.initialize(&w, json!({}), false);
    let methods = &init["capabilities"]["experimental"]["commandtree"]["methods"];
    for m in [
        "commandtree/commandSkills",
        "commandtree/proposeSkill",
        "commandtree/applySkill",
    ] {
        assert!(methods.as_array().unwrap().contains(&json!(m)), "{m}");
    }

    let listed = s.ok("commandtree/commandSkills", json!({}));
    assert_eq!(
        listed["skills"],
        json!([{"id": "clean-up", "name": "Clean Up Script", "icon": "sparkle", "description": "Removes noise"}])
    );
    let warned = listed["warnings"][0].to_string();
    assert!(warned.contains("broken.md"), "{listed}");

    // The proposal comes back; the file is untouched.
    let p = s.ok(
        "commandtree/proposeSkill",
        json!({"skill": "clean-up", "id": "hello.sh", "workDoneToken": "sk-1"}),
    );
    assert_eq!(p["file"], json!(hello));
    assert_eq!(p["original"], before.as_str());
    assert_eq!(p["proposed"], CLEANED);
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), before);
    let end = s.notification("$/progress", |p| {
        p["token"] == "sk-1" && p["value"]["kind"] == "end"
    });
    assert!(
        end["value"]["message"]
            .as_str()
            .unwrap()
            .contains("proposed changes to scripts/hello.sh"),
        "{end}"
    );
    // The model got the skill's instructions and the file.
    let sent = server.posts()[0].json().to_string();
    assert!(
        sent.contains("Remove superfluous comments") && sent.contains("hello $1"),
        "{sent}"
    );
    // By display name too; an unknown skill is a params error naming the ones there are.
    s.ok(
        "commandtree/proposeSkill",
        json!({"skill": "Clean Up Script", "id": "hello.sh"}),
    );
    let e = s.fails_with(
        -32602,
        "commandtree/proposeSkill",
        json!({"skill": "tidy", "id": "hello.sh"}),
    );
    assert!(e["message"].as_str().unwrap().contains("clean-up"), "{e}");
    s.fails_with(
        -32002,
        "commandtree/proposeSkill",
        json!({"skill": "clean-up", "id": "no-such-command"}),
    );

    // The file changed after the proposal: nothing is written.
    w.write("scripts/hello.sh", "#!/bin/sh\necho edited\n");
    let e = s.fails_with(
        -32004,
        "commandtree/applySkill",
        json!({"skill": "clean-up", "id": "hello.sh", "original": before, "proposed": CLEANED}),
    );
    assert!(
        e["message"].as_str().unwrap().contains("changed meanwhile"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(&hello).unwrap(),
        "#!/bin/sh\necho edited\n"
    );

    w.write("scripts/hello.sh", &before);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hello, std::fs::Permissions::from_mode(0o755)).unwrap();
    let a = s.ok(
        "commandtree/applySkill",
        json!({"skill": "clean-up", "id": "hello.sh", "original": before, "proposed": CLEANED}),
    );
    assert_eq!(a, json!({"file": hello, "written": true}));
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), CLEANED);
    assert_eq!(
        std::fs::metadata(&hello).unwrap().permissions().mode() & 0o777,
        0o755,
        "replaced by rename with the permissions kept"
    );
    // No temporary file is left beside it.
    let left: Vec<_> = std::fs::read_dir(w.join("scripts"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn command_skills_need_trust_and_a_slow_proposal_stops_when_cancelled() {
    let w = skills_fixture();
    let hello = w.join("scripts/hello.sh");
    let before = std::fs::read_to_string(&hello).unwrap();
    let server = llm::Server::start(|req, _| {
        if req.method == "GET" {
            return llm::model_list();
        }
        llm::Reply::Silence(Duration::from_secs(300))
    });
    let base = server.v1();
    let mut s = start(&w, &[("COMMANDTREE_LLM_BASE_URL", base.as_str())]);
    s.initialize(&w, json!({"trusted": false}), false);

    // Listing reads files only; proposing (sends to the LLM) and applying (writes) are refused.
    assert_eq!(
        s.ok("commandtree/commandSkills", json!({}))["skills"][0]["id"],
        "clean-up"
    );
    s.fails_with(
        -32003,
        "commandtree/proposeSkill",
        json!({"skill": "clean-up", "id": "hello.sh"}),
    );
    s.fails_with(
        -32003,
        "commandtree/applySkill",
        json!({"skill": "clean-up", "id": "hello.sh", "original": before, "proposed": "x\n"}),
    );
    assert_eq!(server.posts().len(), 0, "nothing was sent");
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), before);

    s.notify("commandtree/setTrusted", json!({"trusted": true}));
    let id = s.send_request(
        "commandtree/proposeSkill",
        json!({"skill": "clean-up", "id": "hello.sh", "workDoneToken": "sk-2"}),
    );
    assert!(eventually(|| !server.posts().is_empty()));
    // Other requests are answered while the model is busy.
    s.ok("commandtree/commandSkills", json!({}));
    s.notify("window/workDoneProgress/cancel", json!({"token": "sk-2"}));
    let r = s.response(id);
    assert_eq!(r["error"]["code"], -32800, "{r}");
    s.notification("$/progress", |p| {
        p["token"] == "sk-2" && p["value"]["kind"] == "end"
    });
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), before);
    assert_eq!(s.finish(), Some(0));
}

const LM_REQUEST: &str = "commandtree/languageModelRequest";

/// Two `task` steps: the second quotes the first's reply.
const TWO_STEPS: &str = "---\nname: notes\ndescription: Draft and shorten\ninputs:\n  - name: version\n    default: \"1.0\"\n---\n\n```step id=draft\n@task --prompt \"Write notes for {{inputs.version}}\" --modelOptions '{\"temperature\":0.2}'\n```\n\n```step id=short\n@task --prompt \"Shorten: {{steps.draft}}\"\n```\n";

/// A workspace with the two-step playbook, started with no provider anywhere, initialized by
/// a client that answers language model requests (this test, standing in for the editor: a
/// real VS Code with a signed-in Copilot cannot run here).
fn editor_models() -> (Workspace, Lsp) {
    let w = fixture();
    w.write(".commandtree/playbooks/notes.playbook.md", TWO_STEPS);
    user_trusts(&w);
    let mut s = start(&w, &[]);
    let init = s.initialize_with(
        &w,
        json!({}),
        json!({"commandtree": {"languageModels": true}}),
    );
    assert_eq!(
        init["capabilities"]["experimental"]["commandtree"]["languageModels"],
        true
    );
    let methods = &init["capabilities"]["experimental"]["commandtree"]["methods"];
    for m in [
        "commandtree/runSkill",
        "commandtree/playbooks",
        "commandtree/runPlaybook",
        "commandtree/context",
        "commandtree/addContext",
        "commandtree/clearContext",
    ] {
        assert!(methods.as_array().unwrap().contains(&json!(m)), "{m}");
    }
    (w, s)
}

/// A stored context message as the model gets it: inside the one user message that carries
/// the workspace database's context as data, fenced with its type.
fn assert_stored_context(m: &Value, kind: &str, text: &str) {
    assert_eq!(m["role"], "user", "{m}");
    let c = m["content"].as_str().unwrap();
    assert!(
        c.starts_with("Context messages stored in this workspace's database"),
        "{c}"
    );
    let open = c
        .find(&format!("<context-message type=\"{kind}\""))
        .unwrap_or_else(|| panic!("{kind}: {c}"));
    let at = c.find(&format!("\n{text}\n</context-message")).expect(text);
    assert!(open < at, "{c}");
}

#[test]
fn a_playbook_is_answered_by_the_editor_and_passes_replies_on_as_assistant_context() {
    let (_w, mut s) = editor_models();
    let listed = s.ok("commandtree/playbooks", json!({}));
    assert_eq!(listed["playbooks"][0]["name"], "notes", "{listed}");
    assert_eq!(listed["playbooks"][0]["steps"], json!(["draft", "short"]));
    assert_eq!(
        listed["playbooks"][0]["inputs"],
        json!([{"name": "version", "default": "1.0"}])
    );

    // The stored context goes first, as data from the workspace (one user message).
    s.ok(
        "commandtree/addContext",
        json!({"type": "agent", "content": "Be brief."}),
    );
    let ctx = s.ok("commandtree/context", json!({}));
    assert_eq!(ctx["messages"][0]["type"], "agent", "{ctx}");
    // What the `@agent` participant sends its model: the same data message.
    assert_eq!(ctx["send"].as_array().unwrap().len(), 1, "{ctx}");
    assert_stored_context(&ctx["send"][0], "agent", "Be brief.");

    let id = s.send_request(
        "commandtree/runPlaybook",
        json!({"name": "notes", "inputs": {"version": "2.0"}, "workDoneToken": "pb-1"}),
    );
    let first = s.server_request(LM_REQUEST);
    let sent = first["params"]["messages"].as_array().unwrap();
    assert_eq!(sent.len(), 2, "{first}");
    assert_stored_context(&sent[0], "agent", "Be brief.");
    assert_eq!(
        sent[1],
        json!({"role": "user", "content": "Write notes for 2.0"}),
        "{first}"
    );
    assert_eq!(
        first["params"]["options"]["modelOptions"],
        json!({"temperature": 0.2})
    );
    let started = s.notification("$/progress", |p| {
        p["token"] == "pb-1" && p["value"]["step"]["id"] == "draft"
    });
    assert_eq!(started["value"]["step"]["index"], 1, "{started}");
    assert_eq!(started["value"]["step"]["total"], 2);
    // Other requests are answered while the editor holds the model request.
    s.ok("commandtree/quick", json!({}));
    s.answer(
        &first["id"],
        json!({"text": "NOTES v2", "model": "copilot-gpt-4o"}),
    );

    let second = s.server_request(LM_REQUEST);
    assert_ne!(second["id"], first["id"]);
    let sent = second["params"]["messages"].as_array().unwrap();
    assert_eq!(sent.len(), 3, "{second}");
    assert_stored_context(&sent[0], "agent", "Be brief.");
    assert_eq!(
        sent[1..],
        [
            json!({"role": "assistant", "content": "NOTES v2"}),
            json!({"role": "user", "content": "Shorten: NOTES v2"}),
        ],
        "{second}"
    );
    assert_eq!(second["params"]["options"], json!({}));
    s.answer(
        &second["id"],
        json!({"text": "v2", "model": "copilot-gpt-4o"}),
    );
    let r = s.response(id);
    assert_eq!(
        r["result"]["steps"],
        json!([{"id": "draft", "reply": "NOTES v2"}, {"id": "short", "reply": "v2"}]),
        "{r}"
    );
    let finished = s.notification("$/progress", |p| {
        p["token"] == "pb-1" && p["value"]["step"]["reply"] == "v2"
    });
    assert_eq!(finished["value"]["percentage"], 100, "{finished}");
    s.notification("$/progress", |p| {
        p["token"] == "pb-1" && p["value"]["kind"] == "end"
    });

    // One skill, by invocation: the options an editor honours go along; an error from the
    // editor fails the skill with its message.
    let id = s.send_request(
        "commandtree/runSkill",
        json!({"invocation": "@task --prompt \"Summarize this text\" --model gpt-4o --justification \"to summarize\" --modelOptions '{\"max_tokens\":256}'", "context": false}),
    );
    let req = s.server_request(LM_REQUEST);
    assert_eq!(
        req["params"],
        json!({
            "messages": [{"role": "user", "content": "Summarize this text"}],
            "options": {"model": "gpt-4o", "modelOptions": {"max_tokens": 256}, "justification": "to summarize"},
        })
    );
    let no_model =
        "No language model available: sign in to GitHub Copilot or configure a provider for ct";
    s.send(
        &json!({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32603, "message": no_model}}),
    );
    let r = s.response(id);
    assert_eq!(r["error"]["code"], -32004, "{r}");
    assert_eq!(r["error"]["message"], no_model);

    // By name and params, with the stored context.
    let id = s.send_request(
        "commandtree/runSkill",
        json!({"skill": "task", "params": {"prompt": "hi", "modelOptions": {"temperature": 0.7}}}),
    );
    let req = s.server_request(LM_REQUEST);
    assert_stored_context(&req["params"]["messages"][0], "agent", "Be brief.");
    assert_eq!(
        req["params"]["options"]["modelOptions"],
        json!({"temperature": 0.7})
    );
    s.answer(&req["id"], json!({"text": "hello", "model": "m"}));
    assert_eq!(s.response(id)["result"]["reply"], "hello");

    let e = s.fails_with(
        -32602,
        "commandtree/runSkill",
        json!({"skill": "task", "params": {}}),
    );
    assert!(e["message"].as_str().unwrap().contains("prompt"), "{e}");
    assert_eq!(s.ok("commandtree/clearContext", json!({}))["removed"], 1);
    assert_eq!(
        s.ok("commandtree/context", json!({}))["messages"],
        json!([])
    );
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn cancelling_a_playbook_cancels_the_editor_request_it_waits_on() {
    let (_w, mut s) = editor_models();
    let id = s.send_request(
        "commandtree/runPlaybook",
        json!({"name": "notes", "workDoneToken": "pb-2"}),
    );
    // The editor holds the model request; the user stops the playbook.
    let held = s.server_request(LM_REQUEST);
    s.notify("$/cancelRequest", json!({"id": id}));
    let cancel = s.notification("$/cancelRequest", |p| p["id"] == held["id"]);
    assert_eq!(cancel["id"], held["id"]);
    let r = s.response(id);
    assert_eq!(r["error"]["code"], -32800, "{r}");
    assert_eq!(
        r["error"]["data"],
        json!({"step": 1, "id": "draft", "line": 9})
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`draft` was cancelled"),
        "{r}"
    );
    // A late answer to the cancelled request is dropped, and the server goes on.
    s.answer(&held["id"], json!({"text": "late", "model": "m"}));

    // The progress "Cancel" button of a playbook does the same.
    let id = s.send_request(
        "commandtree/runPlaybook",
        json!({"name": "notes", "workDoneToken": "pb-3"}),
    );
    let held = s.server_request(LM_REQUEST);
    s.notify("window/workDoneProgress/cancel", json!({"token": "pb-3"}));
    s.notification("$/cancelRequest", |p| p["id"] == held["id"]);
    assert_eq!(s.response(id)["error"]["code"], -32800);
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn without_editor_models_or_a_provider_skills_say_how_to_configure_one() {
    let w = fixture();
    w.write(".commandtree/playbooks/notes.playbook.md", TWO_STEPS);
    user_trusts(&w);
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), false);
    let e = s.fails_with(
        -32004,
        "commandtree/runSkill",
        json!({"invocation": "@task --prompt hi"}),
    );
    let m = e["message"].as_str().unwrap();
    assert!(m.starts_with("No LLM provider is configured."), "{e}");
    assert!(m.contains("GitHub Copilot"), "{e}");
    let e = s.fails_with(-32004, "commandtree/runPlaybook", json!({"name": "notes"}));
    assert_eq!(e["data"]["id"], "draft", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("No LLM provider is configured."),
        "{e}"
    );
    assert_eq!(s.finish(), Some(0));

    // `provider = none` switches AI off even where the editor has models.
    let mut s = start(&w, &[("COMMANDTREE_LLM_PROVIDER", "none")]);
    s.initialize_with(
        &w,
        json!({}),
        json!({"commandtree": {"languageModels": true}}),
    );
    let e = s.fails_with(
        -32004,
        "commandtree/runSkill",
        json!({"invocation": "@task --prompt hi"}),
    );
    assert!(
        e["message"].as_str().unwrap().contains("switched off"),
        "{e}"
    );
    // Untrusted: refused before anything is asked.
    let mut s2 = start(&w, &[]);
    s2.initialize_with(
        &w,
        json!({"trusted": false}),
        json!({"commandtree": {"languageModels": true}}),
    );
    s2.fails_with(-32003, "commandtree/runPlaybook", json!({"name": "notes"}));
    assert_eq!(s2.finish(), Some(0));
    assert_eq!(s.finish(), Some(0));
}

/// A workspace with no provider anywhere, initialized by a client that answers language model
/// requests (this test stands in for VS Code with Copilot, which cannot run here).
fn editor_summaries() -> (Workspace, Lsp) {
    let w = fixture();
    let mut s = start(&w, &[]);
    s.initialize_with(
        &w,
        json!({}),
        json!({"commandtree": {"languageModels": true}}),
    );
    (w, s)
}

#[test]
fn without_a_provider_the_editor_answers_summaries_through_the_forced_tool() {
    let (w, mut s) = editor_summaries();
    let id = s.send_request(
        "commandtree/summarize",
        json!({"ids": ["hello.sh", "npm:build"], "workDoneToken": "es-1"}),
    );
    // One request at a time: the second comes only after the first is answered.
    for _ in 0..2 {
        let req = s.server_request(LM_REQUEST);
        let p = &req["params"];
        assert_eq!(p["options"]["toolMode"], "required", "{req}");
        let tools = p["options"]["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 1, "{req}");
        assert_eq!(tools[0]["name"], "report_command_analysis");
        assert!(!tools[0]["description"].as_str().unwrap().is_empty());
        assert_eq!(
            tools[0]["inputSchema"]["required"],
            json!(["summary", "securityWarning"])
        );
        assert_eq!(p["messages"][0]["role"], "agent", "{req}");
        assert_eq!(p["messages"][1]["role"], "user");
        let user = p["messages"][1]["content"].as_str().unwrap();
        if user.contains("Name: hello.sh") {
            // A tool call, as Copilot answers in tool mode Required.
            s.answer(
                &req["id"],
                json!({"text": "", "model": "copilot-gpt-4o", "toolCalls": [{
                    "name": "report_command_analysis",
                    "input": {"summary": "Greets the name given.", "securityWarning": "", "risk": "none"},
                }]}),
            );
        } else {
            assert!(user.contains("Name: build"), "{user}");
            // A model that writes the arguments as JSON text instead.
            s.answer(
                &req["id"],
                json!({"text": "{\"summary\": \"Compiles the TypeScript sources.\", \"securityWarning\": \"\"}", "model": "copilot-gpt-4o"}),
            );
        }
    }
    let r = s.response(id);
    assert!(r.get("error").is_none(), "{r}");
    let mut labels: Vec<&str> = r["result"]["summarized"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["label"].as_str().unwrap())
        .collect();
    labels.sort();
    assert_eq!(labels, ["build", "hello.sh"], "{r}");
    assert_eq!(r["result"]["failed"], json!([]));
    assert_eq!(r["result"]["notAttempted"], 0);
    s.notification("$/progress", |p| {
        p["token"] == "es-1" && p["value"]["message"] == "hello.sh"
    });
    assert_eq!(
        w.json(["show", "hello.sh", "--json"])["summary"],
        "Greets the name given."
    );
    assert_eq!(
        w.json(["show", "npm:build", "--json"])["summary"],
        "Compiles the TypeScript sources."
    );

    // An answer in prose is a failure of that command, with the model named.
    let id = s.send_request("commandtree/summarize", json!({"ids": ["npm:test"]}));
    let req = s.server_request(LM_REQUEST);
    s.answer(
        &req["id"],
        json!({"text": "It runs the tests.", "model": "copilot-mini"}),
    );
    let r = s.response(id);
    assert_eq!(r["result"]["summarized"], json!([]), "{r}");
    let error = r["result"]["failed"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("copilot-mini") && error.contains("report_command_analysis"),
        "{r}"
    );
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn cancelling_a_summarize_cancels_the_editor_request_it_waits_on() {
    let (w, mut s) = editor_summaries();
    let id = s.send_request(
        "commandtree/summarize",
        json!({"ids": ["hello.sh", "npm:build"], "workDoneToken": "es-2"}),
    );
    let held = s.server_request(LM_REQUEST);
    s.notify("$/cancelRequest", json!({"id": id}));
    s.notification("$/cancelRequest", |p| p["id"] == held["id"]);
    let r = s.response(id);
    assert_eq!(r["error"]["code"], -32800, "{r}");
    assert_eq!(r["error"]["data"]["summarized"], 0, "{r}");
    // The late answer is dropped: nothing is stored, and no second request follows.
    s.answer(
        &held["id"],
        json!({"text": "", "model": "m", "toolCalls": [{"name": "report_command_analysis", "input": {"summary": "Late.", "securityWarning": ""}}]}),
    );
    assert_eq!(s.ok("commandtree/quick", json!({}))["ids"], json!([]));
    assert!(
        !s.seen
            .iter()
            .any(|v| v["method"] == LM_REQUEST && v["id"] != held["id"]),
        "{:?}",
        s.seen
    );
    let shown = w.json(["show", "hello.sh", "--json"]);
    assert!(
        shown["summary"].is_null() || shown["summary"] == "",
        "{shown}"
    );
    assert_eq!(s.finish(), Some(0));
}

#[test]
fn a_named_provider_answers_summaries_even_where_the_editor_has_models() {
    let w = fixture();
    let server = llm::Server::start(|req, _| {
        if req.method == "GET" {
            return llm::model_list();
        }
        llm::analysis_reply("From the provider.", "")
    });
    let base = server.v1();
    let mut s = start(&w, &[("COMMANDTREE_LLM_BASE_URL", base.as_str())]);
    s.initialize_with(
        &w,
        json!({}),
        json!({"commandtree": {"languageModels": true}}),
    );
    let r = s.ok("commandtree/summarize", json!({"ids": ["hello.sh"]}));
    assert_eq!(r["summarized"][0]["summary"], "From the provider.", "{r}");
    assert!(
        !s.seen.iter().any(|v| v["method"] == LM_REQUEST),
        "{:?}",
        s.seen
    );
    assert_eq!(s.finish(), Some(0));
}

/// Playbooks and command skills are the workspace's files: the editor's trust is not enough,
/// the user's `ct trust` (for the workspace as it is now) is needed, as on the command line.
#[test]
fn playbooks_and_command_skills_need_ct_trust_in_the_editor_too() {
    let w = skills_fixture();
    w.write(".commandtree/playbooks/notes.playbook.md", TWO_STEPS);
    // Pulled in after the user's `ct trust` (the fixture trusted what it had).
    let hello = w.join("scripts/hello.sh");
    let before = std::fs::read_to_string(&hello).unwrap();
    let mut s = start(&w, &[]);
    s.initialize_with(
        &w,
        json!({"trusted": true}),
        json!({"commandtree": {"languageModels": true}}),
    );
    let e = s.fails_with(-32004, "commandtree/runPlaybook", json!({"name": "notes"}));
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains("added .commandtree/playbooks/notes.playbook.md")
            && m.contains("nothing was sent and nothing was written"),
        "{e}"
    );
    // Changed since: the command skill is refused too, before anything is sent or written.
    s.fails_with(
        -32004,
        "commandtree/proposeSkill",
        json!({"skill": "clean-up", "id": "hello.sh"}),
    );
    s.fails_with(
        -32004,
        "commandtree/applySkill",
        json!({"skill": "clean-up", "id": "hello.sh", "original": before, "proposed": "x\n"}),
    );
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), before);
    // A skill the editor's user invokes needs only the editor's trust, as `ct skill run`.
    let id = s.send_request(
        "commandtree/runSkill",
        json!({"invocation": "@task --prompt hi", "context": false}),
    );
    let req = s.server_request(LM_REQUEST);
    s.answer(&req["id"], json!({"text": "hello", "model": "m"}));
    assert_eq!(s.response(id)["result"]["reply"], "hello");

    // Reviewed and trusted: the playbook runs.
    user_trusts(&w);
    let id = s.send_request("commandtree/runPlaybook", json!({"name": "notes"}));
    for reply in ["NOTES", "short"] {
        let req = s.server_request(LM_REQUEST);
        s.answer(&req["id"], json!({"text": reply, "model": "m"}));
    }
    let r = s.response(id);
    assert_eq!(r["result"]["steps"][1]["reply"], "short", "{r}");
    assert_eq!(s.finish(), Some(0));
}

fn labels_of(list: &Value) -> Vec<String> {
    let mut v: Vec<String> = list
        .as_array()
        .unwrap_or_else(|| panic!("an array: {list}"))
        .iter()
        .map(|r| r["run"]["label"].as_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

/// A run started in a shell shows up in the editor as running (by `running` and by
/// `runsChanged`), each command keeps its last result, and the editor stops and restarts runs.
#[test]
fn runs_from_a_shell_are_seen_running_stopped_and_restarted_from_the_editor() {
    let w = Workspace::new().file(
        "Makefile",
        "server:\n\tsleep 300\nworker:\n\tsleep 300\nquick:\n\ttrue\nbroken:\n\tfalse\n",
    );
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), true);
    s.ok("commandtree/watchFiles", json!({}));
    assert_eq!(
        s.ok("commandtree/running", json!({})),
        json!({"running": [], "last": []})
    );

    let server = w.run(["run", "-d", "server"]).run_id();
    let changed = s.notification("commandtree/runsChanged", |p| {
        labels_of(&p["running"]) == ["server"]
    });
    assert_eq!(changed["running"][0]["run"]["runId"], server);
    assert_eq!(changed["running"][0]["run"]["mode"], "detached");
    w.ok(["run", "quick"]);
    w.run(["run", "broken"]).failure();
    let r = s.ok("commandtree/running", json!({}));
    assert_eq!(labels_of(&r["running"]), ["server"], "{r}");
    assert!(r["running"][0]["elapsedMs"].is_u64(), "{r}");
    assert_eq!(labels_of(&r["last"]), ["broken", "quick", "server"], "{r}");
    let last = |label: &str| {
        r["last"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["run"]["label"] == label)
            .unwrap()["run"]
            .clone()
    };
    assert_eq!(last("quick")["status"], "ok");
    assert_eq!(last("quick")["exitCode"], 0);
    assert_eq!(last("broken")["status"], "failed");
    assert_ne!(last("broken")["exitCode"], 0);
    assert_eq!(last("server")["status"], "running");

    // Stopped by the command: its runs going on.
    let id = w.id("make", "Makefile", "server");
    let stopped = s.ok("commandtree/stop", json!({"id": id}));
    assert_eq!(stopped["stopped"][0]["runId"], server, "{stopped}");
    assert_eq!(stopped["stopped"][0]["status"], "stopped");
    s.notification("commandtree/runsChanged", |p| {
        p["running"].as_array().is_some_and(|a| a.is_empty())
    });
    assert_eq!(w.run_row(server)["status"], "stopped");
    let e = s.fails_with(-32004, "commandtree/stop", json!({"id": id}));
    assert!(
        e["message"].as_str().unwrap().contains("not running"),
        "{e}"
    );
    s.fails_with(-32602, "commandtree/stop", json!({}));
    s.fails_with(
        -32602,
        "commandtree/stop",
        json!({"runId": server, "id": id}),
    );

    // Restarted: the old run stops, and the editor gets the plan to run it again itself.
    let worker = w.run(["run", "-d", "worker"]).run_id();
    let plan = s.ok("commandtree/restart", json!({"runId": worker}));
    assert_eq!(plan["id"], w.id("make", "Makefile", "worker"), "{plan}");
    assert_eq!(plan["action"], "terminal");
    assert!(
        plan["commandLine"].as_str().unwrap().contains("worker"),
        "{plan}"
    );
    assert_eq!(w.run_row(worker)["status"], "stopped");
    assert!(
        w.json(["runs", "--running", "--json"])
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Restarting a finished run plans it again too.
    let again = s.ok(
        "commandtree/restart",
        json!({"runId": server, "mode": "currentTerminal"}),
    );
    assert!(
        again["commandLine"].as_str().unwrap().starts_with("cd "),
        "{again}"
    );
    s.fails_with(-32004, "commandtree/restart", json!({"runId": 9999}));
    assert_eq!(s.finish(), Some(0));
}

/// Output a client saw, and a detached run's log, read into problems with absolute paths.
#[test]
fn problems_come_from_output_the_client_sends_and_from_a_runs_log() {
    let w = Workspace::new()
        .file("src/main.rs", "fn main() {}\n")
        .file("web/app.ts", "let x: number = 'a';\n")
        .file(
            "Makefile",
            "build:\n\t@echo 'src/lib.c:7:2: warning: unused variable [-Wunused-variable]'\n",
        );
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), true);
    let output = "\x1b[1m   Compiling x v0.1.0\x1b[0m\n\
                  error[E0308]: mismatched types\n  --> src/main.rs:3:5\n   |\n\n\
                  app.ts(1,5): error TS2322: Type 'string' is not assignable to type 'number'.\n";
    let p = s.ok(
        "commandtree/problems",
        json!({"output": output, "cwd": w.join("web").to_str().unwrap()}),
    );
    let list = p["problems"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{p}");
    let root = w.to_str().unwrap();
    let rust = &list[0];
    // Taken from `cwd`, as the tool printed it from there.
    assert_eq!(rust["path"], format!("{root}/web/src/main.rs"), "{p}");
    assert_eq!(rust["line"], 3);
    assert_eq!(rust["column"], 5);
    assert_eq!(rust["severity"], "error");
    assert_eq!(rust["code"], "E0308");
    assert_eq!(rust["message"], "mismatched types");
    let ts = &list[1];
    assert_eq!(ts["path"], format!("{root}/web/app.ts"), "{p}");
    assert_eq!(ts["file"], "web/app.ts");
    assert_eq!(
        (ts["line"].as_u64(), ts["column"].as_u64()),
        (Some(1), Some(5))
    );
    assert_eq!(ts["code"], "TS2322");
    assert_eq!(ts["source"], "tsc");
    // Without cwd: the root.
    let p = s.ok(
        "commandtree/problems",
        json!({"output": "app.ts(1,5): error TS2322: bad\n"}),
    );
    assert_eq!(p["problems"][0]["path"], format!("{root}/app.ts"));

    let run = w.run(["run", "-d", "build"]).run_id();
    assert!(eventually(|| w.run_row(run)["status"] == "ok"));
    let p = s.ok("commandtree/problems", json!({"runId": run}));
    assert_eq!(p["run"]["runId"], run, "{p}");
    assert_eq!(p["problems"][0]["path"], format!("{root}/src/lib.c"), "{p}");
    assert_eq!(p["problems"][0]["severity"], "warning");
    assert_eq!(p["problems"][0]["code"], "-Wunused-variable");
    s.fails_with(-32602, "commandtree/problems", json!({}));
    s.fails_with(
        -32602,
        "commandtree/problems",
        json!({"output": "", "runId": run}),
    );
    assert_eq!(s.finish(), Some(0));
}

/// What a command runs and what runs it, the same edges both ways.
#[test]
fn deps_gives_what_a_command_runs_and_what_runs_it() {
    let w = Workspace::new().file(
        "Makefile",
        "ci: build\n\techo ci\nbuild: lint\n\techo build\nlint:\n\techo lint\n",
    );
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), true);
    let d = s.ok("commandtree/deps", json!({"id": "make:build"}));
    assert_eq!(d["command"]["label"], "build", "{d}");
    let labels = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|l| {
                format!(
                    "{} {}",
                    l["label"].as_str().unwrap(),
                    l["how"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(labels(&d["runs"]), ["lint prerequisite"], "{d}");
    assert_eq!(labels(&d["runBy"]), ["ci prerequisite"], "{d}");
    let lint = s.ok("commandtree/deps", json!({"id": "make:lint"}));
    assert_eq!(
        labels(&lint["runBy"]),
        ["build prerequisite", "ci prerequisite"],
        "{lint}"
    );
    assert_eq!(lint["runBy"][1]["via"], json!(["build"]), "{lint}");
    s.fails_with(-32002, "commandtree/deps", json!({"id": "make:nothing"}));
    assert_eq!(s.finish(), Some(0));
}

/// "Run on change" in the editor: the server watches what a command depends on, with the
/// engine's rules (ignored files do not count), and says which files changed; the editor reruns.
#[test]
fn a_watched_command_is_told_when_its_files_change_until_unwatched() {
    let w = Workspace::new()
        .file("Makefile", "build:\n\tcat src/main.c\n")
        .file(".gitignore", "*.log\n")
        .file("src/main.c", "int main;\n");
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), true);
    let id = w.id("make", "Makefile", "build");
    let r = s.ok(
        "commandtree/watchCommand",
        json!({"id": "build", "watch": true}),
    );
    assert_eq!(r["id"], id, "{r}");
    assert_eq!(r["watching"], true);
    assert_eq!(r["folders"].as_array().unwrap().len(), 1, "{r}");

    // An ignored file first: the batch the editor hears of has only the file that counts.
    w.write("build.log", "noise\n");
    w.write("src/main.c", "int main(void) { return 0; }\n");
    let changed = s.notification("commandtree/commandFilesChanged", |p| p["id"] == id);
    let files: Vec<&str> = changed["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(files.iter().any(|f| f.ends_with("src/main.c")), "{changed}");
    assert!(!files.iter().any(|f| f.ends_with(".log")), "{changed}");

    let r = s.ok(
        "commandtree/watchCommand",
        json!({"id": id, "watch": false}),
    );
    assert_eq!(r["watching"], false, "{r}");
    w.write("src/main.c", "int main(void) { return 1; }\n");
    // Longer than the debounce and the settling after it: nothing comes once unwatched.
    std::thread::sleep(Duration::from_secs(3));
    s.ok("commandtree/running", json!({}));
    assert!(
        !s.seen
            .iter()
            .any(|m| m["method"] == "commandtree/commandFilesChanged"),
        "{:?}",
        s.seen
    );
    let (code, _) = s.err(
        "commandtree/watchCommand",
        json!({"id": "nothing-like-this", "watch": true}),
    );
    assert_eq!(code, -32002);
    assert_eq!(s.finish(), Some(0));
}

/// A run the editor starts in its own terminal is in the history once reported: `ct runs
/// --running` in a shell lists it while the terminal's shell lives, and its end is recorded.
#[test]
fn a_run_the_editor_reports_is_seen_running_from_a_shell_until_it_ends() {
    use std::os::unix::process::CommandExt;
    let w = Workspace::new().file("Makefile", "build:\n\techo $(MODE)\nquick:\n\ttrue\n");
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({}), true);
    s.ok("commandtree/watchFiles", json!({}));
    // Stands in for the terminal's shell: a process group leader that outlives the line it runs.
    let mut shell = Command::new("sleep")
        .arg("300")
        .process_group(0)
        .spawn()
        .unwrap();
    let id = w.id("make", "Makefile", "build");
    let r = s.ok(
        "commandtree/runStarted",
        json!({"id": "build", "mode": "newTerminal", "extraArgs": ["MODE=fast"], "pid": shell.id()}),
    );
    let run = &r["run"];
    let run_id = run["runId"].as_i64().unwrap();
    assert_eq!(run["commandId"], id, "{r}");
    assert_eq!(run["mode"], "editor");
    assert_eq!(run["status"], "running");
    assert!(
        run["commandLine"].as_str().unwrap().contains("MODE=fast"),
        "{r}"
    );

    let running = w.json(["runs", "--running", "--json"]);
    assert_eq!(running.as_array().unwrap().len(), 1, "{running}");
    assert_eq!(running[0]["runId"], run_id);
    assert_eq!(running[0]["label"], "build");
    s.notification("commandtree/runsChanged", |p| {
        p["running"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["run"]["runId"] == run_id))
    });

    let r = s.ok(
        "commandtree/runEnded",
        json!({"runId": run_id, "exitCode": 2}),
    );
    assert_eq!(r["run"]["status"], "failed", "{r}");
    assert_eq!(r["run"]["exitCode"], 2);
    assert!(r["run"]["durationMs"].is_i64(), "{r}");
    // The shell lives on after its line, as a terminal's does: the run is over all the same.
    assert!(
        w.json(["runs", "--running", "--json"])
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(w.run_row(run_id)["status"], "failed");
    s.notification("commandtree/runsChanged", |p| {
        p["running"].as_array().is_some_and(|a| a.is_empty())
    });
    // Only a run of an editor that goes on can be ended by one.
    let (code, _) = s.err(
        "commandtree/runEnded",
        json!({"runId": run_id, "exitCode": 0}),
    );
    assert_eq!(code, -32004);
    w.ok(["run", "quick"]);
    let cli = w.runs()[0]["runId"].as_i64().unwrap();
    let (code, e) = s.err("commandtree/runEnded", json!({"runId": cli, "exitCode": 1}));
    assert_eq!(code, -32004, "{e}");
    assert_eq!(w.run_row(cli)["status"], "ok");

    // Without a pid nothing can tell whether it still runs: never listed as running.
    let r = s.ok(
        "commandtree/runStarted",
        json!({"id": id, "mode": "currentTerminal"}),
    );
    let blind = r["run"]["runId"].as_i64().unwrap();
    assert!(
        w.json(["runs", "--running", "--json"])
            .as_array()
            .unwrap()
            .is_empty()
    );
    let r = s.ok(
        "commandtree/runEnded",
        json!({"runId": blind, "stopped": true}),
    );
    assert_eq!(r["run"]["status"], "stopped", "{r}");
    let _ = shell.kill();
    let _ = shell.wait();
    assert_eq!(s.finish(), Some(0));
}

/// An untrusted workspace neither records runs nor watches commands.
#[test]
fn runs_and_watches_are_refused_in_an_untrusted_workspace() {
    let w = Workspace::new().file("Makefile", "build:\n\ttrue\n");
    let mut s = start(&w, &[]);
    s.initialize(&w, json!({"trusted": false}), true);
    for (method, params) in [
        (
            "commandtree/watchCommand",
            json!({"id": "build", "watch": true}),
        ),
        (
            "commandtree/runStarted",
            json!({"id": "build", "mode": "newTerminal"}),
        ),
        ("commandtree/runEnded", json!({"runId": 1, "exitCode": 0})),
    ] {
        let (code, e) = s.err(method, params);
        assert_eq!(code, -32003, "{method}: {e}");
    }
    assert!(!w.root().join(".commandtree/commandtree.sqlite3").exists());
    assert_eq!(s.finish(), Some(0));
}
