//! Installing: system packages, programs installed for the whole user or machine (`cargo
//! install`, `npm -g`, `pipx`, toolchains, global tool versions), installers run, and `make
//! install` from a script.

use super::paths::var_base;
use super::{Family, NPM_FAMILY, Reach, Rule};
use crate::Level;
use crate::shell::{Analyser, Cmd, basename, is_shell};

family_rule!(Family::Installs, Reach::Machine, Level::Caution);

pub(crate) const INSTALLER: Rule = rule(
    "runs-installer",
    "`./install.sh`, `sh install.sh`, a program named as an installer (`basic-install.sh`)",
    "runs an installer ({})",
    "sh install.sh",
);
pub(crate) const MAKE_INSTALL: Rule = rule(
    "make-install",
    "`make install` from a script, unless staged (`DESTDIR=`) or given a prefix in the project",
    "installs what it built outside the project (make install)",
    "./configure\nmake\nmake install",
);
pub(crate) const SYSTEM_PACKAGES: Rule = rule(
    "system-packages",
    "`apt-get install`, `dnf remove`, `brew install`, `choco install`, … (the table below)",
    "changes the system's packages ({} {})",
    "apt-get install -y build-essential",
);
pub(crate) const PACMAN: Rule = rule(
    "pacman",
    "`pacman -S`, `-R`, `-U`",
    "changes the system's packages (pacman)",
    "pacman -Syu",
);
pub(crate) const DPKG: Rule = rule(
    "dpkg-install",
    "`dpkg -i`",
    "installs a system package (dpkg -i)",
    "dpkg -i tool_1.0_amd64.deb",
);
pub(crate) const CARGO: Rule = rule(
    "cargo-install",
    "`cargo install`, `cargo binstall`",
    "installs a program globally (cargo {})",
    "cargo install ripgrep",
);
pub(crate) const GO: Rule = rule(
    "go-install",
    "`go install` (without `GOBIN=` on the line)",
    "installs a program globally (go install)",
    "go install golang.org/x/tools/cmd/stringer@latest",
);
pub(crate) const RUSTUP: Rule = rule(
    "rustup-toolchains",
    "`rustup install`, `default`, `update`, `self`, `toolchain install|uninstall`",
    "changes the installed Rust toolchains (rustup {})",
    "rustup default nightly",
);
pub(crate) const RUNTIME_VERSIONS: Rule = rule(
    "runtime-versions",
    "`nvm install`, `fnm install`, `pyenv install`, `rbenv install`, `nodenv install`, \
     `sdk install`, `volta install`, `uninstall` too: a runtime put into or taken from the \
     user's version manager",
    "changes the user's installed runtimes ({} {})",
    "nvm install 20",
);
pub(crate) const TOOL_VERSIONS: Rule = rule(
    "global-tool-versions",
    "`mise use -g`, `asdf global`",
    "changes the user's global tool versions ({} {} -g)",
    "mise use -g node@20",
);
pub(crate) const GEMS: Rule = rule(
    "gem-install",
    "`gem install`, `uninstall`, `update`",
    "changes the installed gems ({} {})",
    "gem install bundler",
);
pub(crate) const PIPX: Rule = rule(
    "pipx",
    "`pipx install`, `upgrade`, `uninstall`",
    "changes globally installed programs (pipx {})",
    "pipx install black",
);
pub(crate) const UV_TOOL: Rule = rule(
    "uv-tool-install",
    "`uv tool install`",
    "installs a program globally (uv tool install)",
    "uv tool install ruff",
);
pub(crate) const SYSTEM_PYTHON: Rule = rule(
    "pip-system",
    "`pip install --break-system-packages`",
    "installs into the system's Python (--break-system-packages)",
    "pip install --break-system-packages requests",
);
pub(crate) const DOTNET_TOOL: Rule = rule(
    "dotnet-tool-global",
    "`dotnet tool install -g`",
    "installs a .NET tool globally (dotnet tool -g)",
    "dotnet tool install -g dotnet-ef",
);
pub(crate) const NPM_GLOBAL: Rule = rule(
    "npm-global",
    "`npm`/`pnpm`/`yarn`/`bun` `install|add|update|remove|link -g`",
    "installs packages globally ({} {} -g)",
    "npm install -g typescript",
);
pub(crate) const NPM_GLOBAL_COMMAND: Rule = rule(
    "npm-global-command",
    "`yarn global add|remove`",
    "installs packages globally ({} global)",
    "yarn global add serve",
);

