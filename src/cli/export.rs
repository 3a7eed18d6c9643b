//! `damone export`: a checkpoint folder -> one self-contained player file
//! (plus the weights as safetensors for inspection in Python).

use super::config::RunConfig;
use super::netplayer::{load_checkpoint_net, play_params};
use anyhow::{bail, Context, Result};
use burn::store::{ModuleSnapshot, SafetensorsStore};
use burn::tensor::Device;
use clap::Args;
use damone::player::{encode_player, PlayerHeader, Provenance, PLAYER_FORMAT_VERSION};
use damone::util::{atomic_write, fnv1a};

use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Checkpoint folder (checkpoints/<run>/iter_NNNN).
    #[arg(long)]
    pub checkpoint: PathBuf,
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

/// The player-file header of a run's config with `sims` default simulations.
fn header_for(cfg: &RunConfig, sims: u32, provenance: Provenance) -> PlayerHeader {
    PlayerHeader {
        format_version: PLAYER_FORMAT_VERSION,
        variant: cfg.variant.clone(),
        rules: cfg.rules,
        model: cfg.model.clone(),
        search: play_params(&cfg.search, sims),
        provenance,
    }
}

fn state_value(dir: &Path, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(dir.join("state.toml")).ok()?;
    let t: toml::Table = toml::from_str(&text).ok()?;
    t.get(key)?.as_integer().map(|v| v as u64)
}

pub fn run_export(a: ExportArgs) -> Result<()> {
    if !a.checkpoint.is_dir() {
        bail!(
            "--checkpoint {} is not a folder (expected checkpoints/<run>/iter_NNNN)",
            a.checkpoint.display()
        );
    }
    let loaded = load_checkpoint_net(&a.checkpoint, &Device::flex())?;
    let cfg: &RunConfig = &loaded.config;
    let config_text = std::fs::read(a.checkpoint.join("config.toml")).context("cannot read config.toml")?;
    let sims = a.sims.unwrap_or(cfg.eval.sims);
    if sims == 0 {
        bail!("--sims must be at least 1");
    }
    let header = header_for(
        cfg,
        sims,
        Provenance {
            run: cfg.run.clone(),
            iteration: state_value(&a.checkpoint, "iteration").unwrap_or(0) as u32,
            games: state_value(&a.checkpoint, "games").unwrap_or(0),
            rating: a.rating,
            rating_anchor: a.rating_anchor.clone(),
            config_hash: format!("{:016x}", fnv1a(&config_text)),
        },
    );
    let bytes = encode_player(&header, &loaded.net).map_err(anyhow::Error::msg)?;
    atomic_write(&a.out, &bytes).with_context(|| format!("cannot write {}", a.out.display()))?;
    let st_path = a.out.with_extension("safetensors");
    let mut store = SafetensorsStore::from_bytes(None)
        .metadata("damone_run", cfg.run.clone())
        .metadata("damone_iteration", header.provenance.iteration.to_string())
        .metadata(
            "damone_model",
            format!(
                "blocks={} channels={} value_hidden={}",
                cfg.model.blocks, cfg.model.channels, cfg.model.value_hidden
            ),
        );
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
        cfg.run,
        header.provenance.iteration,
        sims,
        st_path.display()
    );
    Ok(())
}

/// A library [`damone::player::Player`] from a checkpoint folder or a player file.
pub fn load_player(path: &Path) -> Result<damone::player::Player> {
    if !path.is_dir() {
        return Ok(damone::player::Player::load(path)?);
    }
    let loaded = load_checkpoint_net(path, &Device::flex())?;
    let cfg = &loaded.config;
    let header = header_for(
        cfg,
        cfg.eval.sims,
        Provenance {
            run: cfg.run.clone(),
            ..Default::default()
        },
    );
    Ok(damone::player::Player::from_parts(header, loaded.net))
}
