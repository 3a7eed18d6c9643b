//! The baseline alpha-beta bot, for any game with a [`Baseline`]
//! evaluation: negamax with iterative deepening, a transposition table on
//! the Zobrist key, move ordering (TT move, history heuristic), capture
//! extension, and a hand-written evaluation; on several threads by Lazy
//! SMP over a shared table ([`AlphaBeta::with_threads`], the module
//! `shared_table`).
//!
//! ## The hand-written evaluation
//!
//! Each game's own ([`Baseline::evaluate`], in its folder's `baseline.rs`):
//! material, advancement and mobility, in hundredths of a man. A side
//! with a capture to play is never scored statically: captures are
//! searched to the end (they are compulsory, so this is the quiescence).
//!
//! ## The learned evaluation
//!
//! [`AlphaBeta::with_eval`] searches with another [`LeafEval`]: a
//! [`LearnedEval`] keeps one accumulator per ply, each made from its
//! parent's by the pieces the move changed ([`crate::learned`]).
//!
//! ## Endgame tables
//!
//! [`AlphaBeta::with_exact_values`] gives the search a game's exact
//! values (Damone's endgame tables): a position they call won or lost
//! below the root scores as such at once ([`TABLE_WIN`] less its
//! distance), and a root they call won is played by their own best move.
//! Positions they call drawn are searched on, as the network player does,
//! where an opponent that errs may still lose.
//!
//! ## Analysis
//!
//! [`Player::analyse`] reports the depth completed, the nodes, the score
//! ([`Score`]) and the principal variation, read from the transposition
//! table after the search.

mod search;

use super::shared_table::{SharedTable, TtEntry, EXACT, LOWER, UPPER};
use super::{Analysis, Player, Principal, SearchLimit};
pub use crate::game::baseline::Baseline;
use crate::game::Game;
use crate::learned::{AccumulatorStack, LearnedEval};
use crate::mcts::{DecisiveOnly, ExactValues, Wdl};
use crate::net::Board;
use crate::util::stop::Stop;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Score of a won position (minus the distance in plies).
pub const WIN: i32 = 100_000;

/// Score of a position the endgame tables call won (minus the distance in
/// plies to it): below every won game, above every evaluation.
pub const TABLE_WIN: i32 = WIN - 2_000;

/// Scores beyond this are wins or losses (of the game or of the tables),
/// stored in the transposition table relative to their node.
const DECIDED: i32 = WIN - 3_000;

/// An alpha-beta search's score for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// The evaluation's estimate in its own units: hundredths of a man
    /// for the hand-written evaluations, logit x 256 for a learned one.
    Eval(i32),
    /// The game is won within this many plies.
    WinIn(u32),
    /// The game is lost within this many plies.
    LossIn(u32),
    /// A position the endgame tables call won is reached within this many plies.
    TableWinIn(u32),
    /// A position the endgame tables call lost is reached within this many plies.
    TableLossIn(u32),
}

impl Score {
    /// The score of a search's value `s`.
    pub fn of(s: i32) -> Score {
        let plies = |top: i32| (top - s.abs()).max(0) as u32;
        match s {
            s if s > WIN - 1000 => Score::WinIn(plies(WIN)),
            s if s < -(WIN - 1000) => Score::LossIn(plies(WIN)),
            s if s > DECIDED => Score::TableWinIn(plies(TABLE_WIN)),
            s if s < -DECIDED => Score::TableLossIn(plies(TABLE_WIN)),
            s => Score::Eval(s),
        }
    }

    /// The same result seen from the position one ply before, whose side
    /// to move made the move that led here.
    pub fn for_parent(self) -> Score {
        match self {
            Score::Eval(s) => Score::Eval(-s),
            Score::WinIn(n) => Score::LossIn(n + 1),
            Score::LossIn(n) => Score::WinIn(n + 1),
            Score::TableWinIn(n) => Score::TableLossIn(n + 1),
            Score::TableLossIn(n) => Score::TableWinIn(n + 1),
        }
    }

    /// The certain result this score proves (a won or lost game or table
    /// position), None for an estimate.
    pub fn proven(&self) -> Option<Wdl> {
        match self {
            Score::WinIn(_) | Score::TableWinIn(_) => Some(Wdl::WIN),
            Score::LossIn(_) | Score::TableLossIn(_) => Some(Wdl::LOSS),
            Score::Eval(_) => None,
        }
    }
}

