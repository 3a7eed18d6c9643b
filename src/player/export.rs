//! A checkpoint exported as one self-contained player file: the network,
//! its play settings and provenance, and the run's learned evaluation for
//! alpha-beta where it has one. `damone export` and a downstream game's
//! `export` command ([`crate::app`]) both call [`export_player`].
//!
//! ```no_run
//! use damone::player::export::{export_player, ExportOptions};
//! use std::path::Path;
//!
//! let done = export_player(Path::new("checkpoints/default"), Path::new("me.dmp"), &ExportOptions::default())?;
//! println!("{} bytes from iteration {}", done.bytes, done.iteration);
//! # Ok::<(), damone::player::export::ExportError>(())
//! ```

use super::LoadedNet;
use crate::game::GameId;
use crate::run::{Checkpoint, CheckpointError};
use crate::util::atomic_write;
use crate::util::range::{check, Bounds};
use std::path::{Path, PathBuf};

/// What to export, and what the file records.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// With a run folder: its newest checkpoint instead of its best.
    pub latest: bool,
    /// The simulations a move stored in the file (None: the run's `eval.sims`).
    pub sims: Option<u32>,
    /// A measured rating recorded in the provenance.
    pub rating: Option<f64>,
    /// The anchor of that rating (for example `random`).
    pub rating_anchor: Option<String>,
    /// Also write the weights as safetensors (the same path, extension
    /// `.safetensors`), for inspection in Python.
    pub safetensors: bool,
    /// The game the checkpoint must be of (None: any).
    pub game: Option<GameId>,
}

/// What an export read and wrote.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The checkpoint folder exported.
    pub checkpoint: PathBuf,
    /// The player file's size in bytes.
    pub bytes: usize,
    /// The run's name.
    pub run: String,
    /// The checkpoint's iteration.
    pub iteration: u32,
    /// The simulations a move stored.
    pub sims: u32,
    /// Whether the file holds the run's learned evaluation.
    pub learned_eval: bool,
    /// The safetensors file written, where one was asked for.
    pub safetensors: Option<PathBuf>,
}

/// Why an export failed (each file is written whole or not at all).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A setting out of its range (one line naming it).
    #[error("{0}")]
    Setting(String),
    /// The checkpoint does not read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The checkpoint is of another game than the one asked for.
    #[error("{path} holds a {found} run, not {expected}")]
    WrongGame {
        /// The checkpoint or run folder given.
        path: String,
        /// The game of its run.
        found: GameId,
        /// The game asked for.
        expected: GameId,
    },
    /// The learned evaluation, the player file or the safetensors do not encode.
    #[error("{0}")]
    Encode(String),
    /// A file cannot be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Export the checkpoint (or run folder) `path` as the player file `out`,
/// each file written whole or not at all.
pub fn export_player(path: &Path, out: &Path, opts: &ExportOptions) -> Result<Exported, ExportError> {
    if let Some(sims) = opts.sims {
        check("sims", sims, Bounds::AtLeast(1)).map_err(ExportError::Setting)?;
    }
    let ck = Checkpoint::for_player(path, opts.latest)?;
    if let Some(expected) = opts.game.filter(|g| *g != ck.config.game) {
        return Err(ExportError::WrongGame {
            path: path.display().to_string(),
            found: ck.config.game,
            expected,
        });
    }
    let sims = opts.sims.unwrap_or(ck.config.eval.sims);
    let mut loaded = LoadedNet::from_checkpoint(&ck, sims)?;
    let learned_eval = loaded.attach_learned_eval(&ck).map_err(ExportError::Encode)?;
    loaded.header.provenance.rating = opts.rating;
    loaded.header.provenance.rating_anchor = opts.rating_anchor.clone();
    let bytes = loaded.to_bytes().map_err(ExportError::Encode)?;
    write(out, &bytes)?;
    let safetensors = if opts.safetensors {
        let st_path = out.with_extension("safetensors");
        let st = loaded.safetensors_bytes().map_err(ExportError::Encode)?;
        write(&st_path, &st)?;
        Some(st_path)
    } else {
        None
    };
    Ok(Exported {
        checkpoint: ck.dir.clone(),
        bytes: bytes.len(),
        run: loaded.header.provenance.run.clone(),
        iteration: loaded.header.provenance.iteration,
        sims,
        learned_eval,
        safetensors,
    })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    atomic_write(path, bytes).map_err(|source| ExportError::Write {
        path: path.display().to_string(),
        source,
    })
}
