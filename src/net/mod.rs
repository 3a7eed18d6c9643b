//! The neural network: input encoding and policy indices ([`encode`]), the
//! burn model ([`model`]), [`NetEvaluator`] implementing the search's
//! `Evaluator` trait, and saving/loading of weights (burnpack bytes).

pub mod encode;
pub mod model;

pub use encode::{policy_indices, reflect_index, Observation, PLANES, POLICY_SIZE};
pub use model::{ModelConfig, Net};

use crate::mcts::{EvalRequest, Evaluation, Evaluator};
use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::activation::softmax;
use burn::tensor::{Bytes, Device, Tensor, TensorData};
use std::path::Path;
use std::time::{Duration, Instant};

/// Why weights could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error("cannot read {0}: {1}")]
    Io(String, std::io::Error),
    #[error("{0} is not a valid weights file: {1}")]
    Format(String, String),
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
    cfg.init(device)
        .try_load_record(record)
        .map_err(|e| WeightsError::Mismatch(what.to_string(), format!("{cfg:?}"), e.to_string()))
}

/// Load a network of shape `cfg` from a burnpack file.
pub fn load_net(cfg: &ModelConfig, path: &Path, device: &Device) -> Result<Net, WeightsError> {
    let what = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| WeightsError::Io(what.clone(), e))?;
    net_from_bytes(cfg, bytes, device, &what)
}

/// Input planes of a batch of observations as a `[B, PLANES, 8, 8]` tensor.
pub fn planes_tensor(obs: &[Observation], device: &Device) -> Tensor<4> {
    let n = obs.len();
    let mut data = vec![0.0f32; n * PLANES * 64];
    for (o, chunk) in obs.iter().zip(data.chunks_mut(PLANES * 64)) {
        o.write_planes(chunk);
    }
    Tensor::from_data(TensorData::new(data, [n, PLANES, 8, 8]), device)
}

/// Evaluates positions with the network (inference mode).
pub struct NetEvaluator {
    net: Net,
    device: Device,
    /// Positions evaluated so far.
    pub positions: u64,
    /// Time spent in `evaluate` so far.
    pub time: Duration,
    /// Largest batch given to one forward pass (larger requests are split).
    pub max_batch: usize,
}

impl NetEvaluator {
    /// Wrap a network; it is switched to inference mode.
    pub fn new(net: &Net, device: Device) -> Self {
        net.sync_running_stats();
        NetEvaluator {
            net: net.valid(),
            device,
            positions: 0,
            time: Duration::ZERO,
            max_batch: 1024,
        }
    }

    /// Policy logits and WDL probabilities for a batch of observations.
    pub fn infer(&self, obs: &[Observation]) -> (Vec<f32>, Vec<f32>) {
        let x = planes_tensor(obs, &self.device);
        let (p, v) = self.net.forward(x);
        let v = softmax(v, 1);
        let p = p.into_data().try_into_vec::<f32>().expect("f32 policy");
        let v = v.into_data().try_into_vec::<f32>().expect("f32 value");
        (p, v)
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<'_>]) -> Vec<Evaluation> {
        let t = Instant::now();
        let mut out = Vec::with_capacity(batch.len());
        for chunk in batch.chunks(self.max_batch.max(1)) {
            let obs: Vec<Observation> = chunk.iter().map(|r| Observation::of_game(r.game)).collect();
            let (p, v) = self.infer(&obs);
            for (i, r) in chunk.iter().enumerate() {
                let idx = policy_indices(r.game.position(), r.moves);
                let logits = &p[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
                let m = idx
                    .iter()
                    .map(|&j| logits[j as usize])
                    .fold(f32::NEG_INFINITY, f32::max);
                let ex: Vec<f32> = idx.iter().map(|&j| (logits[j as usize] - m).exp()).collect();
                let s: f32 = ex.iter().sum();
                out.push(Evaluation {
                    priors: ex.into_iter().map(|x| x / s).collect(),
                    wdl: [v[i * 3], v[i * 3 + 1], v[i * 3 + 2]],
                });
            }
        }
        self.positions += batch.len() as u64;
        self.time += t.elapsed();
        out
    }
}
