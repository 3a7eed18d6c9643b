//! Your own game on damone's library, worked through: English checkers,
//! a game damone does not ship, written outside the crate (this folder
//! uses only damone's public API) and then counted, trained, rated,
//! exported and played with damone's own machinery.
//!
//! ```text
//! cargo run --release --example checkers -- perft 8
//! cargo run --release --example checkers -- train --config configs/tiny.toml --set run=checkers
//! cargo run --release --example checkers -- match checkpoints/checkers alphabeta:depth=2 --games 4
//! cargo run --release --example checkers -- rate checkpoints/checkers --games 20
//! cargo run --release --example checkers -- export checkpoints/checkers checkers.dmp
//! cargo run --release --example checkers -- engine checkers.dmp
//! cargo run --release --example checkers -- self-train checkpoints/checkers-st --rounds 10
//! cargo run --release --example checkers -- match alphabeta:eval=checkpoints/checkers-st,depth=4 alphabeta:depth=4
//! ```
//!
//! `rules.rs` is the game (damone's `GamePosition`), `layers.rs` what the
//! network, the alpha-beta baseline and the endgame tables read of it.
//! docs/your-own-game.md walks through both.

mod layers;
mod rules;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use damone::arena::tournament::{run_games, schedule, GameRecord, MatchSettings, Standings};
use damone::engine_protocol::EngineSession;
use damone::game::{perft, GamePosition};
use damone::net::ComputeDevice;
use damone::player::rate::{rate_game, RateConfig};
use damone::player::{factory_on, LoadedNet};
use damone::run::self_train::{
    SelfTrainConfig, SelfTrainFolder, SelfTrainLimits, SelfTrainProgress, SelfTrainer,
};
use damone::run::{Checkpoint, Event, Run, RunConfig, Start};
use damone::util::stop::Stop;
use rules::Position;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "English checkers trained and played with damone's library")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal-move tree at each depth up to DEPTH.
    Perft {
        depth: u32,
        /// A setup string (`B:W21-32:B1-12`); the start when absent.
        #[arg(long)]
        setup: Option<String>,
    },
    /// Train a run from a damone config (its `game` is set to checkers).
    Train {
        /// The config file; damone's embedded default when absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Override a config key (`run=checkers`), repeatable.
        #[arg(long = "set")]
        sets: Vec<String>,
        /// Continue the run from its newest checkpoint.
        #[arg(long)]
        resume: bool,
    },
    /// Play a match between two players (damone's player specs: a run or
    /// checkpoint folder, a player file, `alphabeta:depth=4`, `random`).
    Match {
        first: String,
        second: String,
        /// Games, half with each colour.
        #[arg(long, default_value_t = 10)]
        games: u32,
    },
    /// Rate a run's newest checkpoint with damone's protocol.
    Rate {
        run: PathBuf,
        /// Games per match.
        #[arg(long, default_value_t = 20)]
        games: u32,
    },
    /// Export a run's best checkpoint as one player file.
    Export { run: PathBuf, out: PathBuf },
    /// Speak damone's engine protocol on stdin and stdout.
    Engine { player: String },
    /// The learned evaluation trains itself by alpha-beta self-play
    /// (damone's self-training; a new folder starts from random weights).
    SelfTrain {
        dir: PathBuf,
        /// Stop at this round.
        #[arg(long, default_value_t = 5)]
        rounds: u32,
        /// Override a self-training setting (`games=100`), repeatable.
        #[arg(long = "set")]
        sets: Vec<String>,
        /// Continue the folder from its newest round.
        #[arg(long)]
        resume: bool,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Perft { depth, setup } => {
            let start = match setup {
                Some(text) => Position::from_setup(&text, ()).map_err(|e| anyhow::anyhow!("--setup: {e}"))?,
                None => Position::start(()),
            };
            for d in 1..=depth {
                println!("perft {d}: {}", perft(&start, d));
            }
        }
        Command::Train { config, sets, resume } => train(config, sets, resume)?,
        Command::Match { first, second, games } => {
            let names = [first, second];
            let records = play_match(&names, games)?;
            print!("{}", Standings::compute(&names, &records, 1).table());
        }
        Command::Rate { run, games } => {
            let cfg = RateConfig {
                games,
                last_only: true,
                ..RateConfig::default()
            };
            let rows = rate_game::<Position>(&run, &cfg, &ComputeDevice::cpu(), &mut |_| {})?;
            for r in rows {
                println!(
                    "iteration {} {} vs {}: {} games, +{} ={} -{}, score {:.1}% ± {:.1}",
                    r.iteration,
                    r.mode,
                    r.opponent,
                    r.games,
                    r.wins,
                    r.draws,
                    r.losses,
                    100.0 * r.score,
                    100.0 * r.score_95
                );
            }
        }
        Command::Export { run, out } => {
            let ck = Checkpoint::for_player(&run, false)?;
            let loaded = LoadedNet::from_checkpoint(&ck, ck.config.eval.sims)?;
            let bytes = loaded.to_bytes().map_err(anyhow::Error::msg)?;
            damone::util::atomic_write(&out, &bytes)
                .with_context(|| format!("cannot write {}", out.display()))?;
            println!("wrote {} ({} bytes)", out.display(), bytes.len());
        }
        Command::SelfTrain {
            dir,
            rounds,
            sets,
            resume,
        } => self_train(&dir, rounds, &sets, resume)?,
        Command::Engine { player } => {
            let factory = factory_on::<Position>(&player, &ComputeDevice::cpu())?;
            let mut session = EngineSession::new(factory(1), (), Default::default());
            session.serve(&mut std::io::stdin().lock(), &mut std::io::stdout().lock())?;
        }
    }
    Ok(())
}

