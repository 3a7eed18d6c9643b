//! Tests of the tablebases: every table of up to 3 pieces built, verified,
//! checked against hand-analysed endings, the rules' symmetry, and played
//! out move by move.

use super::*;
use crate::game::{
    dameo,
    damone::{Position, Variant},
    italian, GamePosition,
};
use crate::util::rng_stream;
use rand::Rng as _;
use std::sync::OnceLock;

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("damone-tb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Every table of up to 3 pieces, built once for the tests (limit 80).
fn three() -> &'static (Tablebase<Position>, PathBuf) {
    static TB: OnceLock<(Tablebase<Position>, PathBuf)> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = tmpdir("three");
        let opts = BuildOptions {
            max_pieces: 3,
            limit: 80,
            dir: dir.clone(),
        };
        let tb = build::<Position>(&opts, &mut |_, _, _| {}).unwrap();
        (tb, dir)
    })
}

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, Variant::Standard).unwrap()
}

#[test]
fn every_table_of_three_pieces_passes_the_verifier() {
    let (tb, dir) = three();
    assert_eq!(tb.max_pieces(), 3);
    // 9 balances of 2 pieces, 36 of 3.
    assert_eq!(tb.materials().len(), 45);
    let report = verify(tb, &mut |_, _, _| {}).unwrap();
    assert_eq!(report.tables, 45);
    assert_eq!(report.mismatches, 0, "{:?}", report.examples);
    assert!(report.positions > 500_000, "{}", report.positions);
    // The same from the files, memory-mapped.
    let opened = Tablebase::<Position>::open(dir, true).unwrap();
    assert_eq!(opened.limit(), 80);
    assert_eq!(opened.materials(), tb.materials());
    let p = pos("W:WIf3:Bg4,Dd5");
    assert_eq!(opened.probe(&p), tb.probe(&p));
}

#[test]
fn a_wrong_entry_is_found_by_the_verifier() {
    let (tb, dir) = three();
    let mut copy = Tablebase::<Position>::open(dir, false).unwrap();
    let m = Material::parse::<Position>("IvDP").unwrap();
    let i = m.index(&pos("W:WIa2:BDd5,b7"));
    let Some(Table {
        entries: file::Entries::Memory(bytes),
    }) = copy.tables.get_mut(&m)
    else {
        panic!("IvDP read into memory");
    };
    let at = bytes.len() - 4 - m.table_len::<Position>() as usize + i as usize;
    let was = Value::from_byte(bytes[at]).unwrap();
    let wrong = if was == Value::Draw {
        Value::Win(3)
    } else {
        Value::Draw
    };
    bytes[at] = wrong.to_byte();
    let report = verify(&copy, &mut |_, _, _| {}).unwrap();
    assert!(report.mismatches >= 1, "{report:?}");
    assert_eq!(tb.probe(&pos("W:WIa2:BDd5,b7")), Some(was));
}

#[test]
fn hand_analysed_endings() {
    let (tb, _) = three();
    // White's only Pedina is blocked: its one step is taken and its jump
    // lands on an occupied square (the rules' example).
    assert_eq!(tb.probe(&pos("W:Wh1:Bg2,f3")), Some(Value::Loss(0)));
    // The Damone takes the last Black piece.
    assert_eq!(tb.probe(&pos("W:WIf3:Bg4")), Some(Value::Win(1)));
    // A Black Pedina on h1 has no move at all (its forward and sideways
    // squares are off the board): whatever White plays, Black is lost.
    assert_eq!(tb.probe(&pos("W:WIa8:Bh1")), Some(Value::Win(1)));
    assert_eq!(tb.probe(&pos("B:WIa8:Bh1")), Some(Value::Loss(0)));
    // The same with the counter at the limit: no move is left to play,
    // so the game is drawn before White moves; Black without a move loses
    // even then.
    let mut p = pos("W:WIa8:Bh1");
    p.set_no_progress(80);
    assert_eq!(tb.probe(&p), Some(Value::Draw));
    let mut p = pos("B:WIa8:Bh1");
    p.set_no_progress(80);
    assert_eq!(tb.probe(&p), Some(Value::Loss(0)));
    // A Pedina cannot take a Dama (the rank rule): no capture here.
    let v = tb.move_values(&pos("W:Wd3:BDc4")).unwrap();
    let moves: Vec<String> = v.iter().map(|(m, _)| m.to_string()).collect();
    assert_eq!(moves.len(), 2, "{moves:?}");
    // Another variant, or more pieces than the tables hold: no value.
    let hunt = Position::from_fen("W:WIf3:Bg4", Variant::DamoneHunt).unwrap();
    assert_eq!(tb.probe(&hunt), None);
    assert_eq!(tb.probe(&pos("W:WIf3,Dg2:Bg4,Dd5")), None);
}

