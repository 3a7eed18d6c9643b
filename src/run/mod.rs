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
//! progress bars, a web page, a test), and can be stopped between
//! iterations through [`Run::stop_handle`].
//!
//! ```no_run
//! use damone::run::{Event, Run, RunConfig, Start};
//!
//! let mut cfg = RunConfig::load(None, &["iterations=2".into()])?;
//! cfg.checkpoint_dir = "/tmp/runs".into();
//! let mut run = Run::open(cfg, Start::Overwrite)?;
//! run.run(&mut |e: &Event| {
//!     if let Event::Iteration { metrics, .. } = e {
//!         println!("iteration {}: loss {:.3}", metrics.iteration, metrics.loss_policy);
//!     }
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod checkpoint;
pub mod config;
pub mod metrics;
pub mod plots;

pub use checkpoint::{
    Checkpoint, CheckpointError, CheckpointFiles, CheckpointState, RunDir, CHECKPOINT_VERSION,
};
pub use config::{ConfigError, DistConfig, EvalConfig, RunConfig, DEFAULT_CONFIG};
pub use metrics::{read_rows, write_rows, EvalGameRow, EvalRow, LogError, Metrics};

use crate::arena::evaluation::{play_vs_alphabeta, EvalResult};
use crate::arena::MatchSettings;
use crate::data::{ReplayError, ReplayWindow};
use crate::game::Position;
use crate::net::{ComputeDevice, DeviceError, NetEvaluator, ENCODING_VERSION};
use crate::selfplay::SelfPlay;
use crate::train::Trainer;
use crate::util::bin::BinError;
use crate::util::{atomic_write, cpu_busy_share, process_cpu_seconds, rng_stream};
use rand::Rng as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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
pub const RESUME_KEYS: [&str; 37] = [
    "iterations",
    "device",
    "time_limit_minutes",
    "threads",
    "keep_last",
    "checkpoint_dir",
    "run",
    "train.lr",
    "train.weight_decay",
    "train.warmup_steps",
    "train.schedule",
    "train.schedule_steps",
    "train.min_lr_factor",
    "train.grad_clip",
    "train.batch_size",
    "train.sample_reuse",
    "train.min_samples",
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
    "selfplay.resign_threshold",
    "selfplay.resign_min_ply",
    "selfplay.skip_forced",
    "selfplay.eval_cache",
    "selfplay.full_sims_start",
    "selfplay.sims_ramp_steps",
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

/// The phases of an iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Counted in finished games.
    SelfPlay,
    /// Counted in training steps.
    Training,
    /// Counted in evaluation games.
    Evaluation,
}

/// What a run reports to its observer.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The run is about to play `iteration` (the first since it was opened or resumed).
    Started {
        iteration: u32,
        resumed: bool,
        dir: PathBuf,
        /// The device the network runs on, in words.
        device: String,
    },
    /// A phase began; `total` units are expected.
    Phase {
        iteration: u32,
        phase: Phase,
        total: u64,
    },
    /// `done` units of the current phase are done.
    Progress { iteration: u32, phase: Phase, done: u64 },
    /// An iteration ended and its checkpoint is written.
    Iteration {
        metrics: Box<Metrics>,
        evals: Vec<EvalRow>,
        checkpoint: PathBuf,
    },
    /// The run stopped (limit reached or stop requested).
    Finished { iterations: u32 },
}

/// Why a run could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("run folder {0} already has checkpoints: resume it, overwrite it, or choose another run name")]
    Exists(PathBuf),
    #[error("--resume: no checkpoint in {0} (start without --resume)")]
    NothingToResume(PathBuf),
    #[error("{0}; {1}")]
    Damaged(CheckpointError, String),
    #[error("cannot use run folder {0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("checkpoint {0}: replay.bin: {1}")]
    Replay(PathBuf, ReplayError),
    #[error("checkpoint {0}: selfplay.bin: {1}")]
    InFlight(PathBuf, BinError),
    #[error("checkpoint {0} is corrupt or does not match its config: {1}")]
    Restore(PathBuf, String),
    #[error("cannot serialise the network: {0}")]
    Weights(String),
    #[error("device: {0}")]
    Device(#[from] DeviceError),
}

