//! Rake tasks (upstream §3.15) from `Rakefile`s and the `.rake` files they load.
//!
//! Ruby is not parsed; each line is split into a few token kinds (words, symbols, strings,
//! `%i[]` lists, operators) with strings, comments, heredocs and `=begin` blocks skipped, which
//! is enough to read `desc`/`task`/`namespace` calls and to follow `do ... end` nesting so that
//! tasks inside `namespace :db do` are named `db:migrate`.
//!
//! `%x( )`, `%( )`, `%q{ }` (also across lines) and `#{}` inside strings are strings, never
//! code. Namespaces and task names built from a block variable over a literal list
//! (`%w(a b).each do |fw| namespace fw do`) are expanded for each value; names known only at run
//! time give a warning, not a wrong name. A task defined twice (a `Rake::TestTask` and a later
//! `task test: :x`) is one task, as in rake. A `.rake` file counts only where the nearest
//! Rakefile above it loads it (Rails' `load_tasks` for `lib/tasks/`, or a path or glob it names:
//! `Dir['tasks/**/*.rake'].each { |t| load t }`), and its tasks run in that Rakefile's folder.
//!
//! Unlike `rake -T`, tasks without a `desc` are listed too. `file`, `directory` and `rule`
//! definitions are build products, not commands, and are skipped. Task arguments
//! (`task :name, [:a, :b]`) become params; the command stays `rake NAME` because rake takes
//! arguments as `rake "name[a,b]"`, which the positional/flag param formats cannot express —
//! the run layer has to build that form for `rake` commands with params.

use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef, StepHow, StepRef, StepScope};
use crate::text;
use std::path::{Path, PathBuf};

const KIND: &str = "rake";

/// Keywords that open a block closed by `end` when they start an expression.
const OPENERS: &[&str] = &[
    "if", "unless", "while", "until", "case", "def", "class", "module", "begin", "for",
];

/// Task libraries: the name a task made without one gets, and the first sentence of the
/// description the library gives it, as `rake -T` shows. Minitest's task is made by `.create`,
/// the others by `.new`.
const LIBRARY_TASKS: &[(&str, &str, &str)] = &[
    ("Rake::TestTask", "test", "Run tests"),
    ("RSpec::Core::RakeTask", "spec", "Run RSpec code examples"),
    ("RuboCop::RakeTask", "rubocop", "Run RuboCop"),
    ("Minitest::TestTask", "test", "Run the test suite"),
    ("Cucumber::Rake::Task", "cucumber", "Run Cucumber features"),
];

/// Library classes whose `.new` defines a fixed set of tasks (their argument is a gemspec or a
/// package name, not a task name), with the descriptions `rake -T` shows for them.
const PACKAGE_TASKS: &[(&str, &[(&str, &str)])] = &[
    (
        "Gem::PackageTask",
        &[
            ("package", "Build all the packages"),
            ("gem", "Build the gem file"),
            ("repackage", "Force a rebuild of the package files"),
            ("clobber_package", "Remove package products"),
        ],
    ),
    (
        "Rake::PackageTask",
        &[
            ("package", "Build all the packages"),
            ("repackage", "Force a rebuild of the package files"),
            ("clobber_package", "Remove package products"),
        ],
    ),
];

/// A task a library defines: its name, the description `rake -T` shows, the shell code it runs
/// beyond the project's own files (empty: none).
type LibraryTask = (&'static str, &'static str, &'static str);

/// Libraries whose `require` defines tasks, with the descriptions `rake -T` shows for them and,
/// for a task that does more than the project's own files, the shell commands it runs (what the
/// security analysis reads for it: Bundler's `release` pushes a tag and the gem).
const REQUIRED_TASKS: &[(&str, &[LibraryTask])] = &[
    (
        "rake/clean",
        &[
            ("clean", "Remove any temporary products", ""),
            ("clobber", "Remove any generated files", ""),
        ],
    ),
    (
        "bundler/gem_tasks",
        &[
            ("build", "Build the gem into the pkg directory", ""),
            (
                "build:checksum",
                "Generate the SHA512 checksum of the gem into the checksums directory",
                "",
            ),
            (
                "install",
                "Build and install the gem into system gems",
                "gem install pkg/gem.gem",
            ),
            (
                "install:local",
                "Build and install the gem into system gems without network access",
                "gem install --local pkg/gem.gem",
            ),
            (
                "release",
                "Create a version tag, build the gem and push it to rubygems.org",
                "git push origin HEAD --tags\ngem push pkg/gem.gem",
            ),
        ],
    ),
];

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let Some(cwd) = rake_root(file) else {
        return Parsed::default();
    };
    let mut out = Parsed::default();
    let mut state = State {
        stack: Vec::new(),
        pending_desc: None,
        lists: std::collections::HashMap::new(),
    };
    let mut heredocs: Vec<String> = Vec::new();
    let mut in_doc_block = false;
    let mut carry: Option<OpenLiteral> = None;

    for (idx, raw) in file.content.lines().enumerate() {
        let line_no = idx + 1;
        if let Some(term) = heredocs.first() {
            if raw.trim() == term {
                heredocs.remove(0);
            }
            continue;
        }
        if in_doc_block {
            in_doc_block = !raw.starts_with("=end");
            continue;
        }
        if raw.starts_with("=begin") {
            in_doc_block = true;
            continue;
        }
        let (toks, new_heredocs) = tokenize(raw, &mut carry);
        heredocs.extend(new_heredocs);
        scan_line(file, &cwd, &toks, line_no, &mut state, &mut out);
    }
    merge_repeated(&mut out.commands);
    resolve_prereqs(&mut out.commands);
    out
}

/// The names rake looks for in a folder.
const RAKEFILES: &[&str] = &["Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"];

/// Where rake runs a file's tasks: a Rakefile's own folder, and for a `.rake` file the folder of
/// the nearest Rakefile above it, if that Rakefile loads it: a Rails app's `load_tasks` (or any
/// mention of `lib/tasks` or `.rake`) for `lib/tasks/**/*.rake`, or a path or glob of `.rake`
/// files it names (`Dir['tasks/**/*.rake'].each { |t| load t }`, `import "rake/release.rake"`).
/// `None` for a `.rake` file nothing loads: a gem's own `lib/tasks` is for the apps that use it.
fn rake_root(file: &SourceFile<'_>) -> Option<PathBuf> {
    let dir = file.dir();
    if file.path.extension().and_then(|e| e.to_str()) != Some("rake") {
        return Some(dir.to_path_buf());
    }
    let (at, text) = dir
        .ancestors()
        .take_while(|d| d.starts_with(file.root))
        .find_map(|d| {
            RAKEFILES
                .iter()
                .find_map(|n| file.fs.read(&d.join(n)))
                .map(|t| (d, t))
        })?;
    let rel = file.path.strip_prefix(at).ok()?;
    let in_lib_tasks = rel.starts_with("lib/tasks");
    let loads = (in_lib_tasks
        && ["load_tasks", "lib/tasks", ".rake"]
            .iter()
            .any(|w| text.contains(w)))
        || rake_globs(&text).iter().any(|g| g.is_match(rel));
    loads.then(|| at.to_path_buf())
}

/// The `.rake` paths and globs a Rakefile's string literals name, relative to its folder, as
/// Ruby's `Dir.glob` reads them (`**` not followed by `/` is `*`).
fn rake_globs(text: &str) -> Vec<globset::GlobMatcher> {
    string_literals(text)
        .into_iter()
        .filter(|l| l.ends_with(".rake"))
        .filter_map(|literal| {
            // `"#{__dir__}/tasks/*.rake"`: the Rakefile's own folder.
            let literal = match literal.rsplit_once("}/") {
                Some((_, rest)) => rest,
                None => literal,
            };
            let literal = literal.trim_start_matches("./");
            let mut pattern = String::with_capacity(literal.len());
            let mut rest = literal;
            while let Some(at) = rest.find("**") {
                pattern.push_str(&rest[..at]);
                rest = &rest[at + 2..];
                pattern.push_str(if rest.starts_with('/') { "**" } else { "*" });
            }
            pattern.push_str(rest);
            let glob = globset::GlobBuilder::new(&pattern)
                .literal_separator(true)
                .build()
                .ok()?;
            Some(glob.compile_matcher())
        })
        .collect()
}

