//! What each command does, by its name and arguments, once `shell` has read the words.
//!
//! Two kinds of findings: about the machine the code runs on (`Analyser::add`: deletes, writes
//! outside the project, installs, runs as root, runs downloaded code) and about shared things
//! (`Analyser::shared`: publishes a package, pushes to a remote, deploys, changes a cloud or the
//! shared repository). Code that runs on another machine keeps only the second kind.
//!
//! Severity: `Danger` loses data or credentials outside the project, runs remote code or
//! force-rewrites shared history; `Caution` needs privileges, changes the machine or talks to
//! production. Nothing else is a finding: evaluating text made at run time, or a command name
//! computed at run time, is judged by where the text comes from.

use crate::Level;
use crate::shell::{
    Analyser, Cmd, DECODERS, DOWNLOADERS, NETWORK, Piece, TEMP_DIR, Word, basename, is_env_setup,
    is_interpreter, is_shell, mentions_any,
};

/// npm-compatible package managers: `X publish` publishes to a registry, `X add -g` installs
/// globally.
const NPM_FAMILY: &[&str] = &["npm", "pnpm", "yarn", "bun", "aube", "cnpm"];

/// Subcommands of `pnpm`/`yarn`/`bun` that are theirs; any other first word runs a script or a
/// program of the project (`pnpm netlify deploy`).
const PM_BUILTINS: &[&str] = &[
    "add",
    "install",
    "i",
    "ci",
    "remove",
    "rm",
    "uninstall",
    "un",
    "update",
    "up",
    "upgrade",
    "run",
    "exec",
    "dlx",
    "x",
    "create",
    "init",
    "link",
    "ln",
    "unlink",
    "list",
    "ls",
    "outdated",
    "why",
    "store",
    "config",
    "get",
    "set",
    "audit",
    "import",
    "rebuild",
    "prune",
    "fetch",
    "patch",
    "setup",
    "env",
    "licenses",
    "root",
    "bin",
    "test",
    "t",
    "start",
    "publish",
    "pack",
    "deploy",
    "help",
    "version",
    "global",
    "workspace",
    "workspaces",
    "info",
    "cache",
    "npm",
    "plugin",
    "dedupe",
    "node",
    "login",
    "logout",
    "owner",
    "tag",
    "pm",
    "build",
];

/// System package managers and the subcommands that change what is installed.
const SYSTEM_PACKAGES: &[(&str, &[&str])] = &[
    (
        "apt-get",
        &[
            "install",
            "remove",
            "purge",
            "upgrade",
            "dist-upgrade",
            "full-upgrade",
            "autoremove",
        ],
    ),
    (
        "apt",
        &[
            "install",
            "remove",
            "purge",
            "upgrade",
            "full-upgrade",
            "autoremove",
        ],
    ),
    ("aptitude", &["install", "remove", "purge", "upgrade"]),
    (
        "yum",
        &["install", "remove", "erase", "upgrade", "groupinstall"],
    ),
    (
        "dnf",
        &["install", "remove", "erase", "upgrade", "groupinstall"],
    ),
    ("microdnf", &["install", "remove", "upgrade"]),
    ("apk", &["add", "del", "upgrade"]),
    (
        "zypper",
        &["in", "install", "rm", "remove", "up", "update", "dup"],
    ),
    ("pkg", &["install", "delete", "remove", "upgrade"]),
    ("port", &["install", "uninstall", "upgrade"]),
    (
        "brew",
        &[
            "install",
            "uninstall",
            "upgrade",
            "reinstall",
            "tap",
            "link",
        ],
    ),
    ("choco", &["install", "uninstall", "upgrade"]),
    ("winget", &["install", "uninstall", "upgrade"]),
    ("scoop", &["install", "uninstall"]),
    ("snap", &["install", "remove", "refresh"]),
    ("flatpak", &["install", "uninstall"]),
    ("emerge", &[]),
];

/// Root folders of the system: deleting one (or everything under it) breaks the machine.
const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "opt",
    "proc",
    "root",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "Users",
    "System",
    "Library",
    "Applications",
    "mnt",
    "media",
    "snap",
];

/// Where programs are installed system-wide; writing there installs for the whole machine.
const SYSTEM_PREFIXES: &[&str] = &[
    "usr",
    "opt",
    "bin",
    "sbin",
    "lib",
    "lib64",
    "Library",
    "Applications",
    "System",
    "var",
    "srv",
];

/// `~/…` for a path under the home folder (`$HOME` is folded into `~` already).
fn home_rel(p: &str) -> Option<&str> {
    if p == "~" {
        Some("")
    } else {
        p.strip_prefix("~/")
    }
}

/// A file whose change or leak hurts: (level, what it is).
pub(crate) fn sensitive_path(p: &str) -> Option<(Level, &'static str)> {
    let p = p.trim_matches(['"', '\'']);
    if let Some(rel) = home_rel(p) {
        let rel = rel.trim_start_matches("./");
        const CREDS: &[&str] = &[
            ".ssh",
            ".aws",
            ".gnupg",
            ".netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            ".docker/config.json",
            ".kube/config",
            ".config/gcloud",
            ".azure",
            ".config/gh/hosts.yml",
            ".cargo/credentials",
            ".cargo/credentials.toml",
            ".config/copr",
            ".gem/credentials",
            ".m2/settings.xml",
            ".terraform.d/credentials.tfrc.json",
        ];
        const STARTUP: &[&str] = &[
            ".bashrc",
            ".bash_profile",
            ".bash_login",
            ".profile",
            ".zshrc",
            ".zprofile",
            ".zshenv",
            ".config/fish/config.fish",
            ".gitconfig",
        ];
        let under = |list: &[&str]| {
            list.iter()
                .any(|c| rel == *c || rel.starts_with(&format!("{c}/")))
        };
        if under(CREDS) {
            return Some((Level::Danger, "a credentials file"));
        }
        if under(STARTUP) {
            return Some((Level::Caution, "a shell startup file"));
        }
        return None;
    }
    if p.ends_with("/authorized_keys") || p.contains("/.ssh/") {
        return Some((Level::Danger, "a credentials file"));
    }
    if p == "/etc/sudoers"
        || p.starts_with("/etc/sudoers.d")
        || p == "/etc/passwd"
        || p == "/etc/shadow"
    {
        return Some((Level::Danger, "a system account file"));
    }
    if matches!(p, "/etc/profile" | "/etc/bash.bashrc" | "/etc/environment")
        || p.starts_with("/etc/profile.d/")
    {
        return Some((Level::Caution, "a shell startup file"));
    }
    None
}

fn is_block_device(p: &str) -> bool {
    let Some(d) = p.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "loop",
    ]
    .iter()
    .any(|x| d.starts_with(x))
}

fn is_temp(p: &str) -> bool {
    p == "/tmp"
        || p.starts_with("/tmp/")
        || p.starts_with("/var/tmp")
        || p.starts_with("/var/folders/")
        || p.starts_with("/private/tmp")
        || p.starts_with("/private/var/folders")
        || p.starts_with(TEMP_DIR)
        || p.starts_with("/dev/shm")
}

/// A Windows drive path (`C:/tools`, `C:\Users`), as Git Bash and MSYS scripts write them.
fn windows_path(p: &str) -> Option<&str> {
    let b = p.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'/' | b'\\'))
        .then(|| &p[3..])
}

