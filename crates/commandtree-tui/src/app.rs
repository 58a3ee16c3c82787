//! The UI's state and what each key asks of the engine. The parts of the screen are
//! [`components`](crate::components), each with its own state, drawing and keys; [`App`] holds
//! them with the loaded workspace, sends each key to the part that has the keys (the
//! [`keymap`](crate::keymap) says which action it is there), and carries out what needs the
//! engine: runs, tags, summaries, search, command skills. No terminal here: what needs the
//! terminal itself (a foreground run, the editor, the clipboard, quitting) goes back to the
//! loop as an [`Effect`]. Slow work goes to threads that answer with a [`Msg`]; nothing here
//! waits on them.

use crate::components::confirm::Confirm;
use crate::components::deps::DepsView;
use crate::components::detail::{DetailPane, Details};
use crate::components::filter::{Edit, FilterBar};
use crate::components::help::Viewer;
use crate::components::params::Params;
use crate::components::picker::Picker;
use crate::components::problems::ProblemList;
use crate::components::prompt::Prompt;
use crate::components::rerun::{Reruns, run_mark};
use crate::components::running::RunState;
use crate::components::runs::{BgRun, RunsKey, RunsPane, clean};
use crate::components::status::Status;
use crate::components::tree::{Click, Source, TreeView};
use crate::components::{Outcome, rel};
use crate::keymap::{self, Action, Context};
use crate::rows::{Row, RowId, RowKind};
use crate::theme::Theme;
use crate::worker::{self, Msg};
use commandtree_core::{CancelToken, CommandItem, SortOrder};
use commandtree_engine::frontend;
use commandtree_engine::problems::{RunProblems, Which};
use commandtree_engine::rerun;
use commandtree_engine::runs::{self, Planned, RunRequest, Target};
use commandtree_engine::tags;
use commandtree_engine::{Engine, Loaded};
use commandtree_engine::{gate, listing};
use commandtree_exec::history::Run;
use commandtree_exec::params::Values;
use commandtree_skills::command_skill::Proposal;
use ratatui::crossterm::event::{KeyEvent, KeyEventKind, MouseEvent};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;

pub use crate::components::status::Level;

/// What the loop does for the app, with the terminal.
#[derive(Debug)]
pub enum Effect {
    Quit,
    /// Suspend the UI and run this in the terminal; "exit N — press a key" after.
    Foreground(Box<Planned>),
    /// Open the file at the line (and column) in `$VISUAL`/`$EDITOR`.
    Edit(PathBuf, Option<u32>, Option<u32>),
    /// Put text on the clipboard (OSC 52).
    Copy(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    Here,
    Background,
    Window,
    Debug,
    /// Not a run: rerun it on change from now on (`W`), once its warnings are confirmed.
    Watch,
}

/// A run on its way through the confirmation and the form.
#[derive(Debug, Clone)]
pub struct Pending {
    pub target: Target,
    pub how: How,
    pub values: Values,
    pub extra: Vec<String>,
    pub confirmed: bool,
    pub asked: bool,
    /// A restart: this run is stopped (if it still goes on) just before the new one starts.
    pub restart: Option<i64>,
    /// A rerun on change: warnings confirmed for the watch are not asked again.
    pub rerun: bool,
}

impl Pending {
    pub fn new(target: Target, how: How, extra: Vec<String>) -> Pending {
        Pending {
            target,
            how,
            values: Values::new(),
            extra,
            confirmed: false,
            asked: false,
            restart: None,
            rerun: false,
        }
    }
}

#[derive(Debug, Clone)]
pub enum InputFor {
    AddTag(String),
    Args(String),
    Search,
}

#[derive(Debug, Clone)]
pub enum PickFor {
    TagFilter,
    RemoveTag(String),
    /// A command skill for this command id; the file ids of the skills, in the items' order.
    CommandSkill(String, Vec<String>),
}

/// The popup open, if any: it has the keys.
#[derive(Debug, Clone)]
pub enum Popup {
    Help(Viewer),
    /// The detail pane's lines, for a terminal too narrow to show the pane.
    Details(Viewer),
    Quit(Confirm<()>),
    Confirm(Confirm<Pending>),
    /// A command skill's proposed change: `y` writes it.
    Proposal(Confirm<Box<Proposal>>),
    Params(Params<Pending>),
    Prompt(Prompt<InputFor>),
    Pick(Picker<PickFor>),
    /// The problems of a run: Enter opens one in the editor.
    Problems(ProblemList),
    /// What a command runs and what runs it: Enter goes to one.
    Deps(DepsView),
}

impl Popup {
    pub fn context(&self) -> Context {
        match self {
            Popup::Help(_) | Popup::Details(_) => Context::Viewer,
            Popup::Quit(c) => c.context,
            Popup::Confirm(c) => c.context,
            Popup::Proposal(c) => c.context,
            Popup::Params(_) => Context::Params,
            Popup::Prompt(_) => Context::Prompt,
            Popup::Pick(_) => Context::Picker,
            Popup::Problems(_) => Context::Problems,
            Popup::Deps(_) => Context::Deps,
        }
    }

