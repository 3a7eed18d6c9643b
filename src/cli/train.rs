//! `damone train`: arguments, progress bars and per-iteration lines over
//! the library's [`Run`].

use super::progress_bar;
use anyhow::{Context, Result};
use clap::Args;
use damone::net::DeviceChoice;
use damone::run::{EvalRow, Event, Metrics, Phase, Run, RunGame, Start};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Config file (TOML); default: the embedded configs/default.toml.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override a config value, e.g. --set train.lr=0.001 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Continue the run from its latest checkpoint, with its own config;
    /// `--set` may change the stopping limits, the learning-rate schedule,
    /// search, self-play budgets and evaluation (each change is logged in
    /// the run's resume.log); other keys are refused.
    #[arg(long)]
    pub resume: bool,
    /// With --resume: if the latest checkpoint is damaged, resume from the
    /// newest intact one.
    #[arg(long, requires = "resume")]
    pub from_intact: bool,
    /// Start again even if the run folder already has checkpoints (they are removed).
    #[arg(long, conflicts_with = "resume")]
    pub overwrite: bool,
    /// Where the network trains and evaluates: cpu, gpu (builds with
    /// `--features gpu`) or auto; overrides the config's `device` (also on
    /// --resume).
    #[arg(long, value_name = "cpu|gpu|auto")]
    pub device: Option<DeviceChoice>,
    /// No progress bars or per-iteration lines.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run_train(mut a: TrainArgs) -> Result<()> {
    if let Some(d) = a.device {
        a.sets.push(format!("device={d}"));
    }
    let start = if a.resume {
        Start::Resume {
            sets: a.sets.clone(),
            from_intact: a.from_intact,
        }
    } else if a.overwrite {
        Start::Overwrite
    } else {
        Start::New
    };
    let game = damone::run::run_game(a.config.as_deref(), &a.sets, &start)?;
    damone::with_game!(game.kind()?, P => train::<P>(&a, start))
}

/// Open the run of game `P` and play it, drawing bars and lines.
fn train<P: RunGame>(a: &TrainArgs, start: Start) -> Result<()> {
    let mut run = Run::<P>::open_with(a.config.as_deref(), &a.sets, start)?;
    let stop = run.stopper();
    damone::util::stop::stop_on_signals(&stop).context("cannot handle stop signals")?;
    let quiet = a.quiet;
    if !quiet {
        eprintln!("{}", start_line(&run, a.resume));
    }
    let (iterations, minutes) = (run.config().iterations, run.config().time_limit_minutes);
    let mut bar = indicatif::ProgressBar::hidden();
    let mut played = 0;
    let mut dropped = None;
    // Self-training rounds take seconds each: a line a minute, not a round.
    let mut round_line_at: Option<std::time::Instant> = None;
    run.run(&mut |e: &Event| match e {
        Event::Phase {
            iteration,
            phase,
            total,
        } => {
            bar.finish_and_clear();
            let what = match phase {
                Phase::SelfPlay => "self-play",
                Phase::Expert => "expert games",
                Phase::Training => "training",
                Phase::Evaluation => "evaluation",
                Phase::LearnedEval => "learned evaluation",
                Phase::SelfTrain => "self-training",
            };
            bar = progress_bar(*total, &format!("iter {iteration} {what}"), quiet);
        }
        Event::Progress { done, .. } => bar.set_position(*done),
        Event::Iteration { metrics, evals, .. } => {
            bar.finish_and_clear();
            if !quiet {
                eprintln!("{}", iteration_line(metrics, evals, iterations, minutes));
            }
        }
        Event::SelfTrainRound { row } => {
            bar.finish_and_clear();
            let due = round_line_at.is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(60));
            if !quiet && due {
                round_line_at = Some(std::time::Instant::now());
                eprintln!(
                    "self-training round {}: W-D-L {}-{}-{} (White's), {} new positions, held-out loss {:.5} -> {:.5} ({:.0} s)",
                    row.round,
                    row.white_wins,
                    row.draws,
                    row.black_wins,
                    row.positions,
                    row.held_out_before,
                    row.held_out_after,
                    row.play_s + row.train_s
                );
            }
        }
        Event::Interrupted { iteration, .. } => {
            bar.finish_and_clear();
            dropped = Some(*iteration);
        }
        Event::Finished { iterations } => played = *iterations,
        Event::Notice(line) if !quiet => eprintln!("notice: {line}"),
        _ => {}
    })?;
    if stop.requested() {
        // Said even with --quiet: what was kept, and how to go on.
        eprintln!("{}", stopped_line(&run, dropped));
    } else if !quiet {
        let at = run.state().iteration;
        let this_time = if played == at {
            String::new()
        } else {
            format!(" ({played} in this sitting)")
        };
        eprintln!(
            "done: iteration {at}{this_time}, checkpoints in {}",
            run.dir().display()
        );
    }
    Ok(())
}

