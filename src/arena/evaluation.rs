//! Evaluation games: a searcher guided by any [`Evaluator`] against
//! alpha-beta at a fixed depth, many games at once. The searcher's leaves of
//! all games go to the evaluator in one batch; alpha-beta's moves are
//! computed in parallel. Used by training runs to measure progress.

use super::tournament::opening_game;
use super::{AlphaBeta, Limits, MatchSettings};
use crate::game::{Color, Game, Move, MoveList, Outcome};
use crate::mcts::{search_batched, EvalRequest, Evaluator, SearchParams, Tree};
use crate::util::elo::score_interval;
use crate::util::rng_stream;
use rayon::prelude::*;

/// One finished evaluation game.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalGame {
    /// The searcher's colour.
    pub color: Color,
    pub outcome: Outcome,
    pub plies: usize,
}

/// The result of [`play_vs_alphabeta`].
#[derive(Clone, Debug, PartialEq)]
pub struct EvalResult {
    /// Alpha-beta's depth.
    pub depth: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// The games, in order (colours alternate, White first).
    pub games: Vec<EvalGame>,
}

impl EvalResult {
    /// The searcher's score and the half-width of its 95% interval.
    pub fn score(&self) -> (f64, f64) {
        score_interval(self.wins, self.draws, self.losses)
    }
    /// The opponent as a player spec.
    pub fn opponent(&self) -> String {
        format!("alphabeta:depth={}", self.depth)
    }
}

/// How the side guided by the evaluator picks its moves.
#[derive(Clone, Copy, Debug)]
pub enum Searcher<'a> {
    /// MCTS with these parameters.
    Mcts(&'a SearchParams),
    /// The evaluator's most likely move, no search (the raw policy).
    Policy,
}

/// Play `games` games between MCTS with `params` and `evaluator` and
/// alpha-beta at `depth`, colours alternating, each pair of games from one
/// seeded opening of `settings`. `tree_seed` seeds the searcher's trees.
/// `on_game` is called as each game ends.
pub fn play_vs_alphabeta(
    evaluator: &mut dyn Evaluator,
    params: &SearchParams,
    settings: &MatchSettings,
    depth: u32,
    games: usize,
    tree_seed: u64,
    on_game: &mut dyn FnMut(),
) -> EvalResult {
    play_searcher_vs_alphabeta(
        evaluator,
        Searcher::Mcts(params),
        settings,
        depth,
        games,
        tree_seed,
        on_game,
    )
}

/// [`play_vs_alphabeta`] with any [`Searcher`]: MCTS, or the raw policy.
pub fn play_searcher_vs_alphabeta(
    evaluator: &mut dyn Evaluator,
    searcher: Searcher<'_>,
    settings: &MatchSettings,
    depth: u32,
    games: usize,
    tree_seed: u64,
    on_game: &mut dyn FnMut(),
) -> EvalResult {
    let n = games;
    let mut boards: Vec<Game> = (0..n).map(|g| opening_game(settings, g / 2)).collect();
    let color: Vec<Color> = (0..n)
        .map(|g| if g % 2 == 0 { Color::White } else { Color::Black })
        .collect();
    // One tree per game for MCTS; the raw policy searches nothing and has none.
    let mut trees: Vec<Tree> = match searcher {
        Searcher::Mcts(params) => boards
            .iter()
            .enumerate()
            .map(|(i, g)| Tree::new(g, params.clone(), rng_stream(tree_seed, "eval-tree", i as u64)))
            .collect(),
        Searcher::Policy => Vec::new(),
    };
    let limits = Limits {
        depth: Some(depth),
        ..Default::default()
    };
    let mut abs: Vec<AlphaBeta> = (0..n)
        .map(|_| AlphaBeta::new(format!("alphabeta:depth={depth}"), limits))
        .collect();
    let mut done: Vec<Option<Outcome>> = vec![None; n];
    loop {
        for i in 0..n {
            if done[i].is_none() {
                done[i] = boards[i].outcome();
                if done[i].is_some() {
                    on_game();
                }
            }
        }
        let live: Vec<usize> = (0..n).filter(|&i| done[i].is_none()).collect();
        if live.is_empty() {
            break;
        }
        let mine: Vec<bool> = (0..n)
            .map(|i| done[i].is_none() && boards[i].position().side_to_move() == color[i])
            .collect();
        let mut moves: Vec<Option<Move>> = vec![None; n];
        match searcher {
            Searcher::Mcts(params) => {
                for (i, t) in trees.iter_mut().enumerate() {
                    if mine[i] {
                        t.start(params.simulations);
                    }
                }
                let mut refs: Vec<&mut Tree> = trees
                    .iter_mut()
                    .enumerate()
                    .filter(|(i, _)| mine[*i])
                    .map(|(_, t)| t)
                    .collect();
                search_batched(&mut refs, evaluator);
                for i in 0..n {
                    if mine[i] {
                        moves[i] = trees[i].result().map(|r| r.best);
                    }
                }
            }
            Searcher::Policy => {
                let at: Vec<usize> = (0..n).filter(|&i| mine[i]).collect();
                let legal: Vec<MoveList> = at.iter().map(|&i| boards[i].position().legal_moves()).collect();
                let reqs: Vec<EvalRequest<'_>> = at
                    .iter()
                    .zip(&legal)
                    .map(|(&i, m)| EvalRequest {
                        game: &boards[i],
                        moves: m,
                    })
                    .collect();
                for ((&i, m), e) in at.iter().zip(&legal).zip(evaluator.evaluate(&reqs)) {
                    let best = (0..m.len()).max_by(|&a, &b| e.priors[a].total_cmp(&e.priors[b]));
                    moves[i] = best.map(|k| m[k]);
                }
            }
        }
        let ab_moves: Vec<(usize, Move)> = abs
            .par_iter_mut()
            .enumerate()
            .filter(|(i, _)| done[*i].is_none() && !mine[*i])
            .map(|(i, ab)| (i, ab.search(&boards[i]).0))
            .collect();
        for (i, m) in ab_moves {
            moves[i] = Some(m);
        }
        for i in live {
            let m = moves[i].unwrap_or_else(|| boards[i].position().legal_moves()[0]);
            boards[i].play_unchecked(&m);
            if let Some(t) = trees.get_mut(i) {
                t.advance(&m);
            }
        }
    }
    let mut r = EvalResult {
        depth,
        wins: 0,
        draws: 0,
        losses: 0,
        games: Vec::with_capacity(n),
    };
    for i in 0..n {
        let o = done[i].expect("every game finished");
        match o.winner {
            Some(w) if w == color[i] => r.wins += 1,
            None => r.draws += 1,
            Some(_) => r.losses += 1,
        }
        r.games.push(EvalGame {
            color: color[i],
            outcome: o,
            plies: boards[i].ply(),
        });
    }
    r
}