/// The quoted strings of Ruby text, line by line, outside `#` comments (escapes are not undone;
/// a path holds none).
fn string_literals(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut open: Option<(char, usize)> = None;
        let mut chars = line.char_indices();
        while let Some((i, c)) = chars.next() {
            match open {
                Some((q, start)) if c == q => {
                    out.push(&line[start..i]);
                    open = None;
                }
                Some(_) if c == '\\' => {
                    chars.next();
                }
                Some(_) => {}
                None if c == '#' => break,
                None if c == '\'' || c == '"' => open = Some((c, i + 1)),
                None => {}
            }
        }
    }
    out
}

/// Rake adds every `task :x` to one task `x` (a `Rake::TestTask` and a later `task test: :y` are
/// one task): the first keeps its place, later ones fill in what it lacks.
fn merge_repeated(commands: &mut Vec<CommandItem>) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out: Vec<CommandItem> = Vec::with_capacity(commands.len());
    for c in commands.drain(..) {
        match seen.get(&c.id) {
            Some(&i) => {
                let first = &mut out[i];
                if first.description.is_none() {
                    first.description = c.description;
                }
                if first.params.is_empty() {
                    first.params = c.params;
                }
                for step in c.steps {
                    if !first.steps.contains(&step) {
                        first.steps.push(step);
                    }
                }
            }
            None => {
                seen.insert(c.id.clone(), out.len());
                out.push(c);
            }
        }
    }
    *commands = out;
}

struct State {
    stack: Vec<Frame>,
    pending_desc: Option<String>,
    /// Variables set to a literal list (`adapters = %w(a b)`), for `adapters.each do |x|`.
    lists: std::collections::HashMap<String, Vec<String>>,
}

/// Walks one line's tokens: definitions at each statement start (line start, after `;`, after
/// a block opener and its `|params|`), and block nesting throughout.
fn scan_line(
    file: &SourceFile<'_>,
    cwd: &Path,
    toks: &[Tok],
    line: usize,
    st: &mut State,
    out: &mut Parsed,
) {
    let mut stmt_start = true;
    let mut in_params = false;
    let mut skip_do = false;
    let mut namespace: Option<Ns> = None;
    for (i, tok) in toks.iter().enumerate() {
        if in_params {
            if matches!(tok, Tok::Op(o) if o.contains('|')) {
                in_params = false;
                stmt_start = true;
            }
            continue;
        }
        if stmt_start {
            if let Tok::Op(o) = tok
                && o.starts_with('|')
            {
                in_params = o == "|";
                continue;
            }
            if let Some(ns) = definition(file, cwd, &toks[i..], line, st, out) {
                namespace = Some(ns);
            }
            if let [Tok::Ident(var), Tok::Op(eq), rest @ ..] = &toks[i..]
                && eq == "="
                && let Some(values) = literal_list(rest)
            {
                st.lists.insert(var.clone(), values);
            }
        }
        let prev = i.checked_sub(1).and_then(|j| toks.get(j));
        let method_call =
            matches!(prev, Some(Tok::Punct('.'))) || matches!(prev, Some(Tok::Op(o)) if o == "&.");
        let starts_expr = stmt_start || starts_expression(prev);
        stmt_start = false;
        match tok {
            Tok::Ident(w) if w == "do" && !method_call => {
                if skip_do {
                    skip_do = false;
                } else {
                    let frame = Frame::block(false, namespace.take(), toks, i, &st.lists);
                    st.stack.push(frame);
                }
                stmt_start = true;
            }
            Tok::Ident(w) if w == "end" && !method_call => {
                if let Some(pos) = st.stack.iter().rposition(|f| !f.brace) {
                    st.stack.truncate(pos);
                }
            }
            Tok::Ident(w) if OPENERS.contains(&w.as_str()) && !method_call && starts_expr => {
                if w == "def" && is_endless_def(&toks[i..]) {
                    continue;
                }
                st.stack.push(Frame::keyword());
                skip_do = matches!(w.as_str(), "while" | "until" | "for");
            }
            Tok::Punct('{') => {
                let frame = Frame::block(true, namespace.take(), toks, i, &st.lists);
                st.stack.push(frame);
                stmt_start = true;
            }
            Tok::Punct('}') if st.stack.last().is_some_and(|f| f.brace) => {
                st.stack.pop();
            }
            Tok::Punct(';') => stmt_start = true,
            _ => {}
        }
    }
}

/// Handles a statement that defines something; returns the name of a namespace it opens.
fn definition(
    file: &SourceFile<'_>,
    cwd: &Path,
    toks: &[Tok],
    line: usize,
    st: &mut State,
    out: &mut Parsed,
) -> Option<Ns> {
    let Some(Tok::Ident(word)) = toks.first() else {
        return None;
    };
    match word.as_str() {
        "desc" => {
            if let Some(d) = first_string(&toks[1..]) {
                st.pending_desc = Some(d);
            }
        }
        "namespace" => return Some(namespace_name(&toks[1..])),
        "task" | "multitask" => {
            let desc = st.pending_desc.take();
            if let Some((name, args)) = task_header(&toks[1..]) {
                let prereqs = task_prereqs(&toks[1..]);
                for (full, desc) in expand(file, &mut st.stack, &name, desc, line, out) {
                    let mut it = item(file, cwd, &full, desc, args.clone(), line);
                    it.steps = prereqs
                        .iter()
                        .map(|p| {
                            StepRef::new(p.clone(), StepHow::Prerequisite, false)
                                .scope(StepScope::SameFolder)
                        })
                        .collect();
                    out.commands.push(it);
                }
            }
        }
        "file" | "file_create" | "directory" | "rule" => st.pending_desc = None,
        // A library whose loading defines tasks, at the top level only (inside a task's block
        // it runs later, if ever).
        "require" if st.stack.is_empty() => {
            let required = first_string(&toks[1..]);
            if let Some((_, tasks)) = REQUIRED_TASKS
                .iter()
                .find(|(lib, _)| required.as_deref() == Some(*lib))
                // Bundler's helper reads the gemspec beside the Rakefile and fails without one
                // (fluentassertions' Jekyll `docs/Rakefile` requires it with none).
                .filter(|(lib, _)| *lib != "bundler/gem_tasks" || has_gemspec(file))
            {
                for (name, desc, code) in *tasks {
                    let mut it = item(file, cwd, name, Some(desc.to_string()), Vec::new(), line);
                    if !code.is_empty() {
                        it.run_code = vec![crate::model::ShellCode {
                            code: code.to_string(),
                            line: line as u32,
                            via: required.clone(),
                        }];
                    }
                    out.commands.push(it);
                }
            }
        }
        w if w.starts_with(|c: char| c.is_ascii_uppercase()) => {
            if let Some(tasks) = package_tasks(toks) {
                // A `desc` just before describes the first task the library defines.
                let mut desc = st.pending_desc.take();
                for (name, library_desc) in tasks {
                    let desc = desc.take().or_else(|| Some(library_desc.to_string()));
                    for (full, desc) in expand(file, &mut st.stack, name, desc, line, out) {
                        out.commands
                            .push(item(file, cwd, &full, desc, Vec::new(), line));
                    }
                }
            } else if let Some((name, library_desc)) = library_task(toks) {
                // A `desc` just before replaces the library's own, as in Rake.
                let desc = st.pending_desc.take().or(library_desc);
                for (full, desc) in expand(file, &mut st.stack, &name, desc, line, out) {
                    out.commands
                        .push(item(file, cwd, &full, desc, Vec::new(), line));
                }
            }
        }
        _ => {}
    }
    None
}

