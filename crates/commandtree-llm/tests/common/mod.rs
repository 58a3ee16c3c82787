//! A real HTTP/1.1 server on 127.0.0.1 for the tests: it records every request and answers
//! with whatever the test's handler returns (JSON, server-sent events in chunks, error statuses,
//! garbage, or nothing for a while). Shared with the `ct` tests through `#[path]`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

pub enum Reply {
    /// Status, extra headers, body (sent with Content-Length).
    Full(u16, Vec<(String, String)>, String),
    /// A 200 event stream: each piece is written as its own chunk, `gap` apart.
    Stream(Vec<String>, Duration),
    /// Headers of a 200 event stream, then a comment line every `every` for at most `for_at_most`,
    /// as a model that thinks slowly; records when writing fails (the client went away).
    Trickle {
        every: Duration,
        for_at_most: Duration,
    },
    /// Reads the request and says nothing for at most this long.
    Silence(Duration),
}

impl Reply {
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply::Full(status, Vec::new(), body.to_string())
    }
    pub fn raw(status: u16, body: &str) -> Reply {
        Reply::Full(status, Vec::new(), body.to_string())
    }
}

type Handler = dyn Fn(&Request, usize) -> Reply + Send + Sync;

pub struct Server {
    addr: SocketAddr,
    pub requests: Arc<Mutex<Vec<Request>>>,
    /// Requests being answered right now, and the most at once.
    pub in_flight: Arc<AtomicUsize>,
    pub max_in_flight: Arc<AtomicUsize>,
    /// Set when a trickled stream could no longer be written: the client closed it.
    pub client_gone: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let handler: Arc<Handler> = Arc::new(handler);
        let s = Server {
            addr,
            requests: Arc::default(),
            in_flight: Arc::default(),
            max_in_flight: Arc::default(),
            client_gone: Arc::default(),
            stop: Arc::default(),
        };
        let (requests, in_flight, max_in_flight, gone, stop) = (
            s.requests.clone(),
            s.in_flight.clone(),
            s.max_in_flight.clone(),
            s.client_gone.clone(),
            s.stop.clone(),
        );
        thread::spawn(move || {
            for conn in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (handler, requests, in_flight, max_in_flight, gone) = (
                    handler.clone(),
                    requests.clone(),
                    in_flight.clone(),
                    max_in_flight.clone(),
                    gone.clone(),
                );
                thread::spawn(move || {
                    let _ = serve(
                        conn,
                        &*handler,
                        &requests,
                        &in_flight,
                        &max_in_flight,
                        &gone,
                    );
                });
            }
        });
        s
    }

    /// Base URL for the OpenAI wire (`…/v1`).
    pub fn v1(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Base URL for the Anthropic wire (the host).
    pub fn host(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }

    pub fn posts(&self) -> Vec<Request> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.method == "POST")
            .cloned()
            .collect()
    }

    pub fn clear(&self) {
        self.requests.lock().unwrap().clear();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn serve(
    mut conn: TcpStream,
    handler: &Handler,
    requests: &Mutex<Vec<Request>>,
    in_flight: &AtomicUsize,
    max_in_flight: &AtomicUsize,
    gone: &AtomicBool,
) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    let mut len = 0usize;
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            let (k, v) = (k.trim().to_string(), v.trim().to_string());
            if k.eq_ignore_ascii_case("content-length") {
                len = v.parse().unwrap_or(0);
            }
            headers.push((k, v));
        }
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body)?;
    let req = Request {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let index = {
        let mut r = requests.lock().unwrap();
        r.push(req.clone());
        r.len() - 1
    };
    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    max_in_flight.fetch_max(now, Ordering::SeqCst);
    let reply = handler(&req, index);
    let result = write_reply(&mut conn, reply, gone);
    in_flight.fetch_sub(1, Ordering::SeqCst);
    result
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn write_reply(conn: &mut TcpStream, reply: Reply, gone: &AtomicBool) -> std::io::Result<()> {
    match reply {
        Reply::Full(status, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                reason(status),
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            conn.write_all(head.as_bytes())?;
            conn.write_all(body.as_bytes())?;
            conn.flush()
        }
        Reply::Stream(pieces, gap) => {
            conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
            )?;
            for p in pieces {
                write!(conn, "{:x}\r\n{p}\r\n", p.len())?;
                conn.flush()?;
                thread::sleep(gap);
            }
            conn.write_all(b"0\r\n\r\n")?;
            conn.flush()
        }
        Reply::Trickle { every, for_at_most } => {
            conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
            )?;
            let start = Instant::now();
            while start.elapsed() < for_at_most {
                let piece = ": thinking\n\n";
                let r = write!(conn, "{:x}\r\n{piece}\r\n", piece.len()).and_then(|_| conn.flush());
                if r.is_err() {
                    gone.store(true, Ordering::SeqCst);
                    return Ok(());
                }
                thread::sleep(every);
            }
            Ok(())
        }
        Reply::Silence(d) => {
            let start = Instant::now();
            let mut buf = [0u8; 1];
            conn.set_read_timeout(Some(Duration::from_millis(50)))?;
            while start.elapsed() < d {
                // A read of 0 bytes means the client closed the connection.
                match conn.read(&mut buf) {
                    Ok(0) => {
                        gone.store(true, Ordering::SeqCst);
                        return Ok(());
                    }
                    _ => continue,
                }
            }
            Ok(())
        }
    }
}

/// SSE text for an OpenAI chunk.
pub fn data(v: serde_json::Value) -> String {
    format!("data: {v}\n\n")
}

/// SSE text for an Anthropic event.
pub fn event(name: &str, v: serde_json::Value) -> String {
    format!("event: {name}\ndata: {v}\n\n")
}

/// An OpenAI reply that calls `tool` with `args`.
pub fn openai_tool_reply(tool: &str, args: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "mock-model",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": tool, "arguments": args.to_string()}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    })
}

/// What an OpenAI-compatible server answers `GET /models` with: one model.
pub fn model_list() -> Reply {
    Reply::json(200, serde_json::json!({"data": [{"id": "mock-model"}]}))
}

/// An OpenAI reply to a summary request: the analysis tool called with `summary` and `warning`.
pub fn analysis_reply(summary: &str, warning: &str) -> Reply {
    Reply::json(
        200,
        openai_tool_reply(
            "report_command_analysis",
            &serde_json::json!({"summary": summary, "securityWarning": warning}),
        ),
    )
}

/// An OpenAI reply with text only.
pub fn openai_text_reply(text: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-2", "object": "chat.completion", "model": "mock-model",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": text}}]
    })
}

pub fn anthropic_tool_reply(tool: &str, args: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-mock",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": tool, "input": args}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}
    })
}

pub fn anthropic_text_reply(text: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-mock",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 5}
    })
}

/// The `Name:` line of a summary request, to answer per command.
pub fn name_in(req: &Request) -> String {
    let v = req.json();
    let user = v["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str().map(String::from))
        .unwrap_or_default();
    user.lines()
        .find_map(|l| l.strip_prefix("Name: "))
        .unwrap_or("")
        .to_string()
}
