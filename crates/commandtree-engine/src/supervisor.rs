//! Detached runs and runs in a new window, supervised without re-launching any binary: the run
//! is a small POSIX `sh` wrapper, written to a private file, that runs the command and records
//! how it ended in a file of its own. Any process that later reads the history (the CLI, the
//! terminal UI, a server) settles the run from that file, so a front end that started a run may
//! exit at once and nothing is lost when the database is busy at the moment the run ends.
//!
//! Secrets stay off the command line: the environment and the script travel in the wrapper file
//! (mode 0600 in a 0700 folder, removed by the wrapper as soon as it starts), never in argv, so
//! `ps` shows only `sh <file>`.
//!
//! Every file here is created by ct through `commandtree_safefs` (`O_CREAT|O_EXCL|O_NOFOLLOW`,
//! 0600, every folder from the workspace root down opened without following a link), the
//! wrapper's own records included: the shell cannot create a file that way, so ct creates the
//! two temporary files it writes (`<run>.pid.tmp`, `<run>.exit.tmp`) beforehand, and the
//! wrapper writes only into a regular file that is not a link, in a 0700 folder no one else can
//! change. A FIFO or a link put there meanwhile is skipped, never waited on or followed.

use crate::{Error, Result};
use commandtree_exec::plan::Runnable;
use commandtree_exec::quote::sh_quote;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder under `.commandtree/` holding wrapper, pid and exit files.
pub const RUNS_DIR: &str = "runs";
/// The folder under `.commandtree/` holding the logs of detached runs.
pub const LOGS_DIR: &str = "logs";

/// The files of one supervised run, named after its run id (or a unique name when the run could
/// not be recorded).
#[derive(Debug, Clone)]
pub struct RunFiles {
    /// The workspace root: no folder between it and these files may be a link.
    pub root: PathBuf,
    pub script: PathBuf,
    pub pid: PathBuf,
    pub exit: PathBuf,
}

impl RunFiles {
    pub fn new(root: &Path, name: &str) -> RunFiles {
        let dir = root.join(commandtree_store::DB_DIR).join(RUNS_DIR);
        RunFiles {
            root: root.to_path_buf(),
            script: dir.join(format!("{name}.sh")),
            pid: dir.join(format!("{name}.pid")),
            exit: dir.join(format!("{name}.exit")),
        }
    }

    /// Where the wrapper writes the pid and the exit code before renaming them into place.
    fn temps(&self) -> [PathBuf; 2] {
        [
            self.pid.with_extension("pid.tmp"),
            self.exit.with_extension("exit.tmp"),
        ]
    }
}

/// Creates (or checks) `.commandtree/<name>/` as a private folder: a real folder inside the
/// root (not a symlink, neither it nor `.commandtree`), mode 0700.
pub fn private_dir(root: &Path, name: &str) -> Result<PathBuf> {
    // The store vets `.commandtree/` (a real folder inside the root) and writes its
    // `.gitignore` when it creates it.
    let base = commandtree_store::ensure_dir(root).map_err(|e| Error::failed(e.to_string()))?;
    let dir = base.join(name);
    commandtree_safefs::create_private_dir(&dir, Some(root))
        .map_err(|e| Error::failed(format!("{e}; refusing to write run files there")))?;
    Ok(dir)
}

/// Creates `path` (under `root`) as a new private file (0600), never following a symbolic
/// link: whatever stands at that path (a planted link, an old file) is removed first, never
/// written through.
pub fn create_private(root: &Path, path: &Path) -> Result<File> {
    if fs::symlink_metadata(path).is_ok() {
        fs::remove_file(path).map_err(|e| Error::failed(format!("{}: {e}", path.display())))?;
    }
    commandtree_safefs::create_new(path, &commandtree_safefs::Options::private().within(root))
        .map_err(|e| Error::failed(e.to_string()))
}

/// A path as one shell word, byte for byte: a folder whose name is not UTF-8 is still the folder
/// the run goes to (its bytes rebuilt by `printf`), not a lossy look-alike that does not exist.
fn sh_path(p: &Path) -> String {
    match p.to_str() {
        Some(s) => sh_quote(s),
        #[cfg(unix)]
        None => commandtree_exec::quote::sh_path_bytes(p),
        #[cfg(not(unix))]
        None => sh_quote(&p.to_string_lossy()),
    }
}

