//! npm scripts: the `scripts` of every `package.json` outside `node_modules`, in file order, run
//! with the package manager the project uses (lock file, else the `packageManager` field).
//!
//! A script's steps are its `pre`/`post` scripts and the scripts of the same package.json it
//! runs itself (`npm run x`, `npm test`, `yarn x`, `pnpm run x`, `bun run x`, `run-s`/`run-p`,
//! and the commands `concurrently` starts), and what its `make` calls run in the Makefile beside
//! it.

use super::calls::{concurrently_lines, make_call_with, npm_call, npm_call_in, simple_commands};
use super::common::{folders_up, nearest_marker, with_line};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, StepHow, StepRef, StepScope};
use crate::syntax::json::{self, Dialect};
use crate::text;
use jsonc_parser::ast;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Runner {
    Npm,
    Pnpm,
    Yarn,
    Bun,
}

/// Lock files by folder; within one folder the first match wins.
const LOCK_FILES: &[(&str, Runner)] = &[
    ("pnpm-lock.yaml", Runner::Pnpm),
    ("yarn.lock", Runner::Yarn),
    ("bun.lockb", Runner::Bun),
    ("bun.lock", Runner::Bun),
    ("package-lock.json", Runner::Npm),
    ("npm-shrinkwrap.json", Runner::Npm),
];

/// Yarn commands that shadow a script of the same name in `yarn X` (classic and berry); such
/// scripts need `yarn run X`.
pub(crate) const YARN_BUILTINS: &[&str] = &[
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "constraints",
    "create",
    "dedupe",
    "dlx",
    "exec",
    "explain",
    "generate-lock-entry",
    "global",
    "help",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "node",
    "npm",
    "outdated",
    "owner",
    "pack",
    "patch",
    "patch-commit",
    "plugin",
    "policies",
    "publish",
    "rebuild",
    "remove",
    "run",
    "search",
    "set",
    "stage",
    "tag",
    "team",
    "unlink",
    "unplug",
    "up",
    "upgrade",
    "upgrade-interactive",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
];

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    // Installed dependencies are not the project's commands. Only the part below the workspace
    // root counts, so a workspace opened inside a `node_modules` folder still works.
    let inside = file.path.strip_prefix(file.root).unwrap_or(file.path);
    if inside.components().any(|c| c.as_os_str() == "node_modules") {
        return Parsed::default();
    }
    let doc = match json::parse(file.content, Dialect::Strict) {
        Ok(doc) => doc,
        Err((line, reason)) => return Parsed::with_warning(file.path, line, reason),
    };
    let Some(root) = doc.object() else {
        return Parsed::with_warning(file.path, None, "the top level is not an object");
    };
    let scripts = match json::prop(root, "scripts") {
        None => return Parsed::default(),
        Some(p) => match &p.value {
            ast::Value::NullKeyword(_) => return Parsed::default(),
            ast::Value::Object(o) => json::props(o),
            _ => {
                let line = Some(doc.line(p));
                return Parsed::with_warning(file.path, line, "`scripts` is not an object");
            }
        },
    };
    let own_manager = json::prop(root, "packageManager")
        .and_then(|p| p.value.as_string_lit())
        .map(|s| s.value.as_ref());
    let runner = detect_runner(file, own_manager);
    let names: Vec<&str> = scripts.iter().map(|p| p.name.as_str()).collect();
    let mut out = Parsed::default();
    for script in &scripts {
        let name = script.name.as_str();
        let line = Some(doc.line(*script));
        let ast::Value::StringLit(body) = &script.value else {
            out.warn(file.path, line, format!("script `{name}` is not a string"));
            continue;
        };
        let body = body.value.as_ref();
        if name.is_empty() {
            out.warn(file.path, line, "script with an empty name");
            continue;
        }
        let mut item = CommandItem::new("npm", file.path, name, run_command(runner, name))
            .description(text::truncate(body, 60));
        item.steps = script_steps(file, name, body, &names);
        for step in make_steps(file, body) {
            if !item.steps.contains(&step) {
                item.steps.push(step);
            }
        }
        // `npm init`'s placeholder fails by design: nobody wrote it, so it is listed only with
        // `--all` and never wins a name over a task the project wrote.
        item.hidden = is_init_placeholder(body);
        out.commands.push(with_line(item, line));
    }
    out
}

