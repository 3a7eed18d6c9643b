//! The vectorised environment on its own: observations, masks, step with
//! action indices, rewards, done flags and automatic reset.

use damone::game::{
    damone::{Move, Position, Variant},
    GamePosition,
};
use damone::net::{policy_indices, Inputs, Observation, POLICY_SIZE};
use damone::selfplay::{Encoder, EnvError, VecEnv};
use rand::{Rng, SeedableRng};

/// The network's encoding (the larger input set), as an `Encoder`.
struct NetEncoding;

impl Encoder<Position> for NetEncoding {
    fn observation_len(&self) -> usize {
        Inputs::Draughts.planes() * 64
    }
    fn action_space(&self) -> usize {
        POLICY_SIZE
    }
    fn encode(&self, game: &damone::game::Game<Position>, out: &mut [f32]) {
        Observation::of_game(game, Inputs::Draughts).write_planes(Inputs::Draughts, out);
    }
    fn action_indices(&self, pos: &Position, moves: &[Move]) -> Vec<usize> {
        policy_indices(pos, moves)
            .into_iter()
            .map(|i| i as usize)
            .collect()
    }
}

#[test]
fn random_agents_play_through_the_vecenv() {
    let enc = NetEncoding;
    let mut env = VecEnv::new(16, Position::start(Variant::Standard), Default::default(), 2, 9);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut finished = 0;
    let mut rewards = 0.0f32;
    for _ in 0..3000 {
        let obs = env.observations(&enc);
        assert_eq!(obs.len(), 16 * Inputs::Draughts.planes() * 64);
        let masks = env.action_masks(&enc);
        assert_eq!(masks.len(), 16 * POLICY_SIZE);
        let actions: Vec<usize> = (0..16)
            .map(|i| {
                let legal: Vec<usize> = (0..POLICY_SIZE).filter(|&a| masks[i * POLICY_SIZE + a]).collect();
                assert_eq!(legal.len(), env.legal_moves(i).len());
                legal[rng.random_range(0..legal.len())]
            })
            .collect();
        let r = env.step(&enc, &actions).unwrap();
        for i in 0..16 {
            if r.dones[i] {
                finished += 1;
                rewards += r.rewards[i].abs();
                assert!(r.outcomes[i].is_some());
                // The game was reset: a fresh game after its opening plies.
                assert!(env.games()[i].ply() <= 2);
            } else {
                assert_eq!(r.rewards[i], 0.0);
            }
        }
    }
    assert!(finished > 16, "{finished} games finished");
    assert!(rewards > 0.0, "some games were decided");
    // Wrong batch size and illegal actions are errors, not panics.
    assert!(matches!(env.step(&enc, &[0]), Err(EnvError::BatchSize { .. })));
    let masks = env.action_masks(&enc);
    let illegal = (0..POLICY_SIZE).find(|&a| !masks[a]).unwrap();
    let mut actions: Vec<usize> = (0..16)
        .map(|i| (0..POLICY_SIZE).find(|&a| masks[i * POLICY_SIZE + a]).unwrap())
        .collect();
    actions[0] = illegal;
    assert!(matches!(
        env.step(&enc, &actions),
        Err(EnvError::IllegalAction { game: 0, .. })
    ));
}

/// One self-play iteration with `cfg` from the standard start, 8-simulation
/// searches on the uniform evaluator, draws after 40 plies without
/// progress or 120 in all (finished games kept, for tests that walk them).
fn selfplay_iteration(
    cfg: &damone::selfplay::SelfPlayConfig,
) -> (
    damone::selfplay::SelfPlay<Position>,
    Vec<damone::data::Sample<Position>>,
    damone::selfplay::SelfPlayStats,
) {
    use damone::game::DrawRules;
    use damone::mcts::{SearchParams, UniformEvaluator};
    let rules = DrawRules {
        no_progress_plies: 40,
        max_plies: 120,
    };
    let mut sp = damone::selfplay::SelfPlay::new(cfg, Position::start(Variant::Standard), rules, 3);
    sp.keep_finished_games();
    let params = SearchParams {
        simulations: 8,
        ..SearchParams::plain()
    };
    let (samples, stats) = sp.run_iteration(&params, cfg, &mut UniformEvaluator, 5, &mut |_| {}, &mut |_| {});
    (sp, samples, stats)
}

