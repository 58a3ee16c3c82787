//! Text and JSON output. Colour comes from anstream, which drops it when the stream is not a
//! terminal or `NO_COLOR` is set.

use anstyle::{AnsiColor, Style};
use commandtree_core::tree::{Category, Node};
use commandtree_core::{CommandItem, Warning};
use std::borrow::Cow;
use std::io::{self, Write};

const CATEGORY: Style = Style::new().bold();
const FOLDER: Style = AnsiColor::Blue.on_default().bold();
const DIM: Style = Style::new().dimmed();
const WARN: Style = AnsiColor::Yellow.on_default().bold();
const ERR: Style = AnsiColor::Red.on_default().bold();
const LABEL: Style = Style::new().bold();

/// Whether `c` must not reach a terminal as is: C0 and C1 controls (newline, ESC...), DEL, and
/// the invisible characters that reorder or break lines (bidi overrides and isolates, line and
/// paragraph separators).
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{2028}' | '\u{2029}'
            | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether [`clean`] would change `s`.
pub fn has_unsafe(s: &str) -> bool {
    s.chars().any(is_unsafe)
}

/// Text from a workspace (labels, descriptions, paths, messages) made safe for a terminal:
/// every character of [`is_unsafe`] is written as an escape (`\n`, `\t`, `\x1b`,
/// `\u{202e}`), so a label cannot forge tree lines, move the cursor or recolour the screen.
/// JSON output never goes through here: it stays exact.
pub fn clean(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Text of many lines from a workspace or a model (a file's text, a reply, a plan), for a
/// terminal: line breaks and tabs kept (a `\r` before a line break too), every other character
/// of [`is_unsafe`] escaped as [`clean`] does.
pub fn clean_lines(s: &str) -> Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t' || c == '\r';
    if !s.chars().any(|c| is_unsafe(c) && !keep(c)) && !s.contains('\r') {
        return Cow::Borrowed(s);
    }
    let lines: Vec<String> = s
        .split('\n')
        .map(|l| {
            let (body, cr) = match l.strip_suffix('\r') {
                Some(b) => (b, "\r"),
                None => (l, ""),
            };
            let body: Vec<Cow<'_, str>> = body.split('\t').map(clean).collect();
            format!("{}{cr}", body.join("\t"))
        })
        .collect();
    Cow::Owned(lines.join("\n"))
}

/// [`clean_lines`] when stdout is a terminal; piped, the text stays exact so it can be fed to
/// another program (the terminal that finally shows it is then that program's business).
pub fn for_stdout(s: &str) -> Cow<'_, str> {
    use std::io::IsTerminal;
    if io::stdout().is_terminal() {
        clean_lines(s)
    } else {
        Cow::Borrowed(s)
    }
}

/// An error message: line breaks the message itself has are kept, but every further line is
/// indented, so nothing in it can pass for a line of its own.
pub fn error(msg: &str) {
    let mut e = anstream::stderr().lock();
    let text: Vec<Cow<'_, str>> = msg.split('\n').map(clean).collect();
    let _ = writeln!(e, "{ERR}error:{ERR:#} {}", text.join("\n  "));
}

pub fn warnings(ws: &[Warning]) {
    let mut e = anstream::stderr().lock();
    for w in ws {
        let _ = writeln!(e, "{WARN}warning:{WARN:#} {}", clean(&w.to_string()));
    }
}

/// The width of a column holding `cells` as [`clean`] writes them, in characters.
pub fn column_width<'a>(cells: impl IntoIterator<Item = &'a str>) -> usize {
    cells
        .into_iter()
        .map(|t| clean(t).chars().count())
        .max()
        .unwrap_or(0)
}

/// Candidates of an ambiguous name, each with the exact text that runs it (quoted for the shell
/// when it must be: `'lib: build'`), and how many more.
pub fn named_candidates(cands: &[CommandItem], typed: &[String], more: usize) {
    let mut e = anstream::stderr().lock();
    let typed: Vec<String> = typed
        .iter()
        .map(|t| commandtree_core::text::sh_word(t))
        .collect();
    let width = column_width(typed.iter().map(String::as_str)).min(48);
    for (c, name) in cands.iter().zip(&typed) {
        let _ = writeln!(
            e,
            "  {:<width$}  {DIM}{} ({}){DIM:#}",
            clean(name),
            clean(&c.command),
            clean(&c.kind)
        );
    }
    if more > 0 {
        let _ = writeln!(e, "  … and {more} more");
    }
}

