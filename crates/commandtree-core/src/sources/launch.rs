//! Not yet implemented.
use super::{Parsed, SourceFile};

pub fn parse(_f: &SourceFile<'_>) -> Parsed {
    Parsed::default()
}
