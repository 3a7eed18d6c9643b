//! `damone rate <run folder>`: the measuring protocol over the library's
//! [`rate`](damone::player::rate::rate); prints each match's line and a
//! table, and draws the rating curve (SVG) when several checkpoints are rated.

use super::{progress_bar, DeviceOpt};
use anyhow::{bail, Result};
use clap::Args;
use damone::player::rate::{draw_rating_curve, rate, RateConfig, RateEvent, RatingRow};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct RateArgs {
    /// The run folder (checkpoints/<run>).
    pub run: PathBuf,
    /// Simulations per move of the network player.
    #[arg(long, default_value_t = 64)]
    pub sims: u32,
    /// Alpha-beta depths of the fixed-simulation ladder, comma-separated.
    #[arg(long, default_value = "2,4,6", value_delimiter = ',')]
    pub depths: Vec<u32>,
    /// Games per match (even; 100 bound each score's 95% interval to ±10 points).
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Skip the matches against alpha-beta at equal time per move.
    #[arg(long)]
    pub no_equal_time: bool,
    /// The threads each side's search gets at equal time, one match per
    /// count, comma-separated (default: 1 and every core of the machine).
    #[arg(long, value_delimiter = ',', value_name = "N,...")]
    pub equal_time_threads: Vec<usize>,
    /// Skip the fixed-simulation ladder (play only equal time and the raw policy).
    #[arg(long)]
    pub no_ladder: bool,
    /// Depth of the alpha-beta the raw policy (no search) plays; 0 = skip.
    #[arg(long, default_value_t = 2)]
    pub policy_depth: u32,
    /// Rate only the newest checkpoint.
    #[arg(long, conflicts_with = "every")]
    pub last: bool,
    /// Rate only checkpoints whose iteration is a multiple of N, and the
    /// newest (a rating curve of a run kept with a large keep_last).
    #[arg(long, value_name = "N")]
    pub every: Option<u32>,
    /// Rate only these checkpoints, comma-separated (for example those a
    /// run kept with keep_every_minutes).
    #[arg(long, value_delimiter = ',', value_name = "K,...", conflicts_with_all = ["last", "every"])]
    pub iterations: Vec<u32>,
    /// Add the rows to this file instead of <run>/rating.csv (rows of the
    /// same matches rated before are replaced); the curve of all its rows
    /// goes beside it, as the same name with .svg.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Seed of the openings and of the network's search.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies from the start for each opening.
    #[arg(long, default_value_t = 4)]
    pub opening_plies: u32,
    #[command(flatten)]
    pub device: DeviceOpt,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

fn line(r: &RatingRow) -> String {
    let who = match r.mode.as_str() {
        "policy" => "raw policy".to_string(),
        "equal-time" => format!(
            "{} sims ({:.1} ms/move, {} thread{})",
            r.sims,
            r.net_ms_per_move,
            r.threads,
            if r.threads == 1 { "" } else { "s" }
        ),
        "learned" | "learned-vs-net" => format!(
            "alpha-beta, learned eval ({:.1} ms/move, {} thread{})",
            r.net_ms_per_move,
            r.threads,
            if r.threads == 1 { "" } else { "s" }
        ),
        _ => format!("{} sims", r.sims),
    };
    format!(
        "| {} | {:.1} | {} | {} | {} | {}-{}-{} | {:.1}% ± {:.1} |",
        r.iteration,
        r.train_minutes,
        r.mode,
        who,
        r.opponent,
        r.wins,
        r.draws,
        r.losses,
        100.0 * r.score,
        100.0 * r.score_95
    )
}

pub fn run_rate(a: RateArgs) -> Result<()> {
    if !a.run.is_dir() {
        bail!(
            "{} is not a run folder (expected checkpoints/<run>)",
            a.run.display()
        );
    }
    let cfg = RateConfig {
        sims: a.sims,
        depths: a.depths.clone(),
        games: a.games,
        equal_time: !a.no_equal_time,
        ladder: !a.no_ladder,
        policy_depth: (a.policy_depth > 0).then_some(a.policy_depth),
        opening_plies: a.opening_plies,
        seed: a.seed,
        last_only: a.last,
        every: a.every.unwrap_or(0),
        iterations: a.iterations.clone(),
        csv: a.csv.clone(),
        ..Default::default()
    };
    let cfg = if a.equal_time_threads.is_empty() {
        cfg
    } else {
        RateConfig {
            equal_time_threads: a.equal_time_threads.clone(),
            ..cfg
        }
    };
    cfg.validate()?;
    let device = a.device.open()?;
    let mut bar = indicatif::ProgressBar::hidden();
    let rows = rate(&a.run, &cfg, &device, &mut |e| match e {
        RateEvent::Match {
            iteration,
            mode,
            opponent,
            games,
        } => {
            bar.finish_and_clear();
            bar = progress_bar(
                *games as u64,
                &format!("iter {iteration} {mode} vs {opponent}"),
                a.quiet,
            );
        }
        RateEvent::Game => bar.inc(1),
        RateEvent::Row(r) => {
            bar.finish_and_clear();
            if !a.quiet {
                eprintln!("{}", line(r));
            }
        }
    })?;
    println!("| iteration | training minutes | mode | network | opponent | W-D-L | score (95%) |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for r in &rows {
        println!("{}", line(r));
    }
    let csv = cfg.csv_path(&a.run);
    eprintln!("rows added to {}", csv.display());
    let svg = csv.with_extension("svg");
    let all: Vec<RatingRow> = damone::run::read_rows(&csv)?;
    if draw_rating_curve(&all, &svg).map_err(anyhow::Error::msg)? {
        eprintln!("rating curve drawn in {}", svg.display());
    }
    Ok(())
}
