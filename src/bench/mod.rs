//! Benchmarks (`damone bench`): perft leaf nodes per second, alpha-beta
//! nodes per second, MCTS simulations per second, and the network's
//! evaluations and training samples per second on each device, thread
//! count and batch, interleaved so that figures of one run compare. Each
//! suite reports its figures through a callback as they are measured; the
//! command line only prints them. One search on several threads is
//! measured in [`threads`].

pub mod learned;
pub mod threads;

use crate::arena::{AlphaBeta, Limits};
use crate::data::Sample;
use crate::game::{
    dameo, italian, perft, DrawRules, Game, GameKind, GamePosition, MoveList, Position, Variant,
};
use crate::mcts::{search, EvalRequest, Evaluator, SearchAlgorithm, SearchParams, Tree, UniformEvaluator};
use crate::net::{
    bench_games, planes_tensor, ComputeDevice, ConvAlgorithm, DeviceChoice, FastNet, ModelConfig, Net,
    NetEvaluator, Observation,
};
use crate::train::{bench_samples, TrainParams, Trainer};
use crate::util::rng_stream;
use burn::module::Module as _;
use burn::tensor::Device;
use std::time::Instant;

/// Positions of the perft and search suites: the start position and two
/// middle games, each with the depth it is searched less than the others.
pub const BENCH_FENS: [(&str, u32); 3] = [
    ("W:WIh1,Df1,Dh3,d1,e2,f3,g4,h5:BIa8,Da6,Dc8,a4,b5,c6,d7,e8", 0),
    ("W:WIg2,Df1,Dh3,d3,e4,f3,g4,h5:BIb7,Da6,Dc8,a4,b5,c6,d5,e8", 0),
    ("B:WIh1,Df1,Dg2,c2,e2,f3,e4:BIa8,Db7,Dc6,b5,d5,f5,a4", 0),
];

/// Italian positions of the perft suite, each with the plies it is counted
/// deeper than the Damone positions (Italian trees are narrower): the
/// start position and two of Ed Gilbert's test positions.
pub const ITALIAN_BENCH_FENS: [(&str, u32); 3] = [
    ("W:W21-32:B1-12", 2),
    ("W:W30,26,27,22,23,24,17,18,20:B14,15,16,9,11,5,6,1,3", 4),
    ("W:WK27,K28,17,20,9,K12,8:B21,24,K19,K13,14,K11,4", 0),
];

/// Dameo positions of the perft suite, each with the plies it is counted
/// less than the Damone positions (Dameo's opening is far wider; its
/// middle games are narrowed by compulsory captures): the start position
/// and two positions of random playouts, a middle game and an ending, each
/// with kings.
pub const DAMEO_BENCH_FENS: [(&str, u32); 3] = [
    ("W:Wa1-h1,b2-g2,c3-f3:Bc6-f6,b7-g7,a8-h8", 4),
    ("W:Wa1,c1,f1,g1,h1,c2,e2,f3,c4,f4,f5,g5,Kh6:Ba4,b7,f7,h8", 2),
    ("B:Wa2:Ba4,f5,c6,e6,c7,f7,h7,e8,f8,Kd2", 1),
];

/// One perft measurement: the best of the repetitions.
#[derive(Clone, Debug)]
pub struct PerftFigure {
    pub game: GameKind,
    pub fen: &'static str,
    pub depth: u32,
    pub nodes: u64,
    pub seconds: f64,
}

/// Perft of each bench position of the three games at `depth` (Damone's
/// and Dameo's less their deltas, Italian's plus its extra plies), the
/// fastest of `repeat` runs each, the games interleaved.
pub fn perft_suite(depth: u32, repeat: u32) -> Result<Vec<PerftFigure>, String> {
    let mut out = Vec::new();
    for i in 0..BENCH_FENS.len() {
        let (fen, delta) = BENCH_FENS[i];
        let pos = Position::from_fen(fen, Variant::Standard).map_err(|e| e.to_string())?;
        out.push(time_perft(&pos, fen, depth.saturating_sub(delta).max(1), repeat));
        let (fen, extra) = ITALIAN_BENCH_FENS[i];
        let pos = italian::Position::from_setup(fen).map_err(|e| e.to_string())?;
        out.push(time_perft(&pos, fen, depth + extra, repeat));
        let (fen, delta) = DAMEO_BENCH_FENS[i];
        let pos = dameo::Position::from_setup(fen).map_err(|e| e.to_string())?;
        out.push(time_perft(&pos, fen, depth.saturating_sub(delta).max(1), repeat));
    }
    Ok(out)
}

fn time_perft<P: GamePosition>(pos: &P, fen: &'static str, depth: u32, repeat: u32) -> PerftFigure {
    let mut best = f64::INFINITY;
    let mut nodes = 0;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        nodes = perft(pos, depth);
        best = best.min(t.elapsed().as_secs_f64());
    }
    PerftFigure {
        game: P::KIND,
        fen,
        depth,
        nodes,
        seconds: best,
    }
}

