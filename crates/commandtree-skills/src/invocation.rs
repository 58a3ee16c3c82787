//! `@name --flag value ...`: the words of an LLM skill invocation, split with POSIX shell quoting
//! (`shlex`), so `--prompt "Summarize this text"` and `--modelOptions '{"temperature":0.7}'`
//! arrive as one word each.

use crate::{Error, Result};

/// An LLM skill's name and the words after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub skill: String,
    pub args: Vec<String>,
}

/// Splits `text` into words as a POSIX shell would (quotes, backslashes; no expansion).
pub fn split(text: &str) -> Result<Vec<String>> {
    shlex::split(text).ok_or_else(|| {
        Error::invalid(format!(
            "unbalanced quotes in `{}`",
            commandtree_core::text::truncate(text.trim(), 80)
        ))
    })
}

/// Parses `@name --flag value ...` (the `@` is optional). Newlines count as spaces, so a long
/// invocation may span lines.
pub fn parse(text: &str) -> Result<Invocation> {
    from_words(split(text)?)
}

/// An invocation from words already split (by the shell, for `ct skill run`, or by [`split`]).
pub fn from_words(mut words: Vec<String>) -> Result<Invocation> {
    if words.is_empty() {
        return Err(Error::invalid(
            "empty invocation: expected `@skill --flag value`",
        ));
    }
    let first = words.remove(0);
    let skill = first.strip_prefix('@').unwrap_or(&first).to_string();
    if skill.is_empty() || skill.starts_with('-') {
        return Err(Error::invalid(format!(
            "`{first}` is not a skill name: expected `@skill --flag value`"
        )));
    }
    Ok(Invocation { skill, args: words })
}

/// An invocation from a skill's name (with or without `@`) and its flags as a JSON object
/// (what an editor sends): each `"name": value` becomes `--name` and the value's [`word`].
pub fn from_params(
    skill: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Result<Invocation> {
    let mut words = vec![skill.trim_start_matches('@').to_string()];
    for (k, v) in params {
        words.push(format!("--{k}"));
        words.push(word(v));
    }
    from_words(words)
}

/// A JSON value as the word a flag (or a playbook input) takes: a string as it is, anything
/// else as JSON.
pub fn word(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example_splits_into_words() {
        let inv = parse(
            r#"@task --prompt "Summarize this text" --model "gpt-4o" --modelOptions '{"temperature":0.7,"max_tokens":256}'"#,
        )
        .unwrap();
        assert_eq!(inv.skill, "task");
        assert_eq!(
            inv.args,
            [
                "--prompt",
                "Summarize this text",
                "--model",
                "gpt-4o",
                "--modelOptions",
                r#"{"temperature":0.7,"max_tokens":256}"#
            ]
        );
    }

    #[test]
    fn quoting_backslashes_and_lines() {
        let inv =
            parse("@file --action write\n  --path ./a\\ b.txt --content 'it''s \"x\"'").unwrap();
        assert_eq!(inv.skill, "file");
        assert_eq!(
            inv.args,
            [
                "--action",
                "write",
                "--path",
                "./a b.txt",
                "--content",
                "its \"x\""
            ]
        );
        assert_eq!(parse("task --prompt hi").unwrap().skill, "task");
    }

    #[test]
    fn malformed_invocations_are_errors() {
        assert!(
            matches!(parse("@task --prompt \"open"), Err(Error::Invalid(m)) if m.contains("unbalanced"))
        );
        assert!(matches!(parse("   "), Err(Error::Invalid(m)) if m.contains("empty")));
        assert!(
            matches!(parse("--prompt x"), Err(Error::Invalid(m)) if m.contains("not a skill name"))
        );
        assert!(parse("@").is_err());
    }

    #[test]
    fn params_become_flags_with_json_values_as_words() {
        let params =
            serde_json::json!({"prompt": "hi there", "modelOptions": {"temperature": 0.7}});
        let inv = from_params("@task", params.as_object().unwrap()).unwrap();
        assert_eq!(inv.skill, "task");
        assert_eq!(
            inv.args,
            [
                "--modelOptions",
                r#"{"temperature":0.7}"#,
                "--prompt",
                "hi there"
            ]
        );
        assert!(from_params("", &serde_json::Map::new()).is_err());
    }
}
