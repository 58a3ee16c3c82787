//! The Unix writer: every step relative to an open folder, so a path component swapped for a
//! link between a check and a write is never followed.

use crate::{
    ATTEMPTS, Kind, Options, below, exists, hard_linked, link_on_the_way, link_target,
    not_a_folder, not_regular, split, temp_name, too_large, with_path,
};
use rustix::fd::OwnedFd;
use rustix::fs::{self as rfs, AtFlags, CWD, FileType, Mode, OFlags, RawMode};
use rustix::io::Errno;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

fn os(path: &Path, e: Errno) -> io::Error {
    with_path(path, e.into())
}

// `RawMode` is `u16` on some systems and `u32` on others.
#[allow(clippy::unnecessary_cast)]
fn mode(bits: u32) -> Mode {
    Mode::from_bits_truncate(bits as RawMode)
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOCTTY);

/// Opens `dir` (following links: a path the caller chose).
fn open_plain(dir: &Path) -> io::Result<OwnedFd> {
    rfs::openat(CWD, dir, DIR_FLAGS, Mode::empty()).map_err(|e| match e {
        Errno::NOTDIR => not_a_folder(dir),
        e => os(dir, e),
    })
}

/// One folder below `parent`, never through a link, created when missing and `o` says so.
fn step(
    parent: &OwnedFd,
    name: &OsStr,
    shown: &Path,
    base: &Path,
    o: &Options<'_>,
) -> io::Result<OwnedFd> {
    let open = || rfs::openat(parent, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty());
    let opened = match open() {
        Err(Errno::NOENT) if o.create_parents => {
            match rfs::mkdirat(parent, name, mode(o.dir_mode)) {
                // Made by someone else meanwhile: what it is is checked as it is opened.
                Ok(()) | Err(Errno::EXIST) => open(),
                Err(e) => return Err(os(shown, e)),
            }
        }
        r => r,
    };
    opened.map_err(
        |e| match rfs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => {
                link_on_the_way(shown, base)
            }
            Ok(st) if FileType::from_raw_mode(st.st_mode) != FileType::Directory => {
                not_a_folder(shown)
            }
            _ => os(shown, e),
        },
    )
}

/// Opens the folder `dir`: under a base, one component at a time without following a link.
fn open_dir(dir: &Path, o: &Options<'_>) -> io::Result<OwnedFd> {
    match o.base {
        None => match open_plain(dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound && o.create_parents => {
                let mut b = std::fs::DirBuilder::new();
                std::os::unix::fs::DirBuilderExt::mode(b.recursive(true), o.dir_mode);
                b.create(dir).map_err(|e| with_path(dir, e))?;
                open_plain(dir)
            }
            r => r,
        },
        Some(base) => {
            let names = below(dir, base)?;
            let mut fd = open_plain(base)?;
            let mut shown = base.to_path_buf();
            for name in names {
                shown.push(name);
                fd = step(&fd, name, &shown, base, o)?;
            }
            Ok(fd)
        }
    }
}

/// What stands at `name` in `dir`, looked at with `lstat` (a FIFO is never opened).
enum Found {
    Nothing,
    /// A regular file with these permission bits and this many hard links.
    File(Mode, u64),
}

fn kind(ft: FileType) -> Kind {
    match ft {
        FileType::Directory => Kind::Folder,
        FileType::Fifo => Kind::Fifo,
        FileType::Socket => Kind::Socket,
        FileType::CharacterDevice => Kind::CharDevice,
        FileType::BlockDevice => Kind::BlockDevice,
        _ => Kind::Other,
    }
}

fn check(st: &rfs::Stat, target: &Path) -> io::Result<Found> {
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Ok(Found::File(
            Mode::from_raw_mode(st.st_mode) & (Mode::RWXU | Mode::RWXG | Mode::RWXO),
            #[allow(clippy::useless_conversion)]
            u64::from(st.st_nlink),
        )),
        FileType::Symlink => Err(link_target(target)),
        other => Err(not_regular(target, kind(other))),
    }
}

fn look(dir: &OwnedFd, name: &OsStr, target: &Path) -> io::Result<Found> {
    match rfs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Err(Errno::NOENT) => Ok(Found::Nothing),
        Err(e) => Err(os(target, e)),
        Ok(st) => check(&st, target),
    }
}

/// The folder of `target`, open, and its name in it: the place every later step is relative to.
struct Place {
    dir: OwnedFd,
    name: OsString,
    target: PathBuf,
}

