//! The measuring protocol: what "stronger" means when comparing runs. Every
//! kept checkpoint of a finished run plays the alpha-beta ladder:
//!
//! - **fixed simulations**: the network's MCTS at `sims` simulations per
//!   move against alpha-beta at each of `depths`, `games` games each (two
//!   per seeded opening, one with each colour; 100 games bound the 95%
//!   interval of a score to ±9.8 points whatever the results);
//! - **equal time**: the same player against alpha-beta given, per move,
//!   the network player's own mean time per move (measured first, in the
//!   setting the games are then played in: one game at a time), so that
//!   neither side has more wall time; once with each side's search on one
//!   thread, and once with each on the whole machine (the network player
//!   gathering a batch of leaves per thread, alpha-beta by Lazy SMP);
//! - **raw policy**: the network's most likely move, no search, against
//!   alpha-beta at `policy_depth`;
//! - **learned evaluation**, where the checkpoint has one
//!   ([`crate::learned`]): alpha-beta with it against the hand-written
//!   alpha-beta, and against the network player, each at the network
//!   player's time per move, on the same thread counts as the equal-time
//!   matches (rows `learned` and `learned-vs-net`, scored for the learned
//!   evaluation's side).
//!
//! The rows are added to `rating.csv` in the run folder ([`RatingRow`]),
//! or to another file, replacing the rows of the same matches rated before:
//! the file keeps a run's ratings across resumes. The file is written as
//! each checkpoint's matches end, so a rating stopped part-way keeps the
//! checkpoints it finished. Rating every `every`-th
//! checkpoint of a run that kept many gives its rating curve.

pub use super::rating_rows::{draw_rating_curve, draw_strength_chart, RatingRow};
use super::{LoadError, LoadedNet};
use crate::arena::evaluation::{play_searcher_vs_alphabeta, Searcher};
use crate::arena::tournament::{run_games, schedule};
use crate::arena::{AlphaBeta, Limits, MatchSettings, Player, PlayerFactory};
use crate::game::GamePosition;
use crate::mcts::Budget;
use crate::net::{bench_games, ComputeDevice, NetEvaluator};
use crate::run::checkpoint::{CheckpointError, RunDir};
use crate::run::RunGame;
use crate::util::derive_seed;
use crate::util::elo::score_interval;
use crate::util::range::{check, Bounds};
use crate::util::stop::Stop;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The protocol's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RateConfig {
    /// Simulations per move of the network player.
    pub sims: u32,
    /// Alpha-beta depths of the fixed-simulation ladder.
    pub depths: Vec<u32>,
    /// Games per match (even: each opening with both colours).
    pub games: u32,
    /// Also play alpha-beta at equal time per move.
    pub equal_time: bool,
    /// The threads each side's search gets in the equal-time matches, one
    /// match per entry (default: 1, and every core of the machine).
    pub equal_time_threads: Vec<usize>,
    /// Play the fixed-simulation ladder (`depths`).
    pub ladder: bool,
    /// Also play the raw policy against alpha-beta at this depth.
    pub policy_depth: Option<u32>,
    /// Random plies from the start for each opening.
    pub opening_plies: u32,
    /// Seed of the openings and of the network player's search.
    pub seed: u64,
    /// Positions the network player's time per move is measured on.
    pub timing_positions: usize,
    /// Rate only the newest checkpoint.
    pub last_only: bool,
    /// Rate only the checkpoints whose iteration is a multiple of this, and
    /// the newest (0 or 1: every kept checkpoint). For a rating curve over
    /// a run that kept many.
    pub every: u32,
    /// Rate these checkpoints (each must be kept); empty: as `last_only`
    /// and `every` say.
    pub iterations: Vec<u32>,
    /// Where the rows go (default: `rating.csv` in the run folder).
    pub csv: Option<PathBuf>,
}

impl Default for RateConfig {
    fn default() -> Self {
        RateConfig {
            sims: 64,
            depths: vec![2, 4, 6],
            games: 100,
            equal_time: true,
            equal_time_threads: default_equal_time_threads(),
            ladder: true,
            policy_depth: Some(2),
            opening_plies: 4,
            seed: 1,
            timing_positions: 40,
            last_only: false,
            every: 0,
            iterations: Vec::new(),
            csv: None,
        }
    }
}

/// One thread, and every core of the machine (when it has more than one).
pub fn default_equal_time_threads() -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores > 1 {
        vec![1, cores]
    } else {
        vec![1]
    }
}