    fn key(&mut self, a: Action, k: &KeyEvent) -> Outcome {
        match self {
            Popup::Help(v) | Popup::Details(v) => v.key(a),
            Popup::Quit(c) => c.key(a),
            Popup::Confirm(c) => c.key(a),
            Popup::Proposal(c) => c.key(a),
            Popup::Params(p) => p.key(a, k),
            Popup::Prompt(p) => p.key(a, k),
            Popup::Pick(p) => p.key(a),
            Popup::Problems(p) => p.key(a),
            Popup::Deps(d) => d.key(a),
        }
    }
}

pub struct App {
    pub engine: Engine,
    pub loaded: Option<Loaded>,
    pub load_error: Option<String>,
    /// The commands are discovery's, not the snapshot from the last session.
    pub fresh: bool,
    pub history: Vec<Run>,
    /// The live index keeping the list current (none with live updates off).
    pub live: Option<Arc<commandtree_engine::Live>>,
    pub tx: Sender<Msg>,
    pub theme: Theme,
    pub tree: TreeView,
    pub filter: FilterBar,
    pub detail: DetailPane,
    pub runs: RunsPane,
    pub status: Status,
    pub popup: Option<Popup>,
    /// What each command's runs are doing (every process's runs, from the history).
    pub states: RunState,
    /// Terminal work a background answer asked for (a restart's run here), for the loop.
    pub queued: Option<Effect>,
    /// The commands that rerun when their files change.
    pub reruns: Reruns,
}

fn commands_of(loaded: &Option<Loaded>) -> &[CommandItem] {
    loaded.as_ref().map_or(&[], |l| &l.commands)
}

/// The key that does `a` in the tree, for messages that name it.
fn tree_key(a: Action) -> String {
    keymap::key(Context::Tree, a)
}

impl App {
    pub fn new(engine: Engine, tx: Sender<Msg>) -> App {
        let order = engine.workspace().settings.sort_order;
        let mut status = Status::default();
        for w in engine.settings_warnings() {
            status.warn(w);
        }
        status.progress = Some("discovering commands…".into());
        let show = listing::Show::of(&engine, false, false);
        App {
            engine,
            loaded: None,
            load_error: None,
            fresh: false,
            history: Vec::new(),
            live: None,
            tx,
            theme: Theme::from_env(),
            tree: TreeView::new(order),
            filter: FilterBar::new(show),
            detail: DetailPane::default(),
            runs: RunsPane::default(),
            status,
            popup: None,
            states: RunState::default(),
            queued: None,
            reruns: Reruns::default(),
        }
    }

    /// The workspace folder's name.
    pub fn name(&self) -> String {
        let root = self.engine.root();
        root.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| root.display().to_string())
    }

    pub fn commands(&self) -> &[CommandItem] {
        commands_of(&self.loaded)
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.tree.selected_row()
    }

    pub fn selected_command(&self) -> Option<&CommandItem> {
        self.commands().get(self.tree.selected_command()?)
    }

    /// What the selected row is, to find it again after a rebuild.
    pub fn selected_id(&self) -> Option<RowId> {
        self.tree.selected_id(self.commands())
    }

    /// How many commands are listed now and how many `a` would add, as `ct list` counts them.
    pub fn counts(&self) -> listing::Counts {
        self.filter.counts(self.commands().len())
    }

    pub fn running(&self) -> usize {
        self.runs.running()
    }

    /// How many commands have a run going on, here or in any other process.
    pub fn running_anywhere(&self) -> usize {
        self.states.running().max(self.runs.running())
    }

    pub fn say(&mut self, text: impl Into<String>, level: Level) {
        self.status.say(text, level);
    }

    /// Whose keys the keyboard is.
    pub fn context(&self) -> Context {
        match &self.popup {
            Some(p) => p.context(),
            None => self.pane_context(),
        }
    }

    /// Whose keys the keyboard is when no popup is open: the status line's footer lists them.
    pub fn pane_context(&self) -> Context {
        if self.filter.editing {
            Context::Filter
        } else if self.runs.focused() {
            Context::Runs
        } else {
            Context::Tree
        }
    }

