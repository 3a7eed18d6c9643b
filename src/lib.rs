//! # damone
//!
//! Damone (Italian draughts with three ranks of pieces) and an AlphaZero-style
//! self-play trainer for it.
//!
//! Modules, lowest layer first (a module uses only those above it):
//!
//! | module | owns |
//! | --- | --- |
//! | [`util`] | seeded RNG streams, the binary reader/writer, atomic writes, Elo maths, CPU time |
//! | [`game`] | the rules engine: positions, moves, games, notation, FEN, perft |
//! | [`mcts`] | PUCT and Gumbel search over any position, the MCTS-solver, forced moves played through inside the tree, the `Evaluator` trait and its cache, `Wdl` |
//! | [`net`] | input encoding and policy index, the burn model, the fast inference path, `NetEvaluator` |
//! | [`data`] | training samples, the replay window and its file |
//! | [`selfplay`] | the vectorised environment and the self-play driver that never waits |
//! | [`train`] | losses, optimisers, schedules: the learner |
//! | [`arena`] | the `Player` trait, baseline bots, specs, matches, tournaments, evaluation games |
//! | [`run`] | a training run: config, loop, observer events, checkpoints, CSV logs |
//! | [`dist`] | self-play on many machines: actors and a learner over object storage |
//! | [`player`] | player files, loading any network player, the player factory |
//! | [`engine_protocol`] | the engine line protocol over any reader and writer |
//! | [`bench`] | the benchmarks: perft, search and network speed |
//! | [`serve`] | the web page: play and analyse, watch a run |
//!
//! The way data takes through a run is drawn in `ARCHITECTURE.md`.

pub mod util;

pub mod game;

pub mod mcts;

pub mod net;

pub mod data;

pub mod selfplay;

pub mod train;

pub mod arena;

pub mod run;

pub mod dist;

pub mod player;

pub mod engine_protocol;

pub mod bench;

pub mod serve;
