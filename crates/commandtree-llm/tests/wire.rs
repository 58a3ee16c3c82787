//! The client against a real HTTP server on loopback speaking both wire protocols: plain and
//! streamed replies, tool calls in fragments, rate limits, server errors, malformed replies,
//! text where a tool call was required, and cancellation of a slow reply.

mod common;

use commandtree_llm::{
    CancelToken, ChatRequest, ChatResponse, Client, ErrorKind, LlmError, Message, Options,
    ProviderConfig, StreamEvent, Tool,
};
use common::{Reply, Server, data, event};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-secret-1234";

fn openai(server: &Server) -> ProviderConfig {
    let mut c = ProviderConfig::openai_compatible(&server.v1(), Some("mock-model"))
        .with_key(KEY, "COMMANDTREE_LLM_API_KEY");
    c.max_retry_wait = Duration::from_secs(5);
    c
}

fn anthropic(server: &Server) -> ProviderConfig {
    let mut c =
        ProviderConfig::anthropic(&server.host(), "claude-mock").with_key(KEY, "ANTHROPIC_API_KEY");
    c.max_retry_wait = Duration::from_secs(5);
    c
}

fn tool() -> Tool {
    Tool {
        name: "emit".into(),
        description: "Report".into(),
        parameters: json!({"type": "object",
            "properties": {"summary": {"type": "string"}, "securityWarning": {"type": "string"}},
            "required": ["summary", "securityWarning"]}),
    }
}

fn ask() -> Vec<Message> {
    vec![
        Message::system("be brief"),
        Message::user("what does make clean do?"),
    ]
}

fn cancel() -> CancelToken {
    CancelToken::new()
}

/// A token a thread cancels 300 ms from now.
fn cancelled_soon() -> CancelToken {
    let token = CancelToken::new();
    let t = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        t.cancel();
    });
    token
}

/// [`ask`] with the `emit` tool forced.
fn must_emit() -> ChatRequest {
    let mut req = ChatRequest::new(ask());
    req.tools = vec![tool()];
    req.tool_choice = commandtree_llm::ToolChoice::Force("emit".into());
    req
}

/// Asserts that `e` is of `kind` and its message says each of `says`.
#[track_caller]
fn assert_failed(e: &LlmError, kind: ErrorKind, says: &[&str]) {
    assert_eq!(e.kind, kind, "{e}");
    for part in says {
        assert!(e.message.contains(part), "{part:?} not in: {e}");
    }
}

/// [`ask`] through a client of `cfg`, which must answer.
fn ask_ok(cfg: ProviderConfig) -> ChatResponse {
    Client::new(cfg)
        .chat(&ChatRequest::new(ask()), &cancel())
        .unwrap()
}

/// [`ask`] through a client of `cfg`, which must fail.
fn ask_failing(cfg: ProviderConfig) -> LlmError {
    Client::new(cfg)
        .chat(&ChatRequest::new(ask()), &cancel())
        .unwrap_err()
}

#[test]
fn openai_plain_chat_and_request_shape() {
    let server = Server::start(|_, _| Reply::json(200, common::openai_text_reply("It cleans.")));
    let client = Client::new(openai(&server));
    let mut req = ChatRequest::new(ask());
    req.options = Options {
        temperature: Some(0.5),
        max_tokens: Some(64),
        stop: vec!["END".into()],
        ..Options::default()
    };
    req.options.extra.insert("seed".into(), json!(42));
    let r = client.chat(&req, &cancel()).unwrap();
    assert_eq!(r.text, "It cleans.");
    assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    let sent = &server.posts()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let b = sent.json();
    assert_eq!(b["model"], "mock-model");
    assert_eq!(
        b["messages"][0],
        json!({"role": "system", "content": "be brief"})
    );
    assert_eq!(b["max_tokens"], 64);
    assert_eq!(b["stop"], json!(["END"]));
    assert_eq!(b["seed"], 42);
    assert_eq!(b["stream"], false);
}

