//! The discovery engine: a parallel walk of the workspace (honouring `.gitignore` and the exclude
//! patterns, never following symlinks so loops cannot happen), routing each file to the sources
//! whose patterns match, then ordering, categorising and de-duplicating what they found.

use crate::cancel::{CancelToken, NoProgress, Progress, ProgressEvent};
use crate::classify::Classifier;
use crate::fs::{Dependencies, Fs, ReadError, RealFs, RecordingFs, decode};
use crate::model::{CommandItem, Warning};
use crate::settings::Settings;
use crate::sources::{self, Parsed, SOURCES, SourceFile, type_order};
use crate::tree::category_for;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// A quick test of a path against every source glob at once that only says "no" when none
/// can match: most files of a big tree (library modules, assets) are turned away on their name
/// alone, without building a glob candidate and running the glob set's regexes.
#[derive(Default)]
struct NamePrefilter {
    /// Some glob's last component is not understood here: everything goes to the glob set.
    always: bool,
    names: std::collections::HashSet<&'static str>,
    /// `(prefix, suffix)` of a last component `prefix*suffix` (either may be empty).
    affixes: Vec<(&'static str, &'static str)>,
    /// Folders a `…/NAME/**` glob takes every file under.
    dirs: Vec<&'static str>,
}

impl NamePrefilter {
    fn add(&mut self, pattern: &'static str) {
        let is_meta = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!');
        let (head, last) = pattern.rsplit_once('/').unwrap_or(("", pattern));
        if last == "**" {
            let dir = head.rsplit_once('/').map_or(head, |(_, d)| d);
            if dir.is_empty() || dir.contains(is_meta) {
                self.always = true;
            } else {
                self.dirs.push(dir);
            }
        } else if !last.contains(is_meta) {
            self.names.insert(last);
        } else if let Some((prefix, suffix)) = last.split_once('*')
            && !prefix.contains(is_meta)
            && !suffix.contains(is_meta)
        {
            self.affixes.push((prefix, suffix));
        } else {
            self.always = true;
        }
    }

    fn may_match(&self, rel: &Path) -> bool {
        if self.always {
            return true;
        }
        let Some(name) = rel.file_name().and_then(|n| n.to_str()) else {
            return true;
        };
        self.names.contains(name)
            || self.affixes.iter().any(|(p, s)| {
                name.len() >= p.len() + s.len() && name.starts_with(p) && name.ends_with(s)
            })
            || (!self.dirs.is_empty()
                && rel
                    .parent()
                    .is_some_and(|d| d.iter().any(|c| self.dirs.iter().any(|x| c == *x))))
    }
}