/// A damone run of checkers: the config's game is set to this game's id.
fn train(config: Option<PathBuf>, mut sets: Vec<String>, resume: bool) -> Result<()> {
    // A resumed run takes the user's changes (a longer `iterations=N`),
    // as `damone train --resume` does.
    let start = if resume {
        Start::Resume {
            from_intact: false,
            sets: sets.clone(),
        }
    } else {
        Start::New
    };
    sets.insert(0, format!("game={}", Position::ID));
    let cfg = RunConfig::load(config.as_deref(), &sets)?;
    let mut run = Run::<Position>::open(cfg, start)?;
    run.run(&mut |event: &Event| {
        if let Event::Iteration {
            metrics, checkpoint, ..
        } = event
        {
            println!(
                "iteration {}: {} games, loss policy {:.3} value {:.3}, {}",
                metrics.iteration,
                metrics.games,
                metrics.loss_policy,
                metrics.loss_value,
                checkpoint.display()
            );
        }
    })?;
    Ok(())
}

/// Self-train the folder `dir` to round `rounds`, a line a round.
fn self_train(dir: &std::path::Path, rounds: u32, sets: &[String], resume: bool) -> Result<()> {
    let mut trainer = if resume {
        SelfTrainer::<Position>::resume(dir, sets)
    } else {
        let settings = SelfTrainConfig::default()
            .with_sets(sets)
            .map_err(anyhow::Error::msg)?;
        SelfTrainer::<Position>::create(dir, SelfTrainFolder::of::<Position>(1, settings), None)
    }
    .map_err(anyhow::Error::msg)?;
    let limits = SelfTrainLimits {
        rounds: Some(rounds),
        minutes: None,
    };
    trainer
        .run(limits, &Stop::new(), &mut |p| {
            if let SelfTrainProgress::Done(row) = p {
                println!(
                    "round {}: {} games, {} positions, held-out loss {:.4} -> {:.4}",
                    row.round, row.games, row.positions, row.held_out_before, row.held_out_after
                );
            }
        })
        .map_err(anyhow::Error::msg)?;
    Ok(())
}