fn item(
    file: &SourceFile<'_>,
    cwd: &Path,
    name: &str,
    desc: Option<String>,
    args: Vec<String>,
    line: usize,
) -> CommandItem {
    let params = args.into_iter().map(ParamDef::new).collect();
    CommandItem::new(
        KIND,
        file.path,
        name,
        format!("rake {}", text::sh_word(name)),
    )
    .cwd(cwd)
    .opt_description(desc)
    .params(params)
    .line(line)
}

/// The full names (and descriptions) of a task defined inside the open namespaces: one per
/// value of the literal lists the names are built from (`%w(a b).each do |fw| namespace fw`).
/// A name that cannot be resolved statically gives no task and one warning per namespace, rather
/// than a wrong name.
fn expand(
    file: &SourceFile<'_>,
    stack: &mut [Frame],
    name: &str,
    desc: Option<String>,
    line: usize,
    out: &mut Parsed,
) -> Vec<(String, Option<String>)> {
    let bound: Vec<String> = stack
        .iter()
        .filter_map(|f| f.binding.as_ref().map(|(v, _)| v.clone()))
        .collect();
    let mut parts: Vec<String> = Vec::new();
    for f in stack.iter_mut() {
        let computed = match &f.namespace {
            Some(Ns::Template(t)) => {
                let unbound = interpolations(t)
                    .iter()
                    .any(|v| !bound.iter().any(|b| b == v));
                if !unbound {
                    parts.push(t.clone());
                }
                unbound
            }
            Some(Ns::Unknown) => true,
            None => false,
        };
        if computed {
            if !f.warned {
                f.warned = true;
                out.warn(
                    file.path,
                    Some(line),
                    "namespace name is computed at run time; its tasks are not listed",
                );
            }
            return Vec::new();
        }
    }
    parts.push(name.to_string());
    let template = parts.join(":");
    let bindings: Vec<(&str, &[String])> = stack
        .iter()
        .filter_map(|f| f.binding.as_ref())
        .map(|(v, vals)| (v.as_str(), vals.as_slice()))
        .collect();
    let mut combos: Vec<Vec<(&str, &str)>> = vec![Vec::new()];
    for var in interpolations(&template) {
        if combos[0].iter().any(|(v, _)| *v == var) {
            continue;
        }
        let Some((_, vals)) = bindings.iter().rev().find(|(v, _)| *v == var) else {
            out.warn(
                file.path,
                Some(line),
                format!("task name uses `{var}`, known only at run time; not listed"),
            );
            return Vec::new();
        };
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().map(move |val| {
                    let mut c = c.clone();
                    c.push((var, val.as_str()));
                    c
                })
            })
            .collect();
    }
    combos
        .into_iter()
        .map(|c| {
            let full = substitute(&template, &c);
            let desc = desc.as_deref().map(|d| readable(&substitute(d, &c)));
            (full, desc)
        })
        .filter(|(full, _)| !full.contains("#{"))
        .collect()
}

/// The `#{x}` expressions of a template, in order.
fn interpolations(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find("#{") {
        let Some(j) = rest[i..].find('}') else { break };
        out.push(rest[i + 2..i + j].trim());
        rest = &rest[i + j + 1..];
    }
    out
}

fn substitute(s: &str, values: &[(&str, &str)]) -> String {
    let mut out = s.to_string();
    for (var, val) in values {
        out = out.replace(&format!("#{{{var}}}"), val);
    }
    out
}

/// A description with the `#{expr}` left (computed at run time) shown as `{expr}`.
fn readable(s: &str) -> String {
    s.replace("#{", "{")
}

/// What `namespace X` names: a literal (`:db`, `"db"`), a string or variable built from block
/// variables (`fw`, `"test_#{fw}"`), or something only known at run time.
#[derive(Debug, Clone)]
enum Ns {
    Template(String),
    Unknown,
}

fn namespace_name(toks: &[Tok]) -> Ns {
    match skip_paren(toks).first() {
        Some(Tok::Sym(s) | Tok::Str(s)) if !s.is_empty() => Ns::Template(s.clone()),
        Some(Tok::Ident(v)) if v.starts_with(|c: char| c.is_lowercase() || c == '_') => {
            Ns::Template(format!("#{{{v}}}"))
        }
        _ => Ns::Unknown,
    }
}

/// `%w(a b).each do |x|`, `[:a, :b].each { |x|`, `list.each do |x|` (`list` set to a literal
/// list earlier): the block variable and the literal values.
fn each_binding(
    before: &[Tok],
    after: &[Tok],
    lists: &std::collections::HashMap<String, Vec<String>>,
) -> Option<(String, Vec<String>)> {
    let [head @ .., Tok::Punct('.'), Tok::Ident(each)] = before else {
        return None;
    };
    if each != "each" {
        return None;
    }
    let var = match after {
        [Tok::Op(bar), Tok::Ident(v), Tok::Op(close), ..] if bar == "|" && close == "|" => {
            v.clone()
        }
        _ => return None,
    };
    let values = match head.last()? {
        Tok::Ident(name) => lists.get(name)?.clone(),
        Tok::Words(w) => w.clone(),
        Tok::Punct(']') => {
            let open = head.iter().rposition(|t| *t == Tok::Punct('['))?;
            literal_list(&head[open..])?
        }
        _ => return None,
    };
    Some((var, values))
}

/// The values of `%w(a b)` or `[:a, "b"]` (the tokens start at the list).
fn literal_list(toks: &[Tok]) -> Option<Vec<String>> {
    match toks {
        [Tok::Words(w), ..] => Some(w.clone()),
        [Tok::Punct('['), rest @ ..] => {
            let mut vals = Vec::new();
            for t in rest {
                match t {
                    Tok::Sym(s) | Tok::Str(s) if !s.contains("#{") => vals.push(s.clone()),
                    Tok::Punct(',') => {}
                    Tok::Punct(']') => return Some(vals),
                    _ => return None,
                }
            }
            None
        }
        _ => None,
    }
}

#[derive(Debug)]
struct Frame {
    brace: bool,
    namespace: Option<Ns>,
    /// `|var|` of an `.each` over a literal list, with its values.
    binding: Option<(String, Vec<String>)>,
    /// Whether the "computed namespace" warning was given for this frame.
    warned: bool,
}

impl Frame {
    /// The block a `do` or `{` at `toks[i]` opens: it holds the namespace its line declared, and
    /// the `|var|` of an `.each` over a literal list.
    fn block(
        brace: bool,
        namespace: Option<Ns>,
        toks: &[Tok],
        i: usize,
        lists: &std::collections::HashMap<String, Vec<String>>,
    ) -> Frame {
        Frame {
            brace,
            namespace,
            binding: each_binding(&toks[..i], &toks[i + 1..], lists),
            warned: false,
        }
    }

    /// The block a keyword (`if`, `def`, `class`, ...) opens, up to its `end`.
    fn keyword() -> Frame {
        Frame {
            brace: false,
            namespace: None,
            binding: None,
            warned: false,
        }
    }
}

/// A keyword opens a block when it starts an expression (`x = if c`), not as a modifier
/// (`return if c`).
fn starts_expression(prev: Option<&Tok>) -> bool {
    match prev {
        None => true,
        Some(Tok::Op(_)) => true,
        Some(Tok::Punct(c)) => matches!(c, '(' | '[' | ',' | '{' | ';'),
        _ => false,
    }
}

/// `def name(args) = expr` has no `end`.
fn is_endless_def(toks: &[Tok]) -> bool {
    let mut depth = 0i32;
    for t in toks.iter().skip(1) {
        match t {
            Tok::Punct('(') => depth += 1,
            Tok::Punct(')') => depth -= 1,
            Tok::Op(o) if o == "=" && depth <= 0 => return true,
            _ => {}
        }
    }
    false
}

fn skip_paren(toks: &[Tok]) -> &[Tok] {
    match toks.first() {
        Some(Tok::Punct('(')) => &toks[1..],
        _ => toks,
    }
}

