//! The optimisers, written here rather than taken from burn so that their
//! state serialises to the same bytes every time and restores exactly
//! (checkpoints must resume bit for bit).
//!
//! - **AdamW**: Adam moments with bias correction and decoupled weight decay.
//! - **SGD**: heavy-ball momentum with L2 weight decay.
//!
//! Gradients are clipped per parameter tensor to `clip` in L2 norm (0 = off).

use crate::util::bin::{BinError, Reader, Writer};
use burn::module::{Module, ModuleMapper, Param, ParamId};
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use std::collections::BTreeMap;

const MAGIC: &[u8; 8] = b"DMNOPTIM";
const VERSION: u32 = 1;

/// Which update rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rule {
    /// AdamW with its moment decay rates and epsilon.
    AdamW {
        /// Decay of the first moment.
        beta1: f32,
        /// Decay of the second moment.
        beta2: f32,
        /// Added to the second moment's root.
        eps: f32,
    },
    /// SGD with momentum.
    Sgd {
        /// The momentum's decay.
        momentum: f32,
    },
}

/// Optimiser state: step count and per-parameter moment buffers (flattened).
pub struct Optimizer {
    /// The update rule.
    pub rule: Rule,
    /// Decoupled weight decay per step (times the learning rate).
    pub weight_decay: f32,
    /// The gradients' global norm is clipped to this (0 = no clipping).
    pub clip: f32,
    /// Updates made.
    pub t: u64,
    state: BTreeMap<u64, (Tensor<1>, Option<Tensor<1>>)>,
    device: Device,
}

impl Optimizer {
    /// `device` is the plain (non-autodiff) device the gradients live on.
    pub fn new(rule: Rule, weight_decay: f32, clip: f32, device: Device) -> Self {
        Optimizer {
            rule,
            weight_decay,
            clip,
            t: 0,
            state: BTreeMap::new(),
            device,
        }
    }

    /// Apply one update with `grads` to `module` at learning rate `lr`.
    pub fn step<M: Module>(&mut self, lr: f64, module: M, mut grads: GradientsParams) -> M {
        self.t += 1;
        let mut m = Mapper {
            opt: self,
            grads: &mut grads,
            lr: lr as f32,
        };
        module.map(&mut m)
    }

    fn update(&mut self, id: u64, x: Tensor<1>, g: Tensor<1>, lr: f32) -> Tensor<1> {
        let n = x.dims()[0];
        let g = if self.clip > 0.0 {
            let norm = g.clone().powi_scalar(2).sum().sqrt().add_scalar(1e-6);
            let scale = norm.recip().mul_scalar(self.clip).clamp_max(1.0);
            g * scale
        } else {
            g
        };
        let dev = g.device();
        let zeros = || Tensor::<1>::zeros([n], &dev);
        match self.rule {
            Rule::AdamW { beta1, beta2, eps } => {
                let (m, v) = self.state.remove(&id).unwrap_or_else(|| (zeros(), Some(zeros())));
                let v = v.unwrap_or_else(zeros);
                let m = m.mul_scalar(beta1) + g.clone().mul_scalar(1.0 - beta1);
                let v = v.mul_scalar(beta2) + g.powi_scalar(2).mul_scalar(1.0 - beta2);
                let t = self.t as i32;
                let c1 = 1.0 - beta1.powi(t);
                let c2 = 1.0 - beta2.powi(t);
                let delta = m.clone().div_scalar(c1) / v.clone().div_scalar(c2).sqrt().add_scalar(eps);
                let out = x.mul_scalar(1.0 - lr * self.weight_decay) - delta.mul_scalar(lr);
                self.state.insert(id, (m, Some(v)));
                out
            }
            Rule::Sgd { momentum } => {
                let g = if self.weight_decay > 0.0 {
                    g + x.clone().mul_scalar(self.weight_decay)
                } else {
                    g
                };
                let (buf, _) = self.state.remove(&id).unwrap_or_else(|| (zeros(), None));
                let buf = buf.mul_scalar(momentum) + g;
                let out = x - buf.clone().mul_scalar(lr);
                self.state.insert(id, (buf, None));
                out
            }
        }
    }

    /// The state as bytes (parameters in id order).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::header(MAGIC, VERSION);
        w.u64(self.t);
        w.u64(self.state.len() as u64);
        for (id, (m, v)) in &self.state {
            w.u64(*id);
            w.u64(m.dims()[0] as u64);
            w.u8(v.is_some() as u8);
            for t in std::iter::once(m).chain(v.iter()) {
                let data: Vec<f32> = t.to_data().try_into_vec::<f32>().unwrap_or_default();
                for x in data {
                    w.f32(x);
                }
            }
        }
        w.finish()
    }

    /// Restore state written by [`Optimizer::to_bytes`].
    pub fn load_bytes(&mut self, data: &[u8]) -> Result<(), BinError> {
        let mut r = Reader::new(data, "optimizer state");
        r.header(MAGIC, &[VERSION])?;
        let t = r.u64()?;
        let count = r.count(17)?;
        let mut state = BTreeMap::new();
        for _ in 0..count {
            let id = r.u64()?;
            let n = r.u64()?;
            if n > r.remaining() as u64 / 4 {
                return Err(r.invalid(format!("tensor of {n} values is longer than the file")));
            }
            let n = n as usize;
            let has_v = r.u8()? != 0;
            let mut read = || -> Result<Tensor<1>, BinError> {
                let bytes = r.take(n * 4)?;
                let v: Vec<f32> = bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                Ok(Tensor::from_data(TensorData::new(v, [n]), &self.device))
            };
            let m = read()?;
            let v = if has_v { Some(read()?) } else { None };
            state.insert(id, (m, v));
        }
        r.end()?;
        self.t = t;
        self.state = state;
        Ok(())
    }
}

struct Mapper<'a> {
    opt: &'a mut Optimizer,
    grads: &'a mut GradientsParams,
    lr: f32,
}

impl ModuleMapper for Mapper<'_> {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let (id, tensor, mapper) = param.consume();
        let Some(grad) = self.grads.remove::<D>(id) else {
            return Param::from_mapped_value(id, tensor, mapper);
        };
        let require_grad = tensor.is_require_grad();
        let strategy = tensor.gradient_checkpointing_strategy();
        let dims = tensor.dims();
        let n: usize = dims.iter().product();
        let x = tensor.inner().reshape([n]);
        let g = grad.reshape([n]);
        let updated = self.opt.update(id.val(), x, g, self.lr).reshape(dims);
        let mut p = Tensor::from_inner(updated);
        if let Some(s) = strategy {
            p = p.with_gradient_checkpointing_strategy(s);
        }
        if require_grad {
            p = p.require_grad();
        }
        Param::from_mapped_value(ParamId::from(id.val()), p, mapper)
    }
}
