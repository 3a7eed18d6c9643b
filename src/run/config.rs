//! The run's configuration: TOML read with serde, unknown keys rejected,
//! every value validated with a message naming the key; `key=value`
//! overrides; the default config is embedded in the library.

use crate::game::{Color, DrawRules, GameId, GamePosition};
use crate::mcts::SearchParams;
use crate::net::{DeviceChoice, ModelConfig};
use crate::selfplay::SelfPlayConfig;
use crate::train::TrainParams;
use crate::util::range::{check, Bounds};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `configs/default.toml`, embedded so that `damone train` needs no file.
pub const DEFAULT_CONFIG: &str = include_str!("../../configs/default.toml");

/// Why a config could not be used. Each message names the file (or
/// override) and the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file could not be read.
    #[error("cannot read config {0}: {1}")]
    Io(String, std::io::Error),
    /// The config's TOML does not parse.
    #[error("cannot parse {0}: {1}")]
    Parse(String, String),
    /// A value is invalid; the message names the key.
    #[error("invalid config {0}: {1}")]
    Invalid(String, String),
    /// A `--set` override is malformed or names no key.
    #[error("--set '{0}': {1}")]
    Set(String, String),
}

type Result<T> = std::result::Result<T, ConfigError>;

/// Evaluation against the alpha-beta baseline during training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalConfig {
    /// Evaluate every this many iterations (0 = never).
    pub interval: u32,
    /// Games against each baseline depth (colours alternate).
    pub games: u32,
    /// Alpha-beta depths to play against.
    pub depths: Vec<u32>,
    /// Simulations per move for the network player.
    pub sims: u32,
    /// Random plies at the start of each evaluation game.
    pub opening_plies: u32,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            interval: 8,
            games: 20,
            depths: vec![2, 4, 6],
            sims: 64,
            opening_plies: 2,
        }
    }
}

/// Self-play on many machines: what `damone actor` and `damone learner`
/// add to a run (see `dist`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DistConfig {
    /// Finished games per shard an actor writes (at least; games that end
    /// in the same search round as the last one counted are kept too).
    pub games_per_shard: u32,
    /// The learner takes shards played by models at most this many
    /// versions older than its newest; older ones are skipped as stale.
    pub max_staleness: u32,
    /// Seconds between polls of the store when there is nothing to do.
    pub poll_seconds: f64,
}

impl Default for DistConfig {
    fn default() -> Self {
        DistConfig {
            games_per_shard: 8,
            max_staleness: 4,
            poll_seconds: 1.0,
        }
    }
}

/// Everything a training run needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// Run name: outputs go to `<checkpoint_dir>/<run>/`.
    pub run: String,
    /// Master seed: every random stream derives from it.
    pub seed: u64,
    /// Worker threads (network and evaluation games). 1 = fully reproducible.
    pub threads: usize,
    /// Where the network trains and evaluates: cpu, gpu (a build with the
    /// `gpu` feature) or auto (a hardware GPU when there is one).
    pub device: DeviceChoice,
    /// Stop after this many iterations (0 = no limit).
    pub iterations: u32,
    /// Stop after this much wall time in minutes (0 = no limit).
    pub time_limit_minutes: f64,
    /// The game: one of the list's names, or another crate's game (its
    /// [`GamePosition::ID`]).
    pub game: GameId,
    /// Rules variant: one of the game's (every game has `standard`).
    pub variant: String,
    /// Folder holding runs.
    pub checkpoint_dir: String,
    /// Checkpoints kept besides the best one.
    pub keep_last: usize,
    /// Also keep, whatever `keep_last` says, the first checkpoint past each
    /// multiple of this many training minutes (0 = none): the points a long
    /// run is rated at.
    pub keep_every_minutes: f64,
    /// Folder of Damone endgame tables (`damone tablebase build`) that
    /// self-play searches with and ends its games at; "" for none.
    pub tablebase: String,
    /// Positions drawn from `tablebase` per self-play sample, added to the
    /// replay window with the tables' exact value and best moves as
    /// targets (0 = none).
    pub tablebase_samples: f64,
    /// Draw limits of self-play and evaluation games.
    pub rules: DrawRules,
    /// The network's shape and heads.
    pub model: ModelConfig,
    /// The search settings of self-play.
    pub search: SearchParams,
    /// Self-play: games, simulations, openings, resignation.
    pub selfplay: SelfPlayConfig,
    /// Training: batches, learning rate, losses, the replay window.
    pub train: TrainParams,
    /// Evaluation games against the alpha-beta baseline.
    pub eval: EvalConfig,
    /// Self-play on many machines (`damone actor`, `damone learner`).
    pub dist: DistConfig,
    /// The learned evaluation trained at the run's end.
    pub learned_eval: super::learned_eval::LearnEvalConfig,
    /// The learned evaluation's self-training after the run's end.
    pub self_train: super::self_train::SelfTrainConfig,
    /// Alpha-beta games with a learned evaluation in each iteration's
    /// samples (expert iteration; none by default).
    pub expert: super::expert::ExpertConfig,
}

