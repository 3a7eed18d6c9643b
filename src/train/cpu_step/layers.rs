//! The layers of the hand-written training step: strided GEMMs, 3x3
//! convolutions (Winograd forward and input gradient, im2col kernel
//! gradient), batch norm with batch statistics, ReLU, dense layers and 1x1
//! convolutions, each with its backward pass, over NHWC rows; the gradients
//! as the optimiser takes them; and the [`Pool`] their buffers come from.

use crate::net::inference::{self, grow, im2col, vec_of, TapTable};
use crate::net::winograd::WinogradConv;
use burn::module::ParamId;
use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use gemm::Parallelism;
use rayon::prelude::*;
use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

/// Positions per task in the convolutions.
const CHUNK: usize = 16;

/// Rows (cells of positions) per task in the element-wise passes.
const ROWS: usize = CHUNK * 64;

thread_local! {
    /// Scratch of the Winograd transforms and of the im2col.
    static SCRATCH: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// `dst[m, n] (+)= lhs[m, k] * rhs[k, n]`, each operand given by its row
/// and column strides (so transposes cost nothing); `accumulate` adds to
/// `dst` (row-major, contiguous) instead of overwriting it.
#[allow(clippy::too_many_arguments)]
fn mm(
    (m, n, k): (usize, usize, usize),
    dst: &mut [f32],
    accumulate: bool,
    lhs: &[f32],
    (lhs_rs, lhs_cs): (usize, usize),
    rhs: &[f32],
    (rhs_rs, rhs_cs): (usize, usize),
    par: Parallelism,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(dst.len() >= m * n);
    if k == 0 {
        if !accumulate {
            dst[..m * n].fill(0.0);
        }
        return;
    }
    assert!(lhs.len() > (m - 1) * lhs_rs + (k - 1) * lhs_cs);
    assert!(rhs.len() > (k - 1) * rhs_rs + (n - 1) * rhs_cs);
    // SAFETY: the asserts above bound every index the strides reach.
    unsafe {
        crate::util::simd::sgemm(
            crate::util::simd::isa(),
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            lhs.as_ptr(),
            lhs_cs as isize,
            lhs_rs as isize,
            rhs.as_ptr(),
            rhs_cs as isize,
            rhs_rs as isize,
            if accumulate { 1.0 } else { 0.0 },
            1.0,
            par,
        );
    }
}

/// The step's buffers, kept from one step to the next. A step's
/// activations and gradients are tens of megabytes in buffers of a few
/// megabytes; allocated afresh, each is mapped and faulted in again every
/// step, which is both slow and serial between the threads.
#[derive(Default)]
pub(in crate::train) struct Pool(Mutex<Vec<Vec<f32>>>);

impl Pool {
    /// `len` zeros, in the smallest kept buffer that holds them (else the
    /// largest, grown, so the pool keeps no more buffers than a step has
    /// alive at once).
    pub(super) fn zeroed(&self, len: usize) -> Buf<'_> {
        let mut v = self.take(len);
        v.clear();
        v.resize(len, 0.0);
        Buf { v, pool: self }
    }

    /// `len` floats that the caller writes, every one, before it reads
    /// any: a kept buffer's old values are left in place (only what it
    /// grows by is zeroed), saving a pass over megabytes a step.
    pub(super) fn overwritten(&self, len: usize) -> Buf<'_> {
        let mut v = self.take(len);
        if v.len() >= len {
            v.truncate(len);
        } else {
            v.resize(len, 0.0);
        }
        Buf { v, pool: self }
    }

    /// The kept buffer [`Pool::zeroed`] describes (or a new one).
    fn take(&self, len: usize) -> Vec<f32> {
        let mut free = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let fits = (0..free.len())
            .filter(|&i| free[i].capacity() >= len)
            .min_by_key(|&i| free[i].capacity());
        let pick = fits.or_else(|| (0..free.len()).max_by_key(|&i| free[i].capacity()));
        pick.map(|i| free.swap_remove(i)).unwrap_or_default()
    }
}

/// A buffer from a [`Pool`], given back when dropped.
pub(super) struct Buf<'p> {
    v: Vec<f32>,
    pool: &'p Pool,
}

impl Deref for Buf<'_> {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.v
    }
}

impl DerefMut for Buf<'_> {
    fn deref_mut(&mut self) -> &mut [f32] {
        &mut self.v
    }
}

