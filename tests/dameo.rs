//! Dameo's move generator against another open implementation: the
//! positions of random playouts under AbstractPlay's rules engine
//! (gameslib, `src/games/dameo.ts`), each with the moves that engine
//! generates, recorded by `scripts/dameo-crosscheck.sh` into
//! `tests/dameo-abstractplay.fixture`. Every position's legal moves must
//! be the same set as ours (a move being its start, end and captured
//! pieces). Set `DAMEO_CROSSCHECK=FILE` to check a freshly recorded file.
//!
//! One difference is known and explained: gameslib lets a king's capture
//! land on, and leap on past, the cell it started from (it is empty once
//! the king has left), but treats that cell as occupied when the king
//! approaches an enemy piece across it. damone treats it as empty
//! throughout (docs/rules-dameo.md), so a king whose capture runs back
//! over its own start can take more there. A position that differs only
//! that way is counted apart; any other difference fails.

use damone::game::dameo::{Move, Position};
use damone::game::{perft, GamePosition};
use std::collections::HashSet;

/// True when a king's capture passes over its own start cell between two
/// landings (where gameslib's engine stops it).
fn crosses_own_start(m: &Move) -> bool {
    let path: Vec<usize> = std::iter::once(m.from()).chain(m.landings()).collect();
    path.windows(2).any(|w| {
        let (a, b) = (w[0] as i32, w[1] as i32);
        let step = if a / 8 == b / 8 {
            (b - a).signum()
        } else {
            8 * (b - a).signum()
        };
        (1..(b - a) / step).any(|k| a + k * step == m.from() as i32)
    })
}

/// A difference that gameslib's treatment of the start cell explains: the
/// moves only we have all cross their start, and where gameslib's moves
/// are not ours (they take fewer), every one of our moves crosses it.
fn explained(legal: &HashSet<Move>, theirs: &HashSet<Move>, theirs_all_ours: bool) -> bool {
    if theirs_all_ours {
        legal.difference(theirs).all(crosses_own_start)
    } else {
        legal.iter().all(crosses_own_start)
    }
}

/// Our move for one of gameslib's move texts (cells joined by `-`): a
/// step or line move as it stands, else a capture through those landings.
fn ours(pos: &Position, text: &str) -> Option<<Position as GamePosition>::Move> {
    pos.parse_move(text)
        .ok()
        .or_else(|| pos.parse_move(&text.replace('-', "x")).ok())
}

/// How a recorded position compares with our generator.
enum Comparison {
    Same,
    /// Only by the known treatment of the king's start cell.
    Explained,
    Differs(String),
}

fn compare(line: &str) -> Comparison {
    let (setup, moves) = line.split_once('|').expect("a fixture line is setup|moves");
    let pos = Position::from_setup(setup, ()).unwrap_or_else(|e| panic!("{setup}: {e}"));
    let legal: HashSet<Move> = pos.legal_moves().into_iter().collect();
    let mut theirs = HashSet::new();
    let mut unknown = Vec::new();
    for text in moves.split_whitespace() {
        match ours(&pos, text) {
            Some(m) if legal.contains(&m) => {
                theirs.insert(m);
            }
            _ => unknown.push(text),
        }
    }
    if unknown.is_empty() && legal == theirs {
        return Comparison::Same;
    }
    if explained(&legal, &theirs, unknown.is_empty()) {
        return Comparison::Explained;
    }
    let mut only: Vec<String> = legal.difference(&theirs).map(|m| pos.move_text(m)).collect();
    only.sort();
    Comparison::Differs(format!(
        "{setup}: only theirs: {}; only ours: {}",
        unknown.join(" "),
        only.join(" ")
    ))
}

#[test]
fn every_recorded_position_has_abstractplays_moves() {
    let fresh = std::env::var("DAMEO_CROSSCHECK").ok();
    let path = fresh.clone().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/dameo-abstractplay.fixture").to_string()
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let (mut same, mut start_cell, mut bad) = (0, 0, Vec::new());
    for line in &lines {
        match compare(line) {
            Comparison::Same => same += 1,
            Comparison::Explained => start_cell += 1,
            Comparison::Differs(why) => bad.push(why),
        }
    }
    let captures = lines.iter().filter(|l| has_capture(l)).count();
    eprintln!(
        "{} positions from {path}: {same} the same, {start_cell} differ by the king's start cell, {} differ \
otherwise; {captures} with captures",
        lines.len(),
        bad.len()
    );
    if fresh.is_none() {
        assert!(lines.len() >= 10_000, "only {} positions", lines.len());
        assert!(
            captures >= 1_000,
            "only {captures} positions with a capture: a weak check"
        );
    }
    assert!(
        bad.is_empty(),
        "{} disagree, e.g.\n{}",
        bad.len(),
        bad[..bad.len().min(10)].join("\n")
    );
}

fn has_capture(line: &str) -> bool {
    let setup = line.split_once('|').map_or(line, |(s, _)| s);
    Position::from_setup(setup, ()).is_ok_and(|p| p.has_capture())
}

#[test]
fn perft_from_the_start_equals_abstractplays() {
    // No perft beyond depth 1 is published (52, in PlayStrategy's tests);
    // these are the counts gameslib's engine gives to depth 4
    // (`scripts/dameo-crosscheck.sh` prints them beside ours).
    let start = Position::start(());
    let counts: Vec<u64> = (1..=4).map(|d| perft(&start, d)).collect();
    assert_eq!(counts, [52, 2_704, 135_930, 6_253_934]);
}
