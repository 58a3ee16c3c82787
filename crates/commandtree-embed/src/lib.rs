//! Local sentence embeddings with all-MiniLM-L6-v2, identical to what sentence-transformers
//! produces: WordPiece tokens from the model's `tokenizer.json` (truncated at the model's
//! `max_seq_length`, 256, and never padded), the BERT encoder, mean pooling over the tokens and
//! L2 normalisation. The result is 384 f32 values, stored little-endian as the 1536-byte
//! `embedding` BLOB of the `commands` table.
//!
//! Pure Rust: the encoder is our own (`bert`, `kernels`), so a plain `cargo build` gives a
//! working binary with no native library and no ONNX file.

mod bert;
mod kernels;
pub mod model;
pub mod pipeline;
mod safetensors;
pub mod search;
mod view;

use bert::{Bert, Scratch};
use kernels::Isa;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Values per embedding.
pub const DIM: usize = 384;
/// Bytes of the stored BLOB.
pub const BLOB_LEN: usize = DIM * 4;

pub type Vector = [f32; DIM];

/// Sequences per sub-batch. Larger batches gain nothing (no padding is ever computed) and
/// need more memory.
const MAX_BATCH: usize = 32;
/// Tokens per sub-batch, bounding the activations (about 12 KiB per token).
const MAX_BATCH_TOKENS: usize = 4096;

/// Which kernels an [`Embedder`] runs. The instruction set itself is detected inside this crate
/// (once per process), so no caller can pick instructions the CPU lacks; the portable kernels
/// run everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kernels {
    /// The fastest this CPU supports (AVX-512, AVX2+FMA or portable), lowered by
    /// `COMMANDTREE_EMBED_ISA=portable|avx2`.
    #[default]
    Best,
    /// Plain Rust loops: valid on every CPU and under Valgrind.
    Portable,
}

/// An embedding failure: one line naming the file and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    pub fn at(path: &Path, reason: impl std::fmt::Display) -> Error {
        Error(format!("{}: {reason}", path.display()))
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// A loaded model. Cheap to share between threads (`&Embedder` is `Sync`).
pub struct Embedder {
    dir: PathBuf,
    tokenizer: tokenizers::Tokenizer,
    bert: Bert,
    threads: usize,
    max_len: usize,
    scratch: Mutex<Vec<Scratch>>,
}

impl Embedder {
    /// Loads the model in `dir` (`config.json`, `tokenizer.json`, `model.safetensors`, and
    /// optionally `sentence_bert_config.json`) after checking every file is the pinned
    /// all-MiniLM-L6-v2 file ([`model::verify`]). About 0.1 s once verified: the weights are
    /// memory-mapped (in the user cache; read elsewhere) and repacked once.
    pub fn load(dir: &Path) -> Result<Embedder, Error> {
        Self::load_with(dir, Kernels::Best)
    }

    /// As `load`, with the kernels asked for.
    pub fn load_with(dir: &Path, kernels: Kernels) -> Result<Embedder, Error> {
        model::verify(dir)?;
        let isa = match kernels {
            Kernels::Best => Isa::detected(),
            Kernels::Portable => Isa::portable(),
        };
        Self::load_with_isa(dir, isa)
    }

