//! The data model shared by every front end. Field names and JSON shape are a contract with the
//! original VS Code extension (PRODUCT.md §3): change them only through an issue.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How a parameter value is put on the command line (seed spec, "Parameter Formats").
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ParamFormat {
    #[default]
    Positional,
    Flag,
    FlagEquals,
    DashdashArgs,
}

#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

    /// How the parameter reads in a usage line: `NAME`, `[NAME=default]` when it may be left
    /// out, `NAME…` when it takes any number of words, `[--flag]` for a switch; a flag
    /// parameter goes by its flag. Raw workspace text: clean it before a terminal.
    pub fn usage(&self) -> String {
        let flagged = matches!(
            self.format,
            Some(ParamFormat::Flag) | Some(ParamFormat::FlagEquals)
        );
        let name = match (&self.flag, flagged || self.switch) {
            (Some(f), true) => f.as_str(),
            _ => self.name.as_str(),
        };
        if self.switch {
            return format!("[{name}]");
        }
        let many = if self.variadic { "…" } else { "" };
        match self.default.as_deref() {
            Some("") => format!("[{name}{many}]"),
            Some(d) => format!("[{name}{many}={}]", crate::text::truncate(d, 24)),
            None => format!("{name}{many}"),
        }
    }
}

/// One discovered command. Serialises to the CommandItem JSON of PRODUCT.md §3.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
    /// How many folders the working folder is below the workspace root (0 at the root or
    /// outside it), set by discovery: a `../..` that climbs no higher stays inside the project.
    /// Not in the JSON contract.
    #[serde(skip)]
    pub below_root: u16,
    /// The place variables (`NVM_DIR`, `PYENV_ROOT`, ...) a script reads that the project files
    /// it sources set (`\. ../../nvm.sh`), sorted; set by the shell parser. The analyser reads
    /// them as the project's choice, not the user's own install of the tool. Not in the JSON
    /// contract.
    #[serde(skip)]
    pub sourced_vars: Vec<String>,
    /// The project files a shell script sources (`source scripts/_lib.sh`), in the order they
    /// were found, nested ones included; set by the shell parser. Sourcing runs a file's code
    /// where the `source` line is, so the analyser reads them as if written there. Not in the
    /// JSON contract.
    #[serde(skip)]
    pub sourced: Vec<SourcedFile>,
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
    /// Where the command's text is, when that is not `file_path` at `line`: a target of a make
    /// `include`, a recipe of a just `import`/`mod`, a task of an included Taskfile. The
    /// command is listed on (and run through) the including file; its text, findings,
    /// summaries and hashes come from here. Not in the JSON contract.
    #[serde(skip)]
    pub defined_in: Option<Definition>,
    /// What its runner executes by itself when it runs: make prerequisites and `$(MAKE) x`
    /// calls, just dependencies, `npm run x` inside a script and its `pre`/`post` hooks,
    /// Taskfile `deps` and `task:` calls, mise `depends`, VS Code `dependsOn`. Named in the
    /// runner's own namespace; the engine resolves them to commands (`closure`). Not in the
    /// JSON contract.
    #[serde(skip)]
    pub steps: Vec<StepRef>,
    /// A sequence's steps run at once rather than one after another. Not in the JSON contract.
    #[serde(skip)]
    pub parallel: bool,
    /// The part of `security_warning` that comes from the steps it runs ("runs `clean`,
    /// which ..."), set by the engine; `None` when its steps carry none. Not in the JSON
    /// contract: `securityWarning` already holds it.
    #[serde(skip)]
    pub step_warning: Option<String>,
    /// The code its runner hands to a shell for it, when the parser works that out from more
    /// than the command's own text: a make recipe with the Makefile's variables filled in, and
    /// the recipes of prerequisites that are files rather than commands (`$(GOLANGCI_LINT)`).
    /// Empty when the own text says it all. The static analyser reads this instead of the
    /// text. Not in the JSON contract.
    #[serde(skip)]
    pub run_code: Vec<ShellCode>,
}

/// A piece of shell code a runner executes for a command, from the file that defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellCode {
    pub code: String,
    /// 1-based line of the definition file (`CommandItem::definition_path`) where it starts;
    /// for code reached through `via`, the line of the command's own definition.
    pub line: u32,
    /// The prerequisite (a file target) whose recipe this is; `None` for the command's own.
    pub via: Option<String>,
}

/// A project file a shell script sources, as discovery read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedFile {
    pub path: PathBuf,
    /// `path` from the workspace root, for messages.
    pub rel: String,
    /// The workspace root: the file is read again only while its real path is inside.
    pub root: PathBuf,
    /// The file whose `source` line reads it: `None` for the script itself, else an index into
    /// the same list (always an earlier entry).
    pub from: Option<usize>,
    /// 1-based line of that `source` command in `from`.
    pub line: u32,
    /// SHA-256 (lowercase hex) of the text discovery read: findings are keyed by it, and a
    /// file that reads otherwise now is not used.
    pub hash: String,
}

/// The file and line that hold an included command's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub file: PathBuf,
    /// 1-based, in `file`.
    pub line: Option<u32>,
    /// The workspace root the parser read `file` under: it is read again only while its real
    /// path is inside (see [`crate::excerpt::read_definition`]).
    pub root: PathBuf,
}

