//! `Game` and `Outcome`: a game of any of damone's games, with its
//! history (for the repetition and no-progress draws), moves as text or as
//! network actions, and its input planes.

use crate::{draw_rules, err, game_kind, inputs_named};
use damone::game::interface::setup_or_start;
use damone::game::{Color, DrawRules, Game, GameKind, GamePosition, Outcome};
use damone::net::{policy_indices, Board, Observation};
use damone::selfplay::BatchEnv;
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::prelude::*;

/// The enums of every game (a game, an environment, a player), each
/// variant the one game of damone's list, and [`Wrap`] for each game.
macro_rules! any_types {
    ({} $($variant:ident $name:literal $title:literal $ty:ty, $doc:literal,)*) => {
        /// A game of one of damone's games.
        #[derive(Clone)]
        pub enum AnyGame {
            $($variant(Game<$ty>),)*
        }

        /// A batch of games of one of damone's games.
        pub enum AnyEnv {
            $($variant(BatchEnv<$ty>),)*
        }

        /// A player of one of damone's games.
        pub enum AnyPlayer {
            $($variant(Box<dyn damone::arena::Player<$ty>>),)*
        }

        $(impl Wrap for $ty {
            fn wrap(game: Game<Self>) -> AnyGame {
                AnyGame::$variant(game)
            }
            fn unwrap(game: &AnyGame) -> Option<&Game<Self>> {
                match game {
                    AnyGame::$variant(g) => Some(g),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
            fn wrap_env(env: BatchEnv<Self>) -> AnyEnv {
                AnyEnv::$variant(env)
            }
            fn wrap_player(player: Box<dyn damone::arena::Player<Self>>) -> AnyPlayer {
                AnyPlayer::$variant(player)
            }
            fn unwrap_player(player: &mut AnyPlayer) -> Option<&mut Box<dyn damone::arena::Player<Self>>> {
                match player {
                    AnyPlayer::$variant(p) => Some(p),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        })*

        impl AnyGame {
            /// The game's kind.
            pub fn kind(&self) -> GameKind {
                match self {
                    $(AnyGame::$variant(_) => GameKind::$variant,)*
                }
            }
        }
    };
}
damone::game_list!(any_types {});

/// Run `$body` with `$g` bound to the game inside an [`AnyGame`].
macro_rules! each_game {
    ($value:expr, $g:ident => $body:expr) => {
        damone::game_list!(crate::game::each_game_arms { $value, $g, $body })
    };
}
pub(crate) use each_game;

/// The `match` of [`each_game!`], made from damone's list of games.
macro_rules! each_game_arms {
    ({ $value:expr, $g:ident, $body:expr } $($variant:ident $name:literal $title:literal $ty:ty, $doc:literal,)*) => {
        match $value {
            $($crate::game::AnyGame::$variant($g) => $body,)*
        }
    };
}
pub(crate) use each_game_arms;

/// A position type the bindings can hold: wraps its game, environment and
/// player into the enums of every game.
pub trait Wrap: Board + damone::run::RunGame {
    fn wrap(game: Game<Self>) -> AnyGame;
    fn unwrap(game: &AnyGame) -> Option<&Game<Self>>;
    fn wrap_env(env: BatchEnv<Self>) -> AnyEnv;
    fn wrap_player(player: Box<dyn damone::arena::Player<Self>>) -> AnyPlayer;
    fn unwrap_player(player: &mut AnyPlayer) -> Option<&mut Box<dyn damone::arena::Player<Self>>>;
}

impl AnyGame {
    /// A new game of `kind` from `setup` (or the variant's start), under
    /// checked draw `rules`.
    pub fn new(
        kind: GameKind,
        setup: Option<&str>,
        variant: Option<&str>,
        rules: DrawRules,
    ) -> PyResult<AnyGame> {
        let variant = variant.unwrap_or("standard");
        damone::with_game!(kind, P => {
            let start: P = setup_or_start(setup, variant).map_err(err)?;
            Ok(P::wrap(Game::new(start, rules)))
        })
    }
}

/// The policy index of each legal move and the moves, in one order.
fn legal<P: Board>(game: &Game<P>) -> (Vec<P::Move>, Vec<u16>) {
    let moves = game.position().legal_moves();
    let actions = policy_indices(game.position(), &moves);
    (moves, actions)
}

fn check_not_over<P: GamePosition>(game: &Game<P>) -> PyResult<()> {
    match game.outcome() {
        Some(o) => Err(err(format!("the game is over: {}", o.over_message()))),
        None => Ok(()),
    }
}

fn play_text<P: GamePosition>(game: &mut Game<P>, text: &str) -> PyResult<()> {
    check_not_over(game)?;
    let m = game.position().parse_move(text).map_err(err)?;
    game.play_unchecked(&m);
    Ok(())
}

fn move_of_action<P: Board>(game: &Game<P>, action: i64) -> PyResult<P::Move> {
    let (moves, actions) = legal(game);
    actions
        .iter()
        .position(|&a| i64::from(a) == action)
        .map(|k| moves[k])
        .ok_or_else(|| {
            err(format!(
                "action {action} is not a legal move here (see legal_actions())"
            ))
        })
}

/// The board of a game's type.
pub fn board_of<P: Board>(_: &Game<P>) -> damone::net::BoardCells {
    P::CELLS
}

/// The input planes of `game` as `viewer` sees it (the side to move when
/// None), `planes x rows x cols`.
pub fn planes_of<P: Board>(game: &Game<P>, inputs: damone::net::Inputs, viewer: Option<Color>) -> Vec<f32> {
    let mut out = vec![0.0; inputs.planes() * P::CELLS.area()];
    let pos = game.position();
    let observation = match viewer {
        Some(c) if c != pos.side_to_move() => {
            let limit = game.rules().no_progress_plies.max(1) as f32;
            let no_progress = pos.no_progress() as f32 / limit;
            Observation::new(
                &pos.with_side_to_move(c),
                game.repetitions() > 1,
                no_progress,
                inputs,
            )
        }
        _ => Observation::of_game(game, inputs),
    };
    observation.write_planes(inputs, &mut out);
    out
}

/// The result of a finished game.
#[pyclass(name = "Outcome", module = "damone", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct PyOutcome {
    /// "white", "black", or None for a draw.
    #[pyo3(get)]
    pub winner: Option<String>,
    /// Why it ended: no_moves, damone_lost, repetition, no_progress, max_plies, resignation.
    #[pyo3(get)]
    pub reason: String,
    /// The PDN result: "1-0", "0-1" or "1/2-1/2".
    #[pyo3(get)]
    pub result: String,
}

impl From<Outcome> for PyOutcome {
    fn from(o: Outcome) -> Self {
        PyOutcome {
            winner: o.winner.map(|c| color_name(c).to_string()),
            reason: o.reason.name().to_string(),
            result: o.pdn_result().to_string(),
        }
    }
}

#[pymethods]
impl PyOutcome {
    fn __repr__(&self) -> String {
        format!("Outcome(result='{}', reason='{}')", self.result, self.reason)
    }
}

/// A game of Damone or Italian draughts: its position, its history (for
/// the draw rules), moves as text or as network actions, and its input
/// planes. `setup` is the game's setup string (FEN-like); without it the
/// variant's start position.
#[pyclass(name = "Game", module = "damone")]
#[derive(Clone)]
pub struct PyGame {
    pub inner: AnyGame,
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (game="damone", setup=None, variant=None, no_progress_plies=80, max_plies=400))]
    fn new(
        game: &str,
        setup: Option<&str>,
        variant: Option<&str>,
        no_progress_plies: u32,
        max_plies: u32,
    ) -> PyResult<PyGame> {
        let rules = draw_rules(no_progress_plies, max_plies)?;
        Ok(PyGame {
            inner: AnyGame::new(game_kind(game)?, setup, variant, rules)?,
        })
    }

    /// The game's name: "damone" or "italian".
    #[getter]
    fn game(&self) -> &'static str {
        self.inner.kind().name()
    }
    /// The variant's name.
    #[getter]
    fn variant(&self) -> &'static str {
        each_game!(&self.inner, g => variant_name(g.position()))
    }
    /// The setup string of the current position.
    #[getter]
    fn setup(&self) -> String {
        each_game!(&self.inner, g => g.position().to_setup())
    }
    /// The side to move: "white" or "black".
    #[getter]
    fn side_to_move(&self) -> String {
        color_name(self.current_player_color()).to_string()
    }
    /// The player to move: 0 for White, 1 for Black.
    #[getter]
    fn current_player(&self) -> u8 {
        self.current_player_color() as u8
    }
    /// Plies played.
    #[getter]
    fn ply(&self) -> usize {
        each_game!(&self.inner, g => g.ply())
    }
    /// The moves played, as text, each in the position it was played in.
    #[getter]
    fn moves(&self) -> Vec<String> {
        each_game!(&self.inner, g => damone::arena::tournament::move_texts(g))
    }

    /// The legal moves as text (empty when the side to move has none).
    fn legal_moves(&self) -> Vec<String> {
        each_game!(&self.inner, g => {
            let pos = g.position();
            pos.legal_moves().iter().map(|m| pos.move_text(m)).collect()
        })
    }
    /// The network action (policy index) of each legal move, in the order of `legal_moves()`.
    fn legal_actions(&self) -> Vec<u16> {
        let mut actions = each_game!(&self.inner, g => legal(g).1);
        // Moves sharing an action (Dameo's captures with the same start and
        // end) are listed once; the action plays the first.
        let mut seen = std::collections::HashSet::new();
        actions.retain(|a| seen.insert(*a));
        actions
    }
    /// A boolean array of the board's policy-size flags, true at the
    /// legal actions.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut mask = vec![false; each_game!(&self.inner, g => board_of(g).policy_size())];
        for a in self.legal_actions() {
            mask[a as usize] = true;
        }
        PyArray1::from_vec(py, mask)
    }
    /// The move text of a legal action.
    fn action_to_move(&self, action: i64) -> PyResult<String> {
        each_game!(&self.inner, g => {
            let m = move_of_action(g, action)?;
            Ok(g.position().move_text(&m))
        })
    }
    /// The action of a move given as text.
    fn move_to_action(&self, text: &str) -> PyResult<u16> {
        each_game!(&self.inner, g => {
            let m = g.position().parse_move(text).map_err(err)?;
            let (moves, actions) = legal(g);
            Ok(actions[moves.iter().position(|x| *x == m).expect("parsed moves are legal")])
        })
    }

    /// Play a move given as text (e.g. "c3-d4", "c3xe5"); raises DamoneError if it is not legal.
    fn play(&mut self, text: &str) -> PyResult<()> {
        each_game!(&mut self.inner, g => play_text(g, text))
    }
    /// Play a move given as a network action.
    fn play_action(&mut self, action: i64) -> PyResult<()> {
        each_game!(&mut self.inner, g => {
            check_not_over(g)?;
            let m = move_of_action(g, action)?;
            g.play_unchecked(&m);
            Ok(())
        })
    }
    /// Take back the last move; False if there is none.
    fn undo(&mut self) -> bool {
        each_game!(&mut self.inner, g => g.undo())
    }

    /// The result if the game is over (no legal move, a draw rule, ...), else None.
    fn outcome(&self) -> Option<PyOutcome> {
        each_game!(&self.inner, g => g.outcome().map(PyOutcome::from))
    }
    /// True when the game is over.
    fn is_over(&self) -> bool {
        self.outcome().is_some()
    }
    /// (White's return, Black's return): +1 win, -1 loss, 0 for a draw or a game not over.
    fn returns(&self) -> (f32, f32) {
        match self.outcome().and_then(|o| o.winner) {
            Some(w) if w == "white" => (1.0, -1.0),
            Some(_) => (-1.0, 1.0),
            None => (0.0, 0.0),
        }
    }

    /// The network's input planes, float32 `planes x 8 x 8` (inputs "basic":
    /// 9 planes, "draughts": 19), seen by `player` (0 White, 1 Black; the
    /// side to move when None): the board turned for Black.
    #[pyo3(signature = (inputs="basic", player=None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        inputs: &str,
        player: Option<u8>,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let inputs = inputs_named(inputs)?;
        let viewer = match player {
            None => None,
            Some(0) => Some(Color::White),
            Some(1) => Some(Color::Black),
            Some(p) => return Err(err(format!("player {p}: 0 (White) or 1 (Black)"))),
        };
        let planes = each_game!(&self.inner, g => planes_of(g, inputs, viewer));
        let board = each_game!(&self.inner, g => board_of(g));
        PyArray1::from_vec(py, planes).reshape([inputs.planes(), board.rows(), board.cols()])
    }

    /// Leaf nodes of the legal-move tree to `depth` plies from the current
    /// position (`paths`: Italian captures along different paths counted
    /// apart, as the published Italian counts are).
    #[pyo3(signature = (depth, paths=false))]
    fn perft(&self, py: Python<'_>, depth: u32, paths: bool) -> PyResult<u64> {
        count_leaves(py, &self.inner, depth, paths)
    }

    /// A copy of the game.
    fn copy(&self) -> PyGame {
        self.clone()
    }
    fn __copy__(&self) -> PyGame {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.clone()
    }
    /// The board as text.
    fn __str__(&self) -> String {
        each_game!(&self.inner, g => damone::game::board_text::board_text(g.position(), Color::White, true))
    }
    fn __repr__(&self) -> String {
        format!("Game(game='{}', setup='{}')", self.game(), self.setup())
    }
}

