//! The heads' kernels of the fast path: the 1x1 convolutions into the
//! value and policy heads and the bilinear head's products, compiled for
//! each kernel path (`util::simd::isa_kernel!`).

use super::Folded;
use crate::net::encode::{BoardCells, POLICY_SIZE};

crate::util::simd::isa_kernel!(
    /// 1x1 convolution + ReLU into plane-major `[n, c_out * 64]` (burn's
    /// `[B, C, 8, 8]` flattened).
    pub(super) fn conv1_planes = conv1_planes_impl, conv1_planes_avx2, conv1_planes_avx512,
    (f: &Folded, x: &[f32], n: usize, out: &mut [f32])
);

#[inline(always)]
fn conv1_planes_impl(f: &Folded, x: &[f32], n: usize, out: &mut [f32]) {
    let (ci, co) = (f.c_in, f.c_out);
    for p in 0..n {
        for cell in 0..64 {
            let xr = &x[(p * 64 + cell) * ci..(p * 64 + cell + 1) * ci];
            for o in 0..co {
                let mut s = f.b[o];
                for (i, &xv) in xr.iter().enumerate() {
                    s += xv * f.w[i * co + o];
                }
                out[p * co * 64 + o * 64 + cell] = s.max(0.0);
            }
        }
    }
}

crate::util::simd::isa_kernel!(
    /// 1x1 convolution (no ReLU) at the board's playing cells into `[n,
    /// cells, c_out]`, the first `c_out / 2` features of each cell (its
    /// start vector) times `1 / sqrt(c_out / 2)`.
    pub(super) fn conv1_cells = conv1_cells_impl, conv1_cells_avx2, conv1_cells_avx512,
    (f: &Folded, board: BoardCells, x: &[f32], n: usize, out: &mut [f32])
);

#[inline(always)]
fn conv1_cells_impl(f: &Folded, board: BoardCells, x: &[f32], n: usize, out: &mut [f32]) {
    let (ci, co) = (f.c_in, f.c_out);
    let d = co / 2;
    let scale = 1.0 / (d as f32).sqrt();
    let count = board.count();
    for p in 0..n {
        for (i, cell) in board.cells().enumerate() {
            let xr = &x[(p * 64 + cell) * ci..(p * 64 + cell + 1) * ci];
            let dst = &mut out[(p * count + i) * co..(p * count + i + 1) * co];
            dst.copy_from_slice(&f.b);
            for (k, &xv) in xr.iter().enumerate() {
                for (o, &w) in dst.iter_mut().zip(&f.w[k * co..(k + 1) * co]) {
                    *o += xv * w;
                }
            }
            for o in &mut dst[..d] {
                *o *= scale;
            }
        }
    }
}

crate::util::simd::isa_kernel!(
    /// One position's bilinear policy logits: `bias` plus each start and
    /// end's product (the slots of a start and end share it).
    pub(super) fn bilinear_row = bilinear_row_impl, bilinear_row_avx2, bilinear_row_avx512,
    (x: &[f32], d: usize, board: BoardCells, bias: &[f32], out: &mut [f32])
);

#[inline(always)]
fn bilinear_row_impl(x: &[f32], d: usize, board: BoardCells, bias: &[f32], out: &mut [f32]) {
    let pairs = board.pairs();
    for j in 0..pairs {
        let v = bilinear_dot(x, d, board, j);
        for k in (j..POLICY_SIZE).step_by(pairs) {
            out[k] = bias[k] + v;
        }
    }
}

/// The bilinear head's product for policy index `j` from one position's
/// start and end vectors (`x`: `[cells, 2 * d]`, start vectors already
/// scaled).
#[inline(always)]
pub(super) fn bilinear_dot(x: &[f32], d: usize, board: BoardCells, j: usize) -> f32 {
    let n = board.count();
    let (from, to) = ((j % (n * n)) / n, j % n);
    let q = &x[from * 2 * d..from * 2 * d + d];
    let k = &x[to * 2 * d + d..(to + 1) * 2 * d];
    dot(q, k)
}

#[inline(always)]
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight partial sums let the compiler vectorise.
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}
