//! The session every front end goes through, against a real HTTP model server on loopback (the
//! one the summary tests use), on real workspaces: what each LLM skill's `ModelUse` decides
//! (a model looked for, stored context sent, the reply streamed), the trust check before a
//! playbook or a command skill, cancellation, and the context store.

#[path = "../../commandtree-llm/tests/common/mod.rs"]
mod common;
mod support;

use commandtree_engine::{CancelToken, Engine};
use commandtree_llm::ProviderConfig;
use commandtree_skills::context::ContextType;
use commandtree_skills::invocation;
use commandtree_skills::playbook::Event;
use commandtree_skills::{
    Error, Models, NoModel, PlaybookError, ProviderModels, Registry, RequestOptions, Session,
    SkillApi, SkillMessage, TextSink,
};
use common::{Reply as Answer, Request, Server, data};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{in_own_home, trust, workspace, write};

/// The loopback server as the user's provider.
fn provider(server: &Server) -> ProviderModels {
    let mut cfg = ProviderConfig::openai_compatible(&server.v1(), Some("mock-model"));
    cfg.max_retries = 0;
    ProviderModels::given(cfg)
}

/// The text of the last message of a request.
fn prompt(req: &Request) -> String {
    let v = req.json();
    v["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// A model that streams `reply(N): <the prompt>` back in two pieces.
fn echo_model() -> Server {
    Server::start(|req, i| {
        let text = format!("reply({i}): {}", prompt(req));
        let (a, b) = text.split_at(text.len() / 2);
        let piece = |t: &str| {
            data(json!({"model": "mock-model", "choices": [{"index": 0, "delta": {"content": t}}]}))
        };
        Answer::Stream(
            vec![
                piece(a),
                piece(b),
                data(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
                "data: [DONE]\n\n".into(),
            ],
            Duration::from_millis(2),
        )
    })
}

/// Models that are never there, and count how often they were looked for.
#[derive(Default, Clone)]
struct Nowhere {
    asked: Arc<AtomicUsize>,
}

impl Nowhere {
    fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }
}

impl Models for Nowhere {
    fn open(
        &self,
        _: &Engine,
        _: &CancelToken,
        _: Vec<SkillMessage>,
        _: Option<TextSink>,
    ) -> commandtree_skills::Result<Box<dyn SkillApi + '_>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Err(Error::NoModel(NoModel::NotConfigured(
            "configure a provider".into(),
        )))
    }
}

/// A session answered by `server` whose streamed text is collected.
fn streaming<'a>(engine: &'a Engine, server: &Server) -> (Session<'a>, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let session = Session::new(engine)
        .with_models(provider(server))
        .with_streaming(move |t| sink.lock().unwrap().push(t.to_string()));
    (session, seen)
}

#[test]
fn only_task_uses_the_model_among_the_built_in_skills() {
    for s in Registry::builtin().skills() {
        let u = s.model_use();
        let conversation = s.name() == "task";
        assert_eq!(
            (u.asks_model, u.takes_context, u.streams_reply),
            (conversation, conversation, conversation),
            "{}",
            s.name()
        );
    }
}

