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
use crate::game::{perft, DrawRules, Game, GameId, GameKind, GamePosition};
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

/// One perft measurement: the best of the repetitions.
#[derive(Clone, Debug)]
pub struct PerftFigure {
    /// The game.
    pub game: GameId,
    /// The position's setup string.
    pub fen: &'static str,
    /// The depth counted.
    pub depth: u32,
    /// Leaves counted.
    pub nodes: u64,
    /// Seconds of the best repetition.
    pub seconds: f64,
}

/// Perft of each game's bench positions ([`GamePosition::BENCH_SETUPS`])
/// at `depth` plus each position's offset (at least 1), the fastest of
/// `repeat` runs each, the games interleaved: every game's first
/// position, then every game's second, and so on.
pub fn perft_suite(depth: u32, repeat: u32) -> Result<Vec<PerftFigure>, String> {
    let mut out = Vec::new();
    let most = GameKind::ALL
        .iter()
        .map(|&kind| crate::with_game!(kind, P => <P as GamePosition>::BENCH_SETUPS.len()))
        .max()
        .unwrap_or(0);
    for i in 0..most {
        for kind in GameKind::ALL {
            if let Some(figure) = crate::with_game!(kind, P => perft_of::<P>(i, depth, repeat)?) {
                out.push(figure);
            }
        }
    }
    Ok(out)
}

/// The positions of `P` that the suites measure, each with its setup
/// string and depth offset.
pub fn bench_positions<P: GamePosition>() -> Result<Vec<(P, &'static str, i32)>, String> {
    P::BENCH_SETUPS
        .iter()
        .map(|&(text, offset)| {
            let pos = P::from_setup(text, Default::default())
                .map_err(|e| format!("{} bench position '{text}': {e}", P::ID))?;
            Ok((pos, text, offset))
        })
        .collect()
}

/// Perft of `P`'s `i`-th bench position, if it has one.
fn perft_of<P: GamePosition>(i: usize, depth: u32, repeat: u32) -> Result<Option<PerftFigure>, String> {
    let Some(&(pos, fen, offset)) = bench_positions::<P>()?.get(i) else {
        return Ok(None);
    };
    Ok(Some(time_perft(&pos, fen, offset_depth(depth, offset), repeat)))
}

/// `depth` moved by `offset` plies, at least 1.
fn offset_depth(depth: u32, offset: i32) -> u32 {
    (depth as i32 + offset).max(1) as u32
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
        game: P::ID,
        fen,
        depth,
        nodes,
        seconds: best,
    }
}

/// Alpha-beta from one bench position to a fixed depth.
#[derive(Clone, Debug)]
pub struct AlphaBetaFigure {
    /// The game.
    pub game: GameId,
    /// The position's setup string.
    pub fen: &'static str,
    /// The depth searched.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds of the best repetition.
    pub seconds: f64,
}

/// The depth the search suite searches a Damone position to; another
/// game's position is searched half its perft offset deeper or shallower.
pub const SEARCH_DEPTH: u32 = 9;

/// Alpha-beta with the hand-written evaluation from each bench position
/// of each game, on one core.
pub fn alphabeta_suite() -> Result<Vec<AlphaBetaFigure>, String> {
    let mut out = Vec::new();
    for kind in GameKind::ALL {
        crate::with_game!(kind, P => out.extend(alphabeta_of::<P>()?));
    }
    Ok(out)
}

