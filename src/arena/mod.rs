//! The arena: the [`Player`] trait (the one abstraction of something that
//! plays, with an optional analysis), baseline bots (alpha-beta, random,
//! MCTS over any evaluator), player spec strings, matches, tournaments,
//! ratings, and evaluation games against alpha-beta.

pub mod alphabeta;
pub mod evaluation;
mod shared_table;
pub mod spec;
pub mod sprt;
pub mod tournament;
pub mod versus;

pub use alphabeta::{AlphaBeta, Baseline, HandWritten, LeafEval, Limits, Score};
pub use spec::{builtin_factory, split_player_list, PlayerFactory, PlayerKind, PlayerSpec, SpecError};
pub use sprt::{Sprt, SprtDecision};
pub use tournament::{
    read_openings, run_games, run_sprt, tally, write_match_outputs, GameRecord, GameTask, MatchSettings,
    SprtOutcome, Standings,
};
pub use versus::{parse_color, VersusGame};

use crate::game::{damone::Move, Game, GamePosition};
use crate::mcts::{
    search_until, Budget, DecisiveOnly, Evaluator, ExactValues, RolloutEvaluator, SearchParams, SearchResult,
    Tree, Wdl,
};
use crate::util::stop::Stop;
use crate::util::Rng;
use rand::Rng as _;
use std::sync::Arc;

/// Something that chooses moves. A player is created per game with a seed,
/// so that games are reproducible and can run in parallel.
pub trait Player<P: GamePosition>: Send {
    /// The name shown in standings and records.
    fn name(&self) -> String;
    /// Choose a move in `game`, which is not over.
    fn choose(&mut self, game: &Game<P>) -> P::Move;
    /// Told about every move played (its own and the opponent's), after it is played.
    fn observe(&mut self, _mv: &P::Move) {}
    /// Search `game` and report the candidate moves: players that search
    /// do; None for the others, or when the game is over.
    fn analyse(&mut self, _game: &Game<P>) -> Option<Analysis<P::Move>> {
        None
    }
    /// Search with `budget` from now on, or with the player's own default
    /// budget again (None). Returns false if the player has no such budget
    /// (a random player; alpha-beta takes a time budget only).
    fn set_budget(&mut self, _budget: Option<Budget>) -> bool {
        false
    }
    /// Search with `limit` from now on (until `set_budget(None)`): a time
    /// or node limit as a budget (nodes are a tree search's simulations);
    /// a depth only for players that search by depth. Returns false if the
    /// player takes no such limit.
    fn set_limit(&mut self, limit: SearchLimit) -> bool {
        match limit {
            SearchLimit::Time(t) => self.set_budget(Some(Budget::Time(t))),
            SearchLimit::Nodes(n) => {
                self.set_budget(Some(Budget::Simulations(n.min(u32::MAX as u64) as u32)))
            }
            SearchLimit::Depth(_) => false,
        }
    }
    /// End every later search early, with the best move found so far, once
    /// `stop` is raised (None: never). Returns false if the player's
    /// searches cannot be stopped (they run to their budget).
    fn set_stop(&mut self, _stop: Option<Stop>) -> bool {
        false
    }
}

/// A limit a protocol sets on a player's searches ([`Player::set_limit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchLimit {
    /// Time a move.
    Time(std::time::Duration),
    /// Plies of an alpha-beta search.
    Depth(u32),
    /// Nodes (alpha-beta) or simulations (a tree search).
    Nodes(u64),
}

/// One candidate move of an analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisLine<M = Move> {
    /// The move.
    pub mv: M,
    /// The search's visits of the move (0 for alpha-beta).
    pub visits: u32,
    /// The network's prior of the move (0 without a network).
    pub prior: f32,
    /// Mean value for the side to move (win minus loss), if visited.
    pub q: Option<f32>,
}