/// Watches a run: called with every [`Event`], on the run's thread.
pub type Observer<'a> = dyn FnMut(&Event) + Send + 'a;

/// A training run (see the module docs).
pub struct Run {
    cfg: RunConfig,
    dir: RunDir,
    start: Position,
    trainer: Trainer,
    window: ReplayWindow,
    selfplay: SelfPlay,
    state: CheckpointState,
    metrics: Vec<Metrics>,
    evals: Vec<EvalRow>,
    eval_games: Vec<EvalGameRow>,
    pool: Arc<rayon::ThreadPool>,
    compute: ComputeDevice,
    stop: Arc<AtomicBool>,
    resumed: bool,
}

impl Run {
    /// Open the run folder `cfg.run_dir()` as `start` says; nothing is
    /// played yet.
    pub fn open(cfg: RunConfig, start: Start) -> Result<Run, RunError> {
        let dir = RunDir::new(cfg.run_dir());
        let existing = dir.checkpoints();
        // The device is opened before the folder is touched: a device that
        // cannot be had leaves the folder as it was.
        let early = match start {
            Start::Resume { .. } => None,
            _ => Some(ComputeDevice::select(cfg.device)?),
        };
        let resume = match &start {
            Start::Resume { sets, from_intact } => {
                if existing.is_empty() {
                    return Err(RunError::NothingToResume(dir.root));
                }
                check_resumable(sets, "when a run is resumed")?;
                let ck = match dir.latest().and_then(|ck| ck.verify().map(|()| ck)) {
                    Ok(ck) => ck,
                    Err(e @ CheckpointError::Damaged(..)) => match dir.newest_intact() {
                        Some(ok) if *from_intact => ok,
                        Some(ok) => {
                            let name = ok
                                .dir
                                .file_name()
                                .unwrap_or_default()
                                .to_string_lossy()
                                .into_owned();
                            return Err(RunError::Damaged(
                                e,
                                format!("the newest intact checkpoint is {name}: resume from it with --from-intact"),
                            ));
                        }
                        None => {
                            return Err(RunError::Damaged(e, "no checkpoint of this run is intact".into()))
                        }
                    },
                    Err(e) => return Err(e.into()),
                };
                Some((ck, sets.clone()))
            }
            Start::New if !existing.is_empty() => return Err(RunError::Exists(dir.root)),
            Start::Overwrite if !existing.is_empty() => {
                std::fs::remove_dir_all(&dir.root).map_err(|e| RunError::Io(dir.root.clone(), e))?;
                None
            }
            _ => None,
        };
        std::fs::create_dir_all(&dir.root).map_err(|e| RunError::Io(dir.root.clone(), e))?;
        let (cfg, compute) = match &resume {
            Some((ck, sets)) => {
                let mut base = ck.config.clone();
                base.checkpoint_dir = cfg.checkpoint_dir.clone();
                base.run = cfg.run.clone();
                let c = RunConfig::from_saved_toml(&base.to_toml(), sets, "(resumed run)")?;
                let compute = ComputeDevice::select(c.device)?;
                let changes: Vec<&String> = sets
                    .iter()
                    .filter(|s| !s.starts_with("checkpoint_dir=") && !s.starts_with("run="))
                    .collect();
                if !changes.is_empty() {
                    let line = format!(
                        "iteration {}: resumed with {}\n",
                        ck.state.iteration + 1,
                        changes.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")
                    );
                    let log = dir.root.join("resume.log");
                    let mut text = std::fs::read_to_string(&log).unwrap_or_default();
                    text.push_str(&line);
                    atomic_write(&log, text.as_bytes()).map_err(|e| RunError::Io(log.clone(), e))?;
                }
                (c, compute)
            }
            None => {
                let compute = match early {
                    Some(d) => d,
                    None => ComputeDevice::select(cfg.device)?,
                };
                (cfg, compute)
            }
        };
        let pool = crate::util::thread_pool(cfg.threads)
            .map(Arc::new)
            .map_err(|e| RunError::Io(dir.root.clone(), std::io::Error::other(e)))?;
        let start_pos = Position::start(cfg.variant);
        let device = compute.burn().clone();
        device.seed(cfg.seed);
        let mut trainer = Trainer::new(cfg.model.clone(), cfg.train.clone(), device);
        let mut window = ReplayWindow::new(cfg.train.window);
        let mut selfplay = SelfPlay::new(&cfg.selfplay, start_pos, cfg.rules, cfg.seed);
        let mut state = CheckpointState {
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
        };
        let mut metrics = Vec::new();
        let mut evals = Vec::new();
        let mut eval_games = Vec::new();
        let resumed = resume.is_some();
        if let Some((ck, _)) = resume {
            let d = ck.dir.clone();
            trainer
                .restore(ck.read("model.bpk")?, ck.read("optimizer.bpk")?, ck.state.step)
                .map_err(|e| RunError::Restore(d.clone(), e))?;
            window = ReplayWindow::from_bytes(&ck.read("replay.bin")?)
                .map_err(|e| RunError::Replay(d.clone(), e))?;
            selfplay
                .restore(&ck.read("selfplay.bin")?)
                .map_err(|e| RunError::InFlight(d.clone(), e))?;
            state = ck.state.clone();
            let upto = state.iteration;
            metrics = read_rows::<Metrics>(&dir.metrics_path())?;
            metrics.retain(|m| m.iteration <= upto);
            evals = read_rows::<EvalRow>(&dir.evals_path())?;
            evals.retain(|m| m.iteration <= upto);
            eval_games = read_rows::<EvalGameRow>(&dir.eval_games_path())?;
            eval_games.retain(|m| m.iteration <= upto);
        }
        Ok(Run {
            cfg,
            dir,
            start: start_pos,
            trainer,
            window,
            selfplay,
            state,
            metrics,
            evals,
            eval_games,
            pool,
            compute,
            stop: Arc::new(AtomicBool::new(false)),
            resumed,
        })
    }

