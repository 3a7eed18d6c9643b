//! `damone plot <run folder>...`: the library's [`plot_run`] charts of each
//! run, and [`draw_strength_chart`]'s strength against training hours
//! from their `rating.csv` (several runs in one chart).

use anyhow::Result;
use clap::Args;
use damone::player::rate::{draw_strength_chart, RatingRow};
use damone::run::plots::plot_run;
use damone::run::read_rows;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// The run folders (checkpoints/<run>); with several, their strength
    /// curves share one chart.
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<PathBuf>,
    /// Output folder (default: the run folder; with several runs, the
    /// current folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The strength curve to draw: the rating series whose name contains
    /// this ("equal time", "sims vs alphabeta:depth=6", "learned eval");
    /// default: every series of one run, "equal time" for several.
    #[arg(long)]
    pub measure: Option<String>,
}

pub fn run_plot(a: PlotArgs) -> Result<()> {
    let several = a.runs.len() > 1;
    let out = match &a.out {
        Some(o) => o.clone(),
        None if several => PathBuf::from("."),
        None => a.runs[0].clone(),
    };
    let mut written = Vec::new();
    let mut ratings = Vec::new();
    for run in &a.runs {
        // With several runs, each one's charts go to a folder of its name.
        let name = if several { run_name(run) } else { String::new() };
        let charts = if several { out.join(&name) } else { out.clone() };
        let files = plot_run(run, &charts).map_err(anyhow::Error::msg)?;
        if files.len() == 1 {
            eprintln!("{}: no evaluation rows yet, so no win-rate plot", run.display());
        }
        written.extend(files);
        let rows: Vec<RatingRow> = read_rows(&run.join("rating.csv"))?;
        ratings.push((name, rows));
    }
    let measure = a.measure.as_deref().or(several.then_some("equal time"));
    let strength = out.join("strength.svg");
    if draw_strength_chart(&ratings, measure, &strength).map_err(anyhow::Error::msg)? {
        written.push(strength);
    } else {
        eprintln!(
            "no rating series with two points (damone rate the runs' checkpoints), so no strength plot"
        );
    }
    let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    eprintln!("wrote {}", names.join(", "));
    Ok(())
}

/// A run's name: its folder's.
fn run_name(run: &Path) -> String {
    run.file_name()
        .map_or_else(|| run.display().to_string(), |n| n.to_string_lossy().into_owned())
}
