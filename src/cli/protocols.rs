//! `damone hub` (the Hub protocol on stdin/stdout) and `damone dxp` (DXP
//! over TCP): [`damone::protocols`].

use anyhow::{bail, Context, Result};
use clap::Args;
use damone::game::{italian, GameKind};
use damone::player::{game_of_players, open};
use damone::protocols::dxp::DxpEngine;
use damone::protocols::{HubNotation, HubSession};
use damone::run::RunGame;
use std::net::TcpListener;

#[derive(Args, Debug)]
pub struct HubArgs {
    /// The engine's player: shipped (the game's shipped player), a player
    /// file, a checkpoint or run folder, or a spec (alphabeta:depth=N, ...).
    #[arg(long, default_value = "shipped")]
    pub player: String,
    /// The game; default: the player's game, else Italian draughts.
    #[arg(long, value_parser = super::game_arg())]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub device: super::DeviceOpt,
}

#[derive(Args, Debug)]
pub struct DxpArgs {
    /// The engine's player: shipped (Italian draughts' shipped player), a
    /// player file, a checkpoint or run folder, or a spec.
    #[arg(long, default_value = "shipped")]
    pub player: String,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The TCP port to listen on (27531 is DXP's usual one).
    #[arg(long, default_value_t = 27531)]
    pub port: u16,
    /// Stop after this many connections (default: serve until stopped).
    #[arg(long)]
    pub connections: Option<usize>,
    /// The game: DXP speaks numbered boards of men and kings, so Italian
    /// draughts only.
    #[arg(long, value_parser = super::game_arg())]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub device: super::DeviceOpt,
}

pub fn run_hub(a: HubArgs) -> Result<()> {
    let device = a.device.for_players([a.player.as_str()])?;
    // A player of no game in particular plays Italian draughts, the game
    // the Hub's interfaces know.
    let unbound = damone::player::game_of_spec(&a.player)?.is_none();
    let explicit = match a.game {
        None if unbound => Some(GameKind::Italian.id()),
        g => g.map(GameKind::id),
    };
    let game = game_of_players([a.player.as_str()], explicit)?.kind()?;
    damone::with_game!(game, P => hub::<P>(&a, &device))
}

/// The Hub protocol over stdin/stdout in the game `P`.
fn hub<P: RunGame + HubNotation>(a: &HubArgs, device: &damone::net::ComputeDevice) -> Result<()> {
    let (make, header) =
        open::<P>(&a.player, device).with_context(|| format!("cannot open player '{}'", a.player))?;
    let rules = header.map(|h| h.rules).unwrap_or_default();
    let name = format!("damone {}", P::ID.title());
    let mut session = HubSession::new(make(1), name, Default::default(), rules);
    session.serve(&mut std::io::stdin().lock(), &mut std::io::stdout())?;
    Ok(())
}

pub fn run_dxp(a: DxpArgs) -> Result<()> {
    if let Some(g) = a.game.filter(|g| *g != GameKind::Italian) {
        bail!(
            "DXP speaks numbered boards of men and kings: Italian draughts only ({} has no DXP notation; use damone hub or damone engine)",
            g.title()
        );
    }
    let device = a.device.for_players([a.player.as_str()])?;
    let found = game_of_players([a.player.as_str()], Some(GameKind::Italian.id()))?;
    let (make, header) = open::<italian::Position>(&a.player, &device)
        .with_context(|| format!("cannot open player '{}' for {}", a.player, found.title()))?;
    let rules = header.map(|h| h.rules).unwrap_or_default();
    let listener = TcpListener::bind((a.host.as_str(), a.port))
        .with_context(|| format!("cannot listen on {}:{}", a.host, a.port))?;
    eprintln!(
        "dxp: damone plays Italian draughts with {} on {}",
        a.player,
        listener.local_addr()?
    );
    let mut engine = DxpEngine::new(make(1), format!("damone {}", env!("CARGO_PKG_VERSION")), rules);
    engine.listen(&listener, a.connections)?;
    Ok(())
}
