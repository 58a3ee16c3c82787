//! The one rule for a test that needs something a machine may lack (a program, the embedding
//! model, an npm or PyPI package): outside CI it says `skipped: WHY` on stderr and the test goes
//! on without that part; under CI (`CI` set, and not `false` or `0`), where `scripts/test.sh`
//! installs all of it first, it fails, so a missing tool can never pass as green. Every such
//! test goes through [`skip`] or [`have`]. The other crates' tests include this file with
//! `#[path]`, so there is one rule for the whole workspace.
// Each crate that includes this file uses only part of it.
#![allow(dead_code)]

/// Whether this is a CI run, where every test must run.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A test (or part of one) that cannot run here because `why`. Under CI this fails the test;
/// elsewhere it says so and returns, and the caller returns or leaves that part out.
#[track_caller]
pub fn skip(why: &str) {
    assert!(
        !under_ci(),
        "{why}: under CI every test must run (scripts/test.sh installs what they need)"
    );
    eprintln!("skipped: {why}");
}

/// Whether `program` (a name looked up on `PATH`, or a path) can be run; when it cannot,
/// [`skip`]s with `install`, how to get it.
#[track_caller]
pub fn have(program: &str, install: &str) -> bool {
    let found = on_path(program);
    if !found {
        skip(&format!("`{program}` is not installed ({install})"));
    }
    found
}

/// Whether `program` is an executable file, by its path or on `PATH`.
pub fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return runnable(std::path::Path::new(program));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| runnable(&d.join(program))))
}
