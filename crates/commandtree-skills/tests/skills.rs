//! Each built-in LLM skill, and playbooks and command skills through the session, with a mock
//! SkillApi, on real files and a real engine (the session's trust check is the real one, in a
//! home folder of the test's own). The SkillApi is a mock on purpose: these tests are about
//! what a skill puts into its request and does with the reply (and about requests that must
//! never be made); the real SkillApi is tested on the wire against a loopback LLM server in
//! `tests/session.rs` and `crates/ct/tests/it/skills.rs`.

// The workspace's one rule for a test that needs the model: skipped with a note outside CI, a
// failure under it.
#[path = "../../ct/tests/it/support/skip.rs"]
mod skip;
mod support;

use commandtree_engine::{CancelToken, Engine};
use commandtree_skills::context::ContextType;
use commandtree_skills::invocation;
use commandtree_skills::playbook::Event;
use commandtree_skills::{
    Error, Host, Models, PlaybookError, Registry, RequestOptions, Session, SkillApi, SkillMessage,
    SkillResponse, SkillRole, TextSink,
};
use std::cell::RefCell;
use std::path::PathBuf;
use support::{in_own_home, trust, workspace, write};

/// Records every request and answers from a script (or fails with the scripted error).
struct MockApi {
    context: Vec<SkillMessage>,
    replies: RefCell<Vec<Result<String, Error>>>,
    sent: RefCell<Vec<(Vec<SkillMessage>, RequestOptions)>>,
}

impl MockApi {
    fn new(context: Vec<SkillMessage>, replies: Vec<Result<String, Error>>) -> MockApi {
        MockApi {
            context,
            replies: RefCell::new(replies),
            sent: RefCell::new(Vec::new()),
        }
    }
}

impl SkillApi for MockApi {
    fn active_context(&self) -> commandtree_skills::Result<Vec<SkillMessage>> {
        Ok(self.context.clone())
    }
    fn send_request(
        &self,
        messages: Vec<SkillMessage>,
        options: &RequestOptions,
    ) -> commandtree_skills::Result<SkillResponse> {
        self.sent.borrow_mut().push((messages, options.clone()));
        let next = self.replies.borrow_mut().remove(0);
        next.map(|response| SkillResponse {
            response,
            model: "mock".into(),
        })
    }
}

/// The mock answers a session: its requests carry the context the session read.
struct Answering<'a> {
    api: &'a dyn SkillApi,
    context: Vec<SkillMessage>,
}

impl SkillApi for Answering<'_> {
    fn active_context(&self) -> commandtree_skills::Result<Vec<SkillMessage>> {
        Ok(self.context.clone())
    }
    fn send_request(
        &self,
        messages: Vec<SkillMessage>,
        options: &RequestOptions,
    ) -> commandtree_skills::Result<SkillResponse> {
        self.api.send_request(messages, options)
    }
}

/// Models that are always `api`.
struct Always<'a>(&'a dyn SkillApi);

impl Models for Always<'_> {
    fn open(
        &self,
        _: &Engine,
        _: &CancelToken,
        context: Vec<SkillMessage>,
        _: Option<TextSink>,
    ) -> commandtree_skills::Result<Box<dyn SkillApi + '_>> {
        Ok(Box::new(Answering {
            api: self.0,
            context,
        }))
    }
}

fn invoke(
    engine: &Engine,
    api: &MockApi,
    text: &str,
    answer: Option<bool>,
) -> Result<String, Error> {
    let ask = move |_: &str| answer.unwrap_or(false);
    let host = Host {
        engine,
        cancel: CancelToken::new(),
        yes: false,
        ask: answer
            .is_some()
            .then_some(&ask as &(dyn Fn(&str) -> bool + Sync)),
        live: None,
    };
    Registry::builtin().invoke(&invocation::parse(text).unwrap(), api, &host)
}

