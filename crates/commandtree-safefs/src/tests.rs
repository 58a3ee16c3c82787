//! The writer on real files: real links, real FIFOs, real folders.

use super::*;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::time::Duration;

/// A fresh folder by its real path, removed when the returned guard is dropped.
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::Builder::new()
        .prefix(&format!("ct-safefs-{name}-"))
        .tempdir()
        .unwrap();
    let real = std::fs::canonicalize(d.path()).unwrap();
    (d, real)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn mode_of(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

fn mkfifo(p: &Path) {
    let st = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .expect("mkfifo (coreutils)");
    assert!(st.success());
}

/// Runs `f` on a thread of its own: a call that waits on a FIFO fails the test, not hangs it.
fn quickly<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what} waited on a FIFO"))
}

type WriteFn = fn(&Path, &[u8], &Options<'_>) -> io::Result<()>;

fn portable_write(target: &Path, bytes: &[u8], o: &Options<'_>) -> io::Result<()> {
    let mut p = portable::Pending::new(target, o, true)?;
    io::Write::write_all(p.file(), bytes)?;
    p.commit()
}

/// The Unix writer and the portable one, which must refuse the same things.
const WRITERS: [(&str, WriteFn); 2] = [("unix", write), ("portable", portable_write)];

#[test]
fn temporary_names_are_random_and_never_left_behind() {
    let a = temp_name().unwrap();
    let b = temp_name().unwrap();
    assert_ne!(a, b);
    for n in [&a, &b] {
        let hex = n
            .strip_prefix(".ct-")
            .unwrap()
            .strip_suffix(".tmp")
            .unwrap();
        assert_eq!(hex.len(), 32, "{n}");
        assert!(hex.bytes().all(|c| c.is_ascii_hexdigit()), "{n}");
        assert!(!n.contains(&std::process::id().to_string()), "{n}");
    }

    let (_scratch, d) = scratch("names");
    for (name, w) in WRITERS {
        let t = d.join(format!("{name}.txt"));
        w(&t, b"one", &Options::new()).unwrap();
        w(&t, b"two", &Options::new()).unwrap();
        assert_eq!(std::fs::read(&t).unwrap(), b"two");
    }
    assert_eq!(names(&d), ["portable.txt", "unix.txt"]);
}

#[test]
fn a_pending_write_that_is_dropped_or_fails_removes_its_temporary_file() {
    let (_scratch, d) = scratch("pending");
    let t = d.join("f");
    std::fs::write(&t, "old").unwrap();
    let mut p = Pending::replace(&t, &Options::new()).unwrap();
    io::Write::write_all(&mut p, b"half").unwrap();
    let temp = p.temp_path();
    assert!(temp.is_file());
    assert_eq!(temp.parent(), Some(d.as_path()), "beside the target");
    drop(p);
    assert!(!temp.exists());
    assert_eq!(std::fs::read_to_string(&t).unwrap(), "old");

    // A file that appears while a create-only write is under way is never replaced.
    let n = d.join("new");
    let mut p = Pending::create_new(&n, &Options::new()).unwrap();
    io::Write::write_all(&mut p, b"mine").unwrap();
    let temp = p.temp_path();
    std::fs::write(&n, "theirs").unwrap();
    let e = p.commit().unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{e}");
    assert_eq!(std::fs::read_to_string(&n).unwrap(), "theirs");
    assert!(!temp.exists());
    assert_eq!(names(&d), ["f", "new"]);
}

#[test]
fn modes_are_honoured() {
    let (_scratch, d) = scratch("modes");
    let p = d.join("private");
    write(&p, b"x", &Options::private()).unwrap();
    assert_eq!(mode_of(&p), 0o600);
    // A private write makes an existing readable file private too.
    let q = d.join("was-public");
    std::fs::write(&q, "x").unwrap();
    std::fs::set_permissions(&q, std::fs::Permissions::from_mode(0o644)).unwrap();
    write(&q, b"y", &Options::private()).unwrap();
    assert_eq!(mode_of(&q), 0o600);
    // An ordinary write keeps the mode the file had.
    let r = d.join("script");
    std::fs::write(&r, "x").unwrap();
    std::fs::set_permissions(&r, std::fs::Permissions::from_mode(0o750)).unwrap();
    write(&r, b"y", &Options::new()).unwrap();
    assert_eq!(mode_of(&r), 0o750);
    // New folders under a base get the folder mode; a private folder is 0700 even if it was not.
    let o = Options::private().within(&d);
    write(&d.join("a/b/c"), b"x", &o).unwrap();
    assert_eq!(mode_of(&d.join("a")), 0o700);
    assert_eq!(mode_of(&d.join("a/b")), 0o700);
    assert_eq!(mode_of(&d.join("a/b/c")), 0o600);
    std::fs::create_dir(d.join("open")).unwrap();
    std::fs::set_permissions(d.join("open"), std::fs::Permissions::from_mode(0o755)).unwrap();
    create_private_dir(&d.join("open"), Some(&d)).unwrap();
    assert_eq!(mode_of(&d.join("open")), 0o700);
    let f = create_new(&d.join("open/log"), &Options::private().within(&d)).unwrap();
    drop(f);
    assert_eq!(mode_of(&d.join("open/log")), 0o600);
    std::fs::set_permissions(d.join("open"), std::fs::Permissions::from_mode(0o755)).unwrap();
    portable::create_private_dir(&d.join("open"), &Options::private().within(&d)).unwrap();
    assert_eq!(mode_of(&d.join("open")), 0o700);
    portable_write(&d.join("p-private"), b"x", &Options::private()).unwrap();
    assert_eq!(mode_of(&d.join("p-private")), 0o600);
}

#[test]
fn a_taken_temporary_name_is_skipped_and_never_written_through() {
    let (_scratch, d) = scratch("collide");
    let (_outside, outside) = scratch("collide-outside");
    let victim = outside.join("authorized_keys");
    std::fs::write(&victim, "the owner's key").unwrap();
    symlink(&victim, d.join(".ct-first.tmp")).unwrap();
    std::fs::write(d.join(".ct-second.tmp"), "someone else's").unwrap();
    let mut queue = vec![".ct-first.tmp", ".ct-second.tmp", ".ct-third.tmp"].into_iter();
    let mut next = || Ok(queue.next().unwrap().to_string());
    let t = d.join("target");
    let mut p = unix::Pending::with_names(&t, &Options::new(), true, &mut next).unwrap();
    assert_eq!(p.temp_path(), d.join(".ct-third.tmp"));
    io::Write::write_all(p.file(), b"new").unwrap();
    p.commit().unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the owner's key");
    assert!(is_link(&d.join(".ct-first.tmp")));
    assert_eq!(
        std::fs::read_to_string(d.join(".ct-second.tmp")).unwrap(),
        "someone else's"
    );
    assert_eq!(std::fs::read_to_string(&t).unwrap(), "new");
    assert_eq!(names(&d), [".ct-first.tmp", ".ct-second.tmp", "target"]);

    // Every name taken: a clear error, nothing written.
    let mut always = || Ok(".ct-first.tmp".to_string());
    let e = unix::Pending::with_names(&d.join("other"), &Options::new(), true, &mut always)
        .err()
        .unwrap();
    assert!(e.to_string().contains("no free temporary name"), "{e}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the owner's key");
}

#[test]
fn a_link_at_the_target_is_refused_by_every_kind_of_write() {
    let (_scratch, d) = scratch("link");
    let (_outside, outside) = scratch("link-outside");
    let victim = outside.join("config.json");
    std::fs::write(&victim, "{}").unwrap();
    let t = d.join("mcp.json");
    symlink(&victim, &t).unwrap();
    let dangling = d.join("dangling");
    symlink(outside.join("missing"), &dangling).unwrap();
    let check = |e: io::Error, p: &Path| {
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        let s = e.to_string();
        assert!(
            s.starts_with(&p.display().to_string()) && s.contains("is a symbolic link"),
            "{s}"
        );
    };
    for p in [&t, &dangling] {
        for (_, w) in WRITERS {
            check(w(p, b"x", &Options::new()).unwrap_err(), p);
            check(w(p, b"x", &Options::new().within(&d)).unwrap_err(), p);
        }
        check(write_new(p, b"x", &Options::new()).unwrap_err(), p);
        check(append(p, &Options::new()).unwrap_err(), p);
        check(read_existing(p, &Options::new(), 100).unwrap_err(), p);
        check(portable::append(p, &Options::new()).unwrap_err(), p);
        check(
            portable::read_existing(p, &Options::new(), 100).unwrap_err(),
            p,
        );
    }
    // Something is there, so create-only writes say so.
    let e = create_new(&t, &Options::new()).unwrap_err();
    assert!(e.to_string().contains("is a symbolic link"), "{e}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "{}");
    assert!(!outside.join("missing").exists());
    assert!(is_link(&t) && is_link(&dangling));
    assert_eq!(
        names(&d),
        ["dangling", "mcp.json"],
        "no temporary file left"
    );
}

#[test]
fn a_fifo_a_folder_or_a_device_at_the_target_is_refused_without_waiting() {
    let (_scratch, d) = scratch("fifo");
    let fifo = d.join("pipe");
    mkfifo(&fifo);
    std::fs::create_dir(d.join("folder")).unwrap();
    for (p, what) in [
        (fifo.clone(), "is a named pipe (FIFO)"),
        (d.join("folder"), "is a folder"),
        (PathBuf::from("/dev/null"), "is a character device"),
    ] {
        let errors = quickly("a write", move || {
            let mut v = Vec::new();
            for (_, w) in WRITERS {
                v.push(w(&p, b"x", &Options::new()).unwrap_err());
            }
            v.push(write_new(&p, b"x", &Options::new()).unwrap_err());
            v.push(append(&p, &Options::new()).unwrap_err());
            v.push(read_existing(&p, &Options::new(), 10).unwrap_err());
            v.push(portable::append(&p, &Options::new()).unwrap_err());
            v.push(portable::read_existing(&p, &Options::new(), 10).unwrap_err());
            v
        });
        for e in errors {
            assert!(
                e.to_string().contains(what) || e.kind() == io::ErrorKind::AlreadyExists,
                "{what}: {e}"
            );
        }
    }
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(
        &std::fs::symlink_metadata(&fifo).unwrap().file_type()
    ));
    assert_eq!(names(&d), ["folder", "pipe"]);
    assert!(names(&d.join("folder")).is_empty());
}

#[test]
fn a_linked_folder_under_the_base_is_refused() {
    let (_scratch, root) = scratch("parent");
    let (_outside, outside) = scratch("parent-outside");
    symlink(&outside, root.join(".commandtree")).unwrap();
    std::fs::create_dir_all(root.join("real/deeper")).unwrap();
    symlink(&outside, root.join("real/deeper/ssh")).unwrap();
    for target in [
        root.join(".commandtree/config.toml"),
        root.join(".commandtree/new/config.toml"),
        root.join("real/deeper/ssh/authorized_keys"),
    ] {
        let shown = if target.starts_with(root.join("real")) {
            root.join("real/deeper/ssh")
        } else {
            root.join(".commandtree")
        };
        let o = Options::new().within(&root);
        let mut errors: Vec<io::Error> = WRITERS
            .iter()
            .map(|(_, w)| w(&target, b"x", &o).unwrap_err())
            .collect();
        errors.push(append(&target, &o).unwrap_err());
        errors.push(create_new(&target, &o).unwrap_err());
        errors.push(create_dir_all(&target, &o).unwrap_err());
        errors.push(portable::create_dir_all(&target, &o).unwrap_err());
        for e in errors {
            let s = e.to_string();
            assert!(
                s.starts_with(&shown.display().to_string())
                    && s.contains("is a symbolic link")
                    && s.contains("linked folder"),
                "{s}"
            );
        }
    }
    assert_eq!(
        names(&outside),
        Vec::<String>::new(),
        "nothing written outside"
    );
    // Outside the base, `..` in the path, or a file where a folder should be: refused too.
    let o = Options::new().within(&root);
    let e = write(&outside.join("x"), b"x", &o).unwrap_err();
    assert!(e.to_string().contains("is outside"), "{e}");
    let e = write(&root.join("real/../../x"), b"x", &o).unwrap_err();
    assert!(e.to_string().contains("`..`"), "{e}");
    std::fs::write(root.join("file"), "x").unwrap();
    let e = write(&root.join("file/x"), b"x", &o).unwrap_err();
    assert!(e.to_string().contains("is not a folder"), "{e}");
    // Without a base, the folders on the way are the caller's own choice and are followed.
    write(&root.join(".commandtree/mine"), b"x", &Options::new()).unwrap();
    assert_eq!(names(&outside), ["mine"]);
}

#[test]
fn append_adds_to_a_regular_file_only() {
    let (_scratch, d) = scratch("append");
    let o = Options::private().within(&d);
    let log = d.join("logs/run.log");
    io::Write::write_all(&mut append(&log, &o).unwrap(), b"one\n").unwrap();
    io::Write::write_all(&mut append(&log, &o).unwrap(), b"two\n").unwrap();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "one\ntwo\n");
    assert_eq!(mode_of(&log), 0o600);
    // The handle blocks as usual (O_NONBLOCK is only for the open).
    let f = append(&log, &o).unwrap();
    let fl = rustix::fs::fcntl_getfl(&f).unwrap();
    assert!(!fl.contains(rustix::fs::OFlags::NONBLOCK));
    std::fs::hard_link(&log, d.join("other-name")).unwrap();
    let e = append(&log, &o).unwrap_err();
    assert!(e.to_string().contains("other hard links"), "{e}");
    let e = portable::append(&log, &o).unwrap_err();
    assert!(e.to_string().contains("other hard links"), "{e}");
}

