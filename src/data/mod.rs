//! Self-play samples, the bounded replay window, and its versioned on-disk
//! format.
//!
//! ## File format (`replay.bin`), version 4, little-endian
//!
//! Written with the binary reader and writer (`util::bin`): `b"DMNREPLY"`, `u32` format version,
//! `u32` input-encoding version ([`ENCODING_VERSION`]), `u64` capacity,
//! `u64` samples ever added, `u64` sample count, then the samples
//! (`write_sample`): `u16` FEN length and the FEN, `u8` variant (0
//! standard, 1 damone-hunt, 2 three-damas), `u8` repeated flag, `f32`
//! no-progress fraction, `u16` policy entries and per entry a `u16`
//! network policy index and an `f32` probability, then the outcome WDL and
//! the search WDL (three `f32` each), then the `f32` surprise, then the
//! auxiliary targets: `u8` 0 (none) or 1 and the two `f32` of
//! [`AuxTargets`], then the opponent's reply: `u8` 0 (none) or 1 and its
//! `u16` network policy index.
//!
//! Version 3 is version 4 without the reply; version 2 is version 3
//! without the surprise and the auxiliary targets. Both are read, their
//! samples without the fields they lack (`SampleLayout`).
//! Version 1 stored the policy in the order of legal-move generation; it is
//! refused by name.

use crate::game::interface::variant_from_code;
use crate::game::{Color, GamePosition};
use crate::mcts::{ExactPosition, ExactValues, Wdl};
use crate::net::{policy_indices, Board, ENCODING_VERSION};
use crate::util::bin::{BinError, Reader, Writer};
use crate::util::Rng;
use rand::Rng as _;
use std::collections::VecDeque;

const MAGIC: &[u8; 8] = b"DMNREPLY";
/// Version of the replay file format.
pub const REPLAY_VERSION: u32 = 4;

/// Which fields a written sample has: the files that hold samples (replay
/// windows, shards, games in flight) gained fields over their versions,
/// and each maps its version to one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SampleLayout {
    /// Neither the surprise nor the auxiliary targets nor the reply.
    Plain,
    /// The surprise and the auxiliary targets, no reply.
    Aux,
    /// Every field (what [`write_sample`] writes).
    Full,
}

impl SampleLayout {
    /// The layout of a file at `version`, whose samples gained the surprise
    /// and the auxiliary targets at version `aux_since` and the reply at
    /// `aux_since + 1`.
    pub fn of_version(version: u32, aux_since: u32) -> SampleLayout {
        if version > aux_since {
            SampleLayout::Full
        } else if version == aux_since {
            SampleLayout::Aux
        } else {
            SampleLayout::Plain
        }
    }
}

/// Targets of the auxiliary heads: facts of how the game ended, known once
/// it has been played out (absent for games that ended by resignation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AuxTargets {
    /// The side to move's pieces minus the opponent's at the end of the
    /// game, divided by 8 (a side's pieces at the start).
    pub material: f32,
    /// Plies from the position to the end of the game, divided by 100.
    pub plies_left: f32,
}

impl AuxTargets {
    /// The targets for `side` of a position `plies_left` plies before the
    /// game ended in `end`.
    pub fn at_end<P: GamePosition>(end: &P, side: Color, plies_left: u32) -> AuxTargets {
        AuxTargets {
            material: end.piece_balance(side),
            plies_left: plies_left as f32 / 100.0,
        }
    }
}

/// One training sample of a game (Damone by default).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<P: GamePosition> {
    /// The position (side to move = the player the targets are for).
    pub pos: P,
    /// The position had occurred before in its game.
    pub repeated: bool,
    /// No-progress plies over the limit, in [0, 1].
    pub no_progress: f32,
    /// Policy target: (network policy index, probability) for each legal
    /// move (see `net::encode`).
    pub policy: Vec<(u16, f32)>,
    /// Game outcome for the side to move.
    pub z: Wdl,
    /// Root search value for the side to move.
    pub q: Wdl,
    /// How much the search disagreed with the network here: the KL
    /// divergence of the policy target from the network's priors (nats;
    /// 0 if unknown). Training may draw surprising samples more often
    /// (`train.surprise_fraction`).
    pub surprise: f32,
    /// Targets of the auxiliary heads, if the game was played out.
    pub aux: Option<AuxTargets>,
    /// The opponent's reply to the move played here, as a network policy
    /// index in the frame of the position after the move (its side to
    /// move); `None` where the game ended with the move.
    pub reply: Option<u16>,
}

