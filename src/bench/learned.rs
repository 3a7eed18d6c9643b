//! The learned evaluation's speed (`damone bench --suite learned`): its
//! evaluations per second inside a search's walk (an accumulator made from
//! its parent's, then scored) on one core, and alpha-beta's nodes per
//! second with it beside the hand-written evaluation's, from the same
//! positions, in each game: of a given evaluation, or of random ones of
//! the default shape reading pieces and pairs.

use super::bench_positions;
use crate::arena::{AlphaBeta, Baseline, LeafEval, Limits};
use crate::game::{DrawRules, Game, GameId, GameKind};
use crate::learned::features::{cells_of, Inputs};
use crate::learned::{AccumulatorStack, FloatEval, LearnedEval, Shape};
use crate::net::Board;
use crate::util::rng_stream;
use rand::Rng as _;
use std::sync::Arc;
use std::time::Instant;

/// One game's figures.
#[derive(Clone, Debug)]
pub struct LearnedFigure {
    /// The game.
    pub game: GameId,
    /// The evaluation's sizes and inputs.
    pub shape: Shape,
    /// Evaluations per second in a walk of random playouts, one core
    /// (each an accumulator updated from its parent's, then scored).
    pub evals_per_second: f64,
    /// Alpha-beta nodes per second, one thread, hand-written evaluation.
    pub hand_nodes_per_second: f64,
    /// The same with the learned evaluation.
    pub learned_nodes_per_second: f64,
}

/// The learned evaluations a bench measures: `eval` when given (for its
/// game), else networks of the default shape with random weights reading
/// pieces and pairs (speed does not depend on the weights' values).
fn evals_for<P: Board>(eval: Option<&LearnedEval>, seed: u64) -> Vec<LearnedEval> {
    match eval {
        Some(e) => vec![e.clone()],
        None => [Inputs::Pieces, Inputs::Pairs]
            .map(|inputs| {
                let shape = Shape {
                    inputs,
                    ..Shape::default()
                };
                let rng = &mut rng_stream(seed, "bench-learned", 0);
                LearnedEval::new(FloatEval::new(shape, cells_of::<P>(), rng))
            })
            .to_vec(),
    }
}

/// Evaluations per second over `seconds`: random playouts from the start,
/// each position entered from its parent and scored.
fn walk_speed<P: Board>(eval: &LearnedEval, seconds: f64) -> f64 {
    let mut rng = rng_stream(1, "bench-learned-walk", 0);
    let mut stack = AccumulatorStack::new(&eval.quant);
    let mut moves = Vec::new();
    let (mut evals, mut busy) = (0u64, 0.0);
    let mut sink = 0i64;
    while busy < seconds {
        // A playout's positions first, so that only the evaluation is timed.
        let mut line = vec![P::start(Default::default())];
        loop {
            line.last().unwrap().legal_moves_into(&mut moves);
            if moves.is_empty() || line.len() > 200 {
                break;
            }
            let next = line
                .last()
                .unwrap()
                .after(&moves[rng.random_range(0..moves.len())]);
            line.push(next);
        }
        let t = Instant::now();
        for _ in 0..50 {
            stack.set_root(&eval.quant, &line[0]);
            for (ply, pos) in line.iter().enumerate().skip(1) {
                stack.enter(&eval.quant, ply, pos);
                sink += eval.quant.score(stack.at(ply), pos.side_to_move()) as i64;
            }
            evals += line.len() as u64 - 1;
        }
        busy += t.elapsed().as_secs_f64();
    }
    std::hint::black_box(sink);
    evals as f64 / busy
}

/// Alpha-beta's nodes per second over `positions`, each searched to
/// `nodes` nodes on one thread.
fn search_speed<P: Baseline, E: LeafEval<P>>(positions: &[P], eval: Arc<E>, nodes: u64) -> f64 {
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let (mut searched, mut seconds) = (0u64, 0.0);
    for pos in positions {
        let mut ab = AlphaBeta::with_eval("bench".into(), limits, eval.clone());
        let g = Game::new(*pos, DrawRules::default());
        let t = Instant::now();
        ab.search(&g);
        seconds += t.elapsed().as_secs_f64();
        searched += ab.nodes();
    }
    searched as f64 / seconds
}

fn game_figures<P: Board + Baseline>(
    eval: Option<&LearnedEval>,
    seconds: f64,
    nodes: u64,
    report: &mut dyn FnMut(&LearnedFigure),
) -> Result<(), String> {
    let positions: Vec<P> = bench_positions::<P>()?
        .into_iter()
        .map(|(pos, _, _)| pos)
        .collect();
    let hand_nodes_per_second = search_speed(&positions, Arc::new(crate::arena::HandWritten), nodes);
    for eval in evals_for::<P>(eval, 1) {
        let eval = Arc::new(eval);
        report(&LearnedFigure {
            game: P::ID,
            shape: eval.float.shape,
            evals_per_second: walk_speed::<P>(&eval, seconds),
            hand_nodes_per_second,
            learned_nodes_per_second: search_speed(&positions, eval, nodes),
        });
    }
    Ok(())
}

/// The figures of each game in `games` (`eval` for the games it is of),
/// reported through `report` as they are measured; each search stops at
/// `nodes` nodes, each walk after `seconds`.
pub fn learned_suite(
    games: &[GameKind],
    eval: Option<(GameId, &LearnedEval)>,
    seconds: f64,
    nodes: u64,
    report: &mut dyn FnMut(&LearnedFigure),
) -> Result<(), String> {
    for &game in games {
        let own = eval.filter(|(g, _)| *g == game).map(|(_, e)| e);
        crate::with_game!(game, P => game_figures::<P>(own, seconds, nodes, report)?);
    }
    Ok(())
}
