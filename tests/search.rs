//! Search and arena: MCTS finds wins with the right sign, is deterministic
//! per seed, batches across trees, reuses trees; the evaluation cache
//! answers as the evaluator would; alpha-beta strength steps; matches are
//! reproducible.

use damone::arena::alphabeta::WIN;
use damone::arena::tournament::{schedule, GameRecord};
use damone::arena::{builtin_factory, run_games, AlphaBeta, Limits, MatchSettings, PlayerSpec, Standings};
use damone::game::damone::*;
use damone::game::{Color, DrawRules, EndReason, Game, GamePosition};
use damone::mcts::*;
use damone::util::rng_stream;

fn game(fen: &str) -> Game<Position> {
    Game::new(
        Position::from_fen(fen, Variant::Standard).unwrap(),
        DrawRules::default(),
    )
}

/// A game from the start with up to `plies` random legal moves, stopping
/// early where the game ends or where `stop` says so (given the legal
/// moves of the position reached).
fn random_game(rng: &mut damone::util::Rng, plies: usize, stop: impl Fn(&[Move]) -> bool) -> Game<Position> {
    use rand::Rng as _;
    let mut g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    for _ in 0..plies {
        let ms = g.position().legal_moves();
        if g.outcome_with(&ms).is_some() || stop(&ms) {
            break;
        }
        g.play_unchecked(&ms[rng.random_range(0..ms.len())]);
    }
    g
}

/// White wins at once with c6-b7 (the Black Pedina on a8 is then blocked).
const WIN_IN_ONE: &str = "W:WDc6:Ba8";

#[test]
fn puct_and_gumbel_find_the_winning_move() {
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        let params = SearchParams {
            algorithm: algo,
            simulations: 64,
            ..SearchParams::plain()
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
        assert_eq!(r.move_wdl.win, 1.0, "{algo:?}: the chosen move wins at once");
    }
}

/// The chosen move's WDL is its child's mean seen from the root (so its
/// win minus loss is that move's Q, with no draw score or material in the
/// value); the root's mean also counts the moves Gumbel's halving tried
/// and dropped, so the two differ.
#[test]
fn the_chosen_moves_wdl_is_its_q() {
    let g = game("W:WIh1,Df1,Dh3,d1,e2,f3,g4,h5:BIa8,Da6,Dc8,a4,b5,c6,d7,e8");
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        let params = SearchParams {
            algorithm: algo,
            simulations: 200,
            ..SearchParams::plain()
        };
        let mut t = Tree::new(&g, params, rng_stream(3, "t", 0));
        let mut ev = RolloutEvaluator::new(rng_stream(3, "ev", 0));
        let r = search(&mut t, &mut ev).unwrap();
        let i = r.moves.iter().position(|m| *m == r.best).unwrap();
        let q = r.q[i].expect("the chosen move was visited");
        assert!(
            (r.move_wdl.value() - q).abs() < 1e-5,
            "{algo:?}: {:?} against {q}",
            r.move_wdl
        );
        assert!(r.move_wdl != r.wdl, "{algo:?}: {:?}", r.wdl);
    }
}

