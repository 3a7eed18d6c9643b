//! Self-play samples, the bounded replay window, and its versioned on-disk
//! format.
//!
//! ## File format (`replay.bin`), version 1, little-endian
//!
//! `b"DMNREPLY"`, `u32` version, `u64` sample count, then per sample: `u16`
//! FEN length and the FEN bytes, `u8` variant (0 standard, 1 damone-hunt, 2
//! three-damas), `u8` repeated flag, `f32` no-progress fraction, `u16` move
//! count and that many `f32` policy targets (in the order of the position's
//! legal moves), three `f32` outcome WDL, three `f32` search WDL.

use crate::game::{Position, Variant};
use crate::util::Rng;
use rand::Rng as _;
use std::collections::VecDeque;

const MAGIC: &[u8; 8] = b"DMNREPLY";
/// Version of the replay file format.
pub const REPLAY_VERSION: u32 = 1;

/// One training sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position (side to move = the player the targets are for).
    pub pos: Position,
    /// The position had occurred before in its game.
    pub repeated: bool,
    /// No-progress plies over the limit, in [0, 1].
    pub no_progress: f32,
    /// Policy target for each legal move of `pos`, in `legal_moves()` order.
    pub policy: Vec<f32>,
    /// Game outcome for the side to move: win, draw, loss.
    pub z: [f32; 3],
    /// Root search value for the side to move: win, draw, loss.
    pub q: [f32; 3],
}

/// Why a replay file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("not a damone replay file (bad magic)")]
    BadMagic,
    #[error("replay file version {0} is not supported (this build reads version {REPLAY_VERSION})")]
    Version(u32),
    #[error("replay file is truncated")]
    Truncated,
    #[error("replay file has a bad sample: {0}")]
    BadSample(String),
}

/// A bounded window of the most recent samples.
#[derive(Clone, Debug, Default)]
pub struct ReplayWindow {
    samples: VecDeque<Sample>,
    capacity: usize,
    /// Samples ever added.
    pub total_added: u64,
}

impl ReplayWindow {
    pub fn new(capacity: usize) -> Self {
        ReplayWindow {
            samples: VecDeque::new(),
            capacity: capacity.max(1),
            total_added: 0,
        }
    }
    pub fn len(&self) -> usize {
        self.samples.len()
    }
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    /// Add samples, dropping the oldest beyond capacity.
    pub fn extend(&mut self, new: impl IntoIterator<Item = Sample>) {
        for s in new {
            self.samples.push_back(s);
            self.total_added += 1;
            if self.samples.len() > self.capacity {
                self.samples.pop_front();
            }
        }
    }
    /// A uniform random batch (with replacement).
    pub fn batch<'a>(&'a self, n: usize, rng: &mut Rng) -> Vec<&'a Sample> {
        (0..n)
            .map(|_| &self.samples[rng.random_range(0..self.samples.len())])
            .collect()
    }

    /// Serialise the window.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(self.samples.len() * 128 + 64);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&REPLAY_VERSION.to_le_bytes());
        b.extend_from_slice(&(self.capacity as u64).to_le_bytes());
        b.extend_from_slice(&self.total_added.to_le_bytes());
        b.extend_from_slice(&(self.samples.len() as u64).to_le_bytes());
        for s in &self.samples {
            let fen = s.pos.to_fen();
            b.extend_from_slice(&(fen.len() as u16).to_le_bytes());
            b.extend_from_slice(fen.as_bytes());
            b.push(match s.pos.variant() {
                Variant::Standard => 0,
                Variant::DamoneHunt => 1,
                Variant::ThreeDamas => 2,
            });
            b.push(s.repeated as u8);
            b.extend_from_slice(&s.no_progress.to_le_bytes());
            b.extend_from_slice(&(s.policy.len() as u16).to_le_bytes());
            for &p in s.policy.iter().chain(&s.z).chain(&s.q) {
                b.extend_from_slice(&p.to_le_bytes());
            }
        }
        b
    }

    /// Read a window written by [`ReplayWindow::to_bytes`].
    pub fn from_bytes(data: &[u8]) -> Result<ReplayWindow, ReplayError> {
        let mut r = Reader { data, at: 0 };
        if r.take(8)? != MAGIC {
            return Err(ReplayError::BadMagic);
        }
        let version = r.u32()?;
        if version != REPLAY_VERSION {
            return Err(ReplayError::Version(version));
        }
        let capacity = r.u64()? as usize;
        let total_added = r.u64()?;
        let n = r.u64()? as usize;
        let mut w = ReplayWindow::new(capacity);
        w.total_added = total_added;
        for _ in 0..n {
            let len = r.u16()? as usize;
            let fen = std::str::from_utf8(r.take(len)?).map_err(|e| ReplayError::BadSample(e.to_string()))?;
            let variant = match r.u8()? {
                0 => Variant::Standard,
                1 => Variant::DamoneHunt,
                2 => Variant::ThreeDamas,
                v => return Err(ReplayError::BadSample(format!("unknown variant code {v}"))),
            };
            let pos = Position::from_fen(fen, variant).map_err(|e| ReplayError::BadSample(e.to_string()))?;
            let repeated = r.u8()? != 0;
            let no_progress = r.f32()?;
            let m = r.u16()? as usize;
            let policy = (0..m).map(|_| r.f32()).collect::<Result<Vec<_>, _>>()?;
            let z = [r.f32()?, r.f32()?, r.f32()?];
            let q = [r.f32()?, r.f32()?, r.f32()?];
            w.samples.push_back(Sample {
                pos,
                repeated,
                no_progress,
                policy,
                z,
                q,
            });
        }
        if r.at != data.len() {
            return Err(ReplayError::BadSample(
                "trailing bytes after the last sample".into(),
            ));
        }
        Ok(w)
    }
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ReplayError> {
        let end = self.at.checked_add(n).ok_or(ReplayError::Truncated)?;
        let s = self.data.get(self.at..end).ok_or(ReplayError::Truncated)?;
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, ReplayError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, ReplayError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self) -> Result<u32, ReplayError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, ReplayError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn f32(&mut self) -> Result<f32, ReplayError> {
        Ok(f32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let mut w = ReplayWindow::new(2);
        for i in 0..3 {
            w.extend([Sample {
                pos: Position::start(Variant::Standard),
                repeated: i == 1,
                no_progress: 0.25,
                policy: vec![0.125; 8],
                z: [1.0, 0.0, 0.0],
                q: [0.5, 0.25, 0.25],
            }]);
        }
        assert_eq!(w.len(), 2);
        let b = w.to_bytes();
        let back = ReplayWindow::from_bytes(&b).unwrap();
        assert_eq!(back.samples, w.samples);
        assert_eq!(back.total_added, 3);
        assert!(matches!(
            ReplayWindow::from_bytes(&b[..b.len() - 3]),
            Err(ReplayError::Truncated)
        ));
        assert!(matches!(
            ReplayWindow::from_bytes(b"nonsense-file"),
            Err(ReplayError::BadMagic)
        ));
        let mut v2 = b.clone();
        v2[8] = 9;
        assert!(matches!(
            ReplayWindow::from_bytes(&v2),
            Err(ReplayError::Version(9))
        ));
    }
}
