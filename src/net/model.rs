//! The policy/value network: a residual convolutional tower over the
//! game's board (`model.board`: 8x8 for the shipped games, any other of up
//! to 128 cells) with a policy head over its moves
//! ([`BoardCells::policy_size`]) and a win/draw/loss
//! value head, and optionally (`model.aux_heads`) two auxiliary outputs
//! read from the value head's hidden layer, trained only: the final
//! material difference and the plies left ([`crate::data::AuxTargets`]);
//! and optionally (`model.reply_head`) a second policy head, also trained
//! only, that predicts the opponent's reply to the move about to be played
//! (KataGo's auxiliary opponent-policy target).

use super::encode::{BoardCells, Inputs};
use crate::util::range::{check, Bounds};
use burn::module::{Module, ModuleMapper, Param, ParamId, RunningState};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde::{Deserialize, Serialize};

/// Shape of the network. A key missing from a saved file (a player
/// file's header, a checkpoint's config) takes the value it had before the
/// key existed ([`ModelConfig::before_later_keys`]), so an old file keeps
/// its network; [`Default`] is configs/default.toml's `[model]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default = "ModelConfig::before_later_keys")]
pub struct ModelConfig {
    /// Residual blocks in the tower.
    pub blocks: usize,
    /// Channels of every tower convolution.
    pub channels: usize,
    /// Hidden units of the value head.
    pub value_hidden: usize,
    /// The policy head's form (`dense` or `bilinear`).
    pub policy_head: PolicyHeadKind,
    /// Planes of the policy head's 1x1 convolution: for the dense head the
    /// only features its dense layer reads (AlphaZero's head has 2; also
    /// the reply head's), for the bilinear head the features of each
    /// move's start square and of its end square.
    pub policy_planes: usize,
    /// The input planes the network reads (`basic` or `draughts`).
    pub inputs: Inputs,
    /// Auxiliary heads (final material difference, plies left): extra
    /// training targets; the search does not use them.
    pub aux_heads: bool,
    /// A head predicting the opponent's reply (trained only; the search
    /// does not use it).
    pub reply_head: bool,
    /// The board: its shape and the cells the policy index numbers, set
    /// from the run's game (`dark` for Damone and Italian draughts, `all`
    /// for Dameo; [`BoardCells`] names the others).
    pub board: BoardCells,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            blocks: 4,
            channels: 32,
            value_hidden: 64,
            policy_head: PolicyHeadKind::Bilinear,
            policy_planes: 16,
            inputs: Inputs::Basic,
            aux_heads: true,
            reply_head: false,
            board: BoardCells::DARK,
        }
    }
}

/// The policy head's form (`model.policy_head`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyHeadKind {
    /// AlphaZero's: a 1x1 convolution to `policy_planes` planes, batch
    /// norm, ReLU, and one dense layer from all of them to every move's
    /// logit.
    #[default]
    Dense,
    /// Per-move features: a 1x1 convolution to `2 * policy_planes` planes
    /// and batch norm give each square a start vector and an end vector;
    /// a move's logit is the dot product of its start square's start
    /// vector and its end square's end vector over `sqrt(policy_planes)`,
    /// plus a learnt bias per move (as lc0's attention policy, without
    /// the attention).
    Bilinear,
}

impl PolicyHeadKind {
    /// The name used in configuration files.
    pub fn name(self) -> &'static str {
        match self {
            PolicyHeadKind::Dense => "dense",
            PolicyHeadKind::Bilinear => "bilinear",
        }
    }
}