/// A search's report: a tree search's candidate moves, most visited
/// first, and its estimate; an alpha-beta search's principal variation
/// and score.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis<M = Move> {
    /// The tree search's candidate moves (none for alpha-beta).
    pub lines: Vec<AnalysisLine<M>>,
    /// The move the player would play.
    pub best: M,
    /// Root estimate for the side to move: a tree search's, or a certain
    /// one where alpha-beta proved a win or loss; None for an alpha-beta
    /// estimate (its score is in `principal`).
    pub wdl: Option<Wdl>,
    /// Simulations of a tree search (0 for alpha-beta).
    pub simulations: u32,
    /// Alpha-beta's depth, score and principal variation.
    pub principal: Option<Principal<M>>,
}

/// What an alpha-beta search reports beside its move.
#[derive(Clone, Debug, PartialEq)]
pub struct Principal<M = Move> {
    /// The last depth completed.
    pub depth: u32,
    /// Nodes searched, all threads together.
    pub nodes: u64,
    /// The score of the best move for the side to move.
    pub score: Score,
    /// The line expected from the position, its first move the best.
    pub pv: Vec<M>,
}

impl<M: Copy> Principal<M> {
    /// The principal variation in the game's notation, each move written
    /// from the position before it, starting from `from`.
    pub fn pv_text<P: GamePosition<Move = M>>(&self, from: &P) -> Vec<String> {
        let mut pos = *from;
        self.pv
            .iter()
            .map(|m| {
                let text = pos.move_text(m);
                pos = pos.after(m);
                text
            })
            .collect()
    }
}

impl<M: Copy> From<SearchResult<M>> for Analysis<M> {
    fn from(r: SearchResult<M>) -> Analysis<M> {
        let mut lines: Vec<AnalysisLine<M>> = (0..r.moves.len())
            .map(|i| AnalysisLine {
                mv: r.moves[i],
                visits: r.visits[i],
                prior: r.priors[i],
                q: r.q[i],
            })
            .collect();
        lines.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
        Analysis {
            lines,
            best: r.best,
            wdl: Some(r.wdl),
            simulations: r.simulations,
            principal: None,
        }
    }
}

/// The searched move of a drawn position the exact values cover, or, if
/// they call it lost, the most visited move that keeps the draw (their own
/// best move if the search kept none).
fn drawing_move<P: GamePosition>(
    exact: &dyn ExactValues<P>,
    game: &Game<P>,
    r: &SearchResult<P::Move>,
) -> P::Move {
    let loses = |m: &P::Move| {
        let mut after = game.clone();
        after.play_unchecked(m);
        exact.exact(&after) == Some(Wdl::WIN)
    };
    if !loses(&r.best) {
        return r.best;
    }
    let mut order: Vec<usize> = (0..r.moves.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(r.visits[i]));
    order
        .into_iter()
        .map(|i| r.moves[i])
        .find(|m| !loses(m))
        .or_else(|| exact.best_move(game))
        .unwrap_or(r.best)
}

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    /// A player drawing its moves from `rng`.
    pub fn new(rng: Rng) -> Self {
        RandomPlayer { rng }
    }
}

impl<P: GamePosition> Player<P> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, game: &Game<P>) -> P::Move {
        let moves = game.position().legal_moves();
        moves[self.rng.random_range(0..moves.len())]
    }
}

/// MCTS guided by any evaluator; by default uniform priors and
/// random-rollout values (`mcts:` specs). The tree is kept between moves.
pub struct MctsPlayer<E: Evaluator<P> + Send, P: GamePosition> {
    name: String,
    tree: Option<Tree<P>>,
    params: SearchParams,
    /// The settings it was made with (`set_budget(None)` returns to them).
    default: SearchParams,
    eval: E,
    rng: Rng,
    /// Exact values (endgame tablebases): searched with, and a position
    /// they cover is played from them.
    exact: Option<Arc<dyn ExactValues<P>>>,
    /// The threads its searches run on ([`MctsPlayer::with_pool`]); None:
    /// the caller's, one leaf per evaluation.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// Ends a timed search early ([`Player::set_stop`]).
    stop: Option<Stop>,
}

impl<P: GamePosition> MctsPlayer<RolloutEvaluator, P> {
    /// Rollout MCTS averaging `rollouts` playouts per leaf.
    pub fn new(name: String, params: SearchParams, rollouts: u32, rng: Rng) -> Self {
        let mut eval = RolloutEvaluator::new(rng.clone());
        eval.rollouts = rollouts;
        MctsPlayer::with_evaluator(name, params, eval, rng)
    }
}

