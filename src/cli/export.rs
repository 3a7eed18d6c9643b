//! `damone export`: a checkpoint folder -> one self-contained player file
//! (plus the weights as safetensors for inspection in Python).

use anyhow::{bail, Context, Result};
use burn::store::{ModuleSnapshot, SafetensorsStore};
use clap::Args;
use damone::player::LoadedNet;
use damone::run::{Checkpoint, RunDir};
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
    let ck = if a.checkpoint.is_dir()
        && !a.checkpoint.join("state.toml").exists()
        && !RunDir::new(&a.checkpoint).checkpoints().is_empty()
    {
        let run = RunDir::new(&a.checkpoint);
        let latest = run.latest()?;
        let best = latest.state.best_iteration;
        if a.latest || best == 0 || !run.iter_dir(best).is_dir() {
            latest
        } else {
            Checkpoint::open(&run.iter_dir(best))?
        }
    } else {
        Checkpoint::open(&a.checkpoint)?
    };
    eprintln!("exporting {}", ck.dir.display());
    let sims = a.sims.unwrap_or(ck.config.eval.sims);
    let mut loaded = LoadedNet::from_checkpoint(&ck, sims)?;
    loaded.header.provenance.rating = a.rating;
    loaded.header.provenance.rating_anchor = a.rating_anchor.clone();
    let bytes = loaded.to_bytes().map_err(anyhow::Error::msg)?;
    atomic_write(&a.out, &bytes).with_context(|| format!("cannot write {}", a.out.display()))?;
    let st_path = a.out.with_extension("safetensors");
    let h = &loaded.header;
    let mut store = SafetensorsStore::from_bytes(None)
        .metadata("damone_run", h.provenance.run.clone())
        .metadata("damone_iteration", h.provenance.iteration.to_string())
        .metadata("damone_encoding_version", h.encoding_version.to_string())
        .metadata("damone_model", h.model.describe());
    loaded
        .net
        .save_into(&mut store)
        .map_err(|e| anyhow::anyhow!("safetensors export failed: {e}"))?;
    let st = store
        .get_bytes()
        .map_err(|e| anyhow::anyhow!("safetensors export failed: {e}"))?;
    atomic_write(&st_path, &st).with_context(|| format!("cannot write {}", st_path.display()))?;
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
