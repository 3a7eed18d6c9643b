//! One simulation: descent by PUCT (with first-play urgency) or the Gumbel
//! interior rule, virtual loss, expansion with an evaluation, exact
//! terminal values, WDL backup, the MCTS-solver's proofs (Winands et
//! al., 2008: exact wins, losses and draws propagated up the tree), and
//! forced moves below the root played through without an evaluation
//! (`collapse_forced`). Q is win - loss + `draw_score` x draw for the side
//! choosing (a contempt for both sides when `draw_score` < 0).

use super::evaluator::Evaluation;
use super::params::SearchAlgorithm;
use super::tree::{search_value, wdl_search_value, Edge, Node, State, Tree, NO_NODE};
use super::wdl::Wdl;
use crate::game::{Game, GamePosition};

/// A leaf waiting for evaluation: its game and legal moves, and the path of
/// nodes from the root to it.
pub struct Leaf<P: GamePosition> {
    /// The game at the leaf.
    pub game: Game<P>,
    /// The leaf's legal moves.
    pub moves: Vec<P::Move>,
    path: Vec<u32>,
    /// The moves the tactical check keeps, when it ran before
    /// [`Tree::apply`] ([`Tree::check_leaf`]).
    keep: Option<Vec<bool>>,
}

/// What one selection step produced.
pub enum Selection<P: GamePosition> {
    /// A leaf to evaluate (pass the evaluation to [`Tree::apply`]).
    NeedsEval(Leaf<P>),
    /// The simulation ended in a known (terminal) node and is backed up.
    Done,
    /// The descent met a leaf already waiting for evaluation: try again
    /// after this batch is applied.
    Busy,
}

impl<P: GamePosition> Tree<P> {
    /// Value of edge `e` for the side to move at its parent, counting
    /// in-flight simulations as losses (with the solver, a proven child's
    /// exact value).
    pub(super) fn edge_q(&self, e: &Edge<P::Move>) -> Option<f64> {
        if self.params.solver {
            if let Some(w) = self.edge_exact(e) {
                let mat = -self.nodes[e.child as usize].mean_mat();
                return Some(wdl_search_value(w.flipped(), mat, &self.params));
            }
        }
        if e.child == NO_NODE {
            return None;
        }
        let c = &self.nodes[e.child as usize];
        let n = c.n + c.vl;
        if n == 0 {
            None
        } else {
            // The child's sums seen from the parent: its losses are our wins.
            let u = search_value([c.wdl[2], c.wdl[1], c.wdl[0]], -c.mat, &self.params);
            Some((u - c.vl as f64) / n as f64)
        }
    }

    pub(super) fn edge_n(&self, e: &Edge<P::Move>) -> u32 {
        if e.child == NO_NODE {
            0
        } else {
            let c = &self.nodes[e.child as usize];
            c.n + c.vl
        }
    }