#[test]
fn anthropic_plain_chat_and_request_shape() {
    let server = Server::start(|_, _| Reply::json(200, common::anthropic_text_reply("It cleans.")));
    let client = Client::new(anthropic(&server));
    let r = client.chat(&ChatRequest::new(ask()), &cancel()).unwrap();
    assert_eq!(r.text, "It cleans.");
    assert_eq!(r.usage.unwrap().output_tokens, 5);
    let sent = &server.posts()[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    let b = sent.json();
    assert_eq!(b["system"], "be brief");
    assert_eq!(b["messages"][0]["role"], "user");
    assert_eq!(b["max_tokens"], 1024);
}

#[test]
fn forced_tool_call_on_both_wires() {
    let args = json!({"summary": "Removes build output.", "securityWarning": "Deletes files"});
    let a = args.clone();
    let server = Server::start(move |_, _| Reply::json(200, common::openai_tool_reply("emit", &a)));
    let got = Client::new(openai(&server))
        .call_tool(ask(), tool(), Options::default(), &cancel())
        .unwrap();
    assert_eq!(got, args);
    let b = server.posts()[0].json();
    assert_eq!(
        b["tool_choice"],
        json!({"type": "function", "function": {"name": "emit"}})
    );
    assert_eq!(b["tools"].as_array().unwrap().len(), 1);

    let a = args.clone();
    let server =
        Server::start(move |_, _| Reply::json(200, common::anthropic_tool_reply("emit", &a)));
    let got = Client::new(anthropic(&server))
        .call_tool(ask(), tool(), Options::default(), &cancel())
        .unwrap();
    assert_eq!(got, args);
    let b = server.posts()[0].json();
    assert_eq!(b["tool_choice"], json!({"type": "tool", "name": "emit"}));
    assert_eq!(
        b["tools"][0]["input_schema"]["required"],
        json!(["summary", "securityWarning"])
    );
}

fn collect_stream(
    client: &Client,
    req: &ChatRequest,
) -> (
    commandtree_llm::Result<commandtree_llm::ChatResponse>,
    Vec<String>,
    String,
) {
    let mut texts = Vec::new();
    let mut args = String::new();
    let r = client.chat_stream(req, &cancel(), &mut |e| match e {
        StreamEvent::Text(t) => texts.push(t.to_string()),
        StreamEvent::ToolArguments { fragment, .. } => args.push_str(fragment),
    });
    (r, texts, args)
}

#[test]
fn openai_streaming_text_and_fragmented_tool_call() {
    let server = Server::start(|req, _| {
        let b = req.json();
        assert_eq!(b["stream"], true);
        if b.get("tools").is_none() {
            return Reply::Stream(
                vec![
                    ": keep-alive\n\n".into(),
                    data(
                        json!({"model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}}]}),
                    ),
                    // One SSE event split across two network chunks.
                    "data: {\"choices\": [{\"index\": 0, \"delta\": {\"con".into(),
                    "tent\": \"lo\"}}]}\n\n".into(),
                    data(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
                    "data: [DONE]\n\n".into(),
                ],
                Duration::from_millis(5),
            );
        }
        let frag = |s: &str, first: bool| {
            let mut call = json!({"index": 0, "function": {"arguments": s}});
            if first {
                call["id"] = json!("call_9");
                call["type"] = json!("function");
                call["function"]["name"] = json!("emit");
            }
            data(json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
        };
        Reply::Stream(
            vec![
                frag("", true),
                frag("{\"summ", false),
                frag("ary\": \"Cleans \\\"all\\\"", false),
                frag("\", \"securityWarning\": \"\"}", false),
                data(
                    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
                ),
                data(json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 8}})),
                "data: [DONE]\n\n".into(),
            ],
            Duration::from_millis(5),
        )
    });
    let client = Client::new(openai(&server));
    let (r, texts, _) = collect_stream(&client, &ChatRequest::new(ask()));
    let r = r.unwrap();
    assert_eq!(texts, vec!["Hel", "lo"]);
    assert_eq!(r.text, "Hello");
    assert_eq!(r.finish_reason.as_deref(), Some("stop"));

    let (r, _, args) = collect_stream(&client, &must_emit());
    let r = r.unwrap();
    assert_eq!(
        args,
        "{\"summary\": \"Cleans \\\"all\\\"\", \"securityWarning\": \"\"}"
    );
    assert_eq!(r.tool_calls.len(), 1);
    assert_eq!(r.tool_calls[0].id, "call_9");
    assert_eq!(r.tool_calls[0].name, "emit");
    assert_eq!(
        r.tool_calls[0].arguments,
        json!({"summary": "Cleans \"all\"", "securityWarning": ""})
    );
    assert_eq!(r.usage.unwrap().output_tokens, 8);
}

#[test]
fn anthropic_streaming_text_and_fragmented_tool_call() {
    let server = Server::start(|req, _| {
        let b = req.json();
        assert_eq!(b["stream"], true);
        let mut events = vec![
            event(
                "message_start",
                json!({"type": "message_start", "message": {"id": "m", "model": "claude-mock", "content": [], "usage": {"input_tokens": 12, "output_tokens": 1}}}),
            ),
            event("ping", json!({"type": "ping"})),
        ];
        if b.get("tools").is_none() {
            events.extend([
                event("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
                event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}})),
                event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}})),
                event("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
            ]);
        } else {
            let part = |s: &str| {
                event(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": s}}),
                )
            };
            events.extend([
                event("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_7", "name": "emit", "input": {}}})),
                part(""),
                part("{\"summary\": \"Re"),
                part("moves dist\", \"securityWa"),
                part("rning\": \"Deletes files\"}"),
                event("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
            ]);
        }
        events.extend([
            event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 15}})),
            event("message_stop", json!({"type": "message_stop"})),
        ]);
        Reply::Stream(events, Duration::from_millis(5))
    });
    let client = Client::new(anthropic(&server));
    let (r, texts, _) = collect_stream(&client, &ChatRequest::new(ask()));
    let r = r.unwrap();
    assert_eq!(texts, vec!["Hel", "lo"]);
    assert_eq!(r.text, "Hello");
    assert_eq!(r.model, "claude-mock");
    assert_eq!(r.usage.unwrap().output_tokens, 15);

    let (r, _, args) = collect_stream(&client, &must_emit());
    let r = r.unwrap();
    assert_eq!(
        args,
        "{\"summary\": \"Removes dist\", \"securityWarning\": \"Deletes files\"}"
    );
    assert_eq!(r.tool_calls[0].id, "toolu_7");
    assert_eq!(
        r.tool_calls[0].arguments["securityWarning"],
        "Deletes files"
    );
}

