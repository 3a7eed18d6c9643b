//! A file of labelled training positions (`*.examples`), version 1,
//! little-endian, written with the binary reader and writer (`util::bin`):
//!
//! `b"DMNLEXMP"`, `u32` version, the game's name (`u16` length and
//! UTF-8), a `u64` count, then per position its six piece sets (`u64`
//! each, White's kinds then Black's), the side to move (`u8`, 0 White)
//! and the label (`f32`, the side to move's expected score), then a CRC-32
//! of every byte before it. Self-training keeps each round's positions in
//! one, so that a resumed run trains on the same positions.

use super::features::{Planes, KINDS};
use super::train::Example;
use crate::game::{Color, GameId};
use crate::util::bin::{crc32_body, BinError, Reader, Writer};

const MAGIC: &[u8; 8] = b"DMNLEXMP";
/// Version of the examples file format.
pub const EXAMPLES_FILE_VERSION: u32 = 1;
const WHAT: &str = "training positions file";
/// Bytes of one position in the file.
const EXAMPLE_BYTES: usize = 2 * KINDS * 8 + 1 + 4;

/// The file's bytes: `examples` of `game`.
pub fn examples_to_bytes(game: GameId, examples: &[Example]) -> Vec<u8> {
    let mut w = Writer::header(MAGIC, EXAMPLES_FILE_VERSION);
    w.str16(game.name());
    w.u64(examples.len() as u64);
    for e in examples {
        e.planes.iter().flatten().for_each(|&b| w.u64(b));
        w.u8(e.stm.index() as u8);
        w.f32(e.target);
    }
    w.finish_with_crc32()
}

/// Read a file's bytes, which must hold positions of `game`; a damaged,
/// foreign or other game's file is a one-line error.
pub fn examples_from_bytes(bytes: &[u8], game: GameId) -> Result<Vec<Example>, BinError> {
    let mut r = Reader::new(bytes, WHAT);
    r.header(MAGIC, &[EXAMPLES_FILE_VERSION])?;
    let Some(body) = crc32_body(bytes) else {
        return Err(r.invalid("checksum mismatch: the file is damaged"));
    };
    let mut r = Reader::new(body, WHAT);
    r.header(MAGIC, &[EXAMPLES_FILE_VERSION])?;
    let name = r.str16()?;
    if name != game.name() {
        return Err(r.invalid(format!("it holds {name} positions, not {game} ones")));
    }
    let n = r.count(EXAMPLE_BYTES)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut planes: Planes = [[0; KINDS]; 2];
        for cells in planes.iter_mut().flatten() {
            *cells = r.u64()?;
        }
        let stm = match r.u8()? {
            0 => Color::White,
            1 => Color::Black,
            c => return Err(r.invalid(format!("side to move {c} (0 or 1)"))),
        };
        let target = r.f32()?;
        if !(0.0..=1.0).contains(&target) {
            return Err(r.invalid(format!("label {target} outside [0, 1]")));
        }
        out.push(Example { planes, stm, target });
    }
    r.end()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some_examples() -> Vec<Example> {
        (0..5u64)
            .map(|i| Example {
                planes: [[i, i << 8, 3], [i << 20, 0, 1 << 63]],
                stm: if i % 2 == 0 { Color::White } else { Color::Black },
                target: i as f32 / 5.0,
            })
            .collect()
    }

    #[test]
    fn examples_round_trip_and_damage_is_refused() {
        let game = GameId::named("damone").unwrap();
        let bytes = examples_to_bytes(game, &some_examples());
        assert_eq!(examples_from_bytes(&bytes, game).unwrap(), some_examples());
        let mut bad = bytes.clone();
        bad[30] ^= 1;
        let e = examples_from_bytes(&bad, game).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
        let other = GameId::named("italian").unwrap();
        let e = examples_from_bytes(&bytes, other).unwrap_err().to_string();
        assert!(e.contains("not italian"), "{e}");
        assert!(examples_from_bytes(&bytes[..20], game).is_err());
    }
}
