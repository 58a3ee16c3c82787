//! Label ordering that matches what users of the original saw: JavaScript `localeCompare` with
//! base sensitivity (ICU root collation). Case- and accent-insensitive; whitespace, then
//! punctuation and symbols in ICU's order, then digits, then letters. A plain lowercase compare
//! would put `deploy.sh` before `deploy_all.sh`; ICU puts `_` first.

use std::cmp::Ordering;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// ASCII punctuation and symbols in ICU root order (primary weights).
const PUNCT: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// Primary weight of one (already case-folded, accent-stripped) character.
fn weight(c: char) -> u32 {
    if c.is_whitespace() {
        return 1;
    }
    if let Some(i) = PUNCT.find(c) {
        return 10 + i as u32;
    }
    if c.is_ascii_digit() {
        return 100 + (c as u32 - '0' as u32);
    }
    if c.is_ascii_lowercase() {
        return 200 + (c as u32 - 'a' as u32);
    }
    if c.is_ascii() {
        // Remaining ASCII controls: before everything visible.
        return 0;
    }
    if c.is_alphabetic() {
        return 300 + c as u32;
    }
    // Other symbols (dashes, quotes, emoji): with punctuation, after ASCII symbols.
    50
}

/// `weight` of each ASCII byte after lowercasing: an ASCII label (most of them) is its own
/// NFD form and has no combining marks, so its key is one table lookup per byte.
fn ascii_weights() -> &'static [u32; 128] {
    static TABLE: std::sync::OnceLock<[u32; 128]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|b| weight((b as u8).to_ascii_lowercase() as char)))
}

/// The primary sort key of a label.
pub fn key(label: &str) -> Vec<u32> {
    if label.is_ascii() {
        let table = ascii_weights();
        return label.bytes().map(|b| table[b as usize]).collect();
    }
    label
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .map(weight)
        .collect()
}

/// Compares two labels; equal primary keys fall back to the raw strings so output is stable.
pub fn compare(a: &str, b: &str) -> Ordering {
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_keys_are_the_general_keys() {
        let general = |s: &str| -> Vec<u32> {
            s.nfd()
                .filter(|c| !is_combining_mark(*c))
                .flat_map(char::to_lowercase)
                .map(weight)
                .collect()
        };
        let all: String = (0u8..128).map(char::from).collect();
        for s in [all.as_str(), "Deploy_All.sh", "build:Web", "a b\tc", ""] {
            assert_eq!(key(s), general(s), "{s:?}");
        }
    }

    fn sorted(mut v: Vec<&str>) -> Vec<&str> {
        v.sort_by(|a, b| compare(a, b));
        v
    }

    #[test]
    fn icu_like_order() {
        assert_eq!(
            sorted(vec!["ab", "a1", "a.b", "a-b", "a_b"]),
            vec!["a_b", "a-b", "a.b", "a1", "ab"]
        );
        assert_eq!(
            sorted(vec!["up app-1", "up -d", "up"]),
            vec!["up", "up -d", "up app-1"]
        );
        assert_eq!(
            sorted(vec!["deploy.sh", "deploy_all.sh"]),
            vec!["deploy_all.sh", "deploy.sh"]
        );
        assert_eq!(
            sorted(vec!["zeta", "alpha", "middle", "Beta"]),
            vec!["alpha", "Beta", "middle", "zeta"]
        );
        assert_eq!(key("ab"), key("aB"));
        assert_eq!(key("é"), key("e"));
        assert_eq!(
            sorted(vec![
                "zeta",
                "help",
                "alpha",
                "COVERAGE_THRESHOLDS_FILE",
                "UNAME",
                "build"
            ]),
            vec![
                "alpha",
                "build",
                "COVERAGE_THRESHOLDS_FILE",
                "help",
                "UNAME",
                "zeta"
            ]
        );
    }
}
