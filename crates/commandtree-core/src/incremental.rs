//! Incremental discovery: an [`Index`] keeps what every routed file gave (its commands, its
//! warnings, and the other paths its parsers looked at), so a change to a few paths re-parses
//! only those files and the files that read them, and reports exactly what changed as a
//! [`Delta`].
//!
//! Dependencies are recorded, not declared: each parser gets a [`RecordingFs`], so whatever it
//! reads, checks or lists (a Taskfile include, a just `import`, the lock file choosing the npm
//! runner, a Cargo workspace member) re-parses it when that path changes. A parser learning a
//! new kind of include needs no change here.
//!
//! Changes that alter what the walk sees (the exclude settings, `.commandtree/config.toml`,
//! the root's `.gitignore` or `.ignore`, `.git/info/exclude`) run a full pass, diffed against
//! the previous state so the delta is still exact. An ignore file in a folder below the root
//! governs only that folder, which is walked again instead (creating the database writes
//! `.commandtree/.gitignore`: that must not cost a walk of the whole tree).
//!
//! [`RecordingFs`]: crate::fs::RecordingFs

use crate::cancel::{CancelToken, NoProgress, Progress};
use crate::discover::{
    self, Cancelled, Discovery, Excluder, FileOutcome, Matcher, Options, Walker, sort_warnings,
};
use crate::model::{CommandItem, Warning};
use crate::settings::Settings;
use crate::sources::{SOURCES, type_order};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// More changed paths than this in one batch (a branch switch, a big checkout) cost more one
/// by one than a full pass.
const FULL_PASS_AFTER: usize = 2000;

/// What one batch of changes did to the listing. Ids are stable: an edited command keeps its
/// id and comes as `updated`; a renamed file's commands are `removed` under the old path's ids
/// and `added` under the new ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delta {
    /// New commands, in listing order (type order, path, in-file order).
    pub added: Vec<CommandItem>,
    /// Commands whose id existed before and whose content changed, in listing order.
    pub updated: Vec<CommandItem>,
    /// Ids of commands that no longer exist.
    pub removed: Vec<String>,
    /// Warnings the batch brought that were not there before.
    pub warnings: Vec<Warning>,
    /// The batch needed a full pass (settings or ignore files changed).
    pub full_pass: bool,
}

impl Delta {
    /// No command was added, changed or removed (there may still be new warnings).
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.updated.is_empty() && self.removed.is_empty()
    }
}

/// The discovered state of a workspace, kept per routed file.
pub struct Index {
    root: PathBuf,
    real_root: PathBuf,
    settings: Settings,
    settings_warnings: Vec<Warning>,
    opts: Options,
    matcher: Matcher,
    excluder: Excluder,
    exclude_warnings: Vec<Warning>,
    /// Folders the walk enters: a change under any other folder (ignored, excluded, `.git`)
    /// cannot change the listing unless a parser read it.
    dirs: BTreeSet<PathBuf>,
    files: BTreeMap<PathBuf, FileOutcome>,
    walk_warnings: Vec<Warning>,
    /// A path some parser read or checked -> the routed files whose parsers did.
    readers: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// A folder some parser listed -> the routed files whose parsers did.
    listers: BTreeMap<PathBuf, Vec<PathBuf>>,
    count: usize,
    /// The settings files that existed when this index was built.
    settings_present: Vec<PathBuf>,
}

/// The files whose change makes the walk itself different.
fn settings_files(root: &Path) -> [PathBuf; 3] {
    [
        root.join(".vscode").join("settings.json"),
        root.join(".commandtree").join("config.toml"),
        root.join(".git").join("info").join("exclude"),
    ]
}

impl Index {
    /// Discovers the whole tree and keeps the result per file.
    pub fn build(root: &Path, settings: Settings, opts: &Options) -> Index {
        Self::build_with(root, settings, opts, &CancelToken::new(), &NoProgress)
            .expect("a fresh token is never cancelled")
    }

