//! The `Evaluator` trait and the two network-free evaluators.

use super::wdl::Wdl;
use crate::game::{Game, Move};
use crate::util::Rng;
use rand::Rng as _;

/// One position to evaluate: the game (for repetition and counters) and its
/// legal moves, in the order the priors must follow.
pub struct EvalRequest<'a> {
    pub game: &'a Game,
    pub moves: &'a [Move],
}

/// The evaluation of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each legal move (same order as the request).
    pub priors: Vec<f32>,
    /// Win, draw and loss probabilities for the side to move.
    pub wdl: Wdl,
}

/// Evaluates batches of positions. Implementations must return one
/// [`Evaluation`] per request, in order.
pub trait Evaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation>;
}

fn uniform(n: usize) -> Vec<f32> {
    vec![1.0 / n.max(1) as f32; n]
}

/// Uniform priors and a zero value (a certain draw).
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| Evaluation {
                priors: uniform(r.moves.len()),
                wdl: Wdl::DRAW,
            })
            .collect()
    }
}

/// Uniform priors and the result of uniformly random playouts.
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    rng: Rng,
    /// Playouts per position; their results are averaged.
    pub rollouts: u32,
}

impl RolloutEvaluator {
    pub fn new(rng: Rng) -> Self {
        RolloutEvaluator { rng, rollouts: 1 }
    }

    fn rollout(&mut self, game: &Game) -> [f32; 3] {
        let side = game.position().side_to_move();
        let mut g = game.detached();
        let mut moves = Vec::with_capacity(32);
        loop {
            g.position().legal_moves_into(&mut moves);
            if let Some(o) = g.outcome_with(&moves) {
                return Wdl::of_outcome(&o, side).to_array();
            }
            let m = moves[self.rng.random_range(0..moves.len())];
            g.play_unchecked(&m);
        }
    }
}

impl Evaluator for RolloutEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| {
                let mut wdl = [0.0f32; 3];
                let n = self.rollouts.max(1);
                for _ in 0..n {
                    let v = self.rollout(r.game);
                    for i in 0..3 {
                        wdl[i] += v[i] / n as f32;
                    }
                }
                Evaluation {
                    priors: uniform(r.moves.len()),
                    wdl: Wdl::from_array(wdl),
                }
            })
            .collect()
    }
}
