//! The objects of the distributed protocol, their keys and formats (one
//! definition each). Every object is written once and never changed.
//!
//! ```text
//! run.toml                          the run's config (create-only, first learner)
//! learner/epochs/e00000003          a learner's epoch claim (create-only)
//! weights/<sha256>.bpk              model weights, stored under their SHA-256
//! learner/state/v00000012-e00000003.bin   the learner's checkpoint for version 12
//! models/v00000012.toml             model record: version, weights hash, epoch,
//!                                   checkpoint key (create-only, written last)
//! shards/v00000012/a0003-<nonce>-000017.shard   games played by model 12
//! learner/done                      the learner reached its limit (create-only)
//! ```
//!
//! A shard (`b"DMNSHARD"`, version 4, little-endian, through
//! the binary reader and writer (`util::bin`)): `u32` input-encoding version, `u64` model
//! version, `str16` actor name, `u32` games, `u64` plies, `u64` sample
//! count and the samples (as `data::write_sample` writes them), `blob64` PDN
//! text of the games, then the `u32` CRC-32 of everything before, as
//! every file of the project ends. Version 3 is version 4 ending with a
//! SHA-256 instead; versions 1 (samples without the surprise, the
//! auxiliary targets and the reply) and 2 (without the reply) end the same
//! way. All are still read. The SHA-256 of the weights remains their name
//! (content addressing), not a checksum of a format.
//!
//! A learner checkpoint (`b"DMNLEARN"`, version 2): `u64` epoch, `u64`
//! model version, `u64` training steps, `u64` games, `u64` samples, `f64`
//! wall seconds (as `u64` bits), `blob64` config TOML, `blob64` weights,
//! `blob64` optimiser state, `blob64` replay window, `u64` count and the
//! keys of the shards already taken (used or skipped, with a `u8` kind:
//! 0 used, 1 stale, 2 corrupt), then the CRC-32 of everything before
//! (version 1: its SHA-256; still read).

use crate::data::{read_sample, write_sample, Sample, SampleLayout};
use crate::game::GamePosition;
use crate::net::ENCODING_VERSION;
use crate::util::bin::{crc32_body, BinError, Reader, Writer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The run's config.
pub const CONFIG_KEY: &str = "run.toml";
/// The learner's "finished" marker.
pub const DONE_KEY: &str = "learner/done";
/// Folder of model records.
pub const MODELS: &str = "models/";
/// Folder of learner epoch claims.
pub const EPOCHS: &str = "learner/epochs/";
/// Folder of learner checkpoints.
pub const STATES: &str = "learner/state/";

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Key of the weights with this hash.
pub fn weights_key(sha: &str) -> String {
    format!("weights/{sha}.bpk")
}
/// Key of model record `v`.
pub fn model_key(v: u64) -> String {
    format!("{MODELS}v{v:08}.toml")
}
/// Key of epoch claim `e`.
pub fn epoch_key(e: u64) -> String {
    format!("{EPOCHS}e{e:08}")
}
/// Key of the learner checkpoint for version `v` written in epoch `e`.
pub fn state_key(v: u64, e: u64) -> String {
    format!("{STATES}v{v:08}-e{e:08}.bin")
}
/// Folder of the shards played by model `v`.
pub fn shard_prefix(v: u64) -> String {
    format!("shards/v{v:08}/")
}
/// Key of an actor's `seq`th shard played by model `v`.
pub fn shard_key(v: u64, actor: &str, seq: u64) -> String {
    format!("{}{actor}-{seq:06}.shard", shard_prefix(v))
}

/// The number in a key such as `models/v00000012.toml` or
/// `learner/epochs/e00000003` (the digits after `tag` in its last part).
pub fn key_number(key: &str, tag: char) -> Option<u64> {
    let last = key.rsplit('/').next()?;
    let digits: String = last
        .strip_prefix(tag)?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    if digits.len() != 8 {
        return None;
    }
    digits.parse().ok()
}

/// A published model: written create-only after its weights and the
/// learner checkpoint it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelRecord {
    /// The model's version: 0 for the first weights, then one more per publication.
    pub version: u64,
    /// The epoch of the learner that published it.
    pub epoch: u64,
    /// SHA-256 of the weights (their key is [`weights_key`]).
    pub sha256: String,
    /// Key of the learner checkpoint holding this version's full state.
    pub checkpoint: String,
    /// Training steps so far.
    pub step: u64,
    /// Games and samples taken from shards so far.
    pub games: u64,
    /// Samples taken from shards so far.
    pub samples: u64,
    /// The shards this version was trained on.
    pub shards: Vec<String>,
    /// Shards used, and skipped as stale or corrupt, so far.
    pub shards_used: u64,
    /// Shards skipped as stale (made with a model too old) so far.
    pub shards_stale: u64,
    /// Shards skipped as corrupt so far.
    pub shards_corrupt: u64,
    /// Mean losses of this version's training steps.
    pub loss_policy: f64,
    /// Mean value loss of this version's training steps.
    pub loss_value: f64,
    /// The learner's wall seconds so far.
    pub wall_s: f64,
}

