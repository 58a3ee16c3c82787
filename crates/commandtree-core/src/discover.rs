//! The discovery engine: a parallel walk of the workspace (honouring `.gitignore` and the exclude
//! patterns, never following symlinks so loops cannot happen), routing each file to the sources
//! whose patterns match, then ordering, categorising and de-duplicating what they found.

use crate::fs::{Fs, ReadError, RealFs, decode};
use crate::model::{CommandItem, Warning};
use crate::settings::Settings;
use crate::sources::{self, Parsed, SOURCES, SourceFile, type_order};
use crate::tree::category_for;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Everything one discovery pass found.
#[derive(Debug, Default)]
pub struct Discovery {
    pub commands: Vec<CommandItem>,
    pub warnings: Vec<Warning>,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only these types (all when empty).
    pub types: Vec<String>,
    /// Walker threads; 0 = one per core.
    pub threads: usize,
}

fn glob(p: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(p)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

/// Routes relative paths to rows of `SOURCES`.
pub struct Matcher {
    set: GlobSet,
    /// For each glob in `set`, the index of its source row.
    owner: Vec<usize>,
    /// Source rows that take extensionless executables by shebang.
    shebang_rows: Vec<usize>,
}

impl Matcher {
    pub fn new(types: &[String]) -> Matcher {
        let wanted = |kind: &str| types.is_empty() || types.iter().any(|t| t == kind);
        let mut b = GlobSetBuilder::new();
        let mut owner = Vec::new();
        let mut shebang_rows = Vec::new();
        for (i, s) in SOURCES.iter().enumerate() {
            if !wanted(s.kind) {
                continue;
            }
            for p in s.patterns {
                // The table is static: a bad glob is a programming error caught by the tests.
                b.add(glob(p).expect("valid source glob"));
                owner.push(i);
            }
            if !s.shebangs.is_empty() {
                shebang_rows.push(i);
            }
        }
        Matcher {
            set: b.build().expect("valid source globs"),
            owner,
            shebang_rows,
        }
    }

    /// Source rows for a path relative to the root.
    pub fn rows_for(&self, rel: &Path) -> Vec<usize> {
        let mut rows: Vec<usize> = self
            .set
            .matches(rel)
            .into_iter()
            .map(|g| self.owner[g])
            .collect();
        rows.dedup();
        rows
    }

    /// Rows claiming an extensionless executable whose first line is `first_line`.
    pub fn rows_for_shebang(&self, first_line: &str) -> Vec<usize> {
        self.shebang_rows
            .iter()
            .copied()
            .filter(|&r| sources::shebang_matches(first_line, SOURCES[r].shebangs))
            .collect()
    }

    pub fn wants_shebangs(&self) -> bool {
        !self.shebang_rows.is_empty()
    }

    /// The rows for a file: by its path, else (an extensionless executable) by its shebang.
    /// `executable` and `first_line` are only asked when needed, since on disk they cost
    /// system calls.
    pub fn route(
        &self,
        rel: &Path,
        executable: impl FnOnce() -> bool,
        first_line: impl FnOnce() -> Option<String>,
    ) -> Vec<usize> {
        let rows = self.rows_for(rel);
        if !rows.is_empty() || !self.wants_shebangs() {
            return rows;
        }
        let extensionless = rel
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| !n.contains('.'));
        if !extensionless || !executable() {
            return rows;
        }
        first_line().map_or(rows, |l| self.rows_for_shebang(&l))
    }
}

/// The exclude patterns, compiled for files and for folders (a folder is skipped when a
/// `…/**` pattern covers everything inside it, so the walk never enters it).
pub struct Excluder {
    files: GlobSet,
    dirs: GlobSet,
}

