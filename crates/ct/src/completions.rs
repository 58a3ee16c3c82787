//! `ct completions bash|zsh|fish`: the registration script of clap_complete's dynamic
//! completion. The script calls `ct` back for each completion, so options stay in step with the
//! binary and command names come from the workspace the user is in.

use anyhow::Result;
use clap::Args;
use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use clap_complete::env::Shells;
use commandtree_engine::{Engine, LoadOptions};
use std::collections::HashMap;

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_parser = ["bash", "zsh", "fish"])]
    shell: String,
}

pub fn print(args: CompletionsArgs) -> Result<()> {
    let shells = Shells::builtins();
    let shell = shells
        .completer(&args.shell)
        .ok_or_else(|| anyhow::anyhow!("no completion for shell `{}`", args.shell))?;
    let mut out = std::io::stdout().lock();
    // `ct` from PATH: the script keeps working after the binary is rebuilt or moved.
    shell.write_registration("COMPLETE", "ct", "ct", "ct", &mut out)?;
    Ok(())
}

/// Candidates for a `<command>` argument: each label of the workspace around the current
/// folder, or `type:label` where a label is shared by several commands.
pub fn command_names() -> ArgValueCandidates {
    ArgValueCandidates::new(|| {
        let Ok(cwd) = std::env::current_dir() else {
            return Vec::new();
        };
        let Ok(engine) = Engine::open(None, &cwd) else {
            return Vec::new();
        };
        let Ok(loaded) = engine.load(&LoadOptions::default()) else {
            return Vec::new();
        };
        let mut uses: HashMap<&str, usize> = HashMap::new();
        for c in &loaded.commands {
            *uses.entry(c.label.as_str()).or_default() += 1;
        }
        let mut seen = std::collections::HashSet::new();
        loaded
            .commands
            .iter()
            .filter_map(|c| {
                let name = if uses[c.label.as_str()] == 1 {
                    c.label.clone()
                } else {
                    format!("{}:{}", c.kind, c.label)
                };
                seen.insert(name.clone()).then(|| {
                    CompletionCandidate::new(name)
                        .help(Some(format!("{} · {}", c.kind, c.category).into()))
                })
            })
            .collect()
    })
}