impl Drop for Buf<'_> {
    fn drop(&mut self) {
        let v = std::mem::take(&mut self.v);
        self.pool.0.lock().unwrap_or_else(|e| e.into_inner()).push(v);
    }
}

fn par() -> Parallelism {
    Parallelism::Rayon(rayon::current_num_threads())
}

/// A 3x3 convolution without bias, in the forms the step needs.
pub(super) struct Conv3 {
    pub(super) id: ParamId,
    pub(super) ci: usize,
    pub(super) co: usize,
    pub(super) fwd: WinogradConv,
    /// The kernel flipped and its channels swapped: the gradient of the
    /// input is this convolution of the output's gradient (not needed for
    /// the stem).
    pub(super) bwd: Option<WinogradConv>,
}

impl Conv3 {
    pub(super) fn new(conv: &Conv2d, backward: bool) -> Conv3 {
        let [co, ci, kh, kw] = conv.weight.val().dims();
        assert_eq!((kh, kw), (3, 3), "a 3x3 convolution");
        let raw = vec_of(conv.weight.val());
        let mut w = vec![0.0f32; 9 * ci * co];
        let mut wt = vec![0.0f32; 9 * ci * co];
        for o in 0..co {
            for i in 0..ci {
                for tap in 0..9 {
                    let v = raw[(o * ci + i) * 9 + tap];
                    w[(tap * ci + i) * co + o] = v;
                    wt[((8 - tap) * co + o) * ci + i] = v;
                }
            }
        }
        Conv3 {
            id: conv.weight.id,
            ci,
            co,
            fwd: WinogradConv::new(ci, co, &w, &vec![0.0; co]),
            bwd: backward.then(|| WinogradConv::new(co, ci, &wt, &vec![0.0; ci])),
        }
    }
}

/// `out = conv(x)` (no ReLU) for `n` positions, in chunks.
pub(super) fn winograd<'p>(pool: &'p Pool, conv: &WinogradConv, x: &[f32], n: usize) -> Buf<'p> {
    let (ci, co) = (conv.c_in, conv.c_out);
    // The output transform writes every cell of every position.
    let mut out = pool.overwritten(n * 64 * co);
    x[..n * 64 * ci]
        .par_chunks(CHUNK * 64 * ci)
        .zip(out.par_chunks_mut(CHUNK * 64 * co))
        .for_each(|(xc, oc)| {
            let m = xc.len() / (64 * ci);
            SCRATCH.with(|s| {
                let s = &mut *s.borrow_mut();
                grow(s, conv.scratch_len(m));
                conv.forward_with(xc, m, s, oc, None, false);
            })
        });
    out
}

/// The kernel's gradient `[co, ci, 3, 3]` (burn's layout) of a 3x3
/// convolution with input `x` (`[n * 64, ci]`) and output gradient `dz`.
pub(super) fn kernel_grad(
    x: &[f32],
    dz: &[f32],
    n: usize,
    ci: usize,
    co: usize,
    taps: &TapTable,
) -> Vec<f32> {
    let k = 9 * ci;
    let parts: Vec<Vec<f32>> = x[..n * 64 * ci]
        .par_chunks(CHUNK * 64 * ci)
        .zip(dz[..n * 64 * co].par_chunks(CHUNK * 64 * co))
        .map(|(xc, dc)| {
            let m = xc.len() / (64 * ci);
            let rows = m * 64;
            let mut dw = vec![0.0f32; k * co];
            SCRATCH.with(|s| {
                let col = &mut *s.borrow_mut();
                im2col(xc, m, ci, taps, col);
                // dw[k, co] = colᵀ[k, rows] dz[rows, co].
                mm(
                    (k, co, rows),
                    &mut dw,
                    false,
                    col,
                    (1, k),
                    dc,
                    (co, 1),
                    Parallelism::None,
                );
            });
            dw
        })
        .collect();
    let mut sum = vec![0.0f32; k * co];
    for p in &parts {
        for (s, v) in sum.iter_mut().zip(p) {
            *s += v;
        }
    }
    let mut out = vec![0.0f32; k * co];
    for tap in 0..9 {
        for i in 0..ci {
            for o in 0..co {
                out[(o * ci + i) * 9 + tap] = sum[(tap * ci + i) * co + o];
            }
        }
    }
    out
}

