//! A run's curves as SVG (`damone plot`): training losses by iteration
//! (`loss.svg`) and the built-in evaluation's scores against each
//! alpha-beta depth by training time (`winrate.svg`), read from the run's
//! logs through their row types.

use super::{read_rows, EvalRow, Metrics, RunDir};
use crate::util::chart::line_chart;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Draw the run folder `dir`'s charts into `out`; the files written
/// (`winrate.svg` only once the run has evaluation rows).
pub fn plot_run(dir: &Path, out: &Path) -> Result<Vec<PathBuf>, String> {
    let run = RunDir::new(dir);
    if !run.metrics_path().exists() {
        return Err(format!(
            "{} has no metrics.csv (is it a training run's folder?)",
            dir.display()
        ));
    }
    let metrics: Vec<Metrics> = read_rows(&run.metrics_path()).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
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
    )
    .map_err(|e| e.to_string())?;
    let evals: Vec<EvalRow> = read_rows(&run.evals_path()).map_err(|e| e.to_string())?;
    let mut by_depth: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for e in &evals {
        by_depth
            .entry(e.depth)
            .or_default()
            .push((e.wall_s / 60.0, e.score));
    }
    if by_depth.is_empty() {
        return Ok(vec![loss]);
    }
    let series: Vec<(String, Vec<(f64, f64)>)> = by_depth
        .into_iter()
        .map(|(d, s)| (format!("vs alphabeta depth {d}"), s))
        .collect();
    let winrate = out.join("winrate.svg");
    line_chart(
        &winrate,
        "score against the alpha-beta baseline",
        "training time (minutes)",
        "score (win = 1, draw = 1/2)",
        &series,
    )
    .map_err(|e| e.to_string())?;
    Ok(vec![loss, winrate])
}
