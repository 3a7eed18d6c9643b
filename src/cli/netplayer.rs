//! Network players: loading a checkpoint folder, and the `net:PATH,...`
//! player spec (MCTS guided by the network).

use super::config::RunConfig;
use anyhow::{Context, Result};
use burn::tensor::Device;
use damone::arena::{Player, PlayerFactory, PlayerSpec};
use damone::game::{Game, Move};
use damone::mcts::{search, SearchParams, Tree};
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
pub struct NetPlayer {
    name: String,
    eval: NetEvaluator,
    params: SearchParams,
    tree: Option<Tree>,
    seed: u64,
}

impl NetPlayer {
    pub fn new(name: String, net: &Net, params: SearchParams, seed: u64) -> Self {
        NetPlayer {
            name,
            eval: NetEvaluator::new(net, Device::flex()),
            params,
            tree: None,
            seed,
        }
    }
}

impl Player for NetPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &Game) -> Move {
        if self
            .tree
            .as_ref()
            .is_none_or(|t| t.game().position() != game.position())
        {
            self.tree = Some(Tree::new(
                game,
                self.params.clone(),
                rng_stream(self.seed, "net-player", game.ply() as u64),
            ));
        }
        let tree = self.tree.as_mut().expect("tree");
        search(tree, &mut self.eval, self.params.simulations)
            .map(|r| r.best)
            .unwrap_or_else(|| game.position().legal_moves()[0])
    }
    fn observe(&mut self, mv: &Move) {
        if let Some(t) = self.tree.as_mut() {
            t.advance(mv);
        }
    }
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
        Box::new(NetPlayer::new(name.clone(), &net, params.clone(), seed))
    }))
}
