//! The neural network: input encoding and policy indices ([`encode`]), the
//! burn model ([`model`]), the device it runs on ([`device`]),
//! [`NetEvaluator`] implementing the search's `Evaluator` trait, and
//! saving/loading of weights (burnpack bytes).

pub mod device;
pub mod encode;
pub mod inference;
pub mod model;
pub(crate) mod winograd;

pub use device::{ComputeDevice, DeviceChoice, DeviceError};
pub use encode::{
    index_under, policy_indices, policy_indices_into, Board, BoardCells, Inputs, Observation, Symmetry,
    ENCODING_VERSION, MAX_PLANES, POLICY_SIZE,
};
pub use inference::{ConvAlgorithm, FastNet, SearchOutputs};
pub use model::{ModelConfig, Net, PolicyHeadKind, AUX_OUTPUTS};

use crate::mcts::{EvalRequest, Evaluation, Evaluator, Wdl};
use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device, Tensor, TensorData};
use std::path::Path;
use std::time::{Duration, Instant};

/// Why weights could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The weights file could not be read.
    #[error("cannot read {0}: {1}")]
    Io(String, std::io::Error),
    /// The file is not a weights file.
    #[error("{0} is not a valid weights file: {1}")]
    Format(String, String),
    /// The weights do not fit the model configuration.
    #[error("{0} does not match the model configuration ({1}): {2}")]
    Mismatch(String, String, String),
}

/// The weights of a network as burnpack bytes.
pub fn weights_to_bytes(net: &Net) -> Result<Vec<u8>, String> {
    net.sync_running_stats();
    let bytes = net
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| e.to_string())?;
    Ok(bytes.to_vec())
}

/// A network of shape `cfg` with weights from burnpack bytes.
pub fn net_from_bytes(
    cfg: &ModelConfig,
    bytes: Vec<u8>,
    device: &Device,
    what: &str,
) -> Result<Net, WeightsError> {
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes))
        .map_err(|e| WeightsError::Format(what.to_string(), e.to_string()))?;
    cfg.init(device).try_load_record(record).map_err(|e| {
        // burn's message lists every tensor; keep its first line, cut.
        let msg = e.to_string();
        let first = msg.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        let first: String = first.chars().take(160).collect();
        WeightsError::Mismatch(what.to_string(), cfg.describe(), first)
    })
}

/// Load a network of shape `cfg` from a burnpack file.
pub fn load_net(cfg: &ModelConfig, path: &Path, device: &Device) -> Result<Net, WeightsError> {
    let what = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| WeightsError::Io(what.clone(), e))?;
    net_from_bytes(cfg, bytes, device, &what)
}

/// Input planes of the set `inputs` for a batch of observations (of one
/// board; none gives the 8x8 board's shape), as a `[B, inputs.planes(),
/// rows, cols]` tensor.
pub fn planes_tensor(obs: &[Observation], inputs: Inputs, device: &Device) -> Tensor<4> {
    let n = obs.len();
    let planes = inputs.planes();
    let board = obs.first().map_or(BoardCells::DARK, |o| o.board);
    let area = board.area();
    let mut data = vec![0.0f32; n * planes * area];
    for (o, chunk) in obs.iter().zip(data.chunks_mut(planes * area)) {
        debug_assert_eq!(o.board, board, "one board per batch");
        o.write_planes(inputs, chunk);
    }
    Tensor::from_data(
        TensorData::new(data, [n, planes, board.rows(), board.cols()]),
        device,
    )
}

/// The forward pass an evaluator runs.
enum Forward {
    /// The CPU's fast inference path (8x8 boards).
    Fast(Box<FastNet>),
    /// burn's forward pass (inference mode): on a GPU, and on the CPU for
    /// boards the fast path does not cover.
    Burn(Box<Net>, Device),
}

impl Forward {
    /// The input planes the network reads.
    fn inputs(&self) -> Inputs {
        match self {
            Forward::Fast(f) => f.inputs(),
            Forward::Burn(net, _) => net.inputs(),
        }
    }

    /// Policy logits `[n, policy size]` and value logits `[n, 3]`.
    fn forward(&self, obs: &[Observation]) -> (Vec<f32>, Vec<f32>) {
        match self {
            Forward::Fast(f) => f.forward(obs),
            Forward::Burn(net, device) => {
                let (p, v) = net.forward(planes_tensor(obs, net.inputs(), device));
                (output_vec(p), output_vec(v))
            }
        }
    }

    /// Policy logits at `idx[i]`, value logits `[n, 3]` and the predicted
    /// final material `[n]`.
    fn evaluate(&self, obs: &[Observation], idx: &[Vec<u16>]) -> SearchOutputs {
        match self {
            Forward::Fast(f) => f.evaluate(obs, idx),
            Forward::Burn(net, device) => {
                let o = net.forward_all(planes_tensor(obs, net.inputs(), device));
                let moves = net.board().policy_size();
                let p = output_vec(o.policy);
                let logits = idx
                    .iter()
                    .enumerate()
                    .map(|(i, ix)| ix.iter().map(|&j| p[i * moves + j as usize]).collect())
                    .collect();
                let material = match o.aux {
                    Some(a) => output_vec(a).chunks_exact(AUX_OUTPUTS).map(|r| r[0]).collect(),
                    None => vec![0.0; obs.len()],
                };
                SearchOutputs {
                    logits,
                    value: output_vec(o.value),
                    material,
                }
            }
        }
    }
}

