//! Damone's pieces for the endgame tables ([`TableGame`]): the 32 dark
//! squares by index, three ranks, the standard variant only.

use super::position::Position;
use super::rank::{Piece, Rank};
use super::variant::Variant;
use crate::game::interface::GamePosition;
use crate::game::tables::TableGame;
use crate::game::types::{Color, Square};

impl TableGame for Position {
    const TABLE_CELLS: u32 = 32;
    const TABLE_MAGIC: &'static [u8; 8] = b"DMNTBASE";

    fn table_cells(&self, c: Color, kind: usize) -> u64 {
        self.pieces(c, Rank::ALL[kind]) as u64
    }

    fn from_table_cells(pieces: &[[u64; 3]; 2]) -> Option<Position> {
        let mut pos = Position::empty(Variant::Standard);
        for (color, kinds) in [Color::White, Color::Black].into_iter().zip(pieces) {
            for (rank, &set) in Rank::ALL.into_iter().zip(kinds) {
                for cell in crate::game::grid::cells(set) {
                    pos.put(Square::new(cell as u8), Piece { color, rank });
                }
            }
        }
        Some(pos)
    }

    fn rotate_swap(&self) -> Position {
        Position::rotate_swap(self)
    }

    fn table_variant(&self) -> bool {
        self.variant() == Variant::Standard
    }
}
