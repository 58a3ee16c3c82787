//! Not yet implemented.
use super::{Parsed, SourceFile};

pub fn parse_config(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
pub fn parse_file_task(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
