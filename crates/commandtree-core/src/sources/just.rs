//! `justfile` recipes (upstream §3.12), fixing the [ACTUAL] bugs of §17.4.
//!
//! Works like just's own parser at the level that matters for listing: items start at column 0
//! (indented lines are recipe bodies and are never items), so `set`, `alias`, `export`,
//! `unexport`, assignments (`x := y`), `import` and `mod` are told apart from recipe headers by
//! the same token lookahead just uses. A column-0 line continues onto the next lines while a
//! `(`/`[`/`{` or a triple-quoted string is open, or after a trailing `\`.
//!
//! The doc of a recipe is the comment on the line right above it (attribute lines may come in
//! between, a blank line breaks it), overridden by `[doc('...')]`. `_name` and `[private]`
//! recipes are listed as private and hidden, as `just --list` hides them; `alias b := build`
//! is shown on its recipe (private aliases are not, as in `just --list`). Imports are merged into the importing file; modules give
//! `mod::recipe` names run as `just mod recipe`. Both are read through `file.fs`; their recipes
//! are listed on the root justfile and know the file and line that define them
//! (`CommandItem::defined_in`).
//!
//! A recipe's steps are its dependencies (`build: clean (test "x") && notify`, names inside a
//! module qualified with its path) and the recipes its body runs with `just x` (read the way
//! just reads its command line: module paths, then as many arguments as the recipe takes).

use super::calls::{just_call, simple_commands};
use super::common::{IncludeGuard, MAX_INCLUDED_FILES, Refusal, normalize_path};
use super::{Parsed, SourceFile};
use crate::model::{CommandItem, Definition, ParamDef, StepHow, StepRef};
use crate::text;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

const KIND: &str = "just";

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let mut ctx = Ctx {
        file,
        base: base_command(file),
        out: Parsed::default(),
        guard: IncludeGuard::new(file.path),
        aliases: Vec::new(),
        modules: HashSet::new(),
        calls: Vec::new(),
    };
    let scope = Scope {
        modules: Vec::new(),
        stmt_line: None,
        calls_from: Vec::new(),
    };
    ctx.justfile(file.path, file.content, &scope, 0);
    for (target, alias) in std::mem::take(&mut ctx.aliases) {
        if let Some(c) = ctx.out.commands.iter_mut().find(|c| c.id_name() == target)
            && !c.aliases.contains(&alias)
        {
            c.aliases.push(alias);
        }
    }
    ctx.resolve_calls();
    ctx.out
}

/// just refuses to pick between two candidate justfiles in one folder (`justfile` and
/// `.justfile`, or two spellings on a case-sensitive file system); naming the file avoids that.
fn base_command(file: &SourceFile<'_>) -> String {
    let name = &*file.file_name();
    let is_candidate =
        |n: &str| n.eq_ignore_ascii_case("justfile") || n.eq_ignore_ascii_case(".justfile");
    let rival = file.fs.list_dir(file.dir()).iter().any(|p| {
        let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        n != name && is_candidate(n)
    });
    if rival {
        format!("just --justfile {}", text::sh_word(name))
    } else {
        "just".to_string()
    }
}

struct Ctx<'a, 'f> {
    file: &'a SourceFile<'f>,
    base: String,
    out: Parsed,
    guard: IncludeGuard,
    /// (full recipe name, alias) pairs, attached once every recipe is known (an alias may come
    /// before its recipe).
    aliases: Vec<(String, String)>,
    /// Full paths of the modules met (`db`, `db::seed`).
    modules: HashSet<String>,
    /// `just ...` calls in recipe bodies: (index of the recipe's command, the module path the
    /// call's names are relative to, the call's words). Read once every recipe is known.
    calls: Vec<(usize, Vec<String>, Vec<String>)>,
}

struct Scope {
    /// Module names leading to the file being read (`["db", "seed"]`).
    modules: Vec<String>,
    /// Line of the root's `import`/`mod` statement that led here: lines always refer to the
    /// root justfile, which is every item's `filePath`.
    stmt_line: Option<usize>,
    /// The module path a `just x` in a recipe body of this file names from: just looks for a
    /// justfile upward from the recipe's folder, so a module that is itself a `justfile` is
    /// found first; any other file's calls reach the root justfile.
    calls_from: Vec<String>,
}

