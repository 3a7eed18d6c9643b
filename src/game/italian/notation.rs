//! The federation's notation: squares numbered 1 to 32, setup strings in
//! the PDN style (`W:W21-32:B1-12`, kings prefixed `K`), moves `22-18` and
//! captures `21x14x7` (or `21x7` when that is unambiguous), read and
//! written by the draughts kit over these square numbers.
//!
//! Square 1 is a8, the top-left dark square seen from White's side; the
//! numbers run left to right along each row and down the board, so White's
//! back row is 29 (b1) to 32 (h1). The board stands with a light square
//! in each player's left-hand corner, as the federation sets it.

use super::position::{Italian, Move, Position};
use crate::game::draughts::{parse_jump_move, short_jumps, SetupNotation};
use crate::game::interface::GamePosition;
use crate::game::types::Square;
use crate::game::ParseMoveError;

/// Why a setup string was refused: the draughts kit's error.
pub use crate::game::draughts::SetupError;

/// The federation's number (1..=32) of a square.
pub fn square_number(s: Square) -> u8 {
    let i = s.index() as u8;
    (7 - i / 4) * 4 + i % 4 + 1
}

/// The square with a federation number, if it is 1..=32.
pub fn square_of_number(n: u32) -> Option<Square> {
    if !(1..=32).contains(&n) {
        return None;
    }
    let k = (n - 1) as u8;
    Some(Square::new((7 - k / 4) * 4 + k % 4))
}

/// Setup strings list the squares by number, ranges of numbers as `21-32`.
impl SetupNotation for Italian {
    const MAX_PIECES: u32 = 12;
    const CELL_WORD: &'static str = "square";
    const TOKEN_HINT: &'static str = "a square number 1 to 32, K before a king, or a range like 21-32";
    fn cell_name(s: Square) -> String {
        square_number(s).to_string()
    }
    fn cell_named(name: &str) -> Option<Square> {
        name.parse::<u32>().ok().and_then(square_of_number)
    }
    fn range(a: Square, b: Square) -> Option<Vec<Square>> {
        let (a, b) = (square_number(a) as u32, square_number(b) as u32);
        (a <= b).then(|| (a..=b).filter_map(square_of_number).collect())
    }
    fn order(s: Square) -> u32 {
        square_number(s) as u32
    }
}

/// A move's full text: `22-18`, or a capture's every landing square
/// (`21x14x7`).
pub(super) fn move_text(m: &Move) -> String {
    m.text(Italian::cell_name)
}

/// Read a move: `22-18`, a capture's full path `21x14x7`, or its start
/// and end `21x7` when only one legal capture joins them.
pub(super) fn parse_move(pos: &Position, text: &str) -> Result<Move, ParseMoveError> {
    let cell = |p: &str| {
        Italian::cell_named(p.trim()).ok_or_else(|| format!("'{p}' is not a square number 1 to 32"))
    };
    parse_jump_move(text, &pos.legal_moves(), cell, short_jumps, move_text)
}
