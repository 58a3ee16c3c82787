//! The connection: lifecycle (`initialize`, `shutdown`, `exit`), dispatch of requests to the
//! handlers, cancellation, and what every handler shares (the root, the client's choices, the
//! outgoing channel, the requests in flight, the watcher).
//!
//! Threads: the reader and the writer each have one; the main loop reads messages and never
//! blocks on engine work; requests run one at a time, in order, on a worker thread, except the
//! slow ones (`summarize`, `search`, skills and playbooks), which get a thread each so
//! cancellation and other requests are served meanwhile. A handler that asks the client
//! something ([`Shared::request_client`]) waits on its own thread; the main loop hands the
//! client's response to it.

use crate::error::*;
use crate::handlers::{self, Kind, Route};
use crate::protocol::{self as proto, Notification as _};
use crate::transport::{self, Incoming, Outgoing};
use commandtree_core::CancelToken;
use commandtree_engine::{Engine, Live};
use lsp_server::{Message, Notification, Request, RequestId, Response, ResponseError};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// How the server was started.
#[derive(Debug, Clone)]
pub struct Options {
    /// `ct --root DIR`: the root when the client names none.
    pub root: Option<PathBuf>,
    /// The server's working directory (the workspace around it is the last resort).
    pub cwd: PathBuf,
    /// End this process (status 1) when the editor process dies: the one given here
    /// (`--clientProcessId`) or the `processId` of `initialize`, as LSP asks of a server. Off for
    /// an embedded server, where the host process decides when to stop.
    pub exit_with_client: Option<Option<u32>>,
}

/// Serves one connection until `exit` or the end of input. Returns the process exit status:
/// 0 after `shutdown`, else 1 (as LSP asks).
pub fn serve(
    opts: Options,
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
) -> i32 {
    let (in_tx, in_rx) = mpsc::channel();
    let (out_tx, out_rx) = mpsc::channel();
    let reader = std::thread::Builder::new()
        .name("commandtree-lsp-reader".into())
        .spawn(move || transport::reader(input, in_tx));
    let writer = std::thread::Builder::new()
        .name("commandtree-lsp-writer".into())
        .spawn(move || transport::writer(output, out_rx));
    if reader.is_err() || writer.is_err() {
        eprintln!("ct lsp: cannot start the I/O threads");
        return 1;
    }
    let mut server = Server {
        opts,
        out: out_tx.clone(),
        shared: None,
        serial: None,
        shut_down: false,
    };
    let code = server.run(in_rx);
    server.stop();
    // Everything sent so far must reach the client before the process ends; the writer flushes
    // each message, so its having taken this marker means the earlier ones are out.
    let (ack_tx, ack_rx) = mpsc::channel();
    let _ = out_tx.send(Outgoing::Flushed(ack_tx));
    let _ = ack_rx.recv_timeout(Duration::from_secs(5));
    code
}

/// One request in flight.
struct InFlight {
    cancel: CancelToken,
    kind: Kind,
}

/// What the handlers share.
pub struct Shared {
    /// The canonical workspace root this server serves.
    pub root: PathBuf,
    excludes: Mutex<Option<Vec<String>>>,
    trusted: AtomicBool,
    /// The client asked for `tasksChanged` in the delta form.
    pub delta: bool,
    out: Sender<Outgoing>,
    inflight: Mutex<HashMap<RequestId, InFlight>>,
    /// Work-done tokens (as JSON text) of requests in flight.
    tokens: Mutex<HashMap<String, RequestId>>,
    /// The live index every request answers from (started by the first that needs it).
    pub(crate) live: Mutex<Option<Arc<Live>>>,
    /// The client asked for `tasksChanged` (`watchFiles`).
    pub(crate) watching: AtomicBool,
    /// Listings already serialized, by request (method and params): each with the live list it
    /// was made from, so any change of the commands or the database makes it stale.
    pub(crate) answers: Mutex<HashMap<String, handlers::Kept>>,
    parallel: Mutex<Vec<JoinHandle<()>>>,
    /// The thread sending `runsChanged` (started by `watchFiles`).
    pub(crate) runs_watch: Mutex<Option<crate::runs::Watch>>,
    /// The commands watched for `commandFilesChanged` (`watchCommand`), by id.
    pub(crate) watched: Mutex<HashMap<String, commandtree_engine::rerun::Watching>>,
    /// The client answers `commandtree/languageModelRequest` (its `initialize` said so).
    pub language_models: bool,
    /// Requests this server sent the client, by id: where the answer goes.
    asked: Mutex<HashMap<RequestId, Sender<ClientAnswer>>>,
    next_ask: AtomicU64,
}

