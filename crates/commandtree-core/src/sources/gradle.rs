//! Gradle tasks from `build.gradle` / `build.gradle.kts`, read statically (asking Gradle would
//! run the build script). Found: `tasks.register("x")` / `tasks.create("x")` (with or without
//! a type, Groovy or Kotlin), Kotlin `val x by tasks.registering`, and the `task` declaration
//! forms (`task x`, `task x(type: Copy)`, `task('x')`, `task "x"`, `task<Copy>("x")`) where
//! `task` is a whole word starting a statement. Comments are blanked first, so commented-out
//! tasks stay out. A `description` set in the task's arguments or block becomes the item's
//! description. The lifecycle tasks most builds have (`build`, `clean`, `test`, `assemble`,
//! `check`) are appended when not declared (no `test` for a `java-platform` project), `tasks`
//! only on the root project (a `settings.gradle` beside it, or none above), not per module.
//! Plugins applied in `plugins { }` or by `apply plugin:` add the tasks users run daily
//! (`spotless` → `spotlessApply`/`spotlessCheck`, `application` → `run`, ...; see `PLUGIN_TASKS`).
//!
//! Command: `./gradlew NAME` when the wrapper is beside the build file, `../gradlew NAME` (the
//! relative path) when it is in an ancestor folder up to the workspace root, else
//! `gradle NAME`; always run from the build file's folder. Gradle resolves task names against
//! the project of the current folder, so a subproject's tasks run for that subproject.

use super::common::wrapper_command;
use super::{Parsed, SourceFile};
use crate::model::CommandItem;
use crate::text::{LineIndex, sh_word};

const KIND: &str = "gradle";

const STANDARD: &[(&str, &str)] = &[
    ("build", "Assembles and tests this project"),
    ("clean", "Deletes the build directory"),
    ("test", "Runs the tests"),
    ("assemble", "Assembles the outputs of this project"),
    ("check", "Runs all checks"),
    ("tasks", "Displays the tasks runnable from this project"),
];

/// Tasks a plugin adds that people run by hand: (a fragment of the plugin id or catalog alias,
/// normalised to lowercase without `-`, `.`, `_`; the tasks).
const PLUGIN_TASKS: &[(&str, &[(&str, &str)])] = &[
    (
        "spotless",
        &[
            ("spotlessApply", "Applies code formatting (Spotless)"),
            ("spotlessCheck", "Checks code formatting (Spotless)"),
        ],
    ),
    (
        "binarycompatibility",
        &[
            ("apiDump", "Dumps the public API to the .api file"),
            ("apiCheck", "Checks the public API against the .api file"),
        ],
    ),
    (
        "ktlint",
        &[
            ("ktlintCheck", "Checks Kotlin code style (ktlint)"),
            ("ktlintFormat", "Formats Kotlin code (ktlint)"),
        ],
    ),
    ("detekt", &[("detekt", "Runs detekt static analysis")]),
    (
        "springframeworkboot",
        &[("bootRun", "Runs the Spring Boot application")],
    ),
    (
        "shadow",
        &[("shadowJar", "Builds a fat JAR with dependencies")],
    ),
    (
        "jacoco",
        &[("jacocoTestReport", "Generates the code coverage report")],
    ),
    (
        "benmanesversions",
        &[(
            "dependencyUpdates",
            "Lists dependencies that have newer versions",
        )],
    ),
    (
        "mavenpublish",
        &[(
            "publishToMavenLocal",
            "Publishes to the local Maven repository",
        )],
    ),
];

/// The plugins a build file applies, normalised (lowercase, without `-`, `.`, `_`, quotes):
/// the words inside `plugins { }` and of `apply plugin:` / `apply(plugin = ...)` lines.
fn applied_plugins(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let norm = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    let mut rest = text;
    while let Some(i) = rest.find("plugins") {
        let before_ok = rest[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !is_ident(c) && c != '.');
        let after = rest[i + 7..].trim_start();
        if before_ok && after.starts_with('{') {
            let body = &after[1..];
            let mut end = body.find('}').unwrap_or(body.len()).min(MAX_LITERAL * 4);
            while !body.is_char_boundary(end) {
                end -= 1;
            }
            for line in body[..end].lines() {
                for stmt in line.split(';') {
                    let stmt = stmt.trim();
                    // `id("x") apply false` only puts the plugin on the classpath.
                    let declared_only =
                        stmt.contains("apply false") || stmt.contains("apply(false)");
                    if !stmt.is_empty() && !declared_only {
                        found.push(norm(stmt.split(" version").next().unwrap_or(stmt)));
                    }
                }
            }
        }
        rest = &rest[i + 7..];
    }
    for line in text.lines() {
        let t = line.trim();
        if let Some(r) = t.strip_prefix("apply") {
            let r = r.trim_start_matches(['(', ' ']);
            if let Some(v) = r.strip_prefix("plugin") {
                found.push(norm(v.trim_start_matches([':', '=', ' '])));
            }
        }
    }
    found
}

