//! Player spec strings: `random`, `alphabeta:depth=4`,
//! `alphabeta:movetime=1000`, `alphabeta:nodes=50000`,
//! `alphabeta:eval=RUN,movetime=100` (a learned evaluation) and
//! `alphabeta:tb=DIR` (endgame tables), both built by `player::open`,
//! `mcts:sims=800`,
//! `mcts:sims=200,algo=gumbel`, and `net:PATH,sims=200` (built by
//! `player::open`, which knows networks); `threads=N` gives an
//! alpha-beta or network player N threads for each search.

use super::{AlphaBeta, Baseline, HandWritten, LeafEval, Limits, MctsPlayer, Player, RandomPlayer};
use crate::mcts::{ExactValues, SearchAlgorithm, SearchParams};
use crate::util::rng_stream;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The kinds of player a spec can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlayerKind {
    /// Uniformly random legal moves.
    Random,
    /// Alpha-beta search with a depth, node or time limit.
    AlphaBeta,
    /// MCTS with random-rollout values.
    Mcts,
    /// MCTS guided by a network (a checkpoint folder or a player file).
    Net,
    /// The player shipped with the program for a game (alpha-beta with its
    /// learned evaluation; built by `player::open`).
    Shipped,
}

impl PlayerKind {
    /// Every kind, as written in specs.
    pub const NAMES: [&'static str; 5] = ["random", "alphabeta", "mcts", "net", "shipped"];

    /// The kind as written in specs.
    pub fn name(self) -> &'static str {
        match self {
            PlayerKind::Random => "random",
            PlayerKind::AlphaBeta => "alphabeta",
            PlayerKind::Mcts => "mcts",
            PlayerKind::Net => "net",
            PlayerKind::Shipped => "shipped",
        }
    }
}

impl std::str::FromStr for PlayerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "random" => Ok(PlayerKind::Random),
            "alphabeta" => Ok(PlayerKind::AlphaBeta),
            "mcts" => Ok(PlayerKind::Mcts),
            "net" => Ok(PlayerKind::Net),
            "shipped" => Ok(PlayerKind::Shipped),
            _ => Err(s.to_string()),
        }
    }
}

/// A parsed player spec: a kind, an optional path (for `net`) and options.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSpec {
    /// The player's kind.
    pub kind: PlayerKind,
    /// The network player's file or folder (`net`), or the game of a
    /// `shipped` player (None: the game being played).
    pub path: Option<String>,
    /// The options, by key (`sims=200`).
    pub options: BTreeMap<String, String>,
    /// The spec as written (used as the player's name).
    pub text: String,
}

/// Why a player spec was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// The spec is empty.
    #[error("empty player spec")]
    Empty,
    /// The kind before the first `:` is none of the known ones.
    #[error("unknown player kind '{0}' in '{1}' (expected one of: random, alphabeta, mcts, net, shipped)")]
    UnknownKind(String, String),
    /// An option is not `key=value`.
    #[error("bad option '{0}' in '{1}' (expected key=value)")]
    BadOption(String, String),
    /// An option the kind does not take.
    #[error("unknown option '{0}' for {1} (expected one of: {2})")]
    UnknownOption(String, String, String),
    /// An option's value does not read.
    #[error("bad value '{1}' for option '{0}' in '{2}': {3}")]
    BadValue(String, String, String, String),
    /// The search settings the options give are invalid.
    #[error("bad search settings in '{0}': {1}")]
    BadSearch(String, String),
    /// Something the kind needs is missing (a `net` spec's path).
    #[error("'{0}' needs {1}")]
    Missing(String, String),
    /// An option given twice.
    #[error("option '{0}' given twice in '{1}'")]
    DuplicateOption(String, String),
    /// What the spec names is not in this build (a shipped player it
    /// lacks), or does not read; the text says which and what to use.
    #[error("{0}")]
    Unavailable(String),
}

/// The most threads a spec's `threads` option may give one player.
pub const MAX_SEARCH_THREADS: usize = 256;

/// Makes a fresh player for one game from a seed.
pub type PlayerFactory<P> = Arc<dyn Fn(u64) -> Box<dyn Player<P>> + Send + Sync>;

