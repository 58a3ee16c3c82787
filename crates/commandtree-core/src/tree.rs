//! The command tree: categories in type order with counts, folder grouping with upstream's
//! flattening rules (reference §4.2) and the sort comparator (§4.3).

use crate::collate;
use crate::model::CommandItem;
use crate::settings::SortOrder;
use crate::sources::{TYPES, type_def, type_order};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Folder {
        label: String,
        children: Vec<Node>,
    },
    /// Index into the command slice the tree was built from.
    Command(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Category {
    pub kind: &'static str,
    pub label: &'static str,
    pub count: usize,
    pub children: Vec<Node>,
}

impl Category {
    /// Upstream's category row text: `Shell Scripts (6)`.
    pub fn title(&self) -> String {
        format!("{} ({})", self.label, self.count)
    }
}

/// `simplifyPath`: the category string of a file-based command (reference §1.4).
pub fn simplify_path(file: &Path, root: &Path) -> String {
    let dir = file.parent().unwrap_or(root);
    simplify_dir_label(&rel_key(dir, root))
}

/// A folder's key: its path relative to the root with `/` separators, `""` for the root.
pub fn rel_key<'a>(dir: &'a Path, root: &Path) -> Cow<'a, str> {
    let rel = crate::fs::strip_root(dir, root).unwrap_or(dir);
    // Most keys are already what joining the components gives.
    #[cfg(unix)]
    if let Some(s) = rel.to_str()
        && crate::fs::plain_relative(s.as_bytes())
    {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .filter(|c| c != "/")
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// `""`/`.` → `Root`; up to 3 segments unchanged; deeper → `first/.../last`.
pub fn simplify_dir_label(key: &str) -> String {
    if key.is_empty() || key == "." {
        return "Root".to_string();
    }
    let parts: Vec<&str> = key.split('/').collect();
    if parts.len() > 3 {
        format!("{}/.../{}", parts[0], parts[parts.len() - 1])
    } else {
        key.to_string()
    }
}

/// The comparator of §4.3.
pub fn compare(a: &CommandItem, b: &CommandItem, order: SortOrder) -> Ordering {
    let private = a.private.cmp(&b.private);
    let label = || collate::compare(&a.label, &b.label);
    let tie = || a.id.cmp(&b.id);
    match order {
        SortOrder::Folder => collate::compare(&a.category, &b.category)
            .then(private)
            .then_with(label)
            .then_with(tie),
        SortOrder::Type => type_order(&a.kind)
            .cmp(&type_order(&b.kind))
            .then(private)
            .then_with(label)
            .then_with(tie),
        SortOrder::Name => private.then_with(label).then_with(tie),
    }
}

/// The comparator of §4.3 as a precomputed key, so large lists fold each label once instead of
/// once per comparison. Must order exactly like `compare`.
type SortKey<'a> = (usize, Vec<u32>, &'a str, bool, Vec<u32>, &'a str, &'a str);

fn sort_key(c: &CommandItem, order: SortOrder) -> SortKey<'_> {
    let (t, cat, cat_raw) = match order {
        SortOrder::Folder => (0, collate::key(&c.category), c.category.as_str()),
        SortOrder::Type => (type_order(&c.kind), Vec::new(), ""),
        SortOrder::Name => (0, Vec::new(), ""),
    };
    (
        t,
        cat,
        cat_raw,
        c.private,
        collate::key(&c.label),
        c.label.as_str(),
        c.id.as_str(),
    )
}

fn sort_indices(idx: &mut [usize], items: &[CommandItem], order: SortOrder) {
    idx.sort_by_cached_key(|&i| sort_key(&items[i], order));
}

/// Task runners: when one has a file at the root, its category comes first.
const ROOT_RUNNERS: &[&str] = &[
    "just", "taskfile", "mise", "make", "npm", "rake", "deno", "composer", "turbo", "nx",
];

/// A category of its own for some commands of a type, listed right after the type's own. Its
/// key names the category (an editor's stable tree id), never a command type: the commands keep
/// their type (`docker` for a Dockerfile, as in the id contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    /// `docker build` of a Dockerfile/Containerfile: an image, not a Compose stack.
    Dockerfile,
}

impl Section {
    fn key(self) -> &'static str {
        match self {
            Section::Dockerfile => "dockerfile",
        }
    }
    fn label(self) -> &'static str {
        match self {
            Section::Dockerfile => "Dockerfiles",
        }
    }
}

