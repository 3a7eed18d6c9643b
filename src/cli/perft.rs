//! `damone perft`, `damone moves` and `damone bench`.

use super::{parse_position, parse_variant};
use anyhow::{bail, Context, Result};
use clap::Args;
use damone::game::{divide, perft as count, Position};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Deepest depth to count (prints every depth from 1 up to it).
    #[arg(long, short)]
    depth: u32,
    /// Start position in FEN (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Rules variant: standard, damone-hunt or three-damas.
    #[arg(long, default_value = "standard")]
    variant: String,
    /// Also print the leaf count under each root move at the deepest depth.
    #[arg(long)]
    divide: bool,
}

#[derive(Args, Debug)]
pub struct MovesArgs {
    /// Position in FEN (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    /// Rules variant: standard, damone-hunt or three-damas.
    #[arg(long, default_value = "standard")]
    variant: String,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// What to measure: perft (leaf nodes/s), search (alpha-beta nodes/s,
    /// MCTS simulations/s), net (network evaluations/s and training
    /// samples/s) or all.
    #[arg(long, default_value = "perft", value_parser = ["perft", "search", "net", "all"])]
    suite: String,
    /// Perft depth for the start position.
    #[arg(long, default_value_t = 9)]
    depth: u32,
    /// Repetitions for perft; the best run is reported.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    /// Batch sizes for `--suite net`, comma-separated (e.g. 1,16,64,256).
    #[arg(long, default_value = "256", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=4096))]
    batch: Vec<u32>,
    /// Model config for `--suite net` (default: the embedded default config).
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Thread counts for `--suite net`, comma-separated (default: all cores).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Vec<u32>,
    /// Seconds of measurement per figure in `--suite net`.
    #[arg(long, default_value_t = 2.0)]
    seconds: f64,
    /// `--suite net`: also time the alternatives: burn's own forward pass
    /// (the reference the fast path is checked against), the fast path
    /// with im2col instead of Winograd convolutions, and burn's autodiff
    /// training step beside the hand-written one.
    #[arg(long)]
    ablation: bool,
    /// `--suite net`: skip the training-step figure.
    #[arg(long)]
    no_train: bool,
    /// `--suite net`: print CSV rows (what,threads,batch,per_second,device) instead of text.
    #[arg(long)]
    csv: bool,
    /// `--suite net`: devices to measure, comma-separated, interleaved
    /// (e.g. cpu,gpu to compare them side by side in one run): cpu, gpu
    /// (builds with `--features gpu`) or auto.
    #[arg(
        long,
        default_value = "auto",
        value_delimiter = ',',
        value_name = "cpu|gpu|auto"
    )]
    device: Vec<damone::net::DeviceChoice>,
}

pub fn perft(a: PerftArgs) -> Result<()> {
    if a.depth == 0 {
        bail!("--depth must be at least 1");
    }
    if a.depth > 30 {
        bail!("--depth {} is too deep (at most 30)", a.depth);
    }
    let v = parse_variant(&a.variant)?;
    let pos = parse_position(a.fen.as_deref(), v)?;
    let t = Instant::now();
    let mut total = 0;
    for d in 1..=a.depth {
        let n = count(&pos, d);
        total += n;
        println!("perft {d} {n}");
    }
    let secs = t.elapsed().as_secs_f64();
    if a.divide {
        for (m, n) in divide(&pos, a.depth) {
            println!("{m} {n}");
        }
    }
    eprintln!(
        "nodes {total} seconds {secs:.3} nodes/s {:.0}",
        total as f64 / secs.max(1e-9)
    );
    Ok(())
}

pub fn moves(a: MovesArgs) -> Result<()> {
    let v = parse_variant(&a.variant)?;
    let pos = parse_position(a.fen.as_deref(), v)?;
    let game = damone::game::Game::new(pos, damone::game::DrawRules::default());
    if let Some(o) = game.outcome() {
        println!("{}", o.over_message());
        return Ok(());
    }
    for m in pos.legal_moves() {
        println!("{m} {}", pos.after(&m).to_fen());
    }
    Ok(())
}

