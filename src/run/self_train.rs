//! Self-training of the learned evaluation: alpha-beta with the learned
//! evaluation plays itself, its own searches label the positions, the
//! evaluation is trained on them, and again, so that the student becomes
//! its own teacher (tree bootstrapping, Veness et al. 2009; Descent,
//! Cohen-Solal and Cazenave 2023; docs/learned-eval.md).
//!
//! A round:
//!
//! 1. **Games**: `games` games from seeded random openings of
//!    `opening_plies` plies, both sides the same one-thread alpha-beta
//!    with the current evaluation at `nodes` nodes a move (a node budget,
//!    so that a round gives the same games on any machine and thread
//!    count).
//! 2. **Labels**: each quiet position where a move was searched, labelled
//!    by that search's root value; with `tree_depth` N, also every position
//!    the search expanded with at least N plies left whose exact value it
//!    found (its last, deepest value); with `label_nodes`, the root's value comes from a second,
//!    deeper search instead. Each label is mixed with the game's result
//!    by `outcome_weight`.
//! 3. **Training**: the positions of the last `window_rounds` rounds, the
//!    current weights trained on for `epochs` epochs by Adam (a fresh
//!    optimiser each round), 5% held out.
//!
//! A self-training folder holds its settings (`self-train.toml`), the
//! evaluation after each round (`round_NNNN.bin`, round 0 the start), each
//! round's positions (`round_NNNN.examples`) and a CSV log
//! (`self-train.csv`); a resumed folder gives the same bits as one
//! sitting. `alphabeta:eval=FOLDER` plays its newest round.

use super::metrics::{read_rows, write_rows};
use crate::arena::alphabeta::{AlphaBeta, Baseline, Limits, Score};
use crate::arena::tournament::{opening_game, MatchSettings};
use crate::game::{Board, Color, DrawRules, Game, GameId, GamePosition, Outcome};
use crate::learned::examples::{examples_from_bytes, examples_to_bytes};
use crate::learned::features::{cells_of, Inputs};
use crate::learned::{
    expected_score_of, train, EvalFile, Example, FloatEval, LearnEvalConfig, LearnedEval, Shape,
};
use crate::mcts::Wdl;
use crate::util::range::{check, Bounds};
use crate::util::{atomic_write, derive_seed, rng_stream};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The settings file of a self-training folder.
pub const SELF_TRAIN_CONFIG: &str = "self-train.toml";
/// The log of a self-training folder, a row a round.
pub const SELF_TRAIN_LOG: &str = "self-train.csv";

/// How a learned evaluation trains itself: the `[settings]` of a
/// folder's `self-train.toml` (`damone self-train --set key=value`
/// overrides them) and a run config's `[self_train]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfTrainConfig {
    /// `damone train`: minutes of self-training after the run's last
    /// iteration, from its learned evaluation, in the run's `self-train`
    /// folder (0: none). `damone self-train` does not read it.
    pub minutes_in_run: f64,
    /// Games a round.
    pub games: usize,
    /// Alpha-beta's nodes a move in the games.
    pub nodes: u64,
    /// Nodes of a second, deeper search labelling each searched root
    /// (0: the root is labelled by the search that chose its move).
    pub label_nodes: u64,
    /// Also label every position the searches expanded with at least
    /// this many plies left by the exact value they found for it (tree
    /// bootstrapping; 0: the roots alone).
    pub tree_depth: u32,
    /// Random plies opening each game.
    pub opening_plies: u32,
    /// Weight of the game's result in a label (the search's value has the rest).
    pub outcome_weight: f32,
    /// Rounds whose positions each round trains on (its own included).
    pub window_rounds: usize,
    /// Passes over the window a round.
    pub epochs: usize,
    /// Positions per Adam step.
    pub batch_size: usize,
    /// Adam's learning rate at a round's start (cosine to a tenth).
    pub lr: f32,
    /// Share of the window held out to measure the loss on.
    pub held_out: f32,
    /// Units of each view's accumulator of a new evaluation.
    pub hidden: usize,
    /// Units of the second layer of a new evaluation.
    pub hidden2: usize,
    /// The inputs the evaluation reads: pieces | pairs (a start of pieces
    /// alone is widened, its pairs' weights zero).
    pub inputs: Inputs,
}