/// The embedded configs/default.toml, key for key (each section's `Default`
/// too; `rust_defaults_equal_the_embedded_default_config` holds them equal).
impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            run: "default".into(),
            seed: 1,
            threads: 2,
            device: DeviceChoice::Auto,
            iterations: 0,
            time_limit_minutes: 40.0,
            game: GameId::default(),
            variant: "standard".into(),
            checkpoint_dir: "checkpoints".into(),
            keep_last: 10,
            keep_every_minutes: 0.0,
            tablebase: String::new(),
            tablebase_samples: 0.0,
            rules: DrawRules::default(),
            model: ModelConfig::default(),
            search: SearchParams::default(),
            selfplay: SelfPlayConfig::default(),
            train: TrainParams::default(),
            eval: EvalConfig::default(),
            dist: DistConfig::default(),
            learned_eval: Default::default(),
            self_train: Default::default(),
            expert: Default::default(),
        }
    }
}

impl RunConfig {
    /// Parse TOML text (with `--set` overrides applied first) and validate.
    /// A key the text leaves out takes its value from the embedded default
    /// config (`configs/default.toml`): there is one source of defaults.
    pub fn from_toml(text: &str, sets: &[String], origin: &str) -> Result<RunConfig> {
        let defaults: toml::Table =
            toml::from_str(DEFAULT_CONFIG).expect("the embedded default config parses");
        Self::parse_over(defaults, text, sets, origin)
    }

    /// Parse a config that a run saved (a checkpoint's `config.toml`, a
    /// store's `run.toml`), with `--set` overrides. A saved config holds
    /// every key its build knew; a key added since takes the value that
    /// keeps the old behaviour ([`RunConfig::before_later_keys`]), not
    /// today's default (new input planes must not be read into a network
    /// trained without them).
    pub fn from_saved_toml(text: &str, sets: &[String], origin: &str) -> Result<RunConfig> {
        let base = toml::Table::try_from(RunConfig::before_later_keys()).expect("the config serialises");
        Self::parse_over(base, text, sets, origin)
    }

    /// The defaults with every feature whose key was added after the first
    /// saved configs switched off, as a run saved without those keys
    /// played: the base a saved config is read over.
    pub fn before_later_keys() -> RunConfig {
        let mut c = RunConfig {
            model: crate::net::ModelConfig::before_later_keys(),
            ..RunConfig::default()
        };
        let s = &mut c.search;
        (s.collapse_forced, s.avoid_repetition, s.tactics_in_tree) = (false, false, false);
        (s.draw_score, s.material_utility, s.tactics_margin) = (0.0, 0.0, 0.0);
        c.selfplay.cheap_samples = false;
        c.selfplay.eval_cache = 0;
        c.train.material_weight = 0.0;
        c.train.plies_left_weight = 0.0;
        (c.train.schedule_span, c.train.window_share) = (0.0, 0.0);
        c
    }