impl ModelRecord {
    /// The record as the TOML text stored under its key.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("record serialises")
    }
    /// Read a stored record; the error names `key` and is one line.
    pub fn from_toml(text: &str, key: &str) -> Result<ModelRecord, String> {
        let r: ModelRecord = toml::from_str(text)
            .map_err(|e| format!("{key}: {}", e.to_string().trim().replace('\n', " ")))?;
        if r.sha256.len() != 64 || !r.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{key}: sha256 is not 64 hex digits"));
        }
        Ok(r)
    }
}

/// The games of one actor under one model.
#[derive(Clone, Debug, PartialEq)]
pub struct Shard<P: GamePosition> {
    /// The version of the model that played the games.
    pub model_version: u64,
    /// The actor's name.
    pub actor: String,
    /// Games finished.
    pub games: u32,
    /// Plies played.
    pub plies: u64,
    /// The training samples of the games.
    pub samples: Vec<Sample<P>>,
    /// The games as PDN.
    pub pdn: String,
}

const SHARD_MAGIC: &[u8; 8] = b"DMNSHARD";
/// Version of the shard format.
pub const SHARD_VERSION: u32 = 4;

/// The first shard version sealed with the project's CRC-32; versions 1
/// to 3 end with a SHA-256.
const FIRST_CRC32_SHARD: u32 = 4;

fn seal(w: Writer) -> Vec<u8> {
    w.finish_with_crc32()
}

/// The bytes of an object before its checksum: the CRC-32 of its format
/// from version `crc32_since` on (the version follows the 8-byte magic),
/// the SHA-256 of the versions before.
fn unseal<'a>(bytes: &'a [u8], what: &'static str, crc32_since: u32) -> Result<&'a [u8], BinError> {
    let version = bytes
        .get(8..12)
        .map(|v| u32::from_le_bytes(v.try_into().expect("4 bytes")));
    if version.is_some_and(|v| v >= crc32_since) {
        return crc32_body(bytes).ok_or_else(|| BinError::Invalid {
            what,
            why: "checksum mismatch (corrupt object)".into(),
        });
    }
    if bytes.len() < 32 {
        return Err(BinError::Invalid {
            what,
            why: format!("{} bytes, shorter than its checksum", bytes.len()),
        });
    }
    let (body, sum) = bytes.split_at(bytes.len() - 32);
    if sha256(body) != sum {
        return Err(BinError::Invalid {
            what,
            why: "checksum mismatch (corrupt object)".into(),
        });
    }
    Ok(body)
}

impl<P: GamePosition> Shard<P> {
    /// The shard's file bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::header(SHARD_MAGIC, SHARD_VERSION);
        w.u32(ENCODING_VERSION);
        w.u64(self.model_version);
        w.str16(&self.actor);
        w.u32(self.games);
        w.u64(self.plies);
        w.u64(self.samples.len() as u64);
        for s in &self.samples {
            write_sample(&mut w, s);
        }
        w.blob64(self.pdn.as_bytes());
        seal(w)
    }
}

impl<P: crate::net::Board> Shard<P> {
    /// Read a shard's bytes; a damaged, foreign or newer file is an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<Shard<P>, BinError> {
        let body = unseal(bytes, "game shard", FIRST_CRC32_SHARD)?;
        let mut r = Reader::new(body, "game shard");
        let version = r.header(SHARD_MAGIC, &[1, 2, 3, SHARD_VERSION])?;
        let layout = SampleLayout::of_version(version, 2);
        let enc = r.u32()?;
        if enc != ENCODING_VERSION {
            return Err(r.invalid(format!(
                "input encoding version {enc}; this build uses {ENCODING_VERSION}"
            )));
        }
        let model_version = r.u64()?;
        let actor = r.str16()?.to_string();
        let games = r.u32()?;
        let plies = r.u64()?;
        let n = r.count(20)?;
        let samples = (0..n)
            .map(|_| read_sample(&mut r, layout))
            .collect::<Result<Vec<_>, _>>()?;
        let pdn = String::from_utf8(r.blob64()?.to_vec()).map_err(|_| r.invalid("PDN is not UTF-8"))?;
        r.end()?;
        Ok(Shard {
            model_version,
            actor,
            games,
            plies,
            samples,
            pdn,
        })
    }
}

/// How a shard was taken by the learner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Its samples went into the replay window.
    Used,
    /// Skipped: made with a model older than the staleness limit allows.
    Stale,
    /// Skipped: it could not be read.
    Corrupt,
}

