//! Go commands from every `go.mod`: what the `go` tool offers any module, as Cargo's and .NET's
//! sources do for theirs. A Go project often has no task runner at all (`go build`, `go test`
//! are its whole build), and then these are the commands its README names.
//!
//! * Every module: `go build ./...`, `go test ./...`, `go vet ./...`, `go fmt ./...` and
//!   `go mod tidy`, run in the module's folder.
//! * `golangci-lint run` when a golangci-lint configuration lies beside the manifest (the
//!   project chose that linter; without one nothing says which linter it uses).
//! * `go run` for each main package where Go projects keep them: the module's own folder
//!   (`go run .`) and each folder of `cmd/` (`go run ./cmd/caddy`, named `run-caddy` in its id
//!   as Cargo's `run --bin app` is `run-app`), at most 64. A folder is a
//!   main package when its first Go file that is not a test says `package main`.
//!
//! Nothing is built or run to find them: the manifest's `module` line and those files are read.

use super::common::with_line;
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use std::path::Path;

pub const KIND: &str = "go";

/// The commands every module has: label, arguments to `go`, description.
const MODULE: &[(&str, &str, &str)] = &[
    (
        "build",
        "build ./...",
        "Compile every package of the module",
    ),
    (
        "test",
        "test ./...",
        "Run the tests of every package of the module",
    ),
    (
        "vet",
        "vet ./...",
        "Report suspicious constructs in every package (go vet)",
    ),
    (
        "fmt",
        "fmt ./...",
        "Format the Go code of every package with gofmt",
    ),
    (
        "tidy",
        "mod tidy",
        "Add missing and remove unused module requirements (go.mod, go.sum)",
    ),
];

/// The golangci-lint configuration files it reads by itself.
const GOLANGCI: &[&str] = &[
    ".golangci.yml",
    ".golangci.yaml",
    ".golangci.toml",
    ".golangci.json",
];

/// At most this many folders of `cmd/` are looked at.
const MAX_COMMANDS: usize = 64;

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let Some((line, module)) = module_line(file.content) else {
        return Parsed::with_warning(file.path, None, "no `module` line");
    };
    let mut out = Parsed::default();
    let item = |label: &str, command: String, description: String| {
        with_line(
            CommandItem::new(KIND, file.path, label, command).description(description),
            Some(line),
        )
    };
    for (label, args, description) in MODULE {
        out.commands.push(item(
            label,
            format!("go {args}"),
            (*description).to_string(),
        ));
    }
    let dir = file.dir();
    if GOLANGCI.iter().any(|c| file.fs.is_file(&dir.join(c))) {
        out.commands.push(item(
            "lint",
            "golangci-lint run".to_string(),
            "Lint the module with golangci-lint".to_string(),
        ));
    }
    // A module's major version is its path's last part (`go.k6.io/k6/v2`): the name is before.
    let mut parts = module.rsplit('/');
    let name = parts
        .next()
        .filter(|p| !is_major_version(p))
        .or_else(|| parts.next())
        .unwrap_or(module);
    if is_main_package(file, dir) {
        out.commands
            .push(item("run", "go run .".to_string(), format!("Run {name}")));
    }
    let mut commands: Vec<_> = file
        .fs
        .list_dir(&dir.join("cmd"))
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| !n.to_string_lossy().starts_with(['.', '_']))
        })
        .take(MAX_COMMANDS)
        .filter(|p| is_main_package(file, p))
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect();
    commands.sort();
    for cmd in commands {
        let target = format!("./cmd/{cmd}");
        // Named in its id as Cargo's `run --bin app` is (`run-app`): one word to type.
        out.commands.push(
            item(
                &format!("run-{cmd}"),
                format!("go run {}", crate::text::sh_word(&target)),
                format!("Run {cmd}, the program in cmd/{cmd}"),
            )
            .label(format!("run {target}")),
        );
    }
    out
}

/// The manifest's `module` directive: its line (1-based) and the module path.
fn module_line(content: &str) -> Option<(usize, &str)> {
    content.lines().enumerate().find_map(|(i, l)| {
        let rest = l.trim().strip_prefix("module")?;
        if !rest.starts_with([' ', '\t']) {
            return None;
        }
        let path = rest.split("//").next()?.trim().trim_matches('"');
        (!path.is_empty()).then_some((i + 1, path))
    })
}

