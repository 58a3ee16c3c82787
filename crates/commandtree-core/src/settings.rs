//! Settings. Precedence, lowest first: built-in defaults, the user config
//! (`$XDG_CONFIG_HOME/commandtree/config.toml`, else `~/.config/commandtree/config.toml`),
//! the `commandtree.*` keys of `.vscode/settings.json` (shared with the VS Code extension),
//! the workspace's `.commandtree/config.toml`, then environment variables.
//!
//! The workspace layers are the cloned repository's: of those, only keys that cannot redirect a
//! request or start a program are honoured before `ct trust` (see [`crate::trust`]).

use crate::model::Warning;
use crate::text;
use crate::trust;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Upstream's default `commandtree.excludePatterns` (reference §4.1), in order.
pub const DEFAULT_EXCLUDES: &[&str] = &[
    "**/node_modules/**",
    "**/.vscode-test/**",
    "**/vendor/**",
    "**/dist/**",
    "**/build/**",
    "**/out/**",
    "**/bin/**",
    "**/obj/**",
    "**/.git/**",
    "**/.hg/**",
    "**/.svn/**",
    "**/coverage/**",
    "**/__pycache__/**",
    "**/venv/**",
    "**/.venv/**",
    "**/env/**",
    "**/target/**",
    "**/Pods/**",
    "**/.gradle/**",
    "**/.idea/**",
    "**/.vs/**",
    "**/test/fixtures/**",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortOrder {
    /// Folder path, then name (upstream default).
    #[default]
    Folder,
    Name,
    Type,
}

impl std::str::FromStr for SortOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "folder" => Ok(SortOrder::Folder),
            "name" => Ok(SortOrder::Name),
            "type" => Ok(SortOrder::Type),
            other => Err(format!(
                "unknown sort order `{other}` (expected folder, name or type)"
            )),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Settings {
    /// Globs (relative to the root) of files and folders discovery skips.
    pub exclude_patterns: Vec<String>,
    pub sort_order: SortOrder,
    /// Whether `.gitignore` (and `.ignore`) files are honoured.
    pub respect_gitignore: bool,
    /// Whether `exclude_patterns` started from the built-in defaults (not replaced by an explicit
    /// `commandtree.excludePatterns`): then `env/` and `bin/` are judged by what they hold.
    pub default_excludes: bool,
    /// `[discovery] show = "all"`: front ends list auxiliary and tool-hidden commands too.
    pub show_all: bool,
    /// `[discovery] docs = true`: documents (Markdown files) are listed, searched and
    /// summarized like commands; off by default, as they are read, not run.
    pub show_docs: bool,
    /// The merged TOML configuration (user, then workspace), for the sections other crates own.
    /// Keys of an untrusted workspace that need trust are not in it.
    pub config: toml::Table,
    /// Where each dotted key of `config` (`llm.base_url`) came from.
    pub origins: BTreeMap<String, Origin>,
    /// Whether the workspace configuration's keys that need trust were honoured.
    pub trust: trust::Status,
    /// Exclude globs a client gave (an editor's `commandtree.excludePatterns`): they replace
    /// `exclude_patterns` and survive a reload of the files (see [`Settings::set_client_excludes`]).
    pub client_excludes: Option<Vec<String>>,
}

/// The file a setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The user's own `config.toml`.
    User(PathBuf),
    /// The workspace's `.commandtree/config.toml` (trusted, or a key that needs no trust).
    Workspace(PathBuf),
}

impl Origin {
    pub fn path(&self) -> &Path {
        match self {
            Origin::User(p) | Origin::Workspace(p) => p,
        }
    }
    pub fn is_user(&self) -> bool {
        matches!(self, Origin::User(_))
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::User(p) => write!(f, "{} (user)", p.display()),
            Origin::Workspace(p) => write!(f, "{} (workspace)", p.display()),
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            exclude_patterns: DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect(),
            sort_order: SortOrder::Folder,
            respect_gitignore: true,
            default_excludes: true,
            show_all: false,
            show_docs: false,
            config: toml::Table::new(),
            origins: BTreeMap::new(),
            trust: trust::Status::NotNeeded,
            client_excludes: None,
        }
    }
}

pub fn user_config_dir() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(x).join("commandtree"));
    }
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|h| PathBuf::from(h).join(".config").join("commandtree"))
}

