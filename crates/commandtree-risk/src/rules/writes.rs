//! Writing outside the project: where a redirect, `cp`, `tee`, `sed -i`, `mkdir`, an archive
//! extracted or a download lands — the user's startup and credentials files, the home folder
//! (a program put into `~/bin` is installed), the system's configuration and folders.

use super::machine::OVERWRITES_DISK;
use super::paths::{
    SYSTEM_PREFIXES, home_rel, is_block_device, is_temp, landing, named_home_rel, sensitive_path,
    shell_startup_var, tool_history, user_bin, windows_path,
};
use super::publishing::remote_spec;
use super::remote_code::DEV_TCP;
use super::{Family, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd, Word};

family_rule!(Family::Writes, Reach::Machine);

pub(crate) const TOOL_BIN: Rule = rule(
    "writes-tool-bin",
    Level::Caution,
    "a write into `$GOPATH`, `$GOBIN`, `$CARGO_HOME`, `$CARGO_INSTALL_ROOT`, `$PIPX_BIN_DIR`",
    "installs a program outside the project (${})",
    "cp tool \"$GOPATH/bin/tool\"",
);
pub(crate) const STARTUP_PICKED: Rule = rule(
    "writes-startup-picked",
    Level::Caution,
    "a write to a variable that may hold `~/.bashrc`, `~/.zshrc`, … (a `case`, an array, a \
     function's output or argument)",
    "edits the user's shell startup file (${}, picked at run time)",
    "case \"$SHELL\" in *zsh) rc=~/.zshrc ;; *) rc=~/.bashrc ;; esac\necho 'export X=1' >> \"$rc\"",
);
pub(crate) const STARTUP_VARIABLE: Rule = rule(
    "writes-startup-variable",
    Level::Caution,
    "a write to `$PROFILE`, `$SHELL_RC`, `$BASHRC`, … (named for a startup file)",
    "edits the user's shell startup file (${})",
    "echo 'export X=1' >> \"$PROFILE\"",
);
pub(crate) const SECRETS: Rule = rule(
    "writes-secrets",
    Level::Danger,
    "a write to `~/.ssh`, `~/.netrc`, `~/.aws`, `authorized_keys`, `/etc/sudoers`, \
     `/etc/passwd`, …",
    "writes to {} ({})",
    "echo 'machine x login y' > ~/.netrc",
);
pub(crate) const STARTUP_FILE: Rule = rule(
    "writes-startup-file",
    Level::Caution,
    "a write to `~/.bashrc`, `~/.zshrc`, `~/.profile`, `~/.gitconfig`, `/etc/profile.d/…`",
    "writes to {} ({})",
    "echo 'export PATH=$PATH:~/bin' >> ~/.bashrc",
);
pub(crate) const SYSTEM_CONFIG: Rule = rule(
    "writes-system-config",
    Level::Caution,
    "a write under `/etc`",
    "writes system configuration ({})",
    "echo 'deb http://x stable main' | sudo tee /etc/apt/sources.list.d/x.list",
);
pub(crate) const SYSTEM_PREFIX: Rule = rule(
    "writes-system-prefix",
    Level::Caution,
    "a write or `mkdir` under `/usr`, `/opt`, `/bin`, `/Library`, …",
    "installs into {}, outside the project",
    "cp tool /usr/local/bin/tool",
);
pub(crate) const HOME_BIN: Rule = rule(
    "writes-home-bin",
    Level::Caution,
    "a write into `~/bin`, `~/.local/bin`, `~/.cargo/bin`, `~/go/bin`, …",
    "installs a program into {}, outside the project",
    "cp tool ~/.local/bin/tool",
);
pub(crate) const OVER_HOME: Rule = rule(
    "writes-over-home",
    Level::Danger,
    "a copy, sync or move of a folder's contents (`.`, `dir/.`, rsync's `dir/`) or of dot files \
     (`.??*`, `.[!.]*`) into the home folder itself",
    "copies {} into the home folder, over the user's own dot files (~/.bashrc, ~/.gitconfig, …)",
    "rsync -avh --no-perms . ~",
);
pub(crate) const HOME: Rule = rule(
    "writes-home",
    Level::Caution,
    "a write elsewhere in the home folder (not `~/.cache`, not a tool's own history)",
    "writes to {}, outside the project",
    "cp settings.json ~/.config/tool/settings.json",
);
pub(crate) const HOME_MADE: Rule = rule(
    "writes-home-made",
    Level::Caution,
    "a write, clone or pull into a folder under the home folder whose path is made at run time \
     (a configured path with `~` expanded, `$HOME/$name`)",
    "writes to {}, a folder under the home folder",
    "plugins() { echo \"${TOOL_PATH/#\\~/$HOME}\"; }\ncd \"$(plugins)\" && git clone https://example.com/x.git",
);
pub(crate) const WINDOWS: Rule = rule(
    "writes-windows-drive",
    Level::Caution,
    "a write to a Windows drive path (`C:/tools`)",
    "writes to {}, outside the project",
    "cp tool.exe C:/tools/tool.exe",
);

