//! `ct mcp` with an independent client: the official Python MCP SDK (installed by
//! `scripts/mcp-python-sdk.sh`, which `scripts/test.sh` runs) lists the tools and calls
//! `list_commands` and `run_command`, lists the prompts and gets one; the SDK itself checks each
//! `structuredContent` against the tool's `outputSchema`.

mod support;

use serde_json::{Value, json};
use std::path::PathBuf;
use support::{executable, workspace};

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("COMMANDTREE_MCP_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    let p = cache.join("commandtree/mcp-venv/bin/python");
    p.is_file().then_some(p)
}

#[test]
fn the_python_sdk_lists_tools_and_calls_them() {
    let Some(py) = python() else {
        support::skip("no Python MCP SDK (bash scripts/mcp-python-sdk.sh installs it)");
        return;
    };
    let w = workspace("mcp-interop", "py");
    executable(
        &w,
        "greet.sh",
        "#!/bin/sh\n# @param name Who to greet\nprintf 'hello [%s] %s\\n' \"$1\" \"$#\"\n",
    );
    executable(&w, "fail.sh", "#!/bin/sh\necho bad >&2\nexit 4\n");
    support::write(
        &w,
        ".commandtree/commands/fix-issue.command.md",
        "---\ndescription: Fix a GitHub issue\n---\nFix issue $1 in the $2 module.\n",
    );
    support::write(
        &w,
        ".claude/commands/explain.md",
        "---\ndescription: Explain some code\n---\nExplain $ARGUMENTS simply.\n",
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/interop.py");
    let out = std::process::Command::new(py)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_ct"))
        .arg(&w)
        .env("HOME", w.join(".home"))
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .expect("run python");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(v["server"], "commandtree");
    assert_eq!(v["protocolVersion"], "2025-11-25");
    let tools = v["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 8, "{tools:?}");
    assert_eq!(v["outputSchemas"], v["tools"]);
    assert_eq!(v["annotations"]["list_commands"]["readOnlyHint"], true);
    assert_eq!(v["annotations"]["run_command"]["destructiveHint"], true);
    // The two scripts and the two prompt commands.
    assert_eq!(v["listed"]["total"], 4);
    assert!(
        v["listedText"][0]
            .as_str()
            .unwrap()
            .contains("shell:greet.sh")
    );
    assert_eq!(v["ran"]["exitCode"], 0);
    assert_eq!(v["ran"]["output"], "hello [it's \"me\" $(id)] 1\n");
    assert_eq!(v["ranIsError"], false);
    assert_eq!(v["failed"]["exitCode"], 4);
    assert_eq!(v["failedIsError"], json!(true));
    // The workspace's two prompt definitions (and the built-in one), with their arguments.
    assert_eq!(
        v["prompts"],
        json!({"fix-issue": ["arg1", "arg2"], "explain": ["arguments"], "review-changes": ["arguments"]})
    );
    assert_eq!(v["prompt"], json!(["Fix issue #42 in the parser module."]));
}