/// The wrapper for `r`: records its pid, runs the script with the run's environment and folder,
/// records the exit code, and in a window waits for Enter so the output stays readable.
pub fn wrapper_text(r: &Runnable, files: &RunFiles, label: &str, attached: bool) -> String {
    let q = sh_path;
    let mut s = String::from("# CommandTree run wrapper (removes itself when it starts)\n");
    s.push_str("rm -f -- \"$0\"\n");
    // Only into the regular file ct created for it (see the module docs).
    let [pt, et] = files.temps();
    s.push_str(&format!(
        "if [ -f {pt} ] && [ ! -h {pt} ]; then echo $$ > {pt} && mv -f {pt} {p}; fi\n",
        pt = q(&pt),
        p = q(&files.pid)
    ));
    // Environment files' values too: this file is private (0600) and removed as it starts.
    for (k, v) in r.file_env.iter().chain(&r.env) {
        s.push_str(&format!("export {k}={}\n", sh_quote(v)));
    }
    // A trapped (not ignored) signal is reset to its default in the subshell below, so `ct stop`
    // ends the command while this shell lives on to record how it ended.
    s.push_str("trap : INT TERM HUP\n");
    // The script runs in a subshell read from this (already unlinked) file rather than as an
    // argument of `sh -c`, so its text, and any value resolved into it, never shows in `ps`.
    s.push_str(&format!("if cd -- {}; then\n(\n", q(&r.cwd)));
    s.push_str(&r.script);
    s.push_str("\n)\ncode=$?\nelse code=127; fi\n");
    s.push_str(&format!(
        "if [ -f {et} ] && [ ! -h {et} ]; then echo \"$code\" > {et} && mv -f {et} {e}; fi\n",
        et = q(&et),
        e = q(&files.exit)
    ));
    if attached {
        s.push_str(&format!(
            "if [ -t 0 ]; then printf '\\n[%s: exit code %s; press Enter to close]' {} \"$code\" >&2; read _ct_enter; fi\n",
            sh_quote(label)
        ));
    }
    s.push_str("exit \"$code\"\n");
    s
}

/// Writes the wrapper for `r` into its private file.
pub fn write_wrapper(
    root: &Path,
    r: &Runnable,
    files: &RunFiles,
    label: &str,
    attached: bool,
) -> Result<()> {
    private_dir(root, RUNS_DIR)?;
    // Whatever stands at the records' own paths (an old run's file, a link planted in the
    // folder) goes; the wrapper renames its records there.
    for stale in [&files.pid, &files.exit] {
        if fs::symlink_metadata(stale).is_ok() {
            let _ = fs::remove_file(stale);
        }
    }
    for t in files.temps() {
        create_private(root, &t)?;
    }
    let mut f = create_private(root, &files.script)?;
    f.write_all(wrapper_text(r, files, label, attached).as_bytes())
        .map_err(|e| Error::failed(format!("{}: {e}", files.script.display())))
}

/// How a supervised run ended, once its wrapper recorded it: (exit code, when).
pub fn read_exit(files: &RunFiles) -> Option<(i32, std::time::SystemTime)> {
    let meta = fs::symlink_metadata(&files.exit).ok()?;
    if !meta.is_file() {
        return None;
    }
    let text = fs::read_to_string(&files.exit).ok()?;
    let code = text.trim().parse().ok()?;
    Some((code, meta.modified().ok()?))
}

/// The pid the wrapper recorded, with the identity (start time, boot) recorded for it when the
/// engine first saw it.
pub fn read_pid(files: &RunFiles) -> Option<ProcessId> {
    let meta = fs::symlink_metadata(&files.pid).ok()?;
    if !meta.is_file() {
        return None;
    }
    let text = fs::read_to_string(&files.pid).ok()?;
    ProcessId::parse(&text)
}

/// A process as recorded for `ct stop`: its pid plus what tells it apart from a later process
/// that reuses the pid (its start time since boot and the boot's id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessId {
    pub pid: i64,
    pub start: Option<String>,
}

impl ProcessId {
    /// The process `pid` as it is now (its identity read from /proc where there is one).
    pub fn current(pid: i64) -> ProcessId {
        ProcessId {
            pid,
            start: process_start(pid),
        }
    }

    fn parse(text: &str) -> Option<ProcessId> {
        let mut words = text.split_whitespace();
        let pid = words.next()?.parse().ok()?;
        Some(ProcessId {
            pid,
            start: words.next().map(str::to_string),
        })
    }

    /// Writes `pid start` into the pid file, so a later `stop` can check it is still the same
    /// process.
    pub fn record(&self, files: &RunFiles) -> Result<()> {
        let mut f = create_private(&files.root, &files.pid)?;
        writeln!(f, "{} {}", self.pid, self.start.as_deref().unwrap_or("-"))
            .map_err(|e| Error::failed(format!("{}: {e}", files.pid.display())))
    }

    /// Whether `pid` is still the process that was recorded. Without a recorded identity the
    /// answer is no: a pid alone may have been reused by anything.
    pub fn still_same(&self) -> bool {
        match (&self.start, process_start(self.pid)) {
            (Some(recorded), Some(now)) => recorded != "-" && *recorded == now,
            _ => false,
        }
    }
}

