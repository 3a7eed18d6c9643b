//! Training the learned evaluation: positions labelled by the run's own
//! self-play (game outcomes, search values) and by its network (the value
//! head on each position: distillation), fitted by minibatch Adam on the
//! squared error of the expected score (`sigmoid(logit)` against the
//! label, a win 1, a draw 1/2).

use super::features::{Inputs, Planes};
use super::model::{sigmoid, FloatEval, Shape};
use crate::data::Sample;
use crate::game::{Board, Color, Symmetry};
use crate::mcts::Wdl;
use crate::util::range::{check, Bounds};
use crate::util::{rng_stream, Rng};
use rand::seq::SliceRandom;
use rayon::prelude::*;

/// One training position: its pieces, the side to move and the label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Example {
    /// The position's pieces.
    pub planes: Planes,
    /// The side to move.
    pub stm: Color,
    /// The side to move's expected score in [0, 1].
    pub target: f32,
}

/// How a position's label mixes its three teachers (the weights are
/// normalised by their sum).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetMix {
    /// The network's value of the position (distillation).
    pub network: f32,
    /// The self-play search's value at the position.
    pub search: f32,
    /// The game's outcome.
    pub outcome: f32,
}

impl Default for TargetMix {
    fn default() -> Self {
        TargetMix {
            network: 0.5,
            search: 0.25,
            outcome: 0.25,
        }
    }
}

impl TargetMix {
    /// A one-line error for negative weights or weights summing to 0.
    pub fn validate(&self) -> Result<(), String> {
        let all = [self.network, self.search, self.outcome];
        if all.iter().any(|w| !w.is_finite() || *w < 0.0) || all.iter().sum::<f32>() <= 0.0 {
            return Err(format!(
                "learned_eval.network_weight, search_weight and outcome_weight must be at least 0 with a positive sum, got {} {} {}",
                self.network, self.search, self.outcome
            ));
        }
        Ok(())
    }

    /// The label of a position: the weighted mean of the teachers'
    /// expected scores (`network` None: that teacher left out).
    pub fn label(&self, network: Option<Wdl>, search: Wdl, outcome: Wdl) -> f32 {
        let net_w = if network.is_some() { self.network } else { 0.0 };
        let total = net_w + self.search + self.outcome;
        if total <= 0.0 {
            return expected_score(outcome);
        }
        (net_w * network.map_or(0.0, expected_score)
            + self.search * expected_score(search)
            + self.outcome * expected_score(outcome))
            / total
    }
}

/// The side to move's expected score of `w`: a win 1, a draw 1/2.
fn expected_score(w: Wdl) -> f32 {
    (w.value() + 1.0) / 2.0
}

/// Positions a search would evaluate: the side to move has no capture
/// (captures are searched out, never evaluated).
pub fn is_quiet<P: Board>(pos: &P) -> bool {
    !pos.has_capture()
}

/// Append the example of `pos` with `target`, and its image under the
/// game's symmetry where it has one ([`Board::SYMMETRY`]). Only quiet
/// positions ([`is_quiet`]) are kept.
fn push_example<P: Board>(out: &mut Vec<Example>, pos: &P, target: f32) {
    if !is_quiet(pos) {
        return;
    }
    let (planes, stm) = (super::features::planes(pos), pos.side_to_move());
    out.push(Example { planes, stm, target });
    if P::SYMMETRY != Symmetry::None {
        let planes = super::features::under_symmetry::<P>(&planes);
        out.push(Example { planes, stm, target });
    }
}

/// The training examples of `samples` (quiet positions only), labelled by
/// `mix` with `network` the network's value of each sample (same order)
/// where known; reflected copies added where the game's rules allow.
pub fn examples<P: Board>(samples: &[&Sample<P>], network: Option<&[Wdl]>, mix: &TargetMix) -> Vec<Example> {
    let mut out = Vec::with_capacity(samples.len() * 2);
    for (i, s) in samples.iter().enumerate() {
        push_example(&mut out, &s.pos, mix.label(network.map(|n| n[i]), s.q, s.z));
    }
    out
}

/// The training examples of positions labelled by the network alone
/// (`values`, same order; quiet positions only), reflected copies added
/// where the game's rules allow.
pub fn network_examples<P: Board>(positions: &[P], values: &[Wdl]) -> Vec<Example> {
    let mut out = Vec::with_capacity(positions.len() * 2);
    for (pos, v) in positions.iter().zip(values) {
        push_example(&mut out, pos, expected_score(*v));
    }
    out
}

