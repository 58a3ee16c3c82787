//! The UI's state and what each key does. No terminal here: keys come in, the state changes,
//! and what needs the terminal itself (a foreground run, the editor, the clipboard, quitting)
//! goes back to the loop as an [`Effect`]. Slow work goes to threads that answer with a
//! [`Msg`]; nothing here waits on them.

use crate::rows::{self, Folding, Place, Row, RowId, RowKind, Section};
use crate::worker::{self, Msg};
use commandtree_core::tree::Category;
use commandtree_core::{CommandItem, ParamDef, SortOrder};
use commandtree_engine::frontend::{self, Preview};
use commandtree_engine::runs::{self, Planned, RunRequest, Target};
use commandtree_engine::tags;
use commandtree_engine::{Engine, Loaded};
use commandtree_engine::{gate, listing};
use commandtree_exec::history::Run;
use commandtree_exec::params::Values;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32String};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

/// What the loop does for the app, with the terminal.
#[derive(Debug)]
pub enum Effect {
    Quit,
    /// Suspend the UI and run this in the terminal; "exit N — press a key" after.
    Foreground(Box<Planned>),
    /// Open the file at the line in `$VISUAL`/`$EDITOR`.
    Edit(PathBuf, Option<u32>),
    /// Put text on the clipboard (OSC 52).
    Copy(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    Here,
    Background,
    Window,
    Debug,
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
}

#[derive(Debug, Clone)]
pub struct Field {
    pub param: ParamDef,
    pub value: String,
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

#[derive(Debug, Clone)]
pub enum Popup {
    Help,
    Details,
    Confirm {
        title: String,
        lines: Vec<String>,
        run: Pending,
    },
    Form {
        label: String,
        fields: Vec<Field>,
        focus: usize,
        run: Pending,
    },
    Input {
        title: String,
        value: String,
        purpose: InputFor,
    },
    Pick {
        title: String,
        items: Vec<String>,
        sel: usize,
        purpose: PickFor,
    },
    /// A command skill's proposed change as a unified diff; `y` writes it, `n` or Esc does not.
    Diff {
        title: String,
        lines: Vec<String>,
        scroll: usize,
        proposal: Box<commandtree_skills::command_skill::Proposal>,
    },
    Quit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// A background run started here, with its output read as it grows.
pub struct BgRun {
    pub run_id: Option<i64>,
    pub label: String,
    pub status: String,
    pub exit: Option<i32>,
    pub lines: Vec<String>,
    partial: String,
    log: Option<std::fs::File>,
}

const MAX_LOG_LINES: usize = 2000;

impl BgRun {
    fn read(&mut self) {
        let Some(f) = self.log.as_mut() else { return };
        let mut buf = Vec::new();
        if f.read_to_end(&mut buf).is_err() || buf.is_empty() {
            return;
        }
        self.partial.push_str(&String::from_utf8_lossy(&buf));
        while let Some(at) = self.partial.find('\n') {
            let line: String = self.partial[..at].trim_end_matches('\r').to_string();
            self.lines.push(clean(&line));
            self.partial.drain(..=at);
        }
        if self.lines.len() > MAX_LOG_LINES {
            let cut = self.lines.len() - MAX_LOG_LINES;
            self.lines.drain(..cut);
        }
    }
    pub fn running(&self) -> bool {
        self.exit.is_none() && self.status == "running"
    }
    /// The lines, with an unfinished last one.
    pub fn tail(&self, n: usize) -> Vec<String> {
        let mut all: Vec<String> = self.lines.clone();
        if !self.partial.is_empty() {
            all.push(clean(&self.partial));
        }
        let from = all.len().saturating_sub(n);
        all.split_off(from)
    }
}

/// A log line without escape sequences or control characters, which would move the cursor or
/// recolour the UI.
fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ ... final byte in @..~; other escapes: ESC + one char.
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            } else {
                chars.next();
            }
        } else if c == '\t' {
            out.push_str("    ");
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

/// What the details pane shows for one command, computed once per selection.
#[derive(Clone, Debug, Default)]
pub struct Details {
    pub id: String,
    /// The line that runs, as `cd <folder> && <command>` (folder relative to the root).
    pub line: String,
    /// The full line with the absolute folder, for the clipboard.
    pub copy: String,
    pub preview: Option<Preview>,
}

pub struct App {
    pub engine: Engine,
    pub name: String,
    pub loaded: Option<Loaded>,
    pub load_error: Option<String>,
    pub load_started: Instant,
    pub tree: Vec<Category>,
    pub order: SortOrder,
    pub quick: Vec<usize>,
    pub history: Vec<Run>,
    pub rows: Vec<Row>,
    pub sel: usize,
    pub scroll: usize,
    pub folding: Folding,
    pub filter: String,
    pub filtering: bool,
    pub tag_filter: Option<String>,
    pub show_aux: bool,
    /// Documents are listed (`[discovery] docs = true`).
    pub show_docs: bool,
    pub search: Option<(String, Vec<(usize, f32)>)>,
    pub popup: Option<Popup>,
    pub runs_pane: bool,
    pub runs_focus: bool,
    pub runs_sel: usize,
    pub bg: Vec<BgRun>,
    pub message: Option<(String, Level)>,
    pub progress: Option<String>,
    pub busy: Option<commandtree_core::CancelToken>,
    /// How many different warnings (settings, discovery, database) there are.
    pub warnings: usize,
    /// Those warnings: the watcher repeats the load's when it starts, and says a lasting
    /// problem again on each change.
    seen_warnings: HashSet<String>,
    /// The commands are discovery's, not the snapshot from the last session.
    pub fresh: bool,
    /// How many commands the default listing shows and hides (`listing::Counts`, the split
    /// `ct list` prints).
    counts: listing::Counts,
    pub details: Option<Details>,
    /// Where the list was drawn, for the mouse.
    pub list_area: Rect,
    pub last_click: Option<(Instant, usize)>,
    pub color: bool,
    pub tx: Sender<Msg>,
    /// The live index keeping the list current (none with live updates off).
    pub live: Option<Arc<commandtree_engine::Live>>,
    haystacks: Vec<Utf32String>,
    /// Commands passing the filters, by index; `None`: all.
    visible: Option<Vec<bool>>,
    /// The commands the text filter matched, and that filter.
    matched: Option<(String, Vec<usize>)>,
    /// The visible command that matches the text filter best (highest score, then the shorter
    /// label): typing selects it, so Enter runs what the user was typing.
    best: Option<usize>,
    matcher: Matcher,
    /// The filter's parsed pattern, for highlighting the rows on screen.
    pattern: Option<(String, Pattern)>,
    last_tick: Instant,
}

impl App {
    pub fn new(engine: Engine, tx: Sender<Msg>) -> App {
        let name = engine
            .root()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| engine.root().display().to_string());
        let order = engine.workspace().settings.sort_order;
        let seen_warnings: HashSet<String> = engine
            .settings_warnings()
            .iter()
            .map(|w| w.to_string())
            .collect();
        let show = listing::Show::of(&engine, false, false);
        let (show_aux, show_docs) = (show.all, show.docs);
        App {
            engine,
            name,
            loaded: None,
            load_error: None,
            load_started: Instant::now(),
            tree: Vec::new(),
            order,
            quick: Vec::new(),
            history: Vec::new(),
            rows: Vec::new(),
            sel: 0,
            scroll: 0,
            folding: Folding::default(),
            filter: String::new(),
            filtering: false,
            tag_filter: None,
            show_aux,
            show_docs,
            search: None,
            popup: None,
            runs_pane: false,
            runs_focus: false,
            runs_sel: 0,
            bg: Vec::new(),
            message: None,
            progress: Some("discovering commands…".into()),
            busy: None,
            warnings: seen_warnings.len(),
            seen_warnings,
            fresh: false,
            counts: listing::Counts::default(),
            details: None,
            list_area: Rect::default(),
            last_click: None,
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            tx,
            live: None,
            haystacks: Vec::new(),
            visible: None,
            matched: None,
            best: None,
            matcher: Matcher::new(Config::DEFAULT),
            pattern: None,
            last_tick: Instant::now(),
        }
    }

    pub fn commands(&self) -> &[CommandItem] {
        self.loaded.as_ref().map_or(&[], |l| &l.commands)
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.rows.get(self.sel)
    }

    pub fn selected_command(&self) -> Option<&CommandItem> {
        let idx = self.selected_row()?.command()?;
        self.commands().get(idx)
    }

    /// Commands `ct list` leaves out without `--all` (auxiliary, or hidden by their tool),
    /// hidden now.
    /// How many commands are listed now and how many `a` would add, as `ct list` counts them.
    pub fn counts(&self) -> listing::Counts {
        if self.show_aux {
            listing::Counts {
                shown: self.commands().len(),
                ..Default::default()
            }
        } else {
            self.counts
        }
    }

    pub fn running(&self) -> usize {
        self.bg.iter().filter(|r| r.running()).count()
    }

    pub fn say(&mut self, text: impl Into<String>, level: Level) {
        self.message = Some((text.into(), level));
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
            self.seen_warnings.insert(w.to_string());
        }
        self.warnings = self.seen_warnings.len();
        self.loaded = Some(loaded);
        self.fresh = true;
        self.progress = None;
        if same {
            // Only notes changed (the findings of an early load, tags): the tree, the filter
            // text and the indexes all hold.
            self.rebuild_quick();
            self.details = None;
            self.refilter_keeping(keep);
        } else {
            self.commands_replaced(keep);
        }
        // Ready before the first `/`, so typing the first letter only matches. (Not for a
        // provisional tree: its first frame should not wait.)
        self.ensure_haystacks();
        self.refresh_history();
        if first && let Some(i) = self.rows.iter().position(|r| r.command().is_some()) {
            self.sel = i;
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
        self.haystacks.clear();
        self.fresh = false;
        self.progress = Some(doing.into());
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

    fn warning(&mut self, w: commandtree_core::Warning) {
        self.seen_warnings.insert(w.to_string());
        self.warnings = self.seen_warnings.len();
    }

    /// What the selected row is, to find it again after a rebuild.
    pub fn selected_id(&self) -> Option<RowId> {
        let row = self.selected_row()?;
        if row.command().is_some_and(|i| i >= self.commands().len()) {
            return None;
        }
        Some(RowId::of(row, self.commands()))
    }

    /// Rebuilds what depends on the commands (their tags, summaries or order changed; the same
    /// commands at the same indexes), keeping the selection.
    pub fn commands_changed(&mut self, structure: bool) {
        let keep = self.selected_id();
        if structure {
            self.rebuild_tree();
        }
        self.details = None;
        self.refilter_keeping(keep);
    }

    /// As `commands_changed`, after the list of commands itself was replaced: `keep` was taken
    /// before, while the rows still matched the commands.
    fn commands_replaced(&mut self, keep: Option<RowId>) {
        self.rebuild_tree();
        self.details = None;
        self.refilter_keeping(keep);
    }

    fn rebuild_tree(&mut self) {
        let commands = self.loaded.as_ref().map_or(&[][..], |l| &l.commands[..]);
        self.tree = self.engine.tree(commands, Some(self.order));
        // Made again when the filter next needs them.
        self.haystacks.clear();
        self.counts = listing::Counts::of(
            commands,
            listing::Show {
                all: false,
                docs: self.show_docs,
            },
        );
        self.matched = None;
        self.best = None;
        self.rebuild_quick();
        if let Some((q, _)) = self.search.take() {
            self.search = Some((q, Vec::new()));
        }
    }

    /// What the text filter looks at, per command: label, command line, description.
    fn ensure_haystacks(&mut self) {
        let commands = self.loaded.as_ref().map_or(&[][..], |l| &l.commands[..]);
        if self.haystacks.len() == commands.len() {
            return;
        }
        self.haystacks = commands
            .iter()
            .map(|c| {
                let mut h = c.label.clone();
                h.push(' ');
                h.push_str(&c.command);
                if let Some(d) = &c.description {
                    h.push(' ');
                    h.push_str(d);
                }
                Utf32String::from(h)
            })
            .collect();
    }

    fn rebuild_quick(&mut self) {
        let commands = self.loaded.as_ref().map_or(&[][..], |l| &l.commands[..]);
        self.quick = match self.loaded.as_ref().map(tags::quick) {
            Some(Ok(q)) => {
                let at: HashMap<&str, usize> = commands
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (c.id.as_str(), i))
                    .collect();
                q.iter()
                    .filter_map(|c| at.get(c.id.as_str()).copied())
                    .collect()
            }
            _ => Vec::new(),
        };
    }

    /// Applies the text, tag and auxiliary filters and rebuilds the rows. While typing
    /// (`select_first`) the first match is selected; otherwise the selection stays.
    fn refilter(&mut self, select_first: bool) {
        if select_first {
            self.apply_filters();
            self.rebuild_rows();
            let best = self.best.filter(|_| !self.filter.is_empty());
            let best_row = best.and_then(|b| {
                self.rows
                    .iter()
                    .position(|r| r.command() == Some(b) && r.place() == Some(Place::Tree))
                    .or_else(|| self.rows.iter().position(|r| r.command() == Some(b)))
            });
            if let Some(i) = best_row.or_else(|| {
                self.rows
                    .iter()
                    .position(|r| r.place() == Some(Place::Tree))
                    .or_else(|| self.rows.iter().position(|r| r.command().is_some()))
            }) {
                self.sel = i;
            }
            self.clamp();
        } else {
            let keep = self.selected_id();
            self.refilter_keeping(keep);
        }
    }

    fn refilter_keeping(&mut self, keep: Option<RowId>) {
        self.apply_filters();
        self.rebuild_rows();
        if let Some(k) = keep {
            self.select_id(&k);
        }
        self.clamp();
    }

    /// Which commands pass the filters. Commands `ct list` leaves out without `--all` stay out
    /// unless `a` shows them. The text filter is matched against every command once; a filter
    /// that only grew (one more letter typed) is matched against the previous matches alone.
    fn apply_filters(&mut self) {
        let text = !self.filter.is_empty();
        if text {
            self.ensure_haystacks();
        }
        let commands = self.loaded.as_ref().map_or(&[][..], |l| &l.commands[..]);
        if !text
            && self.tag_filter.is_none()
            && (self.show_aux || self.counts.shown == commands.len())
        {
            self.visible = None;
            self.matched = None;
            self.best = None;
            return;
        }
        let mut visible = self.visible.take().unwrap_or_default();
        visible.clear();
        visible.resize(commands.len(), false);
        let passes = |c: &CommandItem| {
            listing::shown(
                c,
                listing::Show {
                    all: self.show_aux,
                    docs: self.show_docs,
                },
            ) && self.tag_filter.as_ref().is_none_or(|t| c.tags.contains(t))
        };
        if text {
            if self.pattern.as_ref().is_none_or(|(f, _)| *f != self.filter) {
                let p = Pattern::parse(&self.filter, CaseMatching::Smart, Normalization::Smart);
                self.pattern = Some((self.filter.clone(), p));
            }
            let Some((_, pattern)) = &self.pattern else {
                return;
            };
            let narrower = self
                .matched
                .take()
                .filter(|(before, _)| narrows(before, &self.filter));
            let mut matched = Vec::new();
            let mut scores = Vec::new();
            let mut try_one = |i: usize| {
                if let Some(score) = pattern.score(self.haystacks[i].slice(..), &mut self.matcher) {
                    matched.push(i);
                    scores.push(score);
                }
            };
            match narrower {
                Some((_, before)) => before.into_iter().for_each(&mut try_one),
                None => (0..commands.len()).for_each(&mut try_one),
            }
            let mut best: Option<(u32, usize)> = None;
            for (&i, &score) in matched.iter().zip(&scores) {
                visible[i] = passes(&commands[i]);
                let better = best.is_none_or(|(s, b)| {
                    score > s
                        || (score == s
                            && commands[i].label.chars().count()
                                < commands[b].label.chars().count())
                });
                if visible[i] && better {
                    best = Some((score, i));
                }
            }
            self.best = best.map(|(_, i)| i);
            self.matched = Some((self.filter.clone(), matched));
        } else {
            self.matched = None;
            self.best = None;
            for (i, c) in commands.iter().enumerate() {
                visible[i] = passes(c);
            }
        }
        self.visible = Some(visible);
    }

    fn rebuild_rows(&mut self) {
        let commands = self.loaded.as_ref().map_or(&[][..], |l| &l.commands[..]);
        let text_filter = !self.filter.is_empty() || self.tag_filter.is_some();
        self.rows = rows::build(&rows::Inputs {
            commands,
            tree: &self.tree,
            quick: &self.quick,
            history_len: self.history.len(),
            folding: &self.folding,
            visible: self.visible.as_deref(),
            force_open: text_filter,
            search: self
                .search
                .as_ref()
                .map(|(q, h)| (q.as_str(), h.as_slice())),
        });
    }

    fn select_id(&mut self, id: &RowId) -> bool {
        let commands = self.loaded.as_ref().map_or(&[][..], |l| &l.commands[..]);
        match self.rows.iter().position(|r| id.is(r, commands)) {
            Some(i) => {
                self.sel = i;
                true
            }
            None => false,
        }
    }

    fn clamp(&mut self) {
        if self.sel >= self.rows.len() {
            self.sel = self.rows.len().saturating_sub(1);
        }
    }

    /// Character positions of the filter's match in `idx`'s label, for highlighting.
    pub fn match_positions(&mut self, idx: usize) -> Vec<u32> {
        if self.filter.is_empty() {
            return Vec::new();
        }
        self.ensure_haystacks();
        if idx >= self.haystacks.len() {
            return Vec::new();
        }
        if self.pattern.as_ref().is_none_or(|(f, _)| *f != self.filter) {
            let p = Pattern::parse(&self.filter, CaseMatching::Smart, Normalization::Smart);
            self.pattern = Some((self.filter.clone(), p));
        }
        let Some((_, p)) = &self.pattern else {
            return Vec::new();
        };
        let mut out = Vec::new();
        p.indices(self.haystacks[idx].slice(..), &mut self.matcher, &mut out);
        let n = self.commands()[idx].label.chars().count() as u32;
        out.retain(|&i| i < n);
        out.sort_unstable();
        out.dedup();
        out
    }

    pub fn refresh_history(&mut self) {
        let ws = self.engine.workspace();
        if let Some(l) = self.loaded.as_mut() {
            self.history = runs::history(ws, &mut l.store, 15).unwrap_or_default();
        }
        self.rebuild_rows();
        self.clamp();
    }

    /// The details of the selected command, computed when the selection changed.
    pub fn details(&mut self) -> Option<&Details> {
        let c = self.selected_command()?.clone();
        if self.details.as_ref().is_none_or(|d| d.id != c.id) {
            self.details = Some(self.make_details(&c));
        }
        self.details.as_ref()
    }

    fn make_details(&self, c: &CommandItem) -> Details {
        let root = self.engine.root();
        let rel = |p: &str| -> String {
            let path = std::path::Path::new(p);
            match path.strip_prefix(root) {
                Ok(r) if r.as_os_str().is_empty() => ".".into(),
                Ok(r) => r.display().to_string(),
                Err(_) => p.to_string(),
            }
        };
        let (line, copy) = match self.loaded.as_ref().and_then(|l| {
            let sel = runs::select(
                l,
                RunRequest {
                    target: Target::Query(c.id.clone()),
                    values: Values::new(),
                    extra: Vec::new(),
                    debug: false,
                },
            )
            .ok()?;
            runs::plan(self.engine.workspace(), &sel, None).ok()
        }) {
            Some(p) => {
                let cwd = p.runnable.cwd.to_string_lossy().into_owned();
                let mut shown = format!("cd {} && ", rel(&cwd));
                for (k, v) in &p.runnable.env {
                    shown.push_str(&format!("{k}={} ", commandtree_exec::quote::sh_quote(v)));
                }
                // Paths inside the workspace read relative to the folder the line `cd`s into,
                // so the line shown is one that works as typed from the root.
                shown.push_str(&relative_to_run_folder(
                    &p.runnable.script,
                    root,
                    &p.runnable.cwd,
                ));
                (shown, p.dry_run_text())
            }
            None => {
                let cwd = if c.cwd.is_empty() { "." } else { &c.cwd };
                (
                    format!(
                        "cd {} && {}",
                        rel(cwd),
                        relative_to_run_folder(&c.command, root, std::path::Path::new(cwd))
                    ),
                    format!(
                        "cd -- {} && {}",
                        commandtree_exec::quote::sh_quote(cwd),
                        c.command
                    ),
                )
            }
        };
        Details {
            id: c.id.clone(),
            line,
            copy,
            preview: frontend::preview(c),
        }
    }

    /// A path relative to the workspace root, for display.
    pub fn rel(&self, p: &str) -> String {
        let root = self.engine.root();
        match std::path::Path::new(p).strip_prefix(root) {
            Ok(r) if r.as_os_str().is_empty() => ".".into(),
            Ok(r) => r.display().to_string(),
            Err(_) => p.to_string(),
        }
    }

    // ---- background -----------------------------------------------------------------------

    pub fn message(&mut self, m: Msg) {
        match m {
            Msg::Cached(c) => self.cached(c),
            Msg::Early(c) => self.early(c),
            Msg::Loaded(Ok(l)) => self.loaded(*l),
            Msg::Loaded(Err(e)) => {
                self.progress = None;
                self.load_error = Some(e.clone());
                self.say(e, Level::Error);
            }
            Msg::Live(l) => self.live = Some(l),
            Msg::Stopped(id, r) => self.after_stop(id, r),
            Msg::Commands(all) => self.commands_changed_on_disk(all),
            Msg::Warning(w) => self.warning(w),
            Msg::Progress(p) => {
                if self.busy.is_some() {
                    self.progress = Some(p);
                }
            }
            Msg::Done(text, level) => {
                self.busy = None;
                self.progress = None;
                self.say(text, level);
                self.refresh_notes();
            }
            Msg::Proposed(skill, r) => {
                self.busy = None;
                self.progress = None;
                self.proposed(skill, r);
            }
            Msg::Found(query, hits) => {
                self.busy = None;
                self.progress = None;
                let commands = self.commands();
                let hits: Vec<(usize, f32)> = hits
                    .into_iter()
                    .filter_map(|(id, s)| Some((commands.iter().position(|c| c.id == id)?, s)))
                    .collect();
                self.say(
                    format!(
                        "{} result(s) for “{query}” — Esc returns to the tree",
                        hits.len()
                    ),
                    Level::Info,
                );
                self.search = Some((query, hits));
                self.rebuild_rows();
                self.sel = 1.min(self.rows.len().saturating_sub(1));
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

    /// Runs every ~250 ms: background runs' output and ends.
    pub fn tick(&mut self) -> bool {
        if self.last_tick.elapsed() < Duration::from_millis(250) {
            return false;
        }
        self.last_tick = Instant::now();
        let mut changed = false;
        let ws = self.engine.workspace();
        let mut ended = false;
        for r in self.bg.iter_mut() {
            let before = r.lines.len() + r.partial.len();
            r.read();
            changed |= r.lines.len() + r.partial.len() != before;
            if r.running()
                && let (Some(id), Some(l)) = (r.run_id, self.loaded.as_mut())
                && let Ok(run) = runs::get(ws, &mut l.store, id)
                && runs::is_over(&run)
            {
                r.read();
                r.status = run.status.clone();
                r.exit = run.exit_code;
                changed = true;
                ended = true;
            }
        }
        if ended {
            self.refresh_history();
        }
        changed
    }

    // ---- keys -------------------------------------------------------------------------------

    pub fn key(&mut self, k: KeyEvent) -> Option<Effect> {
        if k.kind == KeyEventKind::Release {
            return None;
        }
        if k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL) {
            if let Some(t) = self.busy.take() {
                t.cancel();
                self.say("cancelled", Level::Info);
                return None;
            }
            return Some(Effect::Quit);
        }
        if self.popup.is_some() {
            return self.popup_key(k);
        }
        if self.filtering {
            return self.filter_key(k);
        }
        if self.runs_pane && self.runs_focus {
            match k.code {
                KeyCode::Tab | KeyCode::Char('r') => {
                    self.runs_focus = k.code == KeyCode::Tab && !self.runs_focus;
                    if k.code == KeyCode::Char('r') {
                        self.runs_pane = false;
                    }
                    return None;
                }
                KeyCode::Up | KeyCode::Char('k') => {
                    self.runs_sel = self.runs_sel.saturating_sub(1);
                    return None;
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    self.runs_sel = (self.runs_sel + 1).min(self.bg.len().saturating_sub(1));
                    return None;
                }
                KeyCode::Char('x') => {
                    self.stop_selected_run();
                    return None;
                }
                KeyCode::Esc => {
                    self.runs_focus = false;
                    return None;
                }
                _ => {}
            }
        }
        self.message = None;
        let page = self.list_area.height.saturating_sub(2).max(1) as usize;
        match k.code {
            KeyCode::Char('q') => {
                if self.running() > 0 {
                    self.popup = Some(Popup::Quit);
                    return None;
                }
                return Some(Effect::Quit);
            }
            KeyCode::F(1) => self.popup = Some(Popup::Help),
            KeyCode::Up | KeyCode::Char('k') => self.move_by(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_by(1),
            KeyCode::PageUp => self.move_by(-(page as isize)),
            KeyCode::PageDown => self.move_by(page as isize),
            KeyCode::Home => self.sel = 0,
            KeyCode::End => self.sel = self.rows.len().saturating_sub(1),
            KeyCode::Left | KeyCode::Char('h') => self.left(),
            KeyCode::Right | KeyCode::Char('l') => self.right(),
            KeyCode::Char(' ') => self.toggle(),
            KeyCode::Char('E') => {
                self.folding.all(true);
                self.rebuild_keep();
            }
            KeyCode::Char('C') => {
                self.folding.all(false);
                self.rebuild_keep();
                // The selection's row may be gone: go to its category.
            }
            KeyCode::Char('/') => {
                self.search = None;
                self.filtering = true;
                self.refilter(!self.filter.is_empty());
            }
            KeyCode::Char('?') => {
                self.popup = Some(Popup::Input {
                    title: "Search by meaning".into(),
                    value: String::new(),
                    purpose: InputFor::Search,
                })
            }
            KeyCode::Char('t') => self.pick_tag_filter(),
            KeyCode::Esc => self.clear_filters(),
            KeyCode::Char('g') => {
                self.order = match self.order {
                    SortOrder::Folder => SortOrder::Name,
                    SortOrder::Name => SortOrder::Type,
                    SortOrder::Type => SortOrder::Folder,
                };
                self.say(format!("sorted by {}", order_name(self.order)), Level::Info);
                self.commands_changed(true);
            }
            KeyCode::Char('a') => {
                self.show_aux = !self.show_aux;
                self.refilter(false);
            }
            KeyCode::Enter => return self.enter(),
            KeyCode::Char('w') => return self.run_selected(How::Window, Vec::new()),
            KeyCode::Char('b') => return self.run_selected(How::Background, Vec::new()),
            KeyCode::Char('D') => return self.run_selected(How::Debug, Vec::new()),
            KeyCode::Char('A') => {
                if let Some(c) = self.selected_command() {
                    let id = c.id.clone();
                    self.popup = Some(Popup::Input {
                        title: format!("Arguments for {}", c.label),
                        value: String::new(),
                        purpose: InputFor::Args(id),
                    });
                }
            }
            KeyCode::Char('.') => {
                return self.start(Pending {
                    target: Target::Last,
                    how: How::Here,
                    values: Values::new(),
                    extra: Vec::new(),
                    confirmed: false,
                    asked: false,
                });
            }
            KeyCode::Char('r') => {
                self.runs_pane = !self.runs_pane;
                self.runs_focus = false;
            }
            KeyCode::Tab if self.runs_pane => self.runs_focus = true,
            KeyCode::Char('x') => self.stop_selected_run(),
            KeyCode::Char('s') => self.star(),
            KeyCode::Char('J') => self.quick_move(1),
            KeyCode::Char('K') => self.quick_move(-1),
            KeyCode::Char('+') => {
                if let Some(c) = self.selected_command() {
                    let id = c.id.clone();
                    self.popup = Some(Popup::Input {
                        title: format!("Add a tag to {}", c.label),
                        value: String::new(),
                        purpose: InputFor::AddTag(id),
                    });
                }
            }
            KeyCode::Char('-') => {
                if let Some(c) = self.selected_command() {
                    let items: Vec<String> = c.tags.clone();
                    if items.is_empty() {
                        self.say(format!("{} has no tags", c.label), Level::Info);
                    } else {
                        let id = c.id.clone();
                        self.popup = Some(Popup::Pick {
                            title: format!("Remove a tag from {}", c.label),
                            items,
                            sel: 0,
                            purpose: PickFor::RemoveTag(id),
                        });
                    }
                }
            }
            KeyCode::Char('e') => {
                if let Some(c) = self.selected_command() {
                    return Some(Effect::Edit(PathBuf::from(&c.file_path), c.line));
                }
            }
            KeyCode::Char('y') if self.selected_command().is_some() => {
                let line = self.details().map(|d| d.copy.clone()).unwrap_or_default();
                self.say("command line copied (OSC 52)", Level::Info);
                return Some(Effect::Copy(line));
            }
            KeyCode::Char('S') => self.summarize(),
            KeyCode::Char('m') => self.pick_command_skill(),
            KeyCode::Char('i') if self.selected_command().is_some() => {
                self.popup = Some(Popup::Details);
            }
            KeyCode::F(5) | KeyCode::Char('R') => self.refresh(),
            _ => {}
        }
        None
    }

    /// Rebuilds the rows after a fold or unfold: the selection stays, or, when it is inside
    /// something now closed, goes to the nearest enclosing row still shown.
    fn rebuild_keep(&mut self) {
        let keep = self.selected_id();
        let mut enclosing = Vec::new();
        if let Some(row) = self.selected_row() {
            let mut depth = row.depth;
            for r in self.rows[..self.sel].iter().rev() {
                if r.depth < depth {
                    enclosing.push(r.key.clone());
                    depth = r.depth;
                }
            }
        }
        self.rebuild_rows();
        let found = keep.is_some_and(|k| self.select_id(&k))
            || enclosing
                .into_iter()
                .any(|k| self.select_id(&RowId::Group(k)));
        if !found {
            self.clamp();
        }
    }

    pub fn move_by(&mut self, d: isize) {
        if self.rows.is_empty() {
            return;
        }
        let n = self.rows.len() as isize;
        self.sel = (self.sel as isize + d).clamp(0, n - 1) as usize;
    }

    fn left(&mut self) {
        let Some(r) = self.selected_row().cloned() else {
            return;
        };
        if r.expandable() && r.open {
            self.folding.set(&r.key, false);
            self.rebuild_keep();
        } else if r.depth > 0 {
            // To the parent.
            if let Some(p) = self.rows[..self.sel]
                .iter()
                .rposition(|x| x.depth < r.depth && x.expandable())
            {
                self.sel = p;
            }
        }
    }

    fn right(&mut self) {
        let Some(r) = self.selected_row().cloned() else {
            return;
        };
        if r.expandable() {
            if !r.open {
                self.folding.set(&r.key, true);
                self.rebuild_keep();
            } else {
                self.move_by(1);
            }
        }
    }

    fn toggle(&mut self) {
        if let Some(r) = self.selected_row().cloned()
            && r.expandable()
        {
            self.folding.set(&r.key, !r.open);
            self.rebuild_keep();
        }
    }

    fn clear_filters(&mut self) {
        if self.search.take().is_some() {
            self.rebuild_keep();
            return;
        }
        if !self.filter.is_empty() || self.tag_filter.is_some() {
            self.filter.clear();
            self.tag_filter = None;
            self.refilter(false);
        }
    }

    fn filter_key(&mut self, k: KeyEvent) -> Option<Effect> {
        match k.code {
            KeyCode::Esc => {
                self.filtering = false;
                self.filter.clear();
                self.refilter(false);
            }
            KeyCode::Enter => {
                self.filtering = false;
            }
            KeyCode::Backspace => {
                self.filter.pop();
                self.refilter(true);
            }
            KeyCode::Up => self.move_by(-1),
            KeyCode::Down => self.move_by(1),
            KeyCode::Char(c) => {
                self.filter.push(c);
                self.refilter(true);
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
                self.start(Pending {
                    target: Target::Query(run.command_id),
                    how: How::Here,
                    values: Values::new(),
                    extra: Vec::new(),
                    confirmed: false,
                    asked: false,
                })
            }
            _ => {
                self.toggle();
                None
            }
        }
    }

    fn run_selected(&mut self, how: How, extra: Vec<String>) -> Option<Effect> {
        let c = self.selected_command()?;
        let id = c.id.clone();
        self.start(Pending {
            target: Target::Query(id),
            how,
            values: Values::new(),
            extra,
            confirmed: false,
            asked: false,
        })
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
        if let gate::Verdict::Confirm(lines) =
            gate::Gate::of(loaded, &sel.item).verdict(p.confirmed)
        {
            let warned: Vec<String> = lines.iter().map(|l| format!("⚠ {l}")).collect();
            self.popup = Some(Popup::Confirm {
                title: format!("Run {}?", sel.item.label),
                lines: warned,
                run: Pending {
                    confirmed: true,
                    ..p
                },
            });
            return None;
        }
        if !p.asked {
            let asked = frontend::questions(self.engine.workspace(), &sel);
            if !asked.is_empty() {
                let fields = asked
                    .into_iter()
                    .map(|param| Field {
                        value: param
                            .default
                            .clone()
                            .or_else(|| param.options.first().cloned())
                            .unwrap_or_default(),
                        param,
                    })
                    .collect();
                self.popup = Some(Popup::Form {
                    label: sel.item.label.clone(),
                    fields,
                    focus: 0,
                    run: Pending { asked: true, ..p },
                });
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
        match p.how {
            How::Here | How::Debug => Some(Effect::Foreground(Box::new(planned))),
            How::Background => {
                self.start_background(&planned);
                None
            }
            How::Window => {
                let ws = self.engine.workspace();
                let loaded = self.loaded.as_mut()?;
                match runs::new_window(ws) {
                    Some(w) => match runs::start_window(ws, &mut loaded.store, &planned, &w) {
                        Ok(s) => {
                            self.say(
                                format!("{} opened in a new {} window", planned.item.label, s.mode),
                                Level::Info,
                            );
                            self.refresh_history();
                        }
                        Err(e) => self.say(e.to_string(), Level::Error),
                    },
                    None => {
                        self.say(
                            "no tmux or $TERMINAL here: running in the background instead",
                            Level::Warn,
                        );
                        self.start_background(&planned);
                    }
                }
                None
            }
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
                self.bg.push(BgRun {
                    run_id: s.run_id,
                    label: planned.item.label.clone(),
                    status: "running".into(),
                    exit: None,
                    lines: Vec::new(),
                    partial: String::new(),
                    log,
                });
                self.runs_sel = self.bg.len() - 1;
                self.runs_pane = true;
                self.say(
                    format!(
                        "{} started in the background{}",
                        planned.item.label,
                        s.run_id.map(|i| format!(" (run {i})")).unwrap_or_default()
                    ),
                    Level::Info,
                );
                self.refresh_history();
            }
            Err(e) => self.say(e.to_string(), Level::Error),
        }
    }

    fn stop_selected_run(&mut self) {
        let Some(r) = self.bg.get(self.runs_sel) else {
            self.say("no background run to stop (b starts one)", Level::Info);
            return;
        };
        let (Some(id), true) = (r.run_id, r.running()) else {
            self.say(format!("{} is not running", r.label), Level::Info);
            return;
        };
        self.say(format!("stopping run {id}…"), Level::Info);
        worker::stop(self.engine.root().to_path_buf(), id, self.tx.clone());
    }

    fn star(&mut self) {
        let Some(c) = self.selected_command().cloned() else {
            return;
        };
        if !self.ready() {
            return;
        }
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
        match r {
            Ok(m) => self.say(m, Level::Info),
            Err(e) => self.say(e.to_string(), Level::Error),
        }
        self.commands_changed(true);
    }

    fn quick_move(&mut self, d: isize) {
        let Some(c) = self.selected_command().cloned() else {
            return;
        };
        if !self.ready() {
            return;
        }
        let Some(pos) = self
            .quick
            .iter()
            .position(|&q| self.commands()[q].id == c.id)
        else {
            self.say(
                "J/K move commands inside Quick Launch (s stars one)",
                Level::Info,
            );
            return;
        };
        let to = (pos as isize + d).clamp(0, self.quick.len() as isize - 1) as usize;
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
            self.say(
                "no tags yet (+ adds one to the selected command)",
                Level::Info,
            );
            return;
        }
        self.popup = Some(Popup::Pick {
            title: "Filter by tag".into(),
            items: names,
            sel: 0,
            purpose: PickFor::TagFilter,
        });
    }

    fn summarize(&mut self) {
        if let Some(t) = self.busy.take() {
            t.cancel();
            self.say("cancelled", Level::Info);
            return;
        }
        if !self.ready() {
            return;
        }
        let Some(l) = self.loaded.as_ref() else {
            return;
        };
        let only: Vec<String> = match self.selected_command() {
            Some(c) if !self.filter.is_empty() || self.tag_filter.is_some() => {
                // Summarize what the filter shows.
                let _ = c;
                self.visible
                    .iter()
                    .flatten()
                    .enumerate()
                    .filter(|(_, shown)| **shown)
                    .map(|(i, _)| l.commands[i].id.clone())
                    .collect()
            }
            Some(c) => vec![c.id.clone()],
            None => Vec::new(),
        };
        let token = commandtree_core::CancelToken::new();
        self.busy = Some(token.clone());
        self.progress = Some("summarizing…".into());
        worker::summarize(
            self.engine.root().to_path_buf(),
            l.commands.clone(),
            only,
            token,
            self.tx.clone(),
        );
    }

    fn refresh(&mut self) {
        self.progress = Some("discovering commands…".into());
        let watch = self.live.take().is_some();
        worker::load(self.engine.root().to_path_buf(), self.tx.clone(), watch);
    }

    // ---- popups -------------------------------------------------------------------------------

    fn popup_key(&mut self, k: KeyEvent) -> Option<Effect> {
        let popup = self.popup.take()?;
        match popup {
            Popup::Help | Popup::Details => {
                if !matches!(
                    k.code,
                    KeyCode::Esc
                        | KeyCode::Char('q')
                        | KeyCode::F(1)
                        | KeyCode::Enter
                        | KeyCode::Char('i')
                ) {
                    self.popup = Some(popup);
                }
                None
            }
            Popup::Quit => match k.code {
                KeyCode::Char('y') | KeyCode::Char('q') | KeyCode::Enter => Some(Effect::Quit),
                _ => None,
            },
            Popup::Diff {
                title,
                lines,
                mut scroll,
                proposal,
            } => {
                let last = lines.len().saturating_sub(1);
                match k.code {
                    KeyCode::Char('y') | KeyCode::Char('Y') => {
                        self.apply_proposal(&proposal);
                        return None;
                    }
                    KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => {
                        let rel = self.rel(&proposal.path.to_string_lossy());
                        self.say(format!("not applied; {rel} is unchanged"), Level::Info);
                        return None;
                    }
                    KeyCode::Down | KeyCode::Char('j') => scroll = (scroll + 1).min(last),
                    KeyCode::Up | KeyCode::Char('k') => scroll = scroll.saturating_sub(1),
                    KeyCode::PageDown | KeyCode::Char(' ') => scroll = (scroll + 10).min(last),
                    KeyCode::PageUp => scroll = scroll.saturating_sub(10),
                    _ => {}
                }
                self.popup = Some(Popup::Diff {
                    title,
                    lines,
                    scroll,
                    proposal,
                });
                None
            }
            Popup::Confirm { title, lines, run } => match k.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => self.start(run),
                KeyCode::Char('n') | KeyCode::Esc => {
                    self.say("not run", Level::Info);
                    None
                }
                _ => {
                    self.popup = Some(Popup::Confirm { title, lines, run });
                    None
                }
            },
            Popup::Form {
                label,
                mut fields,
                mut focus,
                run,
            } => {
                match k.code {
                    KeyCode::Esc => {
                        self.say("not run", Level::Info);
                        return None;
                    }
                    KeyCode::Enter => {
                        let mut run = run;
                        for f in fields {
                            run.values.insert(f.param.name, f.value);
                        }
                        return self.start(run);
                    }
                    KeyCode::Tab | KeyCode::Down => focus = (focus + 1) % fields.len().max(1),
                    KeyCode::BackTab | KeyCode::Up => {
                        focus = (focus + fields.len().max(1) - 1) % fields.len().max(1)
                    }
                    KeyCode::Left | KeyCode::Right => {
                        if let Some(f) = fields.get_mut(focus)
                            && !f.param.options.is_empty()
                        {
                            let n = f.param.options.len();
                            let at = f.param.options.iter().position(|o| *o == f.value);
                            let next = match (at, k.code) {
                                (None, _) => 0,
                                (Some(i), KeyCode::Right) => (i + 1) % n,
                                (Some(i), _) => (i + n - 1) % n,
                            };
                            f.value = f.param.options[next].clone();
                        }
                    }
                    KeyCode::Backspace => {
                        if let Some(f) = fields.get_mut(focus) {
                            f.value.pop();
                        }
                    }
                    KeyCode::Char('u') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                        if let Some(f) = fields.get_mut(focus) {
                            f.value.clear();
                        }
                    }
                    KeyCode::Char(c) => {
                        if let Some(f) = fields.get_mut(focus) {
                            f.value.push(c);
                        }
                    }
                    _ => {}
                }
                self.popup = Some(Popup::Form {
                    label,
                    fields,
                    focus,
                    run,
                });
                None
            }
            Popup::Input {
                title,
                mut value,
                purpose,
            } => {
                match k.code {
                    KeyCode::Esc => return None,
                    KeyCode::Enter => return self.input_done(value, purpose),
                    KeyCode::Backspace => {
                        value.pop();
                    }
                    KeyCode::Char(c) => value.push(c),
                    _ => {}
                }
                self.popup = Some(Popup::Input {
                    title,
                    value,
                    purpose,
                });
                None
            }
            Popup::Pick {
                title,
                items,
                mut sel,
                purpose,
            } => {
                match k.code {
                    KeyCode::Esc => return None,
                    KeyCode::Up | KeyCode::Char('k') => sel = sel.saturating_sub(1),
                    KeyCode::Down | KeyCode::Char('j') => {
                        sel = (sel + 1).min(items.len().saturating_sub(1))
                    }
                    KeyCode::Enter => {
                        let item = items.get(sel).cloned().unwrap_or_default();
                        self.picked(sel, item, purpose);
                        return None;
                    }
                    _ => {}
                }
                self.popup = Some(Popup::Pick {
                    title,
                    items,
                    sel,
                    purpose,
                });
                None
            }
        }
    }

    fn input_done(&mut self, value: String, purpose: InputFor) -> Option<Effect> {
        match purpose {
            InputFor::Search => {
                let q = value.trim().to_string();
                if q.is_empty() || !self.ready() {
                    return None;
                }
                let l = self.loaded.as_ref()?;
                let token = commandtree_core::CancelToken::new();
                self.busy = Some(token.clone());
                self.progress = Some(format!("searching “{q}”…"));
                worker::search(
                    self.engine.root().to_path_buf(),
                    l.commands.clone(),
                    q,
                    token,
                    self.tx.clone(),
                );
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
                match r {
                    Ok((c, _)) => self.say(format!("{} tagged {tag}", c.label), Level::Info),
                    Err(e) => self.say(e.to_string(), Level::Error),
                }
                self.commands_changed(true);
                None
            }
            InputFor::Args(id) => {
                let extra = match commandtree_exec::quote::split_words(&value) {
                    Ok(w) => w,
                    Err(e) => {
                        self.say(e.to_string(), Level::Error);
                        return None;
                    }
                };
                self.start(Pending {
                    target: Target::Query(id),
                    how: How::Here,
                    values: Values::new(),
                    extra,
                    confirmed: false,
                    asked: false,
                })
            }
        }
    }

    // ---- command skills ------------------------------------------------------------------------

    /// `m`: the workspace's command skills for the selected command; pressed again while the
    /// model is answering, it cancels.
    fn pick_command_skill(&mut self) {
        if let Some(t) = self.busy.take() {
            t.cancel();
            self.say("cancelled", Level::Info);
            return;
        }
        let Some(c) = self.selected_command() else {
            return;
        };
        let id = c.id.clone();
        let label = c.label.clone();
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
        self.popup = Some(Popup::Pick {
            title: format!("Command skill for {}", clean(&label)),
            items: skills.iter().map(|s| clean(&s.name)).collect(),
            sel: 0,
            purpose: PickFor::CommandSkill(id, skills.into_iter().map(|s| s.id).collect()),
        });
    }

    fn propose_command_skill(&mut self, command: &str, skill: String) {
        if !self.ready() {
            return;
        }
        let Some(item) = self.commands().iter().find(|c| c.id == command).cloned() else {
            return;
        };
        let token = commandtree_core::CancelToken::new();
        self.busy = Some(token.clone());
        self.progress = Some(format!(
            "asking the model to apply {skill} to {}… (m cancels)",
            item.label
        ));
        worker::propose_command_skill(
            self.engine.root().to_path_buf(),
            item,
            skill,
            token,
            self.tx.clone(),
        );
    }

    /// A proposal arrived: its diff to confirm, or why there is none.
    pub fn proposed(
        &mut self,
        skill: String,
        r: Result<commandtree_skills::command_skill::Proposal, String>,
    ) {
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
                self.popup = Some(Popup::Diff {
                    title: format!("{skill} → {rel}"),
                    lines,
                    scroll: 0,
                    proposal: Box::new(p),
                });
            }
        }
    }

