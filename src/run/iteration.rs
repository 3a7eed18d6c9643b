//! One iteration of a [`Run`], as its phases: self-play, learn, evaluate,
//! then log and checkpoint. Each phase returns its own stats, and the
//! iteration's [`Metrics`] row is built from them.

use super::{
    write_rows, CheckpointFiles, EvalGameRow, EvalRow, Event, Metrics, Observer, Phase, Run, RunError,
};
use crate::arena::evaluation::EvalResult;
use crate::net::NetEvaluator;
use crate::selfplay::SelfPlayStats;
use crate::train::Losses;
use crate::util::{atomic_write, cpu_busy_share, process_cpu_seconds, rng_stream};
use rand::Rng as _;
use std::path::PathBuf;
use std::time::Instant;

/// What the self-play phase did.
pub struct SelfPlayPhase {
    /// Samples added to the replay window.
    pub samples: usize,
    /// Self-play's counts (games, results, resignations, evaluations).
    pub stats: SelfPlayStats,
    /// Seconds of self-play.
    pub seconds: f64,
    /// CPU time over threads x wall time (NaN where unknown).
    pub cpu_busy: f64,
    /// Simulations of this iteration's full searches.
    pub full_sims: u32,
}

/// What the expert's games gave (all zero when the run plays none).
#[derive(Default)]
pub struct ExpertPhase {
    /// Games played.
    pub games: usize,
    /// Samples added to the replay window.
    pub samples: usize,
    /// Seconds of the games.
    pub seconds: f64,
}

/// What the learning phase did.
pub struct LearnPhase {
    /// Training steps taken.
    pub steps: u64,
    /// The steps' mean losses.
    pub losses: Losses,
    /// The learning rate at the phase's first step.
    pub lr: f64,
    /// Seconds of training.
    pub seconds: f64,
    /// CPU time over threads x wall time (NaN where unknown).
    pub cpu_busy: f64,
}

/// What the evaluation phase played (nothing when not due).
pub struct EvalPhase {
    /// One result per baseline.
    pub results: Vec<EvalResult>,
    /// Seconds of the evaluation games.
    pub seconds: f64,
}

/// What the learned-evaluation phase made (nothing when not due).
pub struct LearnedEvalPhase {
    /// The learned evaluation made, if one was due.
    pub file: Option<crate::learned::EvalFile>,
    /// Its loss on held-out positions (0 when none was made).
    pub held_out_loss: f64,
    /// Seconds of labelling and training.
    pub seconds: f64,
}

/// `x` rounded to `digits` decimals, as the logs keep it.
pub(super) fn round(x: f64, digits: i32) -> f64 {
    (x * 10f64.powi(digits)).round() / 10f64.powi(digits)
}

impl<P: super::RunGame> Run<P> {
    /// Play iteration `state.iteration + 1` on the run's pool.
    pub(super) fn iteration_body(
        &mut self,
        observer: &mut Observer<'_>,
        wall0: f64,
        t0: Instant,
    ) -> Result<Metrics, RunError> {
        let k = self.state.iteration + 1;
        let t_iter = Instant::now();
        let share = self
            .cfg
            .planned_share(self.state.iteration, wall0 + t0.elapsed().as_secs_f64());
        self.trainer.set_run_share(share);
        let selfplay = self.self_play_phase(k, observer);
        self.check_stop(k)?;
        let expert = self.expert_phase(k, observer);
        self.check_stop(k)?;
        let learn = self.learn_phase(k, selfplay.samples + expert.samples, observer);
        self.check_stop(k)?;
        let eval = self.evaluation_phase(k, observer);
        self.check_stop(k)?;
        let learned = self.learned_eval_phase(k, wall0 + t0.elapsed().as_secs_f64(), observer);
        self.check_stop(k)?;
        let wall = wall0 + t0.elapsed().as_secs_f64();
        self.state.iteration = k;
        self.state.step = self.trainer.step;
        self.state.games += selfplay.stats.games as u64;
        self.state.positions += selfplay.stats.plies;
        self.state.wall_s = wall;
        let iteration_s = t_iter.elapsed().as_secs_f64();
        let m = Metrics::from_phases(self, (&selfplay, &expert), &learn, &eval, &learned, iteration_s);
        let new_evals = self.log(&m, &eval)?;
        let checkpoint = self.checkpoint()?;
        if let Some(file) = &learned.file {
            let path = checkpoint.join(crate::learned::EVAL_FILE_NAME);
            file.write(&path).map_err(|e| RunError::Write(path, e))?;
        }
        observer(&Event::Iteration {
            metrics: Box::new(m.clone()),
            evals: new_evals,
            checkpoint,
        });
        Ok(m)
    }