impl Settings {
    /// Replaces the exclude globs with a client's: an explicit list replaces the built-in
    /// defaults exactly (the per-folder `env/` and `bin/` rules included), as the setting does.
    pub fn set_client_excludes(&mut self, patterns: Vec<String>) {
        self.exclude_patterns = patterns.clone();
        self.default_excludes = false;
        self.client_excludes = Some(patterns);
    }

    /// These settings loaded again from the files, keeping what a client set.
    pub fn reload(&self, root: &Path) -> (Settings, Vec<Warning>) {
        let (mut s, w) = Settings::load(root);
        if let Some(p) = &self.client_excludes {
            s.set_client_excludes(p.clone());
        }
        (s, w)
    }

    /// Loads every layer for the workspace at `root`. Problems (malformed files, wrong types)
    /// become warnings and that layer's bad value is ignored; keys of an untrusted workspace
    /// that need trust are ignored with one warning naming them.
    pub fn load(root: &Path) -> (Settings, Vec<Warning>) {
        let mut s = Settings::default();
        let mut warnings = Vec::new();
        if let Some(dir) = user_config_dir() {
            let path = dir.join("config.toml");
            if let Some(table) = read_toml(&path, &mut warnings) {
                s.apply_table(table, &Origin::User(path), &mut warnings);
            }
        }
        s.apply_vscode(&root.join(".vscode").join("settings.json"), &mut warnings);
        s.apply_workspace(root, &mut warnings);
        s.apply_env(&mut warnings);
        (s, warnings)
    }

    fn apply_workspace(&mut self, root: &Path, warnings: &mut Vec<Warning>) {
        let path = trust::config_path(root);
        let Ok(content) = crate::fs::read_file(&path) else {
            return;
        };
        let table = match text::parse_toml(&content) {
            Ok(t) => t,
            Err((line, msg)) => {
                warnings.push(Warning::new(&path, line, msg));
                return;
            }
        };
        let (safe, sensitive) = trust::split(table);
        let keys = trust::dotted_keys(&sensitive);
        self.trust = trust::status(root, keys);
        let origin = Origin::Workspace(path.clone());
        self.apply_table(safe, &origin, warnings);
        match &self.trust {
            trust::Status::Trusted => self.apply_table(sensitive, &origin, warnings),
            trust::Status::NotNeeded => {}
            trust::Status::Untrusted { ignored, why, .. } => {
                warnings.push(Warning::new(
                    &path,
                    None,
                    format!(
                        "ignored {} ({why}; a workspace file may choose the LLM, its key or a program only after you review it and run `ct trust`)",
                        ignored.join(", ")
                    ),
                ));
            }
        }
    }

    fn apply_vscode(&mut self, path: &Path, warnings: &mut Vec<Warning>) {
        let Ok(content) = crate::fs::read_file(path) else {
            return;
        };
        let value = match text::parse_jsonc(&content) {
            Ok(v) => v,
            Err((line, msg)) => {
                warnings.push(Warning::new(path, line, msg));
                return;
            }
        };
        if let Some(v) = value.get("commandtree.excludePatterns") {
            match string_list(v) {
                Some(list) => {
                    self.exclude_patterns = list;
                    self.default_excludes = false;
                }
                None => warnings.push(Warning::new(
                    path,
                    None,
                    "`commandtree.excludePatterns` must be an array of strings; using the defaults",
                )),
            }
        }
        if let Some(v) = value.get("commandtree.sortOrder") {
            match v.as_str().map(str::parse::<SortOrder>) {
                Some(Ok(o)) => self.sort_order = o,
                Some(Err(e)) => warnings.push(Warning::new(
                    path,
                    None,
                    format!("`commandtree.sortOrder`: {e}"),
                )),
                None => warnings.push(Warning::new(
                    path,
                    None,
                    "`commandtree.sortOrder` must be a string",
                )),
            }
        }
    }

