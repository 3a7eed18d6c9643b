//! Perft: counting the leaves of the legal-move tree, with bulk counting at
//! the last ply, for any game. Draw rules are ignored (as is usual for
//! perft); a position where the side to move has no move is a leaf with no
//! children, and so is a position the rules decide before the moves
//! (Damone's `damone-hunt` when a side has lost all its Damones).

use super::interface::GamePosition;
use super::registry::GameKind;

/// Number of leaf nodes `depth` plies below `pos`.
pub fn perft<P: GamePosition>(pos: &P, depth: u32) -> u64 {
    let mut bufs: Vec<Vec<P::Move>> = (0..depth.max(1)).map(|_| Vec::with_capacity(64)).collect();
    perft_rec(pos, depth, &mut bufs)
}

fn perft_rec<P: GamePosition>(pos: &P, depth: u32, bufs: &mut [Vec<P::Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.decided().is_some() {
        return 0;
    }
    let (buf, rest) = bufs.split_first_mut().expect("one buffer per ply");
    if depth == 1 {
        return pos.count_moves(buf);
    }
    pos.legal_moves_into(buf);
    let mut n = 0;
    for m in buf.iter() {
        let child = pos.after(m);
        n += perft_rec(&child, depth - 1, rest);
    }
    n
}

/// Perft split by root move: `(move text, leaves)` for each legal move.
pub fn divide<P: GamePosition>(pos: &P, depth: u32) -> Vec<(String, u64)> {
    pos.legal_moves()
        .iter()
        .map(|m| {
            let leaves = if depth <= 1 {
                1
            } else {
                perft(&pos.after(m), depth - 1)
            };
            (pos.move_text(m), leaves)
        })
        .collect()
}

/// The games whose perft counts capture paths apart
/// ([`GamePosition::perft_paths`]).
pub fn games_counting_paths() -> Vec<GameKind> {
    GameKind::ALL
        .into_iter()
        .filter(|&kind| crate::with_game!(kind, P => counts_paths::<P>()))
        .collect()
}

/// Whether `P`'s perft counts capture paths apart.
fn counts_paths<P: GamePosition>() -> bool {
    P::start(P::Variant::default()).perft_paths(0).is_some()
}
