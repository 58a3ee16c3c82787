use std::fmt;
use std::path::PathBuf;

/// Why an LLM skill, a playbook step or a command skill did not produce its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The invocation is wrong (unknown skill or flag, a missing or malformed value). The text
    /// names the flag.
    Invalid(String),
    /// The user (Ctrl-C, a front end's stop) cancelled.
    Cancelled,
    /// The user answered no to a confirmation.
    Declined(String),
    /// The workspace's own playbooks and command skills run only where the user trusts the
    /// workspace as it is now; the text says what changed and what to do.
    Untrusted(String),
    /// No model can answer, and nothing was sent.
    NoModel(NoModel),
    /// The file a command skill's proposal was made from changed since; nothing was written.
    Changed(PathBuf),
    /// Anything else: the LLM request failed, a file could not be written...
    Failed(String),
}

/// Why no model answers. Front ends add what their user can do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoModel {
    /// `provider = none`, set in this file or variable: AI features are switched off.
    SwitchedOff(String),
    /// Nothing names or offers a provider; the text says how to configure one.
    NotConfigured(String),
}

impl fmt::Display for NoModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoModel::SwitchedOff(by) => write!(
                f,
                "AI features are switched off (provider = none, set in {by})"
            ),
            NoModel::NotConfigured(how) => f.write_str(how),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn invalid(m: impl Into<String>) -> Error {
        Error::Invalid(m.into())
    }
    pub fn failed(m: impl Into<String>) -> Error {
        Error::Failed(m.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(m) | Error::Failed(m) | Error::Untrusted(m) => f.write_str(m),
            Error::Declined(m) => write!(f, "not done: {m}"),
            Error::Cancelled => f.write_str("cancelled"),
            Error::NoModel(why) => why.fmt(f),
            Error::Changed(path) => write!(
                f,
                "{} changed while the model was answering; nothing was written",
                path.display()
            ),
        }
    }
}

impl std::error::Error for Error {}

impl From<commandtree_llm::LlmError> for Error {
    fn from(e: commandtree_llm::LlmError) -> Error {
        if e.kind == commandtree_llm::ErrorKind::Cancelled {
            Error::Cancelled
        } else {
            Error::Failed(e.to_string())
        }
    }
}

impl From<commandtree_engine::Error> for Error {
    fn from(e: commandtree_engine::Error) -> Error {
        match e {
            commandtree_engine::Error::Cancelled => Error::Cancelled,
            commandtree_engine::Error::Usage(m) => Error::Invalid(m),
            other => Error::Failed(other.to_string()),
        }
    }
}
