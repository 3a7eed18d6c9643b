//! [`BatchEnv`]: many games stepped in parallel on every core, writing the
//! network's input planes, legal-action masks, rewards and episode flags
//! into buffers the caller owns (NumPy arrays in the Python package), for
//! reinforcement learning outside damone's own trainer.
//!
//! Actions are network policy indices (`net::encode`: the game's
//! [`BoardCells::policy_size`](crate::net::BoardCells::policy_size)), seen
//! from the side to move like the planes. A step validates every action
//! first, so an illegal one changes nothing. A game that ends is reset at
//! once (its reward and flags describe the ending; the planes and mask are
//! the new game's), with `opening_plies` random plies drawn from the game's
//! own seeded stream.

use crate::game::{DrawRules, Game, Outcome};
use crate::net::{policy_indices_into, Board, Inputs, Observation};
use crate::util::{rng_stream, Rng};
use rand::Rng as _;
use rayon::prelude::*;

/// How a [`BatchEnv`] plays its games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchOptions {
    /// Random plies played from the start at every reset (0: the start).
    pub opening_plies: u32,
    /// End an episode as truncated after this many plies (0: never; the
    /// game's own draw limits still end it as terminated).
    pub truncate_plies: u32,
    /// The input planes written for every game.
    pub inputs: Inputs,
    /// The game's draw limits.
    pub rules: DrawRules,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            opening_plies: 0,
            truncate_plies: 0,
            inputs: Inputs::Basic,
            rules: DrawRules::default(),
        }
    }
}

/// Where a reset or step writes, one entry (or row) per game, game-major.
pub struct BatchOutputs<'a> {
    /// `games x inputs.planes() x rows x cols` floats.
    pub planes: &'a mut [f32],
    /// `games x policy size` flags: the legal actions.
    pub masks: &'a mut [bool],
    /// `games x 2`: the step's reward for White, then for Black (+1 win,
    /// -1 loss, 0 otherwise).
    pub rewards: &'a mut [f32],
    /// The game ended by its rules with this step.
    pub terminated: &'a mut [bool],
    /// The game was cut at `truncate_plies` with this step.
    pub truncated: &'a mut [bool],
    /// The side to move (0 White, 1 Black) of the game now in the slot.
    pub to_play: &'a mut [u8],
}

/// Errors of [`BatchEnv::step`] and [`BatchEnv::new`].
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum BatchError {
    /// The actions do not match the number of games.
    #[error("expected {expected} actions, got {got}")]
    BatchSize {
        /// The number of games.
        expected: usize,
        /// The number of actions given.
        got: usize,
    },
    /// An action is not a legal move of its game.
    #[error("game {game}: action {action} is not a legal move (see the action mask)")]
    IllegalAction {
        /// The game's index.
        game: usize,
        /// The action given.
        action: i64,
    },
    /// A caller's buffer has the wrong length.
    #[error("the {buffer} buffer holds {got} values; {expected} expected")]
    Buffers {
        /// The buffer's name.
        buffer: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        got: usize,
    },
}

/// One game of the batch with what stepping it needs.
struct Slot<P: Board> {
    game: Game<P>,
    moves: Vec<P::Move>,
    /// Policy index of each legal move (same order).
    actions: Vec<u16>,
    /// The opening plies' stream.
    rng: Rng,
    /// The stream of [`BatchEnv::random_actions`].
    action_rng: Rng,
}

/// One game's part of the outputs.
struct SlotOut<'a> {
    planes: &'a mut [f32],
    mask: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut bool,
    truncated: &'a mut bool,
    to_play: &'a mut u8,
}

impl<P: Board> Slot<P> {
    fn new(start: P, rules: DrawRules, seed: u64, i: usize) -> Slot<P> {
        let (rng, action_rng) = streams(seed, i);
        Slot {
            game: Game::new(start, rules),
            moves: Vec::new(),
            actions: Vec::new(),
            rng,
            action_rng,
        }
    }