#[test]
fn a_task_sends_the_stored_context_first_and_its_reply_streams() {
    let (_scratch, root) = workspace("session-task");
    let engine = Engine::open(Some(&root), &root).unwrap();
    let server = echo_model();
    let (session, seen) = streaming(&engine, &server);
    let added = session
        .conversation(Some("notes"))
        .add(ContextType::Agent, "Be brief.")
        .unwrap();
    assert_eq!(added.count, 1);

    let inv = invocation::parse(r#"@task --prompt "Summarize this" --model gpt-4o"#).unwrap();
    let reply = session.invoke(&inv, Some("notes")).unwrap();
    assert_eq!(reply.skill, "task");
    assert_eq!(reply.text, "reply(0): Summarize this");
    assert!(reply.streamed);
    assert_eq!(seen.lock().unwrap().concat(), reply.text);
    assert!(seen.lock().unwrap().len() >= 2, "{seen:?}");
    let body = server.posts()[0].json();
    assert_eq!(body["model"], "gpt-4o");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{body}");
    // The stored context is workspace data: a user message naming where it comes from.
    assert_eq!(messages[0]["role"], "user");
    let data = messages[0]["content"].as_str().unwrap();
    assert!(
        data.starts_with("Context messages stored in this workspace's database")
            && data.contains("type=\"agent\"")
            && data.contains("\nBe brief.\n"),
        "{data}"
    );
    assert_eq!(
        messages[1],
        json!({"role": "user", "content": "Summarize this"})
    );

    // Another conversation's context, or none, is not sent.
    for conversation in [None, Some("default")] {
        server.clear();
        session.invoke(&inv, conversation).unwrap();
        let body = server.posts()[0].json();
        assert_eq!(body["messages"].as_array().unwrap().len(), 1, "{body}");
    }
}

#[test]
fn skills_that_do_not_ask_the_model_need_none() {
    let (_scratch, root) = workspace("session-offline");
    write(&root, "notes.txt", "kept");
    let engine = Engine::open(Some(&root), &root).unwrap();
    let nowhere = Nowhere::default();
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = seen.clone();
    let session = Session::new(&engine)
        .with_models(nowhere.clone())
        .with_streaming(move |t| sink.lock().unwrap().push(t.to_string()));
    let reply = session
        .invoke(
            &invocation::parse("@file --action read --path notes.txt").unwrap(),
            Some("default"),
        )
        .unwrap();
    assert_eq!(reply.text, "kept");
    assert!(!reply.streamed, "a file's text is printed, not streamed");
    assert!(seen.lock().unwrap().is_empty());
    assert_eq!(nowhere.asked(), 0);

    // `task` needs one: looked for after the words check, before anything else.
    let e = session
        .invoke(&invocation::parse("@task --prompt hi").unwrap(), None)
        .unwrap_err();
    assert_eq!(
        e,
        Error::NoModel(NoModel::NotConfigured("configure a provider".into()))
    );
    assert_eq!(nowhere.asked(), 1);
    let e = session
        .invoke(
            &invocation::parse("@task --prompt hi --tmperature 1").unwrap(),
            None,
        )
        .unwrap_err();
    assert!(
        matches!(&e, Error::Invalid(m) if m.contains("--tmperature")),
        "{e}"
    );
    assert_eq!(nowhere.asked(), 1, "a wrong flag needs no model");
}

#[test]
fn a_provider_switched_off_is_said_with_where() {
    in_own_home("a_provider_switched_off_is_said_with_where", || {
        let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap());
        let config = write(
            &home,
            ".config/commandtree/config.toml",
            "[llm]\nprovider = \"none\"\n",
        );
        let (_scratch, root) = workspace("session-off");
        let engine = Engine::open(Some(&root), &root).unwrap();
        let e = Session::new(&engine)
            .invoke(&invocation::parse("@task --prompt hi").unwrap(), None)
            .unwrap_err();
        let Error::NoModel(NoModel::SwitchedOff(by)) = &e else {
            panic!("{e:?}")
        };
        assert!(by.contains(&config.display().to_string()), "{by}");
        assert!(
            e.to_string()
                .starts_with("AI features are switched off (provider = none, set in "),
            "{e}"
        );
    });
}

const PLAYBOOK: &str = "---\nname: notes\ninputs:\n  - name: version\n---\n\n```step id=draft\n@task --prompt \"Notes for {{inputs.version}}\"\n```\n\n```step id=read\n@file --action read --path VERSION\n```\n\n```step id=short\n@task --prompt \"Shorten: {{steps.draft}} ({{steps.read}})\"\n```\n";

