//! Not yet implemented.
use super::{Parsed, SourceFile};

pub fn parse_ps1(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
pub fn parse_batch(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