/// `skip_forced`: a position with one legal move is played at once, with no
/// network call and no training sample; without it, such positions are
/// searched and sampled like any other.
#[test]
fn selfplay_plays_forced_moves_without_search() {
    use damone::selfplay::SelfPlayConfig;
    let run = |skip: bool| {
        let cfg = SelfPlayConfig {
            games_per_iteration: 6,
            parallel_games: 6,
            full_sims: 8,
            cheap_sims: 4,
            full_search_prob: 1.0,
            resign_threshold: 1.0,
            skip_forced: skip,
            ..Default::default()
        };
        let (_, samples, stats) = selfplay_iteration(&cfg);
        (samples, stats)
    };
    let (with, s_with) = run(true);
    let (without, s_without) = run(false);
    let forced = |samples: &[damone::data::Sample<Position>]| {
        samples.iter().filter(|s| s.pos.legal_moves().len() == 1).count()
    };
    assert!(s_with.forced > 0, "no forced move in 6 games");
    assert_eq!(forced(&with), 0, "a forced position became a sample");
    assert!(s_with.samples + s_with.forced <= s_with.plies);
    assert_eq!(s_without.forced, 0);
    assert!(
        forced(&without) > 0,
        "without the skip, forced positions are sampled"
    );
}

/// `cheap_samples`: cheap searches make samples too, so with it every
/// searched position is a sample; without it only the full searches' are.
#[test]
fn selfplay_cheap_samples_sample_every_searched_position() {
    use damone::selfplay::SelfPlayConfig;
    let run = |cheap: bool| {
        let cfg = SelfPlayConfig {
            games_per_iteration: 4,
            parallel_games: 1,
            full_sims: 8,
            cheap_sims: 4,
            full_search_prob: 0.25,
            cheap_samples: cheap,
            opening_plies: 2,
            resign_threshold: 1.0,
            ..Default::default()
        };
        let (mut sp, samples, _) = selfplay_iteration(&cfg);
        // The positions searched in the finished games (one game at a time,
        // so every sample is theirs): those with a choice of moves, after
        // the random opening.
        let mut searched = 0;
        for (g, _) in sp.take_finished_games() {
            let mut pos = *g.start();
            for (k, m) in g.moves().iter().enumerate() {
                searched += usize::from(k >= cfg.opening_plies as usize && pos.legal_moves().len() > 1);
                pos.play_unchecked(m);
            }
        }
        (samples.len(), searched)
    };
    let (with, searched) = run(true);
    assert!(searched > 50, "{searched} searched positions");
    assert_eq!(with, searched, "every searched position is a sample");
    let (without, searched) = run(false);
    let share = without as f64 / searched as f64;
    assert!(
        (0.1..0.45).contains(&share),
        "without cheap samples, {share:.2} of searched positions were samples"
    );
}

/// With cheap samples, every search may be cheap: `full_search_prob = 0`
/// still makes samples, so only a config without them refuses it.
#[test]
fn full_search_prob_zero_needs_cheap_samples() {
    use damone::selfplay::SelfPlayConfig;
    let cfg = |cheap_samples| SelfPlayConfig {
        full_search_prob: 0.0,
        cheap_samples,
        ..Default::default()
    };
    let e = cfg(false).validate().unwrap_err();
    assert!(
        e.contains("selfplay.full_search_prob") && e.contains("selfplay.cheap_samples"),
        "{e}"
    );
    assert_eq!(cfg(true).validate(), Ok(()));
}

/// Growing simulation counts: full searches go linearly from
/// `full_sims_start` to `full_sims` over `sims_ramp_steps` training steps,
/// cheap ones keep their ratio; off, the settings stay as they are.
#[test]
fn simulation_counts_grow_over_the_ramp() {
    use damone::selfplay::SelfPlayConfig;
    let cfg = SelfPlayConfig {
        full_sims: 48,
        cheap_sims: 12,
        full_sims_start: 16,
        sims_ramp_steps: 1000,
        ..Default::default()
    };
    let at = |step: f64| {
        let c = cfg.at_step(step);
        (c.full_sims, c.cheap_sims)
    };
    assert_eq!(at(0.0), (16, 4));
    assert_eq!(at(500.0), (32, 8));
    assert_eq!(at(999.0), (48, 12));
    assert_eq!(cfg.at_step(1000.0), cfg);
    assert_eq!(cfg.at_step(50_000.0), cfg);
    let off = SelfPlayConfig {
        full_sims_start: 0,
        ..cfg.clone()
    };
    assert_eq!(off.at_step(0.0), off);
    let bad = SelfPlayConfig {
        full_sims_start: 64,
        ..cfg
    };
    let e = bad.validate().unwrap_err();
    assert!(e.contains("selfplay.full_sims_start"), "{e}");
}

