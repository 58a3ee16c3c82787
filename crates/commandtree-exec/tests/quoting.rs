//! Any parameter value reaches the program as exactly that one argument: arbitrary strings go
//! through every parameter format and `-- extra args` into a command line, a real shell (`sh`,
//! and `bash` and `zsh` when installed) runs it, and a script prints its argv, which must equal
//! what went in.

// The workspace's one rule for a test that needs a tool: skipped with a note outside CI, a
// failure under it.
#[path = "../../ct/tests/it/support/skip.rs"]
mod skip;

use commandtree_core::{CommandItem, ParamDef, ParamFormat};
use commandtree_exec::line;
use commandtree_exec::params::Values;
use commandtree_exec::quote::join_words;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

/// `sh`, and `bash` and `zsh` (scripts/test.sh installs them); one missing is skipped, once.
fn shells() -> Vec<&'static str> {
    static FOUND: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            let mut v = vec!["sh"];
            for s in ["bash", "zsh"] {
                if skip::have(
                    s,
                    "quoting is checked without it; scripts/test.sh installs it",
                ) {
                    v.push(s);
                }
            }
            v
        })
        .clone()
}

/// A script printing each argument followed by a NUL byte, in a scratch folder removed when the
/// returned guard is dropped.
fn argv_script() -> (TempDir, PathBuf) {
    let scratch = tempfile::Builder::new()
        .prefix("ct-quoting-")
        .tempdir()
        .unwrap();
    let p = scratch.path().join("argv printer's.sh");
    std::fs::write(&p, "printf '%s\\0' \"$@\"\n").unwrap();
    (scratch, p)
}

fn item(script: &Path) -> CommandItem {
    let flag = |name: &str, format: ParamFormat, flag: &str| ParamDef {
        format: Some(format),
        flag: Some(flag.to_string()),
        ..ParamDef::new(name)
    };
    let mut files = ParamDef::new("files");
    files.variadic = true;
    let mut it = CommandItem::new(
        "shell",
        script,
        "argv.sh",
        format!("sh {}", commandtree_core::text::quote_path(script)),
    );
    it.params = vec![
        ParamDef::new("pos"),
        flag("f", ParamFormat::Flag, "--flag"),
        flag("e", ParamFormat::FlagEquals, "--eq"),
        files,
        ParamDef {
            format: Some(ParamFormat::DashdashArgs),
            ..ParamDef::new("args")
        },
    ];
    it
}

fn run(shell: &str, line: &str) -> Vec<String> {
    let out = Command::new(shell).arg("-c").arg(line).output().unwrap();
    assert!(
        out.status.success(),
        "{shell} failed on {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut parts: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .map(|b| String::from_utf8(b.to_vec()).expect("utf-8 argv"))
        .collect();
    assert_eq!(parts.pop().as_deref(), Some(""), "output ends with NUL");
    parts
}

fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => any::<char>().prop_filter("no NUL", |c| *c != '\0'),
        2 => prop::sample::select(vec![
            '\'', '"', '$', '`', '\\', ';', '\n', '\r', ' ', '\t', '*', '?', '!', '&', '|', '(',
            ')', '{', '}', '[', ']', '~', '#', '=', '-', '<', '>', '%', '^', 'é', '😀', '\u{2019}',
        ]),
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop::collection::vec(tricky_char(), 1..16).prop_map(|v| v.into_iter().collect())
}

fn words() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::collection::vec(tricky_char(), 0..8).prop_map(|v| v.into_iter().collect()),
        0..4,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_format_delivers_exact_arguments(
        pos in value(),
        f in value(),
        e in value(),
        files in words(),
        args in words(),
        extra in words(),
    ) {
        let (_scratch, script) = argv_script();
        let it = item(&script);
        let mut values = Values::new();
        values.insert("pos".into(), pos.clone());
        values.insert("f".into(), f.clone());
        values.insert("e".into(), e.clone());
        values.insert("files".into(), join_words(&files));
        values.insert("args".into(), join_words(&args));
        let built = line::build(&it, &values, &extra).unwrap();
        let mut want = vec![pos, "--flag".to_string(), f, format!("--eq={e}")];
        // An empty list is an empty value, and empty values add nothing.
        want.extend(files.iter().cloned());
        if !args.is_empty() {
            want.push("--".to_string());
            want.extend(args.iter().cloned());
        }
        want.extend(extra.iter().cloned());
        for shell in shells() {
            prop_assert_eq!(&run(shell, &built), &want, "{} ran {:?}", shell, built);
        }
    }
}

#[test]
fn a_value_with_a_nul_byte_is_refused() {
    let (_scratch, script) = argv_script();
    let it = item(&script);
    let mut values = Values::new();
    values.insert("pos".into(), "a\0b".into());
    let e = line::build(&it, &values, &[]).unwrap_err();
    assert!(e.to_string().contains("NUL"), "{e}");
}

