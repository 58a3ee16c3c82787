//! The names a user can type for a command, and how a name resolves, one rule for every front
//! end: what shell completion (and any picker) offers is exactly what [`resolve`] accepts.
//!
//! A name is an id, a path form (`packages/vite:build`, `./scripts/deploy.sh`), `type:label`,
//! or a label (or a runner's alias of one). A label or `type:label` resolves as the runners do:
//! the nearest definition from where the user stands (the deepest folder on the way from the
//! root to the current directory that defines it), which at the root is the root's own; then a
//! command that is the only own one of that name. Auxiliary commands (test data, templates,
//! vendored code, examples) are named by path or id only, so a fixture's `build` never stands
//! in the way of the project's.

use crate::{Error, Result};
use commandtree_core::CommandItem;
use commandtree_core::fs::lexical;
use commandtree_core::sources::docker::is_default_compose;
use commandtree_core::sources::type_def;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Types whose commands a build tool offers every project of its kind (`cargo build`,
/// `dotnet test`, Maven phases, Compose's `up`/`build`) rather than ones the project wrote
/// and named.
pub(crate) const TOOL_BUILTINS: &[&str] =
    &["cargo", "go", "dotnet", "maven", "gradle", "ant", "docker"];

/// The builtin type whose verbs (`build`, `up`) act on containers rather than the project.
const CONTAINER_TOOL: &str = "docker";

/// At most this many candidates are shown for an ambiguous name.
pub const SHOWN_CANDIDATES: usize = 10;

/// Where a name is typed: the workspace root and the user's current directory.
#[derive(Debug, Clone, Copy)]
pub struct At<'a> {
    pub root: &'a Path,
    pub cwd: &'a Path,
}

