//! One row of `rating.csv` per match of the measuring protocol
//! ([`RatingRow`], written by [`super::rate`]), and the charts drawn from
//! them: a run's rating curve and several runs' strength against training
//! hours (`damone plot`).

use crate::util::chart::line_chart;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One match of the protocol (`rating.csv`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RatingRow {
    /// The checkpoint's iteration, training minutes and self-play games.
    pub iteration: u32,
    /// Minutes of training up to the checkpoint.
    pub train_minutes: f64,
    /// Self-play games up to the checkpoint.
    pub train_games: u64,
    /// `sims`, `equal-time`, `policy`, `learned` (alpha-beta with the
    /// learned evaluation against the hand-written one, equal time) or
    /// `learned-vs-net` (the same against the network player).
    pub mode: String,
    /// The opponent as a player spec (`alphabeta:depth=4`,
    /// `alphabeta:movetime=12.5ms`).
    pub opponent: String,
    /// The network player's simulations per move (0 for the raw policy).
    pub sims: u32,
    /// The network player's mean milliseconds per move (equal time only).
    pub net_ms_per_move: f64,
    /// The threads of each side's search (0 in rows written before the
    /// column existed, which were one thread).
    pub threads: u32,
    /// Games played.
    pub games: u32,
    /// Games the network won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the network lost.
    pub losses: u32,
    /// The network's score (in `learned` rows the learned evaluation's)
    /// and the half-width of its 95% interval.
    pub score: f64,
    /// The half-width of the score's 95% interval.
    pub score_95: f64,
}

impl RatingRow {
    /// The curve this row is a point of: "64 sims vs alphabeta:depth=6",
    /// "equal time, 2 threads", "raw policy vs alphabeta:depth=2",
    /// "learned eval vs alpha-beta, 1 thread(s)"...
    pub fn series_name(&self) -> String {
        let threads = self.threads.max(1);
        match self.mode.as_str() {
            "equal-time" if threads > 1 => format!("equal time, {threads} threads"),
            "equal-time" => "equal time".to_string(),
            "policy" => format!("raw policy vs {}", self.opponent),
            "learned" => format!("learned eval vs alpha-beta, {threads} thread(s)"),
            "learned-vs-net" => format!("learned eval vs the network, {threads} thread(s)"),
            _ => format!("{} sims vs {}", self.sims, self.opponent),
        }
    }

    /// True when `other` is the same match of the same checkpoint (its
    /// iteration and games), which a new rating replaces: the same mode,
    /// threads and simulations, and for the fixed-budget modes the same
    /// opponent (the equal-time ones measure their time anew).
    pub fn same_match(&self, other: &RatingRow) -> bool {
        let timed = matches!(self.mode.as_str(), "equal-time" | "learned" | "learned-vs-net");
        (self.iteration, self.train_games, &self.mode) == (other.iteration, other.train_games, &other.mode)
            && (self.threads, self.sims) == (other.threads, other.sims)
            && (timed || self.opponent == other.opponent)
    }
}

/// Draw the rating curve of one run's rows into `svg`: every series'
/// score against training hours ([`draw_strength_chart`]); false (nothing
/// drawn) when no series has two points.
pub fn draw_rating_curve(rows: &[RatingRow], svg: &Path) -> Result<bool, String> {
    draw_strength_chart(&[(String::new(), rows.to_vec())], None, svg)
}

/// Strength against training hours of several runs (`damone plot`): for
/// each run (its name and rows) a line per series whose name contains
/// `measure` ([`RatingRow::series_name`]; every series when None), named
/// "run: series" where a run has a name. False (nothing drawn) when no
/// line has two points; an error listing the series when `measure` matches
/// none.
pub fn draw_strength_chart(
    runs: &[(String, Vec<RatingRow>)],
    measure: Option<&str>,
    svg: &Path,
) -> Result<bool, String> {
    let mut series: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for (run, rows) in runs {
        for r in rows {
            let name = r.series_name();
            names.insert(name.clone());
            if measure.is_some_and(|m| !name.contains(m)) {
                continue;
            }
            let name = if run.is_empty() {
                name
            } else {
                format!("{run}: {name}")
            };
            let pt = (r.train_minutes / 60.0, 100.0 * r.score);
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, pts)) => pts.push(pt),
                None => series.push((name, vec![pt])),
            }
        }
    }
    if let (Some(m), true) = (measure, series.is_empty() && !names.is_empty()) {
        let names: Vec<String> = names.into_iter().collect();
        return Err(format!(
            "no rating series matches '{m}'; the rows have: {}",
            names.join("; ")
        ));
    }
    if !series.iter().any(|(_, pts)| pts.len() > 1) {
        return Ok(false);
    }
    for (_, pts) in &mut series {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    line_chart(
        svg,
        "score against alpha-beta",
        "training hours",
        "score %",
        &series,
    )
    .map_err(|e| e.to_string())?;
    Ok(true)
}