/// Routes relative paths to rows of `SOURCES`.
pub struct Matcher {
    prefilter: NamePrefilter,
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
        let mut prefilter = NamePrefilter::default();
        for (i, s) in SOURCES.iter().enumerate() {
            if !wanted(s.kind) {
                continue;
            }
            for p in s.patterns {
                // The table is static: a bad glob is a programming error caught by the tests.
                b.add(glob(p).expect("valid source glob"));
                prefilter.add(p);
                owner.push(i);
            }
            if !s.shebangs.is_empty() {
                shebang_rows.push(i);
            }
        }
        Matcher {
            prefilter,
            set: b.build().expect("valid source globs"),
            owner,
            shebang_rows,
        }
    }

    /// Source rows for a path relative to the root.
    pub fn rows_for(&self, rel: &Path) -> Vec<usize> {
        if !self.prefilter.may_match(rel) {
            return Vec::new();
        }
        let mut rows: Vec<usize> = self
            .set
            .matches(rel)
            .into_iter()
            .map(|g| self.owner[g])
            .collect();
        rows.dedup();
        // An AI definition is a Markdown file too, but listing it twice would only repeat it.
        if rows
            .iter()
            .any(|&r| commandtree_agents::is_definition_type(SOURCES[r].kind))
        {
            rows.retain(|&r| SOURCES[r].kind != crate::sources::markdown::KIND);
        }
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
#[derive(Clone)]
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

/// Everything discovery learned about one routed file: its commands per source row (type order,
/// then row; categories filled, ids unique within the file), its warnings, and the other paths
/// its parsers looked at.
#[derive(Debug, Clone)]
pub(crate) struct FileOutcome {
    pub path: PathBuf,
    pub rows: Vec<(usize, Vec<CommandItem>)>,
    pub warnings: Vec<Warning>,
    pub deps: Dependencies,
    /// For the incremental index: a hash of each command's own text (`rows` order), so an edit
    /// that changes what a command does but not how it is listed (a recipe's body, an
    /// included file's target) still reports it as updated. Empty in a one-off pass.
    pub texts: Vec<Vec<u64>>,
}

impl FileOutcome {
    fn unreadable(path: &Path, why: ReadError) -> FileOutcome {
        FileOutcome {
            path: path.to_path_buf(),
            rows: Vec::new(),
            warnings: vec![Warning::new(path, None, why.to_string())],
            deps: Dependencies::default(),
            texts: Vec::new(),
        }
    }

    /// Categorises and de-duplicates one file's results. De-duplication is per file (ids hold
    /// the file's path, so two files never share one): a change in one file never renames
    /// another file's commands.
    fn new(
        root: &Path,
        path: &Path,
        mut parsed: Vec<(usize, Parsed)>,
        mut warnings: Vec<Warning>,
        deps: Dependencies,
    ) -> FileOutcome {
        parsed.sort_by_key(|(row, _)| (type_order(SOURCES[*row].kind), *row));
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut rows = Vec::with_capacity(parsed.len());
        for (row, p) in parsed {
            warnings.extend(p.warnings);
            let mut commands = p.commands;
            for c in &mut commands {
                c.category = category_for(&c.kind, Path::new(&c.file_path), root);
                let n = seen.entry(c.id.clone()).or_insert(0);
                *n += 1;
                if *n > 1 {
                    warnings.push(Warning::new(
                        path,
                        c.line.map(|l| l as usize),
                        format!(
                            "duplicate command `{}`: listed with id suffix #{n}",
                            c.label
                        ),
                    ));
                    c.id = format!("{}#{}", c.id, n);
                }
            }
            rows.push((row, commands));
        }
        FileOutcome {
            path: path.to_path_buf(),
            rows,
            warnings,
            deps,
            texts: Vec::new(),
        }
    }

    /// Hashes each command's own text (see [`FileOutcome::texts`]): cut from `text` (the file's)
    /// or, for a command defined in another file, from that file read through `fs`.
    fn hash_texts(&mut self, text: &str, fs: &dyn Fs) {
        use std::hash::{Hash, Hasher};
        let excerpts = crate::excerpt::Excerpts::new(text);
        let mut others: HashMap<PathBuf, Option<String>> = HashMap::new();
        let mut texts = Vec::with_capacity(self.rows.len());
        for (_, commands) in &self.rows {
            let mut row = Vec::with_capacity(commands.len());
            for c in commands {
                let def = c.definition_path();
                let mut h = std::collections::hash_map::DefaultHasher::new();
                if def.as_os_str() == self.path.as_os_str() {
                    excerpts.of(c).text.hash(&mut h);
                } else {
                    let content = others
                        .entry(def.to_path_buf())
                        .or_insert_with(|| fs.read(def));
                    if let Some(content) = content {
                        crate::excerpt::command_text(c, content).text.hash(&mut h);
                    }
                }
                row.push(h.finish());
            }
            texts.push(row);
        }
        self.texts = texts;
    }
}

/// First line of a small prefix of the file (for shebang routing), without reading it whole.
fn first_line(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut buf = [0u8; 256];
    let (mut file, _) = crate::fs::open_regular(path).ok()?;
    let n = file.read(&mut buf).ok()?;
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

/// The operation was cancelled through its [`CancelToken`]; nothing partial is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// What a walk found.
#[derive(Default)]
pub(crate) struct WalkOutput {
    pub files: Vec<FileOutcome>,
    /// Folders entered (only when asked for).
    pub dirs: Vec<PathBuf>,
    /// Symlink loops, unreadable folders.
    pub warnings: Vec<Warning>,
}

/// A walker thread's findings, added to the shared output when the thread's visitor is dropped.
struct Flush<'a> {
    local: WalkOutput,
    out: &'a Mutex<WalkOutput>,
}

impl Drop for Flush<'_> {
    fn drop(&mut self) {
        let mut o = self.out.lock().unwrap_or_else(|p| p.into_inner());
        o.files.append(&mut self.local.files);
        o.dirs.append(&mut self.local.dirs);
        o.warnings.append(&mut self.local.warnings);
    }
}

