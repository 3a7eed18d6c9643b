//! The rules engines behind one game interface ([`GamePosition`], chosen
//! by [`GameKind`]): Damone at this module's root, Italian draughts in
//! [`italian`] and Dameo in [`dameo`].
//!
//! The Damone rules engine: squares and bitboards, pieces with three ranks,
//! legal move generation (compulsory maximal capture with the precedence
//! order of docs/rules.md), promotion, Zobrist hashing, repetition and draw
//! counters, outcomes, variants, FEN/move/PDN notation and perft.
//!
//! Depends on `util` only for clipping quoted input in error messages,
//! besides `std` and the `serde`/`thiserror` derives; no other module.

/// `PartialEq`, `Eq` and `Hash` for a move type with fields `from`, `to`
/// and `captured`: two moves are one move when they start, end and
/// capture alike (they lead to the same position; the landing path they
/// keep is for notation only).
macro_rules! move_identity {
    ($move:ty) => {
        impl PartialEq for $move {
            fn eq(&self, o: &Self) -> bool {
                (self.from, self.to, self.captured) == (o.from, o.to, o.captured)
            }
        }
        impl Eq for $move {}
        impl std::hash::Hash for $move {
            fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
                (self.from, self.to, self.captured).hash(h)
            }
        }
    };
}
pub(crate) use move_identity;

pub mod board_text;
pub mod dameo;
mod damone_game;
pub mod fen;
pub mod interface;
pub mod italian;
pub mod notation;
pub mod perft;
pub mod position;
pub mod record;
pub mod setup;
pub mod types;
pub mod variant;

pub use fen::ParseFenError;
pub use interface::{GameKind, GamePosition, UnknownGame, GAME_NAMES};
pub use notation::{parse_move, to_pdn, ParseMoveError, PdnHeaders};
pub use perft::{divide, perft};
pub use position::{IllegalMove, Move, MoveList, Position, MAX_JUMPS};
pub use record::{DrawRules, EndReason, Game, Outcome};
pub use setup::SetupFieldsError;
pub use types::{Bitboard, Color, Dir, Piece, Rank, Square};
pub use variant::{UnknownVariant, Variant, VARIANT_NAMES};