/// The training examples of positions with their labels (the side to
/// move's expected score; quiet positions only), reflected copies added
/// where the game's rules allow.
pub fn labelled_examples<P: Board>(labelled: &[(P, f32)]) -> Vec<Example> {
    let mut out = Vec::with_capacity(labelled.len() * 2);
    for (pos, target) in labelled {
        push_example(&mut out, pos, *target);
    }
    out
}

/// Positions off the games' paths, which a search visits and self-play
/// did not play: from each of `positions`, 1 to `max_plies` random moves
/// (the walk's length drawn uniformly), kept where the game goes on and
/// the side to move has no capture, each with the index of the position it
/// started from. Seeded by `rng`.
pub fn random_walks<P: Board>(positions: &[P], max_plies: u32, rng: &mut Rng) -> Vec<(usize, P)> {
    use rand::Rng as _;
    let mut moves = Vec::new();
    let mut out = Vec::with_capacity(positions.len());
    for (i, start) in positions.iter().enumerate() {
        let mut pos = *start;
        let plies = rng.random_range(1..=max_plies.max(1));
        let mut alive = true;
        for _ in 0..plies {
            pos.legal_moves_into(&mut moves);
            if moves.is_empty() || pos.decided().is_some() {
                alive = false;
                break;
            }
            pos.play_unchecked(&moves[rng.random_range(0..moves.len())]);
        }
        pos.legal_moves_into(&mut moves);
        if alive && !moves.is_empty() && pos.decided().is_none() && is_quiet(&pos) {
            out.push((i, pos));
        }
    }
    out
}

/// How a learned evaluation is trained: the config's `[learned_eval]`
/// section (`damone learn-eval --set` overrides it), whose first two keys
/// `damone train` reads.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LearnEvalConfig {
    /// `damone train` trains one at the run's last iteration (its
    /// checkpoint's `learned_eval.bin`).
    pub train_in_run: bool,
    /// `damone train` also trains one every this many iterations (0: none).
    pub interval: u32,
    /// Units of each view's accumulator.
    pub hidden: usize,
    /// Units of the second layer.
    pub hidden2: usize,
    /// The inputs: pieces (one per piece and cell) | pairs (and one per
    /// neighbouring pair of cells and what stands on them).
    pub inputs: Inputs,
    /// Passes over the positions.
    pub epochs: usize,
    /// Positions per Adam step.
    pub batch_size: usize,
    /// Adam's learning rate at the start (cosine to a tenth at the end).
    pub lr: f32,
    /// Share of the positions held out to measure the loss on.
    pub held_out: f32,
    /// The newest replay positions used (0: the whole window).
    pub positions: usize,
    /// Also a position 1 to this many random moves away from each replay
    /// position, labelled by the network alone: positions a search visits
    /// and self-play did not play (0: none).
    pub walk_plies: u32,
    /// Weight of the network's value of a position in its label.
    pub network_weight: f32,
    /// Weight of the self-play search's value.
    pub search_weight: f32,
    /// Weight of the game's outcome.
    pub outcome_weight: f32,
}

impl Default for LearnEvalConfig {
    fn default() -> Self {
        let m = TargetMix::default();
        LearnEvalConfig {
            train_in_run: true,
            interval: 0,
            hidden: Shape::default().hidden,
            hidden2: Shape::default().hidden2,
            inputs: Shape::default().inputs,
            epochs: 12,
            batch_size: 512,
            lr: 0.002,
            held_out: 0.05,
            positions: 0,
            walk_plies: 0,
            network_weight: m.network,
            search_weight: m.search,
            outcome_weight: m.outcome,
        }
    }
}

impl LearnEvalConfig {
    /// A one-line error for a setting out of range, naming the key.
    pub fn validate(&self) -> Result<(), String> {
        self.shape()
            .validate()
            .map_err(|e| format!("learned_eval: {e}"))?;
        check("learned_eval.epochs", self.epochs, Bounds::AtLeast(1))?;
        check("learned_eval.batch_size", self.batch_size, Bounds::AtLeast(1))?;
        check("learned_eval.lr", self.lr, Bounds::Above(0.0))?;
        check(
            "learned_eval.held_out",
            self.held_out,
            Bounds::ClosedOpen(0.0, 0.5),
        )?;
        self.targets().validate()
    }

