//! YAML, read once by saphyr-parser, whose events carry their position. The value is built in
//! serde_yaml_ng's model (mappings in file order, `apply_merge` for `<<`) and resolved the way
//! serde_yaml_ng resolves it (YAML 1.2 core schema, `!tag` → `Value::Tagged`, duplicate keys and
//! more than one document refused), so the sources read the same values as before; beside it,
//! [`Spans`] holds the line of every node and mapping key.
//!
//! saphyr-parser follows the YAML 1.2 grammar to the letter where libyaml, and the Go parser
//! behind Task, Compose and GitHub Actions, let some things pass (a flow collection closed at
//! its key's indentation). A file it refuses is read by serde_yaml_ng (libyaml) instead: the
//! file keeps its values (without lines), and a file both refuse gets libyaml's message.

use super::Error;
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde_yaml_ng::mapping::Entry as MapEntry;
use serde_yaml_ng::value::{Tag as ValueTag, TaggedValue};
use serde_yaml_ng::{Mapping, Number, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// Nesting limit (serde_yaml_ng's): everything that walks a value later (drop, conversion to
/// JSON, the sources) recurses.
const MAX_DEPTH: usize = 128;

/// Aliases may copy at most this many nodes per event read, which stops a "billion laughs"
/// file while leaving room for real anchors (serde_yaml_ng allows 100 alias jumps per event).
const ALIAS_NODES_PER_EVENT: usize = 100;

/// A YAML document: its value and where its parts are.
#[derive(Debug)]
pub(crate) struct Doc {
    pub(crate) value: Value,
    pub(crate) spans: Spans,
}

/// Where a node starts and, for a mapping, where each key is; shaped like the value it describes
/// (an alias copies the spans of its anchor, so they point at the anchored text).
#[derive(Clone, Debug, Default)]
pub(crate) struct Spans {
    /// 1-based line of the node's first character.
    pub(crate) line: usize,
    children: Children,
}

#[derive(Clone, Debug, Default)]
enum Children {
    #[default]
    Scalar,
    Map(Vec<Entry>),
    Seq(Vec<Spans>),
}

/// One mapping entry: the key as text (as the sources spell a scalar key, see [`key_text`]),
/// the line of the key and the spans of the value.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) key: Option<String>,
    pub(crate) line: usize,
    pub(crate) value: Spans,
}

impl Spans {
    /// The entry of `key` in this mapping.
    pub(crate) fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries()
            .iter()
            .find(|e| e.key.as_deref() == Some(key))
    }

    /// The line of `key` in this mapping.
    pub(crate) fn key_line(&self, key: &str) -> Option<usize> {
        self.entry(key).map(|e| e.line)
    }

    /// The spans of the value of `key` in this mapping.
    pub(crate) fn get(&self, key: &str) -> Option<&Spans> {
        self.entry(key).map(|e| &e.value)
    }

    /// The spans of the value at `path`, a key per mapping level.
    pub(crate) fn at(&self, path: &[&str]) -> Option<&Spans> {
        path.iter().try_fold(self, |spans, key| spans.get(key))
    }

    /// Key → line for every scalar key of this mapping, for sources that look up many.
    pub(crate) fn key_lines(&self) -> HashMap<&str, usize> {
        self.entries()
            .iter()
            .filter_map(|e| Some((e.key.as_deref()?, e.line)))
            .collect()
    }

    /// [`Spans::key_lines`] of the mapping under `key` (empty when there is none).
    pub(crate) fn key_lines_under(&self, key: &str) -> HashMap<&str, usize> {
        self.get(key).map(Spans::key_lines).unwrap_or_default()
    }

    /// The items of this sequence.
    pub(crate) fn items(&self) -> &[Spans] {
        match &self.children {
            Children::Seq(items) => items,
            _ => &[],
        }
    }

    fn entries(&self) -> &[Entry] {
        match &self.children {
            Children::Map(entries) => entries,
            _ => &[],
        }
    }

    fn leaf(line: usize) -> Spans {
        Spans {
            line,
            children: Children::Scalar,
        }
    }
}

/// A scalar key as the sources name it (what the JSON conversion makes of it too): strings as
/// they are, numbers and booleans as written back, `null`; `None` for a collection.
fn key_text(key: &Value) -> Option<String> {
    match key {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Null => Some("null".to_string()),
        Value::Tagged(t) => key_text(&t.value),
        Value::Sequence(_) | Value::Mapping(_) => None,
    }
}

