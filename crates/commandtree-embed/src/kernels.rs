//! The numeric kernels of the BERT forward pass: a matrix product against pre-packed weights
//! with a bias/residual/GELU epilogue, layer normalisation, attention and pooling helpers.
//!
//! Binaries must run on any x86-64, so nothing is compiled for a particular CPU. Instead every
//! hot function exists in three versions (AVX-512, AVX2+FMA, portable) and the best one the CPU
//! supports is picked once at run time ([`Isa::detected`]). The matrix product has hand-written
//! micro-kernels; the element-wise functions are plain loops that the compiler vectorises for
//! each instruction set (see [`multiversion`]).

use crate::view::BlockMut;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Columns of one packed weight panel: two AVX-512 registers, four AVX2 registers.
pub(crate) const NR: usize = 32;
/// Depth of one block of the product: a packed weight block (KC × NR floats, 48 KiB) is
/// multiplied with every row block of the input while it is hot in L1/L2. Measured on the
/// model's shapes (K = 384 and 1536): 384 beat 128, 192, 256, 768 and 1536 by 3-7 %.
const KC: usize = 384;
/// Rows of input swept per weight block: 240 × 384 floats (360 KiB) stay in L2.
const MC: usize = 240;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Portable,
    Avx2,
    Avx512,
}

/// The instruction set the kernels use, and the proof that this CPU has it: the field is private
/// to this module and every constructor checks the CPU, so holding an `Isa` of a level means the
/// instructions of that level can run. This is what makes the kernels' `unsafe` calls of
/// `#[target_feature]` functions sound for every caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Isa(Level);

impl Isa {
    /// The best instruction set this CPU has, detected once per process.
    /// `COMMANDTREE_EMBED_ISA=portable|avx2` (read once) lowers it, to run the other code paths
    /// on one machine (`scripts/memcheck.sh` needs the portable one: Valgrind has no AVX-512); it
    /// never raises it above what the CPU supports.
    pub fn detected() -> Isa {
        static DETECTED: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            let best = best_level();
            Isa(match std::env::var("COMMANDTREE_EMBED_ISA").as_deref() {
                Ok("portable") => Level::Portable,
                Ok("avx2") => best.min(Level::Avx2),
                _ => best,
            })
        })
    }

    /// The portable kernels: plain Rust, valid on every CPU.
    pub fn portable() -> Isa {
        Isa(Level::Portable)
    }

    /// Every instruction set up to the detected one, from the portable one up (the tests check
    /// each; `COMMANDTREE_EMBED_ISA=portable` keeps them to the portable kernels).
    #[cfg(test)]
    pub fn supported() -> Vec<Isa> {
        let best = Isa::detected().0;
        [Level::Portable, Level::Avx2, Level::Avx512]
            .into_iter()
            .filter(|l| *l <= best)
            .map(Isa)
            .collect()
    }

    /// Rows of one micro-kernel tile: as many as the registers hold accumulators for
    /// (AVX-512: 14 × 2 of 32 registers, measured 2-10 % faster than 8 or 12).
    fn mr(self) -> usize {
        match self.0 {
            Level::Avx512 => 14,
            Level::Avx2 => 6,
            Level::Portable => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self.0 {
            Level::Avx512 => "avx512",
            Level::Avx2 => "avx2",
            Level::Portable => "portable",
        }
    }
}

/// The best instruction set this CPU has.
#[allow(unreachable_code)]
fn best_level() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("avx2")
        {
            return Level::Avx512;
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return Level::Avx2;
        }
    }
    Level::Portable
}

