//! Pure readers: `(relative path, text) -> definitions + warnings`. Never panics; a broken file
//! gives a warning with its line and no definition. Our own formats and the ones users already
//! have (Claude Code, Copilot, Agent Skills, AGENTS.md/CLAUDE.md) are read by the same code,
//! leniently: list fields may be YAML lists or comma/space-separated strings, kebab-case
//! spellings are accepted, unknown fields are kept in `extra`.

use crate::frontmatter::{self, FrontMatter};
use crate::model::*;
use serde_json::{Map, Value};

/// Where each kind is read from, as globs relative to the workspace root (`*` stays within one
/// folder, `**/` matches any depth). `route` accepts exactly these paths.
pub const PROMPT_PATTERNS: &[&str] = &[
    ".github/commands/*.command.md",
    ".commandtree/commands/*.command.md",
    ".claude/commands/**/*.md",
    ".github/prompts/*.prompt.md",
];
pub const AGENT_PATTERNS: &[&str] = &[
    ".github/agents/*.agent.md",
    ".commandtree/agents/*.agent.md",
    ".claude/agents/**/*.md",
];
pub const SKILL_PATTERNS: &[&str] = &[
    ".github/skills/*.skill.md",
    ".commandtree/skills/*.skill.md",
    ".github/skills/*/SKILL.md",
    ".claude/skills/*/SKILL.md",
];
pub const INSTRUCTIONS_PATTERNS: &[&str] = &[
    ".github/instructions/**/*.instructions.md",
    ".commandtree/instructions/**/*.instructions.md",
    ".github/agents/*/*.instructions.md",
    ".commandtree/agents/*/*.instructions.md",
    ".github/copilot-instructions.md",
    "AGENTS.md",
    "CLAUDE.md",
    ".claude/CLAUDE.md",
    ".claude/rules/**/*.md",
];

pub fn patterns(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Prompt => PROMPT_PATTERNS,
        Kind::Agent => AGENT_PATTERNS,
        Kind::Skill => SKILL_PATTERNS,
        Kind::Instructions => INSTRUCTIONS_PATTERNS,
    }
}

/// The kind and format of a file, from its path relative to the root (`/`-separated).
pub fn route(rel: &str) -> Option<(Kind, Format)> {
    let parts: Vec<&str> = rel.split('/').collect();
    let ours = |dir: &str| match dir {
        ".github" => Some(Format::Github),
        ".commandtree" => Some(Format::Commandtree),
        _ => None,
    };
    let md = |f: &str| f.ends_with(".md");
    match parts.as_slice() {
        [d, "commands", f] if f.ends_with(".command.md") && ours(d).is_some() => {
            Some((Kind::Prompt, ours(d)?))
        }
        [".claude", "commands", rest @ ..] if !rest.is_empty() && md(rest[rest.len() - 1]) => {
            Some((Kind::Prompt, Format::ClaudeCode))
        }
        [".github", "prompts", f] if f.ends_with(".prompt.md") => {
            Some((Kind::Prompt, Format::Copilot))
        }
        [d, "agents", f] if f.ends_with(".agent.md") && ours(d).is_some() => {
            Some((Kind::Agent, ours(d)?))
        }
        [d, "agents", _, f] if f.ends_with(".instructions.md") && ours(d).is_some() => {
            Some((Kind::Instructions, ours(d)?))
        }
        [".claude", "agents", rest @ ..] if !rest.is_empty() && md(rest[rest.len() - 1]) => {
            Some((Kind::Agent, Format::ClaudeCode))
        }
        [d, "skills", f] if f.ends_with(".skill.md") && ours(d).is_some() => {
            Some((Kind::Skill, ours(d)?))
        }
        [".github" | ".claude", "skills", _, "SKILL.md"] => {
            Some((Kind::Skill, Format::AgentSkills))
        }
        [d, "instructions", rest @ ..]
            if !rest.is_empty()
                && rest[rest.len() - 1].ends_with(".instructions.md")
                && ours(d).is_some() =>
        {
            Some((Kind::Instructions, ours(d)?))
        }
        [".github", "copilot-instructions.md"] => Some((Kind::Instructions, Format::Copilot)),
        [".claude", "rules", rest @ ..] if !rest.is_empty() && md(rest[rest.len() - 1]) => {
            Some((Kind::Instructions, Format::ClaudeCode))
        }
        ["AGENTS.md"] | ["CLAUDE.md"] | [".claude", "CLAUDE.md"] => {
            Some((Kind::Instructions, Format::AgentsMd))
        }
        _ => None,
    }
}

