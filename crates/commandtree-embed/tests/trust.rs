//! A model folder inside a workspace is the workspace's to craft: each test plants a modified
//! copy of all-MiniLM-L6-v2 where `ct search` looks (`.commandtree/models/all-MiniLM-L6-v2/`)
//! and checks that loading it gives an error naming the file, never an abort, a panic or a
//! memory fault.

// The workspace's one rule for a test that needs a tool or the model: skipped with a note
// outside CI, a failure under it.
#[path = "../../ct/tests/it/support/skip.rs"]
mod skip;

use commandtree_embed::{Embedder, model};
use std::path::{Path, PathBuf};

/// The model of `scripts/fetch-test-model.sh`; missing, the test is skipped.
fn real_model() -> Option<PathBuf> {
    let found = model::find(&std::env::temp_dir().join("ct-no-such-root"));
    if found.is_none() {
        skip::skip("the all-MiniLM-L6-v2 model is missing (bash scripts/fetch-test-model.sh)");
    }
    found
}

/// A workspace holding a copy of the model; `model.safetensors` is copied too (not linked), so
/// a test can truncate it. The workspace is removed when the returned guard is dropped.
fn planted(name: &str, real: &Path) -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::Builder::new()
        .prefix(&format!("ct-trust-{name}-"))
        .tempdir()
        .unwrap();
    let root = scratch.path();
    let dir = root.join(".commandtree/models/all-MiniLM-L6-v2");
    std::fs::create_dir_all(&dir).unwrap();
    for f in model::FILES {
        std::fs::copy(real.join(f.name), dir.join(f.name)).unwrap();
    }
    assert!(model::search_dirs(root).contains(&dir), "where ct looks");
    (scratch, dir)
}

#[test]
fn a_crafted_config_is_refused_before_anything_is_allocated() {
    let Some(real) = real_model() else { return };
    let (_scratch, dir) = planted("config", &real);
    // The config that once aborted with a 416 PB allocation.
    let text = std::fs::read_to_string(dir.join("config.json"))
        .unwrap()
        .replace("\"vocab_size\": 30522", "\"vocab_size\": 300000000000000");
    std::fs::write(dir.join("config.json"), text).unwrap();
    let err = Embedder::load(&dir).err().expect("refused");
    assert!(err.to_string().contains("config.json"), "{err}");
    assert!(
        err.to_string().contains("SHA-256") || err.to_string().contains("bytes"),
        "{err}"
    );
}

#[test]
fn a_crafted_vocabulary_is_refused() {
    let Some(real) = real_model() else { return };
    let (_scratch, dir) = planted("vocab", &real);
    // "hello" mapped past the embedding table: the id that once panicked.
    let text = std::fs::read_to_string(dir.join("tokenizer.json"))
        .unwrap()
        .replace("\"hello\":7592", "\"hello\":9999999");
    assert!(text.contains("9999999"), "the vocabulary was changed");
    std::fs::write(dir.join("tokenizer.json"), text).unwrap();
    let err = Embedder::load(&dir).err().expect("refused");
    assert!(err.to_string().contains("tokenizer.json"), "{err}");
}

#[test]
fn truncated_weights_are_refused() {
    let Some(real) = real_model() else { return };
    let (_scratch, dir) = planted("truncated", &real);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("model.safetensors"))
        .unwrap();
    f.set_len(1 << 20).unwrap();
    drop(f);
    let err = Embedder::load(&dir).err().expect("refused");
    assert!(err.to_string().contains("model.safetensors"), "{err}");
}

#[test]
fn weights_outside_the_cache_are_copied_so_truncating_them_later_is_harmless() {
    let Some(real) = real_model() else { return };
    let (_scratch, dir) = planted("late-truncation", &real);
    let e = Embedder::load(&dir).unwrap();
    let before = e.embed_one("zebra xylophone quantum").unwrap();
    // A mapped file truncated now would fault (SIGBUS) on the next embedding-row read.
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("model.safetensors"))
        .unwrap()
        .set_len(0)
        .unwrap();
    let after = e.embed_one("zebra xylophone quantum").unwrap();
    assert_eq!(before, after);
}

#[test]
fn a_file_changed_in_place_is_hashed_again_even_with_its_old_size_and_time() {
    let Some(real) = real_model() else { return };
    let (_scratch, dir) = planted("in-place", &real);
    model::verify(&dir).unwrap();
    // Verified once: now remembered. Same size, same modification time, other content.
    let path = dir.join("config.json");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"num_hidden_layers\": 6", "\"num_hidden_layers\": 9");
    std::fs::write(&path, text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
    let err = model::verify(&dir).unwrap_err();
    assert!(err.to_string().contains("config.json"), "{err}");
}
