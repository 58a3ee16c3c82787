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
