//! The BERT encoder of all-MiniLM-L6-v2 (any BERT of the same shape), with sentence-transformers'
//! mean pooling and normalisation.
//!
//! Sequences are never padded: the linear layers run over all tokens of a batch concatenated,
//! and attention runs per sequence, so a batch costs exactly its real tokens. Weights are packed
//! once at load time for the micro-kernels, Q, K and V are one product, the bias, residual and
//! GELU are applied as each output tile is stored.
//!
//! A forward pass can be shared by a team of threads: each step (the column panels of a
//! product, the heads of attention, the rows of normalisation) is cut into work items the
//! threads take until none are left, and a step starts when the previous one is finished. That
//! is how one short query uses both cores. Larger batches are instead split into one sub-batch
//! per thread (see `Embedder::embed`), which needs no synchronisation at all.

use super::Error;
use super::kernels::{self, AlignedVec, Epilogue, Isa, Packed};
use super::safetensors::{F32s, Tensors};
use super::view::SharedBuf;
use serde::Deserialize;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
    /// Loads the encoder; `mappable` as for `Tensors::open`.
    pub fn load(config: &Path, weights: &Path, isa: Isa, mappable: bool) -> Result<Bert, Error> {
        let text = std::fs::read_to_string(config).map_err(|e| Error::at(config, e))?;
        let cfg: Config = serde_json::from_str(&text).map_err(|e| Error::at(config, e))?;
        // Only all-MiniLM-L6-v2's shape: the sizes decide every allocation and loop below, and
        // a crafted config once asked for petabytes.
        for (name, got, want) in [
            ("hidden_size", cfg.hidden_size, 384),
            ("num_hidden_layers", cfg.num_hidden_layers, 6),
            ("num_attention_heads", cfg.num_attention_heads, 12),
            ("intermediate_size", cfg.intermediate_size, 1536),
            ("max_position_embeddings", cfg.max_position_embeddings, 512),
            ("vocab_size", cfg.vocab_size, 30522),
            ("type_vocab_size", cfg.type_vocab_size, 2),
        ] {
            if got != want {
                return Err(Error::at(
                    config,
                    format!("{name} is {got}; all-MiniLM-L6-v2 has {want}"),
                ));
            }
        }
        if cfg.hidden_act != "gelu" {
            return Err(Error::at(
                config,
                format!(
                    "hidden_act {:?} is not supported (only gelu)",
                    cfg.hidden_act
                ),
            ));
        }
        let h = cfg.hidden_size;
        if cfg.num_attention_heads == 0
            || !h.is_multiple_of(cfg.num_attention_heads)
            || !h.is_multiple_of(kernels::NR)
            || !cfg.intermediate_size.is_multiple_of(kernels::NR)
            || !(h / cfg.num_attention_heads).is_multiple_of(16)
            || h / cfg.num_attention_heads > kernels::MAX_HEAD
        {
            return Err(Error::at(config, "unsupported layer sizes"));
        }
        let t = Tensors::open(weights, mappable)?;
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
        let types = get(
            "embeddings.token_type_embeddings.weight",
            &[cfg.type_vocab_size, h],
        )?;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for l in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{l}");
            let mut w = Vec::with_capacity(3 * h * h);
            let mut b = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                w.extend_from_slice(
                    get(&format!("{p}.attention.self.{part}.weight"), &[h, h])?.as_slice(),
                );
                b.extend_from_slice(
                    get(&format!("{p}.attention.self.{part}.bias"), &[h])?.as_slice(),
                );
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
            pos: get(
                "embeddings.position_embeddings.weight",
                &[cfg.max_position_embeddings, h],
            )?,
            type0: types.as_slice()[..h].to_vec(),
            emb_ln: (
                vec("embeddings.LayerNorm.weight", h)?,
                vec("embeddings.LayerNorm.bias", h)?,
            ),
            layers,
        })
    }

    pub fn vocab_size(&self) -> usize {
        self.word.as_slice().len() / self.hidden
    }

    /// Embeds `seqs` (token ids, each at most `max_positions` long) into `out`
    /// (`seqs.len() × hidden`), using a team of `threads` threads (the caller's included).
    pub fn forward(
        &self,
        seqs: &[&[u32]],
        threads: usize,
        scratch: &mut [Scratch],
        out: &mut [f32],
    ) {
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
            steps: (0..2 + 7 * self.layers.len())
                .map(|_| Step::default())
                .collect(),
            failed: AtomicBool::new(false),
            tokens,
            offsets: &lead.offsets,
            ids: &lead.ids,
            positions: &lead.positions,
            hidden: SharedBuf::new(lead.hidden.as_mut_slice(), h),
            qkv: SharedBuf::new(lead.qkv.as_mut_slice(), 3 * h),
            ctx: SharedBuf::new(lead.ctx.as_mut_slice(), h),
            inter: SharedBuf::new(lead.inter.as_mut_slice(), inter),
            out: SharedBuf::new(out, h),
        };
        if threads == 1 {
            self.member(&team, &mut lead.private);
            return;
        }
        std::thread::scope(|s| {
            for sc in rest.iter_mut().take(threads - 1) {
                let team = &team;
                s.spawn(move || self.member(team, &mut sc.private));
            }
            self.member(&team, &mut lead.private);
        });
    }

    /// One thread's part in a forward pass: it takes work items of each step until none are
    /// left, then waits for the step to finish (see `Team::step`).
    fn member(&self, team: &Team<'_>, private: &mut Private) {
        let _guard = FailGuard(&team.failed);
        let (h, heads, isa) = (self.hidden, self.heads, self.isa);
        let tokens = team.tokens;
        let row_blocks = tokens.div_ceil(ROWS_PER_ITEM);
        let rows = |item: usize| item * ROWS_PER_ITEM..((item + 1) * ROWS_PER_ITEM).min(tokens);
        let mut step = 0;
        // SAFETY (every view taken below, `team.*.rows`, `rows_mut`, `block_mut`): they are
        // taken only inside `team.step` work items, where a step starts after the previous one
        // finished, and within a step distinct items get disjoint rectangles: the row steps
        // take rows `rows(item)` (disjoint ranges of ROWS_PER_ITEM), a product takes column
        // panels `panels(item)` of its output (disjoint ranges) and reads an input buffer no
        // item of the step writes, attention takes the columns of head `item % heads` of the
        // rows of sequence `item / heads` (distinct items: another sequence's rows or another
        // head's columns) and reads `qkv`, which the step does not write, and pooling writes
        // output row `item` reading `hidden`, which it does not write. Debug builds check it
        // (`SharedBuf::claim`).
        team.step(&mut step, row_blocks, |st, item| unsafe {
            let r = rows(item);
            let x = team.hidden.rows_mut(st, r.clone());
            kernels::embed_tokens(
                isa,
                x,
                &team.ids[r.clone()],
                &team.positions[r.clone()],
                self.word.as_slice(),
                self.pos.as_slice(),
                &self.type0,
                h,
            );
            kernels::layer_norm(isa, x, h, &self.emb_ln.0, &self.emb_ln.1, self.eps);
        });
        let hd = h / heads;
        let scale = 1.0 / (hd as f32).sqrt();
        let nseq = team.offsets.len() - 1;
        let longest = (0..nseq)
            .map(|s| team.offsets[s + 1] - team.offsets[s])
            .max()
            .unwrap_or(0);
        private
            .attention
            .resize(kernels::attention_scratch(hd, longest), 0.0);
        let product = |step: &mut usize, a: &SharedBuf, w: &Packed, c: &SharedBuf, epi| {
            // One panel per item when shared; a single thread takes all at once.
            let per = if team.size == 1 { w.panels() } else { 1 };
            team.step(step, w.panels().div_ceil(per), |st, item| {
                let panels = item * per..((item + 1) * per).min(w.panels());
                // SAFETY: see above (disjoint column panels; `a` is not written in this step).
                let (a, mut c) = unsafe {
                    (
                        a.rows(st, 0..tokens),
                        c.block_mut(
                            st,
                            0..tokens,
                            panels.start * kernels::NR..panels.end * kernels::NR,
                        ),
                    )
                };
                kernels::gemm(isa, a, tokens, w, &mut c, epi, panels);
            });
        };
        for layer in &self.layers {
            product(
                &mut step,
                &team.hidden,
                &layer.qkv,
                &team.qkv,
                Epilogue::Store,
            );
            team.step(&mut step, nseq * heads, |st, item| {
                let (s, head) = (item / heads, item % heads);
                let (start, end) = (team.offsets[s], team.offsets[s + 1]);
                // SAFETY: see above (this head's columns of this sequence's rows).
                let (qkv, mut ctx) = unsafe {
                    (
                        team.qkv.rows(st, start..end),
                        team.ctx
                            .block_mut(st, start..end, head * hd..(head + 1) * hd),
                    )
                };
                kernels::attention_head(
                    isa,
                    kernels::Head {
                        qkv,
                        stride: 3 * h,
                        q_off: head * hd,
                        k_off: h + head * hd,
                        v_off: 2 * h + head * hd,
                        len: end - start,
                        scale,
                    },
                    hd,
                    &mut private.attention,
                    &mut ctx,
                );
            });
            product(
                &mut step,
                &team.ctx,
                &layer.out,
                &team.hidden,
                Epilogue::Add,
            );
            team.step(&mut step, row_blocks, |st, item| {
                // SAFETY: see above (this item's rows).
                let x = unsafe { team.hidden.rows_mut(st, rows(item)) };
                kernels::layer_norm(isa, x, h, &layer.ln1.0, &layer.ln1.1, self.eps);
            });
            product(
                &mut step,
                &team.hidden,
                &layer.up,
                &team.inter,
                Epilogue::StoreGelu,
            );
            product(
                &mut step,
                &team.inter,
                &layer.down,
                &team.hidden,
                Epilogue::Add,
            );
            team.step(&mut step, row_blocks, |st, item| {
                // SAFETY: see above (this item's rows).
                let x = unsafe { team.hidden.rows_mut(st, rows(item)) };
                kernels::layer_norm(isa, x, h, &layer.ln2.0, &layer.ln2.1, self.eps);
            });
        }
        team.step(&mut step, nseq, |st, s| {
            let (start, end) = (team.offsets[s], team.offsets[s + 1]);
            // SAFETY: see above (reads finished hidden rows; writes only output row s).
            let (x, out) = unsafe {
                (
                    team.hidden.rows(st, start..end),
                    team.out.rows_mut(st, s..s + 1),
                )
            };
            kernels::mean_pool_normalize(isa, x, h, out);
        });
    }
}