/// How bad a recursive delete (or similar) of `p` is, when `p` is outside the project.
pub(crate) fn outside_level(p: &str) -> Option<Level> {
    let p = p.trim();
    if p.is_empty() {
        return None;
    }
    if let Some(rel) = home_rel(p) {
        let rel = rel.trim_matches('/');
        return Some(if rel.is_empty() || rel == "*" || rel == ".*" {
            Level::Danger
        } else {
            Level::Caution
        });
    }
    if p.starts_with('~') {
        // `~user`.
        return Some(Level::Danger);
    }
    if let Some(rest) = windows_path(p) {
        let rest = rest.trim_matches(['/', '\\']);
        return Some(if rest.is_empty() || rest == "*" {
            Level::Danger
        } else {
            Level::Caution
        });
    }
    if let Some(abs) = p.strip_prefix('/') {
        if is_temp(p) {
            return None;
        }
        let abs = abs.trim_end_matches('/');
        if abs.is_empty() || abs == "*" || abs == ".*" || abs.trim_matches('/').is_empty() {
            return Some(Level::Danger);
        }
        let first = abs.split('/').next().unwrap_or("");
        let depth = abs.split('/').filter(|s| !s.is_empty()).count();
        if SYSTEM_DIRS.contains(&first) && (depth == 1 || abs.ends_with("/*")) {
            return Some(Level::Danger);
        }
        return Some(Level::Caution);
    }
    if p == ".." || p.starts_with("../") {
        return Some(Level::Caution);
    }
    None
}

impl Analyser<'_> {
    /// [`outside_level`] of `p` as seen from the code's working folder: leading `../` that
    /// climb no higher than the project root stay inside the project.
    pub(crate) fn outside(&self, p: &str) -> Option<Level> {
        let mut rest = p.trim();
        let mut up = 0u16;
        loop {
            if let Some(r) = rest.strip_prefix("../") {
                rest = r.trim_start_matches('/');
            } else if rest == ".." {
                rest = "";
            } else {
                break;
            }
            up += 1;
        }
        if up > 0 && up <= self.below_root {
            return None;
        }
        outside_level(p)
    }
}

/// A write's target with a leading staging root (`$DESTDIR`, empty unless packaging) taken
/// off, so `$DESTDIR/usr/local/bin` is where it lands on a normal run.
fn landing(w: &Word) -> (String, Option<String>) {
    let mut pieces = w.pieces.iter().peekable();
    let mut lead_var = None;
    while let Some(Piece::Var { name, .. }) = pieces.peek() {
        if name.ends_with("DESTDIR") {
            pieces.next();
        } else {
            lead_var = Some(name.clone());
            break;
        }
    }
    let text: String = pieces
        .map(|p| match p {
            Piece::Lit(t) => t.clone(),
            Piece::Var { name, .. } => format!("${name}"),
            Piece::Subst(r) => r.clone(),
        })
        .collect();
    (text, lead_var)
}

/// A variable naming a shell startup file: `PROFILE`, `NVM_PROFILE`, `SHELL_RC`, `rcfile`,
/// `BASHRC`, `ZSHRC`.
fn shell_startup_var(v: &str) -> bool {
    let v = v.to_ascii_lowercase();
    v.ends_with("profile")
        || v.ends_with("_rc")
        || v.ends_with("rcfile")
        || v.ends_with("rc_file")
        || v.ends_with("bashrc")
        || v.ends_with("zshrc")
}

/// A tool's own history file in the home folder (`~/.scdhistory`, `~/.lesshst`): the tool
/// keeping its state, as in `~/.cache`. The shells' histories are the user's.
fn tool_history(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    (name.ends_with("history") || name.ends_with("hist") || name.ends_with("hst"))
        && !matches!(
            name.as_str(),
            ".bash_history" | ".zsh_history" | ".history" | ".sh_history" | ".zhistory"
        )
}