    /// [`Index::build`] with progress (operation `"discover"`, one event per routed file) and
    /// cancellation.
    pub fn build_with(
        root: &Path,
        settings: Settings,
        opts: &Options,
        cancel: &CancelToken,
        progress: &dyn Progress,
    ) -> Result<Index, Cancelled> {
        let mut exclude_warnings = Vec::new();
        let excluder = Excluder::new(
            &crate::classify::effective_excludes(&settings).0,
            &root.join(".vscode").join("settings.json"),
            &mut exclude_warnings,
        );
        let mut index = Index {
            root: root.to_path_buf(),
            real_root: discover::real_root(root),
            settings,
            settings_warnings: Vec::new(),
            opts: opts.clone(),
            matcher: Matcher::new(&opts.types),
            excluder,
            exclude_warnings,
            dirs: BTreeSet::new(),
            files: BTreeMap::new(),
            walk_warnings: Vec::new(),
            readers: BTreeMap::new(),
            listers: BTreeMap::new(),
            count: 0,
            settings_present: settings_files(root)
                .into_iter()
                .filter(|f| f.exists())
                .collect(),
        };
        let out = index
            .walker()
            .walk_all(discover::threads(opts), true, cancel, progress)?;
        index.dirs = out.dirs.into_iter().collect();
        index.walk_warnings = out.warnings;
        for f in out.files {
            index.insert(f);
        }
        Ok(index)
    }

    /// Records the warnings loading the settings gave, so a later reload reports only new ones.
    pub fn set_settings_warnings(&mut self, warnings: Vec<Warning>) {
        self.settings_warnings = warnings;
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The settings of the last full pass (reloaded when a settings file changes).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Warnings of the last settings load.
    pub fn settings_warnings(&self) -> &[Warning] {
        &self.settings_warnings
    }

    /// How many commands are listed.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// How many routed files are kept.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Every command, in listing order (type order, path, in-file order): the same list a
    /// full discovery gives.
    pub fn commands(&self) -> Vec<CommandItem> {
        let mut v: Vec<CommandItem> = ordered(self.files.values()).into_iter().cloned().collect();
        crate::classify::classify(&self.root, &crate::fs::RealFs, &mut v);
        v
    }

    /// Every command in listing order, borrowed.
    pub fn iter(&self) -> impl Iterator<Item = &CommandItem> {
        ordered(self.files.values()).into_iter()
    }

    /// Discovery warnings (not the settings' own), sorted by file and line.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut w: Vec<Warning> = self
            .exclude_warnings
            .iter()
            .chain(&self.walk_warnings)
            .chain(self.files.values().flat_map(|f| &f.warnings))
            .cloned()
            .collect();
        sort_warnings(&mut w);
        w
    }

    /// The whole state as one discovery (what `discover` would return now).
    pub fn discovery(&self) -> Discovery {
        Discovery {
            commands: self.commands(),
            warnings: self.warnings(),
        }
    }

    /// Whether a change to `path` makes the walk itself different (settings, ignore files).
    pub fn needs_full_pass(&self, path: &Path) -> bool {
        let root = &self.root;
        // The path itself or a folder holding it: a folder created with the file in it comes
        // as one event for the folder.
        // A folder holding one counts only when the file is there now or was at the last
        // full pass: creating `.commandtree/` for the database is no settings change.
        if settings_files(root).iter().any(|f| {
            f.as_path() == path
                || (f.starts_with(path) && (f.exists() || self.settings_present.contains(f)))
        }) {
            return true;
        }
        // An ignore file inside a folder nobody walks changes nothing; one below the root
        // changes only its own folder (see `ignore_file_folder`).
        path.parent() == Some(root.as_path()) && is_ignore_file(path)
    }

    /// The folder a changed ignore file below the root governs, when that folder is walked:
    /// its patterns apply to nothing outside it, so that folder is walked again, not the tree.
    fn ignore_file_folder(&self, path: &Path) -> Option<PathBuf> {
        let dir = path.parent()?;
        (is_ignore_file(path) && dir != self.root && self.dirs.contains(dir))
            .then(|| dir.to_path_buf())
    }

