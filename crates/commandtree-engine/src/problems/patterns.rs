//! Problem formats a user adds, as data: `[[problems.patterns]]` in `config.toml`.
//!
//! ```toml
//! [problems]
//! builtin = true           # the built-in formats read the output too (default)
//!
//! [[problems.patterns]]    # one line: a regex with named groups
//! name = "mytool"
//! regex = '^(?P<file>[^:]+):(?P<line>\d+): (?P<severity>ERROR|WARN) (?P<message>.*)$'
//! severity = "warning"     # when the regex has no `severity` group (default: error)
//!
//! [[problems.patterns]]    # several lines, one regex each, on consecutive lines
//! name = "stylish"
//! lines = ['^(?P<file>/\S+)$', '^\s+(?P<line>\d+):(?P<column>\d+)\s+(?P<message>.+)$']
//! loop = true              # the last line repeats: one problem per matching line
//! ```
//!
//! Groups: `file`, `line` and `message` are required (in any of the lines), `column`,
//! `severity` (a word such as `error`, `warning`, `note`, `W`) and `code` are optional; any
//! other name is a mistake and says so. A pattern that cannot be used (bad regex, missing
//! group, unknown key) is left out with a warning naming it; the others still work. The regexes
//! are Rust's `regex` crate's (linear time, no look-around or back-references), compiled with a
//! size limit, so no pattern can make reading a log slow beyond its length.

use super::{Found, Severity};
use commandtree_core::{Settings, Warning};
use regex::bytes::{Regex, RegexBuilder};
use std::borrow::Cow;
use std::path::PathBuf;

/// Patterns read at the most; the rest are left out with a warning.
pub const MAX_PATTERNS: usize = 64;
/// Lines of one multi-line pattern at the most.
pub const MAX_LINES: usize = 8;
/// Longest regex, in bytes.
const MAX_REGEX: usize = 2000;
/// Compiled size of one regex at the most.
const SIZE_LIMIT: usize = 1 << 20;

/// The groups a pattern can name, in the order of [`Fields`].
const GROUPS: [&str; 6] = ["file", "line", "column", "severity", "message", "code"];
const FILE: usize = 0;
const LINE: usize = 1;
const COLUMN: usize = 2;
const SEVERITY: usize = 3;
const MESSAGE: usize = 4;
const CODE: usize = 5;

/// What a pattern's lines captured so far, by [`GROUPS`] index.
type Fields = [Option<Vec<u8>>; 6];

/// The formats output is read with: the user's patterns, then (unless turned off) the built-in
/// ones.
#[derive(Debug)]
pub struct Matcher {
    patterns: Vec<Pattern>,
    builtin: bool,
}

impl Default for Matcher {
    fn default() -> Self {
        Matcher {
            patterns: Vec::new(),
            builtin: true,
        }
    }
}

/// One user pattern, compiled.
#[derive(Debug)]
pub struct Pattern {
    name: String,
    lines: Vec<Line>,
    looped: bool,
    severity: Severity,
}

#[derive(Debug)]
struct Line {
    regex: Regex,
    /// The capture group of each of [`GROUPS`] this line has.
    groups: [Option<usize>; 6],
}

/// How far a pattern got on the lines read so far.
#[derive(Debug, Default, Clone)]
pub(crate) struct Progress {
    /// The index of the line expected next (0: none started).
    at: usize,
    fields: Fields,
}

impl Matcher {
    /// The built-in formats only.
    pub fn builtin_only() -> Matcher {
        Matcher::default()
    }

    /// The `[problems]` section of the merged configuration (the user's and the workspace's
    /// `config.toml`), with a warning for each thing in it that cannot be used.
    pub fn from_settings(settings: &Settings) -> (Matcher, Vec<Warning>) {
        let file = |key: &str| -> PathBuf {
            settings
                .origin(key)
                .or_else(|| settings.origin("problems"))
                .map_or_else(|| PathBuf::from("config.toml"), |o| o.path().to_path_buf())
        };
        Matcher::from_config(settings.config.get("problems"), &file)
    }

