//! `damone perft`, `damone moves` and `damone bench`.

use super::GameOpt;
use anyhow::{bail, Result};
use clap::Args;
use damone::bench::{alphabeta_suite, mcts_suite, net_suite, perft_suite, NetBenchConfig};
use damone::game::interface::setup_or_start;
use damone::game::perft::games_counting_paths;
use damone::game::{divide, perft as count, DrawRules, Game, GameKind, GamePosition};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Deepest depth to count (prints every depth from 1 up to it).
    #[arg(long, short)]
    depth: u32,
    /// Start position in FEN (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    #[command(flatten)]
    game: GameOpt,
    #[arg(long, default_value = "standard", help = damone::game::registry::variant_help())]
    variant: String,
    /// Also print the leaf count under each root move at the deepest depth.
    #[arg(long)]
    divide: bool,
    /// Italian only: count a king's captures of the same pieces along
    /// different paths separately, as the published Italian counts do.
    #[arg(long)]
    paths: bool,
}

#[derive(Args, Debug)]
pub struct MovesArgs {
    /// Position in FEN (default: the variant's start position).
    #[arg(long)]
    fen: Option<String>,
    #[command(flatten)]
    game: GameOpt,
    #[arg(long, default_value = "standard", help = damone::game::registry::variant_help())]
    variant: String,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// What to measure: perft (leaf nodes/s), search (alpha-beta nodes/s,
    /// MCTS simulations/s), net (network evaluations/s and training
    /// samples/s), threads (one network player's and one alpha-beta's
    /// search on 1 and more threads), learned (the learned evaluation's
    /// evaluations/s and alpha-beta's nodes/s with it, each game) or all.
    #[arg(long, default_value = "perft", value_parser = ["perft", "search", "net", "threads", "learned", "all"])]
    suite: String,
    /// Perft depth for the start position; with `--suite threads`,
    /// alpha-beta's depth.
    #[arg(long, default_value_t = 9)]
    depth: u32,
    /// Repetitions for perft (the best run is reported); with `--suite
    /// threads`, rounds over the thread counts.
    #[arg(long, default_value_t = 3)]
    repeat: u32,
    /// `--suite threads`: the network player (a player file or a
    /// checkpoint or run folder, of any game; default: a fresh network of
    /// `--config`'s model and game).
    #[arg(long)]
    player: Option<std::path::PathBuf>,
    /// `--suite threads`: the network player's simulations per move.
    #[arg(long, default_value_t = 64)]
    sims: u32,
    /// Batch sizes for `--suite net`, comma-separated (e.g. 1,16,64,256).
    #[arg(long, default_value = "256", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=4096))]
    batch: Vec<u32>,
    /// Config for `--suite net` and `threads`: its model, and its game whose
    /// positions are measured (default: the embedded default config).
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Thread counts for `--suite net` (default: all cores) and `--suite
    /// threads` (default: 1 and all cores), comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Vec<u32>,
    /// `--suite learned`: a learned evaluation (a learned_eval.bin file, a
    /// player file, or a run or checkpoint folder) measured for its game; default: one of
    /// the default shape with random weights, for every game.
    #[arg(long)]
    eval: Option<std::path::PathBuf>,
    /// `--suite learned`: nodes of each alpha-beta search.
    #[arg(long, default_value_t = 2_000_000)]
    nodes: u64,
    /// Seconds of measurement per figure in `--suite net` and of each
    /// evaluation walk in `--suite learned`.
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
    /// `--suite net`: skip the inference figures (for a profile of the
    /// training step alone).
    #[arg(long)]
    no_inference: bool,
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
    damone::with_game!(a.game.game, P => {
        let pos: P = setup_or_start(a.fen.as_deref(), &a.variant).map_err(anyhow::Error::msg)?;
        if !a.paths {
            return print_perft(&pos, &a, count::<P>);
        }
        if <P as GamePosition>::perft_paths(&pos, 0).is_none() {
            bail!("--paths counts capture paths apart, which {} counts do not: use it with --game {}", a.game.game, join_games(&games_counting_paths()));
        }
        print_perft(&pos, &a, |p: &P, depth| <P as GamePosition>::perft_paths(p, depth).unwrap_or(0))
    })
}

