//! Every key the UI answers, as data: which key does which [`Action`] in which [`Context`], and
//! what F1 and the footers say of it. The components look their keys up here, and F1, the
//! footers and the messages that name a key are drawn from the same table, so what the screen
//! says a key does is what it does.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a key is pressed: the part of the UI that has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Looked at first, whatever has the keys.
    Global,
    Tree,
    /// Typing a filter after `/`.
    Filter,
    /// The runs pane has the keys (after `Tab`); what it leaves unbound goes to the tree.
    Runs,
    /// A popup that only shows something: help, details.
    Viewer,
    /// Quitting while background runs are going.
    Quit,
    /// A run whose warnings need a yes.
    Confirm,
    /// A command skill's proposed change.
    Proposal,
    /// The parameters form.
    Params,
    /// A line of text: a tag, arguments, a search.
    Prompt,
    /// A choice from a list.
    Picker,
    /// The problems of a run.
    Problems,
    /// A command's dependencies.
    Deps,
}

impl Context {
    /// Where a key this context leaves unbound is looked up next.
    fn fallback(self) -> Option<Context> {
        match self {
            Context::Runs => Some(Context::Tree),
            _ => None,
        }
    }
}

/// What a key does; the component that has the keys carries it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Cancel the background work, or quit when there is none.
    Interrupt,
    Quit,
    Help,
    Up,
    Down,
    PageUp,
    PageDown,
    First,
    Last,
    /// Close a group, or go to the parent.
    Close,
    /// Open a group, or go into it.
    Open,
    Toggle,
    ExpandAll,
    CollapseAll,
    Filter,
    Search,
    TagFilter,
    ClearFilters,
    Sort,
    ToggleAux,
    Run,
    RunBackground,
    RunWindow,
    Debug,
    RunWithArgs,
    RunLast,
    ToggleRuns,
    FocusRuns,
    StopRun,
    /// Stop a run if it goes on, then run its command again as it ran.
    RestartRun,
    /// The problems of a run's output.
    Problems,
    /// What a command runs and what runs it.
    Deps,
    /// Rerun the command in the background whenever its files change, or stop doing so.
    WatchToggle,
    Star,
    QuickDown,
    QuickUp,
    AddTag,
    RemoveTag,
    Edit,
    Copy,
    Summarize,
    CommandSkill,
    Details,
    Refresh,
    /// Clicks and the wheel (never a key: it documents the mouse).
    Mouse,
    /// Give the keys back to the tree.
    Leave,
    /// Yes, keep, confirm, pick.
    Accept,
    /// No, cancel, dismiss.
    Cancel,
    /// Put the typed character in the field.
    Type,
    /// Delete the last character.
    Delete,
    ClearField,
    NextField,
    PreviousField,
    NextOption,
    PreviousOption,
}

/// A key as the table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// This character, whatever the modifiers (the terminal reports Shift in the character).
    Char(char),
    /// This letter in either case.
    Letter(char),
    /// Control and this letter.
    Ctrl(char),
    Code(KeyCode),
    /// Any character, typed into a field.
    Text,
    /// Whatever key the context does not bind before it.
    Any,
    /// The mouse: never matches a key, so F1 can say what clicks do.
    Mouse,
}

impl Key {
    pub fn matches(self, k: &KeyEvent) -> bool {
        match self {
            Key::Char(c) => k.code == KeyCode::Char(c),
            Key::Letter(c) => {
                matches!(k.code, KeyCode::Char(x) if x.eq_ignore_ascii_case(&c))
            }
            Key::Ctrl(c) => {
                k.code == KeyCode::Char(c) && k.modifiers.contains(KeyModifiers::CONTROL)
            }
            Key::Code(code) => k.code == code,
            Key::Text => matches!(k.code, KeyCode::Char(_)),
            Key::Any => true,
            Key::Mouse => false,
        }
    }