/// What a stop request (SIGTERM, Ctrl-C) kept: the newest checkpoint,
/// and the iteration it dropped, if any.
fn stopped_line<P: RunGame>(run: &Run<P>, dropped: Option<u32>) -> String {
    let kept = run.state().iteration;
    let what = match kept {
        0 => "no checkpoint yet".to_string(),
        k => format!(
            "kept checkpoint {}",
            run.dir().join(format!("iter_{k:04}")).display()
        ),
    };
    let cut = dropped.map_or(String::new(), |k| {
        format!("; iteration {k} was cut short and not written")
    });
    format!("stopped on request: {what}{cut}; continue with --resume")
}

/// The run's first line: its folder, shape, self-play, threads and device.
fn start_line<P: RunGame>(run: &Run<P>, resume: bool) -> String {
    let c = run.config();
    format!(
        "run '{}' ({}) in {}: model {}x{}, {} games/iteration ({} at once) at {}/{} sims, {} thread{}, device {}{}",
        c.run,
        c.game,
        run.dir().display(),
        c.model.blocks,
        c.model.channels,
        c.selfplay.games_per_iteration,
        c.selfplay.parallel_games,
        c.selfplay.full_sims,
        c.selfplay.cheap_sims,
        c.threads,
        if c.threads == 1 { "" } else { "s" },
        run.device().describe(),
        if resume {
            format!(", resuming at iteration {}", run.state().iteration + 1)
        } else {
            String::new()
        }
    )
}

/// One iteration's line: games, samples, steps, losses, speed and the
/// evaluation's scores.
fn iteration_line(m: &Metrics, evals: &[EvalRow], iterations: u32, minutes: f64) -> String {
    let ev: Vec<String> = evals
        .iter()
        .map(|r| {
            format!(
                "ab{}: {}/{}/{} score {:.0}% ± {:.0}",
                r.depth,
                r.wins,
                r.draws,
                r.losses,
                100.0 * r.score,
                100.0 * r.score_95
            )
        })
        .collect();
    let mut at = m.iteration.to_string();
    if iterations > 0 {
        at.push_str(&format!("/{iterations}"));
    }
    if minutes > 0.0 {
        at.push_str(&format!(
            " ({:.0} min left)",
            (minutes - m.wall_s / 60.0).max(0.0)
        ));
    }
    let expert = if m.expert_games > 0 {
        format!(" + {} expert games, {} samples", m.expert_games, m.expert_samples)
    } else {
        String::new()
    };
    format!(
        "iter {at}: {} games, {} samples{expert}, {} steps, loss p {:.3} v {:.3}, {:.0} pos/s, batch {:.1} (min {}), {:.0}s {}",
        m.games,
        m.samples,
        m.steps,
        m.loss_policy,
        m.loss_value,
        m.positions_per_s,
        m.mean_batch,
        m.min_batch,
        m.iter_s,
        ev.join(" ")
    )
}
