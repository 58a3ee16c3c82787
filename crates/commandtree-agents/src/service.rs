//! The service every front end uses: built-in definitions plus a repository's, merged by id, and
//! what each consumer asks of them.

use crate::model::*;
use crate::parse::{Parsed, parse};
use crate::render;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Largest definition file read; bigger ones are skipped with a warning.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Every definition, after repository files replaced built-ins with the same id.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    commands: Vec<CommandDef>,
    agents: Vec<AgentDef>,
    skills: Vec<SkillDef>,
    instructions: Vec<InstructionsDef>,
    warnings: Vec<Warning>,
}

/// The instructions an agent gets, in their wrappers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComposedInstructions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The files they came from, in order.
    pub sources: Vec<String>,
    /// Empty when there are none.
    pub text: String,
}

impl Definitions {
    /// The built-in definitions alone.
    pub fn builtin() -> Definitions {
        Definitions::from_files(std::iter::empty::<(String, String)>())
    }

    /// Built-ins plus the given repository files: (path relative to the root with `/`, text).
    /// Files are taken in path order, so which of two equal-rank duplicates wins never depends
    /// on the order they were found in.
    pub fn from_files<I, P, T>(files: I) -> Definitions
    where
        I: IntoIterator<Item = (P, T)>,
        P: Into<String>,
        T: AsRef<str>,
    {
        let mut parsed = vec![crate::builtin::definitions()];
        let mut files: Vec<(String, T)> = files.into_iter().map(|(p, t)| (p.into(), t)).collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        for (rel, text) in &files {
            parsed.push(parse(rel, text.as_ref()));
        }
        Definitions::merge(parsed)
    }

    /// Reads the given files (absolute, or relative to `root`) from disk. Only regular files
    /// inside `root` are read; anything else gives a warning.
    pub fn load<I: IntoIterator<Item = PathBuf>>(root: &Path, files: I) -> Definitions {
        let mut texts = Vec::new();
        let mut warnings = Vec::new();
        for f in files {
            let abs = if f.is_absolute() {
                f.clone()
            } else {
                root.join(&f)
            };
            let Ok(rel) = abs.strip_prefix(root) else {
                continue;
            };
            let rel_s = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            match read_regular(&abs) {
                Ok(t) => texts.push((rel_s, t)),
                Err(e) => warnings.push(Warning::new(&rel_s, None, e)),
            }
        }
        let mut d = Definitions::from_files(texts);
        d.warnings.extend(warnings);
        d
    }

    fn merge(parsed: Vec<Parsed>) -> Definitions {
        let mut d = Definitions::default();
        let mut seen: HashMap<(Kind, String), usize> = HashMap::new();
        let mut all: Vec<Definition> = Vec::new();
        for p in parsed {
            d.warnings.extend(p.warnings);
            for def in p.definitions {
                let key = (def.kind(), def.meta().id.clone());
                match seen.get(&key) {
                    None => {
                        seen.insert(key, all.len());
                        all.push(def);
                    }
                    Some(&i) => {
                        let old = all[i].meta();
                        let new = def.meta();
                        if old.format == Format::Builtin {
                            all[i] = def;
                            continue;
                        }
                        let (winner, loser) = if new.format.rank() > old.format.rank() {
                            (new, old)
                        } else {
                            (old, new)
                        };
                        d.warnings.push(Warning::new(
                            &loser.file,
                            Some(1),
                            format!(
                                "duplicate {} id `{}`: {} is used, {} is ignored",
                                def.kind().noun(),
                                new.id,
                                winner.file,
                                loser.file
                            ),
                        ));
                        if std::ptr::eq(winner, new) {
                            all[i] = def;
                        }
                    }
                }
            }
        }
        for def in all {
            match def {
                Definition::Prompt(c) => d.commands.push(c),
                Definition::Agent(a) => d.agents.push(a),
                Definition::Skill(s) => d.skills.push(s),
                Definition::Instructions(i) => d.instructions.push(i),
            }
        }
        d.commands.sort_by(|a, b| a.meta.id.cmp(&b.meta.id));
        d.agents.sort_by(|a, b| a.meta.id.cmp(&b.meta.id));
        d.skills.sort_by(|a, b| a.meta.id.cmp(&b.meta.id));
        // Built-ins first, then the repository's in path order: the order they are composed in.
        d.instructions.sort_by(|a, b| {
            (a.meta.format.rank() > 0, &a.meta.file).cmp(&(b.meta.format.rank() > 0, &b.meta.file))
        });
        d
    }