impl Excluder {
    pub fn new(patterns: &[String], warn_file: &Path, warnings: &mut Vec<Warning>) -> Excluder {
        let mut files = GlobSetBuilder::new();
        let mut dirs = GlobSetBuilder::new();
        for p in patterns {
            let p = p.trim().trim_start_matches("./");
            match glob(p) {
                Ok(g) => {
                    files.add(g);
                    if let Some(d) = p.strip_suffix("/**")
                        && let Ok(g) = glob(d)
                    {
                        dirs.add(g);
                    }
                }
                Err(e) => warnings.push(Warning::new(
                    warn_file,
                    None,
                    format!("ignoring exclude pattern `{p}`: {e}"),
                )),
            }
        }
        Excluder {
            files: files.build().unwrap_or_else(|_| GlobSet::empty()),
            dirs: dirs.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }
    pub fn excludes_dir(&self, rel: &Path) -> bool {
        self.dirs.is_match(rel)
    }
    pub fn excludes_file(&self, rel: &Path) -> bool {
        self.files.is_match(rel)
    }
}

/// Runs every source row in `rows` on one file. A parser that panics (a bug) costs that file's
/// commands and a warning, never the whole listing.
pub fn parse_file(
    root: &Path,
    path: &Path,
    content: &str,
    executable: bool,
    fs: &dyn Fs,
    rows: &[usize],
) -> Vec<(usize, Parsed)> {
    rows.iter()
        .map(|&r| {
            let file = SourceFile {
                path,
                content,
                executable,
                root,
                fs,
            };
            let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                (SOURCES[r].parse)(&file)
            }))
            .unwrap_or_else(|_| {
                Parsed::with_warning(
                    path,
                    None,
                    format!(
                        "internal error in the {} parser; please report this file",
                        SOURCES[r].kind
                    ),
                )
            });
            (r, parsed)
        })
        .collect()
}

struct FileResult {
    path: PathBuf,
    row: usize,
    parsed: Parsed,
}

/// First line of a small prefix of the file (for shebang routing), without reading it whole.
fn first_line(path: &Path) -> Option<String> {
    let mut buf = [0u8; 256];
    let n = std::fs::File::open(path).ok()?.read(&mut buf).ok()?;
    let head = &buf[..n];
    let end = head.iter().position(|&b| b == b'\n').unwrap_or(n);
    std::str::from_utf8(&head[..end])
        .ok()
        .map(|s| s.trim_end_matches('\r').to_string())
}

fn walk_warning(err: &ignore::Error, root: &Path) -> Warning {
    fn inner(err: &ignore::Error, path: Option<&Path>) -> (Option<PathBuf>, String) {
        match err {
            ignore::Error::WithPath { path, err } => inner(err, Some(path)),
            ignore::Error::WithDepth { err, .. } => inner(err, path),
            ignore::Error::WithLineNumber { err, .. } => inner(err, path),
            ignore::Error::Loop { child, .. } => {
                (Some(child.clone()), "skipped: symlink loop".into())
            }
            ignore::Error::Io(e) if e.kind() == std::io::ErrorKind::PermissionDenied => (
                path.map(Path::to_path_buf),
                "skipped: permission denied".into(),
            ),
            other => (path.map(Path::to_path_buf), format!("skipped: {other}")),
        }
    }
    let (path, msg) = inner(err, None);
    Warning::new(&path.unwrap_or_else(|| root.to_path_buf()), None, msg)
}

