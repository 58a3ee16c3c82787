//! What the skills tests share: scratch workspaces, and running a test in a child process of
//! its own test binary whose home folder is a scratch folder, so the `ct trust` records a test
//! writes (playbooks and command skills run only in a trusted workspace) never touch the
//! user's.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

/// Set in the child [`in_own_home`] starts.
const CHILD: &str = "COMMANDTREE_SKILLS_TEST_HOME";

/// An empty folder under the temporary directory, by its real path; removed when the returned
/// guard is dropped (when the test ends, passed or failed).
pub fn workspace(name: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("ct-skills-{name}-"))
        .tempdir()
        .unwrap();
    let real = std::fs::canonicalize(dir.path()).unwrap();
    (dir, real)
}

pub fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

/// Records the user's `ct trust` for `root` as it is now. Only inside [`in_own_home`].
pub fn trust(root: &Path) {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "trust only from inside in_own_home: it writes the home folder's trust records"
    );
    commandtree_core::trust::trust(root).unwrap();
}

/// Runs `body` in a child process of this test binary (the test named `test`, alone) with
/// `HOME` a scratch folder and no `XDG_CONFIG_HOME` or LLM provider variables; here, waits for
/// it and fails when it failed or did not run that test.
pub fn in_own_home(test: &str, body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let (_home, home) = workspace(&format!("home-{test}"));
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME");
    for v in [
        "COMMANDTREE_LLM_PROVIDER",
        "COMMANDTREE_LLM_BASE_URL",
        "COMMANDTREE_LLM_MODEL",
        "COMMANDTREE_LLM_API_KEY",
        "COMMANDTREE_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "GITHUB_TOKEN",
    ] {
        c.env_remove(v);
    }
    let out = c.output().expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(&format!("test {test} ... ok")),
        "{test} in its own home failed:\n{stdout}\n{stderr}"
    );
}
