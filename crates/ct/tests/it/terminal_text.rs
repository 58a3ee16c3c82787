//! Workspace text never reaches a terminal raw: labels, descriptions, a file `@file` reads, the
//! output and label `@run` reports, `ct pick`'s rows and `ct search`'s hits hold an SGR colour,
//! an OSC title and a bidi override here, and the real `ct` must show each escaped (`\x1b`).
//! The surfaces that print only on a terminal are run in a real pseudo-terminal (`script`).

use crate::support::{Workspace, model_dir};

/// An SGR colour, an OSC window title ended by BEL, and RIGHT-TO-LEFT OVERRIDE.
const HOSTILE: &str = "\x1b[31mred\x1b]0;title\x07\u{202e}evil";
/// How the cleaner writes [`HOSTILE`].
const ESCAPED: &str = "\\x1b[31mred\\x1b]0;title\\x07\\u{202e}evil";

#[track_caller]
fn assert_no_raw(what: &str, text: &str) {
    for raw in ['\x1b', '\x07', '\u{202e}'] {
        assert!(!text.contains(raw), "{what}: raw {raw:?} in {text:?}");
    }
}

/// A workspace whose labels, file names, file text and command output carry [`HOSTILE`].
fn hostile_workspace() -> Workspace {
    Workspace::new()
        .file(
            "package.json",
            format!(
                r#"{{"scripts":{{"{}":"echo hi","safe":"echo safe"}}}}"#,
                HOSTILE
                    .replace('\x1b', "\\u001b")
                    .replace('\x07', "\\u0007")
            ),
        )
        .executable(
            format!("{HOSTILE}.sh"),
            "#!/bin/sh\nprintf 'out \\033[31mred\\033]0;t\\007\\342\\200\\256\\n'\n",
        )
        .file("notes.txt", format!("line one\n{HOSTILE}\n"))
}

const READ_NOTES: [&str; 7] = [
    "skill",
    "run",
    "file",
    "--action",
    "read",
    "--path",
    "notes.txt",
];

#[test]
fn skill_run_file_read_is_cleaned_on_a_terminal_and_exact_in_a_pipe() {
    let w = hostile_workspace();
    let shown = w.ct().args(READ_NOTES).on_terminal();
    assert_no_raw("@file read on a terminal", &shown);
    assert!(shown.contains(ESCAPED), "{shown}");
    assert!(
        shown.contains("line one\r\n"),
        "line breaks stay: {shown:?}"
    );
    // Piped, the reply is the file as it is, to be fed to another program.
    w.run(READ_NOTES)
        .success()
        .stdout_is(format!("line one\n{HOSTILE}\n"));
}

#[test]
fn skill_run_run_output_and_label_are_cleaned_on_a_terminal() {
    let w = hostile_workspace();
    let label = format!("{HOSTILE}.sh");
    let shown = w
        .ct()
        .args(["skill", "run", "run", "--command", &label])
        .on_terminal();
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
    let w = hostile_workspace();
    // A stand-in fzf: keeps the rows it was given and picks the `safe` one. Outside the
    // workspace, so it is not one of its commands.
    let bin = Workspace::new().executable(
        "fzf",
        "#!/bin/sh\ncat > \"$FZF_ROWS\"\ngrep '^safe\t' \"$FZF_ROWS\"\n",
    );
    let rows = w.join(".home/rows.txt");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = w
        .ct()
        .env("PATH", &path)
        .env("FZF_ROWS", &rows)
        .arg("pick")
        .run()
        .success()
        .stdout();
    assert!(out.ends_with("&& npm run safe\n"), "{out}");
    let given = w.read(".home/rows.txt");
    assert_no_raw("the rows fzf shows", &given);
    assert!(given.contains(&format!("{ESCAPED}\tnpm\t")), "{given}");
    assert_eq!(given.lines().count(), 3, "one row per command: {given}");
    drop(bin);
    // Picking the hostile script by its name: its line would read differently on the prompt.
    let o = w
        .run(["pick", "--query", HOSTILE])
        .code(1)
        .stdout_is("")
        .stderr_has(ESCAPED);
    assert_no_raw("the refusal", &o.stderr());
}

#[test]
fn search_hits_and_at_search_replies_are_cleaned() {
    let Some(model) = model_dir() else {
        return;
    };
    let w = hostile_workspace()
        .env("COMMANDTREE_MODEL_DIR", &model)
        .env("COMMANDTREE_OFFLINE", "1");
    w.run(["embed"]).success();
    let out = w
        .run(["search", "--threshold", "0", "red evil"])
        .success()
        .stdout_has(ESCAPED)
        .stdout();
    assert_no_raw("ct search", &out);
    // `@search` prints its reply on a terminal like every skill.
    let shown = w
        .ct()
        // The skill keeps the default similarity threshold; these words of the label clear it.
        .args(["skill", "run", "search", "--query", "title evil"])
        .on_terminal();
    assert_no_raw("@search on a terminal", &shown);
    assert!(shown.contains(ESCAPED), "{shown}");
}
