//! Starting processes.
//!
//! * Foreground: the child gets its own process group and, on a terminal, becomes the
//!   terminal's foreground group (as a shell's job would), so Ctrl-C and Ctrl-Z reach it and
//!   not `ct`; signals sent to `ct` itself are forwarded to the child's group. A child that
//!   stops (Ctrl-Z) stops `ct` too, and `fg` resumes both. The exit code is the child's, or
//!   128 + N when signal N killed it.
//! * Supervised (`ct __exec`, behind detached runs and new windows): the supervisor ignores the
//!   terminating signals so that `ct stop`, which signals the whole group, ends the command but
//!   leaves the supervisor alive to record the exit code.

use crate::plan::Runnable;
use crate::quote::Shell;
use std::io;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

/// The process for a runnable: `sh -c SCRIPT` in its folder with its environment.
pub fn command(r: &Runnable) -> Command {
    let mut cmd = match r.shell {
        Shell::Posix | Shell::Fish => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(&r.script);
            c
        }
        Shell::PowerShell => {
            let mut c = Command::new(if cfg!(windows) { "powershell" } else { "pwsh" });
            c.args(["-NoProfile", "-Command"]).arg(&r.script);
            c
        }
        Shell::Cmd => {
            let mut c = Command::new("cmd");
            c.args(["/d", "/s", "/c"]);
            #[cfg(windows)]
            {
                // cmd does not split its command line the way `Command::arg` quotes for: pass
                // the script untouched (see `cmd_c_tail`).
                use std::os::windows::process::CommandExt;
                c.raw_arg(crate::quote::cmd_c_tail(&r.script));
            }
            #[cfg(not(windows))]
            c.arg(&r.script);
            c
        }
    };
    cmd.current_dir(&r.cwd);
    for (k, v) in r.file_env.iter().chain(&r.env) {
        cmd.env(k, v);
    }
    cmd
}

/// Exit code of a finished process: its own, or 128 + N for signal N. Second: killed by a
/// signal.
pub fn exit_code(status: ExitStatus) -> (i32, bool) {
    if let Some(c) = status.code() {
        return (c, false);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return (128 + sig, true);
        }
    }
    (1, false)
}

#[cfg(unix)]
mod unix {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::sync::atomic::{AtomicI32, Ordering};

    static CHILD_GROUP: AtomicI32 = AtomicI32::new(0);
    const FORWARDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

    extern "C" fn forward(sig: libc::c_int) {
        let g = CHILD_GROUP.load(Ordering::SeqCst);
        if g > 0 {
            // SAFETY: kill is async-signal-safe.
            unsafe {
                libc::kill(-g, sig);
            }
        }
    }