/// Why a replay file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file's bytes do not read.
    #[error(transparent)]
    Bin(#[from] BinError),
    /// The file uses another input encoding than this build.
    #[error("replay file uses input encoding version {0}; this build uses version {ENCODING_VERSION}")]
    Encoding(u32),
}

/// Append one sample (the layout in the module docs).
pub(crate) fn write_sample<P: GamePosition>(w: &mut Writer, s: &Sample<P>) {
    w.str16(&s.pos.to_setup());
    w.u8(P::variant_code(s.pos.variant()));
    w.u8(s.repeated as u8);
    w.f32(s.no_progress);
    w.u16(s.policy.len() as u16);
    for &(i, p) in &s.policy {
        w.u16(i);
        w.f32(p);
    }
    for x in s.z.to_array().into_iter().chain(s.q.to_array()) {
        w.f32(x);
    }
    w.f32(s.surprise);
    match s.aux {
        None => w.u8(0),
        Some(a) => {
            w.u8(1);
            w.f32(a.material);
            w.f32(a.plies_left);
        }
    }
    match s.reply {
        None => w.u8(0),
        Some(i) => {
            w.u8(1);
            w.u16(i);
        }
    }
}

/// Read one sample written by [`write_sample`] in a format whose samples
/// have the fields of `layout`.
pub(crate) fn read_sample<P: crate::net::Board>(
    r: &mut Reader<'_>,
    layout: SampleLayout,
) -> Result<Sample<P>, BinError> {
    let moves = P::CELLS.policy_size();
    let with_aux = layout >= SampleLayout::Aux;
    let fen = r.str16()?;
    let code = r.u8()?;
    let variant = variant_from_code::<P>(code).map_err(|e| r.invalid(e))?;
    let pos = P::from_setup(fen, variant).map_err(|e| r.invalid(format!("bad FEN '{fen}': {e}")))?;
    let repeated = r.u8()? != 0;
    let no_progress = r.f32()?;
    let m = r.u16()? as usize;
    let mut policy = Vec::with_capacity(m);
    for _ in 0..m {
        let i = r.u16()?;
        if i as usize >= moves {
            return Err(r.invalid(format!("policy index {i} out of range")));
        }
        policy.push((i, r.f32()?));
    }
    let mut v = [0.0f32; 6];
    for x in &mut v {
        *x = r.f32()?;
    }
    let surprise = if with_aux { r.f32()? } else { 0.0 };
    if !(surprise >= 0.0 && surprise.is_finite()) {
        return Err(r.invalid(format!("bad surprise {surprise}")));
    }
    let aux = match if with_aux { r.u8()? } else { 0 } {
        0 => None,
        1 => Some(AuxTargets {
            material: r.f32()?,
            plies_left: r.f32()?,
        }),
        v => return Err(r.invalid(format!("bad auxiliary-target flag {v}"))),
    };
    let reply = match if layout >= SampleLayout::Full { r.u8()? } else { 0 } {
        0 => None,
        1 => {
            let i = r.u16()?;
            if i as usize >= moves {
                return Err(r.invalid(format!("reply policy index {i} out of range")));
            }
            Some(i)
        }
        v => return Err(r.invalid(format!("bad reply flag {v}"))),
    };
    Ok(Sample {
        pos,
        repeated,
        no_progress,
        policy,
        z: Wdl::new(v[0], v[1], v[2]),
        q: Wdl::new(v[3], v[4], v[5]),
        surprise,
        aux,
        reply,
    })
}

