//! The root of a search: the repetition filter of self-play, Dirichlet
//! noise, and Gumbel-top-k sampling with sequential halving and the
//! completed-Q improved policy (Danihelka et al., 2022).

use super::params::SearchAlgorithm;
use super::tree::{wdl_search_value, Tree};
use crate::game::GamePosition;
use rand_distr::{Distribution, Gamma, Gumbel};
use std::collections::VecDeque;

/// Gumbel sequential-halving state at the root.
#[derive(Clone, Debug)]
pub(super) struct GumbelRoot {
    /// Gumbel noise per root edge.
    pub(super) g: Vec<f32>,
    /// Root edges still in the running (local indices).
    pub(super) remaining: Vec<u32>,
    /// Root edges to visit next.
    pub(super) queue: VecDeque<u32>,
    pub(super) phases: u32,
    pub(super) budget: u32,
}

impl<P: GamePosition> Tree<P> {
    /// Root noise and Gumbel set-up, once the root is expanded.
    pub(super) fn prepare_root(&mut self) {
        if self.params.avoid_repetition {
            self.drop_repeating_root_moves();
        }
        if self.params.tactics_margin > 0.0 {
            self.drop_losing_root_moves();
        }
        let root = self.nodes[self.root as usize].clone();
        let range = root.edge_range();
        let p = &self.params;
        if p.dirichlet_epsilon > 0.0 && !self.noised && root.n_edges > 1 {
            let alpha = (p.dirichlet_alpha_total / root.n_edges as f32).max(1e-3);
            let gamma = Gamma::new(alpha, 1.0).expect("positive alpha");
            let noise: Vec<f32> = (0..root.n_edges).map(|_| gamma.sample(&mut self.rng)).collect();
            let sum: f32 = noise.iter().sum::<f32>().max(1e-12);
            let eps = p.dirichlet_epsilon;
            for (e, x) in self.edges[range.clone()].iter_mut().zip(noise) {
                e.prior = (1.0 - eps) * e.raw + eps * x / sum;
            }
        } else {
            for e in &mut self.edges[range.clone()] {
                e.prior = e.raw;
            }
        }
        self.noised = true;
        if p.algorithm == SearchAlgorithm::Gumbel {
            let n = root.n_edges as usize;
            let g: Vec<f32> = if p.gumbel_noise {
                let gum = Gumbel::new(0.0f32, 1.0).expect("valid Gumbel");
                (0..n).map(|_| gum.sample(&mut self.rng)).collect()
            } else {
                vec![0.0; n]
            };
            let mut order: Vec<u32> = (0..n as u32).collect();
            let logit = |i: u32| self.edges[range.start + i as usize].prior.max(1e-12).ln();
            order.sort_by(|&a, &b| (g[b as usize] + logit(b)).total_cmp(&(g[a as usize] + logit(a))));
            let m = (p.gumbel_considered as usize).min(n);
            order.truncate(m);
            let phases = (m as f64).log2().ceil().max(1.0) as u32;
            let mut gr = GumbelRoot {
                g,
                remaining: order,
                queue: VecDeque::new(),
                phases,
                budget: self.target,
            };
            Self::refill(&mut gr);
            self.gumbel = Some(gr);
        }
    }

    /// [`SearchParams::avoid_repetition`](super::SearchParams::avoid_repetition):
    /// remove from the root's edges each move into a position of the
    /// game's repetition history, unless every move is one.
    fn drop_repeating_root_moves(&mut self) {
        let history = self.game.history();
        let pos = *self.game.position();
        let keep: Vec<bool> = self
            .root_edges()
            .iter()
            .map(|e| {
                let mut p = pos;
                p.play_unchecked(&e.mv);
                !history.contains(&p.hash_key())
            })
            .collect();
        self.retain_root_edges(&keep);
    }

    /// [`SearchParams::tactics_margin`](super::SearchParams::tactics_margin):
    /// remove from the root's edges each move whose material balance after
    /// the opponent's best reply and the captures that follow (looking
    /// `tactics_depth` moves of each side ahead) is worse than the best
    /// move's by more than the margin.
    fn drop_losing_root_moves(&mut self) {
        let pos = *self.game.position();
        let moves: Vec<_> = self.root_edges().iter().map(|e| e.mv).collect();
        let depth = self.params.tactics_depth as usize;
        let keep = self.tactics.keep(&pos, &moves, self.params.tactics_margin, depth);
        self.retain_root_edges(&keep);
    }

    fn root_edges(&self) -> &[super::tree::Edge<P::Move>] {
        let nd = &self.nodes[self.root as usize];
        &self.edges[nd.edge_range()]
    }

