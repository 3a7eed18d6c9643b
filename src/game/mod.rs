//! The games behind one interface ([`GamePosition`], chosen by
//! [`GameKind`], identified in files by [`GameId`]): each game is a
//! folder (Damone's, whose items are here, [`italian`],
//! [`dameo`]) with its rules, notation and setup strings; the modules at
//! this level are what the games share: the interface, game records and
//! draw rules ([`record`]), setup-string fields, notation helpers and PDN,
//! perft, plain-text boards, the 32-square geometry and colours
//! ([`types`]), and the traits a game implements for the layers above:
//! the grid the network and the learned evaluation read ([`grid`]) and
//! the alpha-beta baseline's evaluation ([`baseline`]).
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

pub mod baseline;
pub mod board_text;
pub mod dameo;
mod damone;
pub mod grid;
pub mod interface;
pub mod italian;
pub mod notation;
pub mod perft;
pub mod record;
pub mod registry;
pub mod setup;
pub mod tables;
pub mod types;

pub use baseline::Baseline;
pub use damone::{
    parse_move, Move, MoveList, ParseFenError, Piece, Position, Rank, UnknownVariant, Variant, MAX_JUMPS,
    VARIANT_NAMES,
};
pub use grid::{Board, BoardCells};
pub use interface::GamePosition;
pub use notation::{to_pdn, ParseMoveError, PdnHeaders};
pub use perft::{divide, perft};
pub use record::{DrawRules, EndReason, Game, IllegalMove, Outcome};
pub use registry::{GameId, GameKind, UnknownGame, GAME_COUNT, GAME_NAMES};
pub use setup::SetupFieldsError;
pub use tables::TableGame;
pub use types::{Bitboard, Color, Dir, Square};