    /// Re-discovers after `paths` changed (created, modified, deleted, renamed: for a rename,
    /// pass both the old and the new path). Paths may be files or folders, relative to the root
    /// or absolute; paths outside the root are ignored.
    pub fn apply_changes<P: AsRef<Path>>(&mut self, paths: &[P]) -> Delta {
        let mut paths: Vec<PathBuf> = paths
            .iter()
            .map(|p| {
                let p = p.as_ref();
                if p.is_absolute() {
                    p.to_path_buf()
                } else {
                    self.root.join(p)
                }
            })
            .filter(|p| p.starts_with(&self.root))
            .map(|p| self.ignore_file_folder(&p).unwrap_or(p))
            .collect();
        paths.sort();
        paths.dedup();
        // Churn in folders the walk skips (`.git`, `node_modules`) that no parser read.
        paths.retain(|p| {
            p.parent().is_some_and(|d| self.dirs.contains(d))
                || self.needs_full_pass(p)
                || !self.readers_of(p).is_empty()
        });
        if paths.is_empty() {
            return Delta::default();
        }
        if paths.len() > FULL_PASS_AFTER || paths.iter().any(|p| self.needs_full_pass(p)) {
            return self.full_pass();
        }

        let mut old: BTreeMap<PathBuf, FileOutcome> = BTreeMap::new();
        let mut new: BTreeMap<PathBuf, FileOutcome> = BTreeMap::new();
        let mut old_walk_warnings = Vec::new();
        let mut reparse: BTreeSet<PathBuf> = BTreeSet::new();
        let walk_warnings_before = self.walk_warnings.len();

        for p in &paths {
            reparse.extend(self.readers_of(p));
            let Some(parent) = p.parent() else { continue };
            if !self.dirs.contains(parent) {
                continue;
            }
            let meta = std::fs::symlink_metadata(p);
            match meta {
                Err(_) => {
                    self.take_under(p, &mut old, &mut new);
                    self.forget_dirs_under(p, true, &mut old_walk_warnings);
                }
                Ok(m) if m.is_dir() => {
                    // A folder that appeared (created, moved in) or changed as a whole: walk
                    // it again, from its parent so every ignore file applies.
                    self.take_under(p, &mut old, &mut new);
                    self.forget_dirs_under(p, true, &mut old_walk_warnings);
                    let out = self.walker().walk_path(p);
                    self.dirs.extend(out.dirs);
                    self.walk_warnings.extend(out.warnings);
                    for f in out.files {
                        new.insert(f.path.clone(), f);
                    }
                }
                Ok(m) => {
                    if let Some(f) = self.files.remove(p) {
                        self.forget(&f);
                        old.entry(p.clone()).or_insert(f);
                        // Known already, so it passed the ignore files and excludes.
                        new.remove(p);
                        if let Some(f) = self.walker().examine(p, m.file_type()) {
                            new.insert(p.clone(), f);
                        }
                    } else if self.may_route(p, &m) {
                        new.remove(p);
                        for f in self.walker().walk_path(p).files {
                            new.insert(f.path.clone(), f);
                        }
                    }
                }
            }
        }
        for p in reparse {
            if new.contains_key(&p) || (old.contains_key(&p) && !self.files.contains_key(&p)) {
                continue;
            }
            let Some(f) = self.files.remove(&p) else {
                continue;
            };
            self.forget(&f);
            old.insert(p.clone(), f);
            if let Ok(m) = std::fs::symlink_metadata(&p)
                && let Some(f) = self.walker().examine(&p, m.file_type())
            {
                new.insert(p, f);
            }
        }

        let mut old_warnings: Vec<&Warning> = old.values().flat_map(|f| &f.warnings).collect();
        old_warnings.extend(&old_walk_warnings);
        let mut delta = diff(old.values(), new.values(), &old_warnings);
        let known: HashSet<WarningKey> = old_warnings.iter().map(|w| key(w)).collect();
        for w in &self.walk_warnings[walk_warnings_before..] {
            if !known.contains(&key(w)) {
                delta.warnings.push(w.clone());
            }
        }
        sort_warnings(&mut delta.warnings);
        for f in new.into_values() {
            self.insert(f);
        }
        self.classify(&mut delta);
        delta
    }

    /// Own or auxiliary, as a full discovery classifies them.
    fn classify(&self, delta: &mut Delta) {
        crate::classify::classify(&self.root, &crate::fs::RealFs, &mut delta.added);
        crate::classify::classify(&self.root, &crate::fs::RealFs, &mut delta.updated);
    }

    /// Reloads the settings, walks everything again and diffs against the previous state.
    fn full_pass(&mut self) -> Delta {
        let (settings, settings_warnings) = self.settings.reload(&self.root);
        let mut next = Index::build(&self.root, settings, &self.opts);
        next.settings_warnings = settings_warnings;
        let before: Vec<&Warning> = self
            .settings_warnings
            .iter()
            .chain(&self.exclude_warnings)
            .chain(&self.walk_warnings)
            .chain(self.files.values().flat_map(|f| &f.warnings))
            .collect();
        let mut delta = diff(self.files.values(), next.files.values(), &before);
        let known: HashSet<WarningKey> = before.iter().map(|w| key(w)).collect();
        for w in next
            .settings_warnings
            .iter()
            .chain(&next.exclude_warnings)
            .chain(&next.walk_warnings)
        {
            if !known.contains(&key(w)) {
                delta.warnings.push(w.clone());
            }
        }
        sort_warnings(&mut delta.warnings);
        delta.full_pass = true;
        *self = next;
        self.classify(&mut delta);
        delta
    }