/// Held while a network's weights are drawn: the backend's generator is
/// one for the whole process.
static INIT_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl ModelConfig {
    /// The shape a saved file that lacks the later keys describes:
    /// AlphaZero's dense policy head with 2 planes, no auxiliary heads.
    pub fn before_later_keys() -> ModelConfig {
        ModelConfig {
            policy_head: PolicyHeadKind::Dense,
            policy_planes: 2,
            aux_heads: false,
            ..ModelConfig::default()
        }
    }

    /// Check every value; the error names the field.
    pub fn validate(&self) -> Result<(), String> {
        check("model.blocks", self.blocks, Bounds::Closed(1, 40))?;
        check("model.channels", self.channels, Bounds::Closed(4, 512))?;
        check("model.value_hidden", self.value_hidden, Bounds::Closed(1, 1024))?;
        check("model.policy_planes", self.policy_planes, Bounds::Closed(1, 32))?;
        if self.reply_head && self.policy_head != PolicyHeadKind::Dense {
            return Err(format!(
                "model.reply_head needs model.policy_head = \"dense\", got \"{}\"",
                self.policy_head.name()
            ));
        }
        Ok(())
    }

    /// The shape in one line, as error messages and `damone info` show it.
    pub fn describe(&self) -> String {
        format!(
            "blocks={} channels={} value_hidden={} policy_head={} policy_planes={} inputs={} aux_heads={} reply_head={} board={}",
            self.blocks,
            self.channels,
            self.value_hidden,
            self.policy_head.name(),
            self.policy_planes,
            self.inputs.name(),
            self.aux_heads,
            self.reply_head,
            self.board.name()
        )
    }

    /// A freshly initialised network on `device`. Weights come from the
    /// backend's generator and parameter ids are numbered in module order;
    /// [`ModelConfig::init_seeded`] gives the same bytes every time.
    pub fn init(&self, device: &Device) -> Net {
        let _alone = INIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        self.init_random(device).map(&mut NumberedIds(0))
    }

    /// [`ModelConfig::init`] right after seeding the generator through
    /// `seed_device`, with no other network initialised in between (the
    /// generator is one for the process, so two runs started at once in
    /// one process, as tests do, would otherwise draw from each other's).
    pub fn init_seeded(&self, device: &Device, seed_device: &Device, seed: u64) -> Net {
        let _alone = INIT_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        seed_device.seed(seed);
        self.init_random(device).map(&mut NumberedIds(0))
    }

    fn init_random(&self, device: &Device) -> Net {
        let conv = |i, o, k| {
            Conv2dConfig::new([i, o], [k, k])
                .with_padding(if k == 3 {
                    PaddingConfig2d::Same
                } else {
                    PaddingConfig2d::Valid
                })
                .with_bias(false)
                .init(device)
        };
        let c = self.channels;
        let pp = self.policy_planes;
        let (area, moves) = (self.board.area(), self.board.policy_size());
        let bilinear = self.policy_head == PolicyHeadKind::Bilinear;
        // Running statistics keep their own ids: number them too.
        let mut next = 1_000_000u64;
        let mut bn = |n| {
            let mut b = BatchNormConfig::new(n).init(device);
            for st in [&mut b.running_mean, &mut b.running_var] {
                next += 1;
                *st = RunningState::with_id(ParamId::from(next), st.value());
            }
            b
        };
        Net {
            stem: conv(self.inputs.planes(), c, 3),
            stem_bn: bn(c),
            blocks: (0..self.blocks)
                .map(|_| ResBlock {
                    conv1: conv(c, c, 3),
                    bn1: bn(c),
                    conv2: conv(c, c, 3),
                    bn2: bn(c),
                })
                .collect(),
            policy_conv: conv(c, if bilinear { 2 * pp } else { pp }, 1),
            policy_bn: bn(if bilinear { 2 * pp } else { pp }),
            policy_fc: (!bilinear).then(|| LinearConfig::new(pp * area, moves).init(device)),
            value_conv: conv(c, 1, 1),
            value_bn: bn(1),
            value_fc1: LinearConfig::new(area, self.value_hidden).init(device),
            value_fc2: LinearConfig::new(self.value_hidden, 3).init(device),
            aux_fc: self
                .aux_heads
                .then(|| LinearConfig::new(self.value_hidden, AUX_OUTPUTS).init(device)),
            reply: self.reply_head.then(|| PolicyHead {
                conv: conv(c, pp, 1),
                bn: bn(pp),
                fc: LinearConfig::new(pp * area, moves).init(device),
            }),
            policy_bias: bilinear.then(|| Param::from_tensor(Tensor::zeros([moves], device))),
            board: self.board,
        }
    }
}