    /// Give up iteration `k` if a stop was requested during it.
    fn check_stop(&mut self, k: u32) -> Result<(), RunError> {
        if self.stop.requested() {
            self.interrupted = Some(k);
            return Err(RunError::Interrupted(k));
        }
        Ok(())
    }

    /// Self-play until the iteration's games have finished; their samples
    /// go into the replay window.
    fn self_play_phase(&mut self, k: u32, observer: &mut Observer<'_>) -> SelfPlayPhase {
        let cfg = &self.cfg;
        let mut evaluator = NetEvaluator::on_device(self.trainer.net(), &self.compute);
        observer(&Event::Phase {
            iteration: k,
            phase: Phase::SelfPlay,
            total: cfg.selfplay.games_per_iteration as u64,
        });
        let seed = rng_stream(cfg.seed, "selfplay", k as u64).random();
        let t = Instant::now();
        let cpu = process_cpu_seconds();
        let live = LiveView::new(self.dir.live_path(), k);
        let sp_cfg = cfg.selfplay.at_step(self.trainer.schedule_step());
        let (samples, stats) = self.selfplay.run_iteration(
            &cfg.search,
            &sp_cfg,
            &mut evaluator,
            seed,
            &mut |s| {
                observer(&Event::Progress {
                    iteration: k,
                    phase: Phase::SelfPlay,
                    done: s.games as u64,
                })
            },
            &mut |g| live.show(g),
        );
        let seconds = t.elapsed().as_secs_f64();
        let cpu_busy = cpu_busy_share(cpu, process_cpu_seconds(), seconds, cfg.threads);
        let phase = SelfPlayPhase {
            samples: samples.len(),
            stats,
            seconds,
            cpu_busy,
            full_sims: sp_cfg.full_sims,
        };
        self.window
            .extend_growing(samples, |made| cfg.train.window_for(made));
        let drawn = super::table_samples(&self.cfg, self.selfplay.exact_values(), phase.samples, k as u64);
        self.window.extend(drawn);
        phase
    }

    /// The expert's games (`[expert]`), when the run has an expert: their
    /// samples go into the replay window after the self-play's.
    fn expert_phase(&mut self, k: u32, observer: &mut Observer<'_>) -> ExpertPhase {
        let Some(eval) = self.expert.clone() else {
            return ExpertPhase::default();
        };
        let cfg = &self.cfg;
        let total = cfg.expert.games_per_iteration as u64;
        observer(&Event::Phase {
            iteration: k,
            phase: Phase::Expert,
            total,
        });
        let t = Instant::now();
        let seed = rng_stream(cfg.seed, "expert", k as u64).random();
        let report = std::sync::Mutex::new(&mut *observer);
        let on_game = |done: usize| {
            (report.lock().expect("observer"))(&Event::Progress {
                iteration: k,
                phase: Phase::Expert,
                done: done as u64,
            })
        };
        let played = self.pool.install(|| {
            super::expert::play_expert_games(&eval, &cfg.expert, (self.start, cfg.rules), seed, &on_game)
        });
        let phase = ExpertPhase {
            games: played.games,
            samples: played.samples.len(),
            seconds: t.elapsed().as_secs_f64(),
        };
        self.window
            .extend_growing(played.samples, |made| cfg.train.window_for(made));
        phase
    }

    /// Train the steps `new_samples` are worth on the replay window.
    fn learn_phase(&mut self, k: u32, new_samples: usize, observer: &mut Observer<'_>) -> LearnPhase {
        let cfg = &self.cfg;
        let mut rng = rng_stream(cfg.seed, "iteration", k as u64);
        let steps = cfg.train.steps_for(new_samples, self.window.len());
        observer(&Event::Phase {
            iteration: k,
            phase: Phase::Training,
            total: steps,
        });
        let t = Instant::now();
        let cpu = process_cpu_seconds();
        let lr = self.trainer.lr();
        let mut done = 0;
        let losses = self.trainer.train(&self.window, steps, &mut rng, || {
            done += 1;
            observer(&Event::Progress {
                iteration: k,
                phase: Phase::Training,
                done,
            })
        });
        let seconds = t.elapsed().as_secs_f64();
        LearnPhase {
            steps,
            losses,
            lr,
            seconds,
            cpu_busy: cpu_busy_share(cpu, process_cpu_seconds(), seconds, cfg.threads),
        }
    }

    /// The evaluation games when due (every `eval.interval` iterations and
    /// at the last); the best checkpoint follows their mean score.
    fn evaluation_phase(&mut self, k: u32, observer: &mut Observer<'_>) -> EvalPhase {
        let cfg = &self.cfg;
        let is_last = cfg.iterations > 0 && k == cfg.iterations;
        let t = Instant::now();
        let mut results = Vec::new();
        if cfg.eval.interval > 0 && (k.is_multiple_of(cfg.eval.interval) || is_last) {
            results = self.evaluate(k, observer);
            let mean = results.iter().map(|r| r.score().0).sum::<f64>() / results.len().max(1) as f64;
            if mean > self.state.best_score || self.state.best_iteration == 0 {
                self.state.best_score = mean;
                self.state.best_iteration = k;
            }
        }
        EvalPhase {
            results,
            seconds: t.elapsed().as_secs_f64(),
        }
    }

