//! The learned evaluation's file (`learned_eval.bin`), version 1,
//! little-endian, written with the binary reader and writer (`util::bin`):
//!
//! `b"DMNLEVAL"`, `u32` version, the game's name (`u16` length and
//! UTF-8), `u32` hidden and `u32` hidden2 sizes, the float weights
//! (`w1`, `b1`, `w2`, `b2`, `w3` as `f32` in the order
//! [`FloatEval`] holds them, then `b3`), a `u16`-length note saying
//! where it was trained from, then a CRC-32 of every byte before it.
//!
//! The float weights are stored and the integer model is made from them
//! on load, so the file does not change when the quantisation does.

use super::features::FEATURES;
use super::model::{FloatEval, Shape};
use crate::game::GameId;
use crate::util::bin::{BinError, Reader, Writer};

const MAGIC: &[u8; 8] = b"DMNLEVAL";
/// Version of the learned evaluation's file format.
pub const EVAL_FILE_VERSION: u32 = 1;
/// The file's name inside a checkpoint folder.
pub const EVAL_FILE_NAME: &str = "learned_eval.bin";
const WHAT: &str = "learned evaluation file";

/// A learned evaluation as stored: its game, its weights and where it
/// was trained from.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalFile {
    /// The game it evaluates.
    pub game: GameId,
    /// Its weights.
    pub float: FloatEval,
    /// Where it was trained from (one line, for `damone info`).
    pub note: String,
}

impl EvalFile {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let f = &self.float;
        let mut w = Writer::header(MAGIC, EVAL_FILE_VERSION);
        w.str16(self.game.name());
        w.u32(f.shape.hidden as u32);
        w.u32(f.shape.hidden2 as u32);
        for v in f.w1.iter().chain(&f.b1).chain(&f.w2).chain(&f.b2).chain(&f.w3) {
            w.f32(*v);
        }
        w.f32(f.b3);
        w.str16(&self.note);
        w.finish_with_crc32()
    }

    /// Read a file's bytes; a damaged, foreign or newer file is a one-line
    /// error.
    pub fn from_bytes(bytes: &[u8]) -> Result<EvalFile, BinError> {
        let mut r = Reader::new(bytes, WHAT);
        r.header(MAGIC, &[EVAL_FILE_VERSION])?;
        if bytes.len() < 16 {
            return Err(r.invalid("too short"));
        }
        if crate::util::bin::crc32_body(bytes).is_none() {
            return Err(
                r.invalid("checksum mismatch: the file is damaged; train it again (damone learn-eval)")
            );
        }
        let game_name = r.str16()?;
        let game = GameId::named(game_name).map_err(|e| r.invalid(e))?;
        let shape = Shape {
            hidden: r.u32()? as usize,
            hidden2: r.u32()? as usize,
        };
        shape.validate().map_err(|e| r.invalid(e))?;
        let (h, l) = (shape.hidden, shape.hidden2);
        let mut floats = |n: usize| (0..n).map(|_| r.f32()).collect::<Result<Vec<f32>, _>>();
        let w1 = floats(FEATURES * h)?;
        let b1 = floats(h)?;
        let w2 = floats(l * 2 * h)?;
        let b2 = floats(l)?;
        let w3 = floats(l)?;
        let b3 = r.f32()?;
        let note = r.str16()?.to_string();
        let float = FloatEval {
            shape,
            w1,
            b1,
            w2,
            b2,
            w3,
            b3,
        };
        let all = [&float.w1, &float.b1, &float.w2, &float.b2, &float.w3];
        if !all
            .into_iter()
            .flatten()
            .chain([&float.b3])
            .all(|w| w.is_finite())
        {
            return Err(r.invalid("weights that are not finite numbers"));
        }
        Ok(EvalFile { game, float, note })
    }

    /// Read the file at `path`: the error names the file and is one line.
    pub fn read(path: &std::path::Path) -> Result<EvalFile, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        EvalFile::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Write the file at `path` atomically (a temporary file, then a rename).
    pub fn write(&self, path: &std::path::Path) -> std::io::Result<()> {
        crate::util::atomic_write(path, &self.to_bytes())
    }

    /// A one-line error when the evaluation is another game's than `game`.
    pub fn check_game(&self, game: GameId) -> Result<(), String> {
        if self.game != game {
            return Err(format!(
                "the learned evaluation is for {}, and this is a {game} game",
                self.game
            ));
        }
        Ok(())
    }
}
