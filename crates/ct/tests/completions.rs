//! `ct completions`: the scripts for bash, zsh and fish, and the dynamic completion of command
//! names they call back for (labels of the workspace in the current folder, `type:label` where a
//! label is shared).

mod support;

use std::process::Command;
use support::*;

#[test]
fn scripts_register_the_callback_for_each_shell() {
    let w = workspace("completions", "scripts");
    for (shell, marker) in [
        ("bash", "complete -o nospace -o bashdefault"),
        ("zsh", "compdef"),
        ("fish", "complete --keep-order --exclusive --command ct"),
    ] {
        let o = ct(&w, &["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let s = stdout(&o);
        assert!(s.contains(marker), "{shell}:\n{s}");
        assert!(s.contains("COMPLETE="), "{shell}:\n{s}");
    }
    let o = ct(&w, &["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn run_and_show_complete_the_labels_of_the_workspace_here() {
    let w = workspace("completions", "labels");
    write(
        &w,
        "package.json",
        r#"{"scripts":{"build":"tsc","serve":"vite"}}"#,
    );
    write(&w, "Makefile", "build:\n\tcc x.c\n");
    executable(&w, "deploy.sh", "#!/bin/sh\necho deploy\n");
    for sub in ["run", "show"] {
        let o = Command::new(env!("CARGO_BIN_EXE_ct"))
            .current_dir(&w)
            .env("COMPLETE", "fish")
            .env("HOME", w.join(".home"))
            .args(["--", "ct", sub, ""])
            .output()
            .unwrap();
        let s = stdout(&o);
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
