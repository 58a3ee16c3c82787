//! AI definitions through the built `ct`: the tree, `ct show`, `ct prompt`, `ct agent show`,
//! `ct skill load`, refusal to run, `ct export` with its overwrite rules, and the Agent SDK
//! options type-checked by TypeScript against `@anthropic-ai/claude-agent-sdk`'s own `Options`.

use crate::support;

use crate::support::{ct, stderr, stdout, workspace, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(name: &str) -> PathBuf {
    let w = workspace("ai", name);
    write(
        &w,
        ".github/commands/review-pr.command.md",
        "---\nname: review-pr\ndescription: Review a pull request\nargumentHint: \"[PR number]\"\n---\nReview PR $1 ($ARGUMENTS).\n",
    );
    write(
        &w,
        ".github/agents/planner.agent.md",
        "---\ndescription: Plans changes\ntools: ['Read', 'Grep']\nmodel: haiku\nuseSkills: ['db']\n---\nYou plan.\n",
    );
    write(
        &w,
        ".github/agents/planner/steps.instructions.md",
        "Number every step.\n",
    );
    write(
        &w,
        ".claude/skills/db/SKILL.md",
        "---\nname: db\ndescription: Database migrations\n---\n## Migrations\n",
    );
    write(&w, "AGENTS.md", "Run the tests before committing.\n");
    write(
        &w,
        ".github/agents/broken.agent.md",
        "---\ndescription: [x\n---\nbody\n",
    );
    w
}

fn json(o: &std::process::Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

#[test]
fn tree_show_prompt_agent_skill() {
    let w = repo("use");
    let items = json(&ct(&w, &["list", "--json"]));
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
    let o = ct(&w, &["list"]);
    let text = stdout(&o);
    for cat in [
        "AI Prompts (1)",
        "AI Agents (1)",
        "AI Skills (1)",
        "AI Instructions (2)",
    ] {
        assert!(text.contains(cat), "{cat} in {text}");
    }
    // The broken agent: a warning with its file and line, and no item.
    let err = stderr(&o);
    assert!(
        err.contains("broken.agent.md:3: front matter is not valid YAML"),
        "{err}"
    );

    let o = ct(&w, &["prompt", "review-pr", "42", "now"]);
    assert_eq!(stdout(&o), "Review PR 42 (42 now).\n", "{}", stderr(&o));
    let v = json(&ct(
        &w,
        &["prompt", "review-pr", "7", "--agent", "planner", "--json"],
    ));
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
    // (crates/ct/tests/skills.rs sends one to a loopback model).
    let o = ct(&w, &["prompt", "review-pr", "--send"]);
    assert!(stderr(&o).contains("COMMANDTREE_LLM"), "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(1));

    let o = ct(&w, &["agent", "show", "planner"]);
    let s = stdout(&o);
    assert!(
        s.starts_with("You plan.\n\n<custom-instructions source=\"builtin\" agent=\"planner\">"),
        "{s}"
    );
    assert!(s.contains("Example: loadSkill({ skillId: \"db\" })"), "{s}");
    let v = json(&ct(&w, &["agent", "show", "architect", "--json"]));
    assert_eq!(v["agent"]["source"], "builtin");

    assert_eq!(stdout(&ct(&w, &["skill", "load", "db"])), "## Migrations\n");
    let o = ct(&w, &["skill", "load", "nope"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("Skill 'nope' not found. Available skills: db, rest-api-design"),
        "{}",
        stderr(&o)
    );

    // `ct show` prints the rendered content; running it is refused.
    let s = stdout(&ct(&w, &["show", "agent:planner"]));
    assert!(
        s.contains("type         agent (AI Agents)") && s.contains("Number every step."),
        "{s}"
    );
    let o = ct(&w, &["run", "prompt:review-pr"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("it is read, never run"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn definitions_are_tagged_and_starred_like_commands() {
    let w = repo("tags");
    assert!(
        ct(&w, &["tag", "add", "agent:planner", "ai"])
            .status
            .success()
    );
    assert!(ct(&w, &["star", "skill:db"]).status.success());
    let items = json(&ct(&w, &["list", "--tag", "ai", "--json"]));
    assert_eq!(items.as_array().unwrap().len(), 1);
    assert!(stdout(&ct(&w, &["quick"])).contains("db"));
}

#[test]
fn export_writes_marked_files_and_keeps_others() {
    let w = repo("export");
    write(&w, ".claude/agents/planner.md", "my own file\n");
    let o = ct(&w, &["export", "claude-code"]);
    assert!(
        stdout(&o).contains(".claude/agents/planner.md  (from .github/agents/planner.agent.md)"),
        "{}",
        stdout(&o)
    );
    assert!(
        !w.join(".claude/commands/review-pr.md").exists(),
        "listing writes nothing"
    );

    let o = ct(&w, &["export", "claude-code", "--write", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a kept file is reported by the exit code"
    );
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
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
    assert_eq!(
        std::fs::read_to_string(w.join(".claude/agents/planner.md")).unwrap(),
        "my own file\n"
    );
    let cmd = std::fs::read_to_string(w.join(".claude/commands/review-pr.md")).unwrap();
    assert!(
        cmd.contains("<!-- generated by ct export")
            && cmd.contains("Review PR $ARGUMENTS[0] ($ARGUMENTS)."),
        "{cmd}"
    );

    assert!(
        ct(&w, &["export", "claude-code", "--write", "--force"])
            .status
            .success()
    );
    let agent = std::fs::read_to_string(w.join(".claude/agents/planner.md")).unwrap();
    assert!(
        agent.contains("tools: Read, Grep") && agent.contains("Number every step."),
        "{agent}"
    );
    // Exported copies are not read back as definitions: no duplicate warnings, same tree.
    let o = ct(&w, &["export", "claude-code", "--write"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("duplicate"), "{}", stderr(&o));

    assert!(ct(&w, &["export", "copilot", "--write"]).status.success());
    for (dir, skill) in [
        (".claude/skills", "rest-api-design"),
        (".github/skills", "rest-api-design"),
    ] {
        let text = std::fs::read_to_string(w.join(dir).join(skill).join("SKILL.md")).unwrap();
        assert_eq!(
            commandtree_agents::skillspec::validate(skill, &text),
            Vec::<String>::new()
        );
    }
    let prompt = std::fs::read_to_string(w.join(".github/prompts/review-pr.prompt.md")).unwrap();
    assert!(
        prompt.contains("Review PR ${input:arg1} (${input:arguments})."),
        "{prompt}"
    );
}

fn sdk_dir() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let npm = Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !npm {
        support::skip("no npm to install @anthropic-ai/claude-agent-sdk and typescript");
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
    let w = repo("sdk");
    write(
        &w,
        "base.json",
        "{\"cwd\": \"/w\", \"systemPrompt\": \"Be brief.\", \"maxTurns\": 5}",
    );
    let o = ct(
        &w,
        &[
            "export",
            "claude-sdk",
            "--base",
            w.join("base.json").to_str().unwrap(),
        ],
    );
    let options = json(&o);
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
    let plain = json(&ct(&w, &["export", "claude-sdk"]));
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
        assert!(o.status.success(), "{f}: {}{}", stdout(&o), stderr(&o));
    }
    let o = tsc("wrong.ts");
    assert!(!o.status.success(), "tsc accepted a wrong Options object");
    let _ = std::fs::remove_dir_all(&check);
}