/// What the protocol reports while it plays.
#[derive(Clone, Debug, PartialEq)]
pub enum RateEvent {
    /// A match of `games` games begins.
    Match {
        /// The checkpoint's iteration.
        iteration: u32,
        /// The match's mode (as `RatingRow::mode`).
        mode: String,
        /// The opponent as a player spec.
        opponent: String,
        /// Games to play.
        games: u32,
    },
    /// A game ended.
    Game,
    /// A match ended.
    Row(RatingRow),
}

/// Why a run could not be rated.
#[derive(Debug, thiserror::Error)]
pub enum RateError {
    /// The run folder has no checkpoint.
    #[error("{0} has no checkpoints to rate")]
    Empty(PathBuf),
    /// A checkpoint does not read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A player does not load.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A setting or a file is invalid; the message says which.
    #[error("{0}")]
    Invalid(String),
    /// `rating.csv` could not be written.
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, String),
}

impl RateConfig {
    /// Where the rows of the run in `dir` go: `csv`, or `dir/rating.csv`.
    pub fn csv_path(&self, dir: &Path) -> PathBuf {
        self.csv.clone().unwrap_or_else(|| dir.join("rating.csv"))
    }

    /// Check every value; the error names the setting.
    pub fn validate(&self) -> Result<(), RateError> {
        let bad = |m: String| Err(RateError::Invalid(m));
        check("sims", self.sims, Bounds::AtLeast(1)).map_err(RateError::Invalid)?;
        if self.games < 2 || !self.games.is_multiple_of(2) {
            return bad(format!(
                "games must be even and at least 2 (one game per colour for each opening), got {}",
                self.games
            ));
        }
        if self
            .depths
            .iter()
            .chain(&self.policy_depth)
            .any(|&d| d == 0 || d > 20)
        {
            return bad("alpha-beta depths must be in [1, 20]".into());
        }
        if self.equal_time {
            check("timing_positions", self.timing_positions, Bounds::AtLeast(1))
                .map_err(RateError::Invalid)?;
        }
        let max = crate::arena::spec::MAX_SEARCH_THREADS;
        if self.equal_time
            && (self.equal_time_threads.is_empty()
                || self.equal_time_threads.iter().any(|&t| t == 0 || t > max))
        {
            return bad(format!(
                "equal-time threads must be 1 to {max} (at least one count)"
            ));
        }
        Ok(())
    }
}

/// The network player's mean wall time per move at `sims`, one search at a
/// time, each on the threads of `pool` (None: the calling thread).
pub fn time_per_move<P: RunGame>(
    net: &LoadedNet,
    sims: u32,
    positions: usize,
    seed: u64,
    pool: Option<Arc<rayon::ThreadPool>>,
) -> Duration {
    let mut p = net
        .player_with::<P>("timing", net.header.search.for_play(sims), seed)
        .with_pool(pool);
    p.set_budget(Some(Budget::Simulations(sims)));
    let games = bench_games(<P as GamePosition>::start(Default::default()), positions, seed);
    // One move first: warm caches and lazy set-up out of the figure.
    p.choose(&games[0]);
    let t = Instant::now();
    for g in &games {
        p.choose(g);
    }
    t.elapsed() / positions as u32
}

/// Rate the checkpoints of the run in `dir` (see the module docs); rows in
/// the order played, also written to `dir/rating.csv`.
pub fn rate(
    dir: &Path,
    cfg: &RateConfig,
    device: &ComputeDevice,
    on: &mut dyn FnMut(&RateEvent),
) -> Result<Vec<RatingRow>, RateError> {
    cfg.validate()?;
    let run = RunDir::new(dir);
    let iters = iterations_to_rate(&run, cfg)?;
    let game = crate::run::Checkpoint::open(&run.iter_dir(iters[0]))?.config.game;
    let kind = game
        .kind()
        .map_err(|e| RateError::Invalid(format!("{}: {e}", dir.display())))?;
    crate::with_game!(kind, P => rate_iterations::<P>(dir, &run, iters, cfg, device, on))
}

/// [`rate`] of a run of the game `P`: any game, one of the list's or
/// another crate's.
pub fn rate_game<P: RunGame>(
    dir: &Path,
    cfg: &RateConfig,
    device: &ComputeDevice,
    on: &mut dyn FnMut(&RateEvent),
) -> Result<Vec<RatingRow>, RateError> {
    cfg.validate()?;
    let run = RunDir::new(dir);
    let iters = iterations_to_rate(&run, cfg)?;
    rate_iterations::<P>(dir, &run, iters, cfg, device, on)
}

