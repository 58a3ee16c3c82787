//! The table of sources. A source is file patterns + a command type + a pure parse function
//! `(file, content) -> commands + warnings`. Adding a source = one module, one row in `SOURCES`
//! (and a row in `TYPES` when it brings a new type), plus its tests and fuzz target.
//!
//! Parsers never execute project code and never write. They may read other files through
//! `SourceFile::fs` (a lock file beside a package.json, `src/bin/*.rs` beside a Cargo.toml),
//! which keeps them testable on an in-memory tree.

use crate::fs::Fs;
use crate::model::{CommandItem, Warning};
use std::path::Path;

pub mod ai;
pub mod ant;
pub(crate) mod calls;
pub mod cargo;
pub(crate) mod common;
pub mod composer;
pub mod deno;
pub mod docker;
pub mod dotnet;
pub mod dotnet_script;
pub mod go;
pub mod gradle;
pub mod just;
pub mod launch;
pub mod make;
pub mod markdown;
pub mod maven;
pub mod mise;
pub mod nox;
pub mod npm;
pub mod nx;
pub mod playbook;
pub mod powershell;
pub mod procfile;
pub mod pyproject;
pub mod python;
pub mod rake;
pub mod ruby;
pub(crate) mod script_loops;
pub(crate) mod script_runs;
pub mod sequence;
pub mod shell;
pub mod shell_code;
pub(crate) mod sourcing;
pub mod taskfile;
pub mod tox;
pub mod turbo;
pub mod vscode;
pub mod workflow;

/// One file handed to a parser.
pub struct SourceFile<'a> {
    /// Absolute path of the file.
    pub path: &'a Path,
    /// Its text: BOM dropped, CRLF turned into LF (see `fs::decode`).
    pub content: &'a str,
    /// Whether the file has an execute bit (always false off Unix).
    pub executable: bool,
    /// The workspace root.
    pub root: &'a Path,
    /// Read-only access to the rest of the tree.
    pub fs: &'a dyn Fs,
}

impl SourceFile<'_> {
    /// The folder holding the file.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(self.root)
    }
    /// The file's name; a name that is not UTF-8 is shown lossily (U+FFFD), never empty. The
    /// command keeps the real path (`CommandItem::path`).
    pub fn file_name(&self) -> std::borrow::Cow<'_, str> {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    }
}

/// What a parser found in one file.
#[derive(Debug, Default)]
pub struct Parsed {
    pub commands: Vec<CommandItem>,
    pub warnings: Vec<Warning>,
}

impl Parsed {
    pub fn warn(&mut self, file: &Path, line: Option<usize>, message: impl Into<String>) {
        self.warnings.push(Warning::new(file, line, message));
    }
    pub fn with_warning(file: &Path, line: Option<usize>, message: impl Into<String>) -> Self {
        let mut p = Parsed::default();
        p.warn(file, line, message);
        p
    }
}