/// How far past a declaration to look for its `description`, and how much looking a whole file
/// may do: bounds the work on hostile input (thousands of unclosed blocks).
const BLOCK_SCAN_LIMIT: usize = 20_000;
const FILE_SCAN_BUDGET: usize = 4_000_000;
/// Longest string literal or type argument list read; task names and descriptions are short.
const MAX_LITERAL: usize = 4096;

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let gradle = wrapper_command(file, "gradlew").unwrap_or_else(|| "gradle".to_string());
    let text = blank_comments(file.content);
    let lines = LineIndex::new(&text);
    let mut out = Parsed::default();
    let mut seen = std::collections::HashSet::new();
    for decl in declarations(&text) {
        if decl.name.is_empty() || !seen.insert(decl.name.clone()) {
            continue;
        }
        out.commands.push(
            CommandItem::new(
                KIND,
                file.path,
                &decl.name,
                format!("{gradle} {}", sh_word(&decl.name)),
            )
            .opt_description(decl.description)
            .line(lines.line(decl.pos)),
        );
    }
    let plugins = applied_plugins(&text);
    let has = |p: &str| {
        plugins
            .iter()
            .any(|x| x == p || x.ends_with(&format!("id{p}")))
    };
    let mut extra: Vec<(&str, &str)> = Vec::new();
    if has("application") {
        extra.push(("run", "Runs this project as a JVM application"));
    }
    for (fragment, tasks) in PLUGIN_TASKS {
        if plugins.iter().any(|p| p.contains(fragment)) {
            extra.extend_from_slice(tasks);
        }
    }
    let platform = has("javaplatform");
    let root_project = is_root_project(file);
    for (name, description) in STANDARD.iter().chain(extra.iter()) {
        if (*name == "test" && platform) || (*name == "tasks" && !root_project) {
            continue;
        }
        if seen.insert(name.to_string()) {
            out.commands.push(
                CommandItem::new(KIND, file.path, name, format!("{gradle} {name}"))
                    .description(*description),
            );
        }
    }
    out
}

/// The build file of the root project: `settings.gradle(.kts)` beside it, or no settings file
/// in a folder above (a standalone build).
fn is_root_project(file: &SourceFile<'_>) -> bool {
    let settings = |d: &std::path::Path| {
        file.fs.is_file(&d.join("settings.gradle"))
            || file.fs.is_file(&d.join("settings.gradle.kts"))
    };
    let mut dirs = super::common::folders_up(file);
    let own = dirs.next().is_some_and(settings);
    own || !dirs.any(settings)
}