#[test]
fn task_sends_context_then_the_prompt_as_user_with_options() {
    let (_scratch, root) = workspace("task");
    let engine = Engine::open(Some(&root), &root).unwrap();
    let api = MockApi::new(
        vec![
            SkillMessage::new(SkillRole::Agent, "Be brief."),
            SkillMessage::new(SkillRole::User, "Earlier question"),
            SkillMessage::new(SkillRole::Assistant, "Earlier answer"),
        ],
        vec![Ok("A summary.".into())],
    );
    let reply = invoke(
        &engine,
        &api,
        r#"@task --prompt "Summarize this text" --model "gpt-4o" --modelOptions '{"temperature":0.7,"max_tokens":256}'"#,
        None,
    )
    .unwrap();
    assert_eq!(reply, "A summary.");
    let sent = api.sent.borrow();
    let (messages, options) = &sent[0];
    let roles: Vec<SkillRole> = messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            SkillRole::Agent,
            SkillRole::User,
            SkillRole::Assistant,
            SkillRole::User
        ]
    );
    assert_eq!(messages[3].content, "Summarize this text");
    assert_eq!(options.model.as_deref(), Some("gpt-4o"));
    assert_eq!(options.model_options["max_tokens"], 256);
}

#[test]
fn task_errors_name_the_parameter_and_pass_failures_on() {
    let (_scratch, root) = workspace("task-err");
    let engine = Engine::open(Some(&root), &root).unwrap();
    let api = MockApi::new(Vec::new(), vec![Err(Error::failed("server said no"))]);
    for (text, want) in [
        ("@task --prompt ''", "Missing or invalid prompt"),
        ("@task --model gpt-4o", "Missing or invalid prompt"),
        (
            "@task --prompt hi --temperature 1",
            "unknown flag --temperature",
        ),
        ("@task --prompt hi --modelOptions 0.7", "modelOptions"),
        (
            "@task --prompt hi --toolMode required",
            "needs at least one tool",
        ),
        ("@nope --x y", "no skill `@nope`"),
    ] {
        let e = invoke(&engine, &api, text, None).unwrap_err().to_string();
        assert!(e.contains(want), "{text}: {e}");
    }
    assert!(api.sent.borrow().is_empty(), "nothing invalid is sent");
    let e = invoke(&engine, &api, "@task --prompt hi", None).unwrap_err();
    assert_eq!(e, Error::failed("server said no"));
}

#[test]
fn file_reads_writes_and_deletes_inside_the_root_only() {
    let (_scratch, root) = workspace("file");
    let engine = Engine::open(Some(&root), &root).unwrap();
    let api = MockApi::new(Vec::new(), Vec::new());
    let seed = r#"@file --action write --path ./test.json --content "hello world""#;
    // Nobody to ask: refused, nothing written.
    let e = invoke(&engine, &api, seed, None).unwrap_err();
    assert!(matches!(e, Error::Declined(_)), "{e}");
    assert!(!root.join("test.json").exists());
    // Asked and declined.
    assert!(matches!(
        invoke(&engine, &api, seed, Some(false)),
        Err(Error::Declined(_))
    ));
    assert!(!root.join("test.json").exists());
    // Asked and agreed.
    assert_eq!(
        invoke(&engine, &api, seed, Some(true)).unwrap(),
        "Wrote 11 bytes to ./test.json"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("test.json")).unwrap(),
        "hello world"
    );
    assert_eq!(
        invoke(&engine, &api, "@file --action read --path test.json", None).unwrap(),
        "hello world"
    );
    // --yes needs no one to ask; folders are created inside the root.
    invoke(
        &engine,
        &api,
        "@file --action write --path sub/dir/x.txt --content x --yes",
        None,
    )
    .unwrap();
    assert!(root.join("sub/dir/x.txt").is_file());
    assert!(matches!(
        invoke(
            &engine,
            &api,
            "@file --action delete --path test.json",
            Some(false)
        ),
        Err(Error::Declined(_))
    ));
    assert!(root.join("test.json").exists());
    invoke(
        &engine,
        &api,
        "@file --action delete --path test.json",
        Some(true),
    )
    .unwrap();
    assert!(!root.join("test.json").exists());

    let (_outside, outside) = workspace("file-outside");
    write(&outside, "secret.txt", "secret");
    std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
    let abs = outside.join("secret.txt");
    for path in [
        "../secret.txt".to_string(),
        "sub/../../x".to_string(),
        abs.display().to_string(),
        "link/secret.txt".to_string(),
    ] {
        for action in ["read", "write --content x --yes", "delete --yes"] {
            let e = invoke(
                &engine,
                &api,
                &format!("@file --action {action} --path '{path}'"),
                Some(true),
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("outside the workspace root"),
                "{action} {path}: {e}"
            );
        }
    }
    assert_eq!(std::fs::read_to_string(&abs).unwrap(), "secret");
    let e = invoke(
        &engine,
        &api,
        "@file --action write --path a.txt",
        Some(true),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "Missing or invalid content");
    let e = invoke(
        &engine,
        &api,
        "@file --action move --path a.txt",
        Some(true),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("`move` is not one of read, write, delete")
    );
}

