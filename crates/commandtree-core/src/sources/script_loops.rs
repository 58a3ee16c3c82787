//! Scripts of the project a loop runs: `for t in tests/test_*.sh; do bash "$t"; done`, a test
//! runner that picks the scripts of its folder when it runs (`for t in $(ls "$(dirname "$0")" |
//! grep test_)`, `$(find tests -name 'test_*')`). The loop's list is worked out from the tree
//! as the shell would see it, and each of its values the body runs (as the program, or given
//! to `bash`/`sh`/`source`) that is a file of the project is a step.
//!
//! Nothing runs: the list is read from `Fs` (a folder's names, a glob, a `find` walk), the
//! script's own folder stands for `$(dirname "$0")`, and a variable is followed to the values
//! the script assigns it. Anything else made at run time (another command's output, a variable
//! the script never sets) leaves the loop alone, so a step is only ever a file that exists and
//! that the loop picks.

use super::SourceFile;
use super::calls::{Simple, Word, simple_commands};
use super::common::normalize_path;
use super::script_runs::wildcard_of;
use crate::model::StepRef;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Scripts one loop may run: enough for any real suite, a bound for a crafted tree.
const MAX_LOOP_FILES: usize = 64;
/// Values a loop's list (or a word of its body) may stand for before it is left alone.
const MAX_VALUES: usize = 512;
/// How many variables, assignments and substitutions one value is followed through.
const MAX_RESOLVE: usize = 6;
/// How deep a `find` walks when it is not told.
const MAX_FIND_DEPTH: usize = 6;
/// Entries one `find` looks at.
const MAX_FIND_ENTRIES: usize = 4096;

/// One part of a word as written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Lit(String),
    /// `$name`, `${name}`, `${name[0]}`, with what follows the name inside the braces
    /// (`%/*`, `:-x`), empty when nothing.
    Var(String, String),
    /// `$(...)` or a backtick: its code.
    Sub(String),
}

/// Steps for every script of the project that a `for` loop of `commands` runs; the files are
/// looked up from `cwd`, and with `from_root` then from the workspace root.
pub(crate) fn loop_steps(
    file: &SourceFile<'_>,
    commands: &[Simple],
    cwd: &Path,
    from_root: bool,
) -> Vec<StepRef> {
    if !commands.iter().any(|c| c.program() == Some("for")) {
        return Vec::new();
    }
    let ctx = Ctx::new(file, cwd, from_root);
    let mut found: BTreeSet<PathBuf> = BTreeSet::new();
    for (i, head) in commands.iter().enumerate() {
        if head.after_cd || head.program() != Some("for") {
            continue;
        }
        let words = head.args();
        let Some(var) = words.first().and_then(Word::lit).filter(|v| is_name(v)) else {
            continue;
        };
        if words.get(1).and_then(Word::lit) != Some("in") {
            continue;
        }
        let runs: Vec<(&Word, bool)> = commands[i + 1..]
            .iter()
            .take_while(|c| c.loops > head.loops)
            .filter(|c| !c.after_cd && !c.nested)
            .filter_map(|c| run_word(c, var))
            .collect();
        if runs.is_empty() {
            continue;
        }
        let mut values = Vec::new();
        for item in &words[2..] {
            if let Some(v) = ctx.word_values(&item.raw, None, 0) {
                values.extend(v.into_iter().flat_map(|v| ctx.expand(&v)));
            }
            if values.len() > MAX_VALUES {
                break;
            }
        }
        values.truncate(MAX_VALUES);
        let mut from_loop = BTreeSet::new();
        'words: for (w, program) in runs {
            let Some(paths) = ctx.word_values(&w.raw, Some((var, &values)), 0) else {
                continue;
            };
            for p in paths.iter().flat_map(|p| ctx.expand(p)) {
                if from_loop.len() >= MAX_LOOP_FILES {
                    break 'words;
                }
                if let Some(path) = ctx.script(&p, program) {
                    from_loop.insert(path);
                }
            }
        }
        found.extend(from_loop);
    }
    found
        .into_iter()
        .filter_map(super::script_runs::script_step)
        .collect()
}

