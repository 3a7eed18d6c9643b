//! Self-play: the vectorised environment [`VecEnv`] (many games stepped in
//! lock-step, the standard RL interface) and the self-play driver that runs
//! one search tree per game and sends the leaves of all trees to the
//! evaluator in one batch.

use crate::data::Sample;
use crate::game::{Color, DrawRules, EndReason, Game, Move, MoveList, Outcome, Position};
use crate::mcts::{search_batched, wdl_of_outcome, Evaluator, SearchParams, Tree};
use crate::util::{rng_stream, Rng};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// Turns games into network inputs and moves into action indices; supplied
/// by the caller so that this module does not depend on the network.
pub trait Encoder {
    /// Floats per observation.
    fn observation_len(&self) -> usize;
    /// Size of the action space.
    fn action_space(&self) -> usize;
    /// Write the observation of `game` into `out`.
    fn encode(&self, game: &Game, out: &mut [f32]);
    /// Action index of each legal move.
    fn action_indices(&self, pos: &Position, moves: &[Move]) -> Vec<usize>;
}

/// What one `step` returns.
#[derive(Clone, Debug, Default)]
pub struct StepResult {
    /// Reward for the player who just moved: 1 win, -1 loss, 0 otherwise.
    pub rewards: Vec<f32>,
    /// The game ended with this step (and was reset).
    pub dones: Vec<bool>,
    /// The outcome of each game that ended.
    pub outcomes: Vec<Option<Outcome>>,
    /// The finished games (before reset), for records.
    pub finished: Vec<Option<Game>>,
}

/// Errors from [`VecEnv::step`].
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EnvError {
    #[error("expected {expected} actions, got {got}")]
    BatchSize { expected: usize, got: usize },
    #[error("game {game}: action {action} is not a legal move")]
    IllegalAction { game: usize, action: usize },
}

/// N games stepped together, each with its own seeded RNG (for the random
/// opening plies played at every reset).
pub struct VecEnv {
    games: Vec<Game>,
    moves: Vec<MoveList>,
    rngs: Vec<Rng>,
    start: Position,
    rules: DrawRules,
    opening_plies: u32,
    /// Games started so far (including the current ones).
    pub episodes: u64,
}