struct Decl {
    name: String,
    description: Option<String>,
    /// Byte offset of the declaration, for its line.
    pos: usize,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// A cursor over the comment-free text.
struct Cur<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Cur<'a> {
    fn rest(&self) -> &'a str {
        self.s.get(self.i..).unwrap_or("")
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    /// Skips spaces and tabs (not newlines: they end Groovy/Kotlin statements); true if any.
    fn ws(&mut self) -> bool {
        let start = self.i;
        while let Some(c) = self.peek().filter(|c| *c == ' ' || *c == '\t') {
            self.i += c.len_utf8();
        }
        self.i > start
    }
    fn eat(&mut self, token: &str) -> bool {
        if self.rest().starts_with(token) {
            self.i += token.len();
            true
        } else {
            false
        }
    }
    /// A whole word.
    fn word(&mut self, w: &str) -> bool {
        let rest = self.rest();
        if rest.starts_with(w) && !rest[w.len()..].chars().next().is_some_and(is_ident) {
            self.i += w.len();
            true
        } else {
            false
        }
    }
    fn ident(&mut self) -> Option<String> {
        let rest = self.rest();
        if !rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            return None;
        }
        let len = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        self.i += len;
        Some(rest[..len].to_string())
    }
    /// A one-line `'…'` or `"…"` string literal.
    fn string(&mut self) -> Option<String> {
        let rest = self.rest();
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let mut out = String::new();
        let mut chars = rest.char_indices().skip(1);
        while let Some((j, c)) = chars.next() {
            if j > MAX_LITERAL {
                return None;
            }
            match c {
                '\\' => {
                    if let Some((_, n)) = chars.next() {
                        out.push(n);
                    }
                }
                '\n' => return None,
                c if c == quote => {
                    self.i += j + 1;
                    return Some(out);
                }
                c => out.push(c),
            }
        }
        None
    }
    /// `<...>` type arguments (Kotlin `register<Copy>`), without nesting checks beyond `<`/`>`.
    fn type_args(&mut self) {
        let rest = self.rest();
        if !rest.starts_with('<') {
            return;
        }
        let head_end = rest
            .char_indices()
            .nth(MAX_LITERAL)
            .map_or(rest.len(), |(i, _)| i);
        let head = &rest[..head_end];
        if let Some(end) = head.find(['>', '\n'])
            && head[end..].starts_with('>')
        {
            self.i += end + 1;
        }
    }
}

fn declarations(text: &str) -> Vec<Decl> {
    let mut out = Vec::new();
    let mut budget = FILE_SCAN_BUDGET;
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        let word_start = (c == 't' || c == 'v') && !prev.is_some_and(|p| is_ident(p) || p == '.');
        prev = Some(c);
        if !word_start {
            continue;
        }
        let mut cur = Cur { s: text, i };
        let found = if cur.word("tasks") {
            registered(&mut cur)
        } else if cur.word("task") {
            if statement_start(text, i) {
                task_keyword(&mut cur)
            } else {
                None
            }
        } else if cur.word("val") {
            delegated(&mut cur)
        } else {
            None
        };
        if let Some((name, in_parens)) = found {
            let description = find_description(text, cur.i, in_parens, &mut budget);
            out.push(Decl {
                name,
                description,
                pos: i,
            });
        }
    }
    out
}

/// Only spaces or tabs between `pos` and the start of the line or a `;`, `{`, `}`.
fn statement_start(text: &str, pos: usize) -> bool {
    let before = text.get(..pos).unwrap_or("");
    match before.trim_end_matches([' ', '\t']).chars().next_back() {
        None => true,
        Some(c) => matches!(c, '\n' | ';' | '{' | '}'),
    }
}

/// After `tasks`: `.register("x")`, `.create('x', Copy)`, `.register<Copy>("x")`,
/// `.register 'x'`. Returns the name and whether the cursor is still inside the call's parens.
fn registered(cur: &mut Cur<'_>) -> Option<(String, bool)> {
    cur.ws();
    if !cur.eat(".") {
        return None;
    }
    cur.ws();
    if !(cur.word("register") || cur.word("create")) {
        return None;
    }
    cur.type_args();
    cur.ws();
    let parens = cur.eat("(");
    cur.ws();
    cur.string().map(|n| (n, parens))
}

/// After a statement-start `task`: `task x`, `task x(type: T)`, `task('x')`, `task(x)`,
/// `task "x"`, `task<T>("x")`.
fn task_keyword(cur: &mut Cur<'_>) -> Option<(String, bool)> {
    let spaced = cur.ws();
    cur.type_args();
    cur.ws();
    if cur.eat("(") {
        cur.ws();
        if let Some(s) = cur.string() {
            return Some((s, true));
        }
        let name = cur.ident()?;
        cur.ws();
        return matches!(cur.peek(), Some(')' | ',')).then_some((name, true));
    }
    if !spaced {
        return None;
    }
    if let Some(s) = cur.string() {
        return Some((s, false));
    }
    let name = cur.ident()?;
    // `task x = ...` is an assignment to something else, not a declaration.
    let save = cur.i;
    cur.ws();
    if cur.eat("=") && !cur.eat("=") {
        return None;
    }
    cur.i = save;
    Some((name, false))
}

