//! The CPU training step without burn's autodiff: the forward pass of
//! [`Net`] in training mode (batch statistics), the losses of
//! [`super::Trainer`], and the backward pass, written out over NHWC rows
//! (`[positions * 64, channels]`) in the manner of the fast inference path
//! ([`crate::net::inference`]).
//!
//! The gradients go into burn's [`GradientsParams`] under the parameters'
//! ids, so the optimiser, the weights and their files stay burn's; only the
//! arithmetic of one step moves here. What makes it faster than burn's
//! generic autodiff on this network:
//!
//! - every 3x3 convolution and the gradient of its input (the same
//!   convolution of the output's gradient with the kernel flipped and its
//!   channels swapped) run as Winograd F(2x2, 3x3)
//!   (`net::winograd`); the kernel's gradient is an im2col of the
//!   input times the output's gradient, per chunk of positions in cache;
//! - batch norm, ReLU and the residual add are single passes over the rows,
//!   with the statistics' sums in `f64`;
//! - the masked softmax cross-entropies give their logits' gradients in the
//!   same pass as the loss;
//! - work is split into chunks of positions, one rayon task each, and the
//!   chunks' partial sums are added in chunk order, so a step gives the same
//!   bits on any number of threads.
//! - the step's buffers come from a [`Pool`] the trainer keeps, so they
//!   are not mapped and faulted in afresh every step.
//!
//! The tests check every parameter's gradient, the losses and the
//! batch-norm running statistics against burn's autodiff step. The reply
//! head is not written here: a network with a trained reply head takes
//! burn's path.

mod bilinear;
mod layers;

use super::{Batch, Losses};
use crate::net::inference::{tap_table, vec_of};
use crate::net::model::{Net, AUX_OUTPUTS};
use crate::net::{Inputs, MAX_PLANES, POLICY_SIZE};
use burn::nn::BatchNorm;
use burn::tensor::{Tensor, TensorData};
pub(super) use layers::Pool;
use layers::*;
use rayon::prelude::*;

/// The outcome of one step: gradients, losses, and each batch norm's batch
/// statistics (in [`batch_norms`]' order: stem, blocks, policy, value) for its running
/// statistics.
pub(super) struct Step {
    pub grads: Grads,
    pub losses: Losses,
    pub stats: Vec<(Vec<f32>, Vec<f32>)>,
}

/// Whether [`step`] can train `net` (it does not write the reply head).
pub(super) fn supports(net: &Net) -> bool {
    net.reply.is_none() && crate::net::FastNet::covers(net.board())
}

/// Gradients and losses of `net` (training mode) on a batch; the same as
/// burn's autodiff of [`super::Trainer`]'s loss, up to float rounding. The
/// forward pass runs the tower, then each head; the backward pass runs each
/// head, then the tower.
pub(super) fn step(net: &Net, b: &Batch, inputs: Inputs, weights: [f32; AUX_OUTPUTS], pool: &Pool) -> Step {
    let n = b.obs.len();
    let x0 = input_rows(pool, b, inputs);
    let tower = Tower::forward(net, pool, x0, n);
    let h = tower.output();
    let policy = PolicyHead::forward(net, pool, h, n);
    let value = ValueHead::forward(net, pool, h, n);

    // Losses and the logits' gradients.
    let (policy_loss, entropy, dlogits) =
        soft_xent(pool, &policy.logits, Some(&b.mask), &b.policy, POLICY_SIZE, n);
    let (value_loss, _, dvalue) = soft_xent(pool, &value.wdl, None, &b.value, 3, n);
    let aux = value.aux.as_ref().map(|aux| aux_loss(aux, b, weights));

    let mut g = Grads(Vec::new());
    let mut dh = pool.zeroed(n * 64 * tower.channels());
    policy.backward(pool, h, &dlogits, n, &mut dh, &mut g);
    value.backward(
        pool,
        h,
        &dvalue,
        aux.as_ref().map(|(_, d)| d.as_slice()),
        n,
        &mut dh,
        &mut g,
    );
    tower.backward(pool, dh, n, &mut g);

    let mut stats = tower.stats();
    stats.push((policy.cache.mean.clone(), policy.cache.var.clone()));
    stats.push((value.cache.mean.clone(), value.cache.var.clone()));
    Step {
        grads: g,
        losses: Losses {
            policy: policy_loss,
            policy_entropy: entropy,
            value: value_loss,
            aux: aux.map_or(0.0, |(loss, _)| loss),
            steps: 1,
        },
        stats,
    }
}