/// `count` training samples drawn from exact values (endgame tables):
/// each a position [`ExactValues::draw`] gives, its outcome and search
/// value the exact value, its policy spread evenly over the moves that
/// keep that value (every other legal move 0); no auxiliary targets and no
/// reply, as no game was played. Fewer where the values cannot be drawn
/// from.
pub fn exact_samples<P: Board>(values: &dyn ExactValues<P>, count: usize, rng: &mut Rng) -> Vec<Sample<P>> {
    let sample = |drawn: ExactPosition<P>| {
        let legal = drawn.pos.legal_moves();
        let share = 1.0 / drawn.best.len().max(1) as f32;
        let policy = policy_indices(&drawn.pos, &legal)
            .into_iter()
            .zip(&legal)
            .map(|(j, m)| (j, if drawn.best.contains(m) { share } else { 0.0 }))
            .collect();
        Sample {
            pos: drawn.pos,
            repeated: false,
            no_progress: 0.0,
            policy,
            z: drawn.value,
            q: drawn.value,
            surprise: 0.0,
            aux: None,
            reply: None,
        }
    };
    values.draw(count, rng).into_iter().map(sample).collect()
}

/// A bounded window of the most recent samples.
#[derive(Clone, Debug)]
pub struct ReplayWindow<P: GamePosition> {
    samples: VecDeque<Sample<P>>,
    capacity: usize,
    /// Samples ever added.
    pub total_added: u64,
}

impl<P: GamePosition> Default for ReplayWindow<P> {
    fn default() -> Self {
        ReplayWindow {
            samples: VecDeque::new(),
            capacity: 0,
            total_added: 0,
        }
    }
}

impl<P: GamePosition> ReplayWindow<P> {
    /// An empty window of `capacity` samples.
    pub fn new(capacity: usize) -> Self {
        ReplayWindow {
            samples: VecDeque::new(),
            capacity: capacity.max(1),
            total_added: 0,
        }
    }
    /// Samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }
    /// True with no samples.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
    /// The most samples it holds (the oldest leave first).
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    /// Resize to `capacity` samples (at least 1): a smaller window drops
    /// its oldest samples, a larger one keeps every sample it has.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        while self.samples.len() > self.capacity {
            self.samples.pop_front();
        }
    }
    /// The samples, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Sample<P>> {
        self.samples.iter()
    }
    /// Add samples, dropping the oldest beyond capacity.
    pub fn extend(&mut self, new: impl IntoIterator<Item = Sample<P>>) {
        for s in new {
            self.samples.push_back(s);
            self.total_added += 1;
            if self.samples.len() > self.capacity {
                self.samples.pop_front();
            }
        }
    }
    /// Add a run's new samples to a window that grows with the run: first
    /// resized to `capacity_for(samples made so far, these included)`
    /// (`TrainParams::window_for`), then extended.
    pub fn extend_growing(&mut self, new: Vec<Sample<P>>, capacity_for: impl Fn(u64) -> usize) {
        self.set_capacity(capacity_for(self.total_added + new.len() as u64));
        self.extend(new);
    }
    /// A uniform random batch (with replacement).
    pub fn batch<'a>(&'a self, n: usize, rng: &mut Rng) -> Vec<&'a Sample<P>> {
        (0..n)
            .map(|_| &self.samples[rng.random_range(0..self.samples.len())])
            .collect()
    }

    /// Batches for one round of training: uniform, or with
    /// `surprise_fraction` f > 0, sample i drawn with probability
    /// proportional to (1 - f) + f * surprise_i / mean surprise (KataGo's
    /// policy-surprise weighting: positions where the search disagreed
    /// with the network come up more often).
    pub fn batches(&self, surprise_fraction: f32) -> Batches<'_, P> {
        let f = surprise_fraction.clamp(0.0, 1.0) as f64;
        let mean = if f > 0.0 {
            let n = self.samples.len().max(1) as f64;
            self.samples.iter().map(|s| s.surprise as f64).sum::<f64>() / n
        } else {
            0.0
        };
        let mut cumulative = Vec::new();
        if mean > 0.0 {
            let mut total = 0.0;
            cumulative.reserve(self.samples.len());
            for s in &self.samples {
                total += (1.0 - f) + f * s.surprise as f64 / mean;
                cumulative.push(total);
            }
        }
        Batches {
            window: self,
            cumulative,
        }
    }

    /// Serialise the window.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::header(MAGIC, REPLAY_VERSION);
        w.u32(ENCODING_VERSION);
        w.u64(self.capacity as u64);
        w.u64(self.total_added);
        w.u64(self.samples.len() as u64);
        for s in &self.samples {
            write_sample(&mut w, s);
        }
        w.finish()
    }
}