#[test]
fn create_only_writes_never_replace() {
    let (_scratch, d) = scratch("new");
    let o = Options::new().within(&d);
    write_new(&d.join("a"), b"first", &o).unwrap();
    let e = write_new(&d.join("a"), b"second", &o).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read_to_string(d.join("a")).unwrap(), "first");
    let e = create_new(&d.join("a"), &o).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    create_dir(&d.join("dir"), &o).unwrap();
    let e = create_dir(&d.join("dir"), &o).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    std::fs::write(d.join("b"), "b").unwrap();
    let e = rename_new(&d.join("a"), &d.join("b")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    rename_new(&d.join("a"), &d.join("c")).unwrap();
    assert_eq!(names(&d), ["b", "c", "dir"]);
    assert_eq!(std::fs::read_to_string(d.join("c")).unwrap(), "first");

    let e = portable::create_new(&d.join("c"), &o).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    drop(portable::create_new(&d.join("p"), &o).unwrap());
    let e = portable::create_dir(&d.join("dir"), &o).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    portable::create_dir(&d.join("pdir"), &o).unwrap();
    let e = portable::rename_new(&d.join("c"), &d.join("b")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    portable::rename_new(&d.join("c"), &d.join("e")).unwrap();
    assert_eq!(names(&d), ["b", "dir", "e", "p", "pdir"]);
}

#[test]
fn reads_stop_at_the_limit_and_report_a_missing_file_as_none() {
    let (_scratch, d) = scratch("read");
    let o = Options::new().within(&d);
    assert!(read_existing(&d.join("nope"), &o, 10).unwrap().is_none());
    assert!(
        read_existing(&d.join("no/such/dir"), &o, 10)
            .unwrap()
            .is_none()
    );
    std::fs::write(d.join("f"), "0123456789").unwrap();
    assert_eq!(
        read_existing(&d.join("f"), &o, 10).unwrap().unwrap(),
        b"0123456789"
    );
    let e = read_existing(&d.join("f"), &o, 9).unwrap_err();
    assert!(e.to_string().contains("larger than 9 bytes"), "{e}");
}

#[test]
fn unprefixed_drops_only_the_callers_own_path() {
    let (_scratch, d) = scratch("unprefixed");
    symlink(d.join("elsewhere"), d.join("link")).unwrap();
    let e = write(&d.join("link"), b"x", &Options::new()).unwrap_err();
    let e = unprefixed(e, &d.join("link"));
    assert!(e.to_string().starts_with("is a symbolic link"), "{e}");
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    let e = write(&d.join("link/x"), b"x", &Options::new().within(&d)).unwrap_err();
    let e = unprefixed(e, &d.join("link/x"));
    assert!(
        e.to_string()
            .starts_with(&d.join("link").display().to_string()),
        "{e}"
    );
}