    /// The `[problems]` section `section`; `file(key)` names the file that set a key.
    pub fn from_config(
        section: Option<&toml::Value>,
        file: &dyn Fn(&str) -> PathBuf,
    ) -> (Matcher, Vec<Warning>) {
        let mut m = Matcher::default();
        let mut warnings = Vec::new();
        let Some(section) = section else {
            return (m, warnings);
        };
        let Some(table) = section.as_table() else {
            warnings.push(Warning::new(
                &file("problems"),
                None,
                "`problems` must be a table ([problems]); ignored",
            ));
            return (m, warnings);
        };
        for (key, value) in table {
            match key.as_str() {
                "builtin" => match value.as_bool() {
                    Some(b) => m.builtin = b,
                    None => warnings.push(Warning::new(
                        &file("problems.builtin"),
                        None,
                        "`problems.builtin` must be true or false; the built-in formats stay on",
                    )),
                },
                "patterns" => {
                    let path = file("problems.patterns");
                    let Some(list) = value.as_array() else {
                        warnings.push(Warning::new(
                            &path,
                            None,
                            "`problems.patterns` must be an array of tables ([[problems.patterns]]); ignored",
                        ));
                        continue;
                    };
                    for (i, v) in list.iter().enumerate() {
                        if i == MAX_PATTERNS {
                            warnings.push(Warning::new(
                                &path,
                                None,
                                format!(
                                    "[[problems.patterns]]: only the first {MAX_PATTERNS} patterns are used ({} given)",
                                    list.len()
                                ),
                            ));
                            break;
                        }
                        match Pattern::from_value(v, i) {
                            Ok(p) => m.patterns.push(p),
                            Err(why) => warnings.push(Warning::new(
                                &path,
                                None,
                                format!(
                                    "[[problems.patterns]] #{} ({}): {why}; this pattern is not used",
                                    i + 1,
                                    name_of(v, i)
                                ),
                            )),
                        }
                    }
                }
                other => warnings.push(Warning::new(
                    &file(&format!("problems.{other}")),
                    None,
                    format!("unknown key `problems.{other}` (known: builtin, patterns); ignored"),
                )),
            }
        }
        (m, warnings)
    }

    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// Whether the built-in formats read the output too.
    pub fn builtin(&self) -> bool {
        self.builtin
    }

    pub(crate) fn progress(&self) -> Vec<Progress> {
        vec![Progress::default(); self.patterns.len()]
    }
}

fn name_of(v: &toml::Value, i: usize) -> String {
    v.get("name")
        .and_then(|n| n.as_str())
        .filter(|n| !n.trim().is_empty())
        .map_or_else(|| format!("pattern {}", i + 1), |n| format!("`{n}`"))
}