/// Prints the leaves at each depth with `count`, then the divide and the speed.
fn print_perft<P: GamePosition>(pos: &P, a: &PerftArgs, count: impl Fn(&P, u32) -> u64) -> Result<()> {
    let t = Instant::now();
    let mut total = 0;
    for d in 1..=a.depth {
        let n = count(pos, d);
        total += n;
        println!("perft {d} {n}");
    }
    let secs = t.elapsed().as_secs_f64();
    if a.divide {
        for (m, n) in divide(pos, a.depth) {
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
    damone::with_game!(a.game.game, P => moves_of::<P>(&a))
}

fn moves_of<P: GamePosition>(a: &MovesArgs) -> Result<()> {
    let pos: P = setup_or_start(a.fen.as_deref(), &a.variant).map_err(anyhow::Error::msg)?;
    let game = Game::new(pos, DrawRules::default());
    if let Some(o) = game.outcome() {
        println!("{}", o.over_message());
        return Ok(());
    }
    for m in pos.legal_moves() {
        println!("{} {}", pos.move_text(&m), pos.after(&m).to_setup());
    }
    Ok(())
}

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
        "threads" => bench_threads(&a),
        "learned" => bench_learned(&a),
        "all" => bench_perft(&a)
            .and_then(|_| bench_search())
            .and_then(|_| bench_net(&a)),
        other => bail!("unknown --suite '{other}' (expected perft, search, net, threads, learned or all)"),
    }
}

/// Prints the network suite's figures (text, or CSV with `--csv`).
fn bench_net(a: &BenchArgs) -> Result<()> {
    let cfg = damone::run::RunConfig::load(a.config.as_deref(), &[])?;
    eprintln!("kernels: {}", damone::util::simd::describe());
    let threads: Vec<usize> = if a.threads.is_empty() {
        vec![rayon::current_num_threads()]
    } else {
        a.threads.iter().map(|&t| t as usize).collect()
    };
    let suite = NetBenchConfig {
        game: cfg.game.kind()?,
        model: cfg.model.clone(),
        train: cfg.train.clone(),
        batches: a.batch.iter().map(|&b| b as usize).collect(),
        threads,
        devices: a.device.clone(),
        seconds: a.seconds,
        ablation: a.ablation,
        no_train: a.no_train,
        no_inference: a.no_inference,
    };
    let shape = format!("{}x{}", cfg.model.blocks, cfg.model.channels);
    if a.csv {
        println!("what,threads,batch,per_second,device");
    }
    net_suite(
        &suite,
        &mut |label, description| eprintln!("device {label}: {description}"),
        &mut |f| {
            if a.csv {
                println!(
                    "{},{},{},{:.1},{}",
                    f.what, f.threads, f.batch, f.per_second, f.device
                );
            } else {
                println!(
                    "net {shape} {} threads {} batch {}: {} {:.0} {}/s",
                    f.device, f.threads, f.batch, f.what, f.per_second, f.unit
                );
            }
        },
    )
    .map_err(anyhow::Error::msg)
}

/// Prints the network player's simulations/s and alpha-beta's nodes/s and
/// time to depth at each thread count.
fn bench_threads(a: &BenchArgs) -> Result<()> {
    let cfg = damone::run::RunConfig::load(a.config.as_deref(), &[])?;
    let (game, net, params) = match &a.player {
        Some(path) => {
            let loaded = damone::player::LoadedNet::load(path)?;
            let params = loaded.header.search.for_play(a.sims);
            (loaded.header.game, loaded.net, params)
        }
        None => {
            let device = burn::tensor::Device::flex();
            (
                cfg.game,
                cfg.model.init_seeded(&device, &device, 1),
                cfg.search.for_play(a.sims),
            )
        }
    };
    if a.sims == 0 {
        bail!("--sims must be at least 1");
    }
    let threads = if a.threads.is_empty() {
        damone::player::rate::default_equal_time_threads()
    } else {
        a.threads.iter().map(|&t| t as usize).collect()
    };
    let suite = damone::bench::threads::ThreadsBenchConfig {
        game: game.kind()?,
        net,
        params,
        threads,
        rounds: a.repeat as usize,
        positions: 40,
        depth: a.depth,
    };
    damone::bench::threads::threads_suite(&suite, &mut |f| {
        let per = if f.what == "alphabeta" {
            format!("{:.1} ms to depth {}", f.seconds_per_search * 1e3, a.depth)
        } else {
            format!("{:.2} ms per move of {} sims", f.seconds_per_search * 1e3, a.sims)
        };
        println!(
            "round {} {} threads {}: {:.0} {}/s, {per}",
            f.round + 1,
            f.what,
            f.threads,
            f.per_second,
            f.unit
        );
    })
    .map_err(anyhow::Error::msg)
}

