//! The run's CSV logs, each defined once as a serde struct, written and read
//! with the `csv` crate: [`Metrics`] (`metrics.csv`, one row per
//! iteration), [`EvalRow`] (`evals.csv`, one row per iteration and
//! baseline) and [`EvalGameRow`] (`eval_games.csv`, one row per evaluation
//! game). Rows are read back by column name, so a file written by a build
//! with fewer columns still reads (missing values are 0).

use crate::util::atomic_write;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One iteration of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Metrics {
    /// The iteration, counted from 1 across sittings.
    pub iteration: u32,
    /// Wall-clock seconds of the run at the end of this iteration.
    pub wall_s: f64,
    /// Seconds of this iteration, and of its phases.
    pub iter_s: f64,
    /// Seconds of this iteration's self-play.
    pub selfplay_s: f64,
    /// Seconds of this iteration's training steps.
    pub train_s: f64,
    /// Seconds of this iteration's evaluation games (0 when none were due).
    pub eval_s: f64,
    /// Self-play games finished in this iteration, and in the run.
    pub games: u32,
    /// Self-play games finished in the run so far.
    pub total_games: u64,
    /// Self-play moves played in this iteration, and in the run.
    pub positions: u64,
    /// Self-play moves played in the run so far.
    pub total_positions: u64,
    /// Games still running at the end of the iteration (they carry on).
    pub games_in_flight: u32,
    /// Training samples made, and the replay window's size.
    pub samples: u64,
    /// Samples the replay window holds after this iteration.
    pub window: u64,
    /// Training steps in this iteration, and in the run.
    pub steps: u64,
    /// Training steps in the run so far.
    pub total_steps: u64,
    /// Self-play moves per second of self-play.
    pub positions_per_s: f64,
    /// Training samples (steps x batch) per second of training.
    pub samples_per_s: f64,
    /// Network evaluations in self-play, per second of self-play, and per
    /// second spent in the network.
    pub net_evals: u64,
    /// Network evaluations per second of self-play.
    pub selfplay_evals_per_s: f64,
    /// Network evaluations per second spent in the network.
    pub net_evals_per_s: f64,
    /// Mean and smallest network batch of the iteration's self-play.
    pub mean_batch: f64,
    /// The smallest network batch of the iteration's self-play.
    pub min_batch: u32,
    /// Share of self-play time outside the network (search, bookkeeping).
    pub search_share: f64,
    /// Process CPU time over (threads x wall time) in self-play and training.
    pub selfplay_cpu_busy: f64,
    /// The same for training: process CPU time over (threads x wall time).
    pub train_cpu_busy: f64,
    /// Mean policy loss (cross-entropy against the search's visit targets) of the iteration's steps.
    pub loss_policy: f64,
    /// Mean value loss of the iteration's steps.
    pub loss_value: f64,
    /// Weighted auxiliary losses (0 without `model.aux_heads`).
    pub loss_aux: f64,
    /// Mean entropy (nats) of the network's policy over the legal moves of
    /// the iteration's training positions (0 in rows written before the
    /// column existed).
    pub policy_entropy: f64,
    /// Learning rate of the iteration's last step.
    pub lr: f64,
    /// Self-play games White won in this iteration.
    pub white_wins: u32,
    /// Self-play games Black won in this iteration.
    pub black_wins: u32,
    /// Self-play games drawn in this iteration.
    pub draws: u32,
    /// Self-play games ended by resignation in this iteration.
    pub resignations: u32,
    /// Games of this iteration played to the end although a side would have resigned (the no-resign share).
    pub resign_checks: u32,
    /// Of those, games the side that would have resigned did not lose.
    pub resign_false_positives: u32,
    /// Plies of `positions` played with no search (one legal move).
    pub forced_plies: u64,
    /// Positions the search asked for that the evaluation cache answered
    /// (not counted in `net_evals`).
    pub cache_hits: u64,
    /// Simulations of the iteration's full searches (they grow over the run
    /// with `selfplay.full_sims_start`).
    pub full_sims: u32,
    /// Seconds training the learned evaluation for alpha-beta, and its
    /// held-out loss (0 in iterations that trained none; logs written
    /// before it existed read as 0).
    #[serde(default)]
    pub learned_eval_s: f64,
    /// Held-out loss of the learned evaluation trained in this iteration.
    #[serde(default)]
    pub learned_eval_loss: f64,
    /// Games the expert played this iteration (`[expert]`; 0 without one,
    /// and in logs written before it existed).
    #[serde(default)]
    pub expert_games: usize,
    /// Samples those games added to the replay window.
    #[serde(default)]
    pub expert_samples: u64,
    /// Seconds of those games.
    #[serde(default)]
    pub expert_s: f64,
}

