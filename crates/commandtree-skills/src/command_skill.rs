//! Command skills: `.commandtree/skills/*.md`, each an action on any command ("Clean Up
//! Script"). Front matter `name` (required) and `icon` (a VS Code ThemeIcon id, default
//! `wand`); the markdown body is the instruction set. Applying one sends the command's file
//! and the instructions to the LLM, takes the whole new file from the reply, shows a unified
//! diff and writes the file only after confirmation, atomically, and only if it did not change
//! meanwhile.
//!
//! `*.skill.md` files in the same folder are knowledge-only skill definitions (another crate)
//! and are not command skills.

use crate::api::{RequestOptions, SkillApi, SkillMessage, SkillRole};
use crate::{Error, Result};
use commandtree_core::{CommandItem, Warning};
use serde::Serialize;
use std::path::{Path, PathBuf};

pub const DEFAULT_ICON: &str = "wand";

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandSkill {
    /// The file name without `.md`: a stable handle (`ct skill apply clean-up ...`).
    pub id: String,
    /// Display text (front matter `name`).
    pub name: String,
    pub icon: String,
    /// Front matter `description`, shown beside the name where a front end lists skills.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The markdown body.
    pub instructions: String,
    pub path: PathBuf,
}

/// `.commandtree/skills` of a workspace.
pub fn dir(root: &Path) -> PathBuf {
    root.join(".commandtree").join("skills")
}

/// Whether `path` is a command skill file (for watchers): `*.md` directly in the skills
/// folder, not a `*.skill.md` definition.
pub fn is_command_skill_file(root: &Path, path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    path.parent() == Some(dir(root).as_path())
        && name.ends_with(".md")
        && !name.ends_with(".skill.md")
}

/// Parses one command skill file's text.
pub fn parse(
    path: &Path,
    text: &str,
) -> std::result::Result<CommandSkill, (Option<usize>, String)> {
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let id = file.strip_suffix(".md").unwrap_or(file).to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err((
            Some(1),
            "no front matter: the file must start with `---` and set `name`".into(),
        ));
    }
    let end = commandtree_core::text::front_matter_end(&lines)?;
    let v = commandtree_core::text::parse_yaml(&lines[1..end].join("\n"))
        .map_err(|(l, m)| (l.map(|l| l + 1), format!("front matter: {m}")))?;
    let get = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let name = get("name").ok_or((Some(1), "the front matter has no `name`".to_string()))?;
    let icon = get("icon").unwrap_or_else(|| DEFAULT_ICON.to_string());
    let description = get("description");
    let instructions = lines[end + 1..].join("\n").trim().to_string();
    if instructions.is_empty() {
        return Err((
            Some(end + 1),
            "no instructions after the front matter".into(),
        ));
    }
    Ok(CommandSkill {
        id,
        name,
        icon,
        description,
        instructions,
        path: path.to_path_buf(),
    })
}

/// Every command skill of the workspace, by file name; unreadable or malformed files become
/// warnings with file and line.
pub fn discover(root: &Path) -> (Vec<CommandSkill>, Vec<Warning>) {
    let mut skills = Vec::new();
    let mut warnings = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir(root)) else {
        return (skills, warnings);
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| is_command_skill_file(root, p))
        .collect();
    paths.sort();
    for p in paths {
        match commandtree_core::fs::read_file(&p) {
            Ok(text) => match parse(&p, &text) {
                Ok(s) => skills.push(s),
                Err((line, m)) => warnings.push(Warning::new(&p, line, m)),
            },
            Err(e) => warnings.push(Warning::new(&p, None, e.to_string())),
        }
    }
    (skills, warnings)
}