impl<P: crate::net::Board> ReplayWindow<P> {
    /// Read a window written by [`ReplayWindow::to_bytes`].
    pub fn from_bytes(data: &[u8]) -> Result<ReplayWindow<P>, ReplayError> {
        let mut r = Reader::new(data, "replay file");
        let version = r.header(MAGIC, &[2, 3, REPLAY_VERSION])?;
        let layout = SampleLayout::of_version(version, 3);
        let enc = r.u32()?;
        if enc != ENCODING_VERSION {
            return Err(ReplayError::Encoding(enc));
        }
        let capacity = r.u64()?;
        if capacity == 0 || capacity > 1 << 32 {
            return Err(r.invalid(format!("capacity {capacity}")).into());
        }
        let total_added = r.u64()?;
        // A sample takes at least 39 bytes.
        let n = r.count(39)?;
        let mut w = ReplayWindow::new(capacity as usize);
        w.total_added = total_added;
        for _ in 0..n {
            w.samples.push_back(read_sample(&mut r, layout)?);
        }
        r.end()?;
        Ok(w)
    }
}

/// Draws batches from a window ([`ReplayWindow::batches`]).
pub struct Batches<'a, P: GamePosition> {
    window: &'a ReplayWindow<P>,
    /// Running sums of the samples' weights (empty: uniform).
    cumulative: Vec<f64>,
}

