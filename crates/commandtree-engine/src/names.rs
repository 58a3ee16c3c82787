//! The names a user can type for a command, one rule for every front end: what shell
//! completion (and any picker) offers is exactly what [`crate::resolve`] accepts for that
//! command.

use commandtree_core::CommandItem;
use std::collections::HashMap;

/// The shortest name [`crate::resolve`] takes for each command of `commands`, in order: its
/// label when no other command has it, else `type:label` when no other command of its type
/// has it, else its id (always unique).
pub fn names(commands: &[CommandItem]) -> Vec<(&CommandItem, String)> {
    let mut labels: HashMap<&str, usize> = HashMap::new();
    let mut typed: HashMap<(&str, &str), usize> = HashMap::new();
    for c in commands {
        *labels.entry(c.label.as_str()).or_default() += 1;
        *typed
            .entry((c.kind.as_str(), c.label.as_str()))
            .or_default() += 1;
    }
    // A label or `type:label` that is some command's id resolves to that command first.
    let ids: std::collections::HashSet<&str> = commands.iter().map(|c| c.id.as_str()).collect();
    commands
        .iter()
        .map(|c| {
            let label = c.label.as_str();
            let type_label = format!("{}:{}", c.kind, c.label);
            let name = if labels[label] == 1 && (!ids.contains(label) || c.id == label) {
                c.label.clone()
            } else if typed[&(c.kind.as_str(), label)] == 1
                && (!ids.contains(type_label.as_str()) || c.id == type_label)
            {
                type_label
            } else {
                c.id.clone()
            };
            (c, name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn item(kind: &str, file: &str, label: &str) -> CommandItem {
        CommandItem::new(kind, Path::new(file), label, label)
    }

    #[test]
    fn every_name_offered_resolves_to_its_command() {
        let cmds = vec![
            item("npm", "/w/package.json", "build"),
            item("npm", "/w/web/package.json", "build"),
            item("make", "/w/Makefile", "build"),
            item("make", "/w/Makefile", "test"),
            item("npm", "/w/package.json", "lint"),
            item("just", "/w/justfile", "lint"),
            item("shell", "/w/deploy.sh", "deploy.sh"),
        ];
        let named = names(&cmds);
        assert_eq!(named.len(), cmds.len());
        for (c, name) in &named {
            let got = crate::resolve(Path::new("/w"), &cmds, name)
                .unwrap_or_else(|e| panic!("`{name}` offered for {} but: {e}", c.id));
            assert_eq!(got.id, c.id, "`{name}`");
        }
        let of = |id: &str| named.iter().find(|(c, _)| c.id == id).unwrap().1.clone();
        assert_eq!(of(&cmds[3].id), "test");
        assert_eq!(of(&cmds[2].id), "make:build");
        assert_eq!(of(&cmds[4].id), "npm:lint");
        // Two npm `build`s: only the id names each.
        assert_eq!(of(&cmds[0].id), cmds[0].id);
        assert_eq!(of(&cmds[1].id), cmds[1].id);
    }
}
