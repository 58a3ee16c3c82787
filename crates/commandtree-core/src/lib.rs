//! CommandTree's engine core: the command model, settings, discovery (walker + one module per
//! source) and the command tree. No I/O beyond reading the workspace; nothing heavy.

pub mod fs;
pub mod model;
pub mod sources;
pub mod text;

pub use model::{CommandItem, ParamDef, ParamFormat, Warning};
