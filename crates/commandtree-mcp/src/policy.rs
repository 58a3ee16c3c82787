//! What an agent may run at all: `[mcp] allow = [..]` and `deny = [..]` globs over command ids,
//! labels and `type:label`, read from the user's own config file only. A workspace's
//! `.commandtree/config.toml` comes with the code an agent works on, so it must not be able to
//! widen what that agent may run.

use commandtree_core::{CommandItem, Warning, settings, text};
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::path::Path;

#[derive(Debug, Default)]
pub struct Policy {
    allow: Option<GlobSet>,
    deny: Option<GlobSet>,
}

impl Policy {
    /// The policy of the user config (`$XDG_CONFIG_HOME/commandtree/config.toml`, else
    /// `~/.config/commandtree/config.toml`); none when there is no such file.
    pub fn from_user_config() -> (Policy, Vec<Warning>) {
        match settings::user_config_dir() {
            Some(dir) => Policy::from_file(&dir.join("config.toml")),
            None => (Policy::default(), Vec::new()),
        }
    }

    pub fn from_file(path: &Path) -> (Policy, Vec<Warning>) {
        let Ok(content) = commandtree_core::fs::read_file(path) else {
            return (Policy::default(), Vec::new());
        };
        match text::parse_toml(&content) {
            Ok(t) => Policy::from_table(path, t.get("mcp").and_then(|m| m.as_table())),
            // Unreadable rules must not mean "no rules": deny everything until it is fixed.
            Err((line, msg)) => (
                Policy {
                    allow: Some(GlobSet::empty()),
                    deny: None,
                },
                vec![Warning::new(
                    path,
                    line,
                    format!("{msg}; [mcp] rules unreadable, so no command may run"),
                )],
            ),
        }
    }

    fn from_table(path: &Path, t: Option<&toml::Table>) -> (Policy, Vec<Warning>) {
        let mut warnings = Vec::new();
        let mut set = |key: &str| -> Option<GlobSet> {
            let v = t?.get(key)?;
            let Some(list) = v.as_array() else {
                warnings.push(Warning::new(
                    path,
                    None,
                    format!("`mcp.{key}` must be an array of glob strings"),
                ));
                // A malformed allow list allows nothing; a malformed deny list denies all.
                return Some(if key == "allow" {
                    GlobSet::empty()
                } else {
                    match_all()
                });
            };
            let mut b = GlobSetBuilder::new();
            for item in list {
                match item.as_str().map(Glob::new) {
                    Some(Ok(g)) => {
                        b.add(g);
                    }
                    _ => {
                        warnings.push(Warning::new(
                            path,
                            None,
                            format!("`mcp.{key}`: {item} is not a valid glob; ignored"),
                        ));
                        if key == "deny" {
                            return Some(match_all());
                        }
                    }
                }
            }
            Some(b.build().unwrap_or_else(|_| GlobSet::empty()))
        };
        let allow = set("allow");
        let deny = set("deny");
        (Policy { allow, deny }, warnings)
    }

    /// `None` when `c` may run; otherwise why not.
    pub fn refusal(&self, c: &CommandItem) -> Option<String> {
        let names = [
            c.id.clone(),
            c.label.clone(),
            format!("{}:{}", c.kind, c.label),
        ];
        let hit = |set: &GlobSet| names.iter().any(|n| set.is_match(n));
        if self.deny.as_ref().is_some_and(hit) {
            return Some(format!(
                "`{}` matches `[mcp] deny` in the user config; it may not be run from an agent",
                c.label
            ));
        }
        if let Some(allow) = &self.allow
            && !hit(allow)
        {
            return Some(format!(
                "`{}` matches no `[mcp] allow` glob in the user config; it may not be run from an agent",
                c.label
            ));
        }
        None
    }
}

fn match_all() -> GlobSet {
    let mut b = GlobSetBuilder::new();
    b.add(Glob::new("*").expect("a valid glob"));
    b.build().expect("a valid set")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(toml: &str) -> (Policy, Vec<Warning>) {
        let dir = std::env::temp_dir().join(format!("ct-mcp-policy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join(format!("{}.toml", toml.len()));
        std::fs::write(&f, toml).unwrap();
        Policy::from_file(&f)
    }

    fn cmd(kind: &str, label: &str) -> CommandItem {
        CommandItem::new(kind, Path::new("/w/x"), label, "x").label(label)
    }

    #[test]
    fn no_rules_allow_everything() {
        let (p, w) = Policy::from_file(Path::new("/nonexistent/config.toml"));
        assert!(w.is_empty());
        assert!(p.refusal(&cmd("npm", "build")).is_none());
        let (p, _) = policy("[other]\nx = 1\n");
        assert!(p.refusal(&cmd("npm", "build")).is_none());
    }

    #[test]
    fn deny_wins_over_allow_and_matches_ids_labels_and_type_label() {
        let (p, w) = policy("[mcp]\nallow = [\"npm:*\", \"test*\"]\ndeny = [\"*deploy*\"]\n");
        assert!(w.is_empty(), "{w:?}");
        assert!(p.refusal(&cmd("npm", "build")).is_none());
        assert!(p.refusal(&cmd("make", "test-unit")).is_none());
        assert!(p.refusal(&cmd("make", "build")).unwrap().contains("allow"));
        assert!(p.refusal(&cmd("npm", "deploy")).unwrap().contains("deny"));
        // Ids hold the absolute path: `*` crosses `/`.
        let (p, _) = policy("[mcp]\ndeny = [\"shell:/w/*\"]\n");
        assert!(p.refusal(&cmd("shell", "x")).is_some());
    }

    #[test]
    fn broken_rules_fail_closed() {
        let (p, w) = policy("[mcp]\ndeny = \"deploy\"\n");
        assert_eq!(w.len(), 1);
        assert!(p.refusal(&cmd("npm", "build")).is_some());
        let (p, w) = policy("[mcp]\ndeny = [\"a[\"]\n");
        assert_eq!(w.len(), 1);
        assert!(p.refusal(&cmd("npm", "build")).is_some());
        let (p, w) = policy("[mcp\nallow = [");
        assert_eq!(w.len(), 1);
        assert!(p.refusal(&cmd("npm", "build")).is_some());
    }
}
