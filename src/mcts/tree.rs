//! The search tree: selection (PUCT or Gumbel), expansion, backup, root
//! noise, virtual loss, tree reuse, and the batched driver.

use super::evaluator::{wdl_of_outcome, EvalRequest, Evaluation, Evaluator};
use super::params::{SearchAlgorithm, SearchParams};
use crate::game::{Game, Move, MoveList};
use crate::util::Rng;
use rand::Rng as _;
use rand_distr::{Distribution, Gamma, Gumbel};
use std::collections::VecDeque;

const NO_NODE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Created, never reached by a simulation.
    Fresh,
    /// Waiting for its evaluation.
    Pending,
    /// Has edges.
    Expanded,
    /// Game over here: exact value for the side to move.
    Terminal([f32; 3]),
}

#[derive(Clone, Debug)]
struct Node {
    first_edge: u32,
    n_edges: u32,
    /// Completed visits.
    n: u32,
    /// Simulations in flight through this node (virtual loss).
    vl: u32,
    /// Sums of win/draw/loss probabilities, for the side to move here.
    wdl: [f64; 3],
    /// The evaluator's value at expansion, for the side to move here.
    value: [f32; 3],
    state: State,
}

impl Node {
    fn new() -> Node {
        Node {
            first_edge: 0,
            n_edges: 0,
            n: 0,
            vl: 0,
            wdl: [0.0; 3],
            value: [0.0, 1.0, 0.0],
            state: State::Fresh,
        }
    }
    /// Mean value (win minus loss) for the side to move here.
    fn q(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            (self.wdl[0] - self.wdl[2]) / self.n as f64
        }
    }
}

#[derive(Clone, Debug)]
struct Edge {
    mv: Move,
    /// Prior used by selection (with root noise mixed in).
    prior: f32,
    /// Prior as the evaluator gave it.
    raw: f32,
    child: u32,
}

/// A leaf waiting for evaluation: its game and legal moves, and the path of
/// nodes from the root to it.
pub struct Leaf {
    pub game: Game,
    pub moves: MoveList,
    path: Vec<u32>,
}

/// What one selection step produced.
pub enum Selection {
    /// A leaf to evaluate (pass the evaluation to [`Tree::apply`]).
    NeedsEval(Leaf),
    /// The simulation ended in a known (terminal) node and is backed up.
    Done,
    /// The descent met a leaf already waiting for evaluation: try again
    /// after this batch is applied.
    Busy,
}

/// Gumbel sequential-halving state at the root.
#[derive(Clone, Debug)]
struct GumbelRoot {
    /// Gumbel noise per root edge.
    g: Vec<f32>,
    /// Root edges still in the running (local indices).
    remaining: Vec<u32>,
    /// Root edges to visit next.
    queue: VecDeque<u32>,
    phases: u32,
    budget: u32,
}

/// The outcome of a search: statistics of the root moves, the training
/// policy target, the root value and the move to play.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub moves: Vec<Move>,
    pub visits: Vec<u32>,
    pub priors: Vec<f32>,
    /// Mean value of each move for the side to move (None if unvisited).
    pub q: Vec<Option<f32>>,
    /// Policy target: visit distribution (PUCT) or completed-Q improved
    /// policy (Gumbel).
    pub policy: Vec<f32>,
    /// Root win/draw/loss estimate for the side to move.
    pub wdl: [f32; 3],
    /// The move chosen to play.
    pub best: Move,
    /// Simulations this search ran.
    pub simulations: u32,
}

/// One search tree over a game.
pub struct Tree {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    root: u32,
    game: Game,
    params: SearchParams,
    rng: Rng,
    target: u32,
    sims: u32,
    in_flight: u32,
    gumbel: Option<GumbelRoot>,
    noised: bool,
}

impl Tree {
    /// A fresh tree rooted at the current position of `game`.
    pub fn new(game: &Game, params: SearchParams, rng: Rng) -> Tree {
        Tree {
            nodes: vec![Node::new()],
            edges: Vec::new(),
            root: 0,
            game: game.detached(),
            params,
            rng,
            target: 0,
            sims: 0,
            in_flight: 0,
            gumbel: None,
            noised: false,
        }
    }