pub type ParseFn = fn(&SourceFile<'_>) -> Parsed;

/// A command type: its category label, and whether its category is flat (no folder grouping).
/// Order = category display order.
pub struct TypeDef {
    pub kind: &'static str,
    pub label: &'static str,
    pub flat: bool,
}

pub const TYPES: &[TypeDef] = &[
    TypeDef {
        kind: "shell",
        label: "Shell Scripts",
        flat: false,
    },
    TypeDef {
        kind: "npm",
        label: "NPM Scripts",
        flat: false,
    },
    TypeDef {
        kind: "make",
        label: "Make Targets",
        flat: false,
    },
    TypeDef {
        kind: "launch",
        label: "VS Code Launch",
        flat: true,
    },
    TypeDef {
        kind: "vscode",
        label: "VS Code Tasks",
        flat: true,
    },
    TypeDef {
        kind: "python",
        label: "Python Scripts",
        flat: false,
    },
    TypeDef {
        kind: "ruby",
        label: "Ruby Scripts",
        flat: false,
    },
    TypeDef {
        kind: "powershell",
        label: "PowerShell/Batch",
        flat: false,
    },
    TypeDef {
        kind: "gradle",
        label: "Gradle Tasks",
        flat: false,
    },
    TypeDef {
        kind: "cargo",
        label: "Cargo (Rust)",
        flat: false,
    },
    TypeDef {
        kind: "go",
        label: "Go Modules",
        flat: false,
    },
    TypeDef {
        kind: "maven",
        label: "Maven Goals",
        flat: false,
    },
    TypeDef {
        kind: "ant",
        label: "Ant Targets",
        flat: false,
    },
    TypeDef {
        kind: "just",
        label: "Just Recipes",
        flat: false,
    },
    TypeDef {
        kind: "taskfile",
        label: "Taskfile",
        flat: false,
    },
    TypeDef {
        kind: "deno",
        label: "Deno Tasks",
        flat: false,
    },
    TypeDef {
        kind: "rake",
        label: "Rake Tasks",
        flat: false,
    },
    TypeDef {
        kind: "composer",
        label: "Composer Scripts",
        flat: false,
    },
    TypeDef {
        kind: "docker",
        label: "Docker Compose",
        flat: false,
    },
    TypeDef {
        kind: "dotnet",
        label: ".NET Projects",
        flat: false,
    },
    TypeDef {
        kind: "markdown",
        label: "Markdown Files",
        flat: false,
    },
    TypeDef {
        kind: "csharp-script",
        label: "C# Scripts",
        flat: false,
    },
    TypeDef {
        kind: "fsharp-script",
        label: "F# Scripts",
        flat: false,
    },
    TypeDef {
        kind: "mise",
        label: "Mise Tasks",
        flat: false,
    },
    TypeDef {
        kind: "pyproject",
        label: "Python Project Scripts",
        flat: false,
    },
    TypeDef {
        kind: "procfile",
        label: "Procfile Processes",
        flat: false,
    },
    TypeDef {
        kind: "tox",
        label: "Tox Environments",
        flat: false,
    },
    TypeDef {
        kind: "nox",
        label: "Nox Sessions",
        flat: false,
    },
    TypeDef {
        kind: "workflow",
        label: "GitHub Workflows",
        flat: true,
    },
    TypeDef {
        kind: "turbo",
        label: "Turborepo Tasks",
        flat: false,
    },
    TypeDef {
        kind: "nx",
        label: "Nx Targets",
        flat: false,
    },
    TypeDef {
        kind: "prompt",
        label: "AI Prompts",
        flat: false,
    },
    TypeDef {
        kind: "agent",
        label: "AI Agents",
        flat: false,
    },
    TypeDef {
        kind: "skill",
        label: "AI Skills",
        flat: false,
    },
    TypeDef {
        kind: "instructions",
        label: "AI Instructions",
        flat: false,
    },
    TypeDef {
        kind: "playbook",
        label: "Playbooks",
        flat: true,
    },
    TypeDef {
        kind: "sequence",
        label: "Sequences",
        flat: true,
    },
];

pub fn type_def(kind: &str) -> Option<&'static TypeDef> {
    TYPES.iter().find(|t| t.kind == kind)
}

/// Position of a type in the category order (unknown types last).
pub fn type_order(kind: &str) -> usize {
    TYPES
        .iter()
        .position(|t| t.kind == kind)
        .unwrap_or(TYPES.len())
}

/// One row of the source table.
pub struct Source {
    pub kind: &'static str,
    /// Globs on the path relative to the workspace root, `/`-separated; `*` stays within one
    /// folder, `**/` matches any depth including none.
    pub patterns: &'static [&'static str],
    /// Interpreters whose shebang makes an extensionless executable file belong to this source.
    pub shebangs: &'static [&'static str],
    pub parse: ParseFn,
    /// A cheap test on the raw bytes (BOM included, not decoded): `false` means `parse` would
    /// find nothing, so the file is neither decoded nor parsed. Most `.py` files are library
    /// modules, and a tree of them costs mostly reading; this keeps it at that.
    pub prefilter: Option<fn(&[u8]) -> bool>,
}

