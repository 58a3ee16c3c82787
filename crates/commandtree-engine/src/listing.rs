//! The visible tree: which of the loaded commands a listing shows, how many it hides, and the
//! order it shows them in. `ct list`, the editor server's `discoverTasks` and `tree`, and the
//! MCP server's `list_commands` all ask this one function, so one workspace gives one count
//! everywhere. The terminal UI applies the same rule ([`shown`]) row by row, because it
//! re-filters on every key typed.

use commandtree_core::classify::listed_by_default;
use commandtree_core::tree::{self, Category};
use commandtree_core::{CommandItem, SortOrder, Warning};
use commandtree_store::Store;

use crate::Engine;

/// What a listing asks for. Every filter narrows; an empty one does not filter.
#[derive(Debug, Default, Clone)]
pub struct Query {
    /// Only commands carrying every one of these tags.
    pub tags: Vec<String>,
    /// Only commands in one of these groups (`ct list --group`).
    pub groups: Vec<String>,
    /// Only commands whose label, id, command line, description or summary contain this text
    /// (case-insensitive).
    pub text: Option<String>,
    /// Also the commands hidden by default (auxiliary files, hidden by their tool, documents).
    /// The workspace's `[discovery] show = "all"` turns this on for every listing.
    pub all: bool,
    /// Also documents (Markdown files); `[discovery] docs = true` turns this on.
    pub docs: bool,
    pub order: Option<SortOrder>,
}

/// A listing's answer.
pub struct Listing {
    /// The commands shown, in load order; `tree` indexes into it.
    pub commands: Vec<CommandItem>,
    pub tree: Vec<Category>,
    /// Commands that passed every filter but are hidden by default (0 when `all`), documents
    /// not counted.
    pub hidden: usize,
    /// Documents that passed every filter but are not listed (see [`Query::docs`]).
    pub hidden_docs: usize,
    /// A warning per tag of the query that no command carries.
    pub unknown_tags: Vec<Warning>,
}

impl Listing {
    /// The shown commands in tree order, as every front end presents a flat list.
    pub fn ordered(&self) -> Vec<&CommandItem> {
        tree::flatten(&self.tree)
            .into_iter()
            .map(|i| &self.commands[i])
            .collect()
    }
}

/// What a listing shows besides the project's own commands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Show {
    /// Everything: auxiliary and tool-hidden commands, and documents.
    pub all: bool,
    /// Documents (Markdown files).
    pub docs: bool,
}

impl Show {
    /// What `engine`'s workspace shows, widened by what a request asks for.
    pub fn of(engine: &Engine, all: bool, docs: bool) -> Show {
        let s = &engine.workspace().settings;
        Show {
            all: all || s.show_all,
            docs: docs || s.show_docs,
        }
    }
}

/// Whether `c` is a document: read, not run (Markdown files).
pub fn is_document(c: &CommandItem) -> bool {
    c.kind == "markdown"
}

/// Whether a listing shows `c`.
pub fn shown(c: &CommandItem, show: Show) -> bool {
    show.all || ((show.docs || !is_document(c)) && listed_by_default(c))
}

/// Whether `c` mentions `q` (lowercase) in its label, id, command line, description or summary.
pub fn mentions(c: &CommandItem, q: &str) -> bool {
    [
        Some(&c.label),
        Some(&c.id),
        Some(&c.command),
        c.description.as_ref(),
        c.summary.as_ref(),
    ]
    .into_iter()
    .flatten()
    .any(|s| s.to_lowercase().contains(q))
}

/// Filters `commands` by the query (tags through `store`), then hides what is hidden by default,
/// then builds the tree.
pub fn listing(
    engine: &Engine,
    commands: Vec<CommandItem>,
    store: Option<&Store>,
    q: &Query,
) -> Listing {
    let (mut commands, unknown_tags) = crate::tags::filter(engine.root(), commands, &q.tags, store);
    commands.retain(|c| c.in_groups(&q.groups));
    if let Some(text) = q.text.as_deref().map(str::to_lowercase) {
        commands.retain(|c| mentions(c, &text));
    }
    let show = Show::of(engine, q.all, q.docs);
    let counts = Counts::of(&commands, show);
    commands.retain(|c| shown(c, show));
    let tree = engine.tree(&commands, q.order);
    Listing {
        commands,
        tree,
        hidden: counts.hidden,
        hidden_docs: counts.hidden_docs,
        unknown_tags,
    }
}

/// How many of some commands a listing shows and hides, split as every front end words it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub shown: usize,
    /// Hidden by default (auxiliary, hidden by their tool), documents not counted.
    pub hidden: usize,
    /// Documents not listed.
    pub hidden_docs: usize,
}

