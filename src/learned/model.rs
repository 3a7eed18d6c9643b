//! The learned evaluation's network, in floats (for training) and in
//! integers (for the search).
//!
//! Shape: the [`FEATURES`] inputs of each view into `hidden` units (one
//! weight row per feature, summed: the accumulator), clipped to [0, 1];
//! the side to move's units then the opponent's into `hidden2` units,
//! clipped to [0, 1]; those into one output, the logit of the side to
//! move's expected score (a win 1, a draw 1/2).
//!
//! The integer model keeps the accumulator in `i16` (1.0 = [`QA`]) and
//! the second layer's weights in `i16` (1.0 = [`QB`]), with `i32` sums;
//! the small last layer stays in floats. The float weights are clipped in
//! training ([`W1_LIMIT`], [`PAIR_LIMIT`], [`W2_LIMIT`]) so that no
//! integer sum can overflow.

use super::features::{InputSet, Inputs, Planes, FEATURES};
use crate::game::Color;
use crate::util::Rng;
use rand_distr::{Distribution, Normal};

/// The accumulator's unit: a first-layer activation of 1.0 is `QA`.
pub const QA: i32 = 255;
/// The second layer's weight unit.
pub const QB: i32 = 512;
/// First-layer weights and biases are kept within +-`W1_LIMIT`: 63
/// pieces of `W1_LIMIT x QA` and the bias stay inside `i16`.
pub const W1_LIMIT: f32 = 2.0;
/// The pairs' first-layer weights ([`Inputs::Pairs`]) are kept within
/// +-`PAIR_LIMIT`: 40 pieces of [`W1_LIMIT`], the bias and the 210 pairs
/// of a full 8x8 board stay inside `i16` (31,620 at most).
pub const PAIR_LIMIT: f32 = 0.2;
/// Second-layer weights are kept within +-`W2_LIMIT` (2,048 at `QB`:
/// 2,048 products of an activation and a weight stay inside `i32`).
pub const W2_LIMIT: f32 = 4.0;
/// Evaluation units per unit of logit: the search's scores are
/// `logit x EVAL_SCALE`, a draw 0.
pub const EVAL_SCALE: f32 = 256.0;

/// The logistic function: a logit's probability.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The side to move's expected score (a win 1, a draw 1/2) that a search
/// score in the learned evaluation's units stands for.
pub fn expected_score_of(score: i32) -> f32 {
    sigmoid(score as f32 / EVAL_SCALE)
}

/// The inputs and the sizes of the hidden layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shape {
    /// Units of each view's accumulator.
    pub hidden: usize,
    /// Units of the second layer.
    pub hidden2: usize,
    /// The inputs it reads.
    pub inputs: Inputs,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            hidden: 64,
            hidden2: 8,
            inputs: Inputs::Pieces,
        }
    }
}

impl Shape {
    /// The largest layer sizes a file may declare.
    pub const MAX: usize = 1024;

    /// A one-line error when a size is out of range.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [("hidden", self.hidden), ("hidden2", self.hidden2)] {
            if v == 0 || v > Shape::MAX {
                return Err(format!(
                    "learned evaluation {name} size {v} is out of range 1-{}",
                    Shape::MAX
                ));
            }
        }
        Ok(())
    }

    /// Its sizes and inputs in words: "64x8 hidden", with ", pairs" when
    /// it reads piece pairs.
    pub fn describe(&self) -> String {
        match self.inputs {
            Inputs::Pieces => format!("{}x{} hidden", self.hidden, self.hidden2),
            Inputs::Pairs => format!("{}x{} hidden, pairs", self.hidden, self.hidden2),
        }
    }
}

/// The float network: trained by [`super::train`], quantised into
/// [`QuantEval`] for the search.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatEval {
    /// Its inputs and layer sizes.
    pub shape: Shape,
    /// The game's cells of the 8x8 grid, which pairs are read on
    /// ([`InputSet::cells`]; all of them for pieces alone).
    pub cells: u64,
    /// `[inputs][hidden]`, row per input ([`Inputs::count`]).
    pub w1: Vec<f32>,
    /// `[hidden]`: the first layer's biases.
    pub b1: Vec<f32>,
    /// `[hidden2][2 x hidden]`, row per output unit.
    pub w2: Vec<f32>,
    /// `[hidden2]`: the second layer's biases.
    pub b2: Vec<f32>,
    /// `[hidden2]`: the output's weights.
    pub w3: Vec<f32>,
    /// The output's bias.
    pub b3: f32,
}

