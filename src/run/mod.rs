//! A training run as a library pipeline: [`RunConfig`] and its sections,
//! the checkpoint folder format ([`checkpoint`]), the CSV logs
//! ([`metrics`]), and the loop itself, [`Run`]:
//!
//! ```text
//! config -> self-play (SelfPlay, NetEvaluator) -> samples -> replay window
//!        -> learner (Trainer) -> checkpoint -> evaluation games (arena)
//! ```
//!
//! A run reports its progress as [`Event`]s to an observer (the CLI's
//! progress bars, a web page, a test), and can be stopped at a safe point
//! through [`Run::stopper`] (SIGTERM and Ctrl-C in the CLI): between
//! iterations, or within one, whose work is then dropped unwritten.
//!
//! A run is of one game, its type `P` (Damone's `Position` by default;
//! `with_game!` picks it from a config's `game`).
//!
//! ```no_run
//! use damone::game::italian;
//! use damone::run::{Event, Run, RunConfig, Start};
//!
//! let mut cfg = RunConfig::load(None, &["iterations=2".into(), "game=italian".into()])?;
//! cfg.checkpoint_dir = "/tmp/runs".into();
//! let mut run = Run::<italian::Position>::open(cfg, Start::Overwrite)?;
//! run.run(&mut |e: &Event| {
//!     if let Event::Iteration { metrics, .. } = e {
//!         println!("iteration {}: loss {:.3}", metrics.iteration, metrics.loss_policy);
//!     }
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod checkpoint;
pub mod config;
mod events;
pub mod expert;
mod iteration;
pub mod learned_eval;
pub mod metrics;
pub mod plots;
pub mod self_train;
mod self_train_phase;

pub use checkpoint::{
    Checkpoint, CheckpointError, CheckpointFiles, CheckpointState, LivePosition, RunDir, CHECKPOINT_VERSION,
};
pub use config::{ConfigError, DistConfig, EvalConfig, RunConfig, DEFAULT_CONFIG};
pub use events::{Event, Phase, RunError};
pub use metrics::{read_rows, write_rows, EvalGameRow, EvalRow, LogError, Metrics};

use crate::arena::evaluation::{play_vs_alphabeta, EvalResult};
use crate::arena::Baseline;
use crate::arena::MatchSettings;
use crate::data::{exact_samples, ReplayWindow, Sample};
use crate::game::GameId;
use crate::mcts::{ExactValues, OpenExactValues};
use crate::net::Board;
use crate::net::{ComputeDevice, NetEvaluator, ENCODING_VERSION};
use crate::selfplay::SelfPlay;
use crate::train::Trainer;
use crate::util::stop::Stop;
use crate::util::{atomic_write, derive_seed};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// How to open a run folder.
#[derive(Clone, Debug, PartialEq)]
pub enum Start {
    /// A new run; the folder must not hold checkpoints.
    New,
    /// A new run; checkpoints already in the folder are removed.
    Overwrite,
    /// Continue from the newest checkpoint with its own config.
    Resume {
        /// `key=value` changes to the run's config: only the keys of
        /// [`RESUME_KEYS`] may change; each change is logged in the run
        /// folder's `resume.log`.
        sets: Vec<String>,
        /// When the newest checkpoint is damaged, resume from the newest
        /// intact one instead of stopping with an error.
        from_intact: bool,
    },
}