impl std::fmt::Display for Score {
    /// `eval +35`, `win 7`, `loss 7`, `tablewin 3`, `tableloss 3` (plies):
    /// two words, as the engine protocol sends them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Eval(s) => write!(f, "eval {s:+}"),
            Score::WinIn(n) => write!(f, "win {n}"),
            Score::LossIn(n) => write!(f, "loss {n}"),
            Score::TableWinIn(n) => write!(f, "tablewin {n}"),
            Score::TableLossIn(n) => write!(f, "tableloss {n}"),
        }
    }
}

/// Per-move search limits; any combination, the first reached stops.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Stop after this depth.
    pub depth: Option<u32>,
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Stop after this much time.
    pub movetime: Option<Duration>,
}

/// The transposition table's size: 2^18 entries of 16 bytes (4 MB).
const TT_BITS: u32 = 18;

/// What the search scores a quiet position with: the game's hand-written
/// evaluation ([`HandWritten`]) or a learned one ([`LearnedEval`]). Each
/// thread keeps a state by ply (a learned evaluation's accumulators),
/// told of every position the search enters.
pub trait LeafEval<P: Baseline>: Send + Sync + 'static {
    /// One thread's state.
    type State: Send;
    /// A fresh state.
    fn new_state(&self) -> Self::State;
    /// The search's root (ply 0) is `pos`.
    fn set_root(&self, state: &mut Self::State, pos: &P);
    /// Ply `ply` (at least 1) is `pos`, one move after ply `ply - 1`'s.
    fn enter(&self, state: &mut Self::State, ply: usize, pos: &P);
    /// The score of ply `ply`'s position `pos` for the side to move, in
    /// the search's units (hundredths of a man for the hand-written ones).
    fn evaluate(&self, state: &Self::State, ply: usize, pos: &P) -> i32;
}

/// The game's hand-written evaluation ([`Baseline::evaluate`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct HandWritten;

impl<P: Baseline> LeafEval<P> for HandWritten {
    type State = ();
    fn new_state(&self) {}
    #[inline]
    fn set_root(&self, _: &mut (), _: &P) {}
    #[inline]
    fn enter(&self, _: &mut (), _: usize, _: &P) {}
    #[inline]
    fn evaluate(&self, _: &(), _: usize, pos: &P) -> i32 {
        pos.evaluate()
    }
}

impl<P: Baseline + Board> LeafEval<P> for LearnedEval {
    type State = AccumulatorStack;
    fn new_state(&self) -> AccumulatorStack {
        AccumulatorStack::new(&self.quant)
    }
    fn set_root(&self, state: &mut AccumulatorStack, pos: &P) {
        state.set_root(&self.quant, pos);
    }
    #[inline]
    fn enter(&self, state: &mut AccumulatorStack, ply: usize, pos: &P) {
        state.enter(&self.quant, ply, pos);
    }
    #[inline]
    fn evaluate(&self, state: &AccumulatorStack, ply: usize, pos: &P) -> i32 {
        self.quant.score(state.at(ply), pos.side_to_move())
    }
}

/// Alpha-beta searcher over a game (Damone by default), on one thread or
/// several ([`AlphaBeta::with_threads`]: Lazy SMP, the threads sharing one
/// transposition table), with the game's hand-written evaluation or
/// another [`LeafEval`] ([`AlphaBeta::with_eval`]).
pub struct AlphaBeta<P: Baseline, E: LeafEval<P> = HandWritten> {
    name: String,
    limits: Limits,
    default_limits: Limits,
    /// The thread that reports the move.
    main: Worker<P, E>,
    /// The other threads, searching the same root to fill the shared table.
    helpers: Vec<Worker<P, E>>,
    /// Nodes of the last search, all threads together.
    nodes: u64,
    /// Statistics of the last search: depth reached, nodes, score.
    pub last: (u32, u64, i32),
    /// The exact values a won root is played by (all of them; the
    /// search's own are the decisive ones).
    exact: Option<Arc<dyn ExactValues<P>>>,
}