/// A batch norm's parameters.
pub(super) struct Bn {
    pub(super) gamma_id: ParamId,
    pub(super) beta_id: ParamId,
    pub(super) gamma: Vec<f32>,
    pub(super) beta: Vec<f32>,
    pub(super) eps: f64,
}

impl Bn {
    pub(super) fn new(bn: &BatchNorm) -> Bn {
        Bn {
            gamma_id: bn.gamma.id,
            beta_id: bn.beta.id,
            gamma: vec_of(bn.gamma.val()),
            beta: vec_of(bn.beta.val()),
            eps: bn.epsilon,
        }
    }
}

/// What a batch norm's backward pass needs, and the batch statistics.
pub(super) struct BnCache<'p> {
    /// Normalised input `[rows, c]`.
    pub(super) xhat: Buf<'p>,
    pub(super) inv_std: Vec<f32>,
    pub(super) mean: Vec<f32>,
    /// Biased variance (what burn's running statistics take).
    pub(super) var: Vec<f32>,
}

/// Sums over row chunks: `f(row, acc)` adds row `row`'s terms into the `c`
/// accumulators; the chunks' sums are added in chunk order.
fn channel_sums(rows: usize, c: usize, f: impl Fn(std::ops::Range<usize>, &mut [f64]) + Sync) -> Vec<f64> {
    let chunks = rows.div_ceil(ROWS);
    let parts: Vec<Vec<f64>> = (0..chunks)
        .into_par_iter()
        .map(|ch| {
            let mut acc = vec![0.0f64; c];
            f(ch * ROWS..((ch + 1) * ROWS).min(rows), &mut acc);
            acc
        })
        .collect();
    let mut sum = vec![0.0f64; c];
    for p in parts {
        for (s, v) in sum.iter_mut().zip(p) {
            *s += v;
        }
    }
    sum
}

crate::util::simd::isa_kernel!(
    /// Add each channel's values and squares over `z`'s rows `rows` (`[_,
    /// c]`) to `acc` (`[2 * c]`: the sums, then the sums of squares).
    fn sums_and_squares = sums_and_squares_impl, sums_and_squares_avx2, sums_and_squares_avx512,
    (z: &[f32], c: usize, rows: std::ops::Range<usize>, acc: &mut [f64])
);

#[inline(always)]
fn sums_and_squares_impl(z: &[f32], c: usize, rows: std::ops::Range<usize>, acc: &mut [f64]) {
    let (s, sq) = acc.split_at_mut(c);
    for r in rows {
        for ((s, sq), &v) in s.iter_mut().zip(sq.iter_mut()).zip(&z[r * c..(r + 1) * c]) {
            let v = v as f64;
            *s += v;
            *sq += v * v;
        }
    }
}

crate::util::simd::isa_kernel!(
    /// Add each channel's `dy` and `dy * xhat` over rows `rows` (`[_, c]`)
    /// to `acc` (`[2 * c]`: beta's gradient, then gamma's).
    fn grad_sums = grad_sums_impl, grad_sums_avx2, grad_sums_avx512,
    (dy: &[f32], xhat: &[f32], c: usize, rows: std::ops::Range<usize>, acc: &mut [f64])
);

#[inline(always)]
fn grad_sums_impl(dy: &[f32], xhat: &[f32], c: usize, rows: std::ops::Range<usize>, acc: &mut [f64]) {
    let (db, dg) = acc.split_at_mut(c);
    for r in rows {
        let (d, x) = (&dy[r * c..(r + 1) * c], &xhat[r * c..(r + 1) * c]);
        for k in 0..c {
            db[k] += d[k] as f64;
            dg[k] += d[k] as f64 * x[k] as f64;
        }
    }
}

crate::util::simd::isa_kernel!(
    /// `xhat = (z - mean) * inv_std` per channel, over rows of `c`.
    fn normalise = normalise_impl, normalise_avx2, normalise_avx512,
    (xhat: &mut [f32], z: &[f32], mean: &[f32], inv_std: &[f32])
);

#[inline(always)]
fn normalise_impl(xhat: &mut [f32], z: &[f32], mean: &[f32], inv_std: &[f32]) {
    let c = mean.len();
    for (xr, zr) in xhat.chunks_exact_mut(c).zip(z.chunks_exact(c)) {
        for k in 0..c {
            xr[k] = (zr[k] - mean[k]) * inv_std[k];
        }
    }
}

