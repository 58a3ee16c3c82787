//! The filter bar: the text typed after `/` (fuzzy, over label, command line and description),
//! the tag picked with `t`, whether auxiliary commands show, and the results of a search by
//! meaning, which replace the tree. It says which commands pass; the tree draws them.

use crate::keymap::Action;
use crate::theme::Theme;
use commandtree_core::CommandItem;
use commandtree_engine::listing;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32String};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::text::Span;

/// What the tree needs of the filters.
#[derive(Clone, Copy, Default)]
pub struct Passing<'a> {
    /// Commands passing the filters, by index; `None`: all of them.
    pub visible: Option<&'a [bool]>,
    /// A text or tag filter is on: everything holding a match is shown open.
    pub narrowed: bool,
    /// Search results by meaning: (command index, similarity).
    pub search: Option<&'a [(usize, f32)]>,
}

/// What a key typed into the filter asks of the tree.
#[derive(Debug, PartialEq, Eq)]
pub enum Edit {
    Nothing,
    /// The filter changed: filter again; select the best match when the text changed.
    Refilter {
        select_best: bool,
    },
    Move(isize),
}

pub struct FilterBar {
    pub text: String,
    /// The filter has the keys.
    pub editing: bool,
    pub tag: Option<String>,
    /// Commands `ct list` leaves out without `--all` shown too (`a`); documents listed.
    pub show: listing::Show,
    /// A search by meaning: the query, then the hits (command index, similarity).
    pub search: Option<(String, Vec<(usize, f32)>)>,
    /// How many commands the default listing shows and hides (`listing::Counts`, the split
    /// `ct list` prints).
    counts: listing::Counts,
    matching: Matching,
}

/// The fuzzy match of the text filter, kept between keys: a filter that only grew (one more
/// letter typed) is matched against the previous matches alone.
struct Matching {
    /// What the text filter looks at, per command: label, command line, description.
    haystacks: Vec<Utf32String>,
    visible: Option<Vec<bool>>,
    /// The commands the text matched, and that text.
    matched: Option<(String, Vec<usize>)>,
    /// The visible command that matches best (highest score, then the shorter label):
    /// typing selects it, so Enter runs what the user was typing.
    best: Option<usize>,
    matcher: Matcher,
    /// The text's parsed pattern, also for highlighting the rows on screen.
    pattern: Option<(String, Pattern)>,
}

impl FilterBar {
    pub fn new(show: listing::Show) -> FilterBar {
        FilterBar {
            text: String::new(),
            editing: false,
            tag: None,
            show,
            search: None,
            counts: listing::Counts::default(),
            matching: Matching {
                haystacks: Vec::new(),
                visible: None,
                matched: None,
                best: None,
                matcher: Matcher::new(Config::DEFAULT),
                pattern: None,
            },
        }
    }

