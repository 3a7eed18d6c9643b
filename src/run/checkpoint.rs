//! The checkpoint folder format, with one reader for every user (resume,
//! export, `tournament --run`, `net:PATH` players).
//!
//! ## Layout (version 3; version 2 had no checksums)
//!
//! A run folder `<checkpoint_dir>/<run>/` holds `metrics.csv`,
//! `evals.csv`, `eval_games.csv`, `resume.log`, `run.lock` (held while a
//! process trains the run), `live.json` (the self-play
//! game in progress, for `damone serve`) and one folder per kept checkpoint,
//! `iter_NNNN/`, holding:
//!
//! | file | content |
//! | --- | --- |
//! | `state.toml` | [`CheckpointState`]: versions, iteration, counters, and the FNV-1a checksum of every other file |
//! | `config.toml` | the run's [`RunConfig`] |
//! | `model.bpk` | the network weights (burnpack) |
//! | `optimizer.bpk` | the optimiser state |
//! | `replay.bin` | the replay window (`data`) |
//! | `selfplay.bin` | the self-play games in flight (`selfplay`) |
//!
//! A checkpoint is written into `.iter_NNNN.tmp/` and renamed into place,
//! so a folder named `iter_NNNN` is always complete. Every file is checked
//! against its checksum when it is read, so a damaged file is named, never
//! used.

use super::config::{ConfigError, RunConfig};
use crate::net::{net_from_bytes, Net, WeightsError, ENCODING_VERSION};
use crate::util::{atomic_write, fnv1a};
use burn::tensor::Device;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Version of the checkpoint folder layout.
pub const CHECKPOINT_VERSION: u32 = 3;

/// Why a checkpoint could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The folder has no `state.toml`.
    #[error("{0} is not a checkpoint folder (no state.toml; expected <checkpoint_dir>/<run>/iter_NNNN)")]
    NotACheckpoint(PathBuf),
    /// A file of the checkpoint could not be read.
    #[error("checkpoint {0}: cannot read {1}: {2}")]
    Io(PathBuf, &'static str, std::io::Error),
    /// `state.toml` does not parse.
    #[error("checkpoint {0}: state.toml is corrupt: {1}")]
    State(PathBuf, String),
    /// The checkpoint's format version is not this build's.
    #[error("checkpoint {0} has format version {1}; this build reads version {CHECKPOINT_VERSION}")]
    Version(PathBuf, u32),
    /// The checkpoint's input encoding is not this build's.
    #[error("checkpoint {0} uses input encoding version {1}; this build uses version {ENCODING_VERSION}")]
    Encoding(PathBuf, u32),
    /// The checkpoint's `config.toml` is invalid.
    #[error("checkpoint {0}: {1}")]
    Config(PathBuf, ConfigError),
    /// The checkpoint's weights do not load.
    #[error("checkpoint {0}: {1}")]
    Weights(PathBuf, WeightsError),
    /// A file's checksum does not match `state.toml`.
    #[error("checkpoint {0}: {1} is damaged (its checksum does not match state.toml)")]
    Damaged(PathBuf, &'static str),
    /// A file could not be written.
    #[error("cannot write checkpoint {0}: {1} (is the disk full, or the folder read-only?); the checkpoints before it are intact: fix that, then --resume")]
    Write(PathBuf, std::io::Error),
    /// The run folder holds no checkpoint.
    #[error("no checkpoint in {0}")]
    Empty(PathBuf),
}

/// `state.toml`: what a checkpoint is, besides its files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointState {
    /// [`CHECKPOINT_VERSION`].
    pub version: u32,
    /// The network's input encoding version (`net::ENCODING_VERSION`).
    pub encoding_version: u32,
    /// Iterations completed.
    pub iteration: u32,
    /// Training steps taken.
    pub step: u64,
    /// Self-play games finished.
    pub games: u64,
    /// Self-play moves played.
    pub positions: u64,
    /// Best mean evaluation score so far, and its iteration (0 = none yet).
    pub best_score: f64,
    /// The iteration of `best_score` (0 = none yet).
    pub best_iteration: u32,
    /// Wall-clock seconds of the run so far.
    pub wall_s: f64,
    /// The checksum of each file of the checkpoint: `crc32:` and the
    /// CRC-32 in 8 hex digits, the project's one checksum; checkpoints
    /// written before it hold a 16-digit FNV-1a, still checked.
    pub checksums: BTreeMap<String, String>,
}

