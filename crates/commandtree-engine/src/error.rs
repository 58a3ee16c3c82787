//! Why an engine operation did not happen, as data a front end can format: an ambiguous name
//! carries its candidates, a missing one its near matches.

use commandtree_core::CommandItem;
use std::path::PathBuf;

#[derive(Debug)]
pub enum Error {
    /// The request itself is wrong (unknown parameter, malformed value): exit code 2.
    Usage(String),
    /// The operation cannot be done as asked: exit code 1.
    Failed(String),
    /// No command matches what the user typed.
    NotFound {
        query: String,
        root: PathBuf,
        /// Near matches for "did you mean", own commands first.
        suggestions: Vec<CommandItem>,
        /// The name that runs each suggestion, in the same order.
        typed: Vec<String>,
    },
    /// Several commands match: the best few (`names::SHOWN_CANDIDATES`), each with the name that
    /// runs it (`typed`, in the same order), and how many more there are; `only_auxiliary` when
    /// every match is test data, a template, vendored code or an example (named by path only).
    Ambiguous {
        query: String,
        candidates: Vec<CommandItem>,
        typed: Vec<String>,
        more: usize,
        only_auxiliary: bool,
    },
    /// A write needs the workspace database and it cannot be opened (the reason was reported as
    /// a load warning).
    NoDatabase(PathBuf),
    /// No LLM answers: AI features are switched off (`provider = none`, set in `disabled_by`),
    /// or no provider is configured (`None`: the message says how to configure one).
    NoProvider { disabled_by: Option<String> },
    /// The user (or a front end's stop) cancelled.
    Cancelled,
}

impl Error {
    pub fn failed(msg: impl Into<String>) -> Self {
        Error::Failed(msg.into())
    }

    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Usage(msg.into())
    }

    /// The error in one line, for a status bar (the full text of [`Error::NoProvider`] is a
    /// paragraph on how to configure a provider).
    pub fn one_line(&self) -> String {
        match self {
            Error::NoProvider { disabled_by: None } => "no LLM provider found: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or [llm] in .commandtree/config.toml (ct doctor explains)".into(),
            e => e.to_string(),
        }
    }

    /// The process exit code a command-line front end uses for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            // An ambiguous name is the caller's to make precise (PRODUCT.md: exit 2).
            Error::Usage(_) | Error::Ambiguous { .. } => 2,
            Error::Cancelled => 130,
            _ => 1,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage(m) | Error::Failed(m) => f.write_str(m),
            Error::NotFound { query, root, .. } => {
                write!(f, "no command matches `{query}` under {}", root.display())
            }
            Error::Ambiguous {
                query,
                candidates,
                more,
                only_auxiliary: true,
                ..
            } => write!(
                f,
                "`{query}` names only test data, templates, vendored code or examples here ({} command{}); name one by path",
                candidates.len() + more,
                if candidates.len() + more == 1 {
                    ""
                } else {
                    "s"
                }
            ),
            Error::Ambiguous {
                query,
                candidates,
                more,
                ..
            } => write!(
                f,
                "`{query}` matches {} commands; name one as shown",
                candidates.len() + more
            ),
            Error::NoDatabase(p) => {
                write!(f, "{}: cannot open the workspace database", p.display())
            }
            Error::NoProvider {
                disabled_by: Some(by),
            } => write!(
                f,
                "AI features are switched off (provider = none, set in {by})"
            ),
            Error::NoProvider { disabled_by: None } => {
                f.write_str(commandtree_llm::provider::HOW_TO_CONFIGURE)
            }
            Error::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl std::error::Error for Error {}

impl From<commandtree_exec::Error> for Error {
    fn from(e: commandtree_exec::Error) -> Self {
        match e {
            commandtree_exec::Error::Usage(m) => Error::Usage(m),
            commandtree_exec::Error::Failed(m) => Error::Failed(m),
            commandtree_exec::Error::Cancelled => Error::Cancelled,
        }
    }
}

impl From<commandtree_store::Error> for Error {
    fn from(e: commandtree_store::Error) -> Self {
        Error::Failed(e.to_string())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
