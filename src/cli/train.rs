//! `damone train`: the self-play training loop with checkpoints, resume,
//! CSV logs, progress bars and evaluation against the alpha-beta baseline.

use super::config::RunConfig;
use super::netplayer::play_params;
use super::progress_bar;
use anyhow::{bail, Context, Result};
use burn::tensor::Device;
use clap::Args;
use damone::arena::tournament::opening_game;
use damone::arena::{AlphaBeta, Limits, MatchSettings};
use damone::data::ReplayWindow;
use damone::game::{Color, Game, Position, Variant};
use damone::mcts::{search_batched, Tree};
use damone::net::{Net, NetEvaluator};
use damone::selfplay::{run_selfplay, VecEnv};
use damone::train::Trainer;
use damone::util::elo::score_interval;
use damone::util::{atomic_write, rng_stream};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Version of the checkpoint folder layout.
pub const CHECKPOINT_VERSION: u32 = 1;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Config file (TOML); default: the embedded configs/default.toml.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override a config value, e.g. --set train.lr=0.001 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Continue the run from its latest checkpoint.
    #[arg(long)]
    pub resume: bool,
    /// Start again even if the run folder already has checkpoints (they are removed).
    #[arg(long, conflicts_with = "resume")]
    pub overwrite: bool,
    /// No progress bars or per-iteration lines.
    #[arg(long)]
    pub quiet: bool,
}

/// Result of evaluating against one baseline.
#[derive(Clone, Debug, Default)]
pub struct EvalResult {
    pub depth: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl EvalResult {
    pub fn score(&self) -> (f64, f64) {
        score_interval(self.wins, self.draws, self.losses)
    }
}

/// Play `games` games (colours alternating) between the network (MCTS with
/// `sims`) and alpha-beta at `depth`. Network leaves of all games are
/// evaluated together; alpha-beta moves are computed in parallel.
#[allow(clippy::too_many_arguments)]
pub fn eval_vs_alphabeta(
    net: &Net,
    cfg: &RunConfig,
    start: Position,
    depth: u32,
    iteration: u32,
    rows: &mut Vec<String>,
    pb: &indicatif::ProgressBar,
) -> EvalResult {
    let mut settings = MatchSettings::new(start.variant());
    settings.start = start;
    settings.rules = cfg.rules;
    settings.seed = cfg.seed ^ 0xE7A1_0000;
    settings.opening_plies = cfg.eval.opening_plies;
    let n = cfg.eval.games as usize;
    let params = play_params(&cfg.search, cfg.eval.sims);
    let mut games: Vec<Game> = (0..n).map(|g| opening_game(&settings, g / 2)).collect();
    let net_color: Vec<Color> = (0..n)
        .map(|g| if g % 2 == 0 { Color::White } else { Color::Black })
        .collect();
    let mut trees: Vec<Tree> = games
        .iter()
        .enumerate()
        .map(|(i, g)| Tree::new(g, params.clone(), rng_stream(cfg.seed, "eval-tree", i as u64)))
        .collect();
    let mut abs: Vec<AlphaBeta> = (0..n)
        .map(|_| {
            AlphaBeta::new(
                format!("alphabeta:depth={depth}"),
                Limits {
                    depth: Some(depth),
                    ..Default::default()
                },
            )
        })
        .collect();
    let mut evaluator = NetEvaluator::new(net);
    let mut done: Vec<Option<damone::game::Outcome>> = vec![None; n];
    loop {
        for i in 0..n {
            if done[i].is_none() {
                done[i] = games[i].outcome();
                if done[i].is_some() {
                    pb.inc(1);
                }
            }
        }
        let live: Vec<usize> = (0..n).filter(|&i| done[i].is_none()).collect();
        if live.is_empty() {
            break;
        }
        let net_turn: Vec<usize> = live
            .iter()
            .copied()
            .filter(|&i| games[i].position().side_to_move() == net_color[i])
            .collect();
        for &i in &net_turn {
            trees[i].start(params.simulations);
        }
        {
            let mut refs: Vec<&mut Tree> = trees
                .iter_mut()
                .enumerate()
                .filter(|(i, _)| net_turn.contains(i))
                .map(|(_, t)| t)
                .collect();
            search_batched(&mut refs, &mut evaluator);
        }
        let mut moves: Vec<Option<damone::game::Move>> = vec![None; n];
        for &i in &net_turn {
            moves[i] = trees[i].result().map(|r| r.best);
        }
        let ab_moves: Vec<(usize, damone::game::Move)> = abs
            .par_iter_mut()
            .enumerate()
            .filter(|(i, _)| done[*i].is_none() && !net_turn.contains(i))
            .map(|(i, ab)| (i, ab.search(&games[i]).0))
            .collect();
        for (i, m) in ab_moves {
            moves[i] = Some(m);
        }
        for i in live {
            let m = moves[i].unwrap_or_else(|| games[i].position().legal_moves()[0]);
            games[i].play_unchecked(&m);
            trees[i].advance(&m);
        }
    }
    let mut r = EvalResult {
        depth,
        ..Default::default()
    };
    for i in 0..n {
        let o = done[i].expect("finished");
        let s = o.score_for(net_color[i]);
        match o.winner {
            Some(w) if w == net_color[i] => r.wins += 1,
            None => r.draws += 1,
            Some(_) => r.losses += 1,
        }
        rows.push(format!(
            "{iteration},alphabeta:depth={depth},{},{},{},{s},{},{}",
            i + 1,
            net_color[i].name(),
            o.pdn_result(),
            games[i].ply(),
            o.reason.name()
        ));
    }
    r
}

/// Iterations of the complete checkpoints (`iter_NNNN` folders) in a run
/// folder, oldest first.
pub fn checkpoint_iterations(dir: &Path) -> std::io::Result<Vec<u32>> {
    let mut v: Vec<u32> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_prefix("iter_"))
                .and_then(|n| n.parse().ok())
        })
        .collect();
    v.sort();
    Ok(v)
}

