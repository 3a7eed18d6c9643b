//! Hand-checked Dameo positions: the start's 52 moves, steps and line
//! moves, king moves, every capture rule, promotion, notation and bad input.

use super::*;
use crate::game::{perft, Color, GamePosition};

fn pos(setup: &str) -> Position {
    Position::from_setup(setup, ()).unwrap_or_else(|e| panic!("{setup}: {e}"))
}

fn texts(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().map(|m| p.move_text(m)).collect();
    v.sort();
    v
}

fn from_cell<'a>(moves: &'a [String], cell: &str) -> Vec<&'a String> {
    moves.iter().filter(|m| m.starts_with(cell)).collect()
}

#[test]
fn start_has_52_moves_22_steps_and_30_line_moves() {
    let p = Position::start(());
    assert_eq!(p.to_setup(), "W:Wa1-h1,b2-g2,c3-f3:Bc6-f6,b7-g7,a8-h8");
    let moves = p.legal_moves();
    assert_eq!(moves.len(), 52);
    let is_step = |m: &Move| {
        let (df, dr) = (
            (m.to() % 8) as i32 - (m.from() % 8) as i32,
            (m.to() / 8) as i32 - (m.from() / 8) as i32,
        );
        df.abs() <= 1 && dr == 1
    };
    assert_eq!(moves.iter().filter(|m| is_step(m)).count(), 22);
    // Black's start is White's turned: 52 too.
    let mut b = p;
    b.set_side(Color::Black);
    assert_eq!(b.legal_moves().len(), 52);
    assert_eq!(perft(&p, 1), 52);
}

#[test]
fn line_moves_leap_over_the_own_men_ahead() {
    // c1, c2, c3 in a line up the c-file with c4 empty: c3 steps, c2 and
    // c1 leap to c4. A king or an enemy piece ends the line.
    let p = pos("W:Wc1,c2,c3,Kf1,f2:Ba8,f3,f4");
    let m = texts(&p);
    for t in ["c1-c4", "c2-c4", "c3-c4", "c1-b2", "c1-d2"] {
        assert!(m.contains(&t.to_string()), "{t} missing from {m:?}");
    }
    // f2 cannot advance up the f-file past the enemy man on f3, and the
    // king on f1 is not part of a line.
    assert!(!m.iter().any(|t| t.starts_with("f2-f")), "{m:?}");
    let after = p.after(&p.parse_move("c1-c4").unwrap());
    assert_eq!(after.to_setup(), "B:Wc2,f2,c3,c4,Kf1:Bf3,f4,a8");
}

#[test]
fn kings_move_like_a_queen_and_men_step_forward_three_ways() {
    // PlayStrategy's position: each king has 23 moves, each man 3.
    for side in ["W", "B"] {
        let p = pos(&format!("{side}:Wd4,Kc2:Bg5,Kf7"));
        let m = texts(&p);
        let (king, man) = if side == "W" { ("c2", "d4") } else { ("f7", "g5") };
        assert_eq!(from_cell(&m, king).len(), 23, "{m:?}");
        assert_eq!(from_cell(&m, man).len(), 3, "{m:?}");
    }
}

#[test]
fn men_capture_forwards_sideways_and_backwards_but_never_diagonally() {
    for (setup, want) in [
        ("W:Wd4:Bd5", "d4xd6"),
        ("W:Wd4:Be4", "d4xf4"),
        ("W:Wd4:Bd3", "d4xd2"),
        ("B:Wd4:Bd5", "d5xd3"),
    ] {
        assert_eq!(texts(&pos(setup)), [want], "{setup}");
    }
    // A diagonal neighbour is no capture: the man just moves.
    assert!(!pos("W:Wd4:Be5").has_capture());
}

#[test]
fn the_most_captures_are_compulsory_whatever_the_pieces() {
    // PlayStrategy's positions: only d4's two-piece capture; then two
    // equally long ones from d4 and one from c5; a king's long capture
    // counts the same as a man's.
    assert_eq!(texts(&pos("W:Wc5,d2,d4,e1-g1:Bc4,d5,d7,e8-g8")), ["d4xd6xd8"]);
    assert_eq!(texts(&pos("B:Wc5,d2,d4,e1-g1:Bc4,d5,d7,e8-g8")), ["d5xd3xd1"]);
    let m = texts(&pos("W:Wb6,c5,d2,d4,e1-g1:Bb3,c4,d5,d7,e8-g8"));
    assert_eq!(m.len(), 3, "{m:?}");
    assert_eq!(from_cell(&m, "d4").len(), 2);
    assert_eq!(from_cell(&m, "c5").len(), 1);
    // With kings on d4 and d5, the king's leap over c4 may land on b4 or
    // a4, and only from b4 does it go on, over b3 to b2 or b1: three
    // two-piece captures from d4.
    let m = texts(&pos("W:Wb6,c5,d2,e1-g1,Kd4:Bb3,c4,d7,e8-g8,Kd5"));
    assert_eq!(from_cell(&m, "d4"), ["d4xb4xb1", "d4xb4xb2", "d4xd6xd8"]);
    assert_eq!(from_cell(&m, "c5"), ["c5xc3xa3"]);
}