impl Default for SelfTrainConfig {
    fn default() -> Self {
        SelfTrainConfig {
            minutes_in_run: 20.0,
            games: 200,
            nodes: 2000,
            label_nodes: 0,
            tree_depth: 0,
            opening_plies: 6,
            outcome_weight: 0.25,
            window_rounds: 12,
            epochs: 1,
            batch_size: 512,
            lr: 0.001,
            held_out: 0.05,
            hidden: Shape::default().hidden,
            hidden2: Shape::default().hidden2,
            inputs: Shape::default().inputs,
        }
    }
}

impl SelfTrainConfig {
    /// A one-line error for a setting out of range, naming the key.
    pub fn validate(&self) -> Result<(), String> {
        check(
            "self_train.minutes_in_run",
            self.minutes_in_run,
            Bounds::AtLeast(0.0),
        )?;
        check("self_train.games", self.games, Bounds::AtLeast(1))?;
        check("self_train.nodes", self.nodes, Bounds::AtLeast(1))?;
        check("self_train.window_rounds", self.window_rounds, Bounds::AtLeast(1))?;
        check(
            "self_train.outcome_weight",
            self.outcome_weight,
            Bounds::Closed(0.0, 1.0),
        )?;
        self.fit_settings()
            .validate()
            .map_err(|e| e.replace("learned_eval", "self_train"))
    }

    /// `self` with `key=value` overrides, checked.
    pub fn with_sets(&self, sets: &[String]) -> Result<SelfTrainConfig, String> {
        let cfg = super::config::section_with_sets(self, sets, "self_train")?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// `eval` reading the settings' inputs: widened to pairs when they
    /// say pairs (a start that reads more keeps them).
    fn widened<P: Board>(&self, eval: FloatEval) -> FloatEval {
        match self.inputs {
            Inputs::Pairs => eval.with_pairs(cells_of::<P>()),
            Inputs::Pieces => eval,
        }
    }

    /// The training settings of a round, as the learned evaluation's trainer reads them.
    fn fit_settings(&self) -> LearnEvalConfig {
        LearnEvalConfig {
            hidden: self.hidden,
            hidden2: self.hidden2,
            inputs: self.inputs,
            epochs: self.epochs,
            batch_size: self.batch_size,
            lr: self.lr,
            held_out: self.held_out,
            ..LearnEvalConfig::default()
        }
    }
}

/// A self-training folder's `self-train.toml`: its game, variant and seed,
/// fixed when it is made, and its settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfTrainFolder {
    /// The game's name.
    pub game: String,
    /// The variant's name ("": the game's default).
    pub variant: String,
    /// Seed of the first weights, the openings, the splits and the training order.
    pub seed: u64,
    /// How it trains.
    pub settings: SelfTrainConfig,
}

impl Default for SelfTrainFolder {
    fn default() -> Self {
        SelfTrainFolder {
            game: crate::game::GameKind::default().name().to_string(),
            variant: String::new(),
            seed: 1,
            settings: SelfTrainConfig::default(),
        }
    }
}

impl SelfTrainFolder {
    /// The folder of game `P` (its default variant), seed `seed`, with `settings`.
    pub fn of<P: GamePosition>(seed: u64, settings: SelfTrainConfig) -> SelfTrainFolder {
        SelfTrainFolder {
            game: P::ID.name().to_string(),
            variant: String::new(),
            seed,
            settings,
        }
    }

    /// The game's variant of `P`, after checking that the folder is `P`'s.
    fn variant_of<P: GamePosition>(&self) -> Result<P::Variant, String> {
        let named = GameId::named(&self.game).map_err(|e| format!("self-train: game: {e}"))?;
        if named != P::ID {
            return Err(format!(
                "self-train: the folder is for {}, and this is {}",
                named.name(),
                P::ID.name()
            ));
        }
        match self.variant.as_str() {
            "" => Ok(P::Variant::default()),
            name => P::variant_named(name).map_err(|e| format!("self-train: variant: {e}")),
        }
    }
}

/// One game of a round: its moves, its result and, for each position it
/// labelled, the score of the last search that valued it, for its side to
/// move (the learned evaluation's units).
#[derive(Clone, Debug)]
pub struct PlayedGame<P: GamePosition> {
    /// The game as played, from its opening.
    pub game: Game<P>,
    /// Labelled positions and their scores, in the order of their last
    /// search.
    pub scores: Vec<(P, i32)>,
    /// How the game ended.
    pub outcome: Outcome,
    /// Nodes searched, all searches together.
    pub nodes: u64,
}

