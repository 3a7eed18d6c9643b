//! One test per precedence rule, rank restriction, promotion rule and
//! end-of-game rule of docs/rules.md, plus notation and PDN checks.

use damone::game::damone::*;
use damone::game::{
    to_pdn, Color, DrawRules, EndReason, Game, GamePosition, Outcome, ParseMoveError, PdnHeaders, Square,
};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, Variant::Standard).unwrap()
}

fn moves(fen: &str) -> Vec<String> {
    let mut v: Vec<String> = pos(fen).legal_moves().iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn piece(p: &Position, sq: &str) -> Option<Piece> {
    p.piece_at(Square::parse(sq).unwrap())
}

// ---------------------------------------------------------------- precedence

#[test]
fn precedence_1_most_pieces_two_pedine_beat_one_dama() {
    // The Dama on e4 could take the Dama on f5 (one piece); the Pedina on b3
    // takes two Pedine, which wins.
    assert_eq!(moves("W:WDe4,b3:BDf5,c4,e6"), ["b3xd5xf7"]);
}

#[test]
fn precedence_1_most_pieces_two_damas_beat_one_damone() {
    assert_eq!(moves("W:WIe4,Dc2,g2,d1:BIf5,Dd5,b7,h7,Dd7"), ["e4xc6xe8"]);
}

#[test]
fn precedence_2_damone_capture_beats_dama_and_pedina() {
    assert_eq!(moves("W:WIf1,Dg4,b3:Bc4,f5,g2"), ["f1xh3"]);
}

#[test]
fn precedence_2_dama_capture_beats_pedina() {
    assert_eq!(moves("W:WDg4,b3:Bc4,f5,g2"), ["g4xe6"]);
}

#[test]
fn precedence_3_higher_captured_rank_wins() {
    assert_eq!(moves("W:WIe4:BDf5,d3"), ["e4xg6"]);
    assert_eq!(moves("W:WIe4:BIf5,Dd3"), ["e4xg6"]);
}

#[test]
fn precedence_3_more_of_the_highest_rank_wins() {
    // I+D+D (via f5, f7) beats I+P+D (via d5, b7).
    assert_eq!(moves("W:WIc2:BId3,Df5,Df7,d5,Db7"), ["c2xe4xg6xe8"]);
}

#[test]
fn precedence_4_ties_are_the_players_choice() {
    assert_eq!(moves("W:WDe4:Bf5,d5"), ["e4xc6", "e4xg6"]);
}

#[test]
fn capture_is_compulsory_and_continues() {
    let m = moves("W:WDe4,h1:Bf5,f7");
    assert_eq!(m, ["e4xg6xe8"]);
}

#[test]
fn same_start_end_and_captured_set_is_one_move() {
    // The Damone circles the four Pedine clockwise or anticlockwise; both
    // paths are the same move. Its start square counts as empty.
    let p = pos("W:WIe2:Bf3,f5,d5,d3,Ia8");
    let ms = p.legal_moves();
    assert_eq!(ms.len(), 1);
    assert_eq!(ms[0].captured().count_ones(), 4);
    assert_eq!(ms[0].from(), ms[0].to());
}

// ---------------------------------------------------------------- ranks

#[test]
fn pedina_cannot_capture_a_dama() {
    assert_eq!(moves("W:We4:BDf5"), ["e4-d3", "e4-d5"]);
}

#[test]
fn dama_cannot_capture_a_damone() {
    assert_eq!(moves("W:WDe4:BIf5"), ["e4-d3", "e4-d5", "e4-f3"]);
}

#[test]
fn damone_captures_a_damone() {
    assert_eq!(moves("W:WIe4:BIf5"), ["e4xg6"]);
}

#[test]
fn pedina_moves_forward_and_sideways_only() {
    assert_eq!(moves("W:We4:Ba8"), ["e4-d3", "e4-d5", "e4-f5"]);
    assert_eq!(moves("B:Wh1:Be4"), ["e4-d3", "e4-f3", "e4-f5"]);
}

#[test]
fn pedina_captures_sideways_but_not_backward() {
    assert_eq!(moves("W:We4:Bf3"), ["e4-d3", "e4-d5", "e4-f5"]);
    assert_eq!(moves("W:We4:Bd3"), ["e4xc2"]);
    assert_eq!(moves("B:Wf3:Be4"), ["e4xg2"]);
}

#[test]
fn dama_and_damone_move_one_square_in_all_four_directions() {
    assert_eq!(moves("W:WDe4:Ba8"), ["e4-d3", "e4-d5", "e4-f3", "e4-f5"]);
    assert_eq!(moves("W:WIe4:Ba8"), ["e4-d3", "e4-d5", "e4-f3", "e4-f5"]);
}

// ---------------------------------------------------------------- promotion

fn after(fen: &str, mv: &str) -> Position {
    let p = pos(fen);
    let m = parse_move(&p, mv).unwrap();
    p.after(&m)
}

#[test]
fn pedina_promotes_on_enemy_dama_squares() {
    let p = after("W:Wb5:Bg2", "b5-a6");
    assert_eq!(piece(&p, "a6").unwrap().rank, Rank::Dama);
    assert_eq!(p.no_progress(), 0);
    let p = after("B:Wb1:Bg2", "g2-f1");
    assert_eq!(piece(&p, "f1").unwrap().rank, Rank::Dama);
}

#[test]
fn pedina_on_the_enemy_damone_corner_does_not_promote() {
    let p = after("W:Wb7:Bg2", "b7-a8");
    assert_eq!(piece(&p, "a8").unwrap().rank, Rank::Pedina);
    let p = after("B:Wb1:Bg2", "g2-h1");
    assert_eq!(piece(&p, "h1").unwrap().rank, Rank::Pedina);
}

#[test]
fn dama_promotes_on_enemy_damone_square() {
    let p = after("W:WDb7:Bg2", "b7-a8");
    assert_eq!(piece(&p, "a8").unwrap().rank, Rank::Damone);
    let p = after("B:Wb1:BDg2", "g2-h1");
    assert_eq!(piece(&p, "h1").unwrap().rank, Rank::Damone);
}

#[test]
fn promotion_happens_only_when_the_move_ends() {
    // The Pedina lands on c8 mid-capture and is still a Pedina, so it may not
    // go on to take the Dama on b7; it promotes when the move ends there.
    assert_eq!(moves("W:We6:Bd7,Db7"), ["e6xc8"]);
    let p = after("W:We6:Bd7,Db7", "e6xc8");
    assert_eq!(piece(&p, "c8").unwrap().rank, Rank::Dama);
    assert!(piece(&p, "b7").is_some());
}

#[test]
fn three_damas_has_three_pedina_promotion_squares() {
    let p = Position::from_fen("W:Wa6:Bg2", Variant::ThreeDamas).unwrap();
    let m = parse_move(&p, "a6-b7").unwrap();
    assert_eq!(piece(&p.after(&m), "b7").unwrap().rank, Rank::Dama);
    let p = Position::from_fen("W:Wa6:Bg2", Variant::Standard).unwrap();
    let m = parse_move(&p, "a6-b7").unwrap();
    assert_eq!(piece(&p.after(&m), "b7").unwrap().rank, Rank::Pedina);
}

// ---------------------------------------------------------------- game end

fn game(fen: &str, v: Variant, rules: DrawRules) -> Game<Position> {
    Game::new(Position::from_fen(fen, v).unwrap(), rules)
}

#[test]
fn no_pieces_loses() {
    let g = game("W:W:BIa8", Variant::Standard, DrawRules::default());
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Black),
            reason: EndReason::NoMoves
        })
    );
}

