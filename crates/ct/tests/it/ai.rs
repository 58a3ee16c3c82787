//! AI definitions through the built `ct`: the tree, `ct show`, `ct prompt`, `ct agent show`,
//! `ct skill load`, refusal to run, `ct export` with its overwrite rules, and the Agent SDK
//! options type-checked by TypeScript against `@anthropic-ai/claude-agent-sdk`'s own `Options`.

use crate::support::{Workspace, have};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> Workspace {
    Workspace::new()
        .file(
            ".github/commands/review-pr.command.md",
            "---\nname: review-pr\ndescription: Review a pull request\nargumentHint: \"[PR number]\"\n---\nReview PR $1 ($ARGUMENTS).\n",
        )
        .file(
            ".github/agents/planner.agent.md",
            "---\ndescription: Plans changes\ntools: ['Read', 'Grep']\nmodel: haiku\nuseSkills: ['db']\n---\nYou plan.\n",
        )
        .file(
            ".github/agents/planner/steps.instructions.md",
            "Number every step.\n",
        )
        .file(
            ".claude/skills/db/SKILL.md",
            "---\nname: db\ndescription: Database migrations\n---\n## Migrations\n",
        )
        .file("AGENTS.md", "Run the tests before committing.\n")
        .file(
            ".github/agents/broken.agent.md",
            "---\ndescription: [x\n---\nbody\n",
        )
}

#[test]
fn tree_show_prompt_agent_skill() {
    let w = repo();
    let items = w.json(["list", "--json"]);
    let kinds: Vec<(&str, &str, &str)> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["type"].as_str().unwrap(),
                i["label"].as_str().unwrap(),
                i["category"].as_str().unwrap(),
            )
        })
        .collect();
    for want in [
        ("prompt", "review-pr"),
        ("agent", "planner"),
        ("skill", "db"),
        ("instructions", "AGENTS.md"),
        ("instructions", "planner/steps"),
    ] {
        assert!(
            kinds.iter().any(|k| (k.0, k.1) == want),
            "{want:?} in {kinds:?}"
        );
    }
    assert!(!kinds.iter().any(|k| k.0 == "markdown"), "{kinds:?}");
    w.run(["list"])
        .stdout_has("AI Prompts (1)")
        .stdout_has("AI Agents (1)")
        .stdout_has("AI Skills (1)")
        .stdout_has("AI Instructions (2)")
        // The broken agent: a warning with its file and line, and no item.
        .stderr_has("broken.agent.md:3: front matter is not valid YAML");

    w.run(["prompt", "review-pr", "42", "now"])
        .stdout_is("Review PR 42 (42 now).\n");
    let v = w.json(["prompt", "review-pr", "7", "--agent", "planner", "--json"]);
    let p = v["prompt"].as_str().unwrap();
    assert!(
        p.contains("<custom-instructions source=\"repo\" agent=\"planner\">"),
        "{p}"
    );
    assert!(
        p.contains("Number every step.") && p.contains("| db | Database migrations |"),
        "{p}"
    );
    assert!(p.ends_with("Review PR 7 (7)."), "{p}");
    // Sending needs an LLM; with none configured it says how to set one up and sends nothing
    // (the skills tests send one to a loopback model).
    w.run(["prompt", "review-pr", "--send"])
        .code(1)
        .stderr_has("COMMANDTREE_LLM");

    let s = w.run(["agent", "show", "planner"]).stdout();
    assert!(
        s.starts_with("You plan.\n\n<custom-instructions source=\"builtin\" agent=\"planner\">"),
        "{s}"
    );
    assert!(s.contains("Example: loadSkill({ skillId: \"db\" })"), "{s}");
    let v = w.json(["agent", "show", "architect", "--json"]);
    assert_eq!(v["agent"]["source"], "builtin");

    w.run(["skill", "load", "db"]).stdout_is("## Migrations\n");
    w.run(["skill", "load", "nope"])
        .failure()
        .stderr_has("Skill 'nope' not found. Available skills: db, rest-api-design");

    // `ct show` prints the rendered content; running it is refused.
    w.run(["show", "agent:planner"])
        .stdout_has("type         agent (AI Agents)")
        .stdout_has("Number every step.");
    w.run(["run", "prompt:review-pr"])
        .failure()
        .stderr_has("it is read, never run");
}

#[test]
fn definitions_are_tagged_and_starred_like_commands() {
    let w = repo();
    w.run(["tag", "add", "agent:planner", "ai"]).success();
    w.run(["star", "skill:db"]).success();
    let items = w.json(["list", "--tag", "ai", "--json"]);
    assert_eq!(items.as_array().unwrap().len(), 1);
    w.run(["quick"]).stdout_has("db");
}