/// Parses `content`. An empty stream is `null`; a stream of more than one document, a
/// duplicate key, nesting beyond 128 levels or aliases that would copy too much are errors.
pub(crate) fn parse(content: &str) -> Result<Doc, Error> {
    let refusal = match parse_marked(content) {
        Ok(doc) => return Ok(doc),
        Err(refusal) => refusal,
    };
    match serde_yaml_ng::from_str::<Value>(content) {
        Ok(value) => Ok(Doc {
            value,
            spans: Spans::default(),
        }),
        // A syntax error keeps libyaml's message, the one users have seen; a refusal of the
        // builder (a duplicate key, control characters, ...) names its exact line.
        Err(e) => Err(match refusal {
            Refusal::Syntax => (e.location().map(|l| l.line()), format!("invalid YAML: {e}")),
            Refusal::Value(error) => error,
        }),
    }
}

/// Why saphyr-parser's reading failed.
enum Refusal {
    Syntax,
    Value(Error),
}

fn parse_marked(content: &str) -> Result<Doc, Refusal> {
    printable(content).map_err(Refusal::Value)?;
    let mut builder = Builder::default();
    for next in Parser::new_from_str(content) {
        let (event, span) = next.map_err(|_| Refusal::Syntax)?;
        builder.event(event, span).map_err(Refusal::Value)?;
    }
    Ok(builder.finish())
}

/// YAML streams hold only printable characters (tab and line breaks aside); libyaml refuses the
/// others and saphyr-parser does not check, so a binary or corrupted file is refused here.
fn printable(content: &str) -> Result<(), Error> {
    let bytes = content.as_bytes();
    let bad = bytes.iter().enumerate().position(|(i, &b)| match b {
        b'\t' | b'\n' | b'\r' => false,
        0..0x20 | 0x7f => true,
        // U+0080..U+009F (C1 controls) except U+0085 (next line).
        0xc2 => bytes
            .get(i + 1)
            .is_some_and(|&n| (0x80..0xa0).contains(&n) && n != 0x85),
        // U+FFFE and U+FFFF.
        0xef => bytes.get(i + 1) == Some(&0xbf) && matches!(bytes.get(i + 2), Some(0xbe | 0xbf)),
        _ => false,
    });
    match bad {
        None => Ok(()),
        Some(at) => {
            let before = &content[..at];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count());
            Err(error(line, col, "control characters are not allowed"))
        }
    }
}

fn error(line: usize, col: usize, what: &str) -> Error {
    (
        Some(line),
        format!("invalid YAML: {what} at line {line} column {}", col + 1),
    )
}

/// A finished node with what its parent needs to bound nesting and alias copies.
struct Node {
    value: Value,
    spans: Spans,
    /// How many nodes it holds, itself included.
    size: usize,
    /// Collections nested inside it (0 for a scalar).
    height: usize,
}

/// A collection being read.
struct Frame {
    anchor: usize,
    tag: Option<String>,
    line: usize,
    size: usize,
    height: usize,
    body: Body,
}

enum Body {
    Seq(Vec<Value>, Vec<Spans>),
    /// The mapping, its entries' spans and a key waiting for its value.
    Map(Mapping, Vec<Entry>, Option<Node>),
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    root: Option<Node>,
    documents: usize,
    events: usize,
    copied: usize,
}