/// Discovers every command under `root` on disk.
pub fn discover(root: &Path, settings: &Settings, opts: &Options) -> Discovery {
    let mut warnings = Vec::new();
    let settings_file = root.join(".vscode").join("settings.json");
    let (exclude_globs, smart_excludes) = crate::classify::effective_excludes(settings);
    let excluder = Excluder::new(&exclude_globs, &settings_file, &mut warnings);
    let matcher = Matcher::new(&opts.types);
    let results: Mutex<Vec<FileResult>> = Mutex::new(Vec::new());
    let walk_warnings: Mutex<Vec<Warning>> = Mutex::new(Vec::new());

    let threads = if opts.threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    } else {
        opts.threads
    };
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .follow_links(false)
        .git_ignore(settings.respect_gitignore)
        .git_exclude(settings.respect_gitignore)
        .git_global(settings.respect_gitignore)
        .ignore(settings.respect_gitignore)
        .parents(settings.respect_gitignore)
        .require_git(false)
        .threads(threads);
    {
        let root = root.to_path_buf();
        let dirs = Excluder {
            files: excluder.files.clone(),
            dirs: excluder.dirs.clone(),
        };
        builder.filter_entry(move |e| {
            if !e.file_type().is_some_and(|t| t.is_dir()) || e.depth() == 0 {
                return true;
            }
            // A VCS folder never holds commands and can be huge.
            if e.file_name() == ".git" {
                return false;
            }
            let rel = e.path().strip_prefix(&root).unwrap_or(e.path());
            let smart_skip =
                smart_excludes && crate::classify::smart_default_excludes_dir(e.path());
            !dirs.excludes_dir(rel) && !smart_skip
        });
    }
    let walker = builder.build_parallel();
    walker.run(|| {
        let matcher = &matcher;
        let excluder = &excluder;
        let results = &results;
        let walk_warnings = &walk_warnings;
        let mut local: Vec<FileResult> = Vec::new();
        let mut local_warn: Vec<Warning> = Vec::new();
        Box::new(move |entry| {
            match entry {
                Err(e) => local_warn.push(walk_warning(&e, root)),
                Ok(entry) => {
                    visit(&entry, root, matcher, excluder, &mut local, &mut local_warn);
                }
            }
            // Flush in batches; the closure has no drop hook we can rely on for the last batch,
            // so flush every entry that produced something.
            if !local.is_empty() {
                results
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .append(&mut local);
            }
            if !local_warn.is_empty() {
                walk_warnings
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .append(&mut local_warn);
            }
            ignore::WalkState::Continue
        })
    });
    warnings.extend(
        walk_warnings
            .into_inner()
            .unwrap_or_else(|p| p.into_inner()),
    );
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut d = finish(root, results, warnings);
    crate::classify::classify(root, &RealFs, &mut d.commands);
    d
}

fn visit(
    entry: &ignore::DirEntry,
    root: &Path,
    matcher: &Matcher,
    excluder: &Excluder,
    out: &mut Vec<FileResult>,
    warnings: &mut Vec<Warning>,
) {
    let Some(ft) = entry.file_type() else { return };
    let path = entry.path();
    if ft.is_dir() {
        return;
    }
    if ft.is_symlink() && !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        // Symlinked folders are not followed (no loops); dangling links are skipped.
        return;
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    let rows = matcher.route(
        rel,
        || crate::fs::is_executable_path(path),
        || first_line(path),
    );
    if rows.is_empty() {
        return;
    }
    if excluder.excludes_file(rel) {
        return;
    }
    match crate::fs::read_file_and_mode(path) {
        Ok((content, executable)) => {
            for (row, parsed) in parse_file(root, path, &content, executable, &RealFs, &rows) {
                out.push(FileResult {
                    path: path.to_path_buf(),
                    row,
                    parsed,
                });
            }
        }
        Err(e) => warnings.push(Warning::new(path, None, e.to_string())),
    }
}

/// Discovers the files of an in-memory tree (tests, fuzzing): the same routing, parsing and
/// post-processing as on disk, without the walker.
pub fn discover_fs(root: &Path, fs: &crate::fs::MemFs, opts: &Options) -> Discovery {
    // Compiling the globs costs far more than parsing a small file: fuzzing calls this per input.
    static ALL: std::sync::OnceLock<Matcher> = std::sync::OnceLock::new();
    let own;
    let matcher = if opts.types.is_empty() {
        ALL.get_or_init(|| Matcher::new(&[]))
    } else {
        own = Matcher::new(&opts.types);
        &own
    };
    let mut results = Vec::new();
    let mut warnings = Vec::new();
    for path in fs.paths() {
        let rel = path.strip_prefix(root).unwrap_or(path);
        let is_exe = fs.is_executable(path);
        let rows = matcher.route(
            rel,
            || is_exe,
            || {
                fs.read(path)
                    .map(|c| c.lines().next().unwrap_or("").to_string())
            },
        );
        if rows.is_empty() {
            continue;
        }
        let Some(content) = fs.read(path) else {
            warnings.push(Warning::new(path, None, ReadError::Binary.to_string()));
            continue;
        };
        for (row, parsed) in parse_file(root, path, &content, is_exe, fs, &rows) {
            results.push(FileResult {
                path: path.clone(),
                row,
                parsed,
            });
        }
    }
    let mut d = finish(root, results, warnings);
    crate::classify::classify(root, fs, &mut d.commands);
    d
}

