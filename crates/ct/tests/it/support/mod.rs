//! What the `ct` integration tests share. A test reads as a specification:
//!
//! ```ignore
//! let w = Workspace::new()
//!     .file("Makefile", "all:\n\techo all\n")
//!     .executable("scripts/x.sh", "#!/bin/sh\necho x\n");
//! w.run(["list"]).success().stdout_has("Make Targets (1)");
//! w.ct().env("CT_EXIT", "7").args(["run", "x.sh"]).run().code(7);
//! ```
//!
//! [`Workspace`] is a scratch folder (removed when the test passes, kept when it fails) whose
//! `.home` is the `HOME` of every `ct` it runs; [`Ct`] is one run of the built `ct` in a clean
//! environment, not yet started; [`Run`] is its outcome, with assertions that show the command,
//! its exit code and both streams when they fail. [`skip`] is the rule for a test that needs a
//! tool; [`lsp`] speaks the editor protocol.

pub mod lsp;
mod skip;

pub use skip::{have, on_path, skip};

use serde_json::Value;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// Variables a test's `ct` never inherits from the machine: the user's CommandTree settings, the
/// LLM providers and their keys, the terminal it would open windows in.
const SCRUBBED: &[&str] = &[
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "TMUX",
    "TERMINAL",
    "COMMANDTREE_MARKDOWN",
    "COMMANDTREE_KEY",
    "COMMANDTREE_EXCLUDE",
    "COMMANDTREE_SORT_ORDER",
    "COMMANDTREE_LLM_PROVIDER",
    "COMMANDTREE_LLM_BASE_URL",
    "COMMANDTREE_LLM_MODEL",
    "COMMANDTREE_LLM_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GITHUB_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
];

/// The built `ct`.
pub const CT: &str = env!("CARGO_BIN_EXE_ct");

/// A scratch workspace: a fresh folder under the temporary directory, by its real path, with a
/// `.home` folder that is the `HOME` of every `ct` it runs. Removed when the test passes; kept
/// (and named on stderr) when it fails, for a look.
pub struct Workspace {
    /// What is removed: the workspace, or the folder it was made in.
    scratch: Scratch,
    root: PathBuf,
    env: Vec<(OsString, OsString)>,
}

/// A fresh folder under the temporary directory, removed when dropped; kept (and named on
/// stderr) when its test fails, for a look.
struct Scratch {
    /// Its real path: ids and paths compare with what `ct` prints.
    path: PathBuf,
    dir: tempfile::TempDir,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.dir.disable_cleanup(true);
            eprintln!("workspace kept for a look: {}", self.path.display());
        }
    }
}

impl Workspace {
    /// A fresh, empty workspace (but for `.home`).
    pub fn new() -> Workspace {
        let scratch = Workspace::scratch();
        let root = scratch.path.clone();
        Workspace::at(scratch, root)
    }

    /// A workspace in a folder `name` of a scratch folder of its own, for a root whose own
    /// name matters (bytes that are not UTF-8) or that needs a parent (a shared `.commandtree`
    /// above it).
    pub fn under(name: impl AsRef<OsStr>) -> Workspace {
        let scratch = Workspace::scratch();
        let root = scratch.path.join(name.as_ref());
        Workspace::at(scratch, root)
    }