crate::util::simd::isa_kernel!(
    /// `out = gamma * xhat + beta [+ residual]`, then ReLU if `relu`, over
    /// rows of `c`.
    fn affine = affine_impl, affine_avx2, affine_avx512,
    (out: &mut [f32], xhat: &[f32], gamma: &[f32], beta: &[f32], residual: Option<&[f32]>, relu: bool)
);

#[inline(always)]
fn affine_impl(
    out: &mut [f32],
    xhat: &[f32],
    gamma: &[f32],
    beta: &[f32],
    residual: Option<&[f32]>,
    relu: bool,
) {
    let c = gamma.len();
    for (r, (orow, xrow)) in out.chunks_exact_mut(c).zip(xhat.chunks_exact(c)).enumerate() {
        for k in 0..c {
            orow[k] = gamma[k] * xrow[k] + beta[k];
        }
        if let Some(res) = residual {
            for (v, s) in orow.iter_mut().zip(&res[r * c..(r + 1) * c]) {
                *v += s;
            }
        }
        if relu {
            for v in orow {
                *v = v.max(0.0);
            }
        }
    }
}

crate::util::simd::isa_kernel!(
    /// `dz = scale * (dy - mb - xhat * mg)` per channel, over rows of `c`.
    fn input_grad = input_grad_impl, input_grad_avx2, input_grad_avx512,
    (dz: &mut [f32], dy: &[f32], xhat: &[f32], scale: &[f32], mb: &[f32], mg: &[f32])
);

#[inline(always)]
fn input_grad_impl(dz: &mut [f32], dy: &[f32], xhat: &[f32], scale: &[f32], mb: &[f32], mg: &[f32]) {
    let c = scale.len();
    for ((orow, drow), xrow) in dz
        .chunks_exact_mut(c)
        .zip(dy.chunks_exact(c))
        .zip(xhat.chunks_exact(c))
    {
        for k in 0..c {
            orow[k] = scale[k] * (drow[k] - mb[k] - xrow[k] * mg[k]);
        }
    }
}

crate::util::simd::isa_kernel!(
    /// `dy = 0` where `y <= 0`.
    fn relu_mask = relu_mask_impl, relu_mask_avx2, relu_mask_avx512,
    (dy: &mut [f32], y: &[f32])
);

#[inline(always)]
fn relu_mask_impl(dy: &mut [f32], y: &[f32]) {
    for (d, &y) in dy.iter_mut().zip(y) {
        if y <= 0.0 {
            *d = 0.0;
        }
    }
}

/// Batch statistics of `z` (`[rows, c]`) and its normalised values.
pub(super) fn bn_forward<'p>(pool: &'p Pool, z: &[f32], c: usize, eps: f64) -> BnCache<'p> {
    let rows = z.len() / c;
    // One pass: each channel's sum and sum of squares (in f64, so the
    // variance as their difference loses nothing that matters here).
    let sums = channel_sums(rows, 2 * c, |range, acc| sums_and_squares(z, c, range, acc));
    let nf = rows as f64;
    let mean: Vec<f64> = sums[..c].iter().map(|s| s / nf).collect();
    let var: Vec<f64> = (0..c)
        .map(|k| (sums[c + k] / nf - mean[k] * mean[k]).max(0.0))
        .collect();
    let inv_std: Vec<f32> = var.iter().map(|v| (1.0 / (v + eps).sqrt()) as f32).collect();
    let mean32: Vec<f32> = mean.iter().map(|&m| m as f32).collect();
    let mut xhat = pool.overwritten(z.len());
    xhat.par_chunks_mut(ROWS * c)
        .zip(z.par_chunks(ROWS * c))
        .for_each(|(xo, zi)| normalise(xo, zi, &mean32, &inv_std));
    BnCache {
        xhat,
        inv_std,
        mean: mean32,
        var: var.iter().map(|&v| v as f32).collect(),
    }
}

/// `relu(gamma * xhat + beta [+ residual])`.
pub(super) fn bn_relu<'p>(pool: &'p Pool, cache: &BnCache, bn: &Bn, residual: Option<&[f32]>) -> Buf<'p> {
    bn_apply(pool, cache, bn, residual, true)
}