/// `echo "Error: no test specified" && exit 1`, as `npm init` writes it.
fn is_init_placeholder(body: &str) -> bool {
    body.contains("Error: no test specified") && body.trim_end().ends_with("exit 1")
}

/// The scripts running `name` (whose text is `body`) runs too: its `pre`/`post` scripts, the
/// scripts of this package.json it calls, and those of another package.json of the workspace it
/// calls by folder (`yarn --cwd ./app start`).
fn script_steps(file: &SourceFile<'_>, name: &str, body: &str, scripts: &[&str]) -> Vec<StepRef> {
    let mut out: Vec<StepRef> = Vec::new();
    let mut push = |step: StepRef| {
        if !out.iter().any(|s| s.name == step.name && s.how == step.how) {
            out.push(step);
        }
    };
    let pre = format!("pre{name}");
    if scripts.contains(&pre.as_str()) {
        push(StepRef::new(pre, StepHow::Hook, true));
    }
    // `concurrently "npm run a" "npm run b"`: each argument is a command line, read once more.
    let mut level = vec![body.to_string()];
    for _ in 0..2 {
        let mut next = Vec::new();
        for line in &level {
            for cmd in simple_commands(line) {
                if let Some(call) = npm_call(&cmd, scripts) {
                    for n in call.names {
                        push(StepRef::new(n, StepHow::Call, !call.optional));
                    }
                } else if let Some((dir, call)) = npm_call_in(&cmd)
                    && let Some(manifest) = package_in(file, &dir)
                {
                    for n in call.names {
                        push(StepRef::new(n, StepHow::Call, !call.optional).scope(
                            StepScope::File {
                                kind: "npm".into(),
                                file: manifest.clone(),
                            },
                        ));
                    }
                }
                next.extend(concurrently_lines(&cmd));
            }
        }
        level = next;
    }
    let post = format!("post{name}");
    if scripts.contains(&post.as_str()) {
        push(StepRef::new(post, StepHow::Hook, true));
    }
    out
}

/// The package.json of folder `dir` (as a script names it, from its own package's folder) when
/// it is another one inside the workspace.
fn package_in(file: &SourceFile<'_>, dir: &str) -> Option<std::path::PathBuf> {
    let manifest = super::common::normalize_path(&file.dir().join(dir).join("package.json"));
    (manifest != file.path && manifest.starts_with(file.root) && file.fs.is_file(&manifest))
        .then_some(manifest)
}

/// What the `make` calls of a script run, in the Makefile beside the package.json:
/// `make TEST_SUITE=fast test-$shell` runs what that target's recipe runs with those values.
fn make_steps(file: &SourceFile<'_>, body: &str) -> Vec<StepRef> {
    let calls: Vec<_> = simple_commands(body)
        .iter()
        .filter_map(make_call_with)
        .collect();
    if calls.is_empty() {
        return Vec::new();
    }
    // GNU make's own order.
    let Some(makefile) = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .map(|n| file.dir().join(n))
        .find(|p| file.fs.is_file(p))
    else {
        return Vec::new();
    };
    let mut out: Vec<StepRef> = Vec::new();
    for call in calls {
        for step in super::make::call_steps(file, &makefile, &call.targets, &call.overrides) {
            if !out.contains(&step) {
                out.push(step);
            }
        }
    }
    out
}

fn run_command(runner: Runner, name: &str) -> String {
    let word = text::sh_word(name);
    match runner {
        Runner::Npm => format!("npm run {word}"),
        Runner::Pnpm => format!("pnpm run {word}"),
        Runner::Bun => format!("bun run {word}"),
        Runner::Yarn if YARN_BUILTINS.contains(&name) => format!("yarn run {word}"),
        Runner::Yarn => format!("yarn {word}"),
    }
}