    /// A fresh game from `start` after the opening plies (the start itself
    /// if 100 tries all end the game during the opening).
    fn reset(&mut self, start: P, opts: &BatchOptions) {
        for _ in 0..100 {
            self.game = Game::new(start, opts.rules);
            if self.play_opening(opts.opening_plies) {
                return;
            }
        }
        self.game = Game::new(start, opts.rules);
        self.refresh_moves();
    }

    /// Play `plies` random plies; false if the game ended on the way.
    fn play_opening(&mut self, plies: u32) -> bool {
        for _ in 0..plies {
            self.refresh_moves();
            if self.game.outcome_with(&self.moves).is_some() {
                return false;
            }
            let m = self.moves[self.rng.random_range(0..self.moves.len())];
            self.game.play_unchecked(&m);
        }
        self.refresh_moves();
        self.game.outcome_with(&self.moves).is_none()
    }

    fn refresh_moves(&mut self) {
        self.game.position().legal_moves_into(&mut self.moves);
        policy_indices_into(self.game.position(), &self.moves, &mut self.actions);
    }

    fn move_of(&self, action: i64) -> Option<usize> {
        let a = u16::try_from(action).ok()?;
        self.actions.iter().position(|&x| x == a)
    }

    /// Play the move at `k`; the outcome if the game ended by its rules,
    /// and whether it was cut at the truncation limit.
    fn play(&mut self, k: usize, opts: &BatchOptions) -> (Option<Outcome>, bool) {
        let m = self.moves[k];
        self.game.play_unchecked(&m);
        self.refresh_moves();
        let outcome = self.game.outcome_with(&self.moves);
        let cut =
            outcome.is_none() && opts.truncate_plies > 0 && self.game.ply() as u32 >= opts.truncate_plies;
        (outcome, cut)
    }

    fn write(&self, opts: &BatchOptions, out: &mut SlotOut<'_>) {
        Observation::of_game(&self.game, opts.inputs).write_planes(opts.inputs, out.planes);
        out.mask.fill(false);
        for &a in &self.actions {
            out.mask[a as usize] = true;
        }
        *out.to_play = self.game.position().side_to_move() as u8;
    }
}

/// Game `i`'s opening and action streams of `seed`.
fn streams(seed: u64, i: usize) -> (Rng, Rng) {
    (
        rng_stream(seed, "batch-env", i as u64),
        rng_stream(seed, "batch-env-actions", i as u64),
    )
}

/// N games of one game type, stepped in parallel (see the module docs).
pub struct BatchEnv<P: Board> {
    slots: Vec<Slot<P>>,
    start: P,
    opts: BatchOptions,
}

impl<P: Board> BatchEnv<P> {
    /// `n` games from `start`, their openings drawn from streams of `seed`.
    /// Call [`BatchEnv::reset`] before the first step.
    pub fn new(n: usize, start: P, opts: BatchOptions, seed: u64) -> BatchEnv<P> {
        BatchEnv {
            slots: (0..n).map(|i| Slot::new(start, opts.rules, seed, i)).collect(),
            start,
            opts,
        }
    }

    /// Number of games.
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    /// True with no games.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
    /// The options the games are played with.
    pub fn options(&self) -> &BatchOptions {
        &self.opts
    }
    /// Floats of one game's planes.
    pub fn observation_len(&self) -> usize {
        self.opts.inputs.planes() * P::CELLS.area()
    }
    /// Actions of one game: the policy size of its board.
    pub fn action_count(&self) -> usize {
        P::CELLS.policy_size()
    }
    /// The game in slot `i`.
    pub fn game(&self, i: usize) -> &Game<P> {
        &self.slots[i].game
    }
    /// The legal moves of slot `i` and their actions, in the same order.
    pub fn legal(&self, i: usize) -> (&[P::Move], &[u16]) {
        (&self.slots[i].moves, &self.slots[i].actions)
    }

