//! The BERT encoder of all-MiniLM-L6-v2 (any BERT of the same shape), with sentence-transformers'
//! mean pooling and normalisation.
//!
//! Sequences are never padded: the linear layers run over all tokens of a batch concatenated,
//! and attention runs per sequence, so a batch costs exactly its real tokens. Weights are packed
//! once at load time for the micro-kernels, Q, K and V are one product, the bias, residual and
//! GELU are applied as each output tile is stored.
//!
//! A forward pass can be shared by a team of threads that split every step (columns of each
//! product, heads of attention, rows of normalisation) and meet at a barrier between steps:
//! that is how one short query uses both cores. Large batches are instead split into one
//! sub-batch per thread (see `Embedder`), which needs no synchronisation at all.

use super::Error;
use super::kernels::{self, AlignedVec, Epilogue, Isa, Packed};
use super::safetensors::{F32s, Tensors};
use serde::Deserialize;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    pub vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
}

fn default_eps() -> f64 {
    1e-12
}
fn default_act() -> String {
    "gelu".into()
}
fn default_type_vocab() -> usize {
    2
}

struct Layer {
    qkv: Packed,
    out: Packed,
    ln1: (Vec<f32>, Vec<f32>),
    up: Packed,
    down: Packed,
    ln2: (Vec<f32>, Vec<f32>),
}

pub struct Bert {
    pub isa: Isa,
    pub hidden: usize,
    heads: usize,
    inter: usize,
    eps: f32,
    pub max_positions: usize,
    word: F32s,
    pos: F32s,
    type0: Vec<f32>,
    emb_ln: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
}

