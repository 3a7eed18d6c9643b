//! The kit on a board of its own: a hundred cells in a `u128`, named by
//! numbers, so that nothing here leans on the 32-square board.

use super::*;
use crate::game::types::Color;

/// A 10x10 board of a hundred cells, numbered 1 to 100 from White's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hundred;

const KEYS: ([u64; 400], u64) = zobrist_keys(0x1234_5678);
const LAST_ROW: u128 = ((1u128 << 10) - 1) << 90;

impl MenKingsGame for Hundred {
    type Set = u128;
    type Cell = usize;
    const PIECE_KEYS: &'static [u64] = &KEYS.0;
    const SIDE_KEY: u64 = KEYS.1;
    const PROMOTION: [u128; 2] = [LAST_ROW, (1u128 << 10) - 1];
}

impl SetupNotation for Hundred {
    const MAX_PIECES: u32 = 20;
    const CELL_WORD: &'static str = "cell";
    const TOKEN_HINT: &'static str = "a number 1 to 100";
    fn cell_name(cell: usize) -> String {
        (cell + 1).to_string()
    }
    fn cell_named(name: &str) -> Option<usize> {
        name.parse::<usize>()
            .ok()
            .filter(|n| (1..=100).contains(n))
            .map(|n| n - 1)
    }
    fn range(a: usize, b: usize) -> Option<Vec<usize>> {
        (a <= b).then(|| (a..=b).collect())
    }
}

type Move = JumpMove<usize, u128, 4>;

const WHITE_MAN: Piece = Piece {
    color: Color::White,
    king: false,
};

#[test]
fn a_board_of_a_hundred_cells_keeps_its_hash_and_crowns_its_men() {
    let mut b = MenKings::<Hundred>::empty();
    b.put(5, WHITE_MAN);
    b.put(84, WHITE_MAN);
    b.put(
        94,
        Piece {
            color: Color::Black,
            king: true,
        },
    );
    b.set_no_progress(7);
    assert_eq!(b.hash(), b.compute_hash());
    // A man's capture onto the last row takes the piece and crowns it.
    let m = Move::from_parts(84, 95, u128::single(94), [95, 0, 0, 0], 1);
    assert!(b.play(&m), "a capture is irreversible");
    assert_eq!(
        b.piece_at(95),
        Some(Piece {
            color: Color::White,
            king: true
        })
    );
    assert_eq!((b.piece_at(84), b.piece_at(94)), (None, None));
    assert_eq!((b.side(), b.no_progress()), (Color::Black, 0));
    assert_eq!(b.hash(), b.compute_hash());
    // A king's step is reversible and counts; a man's is not.
    b.set_side(Color::White);
    assert!(!b.play(&Move::step(95, 96)));
    assert_eq!(b.no_progress(), 1);
    b.set_side(Color::White);
    assert!(b.play(&Move::step(5, 15)));
    assert_eq!(b.no_progress(), 0);
    assert_eq!(b.hash(), b.compute_hash());
    assert_eq!(b.kings(Color::White).iter().collect::<Vec<_>>(), [96]);
    assert_eq!(b.men(Color::White).iter().collect::<Vec<_>>(), [15]);
}

#[test]
fn moves_are_one_move_by_start_end_and_captures_and_read_back_from_text() {
    let captured = u128::single(15) | u128::single(25);
    let a = Move::from_parts(10, 30, captured, [20, 30, 0, 0], 2);
    let b = Move::from_parts(10, 30, captured, [21, 30, 0, 0], 2);
    assert_eq!(a, b, "the landing path is notation only");
    assert_eq!(a.text(|c| (c + 1).to_string()), "11x21x31");
    assert_eq!(Move::step(3, 13).text(|c| (c + 1).to_string()), "4-14");
    let legal = [a, Move::step(3, 13)];
    let cell = |p: &str| Hundred::cell_named(p).ok_or_else(|| format!("'{p}' is no cell"));
    // This board's jumps take the cell halfway along each leg.
    let jumped = |path: &[usize]| {
        Some(
            path.windows(2)
                .fold(0u128, |s, w| s | u128::single((w[0] + w[1]) / 2)),
        )
    };
    let text = |m: &Move| m.text(|c| (c + 1).to_string());
    assert_eq!(
        parse_jump_move("4-14", &legal, cell, jumped, text).unwrap(),
        legal[1]
    );
    assert_eq!(parse_jump_move("11x31", &legal, cell, jumped, text).unwrap(), a);
    // Another path that takes the same pieces names the same move.
    assert_eq!(
        parse_jump_move(" 11x22x31 ", &legal, cell, jumped, text).unwrap(),
        a
    );
    let err = parse_jump_move("11x23x31", &legal, cell, jumped, text)
        .unwrap_err()
        .to_string();
    assert!(err.contains("4-14") && err.contains("11x21x31"), "{err}");
    let err = parse_jump_move("4-101", &legal, cell, jumped, text)
        .unwrap_err()
        .to_string();
    assert!(err.contains("'101' is no cell"), "{err}");
    let mapped = a.map_cells(|c| 99 - c);
    assert_eq!((mapped.from(), mapped.to()), (89, 69));
    assert_eq!(mapped.landings().collect::<Vec<_>>(), [79, 69]);
    assert_eq!(mapped.captured(), u128::single(84) | u128::single(74));
}

#[test]
fn setup_strings_read_back_and_say_what_is_wrong() {
    let b = read_setup::<Hundred>("B:W1,K96,3-5:B50-52:H4").unwrap();
    assert_eq!(setup_text(&b), "B:W1,3,4,5,K96:B50,51,52:H4");
    assert_eq!((b.side(), b.no_progress()), (Color::Black, 4));
    assert_eq!(b.hash(), b.compute_hash());
    let err = |s: &str| read_setup::<Hundred>(s).unwrap_err().to_string();
    assert_eq!(err("W:W1,1:B50"), "cell 1 used twice");
    assert_eq!(err("W:W101:B50"), "bad cell '101' (expected a number 1 to 100)");
    assert_eq!(err("W:W9-3:B50"), "bad cell '9-3' (expected a number 1 to 100)");
    assert_eq!(
        err("W:W95:B50"),
        "a white man on cell 95, its promotion row (it would be a king)"
    );
    assert_eq!(err("W:W20-40:B50"), "white has 21 pieces (at most 20)");
}