/// The batch's input planes as NHWC rows (`[n * 64, planes]`).
fn input_rows<'p>(pool: &'p Pool, b: &Batch, inputs: Inputs) -> Buf<'p> {
    let np = inputs.planes();
    let mut x0 = pool.zeroed(b.obs.len() * 64 * np);
    x0.par_chunks_mut(64 * np).zip(&b.obs).for_each(|(dst, o)| {
        let mut buf = [0.0f32; MAX_PLANES * 64];
        let planes = &mut buf[..np * 64];
        o.write_planes(inputs, planes);
        for pl in 0..np {
            for cell in 0..64 {
                dst[cell * np + pl] = planes[pl * 64 + cell];
            }
        }
    });
    x0
}

/// The auxiliary outputs' weighted squared error over the samples that
/// have their targets, and its gradient.
fn aux_loss(aux: &[f32], b: &Batch, weights: [f32; AUX_OUTPUTS]) -> (f64, Vec<f32>) {
    let known = b.aux_mask.iter().filter(|&&m| m > 0.0).count() / AUX_OUTPUTS;
    let known = known.max(1) as f64;
    let mut loss = 0.0f64;
    let mut d = vec![0.0f32; aux.len()];
    for j in 0..aux.len() {
        let err = (aux[j] - b.aux[j]) * b.aux_mask[j];
        let w = weights[j % AUX_OUTPUTS];
        loss += (err * err * w) as f64;
        d[j] = (2.0 * (err * b.aux_mask[j] * w) as f64 / known) as f32;
    }
    (loss / known, d)
}

/// What one residual block's backward pass needs.
struct BlockCache<'p> {
    c1: Conv3,
    bn1: Bn,
    cache1: BnCache<'p>,
    r1: Buf<'p>,
    c2: Conv3,
    bn2: Bn,
    cache2: BnCache<'p>,
}

/// The stem and the residual tower, forward in training mode, with what
/// their backward pass needs.
struct Tower<'p> {
    x0: Buf<'p>,
    stem: Conv3,
    stem_bn: Bn,
    stem_cache: BnCache<'p>,
    blocks: Vec<BlockCache<'p>>,
    /// The stem's output, then each block's.
    acts: Vec<Buf<'p>>,
}

