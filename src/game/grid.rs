//! The 8x8 grid as cells (bit `rank * 8 + file` of a `u64`): what the
//! network's encoding and the learned evaluation read of every game
//! ([`Board`]), whichever cells its pieces stand on ([`BoardCells`]: the
//! 32 dark squares or all 64).

use super::interface::GamePosition;
use super::types::{Bitboard, Color, Square};
use serde::{Deserialize, Serialize};

/// Start and end pairs of the whole grid, 64 x 64.
pub const CELL_PAIRS: usize = 64 * 64;

/// The cells of a board, lowest first.
#[inline]
pub fn cells(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            i
        })
    })
}

/// The cells a game's pieces stand on, which the network's policy index
/// numbers (`model.board`, set from the game: a network is built for one
/// of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoardCells {
    /// The 32 dark squares (Damone, Italian draughts): 4 slots.
    #[default]
    Dark,
    /// All 64 cells (Dameo): 1 slot.
    All,
}

/// Every cell of the 8x8 grid, in order.
const ALL_CELLS: [usize; 64] = {
    let mut t = [0usize; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = i;
        i += 1;
    }
    t
};

/// The dark-square index of each cell (32 on a light cell).
const CELL_TO_DARK: [u8; 64] = {
    let mut t = [32u8; 64];
    let mut i = 0;
    while i < 32 {
        t[DARK_CELLS[i]] = i as u8;
        i += 1;
    }
    t
};

impl BoardCells {
    /// The playing cells (row-major on the 8x8 grid), by number.
    pub fn cells(self) -> &'static [usize] {
        match self {
            BoardCells::Dark => &DARK_CELLS,
            BoardCells::All => &ALL_CELLS,
        }
    }
    /// The number of playing cells, `n`.
    pub fn count(self) -> usize {
        self.cells().len()
    }
    /// Start and end pairs, `n * n`: the size of one slot.
    pub fn pairs(self) -> usize {
        self.count() * self.count()
    }
    /// How many times the `n * n` start and end pairs fit in the 64 x 64
    /// pairs of the whole grid: the slots the network's policy index gives
    /// moves that share start and end.
    pub fn slots(self) -> usize {
        CELL_PAIRS / self.pairs()
    }
    /// A playing cell's number (0..n).
    #[inline]
    pub fn number(self, cell: usize) -> usize {
        match self {
            BoardCells::Dark => CELL_TO_DARK[cell] as usize,
            BoardCells::All => cell,
        }
    }
    /// The playing cells as a 64-cell board.
    pub fn mask(self) -> u64 {
        self.cells().iter().fold(0, |m, &c| m | 1 << c)
    }
    /// The name used in configuration files.
    pub fn name(self) -> &'static str {
        match self {
            BoardCells::Dark => "dark",
            BoardCells::All => "all",
        }
    }
}

/// What the encoding needs of a game: its playing cells, its pieces by
/// kind and its moves as start, end and captured set, all as cells of the
/// 8x8 grid (bit `rank * 8 + file`).
pub trait Board: GamePosition {
    /// The cells pieces stand on.
    const CELLS: BoardCells;
    /// A side's pieces at the start: the material planes and the material
    /// target count pieces in these units.
    const PIECES_PER_SIDE: f32;
    /// True when the reflection in the h1-a8 diagonal maps every legal
    /// move to a legal move (Damone); training then augments with it.
    /// Italian and Dameo men move forward only, which the reflection turns
    /// sideways.
    const REFLECTION_SYMMETRIC: bool;
    /// `c`'s pieces by kind, lowest first, at most three (Damone: Pedine,
    /// Damas, Damones; Italian and Dameo: men, kings and an empty board).
    fn kind_cells(&self, c: Color) -> [u64; 3];
    /// The same pieces with `c` to move (the threat planes ask what the
    /// opponent could take).
    fn with_side_to_move(&self, c: Color) -> Self;
    /// A move's start cell, end cell and captured cells.
    fn move_cells(m: &Self::Move) -> (usize, usize, u64);
}

/// Each byte of a 32-square board spread onto its cells.
static SPREAD: [[u64; 256]; 4] = {
    let mut t = [[0u64; 256]; 4];
    let mut byte = 0;
    while byte < 4 {
        let mut v = 0;
        while v < 256 {
            let mut bit = 0;
            while bit < 8 {
                if v & (1 << bit) != 0 {
                    t[byte][v] |= 1 << DARK_CELLS[byte * 8 + bit];
                }
                bit += 1;
            }
            v += 1;
        }
        byte += 1;
    }
    t
};

/// A board of the 32 dark squares as cells of the 8x8 grid.
#[inline]
pub fn dark_to_cells(b: Bitboard) -> u64 {
    let [b0, b1, b2, b3] = b.to_le_bytes();
    SPREAD[0][b0 as usize] | SPREAD[1][b1 as usize] | SPREAD[2][b2 as usize] | SPREAD[3][b3 as usize]
}

/// Reflect a board of cells in the h1-a8 diagonal: (file, rank) -> (7 -
/// rank, 7 - file).
pub fn reflect_cells(b: u64) -> u64 {
    cells(b).fold(0, |acc, c| acc | 1 << ((7 - c / 8) + 8 * (7 - c % 8)))
}

/// The row-major cell on the 8x8 grid of each dark square (by index).
pub const DARK_CELLS: [usize; 32] = {
    let mut t = [0usize; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = cell(Square::new(i as u8));
        i += 1;
    }
    t
};

/// Row-major cell of a square on the 8x8 grid.
#[inline]
pub const fn cell(s: Square) -> usize {
    (s.rank() * 8 + s.file()) as usize
}
