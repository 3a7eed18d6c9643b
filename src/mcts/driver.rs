//! Running searches: one tree to its budget ([`search`]), or many trees
//! against one evaluator with their leaves batched ([`search_batched`]).

use super::evaluator::{EvalRequest, Evaluator};
use super::params::{Budget, SearchAlgorithm};
use super::result::SearchResult;
use super::select::{Leaf, Selection};
use super::tree::Tree;
use std::time::Instant;

/// Simulations per round of a timed search.
const TIME_CHUNK: u32 = 32;

/// Run one tree's search over the budget in its parameters
/// ([`SearchParams::budget`](super::SearchParams::budget)) with
/// `evaluator`, evaluating up to `leaves_per_tree` leaves per call. None if
/// the game at the root is over.
pub fn search(tree: &mut Tree, evaluator: &mut dyn Evaluator) -> Option<SearchResult> {
    match tree.params().budget() {
        Budget::Simulations(n) => {
            tree.start(n);
            search_batched(&mut [&mut *tree], evaluator);
            tree.result()
        }
        Budget::Time(limit) => {
            let t = Instant::now();
            tree.params_mut().algorithm = SearchAlgorithm::Puct;
            let mut total = 0;
            loop {
                tree.start(TIME_CHUNK);
                search_batched(&mut [&mut *tree], evaluator);
                let mut r = tree.result()?;
                total += r.simulations;
                if t.elapsed() >= limit {
                    r.simulations = total;
                    return Some(r);
                }
            }
        }
    }
}

/// Drive many started trees together: each round gathers up to
/// `leaves_per_tree` leaves from every tree, evaluates them all in one
/// `Evaluator` call and backs them up, until every tree is finished.
/// Call [`Tree::start`] on each tree first.
pub fn search_batched(trees: &mut [&mut Tree], evaluator: &mut dyn Evaluator) {
    loop {
        let mut leaves: Vec<(usize, Leaf)> = Vec::new();
        let mut all_done = true;
        for (i, t) in trees.iter_mut().enumerate() {
            let mut taken = 0;
            while t.wants_more() && taken < t.params.leaves_per_tree {
                match t.select() {
                    Selection::NeedsEval(l) => {
                        leaves.push((i, l));
                        taken += 1;
                    }
                    Selection::Done => {}
                    Selection::Busy => break,
                }
            }
            if t.wants_more() {
                all_done = false;
            }
        }
        if !leaves.is_empty() {
            let reqs: Vec<EvalRequest<'_>> = leaves
                .iter()
                .map(|(_, l)| EvalRequest {
                    game: &l.game,
                    moves: &l.moves,
                })
                .collect();
            let evals = evaluator.evaluate(&reqs);
            assert_eq!(evals.len(), leaves.len(), "evaluator returned a wrong batch size");
            for ((i, l), e) in leaves.into_iter().zip(evals) {
                trees[i].apply(l, e);
            }
        } else if all_done {
            break;
        }
    }
}