/// A serializer's error as the I/O error it is (a closed pipe stays a closed pipe), or as one.
fn json_error(e: serde_json::Error) -> io::Error {
    match e.io_error_kind() {
        Some(kind) => io::Error::new(kind, e),
        None => io::Error::other(e),
    }
}

/// Pretty JSON for people at a terminal, compact for pipes and scripts.
pub fn json<T: serde::Serialize + ?Sized>(out: &mut impl Write, value: &T) -> io::Result<()> {
    use std::io::IsTerminal;
    if io::stdout().is_terminal() {
        serde_json::to_writer_pretty(&mut *out, value).map_err(json_error)?;
    } else {
        serde_json::to_writer(&mut *out, value).map_err(json_error)?;
    }
    writeln!(out)
}

/// A listing as [`json`] writes it, the compact form serialized on every core: a big tree's
/// listing is megabytes, and the bytes are the same as one serializer's. Parts of `JSON_PART`
/// items go round the threads; the caller's thread writes its own parts straight out and the
/// others' as they arrive, so only a few parts are ever held in memory.
pub fn json_items(out: &mut impl Write, items: &[&CommandItem]) -> io::Result<()> {
    use std::io::IsTerminal;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if io::stdout().is_terminal() || threads < 2 || items.len() < 4 * JSON_PART {
        return json(out, items);
    }
    compact_json_in_parts(out, items, threads)
}

const JSON_PART: usize = 1024;

/// `items` as one compact JSON array, parts serialized on `threads` threads.
fn compact_json_in_parts(
    out: &mut impl Write,
    items: &[&CommandItem],
    threads: usize,
) -> io::Result<()> {
    use std::sync::mpsc::sync_channel;
    fn elements(out: &mut impl Write, items: &[&CommandItem]) -> io::Result<()> {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, item).map_err(json_error)?;
        }
        Ok(())
    }
    let parts: Vec<&[&CommandItem]> = items.chunks(JSON_PART).collect();
    std::thread::scope(|s| {
        let parts = &parts;
        let helpers: Vec<_> = (1..threads)
            .map(|t| {
                let (tx, rx) = sync_channel::<io::Result<Vec<u8>>>(1);
                s.spawn(move || {
                    for part in parts.iter().skip(t).step_by(threads) {
                        let mut buf = Vec::with_capacity(part.len() * 384);
                        let done = elements(&mut buf, part).map(|()| buf);
                        // The receiver is gone only when writing failed: stop quietly.
                        if tx.send(done).is_err() {
                            return;
                        }
                    }
                });
                rx
            })
            .collect();
        out.write_all(b"[")?;
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            match i % threads {
                0 => elements(out, part)?,
                t => {
                    let buf = helpers[t - 1]
                        .recv()
                        .map_err(|_| io::Error::other("serializing the listing failed"))??;
                    out.write_all(&buf)?;
                }
            }
        }
        out.write_all(b"]\n")
    })
}

pub fn tree(out: &mut impl Write, tree: &[Category], commands: &[CommandItem]) -> io::Result<()> {
    for cat in tree {
        writeln!(out, "{CATEGORY}{}{CATEGORY:#}", cat.title())?;
        nodes(out, &cat.children, commands, 1)?;
    }
    Ok(())
}

