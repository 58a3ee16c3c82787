//! What a shell script takes from the project files it sources (`\. ../../nvm.sh`,
//! `source "$(dirname "$0")/lib/env.sh"`): the place variables (`NVM_DIR`, `PYENV_ROOT`, ...)
//! it uses that those files set. The static analyser reads `$NVM_DIR` after such a line as the
//! folder the project chose, not as the user's own install of the tool.
//!
//! Only literal paths, the script's own folder (`$(dirname "$0")`, `${BASH_SOURCE%/*}`, a
//! variable set from one of those) and paths under it are followed, inside the root, two files
//! deep; every file read is a dependency of the script (through `Fs`).
//!
//! The files themselves are kept too (`CommandItem::sourced`: path, where it is sourced, a hash
//! of its text): sourcing runs a file's code at that line, so the analyser reads it there.

use super::SourceFile;
use super::common::normalize_path;
use crate::model::SourcedFile;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Sourced files read for one script, nested ones included.
const MAX_FILES: usize = 16;
/// The text of one file whose code the analyser reads with the script, and of all of them: a
/// bound on the work of analysing every script that sources a file.
const MAX_CODE: usize = 48 * 1024;
const MAX_BYTES: usize = 128 * 1024;
/// `a.sh` sources `b.sh`, which sources `c.sh`.
const MAX_DEPTH: usize = 2;

/// Whether `name` names a place a tool or project lives in: `PYENV_ROOT`, `NVM_DIR`,
/// `CARGO_HOME`, `BUN_INSTALL`, `N_PREFIX`, `GOPATH` (the shapes the analyser reads as a
/// tool's home).
pub(crate) fn is_place_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["_ROOT", "_DIR", "_HOME", "_INSTALL", "_PREFIX"]
        .iter()
        .any(|s| upper.len() > s.len() && upper.ends_with(s))
        || matches!(upper.as_str(), "GOPATH" | "GOROOT" | "RVM_PATH")
}

/// What a script takes from the project files it sources.
#[derive(Debug, Default)]
pub(crate) struct Sourced {
    /// The place variables the script reads that those files set, sorted.
    pub vars: Vec<String>,
    /// The files, shallowest first (`CommandItem::sourced`).
    pub files: Vec<SourcedFile>,
}

