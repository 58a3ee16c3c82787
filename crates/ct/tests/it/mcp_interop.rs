//! `ct mcp` with independent clients, on stdio and over HTTP (`ct mcp --http`): the official
//! Python MCP SDK (installed by `scripts/mcp-python-sdk.sh`) and the official TypeScript SDK
//! (`npm ci` in `tests/mcp/`), both set up by `scripts/test.sh`. Each lists the tools and calls
//! `list_commands`, `run_command` and `list_runs`, lists the prompts and gets one; the SDKs check each
//! `structuredContent` against the tool's `outputSchema`. The TypeScript client also adds a
//! definition and waits for `prompts/list_changed`. The HTTP transport's refusals (no token, a
//! wrong one, a foreign `Origin` or `Host`) are checked with plain HTTP requests.

use crate::support::{Workspace, skip};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The Python of the venv `scripts/mcp-python-sdk.sh` makes, with the official MCP SDK in it
/// (or `COMMANDTREE_MCP_PYTHON`); missing, the test is skipped.
fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("COMMANDTREE_MCP_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let found = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|cache| cache.join("commandtree/mcp-venv/bin/python"))
        .filter(|p| p.is_file());
    if found.is_none() {
        skip("no Python MCP SDK (bash scripts/mcp-python-sdk.sh installs it)");
    }
    found
}

/// The interop workspace: two scripts and two prompt definitions.
fn interop_workspace() -> Workspace {
    Workspace::new()
        .executable(
            "greet.sh",
            "#!/bin/sh\n# @param name Who to greet\nprintf 'hello [%s] %s\\n' \"$1\" \"$#\"\n",
        )
        .executable("fail.sh", "#!/bin/sh\necho bad >&2\nexit 4\n")
        .file(
            ".commandtree/commands/fix-issue.command.md",
            "---\ndescription: Fix a GitHub issue\n---\nFix issue $1 in the $2 module.\n",
        )
        .file(
            ".claude/commands/explain.md",
            "---\ndescription: Explain some code\n---\nExplain $ARGUMENTS simply.\n",
        )
}

/// A running `ct mcp --http` on a free loopback port, stopped when dropped.
struct HttpServer {
    child: Child,
    url: String,
    token: String,
}

impl HttpServer {
    fn start(w: &Workspace, extra: &[&str]) -> HttpServer {
        let mut cmd = w
            .ct()
            .args(["mcp", "--http", "127.0.0.1:0"])
            .args(extra)
            .current_dir(w)
            .command();
        cmd.stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = cmd.spawn().expect("start ct mcp --http");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut line = || lines.next().expect("ct mcp --http ended").unwrap();
        let url = line().strip_prefix("url: ").expect("url line").to_string();
        let token = line()
            .strip_prefix("token: ")
            .expect("token line")
            .to_string();
        HttpServer { child, url, token }
    }

    fn port(&self) -> u16 {
        let rest = self.url.strip_prefix("http://127.0.0.1:").unwrap();
        rest.split('/').next().unwrap().parse().unwrap()
    }

    /// The status line and body of an `initialize` POST with these extra header lines.
    fn post_initialize(&self, headers: &[String]) -> (u16, String) {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        if !headers.iter().any(|h| h.starts_with("Host:")) {
            req.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port()));
        }
        for h in headers {
            req.push_str(h);
            req.push_str("\r\n");
        }
        req.push_str("\r\n");
        req.push_str(body);
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port())).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        s.write_all(req.as_bytes()).unwrap();
        let mut answer = Vec::new();
        // An accepted initialize answers on an event stream the server keeps open: the
        // status line and the first event are enough.
        let mut buf = [0u8; 4096];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&buf[..n]);
            if String::from_utf8_lossy(&answer).contains("\"result\"") {
                break;
            }
        }
        let text = String::from_utf8_lossy(&answer).into_owned();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no status line: {text}"));
        (status, text)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_json(mut cmd: Command, w: &Path) -> Value {
    let out = cmd
        .env("HOME", w.join(".home"))
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .expect("run the client");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

fn python_client(py: &Path, w: &Path, args: &[&str]) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/interop.py");
    let mut cmd = Command::new(py);
    cmd.arg(&script).args(args);
    run_json(cmd, w)
}

