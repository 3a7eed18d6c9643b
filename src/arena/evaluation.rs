//! Evaluation games: a searcher guided by any [`Evaluator`] against
//! alpha-beta at a fixed depth, many games at once. The searcher's leaves of
//! all games go to the evaluator in one batch; alpha-beta's moves are
//! computed in parallel. Used by training runs to measure progress.

use super::tournament::opening_game;
use super::{AlphaBeta, Baseline, Limits, MatchSettings};
use crate::game::{Color, Game, Outcome};
use crate::mcts::{search_batched, EvalRequest, Evaluator, SearchParams, Tree};
use crate::util::elo::score_interval;
use crate::util::rng_stream;
use crate::util::stop::Stop;
use rayon::prelude::*;

/// One finished evaluation game.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalGame {
    /// The searcher's colour.
    pub color: Color,
    /// How the game ended.
    pub outcome: Outcome,
    /// Plies played.
    pub plies: usize,
}

/// The result of [`play_vs_alphabeta`].
#[derive(Clone, Debug, PartialEq)]
pub struct EvalResult {
    /// Alpha-beta's depth.
    pub depth: u32,
    /// Games the searcher won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the searcher lost.
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
/// `on_game` is called as each game ends. A raised `stop` ends the games
/// early (the result then counts only the games that finished).
#[allow(clippy::too_many_arguments)]
pub fn play_vs_alphabeta<P: Baseline>(
    evaluator: &mut dyn Evaluator<P>,
    params: &SearchParams,
    settings: &MatchSettings<P>,
    depth: u32,
    games: usize,
    tree_seed: u64,
    on_game: &mut dyn FnMut(),
    stop: &Stop,
) -> EvalResult {
    play_searcher_vs_alphabeta(
        evaluator,
        Searcher::Mcts(params),
        settings,
        depth,
        games,
        tree_seed,
        on_game,
        stop,
    )
}

/// [`play_vs_alphabeta`] with any [`Searcher`]: MCTS, or the raw policy.
#[allow(clippy::too_many_arguments)]
pub fn play_searcher_vs_alphabeta<P: Baseline>(
    evaluator: &mut dyn Evaluator<P>,
    searcher: Searcher<'_>,
    settings: &MatchSettings<P>,
    depth: u32,
    games: usize,
    tree_seed: u64,
    on_game: &mut dyn FnMut(),
    stop: &Stop,
) -> EvalResult {
    let mut games = EvalGames::new(searcher, settings, depth, games, tree_seed);
    loop {
        games.record_finished(on_game);
        if stop.requested() {
            break;
        }
        let live: Vec<usize> = (0..games.boards.len())
            .filter(|&i| games.done[i].is_none())
            .collect();
        if live.is_empty() {
            break;
        }
        let mine: Vec<bool> = (0..games.boards.len())
            .map(|i| games.done[i].is_none() && games.boards[i].position().side_to_move() == games.color[i])
            .collect();
        let mut moves = match searcher {
            Searcher::Mcts(params) => games.search_moves(params, &mine, evaluator),
            Searcher::Policy => games.policy_moves(&mine, evaluator),
        };
        for (i, m) in games.alphabeta_moves(&mine) {
            moves[i] = Some(m);
        }
        games.play(&live, &moves);
    }
    games.result(depth)
}

/// The evaluation games under way: boards, the searcher's colour in each,
/// its trees (none for the raw policy), alpha-beta's players, and the
/// outcomes so far.
struct EvalGames<P: Baseline> {
    boards: Vec<Game<P>>,
    color: Vec<Color>,
    trees: Vec<Tree<P>>,
    alphabeta: Vec<AlphaBeta<P>>,
    done: Vec<Option<Outcome>>,
}

impl<P: Baseline> EvalGames<P> {
    fn new(
        searcher: Searcher<'_>,
        settings: &MatchSettings<P>,
        depth: u32,
        n: usize,
        tree_seed: u64,
    ) -> EvalGames<P> {
        let boards: Vec<Game<P>> = (0..n).map(|g| opening_game(settings, g / 2)).collect();
        let color = (0..n)
            .map(|g| if g % 2 == 0 { Color::White } else { Color::Black })
            .collect();
        let trees = match searcher {
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
        let alphabeta = (0..n)
            .map(|_| AlphaBeta::new(format!("alphabeta:depth={depth}"), limits))
            .collect();
        EvalGames {
            boards,
            color,
            trees,
            alphabeta,
            done: vec![None; n],
        }
    }

    /// Note the games that have just ended.
    fn record_finished(&mut self, on_game: &mut dyn FnMut()) {
        for (board, done) in self.boards.iter().zip(self.done.iter_mut()) {
            if done.is_none() {
                *done = board.outcome();
                if done.is_some() {
                    on_game();
                }
            }
        }
    }

    /// The searcher's moves where it is to move (`mine`): every such tree
    /// searched, their leaves in one batch.
    fn search_moves(
        &mut self,
        params: &SearchParams,
        mine: &[bool],
        evaluator: &mut dyn Evaluator<P>,
    ) -> Vec<Option<P::Move>> {
        for (t, _) in self.trees.iter_mut().zip(mine).filter(|(_, &m)| m) {
            t.start(params.simulations);
        }
        let mut refs: Vec<&mut Tree<P>> = self
            .trees
            .iter_mut()
            .zip(mine)
            .filter(|(_, &m)| m)
            .map(|(t, _)| t)
            .collect();
        search_batched(&mut refs, evaluator);
        self.trees
            .iter_mut()
            .zip(mine)
            .map(|(t, &m)| if m { t.result().map(|r| r.best) } else { None })
            .collect()
    }

    /// The raw policy's most likely move where it is to move, all positions
    /// in one evaluation.
    fn policy_moves(&self, mine: &[bool], evaluator: &mut dyn Evaluator<P>) -> Vec<Option<P::Move>> {
        let mut moves = vec![None; self.boards.len()];
        let at: Vec<usize> = (0..self.boards.len()).filter(|&i| mine[i]).collect();
        let legal: Vec<Vec<P::Move>> = at
            .iter()
            .map(|&i| self.boards[i].position().legal_moves())
            .collect();
        let reqs: Vec<EvalRequest<'_, P>> = at
            .iter()
            .zip(&legal)
            .map(|(&i, m)| EvalRequest {
                game: &self.boards[i],
                moves: m,
            })
            .collect();
        for ((&i, m), e) in at.iter().zip(&legal).zip(evaluator.evaluate(&reqs)) {
            let best = (0..m.len()).max_by(|&a, &b| e.priors[a].total_cmp(&e.priors[b]));
            moves[i] = best.map(|k| m[k]);
        }
        moves
    }

    /// Alpha-beta's moves in the games it is to move in, in parallel.
    fn alphabeta_moves(&mut self, mine: &[bool]) -> Vec<(usize, P::Move)> {
        let (boards, done) = (&self.boards, &self.done);
        self.alphabeta
            .par_iter_mut()
            .enumerate()
            .filter(|(i, _)| done[*i].is_none() && !mine[*i])
            .map(|(i, ab)| (i, ab.search(&boards[i]).0))
            .collect()
    }

    /// Play each live game's move (its first legal move if none was found).
    fn play(&mut self, live: &[usize], moves: &[Option<P::Move>]) {
        for &i in live {
            let m = moves[i].unwrap_or_else(|| self.boards[i].position().legal_moves()[0]);
            self.boards[i].play_unchecked(&m);
            if let Some(t) = self.trees.get_mut(i) {
                t.advance(&m);
            }
        }
    }

    /// The searcher's record over the finished games.
    fn result(self, depth: u32) -> EvalResult {
        let mut r = EvalResult {
            depth,
            wins: 0,
            draws: 0,
            losses: 0,
            games: Vec::with_capacity(self.boards.len()),
        };
        for ((board, color), done) in self.boards.iter().zip(&self.color).zip(&self.done) {
            // Games cut short by a stop request are left out.
            let Some(o) = *done else { continue };
            match o.winner {
                Some(w) if w == *color => r.wins += 1,
                None => r.draws += 1,
                Some(_) => r.losses += 1,
            }
            r.games.push(EvalGame {
                color: *color,
                outcome: o,
                plies: board.ply(),
            });
        }
        r
    }
}