impl Place {
    fn of(target: &Path, o: &Options<'_>) -> io::Result<Place> {
        let (dir, name) = split(target)?;
        Ok(Place {
            dir: open_dir(dir, o)?,
            name: name.to_owned(),
            target: target.to_path_buf(),
        })
    }

    fn look(&self) -> io::Result<Found> {
        look(&self.dir, &self.name, &self.target)
    }

    fn folder(&self) -> PathBuf {
        split(&self.target).map_or_else(|_| PathBuf::from("."), |(d, _)| d.to_path_buf())
    }
}

pub(crate) struct Pending {
    place: Place,
    file: Option<File>,
    temp: OsString,
    replace: bool,
}

/// Creates a new file in `dir` under the first free name `names` gives, `O_EXCL` and never
/// through a link: a name taken (by anything, a planted link included) is skipped, never used.
pub(crate) fn create_temp(
    dir: &OwnedFd,
    folder: &Path,
    bits: Mode,
    names: &mut dyn FnMut() -> io::Result<String>,
) -> io::Result<(File, OsString)> {
    let flags = OFlags::WRONLY
        | OFlags::CREATE
        | OFlags::EXCL
        | OFlags::NOFOLLOW
        | OFlags::CLOEXEC
        | OFlags::NOCTTY;
    for _ in 0..ATTEMPTS {
        let name = OsString::from(names()?);
        match rfs::openat(dir, &name, flags, bits) {
            Ok(fd) => return Ok((File::from(fd), name)),
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(os(folder, e)),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{}: no free temporary name after {ATTEMPTS} tries",
            folder.display()
        ),
    ))
}

impl Pending {
    pub(crate) fn new(target: &Path, o: &Options<'_>, replace: bool) -> io::Result<Pending> {
        Self::with_names(target, o, replace, &mut temp_name)
    }

    pub(crate) fn with_names(
        target: &Path,
        o: &Options<'_>,
        replace: bool,
        names: &mut dyn FnMut() -> io::Result<String>,
    ) -> io::Result<Pending> {
        let place = Place::of(target, o)?;
        let keep = match place.look()? {
            Found::File(..) if !replace => return Err(exists(target)),
            Found::File(bits, _) if o.keep_mode => Some(bits),
            _ => None,
        };
        let (file, temp) = create_temp(&place.dir, &place.folder(), mode(o.mode), names)?;
        let pending = Pending {
            place,
            file: Some(file),
            temp,
            replace,
        };
        if let Some(bits) = keep {
            // The umask does not apply here: these are the bits the file already had.
            rfs::fchmod(pending.file.as_ref().expect("just created"), bits)
                .map_err(|e| os(&pending.temp_path(), e))?;
        }
        Ok(pending)
    }

    pub(crate) fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("a pending file is open until commit")
    }

    pub(crate) fn temp_path(&self) -> PathBuf {
        self.place.folder().join(&self.temp)
    }

    pub(crate) fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("open until commit");
        file.sync_all()
            .map_err(|e| with_path(&self.temp_path(), e))?;
        drop(file);
        let p = &self.place;
        if self.replace {
            // A link or FIFO put at the target since it was looked at is replaced as an entry,
            // never written through.
            rfs::renameat(&p.dir, &self.temp, &p.dir, &p.name).map_err(|e| os(&p.target, e))?;
        } else {
            link_new(&p.dir, &self.temp, &p.name, &p.target)?;
            let _ = rfs::unlinkat(&p.dir, &self.temp, AtFlags::empty());
        }
        self.temp.clear();
        // Some file systems cannot sync a folder; the file itself is already on disk.
        let _ = rfs::fsync(&p.dir);
        Ok(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.temp.is_empty() {
            let _ = rfs::unlinkat(&self.place.dir, &self.temp, AtFlags::empty());
        }
    }
}

/// Gives the file `from` (in `dir`) the name `to` as well, failing if `to` is taken. The caller
/// removes `from`.
fn link_new(dir: &OwnedFd, from: &OsStr, to: &OsStr, shown: &Path) -> io::Result<()> {
    match rfs::linkat(dir, from, dir, to, AtFlags::empty()) {
        Ok(()) => Ok(()),
        Err(Errno::EXIST) => Err(exists(shown)),
        Err(e) => Err(os(shown, e)),
    }
}