impl PlayerSpec {
    /// Parse `kind[:opt=val,...]`, `net:PATH[,opt=val,...]` or
    /// `shipped[:GAME][,opt=val,...]`.
    pub fn parse(text: &str) -> Result<PlayerSpec, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        let (kind, rest) = match text.split_once(':') {
            Some((k, r)) => (k.trim(), r),
            None => (text, ""),
        };
        let kind: PlayerKind = kind
            .parse()
            .map_err(|k| SpecError::UnknownKind(k, text.to_string()))?;
        let mut path = None;
        let mut options = BTreeMap::new();
        for (i, part) in rest.split(',').map(str::trim).enumerate() {
            if part.is_empty() {
                continue;
            }
            match part.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => {
                    if options
                        .insert(k.trim().to_string(), v.trim().to_string())
                        .is_some()
                    {
                        return Err(SpecError::DuplicateOption(k.trim().to_string(), text.to_string()));
                    }
                }
                _ if matches!(kind, PlayerKind::Net | PlayerKind::Shipped) && i == 0 => {
                    path = Some(part.to_string())
                }
                _ => return Err(SpecError::BadOption(part.to_string(), text.to_string())),
            }
        }
        if kind == PlayerKind::Net && path.is_none() {
            return Err(SpecError::Missing(
                text.to_string(),
                "a checkpoint or player file: net:PATH,sims=N".into(),
            ));
        }
        Ok(PlayerSpec {
            kind,
            path,
            options,
            text: text.to_string(),
        })
    }

    /// Check that only `allowed` options are present.
    pub fn check_options(&self, allowed: &[&str]) -> Result<(), SpecError> {
        for k in self.options.keys() {
            if !allowed.contains(&k.as_str()) {
                return Err(SpecError::UnknownOption(
                    k.clone(),
                    self.kind.name().to_string(),
                    allowed.join(", "),
                ));
            }
        }
        Ok(())
    }

    /// An option parsed as `T`, if present.
    pub fn get<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, SpecError>
    where
        T::Err: std::fmt::Display,
    {
        match self.options.get(key) {
            None => Ok(None),
            Some(v) => v
                .parse::<T>()
                .map(Some)
                .map_err(|e| SpecError::BadValue(key.into(), v.clone(), self.text.clone(), e.to_string())),
        }
    }

    /// A positive integer option.
    pub fn get_positive(&self, key: &str) -> Result<Option<u64>, SpecError> {
        match self.get::<u64>(key)? {
            Some(0) => Err(SpecError::BadValue(
                key.into(),
                "0".into(),
                self.text.clone(),
                "must be at least 1".into(),
            )),
            v => Ok(v),
        }
    }

    /// The `movetime` option: time per move in milliseconds, fractions
    /// allowed, with or without a `ms` suffix (`movetime=1000`,
    /// `movetime=12.6ms`, as `damone rate` writes its opponents); more
    /// than 0 and at most a day.
    pub fn movetime(&self) -> Result<Option<Duration>, SpecError> {
        let Some(text) = self.options.get("movetime") else {
            return Ok(None);
        };
        let ms = text
            .trim()
            .strip_suffix("ms")
            .unwrap_or(text.trim())
            .parse::<f64>()
            .ok()
            .filter(|ms| ms.is_finite() && *ms > 0.0 && *ms <= 86_400_000.0);
        match ms {
            Some(ms) => Ok(Some(Duration::from_secs_f64(ms / 1000.0))),
            None => Err(SpecError::BadValue(
                "movetime".into(),
                text.clone(),
                self.text.clone(),
                "milliseconds per move, more than 0 (e.g. 1000 or 12.5ms)".into(),
            )),
        }
    }

    /// The `threads` option: the threads one player's search uses (1
    /// without it; at most [`MAX_SEARCH_THREADS`]).
    pub fn threads(&self) -> Result<usize, SpecError> {
        match self.get_positive("threads")? {
            Some(t) if t > MAX_SEARCH_THREADS as u64 => Err(SpecError::BadValue(
                "threads".into(),
                t.to_string(),
                self.text.clone(),
                format!("at most {MAX_SEARCH_THREADS}"),
            )),
            t => Ok(t.map_or(1, |t| t as usize)),
        }
    }

    /// A pool of the `threads` option's threads for a network player's
    /// searches (shared by the players of one factory), None for 1.
    pub fn search_pool(&self) -> Result<Option<Arc<rayon::ThreadPool>>, SpecError> {
        match self.threads()? {
            1 => Ok(None),
            n => crate::util::thread_pool(n)
                .map(|p| Some(Arc::new(p)))
                .map_err(|e| SpecError::BadValue("threads".into(), n.to_string(), self.text.clone(), e)),
        }
    }

    /// The options [`search_params`](Self::search_params) reads, which
    /// `mcts` and `net` specs both accept.
    pub const SEARCH_OPTIONS: [&'static str; 11] = [
        "sims",
        "movetime",
        "algo",
        "cpuct",
        "considered",
        "collapse",
        "material",
        "draw",
        "tactics",
        "tactics_tree",
        "tactics_depth",
    ];

    /// Search parameters from the options shared by `mcts` and `net`:
    /// `sims`, `movetime` (milliseconds per move, instead of `sims`),
    /// `algo` (puct or gumbel), `cpuct`, `considered` (Gumbel: root moves
    /// sampled for sequential halving), `collapse` (true or false: forced
    /// moves inside the tree played without evaluation), `material` (the
    /// weight of the predicted final material in the search's value,
    /// `search.material_utility`), `draw` (a draw's worth to the side to
    /// move, in [-1, 0]: a contempt, `search.draw_score`), `tactics` (the
    /// root's tactical check, its margin in Pedine, 0 = off,
    /// `search.tactics_margin`), `tactics_tree` (true: the check at every
    /// node, `search.tactics_in_tree`), `tactics_depth` (moves of each side
    /// the root's check looks ahead, `search.tactics_depth`).
    pub fn search_params(&self, base: SearchParams) -> Result<SearchParams, SpecError> {
        let mut p = base;
        if let Some(s) = self.get_positive("sims")? {
            p.simulations = s.min(u32::MAX as u64) as u32;
        }
        if let Some(t) = self.movetime()? {
            p.movetime_ms = (t.as_millis() as u64).max(1);
        }
        if let Some(a) = self.options.get("algo") {
            p.algorithm = match a.as_str() {
                "puct" => SearchAlgorithm::Puct,
                "gumbel" => SearchAlgorithm::Gumbel,
                _ => {
                    return Err(SpecError::BadValue(
                        "algo".into(),
                        a.clone(),
                        self.text.clone(),
                        "expected puct or gumbel".into(),
                    ))
                }
            };
        }
        if let Some(c) = self.get::<f32>("cpuct")? {
            p.c_puct = c;
        }
        if let Some(k) = self.get_positive("considered")? {
            p.gumbel_considered = k.min(u32::MAX as u64) as u32;
        }
        if let Some(c) = self.get::<bool>("collapse")? {
            p.collapse_forced = c;
        }
        if let Some(m) = self.get::<f32>("material")? {
            p.material_utility = m;
        }
        if let Some(d) = self.get::<f32>("draw")? {
            p.draw_score = d;
        }
        if let Some(t) = self.get::<f32>("tactics")? {
            p.tactics_margin = t;
        }
        if let Some(t) = self.get::<bool>("tactics_tree")? {
            p.tactics_in_tree = t;
        }
        if let Some(d) = self.get_positive("tactics_depth")? {
            p.tactics_depth = d.min(u32::MAX as u64) as u32;
        }
        p.validate().map_err(|e| self.search_error(e))?;
        Ok(p)
    }

    /// A search setting `validate` refused, named by the spec's option for
    /// it (the message starts with the setting's field name).
    fn search_error(&self, message: String) -> SpecError {
        const FIELDS: [(&str, &str); 7] = [
            ("c_puct", "cpuct"),
            ("gumbel_considered", "considered"),
            ("material_utility", "material"),
            ("draw_score", "draw"),
            ("simulations", "sims"),
            ("tactics_margin", "tactics"),
            ("tactics_depth", "tactics_depth"),
        ];
        FIELDS
            .iter()
            .find(|(field, _)| message.starts_with(field))
            .and_then(|&(_, key)| self.options.get(key).map(|v| (key, v)))
            .map_or_else(
                || SpecError::BadSearch(self.text.clone(), message.clone()),
                |(key, v)| SpecError::BadValue(key.into(), v.clone(), self.text.clone(), message.clone()),
            )
    }
}

