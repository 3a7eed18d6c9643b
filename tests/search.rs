//! Search and arena: MCTS finds wins with the right sign, is deterministic
//! per seed, batches across trees, reuses trees; alpha-beta strength steps;
//! matches are reproducible.

use damone::arena::tournament::{schedule, GameRecord};
use damone::arena::{builtin_factory, run_games, AlphaBeta, Limits, MatchSettings, PlayerSpec, Standings};
use damone::game::*;
use damone::mcts::*;
use damone::util::rng_stream;

fn game(fen: &str) -> Game {
    Game::new(
        Position::from_fen(fen, Variant::Standard).unwrap(),
        DrawRules::default(),
    )
}

/// White wins at once with c6-b7 (the Black Pedina on a8 is then blocked).
const WIN_IN_ONE: &str = "W:WDc6:Ba8";

#[test]
fn puct_and_gumbel_find_the_winning_move() {
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        let params = SearchParams {
            algorithm: algo,
            simulations: 64,
            ..Default::default()
        };
        let g = game(WIN_IN_ONE);
        let mut t = Tree::new(&g, params, rng_stream(1, "t", 0));
        let r = search(&mut t, &mut UniformEvaluator).unwrap();
        assert_eq!(r.best.to_string(), "c6-b7", "{algo:?}");
        let i = r.moves.iter().position(|m| m.to_string() == "c6-b7").unwrap();
        assert_eq!(r.q[i], Some(1.0), "{algo:?}: exact terminal value");
        assert!(
            r.wdl.win > r.wdl.loss + 0.3,
            "{algo:?}: root value for the side to move {:?}",
            r.wdl
        );
        let best_policy = r.policy.iter().cloned().fold(0.0, f32::max);
        assert_eq!(r.policy[i], best_policy, "{algo:?}");
    }
}

#[test]
fn search_is_deterministic_for_a_seed() {
    let g = Game::from_variant(Variant::Standard, DrawRules::default());
    let run = |seed| {
        let params = SearchParams {
            simulations: 300,
            dirichlet_epsilon: 0.25,
            ..Default::default()
        };
        let mut t = Tree::new(&g, params, rng_stream(seed, "t", 0));
        let mut ev = RolloutEvaluator::new(rng_stream(seed, "ev", 0));
        let r = search(&mut t, &mut ev).unwrap();
        (r.visits, r.best)
    };
    assert_eq!(run(5), run(5));
}

#[test]
fn batched_search_runs_many_trees_with_virtual_loss() {
    struct Counting(usize, usize);
    impl Evaluator for Counting {
        fn evaluate(&mut self, b: &[EvalRequest<'_>]) -> Vec<Evaluation> {
            self.0 += 1;
            self.1 = self.1.max(b.len());
            UniformEvaluator.evaluate(b)
        }
    }
    let g = Game::from_variant(Variant::Standard, DrawRules::default());
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        let params = SearchParams {
            algorithm: algo,
            leaves_per_tree: 4,
            ..Default::default()
        };
        let mut trees: Vec<Tree> = (0..8)
            .map(|i| Tree::new(&g, params.clone(), rng_stream(1, "t", i)))
            .collect();
        for t in &mut trees {
            t.start(100);
        }
        let mut ev = Counting(0, 0);
        let mut refs: Vec<&mut Tree> = trees.iter_mut().collect();
        search_batched(&mut refs, &mut ev);
        for t in &trees {
            assert!(t.finished());
            assert!(t.root_visits() >= 100, "{}", t.root_visits());
        }
        assert!(ev.1 > 8, "batches hold several leaves per tree: {}", ev.1);
        assert!(ev.0 < 100, "fewer calls than simulations: {}", ev.0);
    }
}

#[test]
fn tree_reuse_keeps_the_subtree() {
    let g = Game::from_variant(Variant::Standard, DrawRules::default());
    let params = SearchParams {
        simulations: 400,
        ..Default::default()
    };
    let mut t = Tree::new(&g, params, rng_stream(1, "t", 0));
    let r = search(&mut t, &mut UniformEvaluator).unwrap();
    let i = r.visits.iter().enumerate().max_by_key(|(_, v)| **v).unwrap().0;
    t.advance(&r.moves[i]);
    assert_eq!(t.root_visits(), r.visits[i]);
    assert!(t.root_visits() > 10);
}

#[test]
fn alphabeta_finds_the_winning_move() {
    let mut ab = AlphaBeta::new(
        "ab".into(),
        Limits {
            depth: Some(3),
            ..Default::default()
        },
    );
    let (m, score) = ab.search(&game(WIN_IN_ONE));
    assert_eq!(m.to_string(), "c6-b7");
    assert!(score > 90_000);
}

fn play(a: &str, b: &str, games: u32, seed: u64) -> (Vec<GameRecord>, Standings) {
    let names = vec![a.to_string(), b.to_string()];
    let f: Vec<_> = names
        .iter()
        .map(|n| builtin_factory(&PlayerSpec::parse(n).unwrap()).unwrap())
        .collect();
    let mut s = MatchSettings::new(Variant::Standard);
    s.games_per_pair = games;
    s.seed = seed;
    let tasks = schedule(&[(0, 1)], &s);
    let recs = run_games(&tasks, &names, &f, &s, &indicatif::ProgressBar::hidden());
    let st = Standings::compute(&names, &recs, 1);
    (recs, st)
}

fn score_of(st: &Standings, name: &str) -> f64 {
    st.rows.iter().find(|r| r.player == name).unwrap().score
}

#[test]
fn alphabeta_depth_6_beats_random() {
    let (recs, st) = play("alphabeta:depth=6", "random", 200, 11);
    assert_eq!(recs.len(), 200);
    let s = score_of(&st, "alphabeta:depth=6");
    assert!(s >= 0.95, "score {s}");
}

#[test]
fn each_alphabeta_depth_beats_the_previous() {
    for d in 2..=6 {
        let a = format!("alphabeta:depth={d}");
        let b = format!("alphabeta:depth={}", d - 1);
        let (_, st) = play(&a, &b, 200, 3);
        let s = score_of(&st, &a);
        assert!(s > 0.5, "{a} vs {b}: {s}");
    }
}

#[test]
fn mcts_beats_random() {
    for spec in ["mcts:sims=100", "mcts:sims=100,algo=gumbel"] {
        let (_, st) = play(spec, "random", 20, 2);
        let s = score_of(&st, spec);
        assert!(s >= 0.8, "{spec}: {s}");
    }
}
