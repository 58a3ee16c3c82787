//! Sequences: commands a user strings together in the workspace's `.commandtree/config.toml`,
//! listed as one command of type `sequence`.
//!
//! ```toml
//! [sequences.ci]
//! steps = ["lint", "test", "npm:build"]   # names as `ct run` takes them
//! description = "what CI runs"
//! parallel = false                        # default: one after another, stopping at a failure
//! ```
//!
//! Each step is recorded as a [`StepRef`] looked up by name from the workspace root
//! ([`StepScope::Named`]), so the engine's closure gates a sequence with the warnings of every
//! command it runs, and `ct deps` shows them. Running one is the engine's (`runs`), which plans
//! each member as `ct run` would and joins them into one script.

use super::{Parsed, SourceFile};
use crate::model::{CommandItem, StepHow, StepRef, StepScope};
use crate::syntax::toml as toml_syntax;
use crate::text::truncate;
use toml::Value;

pub const KIND: &str = "sequence";

/// At most this many steps in one sequence.
pub const MAX_STEPS: usize = 64;

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let mut out = Parsed::default();
    let (doc, root) = match toml_syntax::parse_table(file.content) {
        Ok(parsed) => parsed,
        // The settings loader reports a configuration that does not parse; once is enough.
        Err(_) => return out,
    };
    let Some(section) = root.get("sequences") else {
        return out;
    };
    let Some(sequences) = section.as_table() else {
        out.warn(
            file.path,
            doc.key_line(&[], "sequences"),
            "`sequences` must be a table of sequences: [sequences.NAME] with `steps = [...]`",
        );
        return out;
    };
    for (name, def) in sequences {
        let line = doc.key_line(&["sequences"], name);
        let mut warn = |msg: String| {
            out.warnings
                .push(crate::model::Warning::new(file.path, line, msg))
        };
        let Some(def) = def.as_table() else {
            warn(format!(
                "sequence `{name}`: expected a table with `steps = [...]`"
            ));
            continue;
        };
        let steps: Vec<String> = match def.get("steps") {
            Some(Value::Array(a)) => {
                let names: Vec<String> = a
                    .iter()
                    .filter_map(|v| v.as_str().map(str::trim).map(str::to_string))
                    .filter(|s| !s.is_empty())
                    .collect();
                if names.len() != a.len() {
                    warn(format!(
                        "sequence `{name}`: every step must be a command's name (a non-empty string)"
                    ));
                    continue;
                }
                names
            }
            _ => {
                warn(format!(
                    "sequence `{name}`: `steps` must list the commands to run, e.g. steps = [\"lint\", \"test\"]"
                ));
                continue;
            }
        };
        if steps.is_empty() || steps.len() > MAX_STEPS {
            warn(format!(
                "sequence `{name}`: it needs 1 to {MAX_STEPS} steps, not {}",
                steps.len()
            ));
            continue;
        }
        let parallel = match def.get("parallel") {
            None => false,
            Some(Value::Boolean(b)) => *b,
            Some(_) => {
                warn(format!(
                    "sequence `{name}`: `parallel` must be true or false"
                ));
                continue;
            }
        };
        for key in def.keys() {
            if !["steps", "parallel", "description"].contains(&key.as_str()) {
                warn(format!(
                    "sequence `{name}`: unknown key `{key}` (known: steps, parallel, description)"
                ));
            }
        }
        let command = shown(&steps, parallel);
        let description = def
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| truncate(&command, 80));
        let mut item = CommandItem::new(KIND, file.path, name, command).description(description);
        // A sequence runs from the workspace root, whatever folder holds the configuration.
        item.cwd = file.root.to_string_lossy().into_owned();
        item.os_cwd = None;
        if let Some(l) = line {
            item = item.line(l);
        }
        item.steps = steps
            .iter()
            .map(|s| {
                StepRef::new(s.clone(), StepHow::Call, true).scope(StepScope::Named {
                    at: file.root.to_path_buf(),
                })
            })
            .collect();
        item.parallel = parallel;
        out.commands.push(item);
    }
    out
}

/// The command line shown for a sequence: what it runs, in order.
fn shown(steps: &[String], parallel: bool) -> String {
    if parallel {
        format!("at once: {}", steps.join(", "))
    } else {
        steps.join(", then ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    #[test]
    fn sequences_with_steps_order_and_mode() {
        let p = parse_with(
            parse,
            "/w/.commandtree/config.toml",
            "[discovery]\nshow = \"own\"\n\n[sequences.ci]\nsteps = [\"lint\", \"test\", \"npm:build\"]\ndescription = \"what CI runs\"\n\n[sequences.dev]\nsteps = [\"api\", \"web\"]\nparallel = true\n",
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["ci", "dev"]);
        let ci = &p.commands[0];
        assert_eq!(ci.id, "sequence:/w/.commandtree/config.toml:ci");
        assert_eq!(ci.command, "lint, then test, then npm:build");
        assert_eq!(ci.description.as_deref(), Some("what CI runs"));
        assert_eq!(ci.cwd, "/w");
        assert_eq!(ci.line, Some(4));
        assert_eq!(
            ci.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["lint", "test", "npm:build"]
        );
        assert!(!ci.parallel);
        let dev = &p.commands[1];
        assert!(dev.parallel);
        assert_eq!(dev.command, "at once: api, web");
    }

    #[test]
    fn bad_sequences_warn_with_their_line_and_are_left_out() {
        let p = parse_with(
            parse,
            "/w/.commandtree/config.toml",
            "[sequences.a]\nsteps = []\n[sequences.b]\nsteps = \"lint\"\n[sequences.c]\nsteps = [\"x\", 3]\n[sequences.d]\nsteps = [\"x\"]\nparallel = \"yes\"\n[sequences.e]\nsteps = [\"x\"]\nstep = 1\n",
        );
        assert_eq!(labels(&p), ["e"]);
        assert_eq!(p.warnings.len(), 5, "{:?}", p.warnings);
        assert!(
            p.warnings.iter().all(|w| w.line.is_some()),
            "{:?}",
            p.warnings
        );
    }
}