impl Ctx<'_, '_> {
    fn justfile(&mut self, path: &Path, content: &str, scope: &Scope, depth: usize) {
        let dir = path.parent().unwrap_or(Path::new("/"));
        for item in items(content) {
            match item {
                Item::Recipe(r) => self.recipe(r, scope, path),
                Item::Alias { name, target } => {
                    let mut path = scope.modules.clone();
                    path.push(target);
                    self.aliases.push((path.join("::"), name));
                }
                Item::Import {
                    path: rel,
                    optional,
                    line,
                } => {
                    let target = expand(dir, &rel).filter(|p| self.file.fs.is_file(p));
                    let Some(target) = target else {
                        if !optional {
                            self.out.warn(
                                path,
                                Some(line),
                                format!("imported file `{rel}` not found"),
                            );
                        }
                        continue;
                    };
                    let child = Scope {
                        modules: scope.modules.clone(),
                        stmt_line: scope.stmt_line.or(Some(line)),
                        calls_from: scope.calls_from.clone(),
                    };
                    self.follow(path, line, &target, &child, depth);
                }
                Item::Module {
                    name,
                    path: rel,
                    optional,
                    line,
                } => {
                    let Some(target) = self.module_file(dir, &name, rel.as_deref()) else {
                        if !optional {
                            self.out
                                .warn(path, Some(line), format!("module `{name}` not found"));
                        }
                        continue;
                    };
                    let mut modules = scope.modules.clone();
                    modules.push(name);
                    self.modules.insert(modules.join("::"));
                    let is_justfile =
                        target
                            .file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| {
                                n.eq_ignore_ascii_case("justfile")
                                    || n.eq_ignore_ascii_case(".justfile")
                            });
                    let calls_from = if is_justfile {
                        modules.clone()
                    } else {
                        scope.calls_from.clone()
                    };
                    let child = Scope {
                        modules,
                        stmt_line: scope.stmt_line.or(Some(line)),
                        calls_from,
                    };
                    self.follow(path, line, &target, &child, depth);
                }
            }
        }
    }

    fn follow(&mut self, from: &Path, line: usize, target: &Path, scope: &Scope, depth: usize) {
        if let Err(refusal) = self.guard.check(target, depth) {
            let message = match refusal {
                Refusal::Cycle => format!(
                    "`{}` is imported in a cycle; not followed",
                    target.display()
                ),
                Refusal::TooDeep => {
                    format!("`{}` is nested too deeply; not followed", target.display())
                }
                Refusal::TooManyFiles { first: false } => return,
                Refusal::TooManyFiles { first: true } => {
                    format!("more than {MAX_INCLUDED_FILES} imported files; the rest are skipped")
                }
            };
            self.out.warn(from, Some(line), message);
            return;
        }
        let Some(content) = self.file.fs.read(target) else {
            self.out.warn(
                from,
                Some(line),
                format!("`{}` is unreadable", target.display()),
            );
            return;
        };
        self.guard.count_file();
        self.guard.enter(target);
        self.justfile(target, &content, scope, depth + 1);
        self.guard.leave();
    }

    /// just's search: `mod x 'path'` (a file, or a folder holding a justfile), else `x.just`,
    /// `x/mod.just`, `x/justfile` (any capitalisation), `x/.justfile`.
    fn module_file(&self, dir: &Path, name: &str, rel: Option<&str>) -> Option<PathBuf> {
        let fs = self.file.fs;
        if let Some(rel) = rel {
            let p = expand(dir, rel)?;
            if fs.is_file(&p) {
                return Some(p);
            }
            return justfile_in(fs, &p);
        }
        let flat = dir.join(format!("{name}.just"));
        if fs.is_file(&flat) {
            return Some(flat);
        }
        let sub = dir.join(name);
        let nested = sub.join("mod.just");
        if fs.is_file(&nested) {
            return Some(nested);
        }
        justfile_in(fs, &sub)
    }

    fn recipe(&mut self, r: Recipe, scope: &Scope, defined_in: &Path) {
        let mut path = scope.modules.clone();
        path.push(r.name.clone());
        let full = path.join("::");
        let words: Vec<String> = path.iter().map(|w| text::sh_word(w)).collect();
        let command = format!("{} {}", self.base, words.join(" "));
        let mut item = CommandItem::new(KIND, self.file.path, &full, command)
            .opt_description(r.doc)
            .params(r.params)
            .private(r.private || r.name.starts_with('_'))
            .line(scope.stmt_line.unwrap_or(r.line));
        item.hidden = item.private;
        item.group = r.group;
        if scope.stmt_line.is_some() {
            item.defined_in = Some(Definition {
                file: defined_in.to_path_buf(),
                line: u32::try_from(r.line).ok(),
                root: self.file.root.to_path_buf(),
            });
        }
        let qualify = |dep: &str| {
            let mut p = scope.modules.clone();
            p.push(dep.to_string());
            p.join("::")
        };
        for (deps, how) in [
            (&r.deps, StepHow::Prerequisite),
            (&r.post_deps, StepHow::Hook),
        ] {
            for d in deps {
                item.steps.push(StepRef::new(qualify(d), how, true));
            }
        }
        let at = self.out.commands.len();
        for call in body_calls(&r.body) {
            self.calls.push((at, scope.calls_from.clone(), call));
        }
        self.out.commands.push(item);
    }

    /// Reads each `just ...` call of a recipe body the way just reads its command line: a
    /// module path, then the recipe, then as many arguments as it takes, then the next recipe.
    fn resolve_calls(&mut self) {
        let calls = std::mem::take(&mut self.calls);
        if calls.is_empty() {
            return;
        }
        // Recipes (and aliases) by full name: how many arguments each takes.
        let mut takes: HashMap<String, usize> = HashMap::new();
        for c in &self.out.commands {
            let n = if c.params.iter().any(|p| p.variadic) {
                usize::MAX
            } else {
                c.params.len()
            };
            takes.insert(c.id_name().to_string(), n);
            let module = c.id_name().rsplit_once("::").map(|(m, _)| m);
            for a in &c.aliases {
                let full = match module {
                    Some(m) => format!("{m}::{a}"),
                    None => a.clone(),
                };
                takes.entry(full).or_insert(n);
            }
        }
        for (at, base, words) in calls {
            let mut i = 0;
            while i < words.len() {
                let mut path = base.clone();
                path.extend(words[i].split("::").map(str::to_string));
                i += 1;
                while self.modules.contains(&path.join("::")) && i < words.len() {
                    path.extend(words[i].split("::").map(str::to_string));
                    i += 1;
                }
                let full = path.join("::");
                let known = takes.get(&full).copied();
                let step = StepRef::new(&full, StepHow::Call, true);
                if let Some(c) = self.out.commands.get_mut(at)
                    && !c.steps.contains(&step)
                {
                    c.steps.push(step);
                }
                match known {
                    Some(n) => i = i.saturating_add(n.min(words.len() - i)),
                    // Whatever follows an unknown recipe cannot be read.
                    None => break,
                }
            }
        }
    }
}

fn justfile_in(fs: &dyn crate::fs::Fs, dir: &Path) -> Option<PathBuf> {
    let entries = fs.list_dir(dir);
    let find = |want: &str| {
        entries
            .iter()
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.eq_ignore_ascii_case(want))
            })
            .filter(|p| fs.is_file(p))
            .cloned()
    };
    find("justfile").or_else(|| find(".justfile"))
}

/// A path from an `import`/`mod` statement, relative to the file's folder. `~/` paths point
/// outside the workspace and are not followed.
fn expand(dir: &Path, rel: &str) -> Option<PathBuf> {
    if rel.starts_with('~') || rel.is_empty() {
        return None;
    }
    Some(normalize_path(&dir.join(rel)))
}