impl Counts {
    pub fn of(commands: &[CommandItem], show: Show) -> Counts {
        let mut n = Counts::default();
        for c in commands {
            if shown(c, show) {
                n.shown += 1;
            } else if is_document(c) && listed_by_default(c) {
                n.hidden_docs += 1;
            } else {
                n.hidden += 1;
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// An engine on a workspace of its own under the temporary folder, removed when the
    /// returned guard is dropped.
    fn engine_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Engine) {
        let scratch = tempfile::Builder::new()
            .prefix("ct-listing-")
            .tempdir()
            .unwrap();
        let dir = scratch.path();
        for (path, text) in files {
            let p = dir.join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let engine = Engine::open(Some(dir), dir).unwrap();
        (scratch, engine)
    }

    /// The listing of everything `engine` loads, for `q`.
    fn list(engine: &Engine, q: Query) -> Listing {
        let commands = engine
            .load(&crate::LoadOptions::default())
            .unwrap()
            .commands;
        listing(engine, commands, None, &q)
    }

    fn labels(l: &Listing) -> Vec<String> {
        l.ordered().iter().map(|c| c.id.clone()).collect()
    }

    #[test]
    fn fixtures_are_hidden_and_counted_unless_all() {
        let (_d, engine) = engine_with(&[
            ("Makefile", "build:\n\techo b\n"),
            ("testdata/Makefile", "build:\n\techo t\n"),
            ("examples/demo/Makefile", "run:\n\techo d\n"),
        ]);
        let l = list(&engine, Query::default());
        assert_eq!(l.commands.len(), 1, "{:?}", labels(&l));
        assert_eq!(l.hidden, 2);
        let all = list(
            &engine,
            Query {
                all: true,
                ..Query::default()
            },
        );
        assert_eq!(all.commands.len(), 3);
        assert_eq!(all.hidden, 0);
    }

    #[test]
    fn text_filter_counts_only_hidden_matches() {
        let (_d, engine) = engine_with(&[
            ("Makefile", "build:\n\techo b\nlint:\n\techo l\n"),
            ("testdata/Makefile", "build:\n\techo t\nother:\n\techo o\n"),
        ]);
        let l = list(
            &engine,
            Query {
                text: Some("BUILD".into()),
                ..Query::default()
            },
        );
        assert_eq!(labels(&l).len(), 1);
        assert_eq!(l.commands[0].label, "build");
        assert_eq!(l.hidden, 1, "only the hidden `build` matched");
    }

    #[test]
    fn documents_are_listed_only_when_asked_for() {
        let (_d, engine) = engine_with(&[
            ("Makefile", "build:\n\techo b\n"),
            ("README.md", "# Read me\n"),
            ("docs/guide.md", "# Guide\n"),
        ]);
        let l = list(&engine, Query::default());
        assert_eq!(labels(&l).len(), 1, "{:?}", labels(&l));
        assert_eq!((l.hidden, l.hidden_docs), (0, 2));
        let l = list(
            &engine,
            Query {
                docs: true,
                ..Query::default()
            },
        );
        assert_eq!((l.commands.len(), l.hidden_docs), (3, 0));
    }

    #[test]
    fn documents_are_summarized_and_searched_only_with_the_setting() {
        let files = [
            ("Makefile", "build:\n\techo b\n"),
            ("README.md", "# Read me\n"),
        ];
        let (_d, engine) = engine_with(&files);
        let loaded = engine.load(&crate::LoadOptions::default()).unwrap();
        let kinds = |l: &crate::Loaded| -> Vec<String> {
            l.workflow_commands().into_iter().map(|c| c.kind).collect()
        };
        assert_eq!(kinds(&loaded), ["make"]);
        let plan = crate::summaries::plan(&loaded, &[], false).unwrap();
        assert_eq!(
            plan.pending.len(),
            1,
            "only the make target is sent to the model"
        );
        // Named explicitly, a document is summarized.
        let plan = crate::summaries::plan(&loaded, &["README.md".into()], false).unwrap();
        assert_eq!(plan.pending.len(), 1);
        let (_d, engine) = engine_with(&[
            files[0],
            files[1],
            (".commandtree/config.toml", "[discovery]\ndocs = true\n"),
        ]);
        let loaded = engine.load(&crate::LoadOptions::default()).unwrap();
        assert_eq!(kinds(&loaded).len(), 2);
        let l = listing(&engine, loaded.commands, None, &Query::default());
        assert_eq!((l.commands.len(), l.hidden_docs), (2, 0));
    }

    #[test]
    fn an_unknown_tag_is_reported_and_filters_everything_out() {
        let (_d, engine) = engine_with(&[("Makefile", "build:\n\techo b\n")]);
        let l = list(
            &engine,
            Query {
                tags: vec!["nope".into()],
                ..Query::default()
            },
        );
        assert!(l.commands.is_empty());
        assert_eq!(l.unknown_tags.len(), 1);
    }
}
