//! Damone's move notation: `f3-e4`, `e4xg6xe8` (or `e4xe8` where that
//! names one capture), read against the legal moves.

use super::position::{Move, Position};
use crate::game::interface::GamePosition;
use crate::game::notation::{move_tokens, ParseMoveError};
use crate::game::types::{parse_coords, Square};

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
