//! The command line of a game written on the library: a downstream crate's
//! `main` is one call ([`main`]) and its game then counts, trains, rates,
//! exports, self-trains, plays matches and speaks the engine protocol with
//! damone's own machinery (`examples/checkers/`, `examples/connect4/`).
//!
//! ```no_run
//! # type Position = damone::game::damone::Position;
//! fn main() {
//!     damone::app::main::<Position>()
//! }
//! ```
//!
//! [`walk_through`] runs every command once on a tiny budget: a
//! downstream game's test that it works end to end.

use crate::arena::tournament::{run_games, schedule, GameRecord, MatchSettings, Standings};
use crate::engine_protocol::EngineSession;
use crate::game::perft;
use crate::net::ComputeDevice;
use crate::player::export::{export_player, ExportOptions};
use crate::player::open;
use crate::player::rate::{rate_game, RateConfig};
use crate::run::self_train::{
    SelfTrainConfig, SelfTrainFolder, SelfTrainLimits, SelfTrainProgress, SelfTrainer,
};
use crate::run::{Event, Run, RunGame, Start};
use crate::util::stop::Stop;
use anyhow::{anyhow, bail, Context, Result};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::{Path, PathBuf};

/// The command line: one of [`GameCommand`].
#[derive(Parser)]
struct AppCli {
    #[command(subcommand)]
    command: GameCommand,
}

