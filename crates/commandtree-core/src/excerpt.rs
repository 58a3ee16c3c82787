//! The text that defines one command, cut out of the file that holds it: the npm script body,
//! the make rule, the just recipe, the Taskfile task, the Compose service. Summaries hash and
//! send this text, so editing one target re-summarizes only that target, and the model reads the
//! definition rather than the whole file.
//!
//! Files that are one command (scripts, Markdown, project files) and commands whose definition
//! cannot be located give the whole file.
//!
//! An included command (a make `include`, a just `import`, an included Taskfile) is cut out of
//! the file that defines it ([`CommandItem::definition_path`], read with [`read_definition`]),
//! not out of the file it is listed on.

use crate::fs::ReadError;
use crate::model::CommandItem;
use std::borrow::Cow;

/// What `command_text` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandText<'a> {
    pub text: Cow<'a, str>,
    /// The whole file, not a part of it.
    pub whole_file: bool,
}

impl<'a> CommandText<'a> {
    fn whole(content: &'a str) -> Self {
        CommandText {
            text: Cow::Borrowed(content),
            whole_file: true,
        }
    }
}

/// The text of the file that holds `item`'s definition ([`CommandItem::definition_path`]), read
/// as discovery reads files: regular files only, at most 1 MiB, not binary. An included file
/// is read only while its real path is inside the workspace root it was found under, so a file
/// swapped for a link after discovery is never read.
pub fn read_definition(item: &CommandItem) -> Result<String, ReadError> {
    match &item.defined_in {
        Some(d) => {
            let root = std::fs::canonicalize(&d.root).unwrap_or_else(|_| d.root.clone());
            if !crate::fs::real_path_inside(&root, &d.file) {
                return Err(ReadError::OutsideRoot);
            }
            crate::fs::read_file(&d.file)
        }
        None if item.file_path.is_empty() => Err(ReadError::Io("no file".into())),
        None => crate::fs::read_file(item.path()),
    }
}

/// The text of `item`'s own definition, read with [`read_definition`]; `None` when its file
/// cannot be read.
pub fn definition_text(item: &CommandItem) -> Option<(String, bool)> {
    let content = read_definition(item).ok()?;
    let t = command_text(item, &content);
    Some((t.text.into_owned(), t.whole_file))
}

/// The part of `content` (the text of [`CommandItem::definition_path`]) that defines `item`.
pub fn command_text<'a>(item: &CommandItem, content: &'a str) -> CommandText<'a> {
    Excerpts::new(content).of(item)
}

/// [`command_text`] for several commands of one file: a JSON file (a `package.json` with fifty
/// scripts) is parsed once, not once per command.
pub struct Excerpts<'a> {
    content: &'a str,
    json: std::cell::OnceCell<Option<serde_json::Value>>,
}

impl<'a> Excerpts<'a> {
    pub fn new(content: &'a str) -> Self {
        Excerpts {
            content,
            json: std::cell::OnceCell::new(),
        }
    }

