//! Random playouts over thousands of seeded games, checking invariants:
//! a legal move exists unless the game is over; FEN round-trips; the
//! incremental hash equals the hash from scratch; the h1-a8 reflection maps
//! the legal move set onto that of the reflected position; piece counts never
//! grow; every game ends under the caps.

use damone::game::damone::*;
use damone::game::{Color, DrawRules, EndReason, Game, GamePosition, Square};
use rand::{Rng, SeedableRng};
use std::collections::HashSet;

fn move_set(p: &Position) -> HashSet<(usize, usize, u32)> {
    p.legal_moves()
        .iter()
        .map(|m| (m.from().index(), m.to().index(), m.captured()))
        .collect()
}

#[test]
fn random_playouts_keep_invariants() {
    let rules = DrawRules::default();
    let mut reasons = std::collections::HashMap::new();
    for (vi, v) in [Variant::Standard, Variant::DamoneHunt, Variant::ThreeDamas]
        .into_iter()
        .enumerate()
    {
        for seed in 0..1000u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed * 3 + vi as u64);
            let mut g = Game::new(Position::start(v), rules);
            loop {
                let p = *g.position();
                let moves = p.legal_moves();
                assert_eq!(p.hash_key(), p.compute_hash(), "hash drift at {}", p.to_fen());
                let back = Position::from_fen(&p.to_fen(), v).unwrap();
                assert_eq!(back, p, "FEN round trip {}", p.to_fen());
                let r = p.reflect();
                let want: HashSet<_> = moves
                    .iter()
                    .map(|m| {
                        let m = m.map_cells(Square::reflect);
                        (m.from().index(), m.to().index(), m.captured())
                    })
                    .collect();
                assert_eq!(move_set(&r), want, "reflection at {}", p.to_fen());
                // The 180-degree turn with colours swapped is the same game.
                assert_eq!(p.rotate_swap().legal_moves().len(), moves.len());
                if let Some(o) = g.outcome_with(&moves) {
                    if o.reason == EndReason::NoMoves {
                        assert!(moves.is_empty());
                    }
                    *reasons.entry(o.reason).or_insert(0) += 1;
                    break;
                }
                assert!(
                    !moves.is_empty(),
                    "no legal move but game not over: {}",
                    p.to_fen()
                );
                assert!(g.ply() < rules.max_plies as usize);
                let m = moves[rng.random_range(0..moves.len())];
                let (w, b) = (p.count(Color::White), p.count(Color::Black));
                g.play_unchecked(&m);
                let q = g.position();
                assert!(q.count(Color::White) <= w && q.count(Color::Black) <= b);
                assert_eq!(
                    w + b - q.count(Color::White) - q.count(Color::Black),
                    m.captured().count_ones()
                );
            }
        }
    }
    // The playouts reach more than one kind of ending.
    assert!(reasons.len() >= 3, "{reasons:?}");
}

/// Italian draughts: the same invariants over 2,000 seeded games, plus the
/// game's own: a man never moves backward and never takes a king, every
/// legal capture takes as many pieces as any other, each move's text reads
/// back as the same move, the bitboard count equals the generated moves.
#[test]
fn italian_random_playouts_keep_invariants() {
    use damone::game::italian::Position as Italian;
    let rules = DrawRules::default();
    let mut reasons = std::collections::HashMap::new();
    let mut scratch = Vec::new();
    for seed in 0..2000u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut g = Game::new(Italian::start(()), rules);
        loop {
            let p = *g.position();
            let moves = p.legal_moves();
            assert_eq!(p.hash_key(), p.compute_hash(), "hash drift at {p}");
            assert_eq!(Italian::from_setup(&p.to_setup(), ()).unwrap(), p);
            assert_eq!(p.count_moves(&mut scratch), moves.len() as u64, "count at {p}");
            let most = moves.iter().map(|m| m.captured().count_ones()).max();
            for m in &moves {
                assert_eq!(p.parse_move(&p.move_text(m)), Ok(*m), "text of a move at {p}");
                assert_eq!(Some(m.captured().count_ones()), most, "a shorter capture at {p}");
                let mover = p.piece_at(m.from()).expect("a piece moves");
                if !mover.king {
                    let forward = if mover.color == Color::White { 1 } else { -1 };
                    assert!(
                        (m.to().rank() - m.from().rank()) * forward > 0,
                        "a man went back at {p}"
                    );
                    assert_eq!(
                        m.captured() & p.kings(mover.color.opposite()),
                        0,
                        "a man took a king at {p}"
                    );
                }
            }
            if let Some(o) = g.outcome_with(&moves) {
                *reasons.entry(o.reason).or_insert(0) += 1;
                break;
            }
            assert!(!moves.is_empty(), "no legal move but game not over: {p}");
            let m = moves[rng.random_range(0..moves.len())];
            let before = p.occupied().count_ones();
            g.play_unchecked(&m);
            assert_eq!(
                before - g.position().occupied().count_ones(),
                m.captured().count_ones()
            );
        }
    }
    assert!(reasons.len() >= 3, "{reasons:?}");
}
