//! The `Evaluator` trait, the two network-free evaluators, and
//! [`EvalCache`], an evaluation cache for a deterministic one.

use super::wdl::Wdl;
use crate::game::{Game, GamePosition};
use crate::util::Rng;
use rand::Rng as _;
use std::collections::HashMap;

/// One position to evaluate: the game (for repetition and counters) and its
/// legal moves, in the order the priors must follow.
pub struct EvalRequest<'a, P: GamePosition> {
    /// The game at the position (its history gives the repetition planes).
    pub game: &'a Game<P>,
    /// The position's legal moves, in the order the priors must follow.
    pub moves: &'a [P::Move],
}

/// The evaluation of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each legal move (same order as the request).
    pub priors: Vec<f32>,
    /// Win, draw and loss probabilities for the side to move.
    pub wdl: Wdl,
    /// The predicted final material for the side to move (its pieces minus
    /// the opponent's at the game's end, over 8; the network's auxiliary
    /// head), 0 where the evaluator has no such prediction. Used by
    /// [`SearchParams::material_utility`](super::SearchParams::material_utility).
    pub material: f32,
}

/// Evaluates batches of positions. Implementations must return one
/// [`Evaluation`] per request, in order.
pub trait Evaluator<P: GamePosition> {
    /// One evaluation per request of `batch`, in order.
    fn evaluate(&mut self, batch: &[EvalRequest<'_, P>]) -> Vec<Evaluation>;
}

fn uniform(n: usize) -> Vec<f32> {
    vec![1.0 / n.max(1) as f32; n]
}

/// Uniform priors and a zero value (a certain draw).
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator;

impl<P: GamePosition> Evaluator<P> for UniformEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<'_, P>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| Evaluation {
                priors: uniform(r.moves.len()),
                wdl: Wdl::DRAW,
                material: 0.0,
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
    /// Rollouts drawn from `rng`.
    pub fn new(rng: Rng) -> Self {
        RolloutEvaluator { rng, rollouts: 1 }
    }

    fn rollout<P: GamePosition>(&mut self, game: &Game<P>) -> [f32; 3] {
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

impl<P: GamePosition> Evaluator<P> for RolloutEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<'_, P>]) -> Vec<Evaluation> {
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
                    material: 0.0,
                }
            })
            .collect()
    }
}

/// What an evaluation depends on: the position (pieces, side to move,
/// variant, no-progress counter) and whether it occurred before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CacheKey<P> {
    pos: P,
    repeated: bool,
}

impl<P: GamePosition> CacheKey<P> {
    fn of(game: &Game<P>) -> CacheKey<P> {
        CacheKey {
            pos: *game.position(),
            repeated: game.repetitions() > 1,
        }
    }

    /// The table slot: the Zobrist hash mixed with the counters it leaves out.
    fn slot(&self, mask: usize) -> usize {
        let h = self.pos.hash_key()
            ^ (self.pos.no_progress() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (self.repeated as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (h ^ (h >> 29)) as usize & mask
    }
}

/// An evaluation cache for a deterministic evaluator (the network): a
/// position met again — in another game, another branch of the same tree,
/// or twice in one batch — is answered without asking the evaluator.
///
/// The table is direct-mapped (each position has one slot; a newer position
/// replaces the older one there) and indexed by the Zobrist hash mixed with
/// the counters the network sees. An entry is used only if the whole
/// position matches, so a hash collision costs a miss, never a wrong
/// answer. [Clear](EvalCache::clear) it whenever the evaluator changes (new
/// weights).
#[derive(Clone, Debug)]
pub struct EvalCache<P: GamePosition> {
    table: Vec<Option<(CacheKey<P>, Evaluation)>>,
    /// Positions asked for.
    pub lookups: u64,
    /// ... and of those, answered without asking the evaluator.
    pub hits: u64,
}

impl<P: GamePosition> EvalCache<P> {
    /// A cache of `capacity` entries, rounded up to a power of two.
    pub fn new(capacity: usize) -> Self {
        EvalCache {
            table: vec![None; capacity.max(1).next_power_of_two()],
            lookups: 0,
            hits: 0,
        }
    }

    /// Forget every entry (the evaluator changed).
    pub fn clear(&mut self) {
        self.table.fill(None);
    }

    /// Number of entries the table holds at most.
    pub fn capacity(&self) -> usize {
        self.table.len()
    }

    /// Evaluate `batch` as `inner` would: positions in the cache from the
    /// cache, the others in one call of `inner` (each position once), which
    /// are then stored.
    pub fn evaluate(
        &mut self,
        inner: &mut dyn Evaluator<P>,
        batch: &[EvalRequest<'_, P>],
    ) -> Vec<Evaluation> {
        let mask = self.table.len() - 1;
        let mut out: Vec<Option<Evaluation>> = vec![None; batch.len()];
        // Each missing position is asked for once: `first` maps it to its
        // place in `misses`; `repeats` are later requests for the same one.
        let mut misses: Vec<(CacheKey<P>, usize)> = Vec::new();
        let mut first: HashMap<CacheKey<P>, usize> = HashMap::new();
        let mut repeats: Vec<(usize, usize)> = Vec::new();
        for (i, r) in batch.iter().enumerate() {
            let key = CacheKey::of(r.game);
            match &self.table[key.slot(mask)] {
                Some((k, e)) if *k == key && e.priors.len() == r.moves.len() => {
                    out[i] = Some(e.clone());
                }
                _ => match first.get(&key) {
                    Some(&m) => repeats.push((i, m)),
                    None => {
                        first.insert(key, misses.len());
                        misses.push((key, i));
                    }
                },
            }
        }
        self.lookups += batch.len() as u64;
        self.hits += (batch.len() - misses.len()) as u64;
        if !misses.is_empty() {
            let reqs: Vec<EvalRequest<'_, P>> = misses
                .iter()
                .map(|&(_, i)| EvalRequest {
                    game: batch[i].game,
                    moves: batch[i].moves,
                })
                .collect();
            let evals = inner.evaluate(&reqs);
            assert_eq!(evals.len(), reqs.len(), "evaluator returned a wrong batch size");
            for &(i, m) in &repeats {
                out[i] = Some(evals[m].clone());
            }
            for ((key, i), e) in misses.into_iter().zip(evals) {
                self.table[key.slot(mask)] = Some((key, e.clone()));
                out[i] = Some(e);
            }
        }
        out.into_iter()
            .map(|e| e.expect("every request is answered"))
            .collect()
    }
}
