//! `damone export`: a checkpoint folder -> one self-contained player file
//! (plus the weights as safetensors for inspection in Python); the work is
//! the library's [`damone::player::export`].

use anyhow::Result;
use clap::Args;
use damone::player::export::{export_player, ExportOptions};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Checkpoint folder (checkpoints/<run>/iter_NNNN), or a run folder
    /// (checkpoints/<run>: its best checkpoint by evaluation, or with
    /// --latest its newest).
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// With a run folder: export its newest checkpoint instead of its best.
    #[arg(long)]
    pub latest: bool,
    /// Output player file (conventionally .dmp); weights also go to the same
    /// path with extension .safetensors.
    #[arg(long)]
    pub out: PathBuf,
    /// Default simulations per move stored in the file (default: the run's eval.sims).
    #[arg(long)]
    pub sims: Option<u32>,
    /// A measured Elo rating to record in the provenance.
    #[arg(long)]
    pub rating: Option<f64>,
    /// The anchor of that rating (e.g. random).
    #[arg(long, requires = "rating")]
    pub rating_anchor: Option<String>,
}

pub fn run_export(a: ExportArgs) -> Result<()> {
    let opts = ExportOptions {
        latest: a.latest,
        sims: a.sims,
        rating: a.rating,
        rating_anchor: a.rating_anchor,
        safetensors: true,
        game: None,
    };
    let done = export_player(&a.checkpoint, &a.out, &opts)?;
    eprintln!("exported {}", done.checkpoint.display());
    if done.learned_eval {
        eprintln!("with its learned evaluation for alpha-beta (alphabeta:eval=FILE)");
    }
    eprintln!(
        "wrote {} ({} bytes: run {}, iteration {}, {} sims)",
        a.out.display(),
        done.bytes,
        done.run,
        done.iteration,
        done.sims
    );
    if let Some(st) = &done.safetensors {
        eprintln!("and {}", st.display());
    }
    Ok(())
}
