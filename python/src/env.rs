//! `VecEnv`: N games stepped in parallel (the library's `BatchEnv`), with
//! NumPy arrays it owns and overwrites at every `reset` and `step`.

use crate::game::{AnyEnv, PyGame, Wrap};
use crate::{draw_rules, err, game_kind, inputs_named};
use damone::game::interface::setup_or_start;
use damone::net::Board;
use damone::selfplay::{BatchEnv, BatchOptions, BatchOutputs};
use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Run `$body` with `$e` bound to the environment inside an [`AnyEnv`].
macro_rules! each_env {
    ($value:expr, $e:ident => $body:expr) => {
        damone::game_list!(crate::env::each_env_arms { $value, $e, $body })
    };
}

/// The `match` of [`each_env!`], made from damone's list of games.
macro_rules! each_env_arms {
    ({ $value:expr, $e:ident, $body:expr } $($variant:ident $name:literal $title:literal $ty:ty, $doc:literal,)*) => {
        match $value {
            $($crate::game::AnyEnv::$variant($e) => $body,)*
        }
    };
}
pub(crate) use each_env_arms;

/// The arrays a `VecEnv` writes into.
struct Buffers {
    observations: Py<PyArray4<f32>>,
    action_mask: Py<PyArray2<bool>>,
    rewards: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    to_play: Py<PyArray1<u8>>,
}

impl Buffers {
    /// The arrays of `n` games of `P` with `planes` input planes.
    fn new<P: Board>(py: Python<'_>, n: usize, planes: usize) -> Buffers {
        let board = P::CELLS;
        Buffers {
            observations: PyArray4::zeros(py, [n, planes, board.rows(), board.cols()], false).unbind(),
            action_mask: PyArray2::zeros(py, [n, board.policy_size()], false).unbind(),
            rewards: PyArray2::zeros(py, [n, 2], false).unbind(),
            terminated: PyArray1::zeros(py, n, false).unbind(),
            truncated: PyArray1::zeros(py, n, false).unbind(),
            to_play: PyArray1::zeros(py, n, false).unbind(),
        }
    }
}

/// N games played in parallel on every core, for batch reinforcement
/// learning. Observations are the network's input planes for the side to
/// move, actions are policy indices (see `action_mask`), rewards are per
/// player (column 0 White, column 1 Black). A finished game is reset at
/// once: its reward and flags describe the ending, its observation and
/// mask are the new game's. The returned arrays belong to the environment
/// and are overwritten by the next call: copy what you keep.
#[pyclass(name = "VecEnv", module = "damone")]
pub struct PyVecEnv {
    env: AnyEnv,
    buffers: Buffers,
    game: &'static str,
}

fn make_env<P: Wrap>(
    n: usize,
    setup: Option<&str>,
    variant: &str,
    opts: BatchOptions,
    seed: u64,
) -> PyResult<BatchEnv<P>> {
    let start: P = setup_or_start(setup, variant).map_err(err)?;
    Ok(BatchEnv::new(n, start, opts, seed))
}

#[pymethods]
impl PyVecEnv {
    #[new]
    #[pyo3(signature = (num_envs, game="damone", *, variant=None, setup=None, seed=0, opening_plies=0,
                        truncate_plies=0, inputs="basic", no_progress_plies=80, max_plies=400))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        num_envs: usize,
        game: &str,
        variant: Option<&str>,
        setup: Option<&str>,
        seed: u64,
        opening_plies: u32,
        truncate_plies: u32,
        inputs: &str,
        no_progress_plies: u32,
        max_plies: u32,
    ) -> PyResult<PyVecEnv> {
        if num_envs == 0 {
            return Err(err("num_envs must be at least 1"));
        }
        let rules = draw_rules(no_progress_plies, max_plies)?;
        let opts = BatchOptions {
            opening_plies,
            truncate_plies,
            inputs: inputs_named(inputs)?,
            rules,
        };
        let kind = game_kind(game)?;
        let variant = variant.unwrap_or("standard");
        let env =
            damone::with_game!(kind, P => P::wrap_env(make_env::<P>(num_envs, setup, variant, opts, seed)?));
        let mut this = PyVecEnv {
            env,
            buffers: damone::with_game!(kind, P => Buffers::new::<P>(py, num_envs, opts.inputs.planes())),
            game: kind.name(),
        };
        this.reset_all(py, None)?;
        Ok(this)
    }

    /// Number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        each_env!(&self.env, e => e.len())
    }
    /// The game's name.
    #[getter]
    fn game(&self) -> &'static str {
        self.game
    }
    /// Shape of one observation: (planes, rows, cols) of the game's board.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        each_env!(&self.env, e => board_shape(e))
    }
    /// Number of actions (the policy index's size on the game's board).
    #[getter]
    fn num_actions(&self) -> usize {
        each_env!(&self.env, e => e.action_count())
    }
    /// Legal-action flags, `num_envs x num_actions` (the environment's array).
    #[getter]
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<bool>> {
        self.buffers.action_mask.bind(py).clone()
    }
    /// The player to move in each game (0 White, 1 Black; the environment's array).
    #[getter]
    fn to_play<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        self.buffers.to_play.bind(py).clone()
    }

    /// Start every game afresh (re-seeded if `seed` is given). Returns
    /// `(observations, info)` with `info["action_mask"]` and `info["to_play"]`.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<u64>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        self.reset_all(py, seed)?;
        Ok((
            self.buffers.observations.bind(py).clone().into_any(),
            self.info(py)?,
        ))
    }

    /// Play one action (`num_envs` policy indices: an integer array or
    /// sequence) in every game. Returns `(observations, rewards,
    /// terminated, truncated, info)`; an illegal action raises DamoneError
    /// and changes nothing.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyAny>,
        Bound<'py, PyAny>,
        Bound<'py, PyAny>,
        Bound<'py, PyAny>,
        Bound<'py, PyDict>,
    )> {
        let actions = int64s(py, actions)?;
        self.step_actions(py, &actions)?;
        let b = &self.buffers;
        Ok((
            b.observations.bind(py).clone().into_any(),
            b.rewards.bind(py).clone().into_any(),
            b.terminated.bind(py).clone().into_any(),
            b.truncated.bind(py).clone().into_any(),
            self.info(py)?,
        ))
    }

    /// A uniformly random legal action for every game (int64 array), from
    /// the environment's seeded streams: random play without a Python loop.
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let mut out = vec![0i64; self.num_envs()];
        let env = &mut self.env;
        py.detach(|| each_env!(env, e => e.random_actions(&mut out)))
            .map_err(err)?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// A copy of game `i` as a `Game`.
    fn game_at(&self, i: usize) -> PyResult<PyGame> {
        if i >= self.num_envs() {
            return Err(err(format!(
                "game {i} out of range: the environment has {}",
                self.num_envs()
            )));
        }
        let inner = each_env!(&self.env, e => Wrap::wrap(e.game(i).clone()));
        Ok(PyGame { inner })
    }

    fn __len__(&self) -> usize {
        self.num_envs()
    }
    fn __repr__(&self) -> String {
        format!("VecEnv({}, game='{}')", self.num_envs(), self.game)
    }
}