impl<'p> Tower<'p> {
    fn forward(net: &Net, pool: &'p Pool, x0: Buf<'p>, n: usize) -> Tower<'p> {
        let stem = Conv3::new(&net.stem, false);
        let stem_bn = Bn::new(&net.stem_bn);
        let c = stem.co;
        let stem_cache = bn_forward(pool, &winograd(pool, &stem.fwd, &x0, n), c, stem_bn.eps);
        let mut acts = vec![bn_relu(pool, &stem_cache, &stem_bn, None)];
        let mut blocks = Vec::with_capacity(net.blocks.len());
        for blk in &net.blocks {
            let a_in = acts.last().expect("the stem's output");
            let (c1, bn1) = (Conv3::new(&blk.conv1, true), Bn::new(&blk.bn1));
            let cache1 = bn_forward(pool, &winograd(pool, &c1.fwd, a_in, n), c, bn1.eps);
            let r1 = bn_relu(pool, &cache1, &bn1, None);
            let (c2, bn2) = (Conv3::new(&blk.conv2, true), Bn::new(&blk.bn2));
            let cache2 = bn_forward(pool, &winograd(pool, &c2.fwd, &r1, n), c, bn2.eps);
            let a_out = bn_relu(pool, &cache2, &bn2, Some(a_in));
            acts.push(a_out);
            blocks.push(BlockCache {
                c1,
                bn1,
                cache1,
                r1,
                c2,
                bn2,
                cache2,
            });
        }
        Tower {
            x0,
            stem,
            stem_bn,
            stem_cache,
            blocks,
            acts,
        }
    }

    fn channels(&self) -> usize {
        self.stem.co
    }

    /// The tower's output rows (`[n * 64, channels]`).
    fn output(&self) -> &[f32] {
        self.acts.last().expect("the tower's output")
    }

    /// Each batch norm's batch mean and variance, stem first.
    fn stats(&self) -> Vec<(Vec<f32>, Vec<f32>)> {
        let mut stats = vec![(self.stem_cache.mean.clone(), self.stem_cache.var.clone())];
        for blk in &self.blocks {
            stats.push((blk.cache1.mean.clone(), blk.cache1.var.clone()));
            stats.push((blk.cache2.mean.clone(), blk.cache2.var.clone()));
        }
        stats
    }

    /// The tower's gradients from `dh`, the gradient at its output; last
    /// block first, then the stem.
    fn backward(&self, pool: &'p Pool, dh: Buf<'p>, n: usize, g: &mut Grads) {
        let c = self.channels();
        let taps = tap_table();
        let mut da = dh;
        for (k, blk) in self.blocks.iter().enumerate().rev() {
            let (a_in, a_out) = (&self.acts[k], &self.acts[k + 1]);
            relu_grad(&mut da, a_out);
            let (dz2, dg2, db2) = bn_backward(pool, &da, &blk.cache2, &blk.bn2);
            g.put(
                blk.c2.id,
                kernel_grad(&blk.r1, &dz2, n, c, c, &taps),
                vec![c, c, 3, 3],
            );
            g.put_bn(&blk.bn2, dg2, db2);
            let mut dr1 = winograd(pool, blk.c2.bwd.as_ref().expect("backward kernel"), &dz2, n);
            relu_grad(&mut dr1, &blk.r1);
            let (dz1, dg1, db1) = bn_backward(pool, &dr1, &blk.cache1, &blk.bn1);
            g.put(
                blk.c1.id,
                kernel_grad(a_in, &dz1, n, c, c, &taps),
                vec![c, c, 3, 3],
            );
            g.put_bn(&blk.bn1, dg1, db1);
            let mut da_in = winograd(pool, blk.c1.bwd.as_ref().expect("backward kernel"), &dz1, n);
            // The skip connection carries the block output's gradient.
            for (d, s) in da_in.iter_mut().zip(da.iter()) {
                *d += s;
            }
            da = da_in;
        }
        relu_grad(&mut da, &self.acts[0]);
        let (dz0, dg0, db0) = bn_backward(pool, &da, &self.stem_cache, &self.stem_bn);
        let ci = self.stem.ci;
        g.put(
            self.stem.id,
            kernel_grad(&self.x0, &dz0, n, ci, c, &taps),
            vec![c, ci, 3, 3],
        );
        g.put_bn(&self.stem_bn, dg0, db0);
    }
}

/// The policy head forward: a 1x1 conv and BN, then for the dense head ReLU
/// and a dense layer to the logits, for the bilinear head the products of
/// the playing squares' start and end vectors and a bias per move.
struct PolicyHead<'p> {
    board: crate::net::encode::BoardCells,
    conv: Conv1,
    bn: Bn,
    cache: BnCache<'p>,
    head: PolicyCache<'p>,
    logits: Buf<'p>,
}

