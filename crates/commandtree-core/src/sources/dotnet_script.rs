//! Not yet implemented.
use super::{Parsed, SourceFile};

pub fn parse_csx(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
pub fn parse_fsx(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
