//! C# scripts (`.csx`, run with `dotnet script`) and F# scripts (`.fsx`, run with `dotnet fsi`):
//! one item per file, described by its first comment.

use super::common::one_command;
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::text;

pub const CSX_KIND: &str = "csharp-script";
pub const FSX_KIND: &str = "fsharp-script";

pub fn parse_csx(file: &SourceFile<'_>) -> Parsed {
    item(file, CSX_KIND, "dotnet script", false)
}

pub fn parse_fsx(file: &SourceFile<'_>) -> Parsed {
    item(file, FSX_KIND, "dotnet fsi", true)
}

fn item(file: &SourceFile<'_>, kind: &str, runner: &str, fsharp: bool) -> Parsed {
    let command = format!("{runner} {}", text::quote_path(file.path));
    let item = CommandItem::new(kind, file.path, &file.file_name(), command)
        .opt_description(description(file.content, fsharp));
    one_command(item)
}

/// The first non-blank line when it is a comment (after an optional `#!` line): `// text`
/// (`/// text` too), or for F# the first line of a `(* ... *)` comment.
fn description(content: &str, fsharp: bool) -> Option<String> {
    // `dotnet script` accepts a shebang so the file can be made executable.
    let body = match content.strip_prefix("#!") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, after)| after),
        None => content,
    };
    let first = body.lines().map(str::trim).find(|l| !l.is_empty())?;
    if first.starts_with("//") {
        let text = text::first_line_comment(first, "//")?;
        let text = text.trim_start_matches('/').trim();
        return (!text.is_empty()).then(|| text.to_string());
    }
    // `(*)` is the multiplication operator as a value, not a comment.
    if fsharp && first.starts_with("(*") && !first.starts_with("(*)") {
        return block_comment(body);
    }
    None
}

/// The first non-empty line inside the leading `(* ... *)` comment.
fn block_comment(body: &str) -> Option<String> {
    let start = body.find("(*")?;
    let inner = body.get(start + 2..)?;
    let inner = inner.split_once("*)").map_or(inner, |(i, _)| i);
    inner
        .lines()
        .map(|l| l.trim().trim_start_matches('*').trim())
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    fn desc_csx(content: &str) -> Option<String> {
        parse_with(parse_csx, "/w/s.csx", content).commands[0]
            .description
            .clone()
    }

    fn desc_fsx(content: &str) -> Option<String> {
        parse_with(parse_fsx, "/w/s.fsx", content).commands[0]
            .description
            .clone()
    }

    #[test]
    fn csx_item() {
        let p = parse_with(
            parse_csx,
            "/w/tools/example.csx",
            "// C# script description\nConsole.WriteLine(1);\n",
        );
        assert!(p.warnings.is_empty());
        let c = &p.commands[0];
        assert_eq!(c.id, "csharp-script:/w/tools/example.csx:example.csx");
        assert_eq!(c.label, "example.csx");
        assert_eq!(c.kind, "csharp-script");
        assert_eq!(c.command, "dotnet script \"/w/tools/example.csx\"");
        assert_eq!(c.cwd, "/w/tools");
        assert_eq!(c.description.as_deref(), Some("C# script description"));
    }

    #[test]
    fn fsx_item() {
        let p = parse_with(
            parse_fsx,
            "/w/my tools/example.fsx",
            "// F# script description\nprintfn \"hi\"\n",
        );
        let c = &p.commands[0];
        assert_eq!(c.id, "fsharp-script:/w/my tools/example.fsx:example.fsx");
        assert_eq!(c.kind, "fsharp-script");
        assert_eq!(c.command, "dotnet fsi \"/w/my tools/example.fsx\"");
        assert_eq!(c.cwd, "/w/my tools");
        assert_eq!(c.description.as_deref(), Some("F# script description"));
    }

    #[test]
    fn first_line_comment_rules() {
        assert_eq!(desc_csx("\n\n// Hello\ncode").as_deref(), Some("Hello"));
        assert_eq!(desc_csx("//\ncode"), None);
        assert_eq!(desc_csx("code\n// later"), None);
        assert_eq!(desc_csx(""), None);
        assert_eq!(desc_csx("/// Doc comment").as_deref(), Some("Doc comment"));
        assert_eq!(
            desc_csx("#r \"nuget: Newtonsoft.Json, 13.0.1\"\n// late"),
            None
        );
    }

    #[test]
    fn shebang_is_skipped() {
        assert_eq!(
            desc_csx("#!/usr/bin/env dotnet-script\n// Seed the db\n").as_deref(),
            Some("Seed the db")
        );
        assert_eq!(
            desc_fsx("#!/usr/bin/env -S dotnet fsi\n\n// Report\n").as_deref(),
            Some("Report")
        );
        assert_eq!(desc_csx("#!/usr/bin/env dotnet-script"), None);
    }

    #[test]
    fn fsharp_block_comments() {
        assert_eq!(
            desc_fsx("(* Build helpers *)\nlet x = 1").as_deref(),
            Some("Build helpers")
        );
        assert_eq!(
            desc_fsx("(*\n   Generates the docs\n   site\n*)\n").as_deref(),
            Some("Generates the docs")
        );
        assert_eq!(desc_fsx("(**\n * Doc\n *)").as_deref(), Some("Doc"));
        assert_eq!(desc_fsx("(* *)\nlet x = 1"), None);
        assert_eq!(
            desc_fsx("(* unterminated\n").as_deref(),
            Some("unterminated")
        );
        // C# has no `(* *)` comments.
        assert_eq!(desc_csx("(* no *)"), None);
        assert_eq!(desc_fsx("(*) 2 3"), None);
    }

    #[test]
    fn garbage_never_panics() {
        for content in ["#!", "#!\u{fffd}", "(*", "(*)", "//\u{301}", "\u{1}\u{2}"] {
            assert_eq!(
                labels(&parse_with(parse_fsx, "/w/g.fsx", content)),
                vec!["g.fsx"]
            );
            assert_eq!(
                labels(&parse_with(parse_csx, "/w/g.csx", content)),
                vec!["g.csx"]
            );
        }
    }
}
