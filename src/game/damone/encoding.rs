//! Damone on the grid: what the network's encoding and the learned
//! evaluation read of a position ([`Board`]): Pedine, Damas and Damones on
//! the 32 dark squares; the game is symmetric under the h1-a8 reflection.

use super::position::Position;
use super::rank::Rank;
use crate::game::grid::{cell, dark_to_cells, Board, BoardCells, Symmetry};
use crate::game::types::Color;

impl Board for Position {
    const CELLS: BoardCells = BoardCells::DARK;
    const PIECES_PER_SIDE: f32 = 8.0;
    /// Every rank moves alike in all four diagonal directions.
    const SYMMETRY: Symmetry = Symmetry::Diagonal;
    fn kind_cells(&self, c: Color) -> [u128; 3] {
        Rank::ALL.map(|r| dark_to_cells(self.pieces(c, r)))
    }
    fn with_side_to_move(&self, c: Color) -> Self {
        let mut p = *self;
        p.set_side(c);
        p
    }
    fn move_cells(m: &Self::Move) -> (usize, usize, u128) {
        (cell(m.from()), cell(m.to()), dark_to_cells(m.captured()))
    }
}