fn nodes(
    out: &mut impl Write,
    nodes: &[Node],
    commands: &[CommandItem],
    depth: usize,
) -> io::Result<()> {
    let pad = "  ".repeat(depth);
    for n in nodes {
        match n {
            Node::Folder { label, children } => {
                writeln!(out, "{pad}{FOLDER}{}/{FOLDER:#}", clean(label))?;
                self::nodes(out, children, commands, depth + 1)?;
            }
            Node::Command(i) => {
                let c = &commands[*i];
                let warn = if c.security_warning.as_deref().is_some_and(|w| !w.is_empty()) {
                    "⚠ "
                } else {
                    ""
                };
                let label_style = if c.private { DIM } else { Style::new() };
                write!(
                    out,
                    "{pad}{WARN}{warn}{WARN:#}{label_style}{}{label_style:#}",
                    clean(&c.label)
                )?;
                // A folder with a single command is not drawn (upstream's flattening): its path
                // goes with the command, so it does not vanish.
                if !c.params.is_empty() {
                    write!(out, " {DIM}{}{DIM:#}", clean(&params_usage(&c.params)))?;
                }
                if depth == 1
                    && c.category != "Root"
                    && !c.label.contains('/')
                    && commandtree_core::sources::type_def(&c.kind).is_some_and(|t| !t.flat)
                {
                    write!(out, " {DIM}({}/){DIM:#}", clean(&c.category))?;
                }
                if c.private {
                    write!(out, " {DIM}(private){DIM:#}")?;
                }
                if !c.aliases.is_empty() {
                    write!(
                        out,
                        " {DIM}[alias: {}]{DIM:#}",
                        clean(&c.aliases.join(", "))
                    )?;
                }
                if !c.tags.is_empty() {
                    write!(out, " {DIM}[{}]{DIM:#}", clean(&c.tags.join(", ")))?;
                }
                if let Some(d) = c.description.as_deref().or(c.summary.as_deref()) {
                    write!(out, "  {DIM}{}{DIM:#}", one_line(d))?;
                }
                writeln!(out)?;
                // Why the ⚠: the warning's first clause, under the command.
                if let Some(w) = c.security_warning.as_deref().filter(|w| !w.is_empty()) {
                    writeln!(out, "{pad}    {WARN}{}{WARN:#}", warning_reason(w))?;
                }
            }
        }
    }
    Ok(())
}

/// A command's parameters as a usage line (`FROM TO [BRANCH=main]`), at most six shown.
fn params_usage(params: &[commandtree_core::model::ParamDef]) -> String {
    const SHOWN: usize = 6;
    let mut words: Vec<String> = params.iter().take(SHOWN).map(|p| p.usage()).collect();
    if params.len() > SHOWN {
        words.push(format!("(+{} more)", params.len() - SHOWN));
    }
    words.join(" ")
}

/// `Caution: installs a program globally (cargo install) (line 2: cargo install x); …` →
/// `Caution: installs a program globally (cargo install)`, on one line, at most 120 characters.
fn warning_reason(w: &str) -> String {
    let first = w.split(" (line ").next().unwrap_or(w);
    let first = first.split("; ").next().unwrap_or(first);
    let more = if w[first.len()..].contains("; ") {
        " …"
    } else {
        ""
    };
    format!("{}{more}", one_line_n(first, 120))
}

fn one_line_n(s: &str, n: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    clean(&commandtree_core::text::truncate(line, n)).into_owned()
}

fn one_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    clean(&commandtree_core::text::truncate(line, 80)).into_owned()
}

/// The `last run` line of `ct show`: running for how long, or how it ended.
pub fn last_run(
    out: &mut impl Write,
    r: &commandtree_exec::history::Run,
    now: std::time::SystemTime,
) -> io::Result<()> {
    let took = commandtree_engine::runs::elapsed(r, now)
        .map(|d| commandtree_core::text::duration(d.as_millis() as i64));
    let text = if commandtree_engine::runs::is_over(r) {
        let code = r
            .exit_code
            .map(|c| format!(", exit {c}"))
            .unwrap_or_default();
        let took = took.map(|t| format!(", took {t}")).unwrap_or_default();
        format!("run {}: {}{code}{took} ({})", r.run_id, r.status, r.mode)
    } else {
        let took = took.map(|t| format!(" for {t}")).unwrap_or_default();
        format!(
            "run {}: running{took} ({}; `ct stop {}` ends it)",
            r.run_id, r.mode, r.run_id
        )
    };
    writeln!(out, "  {DIM}{:<12}{DIM:#} {}", "last run", clean(&text))
}

