//! The fast inference path: the same network as [`Net`], run without burn's
//! per-op overhead.
//!
//! Built once from the burn weights ([`FastNet::from_net`]); burn stays the
//! model's definition, its training and its files. What makes it fast on a
//! CPU with an 8x8 board and few channels:
//!
//! - batch norm folded into the convolution weights and a bias;
//! - one layout, NHWC (`[positions * 64, channels]`), from the stem to the
//!   heads, so no transposes;
//! - each 3x3 convolution is an im2col (`[positions * 64, 9 * C_in]`) and one
//!   GEMM with the folded `[9 * C_in, C_out]` weights (the `gemm` crate's
//!   AVX2/FMA kernels), with bias, residual and ReLU fused into the
//!   destination before and after the GEMM;
//! - the tower runs on small chunks of positions (their activations and
//!   im2col stay in the core's cache), one chunk per rayon task, so both
//!   cores work without synchronising inside the tower;
//! - the dense policy head's layer runs as one GEMM over the whole batch,
//!   or, for the search, only at the legal moves' indices
//!   ([`FastNet::evaluate`]); the bilinear head's logits are dot products
//!   of a start and an end vector, so the search computes only the legal
//!   moves' too.
//!
//! A test (`tests/fastnet.rs`) checks its outputs equal burn's forward pass
//! to 1e-4 on random positions.

use super::encode::{BoardCells, Inputs, Observation, MAX_PLANES, POLICY_SIZE};
use super::model::Net;
use super::winograd::WinogradConv;
use burn::tensor::Tensor;
use gemm::Parallelism;
use rayon::prelude::*;
use std::cell::RefCell;

mod heads;
use heads::{bilinear_dot, bilinear_row, conv1_cells, conv1_planes, dot};

/// Positions per tower chunk (one rayon task each); chosen so that a
/// chunk's im2col buffer (`CHUNK * 64 * 9 * C * 4` bytes, 590 KB at 32
/// channels) stays in L2.
const CHUNK: usize = 8;

/// Batches up to this size are split evenly over the threads (one chunk
/// per thread): a player's few leaves spread over every core, and each
/// core runs its share as one chunk.
const SMALL_BATCH: usize = 16;

/// Positions per tower chunk for a batch of `n` on `threads` threads: an
/// even share per thread in a small batch, else [`CHUNK`]. A position's
/// outputs do not depend on the chunk it runs in (`tests/fastnet.rs`), so
/// a batch gives the same bits on any number of threads.
fn chunk_len(n: usize, threads: usize) -> usize {
    if n <= SMALL_BATCH {
        n.div_ceil(threads.max(1)).max(1)
    } else {
        CHUNK
    }
}

/// A tensor's values as `f32`s.
pub(crate) fn vec_of<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .expect("f32 tensor")
}

/// A convolution (3x3 same-padded or 1x1) with batch norm folded in, as a
/// `[taps * c_in, c_out]` row-major matrix and a bias.
#[derive(Clone, Debug)]
struct Folded {
    c_in: usize,
    c_out: usize,
    /// `w[(tap * c_in + ci) * c_out + co]`, tap = ky * 3 + kx (or 0 for 1x1).
    w: Vec<f32>,
    b: Vec<f32>,
}

impl Folded {
    fn new(conv: &burn::nn::conv::Conv2d, bn: &burn::nn::BatchNorm) -> Folded {
        let dims = conv.weight.val().dims();
        let [c_out, c_in, kh, kw] = dims;
        let taps = kh * kw;
        let w = vec_of(conv.weight.val());
        let gamma = vec_of(bn.gamma.val());
        let beta = vec_of(bn.beta.val());
        let mean = vec_of(bn.running_mean.value());
        let var = vec_of(bn.running_var.value());
        let conv_bias = conv.bias.as_ref().map(|b| vec_of(b.val()));
        let mut fw = vec![0.0f32; taps * c_in * c_out];
        let mut fb = vec![0.0f32; c_out];
        for co in 0..c_out {
            let scale = gamma[co] / (var[co] + bn.epsilon as f32).sqrt();
            let cb = conv_bias.as_ref().map_or(0.0, |b| b[co]);
            fb[co] = beta[co] + (cb - mean[co]) * scale;
            for ci in 0..c_in {
                for t in 0..taps {
                    fw[(t * c_in + ci) * c_out + co] = w[((co * c_in + ci) * taps) + t] * scale;
                }
            }
        }
        Folded {
            c_in,
            c_out,
            w: fw,
            b: fb,
        }
    }
}

