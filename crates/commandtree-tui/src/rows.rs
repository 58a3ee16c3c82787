//! The list the user moves through: Quick Launch, the command tree (categories → folders →
//! commands, as `ct list` groups them) and the run history, flattened into rows. Only what is
//! open is flattened, and a command's row is two numbers (no text is built for it), so a
//! rebuild of 15,000 rows costs well under a millisecond.

use commandtree_core::CommandItem;
use commandtree_core::tree::{Category, Node};
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Quick,
    History,
    Search,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RowKind {
    Section {
        section: Section,
        count: usize,
    },
    Category {
        label: &'static str,
        count: usize,
    },
    Folder {
        label: String,
        count: usize,
    },
    /// A command, by index into the loaded commands; `score` in search results.
    Command {
        idx: usize,
        score: Option<f32>,
        place: Place,
    },
    /// A run of the history, by index into it.
    Run(usize),
    /// A line saying there is nothing here.
    Note(String),
}

/// Where a command's row is: one command can be in Quick Launch and in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Quick,
    Tree,
    Search,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// For sections, categories, folders and notes: stable across rebuilds (folding is kept by
    /// it). Empty for commands and runs, which are known by their command id and position.
    pub key: String,
    pub depth: u16,
    pub kind: RowKind,
    /// Whether an expandable row is open (meaningless for leaves).
    pub open: bool,
}

impl Row {
    pub fn expandable(&self) -> bool {
        matches!(
            self.kind,
            RowKind::Section { .. } | RowKind::Category { .. } | RowKind::Folder { .. }
        )
    }
    pub fn command(&self) -> Option<usize> {
        match self.kind {
            RowKind::Command { idx, .. } => Some(idx),
            _ => None,
        }
    }
    pub fn place(&self) -> Option<Place> {
        match self.kind {
            RowKind::Command { place, .. } => Some(place),
            _ => None,
        }
    }
}

/// What a row is, independent of where it is: the selection is found again by it after the
/// rows are rebuilt (the commands may have changed, so indexes may not hold).
#[derive(Debug, Clone, PartialEq)]
pub enum RowId {
    Group(String),
    Command(Place, String),
    Run(usize),
}

impl RowId {
    pub fn of(row: &Row, commands: &[CommandItem]) -> RowId {
        match row.kind {
            RowKind::Command { idx, place, .. } => RowId::Command(place, commands[idx].id.clone()),
            RowKind::Run(n) => RowId::Run(n),
            _ => RowId::Group(row.key.clone()),
        }
    }
    pub fn is(&self, row: &Row, commands: &[CommandItem]) -> bool {
        match (self, &row.kind) {
            (RowId::Command(p, id), RowKind::Command { idx, place, .. }) => {
                p == place && commands[*idx].id == *id
            }
            (RowId::Run(n), RowKind::Run(m)) => n == m,
            (RowId::Group(k), _) => !row.key.is_empty() && *k == row.key,
            _ => false,
        }
    }
}

/// Which expandable rows are open: the default, and the keys toggled away from it.
#[derive(Debug, Clone, Default)]
pub struct Folding {
    pub default_closed: bool,
    pub toggled: HashSet<String>,
}

impl Folding {
    pub fn is_open(&self, key: &str) -> bool {
        self.default_closed == self.toggled.contains(key)
    }
    pub fn set(&mut self, key: &str, open: bool) {
        if self.is_open(key) != open && !self.toggled.remove(key) {
            self.toggled.insert(key.to_string());
        }
    }
    pub fn all(&mut self, open: bool) {
        self.default_closed = !open;
        self.toggled.clear();
    }
}

/// What the tree shows.
pub struct Inputs<'a> {
    pub commands: &'a [CommandItem],
    pub tree: &'a [Category],
    pub quick: &'a [usize],
    pub history_len: usize,
    pub folding: &'a Folding,
    /// Commands passing the filters (text, tag, auxiliary), by index; `None`: all of them.
    pub visible: Option<&'a [bool]>,
    /// A filter is being applied: everything holding a match is shown open.
    pub force_open: bool,
    /// Semantic search results replace the tree.
    pub search: Option<&'a [(usize, f32)]>,
}