#[test]
fn an_untrusted_workspace_runs_no_playbook_and_no_command_skill() {
    in_own_home(
        "an_untrusted_workspace_runs_no_playbook_and_no_command_skill",
        || {
            let (_scratch, root) = workspace("session-untrusted");
            write(&root, ".commandtree/playbooks/notes.playbook.md", PLAYBOOK);
            write(
                &root,
                ".commandtree/skills/tidy.md",
                "---\nname: Tidy\n---\nTidy it.\n",
            );
            let script = write(&root, "deploy.sh", "#!/bin/sh\necho deploy\n");
            let engine = Engine::open(Some(&root), &root).unwrap();
            let server = echo_model();
            let session = Session::new(&engine).with_models(provider(&server));
            let (_, pb) = session.find_playbook("notes").unwrap();
            let given = [("version".to_string(), "2".to_string())];
            // Looking is allowed; running is not.
            assert_eq!(session.plan_playbook(&pb, &given).unwrap().len(), 3);
            let Err(PlaybookError::Playbook(Error::Untrusted(why))) =
                session.prepare_playbook(&pb, &given)
            else {
                panic!("prepared in an untrusted workspace")
            };
            assert!(
                why.starts_with("Playbooks come from this workspace's own files")
                    && why.contains("nothing was sent and nothing was written"),
                "{why}"
            );

            let loaded = engine.load(&Default::default()).unwrap();
            let item = loaded.resolve("deploy.sh").unwrap().clone();
            let skill = session.find_command_skill("tidy").unwrap();
            let e = session
                .proposer()
                .and_then(|p| p.propose(&skill, &item, &RequestOptions::default()))
                .unwrap_err();
            assert!(
                matches!(&e, Error::Untrusted(m) if m.starts_with("Command skills")),
                "{e}"
            );
            let proposal = commandtree_skills::command_skill::Proposal {
                path: script.clone(),
                before: "#!/bin/sh\necho deploy\n".into(),
                after: "#!/bin/sh\necho tidy\n".into(),
            };
            assert!(matches!(session.apply(&proposal), Err(Error::Untrusted(_))));
            assert_eq!(
                std::fs::read_to_string(&script).unwrap(),
                "#!/bin/sh\necho deploy\n"
            );
            assert_eq!(server.count(), 0, "nothing was sent");

            // Trusted as it is now, and changed since: still refused, with what changed.
            trust(&root);
            write(
                &root,
                ".commandtree/skills/more.md",
                "---\nname: More\n---\nMore.\n",
            );
            let e = session.apply(&proposal).unwrap_err();
            assert!(
                matches!(&e, Error::Untrusted(m) if m.contains(".commandtree/skills/more.md")),
                "{e}"
            );
            assert_eq!(server.count(), 0);
        },
    );
}