    /// Open the run and play it to its limits.
    pub fn start(cfg: RunConfig, start: Start, observer: &mut Observer<'_>) -> Result<Run, RunError> {
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
    /// Set the flag to stop the run after the iteration under way.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// True when the config's iteration or time limit is reached.
    pub fn limit_reached(&self, wall_s: f64) -> bool {
        (self.cfg.iterations > 0 && self.state.iteration >= self.cfg.iterations)
            || (self.cfg.time_limit_minutes > 0.0 && wall_s >= self.cfg.time_limit_minutes * 60.0)
    }

    /// Play iterations until a limit is reached or a stop is requested.
    pub fn run(&mut self, observer: &mut Observer<'_>) -> Result<(), RunError> {
        observer(&Event::Started {
            iteration: self.state.iteration + 1,
            resumed: self.resumed,
            dir: self.dir.root.clone(),
            device: self.compute.describe().to_string(),
        });
        let first = self.state.iteration;
        let t0 = Instant::now();
        let wall0 = self.state.wall_s;
        while !self.stop.load(Ordering::Relaxed) && !self.limit_reached(wall0 + t0.elapsed().as_secs_f64()) {
            self.iterate_timed(observer, wall0, t0)?;
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
        // Everything of the iteration (network, training, alpha-beta) runs
        // on the run's own pool of `threads` threads.
        let pool = self.pool.clone();
        pool.install(|| self.iteration_body(observer, wall0, t0))
    }

    fn iteration_body(
        &mut self,
        observer: &mut Observer<'_>,
        wall0: f64,
        t0: Instant,
    ) -> Result<Metrics, RunError> {
        let cfg = self.cfg.clone();
        let k = self.state.iteration + 1;
        let t_iter = Instant::now();
        // Self-play.
        let mut evaluator = NetEvaluator::on_device(self.trainer.net(), &self.compute);
        observer(&Event::Phase {
            iteration: k,
            phase: Phase::SelfPlay,
            total: cfg.selfplay.games_per_iteration as u64,
        });
        let sp_seed = rng_stream(cfg.seed, "selfplay", k as u64).random();
        let t_sp = Instant::now();
        let cpu_sp = process_cpu_seconds();
        let live_path = self.dir.root.join("live.json");
        let mut live_at: Option<Instant> = None;
        let sp_cfg = cfg.selfplay.at_step(self.trainer.step);
        let (samples, stats) = self.selfplay.run_iteration(
            &cfg.search,
            &sp_cfg,
            &mut evaluator,
            sp_seed,
            &mut |s| {
                observer(&Event::Progress {
                    iteration: k,
                    phase: Phase::SelfPlay,
                    done: s.games as u64,
                })
            },
            &mut |g| {
                // The first game slot, for a live view (at most twice a second).
                if live_at.is_none_or(|t| t.elapsed().as_millis() >= 500) {
                    live_at = Some(Instant::now());
                    let live = serde_json::json!({
                        "iteration": k,
                        "ply": g.ply(),
                        "variant": g.position().variant().name(),
                        "fen": g.position().to_fen(),
                    });
                    let _ = atomic_write(&live_path, live.to_string().as_bytes());
                }
            },
        );
        let selfplay_s = t_sp.elapsed().as_secs_f64();
        let cpu_tr = process_cpu_seconds();
        let selfplay_busy = cpu_busy_share(cpu_sp, cpu_tr, selfplay_s, cfg.threads);
        let new_samples = samples.len();
        self.window.extend(samples);
        // Training.
        let mut rng = rng_stream(cfg.seed, "iteration", k as u64);
        let steps = cfg.train.steps_for(new_samples, self.window.len());
        observer(&Event::Phase {
            iteration: k,
            phase: Phase::Training,
            total: steps,
        });
        let t_tr = Instant::now();
        let lr = cfg.train.lr_at(self.trainer.step);
        let mut done = 0;
        let losses = self.trainer.train(&self.window, steps, &mut rng, || {
            done += 1;
            observer(&Event::Progress {
                iteration: k,
                phase: Phase::Training,
                done,
            })
        });
        let train_s = t_tr.elapsed().as_secs_f64();
        let train_busy = cpu_busy_share(cpu_tr, process_cpu_seconds(), train_s, cfg.threads);
        // Evaluation.
        let is_last = cfg.iterations > 0 && k == cfg.iterations;
        let t_ev = Instant::now();
        let mut results = Vec::new();
        if cfg.eval.interval > 0 && (k.is_multiple_of(cfg.eval.interval) || is_last) {
            results = self.evaluate(k, observer);
            let mean = results.iter().map(|r| r.score().0).sum::<f64>() / results.len().max(1) as f64;
            if mean > self.state.best_score || self.state.best_iteration == 0 {
                self.state.best_score = mean;
                self.state.best_iteration = k;
            }
        }
        let eval_s = t_ev.elapsed().as_secs_f64();
        // Bookkeeping.
        let wall = wall0 + t0.elapsed().as_secs_f64();
        self.state.iteration = k;
        self.state.step = self.trainer.step;
        self.state.games += stats.games as u64;
        self.state.positions += stats.plies;
        self.state.wall_s = wall;
        let round = |x: f64, d: i32| (x * 10f64.powi(d)).round() / 10f64.powi(d);
        let m = Metrics {
            iteration: k,
            wall_s: round(wall, 1),
            iter_s: round(t_iter.elapsed().as_secs_f64(), 2),
            selfplay_s: round(selfplay_s, 2),
            train_s: round(train_s, 2),
            eval_s: round(eval_s, 2),
            games: stats.games,
            total_games: self.state.games,
            positions: stats.plies,
            total_positions: self.state.positions,
            games_in_flight: stats.in_flight,
            samples: new_samples as u64,
            window: self.window.len() as u64,
            steps,
            total_steps: self.trainer.step,
            positions_per_s: round(stats.plies as f64 / selfplay_s.max(1e-9), 1),
            samples_per_s: round(steps as f64 * cfg.train.batch_size as f64 / train_s.max(1e-9), 1),
            net_evals: stats.evals,
            selfplay_evals_per_s: round(stats.evals as f64 / selfplay_s.max(1e-9), 1),
            net_evals_per_s: round(stats.evals as f64 / stats.eval_seconds.max(1e-9), 1),
            mean_batch: round(stats.mean_batch(), 2),
            min_batch: stats.min_batch,
            search_share: round(1.0 - stats.eval_seconds / selfplay_s.max(1e-9), 3),
            selfplay_cpu_busy: round(selfplay_busy, 3),
            train_cpu_busy: round(train_busy, 3),
            loss_policy: round(losses.policy, 5),
            loss_value: round(losses.value, 5),
            loss_aux: round(losses.aux, 5),
            lr: round(lr, 7),
            white_wins: stats.white_wins,
            black_wins: stats.black_wins,
            draws: stats.draws,
            resignations: stats.resignations,
            resign_checks: stats.resign_checks,
            resign_false_positives: stats.resign_false_positives,
            forced_plies: stats.forced,
            cache_hits: stats.cache_hits,
            full_sims: sp_cfg.full_sims,
        };
        let new_evals: Vec<EvalRow> = results
            .iter()
            .map(|r| {
                let (score, ci) = r.score();
                EvalRow {
                    iteration: k,
                    wall_s: m.wall_s,
                    opponent: r.opponent(),
                    depth: r.depth,
                    wins: r.wins,
                    draws: r.draws,
                    losses: r.losses,
                    score: round(score, 4),
                    score_95: round(ci, 4),
                }
            })
            .collect();
        for r in &results {
            for (i, g) in r.games.iter().enumerate() {
                self.eval_games.push(EvalGameRow {
                    iteration: k,
                    opponent: r.opponent(),
                    game: i as u32 + 1,
                    net_color: g.color.name().to_string(),
                    result: g.outcome.pdn_result().to_string(),
                    score: g.outcome.score_for(g.color),
                    plies: g.plies as u32,
                    reason: g.outcome.reason.name().to_string(),
                });
            }
        }
        self.metrics.push(m.clone());
        self.evals.extend(new_evals.iter().cloned());
        // Logs first, then the checkpoint: a crash in between loses at most
        // this iteration, whose rows a resume drops.
        write_rows(&self.dir.metrics_path(), &self.metrics)?;
        write_rows(&self.dir.evals_path(), &self.evals)?;
        write_rows(&self.dir.eval_games_path(), &self.eval_games)?;
        let model = self.trainer.weights_bytes().map_err(RunError::Weights)?;
        let optimizer = self.trainer.optimizer_bytes().map_err(RunError::Weights)?;
        let checkpoint = self.dir.write(
            k,
            &CheckpointFiles {
                state: &self.state,
                config: &self.cfg,
                model: &model,
                optimizer: &optimizer,
                replay: &self.window.to_bytes(),
                selfplay: &self.selfplay.to_bytes(),
            },
        )?;
        self.dir.prune(cfg.keep_last, self.state.best_iteration);
        observer(&Event::Iteration {
            metrics: Box::new(m.clone()),
            evals: new_evals,
            checkpoint,
        });
        Ok(m)
    }

    /// The evaluation games of iteration `k` against every baseline depth.
    fn evaluate(&self, k: u32, observer: &mut Observer<'_>) -> Vec<EvalResult> {
        let cfg = &self.cfg;
        let mut settings = MatchSettings::new(cfg.variant);
        settings.start = self.start;
        settings.rules = cfg.rules;
        settings.seed = cfg.seed ^ 0xE7A1_0000;
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
                )
            })
            .collect()
    }
}