pub fn build(i: &Inputs<'_>) -> Vec<Row> {
    let mut rows = Vec::new();
    if let Some(hits) = i.search {
        rows.push(Row {
            key: "sec:search".into(),
            depth: 0,
            kind: RowKind::Section {
                section: Section::Search,
                count: hits.len(),
            },
            open: true,
        });
        for &(idx, score) in hits {
            rows.push(Row {
                key: String::new(),
                depth: 1,
                kind: RowKind::Command {
                    idx,
                    score: Some(score),
                    place: Place::Search,
                },
                open: false,
            });
        }
        if hits.is_empty() {
            rows.push(note("s", "no command matches this meaning"));
        }
        return rows;
    }
    let shown = |idx: usize| {
        i.visible
            .is_none_or(|v| v.get(idx).copied().unwrap_or(false))
    };
    let open = |key: &str| i.force_open || i.folding.is_open(key);

    let quick: Vec<usize> = i.quick.iter().copied().filter(|&q| shown(q)).collect();
    let qkey = "sec:quick";
    let qopen = open(qkey);
    let quick_shown = !(i.force_open && quick.is_empty());
    if quick_shown {
        rows.push(Row {
            key: qkey.into(),
            depth: 0,
            kind: RowKind::Section {
                section: Section::Quick,
                count: quick.len(),
            },
            open: qopen,
        });
        if qopen {
            for idx in &quick {
                rows.push(Row {
                    key: String::new(),
                    depth: 1,
                    kind: RowKind::Command {
                        idx: *idx,
                        score: None,
                        place: Place::Quick,
                    },
                    open: false,
                });
            }
            if quick.is_empty() && !i.force_open {
                rows.push(note("q", "star a command with s to keep it here"));
            }
        }
    }

    let tree_start = rows.len();
    let mut counts: HashMap<*const Node, usize> = HashMap::new();
    for cat in i.tree {
        let n = count(&cat.children, &shown, &mut counts);
        if n == 0 {
            continue;
        }
        let key = format!("c:{}:{}", cat.kind, cat.label);
        let o = open(&key);
        rows.push(Row {
            key: key.clone(),
            depth: 0,
            kind: RowKind::Category {
                label: cat.label,
                count: n,
            },
            open: o,
        });
        if o {
            nodes(&cat.children, &key, 1, &shown, &open, &counts, &mut rows);
        }
    }
    if rows.len() == tree_start {
        rows.push(note(
            "t",
            if i.visible.is_some() {
                "no command matches"
            } else {
                "no commands found"
            },
        ));
    }

    if i.history_len > 0 && !i.force_open {
        let hkey = "sec:history";
        let hopen = i.folding.is_open(hkey);
        rows.push(Row {
            key: hkey.into(),
            depth: 0,
            kind: RowKind::Section {
                section: Section::History,
                count: i.history_len,
            },
            open: hopen,
        });
        if hopen {
            for n in 0..i.history_len {
                rows.push(Row {
                    key: String::new(),
                    depth: 1,
                    kind: RowKind::Run(n),
                    open: false,
                });
            }
        }
    }
    rows
}

fn note(key: &str, text: &str) -> Row {
    Row {
        key: format!("n:{key}"),
        depth: 1,
        kind: RowKind::Note(text.into()),
        open: false,
    }
}

fn count(
    nodes: &[Node],
    shown: &dyn Fn(usize) -> bool,
    counts: &mut HashMap<*const Node, usize>,
) -> usize {
    let mut n = 0;
    for node in nodes {
        match node {
            Node::Command(i) => n += usize::from(shown(*i)),
            Node::Folder { children, .. } => {
                let c = count(children, shown, counts);
                counts.insert(node as *const Node, c);
                n += c;
            }
        }
    }
    n
}

#[allow(clippy::too_many_arguments)]
fn nodes(
    list: &[Node],
    parent: &str,
    depth: u16,
    shown: &dyn Fn(usize) -> bool,
    open: &dyn Fn(&str) -> bool,
    counts: &HashMap<*const Node, usize>,
    rows: &mut Vec<Row>,
) {
    for node in list {
        match node {
            Node::Command(idx) => {
                if shown(*idx) {
                    rows.push(Row {
                        key: String::new(),
                        depth,
                        kind: RowKind::Command {
                            idx: *idx,
                            score: None,
                            place: Place::Tree,
                        },
                        open: false,
                    });
                }
            }
            Node::Folder { label, children } => {
                let n = counts.get(&(node as *const Node)).copied().unwrap_or(0);
                if n == 0 {
                    continue;
                }
                let key = format!("{parent}/{label}");
                let o = open(&key);
                rows.push(Row {
                    key: key.clone(),
                    depth,
                    kind: RowKind::Folder {
                        label: label.clone(),
                        count: n,
                    },
                    open: o,
                });
                if o {
                    nodes(children, &key, depth + 1, shown, open, counts, rows);
                }
            }
        }
    }
}
