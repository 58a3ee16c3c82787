//! Scripts of the project that shell code runs without naming them by path: every script in a
//! folder handed to a test runner (`urchin test/fast`, `run-parts hooks.d`), and the programs a
//! script in a `bin` or `libexec` folder calls by bare name (`python-build` from
//! `pyenv-install`): such folders are put on `PATH` together, so a bare name that is a file
//! there runs that file.
//!
//! Both only read the tree through `Fs` (so the folders become the parser's dependencies) and
//! give steps looked up as shell commands of the exact file.

use super::SourceFile;
use super::calls::{Simple, Word};
use super::common::normalize_path;
use crate::model::{StepHow, StepRef, StepScope};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Folders one runner call may stand for (`test/$suite`): enough for any real suite layout.
const MAX_FOLDERS: usize = 64;
/// Files one runner call may run: a bound on what a crafted tree can cost.
const MAX_FILES: usize = 2000;
/// How deep a recursive runner's folders are followed.
const MAX_DEPTH: usize = 6;

/// How a test runner picks the scripts of a folder.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Picks {
    /// urchin: every executable file below the folder, at any depth.
    ExecutablesBelow,
    /// run-parts: the executable files in the folder itself.
    ExecutablesIn,
}

/// The folders a runner call is given and how it picks their scripts; `None` when `cmd` runs no
/// folder (another program, `run-parts --test`, which only lists).
fn folder_runner(cmd: &Simple) -> Option<(Picks, Vec<&Word>)> {
    let (picks, with_value): (Picks, &[&str]) = match cmd.program()? {
        "urchin" => (
            Picks::ExecutablesBelow,
            &["-s", "--shell", "-T", "--timeout"],
        ),
        "run-parts" => (Picks::ExecutablesIn, &["-a", "-u", "--arg", "--umask"]),
        _ => return None,
    };
    let mut folders = Vec::new();
    let mut args = cmd.args().iter();
    let mut options = true;
    while let Some(w) = args.next() {
        let t = w.text.as_str();
        if options && t == "--" {
            options = false;
        } else if options && matches!(t, "--test" | "--list" | "-h" | "--help" | "--version") {
            return None;
        } else if options && with_value.contains(&t) {
            args.next();
        } else if options && t.starts_with('-') {
        } else {
            folders.push(w);
        }
    }
    (!folders.is_empty()).then_some((picks, folders))
}

/// Steps for every script the test runners in `cmd` run: the folder is looked up from `cwd`,
/// and a part of it made at run time (`test/$suite`) stands for every folder there.
pub(crate) fn runner_steps(file: &SourceFile<'_>, cmd: &Simple, cwd: &Path) -> Vec<StepRef> {
    let Some((picks, folders)) = folder_runner(cmd) else {
        return Vec::new();
    };
    let mut files: BTreeSet<PathBuf> = BTreeSet::new();
    for w in folders {
        if w.text.starts_with('/') || w.text.starts_with('~') {
            continue;
        }
        for dir in matching_folders(file, cwd, &w.text, w.literal) {
            match picks {
                Picks::ExecutablesIn => executables(file, &dir, 0, 0, &mut files),
                Picks::ExecutablesBelow => executables(file, &dir, 0, MAX_DEPTH, &mut files),
            }
        }
    }
    files
        .into_iter()
        .filter(|p| p != file.path)
        .filter_map(script_step)
        .collect()
}

/// A step calling the project's script `path`, named by its file name.
pub(super) fn script_step(path: PathBuf) -> Option<StepRef> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(
        StepRef::new(name, StepHow::Call, false).scope(StepScope::File {
            kind: "shell".into(),
            file: path,
        }),
    )
}

