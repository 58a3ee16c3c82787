//! Apache Ant targets from `build.xml`: every top-level `<target>` and `<extension-point>` (both
//! can be named on the command line). The project's `default` target is marked in its
//! description: `Compile everything (default)`, or `Default target` when it has none.
//!
//! Targets whose name starts with `-` are Ant's convention for internal targets: the command
//! line cannot name them (`ant -init` is read as an option), so they are not listed. Targets
//! brought in by `<import>`/`<include>` or external entities live in other files and are not
//! listed here.

use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::text::{LineIndex, sh_word};

const KIND: &str = "ant";

struct Target {
    name: String,
    description: Option<String>,
    line: usize,
}

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let mut out = Parsed::default();
    let (targets, default) = match parse_xml(file.content) {
        Ok(found) => found,
        Err(XmlError::Syntax(line, msg)) => {
            // Keep what a plain scan of the start tags still finds in a broken file.
            out.warn(file.path, line, msg);
            scan_tags(file.content)
        }
        Err(XmlError::NotAnt(line, msg)) => return Parsed::with_warning(file.path, line, msg),
    };
    let prefix = if file.file_name() == "build.xml" {
        "ant".to_string()
    } else {
        format!("ant -f {}", sh_word(&file.file_name()))
    };
    let mut seen = std::collections::HashSet::new();
    for t in targets {
        if t.name.is_empty() || t.name.starts_with('-') || !seen.insert(t.name.clone()) {
            continue;
        }
        let is_default = default.as_deref() == Some(t.name.as_str());
        let description = match (t.description, is_default) {
            (Some(d), true) => Some(format!("{d} (default)")),
            (None, true) => Some("Default target".to_string()),
            (d, false) => d,
        };
        out.commands.push(
            CommandItem::new(
                KIND,
                file.path,
                &t.name,
                format!("{prefix} {}", sh_word(&t.name)),
            )
            .opt_description(description)
            .line(t.line),
        );
    }
    out
}

type Found = (Vec<Target>, Option<String>);

enum XmlError {
    Syntax(Option<usize>, String),
    NotAnt(Option<usize>, String),
}

fn parse_xml(content: &str) -> Result<Found, XmlError> {
    // External entities (`<!ENTITY common SYSTEM "common.xml">`) expand to nothing: they are
    // other files, and reading them here would let a build file pull in arbitrary paths.
    let resolver = |_: Option<&str>, _: &str| Ok(Some(""));
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        entity_resolver: Some(&resolver),
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(content, opts)
        .map_err(|e| XmlError::Syntax(Some(e.pos().row as usize), format!("invalid XML: {e}")))?;
    let lines = LineIndex::new(content);
    let project = doc.root_element();
    if project.tag_name().name() != "project" {
        return Err(XmlError::NotAnt(
            Some(lines.line(project.range().start)),
            format!(
                "root element is <{}>, not <project>",
                project.tag_name().name()
            ),
        ));
    }
    let targets = project
        .children()
        .filter(|n| n.is_element() && matches!(n.tag_name().name(), "target" | "extension-point"))
        .filter_map(|n| {
            Some(Target {
                name: n.attribute("name")?.trim().to_string(),
                description: n
                    .attribute("description")
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .map(str::to_string),
                line: lines.line(n.range().start),
            })
        })
        .collect();
    let default = project.attribute("default").map(|d| d.trim().to_string());
    Ok((targets, default))
}

/// Upstream's scan: every `<target` start tag up to the next `>`, attributes in either quote.
fn scan_tags(content: &str) -> Found {
    let lines = LineIndex::new(content);
    let mut targets = Vec::new();
    let mut default = None;
    let mut rest = content;
    let mut offset = 0;
    while let Some(pos) = rest.find('<') {
        let after = &rest[pos + 1..];
        // A start tag cannot hold a raw `<`, so stopping there keeps tags disjoint and the scan
        // linear even when `>` never comes.
        let tag_end = after.find(['<', '>']).unwrap_or(after.len());
        let tag = &after[..tag_end];
        let name_end = tag
            .find(|c: char| c.is_whitespace() || c == '/')
            .unwrap_or(tag.len());
        match &tag[..name_end] {
            "target" | "extension-point" => {
                if let Some(name) = attr(tag, "name") {
                    targets.push(Target {
                        name: name.trim().to_string(),
                        description: attr(tag, "description")
                            .map(|d| d.trim().to_string())
                            .filter(|d| !d.is_empty()),
                        line: lines.line(offset + pos),
                    });
                }
            }
            "project" if default.is_none() => {
                default = attr(tag, "default").map(|d| d.trim().to_string())
            }
            _ => {}
        }
        offset += pos + 1;
        rest = after;
    }
    (targets, default)
}