#[test]
fn a_capture_goes_on_to_its_end_and_a_man_ending_on_the_last_row_is_crowned() {
    // PlayStrategy's position: three men each take three up their file.
    let p = pos("W:Wc1,e1,g1:Bc2,c4,c6,e2,e4,e6,g2,g4,g6");
    assert_eq!(texts(&p), ["c1xc3xc5xc7", "e1xe3xe5xe7", "g1xg3xg5xg7"]);
    let after = p.after(&p.parse_move("c1xc3xc5xc7").unwrap());
    assert_eq!(after.to_setup(), "B:We1,g1,c7:Be2,g2,e4,g4,e6,g6");
    // Ending on the last row crowns; passing over it does not.
    let p = pos("W:Wd6:Bd7");
    let after = p.after(&p.legal_moves()[0]);
    assert_eq!(after.to_setup(), "B:WKd8:B");
    let p = pos("W:Wc6:Bc7,d8");
    assert_eq!(texts(&p), ["c6xc8xe8"]);
    assert_eq!(p.after(&p.legal_moves()[0]).to_setup(), "B:WKe8:B");
    let p = pos("W:Wb6:Bb7,c8,d7");
    assert_eq!(texts(&p), ["b6xb8xd8xd6"]);
    assert_eq!(p.after(&p.legal_moves()[0]).to_setup(), "B:Wd6:B");
}

#[test]
fn captured_pieces_stay_until_the_end_and_are_jumped_once() {
    // Round the block: d4 takes d5, e6, f5, e4 and lands on its own
    // (vacated) start; d5, still on the board, cannot be taken again.
    let p = pos("W:Wd4:Bd5,e4,e6,f5");
    assert_eq!(texts(&p), ["d4xd6xf6xf4xd4"], "both ways round are one move");
    let after = p.after(&p.legal_moves()[0]);
    assert_eq!(after.to_setup(), "B:Wd4:B");
    // A king's long leaps up the a-file: over a3 to a4 or a5, then over
    // a6 to a7 or a8; a move is its start, end and captured pieces, so
    // the two ways to a7 are one move (written with the first path found).
    let p = pos("W:WKa1:Ba3,a6");
    assert_eq!(texts(&p), ["a1xa4xa7", "a1xa4xa8"]);
    // A captured piece still stands in the way: after taking e3 the king
    // cannot pass back over it to take e7 and then d8 (three pieces, were
    // e3 removed at once); the most it can take is two.
    let p = pos("W:WKe5:Be3,e7,d8");
    let m = texts(&p);
    assert!(
        !m.is_empty() && m.iter().all(|t| t.matches('x').count() == 2),
        "{m:?}"
    );
}

#[test]
fn a_king_may_pass_back_over_the_cell_it_started_from() {
    // d8 takes d5 (landing d4), c4 (b4), b6 (b8), then runs along rank 8
    // over its own empty start d8 to take g8: four pieces. (gameslib's
    // engine stops the king at its start cell here; see tests/dameo.rs.)
    let p = pos("W:WKd8:Bg2,b3,c4,d5,g5,b6,g6,g7,g8");
    assert!(
        texts(&p).contains(&"d8xd4xb4xb8xh8".to_string()),
        "{:?}",
        texts(&p)
    );
}

#[test]
fn kings_capture_by_long_leap_and_land_anywhere_beyond() {
    let p = pos("W:WKa4:Bd4");
    assert_eq!(texts(&p), ["a4xe4", "a4xf4", "a4xg4", "a4xh4"]);
    // Landing cells end at the next piece; from e4 the king goes on over
    // g4 (the most captures), unless h4 is taken too.
    assert_eq!(texts(&pos("W:WKa4:Bd4,g4")), ["a4xe4xh4"]);
    assert_eq!(texts(&pos("W:WKa4:Bd4,g4,h4")), ["a4xe4", "a4xf4"]);
    // Two pieces in a row cannot be jumped.
    assert!(!pos("W:WKa4:Bd4,e4").has_capture());
}

