//! Italian draughts on the grid: what the network's encoding and the
//! learned evaluation read of a position ([`Board`]): men and kings on the
//! 32 dark squares.

use super::position::Position;
use crate::game::grid::{cell, dark_to_cells, Board, BoardCells};
use crate::game::types::Color;

impl Board for Position {
    const CELLS: BoardCells = BoardCells::DARK;
    const PIECES_PER_SIDE: f32 = 12.0;
    fn kind_cells(&self, c: Color) -> [u128; 3] {
        [dark_to_cells(self.men(c)), dark_to_cells(self.kings(c)), 0]
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
