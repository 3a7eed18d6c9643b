//! What every game's move notation shares (the error of a refused move,
//! the splitting of a move's text into its squares) and PDN export of
//! whole games.

use super::interface::GamePosition;
use super::record::{Game, Outcome};
use super::types::Color;

/// Why a move string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    /// The text is not a move in the game's notation; the message says why.
    #[error("cannot read move '{0}': {1}")]
    Syntax(String, String),
    /// No legal move has this text; the legal moves are listed.
    #[error("illegal move '{0}'; legal moves: {legal}", legal = .1.join(" "))]
    Illegal(String, Vec<String>),
    /// More than one legal move has this text; the candidates are listed.
    #[error("ambiguous move '{0}'; write the full path, one of: {opts}", opts = .1.join(" "))]
    Ambiguous(String, Vec<String>),
}

/// A move text's squares, as written, and whether it is a capture: squares
/// joined by `-` (a step, two squares) or by `x` or `:` (a capture), in
/// either game's notation.
pub fn move_tokens(t: &str) -> Result<(bool, Vec<&str>), ParseMoveError> {
    let syntax = |why: &str| ParseMoveError::Syntax(t.to_string(), why.to_string());
    let is_capture = t.contains('x') || t.contains(':');
    if is_capture && t.contains('-') {
        return Err(syntax("mixes '-' and 'x'"));
    }
    let parts: Vec<&str> = t.split(['-', 'x', ':']).collect();
    if parts.len() < 2 {
        return Err(syntax("expected squares joined by '-' or 'x'"));
    }
    if !is_capture && parts.len() != 2 {
        return Err(syntax("a step has exactly two squares"));
    }
    Ok((is_capture, parts))
}

/// Headers for a PDN game record.
#[derive(Clone, Debug, Default)]
pub struct PdnHeaders {
    /// The `Event` tag.
    pub event: String,
    /// The `Site` tag.
    pub site: String,
    /// The `Date` tag (`YYYY.MM.DD`).
    pub date: String,
    /// The `Round` tag.
    pub round: String,
    /// The `White` tag: White's player.
    pub white: String,
    /// The `Black` tag: Black's player.
    pub black: String,
    /// Extra `[Key "Value"]` pairs written after the standard seven.
    pub extra: Vec<(String, String)>,
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// PDN text of a game: the seven standard tag pairs, `GameType`, the start
/// FEN when it is not the variant's standard start, the numbered moves wrapped
/// at 80 columns and the result (`*` if unfinished).
pub fn to_pdn<P: GamePosition>(game: &Game<P>, outcome: Option<&Outcome>, h: &PdnHeaders) -> String {
    let result = outcome.map_or("*", |o| o.pdn_result());
    let or = |s: &str, d: &str| {
        if s.is_empty() {
            d.to_string()
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    for (k, v) in [
        ("Event", or(&h.event, "?")),
        ("Site", or(&h.site, "?")),
        ("Date", or(&h.date, "????.??.??")),
        ("Round", or(&h.round, "-")),
        ("White", or(&h.white, "?")),
        ("Black", or(&h.black, "?")),
        ("Result", result.to_string()),
    ] {
        out.push_str(&format!("[{k} \"{}\"]\n", quote(&v)));
    }
    let start = game.start();
    let variant = start.variant();
    out.push_str(&format!("[Variant \"{}\"]\n", P::pdn_variant(variant)));
    if *start != P::start(variant) {
        out.push_str("[SetUp \"1\"]\n");
        out.push_str(&format!("[FEN \"{}\"]\n", start.to_setup()));
    }
    if let Some(o) = outcome {
        out.push_str(&format!("[Termination \"{}\"]\n", o.reason.name()));
        out.push_str(&format!(
            "[DrawRules \"no_progress={} max_plies={}\"]\n",
            game.rules().no_progress_plies,
            game.rules().max_plies
        ));
    }
    for (k, v) in &h.extra {
        out.push_str(&format!("[{k} \"{}\"]\n", quote(v)));
    }
    out.push('\n');
    let mut tokens = Vec::new();
    let mut side = start.side_to_move();
    let mut num = 1;
    let mut pos = *start;
    for (i, m) in game.moves().iter().enumerate() {
        if side == Color::White {
            tokens.push(format!("{num}."));
        } else if i == 0 {
            tokens.push(format!("{num}..."));
        }
        tokens.push(pos.move_text(m));
        pos.play_unchecked(m);
        if side == Color::Black {
            num += 1;
        }
        side = side.opposite();
    }
    tokens.push(result.to_string());
    let mut line = String::new();
    for tok in tokens {
        if !line.is_empty() && line.len() + 1 + tok.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&tok);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}