impl<'a, P: GamePosition> Batches<'a, P> {
    /// A batch of `n` samples, drawn with replacement.
    pub fn batch(&self, n: usize, rng: &mut Rng) -> Vec<&'a Sample<P>> {
        let Some(&total) = self.cumulative.last() else {
            return self.window.batch(n, rng);
        };
        (0..n)
            .map(|_| {
                let x = rng.random::<f64>() * total;
                let i = self.cumulative.partition_point(|&c| c <= x);
                &self.window.samples[i.min(self.cumulative.len() - 1)]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::damone::{Position, Variant};

    #[test]
    fn round_trip_and_errors() {
        let mut w = ReplayWindow::new(2);
        for i in 0..3 {
            w.extend([Sample {
                pos: Position::start(Variant::Standard),
                repeated: i == 1,
                no_progress: 0.25,
                policy: (0..8).map(|k| (k * 7, 0.125)).collect(),
                z: Wdl::WIN,
                q: Wdl::new(0.5, 0.25, 0.25),
                surprise: 0.5 * i as f32,
                aux: (i != 1).then_some(AuxTargets {
                    material: -0.25,
                    plies_left: 0.37,
                }),
                reply: (i != 0).then_some(77 * i),
            }]);
        }
        assert_eq!(w.len(), 2);
        let b = w.to_bytes();
        let back = ReplayWindow::<Position>::from_bytes(&b).unwrap();
        assert_eq!(back.samples, w.samples);
        assert_eq!(back.total_added, 3);
        assert!(matches!(
            ReplayWindow::<Position>::from_bytes(&b[..b.len() - 3]),
            Err(ReplayError::Bin(BinError::Truncated { .. }))
        ));
        assert!(matches!(
            ReplayWindow::<Position>::from_bytes(b"nonsense-file"),
            Err(ReplayError::Bin(BinError::BadMagic { .. }))
        ));
        let mut v1 = b.clone();
        v1[8] = 1;
        let e = ReplayWindow::<Position>::from_bytes(&v1).unwrap_err().to_string();
        assert!(e.contains("version 1") && e.contains("version 4"), "{e}");
        let mut enc = b.clone();
        enc[12] = 9;
        assert!(matches!(
            ReplayWindow::<Position>::from_bytes(&enc),
            Err(ReplayError::Encoding(9))
        ));
        // A crafted sample count cannot make the reader allocate or panic.
        let mut huge = b.clone();
        huge[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(ReplayWindow::<Position>::from_bytes(&huge).is_err());
        // A bad auxiliary-target flag, reply flag or reply index is named:
        // `bytes` written `back` bytes before the end, over what was there.
        let corrupt = |back: usize, was: &[u8], bytes: &[u8]| {
            let mut c = b.clone();
            let at = c.len() - back;
            assert_eq!(&c[at..at + bytes.len()], was);
            c[at..at + bytes.len()].copy_from_slice(bytes);
            ReplayWindow::<Position>::from_bytes(&c).unwrap_err().to_string()
        };
        let e = corrupt(12, &[1], &[7]);
        assert!(e.contains("auxiliary-target flag 7"), "{e}");
        let e = corrupt(3, &[1], &[5]);
        assert!(e.contains("reply flag 5"), "{e}");
        let e = corrupt(2, &154u16.to_le_bytes(), &u16::MAX.to_le_bytes());
        assert!(e.contains("reply policy index 65535"), "{e}");
    }

    #[test]
    fn surprising_samples_are_drawn_more_often() {
        let mut w = ReplayWindow::new(1000);
        w.extend((0..1000).map(|i| Sample {
            pos: Position::start(Variant::Standard),
            repeated: false,
            no_progress: 0.0,
            policy: vec![(0, 1.0)],
            z: Wdl::DRAW,
            q: Wdl::DRAW,
            surprise: (i % 2) as f32,
            aux: None,
            reply: None,
        }));
        let mut rng = crate::util::rng_stream(1, "surprise-test", 0);
        let share = |f: f32, rng: &mut Rng| {
            let b = w.batches(f).batch(20_000, rng);
            b.iter().filter(|s| s.surprise > 0.0).count() as f64 / b.len() as f64
        };
        // Weights 0.5 and 0.5 + 0.5 * 1 / 0.5 = 1.5: three quarters of
        // the draws are surprising; uniform draws give half.
        let weighted = share(0.5, &mut rng);
        assert!((weighted - 0.75).abs() < 0.015, "{weighted}");
        let uniform = share(0.0, &mut rng);
        assert!((uniform - 0.5).abs() < 0.015, "{uniform}");
        // All of the weight on surprise: never a sample without it.
        assert_eq!(share(1.0, &mut rng), 1.0);
    }

    /// A window file of `version` holding `sample` written with its last
    /// `cut` bytes (the fields that version lacks) removed.
    fn old_file(version: u32, sample: &Sample<Position>, cut: usize) -> Vec<u8> {
        let mut one = Writer::new();
        write_sample(&mut one, sample);
        let one = one.finish();
        let mut w = Writer::header(MAGIC, version);
        w.u32(ENCODING_VERSION);
        w.u64(10);
        w.u64(1);
        w.u64(1);
        w.bytes(&one[..one.len() - cut]);
        w.finish()
    }

    #[test]
    fn older_versions_read_without_the_fields_they_lack() {
        let mut sample = Sample {
            pos: Position::start(Variant::Standard),
            repeated: false,
            no_progress: 0.5,
            policy: vec![(3, 1.0)],
            z: Wdl::DRAW,
            q: Wdl::new(0.2, 0.5, 0.3),
            surprise: 0.0,
            aux: None,
            reply: None,
        };
        // Version 2's sample is version 4's without the surprise, the
        // auxiliary flag and the reply flag.
        let back = ReplayWindow::<Position>::from_bytes(&old_file(2, &sample, 6)).unwrap();
        assert_eq!(back.samples, [sample.clone()]);
        // Version 3's is version 4's without the reply flag.
        sample.surprise = 0.75;
        sample.aux = Some(AuxTargets {
            material: 0.5,
            plies_left: 0.2,
        });
        let back = ReplayWindow::<Position>::from_bytes(&old_file(3, &sample, 1)).unwrap();
        assert_eq!(back.samples, [sample]);
    }
}
