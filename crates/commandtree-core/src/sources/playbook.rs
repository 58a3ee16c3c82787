//! Playbooks: `.commandtree/playbooks/*.playbook.md`. Front matter (`name`, `description`,
//! `inputs`), prose for humans, and one fenced block per step whose info string is `step`,
//! optionally `id=NAME` and `context=false`. Discovery lists one command per file; the
//! `commandtree-skills` crate runs them from the same [`parse_text`], so what the tree shows and
//! what runs cannot disagree.

use super::{Parsed, SourceFile};
use crate::model::{CommandItem, ParamDef};
use serde_json::Value;

pub const KIND: &str = "playbook";
/// The file name ending that marks a playbook.
pub const SUFFIX: &str = ".playbook.md";

/// One input a playbook asks for (`{{inputs.NAME}}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub name: String,
    pub description: Option<String>,
    pub default: Option<String>,
}

/// One step: the LLM skill invocation in its fenced block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// `id=NAME`, else `step<N>` (1-based position).
    pub id: String,
    /// Whether `id` was written in the file (only named steps can be referred to).
    pub named: bool,
    /// The block's text, lines joined with `\n` (an invocation may span lines).
    pub body: String,
    /// `context=false`: the reply is not appended to the playbook's context.
    pub context: bool,
    /// 1-based line of the opening fence.
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Playbook {
    /// Front matter `name`, else the file name without `.playbook.md`.
    pub name: String,
    pub description: Option<String>,
    pub inputs: Vec<Input>,
    pub steps: Vec<Step>,
}

/// The name a playbook file gets without front matter.
pub fn stem(file_name: &str) -> &str {
    file_name.strip_suffix(SUFFIX).unwrap_or(file_name)
}

/// A problem with the line it is on (1-based), when known.
pub type LineError = (Option<usize>, String);

/// Parses a playbook's text. `Err` carries a line (when known) and what is wrong; problems that
/// leave the playbook usable (an unknown info-string word) come back as warnings.
pub fn parse_text(
    file_name: &str,
    content: &str,
) -> Result<(Playbook, Vec<(usize, String)>), LineError> {
    let mut warnings = Vec::new();
    let lines: Vec<&str> = content.lines().collect();
    let mut pb = Playbook {
        name: stem(file_name).to_string(),
        ..Default::default()
    };
    let mut i = 0;
    if lines.first().map(|l| l.trim_end()) == Some("---") {
        let end = crate::text::front_matter_end(&lines)?;
        let yaml = lines[1..end].join("\n");
        let v = crate::text::parse_yaml(&yaml)
            .map_err(|(l, m)| (l.map(|l| l + 1), format!("front matter: {m}")))?;
        front_matter(&v, &mut pb)?;
        i = end + 1;
    }
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        let fence_len = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .count();
        if fence_len < 3 {
            i += 1;
            continue;
        }
        let fence = &trimmed[..fence_len];
        let info = trimmed[fence_len..].trim();
        let mut words = info.split_whitespace();
        let is_step = words.next() == Some("step");
        let open_line = i + 1;
        let mut body = Vec::new();
        i += 1;
        let mut closed = false;
        while i < lines.len() {
            let t = lines[i].trim();
            if t.starts_with(fence)
                && t.trim_start_matches(fence.chars().next().unwrap())
                    .is_empty()
            {
                closed = true;
                i += 1;
                break;
            }
            body.push(lines[i]);
            i += 1;
        }
        if !is_step {
            continue;
        }
        if !closed {
            return Err((Some(open_line), "the step block is never closed".into()));
        }
        let mut step = Step {
            id: format!("step{}", pb.steps.len() + 1),
            named: false,
            body: body.join("\n").trim().to_string(),
            context: true,
            line: open_line,
        };
        for w in words {
            match w.split_once('=') {
                Some(("id", v)) if valid_id(v) => {
                    step.id = v.to_string();
                    step.named = true;
                }
                Some(("id", v)) => {
                    return Err((
                        Some(open_line),
                        format!("step id `{v}` must be letters, digits, `_` or `-`"),
                    ));
                }
                Some(("context", "false")) => step.context = false,
                Some(("context", "true")) => step.context = true,
                _ => warnings.push((open_line, format!("unknown step option `{w}` ignored"))),
            }
        }
        if step.body.is_empty() {
            return Err((Some(open_line), format!("step `{}` is empty", step.id)));
        }
        if step.named && pb.steps.iter().any(|s| s.id == step.id) {
            return Err((
                Some(open_line),
                format!("two steps are called `{}`", step.id),
            ));
        }
        pb.steps.push(step);
    }
    Ok((pb, warnings))
}

fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn front_matter(v: &Value, pb: &mut Playbook) -> Result<(), LineError> {
    let Some(obj) = v.as_object() else {
        if v.is_null() {
            return Ok(());
        }
        return Err((Some(1), "the front matter is not a mapping".into()));
    };
    if let Some(n) = obj
        .get("name")
        .and_then(scalar)
        .filter(|n| !n.trim().is_empty())
    {
        pb.name = n.trim().to_string();
    }
    pb.description = obj.get("description").and_then(scalar);
    let bad = |m: &str| Err((Some(1), format!("front matter `inputs`: {m}")));
    match obj.get("inputs") {
        None | Some(Value::Null) => {}
        // `inputs: [version, {name: notes, default: ""}]`
        Some(Value::Array(list)) => {
            for item in list {
                match item {
                    Value::String(name) => pb.inputs.push(Input {
                        name: name.clone(),
                        description: None,
                        default: None,
                    }),
                    Value::Object(o) => {
                        let Some(name) = o.get("name").and_then(scalar) else {
                            return bad("an entry has no `name`");
                        };
                        pb.inputs.push(Input {
                            name,
                            description: o.get("description").and_then(scalar),
                            default: o.get("default").and_then(scalar),
                        });
                    }
                    _ => return bad("entries are names or mappings with a `name`"),
                }
            }
        }
        // `inputs: {version: "The version", notes: {default: ""}}`
        Some(Value::Object(map)) => {
            for (name, spec) in map {
                let (description, default) = match spec {
                    Value::Object(o) => (
                        o.get("description").and_then(scalar),
                        o.get("default").and_then(scalar),
                    ),
                    other => (scalar(other), None),
                };
                pb.inputs.push(Input {
                    name: name.clone(),
                    description,
                    default,
                });
            }
        }
        Some(_) => return bad("a list or a mapping"),
    }
    for input in &pb.inputs {
        if !valid_id(&input.name) {
            return bad(&format!(
                "`{}` must be letters, digits, `_` or `-`",
                input.name
            ));
        }
    }
    Ok(())
}