    pub fn passing(&self) -> Passing<'_> {
        Passing {
            visible: self.matching.visible.as_deref(),
            narrowed: self.narrowed(),
            search: self.search.as_ref().map(|(_, h)| h.as_slice()),
        }
    }

    /// A text or tag filter is on.
    pub fn narrowed(&self) -> bool {
        !self.text.is_empty() || self.tag.is_some()
    }

    /// The commands passing the filters, by index (all of them with none on).
    pub fn shown(&self, total: usize) -> Vec<usize> {
        match &self.matching.visible {
            Some(v) => (0..total).filter(|&i| v.get(i) == Some(&true)).collect(),
            None => (0..total).collect(),
        }
    }

    /// The best match of the text filter, while there is one.
    pub fn best(&self) -> Option<usize> {
        self.matching.best.filter(|_| !self.text.is_empty())
    }

    /// How many commands are listed now and how many `a` would add, as `ct list` counts them.
    pub fn counts(&self, total: usize) -> listing::Counts {
        if self.show.all {
            listing::Counts {
                shown: total,
                ..Default::default()
            }
        } else {
            self.counts
        }
    }

    /// The commands changed: counted again, matched again when next needed; search results
    /// no longer point at them.
    pub fn commands_changed(&mut self, commands: &[CommandItem]) {
        self.counts = listing::Counts::of(
            commands,
            listing::Show {
                all: false,
                docs: self.show.docs,
            },
        );
        self.forget_matches();
        self.matching.matched = None;
        self.matching.best = None;
        if let Some((_, hits)) = &mut self.search {
            hits.clear();
        }
    }

    /// The haystacks are made again when the filter next needs them.
    pub fn forget_matches(&mut self) {
        self.matching.haystacks.clear();
    }

    /// `/`: the filter has the keys; search results give way to the tree.
    pub fn start(&mut self) {
        self.search = None;
        self.editing = true;
    }

    /// `Esc` in the tree: search results go first, then the text and the tag. Whether the
    /// rows change, and whether the filters did (else only the results went).
    pub fn clear(&mut self) -> Option<bool> {
        if self.search.take().is_some() {
            return Some(false);
        }
        if !self.narrowed() {
            return None;
        }
        self.text.clear();
        self.tag = None;
        Some(true)
    }

    /// A key while the filter has the keys.
    pub fn key(&mut self, a: Action, k: &KeyEvent) -> Edit {
        match (a, k.code) {
            (Action::Cancel, _) => {
                self.editing = false;
                self.text.clear();
                Edit::Refilter { select_best: false }
            }
            (Action::Accept, _) => {
                self.editing = false;
                Edit::Nothing
            }
            (Action::Delete, _) => {
                self.text.pop();
                Edit::Refilter { select_best: true }
            }
            (Action::Type, KeyCode::Char(c)) => {
                self.text.push(c);
                Edit::Refilter { select_best: true }
            }
            (Action::Up, _) => Edit::Move(-1),
            (Action::Down, _) => Edit::Move(1),
            _ => Edit::Nothing,
        }
    }

    /// The status line's part: the text (with a cursor while typing) and the tag.
    pub fn spans(&self, t: &Theme) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        if self.editing || !self.text.is_empty() {
            spans.push(Span::styled("/", t.accent()));
            spans.push(Span::raw(self.text.clone()));
            if self.editing {
                spans.push(Span::styled("▏", t.accent()));
            }
        }
        if let Some(tag) = &self.tag {
            if !spans.is_empty() {
                spans.push(Span::styled(" │ ", t.dim()));
            }
            spans.push(Span::styled(format!("tag:{tag}"), t.accent()));
        }
        spans
    }

    /// Ready to match before the first `/`, so typing the first letter only matches.
    pub fn prepare(&mut self, commands: &[CommandItem]) {
        self.matching.haystacks(commands);
    }

    /// Which commands pass the filters. Commands `ct list` leaves out without `--all` stay out
    /// unless `a` shows them.
    pub fn apply(&mut self, commands: &[CommandItem]) {
        let m = &mut self.matching;
        let text = !self.text.is_empty();
        if !text && self.tag.is_none() && (self.show.all || self.counts.shown == commands.len()) {
            m.visible = None;
            m.matched = None;
            m.best = None;
            return;
        }
        let mut visible = m.visible.take().unwrap_or_default();
        visible.clear();
        visible.resize(commands.len(), false);
        let show = self.show;
        let tag = self.tag.as_ref();
        let passes =
            |c: &CommandItem| listing::shown(c, show) && tag.is_none_or(|t| c.tags.contains(t));
        if text {
            m.haystacks(commands);
            let matched = m.matches(&self.text);
            let mut best: Option<(u32, usize)> = None;
            for &(i, score) in &matched {
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
            m.best = best.map(|(_, i)| i);
            m.matched = Some((
                self.text.clone(),
                matched.into_iter().map(|(i, _)| i).collect(),
            ));
        } else {
            m.matched = None;
            m.best = None;
            for (i, c) in commands.iter().enumerate() {
                visible[i] = passes(c);
            }
        }
        m.visible = Some(visible);
    }

    /// Character positions of the text's match in `idx`'s label, for highlighting.
    pub fn positions(&mut self, idx: usize, commands: &[CommandItem]) -> Vec<u32> {
        if self.text.is_empty() {
            return Vec::new();
        }
        let m = &mut self.matching;
        m.haystacks(commands);
        if idx >= m.haystacks.len() {
            return Vec::new();
        }
        m.pattern(&self.text);
        let Some((_, pattern)) = &m.pattern else {
            return Vec::new();
        };
        let mut out = Vec::new();
        pattern.indices(m.haystacks[idx].slice(..), &mut m.matcher, &mut out);
        let n = commands[idx].label.chars().count() as u32;
        out.retain(|&i| i < n);
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl Matching {
    fn haystacks(&mut self, commands: &[CommandItem]) {
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

    /// Parses `text` into `pattern` unless it holds it already.
    fn pattern(&mut self, text: &str) {
        if self.pattern.as_ref().is_none_or(|(f, _)| f != text) {
            let p = Pattern::parse(text, CaseMatching::Smart, Normalization::Smart);
            self.pattern = Some((text.to_string(), p));
        }
    }

    /// The commands `text` matches, with their scores: only among the last matches when the
    /// text only grew.
    fn matches(&mut self, text: &str) -> Vec<(usize, u32)> {
        let narrower = self
            .matched
            .take()
            .filter(|(before, _)| narrows(before, text));
        let candidates: Vec<usize> = match narrower {
            Some((_, before)) => before,
            None => (0..self.haystacks.len()).collect(),
        };
        self.pattern(text);
        let Some((_, pattern)) = &self.pattern else {
            return Vec::new();
        };
        candidates
            .into_iter()
            .filter_map(|i| {
                pattern
                    .score(self.haystacks[i].slice(..), &mut self.matcher)
                    .map(|s| (i, s))
            })
            .collect()
    }
}

/// Whether everything matching `after` also matches `before`, so a search for `after` can
/// look only at `before`'s matches: `after` is `before` with more typed at the end, and
/// neither uses the pattern syntax (`!` negates, `^ $ '` anchor or quote, `\\` escapes) that
/// can make a longer pattern match something a shorter one did not.
fn narrows(before: &str, after: &str) -> bool {
    let plain = |s: &str| !s.contains(['!', '^', '$', '\'', '\\']);
    after.starts_with(before) && plain(before) && plain(after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::{press, sample as commands, screen};
    use crate::keymap::{self, Context};
    use ratatui::text::Line;
    use ratatui::widgets::Paragraph;

    fn typed(f: &mut FilterBar, commands: &[CommandItem], s: &str) {
        for c in s.chars() {
            let k = press(KeyCode::Char(c));
            let (_, a) = keymap::action(Context::Filter, &k).unwrap();
            assert_eq!(f.key(a, &k), Edit::Refilter { select_best: true });
            f.apply(commands);
        }
    }

    #[test]
    fn typing_narrows_and_picks_the_best_match() {
        let commands = commands();
        let mut f = FilterBar::new(listing::Show::default());
        f.commands_changed(&commands);
        f.apply(&commands);
        assert_eq!(f.shown(6), [0, 1, 2, 3, 4], "the auxiliary one is left out");
        f.start();
        typed(&mut f, &commands, "bu");
        assert_eq!(f.shown(6), [0, 2]);
        typed(&mut f, &commands, "ild");
        // `build` over `rebuild-all`: the same score, the shorter label.
        assert_eq!(f.best(), Some(0));
        assert_eq!(f.positions(0, &commands), [0, 1, 2, 3, 4]);
        let bksp = press(KeyCode::Backspace);
        assert_eq!(
            f.key(Action::Delete, &bksp),
            Edit::Refilter { select_best: true }
        );
        assert_eq!(f.text, "buil");
        let esc = press(KeyCode::Esc);
        assert_eq!(
            f.key(Action::Cancel, &esc),
            Edit::Refilter { select_best: false }
        );
        assert!(!f.editing && f.text.is_empty());
    }

    #[test]
    fn tag_auxiliary_and_search_results() {
        let commands = commands();
        let mut f = FilterBar::new(listing::Show::default());
        f.commands_changed(&commands);
        f.tag = Some("ci".into());
        f.apply(&commands);
        assert_eq!(f.shown(6), [0]);
        assert_eq!(f.clear(), Some(true));
        f.show.all = true;
        f.apply(&commands);
        assert_eq!(f.shown(6), [0, 1, 2, 3, 4, 5]);
        assert_eq!(f.counts(6).shown, 6);
        f.search = Some(("compile".into(), vec![(2, 0.5)]));
        assert_eq!(f.passing().search.unwrap(), &[(2, 0.5)]);
        assert_eq!(f.clear(), Some(false), "results go first");
        assert_eq!(f.clear(), None);
    }

    #[test]
    fn the_bar_in_the_status_line() {
        let mut f = FilterBar::new(listing::Show::default());
        f.start();
        f.text = "bld".into();
        f.tag = Some("ci".into());
        let spans = f.spans(&Theme::plain());
        insta::assert_snapshot!(screen(30, 1, |fr| fr
            .render_widget(Paragraph::new(Line::from(spans)), fr.area())));
    }

    #[test]
    fn only_a_plain_longer_text_narrows() {
        assert!(narrows("bu", "bui"));
        assert!(!narrows("bu", "b"));
        assert!(!narrows("bu", "bu$"));
        assert!(!narrows("!bu", "!bui"));
    }
}