impl<'p> PolicyHead<'p> {
    fn forward(net: &Net, pool: &'p Pool, h: &[f32], n: usize) -> PolicyHead<'p> {
        let rows = n * 64;
        let (conv, bn) = (Conv1::new(&net.policy_conv), Bn::new(&net.policy_bn));
        let cache = bn_forward(pool, &conv.forward(pool, h, rows), conv.co, bn.eps);
        let pc = conv.co;
        let head = match (&net.policy_fc, &net.policy_bias) {
            (Some(fc), _) => {
                let rp = bn_relu(pool, &cache, &bn, None);
                let mut pin = pool.zeroed(n * pc * 64);
                for p in 0..n {
                    for cell in 0..64 {
                        for o in 0..pc {
                            pin[p * pc * 64 + o * 64 + cell] = rp[(p * 64 + cell) * pc + o];
                        }
                    }
                }
                PolicyCache::Dense {
                    fc: Dense::new(fc),
                    rp,
                    pin,
                }
            }
            (None, Some(bias)) => PolicyCache::Bilinear {
                y: bn_apply(pool, &cache, &bn, None, false),
                bias_id: bias.id,
                bias: vec_of(bias.val()),
            },
            (None, None) => unreachable!("a network's policy head has a dense layer or a bias"),
        };
        let logits = match &head {
            PolicyCache::Dense { fc, pin, .. } => fc.forward(pool, pin, n),
            PolicyCache::Bilinear { y, bias, .. } => bilinear::forward(pool, y, pc / 2, net.board, bias, n),
        };
        PolicyHead {
            board: net.board,
            conv,
            bn,
            cache,
            head,
            logits,
        }
    }

    /// The head's gradients from the logits' gradient; adds the gradient at
    /// the tower's output `h` into `dh`.
    fn backward(&self, pool: &'p Pool, h: &[f32], dlogits: &[f32], n: usize, dh: &mut [f32], g: &mut Grads) {
        let pc = self.conv.co;
        // The gradient at the batch norm's output.
        let dy = match &self.head {
            PolicyCache::Dense { fc, rp, pin } => {
                let mut dpin = pool.zeroed(n * pc * 64);
                fc.backward(pin, dlogits, n, Some(&mut dpin), g);
                let mut drp = pool.zeroed(n * 64 * pc);
                for p in 0..n {
                    for cell in 0..64 {
                        for o in 0..pc {
                            drp[(p * 64 + cell) * pc + o] = dpin[p * pc * 64 + o * 64 + cell];
                        }
                    }
                }
                relu_grad(&mut drp, rp);
                drp
            }
            PolicyCache::Bilinear { y, bias_id, .. } => {
                let (dy, dbias) = bilinear::backward(pool, y, pc / 2, self.board, dlogits, n);
                g.put(*bias_id, dbias, vec![POLICY_SIZE]);
                dy
            }
        };
        let (dz, dgamma, dbeta) = bn_backward(pool, &dy, &self.cache, &self.bn);
        g.put_bn(&self.bn, dgamma, dbeta);
        self.conv.backward(h, &dz, n * 64, dh, g);
    }
}

/// The value head forward: a 1x1 conv to 1 plane, BN, ReLU, dense + ReLU,
/// dense to the WDL logits (and the auxiliary outputs from the same hidden
/// layer).
struct ValueHead<'p> {
    conv: Conv1,
    bn: Bn,
    cache: BnCache<'p>,
    fc1: Dense,
    fc2: Dense,
    aux_fc: Option<Dense>,
    /// The conv's output after BN and ReLU, the hidden layer after ReLU.
    vin: Buf<'p>,
    hid: Buf<'p>,
    wdl: Buf<'p>,
    aux: Option<Buf<'p>>,
}

