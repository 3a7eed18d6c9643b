//! `damone analyse`: one search of a position by any player that searches,
//! printing a tree search's candidate moves (visits, prior, Q) and its
//! WDL, or alpha-beta's depth, score and principal variation.

use anyhow::{bail, Context, Result};
use clap::Args;
use damone::game::interface::setup_or_start;
use damone::game::{DrawRules, Game, GameKind};
use damone::mcts::Budget;
use damone::net::ComputeDevice;
use damone::player::{game_of_players, open};
use damone::run::RunGame;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// The player: a player file, a checkpoint folder, or a spec that
    /// searches (shipped, the game's shipped player; net:PATH,...,
    /// mcts:..., alphabeta:...).
    #[arg(long, default_value = "shipped")]
    pub player: String,
    /// Position in FEN (default: the variant's start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// The game; default: the player network's game, else the first game.
    #[arg(long, value_parser = super::game_arg())]
    pub game: Option<GameKind>,
    #[arg(long, default_value = "standard", help = damone::game::registry::variant_help())]
    pub variant: String,
    /// Simulations (default: the player's own budget; not for alpha-beta).
    #[arg(long, conflicts_with = "movetime")]
    pub sims: Option<u32>,
    /// Milliseconds of search instead of simulations.
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Candidate moves to print.
    #[arg(long, default_value_t = 8)]
    pub lines: usize,
    #[command(flatten)]
    pub device: super::DeviceOpt,
}

pub fn run_analyse(a: AnalyseArgs) -> Result<()> {
    let device = a.device.for_players([a.player.as_str()])?;
    let kind = game_of_players([a.player.as_str()], a.game.map(GameKind::id))?.kind()?;
    damone::with_game!(kind, P => analyse::<P>(&a, &device))
}

/// The search of the position in the game `P`, printed.
fn analyse<P: RunGame>(a: &AnalyseArgs, device: &ComputeDevice) -> Result<()> {
    let start: P = setup_or_start(a.fen.as_deref(), &a.variant).map_err(anyhow::Error::msg)?;
    let game = Game::new(start, DrawRules::default());
    if let Some(o) = game.outcome() {
        println!("{}", o.over_message());
        return Ok(());
    }
    let (make, _) =
        open::<P>(&a.player, device).with_context(|| format!("cannot open player '{}'", a.player))?;
    let mut p = make(1);
    let budget = match (a.sims, a.movetime) {
        (Some(0), _) | (_, Some(0)) => bail!("--sims and --movetime must be at least 1"),
        (Some(n), _) => Some(Budget::Simulations(n)),
        (_, Some(ms)) => Some(Budget::Time(Duration::from_millis(ms))),
        _ => None,
    };
    if budget.is_some() && !p.set_budget(budget) {
        bail!("player '{}' does not take that budget", a.player);
    }
    let Some(r) = p.analyse(&game) else {
        bail!(
            "player '{}' does not search (use a network, a player file, mcts:... or alphabeta:...)",
            a.player
        );
    };
    let side = game.position().side_to_move().name();
    if let Some(pr) = &r.principal {
        println!(
            "depth {} nodes {} score {} (for {side} to move)",
            pr.depth, pr.nodes, pr.score
        );
        println!("pv {}", pr.pv_text(&start).join(" "));
        println!("best {}", start.move_text(&r.best));
        return Ok(());
    }
    println!(
        "{:>3}  {:<14} {:>7} {:>7} {:>7}",
        "#", "move", "visits", "prior", "q"
    );
    for (i, l) in r.lines.iter().take(a.lines).enumerate() {
        let q = l.q.map_or("-".to_string(), |q| format!("{q:+.3}"));
        println!(
            "{:>3}  {:<14} {:>7} {:>7.3} {:>7}",
            i + 1,
            start.move_text(&l.mv),
            l.visits,
            l.prior,
            q
        );
    }
    let wdl = r.wdl.context("the search gave no value")?;
    println!(
        "value for {side} to move: win {:.3} draw {:.3} loss {:.3} ({} simulations); best {}",
        wdl.win,
        wdl.draw,
        wdl.loss,
        r.simulations,
        start.move_text(&r.best)
    );
    Ok(())
}
