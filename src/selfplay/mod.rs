//! Self-play: the vectorised environment [`VecEnv`] (many games, the
//! standard RL interface), and [`SelfPlay`], the driver that runs one search
//! tree per game and never waits.
//!
//! ## Self-play that never waits
//!
//! Every game's tree runs its own budget (a full search, whose position
//! becomes a training sample, or a cheap one, by playout-cap
//! randomisation; with `cheap_samples` both make samples) and plays its
//! move as soon as its search ends. Each round
//! gathers up to `leaves_per_tree` leaves from every tree, at whatever move
//! it is on, and sends them to the evaluator in one batch, so the batch
//! stays full. An iteration ends when its quota of games has finished; the
//! games still running carry on into the next iteration with the new
//! network (their searches in progress are dropped, since their values came
//! from the old network, and searched again).
//!
//! The games in flight are part of a checkpoint ([`SelfPlay::to_bytes`]):
//! their moves, their pending samples and their resignation state. Every
//! random draw of an iteration comes from streams seeded by that
//! iteration's seed, so a resumed run continues exactly.

use crate::data::{AuxTargets, Sample};
use crate::game::{Color, DrawRules, EndReason, Game, Outcome};
use crate::mcts::{
    apply_all, evaluate_leaves, leaf_requests, take_leaves_all, EvalCache, Evaluator, ExactValues,
    SearchParams, Tree, Wdl,
};
use crate::net::policy_indices;
use crate::net::Board;
use crate::util::stop::Stop;
use std::sync::Arc;

mod batch;
mod env;
mod inflight;
use crate::util::range::{check, Bounds};
use crate::util::{rng_stream, Rng};
pub use batch::{BatchEnv, BatchError, BatchOptions, BatchOutputs};
pub use env::{Encoder, EnvError, StepResult, VecEnv};
pub use inflight::INFLIGHT_VERSION;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The search value a training sample keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchValue {
    /// The root's mean over every simulation. With Gumbel's sequential
    /// halving most simulations go to moves that are then dropped, so it
    /// leans towards the value of weaker moves.
    Root,
    /// The chosen move's value (its exact result, else its child's mean):
    /// the value of the move the search would play.
    Move,
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
    /// Simulations of a cheap search (playout cap randomisation: no sample,
    /// unless `cheap_samples`).
    pub cheap_sims: u32,
    /// Probability that a move gets a full search.
    pub full_search_prob: f32,
    /// Cheap searches make training samples too (their completed-Q policy
    /// target from `cheap_sims` simulations, with 0 for the moves the
    /// tactical check left out), so every searched position is a sample.
    pub cheap_samples: bool,
    /// Which of the search's values a sample keeps as its search value
    /// (the part `train.value_q_weight` mixes into the value target).
    pub search_value: SearchValue,
    /// Random plies at the start of each game.
    pub opening_plies: u32,
    /// Resign when the searched loss probability exceeds this (1 = never).
    pub resign_threshold: f32,
    /// Share of games that never resign, to measure false positives.
    pub no_resign_fraction: f32,
    /// No resignation before this ply.
    pub resign_min_ply: u32,
    /// Play a move at once, with no search, network call or training
    /// sample, where it is the only legal one (forced captures are common
    /// in draughts).
    pub skip_forced: bool,
    /// Entries of the evaluation cache (positions met again are not sent
    /// to the network; 0 = no cache). It is emptied at each iteration's
    /// start, when the network changes.
    pub eval_cache: u32,
    /// Growing simulation counts: full searches start at this many
    /// simulations (0 = no growth) and grow linearly to `full_sims` over
    /// the first `sims_ramp_steps` steps of the schedule (training steps,
    /// or with a planned run length the same share of `train.schedule_steps`
    /// stretched to it); cheap searches keep their ratio to full ones
    /// ([`SelfPlayConfig::at_step`]).
    pub full_sims_start: u32,
    /// Training steps over which full searches grow from `full_sims_start` to `full_sims`.
    pub sims_ramp_steps: u64,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games_per_iteration: 64,
            parallel_games: 64,
            full_sims: 48,
            cheap_sims: 12,
            full_search_prob: 0.35,
            cheap_samples: true,
            search_value: SearchValue::Root,
            opening_plies: 2,
            resign_threshold: 0.97,
            no_resign_fraction: 0.2,
            resign_min_ply: 20,
            skip_forced: true,
            eval_cache: 131_072,
            full_sims_start: 0,
            sims_ramp_steps: 0,
        }
    }
}