    fn apply_proposal(&mut self, p: &commandtree_skills::command_skill::Proposal) {
        let rel = self.rel(&p.path.to_string_lossy());
        let applied = commandtree_skills::Session::new(&self.engine).apply(p);
        match applied {
            Ok(_) => self.say(format!("applied to {rel}"), Level::Info),
            Err(e) => self.say(e.to_string(), Level::Error),
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
                self.say(format!("tag {item} — Esc clears"), Level::Info);
                self.tag_filter = Some(item);
                self.refilter(true);
            }
            PickFor::RemoveTag(id) => {
                if !self.ready() {
                    return;
                }
                let Some(loaded) = self.loaded.as_mut() else {
                    return;
                };
                let r = tags::remove(loaded, &id, std::slice::from_ref(&item));
                let _ = loaded.refresh_tags(&[id.as_str()]);
                match r {
                    Ok((label, rm)) => {
                        let note = rm
                            .first()
                            .and_then(|r| r.from_config.as_ref())
                            .map(|p| {
                                format!(" ({} still assigns it)", self.rel(&p.to_string_lossy()))
                            })
                            .unwrap_or_default();
                        self.say(format!("{label}: {item} removed{note}"), Level::Info)
                    }
                    Err(e) => self.say(e.to_string(), Level::Error),
                }
                self.commands_changed(true);
            }
        }
    }

    // ---- mouse ----------------------------------------------------------------------------------

    pub fn mouse(&mut self, m: MouseEvent) -> Option<Effect> {
        if self.popup.is_some() {
            return None;
        }
        let a = self.list_area;
        let inside = m.column >= a.x
            && m.column < a.x + a.width
            && m.row > a.y
            && m.row < a.y + a.height.saturating_sub(1);
        match m.kind {
            MouseEventKind::ScrollDown if inside => self.move_by(3),
            MouseEventKind::ScrollUp if inside => self.move_by(-3),
            MouseEventKind::Down(MouseButton::Left) if inside => {
                let i = self.scroll + (m.row - a.y - 1) as usize;
                if i < self.rows.len() {
                    let double = self
                        .last_click
                        .is_some_and(|(t, r)| r == i && t.elapsed() < Duration::from_millis(400));
                    self.sel = i;
                    self.last_click = Some((Instant::now(), i));
                    if double {
                        self.last_click = None;
                        return self.enter();
                    }
                    if self.rows[i].expandable() {
                        self.toggle();
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// Background runs after a stop, and what a foreground run left in the history.
    pub fn after_stop(&mut self, id: i64, result: Result<String, String>) {
        match result {
            Ok(status) => {
                if let Some(r) = self.bg.iter_mut().find(|r| r.run_id == Some(id)) {
                    r.status = status;
                }
                self.say(format!("run {id} stopped"), Level::Info);
            }
            Err(e) => self.say(e, Level::Error),
        }
        self.refresh_history();
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

/// Whether everything matching `after` also matches `before`, so a search for `after` can
/// look only at `before`'s matches: `after` is `before` with more typed at the end, and
/// neither uses the pattern syntax (`!` negates, `^ $ '` anchor or quote, `\\` escapes) that
/// can make a longer pattern match something a shorter one did not.
fn narrows(before: &str, after: &str) -> bool {
    let plain = |s: &str| !s.contains(['!', '^', '$', '\'', '\\']);
    after.starts_with(before) && plain(before) && plain(after)
}

pub fn order_name(o: SortOrder) -> &'static str {
    match o {
        SortOrder::Folder => "folder",
        SortOrder::Name => "name",
        SortOrder::Type => "type",
    }
}

/// Whether the section row is Quick Launch (for the status of `J`/`K`).
pub fn is_quick(r: &Row) -> bool {
    r.place() == Some(Place::Quick)
        || matches!(
            r.kind,
            RowKind::Section {
                section: Section::Quick,
                ..
            }
        )
}

/// `script` with absolute paths inside the workspace written relative to `cwd`, the folder the
/// shown line changes into first: `/w/a/b/x.sh` under `cd a/b` is `./x.sh`, `/w/x.sh` is
/// `../../x.sh`. Paths outside the workspace stay absolute.
pub fn relative_to_run_folder(
    script: &str,
    root: &std::path::Path,
    cwd: &std::path::Path,
) -> String {
    let Ok(inside) = cwd.strip_prefix(root) else {
        return script.to_string();
    };
    let depth = inside.components().count();
    let mut out = script.to_string();
    if depth > 0 {
        out = out.replace(&format!("{}/", cwd.display()), "./");
    }
    let up = if depth == 0 {
        "./".to_string()
    } else {
        "../".repeat(depth)
    };
    out.replace(&format!("{}/", root.display()), &up)
}

#[cfg(test)]
mod tests {
    use super::relative_to_run_folder;
    use std::path::Path;

    #[test]
    fn shown_paths_work_after_the_shown_cd() {
        let root = Path::new("/w");
        assert_eq!(
            relative_to_run_folder("bash \"/w/a/b/x.sh\"", root, Path::new("/w/a/b")),
            "bash \"./x.sh\""
        );
        assert_eq!(
            relative_to_run_folder("sh /w/x.sh /w/a/b/y", root, Path::new("/w/a/b")),
            "sh ../../x.sh ./y"
        );
        assert_eq!(
            relative_to_run_folder("make -f /w/Makefile", root, Path::new("/w")),
            "make -f ./Makefile"
        );
        assert_eq!(
            relative_to_run_folder("cat /etc/x /w/ab/c", root, Path::new("/w/a")),
            "cat /etc/x ../ab/c"
        );
        assert_eq!(
            relative_to_run_folder("ls /w/x", root, Path::new("/elsewhere")),
            "ls /w/x"
        );
    }
}
