//! Environment files (`.env`) a command runs with, named in the configuration:
//!
//! ```toml
//! [env]
//! files = [".env"]                         # every command
//! [env.folders]
//! "services/api" = ["services/api/.env"]   # commands running in that folder or below it
//! [env.commands]
//! dev = [".env.development"]               # a command by id, type:label or label
//! ```
//!
//! Files are read in that order (the whole workspace, then folders from the outermost in, then
//! the command's own), a later file's value winning; a variable already set in the environment
//! `ct` runs in is kept, as dotenv, npm and Compose do. The values go to the process (or the
//! private wrapper of a detached run) only: never into the command line the history records,
//! never into a log, and a dry run shows the names with the values masked.
//!
//! `[env]` in a workspace's own configuration needs `ct trust` (it is not in
//! `trust::WORKSPACE_SAFE`): a cloned repository must not choose the environment of every
//! command, `PATH` and `LD_PRELOAD` included. A file named there must lie inside the workspace
//! (its real path); the user's own configuration may name any file.

use commandtree_core::settings::Origin;
use commandtree_core::{CommandItem, Workspace};
use std::path::{Path, PathBuf};

/// The environment files that apply to one command, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvFiles {
    /// Every file that applies, in reading order, as written in the configuration (shown).
    pub files: Vec<EnvFile>,
    /// The variables to set, in order, each once (the last file's value).
    pub vars: Vec<(String, String)>,
    /// Names the files set that the environment already has: kept as they are.
    pub kept: Vec<String>,
    /// Names a shell cannot export (`a.b`): left out.
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvFile {
    /// As the configuration names it.
    pub name: String,
    pub path: PathBuf,
    /// Why it was not read (missing, outside the workspace, not a valid file); a run goes on
    /// without it.
    pub problem: Option<String>,
    /// The names it sets.
    pub names: Vec<String>,
}

impl EnvFiles {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// What a dry run prints: each file with the names it sets and the values masked.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.files {
            match &f.problem {
                Some(why) => out.push(format!("# environment file {}: {why}", f.name)),
                None => {
                    let names: Vec<String> = f
                        .names
                        .iter()
                        .map(|n| {
                            if self.kept.contains(n) {
                                format!("{n} (already set, kept)")
                            } else if self.skipped.contains(n) {
                                format!("{n} (not a variable name a shell can set, left out)")
                            } else {
                                format!("{n}=****")
                            }
                        })
                        .collect();
                    let list = if names.is_empty() {
                        "no variables".to_string()
                    } else {
                        names.join(" ")
                    };
                    out.push(format!("# environment from {}: {list}", f.name));
                }
            }
        }
        out
    }
}

/// The environment files `[env]` names for `item`, read. `present` says whether a variable is
/// already set where the command will run (normally: in this process's environment).
pub fn for_command(ws: &Workspace, item: &CommandItem, present: &dyn Fn(&str) -> bool) -> EnvFiles {
    let mut out = EnvFiles::default();
    for (name, from_user) in files_for(ws, item) {
        let file = read_one(&ws.root, &name, from_user);
        if let Ok(vars) = &file {
            for (k, v) in vars {
                if let Some(slot) = out.vars.iter_mut().find(|(n, _)| n == k) {
                    slot.1 = v.clone();
                } else {
                    out.vars.push((k.clone(), v.clone()));
                }
            }
        }
        let path = resolve(&ws.root, &name);
        out.files.push(match file {
            Ok(vars) => EnvFile {
                name,
                path,
                problem: None,
                names: vars.into_iter().map(|(k, _)| k).collect(),
            },
            Err(why) => EnvFile {
                name,
                path,
                problem: Some(why),
                names: Vec::new(),
            },
        });
    }
    out.vars.retain(|(k, _)| {
        if !is_shell_name(k) {
            out.skipped.push(k.clone());
            return false;
        }
        let here = present(k);
        if here && !out.kept.contains(k) {
            out.kept.push(k.clone());
        }
        !here
    });
    out
}

