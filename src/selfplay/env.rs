//! The vectorised environment: N games stepped together, the standard RL
//! interface (observations, action masks, `step`), with seeded random
//! opening plies at every reset.

use crate::game::{DrawRules, EndReason, Game, GamePosition, Outcome};
use crate::util::{rng_stream, Rng};
use rand::Rng as _;

/// Turns games into network inputs and moves into action indices; supplied
/// by the caller so that this module does not depend on the network.
pub trait Encoder<P: GamePosition> {
    /// Floats per observation.
    fn observation_len(&self) -> usize;
    /// Size of the action space.
    fn action_space(&self) -> usize;
    /// Write the observation of `game` into `out`.
    fn encode(&self, game: &Game<P>, out: &mut [f32]);
    /// Action index of each legal move.
    fn action_indices(&self, pos: &P, moves: &[P::Move]) -> Vec<usize>;
}

/// What one `step` returns.
#[derive(Clone, Debug)]
pub struct StepResult<P: GamePosition> {
    /// Reward for the player who just moved: 1 win, -1 loss, 0 otherwise.
    pub rewards: Vec<f32>,
    /// The game ended with this step (and was reset).
    pub dones: Vec<bool>,
    /// The outcome of each game that ended.
    pub outcomes: Vec<Option<Outcome>>,
    /// The finished games (before reset), for records.
    pub finished: Vec<Option<Game<P>>>,
}

/// Errors from [`VecEnv::step`].
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EnvError {
    /// The actions do not match the number of games.
    #[error("expected {expected} actions, got {got}")]
    BatchSize {
        /// The number of games.
        expected: usize,
        /// The number of actions given.
        got: usize,
    },
    /// An action is not a legal move of its game.
    #[error("game {game}: action {action} is not a legal move")]
    IllegalAction {
        /// The game's index.
        game: usize,
        /// The action given.
        action: usize,
    },
}

/// N games stepped together, each with its own seeded RNG (for the random
/// opening plies played at every reset).
pub struct VecEnv<P: GamePosition> {
    games: Vec<Game<P>>,
    moves: Vec<Vec<P::Move>>,
    rngs: Vec<Rng>,
    start: P,
    rules: DrawRules,
    opening_plies: u32,
    /// Games started so far (including the current ones).
    pub episodes: u64,
}

impl<P: GamePosition> VecEnv<P> {
    /// `n` games from `start`, each opened with `opening_plies` random plies.
    pub fn new(n: usize, start: P, rules: DrawRules, opening_plies: u32, seed: u64) -> VecEnv<P> {
        let mut env = VecEnv {
            games: Vec::with_capacity(n),
            moves: Vec::with_capacity(n),
            rngs: (0..n).map(|i| rng_stream(seed, "vecenv", i as u64)).collect(),
            start,
            rules,
            opening_plies,
            episodes: 0,
        };
        for i in 0..n {
            let g = env.fresh(i);
            env.moves.push(g.position().legal_moves());
            env.games.push(g);
        }
        env
    }

    fn fresh(&mut self, i: usize) -> Game<P> {
        self.episodes += 1;
        for _ in 0..100 {
            let mut g = Game::new(self.start, self.rules);
            for _ in 0..self.opening_plies {
                let ms = g.position().legal_moves();
                if g.outcome_with(&ms).is_some() {
                    break;
                }
                let m = ms[self.rngs[i].random_range(0..ms.len())];
                g.play_unchecked(&m);
            }
            if g.outcome().is_none() {
                return g;
            }
        }
        Game::new(self.start, self.rules)
    }

    /// Re-seed the random streams of the opening plies (per game).
    pub fn reseed(&mut self, seed: u64) {
        for (i, r) in self.rngs.iter_mut().enumerate() {
            *r = rng_stream(seed, "vecenv", i as u64);
        }
    }

    /// Replace game `i` (e.g. a game in flight restored from a checkpoint).
    pub fn set_game(&mut self, i: usize, game: Game<P>) {
        self.moves[i] = game.position().legal_moves();
        self.games[i] = game;
    }