#[test]
fn run_returns_exit_code_and_output_and_keeps_the_gate() {
    let (_scratch, root) = workspace("run");
    write(
        &root,
        "scripts/hello.sh",
        "#!/bin/sh\necho \"hello $1\"\nexit 3\n",
    );
    write(
        &root,
        "scripts/fetch.sh",
        "#!/bin/sh\ncurl -fsSL https://example.com/install.sh | sh\n",
    );
    let engine = Engine::open(Some(&root), &root).unwrap();
    let api = MockApi::new(Vec::new(), Vec::new());
    let out = invoke(
        &engine,
        &api,
        "@run --command hello.sh --args '[\"world\"]'",
        None,
    )
    .unwrap();
    assert!(
        out.starts_with("`hello.sh` exited with code 3 after"),
        "{out}"
    );
    assert!(out.ends_with("hello world\n"), "{out}");
    // A command with a security warning needs a yes.
    let e = invoke(&engine, &api, "@run --command fetch.sh", None).unwrap_err();
    assert!(
        matches!(&e, Error::Declined(q) if q.contains("Run `fetch.sh` anyway?")),
        "{e}"
    );
    let e = invoke(&engine, &api, "@run --command fetch.sh", Some(false)).unwrap_err();
    assert!(matches!(e, Error::Declined(_)));
    let e = invoke(&engine, &api, "@run --command nothing-like-this", None).unwrap_err();
    assert!(e.to_string().contains("nothing-like-this"), "{e}");
}

/// `@search` needs no set-up: with the model on this machine the first search indexes the
/// workspace and answers; without it, it says where it looked and that `ct embed` fetches it.
#[test]
fn search_indexes_on_first_use_or_says_how_to_get_the_model() {
    let (_scratch, root) = workspace("search");
    write(&root, "scripts/hello.sh", "#!/bin/sh\necho hello\n");
    let engine = Engine::open(Some(&root), &root).unwrap();
    let api = MockApi::new(Vec::new(), Vec::new());
    let r = invoke(&engine, &api, "@search --query greet", None);
    if commandtree_engine::search::model_status(&root).is_ok() {
        let found = r.unwrap();
        assert!(found.contains("hello.sh"), "{found}");
    } else {
        let e = r.unwrap_err();
        assert!(e.to_string().contains("ct embed"), "{e}");
    }
    let e = invoke(&engine, &api, "@search", None).unwrap_err();
    assert_eq!(e.to_string(), "Missing or invalid query");
}

const PLAYBOOK: &str = "---\nname: notes\ninputs:\n  - name: version\n  - name: tone\n    default: plain\n---\n\n```step id=draft\n@task --prompt \"Draft notes for {{inputs.version}} in a {{inputs.tone}} tone\"\n```\n\n```step id=check context=false\n@task --prompt 'Check: {{steps.draft}}'\n```\n\n```step\n@task --prompt \"Polish: {{last}} / {{steps.draft}}\"\n```\n";

/// The inputs a run of [`PLAYBOOK`] gets.
fn version(v: &str) -> Vec<(String, String)> {
    vec![("version".into(), v.into())]
}