/// Kotlin `val x by tasks.registering` / `val x by tasks.creating(Copy::class)`.
fn delegated(cur: &mut Cur<'_>) -> Option<(String, bool)> {
    if !cur.ws() {
        return None;
    }
    let name = cur.ident()?;
    cur.ws();
    if !cur.word("by") {
        return None;
    }
    cur.ws();
    if !cur.word("tasks") {
        return None;
    }
    cur.ws();
    if !cur.eat(".") {
        return None;
    }
    cur.ws();
    (cur.word("registering") || cur.word("creating")).then_some((name, false))
}

/// The first `description = "…"`, `description: '…'` or `description "…"` in the rest of the
/// declaration's arguments and its `{ … }` block.
fn find_description(
    text: &str,
    from: usize,
    in_parens: bool,
    budget: &mut usize,
) -> Option<String> {
    let limit = BLOCK_SCAN_LIMIT.min(*budget);
    if limit == 0 {
        return None;
    }
    let end = declaration_end(text, from, in_parens, limit);
    *budget = budget.saturating_sub(end.saturating_sub(from).max(1));
    let region = text.get(from..end)?;
    let mut search = 0;
    while let Some(rel) = region.get(search..)?.find("description") {
        let at = search + rel;
        search = at + "description".len();
        let before_ok = !region[..at]
            .chars()
            .next_back()
            .is_some_and(|p| is_ident(p) || p == '.');
        if !before_ok {
            continue;
        }
        let mut cur = Cur {
            s: region,
            i: search,
        };
        if cur.rest().chars().next().is_some_and(is_ident) {
            continue;
        }
        let spaced = cur.ws();
        let assigned = cur.eat("=") || cur.eat(":");
        cur.ws();
        if (assigned || spaced)
            && let Some(d) = cur.string()
        {
            return Some(d);
        }
    }
    None
}

/// Where the declaration's arguments and block end: the `}` closing a block that opens on the
/// declaration's line, else the end of that line.
fn declaration_end(text: &str, from: usize, in_parens: bool, limit: usize) -> usize {
    let limit = from.saturating_add(limit).min(text.len());
    let mut paren: i32 = i32::from(in_parens);
    let mut brace: i32 = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (j, c) in text.get(from..).unwrap_or("").char_indices() {
        let at = from + j;
        if at >= limit {
            return at;
        }
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q || c == '\n' {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' => paren += 1,
            ')' => paren -= 1,
            '{' => brace += 1,
            '}' => {
                brace -= 1;
                if brace <= 0 {
                    return at;
                }
            }
            '\n' | ';' if brace == 0 && paren <= 0 => return at,
            _ => {}
        }
    }
    limit
}

