//! `damone perft`, `damone moves` and `damone bench`.

use super::{parse_position, parse_variant};
use anyhow::{bail, Result};
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
    /// Position in FEN.
    #[arg(long)]
    fen: String,
    /// Rules variant: standard, damone-hunt or three-damas.
    #[arg(long, default_value = "standard")]
    variant: String,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// What to measure: perft, search (alpha-beta nodes/s, MCTS simulations/s) or all.
    #[arg(long, default_value = "perft")]
    suite: String,
    /// Perft depth for the start position.
    #[arg(long, default_value_t = 9)]
    depth: u32,
    /// Repetitions; the best run is reported.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    /// Batch size for `--suite net`.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Model config for `--suite net` (default: the embedded default config).
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Threads for `--suite net` (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
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
    let pos = parse_position(Some(&a.fen), v)?;
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

/// Network evaluations per second of the default model at `--batch`.
fn bench_net(a: &BenchArgs) -> Result<()> {
    use burn::tensor::Device;
    use damone::game::{DrawRules, Game, Variant};
    use damone::mcts::{EvalRequest, Evaluator};
    use damone::net::NetEvaluator;
    let cfg = super::config::RunConfig::load(a.config.as_deref(), &[])?;
    if let Some(t) = a.threads {
        let _ = rayon::ThreadPoolBuilder::new().num_threads(t).build_global();
    }
    let device = Device::flex();
    device.seed(1);
    let net = cfg.model.init(&device);
    let mut ev = NetEvaluator::new(&net, device);
    // A spread of real positions: random playouts from the start.
    let mut games = Vec::new();
    let mut rng = damone::util::rng_stream(1, "bench-net", 0);
    while games.len() < a.batch {
        let mut g = Game::from_variant(Variant::Standard, DrawRules::default());
        for _ in 0..(games.len() % 40) {
            let ms = g.position().legal_moves();
            if g.outcome_with(&ms).is_some() {
                break;
            }
            use rand::Rng as _;
            g.play_unchecked(&ms[rng.random_range(0..ms.len())]);
        }
        if g.outcome().is_none() {
            games.push(g);
        }
    }
    let moves: Vec<_> = games.iter().map(|g| g.position().legal_moves()).collect();
    let reqs: Vec<EvalRequest<'_>> = games
        .iter()
        .zip(&moves)
        .map(|(g, m)| EvalRequest { game: g, moves: m })
        .collect();
    ev.evaluate(&reqs); // warm-up
    let reps = a.repeat.max(1) * 3;
    let t = Instant::now();
    for _ in 0..reps {
        ev.evaluate(&reqs);
    }
    let secs = t.elapsed().as_secs_f64();
    let obs: Vec<damone::net::Observation> = games.iter().map(damone::net::Observation::of_game).collect();
    let t2 = Instant::now();
    for _ in 0..reps {
        ev.infer(&obs);
    }
    let fwd = t2.elapsed().as_secs_f64();
    println!(
        "net {}x{} batch {}: forward only {:.0} positions/s ({:.2} ms per batch)",
        cfg.model.blocks,
        cfg.model.channels,
        a.batch,
        (reps as usize * a.batch) as f64 / fwd,
        1000.0 * fwd / reps as f64
    );
    println!(
        "net {}x{} batch {}: {:.0} evaluations/s ({:.2} ms per batch, threads {})",
        cfg.model.blocks,
        cfg.model.channels,
        a.batch,
        (reps as usize * a.batch) as f64 / secs,
        1000.0 * secs / reps as f64,
        rayon::current_num_threads()
    );
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
        search(&mut tree, &mut UniformEvaluator, sims);
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