/// Config keys (and sections, ending in `.`) that may change when a run is
/// resumed: stopping limits, threads, the device, the learning-rate schedule and other
/// learner settings, search and self-play budgets, evaluation. The model,
/// variant, rules, seed, optimiser kind, replay window and number of
/// parallel games may not (the checkpoint's state depends on them).
pub const RESUME_KEYS: [&str; 43] = [
    "iterations",
    "device",
    "time_limit_minutes",
    "threads",
    "keep_last",
    "keep_every_minutes",
    "checkpoint_dir",
    "run",
    "train.lr",
    "train.weight_decay",
    "train.warmup_steps",
    "train.schedule",
    "train.schedule_steps",
    "train.schedule_span",
    "train.min_lr_factor",
    "train.grad_clip",
    "train.batch_size",
    "train.sample_reuse",
    "train.min_samples",
    "train.window_share",
    "train.value_q_weight",
    "train.value_q_weight_final",
    "train.material_weight",
    "train.plies_left_weight",
    "train.reply_weight",
    "train.surprise_fraction",
    "search.",
    "eval.",
    "dist.",
    "selfplay.games_per_iteration",
    "selfplay.full_sims",
    "selfplay.cheap_sims",
    "selfplay.full_search_prob",
    "selfplay.cheap_samples",
    "selfplay.search_value",
    "selfplay.resign_threshold",
    "selfplay.resign_min_ply",
    "selfplay.skip_forced",
    "selfplay.eval_cache",
    "selfplay.full_sims_start",
    "selfplay.sims_ramp_steps",
    "self_train.",
    "expert.",
];

