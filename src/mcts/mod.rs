//! Monte Carlo tree search over any `game` position.
//!
//! - [`Evaluator`]: a batch of positions in, priors over legal moves and a
//!   win/draw/loss value out. Uniform-prior evaluators with a zero value or a
//!   random-rollout value ship here; the network implements the same trait in
//!   `net`. Search never names burn.
//! - [`Tree`]: one search tree with PUCT or Gumbel root search, first-play
//!   urgency, root Dirichlet noise, virtual loss, exact terminal values, WDL
//!   backup and tree reuse.
//! - [`search_batched`]: many trees at once, one `Evaluator` call per round.

mod evaluator;
mod params;
mod tree;

pub use evaluator::{wdl_of_outcome, EvalRequest, Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator};
pub use params::{SearchAlgorithm, SearchParams};
pub use tree::{search, search_batched, Leaf, SearchResult, Selection, Tree};