// ---- items ----

#[derive(Debug)]
struct Recipe {
    name: String,
    params: Vec<ParamDef>,
    doc: Option<String>,
    private: bool,
    group: Option<String>,
    line: usize,
    /// Dependencies run before it, then after it (`&&`), as written (relative to its module).
    deps: Vec<String>,
    post_deps: Vec<String>,
    /// Its body: the indented lines below the header.
    body: String,
}

/// The `just ...` calls of a recipe body, as their positional words. `{{just_executable()}}`
/// is `just`; any other interpolation is a value known only when just runs.
fn body_calls(body: &str) -> Vec<Vec<String>> {
    if !body.contains("just") {
        return Vec::new();
    }
    // Each line runs in a shell of its own (a `cd` on one line does not move the next), unless
    // the body is a script (`#!` first).
    let script = body.trim_start().starts_with("#!");
    let mut shells: Vec<String> = vec![String::new()];
    for line in body.lines() {
        let t = line.trim_start().trim_start_matches(['@', '-']);
        let Some(current) = shells.last_mut() else {
            break;
        };
        current.push_str(&interpolations_to_shell(t));
        current.push('\n');
        if !script && !t.trim_end().ends_with('\\') {
            shells.push(String::new());
        }
    }
    shells
        .iter()
        .flat_map(|s| simple_commands(s))
        .filter_map(|c| just_call(&c))
        .collect()
}