/// One step a runner executes by itself when a command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRef {
    /// The step's name in the runner's namespace: a make target, a just recipe (`mod::x`), a
    /// Taskfile task (`ns:x`), an npm script, a mise task, a VS Code task label.
    pub name: String,
    pub how: StepHow,
    /// Whether a name that matches no discovered command is worth showing. A make
    /// prerequisite may be a plain file, so it need not; `just x` or `npm run x` naming
    /// nothing is a step nobody can check.
    pub must_resolve: bool,
    /// Where the name is looked up.
    pub scope: StepScope,
}

/// How a step comes to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepHow {
    /// Runs first because the command depends on it (make prerequisite, just dependency,
    /// Taskfile `deps`, mise `depends`, VS Code `dependsOn`, a launch's `preLaunchTask`).
    Prerequisite,
    /// Called from the command's own text (`$(MAKE) x`, `just x`, `npm run x`, `task: x`).
    Call,
    /// Runs around it by convention (npm `pre`/`post` scripts, mise `depends_post`, a
    /// launch's `postDebugTask`).
    Hook,
}

impl StepHow {
    pub fn as_str(self) -> &'static str {
        match self {
            StepHow::Prerequisite => "prerequisite",
            StepHow::Call => "call",
            StepHow::Hook => "hook",
        }
    }
}

/// Where a step's name is looked up.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StepScope {
    /// Commands of the same type listed on the same file (a Makefile with its includes, a
    /// justfile with its imports and modules, a Taskfile with its includes, a package.json).
    #[default]
    SameFile,
    /// Commands of the same type that run in the same folder (mise: the tasks of every config
    /// file, include and task folder of a project share one namespace).
    SameFolder,
    /// Commands of type `kind` listed on `file` (a launch configuration's `preLaunchTask` in
    /// `tasks.json`, a VS Code task's `npm: x` in a `package.json`).
    File { kind: String, file: PathBuf },
    /// Any command, by the name `ct run` takes typed in folder `at` (a sequence's steps: an
    /// id, a path form, `type:label` or a label).
    Named { at: PathBuf },
}

impl StepRef {
    /// A step looked up in the same file.
    pub fn new(name: impl Into<String>, how: StepHow, must_resolve: bool) -> Self {
        StepRef {
            name: name.into(),
            how,
            must_resolve,
            scope: StepScope::SameFile,
        }
    }
    pub fn scope(mut self, scope: StepScope) -> Self {
        self.scope = scope;
        self
    }
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
    /// The file that holds its text: the included file it comes from, else [`CommandItem::path`].
    pub fn definition_path(&self) -> &Path {
        match &self.defined_in {
            Some(d) => &d.file,
            None => self.path(),
        }
    }
    /// The line of [`CommandItem::definition_path`] its text starts at (1-based).
    pub fn definition_line(&self) -> Option<u32> {
        match &self.defined_in {
            Some(d) => d.line,
            None => self.line,
        }
    }
    /// Its own security warning: `security_warning` without what its steps add
    /// ([`CommandItem::step_warning`]).
    pub fn own_warning(&self) -> Option<&str> {
        let w = self.security_warning.as_deref()?;
        let own = match self.step_warning.as_deref() {
            Some(s) if w == s => return None,
            Some(s) => w
                .strip_suffix(s)
                .and_then(|o| o.strip_suffix(STEP_WARNING_SEPARATOR))
                .unwrap_or(w),
            None => w,
        };
        Some(own).filter(|o| !o.trim().is_empty())
    }
    /// Sets the warning its steps add, keeping its own: `security_warning` becomes the own
    /// warning followed by `steps`.
    pub fn set_step_warning(&mut self, steps: Option<String>) {
        let own = self.own_warning().map(str::to_string);
        self.security_warning = match (own, &steps) {
            (None, None) => None,
            (Some(o), None) => Some(o),
            (None, Some(s)) => Some(s.clone()),
            (Some(o), Some(s)) => Some(format!("{o}{STEP_WARNING_SEPARATOR}{s}")),
        };
        self.step_warning = steps;
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

/// Between a command's own warning and the one its steps add.
const STEP_WARNING_SEPARATOR: &str = "; ";

/// The path itself when its lossy string form would differ from it.
fn not_utf8(p: &Path) -> Option<PathBuf> {
    p.to_str().is_none().then(|| p.to_path_buf())
}

/// `{type}:{absolute filePath}:{name}`, plain concatenation (PRODUCT.md §3).
pub fn command_id(kind: &str, file: &Path, name: &str) -> String {
    format!("{kind}:{}:{name}", file.to_string_lossy())
}

/// A problem found while discovering. Never fatal: discovery goes on.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
    #[test]
    fn a_parameter_reads_as_in_a_usage_line() {
        let mut p = super::ParamDef::new("files");
        assert_eq!(p.usage(), "files");
        p.variadic = true;
        assert_eq!(p.usage(), "files…");
        let mut v = super::ParamDef::new("verbose");
        v.flag = Some("--verbose".into());
        v.switch = true;
        assert_eq!(v.usage(), "[--verbose]");
        let mut o = super::ParamDef::new("out").with_default("dist");
        o.flag = Some("--out".into());
        o.format = Some(super::ParamFormat::FlagEquals);
        assert_eq!(o.usage(), "[--out=dist]");
        assert_eq!(super::ParamDef::new("b").with_default("").usage(), "[b]");
    }

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