/// Prints the learned evaluation's speed in each game (or `--eval`'s game).
fn bench_learned(a: &BenchArgs) -> Result<()> {
    let loaded = match &a.eval {
        None => None,
        Some(path) => {
            let file = damone::player::learned_eval_at(path, None).map_err(anyhow::Error::msg)?;
            Some((file.game, damone::learned::LearnedEval::new(file.float)))
        }
    };
    let games: Vec<GameKind> = match &loaded {
        Some((game, _)) => vec![game.kind()?],
        None => GameKind::ALL.to_vec(),
    };
    let eval = loaded.as_ref().map(|(g, e)| (*g, e));
    damone::bench::learned::learned_suite(&games, eval, a.seconds, a.nodes, &mut |f| {
        println!(
            "learned {} ({}): {:.0} evaluations/s (one core, incremental); alphabeta nodes/s hand-written {:.0}, learned {:.0} ({:.2}x)",
            f.game,
            f.shape.describe(),
            f.evals_per_second,
            f.hand_nodes_per_second,
            f.learned_nodes_per_second,
            f.learned_nodes_per_second / f.hand_nodes_per_second
        )
    })
    .map_err(anyhow::Error::msg)
}

/// Prints alpha-beta nodes/s and MCTS simulations/s, per game.
fn bench_search() -> Result<()> {
    let figures = alphabeta_suite().map_err(anyhow::Error::msg)?;
    for f in &figures {
        println!(
            "alphabeta {} depth {} {}: nodes {} seconds {:.3} nodes/s {:.0}",
            f.game,
            f.depth,
            f.fen,
            f.nodes,
            f.seconds,
            f.nodes as f64 / f.seconds
        );
    }
    for game in GameKind::ALL {
        let of_game = figures.iter().filter(|f| f.game == game);
        let nodes: u64 = of_game.clone().map(|f| f.nodes).sum();
        let secs: f64 = of_game.map(|f| f.seconds).sum();
        println!("alphabeta {game} total nodes/s {:.0}", nodes as f64 / secs);
    }
    for f in mcts_suite() {
        println!(
            "mcts {} {:?} zero-value evaluator: {} simulations in {:.3} s = {:.0} simulations/s ({} nodes)",
            f.game,
            f.algorithm,
            f.simulations,
            f.seconds,
            f.simulations as f64 / f.seconds,
            f.nodes
        );
    }
    Ok(())
}

/// Prints perft leaf nodes/s of each bench position and in all, per game.
fn bench_perft(a: &BenchArgs) -> Result<()> {
    let figures = perft_suite(a.depth, a.repeat).map_err(anyhow::Error::msg)?;
    for f in &figures {
        println!(
            "{} {} depth {} nodes {} seconds {:.3} nodes/s {:.0}",
            f.game,
            f.fen,
            f.depth,
            f.nodes,
            f.seconds,
            f.nodes as f64 / f.seconds
        );
    }
    for game in GameKind::ALL {
        let of_game = figures.iter().filter(|f| f.game == game);
        let nodes: u64 = of_game.clone().map(|f| f.nodes).sum();
        let secs: f64 = of_game.map(|f| f.seconds).sum();
        println!(
            "{game} total nodes {nodes} seconds {secs:.3} nodes/s {:.0}",
            nodes as f64 / secs
        );
    }
    Ok(())
}

/// Game names joined for a message: `a`, `a or b`, `a, b or c`.
fn join_games(games: &[GameKind]) -> String {
    let names: Vec<&str> = games.iter().map(|g| g.name()).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}