/// What a handler waiting on the client gets.
enum ClientAnswer {
    Response(Response),
    /// The handler's own request was cancelled meanwhile.
    Cancelled,
}

/// Why a request to the client brought no result.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientError {
    /// The request this one serves was cancelled (then `$/cancelRequest` went to the client),
    /// or the client answered that it cancelled the request itself (−32800).
    Cancelled,
    /// The client answered with an error (code, message), or went away.
    Failed(i32, String),
}

/// A lock that a panicking handler left poisoned still holds consistent data here (maps and
/// options replaced whole), so the server keeps going.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// The engine for one request: settings read afresh, the client's excludes applied.
    pub fn engine(&self) -> RpcResult<Engine> {
        let mut e = Engine::open(Some(&self.root), &self.root).map_err(|e| {
            RpcError::new(WORKSPACE_NOT_FOUND, e.to_string())
                .with_data(json!({"workspaceRoot": self.root}))
        })?;
        if let Some(p) = lock(&self.excludes).clone() {
            e.set_exclude_patterns(p);
        }
        Ok(e)
    }

    /// Sets the client's exclude globs; whether they changed.
    pub fn set_excludes(&self, patterns: Vec<String>) -> bool {
        let mut e = lock(&self.excludes);
        let changed = e.as_ref() != Some(&patterns);
        *e = Some(patterns);
        changed
    }

    pub fn trusted(&self) -> bool {
        self.trusted.load(Ordering::SeqCst)
    }

    /// Refuses `what` in an untrusted workspace.
    pub fn require_trust(&self, what: &str) -> RpcResult<()> {
        if self.trusted() {
            Ok(())
        } else {
            Err(RpcError::untrusted(what))
        }
    }

    /// Sends one of the protocol's notifications.
    pub fn send<N: proto::Notification>(&self, params: &N::Params)
    where
        N::Params: serde::Serialize,
    {
        self.notify(N::METHOD, params);
    }

    /// Sends an LSP notification (`$/progress`, `window/logMessage`, `$/cancelRequest`).
    pub fn notify(&self, method: &str, params: impl serde::Serialize) {
        let _ = self
            .out
            .send(Outgoing::Message(Message::Notification(Notification::new(
                method.to_string(),
                params,
            ))));
    }

    /// `window/logMessage`: 1 error, 2 warning, 3 info.
    pub fn log(&self, typ: lsp_types::MessageType, message: String) {
        self.notify(
            "window/logMessage",
            lsp_types::LogMessageParams { typ, message },
        );
    }

    /// Ties a client's work-done token to request `id`, for `window/workDoneProgress/cancel`.
    pub fn bind_token(&self, token: &proto::ProgressToken, id: &RequestId) {
        // Keyed by JSON text, as the cancel notification's token is compared.
        let key = serde_json::to_string(token).unwrap_or_default();
        lock(&self.tokens).insert(key, id.clone());
    }

    /// Sends the client request `R` and waits for its answer, which the caller reads as
    /// `R::Result` (each caller says in its own words what a malformed answer means). When
    /// `cancel` fires first, the client gets `$/cancelRequest` for it and this returns at once;
    /// a late answer is dropped.
    pub fn request_client<R: proto::Request>(
        &self,
        params: &R::Params,
        cancel: &CancelToken,
    ) -> Result<Value, ClientError>
    where
        R::Params: serde::Serialize,
    {
        if cancel.is_cancelled() {
            return Err(ClientError::Cancelled);
        }
        let n = self.next_ask.fetch_add(1, Ordering::Relaxed) + 1;
        let id = RequestId::from(format!("commandtree-{n}"));
        let (tx, rx) = mpsc::channel();
        lock(&self.asked).insert(id.clone(), tx.clone());
        let _hook = cancel.on_cancel(move || {
            let _ = tx.send(ClientAnswer::Cancelled);
        });
        let _ = self
            .out
            .send(Outgoing::Message(Message::Request(Request::new(
                id.clone(),
                R::METHOD.to_string(),
                params,
            ))));
        let answer = rx.recv();
        lock(&self.asked).remove(&id);
        match answer {
            Ok(ClientAnswer::Response(r)) => r.response_result.map_err(|e| match e.code {
                REQUEST_CANCELLED => ClientError::Cancelled,
                code => ClientError::Failed(code, e.message),
            }),
            Ok(ClientAnswer::Cancelled) => {
                self.notify("$/cancelRequest", json!({"id": id}));
                Err(ClientError::Cancelled)
            }
            // The sender lives in `asked` until here, so this is not reached; answered as a
            // connection that went away.
            Err(_) => Err(ClientError::Failed(
                INTERNAL_ERROR,
                "the editor went away".into(),
            )),
        }
    }

    /// Hands a client's response to the handler waiting for it; others are dropped.
    fn deliver(&self, r: Response) {
        if let Some(tx) = lock(&self.asked).get(&r.id) {
            let _ = tx.send(ClientAnswer::Response(r));
        }
    }

    fn cancel(&self, id: &RequestId) {
        if let Some(f) = lock(&self.inflight).get(id) {
            f.cancel.cancel();
        }
    }

    fn answer(&self, id: RequestId, result: RpcResult<Arc<str>>) {
        let out = match result {
            Ok(result) => Outgoing::Answer { id, result },
            Err(e) => response(id, Err(e)),
        };
        let _ = self.out.send(out);
    }

    /// Runs one request and answers it; a panic in a handler is an internal error, never the
    /// end of the server.
    fn run(self: &Arc<Self>, route: &Route, req: Request, cancel: CancelToken) {
        let result = if cancel.is_cancelled() {
            Err(RpcError::cancelled())
        } else {
            let ctx = handlers::Ctx {
                shared: self,
                id: &req.id,
                cancel: &cancel,
            };
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                handlers::answer(&ctx, route, req.params)
            }))
            .unwrap_or_else(|p| {
                let why = p
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                Err(RpcError::new(
                    INTERNAL_ERROR,
                    format!("internal error in {}: {why}", req.method),
                ))
            })
        };
        lock(&self.inflight).remove(&req.id);
        lock(&self.tokens).retain(|_, v| *v != req.id);
        self.answer(req.id, result);
    }
}