/// One configured walk of (part of) a workspace: the rules every pass shares, so a full pass
/// and the re-examination of one changed path can never disagree.
pub(crate) struct Walker<'a> {
    pub root: &'a Path,
    /// `root` with symlinks resolved: a file whose real path is not under it is never read.
    pub real_root: &'a Path,
    pub settings: &'a Settings,
    pub matcher: &'a Matcher,
    pub excluder: &'a Excluder,
    /// Classifies each command on the thread that parsed its file (a full pass); `None` leaves
    /// that to the caller (the incremental index classifies its whole list).
    pub classifier: Option<&'a Classifier<'a>>,
    pub hook: Option<&'a dyn FileHook>,
}

/// Sees each parsed file's text on the walker thread that read it, with the commands it gave
/// (ids final, classified), while the text is still in memory: whatever else needs the text
/// (the static security analysis) need not read every file a second time.
pub trait FileHook: Sync {
    /// `commands` are one source's commands from the file `path`, whose text is `text`. A
    /// command defined in another file (a make `include`'s target, a mise include's task:
    /// `CommandItem::definition_path`) is among them too, but `text` is not its text: `fs`
    /// reads that file under the rules the parser read it with (regular files inside the
    /// root, size limit). The hook may fill in what it owns on them.
    fn parsed(&self, path: &Path, text: &str, commands: &mut [CommandItem], fs: &dyn Fs);
}

