//! A cloned repository attacking `ct` through what it plans and prints: planning (`--dry-run`)
//! must not start the repository's programs, a `${input:x}` value must stay one value whatever
//! shell syntax surrounds it, and labels must not forge lines or terminal escapes in `ct list`
//! and `ct show`. Everything runs the built binary on a scratch workspace.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn ct(root: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ct"));
    c.arg("--root")
        .arg(root)
        .args(args)
        .stdin(Stdio::null())
        .env("NO_COLOR", "1")
        .env("HOME", root.join(".home"))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("TMUX");
    c.output().expect("run ct")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn workspace(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ct-untrusted-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".home")).unwrap();
    std::fs::canonicalize(&dir).unwrap()
}

fn write(root: &Path, rel: &str, content: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    p
}

#[cfg(unix)]
fn executable(root: &Path, rel: &str, content: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = write(root, rel, content);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[cfg(unix)]
#[test]
fn planning_a_launch_config_never_starts_the_repositorys_interpreter() {
    let root = workspace("dryrun");
    let marker = root.join("interpreter-ran");
    // The repository's own "python": anything it runs is the repository's code.
    executable(
        &root,
        ".venv/bin/python",
        &format!("#!/bin/sh\necho ran >> '{}'\nexit 0\n", marker.display()),
    );
    write(
        &root,
        ".vscode/launch.json",
        r#"{"version": "0.2.0", "configurations": [
            {"name": "Py", "type": "debugpy", "request": "launch", "program": "${workspaceFolder}/app.py",
             "python": "${workspaceFolder}/.venv/bin/python"}]}"#,
    );
    write(&root, "app.py", "print('hi')\n");
    for args in [
        &["debug", "Py", "--dry-run"][..],
        &["run", "Py", "--dry-run"],
        &["run", "launch:Py", "--dry-run"],
    ] {
        let out = ct(&root, args);
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            stdout.contains("-m debugpy --listen 127.0.0.1:5678 --wait-for-client"),
            "{stdout}"
        );
        assert!(!marker.exists(), "{args:?} started the repository's python");
    }
}

#[test]
fn labels_cannot_forge_lines_or_send_terminal_escapes() {
    let root = workspace("labels");
    let evil = "build\n  forged.sh\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}txt.exe\u{9b}31m";
    write(
        &root,
        "package.json",
        &serde_json::json!({
            "name": "x",
            "scripts": {evil: "echo hi", "test": "echo ok"},
        })
        .to_string(),
    );
    let out = ct(&root, &["list"]);
    let listing = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
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
    assert!(
        listing.contains(r"build\n  forged.sh\x1b]0;owned\x07\x1b[2J\u{202e}txt.exe\x9b31m"),
        "{listing}"
    );
    let out = ct(&root, &["show", "npm:test"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let id = serde_json::from_slice::<serde_json::Value>(&ct(&root, &["list", "--json"]).stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == evil)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .expect("JSON keeps the label exactly");
    let out = ct(&root, &["show", &id]);
    let shown = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !shown.contains('\u{1b}') && !shown.lines().any(|l| l.starts_with("  forged")),
        "{shown:?}"
    );
}

#[test]
fn an_input_value_inside_nested_shell_syntax_stays_a_value() {
    let root = workspace("inputs");
    write(
        &root,
        ".vscode/tasks.json",
        r#"{"version": "2.0.0", "tasks": [
            {"label": "greet", "type": "shell",
             "command": "printf '%s|' \"$(printf '%s' ${input:name})\" `printf '%s' ${input:name}` # ${input:name}\nprintf 'end\\n'"}],
           "inputs": [{"id": "name", "type": "promptString", "default": "x"}]}"#,
    );
    let value = "a\nb\"; touch pwned; echo \"`touch pwned`$(touch pwned)";
    let out = ct(
        &root,
        &["run", "greet", "--param", &format!("name={value}")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!root.join("pwned").exists(), "{}", text(&out.stdout));
    assert!(!root.join(".vscode/pwned").exists());
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with(&format!("{value}|")), "{stdout:?}");
    assert!(stdout.ends_with("end\n"), "{stdout:?}");
    let out = ct(&root, &["run", "greet", "--dry-run", "--param", "name=v"]);
    assert!(
        text(&out.stdout).contains("CT_INPUT_name"),
        "{}",
        text(&out.stdout)
    );
}