/// The learner's checkpoint (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct LearnerState {
    /// The learner's epoch (a new learner process takes the next one).
    pub epoch: u64,
    /// The newest published model version.
    pub version: u64,
    /// Training steps so far.
    pub step: u64,
    /// Games taken from shards so far.
    pub games: u64,
    /// Samples taken from shards so far.
    pub samples: u64,
    /// The learner's wall seconds so far.
    pub wall_s: f64,
    /// The run's config as TOML.
    pub config: String,
    /// The network's weights.
    pub weights: Vec<u8>,
    /// The optimiser's state.
    pub optimizer: Vec<u8>,
    /// The replay window's bytes.
    pub replay: Vec<u8>,
    /// Shards taken, by key: how, and the model version being trained
    /// when they were taken.
    pub taken: BTreeMap<String, (Taken, u64)>,
}

const STATE_MAGIC: &[u8; 8] = b"DMNLEARN";
/// Version of the learner checkpoint format.
pub const STATE_VERSION: u32 = 2;

/// The first learner checkpoint version sealed with the project's CRC-32;
/// version 1 ends with a SHA-256.
const FIRST_CRC32_STATE: u32 = 2;

impl LearnerState {
    /// The checkpoint's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::header(STATE_MAGIC, STATE_VERSION);
        for x in [
            self.epoch,
            self.version,
            self.step,
            self.games,
            self.samples,
            self.wall_s.to_bits(),
        ] {
            w.u64(x);
        }
        w.blob64(self.config.as_bytes());
        w.blob64(&self.weights);
        w.blob64(&self.optimizer);
        w.blob64(&self.replay);
        w.u64(self.taken.len() as u64);
        for (k, (t, v)) in &self.taken {
            w.str16(k);
            w.u8(match t {
                Taken::Used => 0,
                Taken::Stale => 1,
                Taken::Corrupt => 2,
            });
            w.u64(*v);
        }
        seal(w)
    }

    /// Read a checkpoint's bytes; a damaged, foreign or newer file is an error.
    pub fn from_bytes(bytes: &[u8]) -> Result<LearnerState, BinError> {
        let body = unseal(bytes, "learner checkpoint", FIRST_CRC32_STATE)?;
        let mut r = Reader::new(body, "learner checkpoint");
        r.header(STATE_MAGIC, &[1, STATE_VERSION])?;
        let mut v = [0u64; 6];
        for x in &mut v {
            *x = r.u64()?;
        }
        let config = String::from_utf8(r.blob64()?.to_vec()).map_err(|_| r.invalid("config is not UTF-8"))?;
        let weights = r.blob64()?.to_vec();
        let optimizer = r.blob64()?.to_vec();
        let replay = r.blob64()?.to_vec();
        let n = r.count(11)?;
        let mut taken = BTreeMap::new();
        for _ in 0..n {
            let k = r.str16()?.to_string();
            let t = match r.u8()? {
                0 => Taken::Used,
                1 => Taken::Stale,
                2 => Taken::Corrupt,
                x => return Err(r.invalid(format!("unknown shard kind {x}"))),
            };
            taken.insert(k, (t, r.u64()?));
        }
        r.end()?;
        Ok(LearnerState {
            epoch: v[0],
            version: v[1],
            step: v[2],
            games: v[3],
            samples: v[4],
            wall_s: f64::from_bits(v[5]),
            config,
            weights,
            optimizer,
            replay,
            taken,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::damone::Position;

    /// The same bytes as version `version` wrote them: its number after
    /// the magic and a SHA-256 in place of the CRC-32.
    fn sealed_as_before(bytes: &[u8], version: u32) -> Vec<u8> {
        let mut body = bytes[..bytes.len() - 4].to_vec();
        body[8..12].copy_from_slice(&version.to_le_bytes());
        let sum = sha256(&body);
        body.extend_from_slice(&sum);
        body
    }

    #[test]
    fn objects_sealed_with_a_sha256_still_read_and_new_ones_carry_a_crc32() {
        let shard = Shard::<Position> {
            model_version: 7,
            actor: "a1".into(),
            games: 2,
            plies: 90,
            samples: Vec::new(),
            pdn: "[Event \"x\"]".into(),
        };
        let bytes = shard.to_bytes();
        assert!(crc32_body(&bytes).is_some());
        let old = sealed_as_before(&bytes, 3);
        assert_eq!(Shard::<Position>::from_bytes(&old).unwrap(), shard);
        let mut damaged = old.clone();
        damaged[20] ^= 1;
        let e = Shard::<Position>::from_bytes(&damaged).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
        let mut damaged = bytes.clone();
        damaged[20] ^= 1;
        let e = Shard::<Position>::from_bytes(&damaged).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");

        let state = LearnerState {
            epoch: 1,
            version: 2,
            step: 3,
            games: 4,
            samples: 5,
            wall_s: 6.5,
            config: "seed = 1".into(),
            weights: vec![1, 2, 3],
            optimizer: vec![4],
            replay: Vec::new(),
            taken: BTreeMap::from([("shards/v1/a".to_string(), (Taken::Used, 1))]),
        };
        let old = sealed_as_before(&state.to_bytes(), 1);
        assert_eq!(LearnerState::from_bytes(&old).unwrap(), state);
        assert_eq!(LearnerState::from_bytes(&state.to_bytes()).unwrap(), state);
    }
}
