//! What damone's layers above the rules ask of Connect Four: the grid the
//! network reads ([`Board`]: six rows of seven, the left-right mirror as
//! its symmetry, both sides seeing the board as it stands, since gravity
//! has a direction), the alpha-beta baseline's evaluation ([`Baseline`]),
//! and no endgame tables ([`OpenExactValues`] with its default: every
//! folder refused). With these, the game is a [`damone::run::RunGame`].
//! The learned evaluation reads 8x8 boards turned for Black, so a run of
//! this game skips it with a notice.

use crate::rules::{bit, Move, Position, COLS, ROWS};
use damone::game::{Baseline, Board, BoardCells, Color, GamePosition, Symmetry};
use damone::mcts::OpenExactValues;

/// The cells of the network's grid: row `r`, column `c` is `7r + c`.
const GRID: BoardCells = BoardCells::all(ROWS as u8, COLS as u8);

impl Board for Position {
    const CELLS: BoardCells = GRID;
    /// Half the board: the material planes count discs in these units.
    const PIECES_PER_SIDE: f32 = 21.0;
    /// The rules look the same in a mirror.
    const SYMMETRY: Symmetry = Symmetry::Mirror;
    /// Gravity pulls both sides' discs down: neither view is turned.
    const TURN_FOR_BLACK: bool = false;
    fn kind_cells(&self, c: Color) -> [u128; 3] {
        let mut cells = 0u128;
        for (col, row) in (0..COLS).flat_map(|c| (0..ROWS).map(move |r| (c, r))) {
            if self.discs(c) & bit(col, row) != 0 {
                cells |= 1 << (row * COLS + col);
            }
        }
        [cells, 0, 0]
    }
    /// A drop is named by its column: the column's bottom cell as start
    /// and end, so that the policy index has one entry per column.
    fn move_cells(m: &Move) -> (usize, usize, u128) {
        (m.0 as usize, m.0 as usize, 0)
    }
}

/// Every line of four cells on the board, as bit sets: 24 across, 21 up,
/// 24 on the diagonals.
const LINES: [u64; 69] = {
    let mut lines = [0u64; 69];
    let mut n = 0;
    let mut c = 0;
    while c < COLS {
        let mut r = 0;
        while r < ROWS {
            let dirs = [(1i32, 0i32), (0, 1), (1, 1), (1, -1)];
            let mut d = 0;
            while d < 4 {
                let (dc, dr) = dirs[d];
                let (ec, er) = (c as i32 + 3 * dc, r as i32 + 3 * dr);
                if ec < COLS as i32 && er >= 0 && er < ROWS as i32 {
                    let mut k = 0;
                    while k < 4 {
                        let (cc, rr) = (c as i32 + k * dc, r as i32 + k * dr);
                        lines[n] |= 1 << (cc as usize * (ROWS + 1) + rr as usize);
                        k += 1;
                    }
                    n += 1;
                }
                d += 1;
            }
            r += 1;
        }
        c += 1;
    }
    assert!(n == 69, "69 lines of four");
    lines
};

/// The evaluation's weight of a line holding 1, 2 or 3 of one side's discs
/// and none of the other's.
const LINE_WEIGHT: [i32; 4] = [0, 1, 8, 40];

/// Open lines: each line of four that one side could still complete is
/// worth [`LINE_WEIGHT`] of its discs in it, the side to move's minus the
/// opponent's.
impl Baseline for Position {
    const MOVE_CODES: usize = COLS;
    fn evaluate(&self) -> i32 {
        let me = self.side_to_move();
        let (mine, theirs) = (self.discs(me), self.discs(me.opposite()));
        LINES
            .iter()
            .map(
                |&line| match ((mine & line).count_ones(), (theirs & line).count_ones()) {
                    (m, 0) => LINE_WEIGHT[m.min(3) as usize],
                    (0, t) => -LINE_WEIGHT[t.min(3) as usize],
                    _ => 0,
                },
            )
            .sum()
    }
    fn move_code(m: &Move) -> u16 {
        m.0 as u16
    }
}

/// No endgame tables: the default refuses every folder.
impl OpenExactValues for Position {}