/// What one view's first layer and the layers after it computed for one
/// position (kept by training for the backward pass).
pub struct Activations {
    /// Pre-activation of the side to move's units, then the opponent's.
    pub z1: Vec<f32>,
    /// The second layer's pre-activations.
    pub z2: Vec<f32>,
    /// The output logit.
    pub y: f32,
}

#[inline]
fn clip01(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

impl FloatEval {
    /// A new network with random weights from `rng` for a game of the
    /// cells `cells`. The pieces' rows are random, the pairs' zero (so that
    /// a seed gives the same start with either inputs).
    pub fn new(shape: Shape, cells: u64, rng: &mut Rng) -> FloatEval {
        let (h, l) = (shape.hidden, shape.hidden2);
        let mut normal = |n: usize, std: f32| -> Vec<f32> {
            let d = Normal::new(0.0, std).expect("a positive deviation");
            (0..n).map(|_| d.sample(rng)).collect()
        };
        let mut w1 = normal(FEATURES * h, 0.5 / 20f32.sqrt());
        w1.resize(shape.inputs.count() * h, 0.0);
        FloatEval {
            shape,
            // Pieces alone read no cells: all of them, as files of version 1 say.
            cells: if shape.inputs == Inputs::Pairs {
                cells
            } else {
                u64::MAX
            },
            w1,
            b1: vec![0.25; h],
            w2: normal(l * 2 * h, 1.0 / (2.0 * h as f32).sqrt()),
            b2: vec![0.25; l],
            w3: normal(l, 1.0 / (l as f32).sqrt()),
            b3: 0.0,
        }
    }

    /// The inputs it reads, on its game's cells.
    pub fn input_set(&self) -> InputSet {
        InputSet::new(self.shape.inputs, self.cells)
    }

    /// The same evaluation reading pairs too, on the cells `cells`: an
    /// evaluation of pieces alone gets the pairs' rows at zero, so it
    /// scores every position as before; one of pairs is returned as it is.
    pub fn with_pairs(mut self, cells: u64) -> FloatEval {
        if self.shape.inputs == Inputs::Pieces {
            self.shape.inputs = Inputs::Pairs;
            self.w1.resize(Inputs::Pairs.count() * self.shape.hidden, 0.0);
            self.cells = cells;
        }
        self
    }

    /// The first layer's sums for `view`.
    fn accumulate(&self, planes: &Planes, view: Color, out: &mut [f32]) {
        let h = self.shape.hidden;
        out.copy_from_slice(&self.b1);
        self.input_set().for_each_active(planes, view, |f| {
            for (o, w) in out.iter_mut().zip(&self.w1[f * h..(f + 1) * h]) {
                *o += w;
            }
        });
    }

    /// The forward pass of a position with `stm` to move, keeping what
    /// the backward pass needs.
    pub fn forward(&self, planes: &Planes, stm: Color) -> Activations {
        let (h, l) = (self.shape.hidden, self.shape.hidden2);
        let mut z1 = vec![0.0; 2 * h];
        self.accumulate(planes, stm, &mut z1[..h]);
        self.accumulate(planes, stm.opposite(), &mut z1[h..]);
        let a1: Vec<f32> = z1.iter().map(|&z| clip01(z)).collect();
        let z2: Vec<f32> = (0..l)
            .map(|j| {
                let row = &self.w2[j * 2 * h..(j + 1) * 2 * h];
                self.b2[j] + row.iter().zip(&a1).map(|(w, a)| w * a).sum::<f32>()
            })
            .collect();
        let y = self.b3 + z2.iter().zip(&self.w3).map(|(&z, w)| clip01(z) * w).sum::<f32>();
        Activations { z1, z2, y }
    }

    /// The logit of the side to move's expected score.
    pub fn logit(&self, planes: &Planes, stm: Color) -> f32 {
        self.forward(planes, stm).y
    }

    /// Keep the weights within the integer model's ranges.
    pub fn clip_weights(&mut self) {
        let pieces = FEATURES * self.shape.hidden;
        for w in self.w1[..pieces].iter_mut().chain(self.b1.iter_mut()) {
            *w = w.clamp(-W1_LIMIT, W1_LIMIT);
        }
        for w in self.w1[pieces..].iter_mut() {
            *w = w.clamp(-PAIR_LIMIT, PAIR_LIMIT);
        }
        for w in self.w2.iter_mut() {
            *w = w.clamp(-W2_LIMIT, W2_LIMIT);
        }
    }
}

/// The integer network the search evaluates with.
#[derive(Clone, Debug)]
pub struct QuantEval {
    /// Its inputs and layer sizes.
    pub shape: Shape,
    /// The inputs it reads, on its game's cells.
    inputs: InputSet,
    /// `[inputs][hidden]` at [`QA`].
    w1: Vec<i16>,
    b1: Vec<i16>,
    /// `[hidden2][2 x hidden]` at [`QB`].
    w2: Vec<i16>,
    /// The second layer's biases in its sums' unit (`QA x QB`).
    b2: Vec<i32>,
    w3: Vec<f32>,
    b3: f32,
}

/// One position's accumulators: the first layer's integer sums for White's
/// view then Black's, and the pieces they were summed over.
#[derive(Clone, Debug, PartialEq)]
pub struct Accumulator {
    /// The pieces the sums were computed for.
    pub planes: Planes,
    /// `[2][hidden]`: White's view, then Black's.
    pub sums: Vec<i16>,
}

impl QuantEval {
    /// The integer model of `float` (weights rounded to their units).
    pub fn from_float(float: &FloatEval) -> QuantEval {
        let q = |w: f32, unit: i32, limit: f32| (w.clamp(-limit, limit) * unit as f32).round() as i16;
        let pieces = FEATURES * float.shape.hidden;
        let limit = |i: usize| if i < pieces { W1_LIMIT } else { PAIR_LIMIT };
        QuantEval {
            shape: float.shape,
            inputs: float.input_set(),
            w1: float
                .w1
                .iter()
                .enumerate()
                .map(|(i, &w)| q(w, QA, limit(i)))
                .collect(),
            b1: float.b1.iter().map(|&w| q(w, QA, W1_LIMIT)).collect(),
            w2: float.w2.iter().map(|&w| q(w, QB, W2_LIMIT)).collect(),
            b2: float
                .b2
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
            w3: float.w3.clone(),
            b3: float.b3,
        }
    }

    /// A zeroed accumulator of this model's size.
    pub fn new_accumulator(&self) -> Accumulator {
        Accumulator {
            planes: [[0; 3]; 2],
            sums: vec![0; 2 * self.shape.hidden],
        }
    }

    /// Sum the accumulator of `planes` from scratch.
    pub fn refresh(&self, planes: &Planes, acc: &mut Accumulator) {
        let h = self.shape.hidden;
        acc.planes = *planes;
        for view in [Color::White, Color::Black] {
            let sums = &mut acc.sums[view.index() * h..(view.index() + 1) * h];
            sums.copy_from_slice(&self.b1);
            self.inputs
                .for_each_active(planes, view, |f| add_row(sums, &self.w1[f * h..(f + 1) * h]));
        }
    }

    /// The accumulator of `planes` from its parent's: a row added or
    /// taken away per input that differs, for each view.
    pub fn update(&self, parent: &Accumulator, planes: &Planes, out: &mut Accumulator) {
        let h = self.shape.hidden;
        out.sums.copy_from_slice(&parent.sums);
        out.planes = *planes;
        self.inputs
            .for_each_change(&parent.planes, planes, |view, f, added| {
                let row = &self.w1[f * h..(f + 1) * h];
                let sums = &mut out.sums[view.index() * h..(view.index() + 1) * h];
                if added {
                    add_row(sums, row);
                } else {
                    sub_row(sums, row);
                }
            });
    }

    /// The output logit of an accumulator with `stm` to move.
    pub fn logit(&self, acc: &Accumulator, stm: Color) -> f32 {
        let h = self.shape.hidden;
        let (own, theirs) = match stm {
            Color::White => (&acc.sums[..h], &acc.sums[h..]),
            Color::Black => (&acc.sums[h..], &acc.sums[..h]),
        };
        let unit = 1.0 / (QA * QB) as f32;
        let mut y = self.b3;
        for (j, w3) in self.w3.iter().enumerate() {
            let row = &self.w2[j * 2 * h..(j + 1) * 2 * h];
            let z2 =
                (self.b2[j] + dot_clipped(&row[..h], own) + dot_clipped(&row[h..], theirs)) as f32 * unit;
            y += z2.clamp(0.0, 1.0) * w3;
        }
        y
    }

    /// The search's score of an accumulator with `stm` to move
    /// (`logit x EVAL_SCALE`, rounded, within +-30,000).
    pub fn score(&self, acc: &Accumulator, stm: Color) -> i32 {
        (self.logit(acc, stm) * EVAL_SCALE)
            .round()
            .clamp(-30_000.0, 30_000.0) as i32
    }
}

// The loops below vectorise; `util::simd::isa_kernel!` compiles each for AVX-512,
// AVX2 and the portable baseline, and runs the one `util::simd` chose.

#[inline(always)]
fn add_row_generic(sums: &mut [i16], row: &[i16]) {
    for (s, w) in sums.iter_mut().zip(row) {
        *s = s.wrapping_add(*w);
    }
}

#[inline(always)]
fn sub_row_generic(sums: &mut [i16], row: &[i16]) {
    for (s, w) in sums.iter_mut().zip(row) {
        *s = s.wrapping_sub(*w);
    }
}

/// The dot product of weights `w` with the sums `s` clipped to [0, QA]
/// (the first layer's activations).
#[inline(always)]
fn dot_clipped_generic(w: &[i16], s: &[i16]) -> i32 {
    w.iter()
        .zip(s)
        .map(|(&w, &s)| w as i32 * s.clamp(0, QA as i16) as i32)
        .sum()
}

crate::util::simd::isa_kernel!(
    fn add_row = add_row_generic, add_row_avx2, add_row_avx512, (sums: &mut [i16], row: &[i16])
);
crate::util::simd::isa_kernel!(
    fn sub_row = sub_row_generic, sub_row_avx2, sub_row_avx512, (sums: &mut [i16], row: &[i16])
);
crate::util::simd::isa_kernel!(
    fn dot_clipped = dot_clipped_generic, dot_clipped_avx2, dot_clipped_avx512, (w: &[i16], s: &[i16]) -> i32
);

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    /// The kernels the CPU runs (AVX2 where it has it) give what the
    /// portable loops give, on sums that cross the clipping bounds.
    #[test]
    fn kernels_equal_the_portable_loops() {
        if crate::util::simd::isa() == crate::util::simd::Isa::Portable {
            eprintln!("NOTICE: the portable path (no AVX2 here, or DAMONE_SIMD=portable): the portable loops are compared with themselves");
        }
        let mut rng = crate::util::rng_stream(3, "kernels", 0);
        for n in [8, 64, 100, 1024] {
            let mut v = |lo: i16, hi: i16| (0..n).map(|_| rng.random_range(lo..hi)).collect::<Vec<i16>>();
            let (sums, row, w) = (v(-600, 600), v(-510, 510), v(-2048, 2048));
            let (mut a, mut b) = (sums.clone(), sums.clone());
            add_row(&mut a, &row);
            add_row_generic(&mut b, &row);
            assert_eq!(a, b);
            sub_row(&mut a, &row);
            sub_row_generic(&mut b, &row);
            assert_eq!((&a, &b), (&sums, &sums));
            assert_eq!(dot_clipped(&w, &sums), dot_clipped_generic(&w, &sums));
        }
    }
}
