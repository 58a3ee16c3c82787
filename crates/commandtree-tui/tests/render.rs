//! The main states drawn into ratatui's `TestBackend` and compared with the snapshot files in
//! `tests/snapshots/` (`cargo insta review` after an intended change). The workspace is real:
//! files in a scratch folder, discovered and loaded through the engine, with a real SQLite
//! database for Quick Launch. Paths are shown relative to the root, so the snapshots do not
//! depend on where the scratch folder is.

use commandtree_engine::{Engine, LoadOptions};
use commandtree_tui::app::App;
use commandtree_tui::rows::Place;
use commandtree_tui::view;
use commandtree_tui::worker::Msg;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tempfile::TempDir;

/// A fresh folder under the temporary directory, removed when dropped.
fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("ct-tui-{name}-"))
        .tempdir()
        .unwrap()
}

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A workspace named `demo` with scripts, npm scripts and make targets; `greet.sh` starred.
fn app(name: &str) -> (TempDir, App) {
    let (scratch, app, _) = app_rx(name);
    (scratch, app)
}

/// [`app`], with the receiving end of the background threads' messages.
fn app_rx(name: &str) -> (TempDir, App, std::sync::mpsc::Receiver<Msg>) {
    let base = scratch(&format!("render-{name}"));
    let root = base.path().join("demo");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    write(
        &root,
        "package.json",
        r#"{"name":"demo","scripts":{"build":"tsc -p .","lint":"eslint .","test":"vitest run"}}"#,
    );
    write(
        &root,
        "Makefile",
        "all: build\n\n# Compile the app.\nbuild:\n\tcc -o app main.c\n\ntest: build\n\t./app --test\n\n_helper:\n\techo hidden\n",
    );
    write(
        &root,
        "scripts/greet.sh",
        "#!/bin/sh\n# Greets someone.\n# @param name Who to greet (default: world)\n# @param mood How (options: calm, loud)\necho \"hello $1 ($2)\"\n",
    );
    write(
        &root,
        "scripts/clean.sh",
        "#!/bin/sh\n# Removes build output.\nrm -rf build dist\n",
    );
    // A nested example: `ct list` leaves it out without --all, and so does the tree.
    write(
        &root,
        "examples/demo/bootstrap.sh",
        "#!/bin/sh\n# Sets up the example.\necho example\n",
    );
    let engine = Engine::open(Some(&root), &root).unwrap();
    let mut first = engine.load(&LoadOptions::default()).unwrap();
    first.writable_or_create().unwrap();
    commandtree_engine::tags::star(&mut first, "greet.sh").unwrap();
    drop(first);
    // Reload so the star comes from the database, as on a real start.
    let mut loaded = engine.load(&LoadOptions::default()).unwrap();
    // A security warning as a summary would bring it (the LLM is not part of this test).
    for c in &mut loaded.commands {
        if c.label == "clean.sh" {
            c.summary = Some("Deletes the build and dist folders.".into());
            c.security_warning = Some("Deletes files recursively (rm -rf).".into());
        }
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let mut app = App::new(engine, tx);
    app.theme = commandtree_tui::theme::Theme::plain();
    app.loaded(loaded);
    (base, app, rx)
}

fn key(app: &mut App, code: KeyCode) {
    let _ = app.key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn text(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn render(app: &mut App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| view::draw(f, app)).unwrap();
    let buf = term.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn select(app: &mut App, label: &str) {
    let i = app
        .tree
        .rows
        .iter()
        .position(|r| {
            r.command()
                .is_some_and(|i| app.commands()[i].label == label && r.place() == Some(Place::Tree))
        })
        .unwrap_or_else(|| panic!("no row for {label}"));
    app.tree.sel = i;
}

#[test]
fn tree() {
    let (_s, mut app) = app("tree");
    insta::assert_snapshot!(render(&mut app, 110, 26));
}

#[test]
fn filtered() {
    let (_s, mut app) = app("filtered");
    key(&mut app, KeyCode::Char('/'));
    text(&mut app, "bld");
    let shown = render(&mut app, 110, 26);
    assert!(!shown.contains("lint"), "{shown}");
    insta::assert_snapshot!(shown);
}

#[test]
fn details_with_a_warning_and_its_confirmation() {
    let (_s, mut app) = app("warning");
    select(&mut app, "clean.sh");
    insta::assert_snapshot!("details_with_a_warning", render(&mut app, 110, 26));
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("confirmation", render(&mut app, 110, 26));
}

#[test]
fn parameter_form() {
    let (_s, mut app) = app("form");
    select(&mut app, "greet.sh");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Right);
    insta::assert_snapshot!(render(&mut app, 110, 26));
}

#[test]
fn search_results() {
    let (_s, mut app) = app("search");
    // What the search thread answers (the embedding model is exercised by ct's search tests).
    let ids: Vec<(String, f32)> = ["clean.sh", "build"]
        .iter()
        .zip([0.71f32, 0.42])
        .map(|(l, s)| {
            let c = app.commands().iter().find(|c| c.label == *l).unwrap();
            (c.id.clone(), s)
        })
        .collect();
    app.message(commandtree_tui::worker::Msg::Found(
        "remove build output".into(),
        ids,
    ));
    insta::assert_snapshot!(render(&mut app, 110, 26));
}

#[test]
fn runs_pane_and_help() {
    let (_s, mut app) = app("runs");
    key(&mut app, KeyCode::Char('r'));
    insta::assert_snapshot!("runs_pane", render(&mut app, 110, 26));
    key(&mut app, KeyCode::F(1));
    insta::assert_snapshot!("help", render(&mut app, 110, 36));
}

#[test]
fn narrow_terminal_folds_the_details_pane() {
    let (_s, mut app) = app("narrow");
    let shown = render(&mut app, 80, 24);
    assert!(!shown.contains("Details"), "{shown}");
    insta::assert_snapshot!(shown);
}

#[test]
fn keys_move_fold_and_sort() {
    let (_s, mut app) = app("keys");
    select(&mut app, "greet.sh");
    key(&mut app, KeyCode::Char('h'));
    // h on a command goes to its parent; h again closes it.
    key(&mut app, KeyCode::Char('h'));
    let shown = render(&mut app, 110, 20);
    assert!(shown.contains("▸ scripts/ (2)"), "{shown}");
    // The nested example is left out, as `ct list` leaves it out; `a` shows it.
    key(&mut app, KeyCode::Char('C'));
    let shown = render(&mut app, 110, 20);
    assert!(shown.contains("▸ Shell Scripts (2)"), "{shown}");
    assert!(shown.contains("(+1 hidden: a)"), "{shown}");
    key(&mut app, KeyCode::Char('a'));
    assert_eq!(app.counts().hidden + app.counts().hidden_docs, 0);
    assert_eq!(app.counts().shown, app.commands().len());
    let shown = render(&mut app, 110, 20);
    assert!(
        shown.contains("▸ Shell Scripts (3)"),
        "auxiliary shown now:\n{shown}"
    );
    assert!(!shown.contains("hidden"), "{shown}");
    key(&mut app, KeyCode::Char('E'));
    key(&mut app, KeyCode::Char('g'));
    assert!(render(&mut app, 110, 20).contains("sorted by name"));
}

#[test]
fn live_changes_keep_the_selection() {
    let (_s, mut app) = app("live");
    select(&mut app, "greet.sh");
    let before = app.selected_id();
    let mut added = app
        .commands()
        .iter()
        .find(|c| c.label == "lint")
        .unwrap()
        .clone();
    added.id = added.id.replace(":lint", ":format");
    added.label = "format".into();
    let removed = app
        .commands()
        .iter()
        .find(|c| c.label == "clean.sh")
        .unwrap()
        .id
        .clone();
    let mut updated = app
        .commands()
        .iter()
        .find(|c| c.label == "greet.sh")
        .unwrap()
        .clone();
    updated.tags.push("deploy".into());
    let mut all: Vec<_> = app
        .commands()
        .iter()
        .filter(|c| c.id != removed)
        .map(|c| {
            if c.id == updated.id {
                updated.clone()
            } else {
                c.clone()
            }
        })
        .collect();
    all.push(added);
    app.commands_changed_on_disk(std::sync::Arc::new(all));
    assert_eq!(app.selected_id(), before, "the selection stays on greet.sh");
    assert_eq!(app.selected_command().unwrap().label, "greet.sh");
    let shown = render(&mut app, 110, 26);
    assert!(shown.contains("format"), "{shown}");
    assert!(!shown.contains("clean.sh"), "{shown}");
    assert!(shown.contains("greet.sh ★ [deploy]"), "{shown}");
}

#[test]
fn an_untrusted_workspace_configuration_is_said_and_the_database_only_read() {
    let (s, _) = app("trust-base");
    let root = s.path().join("demo");
    write(
        &root,
        ".commandtree/config.toml",
        "[llm]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n",
    );
    let db = root.join(".commandtree/commandtree.sqlite3");
    let before = std::fs::read(&db).unwrap();
    let engine = Engine::open(Some(&root), &root).unwrap();
    let (tx, _rx) = std::sync::mpsc::channel();
    let mut app = App::new(engine, tx);
    app.theme = commandtree_tui::theme::Theme::plain();
    let commands = app
        .engine
        .workspace()
        .discover(&Default::default())
        .commands;
    app.loaded(commandtree_engine::Loaded::from_commands(&root, commands));
    let shown = render(&mut app, 110, 26);
    assert!(shown.contains("config not trusted: ct trust"), "{shown}");
    assert!(shown.contains("1 warning │"), "{shown}");
    // Quick Launch comes from the database, which was read, not written.
    assert!(shown.contains("Quick Launch (1)"), "{shown}");
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn the_last_sessions_tree_shows_at_once_and_nothing_acts_on_it_until_discovery() {
    let (s, _) = app("snapshot-base");
    let root = s.path().join("demo");
    let engine = Engine::open(Some(&root), &root).unwrap();
    let (tx, _rx) = std::sync::mpsc::channel();
    let mut app = App::new(engine, tx);
    app.theme = commandtree_tui::theme::Theme::plain();
    let mut saved = app
        .engine
        .workspace()
        .discover(&Default::default())
        .commands;
    saved.retain(|c| c.label != "lint");
    app.cached(saved);
    select(&mut app, "build");
    let shown = render(&mut app, 110, 26);
    assert!(shown.contains("discovering commands…"), "{shown}");
    key(&mut app, KeyCode::Char('s'));
    let shown = render(&mut app, 110, 26);
    assert!(
        shown.contains("Quick Launch (1)"),
        "not starred yet:\n{shown}"
    );
    assert!(shown.contains("not checked yet"), "{shown}");
    // Discovery answers: its tree replaces the saved one, the selection stays.
    let loaded = app.engine.load(&LoadOptions::default()).unwrap();
    app.message(commandtree_tui::worker::Msg::Loaded(Ok(Box::new(loaded))));
    assert_eq!(app.selected_command().unwrap().label, "build");
    let shown = render(&mut app, 110, 26);
    assert!(shown.contains("lint"), "{shown}");
    assert!(!shown.contains("discovering commands…"), "{shown}");
    key(&mut app, KeyCode::Char('s'));
    assert!(render(&mut app, 110, 26).contains("Quick Launch (2)"));
}

const SKILL: &str =
    "---\nname: Clean Up Script\nicon: sparkle\n---\n\n- Remove superfluous comments\n";

/// The proposal a model would send for `clean.sh` (the request itself is `ct skill apply`'s and
/// the editor server's, tested against a loopback model there).
fn proposal(root: &std::path::Path, before: &str) -> commandtree_skills::command_skill::Proposal {
    commandtree_skills::command_skill::Proposal {
        path: root.join("scripts/clean.sh"),
        before: before.to_string(),
        after: "#!/bin/sh\nrm -rf build dist\n".to_string(),
    }
}

/// Set in the child [`in_own_home`] starts.
const CHILD: &str = "COMMANDTREE_TUI_TEST_HOME";

/// Runs `body` in a child process of this test binary (the test named `test`, alone) whose
/// `HOME` is a scratch folder, so the `ct trust` record a test writes never touches the
/// user's; here, waits for it and fails when it failed or did not run that test.
fn in_own_home(test: &str, body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        body();
        return;
    }
    let home = scratch(&format!("home-{test}"));
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("HOME", home.path())
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(&format!("test {test} ... ok")),
        "{test} in its own home failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_command_skill_shows_its_diff_and_writes_only_after_y() {
    in_own_home(
        "a_command_skill_shows_its_diff_and_writes_only_after_y",
        shows_its_diff_and_writes_only_after_y,
    );
}

fn shows_its_diff_and_writes_only_after_y() {
    let (scratch, mut app) = app("skill-diff");
    let root = scratch.path().join("demo").canonicalize().unwrap();
    write(&root, ".commandtree/skills/clean-up.md", SKILL);
    // Writing a command skill's proposal, like asking for one, needs the user's `ct trust`.
    assert!(std::env::var_os(CHILD).is_some());
    commandtree_core::trust::trust(&root).unwrap();
    let script = root.join("scripts/clean.sh");
    let before = std::fs::read_to_string(&script).unwrap();

    select(&mut app, "clean.sh");
    key(&mut app, KeyCode::Char('m'));
    let shown = render(&mut app, 100, 30);
    assert!(
        shown.contains("Command skill for clean.sh") && shown.contains("Clean Up Script"),
        "{shown}"
    );
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());

    app.message(Msg::Proposed(
        "Clean Up Script".into(),
        Ok(proposal(&root, &before)),
    ));
    let shown = render(&mut app, 100, 30);
    for want in [
        "Clean Up Script → scripts/clean.sh",
        "--- a/scripts/clean.sh",
        "-# Removes build output.",
        "y applies · n / Esc / q does not",
    ] {
        assert!(shown.contains(want), "{want}: {shown}");
    }
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(std::fs::read_to_string(&script).unwrap(), before);
    assert!(
        app.status
            .message
            .as_ref()
            .unwrap()
            .0
            .contains("not applied")
    );

    // The file changed while the diff was shown: y writes nothing and says why.
    app.message(Msg::Proposed(
        "Clean Up Script".into(),
        Ok(proposal(&root, "#!/bin/sh\nold\n")),
    ));
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(std::fs::read_to_string(&script).unwrap(), before);
    assert!(
        app.status
            .message
            .as_ref()
            .unwrap()
            .0
            .contains("nothing was written"),
        "{:?}",
        app.status.message
    );

    app.message(Msg::Proposed(
        "Clean Up Script".into(),
        Ok(proposal(&root, &before)),
    ));
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "#!/bin/sh\nrm -rf build dist\n"
    );
    assert_eq!(
        app.status.message.as_ref().unwrap().0,
        "applied to scripts/clean.sh"
    );
}