/// Defines `pub fn NAME(isa: Isa, args...)` whose body is compiled three times, once per
/// instruction set, so plain loops in it are vectorised with the widest registers available.
/// Helpers it calls must be `#[inline(always)]` to be compiled with the same features.
macro_rules! multiversion {
    ($(#[$m:meta])* $vis:vis fn $name:ident($($p:ident : $t:ty),* $(,)?) $body:block) => {
        $(#[$m])*
        #[allow(clippy::too_many_arguments)]
        $vis fn $name(isa: Isa, $($p: $t),*) {
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn generic($($p: $t),*) $body
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
            #[allow(clippy::too_many_arguments)]
            fn v512($($p: $t),*) { generic($($p),*) }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            #[allow(clippy::too_many_arguments)]
            fn v2($($p: $t),*) { generic($($p),*) }
            match isa.0 {
                // SAFETY: an `Isa` of this level exists only when the CPU has its features
                // (`Isa`'s constructors check; its field is private to this module).
                #[cfg(target_arch = "x86_64")]
                Level::Avx512 => unsafe { v512($($p),*) },
                #[cfg(target_arch = "x86_64")]
                Level::Avx2 => unsafe { v2($($p),*) },
                _ => generic($($p),*),
            }
        }
    };
}

/// A weight matrix `W` (`n` outputs × `k` inputs, PyTorch's `Linear` layout) stored for
/// `x · Wᵀ`: column panels of [`NR`] outputs, each `k` rows of NR contiguous floats, so the
/// micro-kernels read it strictly sequentially.
pub(crate) struct Packed {
    pub k: usize,
    pub n: usize,
    data: AlignedVec,
    pub bias: Vec<f32>,
}

impl Packed {
    /// `w` is row-major `n × k`; `n` must be a multiple of [`NR`].
    pub fn new(w: &[f32], n: usize, k: usize, bias: &[f32]) -> Packed {
        assert_eq!(w.len(), n * k);
        assert_eq!(bias.len(), n);
        assert_eq!(n % NR, 0);
        let mut data = AlignedVec::zeros(n * k);
        let d = data.as_mut_slice();
        for p in 0..n / NR {
            let panel = &mut d[p * k * NR..(p + 1) * k * NR];
            for j in 0..NR {
                let row = &w[(p * NR + j) * k..(p * NR + j + 1) * k];
                for (kk, &v) in row.iter().enumerate() {
                    panel[kk * NR + j] = v;
                }
            }
        }
        Packed {
            k,
            n,
            data,
            bias: bias.to_vec(),
        }
    }

    pub fn panels(&self) -> usize {
        self.n / NR
    }

    fn panel(&self, p: usize) -> &[f32] {
        &self.data.as_slice()[p * self.k * NR..(p + 1) * self.k * NR]
    }
}

/// A float buffer whose first element is 64-byte aligned, so AVX-512 loads never straddle
/// cache lines.
pub(crate) struct AlignedVec {
    buf: Vec<f32>,
    start: usize,
    len: usize,
}

impl Default for AlignedVec {
    fn default() -> Self {
        AlignedVec::zeros(0)
    }
}

impl AlignedVec {
    pub fn zeros(len: usize) -> AlignedVec {
        let buf = vec![0f32; len + 16];
        let start = buf.as_ptr().align_offset(64).min(16);
        AlignedVec { buf, start, len }
    }
    pub fn as_slice(&self) -> &[f32] {
        &self.buf[self.start..self.start + self.len]
    }
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        &mut self.buf[self.start..self.start + self.len]
    }
    /// Makes room for `len` floats, keeping nothing (contents are unspecified).
    pub fn resize(&mut self, len: usize) {
        if self.buf.len() < len + 16 {
            *self = AlignedVec::zeros(len);
        } else {
            self.len = len;
        }
    }
}

/// What the product does with what is already in the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Epilogue {
    /// `c = a·Wᵀ + bias`
    Store,
    /// `c = a·Wᵀ + bias` then `c = gelu(c)` (erf form, as BERT's `hidden_act: gelu`)
    StoreGelu,
    /// `c += a·Wᵀ + bias` (the residual connection is already in `c`)
    Add,
}

