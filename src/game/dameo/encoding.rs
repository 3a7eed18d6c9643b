//! Dameo on the grid: what the network's encoding and the learned
//! evaluation read of a position ([`Board`]): men and kings on all 64
//! cells.

use super::position::Position;
use crate::game::grid::{Board, BoardCells};
use crate::game::types::Color;

impl Board for Position {
    const CELLS: BoardCells = BoardCells::ALL;
    const PIECES_PER_SIDE: f32 = 18.0;
    fn kind_cells(&self, c: Color) -> [u128; 3] {
        [self.men(c) as u128, self.kings(c) as u128, 0]
    }
    fn with_side_to_move(&self, c: Color) -> Self {
        let mut p = *self;
        p.set_side(c);
        p
    }
    fn move_cells(m: &Self::Move) -> (usize, usize, u128) {
        (m.from(), m.to(), m.captured() as u128)
    }
}
