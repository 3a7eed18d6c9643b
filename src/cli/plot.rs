//! `damone plot <run>`: loss and win-rate curves of a run as SVG, read
//! from its logs through the library's row types.

use super::chart::line_chart;
use anyhow::{bail, Result};
use clap::Args;
use damone::run::{read_rows, EvalRow, Metrics, RunDir};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// Run name (a folder under --checkpoint-dir) or a path to a run folder.
    pub run: String,
    /// Folder holding runs.
    #[arg(long, default_value = "checkpoints")]
    pub checkpoint_dir: PathBuf,
    /// Output folder (default: the run folder).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run_plot(a: PlotArgs) -> Result<()> {
    let dir = if Path::new(&a.run).is_dir() {
        PathBuf::from(&a.run)
    } else {
        a.checkpoint_dir.join(&a.run)
    };
    let run = RunDir::new(&dir);
    if !run.metrics_path().exists() {
        bail!(
            "{} has no metrics.csv (is '{}' a training run?)",
            dir.display(),
            a.run
        );
    }
    let metrics: Vec<Metrics> = read_rows(&run.metrics_path())?;
    let out = a.out.unwrap_or_else(|| dir.clone());
    std::fs::create_dir_all(&out)?;
    let loss = out.join("loss.svg");
    let series = |f: fn(&Metrics) -> f64| -> Vec<(f64, f64)> {
        metrics.iter().map(|m| (m.iteration as f64, f(m))).collect()
    };
    line_chart(
        &loss,
        "training loss",
        "iteration",
        "cross-entropy",
        &[
            ("policy".into(), series(|m| m.loss_policy)),
            ("value".into(), series(|m| m.loss_value)),
        ],
    )?;
    let evals: Vec<EvalRow> = read_rows(&run.evals_path())?;
    let mut by_opponent: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for e in &evals {
        by_opponent
            .entry(e.depth)
            .or_default()
            .push((e.wall_s / 60.0, e.score));
    }
    if by_opponent.is_empty() {
        eprintln!(
            "wrote {} (no evaluation rows yet, so no win-rate plot)",
            loss.display()
        );
        return Ok(());
    }
    let series: Vec<(String, Vec<(f64, f64)>)> = by_opponent
        .into_iter()
        .map(|(d, s)| (format!("vs alphabeta depth {d}"), s))
        .collect();
    let wr = out.join("winrate.svg");
    line_chart(
        &wr,
        "score against the alpha-beta baseline",
        "training time (minutes)",
        "score (win = 1, draw = 1/2)",
        &series,
    )?;
    eprintln!("wrote {} and {}", loss.display(), wr.display());
    Ok(())
}
