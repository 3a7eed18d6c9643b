//! `read_samples`: a run's training samples (its replay window, or a
//! self-play shard from object storage) as NumPy arrays.

use crate::{err, game_kind, inputs_named};
use damone::cluster::Shard;
use damone::data::{ReplayWindow, Sample};
use damone::game::{GameKind, GamePosition};
use damone::net::{Board, Inputs, Observation};
use damone::run::Checkpoint;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;

/// The samples of a replay file or a shard, and the shard's PDN.
struct Read<P: GamePosition> {
    samples: Vec<Sample<P>>,
    pdn: Option<String>,
}

fn parse<P: Board>(bytes: &[u8], what: &str) -> Result<Read<P>, String> {
    if bytes.starts_with(b"DMNSHARD") {
        let shard = Shard::<P>::from_bytes(bytes).map_err(|e| format!("{what}: {e}"))?;
        return Ok(Read {
            samples: shard.samples,
            pdn: Some(shard.pdn),
        });
    }
    let window = ReplayWindow::<P>::from_bytes(bytes).map_err(|e| format!("{what}: {e}"))?;
    Ok(Read {
        samples: window.iter().cloned().collect(),
        pdn: None,
    })
}

/// The bytes to read and the game they hold where the path says it (a
/// checkpoint or run folder's config).
fn bytes_of(path: &Path) -> Result<(Vec<u8>, Option<GameKind>), String> {
    if path.is_dir() {
        let ck = Checkpoint::for_player(path, true).map_err(|e| e.to_string())?;
        let bytes = ck.read("replay.bin").map_err(|e| e.to_string())?;
        return Ok((bytes, Some(ck.config.game.kind().map_err(|e| e.to_string())?)));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok((bytes, None))
}

fn arrays<'py, P: Board>(py: Python<'py>, read: Read<P>, inputs: Inputs) -> PyResult<Bound<'py, PyDict>> {
    let n = read.samples.len();
    let board = P::CELLS;
    let (k, moves) = (inputs.planes() * board.area(), board.policy_size());
    let mut planes = vec![0.0f32; n * k];
    let mut policy = vec![0.0f32; n * moves];
    let mut mask = vec![false; n * moves];
    let (mut z, mut q) = (Vec::with_capacity(3 * n), Vec::with_capacity(3 * n));
    for (i, s) in read.samples.iter().enumerate() {
        Observation::new(&s.pos, s.repeated, s.no_progress, inputs)
            .write_planes(inputs, &mut planes[i * k..(i + 1) * k]);
        for &(a, p) in &s.policy {
            policy[i * moves + a as usize] = p;
            mask[i * moves + a as usize] = true;
        }
        z.extend(s.z.to_array());
        q.extend(s.q.to_array());
    }
    let d = PyDict::new(py);
    d.set_item("game", P::ID.name())?;
    d.set_item(
        "observations",
        PyArray1::from_vec(py, planes).reshape([n, inputs.planes(), board.rows(), board.cols()])?,
    )?;
    d.set_item("policy", PyArray1::from_vec(py, policy).reshape([n, moves])?)?;
    d.set_item("action_mask", PyArray1::from_vec(py, mask).reshape([n, moves])?)?;
    d.set_item("z", PyArray1::from_vec(py, z).reshape([n, 3])?)?;
    d.set_item("q", PyArray1::from_vec(py, q).reshape([n, 3])?)?;
    let setups: Vec<String> = read.samples.iter().map(|s| s.pos.to_setup()).collect();
    d.set_item("setups", setups)?;
    if let Some(pdn) = read.pdn {
        d.set_item("pdn", pdn)?;
    }
    Ok(d)
}

/// Training samples as NumPy arrays, from a checkpoint folder or run folder
/// (its newest checkpoint's replay window), a `replay.bin` file, or a
/// self-play shard (`.bin` from a cluster's object store). Returns a dict:
/// `observations` (N x planes x 8 x 8 float32, the network's inputs),
/// `policy` (N x POLICY_SIZE, the search's target), `action_mask` (the
/// legal actions), `z` (the game's result) and `q` (the search's value),
/// each N x 3 win/draw/loss for the side to move, `setups`, `game`, and a
/// shard's `pdn`. `game` is found from the folder's config, else tried.
#[pyfunction]
#[pyo3(signature = (path, game=None, inputs="basic"))]
fn read_samples<'py>(
    py: Python<'py>,
    path: &str,
    game: Option<&str>,
    inputs: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let inputs = inputs_named(inputs)?;
    let explicit = game.map(game_kind).transpose()?;
    let (bytes, found) = py.detach(|| bytes_of(Path::new(path))).map_err(err)?;
    let kinds: Vec<GameKind> = match explicit.or(found) {
        Some(k) => vec![k],
        None => GameKind::ALL.to_vec(),
    };
    let mut first_error = None;
    for kind in kinds {
        let result = damone::with_game!(kind, P => {
            match py.detach(|| parse::<P>(&bytes, path)) {
                Ok(read) => return arrays(py, read, inputs),
                Err(e) => e,
            }
        });
        first_error.get_or_insert(result);
    }
    Err(err(first_error.expect("at least one game tried")))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_samples, m)?)?;
    Ok(())
}
