//! `Player` (any player spec: a network's player file, checkpoint or run
//! folder, alpha-beta, MCTS, random) and `play_match`.

use crate::game::{AnyGame, AnyPlayer, PyGame, Wrap};
use crate::search::{report, PySearchResult};
use crate::{draw_rules, err, game_kind};
use damone::arena::tournament::{run_games, schedule, GameRecord, MatchSettings};
use damone::arena::{PlayerFactory, PlayerKind};
use damone::game::interface::setup_or_start;
use damone::game::{Game, GameKind, GamePosition};
use damone::net::NetEvaluator;
use damone::player::{game_of_players, parse_spec_or_path, LoadedNet, ShippedKind};
use damone::util::elo::score_interval;
use pyo3::prelude::*;
use std::sync::Arc;

/// A player: `"shipped:italian"` (the player shipped for a game),
/// `"alphabeta:depth=4"`, `"mcts:sims=200"`, `"random"`, or a
/// trained network (`"net:PATH,sims=64"` or just the path of a player file
/// `.dmp`, a checkpoint folder or a run folder). Its game is the network's,
/// or `game` for the built-in kinds.
#[pyclass(name = "Player", module = "damone")]
pub struct PyPlayer {
    spec: String,
    kind: GameKind,
    player: std::sync::Mutex<AnyPlayer>,
    /// The network of a network player, loaded on first use as an evaluator.
    net: Option<Arc<LoadedNet>>,
    is_net: bool,
}

/// The player of `spec`, and whether it is a network player (it has a
/// header).
fn open<P: Wrap>(spec: &str, seed: u64) -> PyResult<(AnyPlayer, bool)> {
    let (factory, header): (PlayerFactory<P>, _) =
        damone::player::open(spec, &damone::net::ComputeDevice::cpu()).map_err(err)?;
    Ok((P::wrap_player(factory(seed)), header.is_some()))
}

fn wrong_game(player: GameKind, game: GameKind) -> PyErr {
    err(format!("this player plays {player}, and the game is {game}"))
}

/// The game of `game` for a player of `kind`, refused by name if another.
fn game_of<P: Wrap>(game: &PyGame, kind: GameKind) -> PyResult<&Game<P>> {
    P::unwrap(&game.inner).ok_or_else(|| wrong_game(kind, game.inner.kind()))
}

#[pymethods]
impl PyPlayer {
    #[new]
    #[pyo3(signature = (spec, game=None, seed=0))]
    fn new(py: Python<'_>, spec: &str, game: Option<&str>, seed: u64) -> PyResult<PyPlayer> {
        let explicit = game.map(game_kind).transpose()?;
        let kind = game_of_players([spec], explicit.map(GameKind::id))
            .map_err(err)?
            .kind()
            .map_err(err)?;
        let (player, is_net) = py.detach(|| damone::with_game!(kind, P => open::<P>(spec, seed)))?;
        Ok(PyPlayer {
            spec: spec.to_string(),
            kind,
            player: std::sync::Mutex::new(player),
            net: None,
            is_net,
        })
    }

    /// The player shipped with damone for `game`: by default alpha-beta
    /// with the game's trained learned evaluation (`kind="eval"`), the
    /// stronger per second; `kind="net"` its shipped network with its tree
    /// search. At `movetime` milliseconds a move (None: the shipped
    /// player's own). A fixed baseline: the same weights in every install
    /// of this version.
    #[staticmethod]
    #[pyo3(signature = (game="damone", movetime=None, seed=0, kind=None))]
    fn shipped(
        py: Python<'_>,
        game: &str,
        movetime: Option<f64>,
        seed: u64,
        kind: Option<&str>,
    ) -> PyResult<PyPlayer> {
        let mut spec = format!("shipped:{game}");
        if let Some(kind) = kind {
            spec.push_str(&format!(",kind={kind}"));
        }
        if let Some(ms) = movetime {
            spec.push_str(&format!(",movetime={ms}"));
        }
        PyPlayer::new(py, &spec, Some(game), seed)
    }

    /// The player's spec as given.
    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }
    /// The game it plays.
    #[getter]
    fn game(&self) -> &'static str {
        self.kind.name()
    }
    /// True for a network player.
    #[getter]
    fn is_network(&self) -> bool {
        self.is_net
    }

    /// The move the player chooses in `game`, as text.
    fn choose(&mut self, py: Python<'_>, game: &PyGame) -> PyResult<String> {
        let kind = self.kind;
        let mut guard = self
            .player
            .lock()
            .map_err(|_| err("the player failed in another thread"))?;
        let player = &mut *guard;
        py.detach(|| {
            damone::with_game!(kind, P => {
                let p = P::unwrap_player(player).ok_or_else(|| err("the player's game is not its kind's"))?;
                choose(p.as_mut(), game_of::<P>(game, kind)?)
            })
        })
    }

    /// A network player's search of `game` (`simulations`: its own default when None).
    #[pyo3(signature = (game, simulations=None, seed=0))]
    fn analyse(
        &mut self,
        py: Python<'_>,
        game: &PyGame,
        simulations: Option<u32>,
        seed: u64,
    ) -> PyResult<PySearchResult> {
        let net = self.network()?;
        let kind = self.kind;
        let mut params = net.header.search.clone();
        if let Some(s) = simulations {
            if s == 0 {
                return Err(err("simulations must be at least 1"));
            }
            params = params.for_play(s);
        }
        py.detach(|| {
            damone::with_game!(kind, P => {
                let mut eval = NetEvaluator::on_device(&net.net, &net.device);
                report(game_of::<P>(game, kind)?, params, &mut eval, seed)
            })
        })
    }

    fn __repr__(&self) -> String {
        format!("Player('{}', game='{}')", self.spec, self.kind)
    }
}