    /// The share of the run's planned length done after `iterations`
    /// iterations and `wall_s` seconds: of `iterations`, of
    /// `time_limit_minutes`, or the larger where both are set (the run
    /// stops at the first reached); None when the run has neither. The
    /// schedules follow it (`train.schedule_span`); both counts are kept in
    /// the checkpoint, so a run in several sittings follows the same
    /// schedule as in one.
    pub fn planned_share(&self, iterations: u32, wall_s: f64) -> Option<f64> {
        let by_iterations = (self.iterations > 0).then(|| iterations as f64 / self.iterations as f64);
        let by_time = (self.time_limit_minutes > 0.0).then(|| wall_s / (self.time_limit_minutes * 60.0));
        match (by_iterations, by_time) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    fn parse_over(mut value: toml::Table, text: &str, sets: &[String], origin: &str) -> Result<RunConfig> {
        let one_line = |e: &dyn std::fmt::Display| e.to_string().trim().replace('\n', " ");
        let given: toml::Table =
            toml::from_str(text).map_err(|e| ConfigError::Parse(origin.to_string(), one_line(&e)))?;
        merge(&mut value, given);
        let base = value.clone();
        for s in sets {
            apply_set(&mut value, s)?;
        }
        let build = |t: toml::Table| -> std::result::Result<RunConfig, String> {
            let mut cfg: RunConfig = t.try_into().map_err(|e: toml::de::Error| one_line(&e))?;
            // A game of the list is fitted here; another crate's game when
            // its run opens (Run::open, with the game's type).
            if let Ok(kind) = cfg.game.kind() {
                crate::with_game!(kind, P => cfg.fit_game::<P>())?;
            }
            cfg.validate()?;
            Ok(cfg)
        };
        build(value).map_err(|e| {
            // Blame the overrides when the config was valid without them.
            let blame = if !sets.is_empty() && build(base).is_ok() {
                format!("--set {}", sets.join(" --set "))
            } else {
                origin.to_string()
            };
            ConfigError::Invalid(blame, e)
        })
    }

    /// Fit the config to its game `P`: the policy index's cells are the
    /// game's whatever a file says, the variant must be one of the game's,
    /// and in a game without material ([`has_material`]) the parts that
    /// read it are off (the material target, the search's material
    /// utility and its tactical check). The error names the key.
    pub fn fit_game<P: crate::net::Board>(&mut self) -> std::result::Result<(), String> {
        P::ID.declare();
        if self.game != P::ID {
            return Err(format!("game: the config is for {}, not {}", self.game, P::ID));
        }
        self.model.board = P::CELLS;
        let variant = P::variant_named(&self.variant).map_err(|e| format!("variant: {e}"))?;
        if !has_material(&P::start(variant)) {
            self.train.material_weight = 0.0;
            self.search.material_utility = 0.0;
            self.search.tactics_margin = 0.0;
        }
        Ok(())
    }

    /// Read a config file (or the embedded default when `path` is None).
    pub fn load(path: Option<&Path>, sets: &[String]) -> Result<RunConfig> {
        match path {
            None => RunConfig::from_toml(DEFAULT_CONFIG, sets, "(embedded default config)"),
            Some(p) => {
                let text =
                    std::fs::read_to_string(p).map_err(|e| ConfigError::Io(p.display().to_string(), e))?;
                RunConfig::from_toml(&text, sets, &p.display().to_string())
            }
        }
    }

    /// Check every value; the error names the key.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.run.is_empty() || self.run.contains(['/', '\\']) || self.run.starts_with('.') {
            return Err(format!("run must be a plain folder name, got \"{}\"", self.run));
        }
        check("threads", self.threads, Bounds::Closed(1, 256))?;
        check(
            "time_limit_minutes",
            self.time_limit_minutes,
            Bounds::AtLeast(0.0),
        )?;
        if self.iterations == 0 && self.time_limit_minutes == 0.0 {
            return Err("set iterations or time_limit_minutes (both are 0: the run would never stop)".into());
        }
        check("keep_last", self.keep_last, Bounds::AtLeast(1))?;
        check(
            "keep_every_minutes",
            self.keep_every_minutes,
            Bounds::AtLeast(0.0),
        )?;
        if let Ok(kind) = self.game.kind() {
            // Another crate's game checks its variant when its run opens
            // (`fit_game`).
            crate::with_game!(kind, P => <P as crate::game::GamePosition>::variant_named(&self.variant).map(|_| ()))
                .map_err(|e| format!("variant: {e}"))?;
        }
        self.validate_tables()?;
        self.rules.validate()?;
        self.model.validate()?;
        self.search.validate().map_err(|e| format!("search.{e}"))?;
        self.selfplay.validate()?;
        self.train.validate()?;
        if !self.model.aux_heads && (self.train.material_weight > 0.0 || self.train.plies_left_weight > 0.0) {
            return Err(
                "train.material_weight and train.plies_left_weight need model.aux_heads = true (the heads they train)"
                    .into(),
            );
        }
        if !self.model.reply_head && self.train.reply_weight > 0.0 {
            return Err("train.reply_weight needs model.reply_head = true (the head it trains)".into());
        }
        if self.eval.interval > 0 {
            if self.eval.games == 0 || self.eval.games % 2 == 1 {
                return Err(format!(
                    "eval.games must be even and at least 2, got {}",
                    self.eval.games
                ));
            }
            if self.eval.depths.is_empty() || self.eval.depths.iter().any(|&d| d == 0 || d > 12) {
                return Err(format!(
                    "eval.depths must list depths in [1, 12], got {:?}",
                    self.eval.depths
                ));
            }
            if self.eval.sims == 0 {
                return Err("eval.sims must be at least 1".into());
            }
        }
        self.learned_eval.validate()?;
        self.self_train.validate()?;
        self.expert.validate()?;
        if self.expert.trains_own() && self.self_train.minutes_in_run <= 0.0 {
            return Err(
                "expert.eval = \"self-train\" needs self_train.minutes_in_run above 0 (the minutes its expert trains for)".into(),
            );
        }
        if self.dist.games_per_shard == 0 {
            return Err("dist.games_per_shard must be at least 1".into());
        }
        if !(self.dist.poll_seconds > 0.0 && self.dist.poll_seconds <= 60.0) {
            return Err(format!(
                "dist.poll_seconds must be in (0, 60], got {}",
                self.dist.poll_seconds
            ));
        }
        Ok(())
    }

    /// Check `tablebase` and `tablebase_samples`.
    fn validate_tables(&self) -> std::result::Result<(), String> {
        if !self.tablebase.is_empty() && self.variant != "standard" {
            return Err(format!(
                "tablebase: endgame tables cover the standard variant only, and this run plays {}",
                self.variant
            ));
        }
        check(
            "tablebase_samples",
            self.tablebase_samples,
            Bounds::Closed(0.0, 1.0),
        )?;
        if self.tablebase_samples > 0.0 && self.tablebase.is_empty() {
            return Err("tablebase_samples needs tablebase (the folder of tables to draw from)".into());
        }
        Ok(())
    }

    /// The run's folder: `<checkpoint_dir>/<run>`.
    pub fn run_dir(&self) -> std::path::PathBuf {
        Path::new(&self.checkpoint_dir).join(&self.run)
    }

    /// The config as TOML text. Values held as `f32` are written as they
    /// would be typed (`0.35`, not `0.3499999940395355`).
    pub fn to_toml(&self) -> String {
        let mut v = toml::Value::try_from(self).expect("config serialises");
        tidy_floats(&mut v);
        toml::to_string_pretty(&v).expect("config serialises")
    }
}