#[test]
fn export_writes_marked_files_and_keeps_others() {
    let w = repo().file(".claude/agents/planner.md", "my own file\n");
    w.run(["export", "claude-code"])
        .stdout_has(".claude/agents/planner.md  (from .github/agents/planner.agent.md)");
    assert!(
        !w.join(".claude/commands/review-pr.md").exists(),
        "listing writes nothing"
    );

    // A kept file is reported by the exit code.
    let rows = w
        .run(["export", "claude-code", "--write", "--json"])
        .code(1)
        .json();
    let outcome = |p: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["path"] == p)
            .unwrap()["outcome"]
            .clone()
    };
    assert_eq!(outcome(".claude/agents/planner.md")["status"], "kept");
    assert_eq!(
        outcome(".claude/commands/review-pr.md")["status"],
        "written"
    );
    assert_eq!(w.read(".claude/agents/planner.md"), "my own file\n");
    let cmd = w.read(".claude/commands/review-pr.md");
    assert!(
        cmd.contains("<!-- generated by ct export")
            && cmd.contains("Review PR $ARGUMENTS[0] ($ARGUMENTS)."),
        "{cmd}"
    );

    w.run(["export", "claude-code", "--write", "--force"])
        .success();
    let agent = w.read(".claude/agents/planner.md");
    assert!(
        agent.contains("tools: Read, Grep") && agent.contains("Number every step."),
        "{agent}"
    );
    // Exported copies are not read back as definitions: no duplicate warnings, same tree.
    w.run(["export", "claude-code", "--write"])
        .success()
        .stderr_lacks("duplicate");

    w.run(["export", "copilot", "--write"]).success();
    for (dir, skill) in [
        (".claude/skills", "rest-api-design"),
        (".github/skills", "rest-api-design"),
    ] {
        let text = w.read(Path::new(dir).join(skill).join("SKILL.md"));
        assert_eq!(
            commandtree_agents::skillspec::validate(skill, &text),
            Vec::<String>::new()
        );
    }
    let prompt = w.read(".github/prompts/review-pr.prompt.md");
    assert!(
        prompt.contains("Review PR ${input:arg1} (${input:arguments})."),
        "{prompt}"
    );
}

/// `@anthropic-ai/claude-agent-sdk` and TypeScript, installed by `scripts/claude-agent-sdk.sh`.
fn sdk_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if !have(
        "npm",
        "it installs @anthropic-ai/claude-agent-sdk and typescript; scripts/test.sh installs it",
    ) {
        return None;
    }
    let st = Command::new("bash")
        .arg(root.join("scripts/claude-agent-sdk.sh"))
        .status()
        .expect("bash");
    assert!(st.success(), "scripts/claude-agent-sdk.sh failed");
    Some(std::fs::canonicalize(root.join("target/claude-agent-sdk")).unwrap())
}

#[test]
fn claude_sdk_options_type_check_against_the_sdk() {
    let Some(dir) = sdk_dir() else { return };
    let w = repo().file(
        "base.json",
        "{\"cwd\": \"/w\", \"systemPrompt\": \"Be brief.\", \"maxTurns\": 5}",
    );
    let options = w.json([
        "export",
        "claude-sdk",
        "--base",
        w.join("base.json").to_str().unwrap(),
    ]);
    assert_eq!(options["maxTurns"], 5);
    assert_eq!(options["agents"]["planner"]["model"], "haiku");
    assert_eq!(options["mcpServers"]["commandtree"]["command"], "ct");
    assert!(
        options["systemPrompt"]
            .as_str()
            .unwrap()
            .starts_with("Be brief.\n\n")
    );

    // One file per shape: with the base's string prompt, and with the default preset.
    let plain = w.json(["export", "claude-sdk"]);
    let check = dir.join(format!("check-{}", std::process::id()));
    std::fs::create_dir_all(&check).unwrap();
    for (name, v) in [("base", &options), ("plain", &plain)] {
        std::fs::write(
            check.join(format!("{name}.ts")),
            format!(
                "import type {{ Options }} from '@anthropic-ai/claude-agent-sdk';\nconst o: Options = {};\nexport default o;\n",
                serde_json::to_string_pretty(v).unwrap()
            ),
        )
        .unwrap();
    }
    // A wrong shape must fail, or the check proves nothing.
    std::fs::write(
        check.join("wrong.ts"),
        "import type { Options } from '@anthropic-ai/claude-agent-sdk';\nconst o: Options = { agents: { a: { prompt: 1 } } };\nexport default o;\n",
    )
    .unwrap();
    let tsc = |file: &str| {
        Command::new(dir.join("node_modules/.bin/tsc"))
            .args([
                "--noEmit",
                "--strict",
                "--skipLibCheck",
                "--module",
                "nodenext",
                "--moduleResolution",
                "nodenext",
                "--target",
                "es2022",
            ])
            .arg(check.join(file))
            .current_dir(&dir)
            .output()
            .expect("tsc")
    };
    for f in ["base.ts", "plain.ts"] {
        let o = tsc(f);
        assert!(
            o.status.success(),
            "{f}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = tsc("wrong.ts");
    assert!(!o.status.success(), "tsc accepted a wrong Options object");
    let _ = std::fs::remove_dir_all(&check);
}