#[test]
fn a_trusted_playbook_runs_its_steps_in_order_and_streams_the_model_steps() {
    in_own_home(
        "a_trusted_playbook_runs_its_steps_in_order_and_streams_the_model_steps",
        || {
            let (_scratch, root) = workspace("session-playbook");
            write(&root, ".commandtree/playbooks/notes.playbook.md", PLAYBOOK);
            write(&root, "VERSION", "2.0");
            trust(&root);
            let engine = Engine::open(Some(&root), &root).unwrap();
            let server = echo_model();
            let (session, seen) = streaming(&engine, &server);
            let (_, pb) = session.find_playbook("notes").unwrap();
            let ready = session
                .prepare_playbook(&pb, &[("version".into(), "2".into())])
                .unwrap();
            let mut events = Vec::new();
            let done = session
                .run_playbook(ready, None, &mut |ev| match ev {
                    Event::Started {
                        index, invocation, ..
                    } => events.push(format!("start {index} @{}", invocation.skill)),
                    Event::Finished {
                        index, streamed, ..
                    } => events.push(format!("done {index} streamed={streamed}")),
                })
                .unwrap();
            assert_eq!(
                events,
                [
                    "start 1 @task",
                    "done 1 streamed=true",
                    "start 2 @file",
                    "done 2 streamed=false",
                    "start 3 @task",
                    "done 3 streamed=true",
                ]
            );
            assert_eq!(
                done,
                [
                    ("draft".to_string(), "reply(0): Notes for 2".to_string()),
                    ("read".to_string(), "2.0".to_string()),
                    (
                        "short".to_string(),
                        "reply(1): Shorten: reply(0): Notes for 2 (2.0)".to_string()
                    ),
                ]
            );
            assert_eq!(
                seen.lock().unwrap().concat(),
                "reply(0): Notes for 2reply(1): Shorten: reply(0): Notes for 2 (2.0)"
            );
            // The last request carries the earlier replies as the run's context.
            let posts = server.posts();
            assert_eq!(posts.len(), 2);
            let roles: Vec<Value> = posts[1].json()["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| json!([m["role"], m["content"]]))
                .collect();
            assert_eq!(
                roles,
                [
                    json!(["assistant", "reply(0): Notes for 2"]),
                    json!(["assistant", "2.0"]),
                    json!(["user", "Shorten: reply(0): Notes for 2 (2.0)"]),
                ]
            );
        },
    );
}

#[test]
fn a_playbook_needs_a_model_only_for_steps_that_ask_one() {
    in_own_home(
        "a_playbook_needs_a_model_only_for_steps_that_ask_one",
        || {
            let (_scratch, root) = workspace("session-playbook-offline");
            write(
                &root,
                ".commandtree/playbooks/mark.playbook.md",
                "```step id=mark\n@run --command mark.sh\n```\n",
            );
            write(
                &root,
                ".commandtree/playbooks/then-ask.playbook.md",
                "```step id=mark\n@run --command mark.sh\n```\n\n```step id=ask\n@task --prompt hi\n```\n",
            );
            write(&root, "mark.sh", "#!/bin/sh\necho ran >> marks.txt\n");
            trust(&root);
            let engine = Engine::open(Some(&root), &root).unwrap();
            let nowhere = Nowhere::default();
            let session = Session::new(&engine).with_models(nowhere.clone());

            let (_, pb) = session.find_playbook("mark").unwrap();
            let ready = session.prepare_playbook(&pb, &[]).unwrap();
            let done = session
                .run_playbook(ready, Some("default"), &mut |_| {})
                .unwrap();
            assert!(done[0].1.contains("exited with code 0"), "{done:?}");
            assert_eq!(
                std::fs::read_to_string(root.join("marks.txt")).unwrap(),
                "ran\n"
            );
            assert_eq!(nowhere.asked(), 0);

            // A later step asks the model: it is looked for before the first step runs, and its
            // absence is that step's error.
            let (_, pb) = session.find_playbook("then-ask").unwrap();
            let ready = session.prepare_playbook(&pb, &[]).unwrap();
            let mut started = 0;
            let e = session
                .run_playbook(ready, None, &mut |_| started += 1)
                .unwrap_err();
            assert_eq!((e.index, e.id.as_str()), (2, "ask"));
            assert!(matches!(e.error, Error::NoModel(_)), "{e}");
            assert_eq!(started, 0);
            assert_eq!(
                std::fs::read_to_string(root.join("marks.txt")).unwrap(),
                "ran\n"
            );
        },
    );
}

#[test]
fn a_command_skill_is_proposed_by_the_model_and_written_only_once_accepted() {
    in_own_home(
        "a_command_skill_is_proposed_by_the_model_and_written_only_once_accepted",
        || {
            let (_scratch, root) = workspace("session-command-skill");
            write(
                &root,
                ".commandtree/skills/tidy.md",
                "---\nname: Tidy\n---\nRemove the comment.\n",
            );
            let script = write(&root, "deploy.sh", "#!/bin/sh\n# old\necho deploy\n");
            let (_outside, outside) = workspace("session-command-skill-outside");
            let elsewhere = write(&outside, "x.sh", "#!/bin/sh\n");
            trust(&root);
            let engine = Engine::open(Some(&root), &root).unwrap();
            let server = Server::start(|req, _| {
                assert!(prompt(req).contains("Remove the comment."));
                assert!(prompt(req).contains("# old"));
                Answer::json(
                    200,
                    common::openai_text_reply("```sh\n#!/bin/sh\necho deploy\n```"),
                )
            });
            let session = Session::new(&engine).with_models(provider(&server));
            let loaded = engine.load(&Default::default()).unwrap();
            let item = loaded.resolve("deploy.sh").unwrap().clone();
            let skill = session.find_command_skill("Tidy").unwrap();
            let p = session
                .proposer()
                .and_then(|p| p.propose(&skill, &item, &RequestOptions::default()))
                .unwrap();
            assert_eq!(server.count(), 1);
            assert_eq!(p.after, "#!/bin/sh\necho deploy\n");
            assert_eq!(
                std::fs::read_to_string(&script).unwrap(),
                "#!/bin/sh\n# old\necho deploy\n",
                "proposing writes nothing"
            );
            assert_eq!(
                session.apply(&p).unwrap(),
                commandtree_skills::command_skill::Applied::Written
            );
            assert_eq!(std::fs::read_to_string(&script).unwrap(), p.after);
            // The same text again: nothing to write; a file changed since: left alone.
            let same = commandtree_skills::command_skill::Proposal {
                path: script.clone(),
                before: p.after.clone(),
                after: p.after.clone(),
            };
            assert_eq!(
                session.apply(&same).unwrap(),
                commandtree_skills::command_skill::Applied::Unchanged
            );
            assert_eq!(
                session.apply(&p).unwrap_err(),
                Error::Changed(script.clone())
            );
            // A proposal for a file outside the workspace is never written.
            let out = commandtree_skills::command_skill::Proposal {
                path: elsewhere.clone(),
                before: "#!/bin/sh\n".into(),
                after: "rm -rf /\n".into(),
            };
            let e = session.apply(&out).unwrap_err();
            assert!(e.to_string().contains("outside the workspace root"), "{e}");
            assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "#!/bin/sh\n");
        },
    );
}