    fn walker(&self) -> Walker<'_> {
        Walker {
            root: &self.root,
            real_root: &self.real_root,
            settings: &self.settings,
            matcher: &self.matcher,
            excluder: &self.excluder,
            classifier: None,
            hook: None,
        }
    }

    /// Whether a file not in the index could be taken by a source: by its path, or (an
    /// extensionless executable) perhaps by its shebang. Saves walking the folder for the
    /// many files no source takes.
    fn may_route(&self, path: &Path, meta: &std::fs::Metadata) -> bool {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        if !self.matcher.rows_for(rel).is_empty() {
            return true;
        }
        let extensionless = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| !n.contains('.'));
        self.matcher.wants_shebangs() && extensionless && (meta.is_file() || meta.is_symlink())
    }

    /// The indexed files whose parsers read, checked or listed `path` or anything under it.
    fn readers_of(&self, path: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for (key, files) in self.readers.range(path.to_path_buf()..) {
            if !key.starts_with(path) {
                break;
            }
            out.extend(files.iter().cloned());
        }
        for (key, files) in self.listers.range(path.to_path_buf()..) {
            if !key.starts_with(path) {
                break;
            }
            out.extend(files.iter().cloned());
        }
        if let Some(files) = path.parent().and_then(|d| self.listers.get(d)) {
            out.extend(files.iter().cloned());
        }
        out
    }

    /// Moves the indexed files at or under `path` into `old`, dropping what `new` has there.
    fn take_under(
        &mut self,
        path: &Path,
        old: &mut BTreeMap<PathBuf, FileOutcome>,
        new: &mut BTreeMap<PathBuf, FileOutcome>,
    ) {
        let keys: Vec<PathBuf> = self
            .files
            .range(path.to_path_buf()..)
            .take_while(|(k, _)| k.starts_with(path))
            .map(|(k, _)| k.clone())
            .collect();
        for k in keys {
            if let Some(f) = self.files.remove(&k) {
                self.forget(&f);
                old.entry(k).or_insert(f);
            }
        }
        new.retain(|k, _| !k.starts_with(path));
    }

    fn forget_dirs_under(&mut self, path: &Path, itself: bool, walk_warnings: &mut Vec<Warning>) {
        let keys: Vec<PathBuf> = self
            .dirs
            .range(path.to_path_buf()..)
            .take_while(|k| k.starts_with(path))
            .filter(|k| itself || k.as_path() != path)
            .cloned()
            .collect();
        for k in keys {
            self.dirs.remove(&k);
        }
        let (gone, kept): (Vec<Warning>, Vec<Warning>) = std::mem::take(&mut self.walk_warnings)
            .into_iter()
            .partition(|w| w.file.starts_with(path));
        self.walk_warnings = kept;
        walk_warnings.extend(gone);
    }

    fn insert(&mut self, f: FileOutcome) {
        for d in &f.deps.paths {
            self.readers
                .entry(d.clone())
                .or_default()
                .push(f.path.clone());
        }
        for d in &f.deps.dirs {
            self.listers
                .entry(d.clone())
                .or_default()
                .push(f.path.clone());
        }
        self.count += f.rows.iter().map(|(_, c)| c.len()).sum::<usize>();
        self.files.insert(f.path.clone(), f);
    }

    /// Drops the reverse entries of a file taken out of `files`.
    fn forget(&mut self, f: &FileOutcome) {
        let unlink = |map: &mut BTreeMap<PathBuf, Vec<PathBuf>>, keys: &[PathBuf]| {
            for d in keys {
                if let Some(v) = map.get_mut(d) {
                    v.retain(|p| p != &f.path);
                    if v.is_empty() {
                        map.remove(d);
                    }
                }
            }
        };
        unlink(&mut self.readers, &f.deps.paths);
        unlink(&mut self.listers, &f.deps.dirs);
        self.count -= f.rows.iter().map(|(_, c)| c.len()).sum::<usize>();
    }
}

fn is_ignore_file(path: &Path) -> bool {
    matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some(".gitignore" | ".ignore")
    )
}

/// Commands of `files` in listing order.
fn ordered<'a>(files: impl Iterator<Item = &'a FileOutcome>) -> Vec<&'a CommandItem> {
    let mut rows: Vec<(usize, &Path, usize, &[CommandItem])> = Vec::new();
    for f in files {
        for (row, commands) in &f.rows {
            rows.push((type_order(SOURCES[*row].kind), &f.path, *row, commands));
        }
    }
    rows.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    rows.into_iter().flat_map(|r| r.3.iter()).collect()
}