impl SelfPlayConfig {
    /// Check every value; the error names the key.
    pub fn validate(&self) -> Result<(), String> {
        let k = "selfplay.";
        check(
            "selfplay.games_per_iteration",
            self.games_per_iteration,
            Bounds::AtLeast(1),
        )?;
        check("selfplay.parallel_games", self.parallel_games, Bounds::AtLeast(1))?;
        check("selfplay.full_sims", self.full_sims, Bounds::AtLeast(1))?;
        check("selfplay.cheap_sims", self.cheap_sims, Bounds::AtLeast(1))?;
        check(
            "selfplay.full_search_prob",
            self.full_search_prob,
            Bounds::Closed(0.0, 1.0),
        )?;
        check(
            "selfplay.resign_threshold",
            self.resign_threshold,
            Bounds::Closed(0.0, 1.0),
        )?;
        check(
            "selfplay.no_resign_fraction",
            self.no_resign_fraction,
            Bounds::Closed(0.0, 1.0),
        )?;
        if self.full_sims_start > self.full_sims {
            return Err(format!(
                "{k}full_sims_start ({}) must not exceed {k}full_sims ({})",
                self.full_sims_start, self.full_sims
            ));
        }
        if self.eval_cache > 1 << 24 {
            return Err(format!(
                "{k}eval_cache must be at most {} entries, got {}",
                1 << 24,
                self.eval_cache
            ));
        }
        if self.full_search_prob == 0.0 && !self.cheap_samples {
            return Err(format!(
                "{k}full_search_prob must be above 0 unless {k}cheap_samples is true (no samples would be made)"
            ));
        }
        Ok(())
    }

    /// The settings self-play uses at schedule step `step`
    /// (`TrainParams::schedule_step`): with growing simulation counts,
    /// `full_sims` goes linearly from `full_sims_start` (at step 0) to its
    /// own value (at `sims_ramp_steps`), and `cheap_sims` keeps its ratio
    /// to it (at least 1); otherwise the settings as they are.
    pub fn at_step(&self, step: f64) -> SelfPlayConfig {
        let mut c = self.clone();
        if self.full_sims_start == 0 || self.sims_ramp_steps == 0 || step >= self.sims_ramp_steps as f64 {
            return c;
        }
        let f = step.max(0.0) / self.sims_ramp_steps as f64;
        let (a, b) = (self.full_sims_start as f64, self.full_sims as f64);
        c.full_sims = (a + (b - a) * f).round().max(1.0) as u32;
        c.cheap_sims = (self.cheap_sims as f64 * c.full_sims as f64 / b).round().max(1.0) as u32;
        c
    }
}

/// Counters of one iteration of self-play.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfPlayStats {
    /// Games finished.
    pub games: u32,
    /// Moves played (in finished games and in games still running).
    pub plies: u64,
    /// Training samples made.
    pub samples: u64,
    /// Games White won.
    pub white_wins: u32,
    /// Games Black won.
    pub black_wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games ended by resignation.
    pub resignations: u32,
    /// Games that were not allowed to resign in which a side crossed the
    /// threshold.
    pub resign_checks: u32,
    /// ... and of those, the games that side did not lose.
    pub resign_false_positives: u32,
    /// Positions sent to the evaluator (the network).
    pub evals: u64,
    /// Positions the search asked for that the evaluation cache answered.
    pub cache_hits: u64,
    /// Evaluator calls.
    pub batches: u64,
    /// Smallest and largest evaluator call.
    pub min_batch: u32,
    /// The largest evaluator call.
    pub max_batch: u32,
    /// Seconds spent inside the evaluator.
    pub eval_seconds: f64,
    /// Games still running when the iteration ended (they carry on).
    pub in_flight: u32,
    /// Plies played with no search because only one move was legal.
    pub forced: u64,
}

