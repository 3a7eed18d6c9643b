//! `search`: damone's MCTS on a game, guided by a Python callable or by a
//! loaded network player; `SearchResult` its report.

use crate::game::{each_game, PyGame, Wrap};
use crate::player::PyPlayer;
use crate::{err, inputs_named};
use damone::game::Game;
use damone::mcts::{
    search as run_search, EvalRequest, Evaluation, Evaluator, SearchAlgorithm, SearchParams, Tree, Wdl,
};
use damone::net::{policy_indices, Board, Inputs, NetEvaluator, Observation};
use damone::util::rng_stream;
use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// An evaluator that calls Python: `f(observations, action_mask)` with
/// float32 `B x planes x rows x cols` and bool `B x num_actions` arrays
/// (the game's board), returning `(policy_logits, values)`: logits `B x
/// num_actions`, values `B` in
/// [-1, 1] or `B x 3` win/draw/loss probabilities, for the side to move.
struct CallableEvaluator {
    f: Py<PyAny>,
    inputs: Inputs,
    /// The first error the callable raised; the search finishes on
    /// uniform evaluations and the error is raised afterwards.
    error: Option<PyErr>,
}

fn uniform(n: usize) -> Evaluation {
    Evaluation {
        priors: vec![1.0 / n.max(1) as f32; n],
        wdl: Wdl::DRAW,
        material: 0.0,
    }
}

/// Softmax of `logits` at `indices`.
fn priors_at(logits: &[f32], indices: &[u16]) -> Vec<f32> {
    let max = indices
        .iter()
        .map(|&i| logits[i as usize])
        .fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = indices
        .iter()
        .map(|&i| (logits[i as usize] - max).exp())
        .collect();
    let sum: f32 = e.iter().sum();
    e.into_iter().map(|x| x / sum).collect()
}

fn wdl_of(values: &[f32], i: usize, columns: usize) -> Wdl {
    if columns == 3 {
        let s = values[3 * i..3 * i + 3].iter().sum::<f32>().max(1e-9);
        return Wdl::new(values[3 * i] / s, values[3 * i + 1] / s, values[3 * i + 2] / s);
    }
    let v = values[i].clamp(-1.0, 1.0);
    Wdl::new((1.0 + v) / 2.0, 0.0, (1.0 - v) / 2.0)
}

/// A float32 C-contiguous copy of `x` (any array-like) and its shape.
fn floats(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<(Vec<f32>, Vec<usize>)> {
    let np = py.import("numpy")?;
    let a = np.call_method1("ascontiguousarray", (x, np.getattr("float32")?))?;
    let a = a
        .cast_into::<numpy::PyArrayDyn<f32>>()
        .map_err(|e| err(e.to_string()))?;
    let shape = a.shape().to_vec();
    Ok((a.readonly().as_slice().map_err(err)?.to_vec(), shape))
}

impl CallableEvaluator {
    fn call<P: Board>(&self, batch: &[EvalRequest<'_, P>]) -> PyResult<Vec<Evaluation>> {
        let board = P::CELLS;
        let (n, k, moves) = (
            batch.len(),
            self.inputs.planes() * board.area(),
            board.policy_size(),
        );
        let mut planes = vec![0.0f32; n * k];
        let mut masks = vec![false; n * moves];
        let mut indices = Vec::with_capacity(n);
        for (i, r) in batch.iter().enumerate() {
            Observation::of_game(r.game, self.inputs)
                .write_planes(self.inputs, &mut planes[i * k..(i + 1) * k]);
            let idx = policy_indices(r.game.position(), r.moves);
            for &a in &idx {
                masks[i * moves + a as usize] = true;
            }
            indices.push(idx);
        }
        Python::attach(|py| {
            let shape = [n, self.inputs.planes(), board.rows(), board.cols()];
            let obs = PyArray1::from_vec(py, planes).reshape(shape)?;
            let mask = PyArray1::from_vec(py, masks).reshape([n, moves])?;
            let out = self.f.bind(py).call1((obs, mask))?;
            let (logits, values): (Bound<'_, PyAny>, Bound<'_, PyAny>) = out
                .extract()
                .map_err(|_| err("the evaluator must return (policy_logits, values)"))?;
            let (logits, lshape) = floats(py, &logits)?;
            let (values, vshape) = floats(py, &values)?;
            let columns = if vshape.len() == 2 { vshape[1] } else { 1 };
            if lshape != [n, moves] || vshape[0] != n || !(columns == 1 || columns == 3) || vshape.len() > 2 {
                return Err(err(format!(
                    "the evaluator returned logits of shape {lshape:?} and values of shape {vshape:?}; expected ({n}, {moves}) and ({n},) or ({n}, 3)"
                )));
            }
            Ok(indices
                .iter()
                .enumerate()
                .map(|(i, idx)| Evaluation {
                    priors: priors_at(&logits[i * moves..(i + 1) * moves], idx),
                    wdl: wdl_of(&values, i, columns),
                    material: 0.0,
                })
                .collect())
        })
    }
}

impl<P: Board> Evaluator<P> for CallableEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<'_, P>]) -> Vec<Evaluation> {
        if self.error.is_none() {
            match self.call(batch) {
                Ok(e) => return e,
                Err(e) => self.error = Some(e),
            }
        }
        batch.iter().map(|r| uniform(r.moves.len())).collect()
    }
}