/// Discovery: one command per playbook file, run by `ct playbook run <name>`.
pub fn parse(file: &SourceFile<'_>) -> Parsed {
    match parse_text(&file.file_name(), file.content) {
        Ok((pb, warnings)) => {
            let command = format!("ct playbook run {}", crate::text::sh_word(&pb.name));
            let mut item = CommandItem::new(KIND, file.path, &pb.name, command).opt_description(
                pb.description.clone().or_else(|| {
                    Some(format!(
                        "{} step{}",
                        pb.steps.len(),
                        if pb.steps.len() == 1 { "" } else { "s" }
                    ))
                }),
            );
            // Runs from the workspace root, where `ct` finds this workspace.
            item.cwd = file.root.to_string_lossy().into_owned();
            item.params = pb
                .inputs
                .iter()
                .map(|i| {
                    let mut p = ParamDef::new(&i.name);
                    p.description = i.description.clone();
                    p.default = i.default.clone();
                    p
                })
                .collect();
            let mut out = super::common::one_command(item);
            for (line, w) in warnings {
                out.warn(file.path, Some(line), w);
            }
            out
        }
        Err((line, message)) => Parsed::with_warning(file.path, line, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::parse_with;

    const RELEASE: &str = "---\nname: release-notes\ndescription: Draft and polish release notes\ninputs:\n  - name: version\n    description: The version\n    default: \"1.0\"\n  - notes\n---\n\nDrafts notes.\n\n```step id=draft\n@task --prompt \"Write release notes for {{inputs.version}}\"\n```\n\n```sh\necho not a step\n```\n\n````step context=false\n@task --prompt \"Shorten: {{steps.draft}}\"\n````\n";

    #[test]
    fn front_matter_inputs_and_steps() {
        let (pb, warnings) = parse_text("r.playbook.md", RELEASE).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(pb.name, "release-notes");
        assert_eq!(pb.inputs.len(), 2);
        assert_eq!(pb.inputs[0].default.as_deref(), Some("1.0"));
        assert_eq!(pb.inputs[1].name, "notes");
        assert_eq!(pb.steps.len(), 2);
        assert_eq!(pb.steps[0].id, "draft");
        assert!(pb.steps[0].named && pb.steps[0].context);
        assert_eq!(pb.steps[1].id, "step2");
        assert!(!pb.steps[1].named && !pb.steps[1].context);
        assert_eq!(
            pb.steps[1].body,
            "@task --prompt \"Shorten: {{steps.draft}}\""
        );
        assert_eq!(pb.steps[0].line, 13);
    }

    #[test]
    fn mapping_inputs_and_no_front_matter() {
        let (pb, _) = parse_text(
            "x.playbook.md",
            "---\ninputs:\n  topic: What to write about\n---\n```step\n@task --prompt hi\n```\n",
        )
        .unwrap();
        assert_eq!(pb.name, "x");
        assert_eq!(
            pb.inputs[0].description.as_deref(),
            Some("What to write about")
        );
        let (pb, _) = parse_text("y.playbook.md", "```step\n@task --prompt hi\n```\n").unwrap();
        assert_eq!(pb.name, "y");
    }

    #[test]
    fn errors_name_the_line() {
        for (text, want) in [
            ("```step\n@task --prompt hi\n", "never closed"),
            ("```step\n\n```\n", "is empty"),
            (
                "```step id=a\n@x\n```\n```step id=a\n@y\n```\n",
                "two steps",
            ),
            ("```step id=a.b\n@x\n```\n", "must be letters"),
            ("---\nname: [\n---\n", "front matter"),
            ("---\nname: x\n", "no closing"),
        ] {
            let e = parse_text("e.playbook.md", text).unwrap_err();
            assert!(e.1.contains(want), "{text:?}: {e:?}");
        }
        let (_, w) = parse_text("w.playbook.md", "```step retry=3\n@x\n```\n").unwrap();
        assert!(w[0].1.contains("retry=3"));
    }

    #[test]
    fn discovered_as_one_command_with_inputs_as_params() {
        let p = parse_with(parse, "/w/.commandtree/playbooks/r.playbook.md", RELEASE);
        assert!(p.warnings.is_empty());
        let c = &p.commands[0];
        assert_eq!(c.kind, "playbook");
        assert_eq!(c.label, "release-notes");
        assert_eq!(c.command, "ct playbook run release-notes");
        assert_eq!(c.cwd, "/w");
        assert_eq!(c.params[0].name, "version");
        let p = parse_with(
            parse,
            "/w/.commandtree/playbooks/b.playbook.md",
            "```step\n",
        );
        assert!(p.commands.is_empty());
        assert_eq!(p.warnings.len(), 1);
    }
}
