//! `damone learn-eval`: train a run's learned evaluation for alpha-beta
//! from a checkpoint's replay window and network, and save it beside the
//! checkpoint.

use anyhow::Result;
use clap::Args;
use damone::run::learned_eval::{learn_eval, with_sets, LearnEvalConfig, LearnEvalProgress};
use damone::run::{Checkpoint, RunGame};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct LearnEvalArgs {
    /// A run folder (checkpoints/<run>: its best checkpoint by evaluation,
    /// or with --latest its newest) or a checkpoint folder.
    pub run: PathBuf,
    /// With a run folder: its newest checkpoint instead of its best.
    #[arg(long)]
    pub latest: bool,
    /// Settings as `key=value`, the keys of the config's `[learned_eval]`
    /// section (e.g. `epochs=20`, `hidden=64`, `network_weight=0`);
    /// default: the run's own section.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Seed of the split, the first weights and the order of positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run_learn_eval(a: LearnEvalArgs) -> Result<()> {
    let ck = Checkpoint::for_player(&a.run, a.latest)?;
    let cfg = with_sets(&ck.config.learned_eval, &a.sets).map_err(anyhow::Error::msg)?;
    damone::with_game!(ck.config.game.kind()?, P => learn::<P>(&ck, &cfg, &a))
}

fn learn<P: RunGame>(ck: &Checkpoint, cfg: &LearnEvalConfig, a: &LearnEvalArgs) -> Result<()> {
    eprintln!(
        "learning an evaluation for {} (iteration {}, {})",
        ck.dir.display(),
        ck.state.iteration,
        ck.config.game
    );
    let bar = super::progress_bar(0, "labelling", a.quiet);
    let mut progress = |p: LearnEvalProgress| match p {
        LearnEvalProgress::Labelled(done, all) => {
            bar.set_length(all as u64);
            bar.set_position(done as u64);
        }
        LearnEvalProgress::Epoch(epoch, loss) => {
            if epoch == 1 {
                bar.set_message("training");
            }
            bar.println(format!("epoch {epoch}: held-out loss {loss:.5}"));
        }
    };
    let out = learn_eval::<P>(ck, cfg, a.seed, &mut progress).map_err(anyhow::Error::msg)?;
    bar.finish_and_clear();
    let r = &out.stats.report;
    println!(
        "wrote {}: {} training and {} held-out positions, held-out loss {:.5} -> {:.5} ({:.1} s labelling, {:.1} s training)",
        out.path.display(),
        r.train_positions,
        r.held_out_positions,
        r.held_out_loss.first().copied().unwrap_or(0.0),
        r.held_out_loss.last().copied().unwrap_or(0.0),
        out.stats.label_s,
        out.stats.train_s
    );
    Ok(())
}
