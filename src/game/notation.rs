//! Move notation (`f3-e4`, `e4xg6xe8`) and PDN export of whole games.

use super::interface::{GameKind, GamePosition};
use super::position::{Move, Position};
use super::record::{Game, Outcome};
use super::types::*;

/// Why a move string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    #[error("cannot read move '{0}': {1}")]
    Syntax(String, String),
    #[error("illegal move '{0}'; legal moves: {legal}", legal = .1.join(" "))]
    Illegal(String, Vec<String>),
    #[error("ambiguous move '{0}'; write the full path, one of: {opts}", opts = .1.join(" "))]
    Ambiguous(String, Vec<String>),
}

/// A move text's squares, as written, and whether it is a capture: squares
/// joined by `-` (a step, two squares) or by `x` or `:` (a capture), in
/// either game's notation.
pub(crate) fn move_tokens(t: &str) -> Result<(bool, Vec<&str>), ParseMoveError> {
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

/// Parse a move written as `f3-e4`, `e4xg6xe8` or `e4xe8` (start and end of
/// a capture, when that is unambiguous) and match it against the legal moves.
/// A capture path given in full may be any path with the same captured set.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, ParseMoveError> {
    let t = text.trim();
    let syntax = |why: &str| ParseMoveError::Syntax(t.to_string(), why.to_string());
    let (is_capture, parts) = move_tokens(t)?;
    let mut sqs = Vec::with_capacity(parts.len());
    for p in &parts {
        let (f, r) = parse_coords(p).ok_or_else(|| syntax(&format!("'{p}' is not a square")))?;
        sqs.push(Square::from_coords(f, r).ok_or_else(|| syntax(&format!("'{p}' is a light square")))?);
    }
    let legal = pos.legal_moves();
    let names = || legal.iter().map(|m| m.to_string()).collect::<Vec<_>>();
    let from = sqs[0];
    let to = *sqs.last().unwrap();
    let mut captured_from_path = None;
    if is_capture && sqs.len() > 2 {
        let mut cap = 0;
        for w in sqs.windows(2) {
            let (df, dr) = (w[1].file() - w[0].file(), w[1].rank() - w[0].rank());
            if df.abs() != 2 || dr.abs() != 2 {
                return Err(ParseMoveError::Illegal(t.to_string(), names()));
            }
            let mid = Square::from_coords(w[0].file() + df / 2, w[0].rank() + dr / 2)
                .ok_or_else(|| ParseMoveError::Illegal(t.to_string(), names()))?;
            cap |= mid.bb();
        }
        captured_from_path = Some(cap);
    }
    let cands: Vec<&Move> = legal
        .iter()
        .filter(|m| m.from() == from && m.to() == to && m.is_capture() == is_capture)
        .filter(|m| captured_from_path.is_none_or(|c| m.captured() == c))
        .collect();
    match cands.len() {
        0 => Err(ParseMoveError::Illegal(t.to_string(), names())),
        1 => Ok(*cands[0]),
        _ => Err(ParseMoveError::Ambiguous(
            t.to_string(),
            cands.iter().map(|m| m.to_string()).collect(),
        )),
    }
}

/// Headers for a PDN game record.
#[derive(Clone, Debug, Default)]
pub struct PdnHeaders {
    pub event: String,
    pub site: String,
    pub date: String,
    pub round: String,
    pub white: String,
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
    let name = match P::KIND {
        GameKind::Damone => format!("damone-{}", P::variant_name(variant)),
        kind => kind.name().to_string(),
    };
    out.push_str(&format!("[Variant \"{name}\"]\n"));
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