/// `c[m × w.n] (op)= a[m × w.k] · Wᵀ + bias`, for the column panels in `panels` only (so two
/// threads can share one product). `a` is row-major with `w.k` columns; `c` is the rectangle of
/// the output (row stride `w.n`) holding exactly those panels' columns of all `m` rows.
///
/// The input is read in place (no packing): each micro-kernel broadcasts from its rows of `a`,
/// which stream through L1 while the packed weight block stays there.
pub(crate) fn gemm(
    isa: Isa,
    a: &[f32],
    m: usize,
    w: &Packed,
    c: &mut BlockMut<'_>,
    epi: Epilogue,
    panels: std::ops::Range<usize>,
) {
    let (k, n) = (w.k, w.n);
    // The bounds every pointer below relies on.
    assert_eq!(a.len(), m * k, "input size");
    assert!(panels.start <= panels.end && panels.end <= w.panels());
    assert_eq!(c.rows(), m, "output rows");
    assert_eq!(c.stride(), n, "output row stride");
    assert_eq!(c.width(), panels.len() * NR, "output columns");
    let (a, c) = (a.as_ptr(), c.as_mut_ptr());
    let mr = isa.mr();
    let mut kb = 0;
    while kb < k {
        let kc = KC.min(k - kb);
        let first = kb == 0;
        let last = kb + kc == k;
        let mut rb = 0;
        while rb < m {
            let mc = MC.min(m - rb);
            for p in panels.clone() {
                // Rows kb..kb+kc of the panel's k × NR floats.
                let b = w.panel(p)[kb * NR..].as_ptr();
                let bias = if first {
                    w.bias[p * NR..].as_ptr()
                } else {
                    std::ptr::null()
                };
                let add = !first || epi == Epilogue::Add;
                let gelu = last && epi == Epilogue::StoreGelu;
                let mut r = rb;
                while r < rb + mc {
                    let rows = mr.min(rb + mc - r);
                    // SAFETY: rows r..r+rows < m and columns kb..kb+kc ≤ k of `a` (m × k,
                    // asserted above); the tile's rows r..r+rows × NR columns of panel p lie in
                    // `c`'s rectangle (m rows × the panels' columns, stride n, asserted above),
                    // which `c` lends exclusively; `b` has kc × NR floats and `bias` NR. The
                    // instruction set is the CPU's (an `Isa` proves it).
                    unsafe {
                        tile(
                            isa,
                            rows,
                            Tile {
                                kc,
                                a: a.add(r * k + kb),
                                lda: k,
                                b,
                                c: c.add(r * n + (p - panels.start) * NR),
                                ldc: n,
                                bias,
                                add,
                                gelu,
                            },
                        )
                    };
                    r += rows;
                }
            }
            rb += mc;
        }
        kb += kc;
    }
}

/// The operands of one micro-kernel call: `R` rows (the kernel's) × NR columns.
#[derive(Clone, Copy)]
struct Tile {
    kc: usize,
    /// `R` rows of `kc` floats, stride `lda`.
    a: *const f32,
    lda: usize,
    /// kc × NR floats of a packed panel.
    b: *const f32,
    /// `R` rows of NR floats, stride `ldc`.
    c: *mut f32,
    ldc: usize,
    /// NR floats, or null for none.
    bias: *const f32,
    /// Add to what `c` holds instead of overwriting it.
    add: bool,
    gelu: bool,
}

/// One tile of `rows` rows × NR columns.
///
/// # Safety
/// `t.a` has `rows` rows of `kc` floats (stride `lda`), `t.b` kc × NR floats, `t.c` `rows` rows
/// of NR floats (stride `ldc`) that no one else accesses meanwhile, `t.bias` NR floats unless
/// null; `isa` proves the CPU's features (always true of an `Isa`).
unsafe fn tile(isa: Isa, rows: usize, t: Tile) {
    macro_rules! by_rows {
        ($f:ident, $($r:literal)*) => {
            match rows {
                // SAFETY: the buffers are the caller's contract; the kernel's instruction set
                // is the CPU's, since `isa` holds that level (see `Isa`).
                $($r => unsafe { $f::<$r>(t) },)*
                _ => unreachable!("tile rows {rows}"),
            }
        };
    }
    match isa.0 {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => by_rows!(kern_avx512, 1 2 3 4 5 6 7 8 9 10 11 12 13 14),
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => by_rows!(kern_avx2, 1 2 3 4 5 6),
        _ => by_rows!(kern_portable, 1 2 3 4),
    }
}

/// Applies GELU to a stored row segment of NR floats.
#[inline(always)]
unsafe fn finish_row(c: *mut f32, gelu: bool) {
    if gelu {
        // SAFETY: the row segment of NR floats is inside `c` (caller's contract).
        let row = unsafe { std::slice::from_raw_parts_mut(c, NR) };
        for v in row {
            *v = gelu_scalar(*v);
        }
    }
}