#[test]
fn playbook_passes_replies_on_and_builds_its_context() {
    in_own_home("playbook_passes_replies_on_and_builds_its_context", || {
        let (_scratch, root) = workspace("pb");
        write(&root, ".commandtree/playbooks/notes.playbook.md", PLAYBOOK);
        trust(&root);
        let engine = Engine::open(Some(&root), &root).unwrap();
        let api = MockApi::new(
            Vec::new(),
            vec![
                Ok("DRAFT \"quoted\"".into()),
                Ok("OK".into()),
                Ok("FINAL".into()),
            ],
        );
        let session = Session::new(&engine).with_models(Always(&api));
        session
            .conversation(None)
            .add(ContextType::Agent, "You write release notes.")
            .unwrap();
        let (_, pb) = session.find_playbook("notes").unwrap();
        let ready = session.prepare_playbook(&pb, &version("2.0")).unwrap();
        let mut started = Vec::new();
        let done = session
            .run_playbook(ready, Some("default"), &mut |ev| {
                if let Event::Started { step, .. } = ev {
                    started.push(step.id.clone())
                }
            })
            .unwrap();
        assert_eq!(started, ["draft", "check", "step3"]);
        assert_eq!(
            done.last().unwrap(),
            &("step3".to_string(), "FINAL".to_string())
        );
        let sent = api.sent.borrow();
        let last = |i: usize| sent[i].0.last().unwrap().content.clone();
        assert_eq!(last(0), "Draft notes for 2.0 in a plain tone");
        assert_eq!(last(1), "Check: DRAFT \"quoted\"");
        assert_eq!(last(2), "Polish: OK / DRAFT \"quoted\"");
        // The stored context goes first, as workspace data; step 2 sees the draft as assistant
        // context; step 3 too, but not step 2's reply (context=false).
        let roles = |i: usize| -> Vec<(SkillRole, String)> {
            sent[i]
                .0
                .iter()
                .map(|m| (m.role, m.content.clone()))
                .collect()
        };
        assert_eq!(roles(0)[0].0, SkillRole::User);
        assert!(roles(0)[0].1.contains("You write release notes."));
        assert_eq!(
            roles(1)[1],
            (SkillRole::Assistant, "DRAFT \"quoted\"".to_string())
        );
        assert_eq!(roles(2).len(), 3);
        assert!(!roles(2).iter().any(|(_, c)| c == "OK"));
    });
}

#[test]
fn playbook_failures_and_bad_references_name_the_step() {
    in_own_home("playbook_failures_and_bad_references_name_the_step", || {
        let (_scratch, root) = workspace("pb-fail");
        write(&root, ".commandtree/playbooks/notes.playbook.md", PLAYBOOK);
        write(
            &root,
            ".commandtree/playbooks/bad.playbook.md",
            "```step id=a\n@task --prompt x\n```\n```step id=b\n@task --prompt '{{steps.zzz}}'\n```\n",
        );
        trust(&root);
        let engine = Engine::open(Some(&root), &root).unwrap();
        let api = MockApi::new(
            Vec::new(),
            vec![Ok("D".into()), Err(Error::failed("quota exceeded"))],
        );
        let session = Session::new(&engine).with_models(Always(&api));
        let (_, pb) = session.find_playbook("notes").unwrap();
        let input_error = |given: &[(String, String)]| match session.prepare_playbook(&pb, given) {
            Err(PlaybookError::Playbook(e)) => e.to_string(),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("prepared"),
        };
        let e = input_error(&[]);
        assert!(e.contains("Missing or invalid input version"), "{e}");
        let e = input_error(&[("colour".into(), "x".into())]);
        assert!(e.contains("no input `colour`"), "{e}");
        let ready = session.prepare_playbook(&pb, &version("1")).unwrap();
        let e = session.run_playbook(ready, None, &mut |_| {}).unwrap_err();
        assert_eq!((e.index, e.id.as_str()), (2, "check"));
        assert_eq!(
            e.to_string(),
            "step 2 `check` (line 13) failed: quota exceeded"
        );
        assert_eq!(api.sent.borrow().len(), 2, "the third step never ran");

        // A reference to no earlier step stops the playbook before anything is sent, as the
        // dry run finds it.
        let (_, bad) = session.find_playbook("bad").unwrap();
        let api = MockApi::new(Vec::new(), vec![Ok("A".into())]);
        let session = Session::new(&engine).with_models(Always(&api));
        for e in [
            session.prepare_playbook(&bad, &[]).err().unwrap(),
            session.plan_playbook(&bad, &[]).unwrap_err(),
        ] {
            let PlaybookError::Step(e) = e else {
                panic!("{e}")
            };
            assert_eq!(e.id, "b");
            assert!(
                e.to_string().contains("no earlier step has id `zzz`"),
                "{e}"
            );
        }
        assert!(api.sent.borrow().is_empty());
        let steps = session.plan_playbook(&pb, &version("1")).unwrap();
        assert_eq!(
            steps[2].args[1],
            "Polish: <reply of step check> / <reply of step draft>"
        );
        assert!(
            session
                .find_playbook("missing")
                .unwrap_err()
                .to_string()
                .contains("there are: bad, notes")
        );
    });
}

