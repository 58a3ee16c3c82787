//! Settings. Precedence, lowest first: built-in defaults, the user config
//! (`$XDG_CONFIG_HOME/commandtree/config.toml`, else `~/.config/commandtree/config.toml`),
//! the `commandtree.*` keys of `.vscode/settings.json` (shared with the VS Code extension),
//! the workspace's `.commandtree/config.toml`, then environment variables.

use crate::model::Warning;
use crate::text;
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
    /// The merged TOML configuration (user, then workspace), for the sections other crates own.
    pub config: toml::Table,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            exclude_patterns: DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect(),
            sort_order: SortOrder::Folder,
            respect_gitignore: true,
            default_excludes: true,
            show_all: false,
            config: toml::Table::new(),
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
    /// Loads every layer for the workspace at `root`. Problems (malformed files, wrong types)
    /// become warnings and that layer's bad value is ignored.
    pub fn load(root: &Path) -> (Settings, Vec<Warning>) {
        let mut s = Settings::default();
        let mut warnings = Vec::new();
        if let Some(dir) = user_config_dir() {
            s.apply_toml(&dir.join("config.toml"), &mut warnings);
        }
        s.apply_vscode(&root.join(".vscode").join("settings.json"), &mut warnings);
        s.apply_toml(
            &root.join(".commandtree").join("config.toml"),
            &mut warnings,
        );
        s.apply_env(&mut warnings);
        (s, warnings)
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

    fn apply_toml(&mut self, path: &Path, warnings: &mut Vec<Warning>) {
        let Ok(content) = crate::fs::read_file(path) else {
            return;
        };
        let table = match text::parse_toml(&content) {
            Ok(t) => t,
            Err((line, msg)) => {
                warnings.push(Warning::new(path, line, msg));
                return;
            }
        };
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
        merge(&mut self.config, table);
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
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if let Some(found) = cwd
        .ancestors()
        .find(|a| a.join(".commandtree").is_dir() && Some(a.to_path_buf()) != home)
    {
        return found.to_path_buf();
    }
    if let Some(found) = cwd.ancestors().find(|a| a.join(".git").exists()) {
        return found.to_path_buf();
    }
    cwd
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
        let dir = tempdir("settings");
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
        let dir = tempdir("showall");
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
        let dir = tempdir("badsettings");
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

    pub(crate) fn tempdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ct-core-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