#[test]
fn the_python_sdk_lists_tools_and_calls_them() {
    let Some(py) = python() else { return };
    let w = interop_workspace();
    let v = python_client(&py, &w, &[env!("CARGO_BIN_EXE_ct"), w.to_str().unwrap()]);
    assert_eq!(v["server"], "commandtree");
    assert_eq!(v["protocolVersion"], "2025-11-25");
    let tools = v["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 11, "{tools:?}");
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
    // The two runs, newest first, as list_runs reports them.
    assert_eq!(
        v["runs"],
        json!([
            ["fail.sh", "failed", "foreground", 4],
            ["greet.sh", "ok", "foreground", 0]
        ])
    );
    assert_eq!(v["annotations"]["stop_run"]["destructiveHint"], true);
    // The workspace's two prompt definitions (and the built-in one), with their arguments.
    assert_eq!(
        v["prompts"],
        json!({"fix-issue": ["arg1", "arg2"], "explain": ["arguments"]})
    );
    assert_eq!(v["prompt"], json!(["Fix issue #42 in the parser module."]));
}

/// Drops what differs between two runs of the same command (its run id and duration).
fn steady(mut v: Value) -> Value {
    for key in ["ran", "failed"] {
        if let Some(o) = v[key].as_object_mut() {
            o.remove("runId");
            o.remove("durationMs");
        }
    }
    v
}

#[test]
fn the_python_sdk_gets_the_same_answers_over_http_as_on_stdio() {
    let Some(py) = python() else { return };
    let w = interop_workspace();
    let stdio = python_client(&py, &w, &[env!("CARGO_BIN_EXE_ct"), w.to_str().unwrap()]);
    let server = HttpServer::start(&w, &[]);
    let http = python_client(&py, &w, &["--http", &server.url, &server.token]);
    assert_eq!(http["protocolVersion"], "2025-11-25");
    assert_eq!(http["ran"]["output"], "hello [it's \"me\" $(id)] 1\n");
    assert_eq!(steady(http), steady(stdio));
}

/// The official TypeScript SDK's client, when `npm ci` has put it in tests/mcp/node_modules.
fn typescript_client(w: &Path, args: &[&str]) -> Option<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp");
    if !dir
        .join("node_modules/@modelcontextprotocol/sdk/package.json")
        .is_file()
    {
        skip("no TypeScript MCP SDK (npm ci --prefix crates/ct/tests/mcp installs it)");
        return None;
    }
    let mut cmd = Command::new("node");
    cmd.arg(dir.join("interop.mjs")).args(args);
    Some(run_json(cmd, w))
}

fn check_typescript_answers(v: &Value) {
    assert_eq!(v["server"], "commandtree");
    assert_eq!(v["tools"].as_array().unwrap().len(), 11, "{v}");
    assert_eq!(v["outputSchemas"], v["tools"]);
    assert_eq!(v["readOnly"]["list_commands"], true);
    assert_eq!(v["readOnly"]["run_command"], false);
    assert_eq!(v["listedTotal"], 4);
    assert_eq!(
        v["ran"],
        json!({"exitCode": 0, "output": "hello [it's \"me\" $(id)] 1\n", "isError": false})
    );
    assert_eq!(v["failed"], json!({"exitCode": 4, "isError": true}));
    assert_eq!(
        v["runs"],
        json!([
            ["fail.sh", "failed", "foreground", 4],
            ["greet.sh", "ok", "foreground", 0]
        ])
    );
    assert_eq!(v["readOnly"]["list_runs"], true);
    assert_eq!(
        v["prompts"],
        json!({"fix-issue": ["arg1", "arg2"], "explain": ["arguments"]})
    );
    assert_eq!(v["prompt"], json!(["Fix issue #42 in the parser module."]));
    // The definition added while connected: the client was told, and lists it.
    assert_eq!(v["heardChange"], true, "{v}");
    assert_eq!(v["promptsAfter"]["ship-it"], json!(["arg1"]), "{v}");
}

