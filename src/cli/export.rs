//! `damone export`: a checkpoint folder -> one self-contained player file
//! (plus the weights as safetensors for inspection in Python).

use anyhow::{bail, Context, Result};
use clap::Args;
use damone::player::LoadedNet;
use damone::run::Checkpoint;
use damone::util::atomic_write;
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
    if a.sims == Some(0) {
        bail!("--sims must be at least 1");
    }
    let ck = Checkpoint::for_player(&a.checkpoint, a.latest)?;
    eprintln!("exporting {}", ck.dir.display());
    let sims = a.sims.unwrap_or(ck.config.eval.sims);
    let mut loaded = LoadedNet::from_checkpoint(&ck, sims)?;
    if loaded.attach_learned_eval(&ck).map_err(anyhow::Error::msg)? {
        eprintln!("with its learned evaluation for alpha-beta (alphabeta:eval=FILE)");
    }
    loaded.header.provenance.rating = a.rating;
    loaded.header.provenance.rating_anchor = a.rating_anchor.clone();
    let bytes = loaded.to_bytes().map_err(anyhow::Error::msg)?;
    atomic_write(&a.out, &bytes).with_context(|| format!("cannot write {}", a.out.display()))?;
    let st_path = a.out.with_extension("safetensors");
    let st = loaded.safetensors_bytes().map_err(anyhow::Error::msg)?;
    atomic_write(&st_path, &st).with_context(|| format!("cannot write {}", st_path.display()))?;
    let h = &loaded.header;
    eprintln!(
        "wrote {} ({} bytes: run {}, iteration {}, {} sims) and {}",
        a.out.display(),
        bytes.len(),
        h.provenance.run,
        h.provenance.iteration,
        sims,
        st_path.display()
    );
    Ok(())
}
