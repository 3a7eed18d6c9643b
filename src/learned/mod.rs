//! A learned evaluation fast enough for alpha-beta, trained from a run's
//! own self-play.
//!
//! The network is NNUE-shaped (as in Shogi and Stockfish engines): sparse
//! inputs of (own or opponent's piece, kind, cell) from each side's view
//! ([`features`]), a first layer summed into an accumulator that a move
//! updates by adding and taking away the rows of the pieces it moved,
//! promoted and took, two small layers after it, and one output: the logit
//! of the side to move's expected score ([`model`]). Training fits it to
//! the run's self-play: the game outcomes, the searches' values and the
//! network's value of each replay position ([`train`]). The search uses
//! the integer model ([`model::QuantEval`]) with an [`AccumulatorStack`]:
//! one accumulator per ply, each made from its parent's.
//!
//! A learned evaluation is stored as `learned_eval.bin` ([`mod@file`]) in a
//! checkpoint folder and in player files; `damone learn-eval` makes one for
//! any run folder.

pub mod examples;
pub mod features;
pub mod file;
pub mod model;
pub mod train;

pub use features::{planes, Planes, FEATURES};
pub use file::{EvalFile, EVAL_FILE_NAME, EVAL_FILE_VERSION};
pub use model::{expected_score_of, Accumulator, FloatEval, QuantEval, Shape, EVAL_SCALE};
pub use train::{Example, LearnEvalConfig, TargetMix, TrainReport};

use crate::game::Board;

/// One accumulator per ply of a search: a node's is made from its
/// parent's by the pieces that differ; going back up a ply keeps the
/// parent's as it was, so an unmade move costs nothing.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    plies: Vec<Accumulator>,
}

impl AccumulatorStack {
    /// An empty stack for `model`'s sizes.
    pub fn new(model: &QuantEval) -> AccumulatorStack {
        AccumulatorStack {
            plies: vec![model.new_accumulator(); 64],
        }
    }

    /// Ply 0 is `pos`, summed from scratch.
    pub fn set_root<P: Board>(&mut self, model: &QuantEval, pos: &P) {
        model.refresh(&planes(pos), &mut self.plies[0]);
    }

    /// Ply `ply` (at least 1) is `pos`, a position reached by one move from
    /// ply `ply - 1`'s.
    pub fn enter<P: Board>(&mut self, model: &QuantEval, ply: usize, pos: &P) {
        while self.plies.len() <= ply {
            self.plies.push(model.new_accumulator());
        }
        let (before, after) = self.plies.split_at_mut(ply);
        model.update(&before[ply - 1], &planes(pos), &mut after[0]);
    }

    /// The accumulator of ply `ply`.
    pub fn at(&self, ply: usize) -> &Accumulator {
        &self.plies[ply]
    }
}

/// A learned evaluation ready for the search: its float weights (for
/// training on and saving) and the integer model made from them.
#[derive(Clone, Debug)]
pub struct LearnedEval {
    /// The float weights (training, files).
    pub float: FloatEval,
    /// The integer weights the search runs.
    pub quant: QuantEval,
}

impl LearnedEval {
    /// The evaluation of float weights.
    pub fn new(float: FloatEval) -> LearnedEval {
        let quant = QuantEval::from_float(&float);
        LearnedEval { float, quant }
    }

    /// The search's score of `pos` for the side to move, summed from
    /// scratch (the search itself updates accumulators move by move).
    pub fn score<P: Board>(&self, pos: &P) -> i32 {
        let mut acc = self.quant.new_accumulator();
        self.quant.refresh(&planes(pos), &mut acc);
        self.quant.score(&acc, pos.side_to_move())
    }
}
