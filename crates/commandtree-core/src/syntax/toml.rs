//! TOML, read once by the `toml` crate into its spanned tree (`DeTable`: every key and value
//! with its byte range). Code that wants a plain `toml::Table` gets one built from that tree,
//! not from a second parse.

use super::Error;
use crate::text::LineIndex;
use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A TOML document: its spanned tree and a line index over the text.
pub(crate) struct Doc<'i> {
    root: Spanned<DeTable<'i>>,
    lines: LineIndex,
}

pub(crate) fn parse(content: &str) -> Result<Doc<'_>, Error> {
    let lines = LineIndex::new(content);
    let root = DeTable::parse(content).map_err(|e| error(&lines, &e))?;
    Ok(Doc { root, lines })
}

/// The document and its `toml::Table`, for sources that read values from the table and lines
/// from the document.
pub(crate) fn parse_table(content: &str) -> Result<(Doc<'_>, toml::Table), Error> {
    let doc = parse(content)?;
    let table = doc.table()?;
    Ok((doc, table))
}

fn error(lines: &LineIndex, e: &toml::de::Error) -> Error {
    let line = e.span().map(|s| lines.line(s.start));
    (line, format!("invalid TOML: {}", e.message()))
}

impl<'i> Doc<'i> {
    pub(crate) fn root(&self) -> &DeTable<'i> {
        self.root.get_ref()
    }

    /// The document as a `toml::Table` (keys sorted, no positions). Fails where `toml` refuses a
    /// value it parsed (an integer out of range).
    pub(crate) fn table(&self) -> Result<toml::Table, Error> {
        let copy = Spanned::new(self.root.span(), self.root.get_ref().clone());
        toml::Table::deserialize(toml::de::Deserializer::from(copy))
            .map_err(|e| error(&self.lines, &e))
    }

    /// 1-based line of byte offset `pos`.
    pub(crate) fn line(&self, pos: usize) -> usize {
        self.lines.line(pos)
    }

    /// The line of `key` in the table at `table` (a path of keys through tables; an array of
    /// tables is not walked into). A table is where its own header is (`[a]`), else where a
    /// header or dotted key below it first made it (`[a.b]`, `a.b = 1`).
    pub(crate) fn key_line(&self, table: &[&str], key: &str) -> Option<usize> {
        let mut current = self.root();
        for name in table {
            match current.get(*name)?.get_ref() {
                DeValue::Table(t) => current = t,
                _ => return None,
            }
        }
        let (key, _) = current.get_key_value(key)?;
        Some(self.line(key.span().start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_where_they_first_appear() {
        let text = "[a]\nx = \"\"\"\n[b]\ny = 1\n\"\"\"\nlist = [\n  [1],\n]\n[b]\n\"q.k\" = 2\nc.d = 3\n[b.e]\n";
        let doc = parse(text).unwrap();
        assert_eq!(doc.key_line(&["b"], "y"), None);
        assert_eq!(doc.key_line(&["b"], "q.k"), Some(10));
        assert_eq!(doc.key_line(&["b", "c"], "d"), Some(11));
        assert_eq!(doc.key_line(&["b"], "e"), Some(12));
        assert_eq!(doc.key_line(&["a"], "list"), Some(6));
        assert_eq!(doc.key_line(&[], "b"), Some(9));

        let doc = parse("[tool.poe.tasks]\nx = 1\n[tool]\nname = 2\n").unwrap();
        assert_eq!(doc.key_line(&[], "tool"), Some(3));
        assert_eq!(doc.key_line(&["tool", "poe"], "tasks"), Some(1));
        let doc = parse("[workspace.package]\nversion = \"1\"\n").unwrap();
        assert_eq!(doc.key_line(&[], "workspace"), Some(1));
    }

    #[test]
    fn the_table_is_what_toml_parses() {
        let text = "[package]\nname = \"a\"\nversion = 1\n[[bin]]\nname = \"b\"\n";
        assert_eq!(
            parse(text).unwrap().table().unwrap(),
            text.parse::<toml::Table>().unwrap()
        );
        let (line, msg) = parse("a = 1\nb = 99999999999999999999\n")
            .unwrap()
            .table()
            .unwrap_err();
        assert_eq!(line, Some(2));
        assert!(msg.starts_with("invalid TOML"), "{msg}");
        let (line, _) = parse("a = 1\n[b\n").err().unwrap();
        assert_eq!(line, Some(2));
    }
}
