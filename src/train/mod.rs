//! Training: losses, optimiser (AdamW or SGD with momentum), learning-rate
//! warm-up and schedule, gradient clipping, and saving/loading of the model
//! and optimiser state.
//!
//! Loss = policy cross-entropy (targets over legal moves, illegal logits
//! masked) + value cross-entropy (WDL target = outcome mixed with the search
//! value by `value_q_weight`) + with auxiliary heads, `material_weight` and
//! `plies_left_weight` times the squared errors of the final material
//! difference and the plies left (over the samples whose game was played
//! out). In a game with a symmetry ([`Board::SYMMETRY`]: Damone's h1-a8
//! reflection), every batch is augmented with it (each sample with
//! probability 1/2).

use crate::data::{AuxTargets, Sample};
use crate::mcts::Wdl;
use crate::net::model::AUX_OUTPUTS;
use crate::net::{
    index_under, planes_tensor, policy_indices, Board, Inputs, ModelConfig, Net, Observation, Symmetry,
};
use crate::util::Rng;
mod cpu_step;
pub mod optim;

use crate::util::range::{check, Bounds};
use burn::optim::GradientsParams;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use optim::{Optimizer, Rule};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// The update rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// Adam with decoupled weight decay.
    AdamW,
    /// SGD with heavy-ball momentum.
    Sgd,
}

/// The learning-rate schedule after warm-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// The peak rate throughout.
    Constant,
    /// Cosine decay to `min_lr_factor * lr` at the schedule's end.
    Cosine,
}

/// Optimiser and schedule settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainParams {
    /// `adamw` or `sgd` (with momentum).
    pub optimizer: OptimizerKind,
    /// Peak learning rate.
    pub lr: f64,
    /// Weight decay (decoupled for AdamW, L2 for SGD).
    pub weight_decay: f32,
    /// SGD momentum.
    pub momentum: f64,
    /// Linear warm-up steps.
    pub warmup_steps: u64,
    /// `constant` or `cosine` (decays to `min_lr_factor * lr` at the
    /// schedule's end).
    pub schedule: Schedule,
    /// The schedules' length in training steps, for runs with no planned
    /// length or `schedule_span = 0`; with a planned length, the unit other
    /// step counts of a schedule (`selfplay.sims_ramp_steps`) are read in
    /// ([`TrainParams::schedule_step`]).
    pub schedule_steps: u64,
    /// The schedules (learning rate, value target, simulation ramp) end at
    /// this share of the run's planned length (`time_limit_minutes` or
    /// `iterations`), whatever the machine's speed; 0 = they end at
    /// `schedule_steps` training steps.
    pub schedule_span: f64,
    /// Floor of the schedule as a fraction of `lr`.
    pub min_lr_factor: f64,
    /// Clip the gradient norm to this (0 = no clipping).
    pub grad_clip: f32,
    /// Samples per training step.
    pub batch_size: usize,
    /// Times each new sample is used on average: steps per iteration =
    /// new samples * sample_reuse / batch_size.
    pub sample_reuse: f32,
    /// Replay window size in samples (at least).
    pub window: usize,
    /// The window holds at least this share of all the samples the run has
    /// made, so that a long run's window grows with it
    /// ([`TrainParams::window_for`]).
    pub window_share: f32,
    /// No training until the window holds this many samples.
    pub min_samples: usize,
    /// Weight of the search value in the value target (0 = outcome only).
    pub value_q_weight: f32,
    /// Value-target schedule: when set, the weight of the search value
    /// goes linearly from `value_q_weight` (step 0) to this (at
    /// `schedule_steps`, then stays).
    pub value_q_weight_final: Option<f32>,
    /// Weight of the auxiliary material-difference loss (needs
    /// `model.aux_heads`).
    pub material_weight: f32,
    /// Weight of the auxiliary plies-left loss (needs `model.aux_heads`).
    pub plies_left_weight: f32,
    /// Weight of the opponent's-reply loss (cross-entropy of the reply
    /// head at the move the opponent played next; needs
    /// `model.reply_head`).
    pub reply_weight: f32,
    /// Share of the batch-drawing weight given by the samples' surprise
    /// (0 = uniform batches; see `ReplayWindow::batches`).
    pub surprise_fraction: f32,
    /// On the CPU, compute each step's gradients with the hand-written
    /// training pass (`train/cpu_step/`) instead of burn's autodiff (the same
    /// gradients up to rounding; networks with a reply head always take
    /// burn's path).
    pub fast_step: bool,
}

