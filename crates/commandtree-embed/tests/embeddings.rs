//! The embedder against vectors computed by sentence-transformers itself
//! (`tests/data/reference.json`, written by `scripts/make-reference-embeddings.py`), with every
//! kernel version this CPU can run, one text at a time and in mixed batches; and the model
//! download against a real HTTP server on loopback.

#[path = "../../commandtree-llm/tests/common/mod.rs"]
mod common;
// The workspace's one rule for a test that needs a tool or the model: skipped with a note
// outside CI, a failure under it.
#[path = "../../ct/tests/it/support/skip.rs"]
mod skip;

use commandtree_embed::{self as embed, DIM, Embedder, Kernels, model};
use std::path::PathBuf;

/// The model fetched by `scripts/fetch-test-model.sh`; missing, the test is skipped (under CI,
/// where the test script fetches it first, that is a failure).
fn model_dir() -> Option<PathBuf> {
    let found = model::find(&std::env::temp_dir().join("ct-no-such-root"));
    if found.is_none() {
        skip::skip("the all-MiniLM-L6-v2 model is missing (bash scripts/fetch-test-model.sh)");
    }
    found
}

struct Reference {
    text: String,
    tokens: usize,
    vector: Vec<f32>,
}

fn references() -> Vec<Reference> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/reference.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| Reference {
            text: s["text"].as_str().unwrap().to_string(),
            tokens: s["tokens"].as_u64().unwrap() as usize,
            vector: base64(s["f32le"].as_str().unwrap())
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect(),
        })
        .collect()
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let mut out = Vec::new();
    for chunk in s.trim_end_matches('=').as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c) << (18 - 6 * i);
        }
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..chunk.len() - 1]);
    }
    out
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let na: f64 = a.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

#[test]
fn reference_set_is_varied_enough() {
    let refs = references();
    assert!(refs.len() >= 20);
    assert!(refs.iter().any(|r| r.text.is_empty()));
    assert!(
        refs.iter().any(|r| r.tokens == 256),
        "a text beyond 256 tokens"
    );
    assert!(refs.iter().any(|r| !r.text.is_ascii()));
    assert!(refs.iter().all(|r| r.vector.len() == DIM));
}

#[test]
fn embeddings_match_sentence_transformers_with_every_kernel() {
    let Some(dir) = model_dir() else { return };
    let refs = references();
    let texts: Vec<&str> = refs.iter().map(|r| r.text.as_str()).collect();
    // The kernels in between (AVX2 on an AVX-512 machine) are checked by the crate's unit test
    // `every_instruction_set_matches_the_reference`.
    for kernels in [Kernels::Best, Kernels::Portable] {
        let e = Embedder::load_with(&dir, kernels).unwrap();
        let isa = e.isa();
        for (r, text) in refs.iter().zip(&texts) {
            assert_eq!(
                e.tokenize(text).unwrap().len(),
                r.tokens,
                "token count of {text:?}"
            );
        }
        // All at once (sorted, split between threads), one at a time (a team of threads on one
        // sequence), and on one thread.
        let batch = e.embed(&texts).unwrap();
        let single: Vec<_> = texts.iter().map(|t| e.embed_one(t).unwrap()).collect();
        let one_thread = Embedder::load_with(&dir, kernels)
            .unwrap()
            .with_threads(1)
            .embed(&texts)
            .unwrap();
        let mut worst = 1.0f64;
        for (i, r) in refs.iter().enumerate() {
            for (how, v) in [
                ("batch", &batch[i]),
                ("single", &single[i]),
                ("one thread", &one_thread[i]),
            ] {
                let c = cosine(v, &r.vector);
                assert!(c >= 0.999, "{isa} {how}: cosine {c} for {:?}", r.text);
                let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                assert!((norm - 1.0).abs() < 1e-5, "normalised");
                worst = worst.min(c);
            }
        }
        eprintln!("{isa}: min cosine {worst:.12} over {} texts", refs.len());
        assert!(
            worst > 0.999_999,
            "{isa}: far closer than the bar in practice ({worst})"
        );
    }
}