/// The folders inside the root that `pattern` (a word as the splitter gives it: run-time parts
/// written `$VAR`, `$SUB`, `$ARITH`) names from `cwd`; a component with a run-time part or a
/// glob matches every folder there.
fn matching_folders(
    file: &SourceFile<'_>,
    cwd: &Path,
    pattern: &str,
    literal: bool,
) -> Vec<PathBuf> {
    let mut found = vec![cwd.to_path_buf()];
    for part in pattern.split('/').filter(|p| !p.is_empty() && *p != ".") {
        let wild = !literal && (part.contains('$') || part.contains(['*', '?', '[']));
        let mut next = Vec::new();
        for dir in &found {
            if !wild {
                next.push(normalize_path(&dir.join(part)));
                continue;
            }
            let glob = wildcard_of(part);
            for entry in file.fs.list_dir(dir) {
                let Some(name) = entry.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                    continue;
                };
                if !name.starts_with('.')
                    && crate::text::wildcard_match(&glob, &name)
                    && !file.fs.is_file(&entry)
                    && file.fs.exists(&entry)
                {
                    next.push(entry);
                }
            }
        }
        next.truncate(MAX_FOLDERS);
        found = next;
    }
    found
        .into_iter()
        .filter(|d| d.starts_with(file.root) && !file.fs.is_file(d) && file.fs.exists(d))
        .collect()
}

/// A splitter word's component as a `*` pattern: each run-time part and glob character
/// (`$VAR`, `$SUB`, `$ARITH`, `?`, `[...]`) stands for any text.
pub(super) fn wildcard_of(part: &str) -> String {
    let mut out = String::new();
    let mut rest = part;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = ["$VAR", "$SUB", "$ARITH"]
            .iter()
            .find_map(|m| rest.strip_prefix(m))
        {
            out.push('*');
            rest = r;
            continue;
        }
        if c == '[' {
            rest = rest.find(']').map_or("", |i| &rest[i + 1..]);
            out.push('*');
            continue;
        }
        out.push(if c == '?' { '*' } else { c });
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The executable files in `dir`, and below it down to `max_depth` folders.
fn executables(
    file: &SourceFile<'_>,
    dir: &Path,
    depth: usize,
    max_depth: usize,
    out: &mut BTreeSet<PathBuf>,
) {
    for entry in file.fs.list_dir(dir) {
        if out.len() >= MAX_FILES {
            return;
        }
        if entry
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            continue;
        }
        if file.fs.is_file(&entry) {
            if file.fs.is_executable(&entry) {
                out.insert(entry);
            }
        } else if depth < max_depth && file.fs.exists(&entry) {
            executables(file, &entry, depth + 1, max_depth, out);
        }
    }
}

/// Folders whose programs are put on `PATH` together.
fn is_program_folder(dir: &Path) -> bool {
    dir.file_name()
        .is_some_and(|n| matches!(n.to_str(), Some("bin" | "libexec" | "sbin")))
}