#[test]
fn the_typescript_sdk_lists_calls_and_hears_changes_on_stdio() {
    let w = interop_workspace();
    let Some(v) = typescript_client(&w, &[env!("CARGO_BIN_EXE_ct"), w.to_str().unwrap()]) else {
        return;
    };
    check_typescript_answers(&v);
}

#[test]
fn the_typescript_sdk_lists_calls_and_hears_changes_over_http() {
    let w = interop_workspace();
    let server = HttpServer::start(&w, &[]);
    let Some(v) = typescript_client(
        &w,
        &["--http", &server.url, &server.token, w.to_str().unwrap()],
    ) else {
        return;
    };
    assert_eq!(v["protocolVersion"], "2025-11-25");
    check_typescript_answers(&v);
}

#[test]
fn the_http_transport_answers_only_with_the_token_and_from_its_own_origin() {
    let w = interop_workspace();
    let server = HttpServer::start(&w, &["--allow-origin", "http://localhost:6274"]);
    let bearer = format!("Authorization: Bearer {}", server.token);
    let port = server.port();

    let (status, text) = server.post_initialize(&[]);
    assert_eq!(status, 401, "{text}");
    assert!(
        text.to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{text}"
    );
    let wrong = format!("Authorization: Bearer {}x", &server.token[1..]);
    assert_eq!(server.post_initialize(&[wrong]).0, 401);
    assert_eq!(
        server
            .post_initialize(&[format!("Authorization: Basic {}", server.token)])
            .0,
        401
    );
    // A web page elsewhere, even one that somehow has the token.
    let (status, text) =
        server.post_initialize(&[bearer.clone(), "Origin: http://evil.example".into()]);
    assert_eq!(status, 403, "{text}");
    // DNS rebinding: the browser names the attacker's host.
    let (status, text) =
        server.post_initialize(&[bearer.clone(), format!("Host: evil.example:{port}")]);
    assert_eq!(status, 403, "{text}");
    // The server's own origin, an allowed one, and a client that sends none.
    for origin in [
        format!("Origin: http://127.0.0.1:{port}"),
        "Origin: http://localhost:6274".to_string(),
    ] {
        let (status, text) = server.post_initialize(&[bearer.clone(), origin]);
        assert_eq!(status, 200, "{text}");
    }
    let (status, text) = server.post_initialize(&[bearer]);
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("\"serverInfo\""), "{text}");
}

#[test]
fn the_http_transport_listens_on_loopback_only_and_keeps_its_token_file() {
    let w = interop_workspace();
    w.run(["mcp", "--http", "0.0.0.0:0"])
        .failure()
        .stderr_has("not a loopback address");

    let file = w.join(".home/mcp-token");
    let first = HttpServer::start(&w, &["--token-file", file.to_str().unwrap()]);
    assert_eq!(first.token, format!("in {}", file.display()));
    let kept = std::fs::read_to_string(&file).unwrap().trim().to_string();
    assert_eq!(kept.len(), 64);
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let (status, _) = first.post_initialize(&[format!("Authorization: Bearer {kept}")]);
    assert_eq!(status, 200);
    drop(first);
    // Started again, it reads the same token.
    let again = HttpServer::start(&w, &["--token-file", file.to_str().unwrap()]);
    assert_eq!(
        again
            .post_initialize(&[format!("Authorization: Bearer {kept}")])
            .0,
        200
    );
    // A token too short to be safe is refused.
    std::fs::write(w.join(".home/short"), "abc\n").unwrap();
    let short = w.join(".home/short");
    w.run([
        "mcp",
        "--http",
        "0",
        "--token-file",
        short.to_str().unwrap(),
    ])
    .failure()
    .stderr_has("at least 16");
}