impl<'a> At<'a> {
    pub fn root(root: &'a Path) -> At<'a> {
        At { root, cwd: root }
    }
}

pub(crate) fn folder(c: &CommandItem) -> &Path {
    c.path().parent().unwrap_or(Path::new(""))
}

/// A path a user typed: from the current directory when it is there, else from the root.
fn typed_path(at: At<'_>, text: &str) -> Vec<PathBuf> {
    let rel = Path::new(text);
    if rel.is_absolute() {
        return vec![lexical(rel)];
    }
    let mut v = vec![lexical(&at.cwd.join(rel))];
    let from_root = lexical(&at.root.join(rel));
    if from_root != v[0] {
        v.push(from_root);
    }
    v
}

/// Whether the text before a `:` is a path (`packages/vite`, `.`, `./x`, `../x`), not a type.
fn path_like(text: &str) -> bool {
    text == "." || text == ".." || text.contains('/') || text.contains('\\')
}

fn named(c: &CommandItem, label: &str) -> bool {
    answers_to(c, label, false)
}

/// Whether `name` is one of [`names_of`] `c`, ASCII case ignored when asked. The id's name is
/// read only when its length fits: every command is checked on every search, and on 100,000
/// commands reading each id's text is a cache miss apiece.
pub(crate) fn answers_to(c: &CommandItem, name: &str, ignore_case: bool) -> bool {
    let same = |n: &str| {
        if ignore_case {
            n.eq_ignore_ascii_case(name)
        } else {
            n == name
        }
    };
    let prefix = c.kind.len() + 1 + c.file_path.len() + 1;
    let id_name_fits =
        c.id.len().checked_sub(prefix) == Some(name.len()) || c.id.len() == name.len();
    own_names(c).any(same) || (id_name_fits && same(c.id_name()))
}

/// Every name a command answers to besides its id and path forms: its label, its runner's
/// aliases, a .NET project's verb ([`project_verb`]) and the name in its id (`run-app` for
/// `run --bin app`). Search's exact name is one of these too.
pub(crate) fn names_of(c: &CommandItem) -> impl Iterator<Item = &str> {
    own_names(c).chain(std::iter::once(c.id_name()))
}

/// [`names_of`] but the name in its id.
fn own_names(c: &CommandItem) -> impl Iterator<Item = &str> {
    std::iter::once(c.label.as_str())
        .chain(c.aliases.iter().map(String::as_str))
        .chain(project_verb(c))
}

/// The verb of a .NET project's or solution's command (`eShop: test` → `test`): in a folder
/// holding a project, `dotnet test` means that project, so `ct run test` does too (the
/// nearest-first rule picks the folder's own).
pub(crate) fn project_verb(c: &CommandItem) -> Option<&str> {
    project_and_verb(c).map(|(_, verb)| verb)
}

/// A .NET project's or solution's command as its project and verb (`eShop: test`).
pub(crate) fn project_and_verb(c: &CommandItem) -> Option<(&str, &str)> {
    if c.kind != "dotnet" {
        return None;
    }
    c.label.rsplit_once(": ")
}

/// What a name matched before the nearest-first rule picks one.
enum Matched<'a> {
    One(&'a CommandItem),
    Some(Vec<&'a CommandItem>),
    None,
}

fn by_path<'a>(commands: &'a [CommandItem], at: At<'_>, query: &str) -> Matched<'a> {
    // `dir:label` or `file:label`.
    if let Some((left, label)) = query.split_once(':')
        && path_like(left)
    {
        for p in typed_path(at, left) {
            let found: Vec<&CommandItem> = commands
                .iter()
                .filter(|c| named(c, label) && (folder(c) == p || c.path() == p))
                .collect();
            if !found.is_empty() {
                return Matched::Some(found);
            }
        }
        return Matched::None;
    }
    // A file: `./scripts/deploy.sh`, `scripts/deploy.sh`.
    if path_like(query) {
        for p in typed_path(at, query) {
            let found: Vec<&CommandItem> = commands.iter().filter(|c| c.path() == p).collect();
            if !found.is_empty() {
                return Matched::Some(found);
            }
        }
    }
    Matched::None
}

/// The nearest-first rule over the commands a label or `type:label` matched.
fn pick<'a>(at: At<'_>, found: Vec<&'a CommandItem>) -> Matched<'a> {
    let mut own: Vec<&CommandItem> = found.iter().copied().filter(|c| !c.auxiliary).collect();
    // What a tool hides itself (a private recipe, `npm init`'s failing placeholder) runs when
    // named alone, never in place of a listed command of the same name.
    if own.iter().any(|c| !c.hidden) {
        own.retain(|c| !c.hidden);
    }
    if own.is_empty() {
        return if found.is_empty() {
            Matched::None
        } else {
            Matched::Some(found)
        };
    }
    if own.len() == 1 {
        return Matched::One(own[0]);
    }
    // The deepest folder on the way from the root to the current directory that defines it.
    let nearest = own
        .iter()
        .filter(|c| at.cwd.starts_with(folder(c)))
        .map(|c| folder(c).components().count())
        .max();
    if let Some(depth) = nearest {
        let there: Vec<&CommandItem> = own
            .iter()
            .copied()
            .filter(|c| at.cwd.starts_with(folder(c)) && folder(c).components().count() == depth)
            .collect();
        if there.len() == 1 {
            return Matched::One(there[0]);
        }
        // Then by tier (see [`tier`]): a task the project wrote, its build tool's verb,
        // Compose's default project, another Compose file; the best tier when it holds one.
        if let Some(best) = there.iter().map(|c| tier(c)).min() {
            let top: Vec<&CommandItem> =
                there.iter().copied().filter(|c| tier(c) == best).collect();
            if top.len() == 1 {
                return Matched::One(top[0]);
            }
        }
        return Matched::Some(there);
    }
    Matched::Some(own)
}

fn matched<'a>(commands: &'a [CommandItem], at: At<'_>, query: &str) -> Matched<'a> {
    if let Some(c) = commands.iter().find(|c| c.id == query) {
        return Matched::One(c);
    }
    match by_path(commands, at, query) {
        Matched::Some(v) if v.len() == 1 => return Matched::One(v[0]),
        Matched::Some(v) => return Matched::Some(v),
        _ => {}
    }
    if let Some((kind, label)) = query.split_once(':')
        && type_def(kind).is_some()
    {
        let found: Vec<&CommandItem> = commands
            .iter()
            .filter(|c| c.kind == kind && named(c, label))
            .collect();
        if !found.is_empty() {
            return pick(at, found);
        }
    }
    pick(at, commands.iter().filter(|c| named(c, query)).collect())
}

/// The command `query` names for a user at `at`; an ambiguous name gives the best
/// [`SHOWN_CANDIDATES`] candidates, each with the name to type, and how many more there are.
pub fn resolve<'a>(
    commands: &'a [CommandItem],
    at: At<'_>,
    query: &str,
) -> Result<&'a CommandItem> {
    match matched(commands, at, query) {
        Matched::One(c) => Ok(c),
        Matched::Some(mut v) => {
            let only_auxiliary = v.iter().all(|c| c.auxiliary);
            v.sort_by_key(|c| rank(at, c));
            let more = v.len().saturating_sub(SHOWN_CANDIDATES);
            v.truncate(SHOWN_CANDIDATES);
            let typed = v.iter().map(|c| name_for(commands, at, c)).collect();
            Err(Error::Ambiguous {
                query: query.to_string(),
                candidates: v.into_iter().cloned().collect(),
                typed,
                more,
                only_auxiliary,
            })
        }
        Matched::None => {
            let near = suggestions(commands, at, query);
            let typed = near.iter().map(|c| name_for(commands, at, c)).collect();
            Err(Error::NotFound {
                query: query.to_string(),
                root: at.root.to_path_buf(),
                suggestions: near.into_iter().cloned().collect(),
                typed,
            })
        }
    }
}

