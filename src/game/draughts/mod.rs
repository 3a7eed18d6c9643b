//! The draughts kit: what games of men and kings on a board of up to 128
//! cells share, public so that a game written outside the crate (the
//! checkers example) builds on it too.
//!
//! - [`CellSet`] and [`Cell`]: a set of cells as a bit mask (`u32`,
//!   `u64`, `u128`) and the type a game names one cell by (damone's
//!   [`Square`](crate::game::Square) or a plain index);
//! - [`JumpMove`]: one move type for every such game (start, end,
//!   captured set, landing path), one identity (start, end and captured
//!   set) and one text (`22-18`, `21x14x7`);
//! - [`MenKings`]: one board of men and kings (colour and king sets, side
//!   to move, the no-progress counter, the Zobrist hash) that a game
//!   declares with a [`MenKingsGame`] (its cells, keys and promotion rows);
//! - [`parse_jump_move`]: one reader of a typed move against the legal
//!   moves, the full path or start and end;
//! - [`read_setup`] and [`setup_text`]: setup strings both ways over a
//!   game's [`SetupNotation`] (its cell names, ranges and piece count),
//!   with one [`SetupError`].
//!
//! Damone's position keeps its own board (three ranks of pieces) and uses
//! the move type. Depends on `game::types`, `game::notation` and `game::setup` only.

mod board;
mod cells;
mod moves;
mod setup;

pub use board::{zobrist_keys, MenKings, MenKingsGame};
pub use cells::{Cell, CellIter, CellSet};
pub use moves::{parse_jump_move, short_jumps, JumpMove};
pub use setup::{read_setup, setup_text, SetupError, SetupNotation};

/// A piece of a game of men and kings: a man or a king of a colour.
pub use crate::game::types::DraughtsPiece as Piece;

#[cfg(test)]
mod tests;