#[test]
fn search_is_deterministic_for_a_seed() {
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    let run = |seed| {
        let params = SearchParams {
            simulations: 300,
            dirichlet_epsilon: 0.25,
            ..SearchParams::plain()
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
    impl Evaluator<Position> for Counting {
        fn evaluate(&mut self, b: &[EvalRequest<'_, Position>]) -> Vec<Evaluation> {
            self.0 += 1;
            self.1 = self.1.max(b.len());
            UniformEvaluator.evaluate(b)
        }
    }
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        let params = SearchParams {
            algorithm: algo,
            leaves_per_tree: 4,
            ..SearchParams::plain()
        };
        let mut trees: Vec<Tree<Position>> = (0..8)
            .map(|i| Tree::new(&g, params.clone(), rng_stream(1, "t", i)))
            .collect();
        for t in &mut trees {
            t.start(100);
        }
        let mut ev = Counting(0, 0);
        let mut refs: Vec<&mut Tree<Position>> = trees.iter_mut().collect();
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
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    let params = SearchParams {
        simulations: 400,
        ..SearchParams::plain()
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

/// A result by the rules scores for its winner: in damone-hunt a side
/// whose opponent has no Damone left has won, whichever side is to move
/// (alpha-beta once scored every result by the rules as a loss for the
/// side to move).
#[test]
fn alphabeta_scores_a_result_by_the_rules_for_its_winner() {
    let mut ab = AlphaBeta::new("ab".into(), Limits::default());
    for (fen, winner_to_move) in [("W:WIh1,b1:Ba8", true), ("B:WIh1,b1:Ba8", false)] {
        let g = Game::new(
            Position::from_fen(fen, Variant::DamoneHunt).unwrap(),
            DrawRules::default(),
        );
        assert_eq!(g.outcome().unwrap().winner, Some(Color::White), "{fen}");
        let score = ab.shallow_score(&g);
        let expected = if winner_to_move { WIN } else { -WIN };
        assert_eq!(score, expected, "{fen}");
    }
}

#[test]
fn alphabeta_analysis_gives_its_score_and_a_legal_principal_variation() {
    use damone::arena::{Player as _, Score};
    let limits = |depth| Limits {
        depth: Some(depth),
        ..Default::default()
    };
    let mut ab = AlphaBeta::new("ab".into(), limits(3));
    let a = ab.analyse(&game(WIN_IN_ONE)).unwrap();
    let p = a.principal.clone().unwrap();
    assert_eq!(p.score, Score::WinIn(1));
    assert_eq!(p.pv, vec![a.best]);
    assert_eq!(a.wdl, Some(Wdl::WIN));
    assert_eq!(p.score.to_string(), "win 1");

    let mut ab = AlphaBeta::new("ab".into(), limits(6));
    let start = Game::new(Position::start(Variant::Standard), DrawRules::default());
    let a = ab.analyse(&start).unwrap();
    let p = a.principal.unwrap();
    assert!(matches!(p.score, Score::Eval(_)), "{:?}", p.score);
    assert_eq!(a.wdl, None);
    assert_eq!(p.depth, 6);
    assert!(p.nodes > 1000, "{}", p.nodes);
    assert_eq!(p.pv[0], a.best);
    assert!(p.pv.len() >= 4, "{:?}", p.pv);
    // Every move of the line is legal where it is played.
    let mut g = start.clone();
    for m in &p.pv {
        assert!(g.position().legal_moves().contains(m), "{m} in {:?}", p.pv);
        g.play_unchecked(m);
    }
    assert_eq!(p.pv_text(start.position()).len(), p.pv.len());

    // A forced move is analysed through the position after it.
    let mut ab = AlphaBeta::new("ab".into(), limits(3));
    let forced = game("W:WIf3,Dd1:Bg4,c6");
    assert_eq!(forced.position().legal_moves().len(), 1);
    let p = ab.analyse(&forced).unwrap().principal.unwrap();
    assert_eq!(p.depth, 3);
    assert!(p.pv.len() >= 2, "{:?}", p.pv);
    assert!(matches!(p.score, Score::Eval(s) if s > 100), "{:?}", p.score);
}

#[test]
fn alphabeta_contempt_scores_a_foreseen_draw_below_even() {
    // Every move reaches the no-progress limit: each line is a draw.
    let g = game("W:WDd1:BDe8:H79");
    let limits = Limits {
        depth: Some(2),
        ..Default::default()
    };
    let mut plain = AlphaBeta::new("ab".into(), limits);
    assert_eq!(plain.search(&g).1, 0);
    let mut contempt = AlphaBeta::new("ab".into(), limits).with_contempt(30);
    assert_eq!(contempt.search(&g).1, -30);
    let mut helped = AlphaBeta::new("ab".into(), limits)
        .with_threads(2)
        .with_contempt(30);
    assert_eq!(helped.search(&g).1, -30);
}

fn play(a: &str, b: &str, games: u32, seed: u64) -> (Vec<GameRecord>, Standings) {
    let names = vec![a.to_string(), b.to_string()];
    let f: Vec<_> = names
        .iter()
        .map(|n| builtin_factory(&PlayerSpec::parse(n).unwrap()).unwrap())
        .collect();
    let mut s = MatchSettings::from_start(Position::start(Variant::Standard));
    s.games_per_pair = games;
    s.seed = seed;
    let tasks = schedule(&[(0, 1)], &s);
    let recs = run_games(&tasks, &names, &f, &s, &|_| {});
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

/// A deterministic evaluator whose answer depends on the whole position
/// (as the network's does), counting the positions it is asked for.
#[derive(Default)]
struct ByPosition {
    asked: u64,
    calls: u64,
}

impl Evaluator<Position> for ByPosition {
    fn evaluate(&mut self, batch: &[EvalRequest<'_, Position>]) -> Vec<Evaluation> {
        self.calls += 1;
        self.asked += batch.len() as u64;
        batch
            .iter()
            .map(|r| {
                let p = r.game.position();
                let h = p.hash_key()
                    ^ ((p.no_progress() as u64) << 7)
                    ^ (((r.game.repetitions() > 1) as u64) << 3);
                let mut priors: Vec<f32> = (0..r.moves.len())
                    .map(|i| 1.0 + ((h >> (i % 60)) & 15) as f32)
                    .collect();
                let s: f32 = priors.iter().sum();
                priors.iter_mut().for_each(|x| *x /= s);
                let win = (h % 1000) as f32 / 2000.0;
                Evaluation {
                    priors,
                    wdl: Wdl::from_array([win, 0.5, 0.5 - win]),
                    material: (h % 7) as f32 / 10.0,
                }
            })
            .collect()
    }
}

/// Positions of seeded random games, some of them repeated.
fn some_games(n: usize, seed: u64) -> Vec<Game<Position>> {
    use rand::Rng as _;
    let mut rng = rng_stream(seed, "cache-games", 0);
    (0..n)
        .map(|i| {
            let mut g = Game::new(Position::start(Variant::Standard), DrawRules::default());
            for _ in 0..(i % 7) * 3 {
                let ms = g.position().legal_moves();
                if g.outcome_with(&ms).is_some() {
                    break;
                }
                g.play_unchecked(&ms[rng.random_range(0..ms.len())]);
            }
            g
        })
        .filter(|g| g.outcome().is_none())
        .collect()
}

#[test]
fn eval_cache_answers_as_the_evaluator_and_asks_each_position_once() {
    let games = some_games(40, 3);
    let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
    let reqs: Vec<EvalRequest<'_, Position>> = games
        .iter()
        .zip(&moves)
        .map(|(game, moves)| EvalRequest { game, moves })
        .collect();
    let want = ByPosition::default().evaluate(&reqs);
    let distinct = {
        let mut keys: Vec<_> = games.iter().map(|g| *g.position()).collect();
        keys.sort_by_key(|p| p.hash_key());
        keys.dedup();
        keys.len() as u64
    };
    assert!(distinct < reqs.len() as u64, "the batch repeats positions");
    // A large cache: each position is asked once, then never again.
    let mut cache = EvalCache::new(1 << 12);
    let mut inner = ByPosition::default();
    assert_eq!(cache.evaluate(&mut inner, &reqs), want);
    assert_eq!(inner.asked, distinct);
    assert_eq!(cache.hits, reqs.len() as u64 - distinct);
    assert_eq!(cache.evaluate(&mut inner, &reqs), want);
    assert_eq!(
        (inner.asked, inner.calls),
        (distinct, 1),
        "all answered from the cache"
    );
    assert_eq!(cache.lookups, 2 * reqs.len() as u64);
    // A two-entry cache: positions evict each other, answers stay right.
    let mut tiny = EvalCache::new(2);
    let mut inner = ByPosition::default();
    for _ in 0..3 {
        assert_eq!(tiny.evaluate(&mut inner, &reqs), want);
    }
    assert!(inner.asked > distinct, "a tiny cache must miss again");
    // Cleared, it asks again.
    cache.clear();
    let mut inner = ByPosition::default();
    assert_eq!(cache.evaluate(&mut inner, &reqs), want);
    assert_eq!(inner.asked, distinct);
}

/// Self-play from Damone's start with short games (40 plies without
/// progress, 100 in all), seeded with `seed`.
fn short_selfplay(cfg: &damone::selfplay::SelfPlayConfig, seed: u64) -> damone::selfplay::SelfPlay<Position> {
    let rules = DrawRules {
        no_progress_plies: 40,
        max_plies: 100,
    };
    damone::selfplay::SelfPlay::new(cfg, Position::start(Variant::Standard), rules, seed)
}

/// Self-play with the evaluation cache plays exactly the same games as
/// without it (the evaluator is deterministic), with fewer positions sent
/// to the evaluator.
#[test]
fn selfplay_with_eval_cache_plays_the_same_games() {
    use damone::selfplay::SelfPlayConfig;
    let run = |entries: u32| {
        let cfg = SelfPlayConfig {
            games_per_iteration: 6,
            parallel_games: 4,
            full_sims: 16,
            cheap_sims: 4,
            eval_cache: entries,
            ..Default::default()
        };
        let mut sp = short_selfplay(&cfg, 11);
        let params = SearchParams {
            simulations: 16,
            ..SearchParams::plain()
        };
        let mut ev = ByPosition::default();
        let mut out = Vec::new();
        for it in 0..2 {
            let (samples, stats) = sp.run_iteration(&params, &cfg, &mut ev, 5 + it, &mut |_| {}, &mut |_| {});
            out.push((samples, stats));
        }
        (out, ev.asked)
    };
    let (plain, asked_plain) = run(0);
    let (cached, asked_cached) = run(1 << 14);
    for ((a, sa), (b, sb)) in plain.iter().zip(&cached) {
        assert_eq!(a, b, "the cache changed the games");
        assert_eq!(sa.plies, sb.plies);
        assert_eq!(sa.cache_hits, 0);
        assert!(sb.cache_hits > 0, "no position met twice in 6 games");
        assert_eq!(sb.evals + sb.cache_hits, sa.evals);
    }
    assert!(asked_cached < asked_plain);
}

/// The MCTS-solver: a win in one is proven at once (exact value, all of
/// the policy target on the winning move); positions of random games where
/// alpha-beta finds a win in three plies (and not in one) are proven won,
/// and the move played leaves the opponent proven lost.
#[test]
fn the_solver_proves_short_wins_and_losses() {
    use rand::Rng as _;
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        let params = SearchParams {
            algorithm: algo,
            simulations: 64,
            solver: true,
            ..SearchParams::plain()
        };
        let mut t = Tree::new(&game(WIN_IN_ONE), params, rng_stream(1, "t", 0));
        let r = search(&mut t, &mut UniformEvaluator).unwrap();
        assert_eq!(t.proven_value(), Some(Wdl::WIN), "{algo:?}");
        assert_eq!(r.wdl, Wdl::WIN, "{algo:?}");
        assert_eq!(r.best.to_string(), "c6-b7", "{algo:?}");
        let i = r.moves.iter().position(|m| m.to_string() == "c6-b7").unwrap();
        assert_eq!(r.policy[i], 1.0, "{algo:?}: {:?}", r.policy);
    }
    let wins_within = |g: &Game<Position>, depth: u32| {
        let limits = Limits {
            depth: Some(depth),
            ..Default::default()
        };
        AlphaBeta::new("ab".into(), limits).search(g).1 > 90_000
    };
    let mut rng = rng_stream(7, "solver-positions", 0);
    let mut proved = 0;
    for _ in 0..5000 {
        if proved == 4 {
            break;
        }
        let plies = rng.random_range(20..120);
        let g = random_game(&mut rng, plies, |_| false);
        if g.outcome().is_some() || !wins_within(&g, 3) || wins_within(&g, 1) {
            continue;
        }
        proved += 1;
        let params = SearchParams {
            algorithm: if proved % 2 == 0 {
                SearchAlgorithm::Gumbel
            } else {
                SearchAlgorithm::Puct
            },
            simulations: 3000,
            solver: true,
            ..SearchParams::plain()
        };
        let fen = g.position().to_fen();
        let mut t = Tree::new(&g, params.clone(), rng_stream(1, "t", 0));
        let r = search(&mut t, &mut UniformEvaluator).unwrap();
        assert_eq!(t.proven_value(), Some(Wdl::WIN), "{fen}");
        assert_eq!(r.wdl, Wdl::WIN, "{fen}");
        let mut after = g.clone();
        after.play_unchecked(&r.best);
        assert!(after.outcome().is_none(), "{fen}: {} wins in one", r.best);
        let mut t = Tree::new(&after, params, rng_stream(2, "t", 0));
        let r2 = search(&mut t, &mut UniformEvaluator).unwrap();
        assert_eq!(r2.wdl, Wdl::LOSS, "{fen} after {}", r.best);
    }
    assert!(proved >= 2, "only {proved} positions with a win in three plies");
}

/// Samples of played-out games carry the auxiliary targets of how their
/// game ended (material difference for the sample's side, plies from the
/// sample's position to the end); samples of resigned games carry none.
#[test]
fn selfplay_samples_carry_the_auxiliary_targets_of_their_game() {
    use damone::data::AuxTargets;
    use damone::selfplay::{SelfPlay, SelfPlayConfig};
    for resign in [false, true] {
        let cfg = SelfPlayConfig {
            games_per_iteration: 4,
            parallel_games: 1,
            full_sims: 8,
            cheap_sims: 2,
            full_search_prob: 1.0,
            resign_threshold: if resign { 0.0 } else { 1.0 },
            no_resign_fraction: 0.0,
            resign_min_ply: 6,
            ..Default::default()
        };
        let rules = DrawRules {
            no_progress_plies: 40,
            max_plies: 120,
        };
        let mut sp = SelfPlay::new(&cfg, Position::start(Variant::Standard), rules, 3);
        sp.keep_finished_games();
        let params = SearchParams {
            simulations: 8,
            ..SearchParams::plain()
        };
        let (samples, _) = sp.run_iteration(
            &params,
            &cfg,
            &mut ByPosition::default(),
            1,
            &mut |_| {},
            &mut |_| {},
        );
        let games = sp.take_finished_games();
        assert!(games.len() >= 4);
        // One game at a time: the samples are the finished games' searched
        // positions, game after game, in order.
        let mut next = samples.iter().peekable();
        let mut checked = 0;
        for (g, o) in &games {
            let mut pos = *g.start();
            let offset = g.ply() - g.moves().len();
            // Every position of the game, the last one too (a resigning
            // side's search made a sample there).
            for k in 0..=g.moves().len() {
                if next.peek().is_some_and(|s| s.pos == pos) {
                    let s = next.next().unwrap();
                    if o.reason == EndReason::Resignation {
                        assert_eq!(s.aux, None);
                    } else {
                        let want = AuxTargets::at_end(
                            g.position(),
                            pos.side_to_move(),
                            (g.ply() - offset - k) as u32,
                        );
                        assert_eq!(s.aux, Some(want));
                    }
                    checked += 1;
                }
                if let Some(m) = g.moves().get(k) {
                    pos.play_unchecked(m);
                }
            }
        }
        assert_eq!(checked, samples.len(), "every sample found in its game");
        // Each sample records how far the search moved from the priors.
        assert!(samples
            .iter()
            .all(|s| s.surprise >= 0.0 && s.surprise.is_finite()));
        assert!(samples.iter().any(|s| s.surprise > 0.01));
        let resigned = games
            .iter()
            .filter(|(_, o)| o.reason == EndReason::Resignation)
            .count();
        assert_eq!(
            resigned > 0,
            resign,
            "{resigned} of {} games resigned",
            games.len()
        );
    }
}

/// A search result's surprise is the KL divergence of its policy target
/// from the priors: 0 when they agree, positive when the search moved.
#[test]
fn surprise_is_the_policy_targets_divergence_from_the_priors() {
    let params = SearchParams {
        algorithm: SearchAlgorithm::Gumbel,
        simulations: 64,
        ..SearchParams::plain()
    };
    let mut t = Tree::new(&game(WIN_IN_ONE), params, rng_stream(1, "t", 0));
    let mut r = search(&mut t, &mut UniformEvaluator).unwrap();
    let want: f32 = r
        .policy
        .iter()
        .zip(&r.priors)
        .filter(|(&t, _)| t > 0.0)
        .map(|(&t, &p)| t * (t / p).ln())
        .sum();
    assert!(want > 0.1, "the search found the win: {:?}", r.policy);
    assert!((r.surprise() - want).abs() < 1e-5);
    r.policy = r.priors.clone();
    assert!(r.surprise().abs() < 1e-6);
}

/// Uniform priors and values that differ by at most 0.01 between positions.
struct NearlyEqualValues;

impl Evaluator<Position> for NearlyEqualValues {
    fn evaluate(&mut self, batch: &[EvalRequest<'_, Position>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| {
                let n = r.moves.len();
                let win = 0.3 + (r.game.position().hash_key() % 101) as f32 / 10_000.0;
                Evaluation {
                    priors: vec![1.0 / n as f32; n],
                    wdl: Wdl::from_array([win, 0.4, 0.6 - win]),
                    material: 0.0,
                }
            })
            .collect()
    }
}

/// With values on their own scale, Q differences of 0.01 barely move the
/// Gumbel policy target off the priors; rescaled by the root's min and max
/// (`gumbel_rescale`, as in mctx) the best-valued move takes most of it.
#[test]
fn gumbel_rescale_sharpens_the_target_when_values_are_close() {
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    let target = |rescale| {
        let params = SearchParams {
            algorithm: SearchAlgorithm::Gumbel,
            simulations: 64,
            gumbel_noise: false,
            gumbel_rescale: rescale,
            ..SearchParams::plain()
        };
        let mut t = Tree::new(&g, params, rng_stream(1, "t", 0));
        let r = search(&mut t, &mut NearlyEqualValues).unwrap();
        let uniform = 1.0 / r.policy.len() as f32;
        let best = r.policy.iter().cloned().fold(0.0, f32::max);
        (best, uniform)
    };
    let (flat, uniform) = target(false);
    assert!(flat < 2.0 * uniform, "own scale: best {flat}, uniform {uniform}");
    let (sharp, _) = target(true);
    assert!(sharp > 0.5, "rescaled: best {sharp}");
}

/// `collapse_forced`: below the root, no position with one legal move is
/// sent to the evaluator (the simulation plays it and goes on), while the
/// same searches without it do send such positions; the number of
/// simulations is the same, and a forced root is still evaluated.
#[test]
fn collapse_forced_sends_no_forced_position_to_the_evaluator() {
    use rand::Rng as _;
    struct Forced {
        forced: usize,
        asked: usize,
    }
    impl Evaluator<Position> for Forced {
        fn evaluate(&mut self, b: &[EvalRequest<'_, Position>]) -> Vec<Evaluation> {
            self.asked += b.len();
            self.forced += b.iter().filter(|r| r.moves.len() == 1).count();
            UniformEvaluator.evaluate(b)
        }
    }
    let mut rng = rng_stream(3, "collapse-positions", 0);
    let mut games = Vec::new();
    while games.len() < 12 {
        let plies = rng.random_range(10..60);
        let g = random_game(&mut rng, plies, |_| false);
        let ms = g.position().legal_moves();
        if g.outcome_with(&ms).is_none() && ms.len() > 1 {
            games.push(g);
        }
    }
    let run = |collapse: bool| {
        let mut ev = Forced { forced: 0, asked: 0 };
        for (i, g) in games.iter().enumerate() {
            for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
                let params = SearchParams {
                    algorithm: algo,
                    simulations: 200,
                    collapse_forced: collapse,
                    ..SearchParams::plain()
                };
                let mut t = Tree::new(g, params, rng_stream(1, "t", i as u64));
                search(&mut t, &mut ev).unwrap();
                assert!(t.root_visits() >= 200, "{collapse} {algo:?}: {}", t.root_visits());
            }
        }
        ev
    };
    let off = run(false);
    let on = run(true);
    assert!(
        off.forced > 0,
        "no forced position met in the searches: a weak test"
    );
    assert_eq!(on.forced, 0, "of {} evaluations", on.asked);

    // A root with one legal move is evaluated (the search needs its edges).
    let mut rng = rng_stream(4, "forced-root", 0);
    let forced_root = loop {
        let g = random_game(&mut rng, 200, |ms| ms.len() == 1);
        let ms = g.position().legal_moves();
        if g.outcome_with(&ms).is_none() && ms.len() == 1 {
            break g;
        }
    };
    let params = SearchParams {
        simulations: 16,
        collapse_forced: true,
        ..SearchParams::plain()
    };
    let mut t = Tree::new(&forced_root, params, rng_stream(1, "t", 0));
    let mut ev = Forced { forced: 0, asked: 0 };
    let r = search(&mut t, &mut ev).unwrap();
    assert_eq!(r.moves.len(), 1);
    assert_eq!(ev.forced, 1, "the forced root, evaluated once");
}

/// `draw_score`: a search over positions the evaluator calls certain draws
/// values every move at the draw score (0 in a zero-sum search), with PUCT
/// and Gumbel; play settings reset it, and values outside [-1, 0] are
/// refused.
#[test]
fn draw_score_values_draws_below_zero_for_both_sides() {
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        for ds in [0.0f32, -0.3] {
            let params = SearchParams {
                algorithm: algo,
                simulations: 64,
                draw_score: ds,
                ..SearchParams::plain()
            };
            let mut t = Tree::new(&g, params, rng_stream(1, "t", 0));
            let r = search(&mut t, &mut UniformEvaluator).unwrap();
            let qs: Vec<f32> = r.q.iter().flatten().copied().collect();
            assert!(qs.len() > 1, "{algo:?}: several moves searched");
            for q in qs {
                assert!((q - ds).abs() < 1e-5, "{algo:?}, draw_score {ds}: q {q}");
            }
        }
    }
    let p = SearchParams {
        draw_score: -0.2,
        ..SearchParams::plain()
    };
    assert_eq!(p.for_play(64).draw_score, 0.0);
    assert!(p.validate().is_ok());
    assert_refused("draw_score", &[0.1, -1.5, f32::NAN], |p, v| p.draw_score = v);
}

/// Each of `bad`, set by `set` into default parameters, is refused by
/// `validate` with an error naming `key`.
fn assert_refused(key: &str, bad: &[f32], set: impl Fn(&mut SearchParams, f32)) {
    for &v in bad {
        let mut p = SearchParams::plain();
        set(&mut p, v);
        let e = p.validate().unwrap_err();
        assert!(e.contains(key), "{key} = {v}: {e}");
    }
}

/// `material_utility`: over positions the evaluator calls certain draws,
/// a search whose evaluator predicts the opponent loses material after one
/// root move (and nothing elsewhere) values that move above the others
/// and plays it, with PUCT and Gumbel; at weight 0 every move is worth the
/// same. Play settings keep the weight; values outside [0, 1] are refused.
#[test]
fn material_utility_prefers_the_move_predicted_to_win_material() {
    struct MaterialAfter(Position);
    impl Evaluator<Position> for MaterialAfter {
        fn evaluate(&mut self, b: &[EvalRequest<'_, Position>]) -> Vec<Evaluation> {
            b.iter()
                .map(|r| Evaluation {
                    priors: vec![1.0 / r.moves.len() as f32; r.moves.len()],
                    wdl: Wdl::DRAW,
                    // The side to move there is the opponent: it is behind.
                    material: if *r.game.position() == self.0 { -0.5 } else { 0.0 },
                })
                .collect()
        }
    }
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    let moves = g.position().legal_moves();
    assert!(moves.len() > 2, "a choice at the root");
    let good = moves[moves.len() / 2];
    let mut after = g.detached();
    after.play_unchecked(&good);
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        for weight in [0.0f32, 0.4] {
            let params = SearchParams {
                algorithm: algo,
                simulations: 96,
                gumbel_noise: false,
                material_utility: weight,
                ..SearchParams::plain()
            };
            let mut t = Tree::new(&g, params, rng_stream(1, "t", 0));
            let r = search(&mut t, &mut MaterialAfter(*after.position())).unwrap();
            let gi = r.moves.iter().position(|m| *m == good).unwrap();
            let q_good = r.q[gi].expect("the move was searched");
            let others: Vec<f32> =
                r.q.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != gi)
                    .filter_map(|(_, q)| *q)
                    .collect();
            assert!(!others.is_empty(), "{algo:?}: other moves searched");
            if weight == 0.0 {
                for q in others.iter().chain([&q_good]) {
                    assert!(q.abs() < 1e-6, "{algo:?}: q {q}");
                }
            } else {
                assert!(q_good > 1e-3, "{algo:?}: q of the move {q_good}");
                for q in others {
                    assert!(q < q_good, "{algo:?}: {q} against the move's {q_good}");
                }
                assert_eq!(r.best, good, "{algo:?}: the move winning material is played");
            }
        }
    }
    let p = SearchParams {
        material_utility: 0.3,
        ..SearchParams::plain()
    };
    assert_eq!(p.for_play(64).material_utility, 0.3);
    assert!(p.validate().is_ok());
    assert_refused("material_utility", &[-0.1, 1.5, f32::NAN], |p, v| {
        p.material_utility = v
    });
}

/// `avoid_repetition`: after d1-c2 e8-d7 c2-d1 d7-e8 the Damones stand
/// where they started; d1-c2 would now repeat the position after the first
/// ply, so the root leaves it out and plays d1-e2, with PUCT and Gumbel,
/// in a fresh tree and in one reused over those four plies. Without the
/// setting both moves are searched. Where every move repeats (a lone
/// Damone on h1, whose only move is h1-g2) none is left out. Play
/// settings turn it off.
#[test]
fn avoid_repetition_leaves_out_root_moves_into_earlier_positions() {
    let shuffle = ["d1-c2", "e8-d7", "c2-d1", "d7-e8"];
    let names = |ms: &[Move]| -> Vec<String> {
        let mut v: Vec<String> = ms.iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    };
    let settings = |algorithm, simulations, avoid_repetition| SearchParams {
        algorithm,
        simulations,
        avoid_repetition,
        ..SearchParams::plain()
    };
    // Play the move written `m` in `g`; returns it.
    let play = |g: &mut Game<Position>, m: &str| {
        let mv = parse_move(g.position(), m).unwrap();
        g.play_unchecked(&mv);
        mv
    };
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        for reuse in [false, true] {
            for avoid in [false, true] {
                let params = settings(algo, 32, avoid);
                let mut g = game("W:WId1:BIe8");
                let mut t = Tree::new(&g, params.clone(), rng_stream(3, "t", 0));
                for m in shuffle {
                    if reuse {
                        search(&mut t, &mut UniformEvaluator).unwrap();
                    }
                    t.advance(&play(&mut g, m));
                }
                assert_eq!(g.repetitions(), 2);
                if !reuse {
                    t = Tree::new(&g, params.clone(), rng_stream(3, "t", 0));
                }
                let r = search(&mut t, &mut UniformEvaluator).unwrap();
                let got = names(&r.moves);
                let what = format!("{algo:?}, reuse {reuse}, avoid {avoid}");
                if avoid {
                    assert_eq!(got, ["d1-e2"], "{what}");
                    assert_eq!(r.best.to_string(), "d1-e2", "{what}");
                    assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{what}");
                    assert!((r.priors[0] - 1.0).abs() < 1e-6, "{what}: renormalised prior");
                } else {
                    assert_eq!(got, ["d1-c2", "d1-e2"], "{what}");
                }
            }
        }
        // Every move repeats: all stay.
        let mut g = game("W:WIh1:BIe8");
        for m in ["h1-g2", "e8-d7", "g2-h1", "d7-e8"] {
            play(&mut g, m);
        }
        let mut t = Tree::new(&g, settings(algo, 16, true), rng_stream(3, "t", 0));
        let r = search(&mut t, &mut UniformEvaluator).unwrap();
        assert_eq!(names(&r.moves), ["h1-g2"], "{algo:?}");
    }
    let p = SearchParams {
        avoid_repetition: true,
        ..SearchParams::plain()
    };
    assert!(!p.for_play(64).avoid_repetition);
}

/// `tactics_margin`: White's e4-d5 hangs a Pedina to Black's c6. With a
/// margin of half a Pedina the root leaves it out (PUCT and Gumbel, the
/// other moves' priors renormalised); with a margin of one Pedina, or none,
/// every move is searched. Play settings keep the check; a negative margin
/// is refused.
#[test]
fn tactics_margin_leaves_out_root_moves_that_lose_material() {
    for algorithm in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        for (margin, expect) in [(0.0, 5), (0.5, 4), (1.0, 5)] {
            let params = SearchParams {
                algorithm,
                simulations: 64,
                tactics_margin: margin,
                ..SearchParams::plain()
            };
            let g = game("W:We4,h3:Bb7,c6");
            let mut t = Tree::new(&g, params, rng_stream(3, "t", 0));
            let r = search(&mut t, &mut UniformEvaluator).unwrap();
            let names: Vec<String> = r.moves.iter().map(|m| m.to_string()).collect();
            assert_eq!(names.len(), expect, "{algorithm:?} margin {margin}: {names:?}");
            assert_eq!(
                names.contains(&"e4-d5".to_string()),
                expect == 5,
                "{algorithm:?} margin {margin}"
            );
            assert!(
                (r.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4,
                "{algorithm:?} margin {margin}"
            );
        }
    }
    let p = SearchParams {
        tactics_margin: 1.0,
        tactics_in_tree: true,
        ..SearchParams::plain()
    };
    assert_eq!(p.for_play(64).tactics_margin, 1.0);
    assert!(p.for_play(64).tactics_in_tree);
    assert_refused("tactics_margin", &[-0.5, f32::NAN], |p, v| p.tactics_margin = v);
}

/// Self-play samples hold a policy target over every legal move, with 0
/// for the moves the tactical check left out of the search (and the
/// targets' indices computed over the whole legal list), so that training
/// pushes those moves down rather than masking them out as illegal.
#[test]
fn selfplay_targets_cover_every_legal_move_with_zero_for_moves_left_out() {
    use damone::net::policy_indices;
    use damone::selfplay::{SelfPlay, SelfPlayConfig};
    let cfg = SelfPlayConfig {
        games_per_iteration: 4,
        parallel_games: 4,
        full_sims: 16,
        cheap_sims: 16,
        ..Default::default()
    };
    let rules = DrawRules {
        no_progress_plies: 40,
        max_plies: 120,
    };
    let mut sp = SelfPlay::new(&cfg, Position::start(Variant::Standard), rules, 5);
    let params = SearchParams {
        simulations: 16,
        tactics_margin: 0.5,
        tactics_in_tree: true,
        ..SearchParams::plain()
    };
    let (samples, _) = sp.run_iteration(&params, &cfg, &mut UniformEvaluator, 1, &mut |_| {}, &mut |_| {});
    assert!(!samples.is_empty());
    let mut zeros = 0;
    for s in &samples {
        let legal = s.pos.legal_moves();
        let mut want = policy_indices(&s.pos, &legal);
        let mut got: Vec<u16> = s.policy.iter().map(|&(j, _)| j).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{}", s.pos.to_fen());
        let sum: f32 = s.policy.iter().map(|&(_, p)| p).sum();
        assert!((sum - 1.0).abs() < 1e-3, "{sum}");
        zeros += s.policy.iter().filter(|&&(_, p)| p == 0.0).count();
    }
    assert!(
        zeros > 0,
        "the check left no move out in {} samples",
        samples.len()
    );
}

/// Lazy SMP: on 2 and 3 threads alpha-beta finds the forced win, and from
/// random positions plays a legal move at the depth it was given.
#[test]
fn alphabeta_on_several_threads() {
    let depth = |d| Limits {
        depth: Some(d),
        ..Default::default()
    };
    for threads in [2, 3] {
        let mut ab = AlphaBeta::new("ab".into(), depth(3)).with_threads(threads);
        assert_eq!(ab.threads(), threads);
        let (m, score) = ab.search(&game(WIN_IN_ONE));
        assert_eq!(m.to_string(), "c6-b7", "{threads} threads");
        assert!(score > 90_000, "{threads} threads: {score}");
    }
    let mut rng = rng_stream(3, "lazy-smp-positions", 0);
    let mut two = AlphaBeta::new("two".into(), depth(5)).with_threads(2);
    let mut searched = 0;
    for _ in 0..40 {
        let plies = rand::Rng::random_range(&mut rng, 4..60);
        let g = random_game(&mut rng, plies, |_| false);
        let legal = g.position().legal_moves();
        if g.outcome().is_some() || legal.len() < 2 {
            continue;
        }
        let (m, score) = two.search(&g);
        assert!(
            legal.contains(&m),
            "{m} is not legal in {}",
            g.position().to_fen()
        );
        if score.abs() < 90_000 {
            assert_eq!(two.last.0, 5, "the depth reached in {}", g.position().to_fen());
        }
        assert!(two.nodes() > 0);
        searched += 1;
    }
    assert!(searched >= 20, "only {searched} positions searched");
}

/// Counts the leaves of each evaluation call (uniform priors, a draw).
struct BatchSizes(std::sync::Arc<std::sync::Mutex<Vec<usize>>>);

impl Evaluator<Position> for BatchSizes {
    fn evaluate(&mut self, batch: &[EvalRequest<'_, Position>]) -> Vec<Evaluation> {
        self.0.lock().unwrap().push(batch.len());
        UniformEvaluator.evaluate(batch)
    }
}

/// A search player on a pool of 3 threads evaluates 3 leaves per call
/// (fewer only when the tree has no more to give), and keeps its budget;
/// without a pool, one leaf per call.
#[test]
fn a_search_player_on_a_pool_batches_one_leaf_per_thread() {
    use damone::arena::{MctsPlayer, Player as _};
    let params = SearchParams {
        simulations: 200,
        leaves_per_tree: 1,
        ..SearchParams::plain()
    };
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    for (threads, widest) in [(1, 1), (3, 3)] {
        let sizes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let pool = (threads > 1).then(|| std::sync::Arc::new(damone::util::thread_pool(threads).unwrap()));
        let mut p = MctsPlayer::with_evaluator(
            "p".into(),
            params.clone(),
            BatchSizes(sizes.clone()),
            rng_stream(1, "p", 0),
        )
        .with_pool(pool);
        let a = p.analyse(&g).unwrap();
        assert_eq!(a.simulations, 200);
        let sizes = sizes.lock().unwrap();
        assert_eq!(
            *sizes.iter().max().unwrap(),
            widest,
            "{threads} threads: {sizes:?}"
        );
        let full = sizes.iter().filter(|&&n| n == widest).count();
        assert!(full * 10 >= sizes.len() * 9, "{threads} threads: {sizes:?}");
    }
}

/// `threads=N` gives alpha-beta N threads; 0, too many, or on a player
/// that does not take it, is refused by name.
#[test]
fn the_threads_option() {
    let spec = PlayerSpec::parse("alphabeta:depth=2,threads=2").unwrap();
    let mut p = builtin_factory::<Position>(&spec).unwrap()(1);
    let g = Game::new(Position::start(Variant::Standard), DrawRules::default());
    assert!(g.position().legal_moves().contains(&p.choose(&g)));
    for bad in [
        "alphabeta:threads=0",
        "alphabeta:threads=1000",
        "alphabeta:threads=two",
        "mcts:threads=2",
    ] {
        let e = builtin_factory::<Position>(&PlayerSpec::parse(bad).unwrap())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("threads"), "{bad}: {e}");
    }
}

/// `selfplay.search_value` changes only the search value a sample keeps:
/// the same games and policy targets, and with `move` a value other than
/// the root's mean wherever the search spread its simulations.
#[test]
fn selfplay_search_value_picks_the_samples_value_only() {
    use damone::selfplay::{SearchValue, SelfPlayConfig};
    let play = |search_value| {
        let cfg = SelfPlayConfig {
            games_per_iteration: 3,
            parallel_games: 3,
            full_sims: 16,
            cheap_sims: 8,
            search_value,
            ..Default::default()
        };
        let mut sp = short_selfplay(&cfg, 9);
        let params = SearchParams {
            simulations: 16,
            ..SearchParams::default()
        };
        sp.run_iteration(
            &params,
            &cfg,
            &mut ByPosition::default(),
            1,
            &mut |_| {},
            &mut |_| {},
        )
        .0
    };
    let (root, chosen) = (play(SearchValue::Root), play(SearchValue::Move));
    assert_eq!(root.len(), chosen.len());
    assert!(root.len() > 50, "{} samples", root.len());
    let mut differ = 0;
    for (a, b) in root.iter().zip(&chosen) {
        assert!(
            a.pos == b.pos && a.policy == b.policy && a.z == b.z,
            "{}",
            a.pos.to_fen()
        );
        differ += usize::from(a.q != b.q);
    }
    assert!(
        differ * 2 > root.len(),
        "the chosen move's value differs from the root's mean in only {differ} of {} samples",
        root.len()
    );
}