    fn apply_table(&mut self, table: toml::Table, origin: &Origin, warnings: &mut Vec<Warning>) {
        let path = origin.path();
        if let Some(d) = table.get("discovery").and_then(|d| d.as_table()) {
            if let Some(v) = d.get("exclude") {
                match v.as_array().and_then(|a| {
                    a.iter()
                        .map(|x| x.as_str().map(String::from))
                        .collect::<Option<Vec<_>>>()
                }) {
                    Some(list) => self.exclude_patterns.extend(list),
                    None => warnings.push(Warning::new(
                        path,
                        None,
                        "`discovery.exclude` must be an array of strings",
                    )),
                }
            }
            if let Some(v) = d.get("show") {
                match v.as_str() {
                    Some("all") => self.show_all = true,
                    Some("own") => self.show_all = false,
                    _ => warnings.push(Warning::new(
                        path,
                        None,
                        "`discovery.show` must be \"own\" or \"all\"",
                    )),
                }
            }
            if let Some(v) = d.get("docs") {
                match v.as_bool() {
                    Some(b) => self.show_docs = b,
                    None => warnings.push(Warning::new(
                        path,
                        None,
                        "`discovery.docs` must be true or false",
                    )),
                }
            }
            if let Some(v) = d.get("gitignore") {
                match v.as_bool() {
                    Some(b) => self.respect_gitignore = b,
                    None => warnings.push(Warning::new(
                        path,
                        None,
                        "`discovery.gitignore` must be true or false",
                    )),
                }
            }
        }
        if let Some(v) = table.get("tree").and_then(|t| t.get("sort")) {
            match v.as_str().map(str::parse::<SortOrder>) {
                Some(Ok(o)) => self.sort_order = o,
                Some(Err(e)) => {
                    warnings.push(Warning::new(path, None, format!("`tree.sort`: {e}")))
                }
                None => warnings.push(Warning::new(path, None, "`tree.sort` must be a string")),
            }
        }
        for key in trust::dotted_keys(&table) {
            self.origins.insert(key, origin.clone());
        }
        merge(&mut self.config, table);
    }

    /// Where `section.key` was set, when a file set it.
    pub fn origin(&self, dotted: &str) -> Option<&Origin> {
        self.origins.get(dotted)
    }

    fn apply_env(&mut self, warnings: &mut Vec<Warning>) {
        if let Ok(v) = std::env::var("COMMANDTREE_SORT_ORDER") {
            match v.parse() {
                Ok(o) => self.sort_order = o,
                Err(e) => warnings.push(Warning::new(Path::new("COMMANDTREE_SORT_ORDER"), None, e)),
            }
        }
        if let Ok(v) = std::env::var("COMMANDTREE_EXCLUDE") {
            self.exclude_patterns.extend(
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
        }
    }
}

fn read_toml(path: &Path, warnings: &mut Vec<Warning>) -> Option<toml::Table> {
    let content = crate::fs::read_file(path).ok()?;
    match text::parse_toml(&content) {
        Ok(t) => Some(t),
        Err((line, msg)) => {
            warnings.push(Warning::new(path, line, msg));
            None
        }
    }
}

fn string_list(v: &serde_json::Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(String::from))
        .collect()
}

/// Deep-merges `over` into `base` (tables merge, other values replace).
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// The workspace root: `explicit` when given, else the nearest ancestor of `cwd` holding
/// `.commandtree/`, else the git top level, else `cwd` (PRODUCT.md §3).
///
/// The `.commandtree/` search never leaves the current repository: it stops at the git top
/// level, and outside a repository below the home folder (never at the home folder itself),
/// so a `.commandtree/` planted in a shared parent (`/tmp`, a checkout's parent) cannot take
/// over the workspace. Elsewhere, only a `.commandtree/` owned by the current user counts.
pub fn resolve_root(explicit: Option<&Path>, cwd: &Path) -> PathBuf {
    if let Some(p) = explicit {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        };
        return std::fs::canonicalize(&p).unwrap_or(p);
    }
    let cwd = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| std::fs::canonicalize(&h).unwrap_or_else(|_| PathBuf::from(h)));
    let git_top = cwd.ancestors().find(|a| a.join(".git").exists());
    let under_home = home.as_deref().is_some_and(|h| cwd.starts_with(h));
    for a in cwd.ancestors() {
        if Some(a) == home.as_deref() {
            break;
        }
        let marker = a.join(".commandtree");
        if marker.is_dir() && (git_top.is_some() || under_home || owned_by_me(&marker)) {
            return a.to_path_buf();
        }
        if Some(a) == git_top {
            break;
        }
    }
    match git_top {
        Some(top) => top.to_path_buf(),
        None => cwd,
    }
}

#[cfg(unix)]
fn owned_by_me(p: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid takes no arguments, touches no memory of ours and cannot fail.
    let me = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(p).is_ok_and(|m| m.uid() == me)
}

