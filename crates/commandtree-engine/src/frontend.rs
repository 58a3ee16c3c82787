//! What an interactive front end (the terminal UI, an editor) needs beyond the CLI's one-shot
//! operations: a loaded state built from commands it already has (the watcher's), the database
//! created on the first write, the questions a run would ask (to show them as one form), a
//! command's own definition for a preview, and its tags read again after a write.

use crate::runs::{self, Selected};
use crate::{Loaded, Result};
use commandtree_core::excerpt;
use commandtree_core::{CancelToken, CommandItem, ParamDef, Workspace};
use commandtree_exec::params::Prompter;
use commandtree_store::Store;
use std::path::Path;

impl Loaded {
    /// A loaded state for `commands` found elsewhere (a watcher's `Ready`), with the workspace
    /// database when there is one, opened read-only as a listing opens it (never created,
    /// migrated or converted here; the first write reopens it for writing).
    pub fn from_commands(root: &Path, commands: Vec<CommandItem>) -> Loaded {
        let store = Store::open_read_only(&commandtree_store::db_path(root))
            .ok()
            .flatten();
        Loaded {
            root: root.to_path_buf(),
            cwd: root.to_path_buf(),
            docs: false,
            show_all: false,
            commands,
            store,
            discovery_warnings: Vec::new(),
            db_warnings: Vec::new(),
            recreated: None,
        }
    }

    /// The database for a write, created when there is none yet (a first star or tag).
    pub fn writable_or_create(&mut self) -> Result<&mut Store> {
        if self.store.is_none() {
            self.store = Store::open(&commandtree_store::db_path(&self.root), true)?;
        }
        self.writable()
    }

    /// Reads the tags of the commands with `ids` again from the database (after a write).
    pub fn refresh_tags(&mut self, ids: &[&str]) -> Result<()> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        for c in self
            .commands
            .iter_mut()
            .filter(|c| ids.contains(&c.id.as_str()))
        {
            c.tags = store.tags_for_command(&c.id)?;
        }
        Ok(())
    }
}

/// As [`crate::load`] of every type, handing the commands to `early` as soon as discovery and
/// the database have them, before the static findings are added (the slow part on a big tree):
/// a front end can draw them while the rest comes. Their `security_warning` is only the
/// model's then, so nothing should run from them until this returns.
pub fn load_early(
    ws: &Workspace,
    cancel: &CancelToken,
    early: impl FnOnce(&[CommandItem]),
) -> Result<Loaded> {
    crate::load::load_then(ws, &crate::LoadOptions::default(), cancel, early)
}

/// Sets the security warnings of `items` as [`crate::load`] does: static findings (cached in
/// `store` when it has them, analysed now otherwise) combined with the model's warning already
/// on each item. Commands from a watcher's events carry only the model's; this adds the rest.
/// A read-only store is never written.
pub fn annotate_findings(store: Option<&mut Store>, items: &mut [CommandItem]) {
    if items.is_empty() {
        return;
    }
    let found = crate::findings::scan(store, items);
    crate::findings::annotate(items, &found);
}

/// Records what a plan would ask, answering with defaults, so a front end can ask everything
/// at once in a form of its own.
#[derive(Default)]
struct Recorder {
    asked: Vec<ParamDef>,
}

impl Prompter for Recorder {
    fn ask(&mut self, p: &ParamDef) -> commandtree_exec::Result<String> {
        self.asked.push(p.clone());
        Ok(p.default.clone().unwrap_or_default())
    }
    fn confirm(&mut self, _: &str) -> commandtree_exec::Result<bool> {
        Ok(true)
    }
}

/// The values running `sel` would ask for (its parameters, a VS Code task's `${input:x}`), in
/// order, defaults included. Planning never starts a process. A command whose program is
/// missing still lists its parameters (the run itself reports the missing program).
pub fn questions(ws: &Workspace, sel: &Selected) -> Vec<ParamDef> {
    let mut rec = Recorder::default();
    let planned = runs::plan(ws, sel, Some(&mut rec));
    if planned.is_err() && rec.asked.is_empty() {
        return sel
            .item
            .params
            .iter()
            .filter(|p| !sel.values.contains_key(&p.name))
            .cloned()
            .collect();
    }
    rec.asked
}

/// A command's own definition, for a preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// The line of the file that defines it (`CommandItem::definition_path`) the text starts
    /// at (1-based).
    pub first_line: usize,
    pub text: String,
    /// The whole file (a script): a front end shows its head.
    pub whole_file: bool,
}

