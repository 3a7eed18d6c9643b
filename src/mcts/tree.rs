//! The search tree's storage: nodes and edges in flat arrays, starting a
//! search, and tree reuse (keeping the played move's subtree).
//!
//! The search itself is split by concern, as KataGo splits its search:
//! [`super::select`] (descent, expansion, backup), [`super::gumbel`] (root
//! noise, Gumbel sequential halving, completed Q), [`super::result`] (the
//! move, the policy target and root statistics) and [`super::driver`]
//! (running many trees against one evaluator).

use super::exact::ExactValues;
use super::gumbel::GumbelRoot;
use super::params::SearchParams;
use super::wdl::{utility, Wdl};
use crate::game::{Game, GamePosition};
use crate::util::Rng;
use std::sync::Arc;

pub(super) const NO_NODE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum State {
    /// Created, never reached by a simulation.
    Fresh,
    /// Waiting for its evaluation.
    Pending,
    /// Has edges.
    Expanded,
    /// Game over here: exact value for the side to move.
    Terminal(Wdl),
}

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) first_edge: u32,
    pub(super) n_edges: u32,
    /// Completed visits.
    pub(super) n: u32,
    /// Simulations in flight through this node (virtual loss).
    pub(super) vl: u32,
    /// Sums of win/draw/loss probabilities, for the side to move here.
    pub(super) wdl: [f64; 3],
    /// Sum of material values (see [`SearchParams::material_utility`]) over
    /// visits, for the side to move here.
    pub(super) mat: f64,
    /// The evaluator's value at expansion, for the side to move here.
    pub(super) value: Wdl,
    /// The material value at expansion (the evaluator's prediction, or a
    /// finished game's actual material), for the side to move here.
    pub(super) value_mat: f32,
    pub(super) state: State,
    /// The exact value for the side to move here, proved from its children
    /// by the solver ([`SearchParams::solver`]).
    pub(super) proven: Option<Wdl>,
}

impl Node {
    /// Where this node's edges lie in the tree's edge list.
    pub(super) fn edge_range(&self) -> std::ops::Range<usize> {
        self.first_edge as usize..(self.first_edge + self.n_edges) as usize
    }

    pub(super) fn new() -> Node {
        Node {
            first_edge: 0,
            n_edges: 0,
            n: 0,
            vl: 0,
            wdl: [0.0; 3],
            mat: 0.0,
            value: Wdl::DRAW,
            value_mat: 0.0,
            state: State::Fresh,
            proven: None,
        }
    }
    /// Mean win/draw/loss over the visits, for the side to move here (the
    /// evaluator's value before any).
    pub(super) fn mean_wdl(&self) -> Wdl {
        if self.n == 0 {
            return self.value;
        }
        let n = self.n as f64;
        Wdl::new(
            (self.wdl[0] / n) as f32,
            (self.wdl[1] / n) as f32,
            (self.wdl[2] / n) as f32,
        )
    }
    /// Mean value ([`search_value`]) for the side to move here.
    pub(super) fn q(&self, p: &SearchParams) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            search_value(self.wdl, self.mat, p) / self.n as f64
        }
    }

    /// Mean material value for the side to move here (0 before a visit).
    pub(super) fn mean_mat(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.mat / self.n as f64
        }
    }
}

/// What the search maximises, from win/draw/loss weights and a material
/// value for one side (probabilities or sums over visits alike): win - loss
/// + `draw_score` x draw + `material_utility` x material.
pub(super) fn search_value(wdl: [f64; 3], mat: f64, p: &SearchParams) -> f64 {
    utility(wdl[0], wdl[1], wdl[2], p.draw_score as f64) + p.material_utility as f64 * mat
}

/// [`search_value`] of one `Wdl` (an evaluation or an exact value), its
/// win/draw/loss part taken in `f32` as the search always has.
pub(super) fn wdl_search_value(w: Wdl, mat: f64, p: &SearchParams) -> f64 {
    w.utility(p.draw_score) as f64 + p.material_utility as f64 * mat
}

#[derive(Clone, Debug)]
pub(super) struct Edge<M> {
    pub(super) mv: M,
    /// Prior used by selection (with root noise mixed in).
    pub(super) prior: f32,
    /// Prior as the evaluator gave it.
    pub(super) raw: f32,
    pub(super) child: u32,
}

/// One search tree over a game of any [`GamePosition`] (Damone by default).
pub struct Tree<P: GamePosition> {
    pub(super) nodes: Vec<Node>,
    pub(super) edges: Vec<Edge<P::Move>>,
    pub(super) root: u32,
    pub(super) game: Game<P>,
    pub(super) params: SearchParams,
    pub(super) rng: Rng,
    pub(super) target: u32,
    pub(super) sims: u32,
    pub(super) in_flight: u32,
    pub(super) gumbel: Option<GumbelRoot>,
    pub(super) noised: bool,
    /// Scratch move lists of the tactical check, kept between expansions.
    pub(super) tactics: super::tactics::Tactics<P>,
    /// Exact values of positions below the root (endgame tablebases).
    pub(super) exact_values: Option<Arc<dyn ExactValues<P>>>,
}

impl<P: GamePosition> Tree<P> {
    /// A fresh tree rooted at the current position of `game`.
    pub fn new(game: &Game<P>, params: SearchParams, rng: Rng) -> Tree<P> {
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
            tactics: Default::default(),
            exact_values: None,
        }
    }

    /// Give the tree exact values (endgame tablebases): a position they
    /// cover below the root is a finished game with that value.
    pub fn set_exact_values(&mut self, exact: Option<Arc<dyn ExactValues<P>>>) {
        self.exact_values = exact;
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
    pub fn game(&self) -> &Game<P> {
        &self.game
    }
    /// The exact value of a node for its side to move, when known: a
    /// finished game, or a node the solver proved.
    pub(super) fn exact(&self, node: u32) -> Option<Wdl> {
        let nd = &self.nodes[node as usize];
        match nd.state {
            State::Terminal(w) => Some(w),
            _ => nd.proven,
        }
    }

    /// The exact value of edge `e`'s child for its side to move, when the
    /// edge has a child and its value is known.
    pub(super) fn edge_exact(&self, e: &Edge<P::Move>) -> Option<Wdl> {
        (e.child != NO_NODE).then(|| self.exact(e.child)).flatten()
    }

    /// The root's exact value for the side to move, when the solver proved
    /// it (or the game there is over).
    pub fn proven_value(&self) -> Option<Wdl> {
        self.exact(self.root)
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

    /// Play a move at the root (either side's), keeping its subtree when
    /// tree reuse is on.
    pub fn advance(&mut self, mv: &P::Move) {
        let nd = &self.nodes[self.root as usize];
        let child = if nd.state == State::Expanded {
            self.edges[nd.edge_range()]
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
            for e in &self.edges[nd.edge_range()] {
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