/// The skill named `query`: its file id, or its display name (case-insensitive).
pub fn find(root: &Path, query: &str) -> Result<CommandSkill> {
    let (skills, _) = discover(root);
    if let Some(s) = skills.iter().find(|s| s.id == query) {
        return Ok(s.clone());
    }
    let by_name: Vec<&CommandSkill> = skills
        .iter()
        .filter(|s| s.name.eq_ignore_ascii_case(query))
        .collect();
    match by_name.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(Error::invalid(if skills.is_empty() {
            format!(
                "no command skill `{query}`: {} has none",
                dir(root).display()
            )
        } else {
            format!(
                "no command skill `{query}` (there are: {})",
                skills
                    .iter()
                    .map(|s| s.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })),
        many => Err(Error::invalid(format!(
            "`{query}` names several command skills ({}); use the file name",
            many.iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// What the model proposes for one file.
#[derive(Debug, Clone)]
pub struct Proposal {
    pub path: PathBuf,
    pub before: String,
    pub after: String,
}

impl Proposal {
    pub fn changed(&self) -> bool {
        self.before != self.after
    }

    /// The unified diff (3 lines of context), `a/` and `b/` paths relative to `root`.
    pub fn diff(&self, root: &Path) -> String {
        let rel = self
            .path
            .strip_prefix(root)
            .unwrap_or(&self.path)
            .display()
            .to_string();
        similar::TextDiff::from_lines(&self.before, &self.after)
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{rel}"), &format!("b/{rel}"))
            .to_string()
    }
}

const INSTRUCTION: &str = "You edit one file of a software project. Apply the instructions to the file and answer with the complete new file, inside one fenced code block, and nothing else. Keep everything the instructions do not ask to change.";

/// The messages a command skill sends: the editing rule as `agent`, then the instructions and
/// the file as `user`.
pub fn messages(
    skill: &CommandSkill,
    item: &CommandItem,
    rel: &str,
    content: &str,
) -> Vec<SkillMessage> {
    let fence = fence_for(content);
    vec![
        SkillMessage::new(SkillRole::Agent, INSTRUCTION),
        SkillMessage::user(format!(
            "Instructions ({}):\n{}\n\nThe file `{rel}` (it defines the command `{}`):\n{fence}\n{content}{}{fence}",
            skill.name,
            skill.instructions,
            item.label,
            if content.ends_with('\n') { "" } else { "\n" }
        )),
    ]
}

/// A fence longer than any backtick run in `text`.
fn fence_for(text: &str) -> String {
    commandtree_core::text::code_fence(text)
}

/// The new file in a reply: the first fenced block's content (the longest fence wins when a
/// block holds shorter ones), else the whole reply. The original's final newline is kept.
pub fn extract(reply: &str, original: &str) -> String {
    let lines: Vec<&str> = reply.lines().collect();
    let mut body: Option<String> = None;
    if let Some(start) = lines.iter().position(|l| l.trim_start().starts_with("```")) {
        let open = lines[start].trim_start();
        let ticks = open.chars().take_while(|&c| c == '`').count();
        let close = lines[start + 1..]
            .iter()
            .rposition(|l| {
                let t = l.trim();
                t.len() >= ticks && t.chars().all(|c| c == '`')
            })
            .map(|p| p + start + 1);
        if let Some(end) = close {
            body = Some(lines[start + 1..end].join("\n"));
        }
    }
    let mut text = body.unwrap_or_else(|| reply.trim().to_string());
    if original.ends_with('\n') && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// Asks the model for the new version of `item`'s file. Nothing is written. Only a
/// [`Session`](crate::Session) asks, after its trust check.
pub(crate) fn propose(
    root: &Path,
    skill: &CommandSkill,
    item: &CommandItem,
    api: &dyn SkillApi,
    options: &RequestOptions,
) -> Result<Proposal> {
    if item.file_path.is_empty() {
        return Err(Error::invalid(format!(
            "`{}` has no file to change",
            item.label
        )));
    }
    let path = PathBuf::from(&item.file_path);
    let rel = path
        .strip_prefix(root)
        .unwrap_or(&path)
        .display()
        .to_string();
    crate::builtin::file::confine(root, &rel)?;
    let before =
        commandtree_core::fs::read_file(&path).map_err(|e| Error::failed(format!("{rel}: {e}")))?;
    let raw = std::fs::read(&path).map_err(|e| Error::failed(format!("{rel}: {e}")))?;
    if raw != before.as_bytes() {
        // CRLF, a BOM or invalid UTF-8 would be rewritten silently by a whole-file answer.
        return Err(Error::failed(format!(
            "{rel}: only UTF-8 files with LF line ends and no BOM can be rewritten"
        )));
    }
    let reply = api.send_request(messages(skill, item, &rel, &before), options)?;
    Ok(Proposal {
        path,
        after: extract(&reply.response, &before),
        before,
    })
}

/// What [`apply`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    Written,
    /// The proposal is the file as it is: nothing to write.
    Unchanged,
}

/// Writes the proposal, atomically, if the file still holds exactly what was sent
/// ([`Error::Changed`] otherwise). Only a [`Session`](crate::Session) writes, after its trust
/// check.
pub(crate) fn apply(p: &Proposal) -> Result<Applied> {
    // Read without waiting: a FIFO put there meanwhile is refused, not waited on. Any size
    // well over what was sent only needs to be seen to differ.
    let now = commandtree_safefs::read_existing(
        &p.path,
        &commandtree_safefs::Options::new(),
        (p.before.len() as u64).saturating_mul(2).max(1 << 20),
    )
    .map_err(|e| Error::failed(e.to_string()))?;
    if now.as_deref() != Some(p.before.as_bytes()) {
        return Err(Error::Changed(p.path.clone()));
    }
    if !p.changed() {
        return Ok(Applied::Unchanged);
    }
    crate::builtin::file::write_atomic(None, &p.path, p.after.as_bytes())
        .map_err(|e| Error::failed(e.to_string()))?;
    Ok(Applied::Written)
}

/// Keeps the command skills of a workspace current: `on_change` gets the whole new list (and
/// its warnings) whenever a command skill file is added, changed or removed, until the
/// returned [`Watch`] is dropped.
///
/// The folder is polled (its listing and each file's size and modification time, twice a
/// second) rather than watched by the OS: it holds a handful of files, and it may not exist
/// yet, or be removed and made again, which an OS watch on it would not survive.
pub fn watch(
    root: &Path,
    on_change: impl Fn(Vec<CommandSkill>, Vec<Warning>) + Send + 'static,
) -> Watch {
    let root = root.to_path_buf();
    let cancel = commandtree_engine::CancelToken::new();
    let stop = cancel.clone();
    let mut last = fingerprint(&root);
    let thread = std::thread::spawn(move || {
        while cancel.sleep(POLL) {
            let now = fingerprint(&root);
            if now != last {
                last = now;
                let (skills, warnings) = discover(&root);
                on_change(skills, warnings);
            }
        }
    });
    Watch {
        stop,
        thread: Some(thread),
    }
}

const POLL: std::time::Duration = std::time::Duration::from_millis(500);

type Fingerprint = Vec<(PathBuf, u64, Option<std::time::SystemTime>)>;

fn fingerprint(root: &Path) -> Fingerprint {
    let Ok(entries) = std::fs::read_dir(dir(root)) else {
        return Vec::new();
    };
    let mut out: Fingerprint = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| is_command_skill_file(root, p))
        .map(|p| {
            let meta = std::fs::metadata(&p).ok();
            let len = meta.as_ref().map_or(0, |m| m.len());
            let modified = meta.and_then(|m| m.modified().ok());
            (p, len, modified)
        })
        .collect();
    out.sort();
    out
}

/// A running [`watch`]; dropping it stops the thread.
pub struct Watch {
    stop: commandtree_engine::CancelToken,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_name_icon_and_body() {
        let s = parse(
            Path::new("/w/.commandtree/skills/clean-up.md"),
            "---\nname: Clean Up Script\nicon: sparkle\n---\n\n- Remove superfluous comments from script\n- Remove duplication\n",
        )
        .unwrap();
        assert_eq!(s.id, "clean-up");
        assert_eq!(s.name, "Clean Up Script");
        assert_eq!(s.icon, "sparkle");
        assert_eq!(s.description, None);
        assert!(s.instructions.starts_with("- Remove superfluous"));
        let s = parse(
            Path::new("/w/x.md"),
            "---\nname: X\ndescription: Tidies it\n---\nDo it.",
        )
        .unwrap();
        assert_eq!(s.icon, "wand");
        assert_eq!(s.description.as_deref(), Some("Tidies it"));
        for (text, want) in [
            ("Do it.", "no front matter"),
            ("---\nicon: x\n---\nDo it.", "no `name`"),
            ("---\nname: X\n---\n", "no instructions"),
            ("---\nname: X\n", "no closing"),
        ] {
            let e = parse(Path::new("/w/x.md"), text).unwrap_err();
            assert!(e.1.contains(want), "{text:?}: {e:?}");
        }
    }

    #[test]
    fn extract_takes_the_fenced_file_and_keeps_the_final_newline() {
        assert_eq!(
            extract("Here:\n```sh\necho hi\n```\nDone.", "x\n"),
            "echo hi\n"
        );
        assert_eq!(extract("echo hi", "x\n"), "echo hi\n");
        assert_eq!(extract("echo hi", "x"), "echo hi");
        // A longer fence holds a file that has fences of its own.
        assert_eq!(
            extract("````md\n# T\n```sh\nls\n```\n````", ""),
            "# T\n```sh\nls\n```"
        );
        assert_eq!(fence_for("a ``` b"), "````");
    }

    #[test]
    fn diff_is_unified_with_relative_paths() {
        let p = Proposal {
            path: PathBuf::from("/w/scripts/a.sh"),
            before: "a\nb\nc\n".into(),
            after: "a\nB\nc\n".into(),
        };
        let d = p.diff(Path::new("/w"));
        assert!(
            d.starts_with("--- a/scripts/a.sh\n+++ b/scripts/a.sh\n@@ -1,3 +1,3 @@\n"),
            "{d}"
        );
        assert!(d.contains("-b\n+B\n"));
    }
}