impl Default for TrainParams {
    fn default() -> Self {
        TrainParams {
            optimizer: OptimizerKind::AdamW,
            lr: 2e-3,
            weight_decay: 1e-4,
            momentum: 0.9,
            warmup_steps: 50,
            schedule: Schedule::Cosine,
            schedule_steps: 8_000,
            schedule_span: 1.15,
            min_lr_factor: 0.1,
            grad_clip: 1.0,
            batch_size: 256,
            sample_reuse: 2.1,
            window: 171_000,
            window_share: 0.2,
            min_samples: 1_000,
            value_q_weight: 0.25,
            value_q_weight_final: None,
            material_weight: 1.0,
            plies_left_weight: 0.5,
            reply_weight: 0.0,
            surprise_fraction: 0.0,
            fast_step: true,
        }
    }
}

impl TrainParams {
    /// Check every value; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        let k = "train.";
        check("train.lr", self.lr, Bounds::Open(0.0, 10.0))?;
        check(
            "train.weight_decay",
            self.weight_decay,
            Bounds::ClosedOpen(0.0, 1.0),
        )?;
        check("train.momentum", self.momentum, Bounds::ClosedOpen(0.0, 1.0))?;
        check(
            "train.min_lr_factor",
            self.min_lr_factor,
            Bounds::Closed(0.0, 1.0),
        )?;
        check("train.grad_clip", self.grad_clip, Bounds::AtLeast(0.0))?;
        check("train.batch_size", self.batch_size, Bounds::Closed(1, 65_536))?;
        check(
            "train.sample_reuse",
            self.sample_reuse,
            Bounds::OpenClosed(0.0, 1000.0),
        )?;
        check("train.window", self.window, Bounds::AtLeast(1))?;
        if self.min_samples > self.window {
            return Err(format!(
                "{k}min_samples ({}) must not exceed {k}window ({})",
                self.min_samples, self.window
            ));
        }
        check(
            "train.value_q_weight",
            self.value_q_weight,
            Bounds::Closed(0.0, 1.0),
        )?;
        check(
            "train.material_weight",
            self.material_weight,
            Bounds::Closed(0.0, 100.0),
        )?;
        check(
            "train.plies_left_weight",
            self.plies_left_weight,
            Bounds::Closed(0.0, 100.0),
        )?;
        check(
            "train.reply_weight",
            self.reply_weight,
            Bounds::Closed(0.0, 100.0),
        )?;
        check(
            "train.surprise_fraction",
            self.surprise_fraction,
            Bounds::Closed(0.0, 1.0),
        )?;
        if let Some(w) = self.value_q_weight_final {
            check("train.value_q_weight_final", w, Bounds::Closed(0.0, 1.0))?;
        }
        check("train.schedule_steps", self.schedule_steps, Bounds::AtLeast(1))?;
        check(
            "train.schedule_span",
            self.schedule_span,
            Bounds::Closed(0.0, 100.0),
        )?;
        check("train.window_share", self.window_share, Bounds::Closed(0.0, 1.0))?;
        Ok(())
    }

    /// Where the schedules stand, in training steps of `schedule_steps`:
    /// `step` itself, or, when the run has a planned length (`run_share`,
    /// the share of it done; see `RunConfig::planned_share`) and
    /// `schedule_span > 0`, that share of the span times `schedule_steps`,
    /// so that the schedules end with the span on a fast machine and on a
    /// slow one alike.
    pub fn schedule_step(&self, step: u64, run_share: Option<f64>) -> f64 {
        match run_share {
            Some(share) if self.schedule_span > 0.0 => {
                share.max(0.0) / self.schedule_span * self.schedule_steps as f64
            }
            _ => step as f64,
        }
    }

    /// The schedules' progress in [0, 1] ([`TrainParams::schedule_step`]
    /// over `schedule_steps`).
    pub fn schedule_fraction(&self, step: u64, run_share: Option<f64>) -> f64 {
        (self.schedule_step(step, run_share) / self.schedule_steps as f64).clamp(0.0, 1.0)
    }

    /// The replay window's size once the run has made `samples_made`
    /// samples: `window`, or `window_share` of them when that is more.
    pub fn window_for(&self, samples_made: u64) -> usize {
        self.window
            .max((samples_made as f64 * self.window_share as f64) as usize)
    }

    /// The weight of the search value in the value target at schedule
    /// progress `fraction` (`value_q_weight`, or its schedule towards
    /// `value_q_weight_final`).
    pub fn value_q_weight_at(&self, fraction: f64) -> f32 {
        match self.value_q_weight_final {
            None => self.value_q_weight,
            Some(end) => {
                let f = fraction.clamp(0.0, 1.0) as f32;
                self.value_q_weight + (end - self.value_q_weight) * f
            }
        }
    }

    /// Training steps for `new_samples` fresh samples: each is trained on
    /// `sample_reuse` times in batches of `batch_size`, once the window
    /// holds `min_samples` (none before).
    pub fn steps_for(&self, new_samples: usize, window_len: usize) -> u64 {
        if window_len >= self.min_samples {
            ((new_samples as f64 * self.sample_reuse as f64) / self.batch_size as f64).ceil() as u64
        } else {
            0
        }
    }

    /// Learning rate at training step `step` (warm-up) and schedule
    /// progress `fraction` ([`TrainParams::schedule_fraction`]).
    pub fn lr_at(&self, step: u64, fraction: f64) -> f64 {
        let warm = if self.warmup_steps > 0 && step < self.warmup_steps {
            (step + 1) as f64 / self.warmup_steps as f64
        } else {
            1.0
        };
        let sched = match self.schedule {
            Schedule::Cosine => crate::util::cosine_decay(fraction, self.min_lr_factor),
            Schedule::Constant => 1.0,
        };
        self.lr * warm * sched
    }

    fn optimizer(&self, device: Device) -> Optimizer {
        let rule = match self.optimizer {
            OptimizerKind::Sgd => Rule::Sgd {
                momentum: self.momentum as f32,
            },
            OptimizerKind::AdamW => Rule::AdamW {
                beta1: 0.9,
                beta2: 0.999,
                eps: 1e-8,
            },
        };
        Optimizer::new(rule, self.weight_decay, self.grad_clip, device)
    }
}