impl<'p> ValueHead<'p> {
    fn forward(net: &Net, pool: &'p Pool, h: &[f32], n: usize) -> ValueHead<'p> {
        let (conv, bn) = (Conv1::new(&net.value_conv), Bn::new(&net.value_bn));
        let (fc1, fc2) = (Dense::new(&net.value_fc1), Dense::new(&net.value_fc2));
        let aux_fc = net.aux_fc.as_ref().map(Dense::new);
        let cache = bn_forward(pool, &conv.forward(pool, h, n * 64), conv.co, bn.eps);
        let vin = bn_relu(pool, &cache, &bn, None);
        let mut hid = fc1.forward(pool, &vin, n);
        for v in hid.iter_mut() {
            *v = v.max(0.0);
        }
        let wdl = fc2.forward(pool, &hid, n);
        let aux = aux_fc.as_ref().map(|d| d.forward(pool, &hid, n));
        ValueHead {
            conv,
            bn,
            cache,
            fc1,
            fc2,
            aux_fc,
            vin,
            hid,
            wdl,
            aux,
        }
    }

    /// The head's gradients from the WDL logits' and auxiliary outputs'
    /// gradients; adds the gradient at the tower's output `h` into `dh`.
    #[allow(clippy::too_many_arguments)]
    fn backward(
        &self,
        pool: &'p Pool,
        h: &[f32],
        dwdl: &[f32],
        daux: Option<&[f32]>,
        n: usize,
        dh: &mut [f32],
        g: &mut Grads,
    ) {
        let mut dhid = pool.zeroed(n * self.fc1.d.outputs);
        self.fc2.backward(&self.hid, dwdl, n, Some(&mut dhid), g);
        if let (Some(fc), Some(d)) = (&self.aux_fc, daux) {
            fc.backward(&self.hid, d, n, Some(&mut dhid), g);
        }
        relu_grad(&mut dhid, &self.hid);
        let mut dvin = pool.zeroed(n * self.fc1.d.inputs);
        self.fc1.backward(&self.vin, &dhid, n, Some(&mut dvin), g);
        relu_grad(&mut dvin, &self.vin);
        let (dz, dgamma, dbeta) = bn_backward(pool, &dvin, &self.cache, &self.bn);
        g.put_bn(&self.bn, dgamma, dbeta);
        self.conv.backward(h, &dz, n * 64, dh, g);
    }
}

/// What the policy head's backward pass needs.
enum PolicyCache<'p> {
    /// The dense head: its layer, the 1x1 conv's output after BN and ReLU
    /// (`[rows, planes]`), and the same plane-major (`[n, planes * 64]`).
    Dense { fc: Dense, rp: Buf<'p>, pin: Buf<'p> },
    /// The bilinear head: the 1x1 conv's output after BN (`[rows, 2 * d]`)
    /// and the per-move bias with its id.
    Bilinear {
        y: Buf<'p>,
        bias_id: burn::module::ParamId,
        bias: Vec<f32>,
    },
}

/// Mean over `n` rows of the cross-entropy `-Σ t log softmax(l + mask)`,
/// and its gradient with respect to the logits `l` (`[n, width]`).
fn soft_xent<'p>(
    pool: &'p Pool,
    logits: &[f32],
    mask: Option<&[f32]>,
    target: &[f32],
    width: usize,
    n: usize,
) -> (f64, f64, Buf<'p>) {
    let mut grad = pool.zeroed(n * width);
    let rows: Vec<(f64, f64)> = grad
        .par_chunks_mut(width)
        .enumerate()
        .map(|(r, gr)| {
            let l = &logits[r * width..(r + 1) * width];
            let t = &target[r * width..(r + 1) * width];
            let m = mask.map(|m| &m[r * width..(r + 1) * width]);
            let at = |j: usize| l[j] + m.map_or(0.0, |m| m[j]);
            let max = (0..width).map(at).fold(f32::NEG_INFINITY, f32::max);
            // A masked logit's exponential underflows to 0: skip it (most
            // of the policy's 4,096 are masked).
            let masked = |j: usize| m.is_some_and(|m| m[j] <= -1.0e8);
            let mut sum = 0.0f64;
            for (j, gj) in gr.iter_mut().enumerate() {
                let e = if masked(j) {
                    0.0
                } else {
                    ((at(j) - max) as f64).exp()
                };
                *gj = e as f32;
                sum += e;
            }
            let lse = max as f64 + sum.ln();
            let tsum: f64 = t.iter().map(|&v| v as f64).sum();
            let (mut loss, mut entropy) = (0.0f64, 0.0f64);
            for (j, gj) in gr.iter_mut().enumerate() {
                if t[j] != 0.0 {
                    loss -= t[j] as f64 * (at(j) as f64 - lse);
                }
                let p = *gj as f64 / sum;
                if p > 0.0 {
                    entropy -= p * (at(j) as f64 - lse);
                }
                *gj = ((p * tsum - t[j] as f64) / n as f64) as f32;
            }
            (loss, entropy)
        })
        .collect();
    let mean = |f: fn(&(f64, f64)) -> f64| rows.iter().map(f).sum::<f64>() / n as f64;
    (mean(|r| r.0), mean(|r| r.1), grad)
}