/// `v2`, `v10`: a major version suffix of a module path.
fn is_major_version(part: &str) -> bool {
    part.strip_prefix('v')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `dir`'s first Go file that is not a test (by name) says `package main`.
fn is_main_package(file: &SourceFile<'_>, dir: &Path) -> bool {
    let mut sources: Vec<_> = file
        .fs
        .list_dir(dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.ends_with(".go") && !n.ends_with("_test.go"))
        })
        .collect();
    sources.sort();
    sources
        .first()
        .and_then(|p| file.fs.read(p))
        .is_some_and(|text| package_clause(&text) == Some("main"))
}

/// The name of a Go file's `package` clause (comments and build constraints before it skipped).
fn package_clause(text: &str) -> Option<&str> {
    let mut in_block = false;
    for line in text.lines() {
        let mut l = line.trim();
        if in_block {
            match l.find("*/") {
                Some(end) => {
                    in_block = false;
                    l = l[end + 2..].trim();
                }
                None => continue,
            }
        }
        if let Some(rest) = l.strip_prefix("/*") {
            match rest.find("*/") {
                Some(end) => l = rest[end + 2..].trim(),
                None => {
                    in_block = true;
                    continue;
                }
            }
        }
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        let name = l.strip_prefix("package")?;
        return name
            .split("//")
            .next()
            .map(str::trim)
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_'));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{descriptions, labels, parse_in};

    fn commands(p: &Parsed) -> Vec<&str> {
        p.commands.iter().map(|c| c.command.as_str()).collect()
    }

    #[test]
    fn a_module_gets_the_go_tools_commands_in_its_folder() {
        let fs = MemFs::new()
            .file(
                "/w/go.mod",
                "// The server.\nmodule github.com/caddyserver/caddy/v2\n\ngo 1.25\n",
            )
            .file("/w/caddy.go", "package caddy\n");
        let p = parse_in(parse, &fs, "/w/go.mod");
        assert_eq!(labels(&p), ["build", "test", "vet", "fmt", "tidy"]);
        assert_eq!(
            commands(&p),
            [
                "go build ./...",
                "go test ./...",
                "go vet ./...",
                "go fmt ./...",
                "go mod tidy"
            ]
        );
        assert!(p.commands.iter().all(|c| c.line == Some(2)));
        assert!(p.commands.iter().all(|c| c.cwd_path() == Path::new("/w")));
        assert!(descriptions(&p).iter().all(Option::is_some));
    }

    #[test]
    fn main_packages_of_cmd_and_the_module_folder_are_run() {
        let fs = MemFs::new()
            .file("/w/go.mod", "module example.com/tool/v2\n")
            .file(
                "/w/main.go",
                "// Copyright\n/* a\n   block */\n//go:build linux\n\npackage main // the tool\n",
            )
            .file("/w/cmd/caddy/main.go", "package main\n\nfunc main() {}\n")
            .file("/w/cmd/caddy/main_test.go", "package main_test\n")
            .file("/w/cmd/util/a.go", "package util\n")
            .file("/w/cmd/a_test.go", "package cmd\n")
            .file("/w/cmd/.hidden/main.go", "package main\n");
        let p = parse_in(parse, &fs, "/w/go.mod");
        let labels = labels(&p);
        assert_eq!(&labels[5..], ["run", "run ./cmd/caddy"]);
        assert_eq!(&commands(&p)[5..], ["go run .", "go run ./cmd/caddy"]);
        assert_eq!(p.commands[6].id_name(), "run-caddy");
        assert_eq!(p.commands[5].description.as_deref(), Some("Run tool"));
    }

    #[test]
    fn golangci_lint_only_with_its_configuration_beside_the_manifest() {
        let fs = MemFs::new()
            .file("/w/go.mod", "module m\n")
            .file("/w/.golangci.yml", "linters: {}\n")
            .file("/w/sub/go.mod", "module m/sub\n");
        let p = parse_in(parse, &fs, "/w/go.mod");
        let lint = p.commands.iter().find(|c| c.label == "lint").unwrap();
        assert_eq!(lint.command, "golangci-lint run");
        let p = parse_in(parse, &fs, "/w/sub/go.mod");
        assert!(p.commands.iter().all(|c| c.label != "lint"));
    }

    #[test]
    fn a_manifest_without_a_module_line_warns_and_gives_nothing() {
        let fs = MemFs::new().file("/w/go.mod", "go 1.22\nmodules x\n");
        let p = parse_in(parse, &fs, "/w/go.mod");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
    }
}