/// Mean losses of some training steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Losses {
    /// Mean policy loss.
    pub policy: f64,
    /// The mean entropy (nats) of the network's policy over each batch
    /// position's legal moves (a measure, not trained on).
    pub policy_entropy: f64,
    /// Mean value loss.
    pub value: f64,
    /// The weighted auxiliary losses: material, plies left and the
    /// opponent's reply (0 without those heads).
    pub aux: f64,
    /// Steps averaged over.
    pub steps: u64,
}

/// Owns the network being trained and its optimiser.
pub struct Trainer {
    net: Option<Net>,
    optim: Optimizer,
    /// The plain device (gradients of the hand-written step live there),
    /// and whether that step is used (`fast_step` on the CPU).
    plain: Device,
    fast: bool,
    /// The hand-written step's buffers, kept between steps.
    pool: cpu_step::Pool,
    /// Training steps taken so far.
    pub step: u64,
    /// The training settings.
    pub params: TrainParams,
    /// The network's shape.
    pub model: ModelConfig,
    device: Device,
    /// A raised stop ends [`Trainer::train`] before its next step.
    stop: crate::util::stop::Stop,
    /// The share of the run's planned length done, when it has one.
    run_share: Option<f64>,
}

/// Training samples for benchmarks: each game's position with a uniform
/// policy target over its legal moves (`moves[i]` are game `i`'s legal
/// moves) and a drawn outcome.
pub fn bench_samples<P: Board>(games: &[crate::game::Game<P>], moves: &[Vec<P::Move>]) -> Vec<Sample<P>> {
    games
        .iter()
        .zip(moves)
        .map(|(g, m)| Sample {
            pos: *g.position(),
            repeated: false,
            no_progress: 0.0,
            policy: policy_indices(g.position(), m)
                .into_iter()
                .map(|i| (i, 1.0 / m.len().max(1) as f32))
                .collect(),
            z: Wdl::DRAW,
            q: Wdl::new(0.3, 0.4, 0.3),
            surprise: 0.0,
            aux: Some(AuxTargets::at_end(g.position(), g.position().side_to_move(), 40)),
            reply: None,
        })
        .collect()
}

