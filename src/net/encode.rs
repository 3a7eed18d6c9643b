//! Position -> input planes and move <-> policy index, in the mover's
//! perspective (the board is turned 180 degrees when Black is to move).
//!
//! ## Input planes (`PLANES` x 8 x 8, plane-major, row = board rank)
//!
//! | plane | content |
//! | --- | --- |
//! | 0, 1, 2 | the mover's Pedine, Damas, Damones |
//! | 3, 4, 5 | the opponent's Pedine, Damas, Damones |
//! | 6 | all ones if the position has occurred before (repetition) |
//! | 7 | no-progress plies / no-progress limit, on every square |
//! | 8 | ones on the 32 playing squares |
//!
//! ## Policy encoding (`POLICY_SIZE` = 4 x 32 x 32 logits)
//!
//! A move is identified by its start square, its end square and its captured
//! set. Its index is `slot * 1024 + from * 32 + to` with squares in the
//! mover's perspective (dark-square index 0..32). Moves that share start and
//! end squares (only possible for captures) are told apart by `slot`: they
//! are ordered by captured set (as a 32-bit board in the mover's
//! perspective) and take slots 0, 1, 2, 3. No position met in 20 million
//! random-playout positions had two legal moves sharing start and end, so
//! slot 0 is nearly always used; five or more such moves would share slot 3.

use crate::game::types::squares;
use crate::game::{Bitboard, Color, Game, Move, Position, Rank, Square};

/// Version of the input planes and the policy index: stored in training
/// samples, checkpoints and player files, and checked when they are read,
/// so that a change of either can never silently mix old data with new.
/// Bump it with any change to this module's tables.
pub const ENCODING_VERSION: u32 = 1;
/// Number of input planes.
pub const PLANES: usize = 9;
/// Alternative slots for moves that share start and end squares.
pub const SLOTS: usize = 4;
/// Size of the policy head.
pub const POLICY_SIZE: usize = SLOTS * 32 * 32;

/// A compact, perspective-oriented description of a position: everything the
/// network sees. Cheap to store in the replay window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    /// Mover's P, D, I then opponent's P, D, I, as boards in the mover's perspective.
    pub boards: [Bitboard; 6],
    /// The position occurred before.
    pub repeated: bool,
    /// No-progress plies divided by the limit, in [0, 1].
    pub no_progress: f32,
}

fn orient(sq: Square, me: Color) -> Square {
    match me {
        Color::White => sq,
        Color::Black => sq.rotate(),
    }
}

fn orient_bb(b: Bitboard, me: Color) -> Bitboard {
    match me {
        Color::White => b,
        Color::Black => b.reverse_bits(),
    }
}

/// Reflect a board in the h1-a8 diagonal.
pub fn reflect_bb(b: Bitboard) -> Bitboard {
    squares(b).fold(0, |acc, s| acc | s.reflect().bb())
}

impl Observation {
    /// Observe the current position of a game.
    pub fn of_game(game: &Game) -> Observation {
        let limit = game.rules().no_progress_plies.max(1) as f32;
        Observation::new(
            game.position(),
            game.repetitions() > 1,
            game.position().no_progress() as f32 / limit,
        )
    }

    /// Observe a position with given repetition flag and no-progress fraction.
    pub fn new(pos: &Position, repeated: bool, no_progress: f32) -> Observation {
        let me = pos.side_to_move();
        let them = me.opposite();
        let mut boards = [0; 6];
        for (i, r) in Rank::ALL.iter().enumerate() {
            boards[i] = orient_bb(pos.pieces(me, *r), me);
            boards[3 + i] = orient_bb(pos.pieces(them, *r), me);
        }
        Observation {
            boards,
            repeated,
            no_progress: no_progress.clamp(0.0, 1.0),
        }
    }

    /// The observation of the position reflected in the h1-a8 diagonal.
    pub fn reflect(&self) -> Observation {
        let mut o = *self;
        for b in &mut o.boards {
            *b = reflect_bb(*b);
        }
        o
    }

    /// Write the planes into `out` (length `PLANES * 64`).
    pub fn write_planes(&self, out: &mut [f32]) {
        debug_assert_eq!(out.len(), PLANES * 64);
        out.fill(0.0);
        for (p, &b) in self.boards.iter().enumerate() {
            for s in squares(b) {
                out[p * 64 + cell(s)] = 1.0;
            }
        }
        if self.repeated {
            out[6 * 64..7 * 64].fill(1.0);
        }
        out[7 * 64..8 * 64].fill(self.no_progress);
        for s in Square::all() {
            out[8 * 64 + cell(s)] = 1.0;
        }
    }
}

/// Row-major cell of a square on the 8x8 grid.
#[inline]
fn cell(s: Square) -> usize {
    (s.rank() * 8 + s.file()) as usize
}

/// Policy index of each legal move of `pos` (same order as `moves`).
pub fn policy_indices(pos: &Position, moves: &[Move]) -> Vec<u16> {
    let me = pos.side_to_move();
    let base: Vec<usize> = moves
        .iter()
        .map(|m| orient(m.from(), me).index() * 32 + orient(m.to(), me).index())
        .collect();
    let mut out = Vec::with_capacity(moves.len());
    for (i, m) in moves.iter().enumerate() {
        let key = orient_bb(m.captured(), me);
        let slot = moves
            .iter()
            .enumerate()
            .filter(|&(j, o)| j != i && base[j] == base[i] && orient_bb(o.captured(), me) < key)
            .count();
        out.push((slot.min(SLOTS - 1) * 1024 + base[i]) as u16);
    }
    out
}

/// The policy index under the h1-a8 reflection.
pub fn reflect_index(idx: u16) -> u16 {
    let idx = idx as usize;
    let slot = idx / 1024;
    let from = Square::new(((idx % 1024) / 32) as u8).reflect().index();
    let to = Square::new((idx % 32) as u8).reflect().index();
    (slot * 1024 + from * 32 + to) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{DrawRules, Variant};

    #[test]
    fn indices_are_distinct_and_reflect_consistently() {
        let g = Game::from_variant(Variant::Standard, DrawRules::default());
        let pos = *g.position();
        let moves = pos.legal_moves();
        let idx = policy_indices(&pos, &moves);
        let mut s = idx.clone();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), moves.len());
        // Reflecting the position and its moves gives the reflected indices.
        let r = pos.reflect();
        let rmoves: Vec<Move> = moves.iter().map(|m| m.map_squares(Square::reflect)).collect();
        let ridx = policy_indices(&r, &rmoves);
        for (a, b) in idx.iter().zip(&ridx) {
            assert_eq!(reflect_index(*a), *b);
        }
        assert_eq!(
            Observation::new(&pos, false, 0.0).reflect(),
            Observation::new(&r, false, 0.0)
        );
    }

    #[test]
    fn black_sees_the_board_turned() {
        // The start position is symmetric under the turn with colours swapped.
        let p = Position::start(Variant::Standard);
        let mut b = p;
        b.set_side(Color::Black);
        let ow = Observation::new(&p, false, 0.0);
        let ob = Observation::new(&b, false, 0.0);
        assert_eq!(ow.boards[0..3], ob.boards[0..3]);
        assert_eq!(ow.boards[3..6], ob.boards[3..6]);
    }
}
