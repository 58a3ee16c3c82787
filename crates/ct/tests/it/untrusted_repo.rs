//! A cloned repository attacking `ct` through what it plans and prints: planning (`--dry-run`)
//! must not start the repository's programs, a `${input:x}` value must stay one value whatever
//! shell syntax surrounds it, and labels must not forge lines or terminal escapes in `ct list`
//! and `ct show`. Everything runs the built binary on a scratch workspace.

use crate::support::{Workspace, labelled};

#[cfg(unix)]
#[test]
fn planning_a_launch_config_never_starts_the_repositorys_interpreter() {
    let w = Workspace::new();
    let marker = w.join("interpreter-ran");
    // The repository's own "python": anything it runs is the repository's code.
    w.write_executable(
        ".venv/bin/python",
        format!("#!/bin/sh\necho ran >> '{}'\nexit 0\n", marker.display()),
    );
    w.write(
        ".vscode/launch.json",
        r#"{"version": "0.2.0", "configurations": [
            {"name": "Py", "type": "debugpy", "request": "launch", "program": "${workspaceFolder}/app.py",
             "python": "${workspaceFolder}/.venv/bin/python"}]}"#,
    );
    w.write("app.py", "print('hi')\n");
    for args in [
        &["debug", "Py", "--dry-run"][..],
        &["run", "Py", "--dry-run"],
        &["run", "launch:Py", "--dry-run"],
    ] {
        w.run(args)
            .code(0)
            .stdout_has("-m debugpy --listen 127.0.0.1:5678 --wait-for-client");
        assert!(!marker.exists(), "{args:?} started the repository's python");
    }
}

#[test]
fn labels_cannot_forge_lines_or_send_terminal_escapes() {
    let evil = "build\n  forged.sh\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}txt.exe\u{9b}31m";
    let w = Workspace::new().file(
        "package.json",
        serde_json::json!({
            "name": "x",
            "scripts": {evil: "echo hi", "test": "echo ok"},
        })
        .to_string(),
    );
    let listing = w
        .run(["list"])
        .code(0)
        .stdout_has(r"build\n  forged.sh\x1b]0;owned\x07\x1b[2J\u{202e}txt.exe\x9b31m")
        .stdout();
    assert!(
        !listing
            .lines()
            .any(|l| l.trim_start().starts_with("forged.sh")),
        "{listing}"
    );
    for bad in ['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}'] {
        assert!(
            !listing.contains(bad),
            "{bad:?} reached the terminal: {listing:?}"
        );
    }
    w.run(["show", "npm:test"]).code(0);
    // JSON keeps the label exactly.
    let listed = w.run(["list", "--json"]).json();
    let id = labelled(&listed, evil)["id"].as_str().unwrap().to_string();
    let shown = w.run(["show", &id]).code(0).stdout_lacks("\u{1b}").stdout();
    assert!(
        !shown.lines().any(|l| l.starts_with("  forged")),
        "{shown:?}"
    );
}

#[test]
fn an_input_value_inside_nested_shell_syntax_stays_a_value() {
    let w = Workspace::new().file(
        ".vscode/tasks.json",
        r#"{"version": "2.0.0", "tasks": [
            {"label": "greet", "type": "shell",
             "command": "printf '%s|' \"$(printf '%s' ${input:name})\" `printf '%s' ${input:name}` # ${input:name}\nprintf 'end\\n'"}],
           "inputs": [{"id": "name", "type": "promptString", "default": "x"}]}"#,
    );
    let value = "a\nb\"; touch pwned; echo \"`touch pwned`$(touch pwned)";
    let stdout = w
        .run(["run", "greet", "--param", &format!("name={value}")])
        .code(0)
        .stdout();
    assert!(!w.join("pwned").exists(), "{stdout}");
    assert!(!w.join(".vscode/pwned").exists());
    assert!(stdout.starts_with(&format!("{value}|")), "{stdout:?}");
    assert!(stdout.ends_with("end\n"), "{stdout:?}");
    w.run(["run", "greet", "--dry-run", "--param", "name=v"])
        .stdout_has("CT_INPUT_name");
}
