//! `damone play`: a terminal game against an exported player or any arena
//! player spec, with a Unicode board, move listing, undo, and the game saved
//! as PDN at the end.

use super::{parse_position, parse_variant};
use anyhow::{bail, Context, Result};
use clap::Args;
use damone::game::{
    parse_move, to_pdn, Color, DrawRules, Game, Outcome, PdnHeaders, Piece, Position, Rank, Square,
};
use damone::player::factory;
use damone::util::atomic_write;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The opponent: a player file, a checkpoint folder, or a spec
    /// (net:PATH,sims=N, alphabeta:depth=N, mcts:sims=N, random).
    #[arg(long, default_value = "alphabeta:depth=4")]
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
    #[arg(long, default_value = "damone-game.pdn")]
    pub pdn: PathBuf,
    /// Seed for the opponent's random streams.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Plain ASCII board instead of Unicode.
    #[arg(long)]
    pub ascii: bool,
}

fn glyph(p: Option<Piece>, ascii: bool) -> &'static str {
    match (p, ascii) {
        (None, false) => "·",
        (None, true) => ".",
        (
            Some(Piece {
                color: Color::White,
                rank: Rank::Pedina,
            }),
            false,
        ) => "⛀",
        (
            Some(Piece {
                color: Color::White,
                rank: Rank::Dama,
            }),
            false,
        ) => "⛁",
        (
            Some(Piece {
                color: Color::White,
                rank: Rank::Damone,
            }),
            false,
        ) => "♔",
        (
            Some(Piece {
                color: Color::Black,
                rank: Rank::Pedina,
            }),
            false,
        ) => "⛂",
        (
            Some(Piece {
                color: Color::Black,
                rank: Rank::Dama,
            }),
            false,
        ) => "⛃",
        (
            Some(Piece {
                color: Color::Black,
                rank: Rank::Damone,
            }),
            false,
        ) => "♚",
        (
            Some(Piece {
                color: Color::White,
                rank: Rank::Pedina,
            }),
            true,
        ) => "w",
        (
            Some(Piece {
                color: Color::White,
                rank: Rank::Dama,
            }),
            true,
        ) => "W",
        (
            Some(Piece {
                color: Color::White,
                rank: Rank::Damone,
            }),
            true,
        ) => "I",
        (
            Some(Piece {
                color: Color::Black,
                rank: Rank::Pedina,
            }),
            true,
        ) => "b",
        (
            Some(Piece {
                color: Color::Black,
                rank: Rank::Dama,
            }),
            true,
        ) => "B",
        (
            Some(Piece {
                color: Color::Black,
                rank: Rank::Damone,
            }),
            true,
        ) => "J",
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
    s
}

const HELP: &str =
    "commands: a move (f3-e4, e4xg6xe8), moves (list legal moves), undo (take back your last move), \
board, resign, help, quit";

pub fn run_play(a: PlayArgs) -> Result<()> {
    let variant = parse_variant(&a.variant)?;
    let start = parse_position(a.fen.as_deref(), variant)?;
    let human = match a.color.as_str() {
        "white" | "w" => Color::White,
        "black" | "b" => Color::Black,
        other => bail!("--color must be white or black, got '{other}'"),
    };
    let spec = if Path::new(&a.opponent).exists() {
        format!("net:{}", a.opponent)
    } else {
        a.opponent.clone()
    };
    let mut bot = factory(&spec).with_context(|| format!("cannot load opponent '{}'", a.opponent))?(a.seed);
    let mut game = Game::new(start, DrawRules::default());
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "damone: you play {} against {}. {HELP}",
        human.name(),
        bot.name()
    )?;
    let mut outcome: Option<Outcome> = None;
    let mut show = true;
    loop {
        let moves = game.position().legal_moves();
        if let Some(o) = game.outcome_with(&moves) {
            outcome = Some(o);
            break;
        }
        if game.position().side_to_move() != human {
            let m = bot.choose(&game);
            writeln!(out, "{} plays {m}", bot.name())?;
            game.play_unchecked(&m);
            bot.observe(&m);
            show = true;
            continue;
        }
        if show {
            write!(out, "\n{}", board_text(game.position(), human, a.ascii))?;
            show = false;
        }
        write!(out, "{} to move> ", human.name())?;
        out.flush()?;
        let Some(line) = lines.next() else {
            writeln!(out)?;
            break;
        };
        let line = line.context("cannot read input")?;
        match line.trim() {
            "" => {}
            "help" | "?" => writeln!(out, "{HELP}")?,
            "quit" | "exit" => break,
            "board" => show = true,
            "moves" => {
                let list: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
                writeln!(out, "legal moves: {}", list.join(" "))?;
            }
            "resign" => {
                game.resign(human);
                outcome = game.outcome();
                break;
            }
            "undo" => {
                // Take back the bot's reply and your move.
                let mut n = 0;
                while game.undo() {
                    n += 1;
                    if game.position().side_to_move() == human {
                        break;
                    }
                }
                if n == 0 {
                    writeln!(out, "nothing to undo")?;
                } else {
                    // The bot replays from the new position.
                    bot = factory(&spec)?(a.seed ^ game.ply() as u64);
                    show = true;
                }
            }
            text => match parse_move(game.position(), text) {
                Ok(m) => {
                    game.play_unchecked(&m);
                    bot.observe(&m);
                }
                Err(e) => writeln!(out, "{e}")?,
            },
        }
    }
    write!(out, "\n{}", board_text(game.position(), human, a.ascii))?;
    match &outcome {
        Some(o) => writeln!(out, "result: {o}")?,
        None => writeln!(out, "game stopped")?,
    }
    let (white, black) = if human == Color::White {
        ("human".to_string(), bot.name())
    } else {
        (bot.name(), "human".to_string())
    };
    let headers = PdnHeaders {
        event: "damone play".into(),
        white,
        black,
        ..Default::default()
    };
    atomic_write(&a.pdn, to_pdn(&game, outcome.as_ref(), &headers).as_bytes())
        .with_context(|| format!("cannot write {}", a.pdn.display()))?;
    writeln!(out, "game saved to {}", a.pdn.display())?;
    Ok(())
}