#[test]
fn values_keep_the_rules_symmetry() {
    let (tb, _) = three();
    let mut checked = 0;
    for m in tb.materials() {
        for i in (0..m.table_len::<Position>()).step_by(7) {
            if let Some(p) = m.position::<Position>(i) {
                assert_eq!(tb.entry(&p), tb.entry(&p.reflect()), "{}", p.to_fen());
                assert_eq!(tb.entry(&p), tb.entry(&p.rotate_swap()), "{}", p.to_fen());
                checked += 1;
            }
        }
    }
    assert!(checked > 50_000, "{checked}");
}

/// From `count` won positions of `balance`, the winner's best moves
/// against the loser's best defence bring the distance down one ply at a
/// time to a conversion, after which the winner still wins.
fn won_positions_play_out<P: TableGame>(tb: &Tablebase<P>, balance: &str, count: usize) {
    let mut rng = rng_stream(5, "tb-playout", 0);
    let m = Material::parse::<P>(balance).unwrap();
    let (mut played, mut tries) = (0, 0);
    while played < count {
        tries += 1;
        assert!(tries < 1_000_000, "{balance}: too few won positions");
        let Some(start) = m.position::<P>(rng.random_range(0..m.table_len::<P>())) else {
            continue;
        };
        let Some(Value::Win(d)) = tb.probe(&start) else {
            continue;
        };
        let winner = start.side_to_move();
        let mut p = start;
        let mut left = d;
        loop {
            let moves = tb.move_values(&p).unwrap();
            let (best, v) = moves[0];
            assert_eq!(v.plies(), left, "{}", p.to_setup());
            let mut child = p;
            if child.play_unchecked(&best) {
                assert_eq!(left, 1);
                let after = tb.probe(&child).unwrap();
                assert!(matches!(after, Value::Loss(_)) == (child.side_to_move() != winner));
                break;
            }
            p = child;
            left -= 1;
            if left == 0 {
                assert!(p.legal_moves().is_empty(), "{}", p.to_setup());
                break;
            }
        }
        played += 1;
    }
}

#[test]
fn won_positions_play_out_to_their_conversion() {
    won_positions_play_out(&three().0, "IvDP", 40);
}