#[test]
fn a_command_skill_needs_trust_and_says_when_there_are_none() {
    let (scratch, mut app, rx) = app_rx("skill-trust");
    let root = scratch.path().join("demo").canonicalize().unwrap();
    select(&mut app, "clean.sh");
    key(&mut app, KeyCode::Char('m'));
    assert!(app.popup.is_none());
    assert!(
        app.status
            .message
            .as_ref()
            .unwrap()
            .0
            .contains("no command skills"),
        "{:?}",
        app.status.message
    );

    write(&root, ".commandtree/skills/clean-up.md", SKILL);
    key(&mut app, KeyCode::Char('m'));
    key(&mut app, KeyCode::Enter);
    assert!(app.status.job.is_some());
    // The worker thread answers; this scratch workspace was never trusted, so nothing is sent.
    let msg = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("an answer");
    app.message(msg);
    assert!(app.status.job.is_none());
    let said = &app.status.message.as_ref().unwrap().0;
    assert!(
        said.starts_with("Clean Up Script: ") && said.contains("ct trust"),
        "{said}"
    );
}

/// The runs pane takes the keys it binds after Tab and leaves the rest to the tree; the
/// status line's footer follows whoever has the keys.
#[test]
fn the_focused_runs_pane_keeps_its_keys_and_passes_on_the_rest() {
    let (_s, mut app) = app("focus");
    select(&mut app, "build");
    let before = app.tree.sel;
    key(&mut app, KeyCode::Char('r'));
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.context(), commandtree_tui::keymap::Context::Runs);
    let shown = render(&mut app, 110, 26);
    assert!(
        shown.contains("Tab / Esc back to the tree · F1 help"),
        "{shown}"
    );
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.tree.sel, before, "j moves in the runs pane");
    key(&mut app, KeyCode::Char('s'));
    assert!(render(&mut app, 110, 26).contains("build is in Quick Launch"));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.context(), commandtree_tui::keymap::Context::Tree);
    assert!(app.runs.open, "Esc gives the keys back; the pane stays");
}