#[test]
fn blocked_loses() {
    let g = game("W:Wa8:BIh1", Variant::Standard, DrawRules::default());
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: Some(Color::Black),
            reason: EndReason::NoMoves
        })
    );
}

#[test]
fn damone_hunt_losing_all_damones_loses_at_once() {
    let fen = "W:WIh1,d1:Ba8,b7";
    assert_eq!(
        game(fen, Variant::DamoneHunt, DrawRules::default()).outcome(),
        Some(Outcome {
            winner: Some(Color::White),
            reason: EndReason::Rules("damone_lost")
        })
    );
    assert_eq!(game(fen, Variant::Standard, DrawRules::default()).outcome(), None);
}

#[test]
fn threefold_repetition_draws() {
    let mut g = game("W:WIh1:BIa8", Variant::Standard, DrawRules::default());
    for (i, mv) in [
        "h1-g2", "a8-b7", "g2-h1", "b7-a8", "h1-g2", "a8-b7", "g2-h1", "b7-a8",
    ]
    .iter()
    .enumerate()
    {
        assert_eq!(g.outcome(), None, "ply {i}");
        let m = parse_move(g.position(), mv).unwrap();
        g.play(&m).unwrap();
    }
    assert_eq!(g.repetitions(), 3);
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::Repetition
        })
    );
}

#[test]
fn no_progress_limit_draws_and_captures_reset_it() {
    let rules = DrawRules {
        no_progress_plies: 4,
        max_plies: 400,
    };
    let mut g = game("W:WIh1:BIa8", Variant::Standard, rules);
    for mv in ["h1-g2", "a8-b7", "g2-f3", "b7-c6"] {
        assert_eq!(g.outcome(), None);
        let m = parse_move(g.position(), mv).unwrap();
        g.play(&m).unwrap();
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::NoProgress
        })
    );
    let mut g = game("W:WIe4,h1:BDf5,a8", Variant::Standard, rules);
    g.play(&parse_move(g.position(), "e4xg6").unwrap()).unwrap();
    assert_eq!(g.position().no_progress(), 0);
}

