//! Damone's move notation: `f3-e4`, `e4xg6xe8` (or `e4xe8` where that
//! names one capture), read against the legal moves.

use super::position::{Move, Position};
use crate::game::draughts::{parse_jump_move, short_jumps};
use crate::game::interface::GamePosition;
use crate::game::notation::ParseMoveError;
use crate::game::types::{parse_coords, Square};

/// Parse a move written as `f3-e4`, `e4xg6xe8` or `e4xe8` (start and end of
/// a capture, when that is unambiguous) and match it against the legal moves.
/// A capture path given in full may be any path with the same captured set.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, ParseMoveError> {
    let cell = |p: &str| {
        let (f, r) = parse_coords(p).ok_or_else(|| format!("'{p}' is not a square"))?;
        Square::from_coords(f, r).ok_or_else(|| format!("'{p}' is a light square"))
    };
    parse_jump_move(text, &pos.legal_moves(), cell, short_jumps, |m| m.to_string())
}
