//! The list of CommandTree's writers. Every file the tool writes goes through
//! `commandtree-safefs` (no write through a symbolic link, no wait on a FIFO, unpredictable
//! temporary names). This test parses the source of every crate (the modules the compiler
//! builds, test modules left out) and fails on any raw write API outside that crate, unless it
//! is in [`ALLOWED`] with the reason it is safe.

use proc_macro2::Span;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use syn::visit::{self, Visit};

/// (file under `crates/`, API as reported, why it is safe). An entry that no longer matches
/// anything fails the test too, so the list stays the list.
const ALLOWED: &[(&str, &str, &str)] = &[
    // SQLite opens the database and creates its journal and lock directory by name itself.
    // `open::vet` refuses the folder, the file and every side file SQLite creates when any is a
    // symbolic link or resolves outside the workspace, before each of these opens.
    (
        "commandtree-store/src/open.rs",
        "Connection::open_with_flags_and_vfs",
        "SQLite's own files, vetted by open::vet",
    ),
    (
        "commandtree-store/src/open.rs",
        "Connection::open_with_flags",
        "SQLite's own files, vetted by open::vet (one of them read-only, immutable)",
    ),
];

/// The raw write APIs, as the last two segments of a path (`*` for any second one).
const RAW: &[(&str, &str)] = &[
    ("fs", "write"),
    ("fs", "rename"),
    ("fs", "copy"),
    ("fs", "create_dir"),
    ("fs", "create_dir_all"),
    ("fs", "hard_link"),
    ("fs", "soft_link"),
    ("fs", "symlink"),
    ("fs", "set_permissions"),
    ("File", "create"),
    ("File", "create_new"),
    ("File", "options"),
    ("DirBuilder", "*"),
    ("Connection", "open"),
    ("Connection", "open_with_flags"),
    ("Connection", "open_with_flags_and_vfs"),
];

/// Builder calls that open a file for writing, whatever the builder is called (`OpenOptions`,
/// `File::options()`, one handed in): `.write(true)` and the like. An `OpenOptions` that only
/// reads is not a write.
const WRITE_FLAGS: &[&str] = &["write", "append", "create", "create_new", "truncate"];

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Hit {
    file: String,
    line: usize,
    api: String,
}

/// Whether `attrs` make an item exist only in tests (`#[test]`, `#[cfg(test)]`,
/// `#[cfg(all(test, …))]`).
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if a.path().is_ident("test") {
            return true;
        }
        if !a.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = a.meta.require_list() else {
            return false;
        };
        let t = list.tokens.to_string().replace(' ', "");
        t == "test" || (t.starts_with("all(") && t[4..].split([',', ')']).any(|w| w == "test"))
    })
}

struct Finder {
    file: String,
    hits: Vec<Hit>,
    /// Non-inline `mod x;` declarations that are compiled outside tests.
    mods: Vec<(Vec<String>, String)>,
    /// The inline modules around the current item.
    inline: Vec<String>,
}

impl Finder {
    fn hit(&mut self, span: Span, api: String) {
        self.hits.push(Hit {
            file: self.file.clone(),
            line: span.start().line,
            api,
        });
    }

