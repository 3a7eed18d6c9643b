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
//!
//! [`Inputs::Pairs`] adds one input per neighbouring pair of the game's
//! cells and what stands on each (empty, or a piece: the viewer's or the
//! opponent's, its kind), at least one of them a piece: [`PAIR_FEATURES`]
//! more. A pair is two cells one step apart upwards, rightwards or
//! diagonally upwards (in the viewer's turned grid), both cells the
//! game's ([`InputSet::cells`]): a pattern of two cells, as Scan's and
//! Kingsrow's region patterns are patterns of many. The first
//! [`FEATURES`] inputs are the pieces' in both sets, so an evaluation of
//! pieces alone is one of pairs whose pair rows are zero
//! ([`super::FloatEval::with_pairs`]).

use crate::game::Board;
use crate::game::Color;

/// Kinds of piece a game may have ([`Board::kind_cells`]).
pub const KINDS: usize = 3;
/// Cells of the 8x8 grid.
pub const CELLS: usize = 64;
/// Input features of one view: (own or opponent's) x kind x cell.
pub const FEATURES: usize = 2 * KINDS * CELLS;

/// The directions of a pair, in the viewer's grid: up, right, up-left, up-right.
const PAIR_STEPS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, -1), (1, 1)];
/// What a cell holds: empty (0), or 1 + (the opponent's) x KINDS + kind.
const CELL_STATES: usize = 1 + 2 * KINDS;
/// Inputs of the pairs: cell x direction x the two cells' states.
pub const PAIR_FEATURES: usize = CELLS * PAIR_STEPS.len() * CELL_STATES * CELL_STATES;

/// Which inputs a learned evaluation reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inputs {
    /// One input per piece: its owner (the viewer or the opponent), kind and cell.
    #[default]
    Pieces,
    /// The pieces' inputs, and one per neighbouring pair of cells and what
    /// stands on them.
    Pairs,
}

impl Inputs {
    /// Inputs of one view.
    pub const fn count(self) -> usize {
        match self {
            Inputs::Pieces => FEATURES,
            Inputs::Pairs => FEATURES + PAIR_FEATURES,
        }
    }

    /// The name in configs and files.
    pub const fn name(self) -> &'static str {
        match self {
            Inputs::Pieces => "pieces",
            Inputs::Pairs => "pairs",
        }
    }
}

/// A learned evaluation's inputs and the game's cells they read (which
/// matter to pairs alone: a pair's cells are both the game's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputSet {
    /// Which inputs.
    pub inputs: Inputs,
    /// The game's cells of the 8x8 grid (bit = file + 8 x rank).
    pub cells: u64,
}

/// The cells of `P`'s board (of the 8x8 grid), for [`InputSet::cells`].
pub fn cells_of<P: Board>() -> u64 {
    P::CELLS.mask() as u64
}

/// The four neighbours a pair starting at `cell` ends at (None off the grid).
#[inline]
fn pair_ends(cell: usize) -> [Option<usize>; 4] {
    let (r, c) = ((cell / 8) as i32, (cell % 8) as i32);
    PAIR_STEPS.map(|(dr, dc)| {
        let (r2, c2) = (r + dr, c + dc);
        ((0..8).contains(&r2) && (0..8).contains(&c2)).then_some((r2 * 8 + c2) as usize)
    })
}

/// The input of the pair from `cell` in direction `dir` holding `states`.
#[inline]
fn pair_feature(cell: usize, dir: usize, states: (u8, u8)) -> usize {
    FEATURES
        + ((cell * PAIR_STEPS.len() + dir) * CELL_STATES + states.0 as usize) * CELL_STATES
        + states.1 as usize
}

/// What each cell holds, in `view`'s turned grid.
#[inline]
fn view_states(planes: &Planes, view: Color) -> [u8; CELLS] {
    let mut out = [0u8; CELLS];
    for piece in [Color::White, Color::Black] {
        let theirs = (piece != view) as usize;
        for (kind, &cells) in planes[piece.index()].iter().enumerate() {
            for cell in crate::game::grid::cells(cells) {
                let cell = if view == Color::White { cell } else { 63 - cell };
                out[cell] = (1 + theirs * KINDS + kind) as u8;
            }
        }
    }
    out
}