fn response(id: RequestId, result: RpcResult) -> Outgoing {
    let response_result = result.map_err(|e| ResponseError {
        code: e.code,
        message: e.message,
        data: e.data,
    });
    Outgoing::Message(Message::Response(Response {
        id,
        response_result,
    }))
}

/// A request queued for the worker, with its route and cancel token.
type Job = (&'static Route, Request, CancelToken);

struct Server {
    opts: Options,
    out: Sender<Outgoing>,
    shared: Option<Arc<Shared>>,
    serial: Option<(Sender<Job>, JoinHandle<()>)>,
    shut_down: bool,
}

impl Server {
    fn run(&mut self, rx: Receiver<Incoming>) -> i32 {
        for incoming in rx {
            match incoming {
                Incoming::Message(Message::Request(req)) => self.on_request(req),
                Incoming::Message(Message::Notification(n)) => {
                    if n.method == "exit" {
                        return if self.shut_down { 0 } else { 1 };
                    }
                    self.on_notification(n);
                }
                Incoming::Message(Message::Response(r)) => {
                    if let Some(shared) = &self.shared {
                        shared.deliver(r);
                    }
                }
                Incoming::Invalid(v) => {
                    let _ = self.out.send(Outgoing::Raw(v));
                }
                Incoming::BadFrame(why) => eprintln!("ct lsp: ignored a malformed frame: {why}"),
            }
        }
        // The client closed the connection: as `exit`.
        if self.shut_down { 0 } else { 1 }
    }

    fn reply(&self, id: RequestId, result: RpcResult) {
        let _ = self.out.send(response(id, result));
    }

    fn on_request(&mut self, req: Request) {
        if req.method == "initialize" {
            let r = if self.shared.is_some() {
                Err(RpcError::new(
                    INVALID_REQUEST,
                    "initialize was already received",
                ))
            } else {
                self.initialize(&req.params)
            };
            return self.reply(req.id, r);
        }
        let Some(shared) = self.shared.clone() else {
            return self.reply(
                req.id,
                Err(RpcError::new(
                    SERVER_NOT_INITIALIZED,
                    "server not initialized: send initialize first",
                )),
            );
        };
        if self.shut_down {
            return self.reply(
                req.id,
                Err(RpcError::new(
                    INVALID_REQUEST,
                    "the server is shut down; only exit is accepted",
                )),
            );
        }
        if req.method == "shutdown" {
            self.stop();
            self.shut_down = true;
            return self.reply(req.id, Ok(Value::Null));
        }
        let Some(route) = handlers::route(&req.method) else {
            return self.reply(
                req.id,
                Err(RpcError::new(
                    METHOD_NOT_FOUND,
                    format!("unknown method `{}`", req.method),
                )),
            );
        };
        let cancel = CancelToken::new();
        lock(&shared.inflight).insert(
            req.id.clone(),
            InFlight {
                cancel: cancel.clone(),
                kind: route.kind,
            },
        );
        match route.kind {
            Kind::Serial => {
                let (tx, _) = self.serial.get_or_insert_with(|| {
                    let (tx, rx) = mpsc::channel::<Job>();
                    let s = shared.clone();
                    let h = std::thread::Builder::new()
                        .name("commandtree-lsp-worker".into())
                        .spawn(move || {
                            for (route, req, cancel) in rx {
                                s.run(route, req, cancel);
                            }
                        })
                        .expect("start the worker thread");
                    (tx, h)
                });
                let _ = tx.send((route, req, cancel));
            }
            Kind::Parallel => {
                let s = shared.clone();
                let h = std::thread::Builder::new()
                    .name("commandtree-lsp-request".into())
                    .spawn(move || s.run(route, req, cancel))
                    .expect("start a request thread");
                let mut all = lock(&shared.parallel);
                all.retain(|h| !h.is_finished());
                all.push(h);
            }
        }
    }

    fn on_notification(&mut self, n: Notification) {
        let Some(shared) = &self.shared else {
            return;
        };
        match n.method.as_str() {
            "$/cancelRequest" => {
                if let Some(id) = n
                    .params
                    .get("id")
                    .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok())
                {
                    shared.cancel(&id);
                }
            }
            "window/workDoneProgress/cancel" => {
                if let Some(t) = n.params.get("token") {
                    let id = lock(&shared.tokens).get(&t.to_string()).cloned();
                    if let Some(id) = id {
                        shared.cancel(&id);
                    }
                }
            }
            proto::SetTrusted::METHOD => {
                // A malformed one is ignored, as any notification the server cannot use.
                if let Ok(p) = serde_json::from_value::<proto::SetTrustedParams>(n.params) {
                    shared.trusted.store(p.trusted, Ordering::SeqCst);
                }
            }
            _ => {}
        }
    }

    /// Stops the watcher, cancels the slow requests and waits for every request in flight.
    fn stop(&mut self) {
        let Some(shared) = &self.shared else {
            return;
        };
        let live = lock(&shared.live).take();
        drop(live);
        let runs = lock(&shared.runs_watch).take();
        if let Some(w) = runs {
            w.stop();
        }
        let watched = std::mem::take(&mut *lock(&shared.watched));
        drop(watched);
        for f in lock(&shared.inflight).values() {
            if f.kind == Kind::Parallel {
                f.cancel.cancel();
            }
        }
        if let Some((tx, h)) = self.serial.take() {
            drop(tx);
            let _ = h.join();
        }
        let handles: Vec<JoinHandle<()>> = lock(&shared.parallel).drain(..).collect();
        for h in handles {
            let _ = h.join();
        }
    }

    fn initialize(&mut self, params: &Value) -> RpcResult {
        let opts = params.get("initializationOptions").unwrap_or(&Value::Null);
        let root = self.choose_root(params, opts)?;
        let excludes = match opts.get("excludePatterns") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                serde_json::from_value::<Vec<String>>(v.clone()).map_err(|e| {
                    RpcError::params(format!(
                        "initializationOptions.excludePatterns: a list of globs expected ({e})"
                    ))
                })?,
            ),
        };
        let trusted = match opts.get("trusted") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                return Err(RpcError::params(
                    "initializationOptions.trusted: true or false expected",
                ));
            }
        };
        if let Some(given) = self.opts.exit_with_client {
            let named = params
                .get("processId")
                .and_then(Value::as_u64)
                .and_then(|p| u32::try_from(p).ok());
            if let Some(pid) = given.or(named) {
                crate::parent::exit_when_gone(pid);
            }
        }
        let delta = params
            .pointer("/capabilities/experimental/commandtree/tasksChangedDelta")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let language_models = params
            .pointer("/capabilities/experimental/commandtree/languageModels")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let shared = Arc::new(Shared {
            root: root.clone(),
            excludes: Mutex::new(excludes),
            trusted: AtomicBool::new(trusted),
            delta,
            out: self.out.clone(),
            inflight: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            live: Mutex::new(None),
            watching: AtomicBool::new(false),
            answers: Mutex::new(HashMap::new()),
            parallel: Mutex::new(Vec::new()),
            runs_watch: Mutex::new(None),
            watched: Mutex::new(HashMap::new()),
            language_models,
            asked: Mutex::new(HashMap::new()),
            next_ask: AtomicU64::new(0),
        });
        self.shared = Some(shared);
        let methods: Vec<&str> = handlers::ROUTES.iter().map(|r| r.method).collect();
        Ok(json!({
            "capabilities": {
                "experimental": {
                    "commandtree": {
                        "version": 1,
                        "tasksChangedDelta": delta,
                        "languageModels": language_models,
                        "methods": methods,
                    }
                }
            },
            "serverInfo": {"name": "commandtree", "version": env!("CARGO_PKG_VERSION")},
            "workspaceRoot": root,
        }))
    }

    /// The root, in the order the protocol document gives.
    fn choose_root(&self, params: &Value, opts: &Value) -> RpcResult<PathBuf> {
        let given: Option<PathBuf> = opts
            .get("workspaceRoot")
            .and_then(Value::as_str)
            .map(path_of)
            .or_else(|| {
                params
                    .pointer("/workspaceFolders/0/uri")
                    .and_then(Value::as_str)
                    .map(path_of)
            })
            .or_else(|| params.get("rootUri").and_then(Value::as_str).map(path_of))
            .or_else(|| params.get("rootPath").and_then(Value::as_str).map(path_of))
            .or_else(|| self.opts.root.clone());
        let root = match given {
            Some(p) => p,
            None => Engine::open(None, &self.opts.cwd)
                .map(|e| e.root().to_path_buf())
                .map_err(|e| RpcError::new(WORKSPACE_NOT_FOUND, e.to_string()))?,
        };
        match std::fs::canonicalize(&root) {
            Ok(p) if p.is_dir() => Ok(p),
            _ => Err(RpcError::new(
                WORKSPACE_NOT_FOUND,
                format!("workspace not found: {} is not a folder", root.display()),
            )
            .with_data(json!({"workspaceRoot": root}))),
        }
    }
}

