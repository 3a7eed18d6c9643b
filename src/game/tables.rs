//! What the endgame tables ask of a game ([`TableGame`]): its pieces as
//! sets of cell numbers, the position of given pieces, and the turn of the
//! board that swaps the sides. Each game implements it in its folder
//! (`tables.rs`); `crate::tablebase` builds, checks and probes the tables
//! of any game that does.

use super::interface::GamePosition;
use super::types::Color;

/// What the endgame tables ask of a game.
pub trait TableGame: GamePosition {
    /// The cells pieces stand on, numbered `0..TABLE_CELLS` (32 or 64):
    /// a table numbers each piece's place by them.
    const TABLE_CELLS: u32;
    /// The first 8 bytes of the game's table files (its tables are told
    /// from another game's by them).
    const TABLE_MAGIC: &'static [u8; 8];

    /// `c`'s pieces of kind `kind` (an index into
    /// [`GamePosition::PIECE_KINDS`]) as a set of cell numbers (bit `i`
    /// for cell `i`).
    fn table_cells(&self, c: Color, kind: usize) -> u64;

    /// The position of the standard variant with White to move, its
    /// no-progress counter 0, and the pieces `pieces[colour][kind]`
    /// (disjoint sets of cell numbers); None where the rules allow no such
    /// position (a man on the row it would have been promoted on).
    fn from_table_cells(pieces: &[[u64; 3]; 2]) -> Option<Self>;

    /// The board turned by 180 degrees with the colours swapped and the
    /// other side to move: the same position for the rules, seen from the
    /// other side. Cell number `i` becomes `TABLE_CELLS - 1 - i`.
    fn rotate_swap(&self) -> Self;

    /// True for a position of the variant the tables are built for.
    fn table_variant(&self) -> bool;

    /// How far the men have come: a measure that every irreversible move
    /// that keeps the material (a man's step where it resets the
    /// no-progress counter, as in Italian draughts and Dameo) raises, that
    /// no other move changes, and that the turn of the board keeps. The
    /// builder settles positions of more progress first. 0 (the default)
    /// for a game whose only irreversible moves are captures and
    /// promotions.
    fn progress(&self) -> u32 {
        0
    }
}

/// A set of cell numbers turned by 180 degrees (`i` to `cells - 1 - i`).
pub fn turn_cells(set: u64, cells: u32) -> u64 {
    set.reverse_bits() >> (64 - cells)
}
