//! Command-line interface: argument definitions and dispatch.

mod analyse;
mod arena;
mod cluster;
mod engine;
mod export;
mod info;
mod learn_eval;
mod perft;
mod play;
mod plot;
mod protocols;
mod rate;
mod self_train;
mod serve;
mod tablebase;
mod train;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use damone::net::{ComputeDevice, DeviceChoice};

/// Damone: rules engine, search bots, self-play training and play.
#[derive(Parser, Debug)]
#[command(name = "damone", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count leaf nodes of the legal-move tree for each depth 1..=N.
    Perft(perft::PerftArgs),
    /// List every legal move of a position with the FEN after it.
    Moves(perft::MovesArgs),
    /// Benchmarks: perft leaf nodes/s, search speed, network evaluations/s.
    Bench(perft::BenchArgs),
    /// Play a match between two players (e.g. alphabeta:depth=4 random).
    Match(arena::MatchArgs),
    /// Round robin (or gauntlet) among several players, with Elo ratings.
    Tournament(arena::TournamentArgs),
    /// Train a network by self-play (default: the embedded default config).
    Train(train::TrainArgs),
    /// Rate every kept checkpoint of a run with the measuring protocol:
    /// the alpha-beta ladder at fixed simulations, at equal time per move,
    /// and the raw policy.
    Rate(rate::RateArgs),
    /// Draw loss and win-rate curves of a training run (SVG).
    Plot(plot::PlotArgs),
    /// Train a run's learned evaluation for alpha-beta (alphabeta:eval=RUN)
    /// from its replay window and network.
    LearnEval(learn_eval::LearnEvalArgs),
    /// The learned evaluation trains itself: alpha-beta self-play, each
    /// round's positions labelled by its own searches.
    SelfTrain(self_train::SelfTrainArgs),
    /// Export a checkpoint as one self-contained player file.
    Export(export::ExportArgs),
    /// Play a game in the terminal against a player.
    Play(play::PlayArgs),
    /// Run the line protocol on stdin/stdout (for GUIs and scripts).
    Engine(engine::EngineArgs),
    /// Run the Hub protocol on stdin/stdout (Scan's; for the Hub and
    /// Damage interfaces and pydraughts), Italian draughts by default.
    Hub(protocols::HubArgs),
    /// Play engine-against-engine games over DXP (TCP), Italian draughts.
    Dxp(protocols::DxpArgs),
    /// Search one position and print the candidate moves and the WDL.
    Analyse(analyse::AnalyseArgs),
    /// Show what a player file, checkpoint or run folder holds (without
    /// one: the shipped players).
    Info(info::InfoArgs),
    /// The players shipped with the program (`shipped:GAME`), with their
    /// ratings and provenance.
    Players(info::PlayersArgs),
    /// The web page: play and analyse in the browser, watch a run live.
    Serve(serve::ServeArgs),
    /// Self-play actor for many machines: plays games with the newest
    /// model in a shared store and writes them as shards.
    Actor(cluster::ActorArgs),
    /// Learner for many machines: trains on the actors' shards in a shared
    /// store and publishes model versions.
    Learner(cluster::LearnerArgs),
    /// What a shared store holds: model versions and shards, with a check
    /// that no shard was lost or used twice.
    Store(cluster::StoreStatusArgs),
    /// Endgame tablebases of any game (--game): build, probe and verify them.
    Tablebase(tablebase::TablebaseArgs),
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Perft(a) => perft::perft(a),
        Command::Moves(a) => perft::moves(a),
        Command::Bench(a) => perft::bench(a),
        Command::Match(a) => arena::run_match(a),
        Command::Tournament(a) => arena::run_tournament(a),
        Command::Train(a) => train::run_train(a),
        Command::Plot(a) => plot::run_plot(a),
        Command::Rate(a) => rate::run_rate(a),
        Command::LearnEval(a) => learn_eval::run_learn_eval(a),
        Command::SelfTrain(a) => self_train::run_self_train(a),
        Command::Export(a) => export::run_export(a),
        Command::Play(a) => play::run_play(a),
        Command::Engine(a) => engine::run_engine(a),
        Command::Hub(a) => protocols::run_hub(a),
        Command::Dxp(a) => protocols::run_dxp(a),
        Command::Analyse(a) => analyse::run_analyse(a),
        Command::Info(a) => info::run_info(a),
        Command::Players(a) => info::run_players(a),
        Command::Serve(a) => serve::run_serve(a),
        Command::Actor(a) => cluster::run_actor_cmd(a),
        Command::Learner(a) => cluster::run_learner_cmd(a),
        Command::Store(a) => cluster::run_store_status(a),
        Command::Tablebase(a) => tablebase::run_tablebase(a),
    }
}

/// The `--device` option of the commands that run a network.
#[derive(clap::Args, Debug, Clone)]
pub struct DeviceOpt {
    /// Where network players run: cpu, gpu (builds with `--features gpu`)
    /// or auto (a hardware GPU when the build has the feature and one is
    /// found, else the CPU).
    #[arg(long, default_value = "auto", value_name = "cpu|gpu|auto")]
    pub device: DeviceChoice,
}

impl DeviceOpt {
    /// Open the device; says on stderr which one was picked when there
    /// was a choice (a build with the `gpu` feature, or an explicit
    /// `--device`).
    pub fn open(&self) -> Result<ComputeDevice> {
        let d = ComputeDevice::select(self.device).with_context(|| format!("--device {}", self.device))?;
        if cfg!(feature = "gpu") || self.device != DeviceChoice::Auto {
            eprintln!("device: {}", d.describe());
        }
        Ok(d)
    }

    /// [`DeviceOpt::open`] when one of `specs` is a network player, else
    /// the CPU (built-in players use no network).
    pub fn for_players<'a>(&self, specs: impl IntoIterator<Item = &'a str>) -> Result<ComputeDevice> {
        if specs.into_iter().any(damone::player::is_network_spec) {
            self.open()
        } else {
            Ok(ComputeDevice::cpu())
        }
    }
}

/// The `--game` option of the commands that start from no file.
#[derive(clap::Args, Debug, Clone)]
pub struct GameOpt {
    /// The game.
    #[arg(long, default_value = damone::game::GameKind::default().name(), value_parser = game_arg())]
    pub game: damone::game::GameKind,
}

/// The values of every `--game` option: the registered games' names,
/// which `--help` lists and a wrong name's error names.
pub fn game_arg() -> GameArg {
    GameArg
}

/// The parser of [`game_arg`].
#[derive(Clone, Copy, Debug)]
pub struct GameArg;

impl clap::builder::TypedValueParser for GameArg {
    type Value = damone::game::GameKind;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<Self::Value, clap::Error> {
        let text = value.to_string_lossy();
        text.parse().map_err(|e: damone::game::UnknownGame| {
            let name = arg.map_or_else(|| "--game".to_string(), |a| a.to_string());
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{name}': {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            damone::game::GAME_NAMES
                .iter()
                .map(|name| clap::builder::PossibleValue::new(*name)),
        ))
    }
}

pub use damone::util::{clip, next_line};

/// A progress bar on stderr; hidden with `--quiet` or when stderr is not a terminal.
pub fn progress_bar(len: u64, what: &str, quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len);
    pb.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{spinner}} {what} [{{elapsed_precise}}] {{bar:40}} {{pos}}/{{len}} (eta {{eta}}) {{msg}}"
        ))
        .expect("valid template"),
    );
    pb
}
