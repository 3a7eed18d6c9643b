//! `damone tournament --run`: every kept checkpoint of a run against a
//! ladder of baseline players (each baseline against the others too, so
//! that the ratings are anchored), and the checkpoints' ratings against
//! training time (`ratings_by_iteration.csv` and `rating.svg`).

use crate::arena::Standings;
use crate::run::{read_rows, Metrics, RunDir};
use crate::util::atomic_write;
use crate::util::chart::line_chart;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The ladder a checkpoint tournament plays when none is given.
pub const DEFAULT_BASELINES: &str = "random,alphabeta:depth=2,alphabeta:depth=4,alphabeta:depth=6";

/// The players and pairings of a checkpoint tournament.
#[derive(Clone, Debug)]
pub struct CheckpointTournament {
    /// The run folder.
    pub run: PathBuf,
    /// Player specs: the baselines first, then one `net:` spec per checkpoint.
    pub names: Vec<String>,
    /// How many of `names` are baselines.
    pub baselines: usize,
    /// The checkpoints' iterations, in the order of their specs.
    pub iterations: Vec<u32>,
    /// Every baseline against every other, and every checkpoint against
    /// every baseline.
    pub pairs: Vec<(usize, usize)>,
}

impl CheckpointTournament {
    /// The tournament of the run folder `run`'s kept checkpoints, each
    /// playing `sims` simulations a move, against `baselines`.
    pub fn new(run: &Path, baselines: Vec<String>, sims: u32) -> Result<CheckpointTournament, String> {
        if !run.is_dir() {
            return Err(format!(
                "{} is not a run folder (expected checkpoints/<run>)",
                run.display()
            ));
        }
        let iterations = RunDir::new(run).checkpoints();
        if iterations.is_empty() {
            return Err(format!("run {} has no checkpoints", run.display()));
        }
        if sims == 0 {
            return Err("--sims must be at least 1".into());
        }
        let nb = baselines.len();
        let mut names = baselines;
        for k in &iterations {
            names.push(format!("net:{}/iter_{k:04},sims={sims}", run.display()));
        }
        let mut pairs: Vec<(usize, usize)> = (0..nb).flat_map(|i| (i + 1..nb).map(move |j| (i, j))).collect();
        pairs.extend((nb..names.len()).flat_map(|c| (0..nb).map(move |b| (c, b))));
        Ok(CheckpointTournament {
            run: run.to_path_buf(),
            names,
            baselines: nb,
            iterations,
            pairs,
        })
    }

    /// Write `ratings_by_iteration.csv` (iteration, training minutes, Elo and
    /// its interval, score, games) and `rating.svg` (rating against training
    /// time, the baselines as flat lines) into `out`; the two paths.
    pub fn write_ratings(&self, standings: &Standings, out: &Path) -> Result<(PathBuf, PathBuf), String> {
        let wall: BTreeMap<u32, f64> = read_rows::<Metrics>(&RunDir::new(&self.run).metrics_path())
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|m| (m.iteration, m.wall_s))
            .collect();
        let mut csv = String::from("iteration,training_minutes,elo,elo_95,score,games\n");
        let mut points = Vec::new();
        for (k, name) in self.iterations.iter().zip(&self.names[self.baselines..]) {
            let row = standings
                .rows
                .iter()
                .find(|r| &r.player == name)
                .ok_or_else(|| format!("{name} is missing from the standings"))?;
            let minutes = wall.get(k).copied().unwrap_or(0.0) / 60.0;
            csv.push_str(&format!(
                "{k},{minutes:.1},{:.1},{:.1},{:.4},{}\n",
                row.elo, row.elo_95, row.score, row.games
            ));
            points.push((minutes, row.elo));
        }
        let csv_path = out.join("ratings_by_iteration.csv");
        atomic_write(&csv_path, csv.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", csv_path.display()))?;
        let last_minute = wall.values().copied().fold(1.0, f64::max) / 60.0;
        let mut series = vec![("checkpoints".to_string(), points)];
        for b in &self.names[..self.baselines] {
            if let Some(r) = standings.rows.iter().find(|r| &r.player == b) {
                series.push((b.clone(), vec![(0.0, r.elo), (last_minute, r.elo)]));
            }
        }
        let svg = out.join("rating.svg");
        let title = format!(
            "rating of run {} against training time (anchor: {})",
            self.run.display(),
            standings.anchor
        );
        line_chart(&svg, &title, "training time (minutes)", "Elo", &series).map_err(|e| e.to_string())?;
        Ok((csv_path, svg))
    }
}