/// One residual block: conv-BN-ReLU-conv-BN, skip, ReLU.
#[derive(Module, Debug)]
pub struct ResBlock {
    pub(crate) conv1: Conv2d,
    pub(crate) bn1: BatchNorm,
    pub(crate) conv2: Conv2d,
    pub(crate) bn2: BatchNorm,
}

impl ResBlock {
    /// `[B, C, rows, cols]` -> `[B, C, rows, cols]`.
    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let y = relu(self.bn1.forward(self.conv1.forward(x.clone())));
        let y = self.bn2.forward(self.conv2.forward(y));
        relu(y + x)
    }
}

/// A policy head: 1x1 convolution to `model.policy_planes` planes, batch norm, ReLU, and a
/// fully connected layer to the board's policy logits.
#[derive(Module, Debug)]
pub struct PolicyHead {
    pub(crate) conv: Conv2d,
    pub(crate) bn: BatchNorm,
    pub(crate) fc: Linear,
}

impl PolicyHead {
    /// `[B, C, rows, cols]` -> `[B, policy size]` logits.
    fn forward(&self, h: Tensor<4>) -> Tensor<2> {
        policy_logits(&self.conv, &self.bn, &self.fc, h)
    }
}

/// The bilinear policy head ([`PolicyHeadKind::Bilinear`]): `[B, C, rows,
/// cols]` -> 1x1 conv, BN -> start and end vectors at the board's `n`
/// playing cells -> `[B, slots * n * n]` logits (the slots of a start and
/// end share the product and differ by their bias).
fn bilinear_logits(
    conv: &Conv2d,
    bn: &BatchNorm,
    bias: &Param<Tensor<1>>,
    board: BoardCells,
    h: Tensor<4>,
) -> Tensor<2> {
    let [batch, _, _, _] = h.dims();
    let z = bn.forward(conv.forward(h));
    let [_, planes, rows, cols] = z.dims();
    let d = planes / 2;
    let n = board.count();
    let cells: Vec<i64> = board.cells().map(|c| c as i64).collect();
    let cells = Tensor::<1, Int>::from_data(TensorData::new(cells, [n]), &z.device());
    let z = z.reshape([batch, planes, rows * cols]).select(2, cells);
    let from = z.clone().narrow(1, 0, d).swap_dims(1, 2);
    let to = z.narrow(1, d, d);
    let products = from
        .matmul(to)
        .mul_scalar(1.0 / (d as f64).sqrt())
        .reshape([batch, n * n]);
    products.repeat_dim(1, board.slots()) + bias.val().unsqueeze_dim(0)
}

/// The policy head's computation, shared by the policy and reply heads:
/// `[B, C, rows, cols]` -> 1x1 conv, BN, ReLU -> `[B, planes * rows *
/// cols]` -> dense.
fn policy_logits(conv: &Conv2d, bn: &BatchNorm, fc: &Linear, h: Tensor<4>) -> Tensor<2> {
    let [batch, _, _, _] = h.dims();
    let p = relu(bn.forward(conv.forward(h)));
    let [_, planes, rows, cols] = p.dims();
    fc.forward(p.reshape([batch, planes * rows * cols]))
}

/// Everything the network computes, as training reads it.
pub struct Outputs {
    /// Policy logits `[B, policy size]`.
    pub policy: Tensor<2>,
    /// Win/draw/loss logits `[B, 3]`.
    pub value: Tensor<2>,
    /// Auxiliary outputs `[B, AUX_OUTPUTS]` (material difference, plies
    /// left), if the network has them.
    pub aux: Option<Tensor<2>>,
    /// Logits `[B, policy size]` of the opponent's reply, in the frame of
    /// the position after the move (its side to move), if the network has
    /// the head.
    pub reply: Option<Tensor<2>>,
}