/// What a search found at the root, one entry per legal move (in the order
/// of `Game.legal_moves()`).
#[pyclass(name = "SearchResult", module = "damone", frozen, get_all)]
pub struct PySearchResult {
    /// The legal moves as text.
    pub moves: Vec<String>,
    /// Their network actions (policy indices).
    pub actions: Vec<u16>,
    /// The number of actions on the game's board.
    pub num_actions: usize,
    /// Visits of each move.
    pub visits: Vec<u32>,
    /// The evaluator's prior of each move.
    pub priors: Vec<f32>,
    /// Mean value of each move for the side to move, in [-1, 1] (None if unvisited).
    pub q: Vec<Option<f32>>,
    /// The search's policy target (visit distribution, or Gumbel's improved policy).
    pub policy: Vec<f32>,
    /// The root's (win, draw, loss) estimate for the side to move.
    pub wdl: (f32, f32, f32),
    /// The move the search would play.
    pub best: String,
    /// Simulations run.
    pub simulations: u32,
}

#[pymethods]
impl PySearchResult {
    /// The policy target as a float32 array of the board's actions (zero
    /// off the legal actions).
    fn policy_array<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        let mut out = vec![0.0f32; self.num_actions];
        for (&a, &p) in self.actions.iter().zip(&self.policy) {
            out[a as usize] = p;
        }
        PyArray1::from_vec(py, out)
    }
    fn __repr__(&self) -> String {
        format!(
            "SearchResult(best='{}', simulations={}, wdl=({:.3}, {:.3}, {:.3}))",
            self.best, self.simulations, self.wdl.0, self.wdl.1, self.wdl.2
        )
    }
}

/// Run one search on `game` and report it.
pub fn report<P: Wrap>(
    game: &Game<P>,
    params: SearchParams,
    eval: &mut dyn Evaluator<P>,
    seed: u64,
) -> PyResult<PySearchResult> {
    if let Some(o) = game.outcome() {
        return Err(err(format!("the game is over: {}", o.over_message())));
    }
    let mut tree = Tree::new(game, params, rng_stream(seed, "python-search", 0));
    let r = run_search(&mut tree, eval).ok_or_else(|| err("the search returned no move"))?;
    let pos = game.position();
    Ok(PySearchResult {
        moves: r.moves.iter().map(|m| pos.move_text(m)).collect(),
        actions: policy_indices(pos, &r.moves),
        num_actions: P::CELLS.policy_size(),
        visits: r.visits,
        priors: r.priors,
        q: r.q,
        policy: r.policy,
        wdl: (r.wdl.win, r.wdl.draw, r.wdl.loss),
        best: pos.move_text(&r.best),
        simulations: r.simulations,
    })
}

fn params(simulations: u32, algorithm: &str, c_puct: Option<f32>, batch: u32) -> PyResult<SearchParams> {
    if simulations == 0 || batch == 0 {
        return Err(err("simulations and batch_size must be at least 1"));
    }
    let mut p = SearchParams::default().for_play(simulations);
    p.algorithm = match algorithm {
        "puct" => SearchAlgorithm::Puct,
        "gumbel" => SearchAlgorithm::Gumbel,
        other => return Err(err(format!("unknown algorithm '{other}': puct or gumbel"))),
    };
    if let Some(c) = c_puct {
        p.c_puct = c;
    }
    p.leaves_per_tree = batch;
    Ok(p)
}

/// MCTS on `game` guided by `evaluator`: a loaded network `Player`, or a
/// callable `f(observations, action_mask) -> (policy_logits, values)`
/// (see the package docs). `batch_size` leaves are evaluated per call.
#[pyfunction]
#[pyo3(signature = (game, evaluator, simulations=64, *, algorithm="puct", c_puct=None, inputs="basic", batch_size=8, seed=0))]
#[allow(clippy::too_many_arguments)]
fn search(
    py: Python<'_>,
    game: &PyGame,
    evaluator: &Bound<'_, PyAny>,
    simulations: u32,
    algorithm: &str,
    c_puct: Option<f32>,
    inputs: &str,
    batch_size: u32,
    seed: u64,
) -> PyResult<PySearchResult> {
    let params = params(simulations, algorithm, c_puct, batch_size)?;
    if let Ok(player) = evaluator.cast::<PyPlayer>() {
        let mut player = player.borrow_mut();
        player.check_game(&game.inner)?;
        let net = player.network()?;
        drop(player);
        let g = game.inner.clone();
        return py.detach(|| {
            each_game!(&g, g => {
                let mut eval = NetEvaluator::on_device(&net.net, &net.device);
                report(g, params, &mut eval, seed)
            })
        });
    }
    if !evaluator.is_callable() {
        return Err(err(
            "evaluator must be a Player or a callable f(observations, action_mask) -> (logits, values)",
        ));
    }
    let mut eval = CallableEvaluator {
        f: evaluator.clone().unbind(),
        inputs: inputs_named(inputs)?,
        error: None,
    };
    let g = game.inner.clone();
    let result = py.detach(|| each_game!(&g, g => report(g, params, &mut eval, seed)));
    match eval.error {
        Some(e) => Err(e),
        None => result,
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySearchResult>()?;
    m.add_function(wrap_pyfunction!(search, m)?)?;
    Ok(())
}