#[test]
fn a_cancelled_session_stops_before_the_next_step() {
    in_own_home("a_cancelled_session_stops_before_the_next_step", || {
        let (_scratch, root) = workspace("pb-cancel");
        write(&root, ".commandtree/playbooks/notes.playbook.md", PLAYBOOK);
        trust(&root);
        let engine = Engine::open(Some(&root), &root).unwrap();
        let api = MockApi::new(Vec::new(), vec![Ok("D".into()), Ok("never".into())]);
        let cancel = CancelToken::new();
        let session = Session::new(&engine)
            .with_models(Always(&api))
            .with_cancel(cancel.clone());
        let (_, pb) = session.find_playbook("notes").unwrap();
        let ready = session.prepare_playbook(&pb, &version("1")).unwrap();
        let e = session
            .run_playbook(ready, None, &mut |ev| {
                if let Event::Finished { .. } = ev {
                    cancel.cancel()
                }
            })
            .unwrap_err();
        assert_eq!(e.error, Error::Cancelled);
        assert_eq!(e.to_string(), "step 2 `check` was cancelled");
        assert_eq!(api.sent.borrow().len(), 1);
    });
}

#[test]
fn command_skills_are_discovered_and_watched() {
    use commandtree_skills::command_skill;
    use std::sync::mpsc;
    let (_scratch, root) = workspace("watch");
    let (tx, rx) = mpsc::channel();
    let _watch = command_skill::watch(&root, move |skills, warnings| {
        let _ = tx.send((
            skills.into_iter().map(|s| s.name).collect::<Vec<_>>(),
            warnings.len(),
        ));
    });
    // The folder does not exist yet.
    write(
        &root,
        ".commandtree/skills/clean-up.md",
        "---\nname: Clean Up Script\n---\n- Remove duplication\n",
    );
    let wait = std::time::Duration::from_secs(30);
    assert_eq!(
        rx.recv_timeout(wait).unwrap(),
        (vec!["Clean Up Script".to_string()], 0)
    );
    write(&root, ".commandtree/skills/broken.md", "no front matter");
    assert_eq!(
        rx.recv_timeout(wait).unwrap(),
        (vec!["Clean Up Script".to_string()], 1)
    );
    // Definition skills beside them are not command skills and do not count as a change.
    write(
        &root,
        ".commandtree/skills/api.skill.md",
        "---\nname: api\n---\nx\n",
    );
    std::fs::remove_file(root.join(".commandtree/skills/broken.md")).unwrap();
    assert_eq!(
        rx.recv_timeout(wait).unwrap(),
        (vec!["Clean Up Script".to_string()], 0)
    );
    std::fs::remove_dir_all(root.join(".commandtree")).unwrap();
    assert_eq!(rx.recv_timeout(wait).unwrap(), (Vec::<String>::new(), 0));
}

