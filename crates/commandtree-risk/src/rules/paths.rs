//! Where a path lands: the project, the temporary folder, the home folder (and which files in
//! it matter), the system's own folders. Shared by the families that judge deletes and writes.

use crate::Level;
use crate::shell::{Analyser, Piece, TEMP_DIR, Word};

/// Root folders of the system: deleting one (or everything under it) breaks the machine.
pub(super) const SYSTEM_DIRS: &[&str] = &[
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
pub(super) const SYSTEM_PREFIXES: &[&str] = &[
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
pub(super) fn home_rel(p: &str) -> Option<&str> {
    if p == "~" {
        Some("")
    } else {
        p.strip_prefix("~/")
    }
}

/// `/home/NAME/…`, `/Users/NAME/…`, `/root/…`: a path in a user's home folder written out in
/// full (a provisioning script's `/home/user/.marker`); the part below the home folder.
pub(super) fn named_home_rel(p: &str) -> Option<&str> {
    if let Some(rest) = p.strip_prefix("/root/") {
        return Some(rest);
    }
    let rest = p
        .strip_prefix("/home/")
        .or_else(|| p.strip_prefix("/Users/"))?;
    let (user, rel) = rest.split_once('/')?;
    (!user.is_empty() && !user.starts_with('$') && user != "Shared" && !rel.is_empty())
        .then_some(rel)
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

pub(super) fn is_block_device(p: &str) -> bool {
    let Some(d) = p.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "loop",
    ]
    .iter()
    .any(|x| d.starts_with(x))
}

pub(super) fn is_temp(p: &str) -> bool {
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
pub(super) fn windows_path(p: &str) -> Option<&str> {
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
    /// Whether `w` starts with a variable or a function's output that holds a folder under
    /// the user's home picked at run time (`flow`): `"$plugin_dir"`, `"$(tpm_path)"/x`.
    pub(crate) fn home_made(&self, w: &Word) -> bool {
        match w
            .pieces
            .iter()
            .find(|p| !matches!(p, Piece::Lit(t) if t.is_empty()))
        {
            Some(Piece::Var { name, .. }) => self.facts.home_var(name, self.at),
            Some(Piece::Subst(r)) => self.facts.home_output(r),
            _ => false,
        }
    }

    /// Whether `w` is a folder under the running user's home (or, with `itself`, that folder
    /// itself), as written (`~/.tmux/plugins`) or picked at run time ([`Self::home_made`]).
    pub(crate) fn in_users_home(&self, w: &Word, itself: bool) -> bool {
        home_rel(&landing(w).0).is_some_and(|r| itself || !r.is_empty()) || self.home_made(w)
    }

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
pub(super) fn landing(w: &Word) -> (String, Option<String>) {
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
pub(super) fn shell_startup_var(v: &str) -> bool {
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
pub(super) fn tool_history(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    (name.ends_with("history") || name.ends_with("hist") || name.ends_with("hst"))
        && !matches!(
            name.as_str(),
            ".bash_history" | ".zsh_history" | ".history" | ".sh_history" | ".zhistory"
        )
}

/// Folders programs are installed into for one user.
pub(super) fn user_bin(rel: &str) -> bool {
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

/// The variable's name at the start of an expansion's text (`files` of `files[$i]`).
pub(crate) fn var_base(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}