/// What `content` (the script `file`) takes from the project files it sources: every file it
/// sources (nested ones too, within the limits), and the place variables they set.
pub(crate) fn sourced(file: &SourceFile<'_>, content: &str) -> Sourced {
    // A name the script sets itself needs no other file, unless it only gives the caller's
    // value a default (`X="${X:-…}"`), which the analyser does not count as setting it.
    let sets_itself = |n: &str| {
        assigns(content, n)
            && !["-", ":-", "=", ":="]
                .iter()
                .any(|op| content.contains(&format!("${{{n}{op}")))
    };
    let wanted: BTreeSet<String> = used_names(content)
        .into_iter()
        .filter(|n| is_place_name(n) && !sets_itself(n))
        .collect();
    let cwd = file.dir();
    let mut found: BTreeSet<String> = BTreeSet::new();
    let mut files: Vec<SourcedFile> = Vec::new();
    let mut seen: Vec<PathBuf> = vec![file.path.to_path_buf()];
    let mut bytes = 0usize;
    // Breadth first, so a file sourced both by the script and by a file it sources is read
    // where the script sources it.
    // (file, depth, the file sourcing it: `None` for the script, `Some(None)` for one whose
    // code is not kept, line).
    type Queued = (PathBuf, usize, Option<Option<usize>>, u32);
    let mut queue: std::collections::VecDeque<Queued> =
        sourced_files(file, content, file.path, cwd)
            .into_iter()
            .map(|(p, line)| (p, 1, None, line))
            .collect();
    while let Some((path, depth, from, line)) = queue.pop_front() {
        if seen.contains(&path) || seen.len() > MAX_FILES {
            continue;
        }
        seen.push(path.clone());
        let Some(text) = file.fs.read(&path) else {
            continue;
        };
        for name in &wanted {
            if assigns(&text, name) {
                found.insert(name.clone());
            }
        }
        let from = match from {
            None => Some(None),
            Some(Some(i)) => Some(Some(i)),
            Some(None) => None,
        };
        // A big library (nvm.sh) is not read into every script that sources it: only the place
        // variables it sets count, as for the files it sources.
        let keep = from.is_some() && text.len() <= MAX_CODE && bytes + text.len() <= MAX_BYTES;
        let index = keep.then_some(files.len());
        if depth < MAX_DEPTH {
            for (p, l) in sourced_files(file, &text, &path, cwd) {
                queue.push_back((p, depth + 1, Some(index), l));
            }
        }
        let (Some(index), Some(from)) = (index, from) else {
            continue;
        };
        bytes += text.len();
        debug_assert_eq!(index, files.len());
        files.push(SourcedFile {
            rel: path
                .strip_prefix(file.root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned(),
            path: path.clone(),
            root: file.root.to_path_buf(),
            from,
            line,
            hash: sha256_hex(&text),
        });
    }
    Sourced {
        vars: found.into_iter().collect(),
        files,
    }
}

fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The names `$NAME` and `${NAME…}` read in `text`.
fn used_names(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' {
            let start = if b.get(i + 1) == Some(&b'{') {
                i + 2
            } else {
                i + 1
            };
            let len = b[start.min(b.len())..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            if len > 0 && !b[start].is_ascii_digit() {
                out.insert(text[start..start + len].to_string());
            }
            i = start + len;
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `text` sets `name`: `NAME=…` where a command starts (`export`, `local`, `declare`,
/// `readonly` before it too), or `${NAME:=…}`.
pub(crate) fn assigns(text: &str, name: &str) -> bool {
    let eq = format!("{name}=");
    let mut from = 0;
    while let Some(at) = text[from..].find(&eq) {
        let i = from + at;
        let before = text[..i].chars().next_back();
        if before
            .is_none_or(|c| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | '{' | '`'))
        {
            return true;
        }
        from = i + eq.len();
    }
    text.contains(&format!("${{{name}:=")) || text.contains(&format!("${{{name}="))
}

/// The project files `text` (the file at `path`) sources, in order, each with the 1-based line
/// of its `source` command. Literal relative paths are taken from `cwd`, where the script runs,
/// or else from the root (a script in a subfolder written to be run from the project root,
/// `source scripts/_lib.sh`); the file's own folder from `path`.
fn sourced_files(
    file: &SourceFile<'_>,
    text: &str,
    path: &Path,
    cwd: &Path,
) -> Vec<(PathBuf, u32)> {
    let here = path.parent().unwrap_or(file.root);
    // Found with the standard library's searcher: a big sourced library (nvm.sh) is read for
    // every test that sources it.
    let mut starts: Vec<(usize, usize)> = [". ", "source "]
        .iter()
        .flat_map(|p| text.match_indices(p).map(|(i, m)| (i, i + m.len())))
        .filter(|&(i, _)| command_start(text, i))
        .collect();
    starts.sort_unstable();
    let mut out: Vec<(PathBuf, u32)> = Vec::new();
    for (at, after) in starts {
        let line_end = text[after..].find('\n').map_or(text.len(), |n| after + n);
        let Some(word) = first_word(text[after..line_end].trim_start()) else {
            continue;
        };
        let Some(target) = resolve(&word, here, cwd, text) else {
            continue;
        };
        let usable = |t: &Path| t.starts_with(file.root) && file.fs.is_file(t);
        let mut target = normalize_path(&target);
        let literal = word.replace(['"', '\''], "");
        if !usable(&target) && !literal.contains(['$', '`']) {
            target = normalize_path(&file.root.join(literal));
        }
        if usable(&target) && !out.iter().any(|(p, _)| *p == target) {
            let line = text[..at].bytes().filter(|b| *b == b'\n').count() as u32 + 1;
            out.push((target, line));
        }
    }
    out
}

/// Whether a command starts at byte `i` of `text` (`\.` counts as `.`): at the start of a
/// line or after `;`, `&&`, `||`, `|`, `{`, `(`, `then`, `do`, `else`, `!`.
fn command_start(text: &str, i: usize) -> bool {
    let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
    let before = text[line_start..i]
        .strip_suffix('\\')
        .unwrap_or(&text[line_start..i]);
    let before = before.trim_end();
    before.is_empty()
        || before.ends_with([';', '&', '|', '{', '(', '!'])
        || ["then", "do", "else"].iter().any(|k| {
            before
                .strip_suffix(k)
                .is_some_and(|r| r.is_empty() || r.ends_with([' ', '\t', ';']))
        })
}

/// The first shell word of `s`, quotes kept; a `;`, `&` or `|` outside quotes ends it.
fn first_word(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    for c in s.chars() {
        match quote {
            Some(q) if c == q && depth == 0 => quote = None,
            Some(_) => {
                if c == '(' {
                    depth += 1;
                } else if c == ')' {
                    depth = depth.saturating_sub(1);
                }
            }
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '(' => depth += 1,
            None if c == ')' => depth = depth.saturating_sub(1),
            None if depth == 0 && (c.is_whitespace() || matches!(c, ';' | '&' | '|')) => break,
            None => {}
        }
        out.push(c);
    }
    (!out.is_empty()).then_some(out)
}

/// The folder `text` sets the variable `name` to, when that is its own folder or one near it
/// (`DIR=$(dirname "$0")`, `ROOT="$(cd "$(dirname "$0")/.." && pwd)"`), also through another
/// such variable (`HELPERS_DIR="$CURRENT_DIR/helpers"`); the first such assignment counts.
fn folder_var(text: &str, name: &str, here: &Path) -> Option<PathBuf> {
    folder_var_within(text, name, here, 0)
}

/// [`folder_var`] at `depth` variables deep: a chain longer than four is not followed.
fn folder_var_within(text: &str, name: &str, here: &Path, depth: usize) -> Option<PathBuf> {
    let eq = format!("{name}=");
    let mut from = 0;
    while let Some(at) = text[from..].find(&eq) {
        let i = from + at;
        from = i + eq.len();
        let line_start = text[..i].rfind('\n').map_or(0, |n| n + 1);
        let before = text[line_start..i].trim();
        if !matches!(before, "" | "export" | "local" | "readonly" | "declare") {
            continue;
        }
        let value = &text[from..text[from..].find('\n').map_or(text.len(), |n| from + n)];
        let Some(word) = first_word(value).map(|w| unquote(&w)) else {
            continue;
        };
        if let Some(dir) = folder_of(&word, here) {
            return Some(dir);
        }
        if depth < 4
            && let Some((var, tail)) = var_head(&word)
            && var != name
            && let Some(dir) = folder_var_within(text, var, here, depth + 1)
        {
            return Some(join_tail(&dir, tail));
        }
    }
    None
}

/// A path made of one variable and a literal rest: `$DIR/lib` or `${DIR}/lib` as `DIR` and
/// `/lib`.
fn var_head(w: &str) -> Option<(&str, &str)> {
    let rest = w.strip_prefix('$')?;
    let (name, tail) = match rest.strip_prefix('{') {
        Some(r) => r.split_once('}')?,
        None => {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            rest.split_at(end)
        }
    };
    (!name.is_empty() && !tail.contains(['$', '`'])).then_some((name, tail))
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    if s.len() >= 2
        && ((s.starts_with('"') && s.ends_with('"')) || (s.starts_with('\'') && s.ends_with('\'')))
    {
        s[1..s.len() - 1].to_string()
    } else {
        s.to_string()
    }
}

/// The folder `expr` stands for when it is the script's own folder or a path from it:
/// `$(dirname "$0")`, `${BASH_SOURCE%/*}`, `$(cd "$(dirname "$0")/.." && pwd)`,
/// `$(dirname "$(dirname "$0")")`.
fn folder_of(expr: &str, here: &Path) -> Option<PathBuf> {
    let expr = expr.trim();
    let (head, tail) = split_head(expr)?;
    let base = head_folder(head, here)?;
    Some(join_tail(&base, tail))
}

/// `expr` as its leading expansion and the rest (`$(dirname "$0")` and `/../lib`).
fn split_head(expr: &str) -> Option<(&str, &str)> {
    let open = if expr.starts_with("$(") {
        '('
    } else if expr.starts_with("${") {
        '{'
    } else if let Some(inner) = expr.strip_prefix('`') {
        let end = inner.find('`')? + 2;
        return Some((&expr[..end], &expr[end..]));
    } else {
        return None;
    };
    let close = if open == '(' { ')' } else { '}' };
    let mut depth = 0usize;
    for (i, c) in expr.char_indices().skip(1) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some((&expr[..=i], &expr[i + 1..]));
            }
        }
    }
    None
}