/// The run's paths.
struct RunDir {
    root: PathBuf,
}

impl RunDir {
    fn iter_dir(&self, k: u32) -> PathBuf {
        self.root.join(format!("iter_{k:04}"))
    }
    /// Complete checkpoints, oldest first.
    fn checkpoints(&self) -> Vec<u32> {
        checkpoint_iterations(&self.root).unwrap_or_default()
    }
}

fn write_checkpoint(
    run: &RunDir,
    k: u32,
    cfg: &RunConfig,
    trainer: &Trainer,
    window: &ReplayWindow,
    totals: &Totals,
) -> Result<()> {
    let final_dir = run.iter_dir(k);
    let tmp = run.root.join(format!(".iter_{k:04}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let weights = trainer.weights_bytes().map_err(anyhow::Error::msg)?;
    let optim = trainer.optimizer_bytes().map_err(anyhow::Error::msg)?;
    atomic_write(&tmp.join("config.toml"), cfg.to_toml().as_bytes())?;
    atomic_write(&tmp.join("model.bpk"), &weights)?;
    atomic_write(&tmp.join("optimizer.bpk"), &optim)?;
    atomic_write(&tmp.join("replay.bin"), &window.to_bytes())?;
    let state = format!(
        "version = {CHECKPOINT_VERSION}\niteration = {k}\nstep = {}\ngames = {}\npositions = {}\nbest_score = {}\n",
        trainer.step, totals.games, totals.positions, totals.best_score
    );
    atomic_write(&tmp.join("state.toml"), state.as_bytes())?;
    let _ = std::fs::remove_dir_all(&final_dir);
    std::fs::rename(&tmp, &final_dir)
        .with_context(|| format!("cannot move checkpoint into {}", final_dir.display()))?;
    Ok(())
}

#[derive(Clone, Debug, Default)]
struct Totals {
    games: u64,
    positions: u64,
    best_score: f64,
    best_iter: u32,
    wall: f64,
}

fn read_state(dir: &Path) -> Result<(u32, u64, Totals)> {
    let text = std::fs::read_to_string(dir.join("state.toml"))
        .with_context(|| format!("checkpoint {} has no state.toml", dir.display()))?;
    let t: toml::Table =
        toml::from_str(&text).with_context(|| format!("corrupt {}/state.toml", dir.display()))?;
    let get = |k: &str| -> Result<&toml::Value> {
        t.get(k)
            .with_context(|| format!("{}/state.toml lacks '{k}'", dir.display()))
    };
    let version = get("version")?.as_integer().unwrap_or(-1);
    if version != CHECKPOINT_VERSION as i64 {
        bail!(
            "checkpoint {} has format version {version}, this build reads {CHECKPOINT_VERSION}",
            dir.display()
        );
    }
    let int = |k: &str| -> Result<u64> {
        get(k)?
            .as_integer()
            .filter(|v| *v >= 0)
            .map(|v| v as u64)
            .with_context(|| format!("bad '{k}' in state.toml"))
    };
    let totals = Totals {
        games: int("games")?,
        positions: int("positions")?,
        best_score: get("best_score")?.as_float().unwrap_or(0.0),
        ..Default::default()
    };
    Ok((int("iteration")? as u32, int("step")?, totals))
}

/// Read a CSV as (header, rows) keeping rows whose first column <= `upto`.
fn read_rows(path: &Path, upto: u32) -> (Option<String>, Vec<String>) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return (None, Vec::new());
    };
    let mut lines = text.lines();
    let header = lines.next().map(str::to_string);
    let rows = lines
        .filter(|l| {
            l.split(',')
                .next()
                .and_then(|v| v.parse::<u32>().ok())
                .is_some_and(|k| k <= upto)
        })
        .map(str::to_string)
        .collect();
    (header, rows)
}