/// Each command's text hash (`FileOutcome::texts`) by id.
fn text_hashes<'a>(files: impl Iterator<Item = &'a FileOutcome>) -> HashMap<&'a str, u64> {
    let mut out = HashMap::new();
    for f in files {
        for ((_, commands), hashes) in f.rows.iter().zip(&f.texts) {
            for (c, h) in commands.iter().zip(hashes) {
                out.insert(c.id.as_str(), *h);
            }
        }
    }
    out
}

/// What changed from the commands of `old` files to those of `new` files; new warnings of the
/// `new` files that are not among `old_warnings`.
fn diff<'a>(
    old: impl Iterator<Item = &'a FileOutcome>,
    new: impl Iterator<Item = &'a FileOutcome> + Clone,
    old_warnings: &[&Warning],
) -> Delta {
    let old_files: Vec<&FileOutcome> = old.collect();
    let before: HashMap<&str, &CommandItem> = ordered(old_files.iter().copied())
        .into_iter()
        .map(|c| (c.id.as_str(), c))
        .collect();
    let texts_before = text_hashes(old_files.iter().copied());
    let texts_now = text_hashes(new.clone());
    let mut delta = Delta::default();
    let mut still: HashSet<&str> = HashSet::new();
    for c in ordered(new.clone()) {
        match before.get(c.id.as_str()) {
            Some(b) => {
                still.insert(c.id.as_str());
                // Listed the same, but its text (a recipe's body, an included file) changed:
                // what it does changed, so its findings must be redone.
                let id = c.id.as_str();
                if *b != c || texts_before.get(id) != texts_now.get(id) {
                    delta.updated.push(c.clone());
                }
            }
            None => delta.added.push(c.clone()),
        }
    }
    delta.removed = ordered(old_files.iter().copied())
        .into_iter()
        .filter(|c| !still.contains(c.id.as_str()))
        .map(|c| c.id.clone())
        .collect();
    let known: HashSet<WarningKey> = old_warnings.iter().map(|w| key(w)).collect();
    delta.warnings = new
        .flat_map(|f| &f.warnings)
        .filter(|w| !known.contains(&key(w)))
        .cloned()
        .collect();
    sort_warnings(&mut delta.warnings);
    delta
}

type WarningKey<'a> = (&'a Path, Option<u32>, &'a str);

