//! The rules engines behind one game interface ([`GamePosition`], chosen
//! by [`GameKind`]): Damone at this module's root and Italian draughts in
//! [`italian`].
//!
//! The Damone rules engine: squares and bitboards, pieces with three ranks,
//! legal move generation (compulsory maximal capture with the precedence
//! order of docs/rules.md), promotion, Zobrist hashing, repetition and draw
//! counters, outcomes, variants, FEN/move/PDN notation and perft.
//!
//! Depends on nothing but `std` (and `serde`/`thiserror` derives).

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