impl Builder {
    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), Error> {
        self.events += 1;
        let (line, col) = (span.start.line(), span.start.col());
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    let what = "deserializing from YAML containing more than one document is not supported";
                    return Err(error(line, col, what));
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                let value =
                    scalar(text, style, tag.as_deref()).map_err(|what| error(line, col, &what))?;
                let node = Node {
                    value,
                    spans: Spans::leaf(line),
                    size: 1,
                    height: 0,
                };
                self.anchored(anchor, &node);
                self.push(node, line, col)?;
            }
            Event::Alias(id) => {
                let Some(anchored) = self.anchors.get(&id) else {
                    return Err(error(line, col, "unknown anchor"));
                };
                self.copied += anchored.size;
                if self.copied > self.events.saturating_mul(ALIAS_NODES_PER_EVENT) {
                    return Err(error(line, col, "repetition limit exceeded"));
                }
                let node = Node {
                    value: anchored.value.clone(),
                    spans: anchored.spans.clone(),
                    size: anchored.size,
                    height: anchored.height,
                };
                self.push(node, line, col)?;
            }
            Event::SequenceStart(anchor, tag) => self.open(anchor, tag, line, col, false)?,
            Event::MappingStart(anchor, tag) => self.open(anchor, tag, line, col, true)?,
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.stack.pop() else {
                    return Ok(());
                };
                let (value, children) = match frame.body {
                    Body::Seq(items, spans) => (Value::Sequence(items), Children::Seq(spans)),
                    // A key without its value cannot reach the end of a mapping: the parser
                    // gives an empty scalar for a missing value.
                    Body::Map(map, entries, _) => (Value::Mapping(map), Children::Map(entries)),
                };
                let node = Node {
                    value: tagged(frame.tag, value),
                    spans: Spans {
                        line: frame.line,
                        children,
                    },
                    size: frame.size,
                    height: frame.height,
                };
                self.anchored(frame.anchor, &node);
                self.push(node, line, col)?;
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
        Ok(())
    }

    fn open(
        &mut self,
        anchor: usize,
        tag: Option<Cow<'_, Tag>>,
        line: usize,
        col: usize,
        mapping: bool,
    ) -> Result<(), Error> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(error(line, col, "recursion limit exceeded"));
        }
        self.stack.push(Frame {
            anchor,
            tag: tag.as_deref().and_then(local_tag),
            line,
            size: 1,
            height: 1,
            body: if mapping {
                Body::Map(Mapping::new(), Vec::new(), None)
            } else {
                Body::Seq(Vec::new(), Vec::new())
            },
        });
        Ok(())
    }

    fn anchored(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            let copy = Node {
                value: node.value.clone(),
                spans: node.spans.clone(),
                size: node.size,
                height: node.height,
            };
            self.anchors.insert(anchor, copy);
        }
    }

    /// Hands a finished node to the collection around it (or makes it the document).
    fn push(&mut self, node: Node, line: usize, col: usize) -> Result<(), Error> {
        let depth = self.stack.len();
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        if depth + node.height > MAX_DEPTH {
            return Err(error(line, col, "recursion limit exceeded"));
        }
        frame.size += node.size;
        frame.height = frame.height.max(node.height + 1);
        match &mut frame.body {
            Body::Seq(items, spans) => {
                items.push(node.value);
                spans.push(node.spans);
            }
            Body::Map(_, _, pending @ None) => *pending = Some(node),
            Body::Map(map, entries, pending @ Some(_)) => {
                let Some(key) = pending.take() else {
                    return Ok(());
                };
                let text = key_text(&key.value);
                match map.entry(key.value) {
                    MapEntry::Vacant(slot) => {
                        slot.insert(node.value);
                    }
                    MapEntry::Occupied(taken) => {
                        return Err(error(key.spans.line, col, &duplicate(taken.key())));
                    }
                }
                entries.push(Entry {
                    key: text,
                    line: key.spans.line,
                    value: node.spans,
                });
            }
        }
        Ok(())
    }

    fn finish(self) -> Doc {
        match self.root {
            Some(node) => Doc {
                value: node.value,
                spans: node.spans,
            },
            None => Doc {
                value: Value::Null,
                spans: Spans::leaf(1),
            },
        }
    }
}

/// serde_yaml_ng's wording.
fn duplicate(key: &Value) -> String {
    match key {
        Value::Null => "duplicate entry with null key".to_string(),
        Value::Bool(b) => format!("duplicate entry with key `{b}`"),
        Value::Number(n) => format!("duplicate entry with key {n}"),
        Value::String(s) => format!("duplicate entry with key {s:?}"),
        _ => "duplicate entry in YAML map".to_string(),
    }
}

fn tag_text(tag: &Tag) -> String {
    format!("{}{}", tag.handle, tag.suffix)
}

/// A local tag (`!Ref`) as serde_yaml_ng names it in `Value::Tagged` (without the `!`); core
/// tags (`!!str`) and other global ones are not kept.
fn local_tag(tag: &Tag) -> Option<String> {
    let text = tag_text(tag);
    let rest = text.strip_prefix('!')?;
    Some(if rest.is_empty() {
        text.clone()
    } else {
        rest.to_string()
    })
}

fn tagged(tag: Option<String>, value: Value) -> Value {
    match tag {
        Some(tag) if !tag.is_empty() => Value::Tagged(Box::new(TaggedValue {
            tag: ValueTag::new(tag),
            value,
        })),
        _ => value,
    }
}