    /// The part of the file that defines `item`, as [`command_text`].
    pub fn of(&self, item: &CommandItem) -> CommandText<'a> {
        let content = self.content;
        // An AI definition is its whole file (one per file, front matter included).
        if item.command_type().is_some_and(|t| t.is_ai_definition()) {
            return CommandText::whole(content);
        }
        // A dispatched workflow runs all its jobs: its text is the file, not the trigger the
        // item points at.
        if item.command_type() == Some(crate::CommandType::Workflow) {
            return CommandText::whole(content);
        }
        let json = || {
            self.json
                .get_or_init(|| crate::text::parse_jsonc(content).ok())
                .as_ref()
        };
        if let Some(text) = keyed_json(item, json) {
            return CommandText {
                text: Cow::Owned(text),
                whole_file: false,
            };
        }
        let Some(line) = item
            .definition_line()
            .map(|l| l as usize)
            .filter(|&l| l >= 1)
        else {
            return CommandText::whole(content);
        };
        let Some(start) = line_start(content, line) else {
            return CommandText::whole(content);
        };
        let syntax = Syntax::of(&item.definition_path().to_string_lossy());
        let end = match syntax {
            Syntax::Json => balanced_end(content, start, Quotes::Json),
            Syntax::Braces => balanced_end(content, start, Quotes::Groovy),
            Syntax::Toml => toml_end(content, start),
            Syntax::Xml => xml_end(content, start),
            Syntax::Indent | Syntax::Ruby => indent_end(content, start, syntax == Syntax::Ruby),
        };
        let begin = leading_notes(content, start, syntax);
        let text = content[begin..end].trim_end();
        if text.trim().is_empty() {
            return CommandText::whole(content);
        }
        CommandText {
            text: Cow::Borrowed(text),
            whole_file: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Json,
    /// Gradle (Groovy, Kotlin): `task x { ... }`.
    Braces,
    Toml,
    Xml,
    /// Rake: `task :x do ... end`.
    Ruby,
    /// Makefiles, justfiles, YAML, Procfiles: a definition line and the lines indented under it.
    Indent,
}

impl Syntax {
    fn of(path: &str) -> Syntax {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let lower = name.to_ascii_lowercase();
        let ext = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        match ext {
            "json" | "jsonc" => Syntax::Json,
            "gradle" | "kts" => Syntax::Braces,
            // An INI section ends where the next header starts, as a TOML table does.
            "toml" | "ini" => Syntax::Toml,
            "xml" | "csproj" | "fsproj" | "vbproj" | "props" | "targets" => Syntax::Xml,
            "rb" | "rake" => Syntax::Ruby,
            _ if lower == "rakefile" => Syntax::Ruby,
            _ => Syntax::Indent,
        }
    }
}

/// npm and Composer scripts and Deno tasks by key. npm's `pre`/`post` scripts are not part of
/// the text: they are steps of the script (`CommandItem::steps`), analysed and named as such.
fn keyed_json<'j>(
    item: &CommandItem,
    json: impl FnOnce() -> Option<&'j serde_json::Value>,
) -> Option<String> {
    let section = match item.kind.as_str() {
        "npm" | "composer" => "scripts",
        "deno" => "tasks",
        _ => return None,
    };
    let name = item.id_name();
    let v = json()?.get(section)?.as_object()?.get(name)?;
    let key = serde_json::to_string(name).ok()?;
    let v = serde_json::to_string(v).ok()?;
    Some(format!("{key}: {v}\n"))
}