impl VecEnv {
    /// `n` games from `start`, each opened with `opening_plies` random plies.
    pub fn new(n: usize, start: Position, rules: DrawRules, opening_plies: u32, seed: u64) -> VecEnv {
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

    fn fresh(&mut self, i: usize) -> Game {
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

    /// Number of games.
    pub fn len(&self) -> usize {
        self.games.len()
    }
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }
    /// The games.
    pub fn games(&self) -> &[Game] {
        &self.games
    }
    /// Legal moves of game `i`.
    pub fn legal_moves(&self, i: usize) -> &[Move] {
        &self.moves[i]
    }

    /// Observations of all games, `len() * enc.observation_len()` floats.
    pub fn observations(&self, enc: &dyn Encoder) -> Vec<f32> {
        let k = enc.observation_len();
        let mut out = vec![0.0; self.games.len() * k];
        for (g, chunk) in self.games.iter().zip(out.chunks_mut(k)) {
            enc.encode(g, chunk);
        }
        out
    }

    /// Legal-action masks of all games, `len() * enc.action_space()` flags.
    pub fn action_masks(&self, enc: &dyn Encoder) -> Vec<bool> {
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
    pub fn step(&mut self, enc: &dyn Encoder, actions: &[usize]) -> Result<StepResult, EnvError> {
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
    pub fn step_moves(&mut self, moves: &[Move]) -> StepResult {
        let some: Vec<Option<Move>> = moves.iter().copied().map(Some).collect();
        self.step_some(&some)
    }

    /// Step the games that are given a move; the others stay as they are.
    pub fn step_some(&mut self, moves: &[Option<Move>]) -> StepResult {
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
            self.games[i].play_unchecked(m);
            let ms = self.games[i].position().legal_moves();
            if let Some(o) = self.games[i].outcome_with(&ms) {
                self.finish(i, o, mover, &mut r);
            } else {
                self.moves[i] = ms;
            }
        }
        r
    }

    /// End game `i` by resignation of the side to move.
    pub fn resign(&mut self, i: usize) -> (Outcome, Game) {
        let side = self.games[i].position().side_to_move();
        let o = Outcome {
            winner: Some(side.opposite()),
            reason: EndReason::Resignation,
        };
        let old = std::mem::replace(&mut self.games[i], Game::new(self.start, self.rules));
        let g = self.fresh(i);
        self.moves[i] = g.position().legal_moves();
        self.games[i] = g;
        (o, old)
    }

    fn finish(&mut self, i: usize, o: Outcome, mover: Color, r: &mut StepResult) {
        r.rewards[i] = match o.winner {
            Some(w) if w == mover => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        };
        r.dones[i] = true;
        r.outcomes[i] = Some(o);
        let g = self.fresh(i);
        self.moves[i] = g.position().legal_moves();
        r.finished[i] = Some(std::mem::replace(&mut self.games[i], g));
    }
}

/// Self-play settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Games finished per training iteration.
    pub games_per_iteration: u32,
    /// Games played at once (their leaves are batched together).
    pub parallel_games: u32,
    /// Simulations of a full search (its position becomes a training sample).
    pub full_sims: u32,
    /// Simulations of a cheap search (playout cap randomisation: no sample).
    pub cheap_sims: u32,
    /// Probability that a move gets a full search.
    pub full_search_prob: f32,
    /// Random plies at the start of each game.
    pub opening_plies: u32,
    /// Resign when the searched loss probability exceeds this (1 = never).
    pub resign_threshold: f32,
    /// Share of games that never resign, to measure false positives.
    pub no_resign_fraction: f32,
    /// No resignation before this ply.
    pub resign_min_ply: u32,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games_per_iteration: 64,
            parallel_games: 64,
            full_sims: 64,
            cheap_sims: 16,
            full_search_prob: 0.3,
            opening_plies: 2,
            resign_threshold: 0.95,
            no_resign_fraction: 0.2,
            resign_min_ply: 20,
        }
    }
}

impl SelfPlayConfig {
    /// Check every value; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        let k = "selfplay.";
        if self.games_per_iteration == 0 {
            return Err(format!("{k}games_per_iteration must be at least 1"));
        }
        if self.parallel_games == 0 {
            return Err(format!("{k}parallel_games must be at least 1"));
        }
        if self.full_sims == 0 || self.cheap_sims == 0 {
            return Err(format!("{k}full_sims and {k}cheap_sims must be at least 1"));
        }
        for (name, v) in [
            ("full_search_prob", self.full_search_prob),
            ("resign_threshold", self.resign_threshold),
            ("no_resign_fraction", self.no_resign_fraction),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("{k}{name} must be in [0, 1], got {v}"));
            }
        }
        if self.full_search_prob == 0.0 {
            return Err(format!(
                "{k}full_search_prob must be above 0 (no samples would be made)"
            ));
        }
        Ok(())
    }
}

/// Counters of one self-play run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfPlayStats {
    pub games: u32,
    pub plies: u64,
    pub samples: u64,
    pub white_wins: u32,
    pub black_wins: u32,
    pub draws: u32,
    pub resignations: u32,
    /// Games that were not allowed to resign in which a side crossed the
    /// threshold.
    pub resign_checks: u32,
    /// ... and of those, the games that side did not lose.
    pub resign_false_positives: u32,
}

struct Slot {
    tree: Option<Tree>,
    pending: Vec<(Sample, Color)>,
    may_resign: bool,
    would_resign: Option<Color>,
    active: bool,
}