impl SelfPlayStats {
    /// Mean positions per evaluator call.
    pub fn mean_batch(&self) -> f64 {
        self.evals as f64 / self.batches.max(1) as f64
    }
}

/// One game of self-play and its search.
struct Slot<P: Board> {
    tree: Option<Tree<P>>,
    /// A search is under way.
    searching: bool,
    /// The search under way is a full one (its position becomes a sample).
    full: bool,
    /// Samples of this game, waiting for its outcome.
    pending: Vec<Pending<P>>,
    may_resign: bool,
    would_resign: Option<Color>,
    rng: Rng,
}

/// A sample waiting for its game's end (its targets are for its
/// position's side to move).
struct Pending<P: Board> {
    sample: Sample<P>,
    /// The game's ply at its position (unknown for samples restored from a
    /// version 1 games-in-flight file: they get no auxiliary targets).
    ply: Option<u32>,
}

/// The self-play driver: `parallel_games` games, each with its own tree,
/// kept across iterations (see the module docs).
pub struct SelfPlay<P: Board> {
    env: VecEnv<P>,
    slots: Vec<Slot<P>>,
    /// Finished games and their outcomes, kept when asked for
    /// ([`SelfPlay::keep_finished_games`]).
    finished: Option<Vec<(Game<P>, Outcome)>>,
    /// The evaluation cache (`selfplay.eval_cache`), emptied each iteration.
    cache: Option<EvalCache<P>>,
    /// A raised stop ends [`SelfPlay::run_iteration`] early.
    stop: Stop,
    /// Exact values (endgame tablebases): used by every tree, and a game
    /// that reaches a position they cover ends there with its value.
    exact: Option<Arc<dyn ExactValues<P>>>,
}

/// For each ply `p` of `game`, the opponent's reply to the move played
/// there: the network policy index of the move played at ply `p + 1`, in
/// the position it was played in (`None` for the last move).
pub fn reply_indices<P: Board>(game: &Game<P>) -> Vec<Option<u16>> {
    let moves = game.moves();
    let mut out = vec![None; moves.len()];
    let mut pos = *game.start();
    for (k, m) in moves.iter().enumerate() {
        if k > 0 {
            let legal = pos.legal_moves();
            if let Some(j) = legal.iter().position(|l| l == m) {
                out[k - 1] = Some(policy_indices(&pos, &legal)[j]);
            }
        }
        pos.play_unchecked(m);
    }
    out
}

/// Where an iteration's results go as moves are played: its counters, its
/// finished samples, and the caller's two callbacks.
struct Sink<'a, P: Board> {
    stats: SelfPlayStats,
    out: Vec<Sample<P>>,
    on_game: &'a mut dyn FnMut(&SelfPlayStats),
    on_live: &'a mut dyn FnMut(&Game<P>),
}

impl<P: Board> SelfPlay<P> {
    /// `parallel_games` games from `start` under `rules`, each opened with
    /// `cfg.opening_plies` random plies. (More games than an iteration's
    /// quota is fine: the games still running carry on.)
    pub fn new(cfg: &SelfPlayConfig, start: P, rules: DrawRules, seed: u64) -> SelfPlay<P> {
        let n = cfg.parallel_games.max(1) as usize;
        let env = VecEnv::new(n, start, rules, cfg.opening_plies, seed);
        let slots = (0..n)
            .map(|i| {
                let mut rng = rng_stream(seed, "selfplay-slot", i as u64);
                Slot {
                    tree: None,
                    searching: false,
                    full: false,
                    pending: Vec::new(),
                    may_resign: rng.random::<f32>() >= cfg.no_resign_fraction,
                    would_resign: None,
                    rng,
                }
            })
            .collect();
        SelfPlay {
            env,
            slots,
            finished: None,
            cache: None,
            stop: Stop::new(),
            exact: None,
        }
    }