/// The file names that apply to `item`, in reading order, each with whether the user's own
/// configuration named it.
fn files_for(ws: &Workspace, item: &CommandItem) -> Vec<(String, bool)> {
    let settings = &ws.settings;
    let Some(env) = settings.config.get("env").and_then(|v| v.as_table()) else {
        return Vec::new();
    };
    let from_user = |dotted: &str| matches!(settings.origin(dotted), Some(Origin::User(_)));
    let list = |v: &toml::Value| -> Vec<String> {
        match v {
            toml::Value::String(s) => vec![s.clone()],
            toml::Value::Array(a) => a
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut add = |names: Vec<String>, user: bool| {
        for n in names {
            if !out.iter().any(|(x, _)| *x == n) {
                out.push((n, user));
            }
        }
    };
    if let Some(v) = env.get("files") {
        add(list(v), from_user("env.files"));
    }
    let cwd = if item.cwd.is_empty() {
        ws.root.clone()
    } else {
        item.cwd_path().to_path_buf()
    };
    if let Some(folders) = env.get("folders").and_then(|v| v.as_table()) {
        let mut matching: Vec<(&String, &toml::Value)> = folders
            .iter()
            .filter(|(k, _)| {
                let dir = ws.root.join(k.trim_matches('/'));
                cwd.starts_with(&dir)
            })
            .collect();
        // The outermost folder first, so the nearest one's values win.
        matching.sort_by_key(|(k, _)| Path::new(k.as_str()).components().count());
        for (k, v) in matching {
            add(list(v), from_user(&format!("env.folders.{k}")));
        }
    }
    if let Some(commands) = env.get("commands").and_then(|v| v.as_table()) {
        for (k, v) in commands {
            if names_command(item, k) {
                add(list(v), from_user(&format!("env.commands.{k}")));
            }
        }
    }
    out
}

fn is_shell_name(k: &str) -> bool {
    !k.is_empty()
        && !k.starts_with(|c: char| c.is_ascii_digit())
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a key of `[env.commands]` names `item`: its id, `type:label` or label (a label
/// names every command that has it).
fn names_command(item: &CommandItem, key: &str) -> bool {
    key == item.id || key == item.label || key == format!("{}:{}", item.kind, item.label)
}

fn resolve(root: &Path, name: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    }
}

/// Reads one environment file: its variables in order, or why not.
fn read_one(
    root: &Path,
    name: &str,
    from_user: bool,
) -> std::result::Result<Vec<(String, String)>, String> {
    let path = resolve(root, name);
    if !from_user {
        // A workspace's configuration reads only files of the workspace, links resolved.
        let real = match std::fs::canonicalize(&path) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err("not found (the run goes on without it)".into());
            }
            Err(e) => return Err(e.to_string()),
        };
        let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if !real.starts_with(&real_root) {
            return Err(
                "outside the workspace; a workspace's configuration reads only its own files (name it in your own config.toml instead)"
                    .into(),
            );
        }
    }
    let text = match commandtree_core::fs::read_file(&path) {
        Ok(t) => t,
        Err(commandtree_core::fs::ReadError::Io(k)) if k.contains("not found") => {
            return Err("not found (the run goes on without it)".into());
        }
        Err(e) => return Err(e.to_string()),
    };
    parse(&text)
}

/// The variables of a `.env` text, as dotenv reads them (quotes, `export`, comments, `${VAR}`
/// from earlier lines of the same file and from the environment).
pub fn parse(text: &str) -> std::result::Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for item in dotenvy::from_read_iter(text.as_bytes()) {
        match item {
            Ok((k, v)) => out.push((k, v)),
            Err(e) => return Err(format!("not read: {e}")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::scratch;
    use commandtree_core::Settings;

    fn ws(root: &Path, config: &str) -> Workspace {
        let settings = Settings {
            config: toml::from_str(config).unwrap(),
            ..Default::default()
        };
        Workspace {
            root: root.to_path_buf(),
            cwd: root.to_path_buf(),
            settings,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn files_apply_in_order_the_nearest_wins_and_the_environment_is_kept() {
        let (_scratch, dir) = scratch("order");
        let root = dir.as_path();
        std::fs::create_dir_all(root.join("api")).unwrap();
        std::fs::write(root.join(".env"), "A=root\nB=root\n# c\nexport C=\"q v\"\n").unwrap();
        std::fs::write(root.join("api/.env"), "B=api\nD=${B}-x\n").unwrap();
        std::fs::write(root.join(".env.dev"), "E=dev\n").unwrap();
        let w = ws(
            root,
            "[env]\nfiles = \".env\"\n[env.folders]\napi = [\"api/.env\"]\nother = [\"nope\"]\n[env.commands]\ndev = [\".env.dev\", \"missing.env\"]\n",
        );
        let mut item =
            CommandItem::new("npm", &root.join("api/package.json"), "dev", "npm run dev");
        item.cwd = root.join("api").to_string_lossy().into_owned();
        let got = for_command(&w, &item, &|k| k == "C");
        assert_eq!(
            got.vars,
            [
                ("A".to_string(), "root".to_string()),
                ("B".into(), "api".into()),
                ("D".into(), "api-x".into()),
                ("E".into(), "dev".into()),
            ]
        );
        assert_eq!(got.kept, ["C"]);
        let shown = got.describe().join("\n");
        assert!(
            shown.contains("# environment from .env: A=**** B=**** C (already set, kept)"),
            "{shown}"
        );
        assert!(shown.contains("missing.env: not found"), "{shown}");
        assert!(!shown.contains("root") && !shown.contains("q v"), "{shown}");
        // Another command gets only the workspace's file.
        let other = CommandItem::new("make", &root.join("Makefile"), "build", "make build");
        let got = for_command(&w, &other, &|_| false);
        assert_eq!(got.files.len(), 1);
        assert_eq!(got.vars.len(), 3);
    }

    #[test]
    fn a_workspace_configuration_reads_no_file_outside_the_workspace() {
        let (_outside, outside) = scratch("outside");
        std::fs::write(outside.join("secrets.env"), "TOKEN=x\n").unwrap();
        let (_inside, dir) = scratch("inside");
        let root = dir.as_path();
        std::os::unix::fs::symlink(outside.join("secrets.env"), root.join(".env")).unwrap();
        let far = outside.join("secrets.env");
        let w = ws(
            root,
            &format!("[env]\nfiles = [\".env\", {:?}]\n", far.to_string_lossy()),
        );
        let item = CommandItem::new("make", &root.join("Makefile"), "build", "make build");
        let got = for_command(&w, &item, &|_| false);
        assert!(got.vars.is_empty(), "{got:?}");
        assert!(
            got.files.iter().all(|f| f
                .problem
                .as_deref()
                .is_some_and(|p| p.contains("outside the workspace"))),
            "{got:?}"
        );
    }

    #[test]
    fn a_bad_line_is_reported_not_guessed() {
        assert!(parse("A=1\nthis is not\n").is_err());
        assert_eq!(
            parse("A='x y' # c\n").unwrap(),
            [("A".into(), "x y".into())]
        );
    }
}