    /// The folder `name` beside a workspace made with [`Workspace::under`]: outside it,
    /// created, and removed with it.
    pub fn outside(&self, name: &str) -> PathBuf {
        assert_ne!(
            self.scratch.path, self.root,
            "only a workspace made with `Workspace::under` has a folder beside it"
        );
        let dir = self.scratch.path.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A copy of `tests/fixtures/<rel>` (executable bits kept), so runs never touch the
    /// committed files.
    pub fn fixture(rel: &str) -> Workspace {
        fn copy(from: &Path, to: &Path) {
            for e in std::fs::read_dir(from).unwrap() {
                let e = e.unwrap();
                let target = to.join(e.file_name());
                if e.file_type().unwrap().is_dir() {
                    std::fs::create_dir_all(&target).unwrap();
                    copy(&e.path(), &target);
                } else {
                    std::fs::copy(e.path(), &target).unwrap();
                }
            }
        }
        let w = Workspace::new();
        copy(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(rel),
            &w.root,
        );
        w
    }

    fn scratch() -> Scratch {
        let dir = tempfile::Builder::new().prefix("ct-it-").tempdir().unwrap();
        Scratch {
            path: std::fs::canonicalize(dir.path()).unwrap(),
            dir,
        }
    }

    fn at(scratch: Scratch, root: PathBuf) -> Workspace {
        std::fs::create_dir_all(root.join(".home")).unwrap();
        Workspace {
            scratch,
            root,
            env: Vec::new(),
        }
    }

    /// With the file `rel` holding `content`.
    pub fn file(self, rel: impl AsRef<Path>, content: impl AsRef<[u8]>) -> Workspace {
        self.write(rel, content);
        self
    }

    /// With the executable file `rel` holding `content`.
    pub fn executable(self, rel: impl AsRef<Path>, content: impl AsRef<[u8]>) -> Workspace {
        self.write_executable(rel, content);
        self
    }

    /// With the (empty) folder `rel`.
    pub fn dir(self, rel: impl AsRef<Path>) -> Workspace {
        std::fs::create_dir_all(self.root.join(rel)).unwrap();
        self
    }

    /// With `NAME=VALUE` in the environment of every `ct` it runs.
    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Workspace {
        self.env
            .push((name.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The `HOME` of the `ct` it runs.
    pub fn home(&self) -> PathBuf {
        self.root.join(".home")
    }

    /// The workspace's database.
    pub fn db(&self) -> PathBuf {
        self.root.join(".commandtree/commandtree.sqlite3")
    }

    /// Writes `content` to `rel` (folders made as needed): its path.
    pub fn write(&self, rel: impl AsRef<Path>, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    /// As [`Workspace::write`], executable.
    pub fn write_executable(&self, rel: impl AsRef<Path>, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.write(rel, content);
        chmod(&p, 0o755);
        p
    }

    pub fn read(&self, rel: impl AsRef<Path>) -> String {
        let p = self.root.join(rel);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    /// The id `ct` gives the command `name` of type `kind` defined in the file `rel`.
    pub fn id(&self, kind: &str, rel: &str, name: &str) -> String {
        format!("{kind}:{}:{name}", self.root.join(rel).display())
    }

    /// `ct --root ROOT`, not yet run.
    pub fn ct(&self) -> Ct {
        let mut ct = Ct {
            wrapper: Vec::new(),
            root: Some(self.root.clone()),
            args: Vec::new(),
            env: vec![
                ("NO_COLOR".into(), Some("1".into())),
                ("HOME".into(), Some(self.home().into())),
                // A loopback port nothing listens on: a local Ollama is never found.
                ("OLLAMA_HOST".into(), Some(closed_port().into())),
            ],
            cwd: None,
            stdin: None,
        };
        ct.env
            .extend(SCRUBBED.iter().map(|v| (OsString::from(v), None)));
        ct.env
            .extend(self.env.iter().map(|(k, v)| (k.clone(), Some(v.clone()))));
        ct
    }

    /// `ct --root ROOT`, not yet run, in the folder `rel` of the workspace (names resolve
    /// nearest it first).
    pub fn ct_in(&self, rel: impl AsRef<Path>) -> Ct {
        self.ct().current_dir(self.root.join(rel))
    }

    /// `ct --root ROOT ARGS`, run.
    pub fn run<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(&self, args: I) -> Run {
        self.ct().args(args).run()
    }

    /// What `ct --root ROOT ARGS` prints (it must succeed).
    #[track_caller]
    pub fn ok<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(&self, args: I) -> String {
        self.run(args).success().stdout()
    }

    /// What `ct --root ROOT ARGS` prints as JSON (it must succeed).
    #[track_caller]
    pub fn json<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(&self, args: I) -> Value {
        self.run(args).success().json()
    }

    /// The run history as `ct runs --json` prints it.
    pub fn runs(&self) -> Vec<Value> {
        self.json(["runs", "--json", "--limit", "100"])
            .as_array()
            .unwrap()
            .clone()
    }

    /// Run `id` of the history.
    pub fn run_row(&self, id: i64) -> Value {
        self.runs()
            .into_iter()
            .find(|r| r["runId"] == id)
            .expect("run in history")
    }

    /// Stores a summary and a security warning for `id` as the summary pipeline (or the
    /// extension) would, with `hash` as the content hash; through the store, so a `ct` running
    /// meanwhile is waited for rather than raced.
    pub fn store_summary(&self, id: &str, hash: &str, summary: &str, warning: Option<&str>) {
        let mut store = commandtree_store::Store::open(&self.db(), true)
            .unwrap()
            .unwrap();
        store.save_summary(id, hash, summary, warning).unwrap();
    }
}

impl std::ops::Deref for Workspace {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.root
    }
}

impl AsRef<Path> for Workspace {
    fn as_ref(&self) -> &Path {
        &self.root
    }
}

pub fn chmod(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// One run of the built `ct` (`--root` the workspace), not yet started: `HOME` is the
/// workspace's `.home`, stdin is empty, no colour, none of the machine's CommandTree or LLM
/// variables, and `OLLAMA_HOST` a loopback port nothing listens on.
#[must_use]
pub struct Ct {
    wrapper: Vec<OsString>,
    root: Option<PathBuf>,
    args: Vec<OsString>,
    /// In order; `None` removes the variable.
    env: Vec<(OsString, Option<OsString>)>,
    cwd: Option<PathBuf>,
    stdin: Option<Vec<u8>>,
}

impl Ct {
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Ct {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Ct {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Ct {
        self.env
            .push((name.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    pub fn envs<I, K, V>(self, vars: I) -> Ct
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        vars.into_iter().fold(self, |c, (k, v)| c.env(k, v))
    }

    /// `HOME` (and where `ct` keeps the user's configuration and trust records).
    pub fn home(self, home: impl AsRef<OsStr>) -> Ct {
        self.env("HOME", home)
    }

    /// No `--root`: `ct` finds the workspace from its current folder.
    pub fn no_root(mut self) -> Ct {
        self.root = None;
        self
    }

    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Ct {
        self.cwd = Some(dir.as_ref().to_owned());
        self
    }

    /// `input` on stdin, then the end of it.
    pub fn stdin(mut self, input: impl AsRef<[u8]>) -> Ct {
        self.stdin = Some(input.as_ref().to_owned());
        self
    }

    /// Runs `ct` through `program` (`setpriv --reuid=…`): `program ARGS… ct …`.
    pub fn via<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, program: I) -> Ct {
        self.wrapper = program.into_iter().map(|a| a.as_ref().to_owned()).collect();
        self
    }

    /// The command line, for messages.
    fn describe(&self) -> String {
        let mut s = String::from("ct");
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }

    /// The process, not started: stdin empty (or piped, with [`Ct::stdin`]), stdout and
    /// stderr as the caller sets them.
    pub fn command(&self) -> Command {
        let mut c = match self.wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(CT);
                c
            }
            None => Command::new(CT),
        };
        if let Some(root) = &self.root {
            c.arg("--root").arg(root);
        }
        c.args(&self.args);
        for (k, v) in &self.env {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        if let Some(dir) = &self.cwd {
            c.current_dir(dir);
        }
        c.stdin(if self.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        c
    }

    /// Started with stdout and stderr piped (and the stdin input, if any, written and closed).
    pub fn spawn(&self) -> Child {
        let mut child = self
            .command()
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ct");
        if let Some(input) = &self.stdin {
            let mut w = child.stdin.take().unwrap();
            // A `ct` that exits without reading is no failure of the test's.
            let _ = w.write_all(input);
        }
        child
    }

    /// Runs it to the end.
    pub fn run(self) -> Run {
        let output = self.spawn().wait_with_output().expect("run ct");
        Run {
            output,
            what: self.describe(),
        }
    }

    /// Runs it, killed after `limit` (a `ct` that waits on a FIFO or spins fails the test
    /// instead of hanging it): `None` when it had to be killed.
    pub fn run_within(self, limit: Duration) -> Option<Run> {
        let mut child = self.spawn();
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if child.try_wait().unwrap().is_some() {
                return Some(Run {
                    output: child.wait_with_output().unwrap(),
                    what: self.describe(),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    /// Runs it with stdout and stderr on a real pseudo-terminal (util-linux `script`), as a
    /// person at a terminal would: what the terminal received (it must succeed).
    pub fn on_terminal(self) -> String {
        let c = self.command();
        let mut line = format!("exec {}", sh_quote(&c.get_program().to_string_lossy()));
        for a in c.get_args() {
            line.push(' ');
            line.push_str(&sh_quote(&a.to_string_lossy()));
        }
        let home = self
            .env
            .iter()
            .rev()
            .find(|(k, _)| k == "HOME")
            .and_then(|(_, v)| v.clone())
            .expect("a HOME");
        let wrapper = Path::new(&home).join("on-terminal.sh");
        std::fs::write(&wrapper, format!("#!/bin/sh\n{line}\n")).unwrap();
        chmod(&wrapper, 0o755);
        let mut script = Command::new("script");
        script
            .args(["-qefc", wrapper.to_str().unwrap(), "/dev/null"])
            .stdin(Stdio::null());
        for (k, v) in &self.env {
            match v {
                Some(v) => script.env(k, v),
                None => script.env_remove(k),
            };
        }
        if let Some(dir) = &self.cwd {
            script.current_dir(dir);
        }
        let o = script
            .output()
            .expect("util-linux `script` runs (it gives the test a terminal)");
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{} on a terminal:\n{text}",
            self.describe()
        );
        text
    }
}

/// What a `ct` run did. The assertions return it, so they chain; each shows the command line,
/// the exit code and both streams when it fails.
pub struct Run {
    pub output: Output,
    what: String,
}

impl Run {
    fn report(&self) -> String {
        format!(
            "{} exited {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.what,
            self.output.status.code(),
            self.stdout(),
            self.stderr()
        )
    }

    #[track_caller]
    pub fn success(self) -> Run {
        assert!(self.output.status.success(), "{}", self.report());
        self
    }

    #[track_caller]
    pub fn failure(self) -> Run {
        assert!(!self.output.status.success(), "{}", self.report());
        self
    }

    /// Exited with `code`.
    #[track_caller]
    pub fn code(self, code: i32) -> Run {
        assert_eq!(self.output.status.code(), Some(code), "{}", self.report());
        self
    }

    /// `self`, when `holds`; else a failure saying `what` and showing the run.
    #[track_caller]
    fn expect(self, holds: bool, what: std::fmt::Arguments) -> Run {
        assert!(holds, "{what}: {}", self.report());
        self
    }

    #[track_caller]
    pub fn stdout_has(self, text: impl AsRef<str>) -> Run {
        let text = text.as_ref();
        let holds = self.stdout().contains(text);
        self.expect(holds, format_args!("stdout lacks {text:?}"))
    }

    #[track_caller]
    pub fn stdout_lacks(self, text: impl AsRef<str>) -> Run {
        let text = text.as_ref();
        let holds = !self.stdout().contains(text);
        self.expect(holds, format_args!("stdout has {text:?}"))
    }

    #[track_caller]
    pub fn stderr_has(self, text: impl AsRef<str>) -> Run {
        let text = text.as_ref();
        let holds = self.stderr().contains(text);
        self.expect(holds, format_args!("stderr lacks {text:?}"))
    }

    #[track_caller]
    pub fn stderr_lacks(self, text: impl AsRef<str>) -> Run {
        let text = text.as_ref();
        let holds = !self.stderr().contains(text);
        self.expect(holds, format_args!("stderr has {text:?}"))
    }

    /// Printed exactly `text`.
    #[track_caller]
    pub fn stdout_is(self, text: impl AsRef<str>) -> Run {
        assert_eq!(self.stdout(), text.as_ref(), "{}", self.report());
        self
    }

    /// Wrote exactly `text` to stderr.
    #[track_caller]
    pub fn stderr_is(self, text: impl AsRef<str>) -> Run {
        assert_eq!(self.stderr(), text.as_ref(), "{}", self.report());
        self
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn status(&self) -> ExitStatus {
        self.output.status
    }

    /// stdout as JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.output.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.report()))
    }

    /// The run id `ct run` printed (`run N: ...`).
    #[track_caller]
    pub fn run_id(&self) -> i64 {
        let s = self.stdout();
        let rest = s
            .strip_prefix("run ")
            .unwrap_or_else(|| panic!("no run id: {}", self.report()));
        rest[..rest.find(':').unwrap()].parse().unwrap()
    }
}

/// A loopback address nothing listens on.
pub fn closed_port() -> String {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .to_string()
}

/// Polls `f` every 50 ms for up to 60 s: bounded, and generous enough for a loaded machine.
pub fn eventually(f: impl FnMut() -> bool) -> bool {
    eventually_within(Duration::from_secs(60), f)
}

/// Polls `f` every 50 ms for up to `limit`, and once more at the end.
pub fn eventually_within(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    f()
}

/// The `label` of every command of a JSON list, in order.
pub fn labels(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("a JSON array: {list}"))
        .iter()
        .map(|c| c["label"].as_str().unwrap().to_string())
        .collect()
}

/// The command labelled `label` in a JSON list of commands (it must be there).
#[track_caller]
pub fn labelled<'a>(list: &'a Value, label: &str) -> &'a Value {
    list.as_array()
        .unwrap_or_else(|| panic!("a JSON array: {list}"))
        .iter()
        .find(|c| c["label"] == label)
        .unwrap_or_else(|| panic!("no command labelled {label:?} in {list}"))
}

/// `s` as one word for `sh`.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The all-MiniLM-L6-v2 model (`scripts/fetch-test-model.sh`), which `ct search`, `@search` and
/// `ct embed` need; missing, the test is [`skip`]ped.
pub fn model_dir() -> Option<PathBuf> {
    let found = commandtree_embed::model::find(Path::new("/nonexistent-root"));
    if found.is_none() {
        skip("the all-MiniLM-L6-v2 model is missing (bash scripts/fetch-test-model.sh)");
    }
    found
}
