//! LSP framing over byte streams. `lsp-server`'s own stdio reader ends the connection at the
//! first body that is not JSON, so reading is done here: a bad frame is skipped, a body that is
//! not JSON becomes a parse error for the server to answer, and the server keeps running.

use crate::error::{INVALID_REQUEST, PARSE_ERROR};
use lsp_server::Message;
use serde_json::{Value, json};
use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::{Receiver, Sender};

/// Bodies larger than this are read and dropped: no editor sends a request this large, and
/// buffering one would let a broken client exhaust memory.
pub const MAX_BODY: usize = 64 * 1024 * 1024;

/// What the reader found.
#[derive(Debug)]
pub enum Incoming {
    Message(Message),
    /// A body that could not be taken as a message: the error response to send (`id: null`
    /// when none could be read).
    Invalid(Value),
    /// A frame whose header was unusable; it was skipped.
    BadFrame(String),
}

/// What the server sends.
#[derive(Debug)]
pub enum Outgoing {
    Message(Message),
    /// A message `lsp-server` cannot represent (an error response with `id: null`).
    Raw(Value),
    /// A successful response whose result is already JSON text (a listing kept from an earlier
    /// identical request: serializing megabytes again is most of such a request's cost).
    Answer {
        id: lsp_server::RequestId,
        result: std::sync::Arc<str>,
    },
    /// Answered once everything before it was written and flushed.
    Flushed(Sender<()>),
}

/// One frame's body, or why its header was unusable. `None` at the end of input.
pub fn read_frame(r: &mut impl BufRead) -> io::Result<Option<Result<Vec<u8>, String>>> {
    let mut length: Option<usize> = None;
    let mut problem: Option<String> = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        if r.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let t = text.trim_end_matches(['\r', '\n']);
        if t.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        // Searched anywhere in the line, so a header that follows the junk of a skipped frame
        // on the same line still resynchronises the stream.
        if let Some(at) = t.to_ascii_lowercase().find("content-length:") {
            let v = t[at + "content-length:".len()..].trim();
            match v.parse::<usize>() {
                Ok(n) => {
                    length = Some(n);
                    problem = None;
                }
                Err(_) => problem = Some(format!("bad Content-Length `{v}`")),
            }
        }
    }
    match length {
        None => {
            Ok(Some(Err(problem.unwrap_or_else(|| {
                "a header without Content-Length".into()
            }))))
        }
        Some(n) if n > MAX_BODY => {
            io::copy(&mut r.take(n as u64), &mut io::sink())?;
            Ok(Some(Err(format!(
                "a body of {n} bytes (more than {MAX_BODY}); dropped"
            ))))
        }
        Some(n) => {
            let mut body = vec![0; n];
            r.read_exact(&mut body)?;
            Ok(Some(Ok(body)))
        }
    }
}

fn error_value(id: Value, code: i32, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A body as a message, or the error response it deserves.
pub fn parse_body(body: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid(error_value(
                Value::Null,
                PARSE_ERROR,
                format!("parse error: {e}"),
            ));
        }
    };
    let id = match value.get("id") {
        Some(v @ (Value::Number(_) | Value::String(_))) => v.clone(),
        _ => Value::Null,
    };
    if !value.is_object() {
        return Incoming::Invalid(error_value(
            id,
            INVALID_REQUEST,
            "invalid request: a message is one JSON object (batches are not supported)".into(),
        ));
    }
    match serde_json::from_value::<Message>(value) {
        Ok(m) => Incoming::Message(m),
        Err(e) => Incoming::Invalid(error_value(
            id,
            INVALID_REQUEST,
            format!("invalid request: {e}"),
        )),
    }
}

/// Reads frames until the end of input (or a read error), handing each on; the channel closes
/// at the end, which the server takes as `exit`.
pub fn reader(input: impl Read, tx: Sender<Incoming>) {
    let mut r = io::BufReader::new(input);
    loop {
        let item = match read_frame(&mut r) {
            Ok(None) | Err(_) => return,
            Ok(Some(Err(why))) => Incoming::BadFrame(why),
            Ok(Some(Ok(body))) => parse_body(&body),
        };
        if tx.send(item).is_err() {
            return;
        }
    }
}

/// Writes every outgoing message, flushing each, until all senders are gone.
pub fn writer(output: impl Write, rx: Receiver<Outgoing>) -> io::Result<()> {
    let mut w = io::BufWriter::new(output);
    for out in rx {
        match out {
            Outgoing::Message(m) => m.write(&mut w)?,
            Outgoing::Raw(v) => {
                let body = serde_json::to_string(&v)?;
                write!(w, "Content-Length: {}\r\n\r\n{body}", body.len())?;
                w.flush()?;
            }
            Outgoing::Answer { id, result } => {
                let head = format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":"#,
                    serde_json::to_string(&id)?
                );
                let length = head.len() + result.len() + 1;
                write!(w, "Content-Length: {length}\r\n\r\n{head}{result}}}")?;
                w.flush()?;
            }
            Outgoing::Flushed(ack) => {
                w.flush()?;
                let _ = ack.send(());
            }
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &str) -> Vec<Result<Vec<u8>, String>> {
        let mut r = io::Cursor::new(input.as_bytes().to_vec());
        let mut out = Vec::new();
        while let Some(f) = read_frame(&mut r).unwrap() {
            out.push(f);
        }
        out
    }

    #[test]
    fn frames_are_read_and_a_bad_header_is_skipped() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"x"}"#;
        let input = format!(
            "Content-Type: x\r\n\r\nContent-Length: {}\r\nContent-Type: y\r\n\r\n{body}Content-Length: nope\r\n\r\n",
            body.len()
        );
        let got = frames(&input);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0], Err("a header without Content-Length".into()));
        assert_eq!(got[1], Ok(body.as_bytes().to_vec()));
        assert_eq!(got[2], Err("bad Content-Length `nope`".into()));
    }

    #[test]
    fn junk_before_a_header_on_the_same_line_resynchronises() {
        let body = "{}";
        let got = frames(&format!("garbage Content-Length: 2\r\n\r\n{body}"));
        assert_eq!(got, vec![Ok(b"{}".to_vec())]);
    }

    #[test]
    fn bodies_that_are_not_messages_get_the_right_errors() {
        let err = |b: &str| match parse_body(b.as_bytes()) {
            Incoming::Invalid(v) => (v["id"].clone(), v["error"]["code"].as_i64().unwrap()),
            other => panic!("{other:?}"),
        };
        assert_eq!(err("{not json"), (Value::Null, -32700));
        assert_eq!(err("[1,2]"), (Value::Null, -32600));
        assert_eq!(err(r#"{"id": 7, "method": 3}"#), (json!(7), -32600));
        match parse_body(br#"{"jsonrpc":"2.0","id":"a","method":"m","params":{}}"#) {
            Incoming::Message(Message::Request(r)) => assert_eq!(r.method, "m"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn oversized_bodies_are_dropped_without_buffering() {
        let n = MAX_BODY + 1;
        let mut input = format!("Content-Length: {n}\r\n\r\n").into_bytes();
        input.resize(input.len() + n, b'x');
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let mut r = io::Cursor::new(input);
        assert!(read_frame(&mut r).unwrap().unwrap().is_err());
        assert_eq!(read_frame(&mut r).unwrap().unwrap(), Ok(b"{}".to_vec()));
    }
}
