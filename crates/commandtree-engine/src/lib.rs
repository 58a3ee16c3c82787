//! CommandTree's engine: the one facade every front end calls. It opens a workspace, loads its
//! commands (discovery plus what the database adds), resolves what a user typed, and owns tags,
//! runs, summaries, embeddings, search and watching. It returns data and typed events and never
//! prints: formatting belongs to the front ends.

pub use commandtree_core::{CancelToken, NoProgress, Progress, ProgressEvent};

pub mod watch;

pub use watch::{WatchError, WatchEvent, WatchOptions, Watcher};
