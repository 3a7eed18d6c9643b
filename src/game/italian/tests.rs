use super::*;
use crate::game::perft;
use crate::game::types::Square;
use crate::game::SetupFieldsError;

fn legal_texts(setup: &str) -> Vec<String> {
    let pos = Position::from_setup(setup, ()).unwrap();
    let mut texts: Vec<String> = pos.legal_moves().iter().map(|m| pos.move_text(m)).collect();
    texts.sort();
    texts
}

/// Start and end squares of the legal moves, as the federation writes a
/// capture in its rule book (`31x8`).
fn legal_ends(setup: &str) -> Vec<String> {
    let pos = Position::from_setup(setup, ()).unwrap();
    let mut ends: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| format!("{}x{}", square_number(m.from()), square_number(m.to())))
        .collect();
    ends.sort();
    ends
}

#[test]
fn square_numbers_follow_the_federation() {
    let name = |n| square_of_number(n).unwrap().to_string();
    assert_eq!(name(1), "a8");
    assert_eq!(name(4), "g8");
    assert_eq!(name(5), "b7");
    assert_eq!(name(29), "b1");
    assert_eq!(name(32), "h1");
    for s in Square::all() {
        assert_eq!(square_of_number(square_number(s) as u32), Some(s));
    }
    assert_eq!(square_of_number(0), None);
    assert_eq!(square_of_number(33), None);
}