#[test]
fn cancelling_a_session_closes_the_request_in_flight() {
    let (_scratch, root) = workspace("session-cancel");
    let engine = Engine::open(Some(&root), &root).unwrap();
    // The model thinks for up to 30 s, sending keep-alive comments.
    let server = Server::start(|_, _| Answer::Trickle {
        every: Duration::from_millis(50),
        for_at_most: Duration::from_secs(30),
    });
    let cancel = CancelToken::new();
    let session = Session::new(&engine)
        .with_models(provider(&server))
        .with_cancel(cancel.clone());
    let in_flight = server.in_flight.clone();
    let stopper = std::thread::spawn(move || {
        let start = Instant::now();
        while in_flight.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            assert!(start.elapsed() < Duration::from_secs(60), "no request came");
            std::thread::sleep(Duration::from_millis(10));
        }
        cancel.cancel();
        Instant::now()
    });
    let e = session
        .invoke(&invocation::parse("@task --prompt think").unwrap(), None)
        .unwrap_err();
    let cancelled_at = stopper.join().unwrap();
    assert_eq!(e, Error::Cancelled);
    assert!(cancelled_at.elapsed() < Duration::from_secs(5));
    let start = Instant::now();
    while !server.client_gone.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the connection stayed open"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_context_store_keeps_each_conversation_apart() {
    let (_scratch, root) = workspace("session-context");
    let engine = Engine::open(Some(&root), &root).unwrap();
    let session = Session::new(&engine);
    assert!(session.conversation(None).messages().unwrap().is_empty());
    assert_eq!(session.conversation(None).clear().unwrap(), 0);
    let default = session.conversation(Some("  "));
    assert_eq!(default.name(), "default");
    default.add(ContextType::Agent, "Be brief.").unwrap();
    let added = default.add(ContextType::User, "Hi").unwrap();
    assert_eq!(added.count, 2);
    session
        .conversation(Some("other"))
        .add(ContextType::Assistant, "elsewhere")
        .unwrap();
    let rows = session.conversation(None).messages().unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| (r.kind, r.content.as_str()))
            .collect::<Vec<_>>(),
        [(ContextType::Agent, "Be brief."), (ContextType::User, "Hi")]
    );
    let send = session.conversation(None).to_send().unwrap();
    assert_eq!(send.len(), 1);
    assert_eq!(send, commandtree_skills::context::as_data(&rows));
    assert!(!send[0].content.contains("elsewhere"));
    assert_eq!(session.conversation(None).clear().unwrap(), 2);
    assert_eq!(
        session
            .conversation(Some("other"))
            .messages()
            .unwrap()
            .len(),
        1
    );
}