    pub fn label(self) -> String {
        let named = match self {
            Key::Char(' ') => "Space",
            Key::Char(c) | Key::Letter(c) => return c.to_string(),
            Key::Ctrl(c) => return format!("Ctrl-{}", c.to_ascii_uppercase()),
            Key::Code(KeyCode::F(n)) => return format!("F{n}"),
            Key::Code(code) => match code {
                KeyCode::Up => "↑",
                KeyCode::Down => "↓",
                KeyCode::Left => "←",
                KeyCode::Right => "→",
                KeyCode::PageUp => "PgUp",
                KeyCode::PageDown => "PgDn",
                KeyCode::Home => "Home",
                KeyCode::End => "End",
                KeyCode::Enter => "Enter",
                KeyCode::Esc => "Esc",
                KeyCode::Tab => "Tab",
                KeyCode::BackTab => "S-Tab",
                KeyCode::Backspace => "Bksp",
                other => return format!("{other:?}"),
            },
            Key::Text => "text",
            Key::Any => "any other key",
            Key::Mouse => "mouse",
        };
        named.to_string()
    }

    fn arrow(self) -> bool {
        matches!(
            self,
            Key::Code(KeyCode::Up | KeyCode::Down | KeyCode::Left | KeyCode::Right)
        )
    }
}

/// One line of F1: keys that do related things, shown together. Each group of `keys` is one
/// way to press them (`↑↓`, then `j k`); a group's keys are listed together, groups with ` / `
/// between them.
#[derive(Debug)]
pub struct Entry {
    pub context: Context,
    pub keys: &'static [&'static [(Key, Action)]],
    pub says: &'static str,
    /// Also in the context's one-line footer (the status line, a popup's last lines).
    pub footer: bool,
}

impl Entry {
    /// `↑↓ / j k`: a group's arrows side by side, other keys spaced.
    pub fn label(&self) -> String {
        self.keys
            .iter()
            .map(|group| {
                let mut out = String::new();
                let mut last: Option<Key> = None;
                for (k, _) in group.iter() {
                    if last.is_some_and(|l| !(l.arrow() && k.arrow())) {
                        out.push(' ');
                    }
                    out.push_str(&k.label());
                    last = Some(*k);
                }
                out
            })
            .collect::<Vec<_>>()
            .join(" / ")
    }

    fn bindings(&self) -> impl Iterator<Item = (Key, Action)> + '_ {
        self.keys.iter().flat_map(|g| g.iter().copied())
    }
}

use Action as A;
use Context as C;
use Key::{Char as Ch, Ctrl, Letter};

const UP: Key = Key::Code(KeyCode::Up);
const DOWN: Key = Key::Code(KeyCode::Down);
const LEFT: Key = Key::Code(KeyCode::Left);
const RIGHT: Key = Key::Code(KeyCode::Right);
const PGUP: Key = Key::Code(KeyCode::PageUp);
const PGDN: Key = Key::Code(KeyCode::PageDown);
const HOME: Key = Key::Code(KeyCode::Home);
const END: Key = Key::Code(KeyCode::End);
const ENTER: Key = Key::Code(KeyCode::Enter);
const ESC: Key = Key::Code(KeyCode::Esc);
const TAB: Key = Key::Code(KeyCode::Tab);
const BACKTAB: Key = Key::Code(KeyCode::BackTab);
const BKSP: Key = Key::Code(KeyCode::Backspace);
const F1: Key = Key::Code(KeyCode::F(1));
const F5: Key = Key::Code(KeyCode::F(5));

/// Groups of keys: each `&[..]` one way to press them.
type Keys = &'static [&'static [(Key, Action)]];

const fn row(context: Context, keys: Keys, says: &'static str) -> Entry {
    Entry {
        context,
        keys,
        says,
        footer: false,
    }
}

/// As [`row`], and in the footer too.
const fn hint(context: Context, keys: Keys, says: &'static str) -> Entry {
    Entry {
        context,
        keys,
        says,
        footer: true,
    }
}

