//! `ct init fish` with a real fish: a picked line lands on the prompt as fish code, so whatever
//! the POSIX line holds (a label with `\'`, `$(...)`, `;`) must run exactly as `sh` would run it
//! and never as fish syntax. `commandline` is shadowed by a fish function that records the text
//! the snippet puts on the prompt (a real edit line needs an interactive terminal), and that
//! text is then run by fish as if the user pressed Enter.

// The workspace's one rule for a test that needs a tool: skipped with a note outside CI, a
// failure under it.
#[path = "../../ct/tests/it/support/skip.rs"]
mod skip;

use commandtree_exec::quote::sh_quote;
use commandtree_exec::shellinit::{InitShell, snippet};
use std::path::Path;
use std::process::Command;

/// Whether fish is here (scripts/test.sh installs it); missing, the test is skipped.
fn fish_installed() -> bool {
    skip::have("fish", "apt-get install fish; scripts/test.sh installs it")
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("ct-fish-")
        .tempdir()
        .unwrap()
}

/// Runs the fish snippet's Ctrl-G function with a `ct` that prints `line`, then runs what it
/// put on the prompt. Returns (stdout, prompt text).
fn pick_and_enter(dir: &Path, line: &str) -> (String, String) {
    let fake_ct = dir.join("fake ct");
    std::fs::write(dir.join("line.txt"), line).unwrap();
    std::fs::write(
        &fake_ct,
        format!(
            "#!/bin/sh\ncat {}\n",
            sh_quote(&dir.join("line.txt").to_string_lossy())
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake_ct, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let init = snippet(InitShell::Fish, "ctrl-g", &fake_ct.to_string_lossy()).unwrap();
    let script = format!(
        "{init}\nfunction commandline\n  if test \"$argv[1]\" = -r\n    set -g __prompt $argv[3]\n  end\nend\n__ct_pick\nprintf '%s' $__prompt > prompt.txt\neval $__prompt\n"
    );
    let out = Command::new("fish")
        .arg("--no-config")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        std::fs::read_to_string(dir.join("prompt.txt")).unwrap_or_default(),
    )
}

#[test]
fn a_picked_line_runs_as_sh_would_run_it_in_fish() {
    if !fish_installed() {
        return;
    }
    let scratch = scratch();
    let dir = scratch.path().to_path_buf();
    for label in [
        r"x\'; touch pwned; echo '",
        "it's $(touch pwned) `touch pwned`",
        "a\\",
        "semi; touch pwned",
        "new\nline; touch pwned",
    ] {
        let line = format!(
            "cd -- {} && printf '%s\\n' {}",
            sh_quote(&dir.to_string_lossy()),
            sh_quote(label)
        );
        let (out, prompt) = pick_and_enter(&dir, &line);
        assert_eq!(out, format!("{label}\n"), "prompt: {prompt}");
        assert!(prompt.starts_with("sh -c "), "{prompt}");
        assert!(!dir.join("pwned").exists(), "{label:?} ran code: {prompt}");
    }
}