fn head_folder(head: &str, here: &Path) -> Option<PathBuf> {
    let script = |s: &str| {
        let s = unquote(s.trim());
        matches!(
            s.as_str(),
            "$0" | "${0}" | "$BASH_SOURCE" | "${BASH_SOURCE}" | "${BASH_SOURCE[0]}"
        )
    };
    if let Some(inner) = head.strip_prefix("${").and_then(|h| h.strip_suffix('}')) {
        let (name, op) = inner.split_at(inner.find(['%', '#', ':']).unwrap_or(inner.len()));
        return (matches!(name, "0" | "BASH_SOURCE" | "BASH_SOURCE[0]") && op == "%/*")
            .then(|| here.to_path_buf());
    }
    let inner = head
        .strip_prefix("$(")
        .and_then(|h| h.strip_suffix(')'))
        .or_else(|| head.strip_prefix('`').and_then(|h| h.strip_suffix('`')))?
        .trim();
    if let Some(arg) = inner.strip_prefix("dirname ") {
        let arg = arg.trim().trim_start_matches("-- ").trim();
        if script(arg) {
            return Some(here.to_path_buf());
        }
        // `$(dirname "$(dirname "$0")")`: the folder above.
        return folder_of(&unquote(arg), here)?
            .parent()
            .map(Path::to_path_buf);
    }
    // `$(cd "$(dirname "$0")/.." && pwd)`, `$(cd -P -- "…"; pwd -P)`.
    let cd = inner.strip_prefix("cd ")?;
    let (target, then) = cd.split_once("&&").or_else(|| cd.split_once(';'))?;
    if !then.trim().starts_with("pwd") {
        return None;
    }
    let target = target
        .split_whitespace()
        .filter(|w| !w.starts_with('-'))
        .collect::<Vec<_>>()
        .join(" ");
    folder_of(&unquote(&target), here)
}