/// The text defining `item` (the npm script, the make rule, the recipe, the script), read with
/// discovery's limits (size, binary check). `None` when the file cannot be read.
pub fn preview(item: &CommandItem) -> Option<Preview> {
    let content = excerpt::read_definition(item).ok()?;
    let found = excerpt::command_text(item, &content);
    let first_line = if found.whole_file {
        1
    } else {
        // The excerpt is a slice of the file (or, for keyed JSON, rebuilt text starting at the
        // command's line): count the lines before it.
        match content.find(found.text.as_ref()) {
            Some(at) => content[..at].matches('\n').count() + 1,
            None => item.definition_line().map_or(1, |l| l as usize),
        }
    };
    Some(Preview {
        first_line,
        text: found.text.into_owned(),
        whole_file: found.whole_file,
    })
}

/// The program and arguments that open `file` (at `line` and `column` when given) in the
/// user's editor: `$VISUAL`, else `$EDITOR`, else `vi`, only ever from the user's environment,
/// never from a workspace file. Editors that take `+LINE FILE` (vi, vim, nvim, emacs, nano,
/// micro, kak, helix...) get that; the VS Code family gets `--goto FILE:LINE:COL`, Sublime Text
/// and Zed `FILE:LINE:COL`. Give an absolute path: a relative one could start with `-` and be
/// read as an option.
pub fn editor_command(
    file: &Path,
    line: Option<u32>,
    column: Option<u32>,
) -> (String, Vec<String>) {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".into());
    editor_argv(&editor, file, line, column)
}