    /// The learned evaluation for alpha-beta, when due: at the run's last
    /// iteration (`learned_eval.train_in_run`; `wall` tells a time limit's)
    /// and every `learned_eval.interval` iterations. A window with too few
    /// positions makes none.
    fn learned_eval_phase(&mut self, k: u32, wall: f64, observer: &mut Observer<'_>) -> LearnedEvalPhase {
        let last = self.limit_reached_after(k, wall);
        let cfg = &self.cfg;
        let c = &cfg.learned_eval;
        let due = (c.train_in_run && last) || (c.interval > 0 && k.is_multiple_of(c.interval));
        let t = Instant::now();
        let mut phase = LearnedEvalPhase {
            file: None,
            held_out_loss: 0.0,
            seconds: 0.0,
        };
        // The learned evaluation reads 8x8 boards; a game on another board
        // trains none.
        if !due || !crate::learned::features::reads::<P>() {
            return phase;
        }
        let what = format!("iteration {k} of run {}", cfg.run);
        let seed = crate::util::derive_seed(cfg.seed, "learned-eval", k as u64);
        let mut started = false;
        let mut progress = |p: super::learned_eval::LearnEvalProgress| {
            if !started {
                started = true;
                observer(&Event::Phase {
                    iteration: k,
                    phase: Phase::LearnedEval,
                    total: c.epochs as u64,
                });
            }
            if let super::learned_eval::LearnEvalProgress::Epoch(done, _) = p {
                observer(&Event::Progress {
                    iteration: k,
                    phase: Phase::LearnedEval,
                    done: done as u64,
                });
            }
        };
        let trained = super::learned_eval::train_on_window(
            &self.window,
            self.trainer.net(),
            c,
            seed,
            &what,
            &mut progress,
        );
        if let Ok((file, stats)) = trained {
            phase.held_out_loss = stats.report.held_out_loss.last().copied().unwrap_or(0.0) as f64;
            phase.file = Some(file);
        }
        phase.seconds = t.elapsed().as_secs_f64();
        phase
    }

    /// Append the iteration's rows to the logs and write them; the new
    /// evaluation rows.
    fn log(&mut self, m: &Metrics, eval: &EvalPhase) -> Result<Vec<EvalRow>, RunError> {
        let new_evals: Vec<EvalRow> = eval.results.iter().map(|r| EvalRow::of(m, r)).collect();
        for r in &eval.results {
            self.eval_games.extend(EvalGameRow::of_games(m.iteration, r));
        }
        self.metrics.push(m.clone());
        self.evals.extend(new_evals.iter().cloned());
        // Logs first, then the checkpoint: a crash in between loses at most
        // this iteration, whose rows a resume drops.
        write_rows(&self.dir.metrics_path(), &self.metrics)?;
        write_rows(&self.dir.evals_path(), &self.evals)?;
        write_rows(&self.dir.eval_games_path(), &self.eval_games)?;
        Ok(new_evals)
    }

    /// Write the iteration's checkpoint, then prune old ones.
    fn checkpoint(&mut self) -> Result<PathBuf, RunError> {
        let model = self.trainer.weights_bytes().map_err(RunError::Weights)?;
        let optimizer = self.trainer.optimizer_bytes().map_err(RunError::Weights)?;
        let checkpoint = self.dir.write(
            self.state.iteration,
            &CheckpointFiles {
                state: &self.state,
                config: &self.cfg,
                model: &model,
                optimizer: &optimizer,
                replay: &self.window.to_bytes(),
                selfplay: &self.selfplay.to_bytes(),
            },
        )?;
        self.dir.prune(self.cfg.keep_last, &self.kept_iterations());
        Ok(checkpoint)
    }

    /// The iterations whose checkpoints stay whatever `keep_last` says: the
    /// best, and with `keep_every_minutes` the first past each multiple of
    /// it (read from the logged wall times, so resumes keep the same).
    fn kept_iterations(&self) -> Vec<u32> {
        let mut keep = vec![self.state.best_iteration];
        let every = self.cfg.keep_every_minutes * 60.0;
        if every > 0.0 {
            let mut before = 0.0;
            for m in &self.metrics {
                if (m.wall_s / every).floor() > (before / every).floor() {
                    keep.push(m.iteration);
                }
                before = m.wall_s;
            }
        }
        keep
    }
}

