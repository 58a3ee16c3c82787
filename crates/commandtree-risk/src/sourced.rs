//! A script's sourced project files read where they are sourced (`CommandItem::sourced`):
//! sourcing runs the file's top-level code at that line, defines its functions for what
//! follows and sets its variables, so the analyser reads one text with each file's lines put
//! after the `source` line that reads it. Findings in those lines are told as the sourced
//! file's (`sources `scripts/_lib.sh`, whose line 51 …`) at the script's `source` line.

use crate::Finding;
use commandtree_core::SourcedFile;
use sha2::{Digest, Sha256};

/// Where a line of the combined text comes from.
#[derive(Debug, Clone, Copy)]
enum Origin {
    /// The script's own line.
    Own(u32),
    /// Line `line` of sourced file `file`, read through the script's `source` line `site`.
    Sourced { file: usize, line: u32, site: u32 },
}

pub(crate) struct Combined {
    pub text: String,
    origin: Vec<Origin>,
}

/// The script `text` with its sourced files put in (a file that cannot be read, or reads
/// otherwise than discovery read it, is left out, as are the ones it sources); `None` when
/// none can be.
pub(crate) fn combine(
    text: &str,
    files: &[SourcedFile],
    read: &dyn Fn(&SourcedFile) -> Option<String>,
) -> Option<Combined> {
    let texts: Vec<Option<String>> = files
        .iter()
        .map(|f| read(f).filter(|t| hash(t) == f.hash))
        .collect();
    if texts.iter().all(Option::is_none) {
        return None;
    }
    let mut out = Combined {
        text: String::with_capacity(
            text.len() + texts.iter().flatten().map(String::len).sum::<usize>(),
        ),
        origin: Vec::new(),
    };
    emit(None, text, files, &texts, None, &mut out);
    Some(out)
}

/// Appends `text` (the script, or sourced file `which`) and, after each `source` line, the file
/// it reads. Each file names an earlier one as its `from`, so this ends.
fn emit(
    which: Option<usize>,
    text: &str,
    files: &[SourcedFile],
    texts: &[Option<String>],
    site: Option<u32>,
    out: &mut Combined,
) {
    for (i, line) in text.split('\n').enumerate() {
        let n = i as u32 + 1;
        out.text.push_str(line);
        out.text.push('\n');
        out.origin.push(match (which, site) {
            (Some(file), Some(site)) => Origin::Sourced {
                file,
                line: n,
                site,
            },
            _ => Origin::Own(n),
        });
        for (j, f) in files.iter().enumerate() {
            if f.from == which
                && f.line == n
                && let Some(t) = &texts[j]
            {
                emit(Some(j), t, files, texts, Some(site.unwrap_or(n)), out);
            }
        }
    }
}

impl Combined {
    /// `found` (numbered in the combined text) numbered in the script again, those of a
    /// sourced file told as such.
    pub fn map_back(&self, found: Vec<Finding>, files: &[SourcedFile]) -> Vec<Finding> {
        let mut out = Vec::with_capacity(found.len());
        for mut f in found {
            match self.origin.get((f.line as usize).wrapping_sub(1)) {
                Some(Origin::Own(n)) => f.line = *n,
                Some(Origin::Sourced { file, line, site }) => {
                    f.reason = format!(
                        "sources {}, whose line {line} {}",
                        chain(files, *file),
                        f.reason
                    );
                    f.line = *site;
                }
                None => {}
            }
            out.push(f);
        }
        out
    }
}

/// `scripts/_lib.sh`, or `install/x.sh` (through `scripts/_lib.sh`) for a nested one.
fn chain(files: &[SourcedFile], file: usize) -> String {
    let mut through = Vec::new();
    let mut at = files[file].from;
    while let Some(i) = at {
        through.push(format!("`{}`", files[i].rel));
        at = files[i].from;
    }
    let own = format!("`{}`", files[file].rel);
    if through.is_empty() {
        own
    } else {
        through.reverse();
        format!("{own} (through {})", through.join(" → "))
    }
}

fn hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads a sourced file from disk while its real path is inside the workspace root it was
/// found under.
pub(crate) fn read_from_disk(f: &SourcedFile) -> Option<String> {
    let root = std::fs::canonicalize(&f.root).unwrap_or_else(|_| f.root.clone());
    if !commandtree_core::fs::real_path_inside(&root, &f.path) {
        return None;
    }
    commandtree_core::fs::read_file(&f.path).ok()
}
