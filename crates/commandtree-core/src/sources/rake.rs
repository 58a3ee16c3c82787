//! Rake tasks (upstream §3.15) from `Rakefile`s and Rails' `lib/tasks/**/*.rake`.
//!
//! Ruby is not parsed; each line is split into a few token kinds (words, symbols, strings,
//! `%i[]` lists, operators) with strings, comments, heredocs and `=begin` blocks skipped, which
//! is enough to read `desc`/`task`/`namespace` calls and to follow `do ... end` nesting so that
//! tasks inside `namespace :db do` are named `db:migrate`.
//!
//! Unlike `rake -T`, tasks without a `desc` are listed too. `file`, `directory` and `rule`
//! definitions are build products, not commands, and are skipped. Task arguments
//! (`task :name, [:a, :b]`) become params; the command stays `rake NAME` because rake takes
//! arguments as `rake "name[a,b]"`, which the positional/flag param formats cannot express —
//! the run layer has to build that form for `rake` commands with params.

use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef};
use crate::text;
use std::path::{Path, PathBuf};

const KIND: &str = "rake";

/// Keywords that open a block closed by `end` when they start an expression.
const OPENERS: &[&str] = &[
    "if", "unless", "while", "until", "case", "def", "class", "module", "begin", "for",
];

/// Task libraries whose `.new` without a name defines a task with a well-known default name.
const DEFAULT_LIBRARY_TASKS: &[(&str, &str)] = &[
    ("Rake::TestTask", "test"),
    ("RSpec::Core::RakeTask", "spec"),
    ("RuboCop::RakeTask", "rubocop"),
];

pub fn parse(file: &SourceFile<'_>) -> Parsed {
    let cwd = rails_root(file.path);
    let mut out = Parsed::default();
    let mut state = State {
        stack: Vec::new(),
        pending_desc: None,
    };
    let mut heredocs: Vec<String> = Vec::new();
    let mut in_doc_block = false;

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
        let (toks, new_heredocs) = tokenize(raw);
        heredocs.extend(new_heredocs);
        scan_line(file, &cwd, &toks, line_no, &mut state, &mut out);
    }
    out
}