fn join_tail(base: &Path, tail: &str) -> PathBuf {
    let tail = unquote(tail);
    let tail = tail.trim_start_matches('/');
    if tail.is_empty() {
        base.to_path_buf()
    } else {
        normalize_path(&base.join(tail))
    }
}

/// Where a `source` word points: a literal relative path from `cwd`, or a path from the
/// script's own folder; `None` for anything else.
fn resolve(word: &str, here: &Path, cwd: &Path, text: &str) -> Option<PathBuf> {
    let w = word.replace('"', "");
    let w = w.trim_matches('\'');
    if w.is_empty() || w.starts_with('/') || w.starts_with('~') {
        return None;
    }
    if !w.contains(['$', '`']) {
        return Some(cwd.join(w));
    }
    if let Some(dir) = folder_of(word.trim_matches('"'), here) {
        return Some(dir);
    }
    // `"$DIR/lib.sh"`, `"${ROOT}"/env.sh` with DIR set to the script's folder.
    let (name, tail) = var_head(w)?;
    Some(join_tail(&folder_var(text, name, here)?, tail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;

    fn vars(fs: &MemFs, path: &str, content: &str) -> Vec<String> {
        let file = SourceFile {
            path: Path::new(path),
            content,
            executable: true,
            root: Path::new("/w"),
            fs,
        };
        sourced(&file, content).vars
    }

    #[test]
    fn place_variables_set_by_sourced_project_files() {
        let fs = MemFs::new()
            .file(
                "/w/nvm.sh",
                "if [ -z \"${NVM_DIR-}\" ]; then\n  NVM_DIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\nfi\n",
            )
            .file("/w/test/common.sh", "die() { exit 1; }\n")
            .file("/w/lib/env.sh", "export TOOL_HOME=\"$PWD/.tool\"\n")
            .file("/w/lib/outer.sh", ". ./lib/env.sh\n");
        // `\.` and `.` with a path from where the test runs.
        let t = "\\. ../../nvm.sh\nrm -rf \"$NVM_DIR/v0.1\"\n";
        assert_eq!(vars(&fs, "/w/test/fast/t", t), ["NVM_DIR"]);
        let t = ": nvm.sh\n. ../common.sh\nrm -rf \"$NVM_DIR/v0.1\"\n";
        assert!(vars(&fs, "/w/test/fast/t", t).is_empty());
        // The script's own folder, directly or through a variable.
        let t = "source \"$(dirname \"$0\")/../lib/env.sh\"\necho \"$TOOL_HOME\"\n";
        assert_eq!(vars(&fs, "/w/bin/x", t), ["TOOL_HOME"]);
        let t = "DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")/..\" && pwd)\"\n\
                 . \"$DIR/lib/env.sh\"\necho $TOOL_HOME\n";
        assert_eq!(vars(&fs, "/w/bin/x", t), ["TOOL_HOME"]);
        // A folder variable set from another (`HELPERS_DIR="$CURRENT_DIR/helpers"`).
        let t = "CURRENT_DIR=\"$( cd \"$( dirname \"${BASH_SOURCE[0]}\" )\" && pwd )\"\n\
                 LIB_DIR=\"$CURRENT_DIR/../lib\"\nsource \"$LIB_DIR/env.sh\"\necho $TOOL_HOME\n";
        assert_eq!(vars(&fs, "/w/bin/x", t), ["TOOL_HOME"]);
        // A variable set from itself is no folder.
        let t = "D=\"$D/lib\"\nsource \"$D/env.sh\"\necho $TOOL_HOME\n";
        assert!(vars(&fs, "/w/x.sh", t).is_empty());
        let t = "source \"${BASH_SOURCE%/*}/../lib/env.sh\"; echo $TOOL_HOME\n";
        assert_eq!(vars(&fs, "/w/bin/x", t), ["TOOL_HOME"]);
        let t = ". \"$(dirname \"$(dirname \"$0\")\")/lib/env.sh\"\necho $TOOL_HOME\n";
        assert_eq!(vars(&fs, "/w/bin/x", t), ["TOOL_HOME"]);
        // Two files deep.
        assert_eq!(
            vars(&fs, "/w/x.sh", ". lib/outer.sh\necho $TOOL_HOME\n"),
            ["TOOL_HOME"]
        );
        // The files themselves, with the line that sources each and the file it is sourced
        // from; a path from the root also serves a script in a subfolder.
        let file = SourceFile {
            path: Path::new("/w/scripts/reset.sh"),
            content: "",
            executable: true,
            root: Path::new("/w"),
            fs: &fs,
        };
        let got = sourced(&file, "cmd=reset\nsource lib/outer.sh\n$cmd\n").files;
        let rels: Vec<(&str, Option<usize>, u32)> = got
            .iter()
            .map(|f| (f.rel.as_str(), f.from, f.line))
            .collect();
        assert_eq!(
            rels,
            [("lib/outer.sh", None, 2), ("lib/env.sh", Some(0), 1)]
        );
        assert_eq!(got[1].hash.len(), 64);
        // A file chosen at run time, or outside the project, tells nothing.
        let t = "for s in $hooks; do source \"$s\"; done\nsource ~/.toolrc\necho $TOOL_HOME\n";
        assert!(vars(&fs, "/w/x.sh", t).is_empty());
    }
}