/// How the fast path computes the tower's 3x3 convolutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvAlgorithm {
    /// Winograd F(2x2, 3x3): 2.25x fewer multiply-adds (the default).
    Winograd,
    /// im2col + one GEMM per convolution.
    Im2col,
}

/// A tower convolution in the form its algorithm wants.
#[derive(Clone, Debug)]
enum TowerConv {
    Winograd(WinogradConv),
    Im2col(Folded),
}

impl TowerConv {
    fn new(conv: &burn::nn::conv::Conv2d, bn: &burn::nn::BatchNorm, algo: ConvAlgorithm) -> TowerConv {
        let f = Folded::new(conv, bn);
        match algo {
            ConvAlgorithm::Winograd => TowerConv::Winograd(WinogradConv::new(f.c_in, f.c_out, &f.w, &f.b)),
            ConvAlgorithm::Im2col => TowerConv::Im2col(f),
        }
    }
}

/// A dense layer: `w` is `[inputs, outputs]` row-major, as burn stores it.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
    pub(crate) w: Vec<f32>,
    pub(crate) b: Vec<f32>,
}

impl Dense {
    pub(crate) fn new(l: &burn::nn::Linear) -> Dense {
        let [inputs, outputs] = l.weight.val().dims();
        Dense {
            inputs,
            outputs,
            w: vec_of(l.weight.val()),
            b: l.bias
                .as_ref()
                .map_or_else(|| vec![0.0; outputs], |b| vec_of(b.val())),
        }
    }

    /// `out[r] = x[r] * w + b` for `rows` rows, with optional ReLU.
    pub(crate) fn forward(&self, x: &[f32], rows: usize, out: &mut [f32], relu: bool, par: Parallelism) {
        for r in 0..rows {
            out[r * self.outputs..(r + 1) * self.outputs].copy_from_slice(&self.b);
        }
        // SAFETY: the slices hold rows x inputs, inputs x outputs and
        // rows x outputs elements, row-major, as the strides say.
        unsafe {
            gemm_rm(rows, self.outputs, self.inputs, out, x, &self.w, par);
        }
        if relu {
            relu_in_place(out);
        }
    }
}

/// `dst[m, n] += lhs[m, k] * rhs[k, n]`, all row-major and contiguous.
///
/// # Safety
/// `dst`, `lhs` and `rhs` must hold at least `m * n`, `m * k` and `k * n`
/// elements.
unsafe fn gemm_rm(m: usize, n: usize, k: usize, dst: &mut [f32], lhs: &[f32], rhs: &[f32], par: Parallelism) {
    assert!(dst.len() >= m * n && lhs.len() >= m * k && rhs.len() >= k * n);
    crate::util::simd::sgemm(
        crate::util::simd::isa(),
        m,
        n,
        k,
        dst.as_mut_ptr(),
        1,
        n as isize,
        true,
        lhs.as_ptr(),
        1,
        k as isize,
        rhs.as_ptr(),
        1,
        n as isize,
        1.0,
        1.0,
        par,
    );
}

fn relu_in_place(x: &mut [f32]) {
    for v in x {
        *v = v.max(0.0);
    }
}

/// For each of the 64 cells and 9 taps, the source cell or `None` off the
/// board (3x3, padding 1).
pub(crate) type TapTable = [[Option<u8>; 9]; 64];