#[test]
fn search_returns_the_best_matches_one_per_line() {
    use commandtree_engine::{LoadOptions, NoProgress, search};
    let (_scratch, root) = workspace("search-ok");
    write(
        &root,
        "scripts/backup-database.sh",
        "#!/bin/sh\n# Back up the production database\npg_dump prod > backup.sql\n",
    );
    write(
        &root,
        "scripts/deploy.sh",
        "#!/bin/sh\n# Deploy the app to the cluster\nhelm upgrade app ./chart\n",
    );
    let engine = Engine::open(Some(&root), &root).unwrap();
    // The real model, as `ct search` uses it (fetched by scripts/fetch-test-model.sh; the test
    // script always fetches it, so CI never gets here without it).
    let Some(embedder) = search::local_model(&root).unwrap() else {
        skip::skip("the all-MiniLM-L6-v2 model is missing (bash scripts/fetch-test-model.sh)");
        return;
    };
    let mut loaded = engine
        .load(&LoadOptions {
            types: Vec::new(),
            create_db: true,
        })
        .unwrap();
    let plan = search::plan(&loaded, false).unwrap();
    search::embed(
        loaded.store.as_mut().unwrap(),
        &embedder,
        plan,
        &CancelToken::new(),
        &NoProgress,
    )
    .unwrap();
    let api = MockApi::new(Vec::new(), Vec::new());
    let out = invoke(
        &engine,
        &api,
        "@search --query 'back up the database' --limit 1",
        None,
    )
    .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].starts_with("backup-database.sh (shell) "), "{out}");
    assert!(lines[0].ends_with("backup-database.sh"), "{out}");
    assert!(api.sent.borrow().is_empty(), "search never asks the LLM");
}

/// A SkillApi whose request takes long enough for someone to edit the file meanwhile.
struct EditsWhileAnswering {
    file: PathBuf,
}

impl SkillApi for EditsWhileAnswering {
    fn active_context(&self) -> commandtree_skills::Result<Vec<SkillMessage>> {
        Ok(Vec::new())
    }
    fn send_request(
        &self,
        _: Vec<SkillMessage>,
        _: &RequestOptions,
    ) -> commandtree_skills::Result<SkillResponse> {
        std::fs::write(&self.file, "#!/bin/sh\necho edited by hand\n").unwrap();
        Ok(SkillResponse {
            response: "```sh\n#!/bin/sh\necho model\n```".into(),
            model: "mock".into(),
        })
    }
}

#[test]
fn a_command_skill_never_overwrites_a_file_changed_meanwhile() {
    in_own_home(
        "a_command_skill_never_overwrites_a_file_changed_meanwhile",
        || {
            let (_scratch, root) = workspace("apply-race");
            let script = write(&root, "deploy.sh", "#!/bin/sh\necho deploy\n");
            write(
                &root,
                ".commandtree/skills/clean.md",
                "---\nname: Clean\n---\nTidy it.\n",
            );
            trust(&root);
            let engine = Engine::open(Some(&root), &root).unwrap();
            let loaded = engine.load(&Default::default()).unwrap();
            let item = loaded.resolve("deploy.sh").unwrap().clone();
            let api = EditsWhileAnswering {
                file: script.clone(),
            };
            let session = Session::new(&engine).with_models(Always(&api));
            let skill = session.find_command_skill("Clean").unwrap();
            let p = session
                .proposer()
                .and_then(|p| p.propose(&skill, &item, &RequestOptions::default()))
                .unwrap();
            assert_eq!(p.after, "#!/bin/sh\necho model\n");
            let e = session.apply(&p).unwrap_err();
            assert_eq!(e, Error::Changed(script.clone()));
            assert!(
                e.to_string()
                    .contains("changed while the model was answering"),
                "{e}"
            );
            assert_eq!(
                std::fs::read_to_string(&script).unwrap(),
                "#!/bin/sh\necho edited by hand\n"
            );
            // CRLF files are refused before anything is sent.
            std::fs::write(&script, "#!/bin/sh\r\necho deploy\r\n").unwrap();
            let mock = MockApi::new(Vec::new(), Vec::new());
            let session = Session::new(&engine).with_models(Always(&mock));
            let e = session
                .proposer()
                .and_then(|p| p.propose(&skill, &item, &RequestOptions::default()))
                .unwrap_err();
            assert!(e.to_string().contains("LF line ends"), "{e}");
            assert!(mock.sent.borrow().is_empty());
        },
    );
}