#[test]
fn batches_of_repeated_and_uneven_texts_keep_their_order() {
    let Some(dir) = model_dir() else { return };
    let e = Embedder::load(&dir).unwrap();
    let texts: Vec<String> = (0..70)
        .map(|i| format!("{} {}", "run the tests".repeat(i % 9 + 1), i))
        .collect();
    let all = e.embed(&texts).unwrap();
    for i in [0, 1, 33, 69] {
        let one = e.embed_one(&texts[i]).unwrap();
        assert!(cosine(&all[i], &one) > 0.999_999, "text {i}");
    }
    assert!(e.embed::<&str>(&[]).unwrap().is_empty());
}

#[test]
fn model_is_looked_up_in_the_workspace_then_the_cache() {
    let root = std::env::temp_dir().join("ct-embed-lookup");
    let dirs = model::search_dirs(&root);
    let ws = root.join(".commandtree/models/all-MiniLM-L6-v2");
    let at = dirs
        .iter()
        .position(|d| *d == ws)
        .expect("the workspace folder");
    assert_eq!(dirs.len() - at, 2, "then only the cache: {dirs:?}");
    assert!(dirs[at + 1].ends_with("commandtree/models/all-MiniLM-L6-v2"));
}

#[test]
fn download_verifies_size_and_checksum_and_leaves_no_partial_file() {
    let server = common::Server::start(|req, _| match req.path.as_str() {
        "/m/a.json" => common::Reply::raw(200, "{\"x\": 1}\n"),
        "/m/b.txt" => common::Reply::raw(200, "hello model\n"),
        _ => common::Reply::raw(404, "not found"),
    });
    let scratch = tempfile::Builder::new()
        .prefix("ct-embed-dl-")
        .tempdir()
        .unwrap();
    let dest = scratch.path().join("model");
    let sha = |s: &str| {
        use sha2::Digest;
        model::hex(&sha2::Sha256::digest(s.as_bytes()))
    };
    let a_sha = sha("{\"x\": 1}\n");
    let b_sha = sha("hello model\n");
    let files = [
        model::ModelFile {
            name: "a.json",
            size: 9,
            sha256: Box::leak(a_sha.clone().into_boxed_str()),
            required: true,
        },
        model::ModelFile {
            name: "b.txt",
            size: 12,
            sha256: Box::leak(b_sha.into_boxed_str()),
            required: true,
        },
    ];
    let base = format!("{}/m", server.host());
    let mut seen = Vec::new();
    model::download(&base, &files, &dest, &mut |p| {
        seen.push((p.file.to_string(), p.done, p.total))
    })
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(dest.join("b.txt")).unwrap(),
        "hello model\n"
    );
    assert!(seen.contains(&("b.txt".to_string(), 12, 12)), "{seen:?}");
    // Present with the right size: not fetched again.
    let before = server.count();
    model::download(&base, &files, &dest, &mut |_| {}).unwrap();
    assert_eq!(server.count(), before);

    // A wrong checksum: an error naming both hashes, and nothing left behind.
    let bad = [model::ModelFile {
        name: "b.txt",
        size: 12,
        sha256: Box::leak(a_sha.into_boxed_str()),
        required: true,
    }];
    let other = dest.join("other");
    let err = model::download(&base, &bad, &other, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("does not match"), "{err}");
    assert_eq!(
        std::fs::read_dir(&other).unwrap().count(),
        0,
        "no partial file"
    );
    // Missing on the server.
    let missing = [model::ModelFile {
        name: "c.bin",
        size: 3,
        sha256: "00",
        required: true,
    }];
    let err = model::download(&base, &missing, &other, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("404"), "{err}");
}

#[test]
fn blobs_are_1536_little_endian_bytes() {
    let mut v = [0f32; DIM];
    v[1] = 0.5;
    let b = embed::to_blob(&v);
    assert_eq!(b.len(), 1536);
    assert_eq!(&b[4..8], &[0, 0, 0, 0x3f]);
}