/// The [`TapTable`] of the 8x8 board.
pub(crate) fn tap_table() -> TapTable {
    let mut t = [[None; 9]; 64];
    for (cell, row) in t.iter_mut().enumerate() {
        let (y, x) = ((cell / 8) as i32, (cell % 8) as i32);
        for (tap, slot) in row.iter_mut().enumerate() {
            let (sy, sx) = (y + tap as i32 / 3 - 1, x + tap as i32 % 3 - 1);
            if (0..8).contains(&sy) && (0..8).contains(&sx) {
                *slot = Some((sy * 8 + sx) as u8);
            }
        }
    }
    t
}

/// The 3x3 patches of `x` (`[n * 64, ci]`, NHWC) as rows of `col`
/// (`[n * 64, 9 * ci]`, tap-major: `col[row][tap * ci + i]`), zero off the
/// board.
pub(crate) fn im2col(x: &[f32], n: usize, ci: usize, taps: &TapTable, col: &mut Vec<f32>) {
    let k = 9 * ci;
    grow(col, n * 64 * k);
    for p in 0..n {
        let xp = &x[p * 64 * ci..(p + 1) * 64 * ci];
        for cell in 0..64 {
            let dst = &mut col[(p * 64 + cell) * k..(p * 64 + cell + 1) * k];
            for (tap, src) in taps[cell].iter().enumerate() {
                let d = &mut dst[tap * ci..(tap + 1) * ci];
                match src {
                    Some(s) => d.copy_from_slice(&xp[*s as usize * ci..(*s as usize + 1) * ci]),
                    None => d.fill(0.0),
                }
            }
        }
    }
}

/// Per-thread scratch buffers, reused between calls (large fresh
/// allocations would page-fault on every call).
#[derive(Default)]
struct Scratch {
    col: Vec<f32>,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Make `v` at least `n` long.
pub(crate) fn grow(v: &mut Vec<f32>, n: usize) {
    if v.len() < n {
        v.resize(n, 0.0);
    }
}

/// The network in inference form. Outputs equal [`Net::forward`]'s (in
/// inference mode) up to float rounding.
#[derive(Clone, Debug)]
pub struct FastNet {
    channels: usize,
    /// The input planes the stem reads.
    inputs: Inputs,
    stem: Folded,
    /// Residual blocks' convolutions.
    tower: Vec<(TowerConv, TowerConv)>,
    policy_conv: Folded,
    policy: PolicyLayer,
    value_conv: Folded,
    value_fc1: Dense,
    value_fc2: Dense,
    /// The auxiliary head (final material, plies left), if the network has it.
    aux_fc: Option<Dense>,
    taps: TapTable,
}

/// The policy head after its 1x1 convolution.
#[derive(Clone, Debug)]
enum PolicyLayer {
    /// The dense head's layer and its weights transposed (`[POLICY_SIZE,
    /// planes * 64]`): one contiguous row per move, for logits at the
    /// legal moves only.
    Dense { fc: Dense, fc_t: Vec<f32> },
    /// The bilinear head: `d` features per start and per end vector, the
    /// bias of each move, and the cells the policy index numbers.
    Bilinear {
        d: usize,
        bias: Vec<f32>,
        board: BoardCells,
    },
}

impl PolicyLayer {
    /// Width of one position's policy input.
    fn inputs(&self) -> usize {
        match self {
            PolicyLayer::Dense { fc, .. } => fc.inputs,
            PolicyLayer::Bilinear { d, board, .. } => board.count() * 2 * d,
        }
    }
}

/// What the tower and the cheap heads produce for a batch.
struct Trunk {
    /// Policy head input, `[n, policy.inputs()]`: for the dense head the
    /// 1x1 conv + ReLU, `[n, planes * 64]` (plane-major, as burn's
    /// reshape); for the bilinear head each playing cell's start vector
    /// (already over `sqrt(d)`) then end vector, `[n, cells, 2 * d]`.
    policy_in: Vec<f32>,
    /// Value logits `[n, 3]`.
    value: Vec<f32>,
    /// The predicted final material `[n]` (0 without the auxiliary head).
    material: Vec<f32>,
}

impl FastNet {
    /// True for the boards the fast path (and the hand-written training
    /// step) are written for: 8x8, with the shipped games' 4,096 policy
    /// logits.
    pub fn covers(board: BoardCells) -> bool {
        board.is_8x8() && board.policy_size() == POLICY_SIZE
    }