/// The policy/value network.
#[derive(Module, Debug)]
pub struct Net {
    pub(crate) stem: Conv2d,
    pub(crate) stem_bn: BatchNorm,
    pub(crate) blocks: Vec<ResBlock>,
    pub(crate) policy_conv: Conv2d,
    pub(crate) policy_bn: BatchNorm,
    /// The dense head's layer (`policy_head = "dense"`).
    pub(crate) policy_fc: Option<Linear>,
    pub(crate) value_conv: Conv2d,
    pub(crate) value_bn: BatchNorm,
    pub(crate) value_fc1: Linear,
    pub(crate) value_fc2: Linear,
    /// Auxiliary outputs from the value head's hidden layer.
    pub(crate) aux_fc: Option<Linear>,
    /// The opponent's-reply head.
    pub(crate) reply: Option<PolicyHead>,
    /// The bilinear head's per-move bias (`policy_head = "bilinear"`).
    pub(crate) policy_bias: Option<Param<Tensor<1>>>,
    /// The board: its shape, the cells the policy index numbers
    /// (`model.board`).
    #[module(skip)]
    pub(crate) board: BoardCells,
}

/// Outputs of the auxiliary head: material difference, plies left.
pub const AUX_OUTPUTS: usize = 2;

impl Net {
    /// Fold pending batch-norm running-statistics updates into the stored
    /// values (burn applies the last update lazily); call before saving or
    /// switching to inference.
    pub fn sync_running_stats(&self) {
        let mut bns: Vec<&BatchNorm> = vec![&self.stem_bn, &self.policy_bn, &self.value_bn];
        bns.extend(self.reply.as_ref().map(|r| &r.bn));
        for b in &self.blocks {
            bns.push(&b.bn1);
            bns.push(&b.bn2);
        }
        for bn in bns {
            bn.running_mean.value_sync();
            bn.running_var.value_sync();
        }
    }

    /// The board the network is built for (`model.board`).
    pub fn board(&self) -> BoardCells {
        self.board
    }

    /// The input planes this network reads (from the width of its first
    /// layer, which [`ModelConfig::init`] sets).
    pub fn inputs(&self) -> Inputs {
        let [_, planes, _, _] = self.stem.weight.dims();
        Inputs::with_planes(planes).expect("a network's stem is built for an input set")
    }

    /// `x`: `[B, inputs().planes(), rows, cols]` -> (policy logits `[B,
    /// board().policy_size()]`,
    /// value logits `[B, 3]` for win/draw/loss of the side to move).
    pub fn forward(&self, x: Tensor<4>) -> (Tensor<2>, Tensor<2>) {
        let o = self.forward_all(x);
        (o.policy, o.value)
    }

    /// [`Net::forward`] and the trained-only heads the network has.
    pub fn forward_all(&self, x: Tensor<4>) -> Outputs {
        let mut h = relu(self.stem_bn.forward(self.stem.forward(x)));
        for b in &self.blocks {
            h = b.forward(h);
        }
        let [batch, _, _, _] = h.dims();
        let reply = self.reply.as_ref().map(|r| r.forward(h.clone()));
        let policy = match (&self.policy_fc, &self.policy_bias) {
            (Some(fc), _) => policy_logits(&self.policy_conv, &self.policy_bn, fc, h.clone()),
            (None, Some(bias)) => {
                bilinear_logits(&self.policy_conv, &self.policy_bn, bias, self.board, h.clone())
            }
            (None, None) => unreachable!("ModelConfig::init gives the policy head a dense layer or a bias"),
        };
        let v = relu(self.value_bn.forward(self.value_conv.forward(h)));
        let [_, _, rows, cols] = v.dims();
        let hidden = relu(self.value_fc1.forward(v.reshape([batch, rows * cols])));
        let aux = self.aux_fc.as_ref().map(|fc| fc.forward(hidden.clone()));
        let value = self.value_fc2.forward(hidden);
        Outputs {
            policy,
            value,
            aux,
            reply,
        }
    }
}

/// Materialises lazily initialised parameters in module order and gives
/// them ids 1, 2, 3... (burn draws random ids otherwise).
struct NumberedIds(u64);

impl ModuleMapper for NumberedIds {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let (_, value, mapper) = param.consume();
        self.0 += 1;
        Param::from_mapped_value(ParamId::from(self.0), value, mapper)
    }
}
