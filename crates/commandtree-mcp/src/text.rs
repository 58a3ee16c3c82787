//! The short text forms of the tools' results (for clients and models that read `content`
//! rather than `structuredContent`), and command resources.

use crate::schema::{RunInfo, RunOutput, RunProblemsOutput, SearchHit, SummarizeOutput, TagOutput};
use commandtree_core::CommandItem;
use std::fmt::Write;
use std::time::Duration;

fn cut(s: &str, n: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= n {
        one_line
    } else {
        let mut t: String = one_line.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

fn name(c: &CommandItem) -> String {
    format!("{}:{}", c.kind, c.label)
}

/// One line per command: `type:label`, what it does, a mark when it is warned.
pub fn command_table(commands: &[CommandItem], total: usize, hidden: usize) -> String {
    let hidden_line = match hidden {
        0 => String::new(),
        n => format!(
            "{n} more hidden by default (test data, vendored code, templates, examples, documents); pass includeHidden: true to list them\n"
        ),
    };
    if commands.is_empty() {
        return format!("No commands match.\n{hidden_line}");
    }
    let width = commands
        .iter()
        .map(|c| name(c).chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    let mut s = String::new();
    for c in commands {
        let about = c
            .summary
            .as_deref()
            .or(c.description.as_deref())
            .unwrap_or(&c.command);
        let warn = if c.security_warning.is_some() {
            "  [security warning]"
        } else {
            ""
        };
        let _ = writeln!(s, "{:<width$}  {}{warn}", name(c), cut(about, 80));
    }
    if total > commands.len() {
        let _ = writeln!(
            s,
            "… {} more; narrow with type, tag or query, or pass all: true",
            total - commands.len()
        );
    }
    s.push_str(&hidden_line);
    s
}

pub fn details(c: &CommandItem, steps: &[String]) -> String {
    let mut s = format!("{} ({})\nid: {}\n", c.label, c.kind, c.id);
    let _ = writeln!(s, "command: {}", c.command);
    let _ = writeln!(s, "folder: {}", c.cwd);
    match c.line {
        Some(l) => {
            let _ = writeln!(s, "defined in: {}:{l}", c.file_path);
        }
        None => {
            let _ = writeln!(s, "defined in: {}", c.file_path);
        }
    }
    if let Some(d) = &c.description {
        let _ = writeln!(s, "description: {d}");
    }
    if let Some(d) = &c.summary {
        let _ = writeln!(s, "summary: {d}");
    }
    if let Some(w) = &c.security_warning {
        let _ = writeln!(s, "security warning: {w}");
    }
    if !c.tags.is_empty() {
        let _ = writeln!(s, "tags: {}", c.tags.join(", "));
    }
    for p in &c.params {
        let _ = write!(s, "param {}", p.name);
        if let Some(d) = &p.default {
            let _ = write!(s, " (default: {d})");
        }
        if !p.options.is_empty() {
            let _ = write!(s, " [{}]", p.options.join("|"));
        }
        if let Some(d) = &p.description {
            let _ = write!(s, ": {d}");
        }
        s.push('\n');
    }
    for st in steps {
        let _ = writeln!(s, "runs first: {st}");
    }
    s
}

pub fn search_table(hits: &[SearchHit]) -> String {
    if hits.is_empty() {
        return "No command holds these words or is similar enough.".into();
    }
    let mut s = String::new();
    for h in hits {
        let c = &h.command;
        let about = c.summary.as_deref().unwrap_or(&c.command);
        let _ = writeln!(
            s,
            "{:>3.0}%  {}  {}",
            h.score * 100.0,
            name(c),
            cut(about, 80)
        );
    }
    s
}

fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

pub fn run_report(c: &CommandItem, r: &RunOutput, timeout: Duration) -> String {
    let mut s = if r.timed_out {
        format!(
            "`{}` was stopped after the {} s timeout (exit {})\n",
            c.label,
            timeout.as_secs(),
            r.exit_code
        )
    } else {
        format!(
            "`{}` exited with {} after {}\n",
            c.label,
            r.exit_code,
            duration(r.duration_ms)
        )
    };
    if r.output_omitted_bytes > 0 {
        let _ = writeln!(
            s,
            "[the first {} bytes of output are left out; the last {} follow]",
            r.output_omitted_bytes,
            r.output.len()
        );
    }
    if r.output.is_empty() {
        s.push_str("(no output)\n");
    } else {
        s.push_str(&r.output);
    }
    s
}

/// One line per run: id, status (with its exit code), time, mode, label.
pub fn runs_table(runs: &[RunInfo], running: usize) -> String {
    if runs.is_empty() {
        return "No runs.\n".into();
    }
    let mut s = format!("{running} running\n");
    for r in runs {
        let status = match r.exit_code {
            Some(c) if r.status != "ok" => format!("{} {c}", r.status),
            _ => r.status.clone(),
        };
        let time = r.elapsed_ms.map(duration).unwrap_or_default();
        let _ = writeln!(
            s,
            "run {:<5} {:<10} {:>8}  {:<10} {}",
            r.run_id, status, time, r.mode, r.label
        );
    }
    s
}

/// The problems as compilers print them (`file:line:col: severity: message`), then a count.
pub fn problems_report(o: &RunProblemsOutput) -> String {
    let mut s = String::new();
    for p in &o.problems {
        let col = p.column.map(|c| format!(":{c}")).unwrap_or_default();
        let code = p
            .code
            .as_ref()
            .map(|c| format!(" [{c}]"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{}:{}{col}: {}: {}{code}",
            p.file,
            p.line,
            p.severity.as_str(),
            cut(&p.message, 300)
        );
    }
    let still = if o.run.running { ", still running" } else { "" };
    let _ = writeln!(
        s,
        "run {} (`{}`, {}{still}): {} problem{}",
        o.run.run_id,
        o.run.label,
        o.run.status,
        o.problems.len(),
        if o.problems.len() == 1 { "" } else { "s" }
    );
    s
}

pub fn tag_report(t: &TagOutput) -> String {
    let mut s = format!(
        "{} {} `{}`{}",
        t.id,
        if t.tagged {
            "is tagged"
        } else {
            "is not tagged"
        },
        t.tag,
        if t.changed { "" } else { " (unchanged)" }
    );
    if let Some(n) = &t.note {
        let _ = write!(s, "\nnote: {n}");
    }
    s
}

pub fn summarize_report(o: &SummarizeOutput) -> String {
    let mut s = String::new();
    for d in &o.summarized {
        let _ = writeln!(s, "{}: {}", d.label, d.summary);
        if let Some(w) = &d.security_warning {
            let _ = writeln!(s, "  security warning: {w}");
        }
    }
    for f in &o.failed {
        let _ = writeln!(s, "{}: failed: {}", f.label, f.error);
    }
    let _ = write!(
        s,
        "{} summarized, {} failed, {} not attempted, {} already current",
        o.summarized.len(),
        o.failed.len(),
        o.not_attempted,
        o.current
    );
    if let Some(why) = &o.stopped {
        let _ = write!(s, "\nstopped: {why}");
    }
    s
}

/// A command resource: what is known about it, then the text that defines it.
pub fn resource(c: &CommandItem) -> String {
    let mut s = format!("# {} ({})\n\n", c.label, c.kind);
    let _ = writeln!(s, "- id: `{}`", c.id);
    let _ = writeln!(s, "- command: `{}`", c.command);
    let _ = writeln!(s, "- folder: `{}`", c.cwd);
    if let Some(d) = &c.description {
        let _ = writeln!(s, "- description: {d}");
    }
    if let Some(d) = &c.summary {
        let _ = writeln!(s, "- summary: {d}");
    }
    if let Some(w) = &c.security_warning {
        let _ = writeln!(s, "- security warning: {w}");
    }
    let file = c.definition_path().to_string_lossy();
    let where_ = match c.definition_line() {
        Some(l) => format!("{file}:{l}"),
        None => file.into_owned(),
    };
    match commandtree_core::excerpt::read_definition(c) {
        Ok(content) => {
            let t = commandtree_core::excerpt::command_text(c, &content);
            // The text is the workspace's: a fence of its own must not end the block and
            // turn the rest into the resource's own words.
            let fence = commandtree_core::text::code_fence(&t.text);
            let _ = write!(
                s,
                "\nDefinition ({where_}{}):\n\n{fence}\n{}\n{fence}\n",
                if t.whole_file { ", whole file" } else { "" },
                t.text.trim_end()
            );
        }
        Err(e) => {
            let _ = write!(s, "\nDefinition: {where_} cannot be read ({e})\n");
        }
    }
    s
}