    /// Fold the weights of `net` (its batch-norm running statistics are used,
    /// as in inference mode). The fast path is written for the 8x8 boards:
    /// it panics for a network of another board, which
    /// [`NetEvaluator`](super::NetEvaluator) runs with burn's forward pass.
    pub fn from_net(net: &Net) -> FastNet {
        FastNet::with_algorithm(net, ConvAlgorithm::Winograd)
    }

    /// As [`FastNet::from_net`], with a chosen convolution algorithm (for
    /// comparisons).
    pub fn with_algorithm(net: &Net, algo: ConvAlgorithm) -> FastNet {
        assert!(
            FastNet::covers(net.board),
            "the fast inference path covers the 8x8 boards"
        );
        net.sync_running_stats();
        let policy_conv = Folded::new(&net.policy_conv, &net.policy_bn);
        let policy = match (&net.policy_fc, &net.policy_bias) {
            (Some(fc), _) => {
                let fc = Dense::new(fc);
                let mut fc_t = vec![0.0f32; fc.w.len()];
                for i in 0..fc.inputs {
                    for o in 0..fc.outputs {
                        fc_t[o * fc.inputs + i] = fc.w[i * fc.outputs + o];
                    }
                }
                PolicyLayer::Dense { fc, fc_t }
            }
            (None, Some(bias)) => PolicyLayer::Bilinear {
                d: policy_conv.c_out / 2,
                bias: vec_of(bias.val()),
                board: net.board,
            },
            (None, None) => unreachable!("a network's policy head has a dense layer or a bias"),
        };
        let stem = Folded::new(&net.stem, &net.stem_bn);
        FastNet {
            channels: stem.c_out,
            inputs: net.inputs(),
            stem,
            tower: net
                .blocks
                .iter()
                .map(|b| {
                    (
                        TowerConv::new(&b.conv1, &b.bn1, algo),
                        TowerConv::new(&b.conv2, &b.bn2, algo),
                    )
                })
                .collect(),
            policy_conv,
            policy,
            value_conv: Folded::new(&net.value_conv, &net.value_bn),
            value_fc1: Dense::new(&net.value_fc1),
            value_fc2: Dense::new(&net.value_fc2),
            aux_fc: net.aux_fc.as_ref().map(Dense::new),
            taps: tap_table(),
        }
    }

    /// 3x3 convolution of `x` (`[n * 64, c_in]`) into `out` (`[n * 64,
    /// c_out]`), adding `residual` if given, then ReLU.
    fn conv3(
        &self,
        f: &Folded,
        x: &[f32],
        n: usize,
        col: &mut Vec<f32>,
        out: &mut [f32],
        residual: Option<&[f32]>,
    ) {
        let (ci, co) = (f.c_in, f.c_out);
        let k = 9 * ci;
        let rows = n * 64;
        im2col(x, n, ci, &self.taps, col);
        let out = &mut out[..rows * co];
        match residual {
            Some(r) => {
                for (row, rrow) in out.chunks_exact_mut(co).zip(r.chunks_exact(co)) {
                    for ((o, &rv), &b) in row.iter_mut().zip(rrow).zip(&f.b) {
                        *o = rv + b;
                    }
                }
            }
            None => {
                for row in out.chunks_exact_mut(co) {
                    row.copy_from_slice(&f.b);
                }
            }
        }
        // SAFETY: sizes checked by gemm_rm's assert.
        unsafe { gemm_rm(rows, co, k, out, &col[..rows * k], &f.w, Parallelism::None) };
        relu_in_place(out);
    }