/// Steps for the scripts of the project that `commands` run through a path made at run time
/// from what the script knows: its own folder (`bash "$(dirname "$0")/build.sh"`, `"$DIR/x.sh"`
/// after `DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"`) or a
/// variable it assigns a literal path. A literal path is [`super::calls::script_call`]'s.
pub(crate) fn made_path_steps(
    file: &SourceFile<'_>,
    commands: &[Simple],
    cwd: &Path,
    from_root: bool,
) -> Vec<StepRef> {
    let made = |w: &Word| !w.literal && w.raw.contains(['$', '`']);
    let runs: Vec<(&Word, bool)> = commands
        .iter()
        .filter(|c| !c.after_cd)
        .filter_map(|c| {
            let first = c.words.first()?;
            if made(first) {
                return Some((first, true));
            }
            if !matches!(c.program()?, "sh" | "bash" | "zsh" | "dash" | "ksh") {
                return None;
            }
            let operand = shell_operand(c)?;
            made(operand).then_some((operand, false))
        })
        .collect();
    if runs.is_empty() {
        return Vec::new();
    }
    let ctx = Ctx::new(file, cwd, from_root);
    let mut found: BTreeSet<PathBuf> = BTreeSet::new();
    for (w, program) in runs {
        let Some(paths) = ctx.word_values(&w.raw, None, 0) else {
            continue;
        };
        // A variable assigned in several places may name several scripts; each may run.
        for p in paths.iter().take(MAX_LOOP_FILES) {
            if let Some(path) = ctx.script(p, program) {
                found.insert(path);
            }
        }
    }
    found
        .into_iter()
        .filter_map(super::script_runs::script_step)
        .collect()
}

/// The script a shell is handed (`bash -e x.sh`), unless it only checks syntax (`-n`) or is
/// given code (`-c`) or standard input (`-s`).
fn shell_operand(cmd: &Simple) -> Option<&Word> {
    let mut args = cmd.args().iter();
    while let Some(w) = args.next() {
        let t = w.text.as_str();
        if matches!(t, "-o" | "+o" | "-O" | "+O") {
            args.next();
        } else if t.starts_with('-') && t.len() > 1 && t != "--" {
            if t.contains(['c', 'n', 's']) && !t.starts_with("--") {
                return None;
            }
        } else if t != "--" {
            return Some(w);
        }
    }
    None
}

/// The word of `cmd` naming the file it runs when that word uses `$var`: the program itself
/// (then the file must be executable: true), or the script given to a shell or to `source`. A
/// shell only checking syntax (`-n`) or given code (`-c`) runs no file.
fn run_word<'a>(cmd: &'a Simple, var: &str) -> Option<(&'a Word, bool)> {
    let first = cmd.words.first()?;
    let uses = |w: &Word| {
        parts(&w.raw).is_some_and(|ps| ps.iter().any(|p| matches!(p, Part::Var(n, _) if n == var)))
    };
    if uses(first) {
        return Some((first, true));
    }
    if !matches!(
        cmd.program()?,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "source" | "."
    ) {
        return None;
    }
    shell_operand(cmd).filter(|w| uses(w)).map(|w| (w, false))
}

/// A shell variable's name: a letter or `_`, then letters, digits and `_`.
pub(crate) fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// What the values of a word are worked out from.
struct Ctx<'a, 'f> {
    file: &'a SourceFile<'f>,
    /// Where relative paths are looked up, in order.
    bases: Vec<PathBuf>,
    /// Each variable's values as the script assigns them (the raw text of each).
    assigns: BTreeMap<String, Vec<String>>,
}

impl<'a, 'f> Ctx<'a, 'f> {
    /// Paths looked up from `cwd`, and with `from_root` then from the workspace root.
    fn new(file: &'a SourceFile<'f>, cwd: &Path, from_root: bool) -> Self {
        let mut bases = vec![cwd.to_path_buf()];
        if from_root && file.root != cwd {
            bases.push(file.root.to_path_buf());
        }
        Ctx {
            file,
            bases,
            assigns: assignments(file.content),
        }
    }
}

impl Ctx<'_, '_> {
    /// The values a word written `raw` may have (a substitution's output split into words);
    /// `None` when a part of it is not known. `var` gives the loop variable its values.
    fn word_values(
        &self,
        raw: &str,
        var: Option<(&str, &[String])>,
        depth: usize,
    ) -> Option<Vec<String>> {
        if depth > MAX_RESOLVE {
            return None;
        }
        let mut out = vec![String::new()];
        for part in parts(raw)? {
            let vals = match part {
                Part::Lit(t) => vec![t],
                Part::Var(name, rest) => self.var_values(&name, &rest, var, depth)?,
                Part::Sub(code) => self.sub_values(&code, depth + 1)?,
            };
            let mut next = Vec::new();
            for a in &out {
                for b in &vals {
                    next.push(format!("{a}{b}"));
                    if next.len() > MAX_VALUES {
                        return None;
                    }
                }
            }
            out = next;
        }
        Some(out)
    }

