//! `damone plot <run>`: loss and win-rate curves from metrics.csv as SVG.

use anyhow::{bail, Context, Result};
use clap::Args;
use plotters::prelude::*;
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

/// Columns of a CSV by header name.
pub fn read_columns(path: &Path) -> Result<BTreeMap<String, Vec<String>>> {
    let mut r = csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let headers: Vec<String> = r.headers()?.iter().map(String::from).collect();
    let mut cols: BTreeMap<String, Vec<String>> = headers.iter().map(|h| (h.clone(), Vec::new())).collect();
    for rec in r.records() {
        let rec = rec.with_context(|| format!("bad row in {}", path.display()))?;
        for (h, v) in headers.iter().zip(rec.iter()) {
            cols.get_mut(h).expect("header").push(v.to_string());
        }
    }
    Ok(cols)
}

/// A simple multi-series line chart to SVG.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<()> {
    let pts: Vec<(f64, f64)> = series.iter().flat_map(|(_, s)| s.iter().copied()).collect();
    if pts.is_empty() {
        bail!("nothing to plot for {title}");
    }
    let (x0, x1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let pad = ((y1 - y0) * 0.05).max(1e-3);
    let xr = if x1 > x0 { x0..x1 } else { x0 - 1.0..x1 + 1.0 };
    let root = SVGBackend::new(path, (900, 540)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(xr, (y0 - pad)..(y1 + pad))?;
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).draw()?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    for (i, (name, s)) in series.iter().enumerate() {
        let c = colors[i % colors.len()];
        chart
            .draw_series(LineSeries::new(s.iter().copied(), c.stroke_width(2)))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
        chart.draw_series(s.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

fn nums(cols: &BTreeMap<String, Vec<String>>, x: &str, y: &str) -> Vec<(f64, f64)> {
    match (cols.get(x), cols.get(y)) {
        (Some(xs), Some(ys)) => xs
            .iter()
            .zip(ys)
            .filter_map(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            .collect(),
        _ => Vec::new(),
    }
}

pub fn run_plot(a: PlotArgs) -> Result<()> {
    let dir = if Path::new(&a.run).is_dir() {
        PathBuf::from(&a.run)
    } else {
        a.checkpoint_dir.join(&a.run)
    };
    let metrics = dir.join("metrics.csv");
    if !metrics.exists() {
        bail!(
            "{} has no metrics.csv (is '{}' a training run?)",
            dir.display(),
            a.run
        );
    }
    let cols = read_columns(&metrics)?;
    let out = a.out.unwrap_or_else(|| dir.clone());
    std::fs::create_dir_all(&out)?;
    let loss = out.join("loss.svg");
    line_chart(
        &loss,
        "training loss",
        "iteration",
        "cross-entropy",
        &[
            ("policy".into(), nums(&cols, "iteration", "loss_policy")),
            ("value".into(), nums(&cols, "iteration", "loss_value")),
        ],
    )?;
    let mut series = Vec::new();
    for h in cols.keys() {
        if let Some(d) = h.strip_prefix("ab").and_then(|r| r.strip_suffix("_score")) {
            let mut s = nums(&cols, "wall_s", h);
            for p in &mut s {
                p.0 /= 60.0;
            }
            series.push((format!("vs alphabeta depth {d}"), s));
        }
    }
    if series.iter().all(|(_, s)| s.is_empty()) {
        eprintln!(
            "wrote {} (no evaluation rows yet, so no win-rate plot)",
            loss.display()
        );
        return Ok(());
    }
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