#[test]
fn rate_limit_honours_retry_after_on_both_wires() {
    for wire in ["openai", "anthropic"] {
        let server = Server::start(move |_, i| {
            if i == 0 {
                return Reply::Full(
                    429,
                    vec![("Retry-After".into(), "1".into())],
                    r#"{"error":{"message":"slow down"}}"#.into(),
                );
            }
            if wire == "openai" {
                Reply::json(200, common::openai_text_reply("ok"))
            } else {
                Reply::json(200, common::anthropic_text_reply("ok"))
            }
        });
        let cfg = if wire == "openai" {
            openai(&server)
        } else {
            anthropic(&server)
        };
        let start = Instant::now();
        let r = ask_ok(cfg);
        let waited = start.elapsed();
        assert_eq!(r.text, "ok");
        assert_eq!(server.count(), 2);
        assert!(
            waited >= Duration::from_millis(950),
            "{wire}: waited only {waited:?}"
        );
        assert!(waited < Duration::from_secs(4), "{wire}: waited {waited:?}");
    }
}

#[test]
fn retry_after_is_capped_and_persistent_429_is_explained() {
    let server = Server::start(|_, _| {
        Reply::Full(
            429,
            vec![("Retry-After".into(), "3600".into())],
            r#"{"error":{"message":"quota"}}"#.into(),
        )
    });
    let mut cfg = openai(&server);
    cfg.max_retries = 2;
    cfg.max_retry_wait = Duration::from_millis(200);
    let start = Instant::now();
    let e = ask_failing(cfg);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(server.count(), 3);
    assert_failed(
        &e,
        ErrorKind::RateLimited,
        &["HTTP 429", "still after 2 retries"],
    );
}