struct State {
    stack: Vec<Frame>,
    pending_desc: Option<String>,
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
    let mut namespace: Option<String> = None;
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
                    st.stack.push(Frame {
                        brace: false,
                        namespace: namespace.take(),
                    });
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
                st.stack.push(Frame {
                    brace: false,
                    namespace: None,
                });
                skip_do = matches!(w.as_str(), "while" | "until" | "for");
            }
            Tok::Punct('{') => {
                st.stack.push(Frame {
                    brace: true,
                    namespace: namespace.take(),
                });
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
) -> Option<String> {
    let Some(Tok::Ident(word)) = toks.first() else {
        return None;
    };
    match word.as_str() {
        "desc" => {
            if let Some(d) = first_string(&toks[1..]) {
                st.pending_desc = Some(d);
            }
        }
        "namespace" => return first_name(&toks[1..]),
        "task" | "multitask" => {
            let desc = st.pending_desc.take();
            if let Some((name, args)) = task_header(&toks[1..]) {
                let full = qualified(&st.stack, &name);
                out.commands.push(item(file, cwd, &full, desc, args, line));
            }
        }
        "file" | "file_create" | "directory" | "rule" => st.pending_desc = None,
        w if w.starts_with(|c: char| c.is_ascii_uppercase()) => {
            if let Some(name) = library_task(toks) {
                let desc = st.pending_desc.take();
                let full = qualified(&st.stack, &name);
                out.commands
                    .push(item(file, cwd, &full, desc, Vec::new(), line));
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

/// `.rake` files under `lib/tasks` belong to the Rails app whose root holds `lib`; rake has to
/// run there to find the Rakefile that loads them.
fn rails_root(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("/"));
    if path.extension().and_then(|e| e.to_str()) != Some("rake") {
        return dir.to_path_buf();
    }
    let mut cur = Some(dir);
    while let Some(d) = cur {
        if d.file_name().and_then(|n| n.to_str()) == Some("tasks")
            && let Some(lib) = d.parent()
            && lib.file_name().and_then(|n| n.to_str()) == Some("lib")
        {
            return lib.parent().unwrap_or(lib).to_path_buf();
        }
        cur = d.parent();
    }
    dir.to_path_buf()
}

fn qualified(stack: &[Frame], name: &str) -> String {
    let mut parts: Vec<&str> = stack
        .iter()
        .filter_map(|f| f.namespace.as_deref())
        .collect();
    parts.push(name);
    parts.join(":")
}

#[derive(Debug)]
struct Frame {
    brace: bool,
    namespace: Option<String>,
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

/// A literal name: `:db`, `"db"`, `:"db-x"`. Interpolated strings cannot be resolved.
fn first_name(toks: &[Tok]) -> Option<String> {
    match skip_paren(toks).first() {
        Some(Tok::Sym(s) | Tok::Str(s)) => literal(s),
        _ => None,
    }
}

fn literal(s: &str) -> Option<String> {
    (!s.is_empty() && !s.contains("#{")).then(|| s.to_string())
}

/// The name and argument names of `task :name`, `task "name"`, `task name: deps`,
/// `task :name => deps`, `task :name, [:a, :b] => deps`, `task :name, %i[a b]`,
/// `task :name, :a, :b`.
fn task_header(toks: &[Tok]) -> Option<(String, Vec<String>)> {
    let toks = skip_paren(toks);
    let name = match toks.first()? {
        Tok::Sym(s) | Tok::Str(s) | Tok::Label(s) => literal(s)?,
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

/// `RSpec::Core::RakeTask.new(:spec)`, `Rake::TestTask.new(:unit) do |t|`, or a known library
/// task without a name.
fn library_task(toks: &[Tok]) -> Option<String> {
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
    if toks.get(i + 1) != Some(&Tok::Ident("new".into())) {
        return None;
    }
    match toks.get(i + 2) {
        Some(Tok::Punct('(')) => match toks.get(i + 3) {
            Some(Tok::Sym(s) | Tok::Str(s)) => literal(s),
            Some(Tok::Punct(')')) => default_library_name(&class),
            _ => None,
        },
        Some(Tok::Sym(s) | Tok::Str(s)) => literal(s),
        None => default_library_name(&class),
        Some(Tok::Ident(w)) if w == "do" => default_library_name(&class),
        Some(Tok::Punct('{')) => default_library_name(&class),
        _ => None,
    }
}

fn default_library_name(class: &str) -> Option<String> {
    let class = class.strip_prefix("::").unwrap_or(class);
    DEFAULT_LIBRARY_TASKS
        .iter()
        .find(|(c, _)| *c == class)
        .map(|(_, n)| n.to_string())
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

/// Splits one line into tokens, and returns the terminators of heredocs it opens.
fn tokenize(line: &str) -> (Vec<Tok>, Vec<String>) {
    let chars: Vec<char> = line.chars().collect();
    let mut toks = Vec::new();
    let mut heredocs = Vec::new();
    let mut i = 0;
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
    use crate::sources::testing::{labels, parse_with};

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

    const RAKEFILE: &str = r#"# frozen_string_literal: true
require "bundler/gem_tasks"
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
        let desc: Vec<Option<&str>> = p
            .commands
            .iter()
            .map(|c| c.description.as_deref())
            .collect();
        assert_eq!(
            desc,
            [
                None,
                Some("Run RuboCop"),
                Some("Build the docs"),
                None,
                None,
                Some("Migrate the database"),
                Some("Seed with fixtures (#{Rails.env})"),
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
            "%w[a b].each do |n|\n  task n do\n  end\n  task \"deploy:#{n}\"\nend\ntask :after\n",
        );
        assert_eq!(labels(&p), ["after"]);
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
        assert_eq!(p.commands[0].description.as_deref(), Some("Specs"));
    }

    #[test]
    fn duplicates_are_emitted() {
        let p = parse("/w/Rakefile", "task :build\ntask :build do\nend\n");
        assert_eq!(labels(&p), ["build", "build"]);
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
    fn rails_rake_files_run_from_the_app_root() {
        let p = parse(
            "/w/shop/lib/tasks/maintenance/cleanup.rake",
            "namespace :maintenance do\n  desc \"Purge old carts\"\n  task purge_carts: :environment do\n  end\nend\n",
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
}