/// What one file held.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Parsed {
    pub definitions: Vec<Definition>,
    pub warnings: Vec<Warning>,
}

impl Parsed {
    fn warn(file: &str, line: Option<u32>, message: impl Into<String>) -> Parsed {
        Parsed {
            definitions: Vec::new(),
            warnings: vec![Warning::new(file, line, message)],
        }
    }
}

/// Reads the file at `rel` (relative to the root, `/`-separated). A path `route` does not know,
/// or a file `ct export` generated, gives nothing.
pub fn parse(rel: &str, content: &str) -> Parsed {
    // A copy `ct export` wrote for another tool: its definition is read from where it came from.
    if crate::export::is_generated(content) {
        return Parsed::default();
    }
    match route(rel) {
        Some((kind, format)) => parse_as(kind, format, rel, content, Origin::Repo),
        None => Parsed::default(),
    }
}

/// Reads `content` as a definition of `kind` in `format`; `file` names it in warnings and
/// `Meta::file`.
pub fn parse_as(kind: Kind, format: Format, file: &str, content: &str, source: Origin) -> Parsed {
    let fm = match frontmatter::split(content) {
        Ok(fm) => fm,
        Err(e) => {
            return Parsed::warn(
                file,
                Some(e.line),
                format!("{}; this {} is skipped", e.message, kind.noun()),
            );
        }
    };
    let mut r = Reader {
        file,
        fm: &fm,
        used: Vec::new(),
        error: None,
        warnings: Vec::new(),
    };
    let def = match kind {
        Kind::Prompt => prompt(&mut r, format, source),
        Kind::Agent => agent(&mut r, format, source),
        Kind::Skill => skill(&mut r, format, source),
        Kind::Instructions => instructions(&mut r, format, source),
    };
    let mut warnings = std::mem::take(&mut r.warnings);
    if let Some(w) = r.error.take() {
        warnings.push(w);
        return Parsed {
            definitions: Vec::new(),
            warnings,
        };
    }
    Parsed {
        definitions: def.into_iter().collect(),
        warnings,
    }
}

struct Reader<'a> {
    file: &'a str,
    fm: &'a FrontMatter,
    used: Vec<&'static str>,
    error: Option<Warning>,
    warnings: Vec<Warning>,
}