fn first_string(toks: &[Tok]) -> Option<String> {
    match skip_paren(toks).first() {
        Some(Tok::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

fn literal(s: &str) -> Option<String> {
    (!s.is_empty() && !s.contains("#{")).then(|| s.to_string())
}

/// The name and argument names of `task :name`, `task "name"`, `task name: deps`,
/// `task :name => deps`, `task :name, [:a, :b] => deps`, `task :name, %i[a b]`,
/// `task :name, :a, :b`.
/// The prerequisites a task definition names: `task x: [:a, "ns:b"]`, `task x: :a`,
/// `task :x => [:a]`, `task :x, [:arg] => :a`. Names as written (relative to the task's
/// namespace; `resolve_prereqs` makes them full).
fn task_prereqs(toks: &[Tok]) -> Vec<String> {
    let toks = skip_paren(toks);
    let after = match toks.first() {
        Some(Tok::Label(_)) => 1,
        _ => {
            let mut depth = 0usize;
            let mut at = None;
            for (i, t) in toks.iter().enumerate() {
                match t {
                    Tok::Punct('[' | '(') => depth += 1,
                    Tok::Punct(']' | ')') => depth = depth.saturating_sub(1),
                    Tok::Op(o) if o == "=>" && depth == 0 => {
                        at = Some(i + 1);
                        break;
                    }
                    Tok::Ident(w) if w == "do" => break,
                    _ => {}
                }
            }
            match at {
                Some(a) => a,
                None => return Vec::new(),
            }
        }
    };
    let mut out = Vec::new();
    match toks.get(after) {
        Some(Tok::Sym(s) | Tok::Str(s)) => out.push(s.clone()),
        Some(Tok::Words(w)) => out.extend(w.iter().cloned()),
        Some(Tok::Punct('[')) => {
            for t in &toks[after + 1..] {
                match t {
                    Tok::Sym(s) | Tok::Str(s) => out.push(s.clone()),
                    Tok::Punct(',') => {}
                    _ => break,
                }
            }
        }
        _ => {}
    }
    out.retain(|p| !p.is_empty() && !p.contains("#{"));
    out
}

/// Rake looks a prerequisite up from the task's namespace outwards (`:drop` in `db:mysql`
/// is `db:mysql:drop` when that exists), then at the top.
fn resolve_prereqs(commands: &mut [CommandItem]) {
    let names: std::collections::HashSet<String> =
        commands.iter().map(|c| c.id_name().to_string()).collect();
    for c in commands.iter_mut() {
        let scope: Vec<String> = c
            .id_name()
            .split(':')
            .map(str::to_string)
            .collect::<Vec<_>>();
        let scope = &scope[..scope.len().saturating_sub(1)];
        for step in &mut c.steps {
            let bare = step.name.trim_start_matches('^').to_string();
            if let Some(full) = (0..=scope.len())
                .rev()
                .map(|k| {
                    let mut parts = scope[..k].to_vec();
                    parts.push(bare.clone());
                    parts.join(":")
                })
                .find(|n| names.contains(n))
            {
                step.name = full;
            }
        }
    }
}

fn task_header(toks: &[Tok]) -> Option<(String, Vec<String>)> {
    let toks = skip_paren(toks);
    let name = match toks.first()? {
        Tok::Sym(s) | Tok::Str(s) | Tok::Label(s) if !s.is_empty() => s.clone(),
        _ => return None,
    };
    let mut args = Vec::new();
    if matches!(toks.get(1), Some(Tok::Punct(','))) {
        match toks.get(2) {
            Some(Tok::Words(words)) => args.extend(words.iter().cloned()),
            Some(Tok::Punct('[')) => {
                for t in &toks[3..] {
                    match t {
                        Tok::Sym(s) | Tok::Str(s) => args.push(s.clone()),
                        Tok::Punct(',') => {}
                        _ => break,
                    }
                }
            }
            _ => {
                for t in &toks[2..] {
                    match t {
                        Tok::Sym(s) => args.push(s.clone()),
                        Tok::Punct(',') => {}
                        _ => break,
                    }
                }
            }
        }
    }
    args.retain(|a| !a.is_empty());
    Some((name, args))
}

/// `RSpec::Core::RakeTask.new(:spec)`, `Rake::TestTask.new(:unit) do |t|`,
/// `Minitest::TestTask.create`, or a known library task without a name; with the description
/// its library gives it (`Rake::TestTask.new(:unit)`: "Run tests for unit").
fn library_task(toks: &[Tok]) -> Option<(String, Option<String>)> {
    let (class, i) = task_class(toks)?;
    let class = class.as_str();
    let known = LIBRARY_TASKS.iter().find(|(c, _, _)| *c == class);
    match toks.get(i + 1) {
        Some(Tok::Ident(w)) if w == "new" => {}
        Some(Tok::Ident(w)) if w == "create" && known.is_some() => {}
        _ => return None,
    }
    let default = || known.map(|(_, name, _)| name.to_string());
    let name = match toks.get(i + 2) {
        Some(Tok::Punct('(')) => match toks.get(i + 3) {
            Some(Tok::Sym(s) | Tok::Str(s)) => literal(s),
            Some(Tok::Punct(')')) => default(),
            _ => None,
        },
        Some(Tok::Sym(s) | Tok::Str(s)) => literal(s),
        None => default(),
        Some(Tok::Ident(w)) if w == "do" => default(),
        Some(Tok::Punct('{')) => default(),
        _ => None,
    }?;
    let desc = known.map(|(_, default_name, desc)| {
        // Rake's test task names the task it runs when it is not the default one.
        if class == "Rake::TestTask" && *default_name != name {
            format!("{desc} for {name}")
        } else {
            desc.to_string()
        }
    });
    Some((name, desc))
}

/// The class a line opens with when it ends in `Task` and a method call follows
/// (`::Gem::PackageTask.`), and the index of the `.`.
fn task_class(toks: &[Tok]) -> Option<(String, usize)> {
    let mut class = String::new();
    let mut i = 0;
    while let Some(tok) = toks.get(i) {
        match tok {
            Tok::Ident(w) => class.push_str(w),
            Tok::Op(o) if o == "::" => class.push_str("::"),
            _ => break,
        }
        i += 1;
    }
    if !class.ends_with("Task") || toks.get(i) != Some(&Tok::Punct('.')) {
        return None;
    }
    let class = class.strip_prefix("::").unwrap_or(&class).to_string();
    Some((class, i))
}

fn has_gemspec(file: &SourceFile<'_>) -> bool {
    file.fs
        .list_dir(file.dir())
        .iter()
        .any(|p| p.extension().is_some_and(|e| e == "gemspec") && file.fs.is_file(p))
}

/// `Gem::PackageTask.new(spec) { … }`: the tasks of a package library.
fn package_tasks(toks: &[Tok]) -> Option<&'static [(&'static str, &'static str)]> {
    let (class, i) = task_class(toks)?;
    if !matches!(toks.get(i + 1), Some(Tok::Ident(w)) if w == "new") {
        return None;
    }
    PACKAGE_TASKS
        .iter()
        .find(|(c, _)| *c == class)
        .map(|(_, tasks)| *tasks)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `name:` hash key (`task build: [:dep]`).
    Label(String),
    Sym(String),
    Str(String),
    /// `%i[a b]` / `%w[a b]`.
    Words(Vec<String>),
    Op(String),
    Punct(char),
    Num,
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A `%(...)`-style literal still open at a line end: its delimiters and nesting depth.
#[derive(Debug, Clone, Copy)]
struct OpenLiteral {
    open: char,
    close: char,
    depth: usize,
}

/// From `chars[i]` inside a percent literal, the index after its closing delimiter, or `None`
/// when the line ends first (then `lit.depth` holds the nesting left open).
fn close_percent(chars: &[char], mut i: usize, lit: &mut OpenLiteral) -> Option<usize> {
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            i += 2;
            continue;
        }
        if c == lit.close {
            if lit.depth <= 1 {
                return Some(i + 1);
            }
            lit.depth -= 1;
        } else if c == lit.open && lit.open != lit.close {
            lit.depth += 1;
        }
        i += 1;
    }
    None
}

/// Splits one line into tokens, and returns the terminators of heredocs it opens. `carry` is a
/// percent literal left open by an earlier line (`%x(` ... `)` over several lines).
fn tokenize(line: &str, carry: &mut Option<OpenLiteral>) -> (Vec<Tok>, Vec<String>) {
    let chars: Vec<char> = line.chars().collect();
    let mut toks = Vec::new();
    let mut heredocs = Vec::new();
    let mut i = 0;
    if let Some(mut lit) = carry.take() {
        match close_percent(&chars, 0, &mut lit) {
            Some(next) => {
                toks.push(Tok::Str(String::new()));
                i = next;
            }
            None => {
                *carry = Some(lit);
                return (toks, heredocs);
            }
        }
    }
    let at = |j: usize| chars.get(j).copied();
    while let Some(c) = at(i) {
        if c.is_whitespace() {
            i += 1;
        } else if c == '#' {
            break;
        } else if matches!(c, '"' | '\'' | '`') {
            let (s, next) = read_quoted(&chars, i);
            i = next;
            if c != '`' && at(i) == Some(':') && at(i + 1) != Some(':') {
                i += 1;
                toks.push(Tok::Label(s));
            } else {
                toks.push(Tok::Str(s));
            }
        } else if c == ':' {
            match at(i + 1) {
                Some(':') => {
                    toks.push(Tok::Op("::".into()));
                    i += 2;
                }
                Some(q @ ('"' | '\'')) => {
                    let _ = q;
                    let (s, next) = read_quoted(&chars, i + 1);
                    toks.push(Tok::Sym(s));
                    i = next;
                }
                Some(n) if is_ident_start(n) => {
                    let start = i + 1;
                    i = start;
                    while at(i).is_some_and(is_ident_char) {
                        i += 1;
                    }
                    if matches!(at(i), Some('?' | '!')) {
                        i += 1;
                    }
                    toks.push(Tok::Sym(chars[start..i].iter().collect()));
                }
                _ => {
                    toks.push(Tok::Punct(':'));
                    i += 1;
                }
            }
        } else if c == '%'
            && matches!(at(i + 1), Some('i' | 'w' | 'I' | 'W'))
            && at(i + 2).and_then(closing_delim).is_some()
        {
            let open = chars[i + 2];
            let close = closing_delim(open).unwrap_or(open);
            let start = i + 3;
            let mut j = start;
            while at(j).is_some_and(|ch| ch != close) {
                j += 1;
            }
            let body: String = chars[start..j.min(chars.len())].iter().collect();
            toks.push(Tok::Words(
                body.split_whitespace().map(str::to_string).collect(),
            ));
            i = j + 1;
        } else if c == '%'
            && !matches!(
                toks.last(),
                Some(Tok::Num | Tok::Str(_) | Tok::Punct(')' | ']' | '}'))
            )
            && let Some((open, start)) = match at(i + 1) {
                Some('q' | 'Q' | 'x' | 'r' | 's') => at(i + 2)
                    .filter(|d| closing_delim(*d).is_some())
                    .map(|d| (d, i + 3)),
                Some(d) if closing_delim(d).is_some() && d != '/' => Some((d, i + 2)),
                _ => None,
            }
        {
            // `%x( )`, `%( )`, `%q{ }`: strings whose words (`if`, `do`, `end`) are not code.
            let mut lit = OpenLiteral {
                open,
                close: closing_delim(open).unwrap_or(open),
                depth: 1,
            };
            let body_end;
            match close_percent(&chars, start, &mut lit) {
                Some(next) => {
                    body_end = next - 1;
                    i = next;
                }
                None => {
                    body_end = chars.len();
                    i = chars.len();
                    *carry = Some(lit);
                }
            }
            toks.push(Tok::Str(chars[start..body_end.max(start)].iter().collect()));
        } else if c == '/' && regex_may_start(toks.last(), &chars, i) {
            // A regular expression's words (`/^  module Protection/`) are not code.
            let (body, next) = read_regex(&chars, i);
            toks.push(Tok::Str(body));
            i = next;
        } else if c == '<' && at(i + 1) == Some('<') && heredoc_start(&chars, i + 2).is_some() {
            if let Some((term, next)) = heredoc_start(&chars, i + 2) {
                heredocs.push(term);
                toks.push(Tok::Str(String::new()));
                i = next;
            }
        } else if is_ident_start(c) {
            let start = i;
            while at(i).is_some_and(is_ident_char) {
                i += 1;
            }
            if matches!(at(i), Some('?' | '!')) && at(i + 1) != Some('=') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if at(i) == Some(':') && at(i + 1) != Some(':') {
                i += 1;
                toks.push(Tok::Label(word));
            } else {
                toks.push(Tok::Ident(word));
            }
        } else if c.is_ascii_digit() {
            while at(i).is_some_and(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.') {
                i += 1;
            }
            toks.push(Tok::Num);
        } else if "=<>!~+-*/&|^%?".contains(c) {
            let start = i;
            while at(i).is_some_and(|ch| "=<>!~+-*/&|^%?.".contains(ch)) {
                // `&.` is safe navigation; a lone `.` stays punctuation.
                if at(i) == Some('.') && !(i > start && at(i - 1) == Some('&')) {
                    break;
                }
                i += 1;
            }
            toks.push(Tok::Op(chars[start..i].iter().collect()));
        } else {
            toks.push(Tok::Punct(c));
            i += 1;
        }
    }
    (toks, heredocs)
}

/// Whether a `/` at `i` opens a regular expression rather than dividing: where a value is
/// expected (after an operator, an opening bracket, a comma or a keyword), or as a method's
/// first argument without parentheses (`split /,/`: a space before it, none after).
fn regex_may_start(prev: Option<&Tok>, chars: &[char], i: usize) -> bool {
    match prev {
        None | Some(Tok::Op(_)) => true,
        Some(Tok::Punct(p)) => matches!(p, '(' | '[' | ',' | '{' | ';' | '|'),
        Some(Tok::Ident(w)) => {
            matches!(
                w.as_str(),
                "if" | "unless" | "when" | "and" | "or" | "not" | "return" | "while" | "until"
            ) || (i > 0
                && chars[i - 1].is_whitespace()
                && chars
                    .get(i + 1)
                    .is_some_and(|c| !c.is_whitespace() && *c != '='))
        }
        _ => false,
    }
}

/// The body of the regular expression opening at `open` and the index after it and its flags;
/// a `/` escaped or in a character class does not close it.
fn read_regex(chars: &[char], open: usize) -> (String, usize) {
    let mut i = open + 1;
    let mut class = false;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 1,
            '[' => class = true,
            ']' => class = false,
            '/' if !class => break,
            _ => {}
        }
        i += 1;
    }
    let body: String = chars[open + 1..i.min(chars.len())].iter().collect();
    i += 1;
    while chars.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
        i += 1;
    }
    (body, i.min(chars.len()))
}