#[test]
fn start_position_and_its_seven_moves() {
    let p = Position::start(());
    assert_eq!(
        p.to_setup(),
        "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    );
    assert_eq!(Position::from_setup("W:W21-32:B1-12", ()).unwrap(), p);
    assert_eq!(
        legal_texts(&p.to_setup()),
        ["21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"]
    );
}

// The federation's rule book, articles 5.6 to 6.10 (positions as the dctl
// library's tests give them).

#[test]
fn a_man_captures_forward_only() {
    // Art. 5.6: the man on 30 takes 27 forward; nothing backward.
    assert_eq!(legal_ends("W:W30:B27"), ["30x23"]);
    assert_eq!(legal_ends("W:W22:B27,18"), ["22x13"]);
}

#[test]
fn a_man_continues_while_it_can() {
    // Art. 5.7.
    assert_eq!(legal_ends("W:W31:B12,20,28"), ["31x8"]);
}

#[test]
fn a_king_captures_in_all_four_directions() {
    // Art. 5.8.
    assert_eq!(legal_ends("W:WK22:B18,19,27"), ["22x13", "22x15", "22x31"]);
}

#[test]
fn a_king_continues_while_it_can() {
    // Art. 5.9.
    assert_eq!(legal_ends("W:WK27:B5,6,13,15,21,23"), ["27x25"]);
}

#[test]
fn a_man_never_takes_a_king() {
    assert_eq!(legal_texts("W:W22:BK18"), ["22-19"]);
}

#[test]
fn precedence_most_pieces() {
    // Art. 6.6: the man's two pieces beat the king's one.
    assert_eq!(legal_ends("W:WK21,31:B10,18,27"), ["31x6"]);
}

#[test]
fn precedence_with_a_king() {
    // Art. 6.7: as many pieces either way, so the king must take.
    assert_eq!(legal_ends("W:WK23,31:B19,26,27"), ["23x21"]);
}

#[test]
fn precedence_most_kings() {
    // Art. 6.8.
    assert_eq!(legal_ends("W:WK23:B19,K28"), ["23x32"]);
}

#[test]
fn precedence_earliest_king() {
    // Art. 6.9.
    assert_eq!(legal_ends("W:WK30:B10,12,18,K20,K26,27"), ["30x5"]);
}

#[test]
fn equivalent_captures_are_both_legal() {
    // Art. 6.10.
    assert_eq!(legal_ends("W:WK31:B18,20,K27,K28"), ["31x13", "31x15"]);
}

#[test]
fn promotion_ends_the_move_and_crowns() {
    let mut p = Position::from_setup("W:W6:B2", ()).unwrap();
    let m = p.parse_move("6-3").unwrap();
    assert!(p.play_unchecked(&m));
    assert_eq!(p.to_setup(), "B:WK3:B2");
    // A man taking onto the last row stops there, though a king could go on.
    assert_eq!(legal_texts("W:W10:B6,7"), ["10x3"]);
}

#[test]
fn counters_hash_and_irreversibility() {
    let mut p = Position::from_setup("W:WK14,22:B3:H5", ()).unwrap();
    assert_eq!(p.no_progress(), 5);
    assert_eq!(p.to_setup(), "W:WK14,22:B3:H5");
    let king_step = p.parse_move("14-10").unwrap();
    assert!(!p.play_unchecked(&king_step));
    assert_eq!(p.no_progress(), 6);
    assert_eq!(p.hash_key(), p.compute_hash());
    let man_step = p.parse_move("3-7").unwrap();
    assert!(p.play_unchecked(&man_step));
    assert_eq!(p.no_progress(), 0);
    assert_eq!(p.hash_key(), p.compute_hash());
}

#[test]
fn bad_setup_strings_get_one_line_errors() {
    let e = |s: &str| Position::from_setup(s, ()).unwrap_err();
    assert_eq!(e(""), SetupError::Fields(SetupFieldsError::Empty));
    assert_eq!(
        e("X:W21:B1"),
        SetupError::Fields(SetupFieldsError::BadSideToMove("X".into()))
    );
    assert_eq!(
        e("W:W21"),
        SetupError::Fields(SetupFieldsError::MissingSide("black", 'B'))
    );
    assert_eq!(
        e("W:W21:W22:B1"),
        SetupError::Fields(SetupFieldsError::DuplicateSide("white"))
    );
    assert_eq!(
        e("W:W21:B1:Q"),
        SetupError::Fields(SetupFieldsError::BadField("Q".into()))
    );
    let text = |s: &str| e(s).to_string();
    let hint = "(expected a square number 1 to 32, K before a king, or a range like 21-32)";
    assert_eq!(text("W:W33:B1"), format!("bad square '33' {hint}"));
    assert_eq!(text("W:Wh1:B1"), format!("bad square 'h1' {hint}"));
    assert_eq!(text("W:W12-9:B1"), format!("bad square '12-9' {hint}"));
    assert_eq!(text("W:W21,K21:B1"), "square 21 used twice");
    assert_eq!(
        text("W:W3:B1"),
        "a white man on square 3, its promotion row (it would be a king)"
    );
    assert!(text("W:W21:B30").starts_with("a black man on square 30,"));
    assert_eq!(
        e("W:W21:B1:Hx"),
        SetupError::Fields(SetupFieldsError::BadCounter("Hx".into()))
    );
    assert_eq!(
        e("W:W21:H3:B1"),
        SetupError::Fields(SetupFieldsError::CounterNotLast("H3".into()))
    );
    assert_eq!(text("W:W5-17:B1"), "white has 13 pieces (at most 12)");
    for s in ["", "X", "W:W21:B1:Q", "W:W33:B1"] {
        assert!(!e(s).to_string().contains('\n'));
    }
}

#[test]
fn bad_moves_get_one_line_errors() {
    let p = Position::start(());
    let err = |t: &str| p.parse_move(t).unwrap_err().to_string();
    assert!(err("21-19").starts_with("illegal move '21-19'; legal moves: "));
    assert!(err("e3-f4").contains("not a square number"));
    assert!(err("21").contains("expected squares joined"));
    assert!(err("21-17x13").contains("mixes"));
    let two_ways = Position::from_setup("W:WK31:B18,20,K27,K28", ()).unwrap();
    assert_eq!(two_ways.parse_move("31x24x15").unwrap().to().to_string(), "f5");
    assert!(two_ways.parse_move("31x22").is_err());
}

#[test]
fn perft_from_the_start_to_depth_7() {
    // The published counts (the draughts community's perft thread, as the
    // dctl library's tests list them); deeper in tests/perft.rs.
    let want = [7, 49, 302, 1_469, 7_361, 36_473, 177_532];
    let p = Position::start(());
    for (d, w) in want.iter().enumerate() {
        assert_eq!(perft(&p, d as u32 + 1), *w, "depth {}", d + 1);
    }
}