    /// `f` with the tree and what its rows are made of.
    fn with_tree<R>(&mut self, f: impl FnOnce(&mut TreeView, &Source<'_>) -> R) -> R {
        let s = Source {
            commands: commands_of(&self.loaded),
            history: &self.history,
            passing: self.filter.passing(),
        };
        f(&mut self.tree, &s)
    }

    /// A path relative to the workspace root, for display.
    pub fn rel(&self, p: &str) -> String {
        rel(self.engine.root(), p)
    }

    // ---- loading and live changes -------------------------------------------------------

    /// A load finished (the first, or a refresh): these are the commands now. What was
    /// selected stays selected.
    pub fn loaded(&mut self, loaded: Loaded) {
        let first = self.loaded.is_none();
        let keep = self.selected_id();
        let same = self
            .loaded
            .as_ref()
            .is_some_and(|l| same_tree(&l.commands, &loaded.commands));
        for w in loaded.warnings() {
            self.status.warn(w);
        }
        self.loaded = Some(loaded);
        self.fresh = true;
        self.status.progress = None;
        if same {
            // Only notes changed (the findings of an early load, tags): the tree, the filter
            // text and the indexes all hold.
            self.tree.requick(self.loaded.as_ref());
            self.detail.forget();
            self.refilter_keeping(keep);
        } else {
            self.commands_replaced(keep);
        }
        // Ready before the first `/`, so typing the first letter only matches. (Not for a
        // provisional tree: its first frame should not wait.)
        self.filter.prepare(commands_of(&self.loaded));
        self.refresh_history();
        if first && let Some(i) = self.tree.rows.iter().position(|r| r.command().is_some()) {
            self.tree.sel = i;
        }
    }

    /// The snapshot saved when the workspace was last open: shown until discovery answers.
    pub fn cached(&mut self, commands: Vec<CommandItem>) {
        self.provisional(commands, "discovering commands…");
    }

    /// Discovery's commands before their static findings: shown while those are looked for.
    pub fn early(&mut self, commands: Vec<CommandItem>) {
        self.provisional(commands, "looking for risky commands…");
    }

    fn provisional(&mut self, commands: Vec<CommandItem>, doing: &str) {
        if self.loaded.is_some() {
            return;
        }
        self.loaded(Loaded::from_commands(self.engine.root(), commands));
        self.filter.forget_matches();
        self.fresh = false;
        self.status.progress = Some(doing.into());
    }

    /// Whether the commands are discovery's (not the saved snapshot); runs and writes wait for
    /// it, so nothing acts on a command that may be gone.
    fn ready(&mut self) -> bool {
        if !self.fresh {
            self.say(
                "one moment: the tree shown is not checked yet (discovery is running)",
                Level::Info,
            );
        }
        self.fresh
    }

    /// The live index's list after a change: replaces the commands, keeping the selection.
    pub fn commands_changed_on_disk(&mut self, all: Arc<Vec<CommandItem>>) {
        let keep = self.selected_id();
        let Some(loaded) = self.loaded.as_mut() else {
            return;
        };
        if *all == loaded.commands {
            return;
        }
        loaded.commands = all.as_ref().clone();
        // The store may have been created by another process since; read it as a listing
        // does (only a write of ours opens it for writing).
        if loaded.store.is_none() {
            loaded.store = commandtree_store::Store::open_read_only(&self.engine.db_path())
                .ok()
                .flatten();
        }
        self.commands_replaced(keep);
    }

    /// Rebuilds what depends on the commands (their tags, summaries or order changed; the same
    /// commands at the same indexes), keeping the selection.
    pub fn commands_changed(&mut self, structure: bool) {
        let keep = self.selected_id();
        if structure {
            self.regroup();
        }
        self.detail.forget();
        self.refilter_keeping(keep);
    }

    /// As `commands_changed`, after the list of commands itself was replaced: `keep` was taken
    /// before, while the rows still matched the commands.
    fn commands_replaced(&mut self, keep: Option<RowId>) {
        self.regroup();
        self.detail.forget();
        self.refilter_keeping(keep);
    }

    /// The categories, the counts and Quick Launch again.
    fn regroup(&mut self) {
        let commands = commands_of(&self.loaded);
        self.tree.regroup(&self.engine, commands);
        self.filter.commands_changed(commands);
        self.tree.requick(self.loaded.as_ref());
    }

    /// Applies the filters and rebuilds the rows. While typing (`select_best`) the best match
    /// is selected; otherwise the selection stays.
    fn refilter(&mut self, select_best: bool) {
        if !select_best {
            let keep = self.selected_id();
            return self.refilter_keeping(keep);
        }
        self.filter.apply(commands_of(&self.loaded));
        let best = self.filter.best();
        self.with_tree(|t, s| {
            t.rebuild(s);
            t.select_best(best);
        });
    }

    fn refilter_keeping(&mut self, keep: Option<RowId>) {
        self.filter.apply(commands_of(&self.loaded));
        self.with_tree(|t, s| t.rebuild_keeping(s, keep));
    }

    pub fn refresh_history(&mut self) {
        let ws = self.engine.workspace();
        if let Some(l) = self.loaded.as_mut() {
            self.history = runs::history(ws, &mut l.store, 15).unwrap_or_default();
        }
        self.with_tree(|t, s| t.rebuild_keeping(s, None));
    }

    /// The details of the selected command, computed when the selection changed.
    pub fn details(&mut self) -> Option<&Details> {
        let c = commands_of(&self.loaded).get(self.tree.selected_command()?)?;
        let (ws, loaded) = (self.engine.workspace(), self.loaded.as_ref());
        Some(self.detail.details(c, |c| Details::of(ws, loaded, c)))
    }

    // ---- background -----------------------------------------------------------------------

    pub fn message(&mut self, m: Msg) {
        match m {
            Msg::Cached(c) => self.cached(c),
            Msg::Early(c) => self.early(c),
            Msg::Loaded(Ok(l)) => self.loaded(*l),
            Msg::Loaded(Err(e)) => {
                self.status.progress = None;
                self.load_error = Some(e.clone());
                self.say(e, Level::Error);
            }
            Msg::Live(l) => self.live = Some(l),
            Msg::Stopped(id, r) => self.after_stop(id, r),
            Msg::Restart(id, r, planned, how) => {
                match r {
                    Ok(status) => self.runs.stopped(id, status),
                    // Ended by itself meanwhile: nothing to stop, it starts again all the same.
                    Err(_) if !self.still_running(id) => {}
                    Err(e) => {
                        self.say(format!("{e}; not started again"), Level::Error);
                        self.refresh_history();
                        return;
                    }
                }
                self.queued = self.launch(*planned, how);
            }
            Msg::Runs(Ok(latest)) => {
                self.runs.adopt(self.engine.workspace(), latest.values());
                let changed = self.states.set(latest);
                let states = &self.states;
                let _ = self.reruns.seen(|id| states.of(id).map(run_mark));
                if changed {
                    // The History section follows runs of other processes too.
                    self.refresh_history();
                }
            }
            Msg::Runs(Err(e)) => {
                self.states.failed();
                self.status
                    .warn(format!("the run history cannot be read: {e}"));
            }
            Msg::Problems(Ok(found)) => self.problems_found(found),
            Msg::Problems(Err(e)) => self.say(e, Level::Error),
            Msg::FilesChanged(id, files) => {
                if let Some(e) = self.files_changed(id, files) {
                    self.queued = Some(e);
                }
            }
            Msg::Commands(all) => self.commands_changed_on_disk(all),
            Msg::Warning(w) => self.status.warn(w),
            Msg::Progress(p) => {
                if self.status.job.is_some() {
                    self.status.progress = Some(p);
                }
            }
            Msg::Done(text, level) => {
                self.status.finished();
                self.say(text, level);
                self.refresh_notes();
            }
            Msg::Proposed(skill, r) => {
                self.status.finished();
                self.proposed(skill, r);
            }
            Msg::Found(query, hits) => {
                self.status.finished();
                let commands = self.commands();
                let hits: Vec<(usize, f32)> = hits
                    .into_iter()
                    .filter_map(|(id, s)| Some((commands.iter().position(|c| c.id == id)?, s)))
                    .collect();
                self.say(
                    format!(
                        "{} result(s) for “{query}” — {} returns to the tree",
                        hits.len(),
                        tree_key(Action::ClearFilters)
                    ),
                    Level::Info,
                );
                self.filter.search = Some((query, hits));
                self.with_tree(|t, s| t.rebuild(s));
                self.tree.sel = 1.min(self.tree.rows.len().saturating_sub(1));
            }
        }
    }

    /// Tags and summaries written by our own background work, read again.
    fn refresh_notes(&mut self) {
        if let Some(l) = self.loaded.as_mut()
            && let Some(store) = &l.store
        {
            let _ = store.enrich(&mut l.commands);
        }
        self.commands_changed(true);
    }

    /// Runs on each turn of the loop: background runs' output and ends, and every command's
    /// runs read again about once a second (their elapsed times move).
    pub fn tick(&mut self) -> bool {
        let ws = self.engine.workspace();
        let Some(l) = self.loaded.as_mut() else {
            return false;
        };
        let (changed, ended) = self.runs.tick(ws, &mut l.store);
        if ended {
            self.refresh_history();
            self.states.soon();
        }
        if self.states.due() {
            worker::read_runs(self.engine.root().to_path_buf(), self.tx.clone());
        }
        changed | self.states.tick(std::time::SystemTime::now())
    }

    // ---- keys -------------------------------------------------------------------------------

    /// A key, to whoever has the keys: a popup, the filter, the runs pane or the tree.
    pub fn key(&mut self, k: KeyEvent) -> Option<Effect> {
        if k.kind == KeyEventKind::Release {
            return None;
        }
        let Some((context, action)) = keymap::action(self.context(), &k) else {
            // Any key in the tree answers the last message, bound or not.
            if matches!(self.context(), Context::Tree | Context::Runs) {
                self.status.message = None;
            }
            return None;
        };
        if action == Action::Interrupt {
            return (!self.status.cancel()).then_some(Effect::Quit);
        }
        if let Some(p) = self.popup.take() {
            let effect = self.popup_key(p, action, &k);
            if effect.is_none() && self.popup.is_none() {
                return self.rerun_due();
            }
            return effect;
        }
        match context {
            Context::Filter => {
                match self.filter.key(action, &k) {
                    Edit::Nothing => {}
                    Edit::Refilter { select_best } => self.refilter(select_best),
                    Edit::Move(d) => self.tree.move_by(d),
                }
                None
            }
            Context::Runs => match self.runs.key(action) {
                RunsKey::Done => None,
                RunsKey::Stop => {
                    self.stop_pane_run();
                    None
                }
                RunsKey::Restart => {
                    let id = self.runs.selected().and_then(|r| r.run_id)?;
                    self.restart(id)
                }
                RunsKey::Problems => {
                    let id = self.runs.selected().and_then(|r| r.run_id)?;
                    self.show_problems(Which::Run(id));
                    None
                }
                RunsKey::Tree => self.tree_action(action),
            },
            _ => self.tree_action(action),
        }
    }

    fn tree_action(&mut self, a: Action) -> Option<Effect> {
        self.status.message = None;
        if self.with_tree(|t, s| t.key(a, s)) {
            return None;
        }
        match a {
            Action::Quit if self.running() > 0 => {
                self.popup = Some(Popup::Quit(Confirm::quit(self.running(), ())));
            }
            Action::Quit => return Some(Effect::Quit),
            Action::Help => self.popup = Some(Popup::Help(Viewer::default())),
            Action::Filter => {
                self.filter.start();
                self.refilter(!self.filter.text.is_empty());
            }
            Action::Search => {
                let p = Prompt::new("Search by meaning".into(), InputFor::Search);
                self.popup = Some(Popup::Prompt(p));
            }
            Action::TagFilter => self.pick_tag_filter(),
            Action::ClearFilters => match self.filter.clear() {
                Some(true) => self.refilter(false),
                Some(false) => self.with_tree(|t, s| t.refold(s)),
                None => {}
            },
            Action::Sort => {
                let order = self.tree.resort();
                self.say(format!("sorted by {}", order_name(order)), Level::Info);
                self.commands_changed(true);
            }
            Action::ToggleAux => {
                self.filter.show.all = !self.filter.show.all;
                self.refilter(false);
            }
            Action::Run => return self.enter(),
            Action::RunWindow => return self.run_selected(How::Window, Vec::new()),
            Action::RunBackground => return self.run_selected(How::Background, Vec::new()),
            Action::Debug => return self.run_selected(How::Debug, Vec::new()),
            Action::RunWithArgs => {
                self.ask_about_selected("Arguments for", InputFor::Args);
            }
            Action::RunLast => {
                return self.start(Pending::new(Target::Last, How::Here, Vec::new()));
            }
            Action::ToggleRuns => self.runs.toggle(),
            Action::FocusRuns if self.runs.open => self.runs.focus = true,
            Action::StopRun => self.stop_selected_run(),
            Action::RestartRun => return self.restart_selected(),
            Action::Problems => {
                let c = self.selected_command()?;
                let which = Which::Command {
                    id: c.id.clone(),
                    label: c.label.clone(),
                };
                self.show_problems(which);
            }
            Action::Deps => self.show_deps(),
            Action::WatchToggle => return self.toggle_watch(),
            Action::Star => self.star(),
            Action::QuickDown => self.quick_move(1),
            Action::QuickUp => self.quick_move(-1),
            Action::AddTag => self.ask_about_selected("Add a tag to", InputFor::AddTag),
            Action::RemoveTag => self.pick_tag_to_remove(),
            Action::Edit => {
                let c = self.selected_command()?;
                return Some(Effect::Edit(PathBuf::from(&c.file_path), c.line, None));
            }
            Action::Copy if self.selected_command().is_some() => {
                let line = self.details().map(|d| d.copy.clone()).unwrap_or_default();
                self.say("command line copied (OSC 52)", Level::Info);
                return Some(Effect::Copy(line));
            }
            Action::Summarize => self.summarize(),
            Action::CommandSkill => self.pick_command_skill(),
            Action::Details if self.selected_command().is_some() => {
                self.popup = Some(Popup::Details(Viewer::default()));
            }
            Action::Refresh => self.refresh(),
            _ => {}
        }
        None
    }

    /// A prompt about the selected command, titled `title` and its label.
    fn ask_about_selected(&mut self, title: &str, purpose: fn(String) -> InputFor) {
        if let Some(c) = self.selected_command() {
            let p = Prompt::new(format!("{title} {}", c.label), purpose(c.id.clone()));
            self.popup = Some(Popup::Prompt(p));
        }
    }

    fn popup_key(&mut self, mut popup: Popup, a: Action, k: &KeyEvent) -> Option<Effect> {
        let outcome = popup.key(a, k);
        if outcome == Outcome::Stay {
            self.popup = Some(popup);
            return None;
        }
        let done = outcome == Outcome::Done;
        match popup {
            Popup::Quit(_) if done => return Some(Effect::Quit),
            Popup::Confirm(c) if done => return self.start(c.answer),
            Popup::Params(p) if done => {
                let (values, mut run) = p.into_values();
                run.values.extend(values);
                return self.start(run);
            }
            Popup::Confirm(_) | Popup::Params(_) => self.say("not run", Level::Info),
            Popup::Proposal(c) if done => self.apply_proposal(&c.answer),
            Popup::Proposal(c) => {
                let rel = self.rel(&c.answer.path.to_string_lossy());
                self.say(format!("not applied; {rel} is unchanged"), Level::Info);
            }
            Popup::Prompt(p) if done => return self.input_done(p.value, p.purpose),
            Popup::Pick(p) if done => {
                let (sel, item) = p.chosen();
                self.picked(sel, item, p.purpose);
            }
            Popup::Problems(p) if done => {
                // The list stays, for the next problem after the editor.
                let (file, line, column) = p.chosen()?;
                self.popup = Some(Popup::Problems(p));
                return Some(Effect::Edit(file, Some(line), column));
            }
            Popup::Deps(d) if done => {
                let id = d.chosen()?.to_string();
                self.go_to_command(&id);
            }
            _ => {}
        }
        None
    }

    fn enter(&mut self) -> Option<Effect> {
        let r = self.selected_row()?.clone();
        match r.kind {
            RowKind::Command { .. } => self.run_selected(How::Here, Vec::new()),
            RowKind::Run(n) => {
                let run = self.history.get(n)?.clone();
                self.start(Pending::new(
                    Target::Query(run.command_id),
                    How::Here,
                    Vec::new(),
                ))
            }
            _ => {
                self.with_tree(|t, s| t.toggle(s));
                None
            }
        }
    }

    fn run_selected(&mut self, how: How, extra: Vec<String>) -> Option<Effect> {
        let id = self.selected_command()?.id.clone();
        self.start(Pending::new(Target::Query(id), how, extra))
    }

    /// A run's way: choose the command, confirm its warnings, ask its values, then start it.
    pub fn start(&mut self, p: Pending) -> Option<Effect> {
        if !self.ready() {
            return None;
        }
        let loaded = self.loaded.as_ref()?;
        let sel = match runs::select(
            loaded,
            RunRequest {
                target: p.target.clone(),
                values: p.values.clone(),
                extra: p.extra.clone(),
                debug: p.how == How::Debug,
            },
        ) {
            Ok(s) => s,
            Err(e) => {
                self.say(e.to_string(), Level::Error);
                return None;
            }
        };
        let gate = gate::Gate::of(loaded, &sel.item);
        let warned = match gate.verdict(false) {
            gate::Verdict::Confirm(lines) => Some(lines),
            gate::Verdict::Clear => None,
        };
        let confirmed =
            p.confirmed || (p.rerun && self.reruns.confirmed(&sel.item.id, warned.as_ref()));
        if let gate::Verdict::Confirm(lines) = gate.verdict(confirmed) {
            let title = format!("Run {}?", sel.item.label);
            let run = Pending {
                confirmed: true,
                ..p
            };
            self.popup = Some(Popup::Confirm(Confirm::warnings(title, &lines, run)));
            return None;
        }
        if p.how == How::Watch {
            self.begin_watch(&sel.item, warned);
            return None;
        }
        if p.rerun {
            self.reruns.set_confirmed(&sel.item.id, warned);
        }
        if !p.asked {
            let asked = frontend::questions(self.engine.workspace(), &sel);
            if !asked.is_empty() {
                let run = Pending { asked: true, ..p };
                let form = Params::new(sel.item.label.clone(), asked, run);
                self.popup = Some(Popup::Params(form));
                return None;
            }
        }
        let planned = match runs::plan(self.engine.workspace(), &sel, None) {
            Ok(pl) => pl,
            Err(e) => {
                self.say(e.to_string(), Level::Error);
                return None;
            }
        };
        if let Some(id) = p.restart.filter(|&id| self.still_running(id)) {
            self.say(format!("stopping run {id}…"), Level::Info);
            let root = self.engine.root().to_path_buf();
            worker::stop_then_start(root, id, Box::new(planned), p.how, self.tx.clone());
            return None;
        }
        self.launch(planned, p.how)
    }

    /// Starts a planned run `how`: here (the loop suspends the UI), in the background or in a
    /// window.
    fn launch(&mut self, planned: Planned, how: How) -> Option<Effect> {
        self.states.soon();
        match how {
            How::Here | How::Debug => return Some(Effect::Foreground(Box::new(planned))),
            How::Background => self.start_background(&planned),
            How::Window => self.start_window(&planned),
            How::Watch => {}
        }
        None
    }

    /// `W`: the selected command reruns in the background when its files change (its warnings
    /// confirmed first), or stops doing so.
    fn toggle_watch(&mut self) -> Option<Effect> {
        let c = self.selected_command()?;
        let (id, label) = (c.id.clone(), c.label.clone());
        if self.reruns.remove(&id) {
            self.states.set_watched(&id, false);
            self.say(format!("{label}: rerun on change off"), Level::Info);
            return None;
        }
        self.start(Pending::new(Target::Query(id), How::Watch, Vec::new()))
    }

    /// Watches what `item` depends on (the engine's folders and rules, as `ct run --watch`).
    fn begin_watch(&mut self, item: &CommandItem, confirmed: Option<Vec<String>>) {
        let Some(loaded) = self.loaded.as_ref() else {
            return;
        };
        let folders = rerun::folders(loaded, item);
        let (tx, id) = (self.tx.clone(), item.id.clone());
        let started = rerun::Watching::start(self.engine.workspace(), folders, move |files| {
            let _ = tx.send(Msg::FilesChanged(id.clone(), files));
        });
        match started {
            Ok(w) => {
                self.reruns.add(item.id.clone(), w, confirmed);
                self.states.set_watched(&item.id, true);
                let n = self.reruns.folders(&item.id);
                let folders = if n == 1 { "folder" } else { "folders" };
                self.say(
                    format!(
                        "{} reruns in the background when its files change ({n} {folders} \
                         watched; {} again stops)",
                        item.label,
                        tree_key(Action::WatchToggle)
                    ),
                    Level::Info,
                );
            }
            Err(e) => self.say(e.to_string(), Level::Error),
        }
    }

    /// Files of a command that reruns on change changed: its run going on is stopped and it
    /// starts again in the background, as its newest run ran (same values), through the gate.
    /// While a popup is open the rerun waits for it to close.
    fn files_changed(&mut self, id: String, files: Vec<PathBuf>) -> Option<Effect> {
        if !self.reruns.is_on(&id) {
            return None;
        }
        let Some(label) = self
            .commands()
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.label.clone())
        else {
            self.reruns.remove(&id);
            self.states.set_watched(&id, false);
            self.say(
                "a command that reran on change is gone; its files are not watched any more",
                Level::Warn,
            );
            return None;
        };
        if self.popup.is_some() || !self.fresh {
            self.reruns.postpone(&id);
            return None;
        }
        let ws = self.engine.workspace();
        // The history as it is now: the state read each second may not have a run started
        // a moment ago.
        let going = self
            .loaded
            .as_mut()
            .and_then(|l| runs::running(ws, &mut l.store).ok())
            .and_then(|rs| rs.into_iter().find(|r| r.command_id == id));
        let newest = going.as_ref().or_else(|| self.states.of(&id));
        let target = newest.map_or_else(|| Target::Query(id.clone()), |r| Target::Run(r.run_id));
        let mut p = Pending::new(target, How::Background, Vec::new());
        p.rerun = true;
        p.restart = going.map(|r| r.run_id);
        let first = files
            .first()
            .map(|f| self.rel(&f.to_string_lossy()))
            .unwrap_or_default();
        let more = match files.len() {
            0 | 1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        self.say(format!("{first}{more} changed: {label} again"), Level::Info);
        self.start(p)
    }

    /// The reruns that waited for a popup to close.
    fn rerun_due(&mut self) -> Option<Effect> {
        for id in self.reruns.take_due() {
            if let Some(e) = self.files_changed(id, Vec::new()) {
                return Some(e);
            }
        }
        None
    }

    fn start_window(&mut self, planned: &Planned) {
        let ws = self.engine.workspace();
        let Some(loaded) = self.loaded.as_mut() else {
            return;
        };
        let Some(w) = runs::new_window(ws) else {
            self.say(
                "no tmux or $TERMINAL here: running in the background instead",
                Level::Warn,
            );
            return self.start_background(planned);
        };
        match runs::start_window(ws, &mut loaded.store, planned, &w) {
            Ok(s) => {
                self.say(
                    format!("{} opened in a new {} window", planned.item.label, s.mode),
                    Level::Info,
                );
                self.refresh_history();
            }
            Err(e) => self.say(e.to_string(), Level::Error),
        }
    }

    fn start_background(&mut self, planned: &Planned) {
        let ws = self.engine.workspace();
        let Some(loaded) = self.loaded.as_mut() else {
            return;
        };
        match runs::start_detached(ws, &mut loaded.store, planned) {
            Ok(s) => {
                let log = s.log.as_ref().and_then(|p| {
                    runs::open_log(
                        ws,
                        &Run {
                            run_id: s.run_id.unwrap_or(0),
                            command_id: planned.item.id.clone(),
                            label: planned.item.label.clone(),
                            command_line: String::new(),
                            cwd: String::new(),
                            started_at: String::new(),
                            duration_ms: None,
                            exit_code: None,
                            mode: s.mode.to_string(),
                            status: "running".into(),
                            pid: None,
                            log_path: Some(p.to_string_lossy().into_owned()),
                            request: String::new(),
                        },
                    )
                    .ok()
                });
                let label = planned.item.label.clone();
                self.runs.push(BgRun::new(s.run_id, label.clone(), log));
                let run = s.run_id.map(|i| format!(" (run {i})")).unwrap_or_default();
                self.say(
                    format!("{label} started in the background{run}"),
                    Level::Info,
                );
                self.refresh_history();
            }
            Err(e) => self.say(e.to_string(), Level::Error),
        }
    }

    /// Whether run `id` is still going on, as the history says now.
    fn still_running(&mut self, id: i64) -> bool {
        let ws = self.engine.workspace();
        self.loaded
            .as_mut()
            .and_then(|l| runs::get(ws, &mut l.store, id).ok())
            .is_some_and(|r| !runs::is_over(&r))
    }

    /// `x` in the tree: the selected command's run going on (started here or anywhere else),
    /// else the runs pane's selected run.
    fn stop_selected_run(&mut self) {
        let running = self
            .selected_command()
            .and_then(|c| self.states.running_run(&c.id))
            .map(|r| r.run_id);
        match running {
            Some(id) => {
                self.say(format!("stopping run {id}…"), Level::Info);
                worker::stop(self.engine.root().to_path_buf(), id, self.tx.clone());
            }
            None => self.stop_pane_run(),
        }
    }

    /// `X` in the tree: the selected command's run going on, else its newest run, again.
    fn restart_selected(&mut self) -> Option<Effect> {
        let c = self.selected_command()?;
        let Some(r) = self.states.of(&c.id) else {
            let run = tree_key(Action::Run);
            self.say(
                format!("{} has not run yet ({run} runs it)", c.label),
                Level::Info,
            );
            return None;
        };
        let id = r.run_id;
        self.restart(id)
    }

    /// Run `id` again as it ran (its command, values and mode), gated as any run; stopped
    /// first if it still goes on.
    fn restart(&mut self, id: i64) -> Option<Effect> {
        if !self.ready() {
            return None;
        }
        let ws = self.engine.workspace();
        let run = match runs::get(ws, &mut self.loaded.as_mut()?.store, id) {
            Ok(r) => r,
            Err(e) => {
                self.say(e.to_string(), Level::Error);
                return None;
            }
        };
        let how = match run.mode.as_str() {
            commandtree_exec::history::mode::DETACHED => How::Background,
            commandtree_exec::history::mode::TMUX | commandtree_exec::history::mode::TERMINAL => {
                How::Window
            }
            _ => How::Here,
        };
        let mut p = Pending::new(Target::Run(id), how, Vec::new());
        p.restart = (!runs::is_over(&run)).then_some(id);
        self.start(p)
    }

    /// Reads the problems of a run's output on a thread; the list opens when they are in.
    fn show_problems(&mut self, which: Which) {
        self.say("reading the run's output…", Level::Info);
        worker::read_problems(self.engine.root().to_path_buf(), which, self.tx.clone());
    }

    fn problems_found(&mut self, found: RunProblems) {
        self.status.message = None;
        self.popup = Some(Popup::Problems(ProblemList::new(&found)));
    }

    /// `d`: what the selected command runs and what runs it.
    fn show_deps(&mut self) {
        let Some(c) = self.selected_command() else {
            return;
        };
        let d = commandtree_engine::deps::of(self.commands(), c);
        self.popup = Some(Popup::Deps(DepsView::new(&d, self.engine.root())));
    }

    /// Selects command `id` in the tree (where the filters show it).
    fn go_to_command(&mut self, id: &str) {
        let commands = commands_of(&self.loaded);
        let Some(i) = commands.iter().position(|c| c.id == id) else {
            return;
        };
        let label = commands[i].label.clone();
        let row = RowId::Command(crate::rows::Place::Tree, id.to_string());
        if !self.tree.select_id(&row, commands) {
            let clear = tree_key(Action::ClearFilters);
            self.say(
                format!("{label} is not shown in the tree ({clear} clears the filters)"),
                Level::Info,
            );
        }
    }

    /// `x` in the runs pane (and in the tree on a command that does not run): its selected
    /// background run.
    fn stop_pane_run(&mut self) {
        let Some(r) = self.runs.selected() else {
            let start = tree_key(Action::RunBackground);
            self.say(
                format!("no background run to stop ({start} starts one)"),
                Level::Info,
            );
            return;
        };
        let (Some(id), true) = (r.run_id, r.running()) else {
            self.say(format!("{} is not running", r.label), Level::Info);
            return;
        };
        self.say(format!("stopping run {id}…"), Level::Info);
        worker::stop(self.engine.root().to_path_buf(), id, self.tx.clone());
    }

    /// Background runs after a stop, and what a foreground run left in the history.
    pub fn after_stop(&mut self, id: i64, result: Result<String, String>) {
        self.states.soon();
        match result {
            Ok(status) => {
                self.runs.stopped(id, status);
                self.say(format!("run {id} stopped"), Level::Info);
            }
            Err(e) => self.say(e, Level::Error),
        }
        self.refresh_history();
    }

    // ---- tags ---------------------------------------------------------------------------------

    /// The selected command, once discovery's commands are in (for a write).
    fn selected_for_write(&mut self) -> Option<CommandItem> {
        let c = self.selected_command()?.clone();
        self.ready().then_some(c)
    }

    /// Says how a tag write went, then shows the commands with their tags again.
    fn tags_written(&mut self, said: Result<String, commandtree_engine::Error>) {
        match said {
            Ok(m) => self.say(m, Level::Info),
            Err(e) => self.say(e.to_string(), Level::Error),
        }
        self.commands_changed(true);
    }

    fn star(&mut self) {
        let Some(c) = self.selected_for_write() else {
            return;
        };
        let Some(loaded) = self.loaded.as_mut() else {
            return;
        };
        let starred = c.tags.iter().any(|t| t == commandtree_store::QUICK_TAG);
        let r = if starred {
            tags::unstar(loaded, &c.id).map(|_| format!("{} left Quick Launch", c.label))
        } else {
            loaded
                .writable_or_create()
                .map(|_| ())
                .and_then(|_| tags::star(loaded, &c.id))
                .map(|_| format!("{} is in Quick Launch", c.label))
        };
        let _ = loaded.refresh_tags(&[c.id.as_str()]);
        self.tags_written(r);
    }

    fn quick_move(&mut self, d: isize) {
        let Some(c) = self.selected_for_write() else {
            return;
        };
        let commands = self.commands();
        let Some(pos) = self.tree.quick.iter().position(|&q| commands[q].id == c.id) else {
            let (down, up, star) = (
                tree_key(Action::QuickDown),
                tree_key(Action::QuickUp),
                tree_key(Action::Star),
            );
            self.say(
                format!("{down}/{up} move commands inside Quick Launch ({star} stars one)"),
                Level::Info,
            );
            return;
        };
        let to = (pos as isize + d).clamp(0, self.tree.quick.len() as isize - 1) as usize;
        let Some(loaded) = self.loaded.as_mut() else {
            return;
        };
        if let Err(e) = tags::quick_move(loaded, &c.id, to) {
            self.say(e.to_string(), Level::Error);
        }
        self.commands_changed(true);
    }

    fn pick_tag_filter(&mut self) {
        let names: Vec<String> = match self.loaded.as_ref().map(tags::list) {
            Some(Ok(list)) => list
                .into_iter()
                .filter(|t| !t.commands.is_empty())
                .map(|t| t.name)
                .collect(),
            _ => Vec::new(),
        };
        if names.is_empty() {
            let add = tree_key(Action::AddTag);
            self.say(
                format!("no tags yet ({add} adds one to the selected command)"),
                Level::Info,
            );
            return;
        }
        let p = Picker::new("Filter by tag".into(), names, PickFor::TagFilter);
        self.popup = Some(Popup::Pick(p));
    }

    fn pick_tag_to_remove(&mut self) {
        let Some(c) = self.selected_command() else {
            return;
        };
        if c.tags.is_empty() {
            self.say(format!("{} has no tags", c.label), Level::Info);
            return;
        }
        let title = format!("Remove a tag from {}", c.label);
        let p = Picker::new(title, c.tags.clone(), PickFor::RemoveTag(c.id.clone()));
        self.popup = Some(Popup::Pick(p));
    }

    fn input_done(&mut self, value: String, purpose: InputFor) -> Option<Effect> {
        match purpose {
            InputFor::Search => {
                let q = value.trim().to_string();
                if q.is_empty() || !self.ready() {
                    return None;
                }
                let commands = self.loaded.as_ref()?.commands.clone();
                self.job(format!("searching “{q}”…"), |root, token, tx| {
                    worker::search(root, commands, q, token, tx)
                });
                None
            }
            InputFor::AddTag(id) => {
                let tag = value.trim().to_string();
                if tag.is_empty() || !self.ready() {
                    return None;
                }
                let loaded = self.loaded.as_mut()?;
                let r = loaded
                    .writable_or_create()
                    .map(|_| ())
                    .and_then(|_| tags::add(loaded, &id, std::slice::from_ref(&tag)));
                let _ = loaded.refresh_tags(&[id.as_str()]);
                self.tags_written(r.map(|(c, _)| format!("{} tagged {tag}", c.label)));
                None
            }
            InputFor::Args(id) => match commandtree_exec::quote::split_words(&value) {
                Ok(extra) => self.start(Pending::new(Target::Query(id), How::Here, extra)),
                Err(e) => {
                    self.say(e.to_string(), Level::Error);
                    None
                }
            },
        }
    }

    fn picked(&mut self, sel: usize, item: String, purpose: PickFor) {
        match purpose {
            // By position: two skills may share a display name.
            PickFor::CommandSkill(command, ids) => {
                if let Some(skill) = ids.get(sel) {
                    self.propose_command_skill(&command, skill.clone());
                }
            }
            PickFor::TagFilter => {
                let clear = tree_key(Action::ClearFilters);
                self.say(format!("tag {item} — {clear} clears"), Level::Info);
                self.filter.tag = Some(item);
                self.refilter(true);
            }
            PickFor::RemoveTag(id) => {
                if !self.ready() {
                    return;
                }
                let root = self.engine.root().to_path_buf();
                let Some(loaded) = self.loaded.as_mut() else {
                    return;
                };
                let r = tags::remove(loaded, &id, std::slice::from_ref(&item));
                let _ = loaded.refresh_tags(&[id.as_str()]);
                self.tags_written(r.map(|(label, rm)| {
                    let note = rm
                        .first()
                        .and_then(|r| r.from_config.as_ref())
                        .map(|p| {
                            format!(" ({} still assigns it)", rel(&root, &p.to_string_lossy()))
                        })
                        .unwrap_or_default();
                    format!("{label}: {item} removed{note}")
                }));
            }
        }
    }

    // ---- summaries, search, command skills ------------------------------------------------------

    fn summarize(&mut self) {
        if self.status.cancel() || !self.ready() {
            return;
        }
        let Some(l) = self.loaded.as_ref() else {
            return;
        };
        let only: Vec<String> = match self.selected_command() {
            // Summarize what the filter shows.
            Some(_) if self.filter.narrowed() => self
                .filter
                .shown(l.commands.len())
                .into_iter()
                .map(|i| l.commands[i].id.clone())
                .collect(),
            Some(c) => vec![c.id.clone()],
            None => Vec::new(),
        };
        let commands = l.commands.clone();
        self.job("summarizing…".into(), |root, token, tx| {
            worker::summarize(root, commands, only, token, tx)
        });
    }

    /// Background work on a thread, saying `doing` until it answers; `work` gets the root,
    /// the token that cancels it and where to answer.
    fn job(&mut self, doing: String, work: impl FnOnce(PathBuf, CancelToken, Sender<Msg>)) {
        let token = self.status.start(doing);
        work(self.engine.root().to_path_buf(), token, self.tx.clone());
    }

    fn refresh(&mut self) {
        self.status.progress = Some("discovering commands…".into());
        let watch = self.live.take().is_some();
        worker::load(self.engine.root().to_path_buf(), self.tx.clone(), watch);
    }

    /// `m`: the workspace's command skills for the selected command; pressed again while the
    /// model is answering, it cancels.
    fn pick_command_skill(&mut self) {
        if self.status.cancel() {
            return;
        }
        let Some(c) = self.selected_command() else {
            return;
        };
        let (id, label) = (c.id.clone(), c.label.clone());
        let (skills, warnings) = commandtree_skills::command_skill::discover(self.engine.root());
        if skills.is_empty() {
            let dir = commandtree_skills::command_skill::dir(self.engine.root());
            let why = warnings
                .first()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            self.say(
                format!(
                    "no command skills: add markdown files to {}{why}",
                    self.rel(&dir.to_string_lossy())
                ),
                Level::Info,
            );
            return;
        }
        let p = Picker::new(
            format!("Command skill for {}", clean(&label)),
            skills.iter().map(|s| clean(&s.name)).collect(),
            PickFor::CommandSkill(id, skills.into_iter().map(|s| s.id).collect()),
        );
        self.popup = Some(Popup::Pick(p));
    }

    fn propose_command_skill(&mut self, command: &str, skill: String) {
        if !self.ready() {
            return;
        }
        let Some(item) = self.commands().iter().find(|c| c.id == command).cloned() else {
            return;
        };
        let doing = format!(
            "asking the model to apply {skill} to {}… ({} cancels)",
            item.label,
            tree_key(Action::CommandSkill)
        );
        self.job(doing, |root, token, tx| {
            worker::propose_command_skill(root, item, skill, token, tx)
        });
    }

    /// A proposal arrived: its diff to confirm, or why there is none.
    pub fn proposed(&mut self, skill: String, r: Result<Proposal, String>) {
        match r {
            Err(e) if e == "cancelled" => self.say("cancelled", Level::Info),
            Err(e) => self.say(format!("{skill}: {e}"), Level::Error),
            Ok(p) if !p.changed() => {
                let rel = self.rel(&p.path.to_string_lossy());
                self.say(format!("{skill} proposed no changes to {rel}"), Level::Info);
            }
            Ok(p) => {
                let rel = self.rel(&p.path.to_string_lossy());
                let lines = p.diff(self.engine.root()).lines().map(clean).collect();
                let c = Confirm::diff(format!("{skill} → {rel}"), lines, Box::new(p));
                self.popup = Some(Popup::Proposal(c));
            }
        }
    }

    fn apply_proposal(&mut self, p: &Proposal) {
        let rel = self.rel(&p.path.to_string_lossy());
        let applied = commandtree_skills::Session::new(&self.engine).apply(p);
        match applied {
            Ok(_) => self.say(format!("applied to {rel}"), Level::Info),
            Err(e) => self.say(e.to_string(), Level::Error),
        }
    }

    // ---- mouse ----------------------------------------------------------------------------------

    pub fn mouse(&mut self, m: MouseEvent) -> Option<Effect> {
        if self.popup.is_some() {
            return None;
        }
        match self.with_tree(|t, s| t.mouse(m, s)) {
            Click::Run => self.enter(),
            Click::Nothing => None,
        }
    }
}

/// Whether `new` draws the same tree as `old`, command for command at the same indexes (only
/// what the database or the findings add may differ).
fn same_tree(old: &[CommandItem], new: &[CommandItem]) -> bool {
    old.len() == new.len()
        && old.iter().zip(new).all(|(a, b)| {
            a.id == b.id
                && a.label == b.label
                && a.kind == b.kind
                && a.category == b.category
                && a.command == b.command
                && a.cwd == b.cwd
                && a.file_path == b.file_path
                && a.description == b.description
                && a.auxiliary == b.auxiliary
                && a.hidden == b.hidden
                && a.private == b.private
        })
}

pub fn order_name(o: SortOrder) -> &'static str {
    match o {
        SortOrder::Folder => "folder",
        SortOrder::Name => "name",
        SortOrder::Type => "type",
    }
}