/// How many near matches a name that matches nothing gets.
const SHOWN_SUGGESTIONS: usize = 5;

/// Commands whose name is near `query`: it or one of its words starts with the query's last
/// part (`args.s` finds `args.sh`; `fmt` finds `fmt-check` and `generate-fmtargs.py`; `lint`
/// does not find `copyKotlinTemplates`), or the query starts with its label (`buildx` finds
/// `build`). Own
/// commands first, nearer the current directory first.
fn suggestions<'a>(commands: &'a [CommandItem], at: At<'_>, query: &str) -> Vec<&'a CommandItem> {
    let q = query.to_lowercase();
    let q = q.rsplit(':').next().unwrap_or(&q);
    if q.is_empty() {
        return Vec::new();
    }
    let mut near: Vec<&CommandItem> = commands
        .iter()
        .filter(|c| {
            let label = c.label.to_lowercase();
            label.starts_with(q)
                || (label.len() >= 3 && q.starts_with(&label))
                || words(&c.label)
                    .iter()
                    .any(|w| w.to_lowercase().starts_with(q))
                || c.aliases.iter().any(|a| a.to_lowercase().starts_with(q))
        })
        .collect();
    near.sort_by_key(|c| rank(at, c));
    near.truncate(SHOWN_SUGGESTIONS);
    near
}