const fn src(kind: &'static str, patterns: &'static [&'static str], parse: ParseFn) -> Source {
    Source {
        kind,
        patterns,
        shebangs: &[],
        parse,
        prefilter: None,
    }
}

pub const SOURCES: &[Source] = &[
    Source {
        kind: "shell",
        patterns: &["**/*.sh", "**/*.bash", "**/*.zsh"],
        shebangs: &["sh", "bash", "zsh", "dash", "ksh"],
        parse: shell::parse,
        prefilter: None,
    },
    src("npm", &["**/package.json"], npm::parse),
    src(
        "make",
        &["**/Makefile", "**/makefile", "**/GNUmakefile"],
        make::parse,
    ),
    src("launch", &["**/.vscode/launch.json"], launch::parse),
    src("vscode", &["**/.vscode/tasks.json"], vscode::parse),
    Source {
        kind: "python",
        patterns: &["**/*.py"],
        // An executable Python script without `.py` (`bin/setup`, `scripts/release`); `uv`
        // counts only as `uv run` (the parser checks).
        shebangs: &["python", "python3", "python2", "pypy3", "uv"],
        parse: python::parse,
        prefilter: Some(python::may_run),
    },
    Source {
        kind: "ruby",
        patterns: &["**/*.rb"],
        // An executable Ruby script without `.rb` (Rails' `bin/setup`).
        shebangs: ruby::INTERPRETERS,
        parse: ruby::parse,
        prefilter: Some(ruby::may_run),
    },
    src("powershell", &["**/*.ps1"], powershell::parse_ps1),
    src(
        "powershell",
        &["**/*.bat", "**/*.cmd"],
        powershell::parse_batch,
    ),
    src(
        "gradle",
        &["**/build.gradle", "**/build.gradle.kts"],
        gradle::parse,
    ),
    src("cargo", &["**/Cargo.toml"], cargo::parse),
    src("go", &["**/go.mod"], go::parse),
    src("maven", &["**/pom.xml"], maven::parse),
    src("ant", &["**/build.xml"], ant::parse),
    src(
        "just",
        &["**/justfile", "**/Justfile", "**/JUSTFILE", "**/.justfile"],
        just::parse,
    ),
    src(
        "taskfile",
        &[
            "**/Taskfile.yml",
            "**/Taskfile.yaml",
            "**/taskfile.yml",
            "**/taskfile.yaml",
            "**/Taskfile.dist.yml",
            "**/Taskfile.dist.yaml",
            "**/taskfile.dist.yml",
            "**/taskfile.dist.yaml",
        ],
        taskfile::parse,
    ),
    src("deno", &["**/deno.json", "**/deno.jsonc"], deno::parse),
    src(
        "rake",
        &[
            "**/Rakefile",
            "**/rakefile",
            "**/Rakefile.rb",
            "**/rakefile.rb",
            // Each counts where a Rakefile above it loads it (`rake::parse`).
            "**/*.rake",
        ],
        rake::parse,
    ),
    src("composer", &["**/composer.json"], composer::parse),
    src(
        "docker",
        &[
            "**/docker-compose.yml",
            "**/docker-compose.yaml",
            "**/docker-compose.*.yml",
            "**/docker-compose.*.yaml",
            "**/compose.yml",
            "**/compose.yaml",
            "**/compose.*.yml",
            "**/compose.*.yaml",
        ],
        docker::parse_compose,
    ),
    src(
        "docker",
        &[
            "**/Dockerfile",
            "**/Dockerfile.*",
            "**/*.Dockerfile",
            "**/*.dockerfile",
            "**/Containerfile",
        ],
        docker::parse_dockerfile,
    ),
    src(
        "dotnet",
        &["**/*.csproj", "**/*.fsproj", "**/*.vbproj"],
        dotnet::parse,
    ),
    src("dotnet", &["**/*.sln", "**/*.slnx"], dotnet::parse_solution),
    src("markdown", &["**/*.md"], markdown::parse),
    src("csharp-script", &["**/*.csx"], dotnet_script::parse_csx),
    src("fsharp-script", &["**/*.fsx"], dotnet_script::parse_fsx),
    src(
        "mise",
        &[
            "**/mise.toml",
            "**/.mise.toml",
            "**/mise.local.toml",
            "**/.mise.local.toml",
            "**/mise.*.toml",
            "**/.mise.*.toml",
            "**/.config/mise.toml",
            "**/.config/mise/config.toml",
            "**/mise/config.toml",
            "**/.mise/config.toml",
            "**/mise.yaml",
            "**/.mise.yaml",
            "**/mise.yml",
            "**/.mise.yml",
        ],
        mise::parse_config,
    ),
    src(
        "mise",
        &[
            "**/.mise/tasks/**",
            "**/mise-tasks/**",
            "**/.mise-tasks/**",
            "**/.config/mise/tasks/**",
            "**/mise/tasks/**",
        ],
        mise::parse_file_task,
    ),
    src("pyproject", &["**/pyproject.toml"], pyproject::parse),
    src(
        "procfile",
        &["**/Procfile", "**/Procfile.*"],
        procfile::parse,
    ),
    src("tox", &["**/tox.ini", "**/tox.toml"], tox::parse),
    src("tox", &["**/pyproject.toml"], tox::parse_pyproject),
    src("nox", &["**/noxfile.py"], nox::parse),
    src(
        "workflow",
        &[".github/workflows/*.yml", ".github/workflows/*.yaml"],
        workflow::parse,
    ),
    src("turbo", &["**/turbo.json"], turbo::parse),
    src("nx", &["**/project.json", "**/nx.json"], nx::parse),
    // AI definitions: only at the places `commandtree_agents::parse::route` knows. A file they
    // claim is not also listed as a Markdown file (see `discover::Matcher::rows_for`).
    src(
        "prompt",
        commandtree_agents::parse::PROMPT_PATTERNS,
        ai::parse_prompt,
    ),
    src(
        "agent",
        commandtree_agents::parse::AGENT_PATTERNS,
        ai::parse_agent,
    ),
    src(
        "skill",
        commandtree_agents::parse::SKILL_PATTERNS,
        ai::parse_skill,
    ),
    src(
        "instructions",
        commandtree_agents::parse::INSTRUCTIONS_PATTERNS,
        ai::parse_instructions,
    ),
    src(
        "playbook",
        &[".commandtree/playbooks/*.playbook.md"],
        playbook::parse,
    ),
    src("sequence", &[".commandtree/config.toml"], sequence::parse),
];

/// Whether a shebang line names one of `interpreters` (`#!/bin/bash`, `#!/usr/bin/env -S zsh -e`),
/// in any minor version (`python3.12` is `python3`).
pub fn shebang_matches(first_line: &str, interpreters: &[&str]) -> bool {
    // The same reading of `#!` (through `env`, its flags and `VAR=x` words) the parsers use.
    common::shebang(first_line).is_some_and(|(name, _)| {
        let major = name
            .split_once('.')
            .filter(|(_, minor)| !minor.is_empty() && minor.chars().all(|c| c.is_ascii_digit()))
            .map_or(name, |(major, _)| major);
        interpreters.contains(&major)
    })
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for parser unit tests: run a parser on an in-memory file.
    use super::*;
    use crate::fs::MemFs;

    pub const ROOT: &str = "/w";

    pub fn parse_with(parse: ParseFn, path: &str, content: &str) -> Parsed {
        parse_in(parse, &MemFs::new().file(path, content), path)
    }

    pub fn parse_in(parse: ParseFn, fs: &MemFs, path: &str) -> Parsed {
        let content = fs.read(Path::new(path)).expect("file in MemFs");
        let file = SourceFile {
            path: Path::new(path),
            content: &content,
            executable: fs.is_executable(Path::new(path)),
            root: Path::new(ROOT),
            fs,
        };
        parse(&file)
    }

    /// The steps of the command whose id name is `name`, as (name, how) pairs.
    pub fn steps(p: &Parsed, name: &str) -> Vec<(String, &'static str)> {
        step_refs(p, name)
            .iter()
            .map(|s| (s.name.clone(), s.how.as_str()))
            .collect()
    }

    /// The steps of the command whose id name is `name`.
    pub fn step_refs<'a>(p: &'a Parsed, name: &str) -> &'a [crate::model::StepRef] {
        &p.commands
            .iter()
            .find(|c| c.id_name() == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .steps
    }

    pub fn labels(p: &Parsed) -> Vec<&str> {
        p.commands.iter().map(|c| c.label.as_str()).collect()
    }

    /// Each command's description, in order.
    pub fn descriptions(p: &Parsed) -> Vec<Option<&str>> {
        p.commands
            .iter()
            .map(|c| c.description.as_deref())
            .collect()
    }

    /// Asserts that `p` warned once, at `line`, with a message holding `msg`; `case` names the
    /// input in a failure.
    #[track_caller]
    pub fn assert_one_warning(p: &Parsed, line: Option<u32>, msg: &str, case: &str) {
        let got = warnings(p);
        assert!(
            got.len() == 1 && got[0].0 == line && got[0].1.contains(msg),
            "{case:?}: expected one warning at {line:?} holding {msg:?}, got {got:?}"
        );
    }

    /// The warnings as (line, message) pairs, for exact comparisons.
    pub fn warnings(p: &Parsed) -> Vec<(Option<u32>, &str)> {
        p.warnings
            .iter()
            .map(|w| (w.line, w.message.as_str()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_has_a_type() {
        for s in SOURCES {
            assert!(type_def(s.kind).is_some(), "{} has no TypeDef", s.kind);
        }
    }

    #[test]
    fn shebangs() {
        let sh = &["sh", "bash"];
        assert!(shebang_matches("#!/bin/bash", sh));
        assert!(shebang_matches("#!/usr/bin/env bash", sh));
        assert!(shebang_matches("#! /bin/sh -e", sh));
        assert!(shebang_matches("#!/usr/bin/env -S bash -eu", sh));
        assert!(!shebang_matches("#!/usr/bin/env python3", sh));
        assert!(!shebang_matches("# bash", sh));
        let python = &["python", "python3"];
        assert!(shebang_matches("#!/usr/bin/env python3", python));
        assert!(shebang_matches("#!/usr/bin/python3.12 -u", python));
        assert!(!shebang_matches("#!/usr/bin/python3.x", python));
        assert!(!shebang_matches("#!/usr/bin/env ruby", python));
    }
}