/// One thread's search: its history table, node count, path and move
/// buffers, with the table and the stop flag of the threads of a search.
struct Worker<P: Baseline, E: LeafEval<P>> {
    tt: Arc<SharedTable>,
    eval: Arc<E>,
    /// The evaluation's state by ply.
    state: E::State,
    /// Set when the main thread has its move: the helpers stop.
    done: Arc<AtomicBool>,
    /// Raised by the caller to end the search now ([`Player::set_stop`]).
    abort: Option<Stop>,
    /// Cut-offs per move code (the history heuristic).
    history: Vec<i32>,
    limits: Limits,
    nodes: u64,
    start: Instant,
    stopped: bool,
    /// Hashes on the current search path plus the game's repetition history.
    path: Vec<u64>,
    bufs: Vec<Vec<P::Move>>,
    /// Won and lost positions known exactly (the endgame tables).
    exact: Option<Arc<dyn ExactValues<P>>>,
    /// What a draw costs the side to move at the root, in the
    /// evaluation's units ([`AlphaBeta::with_contempt`]).
    contempt: i32,
    /// Where the search's exact values of the positions it expanded with
    /// at least `.0` plies left are kept ([`AlphaBeta::record_node_values`]);
    /// None: not kept.
    node_values: Option<(i32, Vec<(P, i32)>)>,
}

/// What one thread's iterative deepening found.
struct Found<M> {
    best: M,
    score: i32,
    /// The last depth completed (or, at depth 1, searched in part).
    depth: u32,
}

/// Win scores are stored relative to the node, not the root.
fn to_tt(s: i32, ply: usize) -> i32 {
    if s > DECIDED {
        s + ply as i32
    } else if s < -DECIDED {
        s - ply as i32
    } else {
        s
    }
}

fn from_tt(s: i32, ply: usize) -> i32 {
    if s > DECIDED {
        s - ply as i32
    } else if s < -DECIDED {
        s + ply as i32
    } else {
        s
    }
}

/// The score of a position `ply` plies below the root that exact values
/// call `w` (won or lost; a draw scores 0).
fn table_score(w: Wdl, ply: usize) -> i32 {
    if w == Wdl::WIN {
        TABLE_WIN - ply as i32
    } else if w == Wdl::LOSS {
        -(TABLE_WIN - ply as i32)
    } else {
        0
    }
}

impl<P: Baseline> AlphaBeta<P> {
    /// A searcher on one thread with the game's hand-written evaluation.
    pub fn new(name: String, limits: Limits) -> Self {
        AlphaBeta::with_eval(name, limits, Arc::new(HandWritten))
    }
}

impl<P: Baseline, E: LeafEval<P>> AlphaBeta<P, E> {
    /// A searcher on one thread with the evaluation `eval`.
    pub fn with_eval(name: String, limits: Limits, eval: Arc<E>) -> Self {
        let tt = Arc::new(SharedTable::new(TT_BITS));
        let done = Arc::new(AtomicBool::new(false));
        AlphaBeta {
            name,
            limits,
            default_limits: limits,
            main: Worker::new(tt, done, eval),
            helpers: Vec::new(),
            nodes: 0,
            last: (0, 0, 0),
            exact: None,
        }
    }

    /// The same searcher scoring every draw it foresees as `contempt`
    /// (evaluation units, at least 0) below even for the side to move at
    /// the root: it plays on in a level position rather than repeat, as
    /// engines with a contempt do against a weaker opponent. Call before
    /// or after [`AlphaBeta::with_threads`].
    pub fn with_contempt(mut self, contempt: i32) -> Self {
        self.workers_mut().for_each(|w| w.contempt = contempt);
        self
    }

    /// The same searcher with the exact values `exact` (a game's endgame
    /// tables; None: none): their won and lost positions end the search's
    /// lines, and a won root is played by their best move. Call before or
    /// after [`AlphaBeta::with_threads`].
    pub fn with_exact_values(mut self, exact: Option<Arc<dyn ExactValues<P>>>) -> Self {
        let decisive = exact
            .clone()
            .map(|e| Arc::new(DecisiveOnly(e)) as Arc<dyn ExactValues<P>>);
        self.workers_mut().for_each(|w| w.exact = decisive.clone());
        self.exact = exact;
        self
    }

    /// Keep the main thread's exact values of every position its searches
    /// expand with at least `min_depth` plies left (at least 1; a node
    /// whose score fell inside its window): the labels of tree
    /// bootstrapping and Descent ([`AlphaBeta::take_node_values`]). None:
    /// keep none.
    pub fn record_node_values(&mut self, min_depth: Option<u32>) {
        self.main.node_values = min_depth.map(|d| (d.max(1) as i32, Vec::new()));
    }