/// A path given as a path or as a `file://` URI (percent-decoded; the host is ignored).
pub fn path_of(s: &str) -> PathBuf {
    let Some(rest) = s.strip_prefix("file://") else {
        return PathBuf::from(s);
    };
    let path = match rest.find('/') {
        Some(i) => &rest[i..],
        None => "/",
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    path_from_bytes(out)
}

#[cfg(unix)]
fn path_from_bytes(b: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(b))
}

#[cfg(not(unix))]
fn path_from_bytes(b: Vec<u8>) -> PathBuf {
    // `file:///C:/x` → `C:/x`.
    let s = String::from_utf8_lossy(&b).into_owned();
    let s = match s.strip_prefix('/') {
        Some(t) if t.get(1..2) == Some(":") => t.to_string(),
        _ => s,
    };
    PathBuf::from(s)
}

/// Whether `p` (absolute) lies inside `root` without climbing out through `..`.
pub fn inside(root: &Path, p: &Path) -> bool {
    p.starts_with(root)
        && !p
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(path_of("file:///w/a%20b"), PathBuf::from("/w/a b"));
        assert_eq!(path_of("file://localhost/w/x"), PathBuf::from("/w/x"));
        assert_eq!(path_of("/plain/path"), PathBuf::from("/plain/path"));
        assert_eq!(path_of("file:///w/100%"), PathBuf::from("/w/100%"));
    }

    #[test]
    fn inside_refuses_climbing_out() {
        let root = Path::new("/w");
        assert!(inside(root, Path::new("/w/a/b")));
        assert!(!inside(root, Path::new("/w/../etc/passwd")));
        assert!(!inside(root, Path::new("/other")));
        assert!(!inside(root, Path::new("/wx/a")));
    }
}