const CORE: &str = "tag:yaml.org,2002:";

fn scalar(text: Cow<'_, str>, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    let plain = style == ScalarStyle::Plain;
    let Some(tag) = tag else {
        return Ok(if plain {
            untagged(text)
        } else {
            Value::String(text.into_owned())
        });
    };
    if let Some(local) = local_tag(tag) {
        let inner = if plain {
            untagged(text)
        } else {
            Value::String(text.into_owned())
        };
        return Ok(tagged(Some(local), inner));
    }
    let full = tag_text(tag);
    let invalid = |what: &str| format!("invalid value: string {:?}, expected {what}", &*text);
    match full.strip_prefix(CORE) {
        Some("bool") => parse_bool(&text)
            .map(Value::Bool)
            .ok_or_else(|| invalid("a boolean")),
        Some("int") => parse_int(&text).ok_or_else(|| invalid("an integer")),
        Some("float") => parse_f64(&text)
            .map(|f| Value::Number(Number::from(f)))
            .ok_or_else(|| invalid("a float")),
        Some("null") => is_null(&text)
            .then_some(Value::Null)
            .ok_or_else(|| invalid("null")),
        _ => Ok(Value::String(text.into_owned())),
    }
}

/// A plain scalar without a tag: null, boolean, integer, float or string, as serde_yaml_ng
/// decides (`yes`, `on` and `010` stay strings).
fn untagged(text: Cow<'_, str>) -> Value {
    if text.is_empty() || is_null(&text) {
        return Value::Null;
    }
    if let Some(b) = parse_bool(&text) {
        return Value::Bool(b);
    }
    // Every number starts with a digit, a sign or a dot; most strings are told apart here.
    if !text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) {
        return Value::String(text.into_owned());
    }
    if let Some(int) = parse_int(&text) {
        return int;
    }
    if !digits_but_not_number(&text)
        && let Some(f) = parse_f64(&text)
    {
        return Value::Number(Number::from(f));
    }
    Value::String(text.into_owned())
}

fn is_null(s: &str) -> bool {
    matches!(s, "~" | "null" | "Null" | "NULL")
}

fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Decimal, `0x`, `0o` or `0b`, with an optional sign. Integers beyond 64 bits, which
/// serde_yaml_ng's value cannot hold, are read as floats.
fn parse_int(s: &str) -> Option<Value> {
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = [("0x", 16), ("0o", 8), ("0b", 2)]
        .iter()
        .find_map(|(prefix, radix)| unsigned.strip_prefix(prefix).map(|d| (*radix, d)))
        .unwrap_or((10, unsigned));
    if digits.is_empty()
        || digits.starts_with(['+', '-'])
        || (radix == 10 && digits_but_not_number(s))
    {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    let value = if negative {
        0i64.checked_sub_unsigned(u64::try_from(magnitude).ok()?)
            .map(Number::from)
    } else {
        u64::try_from(magnitude).ok().map(Number::from)
    };
    Some(Value::Number(value.unwrap_or_else(|| {
        let f = magnitude as f64;
        Number::from(if negative { -f } else { f })
    })))
}

fn parse_f64(s: &str) -> Option<f64> {
    let unsigned = match s.strip_prefix('+') {
        Some(rest) if rest.starts_with(['+', '-']) => return None,
        Some(rest) => rest,
        None => s,
    };
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Some(f64::INFINITY);
    }
    if matches!(s, "-.inf" | "-.Inf" | "-.INF") {
        return Some(f64::NEG_INFINITY);
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN);
    }
    unsigned.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Leading zeros followed by digits make a string in YAML 1.2 (`010`, `-007`).
