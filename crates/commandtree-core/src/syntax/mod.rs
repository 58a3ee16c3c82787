//! Structured files read once, keeping positions: each format's parser builds a tree whose keys
//! and values know their lines, and the sources take keys, values and lines from that one tree.
//! No source looks for a key's line in the text itself: a scanner beside a parser disagrees
//! with it on quoting, flow style, comments and multi-line strings (`tests/no_key_scanners.rs`
//! keeps them out).
//!
//! * [`ini`]: INI as Python's `configparser` reads it (`tox.ini`), sections and keys with
//!   their lines.
//! * [`json`]: JSON and JSONC through jsonc-parser's AST (ranges on every node).
//! * [`toml`]: TOML through the `toml` crate's spanned tree (`DeTable`).
//! * [`yaml`]: YAML through saphyr-parser's events (marks on every event), built into
//!   serde_yaml_ng's value plus the lines of its nodes and keys.
//!
//! Errors are `(line, message)`, the message starting `invalid JSON`/`invalid TOML`/
//! `invalid YAML`, ready for a warning.

pub(crate) mod ini;
pub(crate) mod json;
pub(crate) mod toml;
pub(crate) mod yaml;

/// A parse error: the line when the parser knows it, and a message for a warning.
pub(crate) type Error = (Option<usize>, String);