/// `boot_id:starttime` of process `pid` (Linux), from /proc.
fn process_start(pid: i64) -> Option<String> {
    if pid <= 0 {
        return None;
    }
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: fields after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    // Field 22 (starttime) is the 20th after the name.
    let start = rest.split_whitespace().nth(19)?;
    let boot = fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    Some(format!("{}:{start}", boot.trim()))
}

/// Removes the files of a finished run.
pub fn cleanup(files: &RunFiles) {
    let [pt, et] = files.temps();
    for f in [&files.script, &files.pid, &files.exit, &pt, &et] {
        let _ = fs::remove_file(f);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::process::Command;

    /// A fresh folder, removed when the returned guard is dropped.
    fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::Builder::new()
            .prefix(&format!("ct-sup-{name}-"))
            .tempdir()
            .unwrap();
        let path = d.path().to_path_buf();
        (d, path)
    }

    #[test]
    fn wrapper_runs_the_script_and_records_exit_and_pid() {
        let (_scratch, root) = scratch("wrap");
        let files = RunFiles::new(&root, "7");
        let r = Runnable {
            file_env: Vec::new(),
            script: "printf '%s' \"$CT_SECRET\" > out.txt; exit 3".into(),
            cwd: root.clone(),
            env: vec![("CT_SECRET".into(), "it's $HOME `x`".into())],
            shell: commandtree_exec::quote::Shell::Posix,
            values: Default::default(),
        };
        write_wrapper(&root, &r, &files, "label", false).unwrap();
        let mode = fs::metadata(&files.script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(mode.permissions().mode() & 0o777, 0o600);
        let st = Command::new("sh").arg(&files.script).status().unwrap();
        assert_eq!(st.code(), Some(3));
        assert!(!files.script.exists(), "the wrapper removes itself");
        assert_eq!(read_exit(&files).unwrap().0, 3);
        assert!(read_pid(&files).unwrap().pid > 0);
        assert_eq!(
            fs::read_to_string(root.join("out.txt")).unwrap(),
            "it's $HOME `x`"
        );
    }

    #[test]
    fn private_files_never_follow_a_planted_link() {
        let (_scratch, root) = scratch("link");
        let victim = root.join("victim");
        fs::write(&victim, "keep").unwrap();
        let dir = private_dir(&root, LOGS_DIR).unwrap();
        let log = dir.join("1.log");
        std::os::unix::fs::symlink(&victim, &log).unwrap();
        let mut f = create_private(&root, &log).unwrap();
        f.write_all(b"new").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert!(!fs::symlink_metadata(&log).unwrap().file_type().is_symlink());
    }

    #[test]
    fn the_wrapper_never_waits_on_or_writes_through_what_replaces_its_records() {
        use std::os::unix::fs::PermissionsExt;
        let (_scratch, root) = scratch("records");
        let victim = root.join("victim");
        fs::write(&victim, "keep").unwrap();
        let files = RunFiles::new(&root, "8");
        let r = Runnable {
            file_env: Vec::new(),
            script: "exit 4".into(),
            cwd: root.clone(),
            env: Vec::new(),
            shell: commandtree_exec::quote::Shell::Posix,
            values: Default::default(),
        };
        write_wrapper(&root, &r, &files, "label", false).unwrap();
        // ct made the wrapper's records itself: private regular files.
        let [pt, et] = files.temps();
        for t in [&pt, &et] {
            let m = fs::symlink_metadata(t).unwrap();
            assert!(m.is_file(), "{}", t.display());
            assert_eq!(m.permissions().mode() & 0o777, 0o600);
        }
        // Swapped meanwhile for a link and a FIFO: skipped, neither followed nor waited on.
        fs::remove_file(&pt).unwrap();
        std::os::unix::fs::symlink(&victim, &pt).unwrap();
        fs::remove_file(&et).unwrap();
        assert!(Command::new("mkfifo").arg(&et).status().unwrap().success());
        let mut child = Command::new("sh").arg(&files.script).spawn().unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if std::time::Instant::now() > until {
                let _ = child.kill();
                panic!("the wrapper waited on a FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(4));
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert!(read_exit(&files).is_none() && read_pid(&files).is_none());
        cleanup(&files);
        assert!(!pt.exists() && fs::symlink_metadata(&et).is_err());
    }

    #[test]
    fn process_identity_tells_a_reused_pid_apart() {
        let me = ProcessId::current(std::process::id() as i64);
        assert!(me.still_same());
        let forged = ProcessId {
            pid: me.pid,
            start: Some("other-boot:1".into()),
        };
        assert!(!forged.still_same());
        let bare = ProcessId {
            pid: me.pid,
            start: None,
        };
        assert!(!bare.still_same());
    }
}