    /// How labels mix the teachers.
    pub fn targets(&self) -> TargetMix {
        TargetMix {
            network: self.network_weight,
            search: self.search_weight,
            outcome: self.outcome_weight,
        }
    }

    /// The shape of a new network.
    pub fn shape(&self) -> Shape {
        Shape {
            hidden: self.hidden,
            hidden2: self.hidden2,
            inputs: self.inputs,
        }
    }
}

/// What a training did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrainReport {
    /// Positions trained on.
    pub train_positions: usize,
    /// Positions held out for the loss.
    pub held_out_positions: usize,
    /// Held-out loss before the first step and after each epoch.
    pub held_out_loss: Vec<f32>,
    /// Mean training loss of each epoch.
    pub train_loss: Vec<f32>,
}

/// The mean squared error of the expected score over `examples`.
pub fn loss(model: &FloatEval, examples: &[Example]) -> f32 {
    if examples.is_empty() {
        return 0.0;
    }
    let sum: f64 = examples
        .par_iter()
        .map(|e| {
            let d = sigmoid(model.logit(&e.planes, e.stm)) - e.target;
            (d * d) as f64
        })
        .sum();
    (sum / examples.len() as f64) as f32
}

/// Split `examples` into training and held-out positions (shuffled by
/// `seed`, the held-out share from `settings`).
pub fn split(mut examples: Vec<Example>, held_out: f32, seed: u64) -> (Vec<Example>, Vec<Example>) {
    examples.shuffle(&mut rng_stream(seed, "learned-eval-split", 0));
    let n = (examples.len() as f32 * held_out).round() as usize;
    let test = examples.split_off(examples.len() - n);
    (examples, test)
}

/// Gradients of the loss with respect to every weight (same layout as
/// [`FloatEval`]).
struct Grads {
    w1: Vec<f32>,
    b1: Vec<f32>,
    w2: Vec<f32>,
    b2: Vec<f32>,
    w3: Vec<f32>,
    b3: f32,
    loss: f64,
}

impl Grads {
    fn zeros(s: Shape) -> Grads {
        Grads {
            w1: vec![0.0; s.inputs.count() * s.hidden],
            b1: vec![0.0; s.hidden],
            w2: vec![0.0; s.hidden2 * 2 * s.hidden],
            b2: vec![0.0; s.hidden2],
            w3: vec![0.0; s.hidden2],
            b3: 0.0,
            loss: 0.0,
        }
    }

    fn add(mut self, o: Grads) -> Grads {
        for (a, b) in [
            (&mut self.w1, &o.w1),
            (&mut self.b1, &o.b1),
            (&mut self.w2, &o.w2),
            (&mut self.b2, &o.b2),
            (&mut self.w3, &o.w3),
        ] {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        self.b3 += o.b3;
        self.loss += o.loss;
        self
    }

    /// Add one example's gradient.
    fn accumulate(&mut self, m: &FloatEval, e: &Example) {
        let (h, l) = (m.shape.hidden, m.shape.hidden2);
        let act = m.forward(&e.planes, e.stm);
        let p = sigmoid(act.y);
        let d = p - e.target;
        self.loss += (d * d) as f64;
        let dy = 2.0 * d * p * (1.0 - p);
        self.b3 += dy;
        let a1: Vec<f32> = act.z1.iter().map(|z| z.clamp(0.0, 1.0)).collect();
        let mut da1 = vec![0.0f32; 2 * h];
        for j in 0..l {
            let z2 = act.z2[j];
            self.w3[j] += dy * z2.clamp(0.0, 1.0);
            if z2 <= 0.0 || z2 >= 1.0 {
                continue;
            }
            let dz2 = dy * m.w3[j];
            self.b2[j] += dz2;
            let row = j * 2 * h..(j + 1) * 2 * h;
            for ((g, a), (w, da)) in self.w2[row.clone()]
                .iter_mut()
                .zip(&a1)
                .zip(m.w2[row].iter().zip(da1.iter_mut()))
            {
                *g += dz2 * a;
                *da += dz2 * w;
            }
        }
        let dz1: Vec<f32> = da1
            .iter()
            .zip(&act.z1)
            .map(|(&da, &z)| if z > 0.0 && z < 1.0 { da } else { 0.0 })
            .collect();
        for (view, part) in [(e.stm, &dz1[..h]), (e.stm.opposite(), &dz1[h..])] {
            self.b1.iter_mut().zip(part).for_each(|(g, d)| *g += d);
            m.input_set().for_each_active(&e.planes, view, |f| {
                self.w1[f * h..(f + 1) * h]
                    .iter_mut()
                    .zip(part)
                    .for_each(|(g, d)| *g += d);
            });
        }
    }
}

/// Adam's moment estimates for one weight vector.
struct Moments {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Moments {
    fn new(n: usize) -> Moments {
        Moments {
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }

    fn step(&mut self, w: &mut [f32], g: &[f32], lr: f32, t: i32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        let (c1, c2) = (1.0 - B1.powi(t), 1.0 - B2.powi(t));
        for i in 0..w.len() {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * g[i];
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * g[i] * g[i];
            w[i] -= lr * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + 1e-8);
        }
    }
}

/// Adam over every weight of a network.
struct Adam {
    moments: [Moments; 6],
    t: i32,
}

impl Adam {
    fn new(m: &FloatEval) -> Adam {
        Adam {
            moments: [
                Moments::new(m.w1.len()),
                Moments::new(m.b1.len()),
                Moments::new(m.w2.len()),
                Moments::new(m.b2.len()),
                Moments::new(m.w3.len()),
                Moments::new(1),
            ],
            t: 0,
        }
    }