impl Bert {
    pub fn load(config: &Path, weights: &Path, isa: Isa) -> Result<Bert, Error> {
        let text = std::fs::read_to_string(config).map_err(|e| Error::at(config, e))?;
        let cfg: Config = serde_json::from_str(&text).map_err(|e| Error::at(config, e))?;
        if cfg.hidden_act != "gelu" {
            return Err(Error::at(
                config,
                format!("hidden_act {:?} is not supported (only gelu)", cfg.hidden_act),
            ));
        }
        let h = cfg.hidden_size;
        if cfg.num_attention_heads == 0
            || !h.is_multiple_of(cfg.num_attention_heads)
            || !h.is_multiple_of(kernels::NR)
            || !cfg.intermediate_size.is_multiple_of(kernels::NR)
        {
            return Err(Error::at(config, "unsupported layer sizes"));
        }
        let t = Tensors::open(weights)?;
        // Checkpoints saved from BertFor* models prefix every name with `bert.`.
        let prefix = if t.contains("bert.embeddings.word_embeddings.weight") {
            "bert."
        } else {
            ""
        };
        let get = |name: &str, shape: &[usize]| t.f32(&format!("{prefix}{name}"), shape);
        let vec = |name: &str, n: usize| get(name, &[n]).map(|v| v.as_slice().to_vec());
        let linear = |name: &str, n: usize, k: usize| -> Result<Packed, Error> {
            let w = get(&format!("{name}.weight"), &[n, k])?;
            let b = get(&format!("{name}.bias"), &[n])?;
            Ok(Packed::new(w.as_slice(), n, k, b.as_slice()))
        };
        let types = get("embeddings.token_type_embeddings.weight", &[cfg.type_vocab_size, h])?;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for l in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{l}");
            let mut w = Vec::with_capacity(3 * h * h);
            let mut b = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                w.extend_from_slice(get(&format!("{p}.attention.self.{part}.weight"), &[h, h])?.as_slice());
                b.extend_from_slice(get(&format!("{p}.attention.self.{part}.bias"), &[h])?.as_slice());
            }
            layers.push(Layer {
                qkv: Packed::new(&w, 3 * h, h, &b),
                out: linear(&format!("{p}.attention.output.dense"), h, h)?,
                ln1: (
                    vec(&format!("{p}.attention.output.LayerNorm.weight"), h)?,
                    vec(&format!("{p}.attention.output.LayerNorm.bias"), h)?,
                ),
                up: linear(&format!("{p}.intermediate.dense"), cfg.intermediate_size, h)?,
                down: linear(&format!("{p}.output.dense"), h, cfg.intermediate_size)?,
                ln2: (
                    vec(&format!("{p}.output.LayerNorm.weight"), h)?,
                    vec(&format!("{p}.output.LayerNorm.bias"), h)?,
                ),
            });
        }
        Ok(Bert {
            isa,
            hidden: h,
            heads: cfg.num_attention_heads,
            inter: cfg.intermediate_size,
            eps: cfg.layer_norm_eps as f32,
            max_positions: cfg.max_position_embeddings,
            word: get("embeddings.word_embeddings.weight", &[cfg.vocab_size, h])?,
            pos: get("embeddings.position_embeddings.weight", &[cfg.max_position_embeddings, h])?,
            type0: types.as_slice()[..h].to_vec(),
            emb_ln: (vec("embeddings.LayerNorm.weight", h)?, vec("embeddings.LayerNorm.bias", h)?),
            layers,
        })
    }

    pub fn vocab_size(&self) -> usize {
        self.word.as_slice().len() / self.hidden
    }

    /// Embeds `seqs` (token ids, each at most `max_positions` long) into `out`
    /// (`seqs.len() × hidden`), using a team of `threads` threads (the caller's included).
    pub fn forward(&self, seqs: &[&[u32]], threads: usize, scratch: &mut [Scratch], out: &mut [f32]) {
        assert_eq!(out.len(), seqs.len() * self.hidden);
        assert!(scratch.len() >= threads && threads >= 1);
        let tokens: usize = seqs.iter().map(|s| s.len()).sum();
        let (h, inter) = (self.hidden, self.inter);
        assert!(seqs.iter().all(|s| s.len() <= self.max_positions));
        let (lead, rest) = scratch.split_first_mut().expect("one scratch per thread");
        lead.hidden.resize(tokens * h);
        lead.qkv.resize(tokens * 3 * h);
        lead.ctx.resize(tokens * h);
        lead.inter.resize(tokens * inter);
        lead.ids.clear();
        lead.positions.clear();
        lead.offsets.clear();
        for s in seqs {
            lead.offsets.push(lead.ids.len());
            lead.ids.extend_from_slice(s);
            lead.positions.extend(0..s.len() as u32);
        }
        lead.offsets.push(lead.ids.len());
        let team = Team {
            size: threads,
            barrier: SpinBarrier::new(threads),
            tokens,
            offsets: &lead.offsets,
            ids: &lead.ids,
            positions: &lead.positions,
            hidden: Shared(lead.hidden.as_mut_slice().as_mut_ptr()),
            qkv: Shared(lead.qkv.as_mut_slice().as_mut_ptr()),
            ctx: Shared(lead.ctx.as_mut_slice().as_mut_ptr()),
            inter: Shared(lead.inter.as_mut_slice().as_mut_ptr()),
            out: Shared(out.as_mut_ptr()),
        };
        if threads == 1 {
            self.member(&team, 0, &mut lead.private);
            return;
        }
        std::thread::scope(|s| {
            for (i, sc) in rest.iter_mut().take(threads - 1).enumerate() {
                let team = &team;
                s.spawn(move || self.member(team, i + 1, &mut sc.private));
            }
            self.member(&team, 0, &mut lead.private);
        });
    }

    /// One thread's share of a forward pass.
    fn member(&self, team: &Team<'_>, rank: usize, private: &mut Private) {
        let (h, heads, isa) = (self.hidden, self.heads, self.isa);
        let tokens = team.tokens;
        let rows = split(tokens, team.size, rank);
        // SAFETY (every `team.*.slice` below): each thread writes only its own rows, columns
        // or heads between two barriers, and reads only what all threads finished before the
        // last barrier.
        unsafe {
            let x = team.hidden.slice(rows.start * h, rows.len() * h);
            kernels::embed_tokens(
                isa,
                x,
                &team.ids[rows.clone()],
                &team.positions[rows.clone()],
                self.word.as_slice(),
                self.pos.as_slice(),
                &self.type0,
                h,
            );
            kernels::layer_norm(isa, x, h, &self.emb_ln.0, &self.emb_ln.1, self.eps);
        }
        team.barrier.wait();
        let hd = h / heads;
        let scale = 1.0 / (hd as f32).sqrt();
        let nseq = team.offsets.len() - 1;
        let work = split(nseq * heads, team.size, rank);
        for layer in &self.layers {
            let product = |a: &Shared, w: &Packed, c: &Shared, epi, apack: &mut AlignedVec| {
                let panels = split(w.panels(), team.size, rank);
                // SAFETY: `a` holds tokens × w.k floats and `c` tokens × w.n; this thread
                // writes only its own column panels.
                unsafe { kernels::gemm(isa, a.0, tokens, w, c.0, epi, panels, apack) };
            };
            product(&team.hidden, &layer.qkv, &team.qkv, Epilogue::Store, &mut private.apack);
            team.barrier.wait();
            let longest = (0..nseq)
                .map(|s| team.offsets[s + 1] - team.offsets[s])
                .max()
                .unwrap_or(0);
            private.kt.resize(hd * longest, 0.0);
            private.scores.resize(longest, 0.0);
            for item in work.clone() {
                let (s, head) = (item / heads, item % heads);
                let (start, end) = (team.offsets[s], team.offsets[s + 1]);
                // SAFETY: reads the sequence's qkv rows; writes only this head's columns of
                // the sequence's ctx rows.
                unsafe {
                    kernels::attention_head(
                        isa,
                        team.qkv.slice(start * 3 * h, (end - start) * 3 * h),
                        3 * h,
                        head * hd,
                        h + head * hd,
                        2 * h + head * hd,
                        hd,
                        end - start,
                        scale,
                        &mut private.kt,
                        &mut private.scores,
                        team.ctx.slice(start * h, (end - start) * h),
                        h,
                        head * hd,
                    );
                }
            }
            team.barrier.wait();
            product(&team.ctx, &layer.out, &team.hidden, Epilogue::Add, &mut private.apack);
            team.barrier.wait();
            // SAFETY: own rows only.
            unsafe {
                let x = team.hidden.slice(rows.start * h, rows.len() * h);
                kernels::layer_norm(isa, x, h, &layer.ln1.0, &layer.ln1.1, self.eps);
            }
            team.barrier.wait();
            product(&team.hidden, &layer.up, &team.inter, Epilogue::StoreGelu, &mut private.apack);
            team.barrier.wait();
            product(&team.inter, &layer.down, &team.hidden, Epilogue::Add, &mut private.apack);
            team.barrier.wait();
            // SAFETY: own rows only.
            unsafe {
                let x = team.hidden.slice(rows.start * h, rows.len() * h);
                kernels::layer_norm(isa, x, h, &layer.ln2.0, &layer.ln2.1, self.eps);
            }
            team.barrier.wait();
        }
        for s in split(nseq, team.size, rank) {
            let (start, end) = (team.offsets[s], team.offsets[s + 1]);
            // SAFETY: reads finished hidden rows; writes only sequence s's output row.
            unsafe {
                kernels::mean_pool_normalize(
                    isa,
                    team.hidden.slice(start * h, (end - start) * h),
                    h,
                    team.out.slice(s * h, h),
                );
            }
        }
    }
}

