use std::fmt;

/// Why a skill, a playbook step or a command skill did not produce its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The invocation is wrong (unknown skill or flag, a missing or malformed value). The text
    /// names the flag.
    Invalid(String),
    /// The user (Ctrl-C, a front end's stop) cancelled.
    Cancelled,
    /// The user answered no to a confirmation.
    Declined(String),
    /// Anything else: the LLM request failed, a file could not be written...
    Failed(String),
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
            Error::Invalid(m) | Error::Failed(m) => f.write_str(m),
            Error::Declined(m) => write!(f, "not done: {m}"),
            Error::Cancelled => f.write_str("cancelled"),
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
