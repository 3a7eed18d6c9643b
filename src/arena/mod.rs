//! The arena: the [`Player`] trait, baseline bots (alpha-beta, random,
//! rollout MCTS), player spec strings, matches, tournaments and ratings.

pub mod alphabeta;
pub mod spec;
pub mod tournament;

pub use alphabeta::{AlphaBeta, Limits};
pub use spec::{builtin_factory, PlayerFactory, PlayerSpec, SpecError};
pub use tournament::{run_games, GameRecord, GameTask, MatchSettings, Standings};

use crate::game::{Game, Move};
use crate::mcts::{search, Evaluator, RolloutEvaluator, SearchParams, Tree};
use crate::util::Rng;
use rand::Rng as _;

/// Something that chooses moves. A player is created per game with a seed,
/// so that games are reproducible and can run in parallel.
pub trait Player: Send {
    /// The name shown in standings and records.
    fn name(&self) -> String;
    /// Choose a move in `game`, which is not over.
    fn choose(&mut self, game: &Game) -> Move;
    /// Told about every move played (its own and the opponent's), after it is played.
    fn observe(&mut self, _mv: &Move) {}
}

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    rng: Rng,
}

impl RandomPlayer {
    pub fn new(rng: Rng) -> Self {
        RandomPlayer { rng }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, game: &Game) -> Move {
        let moves = game.position().legal_moves();
        moves[self.rng.random_range(0..moves.len())]
    }
}

/// MCTS guided by any evaluator; by default uniform priors and
/// random-rollout values (`mcts:` specs). The tree is kept between moves.
pub struct MctsPlayer<E: Evaluator + Send = RolloutEvaluator> {
    name: String,
    tree: Option<Tree>,
    params: SearchParams,
    eval: E,
    rng: Rng,
}

impl MctsPlayer<RolloutEvaluator> {
    /// Rollout MCTS averaging `rollouts` playouts per leaf.
    pub fn new(name: String, params: SearchParams, rollouts: u32, rng: Rng) -> Self {
        let mut eval = RolloutEvaluator::new(rng.clone());
        eval.rollouts = rollouts;
        MctsPlayer::with_evaluator(name, params, eval, rng)
    }
}

impl<E: Evaluator + Send> MctsPlayer<E> {
    /// MCTS with the given evaluator (e.g. a network).
    pub fn with_evaluator(name: String, params: SearchParams, eval: E, rng: Rng) -> Self {
        MctsPlayer {
            name,
            tree: None,
            params,
            eval,
            rng,
        }
    }
}

impl<E: Evaluator + Send> Player for MctsPlayer<E> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &Game) -> Move {
        let stale = self
            .tree
            .as_ref()
            .is_none_or(|t| t.game().position() != game.position());
        if stale {
            let seed = self.rng.random::<u64>();
            self.tree = Some(Tree::new(
                game,
                self.params.clone(),
                rand::SeedableRng::seed_from_u64(seed),
            ));
        }
        let tree = self.tree.as_mut().expect("tree");
        search(tree, &mut self.eval, self.params.simulations)
            .map(|r| r.best)
            .unwrap_or_else(|| game.position().legal_moves()[0])
    }
    fn observe(&mut self, mv: &Move) {
        if let Some(t) = self.tree.as_mut() {
            t.advance(mv);
        }
    }
}