/// The nearest lock file from the package folder up to the workspace root decides; without one,
/// the nearest `packageManager` field (this package.json, then those above it); else npm.
fn detect_runner(file: &SourceFile<'_>, own: Option<&str>) -> Runner {
    if let Some(r) = nearest_marker(file, LOCK_FILES) {
        return r;
    }
    if let Some(r) = own.and_then(package_manager) {
        return r;
    }
    for dir in folders_up(file).skip(1) {
        let Some(content) = file.fs.read(&dir.join("package.json")) else {
            continue;
        };
        if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(&content)
            && let Some(r) = m
                .get("packageManager")
                .and_then(Value::as_str)
                .and_then(package_manager)
        {
            return r;
        }
    }
    Runner::Npm
}

/// Corepack's `packageManager`: `pnpm@9.1.0`, `yarn@4.2.2+sha512.…`.
fn package_manager(spec: &str) -> Option<Runner> {
    let spec = spec.trim();
    let name = spec.split('@').next().unwrap_or(spec);
    match name {
        "npm" => Some(Runner::Npm),
        "pnpm" => Some(Runner::Pnpm),
        "yarn" => Some(Runner::Yarn),
        "bun" => Some(Runner::Bun),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{assert_one_warning, labels, parse_in, parse_with, warnings};
    use std::path::Path;

    const PKG: &str = r#"{
  "name": "web",
  "version": "1.0.0",
  "scripts": {
    "zeta": "echo zeta",
    "alpha": "vite build",
    "middle": "node scripts/middle.js",
    "Beta": "eslint .",
    "prebuild": "rimraf dist",
    "build": "tsc -p tsconfig.build.json && vite build --mode production --emptyOutDir"
  },
  "devDependencies": { "vite": "^5.0.0" }
}"#;

    #[test]
    fn the_npm_init_placeholder_is_hidden() {
        let p = parse_with(
            parse,
            "/w/package.json",
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1", "build": "tsc"}}"#,
        );
        let hidden: Vec<(&str, bool)> = p
            .commands
            .iter()
            .map(|c| (c.label.as_str(), c.hidden))
            .collect();
        assert_eq!(hidden, [("test", true), ("build", false)]);
    }

    #[test]
    fn a_script_calling_another_packages_script_by_folder_runs_it() {
        let fs = MemFs::new()
            .file(
                "/w/package.json",
                r#"{"scripts": {
  "start": "yarn --cwd ./app start",
  "build": "npm --prefix web run build && yarn --cwd app install",
  "docs": "pnpm -C ../outside dev",
  "gone": "yarn --cwd missing start"
}}"#,
            )
            .file("/w/app/package.json", r#"{"scripts": {"start": "vite"}}"#)
            .file(
                "/w/web/package.json",
                r#"{"scripts": {"build": "vite build"}}"#,
            )
            .file("/outside/package.json", r#"{"scripts": {"dev": "vite"}}"#);
        let p = parse_in(parse, &fs, "/w/package.json");
        let steps = |name: &str| -> Vec<(String, String)> {
            crate::sources::testing::step_refs(&p, name)
                .iter()
                .map(|s| match &s.scope {
                    StepScope::File { kind, file } => {
                        (s.name.clone(), format!("{kind} {}", file.display()))
                    }
                    other => (s.name.clone(), format!("{other:?}")),
                })
                .collect()
        };
        let at = |name: &str, file: &str| vec![(name.to_string(), format!("npm {file}"))];
        assert_eq!(steps("start"), at("start", "/w/app/package.json"));
        // `yarn --cwd app install` is yarn's own command, not a script.
        assert_eq!(steps("build"), at("build", "/w/web/package.json"));
        // Outside the workspace, or no package there: nothing to look up.
        assert!(steps("docs").is_empty());
        assert!(steps("gone").is_empty());
    }

    #[test]
    fn hooks_and_scripts_a_script_runs_are_steps() {
        let p = parse_with(
            parse,
            "/w/package.json",
            r#"{"scripts": {
  "prebuild": "npm run clean",
  "build": "npm run clean && tsc -p . && run-s 'lint:*' && npm run x --if-present",
  "postbuild": "echo done",
  "clean": "rm -rf ~/x",
  "lint:a": "eslint a",
  "lint:b": "eslint b",
  "dev": "concurrently \"npm run watch\" 'yarn serve'",
  "watch": "tsc -w",
  "serve": "node s.js",
  "ci": "npm test && npm --prefix sub run build && echo npm run fake",
  "test": "jest"
}}"#,
        );
        let steps = |name: &str| -> Vec<(String, &'static str, bool)> {
            p.commands
                .iter()
                .find(|c| c.label == name)
                .unwrap()
                .steps
                .iter()
                .map(|s| (s.name.clone(), s.how.as_str(), s.must_resolve))
                .collect()
        };
        assert_eq!(
            steps("build"),
            [
                ("prebuild".to_string(), "hook", true),
                ("clean".to_string(), "call", true),
                ("lint:a".to_string(), "call", true),
                ("lint:b".to_string(), "call", true),
                ("x".to_string(), "call", false),
                ("postbuild".to_string(), "hook", true),
            ]
        );
        assert_eq!(steps("prebuild"), [("clean".to_string(), "call", true)]);
        assert_eq!(
            steps("dev"),
            [
                ("watch".to_string(), "call", true),
                ("serve".to_string(), "call", true)
            ]
        );
        assert_eq!(steps("ci"), [("test".to_string(), "call", true)]);
        assert!(steps("clean").is_empty());
    }

    #[test]
    fn scripts_in_file_order_with_npm() {
        let p = parse_with(parse, "/w/package.json", PKG);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            ["zeta", "alpha", "middle", "Beta", "prebuild", "build"]
        );
        let z = &p.commands[0];
        assert_eq!(z.kind, "npm");
        assert_eq!(z.id, "npm:/w/package.json:zeta");
        assert_eq!(z.command, "npm run zeta");
        assert_eq!(z.cwd, "/w");
        assert_eq!(z.description.as_deref(), Some("echo zeta"));
        assert_eq!(z.line, Some(5));
        assert_eq!(p.commands[5].line, Some(10));
        assert_eq!(
            p.commands[5].description.as_deref(),
            Some("tsc -p tsconfig.build.json && vite build --mode productio...")
        );
        assert_eq!(
            p.commands[5].description.as_ref().unwrap().chars().count(),
            60
        );
    }

    #[test]
    fn node_modules_packages_are_ignored() {
        let p = parse_with(parse, "/w/node_modules/vite/package.json", PKG);
        assert!(p.commands.is_empty());
        let p = parse_with(parse, "/w/a/node_modules/@scope/x/package.json", PKG);
        assert!(p.commands.is_empty());
        // Only a whole path component counts.
        let p = parse_with(parse, "/w/my_node_modules/package.json", PKG);
        assert_eq!(p.commands.len(), 6);
        // The workspace root itself may sit inside a node_modules folder.
        let fs = MemFs::new();
        let file = SourceFile {
            path: Path::new("/node_modules/w/package.json"),
            content: PKG,
            executable: false,
            root: Path::new("/node_modules/w"),
            fs: &fs,
        };
        assert_eq!(parse(&file).commands.len(), 6);
    }

    fn runner_of(fs: MemFs, path: &str) -> String {
        let p = parse_in(parse, &fs, path);
        p.commands[0].command.clone()
    }

    const ONE: &str = r#"{"scripts":{"dev":"vite"}}"#;

    #[test]
    fn lock_file_beside_package_json_picks_the_runner() {
        let cases = [
            ("pnpm-lock.yaml", "pnpm run dev"),
            ("yarn.lock", "yarn dev"),
            ("bun.lockb", "bun run dev"),
            ("bun.lock", "bun run dev"),
            ("package-lock.json", "npm run dev"),
        ];
        for (lock, cmd) in cases {
            let fs = MemFs::new()
                .file("/w/app/package.json", ONE)
                .file(format!("/w/app/{lock}"), "");
            assert_eq!(runner_of(fs, "/w/app/package.json"), cmd, "{lock}");
        }
        let fs = MemFs::new().file("/w/package.json", ONE);
        assert_eq!(runner_of(fs, "/w/package.json"), "npm run dev");
    }

    #[test]
    fn nearest_lock_file_in_ancestors_wins_up_to_root() {
        let fs = MemFs::new()
            .file("/w/pnpm-lock.yaml", "")
            .file("/w/packages/ui/package.json", ONE);
        assert_eq!(runner_of(fs, "/w/packages/ui/package.json"), "pnpm run dev");
        let fs = MemFs::new()
            .file("/w/pnpm-lock.yaml", "")
            .file("/w/packages/yarn.lock", "")
            .file("/w/packages/ui/package.json", ONE);
        assert_eq!(runner_of(fs, "/w/packages/ui/package.json"), "yarn dev");
        // Outside the workspace root does not count.
        let fs = MemFs::new()
            .file("/yarn.lock", "")
            .file("/w/package.json", ONE);
        assert_eq!(runner_of(fs, "/w/package.json"), "npm run dev");
    }

    #[test]
    fn package_manager_field_when_no_lock_file() {
        let with = |pm: &str| format!(r#"{{"packageManager":"{pm}","scripts":{{"dev":"vite"}}}}"#);
        for (pm, cmd) in [
            ("pnpm@9.1.0", "pnpm run dev"),
            ("yarn@4.2.2+sha512.abc", "yarn dev"),
            ("bun@1.1.0", "bun run dev"),
            ("npm@10.2.0", "npm run dev"),
            ("deno@2", "npm run dev"),
        ] {
            let fs = MemFs::new().file("/w/package.json", &with(pm));
            assert_eq!(runner_of(fs, "/w/package.json"), cmd, "{pm}");
        }
        // A lock file beats the field.
        let fs = MemFs::new()
            .file("/w/package.json", &with("yarn@4.0.0"))
            .file("/w/pnpm-lock.yaml", "");
        assert_eq!(runner_of(fs, "/w/package.json"), "pnpm run dev");
        // A monorepo root's field applies to its packages.
        let fs = MemFs::new()
            .file("/w/package.json", &with("pnpm@9.0.0"))
            .file("/w/packages/a/package.json", ONE);
        assert_eq!(runner_of(fs, "/w/packages/a/package.json"), "pnpm run dev");
    }

    #[test]
    fn yarn_builtin_names_use_yarn_run() {
        let fs = MemFs::new()
            .file(
                "/w/package.json",
                r#"{"scripts":{"version":"changeset version","lint":"eslint ."}}"#,
            )
            .file("/w/yarn.lock", "");
        let p = parse_in(parse, &fs, "/w/package.json");
        let cmds: Vec<&str> = p.commands.iter().map(|c| c.command.as_str()).collect();
        assert_eq!(cmds, ["yarn run version", "yarn lint"]);
    }

    #[test]
    fn script_names_are_shell_quoted() {
        let p = parse_with(
            parse,
            "/w/package.json",
            r#"{"scripts":{"build:prod":"x","test watch":"y","it's":"z","$(rm)":"w"}}"#,
        );
        let cmds: Vec<&str> = p.commands.iter().map(|c| c.command.as_str()).collect();
        assert_eq!(
            cmds,
            [
                "npm run build:prod",
                "npm run 'test watch'",
                "npm run 'it'\\''s'",
                "npm run '$(rm)'"
            ]
        );
        assert_eq!(p.commands[1].id, "npm:/w/package.json:test watch");
        assert_eq!(p.commands[1].label, "test watch");
    }

    #[test]
    fn non_string_scripts_warn_and_are_skipped() {
        let p = parse_with(
            parse,
            "/w/package.json",
            "{\n  \"scripts\": {\n    \"a\": 1,\n    \"b\": \"echo b\",\n    \"c\": {\"x\": 1},\n    \"\": \"echo\"\n  }\n}",
        );
        assert_eq!(labels(&p), ["b"]);
        assert_eq!(
            warnings(&p),
            [
                (Some(3), "script `a` is not a string"),
                (Some(5), "script `c` is not a string"),
                (Some(6), "script with an empty name"),
            ]
        );
    }

    #[test]
    fn duplicate_keys_keep_first_position_and_last_value() {
        let p = parse_with(
            parse,
            "/w/package.json",
            "{\"scripts\":{\n\"a\":\"one\",\n\"b\":\"two\",\n\"a\":\"three\"}}",
        );
        assert_eq!(labels(&p), ["a", "b"]);
        assert_eq!(p.commands[0].description.as_deref(), Some("three"));
        assert_eq!(p.commands[0].line, Some(4));
    }

    #[test]
    fn empty_body_has_no_description() {
        let p = parse_with(parse, "/w/package.json", r#"{"scripts":{"noop":""}}"#);
        assert_eq!(p.commands[0].description, None);
    }

    #[test]
    fn no_scripts_gives_nothing() {
        for c in [
            r#"{"name":"x"}"#,
            r#"{"scripts":null}"#,
            r#"{"scripts":{}}"#,
        ] {
            let p = parse_with(parse, "/w/package.json", c);
            assert!(p.commands.is_empty() && p.warnings.is_empty(), "{c}");
        }
    }

    #[test]
    fn strict_json_only() {
        // package.json is strict JSON: comments and trailing commas are errors, as in npm.
        let p = parse_with(
            parse,
            "/w/package.json",
            "{\n  \"scripts\": {\n    \"a\": \"x\", // c\n  }\n}",
        );
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, Some(3));
    }

    #[test]
    fn malformed_files_warn_without_panicking() {
        let cases: &[(&str, Option<u32>, &str)] = &[
            (
                "{\n  \"scripts\": {\n    \"build\": \"tsc\"",
                Some(3),
                "invalid JSON",
            ),
            (
                "{\n  \"scripts\": [\"build\"]\n}",
                Some(2),
                "`scripts` is not an object",
            ),
            ("[1,2,3]", None, "the top level is not an object"),
            ("\u{7}\u{1}PK\u{3}\u{4}", Some(1), "invalid JSON"),
            ("", Some(1), "invalid JSON"),
        ];
        for (content, line, msg) in cases {
            let p = parse_with(parse, "/w/package.json", content);
            assert!(p.commands.is_empty(), "{content:?}");
            assert_one_warning(&p, *line, msg, content);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            "{{\"scripts\":{{\"a\":\"x\"}},\"x\":{}{}}}",
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        let p = parse_with(parse, "/w/package.json", &deep);
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
    }

    #[test]
    fn a_make_call_runs_what_the_target_runs_with_its_values() {
        // nvm: npm scripts pick a suite and call `make test-$shell`, whose rule (named by a
        // variable) runs urchin on every suite it is given.
        let makefile = "SHELLS := sh bash\n\
                        SHELL_TARGETS := $(addprefix test-,$(SHELLS))\n\
                        TEST_SUITE := $(shell find ./test/* -type d -prune -exec basename {} \\;)\n\
                        $(SHELL_TARGETS):\n\
                        \t@shell='$@'; for suite in $(TEST_SUITE); do \\\n\
                        \t\turchin -f -s $$shell test/$$suite || exit; \\\n\
                        \tdone\n\
                        lint:\n\
                        \teclint check\n";
        let pkg = r#"{"scripts": {
            "test": "shell=$(basename -- $SHELL); make test-$shell",
            "test/fast": "env -i TERM=\"$TERM\" bash -lc \"make TEST_SUITE=fast test-$shell\"",
            "test/slow": "make TEST_SUITE=slow test-$shell",
            "lint": "make lint"
        }}"#;
        let fs = MemFs::new()
            .file("/w/package.json", pkg)
            .file("/w/Makefile", makefile)
            .exe("/w/test/fast/a", "#!/bin/sh\n")
            .exe("/w/test/fast/Unit tests/b", "#!/bin/sh\n")
            .exe("/w/test/slow/c", "#!/bin/sh\n");
        let p = parse_in(parse, &fs, "/w/package.json");
        let files = |name: &str| -> Vec<String> {
            crate::sources::testing::step_refs(&p, name)
                .iter()
                .map(|s| match &s.scope {
                    crate::model::StepScope::File { kind, file } => {
                        format!("{kind} {}", file.display())
                    }
                    _ => s.name.clone(),
                })
                .collect()
        };
        assert_eq!(
            files("test"),
            [
                "shell /w/test/fast/Unit tests/b",
                "shell /w/test/fast/a",
                "shell /w/test/slow/c"
            ]
        );
        assert_eq!(
            files("test/fast"),
            ["shell /w/test/fast/Unit tests/b", "shell /w/test/fast/a"]
        );
        assert_eq!(files("test/slow"), ["shell /w/test/slow/c"]);
        // Values that change nothing: the target is a step of its own.
        assert_eq!(files("lint"), ["make /w/Makefile"]);
    }
}
