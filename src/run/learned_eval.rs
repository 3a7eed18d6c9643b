//! A run's learned evaluation: trained from a checkpoint's replay window,
//! each quiet position labelled by its game's outcome, its self-play
//! search's value and the checkpoint's network ([`crate::learned`]), and
//! saved beside the checkpoint as `learned_eval.bin`.

use super::{Checkpoint, RunGame};
use crate::data::{ReplayWindow, Sample};
use crate::learned::{train, EvalFile, FloatEval, TrainReport, EVAL_FILE_NAME};
use crate::mcts::Wdl;
use crate::net::{Net, NetEvaluator, Observation};
use crate::util::rng_stream;
use burn::tensor::Device;
use std::path::PathBuf;
use std::time::Instant;

pub use crate::learned::LearnEvalConfig;

/// `cfg` with `key=value` overrides (keys of the `[learned_eval]` section).
pub fn with_sets(cfg: &LearnEvalConfig, sets: &[String]) -> Result<LearnEvalConfig, String> {
    let cfg = super::config::section_with_sets(cfg, sets, "learned_eval")?;
    cfg.validate()?;
    Ok(cfg)
}

/// What training a learned evaluation did.
#[derive(Clone, Debug)]
pub struct LearnEvalStats {
    /// The training's report (positions, losses).
    pub report: TrainReport,
    /// Seconds labelling positions with the network, and training.
    pub label_s: f64,
    /// Seconds training.
    pub train_s: f64,
}

/// What training a checkpoint's evaluation did, and the file it wrote.
#[derive(Clone, Debug)]
pub struct LearnEvalOutcome {
    /// Where the file was written.
    pub path: PathBuf,
    /// What labelling and training did.
    pub stats: LearnEvalStats,
}

/// Progress of a training, for a bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LearnEvalProgress {
    /// Positions labelled by the network so far, of all.
    Labelled(usize, usize),
    /// An epoch ended with this held-out loss.
    Epoch(usize, f32),
}

/// The network's value of every position, given as (position, repeated,
/// no-progress fraction) (batches of 256 on the CPU's fast path);
/// `progress` is told the count labelled after `done_before` others.
fn network_values<P: RunGame>(
    net: &Net,
    positions: &[(P, bool, f32)],
    (done_before, all): (usize, usize),
    progress: &mut dyn FnMut(LearnEvalProgress),
) -> Vec<Wdl> {
    let evaluator = NetEvaluator::new(net);
    let inputs = evaluator.inputs();
    let mut out = Vec::with_capacity(positions.len());
    for chunk in positions.chunks(256) {
        let obs: Vec<Observation> = chunk
            .iter()
            .map(|(pos, repeated, no_progress)| Observation::new(pos, *repeated, *no_progress, inputs))
            .collect();
        let (_, v) = evaluator.infer(&obs);
        out.extend(v.chunks_exact(3).map(|w| Wdl::new(w[0], w[1], w[2])));
        progress(LearnEvalProgress::Labelled(done_before + out.len(), all));
    }
    out
}

