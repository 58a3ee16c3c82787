//! The data model shared by every front end. Field names and JSON shape are a contract with the
//! original VS Code extension (PRODUCT.md §3): change them only through an issue.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How a parameter value is put on the command line (seed spec, "Parameter Formats").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ParamFormat {
    #[default]
    Positional,
    Flag,
    FlagEquals,
    DashdashArgs,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ParamDef {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ParamFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag: Option<String>,
    /// Variadic (`just` `+args`/`*args`, `#USAGE arg "<files>..."`): takes any number of words.
    /// Not part of the JSON contract; the run layer reads it.
    #[serde(skip)]
    pub variadic: bool,
    /// A flag that takes no value (PowerShell `[switch]`, argparse `store_true`): the run layer
    /// passes `flag` alone for a yes-like value and nothing otherwise. Not in the JSON contract.
    #[serde(skip)]
    pub switch: bool,
}

impl ParamDef {
    pub fn new(name: impl Into<String>) -> Self {
        ParamDef {
            name: name.into(),
            ..Default::default()
        }
    }
    pub fn with_description(mut self, d: impl Into<String>) -> Self {
        self.description = non_empty(d.into());
        self
    }
    pub fn with_default(mut self, d: impl Into<String>) -> Self {
        self.default = Some(d.into());
        self
    }
}

/// One discovered command. Serialises to the CommandItem JSON of PRODUCT.md §3.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CommandItem {
    pub id: String,
    pub label: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub category: String,
    pub command: String,
    pub cwd: String,
    pub file_path: String,
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<ParamDef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_warning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Private commands (`_x` make targets, `[private]` just recipes, ...) are listed but sorted
    /// last. Kept out of the JSON contract.
    #[serde(skip)]
    pub private: bool,
    /// Free-form grouping a tool declares itself (just `[group('x')]`); not in the JSON contract.
    #[serde(skip)]
    pub group: Option<String>,
    /// Vendored code, test data, templates, nested examples and playgrounds (see `classify`):
    /// listed only with `--all` or `[discovery] show = "all"`. Not in the JSON contract.
    #[serde(skip)]
    pub auxiliary: bool,
    /// The tool's own listing hides it (`just --list` and `[private]`/`_x` recipes, mise
    /// `hide = true`): listed only with `--all`. Not in the JSON contract.
    #[serde(skip)]
    pub hidden: bool,
    /// Other names the tool runs it by (just `alias b := build`); not in the JSON contract.
    #[serde(skip)]
    pub aliases: Vec<String>,
    /// The real path of the file when it is not UTF-8 (`file_path` then holds a lossy form with
    /// U+FFFD, for display and ids); `None` otherwise. Read it through [`CommandItem::path`].
    /// Not in the JSON contract.
    #[serde(skip)]
    pub os_file_path: Option<PathBuf>,
    /// The real working folder when it is not UTF-8, as `os_file_path`; read it through
    /// [`CommandItem::cwd_path`]. Not in the JSON contract.
    #[serde(skip)]
    pub os_cwd: Option<PathBuf>,
}