    /// Start every game afresh (re-seeding the openings if `seed` is
    /// given) and write their planes and masks; rewards and flags cleared.
    pub fn reset(&mut self, seed: Option<u64>, out: BatchOutputs<'_>) -> Result<(), BatchError> {
        self.check(&out)?;
        let (start, opts) = (self.start, self.opts);
        self.for_each(out, |i, slot, o| {
            if let Some(s) = seed {
                (slot.rng, slot.action_rng) = streams(s, i);
            }
            slot.reset(start, &opts);
            o.rewards.fill(0.0);
            *o.terminated = false;
            *o.truncated = false;
            slot.write(&opts, o);
        });
        Ok(())
    }

    /// Play one action in every game (see the module docs).
    pub fn step(&mut self, actions: &[i64], out: BatchOutputs<'_>) -> Result<(), BatchError> {
        self.check(&out)?;
        if actions.len() != self.len() {
            return Err(BatchError::BatchSize {
                expected: self.len(),
                got: actions.len(),
            });
        }
        let picks: Vec<usize> = self
            .slots
            .par_iter()
            .zip(actions.par_iter())
            .enumerate()
            .map(|(game, (slot, &action))| {
                slot.move_of(action)
                    .ok_or(BatchError::IllegalAction { game, action })
            })
            .collect::<Result<_, _>>()?;
        let (start, opts) = (self.start, self.opts);
        self.for_each(out, |i, slot, o| {
            let (outcome, cut) = slot.play(picks[i], &opts);
            o.rewards.fill(0.0);
            if let Some(Outcome { winner: Some(w), .. }) = outcome {
                o.rewards[w as usize] = 1.0;
                o.rewards[w.opposite() as usize] = -1.0;
            }
            *o.terminated = outcome.is_some();
            *o.truncated = cut;
            if outcome.is_some() || cut {
                slot.reset(start, &opts);
            }
            slot.write(&opts, o);
        });
        Ok(())
    }

    /// A uniformly random legal action of every game into `out`, each
    /// game drawing from its own seeded stream.
    pub fn random_actions(&mut self, out: &mut [i64]) -> Result<(), BatchError> {
        if out.len() != self.len() {
            return Err(BatchError::BatchSize {
                expected: self.len(),
                got: out.len(),
            });
        }
        self.slots
            .par_iter_mut()
            .zip(out.par_iter_mut())
            .with_min_len(64)
            .for_each(|(slot, a)| {
                *a = slot.actions[slot.action_rng.random_range(0..slot.actions.len())] as i64
            });
        Ok(())
    }

    fn check(&self, out: &BatchOutputs<'_>) -> Result<(), BatchError> {
        let n = self.len();
        let buffers = [
            ("planes", out.planes.len(), n * self.observation_len()),
            ("masks", out.masks.len(), n * self.action_count()),
            ("rewards", out.rewards.len(), 2 * n),
            ("terminated", out.terminated.len(), n),
            ("truncated", out.truncated.len(), n),
            ("to_play", out.to_play.len(), n),
        ];
        match buffers.into_iter().find(|&(_, got, want)| got != want) {
            Some((buffer, got, expected)) => Err(BatchError::Buffers {
                buffer,
                expected,
                got,
            }),
            None => Ok(()),
        }
    }

    /// Run `f` on every slot with its part of the outputs, in parallel.
    fn for_each(&mut self, out: BatchOutputs<'_>, f: impl Fn(usize, &mut Slot<P>, &mut SlotOut<'_>) + Sync) {
        let (k, actions) = (self.observation_len(), self.action_count());
        self.slots
            .par_iter_mut()
            .zip(out.planes.par_chunks_mut(k))
            .zip(out.masks.par_chunks_mut(actions))
            .zip(out.rewards.par_chunks_mut(2))
            .zip(out.terminated.par_iter_mut())
            .zip(out.truncated.par_iter_mut())
            .zip(out.to_play.par_iter_mut())
            .enumerate()
            .with_min_len(16)
            .for_each(
                |(i, ((((((slot, planes), mask), rewards), terminated), truncated), to_play))| {
                    let mut o = SlotOut {
                        planes,
                        mask,
                        rewards,
                        terminated,
                        truncated,
                        to_play,
                    };
                    f(i, slot, &mut o);
                },
            );
    }
}