/// Steps for the programs a script in a `bin`/`libexec` folder runs by bare name that are
/// executable files of that folder or of the `bin`/`libexec` beside it. A name the script
/// defines as a function runs the function instead.
pub(crate) fn sibling_steps(file: &SourceFile<'_>, commands: &[Simple]) -> Vec<StepRef> {
    let here = file.dir();
    if !is_program_folder(here) || !here.starts_with(file.root) {
        return Vec::new();
    }
    let functions = function_names(file.content);
    let called: BTreeSet<&str> = commands
        .iter()
        .filter_map(|c| c.words.first()?.lit())
        .filter(|n| !n.is_empty() && !n.contains('/') && !functions.contains(*n))
        .collect();
    if called.is_empty() {
        return Vec::new();
    }
    let mut dirs = vec![here.to_path_buf()];
    if let Some(parent) = here.parent().filter(|p| p.starts_with(file.root)) {
        for d in ["bin", "libexec"] {
            let d = parent.join(d);
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    let mut out: Vec<StepRef> = Vec::new();
    for dir in dirs {
        for entry in file.fs.list_dir(&dir) {
            let Some(name) = entry.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if !called.contains(name)
                || entry == file.path
                || !file.fs.is_file(&entry)
                || !file.fs.is_executable(&entry)
                || out.iter().any(|s| s.name == name)
            {
                continue;
            }
            out.extend(script_step(entry.clone()));
        }
    }
    out
}

/// The names `text` defines as shell functions (`name() {`, `function name`).
fn function_names(text: &str) -> BTreeSet<&str> {
    text.lines().filter_map(function_defined).collect()
}

/// The function a line starts defining: `name() {`, `name () {`, `function name {`,
/// `function name() {` (the body may start on the next line).
pub(crate) fn function_defined(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let (keyword, rest) = match t.strip_prefix("function ") {
        Some(r) => (true, r.trim_start()),
        None => (false, t),
    };
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '.' | '+')))
        .unwrap_or(rest.len());
    let (name, after) = rest.split_at(end);
    (!name.is_empty() && (keyword || after.trim_start().starts_with("()"))).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::calls::simple_commands;

    fn source<'a>(fs: &'a MemFs, path: &'a Path, content: &'a str) -> SourceFile<'a> {
        SourceFile {
            path,
            content,
            executable: true,
            root: Path::new("/w"),
            fs,
        }
    }

    fn names(steps: &[StepRef]) -> Vec<String> {
        steps
            .iter()
            .map(|s| match &s.scope {
                StepScope::File { file, .. } => file.to_string_lossy().into_owned(),
                _ => s.name.clone(),
            })
            .collect()
    }

    #[test]
    fn urchin_runs_every_executable_below_its_folders() {
        let fs = MemFs::new()
            .exe("/w/test/fast/a", "#!/bin/sh\n")
            .exe("/w/test/fast/Unit tests/b", "#!/bin/sh\n")
            .file("/w/test/fast/notes.txt", "")
            .exe("/w/test/slow/c", "#!/bin/sh\n")
            .exe("/w/other/d", "#!/bin/sh\n");
        let path = Path::new("/w/Makefile");
        let file = source(&fs, path, "");
        let run = |code: &str| -> Vec<String> {
            simple_commands(code)
                .iter()
                .flat_map(|c| names(&runner_steps(&file, c, Path::new("/w"))))
                .collect()
        };
        assert_eq!(
            run("urchin -f -s bash test/fast"),
            ["/w/test/fast/Unit tests/b", "/w/test/fast/a"]
        );
        // A folder made at run time stands for every folder it can be.
        assert_eq!(
            run("for suite in $(TEST_SUITE); do urchin -f -s $shell test/$suite || exit; done"),
            [
                "/w/test/fast/Unit tests/b",
                "/w/test/fast/a",
                "/w/test/slow/c"
            ]
        );
        // Outside the project, or only listing: nothing runs here.
        assert!(run("urchin /usr/share/tests").is_empty());
        assert!(run("run-parts --test test/fast").is_empty());
        // run-parts does not go below its folder.
        assert_eq!(run("run-parts test/fast"), ["/w/test/fast/a"]);
        assert!(run("echo urchin test/fast").is_empty());
    }

    #[test]
    fn bare_names_run_programs_of_the_same_bin_folder() {
        let fs = MemFs::new()
            .exe("/w/plugins/build/bin/tool-install", "")
            .exe("/w/plugins/build/bin/tool-build", "")
            .file("/w/plugins/build/bin/README", "")
            .exe("/w/plugins/build/libexec/tool-helper", "")
            .exe("/w/scripts/release", "");
        let code = "tool-build \"$DEF\" \"$PREFIX\"\n\
                    eval \"$(tool-build --lib)\"\n\
                    tool-helper x\nREADME\nrelease\ngit status\nlocal_fn() { :; }\nlocal_fn\n";
        let path = Path::new("/w/plugins/build/bin/tool-install");
        let file = source(&fs, path, code);
        let steps = sibling_steps(&file, &simple_commands(code));
        assert_eq!(
            names(&steps),
            [
                "/w/plugins/build/bin/tool-build",
                "/w/plugins/build/libexec/tool-helper"
            ]
        );
        // A script outside a program folder calls bare names through PATH as usual.
        let path = Path::new("/w/scripts/release");
        let file = source(&fs, path, "tool-build\n");
        assert!(sibling_steps(&file, &simple_commands("tool-build\n")).is_empty());
    }
}
