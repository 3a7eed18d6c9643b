//! Italian draughts (Dama italiana) as the Italian federation (FID) plays
//! it (docs/rules-italian.md): twelve men a side on the 32 dark squares,
//! men that move and capture forward only and never take a king, kings of
//! one step in the four diagonal directions, compulsory capture with the
//! four precedence criteria, promotion on the last row.
//!
//! It shares the 32-square board of [`crate::game::types`] with Damone
//! (the same orientation: h1 and a8 are dark) and plugs into the layers
//! above through [`GamePosition`] (implemented beside the rules, in
//! `position.rs`), the grid the network reads ([`encoding`]), the
//! alpha-beta baseline's evaluation ([`baseline`]) and the endgame
//! tables ([`tables`]).

pub mod baseline;
pub mod encoding;
mod notation;
mod position;
pub mod tables;

pub use notation::{square_number, square_of_number, SetupError};
pub use position::{Italian, Move, Piece, Position, MAX_JUMPS};

use super::interface::GamePosition;

/// Perft counting capture paths: as [`crate::game::perft()`], but a capture
/// that can take the same pieces along two paths counts twice, as the
/// published Italian counts do (they differ from the move count from depth
/// 12 of the start position on).
pub fn perft_paths(pos: &Position, depth: u32) -> u64 {
    fn count(pos: &Position, depth: u32, bufs: &mut [Vec<Move>]) -> u64 {
        let (buf, rest) = bufs.split_first_mut().expect("one buffer per ply");
        pos.capture_paths_into(buf);
        if depth == 1 {
            return buf.len() as u64;
        }
        buf.iter().map(|m| count(&pos.after(m), depth - 1, rest)).sum()
    }
    if depth == 0 {
        return 1;
    }
    let mut bufs: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(32)).collect();
    count(pos, depth, &mut bufs)
}

#[cfg(test)]
mod tests;
