//! Monte Carlo tree search over any `game` position.
//!
//! - [`Evaluator`]: a batch of positions in, priors over legal moves and a
//!   [`Wdl`] value out. Uniform-prior evaluators with a zero value or a
//!   random-rollout value ship here; the network implements the same trait in
//!   `net`. Search never names burn. [`EvalCache`] answers positions met
//!   again from a table instead of asking the network.
//! - [`Tree`]: one search tree (`tree` storage and reuse, `select`
//!   descent and backup, `gumbel` root, `result` targets).
//! - [`ExactValues`]: values known without search (Damone's endgame
//!   tablebases), which a tree treats as finished games.
//! - [`search`] runs one tree over its [`Budget`]; [`search_batched`] runs
//!   many trees at once, one `Evaluator` call per round.

mod driver;
mod evaluator;
mod exact;
mod gumbel;
mod params;
mod result;
mod select;
mod tactics;
mod tree;
mod wdl;

pub use driver::{
    apply_all, evaluate_leaves, leaf_requests, search, search_batched, search_until, take_leaves,
    take_leaves_all,
};
pub use evaluator::{EvalCache, EvalRequest, Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator};
pub use exact::{DecisiveOnly, ExactPosition, ExactValues, OpenExactValues};
pub use params::{Budget, SearchAlgorithm, SearchParams};
pub use result::SearchResult;
pub use select::{Leaf, Selection};
pub use tree::Tree;
pub use wdl::Wdl;
