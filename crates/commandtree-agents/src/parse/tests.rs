use super::*;

fn one(rel: &str, text: &str) -> Definition {
    let p = parse(rel, text);
    assert!(p.warnings.is_empty(), "{rel}: {:?}", p.warnings);
    assert_eq!(p.definitions.len(), 1, "{rel}");
    p.definitions.into_iter().next().unwrap()
}

fn warnings(rel: &str, text: &str) -> Vec<(Option<u32>, String)> {
    let p = parse(rel, text);
    assert!(p.definitions.is_empty(), "{rel}: {:?}", p.definitions);
    p.warnings
        .into_iter()
        .map(|w| (w.line, w.message))
        .collect()
}

#[test]
fn routes() {
    let r = |p: &str| route(p).map(|(k, f)| (k.as_str(), f));
    assert_eq!(
        r(".github/commands/x.command.md"),
        Some(("prompt", Format::Github))
    );
    assert_eq!(
        r(".commandtree/commands/x.command.md"),
        Some(("prompt", Format::Commandtree))
    );
    assert_eq!(
        r(".claude/commands/a/b/x.md"),
        Some(("prompt", Format::ClaudeCode))
    );
    assert_eq!(
        r(".github/prompts/x.prompt.md"),
        Some(("prompt", Format::Copilot))
    );
    assert_eq!(
        r(".github/agents/x.agent.md"),
        Some(("agent", Format::Github))
    );
    assert_eq!(
        r(".github/agents/x/y.instructions.md"),
        Some(("instructions", Format::Github))
    );
    assert_eq!(
        r(".claude/agents/x.md"),
        Some(("agent", Format::ClaudeCode))
    );
    assert_eq!(
        r(".github/skills/x.skill.md"),
        Some(("skill", Format::Github))
    );
    assert_eq!(
        r(".claude/skills/x/SKILL.md"),
        Some(("skill", Format::AgentSkills))
    );
    assert_eq!(
        r(".github/instructions/a/b.instructions.md"),
        Some(("instructions", Format::Github))
    );
    assert_eq!(
        r(".github/copilot-instructions.md"),
        Some(("instructions", Format::Copilot))
    );
    assert_eq!(r("AGENTS.md"), Some(("instructions", Format::AgentsMd)));
    assert_eq!(
        r(".claude/CLAUDE.md"),
        Some(("instructions", Format::AgentsMd))
    );
    for no in [
        "README.md",
        "sub/AGENTS.md",
        ".github/commands/x.md",
        ".github/skills/x/y/SKILL.md",
        ".claude/skills/x/README.md",
    ] {
        assert_eq!(r(no), None, "{no}");
    }
}

#[test]
fn the_patterns_and_route_agree() {
    let sample = |p: &str| p.replace("**/", "").replace('*', "x");
    for kind in crate::KINDS {
        for p in patterns(kind) {
            assert_eq!(route(&sample(p)).map(|r| r.0), Some(kind), "{p}");
        }
    }
}

#[test]
fn our_command_format() {
    let Definition::Prompt(c) = one(
        ".github/commands/review-pr.command.md",
        "---\nname: review-pr\ndescription: Review a PR\nargumentHint: \"[PR number]\"\nagents: ['reviewer', 'agent']\ncolor: red\n---\n\n## Guide\n\n$ARGUMENTS\n",
    ) else {
        panic!()
    };
    assert_eq!(c.meta.id, "review-pr");
    assert_eq!(c.meta.description, "Review a PR");
    assert_eq!(c.argument_hint.as_deref(), Some("[PR number]"));
    assert_eq!(c.agents, ["reviewer", "agent"]);
    assert_eq!(c.content, "## Guide\n\n$ARGUMENTS");
    assert_eq!(c.meta.extra["color"], "red");
    assert_eq!(c.meta.source, Origin::Repo);
}

#[test]
fn claude_code_commands_without_front_matter() {
    let Definition::Prompt(c) = one(
        ".claude/commands/frontend/component.md",
        "# Make a component\n\nNamed $1.\n",
    ) else {
        panic!()
    };
    assert_eq!(c.meta.id, "component");
    assert_eq!(c.meta.description, "Make a component");
    let Definition::Prompt(c) = one(
        ".claude/commands/commit.md",
        "---\nallowed-tools: Bash(git add:*), Bash(git status:*)\nargument-hint: [message]\ndescription: Create a git commit\nmodel: haiku\n---\nCommit: $ARGUMENTS\n",
    ) else {
        panic!()
    };
    assert_eq!(c.argument_hint.as_deref(), Some("[message]"));
    assert_eq!(c.meta.extra["model"], "haiku");
}

#[test]
fn copilot_prompt_files() {
    let Definition::Prompt(c) = one(
        ".github/prompts/create-form.prompt.md",
        "---\nmode: agent\ntools: ['search']\ndescription: Make a form\n---\nForm ${input:formName}\n",
    ) else {
        panic!()
    };
    assert_eq!(c.meta.id, "create-form");
    assert_eq!(c.meta.extra["mode"], "agent");
    let Definition::Prompt(c) = one(".github/prompts/x.prompt.md", "---\nname: other\n---\nbody")
    else {
        panic!()
    };
    assert_eq!(c.meta.id, "other");
}

