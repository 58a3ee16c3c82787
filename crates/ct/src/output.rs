//! Text and JSON output. Colour comes from anstream, which drops it when the stream is not a
//! terminal or `NO_COLOR` is set.

use anstyle::{AnsiColor, Style};
use commandtree_core::tree::{Category, Node};
use commandtree_core::{CommandItem, Warning};
use std::io::{self, Write};

const CATEGORY: Style = Style::new().bold();
const FOLDER: Style = AnsiColor::Blue.on_default().bold();
const DIM: Style = Style::new().dimmed();
const WARN: Style = AnsiColor::Yellow.on_default().bold();
const ERR: Style = AnsiColor::Red.on_default().bold();
const LABEL: Style = Style::new().bold();

pub fn error(msg: &str) {
    let mut e = anstream::stderr().lock();
    let _ = writeln!(e, "{ERR}error:{ERR:#} {msg}");
}

pub fn warnings(ws: &[Warning]) {
    let mut e = anstream::stderr().lock();
    for w in ws {
        let _ = writeln!(e, "{WARN}warning:{WARN:#} {w}");
    }
}

pub fn candidates(cands: &[&CommandItem]) {
    let mut e = anstream::stderr().lock();
    for c in cands {
        let _ = writeln!(e, "  {}  {DIM}({}){DIM:#}", c.id, c.command);
    }
}

/// Pretty JSON for people at a terminal, compact for pipes and scripts.
pub fn json<T: serde::Serialize + ?Sized>(out: &mut impl Write, value: &T) -> io::Result<()> {
    use std::io::IsTerminal;
    if io::stdout().is_terminal() {
        serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
    } else {
        serde_json::to_writer(&mut *out, value).map_err(io::Error::other)?;
    }
    writeln!(out)
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
                writeln!(out, "{pad}{FOLDER}{label}/{FOLDER:#}")?;
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
                    c.label
                )?;
                if c.private {
                    write!(out, " {DIM}(private){DIM:#}")?;
                }
                if !c.aliases.is_empty() {
                    write!(out, " {DIM}[alias: {}]{DIM:#}", c.aliases.join(", "))?;
                }
                if !c.tags.is_empty() {
                    write!(out, " {DIM}[{}]{DIM:#}", c.tags.join(", "))?;
                }
                if let Some(d) = c.description.as_deref().or(c.summary.as_deref()) {
                    write!(out, "  {DIM}{}{DIM:#}", one_line(d))?;
                }
                writeln!(out)?;
            }
        }
    }
    Ok(())
}

fn one_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    commandtree_core::text::truncate(line, 80)
}

pub fn details(out: &mut impl Write, c: &CommandItem) -> io::Result<()> {
    writeln!(out, "{LABEL}{}{LABEL:#}", c.label)?;
    let field = |out: &mut dyn Write, name: &str, value: &str| {
        writeln!(out, "  {DIM}{name:<12}{DIM:#} {value}")
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
        writeln!(out, "  {WARN}{:<12}{WARN:#} ⚠ {w}", "warning")?;
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
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}
