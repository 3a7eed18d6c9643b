//! The threads suite (`damone bench --suite threads`): one search on
//! several threads. The network player's simulations per second at the
//! protocol's budget (each round of its search a batch of as many leaves
//! as threads, the network call split over them), and alpha-beta's time
//! to a fixed depth and nodes per second by Lazy SMP, at each thread
//! count, the counts interleaved over rounds so that figures of one run
//! compare.

use super::bench_positions;
use crate::arena::{AlphaBeta, Limits, MctsPlayer, Player as _};
use crate::game::{DrawRules, Game, GameKind};
use crate::mcts::SearchParams;
use crate::net::{bench_games, Net, NetEvaluator};
use crate::util::rng_stream;
use std::sync::Arc;
use std::time::Instant;

/// What the threads suite measures.
#[derive(Clone)]
pub struct ThreadsBenchConfig {
    /// The game searched (the network must be one of its networks).
    pub game: GameKind,
    /// The network player's network (its weights do not change the speed
    /// much; a trained one grows trees like those of play).
    pub net: Net,
    /// Its search settings, for play ([`SearchParams::for_play`]).
    pub params: SearchParams,
    /// Thread counts, each its own pool.
    pub threads: Vec<usize>,
    /// Rounds over the thread counts.
    pub rounds: usize,
    /// Positions (random openings) the network player searches per figure.
    pub positions: usize,
    /// The depth alpha-beta searches each bench position to.
    pub depth: u32,
}

/// One figure: a searcher at a thread count in one round.
#[derive(Clone, Debug)]
pub struct ThreadsFigure {
    /// `net-player` or `alphabeta`.
    pub what: &'static str,
    /// Threads of the search.
    pub threads: usize,
    /// The round (each thread count is measured in every round).
    pub round: usize,
    /// Simulations (network player) or nodes (alpha-beta) per second.
    pub per_second: f64,
    /// `simulations` or `nodes`.
    pub unit: &'static str,
    /// Seconds per search: per move of the network player, per position
    /// to the depth for alpha-beta.
    pub seconds_per_search: f64,
}

/// Measure every figure of `cfg`, reporting each as it is measured.
pub fn threads_suite(cfg: &ThreadsBenchConfig, report: &mut dyn FnMut(ThreadsFigure)) -> Result<(), String> {
    if cfg.threads.is_empty() || cfg.rounds == 0 || cfg.positions == 0 || cfg.depth == 0 {
        return Err("the threads suite needs thread counts, rounds, positions and a depth".into());
    }
    crate::with_game!(cfg.game, P => threads_of::<P>(cfg, report))
}

/// [`threads_suite`] in the game `P`.
fn threads_of<P: crate::run::RunGame>(
    cfg: &ThreadsBenchConfig,
    report: &mut dyn FnMut(ThreadsFigure),
) -> Result<(), String> {
    let games = bench_games(P::start(Default::default()), cfg.positions + 1, 1);
    let mut pools = Vec::new();
    for &t in &cfg.threads {
        pools.push(match t {
            1 => None,
            n => Some(Arc::new(crate::util::thread_pool(n)?)),
        });
    }
    for round in 0..cfg.rounds {
        for (&threads, pool) in cfg.threads.iter().zip(&pools) {
            report(net_player_speed(cfg, &games, pool.clone(), threads, round));
            report(alphabeta_speed::<P>(cfg.depth, threads, round)?);
        }
    }
    Ok(())
}

/// The network player's searches of `games` (the last warms it up) on
/// `pool`'s threads.
fn net_player_speed<P: crate::run::RunGame>(
    cfg: &ThreadsBenchConfig,
    games: &[Game<P>],
    pool: Option<Arc<rayon::ThreadPool>>,
    threads: usize,
    round: usize,
) -> ThreadsFigure {
    let (warm, measured) = games.split_last().expect("positions");
    let evaluator = NetEvaluator::new(&cfg.net);
    let rng = rng_stream(1, "bench-threads", round as u64);
    let mut player =
        MctsPlayer::with_evaluator("bench".into(), cfg.params.clone(), evaluator, rng).with_pool(pool);
    player.analyse(warm);
    let t = Instant::now();
    let sims: u64 = measured
        .iter()
        .filter_map(|g| player.analyse(g))
        .map(|a| a.simulations as u64)
        .sum();
    let seconds = t.elapsed().as_secs_f64();
    ThreadsFigure {
        what: "net-player",
        threads,
        round,
        per_second: sims as f64 / seconds,
        unit: "simulations",
        seconds_per_search: seconds / measured.len() as f64,
    }
}

/// Alpha-beta to `depth` from each bench position on `threads` threads.
fn alphabeta_speed<P: crate::run::RunGame>(
    depth: u32,
    threads: usize,
    round: usize,
) -> Result<ThreadsFigure, String> {
    let limits = Limits {
        depth: Some(depth),
        ..Default::default()
    };
    let (mut nodes, mut seconds) = (0u64, 0.0f64);
    let positions = bench_positions::<P>()?;
    for &(pos, _, _) in &positions {
        let game = Game::new(pos, DrawRules::default());
        let mut ab = AlphaBeta::<P>::new("bench".into(), limits).with_threads(threads);
        let t = Instant::now();
        ab.search(&game);
        seconds += t.elapsed().as_secs_f64();
        nodes += ab.nodes();
    }
    Ok(ThreadsFigure {
        what: "alphabeta",
        threads,
        round,
        per_second: nodes as f64 / seconds,
        unit: "nodes",
        seconds_per_search: seconds / positions.len() as f64,
    })
}