impl Walker<'_> {
    /// A walk from `start`. With `only`, entries outside `only` are pruned (used to ask whether
    /// one path, walked from its folder, passes the ignore files and exclude patterns).
    fn builder(&self, start: &Path, only: Option<PathBuf>, threads: usize) -> ignore::WalkBuilder {
        let settings = self.settings;
        let mut builder = ignore::WalkBuilder::new(start);
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
        let root = self.root.to_path_buf();
        let dirs = self.excluder.clone();
        let smart_excludes = crate::classify::effective_excludes(settings).1;
        builder.filter_entry(move |e| {
            if e.depth() == 0 {
                return true;
            }
            if let Some(o) = &only
                && !e.path().starts_with(o)
            {
                return false;
            }
            if !e.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            // A VCS folder never holds commands and can be huge.
            if e.file_name() == ".git" {
                return false;
            }
            let rel = crate::fs::strip_root(e.path(), &root).unwrap_or(e.path());
            let smart_skip =
                smart_excludes && crate::classify::smart_default_excludes_dir(e.path());
            !dirs.excludes_dir(rel) && !smart_skip
        });
        builder
    }

    /// Walks the whole tree on `threads` threads, checking `cancel` between entries.
    pub fn walk_all(
        &self,
        threads: usize,
        collect_dirs: bool,
        cancel: &CancelToken,
        progress: &dyn Progress,
    ) -> Result<WalkOutput, Cancelled> {
        count_walk(self.root);
        let out: Mutex<WalkOutput> = Mutex::new(WalkOutput::default());
        let found = AtomicU64::new(0);
        self.builder(self.root, None, threads)
            .build_parallel()
            .run(|| {
                let found = &found;
                // Each thread collects on its own and hands everything over once, when the
                // walker drops its visitor: no lock per file.
                let mut local = Flush {
                    local: WalkOutput::default(),
                    out: &out,
                };
                Box::new(move |entry| {
                    if cancel.is_cancelled() {
                        return ignore::WalkState::Quit;
                    }
                    let before = local.local.files.len();
                    self.visit(entry, collect_dirs, &mut local.local);
                    for f in &local.local.files[before..] {
                        let done = found.fetch_add(1, Ordering::Relaxed) + 1;
                        progress.report(ProgressEvent {
                            operation: "discover",
                            done,
                            total: None,
                            message: Some(f.path.to_string_lossy().into_owned()),
                        });
                    }
                    ignore::WalkState::Continue
                })
            });
        if cancel.is_cancelled() {
            return Err(Cancelled);
        }
        Ok(out.into_inner().unwrap_or_else(|p| p.into_inner()))
    }

    /// Walks `path` (a file or a folder, with everything in it) from its parent folder, so
    /// the parent's and every ancestor's ignore files apply exactly as in a full pass. The
    /// parent itself must be a folder a full pass enters.
    pub fn walk_path(&self, path: &Path) -> WalkOutput {
        let mut out = WalkOutput::default();
        let Some(parent) = path.parent() else {
            return out;
        };
        for entry in self.builder(parent, Some(path.to_path_buf()), 1).build() {
            if entry.as_ref().is_ok_and(|e| e.depth() == 0) {
                continue;
            }
            self.visit(entry, true, &mut out);
        }
        out
    }

    fn visit(
        &self,
        entry: Result<ignore::DirEntry, ignore::Error>,
        collect_dirs: bool,
        out: &mut WalkOutput,
    ) {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                out.warnings.push(walk_warning(&e, self.root));
                return;
            }
        };
        let Some(ft) = entry.file_type() else { return };
        if ft.is_dir() {
            if collect_dirs {
                out.dirs.push(entry.into_path());
            }
            return;
        }
        if let Some(f) = self.examine(entry.path(), ft) {
            out.files.push(f);
        }
    }

    /// The outcome for one file the walk (or a watcher) met: `None` when no source takes it.
    pub fn examine(&self, path: &Path, ft: std::fs::FileType) -> Option<FileOutcome> {
        let root = self.root;
        let rel = crate::fs::strip_root(path, root).unwrap_or(path);
        if ft.is_dir() {
            return None;
        }
        if ft.is_symlink() {
            // Symlinked folders are not followed (no loops); dangling links are skipped.
            if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
                return None;
            }
            // A link leading outside the workspace is never read, not even its first line.
            if !crate::fs::real_path_inside(self.real_root, path) {
                let routed = !self.matcher.rows_for(rel).is_empty();
                return (routed && !self.excluder.excludes_file(rel))
                    .then(|| FileOutcome::unreadable(path, ReadError::OutsideRoot));
            }
        }
        let rows = self.matcher.route(
            rel,
            || crate::fs::is_executable_path(path),
            || first_line(path),
        );
        if rows.is_empty() || self.excluder.excludes_file(rel) {
            return None;
        }
        READ_BUF.with(|buf| {
            let mut buf = buf.borrow_mut();
            self.parse_routed(path, ft.is_file(), &rows, &mut buf)
        })
    }

    /// Reads and parses a routed file through `buf`: `None` when every source's prefilter says
    /// it holds nothing (a library `.py` module), so it is neither decoded nor remembered.
    fn parse_routed(
        &self,
        path: &Path,
        known_regular: bool,
        rows: &[usize],
        buf: &mut Vec<u8>,
    ) -> Option<FileOutcome> {
        let opened = match crate::fs::read_into(path, known_regular, buf) {
            Ok(x) => x,
            Err(e) => return Some(FileOutcome::unreadable(path, e)),
        };
        let text = match decode_routed(buf, rows) {
            Ok(Some(text)) => text,
            Ok(None) => return None,
            Err(e) => return Some(FileOutcome::unreadable(path, e)),
        };
        let executable = match opened.check() {
            Ok(x) => x,
            Err(e) => return Some(FileOutcome::unreadable(path, e)),
        };
        // A one-off pass (the one that classifies) has no use for what parsers looked at.
        let fs = if self.classifier.is_some() {
            RecordingFs::guard(&RealFs, self.real_root)
        } else {
            RecordingFs::new(&RealFs, Some(self.real_root))
        };
        let parsed = parse_file(self.root, path, &text, executable, &fs, rows);
        let mut outcome = FileOutcome::new(self.root, path, parsed, Vec::new(), Default::default());
        for (_, commands) in &mut outcome.rows {
            for c in commands.iter_mut() {
                c.below_root = below_root(self.root, c.cwd_path());
            }
        }
        if self.classifier.is_some() || self.hook.is_some() {
            self.after_parse(path, &text, &mut outcome, &fs);
        } else {
            // The incremental index: it reports commands whose text changed.
            outcome.hash_texts(&text, &fs);
        }
        outcome.deps = fs.into_dependencies(path);
        Some(outcome)
    }

    fn after_parse(&self, path: &Path, text: &str, outcome: &mut FileOutcome, fs: &dyn Fs) {
        for (_, commands) in &mut outcome.rows {
            if let Some(classifier) = self.classifier {
                for c in commands.iter_mut() {
                    let own = c.file_path_is(path);
                    c.auxiliary = classifier
                        .reason_with_text(c, own.then_some(text))
                        .is_some();
                }
            }
            if let Some(hook) = self.hook {
                hook.parsed(path, text, commands, fs);
            }
        }
    }
}

/// How many folders `cwd` is below `root` (0 when it is the root or not under it).
pub fn below_root(root: &Path, cwd: &Path) -> u16 {
    cwd.strip_prefix(root).map_or(0, |rel| {
        u16::try_from(
            rel.components()
                .filter(|c| matches!(c, std::path::Component::Normal(_)))
                .count(),
        )
        .unwrap_or(u16::MAX)
    })
}