pub(crate) fn create_new(target: &Path, o: &Options<'_>) -> io::Result<File> {
    let p = Place::of(target, o)?;
    if let Found::File(..) = p.look()? {
        return Err(exists(target));
    }
    let flags = OFlags::WRONLY
        | OFlags::CREATE
        | OFlags::EXCL
        | OFlags::NOFOLLOW
        | OFlags::CLOEXEC
        | OFlags::NOCTTY;
    match rfs::openat(&p.dir, &p.name, flags, mode(o.mode)) {
        Ok(fd) => Ok(File::from(fd)),
        // Something appeared meanwhile: say what.
        Err(Errno::EXIST) => p.look().and(Err(exists(target))),
        Err(e) => Err(os(target, e)),
    }
}

pub(crate) fn append(target: &Path, o: &Options<'_>) -> io::Result<File> {
    let p = Place::of(target, o)?;
    p.look()?;
    let flags = OFlags::WRONLY
        | OFlags::APPEND
        | OFlags::CREATE
        | OFlags::NOFOLLOW
        | OFlags::NONBLOCK
        | OFlags::CLOEXEC
        | OFlags::NOCTTY;
    let fd = match rfs::openat(&p.dir, &p.name, flags, mode(o.mode)) {
        Ok(fd) => fd,
        // A link (ELOOP) or a FIFO without a reader (ENXIO) swapped in since the look.
        Err(e) => return Err(p.look().err().unwrap_or_else(|| os(target, e))),
    };
    match check(&rfs::fstat(&fd).map_err(|e| os(target, e))?, target)? {
        Found::File(_, links) if links > 1 => return Err(hard_linked(target)),
        _ => {}
    }
    let fl = rfs::fcntl_getfl(&fd).map_err(|e| os(target, e))?;
    rfs::fcntl_setfl(&fd, fl - OFlags::NONBLOCK).map_err(|e| os(target, e))?;
    Ok(File::from(fd))
}

pub(crate) fn create_dir_all(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    let o = Options {
        create_parents: true,
        ..*o
    };
    open_dir(dir, &o).map(drop)
}

pub(crate) fn create_dir(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    let p = Place::of(dir, o)?;
    match rfs::mkdirat(&p.dir, &p.name, mode(o.dir_mode)) {
        Ok(()) => Ok(()),
        Err(Errno::EXIST) => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{}: already exists", dir.display()),
        )),
        Err(e) => Err(os(dir, e)),
    }
}

pub(crate) fn create_private_dir(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    let o = Options {
        create_parents: true,
        ..*o
    };
    let fd = match o.base {
        Some(_) => open_dir(dir, &o)?,
        // The last folder is still never a link: it is the one made private.
        None => {
            let (parent, name) = crate::split(dir)?;
            let parent = open_dir(parent, &o)?;
            step(&parent, name, dir, parent_path(dir), &o)?
        }
    };
    rfs::fchmod(&fd, Mode::RWXU).map_err(|e| os(dir, e))
}

fn parent_path(dir: &Path) -> &Path {
    dir.parent().unwrap_or(Path::new("."))
}

pub(crate) fn read_existing(
    path: &Path,
    o: &Options<'_>,
    limit: u64,
) -> io::Result<Option<Vec<u8>>> {
    let o = Options {
        create_parents: false,
        ..*o
    };
    let p = match Place::of(path, &o) {
        Ok(p) => p,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if let Found::Nothing = p.look()? {
        return Ok(None);
    }
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = match rfs::openat(&p.dir, &p.name, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(p.look().err().unwrap_or_else(|| os(path, e))),
    };
    check(&rfs::fstat(&fd).map_err(|e| os(path, e))?, path)?;
    let mut buf = Vec::new();
    File::from(fd)
        .take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| with_path(path, e))?;
    if buf.len() as u64 > limit {
        return Err(too_large(path, limit));
    }
    Ok(Some(buf))
}

pub(crate) fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    let (fd, fname) = split(from)?;
    let (td, tname) = split(to)?;
    let fdir = open_plain(fd)?;
    let tdir = open_plain(td)?;
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    match rfs::renameat_with(&fdir, fname, &tdir, tname, rfs::RenameFlags::NOREPLACE) {
        Ok(()) => return Ok(()),
        Err(Errno::EXIST) => return Err(exists(to)),
        // A file system without the flag: the link below does the same.
        Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => {}
        Err(e) => return Err(os(from, e)),
    }
    match rfs::linkat(&fdir, fname, &tdir, tname, AtFlags::empty()) {
        Ok(()) => rfs::unlinkat(&fdir, fname, AtFlags::empty()).map_err(|e| os(from, e)),
        Err(Errno::EXIST) => Err(exists(to)),
        Err(e) => Err(os(from, e)),
    }
}