#[test]
fn our_agent_format() {
    let Definition::Agent(a) = one(
        ".github/agents/architect.agent.md",
        "---\nname: architect\ndescription: Designs plans\ntools: ['Read', 'Glob']\ndisallowedTools: ['Bash']\nmodel: sonnet\nhasArchitectureAccess: true\nuseSkills: ['api-design']\n---\n\nYou are the Architect.\n",
    ) else {
        panic!()
    };
    assert_eq!(a.meta.id, "architect");
    assert_eq!(
        a.tools.as_deref(),
        Some(&["Read".to_string(), "Glob".to_string()][..])
    );
    assert_eq!(a.disallowed_tools, ["Bash"]);
    assert_eq!(a.model.as_deref(), Some("sonnet"));
    assert!(a.has_architecture_access);
    assert_eq!(a.use_skills, ["api-design"]);
    assert_eq!(a.prompt, "You are the Architect.");
}

#[test]
fn claude_code_agents() {
    let Definition::Agent(a) = one(
        ".claude/agents/review/code.md",
        "---\nname: code-reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob\nskills: [api-conventions]\ncolor: blue\n---\nReview.\n",
    ) else {
        panic!()
    };
    assert_eq!(a.meta.id, "code-reviewer");
    assert_eq!(a.tools.as_ref().unwrap(), &["Read", "Grep", "Glob"]);
    assert_eq!(a.use_skills, ["api-conventions"]);
    assert_eq!(a.meta.extra["color"], "blue");
    // Without a name it is documentation: nothing, and no warning.
    let p = parse(".claude/agents/README.md", "# Our agents\n");
    assert!(p.definitions.is_empty() && p.warnings.is_empty());
    assert_eq!(
        warnings(
            ".claude/agents/x.md",
            "---\nname: a:b\ndescription: d\n---\n"
        ),
        [(
            Some(2),
            "agent name `a:b` may not hold `:` or start with `-`; skipped".to_string()
        )]
    );
    assert_eq!(
        warnings(".claude/agents/x.md", "---\nname: a\n---\n")[0].0,
        Some(2)
    );
}

#[test]
fn copilot_agents_with_a_model_list() {
    let Definition::Agent(a) = one(
        ".github/agents/plan.agent.md",
        "---\ndescription: Plans\nmodel: ['Claude Opus 4.5', 'GPT-5.2']\ntools: ['search', 'fetch']\nhandoffs:\n  - label: Go\n    agent: agent\n---\nPlan.",
    ) else {
        panic!()
    };
    assert_eq!(a.model.as_deref(), Some("Claude Opus 4.5"));
    assert!(a.meta.extra.contains_key("handoffs"));
}

#[test]
fn skills_in_both_formats() {
    let Definition::Skill(s) = one(
        ".github/skills/rest-api-design.skill.md",
        "---\nname: REST API Design\ndescription: Best practices\nkeywords: ['api', 'rest']\n---\n## HTTP Methods\n",
    ) else {
        panic!()
    };
    assert_eq!(
        (s.meta.id.as_str(), s.meta.name.as_str()),
        ("rest-api-design", "REST API Design")
    );
    assert_eq!(s.keywords, ["api", "rest"]);
    assert_eq!(s.content, "## HTTP Methods");
    let Definition::Skill(s) = one(
        ".claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Extract PDF text. Use when handling PDFs.\nlicense: Apache-2.0\nmetadata:\n  keywords: pdf, forms\n---\nBody\n",
    ) else {
        panic!()
    };
    assert_eq!(s.meta.id, "pdf");
    assert_eq!(s.keywords, ["pdf", "forms"]);
    assert_eq!(s.meta.extra["license"], "Apache-2.0");
    // A name that differs from the folder: loaded by the folder's name, with a warning.
    let p = parse(
        ".github/skills/pdf/SKILL.md",
        "---\nname: PDF\ndescription: d\n---\n",
    );
    assert_eq!(p.definitions[0].meta().id, "pdf");
    assert_eq!(p.warnings[0].line, Some(2));
    // No description: skipped.
    assert_eq!(
        warnings(".github/skills/pdf/SKILL.md", "---\nname: pdf\n---\nx")[0].0,
        Some(1)
    );
}