/// Byte offset where 1-based `line` starts.
fn line_start(content: &str, line: usize) -> Option<usize> {
    if line == 1 {
        return Some(0);
    }
    content
        .match_indices('\n')
        .nth(line - 2)
        .map(|(i, _)| i + 1)
        .filter(|&i| i < content.len())
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// The comments, just attributes and rake `desc` lines directly above a definition: they
/// describe it, so they belong to its text.
fn leading_notes(content: &str, start: usize, syntax: Syntax) -> usize {
    let first = content[start..].lines().next().unwrap_or("");
    let indent = indent_of(first);
    let mut begin = start;
    while begin > 0 {
        let prev_start = content[..begin - 1].rfind('\n').map_or(0, |i| i + 1);
        let prev = &content[prev_start..begin - 1];
        let t = prev.trim_start();
        let note = match syntax {
            Syntax::Json | Syntax::Xml => false,
            Syntax::Braces => t.starts_with("//") || t.starts_with('*') || t.starts_with("/*"),
            Syntax::Ruby => t.starts_with('#') || t.starts_with("desc ") || t.starts_with("desc("),
            Syntax::Toml => t.starts_with('#'),
            Syntax::Indent => t.starts_with('#') || (t.starts_with('[') && t.ends_with(']')),
        };
        if !note || indent_of(prev) != indent {
            break;
        }
        begin = prev_start;
    }
    begin
}

/// End of the block that starts at `start`: the first line, any line continued with `\`, and
/// the blank or more indented lines below it (for Ruby also the closing `end`).
fn indent_end(content: &str, start: usize, ruby: bool) -> usize {
    let mut lines = content[start..].split_inclusive('\n');
    let Some(first) = lines.next() else {
        return content.len();
    };
    let indent = indent_of(first);
    let mut end = start + first.len();
    let mut continued = first.trim_end().ends_with('\\');
    for l in lines {
        let t = l.trim();
        if continued || t.is_empty() || indent_of(l) > indent {
            end += l.len();
            continued = l.trim_end().ends_with('\\');
            continue;
        }
        if ruby && t == "end" && indent_of(l) == indent {
            end += l.len();
        }
        break;
    }
    end
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quotes {
    /// `"` strings with escapes, `//` and `/* */` comments (JSONC).
    Json,
    /// `"` and `'` strings, triple-quoted ones, `//` and `/* */` comments.
    Groovy,
    /// `"` and `'` strings, triple-quoted ones, `#` comments.
    Toml,
}

/// End of the value that starts on the line at `start`: that line, and when it opens brackets,
/// the lines up to the one that closes them. Stops early at a bracket closing an outer value.
fn balanced_end(content: &str, start: usize, quotes: Quotes) -> usize {
    let b = content.as_bytes();
    let mut depth: i32 = 0;
    let mut i = start;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' if depth <= 0 => return i,
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                depth -= 1;
                if depth < 0 {
                    return i;
                }
            }
            b'"' | b'\'' if c == b'"' || quotes != Quotes::Json => {
                i = string_end(b, i, quotes);
                continue;
            }
            b'/' if quotes != Quotes::Toml && b.get(i + 1) == Some(&b'/') => {
                i = memchr(b, i, b'\n');
                continue;
            }
            b'/' if quotes != Quotes::Toml && b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |j| j + 2);
                continue;
            }
            b'#' if quotes == Quotes::Toml => {
                i = memchr(b, i, b'\n');
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Index just past the string literal opening at `i`.
fn string_end(b: &[u8], i: usize, quotes: Quotes) -> usize {
    let q = b[i];
    if quotes != Quotes::Json && b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q) {
        let close = [q, q, q];
        return find(b, i + 3, &close).map_or(b.len(), |j| j + 3);
    }
    let literal = quotes == Quotes::Toml && q == b'\'';
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if !literal => j += 2,
            b'\n' => return j,
            c if c == q => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

fn memchr(b: &[u8], from: usize, c: u8) -> usize {
    b[from..]
        .iter()
        .position(|&x| x == c)
        .map_or(b.len(), |p| from + p)
}

fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= b.len() {
        return None;
    }
    b[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// A `[table]` header runs to the next header; a `key = value` line to the end of its value.
fn toml_end(content: &str, start: usize) -> usize {
    let first = content[start..].lines().next().unwrap_or("");
    if !first.trim_start().starts_with('[') {
        return balanced_end(content, start, Quotes::Toml);
    }
    let mut end = start;
    let mut in_multiline = false;
    for (n, l) in content[start..].split_inclusive('\n').enumerate() {
        let t = l.trim_start();
        let header = t.starts_with('[')
            && t[1..]
                .trim_start_matches('[')
                .starts_with(|c: char| c.is_alphanumeric() || matches!(c, '"' | '\'' | '_'));
        if n > 0 && header && !in_multiline {
            break;
        }
        if (l.matches("\"\"\"").count() + l.matches("\'\'\'").count()) % 2 == 1 {
            in_multiline = !in_multiline;
        }
        end += l.len();
    }
    end
}

/// The XML element whose start tag is the first tag on the line at `start`.
fn xml_end(content: &str, start: usize) -> usize {
    let b = content.as_bytes();
    let Some(open) = content[start..].find('<').map(|p| start + p) else {
        return content[start..].find('\n').map_or(b.len(), |p| start + p);
    };
    let mut depth = 0i32;
    let mut i = open;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        if content[i..].starts_with("<!--") {
            i = find(b, i + 4, b"-->").map_or(b.len(), |j| j + 3);
            continue;
        }
        if content[i..].starts_with("<![CDATA[") {
            i = find(b, i + 9, b"]]>").map_or(b.len(), |j| j + 3);
            continue;
        }
        let closing = b.get(i + 1) == Some(&b'/');
        let special = matches!(b.get(i + 1), Some(b'?' | b'!'));
        // Find the tag's `>`, skipping quoted attribute values.
        let mut j = i + 1;
        let mut quote = None;
        while j < b.len() {
            match (quote, b[j]) {
                (None, b'"' | b'\'') => quote = Some(b[j]),
                (Some(q), c) if c == q => quote = None,
                (None, b'>') => break,
                _ => {}
            }
            j += 1;
        }
        let self_closing = j > 0 && b.get(j - 1) == Some(&b'/');
        i = (j + 1).min(b.len());
        if special {
            continue;
        }
        if closing {
            depth -= 1;
        } else if !self_closing {
            depth += 1;
        }
        if depth <= 0 {
            return i;
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn text(kind: &str, file: &str, name: &str, line: Option<usize>, content: &str) -> String {
        let mut item = CommandItem::new(kind, Path::new(file), name, name);
        if let Some(l) = line {
            item = item.line(l);
        }
        let t = command_text(&item, content);
        assert_eq!(t.whole_file, t.text == content, "{t:?}");
        t.text.into_owned()
    }

    #[test]
    fn npm_script_without_its_hooks() {
        // `prebuild` is a step of `build` (see `sources::npm`), not part of its text.
        let pkg = r#"{"scripts": {"prebuild": "rm -rf dist", "build": "tsc", "test": "jest"}}"#;
        assert_eq!(
            text("npm", "/w/package.json", "build", Some(1), pkg),
            "\"build\": \"tsc\"\n"
        );
        assert_eq!(
            text("npm", "/w/package.json", "test", None, pkg),
            "\"test\": \"jest\"\n"
        );
    }

    #[test]
    fn make_rule_with_its_comment_and_recipe() {
        let mk = "CC := gcc\n\n# Build it\nbuild: deps \\\n  more\n\techo a\n\n\techo b\n\ntest:\n\techo t\n";
        assert_eq!(
            text("make", "/w/Makefile", "build", Some(4), mk),
            "# Build it\nbuild: deps \\\n  more\n\techo a\n\n\techo b"
        );
        assert_eq!(
            text("make", "/w/Makefile", "test", Some(10), mk),
            "test:\n\techo t"
        );
    }

    #[test]
    fn just_recipe_with_attributes() {
        let j = "set shell := [\"bash\"]\n\n[private]\n# helper\nhelp:\n    just --list\n\nbuild:\n    cargo build\n";
        assert_eq!(
            text("just", "/w/justfile", "help", Some(5), j),
            "[private]\n# helper\nhelp:\n    just --list"
        );
    }

    #[test]
    fn yaml_task_block() {
        let y = "version: '3'\ntasks:\n  build:\n    cmds:\n      - go build\n  test:\n    cmds: [go test]\n";
        assert_eq!(
            text("taskfile", "/w/Taskfile.yml", "build", Some(3), y),
            "  build:\n    cmds:\n      - go build"
        );
    }

    #[test]
    fn json_objects_and_one_line_values() {
        let t = "{\n  \"tasks\": [\n    {\n      \"label\": \"a}\",\n      \"command\": \"x\"\n    },\n    {\"label\": \"b\"}\n  ]\n}\n";
        assert_eq!(
            text("vscode", "/w/.vscode/tasks.json", "a", Some(3), t),
            "    {\n      \"label\": \"a}\",\n      \"command\": \"x\"\n    },"
        );
        assert_eq!(
            text("vscode", "/w/.vscode/tasks.json", "b", Some(7), t),
            "    {\"label\": \"b\"}"
        );
    }

    #[test]
    fn toml_tables_and_keys() {
        let m = "[tools]\nnode = \"20\"\n\n[tasks.build]\nrun = \"\"\"\n[not a header]\n\"\"\"\n\n[tasks.test]\nrun = 'x'\n";
        assert_eq!(
            text("mise", "/w/mise.toml", "build", Some(4), m),
            "[tasks.build]\nrun = \"\"\"\n[not a header]\n\"\"\""
        );
        let p = "[project.scripts]\nserve = \"app:main\"\ncli = [\n  \"a\",\n]\n";
        assert_eq!(
            text("pyproject", "/w/pyproject.toml", "serve", Some(2), p),
            "serve = \"app:main\""
        );
        assert_eq!(
            text("pyproject", "/w/pyproject.toml", "cli", Some(3), p),
            "cli = [\n  \"a\",\n]"
        );
    }

    #[test]
    fn xml_element() {
        let x = "<project>\n  <target name=\"a\" depends=\"b\">\n    <echo msg=\"a > b\"/>\n    <!-- </target> -->\n  </target>\n  <target name=\"b\"/>\n</project>\n";
        assert_eq!(
            text("ant", "/w/build.xml", "a", Some(2), x),
            "  <target name=\"a\" depends=\"b\">\n    <echo msg=\"a > b\"/>\n    <!-- </target> -->\n  </target>"
        );
        assert_eq!(
            text("ant", "/w/build.xml", "b", Some(6), x),
            "  <target name=\"b\"/>"
        );
    }

    #[test]
    fn rake_task_with_desc_and_end() {
        let r = "desc 'Migrate'\ntask :migrate do\n  sh 'x'\nend\n\ntask :other\n";
        assert_eq!(
            text("rake", "/w/Rakefile", "migrate", Some(2), r),
            "desc 'Migrate'\ntask :migrate do\n  sh 'x'\nend"
        );
    }

    #[test]
    fn gradle_braces() {
        let g = "plugins { id 'java' }\n// Say hi\ntask hello {\n  doLast { println '}' }\n}\ntask other\n";
        assert_eq!(
            text("gradle", "/w/build.gradle", "hello", Some(3), g),
            "// Say hi\ntask hello {\n  doLast { println '}' }\n}"
        );
    }

    #[test]
    fn scripts_and_unknown_lines_are_the_whole_file() {
        let s = "#!/bin/sh\necho hi\n";
        assert_eq!(text("shell", "/w/a.sh", "a.sh", None, s), s);
        assert_eq!(text("make", "/w/Makefile", "x", Some(99), s), s);
    }
}
