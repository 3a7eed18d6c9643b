//! Tests of the self-play driver.

use super::*;
use crate::game::{
    damone::{Position, Variant},
    GamePosition,
};

/// The trees' work is spread over the pool's threads, each tree on one
/// thread in order: the same samples on 1 thread as on 2.
#[test]
fn samples_do_not_depend_on_the_number_of_threads() {
    let cfg = SelfPlayConfig {
        games_per_iteration: 6,
        parallel_games: 8,
        full_sims: 16,
        cheap_sims: 4,
        ..SelfPlayConfig::default()
    };
    let search = SearchParams::default();
    let play = |threads: usize| {
        let start = <crate::game::dameo::Position as crate::game::GamePosition>::start(());
        let mut sp = SelfPlay::new(&cfg, start, DrawRules::default(), 3);
        let pool = crate::util::thread_pool(threads).unwrap();
        let mut ev = crate::mcts::UniformEvaluator;
        let (samples, stats) =
            pool.install(|| sp.run_iteration(&search, &cfg, &mut ev, 4, &mut |_| {}, &mut |_| {}));
        (samples, stats.games, sp.to_bytes())
    };
    let (one, games, bytes) = play(1);
    assert!(
        games >= 6 && one.len() > 100,
        "{games} games, {} samples",
        one.len()
    );
    let (two, _, bytes2) = play(2);
    assert!(one == two, "samples differ between 1 and 2 threads");
    assert!(bytes == bytes2, "games in flight differ between 1 and 2 threads");
}

/// The reply of ply `p` is the move of ply `p + 1`, indexed in the
/// position it was played in; the last ply has none.
#[test]
fn replies_are_the_next_ply_in_its_own_frame() {
    let mut game = Game::new(Position::start(Variant::Standard), DrawRules::default());
    let mut positions = Vec::new();
    for k in 0..6 {
        positions.push(*game.position());
        let legal = game.position().legal_moves();
        let m = legal[k % legal.len()];
        game.play(&m).unwrap();
    }
    let r = reply_indices(&game);
    assert_eq!(r.len(), 6);
    assert_eq!(r[5], None);
    for p in 0..5 {
        let pos = &positions[p + 1];
        let legal = pos.legal_moves();
        let j = legal.iter().position(|m| *m == game.moves()[p + 1]).unwrap();
        assert_eq!(r[p], Some(policy_indices(pos, &legal)[j]), "ply {p}");
    }
}