/// Pointers to the `R` input rows of a tile.
#[inline(always)]
fn row_ptrs<const R: usize>(a: *const f32, lda: usize) -> [*const f32; R] {
    std::array::from_fn(|i| a.wrapping_add(i * lda))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn kern_avx512<const R: usize>(t: Tile) {
    let rows = row_ptrs::<R>(t.a, t.lda);
    let mut acc = [[_mm512_setzero_ps(); 2]; R];
    let mut bp = t.b;
    for kk in 0..t.kc {
        // SAFETY: `kc` steps of NR floats of `b` and of one float per row of `a` are inside.
        unsafe {
            let b0 = _mm512_load_ps(bp);
            let b1 = _mm512_load_ps(bp.add(16));
            for (acc, row) in acc.iter_mut().zip(&rows) {
                let av = _mm512_set1_ps(*row.add(kk));
                acc[0] = _mm512_fmadd_ps(av, b0, acc[0]);
                acc[1] = _mm512_fmadd_ps(av, b1, acc[1]);
            }
            bp = bp.add(NR);
        }
    }
    for (i, acc) in acc.iter().enumerate() {
        // SAFETY: row i of the tile and NR bias values are inside (caller's contract).
        unsafe {
            let cp = t.c.add(i * t.ldc);
            let (mut v0, mut v1) = (acc[0], acc[1]);
            if !t.bias.is_null() {
                v0 = _mm512_add_ps(v0, _mm512_loadu_ps(t.bias));
                v1 = _mm512_add_ps(v1, _mm512_loadu_ps(t.bias.add(16)));
            }
            if t.add {
                v0 = _mm512_add_ps(v0, _mm512_loadu_ps(cp));
                v1 = _mm512_add_ps(v1, _mm512_loadu_ps(cp.add(16)));
            }
            _mm512_storeu_ps(cp, v0);
            _mm512_storeu_ps(cp.add(16), v1);
            finish_row(cp, t.gelu);
        }
    }
}

/// AVX2 has 16 registers: a tile is R rows × 16 columns, twice per panel.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn kern_avx2<const R: usize>(t: Tile) {
    let rows = row_ptrs::<R>(t.a, t.lda);
    for half in 0..2 {
        let off = half * 16;
        let mut acc = [[_mm256_setzero_ps(); 2]; R];
        let mut bp = t.b.wrapping_add(off);
        for kk in 0..t.kc {
            // SAFETY: as in `kern_avx512`.
            unsafe {
                let b0 = _mm256_load_ps(bp);
                let b1 = _mm256_load_ps(bp.add(8));
                for (acc, row) in acc.iter_mut().zip(&rows) {
                    let av = _mm256_broadcast_ss(&*row.add(kk));
                    acc[0] = _mm256_fmadd_ps(av, b0, acc[0]);
                    acc[1] = _mm256_fmadd_ps(av, b1, acc[1]);
                }
                bp = bp.add(NR);
            }
        }
        for (i, acc) in acc.iter().enumerate() {
            // SAFETY: as in `kern_avx512`.
            unsafe {
                let cp = t.c.add(i * t.ldc + off);
                let (mut v0, mut v1) = (acc[0], acc[1]);
                if !t.bias.is_null() {
                    v0 = _mm256_add_ps(v0, _mm256_loadu_ps(t.bias.add(off)));
                    v1 = _mm256_add_ps(v1, _mm256_loadu_ps(t.bias.add(off + 8)));
                }
                if t.add {
                    v0 = _mm256_add_ps(v0, _mm256_loadu_ps(cp));
                    v1 = _mm256_add_ps(v1, _mm256_loadu_ps(cp.add(8)));
                }
                _mm256_storeu_ps(cp, v0);
                _mm256_storeu_ps(cp.add(8), v1);
            }
        }
    }
    if t.gelu {
        for i in 0..R {
            // SAFETY: as above.
            unsafe { finish_row(t.c.add(i * t.ldc), true) };
        }
    }
}