    fn check_path(&mut self, segs: &[String], span: Span) {
        let n = segs.len();
        for (a, b) in RAW {
            let found = match (*b, n) {
                ("*", _) => segs.iter().any(|s| s == a),
                (_, 2..) => segs[n - 2] == *a && segs[n - 1] == *b,
                _ => false,
            };
            if found {
                let api = if *b == "*" {
                    (*a).to_string()
                } else {
                    format!("{a}::{b}")
                };
                self.hit(span, api);
                return;
            }
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, t: &syn::UseTree) {
        match t {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.check_path(&prefix.clone(), n.ident.span());
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.check_path(&prefix.clone(), r.ident.span());
                prefix.pop();
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
            syn::UseTree::Glob(_) => {}
        }
    }
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Impl(m) => &m.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Trait(t) => &t.attrs,
            syn::Item::Macro(m) => &m.attrs,
            _ => return visit::visit_item(self, i),
        };
        if !test_only(attrs) {
            visit::visit_item(self, i);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !test_only(&f.attrs) {
            visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let name = m.ident.to_string();
        match &m.content {
            None => self.mods.push((self.inline.clone(), name)),
            Some(_) => {
                self.inline.push(name);
                visit::visit_item_mod(self, m);
                self.inline.pop();
            }
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let span = p
            .segments
            .first()
            .map_or_else(Span::call_site, |s| s.ident.span());
        self.check_path(&segs, span);
        visit::visit_path(self, p);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let flag = m.method.to_string();
        let literal_true = m.args.len() == 1
            && matches!(
                &m.args[0],
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) if b.value
            );
        if literal_true && WRITE_FLAGS.contains(&flag.as_str()) {
            self.hit(m.method.span(), format!(".{flag}(true)"));
        }
        visit::visit_expr_method_call(self, m);
    }

    // Macro bodies (`println!`, …) are not parsed; none of ours writes a file.
}

/// Scans one source text: its hits and its `mod x;` declarations.
fn scan(file: &str, text: &str) -> (Vec<Hit>, Vec<(Vec<String>, String)>) {
    let ast = syn::parse_file(text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut f = Finder {
        file: file.to_string(),
        hits: Vec::new(),
        mods: Vec::new(),
        inline: Vec::new(),
    };
    f.visit_file(&ast);
    (f.hits, f.mods)
}

/// Every module file the compiler builds for `crate_dir` outside tests, from its roots.
fn module_files(crate_dir: &Path) -> Vec<PathBuf> {
    let src = crate_dir.join("src");
    let mut todo: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|r| src.join(r))
        .filter(|p| p.is_file())
        .collect();
    if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
        todo.extend(
            bins.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs")),
        );
    }
    let mut seen = Vec::new();
    while let Some(file) = todo.pop() {
        let text = std::fs::read_to_string(&file).unwrap();
        let (_, mods) = scan(&file.display().to_string(), &text);
        // `lib.rs`, `main.rs`, `mod.rs` and bins own their folder; `a.rs` owns `a/`.
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let own = file.parent().unwrap() == src.join("bin")
            || ["lib", "main", "mod"].contains(&name.as_str());
        let dir = if own {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        for (inline, m) in mods {
            let mut d = dir.clone();
            d.extend(inline);
            let flat = d.join(format!("{m}.rs"));
            let nested = d.join(&m).join("mod.rs");
            let next = if flat.is_file() { flat } else { nested };
            assert!(next.is_file(), "{}: mod {m} not found", file.display());
            todo.push(next);
        }
        seen.push(file);
    }
    seen
}

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_write_goes_through_the_safe_writer() {
    let crates = crates_dir();
    let mut hits = BTreeSet::new();
    let mut scanned = 0;
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        // The writer itself is where the raw calls belong.
        if !dir.join("Cargo.toml").is_file() || dir.ends_with("commandtree-safefs") {
            continue;
        }
        for file in module_files(&dir) {
            let rel = file
                .strip_prefix(&crates)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap();
            hits.extend(scan(&rel, &text).0);
            scanned += 1;
        }
    }
    assert!(
        scanned > 100,
        "only {scanned} files found under {}",
        crates.display()
    );
    let mut used = BTreeSet::new();
    let raw: Vec<String> = hits
        .iter()
        .filter(|h| {
            match ALLOWED
                .iter()
                .position(|(f, api, _)| *f == h.file && *api == h.api)
            {
                Some(i) => {
                    used.insert(i);
                    false
                }
                None => true,
            }
        })
        .map(|h| format!("{}:{}: {}", h.file, h.line, h.api))
        .collect();
    assert!(
        raw.is_empty(),
        "raw file writes outside commandtree-safefs (write through commandtree_safefs, or add the \
         call to ALLOWED with the reason it is safe):\n{}",
        raw.join("\n")
    );
    let stale: Vec<_> = (0..ALLOWED.len())
        .filter(|i| !used.contains(i))
        .map(|i| format!("{} {}", ALLOWED[i].0, ALLOWED[i].1))
        .collect();
    assert!(
        stale.is_empty(),
        "ALLOWED entries that match nothing: {stale:?}"
    );
}

#[test]
fn the_finder_sees_each_raw_write_and_skips_tests() {
    let text = r#"
use std::fs::{self, OpenOptions};
use std::fs::write as put;
fn a(p: &std::path::Path) {
    std::fs::write(p, "x").unwrap();
    fs::rename(p, p).unwrap();
    let _ = std::fs::File::create(p);
    let mut o = std::fs::File::options();
    o.append(true);
    std::fs::create_dir_all(p).unwrap();
}
impl S {
    fn b(&self) { let _ = std::fs::copy("a", "b"); }
    #[cfg(test)]
    fn c(&self) { std::fs::write("a", "b").unwrap(); }
}
fn reads(p: &std::path::Path) { let _ = std::fs::read(p); let _ = std::fs::File::open(p); }
#[test]
fn t() { std::fs::write("a", "b").unwrap(); }
#[cfg(all(test, unix))]
mod tests { fn x() { std::fs::write("a", "b").unwrap(); } }
#[cfg(test)]
mod more;
mod real;
mod inline { mod deeper; }
"#;
    let (hits, mods) = scan("x.rs", text);
    let apis: Vec<(usize, &str)> = hits.iter().map(|h| (h.line, h.api.as_str())).collect();
    assert_eq!(
        apis,
        [
            (3, "fs::write"),
            (5, "fs::write"),
            (6, "fs::rename"),
            (7, "File::create"),
            (8, "File::options"),
            (9, ".append(true)"),
            (10, "fs::create_dir_all"),
            (13, "fs::copy"),
        ]
    );
    assert_eq!(
        mods,
        [
            (Vec::new(), "real".to_string()),
            (vec!["inline".to_string()], "deeper".to_string())
        ]
    );
}
