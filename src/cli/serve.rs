//! `damone serve`: the web page (play, analyse, watch a run).

use anyhow::{bail, Context, Result};
use clap::Args;
use damone::serve::{serve, Access, ServeConfig};
use damone::util::stop::{stop_on_signals, Stop};
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// A run folder (checkpoints/<run>) to watch and to take opponents from.
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// The game; default: the run's game, else the first game.
    #[arg(long, value_parser = super::game_arg())]
    pub game: Option<damone::game::GameKind>,
    /// A folder of exported player files (*.dmp) of the game to offer as
    /// opponents.
    #[arg(long)]
    pub players: Option<PathBuf>,
    /// Address to listen on (loopback by default: only this machine).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// The most simulations one analysis may run.
    #[arg(long, default_value_t = 4000)]
    pub max_sims: u32,
    /// Threads of each network or alpha-beta search (the network's leaves
    /// batched over them, alpha-beta by Lazy SMP); searches of several
    /// games run side by side besides.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub search_threads: u32,
    /// Require this token (16 or more letters and digits) on every request;
    /// beyond loopback a random one is made when neither this nor
    /// --watch-only is given. The URL printed at start carries it.
    #[arg(long)]
    pub token: Option<String>,
    /// Only watching a run: nothing can start a game or a search (no token
    /// needed).
    #[arg(long)]
    pub watch_only: bool,
    #[command(flatten)]
    pub device: super::DeviceOpt,
}

pub fn run_serve(a: ServeArgs) -> Result<()> {
    let mut game = a.game.unwrap_or_default();
    if let Some(r) = &a.run {
        if !r.is_dir() {
            bail!(
                "--run {} is not a folder (expected checkpoints/<run>)",
                r.display()
            );
        }
        game = damone::player::game_of_run(r, a.game.map(damone::game::GameKind::id))?.kind()?;
    }
    if let Some(p) = &a.players {
        if !p.is_dir() {
            bail!("--players {} is not a folder", p.display());
        }
    }
    if a.max_sims == 0 {
        bail!("--max-sims must be at least 1");
    }
    let access = Access::for_bind(a.bind, a.token.clone(), a.watch_only).map_err(anyhow::Error::msg)?;
    let query = access.query();
    let watch_only = access == Access::WatchOnly;
    let cfg = ServeConfig {
        access,
        game,
        run: a.run,
        players_dir: a.players,
        max_sims: a.max_sims,
        search_threads: a.search_threads as usize,
        device: a.device.open()?,
        ..Default::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let stop = Stop::new();
    stop_on_signals(&stop).context("cannot handle stop signals")?;
    rt.block_on(serve(
        cfg,
        a.bind,
        |addr| {
            let scope = if addr.ip().is_loopback() {
                "loopback only: this machine; --bind 0.0.0.0:8080 to share it"
            } else if watch_only {
                "reachable from other machines, watch-only"
            } else {
                "reachable from other machines that have the token"
            };
            eprintln!("damone serve: open http://{addr}/{query} ({scope}); Ctrl-C stops it");
        },
        stop,
    ))
    .with_context(|| format!("cannot serve on {}", a.bind))?;
    eprintln!("damone serve stopped on request");
    Ok(())
}
