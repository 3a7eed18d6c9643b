//! What the hand-written alpha-beta baseline needs of a game beyond its
//! rules ([`Baseline`]): a static evaluation and move codes. Each game
//! implements it in its folder (`baseline.rs`).

use super::interface::GamePosition;

/// What the alpha-beta baseline needs of a game beyond its rules.
pub trait Baseline: GamePosition {
    /// Number of move codes ([`Baseline::move_code`] is below it).
    const MOVE_CODES: usize;
    /// Static evaluation for the side to move, in hundredths of a man.
    fn evaluate(&self) -> i32;
    /// A code per move, below `MOVE_CODES` (its start and end squares):
    /// the transposition table keeps the best move's, the history
    /// heuristic counts cut-offs per code.
    fn move_code(m: &Self::Move) -> u16;
    /// Pieces a move takes (0 for a step): more are searched first. A game
    /// without captures keeps the default, 0 (moves are then ordered by
    /// the history heuristic alone).
    fn captures(m: &Self::Move) -> u32 {
        let _ = m;
        0
    }
}