/// A factory for the built-in kinds (`random`, `alphabeta`, `mcts`);
/// `net` specs are built by the CLI.
pub fn builtin_factory<P: Baseline>(spec: &PlayerSpec) -> Result<PlayerFactory<P>, SpecError> {
    let name = spec.text.clone();
    match spec.kind {
        PlayerKind::Random => {
            spec.check_options(&[])?;
            Ok(Arc::new(move |seed| {
                Box::new(RandomPlayer::new(rng_stream(seed, "random-player", 0)))
            }))
        }
        PlayerKind::AlphaBeta if spec.options.contains_key("eval") || spec.options.contains_key("tb") => {
            Err(SpecError::Missing(
                spec.text.clone(),
                "its learned evaluation or tables loaded: build it with damone::player::open".into(),
            ))
        }
        PlayerKind::AlphaBeta => alphabeta_factory(spec, Arc::new(HandWritten), None),
        PlayerKind::Mcts => {
            let mut allowed = PlayerSpec::SEARCH_OPTIONS.to_vec();
            allowed.push("rollouts");
            spec.check_options(&allowed)?;
            let base = SearchParams {
                simulations: 800,
                ..SearchParams::plain()
            };
            let params = spec.search_params(base)?;
            let rollouts = spec.get_positive("rollouts")?.unwrap_or(1) as u32;
            Ok(Arc::new(move |seed| {
                Box::new(MctsPlayer::new(
                    name.clone(),
                    params.clone(),
                    rollouts,
                    rng_stream(seed, "mcts-player", 0),
                ))
            }))
        }
        PlayerKind::Net => Err(SpecError::Missing(
            spec.text.clone(),
            "a network: build it with damone::player::open".into(),
        )),
        PlayerKind::Shipped => Err(SpecError::Missing(
            spec.text.clone(),
            "its learned evaluation: build it with damone::player::open".into(),
        )),
    }
}