/// The side to move's expected score a search score stands for: a proven
/// win 1, a proven loss 0, else the learned evaluation's logit's.
pub fn score_label(score: i32) -> f32 {
    match Score::of(score).proven() {
        Some(w) if w == Wdl::WIN => 1.0,
        Some(_) => 0.0,
        None => expected_score_of(score),
    }
}

/// The last score of each position in `found` (a deeper search's), in the
/// order of their last appearance.
fn last_of_each<P: GamePosition>(found: Vec<(P, i32)>) -> Vec<(P, i32)> {
    let mut last: HashMap<u64, usize> = HashMap::with_capacity(found.len());
    for (i, (p, _)) in found.iter().enumerate() {
        last.insert(p.hash_key(), i);
    }
    let mut keep: Vec<usize> = last.into_values().collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| found[i]).collect()
}

/// Play game `index` of a round: its opening from `settings`, then both
/// sides by one searcher with `eval` at `cfg.nodes` nodes a move.
pub fn play_game<P: Baseline + Board>(
    eval: &Arc<LearnedEval>,
    cfg: &SelfTrainConfig,
    settings: &MatchSettings<P>,
    index: usize,
) -> PlayedGame<P> {
    let limits = |nodes| Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let mut player = AlphaBeta::with_eval("self-train".into(), limits(cfg.nodes), eval.clone());
    player.record_node_values((cfg.tree_depth > 0).then_some(cfg.tree_depth));
    let mut labeller = (cfg.label_nodes > 0)
        .then(|| AlphaBeta::with_eval("self-train-label".into(), limits(cfg.label_nodes), eval.clone()));
    let mut game = opening_game(settings, index);
    let (mut scores, mut nodes) = (Vec::new(), 0);
    let outcome = loop {
        let moves = game.position().legal_moves();
        if let Some(o) = game.outcome_with(&moves) {
            break o;
        }
        if moves.len() == 1 {
            game.play_unchecked(&moves[0]);
            continue;
        }
        let (best, score) = player.search(&game);
        nodes += player.nodes();
        let mut found = player.take_node_values();
        found.push((*game.position(), score));
        if let Some(l) = labeller.as_mut() {
            let (_, deeper) = l.search(&game);
            nodes += l.nodes();
            found.push((*game.position(), deeper));
        }
        scores.extend(found);
        game.play_unchecked(&best);
    };
    PlayedGame {
        game,
        scores: last_of_each(scores),
        outcome,
        nodes,
    }
}

/// The labels of a game's positions: each search score mixed with the
/// game's result for that position's side to move by `outcome_weight`.
pub fn game_labels<P: GamePosition>(played: &PlayedGame<P>, outcome_weight: f32) -> Vec<(P, f32)> {
    played
        .scores
        .iter()
        .map(|(pos, score)| {
            let result = played.outcome.score_for(pos.side_to_move()) as f32;
            let label = (1.0 - outcome_weight) * score_label(*score) + outcome_weight * result;
            (*pos, label)
        })
        .collect()
}

/// What one round did: a row of `self-train.csv`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundRow {
    /// The round, from 1.
    pub round: u32,
    /// Games played.
    pub games: usize,
    /// Games White won.
    pub white_wins: usize,
    /// Games Black won.
    pub black_wins: usize,
    /// Games drawn.
    pub draws: usize,
    /// Mean plies a game.
    pub mean_plies: f64,
    /// Positions the round's games gave (quiet ones, reflections included).
    pub positions: usize,
    /// Positions trained on and held out, the window's rounds together.
    pub window_positions: usize,
    /// Alpha-beta nodes a second in the games, all threads together.
    pub nodes_per_s: f64,
    /// Seconds playing and labelling.
    pub play_s: f64,
    /// Seconds training.
    pub train_s: f64,
    /// Held-out loss before the round's training.
    pub held_out_before: f32,
    /// Held-out loss after it.
    pub held_out_after: f32,
}

impl RoundRow {
    /// The row without its timings (which differ between sittings).
    pub fn without_timing(&self) -> RoundRow {
        RoundRow {
            nodes_per_s: 0.0,
            play_s: 0.0,
            train_s: 0.0,
            ..self.clone()
        }
    }
}

