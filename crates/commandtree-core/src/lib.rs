//! CommandTree's engine core: the command model, settings, discovery (walker + one module per
//! source) and the command tree. No I/O beyond reading the workspace; nothing heavy.

pub mod cancel;
pub mod classify;
pub mod collate;
pub mod discover;
pub mod excerpt;
pub mod fs;
pub mod incremental;
pub mod kind;
pub mod model;
pub mod parallel;
pub mod settings;
pub mod sources;
pub(crate) mod syntax;
pub mod text;
pub mod tree;
pub mod trust;
pub mod workspace;

pub use cancel::{CancelToken, NoProgress, Progress, ProgressEvent};
pub use discover::{Cancelled, Discovery, FileHook, Options};
pub use incremental::{Delta, Index};
pub use kind::CommandType;
pub use model::{
    CommandItem, Definition, ParamDef, ParamFormat, ShellCode, SourcedFile, StepHow, StepRef,
    StepScope, Warning,
};
pub use settings::{Settings, SortOrder};
pub use workspace::Workspace;