/// The files of a checkpoint besides `state.toml`.
pub const CHECKPOINT_FILES: [&str; 5] = [
    "config.toml",
    "model.bpk",
    "optimizer.bpk",
    "replay.bin",
    "selfplay.bin",
];

fn checksum(bytes: &[u8]) -> String {
    format!("crc32:{:08x}", crc32fast::hash(bytes))
}

/// Whether `sum`, as `state.toml` holds it, is the checksum of `bytes`
/// (the CRC-32 written now, or an older checkpoint's FNV-1a).
fn checksum_matches(sum: &str, bytes: &[u8]) -> bool {
    match sum.strip_prefix("crc32:") {
        Some(_) => sum == checksum(bytes),
        None => sum == format!("{:016x}", fnv1a(bytes)),
    }
}

/// A checkpoint folder whose state and config have been read and checked;
/// the large files are read on demand.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The checkpoint's folder (`iter_NNNN`).
    pub dir: PathBuf,
    /// Its `state.toml`.
    pub state: CheckpointState,
    /// Its `config.toml`: the run's config as it stood.
    pub config: RunConfig,
}

impl Checkpoint {
    /// The checkpoint `path` names wherever a player is named: a checkpoint
    /// folder itself, or a run folder's
    /// [`player_checkpoint`](RunDir::player_checkpoint).
    pub fn for_player(path: &Path, latest: bool) -> Result<Checkpoint, CheckpointError> {
        if RunDir::is_run_folder(path) {
            return RunDir::new(path).player_checkpoint(latest);
        }
        Checkpoint::open(path)
    }

    /// Read and check `dir/state.toml` and `dir/config.toml`.
    pub fn open(dir: &Path) -> Result<Checkpoint, CheckpointError> {
        let d = dir.to_path_buf();
        let state_path = dir.join("state.toml");
        if !state_path.is_file() {
            return Err(CheckpointError::NotACheckpoint(d));
        }
        let text = std::fs::read_to_string(&state_path)
            .map_err(|e| CheckpointError::Io(d.clone(), "state.toml", e))?;
        // The version first, so that an old layout is named as such.
        let table: toml::Table =
            toml::from_str(&text).map_err(|e| CheckpointError::State(d.clone(), one_line(&e)))?;
        let version = table.get("version").and_then(|v| v.as_integer()).unwrap_or(-1);
        if version != CHECKPOINT_VERSION as i64 {
            return Err(CheckpointError::Version(
                d,
                version.clamp(0, u32::MAX as i64) as u32,
            ));
        }
        let state: CheckpointState =
            toml::from_str(&text).map_err(|e| CheckpointError::State(d.clone(), one_line(&e)))?;
        if state.encoding_version != ENCODING_VERSION {
            return Err(CheckpointError::Encoding(d, state.encoding_version));
        }
        let mut ck = Checkpoint {
            dir: d.clone(),
            state,
            config: RunConfig::default(),
        };
        let text = ck.read("config.toml")?;
        let text = String::from_utf8(text).map_err(|_| CheckpointError::Damaged(d.clone(), "config.toml"))?;
        ck.config = RunConfig::from_saved_toml(&text, &[], &dir.join("config.toml").display().to_string())
            .map_err(|e| CheckpointError::Config(d, e))?;
        Ok(ck)
    }

    /// The bytes of one of the checkpoint's files, checked against its
    /// checksum.
    pub fn read(&self, name: &'static str) -> Result<Vec<u8>, CheckpointError> {
        let bytes =
            std::fs::read(self.dir.join(name)).map_err(|e| CheckpointError::Io(self.dir.clone(), name, e))?;
        match self.state.checksums.get(name) {
            Some(sum) if checksum_matches(sum, &bytes) => Ok(bytes),
            _ => Err(CheckpointError::Damaged(self.dir.clone(), name)),
        }
    }