/// Inputs and targets of one batch.
#[derive(Clone)]
struct Batch {
    obs: Vec<Observation>,
    /// Policy logits per sample: the board's policy size.
    moves: usize,
    policy: Vec<f32>,
    mask: Vec<f32>,
    value: Vec<f32>,
    /// Auxiliary targets `[n, AUX_OUTPUTS]` and 1 where a sample has them.
    aux: Vec<f32>,
    aux_mask: Vec<f32>,
    /// One-hot opponent's replies `[n, moves]` (a zero row where a
    /// sample has none) and how many samples have one.
    reply: Vec<f32>,
    replies: usize,
}

/// `with_reply`: the network trains a reply head (the one-hot replies are
/// built only then).
fn make_batch<P: Board>(
    samples: &[&Sample<P>],
    inputs: Inputs,
    q_weight: f32,
    with_reply: bool,
    rng: &mut Rng,
) -> Batch {
    let n = samples.len();
    let moves = P::CELLS.policy_size();
    let mut b = Batch {
        obs: Vec::with_capacity(n),
        moves,
        policy: vec![0.0; n * moves],
        mask: vec![-1.0e9; n * moves],
        value: Vec::with_capacity(n * 3),
        aux: Vec::with_capacity(n * AUX_OUTPUTS),
        aux_mask: Vec::with_capacity(n * AUX_OUTPUTS),
        reply: Vec::new(),
        replies: 0,
    };
    if with_reply {
        b.reply = vec![0.0; n * moves];
    }
    for (i, s) in samples.iter().enumerate() {
        let mut obs = Observation::new(&s.pos, s.repeated, s.no_progress, inputs);
        // Drawn in every game, so that a seed draws the same batches;
        // applied only where the game has a symmetry.
        let symmetry = match rng.random::<bool>() {
            true => P::SYMMETRY,
            false => Symmetry::None,
        };
        obs = obs.under(symmetry);
        b.obs.push(obs);
        for &(j, p) in &s.policy {
            let j = index_under(P::CELLS, symmetry, j);
            let at = i * moves + j as usize;
            b.policy[at] += p;
            b.mask[at] = 0.0;
        }
        b.value.extend(s.z.mix(s.q, q_weight).to_array());
        let (targets, known) = match s.aux {
            Some(a) => ([a.material, a.plies_left], 1.0),
            None => ([0.0; AUX_OUTPUTS], 0.0),
        };
        b.aux.extend(targets);
        b.aux_mask.extend([known; AUX_OUTPUTS]);
        if let Some(j) = s.reply.filter(|_| with_reply) {
            let j = index_under(P::CELLS, symmetry, j);
            b.reply[i * moves + j as usize] = 1.0;
            b.replies += 1;
        }
    }
    b
}

impl Trainer {
    /// A new trainer with freshly initialised weights (from the backend's
    /// generator as it stands); `device` is a plain device, training runs
    /// on its autodiff twin.
    pub fn new(model: ModelConfig, params: TrainParams, device: Device) -> Trainer {
        let ad = device.clone().autodiff();
        let net = model.init(&ad);
        Self::with_net(net, ad, model, params, device)
    }

