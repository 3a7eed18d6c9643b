//! `damone play`: a terminal game against an exported player or any arena
//! player spec, with a Unicode board, move listing, undo, and the game saved
//! as PDN at the end.

use super::{clip, next_line, parse_position, parse_variant};
use anyhow::{Context, Result};
use clap::Args;
use damone::arena::{parse_color, Player, PlayerFactory, VersusGame};
use damone::game::{Color, Piece, Position, Rank, Square};
use damone::player::open_on;
use damone::util::{atomic_write, derive_seed};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The opponent: a player file, a checkpoint folder, or a spec
    /// (net:PATH,sims=N, alphabeta:depth=N, mcts:sims=N, random).
    #[arg(long, visible_alias = "player", default_value = "alphabeta:depth=4")]
    pub opponent: String,
    /// Your colour: white or black.
    #[arg(long, default_value = "white")]
    pub color: String,
    /// Rules variant.
    #[arg(long, default_value = "standard")]
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

/// The glyph of a square's content. ASCII uses FEN's rank letters
/// (none for Pedina written P, D for Dama, I for Damone), upper case for
/// White and lower case for Black.
fn glyph(p: Option<Piece>, ascii: bool) -> &'static str {
    let Some(p) = p else {
        return if ascii { "." } else { "·" };
    };
    match (p.color, p.rank, ascii) {
        (Color::White, Rank::Pedina, false) => "⛀",
        (Color::White, Rank::Dama, false) => "⛁",
        (Color::White, Rank::Damone, false) => "♔",
        (Color::Black, Rank::Pedina, false) => "⛂",
        (Color::Black, Rank::Dama, false) => "⛃",
        (Color::Black, Rank::Damone, false) => "♚",
        (Color::White, Rank::Pedina, true) => "P",
        (Color::White, Rank::Dama, true) => "D",
        (Color::White, Rank::Damone, true) => "I",
        (Color::Black, Rank::Pedina, true) => "p",
        (Color::Black, Rank::Dama, true) => "d",
        (Color::Black, Rank::Damone, true) => "i",
    }
}

/// The board as text, from `view`'s side.
pub fn board_text(pos: &Position, view: Color, ascii: bool) -> String {
    let ranks: Vec<i32> = if view == Color::White {
        (0..8).rev().collect()
    } else {
        (0..8).collect()
    };
    let files: Vec<i32> = if view == Color::White {
        (0..8).collect()
    } else {
        (0..8).rev().collect()
    };
    let mut s = String::new();
    for &r in &ranks {
        s.push_str(&format!(" {} ", r + 1));
        for &f in &files {
            let cell = match Square::from_coords(f, r) {
                None => " ",
                Some(sq) => glyph(pos.piece_at(sq), ascii),
            };
            s.push_str(&format!(" {cell}"));
        }
        s.push('\n');
    }
    s.push_str("   ");
    for &f in &files {
        s.push_str(&format!(" {}", (b'a' + f as u8) as char));
    }
    s.push('\n');
    s.push_str(&legend(ascii));
    s
}

/// What each glyph stands for.
fn legend(ascii: bool) -> String {
    let mut parts = Vec::new();
    for color in [Color::White, Color::Black] {
        let names: Vec<String> = [Rank::Pedina, Rank::Dama, Rank::Damone]
            .iter()
            .map(|&rank| {
                let name = match rank {
                    Rank::Pedina => "pedina",
                    Rank::Dama => "dama",
                    Rank::Damone => "damone",
                };
                format!("{} {name}", glyph(Some(Piece { color, rank }), ascii))
            })
            .collect();
        parts.push(format!("{}: {}", color.name(), names.join(", ")));
    }
    format!("    {}\n", parts.join("; "))
}

const HELP: &str =
    "commands: a move (f3-e4, e4xg6xe8), moves (list legal moves), undo (take back your last move), \
board, resign, help, quit";

pub fn run_play(a: PlayArgs) -> Result<()> {
    let variant = parse_variant(&a.variant)?;
    let start = parse_position(a.fen.as_deref(), variant)?;
    let human = parse_color(&a.color).map_err(|e| anyhow::anyhow!("--color: {e}"))?;
    let device = a.device.for_players([a.opponent.as_str()])?;
    let (make, header) =
        open_on(&a.opponent, &device).with_context(|| format!("cannot load opponent '{}'", a.opponent))?;
    let mut bot = make(a.seed);
    // A network opponent plays under its own draw rules.
    let rules = header.map(|h| h.rules).unwrap_or_default();
    let mut versus = VersusGame::new(start, rules, human, bot.name());
    let mut out = std::io::stdout().lock();
    // The game is saved however the loop ends (end of input, quit, an
    // output error).
    let played = play_loop(&a, &mut versus, &mut bot, &make, &mut out);
    atomic_write(&a.pdn, versus.pdn("damone play", "human").as_bytes())
        .with_context(|| format!("cannot write {}", a.pdn.display()))?;
    let _ = writeln!(out, "game saved to {}", a.pdn.display());
    played
}

/// The game at the terminal until it ends, the person quits or the input ends.
fn play_loop(
    a: &PlayArgs,
    versus: &mut VersusGame,
    bot: &mut Box<dyn Player>,
    make: &PlayerFactory,
    out: &mut impl Write,
) -> Result<()> {
    let human = versus.human();
    writeln!(
        out,
        "damone: you play {} against {}. {HELP}",
        human.name(),
        bot.name()
    )?;
    let mut input = std::io::stdin().lock();
    let mut show = true;
    while versus.outcome().is_none() {
        if versus.engines_turn() {
            let m = bot.choose(versus.game());
            writeln!(out, "{} plays {m}", bot.name())?;
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
        match line.trim() {
            "" => {}
            "help" | "?" => writeln!(out, "{HELP}")?,
            "quit" | "exit" => break,
            "board" => show = true,
            "moves" => {
                let list: Vec<String> = versus
                    .game()
                    .position()
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_string())
                    .collect();
                writeln!(out, "legal moves: {}", list.join(" "))?;
            }
            "resign" => versus.resign(),
            "undo" => match versus.undo() {
                Err(e) => writeln!(out, "{e}")?,
                Ok(_) => {
                    // The engine replays from the new position.
                    *bot = make(derive_seed(a.seed, "play-undo", versus.game().ply() as u64));
                    show = true;
                }
            },
            text => match versus.play_human(text) {
                Ok(m) => {
                    bot.observe(&m);
                    writeln!(out, "you play {m}")?;
                }
                Err(e) => writeln!(out, "{}", clip(&e, 200))?,
            },
        }
    }
    write!(out, "\n{}", board_text(versus.game().position(), human, a.ascii))?;
    match versus.outcome() {
        Some(o) => writeln!(out, "result: {o}")?,
        None => writeln!(out, "game stopped")?,
    }
    Ok(())
}