unsafe fn kern_portable<const R: usize>(t: Tile) {
    // SAFETY (whole function): the caller guarantees R rows of kc floats of `a` (stride lda),
    // kc × NR of `b`, R rows of NR floats of `c` and NR of `bias` when it is not null.
    let b = unsafe { std::slice::from_raw_parts(t.b, t.kc * NR) };
    let rows: [&[f32]; R] =
        std::array::from_fn(|i| unsafe { std::slice::from_raw_parts(t.a.add(i * t.lda), t.kc) });
    let mut acc = [[0f32; NR]; R];
    for kk in 0..t.kc {
        let brow = &b[kk * NR..(kk + 1) * NR];
        for (acc, row) in acc.iter_mut().zip(&rows) {
            let av = row[kk];
            for (x, &bv) in acc.iter_mut().zip(brow) {
                *x += av * bv;
            }
        }
    }
    for (i, acc) in acc.iter().enumerate() {
        let row = unsafe { std::slice::from_raw_parts_mut(t.c.add(i * t.ldc), NR) };
        for j in 0..NR {
            let mut v = acc[j];
            if !t.bias.is_null() {
                v += unsafe { *t.bias.add(j) };
            }
            if t.add {
                v += row[j];
            }
            row[j] = v;
        }
        unsafe { finish_row(row.as_mut_ptr(), t.gelu) };
    }
}

/// `erf` as a rational function, absolute error below 4e-7 in f32 (the Eigen/XLA
/// approximation), branch-free so loops over it vectorise.
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = -2.726_142_3e-10_f32;
    p = p * x2 + 2.770_681_4e-8;
    p = p * x2 + -2.101_024e-6;
    p = p * x2 + -5.692_506_4e-5;
    p = p * x2 + -7.349_906_3e-4;
    p = p * x2 + -2.9546e-3;
    p = p * x2 + -1.609_603_3e-2;
    p *= x;
    let mut q = -1.456_607_2e-5_f32;
    q = q * x2 + -2.133_740_6e-4;
    q = q * x2 + -1.682_827e-3;
    q = q * x2 + -7.373_329e-3;
    q = q * x2 + -1.426_474e-2;
    p / q
}

#[inline(always)]
pub(crate) fn gelu_scalar(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `e^x` for x ≤ 0 (softmax inputs after subtracting the maximum), Cephes' polynomial after
/// reducing to 2^n · e^r; within 2 ulp, branch-free.
#[inline(always)]
fn exp_neg(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding 1.5·2^23 rounds to the nearest integer without a (non-vectorisable) call.
    const ROUND: f32 = 12_582_912.0;
    let x = x.max(-87.0);
    let n = (x * LOG2E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    p = p * r * r + r + 1.0;
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    p * scale
}

/// Sum with 16 independent lanes, which the compiler turns into vector adds (a single running
/// float sum cannot be reordered, so it would stay scalar).
#[inline(always)]
fn sum16(x: &[f32]) -> f32 {
    let mut acc = [0f32; 16];
    let mut chunks = x.chunks_exact(16);
    for c in &mut chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += v;
        }
    }
    let mut s: f32 = chunks.remainder().iter().sum();
    for a in acc {
        s += a;
    }
    s
}

#[inline(always)]
fn dot16(x: &[f32], y: &[f32]) -> f32 {
    let mut acc = [0f32; 16];
    let mut cx = x.chunks_exact(16);
    let mut cy = y.chunks_exact(16);
    for (a, b) in (&mut cx).zip(&mut cy) {
        for i in 0..16 {
            acc[i] += a[i] * b[i];
        }
    }
    let mut s = 0f32;
    for (a, b) in cx.remainder().iter().zip(cy.remainder()) {
        s += a * b;
    }
    for a in acc {
        s += a;
    }
    s
}

multiversion! {
    /// Layer normalisation of each `n`-float row of `x`, in place (two-pass variance, as
    /// PyTorch).
    pub(crate) fn layer_norm(x: &mut [f32], n: usize, gamma: &[f32], beta: &[f32], eps: f32) {
        for row in x.chunks_exact_mut(n) {
            let mean = sum16(row) / n as f32;
            for v in row.iter_mut() {
                *v -= mean;
            }
            let var = dot16(row, row) / n as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
                *v = *v * inv * g + b;
            }
        }
    }
}