const MOVE: Keys = &[
    &[(UP, A::Up), (DOWN, A::Down)],
    &[(Ch('j'), A::Down), (Ch('k'), A::Up)],
];
const PAGE: Keys = &[&[(PGUP, A::PageUp), (PGDN, A::PageDown)]];
const OK: Keys = &[&[(ENTER, A::Accept)]];
const CANCEL: Keys = &[&[(ESC, A::Cancel)]];
const EDIT: Keys = &[&[(Key::Text, A::Type)], &[(BKSP, A::Delete)]];

/// The keymap. Within a context the first binding of a key wins (a test keeps any key from
/// being bound twice), and F1 lists the entries in this order.
#[rustfmt::skip]
pub static KEYMAP: &[Entry] = &[
    row(C::Tree,   &[&[(Ch('q'), A::Quit)]],                                "quit (asks if runs go on)"),
    row(C::Global, &[&[(Ctrl('c'), A::Interrupt)]],                         "stop the work, else quit"),
    hint(C::Tree,  &[&[(F1, A::Help)]],                                     "help"),
    row(C::Tree,   MOVE,                                                    "move"),
    row(C::Tree,   &[&[(LEFT, A::Close), (RIGHT, A::Open)],
                     &[(Ch('h'), A::Close), (Ch('l'), A::Open)]],           "close / open, to parent"),
    row(C::Tree,   &[&[(Ch(' '), A::Toggle)]],                              "open or close a group"),
    row(C::Tree,   PAGE,                                                    "page up / down"),
    row(C::Tree,   &[&[(HOME, A::First), (END, A::Last)]],                  "first / last"),
    row(C::Tree,   &[&[(Ch('E'), A::ExpandAll)], &[(Ch('C'), A::CollapseAll)]], "expand all / collapse all"),
    row(C::Tree,   &[&[(Ch('/'), A::Filter)]],                              "filter (keys below)"),
    row(C::Tree,   &[&[(Ch('?'), A::Search)]],                              "search by meaning"),
    row(C::Tree,   &[&[(Ch('t'), A::TagFilter)]],                           "filter by tag"),
    row(C::Tree,   &[&[(ESC, A::ClearFilters)]],                            "clear filters and search"),
    row(C::Tree,   &[&[(Ch('g'), A::Sort)]],                                "sort: folder / name / type"),
    row(C::Tree,   &[&[(Ch('a'), A::ToggleAux)]],                           "show or hide auxiliary"),
    row(C::Tree,   &[&[(ENTER, A::Run)]],                                   "run here (or rerun)"),
    row(C::Tree,   &[&[(Ch('b'), A::RunBackground)]],                       "run in the background"),
    row(C::Tree,   &[&[(Ch('w'), A::RunWindow)]],                           "run in a new window"),
    row(C::Tree,   &[&[(Ch('D'), A::Debug)]],                               "debug a launch config"),
    row(C::Tree,   &[&[(Ch('A'), A::RunWithArgs)]],                         "run with extra arguments"),
    row(C::Tree,   &[&[(Ch('.'), A::RunLast)]],                             "run the last run again"),
    row(C::Tree,   &[&[(Ch('r'), A::ToggleRuns)], &[(TAB, A::FocusRuns)]],  "runs pane / focus it"),
    row(C::Tree,   &[&[(Ch('x'), A::StopRun)], &[(Ch('X'), A::RestartRun)]], "stop / restart its run"),
    row(C::Tree,   &[&[(Ch('p'), A::Problems)], &[(Ch('d'), A::Deps)]],     "problems / dependencies"),
    row(C::Tree,   &[&[(Ch('W'), A::WatchToggle)]],                         "rerun on change: on / off"),
    row(C::Tree,   &[&[(Ch('s'), A::Star)]],                                "star / unstar"),
    row(C::Tree,   &[&[(Ch('J'), A::QuickDown)], &[(Ch('K'), A::QuickUp)]], "move in Quick Launch"),
    row(C::Tree,   &[&[(Ch('+'), A::AddTag)], &[(Ch('-'), A::RemoveTag)]],  "add / remove a tag"),
    row(C::Tree,   &[&[(Ch('e'), A::Edit)]],                                "open the file at its line"),
    row(C::Tree,   &[&[(Ch('y'), A::Copy)]],                                "copy the command line"),
    row(C::Tree,   &[&[(Ch('S'), A::Summarize)]],                           "summarize selection/filter"),
    row(C::Tree,   &[&[(Ch('m'), A::CommandSkill)]],                        "command skill: diff, apply"),
    row(C::Tree,   &[&[(Ch('i'), A::Details)]],                             "details as a popup"),
    row(C::Tree,   &[&[(F5, A::Refresh)], &[(Ch('R'), A::Refresh)]],        "discover again"),
    row(C::Tree,   &[&[(Key::Mouse, A::Mouse)]],                            "click; double-click runs"),

    row(C::Filter,  EDIT,                                                   "edit the filter"),
    hint(C::Filter, OK,                                                     "keeps the filter"),
    hint(C::Filter, CANCEL,                                                 "clears it"),
    row(C::Filter,  &[&[(UP, A::Up), (DOWN, A::Down)]],                     "move"),

    hint(C::Runs, &[&[(TAB, A::Leave)], &[(ESC, A::Leave)]],                "back to the tree"),
    row(C::Runs,  MOVE,                                                     "select a run"),
    row(C::Runs,  &[&[(Ch('x'), A::StopRun)], &[(Ch('X'), A::RestartRun)],
                    &[(Ch('p'), A::Problems)]],                             "stop / restart / problems"),

    hint(C::Viewer, &[&[(ESC, A::Cancel)]],                                 "closes"),
    row(C::Viewer,  &[&[(Ch('q'), A::Cancel)], &[(F1, A::Cancel)],
                      &[(ENTER, A::Cancel)], &[(Ch('i'), A::Cancel)]],      "close it too"),
    hint(C::Viewer, MOVE,                                                   "scroll"),
    row(C::Viewer,  PAGE,                                                   "page"),

    hint(C::Quit, &[&[(Ch('y'), A::Accept)], &[(Ch('q'), A::Accept)],
                    &[(ENTER, A::Accept)]],                                 "quits"),
    hint(C::Quit, &[&[(Key::Any, A::Cancel)]],                              "stays"),

    hint(C::Confirm, &[&[(Letter('y'), A::Accept)]],                        "runs it anyway"),
    hint(C::Confirm, &[&[(Ch('n'), A::Cancel)], &[(ESC, A::Cancel)]],       "does not"),

    hint(C::Proposal, &[&[(Letter('y'), A::Accept)]],                       "applies"),
    hint(C::Proposal, &[&[(Ch('n'), A::Cancel)], &[(ESC, A::Cancel)],
                        &[(Ch('q'), A::Cancel)]],                           "does not"),
    hint(C::Proposal, MOVE,                                                 "scroll"),
    hint(C::Proposal, &[&[(PGUP, A::PageUp), (PGDN, A::PageDown)],
                        &[(Ch(' '), A::PageDown)]],                         "page"),

    hint(C::Params, OK,                                                     "runs"),
    hint(C::Params, &[&[(TAB, A::NextField)], &[(DOWN, A::NextField)]],     "next field"),
    hint(C::Params, &[&[(BACKTAB, A::PreviousField)], &[(UP, A::PreviousField)]], "previous"),
    hint(C::Params, &[&[(LEFT, A::PreviousOption), (RIGHT, A::NextOption)]], "options"),
    hint(C::Params, &[&[(Ctrl('u'), A::ClearField)]],                       "clears"),
    hint(C::Params, CANCEL,                                                 "cancels"),
    row(C::Params,  EDIT,                                                   "edit the field"),

    hint(C::Prompt, OK,                                                     "confirms"),
    hint(C::Prompt, CANCEL,                                                 "cancels"),
    row(C::Prompt,  EDIT,                                                   "edit the text"),

    row(C::Picker,  MOVE,                                                   "move"),
    hint(C::Picker, OK,                                                     "picks"),
    hint(C::Picker, CANCEL,                                                 "cancels"),

    hint(C::Problems, OK,                                                   "opens it in $EDITOR"),
    hint(C::Problems, &[&[(ESC, A::Cancel)], &[(Ch('q'), A::Cancel)]],      "closes"),
    row(C::Problems,  MOVE,                                                 "move"),
    row(C::Problems,  PAGE,                                                 "page"),
    row(C::Problems,  &[&[(HOME, A::First), (END, A::Last)]],               "first / last"),

    hint(C::Deps, OK,                                                       "goes to it"),
    hint(C::Deps, &[&[(ESC, A::Cancel)], &[(Ch('q'), A::Cancel)],
                    &[(Ch('d'), A::Cancel)]],                               "closes"),
    row(C::Deps,  MOVE,                                                     "move"),
    row(C::Deps,  PAGE,                                                     "page"),
    row(C::Deps,  &[&[(HOME, A::First), (END, A::Last)]],                   "first / last"),
];