/// `${input:v}` placed in nested shell syntax of a VS Code task line: each template, the shells
/// that understand it, and what the line must print (NUL-separated) given the value.
type Expect = fn(&str) -> Vec<String>;
const NESTED: &[(&str, &[&str], Expect)] = &[
    ("printf '%s\\0' ${input:v}", &["sh", "bash", "zsh"], |v| {
        vec![v.into()]
    }),
    (
        "printf '%s\\0' \"${input:v}\"",
        &["sh", "bash", "zsh"],
        |v| vec![v.into()],
    ),
    (
        "printf '%s\\0' 'a${input:v}b'",
        &["sh", "bash", "zsh"],
        |v| vec![format!("a{v}b")],
    ),
    // Command substitution drops trailing newlines: the `.` keeps them.
    (
        "printf '%s\\0' \"$(printf '%s.' \"${input:v}\")\"",
        &["sh", "bash", "zsh"],
        |v| vec![format!("{v}.")],
    ),
    (
        "printf '%s\\0' \"$(printf '%s.' ${input:v})\"",
        &["sh", "bash", "zsh"],
        |v| vec![format!("{v}.")],
    ),
    (
        "printf '%s\\0' \"$(printf '%s.' '${input:v}')\"",
        &["sh", "bash", "zsh"],
        |v| vec![format!("{v}.")],
    ),
    (
        "x=`printf '%s.' ${input:v}`; printf '%s\\0' \"$x\"",
        &["sh", "bash", "zsh"],
        |v| vec![format!("{v}.")],
    ),
    ("printf '%s\\0' $'a${input:v}b'", &["bash", "zsh"], |v| {
        vec![format!("a{v}b")]
    }),
    (
        "printf '%s\\0' ok # ${input:v}\nprintf '%s\\0' done",
        &["sh", "bash", "zsh"],
        |_| vec!["ok".into(), "done".into()],
    ),
    (
        "x=$(cat <<EOF\n${input:v}.\nEOF\n); printf '%s\\0' \"$x\"",
        &["sh", "bash", "zsh"],
        |v| vec![format!("{v}.")],
    ),
];

/// Where the nested-syntax lines run: `pwned` appears here if a value ran.
fn nested_dir() -> TempDir {
    tempfile::Builder::new()
        .prefix("ct-nested-")
        .tempdir()
        .unwrap()
}

fn run_with_env(dir: &Path, shell: &str, line: &str, env: &[(String, String)]) -> Vec<String> {
    let out = Command::new(shell)
        .arg("-c")
        .arg(line)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("HOME", "/")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{shell} failed on {line:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut parts: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .collect();
    assert_eq!(parts.pop().as_deref(), Some(""), "output ends with NUL");
    parts
}

fn input_value() -> impl Strategy<Value = String> {
    let nasty = prop::sample::select(vec![
        "$(touch pwned)",
        "`touch pwned`",
        "'$(touch pwned)'",
        "\"; touch pwned; \"",
        "\ntouch pwned\n",
        "x\nEOF\ntouch pwned\n",
        "\\'; touch pwned; '",
        "')\"; touch pwned #",
        "}; touch pwned",
    ]);
    prop_oneof![
        2 => value(),
        1 => (nasty, value()).prop_map(|(n, v)| format!("{n}{v}")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Wherever the author put `${input:v}`, the value reaches the program unchanged and never
    /// runs: the line must print exactly what the template promises, and `pwned` never appears.
    #[test]
    fn inputs_in_nested_shell_syntax_stay_values(v in input_value()) {
        use commandtree_exec::vars::{Context, render_sh};
        use commandtree_exec::quote::Shell;
        let scratch = nested_dir();
        let dir = scratch.path().to_path_buf();
        for (template, shells, expect) in NESTED {
            let mut get = |_: &str| Ok(v.clone());
            let segs = Context {
                folder: dir.clone(),
                settings: serde_json::Value::Null,
                file: dir.join("tasks.json"),
                input: &mut get,
                default_build_task: None,
            }
            .substitute(template)
            .unwrap();
            let mut env = Vec::new();
            let line = render_sh(&segs, Shell::Posix, &mut env).unwrap();
            let here = self::shells();
            for shell in shells.iter().filter(|s| here.contains(s)) {
                let got = run_with_env(&dir, shell, &line, &env);
                prop_assert_eq!(&got, &expect(&v), "{} ran {:?} with {:?}", shell, line, env);
                prop_assert!(!dir.join("pwned").exists(), "{} ran the value: {:?}", shell, line);
            }
        }
    }
}