/// Copy every key of `over` into `base`, recursing into tables present in
/// both.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Rewrite every float that is exactly an `f32` as that `f32`'s shortest
/// decimal form.
fn tidy_floats(v: &mut toml::Value) {
    match v {
        toml::Value::Float(x) => {
            let f = *x as f32;
            if f as f64 == *x && f.is_finite() {
                if let Ok(short) = f.to_string().parse::<f64>() {
                    *x = short;
                }
            }
        }
        toml::Value::Table(t) => t.iter_mut().for_each(|(_, v)| tidy_floats(v)),
        toml::Value::Array(a) => a.iter_mut().for_each(tidy_floats),
        _ => {}
    }
}

/// `section` (a config section, named `name` in errors) with `key=value`
/// overrides of its keys applied; the caller checks the values.
pub(crate) fn section_with_sets<T>(section: &T, sets: &[String], name: &str) -> std::result::Result<T, String>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let mut table = toml::Table::try_from(section).map_err(|e| e.to_string())?;
    for s in sets {
        apply_set(&mut table, s).map_err(|e| e.to_string())?;
    }
    table
        .try_into()
        .map_err(|e: toml::de::Error| format!("{name}: {}", e.to_string().trim().replace('\n', " ")))
}

/// Apply `a.b.c=value` to a TOML table. The value is read as TOML (number,
/// boolean, array, quoted string) or, failing that, as a bare string.
pub(crate) fn apply_set(table: &mut toml::Table, set: &str) -> Result<()> {
    let err = |why: String| ConfigError::Set(set.to_string(), why);
    let Some((key, raw)) = set.split_once('=') else {
        return Err(err("must look like key=value (e.g. train.lr=0.001)".into()));
    };
    let key = key.trim();
    let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {}", raw.trim())) {
        Ok(mut t) => t.remove("v").expect("parsed key"),
        Err(_) => toml::Value::String(raw.trim().to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(err(format!("bad key '{key}'")));
    }
    let mut t = table;
    for p in &parts[..parts.len() - 1] {
        let entry = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry
            .as_table_mut()
            .ok_or_else(|| err(format!("'{p}' is not a section")))?;
    }
    t.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

/// True when a game has material: its start position `start` has some for
/// either side ([`GamePosition::material`]; a game without material keeps
/// its default, 0).
pub fn has_material<P: GamePosition>(start: &P) -> bool {
    start.material(Color::White) != 0 || start.material(Color::Black) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every config shipped in configs/ loads, and Dameo's hour keeps its
    /// own full-search simulations over the embedded default's.
    #[test]
    fn every_shipped_config_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        let mut loaded = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                RunConfig::load(Some(&path), &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                loaded += 1;
            }
        }
        assert!(loaded >= 3, "{loaded} configs in {}", dir.display());
        let dameo = RunConfig::load(Some(&dir.join("dameo.toml")), &[]).unwrap();
        assert_eq!(dameo.selfplay.full_sims, 96);
        assert_eq!(RunConfig::default().selfplay.full_sims, 48);
    }

    /// A player file's header or a saved config written before a key
    /// existed reads that key as it was then, not as today's default.
    #[test]
    fn saved_sections_missing_later_keys_keep_their_old_values() {
        let model: crate::net::ModelConfig =
            toml::from_str("blocks = 2\nchannels = 8\nvalue_hidden = 8").unwrap();
        assert_eq!(model.policy_head, crate::net::PolicyHeadKind::Dense);
        assert_eq!((model.policy_planes, model.aux_heads), (2, false));
        let search: SearchParams = toml::from_str("simulations = 50").unwrap();
        assert_eq!(
            search,
            SearchParams {
                simulations: 50,
                ..SearchParams::plain()
            }
        );
        assert_eq!(search.tactics_margin, 0.0);
    }

    /// One set of defaults: the Rust `Default` of the config and of each
    /// of its sections equals the embedded configs/default.toml.
    #[test]
    fn rust_defaults_equal_the_embedded_default_config() {
        let embedded = RunConfig::from_toml(DEFAULT_CONFIG, &[], "(embedded)").unwrap();
        let rust = RunConfig::default();
        assert_eq!(rust.rules, embedded.rules);
        assert_eq!(rust.model, embedded.model);
        assert_eq!(rust.search, embedded.search);
        assert_eq!(rust.selfplay, embedded.selfplay);
        assert_eq!(rust.train, embedded.train);
        assert_eq!(rust.eval, embedded.eval);
        assert_eq!(rust.dist, embedded.dist);
        assert_eq!(rust, embedded);
        // An empty file is the default run too.
        assert_eq!(RunConfig::from_toml("", &[], "(empty)").unwrap(), rust);
    }

    #[test]
    fn embedded_default_is_valid_and_sets_apply() {
        let c = RunConfig::load(None, &["train.lr=0.01".into(), "run=abc".into()]).unwrap();
        assert_eq!(c.train.lr, 0.01);
        assert_eq!(c.run, "abc");
    }

    #[test]
    fn a_partial_file_takes_the_embedded_defaults() {
        let partial = RunConfig::from_toml("iterations = 1\n[train]\nlr = 0.01\n", &[], "x").unwrap();
        let mut want = RunConfig::load(None, &[]).unwrap();
        want.iterations = 1;
        want.train.lr = 0.01;
        assert_eq!(partial, want);
        // Floats are written back as written, and read back the same.
        let text = want.to_toml();
        assert!(text.contains("full_search_prob = 0.35"), "{text}");
        assert!(text.contains("lr = 0.01"), "{text}");
        assert_eq!(RunConfig::from_toml(&text, &[], "y").unwrap(), want);
    }

    #[test]
    fn a_saved_config_missing_newer_keys_keeps_the_old_behaviour() {
        // A run saved before `selfplay.eval_cache` existed: the embedded
        // default turns the cache on, the saved config keeps it off.
        let mut old = toml::Table::try_from(RunConfig::load(None, &[]).unwrap()).unwrap();
        let sp = old.get_mut("selfplay").and_then(|t| t.as_table_mut()).unwrap();
        sp.remove("eval_cache").unwrap();
        let text = toml::to_string(&old).unwrap();
        assert_eq!(
            RunConfig::from_toml(&text, &[], "x").unwrap().selfplay.eval_cache,
            131072
        );
        let saved = RunConfig::from_saved_toml(&text, &[], "x").unwrap();
        assert_eq!(saved.selfplay.eval_cache, 0);
        assert_eq!(saved.model, RunConfig::load(None, &[]).unwrap().model);
    }

    #[test]
    fn errors_name_the_key() {
        let e = RunConfig::from_toml("[train]\nlr = -1.0\n", &[], "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("train.lr"), "{e}");
        let e = RunConfig::from_toml("[train]\nlearning = 1\n", &[], "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("learning"), "{e}");
        let e = RunConfig::from_toml("", &["model.blocks=0".into()], "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("model.blocks"), "{e}");
        let e = RunConfig::from_toml("", &["nonsense".into()], "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("key=value"), "{e}");
        let e = RunConfig::from_toml("threads = \"two\"", &[], "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("threads"), "{e}");
        let e = RunConfig::from_toml("", &["search.tactics_depth=4".into()], "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("search.tactics_depth must be in [1, 3], got 4"), "{e}");
    }
}