impl Metrics {
    /// The row with every timing-dependent value zeroed: what two runs of
    /// the same config with `threads = 1` must agree on.
    pub fn without_timing(&self) -> Metrics {
        Metrics {
            wall_s: 0.0,
            iter_s: 0.0,
            selfplay_s: 0.0,
            train_s: 0.0,
            eval_s: 0.0,
            positions_per_s: 0.0,
            samples_per_s: 0.0,
            selfplay_evals_per_s: 0.0,
            net_evals_per_s: 0.0,
            search_share: 0.0,
            selfplay_cpu_busy: 0.0,
            train_cpu_busy: 0.0,
            learned_eval_s: 0.0,
            expert_s: 0.0,
            ..self.clone()
        }
    }
}

/// The score against one baseline at one iteration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalRow {
    /// The iteration evaluated.
    pub iteration: u32,
    /// Wall-clock seconds of the run when the evaluation ended.
    pub wall_s: f64,
    /// The baseline as a player spec (`alphabeta:depth=4`).
    pub opponent: String,
    /// The baseline's search depth.
    pub depth: u32,
    /// Games the network won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the network lost.
    pub losses: u32,
    /// Score (win 1, draw 1/2) and the half-width of its 95% interval.
    pub score: f64,
    /// The half-width of the score's 95% interval.
    pub score_95: f64,
}

/// One evaluation game.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalGameRow {
    /// The iteration evaluated.
    pub iteration: u32,
    /// The baseline as a player spec.
    pub opponent: String,
    /// 1-based game number within the iteration's games against `opponent`.
    pub game: u32,
    /// The network's colour: white or black.
    pub net_color: String,
    /// PDN result: 1-0, 0-1 or 1/2-1/2.
    pub result: String,
    /// The network's score.
    pub score: f64,
    /// Plies the game lasted.
    pub plies: u32,
    /// Why the game ended.
    pub reason: String,
}

/// Why a log could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// A log that could not be read: its path and why.
    #[error("cannot read {0}: {1}")]
    Read(String, String),
    /// A log that could not be written: its path and why.
    #[error("cannot write {0}: {1} (is the disk full, or the folder read-only?)")]
    Write(String, String),
}

/// Every row of a CSV log (an empty list if the file does not exist).
pub fn read_rows<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, LogError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let what = path.display().to_string();
    let mut r = csv::Reader::from_path(path).map_err(|e| LogError::Read(what.clone(), e.to_string()))?;
    r.deserialize()
        .map(|row| row.map_err(|e| LogError::Read(what.clone(), e.to_string())))
        .collect()
}

/// Write all rows (temp file, then rename), with a header even when empty.
pub fn write_rows<T: Serialize + Default>(path: &Path, rows: &[T]) -> Result<(), LogError> {
    let what = || path.display().to_string();
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    // The header from the type itself, so that an empty log has one too.
    let mut h = csv::Writer::from_writer(Vec::new());
    h.serialize(T::default())
        .map_err(|e| LogError::Write(what(), e.to_string()))?;
    let head = h
        .into_inner()
        .map_err(|e| LogError::Write(what(), e.to_string()))?;
    let head = head.split(|&b| b == b'\n').next().unwrap_or_default().to_vec();
    for r in rows {
        w.serialize(r)
            .map_err(|e| LogError::Write(what(), e.to_string()))?;
    }
    let body = w
        .into_inner()
        .map_err(|e| LogError::Write(what(), e.to_string()))?;
    let mut bytes = head;
    bytes.push(b'\n');
    bytes.extend_from_slice(&body);
    atomic_write(path, &bytes).map_err(|e| LogError::Write(what(), e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_old_files_read_by_name() {
        let dir = std::env::temp_dir().join(format!("damone-metrics-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("m.csv");
        let rows = vec![
            Metrics {
                iteration: 1,
                loss_policy: 2.5,
                ..Default::default()
            },
            Metrics {
                iteration: 2,
                mean_batch: 61.25,
                ..Default::default()
            },
        ];
        write_rows(&p, &rows).unwrap();
        assert_eq!(read_rows::<Metrics>(&p).unwrap(), rows);
        write_rows::<Metrics>(&p, &[]).unwrap();
        assert!(std::fs::read_to_string(&p)
            .unwrap()
            .starts_with("iteration,wall_s,"));
        // A file from an older build: other columns, some missing.
        std::fs::write(&p, "iteration,wall_s,ab2_score\n3,10.5,0.25\n").unwrap();
        let old: Vec<Metrics> = read_rows(&p).unwrap();
        assert_eq!(
            (old[0].iteration, old[0].wall_s, old[0].mean_batch),
            (3, 10.5, 0.0)
        );
        std::fs::write(&p, "iteration,wall_s\nx,1\n").unwrap();
        assert!(read_rows::<Metrics>(&p).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
