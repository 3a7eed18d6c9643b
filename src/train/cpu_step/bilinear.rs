//! The bilinear policy head's products and their gradients
//! ([`crate::net::PolicyHeadKind::Bilinear`]): logit `slot * n * n + from
//! * n + to` is `q[from] . k[to] / sqrt(d) + bias`, where `q` and `k` are
//! the first and the last `d` features of the 1x1 convolution's output
//! (after batch norm) at the board's `n` playing cells.

use super::layers::{Buf, Pool};
use crate::net::encode::BoardCells;
use crate::net::POLICY_SIZE;
use rayon::prelude::*;

/// Logits `[n, POLICY_SIZE]` from `y` (`[n * 64, 2 * d]`, NHWC rows).
pub(super) fn forward<'p>(
    pool: &'p Pool,
    y: &[f32],
    d: usize,
    board: BoardCells,
    bias: &[f32],
    n: usize,
) -> Buf<'p> {
    let scale = 1.0 / (d as f32).sqrt();
    let (count, pairs) = (board.count(), board.pairs());
    let mut out = pool.zeroed(n * POLICY_SIZE);
    out.par_chunks_mut(POLICY_SIZE)
        .zip(y.par_chunks(64 * 2 * d))
        .for_each(|(o, yp)| {
            for (from, fc) in board.cells().enumerate() {
                let q = &yp[fc * 2 * d..fc * 2 * d + d];
                for (to, tc) in board.cells().enumerate() {
                    let k = &yp[tc * 2 * d + d..(tc + 1) * 2 * d];
                    let v = scale * q.iter().zip(k).map(|(a, b)| a * b).sum::<f32>();
                    let mut j = from * count + to;
                    while j < POLICY_SIZE {
                        o[j] = v + bias[j];
                        j += pairs;
                    }
                }
            }
        });
    out
}

/// From the logits' gradient `dl` (`[n, POLICY_SIZE]`): the gradient of
/// `y` (`[n * 64, 2 * d]`, zero off the playing squares) and of the bias
/// (summed over the positions in order).
pub(super) fn backward<'p>(
    pool: &'p Pool,
    y: &[f32],
    d: usize,
    board: BoardCells,
    dl: &[f32],
    n: usize,
) -> (Buf<'p>, Vec<f32>) {
    let scale = 1.0 / (d as f32).sqrt();
    let w = 2 * d;
    let (count, pairs) = (board.count(), board.pairs());
    let mut dy = pool.zeroed(n * 64 * w);
    dy.par_chunks_mut(64 * w)
        .zip(y.par_chunks(64 * w))
        .zip(dl.par_chunks(POLICY_SIZE))
        .for_each(|((dyp, yp), dlp)| {
            // The slots share a product: their gradients add.
            let mut g = [0.0f32; POLICY_SIZE];
            for (j, gj) in g[..pairs].iter_mut().enumerate() {
                let mut s = 0.0;
                let mut i = j;
                while i < POLICY_SIZE {
                    s += dlp[i];
                    i += pairs;
                }
                *gj = s * scale;
            }
            for (from, fc) in board.cells().enumerate() {
                for (to, tc) in board.cells().enumerate() {
                    let gv = g[from * count + to];
                    if gv == 0.0 {
                        continue;
                    }
                    // dq[from] += g k[to]; dk[to] += g q[from].
                    for c in 0..d {
                        dyp[fc * w + c] += gv * yp[tc * w + d + c];
                        dyp[tc * w + d + c] += gv * yp[fc * w + c];
                    }
                }
            }
        });
    let mut dbias = vec![0.0f32; POLICY_SIZE];
    for dlp in dl.chunks_exact(POLICY_SIZE).take(n) {
        for (b, v) in dbias.iter_mut().zip(dlp) {
            *b += v;
        }
    }
    (dy, dbias)
}