/// Rate checkpoints `iters` of the run in `dir` (a run of `P`; `cfg`
/// validated).
fn rate_iterations<P: RunGame>(
    dir: &Path,
    run: &RunDir,
    iters: Vec<u32>,
    cfg: &RateConfig,
    device: &ComputeDevice,
    on: &mut dyn FnMut(&RateEvent),
) -> Result<Vec<RatingRow>, RateError> {
    let path = cfg.csv_path(dir);
    let mut rows = Vec::new();
    for k in iters {
        let ck = crate::run::Checkpoint::open(&run.iter_dir(k))?;
        // A checkpoint without a learned evaluation has no learned rows; a
        // damaged one, or one of another game, is an error.
        let mut loaded = LoadedNet::from_checkpoint(&ck, cfg.sims)?;
        loaded.attach_learned_eval(&ck).map_err(RateError::Invalid)?;
        let learned = loaded
            .learned
            .take()
            .map(|f| Arc::new(crate::learned::LearnedEval::new(f.float)));
        let rating = CheckpointRating::<P> {
            loaded: loaded.on(device),
            learned,
            settings: match_settings(&ck, cfg, dir)?,
            base: RatingRow {
                iteration: k,
                train_minutes: ck.state.wall_s / 60.0,
                train_games: ck.state.games,
                games: cfg.games,
                threads: 1,
                ..Default::default()
            },
            device,
            cfg,
        };
        rating.play_ladder(&mut rows, on);
        if cfg.equal_time {
            for &threads in &cfg.equal_time_threads {
                let per_move = rating.play_equal_time(threads, &mut rows, on)?;
                rating.play_learned(threads, per_move, &mut rows, on)?;
            }
        }
        // Written as each checkpoint ends, so a rating stopped part-way
        // keeps the checkpoints it finished.
        save_rows(&path, &rows)?;
    }
    Ok(rows)
}

/// Merge `new` into the rows at `path` and write the file whole.
fn save_rows(path: &Path, new: &[RatingRow]) -> Result<(), RateError> {
    let all = merged_rows(path, new)?;
    crate::run::write_rows(path, &all).map_err(|e| RateError::Write(path.to_path_buf(), e.to_string()))
}

/// The rows already in `path` (none when absent), less those that `new`
/// measures again, with `new` added, by iteration: a run's `rating.csv`
/// accumulates its ratings across resumes and re-ratings.
fn merged_rows(path: &Path, new: &[RatingRow]) -> Result<Vec<RatingRow>, RateError> {
    let mut rows: Vec<RatingRow> = crate::run::read_rows(path)
        .map_err(|e| RateError::Invalid(format!("{e} (move it away to start a new file)")))?;
    rows.retain(|old| !new.iter().any(|n| n.same_match(old)));
    rows.extend(new.iter().cloned());
    rows.sort_by_key(|r| r.iteration);
    Ok(rows)
}

/// The kept checkpoints `cfg` selects: all, those named, the newest, or
/// every `every`-th and the newest.
fn iterations_to_rate(run: &RunDir, cfg: &RateConfig) -> Result<Vec<u32>, RateError> {
    let mut iters = run.checkpoints();
    let Some(&newest) = iters.last() else {
        return Err(RateError::Empty(run.root.clone()));
    };
    if let Some(k) = cfg.iterations.iter().find(|k| !iters.contains(k)) {
        let kept: Vec<String> = iters.iter().map(|k| k.to_string()).collect();
        return Err(RateError::Invalid(format!(
            "{} has no checkpoint of iteration {k} (kept: {})",
            run.root.display(),
            kept.join(", ")
        )));
    }
    if !cfg.iterations.is_empty() {
        iters.retain(|k| cfg.iterations.contains(k));
    } else if cfg.last_only {
        iters = vec![newest];
    } else if cfg.every > 1 {
        iters.retain(|&k| k.is_multiple_of(cfg.every) || k == newest);
    }
    Ok(iters)
}

/// The protocol's matches from a checkpoint's variant and draw rules.
fn match_settings<P: GamePosition>(
    ck: &crate::run::Checkpoint,
    cfg: &RateConfig,
    dir: &Path,
) -> Result<MatchSettings<P>, RateError> {
    let variant = P::variant_named(&ck.config.variant).map_err(RateError::Invalid)?;
    let mut settings = MatchSettings::from_start(P::start(variant));
    settings.rules = ck.config.rules;
    settings.seed = cfg.seed;
    settings.opening_plies = cfg.opening_plies;
    settings.games_per_pair = cfg.games;
    settings.event = format!("{} rate {}", P::ID, dir.display());
    Ok(settings)
}