    /// Bad files, duplicate ids.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    pub fn commands(&self) -> &[CommandDef] {
        &self.commands
    }
    pub fn command(&self, id: &str) -> Option<&CommandDef> {
        self.commands.iter().find(|c| c.meta.id == id)
    }
    pub fn agents(&self) -> &[AgentDef] {
        &self.agents
    }
    pub fn agent(&self, id: &str) -> Option<&AgentDef> {
        self.agents.iter().find(|a| a.meta.id == id)
    }
    /// Skills without their content.
    pub fn skills(&self) -> Vec<SkillMeta> {
        self.skills
            .iter()
            .map(|s| SkillMeta {
                meta: s.meta.clone(),
                keywords: s.keywords.clone(),
            })
            .collect()
    }
    pub fn skill(&self, id: &str) -> Option<&SkillDef> {
        self.skills.iter().find(|s| s.meta.id == id)
    }
    /// A skill's content, front matter removed.
    pub fn load_skill(&self, id: &str) -> Option<&str> {
        self.skill(id).map(|s| s.content.as_str())
    }
    /// What the `loadSkill` tool answers: the content, or which skills exist.
    pub fn load_skill_answer(&self, id: &str) -> Result<String, String> {
        match self.load_skill(id) {
            Some(c) => Ok(c.to_string()),
            None => Err(format!(
                "Skill '{id}' not found. Available skills: {}",
                self.skills
                    .iter()
                    .map(|s| s.meta.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    pub fn instructions(&self) -> &[InstructionsDef] {
        &self.instructions
    }

    /// The instructions for `agent` (all general ones plus the agent's own), or the general
    /// ones alone: built-in ones in one wrapper, the repository's in another.
    pub fn instructions_for(&self, agent: Option<&str>) -> ComposedInstructions {
        let wanted: Vec<&InstructionsDef> = self
            .instructions
            .iter()
            .filter(|i| i.agent.is_none() || (agent.is_some() && i.agent.as_deref() == agent))
            .collect();
        let of = |o: Origin| -> Vec<&InstructionsDef> {
            wanted
                .iter()
                .copied()
                .filter(|i| i.meta.source == o)
                .collect()
        };
        let text = render::join(&[
            render::instructions(Origin::Builtin, agent, &of(Origin::Builtin)),
            render::instructions(Origin::Repo, agent, &of(Origin::Repo)),
        ]);
        ComposedInstructions {
            agent: agent.map(str::to_string),
            sources: wanted
                .iter()
                .filter(|i| !i.content.trim().is_empty())
                .map(|i| i.meta.file.clone())
                .collect(),
            text,
        }
    }

    /// The skills table, with `first` (an agent's `useSkills`) at the top in their order.
    pub fn skills_table(&self, first: &[String]) -> Option<String> {
        fn pair(s: &SkillDef) -> (&str, &str) {
            (s.meta.id.as_str(), s.meta.description.as_str())
        }
        let mut ordered: Vec<(&str, &str)> = first
            .iter()
            .filter_map(|id| self.skill(id))
            .map(pair)
            .collect();
        ordered.extend(
            self.skills
                .iter()
                .filter(|s| !first.contains(&s.meta.id))
                .map(pair),
        );
        render::skills_table(&ordered)
    }

    /// An agent's full system prompt: its body, its instructions, then the skills table with
    /// the skills it uses first.
    pub fn system_prompt(&self, agent: &str) -> Option<String> {
        let a = self.agent(agent)?;
        Some(render::join(&[
            Some(a.prompt.clone()),
            Some(self.instructions_for(Some(agent)).text),
            self.skills_table(&a.use_skills),
        ]))
    }

    /// `useSkills` entries of an agent that name no skill.
    pub fn missing_skills(&self, agent: &AgentDef) -> Vec<String> {
        agent
            .use_skills
            .iter()
            .filter(|s| self.skill(s).is_none())
            .cloned()
            .collect()
    }

    /// The arguments a prompt command takes, named as an MCP client asks for them: `arg1`…
    /// for the positions its text uses (`$1`, `$ARGUMENTS[0]`), else one `arguments` (its
    /// `$ARGUMENTS`, or text appended as `ARGUMENTS: …` when it has no placeholder). Each with
    /// a description; `None` for an unknown command.
    pub fn command_arguments(&self, id: &str) -> Option<Vec<(String, String)>> {
        let c = self.command(id)?;
        let (_, at) = render::slots(&c.content);
        let hint = c.argument_hint.clone();
        Some(match at.last() {
            Some(&max) => (0..=max)
                .map(|n| {
                    let d = if at.contains(&n) {
                        format!("fills ${} in the prompt", n + 1)
                    } else {
                        format!("argument {} (not used by the prompt itself)", n + 1)
                    };
                    (format!("arg{}", n + 1), d)
                })
                .collect(),
            None => vec![(
                "arguments".to_string(),
                hint.unwrap_or_else(|| "what the prompt is about (fills $ARGUMENTS)".into()),
            )],
        })
    }

    /// [`Definitions::render_command`] from named arguments (see
    /// [`Definitions::command_arguments`]): what an MCP client's `prompts/get` receives.
    pub fn render_named(
        &self,
        id: &str,
        named: &dyn Fn(&str) -> Option<String>,
    ) -> Result<String, String> {
        let names = self.command_arguments(id).unwrap_or_default();
        let mut args: Vec<String> = names
            .iter()
            .map(|(n, _)| named(n).unwrap_or_default())
            .collect();
        while args.last().is_some_and(String::is_empty) {
            args.pop();
        }
        self.render_command(id, &args, None)
    }

    /// A command's prompt with `args` filled in; with an agent, preceded by that agent's
    /// instructions and the skills table (what the agent is given along with the prompt).
    pub fn render_command(
        &self,
        id: &str,
        args: &[String],
        agent: Option<&str>,
    ) -> Result<String, String> {
        let c = self.command(id).ok_or_else(|| {
            format!(
                "no prompt command `{id}`; available: {}",
                self.commands
                    .iter()
                    .map(|c| c.meta.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        let prompt = render::command(&c.content, args);
        let Some(agent) = agent else {
            return Ok(prompt);
        };
        let a = self.agent(agent).ok_or_else(|| {
            format!(
                "no agent `{agent}`; available: {}",
                self.agents
                    .iter()
                    .map(|a| a.meta.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        if !c.agents.is_empty() && !c.agents.iter().any(|x| x == agent) {
            return Err(format!(
                "command `{id}` is only for the agents {}",
                c.agents.join(", ")
            ));
        }
        Ok(render::join(&[
            Some(self.instructions_for(Some(agent)).text),
            self.skills_table(&a.use_skills),
            Some(prompt),
        ]))
    }

    /// The definition read from `file` (as in `Meta::file`) with this id, for a tree item.
    pub fn by_file(&self, kind: Kind, file: &str) -> Option<Definition> {
        match kind {
            Kind::Prompt => self
                .commands
                .iter()
                .find(|d| d.meta.file == file)
                .cloned()
                .map(Definition::Prompt),
            Kind::Agent => self
                .agents
                .iter()
                .find(|d| d.meta.file == file)
                .cloned()
                .map(Definition::Agent),
            Kind::Skill => self
                .skills
                .iter()
                .find(|d| d.meta.file == file)
                .cloned()
                .map(Definition::Skill),
            Kind::Instructions => self
                .instructions
                .iter()
                .find(|d| d.meta.file == file)
                .cloned()
                .map(Definition::Instructions),
        }
    }

    /// What `ct show` prints for a definition: a command's content, an agent's full system
    /// prompt, a skill's content, instructions in their wrapper.
    pub fn rendered(&self, def: &Definition) -> String {
        match def {
            Definition::Prompt(c) => c.content.clone(),
            Definition::Agent(a) => self
                .system_prompt(&a.meta.id)
                .unwrap_or_else(|| a.prompt.clone()),
            Definition::Skill(s) => s.content.clone(),
            Definition::Instructions(i) => {
                render::instructions(i.meta.source, i.agent.as_deref(), &[i]).unwrap_or_default()
            }
        }
    }
}

/// A file's text if it is a regular file (links are not followed) of at most `MAX_FILE_BYTES`:
/// BOM dropped, CRLF turned into LF.
pub fn read_regular(path: &Path) -> Result<String, String> {
    let md = std::fs::symlink_metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !md.file_type().is_file() {
        return Err("not a regular file; skipped".into());
    }
    if md.len() > MAX_FILE_BYTES {
        return Err(format!("larger than {MAX_FILE_BYTES} bytes; skipped"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8 text; skipped".to_string())?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Ok(text.replace("\r\n", "\n").replace('\r', "\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warnings(d: &Definitions) -> Vec<String> {
        d.warnings().iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn repository_files_replace_builtins_silently() {
        let d = Definitions::from_files([(
            ".github/agents/architect.agent.md",
            "---\ndescription: Ours\n---\nOur architect.\n",
        )]);
        assert!(d.warnings().is_empty());
        let a = d.agent("architect").unwrap();
        assert_eq!(
            (a.meta.source, a.prompt.as_str()),
            (Origin::Repo, "Our architect.")
        );
        assert_eq!(d.agents().len(), 1);
    }

    #[test]
    fn duplicates_warn_naming_both_files() {
        let d = Definitions::from_files([
            (".claude/commands/deploy.md", "Deploy (Claude)."),
            (".github/commands/deploy.command.md", "Deploy (ours)."),
            (
                ".commandtree/skills/api.skill.md",
                "---\ndescription: A\n---\nA",
            ),
            (
                ".github/skills/api/SKILL.md",
                "---\nname: api\ndescription: B\n---\nB",
            ),
            (
                ".claude/agents/one.md",
                "---\nname: x\ndescription: one\n---\n1",
            ),
            (
                ".claude/agents/two.md",
                "---\nname: x\ndescription: two\n---\n2",
            ),
        ]);
        assert_eq!(d.command("deploy").unwrap().content, "Deploy (ours).");
        assert_eq!(d.load_skill("api"), Some("A"));
        // Same rank: the first in path order.
        assert_eq!(d.agent("x").unwrap().prompt, "1");
        assert_eq!(
            warnings(&d),
            [
                ".claude/agents/two.md:1: duplicate agent id `x`: .claude/agents/one.md is used, .claude/agents/two.md is ignored",
                ".claude/commands/deploy.md:1: duplicate command id `deploy`: .github/commands/deploy.command.md is used, .claude/commands/deploy.md is ignored",
                ".github/skills/api/SKILL.md:1: duplicate skill id `api`: .commandtree/skills/api.skill.md is used, .github/skills/api/SKILL.md is ignored",
            ]
        );
    }

    #[test]
    fn instructions_for_an_agent_include_its_own_only() {
        let d = Definitions::from_files([
            ("AGENTS.md", "General."),
            (".github/agents/a/x.instructions.md", "For a."),
            (".github/agents/b/x.instructions.md", "For b."),
        ]);
        let a = d.instructions_for(Some("a"));
        assert!(
            a.text.contains("General.") && a.text.contains("For a.") && !a.text.contains("For b.")
        );
        assert_eq!(
            a.sources,
            [
                "builtin:instructions/commandtree.instructions.md",
                ".github/agents/a/x.instructions.md",
                "AGENTS.md"
            ]
        );
        let none = d.instructions_for(None);
        assert!(!none.text.contains("For a.") && !none.text.contains("agent=\""));
    }

    #[test]
    fn load_reads_only_regular_files_inside_the_root() {
        let scratch = tempfile::Builder::new()
            .prefix("ct-agents-load-")
            .tempdir()
            .unwrap();
        let dir = scratch.path();
        std::fs::create_dir_all(dir.join(".github/commands")).unwrap();
        std::fs::write(dir.join(".github/commands/a.command.md"), "\u{feff}A\r\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/hostname", dir.join(".github/commands/b.command.md"))
            .unwrap();
        let d = Definitions::load(
            dir,
            [
                dir.join(".github/commands/a.command.md"),
                PathBuf::from(".github/commands/b.command.md"),
                PathBuf::from("/elsewhere/c.command.md"),
            ],
        );
        assert_eq!(d.command("a").unwrap().content, "A");
        assert!(d.command("b").is_none());
        #[cfg(unix)]
        assert_eq!(
            warnings(&d),
            [".github/commands/b.command.md: not a regular file; skipped"]
        );
    }
}
