//! Your own game on damone's library, worked through: English checkers,
//! a game damone does not ship, written outside the crate (this folder
//! uses only damone's public API) and then counted, trained, rated,
//! exported and played with damone's own machinery ([`damone::app`]).
//!
//! ```text
//! cargo run --release --example checkers -- perft 8
//! cargo run --release --example checkers -- train --config configs/tiny.toml --set run=checkers
//! cargo run --release --example checkers -- match checkpoints/checkers alphabeta:depth=2 --games 4
//! cargo run --release --example checkers -- rate checkpoints/checkers --games 20
//! cargo run --release --example checkers -- export checkpoints/checkers checkers.dmp
//! cargo run --release --example checkers -- engine checkers.dmp
//! cargo run --release --example checkers -- self-train checkpoints/checkers-st --rounds 10
//! cargo run --release --example checkers -- match alphabeta:eval=checkpoints/checkers-st,depth=4 alphabeta:depth=4
//! ```
//!
//! `rules.rs` is the game (damone's `GamePosition`), `layers.rs` what the
//! network, the alpha-beta baseline and the endgame tables read of it.
//! docs/your-own-game.md walks through both.

mod layers;
mod rules;

use rules::Position;

fn main() {
    damone::app::main::<Position>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use damone::game::{perft, Color, GamePosition};

    /// The published counts from the start (Aart Bik's and others'
    /// perft of English checkers), to depth 10.
    #[test]
    fn perft_from_the_start_matches_the_published_counts() {
        let published = [
            7, 49, 302, 1_469, 7_361, 36_768, 179_740, 845_931, 3_963_680, 18_391_564,
        ];
        let start = Position::start(());
        for (depth, &count) in (1..).zip(&published) {
            assert_eq!(perft(&start, depth), count, "depth {depth}");
        }
    }

    #[test]
    fn the_notation_reads_back_and_captures_are_compulsory() {
        let start = Position::start(());
        assert_eq!(
            start.to_setup(),
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
        );
        assert_eq!(start.side_to_move(), Color::Black);
        let mut firsts: Vec<String> = start.legal_moves().iter().map(|m| start.move_text(m)).collect();
        firsts.sort();
        assert_eq!(
            firsts,
            ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
        );
        // A man takes a king and goes on: 15x22x29 is the only move (the
        // shorter capture may not stop halfway).
        let pos = Position::from_setup("B:WK18,25:B15", ()).unwrap();
        let moves: Vec<String> = pos.legal_moves().iter().map(|m| pos.move_text(m)).collect();
        assert_eq!(moves, ["15x22x29"]);
        assert_eq!(
            pos.parse_move("15x29").unwrap(),
            pos.parse_move("15x22x29").unwrap()
        );
        assert!(pos
            .parse_move("15-19")
            .unwrap_err()
            .to_string()
            .contains("illegal move"));
        let err = Position::from_setup("B:W1:B2", ()).unwrap_err().to_string();
        assert!(err.contains("promotion row"), "{err}");
    }

    /// Every command of damone's `app` once, on the tiny config: train
    /// and resume, a match, the export and the engine protocol, a file
    /// refused by another game, self-training.
    #[test]
    fn it_trains_plays_exports_and_speaks_the_engine_protocol() {
        let dir = std::env::temp_dir().join(format!("damone-checkers-{}", std::process::id()));
        let tiny = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/tiny.toml");
        damone::app::walk_through::<Position, damone::game::damone::Position>(&dir, &tiny).unwrap();
    }
}