impl CommandItem {
    /// A command of type `kind` defined in `file`, whose id name is `name`. Label defaults to the
    /// name and cwd to the file's folder; `category` is filled in by discovery.
    pub fn new(kind: &str, file: &Path, name: &str, command: impl Into<String>) -> Self {
        CommandItem {
            id: command_id(kind, file, name),
            label: name.to_string(),
            kind: kind.to_string(),
            category: String::new(),
            command: command.into(),
            cwd: file
                .parent()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            file_path: file.to_string_lossy().into_owned(),
            os_file_path: not_utf8(file),
            os_cwd: file.parent().and_then(not_utf8),
            ..Default::default()
        }
    }
    /// Whether `file_path` spells `path` byte for byte (a walk's own spelling of the file it
    /// parsed; an included file's commands name another).
    pub fn file_path_is(&self, path: &Path) -> bool {
        self.file_path.as_bytes() == path.as_os_str().as_encoded_bytes()
    }
    /// The file that defines it, as the file system names it: open and run this, not
    /// `file_path`, which is lossy when the real path is not UTF-8.
    pub fn path(&self) -> &Path {
        self.os_file_path
            .as_deref()
            .unwrap_or_else(|| Path::new(&self.file_path))
    }
    /// The folder it runs in, as the file system names it (see [`CommandItem::path`]).
    pub fn cwd_path(&self) -> &Path {
        self.os_cwd
            .as_deref()
            .unwrap_or_else(|| Path::new(&self.cwd))
    }
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }
    pub fn description(mut self, d: impl Into<String>) -> Self {
        self.description = non_empty(d.into());
        self
    }
    pub fn opt_description(mut self, d: Option<String>) -> Self {
        self.description = d.and_then(non_empty);
        self
    }
    pub fn cwd(mut self, cwd: &Path) -> Self {
        self.cwd = cwd.to_string_lossy().into_owned();
        self.os_cwd = not_utf8(cwd);
        self
    }
    pub fn line(mut self, line: usize) -> Self {
        self.line = u32::try_from(line).ok();
        self
    }
    pub fn params(mut self, params: Vec<ParamDef>) -> Self {
        self.params = params;
        self
    }
    pub fn private(mut self, private: bool) -> Self {
        self.private = private;
        self
    }
    /// Whether the tool puts it in one of `groups` (just `[group('x')]`, a VS Code task's
    /// `group`); every command when `groups` is empty.
    pub fn in_groups(&self, groups: &[String]) -> bool {
        groups.is_empty()
            || self
                .group
                .as_ref()
                .is_some_and(|g| groups.iter().any(|w| w == g))
    }
    /// The id name: the part of the id after `{type}:{filePath}:`.
    pub fn id_name(&self) -> &str {
        let prefix = self.kind.len() + 1 + self.file_path.len() + 1;
        self.id.get(prefix..).unwrap_or(&self.id)
    }
}

/// The path itself when its lossy string form would differ from it.
fn not_utf8(p: &Path) -> Option<PathBuf> {
    p.to_str().is_none().then(|| p.to_path_buf())
}

/// `{type}:{absolute filePath}:{name}`, plain concatenation (PRODUCT.md §3).
pub fn command_id(kind: &str, file: &Path, name: &str) -> String {
    format!("{kind}:{}:{name}", file.to_string_lossy())
}

/// A problem found while discovering. Never fatal: discovery goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    pub file: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub message: String,
}

impl Warning {
    pub fn new(file: &Path, line: Option<usize>, message: impl Into<String>) -> Self {
        Warning {
            file: file.to_path_buf(),
            line: line.and_then(|l| u32::try_from(l).ok()),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file.display(), l, self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

pub(crate) fn non_empty(s: String) -> Option<String> {
    let t = s.trim();
    if t.is_empty() {
        None
    } else if t.len() == s.len() {
        Some(s)
    } else {
        Some(t.to_string())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn a_path_that_is_not_utf8_keeps_its_bytes_and_gets_a_lossy_label() {
        let dir = Path::new(OsStr::from_bytes(b"/w/caf\xe9"));
        let file = dir.join(OsStr::from_bytes(b"b\xffd.sh"));
        let c = CommandItem::new("shell", &file, "b\u{fffd}d.sh", "sh x");
        assert_eq!(c.path(), file);
        assert_eq!(c.cwd_path(), dir);
        assert_eq!(c.file_path, "/w/caf\u{fffd}/b\u{fffd}d.sh");
        assert_eq!(c.cwd, "/w/caf\u{fffd}");
        // The JSON contract is unchanged: lossy strings, no extra field.
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["filePath"], "/w/caf\u{fffd}/b\u{fffd}d.sh");
        assert!(v.get("osFilePath").is_none() && v.get("osCwd").is_none());

        let plain = CommandItem::new("shell", Path::new("/w/a.sh"), "a.sh", "sh a");
        assert_eq!(plain.os_file_path, None);
        assert_eq!(plain.path(), Path::new("/w/a.sh"));
        let moved = plain.cwd(dir);
        assert_eq!(moved.cwd_path(), dir);
        assert_eq!(moved.cwd(Path::new("/w")).os_cwd, None);
    }
}