/// The contexts a key pressed in `context` is looked up in, in order: the global keys first.
fn chain(context: Context) -> impl Iterator<Item = Context> {
    std::iter::once(Context::Global).chain(
        std::iter::successors(Some(context), |c| c.fallback()).filter(|c| *c != Context::Global),
    )
}

/// Every binding a key pressed in `context` can reach, in the order they are tried.
fn reachable(context: Context) -> impl Iterator<Item = (Context, Key, Action)> {
    chain(context).flat_map(|c| {
        entries(c)
            .flat_map(Entry::bindings)
            .map(move |(k, a)| (c, k, a))
    })
}

/// What `k` does in `context`, and the context whose binding it is.
pub fn action(context: Context, k: &KeyEvent) -> Option<(Context, Action)> {
    reachable(context)
        .find(|(_, key, _)| key.matches(k))
        .map(|(c, _, a)| (c, a))
}

/// The first key that does `action` in `context`, for text that names it ("b starts one").
pub fn key(context: Context, action: Action) -> String {
    reachable(context)
        .find(|(_, _, a)| *a == action)
        .map(|(_, k, _)| k.label())
        .unwrap_or_default()
}

/// The entries of `context` alone (not its fallback's).
pub fn entries(context: Context) -> impl Iterator<Item = &'static Entry> {
    KEYMAP.iter().filter(move |e| e.context == context)
}