/// Positions for `damone bench`: the start position and two middle games.
pub const BENCH_FENS: [(&str, u32); 3] = [
    ("W:WIh1,Df1,Dh3,d1,e2,f3,g4,h5:BIa8,Da6,Dc8,a4,b5,c6,d7,e8", 0),
    ("W:WIg2,Df1,Dh3,d3,e4,f3,g4,h5:BIb7,Da6,Dc8,a4,b5,c6,d5,e8", 0),
    ("B:WIh1,Df1,Dg2,c2,e2,f3,e4:BIa8,Db7,Dc6,b5,d5,f5,a4", 0),
];

pub fn bench(a: BenchArgs) -> Result<()> {
    if a.depth == 0 {
        bail!("--depth must be at least 1");
    }
    if a.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    match a.suite.as_str() {
        "perft" => bench_perft(&a),
        "search" => bench_search(),
        "net" => bench_net(&a),
        "all" => bench_perft(&a)
            .and_then(|_| bench_search())
            .and_then(|_| bench_net(&a)),
        other => bail!("unknown --suite '{other}' (expected perft, search, net or all)"),
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

/// Network figures for each `--threads` x `--batch`: the fast inference
/// path's forward pass (full policy), the search evaluator (policy at the
/// legal moves only, softmax), optionally burn's forward pass, and a
/// training step (burn autodiff + AdamW) at each batch of 16 or more.
fn bench_net(a: &BenchArgs) -> Result<()> {
    use burn::module::Module as _;
    use burn::tensor::Device;
    use damone::mcts::{EvalRequest, Evaluator};
    use damone::net::{planes_tensor, NetEvaluator, Observation};
    if !(a.seconds > 0.0 && a.seconds <= 600.0) {
        bail!("--seconds must be in (0, 600], got {}", a.seconds);
    }
    let cfg = damone::run::RunConfig::load(a.config.as_deref(), &[])?;
    let flex = Device::flex();
    flex.seed(1);
    let net = cfg.model.init(&flex);
    let mut devices = Vec::new();
    for &choice in &a.device {
        let d = damone::net::ComputeDevice::select(choice).with_context(|| format!("--device {choice}"))?;
        eprintln!(
            "device {}: {}",
            if d.is_gpu() { "gpu" } else { "cpu" },
            d.describe()
        );
        let label = if d.is_gpu() { "gpu" } else { "cpu" };
        let valid = net.valid().to_device(d.burn());
        let ev = NetEvaluator::on_device(&net, &d);
        devices.push((label, d, valid, ev));
    }
    let im2col = a.ablation.then(|| {
        NetEvaluator::with_fast(damone::net::FastNet::with_algorithm(
            &net,
            damone::net::ConvAlgorithm::Im2col,
        ))
    });
    let max_batch = a.batch.iter().copied().max().unwrap_or(1) as usize;
    let games = damone::net::bench_games(max_batch, 1);
    let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
    let obs_all: Vec<Observation> = games
        .iter()
        .map(|g| Observation::of_game(g, cfg.model.inputs))
        .collect();
    let samples = damone::train::bench_samples(&games, &moves);
    let threads: Vec<usize> = if a.threads.is_empty() {
        vec![rayon::current_num_threads()]
    } else {
        a.threads.iter().map(|&t| t as usize).collect()
    };
    let shape = format!("{}x{}", cfg.model.blocks, cfg.model.channels);
    if a.csv {
        println!("what,threads,batch,per_second,device");
    }
    let report = |what: &str, t: usize, b: usize, rate: f64, unit: &str, dev: &str| {
        if a.csv {
            println!("{what},{t},{b},{rate:.1},{dev}");
        } else {
            println!("net {shape} {dev} threads {t} batch {b}: {what} {rate:.0} {unit}/s");
        }
    };
    for &t in &threads {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build()?;
        pool.install(|| -> Result<()> {
            for &b in &a.batch {
                let b = b as usize;
                let obs = &obs_all[..b];
                let reqs: Vec<EvalRequest<'_>> = games[..b]
                    .iter()
                    .zip(&moves)
                    .map(|(g, m)| EvalRequest { game: g, moves: m })
                    .collect();
                for (dev, d, valid, ev) in devices.iter_mut() {
                    let dev: &str = dev;
                    if a.ablation {
                        let rate = per_second(a.seconds, || {
                            let (p, v) = valid.forward(planes_tensor(obs, valid.inputs(), d.burn()));
                            let _ = (p.into_data(), v.into_data());
                        });
                        report("burn_forward", t, b, rate * b as f64, "positions", dev);
                    }
                    let rate = per_second(a.seconds, || {
                        ev.infer(obs);
                    });
                    report("forward", t, b, rate * b as f64, "positions", dev);
                    if let (Some(im2col), false) = (&im2col, d.is_gpu()) {
                        let rate = per_second(a.seconds, || {
                            im2col.infer(obs);
                        });
                        report("forward_im2col", t, b, rate * b as f64, "positions", dev);
                    }
                    let rate = per_second(a.seconds, || {
                        ev.evaluate(&reqs);
                    });
                    report("evaluator", t, b, rate * b as f64, "evaluations", dev);
                    // With --ablation, burn's autodiff step beside the
                    // hand-written one (the CPU default).
                    let steps: &[(&str, bool)] = if a.ablation && !d.is_gpu() {
                        &[("train_burn", false), ("train", true)]
                    } else {
                        &[("train", true)]
                    };
                    for &(what, fast) in steps.iter().filter(|_| !a.no_train && b >= 16) {
                        let mut params = cfg.train.clone();
                        params.batch_size = b;
                        params.fast_step = fast;
                        let mut trainer =
                            damone::train::Trainer::new(cfg.model.clone(), params, d.burn().clone());
                        let mut rng = damone::util::rng_stream(1, "bench-train", 0);
                        let batch: Vec<&damone::data::Sample> = samples[..b].iter().collect();
                        let rate = per_second(a.seconds, || {
                            trainer.train_step(&batch, &mut rng);
                        });
                        report(what, t, b, rate * b as f64, "samples", dev);
                    }
                }
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Alpha-beta nodes/s and MCTS simulations/s (zero-value evaluator).
fn bench_search() -> Result<()> {
    use damone::arena::{AlphaBeta, Limits};
    use damone::game::{DrawRules, Game, Variant};
    use damone::mcts::{search, SearchAlgorithm, SearchParams, Tree, UniformEvaluator};
    let mut total = (0u64, 0.0f64);
    for (fen, _) in BENCH_FENS {
        let g = Game::new(Position::from_fen(fen, Variant::Standard)?, DrawRules::default());
        let mut ab = AlphaBeta::new(
            "bench".into(),
            Limits {
                depth: Some(9),
                ..Default::default()
            },
        );
        let t = Instant::now();
        ab.search(&g);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "alphabeta depth 9 {fen}: nodes {} seconds {secs:.3} nodes/s {:.0}",
            ab.nodes(),
            ab.nodes() as f64 / secs
        );
        total.0 += ab.nodes();
        total.1 += secs;
    }
    println!("alphabeta total nodes/s {:.0}", total.0 as f64 / total.1);
    let g = Game::from_variant(Variant::Standard, DrawRules::default());
    for algo in [SearchAlgorithm::Puct, SearchAlgorithm::Gumbel] {
        let sims = 200_000;
        let params = SearchParams {
            algorithm: algo,
            simulations: sims,
            ..Default::default()
        };
        let mut tree = Tree::new(&g, params, damone::util::rng_stream(1, "bench", 0));
        let t = Instant::now();
        search(&mut tree, &mut UniformEvaluator);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "mcts {algo:?} zero-value evaluator: {sims} simulations in {secs:.3} s = {:.0} simulations/s ({} nodes)",
            sims as f64 / secs,
            tree.node_count()
        );
    }
    Ok(())
}

fn bench_perft(a: &BenchArgs) -> Result<()> {
    let mut total_nodes = 0u64;
    let mut total_secs = 0.0;
    for (fen, delta) in BENCH_FENS {
        let pos = Position::from_fen(fen, damone::game::Variant::Standard)?;
        let depth = a.depth.saturating_sub(delta).max(1);
        let mut best = f64::INFINITY;
        let mut nodes = 0;
        for _ in 0..a.repeat.max(1) {
            let t = Instant::now();
            nodes = count(&pos, depth);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{fen} depth {depth} nodes {nodes} seconds {best:.3} nodes/s {:.0}",
            nodes as f64 / best
        );
        total_nodes += nodes;
        total_secs += best;
    }
    println!(
        "total nodes {total_nodes} seconds {total_secs:.3} nodes/s {:.0}",
        total_nodes as f64 / total_secs
    );
    Ok(())
}
