//! `damone engine`: the library's engine protocol
//! ([`damone::engine_protocol`]) on stdin/stdout.

use anyhow::{Context, Result};
use clap::Args;
use damone::engine_protocol::EngineSession;
use damone::game::Variant;
use damone::player::open_on;

#[derive(Args, Debug)]
pub struct EngineArgs {
    /// The engine's player: a player file, a checkpoint or run folder, or a
    /// spec (net:PATH, mcts:sims=N, alphabeta:depth=N, random).
    #[arg(long, default_value = "alphabeta:depth=6")]
    pub player: String,
    /// Rules variant for `position startpos` and FENs.
    #[arg(long, default_value = "standard")]
    pub variant: String,
    #[command(flatten)]
    pub device: super::DeviceOpt,
}

pub fn run_engine(a: EngineArgs) -> Result<()> {
    let variant: Variant = a.variant.parse()?;
    let device = a.device.for_players([a.player.as_str()])?;
    let (make, header) =
        open_on(&a.player, &device).with_context(|| format!("cannot open player '{}'", a.player))?;
    // A network player's own draw rules.
    let rules = header.map(|h| h.rules).unwrap_or_default();
    let mut session = EngineSession::new(make(1), variant, rules);
    session.serve(&mut std::io::stdin().lock(), &mut std::io::stdout().lock())?;
    Ok(())
}
