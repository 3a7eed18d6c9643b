//! The result of a search: root statistics, the policy target (visit
//! distribution for PUCT, completed-Q improved policy for Gumbel; with the
//! solver, a proven win or draw's keeping moves) and the move to play.

use super::tree::{Node, State, Tree};
use super::wdl::Wdl;
use crate::game::{damone::Move, GamePosition};
use rand::Rng as _;

/// The outcome of a search: statistics of the root moves, the training
/// policy target, the root value and the move to play.
#[derive(Clone, Debug)]
pub struct SearchResult<M = Move> {
    /// The root's legal moves.
    pub moves: Vec<M>,
    /// Visits of each move.
    pub visits: Vec<u32>,
    /// The network's prior of each move.
    pub priors: Vec<f32>,
    /// Mean value of each move for the side to move (None if unvisited).
    pub q: Vec<Option<f32>>,
    /// Policy target: visit distribution (PUCT) or completed-Q improved
    /// policy (Gumbel).
    pub policy: Vec<f32>,
    /// Root win/draw/loss estimate for the side to move: the mean over
    /// every simulation, those of the moves tried and dropped included.
    pub wdl: Wdl,
    /// The chosen move's win/draw/loss for the side to move (its child's
    /// mean, or its exact value): the search's verdict on the position once
    /// it has picked its move. The root's mean where the move went
    /// unvisited.
    pub move_wdl: Wdl,
    /// The move chosen to play.
    pub best: M,
    /// Simulations this search ran.
    pub simulations: u32,
}

impl<M> SearchResult<M> {
    /// How much the search changed the network's mind at the root: the KL
    /// divergence of the policy target from the network's priors, in nats
    /// (priors floored at 1e-6).
    pub fn surprise(&self) -> f32 {
        self.policy
            .iter()
            .zip(&self.priors)
            .filter(|(&t, _)| t > 0.0)
            .map(|(&t, &p)| t * (t / p.max(1e-6)).ln())
            .sum::<f32>()
            .max(0.0)
    }
}

impl<P: GamePosition> Tree<P> {
    /// Statistics of the finished search and the move to play.
    pub fn result(&mut self) -> Option<SearchResult<P::Move>> {
        let nd = self.nodes[self.root as usize].clone();
        if nd.state != State::Expanded {
            return None;
        }
        let range = nd.edge_range();
        let edges = &self.edges[range];
        let moves: Vec<P::Move> = edges.iter().map(|e| e.mv).collect();
        let visits: Vec<u32> = edges.iter().map(|e| self.edge_n(e)).collect();
        let priors: Vec<f32> = edges.iter().map(|e| e.raw).collect();
        let q: Vec<Option<f32>> = edges.iter().map(|e| self.edge_q(e).map(|x| x as f32)).collect();
        let total: u32 = visits.iter().sum();
        let wdl = nd.mean_wdl();
        let proven = if self.params.solver { nd.proven } else { None };
        let (policy, best) = if let Some(w) = proven.filter(|w| w.value() > -1.0) {
            // A proven win or draw: the moves that keep it, the most
            // visited of them played, all of them the policy target.
            let keeps: Vec<bool> = edges
                .iter()
                .map(|e| {
                    self.edge_exact(e)
                        .is_some_and(|c| c.flipped().value() >= w.value())
                })
                .collect();
            let n = keeps.iter().filter(|&&k| k).count().max(1) as f32;
            let best = (0..edges.len())
                .filter(|&i| keeps[i])
                .max_by(|&a, &b| visits[a].cmp(&visits[b]).then(priors[a].total_cmp(&priors[b])))
                .unwrap_or(0);
            let policy = keeps.iter().map(|&k| if k { 1.0 / n } else { 0.0 }).collect();
            (policy, best)
        } else if let Some(gr) = &self.gumbel {
            let pi = self.improved_policy(self.root);
            let scores = self.gumbel_scores();
            let best = *gr
                .remaining
                .iter()
                .max_by(|&&a, &&b| {
                    scores[a as usize]
                        .total_cmp(&scores[b as usize])
                        .then(visits[b as usize].cmp(&visits[a as usize]))
                })
                .expect("at least one candidate");
            (
                pi.into_iter().map(|x| x as f32).collect::<Vec<_>>(),
                best as usize,
            )
        } else {
            let policy: Vec<f32> = if total > 0 {
                visits.iter().map(|&v| v as f32 / total as f32).collect()
            } else {
                priors.clone()
            };
            let t = if (self.game.ply() as u32) < self.params.temperature_plies {
                self.params.temperature
            } else {
                self.params.temperature_final
            };
            (policy, self.pick_by_visits(&visits, &priors, t))
        };
        let move_wdl = self.chosen_move_wdl(&nd, best, wdl);
        Some(SearchResult {
            best: moves[best],
            wdl: proven.unwrap_or(wdl),
            move_wdl: proven.unwrap_or(move_wdl),
            moves,
            visits,
            priors,
            q,
            policy,
            simulations: self.sims,
        })
    }

    /// The WDL of `root`'s edge `best` for the root's side to move: its
    /// exact value, else its child's mean, else `root_mean` (unvisited).
    fn chosen_move_wdl(&self, root: &Node, best: usize, root_mean: Wdl) -> Wdl {
        let best_edge = &self.edges[root.edge_range()][best];
        self.edge_exact(best_edge).map_or_else(
            || match self.nodes.get(best_edge.child as usize) {
                Some(c) if c.n > 0 => c.mean_wdl().flipped(),
                _ => root_mean,
            },
            Wdl::flipped,
        )
    }

    fn pick_by_visits(&mut self, visits: &[u32], priors: &[f32], t: f32) -> usize {
        if t <= 1e-3 || visits.iter().all(|&v| v == 0) {
            return (0..visits.len())
                .max_by(|&a, &b| visits[a].cmp(&visits[b]).then(priors[a].total_cmp(&priors[b])))
                .unwrap_or(0);
        }
        let maxv = *visits.iter().max().unwrap_or(&1) as f64;
        let w: Vec<f64> = visits
            .iter()
            .map(|&v| (v as f64 / maxv).powf(1.0 / t as f64))
            .collect();
        let s: f64 = w.iter().sum();
        let mut x = self.rng.random::<f64>() * s;
        for (i, wi) in w.iter().enumerate() {
            if x < *wi {
                return i;
            }
            x -= wi;
        }
        w.len() - 1
    }
}
