//! # damone
//!
//! Damone (Italian draughts with three ranks of pieces) and an AlphaZero-style
//! self-play trainer for it.
//!
//! Modules, lowest layer first (a module uses only those above it):
//!
//! | module | owns |
//! | --- | --- |
//! | [`util`] | seeded RNG streams and the one seed derivation, the binary reader/writer, atomic writes, Elo maths, CPU time, text lines, SVG charts |
//! | [`game`] | the rules engine: positions, moves, games, notation, FEN, perft |
//! | [`tablebase`] | Damone's endgame tablebases: the retrograde generator, the table files, probing and the verifier |
//! | [`mcts`] | PUCT and Gumbel search over any position, the MCTS-solver, forced moves played through inside the tree, the `Evaluator` trait and its cache, `Wdl` |
//! | [`net`] | input encoding and policy index, the burn model, the fast CPU inference path ([`net::inference`]), `NetEvaluator` |
//! | [`data`] | training samples, the replay window and its file |
//! | [`learned`] | the learned evaluation for alpha-beta: inputs, the float and integer networks, the accumulator, its file and its training |
//! | [`selfplay`] | the vectorised environment and the self-play driver that never waits |
//! | [`train`] | losses, optimisers, schedules, the hand-written CPU training step: the learner |
//! | [`arena`] | the `Player` trait, baseline bots, specs and player lists, matches and their files, tournaments, evaluation games, a person's game against an engine |
//! | [`run`] | a training run: config, the iteration's phases, observer events, checkpoints, CSV logs, charts |
//! | [`cluster`] | self-play on many machines: actors and a learner over object storage |
//! | [`player`] | player files, loading any network player (file, checkpoint or run folder), the player factory, the rating protocol, checkpoint tournaments |
//! | [`engine_protocol`] | the engine line protocol over any reader and writer |
//! | [`bench`] | the benchmarks: perft, search and network speed |
//! | [`serve`] | the web page: play and analyse, watch a run |
//!
//! The way data takes through a run is drawn in `ARCHITECTURE.md`.

pub mod util;

pub mod game;

pub mod tablebase;

pub mod mcts;

pub mod net;

pub mod data;

pub mod learned;

pub mod selfplay;

pub mod train;

pub mod arena;

pub mod run;

pub mod cluster;

pub mod player;

pub mod engine_protocol;

pub mod bench;

pub mod serve;