    fn tower_conv(
        &self,
        f: &TowerConv,
        x: &[f32],
        n: usize,
        col: &mut Vec<f32>,
        out: &mut [f32],
        residual: Option<&[f32]>,
    ) {
        match f {
            TowerConv::Winograd(w) => {
                grow(col, w.scratch_len(n));
                w.forward(x, n, col, out, residual);
            }
            TowerConv::Im2col(f) => self.conv3(f, x, n, col, out, residual),
        }
    }

    /// The tower and the cheap heads for a chunk of observations; writes
    /// `[n, planes * 64]` policy inputs, `[n, 3]` value logits and `[n]` predicted
    /// final material. `small`: the chunk is part of a small batch.
    fn trunk_chunk(
        &self,
        obs: &[Observation],
        policy_in: &mut [f32],
        value: &mut [f32],
        material: &mut [f32],
        small: bool,
    ) {
        let n = obs.len();
        SCRATCH.with(|s| {
            let s = &mut *s.borrow_mut();
            let c = self.channels;
            let np = self.inputs.planes();
            grow(&mut s.a, n * 64 * c.max(np));
            grow(&mut s.b, n * 64 * c);
            grow(&mut s.c, n * 64 * c);
            // Each observation's planes (plane-major), transposed to NHWC rows.
            let mut buf = [0.0f32; MAX_PLANES * 64];
            let planes = &mut buf[..np * 64];
            for (p, o) in obs.iter().enumerate() {
                o.write_planes(self.inputs, planes);
                for pl in 0..np {
                    for cell in 0..64 {
                        s.a[(p * 64 + cell) * np + pl] = planes[pl * 64 + cell];
                    }
                }
            }
            let (a, b, t) = (&mut s.a, &mut s.b, &mut s.c);
            self.conv3(&self.stem, &a[..n * 64 * np], n, &mut s.col, b, None);
            // h in b; each block: t = conv1(h), a = conv2(t) + h, swap.
            let (mut h, mut spare) = (b, a);
            for (c1, c2) in &self.tower {
                self.tower_conv(c1, &h[..n * 64 * c], n, &mut s.col, t, None);
                self.tower_conv(c2, &t[..n * 64 * c], n, &mut s.col, spare, Some(&h[..n * 64 * c]));
                std::mem::swap(&mut h, &mut spare);
            }
            let h = &h[..n * 64 * c];
            match self.policy {
                PolicyLayer::Dense { .. } => conv1_planes(&self.policy_conv, h, n, policy_in),
                PolicyLayer::Bilinear { board, .. } => conv1_cells(&self.policy_conv, board, h, n, policy_in),
            }
            let vin = &mut t[..n * 64];
            conv1_planes(&self.value_conv, h, n, vin);
            // A small batch's value head runs one position a product (the
            // GEMM takes another summation order for a single row), so
            // that its bits do not depend on how the batch was split.
            let rows = if small { 1 } else { n };
            for at in (0..n).step_by(rows) {
                self.value_rows(
                    &vin[at * 64..(at + rows) * 64],
                    rows,
                    &mut value[at * 3..(at + rows) * 3],
                    &mut material[at..at + rows],
                );
            }
        })
    }

    /// The value head (and the material head) on `rows` positions' value
    /// planes `[rows, 64]`.
    fn value_rows(&self, vin: &[f32], rows: usize, value: &mut [f32], material: &mut [f32]) {
        let hid = self.value_fc1.outputs;
        let mut v1 = vec![0.0f32; rows * hid];
        self.value_fc1
            .forward(vin, rows, &mut v1, true, Parallelism::None);
        self.value_fc2.forward(&v1, rows, value, false, Parallelism::None);
        if let Some(aux) = &self.aux_fc {
            let k = aux.outputs;
            let mut out = vec![0.0f32; rows * k];
            aux.forward(&v1, rows, &mut out, false, Parallelism::None);
            for (m, row) in material.iter_mut().zip(out.chunks_exact(k)) {
                *m = row[0];
            }
        }
    }