/// Folders programs are installed into for one user.
fn user_bin(rel: &str) -> bool {
    [
        "bin",
        ".local/bin",
        ".cargo/bin",
        "go/bin",
        ".bun/bin",
        ".deno/bin",
    ]
    .iter()
    .any(|b| rel == *b || rel.starts_with(&format!("{b}/")))
}

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
            self.add(
                Level::Caution,
                line,
                format!("installs a program outside the project (${v})"),
                snippet,
            );
            return;
        }
        // `>> "$file"` where `file` came (through a `case`, an array, a function's output or
        // argument) from `~/.bashrc`, `~/.zshrc`, ...: the file is picked at run time.
        if !dir_only && let Some(v) = self.facts.startup_target(&target.raw, self.at) {
            self.add(
                Level::Caution,
                line,
                format!("edits the user's shell startup file (${v}, picked at run time)"),
                snippet,
            );
            return;
        }
        // `>> "$PROFILE"`, `>> "$SHELL_RC"`: installers pick the user's shell startup file at
        // run time (`~/.bashrc`, `~/.zshrc`, `~/.profile`) and add lines to it.
        if let Some(v) = &lead_var
            && t == format!("${v}")
            && shell_startup_var(v)
            && !dir_only
        {
            self.add(
                Level::Caution,
                line,
                format!("edits the user's shell startup file (${v})"),
                snippet,
            );
            return;
        }
        if is_temp(&t) {
            return;
        }
        if let Some((level, what)) = sensitive_path(&t) {
            self.add(level, line, format!("writes to {what} ({t})"), snippet);
        } else if is_block_device(&t) {
            self.add(
                Level::Danger,
                line,
                format!("overwrites the disk {t}"),
                snippet,
            );
        } else if t.starts_with("/dev/tcp/") || t.starts_with("/dev/udp/") {
            self.add(
                Level::Danger,
                line,
                "connects to a network address through /dev/tcp (a reverse shell pattern)",
                snippet,
            );
        } else if t.starts_with("/etc/") || t == "/etc" {
            self.add(
                Level::Caution,
                line,
                format!("writes system configuration ({t})"),
                snippet,
            );
        } else if let Some(abs) = t.strip_prefix('/')
            && SYSTEM_PREFIXES.contains(&abs.split('/').next().unwrap_or(""))
            && !abs.starts_with("dev")
        {
            self.add(
                Level::Caution,
                line,
                format!("installs into {t}, outside the project"),
                snippet,
            );
        } else if dir_only {
        } else if let Some(rel) = home_rel(&t) {
            let rel = rel.trim_start_matches("./");
            if rel.is_empty() || rel == ".cache" || rel.starts_with(".cache/") || tool_history(rel)
            {
                return;
            }
            if user_bin(rel) {
                self.add(
                    Level::Caution,
                    line,
                    format!("installs a program into {t}, outside the project"),
                    snippet,
                );
            } else {
                self.add(
                    Level::Caution,
                    line,
                    format!("writes to {t}, outside the project"),
                    snippet,
                );
            }
        } else if windows_path(&t).is_some() {
            self.add(
                Level::Caution,
                line,
                format!("writes to {t}, outside the project"),
                snippet,
            );
        }
    }

    /// Analyses code handed to a shell or `eval` as text: literal code is parsed in turn; code
    /// made at run time is judged by where it comes from (a download or a decoder is danger,
    /// anything else is the program's own business).
    fn nested_code(&mut self, code: &[&Word], c: &Cmd) {
        let literal: Option<Vec<String>> = code.iter().map(|w| w.literal()).collect();
        if let Some(parts) = literal {
            self.nested(&parts.join(" "), c.line);
            return;
        }
        // `eval "$cmd"` of `cmd="pnpm publish --tag ${tag}"`: the command is known, its
        // values are not.
        if let [w] = code
            && let [Piece::Var { name, .. }] = w.pieces.as_slice()
            && let Some(t) = self.template(name).map(str::to_string)
        {
            self.nested(&t, c.line);
            return;
        }
        let env_setup = code.iter().all(|w| w.substs().all(is_env_setup))
            && code.iter().any(|w| w.substs().next().is_some());
        if !env_setup {
            let substs: String = code
                .iter()
                .flat_map(|w| w.substs())
                .collect::<Vec<_>>()
                .join(" ");
            if let Some(d) = mentions_any(&substs, DOWNLOADERS) {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("runs code downloaded with {d}"),
                    &c.snippet,
                );
            } else if let Some(d) = mentions_any(&substs, DECODERS) {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("runs hidden code decoded with {d}"),
                    &c.snippet,
                );
            }
        }
        // The substitutions run too.
        for w in code {
            for s in w.substs() {
                let inner = s
                    .trim_start_matches(['$', '<', '>'])
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .to_string();
                self.nested(&inner, c.line);
            }
        }
    }

    pub fn check_command(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let name = c.name.as_str();
        // Code passed as text to a shell or eval.
        if name == "eval" && !c.args.is_empty() {
            let code: Vec<&Word> = c.args.iter().collect();
            self.nested_code(&code, c);
        }
        // `trap 'rm -rf ~/x' EXIT`: the handler runs too.
        if name == "trap"
            && let Some(code) = c.args.first()
            && let Some(text) = code.literal()
            && !text.starts_with('-')
        {
            self.nested(&text, c.line);
        }
        if is_interpreter(name) || name == "su" {
            if let Some(i) = args
                .iter()
                .position(|a| a == "-c" || a == "-e" || a == "--command")
                && let Some(code) = c.args.get(i + 1)
            {
                // Literal code for another language (`python -c 'print(1)'`) is not shell.
                if is_shell(name) || name == "su" || code.literal().is_none() {
                    self.nested_code(&[code], c);
                }
            }
            // `bash <(curl …)`, `python <(wget -O- …)`.
            for w in &c.args {
                for s in w.substs() {
                    if s.starts_with("<(")
                        && let Some(d) = mentions_any(s, DOWNLOADERS)
                    {
                        self.add(
                            Level::Danger,
                            c.line,
                            format!("runs a script downloaded with {d}"),
                            &c.snippet,
                        );
                    }
                }
            }
            // `curl -o "$tmp/x.sh" …; sh "$tmp/x.sh"`: a script fetched from elsewhere.
            if let Some(script) = c.operands().first()
                && let Some(tool) = self.facts.downloaded_by(&script.raw).map(str::to_string)
            {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("runs a script it downloads ({tool})"),
                    &c.snippet,
                );
            }
            // `sh install.sh`.
            if is_shell(name)
                && let Some(script) = c.operands().first()
                && basename(&script.text()) == "install.sh"
            {
                self.installer(c);
            }
            // `python -m twine upload`: the module is the program.
            if name.starts_with("python")
                && args.first().is_some_and(|a| a == "-m")
                && let Some(m) = c.shifted(1)
            {
                self.check_command(&m);
            }
        }
        if name == "su" {
            let user = c.operands().into_iter().map(Word::text).next();
            if user.as_deref().is_none_or(|u| u == "root" || u == "-") {
                self.add(Level::Caution, c.line, "runs as root (su)", &c.snippet);
            }
        }
        if matches!(name, "source" | ".") {
            // `source "$DEFINITION_PATH"`: a file picked at run time runs in this shell and may
            // call any of its functions (a build definition calling `install_package`).
            if c.args.first().is_some_and(|w| w.literal().is_none()) {
                self.dispatch = true;
            }
            if let Some(tool) = c
                .args
                .first()
                .and_then(|w| self.facts.downloaded_by(&w.raw))
                .map(str::to_string)
            {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("runs a script it downloads ({tool})"),
                    &c.snippet,
                );
            }
            for w in &c.args {
                for s in w.substs() {
                    if let Some(d) = mentions_any(s, DOWNLOADERS) {
                        self.add(
                            Level::Danger,
                            c.line,
                            format!("runs a script downloaded with {d}"),
                            &c.snippet,
                        );
                    }
                }
            }
        }
        if name == "install.sh" {
            self.installer(c);
        }
        self.publishing_script(c);
        match name {
            "rm" | "rmdir" => self.rm(c),
            "chmod" => self.chmod(c),
            "chown" | "chgrp"
                if c.has_flag('R', "recursive")
                    && c.operands()
                        .iter()
                        .skip(1)
                        .any(|w| self.outside(&w.text()).is_some()) =>
            {
                self.add(
                    Level::Danger,
                    c.line,
                    "changes the owner of files outside the project, recursively",
                    &c.snippet,
                );
            }
            "dd" => {
                if let Some(dev) = args
                    .iter()
                    .find_map(|a| a.strip_prefix("of="))
                    .filter(|d| is_block_device(d))
                {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("overwrites the disk {dev}"),
                        &c.snippet,
                    );
                }
            }
            "mkfs" | "mke2fs" | "mkswap" | "fdisk" | "sfdisk" | "gdisk" | "sgdisk" | "parted"
            | "wipefs" | "blkdiscard" | "diskutil" => {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("formats or repartitions a disk ({name})"),
                    &c.snippet,
                );
            }
            // Windows' `format C:`; the same word is many tools' subcommand, never a program.
            "format"
                if args
                    .iter()
                    .any(|a| windows_path(&format!("{a}/")).is_some()) =>
            {
                self.add(Level::Danger, c.line, "formats a disk (format)", &c.snippet);
            }
            n if n.starts_with("mkfs.") => {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("formats a disk ({n})"),
                    &c.snippet,
                );
            }
            "shred" if args.iter().any(|a| is_block_device(a)) => {
                self.add(Level::Danger, c.line, "wipes a disk (shred)", &c.snippet);
            }
            "shutdown" | "reboot" | "halt" | "poweroff" => {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("shuts the machine down ({name})"),
                    &c.snippet,
                );
            }
            "git" => self.git(c),
            "make" | "gmake" => self.make_install(c),
            "docker" | "podman" | "nerdctl" => self.docker(c),
            "kubectl" | "oc" => {
                if let Some((_, sub)) = c.subcommand(&["-n", "--namespace", "--context", "-l"])
                    && matches!(sub.as_str(), "delete" | "drain")
                {
                    self.shared(
                        Level::Danger,
                        c.line,
                        format!("deletes cluster resources (kubectl {sub})"),
                        &c.snippet,
                    );
                }
            }
            "helm" => match c.subcommand(&["-n", "--namespace"]).map(|s| s.1).as_deref() {
                Some("uninstall" | "delete" | "del" | "un") => self.shared(
                    Level::Danger,
                    c.line,
                    "removes a deployed release (helm uninstall)",
                    &c.snippet,
                ),
                Some("push") => self.shared(
                    Level::Caution,
                    c.line,
                    "publishes a chart (helm push)",
                    &c.snippet,
                ),
                _ => {}
            },
            "terraform" | "tofu" | "terragrunt" | "pulumi" | "cdk" | "cdktf" => {
                let sub = c
                    .subcommand(&["-chdir", "--stack", "-s", "--app", "-a"])
                    .map(|s| s.1);
                let destroy =
                    sub.as_deref() == Some("destroy") || args.iter().any(|a| a == "-destroy");
                if destroy {
                    self.shared(
                        Level::Danger,
                        c.line,
                        format!("destroys infrastructure ({name} destroy)"),
                        &c.snippet,
                    );
                } else if matches!(sub.as_deref(), Some("apply" | "up" | "deploy")) {
                    self.shared(
                        Level::Caution,
                        c.line,
                        format!(
                            "changes deployed infrastructure ({name} {})",
                            sub.unwrap_or_default()
                        ),
                        &c.snippet,
                    );
                }
            }
            "aws" | "gcloud" | "az" | "gsutil" | "doctl" => self.cloud(c),
            "rclone"
                if matches!(
                    c.subcommand(&[]).map(|s| s.1).as_deref(),
                    Some("copy" | "sync" | "move" | "copyto" | "moveto")
                ) && c.operands().last().is_some_and(|w| remote_spec(&w.text())) =>
            {
                self.shared(
                    Level::Caution,
                    c.line,
                    "uploads files to remote storage (rclone)",
                    &c.snippet,
                );
            }
            "dropdb" | "dropuser" => {
                self.add(
                    Level::Danger,
                    c.line,
                    format!("drops a database ({name})"),
                    &c.snippet,
                );
            }
            "psql" | "mysql" | "mariadb" | "sqlite3" | "sqlcmd" | "cockroach"
            | "clickhouse-client" => {
                let mut take = false;
                for (i, a) in args.iter().enumerate() {
                    let inline = a
                        .strip_prefix("--command=")
                        .or_else(|| a.strip_prefix("--execute="))
                        .or_else(|| a.strip_prefix("--query="));
                    let sql = if let Some(s) = inline {
                        Some(s.to_string())
                    } else if take || (name == "sqlite3" && i > 0 && !a.starts_with('-')) {
                        Some(a.clone())
                    } else {
                        None
                    };
                    take = matches!(
                        a.as_str(),
                        "-c" | "-e" | "--command" | "--execute" | "-q" | "-Q" | "--query"
                    );
                    if let Some(sql) = sql {
                        self.sql(&sql, c.line, &c.snippet);
                    }
                }
            }
            "mongo" | "mongosh"
                if args
                    .iter()
                    .any(|a| a.contains("dropDatabase") || a.contains(".drop()")) =>
            {
                self.add(
                    Level::Danger,
                    c.line,
                    "drops a database (mongo)",
                    &c.snippet,
                );
            }
            "redis-cli"
                if args.iter().any(|a| {
                    a.eq_ignore_ascii_case("flushall") || a.eq_ignore_ascii_case("flushdb")
                }) =>
            {
                self.add(Level::Danger, c.line, "erases a Redis database", &c.snippet);
            }
            "rails" | "rake" if args.iter().any(|a| drops_database(a)) => {
                let task = args.iter().find(|a| drops_database(a)).cloned();
                self.add(
                    Level::Danger,
                    c.line,
                    format!("drops the database ({name} {})", task.unwrap_or_default()),
                    &c.snippet,
                );
            }
            "nc" | "ncat" | "netcat" if args.iter().any(|a| a == "-e" || a == "-c") => {
                self.add(
                    Level::Danger,
                    c.line,
                    "opens a remote shell (nc -e)",
                    &c.snippet,
                );
            }
            "find" => {
                let start = c.args.first().map(Word::text).unwrap_or_default();
                let deletes = args.iter().any(|a| a == "-delete")
                    || args.windows(2).any(|w| {
                        (w[0] == "-exec" || w[0] == "-execdir") && basename(&w[1]) == "rm"
                    });
                if deletes && let Some(l) = self.outside(&start) {
                    self.add(
                        l,
                        c.line,
                        format!("deletes files under {start}"),
                        &c.snippet,
                    );
                }
            }
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
                let ops = c.operands();
                // `install -d DIR…` makes folders; otherwise the last operand is the target.
                if name == "install" && c.has_flag('d', "directory") {
                    for t in ops {
                        self.write_to(t, c.line, &c.snippet, true);
                    }
                } else if ops.len() >= 2
                    && let Some(t) = ops.last()
                {
                    if matches!(name, "rsync" | "cp") && remote_spec(&t.text()) {
                        self.copy_to_host(c);
                    } else {
                        self.write_to(t, c.line, &c.snippet, false);
                    }
                }
            }
            "scp" | "sftp" if c.operands().last().is_some_and(|w| remote_spec(&w.text())) => {
                self.copy_to_host(c)
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
                        !t.starts_with('$') && self.outside(&t).is_some()
                    })
                    .map(|w| (*w).clone());
            }
            "popd" => self.cwd = None,
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
            "useradd" | "adduser" | "usermod" | "groupadd" | "addgroup" | "groupmod"
            | "groupdel" | "delgroup" | "chpasswd" | "passwd" | "gpasswd" | "chsh" => {
                self.add(
                    Level::Caution,
                    c.line,
                    format!("changes the machine's user accounts ({name})"),
                    &c.snippet,
                );
            }
            "userdel" | "deluser" => {
                if c.has_flag('r', "remove-home") || c.has_flag('\0', "remove-all-files") {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("deletes a user account and its home folder ({name})"),
                        &c.snippet,
                    );
                } else {
                    self.add(
                        Level::Caution,
                        c.line,
                        format!("changes the machine's user accounts ({name})"),
                        &c.snippet,
                    );
                }
            }
            "crontab" if !args.iter().any(|a| a == "-l") => {
                self.add(
                    Level::Caution,
                    c.line,
                    "replaces the user's crontab",
                    &c.snippet,
                );
            }
            "curl" => self.curl(c),
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
        self.installs_and_publishes(c);
        if NETWORK.contains(&name) {
            for a in &args {
                let p = a
                    .trim_start_matches(|ch: char| {
                        ch != '@' && a.contains('@') && !a.starts_with('~')
                    })
                    .trim_start_matches('@');
                let p = p
                    .split_once('=')
                    .map(|(_, v)| v.trim_start_matches('@'))
                    .unwrap_or(p);
                if let Some((Level::Danger, what)) = sensitive_path(p) {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("sends {what} over the network ({name})"),
                        &c.snippet,
                    );
                }
            }
        }
        // `pnpm netlify deploy`: the project's program runs.
        if matches!(name, "pnpm" | "yarn" | "bun")
            && let Some((i, sub)) = c.subcommand(&["--filter", "-F", "-C", "--dir", "--cwd"])
            && !PM_BUILTINS.contains(&sub.as_str())
            && let Some(inner) = c.shifted(i)
        {
            self.check_command(&inner);
        }
    }

    /// Installers and global installs (the machine changes) and publishing (shared things).
    fn installs_and_publishes(&mut self, c: &Cmd) {
        let name = c.name.as_str();
        let args = c.arg_texts();
        let sub = c.subcommand(&[]).map(|s| s.1).unwrap_or_default();
        let dry = args
            .iter()
            .any(|a| a == "--dry-run" || a == "-n" && name == "git" || a == "--dryrun");
        let global = args
            .iter()
            .any(|a| a == "-g" || a == "--global" || a == "--location=global");
        let line = c.line;
        let snip = c.snippet.clone();
        if let Some((_, subs)) = SYSTEM_PACKAGES.iter().find(|(m, _)| *m == name)
            && (subs.is_empty() || subs.contains(&sub.as_str()))
        {
            self.add(
                Level::Caution,
                line,
                format!("changes the system's packages ({name} {sub})"),
                &snip,
            );
        }
        if name == "pacman"
            && args
                .iter()
                .any(|a| a.starts_with("-S") || a.starts_with("-R") || a.starts_with("-U"))
        {
            self.add(
                Level::Caution,
                line,
                "changes the system's packages (pacman)",
                &snip,
            );
        }
        if name == "dpkg" && args.iter().any(|a| a == "-i" || a == "--install") {
            self.add(
                Level::Caution,
                line,
                "installs a system package (dpkg -i)",
                &snip,
            );
        }
        match name {
            "cargo" => match sub.as_str() {
                "install" | "binstall" => self.add(
                    Level::Caution,
                    line,
                    format!("installs a program globally (cargo {sub})"),
                    &snip,
                ),
                "publish" | "yank" | "owner" if !dry => self.shared(
                    Level::Caution,
                    line,
                    format!("publishes to crates.io (cargo {sub})"),
                    &snip,
                ),
                _ => {}
            },
            "go" if sub == "install" && !snip.contains("GOBIN=") => self.add(
                Level::Caution,
                line,
                "installs a program globally (go install)",
                &snip,
            ),
            "rustup"
                if matches!(sub.as_str(), "install" | "default" | "update" | "self")
                    || (sub == "toolchain"
                        && args.iter().any(|a| a == "install" || a == "uninstall")) =>
            {
                self.add(
                    Level::Caution,
                    line,
                    format!("changes the installed Rust toolchains (rustup {sub})"),
                    &snip,
                )
            }
            "mise" | "rtx" | "asdf"
                if matches!(sub.as_str(), "use" | "global") && (global || sub == "global") =>
            {
                self.add(
                    Level::Caution,
                    line,
                    format!("changes the user's global tool versions ({name} {sub} -g)"),
                    &snip,
                )
            }
            "gem" => match sub.as_str() {
                "install" | "uninstall" | "update" => self.add(
                    Level::Caution,
                    line,
                    format!("changes the installed gems ({name} {sub})"),
                    &snip,
                ),
                "push" | "yank" | "owner" => self.shared(
                    Level::Caution,
                    line,
                    format!("publishes to RubyGems (gem {sub})"),
                    &snip,
                ),
                _ => {}
            },
            "pipx" if matches!(sub.as_str(), "install" | "upgrade" | "uninstall") => self.add(
                Level::Caution,
                line,
                format!("changes globally installed programs (pipx {sub})"),
                &snip,
            ),
            "uv" if sub == "tool" && args.iter().any(|a| a == "install") => self.add(
                Level::Caution,
                line,
                "installs a program globally (uv tool install)",
                &snip,
            ),
            "uv" | "poetry" | "flit" | "hatch" | "pdm" | "twine"
                if (sub == "publish" || (name == "twine" && sub == "upload")) && !dry =>
            {
                self.shared(
                    Level::Caution,
                    line,
                    format!("publishes to a package index ({name} {sub})"),
                    &snip,
                )
            }
            "pip" | "pip3" if args.iter().any(|a| a == "--break-system-packages") => self.add(
                Level::Caution,
                line,
                "installs into the system's Python (--break-system-packages)",
                &snip,
            ),
            "python" | "python3"
                if args.iter().any(|a| a.ends_with("setup.py"))
                    && args.iter().any(|a| a == "upload" || a == "register") =>
            {
                self.shared(
                    Level::Caution,
                    line,
                    "publishes to PyPI (setup.py upload)",
                    &snip,
                )
            }
            "dotnet" | "nuget"
                if args.iter().any(|a| a == "push")
                    && args.iter().any(|a| a == "nuget" || name == "nuget") =>
            {
                self.shared(
                    Level::Caution,
                    line,
                    "publishes a NuGet package (nuget push)",
                    &snip,
                )
            }
            "dotnet" if sub == "tool" && global => self.add(
                Level::Caution,
                line,
                "installs a .NET tool globally (dotnet tool -g)",
                &snip,
            ),
            "mvn" | "mvnw" | "./mvnw"
                if args.iter().any(|a| a == "deploy" || a.ends_with(":deploy")) =>
            {
                self.shared(
                    Level::Caution,
                    line,
                    "publishes artifacts to a repository (mvn deploy)",
                    &snip,
                )
            }
            "gradle" | "gradlew"
                if args.iter().any(|a| {
                    let t = a.rsplit(':').next().unwrap_or(a);
                    t.starts_with("publish") && !t.contains("MavenLocal") && !t.contains("Local")
                }) =>
            {
                self.shared(
                    Level::Caution,
                    line,
                    "publishes artifacts to a repository (gradle publish)",
                    &snip,
                )
            }
            "lerna" | "changeset" | "vsce" | "ovsx" | "np" | "release-it"
                if sub == "publish" || matches!(name, "np" | "release-it") =>
            {
                self.shared(
                    Level::Caution,
                    line,
                    format!("publishes a release ({name})"),
                    &snip,
                )
            }
            "semantic-release" | "release-plz" if !dry => self.shared(
                Level::Caution,
                line,
                format!("publishes a release ({name})"),
                &snip,
            ),
            "goreleaser"
                if (sub == "release" || sub.is_empty())
                    && !args.iter().any(|a| {
                        a == "--snapshot" || a == "--skip-publish" || a.contains("publish")
                    }) =>
            {
                self.shared(
                    Level::Caution,
                    line,
                    "publishes a release (goreleaser)",
                    &snip,
                )
            }
            "dput" => self.shared(
                Level::Caution,
                line,
                "uploads packages to an archive (dput)",
                &snip,
            ),
            "copr-cli" | "copr" if sub == "build" => self.shared(
                Level::Caution,
                line,
                "submits package builds (copr-cli build)",
                &snip,
            ),
            "snapcraft" if matches!(sub.as_str(), "upload" | "push" | "release") => self.shared(
                Level::Caution,
                line,
                format!("publishes to the Snap Store (snapcraft {sub})"),
                &snip,
            ),
            "gh" => self.gh(c),
            "netlify" | "wrangler" | "firebase" | "fly" | "flyctl" | "serverless" | "sls"
            | "surge" | "heroku" | "vercel" | "now" | "railway" | "render" => {
                let deploys = match name {
                    "vercel" | "now" => {
                        sub.is_empty() || sub == "deploy" || args.iter().any(|a| a == "--prod")
                    }
                    "surge" => true,
                    "heroku" => sub.starts_with("container:") || sub.starts_with("releases"),
                    "wrangler" => matches!(sub.as_str(), "deploy" | "publish" | "pages"),
                    "railway" => sub == "up",
                    _ => sub == "deploy",
                };
                if deploys {
                    self.shared(
                        Level::Caution,
                        line,
                        format!("deploys to a hosting service ({name} {sub})"),
                        &snip,
                    );
                }
            }
            "mkdocs" if sub == "gh-deploy" => self.shared(
                Level::Caution,
                line,
                "publishes the website (mkdocs gh-deploy)",
                &snip,
            ),
            "gh-pages" => self.shared(
                Level::Caution,
                line,
                "publishes the website (gh-pages)",
                &snip,
            ),
            "skopeo" | "crane" if matches!(sub.as_str(), "copy" | "push" | "cp") => self.shared(
                Level::Caution,
                line,
                format!("pushes an image to a registry ({name} {sub})"),
                &snip,
            ),
            _ => {}
        }
        if NPM_FAMILY.contains(&name) {
            match sub.as_str() {
                "publish" | "unpublish" | "deprecate" if !dry => self.shared(
                    Level::Caution,
                    line,
                    format!("publishes to a package registry ({name} {sub})"),
                    &snip,
                ),
                "dist-tag" if args.iter().any(|a| a == "add" || a == "rm") => self.shared(
                    Level::Caution,
                    line,
                    format!("changes a published package's tags ({name} dist-tag)"),
                    &snip,
                ),
                "i" | "install" | "add" | "update" | "remove" | "uninstall" | "link" if global => {
                    self.add(
                        Level::Caution,
                        line,
                        format!("installs packages globally ({name} {sub} -g)"),
                        &snip,
                    )
                }
                "global" if args.iter().any(|a| a == "add" || a == "remove") => self.add(
                    Level::Caution,
                    line,
                    format!("installs packages globally ({name} global)"),
                    &snip,
                ),
                _ => {}
            }
        }
    }

    /// Runs one of the project's scripts whose name says it publishes or deploys
    /// (`./scripts/deploy-worker.sh`, `tsx scripts/publishCI.ts`): that is what it is for.
    fn publishing_script(&mut self, c: &Cmd) {
        let script = if c.name.is_empty() {
            None
        } else if matches!(
            c.name.as_str(),
            "node"
                | "tsx"
                | "ts-node"
                | "bun"
                | "deno"
                | "ruby"
                | "python"
                | "python3"
                | "sh"
                | "bash"
                | "zsh"
        ) {
            c.operands()
                .into_iter()
                .map(Word::text)
                .find(|t| t != "run" && t.contains('.'))
        } else if [".sh", ".bash", ".ts", ".js", ".mjs", ".py", ".rb"]
            .iter()
            .any(|e| c.name.ends_with(e))
        {
            Some(c.name.clone())
        } else {
            None
        };
        let Some(script) = script else { return };
        let file = basename(&script);
        let words = name_words(file.rsplit_once('.').map_or(file, |(stem, _)| stem));
        if let Some(w) = words
            .iter()
            .find(|w| matches!(w.as_str(), "publish" | "deploy"))
        {
            self.shared(
                Level::Caution,
                c.line,
                format!("runs a script made to {w} ({file})"),
                &c.snippet,
            );
        }
    }

    /// Runs a script that installs something (an installer changes the machine on purpose).
    fn installer(&mut self, c: &Cmd) {
        self.add(
            Level::Caution,
            c.line,
            "runs an installer (install.sh)",
            &c.snippet,
        );
    }

    fn copy_to_host(&mut self, c: &Cmd) {
        self.shared(
            Level::Caution,
            c.line,
            format!("copies files to another machine ({})", c.name),
            &c.snippet,
        );
    }

    fn curl(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let method = args.iter().enumerate().find_map(|(i, a)| {
            if a == "-X" || a == "--request" {
                args.get(i + 1).map(|m| m.to_ascii_uppercase())
            } else {
                a.strip_prefix("-X")
                    .filter(|m| !m.is_empty())
                    .or_else(|| a.strip_prefix("--request="))
                    .map(str::to_ascii_uppercase)
            }
        });
        if let Some(m) = method.filter(|m| matches!(m.as_str(), "PUT" | "DELETE" | "PATCH")) {
            self.shared(
                Level::Caution,
                c.line,
                format!("changes a remote service (curl -X {m})"),
                &c.snippet,
            );
        }
        let uploads = args.iter().enumerate().any(|(i, a)| {
            matches!(a.as_str(), "-T" | "--upload-file")
                || (matches!(a.as_str(), "-F" | "--form")
                    && args.get(i + 1).is_some_and(|v| v.contains("=@")))
                || a.starts_with("--form=") && a.contains("=@")
        });
        if uploads {
            self.shared(
                Level::Caution,
                c.line,
                "uploads a file to a remote service (curl)",
                &c.snippet,
            );
        }
        if let Some(i) = args.iter().position(|a| a == "-o" || a == "--output")
            && let Some(d) = c.args.get(i + 1)
        {
            self.write_to(d, c.line, &c.snippet, false);
        }
    }

    fn cloud(&mut self, c: &Cmd) {
        let name = c.name.as_str();
        let args = c.arg_texts();
        let destructive = args.iter().any(|a| {
            matches!(
                a.as_str(),
                "rb" | "delete"
                    | "terminate-instances"
                    | "delete-stack"
                    | "delete-bucket"
                    | "delete-db-instance"
                    | "delete-cluster"
            ) || a.starts_with("delete-")
        }) || ((args.iter().any(|a| a == "rm"))
            && (c.has_flag('r', "recursive")));
        if destructive {
            self.shared(
                Level::Danger,
                c.line,
                format!("deletes cloud resources ({name})"),
                &c.snippet,
            );
            return;
        }
        let ops: Vec<String> = c.operands().iter().map(|w| w.text()).collect();
        // `aws s3 cp SRC DST …`: an upload when a bucket comes after the first path.
        let bucket = |d: &String| d.starts_with("s3://") || d.starts_with("gs://");
        let uploads = ops
            .iter()
            .position(|a| {
                matches!(
                    a.as_str(),
                    "cp" | "sync" | "mv" | "rsync" | "upload" | "upload-batch"
                )
            })
            .is_some_and(|at| {
                ops.iter().skip(at + 2).any(bucket) && !ops.get(at + 1).is_some_and(bucket)
            })
            || (name == "az"
                && ops.iter().any(|a| a == "blob")
                && ops.iter().any(|a| a.starts_with("upload")));
        if uploads {
            self.shared(
                Level::Caution,
                c.line,
                format!("uploads files to cloud storage ({name})"),
                &c.snippet,
            );
        }
    }

    fn gh(&mut self, c: &Cmd) {
        let ops: Vec<String> = c.operands().iter().map(|w| w.text()).collect();
        let (a, b) = (
            ops.first().map(String::as_str).unwrap_or(""),
            ops.get(1).map(String::as_str).unwrap_or(""),
        );
        let what = match (a, b) {
            ("release", "create" | "upload" | "delete" | "edit" | "delete-asset") => {
                Some(format!("changes a GitHub release (gh release {b})"))
            }
            ("pr", "merge" | "close") => Some(format!("changes the shared repository (gh pr {b})")),
            ("issue", "close" | "delete" | "transfer" | "lock") => {
                Some(format!("changes the shared repository (gh issue {b})"))
            }
            ("workflow", "run") | ("run", "rerun") => {
                Some("starts a workflow on GitHub (gh workflow run)".to_string())
            }
            ("repo", "delete" | "archive" | "edit" | "rename") => {
                Some(format!("changes the shared repository (gh repo {b})"))
            }
            ("secret" | "variable", "set" | "delete") => {
                Some(format!("changes the repository's settings (gh {a} {b})"))
            }
            ("api", _) => {
                let args = c.arg_texts();
                args.iter().enumerate().find_map(|(i, x)| {
                    let m = if x == "-X" || x == "--method" {
                        args.get(i + 1).cloned()
                    } else {
                        x.strip_prefix("--method=")
                            .or_else(|| x.strip_prefix("-X").filter(|m| !m.is_empty()))
                            .map(str::to_string)
                    }?;
                    let m = m.to_ascii_uppercase();
                    (m != "GET").then(|| format!("changes the shared repository (gh api -X {m})"))
                })
            }
            _ => None,
        };
        if let Some(w) = what {
            self.shared(Level::Caution, c.line, w, &c.snippet);
        }
    }

    fn rm(&mut self, c: &Cmd) {
        let recursive = c.has_flag('r', "recursive") || c.has_flag('R', "recursive");
        if c.args.iter().any(|a| a.text() == "--no-preserve-root") {
            self.add(
                Level::Danger,
                c.line,
                "deletes the root folder (--no-preserve-root)",
                &c.snippet,
            );
        }
        if !recursive && c.name == "rm" {
            // Single files: only those the system owns matter (an uninstall from
            // /usr/local/bin needs privileges and changes the machine).
            for w in c.operands() {
                let (t, _) = landing(w);
                if let Some(abs) = t.strip_prefix('/')
                    && (SYSTEM_PREFIXES.contains(&abs.split('/').next().unwrap_or(""))
                        || abs.starts_with("etc/"))
                    && !is_temp(&t)
                {
                    self.add(
                        Level::Caution,
                        c.line,
                        format!("deletes {t}, outside the project"),
                        &c.snippet,
                    );
                }
            }
            return;
        }
        for w in c.operands() {
            // `$PYENV_ROOT/versions/x`, or `$PREFIX` set from it: the user's install of a tool.
            if let Some(home) = self.tool_home_of(w) {
                let t = w.text();
                let what = if t == format!("${home}") {
                    format!("deletes ${home}, a tool's home outside the project (rm -r)")
                } else {
                    format!("deletes {t} under ${home}, outside the project (rm -r)")
                };
                self.add(Level::Caution, c.line, what, &c.snippet);
                continue;
            }
            // `"$DIR"/…` with DIR empty is `/…`: dangerous when that is the root or a system
            // folder (`"$DIR"/*`, `$PREFIX/`), not for a project path (`"$DIR"/dist`).
            let mut lead = w
                .pieces
                .iter()
                .skip_while(|p| matches!(p, Piece::Lit(t) if t.is_empty()));
            if let Some(Piece::Var {
                name,
                guarded: false,
            }) = lead.next()
            {
                let rest: String = w
                    .pieces
                    .iter()
                    .skip_while(|p| !matches!(p, Piece::Var { .. }))
                    .skip(1)
                    .map(|p| match p {
                        Piece::Lit(t) => t.clone(),
                        // `${V:?}` fails when empty and `${V:-x}` has a default: never empty.
                        Piece::Var { guarded: true, .. } => "x".into(),
                        Piece::Var { .. } => String::new(),
                        Piece::Subst(_) => "x".into(),
                    })
                    .collect();
                if rest.starts_with('/') && self.outside(&rest) == Some(Level::Danger) {
                    self.add(
                        Level::Danger,
                        c.line,
                        format!("deletes from / if ${name} is empty"),
                        &c.snippet,
                    );
                }
                continue;
            }
            let t = w.text();
            if let Some(level) = self.outside(&t) {
                let what = if level == Level::Danger {
                    match t.trim_end_matches(['/', '*']) {
                        "" => "deletes everything under /".to_string(),
                        "~" => "deletes the home folder".to_string(),
                        p => format!("deletes the system folder {p}"),
                    }
                } else {
                    format!("deletes {t}, outside the project")
                };
                self.add(level, c.line, format!("{what} (rm -r)"), &c.snippet);
            } else if let Some((_, what)) = sensitive_path(&t) {
                self.add(Level::Danger, c.line, format!("deletes {what}"), &c.snippet);
            }
        }
    }

    /// The tool home (`PYENV_ROOT`) that `w` lies under: it starts with the variable, or with
    /// one set from it (`PREFIX="${PYENV_ROOT}/versions/${VERSION_NAME}"`).
    pub(crate) fn tool_home_of(&self, w: &Word) -> Option<String> {
        let first = w
            .pieces
            .iter()
            .find(|p| !matches!(p, Piece::Lit(t) if t.is_empty()))?;
        let Piece::Var { name, .. } = first else {
            return None;
        };
        let mut name: String = var_base(name);
        for _ in 0..4 {
            if self.homes.contains(&name) {
                return Some(name);
            }
            let next = self.template(&name)?.strip_prefix('$')?;
            name = var_base(next.trim_start_matches('{'));
        }
        None
    }

    /// `make install` run by a script (a tool building Ruby or Python from source): it installs
    /// into the prefix the build was configured with, outside the project, unless the line
    /// stages it (`DESTDIR=…`) or names a prefix inside the project.
    fn make_install(&mut self, c: &Cmd) {
        let mut target: Option<String> = None;
        let mut args = c.args.iter();
        while let Some(a) = args.next() {
            let t = a.text();
            if matches!(
                t.as_str(),
                "-C" | "-f" | "-j" | "-l" | "-o" | "-W" | "-I" | "--directory" | "--file"
            ) {
                args.next();
                continue;
            }
            if t.starts_with('-') {
                continue;
            }
            if let Some((k, v)) = t.split_once('=')
                && !k.is_empty()
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                let k = k.to_ascii_uppercase();
                let inside = !v.starts_with('$') && self.outside(v).is_none();
                if k.contains("DESTDIR")
                    || ((k.contains("PREFIX") || k.contains("INSTALL") || k.ends_with("DIR"))
                        && inside)
                {
                    return;
                }
                continue;
            }
            if target.is_none() {
                target = Some(a.literal().or_else(|| literal_default(&a.raw)).unwrap_or(t));
            }
        }
        if target.as_deref() == Some("install") {
            self.add(
                Level::Caution,
                c.line,
                "installs what it built outside the project (make install)",
                &c.snippet,
            );
        }
    }

    fn chmod(&mut self, c: &Cmd) {
        let ops = c.operands();
        let Some(mode) = ops.first().map(|w| w.text()) else {
            return;
        };
        let targets: Vec<String> = ops.iter().skip(1).map(|w| w.text()).collect();
        if !targets.is_empty() && targets.iter().all(|t| is_temp(t)) {
            // A folder the script made for itself.
            return;
        }
        let m = mode.trim_start_matches('0');
        // Symbolic modes: a clause whose "who" includes others (`o`, `a`) granting `w`. A bare
        // `+w` is limited by the umask (the owner only, as usually set up).
        let symbolic_world = mode.split(',').any(|clause| {
            let who: String = clause
                .chars()
                .take_while(|ch| matches!(ch, 'u' | 'g' | 'o' | 'a'))
                .collect();
            let rest = &clause[who.len()..];
            (who.contains('o') || who.contains('a'))
                && (rest.starts_with('+') || rest.starts_with('='))
                && rest.contains('w')
        });
        let world_writable = (m.len() == 3 && matches!(m.as_bytes()[2], b'2' | b'3' | b'6' | b'7'))
            || (m.len() == 4 && matches!(m.as_bytes()[3], b'2' | b'3' | b'6' | b'7'))
            || symbolic_world;
        let targets_outside = targets.iter().any(|t| self.outside(t).is_some());
        if world_writable {
            let recursive = c.has_flag('R', "recursive");
            let level = if recursive || targets_outside {
                Level::Danger
            } else {
                Level::Caution
            };
            let how = if recursive { ", recursively" } else { "" };
            self.add(
                level,
                c.line,
                format!("makes files writable by everyone (chmod {mode}{how})"),
                &c.snippet,
            );
        } else if c.has_flag('R', "recursive") && targets_outside {
            self.add(
                Level::Danger,
                c.line,
                "changes permissions outside the project, recursively",
                &c.snippet,
            );
        }
        if mode.contains("+s") || (m.len() == 4 && matches!(m.as_bytes()[0], b'4' | b'6')) {
            self.add(Level::Caution, c.line, "sets the setuid bit", &c.snippet);
        }
    }

    fn git(&mut self, c: &Cmd) {
        let Some((i, sub)) = c.subcommand(&["-C", "-c", "--git-dir", "--work-tree"]) else {
            return;
        };
        let rest: Vec<String> = c.args[i + 1..].iter().map(Word::text).collect();
        let flag = |short: char, long: &str| {
            rest.iter().any(|a| {
                a == &format!("--{long}")
                    || (a.starts_with('-') && !a.starts_with("--") && a[1..].contains(short))
            })
        };
        match sub.as_str() {
            "push" => {
                if rest.iter().any(|a| a == "--dry-run") || flag('n', "dry-run") {
                    return;
                }
                if flag('f', "force")
                    || rest
                        .iter()
                        .any(|a| a == "--mirror" || a.starts_with("--force"))
                    || rest.iter().any(|a| a.starts_with('+') && a.len() > 1)
                {
                    self.shared(
                        Level::Danger,
                        c.line,
                        "overwrites remote history (git push --force)",
                        &c.snippet,
                    );
                } else if flag('d', "delete")
                    || rest.iter().any(|a| a.starts_with(':') && a.len() > 1)
                {
                    self.shared(
                        Level::Caution,
                        c.line,
                        "deletes a remote branch or tag (git push --delete)",
                        &c.snippet,
                    );
                } else {
                    self.shared(
                        Level::Caution,
                        c.line,
                        "pushes to a shared remote (git push)",
                        &c.snippet,
                    );
                }
            }
            "reset" if rest.iter().any(|a| a == "--hard") => {
                self.add(
                    Level::Danger,
                    c.line,
                    "discards uncommitted changes (git reset --hard)",
                    &c.snippet,
                );
            }
            "clean" if flag('f', "force") => {
                let (level, what) = if flag('x', "") || flag('X', "") || flag('d', "") {
                    (
                        Level::Danger,
                        "deletes untracked and ignored files (git clean -fdx)",
                    )
                } else {
                    (Level::Caution, "deletes untracked files (git clean -f)")
                };
                self.add(level, c.line, what, &c.snippet);
            }
            "checkout" | "restore"
                if rest.iter().any(|a| a == ".") && !rest.iter().any(|a| a == "-b") =>
            {
                self.add(
                    Level::Caution,
                    c.line,
                    format!("discards uncommitted changes (git {sub} .)"),
                    &c.snippet,
                );
            }
            "filter-branch" | "filter-repo" => {
                self.add(
                    Level::Caution,
                    c.line,
                    format!("rewrites history (git {sub})"),
                    &c.snippet,
                );
            }
            "config"
                if rest.iter().any(|a| a == "--global" || a == "--system")
                    && !rest.iter().any(|a| {
                        matches!(
                            a.as_str(),
                            "--get" | "--get-all" | "--list" | "-l" | "--get-regexp"
                        )
                    })
                    && rest.iter().filter(|a| !a.starts_with('-')).count() >= 2 =>
            {
                self.add(
                    Level::Caution,
                    c.line,
                    "changes the user's global git configuration (git config --global)",
                    &c.snippet,
                );
            }
            _ => {}
        }
    }

    fn docker(&mut self, c: &Cmd) {
        let args = c.arg_texts();
        let pos: Vec<&str> = args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .map(String::as_str)
            .collect();
        match pos.as_slice() {
            ["system", "prune", ..] => self.add(
                Level::Danger,
                c.line,
                "deletes all unused containers, images and networks (docker system prune)",
                &c.snippet,
            ),
            ["volume", "prune", ..] | ["volume", "rm", ..] => self.add(
                Level::Danger,
                c.line,
                "deletes Docker volumes and their data",
                &c.snippet,
            ),
            [_, "prune", ..] => self.add(
                Level::Caution,
                c.line,
                "deletes unused Docker objects (prune)",
                &c.snippet,
            ),
            ["compose", "down", ..] | ["compose", ..]
                if args.iter().any(|a| a == "-v" || a == "--volumes")
                    && pos.get(1) == Some(&"down") =>
            {
                self.add(
                    Level::Caution,
                    c.line,
                    "deletes the project's volumes and their data (compose down -v)",
                    &c.snippet,
                )
            }
            ["push", ..] | ["image", "push", ..] | ["manifest", "push", ..] => self.shared(
                Level::Caution,
                c.line,
                format!("pushes an image to a registry ({} push)", c.name),
                &c.snippet,
            ),
            ["buildx", ..] | ["build", ..] if args.iter().any(|a| a == "--push") => self.shared(
                Level::Caution,
                c.line,
                format!("pushes an image to a registry ({} build --push)", c.name),
                &c.snippet,
            ),
            _ => {}
        }
        if !matches!(
            pos.first(),
            Some(&("run" | "create" | "container" | "exec"))
        ) {
            return;
        }
        // `docker run … amazon/aws-cli s3 cp … s3://bucket`: what the container's command does
        // to shared things is done, wherever it runs; its own machine is the container.
        if let Some(inner) = container_command(c) {
            let scope = self.scope;
            self.scope = crate::shell::Scope::Remote;
            if let Some(inner) = self.unwrap(inner, c.line, &c.snippet, 1) {
                self.check_command(&inner);
            }
            self.scope = scope;
        }
        if args.iter().any(|a| a == "--privileged") {
            self.add(
                Level::Caution,
                c.line,
                "runs a container with full access to the host (--privileged)",
                &c.snippet,
            );
        }
        let mounts: Vec<String> = args
            .windows(2)
            .filter(|w| w[0] == "-v" || w[0] == "--volume")
            .map(|w| w[1].clone())
            .chain(
                args.iter()
                    .filter_map(|a| a.strip_prefix("--volume=").map(str::to_string)),
            )
            .collect();
        for m in mounts {
            if let Some(what) = crate::container::host_mount(&m) {
                self.add(
                    Level::Caution,
                    c.line,
                    format!("gives a container {what}"),
                    &c.snippet,
                );
            }
        }
        if args.iter().any(|a| {
            matches!(
                a.as_str(),
                "--network=host" | "--net=host" | "--pid=host" | "--ipc=host"
            )
        }) || args
            .windows(2)
            .any(|w| matches!(w[0].as_str(), "--network" | "--net" | "--pid") && w[1] == "host")
        {
            self.add(
                Level::Caution,
                c.line,
                "runs a container in the host's network or process space",
                &c.snippet,
            );
        }
    }

    pub fn sql(&mut self, sql: &str, line: u32, snippet: &str) {
        let words: Vec<String> = sql
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(|w| w.to_ascii_uppercase())
            .collect();
        for w in words.windows(2) {
            let what = match (w[0].as_str(), w[1].as_str()) {
                ("DROP", "DATABASE" | "SCHEMA") => "drops a database (DROP DATABASE)",
                ("DROP", "TABLE") => "drops a table (DROP TABLE)",
                ("TRUNCATE", _) => "empties a table (TRUNCATE)",
                _ => continue,
            };
            self.add(Level::Danger, line, what, snippet);
            return;
        }
    }
}