impl Reader<'_> {
    fn line(&self, key: &str) -> Option<u32> {
        self.fm.line_of(key)
    }

    /// The first of `keys` present, as text. Another type is an error (the definition is
    /// skipped).
    fn text(&mut self, keys: &[&'static str]) -> Option<String> {
        self.used.extend_from_slice(keys);
        let (key, v) = keys
            .iter()
            .find_map(|k| self.fm.fields.get(*k).map(|v| (*k, v)))?;
        match v {
            Value::Null => None,
            // `argument-hint: [message]` is a YAML list of one word, meant as text.
            Value::Array(a)
                if key.contains("rgument") && a.iter().all(|x| frontmatter::text(x).is_some()) =>
            {
                Some(
                    a.iter()
                        .filter_map(frontmatter::text)
                        .map(|x| format!("[{x}]"))
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            }
            v => match frontmatter::text(v) {
                Some(s) => Some(s),
                None => {
                    self.fail(key, "must be text");
                    None
                }
            },
        }
    }

    fn list(&mut self, keys: &[&'static str]) -> Option<Vec<String>> {
        self.used.extend_from_slice(keys);
        let (key, v) = keys
            .iter()
            .find_map(|k| self.fm.fields.get(*k).map(|v| (*k, v)))?;
        match frontmatter::list(v) {
            Some(l) => Some(l),
            None => {
                self.fail(key, "must be a list or a comma-separated string");
                None
            }
        }
    }

    fn bool(&mut self, key: &'static str) -> bool {
        self.used.push(key);
        match self.fm.fields.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) if matches!(s.as_str(), "true" | "yes" | "on") => true,
            Some(Value::String(s)) if matches!(s.as_str(), "false" | "no" | "off") => false,
            Some(_) => {
                self.fail(key, "must be true or false");
                false
            }
        }
    }

    fn fail(&mut self, key: &str, what: &str) {
        if self.error.is_none() {
            self.error = Some(Warning::new(
                self.file,
                self.line(key),
                format!("front matter field `{key}` {what}; this definition is skipped"),
            ));
        }
    }

    fn warn(&mut self, key: Option<&str>, message: impl Into<String>) {
        let line = key.and_then(|k| self.line(k));
        self.warnings.push(Warning::new(self.file, line, message));
    }

    fn skip(&mut self, key: Option<&str>, message: impl Into<String>) {
        if self.error.is_none() {
            let line = key.and_then(|k| self.line(k)).or(Some(1));
            self.error = Some(Warning::new(self.file, line, message));
        }
    }

    fn extra(&self) -> Map<String, Value> {
        self.fm
            .fields
            .iter()
            .filter(|(k, _)| !self.used.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn body(&self) -> String {
        self.fm.body.trim_matches('\n').to_string()
    }

    fn meta(
        &self,
        id: String,
        name: String,
        description: String,
        format: Format,
        source: Origin,
    ) -> Meta {
        Meta {
            id,
            name,
            description,
            source,
            format,
            file: self.file.to_string(),
            line: 1,
            extra: self.extra(),
        }
    }

    /// The meta of a definition whose id comes from its file name (`what` it is names it in the
    /// warning when the name gives none); the name defaults to the id.
    fn meta_from_file(
        &mut self,
        what: &str,
        id: String,
        name: Option<String>,
        description: String,
        format: Format,
        source: Origin,
    ) -> Meta {
        if id.trim().is_empty() {
            self.skip(
                None,
                format!("the file name gives no {what} id; this {what} is skipped"),
            );
        }
        let name = name.unwrap_or_else(|| id.clone());
        self.meta(id, name, description, format, source)
    }
}

fn file_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

fn strip<'a>(name: &'a str, suffix: &str) -> &'a str {
    name.strip_suffix(suffix).unwrap_or(name)
}

/// A description taken from the body: its first line of text, headings' `#` dropped.
pub fn first_line(body: &str) -> String {
    body.lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty() && !l.starts_with("<!--"))
        .map(|l| {
            let mut s: String = l.chars().take(200).collect();
            if l.chars().count() > 200 {
                s.push_str("...");
            }
            s
        })
        .unwrap_or_default()
}

fn prompt(r: &mut Reader<'_>, format: Format, source: Origin) -> Option<Definition> {
    let fname = file_name(r.file);
    let name_field = r.text(&["name"]);
    let id = match format {
        Format::Copilot => name_field
            .clone()
            .unwrap_or_else(|| strip(fname, ".prompt.md").to_string()),
        Format::ClaudeCode => strip(fname, ".md").to_string(),
        _ => strip(fname, ".command.md").to_string(),
    };
    let description = r.text(&["description"]);
    let argument_hint = r.text(&["argumentHint", "argument-hint", "argument_hint"]);
    let agents = r.list(&["agents"]).unwrap_or_default();
    let content = r.body();
    let description = description.unwrap_or_else(|| first_line(&content));
    let meta = r.meta_from_file("command", id, name_field, description, format, source);
    Some(Definition::Prompt(CommandDef {
        meta,
        argument_hint,
        agents,
        content,
    }))
}