#[test]
fn max_plies_cap_draws() {
    let rules = DrawRules {
        no_progress_plies: 100,
        max_plies: 3,
    };
    let mut g = game("W:WIh1:BIa8", Variant::Standard, rules);
    for mv in ["h1-g2", "a8-b7", "g2-f3"] {
        assert_eq!(g.outcome(), None);
        g.play(&parse_move(g.position(), mv).unwrap()).unwrap();
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::MaxPlies
        })
    );
}

// ---------------------------------------------------------------- notation

#[test]
fn move_parsing_matches_legal_moves() {
    let p = pos("W:WIe2:Bf3,f5,d5,d3,Ia8");
    // Either direction round the square is the same move.
    let a = parse_move(&p, "e2xg4xe6xc4xe2").unwrap();
    let b = parse_move(&p, "e2xc4xe6xg4xe2").unwrap();
    assert_eq!(a, b);
    assert_eq!(parse_move(&p, "e2xe2").unwrap(), a);
    let p = Position::start(Variant::Standard);
    assert_eq!(parse_move(&p, "f3-e4").unwrap().to_string(), "f3-e4");
}

#[test]
fn move_parse_errors_are_clear() {
    let p = Position::start(Variant::Standard);
    let e = parse_move(&p, "f3-f4").unwrap_err().to_string();
    assert!(e.contains("light square"), "{e}");
    let e = parse_move(&p, "f3-g4").unwrap_err();
    match e {
        ParseMoveError::Illegal(_, legal) => assert_eq!(legal.len(), 8),
        other => panic!("{other}"),
    }
    assert!(matches!(parse_move(&p, "zz"), Err(ParseMoveError::Syntax(..))));
    assert!(matches!(
        parse_move(&p, "f3-e4xd5"),
        Err(ParseMoveError::Syntax(..))
    ));
    assert!(matches!(parse_move(&p, "q3-e4"), Err(ParseMoveError::Syntax(..))));
    let p = pos("W:WDe4:Bf5,d5");
    assert!(parse_move(&p, "e4xc6").is_ok());
}

#[test]
fn pdn_export_has_headers_moves_and_result() {
    let mut g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    for mv in ["f3-e4", "c6-d5"] {
        g.play(&parse_move(g.position(), mv).unwrap()).unwrap();
    }
    let h = PdnHeaders {
        white: "alice".into(),
        black: "bob".into(),
        ..Default::default()
    };
    let pdn = to_pdn(&g, None, &h);
    assert!(pdn.contains("[White \"alice\"]"));
    assert!(pdn.contains("[Result \"*\"]"));
    assert!(pdn.contains("1. f3-e4 c6-d5 *"), "{pdn}");
    assert!(!pdn.contains("[FEN"));
    let g = game("B:WIh1:BIa8", Variant::Standard, DrawRules::default());
    let o = Outcome {
        winner: None,
        reason: EndReason::Repetition,
    };
    let pdn = to_pdn(&g, Some(&o), &PdnHeaders::default());
    assert!(pdn.contains("[FEN \"B:WIh1:BIa8\"]"));
    assert!(pdn.contains("[Result \"1/2-1/2\"]"));
}

// ------------------------------------------------- docs/rules.md's examples

/// Every example position of docs/rules.md has the legal moves the page
/// says it has.
#[test]
fn the_rules_pages_examples_hold() {
    let cases: [(&str, &[&str]); 7] = [
        ("W:WDf3,d3:Bc4,c6,Dg4", &["d3xb5xd7"]),
        ("W:WIf3,d3:Bc4,g4", &["f3xh5"]),
        ("W:WIf3:Bg4,De4", &["f3xd5"]),
        ("W:Wd3:BDc4", &["d3-c2", "d3-e4"]),
        ("W:We6:Bd7,b7,Ia8", &["e6xc8xa6"]),
        ("W:Wb7:Ba4", &["b7-a6", "b7-a8", "b7-c8"]),
        ("W:WDb7:Ba4", &["b7-a6", "b7-a8", "b7-c6", "b7-c8"]),
    ];
    for (fen, want) in cases {
        assert_eq!(moves(fen), want, "{fen}");
    }
    let after = |fen: &str, mv: &str| {
        let p = pos(fen);
        p.after(&parse_move(&p, mv).unwrap())
    };
    let a6 = after("W:We6:Bd7,b7,Ia8", "e6xc8xa6");
    assert_eq!(piece(&a6, "a6").map(|p| p.rank), Some(Rank::Dama));
    assert_eq!(
        piece(&after("W:Wb7:Ba4", "b7-a8"), "a8").map(|p| p.rank),
        Some(Rank::Pedina)
    );
    assert_eq!(
        piece(&after("W:WDb7:Ba4", "b7-a8"), "a8").map(|p| p.rank),
        Some(Rank::Damone)
    );
    let blocked = Game::new(pos("W:Wh1:Bg2,f3"), DrawRules::default());
    let o = blocked.outcome().expect("over");
    assert_eq!((o.pdn_result(), o.reason.name()), ("0-1", "no_moves"));
}
