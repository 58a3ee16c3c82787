//! The facade as a front end other than the CLI uses it: a real workspace on disk, a real
//! database, real processes. Nothing here runs the `ct` binary: runs are started and supervised
//! through the library alone.

use commandtree_engine::runs::{self, RunRequest, Target};
use commandtree_engine::{Engine, Error, LoadOptions, tags};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A workspace by its real path, removed when the returned guard is dropped.
fn workspace(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("ct-engine-{name}-"))
        .tempdir()
        .unwrap();
    let real = std::fs::canonicalize(dir.path()).unwrap();
    (dir, real)
}

fn script(root: &Path, rel: &str, body: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, body).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn eventually(mut f: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + Duration::from_secs(60);
    while Instant::now() < until {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn resolving_reports_ambiguity_and_near_matches_as_data() {
    let (_scratch, w) = workspace("resolve");
    script(&w, "a/build.sh", "#!/bin/sh\n");
    script(&w, "b/build.sh", "#!/bin/sh\n");
    script(&w, "test.sh", "#!/bin/sh\n");
    let engine = Engine::open(Some(&w), &w).unwrap();
    let loaded = engine.load(&LoadOptions::default()).unwrap();
    match loaded.resolve("build.sh") {
        Err(Error::Ambiguous { candidates, .. }) => assert_eq!(candidates.len(), 2),
        other => panic!("{:?}", other.map(|c| c.id.clone())),
    }
    match loaded.resolve("tes") {
        Err(Error::NotFound { suggestions, .. }) => {
            assert_eq!(suggestions[0].label, "test.sh")
        }
        other => panic!("{:?}", other.map(|c| c.id.clone())),
    }
    assert_eq!(loaded.resolve("test.sh").unwrap().label, "test.sh");
    assert!(Engine::open(Some(&w.join("missing")), &w).is_err());
}

#[test]
fn tags_stars_and_quick_launch_order_round_trip() {
    let (_scratch, w) = workspace("tags");
    for s in ["a.sh", "b.sh", "c.sh"] {
        script(&w, s, "#!/bin/sh\n");
    }
    let engine = Engine::open(Some(&w), &w).unwrap();
    let mut l = engine
        .load(&LoadOptions {
            create_db: true,
            ..Default::default()
        })
        .unwrap();
    let (_, added) = tags::add(&mut l, "a.sh", &["ci".into(), "ci".into()]).unwrap();
    assert_eq!(added, [true, false]);
    for s in ["a.sh", "b.sh", "c.sh"] {
        assert!(tags::star(&mut l, s).unwrap().1);
    }
    let (c, at) = tags::quick_move(&mut l, "c.sh", 0).unwrap();
    assert_eq!((c.label.as_str(), at), ("c.sh", 0));
    // A second front end sees it all.
    let l2 = engine.load(&LoadOptions::default()).unwrap();
    let order: Vec<String> = tags::quick(&l2)
        .unwrap()
        .into_iter()
        .map(|c| c.label)
        .collect();
    assert_eq!(order, ["c.sh", "a.sh", "b.sh"]);
    let ci = tags::list(&l2).unwrap();
    assert!(ci.iter().any(|t| t.name == "ci" && t.commands.len() == 1));
    let (kept, unknown) = tags::filter(
        engine.root(),
        l2.commands.clone(),
        &["ci".into()],
        l2.store.as_ref(),
    );
    assert_eq!(kept.len(), 1);
    assert!(unknown.is_empty());
    let (_, unknown) = tags::filter(
        engine.root(),
        l2.commands.clone(),
        &["nope".into()],
        l2.store.as_ref(),
    );
    assert_eq!(unknown.len(), 1);
    let mut l3 = engine.load(&LoadOptions::default()).unwrap();
    let (_, removals) = tags::remove(&mut l3, "a.sh", &["ci".into()]).unwrap();
    assert!(removals[0].removed);
}

#[test]
fn a_library_front_end_starts_and_supervises_a_detached_run() {
    let (_scratch, w) = workspace("detached");
    script(
        &w,
        "job.sh",
        "#!/bin/sh\necho \"arg:$1\"\nsleep 0.2\nexit 6\n",
    );
    let engine = Engine::open(Some(&w), &w).unwrap();
    let mut l = engine.load(&LoadOptions::default()).unwrap();
    let sel = runs::select(
        &l,
        RunRequest {
            target: Target::Query("job.sh".into()),
            values: Default::default(),
            extra: vec!["x y".into()],
            debug: false,
        },
    )
    .unwrap();
    assert!(commandtree_engine::gate::concerns(&l, &sel.item).is_empty());
    let planned = runs::plan(engine.workspace(), &sel, None).unwrap();
    let started = runs::start_detached(engine.workspace(), &mut l.store, &planned).unwrap();
    let id = started.run_id.expect("recorded");
    assert!(eventually(|| {
        runs::get(engine.workspace(), &mut l.store, id).is_ok_and(|r| r.exit_code == Some(6))
    }));
    let r = runs::get(engine.workspace(), &mut l.store, id).unwrap();
    assert_eq!(r.status, "failed");
    assert!(r.duration_ms.is_some());
    let log = std::fs::read_to_string(started.log.unwrap()).unwrap();
    assert_eq!(log, "arg:x y\n");
    // The last run again, with its arguments.
    let last = runs::select(
        &l,
        RunRequest {
            target: Target::Last,
            values: Default::default(),
            extra: vec![],
            debug: false,
        },
    )
    .unwrap();
    assert_eq!(last.extra, ["x y"]);
}

#[test]
fn a_foreground_run_records_its_exit_code() {
    let (_scratch, w) = workspace("fg");
    script(&w, "fail.sh", "#!/bin/sh\nexit 3\n");
    let engine = Engine::open(Some(&w), &w).unwrap();
    let mut l = engine.load(&LoadOptions::default()).unwrap();
    let sel = runs::select(
        &l,
        RunRequest {
            target: Target::Query("fail.sh".into()),
            values: Default::default(),
            extra: vec![],
            debug: false,
        },
    )
    .unwrap();
    let planned = runs::plan(engine.workspace(), &sel, None).unwrap();
    let fin = runs::run_foreground(engine.workspace(), &mut l.store, &planned).unwrap();
    assert_eq!(fin.code, 3);
    let hist = runs::history(engine.workspace(), &mut l.store, 10).unwrap();
    assert_eq!(hist[0].exit_code, Some(3));
    assert_eq!(hist[0].mode, "foreground");
}