pub fn details(out: &mut impl Write, c: &CommandItem) -> io::Result<()> {
    writeln!(out, "{LABEL}{}{LABEL:#}", clean(&c.label))?;
    let field = |out: &mut dyn Write, name: &str, value: &str| {
        writeln!(out, "  {DIM}{name:<12}{DIM:#} {}", clean(value))
    };
    field(out, "id", &c.id)?;
    let type_label = commandtree_core::sources::type_def(&c.kind)
        .map(|t| t.label)
        .unwrap_or("");
    field(out, "type", &format!("{} ({type_label})", c.kind))?;
    field(out, "category", &c.category)?;
    field(out, "command", &c.command)?;
    field(out, "cwd", &c.cwd)?;
    let file = match c.line {
        Some(l) => format!("{}:{l}", c.file_path),
        None => c.file_path.clone(),
    };
    field(out, "file", &file)?;
    if c.private {
        field(out, "private", "yes (listed last)")?;
    }
    if let Some(d) = &c.description {
        field(out, "description", d)?;
    }
    if let Some(s) = &c.summary {
        field(out, "summary", s)?;
    }
    if let Some(w) = c.security_warning.as_deref().filter(|w| !w.is_empty()) {
        writeln!(out, "  {WARN}{:<12}{WARN:#} ⚠ {}", "warning", clean(w))?;
    }
    if !c.tags.is_empty() {
        field(out, "tags", &c.tags.join(", "))?;
    }
    if !c.params.is_empty() {
        writeln!(out, "  {DIM}params{DIM:#}")?;
        for p in &c.params {
            let mut line = format!("    {}", p.name);
            if let Some(d) = &p.description {
                line.push_str(&format!("  {d}"));
            }
            if let Some(d) = &p.default {
                line.push_str(&format!(" (default: {d})"));
            }
            if !p.options.is_empty() {
                line.push_str(&format!(" [options: {}]", p.options.join(", ")));
            }
            if let Some(f) = &p.flag {
                line.push_str(&format!(" [flag: {f}]"));
            }
            writeln!(out, "{}", clean(&line))?;
        }
    }
    Ok(())
}

/// What running the command pulls in (its closure), under `ct show`'s fields: each step with
/// how it runs and the steps it is reached through, then steps nobody could check and cycles.
pub fn steps(out: &mut impl Write, c: &commandtree_engine::closure::Closure<'_>) -> io::Result<()> {
    let field = |out: &mut dyn Write, name: &str, value: &str| {
        writeln!(out, "  {DIM}{name:<12}{DIM:#} {}", clean(value))
    };
    for (i, s) in c.steps.iter().enumerate() {
        let via = if s.via.is_empty() {
            String::new()
        } else {
            format!(", via {}", s.via.join(" > "))
        };
        let warn = if s.item.own_warning().is_some() {
            " ⚠"
        } else {
            ""
        };
        let line = format!(
            "{} ({}, {}{via}){warn}",
            s.item.label,
            s.item.kind,
            s.how.as_str()
        );
        field(out, if i == 0 { "steps" } else { "" }, &line)?;
    }
    if c.truncated {
        field(
            out,
            "",
            &format!(
                "... more than {} steps, not followed",
                commandtree_engine::closure::MAX_STEPS
            ),
        )?;
    }
    for u in &c.unresolved {
        field(
            out,
            "unresolved",
            &format!(
                "{} ({}): names no command found here, not checked",
                u.name,
                u.how.as_str()
            ),
        )?;
    }
    for cycle in &c.cycles {
        field(out, "cycle", &cycle.join(" > "))?;
    }
    Ok(())
}

/// A problem as compilers print one (`file:line:col: severity: message [code]`, which editors'
/// error-list readers understand), its severity coloured on a terminal.
pub fn problem(out: &mut impl Write, p: &commandtree_engine::problems::Problem) -> io::Result<()> {
    use commandtree_engine::problems::Severity;
    let style = match p.severity {
        Severity::Error => ERR,
        Severity::Warning => WARN,
        Severity::Info | Severity::Hint => DIM,
    };
    let column = p.column.map(|c| format!(":{c}")).unwrap_or_default();
    let code = p
        .code
        .as_deref()
        .map(|c| format!(" [{c}]"))
        .unwrap_or_default();
    let outside = if p.outside_root {
        " (outside the workspace)"
    } else {
        ""
    };
    writeln!(
        out,
        "{}:{}{column}: {style}{}:{style:#} {}{}{DIM}{outside}{DIM:#}",
        clean(&p.file),
        p.line,
        p.severity.as_str(),
        clean(&p.message),
        clean(&code)
    )
}