    /// Read every file and check its checksum.
    pub fn verify(&self) -> Result<(), CheckpointError> {
        for name in CHECKPOINT_FILES {
            self.read(name)?;
        }
        Ok(())
    }

    /// The network, in inference form, on `device`.
    pub fn load_net(&self, device: &Device) -> Result<Net, CheckpointError> {
        let what = self.dir.join("model.bpk").display().to_string();
        net_from_bytes(&self.config.model, self.read("model.bpk")?, device, &what)
            .map_err(|e| CheckpointError::Weights(self.dir.clone(), e))
    }
}

fn one_line(e: &dyn std::fmt::Display) -> String {
    e.to_string().trim().replace('\n', " ")
}

/// The files of a checkpoint to write (the checksums of `state` are filled
/// in when it is written).
pub struct CheckpointFiles<'a> {
    /// The counters and checksums (`state.toml`).
    pub state: &'a CheckpointState,
    /// The run's config (`config.toml`).
    pub config: &'a RunConfig,
    /// The network's weights (`model.bpk`).
    pub model: &'a [u8],
    /// The optimiser's state (`optimizer.bpk`).
    pub optimizer: &'a [u8],
    /// The replay window (`replay.bin`).
    pub replay: &'a [u8],
    /// The games in flight (`selfplay.bin`).
    pub selfplay: &'a [u8],
}

/// `live.json`: the position of self-play's first game slot, rewritten as
/// the games go on, for a live view of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LivePosition {
    /// The iteration being played.
    pub iteration: u32,
    /// Plies played in that game.
    pub ply: usize,
    /// Its game (files written before there were other games have none:
    /// Damone).
    #[serde(default)]
    pub game: crate::game::GameId,
    /// The rules variant's stored name.
    pub variant: String,
    /// The position's setup string.
    pub fen: String,
}

/// A run folder: `<checkpoint_dir>/<run>/`.
#[derive(Clone, Debug)]
pub struct RunDir {
    /// The folder's path.
    pub root: PathBuf,
}

