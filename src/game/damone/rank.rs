//! Damone's pieces: three ranks, and the directions each moves in.

use crate::game::types::{Color, Dir};

/// Rank of a piece, ordered from lowest to highest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    /// Rank 1: moves and captures forward and sideways only; takes only Pedine.
    Pedina = 0,
    /// Rank 2: moves in all four diagonal directions; takes Damas and Pedine.
    Dama = 1,
    /// Rank 3 (also Imperatore): all four directions; takes anything.
    Damone = 2,
}

impl Rank {
    /// All ranks from lowest to highest.
    pub const ALL: [Rank; 3] = [Rank::Pedina, Rank::Dama, Rank::Damone];
    /// 0, 1 or 2.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    /// FEN prefix: `""`, `"D"` or `"I"`.
    pub fn prefix(self) -> &'static str {
        match self {
            Rank::Pedina => "",
            Rank::Dama => "D",
            Rank::Damone => "I",
        }
    }
}

/// A piece: a colour and a rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The piece's colour.
    pub color: Color,
    /// The piece's rank: Pedina, Dama or Damone.
    pub rank: Rank,
}

impl Rank {
    /// Bit mask (over `Dir as u8`) of the directions a piece of this rank
    /// of side `color` may move and capture in.
    pub const fn dirs(self, color: Color) -> u8 {
        match self {
            Rank::Pedina => (1 << Dir::forward(color) as u8) | (1 << Dir::NE as u8) | (1 << Dir::SW as u8),
            _ => 0b1111,
        }
    }
}