multiversion! {
    /// Token embeddings: word + position + token type 0, one row per token of each sequence.
    pub(crate) fn embed_tokens(out: &mut [f32], ids: &[u32], positions: &[u32], word: &[f32], pos: &[f32], type0: &[f32], h: usize) {
        for ((row, &id), &p) in out.chunks_exact_mut(h).zip(ids).zip(positions) {
            let w = &word[id as usize * h..(id as usize + 1) * h];
            let pe = &pos[p as usize * h..(p as usize + 1) * h];
            for (((o, a), b), c) in row.iter_mut().zip(w).zip(pe).zip(type0) {
                *o = a + b + c;
            }
        }
    }
}

/// Keys are processed in blocks of this many (one AVX-512 register of scores).
const KEY_BLOCK: usize = 16;
/// Largest head size the attention kernel supports (BERT models use 32 or 64).
pub(crate) const MAX_HEAD: usize = 128;

/// One head's view of one sequence in the fused projection: `qkv` rows hold `[q | k | v]`
/// (each `heads × hd`, row stride `stride`); the sequence's `len` rows start at row 0, the
/// head's query, key and value columns at `q_off`, `k_off`, `v_off`.
#[derive(Clone, Copy)]
pub(crate) struct Head<'a> {
    pub qkv: &'a [f32],
    pub stride: usize,
    pub q_off: usize,
    pub k_off: usize,
    pub v_off: usize,
    pub len: usize,
    /// Multiplies the queries (1/√hd).
    pub scale: f32,
}

/// Scaled dot-product attention of one sequence and one head. `scratch` is working space.
/// Writes `ctx`, the head's `hd` columns of the sequence's `len` rows. `hd` is a multiple of
/// 16, at most [`MAX_HEAD`]; `scratch` holds at least [`attention_scratch`] floats.
pub(crate) fn attention_head(
    isa: Isa,
    head: Head<'_>,
    hd: usize,
    scratch: &mut [f32],
    ctx: &mut BlockMut<'_>,
) {
    assert_eq!(ctx.rows(), head.len, "one output row per token");
    assert_eq!(ctx.width(), hd, "the head's columns");
    macro_rules! go {
        ($($hd:literal)*) => {
            match hd {
                $($hd => {
                    #[cfg(target_arch = "x86_64")]
                    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                    fn v512(head: Head<'_>, scratch: &mut [f32], ctx: &mut BlockMut<'_>) {
                        attention::<$hd, true>(head, scratch, ctx)
                    }
                    #[cfg(target_arch = "x86_64")]
                    #[target_feature(enable = "avx2,fma")]
                    fn v2(head: Head<'_>, scratch: &mut [f32], ctx: &mut BlockMut<'_>) {
                        attention::<$hd, true>(head, scratch, ctx)
                    }
                    match isa.0 {
                        // SAFETY: an `Isa` of this level exists only when the CPU has its
                        // features (`Isa`'s constructors check; its field is private here).
                        #[cfg(target_arch = "x86_64")]
                        Level::Avx512 => unsafe { v512(head, scratch, ctx) },
                        #[cfg(target_arch = "x86_64")]
                        Level::Avx2 => unsafe { v2(head, scratch, ctx) },
                        _ => attention::<$hd, PORTABLE_FMA>(head, scratch, ctx),
                    }
                })*
                _ => unreachable!("head size {hd} (checked when the model is loaded)"),
            }
        };
    }
    go!(16 32 48 64 80 96 112 128)
}

/// Whether the portable code may use `mul_add`: a single instruction on ARM, but a slow library
/// call on x86-64 CPUs without FMA (the only x86 CPUs that run the portable code).
const PORTABLE_FMA: bool = cfg!(target_arch = "aarch64");

/// `a * b + c`, fused when `FMA` (one rounding, one instruction).
#[inline(always)]
fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

/// Query rows processed together: their score and output accumulators are independent, so
/// the multiply-adds overlap instead of waiting on each other's latency.
const ROW_GROUP: usize = 4;

