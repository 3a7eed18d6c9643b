//! The learned evaluation's inputs: what the board says, nothing more.
//!
//! A position is its pieces by colour and kind as cells of the 8x8 grid
//! ([`Board::kind_cells`]), seen from each side: a feature is (the piece is
//! the viewer's or the opponent's, its kind, its cell), the cells turned by
//! 180 degrees for Black so that both sides see their own pieces start at
//! the bottom. The side to move picks which view comes first in the
//! evaluation. Counters (no-progress plies, repetitions) are not inputs: the
//! search scores draws by them itself.
//!
//! Every game with a [`Board`] has these inputs: 2 x 3 kinds x 64 cells =
//! [`FEATURES`] (cells a game does not use, and kinds it does not have,
//! are never active).

use crate::game::Board;
use crate::game::Color;

/// Kinds of piece a game may have ([`Board::kind_cells`]).
pub const KINDS: usize = 3;
/// Cells of the 8x8 grid.
pub const CELLS: usize = 64;
/// Input features of one view: (own or opponent's) x kind x cell.
pub const FEATURES: usize = 2 * KINDS * CELLS;

/// Both sides' pieces by kind as cells: `[colour index][kind]`.
pub type Planes = [[u64; KINDS]; 2];

/// The pieces of a position, by colour and kind, on a game of an 8x8
/// board (the only boards these inputs read: [`reads`]).
#[inline]
pub fn planes<P: Board>(pos: &P) -> Planes {
    debug_assert!(reads::<P>(), "the learned evaluation reads 8x8 boards");
    [Color::White, Color::Black].map(|c| pos.kind_cells(c).map(|b| b as u64))
}

/// True when the learned evaluation reads `P`'s board: an 8x8 one, seen
/// turned for Black ([`Board::TURN_FOR_BLACK`]).
pub fn reads<P: Board>() -> bool {
    P::CELLS.is_8x8() && P::TURN_FOR_BLACK
}

/// [`reads`] as the one-line error of a command that needs it.
pub fn check_board<P: Board>() -> Result<(), String> {
    if reads::<P>() {
        return Ok(());
    }
    let view = if P::TURN_FOR_BLACK {
        ""
    } else {
        ", seen as it stands by both sides"
    };
    Err(format!(
        "the learned evaluation reads 8x8 boards turned for Black; {} is played on {}x{}{view}",
        P::ID,
        P::CELLS.rows(),
        P::CELLS.cols()
    ))
}

/// The feature of a piece of colour `piece`, kind `kind` on `cell`, seen
/// by `view`.
#[inline]
pub fn feature(view: Color, piece: Color, kind: usize, cell: usize) -> usize {
    let theirs = (piece != view) as usize;
    let cell = match view {
        Color::White => cell,
        Color::Black => 63 - cell,
    };
    (theirs * KINDS + kind) * CELLS + cell
}

/// Call `f` with every active feature of `view`.
#[inline]
pub fn for_each_active(planes: &Planes, view: Color, mut f: impl FnMut(usize)) {
    for piece in [Color::White, Color::Black] {
        for (kind, &cells) in planes[piece.index()].iter().enumerate() {
            let mut b = cells;
            while b != 0 {
                f(feature(view, piece, kind, b.trailing_zeros() as usize));
                b &= b - 1;
            }
        }
    }
}

/// The active features of `view`, appended to `out`.
pub fn active(planes: &Planes, view: Color, out: &mut Vec<u16>) {
    for_each_active(planes, view, |i| out.push(i as u16));
}

/// Call `f(piece, kind, cell, added)` for every piece that differs between
/// `old` and `new`: `added` true for a piece `new` has and `old` lacks.
#[inline]
pub fn for_each_change(old: &Planes, new: &Planes, mut f: impl FnMut(Color, usize, usize, bool)) {
    for piece in [Color::White, Color::Black] {
        for kind in 0..KINDS {
            let (o, n) = (old[piece.index()][kind], new[piece.index()][kind]);
            let mut gone = o & !n;
            while gone != 0 {
                f(piece, kind, gone.trailing_zeros() as usize, false);
                gone &= gone - 1;
            }
            let mut came = n & !o;
            while came != 0 {
                f(piece, kind, came.trailing_zeros() as usize, true);
                came &= came - 1;
            }
        }
    }
}

/// The planes under the symmetry of `P`'s rules ([`Board::SYMMETRY`]),
/// for augmenting training positions.
pub fn under_symmetry<P: Board>(planes: &Planes) -> Planes {
    planes.map(|kinds| kinds.map(|b| P::CELLS.apply(P::SYMMETRY, b as u128) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{damone::Position, GamePosition};

    #[test]
    fn views_mirror_each_other() {
        let p = planes(&Position::start(Default::default()));
        let (mut white, mut black) = (Vec::new(), Vec::new());
        active(&p, Color::White, &mut white);
        active(&p, Color::Black, &mut black);
        white.sort();
        black.sort();
        // The start is symmetric under the turn with colours swapped.
        assert_eq!(white, black);
        assert_eq!(white.len(), 16);
        assert!(white.iter().all(|&f| (f as usize) < FEATURES));
    }
}
