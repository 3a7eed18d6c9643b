//! Dameo's notation: cells `a1`..`h8` (a1 at White's left, White's men on
//! ranks 1-3), setup strings in the style of the other games
//! (`W:Wa1-h1,b2-g2,c3-f3,Kd4:Ba8-h8,b7-g7,c6-f6:H3`, kings prefixed `K`,
//! a run of cells along one rank as `a1-h1`), moves `c3-c4`, line moves
//! from the rear man (`c1-c4`: the men on c2 and c3 stay, the line has
//! advanced one cell) and captures by every landing cell (`d4xd6xf6`, or
//! `d4xf6` when that is unambiguous).

use super::position::{Cells, Dameo, Move, Position};
use crate::game::draughts::{parse_jump_move, MenKings, SetupNotation};
use crate::game::interface::GamePosition;
use crate::game::types::{parse_coords, Color};
use crate::game::ParseMoveError;

/// Why a setup string was refused: the draughts kit's error.
pub use crate::game::draughts::SetupError;

/// A cell's name, `a1`..`h8`.
pub fn cell_name(cell: usize) -> String {
    format!("{}{}", (b'a' + (cell % 8) as u8) as char, cell / 8 + 1)
}

/// The cell a name gives, if it is `a1`..`h8`.
pub fn cell_of_name(name: &str) -> Option<usize> {
    parse_coords(name.trim()).map(|(f, r)| (r * 8 + f) as usize)
}

/// Setup strings list each side's men, then its kings, in cell order,
/// three or more cells in a row along a rank as a run `a1-h1`.
impl SetupNotation for Dameo {
    const MAX_PIECES: u32 = 18;
    const CELL_WORD: &'static str = "cell";
    const TOKEN_HINT: &'static str = "a cell a1..h8, K before a king, or a run along one rank like a1-h1";
    fn cell_name(cell: usize) -> String {
        cell_name(cell)
    }
    fn cell_named(name: &str) -> Option<usize> {
        cell_of_name(name)
    }
    fn range(a: usize, b: usize) -> Option<Vec<usize>> {
        (a / 8 == b / 8 && a <= b).then(|| (a..=b).collect())
    }
    fn piece_tokens(board: &MenKings<Dameo>, c: Color) -> Vec<String> {
        let mut toks = tokens(board.men(c), "");
        toks.extend(tokens(board.kings(c), "K"));
        toks
    }
}

/// The tokens of one side's pieces of one kind: runs of three or more
/// cells along a rank as `a1-h1`, others one by one.
fn tokens(set: Cells, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = set;
    while rest != 0 {
        let first = rest.trailing_zeros() as usize;
        let mut last = first;
        while last % 8 < 7 && rest & (1 << (last + 1)) != 0 {
            last += 1;
        }
        if last - first >= 2 {
            out.push(format!("{prefix}{}-{}", cell_name(first), cell_name(last)));
            rest &= !((2u64 << last) - (1u64 << first));
        } else {
            out.push(format!("{prefix}{}", cell_name(first)));
            rest &= rest - 1;
        }
    }
    out
}

impl Position {
    /// The opponent's pieces a capture path passes over: each leg must run
    /// along a rank or a file; None otherwise.
    fn captured_along(&self, path: &[usize]) -> Option<Cells> {
        let enemy = self.color_bb(self.side_to_move().opposite());
        path.windows(2).try_fold(0, |acc, w| {
            let (a, b) = (w[0] as i32, w[1] as i32);
            let step = match (a / 8 == b / 8, a % 8 == b % 8) {
                (true, false) => (b - a).signum(),
                (false, true) => 8 * (b - a).signum(),
                _ => return None,
            };
            let between = (1..(b - a) / step).fold(0u64, |s, k| s | 1 << (a + k * step));
            Some(acc | (between & enemy))
        })
    }
}

/// A move's full text: `c3-c4`, a line move `c1-c4`, or a capture's
/// every landing cell (`d4xd6xf6`).
pub(super) fn move_text(m: &Move) -> String {
    m.text(cell_name)
}

/// Read a move: `c3-c4`, a line move `c1-c4`, a capture's full path
/// `d4xd6xf6`, or its start and end `d4xf6` when only one legal capture
/// joins them.
pub(super) fn parse_move(pos: &Position, text: &str) -> Result<Move, ParseMoveError> {
    let cell = |p: &str| cell_of_name(p).ok_or_else(|| format!("'{p}' is not a cell a1..h8"));
    parse_jump_move(
        text,
        &pos.legal_moves(),
        cell,
        |path| pos.captured_along(path),
        move_text,
    )
}