    /// PUCT choice among a node's edges (local index).
    fn select_puct(&self, node: u32, is_root: bool) -> u32 {
        let nd = &self.nodes[node as usize];
        let edges = &self.edges[nd.edge_range()];
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
        let fpu = nd.q(&self.params) - red * visited_p.sqrt();
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
        let edges = &self.edges[nd.edge_range()];
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

    /// Run one selection step: descend to a leaf.
    pub fn select(&mut self) -> Selection<P> {
        let mut node = self.root;
        let mut path = vec![node];
        let mut game = self.game.detached();
        let mut root_choice: Option<u32> = None;
        loop {
            if self.params.solver && node != self.root {
                if let Some(wdl) = self.nodes[node as usize].proven {
                    let mat = self.nodes[node as usize].mean_mat();
                    self.sims += 1;
                    self.backup(&path, wdl, mat, false);
                    return Selection::Done;
                }
            }
            match self.nodes[node as usize].state {
                State::Terminal(wdl) => {
                    let mat = self.nodes[node as usize].value_mat as f64;
                    self.sims += 1;
                    self.backup(&path, wdl, mat, false);
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
                    let known = game
                        .outcome_with(&moves)
                        .map(|o| Wdl::of_outcome(&o, game.position().side_to_move()))
                        .or_else(|| self.exact_below_root(node, &game));
                    if let Some(wdl) = known {
                        let mat = final_material(game.position());
                        let nd = &mut self.nodes[node as usize];
                        nd.state = State::Terminal(wdl);
                        nd.value_mat = mat;
                        self.sims += 1;
                        self.backup(&path, wdl, mat as f64, false);
                        if self.params.solver {
                            self.prove(&path);
                        }
                        return Selection::Done;
                    }
                    if self.params.collapse_forced && moves.len() == 1 && node != self.root {
                        // A forced move inside the tree: no evaluation
                        // here; the simulation goes on to the first
                        // position with a choice (or the game's end).
                        self.expand_forced(node, moves[0]);
                        continue;
                    }
                    self.nodes[node as usize].state = State::Pending;
                    for &p in &path {
                        self.nodes[p as usize].vl += 1;
                    }
                    self.sims += 1;
                    self.in_flight += 1;
                    return Selection::NeedsEval(Leaf {
                        game,
                        moves,
                        path,
                        keep: None,
                    });
                }
                State::Expanded => {
                    let (child, mv) = self.step_down(node, &mut root_choice);
                    game.play_unchecked(&mv);
                    node = child;
                    path.push(node);
                }
            }
        }
    }

    /// The edge a descent takes from the expanded `node` (at a Gumbel
    /// root, the choice is kept in `root_choice`): its child, created if
    /// new, and its move.
    fn step_down(&mut self, node: u32, root_choice: &mut Option<u32>) -> (u32, P::Move) {
        let is_root = node == self.root;
        let local = if is_root && self.gumbel.is_some() {
            let c = self.gumbel_root_choice();
            *root_choice = Some(c);
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
        (self.edges[ei].child, self.edges[ei].mv)
    }

    /// The exact value of `game`, at `node` below the root, from the
    /// tree's exact values ([`Tree::set_exact_values`]).
    fn exact_below_root(&self, node: u32, game: &Game<P>) -> Option<Wdl> {
        if node == self.root {
            return None;
        }
        self.exact_values.as_ref().and_then(|e| e.exact(game))
    }

    /// Expand a node whose only legal move is `mv` without evaluating it
    /// ([`SearchParams::collapse_forced`](super::SearchParams::collapse_forced)):
    /// one edge of prior 1. Its value comes from the positions below it.
    fn expand_forced(&mut self, node: u32, mv: P::Move) {
        let first = self.edges.len() as u32;
        self.edges.push(Edge {
            mv,
            prior: 1.0,
            raw: 1.0,
            child: NO_NODE,
        });
        let nd = &mut self.nodes[node as usize];
        nd.first_edge = first;
        nd.n_edges = 1;
        nd.state = State::Expanded;
    }

    /// Whether expanding `leaf` runs the in-tree tactical check (not at
    /// the root, which has its own).
    fn checks_tactics(&self, leaf: &Leaf<P>) -> bool {
        self.params.tactics_in_tree && self.params.tactics_margin > 0.0 && leaf.path.len() > 1
    }

    /// Run `leaf`'s tactical check now, with scratch lists of its own, so
    /// that the leaves of one tree can be checked on several threads; its
    /// [`Tree::apply`] then takes the result instead of checking again.
    pub fn check_leaf(&self, leaf: &mut Leaf<P>) {
        if leaf.keep.is_none() && self.checks_tactics(leaf) {
            let margin = self.params.tactics_margin;
            let keep = super::tactics::Tactics::default().keep(leaf.game.position(), &leaf.moves, margin, 1);
            leaf.keep = Some(keep);
        }
    }

    /// Expand a leaf with its evaluation and back up its value.
    pub fn apply(&mut self, mut leaf: Leaf<P>, eval: Evaluation) {
        let node = *leaf.path.last().expect("non-empty path");
        let first = self.edges.len() as u32;
        // The moves the in-tree tactical check keeps (None: it is off here,
        // every move is kept, with no list to allocate per expansion).
        let margin = self.params.tactics_margin;
        let keep = match leaf.keep.take() {
            Some(keep) => Some(keep),
            None if self.checks_tactics(&leaf) => {
                Some(self.tactics.keep(leaf.game.position(), &leaf.moves, margin, 1))
            }
            None => None,
        };
        let kept = |i: usize| keep.as_ref().is_none_or(|k| k[i]);
        let prior = |i: usize| eval.priors.get(i).copied().unwrap_or(0.0).max(0.0);
        let n = (0..leaf.moves.len()).filter(|&i| kept(i)).count();
        let sum: f32 = (0..leaf.moves.len()).filter(|&i| kept(i)).map(prior).sum();
        for (i, mv) in leaf.moves.iter().enumerate() {
            if !kept(i) {
                continue;
            }
            let p = prior(i);
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
            nd.value_mat = eval.material.clamp(-1.0, 1.0);
        }
        self.in_flight -= 1;
        let mat = self.nodes[node as usize].value_mat as f64;
        self.backup(&leaf.path, eval.wdl, mat, true);
        if node == self.root {
            self.prepare_root();
        }
    }

    /// The solver's step after the last node of `path` got an exact value:
    /// going up, a node is proven won if a child is lost for its own side
    /// to move, and proven lost or drawn if every child is known and the
    /// best of them is; the walk stops at the first node not proven.
    fn prove(&mut self, path: &[u32]) {
        for &p in path.iter().rev().skip(1) {
            let nd = &self.nodes[p as usize];
            if nd.state != State::Expanded || nd.proven.is_some() {
                break;
            }
            let mut all = true;
            let mut best: Option<Wdl> = None;
            for e in &self.edges[nd.edge_range()] {
                match self.edge_exact(e) {
                    Some(w) => {
                        let mine = w.flipped();
                        if best.is_none_or(|b| mine.value() > b.value()) {
                            best = Some(mine);
                        }
                    }
                    None => all = false,
                }
            }
            match best {
                Some(b) if all || b.value() >= 1.0 => self.nodes[p as usize].proven = Some(b),
                _ => break,
            }
        }
    }

    /// Add a value and a material value (for the side to move at the last
    /// node of `path`) to every node of the path, flipping sides on the way
    /// up.
    pub(super) fn backup(&mut self, path: &[u32], wdl: Wdl, mat: f64, had_vl: bool) {
        let mut v = [wdl.win as f64, wdl.draw as f64, wdl.loss as f64];
        let mut m = mat;
        for &p in path.iter().rev() {
            let nd = &mut self.nodes[p as usize];
            nd.n += 1;
            if had_vl {
                nd.vl -= 1;
            }
            for (acc, x) in nd.wdl.iter_mut().zip(v) {
                *acc += x;
            }
            nd.mat += m;
            v.swap(0, 2);
            m = -m;
        }
    }
}

/// A finished game's material for its side to move, as the network's
/// material target measures it ([`GamePosition::piece_balance`]).
fn final_material<P: GamePosition>(pos: &P) -> f32 {
    pos.piece_balance(pos.side_to_move())
}
