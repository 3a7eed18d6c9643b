//! What a run reports to its observer ([`Event`], by [`Phase`]) and why it
//! may fail to start or go on ([`RunError`]).

use super::checkpoint::CheckpointError;
use super::config::ConfigError;
use super::metrics::{EvalRow, LogError, Metrics};
use crate::data::ReplayError;
use crate::game::GameId;
use crate::net::DeviceError;
use crate::util::bin::BinError;
use std::path::PathBuf;

/// The phases of an iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Counted in finished games.
    SelfPlay,
    /// The expert's alpha-beta games (`[expert]`), counted in games.
    Expert,
    /// Counted in training steps.
    Training,
    /// Counted in evaluation games.
    Evaluation,
    /// The learned evaluation for alpha-beta, counted in epochs.
    LearnedEval,
    /// A round of the learned evaluation's self-training after the run's
    /// last iteration, counted in games.
    SelfTrain,
}

/// What a run reports to its observer.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The run is about to play `iteration` (the first since it was opened or resumed).
    Started {
        /// The iteration about to be played.
        iteration: u32,
        /// True when the run was resumed.
        resumed: bool,
        /// The run folder.
        dir: PathBuf,
        /// The device the network runs on, in words.
        device: String,
    },
    /// A phase began; `total` units are expected.
    Phase {
        /// The iteration.
        iteration: u32,
        /// The phase.
        phase: Phase,
        /// Units expected (games, steps).
        total: u64,
    },
    /// `done` units of the current phase are done.
    Progress {
        /// The iteration.
        iteration: u32,
        /// The phase.
        phase: Phase,
        /// Units done so far.
        done: u64,
    },
    /// An iteration ended and its checkpoint is written.
    Iteration {
        /// Its row of `metrics.csv`.
        metrics: Box<Metrics>,
        /// Its rows of `evals.csv` (none when no evaluation was due).
        evals: Vec<EvalRow>,
        /// The checkpoint's folder.
        checkpoint: PathBuf,
    },
    /// A stop request cut iteration `iteration` short: nothing of it was
    /// written; the newest checkpoint is iteration `kept` (0: none).
    Interrupted {
        /// The iteration cut short.
        iteration: u32,
        /// The newest checkpoint's iteration (0: none).
        kept: u32,
    },
    /// A round of the learned evaluation's self-training ended (its files
    /// written; `self_train.minutes_in_run`).
    SelfTrainRound {
        /// Its row of the folder's `self-train.csv`.
        row: Box<super::self_train::RoundRow>,
    },
    /// A part of the config that does not apply to this game is skipped
    /// (said once, when the run starts): one line for the user.
    Notice(String),
    /// The run stopped (limit reached or stop requested).
    Finished {
        /// The iterations the run has played in all.
        iterations: u32,
    },
}

/// Why a run could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The config is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A checkpoint could not be read or written.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A CSV log could not be read or written.
    #[error(transparent)]
    Log(#[from] LogError),
    /// A new run's folder already has checkpoints.
    #[error("run folder {0} already has checkpoints: resume it, overwrite it, or choose another run name")]
    Exists(PathBuf),
    /// `--resume` found no checkpoint.
    #[error("--resume: no checkpoint in {0} (start without --resume)")]
    NothingToResume(PathBuf),
    /// The newest checkpoint is damaged; the message says what to do.
    #[error("{0}; {1}")]
    Damaged(CheckpointError, String),
    /// The run folder could not be used.
    #[error("cannot use run folder {0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// A file of the run could not be written.
    #[error("cannot write {0}: {1} (is the disk full, or the folder read-only?); the checkpoints are intact: fix that, then --resume")]
    Write(PathBuf, std::io::Error),
    /// A checkpoint's replay window does not read.
    #[error("checkpoint {0}: replay.bin: {1}")]
    Replay(PathBuf, ReplayError),
    /// A checkpoint's games in flight do not read.
    #[error("checkpoint {0}: selfplay.bin: {1}")]
    InFlight(PathBuf, BinError),
    /// A checkpoint does not match its config.
    #[error("checkpoint {0} is corrupt or does not match its config: {1}")]
    Restore(PathBuf, String),
    /// The network could not be serialised.
    #[error("cannot serialise the network: {0}")]
    Weights(String),
    /// The self-training after the run's last iteration failed.
    #[error("self-training: {0}")]
    SelfTrain(String),
    /// The device could not be opened.
    #[error("device: {0}")]
    Device(#[from] DeviceError),
    /// A stop request cut the iteration short; nothing of it was written.
    #[error("iteration {0} was cut short by a stop request and not written; open the run again with --resume to go on")]
    Interrupted(u32),
    /// Another process (or another open run in this one) holds the folder.
    #[error("run folder {0} is in use by another process ({1}): wait for it to finish, or stop it first")]
    InUse(PathBuf, String),
    /// The run folder holds a run of another game.
    #[error("{dir} is a run of {found}, not of {expected}")]
    WrongGame {
        /// The run folder.
        dir: PathBuf,
        /// The game of its run.
        found: GameId,
        /// The game asked for.
        expected: GameId,
    },
}