/// System package managers and the subcommands that change what is installed.
const PACKAGE_MANAGERS: &[(&str, &[&str])] = &[
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

impl Analyser<'_> {
    /// Runs a script that installs something (an installer changes the machine on purpose).
    pub(crate) fn installer(&mut self, c: &Cmd) {
        let name = c.name.as_str();
        let script = if is_shell(name) {
            c.operands()
                .first()
                .map(|s| basename(&s.text()).to_string())
        } else {
            // The program as written, up to the first space not escaped: a path with an
            // escaped space (`$DIR/automated\ install/basic-install.sh`) is one word.
            let b = c.snippet.as_bytes();
            let end = (0..b.len())
                .find(|&i| b[i].is_ascii_whitespace() && (i == 0 || b[i - 1] != b'\\'))
                .unwrap_or(b.len());
            let written = basename(&c.snippet[..end]);
            Some(
                if installer_name(written) {
                    written
                } else {
                    basename(name)
                }
                .to_string(),
            )
        };
        if let Some(script) = script.filter(|s| installer_name(s)) {
            self.hit(&INSTALLER, c.line, &c.snippet, &[&script]);
        }
    }

    /// System packages and programs installed for the user or the machine.
    pub(crate) fn installs(&mut self, c: &Cmd) {
        let name = c.name.as_str();
        let args = c.arg_texts();
        let sub = c.subcommand(&[]).map(|s| s.1).unwrap_or_default();
        let global = args
            .iter()
            .any(|a| a == "-g" || a == "--global" || a == "--location=global");
        let line = c.line;
        let snip = c.snippet.clone();
        if let Some((_, subs)) = PACKAGE_MANAGERS.iter().find(|(m, _)| *m == name)
            && (subs.is_empty() || subs.contains(&sub.as_str()))
        {
            self.hit(&SYSTEM_PACKAGES, line, &snip, &[name, &sub]);
        }
        if name == "pacman"
            && args
                .iter()
                .any(|a| a.starts_with("-S") || a.starts_with("-R") || a.starts_with("-U"))
        {
            self.hit(&PACMAN, line, &snip, &[]);
        }
        if name == "dpkg" && args.iter().any(|a| a == "-i" || a == "--install") {
            self.hit(&DPKG, line, &snip, &[]);
        }
        match name {
            "cargo" if matches!(sub.as_str(), "install" | "binstall") => {
                self.hit(&CARGO, line, &snip, &[&sub])
            }
            "go" if sub == "install" && !snip.contains("GOBIN=") => self.hit(&GO, line, &snip, &[]),
            "rustup"
                if matches!(sub.as_str(), "install" | "default" | "update" | "self")
                    || (sub == "toolchain"
                        && args.iter().any(|a| a == "install" || a == "uninstall")) =>
            {
                self.hit(&RUSTUP, line, &snip, &[&sub])
            }
            // The version managers' own folders (`~/.nvm`, `~/.pyenv`, `~/.sdkman`): what a
            // runtime is installed into for every project of the user.
            "nvm" | "fnm" | "pyenv" | "rbenv" | "nodenv" | "goenv" | "jenv" | "plenv" | "sdk"
            | "volta"
                if matches!(sub.as_str(), "install" | "uninstall")
                    && args.iter().skip(1).any(|a| !a.starts_with('-'))
                    && self.users_version_manager(name) =>
            {
                self.hit(&RUNTIME_VERSIONS, line, &snip, &[name, &sub])
            }
            "mise" | "rtx" | "asdf"
                if matches!(sub.as_str(), "use" | "global") && (global || sub == "global") =>
            {
                self.hit(&TOOL_VERSIONS, line, &snip, &[name, &sub])
            }
            "gem" if matches!(sub.as_str(), "install" | "uninstall" | "update") => {
                self.hit(&GEMS, line, &snip, &[name, &sub])
            }
            "pipx" if matches!(sub.as_str(), "install" | "upgrade" | "uninstall") => {
                self.hit(&PIPX, line, &snip, &[&sub])
            }
            "uv" if sub == "tool" && args.iter().any(|a| a == "install") => {
                self.hit(&UV_TOOL, line, &snip, &[])
            }
            "pip" | "pip3" if args.iter().any(|a| a == "--break-system-packages") => {
                self.hit(&SYSTEM_PYTHON, line, &snip, &[])
            }
            "dotnet" if sub == "tool" && global => self.hit(&DOTNET_TOOL, line, &snip, &[]),
            _ => {}
        }
        if NPM_FAMILY.contains(&name) {
            match sub.as_str() {
                "i" | "install" | "add" | "update" | "remove" | "uninstall" | "link" if global => {
                    self.hit(&NPM_GLOBAL, line, &snip, &[name, &sub])
                }
                "global" if args.iter().any(|a| a == "add" || a == "remove") => {
                    self.hit(&NPM_GLOBAL_COMMAND, line, &snip, &[name])
                }
                _ => {}
            }
        }
    }

    /// Whether version manager `tool` works in the user's own folder: its home variable
    /// (`NVM_DIR`) is not set by the script or a project file it sources (nvm's tests point it
    /// at the checkout, a benchmark at a temporary folder), or is set under the home folder;
    /// and the tool is not the project's own, sourced from it.
    fn users_version_manager(&self, tool: &str) -> bool {
        if self.facts.sources_own(tool) {
            return false;
        }
        let var = match tool {
            "nvm" => "NVM_DIR",
            "fnm" => "FNM_DIR",
            "sdk" => "SDKMAN_DIR",
            "volta" => "VOLTA_HOME",
            "pyenv" => "PYENV_ROOT",
            "rbenv" => "RBENV_ROOT",
            "nodenv" => "NODENV_ROOT",
            "goenv" => "GOENV_ROOT",
            "jenv" => "JENV_ROOT",
            _ => "PLENV_ROOT",
        };
        match self.assigned(var) {
            Some(v) => super::paths::home_rel(v).is_some(),
            None => !self.elsewhere.contains(var),
        }
    }

    /// `make install` run by a script (a tool building Ruby or Python from source): it installs
    /// into the prefix the build was configured with, outside the project, unless the line
    /// stages it (`DESTDIR=…`) or names a prefix inside the project.
    pub(crate) fn make_install(&mut self, c: &Cmd) {
        if !matches!(c.name.as_str(), "make" | "gmake") {
            return;
        }
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
            self.hit(&MAKE_INSTALL, c.line, &c.snippet, &[]);
        }
    }
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

/// A script named as an installer: `install.sh`, `basic-install.sh`, `tool-installer.sh`,
/// `rootless-install.sh` (not the `install` program, which copies files).
fn installer_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    let stem = n
        .strip_suffix(".sh")
        .or_else(|| n.strip_suffix(".bash"))
        .unwrap_or(&n);
    stem == "install" && n != "install"
        || ["-install", "_install", "-installer", "_installer"]
            .iter()
            .any(|s| stem.ends_with(s) && (n.ends_with(".sh") || n.ends_with(".bash")))
        || stem == "installer" && n != "installer"
}
