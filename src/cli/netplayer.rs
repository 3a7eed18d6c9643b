//! Network players: loading a checkpoint folder, and the `net:PATH,...`
//! player spec (MCTS guided by the network).

use super::config::RunConfig;
use anyhow::{Context, Result};
use burn::tensor::Device;
use damone::arena::{MctsPlayer, PlayerFactory, PlayerSpec};
use damone::mcts::SearchParams;
use damone::net::{load_net, Net, NetEvaluator};
use damone::util::rng_stream;
use std::path::Path;
use std::sync::Arc;

/// A network with the settings it was trained with.
#[derive(Clone)]
pub struct LoadedNet {
    pub net: Net,
    pub config: RunConfig,
}

/// Search settings for playing (not training): no noise, best move.
pub fn play_params(base: &SearchParams, sims: u32) -> SearchParams {
    base.for_play(sims)
}

/// Load `DIR/config.toml` and `DIR/model.bpk` from a checkpoint folder.
pub fn load_checkpoint_net(dir: &Path, device: &Device) -> Result<LoadedNet> {
    let cfg_path = dir.join("config.toml");
    if !cfg_path.exists() {
        anyhow::bail!("{} is not a checkpoint folder (no config.toml)", dir.display());
    }
    let config = RunConfig::load(Some(&cfg_path), &[])?;
    let net = load_net(&config.model, &dir.join("model.bpk"), device)?;
    Ok(LoadedNet { net, config })
}

/// MCTS guided by a network.
pub type NetPlayer = MctsPlayer<NetEvaluator>;

/// A network player seeded for one game.
pub fn net_player(name: String, net: &Net, params: SearchParams, seed: u64) -> NetPlayer {
    let eval = NetEvaluator::new(net);
    MctsPlayer::with_evaluator(name, params, eval, rng_stream(seed, "net-player", 0))
}

/// A network and its play settings from a checkpoint folder or an
/// exported player file.
pub fn load_any(path: &Path) -> Result<(Net, SearchParams)> {
    if path.is_dir() {
        let loaded = load_checkpoint_net(path, &Device::flex())?;
        Ok((
            loaded.net,
            play_params(&loaded.config.search, loaded.config.eval.sims),
        ))
    } else {
        let p = damone::player::Player::load(path)?;
        let sims = p.header().search.simulations;
        Ok((p.net().clone(), p.play_params(sims)))
    }
}

/// A factory for a `net:PATH[,sims=N][,algo=puct|gumbel][,cpuct=C]` spec;
/// PATH is a checkpoint folder or an exported player file.
pub fn net_factory(spec: &PlayerSpec) -> Result<PlayerFactory> {
    spec.check_options(&["sims", "algo", "cpuct"])?;
    let path = spec.path.as_deref().context("net spec without a path")?;
    let (net, base) = load_any(Path::new(path)).with_context(|| format!("player '{}'", spec.text))?;
    let params = spec.search_params(base)?;
    let net = Arc::new(net);
    let name = spec.text.clone();
    Ok(Arc::new(move |seed| {
        Box::new(net_player(name.clone(), &net, params.clone(), seed))
    }))
}