/// Orders results (type order, then path, then in-file order), fills categories and makes ids
/// unique: a repeated id gets a stable `#2`, `#3`… suffix and a warning.
fn finish(root: &Path, mut results: Vec<FileResult>, mut warnings: Vec<Warning>) -> Discovery {
    results.sort_by(|a, b| {
        type_order(SOURCES[a.row].kind)
            .cmp(&type_order(SOURCES[b.row].kind))
            .then_with(|| a.path.cmp(&b.path))
            .then(a.row.cmp(&b.row))
    });
    let mut commands = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in results {
        warnings.extend(r.parsed.warnings);
        for mut c in r.parsed.commands {
            c.category = category_for(&c.kind, Path::new(&c.file_path), root);
            let n = seen.entry(c.id.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                let new_id = format!("{}#{}", c.id, n);
                warnings.push(Warning::new(
                    &r.path,
                    c.line.map(|l| l as usize),
                    format!(
                        "duplicate command `{}`: listed with id suffix #{n}",
                        c.label
                    ),
                ));
                c.id = new_id;
            }
            commands.push(c);
        }
    }
    warnings.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
    Discovery { commands, warnings }
}

/// Feeds raw bytes, as the file `rel` under a root `/fuzz`, to every source whose patterns
/// match that name. The entry point of the fuzz targets and robustness tests.
pub fn parse_bytes(rel: &str, data: &[u8], executable: bool) -> Discovery {
    let root = Path::new("/fuzz");
    let Ok(text) = decode(data) else {
        return Discovery::default();
    };
    let path = root.join(rel);
    let fs = if executable {
        crate::fs::MemFs::new().exe(&path, &text)
    } else {
        crate::fs::MemFs::new().file(&path, &text)
    };
    discover_fs(root, &fs, &Options::default())
}

/// A file name each source row accepts (for fuzzing and tests): its first pattern with the
/// wildcards filled in.
pub fn sample_path(row: usize) -> String {
    let p = SOURCES[row].patterns[0];
    p.trim_start_matches("**/")
        .replace("**", "x")
        .replace('*', "x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_globs_compile_and_route() {
        let m = Matcher::new(&[]);
        let kinds = |p: &str| {
            m.rows_for(Path::new(p))
                .into_iter()
                .map(|r| SOURCES[r].kind)
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds("package.json"), vec!["npm"]);
        assert_eq!(kinds("a/b/package.json"), vec!["npm"]);
        assert_eq!(kinds("scripts/deploy prod.sh"), vec!["shell"]);
        assert_eq!(kinds(".vscode/tasks.json"), vec!["vscode"]);
        assert_eq!(kinds("GNUmakefile"), vec!["make"]);
        assert!(kinds("src/main.rs").is_empty());
        assert!(kinds("sub/.github/workflows/ci.yml").is_empty());
        assert_eq!(kinds(".github/workflows/ci.yml"), vec!["workflow"]);
    }

    #[test]
    fn excluder_prunes_folders() {
        let mut w = Vec::new();
        let pats: Vec<String> = ["**/node_modules/**", "**/*.min.js", "[bad"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let e = Excluder::new(&pats, Path::new("s.json"), &mut w);
        assert_eq!(w.len(), 1);
        assert!(e.excludes_dir(Path::new("node_modules")));
        assert!(e.excludes_dir(Path::new("a/node_modules")));
        assert!(!e.excludes_dir(Path::new("a/node_modulesx")));
        assert!(e.excludes_file(Path::new("x/y.min.js")));
        assert!(e.excludes_file(Path::new("node_modules/p/package.json")));
    }
}