#[test]
fn server_errors_are_retried_then_reported() {
    let server = Server::start(|_, i| {
        if i < 2 {
            Reply::raw(500, "boom")
        } else {
            Reply::json(200, common::openai_text_reply("fine"))
        }
    });
    let r = ask_ok(openai(&server));
    assert_eq!(r.text, "fine");
    assert_eq!(server.count(), 3);

    let server = Server::start(|_, _| {
        Reply::raw(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
    });
    let mut cfg = anthropic(&server);
    cfg.max_retries = 1;
    let e = ask_failing(cfg);
    assert_eq!(server.count(), 2);
    assert_failed(&e, ErrorKind::Server, &["HTTP 529", "Overloaded"]);

    // Not retried: the request itself is wrong.
    let server =
        Server::start(|_, _| Reply::raw(400, r#"{"error":{"message":"messages: too long"}}"#));
    let e = ask_failing(openai(&server));
    assert_eq!(server.count(), 1);
    assert_eq!(e.kind, ErrorKind::BadRequest);
}

#[test]
fn malformed_json_is_a_clear_failure() {
    let server = Server::start(|_, _| Reply::raw(200, "{\"choices\": [ {\"message\": "));
    let e = ask_failing(openai(&server));
    assert_failed(&e, ErrorKind::BadResponse, &["malformed JSON"]);

    let server = Server::start(|_, _| Reply::raw(200, r#"{"id": 1, "object": "list"}"#));
    let e = ask_failing(openai(&server));
    assert_failed(&e, ErrorKind::BadResponse, &["no `choices`"]);

    let server = Server::start(|_, _| {
        Reply::Stream(
            vec![
                event(
                    "message_start",
                    json!({"type": "message_start", "message": {"model": "c"}}),
                ),
                "event: content_block_delta\ndata: {not json\n\n".into(),
            ],
            Duration::ZERO,
        )
    });
    let client = Client::new(anthropic(&server));
    let (r, _, _) = collect_stream(&client, &ChatRequest::new(ask()));
    let e = r.unwrap_err();
    assert_failed(&e, ErrorKind::BadResponse, &["not JSON"]);
}

#[test]
fn text_instead_of_tool_call_is_retried_once_then_fails() {
    for wire in ["openai", "anthropic"] {
        let server = Server::start(move |_, _| {
            if wire == "openai" {
                Reply::json(
                    200,
                    common::openai_text_reply("Sure! make clean removes things."),
                )
            } else {
                Reply::json(
                    200,
                    common::anthropic_text_reply("Sure! make clean removes things."),
                )
            }
        });
        let client = Client::new(if wire == "openai" {
            openai(&server)
        } else {
            anthropic(&server)
        });
        let e = client
            .call_tool(ask(), tool(), Options::default(), &cancel())
            .unwrap_err();
        assert_eq!(server.count(), 2, "{wire}: asked exactly twice");
        assert_failed(
            &e,
            ErrorKind::NoToolCall,
            &["instead of calling the `emit` tool"],
        );
        // The second request carries the first answer and a reminder.
        let second = server.posts()[1].json();
        let msgs = second["messages"].as_array().unwrap();
        let last = msgs.last().unwrap().to_string();
        assert!(
            last.contains("Answer only by calling the `emit` tool"),
            "{last}"
        );
    }

    // Text first, then the call: succeeds on the retry.
    let server = Server::start(|_, i| {
        if i == 0 {
            Reply::json(200, common::openai_text_reply("Let me think."))
        } else {
            Reply::json(
                200,
                common::openai_tool_reply("emit", &json!({"summary": "s", "securityWarning": ""})),
            )
        }
    });
    let got = Client::new(openai(&server))
        .call_tool(ask(), tool(), Options::default(), &cancel())
        .unwrap();
    assert_eq!(got["summary"], "s");
    assert_eq!(server.count(), 2);

    // Arguments written as JSON text by a server that ignores tool choice count as the call.
    let server = Server::start(|_, _| {
        Reply::json(
            200,
            common::openai_text_reply(
                "```json\n{\"summary\": \"t\", \"securityWarning\": \"\"}\n```",
            ),
        )
    });
    let got = Client::new(openai(&server))
        .call_tool(ask(), tool(), Options::default(), &cancel())
        .unwrap();
    assert_eq!(got["summary"], "t");
    assert_eq!(server.count(), 1);
}

#[test]
fn slow_stream_is_cancelled_by_the_caller() {
    let server = Server::start(|_, _| Reply::Trickle {
        every: Duration::from_millis(50),
        for_at_most: Duration::from_secs(10),
    });
    let client = Client::new(openai(&server));
    let token = cancelled_soon();
    let start = Instant::now();
    let r = client.chat_stream(&ChatRequest::new(ask()), &token, &mut |_| {});
    let took = start.elapsed();
    assert!(r.unwrap_err().is_cancelled());
    assert!(took < Duration::from_secs(2), "cancel took {took:?}");
    // The connection is really closed: the server's next write fails.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server.client_gone.load(std::sync::atomic::Ordering::SeqCst) && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(server.client_gone.load(std::sync::atomic::Ordering::SeqCst));
}

#[test]
fn silent_server_is_cancelled_by_the_caller() {
    let server = Server::start(|_, _| Reply::Silence(Duration::from_secs(10)));
    let client = Client::new(anthropic(&server));
    let token = cancelled_soon();
    let start = Instant::now();
    let e = client.chat(&ChatRequest::new(ask()), &token).unwrap_err();
    assert!(e.is_cancelled(), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(server.count(), 1, "a cancelled request is not retried");
}

#[test]
fn timeout_is_reported_after_retries() {
    let server = Server::start(|_, _| Reply::Silence(Duration::from_secs(3)));
    let mut cfg = openai(&server);
    cfg.timeout = Duration::from_millis(300);
    cfg.max_retries = 1;
    cfg.max_retry_wait = Duration::from_millis(10);
    let e = ask_failing(cfg);
    assert_eq!(e.kind, ErrorKind::Timeout, "{e}");
    assert_eq!(server.count(), 2);
}

#[test]
fn errors_say_what_to_do_and_never_show_the_key() {
    let server = Server::start(|req, _| {
        // Some servers quote what they were sent.
        let auth = req
            .header("authorization")
            .or(req.header("x-api-key"))
            .unwrap_or("")
            .to_string();
        Reply::raw(401, &json!({"error": {"message": format!("Incorrect API key provided: {auth}"), "type": "invalid_request_error"}}).to_string())
    });
    for cfg in [openai(&server), anthropic(&server)] {
        let e = ask_failing(cfg);
        assert_failed(&e, ErrorKind::Auth, &["COMMANDTREE_LLM_API_KEY"]);
        assert!(
            !e.message.contains(KEY) && !format!("{e:?}").contains(KEY),
            "{e}"
        );
    }

    let server = Server::start(|_, _| {
        Reply::raw(
            404,
            r#"{"error":{"message":"The model `mock-model` does not exist","code":"model_not_found"}}"#,
        )
    });
    let e = ask_failing(openai(&server));
    assert_failed(
        &e,
        ErrorKind::ModelNotFound,
        &["`mock-model`", "COMMANDTREE_LLM_MODEL"],
    );

    // Nothing listens on a port that was just released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = ProviderConfig::openai_compatible(&format!("http://127.0.0.1:{port}/v1"), Some("m"));
    let e = ask_failing(cfg);
    assert_failed(
        &e,
        ErrorKind::Unreachable,
        &["cannot reach", "COMMANDTREE_LLM_BASE_URL"],
    );
}

#[test]
fn server_that_rejects_a_named_tool_choice_gets_required() {
    // llama.cpp's server accepts only string tool choices.
    let server = Server::start(|req, _| {
        let b = req.json();
        if b["tool_choice"].is_object() {
            return Reply::raw(
                400,
                r#"{"error":{"message":"Invalid tool_choice: expected string"}}"#,
            );
        }
        assert_eq!(b["tool_choice"], "required");
        Reply::json(
            200,
            common::openai_tool_reply("emit", &json!({"summary": "x", "securityWarning": ""})),
        )
    });
    let client = Client::new(openai(&server));
    for _ in 0..2 {
        client
            .call_tool(ask(), tool(), Options::default(), &cancel())
            .unwrap();
    }
    // Learned once: the second call goes straight to "required".
    assert_eq!(server.count(), 3);
}

#[test]
fn model_comes_from_the_server_when_not_configured() {
    let server = Server::start(|req, _| {
        if req.method == "GET" {
            assert_eq!(req.path, "/v1/models");
            return Reply::json(
                200,
                json!({"object": "list", "data": [{"id": "gemma-3-270m"}, {"id": "other"}]}),
            );
        }
        assert_eq!(req.json()["model"], "gemma-3-270m");
        Reply::json(200, common::openai_text_reply("hi"))
    });
    let client = Client::new(ProviderConfig::openai_compatible(&server.v1(), None));
    assert_eq!(client.model(&cancel()).unwrap(), "gemma-3-270m");
    client.chat(&ChatRequest::new(ask()), &cancel()).unwrap();
    client.chat(&ChatRequest::new(ask()), &cancel()).unwrap();
    assert_eq!(server.count(), 3, "the model list is asked for once");
}

#[test]
fn concurrency_limit_holds_across_threads() {
    let server = Server::start(|_, _| {
        std::thread::sleep(Duration::from_millis(150));
        Reply::json(200, common::openai_text_reply("ok"))
    });
    let mut cfg = openai(&server);
    cfg.concurrency = 2;
    let client = Client::new(cfg);
    std::thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| client.chat(&ChatRequest::new(ask()), &cancel()).unwrap());
        }
    });
    assert_eq!(server.count(), 6);
    assert_eq!(
        server
            .max_in_flight
            .load(std::sync::atomic::Ordering::SeqCst),
        2
    );
}

#[test]
fn stream_request_answered_with_plain_json_still_works() {
    let server = Server::start(|_, _| Reply::json(200, common::openai_text_reply("whole")));
    let client = Client::new(openai(&server));
    let mut seen = String::new();
    let r = client
        .chat_stream(&ChatRequest::new(ask()), &cancel(), &mut |e| {
            if let StreamEvent::Text(t) = e {
                seen.push_str(t)
            }
        })
        .unwrap();
    assert_eq!((r.text.as_str(), seen.as_str()), ("whole", "whole"));
    let _: Value = server.posts()[0].json();
}

/// A redirect to another origin (here: another port of 127.0.0.1) must not carry the key: ureq
/// itself drops only `Authorization`, and Anthropic's key is in `x-api-key`. A redirect within
/// the origin keeps it.
#[test]
fn keys_stay_behind_on_a_redirect_to_another_origin() {
    let elsewhere = Server::start(|_, _| Reply::json(200, common::anthropic_text_reply("Moved.")));
    let target = format!("{}/v1/messages", elsewhere.host());
    let api = Server::start(move |req, _| {
        if req.path.starts_with("/v1/") {
            let moved = req.path.replacen("/v1/", "/v2/", 1);
            Reply::Full(307, vec![("Location".into(), moved)], String::new())
        } else {
            Reply::Full(
                308,
                vec![("Location".into(), target.clone())],
                String::new(),
            )
        }
    });
    for config in [anthropic(&api), {
        let mut c = ProviderConfig::openai_compatible(&format!("{}/v1", api.host()), Some("m"))
            .with_key(KEY, "COMMANDTREE_LLM_API_KEY");
        c.max_retry_wait = Duration::from_secs(5);
        c
    }] {
        api.clear();
        elsewhere.clear();
        let client = Client::new(config);
        // The reply may not parse for the OpenAI wire; what matters is what was sent where.
        let _ = client.chat(&ChatRequest::new(ask()), &cancel());
        let same_origin = api.posts();
        assert_eq!(
            same_origin.len(),
            2,
            "the first request and the same-origin redirect"
        );
        for r in &same_origin {
            let key = r.header("x-api-key").or(r.header("authorization"));
            assert!(
                key.is_some_and(|k| k.contains(KEY)),
                "same origin keeps the key: {r:?}"
            );
        }
        let other = elsewhere.posts();
        assert_eq!(other.len(), 1, "followed to the other origin, body and all");
        assert!(!other[0].body.is_empty());
        for (name, value) in &other[0].headers {
            assert!(
                !value.contains(KEY),
                "{name} carried the key to another origin"
            );
        }
    }
}