fn key(w: &Warning) -> WarningKey<'_> {
    (&w.file, w.line, &w.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A workspace by its real path, in a scratch folder removed when dropped.
    struct Tmp {
        root: PathBuf,
        _dir: tempfile::TempDir,
    }

    fn workspace(name: &str) -> Tmp {
        let dir = tempfile::Builder::new()
            .prefix(&format!("ct-incr-{name}-"))
            .tempdir()
            .unwrap();
        Tmp {
            root: fs::canonicalize(dir.path()).unwrap(),
            _dir: dir,
        }
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn build(root: &Path) -> Index {
        let (settings, _) = Settings::load(root);
        Index::build(root, settings, &Options::default())
    }

    /// The index after changes must list exactly what a fresh discovery lists.
    fn same_as_fresh(index: &Index) {
        let (settings, _) = Settings::load(index.root());
        let fresh = discover::discover(index.root(), &settings, &Options::default());
        assert_eq!(index.commands(), fresh.commands);
        assert_eq!(index.warnings(), fresh.warnings);
        assert_eq!(index.len(), fresh.commands.len());
    }

    fn labels(items: &[CommandItem]) -> Vec<&str> {
        items.iter().map(|c| c.label.as_str()).collect()
    }

    const PKG: &str = r#"{"scripts": {"build": "tsc", "test": "jest"}}"#;

    #[test]
    fn add_modify_delete() {
        let t = workspace("amd");
        let root = &t.root;
        write(root, "package.json", PKG);
        let mut index = build(root);
        assert_eq!(index.len(), 2);

        write(root, "Makefile", "all:\n\techo all\nclean:\n\trm -rf x\n");
        let d = index.apply_changes(&["Makefile"]);
        assert_eq!(labels(&d.added), ["all", "clean"]);
        assert!(d.updated.is_empty() && d.removed.is_empty() && !d.full_pass);
        same_as_fresh(&index);

        let build_id = index.commands()[0].id.clone();
        write(
            root,
            "package.json",
            r#"{"scripts": {"build": "tsc -p .", "lint": "eslint"}}"#,
        );
        let d = index.apply_changes(&[root.join("package.json")]);
        assert_eq!(labels(&d.added), ["lint"]);
        assert_eq!(labels(&d.updated), ["build"]);
        assert_eq!(d.updated[0].id, build_id, "an edited command keeps its id");
        assert_eq!(d.removed.len(), 1);
        assert!(d.removed[0].ends_with(":test"));
        same_as_fresh(&index);

        fs::remove_file(root.join("Makefile")).unwrap();
        let d = index.apply_changes(&["Makefile"]);
        assert_eq!(d.removed.len(), 2);
        assert!(d.added.is_empty() && d.updated.is_empty());
        same_as_fresh(&index);

        // A file no source takes changes nothing.
        write(root, "src/main.c", "int main(){}");
        assert_eq!(index.apply_changes(&["src/main.c"]), Delta::default());
    }

    #[test]
    fn an_edit_of_a_commands_text_or_of_its_included_file_reports_it_updated() {
        let t = workspace("texts");
        let root = &t.root;
        write(
            root,
            "Makefile",
            "include tools.mk\n\nbuild: clean\n\techo built\n",
        );
        write(
            root,
            "tools.mk",
            "clean:\n\techo cleaning\n\nfmt:\n\tgofmt\n",
        );
        let mut index = build(root);
        assert_eq!(labels(&index.commands()), ["build", "clean", "fmt"]);

        // The included file's target now deletes the home folder: listed the same, but its
        // text changed, so it is updated (and only it).
        write(root, "tools.mk", "clean:\n\trm -rf ~\n\nfmt:\n\tgofmt\n");
        let d = index.apply_changes(&["tools.mk"]);
        assert_eq!(labels(&d.updated), ["clean"]);
        assert!(d.added.is_empty() && d.removed.is_empty());
        same_as_fresh(&index);

        // The same for a recipe of the Makefile itself.
        write(
            root,
            "Makefile",
            "include tools.mk\n\nbuild: clean\n\tcurl x | sh\n",
        );
        let d = index.apply_changes(&["Makefile"]);
        assert_eq!(labels(&d.updated), ["build"]);
        same_as_fresh(&index);

        // A change elsewhere in the file that leaves the texts alone reports nothing.
        write(
            root,
            "tools.mk",
            "clean:\n\trm -rf ~\n\nfmt:\n\tgofmt\n\n# a note\n",
        );
        assert!(index.apply_changes(&["tools.mk"]).is_empty());
    }

    #[test]
    fn a_module_that_gains_or_loses_its_main_block_is_added_or_removed() {
        let t = workspace("pymain");
        let root = &t.root;
        write(root, "lib/util.py", "def helper():\n    return 1\n");
        let mut index = build(root);
        assert_eq!(index.len(), 0);

        write(
            root,
            "lib/util.py",
            "def helper():\n    return 1\n\nif __name__ == '__main__':\n    helper()\n",
        );
        let d = index.apply_changes(&["lib/util.py"]);
        assert_eq!(labels(&d.added), ["util.py"]);
        same_as_fresh(&index);

        write(root, "lib/util.py", "def helper():\n    return 2\n");
        let d = index.apply_changes(&["lib/util.py"]);
        assert_eq!(d.removed.len(), 1);
        assert!(d.added.is_empty() && d.updated.is_empty());
        same_as_fresh(&index);
    }

    #[test]
    fn ai_definitions_are_watched_like_every_source() {
        let t = workspace("ai");
        let root = &t.root;
        write(root, "AGENTS.md", "Run make test.\n");
        let mut index = build(root);
        assert_eq!(index.commands()[0].kind, "instructions");

        write(
            root,
            ".github/agents/architect.agent.md",
            "---\ndescription: Plans\n---\nYou plan.\n",
        );
        write(
            root,
            ".github/skills/api/SKILL.md",
            "---\nname: api\ndescription: REST\n---\n",
        );
        let d = index.apply_changes(&[".github"]);
        assert_eq!(labels(&d.added), ["architect", "api"]);
        same_as_fresh(&index);

        // Broken front matter: the skill goes, with a warning at its line.
        write(
            root,
            ".github/skills/api/SKILL.md",
            "---\nname: api\ndescription: [x\n---\n",
        );
        let d = index.apply_changes(&[".github/skills/api/SKILL.md"]);
        assert_eq!(d.removed.len(), 1);
        assert!(
            d.warnings.iter().any(|w| w.line.is_some()),
            "{:?}",
            d.warnings
        );
        same_as_fresh(&index);
    }

    #[test]
    fn folder_rename_is_removed_plus_added() {
        let t = workspace("rename");
        let root = &t.root;
        write(root, "a/package.json", PKG);
        write(root, "a/deep/run.sh", "#!/bin/sh\necho hi\n");
        write(root, "b/Makefile", "x:\n\ttrue\n");
        let mut index = build(root);
        let before_b: Vec<CommandItem> = index
            .commands()
            .into_iter()
            .filter(|c| c.file_path.contains("/b/"))
            .collect();
        fs::rename(root.join("a"), root.join("moved")).unwrap();
        let d = index.apply_changes(&["a", "moved"]);
        assert_eq!(d.removed.len(), 3);
        assert_eq!(d.added.len(), 3);
        assert!(d.added.iter().all(|c| c.file_path.contains("/moved/")));
        same_as_fresh(&index);
        // Another file's commands are untouched, ids included.
        let after_b: Vec<CommandItem> = index
            .commands()
            .into_iter()
            .filter(|c| c.file_path.contains("/b/"))
            .collect();
        assert_eq!(before_b, after_b);

        // A file renamed within a folder.
        fs::rename(root.join("b/Makefile"), root.join("b/GNUmakefile")).unwrap();
        let d = index.apply_changes(&["b/Makefile", "b/GNUmakefile"]);
        assert_eq!((d.added.len(), d.removed.len()), (1, 1));
        same_as_fresh(&index);
    }

    #[test]
    fn includes_and_lock_files_reparse_the_reader() {
        let t = workspace("include");
        let root = &t.root;
        write(root, "justfile", "import 'extra.just'\nbuild:\n    cc\n");
        write(root, "extra.just", "deploy:\n    ./deploy\n");
        write(root, "web/package.json", PKG);
        let mut index = build(root);
        assert!(index.iter().any(|c| c.label == "deploy"));
        let runs = |i: &Index| {
            i.iter()
                .filter(|c| c.kind == "npm")
                .map(|c| c.command.clone())
                .collect::<Vec<_>>()
        };
        assert!(runs(&index).iter().all(|c| c.starts_with("npm run")));

        write(
            root,
            "extra.just",
            "deploy:\n    ./deploy\nrelease:\n    ./release\n",
        );
        let d = index.apply_changes(&["extra.just"]);
        assert_eq!(labels(&d.added), ["release"]);
        same_as_fresh(&index);

        // A lock file beside package.json picks the runner: its creation updates the scripts.
        write(root, "web/yarn.lock", "");
        let d = index.apply_changes(&["web/yarn.lock"]);
        assert_eq!(d.updated.len(), 2);
        assert!(runs(&index).iter().all(|c| c.starts_with("yarn")));
        same_as_fresh(&index);

        fs::remove_file(root.join("extra.just")).unwrap();
        let d = index.apply_changes(&["extra.just"]);
        assert_eq!(d.removed.len(), 2);
        assert!(
            d.warnings.iter().any(|w| w.message.contains("not found")),
            "{d:?}"
        );
        same_as_fresh(&index);
    }

    #[test]
    fn a_nested_ignore_file_walks_only_its_folder_again() {
        let t = workspace("nested-ignore");
        let root = &t.root;
        write(root, "package.json", PKG);
        write(root, "tools/gen/run.sh", "echo\n");
        write(root, "tools/keep.sh", "echo\n");
        write(root, "other/gen/run.sh", "echo\n");
        let mut index = build(root);
        write(root, "tools/.gitignore", "gen/\n");
        let walks = crate::discover::full_walks(root);
        let d = index.apply_changes(&["tools/.gitignore"]);
        assert_eq!(crate::discover::full_walks(root), walks);
        assert!(!d.full_pass, "{d:?}");
        assert_eq!(d.removed.len(), 1, "{d:?}");
        assert!(d.removed[0].contains("tools/gen/run.sh"), "{d:?}");
        same_as_fresh(&index);
        fs::remove_file(root.join("tools/.gitignore")).unwrap();
        let d = index.apply_changes(&["tools/.gitignore"]);
        assert!(!d.full_pass && d.added.len() == 1, "{d:?}");
        same_as_fresh(&index);
        // The database's folder appearing (its `.gitignore` in it) is no settings change.
        write(root, ".commandtree/.gitignore", "commandtree.sqlite3\n");
        write(root, ".commandtree/commandtree.sqlite3", "");
        let walks = crate::discover::full_walks(root);
        let d = index.apply_changes(&[".commandtree"]);
        assert!(!d.full_pass && d.is_empty(), "{d:?}");
        assert_eq!(crate::discover::full_walks(root), walks);
        // Its config file appearing is.
        write(
            root,
            ".commandtree/config.toml",
            "[discovery]\nshow = \"all\"\n",
        );
        assert!(index.apply_changes(&[".commandtree/config.toml"]).full_pass);
    }

    #[test]
    fn settings_and_ignore_files_run_a_diffed_full_pass() {
        let t = workspace("settings");
        let root = &t.root;
        write(root, "package.json", PKG);
        write(root, "tools/Makefile", "x:\n\ttrue\n");
        write(root, "gen/run.sh", "echo\n");
        let mut index = build(root);
        assert_eq!(index.len(), 4);

        write(
            root,
            ".vscode/settings.json",
            r#"{"commandtree.excludePatterns": ["**/tools/**"]}"#,
        );
        let d = index.apply_changes(&[".vscode/settings.json"]);
        assert!(d.full_pass);
        assert_eq!(d.removed.len(), 1);
        assert!(d.added.is_empty() && d.updated.is_empty(), "{d:?}");
        same_as_fresh(&index);

        // The settings' folder removed and created again with the file: one folder event each.
        fs::remove_dir_all(root.join(".vscode")).unwrap();
        let d = index.apply_changes(&[".vscode"]);
        assert!(d.full_pass && d.added.len() == 1, "{d:?}");
        write(
            root,
            ".vscode/settings.json",
            r#"{"commandtree.excludePatterns": ["**/tools/**"]}"#,
        );
        let d = index.apply_changes(&[".vscode"]);
        assert_eq!(d.removed.len(), 1);
        same_as_fresh(&index);

        write(root, ".gitignore", "gen/\n");
        let d = index.apply_changes(&[".gitignore"]);
        assert!(d.full_pass);
        assert_eq!(d.removed.len(), 1);
        assert!(d.removed[0].contains("run.sh"));
        // A file created in the ignored folder stays out.
        write(root, "gen/other.sh", "echo\n");
        assert!(index.apply_changes(&["gen/other.sh"]).is_empty());

        fs::remove_file(root.join(".gitignore")).unwrap();
        let d = index.apply_changes(&[".gitignore"]);
        assert_eq!(d.added.len(), 2);
        same_as_fresh(&index);

        write(
            root,
            ".commandtree/config.toml",
            "[discovery]\nexclude = [\"**/gen/**\"]\n",
        );
        let d = index.apply_changes(&[".commandtree/config.toml"]);
        assert!(d.full_pass);
        assert_eq!(d.removed.len(), 2);
        same_as_fresh(&index);
    }

    #[test]
    fn duplicates_are_numbered_per_file() {
        let t = workspace("dups");
        let root = &t.root;
        let tasks = |labels: &[&str]| {
            let t: Vec<String> = labels
                .iter()
                .map(|l| format!(r#"{{"label": "{l}", "command": "echo {l}"}}"#))
                .collect();
            format!(r#"{{"version": "2.0.0", "tasks": [{}]}}"#, t.join(","))
        };
        write(root, ".vscode/tasks.json", &tasks(&["a", "a", "b"]));
        write(root, "Makefile", "a:\n\ttrue\n");
        let mut index = build(root);
        let ids: Vec<String> = index.iter().map(|c| c.id.clone()).collect();
        assert!(ids.iter().any(|i| i.ends_with(":a#2")), "{ids:?}");
        write(root, "Makefile", "a:\n\ttrue\nb:\n\ttrue\n");
        let d = index.apply_changes(&["Makefile"]);
        assert_eq!(labels(&d.added), ["b"]);
        assert!(d.updated.is_empty() && d.removed.is_empty(), "{d:?}");
        write(root, ".vscode/tasks.json", &tasks(&["a", "b", "a", "a"]));
        let d = index.apply_changes(&[".vscode/tasks.json"]);
        assert_eq!(d.added.len(), 1);
        assert!(d.added[0].id.ends_with(":a#3"));
        same_as_fresh(&index);
    }

    #[test]
    fn build_can_be_cancelled_and_reports_progress() {
        let t = workspace("cancel");
        let root = &t.root;
        write(root, "package.json", PKG);
        write(root, "Makefile", "x:\n\ttrue\n");
        let (settings, _) = Settings::load(root);
        let seen = std::sync::Mutex::new(Vec::new());
        let progress = |e: crate::ProgressEvent| seen.lock().unwrap().push(e);
        let index = Index::build_with(
            root,
            settings.clone(),
            &Options::default(),
            &CancelToken::new(),
            &progress,
        )
        .unwrap();
        assert_eq!(index.file_count(), 2);
        let events = seen.into_inner().unwrap();
        assert_eq!(events.len(), 2);
        assert!(events.iter().all(|e| e.operation == "discover"));
        assert_eq!(events.iter().map(|e| e.done).max(), Some(2));

        let cancel = CancelToken::new();
        cancel.cancel();
        let r = Index::build_with(root, settings, &Options::default(), &cancel, &NoProgress);
        assert!(matches!(r, Err(Cancelled)));
    }
}
