//! `damone train`: arguments, progress bars and per-iteration lines over
//! the library's [`Run`].

use super::progress_bar;
use anyhow::Result;
use clap::Args;
use damone::run::{Event, Phase, Run, RunConfig, Start};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Config file (TOML); default: the embedded configs/default.toml.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Override a config value, e.g. --set train.lr=0.001 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Continue the run from its latest checkpoint, with its own config
    /// (only `iterations` and `time_limit_minutes` may be changed).
    #[arg(long)]
    pub resume: bool,
    /// Start again even if the run folder already has checkpoints (they are removed).
    #[arg(long, conflicts_with = "resume")]
    pub overwrite: bool,
    /// No progress bars or per-iteration lines.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run_train(a: TrainArgs) -> Result<()> {
    let cfg = RunConfig::load(a.config.as_deref(), &a.sets)?;
    let explicit = |key: &str| a.config.is_some() || a.sets.iter().any(|s| s.trim_start().starts_with(key));
    let start = if a.resume {
        Start::Resume {
            iterations: explicit("iterations=").then_some(cfg.iterations),
            time_limit_minutes: explicit("time_limit_minutes=").then_some(cfg.time_limit_minutes),
        }
    } else if a.overwrite {
        Start::Overwrite
    } else {
        Start::New
    };
    let mut run = Run::open(cfg, start)?;
    let quiet = a.quiet;
    if !quiet {
        let c = run.config();
        eprintln!(
            "run '{}' in {}: model {}x{}, {} games/iteration ({} at once) at {}/{} sims, {} threads{}",
            c.run,
            run.dir().display(),
            c.model.blocks,
            c.model.channels,
            c.selfplay.games_per_iteration,
            c.selfplay.parallel_games.min(c.selfplay.games_per_iteration),
            c.selfplay.full_sims,
            c.selfplay.cheap_sims,
            c.threads,
            if a.resume {
                format!(", resuming at iteration {}", run.state().iteration + 1)
            } else {
                String::new()
            }
        );
    }
    let mut bar = indicatif::ProgressBar::hidden();
    let mut played = 0;
    run.run(&mut |e: &Event| match e {
        Event::Phase {
            iteration,
            phase,
            total,
        } => {
            bar.finish_and_clear();
            let what = match phase {
                Phase::SelfPlay => "self-play",
                Phase::Training => "training",
                Phase::Evaluation => "evaluation",
            };
            bar = progress_bar(*total, &format!("iter {iteration} {what}"), quiet);
        }
        Event::Progress { done, .. } => bar.set_position(*done),
        Event::Iteration { metrics: m, evals, .. } => {
            bar.finish_and_clear();
            if quiet {
                return;
            }
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
            eprintln!(
                "iter {}: {} games, {} samples, {} steps, loss p {:.3} v {:.3}, {:.0} pos/s, batch {:.1} (min {}), {:.0}s {}",
                m.iteration,
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
            );
        }
        Event::Finished { iterations } => played = *iterations,
        _ => {}
    })?;
    if !quiet {
        eprintln!(
            "done: {played} iterations, checkpoints in {}",
            run.dir().display()
        );
    }
    Ok(())
}