#[test]
fn a_second_build_keeps_the_tables_and_a_damaged_file_is_refused() {
    let dir = tmpdir("keep");
    let opts = BuildOptions {
        max_pieces: 2,
        limit: 80,
        dir: dir.clone(),
    };
    let mut kept = Vec::new();
    build::<Position>(&opts, &mut |r, _, _| kept.push(r.kept)).unwrap();
    assert_eq!(kept, vec![false; 9]);
    kept.clear();
    build::<Position>(&opts, &mut |r, _, _| kept.push(r.kept)).unwrap();
    assert_eq!(kept, vec![true; 9]);
    // A flipped byte: the checksum finds it.
    let path = table_path::<Position>(&dir, &Material::parse::<Position>("IvP").unwrap());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let e = Tablebase::<Position>::open(&dir, false)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("checksum mismatch"), "{e}");
    assert!(!e.contains('\n'));
    // Bad options.
    let bad = |pieces, limit| {
        let o = BuildOptions {
            max_pieces: pieces,
            limit,
            dir: dir.clone(),
        };
        build::<Position>(&o, &mut |_, _, _| {})
            .err()
            .unwrap()
            .to_string()
    };
    assert!(bad(6, 80).contains("2 to 5 pieces"));
    assert!(bad(3, 0).contains("not possible"));
    assert!(bad(3, 200).contains("not possible"));
    let empty = tmpdir("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = Tablebase::<Position>::open(&empty, false)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("tablebase build"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}

/// A search given the tables treats a position they cover as a finished
/// game: the root's only move (a compulsory capture into a 3-piece
/// ending) is proven with the table's value at once, and no simulation
/// goes below it.
#[test]
fn a_search_with_the_tables_proves_a_capture_into_them() {
    use crate::game::{DrawRules, Game};
    use crate::mcts::{search, ExactValues, SearchParams, Tree, UniformEvaluator, Wdl};
    use std::sync::Arc;
    let (tb, dir) = three();
    let tables: Arc<dyn ExactValues<Position>> = Arc::new(Tablebase::<Position>::open(dir, false).unwrap());
    let start = pos("W:WIf3,Dd1:Bg4,b7");
    let moves = start.legal_moves();
    assert_eq!(moves.len(), 1, "f3xh5 is compulsory");
    let expected = match tb.probe(&start.after(&moves[0])).unwrap() {
        Value::Win(_) => Wdl::LOSS,
        Value::Draw => Wdl::DRAW,
        Value::Loss(_) => Wdl::WIN,
    };
    let game = Game::new(start, DrawRules::default());
    let params = SearchParams {
        simulations: 64,
        solver: true,
        ..SearchParams::default()
    };
    let mut with = Tree::new(&game, params.clone(), rng_stream(1, "t", 0));
    with.set_exact_values(Some(tables));
    search(&mut with, &mut UniformEvaluator).unwrap();
    assert_eq!(with.proven_value(), Some(expected));
    assert_eq!(with.node_count(), 2);
    let mut without = Tree::new(&game, params, rng_stream(1, "t", 0));
    search(&mut without, &mut UniformEvaluator).unwrap();
    assert!(without.node_count() > 2);
}

/// Self-play given the tables ends a game at the first position they
/// cover, with the table's result as every sample's outcome.
#[test]
fn self_play_ends_games_the_tables_cover_with_their_result() {
    use crate::game::{Color, DrawRules, EndReason};
    use crate::mcts::{ExactValues, SearchParams, UniformEvaluator, Wdl};
    use crate::selfplay::{SelfPlay, SelfPlayConfig};
    use std::sync::Arc;
    let (tb, dir) = three();
    let start = pos("W:WIf3,Dd1:Bg4,b7");
    let after = start.after(&start.legal_moves()[0]);
    let (winner, z) = match tb.probe(&after).unwrap() {
        Value::Win(_) => (Some(Color::Black), Wdl::LOSS),
        Value::Draw => (None, Wdl::DRAW),
        Value::Loss(_) => (Some(Color::White), Wdl::WIN),
    };
    let cfg = SelfPlayConfig {
        games_per_iteration: 4,
        parallel_games: 4,
        full_sims: 8,
        cheap_sims: 4,
        opening_plies: 0,
        skip_forced: false,
        ..SelfPlayConfig::default()
    };
    let tables: Arc<dyn ExactValues<Position>> = Arc::new(Tablebase::<Position>::open(dir, false).unwrap());
    let mut sp = SelfPlay::new(&cfg, start, DrawRules::default(), 1);
    sp.set_exact_values(Some(tables));
    sp.keep_finished_games();
    let search = SearchParams::default();
    let (samples, stats) =
        sp.run_iteration(&search, &cfg, &mut UniformEvaluator, 2, &mut |_| {}, &mut |_| {});
    assert!(stats.games >= 4);
    let games = sp.take_finished_games();
    assert!(games.len() >= 4);
    for (g, o) in &games {
        assert_eq!(g.moves().len(), 1);
        assert_eq!((o.reason, o.winner), (EndReason::Tablebase, winner));
    }
    assert!(!samples.is_empty());
    for s in &samples {
        assert_eq!(s.z, z);
        assert!(s.aux.is_none(), "an adjudicated game is not played out");
    }
}

/// A player given the tables wins every won position it starts from,
/// against alpha-beta at depth 6: at a covered position it plays the
/// tables' move, the nearest conversion.
#[test]
fn a_player_with_the_tables_converts_won_positions() {
    use crate::arena::{AlphaBeta, Limits, MctsPlayer, Player};
    use crate::game::{DrawRules, Game};
    use crate::mcts::{ExactValues, SearchParams};
    use std::sync::Arc;
    let (tb, dir) = three();
    let tables: Arc<dyn ExactValues<Position>> = Arc::new(Tablebase::<Position>::open(dir, false).unwrap());
    let m = Material::parse::<Position>("IvDP").unwrap();
    let mut rng = rng_stream(9, "tb-games", 0);
    let mut won = 0u64;
    while won < 20 {
        let Some(start) = m.position::<Position>(rng.random_range(0..m.table_len::<Position>())) else {
            continue;
        };
        if !matches!(tb.probe(&start), Some(Value::Win(_))) {
            continue;
        }
        let params = SearchParams {
            simulations: 50,
            ..SearchParams::plain()
        };
        let mut me = MctsPlayer::new("mcts".into(), params, 1, rng_stream(won, "p", 0))
            .with_exact_values(Some(tables.clone()));
        let depth6 = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let mut them = AlphaBeta::new("alphabeta".into(), depth6);
        let mut game = Game::new(start, DrawRules::default());
        while game.outcome().is_none() {
            let mover: &mut dyn Player<Position> = if game.position().side_to_move() == start.side_to_move() {
                &mut me
            } else {
                &mut them
            };
            let mv = mover.choose(&game);
            game.play_unchecked(&mv);
            me.observe(&mv);
            them.observe(&mv);
        }
        let o = game.outcome().unwrap();
        assert_eq!(o.winner, Some(start.side_to_move()), "{} {o:?}", start.to_fen());
        won += 1;
    }
}

/// At a drawn position the tables cover, a player given them searches it
/// (drawn positions are not finished games to its search) and never plays
/// a move the tables call lost.
#[test]
fn a_player_with_the_tables_keeps_drawn_positions_drawn() {
    use crate::arena::{MctsPlayer, Player};
    use crate::game::{DrawRules, Game};
    use crate::mcts::{DecisiveOnly, ExactValues, SearchParams};
    use std::sync::Arc;
    let (tb, dir) = three();
    let tables: Arc<dyn ExactValues<Position>> = Arc::new(Tablebase::<Position>::open(dir, false).unwrap());
    let decisive = DecisiveOnly(tables.clone());
    let materials = tb.materials();
    let mut rng = rng_stream(4, "tb-draws", 0);
    let mut checked = 0;
    for _ in 0..200_000 {
        if checked == 12 {
            break;
        }
        let m = &materials[rng.random_range(0..materials.len())];
        let Some(p) = m.position::<Position>(rng.random_range(0..m.table_len::<Position>())) else {
            continue;
        };
        let values = tb.move_values(&p).unwrap_or_default();
        let some_lose = values.iter().any(|(_, v)| matches!(v, Value::Loss(_)));
        if tb.probe(&p) != Some(Value::Draw) || !some_lose {
            continue;
        }
        let game = Game::new(p, DrawRules::default());
        assert_eq!(tables.exact(&game), Some(crate::mcts::Wdl::DRAW));
        assert_eq!(decisive.exact(&game), None, "a draw is left to the search");
        let params = SearchParams {
            simulations: 30,
            ..SearchParams::plain()
        };
        let mut me = MctsPlayer::new("mcts".into(), params, 1, rng_stream(checked, "p", 0))
            .with_exact_values(Some(tables.clone()));
        let mv = me.choose(&game);
        let (_, v) = values.iter().find(|(m, _)| *m == mv).expect("a legal move");
        assert!(!matches!(v, Value::Loss(_)), "{} in {}", mv, p.to_fen());
        checked += 1;
    }
    assert_eq!(checked, 12, "too few drawn positions with a losing move");
}

/// Training samples drawn from the tables: each position covered and
/// unfinished, its outcome and search targets the exact value, its policy
/// spread evenly over exactly the moves that keep that value; both sides
/// to move, all three results and many balances among them.
#[test]
fn samples_drawn_from_the_tables_carry_the_exact_value_and_best_moves() {
    use crate::mcts::Wdl;
    let (tb, _) = three();
    let mut rng = rng_stream(5, "table-samples-test", 0);
    let samples = crate::data::exact_samples::<Position>(tb, 400, &mut rng);
    assert_eq!(samples.len(), 400);
    let (mut results, mut black, mut balances) = ([0; 3], 0, std::collections::HashSet::new());
    for s in &samples {
        let value = tb.probe(&s.pos).unwrap();
        let wdl = [Wdl::LOSS, Wdl::DRAW, Wdl::WIN][(value.score() + 1) as usize];
        assert_eq!((s.z, s.q, s.no_progress), (wdl, wdl, 0.0), "{}", s.pos.to_fen());
        let moves = tb.move_values(&s.pos).unwrap();
        assert_eq!(moves[0].1, value, "{}", s.pos.to_fen());
        let legal = s.pos.legal_moves();
        assert_eq!(s.policy.len(), legal.len());
        let best = moves.iter().filter(|(_, v)| *v == value).count() as f32;
        for ((_, p), m) in s.policy.iter().zip(&legal) {
            let keeps = moves.iter().any(|(x, v)| x == m && *v == value);
            assert_eq!(*p, if keeps { 1.0 / best } else { 0.0 }, "{}", s.pos.to_fen());
        }
        results[(value.score() + 1) as usize] += 1;
        black += (s.pos.side_to_move() == crate::game::Color::Black) as usize;
        balances.insert(Material::of(&s.pos));
    }
    assert!(results.iter().all(|&n| n > 10), "{results:?}");
    assert!((120..280).contains(&black), "{black}");
    assert!(balances.len() > 30, "{}", balances.len());
}

/// A run with `tablebase_samples = 0.5` adds half as many positions drawn
/// from the tables as its self-play gave to its replay window, each with
/// the exact value as its outcome.
#[test]
fn a_run_mixes_positions_drawn_from_the_tables_into_its_window() {
    use crate::run::{Checkpoint, Event, Run, RunConfig, Start};
    let (tb, dir) = three();
    let runs = tmpdir("table-samples-run");
    let tiny = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tiny.toml");
    let sets = [
        "iterations=1".to_string(),
        "rules.no_progress_plies=80".into(),
        format!("tablebase={}", dir.display()),
        "tablebase_samples=0.5".into(),
        format!("checkpoint_dir={}", runs.display()),
    ];
    let cfg = RunConfig::load(Some(Path::new(tiny)), &sets).unwrap();
    let run = Run::<Position>::start(cfg, Start::New, &mut |_: &Event| {}).unwrap();
    let selfplay = run.metrics()[0].samples as usize;
    let ck = Checkpoint::for_player(run.dir(), true).unwrap();
    let window = crate::data::ReplayWindow::<Position>::from_bytes(&ck.read("replay.bin").unwrap()).unwrap();
    let drawn: Vec<_> = window.iter().filter(|s| tb.entry(&s.pos).is_some()).collect();
    assert!(selfplay > 20, "{selfplay}");
    assert_eq!(window.len(), selfplay + (selfplay as f64 * 0.5).round() as usize);
    assert_eq!(drawn.len(), window.len() - selfplay);
    for s in drawn {
        let exact = tb.probe(&s.pos).unwrap().score();
        let wdl = [
            crate::mcts::Wdl::LOSS,
            crate::mcts::Wdl::DRAW,
            crate::mcts::Wdl::WIN,
        ];
        assert_eq!(s.z, wdl[(exact + 1) as usize]);
    }
    let _ = std::fs::remove_dir_all(&runs);
}

/// Every table of up to 3 pieces of `P` built into a fresh folder, the
/// verifier's report, and the tables opened again from the files.
fn built_and_verified<P: TableGame>(name: &str) -> (Tablebase<P>, VerifyReport) {
    let dir = tmpdir(name);
    let opts = BuildOptions {
        max_pieces: 3,
        limit: 80,
        dir: dir.clone(),
    };
    build::<P>(&opts, &mut |_, _, _| {}).unwrap();
    let tb = Tablebase::<P>::open(&dir, false).unwrap();
    let report = verify(&tb, &mut |_, _, _| {}).unwrap();
    assert_eq!(game_of_tables(&dir).unwrap(), P::ID);
    // Another game's reader names the game the tables are of.
    let e = Tablebase::<Position>::open(&dir, false)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains(&format!("these are {} tables", P::ID)), "{e}");
    (tb, report)
}