    /// The positions and exact scores (for their side to move, in the
    /// search's units) recorded since the last call, in the order the
    /// searches finished them (a deeper search's after a shallower one's).
    pub fn take_node_values(&mut self) -> Vec<(P, i32)> {
        self.main
            .node_values
            .as_mut()
            .map(|(_, v)| std::mem::take(v))
            .unwrap_or_default()
    }

    /// The main thread's worker and the helpers'.
    fn workers_mut(&mut self) -> impl Iterator<Item = &mut Worker<P, E>> {
        std::iter::once(&mut self.main).chain(self.helpers.iter_mut())
    }

    /// The same searcher on `threads` threads (at least 1): Lazy SMP.
    /// Every thread searches the root by iterative deepening, half of the
    /// helpers one ply deeper than the main thread and each with the root
    /// moves in another order, all sharing the transposition table, so the
    /// main thread finds more of its positions searched. The main thread's
    /// move is played; depth and node limits are its own, and the helpers
    /// stop when it does.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.helpers = (1..threads.max(1)).map(|_| self.main.sibling()).collect();
        self
    }

    /// The threads a search runs on.
    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Nodes searched by the last call to [`AlphaBeta::search`], all
    /// threads together.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Search the game's position; returns the best move and its score.
    pub fn search(&mut self, game: &Game<P>) -> (P::Move, i32) {
        let moves = game.position().legal_moves();
        assert!(!moves.is_empty(), "search called on a finished game");
        if moves.len() == 1 {
            (self.nodes, self.last) = (0, (0, 0, 0));
            return (moves[0], 0);
        }
        let open_ended = self.limits.nodes.is_some() || self.limits.movetime.is_some();
        let max_depth = self.limits.depth.unwrap_or(if open_ended { 64 } else { 4 });
        let start = Instant::now();
        self.main.done.store(false, Relaxed);
        self.main.begin(game, self.limits, start);
        let helper_limits = Limits {
            nodes: None,
            ..self.limits
        };
        for h in &mut self.helpers {
            h.begin(game, helper_limits, start);
        }
        let (main, helpers) = (&mut self.main, &mut self.helpers);
        let found = std::thread::scope(|s| {
            for (i, h) in helpers.iter_mut().enumerate() {
                let moves = moves.clone();
                s.spawn(move || h.iterate(game, moves, max_depth.saturating_add(1), i + 1));
            }
            let found = main.iterate(game, moves, max_depth, 0);
            main.done.store(true, Relaxed);
            found
        });
        self.nodes = self.main.nodes + self.helpers.iter().map(|h| h.nodes).sum::<u64>();
        self.last = (found.depth, self.nodes, found.score);
        (found.best, found.score)
    }

    /// The score of `game`'s position for its side to move by a search of
    /// one ply, the captures after it searched to the end (each leaf a
    /// quiet position), on the main thread without limits: the
    /// evaluation's word on a position whose tactics are settled.
    pub fn shallow_score(&mut self, game: &Game<P>) -> i32 {
        let root = *game.position();
        let moves = root.legal_moves();
        let w = &mut self.main;
        if let Some(score) = w.end_score(&root, moves.is_empty(), 0) {
            return score;
        }
        w.done.store(false, Relaxed);
        w.begin(game, Limits::default(), Instant::now());
        w.eval.set_root(&mut w.state, &root);
        let mut alpha = -WIN - 1;
        for m in &moves {
            let s = -w.negamax(game, &root.after(m), 0, 1, -WIN - 1, -alpha);
            alpha = alpha.max(s);
        }
        alpha
    }

    /// A forced move's analysis: the position after it analysed, its
    /// score seen from the mover, its line after the move.
    fn analyse_forced(&mut self, game: &Game<P>, m: P::Move) -> Principal<P::Move> {
        let mut child = game.clone();
        child.play_unchecked(&m);
        let after = match self.analyse(&child).and_then(|a| a.principal) {
            Some(p) => p,
            None => {
                // The move ends the game: scored for the side it leaves to move.
                let mover = game.position().side_to_move();
                let score = match child.outcome().and_then(|o| o.winner) {
                    Some(w) if w == mover => Score::LossIn(0),
                    Some(_) => Score::WinIn(0),
                    None => Score::Eval(0),
                };
                Principal {
                    depth: 0,
                    nodes: 0,
                    score,
                    pv: Vec::new(),
                }
            }
        };
        let mut pv = vec![m];
        pv.extend(after.pv);
        Principal {
            depth: after.depth,
            nodes: after.nodes,
            score: after.score.for_parent(),
            pv,
        }
    }

    /// The move of the exact values where they call the root won.
    fn table_move(&self, game: &Game<P>) -> Option<P::Move> {
        let exact = self.exact.as_ref()?;
        match exact.exact(game) {
            Some(w) if w == Wdl::WIN => exact.best_move(game),
            _ => None,
        }
    }

    /// `best` and the line the transposition table expects after it: at
    /// each position the move it stored, until it has none, a position
    /// repeats or the line is longer than the depth searched (plus the
    /// captures searched out beyond it).
    fn principal_variation(&self, game: &Game<P>, best: P::Move) -> Vec<P::Move> {
        let mut pv = vec![best];
        let mut pos = game.position().after(&best);
        let mut seen = vec![game.position().hash_key(), pos.hash_key()];
        let most = self.last.0 as usize + 8;
        while pv.len() < most {
            let Some(entry) = self.main.tt.load(pos.hash_key()) else {
                break;
            };
            let moves = pos.legal_moves();
            let Some(m) = moves.into_iter().find(|m| P::move_code(m) == entry.best) else {
                break;
            };
            pv.push(m);
            pos = pos.after(&m);
            if seen.contains(&pos.hash_key()) || pos.decided().is_some() {
                break;
            }
            seen.push(pos.hash_key());
        }
        pv
    }
}

