//! The learned evaluation's file (`learned_eval.bin`), versions 1 and 2,
//! little-endian, written with the binary reader and writer (`util::bin`):
//!
//! `b"DMNLEVAL"`, `u32` version, the game's name (`u16` length and
//! UTF-8), `u32` hidden and `u32` hidden2 sizes, in version 2 the inputs
//! (`u8`: 0 pieces, 1 pairs) and the game's cells (`u64`), the float weights
//! (`w1`, `b1`, `w2`, `b2`, `w3` as `f32` in the order
//! [`FloatEval`] holds them, then `b3`), a `u16`-length note saying
//! where it was trained from, then a CRC-32 of every byte before it.
//!
//! The float weights are stored and the integer model is made from them
//! on load, so the file does not change when the quantisation does. An
//! evaluation of pieces alone is written as version 1 (the inputs every
//! version-1 file reads), so that builds before version 2 read it.

use super::features::Inputs;
use super::model::{FloatEval, Shape};
use crate::game::GameId;
use crate::util::bin::{BinError, Reader, Writer};

const MAGIC: &[u8; 8] = b"DMNLEVAL";
/// Version of the learned evaluation's file format (an evaluation of
/// pieces alone is written as version 1).
pub const EVAL_FILE_VERSION: u32 = 2;
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
        let pairs = f.shape.inputs == Inputs::Pairs;
        let mut w = Writer::header(MAGIC, if pairs { EVAL_FILE_VERSION } else { 1 });
        w.str16(self.game.name());
        w.u32(f.shape.hidden as u32);
        w.u32(f.shape.hidden2 as u32);
        if pairs {
            w.u8(1);
            w.u64(f.cells);
        }
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
        let version = r.header(MAGIC, &[1, EVAL_FILE_VERSION])?;
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
        let (hidden, hidden2) = (r.u32()? as usize, r.u32()? as usize);
        let (inputs, cells) = match version {
            1 => (Inputs::Pieces, u64::MAX),
            _ => match r.u8()? {
                0 => (Inputs::Pieces, r.u64()?),
                1 => (Inputs::Pairs, r.u64()?),
                n => return Err(r.invalid(format!("inputs {n} (0 pieces, 1 pairs)"))),
            },
        };
        let shape = Shape {
            hidden,
            hidden2,
            inputs,
        };
        shape.validate().map_err(|e| r.invalid(e))?;
        let (h, l) = (shape.hidden, shape.hidden2);
        let mut floats = |n: usize| (0..n).map(|_| r.f32()).collect::<Result<Vec<f32>, _>>();
        let w1 = floats(inputs.count() * h)?;
        let b1 = floats(h)?;
        let w2 = floats(l * 2 * h)?;
        let b2 = floats(l)?;
        let w3 = floats(l)?;
        let b3 = r.f32()?;
        let note = r.str16()?.to_string();
        let float = FloatEval {
            shape,
            cells,
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