    /// Keep the root's edges marked in `keep` (unless none is) and
    /// renormalise their priors. The removed edges' visits stay in the
    /// root's sums.
    fn retain_root_edges(&mut self, keep: &[bool]) {
        let kept: Vec<_> = self
            .root_edges()
            .iter()
            .zip(keep)
            .filter(|(_, &k)| k)
            .map(|(e, _)| e.clone())
            .collect();
        let nd = &self.nodes[self.root as usize];
        let range = nd.edge_range();
        if kept.is_empty() || kept.len() == range.len() {
            return;
        }
        let n = kept.len();
        let sum: f32 = kept.iter().map(|e| e.raw).sum();
        for (slot, mut e) in self.edges[range].iter_mut().zip(kept) {
            e.raw = if sum > 0.0 { e.raw / sum } else { 1.0 / n as f32 };
            e.prior = e.raw;
            *slot = e;
        }
        self.nodes[self.root as usize].n_edges = n as u32;
    }

    fn refill(gr: &mut GumbelRoot) {
        let per = (gr.budget / (gr.phases * gr.remaining.len() as u32)).max(1);
        for _ in 0..per {
            gr.queue.extend(gr.remaining.iter().copied());
        }
    }

    /// sigma(q) of the Gumbel paper for each of a node's completed Q
    /// values in [-1, 1]: (c_visit + max visits) * c_scale * q01, where q01
    /// is (q + 1) / 2, or with `gumbel_rescale` the Q min-max rescaled to
    /// [0, 1] over the node's edges (mctx's `qtransform_completed_by_mix_value`).
    fn sigma(&self, cq: &[f64], max_visits: u32) -> Vec<f64> {
        let scale =
            (self.params.gumbel_c_visit as f64 + max_visits as f64) * self.params.gumbel_c_scale as f64;
        if self.params.gumbel_rescale {
            let lo = cq.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = cq.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let span = (hi - lo).max(1e-8);
            cq.iter().map(|&q| scale * (q - lo) / span).collect()
        } else {
            cq.iter().map(|&q| scale * (q + 1.0) / 2.0).collect()
        }
    }

    /// Completed Q values of a node's edges (v_mix for unvisited ones) and
    /// the largest visit count.
    pub(super) fn completed_q(&self, node: u32) -> (Vec<f64>, u32) {
        let nd = &self.nodes[node as usize];
        let edges = &self.edges[nd.edge_range()];
        let mut sum_n = 0u32;
        let mut sum_p = 0.0;
        let mut sum_pq = 0.0;
        let mut max_n = 0;
        let qs: Vec<Option<f64>> = edges.iter().map(|e| self.edge_q(e)).collect();
        for (e, q) in edges.iter().zip(&qs) {
            let n = self.edge_n(e);
            max_n = max_n.max(n);
            if let Some(q) = q {
                sum_n += n;
                sum_p += e.prior as f64;
                sum_pq += e.prior as f64 * q;
            }
        }
        let v_hat = wdl_search_value(nd.value, nd.value_mat as f64, &self.params);
        let v_mix = if sum_p > 0.0 {
            (v_hat + sum_n as f64 / sum_p * sum_pq) / (1.0 + sum_n as f64)
        } else {
            v_hat
        };
        (qs.into_iter().map(|q| q.unwrap_or(v_mix)).collect(), max_n)
    }

    /// Improved policy softmax(logits + sigma(completed q)) at a node.
    pub(super) fn improved_policy(&self, node: u32) -> Vec<f64> {
        let nd = &self.nodes[node as usize];
        let (cq, max_n) = self.completed_q(node);
        let edges = &self.edges[nd.edge_range()];
        let z: Vec<f64> = edges
            .iter()
            .zip(self.sigma(&cq, max_n))
            .map(|(e, s)| (e.prior.max(1e-12) as f64).ln() + s)
            .collect();
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let ex: Vec<f64> = z.iter().map(|x| (x - m).exp()).collect();
        let s: f64 = ex.iter().sum();
        ex.into_iter().map(|x| x / s).collect()
    }

    /// Choose the root edge for the next simulation under Gumbel sequential halving.
    pub(super) fn gumbel_root_choice(&mut self) -> u32 {
        let root = self.root;
        if self.gumbel.as_ref().is_some_and(|g| g.queue.is_empty()) {
            let scores = self.gumbel_scores();
            let gr = self.gumbel.as_mut().expect("gumbel state");
            if gr.remaining.len() > 1 {
                gr.remaining
                    .sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]));
                let keep = gr.remaining.len().div_ceil(2);
                gr.remaining.truncate(keep);
            }
            Self::refill(gr);
        }
        let _ = root;
        self.gumbel
            .as_mut()
            .and_then(|g| g.queue.pop_front())
            .unwrap_or(0)
    }

    /// g + logit + sigma(q) per root edge (the halving and final score).
    pub(super) fn gumbel_scores(&self) -> Vec<f64> {
        let nd = &self.nodes[self.root as usize];
        let edges = &self.edges[nd.edge_range()];
        let (cq, max_n) = self.completed_q(self.root);
        let g = &self.gumbel.as_ref().expect("gumbel state").g;
        edges
            .iter()
            .zip(self.sigma(&cq, max_n))
            .enumerate()
            .map(|(i, (e, s))| g[i] as f64 + (e.prior.max(1e-12) as f64).ln() + s)
            .collect()
    }
}