impl RunDir {
    /// The run folder at `root`.
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }
    /// The folder of the checkpoint after iteration `k`.
    pub fn iter_dir(&self, k: u32) -> PathBuf {
        self.root.join(format!("iter_{k:04}"))
    }
    /// The lock a run holds while it is open, `run.lock`.
    pub fn lock_path(&self) -> PathBuf {
        self.root.join("run.lock")
    }
    /// The per-iteration log, `metrics.csv`.
    pub fn metrics_path(&self) -> PathBuf {
        self.root.join("metrics.csv")
    }
    /// The evaluation log, `evals.csv`.
    pub fn evals_path(&self) -> PathBuf {
        self.root.join("evals.csv")
    }
    /// The evaluation games' log, `eval_games.csv`.
    pub fn eval_games_path(&self) -> PathBuf {
        self.root.join("eval_games.csv")
    }

    /// The live view's file, `live.json`.
    pub fn live_path(&self) -> PathBuf {
        self.root.join("live.json")
    }

    /// The live view (written from the first self-play game of a run on);
    /// None before that, or when the file cannot be read.
    pub fn live(&self) -> Option<LivePosition> {
        let text = std::fs::read_to_string(self.live_path()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// The game its self-play is playing, from the live view: a run that
    /// has no checkpoint yet already says its game there.
    pub fn live_game(&self) -> Option<crate::game::GameId> {
        self.live().map(|l| l.game)
    }

    /// Iterations of the complete checkpoints, oldest first (empty if the
    /// folder does not exist).
    pub fn checkpoints(&self) -> Vec<u32> {
        let Ok(rd) = std::fs::read_dir(&self.root) else {
            return Vec::new();
        };
        let mut v: Vec<u32> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .filter_map(|e| {
                let name = e.file_name();
                let n = name.to_str()?.strip_prefix("iter_")?;
                (n.len() >= 4 && n.bytes().all(|b| b.is_ascii_digit())).then(|| n.parse().ok())?
            })
            .collect();
        v.sort();
        v
    }

    /// The newest checkpoint whose files are all intact, if any.
    pub fn newest_intact(&self) -> Option<Checkpoint> {
        self.checkpoints()
            .into_iter()
            .rev()
            .filter_map(|k| Checkpoint::open(&self.iter_dir(k)).ok())
            .find(|ck| ck.verify().is_ok())
    }

    /// The newest complete checkpoint.
    pub fn latest(&self) -> Result<Checkpoint, CheckpointError> {
        let k = *self
            .checkpoints()
            .last()
            .ok_or_else(|| CheckpointError::Empty(self.root.clone()))?;
        Checkpoint::open(&self.iter_dir(k))
    }

    /// The checkpoint a run folder stands for where a player is named: its
    /// best by evaluation (the newest while none is rated, or when the best
    /// was pruned), or its newest with `latest`.
    pub fn player_checkpoint(&self, latest: bool) -> Result<Checkpoint, CheckpointError> {
        let newest = self.latest()?;
        let best = newest.state.best_iteration;
        if latest || best == 0 || best == newest.state.iteration || !self.iter_dir(best).is_dir() {
            return Ok(newest);
        }
        Checkpoint::open(&self.iter_dir(best))
    }

    /// Whether `path` is a run folder (a folder of checkpoints, not a
    /// checkpoint itself).
    pub fn is_run_folder(path: &Path) -> bool {
        path.is_dir() && !path.join("state.toml").exists() && !RunDir::new(path).checkpoints().is_empty()
    }

    /// Write checkpoint `k` (temp folder, then rename). On failure (a full
    /// disk, a folder that refuses writes) the temp folder is removed and
    /// the checkpoints before it stay as they were.
    pub fn write(&self, k: u32, f: &CheckpointFiles<'_>) -> Result<PathBuf, CheckpointError> {
        let final_dir = self.iter_dir(k);
        let tmp = self.root.join(format!(".iter_{k:04}.tmp"));
        let _ = std::fs::remove_dir_all(&tmp);
        let written = write_files(&tmp, f).and_then(|()| {
            let _ = std::fs::remove_dir_all(&final_dir);
            std::fs::rename(&tmp, &final_dir)
        });
        match written {
            Ok(()) => Ok(final_dir),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&tmp);
                Err(CheckpointError::Write(final_dir, e))
            }
        }
    }

    /// Remove checkpoints beyond the newest `keep_last`, except those of
    /// the iterations in `keep`.
    pub fn prune(&self, keep_last: usize, keep: &[u32]) {
        let all = self.checkpoints();
        let from = all.len().saturating_sub(keep_last);
        for (i, it) in all.iter().enumerate() {
            if i < from && !keep.contains(it) {
                let _ = std::fs::remove_dir_all(self.iter_dir(*it));
            }
        }
    }
}

/// The files of a checkpoint into `dir` (created): every file atomically,
/// `state.toml` with their checksums last.
fn write_files(dir: &Path, f: &CheckpointFiles<'_>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let config = f.config.to_toml();
    let mut state = f.state.clone();
    state.checksums.clear();
    for (name, bytes) in [
        ("config.toml", config.as_bytes()),
        ("model.bpk", f.model),
        ("optimizer.bpk", f.optimizer),
        ("replay.bin", f.replay),
        ("selfplay.bin", f.selfplay),
    ] {
        atomic_write(&dir.join(name), bytes)?;
        state.checksums.insert(name.to_string(), checksum(bytes));
    }
    let state = toml::to_string(&state).expect("state serialises");
    atomic_write(&dir.join("state.toml"), state.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// New checkpoints hold CRC-32s; older ones' FNV-1a checksums still check.
    #[test]
    fn checksums_of_both_schemes_check() {
        let bytes = b"model weights";
        let new = checksum(bytes);
        assert!(new.starts_with("crc32:") && new.len() == 14, "{new}");
        assert!(checksum_matches(&new, bytes));
        assert!(!checksum_matches(&new, b"model weightS"));
        let old = format!("{:016x}", fnv1a(bytes));
        assert!(checksum_matches(&old, bytes));
        assert!(!checksum_matches(&old, b"model weightS"));
        assert!(!checksum_matches("crc32:zz", bytes));
    }
}