#[test]
fn instructions_in_every_place() {
    let Definition::Instructions(i) = one(
        ".github/instructions/ts/style.instructions.md",
        "---\napplyTo: \"**/*.ts,**/*.tsx\"\n---\nUse strict mode.\n",
    ) else {
        panic!()
    };
    assert_eq!(i.meta.id, "ts/style");
    assert_eq!(i.apply_to, ["**/*.ts", "**/*.tsx"]);
    assert_eq!(i.agent, None);
    let Definition::Instructions(i) = one(
        ".github/agents/architect/plans.instructions.md",
        "Write plans to plans/.\n",
    ) else {
        panic!()
    };
    assert_eq!(i.agent.as_deref(), Some("architect"));
    assert_eq!(i.meta.id, "architect/plans");
    let Definition::Instructions(i) = one(
        ".github/copilot-instructions.md",
        "---\napplyTo: \"**\"\n---\nBe kind.\n",
    ) else {
        panic!()
    };
    assert!(i.apply_to.is_empty());
    assert_eq!(i.meta.id, ".github/copilot-instructions.md");
    let Definition::Instructions(i) = one("AGENTS.md", "# Agents\n\nRun `make test`.\n") else {
        panic!()
    };
    assert_eq!(i.meta.format, Format::AgentsMd);
    assert_eq!(i.content, "# Agents\n\nRun `make test`.");
    let Definition::Instructions(i) = one(".claude/CLAUDE.md", "Use pnpm.") else {
        panic!()
    };
    assert_eq!(i.meta.id, ".claude/CLAUDE.md");
}

#[test]
fn broken_front_matter_is_a_warning_with_file_and_line() {
    let p = parse(
        ".github/agents/a.agent.md",
        "---\nname: a\ntools: [Read, Grep\ndescription: x\n---\nbody\n",
    );
    assert!(p.definitions.is_empty());
    assert_eq!(p.warnings.len(), 1);
    let w = &p.warnings[0];
    assert_eq!(w.file, ".github/agents/a.agent.md");
    assert!(w.line.is_some_and(|l| (3..=5).contains(&l)), "{w:?}");
    assert!(
        w.message.contains("not valid YAML") && w.message.ends_with("this agent is skipped"),
        "{w}"
    );
    assert_eq!(
        warnings(".github/commands/c.command.md", "---\ndescription: x\n"),
        [(Some(1), "front matter is not closed: no `---` line after the opening one; this command is skipped".to_string())]
    );
    assert_eq!(
        warnings(
            ".github/commands/c.command.md",
            "---\nname: c\ndescription: [a, b]\n---\n"
        ),
        [(
            Some(3),
            "front matter field `description` must be text; this definition is skipped".to_string()
        )]
    );
    assert_eq!(
        warnings(
            ".github/agents/a.agent.md",
            "---\nhasArchitectureAccess: maybe\n---\n"
        )[0]
        .0,
        Some(2)
    );
    assert_eq!(
        warnings(".github/agents/a.agent.md", "---\ntools: {a: 1}\n---\n")[0].0,
        Some(2)
    );
}

#[test]
fn exported_copies_are_not_read_again() {
    let p = parse(
        ".claude/agents/a.md",
        "---\nname: a\ndescription: d\n---\n<!-- generated by ct export from .github/agents/a.agent.md; edit that file and run ct export again -->\n\nx\n",
    );
    assert_eq!(p, Parsed::default());
}

#[test]
fn empty_ids_are_skipped() {
    assert_eq!(warnings(".github/commands/.command.md", "x").len(), 1);
    assert_eq!(warnings(".github/agents/.agent.md", "x").len(), 1);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// Any text in any location: no panic, and a definition or a warning points at a line
        /// of the file.
        #[test]
        fn never_panics(body in "(---\n)?([a-zA-Z:\\[\\]{}'\" ,\\-\\n#$]|ARGUMENTS|---|\\.\\.\\.){0,200}", which in 0usize..12) {
            let paths = [
                ".github/commands/x.command.md", ".claude/commands/x.md", ".github/prompts/x.prompt.md",
                ".github/agents/x.agent.md", ".claude/agents/x.md", ".github/skills/x.skill.md",
                ".github/skills/x/SKILL.md", ".github/instructions/x.instructions.md",
                ".github/agents/a/x.instructions.md", "AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md",
            ];
            let p = parse(paths[which], &body);
            let lines = body.lines().count().max(1) as u32 + 1;
            for w in &p.warnings {
                prop_assert!(w.line.is_none_or(|l| l >= 1 && l <= lines), "{w:?} in {lines} lines");
            }
            prop_assert!(p.definitions.len() <= 1);
        }

        /// Rendering is total, and text without `$` comes back as it was.
        #[test]
        fn rendering_is_total(body in "[^$]{0,80}", args in proptest::collection::vec("[a-z$0-9 ]{0,6}", 0..3)) {
            let r = crate::render::command(&body, &[]);
            prop_assert_eq!(&r, &body);
            let _ = crate::render::command(&format!("{body}$1$ARGUMENTS[1]"), &args);
            let esc = crate::render::escape_closing_tag(&format!("{body}</custom-instructions>{body}"));
            prop_assert!(!esc.to_ascii_lowercase().contains("</custom-instructions"));
        }
    }
}

#[test]
fn a_file_name_without_an_id_is_skipped() {
    assert_eq!(
        warnings(".commandtree/commands/.command.md", "Do it.\n"),
        [(
            Some(1),
            "the file name gives no command id; this command is skipped".to_string()
        )]
    );
    assert_eq!(
        warnings(".github/agents/ .agent.md", "Be brief.\n"),
        [(
            Some(1),
            "the file name gives no agent id; this agent is skipped".to_string()
        )]
    );
}