/// One checkpoint under the protocol.
struct CheckpointRating<'a, P: RunGame> {
    loaded: LoadedNet,
    /// The checkpoint's learned evaluation, where it has one.
    learned: Option<Arc<crate::learned::LearnedEval>>,
    settings: MatchSettings<P>,
    /// The row's checkpoint fields, shared by its matches.
    base: RatingRow,
    device: &'a ComputeDevice,
    cfg: &'a RateConfig,
}

impl<P: RunGame> CheckpointRating<'_, P> {
    /// Score `w`-`d`-`l` into `row`, report it and keep it.
    fn finish(
        mut row: RatingRow,
        (w, d, l): (u32, u32, u32),
        rows: &mut Vec<RatingRow>,
        on: &mut dyn FnMut(&RateEvent),
    ) {
        let (s, h) = score_interval(w, d, l);
        (row.wins, row.draws, row.losses, row.score, row.score_95) = (w, d, l, s, h);
        on(&RateEvent::Row(row.clone()));
        rows.push(row);
    }

    /// The fixed-simulation ladder (unless `ladder` is off), then the raw policy.
    fn play_ladder(&self, rows: &mut Vec<RatingRow>, on: &mut dyn FnMut(&RateEvent)) {
        let params = self.loaded.header.search.clone();
        let mut ladder: Vec<(&str, Searcher<'_>, u32)> = Vec::new();
        if self.cfg.ladder {
            ladder.extend(
                self.cfg
                    .depths
                    .iter()
                    .map(|&d| ("sims", Searcher::Mcts(&params), d)),
            );
        }
        if let Some(d) = self.cfg.policy_depth {
            ladder.push(("policy", Searcher::Policy, d));
        }
        for (mode, searcher, depth) in ladder {
            let opponent = format!("alphabeta:depth={depth}");
            on(&RateEvent::Match {
                iteration: self.base.iteration,
                mode: mode.into(),
                opponent: opponent.clone(),
                games: self.cfg.games,
            });
            let mut ev = NetEvaluator::on_device(&self.loaded.net, self.device);
            let r = play_searcher_vs_alphabeta(
                &mut ev,
                searcher,
                &self.settings,
                depth,
                self.cfg.games as usize,
                self.cfg.seed,
                &mut || on(&RateEvent::Game),
                &Stop::new(),
            );
            let sims = if matches!(searcher, Searcher::Policy) {
                0
            } else {
                self.cfg.sims
            };
            let row = RatingRow {
                mode: mode.into(),
                opponent,
                sims,
                ..self.base.clone()
            };
            Self::finish(row, (r.wins, r.draws, r.losses), rows, on);
        }
    }

    /// Alpha-beta given the network player's own time per move, each
    /// side's search on `threads` threads, the games one at a time;
    /// returns that time.
    fn play_equal_time(
        &self,
        threads: usize,
        rows: &mut Vec<RatingRow>,
        on: &mut dyn FnMut(&RateEvent),
    ) -> Result<Duration, RateError> {
        let cfg = self.cfg;
        // The games are driven from one thread; each search runs on its
        // own threads (the network's pool, alpha-beta's helpers), and the
        // time measured is the network's in that same setting.
        let one = crate::util::thread_pool(1).map_err(RateError::Invalid)?;
        let pool = match threads {
            1 => None,
            n => Some(Arc::new(crate::util::thread_pool(n).map_err(RateError::Invalid)?)),
        };
        let per_move = one.install(|| {
            time_per_move::<P>(
                &self.loaded,
                cfg.sims,
                cfg.timing_positions,
                cfg.seed,
                pool.clone(),
            )
        });
        let ms = per_move.as_secs_f64() * 1e3;
        let opponent = match threads {
            1 => format!("alphabeta:movetime={ms:.1}ms"),
            n => format!("alphabeta:movetime={ms:.1}ms,threads={n}"),
        };
        on(&RateEvent::Match {
            iteration: self.base.iteration,
            mode: "equal-time".into(),
            opponent: opponent.clone(),
            games: cfg.games,
        });
        let [net, alphabeta] = self.equal_time_players(&opponent, per_move, threads, pool);
        let wdl = self.play_pair(["net".to_string(), opponent.clone()], [net, alphabeta], on)?;
        let row = RatingRow {
            mode: "equal-time".into(),
            opponent,
            sims: cfg.sims,
            net_ms_per_move: ms,
            threads: threads as u32,
            ..self.base.clone()
        };
        Self::finish(row, wdl, rows, on);
        Ok(per_move)
    }

    /// The games of one match between `players`, one at a time (each
    /// search on its own threads); the first player's wins, draws, losses.
    fn play_pair(
        &self,
        names: [String; 2],
        players: [PlayerFactory<P>; 2],
        on: &mut dyn FnMut(&RateEvent),
    ) -> Result<(u32, u32, u32), RateError> {
        let one = crate::util::thread_pool(1).map_err(RateError::Invalid)?;
        let tasks = schedule(&[(0, 1)], &self.settings);
        let records = one.install(|| run_games(&tasks, &names, &players, &self.settings, &|_| {}));
        for _ in &records {
            on(&RateEvent::Game);
        }
        Ok(crate::arena::tally(&records, 0))
    }

    /// Alpha-beta with the learned evaluation (where the checkpoint has
    /// one) against the hand-written alpha-beta, then against the network
    /// player, each side given `per_move` on `threads` threads.
    fn play_learned(
        &self,
        threads: usize,
        per_move: Duration,
        rows: &mut Vec<RatingRow>,
        on: &mut dyn FnMut(&RateEvent),
    ) -> Result<(), RateError> {
        let Some(eval) = &self.learned else {
            return Ok(());
        };
        let ms = per_move.as_secs_f64() * 1e3;
        let threads_opt = if threads > 1 {
            format!(",threads={threads}")
        } else {
            String::new()
        };
        let learned_name = format!("alphabeta:eval,movetime={ms:.1}ms{threads_opt}");
        let limits = Limits {
            movetime: Some(per_move),
            ..Default::default()
        };
        let (name, eval) = (learned_name.clone(), eval.clone());
        let learned: PlayerFactory<P> = Arc::new(move |_| {
            Box::new(AlphaBeta::with_eval(name.clone(), limits, eval.clone()).with_threads(threads))
                as Box<dyn Player<P>>
        });
        let hand_name = format!("alphabeta:movetime={ms:.1}ms{threads_opt}");
        let pool = match threads {
            1 => None,
            n => Some(Arc::new(crate::util::thread_pool(n).map_err(RateError::Invalid)?)),
        };
        let [net, hand] = self.equal_time_players(&hand_name, per_move, threads, pool);
        for (mode, opponent, other) in [
            ("learned", hand_name.clone(), hand),
            ("learned-vs-net", "net".to_string(), net),
        ] {
            on(&RateEvent::Match {
                iteration: self.base.iteration,
                mode: mode.into(),
                opponent: opponent.clone(),
                games: self.cfg.games,
            });
            let wdl = self.play_pair(
                [learned_name.clone(), opponent.clone()],
                [learned.clone(), other],
                on,
            )?;
            let row = RatingRow {
                mode: mode.into(),
                opponent,
                sims: self.cfg.sims,
                net_ms_per_move: ms,
                threads: threads as u32,
                ..self.base.clone()
            };
            Self::finish(row, wdl, rows, on);
        }
        Ok(())
    }

    /// The network player (searching on `pool`) and alpha-beta at
    /// `per_move` on `threads` threads, named `opponent`.
    fn equal_time_players(
        &self,
        opponent: &str,
        per_move: Duration,
        threads: usize,
        pool: Option<Arc<rayon::ThreadPool>>,
    ) -> [PlayerFactory<P>; 2] {
        let net = Arc::new(self.loaded.clone());
        let params = self.loaded.header.search.clone();
        let seed = self.cfg.seed;
        let net_player: PlayerFactory<P> = Arc::new(move |s| {
            Box::new(
                net.player_with::<P>("net", params.clone(), derive_seed(seed, "rate-net", s))
                    .with_pool(pool.clone()),
            ) as Box<dyn Player<P>>
        });
        let limits = Limits {
            movetime: Some(per_move),
            ..Default::default()
        };
        let name = opponent.to_string();
        let alphabeta: PlayerFactory<P> = Arc::new(move |_| {
            Box::new(AlphaBeta::<P>::new(name.clone(), limits).with_threads(threads)) as Box<dyn Player<P>>
        });
        [net_player, alphabeta]
    }
}
