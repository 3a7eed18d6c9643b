//! Dameo's pieces for the endgame tables ([`TableGame`]): all 64 cells,
//! men and kings; no man on the row it is promoted on.

use super::position::{cells, Position};
use crate::game::interface::GamePosition;
use crate::game::tables::{turn_cells, TableGame};
use crate::game::types::Color;
use crate::game::types::DraughtsPiece as Piece;

/// The cells a man of each colour is promoted on (rank 8 for White,
/// rank 1 for Black).
const PROMOTION: [u64; 2] = [0xFF << 56, 0xFF];

impl TableGame for Position {
    const TABLE_CELLS: u32 = 64;
    const TABLE_MAGIC: &'static [u8; 8] = b"DMOTBASE";

    fn table_cells(&self, c: Color, kind: usize) -> u64 {
        if kind == 0 {
            self.men(c)
        } else {
            self.kings(c)
        }
    }

    fn from_table_cells(pieces: &[[u64; 3]; 2]) -> Option<Position> {
        let mut pos = Position::empty();
        for (color, kinds) in [Color::White, Color::Black].into_iter().zip(pieces) {
            if kinds[0] & PROMOTION[color.index()] != 0 || kinds[2] != 0 {
                return None;
            }
            for (king, &set) in [false, true].into_iter().zip(kinds) {
                for cell in cells(set) {
                    pos.put(cell, Piece { color, king });
                }
            }
        }
        Some(pos)
    }

    fn rotate_swap(&self) -> Position {
        let mut pos = Position::empty();
        for color in [Color::White, Color::Black] {
            for (king, set) in [(false, self.men(color)), (true, self.kings(color))] {
                for cell in cells(turn_cells(set, 64)) {
                    let piece = Piece {
                        color: color.opposite(),
                        king,
                    };
                    pos.put(cell, piece);
                }
            }
        }
        pos.set_side(self.side_to_move().opposite());
        pos.set_no_progress(self.no_progress());
        pos
    }

    fn table_variant(&self) -> bool {
        true
    }

    /// Each man's rows from its own first row: a man's step (which resets
    /// the no-progress counter) moves it forward.
    fn progress(&self) -> u32 {
        let ranks = |set: u64| cells(set).map(|c| (c / 8) as u32);
        ranks(self.men(Color::White)).sum::<u32>() + ranks(self.men(Color::Black)).map(|r| 7 - r).sum::<u32>()
    }
}
