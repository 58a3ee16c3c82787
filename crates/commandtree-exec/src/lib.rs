//! CommandTree's run layer: from a discovered command and the user's parameter values to a
//! running process.
//!
//! * [`params`]: parameter values (`--param`, prompts, defaults) and their formats.
//! * [`line`]: the command line of each command type, with values quoted for its shell
//!   ([`quote`]) and `-- extra args` placed the way the tool expects.
//! * [`vscode`] and [`launch`]: `tasks.json` tasks and `launch.json` configurations resolved
//!   outside VS Code (variables, inputs, `dependsOn`, debuggers), as a [`script::Step`] tree.
//! * [`plan`]: one entry point turning any command into a [`plan::Runnable`] (a POSIX shell
//!   script, its folder and environment).
//! * [`process`]: foreground runs with signal forwarding, detached runs with a log, tmux and
//!   terminal-emulator windows. [`history`]: the `run_history` table.

pub mod history;
pub mod launch;
pub mod line;
pub mod params;
pub mod plan;
pub mod process;
pub mod quote;
pub mod script;
pub mod shellinit;
pub mod vars;
pub mod vscode;

// The workspace's one rule for a test that needs a tool: skipped with a note outside CI, a
// failure under it.
#[cfg(test)]
#[path = "../../ct/tests/it/support/skip.rs"]
mod skip;

/// Why a run did not happen. Each variant's text is one line for the user.
#[derive(Debug)]
pub enum Error {
    /// The request itself is wrong (unknown parameter, malformed `--param`): exit code 2.
    Usage(String),
    /// The command cannot be run as asked (missing program, bad file, required value): exit 1.
    Failed(String),
    /// The user cancelled a prompt.
    Cancelled,
}

impl Error {
    pub fn failed(msg: impl Into<String>) -> Self {
        Error::Failed(msg.into())
    }
    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Usage(msg.into())
    }
    /// The process exit code that goes with this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Failed(_) => 1,
            Error::Cancelled => 130,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage(m) | Error::Failed(m) => f.write_str(m),
            Error::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;