    fn step(&mut self, m: &mut FloatEval, g: &Grads, lr: f32) {
        self.t += 1;
        let t = self.t;
        let [w1, b1, w2, b2, w3, b3] = &mut self.moments;
        w1.step(&mut m.w1, &g.w1, lr, t);
        b1.step(&mut m.b1, &g.b1, lr, t);
        w2.step(&mut m.w2, &g.w2, lr, t);
        b2.step(&mut m.b2, &g.b2, lr, t);
        w3.step(&mut m.w3, &g.w3, lr, t);
        let mut b = [m.b3];
        b3.step(&mut b, &[g.b3], lr, t);
        m.b3 = b[0];
        m.clip_weights();
    }
}

/// One minibatch's mean gradient, its examples split over the threads.
fn batch_gradient(model: &FloatEval, batch: &[&Example]) -> Grads {
    let chunk = batch.len().div_ceil(rayon::current_num_threads().max(1)).max(1);
    let mut g = batch
        .par_chunks(chunk)
        .map(|part| {
            let mut g = Grads::zeros(model.shape);
            for e in part {
                g.accumulate(model, e);
            }
            g
        })
        .reduce(|| Grads::zeros(model.shape), Grads::add);
    let scale = 1.0 / batch.len() as f32;
    for v in [&mut g.w1, &mut g.b1, &mut g.w2, &mut g.b2, &mut g.w3] {
        v.iter_mut().for_each(|x| *x *= scale);
    }
    g.b3 *= scale;
    g
}

/// Train `model` on `train` for `settings.epochs` epochs (the order of
/// each epoch from `rng`), measuring the loss on `held_out` before and
/// after each epoch; `progress(epoch, held-out loss)` after each.
pub fn fit(
    model: &mut FloatEval,
    train: &[Example],
    held_out: &[Example],
    settings: &LearnEvalConfig,
    rng: &mut Rng,
    mut progress: impl FnMut(usize, f32),
) -> TrainReport {
    let mut report = TrainReport {
        train_positions: train.len(),
        held_out_positions: held_out.len(),
        held_out_loss: vec![loss(model, held_out)],
        train_loss: Vec::new(),
    };
    let mut adam = Adam::new(model);
    let mut order: Vec<&Example> = train.iter().collect();
    let steps_per_epoch = train.len().div_ceil(settings.batch_size).max(1);
    let total = (steps_per_epoch * settings.epochs) as f64;
    let mut step = 0;
    for epoch in 0..settings.epochs {
        order.shuffle(rng);
        let mut sum = 0.0;
        for batch in order.chunks(settings.batch_size) {
            let lr = settings.lr * crate::util::cosine_decay(step as f64 / total, 0.1) as f32;
            let g = batch_gradient(model, batch);
            sum += g.loss;
            adam.step(model, &g, lr);
            step += 1;
        }
        report.train_loss.push((sum / train.len().max(1) as f64) as f32);
        let l = loss(model, held_out);
        report.held_out_loss.push(l);
        progress(epoch + 1, l);
    }
    report
}
