//! The fast inference path equals burn's forward pass (to 1e-4) on random
//! positions, for several shapes and batch sizes, with batch-norm statistics
//! and weights moved away from their initial values by a few training steps;
//! the search's evaluator gives burn's priors, WDL and predicted material.

use burn::module::Module as _;
use burn::tensor::activation::softmax;
use burn::tensor::Device;
use damone::game::{
    dameo,
    damone::{Position, Variant},
    GamePosition,
};
use damone::mcts::{EvalRequest, Evaluator};
use damone::net::{
    bench_games, planes_tensor, Board, BoardCells, ConvAlgorithm, FastNet, Inputs, ModelConfig, Net,
    NetEvaluator, Observation, PolicyHeadKind,
};
use damone::train::{bench_samples, TrainParams, Trainer};

/// A network of shape `model` after three training steps (so that batch
/// norm's running statistics, scales and shifts are not the identity).
fn trained(model: ModelConfig, seed: u64) -> Net {
    let device = Device::flex();
    device.seed(seed);
    let params = TrainParams {
        batch_size: 32,
        warmup_steps: 0,
        lr: 0.02,
        ..TrainParams::default()
    };
    let mut trainer = Trainer::new(model, params, device);
    let games = bench_games(Position::start(Variant::Standard), 64, seed);
    let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
    let samples = bench_samples(&games, &moves);
    let mut rng = damone::util::rng_stream(seed, "fastnet-test", 0);
    for step in 0..3 {
        let batch: Vec<_> = samples[step * 16..step * 16 + 32].iter().collect();
        trainer.train_step(&batch, &mut rng);
    }
    trainer.net().valid()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// [`check_game`] on Damone positions.
fn check(model: ModelConfig, seed: u64) {
    check_game(model, seed, Position::start(Variant::Standard));
}

/// The largest magnitude among `logits` and the tolerance for two
/// computations of them: 1e-4, or 1e-5 of the largest logit where logits
/// pass 10 (the bilinear head's logits of moves that are never legal grow
/// into the hundreds; f32 sums in another order differ by rounding in
/// proportion).
fn logit_tolerance(logits: &[f32]) -> (f32, f32) {
    let largest = logits.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    (largest, 1e-4 * (largest / 10.0).max(1.0))
}

/// The fast path against burn on positions of the game of `start` (the
/// network is trained a few steps on Damone samples either way: only the
/// arithmetic is compared).
fn check_game<P: Board>(model: ModelConfig, seed: u64, start: P) {
    assert_eq!(model.board, P::CELLS, "a network for the game's cells");
    let net = trained(model.clone(), seed);
    let fast = FastNet::from_net(&net);
    let im2col = FastNet::with_algorithm(&net, ConvAlgorithm::Im2col);
    let games = bench_games(start, 70, seed + 100);
    let obs: Vec<Observation> = games
        .iter()
        .map(|g| Observation::of_game(g, model.inputs))
        .collect();
    for n in [1, 7, 8, 9, 33, 70] {
        let (p, v) = net.forward(planes_tensor(&obs[..n], model.inputs, &Device::flex()));
        let p = p.into_data().try_to_vec::<f32>().unwrap();
        let v = v.into_data().try_to_vec::<f32>().unwrap();
        for (what, f) in [("winograd", &fast), ("im2col", &im2col)] {
            let (fp, fv) = f.forward(&obs[..n]);
            let dp = max_diff(&p, &fp);
            let dv = max_diff(&v, &fv);
            let (largest, tolerance) = logit_tolerance(&p);
            assert!(
                dp <= tolerance,
                "{model:?} {what} batch {n}: policy logits differ by {dp} (largest {largest})"
            );
            assert!(
                dv <= 1e-4,
                "{model:?} {what} batch {n}: value logits differ by {dv}"
            );
        }
    }
    // The search's evaluator: priors at the legal moves and WDL equal the
    // softmaxes of burn's outputs.
    let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
    let reqs: Vec<EvalRequest<'_, P>> = games
        .iter()
        .zip(&moves)
        .map(|(g, m)| EvalRequest { game: g, moves: m })
        .collect();
    let evals = NetEvaluator::new(&net).evaluate(&reqs);
    let o = net.forward_all(planes_tensor(&obs, model.inputs, &Device::flex()));
    let (p, v) = (o.policy, o.value);
    let v = softmax(v, 1).into_data().try_to_vec::<f32>().unwrap();
    let p = p.into_data().try_to_vec::<f32>().unwrap();
    // The predicted final material: the auxiliary head's first output, or
    // 0 for a network without the head.
    let material: Vec<f32> = match o.aux {
        Some(a) => a
            .into_data()
            .try_to_vec::<f32>()
            .unwrap()
            .chunks_exact(damone::net::AUX_OUTPUTS)
            .map(|r| r[0])
            .collect(),
        None => vec![0.0; games.len()],
    };
    assert!(
        !model.aux_heads || material.iter().any(|&m| m != 0.0),
        "the head's outputs are not all 0: a weak test"
    );
    for (i, e) in evals.iter().enumerate() {
        let idx = damone::net::policy_indices(games[i].position(), &moves[i]);
        let logits: Vec<f32> = idx
            .iter()
            .map(|&j| p[i * damone::net::POLICY_SIZE + j as usize])
            .collect();
        let m = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let ex: Vec<f32> = logits.iter().map(|x| (x - m).exp()).collect();
        let s: f32 = ex.iter().sum();
        let want: Vec<f32> = ex.iter().map(|x| x / s).collect();
        // A prior moves by at most half its logits' difference, so the
        // logits' tolerance holds for the priors too.
        let (largest, tolerance) = logit_tolerance(&logits);
        let dp = max_diff(&want, &e.priors);
        assert!(
            dp <= tolerance,
            "position {i}: priors differ by {dp} (largest legal logit {largest})"
        );
        assert!(
            max_diff(&v[i * 3..i * 3 + 3], &e.wdl.to_array()) <= 1e-4,
            "position {i}: WDL differs"
        );
        assert!(
            (material[i] - e.material).abs() <= 1e-4,
            "position {i}: material {} against {}",
            e.material,
            material[i]
        );
    }
}

#[test]
fn fast_path_equals_burn_default_shape() {
    // The shipped default (configs/default.toml), and the same tower with
    // AlphaZero's dense head.
    check(ModelConfig::default(), 1);
    check(
        ModelConfig {
            policy_head: PolicyHeadKind::Dense,
            policy_planes: 2,
            aux_heads: false,
            ..ModelConfig::default()
        },
        6,
    );
}

#[test]
fn fast_path_equals_burn_other_shapes() {
    check(
        ModelConfig {
            blocks: 1,
            channels: 12,
            value_hidden: 5,
            policy_head: PolicyHeadKind::Dense,
            policy_planes: 8,
            inputs: Inputs::Draughts,
            aux_heads: true,
            reply_head: true,
            board: BoardCells::DARK,
        },
        2,
    );
    check(
        ModelConfig {
            blocks: 2,
            channels: 48,
            value_hidden: 64,
            policy_head: PolicyHeadKind::Dense,
            policy_planes: 3,
            inputs: Inputs::Draughts,
            aux_heads: true,
            reply_head: true,
            board: BoardCells::DARK,
        },
        3,
    );
}

#[test]
fn fast_path_equals_burn_bilinear_head() {
    check(
        ModelConfig {
            blocks: 2,
            channels: 32,
            value_hidden: 64,
            policy_head: PolicyHeadKind::Bilinear,
            policy_planes: 16,
            inputs: Inputs::Basic,
            aux_heads: true,
            reply_head: false,
            board: BoardCells::DARK,
        },
        4,
    );
    check(
        ModelConfig {
            blocks: 1,
            channels: 12,
            value_hidden: 5,
            policy_head: PolicyHeadKind::Bilinear,
            policy_planes: 3,
            inputs: Inputs::Draughts,
            aux_heads: false,
            reply_head: false,
            board: BoardCells::DARK,
        },
        5,
    );
}

#[test]
fn fast_path_equals_burn_on_all_64_cells() {
    // Dameo's board: the bilinear head over 64 x 64 start and end cells,
    // and the dense head, on Dameo positions.
    for (head, planes, seed) in [(PolicyHeadKind::Bilinear, 16, 6), (PolicyHeadKind::Dense, 2, 7)] {
        let model = ModelConfig {
            policy_head: head,
            policy_planes: planes,
            inputs: Inputs::Draughts,
            board: BoardCells::ALL,
            ..ModelConfig::default()
        };
        check_game(model, seed, <dameo::Position as GamePosition>::start(()));
    }
}

/// A batch gives the same bits on any number of threads (a small batch,
/// a player's few leaves, is spread over every thread one position a
/// task; a large one in chunks).
#[test]
fn outputs_do_not_depend_on_threads() {
    let model = ModelConfig::default();
    let net = trained(model.clone(), 7);
    let fast = FastNet::from_net(&net);
    let games = bench_games(Position::start(Variant::Standard), 20, 9);
    let obs: Vec<Observation> = games
        .iter()
        .map(|g| Observation::of_game(g, model.inputs))
        .collect();
    for n in [1, 2, 3, 5, 9, 16, 20] {
        let on = |threads: usize| {
            damone::util::thread_pool(threads)
                .unwrap()
                .install(|| fast.forward(&obs[..n]))
        };
        let one = on(1);
        for threads in [2, 3] {
            assert!(
                on(threads) == one,
                "batch {n}: outputs differ on {threads} threads"
            );
        }
    }
}
