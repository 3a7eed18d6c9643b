//! `damone play`: a terminal game against an exported player or any arena
//! player spec, with a Unicode board, move listing, undo, and the game saved
//! as PDN at the end.

use super::{clip, next_line};
use anyhow::{Context, Result};
use clap::Args;
use damone::arena::{parse_color, Player, PlayerFactory, VersusGame};
use damone::game::interface::setup_or_start;
use damone::game::{Color, GameKind, GamePosition};
use damone::player::{game_of_players, open_on};
use damone::run::RunGame;
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
    /// The game: damone, italian or dameo; default: the opponent network's game,
    /// else damone.
    #[arg(long, value_name = "damone|italian|dameo")]
    pub game: Option<GameKind>,
    /// Rules variant: standard, or for Damone damone-hunt or three-damas.
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

/// The glyph of a piece of kind `kind` (0 lowest) and colour. Unicode:
/// a plain disc for the lowest kind, a crowned one for the next, a king
/// for Damone's Damone. ASCII: the game's letters, upper case for White.
fn glyph<P: GamePosition>(piece: Option<(Color, usize)>, ascii: bool) -> String {
    const WHITE: [&str; 3] = ["⛀", "⛁", "♔"];
    const BLACK: [&str; 3] = ["⛂", "⛃", "♚"];
    match (piece, ascii) {
        (None, true) => ".".into(),
        (None, false) => "·".into(),
        (Some((Color::White, k)), true) => P::PIECE_LETTERS[k].to_string(),
        (Some((Color::Black, k)), true) => P::PIECE_LETTERS[k].to_ascii_lowercase().to_string(),
        (Some((Color::White, k)), false) => WHITE[k.min(2)].into(),
        (Some((Color::Black, k)), false) => BLACK[k.min(2)].into(),
    }
}

/// The board as text, from `view`'s side.
pub fn board_text<P: GamePosition>(pos: &P, view: Color, ascii: bool) -> String {
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
            let cell = if P::playable(f, r) {
                glyph::<P>(pos.piece_on(f, r), ascii)
            } else {
                " ".into()
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
    s.push_str(&legend::<P>(ascii));
    s
}

/// What each glyph stands for.
fn legend<P: GamePosition>(ascii: bool) -> String {
    let parts: Vec<String> = [Color::White, Color::Black]
        .iter()
        .map(|&color| {
            let names: Vec<String> = P::PIECE_KINDS
                .iter()
                .enumerate()
                .map(|(k, name)| format!("{} {name}", glyph::<P>(Some((color, k)), ascii)))
                .collect();
            format!("{}: {}", color.name(), names.join(", "))
        })
        .collect();
    format!("    {}\n", parts.join("; "))
}

/// The commands, with the game's move notation as the example.
fn help<P: GamePosition>() -> String {
    let example = match P::KIND {
        GameKind::Damone => "f3-e4, e4xg6xe8",
        GameKind::Italian => "22-18, 21x14x7",
        GameKind::Dameo => "c3-c4, c1-c4, d4xd6xf6",
    };
    format!(
        "commands: a move ({example}), moves (list legal moves), undo (take back your last move), \
board, resign, help, quit"
    )
}

pub fn run_play(a: PlayArgs) -> Result<()> {
    let device = a.device.for_players([a.opponent.as_str()])?;
    let game = game_of_players([a.opponent.as_str()], a.game)?;
    damone::with_game!(game, P => play::<P>(a, &device))
}

/// The game at the terminal in the game `P`, saved at the end.
fn play<P: RunGame>(a: PlayArgs, device: &damone::net::ComputeDevice) -> Result<()> {
    let start: P = setup_or_start(a.fen.as_deref(), &a.variant).map_err(anyhow::Error::msg)?;
    let human = parse_color(&a.color).map_err(|e| anyhow::anyhow!("--color: {e}"))?;
    let (make, header) =
        open_on(&a.opponent, device).with_context(|| format!("cannot load opponent '{}'", a.opponent))?;
    let mut bot = make(a.seed);
    // A network opponent plays under its own draw rules.
    let rules = header.map(|h| h.rules).unwrap_or_default();
    let mut versus = VersusGame::new(start, rules, human, bot.name());
    let mut out = std::io::stdout().lock();
    // The game is saved however the loop ends (end of input, quit, an
    // output error).
    let played = play_loop(&a, &mut versus, &mut bot, &make, &mut out);
    atomic_write(
        &a.pdn,
        versus.pdn(&format!("{} play", P::KIND), "human").as_bytes(),
    )
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
        P::KIND,
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