/// The value of attribute `name` in the text of a start tag.
fn attr(tag: &str, name: &str) -> Option<String> {
    let mut search = tag;
    while let Some(pos) = search.find(name) {
        let before_ok = search[..pos]
            .chars()
            .next_back()
            .is_some_and(char::is_whitespace);
        let after = search[pos + name.len()..].trim_start();
        if before_ok && let Some(val) = after.strip_prefix('=') {
            let val = val.trim_start();
            let quote = val.chars().next().filter(|q| *q == '"' || *q == '\'')?;
            let body = &val[1..];
            let end = body.find(quote)?;
            return Some(body[..end].to_string());
        }
        search = &search[pos + name.len()..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{labels, parse_with};

    const BUILD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<project name="MyProject" default="dist" basedir=".">
  <description>simple example build file</description>
  <property name="src" location="src"/>

  <target name="init">
    <tstamp/>
  </target>

  <target name="compile" depends="init" description="compile the source">
    <javac srcdir="${src}" destdir="build"/>
  </target>

  <target name="dist" depends="compile"
          description="generate the distribution">
    <jar jarfile="dist/lib/MyProject.jar" basedir="build"/>
  </target>

  <target name="-private-setup"/>
  <extension-point name="ready" depends="compile"/>
  <target name='clean up' description=''/>
  <target name="compile" description="duplicate"/>
</project>
"#;

    #[test]
    fn targets_descriptions_lines_and_default() {
        let p = parse_with(parse, "/w/build.xml", BUILD);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["init", "compile", "dist", "ready", "clean up"]);
        let c = &p.commands;
        assert_eq!(c[0].id, "ant:/w/build.xml:init");
        assert_eq!(c[0].command, "ant init");
        assert_eq!(c[0].description, None);
        assert_eq!(c[0].line, Some(6));
        assert_eq!(c[1].description.as_deref(), Some("compile the source"));
        assert_eq!(c[1].line, Some(10));
        assert_eq!(
            c[2].description.as_deref(),
            Some("generate the distribution (default)")
        );
        assert_eq!(c[2].line, Some(14));
        assert_eq!(c[4].command, "ant 'clean up'");
        assert_eq!(c[4].description, None);
        assert_eq!(c[4].cwd, "/w");
    }

    #[test]
    fn default_without_description() {
        let p = parse_with(
            parse,
            "/w/lib/build.xml",
            "<project default=\"all\"><target name=\"all\"/><target name=\"x\"/></project>",
        );
        assert_eq!(p.commands[0].description.as_deref(), Some("Default target"));
        assert_eq!(p.commands[1].description, None);
        assert_eq!(p.commands[0].cwd, "/w/lib");
    }

    #[test]
    fn other_file_name_uses_dash_f() {
        let p = parse_with(
            parse,
            "/w/ci-build.xml",
            "<project><target name=\"ci\"/></project>",
        );
        assert_eq!(p.commands[0].command, "ant -f ci-build.xml ci");
    }

    #[test]
    fn nested_targets_are_not_targets() {
        let p = parse_with(
            parse,
            "/w/build.xml",
            "<project><target name=\"a\"><antcall target=\"b\"/></target><macrodef name=\"m\"><sequential><target name=\"no\"/></sequential></macrodef></project>",
        );
        assert_eq!(labels(&p), ["a"]);
    }

    #[test]
    fn doctype_with_external_entity_still_parses() {
        let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE project [\n  <!ENTITY common SYSTEM \"common.xml\">\n]>\n<project default=\"b\">\n  &common;\n  <target name=\"b\"/>\n</project>\n";
        let p = parse_with(parse, "/w/build.xml", text);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(labels(&p), ["b"]);
        assert_eq!(p.commands[0].line, Some(7));
    }

    #[test]
    fn truncated_xml_warns_and_keeps_scanned_targets() {
        let text = "<project default=\"build\">\n<target name=\"build\" description=\"Build it\">\n<javac/>\n</target>\n<target name=\"test\"";
        let p = parse_with(parse, "/w/build.xml", text);
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].message.starts_with("invalid XML"));
        assert!(p.warnings[0].line.is_some());
        assert_eq!(labels(&p), ["build", "test"]);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Build it (default)")
        );
        assert_eq!(p.commands[1].line, Some(5));
    }

    #[test]
    fn unterminated_tags_scan_in_linear_time() {
        let text = "<target name=\"a\" ".repeat(50_000);
        let p = parse_with(parse, "/w/build.xml", &text);
        assert_eq!(labels(&p), ["a"]);
        let p = parse_with(parse, "/w/build.xml", &"<".repeat(500_000));
        assert!(p.commands.is_empty());
    }

    #[test]
    fn wrong_root_and_garbage() {
        let p = parse_with(
            parse,
            "/w/build.xml",
            "<configuration><target name=\"x\"/></configuration>",
        );
        assert_eq!(
            p.warnings[0].message,
            "root element is <configuration>, not <project>"
        );
        assert!(p.commands.is_empty());
        let p = parse_with(
            parse,
            "/w/build.xml",
            "\u{1}\u{FFFD}<<<é name=\"x\"<target name=",
        );
        assert_eq!(p.warnings.len(), 1);
        assert!(p.commands.is_empty());
        let p = parse_with(parse, "/w/build.xml", "");
        assert_eq!(p.warnings.len(), 1);
    }
}