/// The parallel batch environment: masks are the legal moves' policy
/// indices, rewards are zero-sum and only at the end, a seed gives the same
/// games, an illegal action changes nothing.
#[test]
fn batch_env_steps_games_in_parallel() {
    use damone::selfplay::{BatchEnv, BatchError, BatchOptions, BatchOutputs};
    struct Bufs {
        planes: Vec<f32>,
        masks: Vec<bool>,
        rewards: Vec<f32>,
        terminated: Vec<bool>,
        truncated: Vec<bool>,
        to_play: Vec<u8>,
    }
    impl Bufs {
        fn new(n: usize) -> Bufs {
            Bufs {
                planes: vec![0.0; n * 9 * 64],
                masks: vec![false; n * POLICY_SIZE],
                rewards: vec![0.0; n * 2],
                terminated: vec![false; n],
                truncated: vec![false; n],
                to_play: vec![0; n],
            }
        }
        fn out(&mut self) -> BatchOutputs<'_> {
            BatchOutputs {
                planes: &mut self.planes,
                masks: &mut self.masks,
                rewards: &mut self.rewards,
                terminated: &mut self.terminated,
                truncated: &mut self.truncated,
                to_play: &mut self.to_play,
            }
        }
    }
    let n = 32;
    let opts = BatchOptions {
        opening_plies: 2,
        ..Default::default()
    };
    let start = Position::start(Variant::Standard);
    let (mut a, mut b) = (BatchEnv::new(n, start, opts, 5), BatchEnv::new(n, start, opts, 6));
    let (mut ba, mut bb) = (Bufs::new(n), Bufs::new(n));
    a.reset(None, ba.out()).unwrap();
    b.reset(Some(5), bb.out()).unwrap();
    let mut actions = vec![0i64; n];
    let mut ended = 0;
    for _ in 0..300 {
        for i in 0..n {
            let (moves, idx) = a.legal(i);
            assert_eq!(idx, &policy_indices(a.game(i).position(), moves)[..]);
            let lit: Vec<usize> = (0..POLICY_SIZE)
                .filter(|&k| ba.masks[i * POLICY_SIZE + k])
                .collect();
            assert_eq!(lit.len(), moves.len());
            assert_eq!(ba.to_play[i], a.game(i).position().side_to_move() as u8);
        }
        a.random_actions(&mut actions).unwrap();
        a.step(&actions, ba.out()).unwrap();
        let mut other = vec![0i64; n];
        b.random_actions(&mut other).unwrap();
        assert_eq!(actions, other, "the same seed draws the same actions");
        b.step(&other, bb.out()).unwrap();
        assert_eq!(ba.planes, bb.planes);
        for i in 0..n {
            assert_eq!(ba.rewards[2 * i], -ba.rewards[2 * i + 1]);
            assert!(ba.terminated[i] || ba.rewards[2 * i] == 0.0);
            ended += ba.terminated[i] as usize;
        }
    }
    assert!(ended > 0, "some games ended");
    let before: Vec<String> = (0..n).map(|i| a.game(i).position().to_fen()).collect();
    a.random_actions(&mut actions).unwrap();
    actions[3] = -1;
    assert_eq!(
        a.step(&actions, ba.out()),
        Err(BatchError::IllegalAction { game: 3, action: -1 })
    );
    assert!(matches!(
        a.step(&actions[..2], ba.out()),
        Err(BatchError::BatchSize { .. })
    ));
    let after: Vec<String> = (0..n).map(|i| a.game(i).position().to_fen()).collect();
    assert_eq!(before, after);
    let mut small = Bufs::new(n - 1);
    assert!(matches!(
        a.reset(None, small.out()),
        Err(BatchError::Buffers { .. })
    ));
}