    /// Loads without verifying the files: everything read is still checked (sizes, token ids),
    /// so a wrong file gives an error, never a crash.
    fn load_with_isa(dir: &Path, isa: Isa) -> Result<Embedder, Error> {
        let bert = Bert::load(
            &dir.join("config.json"),
            &dir.join("model.safetensors"),
            isa,
            model::is_cache(dir),
        )?;
        if bert.hidden != DIM {
            return Err(Error::at(
                &dir.join("config.json"),
                format!("hidden_size is {}, expected {DIM}", bert.hidden),
            ));
        }
        let max_len = max_seq_length(dir)?.clamp(2, bert.max_positions);
        let tokenizer = load_tokenizer(&dir.join("tokenizer.json"), max_len)?;
        // Every id the tokenizer can produce indexes the embedding table.
        let vocab = bert.vocab_size();
        if let Some((token, id)) = tokenizer
            .get_vocab(true)
            .into_iter()
            .find(|(_, id)| *id as usize >= vocab)
        {
            return Err(Error::at(
                &dir.join("tokenizer.json"),
                format!("token {token:?} has id {id}, beyond the model's {vocab} embeddings"),
            ));
        }
        let threads = std::env::var("COMMANDTREE_EMBED_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        Ok(Embedder {
            dir: dir.to_path_buf(),
            tokenizer,
            bert,
            threads,
            max_len,
            scratch: Mutex::new(Vec::new()),
        })
    }

    /// Uses at most `n` threads (default: the CPUs this process may use).
    pub fn with_threads(mut self, n: usize) -> Embedder {
        self.threads = n.max(1);
        self
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The instruction set the kernels use on this CPU (`avx512`, `avx2` or `portable`).
    pub fn isa(&self) -> &'static str {
        self.bert.isa.name()
    }

    /// Tokens per sequence (special tokens included, truncation applied).
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Token ids of `text` as the model sees it: `[CLS] … [SEP]`, truncated.
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>, Error> {
        let enc = self
            .tokenizer
            .encode_fast(text, true)
            .map_err(|e| Error(format!("tokenizing {:?}: {e}", crate::short(text))))?;
        let ids = enc.get_ids();
        // The post-processor's special tokens are ids of their own, outside the vocabulary
        // checked at load time.
        let vocab = self.bert.vocab_size();
        if let Some(id) = ids.iter().find(|&&id| id as usize >= vocab) {
            return Err(Error::at(
                &self.dir.join("tokenizer.json"),
                format!("token id {id} is beyond the model's {vocab} embeddings"),
            ));
        }
        Ok(ids.to_vec())
    }

    pub fn embed_one(&self, text: &str) -> Result<Vector, Error> {
        Ok(self.embed(&[text])?.remove(0))
    }

    /// Embeds `texts` (any number), in order. Sequences are sorted by length and cut into
    /// sub-batches of similar length that the threads take in turn; the steps of a single
    /// text are shared by all threads.
    pub fn embed<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<Vector>, Error> {
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| self.tokenize(t.as_ref()))
            .collect::<Result<_, _>>()?;
        let mut out = vec![[0f32; DIM]; texts.len()];
        if texts.is_empty() {
            return Ok(out);
        }
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids[i].len()));
        let threads = self.threads;
        if threads == 1 || texts.len() == 1 {
            // One sequence (or one thread): every thread works on each step of it.
            let chunks = chunks(&order, &ids, usize::MAX);
            let mut scratch = self.take_scratch(threads);
            for chunk in &chunks {
                self.run_chunk(chunk, &ids, threads, &mut scratch, &mut out);
            }
            self.give_back(scratch);
            return Ok(out);
        }
        // Several sequences: sub-batches that the threads take in turn, with no synchronisation
        // at all (measured faster than sharing each step from 8 sequences up, and level below).
        // Two sub-batches per thread when they stay at 8 sequences or more, so a thread the OS
        // deschedules on a busy machine holds back less of the batch.
        let per_thread = texts
            .len()
            .div_ceil(threads * 2)
            .max(texts.len().div_ceil(threads).min(8));
        let chunks = chunks(&order, &ids, per_thread);
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(usize, Vector)>> = Mutex::new(Vec::with_capacity(texts.len()));
        std::thread::scope(|s| {
            let work = || {
                let mut scratch = self.take_scratch(1);
                let mut local = vec![[0f32; DIM]; 0];
                loop {
                    let c = next.fetch_add(1, Ordering::Relaxed);
                    let Some(chunk) = chunks.get(c) else { break };
                    local.clear();
                    local.resize(chunk.len(), [0f32; DIM]);
                    let seqs: Vec<&[u32]> = chunk.iter().map(|&i| ids[i].as_slice()).collect();
                    self.bert
                        .forward(&seqs, 1, &mut scratch, local.as_flattened_mut());
                    let mut r = results.lock().expect("no panics while holding it");
                    r.extend(chunk.iter().copied().zip(local.iter().copied()));
                }
                self.give_back(scratch);
            };
            for _ in 1..threads.min(chunks.len()) {
                s.spawn(work);
            }
            work();
        });
        for (i, v) in results.into_inner().expect("threads finished") {
            out[i] = v;
        }
        Ok(out)
    }

    fn run_chunk(
        &self,
        chunk: &[usize],
        ids: &[Vec<u32>],
        team: usize,
        scratch: &mut [Scratch],
        out: &mut [Vector],
    ) {
        let seqs: Vec<&[u32]> = chunk.iter().map(|&i| ids[i].as_slice()).collect();
        let mut local = vec![[0f32; DIM]; chunk.len()];
        self.bert
            .forward(&seqs, team, scratch, local.as_flattened_mut());
        for (&i, v) in chunk.iter().zip(local) {
            out[i] = v;
        }
    }

    fn take_scratch(&self, n: usize) -> Vec<Scratch> {
        let mut pool = self.scratch.lock().expect("no panics while holding it");
        let mut v: Vec<Scratch> = Vec::with_capacity(n);
        while v.len() < n {
            v.push(pool.pop().unwrap_or_default());
        }
        v
    }

    fn give_back(&self, scratch: Vec<Scratch>) {
        let mut pool = self.scratch.lock().expect("no panics while holding it");
        // Enough for every thread; more would only hold memory.
        if pool.len() < self.threads * 2 {
            pool.extend(scratch);
        }
    }
}

