//! SVG line charts (plotters): a run's loss and score curves, the rating
//! curve of `damone rate`, a checkpoint tournament's ratings.

use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Why a chart was not drawn.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// No series has a point: its title.
    #[error("nothing to plot for {0}")]
    Empty(String),
    /// The SVG could not be drawn or written: its path and why.
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, String),
}

/// A simple multi-series line chart to SVG.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<(), ChartError> {
    let pts: Vec<(f64, f64)> = series.iter().flat_map(|(_, s)| s.iter().copied()).collect();
    if pts.is_empty() {
        return Err(ChartError::Empty(title.to_string()));
    }
    let (x0, x1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let pad = ((y1 - y0) * 0.05).max(1e-3);
    let xr = if x1 > x0 { x0..x1 } else { x0 - 1.0..x1 + 1.0 };
    draw(path, title, x_label, y_label, series, xr, (y0 - pad)..(y1 + pad))
        .map_err(|e| ChartError::Write(path.to_path_buf(), e.to_string()))
}

/// Draw `series` on the ranges `xr` and `yr` into the SVG at `path`.
fn draw(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    xr: std::ops::Range<f64>,
    yr: std::ops::Range<f64>,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (900, 540)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(xr, yr)?;
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
    root.present()?;
    Ok(())
}
