//! `damone info PATH`: what a player file, a checkpoint folder or a run
//! folder holds (versions, model shape, search defaults, provenance); and
//! `damone players` (or `info` without a path): the shipped players.

use anyhow::{bail, Result};
use clap::Args;
use damone::player::LoadedNet;
use damone::run::{read_rows, self_train, Checkpoint, Metrics, RunDir};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A player file (.dmp), a checkpoint folder (iter_NNNN) or a run
    /// folder; without one, the players shipped with the program.
    pub path: Option<PathBuf>,
}

/// `damone players`: the players shipped with the program.
#[derive(Args, Debug)]
pub struct PlayersArgs {}

pub fn run_players(_: PlayersArgs) -> Result<()> {
    println!(
        "damone {}: the players shipped (a spec without kind= plays the game's first, the stronger per second)",
        env!("CARGO_PKG_VERSION")
    );
    for p in damone::player::shipped_players() {
        for line in p.describe() {
            println!("{line}");
        }
    }
    Ok(())
}

pub fn run_info(a: InfoArgs) -> Result<()> {
    let Some(p) = &a.path else {
        return run_players(PlayersArgs {});
    };
    if p.is_dir() && !p.join("state.toml").exists() {
        return print_run(p);
    }
    if p.is_dir() {
        let ck = Checkpoint::open(p)?;
        ck.verify()?;
        println!("checkpoint {} (all files intact)", p.display());
        println!("state: {}", toml::to_string(&ck.state)?.replace('\n', "; "));
    }
    print_player(p)
}

/// A run folder: its checkpoints, the newest one's state, the last
/// losses and its self-training; or a self-training folder's log.
fn print_run(p: &std::path::Path) -> Result<()> {
    let run = RunDir::new(p);
    let iters = run.checkpoints();
    if iters.is_empty() {
        if let Some(line) = self_train::summary(p).map_err(anyhow::Error::msg)? {
            println!("{line}");
            return Ok(());
        }
        bail!(
            "{} is neither a checkpoint nor a run folder (no iter_NNNN inside)",
            p.display()
        );
    }
    let latest = run.latest()?;
    println!("run folder {}", p.display());
    println!(
        "checkpoints: {}",
        iters
            .iter()
            .map(|k| format!("iter_{k:04}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let s = &latest.state;
    println!(
        "latest: iteration {}, {} games, {} steps, {:.1} min of training; best evaluation: iteration {} (score {:.3})",
        s.iteration,
        s.games,
        s.step,
        s.wall_s / 60.0,
        s.best_iteration,
        s.best_score
    );
    let m: Vec<Metrics> = read_rows(&run.metrics_path())?;
    if let Some(last) = m.last() {
        println!(
            "last iteration: loss policy {:.3} value {:.3}, {:.0} positions/s in self-play",
            last.loss_policy, last.loss_value, last.positions_per_s
        );
    }
    let folder = p.join(self_train::RUN_SELF_TRAIN_DIR);
    if let Some(line) = self_train::summary(&folder).map_err(anyhow::Error::msg)? {
        println!("{line}");
    }
    Ok(())
}

/// What a player file or checkpoint's header says.
fn print_player(p: &std::path::Path) -> Result<()> {
    let loaded = LoadedNet::load(p)?;
    let h = &loaded.header;
    println!(
        "player: format version {}, input encoding version {}, game {}, variant {}",
        h.format_version, h.encoding_version, h.game, h.variant
    );
    println!("model: {}", h.model.describe());
    println!(
        "search: {:?}, {} simulations{}, c_puct {}",
        h.search.algorithm,
        h.search.simulations,
        if h.search.movetime_ms > 0 {
            format!(" (or {} ms per move)", h.search.movetime_ms)
        } else {
            String::new()
        },
        h.search.c_puct
    );
    println!(
        "rules: draw after {} plies without progress, at {} plies",
        h.rules.no_progress_plies, h.rules.max_plies
    );
    let pr = &h.provenance;
    println!(
        "provenance: run '{}', iteration {}, {} games, config hash {}{}",
        pr.run,
        pr.iteration,
        pr.games,
        pr.config_hash,
        match (&pr.rating, &pr.rating_anchor) {
            (Some(r), Some(a)) => format!(", rating {r:.0} (anchor {a})"),
            (Some(r), None) => format!(", rating {r:.0}"),
            _ => String::new(),
        }
    );
    let learned = if p.is_dir() {
        damone::player::learned_eval_at(p, None).ok()
    } else {
        loaded.learned.clone()
    };
    match learned {
        Some(f) => println!(
            "learned evaluation for alpha-beta: {}, {}",
            f.float.shape.describe(),
            f.note
        ),
        None => println!("learned evaluation for alpha-beta: none (damone learn-eval makes one)"),
    }
    Ok(())
}