impl<P: GamePosition, E: Evaluator<P> + Send> MctsPlayer<E, P> {
    /// MCTS with the given evaluator (e.g. a network).
    pub fn with_evaluator(name: String, params: SearchParams, eval: E, rng: Rng) -> Self {
        MctsPlayer {
            name,
            tree: None,
            default: params.clone(),
            params,
            eval,
            rng,
            exact: None,
            pool: None,
            stop: None,
        }
    }

    /// The same player searching on the threads of `pool` (None: on the
    /// caller's thread): each round of its search takes as many leaves as
    /// the pool has threads, by descents with virtual loss, and evaluates
    /// them in one call, which the network splits over the threads (as
    /// lc0 and KataGo gather a batch from one tree).
    pub fn with_pool(mut self, pool: Option<Arc<rayon::ThreadPool>>) -> Self {
        self.pool = pool;
        self
    }

    /// The same player with exact values: at a won or lost position they
    /// cover it plays their best move, and its searches take the won and
    /// lost positions below the root as finished games. A drawn position
    /// is searched as any other ([`DecisiveOnly`]: an opponent may still
    /// go wrong there), and at one it never plays a move they call lost.
    pub fn with_exact_values(mut self, exact: Option<Arc<dyn ExactValues<P>>>) -> Self {
        self.exact = exact;
        self.tree = None;
        self
    }
}

impl<P: GamePosition, E: Evaluator<P> + Send> MctsPlayer<E, P> {
    /// The search settings.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    fn search(&mut self, game: &Game<P>) -> Option<SearchResult<P::Move>> {
        let stale = self
            .tree
            .as_ref()
            .is_none_or(|t| t.game().position() != game.position());
        if stale {
            let seed = self.rng.random::<u64>();
            let mut tree = Tree::new(game, self.params.clone(), rand::SeedableRng::seed_from_u64(seed));
            let decisive = self
                .exact
                .clone()
                .map(|e| Arc::new(DecisiveOnly(e)) as Arc<dyn ExactValues<P>>);
            tree.set_exact_values(decisive);
            self.tree = Some(tree);
        }
        let tree = self.tree.as_mut().expect("tree");
        let mut params = self.params.clone();
        let (eval, stop) = (&mut self.eval, self.stop.as_ref());
        match &self.pool {
            Some(pool) => {
                params.leaves_per_tree = params.leaves_per_tree.max(pool.current_num_threads() as u32);
                *tree.params_mut() = params;
                pool.install(|| search_until(tree, eval, stop))
            }
            None => {
                *tree.params_mut() = params;
                search_until(tree, eval, stop)
            }
        }
    }
}

impl<P: GamePosition, E: Evaluator<P> + Send> Player<P> for MctsPlayer<E, P> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &Game<P>) -> P::Move {
        let exact = self.exact.clone();
        let known = exact.as_ref().and_then(|e| e.exact(game));
        if known.is_some_and(|w| w != Wdl::DRAW) {
            if let Some(m) = exact.as_ref().and_then(|e| e.best_move(game)) {
                return m;
            }
        }
        let Some(r) = self.search(game) else {
            return game.position().legal_moves()[0];
        };
        match (exact, known) {
            (Some(e), Some(_)) => drawing_move(e.as_ref(), game, &r),
            _ => r.best,
        }
    }
    fn analyse(&mut self, game: &Game<P>) -> Option<Analysis<P::Move>> {
        if game.outcome().is_some() {
            return None;
        }
        self.search(game).map(Analysis::from)
    }
    fn set_budget(&mut self, budget: Option<Budget>) -> bool {
        match budget {
            Some(b) => self.params.set_budget(b),
            None => self.params = self.default.clone(),
        }
        true
    }
    /// A timed search ends early once `stop` is raised; a simulation
    /// budget runs to its end.
    fn set_stop(&mut self, stop: Option<Stop>) -> bool {
        self.stop = stop;
        true
    }
    fn observe(&mut self, mv: &P::Move) {
        if let Some(t) = self.tree.as_mut() {
            t.advance(mv);
        }
    }
}
