//! The Agent Skills specification's rules for a `SKILL.md` front matter (agentskills.io, as its
//! `skills-ref` validator applies them), used to check what `ct export` writes.

use crate::frontmatter;
use serde_json::Value;

/// The only top-level keys the specification allows.
pub const ALLOWED_FIELDS: &[&str] = &[
    "name",
    "description",
    "license",
    "allowed-tools",
    "metadata",
    "compatibility",
];

/// Whether `name` is a valid skill name: 1–64 characters, lowercase letters, digits and `-`, no
/// `-` at either end and no `--`.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// A valid skill name made from any id: lowercased, other characters turned into `-`, runs of
/// `-` collapsed, cut at 64. `skill` when nothing is left.
pub fn sanitize_name(id: &str) -> String {
    let mut s = String::new();
    for c in id.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            s.push(c);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let s: String = s.trim_matches('-').chars().take(64).collect();
    let s = s.trim_end_matches('-').to_string();
    if s.is_empty() { "skill".into() } else { s }
}

/// A description within the rules: whitespace folded, 1–1024 characters.
pub fn fit_description(description: &str, fallback: &str) -> String {
    let d = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let d = if d.is_empty() {
        fallback.to_string()
    } else {
        d
    };
    if d.chars().count() <= 1024 {
        return d;
    }
    let mut cut: String = d.chars().take(1021).collect();
    cut.push_str("...");
    cut
}

/// Every rule `SKILL.md` text in the folder `dir_name` breaks; empty when it is valid.
pub fn validate(dir_name: &str, skill_md: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if !skill_md.starts_with("---") {
        return vec!["SKILL.md must start with YAML front matter (`---`)".into()];
    }
    let fm = match frontmatter::split(skill_md) {
        Ok(f) => f,
        Err(e) => return vec![format!("line {}: {}", e.line, e.message)],
    };
    let unexpected: Vec<&str> = fm
        .fields
        .keys()
        .map(String::as_str)
        .filter(|k| !ALLOWED_FIELDS.contains(k))
        .collect();
    if !unexpected.is_empty() {
        errors.push(format!(
            "Unexpected fields in frontmatter: {}",
            unexpected.join(", ")
        ));
    }
    match fm.fields.get("name") {
        Some(Value::String(n)) => {
            if !valid_name(n) {
                errors.push(format!("invalid skill name `{n}`"));
            }
            if n != dir_name {
                errors.push(format!(
                    "skill name `{n}` must equal its folder `{dir_name}`"
                ));
            }
        }
        _ => errors.push("`name` is required and must be a string".into()),
    }
    match fm.fields.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() && d.chars().count() <= 1024 => {}
        _ => errors
            .push("`description` must be a non-empty string of at most 1024 characters".into()),
    }
    if let Some(c) = fm.fields.get("compatibility")
        && !matches!(c, Value::String(s) if !s.is_empty() && s.chars().count() <= 500)
    {
        errors.push("`compatibility` must be a string of 1 to 500 characters".into());
    }
    if let Some(m) = fm.fields.get("metadata") {
        match m {
            Value::Object(o) if o.values().all(Value::is_string) => {}
            _ => errors.push("`metadata` must map strings to strings".into()),
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(valid_name("rest-api-design"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert_eq!(sanitize_name("REST API  Design!"), "rest-api-design");
        assert_eq!(sanitize_name("--"), "skill");
        assert!(valid_name(&sanitize_name(&"ab-".repeat(40))));
    }

    #[test]
    fn validation() {
        assert!(
            validate(
                "x",
                "---\nname: x\ndescription: d\nmetadata:\n  a: b\n---\n"
            )
            .is_empty()
        );
        let e = validate("y", "---\nname: x\nkeywords: [a]\nmetadata:\n  a: 1\n---\n");
        assert_eq!(e.len(), 4, "{e:?}");
    }
}