impl Analyser<'_> {
    /// A write to `target` (a redirect, `cp`, `install`, `tee`, …) when it lands outside the
    /// project. `dir_only`: the command creates a folder (`mkdir`), which counts only in the
    /// system's own folders.
    pub fn write_to(&mut self, target: &Word, line: u32, snippet: &str, dir_only: bool) {
        let (t, lead_var) = landing(target);
        if let Some(v) = &lead_var
            && [
                "GOPATH",
                "GOBIN",
                "CARGO_HOME",
                "CARGO_INSTALL_ROOT",
                "PIPX_BIN_DIR",
            ]
            .iter()
            .any(|k| v.contains(k))
            && !dir_only
        {
            self.hit(&TOOL_BIN, line, snippet, &[v]);
            return;
        }
        // `>> "$file"` where `file` came (through a `case`, an array, a function's output or
        // argument) from `~/.bashrc`, `~/.zshrc`, ...: the file is picked at run time.
        if !dir_only && let Some(v) = self.facts.startup_target(&target.raw, self.at) {
            self.hit(&STARTUP_PICKED, line, snippet, &[&v]);
            return;
        }
        // `>> "$PROFILE"`, `>> "$SHELL_RC"`: installers pick the user's shell startup file at
        // run time (`~/.bashrc`, `~/.zshrc`, `~/.profile`) and add lines to it.
        if let Some(v) = &lead_var
            && t == format!("${v}")
            && shell_startup_var(v)
            && !dir_only
        {
            self.hit(&STARTUP_VARIABLE, line, snippet, &[v]);
            return;
        }
        if is_temp(&t) {
            return;
        }
        if !dir_only && self.home_made(target) {
            self.hit(&HOME_MADE, line, snippet, &[&target.text()]);
            return;
        }
        if let Some((level, what)) = sensitive_path(&t) {
            let rule = match level {
                Level::Danger => &SECRETS,
                Level::Caution => &STARTUP_FILE,
            };
            self.hit(rule, line, snippet, &[what, &t]);
        } else if is_block_device(&t) {
            self.hit(&OVERWRITES_DISK, line, snippet, &[&t]);
        } else if t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/") {
            // `echo >/dev/tcp/127.0.0.1/22` waits for a local port to open: this machine's own
            // service, not a shell handed to someone elsewhere.
            let host = t[9..].split('/').next().unwrap_or("");
            if !(host == "localhost" || host == "::1" || host.starts_with("127.")) {
                self.hit(&DEV_TCP, line, snippet, &[]);
            }
        } else if t.starts_with("/etc/") || t == "/etc" {
            self.hit(&SYSTEM_CONFIG, line, snippet, &[&t]);
        } else if let Some(abs) = t.strip_prefix('/')
            && SYSTEM_PREFIXES.contains(&abs.split('/').next().unwrap_or(""))
            && !abs.starts_with("dev")
        {
            self.hit(&SYSTEM_PREFIX, line, snippet, &[&t]);
        } else if dir_only {
        } else if let Some(rel) = home_rel(&t) {
            let rel = rel.trim_start_matches("./");
            if rel == ".cache" || rel.starts_with(".cache/") || tool_history(rel) {
                return;
            }
            if user_bin(rel) {
                self.hit(&HOME_BIN, line, snippet, &[&t]);
            } else {
                self.hit(&HOME, line, snippet, &[&t]);
            }
        } else if let Some(rel) = named_home_rel(&t) {
            if !(rel.starts_with(".cache/") || tool_history(rel)) {
                self.hit(&HOME, line, snippet, &[&t]);
            }
        } else if windows_path(&t).is_some() {
            self.hit(&WINDOWS, line, snippet, &[&t]);
        }
    }

    /// `cp`, `rsync`, `mv`, `ln`, `install` into the home folder itself: what lands there is
    /// named by each source. A folder's contents or dot files replace the user's own dot
    /// files; a named file is judged where it lands (`cp .bashrc ~` writes `~/.bashrc`).
    fn copy_into_home(&mut self, c: &Cmd, sources: &[&Word]) {
        let recursive = match c.name.as_str() {
            "rsync" => c.has_flag('a', "archive") || c.has_flag('r', "recursive"),
            "cp" => {
                c.has_flag('r', "recursive") || c.has_flag('R', "") || c.has_flag('a', "archive")
            }
            "mv" => true,
            _ => false,
        };
        let mut named = Vec::new();
        for s in sources {
            let text = s.text();
            if let Some(what) = contents_of(&c.name, &text, recursive) {
                self.hit(&OVER_HOME, c.line, &c.snippet, &[&what]);
                return;
            }
            let base = text.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            // A folder copied without recursion: skipped, nothing lands.
            if matches!(base, "." | "") {
                continue;
            }
            let known = !base.is_empty() && !base.contains(['$', '*', '?', '[']) && base != "..";
            named.push(if known {
                Word::lit(&format!("~/{base}"))
            } else {
                Word::lit("~")
            });
        }
        for w in named {
            self.write_to(&w, c.line, &c.snippet, false);
        }
    }

    /// The commands that write files: where each puts them.
    pub(crate) fn writes(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let name = c.name.as_str();
        match name {
            "tee" | "truncate" => {
                for t in c.operands() {
                    self.write_to(t, c.line, &c.snippet, false);
                }
            }
            "sed" if c.has_flag('i', "in-place") => {
                for t in c.operands().into_iter().skip(1) {
                    self.write_to(t, c.line, &c.snippet, false);
                }
            }
            "cp" | "mv" | "install" | "ln" | "rsync" => {
                // `install -d DIR…` makes folders.
                if name == "install" && c.has_flag('d', "directory") {
                    for t in c.operands() {
                        self.write_to(t, c.line, &c.snippet, true);
                    }
                } else if let Some((sources, t)) = copy_operands(c)
                    // Another machine's (`host:path`): publishing's.
                    && !(matches!(name, "rsync" | "cp") && remote_spec(&t.text()))
                {
                    if landing(t).0.trim_end_matches('/') == "~" {
                        self.copy_into_home(c, &sources);
                    } else {
                        self.write_to(t, c.line, &c.snippet, false);
                    }
                }
            }
            "mkdir" => {
                for t in c.operands() {
                    self.write_to(t, c.line, &c.snippet, true);
                }
            }
            // `cd "$BIN"`: where an archive extracted next without a folder lands.
            "cd" | "pushd" => {
                self.cwd = c
                    .operands()
                    .first()
                    .filter(|w| {
                        let t = w.text();
                        (!t.starts_with('$') && self.outside(&t).is_some())
                            || self.in_users_home(w, false)
                    })
                    .map(|w| (*w).clone());
            }
            "popd" => self.cwd = None,
            // `git clone URL [DIR]`: the checkout lands in DIR, else in the current folder.
            "git" if args.first().is_some_and(|a| a == "clone") => {
                let with_value = [
                    "-b",
                    "--branch",
                    "-o",
                    "--origin",
                    "-c",
                    "--config",
                    "--depth",
                    "-j",
                    "--jobs",
                    "--reference",
                    "--separate-git-dir",
                    "--filter",
                    "-u",
                    "--upload-pack",
                    "--template",
                ];
                let mut operands = Vec::new();
                let mut i = 1;
                while let Some(a) = args.get(i) {
                    if with_value.contains(&a.as_str()) {
                        i += 1;
                    } else if !a.starts_with('-') {
                        operands.push(i);
                    }
                    i += 1;
                }
                // Into the current folder only when it is the running user's home folder's
                // (`cd ~/.tmux/plugins`): a fixed user's (`cd /home/user/src`) is a
                // provisioning script's layout.
                let dir = match operands.as_slice() {
                    [_, d, ..] => c.args.get(*d).cloned(),
                    [_] => self.cwd.clone().filter(|w| self.in_users_home(w, true)),
                    _ => None,
                };
                if let Some(d) = dir {
                    self.write_to(&d, c.line, &c.snippet, false);
                }
            }
            // `cd "$plugin_path" && git pull`: updates another checkout in the user's home.
            "git"
                if args.first().is_some_and(|a| a == "pull")
                    || args.get(..2).is_some_and(|a| a == ["submodule", "update"]) =>
            {
                if let Some(d) = self.cwd.clone().filter(|w| self.in_users_home(w, false)) {
                    self.write_to(&d, c.line, &c.snippet, false);
                }
            }
            "tar" => {
                let extract = args.iter().any(|a| {
                    a == "--extract"
                        || a == "--get"
                        || (a.starts_with('-') && !a.starts_with("--") && a.contains('x'))
                }) || args
                    .first()
                    .is_some_and(|a| !a.starts_with('-') && a.contains('x'));
                let dir = args
                    .iter()
                    .position(|a| a == "-C" || a == "--directory")
                    .and_then(|i| c.args.get(i + 1))
                    .cloned()
                    .or_else(|| self.cwd.clone());
                if extract && let Some(d) = dir {
                    self.write_to(&d, c.line, &c.snippet, false);
                }
            }
            "unzip" => {
                let dir = args
                    .iter()
                    .position(|a| a == "-d")
                    .and_then(|i| c.args.get(i + 1))
                    .cloned()
                    .or_else(|| self.cwd.clone());
                if let Some(d) = dir {
                    self.write_to(&d, c.line, &c.snippet, false);
                }
            }
            "curl" => {
                if let Some(i) = args.iter().position(|a| a == "-o" || a == "--output")
                    && let Some(d) = c.args.get(i + 1)
                {
                    self.write_to(d, c.line, &c.snippet, false);
                }
            }
            "wget" => {
                if let Some(i) = args
                    .iter()
                    .position(|a| a == "-O" || a == "-P" || a == "--output-document")
                    && let Some(d) = c.args.get(i + 1)
                    && d.text() != "-"
                {
                    self.write_to(d, c.line, &c.snippet, false);
                }
            }
            _ => {}
        }
    }
}