/// `{{ just_executable() }}` becomes `just`, `{{{{` a literal `{{`, any other `{{...}}` a shell
/// variable.
fn interpolations_to_shell(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        if let Some(tail) = after.strip_prefix("{{") {
            out.push_str("{{");
            rest = tail;
            continue;
        }
        let Some(end) = after.find("}}") else {
            out.push_str("$JUSTVAR");
            return out;
        };
        let expr: String = after[..end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        out.push_str(if expr == "just_executable()" {
            "just"
        } else {
            "$JUSTVAR"
        });
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

#[derive(Debug)]
enum Item {
    Recipe(Recipe),
    Alias {
        name: String,
        target: String,
    },
    Import {
        path: String,
        optional: bool,
        line: usize,
    },
    Module {
        name: String,
        path: Option<String>,
        optional: bool,
        line: usize,
    },
}

#[derive(Default)]
struct Attrs {
    private: bool,
    group: Option<String>,
    /// `Some(None)` for a bare `[doc]`, which removes the comment doc.
    doc: Option<Option<String>>,
}

fn items(content: &str) -> Vec<Item> {
    let lines: Vec<&str> = content.lines().collect();
    let mut out = Vec::new();
    let mut doc: Option<String> = None;
    let mut attrs = Attrs::default();
    // Indented lines belong to the recipe just read (blank lines do not end a body).
    let mut in_body = false;
    let mut i = 0;
    while let Some(&line) = lines.get(i) {
        let line_no = i + 1;
        if line.trim().is_empty() {
            doc = None;
            i += 1;
            continue;
        }
        if line.starts_with([' ', '\t']) {
            // A recipe body, or the inside of something that already ended with an error.
            if let Some(Item::Recipe(r)) = out.last_mut()
                && in_body
            {
                r.body.push_str(line);
                r.body.push('\n');
            }
            doc = None;
            attrs = Attrs::default();
            i += 1;
            continue;
        }
        in_body = false;
        if let Some(comment) = line.strip_prefix('#') {
            doc = Some(comment.trim().to_string()).filter(|d| !d.is_empty());
            i += 1;
            continue;
        }
        let (code, used) = logical_line(&lines[i..]);
        i += used;
        let chars: Vec<char> = code.chars().collect();
        let mut pos = 0;
        if chars.first() == Some(&'[') {
            while chars.get(pos) == Some(&'[') {
                let Some(next) = attributes(&chars, pos, &mut attrs) else {
                    pos = chars.len();
                    break;
                };
                pos = skip_ws(&chars, next);
            }
            if pos >= chars.len() {
                // Attributes on their own line apply to the next item; the doc comment above
                // them still counts.
                continue;
            }
        }
        if let Some(item) = item(
            &chars[pos..],
            line_no,
            doc.take(),
            std::mem::take(&mut attrs),
        ) {
            in_body = matches!(item, Item::Recipe(_));
            out.push(item);
        }
        doc = None;
    }
    out
}

/// One item from its code (comments dropped). `None` for settings, aliases, assignments and
/// anything that is not a recipe header.
fn item(chars: &[char], line: usize, doc: Option<String>, attrs: Attrs) -> Option<Item> {
    let (quiet, start) = match chars.first() {
        Some('@') => (true, 1),
        _ => (false, 0),
    };
    let (word, after) = ident(chars, start)?;
    let rest = skip_ws(chars, after);
    let at = |i: usize| chars.get(i).copied();
    let next_ident_end = ident(chars, rest).map(|(_, end)| end);
    let followed_by = |tail: &str| {
        next_ident_end.is_some_and(|end| {
            let j = skip_ws(chars, end);
            match tail {
                ":=" => at(j) == Some(':') && at(j + 1) == Some('='),
                "eol" => j >= chars.len(),
                "string" => matches!(at(j), Some('\'' | '"')),
                _ => false,
            }
        })
    };
    if !quiet {
        match word.as_str() {
            "alias" if followed_by(":=") => {
                let (name, end) = ident(chars, rest)?;
                let j = skip_ws(chars, end) + 2;
                let (target, _) = ident(chars, skip_ws(chars, j))?;
                if attrs.private || name.starts_with('_') {
                    return None;
                }
                return Some(Item::Alias { name, target });
            }
            "export" if followed_by(":=") => return None,
            "set" if followed_by(":=") || followed_by("eol") => return None,
            "unexport" if followed_by("eol") => return None,
            "import" if matches!(at(rest), Some('\'' | '"' | '?')) => {
                let optional = at(rest) == Some('?');
                let s = skip_ws(chars, if optional { rest + 1 } else { rest });
                let (path, _) = string_literal(chars, s)?;
                return Some(Item::Import {
                    path,
                    optional,
                    line,
                });
            }
            "mod" if at(rest) == Some('?') || followed_by("eol") || followed_by("string") => {
                let optional = at(rest) == Some('?');
                let s = skip_ws(chars, if optional { rest + 1 } else { rest });
                let (name, end) = ident(chars, s)?;
                let p = skip_ws(chars, end);
                let path = string_literal(chars, p).map(|(s, _)| s);
                return Some(Item::Module {
                    name,
                    path,
                    optional,
                    line,
                });
            }
            _ => {}
        }
        if at(rest) == Some(':') && at(rest + 1) == Some('=') {
            return None;
        }
    }
    let (params, colon) = header_params(chars, rest)?;
    let (deps, post_deps) = dependencies(chars, colon + 1);
    let doc = match attrs.doc {
        Some(d) => d,
        None => doc,
    };
    Some(Item::Recipe(Recipe {
        name: word,
        params,
        doc,
        private: attrs.private,
        group: attrs.group,
        line,
        deps,
        post_deps,
        body: String::new(),
    }))
}

/// The dependencies after a recipe header's `:` (at `i`): `a b::c (d "arg")`, then after `&&`
/// the ones that run after the recipe. A `:=`/`=` body or anything unreadable ends the list.
fn dependencies(chars: &[char], mut i: usize) -> (Vec<String>, Vec<String>) {
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let mut post = false;
    loop {
        i = skip_ws(chars, i);
        let Some(&c) = chars.get(i) else { break };
        let list = if post { &mut after } else { &mut before };
        if c == '&' && chars.get(i + 1) == Some(&'&') {
            post = true;
            i += 2;
            continue;
        }
        if c == '(' {
            let end = balanced(chars, i).unwrap_or(chars.len());
            let inner = skip_ws(chars, i + 1);
            if let Some((name, _)) = dep_path(chars, inner) {
                list.push(name);
            }
            i = end;
            continue;
        }
        match dep_path(chars, i) {
            Some((name, end)) => {
                list.push(name);
                i = end;
            }
            None => break,
        }
    }
    (before, after)
}

/// A dependency name, `mod::recipe` paths included.
fn dep_path(chars: &[char], i: usize) -> Option<(String, usize)> {
    let (mut name, mut end) = ident(chars, i)?;
    while chars.get(end) == Some(&':') && chars.get(end + 1) == Some(&':') {
        let Some((next, e)) = ident(chars, end + 2) else {
            break;
        };
        name.push_str("::");
        name.push_str(&next);
        end = e;
    }
    Some((name, end))
}

/// The parameters between a recipe name and its `:`, and the index of that `:`; `None` when
/// the text is not a recipe header. Dependencies after the `:` are not parameters.
fn header_params(chars: &[char], mut i: usize) -> Option<(Vec<ParamDef>, usize)> {
    let mut params = Vec::new();
    loop {
        i = skip_ws(chars, i);
        match chars.get(i)? {
            ':' => return (chars.get(i + 1) != Some(&'=')).then_some((params, i)),
            '+' | '*' | '$' => {}
            c if is_ident_start(*c) => {}
            _ => return None,
        }
        let mut variadic = None;
        while let Some(c @ ('+' | '*' | '$')) = chars.get(i) {
            if *c != '$' {
                variadic = Some(*c);
            }
            i += 1;
        }
        let (name, end) = ident(chars, i)?;
        i = skip_ws(chars, end);
        let mut p = ParamDef::new(name);
        p.variadic = variadic.is_some();
        if chars.get(i) == Some(&'=') && chars.get(i + 1) != Some(&'=') {
            i = skip_ws(chars, i + 1);
            let (value, end) = default_value(chars, i)?;
            i = end;
            match value {
                Default::Literal(s) => p = p.with_default(s),
                // The value is computed by just; leaving the param empty lets just use it.
                Default::Expr(e) => {
                    p = p.with_default("").with_description(format!("default: {e}"))
                }
            }
        } else if variadic == Some('*') {
            p = p.with_default("");
        }
        params.push(p);
    }
}

enum Default {
    Literal(String),
    Expr(String),
}

/// A parameter default: a string literal, or an expression (backtick, `(expr)`, variable,
/// function call) kept as written.
fn default_value(chars: &[char], i: usize) -> Option<(Default, usize)> {
    match chars.get(i)? {
        '\'' | '"' => string_literal(chars, i).map(|(s, end)| (Default::Literal(s), end)),
        '`' => {
            let end = skip_string(chars, i);
            Some((Default::Expr(chars[i..end].iter().collect()), end))
        }
        '(' => {
            let end = balanced(chars, i)?;
            Some((Default::Expr(chars[i..end].iter().collect()), end))
        }
        c if is_ident_start(*c) => {
            let (_, mut end) = ident(chars, i)?;
            if chars.get(end) == Some(&'(') {
                end = balanced(chars, end)?;
            }
            Some((Default::Expr(chars[i..end].iter().collect()), end))
        }
        _ => None,
    }
}

/// `[a]`, `[a, b('x')]`, `[group: 'x']` starting at `chars[open]`; returns the index after `]`.
fn attributes(chars: &[char], open: usize, attrs: &mut Attrs) -> Option<usize> {
    let mut i = open + 1;
    loop {
        i = skip_ws(chars, i);
        match chars.get(i)? {
            ']' => return Some(i + 1),
            ',' => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let (name, end) = ident(chars, i)?;
        i = skip_ws(chars, end);
        let mut args = Vec::new();
        match chars.get(i) {
            Some('(') => {
                i += 1;
                loop {
                    i = skip_ws(chars, i);
                    match chars.get(i)? {
                        ')' => {
                            i += 1;
                            break;
                        }
                        ',' => i += 1,
                        '\'' | '"' => {
                            let (s, end) = string_literal(chars, i)?;
                            args.push(s);
                            i = end;
                        }
                        // `[arg("n", long="x")]` and other key=value forms carry nothing we use.
                        _ => i += 1,
                    }
                }
            }
            Some(':') => {
                let s = skip_ws(chars, i + 1);
                let (v, end) = string_literal(chars, s)?;
                args.push(v);
                i = end;
            }
            _ => {}
        }
        match name.as_str() {
            "private" => attrs.private = true,
            "group" if attrs.group.is_none() => attrs.group = args.into_iter().next(),
            "doc" => attrs.doc = Some(args.into_iter().next()),
            _ => {}
        }
    }
}

// ---- lexing helpers (all on `char` slices, so no index can split a character) ----

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn ident(chars: &[char], i: usize) -> Option<(String, usize)> {
    if !chars.get(i).is_some_and(|c| is_ident_start(*c)) {
        return None;
    }
    let mut end = i;
    while chars
        .get(end)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
    {
        end += 1;
    }
    Some((chars[i..end].iter().collect(), end))
}

fn skip_ws(chars: &[char], mut i: usize) -> usize {
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

fn triple_at(chars: &[char], i: usize, q: char) -> bool {
    chars.get(i) == Some(&q) && chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q)
}

/// The index after the string or backtick starting at `chars[i]`.
fn skip_string(chars: &[char], i: usize) -> usize {
    let q = chars.get(i).copied().unwrap_or('"');
    let triple = triple_at(chars, i, q);
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < chars.len() {
        if q == '"' && chars[j] == '\\' {
            j += 2;
            continue;
        }
        if triple {
            if triple_at(chars, j, q) {
                return j + 3;
            }
        } else if chars[j] == q {
            return j + 1;
        }
        j += 1;
    }
    chars.len()
}

/// A `'raw'` or `"cooked"` string (triple-quoted too) and the index after it.
fn string_literal(chars: &[char], i: usize) -> Option<(String, usize)> {
    let q = *chars.get(i)?;
    if !matches!(q, '\'' | '"') {
        return None;
    }
    let end = skip_string(chars, i);
    let width = if triple_at(chars, i, q) { 3 } else { 1 };
    let inner_end = end.checked_sub(width).filter(|e| *e >= i + width)?;
    let inner = &chars[i + width..inner_end];
    if q == '\'' {
        return Some((inner.iter().collect(), end));
    }
    let mut s = String::new();
    let mut k = 0;
    while let Some(&c) = inner.get(k) {
        if c == '\\'
            && let Some(&e) = inner.get(k + 1)
        {
            match e {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'r' => s.push('\r'),
                '"' | '\\' => s.push(e),
                _ => {
                    s.push('\\');
                    s.push(e);
                }
            }
            k += 2;
        } else {
            s.push(c);
            k += 1;
        }
    }
    Some((s, end))
}

/// The index after the bracket group opening at `chars[i]`.
fn balanced(chars: &[char], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    while let Some(&c) = chars.get(j) {
        match c {
            '\'' | '"' | '`' => {
                j = skip_string(chars, j);
                continue;
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
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

/// A column-0 line that can only start a new item, never continue a bracketed expression.
fn starts_item(line: &str) -> bool {
    line.starts_with(|c: char| is_ident_start(c) || matches!(c, '@' | '#' | '['))
}

#[derive(Clone, Copy, PartialEq)]
enum Open {
    Single(char),
    Triple(char),
}

/// The code of the item starting at `lines[0]` with comments dropped, joined with the lines it
/// continues onto, and how many lines it used. A blank line or a line that starts an item ends
/// an unbalanced bracket, so that one typo cannot swallow the rest of the file.
fn logical_line(lines: &[&str]) -> (String, usize) {
    let mut code = String::new();
    let mut depth = 0usize;
    let mut open: Option<Open> = None;
    let mut used = 0;
    for line in lines {
        if used > 0 && open.is_none() && (line.trim().is_empty() || starts_item(line)) {
            break;
        }
        used += 1;
        let chars: Vec<char> = line.chars().collect();
        let mut j = 0;
        let mut continued = false;
        while let Some(&c) = chars.get(j) {
            match open {
                Some(Open::Triple(q)) => {
                    if triple_at(&chars, j, q) {
                        code.extend([q, q, q]);
                        open = None;
                        j += 3;
                        continue;
                    }
                }
                Some(Open::Single(q)) => {
                    if q == '"' && c == '\\' {
                        code.push(c);
                        if let Some(&n) = chars.get(j + 1) {
                            code.push(n);
                        }
                        j += 2;
                        continue;
                    }
                    if c == q {
                        open = None;
                    }
                }
                None => match c {
                    '#' => break,
                    '\'' | '"' | '`' => {
                        if triple_at(&chars, j, c) {
                            code.extend([c, c, c]);
                            open = Some(Open::Triple(c));
                            j += 3;
                            continue;
                        }
                        open = Some(Open::Single(c));
                    }
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => depth = depth.saturating_sub(1),
                    '\\' if j + 1 == chars.len() => {
                        continued = true;
                        j += 1;
                        continue;
                    }
                    _ => {}
                },
            }
            code.push(c);
            j += 1;
        }
        if matches!(open, Some(Open::Single(_))) {
            // Plain strings end at the line end (just rejects them); keep going as code.
            open = None;
        }
        if open.is_none() && depth == 0 && !continued {
            break;
        }
        code.push(if matches!(open, Some(Open::Triple(_))) {
            '\n'
        } else {
            ' '
        });
    }
    (code, used.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::MemFs;
    use crate::sources::testing::{descriptions, labels, parse_in, parse_with, step_refs};

    const PATH: &str = "/w/app/justfile";

    fn parse(content: &str) -> Parsed {
        parse_with(super::parse, PATH, content)
    }

    fn names(c: &CommandItem) -> Vec<&str> {
        c.params.iter().map(|p| p.name.as_str()).collect()
    }

    const JUSTFILE: &str = r#"#!/usr/bin/env just --justfile
set shell := ["bash", "-uc"]
set dotenv-load
set positional-arguments := true

version := "1.0"
export RUST_LOG := "info"
image := `git rev-parse --short HEAD`

alias b := build
alias t := test

# Build the project
build target="debug": fmt
    cargo build --profile {{target}}
    echo "a: b"

# Run the tests
[group('ci')]
[no-cd]
test *args: build
    cargo test {{args}}

[private]
helper:
    echo helper

_hidden:
    echo hidden

[doc("Deploy to an environment")]
[confirm, linux]
deploy $env='staging' +hosts: (build "release")
    ./deploy.sh $env {{hosts}}

# Not the doc: a blank line follows

@quiet name=image region=(env_var_or_default("REGION", "eu") + "-1") tag=VERSION count=`nproc`:
    echo {{name}}

# Serve the docs
[group: 'docs']
serve port="8000": && open
    python -m http.server {{port}}
"#;

    #[test]
    fn only_recipes_are_listed_regression_3_12() {
        let p = parse(JUSTFILE);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            [
                "build", "test", "helper", "_hidden", "deploy", "quiet", "serve"
            ]
        );
    }

    #[test]
    fn set_alias_assignment_and_body_lines_are_not_recipes_regression_3_12() {
        let p = parse(
            "set shell := [\"bash\", \"-c\"]\nversion := \"1.0\"\nalias b := build\n\nbuild:\n    echo \"a: b\"\n    \
             url: http://x\n\tfoo: bar\n",
        );
        assert_eq!(labels(&p), ["build"]);
        assert!(p.commands[0].params.is_empty());
    }

    #[test]
    fn item_shape() {
        let p = parse(JUSTFILE);
        let build = &p.commands[0];
        assert_eq!(build.id, "just:/w/app/justfile:build");
        assert_eq!(build.kind, "just");
        assert_eq!(build.command, "just build");
        assert_eq!(build.cwd, "/w/app");
        assert_eq!(build.line, Some(14));
        assert_eq!(p.commands[1].line, Some(21));
    }

    #[test]
    fn doc_comments_and_doc_attributes() {
        let p = parse(JUSTFILE);
        let docs = descriptions(&p);
        assert_eq!(
            docs,
            [
                Some("Build the project"),
                Some("Run the tests"),
                None,
                None,
                Some("Deploy to an environment"),
                None,
                Some("Serve the docs"),
            ]
        );
    }

    #[test]
    fn bare_doc_attribute_removes_the_comment() {
        let p = parse("# Comment doc\n[doc]\nbuild:\n  x\n");
        assert_eq!(p.commands[0].description, None);
        let p = parse("# Comment doc\n[doc('Attribute doc')]\nbuild:\n  x\n");
        assert_eq!(p.commands[0].description.as_deref(), Some("Attribute doc"));
    }

    #[test]
    fn comment_directly_above_only() {
        let p =
            parse("# Far away\n\nbuild:\n  x\n# Doc\n# Closer doc\ntest:\n  y\n#\nlint:\n  z\n");
        assert_eq!(p.commands[0].description, None);
        assert_eq!(p.commands[1].description.as_deref(), Some("Closer doc"));
        assert_eq!(p.commands[2].description, None);
    }

    #[test]
    fn params_with_defaults_variadics_and_env() {
        let p = parse(JUSTFILE);
        let build = &p.commands[0];
        assert_eq!(names(build), ["target"]);
        assert_eq!(build.params[0].default.as_deref(), Some("debug"));
        assert!(!build.params[0].variadic);

        let test = &p.commands[1];
        assert_eq!(names(test), ["args"]);
        assert!(test.params[0].variadic);
        assert_eq!(test.params[0].default.as_deref(), Some(""));

        let deploy = &p.commands[4];
        assert_eq!(names(deploy), ["env", "hosts"]);
        assert_eq!(deploy.params[0].default.as_deref(), Some("staging"));
        assert!(!deploy.params[0].variadic);
        assert!(deploy.params[1].variadic);
        assert_eq!(deploy.params[1].default, None);
    }

    #[test]
    fn expression_defaults_are_left_to_just() {
        let p = parse(JUSTFILE);
        let quiet = &p.commands[5];
        assert_eq!(names(quiet), ["name", "region", "tag", "count"]);
        let d: Vec<(Option<&str>, Option<&str>)> = quiet
            .params
            .iter()
            .map(|p| (p.default.as_deref(), p.description.as_deref()))
            .collect();
        assert_eq!(
            d,
            [
                (Some(""), Some("default: image")),
                (
                    Some(""),
                    Some("default: (env_var_or_default(\"REGION\", \"eu\") + \"-1\")")
                ),
                (Some(""), Some("default: VERSION")),
                (Some(""), Some("default: `nproc`")),
            ]
        );
    }

    #[test]
    fn dependencies_are_not_params() {
        let p = parse("release: build (test \"x\") && notify\n  echo\nci: lint test\n  echo\n");
        assert_eq!(labels(&p), ["release", "ci"]);
        assert!(p.commands.iter().all(|c| c.params.is_empty()));
    }

    #[test]
    fn private_recipes_are_listed_as_private() {
        let p = parse(JUSTFILE);
        let private: Vec<&str> = p
            .commands
            .iter()
            .filter(|c| c.private)
            .map(|c| c.label.as_str())
            .collect();
        assert_eq!(private, ["helper", "_hidden"]);
        let hidden: Vec<&str> = p
            .commands
            .iter()
            .filter(|c| c.hidden)
            .map(|c| c.label.as_str())
            .collect();
        assert_eq!(hidden, ["helper", "_hidden"], "as `just --list` hides them");
    }

    #[test]
    fn aliases_are_shown_on_their_recipe() {
        let p = parse(JUSTFILE);
        let build = p.commands.iter().find(|c| c.label == "build").unwrap();
        assert_eq!(build.aliases, ["b"]);
        let test = p.commands.iter().find(|c| c.label == "test").unwrap();
        assert_eq!(test.aliases, ["t"]);
        let p = parse(
            "[private]\nalias h := x\nalias _y := x\nalias z := x\nalias q := missing\nx:\n  y\n",
        );
        assert_eq!(p.commands[0].aliases, ["z"]);
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn groups() {
        let p = parse(JUSTFILE);
        let groups: Vec<Option<&str>> = p.commands.iter().map(|c| c.group.as_deref()).collect();
        assert_eq!(
            groups,
            [None, Some("ci"), None, None, None, None, Some("docs")]
        );
        let p = parse("[group('a'), group(\"b\"), private]\nx:\n  y\n");
        assert_eq!(p.commands[0].group.as_deref(), Some("a"));
        assert!(p.commands[0].private);
    }

    #[test]
    fn keywords_as_recipe_names() {
        let p =
            parse("set:\n  a\nalias:\n  b\nmod:\n  c\nimport:\n  d\nexport:\n  e\nset foo:\n  f\n");
        assert_eq!(
            labels(&p),
            ["set", "alias", "mod", "import", "export", "set"]
        );
        assert_eq!(names(&p.commands[5]), ["foo"]);
    }

    #[test]
    fn multi_line_items_do_not_leak_recipes() {
        let p = parse(
            "set shell := [\n  \"bash\",\n  \"-c\",\n]\nmsg := '''\nfake: recipe\n'''\nx := if os() == \"linux\" {\n  \"l\"\n} \
             else {\n  \"o\"\n}\nlong a \\\n  b=\"2\":\n  echo\nreal:\n  echo\n",
        );
        assert_eq!(labels(&p), ["long", "real"]);
        assert_eq!(names(&p.commands[0]), ["a", "b"]);
        assert_eq!(p.commands[1].line, Some(16));
    }

    #[test]
    fn shebang_recipes_and_comments() {
        let p = parse(
            "# Python task\npy: # trailing comment\n  #!/usr/bin/env python3\n  print('x: y')\n",
        );
        assert_eq!(labels(&p), ["py"]);
        assert_eq!(p.commands[0].description.as_deref(), Some("Python task"));
    }

    #[test]
    fn odd_names_need_no_quoting() {
        let p = parse("build-all_2:\n  x\n");
        assert_eq!(p.commands[0].command, "just build-all_2");
    }

    fn module_tree() -> MemFs {
        MemFs::new()
            .file(
                PATH,
                "import 'common.just'\nimport? 'missing.just'\nmod db\nmod? ghost\nmod docs 'site/docs.just'\n\
                 mod tools\n\nbuild:\n  cargo build\n",
            )
            .file("/w/app/common.just", "# Format code\nfmt:\n  cargo fmt\nimport 'more/extra.just'\n")
            .file("/w/app/more/extra.just", "extra:\n  echo\n")
            .file("/w/app/db/mod.just", "mod seed\n# Migrate\nmigrate:\n  echo\n[private]\nreset:\n  echo\n")
            .file("/w/app/db/seed.just", "run n='10':\n  echo\n")
            .file("/w/app/site/docs.just", "serve:\n  echo\n")
            .file("/w/app/tools/Justfile", "lint:\n  echo\n")
    }

    #[test]
    fn imports_merge_and_modules_namespace() {
        let p = parse_in(super::parse, &module_tree(), PATH);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            labels(&p),
            [
                "fmt",
                "extra",
                "db::seed::run",
                "db::migrate",
                "db::reset",
                "docs::serve",
                "tools::lint",
                "build"
            ]
        );
    }

    #[test]
    fn module_items_shape() {
        let p = parse_in(super::parse, &module_tree(), PATH);
        let fmt = &p.commands[0];
        assert_eq!(fmt.id, "just:/w/app/justfile:fmt");
        assert_eq!(fmt.command, "just fmt");
        assert_eq!(fmt.description.as_deref(), Some("Format code"));
        assert_eq!(fmt.line, Some(1), "the line of the import statement");
        assert_eq!(p.commands[1].line, Some(1));

        let run = &p.commands[2];
        assert_eq!(run.id, "just:/w/app/justfile:db::seed::run");
        assert_eq!(run.command, "just db seed run");
        assert_eq!(run.file_path, PATH);
        assert_eq!(run.cwd, "/w/app");
        assert_eq!(run.line, Some(3));
        assert_eq!(run.params[0].default.as_deref(), Some("10"));

        assert_eq!(p.commands[3].description.as_deref(), Some("Migrate"));
        assert!(p.commands[4].private);
        assert_eq!(p.commands[5].command, "just docs serve");
        assert_eq!(p.commands[6].command, "just tools lint");
        assert_eq!(p.commands[7].line, Some(8));
    }

    fn steps(p: &Parsed, name: &str) -> Vec<(String, &'static str)> {
        for s in step_refs(p, name) {
            assert!(s.must_resolve, "{s:?}");
        }
        crate::sources::testing::steps(p, name)
    }

    #[test]
    fn imported_and_module_recipes_know_where_they_are_defined() {
        let p = parse_in(super::parse, &module_tree(), PATH);
        let def = |name: &str| {
            let c = p.commands.iter().find(|c| c.id_name() == name).unwrap();
            c.defined_in.as_ref().map(|d| (d.file.clone(), d.line))
        };
        assert_eq!(def("build"), None);
        assert_eq!(
            def("fmt"),
            Some((PathBuf::from("/w/app/common.just"), Some(2)))
        );
        assert_eq!(
            def("extra"),
            Some((PathBuf::from("/w/app/more/extra.just"), Some(1)))
        );
        assert_eq!(
            def("db::seed::run"),
            Some((PathBuf::from("/w/app/db/seed.just"), Some(1)))
        );
        let fmt = p.commands.iter().find(|c| c.id_name() == "fmt").unwrap();
        let text = crate::fs::Fs::read(&module_tree(), fmt.definition_path()).unwrap();
        assert_eq!(
            crate::excerpt::command_text(fmt, &text).text,
            "# Format code\nfmt:\n  cargo fmt"
        );
    }

    #[test]
    fn dependencies_and_just_calls_are_steps() {
        let p = parse(
            "alias b := build\n\
             [parallel]\n\
             release: build (test \"x\" \"y\") && notify clean\n  \
             @just lint fix\n  \
             -{{ just_executable() }} --yes b deploy prod\n  \
             echo just nothing; just {{target}}\n\n  \
             cd sub && just elsewhere\n  \
             just clean\n\
             build:\n  x\n\
             test a b:\n  x\n\
             notify:\n  x\n\
             clean:\n  x\n\
             lint mode:\n  x\n\
             deploy env:\n  x\n",
        );
        assert_eq!(
            steps(&p, "release"),
            [
                ("build".to_string(), "prerequisite"),
                ("test".to_string(), "prerequisite"),
                ("notify".to_string(), "hook"),
                ("clean".to_string(), "hook"),
                ("lint".to_string(), "call"),
                ("b".to_string(), "call"),
                ("deploy".to_string(), "call"),
                // The line after a `cd` runs in a shell of its own.
                ("clean".to_string(), "call"),
            ]
        );
        assert!(steps(&p, "build").is_empty());
    }

    #[test]
    fn module_steps_are_qualified_with_the_module_path() {
        let fs = MemFs::new()
            .file(PATH, "mod db\nmod tools\nci: db::migrate\n  just db seed\n")
            .file(
                "/w/app/db.just",
                "migrate: reset\n  just build\nreset:\n  x\nseed:\n  x\n",
            )
            .file("/w/app/tools/justfile", "lint:\n  just fmt\nfmt:\n  x\n");
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(
            steps(&p, "ci"),
            [
                ("db::migrate".to_string(), "prerequisite"),
                ("db::seed".to_string(), "call")
            ]
        );
        // A module file named like a justfile is the one `just` finds from its folder; any
        // other module's recipes reach the root justfile.
        assert_eq!(
            steps(&p, "db::migrate"),
            [
                ("db::reset".to_string(), "prerequisite"),
                ("build".to_string(), "call")
            ]
        );
        assert_eq!(
            steps(&p, "tools::lint"),
            [("tools::fmt".to_string(), "call")]
        );
    }

    #[test]
    fn module_search_order() {
        let fs = MemFs::new()
            .file(PATH, "mod a\nmod b\nmod c\n")
            .file("/w/app/a.just", "flat:\n  x\n")
            .file("/w/app/a/mod.just", "nested:\n  x\n")
            .file("/w/app/b/.justfile", "dot:\n  x\n")
            .file("/w/app/c/JUSTFILE", "upper:\n  x\n");
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(labels(&p), ["a::flat", "b::dot", "c::upper"]);
    }

    #[test]
    fn missing_required_module_and_import_warn() {
        let fs = MemFs::new().file(PATH, "import 'nope.just'\nmod gone\nbuild:\n  x\n");
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(labels(&p), ["build"]);
        let msgs: Vec<(&str, Option<u32>)> = p
            .warnings
            .iter()
            .map(|w| (w.message.as_str(), w.line))
            .collect();
        assert_eq!(
            msgs,
            [
                ("imported file `nope.just` not found", Some(1)),
                ("module `gone` not found", Some(2))
            ]
        );
    }

    #[test]
    fn import_cycles_stop() {
        let fs = MemFs::new()
            .file(PATH, "import 'a.just'\nroot:\n  x\n")
            .file("/w/app/a.just", "import './justfile'\na:\n  x\n");
        let p = parse_in(super::parse, &fs, PATH);
        assert_eq!(labels(&p), ["a", "root"]);
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].message.contains("cycle"));
        assert_eq!(p.warnings[0].file, Path::new("/w/app/a.just"));
    }

    #[test]
    fn import_fan_out_is_bounded() {
        let mut fs = MemFs::new().file(PATH, &"import 'x0.just'\n".repeat(4));
        for i in 0..12 {
            fs = fs.file(
                format!("/w/app/x{i}.just"),
                &format!("import 'x{}.just'\n", i + 1).repeat(4),
            );
        }
        let p = parse_in(super::parse, &fs, PATH);
        assert!(p.commands.is_empty());
        assert!(!p.warnings.is_empty());
    }

    #[test]
    fn rival_justfiles_name_the_file() {
        let fs = MemFs::new()
            .file("/w/justfile", "a:\n  x\n")
            .file("/w/.justfile", "b:\n  x\n");
        let p = parse_in(super::parse, &fs, "/w/.justfile");
        assert_eq!(p.commands[0].command, "just --justfile .justfile b");
        let p = parse_in(super::parse, &fs, "/w/justfile");
        assert_eq!(p.commands[0].command, "just --justfile justfile a");
        let alone = MemFs::new().file("/w/Justfile", "c:\n  x\n");
        assert_eq!(
            parse_in(super::parse, &alone, "/w/Justfile").commands[0].command,
            "just c"
        );
    }

    #[test]
    fn garbage_does_not_panic() {
        for junk in [
            "",
            "\u{1}\u{2}\u{3}",
            "build",
            "build a=",
            "build a=(",
            "build a=\"unterminated:",
            "[",
            "[group(",
            "[doc('x'",
            "[private] [group('g')] inline:\n  x\n",
            "mod",
            "mod?",
            "mod x '",
            "import '",
            "import?",
            "@",
            "x := '''\nnever closed",
            "é\u{301}: x\nrecipe é:\n",
            "a +:\n",
            "a $:\n",
            "(((((\n\nok:\n  x\n",
        ] {
            let _ = parse(junk);
        }
        let p = parse("[private] [group('g')] inline:\n  x\n");
        assert_eq!(labels(&p), ["inline"]);
        assert!(p.commands[0].private);
        let p = parse("(((((\n\nok:\n  x\n");
        assert_eq!(labels(&p), ["ok"]);
        let deep = format!("x := {}\nok:\n  y\n", "(".repeat(100_000));
        assert_eq!(labels(&parse(&deep)), ["ok"]);
    }
}