impl Pattern {
    /// A pattern from one `[[problems.patterns]]` table, or why it cannot be used.
    pub fn from_value(v: &toml::Value, i: usize) -> Result<Pattern, String> {
        let t = v
            .as_table()
            .ok_or("a pattern must be a table (name, regex or lines, loop, severity)")?;
        for key in t.keys() {
            if !matches!(
                key.as_str(),
                "name" | "regex" | "lines" | "loop" | "severity"
            ) {
                return Err(format!(
                    "unknown key `{key}` (known: name, regex, lines, loop, severity)"
                ));
            }
        }
        let name = match t.get("name") {
            None => format!("pattern {}", i + 1),
            Some(n) => n
                .as_str()
                .filter(|n| !n.trim().is_empty())
                .ok_or("`name` must be a non-empty string")?
                .to_string(),
        };
        let texts: Vec<&str> = match (t.get("regex"), t.get("lines")) {
            (Some(r), None) => vec![r.as_str().ok_or("`regex` must be a string")?],
            (None, Some(l)) => {
                let l = l
                    .as_array()
                    .ok_or("`lines` must be an array of regex strings")?;
                if l.len() < 2 || l.len() > MAX_LINES {
                    return Err(format!(
                        "`lines` takes 2 to {MAX_LINES} regexes (one line: use `regex`)"
                    ));
                }
                l.iter()
                    .map(|x| {
                        x.as_str()
                            .ok_or("`lines` must be an array of regex strings")
                    })
                    .collect::<Result<_, _>>()?
            }
            (Some(_), Some(_)) => return Err("give `regex` or `lines`, not both".into()),
            (None, None) => return Err("`regex` (one line) or `lines` (several) is missing".into()),
        };
        let looped = match t.get("loop") {
            None => false,
            Some(b) => b.as_bool().ok_or("`loop` must be true or false")?,
        };
        if looped && texts.len() < 2 {
            return Err("`loop` goes with `lines`".into());
        }
        let severity = match t.get("severity") {
            None => Severity::Error,
            Some(s) => s.as_str().and_then(Severity::from_word).ok_or(
                "`severity` must be error, warning, info or hint (the default of problems whose line names none)",
            )?,
        };
        let lines = texts
            .iter()
            .enumerate()
            .map(|(n, text)| {
                compile(text).map_err(|e| {
                    if texts.len() == 1 {
                        e
                    } else {
                        format!("line {}: {e}", n + 1)
                    }
                })
            })
            .collect::<Result<Vec<Line>, String>>()?;
        let missing: Vec<&str> = [FILE, LINE, MESSAGE]
            .iter()
            .filter(|&&g| lines.iter().all(|l| l.groups[g].is_none()))
            .map(|&g| GROUPS[g])
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "no `{}` group: a problem needs (?P<file>…), (?P<line>…) and (?P<message>…)",
                missing.join("`, `")
            ));
        }
        Ok(Pattern {
            name,
            lines,
            looped,
            severity,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads one line: `true` when it completed a problem (which went to `emit`).
    pub(crate) fn read(
        &self,
        p: &mut Progress,
        line: &[u8],
        emit: &mut dyn FnMut(Found<'_>),
    ) -> bool {
        let last = self.lines.len() - 1;
        if p.at > 0 {
            if self.lines[p.at].capture(line, &mut p.fields) {
                if p.at < last {
                    p.at += 1;
                    return false;
                }
                self.emit(&p.fields, emit);
                if !self.looped {
                    *p = Progress::default();
                }
                return true;
            }
            *p = Progress::default();
        }
        if !self.lines[0].capture(line, &mut p.fields) {
            return false;
        }
        if last > 0 {
            p.at = 1;
            return false;
        }
        self.emit(&p.fields, emit);
        *p = Progress::default();
        true
    }

    fn emit(&self, fields: &Fields, emit: &mut dyn FnMut(Found<'_>)) {
        let text = |g: usize| fields[g].as_deref().map(String::from_utf8_lossy);
        let number = |g: usize| text(g).and_then(|t| t.trim().parse::<u32>().ok());
        let (Some(file), Some(line), Some(message)) = (text(FILE), number(LINE), text(MESSAGE))
        else {
            return;
        };
        emit(Found {
            file: Cow::Owned(file.trim().to_string()),
            line,
            column: number(COLUMN),
            severity: text(SEVERITY)
                .and_then(|s| Severity::from_word(&s))
                .unwrap_or(self.severity),
            message,
            code: text(CODE).filter(|c| !c.trim().is_empty()),
            source: Cow::Owned(self.name.clone()),
        });
    }
}

impl Line {
    /// Whether `line` matches; its groups' text replaces what `fields` held for them.
    fn capture(&self, line: &[u8], fields: &mut Fields) -> bool {
        if !self.regex.is_match(line) {
            return false;
        }
        let Some(caps) = self.regex.captures(line) else {
            return false;
        };
        for (g, slot) in self.groups.iter().enumerate() {
            if let Some(i) = slot {
                fields[g] = caps.get(*i).map(|m| m.as_bytes().to_vec());
            }
        }
        true
    }
}

fn compile(text: &str) -> Result<Line, String> {
    if text.len() > MAX_REGEX {
        return Err(format!(
            "the regex is {} bytes long (at most {MAX_REGEX})",
            text.len()
        ));
    }
    let regex = RegexBuilder::new(text)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::Syntax(s) => format!(
                "the regex does not compile: {}",
                s.lines()
                    .filter(|l| !l.trim().is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            regex::Error::CompiledTooBig(_) => {
                format!("the regex is too large once compiled (over {SIZE_LIMIT} bytes)")
            }
            other => format!("the regex does not compile: {other}"),
        })?;
    let mut groups = [None; 6];
    for (i, name) in regex.capture_names().enumerate() {
        let Some(name) = name else { continue };
        match GROUPS.iter().position(|g| *g == name) {
            Some(g) => groups[g] = Some(i),
            None => {
                return Err(format!(
                    "unknown group `{name}` (known: {})",
                    GROUPS.join(", ")
                ));
            }
        }
    }
    Ok(Line { regex, groups })
}