    /// Use exact values (endgame tablebases) in every search, and end a
    /// game at the first position they cover with its exact result (its
    /// samples' outcome target).
    pub fn set_exact_values(&mut self, exact: Option<Arc<dyn ExactValues<P>>>) {
        self.exact = exact;
        for s in &mut self.slots {
            s.tree = None;
            s.searching = false;
        }
    }

    /// The exact values self-play uses, if any.
    pub fn exact_values(&self) -> Option<&dyn ExactValues<P>> {
        self.exact.as_deref()
    }

    /// End each iteration early once `stop` is raised (its samples and
    /// counters are then incomplete: the caller drops them).
    pub fn stop_on(&mut self, stop: Stop) {
        self.stop = stop;
    }

    /// True once the stop given to [`SelfPlay::stop_on`] is raised.
    pub fn stop_requested(&self) -> bool {
        self.stop.requested()
    }

    /// Keep every finished game (for game records) until
    /// [`SelfPlay::take_finished_games`] takes them.
    pub fn keep_finished_games(&mut self) {
        self.finished.get_or_insert_with(Vec::new);
    }

    /// The games finished since the last call, with their outcomes (empty
    /// unless [`SelfPlay::keep_finished_games`] was called).
    pub fn take_finished_games(&mut self) -> Vec<(Game<P>, Outcome)> {
        self.finished.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Number of games played at once.
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    /// True with no games.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
    /// The games being played.
    pub fn games(&self) -> &[Game<P>] {
        self.env.games()
    }

    /// Play until `cfg.games_per_iteration` games have finished; return the
    /// samples of their full searches and the iteration's counters. Every
    /// random draw comes from streams of `seed`. `on_game` is called after
    /// each finished game, `on_live` after each move of the first game slot
    /// (for a live view).
    pub fn run_iteration(
        &mut self,
        search: &SearchParams,
        cfg: &SelfPlayConfig,
        evaluator: &mut dyn Evaluator<P>,
        seed: u64,
        on_game: &mut dyn FnMut(&SelfPlayStats),
        on_live: &mut dyn FnMut(&Game<P>),
    ) -> (Vec<Sample<P>>, SelfPlayStats) {
        self.env.reseed(rng_stream(seed, "selfplay-openings", 0).random());
        for (i, s) in self.slots.iter_mut().enumerate() {
            s.rng = rng_stream(seed, "selfplay-slot", i as u64);
            s.tree = None;
            s.searching = false;
        }
        // The evaluator may carry new weights: nothing cached may be reused.
        let entries = cfg.eval_cache as usize;
        match (entries, self.cache.take()) {
            (0, _) => {}
            (n, Some(mut c)) if c.capacity() == n.next_power_of_two() => {
                c.clear();
                self.cache = Some(c);
            }
            (n, _) => self.cache = Some(EvalCache::new(n)),
        }
        let mut sink = Sink {
            stats: SelfPlayStats::default(),
            out: Vec::new(),
            on_game,
            on_live,
        };
        while sink.stats.games < cfg.games_per_iteration && !self.stop.requested() {
            if cfg.skip_forced {
                self.play_forced(cfg, &mut sink);
            }
            self.start_searches(search, cfg);
            self.evaluate_round(evaluator, &mut sink.stats);
            self.play_finished(cfg, &mut sink);
        }
        let Sink { mut stats, out, .. } = sink;
        // The searches under way are dropped: their values came from the
        // network being replaced.
        for s in &mut self.slots {
            s.tree = None;
            s.searching = false;
        }
        stats.in_flight = self.slots.len() as u32;
        (out, stats)
    }

    /// Start a search in every tree that has none under way.
    fn start_searches(&mut self, search: &SearchParams, cfg: &SelfPlayConfig) {
        let exact = &self.exact;
        for (i, s) in self.slots.iter_mut().enumerate() {
            if s.searching {
                continue;
            }
            let g = &self.env.games()[i];
            let tree = s.tree.get_or_insert_with(|| {
                let seed = s.rng.random();
                let mut t = Tree::new(g, search.clone(), rng_stream(seed, "tree", 0));
                t.set_exact_values(exact.clone());
                t
            });
            s.full = s.rng.random::<f32>() < cfg.full_search_prob;
            tree.params_mut().dirichlet_epsilon = if s.full { search.dirichlet_epsilon } else { 0.0 };
            tree.start(if s.full { cfg.full_sims } else { cfg.cheap_sims });
            s.searching = true;
        }
    }

    /// Gather leaves from every tree, evaluate them in one call (those not
    /// in the evaluation cache), back them up.
    fn evaluate_round(&mut self, evaluator: &mut dyn Evaluator<P>, stats: &mut SelfPlayStats) {
        let mut trees: Vec<(usize, &mut Tree<P>)> = self
            .slots
            .iter_mut()
            .enumerate()
            .filter_map(|(i, s)| s.tree.as_mut().map(|t| (i, t)))
            .collect();
        let leaves = take_leaves_all(&mut trees);
        if leaves.is_empty() {
            return;
        }
        let t = Instant::now();
        let (evals, n) = match self.cache.as_mut() {
            None => (evaluate_leaves(evaluator, &leaves), leaves.len() as u32),
            Some(cache) => {
                let hits = cache.hits;
                let evals = cache.evaluate(evaluator, &leaf_requests(&leaves));
                let hits = cache.hits - hits;
                stats.cache_hits += hits;
                (evals, leaves.len() as u32 - hits as u32)
            }
        };
        stats.eval_seconds += t.elapsed().as_secs_f64();
        if n > 0 {
            stats.min_batch = if stats.batches == 0 {
                n
            } else {
                stats.min_batch.min(n)
            };
            stats.max_batch = stats.max_batch.max(n);
            stats.batches += 1;
            stats.evals += n as u64;
        }
        apply_all(&mut trees, leaves, evals);
    }

    /// Play the move of every tree whose search has ended.
    fn play_finished(&mut self, cfg: &SelfPlayConfig, sink: &mut Sink<'_, P>) {
        for i in 0..self.slots.len() {
            let s = &mut self.slots[i];
            let Some(tree) = s.tree.as_mut() else { continue };
            if !s.searching || !tree.finished() {
                continue;
            }
            s.searching = false;
            let Some(r) = tree.result() else {
                // The root is a finished game: cannot happen (finished games
                // are replaced at once); start this game again.
                s.tree = None;
                continue;
            };
            let g = &self.env.games()[i];
            let side = g.position().side_to_move();
            if s.full || cfg.cheap_samples {
                let limit = g.rules().no_progress_plies.max(1) as f32;
                // The target covers every legal move: those the search
                // left out (the tactical check, the repetition filter) get
                // 0, so training pushes them down instead of masking them
                // out as illegal. Indices come from the whole legal list
                // (a move's slot depends on its siblings).
                let legal = g.position().legal_moves();
                let policy = policy_indices(g.position(), &legal)
                    .into_iter()
                    .zip(&legal)
                    .map(|(j, m)| {
                        (
                            j,
                            r.moves.iter().position(|x| x == m).map_or(0.0, |k| r.policy[k]),
                        )
                    })
                    .collect();
                s.pending.push(Pending {
                    sample: Sample {
                        pos: *g.position(),
                        repeated: g.repetitions() > 1,
                        no_progress: (g.position().no_progress() as f32 / limit).min(1.0),
                        policy,
                        z: Wdl::DRAW,
                        q: match cfg.search_value {
                            SearchValue::Root => r.wdl,
                            SearchValue::Move => r.move_wdl,
                        },
                        surprise: r.surprise(),
                        aux: None,
                        reply: None,
                    },
                    ply: Some(g.ply() as u32),
                });
            }
            let mut resign = false;
            if cfg.resign_threshold < 1.0
                && g.ply() as u32 >= cfg.resign_min_ply
                && r.wdl.loss > cfg.resign_threshold
            {
                if s.may_resign {
                    resign = true;
                } else if s.would_resign.is_none() {
                    s.would_resign = Some(side);
                }
            }
            self.play(i, (!resign).then_some(r.best), cfg, sink);
        }
    }

    /// Play the only legal move of every game that is not searching and has
    /// one, until none has (a chain of forced moves is played at once).
    fn play_forced(&mut self, cfg: &SelfPlayConfig, sink: &mut Sink<'_, P>) {
        for i in 0..self.slots.len() {
            while !self.slots[i].searching && self.env.legal_moves(i).len() == 1 {
                let mv = self.env.legal_moves(i)[0];
                sink.stats.forced += 1;
                self.play(i, Some(mv), cfg, sink);
            }
        }
    }

    /// Play `mv` in game `i` (`None`: its side to move resigns), keeping the
    /// tree's subtree, and settle the game if that ends it.
    fn play(&mut self, i: usize, mv: Option<P::Move>, cfg: &SelfPlayConfig, sink: &mut Sink<'_, P>) {
        let ended = match mv {
            None => Some(self.env.resign(i)),
            Some(mv) => {
                sink.stats.plies += 1;
                let e = self.env.step_game(i, &mv);
                if e.is_none() {
                    if let Some(t) = self.slots[i].tree.as_mut() {
                        t.advance(&mv);
                    }
                }
                e.or_else(|| self.adjudicate(i))
            }
        };
        if let Some((o, game)) = ended {
            self.finish_game(i, &o, &game, cfg.no_resign_fraction, sink);
            if let Some(f) = self.finished.as_mut() {
                f.push((game, o));
            }
            (sink.on_game)(&sink.stats);
        }
        if i == 0 {
            (sink.on_live)(&self.env.games()[0]);
        }
    }

    /// End game `i` with its exact result if the exact values cover its
    /// position (a fresh game takes its place).
    fn adjudicate(&mut self, i: usize) -> Option<(Outcome, Game<P>)> {
        let game = &self.env.games()[i];
        let wdl = self.exact.as_ref()?.exact(game)?;
        let side = game.position().side_to_move();
        let winner = if wdl.win > 0.5 {
            Some(side)
        } else if wdl.loss > 0.5 {
            Some(side.opposite())
        } else {
            None
        };
        let reason = EndReason::Tablebase;
        Some(self.env.end_game(i, Outcome { winner, reason }))
    }

    /// Settle game `i`, which ended in `game` with `o`: its samples get
    /// their outcome and, if it was played out, their auxiliary targets.
    fn finish_game(
        &mut self,
        i: usize,
        o: &Outcome,
        game: &Game<P>,
        no_resign_fraction: f32,
        sink: &mut Sink<'_, P>,
    ) {
        let (stats, out) = (&mut sink.stats, &mut sink.out);
        let s = &mut self.slots[i];
        let played_out = !matches!(o.reason, EndReason::Resignation | EndReason::Tablebase);
        let replies = if s.pending.is_empty() {
            Vec::new()
        } else {
            reply_indices(game)
        };
        for p in s.pending.drain(..) {
            let mut sample = p.sample;
            let side = sample.pos.side_to_move();
            sample.z = Wdl::of_outcome(o, side);
            sample.aux = match p.ply {
                Some(ply) if played_out => Some(AuxTargets::at_end(
                    game.position(),
                    side,
                    (game.ply() as u32).saturating_sub(ply),
                )),
                _ => None,
            };
            sample.reply = p.ply.and_then(|ply| replies.get(ply as usize).copied().flatten());
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
        s.searching = false;
        s.would_resign = None;
        s.may_resign = s.rng.random::<f32>() >= no_resign_fraction;
    }
}

#[cfg(test)]
mod tests;