/// The footer's parts for `context`: `Enter keeps the filter`, `Esc clears it`, then its
/// fallback's.
pub fn footer(context: Context) -> Vec<String> {
    std::iter::successors(Some(context), |c| c.fallback())
        .flat_map(entries)
        .filter(|e| e.footer)
        .map(|e| format!("{} {}", e.label(), e.says))
        .collect()
}

/// The footer as lines of at most `width` columns, parts kept whole.
pub fn footer_lines(context: Context, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for part in footer(context) {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 3 + part.chars().count() <= width => {
                l.push_str(" · ");
                l.push_str(&part);
            }
            _ => lines.push(part),
        }
    }
    lines
}

/// What F1 lists: a heading (none for the first), then the entries of its contexts.
pub const HELP: &[(&str, &[Context])] = &[
    ("", &[Context::Tree, Context::Global]),
    ("While typing a filter", &[Context::Filter]),
    ("In the runs pane", &[Context::Runs]),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    const ALL: &[Context] = &[
        C::Global,
        C::Tree,
        C::Filter,
        C::Runs,
        C::Viewer,
        C::Quit,
        C::Confirm,
        C::Proposal,
        C::Params,
        C::Prompt,
        C::Picker,
        C::Problems,
        C::Deps,
    ];

    /// A key bound twice in one context would be listed twice and do only the first thing.
    #[test]
    fn no_key_is_bound_twice_in_a_context() {
        for &c in ALL {
            let keys: Vec<Key> = entries(c)
                .flat_map(Entry::bindings)
                .map(|(k, _)| k)
                .collect();
            for (i, k) in keys.iter().enumerate() {
                assert!(!keys[..i].contains(k), "{k:?} twice in {c:?}");
            }
        }
    }

    /// A catch-all shadows whatever comes after it.
    #[test]
    fn catch_alls_come_last_in_their_context() {
        for &c in ALL {
            let keys: Vec<Key> = entries(c)
                .flat_map(Entry::bindings)
                .map(|(k, _)| k)
                .collect();
            if let Some(at) = keys.iter().position(|k| *k == Key::Any) {
                assert_eq!(at, keys.len() - 1, "{c:?}");
            }
            if let Some(at) = keys.iter().position(|k| *k == Key::Text) {
                assert!(
                    keys[at..]
                        .iter()
                        .all(|k| !matches!(k, Key::Char(_) | Key::Letter(_) | Key::Ctrl(_))),
                    "a character after text in {c:?} never fires"
                );
            }
        }
    }

    #[test]
    fn keys_resolve_in_their_context_then_its_fallback_then_globally() {
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(C::Params, &ctrl_c), Some((C::Global, A::Interrupt)));
        assert_eq!(action(C::Runs, &press(KeyCode::Up)), Some((C::Runs, A::Up)));
        assert_eq!(
            action(C::Runs, &press(KeyCode::Char('s'))),
            Some((C::Tree, A::Star))
        );
        assert_eq!(
            action(C::Filter, &press(KeyCode::Char('s'))).unwrap().1,
            A::Type
        );
        assert_eq!(action(C::Filter, &press(KeyCode::F(1))), None);
        assert_eq!(
            action(C::Confirm, &press(KeyCode::Char('Y'))).unwrap().1,
            A::Accept
        );
        assert_eq!(
            action(C::Quit, &press(KeyCode::Char('z'))).unwrap().1,
            A::Cancel
        );
        let ctrl_u = KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL);
        assert_eq!(action(C::Params, &ctrl_u).unwrap().1, A::ClearField);
        assert_eq!(action(C::Prompt, &ctrl_u).unwrap().1, A::Type);
    }

    #[test]
    fn labels_footers_and_named_keys() {
        let tree: Vec<String> = entries(C::Tree).map(Entry::label).collect();
        for want in [
            "q",
            "F1",
            "↑↓ / j k",
            "←→ / h l",
            "PgUp PgDn",
            "E / C",
            "F5 / R",
        ] {
            assert!(tree.iter().any(|l| l == want), "{want} in {tree:?}");
        }
        assert_eq!(footer(C::Tree), ["F1 help"]);
        assert_eq!(footer(C::Runs), ["Tab / Esc back to the tree", "F1 help"]);
        assert_eq!(
            footer(C::Confirm).join(" · "),
            "y runs it anyway · n / Esc does not"
        );
        assert_eq!(key(C::Tree, A::RunBackground), "b");
        assert_eq!(key(C::Tree, A::WatchToggle), "W");
        assert_eq!(
            action(C::Runs, &press(KeyCode::Char('W'))),
            Some((C::Tree, A::WatchToggle))
        );
        assert_eq!(key(C::Runs, A::Star), "s");
        assert_eq!(key(C::Viewer, A::Cancel), "Esc");
        for l in footer_lines(C::Params, 40) {
            assert!(l.chars().count() <= 40, "{l}");
        }
    }

    /// F1 lists the tree's keys; every other context says in its footer how to leave it.
    #[test]
    fn every_popup_says_how_to_leave_it() {
        for &c in ALL {
            if c == C::Global || HELP.iter().any(|(_, cs)| cs.contains(&c)) {
                continue;
            }
            assert!(
                entries(c)
                    .filter(|e| e.footer)
                    .flat_map(Entry::bindings)
                    .any(|(_, a)| a == A::Cancel),
                "{c:?}"
            );
        }
    }
}