/// `ct deps`: the command, the tree of what it runs (indented by the commands it is reached
/// through), the steps that name nothing and the cycles, then the tree of what runs it. Files
/// are shown from `root`.
pub fn deps(
    out: &mut impl Write,
    d: &commandtree_engine::deps::Deps,
    root: &std::path::Path,
) -> io::Result<()> {
    use commandtree_engine::deps::Link;
    let place = |l: &Link| {
        let p = std::path::Path::new(&l.file_path);
        let file = p.strip_prefix(root).unwrap_or(p).display().to_string();
        match l.line {
            Some(n) => format!("{file}:{n}"),
            None => file,
        }
    };
    let node = |out: &mut dyn Write, l: &Link| {
        let how = if l.how.is_empty() {
            String::new()
        } else {
            format!(", {}", l.how)
        };
        writeln!(
            out,
            "{}{LABEL}{}{LABEL:#} ({}{how})  {DIM}{}{DIM:#}",
            "  ".repeat(l.via.len() + 1),
            clean(&l.label),
            clean(&l.kind),
            clean(&place(l))
        )
    };
    writeln!(
        out,
        "{LABEL}{}{LABEL:#} ({})  {DIM}{}{DIM:#}",
        clean(&d.command.label),
        clean(&d.command.kind),
        clean(&place(&d.command))
    )?;
    writeln!(out, "runs:")?;
    if d.runs.is_empty() && d.unresolved.is_empty() {
        writeln!(out, "  {DIM}nothing by itself{DIM:#}")?;
    }
    for l in &d.runs {
        node(out, l)?;
    }
    for u in &d.unresolved {
        let via = if u.via.is_empty() {
            String::new()
        } else {
            format!(", through {}", u.via.join(" > "))
        };
        writeln!(
            out,
            "  {WARN}{}{WARN:#} ({}{via}): names no command found here",
            clean(&u.name),
            u.how,
            via = clean(&via)
        )?;
    }
    for cycle in &d.cycles {
        writeln!(out, "  {WARN}cycle:{WARN:#} {}", clean(&cycle.join(" > ")))?;
    }
    writeln!(out, "run by:")?;
    if d.run_by.is_empty() {
        writeln!(out, "  {DIM}nothing found here{DIM:#}")?;
    }
    for l in &d.run_by {
        node(out, l)?;
    }
    if d.truncated {
        writeln!(
            out,
            "{DIM}… more than {} commands in one direction; the rest were not followed{DIM:#}",
            commandtree_engine::closure::MAX_STEPS
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_in_parts_is_the_bytes_of_one_serializer() {
        let items: Vec<CommandItem> = (0..JSON_PART * 5 + 7)
            .map(|i| {
                let mut c = CommandItem::new(
                    "npm",
                    std::path::Path::new("/w/package.json"),
                    &format!("s{i}"),
                    format!("npm run s{i} \"\u{1b}[31m\""),
                );
                c.security_warning = (i % 3 == 0).then(|| "Danger: x".to_string());
                c
            })
            .collect();
        let refs: Vec<&CommandItem> = items.iter().collect();
        let mut one = serde_json::to_vec(&refs).unwrap();
        one.push(b'\n');
        for threads in [2, 3, 4] {
            let mut parts = Vec::new();
            compact_json_in_parts(&mut parts, &refs, threads).unwrap();
            assert!(parts == one, "{threads} threads");
        }
    }

    #[test]
    fn a_warning_reason_is_its_first_clause() {
        assert_eq!(
            warning_reason(
                "Caution: installs a program globally (cargo install) (line 2: cargo install x)"
            ),
            "Caution: installs a program globally (cargo install)"
        );
        assert_eq!(
            warning_reason(
                "Danger: runs `clean`, which deletes ~/x (line 1: rm -rf ~/x); runs as root (sudo) (line 2)"
            ),
            "Danger: runs `clean`, which deletes ~/x …"
        );
        assert_eq!(
            warning_reason("Deletes the build folder.\nAnd more."),
            "Deletes the build folder."
        );
        assert_eq!(
            warning_reason("Caution: x\u{1b}[31m"),
            "Caution: x\\x1b[31m"
        );
    }

    #[test]
    fn lines_keep_their_breaks_and_tabs_only() {
        assert_eq!(clean_lines("a\n\tb"), "a\n\tb");
        assert_eq!(clean_lines("a\r\nb\rc"), "a\r\nb\\rc");
        assert_eq!(
            clean_lines("\x1b[31mred\n\x1b]0;t\x07\u{202e}"),
            "\\x1b[31mred\n\\x1b]0;t\\x07\\u{202e}"
        );
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(clean("build"), "build");
        assert_eq!(clean("é 😀 ⚠"), "é 😀 ⚠");
        assert_eq!(clean("a\nb\tc\rd"), "a\\nb\\tc\\rd");
        assert_eq!(clean("\x1b[31mred"), "\\x1b[31mred");
        assert_eq!(clean("\u{85}\u{9b}\u{7f}"), "\\x85\\x9b\\x7f");
        assert_eq!(clean("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(
            clean("\u{2066}x\u{2069}\u{2028}"),
            "\\u{2066}x\\u{2069}\\u{2028}"
        );
    }
}