/// A learned evaluation trained on `window`'s quiet positions (the newest
/// `cfg.positions`), labelled with `net`'s values; `what` names the window
/// in errors and in the file's note.
pub fn train_on_window<P: RunGame>(
    window: &ReplayWindow<P>,
    net: &Net,
    cfg: &LearnEvalConfig,
    seed: u64,
    what: &str,
    progress: &mut dyn FnMut(LearnEvalProgress),
) -> Result<(EvalFile, LearnEvalStats), String> {
    cfg.validate()?;
    let all: Vec<&Sample<P>> = window.iter().filter(|s| train::is_quiet(&s.pos)).collect();
    let from = if cfg.positions == 0 {
        0
    } else {
        all.len().saturating_sub(cfg.positions)
    };
    let samples = &all[from..];
    if samples.len() < 100 {
        return Err(format!(
            "{what} holds {} quiet replay positions; a learned evaluation needs at least 100 (train longer)",
            samples.len()
        ));
    }
    let started = Instant::now();
    let mut rng = rng_stream(seed, "learned-eval-walks", 0);
    let starts: Vec<P> = samples.iter().map(|s| s.pos).collect();
    let walks = match cfg.walk_plies {
        0 => Vec::new(),
        n => train::random_walks(&starts, n, &mut rng),
    };
    let own = (cfg.network_weight > 0.0) as usize * samples.len();
    let all = own + walks.len();
    let on_path: Vec<(P, bool, f32)> = samples
        .iter()
        .map(|s| (s.pos, s.repeated, s.no_progress))
        .collect();
    let teacher = (own > 0).then(|| network_values(net, &on_path, (0, all), progress));
    // A walk keeps its start's no-progress fraction (a capture would reset
    // it; walks end on quiet positions, most after quiet moves).
    let off_path: Vec<(P, bool, f32)> = walks
        .iter()
        .map(|&(i, p)| (p, false, samples[i].no_progress))
        .collect();
    let walk_values = network_values(net, &off_path, (own, all), progress);
    let walks: Vec<P> = walks.into_iter().map(|(_, p)| p).collect();
    let label_s = started.elapsed().as_secs_f64();
    let mut examples = train::examples(samples, teacher.as_deref(), &cfg.targets());
    examples.extend(train::network_examples(&walks, &walk_values));
    let (train_set, held_out) = train::split(examples, cfg.held_out, seed);
    let mut rng = rng_stream(seed, "learned-eval", 0);
    let mut model = FloatEval::new(cfg.shape(), crate::learned::features::cells_of::<P>(), &mut rng);
    let started = Instant::now();
    let report = train::fit(&mut model, &train_set, &held_out, cfg, &mut rng, |e, l| {
        progress(LearnEvalProgress::Epoch(e, l))
    });
    let train_s = started.elapsed().as_secs_f64();
    let note = format!(
        "{what}: {} positions, held-out loss {:.4}",
        report.train_positions,
        report.held_out_loss.last().copied().unwrap_or(0.0)
    );
    let file = EvalFile {
        game: P::ID,
        float: model,
        note,
    };
    Ok((
        file,
        LearnEvalStats {
            report,
            label_s,
            train_s,
        },
    ))
}

/// Train the learned evaluation of checkpoint `ck` from its replay window
/// and network, and write it into the checkpoint's folder. `seed` seeds
/// the split, the first weights and the order of the positions.
pub fn learn_eval<P: RunGame>(
    ck: &Checkpoint,
    cfg: &LearnEvalConfig,
    seed: u64,
    progress: &mut dyn FnMut(LearnEvalProgress),
) -> Result<LearnEvalOutcome, String> {
    cfg.validate()?;
    crate::learned::features::check_board::<P>()?;
    let window = ReplayWindow::<P>::from_bytes(&ck.read("replay.bin").map_err(|e| e.to_string())?)
        .map_err(|e| format!("{}: replay.bin: {e}", ck.dir.display()))?;
    let net = ck.load_net(&Device::flex()).map_err(|e| e.to_string())?;
    let what = format!("iteration {} of run {}", ck.state.iteration, ck.config.run);
    let (file, stats) = train_on_window(&window, &net, cfg, seed, &what, progress)?;
    let path = ck.dir.join(EVAL_FILE_NAME);
    file.write(&path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(LearnEvalOutcome { path, stats })
}

/// The learned evaluation a checkpoint or run folder names: a
/// checkpoint's own, or a run folder's newest (a learned evaluation does
/// not follow the network's best checkpoint: newer ones learned from more
/// games); a one-line error saying how to make one where there is none.
pub fn checkpoint_eval_file(path: &std::path::Path) -> Result<EvalFile, String> {
    let file = if super::RunDir::is_run_folder(path) {
        let run = super::RunDir::new(path);
        run.checkpoints()
            .into_iter()
            .rev()
            .map(|k| run.iter_dir(k).join(EVAL_FILE_NAME))
            .find(|f| f.is_file())
    } else {
        Checkpoint::open(path).map_err(|e| e.to_string())?;
        Some(path.join(EVAL_FILE_NAME)).filter(|f| f.is_file())
    };
    let Some(file) = file else {
        return Err(format!(
            "{} has no learned evaluation; make one with `damone learn-eval {}`",
            path.display(),
            path.display()
        ));
    };
    EvalFile::read(&file)
}
