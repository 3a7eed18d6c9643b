//! Running searches: one tree to its budget ([`search`]), or many trees
//! against one evaluator with their leaves batched ([`search_batched`]).

use super::evaluator::{EvalRequest, Evaluation, Evaluator};
use super::params::{Budget, SearchAlgorithm};
use super::result::SearchResult;
use super::select::{Leaf, Selection};
use super::tree::Tree;
use crate::game::GamePosition;
use crate::util::stop::Stop;
use rayon::prelude::*;
use std::time::Instant;

/// Simulations per round of a timed search.
const TIME_CHUNK: u32 = 32;
/// Fewest trees per task when trees are spread over threads (a tree's
/// work between two network calls is short).
const TREES_PER_TASK: usize = 16;

/// Run one tree's search over the budget in its parameters
/// ([`SearchParams::budget`](super::SearchParams::budget)) with
/// `evaluator`, evaluating up to `leaves_per_tree` leaves per call. None if
/// the game at the root is over.
pub fn search<P: GamePosition>(
    tree: &mut Tree<P>,
    evaluator: &mut dyn Evaluator<P>,
) -> Option<SearchResult<P::Move>> {
    search_until(tree, evaluator, None)
}

/// [`search`], a time budget ending early once `stop` is raised (within a
/// round of simulations); a simulation budget runs to its end.
pub fn search_until<P: GamePosition>(
    tree: &mut Tree<P>,
    evaluator: &mut dyn Evaluator<P>,
    stop: Option<&Stop>,
) -> Option<SearchResult<P::Move>> {
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
                if t.elapsed() >= limit || stop.is_some_and(Stop::requested) {
                    r.simulations = total;
                    return Some(r);
                }
            }
        }
    }
}

/// Select up to `leaves_per_tree` leaves of `tree` for evaluation (fewer
/// when its search has what it needs, or a descent meets a leaf already
/// waiting), each tagged with `tag` (the tree's index in the caller).
pub fn take_leaves<P: GamePosition>(tree: &mut Tree<P>, tag: usize, out: &mut Vec<(usize, Leaf<P>)>) {
    let mut taken = 0;
    while tree.wants_more() && taken < tree.params.leaves_per_tree {
        match tree.select() {
            Selection::NeedsEval(l) => {
                out.push((tag, l));
                taken += 1;
            }
            Selection::Done => {}
            Selection::Busy => break,
        }
    }
}

/// The evaluation requests of tagged leaves, in order.
pub fn leaf_requests<P: GamePosition>(leaves: &[(usize, Leaf<P>)]) -> Vec<EvalRequest<'_, P>> {
    leaves
        .iter()
        .map(|(_, l)| EvalRequest {
            game: &l.game,
            moves: &l.moves,
        })
        .collect()
}

/// Evaluate tagged leaves in one `Evaluator` call; one evaluation per leaf,
/// in order.
pub fn evaluate_leaves<P: GamePosition>(
    evaluator: &mut dyn Evaluator<P>,
    leaves: &[(usize, Leaf<P>)],
) -> Vec<Evaluation> {
    let evals = evaluator.evaluate(&leaf_requests(leaves));
    assert_eq!(evals.len(), leaves.len(), "evaluator returned a wrong batch size");
    evals
}

/// Take leaves from many trees at once, the trees spread over the current
/// rayon pool: each tree's leaves as [`take_leaves`] takes them, tagged
/// with the tag beside it, all in the order of `trees`. Each tree's
/// descents run in order on one thread, so the leaves do not depend on the
/// number of threads.
pub fn take_leaves_all<P: GamePosition>(trees: &mut [(usize, &mut Tree<P>)]) -> Vec<(usize, Leaf<P>)> {
    let per_tree: Vec<Vec<(usize, Leaf<P>)>> = trees
        .par_iter_mut()
        .with_min_len(TREES_PER_TASK)
        .map(|(tag, tree)| {
            let mut out = Vec::new();
            take_leaves(tree, *tag, &mut out);
            out
        })
        .collect();
    per_tree.into_iter().flatten().collect()
}

/// Back up leaves taken by [`take_leaves_all`] from the same `trees`, with
/// their evaluations (in the leaves' order), the trees spread over the
/// current rayon pool; each tree applies its own leaves in order.
pub fn apply_all<P: GamePosition>(
    trees: &mut [(usize, &mut Tree<P>)],
    leaves: Vec<(usize, Leaf<P>)>,
    evals: Vec<Evaluation>,
) {
    let mut per_tree: Vec<Vec<(Leaf<P>, Evaluation)>> = trees.iter().map(|_| Vec::new()).collect();
    let mut at = 0;
    for ((tag, leaf), eval) in leaves.into_iter().zip(evals) {
        while trees[at].0 != tag {
            at += 1;
        }
        per_tree[at].push((leaf, eval));
    }
    trees
        .par_iter_mut()
        .zip(per_tree)
        .with_min_len(TREES_PER_TASK)
        .for_each(|((_, tree), backups)| {
            for (leaf, eval) in backups {
                tree.apply(leaf, eval);
            }
        });
}

/// Drive many started trees together: each round gathers up to
/// `leaves_per_tree` leaves from every tree, evaluates them all in one
/// `Evaluator` call and backs them up, until every tree is finished. The
/// trees' own work (descents, expansions, their tactical checks) is spread
/// over the current rayon pool.
/// Call [`Tree::start`] on each tree first.
pub fn search_batched<P: GamePosition>(trees: &mut [&mut Tree<P>], evaluator: &mut dyn Evaluator<P>) {
    let mut tagged: Vec<(usize, &mut Tree<P>)> = trees.iter_mut().map(|t| &mut **t).enumerate().collect();
    loop {
        let mut leaves = take_leaves_all(&mut tagged);
        if !leaves.is_empty() {
            let evals = evaluate_leaves(evaluator, &leaves);
            if let ([(_, tree)], 2..) = (&tagged[..], leaves.len()) {
                // One tree (a player's search): its leaves' tactical checks
                // spread over the threads before it applies them in order.
                leaves.par_iter_mut().for_each(|(_, leaf)| tree.check_leaf(leaf));
            }
            apply_all(&mut tagged, leaves, evals);
        } else if tagged.iter().all(|(_, t)| !t.wants_more()) {
            break;
        }
    }
}
