//! The writer with the standard library alone, for systems without the Unix folder-relative
//! calls (Windows). The same checks, made on paths: a folder swapped for a link between the
//! check and the write is not caught here, which the Unix writer does catch. Built on Unix too
//! for its tests.

use crate::{
    ATTEMPTS, Kind, Options, below, exists, hard_linked, link_on_the_way, link_target,
    not_a_folder, not_regular, split, temp_name, too_large, with_path,
};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

fn kind(m: &fs::Metadata) -> Kind {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return Kind::Fifo;
        }
        if t.is_socket() {
            return Kind::Socket;
        }
        if t.is_char_device() {
            return Kind::CharDevice;
        }
        if t.is_block_device() {
            return Kind::BlockDevice;
        }
    }
    if m.is_dir() {
        Kind::Folder
    } else {
        Kind::Other
    }
}

enum Found {
    Nothing,
    File(fs::Permissions, u64),
}

fn look(target: &Path) -> io::Result<Found> {
    match fs::symlink_metadata(target) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Found::Nothing),
        Err(e) => Err(with_path(target, e)),
        Ok(m) if m.file_type().is_symlink() => Err(link_target(target)),
        Ok(m) if m.is_file() => Ok(Found::File(m.permissions(), links(&m))),
        Ok(m) => Err(not_regular(target, kind(&m))),
    }
}

#[cfg(unix)]
fn links(m: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(m)
}

#[cfg(not(unix))]
fn links(_: &fs::Metadata) -> u64 {
    1
}

fn new_dir(dir: &Path, bits: u32) -> io::Result<()> {
    let mut b = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, bits);
    #[cfg(not(unix))]
    let _ = bits;
    match b.create(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(with_path(dir, e)),
        _ => Ok(()),
    }
}

/// Checks (and creates, per `o`) the folders down to `dir`.
fn ensure_dir(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    let Some(base) = o.base else {
        return match fs::metadata(dir) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(not_a_folder(dir)),
            Err(e) if e.kind() == io::ErrorKind::NotFound && o.create_parents => {
                let mut b = fs::DirBuilder::new();
                b.recursive(true);
                #[cfg(unix)]
                std::os::unix::fs::DirBuilderExt::mode(&mut b, o.dir_mode);
                b.create(dir).map_err(|e| with_path(dir, e))
            }
            Err(e) => Err(with_path(dir, e)),
        };
    };
    let mut shown = base.to_path_buf();
    for name in below(dir, base)? {
        shown.push(name);
        match fs::symlink_metadata(&shown) {
            Ok(m) if m.file_type().is_symlink() => return Err(link_on_the_way(&shown, base)),
            Ok(m) if !m.is_dir() => return Err(not_a_folder(&shown)),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound && o.create_parents => {
                new_dir(&shown, o.dir_mode)?;
            }
            Err(e) => return Err(with_path(&shown, e)),
        }
    }
    Ok(())
}

pub(crate) struct Pending {
    target: PathBuf,
    temp: Option<PathBuf>,
    file: Option<File>,
    replace: bool,
}

fn create_excl(path: &Path, bits: u32) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, bits);
    #[cfg(not(unix))]
    let _ = bits;
    o.open(path)
}

impl Pending {
    pub(crate) fn new(target: &Path, o: &Options<'_>, replace: bool) -> io::Result<Pending> {
        let (dir, _) = split(target)?;
        ensure_dir(dir, o)?;
        let keep = match look(target)? {
            Found::File(..) if !replace => return Err(exists(target)),
            Found::File(perms, _) if o.keep_mode => Some(perms),
            _ => None,
        };
        for _ in 0..ATTEMPTS {
            let temp = dir.join(temp_name()?);
            match create_excl(&temp, o.mode) {
                Ok(file) => {
                    let p = Pending {
                        target: target.to_path_buf(),
                        temp: Some(temp),
                        file: Some(file),
                        replace,
                    };
                    if let Some(perms) = keep {
                        p.file
                            .as_ref()
                            .expect("just created")
                            .set_permissions(perms)
                            .map_err(|e| with_path(&p.temp_path(), e))?;
                    }
                    return Ok(p);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(with_path(&temp, e)),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{}: no free temporary name after {ATTEMPTS} tries",
                dir.display()
            ),
        ))
    }