impl<P: Baseline, E: LeafEval<P>> Player<P> for AlphaBeta<P, E> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &Game<P>) -> P::Move {
        match self.table_move(game) {
            Some(m) => m,
            None => self.search(game).0,
        }
    }
    /// The search's move, depth, nodes, score and principal variation (a
    /// won root the tables cover: their move, their verdict, no search).
    fn analyse(&mut self, game: &Game<P>) -> Option<Analysis<P::Move>> {
        if game.outcome().is_some() {
            return None;
        }
        let moves = game.position().legal_moves();
        let principal = match self.table_move(game) {
            Some(m) => Principal {
                depth: 0,
                nodes: 0,
                score: Score::TableWinIn(0),
                pv: vec![m],
            },
            None if moves.len() == 1 => self.analyse_forced(game, moves[0]),
            None => {
                let (best, score) = self.search(game);
                Principal {
                    depth: self.last.0,
                    nodes: self.nodes,
                    score: Score::of(score),
                    pv: self.principal_variation(game, best),
                }
            }
        };
        Some(Analysis {
            lines: Vec::new(),
            best: principal.pv[0],
            wdl: principal.score.proven(),
            simulations: 0,
            principal: Some(principal),
        })
    }
    /// The searches end early when `stop` is raised (every thread, within
    /// about a thousand nodes), with the best move found so far.
    fn set_stop(&mut self, stop: Option<Stop>) -> bool {
        self.workers_mut().for_each(|w| w.abort = stop.clone());
        true
    }
    /// A depth, node or time limit replaces the others.
    fn set_limit(&mut self, limit: SearchLimit) -> bool {
        let mut limits = Limits::default();
        match limit {
            SearchLimit::Time(t) => limits.movetime = Some(t),
            SearchLimit::Depth(d) => limits.depth = Some(d.clamp(1, 64)),
            SearchLimit::Nodes(n) => limits.nodes = Some(n.max(1)),
        }
        self.limits = limits;
        true
    }
    /// A time budget replaces the depth, node and time limits (iterative
    /// deepening until the time is spent); simulations mean nothing here.
    fn set_budget(&mut self, budget: Option<crate::mcts::Budget>) -> bool {
        match budget {
            None => {
                self.limits = self.default_limits;
                true
            }
            Some(crate::mcts::Budget::Time(t)) => {
                self.limits = Limits {
                    movetime: Some(t),
                    ..Default::default()
                };
                true
            }
            Some(crate::mcts::Budget::Simulations(_)) => false,
        }
    }
}