fn alphabeta_of<P: crate::game::Baseline>() -> Result<Vec<AlphaBetaFigure>, String> {
    let mut out = Vec::new();
    for (pos, fen, offset) in bench_positions::<P>()? {
        let g = Game::new(pos, DrawRules::default());
        let depth = offset_depth(SEARCH_DEPTH, offset / 2);
        let limits = Limits {
            depth: Some(depth),
            ..Default::default()
        };
        let mut ab = AlphaBeta::<P>::new("bench".into(), limits);
        let t = Instant::now();
        ab.search(&g);
        out.push(AlphaBetaFigure {
            game: P::ID,
            fen,
            depth,
            nodes: ab.nodes(),
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    Ok(out)
}

/// MCTS from a game's start position with a zero-value evaluator.
#[derive(Clone, Debug)]
pub struct MctsFigure {
    /// The game.
    pub game: GameId,
    /// PUCT or Gumbel.
    pub algorithm: SearchAlgorithm,
    /// Simulations of the search.
    pub simulations: u32,
    /// Tree nodes at the end.
    pub nodes: usize,
    /// Seconds of the best repetition.
    pub seconds: f64,
}

/// 200,000 simulations in one tree from each game's start, PUCT then
/// Gumbel.
pub fn mcts_suite() -> Vec<MctsFigure> {
    GameKind::ALL
        .into_iter()
        .flat_map(|kind| crate::with_game!(kind, P => mcts_of::<P>()))
        .collect()
}

fn mcts_of<P: GamePosition>() -> Vec<MctsFigure> {
    let g = Game::new(P::start(Default::default()), DrawRules::default());
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
                game: P::ID,
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
    /// The game whose positions are evaluated and trained on (the model
    /// must be built for its board).
    pub game: GameKind,
    /// The network measured.
    pub model: ModelConfig,
    /// The training settings of the training-step figures.
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
    /// Skip the inference figures (a profile of the training step alone).
    pub no_inference: bool,
}

/// One network figure: `what` per second at a setting.
#[derive(Clone, Debug)]
pub struct NetFigure {
    /// `forward`, `evaluator`, `train`, or with the ablation
    /// `burn_forward`, `forward_im2col`, `train_burn`.
    pub what: &'static str,
    /// Threads of the setting.
    pub threads: usize,
    /// Batch size of the setting.
    pub batch: usize,
    /// Units (`unit`) a second.
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
struct BenchInputs<P: GamePosition> {
    games: Vec<Game<P>>,
    moves: Vec<Vec<P::Move>>,
    observations: Vec<Observation>,
    samples: Vec<Sample<P>>,
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
    crate::with_game!(cfg.game, P => net_suite_of::<P>(cfg, describe, report))
}

/// [`net_suite`] on the positions of `P`.
fn net_suite_of<P: crate::run::RunGame>(
    cfg: &NetBenchConfig,
    describe: &mut dyn FnMut(&str, &str),
    report: &mut (dyn FnMut(NetFigure) + Send),
) -> Result<(), String> {
    let flex = Device::flex();
    let net = cfg.model.init_seeded(&flex, &flex, 1);
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
    let inputs = bench_inputs::<P>(cfg);
    for &threads in &cfg.threads {
        let pool = crate::util::thread_pool(threads)?;
        pool.install(|| {
            for &batch in &cfg.batches {
                for d in devices.iter_mut() {
                    let at = Setting { threads, batch };
                    if !cfg.no_inference {
                        measure_inference(cfg, d, im2col.as_ref(), &inputs, at, report);
                    }
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

fn bench_inputs<P: crate::run::RunGame>(cfg: &NetBenchConfig) -> BenchInputs<P> {
    let max_batch = cfg.batches.iter().copied().max().unwrap_or(1);
    let games = bench_games(P::start(Default::default()), max_batch, 1);
    let moves: Vec<Vec<P::Move>> = games.iter().map(|g| g.position().legal_moves()).collect();
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
fn measure_inference<P: crate::run::RunGame>(
    cfg: &NetBenchConfig,
    d: &mut BenchDevice,
    im2col: Option<&NetEvaluator>,
    inputs: &BenchInputs<P>,
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
    let requests: Vec<EvalRequest<'_, P>> = inputs.games[..b]
        .iter()
        .zip(&inputs.moves)
        .map(|(game, moves)| EvalRequest { game, moves })
        .collect();
    let rate = per_second(cfg.seconds, || drop(d.evaluator.evaluate(&requests)));
    emit("evaluator", rate, "evaluations");
}

/// The training step at one setting (batches of 16 or more): the
/// hand-written one, and with the ablation burn's autodiff beside it.
fn measure_training<P: crate::run::RunGame>(
    cfg: &NetBenchConfig,
    d: &BenchDevice,
    inputs: &BenchInputs<P>,
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
        let batch: Vec<&Sample<P>> = inputs.samples[..at.batch].iter().collect();
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