/// Cuts the length-sorted `order` into sub-batches of at most `per` sequences (and
/// `MAX_BATCH` / `MAX_BATCH_TOKENS`), so sequences of similar length go together.
fn chunks(order: &[usize], ids: &[Vec<u32>], per: usize) -> Vec<Vec<usize>> {
    let per = per.clamp(1, MAX_BATCH);
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    let mut tokens = 0;
    for &i in order {
        let n = ids[i].len();
        if !cur.is_empty() && (cur.len() == per || tokens + n > MAX_BATCH_TOKENS) {
            out.push(std::mem::take(&mut cur));
            tokens = 0;
        }
        cur.push(i);
        tokens += n;
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `max_seq_length` from `sentence_bert_config.json` (256 for all-MiniLM-L6-v2), which is what
/// sentence-transformers truncates at, whatever `tokenizer.json` says.
fn max_seq_length(dir: &Path) -> Result<usize, Error> {
    let p = dir.join("sentence_bert_config.json");
    let Ok(text) = std::fs::read_to_string(&p) else {
        return Ok(model::MAX_SEQ_LENGTH);
    };
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::at(&p, e))?;
    Ok(v.get("max_seq_length")
        .and_then(|m| m.as_u64())
        .map_or(model::MAX_SEQ_LENGTH, |m| m as usize))
}

/// The tokenizer with sentence-transformers' settings. The shipped `tokenizer.json` truncates at
/// 128 and pads every input to 128; keeping either changes the vectors of long texts (cosine
/// 0.94 on a 600-token text), so both are replaced.
fn load_tokenizer(path: &Path, max_len: usize) -> Result<tokenizers::Tokenizer, Error> {
    let mut t = tokenizers::Tokenizer::from_file(path).map_err(|e| Error::at(path, e))?;
    t.with_padding(None);
    t.with_truncation(Some(tokenizers::TruncationParams {
        max_length: max_len,
        ..Default::default()
    }))
    .map_err(|e| Error::at(path, e))?;
    Ok(t)
}

/// The stored form: 384 little-endian f32.
pub fn to_blob(v: &Vector) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A stored BLOB back to a vector; `None` unless it is exactly 1536 bytes.
pub fn from_blob(b: &[u8]) -> Option<Vector> {
    if b.len() != BLOB_LEN {
        return None;
    }
    let mut v = [0f32; DIM];
    for (x, c) in v.iter_mut().zip(b.chunks_exact(4)) {
        *x = f32::from_le_bytes(c.try_into().expect("4 bytes"));
    }
    Some(v)
}

/// The start of a text, for messages.
pub(crate) fn short(text: &str) -> String {
    commandtree_core::text::truncate(text, 40)
}

// The workspace's one rule for a test that needs the model: skipped with a note outside CI,
// a failure under it.
#[cfg(test)]
#[path = "../../ct/tests/it/support/skip.rs"]
mod skip;

#[cfg(test)]
mod tests {
    use super::*;

    /// The model of `scripts/fetch-test-model.sh`, as the integration tests find it; missing,
    /// the test is skipped.
    pub(crate) fn test_model() -> Option<PathBuf> {
        let found = model::find(&std::env::temp_dir().join("ct-no-such-root"));
        if found.is_none() {
            crate::skip::skip(
                "the all-MiniLM-L6-v2 model is missing (bash scripts/fetch-test-model.sh)",
            );
        }
        found
    }

    /// (text, vector) of `tests/data/reference.json`.
    fn reference() -> Vec<(String, Vec<f32>)> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/reference.json");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let b64 = |s: &str| -> Vec<u8> {
            let val = |c: u8| match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                _ => 63,
            } as u32;
            let mut out = Vec::new();
            for chunk in s.trim_end_matches('=').as_bytes().chunks(4) {
                let n = chunk
                    .iter()
                    .enumerate()
                    .fold(0u32, |n, (i, &c)| n | val(c) << (18 - 6 * i));
                out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
            }
            out
        };
        doc["sentences"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let v = b64(s["f32le"].as_str().unwrap())
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                    .collect();
                (s["text"].as_str().unwrap().to_string(), v)
            })
            .collect()
    }

    /// A folder with the real model's files, `edit` applied to the text of `file`; loaded
    /// without the SHA-256 check, to test the checks behind it.
    fn crafted(
        name: &str,
        file: &str,
        edit: impl Fn(String) -> String,
    ) -> Option<Result<Embedder, Error>> {
        let real = test_model()?;
        let scratch = tempfile::Builder::new()
            .prefix(&format!("ct-crafted-{name}-"))
            .tempdir()
            .unwrap();
        let dir = scratch.path();
        for f in model::FILES {
            std::fs::copy(real.join(f.name), dir.join(f.name)).unwrap();
        }
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let changed = edit(text.clone());
        assert_ne!(changed.len(), text.len(), "the edit applies");
        std::fs::write(dir.join(file), changed).unwrap();
        let r = Embedder::load_with_isa(dir, Isa::detected());
        Some(r)
    }

    #[test]
    fn unverified_files_are_still_checked_before_use() {
        let huge =
            |t: String| t.replace("\"vocab_size\": 30522", "\"vocab_size\": 300000000000000");
        if let Some(r) = crafted("config", "config.json", huge) {
            let err = r.err().expect("refused");
            assert!(err.0.contains("vocab_size is 300000000000000"), "{err}");
        }
        let far = |t: String| t.replace("\"hello\":7592", "\"hello\":9999999");
        if let Some(r) = crafted("vocab", "tokenizer.json", far) {
            let err = r.err().expect("refused");
            assert!(err.0.contains("\"hello\" has id 9999999"), "{err}");
        }
        // A special token's id comes from the post-processor, not the vocabulary.
        let cls = |t: String| t.replace("\"ids\":[101]", "\"ids\":[888888]");
        if let Some(r) = crafted("special", "tokenizer.json", cls) {
            let err = r.unwrap().tokenize("hi").unwrap_err();
            assert!(err.0.contains("token id 888888"), "{err}");
        }
    }

    #[test]
    fn every_instruction_set_matches_the_reference() {
        let Some(dir) = test_model() else { return };
        let refs = reference();
        assert!(refs.len() >= 20 && refs.iter().all(|(_, v)| v.len() == DIM));
        let texts: Vec<&str> = refs.iter().map(|(t, _)| t.as_str()).collect();
        for isa in Isa::supported() {
            let e = Embedder::load_with_isa(&dir, isa).unwrap();
            assert_eq!(e.isa(), isa.name());
            let check = |got: &Vector, text: &str, want: &[f32]| {
                let dot: f64 = got
                    .iter()
                    .zip(want)
                    .map(|(a, b)| *a as f64 * *b as f64)
                    .sum();
                let norm: f64 = want.iter().map(|b| (*b as f64).powi(2)).sum::<f64>().sqrt();
                assert!(
                    dot / norm >= 0.999_999,
                    "{}: {dot} for {text:?}",
                    isa.name()
                );
            };
            // A batch (a sub-batch per thread) and the longest text alone (every thread on
            // each step of it: the views handed to threads).
            for (got, (text, want)) in e.embed(&texts).unwrap().iter().zip(&refs) {
                check(got, text, want);
            }
            let (text, want) = refs.iter().max_by_key(|(t, _)| t.len()).unwrap();
            check(&e.with_threads(2).embed_one(text).unwrap(), text, want);
        }
    }

    #[test]
    fn blobs_round_trip_and_reject_other_sizes() {
        let mut v = [0f32; DIM];
        v[0] = 1.5;
        v[383] = -0.25;
        let b = to_blob(&v);
        assert_eq!(b.len(), BLOB_LEN);
        assert_eq!(&b[..4], &1.5f32.to_le_bytes());
        assert_eq!(from_blob(&b), Some(v));
        assert_eq!(from_blob(&b[..1535]), None);
    }

    #[test]
    fn chunks_group_similar_lengths_within_limits() {
        let ids: Vec<Vec<u32>> = [5, 300, 7, 6, 250].iter().map(|&n| vec![0; n]).collect();
        let mut order: Vec<usize> = (0..5).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids[i].len()));
        assert_eq!(
            chunks(&order, &ids, 2),
            vec![vec![1, 4], vec![2, 3], vec![0]]
        );
        let long: Vec<Vec<u32>> = (0..40).map(|_| vec![0; 200]).collect();
        let order: Vec<usize> = (0..40).collect();
        let c = chunks(&order, &long, usize::MAX);
        assert!(c.iter().all(|c| c.len() * 200 <= MAX_BATCH_TOKENS));
        assert_eq!(c.iter().map(Vec::len).sum::<usize>(), 40);
    }
}