    /// Makes `pgid` the terminal's foreground group. Doing so from a background group raises
    /// SIGTTOU, hence the signal is blocked for the call.
    fn give_terminal(fd: libc::c_int, pgid: libc::pid_t) {
        // SAFETY: plain libc calls on stack-allocated signal sets; async-signal-safe, so also
        // fine between fork and exec.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGTTOU);
            libc::sigprocmask(libc::SIG_BLOCK, &set, &mut old);
            libc::tcsetpgrp(fd, pgid);
            libc::sigprocmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        }
    }

    /// fd 0 when it is a terminal whose foreground group is ours (we may hand it over).
    fn owned_terminal() -> Option<libc::c_int> {
        // SAFETY: plain queries.
        unsafe { (libc::isatty(0) == 1 && libc::tcgetpgrp(0) == libc::getpgrp()).then_some(0) }
    }

    pub fn run_foreground(r: &Runnable, on_start: &mut dyn FnMut(u32)) -> io::Result<i32> {
        let tty = owned_terminal();
        let mut cmd = command(r);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setpgid(0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if let Some(fd) = tty {
                    give_terminal(fd, libc::getpid());
                }
                Ok(())
            });
        }
        let child = cmd.spawn()?;
        let pid = child.id() as libc::pid_t;
        // Also from this side, so the order of the two processes does not matter.
        // SAFETY: plain libc call; failure (the child already exec'd) is harmless.
        unsafe {
            libc::setpgid(pid, pid);
        }
        if let Some(fd) = tty {
            give_terminal(fd, pid);
        }
        CHILD_GROUP.store(pid, Ordering::SeqCst);
        let mut old: Vec<(libc::c_int, libc::sigaction)> = Vec::new();
        for sig in FORWARDED {
            // SAFETY: installing a handler that only calls kill.
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = forward as *const () as usize;
                act.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                libc::sigaction(sig, &act, &mut prev);
                old.push((sig, prev));
            }
        }
        on_start(pid as u32);
        let result = loop {
            let mut status: libc::c_int = 0;
            // SAFETY: waiting for our own child.
            let w = unsafe { libc::waitpid(pid, &mut status, libc::WUNTRACED) };
            if w < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                break Err(e);
            }
            if libc::WIFSTOPPED(status) {
                if let Some(fd) = tty {
                    // SAFETY: take the terminal back, stop like the job the user stopped, and
                    // hand it over again once continued.
                    unsafe {
                        give_terminal(fd, libc::getpgrp());
                        libc::raise(libc::SIGTSTP);
                    }
                    give_terminal(fd, pid);
                }
                // SAFETY: resume the child's group.
                unsafe {
                    libc::kill(-pid, libc::SIGCONT);
                }
                continue;
            }
            if libc::WIFEXITED(status) {
                break Ok(libc::WEXITSTATUS(status));
            }
            if libc::WIFSIGNALED(status) {
                break Ok(128 + libc::WTERMSIG(status));
            }
        };
        CHILD_GROUP.store(0, Ordering::SeqCst);
        for (sig, prev) in old {
            // SAFETY: restoring what was there.
            unsafe {
                libc::sigaction(sig, &prev, std::ptr::null_mut());
            }
        }
        if let Some(fd) = tty {
            // SAFETY: plain libc call.
            give_terminal(fd, unsafe { libc::getpgrp() });
        }
        drop(child);
        result
    }

    /// Starts `program args` in a new session, detached from this terminal, with stdout and
    /// stderr going to `log` (an open file: the caller created it safely) or discarded.
    pub fn spawn_detached(
        program: &Path,
        args: &[impl AsRef<std::ffi::OsStr>],
        log: Option<std::fs::File>,
    ) -> io::Result<u32> {
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::null());
        match log {
            Some(f) => {
                cmd.stdout(f.try_clone()?).stderr(f);
            }
            None => {
                cmd.stdout(Stdio::null()).stderr(Stdio::null());
            }
        }
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        Ok(cmd.spawn()?.id())
    }

    /// Runs the runnable as the supervisor's child and returns (exit code, killed by signal).
    /// `on_start` gets the group to signal for stopping it.
    pub fn supervise(r: &Runnable, on_start: &mut dyn FnMut(u32)) -> io::Result<(i32, bool)> {
        for sig in FORWARDED {
            // SAFETY: ignoring signals in this process only; the child resets them below.
            unsafe {
                libc::signal(sig, libc::SIG_IGN);
            }
        }
        let mut cmd = command(r);
        // SAFETY: signal() is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                for sig in FORWARDED {
                    libc::signal(sig, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn()?;
        // SAFETY: plain query.
        on_start(unsafe { libc::getpgrp() } as u32);
        let status = child.wait()?;
        Ok(exit_code(status))
    }

    /// Whether any process of group `pgid` is still there.
    pub fn group_alive(pgid: i64) -> bool {
        if pgid <= 0 {
            return false;
        }
        // SAFETY: signal 0 only checks.
        let r = unsafe { libc::kill(-(pgid as libc::pid_t), 0) };
        r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }

    /// Sends `SIGTERM` (or `SIGKILL` when `force`) to group `pgid`.
    pub fn signal_group(pgid: i64, force: bool) -> io::Result<()> {
        if pgid <= 1 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no process group",
            ));
        }
        let sig = if force { libc::SIGKILL } else { libc::SIGTERM };
        // SAFETY: plain libc call.
        if unsafe { libc::kill(-(pgid as libc::pid_t), sig) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

#[cfg(unix)]
pub use unix::{group_alive, run_foreground, signal_group, spawn_detached, supervise};

#[cfg(not(unix))]
mod other {
    use super::*;

    pub fn run_foreground(r: &Runnable, on_start: &mut dyn FnMut(u32)) -> io::Result<i32> {
        let mut child = command(r).spawn()?;
        on_start(child.id());
        Ok(exit_code(child.wait()?).0)
    }

    pub fn spawn_detached(
        program: &Path,
        args: &[impl AsRef<std::ffi::OsStr>],
        log: Option<std::fs::File>,
    ) -> io::Result<u32> {
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::null());
        if let Some(f) = log {
            cmd.stdout(f.try_clone()?).stderr(f);
        }
        Ok(cmd.spawn()?.id())
    }

    pub fn supervise(r: &Runnable, on_start: &mut dyn FnMut(u32)) -> io::Result<(i32, bool)> {
        let mut child = command(r).spawn()?;
        on_start(child.id());
        Ok(exit_code(child.wait()?))
    }

    pub fn group_alive(_pgid: i64) -> bool {
        false
    }

    pub fn signal_group(_pgid: i64, _force: bool) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "stopping runs is only supported on Unix",
        ))
    }
}

#[cfg(not(unix))]
pub use other::{group_alive, run_foreground, signal_group, spawn_detached, supervise};

/// Opens a tmux window named `name` in `cwd` running `argv` (only meaningful inside tmux).
pub fn tmux_window(name: &str, cwd: &Path, argv: &[String]) -> io::Result<()> {
    let line = argv
        .iter()
        .map(|a| crate::quote::sh_quote(a))
        .collect::<Vec<_>>()
        .join(" ");
    let status = Command::new("tmux")
        .args(["new-window", "-n", name, "-c"])
        .arg(cwd)
        .arg(line)
        .stdin(Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "tmux new-window failed ({status})"
        )))
    }
}

/// Opens a terminal-emulator window: `terminal` (its program and the option that takes the
/// command, e.g. `xterm -e`) followed by `argv`.
pub fn terminal_window(terminal: &[String], argv: &[String]) -> io::Result<()> {
    let (program, rest) = terminal
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty terminal command"))?;
    let mut args: Vec<String> = rest.to_vec();
    args.extend(argv.iter().cloned());
    spawn_detached(Path::new(program), &args, None).map(|_| ())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn runnable(script: &str) -> Runnable {
        Runnable {
            file_env: Vec::new(),
            script: script.into(),
            cwd: PathBuf::from("/"),
            env: vec![("CT_T".into(), "v".into())],
            shell: Shell::Posix,
            values: Default::default(),
        }
    }

    #[test]
    fn foreground_exit_codes() {
        let mut started = None;
        let code = run_foreground(&runnable("test \"$CT_T\" = v && exit 7"), &mut |p| {
            started = Some(p)
        })
        .unwrap();
        assert_eq!(code, 7);
        assert!(started.is_some());
        let code = run_foreground(&runnable("kill -TERM $$"), &mut |_| {}).unwrap();
        assert_eq!(code, 128 + 15);
    }
}
