//! # damone
//!
//! Damone (Italian draughts with three ranks of pieces) and an AlphaZero-style
//! self-play trainer for it.
//!
//! Modules, lowest layer first (a module uses only those above it):
//!
//! | module | owns |
//! | --- | --- |
//! | [`util`] | seeded RNG streams, atomic file writes, Elo maths |
//! | [`game`] | the rules engine and notation |
//! | [`mcts`] | PUCT and Gumbel search over any position, the `Evaluator` trait |
//! | [`arena`] | the `Player` trait, baseline bots, matches, tournaments, ratings |

pub mod arena;
pub mod data;
pub mod game;
pub mod mcts;
pub mod net;
pub mod player;
pub mod selfplay;
pub mod train;
pub mod util;