/// Progress of a self-training, for a bar and a line a round.
#[derive(Clone, Debug, PartialEq)]
pub enum SelfTrainProgress {
    /// Round `.0` began.
    Round(u32),
    /// Games finished so far, of the round's.
    Games(usize, usize),
    /// An epoch of the round's training ended with this held-out loss.
    Epoch(usize, f32),
    /// A round ended (its files written).
    Done(RoundRow),
}

/// When a self-training stops: the first limit reached (none: after one round).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfTrainLimits {
    /// Stop at this round (the folder's round count, resumed rounds included).
    pub rounds: Option<u32>,
    /// Stop before a round once this many minutes of this sitting have
    /// passed (the sitting's first round plays whatever the minutes).
    pub minutes: Option<f64>,
}

/// A self-training folder: its settings, its newest round's evaluation and
/// the positions of the rounds its next round trains on.
pub struct SelfTrainer<P: GamePosition> {
    dir: PathBuf,
    /// The folder's game, seed and settings.
    pub folder: SelfTrainFolder,
    variant: P::Variant,
    /// The newest round (0: the start).
    pub round: u32,
    /// The evaluation after that round.
    pub eval: FloatEval,
    /// The positions of the newest rounds, oldest first (at most
    /// `window_rounds - 1` of them kept between rounds).
    window: Vec<Vec<Example>>,
    /// The log's rows.
    pub rows: Vec<RoundRow>,
}

/// The file of round `round`'s evaluation in `dir`.
pub(super) fn round_eval(dir: &Path, round: u32) -> PathBuf {
    dir.join(format!("round_{round:04}.bin"))
}

/// The file of round `round`'s positions in `dir`.
fn round_examples(dir: &Path, round: u32) -> PathBuf {
    dir.join(format!("round_{round:04}.examples"))
}

/// True when `dir` is a self-training folder.
pub fn is_self_train_folder(dir: &Path) -> bool {
    dir.join(SELF_TRAIN_CONFIG).is_file()
}

/// The newest complete round of the folder `dir` (its evaluation written).
pub(super) fn newest_round(dir: &Path) -> Option<u32> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_prefix("round_")?.strip_suffix(".bin")?.parse().ok()
        })
        .max()
}

/// The evaluation of a self-training folder's newest round.
pub fn newest_eval(dir: &Path) -> Result<EvalFile, String> {
    let round = newest_round(dir).ok_or_else(|| format!("{} holds no round yet", dir.display()))?;
    EvalFile::read(&round_eval(dir, round))
}

/// The one line `damone info` shows of the self-training folder `dir`
/// (None when `dir` holds none): its rounds and games, the minutes spent
/// playing and training, and the held-out loss before its first round and
/// after its last.
pub fn summary(dir: &Path) -> Result<Option<String>, String> {
    if !is_self_train_folder(dir) {
        return Ok(None);
    }
    let rows: Vec<RoundRow> = read_rows(&dir.join(SELF_TRAIN_LOG)).map_err(|e| e.to_string())?;
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Ok(Some(format!("self-training {}: no round yet", dir.display())));
    };
    let minutes = |f: fn(&RoundRow) -> f64| rows.iter().map(f).sum::<f64>() / 60.0;
    Ok(Some(format!(
        "self-training {}: {} rounds, {} games, {:.1} min playing and labelling, {:.1} min training; held-out loss {:.4} before round {}, {:.4} after round {}",
        dir.display(),
        rows.len(),
        rows.iter().map(|r| r.games).sum::<usize>(),
        minutes(|r| r.play_s),
        minutes(|r| r.train_s),
        first.held_out_before,
        first.round,
        last.held_out_after,
        last.round
    )))
}

/// The settings of the self-training folder `dir`.
pub fn read_folder_config(dir: &Path) -> Result<SelfTrainFolder, String> {
    if !is_self_train_folder(dir) {
        return Err(format!(
            "{} holds no self-training ({SELF_TRAIN_CONFIG} is missing); start one without --resume",
            dir.display()
        ));
    }
    let path = dir.join(SELF_TRAIN_CONFIG);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    toml::from_str(&text)
        .map_err(|e| format!("{}: {}", path.display(), e.to_string().trim().replace('\n', " ")))
}