fn section(c: &CommandItem) -> Option<Section> {
    (c.kind == "docker" && crate::sources::docker::is_dockerfile(c.path()))
        .then_some(Section::Dockerfile)
}

/// Below this many commands a tree is built on the caller's thread alone.
const PARALLEL_FROM: usize = 4096;

/// Builds the tree of `items` (already filtered) under `root`. A big tree's categories are
/// built on every core.
pub fn build(items: &[CommandItem], root: &Path, order: SortOrder) -> Vec<Category> {
    // (type order, section) → the commands of that category.
    type Key = (usize, Option<Section>);
    let mut by_kind: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    for (i, c) in items.iter().enumerate() {
        by_kind
            .entry((type_order(&c.kind), section(c)))
            .or_default()
            .push(i);
    }
    let mut groups: Vec<(Key, Vec<usize>)> = by_kind.into_iter().collect();
    // The repository's own runner first: a task runner with a file at the root (its justfile,
    // Taskfile, mise tasks, Makefile, package.json scripts) is what a reader looks for first.
    // Among several, a dedicated task runner before package.json scripts (ROOT_RUNNERS order):
    // a repository with a justfile or mise tasks runs its work through them.
    groups.sort_by_key(|((pos, sec), idx)| {
        let kind = TYPES.get(*pos).map_or("other", |t| t.kind);
        let runner = ROOT_RUNNERS
            .iter()
            .position(|r| *r == kind)
            .filter(|_| idx.iter().any(|&i| items[i].path().parent() == Some(root)));
        (runner.is_none(), runner, *pos, *sec)
    });
    let one = |((pos, sec), idx): &(Key, Vec<usize>)| -> Category {
        let (kind, label, flat) = match (sec, TYPES.get(*pos)) {
            (Some(s), _) => (s.key(), s.label(), false),
            (None, Some(t)) => (t.kind, t.label, t.flat),
            (None, None) => ("other", "Other", false),
        };
        let count = idx.len();
        let children = if flat {
            let mut idx = idx.clone();
            sort_indices(&mut idx, items, order);
            idx.into_iter().map(Node::Command).collect()
        } else {
            folder_nodes(items, idx, root, order)
        };
        Category {
            kind,
            label,
            count,
            children,
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if items.len() < PARALLEL_FROM || threads < 2 || groups.len() < 2 {
        return groups.iter().map(one).collect();
    }
    // Biggest categories first, each taken by whichever thread is free.
    let mut by_size: Vec<usize> = (0..groups.len()).collect();
    by_size.sort_by_key(|&g| std::cmp::Reverse(groups[g].1.len()));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&g) = by_size.get(k) else {
                return done;
            };
            done.push((g, one(&groups[g])));
        }
    };
    let mut built = crate::parallel::on_threads(threads.min(groups.len()), work);
    built.sort_by_key(|(g, _)| *g);
    built.into_iter().map(|(_, c)| c).collect()
}