/// `docker run` options that take a value (the next word unless written `--opt=value`).
const RUN_VALUE_OPTIONS: &[&str] = &[
    "-a",
    "--attach",
    "--add-host",
    "--annotation",
    "--blkio-weight",
    "--cap-add",
    "--cap-drop",
    "--cgroup-parent",
    "--cgroupns",
    "--cidfile",
    "-c",
    "--cpu-shares",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--cpu-period",
    "--cpu-quota",
    "--device",
    "--dns",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "--entrypoint",
    "-e",
    "--env",
    "--env-file",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-timeout",
    "--health-start-period",
    "-h",
    "--hostname",
    "--ip",
    "--ip6",
    "--ipc",
    "--isolation",
    "-l",
    "--label",
    "--label-file",
    "--link",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "-m",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--mount",
    "--name",
    "--network",
    "--net",
    "--network-alias",
    "--pid",
    "--platform",
    "-p",
    "--publish",
    "--pull",
    "--restart",
    "--runtime",
    "--security-opt",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--sysctl",
    "--tmpfs",
    "--ulimit",
    "-u",
    "--user",
    "--userns",
    "--uts",
    "-v",
    "--volume",
    "--volumes-from",
    "-w",
    "--workdir",
];

/// Images whose entrypoint is a command-line tool: `docker run amazon/aws-cli s3 cp …` runs
/// `aws s3 cp …`.
const CLI_IMAGES: &[(&str, &str)] = &[
    ("amazon/aws-cli", "aws"),
    ("public.ecr.aws/aws-cli/aws-cli", "aws"),
    ("hashicorp/terraform", "terraform"),
    ("bitnami/kubectl", "kubectl"),
    ("alpine/helm", "helm"),
    ("rclone/rclone", "rclone"),
    ("alpine/git", "git"),
];