/// The batch norms of `net` in the order [`step`] gives their statistics.
pub(super) fn batch_norms(net: &Net) -> Vec<&BatchNorm> {
    let mut v = vec![&net.stem_bn];
    for b in &net.blocks {
        v.push(&b.bn1);
        v.push(&b.bn2);
    }
    v.push(&net.policy_bn);
    v.push(&net.value_bn);
    v
}

/// Move each batch norm's running statistics towards the step's batch
/// statistics, as burn's training forward pass does.
pub(super) fn update_running_stats(net: &Net, stats: &[(Vec<f32>, Vec<f32>)]) {
    for (bn, (mean, var)) in batch_norms(net).into_iter().zip(stats) {
        let m = bn.momentum as f32;
        for (state, batch) in [(&bn.running_mean, mean), (&bn.running_var, var)] {
            let old = state.value_sync();
            let device = old.device();
            let new = Tensor::<1>::from_data(TensorData::new(batch.clone(), [batch.len()]), &device);
            state.update(old.mul_scalar(1.0 - m).add(new.mul_scalar(m)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{bench_samples, make_batch, ModelConfig, TrainParams, Trainer};
    use super::*;
    use crate::game::GamePosition;
    use crate::mcts::Wdl;
    use crate::net::bench_games;
    use burn::module::ParamId;
    use burn::optim::GradientsParams;
    use burn::tensor::Device;

    /// Largest difference between two gradients, over the reference's
    /// largest magnitude (or 1e-3 if that is smaller).
    fn rel_diff(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        let scale = b.iter().fold(1e-3f32, |m, v| m.max(v.abs()));
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max) / scale
    }

    fn values<const D: usize>(g: &GradientsParams, id: ParamId) -> Vec<f32> {
        vec_of(g.get::<D>(id).expect("burn has a gradient for the parameter"))
    }

    /// Every gradient, the losses and the running statistics of the
    /// hand-written step equal burn's autodiff, for several shapes, input
    /// sets and batch sizes (one not a multiple of the chunk), on weights
    /// that earlier steps moved.
    #[test]
    fn gradients_equal_burns() {
        use crate::net::PolicyHeadKind::{Bilinear, Dense};
        // The shipped default shape (configs/default.toml: 4x32, bilinear
        // head of 16, value hidden 64, auxiliary heads) and others.
        // The last is Dameo's board of 64 cells (the samples are Damone's:
        // only the arithmetic is compared).
        const DARK: crate::net::BoardCells = crate::net::BoardCells::DARK;
        const ALL: crate::net::BoardCells = crate::net::BoardCells::ALL;
        let shapes = [
            (4, 32, 64, true, Inputs::Basic, 24, 16, Bilinear, DARK),
            (2, 8, 24, true, Inputs::Basic, 37, 2, Dense, DARK),
            (1, 16, 24, false, Inputs::Draughts, 16, 8, Dense, DARK),
            (3, 32, 24, true, Inputs::Basic, 50, 5, Dense, DARK),
            (2, 16, 24, true, Inputs::Basic, 37, 8, Bilinear, DARK),
            (1, 8, 24, false, Inputs::Draughts, 20, 3, Bilinear, DARK),
            (2, 16, 24, true, Inputs::Draughts, 21, 8, Bilinear, ALL),
        ];
        assert_eq!(
            ModelConfig {
                blocks: 4,
                channels: 32,
                value_hidden: 64,
                policy_head: Bilinear,
                policy_planes: 16,
                inputs: Inputs::Basic,
                aux_heads: true,
                reply_head: false,
                board: DARK,
            },
            ModelConfig::default(),
            "the first shape is the shipped default"
        );
        for (blocks, channels, value_hidden, aux_heads, inputs, n, policy_planes, policy_head, board) in
            shapes
        {
            let model = ModelConfig {
                blocks,
                channels,
                value_hidden,
                policy_head,
                policy_planes,
                inputs,
                aux_heads,
                reply_head: false,
                board,
            };
            let params = TrainParams {
                batch_size: n,
                warmup_steps: 0,
                lr: 0.02,
                material_weight: 1.0,
                plies_left_weight: 0.5,
                ..TrainParams::default()
            };
            let device = Device::flex();
            device.seed(7);
            let mut t = Trainer::new(model.clone(), params, device);
            let games = bench_games(
                crate::game::damone::Position::start(Default::default()),
                3 * n,
                11,
            );
            let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
            let mut samples = bench_samples(&games, &moves);
            for (i, s) in samples.iter_mut().enumerate() {
                s.z = [Wdl::WIN, Wdl::DRAW, Wdl::LOSS][i % 3];
                if i % 5 == 0 {
                    s.aux = None;
                }
            }
            let refs: Vec<&_> = samples.iter().collect();
            let mut rng = crate::util::rng_stream(3, "fast-step-test", 0);
            // Two steps move the weights and batch-norm statistics.
            t.train_step(&refs[n..2 * n], &mut rng);
            t.train_step(&refs[2 * n..3 * n], &mut rng);
            let b = make_batch(&refs[..n], inputs, 0.25, false, &mut rng);
            let net = t.net();
            let before: Vec<_> = batch_norms(net)
                .iter()
                .map(|bn| {
                    (
                        vec_of(bn.running_mean.value_sync()),
                        vec_of(bn.running_var.value_sync()),
                    )
                })
                .collect();
            // The trainer's pool, whose buffers the two steps above used
            // and left dirty.
            let fast = step(net, &b, inputs, [1.0, 0.5], &t.pool);
            let (grads, losses) = t.burn_gradients(net, b);
            let what = format!(
                "blocks {blocks}, channels {channels}, {policy_head:?} policy, planes {policy_planes}, {inputs:?}, batch {n}"
            );
            for (a, b, name) in [
                (fast.losses.policy, losses.policy, "policy"),
                (
                    fast.losses.policy_entropy,
                    losses.policy_entropy,
                    "policy entropy",
                ),
                (fast.losses.value, losses.value, "value"),
                (fast.losses.aux, losses.aux, "aux"),
            ] {
                assert!(
                    (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                    "{what}: {name} loss {a} vs {b}"
                );
            }
            assert!(losses.aux > 0.0 || !aux_heads, "{what}: the aux loss is trained");
            let params = fast.grads.0.len();
            // Stem conv + BN (3), per block 2 convs + 2 BNs (6), policy conv
            // + BN + dense (5) or + bias (4), value conv + BN + two dense
            // (7), aux dense (2).
            let policy = if policy_head == Dense { 5 } else { 4 };
            let expected = 3 + 6 * blocks + policy + 7 + if aux_heads { 2 } else { 0 };
            assert_eq!(params, expected, "{what}: every parameter has a gradient");
            for (id, g, shape) in &fast.grads.0 {
                let reference = match shape.len() {
                    1 => values::<1>(&grads, *id),
                    2 => values::<2>(&grads, *id),
                    _ => values::<4>(&grads, *id),
                };
                let d = rel_diff(g, &reference);
                assert!(
                    d <= 2e-3,
                    "{what}: gradient of {shape:?} differs by {d} of its scale"
                );
            }
            // burn's forward pass moved the running statistics; the fast
            // step's batch statistics move them the same way.
            for ((bn, (mean, var)), (old_mean, old_var)) in
                batch_norms(net).iter().zip(&fast.stats).zip(&before)
            {
                let m = bn.momentum as f32;
                for (old, batch, now) in [
                    (old_mean, mean, bn.running_mean.value_sync()),
                    (old_var, var, bn.running_var.value_sync()),
                ] {
                    let want: Vec<f32> = old
                        .iter()
                        .zip(batch)
                        .map(|(o, b)| o * (1.0 - m) + b * m)
                        .collect();
                    let d = rel_diff(&want, &vec_of(now));
                    assert!(d <= 1e-4, "{what}: running statistics differ by {d}");
                }
            }
        }
    }
}