/// The sources and the target of `cp`, `mv`, `install`, `ln`, `rsync` (`-t DIR` or the last
/// operand), the values of their options skipped; `None` when no source is given.
fn copy_operands(c: &Cmd) -> Option<(Vec<&Word>, &Word)> {
    let with_value: &[&str] = match c.name.as_str() {
        "rsync" => &[
            "--exclude",
            "--include",
            "--exclude-from",
            "--include-from",
            "--filter",
            "-f",
            "-e",
            "--rsh",
            "--rsync-path",
            "--files-from",
            "--chmod",
            "--chown",
            "--usermap",
            "--groupmap",
            "--backup-dir",
            "--suffix",
            "--log-file",
            "--log-file-format",
            "--out-format",
            "--password-file",
            "--port",
            "--partial-dir",
            "--temp-dir",
            "-T",
            "--compare-dest",
            "--copy-dest",
            "--link-dest",
            "-M",
            "--remote-option",
            "--max-size",
            "--min-size",
            "--max-delete",
            "--timeout",
            "--contimeout",
            "--bwlimit",
            "--iconv",
            "--info",
            "--debug",
            "--skip-compress",
            "--compress-level",
            "--block-size",
            "-B",
        ],
        "install" => &[
            "-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix", "-t",
        ],
        _ => &["-S", "--suffix", "-t"],
    };
    let mut ops = Vec::new();
    let mut target = None;
    let mut args = c.args.iter();
    let mut options = true;
    while let Some(a) = args.next() {
        let t = a.text();
        if options && t == "--" {
            options = false;
        } else if options && t == "-t" {
            target = args.next();
        } else if options && with_value.contains(&t.as_str()) {
            args.next();
        } else if options && t.starts_with('-') && t.len() > 1 {
        } else {
            ops.push(a);
        }
    }
    let target = match target {
        Some(t) => t,
        None if ops.len() >= 2 => ops.pop()?,
        None => return None,
    };
    (!ops.is_empty()).then_some((ops, target))
}

/// What of the user's home a source copied into the home folder itself replaces, when it is
/// more than one named file: a folder's contents (`.`, `dir/.`, rsync's `dir/`, copied
/// recursively) or dot files picked by a pattern (`.??*`, `.[!.]*`).
fn contents_of(tool: &str, source: &str, recursive: bool) -> Option<String> {
    let last = source
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let folder =
        recursive && (matches!(last, "." | "") || (tool == "rsync" && source.ends_with('/')));
    let dot_files = last.starts_with('.') && last.contains(['*', '?', '[']);
    if folder {
        Some(if matches!(source, "." | "./") {
            "the project folder".to_string()
        } else {
            format!("the contents of {source}")
        })
    } else if dot_files {
        Some(format!("the dot files {source}"))
    } else {
        None
    }
}