    /// The search parameters.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }
    /// Mutable search parameters (e.g. to switch noise on for self-play).
    pub fn params_mut(&mut self) -> &mut SearchParams {
        &mut self.params
    }
    /// The game at the root.
    pub fn game(&self) -> &Game {
        &self.game
    }
    /// Nodes allocated (memory use).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    /// Visits of the root.
    pub fn root_visits(&self) -> u32 {
        self.nodes[self.root as usize].n
    }

    /// Begin a search of `simulations` new simulations from the root.
    pub fn start(&mut self, simulations: u32) {
        self.target = simulations.max(1);
        self.sims = 0;
        self.gumbel = None;
        self.noised = false;
        if self.nodes[self.root as usize].state == State::Expanded {
            self.prepare_root();
        }
    }

    /// True once the search has run its simulations and nothing is in flight.
    pub fn finished(&self) -> bool {
        self.sims >= self.target && self.in_flight == 0
    }

    /// True while more leaves may be selected.
    pub fn wants_more(&self) -> bool {
        self.sims < self.target
    }

    /// Root noise and Gumbel set-up, once the root is expanded.
    fn prepare_root(&mut self) {
        let root = self.nodes[self.root as usize].clone();
        let range = root.first_edge as usize..(root.first_edge + root.n_edges) as usize;
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

    fn refill(gr: &mut GumbelRoot) {
        let per = (gr.budget / (gr.phases * gr.remaining.len() as u32)).max(1);
        for _ in 0..per {
            gr.queue.extend(gr.remaining.iter().copied());
        }
    }

    /// sigma(q) of the Gumbel paper for a value q in [-1, 1].
    fn sigma(&self, q: f64, max_visits: u32) -> f64 {
        let q01 = (q + 1.0) / 2.0;
        (self.params.gumbel_c_visit as f64 + max_visits as f64) * self.params.gumbel_c_scale as f64 * q01
    }

    /// Value of edge `e` for the side to move at its parent, counting
    /// in-flight simulations as losses.
    fn edge_q(&self, e: &Edge) -> Option<f64> {
        if e.child == NO_NODE {
            return None;
        }
        let c = &self.nodes[e.child as usize];
        let n = c.n + c.vl;
        if n == 0 {
            None
        } else {
            Some((c.wdl[2] - c.wdl[0] - c.vl as f64) / n as f64)
        }
    }

    fn edge_n(&self, e: &Edge) -> u32 {
        if e.child == NO_NODE {
            0
        } else {
            let c = &self.nodes[e.child as usize];
            c.n + c.vl
        }
    }

    /// Completed Q values of a node's edges (v_mix for unvisited ones) and
    /// the largest visit count.
    fn completed_q(&self, node: u32) -> (Vec<f64>, u32) {
        let nd = &self.nodes[node as usize];
        let edges = &self.edges[nd.first_edge as usize..(nd.first_edge + nd.n_edges) as usize];
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
        let v_hat = (nd.value[0] - nd.value[2]) as f64;
        let v_mix = if sum_p > 0.0 {
            (v_hat + sum_n as f64 / sum_p * sum_pq) / (1.0 + sum_n as f64)
        } else {
            v_hat
        };
        (qs.into_iter().map(|q| q.unwrap_or(v_mix)).collect(), max_n)
    }

    /// Improved policy softmax(logits + sigma(completed q)) at a node.
    fn improved_policy(&self, node: u32) -> Vec<f64> {
        let nd = &self.nodes[node as usize];
        let (cq, max_n) = self.completed_q(node);
        let edges = &self.edges[nd.first_edge as usize..(nd.first_edge + nd.n_edges) as usize];
        let z: Vec<f64> = edges
            .iter()
            .zip(&cq)
            .map(|(e, &q)| (e.prior.max(1e-12) as f64).ln() + self.sigma(q, max_n))
            .collect();
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let ex: Vec<f64> = z.iter().map(|x| (x - m).exp()).collect();
        let s: f64 = ex.iter().sum();
        ex.into_iter().map(|x| x / s).collect()
    }

    /// PUCT choice among a node's edges (local index).
    fn select_puct(&self, node: u32, is_root: bool) -> u32 {
        let nd = &self.nodes[node as usize];
        let edges = &self.edges[nd.first_edge as usize..(nd.first_edge + nd.n_edges) as usize];
        let parent_n = (nd.n + nd.vl).max(1) as f64;
        let visited_p: f64 = edges
            .iter()
            .filter(|e| self.edge_n(e) > 0)
            .map(|e| e.prior as f64)
            .sum();
        let red = if is_root {
            self.params.fpu_reduction_root
        } else {
            self.params.fpu_reduction
        } as f64;
        let fpu = nd.q() - red * visited_p.sqrt();
        let sqrt_n = parent_n.sqrt();
        let c = self.params.c_puct as f64;
        let mut best = 0;
        let mut best_s = f64::NEG_INFINITY;
        for (i, e) in edges.iter().enumerate() {
            let q = self.edge_q(e).unwrap_or(fpu);
            let u = c * e.prior as f64 * sqrt_n / (1.0 + self.edge_n(e) as f64);
            let s = q + u;
            if s > best_s {
                best_s = s;
                best = i as u32;
            }
        }
        best
    }

    /// Gumbel interior choice: argmax of improved policy minus visit share.
    fn select_gumbel_interior(&self, node: u32) -> u32 {
        let nd = &self.nodes[node as usize];
        let edges = &self.edges[nd.first_edge as usize..(nd.first_edge + nd.n_edges) as usize];
        let pi = self.improved_policy(node);
        let total: u32 = edges.iter().map(|e| self.edge_n(e)).sum();
        let mut best = 0;
        let mut best_s = f64::NEG_INFINITY;
        for (i, e) in edges.iter().enumerate() {
            let s = pi[i] - self.edge_n(e) as f64 / (1.0 + total as f64);
            if s > best_s {
                best_s = s;
                best = i as u32;
            }
        }
        best
    }

    /// Choose the root edge for the next simulation under Gumbel sequential halving.
    fn gumbel_root_choice(&mut self) -> u32 {
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
    fn gumbel_scores(&self) -> Vec<f64> {
        let nd = &self.nodes[self.root as usize];
        let edges = &self.edges[nd.first_edge as usize..(nd.first_edge + nd.n_edges) as usize];
        let (cq, max_n) = self.completed_q(self.root);
        let g = &self.gumbel.as_ref().expect("gumbel state").g;
        edges
            .iter()
            .enumerate()
            .map(|(i, e)| g[i] as f64 + (e.prior.max(1e-12) as f64).ln() + self.sigma(cq[i], max_n))
            .collect()
    }

    /// Run one selection step: descend to a leaf.
    pub fn select(&mut self) -> Selection {
        let mut node = self.root;
        let mut path = vec![node];
        let mut game = self.game.detached();
        let mut root_choice: Option<u32> = None;
        loop {
            match self.nodes[node as usize].state {
                State::Terminal(wdl) => {
                    self.sims += 1;
                    self.backup(&path, wdl, false);
                    return Selection::Done;
                }
                State::Pending => {
                    if let (Some(c), Some(g)) = (root_choice, self.gumbel.as_mut()) {
                        g.queue.push_front(c);
                    }
                    return Selection::Busy;
                }
                State::Fresh => {
                    let mut moves = Vec::with_capacity(32);
                    game.position().legal_moves_into(&mut moves);
                    if let Some(o) = game.outcome_with(&moves) {
                        let wdl = wdl_of_outcome(&o, game.position().side_to_move());
                        self.nodes[node as usize].state = State::Terminal(wdl);
                        self.sims += 1;
                        self.backup(&path, wdl, false);
                        return Selection::Done;
                    }
                    self.nodes[node as usize].state = State::Pending;
                    for &p in &path {
                        self.nodes[p as usize].vl += 1;
                    }
                    self.sims += 1;
                    self.in_flight += 1;
                    return Selection::NeedsEval(Leaf { game, moves, path });
                }
                State::Expanded => {
                    let is_root = node == self.root;
                    let local = if is_root && self.gumbel.is_some() {
                        let c = self.gumbel_root_choice();
                        root_choice = Some(c);
                        c
                    } else if self.params.algorithm == SearchAlgorithm::Gumbel && !is_root {
                        self.select_gumbel_interior(node)
                    } else {
                        self.select_puct(node, is_root)
                    };
                    let ei = (self.nodes[node as usize].first_edge + local) as usize;
                    if self.edges[ei].child == NO_NODE {
                        self.nodes.push(Node::new());
                        self.edges[ei].child = (self.nodes.len() - 1) as u32;
                    }
                    let mv = self.edges[ei].mv;
                    game.play_unchecked(&mv);
                    node = self.edges[ei].child;
                    path.push(node);
                }
            }
        }
    }

    /// Expand a leaf with its evaluation and back up its value.
    pub fn apply(&mut self, leaf: Leaf, eval: Evaluation) {
        let node = *leaf.path.last().expect("non-empty path");
        let first = self.edges.len() as u32;
        let n = leaf.moves.len();
        let sum: f32 = eval.priors.iter().take(n).map(|p| p.max(0.0)).sum();
        for (i, mv) in leaf.moves.iter().enumerate() {
            let p = eval.priors.get(i).copied().unwrap_or(0.0).max(0.0);
            let p = if sum > 0.0 { p / sum } else { 1.0 / n as f32 };
            self.edges.push(Edge {
                mv: *mv,
                prior: p,
                raw: p,
                child: NO_NODE,
            });
        }
        {
            let nd = &mut self.nodes[node as usize];
            nd.first_edge = first;
            nd.n_edges = n as u32;
            nd.state = State::Expanded;
            nd.value = eval.wdl;
        }
        self.in_flight -= 1;
        self.backup(&leaf.path, eval.wdl, true);
        if node == self.root {
            self.prepare_root();
        }
    }

    /// Add a value (for the side to move at the last node of `path`) to every
    /// node of the path, flipping sides on the way up.
    fn backup(&mut self, path: &[u32], wdl: [f32; 3], had_vl: bool) {
        let mut v = [wdl[0] as f64, wdl[1] as f64, wdl[2] as f64];
        for &p in path.iter().rev() {
            let nd = &mut self.nodes[p as usize];
            nd.n += 1;
            if had_vl {
                nd.vl -= 1;
            }
            for (acc, x) in nd.wdl.iter_mut().zip(v) {
                *acc += x;
            }
            v.swap(0, 2);
        }
    }

    /// Statistics of the finished search and the move to play.
    pub fn result(&mut self) -> Option<SearchResult> {
        let nd = self.nodes[self.root as usize].clone();
        if nd.state != State::Expanded {
            return None;
        }
        let range = nd.first_edge as usize..(nd.first_edge + nd.n_edges) as usize;
        let edges = &self.edges[range];
        let moves: Vec<Move> = edges.iter().map(|e| e.mv).collect();
        let visits: Vec<u32> = edges.iter().map(|e| self.edge_n(e)).collect();
        let priors: Vec<f32> = edges.iter().map(|e| e.raw).collect();
        let q: Vec<Option<f32>> = edges.iter().map(|e| self.edge_q(e).map(|x| x as f32)).collect();
        let total: u32 = visits.iter().sum();
        let wdl = if nd.n > 0 {
            [
                (nd.wdl[0] / nd.n as f64) as f32,
                (nd.wdl[1] / nd.n as f64) as f32,
                (nd.wdl[2] / nd.n as f64) as f32,
            ]
        } else {
            nd.value
        };
        let (policy, best) = if let Some(gr) = &self.gumbel {
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
        Some(SearchResult {
            best: moves[best],
            moves,
            visits,
            priors,
            q,
            policy,
            wdl,
            simulations: self.sims,
        })
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

    /// Play a move at the root (either side's), keeping its subtree when
    /// tree reuse is on.
    pub fn advance(&mut self, mv: &Move) {
        let nd = &self.nodes[self.root as usize];
        let child = if nd.state == State::Expanded {
            self.edges[nd.first_edge as usize..(nd.first_edge + nd.n_edges) as usize]
                .iter()
                .find(|e| e.mv == *mv)
                .map_or(NO_NODE, |e| e.child)
        } else {
            NO_NODE
        };
        self.game.play_unchecked(mv);
        self.gumbel = None;
        if self.params.reuse_tree && child != NO_NODE && self.nodes[child as usize].state == State::Expanded {
            self.compact(child);
        } else {
            self.nodes.clear();
            self.edges.clear();
            self.nodes.push(Node::new());
            self.root = 0;
        }
    }

    /// Keep only the subtree under `new_root`.
    fn compact(&mut self, new_root: u32) {
        let mut nodes = Vec::with_capacity(self.nodes.len() / 4 + 1);
        let mut edges = Vec::with_capacity(self.edges.len() / 4 + 1);
        let mut stack = vec![(new_root, 0u32)];
        nodes.push(self.nodes[new_root as usize].clone());
        while let Some((old, new)) = stack.pop() {
            let nd = self.nodes[old as usize].clone();
            if nd.state != State::Expanded {
                continue;
            }
            let first = edges.len() as u32;
            for e in &self.edges[nd.first_edge as usize..(nd.first_edge + nd.n_edges) as usize] {
                let mut e2 = e.clone();
                e2.prior = e.raw;
                if e.child != NO_NODE {
                    let c = &self.nodes[e.child as usize];
                    if c.state == State::Fresh || c.state == State::Pending {
                        e2.child = NO_NODE;
                    } else {
                        nodes.push(c.clone());
                        e2.child = (nodes.len() - 1) as u32;
                        stack.push((e.child, e2.child));
                    }
                }
                edges.push(e2);
            }
            nodes[new as usize].first_edge = first;
        }
        for n in &mut nodes {
            n.vl = 0;
        }
        self.nodes = nodes;
        self.edges = edges;
        self.root = 0;
    }
}

/// Run one tree's search to completion with `evaluator`, evaluating up to
/// `leaves_per_tree` leaves per call.
pub fn search(tree: &mut Tree, evaluator: &mut dyn Evaluator, simulations: u32) -> Option<SearchResult> {
    tree.start(simulations);
    search_batched(&mut [tree], evaluator);
    tree.result()
}

/// Drive many started trees together: each round gathers up to
/// `leaves_per_tree` leaves from every tree, evaluates them all in one
/// `Evaluator` call and backs them up, until every tree is finished.
/// Call [`Tree::start`] on each tree first.
pub fn search_batched(trees: &mut [&mut Tree], evaluator: &mut dyn Evaluator) {
    loop {
        let mut leaves: Vec<(usize, Leaf)> = Vec::new();
        let mut all_done = true;
        for (i, t) in trees.iter_mut().enumerate() {
            let mut taken = 0;
            while t.wants_more() && taken < t.params.leaves_per_tree {
                match t.select() {
                    Selection::NeedsEval(l) => {
                        leaves.push((i, l));
                        taken += 1;
                    }
                    Selection::Done => {}
                    Selection::Busy => break,
                }
            }
            if t.wants_more() {
                all_done = false;
            }
        }
        if !leaves.is_empty() {
            let reqs: Vec<EvalRequest<'_>> = leaves
                .iter()
                .map(|(_, l)| EvalRequest {
                    game: &l.game,
                    moves: &l.moves,
                })
                .collect();
            let evals = evaluator.evaluate(&reqs);
            assert_eq!(evals.len(), leaves.len(), "evaluator returned a wrong batch size");
            for ((i, l), e) in leaves.into_iter().zip(evals) {
                trees[i].apply(l, e);
            }
        } else if all_done {
            break;
        }
    }
}
