//! INI as Python's `configparser` reads it (the dialect of `tox.ini`, `setup.cfg`): `[section]`
//! headers, `key = value` or `key: value`, a value continued on the indented lines below it
//! (blank lines inside a value kept out), whole-line comments with `#` or `;`. No crate reads
//! this dialect with positions, and the sources need each section's and key's line.

use super::Error;

/// One `[section]`: its name, its header's line, its keys in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    pub name: String,
    pub line: usize,
    pub entries: Vec<Entry>,
}

/// `key = value`: the key as written (trimmed), the value's lines joined by `\n` (each
/// trimmed; the first is empty when the value starts on the next line), the key's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: String,
    pub value: String,
    pub line: usize,
}

impl Section {
    /// The value of `key` (keys compare without case, as `configparser` lowers them).
    pub(crate) fn get(&self, key: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
    }
}

/// The sections of `content`, in file order. Text before the first header, and a line that is
/// neither a header, a key nor a continuation, are errors, as `configparser` makes them.
pub(crate) fn parse(content: &str) -> Result<Vec<Section>, Error> {
    let mut sections: Vec<Section> = Vec::new();
    for (idx, raw) in content.split('\n').enumerate() {
        let line = idx + 1;
        let text = raw.trim_end_matches('\r');
        let trimmed = text.trim();
        if trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indented = text.starts_with([' ', '\t']);
        if trimmed.is_empty() {
            continue;
        }
        // A continuation: an indented line under a key of the current section.
        if indented && let Some(entry) = sections.last_mut().and_then(|s| s.entries.last_mut()) {
            entry.value.push('\n');
            entry.value.push_str(trimmed);
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('[') {
            let Some(name) = rest.strip_suffix(']') else {
                return Err((
                    Some(line),
                    "invalid INI: a section header lacks its `]`".into(),
                ));
            };
            sections.push(Section {
                name: name.trim().to_string(),
                line,
                entries: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err((
                Some(line),
                "invalid INI: a key before the first `[section]`".into(),
            ));
        };
        let Some(at) = trimmed.find(['=', ':']) else {
            return Err((Some(line), "invalid INI: expected `key = value`".into()));
        };
        section.entries.push(Entry {
            key: trimmed[..at].trim().to_string(),
            value: trimmed[at + 1..].trim().to_string(),
            line,
        });
    }
    Ok(sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keys_and_values_continued_below() {
        let s = parse(
            "# top\n[tox]\nenvlist =\n    py312\n\n    lint\n; note\n[testenv:lint]\ndescription: run linters\ncommands = ruff check .\n  ruff format --check\n",
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].name.as_str(), s[0].line), ("tox", 2));
        let envlist = s[0].get("EnvList").unwrap();
        assert_eq!((envlist.value.as_str(), envlist.line), ("\npy312\nlint", 3));
        assert_eq!(s[1].get("description").unwrap().value, "run linters");
        let commands = s[1].get("commands").unwrap();
        assert_eq!(commands.value, "ruff check .\nruff format --check");
        assert_eq!(commands.line, 10);
    }

    #[test]
    fn what_configparser_refuses_is_an_error_with_its_line() {
        assert_eq!(parse("key = 1\n").unwrap_err().0, Some(1));
        assert_eq!(parse("[a]\nnot a key\n").unwrap_err().0, Some(2));
        assert_eq!(parse("[a\n").unwrap_err().0, Some(1));
    }
}
