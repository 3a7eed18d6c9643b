//! `damone play`: a terminal game against an exported player or any arena
//! player spec, with a Unicode board, move listing, undo, and the game saved
//! as PDN at the end.

use super::{clip, next_line};
use anyhow::{Context, Result};
use clap::Args;
use damone::arena::{parse_color, Player, PlayerFactory, VersusGame};
use damone::game::board_text::board_text;
use damone::game::interface::setup_or_start;
use damone::game::{GameKind, GamePosition};
use damone::player::{game_of_players, open};
use damone::run::RunGame;
use damone::util::{atomic_write, derive_seed};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The opponent: a player file, a checkpoint folder, or a spec
    /// (shipped, the game's shipped player; net:PATH,sims=N,
    /// alphabeta:depth=N, mcts:sims=N, random).
    #[arg(long, visible_alias = "player", default_value = "shipped")]
    pub opponent: String,
    /// Your colour: white or black.
    #[arg(long, default_value = "white")]
    pub color: String,
    /// The game; default: the opponent network's game, else the first game.
    #[arg(long, value_parser = super::game_arg())]
    pub game: Option<GameKind>,
    #[arg(long, default_value = "standard", help = damone::game::registry::variant_help())]
    pub variant: String,
    /// Start position (FEN).
    #[arg(long)]
    pub fen: Option<String>,
    /// Where to save the game.
    #[arg(long, visible_alias = "out", default_value = "damone-game.pdn")]
    pub pdn: PathBuf,
    /// Seed for the opponent's random streams.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Plain ASCII board instead of Unicode.
    #[arg(long)]
    pub ascii: bool,
    #[command(flatten)]
    pub device: super::DeviceOpt,
}

/// The commands, with the game's move notation as the example.
fn help<P: GamePosition>() -> String {
    let example = P::MOVE_EXAMPLES;
    format!(
        "commands: a move ({example}), moves (list legal moves), undo (take back your last move), \
board, resign, help, quit"
    )
}

pub fn run_play(a: PlayArgs) -> Result<()> {
    let device = a.device.for_players([a.opponent.as_str()])?;
    let game = game_of_players([a.opponent.as_str()], a.game.map(GameKind::id))?.kind()?;
    damone::with_game!(game, P => play::<P>(a, &device))
}

/// The game at the terminal in the game `P`, saved at the end.
fn play<P: RunGame>(a: PlayArgs, device: &damone::net::ComputeDevice) -> Result<()> {
    let start: P = setup_or_start(a.fen.as_deref(), &a.variant).map_err(anyhow::Error::msg)?;
    let human = parse_color(&a.color).map_err(|e| anyhow::anyhow!("--color: {e}"))?;
    let (make, header) =
        open(&a.opponent, device).with_context(|| format!("cannot load opponent '{}'", a.opponent))?;
    let mut bot = make(a.seed);
    // A network opponent plays under its own draw rules.
    let rules = header.map(|h| h.rules).unwrap_or_default();
    let mut versus = VersusGame::new(start, rules, human, bot.name());
    let mut out = std::io::stdout().lock();
    // The game is saved however the loop ends (end of input, quit, an
    // output error).
    let played = play_loop(&a, &mut versus, &mut bot, &make, &mut out);
    atomic_write(&a.pdn, versus.pdn(&format!("{} play", P::ID), "human").as_bytes())
        .with_context(|| format!("cannot write {}", a.pdn.display()))?;
    let _ = writeln!(out, "game saved to {}", a.pdn.display());
    played
}

/// What the terminal does after a person's line.
enum Next {
    Prompt,
    Board,
    Quit,
}

/// Carry out one line the person typed: a command or a move.
fn command<P: RunGame>(
    a: &PlayArgs,
    versus: &mut VersusGame<P>,
    bot: &mut Box<dyn Player<P>>,
    make: &PlayerFactory<P>,
    line: &str,
    out: &mut impl Write,
) -> Result<Next> {
    // The position the person's move is played in (its text is read there).
    let before = *versus.game().position();
    match line {
        "" => {}
        "help" | "?" => writeln!(out, "{}", help::<P>())?,
        "quit" | "exit" => return Ok(Next::Quit),
        "board" => return Ok(Next::Board),
        "moves" => {
            let list: Vec<String> = before.legal_moves().iter().map(|m| before.move_text(m)).collect();
            writeln!(out, "legal moves: {}", list.join(" "))?;
        }
        "resign" => versus.resign(),
        "undo" => match versus.undo() {
            Err(e) => writeln!(out, "{e}")?,
            Ok(_) => {
                // The engine replays from the new position.
                *bot = make(derive_seed(a.seed, "play-undo", versus.game().ply() as u64));
                return Ok(Next::Board);
            }
        },
        text => match versus.play_human(text) {
            Ok(m) => {
                bot.observe(&m);
                writeln!(out, "you play {}", before.move_text(&m))?;
            }
            Err(e) => writeln!(out, "{}", clip(&e, 200))?,
        },
    }
    Ok(Next::Prompt)
}

/// The game at the terminal until it ends, the person quits or the input ends.
fn play_loop<P: RunGame>(
    a: &PlayArgs,
    versus: &mut VersusGame<P>,
    bot: &mut Box<dyn Player<P>>,
    make: &PlayerFactory<P>,
    out: &mut impl Write,
) -> Result<()> {
    let human = versus.human();
    writeln!(
        out,
        "{}: you play {} against {}. {}",
        P::ID,
        human.name(),
        bot.name(),
        help::<P>()
    )?;
    let mut input = std::io::stdin().lock();
    let mut show = true;
    while versus.outcome().is_none() {
        if versus.engines_turn() {
            let m = bot.choose(versus.game());
            writeln!(
                out,
                "{} plays {}",
                bot.name(),
                versus.game().position().move_text(&m)
            )?;
            versus.play_engine(&m);
            bot.observe(&m);
            show = true;
            continue;
        }
        if std::mem::take(&mut show) {
            write!(out, "\n{}", board_text(versus.game().position(), human, a.ascii))?;
        }
        write!(out, "{} to move> ", human.name())?;
        out.flush()?;
        let line = match next_line(&mut input) {
            None => {
                writeln!(out)?;
                break;
            }
            Some(Err(e)) => {
                writeln!(out, "error: {e}")?;
                continue;
            }
            Some(Ok(line)) => line,
        };
        match command(a, versus, bot, make, line.trim(), out)? {
            Next::Prompt => {}
            Next::Board => show = true,
            Next::Quit => break,
        }
    }
    write!(out, "\n{}", board_text(versus.game().position(), human, a.ascii))?;
    match versus.outcome() {
        Some(o) => writeln!(out, "result: {o}")?,
        None => writeln!(out, "game stopped")?,
    }
    Ok(())
}