    /// Play a (legal) move in game `i`. If that ends the game, a fresh game
    /// takes its place and the outcome and the finished game are returned.
    pub fn step_game(&mut self, i: usize, m: &P::Move) -> Option<(Outcome, Game<P>)> {
        self.games[i].play_unchecked(m);
        let ms = self.games[i].position().legal_moves();
        match self.games[i].outcome_with(&ms) {
            Some(o) => {
                let g = self.fresh(i);
                self.moves[i] = g.position().legal_moves();
                Some((o, std::mem::replace(&mut self.games[i], g)))
            }
            None => {
                self.moves[i] = ms;
                None
            }
        }
    }

    /// Number of games.
    pub fn len(&self) -> usize {
        self.games.len()
    }
    /// True with no games.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }
    /// The games.
    pub fn games(&self) -> &[Game<P>] {
        &self.games
    }
    /// Legal moves of game `i`.
    pub fn legal_moves(&self, i: usize) -> &[P::Move] {
        &self.moves[i]
    }

    /// Observations of all games, `len() * enc.observation_len()` floats.
    pub fn observations(&self, enc: &dyn Encoder<P>) -> Vec<f32> {
        let k = enc.observation_len();
        let mut out = vec![0.0; self.games.len() * k];
        for (g, chunk) in self.games.iter().zip(out.chunks_mut(k)) {
            enc.encode(g, chunk);
        }
        out
    }

    /// Legal-action masks of all games, `len() * enc.action_space()` flags.
    pub fn action_masks(&self, enc: &dyn Encoder<P>) -> Vec<bool> {
        let a = enc.action_space();
        let mut out = vec![false; self.games.len() * a];
        for (i, g) in self.games.iter().enumerate() {
            for j in enc.action_indices(g.position(), &self.moves[i]) {
                out[i * a + j] = true;
            }
        }
        out
    }

    /// Step every game by an action index (see [`Encoder::action_indices`]).
    pub fn step(&mut self, enc: &dyn Encoder<P>, actions: &[usize]) -> Result<StepResult<P>, EnvError> {
        if actions.len() != self.games.len() {
            return Err(EnvError::BatchSize {
                expected: self.games.len(),
                got: actions.len(),
            });
        }
        let mut moves = Vec::with_capacity(actions.len());
        for (i, &a) in actions.iter().enumerate() {
            let idx = enc.action_indices(self.games[i].position(), &self.moves[i]);
            let k = idx
                .iter()
                .position(|&x| x == a)
                .ok_or(EnvError::IllegalAction { game: i, action: a })?;
            moves.push(self.moves[i][k]);
        }
        Ok(self.step_moves(&moves))
    }

    /// Step every game by a move (assumed legal); finished games are reset.
    pub fn step_moves(&mut self, moves: &[P::Move]) -> StepResult<P> {
        let some: Vec<Option<P::Move>> = moves.iter().copied().map(Some).collect();
        self.step_some(&some)
    }

    /// Step the games that are given a move; the others stay as they are.
    pub fn step_some(&mut self, moves: &[Option<P::Move>]) -> StepResult<P> {
        let n = self.games.len();
        let mut r = StepResult {
            rewards: vec![0.0; n],
            dones: vec![false; n],
            outcomes: vec![None; n],
            finished: vec![None; n],
        };
        for (i, m) in moves.iter().enumerate() {
            let Some(m) = m else { continue };
            let mover = self.games[i].position().side_to_move();
            if let Some((o, g)) = self.step_game(i, m) {
                r.rewards[i] = match o.winner {
                    Some(w) if w == mover => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                };
                r.dones[i] = true;
                r.outcomes[i] = Some(o);
                r.finished[i] = Some(g);
            }
        }
        r
    }

    /// End game `i` by resignation of the side to move.
    pub fn resign(&mut self, i: usize) -> (Outcome, Game<P>) {
        let side = self.games[i].position().side_to_move();
        self.end_game(
            i,
            Outcome {
                winner: Some(side.opposite()),
                reason: EndReason::Resignation,
            },
        )
    }

    /// End game `i` now with outcome `o` (a resignation, an adjudication);
    /// a fresh game takes its place. Returns `o` and the finished game.
    pub fn end_game(&mut self, i: usize, o: Outcome) -> (Outcome, Game<P>) {
        let old = std::mem::replace(&mut self.games[i], Game::new(self.start, self.rules));
        let g = self.fresh(i);
        self.moves[i] = g.position().legal_moves();
        self.games[i] = g;
        (o, old)
    }
}