/// The commands of a downstream game's program.
#[derive(Subcommand)]
pub enum GameCommand {
    /// Count the leaves of the legal-move tree at each depth up to DEPTH.
    Perft {
        /// The deepest depth counted.
        depth: u32,
        /// A setup string (the game's notation); the start when absent.
        #[arg(long)]
        setup: Option<String>,
    },
    /// Train a run from a damone config (its `game` is set to this game).
    Train {
        /// The config file; damone's embedded default when absent.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Override a config key (`run=mine`), repeatable.
        #[arg(long = "set")]
        sets: Vec<String>,
        /// Continue the run from its newest checkpoint (the `--set`
        /// changes are kept, as `damone train --resume` keeps them).
        #[arg(long)]
        resume: bool,
    },
    /// Play a match between two players (damone's player specs: a run or
    /// checkpoint folder, a player file, `alphabeta:depth=4`, `random`).
    Match {
        /// The first player's spec.
        first: String,
        /// The second player's spec.
        second: String,
        /// Games, half with each colour.
        #[arg(long, default_value_t = 10)]
        games: u32,
    },
    /// Rate a run's newest checkpoint with damone's protocol.
    Rate {
        /// The run folder.
        run: PathBuf,
        /// Games per match.
        #[arg(long, default_value_t = 20)]
        games: u32,
    },
    /// Export a run's best checkpoint as one player file.
    Export {
        /// The run folder.
        run: PathBuf,
        /// The player file written.
        out: PathBuf,
    },
    /// Speak damone's engine protocol on stdin and stdout.
    Engine {
        /// The player's spec.
        player: String,
    },
    /// The learned evaluation trains itself by alpha-beta self-play
    /// (damone's self-training; a new folder starts from random weights).
    SelfTrain {
        /// The self-training folder.
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

/// Parse the process's arguments and run the command for game `P`; the
/// help names the game by its title. An error is one line on stderr and
/// exit status 2, as with `damone` itself.
pub fn main<P: RunGame>() {
    P::ID.declare();
    let about = format!("{} trained and played with damone's library", P::ID.title());
    let matches = AppCli::command().about(about).get_matches();
    let done = AppCli::from_arg_matches(&matches)
        .map_err(|e| anyhow!("{e}"))
        .and_then(|cli| run_command::<P>(cli.command));
    if let Err(e) = done {
        eprintln!("error: {}", format!("{e:#}").replace('\n', " "));
        std::process::exit(2);
    }
}

/// Run one command for game `P`, printing what it reports.
pub fn run_command<P: RunGame>(command: GameCommand) -> Result<()> {
    match command {
        GameCommand::Perft { depth, setup } => {
            let start = match setup {
                Some(text) => {
                    P::from_setup(&text, P::Variant::default()).map_err(|e| anyhow!("--setup: {e}"))?
                }
                None => P::start(P::Variant::default()),
            };
            for d in 1..=depth {
                println!("perft {d}: {}", perft(&start, d));
            }
        }
        GameCommand::Train { config, sets, resume } => train::<P>(config.as_deref(), sets, resume)?,
        GameCommand::Match { first, second, games } => {
            let names = [first, second];
            let records = play_match::<P>(&names, games)?;
            print!("{}", Standings::compute(&names, &records, 1).table());
        }
        GameCommand::Rate { run, games } => rate::<P>(&run, games)?,
        GameCommand::Export { run, out } => {
            let bytes = export::<P>(&run, &out)?;
            println!("wrote {} ({bytes} bytes)", out.display());
        }
        GameCommand::SelfTrain {
            dir,
            rounds,
            sets,
            resume,
        } => self_train::<P>(&dir, rounds, &sets, resume)?,
        GameCommand::Engine { player } => {
            let (factory, _) = open::<P>(&player, &ComputeDevice::cpu())?;
            let mut session = EngineSession::new(factory(1), P::Variant::default(), Default::default());
            session.serve(&mut std::io::stdin().lock(), &mut std::io::stdout().lock())?;
        }
    }
    Ok(())
}

/// A damone run of game `P` (the config's game is set to it), a line an
/// iteration. A resumed run takes the user's changes (a longer
/// `iterations=N`), as `damone train --resume` does.
pub fn train<P: RunGame>(config: Option<&Path>, mut sets: Vec<String>, resume: bool) -> Result<()> {
    let start = if resume {
        Start::Resume {
            from_intact: false,
            sets: sets.clone(),
        }
    } else {
        Start::New
    };
    sets.insert(0, format!("game={}", P::ID));
    let mut run = Run::<P>::open_with(config, &sets, start)?;
    run.run(&mut |event: &Event| match event {
        Event::Iteration {
            metrics, checkpoint, ..
        } => println!(
            "iteration {}: {} games, loss policy {:.3} value {:.3}, {}",
            metrics.iteration,
            metrics.games,
            metrics.loss_policy,
            metrics.loss_value,
            checkpoint.display()
        ),
        Event::Notice(line) => println!("notice: {line}"),
        _ => {}
    })?;
    Ok(())
}

/// Rate the newest checkpoint of the run in `dir`, `games` a match, a line
/// a row.
pub fn rate<P: RunGame>(dir: &Path, games: u32) -> Result<()> {
    let cfg = RateConfig {
        games,
        last_only: true,
        ..RateConfig::default()
    };
    for r in rate_game::<P>(dir, &cfg, &ComputeDevice::cpu(), &mut |_| {})? {
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
    Ok(())
}

/// Write the best checkpoint of the run in `dir` as the player file `out`,
/// with the checkpoint's learned evaluation where it has one (as `damone
/// export` writes it); its size in bytes.
pub fn export<P: RunGame>(dir: &Path, out: &Path) -> Result<usize> {
    let opts = ExportOptions {
        game: Some(P::ID),
        ..ExportOptions::default()
    };
    Ok(export_player(dir, out, &opts)?.bytes)
}

/// Self-train the folder `dir` to round `rounds`, a line a round.
pub fn self_train<P: RunGame>(dir: &Path, rounds: u32, sets: &[String], resume: bool) -> Result<()> {
    let mut trainer = if resume {
        SelfTrainer::<P>::resume(dir, sets)
    } else {
        let settings = SelfTrainConfig::default()
            .with_sets(sets)
            .map_err(anyhow::Error::msg)?;
        SelfTrainer::<P>::create(dir, SelfTrainFolder::of::<P>(1, settings), None)
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
pub fn play_match<P: RunGame>(names: &[String; 2], games: u32) -> Result<Vec<GameRecord>> {
    if games == 0 || games % 2 == 1 {
        bail!("--games must be even and at least 2 (each opening is played with both colours)");
    }
    let factories = names
        .iter()
        .map(|n| {
            open::<P>(n, &ComputeDevice::cpu())
                .map(|(f, _)| f)
                .with_context(|| format!("player '{n}'"))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut settings = MatchSettings::from_start(P::start(P::Variant::default()));
    settings.games_per_pair = games;
    settings.opening_plies = 2;
    let tasks = schedule(&[(0, 1)], &settings);
    Ok(run_games(&tasks, names, &factories, &settings, &|_| {}))
}

/// Every command once on a tiny budget, in the folder `dir` (made afresh
/// and removed after): two iterations of `configs/tiny.toml` (`tiny`), the
/// second by a resume that keeps its `--set` change; a match of the
/// network against alpha-beta; its rating; the export (with its learned
/// evaluation where the game has one) and the engine protocol on the
/// file; a file of game `Other` refused by name; two self-training rounds
/// (the second resumed) and a match with their evaluation where the
/// learned evaluation reads the game's board. An error says which step
/// failed.
pub fn walk_through<P: RunGame, Other: RunGame>(dir: &Path, tiny: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    let sets = |iterations: u32| {
        vec![
            format!("run={}", P::ID),
            format!("checkpoint_dir={}", dir.display()),
            format!("iterations={iterations}"),
        ]
    };
    train::<P>(Some(tiny), sets(1), false).context("train")?;
    train::<P>(Some(tiny), sets(2), true).context("train --resume")?;
    let run = dir.join(P::ID.name());
    let last = crate::run::RunDir::new(&run).checkpoints().last().copied();
    if last != Some(2) {
        bail!("the resumed run ended at checkpoint {last:?}, not 2");
    }
    let names = [
        format!("net:{},sims=8", run.display()),
        "alphabeta:depth=1".into(),
    ];
    let records = play_match::<P>(&names, 2).context("match")?;
    if records.len() != 2 || records.iter().any(|r| r.plies == 0 || r.result.is_empty()) {
        bail!("the match gave {records:?}");
    }
    let cfg = RateConfig {
        games: 2,
        depths: vec![1],
        last_only: true,
        ..RateConfig::default()
    };
    let rows = rate_game::<P>(&run, &cfg, &ComputeDevice::cpu(), &mut |_| {}).context("rate")?;
    if rows.is_empty() || rows.iter().any(|r| r.games != 2 || r.iteration != 2) {
        bail!(
            "the rating gave {} rows, not rows of 2 games at iteration 2",
            rows.len()
        );
    }
    let file = dir.join("player.dmp");
    export::<P>(&run, &file).context("export")?;
    engine_answers::<P>(&file).context("engine")?;
    if crate::learned::features::reads::<P>() {
        let spec = format!("alphabeta:eval={},depth=1", file.display());
        open::<P>(&spec, &ComputeDevice::cpu()).context("the exported file's learned evaluation")?;
    }
    let other = format!("net:{}", file.display());
    match open::<Other>(&other, &ComputeDevice::cpu()) {
        Err(e) if e.to_string().contains(P::ID.name()) => {}
        Err(e) => bail!(
            "a {} file as a {} player: '{e}' does not name {}",
            P::ID,
            Other::ID,
            P::ID
        ),
        Ok(_) => bail!("a {} file loaded as a {} player", P::ID, Other::ID),
    }
    if crate::learned::features::reads::<P>() {
        self_train_twice::<P>(&dir.join("self-train"))?;
    }
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}

/// The engine protocol on the player file `file`: `hello` names the game,
/// `go sims 8` answers a move.
fn engine_answers<P: RunGame>(file: &Path) -> Result<()> {
    let (factory, _) = open::<P>(&format!("net:{}", file.display()), &ComputeDevice::cpu())?;
    let mut session = EngineSession::new(factory(1), P::Variant::default(), Default::default());
    let hello = session.handle("hello").unwrap_or_default();
    if !hello.contains(&format!("id game {}", P::ID)) {
        bail!("hello answered {hello:?}");
    }
    let reply = session.handle("go sims 8").unwrap_or_default();
    if !reply.iter().any(|l| l.starts_with("bestmove")) {
        bail!("go answered {reply:?}");
    }
    Ok(())
}

/// Two self-training rounds in `st` from random weights (the second
/// resumed), then a match of alpha-beta with their evaluation.
fn self_train_twice<P: RunGame>(st: &Path) -> Result<()> {
    let small = ["games=4".to_string(), "nodes=200".into(), "epochs=1".into()];
    self_train::<P>(st, 1, &small, false).context("self-train")?;
    self_train::<P>(st, 2, &[], true).context("self-train --resume")?;
    let rows: Vec<crate::run::self_train::RoundRow> =
        crate::run::read_rows(&st.join(crate::run::self_train::SELF_TRAIN_LOG)).context("self-train log")?;
    if rows.iter().map(|r| r.round).collect::<Vec<_>>() != [1, 2] || rows.iter().any(|r| r.positions == 0) {
        bail!(
            "the self-training log holds {} rows, not rounds 1 and 2 with positions",
            rows.len()
        );
    }
    let names = [
        format!("alphabeta:eval={},depth=2", st.display()),
        "random".into(),
    ];
    let records = play_match::<P>(&names, 2).context("match with the self-trained evaluation")?;
    if records.iter().any(|r| r.plies == 0) {
        bail!("the match gave {records:?}");
    }
    Ok(())
}