    fn trunk(&self, obs: &[Observation]) -> Trunk {
        let n = obs.len();
        let pin = self.policy.inputs();
        let mut policy_in = vec![0.0f32; n * pin];
        let mut value = vec![0.0f32; n * 3];
        let mut material = vec![0.0f32; n];
        let chunk = chunk_len(n, rayon::current_num_threads());
        let small = n <= SMALL_BATCH;
        if n <= chunk {
            self.trunk_chunk(obs, &mut policy_in, &mut value, &mut material, small);
        } else {
            obs.par_chunks(chunk)
                .zip(policy_in.par_chunks_mut(chunk * pin))
                .zip(value.par_chunks_mut(chunk * 3))
                .zip(material.par_chunks_mut(chunk))
                .for_each(|(((o, p), v), m)| self.trunk_chunk(o, p, v, m, small));
        }
        Trunk {
            policy_in,
            value,
            material,
        }
    }

    /// The input planes the network reads.
    pub fn inputs(&self) -> Inputs {
        self.inputs
    }

    /// Policy logits `[n, POLICY_SIZE]` and value logits `[n, 3]` (win,
    /// draw, loss of the side to move) for a batch of observations: the
    /// same outputs as [`Net::forward`].
    pub fn forward(&self, obs: &[Observation]) -> (Vec<f32>, Vec<f32>) {
        let n = obs.len();
        let t = self.trunk(obs);
        let mut policy = vec![0.0f32; n * POLICY_SIZE];
        match &self.policy {
            PolicyLayer::Dense { fc, .. } => {
                let par = if n >= 16 {
                    Parallelism::Rayon(rayon::current_num_threads())
                } else {
                    Parallelism::None
                };
                fc.forward(&t.policy_in, n, &mut policy, false, par);
            }
            PolicyLayer::Bilinear { d, bias, board } => {
                let pin = self.policy.inputs();
                policy
                    .par_chunks_mut(POLICY_SIZE)
                    .zip(t.policy_in.par_chunks(pin))
                    .for_each(|(out, x)| bilinear_row(x, *d, *board, bias, out));
            }
        }
        (policy, t.value)
    }

    /// Policy logits at the given indices only (one slice of indices per
    /// position), value logits `[n, 3]` and the predicted final material
    /// `[n]` (0 without the auxiliary head): what the search needs, without
    /// the other ~4,000 logits (a dense head's rows, a bilinear head's dot products).
    pub fn evaluate<I: AsRef<[u16]>>(&self, obs: &[Observation], indices: &[I]) -> SearchOutputs {
        assert_eq!(obs.len(), indices.len());
        let t = self.trunk(obs);
        let pin = self.policy.inputs();
        let logits = indices
            .iter()
            .enumerate()
            .map(|(p, idx)| {
                let x = &t.policy_in[p * pin..(p + 1) * pin];
                let idx = idx.as_ref().iter().map(|&j| j as usize);
                match &self.policy {
                    PolicyLayer::Dense { fc, fc_t } => idx
                        .map(|j| fc.b[j] + dot(x, &fc_t[j * pin..(j + 1) * pin]))
                        .collect(),
                    PolicyLayer::Bilinear { d, bias, board } => {
                        idx.map(|j| bias[j] + bilinear_dot(x, *d, *board, j)).collect()
                    }
                }
            })
            .collect();
        SearchOutputs {
            logits,
            value: t.value,
            material: t.material,
        }
    }
}

/// What [`FastNet::evaluate`] gives the search for a batch.
pub struct SearchOutputs {
    /// Policy logits at each position's requested indices.
    pub logits: Vec<Vec<f32>>,
    /// Value logits `[n, 3]` (win, draw, loss of the side to move).
    pub value: Vec<f32>,
    /// Predicted final material `[n]` (0 without the auxiliary head).
    pub material: Vec<f32>,
}