    fn var_values(
        &self,
        name: &str,
        rest: &str,
        var: Option<(&str, &[String])>,
        depth: usize,
    ) -> Option<Vec<String>> {
        if let Some((v, values)) = var
            && v == name
        {
            return rest.is_empty().then(|| values.to_vec());
        }
        let script = self.file.path.to_string_lossy().into_owned();
        if matches!(name, "0" | "BASH_SOURCE") {
            return match rest {
                "" | "[0]" => Some(vec![script]),
                "%/*" => Some(vec![parent_of(&script)]),
                _ => None,
            };
        }
        if !rest.is_empty() {
            return None;
        }
        let raws = self.assigns.get(name)?;
        let mut out = Vec::new();
        for raw in raws {
            if let Some(v) = self.assigned_values(raw, var, depth + 1) {
                out.extend(v);
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// An assignment's value: an array `(a b c)` gives each word's values.
    fn assigned_values(
        &self,
        raw: &str,
        var: Option<(&str, &[String])>,
        depth: usize,
    ) -> Option<Vec<String>> {
        let Some(inner) = raw.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
            return self.word_values(raw, var, depth);
        };
        let mut out = Vec::new();
        for w in split_words(inner) {
            out.extend(self.word_values(&w, var, depth)?);
        }
        Some(out)
    }

    /// What the code of a substitution prints, when it only names the script's folder
    /// (`dirname "$0"`, `cd … && pwd`, `realpath`) or lists files (`ls`, `find`, filtered by
    /// `grep`, `sort`).
    fn sub_values(&self, code: &str, depth: usize) -> Option<Vec<String>> {
        if depth > MAX_RESOLVE {
            return None;
        }
        let cmds: Vec<Simple> = simple_commands(code)
            .into_iter()
            .filter(|c| !c.nested)
            .collect();
        let (first, rest) = cmds.split_first()?;
        let operands: Vec<&Word> = first
            .args()
            .iter()
            .filter(|w| !w.text.starts_with('-') || w.text.len() == 1)
            .collect();
        let one = |d: usize| -> Option<Vec<String>> {
            match operands.as_slice() {
                [w] => self.word_values(&w.raw, None, d),
                _ => None,
            }
        };
        let mut values = match first.program()? {
            "dirname" if rest.is_empty() => {
                return Some(one(depth)?.iter().map(|v| parent_of(v)).collect());
            }
            "realpath" | "readlink" if rest.is_empty() => return one(depth),
            "cd" => {
                return match rest {
                    [pwd] if pwd.program() == Some("pwd") => one(depth),
                    _ => None,
                };
            }
            "pwd" if rest.is_empty() => {
                return Some(vec![self.bases[0].to_string_lossy().into_owned()]);
            }
            "ls" => {
                let all = first
                    .args()
                    .iter()
                    .any(|w| w.text.starts_with('-') && w.text.contains(['a', 'A']));
                match operands.as_slice() {
                    [] => self.names_in(".", all),
                    [w] => {
                        let mut out = Vec::new();
                        for v in self.word_values(&w.raw, None, depth)? {
                            if has_glob(&v) {
                                out.extend(self.expand(&v));
                            } else if self.dir(&v).is_some() {
                                out.extend(self.names_in(&v, all));
                            } else {
                                out.push(v);
                            }
                        }
                        out
                    }
                    _ => return None,
                }
            }
            "find" => self.find(first, depth)?,
            _ => return None,
        };
        for f in rest {
            match f.program()? {
                "sort" | "uniq" => {}
                "grep" | "egrep" => values = grep(f, values)?,
                _ => return None,
            }
        }
        Some(values)
    }

    /// A folder named by `v` (absolute, or looked up from the bases).
    fn dir(&self, v: &str) -> Option<PathBuf> {
        let fs = self.file.fs;
        let found = if v.starts_with('/') {
            Some(normalize_path(Path::new(v)))
        } else {
            self.bases
                .iter()
                .map(|b| normalize_path(&b.join(v)))
                .find(|p| fs.exists(p) && !fs.is_file(p))
        }?;
        (found.starts_with(self.file.root) && fs.exists(&found) && !fs.is_file(&found))
            .then_some(found)
    }

    /// `ls DIR`: the names in the folder, sorted.
    fn names_in(&self, v: &str, all: bool) -> Vec<String> {
        let Some(dir) = self.dir(v) else {
            return Vec::new();
        };
        let mut names: Vec<String> = self
            .file
            .fs
            .list_dir(&dir)
            .iter()
            .filter_map(|e| Some(e.file_name()?.to_string_lossy().into_owned()))
            .filter(|n| all || !n.starts_with('.'))
            .collect();
        names.sort();
        names.truncate(MAX_VALUES);
        names
    }

    /// `find ROOT… -name P -type f -maxdepth N`: the paths it prints; `None` for a predicate
    /// that is not one of those.
    fn find(&self, cmd: &Simple, depth: usize) -> Option<Vec<String>> {
        let args = cmd.args();
        let mut roots = Vec::new();
        let mut i = 0;
        while let Some(w) = args.get(i) {
            if w.text.starts_with('-') || w.text == "(" || w.text == "!" {
                break;
            }
            roots.extend(self.word_values(&w.raw, None, depth)?);
            i += 1;
        }
        if roots.is_empty() {
            roots.push(".".into());
        }
        let mut names: Vec<(String, bool)> = Vec::new();
        let mut paths: Vec<String> = Vec::new();
        let (mut min, mut max) = (0usize, MAX_FIND_DEPTH);
        let mut executable = false;
        while let Some(w) = args.get(i) {
            let value = || args.get(i + 1).and_then(Word::lit);
            match w.text.as_str() {
                "-name" | "-iname" => {
                    names.push((value()?.to_string(), w.text == "-iname"));
                    i += 1;
                }
                "-path" | "-wholename" => {
                    paths.push(value()?.to_string());
                    i += 1;
                }
                // Only files are collected: `-type f` says what the walk does anyway.
                "-type" => {
                    if value()? != "f" {
                        return None;
                    }
                    i += 1;
                }
                "-maxdepth" | "-mindepth" => {
                    let n: usize = value()?.parse().ok()?;
                    if w.text == "-maxdepth" {
                        max = n.min(MAX_FIND_DEPTH);
                    } else {
                        min = n;
                    }
                    i += 1;
                }
                "-executable" => executable = true,
                "-print" | "-a" | "-and" => {}
                _ => return None,
            }
            i += 1;
        }
        let fs = self.file.fs;
        let mut out = Vec::new();
        let mut seen = 0usize;
        for root in roots {
            let Some(dir) = self.dir(&root) else { continue };
            let mut stack = vec![(dir, root.trim_end_matches('/').to_string(), 0usize)];
            while let Some((dir, shown, d)) = stack.pop() {
                for entry in fs.list_dir(&dir) {
                    seen += 1;
                    if seen > MAX_FIND_ENTRIES {
                        return None;
                    }
                    let Some(name) = entry.file_name().map(|n| n.to_string_lossy().into_owned())
                    else {
                        continue;
                    };
                    let printed = format!("{shown}/{name}");
                    if fs.is_file(&entry) {
                        let name_ok = names.iter().all(|(p, fold)| {
                            if *fold {
                                crate::text::wildcard_match(
                                    &wildcard_of(&p.to_lowercase()),
                                    &name.to_lowercase(),
                                )
                            } else {
                                crate::text::wildcard_match(&wildcard_of(p), &name)
                            }
                        });
                        let path_ok = paths
                            .iter()
                            .all(|p| crate::text::wildcard_match(&wildcard_of(p), &printed));
                        if d + 1 >= min
                            && name_ok
                            && path_ok
                            && (!executable || fs.is_executable(&entry))
                        {
                            out.push(printed);
                        }
                    } else if d + 1 < max && !name.starts_with('.') && fs.exists(&entry) {
                        stack.push((entry, printed, d + 1));
                    }
                }
            }
        }
        out.sort();
        out.truncate(MAX_VALUES);
        Some(out)
    }

    /// A value with glob characters: the paths it matches, in the same form (relative values
    /// from the first base where any match); other values as they are.
    fn expand(&self, v: &str) -> Vec<String> {
        if !has_glob(v) {
            return vec![v.to_string()];
        }
        let fs = self.file.fs;
        let starts: Vec<PathBuf> = if v.starts_with('/') {
            vec![PathBuf::from("/")]
        } else {
            self.bases.clone()
        };
        for start in starts {
            let mut found = vec![(start, String::new())];
            for part in v.split('/') {
                let mut next = Vec::new();
                for (dir, shown) in &found {
                    let join = |s: &str| {
                        if shown.is_empty() && !v.starts_with('/') {
                            s.to_string()
                        } else {
                            format!("{shown}/{s}")
                        }
                    };
                    if part.is_empty() || !has_glob(part) {
                        next.push((normalize_path(&dir.join(part)), join(part)));
                        continue;
                    }
                    let glob = wildcard_of(part);
                    let mut names: Vec<String> = fs
                        .list_dir(dir)
                        .iter()
                        .filter_map(|e| Some(e.file_name()?.to_string_lossy().into_owned()))
                        .filter(|n| !n.starts_with('.') || part.starts_with('.'))
                        .filter(|n| crate::text::wildcard_match(&glob, n))
                        .collect();
                    names.sort();
                    for n in names {
                        next.push((dir.join(&n), join(&n)));
                    }
                }
                next.truncate(MAX_VALUES);
                found = next;
            }
            let out: Vec<String> = found
                .into_iter()
                .filter(|(p, _)| fs.exists(p) && p.starts_with(self.file.root))
                .map(|(_, s)| s)
                .collect();
            if !out.is_empty() {
                return out;
            }
        }
        Vec::new()
    }

    /// The project file `v` names, when it is one the loop can run.
    fn script(&self, v: &str, program: bool) -> Option<PathBuf> {
        let fs = self.file.fs;
        let candidates: Vec<PathBuf> = if v.starts_with('/') {
            vec![normalize_path(Path::new(v))]
        } else if program && !v.contains('/') {
            // A bare name as the program is looked up on PATH, not here.
            return None;
        } else {
            self.bases
                .iter()
                .map(|b| normalize_path(&b.join(v)))
                .collect()
        };
        candidates.into_iter().find(|p| {
            p.starts_with(self.file.root)
                && p != self.file.path
                && fs.is_file(p)
                && (!program || fs.is_executable(p))
        })
    }
}

/// `grep [-v] [-E] [-F] [-x] [-e] PAT` over `values`, when the pattern is one a `*` wildcard
/// says (`^test_`, `\.sh$`, `test_.*\.bats`); `None` otherwise.
fn grep(cmd: &Simple, values: Vec<String>) -> Option<Vec<String>> {
    let mut invert = false;
    let mut fixed = false;
    let mut whole = false;
    let mut pattern = None;
    let mut args = cmd.args().iter();
    while let Some(w) = args.next() {
        let t = w.lit()?;
        match t {
            "-e" => pattern = Some(args.next()?.lit()?),
            "-v" => invert = true,
            "-F" => fixed = true,
            "-x" => whole = true,
            "-E" | "-G" | "--" => {}
            t if t.starts_with('-') => return None,
            t if pattern.is_none() => pattern = Some(t),
            _ => return None,
        }
    }
    let glob = regex_wildcard(pattern?, fixed, whole)?;
    Some(
        values
            .into_iter()
            .filter(|v| crate::text::wildcard_match(&glob, v) != invert)
            .collect(),
    )
}

/// A basic or extended regular expression as a `*` wildcard over the whole line: `.` and `.*`
/// stand for any text, `\.` for a dot, `^` and `$` anchor; `None` for anything else
/// (brackets, alternatives, repeats).
fn regex_wildcard(pat: &str, fixed: bool, whole: bool) -> Option<String> {
    let (start, body, end) = if fixed {
        (whole, pat, whole)
    } else {
        let (s, b) = match pat.strip_prefix('^') {
            Some(b) => (true, b),
            None => (whole, pat),
        };
        let (b, e) = match b.strip_suffix('$').filter(|b| !b.ends_with('\\')) {
            Some(b) => (b, true),
            None => (b, whole),
        };
        (s, b, e)
    };
    let mut out = String::new();
    if !start {
        out.push('*');
    }
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if fixed {
            if c == '*' {
                return None;
            }
            out.push(c);
            continue;
        }
        match c {
            '\\' => match chars.next()? {
                e @ ('.' | '-' | '_' | '/') => out.push(e),
                _ => return None,
            },
            '.' => {
                if chars.peek() == Some(&'*') {
                    chars.next();
                }
                out.push('*');
            }
            '[' | ']' | '(' | ')' | '|' | '+' | '?' | '{' | '}' | '*' | '^' | '$' => return None,
            c => out.push(c),
        }
    }
    if !end {
        out.push('*');
    }
    Some(out)
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// `dirname`: the folder part of a path (`.` when there is none).
fn parent_of(v: &str) -> String {
    let t = v.trim_end_matches('/');
    match t.rfind('/') {
        Some(0) => "/".into(),
        Some(i) => t[..i].to_string(),
        None => ".".into(),
    }
}

/// Each variable's assignments in a script (`NAME=value`, also after `local`, `export`,
/// `readonly`, `declare -x`), as the raw text of the value.
fn assignments(content: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in content.lines() {
        let mut t = line.trim_start();
        loop {
            let before = t;
            for kw in ["local ", "export ", "readonly ", "declare ", "typeset "] {
                if let Some(r) = t.strip_prefix(kw) {
                    t = r.trim_start();
                }
            }
            while t.starts_with('-') {
                t = t.split_once(' ').map_or("", |(_, r)| r.trim_start());
            }
            if t == before {
                break;
            }
        }
        let Some((name, value)) = t.split_once('=') else {
            continue;
        };
        if !is_name(name) {
            continue;
        }
        let raw = if value.starts_with('(') {
            let end = balanced(value, 0).unwrap_or(value.len());
            value[..end].to_string()
        } else {
            word_len(value).map_or(String::new(), |n| value[..n].to_string())
        };
        let list = out.entry(name.to_string()).or_default();
        if list.len() < 16 {
            list.push(raw);
        }
    }
    out
}

/// The words of an array's text, raw.
fn split_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let Some(n) = word_len(rest).filter(|n| *n > 0) else {
            break;
        };
        out.push(rest[..n].to_string());
        rest = rest[n..].trim_start();
    }
    out
}