#[test]
fn italian_tables_of_three_pieces_pass_the_verifier() {
    let (tb, report) = built_and_verified::<italian::Position>("italian");
    // Men and kings: 4 balances of 2 pieces, 12 of 3.
    assert_eq!(tb.materials().len(), 16);
    assert_eq!(tb.max_pieces(), 3);
    assert_eq!(report.mismatches, 0, "{:?}", report.examples);
    assert!(report.positions > 50_000, "{}", report.positions);
    // A man that takes the last piece wins at once: 22x13.
    let p = <italian::Position as GamePosition>::from_setup("W:W22:B18", ()).unwrap();
    assert_eq!(tb.probe(&p), Some(Value::Win(1)));
    let best = tb.move_values(&p).unwrap()[0].0;
    assert_eq!(p.move_text(&best), "22x13");
    // A man never captures a king in Italian draughts: a lone man against
    // a king cannot win.
    let man_v_king = <italian::Position as GamePosition>::from_setup("W:W22:BK5", ()).unwrap();
    assert_ne!(tb.probe(&man_v_king).map(|v| v.score()), Some(1));
    won_positions_play_out(&tb, "KKvM", 40);
}

#[test]
fn dameo_tables_of_three_pieces_pass_the_verifier() {
    let (tb, report) = built_and_verified::<dameo::Position>("dameo");
    assert_eq!(tb.materials().len(), 16);
    assert_eq!(report.mismatches, 0, "{:?}", report.examples);
    assert!(report.positions > 1_000_000, "{}", report.positions);
    // A black man on a7 left to White's king on a1: the king takes it
    // along the file at once.
    let p = <dameo::Position as GamePosition>::from_setup("W:WKa1:Ba7", ()).unwrap();
    assert_eq!(tb.probe(&p), Some(Value::Win(1)));
    // Symmetry: the same position turned, Black to move, has the same value.
    assert_eq!(tb.probe(&p.rotate_swap()), tb.probe(&p));
    won_positions_play_out(&tb, "KvMM", 40);
}
