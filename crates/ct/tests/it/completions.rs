//! `ct completions`: the scripts for bash, zsh and fish, and the dynamic completion of command
//! names they call back for (labels of the workspace in the current folder, `type:label` where a
//! label is shared).

use crate::support::{CT, Ct, Workspace};
use std::path::Path;
use std::process::Command;

#[test]
fn scripts_register_the_callback_for_each_shell() {
    let w = Workspace::new();
    for (shell, marker) in [
        ("bash", "complete -o nospace -o bashdefault"),
        ("zsh", "compdef"),
        ("fish", "complete --keep-order --exclusive --command ct"),
    ] {
        w.run(["completions", shell])
            .success()
            .stdout_has(marker)
            .stdout_has("COMPLETE=");
    }
    w.run(["completions", "tcsh"]).code(2);
}

/// `ct` asked as a shell's completion asks it, from the workspace's folder: `COMPLETE=SHELL ct
/// -- ct WORDS…`.
fn complete(w: &Workspace, shell: &str, words: &[&str]) -> Ct {
    w.ct()
        .no_root()
        .current_dir(w)
        .env("COMPLETE", shell)
        .args(["--", "ct"])
        .args(words)
}

#[test]
fn run_and_show_complete_the_labels_of_the_workspace_here() {
    let w = Workspace::new()
        .file(
            "package.json",
            r#"{"scripts":{"build":"tsc","serve":"vite"}}"#,
        )
        .file("Makefile", "build:\n\tcc x.c\n")
        .executable("deploy.sh", "#!/bin/sh\necho deploy\n");
    for sub in ["run", "show"] {
        let s = complete(&w, "fish", &[sub, ""]).run().stdout();
        let names: Vec<&str> = s.lines().map(|l| l.split('\t').next().unwrap()).collect();
        for want in ["serve", "deploy.sh", "npm:build", "make:build"] {
            assert!(
                names.contains(&want),
                "{sub}: {want} missing from {names:?}"
            );
        }
        assert!(
            !names.contains(&"build"),
            "a shared label is not offered alone: {names:?}"
        );
    }
}

/// A workspace whose npm scripts are named to break out of a shell word.
fn hostile_labels() -> Workspace {
    Workspace::new().file(
        "package.json",
        r#"{"scripts":{"test; touch x":"echo hi","it's $(touch y)":"echo hi","nl\ntouch z":"echo hi"}}"#,
    )
}

/// `bash -c SCRIPT bash ARGS…` in the workspace, with the built `ct` first on `PATH`.
fn bash(w: &Workspace, script: &str, args: &[&str]) -> std::process::Output {
    let bin = Path::new(CT).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script, "bash"])
        .args(args)
        .current_dir(w)
        .env("HOME", w.home())
        .env("PATH", &path)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs")
}

/// The candidates bash's completion function (from `ct completions bash`) puts in COMPREPLY
/// for `ct run WORD`, with the real bash and the real binary on PATH.
fn bash_complete(w: &Workspace, word: &str) -> Vec<String> {
    let script = r#"
source <(ct completions bash) || exit 3
COMP_WORDS=(ct run "$1"); COMP_CWORD=2; COMP_TYPE=9
COMP_LINE="ct run $1"; COMP_POINT=${#COMP_LINE}
_clap_complete_ct ct "$1" run
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let o = bash(w, script, &[word]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completion_inserts_one_quoted_word_that_runs_nothing_else() {
    let w = hostile_labels();
    for (typed, label) in [
        ("te", "test; touch x"),
        ("'te", "test; touch x"),
        ("\"te", "test; touch x"),
        ("it", "it's $(touch y)"),
        ("'it", "it's $(touch y)"),
    ] {
        let got = bash_complete(&w, typed);
        assert_eq!(got.len(), 1, "{typed}: {got:?}");
        // The line as the user would run it after pressing Tab: the word must name the script
        // and run nothing of its own.
        let line = format!("ct run --dry-run {}", got[0]);
        let o = bash(&w, &line, &[]);
        for planted in ["x", "y", "z"] {
            assert!(
                !w.join(planted).exists(),
                "{typed}: `{line}` created {planted}"
            );
        }
        assert!(
            o.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("npm run"),
            "{line}: {label} planned as {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    // A label with a line break would be a second candidate of its own: never offered.
    assert!(bash_complete(&w, "nl").is_empty());
    assert!(bash_complete(&w, "touch").is_empty());
}

/// `ct` asked as zsh and fish ask it (their registration scripts run exactly this).
fn shell_complete(w: &Workspace, shell: &str, word: &str) -> Vec<String> {
    let mut c = complete(w, shell, &["run", word]);
    if shell == "zsh" {
        c = c.env("_CLAP_COMPLETE_INDEX", "2").env("_CLAP_IFS", "\n");
    }
    c.run()
        .success()
        .stdout()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn zsh_and_fish_get_the_label_itself_and_never_a_line_of_a_label() {
    let w = hostile_labels();
    for shell in ["zsh", "fish"] {
        // Both shells quote what they insert; the value must be the label itself, matched
        // against the word with its quotes taken off.
        let sep = if shell == "zsh" { ':' } else { '\t' };
        for typed in ["te", "'te", "test\\;"] {
            let got = shell_complete(&w, shell, typed);
            let values: Vec<&str> = got.iter().map(|l| l.split(sep).next().unwrap()).collect();
            assert_eq!(values, ["test; touch x"], "{shell} {typed}: {got:?}");
        }
        let all = shell_complete(&w, shell, "");
        let names: Vec<&String> = all.iter().filter(|l| !l.starts_with("--")).collect();
        assert!(
            names
                .iter()
                .all(|l| !l.starts_with("touch z") && !l.starts_with("nl")),
            "{shell}: {all:?}"
        );
        assert_eq!(names.len(), 2, "{shell}: {all:?}");
    }
}