/// The options an `alphabeta` spec accepts.
pub const ALPHABETA_OPTIONS: [&str; 7] = ["depth", "nodes", "movetime", "threads", "eval", "tb", "contempt"];

/// An `alphabeta` spec's player searching with `eval` and the exact values
/// `exact` (its `tb`, opened by the caller): its depth, node and time
/// limits (depth 4 without any), its threads and its `contempt` (the
/// evaluation's units a draw costs it; 0 by default).
pub fn alphabeta_factory<P: Baseline, E: LeafEval<P>>(
    spec: &PlayerSpec,
    eval: Arc<E>,
    exact: Option<Arc<dyn ExactValues<P>>>,
) -> Result<PlayerFactory<P>, SpecError> {
    spec.check_options(&ALPHABETA_OPTIONS)?;
    let threads = spec.threads()?;
    let limits = Limits {
        depth: spec.get_positive("depth")?.map(|d| d.min(64) as u32),
        nodes: spec.get_positive("nodes")?,
        movetime: spec.movetime()?,
    };
    let limits = if limits == Limits::default() {
        Limits {
            depth: Some(4),
            ..limits
        }
    } else {
        limits
    };
    let contempt = spec.get::<u32>("contempt")?.unwrap_or(0).min(10_000) as i32;
    let name = spec.text.clone();
    Ok(Arc::new(move |_| {
        Box::new(
            AlphaBeta::with_eval(name.clone(), limits, eval.clone())
                .with_threads(threads)
                .with_exact_values(exact.clone())
                .with_contempt(contempt),
        )
    }))
}