fn write_config(dir: &Path, cfg: &SelfTrainFolder) -> Result<(), String> {
    let path = dir.join(SELF_TRAIN_CONFIG);
    let text = toml::to_string(cfg).map_err(|e| e.to_string())?;
    atomic_write(&path, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

impl<P: Baseline + Board> SelfTrainer<P> {
    /// A new folder `dir` (which must not hold a self-training already),
    /// starting from `start` (None: new random weights of the settings'
    /// shape, seeded by the folder's seed).
    pub fn create(dir: &Path, cfg: SelfTrainFolder, start: Option<EvalFile>) -> Result<Self, String> {
        cfg.settings.validate()?;
        crate::learned::features::check_board::<P>()?;
        if is_self_train_folder(dir) {
            return Err(format!(
                "{} already holds a self-training; continue it with --resume or choose another folder",
                dir.display()
            ));
        }
        let variant = cfg.variant_of::<P>()?;
        let start = match start {
            Some(mut file) => {
                file.check_game(P::ID)?;
                file.float = cfg.settings.widened::<P>(file.float);
                file
            }
            None => EvalFile {
                game: P::ID,
                float: FloatEval::new(
                    cfg.settings.fit_settings().shape(),
                    cells_of::<P>(),
                    &mut rng_stream(cfg.seed, "self-train-init", 0),
                ),
                note: "new random weights".into(),
            },
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        write_config(dir, &cfg)?;
        let path = round_eval(dir, 0);
        start
            .write(&path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        write_rows(&dir.join(SELF_TRAIN_LOG), &Vec::<RoundRow>::new()).map_err(|e| e.to_string())?;
        Ok(SelfTrainer {
            dir: dir.to_path_buf(),
            folder: cfg,
            variant,
            round: 0,
            eval: start.float,
            window: Vec::new(),
            rows: Vec::new(),
        })
    }

    /// The folder `dir` at its newest complete round, its settings with
    /// `sets` applied (and saved).
    pub fn resume(dir: &Path, sets: &[String]) -> Result<Self, String> {
        let mut cfg = read_folder_config(dir)?;
        cfg.settings = cfg.settings.with_sets(sets)?;
        Self::open_at(dir, cfg)
    }

    /// The existing folder `dir` at its newest complete round, with the
    /// settings of `cfg` (saved; its game, variant and seed must be the
    /// folder's own for the same bits).
    pub fn open_at(dir: &Path, cfg: SelfTrainFolder) -> Result<Self, String> {
        let variant = cfg.variant_of::<P>()?;
        write_config(dir, &cfg)?;
        let round = newest_round(dir).ok_or_else(|| format!("{} holds no round_0000.bin", dir.display()))?;
        let file = EvalFile::read(&round_eval(dir, round))?;
        file.check_game(P::ID)?;
        let first = (round + 2)
            .saturating_sub(cfg.settings.window_rounds as u32)
            .max(1);
        let window = (first..=round)
            .map(|r| read_examples::<P>(dir, r))
            .collect::<Result<Vec<_>, _>>()?;
        let mut rows: Vec<RoundRow> = read_rows(&dir.join(SELF_TRAIN_LOG)).map_err(|e| e.to_string())?;
        rows.retain(|r| r.round <= round);
        let eval = cfg.settings.widened::<P>(file.float);
        Ok(SelfTrainer {
            dir: dir.to_path_buf(),
            folder: cfg,
            variant,
            round,
            eval,
            window,
            rows,
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The match settings of round `round`'s openings.
    fn openings(&self, round: u32) -> MatchSettings<P> {
        let mut s = MatchSettings::from_start(P::start(self.variant));
        s.seed = derive_seed(self.folder.seed, "self-train-openings", round as u64);
        s.opening_plies = self.folder.settings.opening_plies;
        s.rules = DrawRules::default();
        s
    }

    /// Rounds until a limit of `limits` is reached or `stop` is requested
    /// (between rounds: a round stopped midway is not written, and a
    /// resume plays it again); the rounds this sitting played.
    pub fn run(
        &mut self,
        limits: SelfTrainLimits,
        stop: &crate::util::stop::Stop,
        progress: &mut (dyn FnMut(SelfTrainProgress) + Send),
    ) -> Result<u32, String> {
        let started = Instant::now();
        let target = limits.rounds.unwrap_or(if limits.minutes.is_some() {
            u32::MAX
        } else {
            self.round + 1
        });
        let mut played = 0;
        while self.round < target && !stop.requested() {
            let late = limits
                .minutes
                .is_some_and(|m| started.elapsed().as_secs_f64() >= m * 60.0);
            if played > 0 && late {
                break;
            }
            progress(SelfTrainProgress::Round(self.round + 1));
            let row = self.run_round(progress)?;
            progress(SelfTrainProgress::Done(row));
            played += 1;
        }
        Ok(played)
    }

    /// Play, label and train the next round; its files and log row written.
    pub fn run_round(
        &mut self,
        progress: &mut (dyn FnMut(SelfTrainProgress) + Send),
    ) -> Result<RoundRow, String> {
        let round = self.round + 1;
        let started = Instant::now();
        let eval = Arc::new(LearnedEval::new(self.eval.clone()));
        let settings = self.openings(round);
        let done = std::sync::atomic::AtomicUsize::new(0);
        let progress = std::sync::Mutex::new(progress);
        let games: Vec<PlayedGame<P>> = (0..self.folder.settings.games)
            .into_par_iter()
            .map(|i| {
                let g = play_game(&eval, &self.folder.settings, &settings, i);
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                (progress.lock().expect("progress"))(SelfTrainProgress::Games(n, self.folder.settings.games));
                g
            })
            .collect();
        let progress = progress.into_inner().expect("progress");
        let play_s = started.elapsed().as_secs_f64();
        let mut row = round_games_row(round, &games, play_s);
        let labelled: Vec<(P, f32)> = games
            .iter()
            .flat_map(|g| game_labels(g, self.folder.settings.outcome_weight))
            .collect();
        let examples = train::labelled_examples(&labelled);
        row.positions = examples.len();
        let path = round_examples(&self.dir, round);
        atomic_write(&path, &examples_to_bytes(P::ID, &examples))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        self.window.push(examples);
        self.train_round(round, &mut row, progress);
        self.finish_round(round, row)
    }

    /// Train the weights on the window's positions (`row` gets the losses).
    fn train_round(
        &mut self,
        round: u32,
        row: &mut RoundRow,
        progress: &mut (dyn FnMut(SelfTrainProgress) + Send),
    ) {
        let started = Instant::now();
        let all: Vec<Example> = self.window.iter().flatten().copied().collect();
        row.window_positions = all.len();
        let split_seed = derive_seed(self.folder.seed, "self-train-split", round as u64);
        let (train_set, held_out) = train::split(all, self.folder.settings.held_out, split_seed);
        let mut rng = rng_stream(self.folder.seed, "self-train-fit", round as u64);
        let report = train::fit(
            &mut self.eval,
            &train_set,
            &held_out,
            &self.folder.settings.fit_settings(),
            &mut rng,
            |e, l| progress(SelfTrainProgress::Epoch(e, l)),
        );
        row.held_out_before = report.held_out_loss.first().copied().unwrap_or(0.0);
        row.held_out_after = report.held_out_loss.last().copied().unwrap_or(0.0);
        row.train_s = started.elapsed().as_secs_f64();
    }

    /// Write round `round`'s evaluation and log row; the round is then
    /// complete (a stop before this point repeats it on resume).
    fn finish_round(&mut self, round: u32, row: RoundRow) -> Result<RoundRow, String> {
        let file = EvalFile {
            game: P::ID,
            float: self.eval.clone(),
            note: format!(
                "self-trained, round {round} of {}: {} positions, held-out loss {:.4}",
                self.dir.display(),
                row.window_positions,
                row.held_out_after
            ),
        };
        let path = round_eval(&self.dir, round);
        file.write(&path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        self.round = round;
        self.rows.push(row.clone());
        write_rows(&self.dir.join(SELF_TRAIN_LOG), &self.rows).map_err(|e| e.to_string())?;
        // The next round keeps the newest window_rounds - 1 rounds.
        let keep_from = self
            .window
            .len()
            .saturating_sub(self.folder.settings.window_rounds - 1);
        self.window.drain(..keep_from);
        Ok(row)
    }
}

/// Round `round`'s positions in `dir`.
fn read_examples<P: GamePosition>(dir: &Path, round: u32) -> Result<Vec<Example>, String> {
    let path = round_examples(dir, round);
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    examples_from_bytes(&bytes, P::ID).map_err(|e| format!("{}: {e}", path.display()))
}

/// The games' part of a round's row.
fn round_games_row<P: GamePosition>(round: u32, games: &[PlayedGame<P>], play_s: f64) -> RoundRow {
    let count = |c: Option<Color>| games.iter().filter(|g| g.outcome.winner == c).count();
    let plies: usize = games.iter().map(|g| g.game.ply()).sum();
    let nodes: u64 = games.iter().map(|g| g.nodes).sum();
    RoundRow {
        round,
        games: games.len(),
        white_wins: count(Some(Color::White)),
        black_wins: count(Some(Color::Black)),
        draws: count(None),
        mean_plies: plies as f64 / games.len().max(1) as f64,
        nodes_per_s: nodes as f64 / play_s.max(1e-9),
        play_s,
        ..RoundRow::default()
    }
}

pub use super::self_train_phase::RUN_SELF_TRAIN_DIR;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::damone::Position;

    /// Small and fast settings: a few short games a round.
    fn tiny() -> SelfTrainConfig {
        SelfTrainConfig {
            games: 6,
            nodes: 300,
            epochs: 2,
            batch_size: 64,
            ..SelfTrainConfig::default()
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("damone-self-train-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn random_eval(seed: u64) -> Arc<LearnedEval> {
        let float = FloatEval::new(Shape::default(), u64::MAX, &mut rng_stream(seed, "test-eval", 0));
        Arc::new(LearnedEval::new(float))
    }

    #[test]
    fn root_labels_are_a_direct_searchs_values() {
        let cfg = SelfTrainConfig {
            tree_depth: 0,
            ..tiny()
        };
        let eval = random_eval(3);
        let mut settings = MatchSettings::from_start(Position::start(Default::default()));
        settings.opening_plies = 4;
        let played = play_game::<Position>(&eval, &cfg, &settings, 0);
        assert!(
            played.scores.len() > 5,
            "{} searched positions",
            played.scores.len()
        );
        // The same game replayed, each position searched by a fresh searcher
        // that has seen the same positions before: the same moves and scores.
        let limits = Limits {
            nodes: Some(cfg.nodes),
            ..Limits::default()
        };
        let mut direct = AlphaBeta::with_eval("direct".into(), limits, eval.clone());
        let mut game = opening_game(&settings, 0);
        let mut searched = Vec::new();
        for m in &played.game.moves()[game.ply()..] {
            if game.position().legal_moves().len() > 1 {
                let (best, score) = direct.search(&game);
                assert_eq!(best, *m, "the direct search chose another move");
                searched.push((*game.position(), score));
            }
            game.play_unchecked(m);
        }
        let searched = last_of_each(searched);
        assert_eq!(searched, played.scores);
        let labels = game_labels(&played, 0.0);
        for ((_, label), (_, score)) in labels.iter().zip(&searched) {
            assert_eq!(*label, score_label(*score));
        }
        let with_result = game_labels(&played, 1.0);
        let expect = |pos: &Position| match played.outcome.winner {
            None => 0.5,
            Some(w) => (w == pos.side_to_move()) as u8 as f32,
        };
        assert!(with_result.iter().all(|(p, l)| *l == expect(p)));
    }

    #[test]
    fn tree_labels_add_the_expanded_positions_exact_values() {
        let eval = random_eval(4);
        let settings = MatchSettings::from_start(Position::start(Default::default()));
        let roots = play_game::<Position>(
            &eval,
            &SelfTrainConfig {
                tree_depth: 0,
                ..tiny()
            },
            &settings,
            1,
        );
        let tree = play_game::<Position>(
            &eval,
            &SelfTrainConfig {
                tree_depth: 2,
                ..tiny()
            },
            &settings,
            1,
        );
        assert_eq!(roots.game.moves(), tree.game.moves(), "recording changes no move");
        assert!(
            tree.scores.len() > 3 * roots.scores.len(),
            "{} vs {}",
            tree.scores.len(),
            roots.scores.len()
        );
        let keys: std::collections::HashSet<u64> = tree.scores.iter().map(|(p, _)| p.hash_key()).collect();
        assert_eq!(keys.len(), tree.scores.len(), "one label a position");
    }

    #[test]
    fn a_round_lowers_the_loss_on_held_out_games() {
        let dir = temp_dir("loss");
        let mut t =
            SelfTrainer::<Position>::create(&dir, SelfTrainFolder::of::<Position>(1, tiny()), None).unwrap();
        let start = t.eval.clone();
        let row = t
            .run(
                SelfTrainLimits::default(),
                &crate::util::stop::Stop::new(),
                &mut |_| {},
            )
            .unwrap();
        assert_eq!((row, t.round), (1, 1));
        // Other games, labelled by the same start's searches.
        let eval = Arc::new(LearnedEval::new(start.clone()));
        let mut settings = t.openings(1);
        settings.seed ^= 0x5eed;
        let labelled: Vec<(Position, f32)> = (0..4)
            .flat_map(|i| {
                game_labels(
                    &play_game(&eval, &t.folder.settings, &settings, i),
                    t.folder.settings.outcome_weight,
                )
            })
            .collect();
        let held_out = train::labelled_examples(&labelled);
        let (before, after) = (train::loss(&start, &held_out), train::loss(&t.eval, &held_out));
        assert!(after < 0.8 * before, "held-out loss {before} -> {after}");
        let rows = &t.rows;
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].games, 6);
        assert_eq!(rows[0].white_wins + rows[0].black_wins + rows[0].draws, 6);
        assert!(rows[0].held_out_after < rows[0].held_out_before);
        assert_eq!(newest_eval(&dir).unwrap().float, t.eval);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_resumed_self_training_gives_the_same_bits() {
        let cfg = SelfTrainConfig {
            window_rounds: 2,
            ..tiny()
        };
        let stop = crate::util::stop::Stop::new();
        let limits = |rounds| SelfTrainLimits {
            rounds: Some(rounds),
            minutes: None,
        };
        let (a, b) = (temp_dir("one-sitting"), temp_dir("two-sittings"));
        let mut one =
            SelfTrainer::<Position>::create(&a, SelfTrainFolder::of::<Position>(1, cfg.clone()), None)
                .unwrap();
        one.run(limits(3), &stop, &mut |_| {}).unwrap();
        let mut first =
            SelfTrainer::<Position>::create(&b, SelfTrainFolder::of::<Position>(1, cfg), None).unwrap();
        first.run(limits(1), &stop, &mut |_| {}).unwrap();
        drop(first);
        let mut second = SelfTrainer::<Position>::resume(&b, &[]).unwrap();
        assert_eq!(second.round, 1);
        assert_eq!(second.run(limits(3), &stop, &mut |_| {}).unwrap(), 2);
        assert_eq!(one.eval, second.eval, "the same weights");
        for r in 1..=3 {
            let read = |d: &Path| std::fs::read(round_examples(d, r)).unwrap();
            assert_eq!(read(&a), read(&b), "round {r}'s positions");
        }
        let untimed = |rows: &[RoundRow]| rows.iter().map(RoundRow::without_timing).collect::<Vec<_>>();
        let logged: Vec<RoundRow> = read_rows(&b.join(SELF_TRAIN_LOG)).unwrap();
        assert_eq!(untimed(&one.rows), untimed(&logged));
        let again = SelfTrainer::<Position>::create(&b, SelfTrainFolder::default(), None)
            .err()
            .unwrap();
        assert!(again.contains("--resume"), "{again}");
        let _ = (std::fs::remove_dir_all(&a), std::fs::remove_dir_all(&b));
    }

    #[test]
    fn bad_settings_are_one_line_errors_naming_the_key() {
        let base = SelfTrainConfig::default();
        for (set, says) in [
            ("games=0", "games"),
            ("outcome_weight=2", "outcome_weight"),
            ("lr=-1", "lr"),
            ("nodez=5", "nodez"),
            ("minutes_in_run=-1", "minutes_in_run"),
        ] {
            let e = base.with_sets(&[set.to_string()]).unwrap_err();
            assert!(e.contains(says) && !e.contains('\n'), "{set}: {e}");
        }
        let wrong_game = SelfTrainFolder {
            game: "italian".into(),
            ..SelfTrainFolder::default()
        };
        let e = SelfTrainer::<Position>::create(&temp_dir("game"), wrong_game, None)
            .err()
            .unwrap();
        assert!(e.contains("italian"), "{e}");
        let e = SelfTrainer::<Position>::resume(&temp_dir("none"), &[])
            .err()
            .unwrap();
        assert!(e.contains("no self-training"), "{e}");
    }
}