/// Alpha-beta at depth 9 from one bench position.
#[derive(Clone, Debug)]
pub struct AlphaBetaFigure {
    pub fen: &'static str,
    pub nodes: u64,
    pub seconds: f64,
}

/// Alpha-beta to depth 9 from each bench position, on one core.
pub fn alphabeta_suite() -> Result<Vec<AlphaBetaFigure>, String> {
    let mut out = Vec::new();
    for (fen, _) in BENCH_FENS {
        let pos = Position::from_fen(fen, Variant::Standard).map_err(|e| e.to_string())?;
        let g = Game::new(pos, DrawRules::default());
        let limits = Limits {
            depth: Some(9),
            ..Default::default()
        };
        let mut ab = AlphaBeta::new("bench".into(), limits);
        let t = Instant::now();
        ab.search(&g);
        out.push(AlphaBetaFigure {
            fen,
            nodes: ab.nodes(),
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    Ok(out)
}

/// MCTS from the start position with a zero-value evaluator.
#[derive(Clone, Debug)]
pub struct MctsFigure {
    pub algorithm: SearchAlgorithm,
    pub simulations: u32,
    pub nodes: usize,
    pub seconds: f64,
}

/// 200,000 simulations in one tree, PUCT then Gumbel.
pub fn mcts_suite() -> Vec<MctsFigure> {
    let g = Game::from_variant(Variant::Standard, DrawRules::default());
    [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel]
        .into_iter()
        .map(|algorithm| {
            let simulations = 200_000;
            let params = SearchParams {
                algorithm,
                simulations,
                ..SearchParams::plain()
            };
            let mut tree = Tree::new(&g, params, rng_stream(1, "bench", 0));
            let t = Instant::now();
            search(&mut tree, &mut UniformEvaluator);
            MctsFigure {
                algorithm,
                simulations,
                nodes: tree.node_count(),
                seconds: t.elapsed().as_secs_f64(),
            }
        })
        .collect()
}

/// What the network suite measures.
#[derive(Clone, Debug)]
pub struct NetBenchConfig {
    pub model: ModelConfig,
    pub train: TrainParams,
    /// Batch sizes, each measured in turn.
    pub batches: Vec<usize>,
    /// Thread counts, each a rayon pool of its own.
    pub threads: Vec<usize>,
    /// Devices, interleaved per setting.
    pub devices: Vec<DeviceChoice>,
    /// Seconds of measurement per figure.
    pub seconds: f64,
    /// Also time burn's forward pass, im2col convolutions and burn's
    /// autodiff training step.
    pub ablation: bool,
    /// Skip the training-step figures.
    pub no_train: bool,
}

/// One network figure: `what` per second at a setting.
#[derive(Clone, Debug)]
pub struct NetFigure {
    /// `forward`, `evaluator`, `train`, or with the ablation
    /// `burn_forward`, `forward_im2col`, `train_burn`.
    pub what: &'static str,
    pub threads: usize,
    pub batch: usize,
    pub per_second: f64,
    /// positions, evaluations or samples.
    pub unit: &'static str,
    /// `cpu` or `gpu`.
    pub device: &'static str,
}

/// One device under measurement: its network for burn's forward pass and
/// the search's evaluator.
struct BenchDevice {
    label: &'static str,
    device: ComputeDevice,
    valid: Net,
    evaluator: NetEvaluator,
}

/// The inputs every setting reads: games, their legal moves, observations
/// and training samples, as many as the largest batch.
struct BenchInputs {
    games: Vec<Game>,
    moves: Vec<MoveList>,
    observations: Vec<Observation>,
    samples: Vec<Sample>,
}

/// Measure every figure of `cfg`, reporting each through `report`; the
/// device descriptions go to `describe` first.
pub fn net_suite(
    cfg: &NetBenchConfig,
    describe: &mut dyn FnMut(&str, &str),
    report: &mut (dyn FnMut(NetFigure) + Send),
) -> Result<(), String> {
    if !(cfg.seconds > 0.0 && cfg.seconds <= 600.0) {
        return Err(format!("--seconds must be in (0, 600], got {}", cfg.seconds));
    }
    let flex = Device::flex();
    flex.seed(1);
    let net = cfg.model.init(&flex);
    let mut devices = Vec::new();
    for &choice in &cfg.devices {
        let device = ComputeDevice::select(choice).map_err(|e| format!("--device {choice}: {e}"))?;
        let label = if device.is_gpu() { "gpu" } else { "cpu" };
        describe(label, device.describe());
        let valid = net.valid().to_device(device.burn());
        let evaluator = NetEvaluator::on_device(&net, &device);
        devices.push(BenchDevice {
            label,
            device,
            valid,
            evaluator,
        });
    }
    let im2col = cfg
        .ablation
        .then(|| NetEvaluator::with_fast(FastNet::with_algorithm(&net, ConvAlgorithm::Im2col)));
    let inputs = bench_inputs(cfg);
    for &threads in &cfg.threads {
        let pool = crate::util::thread_pool(threads)?;
        pool.install(|| {
            for &batch in &cfg.batches {
                for d in devices.iter_mut() {
                    let at = Setting { threads, batch };
                    measure_inference(cfg, d, im2col.as_ref(), &inputs, at, report);
                    measure_training(cfg, d, &inputs, at, report);
                }
            }
        });
    }
    Ok(())
}

/// A thread count and batch under measurement.
#[derive(Clone, Copy)]
struct Setting {
    threads: usize,
    batch: usize,
}

fn bench_inputs(cfg: &NetBenchConfig) -> BenchInputs {
    let max_batch = cfg.batches.iter().copied().max().unwrap_or(1);
    let games = bench_games(max_batch, 1);
    let moves: Vec<MoveList> = games.iter().map(|g| g.position().legal_moves()).collect();
    let observations = games
        .iter()
        .map(|g| Observation::of_game(g, cfg.model.inputs))
        .collect();
    let samples = bench_samples(&games, &moves);
    BenchInputs {
        games,
        moves,
        observations,
        samples,
    }
}

/// The forward passes at one setting: burn's (ablation), the fast path's,
/// im2col's (ablation, CPU), and the search's evaluator.
fn measure_inference(
    cfg: &NetBenchConfig,
    d: &mut BenchDevice,
    im2col: Option<&NetEvaluator>,
    inputs: &BenchInputs,
    at: Setting,
    report: &mut (dyn FnMut(NetFigure) + Send),
) {
    let b = at.batch;
    let obs = &inputs.observations[..b];
    let mut emit = |what, per_call: f64, unit| {
        report(NetFigure {
            what,
            threads: at.threads,
            batch: b,
            per_second: per_call * b as f64,
            unit,
            device: d.label,
        })
    };
    if cfg.ablation {
        let rate = per_second(cfg.seconds, || {
            let (p, v) = d
                .valid
                .forward(planes_tensor(obs, d.valid.inputs(), d.device.burn()));
            let _ = (p.into_data(), v.into_data());
        });
        emit("burn_forward", rate, "positions");
    }
    emit(
        "forward",
        per_second(cfg.seconds, || drop(d.evaluator.infer(obs))),
        "positions",
    );
    if let (Some(im2col), false) = (im2col, d.device.is_gpu()) {
        emit(
            "forward_im2col",
            per_second(cfg.seconds, || drop(im2col.infer(obs))),
            "positions",
        );
    }
    let requests: Vec<EvalRequest<'_>> = inputs.games[..b]
        .iter()
        .zip(&inputs.moves)
        .map(|(game, moves)| EvalRequest { game, moves })
        .collect();
    let rate = per_second(cfg.seconds, || drop(d.evaluator.evaluate(&requests)));
    emit("evaluator", rate, "evaluations");
}

/// The training step at one setting (batches of 16 or more): the
/// hand-written one, and with the ablation burn's autodiff beside it.
fn measure_training(
    cfg: &NetBenchConfig,
    d: &BenchDevice,
    inputs: &BenchInputs,
    at: Setting,
    report: &mut (dyn FnMut(NetFigure) + Send),
) {
    if cfg.no_train || at.batch < 16 {
        return;
    }
    let steps: &[(&'static str, bool)] = if cfg.ablation && !d.device.is_gpu() {
        &[("train_burn", false), ("train", true)]
    } else {
        &[("train", true)]
    };
    for &(what, fast) in steps {
        let mut params = cfg.train.clone();
        params.batch_size = at.batch;
        params.fast_step = fast;
        let mut trainer = Trainer::new(cfg.model.clone(), params, d.device.burn().clone());
        let mut rng = rng_stream(1, "bench-train", 0);
        let batch: Vec<&Sample> = inputs.samples[..at.batch].iter().collect();
        let rate = per_second(cfg.seconds, || {
            trainer.train_step(&batch, &mut rng);
        });
        report(NetFigure {
            what,
            threads: at.threads,
            batch: at.batch,
            per_second: rate * at.batch as f64,
            unit: "samples",
            device: d.label,
        });
    }
}

/// Calls of `f` per second over about `seconds` (after one warm-up call).
fn per_second(seconds: f64, mut f: impl FnMut()) -> f64 {
    f();
    let t = Instant::now();
    let mut n = 0u64;
    while n < 3 || t.elapsed().as_secs_f64() < seconds {
        f();
        n += 1;
    }
    n as f64 / t.elapsed().as_secs_f64()
}