/// A network output's values, read back from its device.
fn output_vec(t: Tensor<2>) -> Vec<f32> {
    t.into_data()
        .try_into_vec::<f32>()
        .expect("network outputs are f32")
}

/// Evaluates positions with the network (inference mode): on the CPU with
/// the fast inference path ([`FastNet`]) built from the burn weights where
/// the board is 8x8, else (and on a GPU) with burn's own forward pass.
pub struct NetEvaluator {
    forward: Forward,
    /// Positions evaluated so far.
    pub positions: u64,
    /// Time spent in `evaluate` so far.
    pub time: Duration,
    /// Largest batch given to one forward pass (larger requests are split).
    pub max_batch: usize,
}

impl NetEvaluator {
    /// Fold the network's weights into the CPU's fast inference path; a
    /// network of a board the fast path does not cover ([`FastNet::covers`])
    /// runs burn's forward pass on the CPU (docs/network-speed.md measures
    /// both).
    pub fn new(net: &Net) -> Self {
        if !FastNet::covers(net.board()) {
            net.sync_running_stats();
            let d = Device::flex();
            return Self::with_forward(Forward::Burn(Box::new(net.valid().to_device(&d)), d));
        }
        Self::with_fast(FastNet::from_net(net))
    }

    /// An evaluator of `net` (on any device, training or not) running on
    /// `device`: the fast path on the CPU, burn's forward pass (weights
    /// copied in inference mode) on a GPU.
    pub fn on_device(net: &Net, device: &ComputeDevice) -> Self {
        if !device.is_gpu() {
            return Self::new(net);
        }
        net.sync_running_stats();
        let d = device.burn().clone();
        let inference = net.valid().to_device(&d);
        Self::with_forward(Forward::Burn(Box::new(inference), d))
    }

    /// An evaluator over a given fast network.
    pub fn with_fast(fast: FastNet) -> Self {
        Self::with_forward(Forward::Fast(Box::new(fast)))
    }

    fn with_forward(forward: Forward) -> Self {
        NetEvaluator {
            forward,
            positions: 0,
            time: Duration::ZERO,
            max_batch: 1024,
        }
    }

    /// The input planes the network reads: observations given to
    /// [`NetEvaluator::infer`] must be made for them.
    pub fn inputs(&self) -> Inputs {
        self.forward.inputs()
    }

    /// Policy logits `[n, policy size]` and WDL probabilities `[n, 3]` for a
    /// batch of observations.
    pub fn infer(&self, obs: &[Observation]) -> (Vec<f32>, Vec<f32>) {
        let (p, mut v) = self.forward.forward(obs);
        for wdl in v.chunks_exact_mut(3) {
            softmax_in_place(wdl);
        }
        (p, v)
    }
}

/// Softmax of a small slice, in place.
fn softmax_in_place(x: &mut [f32]) {
    let m = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut s = 0.0;
    for v in x.iter_mut() {
        *v = (*v - m).exp();
        s += *v;
    }
    for v in x.iter_mut() {
        *v /= s;
    }
}

impl<P: Board> Evaluator<P> for NetEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<'_, P>]) -> Vec<Evaluation> {
        let t = Instant::now();
        let mut out = Vec::with_capacity(batch.len());
        let inputs = self.forward.inputs();
        for chunk in batch.chunks(self.max_batch.max(1)) {
            let obs: Vec<Observation> = chunk
                .iter()
                .map(|r| Observation::of_game(r.game, inputs))
                .collect();
            let idx: Vec<Vec<u16>> = chunk
                .iter()
                .map(|r| policy_indices(r.game.position(), r.moves))
                .collect();
            let o = self.forward.evaluate(&obs, &idx);
            let v = &o.value;
            for (i, mut priors) in o.logits.into_iter().enumerate() {
                softmax_in_place(&mut priors);
                let mut wdl = [v[i * 3], v[i * 3 + 1], v[i * 3 + 2]];
                softmax_in_place(&mut wdl);
                out.push(Evaluation {
                    priors,
                    wdl: Wdl::from_array(wdl),
                    material: o.material[i],
                });
            }
        }
        self.positions += batch.len() as u64;
        self.time += t.elapsed();
        out
    }
}

/// `count` games, each after a random playout of `i % 40` plies from
/// `start` (games that ended are skipped): a spread of real positions for
/// benchmarks and tests of the network. Seeded.
pub fn bench_games<P: crate::game::GamePosition>(
    start: P,
    count: usize,
    seed: u64,
) -> Vec<crate::game::Game<P>> {
    use crate::game::{DrawRules, Game};
    use rand::Rng as _;
    let mut rng = crate::util::rng_stream(seed, "bench-games", 0);
    let mut games = Vec::with_capacity(count);
    let mut i = 0usize;
    while games.len() < count {
        let mut g = Game::new(start, DrawRules::default());
        for _ in 0..(i % 40) {
            let ms = g.position().legal_moves();
            if g.outcome_with(&ms).is_some() {
                break;
            }
            g.play_unchecked(&ms[rng.random_range(0..ms.len())]);
        }
        i += 1;
        if g.outcome().is_none() {
            games.push(g);
        }
    }
    games
}