/// `games` games between two player specs from the start (two random
/// plies first, each opening played with both colours).
fn play_match(names: &[String; 2], games: u32) -> Result<Vec<GameRecord>> {
    if games == 0 || games % 2 == 1 {
        bail!("--games must be even and at least 2 (each opening is played with both colours)");
    }
    let factories = names
        .iter()
        .map(|n| factory_on::<Position>(n, &ComputeDevice::cpu()).with_context(|| format!("player '{n}'")))
        .collect::<Result<Vec<_>>>()?;
    let mut settings = MatchSettings::from_start(Position::start(()));
    settings.games_per_pair = games;
    settings.opening_plies = 2;
    let tasks = schedule(&[(0, 1)], &settings);
    Ok(run_games(&tasks, names, &factories, &settings, &|_| {}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use damone::game::Color;

    /// The published counts from the start (Aart Bik's and others'
    /// perft of English checkers), to depth 10.
    #[test]
    fn perft_from_the_start_matches_the_published_counts() {
        let published = [
            7, 49, 302, 1_469, 7_361, 36_768, 179_740, 845_931, 3_963_680, 18_391_564,
        ];
        let start = Position::start(());
        for (depth, &count) in (1..).zip(&published) {
            assert_eq!(perft(&start, depth), count, "depth {depth}");
        }
    }

    #[test]
    fn the_notation_reads_back_and_captures_are_compulsory() {
        let start = Position::start(());
        assert_eq!(
            start.to_setup(),
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
        );
        assert_eq!(start.side_to_move(), Color::Black);
        let mut firsts: Vec<String> = start.legal_moves().iter().map(|m| start.move_text(m)).collect();
        firsts.sort();
        assert_eq!(
            firsts,
            ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
        );
        // A man takes a king and goes on: 15x22x29 is the only move (the
        // shorter capture may not stop halfway).
        let pos = Position::from_setup("B:WK18,25:B15", ()).unwrap();
        let moves: Vec<String> = pos.legal_moves().iter().map(|m| pos.move_text(m)).collect();
        assert_eq!(moves, ["15x22x29"]);
        assert_eq!(
            pos.parse_move("15x29").unwrap(),
            pos.parse_move("15x22x29").unwrap()
        );
        assert!(pos
            .parse_move("15-19")
            .unwrap_err()
            .to_string()
            .contains("illegal move"));
        let err = Position::from_setup("B:W1:B2", ()).unwrap_err().to_string();
        assert!(err.contains("promotion row"), "{err}");
    }

    /// One iteration of damone's tiny config, a short match of the trained
    /// network against alpha-beta, the run exported and spoken to over
    /// the engine protocol.
    #[test]
    fn it_trains_plays_exports_and_speaks_the_engine_protocol() {
        let dir = std::env::temp_dir().join(format!("damone-checkers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let tiny = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/tiny.toml");
        let sets = vec![
            "run=checkers".to_string(),
            format!("checkpoint_dir={}", dir.display()),
            "iterations=1".into(),
        ];
        train(Some(tiny.clone()), sets.clone(), false).unwrap();
        let run = dir.join("checkers");
        // Resumed with a longer run: the change is kept and one more
        // iteration is trained.
        let longer: Vec<String> = sets
            .iter()
            .map(|s| {
                if s == "iterations=1" {
                    "iterations=2".into()
                } else {
                    s.clone()
                }
            })
            .collect();
        train(Some(tiny), longer, true).unwrap();
        assert_eq!(damone::run::RunDir::new(&run).checkpoints().last(), Some(&2));
        let ck = Checkpoint::for_player(&run, false).unwrap();
        assert_eq!(ck.config.game, Position::ID);

        let names = [
            format!("net:{},sims=8", run.display()),
            "alphabeta:depth=1".to_string(),
        ];
        let records = play_match(&names, 2).unwrap();
        assert_eq!(records.len(), 2);
        assert!(records.iter().all(|r| r.plies > 0 && !r.result.is_empty()));

        let loaded = LoadedNet::from_checkpoint(&ck, 8).unwrap();
        assert_eq!(loaded.header.game, Position::ID);
        let file = dir.join("checkers.dmp");
        std::fs::write(&file, loaded.to_bytes().unwrap()).unwrap();
        let factory =
            factory_on::<Position>(&format!("net:{}", file.display()), &ComputeDevice::cpu()).unwrap();
        let mut session = EngineSession::new(factory(1), (), Default::default());
        let hello = session.handle("hello").unwrap();
        assert!(hello.contains(&"id game checkers".to_string()), "{hello:?}");
        let reply = session.handle("go sims 8").unwrap();
        assert!(reply.iter().any(|l| l.starts_with("bestmove")), "{reply:?}");
        // A file of another game is refused by name.
        let err = factory_on::<damone::game::damone::Position>(
            &format!("net:{}", file.display()),
            &ComputeDevice::cpu(),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(err.contains("checkers"), "{err}");

        // The learned evaluation trains itself from random weights, and an
        // alpha-beta player plays with it.
        let st = dir.join("self-train");
        let small = ["games=4".to_string(), "nodes=200".into(), "epochs=1".into()];
        self_train(&st, 1, &small, false).unwrap();
        self_train(&st, 2, &[], true).unwrap();
        let rows: Vec<damone::run::self_train::RoundRow> =
            damone::run::read_rows(&st.join(damone::run::self_train::SELF_TRAIN_LOG)).unwrap();
        assert_eq!(rows.iter().map(|r| r.round).collect::<Vec<_>>(), [1, 2]);
        assert!(rows.iter().all(|r| r.games == 4 && r.positions > 0));
        let names = [
            format!("alphabeta:eval={},depth=2", st.display()),
            "random".to_string(),
        ];
        let records = play_match(&names, 2).unwrap();
        assert!(records.iter().all(|r| r.plies > 0), "{records:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