/// The length of the shell word at the start of `s` (quotes and substitutions kept whole);
/// `None` when a quote or a bracket is not closed.
fn word_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b';' | b'&' | b'|' | b'\n' | b')' | b'<' | b'>' => break,
            b'\\' => i += 2,
            b'\'' => i += s[i + 1..].find('\'')? + 2,
            b'"' => i = close_double(s, i + 1)? + 1,
            b'$' if b.get(i + 1) == Some(&b'(') || b.get(i + 1) == Some(&b'{') => {
                i = balanced(s, i + 1)?;
            }
            b'`' => i += s[i + 1..].find('`')? + 2,
            _ => i += 1,
        }
    }
    Some(i.min(b.len()))
}

/// The index of the `"` closing a double-quoted text that starts at `i`.
fn close_double(s: &str, mut i: usize) -> Option<usize> {
    let b = s.as_bytes();
    while i < b.len() {
        match b[i] {
            b'"' => return Some(i),
            b'\\' => i += 2,
            b'$' if b.get(i + 1) == Some(&b'(') || b.get(i + 1) == Some(&b'{') => {
                i = balanced(s, i + 1)?;
            }
            b'`' => i += s[i + 1..].find('`')? + 2,
            _ => i += 1,
        }
    }
    None
}

/// The index after the bracket group that opens at `i` (`(` or `{`), quotes skipped.
fn balanced(s: &str, i: usize) -> Option<usize> {
    let b = s.as_bytes();
    let (open, close) = match b.get(i)? {
        b'(' => (b'(', b')'),
        b'{' => (b'{', b'}'),
        _ => return None,
    };
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'\'' if open == b'(' => j += s[j + 1..].find('\'')? + 1,
            b'"' => j = close_double(s, j + 1)?,
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// The parts of a word as written; `None` for arithmetic or text that does not close.
fn parts(raw: &str) -> Option<Vec<Part>> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let b = raw.as_bytes();
    let mut i = 0;
    let mut quoted = false;
    let flush = |lit: &mut String, out: &mut Vec<Part>| {
        if !lit.is_empty() {
            out.push(Part::Lit(std::mem::take(lit)));
        }
    };
    while i < b.len() {
        let c = raw[i..].chars().next()?;
        match c {
            '"' => {
                quoted = !quoted;
                i += 1;
            }
            '\'' if !quoted => {
                let end = raw[i + 1..].find('\'')? + i + 1;
                lit.push_str(&raw[i + 1..end]);
                i = end + 1;
            }
            '\\' => {
                let n = raw[i + 1..].chars().next()?;
                if !quoted || matches!(n, '$' | '`' | '"' | '\\') {
                    i += 1;
                }
                lit.push(raw[i..].chars().next()?);
                i += raw[i..].chars().next()?.len_utf8();
            }
            '`' => {
                let end = raw[i + 1..].find('`')? + i + 1;
                flush(&mut lit, &mut out);
                out.push(Part::Sub(raw[i + 1..end].to_string()));
                i = end + 1;
            }
            '$' => match b.get(i + 1) {
                Some(b'(') if b.get(i + 2) == Some(&b'(') => return None,
                Some(b'(') => {
                    let end = balanced(raw, i + 1)?;
                    flush(&mut lit, &mut out);
                    out.push(Part::Sub(raw[i + 2..end - 1].to_string()));
                    i = end;
                }
                Some(b'{') => {
                    let end = balanced(raw, i + 1)?;
                    let inner = &raw[i + 2..end - 1];
                    let n = inner
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(inner.len());
                    let (name, mut rest) = inner.split_at(n);
                    if name.is_empty() {
                        return None;
                    }
                    for index in ["[0]", "[@]", "[*]"] {
                        if let Some(r) = rest.strip_prefix(index) {
                            rest = r;
                        }
                    }
                    flush(&mut lit, &mut out);
                    out.push(Part::Var(name.to_string(), rest.to_string()));
                    i = end;
                }
                Some(&n) if n.is_ascii_alphabetic() || n == b'_' => {
                    let start = i + 1;
                    let mut j = start;
                    while b
                        .get(j)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    {
                        j += 1;
                    }
                    flush(&mut lit, &mut out);
                    out.push(Part::Var(raw[start..j].to_string(), String::new()));
                    i = j;
                }
                Some(&n) if n.is_ascii_digit() || b"@*#?$!-".contains(&n) => {
                    flush(&mut lit, &mut out);
                    out.push(Part::Var((n as char).to_string(), String::new()));
                    i += 2;
                }
                _ => {
                    lit.push('$');
                    i += 1;
                }
            },
            c => {
                lit.push(c);
                i += c.len_utf8();
            }
        }
    }
    flush(&mut lit, &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::model::StepScope;

    fn steps_of(fs: &MemFs, path: &str, code: &str) -> Vec<String> {
        let file = SourceFile {
            path: Path::new(path),
            content: code,
            executable: true,
            root: Path::new("/w"),
            fs,
        };
        let dir = Path::new(path).parent().unwrap_or(Path::new("/w"));
        loop_steps(&file, &simple_commands(code), dir, true)
            .into_iter()
            .map(|s| match s.scope {
                StepScope::File { file, .. } => file.to_string_lossy().into_owned(),
                _ => s.name,
            })
            .collect()
    }

    fn tree() -> MemFs {
        MemFs::new()
            .file("/w/test/run.sh", "")
            .file("/w/test/test_install.sh", "")
            .file("/w/test/test_version.sh", "")
            .file("/w/test/helpers.sh", "")
            .exe("/w/test/test_exec", "")
            .file("/w/tests/test_a.sh", "")
            .file("/w/tests/unit/test_b.sh", "")
            .file("/w/tests/notes.md", "")
    }

    #[test]
    fn a_runner_looping_over_ls_of_its_own_folder_runs_each_match() {
        let fs = tree();
        let run = "targets=\"$@\"\n\
                   if [ $# -eq 0 ]; then\n  targets=\"$(\\ls \"$(dirname \"${0}\")\" | grep 'test_')\";\nfi\n\
                   for t in ${targets}; do\n  bash \"$(dirname \"${0}\")/${t}\" \\\n    || errors+=( \"${t}\" );\ndone;\n";
        assert_eq!(
            steps_of(&fs, "/w/test/run.sh", run),
            [
                "/w/test/test_exec",
                "/w/test/test_install.sh",
                "/w/test/test_version.sh"
            ]
        );
        // `grep -v`, anchors, and a folder held in a variable.
        let run = "HERE=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n\
                   for t in $(ls \"$HERE\" | grep -v '^run' | grep '\\.sh$'); do source \"$HERE/$t\"; done\n";
        assert_eq!(
            steps_of(&fs, "/w/test/run.sh", run),
            [
                "/w/test/helpers.sh",
                "/w/test/test_install.sh",
                "/w/test/test_version.sh"
            ]
        );
    }

    #[test]
    fn a_sibling_script_named_through_the_scripts_own_folder_is_a_step() {
        let fs = tree();
        let made = |code: &str| -> Vec<String> {
            let file = SourceFile {
                path: Path::new("/w/test/run.sh"),
                content: code,
                executable: true,
                root: Path::new("/w"),
                fs: &fs,
            };
            made_path_steps(&file, &simple_commands(code), Path::new("/w/test"), true)
                .into_iter()
                .map(|s| match s.scope {
                    StepScope::File { file, .. } => file.to_string_lossy().into_owned(),
                    _ => s.name,
                })
                .collect()
        };
        assert_eq!(
            made("bash \"$(dirname \"$0\")/test_install.sh\"\n"),
            ["/w/test/test_install.sh"]
        );
        // `--`, a redirect and `${BASH_SOURCE[0]}` in the folder's idiom; the program itself.
        assert_eq!(
            made(
                "d=\"$(cd -- \"$(dirname -- \"${BASH_SOURCE[0]}\")\" &>/dev/null && pwd)\"\n\
                 \"$d/test_exec\" --quick\nbash -e \"$d/../tests/test_a.sh\"\n"
            ),
            ["/w/test/test_exec", "/w/tests/test_a.sh"]
        );
        // A file not executable is not run as a program; a folder the script does not know,
        // a syntax check and a missing file are no step.
        assert!(made("d=$(dirname \"$0\")\n\"$d/helpers.sh\"\n").is_empty());
        assert!(
            made("\"$TOOL_HOME/test_install.sh\"\nbash -n \"$(dirname \"$0\")/test_version.sh\"\n")
                .is_empty()
        );
        assert!(made("bash \"$(dirname \"$0\")/missing.sh\"\n").is_empty());
    }

    #[test]
    fn a_loop_over_a_glob_or_find_runs_each_file() {
        let fs = tree();
        let at_root = |code: &str| steps_of(&fs, "/w/run-tests", code);
        assert_eq!(
            at_root("for f in tests/test_*.sh; do bash \"$f\"; done\n"),
            ["/w/tests/test_a.sh"]
        );
        assert_eq!(
            at_root(
                "for f in $(find tests -name 'test_*.sh' -type f); do\n  sh -e \"$f\" || exit 1\ndone\n"
            ),
            ["/w/tests/test_a.sh", "/w/tests/unit/test_b.sh"]
        );
        // Run as the program: only an executable file runs.
        assert_eq!(
            steps_of(
                &fs,
                "/w/test/run.sh",
                "for t in \"$(dirname \"$0\")\"/test_*; do\n  \"$t\"\ndone\n"
            ),
            ["/w/test/test_exec"]
        );
        let arr = "suites=(tests/test_*.sh tests/unit/*.sh)\nfor s in \"${suites[@]}\"; do . \"$s\"; done\n";
        assert_eq!(
            at_root(arr),
            ["/w/tests/test_a.sh", "/w/tests/unit/test_b.sh"]
        );
    }

    #[test]
    fn a_loop_that_only_reads_its_files_runs_none() {
        let fs = tree();
        let at_root = |code: &str| steps_of(&fs, "/w/run-tests", code);
        for code in [
            "for f in tests/*.sh; do cat \"$f\"; done\n",
            "for f in tests/*.sh; do shellcheck \"$f\"; echo \"$f\"; done\n",
            "for f in tests/*.sh; do bash -n \"$f\"; done\n",
            "for f in tests/*.sh; do bash scripts/lint.sh \"$f\"; done\n",
            // The loop variable is not what runs; what the list is made of is not known.
            "for f in tests/*.sh; do :; done\nbash \"$g\"\n",
            "for f in $(git ls-files tests); do bash \"$f\"; done\n",
            "for f in $UNSET/*.sh; do bash \"$f\"; done\n",
            "for f in /etc/profile.d/*.sh; do . \"$f\"; done\n",
            "for f in tests/*.py; do bash \"$f\"; done\n",
        ] {
            assert!(at_root(code).is_empty(), "{code}");
        }
        // After the loop its body is over.
        assert!(at_root("for f in tests/*.sh; do echo \"$f\"; done\nbash \"$f\"\n").is_empty());
    }

    #[test]
    fn a_loop_runs_at_most_a_bounded_number_of_files() {
        let mut fs = MemFs::new();
        for i in 0..200 {
            fs = fs.file(format!("/w/t/test_{i:03}.sh"), "");
        }
        let got = steps_of(
            &fs,
            "/w/run",
            "for f in t/test_*.sh; do bash \"$f\"; done\n",
        );
        assert_eq!(got.len(), MAX_LOOP_FILES);
    }
}