fn digits_but_not_number(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    s.len() > 1 && s.starts_with('0') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_as_serde_yaml_ng(text: &str) {
        let ours = parse(text).map(|d| d.value);
        let theirs = serde_yaml_ng::from_str::<Value>(text);
        match (ours, theirs) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{text:?}"),
            (Err(_), Err(_)) => {}
            (a, b) => panic!("{text:?}: ours {a:?}, serde_yaml_ng {b:?}"),
        }
    }

    #[test]
    fn values_resolve_as_serde_yaml_ng_resolves_them() {
        for text in [
            "",
            "# only a comment\n",
            "a: 1\nb: -2\nc: 0x1F\nd: 0o17\ne: 0b101\nf: +3\ng: 010\nh: -007\ni: 1.5\nj: .inf\nk: -.INF\n",
            "a: ~\nb: null\nc:\nd: Null\ne: true\nf: False\ng: yes\nh: on\ni: 'true'\nj: \"1\"\n",
            "a: !!str 1\nb: !!int '7'\nc: !!bool true\nd: !Ref x\ne: !Sub [a, b]\nf: !!float 1\n",
            "a: &x {k: v}\nb: *x\nc:\n  <<: *x\n  m: n\n",
            "- a\n- [b, {c: d}]\n- |\n  literal\n- >\n  folded\n",
            "a: 18446744073709551615\nb: -9223372036854775808\nc: 1e3\nd: 1_000\ne: 0x\n",
            "a: 1\na: 2\n",
            "--- a\n--- b\n",
            "---\nkey: value\n...\n",
            "? [a, b]\n: c\n1: x\ntrue: y\nnull: z\n",
        ] {
            same_as_serde_yaml_ng(text);
        }
    }

    #[test]
    fn keys_and_nodes_know_their_lines() {
        let doc = parse("name: x\non:\n  workflow_dispatch:\n    inputs:\n      a: {}\n\n      'b c': 1\nlist:\n  - one\n  - k: v\n").unwrap();
        let s = &doc.spans;
        assert_eq!(s.key_line("on"), Some(2));
        assert_eq!(
            s.at(&["on"]).and_then(|o| o.key_line("workflow_dispatch")),
            Some(3)
        );
        let inputs = s.at(&["on", "workflow_dispatch", "inputs"]).unwrap();
        let keys: Vec<_> = inputs
            .entries()
            .iter()
            .map(|e| (e.key.as_deref().unwrap(), e.line))
            .collect();
        assert_eq!(keys, [("a", 5), ("b c", 7)]);
        let list = s.get("list").unwrap();
        assert_eq!(list.items()[1].line, 10);
        assert_eq!(list.items()[1].key_line("k"), Some(10));
        assert_eq!(s.key_line("missing"), None);
    }

    #[test]
    fn flow_style_keys_have_lines_too() {
        let doc = parse("tasks: {a: 1,\n  b: 2}\n").unwrap();
        let tasks = doc.spans.get("tasks").unwrap();
        assert_eq!(tasks.key_lines(), HashMap::from([("a", 1), ("b", 2)]));
    }

    #[test]
    fn errors_name_a_line() {
        let (line, msg) = parse("a:\n  b: [1,\n").unwrap_err();
        assert!(line.is_some() && msg.starts_with("invalid YAML"), "{msg}");
        let (line, msg) = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(line, Some(3));
        assert!(msg.contains("duplicate entry with key \"a\""), "{msg}");
    }

    #[test]
    fn what_only_libyaml_accepts_keeps_its_values_without_lines() {
        // A comment inside a flow sequence closed at its key's indentation.
        let text = "a:\n  b: [\n    # c\n    'x'\n  ]\n  c: 1\n";
        assert!(parse_marked(text).is_err());
        let doc = parse(text).unwrap();
        assert_eq!(doc.value, serde_yaml_ng::from_str::<Value>(text).unwrap());
        assert_eq!(doc.spans.key_line("a"), None);
    }

    #[test]
    fn control_characters_are_refused_where_they_are() {
        let (line, msg) = parse("a: 1\nb: x\u{1}y\n").unwrap_err();
        assert_eq!(line, Some(2));
        assert!(
            msg.contains("control characters") && msg.contains("column 5"),
            "{msg}"
        );
        assert!(parse("a: \u{85}\u{a0}é\u{fffd}\tb\r\n").is_ok());
        assert!(parse("a: \u{9f}\n").is_err());
        assert!(parse("a: \u{ffff}\n").is_err());
    }

    #[test]
    fn hostile_input_is_refused_not_expanded() {
        let deep = "- ".repeat(10_000);
        assert!(parse(&deep).unwrap_err().1.contains("recursion limit"));
        let laughs = "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n";
        assert!(parse(laughs).unwrap_err().1.contains("repetition limit"));
        let nested_aliases = (0..200)
            .map(|i| {
                if i == 0 {
                    "a0: &a0 [x]\n".to_string()
                } else {
                    format!("a{i}: &a{i} [*a{}]\n", i - 1)
                }
            })
            .collect::<String>();
        assert!(
            parse(&nested_aliases)
                .unwrap_err()
                .1
                .contains("recursion limit")
        );
    }
}