fn choose<P: GamePosition>(p: &mut dyn damone::arena::Player<P>, game: &Game<P>) -> PyResult<String> {
    if let Some(o) = game.outcome() {
        return Err(err(format!("the game is over: {}", o.over_message())));
    }
    let m = p.choose(game);
    Ok(game.position().move_text(&m))
}

impl PyPlayer {
    /// The network of a network player (loaded once).
    pub fn network(&mut self) -> PyResult<Arc<LoadedNet>> {
        if !self.is_net {
            return Err(err(format!("'{}' is not a network player", self.spec)));
        }
        if self.net.is_none() {
            let spec = parse_spec_or_path(&self.spec).map_err(err)?;
            let net = if spec.kind == PlayerKind::Shipped {
                damone::player::shipped_player(self.kind.id(), Some(ShippedKind::Net))
                    .and_then(|p| p.net())
                    .map_err(err)?
            } else {
                let path = spec.path.expect("a network spec has a path");
                LoadedNet::load(&path).map_err(err)?
            };
            self.net = Some(Arc::new(net));
        }
        Ok(self.net.clone().expect("loaded"))
    }

    /// Refuse a game of another kind than the player's.
    pub fn check_game(&self, game: &AnyGame) -> PyResult<()> {
        if game.kind() != self.kind {
            return Err(err(format!(
                "this player plays {}, and the game is {}",
                self.kind,
                game.kind()
            )));
        }
        Ok(())
    }
}

/// A match's result from the first player's side.
#[pyclass(name = "MatchResult", module = "damone", frozen, get_all)]
pub struct PyMatchResult {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// The first player's score fraction.
    pub score: f64,
    /// Half-width of the score's 95% interval.
    pub interval: f64,
    /// Every game as PDN.
    pub pdn: Vec<String>,
}

#[pymethods]
impl PyMatchResult {
    fn __repr__(&self) -> String {
        format!(
            "MatchResult(+{} ={} -{}, score={:.3} ± {:.3})",
            self.wins, self.draws, self.losses, self.score, self.interval
        )
    }
}

fn play<P: Wrap>(a: &str, b: &str, s: MatchSettings<P>) -> PyResult<Vec<GameRecord>> {
    let cpu = damone::net::ComputeDevice::cpu();
    let factories = [a, b]
        .iter()
        .map(|n| {
            damone::player::open::<P>(n, &cpu)
                .map(|(f, _)| f)
                .map_err(|e| err(format!("player '{n}': {e}")))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let names = vec![a.to_string(), b.to_string()];
    let tasks = schedule(&[(0, 1)], &s);
    Ok(run_games(&tasks, &names, &factories, &s, &|_| {}))
}

/// Play `games` games between players `a` and `b` (specs as `Player` takes
/// them), colours alternating, each from `opening_plies` seeded random plies,
/// on every core. Returns the result from `a`'s side.
#[pyfunction]
#[pyo3(signature = (a, b, games=10, *, game=None, seed=1, opening_plies=4, no_progress_plies=80, max_plies=400))]
#[allow(clippy::too_many_arguments)]
fn play_match(
    py: Python<'_>,
    a: &str,
    b: &str,
    games: u32,
    game: Option<&str>,
    seed: u64,
    opening_plies: u32,
    no_progress_plies: u32,
    max_plies: u32,
) -> PyResult<PyMatchResult> {
    if games == 0 {
        return Err(err("games must be at least 1"));
    }
    let rules = draw_rules(no_progress_plies, max_plies)?;
    let explicit = game.map(game_kind).transpose()?.map(GameKind::id);
    let kind = game_of_players([a, b], explicit)
        .map_err(err)?
        .kind()
        .map_err(err)?;
    let records = py.detach(|| {
        damone::with_game!(kind, P => {
            let mut s = MatchSettings::from_start(setup_or_start::<P>(None, "standard").map_err(err)?);
            s.games_per_pair = games;
            s.seed = seed;
            s.opening_plies = opening_plies;
            s.rules = rules;
            play::<P>(a, b, s)
        })
    })?;
    let (w, d, l) = damone::arena::tally(&records, 0);
    let (score, interval) = score_interval(w, d, l);
    Ok(PyMatchResult {
        wins: w,
        draws: d,
        losses: l,
        score,
        interval,
        pdn: records.into_iter().map(|r| r.pdn).collect(),
    })
}

/// The players shipped with damone, one dict each: `game`, `kind` (`eval`
/// or `net`), `spec`, `file`, `bytes`, `movetime_ms`, `trained`, `date`,
/// `commit`, `rating`.
#[pyfunction]
fn shipped_players(py: Python<'_>) -> PyResult<Vec<Bound<'_, pyo3::types::PyDict>>> {
    damone::player::shipped_players()
        .iter()
        .map(|p| {
            let d = pyo3::types::PyDict::new(py);
            d.set_item("game", &p.game)?;
            d.set_item("kind", p.kind.name())?;
            d.set_item("spec", p.spec())?;
            d.set_item("file", &p.file)?;
            d.set_item("bytes", p.bytes().len())?;
            d.set_item("movetime_ms", p.movetime_ms)?;
            d.set_item("trained", &p.trained)?;
            d.set_item("date", &p.date)?;
            d.set_item("commit", &p.commit)?;
            d.set_item("rating", &p.rating)?;
            Ok(d)
        })
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPlayer>()?;
    m.add_function(wrap_pyfunction!(shipped_players, m)?)?;
    m.add_class::<PyMatchResult>()?;
    m.add_function(wrap_pyfunction!(play_match, m)?)?;
    Ok(())
}
