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

impl Policy {
    /// `None` when no step `command` pulls in (its closure: `steps` found, `unresolved` names
    /// of steps found nowhere) matches a `[mcp] deny` glob; otherwise why it may not run. The
    /// allow list is for what the agent asks to run; the steps are the command's own business.
    pub fn step_refusal(
        &self,
        command: &CommandItem,
        steps: &[&CommandItem],
        unresolved: &[String],
    ) -> Option<String> {
        let deny = self.deny.as_ref()?;
        let refused = |step: &str| {
            Some(format!(
                "`{}` runs `{step}`, which matches `[mcp] deny` in the user config; it may not be run from an agent",
                command.label
            ))
        };
        for s in steps {
            let names = [
                s.id.clone(),
                s.label.clone(),
                format!("{}:{}", s.kind, s.label),
            ];
            if names.iter().any(|n| deny.is_match(n)) {
                return refused(&s.label);
            }
        }
        for name in unresolved {
            let names = [name.clone(), format!("{}:{name}", command.kind)];
            if names.iter().any(|n| deny.is_match(n)) {
                return refused(name);
            }
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

    /// The policy of a configuration file holding `toml`, written to a scratch folder that is
    /// removed once it is read.
    fn policy(toml: &str) -> (Policy, Vec<Warning>) {
        let dir = tempfile::Builder::new()
            .prefix("ct-mcp-policy-")
            .tempdir()
            .unwrap();
        let f = dir.path().join(format!("{}.toml", toml.len()));
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
    fn deny_covers_every_step_and_allow_only_the_command() {
        let (p, _) = policy("[mcp]\nallow = [\"make:build\"]\ndeny = [\"*clean*\"]\n");
        let build = cmd("make", "build");
        let clean = cmd("make", "clean");
        let lint = cmd("make", "lint");
        assert!(p.refusal(&build).is_none());
        assert!(p.step_refusal(&build, &[&lint], &[]).is_none());
        let why = p.step_refusal(&build, &[&lint, &clean], &[]).unwrap();
        assert!(
            why.contains("runs `clean`") && why.contains("[mcp] deny"),
            "{why}"
        );
        // A step found nowhere is matched by its name.
        assert!(p.step_refusal(&build, &[], &["clean".into()]).is_some());
        let (none, _) = policy("[mcp]\nallow = [\"make:build\"]\n");
        assert!(none.step_refusal(&build, &[&clean], &[]).is_none());
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