/// The command a `docker run` (`podman run`, `docker container run`) starts in its container,
/// with the entrypoint of a tool's image put first, when there is one.
fn container_command(c: &Cmd) -> Option<Vec<Word>> {
    let mut i = c.args.iter().position(|w| !w.text().starts_with('-'))?;
    if c.args[i].text() == "container" {
        i += 1;
    }
    if c.args.get(i)?.text() != "run" {
        return None;
    }
    i += 1;
    let mut entrypoint = None;
    while let Some(w) = c.args.get(i) {
        let t = w.text();
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') {
            break;
        }
        if let Some(v) = t.strip_prefix("--entrypoint=") {
            entrypoint = Some(Word::lit(v));
        }
        if RUN_VALUE_OPTIONS.contains(&t.as_str()) {
            if t == "--entrypoint" {
                entrypoint = c.args.get(i + 1).cloned();
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    let image = c.args.get(i)?.text();
    let bare = image.split(['@']).next().unwrap_or(&image);
    let bare = match bare.rsplit_once(':') {
        Some((b, tag)) if !tag.contains('/') => b,
        _ => bare,
    };
    let bare = bare.strip_prefix("docker.io/").unwrap_or(bare);
    let entrypoint = entrypoint.or_else(|| {
        CLI_IMAGES
            .iter()
            .find(|(img, _)| *img == bare)
            .map(|(_, tool)| Word::lit(tool))
    });
    let mut words: Vec<Word> = entrypoint.into_iter().collect();
    words.extend(c.args[i + 1..].iter().cloned());
    (!words.is_empty()).then_some(words)
}

/// The literal default of an argument written `${NAME:-default}` (or `-`), quotes allowed.
fn literal_default(raw: &str) -> Option<String> {
    let inner = raw
        .trim_matches('"')
        .strip_prefix("${")?
        .strip_suffix('}')?;
    let name = var_base(inner);
    let rest = &inner[name.len()..];
    let default = rest.strip_prefix(":-").or_else(|| rest.strip_prefix('-'))?;
    (!name.is_empty() && !default.is_empty() && !default.contains(['$', '`', '"', '\'']))
        .then(|| default.to_string())
}

/// The variable's name at the start of an expansion's text (`files` of `files[$i]`).
fn var_base(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The lowercase words of a file name: `publishCI` → `publish`, `ci`; `deploy-worker` →
/// `deploy`, `worker`.
fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if !ch.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        cur.push(ch.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `host:path`, `user@host:path`, `remote:bucket/x` (rclone): somewhere on another machine.
fn remote_spec(s: &str) -> bool {
    let Some((host, _)) = s.split_once(':') else {
        return false;
    };
    !host.is_empty()
        && !host.contains('/')
        && !host.starts_with('$')
        && !host.starts_with('-')
        && host.len() > 1
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'))
}

/// A Rails/Rake task that drops a database: `db:drop`, `db:reset`, `db:purge`,
/// `db:schema:load`, and the per-adapter forms (`db:mysql:drop`, `db:postgresql:rebuild`).
fn drops_database(task: &str) -> bool {
    let t = task.split('[').next().unwrap_or(task);
    let Some(rest) = t.strip_prefix("db:") else {
        return false;
    };
    rest == "schema:load"
        || rest
            .rsplit(':')
            .next()
            .is_some_and(|last| matches!(last, "drop" | "reset" | "purge" | "rebuild"))
}