/// Scratch floats `attention_head` needs for head size `hd` and sequences up to `len` tokens.
pub(crate) fn attention_scratch(hd: usize, len: usize) -> usize {
    let lp = len.div_ceil(KEY_BLOCK) * KEY_BLOCK;
    let rows = len.div_ceil(ROW_GROUP) * ROW_GROUP;
    hd * lp + rows * hd + ROW_GROUP * lp
}

/// The attention of one head of size `HD`: with the size known, query rows and output
/// accumulators live in registers. Keys are transposed and zero-padded to whole blocks, queries
/// scaled and zero-padded to whole row groups, so every inner loop runs over full vectors.
#[inline(always)]
fn attention<const HD: usize, const FMA: bool>(
    head: Head<'_>,
    scratch: &mut [f32],
    ctx: &mut BlockMut<'_>,
) {
    let Head {
        qkv,
        stride,
        q_off,
        k_off,
        v_off,
        len,
        scale,
    } = head;
    const G: usize = ROW_GROUP;
    let lp = len.div_ceil(KEY_BLOCK) * KEY_BLOCK;
    let rows = len.div_ceil(G) * G;
    let (kt, rest) = scratch.split_at_mut(HD * lp);
    let (qs, rest) = rest.split_at_mut(rows * HD);
    let s = &mut rest[..G * lp];
    for d in 0..HD {
        kt[d * lp + len..(d + 1) * lp].fill(0.0);
    }
    for j in 0..len {
        let krow: &[f32; HD] = qkv[j * stride + k_off..][..HD]
            .try_into()
            .expect("HD floats");
        for (d, &v) in krow.iter().enumerate() {
            kt[d * lp + j] = v;
        }
        let q = &qkv[j * stride + q_off..][..HD];
        for (o, &v) in qs[j * HD..(j + 1) * HD].iter_mut().zip(q) {
            *o = v * scale;
        }
    }
    qs[len * HD..].fill(0.0);
    for g in (0..rows).step_by(G) {
        let q: [&[f32; HD]; G] =
            std::array::from_fn(|r| qs[(g + r) * HD..][..HD].try_into().expect("HD floats"));
        for jb in 0..lp / KEY_BLOCK {
            let mut acc = [[0f32; KEY_BLOCK]; G];
            for d in 0..HD {
                let k: &[f32; KEY_BLOCK] = kt[d * lp + jb * KEY_BLOCK..][..KEY_BLOCK]
                    .try_into()
                    .expect("a block");
                for r in 0..G {
                    let qd = q[r][d];
                    for l in 0..KEY_BLOCK {
                        acc[r][l] = madd::<FMA>(qd, k[l], acc[r][l]);
                    }
                }
            }
            for (r, acc) in acc.iter().enumerate() {
                s[r * lp + jb * KEY_BLOCK..][..KEY_BLOCK].copy_from_slice(acc);
            }
        }
        let mut inv = [0f32; G];
        for (r, inv) in inv.iter_mut().enumerate() {
            let row = &mut s[r * lp..(r + 1) * lp];
            let max = max16(&row[..len]);
            for v in row.iter_mut() {
                *v = exp_neg(*v - max);
            }
            *inv = 1.0 / sum16(&row[..len]);
        }
        let mut out = [[0f32; HD]; G];
        for j in 0..len {
            let v: &[f32; HD] = qkv[j * stride + v_off..][..HD]
                .try_into()
                .expect("HD floats");
            for r in 0..G {
                let p = s[r * lp + j];
                for d in 0..HD {
                    out[r][d] = madd::<FMA>(p, v[d], out[r][d]);
                }
            }
        }
        for r in 0..G.min(len - g) {
            let i = g + r;
            for (c, o) in ctx.row_mut(i)[..HD].iter_mut().zip(out[r]) {
                *c = o * inv[r];
            }
        }
    }
}

/// Maximum with 16 independent lanes (vectorisable, unlike a single running maximum).
#[inline(always)]
fn max16(x: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 16];
    let mut chunks = x.chunks_exact(16);
    for c in &mut chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a = a.max(*v);
        }
    }
    let mut m = f32::NEG_INFINITY;
    for &v in chunks.remainder().iter().chain(&acc) {
        m = m.max(v);
    }
    m
}

