//! Dameo (Christian Freeling, 2000) as docs/rules-dameo.md decides it:
//! eighteen men a side on all 64 cells, men that step straight or
//! diagonally forward and advance in lines, kings that move like a chess
//! queen, orthogonal captures only (men by short leap forwards, sideways
//! and backwards, kings by long leap), captured pieces removed when the
//! move ends and never jumped twice, the most captures compulsory, and
//! promotion of a man that ends its move on the last row.
//!
//! The board is its own (`u64`, bit `rank * 8 + file`); the game plugs
//! into the layers above through [`GamePosition`](crate::game::GamePosition)
//! (implemented beside the rules, in `position.rs`), the grid the network
//! reads ([`encoding`]), the alpha-beta baseline's evaluation
//! ([`baseline`]) and the endgame tables ([`tables`]).

pub mod baseline;
pub mod encoding;
mod notation;
mod position;
pub mod tables;

pub use notation::{cell_name, cell_of_name, SetupError};
pub use position::{cells, Cells, Dameo, Move, Position, MAX_JUMPS};

#[cfg(test)]
mod tests;