thread_local! {
    /// One read buffer per walker thread, reused for every file it reads.
    static READ_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The text of a routed file's bytes; `None` when every row's prefilter rejects them.
fn decode_routed<'b>(
    bytes: &'b [u8],
    rows: &[usize],
) -> Result<Option<std::borrow::Cow<'b, str>>, ReadError> {
    if crate::fs::is_binary(bytes) {
        return Err(ReadError::Binary);
    }
    let rejected = rows
        .iter()
        .all(|&r| SOURCES[r].prefilter.is_some_and(|may| !may(bytes)));
    if rejected {
        return Ok(None);
    }
    crate::fs::decode_borrowed(bytes).map(Some)
}

/// The real path of a root, for the outside-the-root check (the root itself when it cannot be
/// resolved).
pub(crate) fn real_root(root: &Path) -> PathBuf {
    std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
}

pub(crate) fn threads(opts: &Options) -> usize {
    if opts.threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    } else {
        opts.threads
    }
}

/// Discovers every command under `root` on disk.
/// Full walks started per root in this process: servers promise to answer from their live
/// index after the first one, and tests and benchmarks hold them to it.
static WALKS: Mutex<Vec<(PathBuf, usize)>> = Mutex::new(Vec::new());

fn count_walk(root: &Path) {
    let mut w = WALKS.lock().unwrap_or_else(|p| p.into_inner());
    match w.iter_mut().find(|(r, _)| r == root) {
        Some((_, n)) => *n += 1,
        None => w.push((root.to_path_buf(), 1)),
    }
}

/// How many full walks of `root` this process has started (a discovery, an index's first
/// pass, a full pass after a settings change). The re-examination of one changed path is not
/// a walk.
pub fn full_walks(root: &Path) -> usize {
    let w = WALKS.lock().unwrap_or_else(|p| p.into_inner());
    w.iter().find(|(r, _)| r == root).map_or(0, |(_, n)| *n)
}

pub fn discover(root: &Path, settings: &Settings, opts: &Options) -> Discovery {
    discover_with(root, settings, opts, &CancelToken::new(), &NoProgress).unwrap_or_default()
}

/// [`discover`] for big trees: reports each routed file it parsed to `progress`
/// (operation `"discover"`, no total: the walk does not know it in advance) and stops early
/// when `cancel` is cancelled.
pub fn discover_with(
    root: &Path,
    settings: &Settings,
    opts: &Options,
    cancel: &CancelToken,
    progress: &dyn Progress,
) -> Result<Discovery, Cancelled> {
    discover_hooked(root, settings, opts, cancel, progress, None)
}

/// [`discover_with`], showing each parsed file's text to `hook` on the thread that read it.
pub fn discover_hooked(
    root: &Path,
    settings: &Settings,
    opts: &Options,
    cancel: &CancelToken,
    progress: &dyn Progress,
    hook: Option<&dyn FileHook>,
) -> Result<Discovery, Cancelled> {
    let mut warnings = Vec::new();
    let settings_file = root.join(".vscode").join("settings.json");
    let (exclude_globs, _) = crate::classify::effective_excludes(settings);
    let excluder = Excluder::new(&exclude_globs, &settings_file, &mut warnings);
    let matcher = Matcher::new(&opts.types);
    let real_root = real_root(root);
    let classifier = Classifier::new(root, &RealFs);
    let walker = Walker {
        root,
        real_root: &real_root,
        settings,
        matcher: &matcher,
        excluder: &excluder,
        classifier: Some(&classifier),
        hook,
    };
    let out = walker.walk_all(threads(opts), false, cancel, progress)?;
    warnings.extend(out.warnings);
    let mut d = finish(out.files, warnings);
    crate::classify::drop_scripts_listed_as_tasks(&mut d.commands);
    Ok(d)
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
    let mut files = Vec::new();
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
            files.push(FileOutcome::unreadable(path, ReadError::Binary));
            continue;
        };
        let parsed = parse_file(root, path, &content, is_exe, fs, &rows);
        files.push(FileOutcome::new(
            root,
            path,
            parsed,
            Vec::new(),
            Dependencies::default(),
        ));
    }
    let mut d = finish(files, Vec::new());
    crate::classify::classify(root, fs, &mut d.commands);
    d
}

