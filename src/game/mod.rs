//! The games behind one interface ([`GamePosition`], chosen by
//! [`GameKind`], identified in files by [`GameId`]): each game is a
//! folder ([`damone`], [`italian`], [`dameo`]) with its rules, notation and setup strings; the modules at
//! this level are what the games share: the interface, game records and
//! draw rules ([`record`]), setup-string fields, notation helpers and PDN,
//! perft, plain-text boards, the 32-square geometry and colours
//! ([`types`]), and the traits a game implements for the layers above:
//! the grid the network and the learned evaluation read ([`grid`]) and
//! the alpha-beta baseline's evaluation ([`baseline`]); and the draughts
//! kit ([`draughts`]: one jump-move type, one board of men and kings, one
//! reader of typed moves) that the games of men and kings build on.
//!
//! Depends on `util` only for clipping quoted input in error messages,
//! besides `std` and the `serde`/`thiserror` derives; no other module.

pub mod baseline;
pub mod board_text;
pub mod dameo;
pub mod damone;
pub mod draughts;
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
pub use grid::{Board, BoardCells, Symmetry};
pub use interface::GamePosition;
pub use notation::{to_pdn, ParseMoveError, PdnHeaders};
pub use perft::{divide, perft};
pub use record::{DrawRules, EndReason, Game, IllegalMove, Outcome};
pub use registry::{GameId, GameKind, UnknownGame, GAME_COUNT, GAME_NAMES};
pub use setup::SetupFieldsError;
pub use tables::TableGame;
pub use types::{Bitboard, Color, Dir, Square};