    /// [`Trainer::new`] with the weights drawn right after seeding the
    /// generator with `seed`: the same bytes every time, whatever else the
    /// process initialises at once.
    pub fn seeded(model: ModelConfig, params: TrainParams, device: Device, seed: u64) -> Trainer {
        let ad = device.clone().autodiff();
        let net = model.init_seeded(&ad, &device, seed);
        Self::with_net(net, ad, model, params, device)
    }

    /// A trainer of `net`, drawn on `ad`, the autodiff twin of `device`.
    fn with_net(net: Net, ad: Device, model: ModelConfig, params: TrainParams, device: Device) -> Trainer {
        let optim = params.optimizer(device.clone());
        Trainer {
            net: Some(net),
            optim,
            fast: params.fast_step && device == Device::flex(),
            plain: device,
            pool: cpu_step::Pool::default(),
            step: 0,
            params,
            model,
            device: ad,
            stop: Default::default(),
            run_share: None,
        }
    }

    /// The share of the run's planned length done (None: no planned
    /// length); the schedules follow it ([`TrainParams::schedule_step`]).
    pub fn set_run_share(&mut self, share: Option<f64>) {
        self.run_share = share;
    }

    /// Where the schedules stand ([`TrainParams::schedule_step`]).
    pub fn schedule_step(&self) -> f64 {
        self.params.schedule_step(self.step, self.run_share)
    }

    /// The learning rate of the next step.
    pub fn lr(&self) -> f64 {
        self.params.lr_at(
            self.step,
            self.params.schedule_fraction(self.step, self.run_share),
        )
    }

    /// End [`Trainer::train`] early once `stop` is raised.
    pub fn stop_on(&mut self, stop: crate::util::stop::Stop) {
        self.stop = stop;
    }

    /// The network (in training mode).
    pub fn net(&self) -> &Net {
        self.net.as_ref().expect("network present")
    }

    /// One step on a batch; returns its losses.
    pub fn train_step<P: Board>(&mut self, samples: &[&Sample<P>], rng: &mut Rng) -> Losses {
        let fraction = self.params.schedule_fraction(self.step, self.run_share);
        let b = make_batch(
            samples,
            self.model.inputs,
            self.params.value_q_weight_at(fraction),
            self.model.reply_head && self.params.reply_weight > 0.0,
            rng,
        );
        let net = self.net.take().expect("network present");
        let lr = self.params.lr_at(self.step, fraction);
        if self.fast && cpu_step::supports(&net) {
            let weights = [self.params.material_weight, self.params.plies_left_weight];
            let s = cpu_step::step(&net, &b, self.model.inputs, weights, &self.pool);
            cpu_step::update_running_stats(&net, &s.stats);
            self.net = Some(self.optim.step(lr, net, s.grads.into_params(&self.plain)));
            self.step += 1;
            return s.losses;
        }
        let (grads, losses) = self.burn_gradients(&net, b);
        self.net = Some(self.optim.step(lr, net, grads));
        self.step += 1;
        losses
    }