/// `actions` as 64-bit integers: an int64 array as it is, any other
/// integer array or sequence converted; floats and others refused.
fn int64s(py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(a) = actions.cast::<PyArray1<i64>>() {
        return Ok(a.readonly().as_array().to_vec());
    }
    let np = py.import("numpy")?;
    let array = np.call_method1("asarray", (actions,))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        let dtype = array.getattr("dtype")?.str()?.to_string();
        return Err(err(format!("actions must be integers, not {dtype}")));
    }
    let converted = array.call_method1("astype", (np.getattr("int64")?,))?;
    let converted = converted
        .cast_into::<PyArray1<i64>>()
        .map_err(|_| err("actions must be a one-dimensional sequence of integers"))?;
    let view = converted.readonly();
    Ok(view.as_array().to_vec())
}

impl PyVecEnv {
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("action_mask", self.buffers.action_mask.bind(py))?;
        d.set_item("to_play", self.buffers.to_play.bind(py))?;
        Ok(d)
    }

    fn step_actions(&mut self, py: Python<'_>, actions: &[i64]) -> PyResult<()> {
        self.with_outputs(py, |env, out| each_env!(env, e => e.step(actions, out)))
    }

    /// Start every game afresh, re-seeded if `seed` is given.
    fn reset_all(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        self.with_outputs(py, |env, out| each_env!(env, e => e.reset(seed, out)))
    }

    /// Borrow the arrays writable and run `f` on them with the GIL released.
    fn with_outputs(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut AnyEnv, BatchOutputs<'_>) -> Result<(), damone::selfplay::BatchError> + Send,
    ) -> PyResult<()> {
        let b = &self.buffers;
        let mut planes = b.observations.bind(py).try_readwrite().map_err(err)?;
        let mut masks = b.action_mask.bind(py).try_readwrite().map_err(err)?;
        let mut rewards = b.rewards.bind(py).try_readwrite().map_err(err)?;
        let mut terminated = b.terminated.bind(py).try_readwrite().map_err(err)?;
        let mut truncated = b.truncated.bind(py).try_readwrite().map_err(err)?;
        let mut to_play = b.to_play.bind(py).try_readwrite().map_err(err)?;
        for a in [
            planes.is_contiguous(),
            masks.is_contiguous(),
            rewards.is_contiguous(),
        ] {
            if !a {
                return Err(err(
                    "the environment's arrays were replaced by non-contiguous ones",
                ));
            }
        }
        let out = BatchOutputs {
            planes: planes.as_slice_mut().map_err(err)?,
            masks: masks.as_slice_mut().map_err(err)?,
            rewards: rewards.as_slice_mut().map_err(err)?,
            terminated: terminated.as_slice_mut().map_err(err)?,
            truncated: truncated.as_slice_mut().map_err(err)?,
            to_play: to_play.as_slice_mut().map_err(err)?,
        };
        let env = &mut self.env;
        py.detach(|| f(env, out)).map_err(err)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyVecEnv>()?;
    Ok(())
}

/// (planes, rows, cols) of an environment's observations.
fn board_shape<P: Board>(env: &damone::selfplay::BatchEnv<P>) -> (usize, usize, usize) {
    (env.options().inputs.planes(), P::CELLS.rows(), P::CELLS.cols())
}
