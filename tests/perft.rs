//! Perft fixtures: every line of `tests/perft.fixture` must match.

use damone::game::{
    damone::{Position, Variant},
    perft, GamePosition,
};

#[test]
fn perft_fixture_matches() {
    let text = include_str!("perft.fixture");
    let mut checked = 0;
    for (no, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(';').map(str::trim).collect();
        assert_eq!(f.len(), 4, "line {}: {line}", no + 1);
        let v: Variant = f[0].parse().unwrap();
        let pos = Position::from_fen(f[1], v).unwrap();
        let depth: u32 = f[2].parse().unwrap();
        let want: u64 = f[3].parse().unwrap();
        assert_eq!(perft(&pos, depth), want, "line {}: {line}", no + 1);
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} fixture lines");
}

#[test]
fn rules_md_reference_table() {
    let pos = Position::start(Variant::Standard);
    let want = [8, 64, 569, 4703, 42778, 374398];
    for (d, w) in want.iter().enumerate() {
        assert_eq!(perft(&pos, d as u32 + 1), *w, "depth {}", d + 1);
    }
}

/// The published Italian counts (`tests/perft-italian.fixture`), counting
/// capture paths as they do; through depth 11 from the start the move
/// count (paths with the same captured set merged) is the same.
#[test]
fn italian_perft_equals_the_published_counts() {
    use damone::game::italian::{perft_paths, Position as Italian};
    let mut checked = 0;
    for (no, line) in include_str!("perft-italian.fixture").lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(';').map(str::trim).collect();
        assert_eq!(f.len(), 3, "line {}: {line}", no + 1);
        let pos = Italian::from_setup(f[0], ()).unwrap();
        let depth: u32 = f[1].parse().unwrap();
        let want: u64 = f[2].parse().unwrap();
        assert_eq!(perft_paths(&pos, depth), want, "line {}: {line}", no + 1);
        if pos == Italian::start(()) {
            assert_eq!(perft(&pos, depth), want, "moves, line {}: {line}", no + 1);
        }
        checked += 1;
    }
    assert_eq!(checked, 21);
}
