//! Not yet implemented.
use super::{Parsed, SourceFile};

pub fn parse_compose(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
pub fn parse_dockerfile(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