#[cfg(not(unix))]
fn owned_by_me(_: &Path) -> bool {
    // Windows has no shared world-writable parents like /tmp in the usual layout.
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn defaults_match_upstream() {
        let s = Settings::default();
        assert!(s.exclude_patterns.iter().all(|p| p.contains("**")));
        for must in ["**/node_modules/**", "**/bin/**", "**/obj/**", "**/.git/**"] {
            assert!(s.exclude_patterns.iter().any(|p| p == must));
        }
        assert_eq!(s.sort_order, SortOrder::Folder);
    }

    #[test]
    fn vscode_settings_are_jsonc_and_replace_defaults() {
        let (_scratch, dir) = tempdir("settings");
        std::fs::create_dir_all(dir.join(".vscode")).unwrap();
        std::fs::write(
            dir.join(".vscode/settings.json"),
            "{\n // ours\n \"commandtree.excludePatterns\": [\"**/skip/**\",],\n \"commandtree.sortOrder\": \"name\",\n}",
        )
        .unwrap();
        std::fs::create_dir_all(dir.join(".commandtree")).unwrap();
        std::fs::write(
            dir.join(".commandtree/config.toml"),
            "[discovery]\nexclude = [\"**/more/**\"]\n[tree]\nsort = \"type\"\n",
        )
        .unwrap();
        let (s, w) = Settings::load(&dir);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(
            s.exclude_patterns,
            vec!["**/skip/**".to_string(), "**/more/**".to_string()]
        );
        assert_eq!(s.sort_order, SortOrder::Type);
        assert!(
            !s.default_excludes,
            "an explicit list replaces the defaults exactly"
        );
        assert!(!s.show_all);
    }

    #[test]
    fn discovery_show_all() {
        let (_scratch, dir) = tempdir("showall");
        std::fs::create_dir_all(dir.join(".commandtree")).unwrap();
        std::fs::write(
            dir.join(".commandtree/config.toml"),
            "[discovery]\nshow = \"all\"\nexclude = [\"**/x/**\"]\n",
        )
        .unwrap();
        let (s, w) = Settings::load(&dir);
        assert!(w.is_empty(), "{w:?}");
        assert!(s.show_all);
        assert!(
            s.default_excludes,
            "[discovery] exclude extends the defaults"
        );
        std::fs::write(
            dir.join(".commandtree/config.toml"),
            "[discovery]\nshow = \"some\"\n",
        )
        .unwrap();
        let (s, w) = Settings::load(&dir);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(!s.show_all);
    }

    #[test]
    fn bad_settings_warn_and_keep_defaults() {
        let (_scratch, dir) = tempdir("badsettings");
        std::fs::create_dir_all(dir.join(".vscode")).unwrap();
        std::fs::write(
            dir.join(".vscode/settings.json"),
            "{ \"commandtree.excludePatterns\": 3, \"commandtree.sortOrder\": \"size\" }",
        )
        .unwrap();
        let (s, w) = Settings::load(&dir);
        assert_eq!(w.len(), 2, "{w:?}");
        assert_eq!(s.exclude_patterns.len(), DEFAULT_EXCLUDES.len());
        std::fs::write(dir.join(".vscode/settings.json"), "{ \"a\": ").unwrap();
        let (_, w) = Settings::load(&dir);
        assert_eq!(w.len(), 1);
        assert!(w[0].message.contains("invalid JSON"));
    }

    #[test]
    fn an_ancestor_outside_the_repository_does_not_choose_the_root() {
        let (_scratch, dir) = tempdir("roots");
        let dir = std::fs::canonicalize(dir).unwrap();
        let repo = dir.join("shared/repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::create_dir_all(dir.join("shared/.commandtree")).unwrap();
        assert_eq!(resolve_root(None, &repo.join("src/deep")), repo);
        // Inside the repository a `.commandtree/` still marks the root, as documented.
        std::fs::create_dir_all(repo.join("src/.commandtree")).unwrap();
        assert_eq!(resolve_root(None, &repo.join("src/deep")), repo.join("src"));
        assert_eq!(
            resolve_root(Some(Path::new("../..")), &repo.join("src/deep")),
            repo
        );
    }

    /// A fresh folder, removed when the returned guard is dropped.
    pub(crate) fn tempdir(name: &str) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::Builder::new()
            .prefix(&format!("ct-core-{name}-"))
            .tempdir()
            .unwrap();
        let path = d.path().to_path_buf();
        (d, path)
    }
}