/// Split a comma-separated player list (`--players`) into specs: an item
/// `key=value` (with no `:`) is an option of the spec before it, so
/// `random,mcts:sims=100,algo=gumbel` is two specs.
pub fn split_player_list(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for tok in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let is_option = tok.contains('=') && !tok.contains(':');
        match out.last_mut() {
            Some(last) if is_option => {
                last.push(if last.contains(':') { ',' } else { ':' });
                last.push_str(tok);
            }
            _ => out.push(tok.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::damone::Position;

    /// The movetimes `damone rate` writes (`12.6ms`) read back, as whole
    /// milliseconds do; nonsense is refused by name.
    #[test]
    fn movetime_takes_fractions_of_a_millisecond() {
        let t = |text: &str| PlayerSpec::parse(text).unwrap().movetime();
        assert_eq!(
            t("alphabeta:movetime=12.6ms").unwrap(),
            Some(Duration::from_micros(12_600))
        );
        assert_eq!(
            t("alphabeta:movetime=1000").unwrap(),
            Some(Duration::from_secs(1))
        );
        assert_eq!(t("alphabeta:depth=3").unwrap(), None);
        for bad in ["0", "-5", "ms", "1e99", "NaN", "12.6s"] {
            let e = t(&format!("alphabeta:movetime={bad}")).unwrap_err().to_string();
            assert!(e.contains("milliseconds per move"), "{bad}: {e}");
        }
        let factory = alphabeta_factory::<Position, HandWritten>(
            &PlayerSpec::parse("alphabeta:movetime=12.6ms,threads=2").unwrap(),
            Arc::new(HandWritten),
            None,
        );
        assert!(factory.is_ok());
    }

    #[test]
    fn parses_and_rejects() {
        let s = PlayerSpec::parse("alphabeta:depth=4").unwrap();
        assert_eq!(s.options["depth"], "4");
        let s = PlayerSpec::parse("net:runs/a/iter_0003,sims=200").unwrap();
        assert_eq!(s.path.as_deref(), Some("runs/a/iter_0003"));
        assert!(matches!(
            PlayerSpec::parse("chess"),
            Err(SpecError::UnknownKind(..))
        ));
        assert!(matches!(PlayerSpec::parse("net:"), Err(SpecError::Missing(..))));
        assert!(matches!(
            PlayerSpec::parse("alphabeta:depth=2,depth=3"),
            Err(SpecError::DuplicateOption(..))
        ));
        assert!(matches!(
            PlayerSpec::parse("alphabeta:depth"),
            Err(SpecError::BadOption(..))
        ));
        let bad = |t: &str| {
            builtin_factory::<Position>(&PlayerSpec::parse(t).unwrap())
                .err()
                .unwrap()
        };
        assert!(matches!(bad("alphabeta:depth=x"), SpecError::BadValue(..)));
        assert!(matches!(bad("alphabeta:depth=0"), SpecError::BadValue(..)));
        assert!(matches!(bad("alphabeta:speed=3"), SpecError::UnknownOption(..)));
        assert!(matches!(bad("alphabeta:eval=x"), SpecError::Missing(..)));
        assert!(matches!(bad("mcts:algo=best"), SpecError::BadValue(..)));
        assert!(matches!(bad("random:x=1"), SpecError::UnknownOption(..)));
        assert!(matches!(bad("mcts:considered=0"), SpecError::BadValue(..)));
        assert!(matches!(bad("mcts:collapse=1"), SpecError::BadValue(..)));
        assert!(matches!(bad("mcts:draw=0.5"), SpecError::BadValue(..)));
        assert!(matches!(bad("mcts:material=-1"), SpecError::BadValue(..)));
        assert_eq!(
            bad("mcts:material=2").to_string(),
            "bad value '2' for option 'material' in 'mcts:material=2': material_utility must be in [0, 1], got 2"
        );
        assert!(bad("mcts:cpuct=-1").to_string().contains("option 'cpuct'"));
        assert!(matches!(bad("mcts:material=much"), SpecError::BadValue(..)));
        assert!(matches!(bad("mcts:tactics_depth=0"), SpecError::BadValue(..)));
        assert_eq!(
            bad("mcts:tactics_depth=4").to_string(),
            "bad value '4' for option 'tactics_depth' in 'mcts:tactics_depth=4': tactics_depth must be in [1, 3], got 4"
        );
    }

    #[test]
    fn search_options_reach_the_params() {
        let s = PlayerSpec::parse("mcts:sims=64,algo=gumbel,considered=16,cpuct=2,collapse=true").unwrap();
        let p = s.search_params(SearchParams::plain()).unwrap();
        assert!(p.collapse_forced);
        assert_eq!(p.simulations, 64);
        assert_eq!(p.algorithm, SearchAlgorithm::Gumbel);
        assert_eq!(p.gumbel_considered, 16);
        assert_eq!(p.c_puct, 2.0);
        let s = PlayerSpec::parse("mcts:material=0.25,draw=-0.1").unwrap();
        let p = s.search_params(SearchParams::plain()).unwrap();
        assert_eq!(p.material_utility, 0.25);
        assert_eq!(p.draw_score, -0.1);
        let s = PlayerSpec::parse("mcts:tactics=1,tactics_depth=2").unwrap();
        assert_eq!(s.search_params(SearchParams::plain()).unwrap().tactics_depth, 2);
    }

    #[test]
    fn players_list_keeps_options_with_their_spec() {
        assert_eq!(
            split_player_list("random,alphabeta:depth=2,mcts:sims=100,algo=gumbel,net:a/b,sims=5"),
            [
                "random",
                "alphabeta:depth=2",
                "mcts:sims=100,algo=gumbel",
                "net:a/b,sims=5"
            ]
        );
        assert_eq!(
            split_player_list("mcts,sims=4, ,random"),
            ["mcts:sims=4", "random"]
        );
    }
}