    /// burn's autodiff of the loss of `net` on a batch: the gradients and
    /// the losses (the reference the hand-written step is checked against).
    fn burn_gradients(&self, net: &Net, b: Batch) -> (GradientsParams, Losses) {
        let (n, moves) = (b.obs.len(), b.moves);
        let d = &self.device;
        let x = planes_tensor(&b.obs, self.model.inputs, d);
        let target = Tensor::<2>::from_data(TensorData::new(b.policy, [n, moves]), d);
        let mask = Tensor::<2>::from_data(TensorData::new(b.mask, [n, moves]), d);
        let vt = Tensor::<2>::from_data(TensorData::new(b.value, [n, 3]), d);
        let out = net.forward_all(x);
        let (p, v) = (out.policy, out.value);
        let lp = log_softmax(p + mask, 1);
        let policy_loss = (target * lp.clone()).sum_dim(1).mean().neg();
        // Masked moves' probabilities are exactly 0, so they add nothing.
        let entropy = (lp.clone().exp() * lp).sum_dim(1).mean().neg();
        let value_loss = (vt * log_softmax(v, 1)).sum_dim(1).mean().neg();
        let mut loss = policy_loss.clone() + value_loss.clone();
        let mut aux_loss = None;
        if let Some(aux) = out.aux {
            // Squared errors of the samples with targets, weighted per
            // output, averaged over those samples.
            let known = b.aux_mask.iter().filter(|&&m| m > 0.0).count() / AUX_OUTPUTS;
            let at = Tensor::<2>::from_data(TensorData::new(b.aux, [n, AUX_OUTPUTS]), d);
            let am = Tensor::<2>::from_data(TensorData::new(b.aux_mask, [n, AUX_OUTPUTS]), d);
            let w = [self.params.material_weight, self.params.plies_left_weight];
            let w = Tensor::<2>::from_data(TensorData::new(w.to_vec(), [1, AUX_OUTPUTS]), d);
            let err = (aux - at) * am;
            let l = (err.clone() * err * w).sum().div_scalar(known.max(1) as f32);
            loss = loss + l.clone();
            aux_loss = Some(l);
        }
        if let Some(reply) = out.reply.filter(|_| b.replies > 0) {
            // Cross-entropy at the reply played, over the samples with one.
            let t = Tensor::<2>::from_data(TensorData::new(b.reply, [n, moves]), d);
            let l = (t * log_softmax(reply, 1))
                .sum()
                .neg()
                .mul_scalar(self.params.reply_weight / b.replies as f32);
            loss = loss + l.clone();
            aux_loss = Some(match aux_loss {
                Some(a) => a + l,
                None => l,
            });
        }
        let grads = GradientsParams::from_grads(loss.backward(), net);
        let scalar = |t: Tensor<1>| {
            t.into_data()
                .try_into_vec::<f32>()
                .map(|v| v[0] as f64)
                .unwrap_or(f64::NAN)
        };
        let losses = Losses {
            policy: scalar(policy_loss),
            policy_entropy: scalar(entropy),
            value: scalar(value_loss),
            aux: aux_loss.map_or(0.0, scalar),
            steps: 1,
        };
        (grads, losses)
    }

    /// Several steps on uniform batches from `window`; mean losses.
    pub fn train<P: Board>(
        &mut self,
        window: &crate::data::ReplayWindow<P>,
        steps: u64,
        rng: &mut Rng,
        mut tick: impl FnMut(),
    ) -> Losses {
        let mut l = Losses::default();
        let batches = window.batches(self.params.surprise_fraction);
        for _ in 0..steps {
            if self.stop.requested() {
                break;
            }
            let batch = batches.batch(self.params.batch_size, rng);
            let s = self.train_step(&batch, rng);
            l.policy += s.policy;
            l.policy_entropy += s.policy_entropy;
            l.value += s.value;
            l.aux += s.aux;
            l.steps += 1;
            tick();
        }
        if l.steps > 0 {
            l.policy /= l.steps as f64;
            l.policy_entropy /= l.steps as f64;
            l.value /= l.steps as f64;
            l.aux /= l.steps as f64;
        }
        l
    }

    /// Model weights as burnpack bytes.
    pub fn weights_bytes(&self) -> Result<Vec<u8>, String> {
        crate::net::weights_to_bytes(self.net())
    }

    /// Optimiser state as bytes.
    pub fn optimizer_bytes(&self) -> Result<Vec<u8>, String> {
        Ok(self.optim.to_bytes())
    }

    /// Restore weights and optimiser state.
    pub fn restore(&mut self, weights: Vec<u8>, optim: Vec<u8>, step: u64) -> Result<(), String> {
        let net = crate::net::net_from_bytes(&self.model, weights, &self.device, "model weights")
            .map_err(|e| e.to_string())?;
        self.optim
            .load_bytes(&optim)
            .map_err(|e| format!("optimizer state: {e}"))?;
        self.net = Some(net);
        self.step = step;
        Ok(())
    }
}
