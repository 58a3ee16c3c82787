//! `composer.json` scripts (upstream §3.16): one command per script, lifecycle hooks left out.
//!
//! Composer itself only accepts strict JSON, so the file is read as strict JSON; its tree gives
//! the scripts in file order with their lines.

use super::common::with_line;
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::syntax::json::{self, Dialect};
use crate::text;
use serde_json::Value;

const KIND: &str = "composer";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let doc = match json::parse(file.content, Dialect::Strict) {
        Ok(doc) => doc,
        Err((line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let Some(root) = doc.object() else {
        return Parsed::with_warning(file.path, None, "composer.json is not an object");
    };
    let Some(scripts) = json::prop(root, "scripts") else {
        return Parsed::default();
    };
    let Some(scripts_obj) = scripts.value.as_object() else {
        return Parsed::with_warning(file.path, Some(doc.line(scripts)), "`scripts` is not a map");
    };
    let descriptions = json::prop(root, "scripts-descriptions")
        .map(|d| json::to_value(&d.value))
        .unwrap_or_default();

    let mut out = Parsed::default();
    for script in json::props(scripts_obj) {
        let name = script.name.as_str();
        let line = Some(doc.line(script));
        // Composer runs `pre-*`/`post-*` keys itself around its own commands (pre-install-cmd,
        // post-autoload-dump, ...); they are hooks, not commands a user starts.
        if name.starts_with("pre-") || name.starts_with("post-") {
            continue;
        }
        let preview = match json::to_value(&script.value) {
            Value::String(s) => text::truncate(&s, 60),
            Value::Array(items) => {
                let parts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                text::truncate(&parts.join(" && "), 60)
            }
            _ => {
                out.warn(
                    file.path,
                    line,
                    format!("script `{name}` is not a string or a list"),
                );
                continue;
            }
        };
        let description = descriptions
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
            .filter(|d| !d.trim().is_empty())
            .unwrap_or(preview);
        let command = format!("composer run-script {}", text::sh_word(name));
        let item = CommandItem::new(KIND, file.path, name, command).description(description);
        out.commands.push(with_line(item, line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    const PATH: &str = "/w/api/composer.json";

    fn parse(content: &str) -> Parsed {
        parse_with(super::parse, PATH, content)
    }

    const LARAVEL: &str = r#"{
    "name": "acme/api",
    "require": { "php": "^8.2" },
    "scripts": {
        "post-autoload-dump": [
            "Illuminate\\Foundation\\ComposerScripts::postAutoloadDump",
            "@php artisan package:discover --ansi"
        ],
        "post-root-package-install": "@php -r \"file_exists('.env') || copy('.env.example', '.env');\"",
        "pre-install-cmd": "echo pre",
        "test": "phpunit",
        "lint": ["phpcs src", "phpstan analyse --memory-limit=1G --no-progress src tests"],
        "cs:fix": "php-cs-fixer fix",
        "analyse": "phpstan"
    },
    "scripts-descriptions": {
        "test": "Run the unit tests",
        "analyse": "   "
    }
}
"#;

    #[test]
    fn scripts_in_file_order_without_lifecycle_hooks() {
        let p = parse(LARAVEL);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["test", "lint", "cs:fix", "analyse"]);
    }

    #[test]
    fn item_shape() {
        let p = parse(LARAVEL);
        let test = &p.commands[0];
        assert_eq!(test.id, "composer:/w/api/composer.json:test");
        assert_eq!(test.kind, "composer");
        assert_eq!(test.command, "composer run-script test");
        assert_eq!(test.cwd, "/w/api");
        assert_eq!(test.file_path, PATH);
        assert_eq!(test.line, Some(11));
        assert_eq!(p.commands[2].command, "composer run-script cs:fix");
    }

    #[test]
    fn description_from_scripts_descriptions() {
        let p = parse(LARAVEL);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Run the unit tests")
        );
    }

    #[test]
    fn description_preview_of_array_is_joined_and_truncated() {
        let p = parse(LARAVEL);
        let lint = &p.commands[1];
        let joined = "phpcs src && phpstan analyse --memory-limit=1G --no-progress src tests";
        assert_eq!(
            lint.description.as_deref(),
            Some(text::truncate(joined, 60).as_str())
        );
        assert_eq!(
            lint.description.as_deref().map(|d| d.chars().count()),
            Some(60)
        );
        assert!(lint.description.as_deref().unwrap_or("").ends_with("..."));
    }

    #[test]
    fn blank_scripts_description_falls_back_to_preview() {
        let p = parse(LARAVEL);
        assert_eq!(p.commands[3].description.as_deref(), Some("phpstan"));
    }

    #[test]
    fn every_pre_and_post_key_is_a_hook() {
        let p = parse(
            r#"{"scripts": {"pre-archive-cmd": "a", "post-archive-cmd": "b", "pre-status-cmd": "c",
            "post-status-cmd": "d", "post-create-project-cmd": "e", "pre-autoload-dump": "f",
            "post-update-cmd": "g", "prepare": "h", "poster": "i"}}"#,
        );
        assert_eq!(labels(&p), ["prepare", "poster"]);
    }

    #[test]
    fn empty_array_script_has_no_description() {
        let p = parse(r#"{"scripts": {"noop": []}}"#);
        assert_eq!(labels(&p), ["noop"]);
        assert_eq!(p.commands[0].description, None);
    }

    #[test]
    fn names_with_shell_characters_are_quoted() {
        let p = parse(r#"{"scripts": {"deploy prod": "dep deploy", "it's": "x"}}"#);
        assert_eq!(p.commands[0].command, "composer run-script 'deploy prod'");
        assert_eq!(p.commands[1].command, "composer run-script 'it'\\''s'");
    }

    #[test]
    fn no_scripts_no_commands() {
        let p = parse(r#"{"name": "acme/lib", "require": {}}"#);
        assert!(p.commands.is_empty());
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn comments_are_rejected_like_composer_does() {
        let p = parse("{\n  // nope\n  \"scripts\": {\"test\": \"phpunit\"}\n}");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].line, Some(2));
        assert!(p.warnings[0].message.starts_with("invalid JSON"));
    }

    #[test]
    fn truncated_file_warns() {
        let p = parse("{\n \"scripts\": {\"test\": \"phpunit\"");
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].message.starts_with("invalid JSON"));
    }

    #[test]
    fn wrong_types_warn() {
        let p = parse(r#"{"scripts": ["test"]}"#);
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings[0].message, "`scripts` is not a map");
        assert_eq!(p.warnings[0].line, Some(1));

        let p = parse("[1, 2]");
        assert_eq!(p.warnings[0].message, "composer.json is not an object");

        let p = parse(r#"{"scripts": {"bad": 42, "ok": "phpunit"}}"#);
        assert_eq!(labels(&p), ["ok"]);
        assert_eq!(
            p.warnings[0].message,
            "script `bad` is not a string or a list"
        );
    }

    /// Content as the parser would get it if a binary file slipped through (NUL bytes included,
    /// which `MemFs` refuses to hand out).
    fn parse_raw(content: &str) -> Parsed {
        let fs = crate::fs::MemFs::new();
        let file = SourceFile {
            path: std::path::Path::new(PATH),
            content,
            executable: false,
            root: std::path::Path::new("/w"),
            fs: &fs,
        };
        super::parse(&file)
    }

    #[test]
    fn garbage_does_not_panic() {
        for junk in [
            "",
            "\u{0}\u{1}\u{2}",
            "{\"scripts\": {\"é\u{301}\": ",
            "}}}}",
            "\u{feff}{",
        ] {
            let p = parse_raw(junk);
            assert!(p.commands.is_empty());
            assert_eq!(p.warnings.len(), 1, "{junk:?}");
        }
        let deep = "[".repeat(100_000);
        assert_eq!(parse_raw(&deep).warnings.len(), 1);
        let p = parse_raw("{\"scripts\":{\"a\":\"\u{7f}\u{0}\"}}");
        assert!(p.commands.len() <= 1);
    }
}