fn closing_delim(c: char) -> Option<char> {
    match c {
        '[' => Some(']'),
        '(' => Some(')'),
        '{' => Some('}'),
        '<' => Some('>'),
        '|' | '!' | '/' => Some(c),
        _ => None,
    }
}

/// After `<<`: `~ID`, `-ID`, `'ID'`, `"ID"` or a capitalised `ID` opens a heredoc (a plain
/// `<< x` is the append operator).
fn heredoc_start(chars: &[char], mut i: usize) -> Option<(String, usize)> {
    let squiggly = matches!(chars.get(i), Some('~' | '-'));
    if squiggly {
        i += 1;
    }
    match chars.get(i)? {
        q @ ('"' | '\'' | '`') => {
            let q = *q;
            let start = i + 1;
            let end = start + chars.get(start..)?.iter().position(|&c| c == q)?;
            let term: String = chars[start..end].iter().collect();
            (!term.is_empty()).then_some((term, end + 1))
        }
        c if (squiggly && is_ident_start(*c)) || c.is_ascii_uppercase() => {
            let start = i;
            let mut j = i;
            while chars.get(j).is_some_and(|c| is_ident_char(*c)) {
                j += 1;
            }
            Some((chars[start..j].iter().collect(), j))
        }
        _ => None,
    }
}