/// Play `cfg.games_per_iteration` games in `env` (whose size is the number
/// of parallel games) and return the samples of their full searches.
pub fn run_selfplay(
    env: &mut VecEnv,
    search: &SearchParams,
    cfg: &SelfPlayConfig,
    evaluator: &mut dyn Evaluator,
    rng: &mut Rng,
    mut on_game: impl FnMut(&SelfPlayStats),
) -> (Vec<Sample>, SelfPlayStats) {
    let n = env.len();
    let target = cfg.games_per_iteration;
    let mut started = n.min(target as usize) as u32;
    let mut slots: Vec<Slot> = (0..n)
        .map(|i| Slot {
            tree: None,
            pending: Vec::new(),
            may_resign: rng.random::<f32>() >= cfg.no_resign_fraction,
            would_resign: None,
            active: i < target as usize,
        })
        .collect();
    let mut stats = SelfPlayStats::default();
    let mut out = Vec::new();
    let mut full = vec![false; n];
    while slots.iter().any(|s| s.active) {
        for (i, s) in slots.iter_mut().enumerate() {
            if !s.active {
                continue;
            }
            let g = &env.games()[i];
            let tree = s
                .tree
                .get_or_insert_with(|| Tree::new(g, search.clone(), rng_stream(rng.random(), "tree", 0)));
            full[i] = rng.random::<f32>() < cfg.full_search_prob;
            tree.params_mut().dirichlet_epsilon = if full[i] { search.dirichlet_epsilon } else { 0.0 };
            tree.start(if full[i] { cfg.full_sims } else { cfg.cheap_sims });
        }
        {
            let mut trees: Vec<&mut Tree> = slots
                .iter_mut()
                .filter(|s| s.active)
                .filter_map(|s| s.tree.as_mut())
                .collect();
            search_batched(&mut trees, evaluator);
        }
        let mut moves = Vec::with_capacity(n);
        let mut resign = vec![false; n];
        for (i, s) in slots.iter_mut().enumerate() {
            let g = &env.games()[i];
            let result = if s.active {
                s.tree.as_mut().and_then(|t| t.result())
            } else {
                None
            };
            let Some(r) = result else {
                // Inactive slot: its game stays where it is.
                moves.push(None);
                continue;
            };
            let side = g.position().side_to_move();
            if full[i] {
                let limit = g.rules().no_progress_plies.max(1) as f32;
                s.pending.push((
                    Sample {
                        pos: *g.position(),
                        repeated: g.repetitions() > 1,
                        no_progress: (g.position().no_progress() as f32 / limit).min(1.0),
                        policy: r.policy.clone(),
                        z: [0.0; 3],
                        q: r.wdl,
                    },
                    side,
                ));
            }
            if cfg.resign_threshold < 1.0
                && g.ply() as u32 >= cfg.resign_min_ply
                && r.wdl[2] > cfg.resign_threshold
            {
                if s.may_resign {
                    resign[i] = true;
                } else if s.would_resign.is_none() {
                    s.would_resign = Some(side);
                }
            }
            moves.push(Some(r.best));
        }
        // Resignations first (they end the game before the move).
        let mut ended: Vec<(usize, Outcome, Game)> = Vec::new();
        for i in 0..n {
            if resign[i] {
                let (o, g) = env.resign(i);
                moves[i] = None;
                ended.push((i, o, g));
            }
        }
        let step = env.step_some(&moves);
        for i in 0..n {
            if resign[i] || moves[i].is_none() {
                continue;
            }
            stats.plies += 1;
            if step.dones[i] {
                let o = step.outcomes[i].expect("outcome of a finished game");
                let g = step.finished[i].clone().expect("finished game");
                ended.push((i, o, g));
            } else if let (Some(t), Some(m)) = (slots[i].tree.as_mut(), moves[i]) {
                t.advance(&m);
            }
        }
        for (i, o, _g) in ended {
            let s = &mut slots[i];
            for (mut sample, side) in s.pending.drain(..) {
                sample.z = wdl_of_outcome(&o, side);
                out.push(sample);
                stats.samples += 1;
            }
            stats.games += 1;
            match o.winner {
                Some(Color::White) => stats.white_wins += 1,
                Some(Color::Black) => stats.black_wins += 1,
                None => stats.draws += 1,
            }
            if o.reason == EndReason::Resignation {
                stats.resignations += 1;
            }
            if let Some(c) = s.would_resign {
                stats.resign_checks += 1;
                if o.winner != Some(c.opposite()) {
                    stats.resign_false_positives += 1;
                }
            }
            s.tree = None;
            s.would_resign = None;
            s.may_resign = rng.random::<f32>() >= cfg.no_resign_fraction;
            if started < target {
                started += 1;
            } else {
                s.active = false;
            }
            on_game(&stats);
        }
    }
    (out, stats)
}