multiversion! {
    /// Mean of the `len` rows of `x` (row length `h`) into `out`, then L2-normalised, exactly
    /// as sentence-transformers' mean pooling and `Normalize` module.
    pub(crate) fn mean_pool_normalize(x: &[f32], h: usize, out: &mut [f32]) {
        let len = x.len() / h;
        out.fill(0.0);
        for row in x.chunks_exact(h) {
            for (o, v) in out.iter_mut().zip(row) {
                *o += v;
            }
        }
        let inv_len = 1.0 / (len as f32).max(1e-9);
        for o in out.iter_mut() {
            *o *= inv_len;
        }
        let norm = dot16(out, out).sqrt().max(1e-12);
        for o in out.iter_mut() {
            *o /= norm;
        }
    }
}

multiversion! {
    /// Dot products of `query` with each `dim`-float row of `rows`, into `scores`.
    pub(crate) fn dot_rows(query: &[f32], rows: &[f32], dim: usize, scores: &mut [f32]) {
        for (s, row) in scores.iter_mut().zip(rows.chunks_exact(dim)) {
            *s = dot16(query, row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f32], m: usize, w: &[f32], n: usize, k: usize, bias: &[f32]) -> Vec<f32> {
        let mut c = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let mut s = 0f64;
                for kk in 0..k {
                    s += a[i * k + kk] as f64 * w[j * k + kk] as f64;
                }
                c[i * n + j] = s as f32 + bias[j];
            }
        }
        c
    }

    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    }

    #[test]
    fn gemm_matches_naive_product_for_every_isa_and_shape() {
        let mut seed = 7;
        for &(m, n, k) in &[
            (1, 32, 5),
            (13, 64, 384),
            (150, 96, 200),
            (7, 32, 1536),
            (29, 64, 193),
        ] {
            let a: Vec<f32> = (0..m * k).map(|_| lcg(&mut seed)).collect();
            let w: Vec<f32> = (0..n * k).map(|_| lcg(&mut seed)).collect();
            let bias: Vec<f32> = (0..n).map(|_| lcg(&mut seed)).collect();
            let want = naive(&a, m, &w, n, k, &bias);
            let packed = Packed::new(&w, n, k, &bias);
            for isa in Isa::supported() {
                for epi in [Epilogue::Store, Epilogue::Add, Epilogue::StoreGelu] {
                    let mut c: Vec<f32> = (0..m * n).map(|i| i as f32 * 0.001).collect();
                    let before = c.clone();
                    gemm(
                        isa,
                        &a,
                        m,
                        &packed,
                        &mut BlockMut::of(&mut c, n, 0..n),
                        epi,
                        0..packed.panels(),
                    );
                    for i in 0..m * n {
                        let expect = match epi {
                            Epilogue::Store => want[i],
                            Epilogue::Add => want[i] + before[i],
                            Epilogue::StoreGelu => gelu_scalar(want[i]),
                        };
                        assert!(
                            (c[i] - expect).abs() < 1e-4 * (1.0 + expect.abs()),
                            "{isa:?} {epi:?} m{m} n{n} k{k} at {i}: {} vs {expect}",
                            c[i]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn erf_and_exp_are_accurate() {
        // Reference values of erf from the C library (Python's math.erf).
        for (x, want) in [
            (0.0f32, 0.0f64),
            (0.1, 0.1124629160182849),
            (0.5, 0.5204998778130465),
            (-1.0, -0.8427007929497149),
            (2.0, 0.9953222650189527),
            (3.5, 0.9999992569016276),
            (-6.0, -1.0),
        ] {
            assert!((erf(x) as f64 - want).abs() < 5e-7, "erf({x}) = {}", erf(x));
        }
        for x in [0.0f32, -0.5, -1.0, -10.0, -30.0, -80.0] {
            let want = (x as f64).exp();
            let got = exp_neg(x) as f64;
            assert!(
                ((got - want) / want).abs() < 3e-7,
                "exp({x}) = {got}, want {want}"
            );
        }
    }
}