/// A quoted string starting at `chars[open]`; returns its text (backslash escapes resolved to
/// the escaped character) and the index after the closing quote (or the line end).
fn read_quoted(chars: &[char], open: usize) -> (String, usize) {
    let quote = chars.get(open).copied().unwrap_or('"');
    let mut out = String::new();
    let mut i = open + 1;
    while let Some(&c) = chars.get(i) {
        if quote != '\'' && c == '#' && chars.get(i + 1) == Some(&'{') {
            // Interpolation: kept as written, quotes inside it do not end the string.
            let mut depth = 0usize;
            while let Some(&d) = chars.get(i) {
                out.push(d);
                i += 1;
                match d {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            continue;
        }
        if c == '\\' {
            if let Some(&n) = chars.get(i + 1) {
                out.push(n);
            }
            i += 2;
        } else if c == quote {
            return (out, i + 1);
        } else {
            out.push(c);
            i += 1;
        }
    }
    (out, i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{descriptions, labels, parse_with};

    fn parse(path: &str, content: &str) -> Parsed {
        parse_with(super::parse, path, content)
    }

    /// Content as the parser would get it if a binary file slipped through (`MemFs` refuses
    /// to hand out NUL bytes).
    fn parse_raw(content: &str) -> Parsed {
        let fs = crate::fs::MemFs::new();
        let file = SourceFile {
            path: Path::new("/w/Rakefile"),
            content,
            executable: false,
            root: Path::new("/w"),
            fs: &fs,
        };
        super::parse(&file)
    }

    #[test]
    fn percent_literals_and_interpolation_are_strings() {
        let p = parse(
            "/w/Rakefile",
            "namespace :db do\n  task :drop do\n    %x( dropdb --if-exists mydb )\n  end\nend\ntask :lines do\nend\n",
        );
        assert_eq!(labels(&p), ["db:drop", "lines"]);
        let p = parse(
            "/w/Rakefile",
            "namespace :a do\n  task :b do\n    sh %(echo if do)\n    x = %q{while {nested} end}\n    y = \"#{z ? \"if\" : 'do'}\"\n    %x(\n      if true\n    )\n  end\nend\ntask :c\n",
        );
        assert_eq!(labels(&p), ["a:b", "c"]);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn namespaces_from_literal_lists_expand() {
        let p = parse(
            "/w/Rakefile",
            "%w(actionpack railties).each do |fw|\n  namespace fw do\n    desc \"Run #{fw} tests\"\n    task :test do\n    end\n  end\nend\n[:unit, :integration].each { |kind| task \"test:#{kind}\" }\n",
        );
        let got: Vec<(&str, Option<&str>)> = p
            .commands
            .iter()
            .map(|c| (c.label.as_str(), c.description.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("actionpack:test", Some("Run actionpack tests")),
                ("railties:test", Some("Run railties tests")),
                ("test:unit", None),
                ("test:integration", None),
            ]
        );
    }

    #[test]
    fn computed_namespaces_are_skipped_with_a_warning() {
        let p = parse(
            "/w/Rakefile",
            "FRAMEWORKS.each do |fw|\n  namespace fw do\n    task :test\n    task :lint\n  end\nend\ntask :after\n",
        );
        assert_eq!(labels(&p), ["after"]);
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert_eq!(p.warnings[0].line, Some(3));
        let p = parse(
            "/w/Rakefile",
            "namespace :activejob do\n  adapters = %w(async inline)\n  adapters.each do |adapter|\n    namespace adapter do\n      task :test\n    end\n  end\nend\n",
        );
        assert_eq!(
            labels(&p),
            ["activejob:async:test", "activejob:inline:test"]
        );
    }

    #[test]
    fn test_task_and_its_dependencies_are_one_task() {
        let p = parse(
            "/w/Rakefile",
            "require \"rake/testtask\"\nRake::TestTask.new do |t|\n  t.libs << \"test\"\nend\ndesc \"Run tests\"\ntask test: :compile\n",
        );
        assert_eq!(labels(&p), ["test"]);
        assert_eq!(p.commands[0].description.as_deref(), Some("Run tests"));
        assert_eq!(p.commands[0].line, Some(2));
    }

    #[test]
    fn desc_interpolation_stays_readable() {
        let p = parse(
            "/w/Rakefile",
            "desc \"Release #{Gem::Specification.load('x').version}\"\ntask :release\n",
        );
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Release {Gem::Specification.load('x').version}")
        );
    }

    #[test]
    fn lib_tasks_only_where_a_rakefile_loads_them() {
        let rails = crate::fs::MemFs::new()
            .file(
                "/w/app/Rakefile",
                "require_relative \"config/application\"\nRails.application.load_tasks\n",
            )
            .file("/w/app/lib/tasks/db.rake", "task :seed_demo\n");
        let p = crate::sources::testing::parse_in(super::parse, &rails, "/w/app/lib/tasks/db.rake");
        assert_eq!(labels(&p), ["seed_demo"]);
        let gem = crate::fs::MemFs::new()
            .file(
                "/w/activestorage/Rakefile",
                "require \"rake/testtask\"\ntask default: :test\n",
            )
            .file(
                "/w/activestorage/lib/tasks/activestorage.rake",
                "namespace :active_storage do\n  task :install\nend\n",
            );
        let p = crate::sources::testing::parse_in(
            super::parse,
            &gem,
            "/w/activestorage/lib/tasks/activestorage.rake",
        );
        assert!(p.commands.is_empty());
    }

    const RAKEFILE: &str = r#"# frozen_string_literal: true
require "bundler/setup"
require "rake/testtask"

Rake::TestTask.new(:test) do |t|
  t.libs << "test"
  t.test_files = FileList["test/**/*_test.rb"]
end

desc "Run RuboCop"
task :lint do
  sh "bundle exec rubocop"
end

desc 'Build the docs'
task "docs" => [:clean] do
  if ENV["CI"]
    puts "ci"
  end
end

task default: %i[test lint]

task :clean

namespace :db do
  desc "Migrate the database"
  task :migrate, [:version] => :environment do |t, args|
    ActiveRecord::Migration.verbose = true
    [1, 2].each do |n|
      puts n
    end
  end

  namespace :seed do
    desc "Seed with fixtures (#{Rails.env})"
    task :fixtures, [:count, :kind] do |_t, args|
      puts args
    end
  end

  task rollback: :environment
end

desc "Package"
multitask :package => [:a, :b]

file "pkg/app.tar.gz" => ["app"] do
  sh "tar"
end

rule ".o" => ".c" do |t|
  sh "cc #{t.source}"
end

task :release
"#;

    fn fixture() -> Parsed {
        parse("/w/gem/Rakefile", RAKEFILE)
    }

    #[test]
    fn lists_tasks_with_namespaces() {
        let p = fixture();
        assert!(p.warnings.is_empty());
        assert_eq!(
            labels(&p),
            [
                "test",
                "lint",
                "docs",
                "default",
                "clean",
                "db:migrate",
                "db:seed:fixtures",
                "db:rollback",
                "package",
                "release"
            ]
        );
    }

    #[test]
    fn item_shape() {
        let p = fixture();
        let lint = &p.commands[1];
        assert_eq!(lint.id, "rake:/w/gem/Rakefile:lint");
        assert_eq!(lint.kind, "rake");
        assert_eq!(lint.command, "rake lint");
        assert_eq!(lint.cwd, "/w/gem");
        assert_eq!(lint.line, Some(11));
        let migrate = &p.commands[5];
        assert_eq!(migrate.id, "rake:/w/gem/Rakefile:db:migrate");
        assert_eq!(migrate.command, "rake db:migrate");
        assert_eq!(migrate.line, Some(28));
    }

    #[test]
    fn descriptions_attach_to_the_next_task_only() {
        let p = fixture();
        let desc = descriptions(&p);
        assert_eq!(
            desc,
            [
                // Rake's own description of a test task.
                Some("Run tests"),
                Some("Run RuboCop"),
                Some("Build the docs"),
                None,
                None,
                Some("Migrate the database"),
                Some("Seed with fixtures ({Rails.env})"),
                None,
                Some("Package"),
                None
            ]
        );
    }

    #[test]
    fn task_args_become_params() {
        let p = fixture();
        let names = |i: usize| {
            p.commands[i]
                .params
                .iter()
                .map(|x| x.name.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(5), ["version"]);
        assert_eq!(names(6), ["count", "kind"]);
        assert!(names(1).is_empty());
        assert_eq!(p.commands[6].command, "rake db:seed:fixtures");
    }

    #[test]
    fn task_header_forms() {
        let p = parse(
            "/w/Rakefile",
            "task :a\ntask 'b'\ntask \"c-d\" do\nend\ntask e: [:a]\ntask :f => :a\ntask(:g)\ntask :h?, %w[x y]\n\
             task :i, :j, :k\ntask \"ns:direct\"\ntask :\"quoted-sym\"\n",
        );
        assert_eq!(
            labels(&p),
            [
                "a",
                "b",
                "c-d",
                "e",
                "f",
                "g",
                "h?",
                "i",
                "ns:direct",
                "quoted-sym"
            ]
        );
        let h: Vec<&str> = p.commands[6]
            .params
            .iter()
            .map(|x| x.name.as_str())
            .collect();
        assert_eq!(h, ["x", "y"]);
        let i: Vec<&str> = p.commands[7]
            .params
            .iter()
            .map(|x| x.name.as_str())
            .collect();
        assert_eq!(i, ["j", "k"]);
    }

    #[test]
    fn dynamic_names_are_skipped() {
        let p = parse(
            "/w/Rakefile",
            "%w[a b].each do |n|\n  task n do\n  end\n  task \"deploy:#{n}\"\nend\ntask \"x:#{ENV['X']}\"\ntask :after\n",
        );
        assert_eq!(labels(&p), ["deploy:a", "deploy:b", "after"]);
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    }

    #[test]
    fn namespace_closes_with_its_end() {
        let p = parse(
            "/w/Rakefile",
            "namespace :assets do\n  def helper(x)\n    x.map do |y|\n      y unless y.nil?\n    end\n  end\n  \
             task :precompile\nend\ntask :top\nnamespace(\"one\") { task :inner }\ntask :after_brace\n",
        );
        assert_eq!(
            labels(&p),
            ["assets:precompile", "top", "one:inner", "after_brace"]
        );
    }

    #[test]
    fn a_regular_expressions_words_are_not_code() {
        // sinatra's rack-protection: `module` in a regular expression opened no block, so the
        // namespace swallowed every task after it.
        let content = "namespace :doc do\n  task :readmes do\n    doc = File.read(f)[/^  module Protection(\\n)+(    #[^\\n]*\\n)*/m].scan(/^ *#(?!#) ?(.*)\\n/).join(\"\\n\")\n    \
                       parts = line.split /[,\\/] if /x/\n    half = total / 2\n  end\nend\ntask :spec\n";
        let p = parse("/w/Rakefile", content);
        assert_eq!(labels(&p), ["doc:readmes", "spec"]);
    }

    #[test]
    fn loops_and_conditionals_keep_nesting_right() {
        let content = "namespace :ci do\n  while running? do\n    step\n  end\n  x = if a\n    1\n  else\n    2\n  end\n  \
                       for i in 1..3 do\n    puts i\n  end\n  result = case y\n  when 1 then :a\n  end\n  \
                       begin\n    risky\n  rescue StandardError\n    nil\n  end\n  def short = 42\n  \
                       task :run\nend\ntask :outside\n";
        let p = parse("/w/Rakefile", content);
        assert_eq!(labels(&p), ["ci:run", "outside"]);
    }

    #[test]
    fn strings_comments_and_heredocs_do_not_count_as_code() {
        let content = "namespace :doc do\n  # task :commented do\n  msg = \"do end task :fake\"\n  text = <<~EOS\n    \
                       task :in_heredoc do\n    end\n  EOS\n  task :real # do\nend\n=begin\ntask :in_block_comment\n\
                       =end\ntask :last\n";
        let p = parse("/w/Rakefile", content);
        assert_eq!(labels(&p), ["doc:real", "last"]);
    }

    #[test]
    fn file_and_rule_tasks_are_skipped_and_consume_desc() {
        let p = parse(
            "/w/Rakefile",
            "desc \"Archive\"\nfile \"out.tgz\" => [\"src\"]\ndirectory \"pkg\"\nrule \".o\" => \".c\"\ntask :build\n",
        );
        assert_eq!(labels(&p), ["build"]);
        assert_eq!(p.commands[0].description, None);
    }

    #[test]
    fn library_tasks() {
        let p = parse(
            "/w/Rakefile",
            "require \"rspec/core/rake_task\"\ndesc \"Specs\"\nRSpec::Core::RakeTask.new(:spec)\nRuboCop::RakeTask.new\n\
             Rake::TestTask.new do |t|\n  t.pattern = \"test/*_test.rb\"\nend\nCucumber::Rake::Task.new(:features)\n\
             Foo::Bar.new(:nope)\n",
        );
        assert_eq!(labels(&p), ["spec", "rubocop", "test", "features"]);
        assert_eq!(
            descriptions(&p),
            [
                Some("Specs"),
                Some("Run RuboCop"),
                Some("Run tests"),
                Some("Run Cucumber features")
            ]
        );
        // Minitest's own task (sinatra's `Minitest::TestTask.create # Default `test` task`),
        // and a named test task, described as `rake -T` shows them.
        let p = parse(
            "/w/Rakefile",
            "require 'minitest/test_task'\nMinitest::TestTask.create # Default `test` task\n\
             Minitest::TestTask.create(:unit)\nRake::TestTask.new(:integration) do |t|\nend\n\
             Foo::BarTask.create(:nope)\n",
        );
        assert_eq!(labels(&p), ["test", "unit", "integration"]);
        assert_eq!(
            descriptions(&p),
            [
                Some("Run the test suite"),
                Some("Run the test suite"),
                Some("Run tests for integration")
            ]
        );
    }

    #[test]
    fn a_required_library_defines_its_tasks() {
        // sinatra's Rakefile: `require 'rake/clean'` then `CLEAN.include('coverage')`.
        let p = parse(
            "/w/Rakefile",
            "require 'rake/clean'\nrequire 'fileutils'\nCLEAN.include('coverage')\n\
             task :x do\n  require 'rake/clean'\nend\n",
        );
        assert_eq!(labels(&p), ["clean", "clobber", "x"]);
        assert_eq!(
            p.commands[0].description.as_deref(),
            Some("Remove any temporary products")
        );
        assert_eq!(p.commands[0].line, Some(1));
    }

    #[test]
    fn bundlers_gem_tasks_are_listed_with_what_they_run() {
        let src = "require \"bundler/gem_tasks\"\nrequire \"rake/testtask\"\ntask default: :test\n";
        // Without a gemspec beside it, Bundler's helper fails: no tasks.
        assert_eq!(labels(&parse("/w/Rakefile", src)), ["default"]);
        let fs = crate::fs::MemFs::new()
            .file("/w/Rakefile", src)
            .file("/w/tool.gemspec", "Gem::Specification.new do |s|\nend\n");
        let p = crate::sources::testing::parse_in(super::parse, &fs, "/w/Rakefile");
        assert_eq!(
            labels(&p),
            [
                "build",
                "build:checksum",
                "install",
                "install:local",
                "release",
                "default"
            ]
        );
        let release = &p.commands[4];
        assert_eq!(release.line, Some(1));
        assert!(release.run_code[0].code.contains("gem push"));
        assert_eq!(
            release.run_code[0].via.as_deref(),
            Some("bundler/gem_tasks")
        );
        // Building stays in the project: nothing for the analysis to read beyond its line.
        assert!(p.commands[0].run_code.is_empty());
    }

    #[test]
    fn a_package_library_defines_its_tasks() {
        // rubygems' Rakefile: `Gem::PackageTask.new(spec) {}`, then enhancing `package`.
        let p = parse(
            "/w/Rakefile",
            "spec = Gem::Specification.load('x.gemspec')\nGem::PackageTask.new(spec) {}\n\
             Rake::Task[\"package\"].enhance [\"pkg/x.tgz\"]\nnamespace :doc do\n  \
             Rake::PackageTask.new('docs', '1.0') do |p|\n  end\nend\n",
        );
        assert_eq!(
            labels(&p),
            [
                "package",
                "gem",
                "repackage",
                "clobber_package",
                "doc:package",
                "doc:repackage",
                "doc:clobber_package"
            ]
        );
        let package = p.commands.iter().find(|c| c.label == "package").unwrap();
        assert_eq!(
            package.description.as_deref(),
            Some("Build all the packages")
        );
        assert_eq!(package.line, Some(2));
    }

    #[test]
    fn repeated_tasks_are_one_task() {
        let p = parse(
            "/w/Rakefile",
            "task :build\ndesc \"B\"\ntask :build do\nend\n",
        );
        assert_eq!(labels(&p), ["build"]);
        assert_eq!(p.commands[0].description.as_deref(), Some("B"));
    }

    #[test]
    fn upstream_regex_cases_still_work() {
        let p = parse(
            "/w/Rakefile",
            "desc 'Build'\ntask :build do\nend\ndesc \"Test\"\ntask \"test\"\ntask build2: [:dep]\ntask :default => [:test]\n",
        );
        assert_eq!(labels(&p), ["build", "test", "build2", "default"]);
        assert_eq!(p.commands[0].description.as_deref(), Some("Build"));
        assert_eq!(p.commands[1].description.as_deref(), Some("Test"));
    }

    #[test]
    fn rake_files_a_rakefile_loads_by_path_or_glob() {
        // rubocop's `Dir['tasks/**/*.rake'].each { |t| load t }`, jekyll's
        // `Dir.glob("rake/**.rake").each { |f| import f }` (`**.rake` is `*.rake` to Ruby).
        let fs = crate::fs::MemFs::new()
            .file(
                "/w/Rakefile",
                "# Don't load 'old/*.rake'\nDir['tasks/**/*.rake'].each { |t| load t }\nDir.glob(\"rake/**.rake\").each { |f| import f }\nimport \"#{__dir__}/ci/release.rake\"\n",
            )
            .file("/w/tasks/new_cop.rake", "desc 'Generate a new cop'\ntask :new_cop\n")
            .file("/w/tasks/deep/prof.rake", "task :prof\n")
            .file("/w/rake/site.rake", "task :site\n")
            .file("/w/rake/nested/skip.rake", "task :skip\n")
            .file("/w/ci/release.rake", "task :cut\n")
            .file("/w/old/legacy.rake", "task :legacy\n")
            .file("/w/spec/fixtures/Rakefile", "task :fixture\n")
            .file("/w/spec/fixtures/extra.rake", "task :extra\n");
        let tasks = |path: &str| {
            let p = crate::sources::testing::parse_in(super::parse, &fs, path);
            p.commands
                .iter()
                .map(|c| format!("{} in {}", c.label, c.cwd))
                .collect::<Vec<_>>()
        };
        assert_eq!(tasks("/w/tasks/new_cop.rake"), ["new_cop in /w"]);
        assert_eq!(tasks("/w/tasks/deep/prof.rake"), ["prof in /w"]);
        assert_eq!(tasks("/w/rake/site.rake"), ["site in /w"]);
        assert!(tasks("/w/rake/nested/skip.rake").is_empty());
        assert_eq!(tasks("/w/ci/release.rake"), ["cut in /w"]);
        // Named only in a comment; loaded by no Rakefile (the nearest one above it does not).
        assert!(tasks("/w/old/legacy.rake").is_empty());
        assert!(tasks("/w/spec/fixtures/extra.rake").is_empty());
    }

    #[test]
    fn rails_rake_files_run_from_the_app_root() {
        let fs = crate::fs::MemFs::new()
            .file("/w/shop/Rakefile", "Rails.application.load_tasks\n")
            .file(
                "/w/shop/lib/tasks/maintenance/cleanup.rake",
                "namespace :maintenance do\n  desc \"Purge old carts\"\n  task purge_carts: :environment do\n  end\nend\n",
            );
        let p = crate::sources::testing::parse_in(
            super::parse,
            &fs,
            "/w/shop/lib/tasks/maintenance/cleanup.rake",
        );
        assert_eq!(labels(&p), ["maintenance:purge_carts"]);
        let c = &p.commands[0];
        assert_eq!(c.cwd, "/w/shop");
        assert_eq!(c.file_path, "/w/shop/lib/tasks/maintenance/cleanup.rake");
        assert_eq!(c.command, "rake maintenance:purge_carts");
    }

    #[test]
    fn rakefile_rb_runs_in_its_folder() {
        let p = parse("/w/tools/Rakefile.rb", "task :x\n");
        assert_eq!(p.commands[0].cwd, "/w/tools");
    }

    #[test]
    fn odd_names_are_quoted() {
        let p = parse("/w/Rakefile", "task \"deploy prod\"\n");
        assert_eq!(p.commands[0].command, "rake 'deploy prod'");
    }

    #[test]
    fn unbalanced_and_garbage_input_does_not_panic() {
        for junk in [
            "end\nend\n}\ntask :x\n",
            "task",
            "task :",
            "task (",
            "task :a, [",
            "desc",
            "%i[",
            "x = <<~",
            "x = <<~\"",
            "\"unterminated",
            ":\"",
            "\u{0}\u{1}\u{fffd}é\u{301} task",
            "namespace :a do\n  namespace :b do\n",
            "<<'",
        ] {
            let _ = parse_raw(junk);
        }
        let p = parse("/w/Rakefile", "end\nend\n}\ntask :x\n");
        assert_eq!(labels(&p), ["x"]);
        let deep = "namespace :a do\n".repeat(10_000);
        assert!(parse("/w/Rakefile", &deep).commands.is_empty());
    }

    #[test]
    fn prerequisites_are_steps_named_from_the_namespace_outwards() {
        let p = parse(
            "/w/Rakefile",
            "namespace :db do\n\
             \x20 namespace :mysql do\n\
             \x20   task :drop do\n\
             \x20   end\n\
             \x20   task :build\n\
             \x20   task rebuild: [:drop, :build]\n\
             \x20 end\n\
             \x20 task drop: [\"db:mysql:drop\", :environment]\n\
             end\n\
             task :all => \"db:drop\"\n\
             task :t, [:a] => :all\n",
        );
        let steps = |l: &str| -> Vec<String> {
            p.commands
                .iter()
                .find(|c| c.label == l)
                .unwrap()
                .steps
                .iter()
                .map(|s| s.name.clone())
                .collect()
        };
        assert_eq!(
            steps("db:mysql:rebuild"),
            ["db:mysql:drop", "db:mysql:build"]
        );
        assert_eq!(steps("db:drop"), ["db:mysql:drop", "environment"]);
        assert_eq!(steps("all"), ["db:drop"]);
        assert_eq!(steps("t"), ["all"]);
        assert!(steps("db:mysql:drop").is_empty());
        let step = &p.commands.iter().find(|c| c.label == "all").unwrap().steps[0];
        assert_eq!(step.scope, crate::model::StepScope::SameFolder);
        assert!(!step.must_resolve);
    }
}