fn write_csv(path: &Path, header: &str, rows: &[String]) -> Result<()> {
    let mut s = String::with_capacity(rows.len() * 128 + header.len() + 1);
    s.push_str(header);
    s.push('\n');
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    atomic_write(path, s.as_bytes()).with_context(|| format!("cannot write {}", path.display()))
}

pub fn run_train(a: TrainArgs) -> Result<()> {
    let mut cfg = RunConfig::load(a.config.as_deref(), &a.sets)?;
    let run = RunDir {
        root: Path::new(&cfg.checkpoint_dir).join(&cfg.run),
    };
    let existing = run.checkpoints();
    let mut start_iter = 1;
    let mut totals = Totals::default();
    let mut resume_state = None;
    if a.resume {
        let Some(&last) = existing.last() else {
            bail!(
                "--resume: no checkpoint in {} (start without --resume)",
                run.root.display()
            );
        };
        let dir = run.iter_dir(last);
        let saved = RunConfig::load(Some(&dir.join("config.toml")), &[])
            .with_context(|| format!("checkpoint {} is unreadable", dir.display()))?;
        // The run's own config wins, except its stopping limits, which may be extended.
        let (iters, minutes) = (cfg.iterations, cfg.time_limit_minutes);
        cfg = saved;
        if a.sets.iter().any(|s| s.starts_with("iterations=")) || a.config.is_some() {
            cfg.iterations = iters;
        }
        if a.sets.iter().any(|s| s.starts_with("time_limit_minutes=")) || a.config.is_some() {
            cfg.time_limit_minutes = minutes;
        }
        let (k, step, t) = read_state(&dir)?;
        totals = t;
        totals.wall = std::fs::read_to_string(run.root.join("timing.txt"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0.0);
        totals.best_iter = std::fs::read_to_string(run.root.join("best.txt"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        start_iter = k + 1;
        resume_state = Some((dir, step));
    } else if !existing.is_empty() {
        if !a.overwrite {
            bail!(
                "run folder {} already has checkpoints: use --resume to continue it, --overwrite to start again, or --set run=NAME",
                run.root.display()
            );
        }
        std::fs::remove_dir_all(&run.root).with_context(|| format!("cannot clear {}", run.root.display()))?;
    }
    std::fs::create_dir_all(&run.root).with_context(|| format!("cannot create {}", run.root.display()))?;
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build_global();
    let variant: Variant = cfg.variant.parse()?;
    let start = Position::start(variant);
    let device = Device::flex();
    device.seed(cfg.seed);
    let mut trainer = Trainer::new(cfg.model.clone(), cfg.train.clone(), device.clone());
    let mut window = ReplayWindow::new(cfg.train.window);
    if let Some((dir, step)) = &resume_state {
        let read = |name: &str| {
            std::fs::read(dir.join(name))
                .with_context(|| format!("checkpoint {}: cannot read {name}", dir.display()))
        };
        trainer
            .restore(read("model.bpk")?, read("optimizer.bpk")?, *step)
            .map_err(|e| {
                anyhow::anyhow!(
                    "checkpoint {} is corrupt or does not match its config: {e}",
                    dir.display()
                )
            })?;
        window = ReplayWindow::from_bytes(&read("replay.bin")?)
            .map_err(|e| anyhow::anyhow!("checkpoint {}: replay.bin: {e}", dir.display()))?;
    }
    let metrics_path = run.root.join("metrics.csv");
    let evals_path = run.root.join("eval_games.csv");
    let (old_header, mut metric_rows) = read_rows(&metrics_path, start_iter - 1);
    let (_, mut eval_rows) = read_rows(&evals_path, start_iter - 1);
    let eval_header = "iteration,opponent,game,net_color,result,score,plies,reason";
    let mut header = vec![
        "iteration",
        "wall_s",
        "iter_s",
        "games",
        "total_games",
        "positions",
        "total_positions",
        "samples",
        "window",
        "steps",
        "total_steps",
        "selfplay_s",
        "train_s",
        "positions_per_s",
        "samples_per_s",
        "net_evals",
        "net_evals_per_s",
        "search_share",
        "mean_batch",
        "min_batch",
        "selfplay_cpu_busy",
        "train_cpu_busy",
        "loss_policy",
        "loss_value",
        "lr",
        "white_wins",
        "black_wins",
        "draws",
        "resignations",
        "resign_checks",
        "resign_false_positives",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    for d in &cfg.eval.depths {
        for c in ["wins", "draws", "losses", "score", "score_95"] {
            header.push(format!("ab{d}_{c}"));
        }
    }
    let header = header.join(",");
    // A run resumed by a build with other metrics columns: carry the old
    // rows over by column name (blank where the old file had no value).
    if let Some(old) = old_header.filter(|h| *h != header) {
        let old: Vec<&str> = old.split(',').collect();
        metric_rows = metric_rows
            .iter()
            .map(|row| {
                let vals: Vec<&str> = row.split(',').collect();
                header
                    .split(',')
                    .map(|h| {
                        old.iter()
                            .position(|o| *o == h)
                            .and_then(|i| vals.get(i).copied())
                            .unwrap_or("")
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
    }
    if !a.quiet {
        eprintln!(
            "run '{}' in {}: model {}x{}, {} games/iteration at {} sims, {} threads{}",
            cfg.run,
            run.root.display(),
            cfg.model.blocks,
            cfg.model.channels,
            cfg.selfplay.games_per_iteration,
            cfg.selfplay.full_sims,
            cfg.threads,
            if a.resume {
                format!(", resuming at iteration {start_iter}")
            } else {
                String::new()
            }
        );
    }
    let wall0 = Instant::now();
    let wall_before = totals.wall;
    let mut k = start_iter;
    loop {
        let wall = wall_before + wall0.elapsed().as_secs_f64();
        if (cfg.iterations > 0 && k > cfg.iterations)
            || (cfg.time_limit_minutes > 0.0 && wall >= cfg.time_limit_minutes * 60.0)
        {
            break;
        }
        let t_iter = Instant::now();
        // Self-play.
        let mut rng = rng_stream(cfg.seed, "iteration", k as u64);
        let mut evaluator = NetEvaluator::new(trainer.net());
        let mut env = VecEnv::new(
            cfg.selfplay.parallel_games.min(cfg.selfplay.games_per_iteration) as usize,
            start,
            cfg.rules,
            cfg.selfplay.opening_plies,
            cfg.seed ^ (k as u64).wrapping_mul(0x9E37_79B9),
        );
        let pb = progress_bar(
            cfg.selfplay.games_per_iteration as u64,
            &format!("iter {k} self-play"),
            a.quiet,
        );
        let t_sp = Instant::now();
        let cpu_sp = damone::util::process_cpu_seconds();
        let (samples, stats) = run_selfplay(
            &mut env,
            &cfg.search,
            &cfg.selfplay,
            &mut evaluator,
            &mut rng,
            |s| pb.set_position(s.games as u64),
        );
        pb.finish_and_clear();
        let selfplay_s = t_sp.elapsed().as_secs_f64();
        let cpu_tr = damone::util::process_cpu_seconds();
        let selfplay_busy = damone::util::cpu_busy_share(cpu_sp, cpu_tr, selfplay_s, cfg.threads);
        let new_samples = samples.len();
        window.extend(samples);
        // Training.
        let steps = if window.len() >= cfg.train.min_samples {
            ((new_samples as f64 * cfg.train.sample_reuse as f64) / cfg.train.batch_size as f64).ceil() as u64
        } else {
            0
        };
        let pb = progress_bar(steps, &format!("iter {k} training"), a.quiet);
        let t_tr = Instant::now();
        let lr = cfg.train.lr_at(trainer.step);
        let losses = trainer.train(&window, steps, &mut rng, || pb.inc(1));
        pb.finish_and_clear();
        let train_s = t_tr.elapsed().as_secs_f64();
        let train_busy =
            damone::util::cpu_busy_share(cpu_tr, damone::util::process_cpu_seconds(), train_s, cfg.threads);
        // Evaluation.
        let is_last = cfg.iterations > 0 && k == cfg.iterations;
        let mut results = Vec::new();
        if cfg.eval.interval > 0 && (k % cfg.eval.interval == 0 || is_last) {
            let pb = progress_bar(
                (cfg.eval.games as usize * cfg.eval.depths.len()) as u64,
                &format!("iter {k} evaluation"),
                a.quiet,
            );
            for &d in &cfg.eval.depths {
                results.push(eval_vs_alphabeta(
                    trainer.net(),
                    &cfg,
                    start,
                    d,
                    k,
                    &mut eval_rows,
                    &pb,
                ));
            }
            pb.finish_and_clear();
            let mean = results.iter().map(|r| r.score().0).sum::<f64>() / results.len() as f64;
            if mean > totals.best_score || totals.best_iter == 0 {
                totals.best_score = mean;
                totals.best_iter = k;
            }
        }
        totals.games += stats.games as u64;
        totals.positions += stats.plies;
        let iter_s = t_iter.elapsed().as_secs_f64();
        let wall = wall_before + wall0.elapsed().as_secs_f64();
        let mut row = vec![
            k.to_string(),
            format!("{wall:.1}"),
            format!("{iter_s:.1}"),
            stats.games.to_string(),
            totals.games.to_string(),
            stats.plies.to_string(),
            totals.positions.to_string(),
            new_samples.to_string(),
            window.len().to_string(),
            steps.to_string(),
            trainer.step.to_string(),
            format!("{selfplay_s:.2}"),
            format!("{train_s:.2}"),
            format!("{:.1}", stats.plies as f64 / selfplay_s.max(1e-9)),
            format!(
                "{:.1}",
                (steps as f64 * cfg.train.batch_size as f64) / train_s.max(1e-9)
            ),
            evaluator.positions.to_string(),
            format!(
                "{:.1}",
                evaluator.positions as f64 / evaluator.time.as_secs_f64().max(1e-9)
            ),
            format!("{:.3}", 1.0 - evaluator.time.as_secs_f64() / selfplay_s.max(1e-9)),
            format!(
                "{:.1}",
                evaluator.positions as f64 / evaluator.batches.max(1) as f64
            ),
            evaluator.min_batch.to_string(),
            format!("{selfplay_busy:.3}"),
            format!("{train_busy:.3}"),
            format!("{:.5}", losses.policy),
            format!("{:.5}", losses.value),
            format!("{lr:.6}"),
            stats.white_wins.to_string(),
            stats.black_wins.to_string(),
            stats.draws.to_string(),
            stats.resignations.to_string(),
            stats.resign_checks.to_string(),
            stats.resign_false_positives.to_string(),
        ];
        for d in &cfg.eval.depths {
            match results.iter().find(|r| r.depth == *d) {
                Some(r) => {
                    let (s, ci) = r.score();
                    row.extend([
                        r.wins.to_string(),
                        r.draws.to_string(),
                        r.losses.to_string(),
                        format!("{s:.4}"),
                        format!("{ci:.4}"),
                    ]);
                }
                None => row.extend(std::iter::repeat_n(String::new(), 5)),
            }
        }
        metric_rows.push(row.join(","));
        // Logs first, then the checkpoint: a crash in between loses at most this iteration.
        write_csv(&metrics_path, &header, &metric_rows)?;
        write_csv(&evals_path, eval_header, &eval_rows)?;
        write_checkpoint(&run, k, &cfg, &trainer, &window, &totals)?;
        atomic_write(&run.root.join("timing.txt"), format!("{wall:.1}\n").as_bytes())?;
        if totals.best_iter > 0 {
            atomic_write(
                &run.root.join("best.txt"),
                format!("{}\n", totals.best_iter).as_bytes(),
            )?;
        }
        // Keep the last K and the best.
        let all = run.checkpoints();
        let keep_from = all.len().saturating_sub(cfg.keep_last);
        for (i, it) in all.iter().enumerate() {
            if i < keep_from && *it != totals.best_iter {
                let _ = std::fs::remove_dir_all(run.iter_dir(*it));
            }
        }
        if !a.quiet {
            let ev: Vec<String> = results
                .iter()
                .map(|r| {
                    let (s, ci) = r.score();
                    format!(
                        "ab{}: {}/{}/{} score {:.0}% ± {:.0}",
                        r.depth,
                        r.wins,
                        r.draws,
                        r.losses,
                        100.0 * s,
                        100.0 * ci
                    )
                })
                .collect();
            eprintln!(
                "iter {k}: {} games, {} samples, {steps} steps, loss p {:.3} v {:.3}, {:.0} pos/s, {:.0} evals/s, {:.0}s {}",
                stats.games,
                new_samples,
                losses.policy,
                losses.value,
                stats.plies as f64 / selfplay_s.max(1e-9),
                evaluator.positions as f64 / evaluator.time.as_secs_f64().max(1e-9),
                iter_s,
                ev.join(" ")
            );
        }
        k += 1;
    }
    if !a.quiet {
        eprintln!(
            "done: {} iterations, checkpoints in {}",
            k - start_iter,
            run.root.display()
        );
    }
    Ok(())
}