/// The text with `//` and `/* */` comments replaced by spaces (newlines kept, so lines still
/// match), leaving string literals alone.
fn blank_comments(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut chars = content.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == q || c == '\n' {
                quote = None;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                while let Some(&n) = chars.peek() {
                    if n == '\n' {
                        break;
                    }
                    chars.next();
                    out.push(' ');
                }
                out.push(' ');
            }
            ('/', Some('*')) => {
                chars.next();
                out.push_str("  ");
                let mut prev = ' ';
                for n in chars.by_ref() {
                    out.push(if n == '\n' { '\n' } else { ' ' });
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            ('"' | '\'', _) => {
                quote = Some(c);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{labels, parse_in, parse_with};

    const STD: [&str; 6] = ["build", "clean", "test", "assemble", "check", "tasks"];

    #[test]
    fn plugin_tasks_are_listed() {
        let p = parse_with(
            parse,
            "/w/build.gradle.kts",
            "plugins {\n    alias(libs.plugins.detekt) apply false\n    application\n    id(\"com.diffplug.spotless\") version \"6.25.0\"\n    alias(libs.plugins.kotlinx.binary.compatibility.validator)\n}\n",
        );
        let l = names(&p);
        for t in [
            "run",
            "spotlessApply",
            "spotlessCheck",
            "apiDump",
            "apiCheck",
        ] {
            assert!(l.contains(&t), "{t} in {l:?}");
        }
        let p = parse_with(
            parse,
            "/w/build.gradle",
            "apply plugin: 'java'\napply plugin: 'com.diffplug.spotless'\n",
        );
        assert!(names(&p).contains(&"spotlessApply"));
        assert!(!names(&p).contains(&"run"));
        let p = parse_with(
            parse,
            "/w/build.gradle.kts",
            "plugins { `java-platform` }\n",
        );
        assert!(!labels(&p).contains(&"test"));
        assert!(labels(&p).contains(&"build"));
        // `application` as a word elsewhere is not the plugin.
        let p = parse_with(
            parse,
            "/w/build.gradle.kts",
            "application { mainClass.set(\"a.B\") }\n",
        );
        assert!(!labels(&p).contains(&"run"));
    }

    #[test]
    fn tasks_only_on_the_root_project() {
        let fs = MemFs::new()
            .file("/w/settings.gradle.kts", "include(\"app\")")
            .file("/w/build.gradle.kts", "")
            .file("/w/app/build.gradle.kts", "");
        assert!(labels(&parse_in(parse, &fs, "/w/build.gradle.kts")).contains(&"tasks"));
        assert!(!labels(&parse_in(parse, &fs, "/w/app/build.gradle.kts")).contains(&"tasks"));
        assert!(labels(&parse_with(parse, "/w/x/build.gradle", "")).contains(&"tasks"));
    }

    fn names(p: &Parsed) -> Vec<&str> {
        let mut l = labels(p);
        l.retain(|n| !STD.contains(n));
        l
    }

    const GROOVY: &str = r#"plugins {
    id 'java'
}

task hello {
    description = 'Says hello'
    doLast { println 'Hello' }
}

task copyDocs(type: Copy) {
    from 'src/docs'
    into "$buildDir/docs"
}

task('quoted') << {
    println "x"
}

task "spaced name" {
    description "Has a space"
}

tasks.register('integrationTest', Test) {
    description = "Runs integration tests."
    group = 'verification'
}

tasks.create("legacy")
// task commentedOut
/* task blockCommented {
} */
def mytask = 'x'
println "task notATask"
"#;

    #[test]
    fn groovy_declarations_lines_and_descriptions() {
        let p = parse_with(parse, "/w/build.gradle", GROOVY);
        assert!(p.warnings.is_empty());
        assert_eq!(
            names(&p),
            [
                "hello",
                "copyDocs",
                "quoted",
                "spaced name",
                "integrationTest",
                "legacy"
            ]
        );
        let c = &p.commands;
        assert_eq!(c[0].id, "gradle:/w/build.gradle:hello");
        assert_eq!(c[0].command, "gradle hello");
        assert_eq!(c[0].description.as_deref(), Some("Says hello"));
        assert_eq!(c[0].line, Some(5));
        assert_eq!(c[1].description, None);
        assert_eq!(c[1].line, Some(10));
        assert_eq!(c[2].line, Some(15));
        assert_eq!(c[3].command, "gradle 'spaced name'");
        assert_eq!(c[3].description.as_deref(), Some("Has a space"));
        assert_eq!(c[4].description.as_deref(), Some("Runs integration tests."));
        assert_eq!(c[4].line, Some(23));
        assert_eq!(c[5].line, Some(28));
        assert_eq!(c[5].description, None);
    }

    #[test]
    fn kotlin_declarations() {
        let kts = r#"plugins { `java-library` }

tasks.register<Copy>("copyAssets") {
    description = "Copies assets"
    from("assets")
}
tasks.register("printVersion") { doLast { println(version) } }
val generateDocs by tasks.registering(Exec::class) {
    description = "Generates docs"
}
task<Delete>("wipe")
tasks.named("test") { description = "not a new task" }
val task = tasks.findByName("x")
"#;
        let p = parse_with(parse, "/w/app/build.gradle.kts", kts);
        assert_eq!(
            names(&p),
            ["copyAssets", "printVersion", "generateDocs", "wipe"]
        );
        assert_eq!(p.commands[0].description.as_deref(), Some("Copies assets"));
        assert_eq!(p.commands[0].line, Some(3));
        assert_eq!(p.commands[1].description, None);
        assert_eq!(p.commands[2].description.as_deref(), Some("Generates docs"));
        assert_eq!(p.commands[2].line, Some(8));
        assert_eq!(p.commands[3].line, Some(11));
        assert_eq!(p.commands[0].cwd, "/w/app");
    }

    /// Upstream [ACTUAL] bug: its `task` regex matched inside `tasks.register(...)` and produced
    /// a task named `s`.
    #[test]
    fn regression_tasks_register_gives_no_bogus_s() {
        let p = parse_with(
            parse,
            "/w/build.gradle",
            "tasks.register(\"hello\")\ntasks.create('bye')\n",
        );
        assert_eq!(
            labels(&p),
            [
                "hello", "bye", "build", "clean", "test", "assemble", "check", "tasks"
            ]
        );
    }

    #[test]
    fn task_must_be_a_whole_word_at_statement_start() {
        let text = "def mytask = 1\nval task = 2\nprintln(task)\nmytask hello\nsubtask x\nx.task y\nfoo; task viaSemicolon\nallprojects { task inBlock }\ntasks.all { task -> println task.name }\n";
        let p = parse_with(parse, "/w/build.gradle", text);
        assert_eq!(names(&p), ["viaSemicolon", "inBlock"]);
    }

    #[test]
    fn description_in_arguments() {
        let p = parse_with(
            parse,
            "/w/build.gradle",
            "task docs(type: Javadoc, description: 'API docs')\n",
        );
        assert_eq!(p.commands[0].description.as_deref(), Some("API docs"));
    }

    #[test]
    fn description_does_not_leak_from_next_task() {
        let text = "task a\ntask b {\n  description = 'B'\n}\n";
        let p = parse_with(parse, "/w/build.gradle", text);
        assert_eq!(p.commands[0].description, None);
        assert_eq!(p.commands[1].description.as_deref(), Some("B"));
    }

    #[test]
    fn standard_tasks_appended_unless_declared() {
        let p = parse_with(
            parse,
            "/w/build.gradle",
            "task build {\n description = 'Custom'\n}\n",
        );
        assert_eq!(
            labels(&p),
            ["build", "clean", "test", "assemble", "check", "tasks"]
        );
        assert_eq!(p.commands[0].description.as_deref(), Some("Custom"));
        assert_eq!(p.commands[0].line, Some(1));
        let clean = &p.commands[1];
        assert_eq!(clean.id, "gradle:/w/build.gradle:clean");
        assert_eq!(clean.command, "gradle clean");
        assert_eq!(
            clean.description.as_deref(),
            Some("Deletes the build directory")
        );
        assert_eq!(clean.line, None);
    }

    #[test]
    fn duplicates_keep_first() {
        let p = parse_with(parse, "/w/build.gradle", "task a\ntasks.register('a')\n");
        assert_eq!(names(&p), ["a"]);
        assert_eq!(p.commands[0].line, Some(1));
    }

    #[test]
    fn wrapper_beside_in_ancestor_or_absent() {
        let fs = MemFs::new()
            .exe("/w/gradlew", "#!/bin/sh")
            .file("/w/build.gradle", "")
            .file("/w/libs/core/build.gradle.kts", "tasks.register(\"gen\")");
        assert_eq!(
            parse_in(parse, &fs, "/w/build.gradle").commands[0].command,
            "./gradlew build"
        );
        let p = parse_in(parse, &fs, "/w/libs/core/build.gradle.kts");
        assert_eq!(p.commands[0].command, "../../gradlew gen");
        assert_eq!(p.commands[0].cwd, "/w/libs/core");
        let fs = MemFs::new()
            .file("/gradlew", "")
            .file("/w/build.gradle", "");
        assert_eq!(
            parse_in(parse, &fs, "/w/build.gradle").commands[0].command,
            "gradle build"
        );
    }

    #[test]
    fn garbage_and_truncated_input_do_not_panic() {
        for text in [
            "task",
            "task (",
            "task('unterminated",
            "tasks.register<",
            "tasks.register(\"x\") {\n description = ",
            "/* never closed task x",
            "val x by tasks.",
            "\u{FFFD}\u{1}task é\u{0301} {",
            "task x {{{{{{{{{{{",
        ] {
            let p = parse_with(parse, "/w/build.gradle", text);
            assert!(p.commands.len() >= STD.len(), "{text}");
        }
        for text in [
            "task x {\n".repeat(100_000),
            "task<".repeat(200_000),
            "task \"".repeat(200_000),
            "tasks.register(\"".repeat(50_000),
        ] {
            let p = parse_with(parse, "/w/build.gradle", &text);
            assert!(p.commands.len() >= STD.len());
        }
        let p = parse_with(parse, "/w/build.gradle", "task naïveTask {");
        assert_eq!(names(&p), ["naïveTask"]);
    }
}
