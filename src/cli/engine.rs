//! `damone engine`: the library's engine protocol
//! ([`damone::engine_protocol`]) on stdin/stdout.

use anyhow::{Context, Result};
use clap::Args;
use damone::engine_protocol::EngineSession;
use damone::game::GameKind;
use damone::player::{game_of_players, open};
use damone::run::RunGame;

#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The engine's player: a player file, a checkpoint or run folder, or a
    /// spec (shipped, the game's shipped player; net:PATH, mcts:sims=N,
    /// alphabeta:depth=N, random).
    #[arg(long, default_value = "shipped")]
    pub player: String,
    /// The game; default: the player network's game, else the first game.
    #[arg(long, value_parser = super::game_arg())]
    pub game: Option<GameKind>,
    #[arg(long, default_value = "standard",
          help = format!("{} (for `position startpos` and FENs)", damone::game::registry::variant_help()))]
    pub variant: String,
    #[command(flatten)]
    pub device: super::DeviceOpt,
}

pub fn run_engine(a: EngineArgs) -> Result<()> {
    let device = a.device.for_players([a.player.as_str()])?;
    let game = game_of_players([a.player.as_str()], a.game.map(GameKind::id))?.kind()?;
    damone::with_game!(game, P => engine::<P>(&a, &device))
}

/// The protocol over stdin/stdout in the game `P`.
fn engine<P: RunGame>(a: &EngineArgs, device: &damone::net::ComputeDevice) -> Result<()> {
    let variant = P::variant_named(&a.variant).map_err(anyhow::Error::msg)?;
    let (make, header) =
        open::<P>(&a.player, device).with_context(|| format!("cannot open player '{}'", a.player))?;
    // A network player's own draw rules.
    let rules = header.map(|h| h.rules).unwrap_or_default();
    let mut session = EngineSession::new(make(1), variant, rules);
    session.serve(&mut std::io::stdin().lock(), &mut std::io::stdout().lock())?;
    Ok(())
}