/// The first game slot's position in `live.json`, for a live view, at most
/// twice a second.
struct LiveView {
    path: PathBuf,
    iteration: u32,
    last: std::cell::Cell<Option<Instant>>,
}

impl LiveView {
    fn new(path: PathBuf, iteration: u32) -> LiveView {
        LiveView {
            path,
            iteration,
            last: std::cell::Cell::new(None),
        }
    }

    fn show<P: crate::game::GamePosition>(&self, g: &crate::game::Game<P>) {
        if self.last.get().is_some_and(|t| t.elapsed().as_millis() < 500) {
            return;
        }
        self.last.set(Some(Instant::now()));
        let live = super::LivePosition {
            iteration: self.iteration,
            ply: g.ply(),
            game: P::ID,
            variant: P::variant_name(g.position().variant()).to_string(),
            fen: g.position().to_setup(),
        };
        if let Ok(bytes) = serde_json::to_vec(&live) {
            let _ = atomic_write(&self.path, &bytes);
        }
    }
}

impl Metrics {
    /// The row of the iteration `run` has just played (its state updated),
    /// from its phases' stats.
    pub(super) fn from_phases<P: super::RunGame>(
        run: &Run<P>,
        (sp, expert): (&SelfPlayPhase, &ExpertPhase),
        learn: &LearnPhase,
        eval: &EvalPhase,
        learned: &LearnedEvalPhase,
        iteration_s: f64,
    ) -> Metrics {
        let (stats, state) = (&sp.stats, &run.state);
        let sp_s = sp.seconds.max(1e-9);
        Metrics {
            iteration: state.iteration,
            wall_s: round(state.wall_s, 1),
            iter_s: round(iteration_s, 2),
            selfplay_s: round(sp.seconds, 2),
            train_s: round(learn.seconds, 2),
            eval_s: round(eval.seconds, 2),
            games: stats.games,
            total_games: state.games,
            positions: stats.plies,
            total_positions: state.positions,
            games_in_flight: stats.in_flight,
            samples: sp.samples as u64,
            window: run.window.len() as u64,
            steps: learn.steps,
            total_steps: run.trainer.step,
            positions_per_s: round(stats.plies as f64 / sp_s, 1),
            samples_per_s: round(
                learn.steps as f64 * run.cfg.train.batch_size as f64 / learn.seconds.max(1e-9),
                1,
            ),
            net_evals: stats.evals,
            selfplay_evals_per_s: round(stats.evals as f64 / sp_s, 1),
            net_evals_per_s: round(stats.evals as f64 / stats.eval_seconds.max(1e-9), 1),
            mean_batch: round(stats.mean_batch(), 2),
            min_batch: stats.min_batch,
            search_share: round(1.0 - stats.eval_seconds / sp_s, 3),
            selfplay_cpu_busy: round(sp.cpu_busy, 3),
            train_cpu_busy: round(learn.cpu_busy, 3),
            loss_policy: round(learn.losses.policy, 5),
            loss_value: round(learn.losses.value, 5),
            policy_entropy: round(learn.losses.policy_entropy, 5),
            loss_aux: round(learn.losses.aux, 5),
            lr: round(learn.lr, 7),
            white_wins: stats.white_wins,
            black_wins: stats.black_wins,
            draws: stats.draws,
            resignations: stats.resignations,
            resign_checks: stats.resign_checks,
            resign_false_positives: stats.resign_false_positives,
            forced_plies: stats.forced,
            cache_hits: stats.cache_hits,
            full_sims: sp.full_sims,
            expert_games: expert.games,
            expert_samples: expert.samples as u64,
            expert_s: round(expert.seconds, 2),
            learned_eval_s: round(learned.seconds, 2),
            learned_eval_loss: round(learned.held_out_loss, 5),
        }
    }
}

impl EvalRow {
    /// The row of one baseline's evaluation games in the iteration of `m`.
    fn of(m: &Metrics, r: &EvalResult) -> EvalRow {
        let (score, ci) = r.score();
        EvalRow {
            iteration: m.iteration,
            wall_s: m.wall_s,
            opponent: r.opponent(),
            depth: r.depth,
            wins: r.wins,
            draws: r.draws,
            losses: r.losses,
            score: round(score, 4),
            score_95: round(ci, 4),
        }
    }
}

impl EvalGameRow {
    /// One row per game of an evaluation against one baseline.
    fn of_games(iteration: u32, r: &EvalResult) -> impl Iterator<Item = EvalGameRow> + '_ {
        r.games.iter().enumerate().map(move |(i, g)| EvalGameRow {
            iteration,
            opponent: r.opponent(),
            game: i as u32 + 1,
            net_color: g.color.name().to_string(),
            result: g.outcome.pdn_result().to_string(),
            score: g.outcome.score_for(g.color),
            plies: g.plies as u32,
            reason: g.outcome.reason.name().to_string(),
        })
    }
}