#[test]
fn notation_reads_back_and_ambiguity_is_reported() {
    let p = pos("W:Wd4:Bd5,e4,e6,f5");
    let m = p.legal_moves();
    assert_eq!(p.parse_move("d4xd4"), Ok(m[0]));
    assert_eq!(
        p.parse_move("d4xf4xf6xd6xd4"),
        Ok(m[0]),
        "another path, same pieces"
    );
    assert!(p.parse_move("d4-d5").is_err());
    let p = Position::start(());
    for m in p.legal_moves() {
        assert_eq!(p.parse_move(&p.move_text(&m)), Ok(m));
    }
    for setup in ["W:Wa1-h1,b2-g2,c3-f3:Bc6-f6,b7-g7,a8-h8", "B:Wa2,Kd4:Bh7,Ka1:H12"] {
        assert_eq!(pos(setup).to_setup(), setup);
    }
}

#[test]
fn bad_setups_get_one_line_errors() {
    for (bad, says) in [
        ("", "empty"),
        ("X:Wa1:Ba8", "side to move"),
        ("W:Wa1", "missing piece field for black"),
        ("W:Wa1:Wb1:Ba8", "given twice"),
        ("W:Wi9:Ba8", "bad cell 'i9'"),
        ("W:Wa1-b2:Ba8", "run along one rank"),
        ("W:Wa1,a1:Ba8", "a1 used twice"),
        ("W:Wa8:Bb8", "promotion row"),
        ("W:Wa1:Bb8:Hx", "counter"),
        ("W:Wa1:H3:Bb8", "must come last"),
        ("W:Wa1-h1,a2-h2,a3-c3:Bh8", "19 pieces"),
    ] {
        let e = Position::from_setup(bad, ()).expect_err(bad).to_string();
        assert!(e.contains(says) && !e.contains('\n'), "{bad}: {e}");
    }
}

#[test]
fn hashes_and_counters_follow_the_moves() {
    let mut rng = crate::util::rng_stream(7, "dameo-test", 0);
    use rand::Rng;
    let mut p = Position::start(());
    for _ in 0..300 {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.random_range(0..moves.len())];
        let king = p.kings(p.side_to_move()) & (1 << m.from()) != 0;
        let before = p.no_progress();
        let irreversible = p.play_unchecked(&m);
        assert_eq!(irreversible, !king || m.is_capture());
        assert_eq!(p.no_progress(), if irreversible { 0 } else { before + 1 });
        assert_eq!(p.hash_key(), p.compute_hash());
        assert_eq!(Position::from_setup(&p.to_setup(), ()), Ok(p));
    }
}

/// `has_moves` (the tactical check's test for a side without a move)
/// agrees with generating the moves: on hand-made blocked positions, and
/// for both sides to move over random playouts.
#[test]
fn has_moves_agrees_with_the_move_list() {
    use crate::game::GamePosition;
    use rand::Rng;
    let mut scratch = Vec::new();
    // White's a2 is walled in (a3, b3 ahead; a3's capture lands on a4,
    // which is taken); Black's king h8 has h7 and g8 free.
    for (setup, white_moves) in [
        ("W:Wa2:Ba3,a4,b3,Kh8", false),
        ("W:Wa2,Kd4:Ba3,a4,b3", true),
        ("W:Wa2:Ba3,a4", true),
    ] {
        let p = pos(setup);
        assert_eq!(p.legal_moves().is_empty(), !white_moves, "{setup}");
        assert_eq!(GamePosition::has_moves(&p, &mut scratch), white_moves, "{setup}");
    }
    let mut rng = crate::util::rng_stream(8, "dameo-has-moves", 0);
    let mut checked = 0;
    for _ in 0..20 {
        let mut p = Position::start(());
        for _ in 0..200 {
            for side in [Color::White, Color::Black] {
                let mut q = p;
                q.set_side(side);
                let any = !q.legal_moves().is_empty();
                assert_eq!(GamePosition::has_moves(&q, &mut scratch), any, "{q}");
                checked += 1;
            }
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p.play_unchecked(&moves[rng.random_range(0..moves.len())]);
        }
    }
    assert!(checked > 2000, "{checked}");
}