/// `gamma * xhat + beta [+ residual]`, then ReLU if `relu`.
pub(super) fn bn_apply<'p>(
    pool: &'p Pool,
    cache: &BnCache,
    bn: &Bn,
    residual: Option<&[f32]>,
    relu: bool,
) -> Buf<'p> {
    let c = bn.gamma.len();
    let mut out = pool.overwritten(cache.xhat.len());
    out.par_chunks_mut(ROWS * c).enumerate().for_each(|(ch, o)| {
        let base = ch * ROWS * c;
        let xh = &cache.xhat[base..base + o.len()];
        let res = residual.map(|r| &r[base..base + o.len()]);
        affine(o, xh, &bn.gamma, &bn.beta, res, relu);
    });
    out
}

/// `dy * (y > 0)`: the gradient through a ReLU whose output was `y`.
pub(super) fn relu_grad(dy: &mut [f32], y: &[f32]) {
    dy.par_chunks_mut(ROWS * 8)
        .zip(y.par_chunks(ROWS * 8))
        .for_each(|(d, y)| relu_mask(d, y));
}

/// Gradients of a batch norm (batch statistics): of its input, gamma and
/// beta, from its output's gradient `dy`.
pub(super) fn bn_backward<'p>(
    pool: &'p Pool,
    dy: &[f32],
    cache: &BnCache,
    bn: &Bn,
) -> (Buf<'p>, Vec<f32>, Vec<f32>) {
    let c = bn.gamma.len();
    let rows = dy.len() / c;
    // One pass: beta's gradient (the sum of dy) and gamma's (of dy * xhat).
    let sums = channel_sums(rows, 2 * c, |range, acc| {
        grad_sums(dy, &cache.xhat, c, range, acc)
    });
    let (dbeta, dgamma) = sums.split_at(c);
    let nf = rows as f64;
    let mb: Vec<f32> = dbeta.iter().map(|s| (s / nf) as f32).collect();
    let mg: Vec<f32> = dgamma.iter().map(|s| (s / nf) as f32).collect();
    let scale: Vec<f32> = (0..c).map(|k| bn.gamma[k] * cache.inv_std[k]).collect();
    let mut dz = pool.overwritten(dy.len());
    dz.par_chunks_mut(ROWS * c)
        .zip(dy.par_chunks(ROWS * c))
        .zip(cache.xhat.par_chunks(ROWS * c))
        .for_each(|((o, d), x)| input_grad(o, d, x, &scale, &mb, &mg));
    (
        dz,
        dgamma.iter().map(|&v| v as f32).collect(),
        dbeta.iter().map(|&v| v as f32).collect(),
    )
}

/// A dense layer (the inference path's) and its parameters' ids.
pub(super) struct Dense {
    pub(super) w_id: ParamId,
    pub(super) b_id: Option<ParamId>,
    pub(super) d: inference::Dense,
}

impl Dense {
    pub(super) fn new(l: &Linear) -> Dense {
        Dense {
            w_id: l.weight.id,
            b_id: l.bias.as_ref().map(|b| b.id),
            d: inference::Dense::new(l),
        }
    }

    /// `x[rows, inputs] * w + b`.
    pub(super) fn forward<'p>(&self, pool: &'p Pool, x: &[f32], rows: usize) -> Buf<'p> {
        let mut out = pool.zeroed(rows * self.d.outputs);
        self.d.forward(x, rows, &mut out, false, par());
        out
    }

    /// Gradients of the weights, the bias and (into `dx`, added) the input
    /// from the output's gradient `dy` `[rows, outputs]`.
    pub(super) fn backward(&self, x: &[f32], dy: &[f32], rows: usize, dx: Option<&mut [f32]>, g: &mut Grads) {
        let (i, o) = (self.d.inputs, self.d.outputs);
        let mut dw = vec![0.0f32; i * o];
        // dw[i, o] = xᵀ[i, rows] dy[rows, o].
        mm((i, o, rows), &mut dw, false, x, (1, i), dy, (o, 1), par());
        g.put(self.w_id, dw, vec![i, o]);
        if let Some(id) = self.b_id {
            let mut db = vec![0.0f32; o];
            for r in 0..rows {
                for (d, v) in db.iter_mut().zip(&dy[r * o..(r + 1) * o]) {
                    *d += v;
                }
            }
            g.put(id, db, vec![o]);
        }
        if let Some(dx) = dx {
            // dx[rows, i] += dy[rows, o] wᵀ[o, i].
            mm((rows, i, o), dx, true, dy, (o, 1), &self.d.w, (1, o), par());
        }
    }
}

