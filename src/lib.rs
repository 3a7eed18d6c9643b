//! # damone
//!
//! An AlphaZero-style self-play trainer for draughts games, with the games
//! it ships (Damone, the Italian variant with three ranks of pieces;
//! Italian draughts; Dameo) and room for yours: rules engines, Monte Carlo
//! tree search guided by a network built with burn, alpha-beta with a
//! hand-written or a learned evaluation, matches and ratings, exported
//! players, an engine protocol and a web page.
//!
//! Everything is generic over a game, a type implementing
//! [`game::GamePosition`] and the traits of the layers above
//! ([`run::RunGame`]); docs/your-own-game.md and `examples/checkers/` show
//! a game written outside the crate.
//!
//! The rules, counted:
//!
//! ```
//! use damone::game::{italian, perft, GamePosition};
//! let start = italian::Position::start(());
//! assert_eq!(perft(&start, 3), 302);
//! let moves: Vec<String> = start.legal_moves().iter().map(|m| start.move_text(m)).collect();
//! assert!(moves.contains(&"22-18".to_string()));
//! ```
//!
//! A match between two players, named by player specs (a network is
//! `net:PATH` with a run folder, a checkpoint or a player file):
//!
//! ```
//! use damone::arena::tournament::{run_games, schedule, MatchSettings, Standings};
//! use damone::game::{GamePosition, damone::{Position, Variant}};
//! let names = ["alphabeta:depth=2".to_string(), "random".to_string()];
//! let players = names.iter().map(|n| damone::player::open::<Position>(n, &damone::net::ComputeDevice::cpu()).map(|(f, _)| f)).collect::<Result<Vec<_>, _>>()?;
//! let settings = MatchSettings::from_start(Position::start(Variant::Standard));
//! let games = schedule(&[(0, 1)], &settings);
//! let records = run_games(&games, &names, &players, &settings, &|_| {});
//! let standings = Standings::compute(&names, &records, 1);
//! assert_eq!(standings.rows.iter().map(|r| r.games).sum::<u32>(), 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A training run (here one iteration of the tiny config), its checkpoint
//! and logs in `checkpoint_dir/run`:
//!
//! ```
//! use damone::run::{Run, RunConfig, Start};
//! let tiny = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tiny.toml"));
//! let dir = std::env::temp_dir().join(format!("damone-doc-{}", std::process::id()));
//! let sets = [format!("checkpoint_dir={}", dir.display()), "iterations=1".to_string()];
//! let mut run = Run::<damone::game::damone::Position>::open(RunConfig::load(Some(tiny), &sets)?, Start::New)?;
//! run.run(&mut |_event| {})?;
//! assert_eq!(run.state().iteration, 1);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Modules, lowest layer first (a module uses only those above it):
//!
//! | module | owns |
//! | --- | --- |
//! | [`util`] | seeded RNG streams and the one seed derivation, the binary reader/writer, atomic writes, Elo maths, CPU time, text lines, SVG charts |
//! | [`game`] | the game interface and the one list of games, the three games' rules engines, game records, notation, setup strings, perft |
//! | [`tablebase`] | every game's endgame tablebases: the retrograde generator, the table files, probing and the verifier |
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
//! | [`mod@bench`] | the benchmarks: perft, search and network speed |
//! | [`serve`] | the web page: play and analyse, watch a run |
//! | [`app`] | the command line of a game written on the library: one call in its `main` |
//!
//! The way data takes through a run is drawn in `ARCHITECTURE.md`.

#![warn(missing_docs)]

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
pub mod protocols;

pub mod bench;

pub mod serve;

pub mod app;
