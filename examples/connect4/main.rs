//! A game that is not draughts on damone's library: Connect Four, written
//! outside the crate, with gravity, no captures, a win by a pattern on the
//! board and a draw by the rules, then counted, trained, rated, exported
//! and played with damone's own machinery ([`damone::app`]).
//!
//! ```text
//! cargo run --release --example connect4 -- perft 8
//! cargo run --release --example connect4 -- train --config configs/tiny.toml --set run=connect4
//! cargo run --release --example connect4 -- match checkpoints/connect4 alphabeta:depth=4 --games 10
//! cargo run --release --example connect4 -- rate checkpoints/connect4 --games 20
//! cargo run --release --example connect4 -- engine alphabeta:depth=6
//! ```
//!
//! `rules.rs` is the game (damone's `GamePosition`), `layers.rs` what the
//! network and the alpha-beta baseline read of it. docs/your-own-game.md
//! walks through both.

mod layers;
mod rules;

use rules::Position;

fn main() {
    damone::app::main::<Position>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use damone::arena::{AlphaBeta, Limits};
    use damone::game::{perft, Color, DrawRules, EndReason, Game, GamePosition, Outcome};
    use damone::mcts::{search, SearchParams, Tree, UniformEvaluator};
    use std::collections::HashSet;

    /// The legal positions after each ply, John Tromp's counts (OEIS
    /// A212693), and the move paths (perft), 7^n until a column can fill.
    #[test]
    fn positions_and_perft_match_the_published_counts() {
        let published = [7, 49, 238, 1_120, 4_263, 16_422, 54_859, 184_275];
        let mut level = HashSet::from([Position::start(())]);
        for (ply, &count) in (1..).zip(&published) {
            level = level
                .iter()
                .flat_map(|p| p.legal_moves().into_iter().map(move |m| p.after(&m)))
                .collect();
            assert_eq!(level.len(), count, "positions after ply {ply}");
        }
        let start = Position::start(());
        for depth in 1..=6 {
            assert_eq!(perft(&start, depth), 7u64.pow(depth), "perft {depth}");
        }
        // Seven lines of six drops fill a column: 7^7 - 7 paths.
        assert_eq!(perft(&start, 7), 823_536);
    }

    #[test]
    fn setups_read_back_and_bad_ones_say_why() {
        let pos = Position::from_setup("7/7/7/7/7/3x3", ()).unwrap();
        assert_eq!(pos.side_to_move(), Color::Black);
        assert_eq!(pos.to_setup(), "7/7/7/7/7/3x3");
        assert_eq!(Position::start(()).to_setup(), "7/7/7/7/7/7");
        for (bad, why) in [
            ("7/7/7/7/3x3/7", "floats"),
            ("7/7/7/7/7/xx5", "as many discs"),
            ("7/7/7/7/7", "rows"),
            ("7/7/7/7/7/3q3", "not x, o"),
            ("7/7/7/7/7/6", "cells"),
        ] {
            let err = Position::from_setup(bad, ()).unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
        let err = Position::start(()).parse_move("8").unwrap_err().to_string();
        assert!(err.contains("1 to 7"), "{err}");
    }

    /// Black's last disc fills the board with no four: a draw by the
    /// rules, scored as a draw by the game record, by alpha-beta (0, not a
    /// loss) and by MCTS (an exact value of 0).
    #[test]
    fn a_draw_by_the_rules_is_a_draw_everywhere() {
        let last = "1xxooxo/xxxoxox/oooxxoo/xxoooxx/xooxoox/oxxooxx";
        let g = Game::new(Position::from_setup(last, ()).unwrap(), DrawRules::default());
        let moves = g.position().legal_moves();
        assert_eq!(moves.len(), 1);
        let mut full = g.clone();
        full.play_unchecked(&moves[0]);
        let draw = Outcome {
            winner: None,
            reason: EndReason::Rules("full_board"),
        };
        assert_eq!(full.outcome(), Some(draw));
        let mut ab = AlphaBeta::new("ab".into(), Limits::default());
        assert_eq!(ab.shallow_score(&full), 0);
        assert_eq!(ab.search(&g).1, 0);
        let mut tree = Tree::new(&g, SearchParams::plain(), damone::util::rng_stream(1, "t", 0));
        let r = search(&mut tree, &mut UniformEvaluator).unwrap();
        assert_eq!(r.q[0], Some(0.0), "{r:?}");
    }

    /// Four in a row wins at once: alpha-beta and MCTS take the win, and
    /// the record names the reason.
    #[test]
    fn four_in_a_row_wins_and_both_searches_take_it() {
        let g = Game::new(
            Position::from_setup("7/7/7/7/7/xxx1ooo", ()).unwrap(),
            DrawRules::default(),
        );
        let mut ab = AlphaBeta::new(
            "ab".into(),
            Limits {
                depth: Some(4),
                ..Default::default()
            },
        );
        let (m, score) = ab.search(&g);
        assert_eq!(g.position().move_text(&m), "4");
        assert!(score > 90_000, "{score}");
        let mut tree = Tree::new(&g, SearchParams::plain(), damone::util::rng_stream(1, "t", 0));
        let r = search(&mut tree, &mut UniformEvaluator).unwrap();
        assert_eq!(g.position().move_text(&r.best), "4");
        let mut won = g.clone();
        won.play_unchecked(&m);
        let outcome = won.outcome().unwrap();
        assert_eq!(outcome.winner, Some(Color::White));
        assert_eq!(outcome.reason.name(), "four_in_a_row");
    }

    /// Black sees the board as it stands (gravity has a direction), its
    /// own discs first; the mirror maps a position's observation and its
    /// moves' policy indices to the mirrored position's.
    #[test]
    fn the_network_sees_the_board_upright_and_in_the_mirror() {
        use damone::game::{Board, Symmetry};
        use damone::net::{index_under, policy_indices, Inputs, Observation};
        let pos = Position::from_setup("7/7/7/7/7/xx4o", ()).unwrap();
        let mirrored = Position::from_setup("7/7/7/7/7/o4xx", ()).unwrap();
        let obs = Observation::new(&pos, false, 0.0, Inputs::Basic);
        let (black, white) = (pos.kind_cells(Color::Black)[0], pos.kind_cells(Color::White)[0]);
        assert_eq!((pos.side_to_move(), black, white), (Color::Black, 1 << 6, 0b11));
        assert_eq!((obs.boards[0], obs.boards[3]), (black, white));
        assert_eq!(
            obs.under(Symmetry::Mirror),
            Observation::new(&mirrored, false, 0.0, Inputs::Basic)
        );
        let (moves, moved) = (pos.legal_moves(), mirrored.legal_moves());
        let idx = policy_indices(&pos, &moves);
        let mirrored_idx = policy_indices(&mirrored, &moved);
        for (m, i) in moves.iter().zip(&idx) {
            let j = moved.iter().position(|n| n.0 == 6 - m.0).unwrap();
            assert_eq!(
                index_under(Position::CELLS, Symmetry::Mirror, *i),
                mirrored_idx[j]
            );
        }
    }

    /// A run of a game without material switches off what reads it.
    #[test]
    fn a_run_switches_off_what_reads_material() {
        let tiny = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/tiny.toml");
        let mut cfg = damone::run::RunConfig::load(Some(&tiny), &["game=connect4".into()]).unwrap();
        cfg.search.tactics_margin = 1.0;
        cfg.fit_game::<Position>().unwrap();
        assert_eq!(cfg.model.board, <Position as damone::game::Board>::CELLS);
        assert_eq!(
            (
                cfg.train.material_weight,
                cfg.search.material_utility,
                cfg.search.tactics_margin
            ),
            (0.0, 0.0, 0.0)
        );
    }

    /// Every command of damone's `app` once, on the tiny config (the
    /// learned evaluation's self-training skipped: it reads 8x8 boards).
    #[test]
    fn it_trains_plays_exports_and_speaks_the_engine_protocol() {
        let dir = std::env::temp_dir().join(format!("damone-connect4-{}", std::process::id()));
        let tiny = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/tiny.toml");
        damone::app::walk_through::<Position, damone::game::damone::Position>(&dir, &tiny).unwrap();
    }
}