/// A 1x1 convolution without bias, `w` `[co, ci]` (burn's layout).
pub(super) struct Conv1 {
    pub(super) id: ParamId,
    pub(super) ci: usize,
    pub(super) co: usize,
    pub(super) w: Vec<f32>,
}

impl Conv1 {
    pub(super) fn new(conv: &Conv2d) -> Conv1 {
        let [co, ci, _, _] = conv.weight.val().dims();
        Conv1 {
            id: conv.weight.id,
            ci,
            co,
            w: vec_of(conv.weight.val()),
        }
    }

    /// `x[rows, ci] -> [rows, co]`.
    pub(super) fn forward<'p>(&self, pool: &'p Pool, x: &[f32], rows: usize) -> Buf<'p> {
        let mut out = pool.zeroed(rows * self.co);
        mm(
            (rows, self.co, self.ci),
            &mut out,
            false,
            x,
            (self.ci, 1),
            &self.w,
            (1, self.ci),
            par(),
        );
        out
    }

    /// The kernel's gradient, and the input's added into `dx`.
    pub(super) fn backward(&self, x: &[f32], dz: &[f32], rows: usize, dx: &mut [f32], g: &mut Grads) {
        let (ci, co) = (self.ci, self.co);
        let mut dw = vec![0.0f32; co * ci];
        // dw[co, ci] = dzᵀ[co, rows] x[rows, ci].
        mm((co, ci, rows), &mut dw, false, dz, (1, co), x, (ci, 1), par());
        g.put(self.id, dw, vec![co, ci, 1, 1]);
        mm((rows, ci, co), dx, true, dz, (co, 1), &self.w, (ci, 1), par());
    }
}

/// Gradients by parameter: id, values, shape (burn's).
pub(in crate::train) struct Grads(pub(super) Vec<(ParamId, Vec<f32>, Vec<usize>)>);

impl Grads {
    pub(super) fn put(&mut self, id: ParamId, values: Vec<f32>, shape: Vec<usize>) {
        self.0.push((id, values, shape));
    }

    pub(super) fn put_bn(&mut self, bn: &Bn, dgamma: Vec<f32>, dbeta: Vec<f32>) {
        let c = dgamma.len();
        self.put(bn.gamma_id, dgamma, vec![c]);
        self.put(bn.beta_id, dbeta, vec![c]);
    }

    /// As the optimiser takes them, on the plain `device`.
    pub(in crate::train) fn into_params(self, device: &Device) -> GradientsParams {
        let mut g = GradientsParams::new();
        for (id, v, shape) in self.0 {
            match shape.len() {
                1 => g.register(id, Tensor::<1>::from_data(TensorData::new(v, [shape[0]]), device)),
                2 => g.register(
                    id,
                    Tensor::<2>::from_data(TensorData::new(v, [shape[0], shape[1]]), device),
                ),
                _ => g.register(
                    id,
                    Tensor::<4>::from_data(
                        TensorData::new(v, [shape[0], shape[1], shape[2], shape[3]]),
                        device,
                    ),
                ),
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::Pool;

    /// A buffer given back is handed out again, zeroed, and the pool keeps
    /// no more buffers than were alive at once.
    #[test]
    fn pool_reuses_zeroed_buffers() {
        let pool = Pool::default();
        {
            let mut a = pool.zeroed(100);
            let mut b = pool.zeroed(300);
            a.fill(1.0);
            b.fill(2.0);
        }
        let ptrs: Vec<_> = pool.0.lock().unwrap().iter().map(|v| v.as_ptr()).collect();
        assert_eq!(ptrs.len(), 2);
        // The smallest that fits: 250 takes the 300 buffer, then 500 grows
        // the other rather than adding a third.
        let c = pool.zeroed(250);
        let d = pool.zeroed(500);
        assert!(c.iter().all(|&v| v == 0.0) && c.len() == 250);
        assert!(d.iter().all(|&v| v == 0.0) && d.len() == 500);
        assert!(ptrs.contains(&c.as_ptr()));
        drop((c, d));
        assert_eq!(pool.0.lock().unwrap().len(), 2);
    }
}
