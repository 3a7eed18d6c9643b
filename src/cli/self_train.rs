//! `damone self-train`: the learned evaluation trains itself by alpha-beta
//! self-play, each round labelled by its own searches
//! ([`damone::run::self_train`]); a bar a round and a line after it.

use anyhow::{Context, Result};
use clap::Args;
use damone::run::self_train::{
    RoundRow, SelfTrainConfig, SelfTrainFolder, SelfTrainLimits, SelfTrainProgress, SelfTrainer,
};
use damone::run::RunGame;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SelfTrainArgs {
    /// The self-training folder (created; with --resume, continued).
    /// `alphabeta:eval=FOLDER` plays its newest round.
    pub dir: PathBuf,
    /// The evaluation to start from: a run folder, a checkpoint folder, a
    /// player file or a learned_eval.bin (its game is the folder's);
    /// default: new random weights of --game.
    #[arg(long, value_name = "PATH", conflicts_with = "resume")]
    pub from: Option<PathBuf>,
    #[command(flatten)]
    pub game: super::GameOpt,
    /// Stop at this round (the folder's count, earlier sittings included).
    #[arg(long)]
    pub rounds: Option<u32>,
    /// Stop before a new round once this many minutes have passed (one
    /// round plays at least; without --rounds or --minutes, one round).
    #[arg(long)]
    pub minutes: Option<f64>,
    /// Continue the folder's self-training from its newest round.
    #[arg(long)]
    pub resume: bool,
    /// Seed of a new folder's first weights, openings and training order.
    #[arg(long, default_value_t = 1, conflicts_with = "resume")]
    pub seed: u64,
    /// Settings as `key=value` (e.g. `games=400`, `nodes=5000`,
    /// `tree_depth=0`, `outcome_weight=0.5`); saved in the folder's
    /// self-train.toml's [settings], and applied on top of them with --resume.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// No progress bar or lines.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run_self_train(a: SelfTrainArgs) -> Result<()> {
    if a.resume {
        let mut folder = damone::run::self_train::read_folder_config(&a.dir).map_err(anyhow::Error::msg)?;
        folder.settings = folder.settings.with_sets(&a.sets).map_err(anyhow::Error::msg)?;
        let kind: damone::game::GameKind = folder
            .game
            .parse()
            .map_err(|e| anyhow::anyhow!("{}: {e}", a.dir.display()))?;
        return damone::with_game!(kind, P => {
            let trainer = SelfTrainer::<P>::open_at(&a.dir, folder).map_err(anyhow::Error::msg)?;
            drive(trainer, &a)
        });
    }
    let start = match &a.from {
        Some(path) => Some(damone::player::learned_eval_at(path, None).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let game = start.as_ref().map_or(Ok(a.game.game), |f| {
        f.game.kind().map_err(|e| anyhow::anyhow!("{e}"))
    })?;
    let settings = SelfTrainConfig::default()
        .with_sets(&a.sets)
        .map_err(anyhow::Error::msg)?;
    damone::with_game!(game, P => {
        let folder = SelfTrainFolder::of::<P>(a.seed, settings);
        let trainer = SelfTrainer::<P>::create(&a.dir, folder, start).map_err(anyhow::Error::msg)?;
        drive(trainer, &a)
    })
}

/// Run the rounds, drawing a bar a round and printing a line after each.
fn drive<P: RunGame>(mut trainer: SelfTrainer<P>, a: &SelfTrainArgs) -> Result<()> {
    let stop = damone::util::stop::Stop::new();
    damone::util::stop::stop_on_signals(&stop).context("cannot handle stop signals")?;
    if !a.quiet {
        eprintln!(
            "self-training {} ({}) from round {}: {} games a round at {} nodes a move",
            trainer.dir().display(),
            trainer.folder.game,
            trainer.round,
            trainer.folder.settings.games,
            trainer.folder.settings.nodes
        );
    }
    let bar = super::progress_bar(trainer.folder.settings.games as u64, "games", a.quiet);
    let quiet = a.quiet;
    let mut progress = |p: SelfTrainProgress| match p {
        SelfTrainProgress::Round(r) => {
            bar.reset();
            bar.set_message(format!("round {r}"));
        }
        SelfTrainProgress::Games(done, _) => bar.set_position(done as u64),
        SelfTrainProgress::Epoch(e, loss) => {
            bar.set_message(format!("training, epoch {e}: held-out loss {loss:.5}"))
        }
        SelfTrainProgress::Done(row) if !quiet => bar.println(round_line(&row)),
        SelfTrainProgress::Done(_) => {}
    };
    let limits = SelfTrainLimits {
        rounds: a.rounds,
        minutes: a.minutes,
    };
    let played = trainer
        .run(limits, &stop, &mut progress)
        .map_err(anyhow::Error::msg)?;
    bar.finish_and_clear();
    println!(
        "{}: round {} ({} this sitting); play it with alphabeta:eval={}",
        trainer.dir().display(),
        trainer.round,
        played,
        trainer.dir().display()
    );
    Ok(())
}

/// The line printed after a round.
fn round_line(row: &RoundRow) -> String {
    format!(
        "round {}: W-D-L {}-{}-{} (White's), {:.0} plies a game, {} new positions, \
         held-out loss {:.5} -> {:.5} ({:.1} s playing, {:.1} s training)",
        row.round,
        row.white_wins,
        row.draws,
        row.black_wins,
        row.mean_plies,
        row.positions,
        row.held_out_before,
        row.held_out_after,
        row.play_s,
        row.train_s
    )
}