/// What the cell `cell` of `view`'s turned grid holds (as [`view_states`]).
#[inline]
fn cell_state(planes: &Planes, view: Color, cell: usize) -> u8 {
    let at = if view == Color::White { cell } else { 63 - cell };
    for piece in [view, view.opposite()] {
        let theirs = (piece != view) as usize;
        for (kind, &cells) in planes[piece.index()].iter().enumerate() {
            if cells >> at & 1 == 1 {
                return (1 + theirs * KINDS + kind) as u8;
            }
        }
    }
    0
}

impl InputSet {
    /// `inputs` on the cells `cells`.
    pub fn new(inputs: Inputs, cells: u64) -> InputSet {
        InputSet { inputs, cells }
    }

    /// The game's cells in `view`'s turned grid.
    #[inline]
    fn view_cells(&self, view: Color) -> u64 {
        match view {
            Color::White => self.cells,
            Color::Black => self.cells.reverse_bits(),
        }
    }

    /// Call `f` with every active input of `view`.
    #[inline]
    pub fn for_each_active(&self, planes: &Planes, view: Color, mut f: impl FnMut(usize)) {
        for_each_active(planes, view, &mut f);
        if self.inputs == Inputs::Pieces {
            return;
        }
        let (states, cells) = (view_states(planes, view), self.view_cells(view));
        for a in crate::game::grid::cells(cells) {
            for (dir, b) in pair_ends(a).into_iter().enumerate() {
                let Some(b) = b.filter(|&b| cells >> b & 1 == 1) else {
                    continue;
                };
                if states[a] != 0 || states[b] != 0 {
                    f(pair_feature(a, dir, (states[a], states[b])));
                }
            }
        }
    }

    /// Call `f(view, input, added)` for every input of either view that
    /// differs between `old` and `new`: `added` true for one `new` has.
    #[inline]
    pub fn for_each_change(&self, old: &Planes, new: &Planes, mut f: impl FnMut(Color, usize, bool)) {
        for_each_change(old, new, |piece, kind, cell, added| {
            for view in [Color::White, Color::Black] {
                f(view, feature(view, piece, kind, cell), added);
            }
        });
        if self.inputs == Inputs::Pieces {
            return;
        }
        let changed = old
            .iter()
            .flatten()
            .zip(new.iter().flatten())
            .fold(0, |a, (o, n)| a | (o ^ n));
        for view in [Color::White, Color::Black] {
            let changed = if view == Color::White {
                changed
            } else {
                changed.reverse_bits()
            };
            let state = |planes: &Planes, cell: usize| cell_state(planes, view, cell);
            let states = |a: usize, b: usize| {
                let (o, n) = ((state(old, a), state(old, b)), (state(new, a), state(new, b)));
                (o, n)
            };
            pair_changes(self.view_cells(view), changed, states, |i, added| {
                f(view, i, added)
            });
        }
    }
}

/// The pairs' inputs on `cells` that differ between one view's positions
/// before and after, whose cells `changed` differ: `states(a, b)` says
/// what the cells a and b hold before and after.
#[inline]
fn pair_changes(
    cells: u64,
    changed: u64,
    states: impl Fn(usize, usize) -> ((u8, u8), (u8, u8)),
    mut f: impl FnMut(usize, bool),
) {
    let mut emit = |a: usize, dir: usize, b: usize| {
        let (o, n) = states(a, b);
        if o != (0, 0) {
            f(pair_feature(a, dir, o), false);
        }
        if n != (0, 0) {
            f(pair_feature(a, dir, n), true);
        }
    };
    for c in crate::game::grid::cells(changed & cells) {
        // Pairs starting at c, then those ending at c whose start did
        // not change (a pair of two changed cells is its start's).
        for (dir, b) in pair_ends(c).into_iter().enumerate() {
            if let Some(b) = b.filter(|&b| cells >> b & 1 == 1) {
                emit(c, dir, b);
            }
        }
        for (dir, &(dr, dc)) in PAIR_STEPS.iter().enumerate() {
            let (r, col) = ((c / 8) as i32 - dr, (c % 8) as i32 - dc);
            if !(0..8).contains(&r) || !(0..8).contains(&col) {
                continue;
            }
            let a = (r * 8 + col) as usize;
            if cells >> a & 1 == 1 && changed >> a & 1 == 0 {
                emit(a, dir, c);
            }
        }
    }
}

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