impl PyGame {
    fn current_player_color(&self) -> Color {
        each_game!(&self.inner, g => g.position().side_to_move())
    }
}

/// "white" or "black".
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn variant_name<P: GamePosition>(pos: &P) -> &'static str {
    P::variant_name(pos.variant())
}

/// Leaf nodes of the legal-move tree to `depth` plies (the rules engine's
/// standard correctness count) from `setup` or the start position.
#[pyfunction]
#[pyo3(signature = (depth, game="damone", setup=None, variant=None, paths=false))]
fn perft(
    py: Python<'_>,
    depth: u32,
    game: &str,
    setup: Option<&str>,
    variant: Option<&str>,
    paths: bool,
) -> PyResult<u64> {
    let g = AnyGame::new(game_kind(game)?, setup, variant, DrawRules::default())?;
    count_leaves(py, &g, depth, paths)
}

fn count_leaves(py: Python<'_>, game: &AnyGame, depth: u32, paths: bool) -> PyResult<u64> {
    if !paths {
        return Ok(py.detach(|| each_game!(game, g => damone::game::perft::perft(g.position(), depth))));
    }
    let counted = py.detach(|| each_game!(game, g => g.position().perft_paths(depth)));
    counted.ok_or_else(|| {
        let games: Vec<&str> = damone::game::perft::games_counting_paths()
            .iter()
            .map(|g| g.name())
            .collect();
        err(format!(
            "paths counts capture paths apart, which {} counts do not: use it with game={}",
            game.kind(),
            games.join(" or game=")
        ))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGame>()?;
    m.add_class::<PyOutcome>()?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    Ok(())
}