/// Orders results (type order, then path, then in-file order) into one listing.
fn finish(files: Vec<FileOutcome>, mut warnings: Vec<Warning>) -> Discovery {
    let mut paths: Vec<PathBuf> = Vec::with_capacity(files.len());
    let mut rows: Vec<(usize, usize, usize, Vec<CommandItem>)> = Vec::new();
    let mut total = 0;
    for f in files {
        warnings.extend(f.warnings);
        for (row, commands) in f.rows {
            total += commands.len();
            rows.push((type_order(SOURCES[row].kind), paths.len(), row, commands));
        }
        paths.push(f.path);
    }
    let order = crate::fs::PathOrder::new(&paths);
    rows.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| order.cmp(a.1, b.1))
            .then(a.2.cmp(&b.2))
    });
    // Sized once: growing by doubling would hold two copies of a big listing at its peak.
    let mut commands = Vec::with_capacity(total);
    for r in rows {
        commands.extend(r.3);
    }
    sort_warnings(&mut warnings);
    Discovery { commands, warnings }
}

pub(crate) fn sort_warnings(warnings: &mut [Warning]) {
    warnings.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
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
    fn below_root_counts_the_folders_under_the_root() {
        let root = Path::new("/w");
        assert_eq!(below_root(root, Path::new("/w")), 0);
        assert_eq!(below_root(root, Path::new("/w/test/fast/Aliases")), 3);
        assert_eq!(below_root(root, Path::new("/elsewhere/a")), 0);
    }

    #[test]
    fn every_command_knows_how_deep_its_folder_is() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-below-root-")
            .tempdir()
            .unwrap();
        let dir = scratch.path();
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("Makefile"), "x:\n\ttrue\n").unwrap();
        std::fs::write(dir.join("a/b/Makefile"), "y:\n\ttrue\n").unwrap();
        let (settings, _) = Settings::load(dir);
        let found = discover(dir, &settings, &Options::default());
        let depth = |label: &str| {
            found
                .commands
                .iter()
                .find(|c| c.label == label)
                .map(|c| c.below_root)
        };
        assert_eq!((depth("x"), depth("y")), (Some(0), Some(2)));
    }

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
        // AI definitions are not listed again as Markdown files; other Markdown files are.
        assert_eq!(kinds(".github/agents/a.agent.md"), vec!["agent"]);
        assert_eq!(kinds(".claude/commands/x/y.md"), vec!["prompt"]);
        assert_eq!(kinds("AGENTS.md"), vec!["instructions"]);
        assert_eq!(kinds(".claude/skills/s/SKILL.md"), vec!["skill"]);
        assert_eq!(kinds("docs/AGENTS.md"), vec!["markdown"]);
        assert_eq!(kinds("README.md"), vec!["markdown"]);
        // An extensionless executable goes by its `#!` line.
        let by_shebang = |l: &str| {
            m.rows_for_shebang(l)
                .into_iter()
                .map(|r| SOURCES[r].kind)
                .collect::<Vec<_>>()
        };
        assert_eq!(by_shebang("#!/usr/bin/env bash"), vec!["shell"]);
        assert_eq!(by_shebang("#!/usr/bin/env python3"), vec!["python"]);
        assert_eq!(by_shebang("#!/usr/bin/python3.12"), vec!["python"]);
        assert_eq!(by_shebang("#!/usr/bin/env ruby"), vec!["ruby"]);
        assert!(by_shebang("#!/usr/bin/env node").is_empty());
        assert_eq!(kinds("go.mod"), vec!["go"]);
        assert_eq!(kinds("script/post.rb"), vec!["ruby"]);
    }

    /// The name prefilter only ever answers "no" for paths the glob set rejects too: every
    /// glob, filled in several ways, still routes with it in front.
    #[test]
    fn the_name_prefilter_never_hides_a_match() {
        let m = Matcher::new(&[]);
        let fills = [("a", "x"), ("a/b/c", "yy"), ("x", ""), ("tasks/lib", "a.b")];
        let mut checked = 0;
        for source in SOURCES {
            for p in source.patterns {
                for (deep, word) in fills {
                    let path = p
                        .trim_start_matches('/')
                        .replace("**", deep)
                        .replace('*', word);
                    let rel = Path::new(&path);
                    if m.set.is_match(rel) {
                        assert!(m.prefilter.may_match(rel), "{p} as {path}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100, "only {checked} filled-in globs matched");
        assert!(
            !m.prefilter.always,
            "every source glob is understood by the prefilter"
        );
        assert!(!m.prefilter.may_match(Path::new("src/lib/module.py.orig")));
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