    pub(crate) fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until commit")
    }

    pub(crate) fn temp_path(&self) -> PathBuf {
        self.temp.clone().unwrap_or_default()
    }

    pub(crate) fn commit(mut self) -> io::Result<()> {
        let file = self.file.take().expect("open until commit");
        let temp = self.temp.clone().expect("present until commit");
        file.sync_all().map_err(|e| with_path(&temp, e))?;
        drop(file);
        if self.replace {
            // Checked again just before: the rename itself would replace a link as an entry.
            look(&self.target)?;
            fs::rename(&temp, &self.target).map_err(|e| with_path(&self.target, e))?;
        } else {
            match fs::hard_link(&temp, &self.target) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(exists(&self.target));
                }
                r => r.map_err(|e| with_path(&self.target, e))?,
            }
            let _ = fs::remove_file(&temp);
        }
        self.temp = None;
        Ok(())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(t) = &self.temp {
            let _ = fs::remove_file(t);
        }
    }
}

pub(crate) fn create_new(target: &Path, o: &Options<'_>) -> io::Result<File> {
    let (dir, _) = split(target)?;
    ensure_dir(dir, o)?;
    if let Found::File(..) = look(target)? {
        return Err(exists(target));
    }
    match create_excl(target, o.mode) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => look(target).and(Err(exists(target))),
        r => r.map_err(|e| with_path(target, e)),
    }
}

pub(crate) fn append(target: &Path, o: &Options<'_>) -> io::Result<File> {
    let (dir, _) = split(target)?;
    ensure_dir(dir, o)?;
    if let Found::File(_, n) = look(target)?
        && n > 1
    {
        return Err(hard_linked(target));
    }
    let mut opts = OpenOptions::new();
    opts.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(o.mode);
    }
    let f = opts.open(target).map_err(|e| with_path(target, e))?;
    let m = f.metadata().map_err(|e| with_path(target, e))?;
    if !m.is_file() {
        return Err(not_regular(target, kind(&m)));
    }
    Ok(f)
}

pub(crate) fn create_dir_all(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    ensure_dir(
        dir,
        &Options {
            create_parents: true,
            ..*o
        },
    )
}

pub(crate) fn create_dir(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    let (parent, _) = split(dir)?;
    ensure_dir(parent, o)?;
    if fs::symlink_metadata(dir).is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{}: already exists", dir.display()),
        ));
    }
    let mut b = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, o.dir_mode);
    b.create(dir).map_err(|e| with_path(dir, e))
}

pub(crate) fn create_private_dir(dir: &Path, o: &Options<'_>) -> io::Result<()> {
    create_dir_all(dir, o)?;
    let m = fs::symlink_metadata(dir).map_err(|e| with_path(dir, e))?;
    if m.file_type().is_symlink() {
        return Err(link_on_the_way(dir, dir.parent().unwrap_or(dir)));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| with_path(dir, e))?;
    }
    Ok(())
}

pub(crate) fn read_existing(
    path: &Path,
    o: &Options<'_>,
    limit: u64,
) -> io::Result<Option<Vec<u8>>> {
    let (dir, _) = split(path)?;
    match ensure_dir(
        dir,
        &Options {
            create_parents: false,
            ..*o
        },
    ) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        r => r?,
    }
    if let Found::Nothing = look(path)? {
        return Ok(None);
    }
    let f = File::open(path).map_err(|e| with_path(path, e))?;
    let m = f.metadata().map_err(|e| with_path(path, e))?;
    if !m.is_file() {
        return Err(not_regular(path, kind(&m)));
    }
    let mut buf = Vec::new();
    f.take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| with_path(path, e))?;
    if buf.len() as u64 > limit {
        return Err(too_large(path, limit));
    }
    Ok(Some(buf))
}

pub(crate) fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    if fs::symlink_metadata(to).is_ok() {
        return Err(exists(to));
    }
    fs::rename(from, to).map_err(|e| with_path(from, e))
}