fn editor_argv(
    editor: &str,
    file: &Path,
    line: Option<u32>,
    column: Option<u32>,
) -> (String, Vec<String>) {
    let mut words = commandtree_exec::quote::split_words(editor)
        .ok()
        .filter(|w| !w.is_empty())
        .unwrap_or_else(|| vec![editor.to_string()]);
    let program = words.remove(0);
    let file = file.to_string_lossy().into_owned();
    let Some(line) = line else {
        words.push(file);
        return (program, words);
    };
    let at = match column {
        Some(c) => format!("{file}:{line}:{c}"),
        None => format!("{file}:{line}"),
    };
    let name = Path::new(&program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.as_str() {
        "code" | "code-insiders" | "codium" | "cursor" | "windsurf" => {
            words.extend(["--goto".to_string(), at])
        }
        "subl" | "zed" => words.push(at),
        _ => words.extend([format!("+{line}"), file]),
    }
    (program, words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::{RunRequest, Target};

    fn load_all(ws: &Workspace) -> Loaded {
        crate::load(
            ws,
            &crate::LoadOptions::default(),
            &crate::CancelToken::new(),
            &crate::NoProgress,
        )
        .unwrap()
    }

    /// A workspace (by its real path) in a scratch folder, removed when the returned guard is
    /// dropped.
    fn ws_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let d = tempfile::Builder::new()
            .prefix("ct-frontend-")
            .tempdir()
            .unwrap();
        let root = d.path().canonicalize().unwrap();
        for (p, text) in files {
            let path = root.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let ws = Workspace::open(Some(&root), &root);
        (d, ws)
    }

    #[test]
    fn questions_list_parameters_with_defaults_and_skip_given_ones() {
        let (_d, ws) = ws_with(&[(
            "greet.sh",
            "#!/bin/sh\n# @param name Who (default: world)\n# @param mood How (options: calm, loud)\necho hi\n",
        )]);
        let loaded = load_all(&ws);
        let mut values = commandtree_exec::params::Values::new();
        let sel = runs::select(
            &loaded,
            RunRequest {
                target: Target::Query("greet.sh".into()),
                values: values.clone(),
                extra: vec![],
                debug: false,
            },
        )
        .unwrap();
        let q = questions(&ws, &sel);
        let names: Vec<&str> = q.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["name", "mood"]);
        assert_eq!(q[0].default.as_deref(), Some("world"));
        assert_eq!(q[1].options, ["calm", "loud"]);
        values.insert("name".into(), "ann".into());
        let sel = Selected { values, ..sel };
        let q = questions(&ws, &sel);
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].name, "mood");
    }

    #[test]
    fn preview_is_the_make_rule_with_its_line() {
        let (_d, ws) = ws_with(&[(
            "Makefile",
            "all: build\n\nbuild:\n\tcc -o app main.c\n\ntest: build\n\t./app --test\n",
        )]);
        let loaded = load_all(&ws);
        let test = loaded.resolve("make:test").unwrap();
        let p = preview(test).unwrap();
        assert!(!p.whole_file);
        assert_eq!(p.first_line, 6);
        assert_eq!(p.text, "test: build\n\t./app --test");
    }

    #[test]
    fn watched_commands_get_the_static_findings_a_load_gives() {
        let (_d, ws) = ws_with(&[
            ("wipe.sh", "#!/bin/sh\nrm -rf /\n"),
            ("hello.sh", "#!/bin/sh\necho hello\n"),
        ]);
        let loaded = load_all(&ws);
        let mut watched = ws.discover(&commandtree_core::Options::default()).commands;
        assert!(watched.iter().all(|c| c.security_warning.is_none()));
        annotate_findings(None, &mut watched);
        let warning = |cs: &[CommandItem], label: &str| {
            cs.iter()
                .find(|c| c.label == label)
                .unwrap()
                .security_warning
                .clone()
        };
        assert!(warning(&watched, "wipe.sh").is_some());
        assert_eq!(
            warning(&watched, "wipe.sh"),
            warning(&loaded.commands, "wipe.sh")
        );
        assert_eq!(warning(&watched, "hello.sh"), None);
    }

    #[test]
    fn an_early_load_hands_over_the_commands_and_ends_as_a_load() {
        let (_d, ws) = ws_with(&[
            ("wipe.sh", "#!/bin/sh\nrm -rf /\n"),
            ("hello.sh", "#!/bin/sh\necho hello\n"),
        ]);
        let mut early = Vec::new();
        let staged = load_early(&ws, &CancelToken::new(), |c| early = c.to_vec()).unwrap();
        let whole = crate::load(
            &ws,
            &crate::LoadOptions::default(),
            &CancelToken::new(),
            &crate::NoProgress,
        )
        .unwrap();
        assert_eq!(staged.commands, whole.commands);
        let labels = |cs: &[CommandItem]| cs.iter().map(|c| c.label.clone()).collect::<Vec<_>>();
        assert_eq!(labels(&early), labels(&whole.commands));
        // Without a database the static findings are worked out during discovery, so even the
        // early commands carry them.
        assert_eq!(early, whole.commands);
        assert!(staged.commands.iter().any(|c| c.security_warning.is_some()));
    }

    #[test]
    fn a_loaded_state_from_commands_reads_without_writing() {
        let (_d, ws) = ws_with(&[("a.sh", "echo a\n")]);
        let commands = ws.discover(&commandtree_core::Options::default()).commands;
        let id = commands[0].id.clone();
        let mut first = Loaded::from_commands(&ws.root, commands.clone());
        first.writable_or_create().unwrap().star(&id).unwrap();
        drop(first);
        let db = commandtree_store::db_path(&ws.root);
        let before = std::fs::metadata(&db).unwrap().modified().unwrap();
        let mut loaded = Loaded::from_commands(&ws.root, commands);
        assert!(loaded.store.as_ref().unwrap().is_read_only());
        loaded.refresh_tags(&[id.as_str()]).unwrap();
        assert_eq!(loaded.commands[0].tags, ["quick"]);
        assert_eq!(std::fs::metadata(&db).unwrap().modified().unwrap(), before);
        // The first write reopens it for writing.
        loaded.writable_or_create().unwrap().unstar(&id).unwrap();
        assert!(!loaded.store.as_ref().unwrap().is_read_only());
    }

    #[test]
    fn first_write_creates_the_database_and_tags_are_read_back() {
        let (_d, ws) = ws_with(&[("a.sh", "echo a\n")]);
        let commands = ws.discover(&commandtree_core::Options::default()).commands;
        let mut loaded = Loaded::from_commands(&ws.root, commands);
        assert!(loaded.store.is_none());
        let id = loaded.commands[0].id.clone();
        loaded.writable_or_create().unwrap().star(&id).unwrap();
        loaded.refresh_tags(&[id.as_str()]).unwrap();
        assert_eq!(loaded.commands[0].tags, ["quick"]);
        assert!(commandtree_store::db_path(&ws.root).exists());
    }

    #[test]
    fn editors_get_the_line_their_way() {
        let f = Path::new("/w/src/a b.rs");
        let argv = |e: &str, line| {
            let (p, a) = editor_argv(e, f, line, Some(3));
            std::iter::once(p).chain(a).collect::<Vec<_>>().join("|")
        };
        assert_eq!(argv("nvim", Some(12)), "nvim|+12|/w/src/a b.rs");
        assert_eq!(
            argv("emacsclient -t", Some(12)),
            "emacsclient|-t|+12|/w/src/a b.rs"
        );
        assert_eq!(
            argv("/usr/bin/code --wait", Some(12)),
            "/usr/bin/code|--wait|--goto|/w/src/a b.rs:12:3"
        );
        assert_eq!(argv("subl", Some(12)), "subl|/w/src/a b.rs:12:3");
        assert_eq!(argv("code", None), "code|/w/src/a b.rs");
    }
}