fn folder_nodes(items: &[CommandItem], idx: &[usize], root: &Path, order: SortOrder) -> Vec<Node> {
    // Group by folder key; BTreeMap gives the plain code-unit key order upstream uses.
    let mut groups: BTreeMap<Cow<'_, str>, Vec<usize>> = BTreeMap::new();
    for &i in idx {
        let dir = Path::new(&items[i].file_path)
            .parent()
            .unwrap_or(Path::new(""));
        groups.entry(rel_key(dir, root)).or_default().push(i);
    }
    type Groups<'a> = BTreeMap<Cow<'a, str>, Vec<usize>>;
    // The longest other key that is a folder prefix of `d`: walk up `d`'s own ancestors, so the
    // cost is the path depth, not the number of folders.
    let parent_of = |d: &str| -> Option<&str> {
        let mut cur = d;
        while let Some((up, _)) = cur.rsplit_once('/') {
            if let Some((k, _)) = groups.get_key_value(up) {
                return Some(k.as_ref());
            }
            cur = up;
        }
        None
    };
    let mut children_of: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut roots: Vec<&str> = Vec::new();
    for k in groups.keys() {
        match parent_of(k) {
            Some(p) => children_of.entry(p).or_default().push(k),
            None => roots.push(k),
        }
    }
    fn folder(
        key: &str,
        label: String,
        groups: &Groups<'_>,
        children_of: &BTreeMap<&str, Vec<&str>>,
        items: &[CommandItem],
        order: SortOrder,
    ) -> Node {
        let mut children: Vec<Node> = children_of
            .get(key)
            .map(|subs| {
                subs.iter()
                    .map(|s| {
                        let label = s
                            .strip_prefix(key)
                            .and_then(|r| r.strip_prefix('/'))
                            .unwrap_or(s)
                            .to_string();
                        folder(s, label, groups, children_of, items, order)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut cmds = groups.get(key).cloned().unwrap_or_default();
        sort_indices(&mut cmds, items, order);
        children.extend(cmds.into_iter().map(Node::Command));
        Node::Folder { label, children }
    }
    let mut nodes = Vec::new();
    let mut loose = Vec::new();
    for r in roots {
        let cmds = &groups[r];
        let has_subs = children_of.contains_key(r);
        if r.is_empty() {
            loose.extend(cmds.iter().copied());
        } else if has_subs || cmds.len() > 1 {
            nodes.push(folder(
                r,
                simplify_dir_label(r),
                &groups,
                &children_of,
                items,
                order,
            ));
        } else {
            loose.extend(cmds.iter().copied());
        }
    }
    sort_indices(&mut loose, items, order);
    nodes.extend(loose.into_iter().map(Node::Command));
    nodes
}

/// The category label of a command of `kind` defined in `file`.
pub fn category_for(kind: &str, file: &Path, root: &Path) -> String {
    match type_def(kind) {
        Some(t) if t.flat => t.label.to_string(),
        _ => simplify_path(file, root),
    }
}

/// Commands in tree order (depth first), the order `ct list --json` uses.
pub fn flatten(tree: &[Category]) -> Vec<usize> {
    fn walk(nodes: &[Node], out: &mut Vec<usize>) {
        for n in nodes {
            match n {
                Node::Command(i) => out.push(*i),
                Node::Folder { children, .. } => walk(children, out),
            }
        }
    }
    let mut out = Vec::new();
    for c in tree {
        walk(&c.children, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn item(kind: &str, path: &str, label: &str) -> CommandItem {
        let p = PathBuf::from(path);
        let mut c = CommandItem::new(kind, &p, label, label);
        c.category = category_for(kind, &p, Path::new("/w"));
        c.private = label.starts_with('_');
        c
    }

    fn shape(nodes: &[Node], items: &[CommandItem]) -> Vec<String> {
        nodes
            .iter()
            .map(|n| match n {
                Node::Command(i) => items[*i].label.clone(),
                Node::Folder { label, children } => {
                    format!("{label}[{}]", shape(children, items).join(","))
                }
            })
            .collect()
    }

    fn tree_of(items: &[CommandItem]) -> Vec<String> {
        let t = build(items, Path::new("/w"), SortOrder::Folder);
        assert_eq!(t.len(), 1);
        shape(&t[0].children, items)
    }

    #[test]
    fn the_root_runners_come_first_a_dedicated_runner_before_package_scripts() {
        let items = vec![
            item("shell", "/w/run.sh", "run.sh"),
            item("npm", "/w/package.json", "build"),
            item("mise", "/w/mise.toml", "test"),
            item("just", "/w/sub/justfile", "fmt"),
        ];
        let t = build(&items, Path::new("/w"), SortOrder::Folder);
        let kinds: Vec<&str> = t.iter().map(|c| c.kind).collect();
        // A justfile below the root is not the repository's runner: type order for it.
        assert_eq!(kinds, ["mise", "npm", "shell", "just"]);
    }

    #[test]
    fn dockerfiles_have_a_category_of_their_own_after_compose() {
        let items = vec![
            item("docker", "/w/svc/Dockerfile", "build Dockerfile"),
            item("docker", "/w/compose.yaml", "up"),
            item("docker", "/w/api/Containerfile", "build Containerfile"),
            item("docker", "/w/api/web.dockerfile", "build web.dockerfile"),
            item("shell", "/w/run.sh", "run.sh"),
        ];
        let t = build(&items, Path::new("/w"), SortOrder::Folder);
        let cats: Vec<(&str, &str, usize)> = t.iter().map(|c| (c.kind, c.label, c.count)).collect();
        assert_eq!(
            cats,
            [
                ("shell", "Shell Scripts", 1),
                ("docker", "Docker Compose", 1),
                ("dockerfile", "Dockerfiles", 3)
            ]
        );
        // The commands keep their type: only the category differs.
        assert!(items.iter().take(4).all(|c| c.kind == "docker"));
    }

    #[test]
    fn simplify_path_facts() {
        let r = Path::new("/w");
        assert_eq!(simplify_path(Path::new("/w/Makefile"), r), "Root");
        assert_eq!(
            simplify_path(Path::new("/w/scripts/build.sh"), r),
            "scripts"
        );
        assert_eq!(simplify_path(Path::new("/w/a/b/c/file.sh"), r), "a/b/c");
        assert_eq!(
            simplify_path(Path::new("/w/top/mid1/mid2/deep/file.sh"), r),
            "top/.../deep"
        );
        assert_eq!(
            simplify_path(Path::new("/w/a/b/c/d/e/f/file.sh"), r),
            "a/.../f"
        );
    }

    #[test]
    fn single_command_folders_flatten_at_the_root() {
        let items = vec![item("shell", "/w/Samples/a.sh", "a.sh")];
        assert_eq!(tree_of(&items), vec!["a.sh"]);
        let items = vec![
            item("shell", "/w/Samples/deps/a.sh", "a.sh"),
            item("shell", "/w/Samples/deps/b.sh", "b.sh"),
        ];
        assert_eq!(tree_of(&items), vec!["Samples/deps[a.sh,b.sh]"]);
    }

    #[test]
    fn nested_folders_and_root_commands() {
        let items = vec![
            item(
                "shell",
                "/w/Samples/ICD10/scripts/CreateDb/import.sh",
                "import.sh",
            ),
            item(
                "shell",
                "/w/Samples/ICD10/scripts/CreateDb/Dependencies/start.sh",
                "start.sh",
            ),
            item(
                "shell",
                "/w/Samples/ICD10/scripts/CreateDb/Dependencies/stop.sh",
                "stop.sh",
            ),
            item("shell", "/w/root.sh", "root.sh"),
        ];
        assert_eq!(
            tree_of(&items),
            vec![
                "Samples/.../CreateDb[Dependencies[start.sh,stop.sh],import.sh]",
                "root.sh"
            ]
        );
    }

    #[test]
    fn chains_and_unrelated_roots() {
        let items = vec![
            item("shell", "/w/src/a.sh", "a.sh"),
            item("shell", "/w/src/lib/b.sh", "b.sh"),
            item("shell", "/w/src/lib/utils/c.sh", "c.sh"),
        ];
        assert_eq!(tree_of(&items), vec!["src[lib[utils[c.sh],b.sh],a.sh]"]);
        let items = vec![
            item("shell", "/w/x/a.sh", "a.sh"),
            item("shell", "/w/y/b.sh", "b.sh"),
            item("shell", "/w/z/c.sh", "c.sh"),
        ];
        assert_eq!(tree_of(&items), vec!["a.sh", "b.sh", "c.sh"]);
    }

    #[test]
    fn folders_come_before_commands_and_private_last() {
        let items = vec![
            item("make", "/w/Makefile", "zeta"),
            item("make", "/w/Makefile", "_beta_private"),
            item("make", "/w/Makefile", "alpha_public"),
            item("make", "/w/sub/Makefile", "a"),
            item("make", "/w/sub/Makefile", "b"),
        ];
        assert_eq!(
            tree_of(&items),
            vec!["sub[a,b]", "alpha_public", "zeta", "_beta_private"]
        );
    }

    #[test]
    fn cached_key_orders_like_the_comparator() {
        let labels = [
            "b", "_a", "A", "a-b", "a_b", "Zeta", "é", "e", "up -d", "up", "10", "9",
        ];
        let mut items: Vec<CommandItem> = Vec::new();
        for (i, l) in labels.iter().enumerate() {
            items.push(item("make", &format!("/w/d{}/Makefile", i % 3), l));
        }
        for order in [SortOrder::Folder, SortOrder::Name, SortOrder::Type] {
            let mut a: Vec<usize> = (0..items.len()).collect();
            let mut b = a.clone();
            sort_indices(&mut a, &items, order);
            b.sort_by(|&x, &y| compare(&items[x], &items[y], order));
            assert_eq!(a, b);
        }
    }

    #[test]
    fn flat_categories_and_counts() {
        let items = vec![
            item("vscode", "/w/.vscode/tasks.json", "b"),
            item("shell", "/w/s.sh", "s.sh"),
            item("vscode", "/w/.vscode/tasks.json", "a"),
        ];
        let t = build(&items, Path::new("/w"), SortOrder::Name);
        assert_eq!(
            t.iter().map(|c| c.title()).collect::<Vec<_>>(),
            vec!["Shell Scripts (1)", "VS Code Tasks (2)"]
        );
        assert_eq!(shape(&t[1].children, &items), vec!["a", "b"]);
        assert_eq!(flatten(&t), vec![1, 2, 0]);
    }
}