fn agent(r: &mut Reader<'_>, format: Format, source: Origin) -> Option<Definition> {
    let fname = file_name(r.file);
    let name_field = r.text(&["name"]);
    let description = r.text(&["description"]);
    let id = if format == Format::ClaudeCode {
        // Claude Code names a subagent by its `name` only; a file without one is documentation.
        let name = name_field.clone()?;
        if name.contains(':') || name.starts_with('-') {
            r.skip(
                Some("name"),
                format!("agent name `{name}` may not hold `:` or start with `-`; skipped"),
            );
        }
        if description.is_none() {
            r.skip(
                Some("name"),
                "a Claude Code agent needs a `description`; skipped",
            );
        }
        name
    } else {
        strip(fname, ".agent.md").to_string()
    };
    let tools = r.list(&["tools"]);
    let disallowed_tools = r
        .list(&["disallowedTools", "disallowed-tools"])
        .unwrap_or_default();
    let model = match r.fm.fields.get("model") {
        // VS Code allows a prioritised list of models: the first is the choice.
        Some(Value::Array(a)) => {
            r.used.push("model");
            a.first().and_then(frontmatter::text)
        }
        _ => r.text(&["model"]),
    };
    let use_skills = r.list(&["useSkills", "skills"]).unwrap_or_default();
    let has_architecture_access = r.bool("hasArchitectureAccess");
    let prompt = r.body();
    let description = description.unwrap_or_else(|| first_line(&prompt));
    let meta = r.meta_from_file("agent", id, name_field, description, format, source);
    Some(Definition::Agent(AgentDef {
        meta,
        prompt,
        tools,
        disallowed_tools,
        model,
        use_skills,
        has_architecture_access,
    }))
}

fn skill(r: &mut Reader<'_>, format: Format, source: Origin) -> Option<Definition> {
    let name_field = r.text(&["name"]);
    let description = r.text(&["description"]);
    let mut keywords = r.list(&["keywords"]).unwrap_or_default();
    let id = if format == Format::AgentSkills {
        let dir = r.file.rsplit('/').nth(1).unwrap_or("").to_string();
        if let Some(n) = &name_field
            && n != &dir
        {
            r.warn(
                Some("name"),
                format!(
                    "skill name `{n}` differs from its folder `{dir}`; it is loaded as `{dir}`"
                ),
            );
        }
        if let Some(Value::Object(m)) = r.fm.fields.get("metadata")
            && let Some(k) = m.get("keywords").and_then(frontmatter::text)
        {
            keywords = frontmatter::split_list(&k);
        }
        dir
    } else {
        strip(file_name(r.file), ".skill.md").to_string()
    };
    let content = r.body();
    match &description {
        Some(d) if !d.trim().is_empty() => {}
        _ => r.skip(
            Some("description"),
            "a skill needs a `description` (the model picks skills by it); this skill is skipped",
        ),
    }
    if id.trim().is_empty() {
        r.skip(None, "no skill id in the path; this skill is skipped");
    }
    let name = name_field.unwrap_or_else(|| id.clone());
    Some(Definition::Skill(SkillDef {
        meta: r.meta(id, name, description.unwrap_or_default(), format, source),
        keywords,
        content,
    }))
}

fn instructions(r: &mut Reader<'_>, format: Format, source: Origin) -> Option<Definition> {
    let parts: Vec<&str> = r.file.split('/').collect();
    let (id, agent) = match parts.as_slice() {
        [_, "agents", agent, f] => (
            format!("{agent}/{}", strip(f, ".instructions.md")),
            Some(agent.to_string()),
        ),
        [_, "instructions", rest @ ..] if format != Format::Builtin => {
            (strip(&rest.join("/"), ".instructions.md").to_string(), None)
        }
        _ if format == Format::Builtin => (
            strip(file_name(r.file), ".instructions.md").to_string(),
            None,
        ),
        _ => (r.file.to_string(), None),
    };
    let name = r.text(&["name"]).unwrap_or_else(|| id.clone());
    let description = r.text(&["description"]);
    let apply_to: Vec<String> = r
        .list(&["applyTo", "paths", "globs"])
        .unwrap_or_default()
        .into_iter()
        .filter(|g| !matches!(g.as_str(), "**" | "*" | "**/*"))
        .collect();
    let content = r.body();
    // No fallback from the body: an exported copy would repeat its first line as metadata.
    let description = description.unwrap_or_default();
    Some(Definition::Instructions(InstructionsDef {
        meta: r.meta(id, name, description, format, source),
        apply_to,
        agent,
        content,
    }))
}

#[cfg(test)]
mod tests;