/// Refuse a `key=value` change whose key is not in [`RESUME_KEYS`]; the
/// error says the key cannot change `when` ("when a run is resumed").
pub fn check_resumable(sets: &[String], when: &str) -> Result<(), ConfigError> {
    for set in sets {
        let key = set.split_once('=').map_or(set.as_str(), |(k, _)| k).trim();
        if !resumable(key) {
            return Err(ConfigError::Set(
                set.clone(),
                format!(
                    "'{key}' cannot change {when} (these can: {})",
                    RESUME_KEYS.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// True when `key` may change on resume ([`RESUME_KEYS`]).
fn resumable(key: &str) -> bool {
    RESUME_KEYS.iter().any(|k| {
        if k.ends_with('.') {
            key.starts_with(k)
        } else {
            key == *k
        }
    })
}

/// A game a run can train: the network's encoding ([`Board`]), the
/// alpha-beta baseline's evaluation ([`Baseline`]) for its evaluation games,
/// and its exact values where it has them ([`OpenExactValues`]: endgame
/// tables for every [`TableGame`](crate::game::TableGame); a game without
/// tables declares it with an empty `impl OpenExactValues for ... {}`).
pub trait RunGame: Board + Baseline + OpenExactValues {}
impl<P: Board + Baseline + OpenExactValues> RunGame for P {}

/// The exact values (endgame tables) a config's `tablebase` names, opened
/// for its rules; None when it names none. Self-play of a run and of an
/// actor uses them.
pub fn config_exact_values<P: RunGame>(cfg: &RunConfig) -> Result<Option<Arc<dyn ExactValues<P>>>, String> {
    if cfg.tablebase.is_empty() {
        return Ok(None);
    }
    P::open_exact_values(Path::new(&cfg.tablebase), cfg.rules).map(Some)
}

/// The samples drawn from the endgame tables `tables` for round `round`
/// (a run's iteration, a learner's model version): the config's
/// `tablebase_samples` per one of the round's `new_samples` self-play
/// samples; none without tables.
pub fn table_samples<P: RunGame>(
    cfg: &RunConfig,
    tables: Option<&dyn ExactValues<P>>,
    new_samples: usize,
    round: u64,
) -> Vec<Sample<P>> {
    let Some(tables) = tables else {
        return Vec::new();
    };
    let count = (new_samples as f64 * cfg.tablebase_samples).round() as usize;
    let mut rng = crate::util::rng_stream(cfg.seed, "table-samples", round);
    exact_samples(tables, count, &mut rng)
}

/// The expert's evaluation a config names (`[expert]`), read before the
/// run folder is touched; None when the run plays no expert games.
fn open_expert<P: RunGame>(cfg: &RunConfig) -> Result<Option<Arc<crate::learned::LearnedEval>>, RunError> {
    cfg.expert
        .open(P::ID)
        .map_err(|e| ConfigError::Invalid(format!("for run {}", cfg.run), e).into())
}

/// Watches a run: called with every [`Event`], on the run's thread.
pub type Observer<'a> = dyn FnMut(&Event) + Send + 'a;

/// A training run of a game (see the module docs; Damone by default).
pub struct Run<P: RunGame> {
    cfg: RunConfig,
    dir: RunDir,
    start: P,
    trainer: Trainer,
    window: ReplayWindow<P>,
    selfplay: SelfPlay<P>,
    /// The expert's evaluation (`[expert]`), None when it plays no games.
    expert: Option<Arc<crate::learned::LearnedEval>>,
    state: CheckpointState,
    metrics: Vec<Metrics>,
    evals: Vec<EvalRow>,
    eval_games: Vec<EvalGameRow>,
    pool: Arc<rayon::ThreadPool>,
    compute: ComputeDevice,
    stop: Stop,
    /// The iteration a stop request cut short: the run's state in memory
    /// is then part-way through it, and no further iteration is played.
    interrupted: Option<u32>,
    resumed: bool,
    /// The run folder's lock, held while the run is open.
    _lock: FolderLock,
}

/// The game of the run that [`Run::open_with`] would open: the config's,
/// or on resume the checkpoint's (so that the caller can open it with the
/// game's type, e.g. with `with_game!` on its [`GameId::kind`]).
pub fn run_game(config: Option<&Path>, sets: &[String], start: &Start) -> Result<GameId, RunError> {
    let cfg = RunConfig::load(config, &locating_sets(sets, start))?;
    if let Start::Resume { from_intact, sets } = start {
        let dir = RunDir::new(cfg.run_dir());
        return Ok(checkpoint_for_resume(&dir, sets, *from_intact)?.config.game);
    }
    Ok(cfg.game)
}

/// The `--set`s that choose the run folder: all of them for a new run;
/// on resume only `run` and `checkpoint_dir` (the run's own config holds
/// the rest).
fn locating_sets(sets: &[String], start: &Start) -> Vec<String> {
    match start {
        Start::Resume { .. } => sets
            .iter()
            .filter(|s| s.starts_with("checkpoint_dir=") || s.starts_with("run="))
            .cloned()
            .collect(),
        _ => sets.to_vec(),
    }
}

impl<P: RunGame> Run<P> {
    /// Open the run folder `cfg.run_dir()` as `start` says; nothing is
    /// played yet. The run's game must be `P`'s.
    pub fn open(mut cfg: RunConfig, start: Start) -> Result<Run<P>, RunError> {
        let dir = RunDir::new(cfg.run_dir());
        let wrong_game = |found: GameId| RunError::WrongGame {
            dir: dir.root.clone(),
            found,
            expected: P::ID,
        };
        if !matches!(start, Start::Resume { .. }) {
            if cfg.game != P::ID {
                return Err(wrong_game(cfg.game));
            }
            cfg.fit_game::<P>()
                .map_err(|e| ConfigError::Invalid(format!("for run {}", cfg.run), e))?;
        }
        // The device is opened before the folder is touched: a device that
        // cannot be had leaves the folder as it was.
        let early = match start {
            Start::Resume { .. } => None,
            _ => Some(ComputeDevice::select(cfg.device)?),
        };
        let early_expert = match start {
            Start::Resume { .. } => None,
            _ => Some(open_expert::<P>(&cfg)?),
        };
        let lock = FolderLock::take(&dir)?;
        let resume = prepare_folder(&dir, &start)?;
        if let Some((ck, _)) = resume.as_ref().filter(|(ck, _)| ck.config.game != P::ID) {
            return Err(wrong_game(ck.config.game));
        }
        let (cfg, compute) = match &resume {
            Some((ck, sets)) => {
                let resumed = resumed_config(&cfg, ck, sets)?;
                let compute = ComputeDevice::select(resumed.device)?;
                log_resume(ck, sets, &dir)?;
                (resumed, compute)
            }
            None => {
                let compute = match early {
                    Some(d) => d,
                    None => ComputeDevice::select(cfg.device)?,
                };
                (cfg, compute)
            }
        };
        let mut run = Run::fresh(cfg, dir, compute, lock)?;
        let tables =
            config_exact_values(&run.cfg).map_err(|e| ConfigError::Invalid("tablebase".into(), e))?;
        run.selfplay.set_exact_values(tables);
        run.expert = match early_expert {
            Some(expert) => expert,
            None => open_expert::<P>(&run.cfg)?,
        };
        if let Some((ck, _)) = resume {
            run.restore(&ck)?;
        }
        run.selfplay.stop_on(run.stop.clone());
        run.trainer.stop_on(run.stop.clone());
        Ok(run)
    }

    /// A run at iteration 0 in `dir` (which exists).
    fn fresh(
        mut cfg: RunConfig,
        dir: RunDir,
        compute: ComputeDevice,
        lock: FolderLock,
    ) -> Result<Run<P>, RunError> {
        // The policy index's cells are the game's (a config read from text
        // has them already; one built in code may not).
        cfg.model.board = <P as crate::net::Board>::CELLS;
        let pool = crate::util::thread_pool(cfg.threads)
            .map(Arc::new)
            .map_err(|e| RunError::Io(dir.root.clone(), std::io::Error::other(e)))?;
        let variant = P::variant_named(&cfg.variant).map_err(|e| ConfigError::Invalid("(run)".into(), e))?;
        let start = P::start(variant);
        let device = compute.burn().clone();
        Ok(Run {
            _lock: lock,
            trainer: Trainer::seeded(cfg.model.clone(), cfg.train.clone(), device, cfg.seed),
            window: ReplayWindow::new(cfg.train.window),
            selfplay: SelfPlay::new(&cfg.selfplay, start, cfg.rules, cfg.seed),
            expert: None,
            state: CheckpointState {
                version: CHECKPOINT_VERSION,
                encoding_version: ENCODING_VERSION,
                iteration: 0,
                step: 0,
                games: 0,
                positions: 0,
                best_score: 0.0,
                best_iteration: 0,
                wall_s: 0.0,
                checksums: Default::default(),
            },
            metrics: Vec::new(),
            evals: Vec::new(),
            eval_games: Vec::new(),
            cfg,
            dir,
            start,
            pool,
            compute,
            stop: Stop::new(),
            interrupted: None,
            resumed: false,
        })
    }

    /// Continue from checkpoint `ck`: weights, optimiser, replay window,
    /// games in flight, state, and the logs up to its iteration.
    fn restore(&mut self, ck: &Checkpoint) -> Result<(), RunError> {
        let d = ck.dir.clone();
        self.trainer
            .restore(ck.read("model.bpk")?, ck.read("optimizer.bpk")?, ck.state.step)
            .map_err(|e| RunError::Restore(d.clone(), e))?;
        self.window =
            ReplayWindow::from_bytes(&ck.read("replay.bin")?).map_err(|e| RunError::Replay(d.clone(), e))?;
        self.selfplay
            .restore(&ck.read("selfplay.bin")?)
            .map_err(|e| RunError::InFlight(d.clone(), e))?;
        self.state = ck.state.clone();
        let upto = self.state.iteration;
        self.metrics = read_rows::<Metrics>(&self.dir.metrics_path())?;
        self.metrics.retain(|m| m.iteration <= upto);
        self.evals = read_rows::<EvalRow>(&self.dir.evals_path())?;
        self.evals.retain(|m| m.iteration <= upto);
        self.eval_games = read_rows::<EvalGameRow>(&self.dir.eval_games_path())?;
        self.eval_games.retain(|m| m.iteration <= upto);
        self.resumed = true;
        Ok(())
    }

    /// Open a run from a config file (None: the embedded default) and
    /// `sets`. On resume the file and `sets` only locate the run folder
    /// (`run`, `checkpoint_dir`); the run's own config is used, with the
    /// `sets` changes [`RESUME_KEYS`] allow.
    pub fn open_with(config: Option<&Path>, sets: &[String], start: Start) -> Result<Run<P>, RunError> {
        let cfg = RunConfig::load(config, &locating_sets(sets, &start))?;
        Run::open(cfg, start)
    }

    /// Open the run and play it to its limits.
    pub fn start(cfg: RunConfig, start: Start, observer: &mut Observer<'_>) -> Result<Run<P>, RunError> {
        let mut run = Run::open(cfg, start)?;
        run.run(observer)?;
        Ok(run)
    }

    /// The config in force (for a resumed run, the run's own).
    pub fn config(&self) -> &RunConfig {
        &self.cfg
    }
    /// The device the network trains and evaluates on.
    pub fn device(&self) -> &ComputeDevice {
        &self.compute
    }
    /// The run folder.
    pub fn dir(&self) -> &Path {
        &self.dir.root
    }
    /// The state of the last iteration completed.
    pub fn state(&self) -> &CheckpointState {
        &self.state
    }
    /// Every iteration's metrics so far.
    pub fn metrics(&self) -> &[Metrics] {
        &self.metrics
    }
    /// The run's stop flag: raised, the run stops at its next safe point
    /// (see [`Run::run`]).
    pub fn stopper(&self) -> Stop {
        self.stop.clone()
    }
    /// The same flag as an `Arc<AtomicBool>`.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.flag()
    }

    /// True when the config's iteration or time limit is reached.
    pub fn limit_reached(&self, wall_s: f64) -> bool {
        self.limit_reached_after(self.state.iteration, wall_s)
    }

    /// True when the config's limit is reached once `iteration` has been
    /// played, `wall_s` into the run.
    fn limit_reached_after(&self, iteration: u32, wall_s: f64) -> bool {
        (self.cfg.iterations > 0 && iteration >= self.cfg.iterations)
            || (self.cfg.time_limit_minutes > 0.0 && wall_s >= self.cfg.time_limit_minutes * 60.0)
    }

    /// The parts of the config this game cannot use, each as a notice:
    /// the learned evaluation and its self-training, which read 8x8 boards
    /// turned for Black, and what reads material in a game without it
    /// (switched off by [`RunConfig::fit_game`]).
    fn skipped_parts(&self) -> Vec<String> {
        let c = &self.cfg;
        let learned =
            c.learned_eval.train_in_run || c.learned_eval.interval > 0 || c.self_train.minutes_in_run > 0.0;
        let mut notices = Vec::new();
        if let Err(why) = crate::learned::features::check_board::<P>() {
            if learned {
                notices.push(format!(
                    "the learned evaluation and its self-training are skipped: {why}"
                ));
            }
        }
        if !config::has_material(&self.start) {
            notices.push(format!(
                "{} has no material: the material target, the material utility and the tactical check are off",
                P::ID
            ));
        }
        notices
    }

    /// Play iterations until a limit is reached or a stop is requested. A
    /// stop during an iteration drops that iteration (nothing of it is
    /// written; [`Event::Interrupted`] says so) and returns Ok: the newest
    /// checkpoint stays the one to resume from.
    pub fn run(&mut self, observer: &mut Observer<'_>) -> Result<(), RunError> {
        observer(&Event::Started {
            iteration: self.state.iteration + 1,
            resumed: self.resumed,
            dir: self.dir.root.clone(),
            device: self.compute.describe().to_string(),
        });
        for notice in self.skipped_parts() {
            observer(&Event::Notice(notice));
        }
        self.self_train_first(observer)?;
        let first = self.state.iteration;
        let t0 = Instant::now();
        let wall0 = self.state.wall_s;
        while !self.stop.requested() && !self.limit_reached(wall0 + t0.elapsed().as_secs_f64()) {
            match self.iterate_timed(observer, wall0, t0) {
                Ok(_) => {}
                Err(RunError::Interrupted(iteration)) => {
                    observer(&Event::Interrupted {
                        iteration,
                        kept: self.state.iteration,
                    });
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if self.interrupted.is_none() && self.limit_reached(self.state.wall_s) {
            self.self_train_phase(observer)?;
        }
        observer(&Event::Finished {
            iterations: self.state.iteration - first,
        });
        Ok(())
    }

    /// Play one iteration: self-play, training, evaluation when due, logs
    /// and checkpoint.
    pub fn iterate(&mut self, observer: &mut Observer<'_>) -> Result<Metrics, RunError> {
        let wall0 = self.state.wall_s;
        self.iterate_timed(observer, wall0, Instant::now())
    }

    fn iterate_timed(
        &mut self,
        observer: &mut Observer<'_>,
        wall0: f64,
        t0: Instant,
    ) -> Result<Metrics, RunError> {
        if let Some(k) = self.interrupted {
            return Err(RunError::Interrupted(k));
        }
        // Everything of the iteration (network, training, alpha-beta) runs
        // on the run's own pool of `threads` threads.
        let pool = self.pool.clone();
        pool.install(|| self.iteration_body(observer, wall0, t0))
    }

    /// The evaluation games of iteration `k` against every baseline depth.
    fn evaluate(&self, k: u32, observer: &mut Observer<'_>) -> Vec<EvalResult> {
        let cfg = &self.cfg;
        let mut settings = MatchSettings::from_start(self.start);
        settings.rules = cfg.rules;
        settings.seed = derive_seed(cfg.seed, "evaluation", 0);
        settings.opening_plies = cfg.eval.opening_plies;
        let params = cfg.search.for_play(cfg.eval.sims);
        let total = cfg.eval.games as u64 * cfg.eval.depths.len() as u64;
        observer(&Event::Phase {
            iteration: k,
            phase: Phase::Evaluation,
            total,
        });
        let mut done = 0;
        cfg.eval
            .depths
            .iter()
            .map(|&d| {
                let mut evaluator = NetEvaluator::on_device(self.trainer.net(), &self.compute);
                play_vs_alphabeta(
                    &mut evaluator,
                    &params,
                    &settings,
                    d,
                    cfg.eval.games as usize,
                    cfg.seed,
                    &mut || {
                        done += 1;
                        observer(&Event::Progress {
                            iteration: k,
                            phase: Phase::Evaluation,
                            done,
                        })
                    },
                    &self.stop,
                )
            })
            .collect()
    }
}

/// Make the run folder ready for `start`: refuse a new run over
/// checkpoints, clear it to overwrite, or pick the checkpoint to resume
/// (with the `--set`s to resume with).
fn prepare_folder(dir: &RunDir, start: &Start) -> Result<Option<(Checkpoint, Vec<String>)>, RunError> {
    let existing = dir.checkpoints();
    let resume = match start {
        Start::Resume { sets, from_intact } => {
            Some((checkpoint_for_resume(dir, sets, *from_intact)?, sets.clone()))
        }
        Start::New if !existing.is_empty() => return Err(RunError::Exists(dir.root.clone())),
        Start::Overwrite if !existing.is_empty() => {
            clear_folder(dir).map_err(|e| RunError::Io(dir.root.clone(), e))?;
            None
        }
        _ => None,
    };
    std::fs::create_dir_all(&dir.root).map_err(|e| RunError::Io(dir.root.clone(), e))?;
    Ok(resume)
}

/// Remove everything in the run folder but its lock (an overwrite).
fn clear_folder(dir: &RunDir) -> std::io::Result<()> {
    let lock = dir.lock_path();
    for entry in std::fs::read_dir(&dir.root)? {
        let entry = entry?;
        if entry.path() == lock {
            continue;
        }
        if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// A run folder held by this process: an exclusive lock on its
/// `run.lock` (which names the holder's process id), released when the
/// run is dropped or the process ends, so that two processes never train
/// one run at once (they would overwrite each other's checkpoints and
/// logs, and share the machine's time unawares).
struct FolderLock {
    _file: std::fs::File,
}

impl FolderLock {
    /// Lock `dir` (created if absent); refused while another process, or
    /// another open run of this one, holds it.
    fn take(dir: &RunDir) -> Result<FolderLock, RunError> {
        use std::io::{Read, Seek, Write};
        std::fs::create_dir_all(&dir.root).map_err(|e| RunError::Io(dir.root.clone(), e))?;
        let path = dir.lock_path();
        let io = |e| RunError::Io(path.clone(), e);
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                return Err(RunError::InUse(
                    dir.root.clone(),
                    crate::util::clip(holder.trim(), 60),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        write!(file, "process {}", std::process::id()).map_err(io)?;
        Ok(FolderLock { _file: file })
    }
}

/// The checkpoint a resume with `sets` continues from: refused when the
/// folder has none or a `set` changes a key a resume may not change.
fn checkpoint_for_resume(dir: &RunDir, sets: &[String], from_intact: bool) -> Result<Checkpoint, RunError> {
    if dir.checkpoints().is_empty() {
        return Err(RunError::NothingToResume(dir.root.clone()));
    }
    check_resumable(sets, "when a run is resumed")?;
    checkpoint_to_resume(dir, from_intact)
}

/// The newest checkpoint if it is intact; else, with `from_intact`, the
/// newest intact one, and without it an error naming that one.
fn checkpoint_to_resume(dir: &RunDir, from_intact: bool) -> Result<Checkpoint, RunError> {
    match dir.latest().and_then(|ck| ck.verify().map(|()| ck)) {
        Ok(ck) => Ok(ck),
        Err(e @ CheckpointError::Damaged(..)) => match dir.newest_intact() {
            Some(ok) if from_intact => Ok(ok),
            Some(ok) => {
                let name = ok
                    .dir
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                Err(RunError::Damaged(
                    e,
                    format!("the newest intact checkpoint is {name}: resume from it with --from-intact"),
                ))
            }
            None => Err(RunError::Damaged(e, "no checkpoint of this run is intact".into())),
        },
        Err(e) => Err(e.into()),
    }
}

/// A resumed run's config: the checkpoint's own, in the folder `cfg` names,
/// with `sets` applied.
fn resumed_config(cfg: &RunConfig, ck: &Checkpoint, sets: &[String]) -> Result<RunConfig, RunError> {
    let mut base = ck.config.clone();
    base.checkpoint_dir = cfg.checkpoint_dir.clone();
    base.run = cfg.run.clone();
    Ok(RunConfig::from_saved_toml(
        &base.to_toml(),
        sets,
        "(resumed run)",
    )?)
}

/// Append the changes a resume makes (its `--set`s) to the run folder's
/// `resume.log`.
fn log_resume(ck: &Checkpoint, sets: &[String], dir: &RunDir) -> Result<(), RunError> {
    let changes: Vec<&str> = sets
        .iter()
        .filter(|s| !s.starts_with("checkpoint_dir=") && !s.starts_with("run="))
        .map(String::as_str)
        .collect();
    if !changes.is_empty() {
        let line = format!(
            "iteration {}: resumed with {}\n",
            ck.state.iteration + 1,
            changes.join(" ")
        );
        let log = dir.root.join("resume.log");
        let mut text = std::fs::read_to_string(&log).unwrap_or_default();
        text.push_str(&line);
        atomic_write(&log, text.as_bytes()).map_err(|e| RunError::Write(log.clone(), e))?;
    }
    Ok(())
}