/// The words of a name as a person reads them: split at punctuation and at lower-to-upper
/// case changes (`copyKotlinTemplates` → copy, Kotlin, Templates; `test:unit` → test, unit).
fn words(name: &str) -> Vec<&str> {
    let b = name.as_bytes();
    let mut cuts: Vec<usize> = std::iter::once(0)
        .chain((1..b.len()).filter(|&i| b[i - 1].is_ascii_lowercase() && b[i].is_ascii_uppercase()))
        .collect();
    cuts.push(name.len());
    cuts.windows(2)
        .flat_map(|w| name[w[0]..w[1]].split(|ch: char| !ch.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Which of one folder's commands of a name a user means, best first: 0 a task the project
/// wrote under that name (a justfile recipe, a mise task), 1 what a build tool offers every
/// project (`cargo build`, `dotnet test`), 2 Compose's verb on the project `docker compose`
/// reads by itself there (`compose.yml` and its override), 3 on another Compose file
/// (`compose.prod.yml`).
pub(crate) fn tier(c: &CommandItem) -> u8 {
    if !TOOL_BUILTINS.contains(&c.kind.as_str()) {
        0
    } else if c.kind != CONTAINER_TOOL {
        1
    } else if is_default_compose(Path::new(&c.file_path)) {
        2
    } else {
        3
    }
}

/// Own before auxiliary, nearer the current directory first, then by [`tier`], then by path.
pub(crate) fn rank(at: At<'_>, c: &CommandItem) -> (bool, usize, u8, PathBuf) {
    let f = folder(c);
    let distance = if at.cwd.starts_with(f) {
        at.cwd.components().count() - f.components().count()
    } else {
        usize::MAX / 2 + f.components().count()
    };
    (c.auxiliary, distance, tier(c), c.path().to_path_buf())
}

/// The shortest name that resolves to `c` for a user at `at`: its label, `type:label`, its
/// folder and label (`packages/vite:build`), its file and label, else its id.
pub fn name_for(commands: &[CommandItem], at: At<'_>, c: &CommandItem) -> String {
    let rel = |p: &Path| -> String {
        let r = p.strip_prefix(at.root).unwrap_or(p);
        if r.as_os_str().is_empty() {
            ".".to_string()
        } else {
            r.to_string_lossy().replace('\\', "/")
        }
    };
    let mut forms = Vec::new();
    if !c.auxiliary {
        forms.push(c.label.clone());
        forms.push(format!("{}:{}", c.kind, c.label));
    }
    let dir = rel(folder(c));
    forms.push(if dir.contains('/') || dir == "." {
        format!("{dir}:{}", c.label)
    } else {
        format!("./{dir}:{}", c.label)
    });
    forms.push(format!("{}:{}", rel(c.path()), c.label));
    forms
        .into_iter()
        .find(|f| matches!(matched(commands, at, f), Matched::One(x) if x.id == c.id))
        .unwrap_or_else(|| c.id.clone())
}

/// The shortest name [`resolve`] takes for each command of `commands` from `at`, in order.
pub fn names<'c>(commands: &'c [CommandItem], at: At<'_>) -> Vec<(&'c CommandItem, String)> {
    // A label's resolution only looks at the commands with that label (or that alias), so each
    // label group is worked out on its own, once.
    let mut by_label: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, c) in commands.iter().enumerate() {
        by_label.entry(c.label.as_str()).or_default().push(i);
    }
    let ids: HashSet<&str> = commands.iter().map(|c| c.id.as_str()).collect();
    let aliases: HashSet<&str> = commands
        .iter()
        .flat_map(|c| c.aliases.iter().map(String::as_str))
        .collect();
    let mut out: Vec<Option<String>> = vec![None; commands.len()];
    for (label, idx) in &by_label {
        // A group stands alone unless an alias, an id or a path form reaches outside it.
        let alone = !label.contains([':', '/', '\\'])
            && !aliases.contains(label)
            && idx.iter().all(|&i| commands[i].aliases.is_empty());
        let group: Vec<CommandItem> = if alone {
            idx.iter().map(|&i| commands[i].clone()).collect()
        } else {
            Vec::new()
        };
        for &i in idx {
            let c = &commands[i];
            let name = if alone {
                let n = name_for(&group, at, c);
                if ids.contains(n.as_str()) && n != c.id {
                    name_for(commands, at, c)
                } else {
                    n
                }
            } else {
                name_for(commands, at, c)
            };
            out[i] = Some(name);
        }
    }
    commands
        .iter()
        .zip(out)
        .map(|(c, n)| (c, n.unwrap_or_else(|| c.id.clone())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn item(kind: &str, file: &str, label: &str) -> CommandItem {
        CommandItem::new(kind, Path::new(file), label, label)
    }

    #[test]
    fn a_task_the_project_wrote_wins_over_a_build_tools_own() {
        let cmds = vec![
            item("cargo", "/w/Cargo.toml", "build"),
            item("just", "/w/justfile", "build"),
            item("cargo", "/w/Cargo.toml", "test"),
        ];
        let at = At::root(Path::new("/w"));
        assert_eq!(resolve(&cmds, at, "build").unwrap().kind, "just");
        assert_eq!(resolve(&cmds, at, "test").unwrap().kind, "cargo");
        assert_eq!(resolve(&cmds, at, "cargo:build").unwrap().kind, "cargo");
    }

    #[test]
    fn the_projects_build_tool_wins_over_composes_verb_of_the_same_name() {
        let cmds = vec![
            item("docker", "/w/docker-compose.yml", "build"),
            item("gradle", "/w/build.gradle", "build"),
            item("gradle", "/w/build.gradle", "test"),
            item("maven", "/w/pom.xml", "test"),
            item("docker", "/w/compose.yaml", "up"),
        ];
        let at = At::root(Path::new("/w"));
        assert_eq!(resolve(&cmds, at, "build").unwrap().kind, "gradle");
        assert_eq!(resolve(&cmds, at, "docker:build").unwrap().kind, "docker");
        assert_eq!(resolve(&cmds, at, "up").unwrap().kind, "docker");
        let compose = vec![
            item("docker", "/w/compose.deploy.yml", "up"),
            item("docker", "/w/compose.yaml", "up"),
        ];
        assert_eq!(
            resolve(&compose, at, "up").unwrap().file_path,
            "/w/compose.yaml",
            "the file docker compose reads by itself"
        );
        // Two build tools of the project stay a choice for the user.
        assert!(matches!(
            resolve(&cmds, at, "test"),
            Err(Error::Ambiguous { .. })
        ));
    }

    #[test]
    fn the_name_in_a_commands_id_names_it() {
        // `ct list --json` shows `cargo:/w/Cargo.toml:run-app` for `run --bin app`.
        let run = CommandItem::new("cargo", Path::new("/w/Cargo.toml"), "run-app", "x")
            .label("run --bin app");
        let cmds = vec![run, item("cargo", "/w/Cargo.toml", "run")];
        let at = At::root(Path::new("/w"));
        assert_eq!(
            resolve(&cmds, at, "run-app").unwrap().label,
            "run --bin app"
        );
        assert_eq!(
            resolve(&cmds, at, "run --bin app").unwrap().label,
            "run --bin app"
        );
        assert_eq!(resolve(&cmds, at, "run").unwrap().label, "run");
    }

    #[test]
    fn a_command_answers_to_each_of_its_names_and_no_other_of_their_length() {
        let mut run = CommandItem::new("cargo", Path::new("/w/Cargo.toml"), "run-app", "x")
            .label("run --bin app");
        run.aliases = vec!["ra".into()];
        let project = item("dotnet", "/w/eShop.csproj", "eShop: test");
        for (c, name) in [
            (&run, "run --bin app"),
            (&run, "ra"),
            (&run, "run-app"),
            (&project, "test"),
        ] {
            assert!(answers_to(c, name, false), "{name}");
            assert!(answers_to(c, &name.to_uppercase(), true), "{name}");
            assert!(!answers_to(c, &name.to_uppercase(), false), "{name}");
        }
        // Each name's length, other text.
        for name in ["run --bin ap_", "rb", "run-apX"] {
            assert!(!answers_to(&run, name, true), "{name}");
        }
        assert!(!answers_to(&project, "tast", true));
    }

    #[test]
    fn a_listed_command_wins_over_a_hidden_one_of_the_same_name() {
        let mut placeholder = item("npm", "/w/package.json", "test");
        placeholder.hidden = true;
        let cmds = vec![placeholder, item("mise", "/w/mise.toml", "test")];
        let at = At::root(Path::new("/w"));
        assert_eq!(resolve(&cmds, at, "test").unwrap().kind, "mise");
        // Named alone, a hidden command still runs.
        assert_eq!(resolve(&cmds, at, "npm:test").unwrap().kind, "npm");
    }

    #[test]
    fn near_matches_go_by_words_own_first_with_the_text_to_type() {
        let mut vendored = item("make", "/w/deps/x/Makefile", "build-x");
        vendored.auxiliary = true;
        let cmds = vec![
            vendored,
            item("gradle", "/w/app/build.gradle", "copyKotlinTemplates"),
            item("just", "/w/justfile", "fmt-check"),
            item(
                "python",
                "/w/utils/generate-fmtargs.py",
                "generate-fmtargs.py",
            ),
            item("make", "/w/Makefile", "build-all"),
        ];
        let at = At::root(Path::new("/w"));
        let near = |q: &str| match resolve(&cmds, at, q) {
            Err(Error::NotFound {
                suggestions, typed, ..
            }) => suggestions
                .iter()
                .map(|c| c.label.clone())
                .zip(typed)
                .collect::<Vec<_>>(),
            other => panic!("{:?}", other.map(|c| c.id.clone())),
        };
        assert!(
            near("lint").is_empty(),
            "no word of copyKotlinTemplates starts with lint"
        );
        let fmt: Vec<String> = near("fmt").into_iter().map(|(l, _)| l).collect();
        assert_eq!(fmt, ["fmt-check", "generate-fmtargs.py"]);
        let build = near("build");
        assert_eq!(build[0].0, "build-all");
        assert_eq!(
            build[1],
            ("build-x".to_string(), "deps/x:build-x".to_string())
        );
    }

    #[test]
    fn every_name_offered_resolves_to_its_command() {
        let cmds = vec![
            item("npm", "/w/package.json", "build"),
            item("npm", "/w/web/package.json", "build"),
            item("make", "/w/Makefile", "build"),
            item("make", "/w/Makefile", "test"),
            item("npm", "/w/package.json", "lint"),
            item("just", "/w/justfile", "lint"),
            item("shell", "/w/deploy.sh", "deploy.sh"),
        ];
        let at = At::root(Path::new("/w"));
        let named = names(&cmds, at);
        assert_eq!(named.len(), cmds.len());
        for (c, name) in &named {
            let got = resolve(&cmds, at, name)
                .unwrap_or_else(|e| panic!("`{name}` offered for {} but: {e}", c.id));
            assert_eq!(got.id, c.id, "`{name}`");
        }
        let of = |id: &str| named.iter().find(|(c, _)| c.id == id).unwrap().1.clone();
        assert_eq!(of(&cmds[3].id), "test");
        assert_eq!(of(&cmds[2].id), "make:build");
        assert_eq!(of(&cmds[4].id), "npm:lint");
        // Two npm `build`s: the root's is `npm:build` from the root, the package's by path.
        assert_eq!(of(&cmds[0].id), "npm:build");
        assert_eq!(of(&cmds[1].id), "./web:build");
    }
}
