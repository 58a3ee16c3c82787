//! Workspace text never reaches a terminal raw: labels, descriptions, a file `@file` reads, the
//! output and label `@run` reports, `ct pick`'s rows and `ct search`'s hits hold an SGR colour,
//! an OSC title and a bidi override here, and the real `ct` must show each escaped (`\x1b`).
//! The surfaces that print only on a terminal are run in a real pseudo-terminal (`script`).

use crate::support;

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// An SGR colour, an OSC window title ended by BEL, and RIGHT-TO-LEFT OVERRIDE.
const HOSTILE: &str = "\x1b[31mred\x1b]0;title\x07\u{202e}evil";
/// How the cleaner writes [`HOSTILE`].
const ESCAPED: &str = "\\x1b[31mred\\x1b]0;title\\x07\\u{202e}evil";

fn assert_no_raw(what: &str, text: &str) {
    for raw in ['\x1b', '\x07', '\u{202e}'] {
        assert!(!text.contains(raw), "{what}: raw {raw:?} in {text:?}");
    }
}

/// A workspace whose labels, file names, file text and command output carry [`HOSTILE`].
fn hostile_workspace(name: &str) -> PathBuf {
    let w = workspace("terminal-text", name);
    write(
        &w,
        "package.json",
        format!(
            r#"{{"scripts":{{"{}":"echo hi","safe":"echo safe"}}}}"#,
            HOSTILE
                .replace('\x1b', "\\u001b")
                .replace('\x07', "\\u0007")
        ),
    );
    executable(
        &w,
        &format!("{HOSTILE}.sh"),
        "#!/bin/sh\nprintf 'out \\033[31mred\\033]0;t\\007\\342\\200\\256\\n'\n",
    );
    write(&w, "notes.txt", format!("line one\n{HOSTILE}\n"));
    w
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `ct --root ROOT ARGS` (after `VARS` assignments) with its stdout and stderr on a real
/// pseudo-terminal (util-linux `script`), as a person at a terminal would run it, in the
/// environment of `support::command`. Returns what the terminal received.
fn on_terminal_with(w: &Path, vars: &[(&str, &str)], args: &[&str]) -> String {
    let mut line = String::from("exec env");
    for (k, v) in vars {
        line.push_str(&format!(" {k}={}", sh_quote(v)));
    }
    line.push_str(&format!(
        " {} --root {}",
        sh_quote(env!("CARGO_BIN_EXE_ct")),
        sh_quote(w.to_str().unwrap())
    ));
    for a in args {
        line.push(' ');
        line.push_str(&sh_quote(a));
    }
    let wrapper = executable(w, ".home/on-terminal.sh", format!("#!/bin/sh\n{line}\n"));
    let mut c = Command::new("script");
    c.args(["-qefc", wrapper.to_str().unwrap(), "/dev/null"])
        .stdin(Stdio::null())
        .env("NO_COLOR", "1")
        .env("HOME", w.join(".home"))
        .env("OLLAMA_HOST", closed_port());
    for v in SCRUBBED {
        c.env_remove(v);
    }
    let o = c
        .output()
        .expect("util-linux `script` runs (it gives the test a terminal)");
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "ct {args:?} on a terminal:\n{text}");
    text
}

fn on_terminal(w: &Path, args: &[&str]) -> String {
    on_terminal_with(w, &[], args)
}

#[test]
fn skill_run_file_read_is_cleaned_on_a_terminal_and_exact_in_a_pipe() {
    let w = hostile_workspace("file");
    let shown = on_terminal(
        &w,
        &[
            "skill",
            "run",
            "file",
            "--action",
            "read",
            "--path",
            "notes.txt",
        ],
    );
    assert_no_raw("@file read on a terminal", &shown);
    assert!(shown.contains(ESCAPED), "{shown}");
    assert!(
        shown.contains("line one\r\n"),
        "line breaks stay: {shown:?}"
    );
    // Piped, the reply is the file as it is, to be fed to another program.
    let o = ct(
        &w,
        &[
            "skill",
            "run",
            "file",
            "--action",
            "read",
            "--path",
            "notes.txt",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("line one\n{HOSTILE}\n"));
}

#[test]
fn skill_run_run_output_and_label_are_cleaned_on_a_terminal() {
    let w = hostile_workspace("run");
    let label = format!("{HOSTILE}.sh");
    let shown = on_terminal(&w, &["skill", "run", "run", "--command", &label]);
    assert_no_raw("@run on a terminal", &shown);
    assert!(
        shown.contains(&format!("`{ESCAPED}.sh` exited with code 0")),
        "{shown}"
    );
    assert!(
        shown.contains("out \\x1b[31mred\\x1b]0;t\\x07\\u{202e}"),
        "{shown}"
    );
}

#[test]
fn pick_shows_clean_rows_and_refuses_to_put_a_disguised_line_on_the_prompt() {
    let w = hostile_workspace("pick");
    // A stand-in fzf: keeps the rows it was given and picks the `safe` one.
    // Outside the workspace, so it is not one of its commands.
    let bin = w.with_extension("bin");
    let _ = std::fs::remove_dir_all(&bin);
    executable(
        &bin,
        "fzf",
        "#!/bin/sh\ncat > \"$FZF_ROWS\"\ngrep '^safe\t' \"$FZF_ROWS\"\n",
    );
    let rows = w.join(".home/rows.txt");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = ct_with(
        &w,
        &[("PATH", &path), ("FZF_ROWS", rows.to_str().unwrap())],
        &["pick"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).ends_with("&& npm run safe\n"), "{}", stdout(&o));
    let given = std::fs::read_to_string(&rows).unwrap();
    assert_no_raw("the rows fzf shows", &given);
    assert!(given.contains(&format!("{ESCAPED}\tnpm\t")), "{given}");
    assert_eq!(given.lines().count(), 3, "one row per command: {given}");
    let _ = std::fs::remove_dir_all(&bin);
    // Picking the hostile script by its name: its line would read differently on the prompt.
    let o = ct(&w, &["pick", "--query", HOSTILE]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(o.stdout.is_empty(), "{:?}", stdout(&o));
    assert_no_raw("the refusal", &stderr(&o));
    assert!(stderr(&o).contains(ESCAPED), "{}", stderr(&o));
}

#[test]
fn search_hits_and_at_search_replies_are_cleaned() {
    let Some(model) = support::model_dir() else {
        return;
    };
    let w = hostile_workspace("search");
    let vars = [
        ("COMMANDTREE_MODEL_DIR", model.to_str().unwrap()),
        ("COMMANDTREE_OFFLINE", "1"),
    ];
    let o = ct_with(&w, &vars, &["embed"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = ct_with(&w, &vars, &["search", "--threshold", "0", "red evil"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_no_raw("ct search", &stdout(&o));
    assert!(stdout(&o).contains(ESCAPED), "{}", stdout(&o));
    // `@search` prints its reply on a terminal like every skill.
    let shown = on_terminal_with(
        &w,
        &vars,
        // The skill keeps the default similarity threshold; these words of the label clear it.
        &["skill", "run", "search", "--query", "title evil"],
    );
    assert_no_raw("@search on a terminal", &shown);
    assert!(shown.contains(ESCAPED), "{shown}");
}