/// The `rank`-th of `parts` near-equal contiguous ranges of `0..n`.
fn split(n: usize, parts: usize, rank: usize) -> std::ops::Range<usize> {
    n * rank / parts..n * (rank + 1) / parts
}

/// Buffers of one forward pass: the shared activations (used by the team's first member) and
/// each member's private scratch. Kept between calls so large batches do not fault in fresh
/// pages every time.
#[derive(Default)]
pub struct Scratch {
    hidden: AlignedVec,
    qkv: AlignedVec,
    ctx: AlignedVec,
    inter: AlignedVec,
    ids: Vec<u32>,
    positions: Vec<u32>,
    offsets: Vec<usize>,
    private: Private,
}

#[derive(Default)]
struct Private {
    apack: AlignedVec,
    kt: Vec<f32>,
    scores: Vec<f32>,
}

struct Team<'a> {
    size: usize,
    barrier: SpinBarrier,
    tokens: usize,
    offsets: &'a [usize],
    ids: &'a [u32],
    positions: &'a [u32],
    hidden: Shared,
    qkv: Shared,
    ctx: Shared,
    inter: Shared,
    out: Shared,
}

/// A buffer the team members share; each touches disjoint parts between barriers.
#[derive(Clone, Copy)]
struct Shared(*mut f32);
// SAFETY: only used as described on `Team`: disjoint writes between barriers.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Shared {
    /// # Safety
    /// The range must be inside the buffer and not be written by another thread meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice(&self, start: usize, len: usize) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.0.add(start), len) }
    }
}

/// A barrier that spins briefly before yielding: the steps between barriers take tens of
/// microseconds, so sleeping on a futex (std's Barrier) would cost as much as the work. It
/// yields after the spin so a descheduled partner on a busy machine gets the core back.
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        SpinBarrier {
            n,
            count: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    fn wait(&self) {
        if self.n == 1 {
            return;
        }
        let generation = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < 1 << 14 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

// Embedding rows come straight from the (read-only) memory map and the mapping is shared.
const _: fn() = || {
    fn assert_sync<T: Sync + Send>() {}
    assert_sync::<Bert>();
};
