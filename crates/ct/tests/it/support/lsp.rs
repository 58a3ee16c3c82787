//! An editor's side of the editor protocol (LSP framing, JSON-RPC): `ct lsp` as a child process,
//! or `commandtree_lsp::serve` in this process over pipes (so what it does can be counted).

use super::Ct;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long any one message may take to arrive: generous for a loaded 2-core machine, and only
/// a bound, never a measurement.
pub const WAIT: Duration = Duration::from_secs(60);

pub struct Lsp {
    pub child: Option<Child>,
    server: Option<JoinHandle<i32>>,
    stdin: Option<Box<dyn Write + Send>>,
    rx: Receiver<Value>,
    /// Notifications (and responses) read while waiting for something else.
    pub seen: VecDeque<Value>,
    next_id: i64,
}

impl Lsp {
    /// `ct` as `ct` runs it (`lsp` and its arguments already given), its stderr dropped.
    pub fn spawn(ct: Ct) -> Lsp {
        let mut child = ct
            .command()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ct lsp");
        let out = child.stdout.take().unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut lsp = Lsp::over(Box::new(stdin), out);
        lsp.child = Some(child);
        lsp
    }

    /// The editor server of `commandtree_lsp` in a thread of this process, for `root`.
    pub fn in_process(root: &Path) -> Lsp {
        let (server_in, to) = std::io::pipe().unwrap();
        let (from_server, server_out) = std::io::pipe().unwrap();
        let opts = commandtree_lsp::Options {
            root: Some(root.to_path_buf()),
            cwd: root.to_path_buf(),
            exit_with_client: None,
        };
        let server =
            std::thread::spawn(move || commandtree_lsp::serve(opts, server_in, server_out));
        let mut lsp = Lsp::over(Box::new(to), from_server);
        lsp.server = Some(server);
        lsp
    }

    fn over(to: Box<dyn Write + Send>, from: impl std::io::Read + Send + 'static) -> Lsp {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || read_frames(from, tx));
        Lsp {
            child: None,
            server: None,
            stdin: Some(to),
            rx,
            seen: VecDeque::new(),
            next_id: 1,
        }
    }

    /// Closes the server's input, as a client that goes away.
    pub fn close(&mut self) {
        self.stdin = None;
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    pub fn send(&mut self, v: &Value) {
        let body = v.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its id without waiting.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The first message (read before or after) matching `pred`; others are kept.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&pred) {
            return self.seen.remove(i).unwrap();
        }
        loop {
            match self.rx.recv_timeout(WAIT) {
                Ok(v) if pred(&v) => return v,
                Ok(v) => self.seen.push_back(v),
                Err(_) => panic!("no {what} from the server; seen: {:?}", self.seen),
            }
        }
    }

    pub fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("response {id}"), |v| {
            v["id"] == json!(id) && v.get("method").is_none()
        })
    }

    /// The result of a request that must succeed.
    #[track_caller]
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params.clone());
        let r = self.response(id);
        assert!(
            r.get("error").is_none(),
            "{method} {params} failed: {}",
            r["error"]
        );
        r["result"].clone()
    }

    /// The error of a request that must fail: (code, whole error object).
    #[track_caller]
    pub fn err(&mut self, method: &str, params: Value) -> (i64, Value) {
        let id = self.send_request(method, params.clone());
        let r = self.response(id);
        let e = r
            .get("error")
            .unwrap_or_else(|| panic!("{method} {params} succeeded: {r}"))
            .clone();
        (e["code"].as_i64().unwrap(), e)
    }

    /// The error object of a request that must fail with `code`.
    #[track_caller]
    pub fn fails_with(&mut self, code: i64, method: &str, params: Value) -> Value {
        let (got, e) = self.err(method, params.clone());
        assert_eq!(got, code, "{method} {params}: {e}");
        e
    }

    /// A request from the server (it has an id and a method).
    pub fn server_request(&mut self, method: &str) -> Value {
        self.wait_for(method, |v| v["method"] == method && v.get("id").is_some())
    }

    pub fn answer(&mut self, id: &Value, result: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }

    pub fn notification(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_for(method, |v| v["method"] == method && pred(&v["params"]))["params"].clone()
    }

    pub fn initialize(&mut self, root: &Path, options: Value, delta: bool) -> Value {
        self.initialize_with(
            root,
            options,
            json!({"commandtree": {"tasksChangedDelta": delta}}),
        )
    }

    /// `initialize` with these `capabilities.experimental`.
    pub fn initialize_with(&mut self, root: &Path, options: Value, experimental: Value) -> Value {
        let uri = format!("file://{}", root.display());
        let r = self.ok(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": "w"}],
                "initializationOptions": options,
                "capabilities": {
                    "window": {"workDoneProgress": true},
                    "experimental": experimental,
                },
            }),
        );
        self.notify("initialized", json!({}));
        r
    }

    /// `shutdown` then `exit`: the exit status.
    pub fn finish(mut self) -> Option<i32> {
        let r = self.ok("shutdown", Value::Null);
        assert_eq!(r, Value::Null);
        self.notify("exit", Value::Null);
        self.wait_exit()
    }

    /// The exit status of `ct lsp`, waited for.
    pub fn wait_exit(&mut self) -> Option<i32> {
        let child = self.child.as_mut().expect("a ct lsp process");
        for _ in 0..(WAIT.as_millis() / 50) {
            if let Some(s) = child.try_wait().unwrap() {
                return s.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("ct lsp did not exit");
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
        // An in-process server ends at the end of its input.
        self.stdin = None;
        if let Some(s) = self.server.take() {
            let _ = s.join();
        }
    }
}

/// Reads LSP frames from `r` and hands on each body as JSON.
fn read_frames(r: impl std::io::Read, tx: mpsc::Sender<Value>) {
    use std::io::{BufRead, Read};
    let mut r = std::io::BufReader::new(r);
    loop {
        let mut len = None;
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let t = line.trim_end();
            if t.is_empty() {
                break;
            }
            if let Some(v) = t.strip_prefix("Content-Length: ") {
                len = Some(v.parse::<usize>().expect("a length"));
            }
        }
        let mut body = vec![0; len.expect("Content-Length from the server")];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let v: Value = serde_json::from_slice(&body).expect("the server sends JSON");
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        if tx.send(v).is_err() {
            return;
        }
    }
}