/// Rows per work item of the row-wise steps (embedding, layer normalisation).
const ROWS_PER_ITEM: usize = 16;

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
    attention: Vec<f32>,
}

struct Team<'a> {
    size: usize,
    /// One per step of the forward pass, in the order every member runs them.
    steps: Vec<Step>,
    /// Set when a member panicked: the others stop waiting for its items and panic too,
    /// instead of spinning forever.
    failed: AtomicBool,
    tokens: usize,
    offsets: &'a [usize],
    ids: &'a [u32],
    positions: &'a [u32],
    hidden: SharedBuf<'a>,
    qkv: SharedBuf<'a>,
    ctx: SharedBuf<'a>,
    inter: SharedBuf<'a>,
    out: SharedBuf<'a>,
}

/// Work items of one step: the next one to take and how many are finished.
#[derive(Default)]
struct Step {
    next: AtomicUsize,
    done: AtomicUsize,
}

impl Team<'_> {
    /// Runs step `*step` (then advances it): takes items until none are left, then waits until
    /// every item is finished. Items are taken, not assigned, so a member the OS deschedules
    /// (a busy machine) only delays the item it holds: the others do the rest, and a member
    /// that arrives late finds nothing left and moves on.
    /// `f(step, item)` runs one item; `step` names the step for the buffer views.
    fn step(&self, step: &mut usize, items: usize, mut f: impl FnMut(usize, usize)) {
        let id = *step;
        let st = &self.steps[id];
        *step += 1;
        if self.size == 1 {
            (0..items).for_each(|i| f(id, i));
            return;
        }
        loop {
            let i = st.next.fetch_add(1, Ordering::Relaxed);
            if i >= items {
                break;
            }
            f(id, i);
            st.done.fetch_add(1, Ordering::AcqRel);
        }
        // Steps take microseconds, so a short spin beats sleeping; after it, yield the core
        // to whoever holds the last item.
        let mut spins = 0u32;
        while st.done.load(Ordering::Acquire) < items {
            assert!(
                !self.failed.load(Ordering::Relaxed),
                "another embedding thread failed"
            );
            if spins < 1 << 12 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Marks the team failed when its member unwinds.
struct FailGuard<'a>(&'a AtomicBool);

impl Drop for FailGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

// Embedding rows come straight from the (read-only) memory map and the mapping is shared.
const _: fn() = || {
    fn assert_sync<T: Sync + Send>() {}
    assert_sync::<Bert>();
};
