//! The games-in-flight file of a checkpoint ([`SelfPlay::to_bytes`],
//! [`SelfPlay::restore`]): per game its start position, draw rules and
//! moves (each as its index among the legal moves, checked on reading),
//! its resignation state, and its samples waiting for the game's outcome.
//! Older versions are still read: their samples lack the fields added
//! since ([`SampleLayout`]).

use super::{Pending, SelfPlay};
use crate::data::{read_sample, write_sample, SampleLayout};
use crate::game::interface::{parse_stored_variant, stored_variant_name};
use crate::game::{Color, DrawRules, Game, GamePosition};
use crate::net::Board;
use crate::util::bin::{BinError, Reader, Writer};

const INFLIGHT_MAGIC: &[u8; 8] = b"DMNGAMES";
/// Version of the games-in-flight format ([`SelfPlay::to_bytes`]).
/// Version 1 had a side byte (the sample position's side to move) instead
/// of a ply per pending sample, and samples without auxiliary targets;
/// version 2's samples have no reply field. Both are still read.
pub const INFLIGHT_VERSION: u32 = 3;

impl<P: Board> SelfPlay<P> {
    /// The games in flight as bytes (for checkpoints): per game its start
    /// position, rules and moves, its pending samples and resignation state.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::header(INFLIGHT_MAGIC, INFLIGHT_VERSION);
        w.u32(crate::net::ENCODING_VERSION);
        w.u64(self.env.episodes);
        w.u64(self.slots.len() as u64);
        for (s, g) in self.slots.iter().zip(self.env.games()) {
            write_game(&mut w, g);
            w.u8(s.may_resign as u8);
            w.u8(match s.would_resign {
                None => 0,
                Some(Color::White) => 1,
                Some(Color::Black) => 2,
            });
            w.u32(s.pending.len() as u32);
            for p in &s.pending {
                w.u32(p.ply.unwrap_or(u32::MAX));
                write_sample(&mut w, &p.sample);
            }
        }
        w.finish()
    }

    /// Restore the games in flight written by [`SelfPlay::to_bytes`] into a
    /// driver made with the same settings.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), BinError> {
        let mut r = Reader::new(bytes, "games-in-flight file");
        let version = r.header(INFLIGHT_MAGIC, &[1, 2, INFLIGHT_VERSION])?;
        let layout = SampleLayout::of_version(version, 2);
        let enc = r.u32()?;
        if enc != crate::net::ENCODING_VERSION {
            return Err(r.invalid(format!(
                "written for input encoding version {enc}; this build uses version {}",
                crate::net::ENCODING_VERSION
            )));
        }
        let episodes = r.u64()?;
        let n = r.count(8)?;
        if n != self.slots.len() {
            return Err(r.invalid(format!(
                "{n} games in flight, but the run plays {} at once",
                self.slots.len()
            )));
        }
        let mut restored = Vec::with_capacity(n);
        for _ in 0..n {
            let game = read_game(&mut r)?;
            let may_resign = r.u8()? != 0;
            let would_resign = match r.u8()? {
                0 => None,
                1 => Some(Color::White),
                2 => Some(Color::Black),
                v => return Err(r.invalid(format!("bad resignation code {v}"))),
            };
            let k = r.u32()? as usize;
            let mut pending = Vec::with_capacity(k.min(4096));
            for _ in 0..k {
                let ply = if version >= 2 {
                    Some(r.u32()?).filter(|&p| p != u32::MAX)
                } else {
                    // The side byte: the sample's position says it.
                    r.u8()?;
                    None
                };
                let sample = read_sample(&mut r, layout)?;
                pending.push(Pending { sample, ply });
            }
            restored.push((game, may_resign, would_resign, pending));
        }
        r.end()?;
        self.env.episodes = episodes;
        for (i, (game, may_resign, would_resign, pending)) in restored.into_iter().enumerate() {
            self.env.set_game(i, game);
            let s = &mut self.slots[i];
            s.tree = None;
            s.searching = false;
            s.may_resign = may_resign;
            s.would_resign = would_resign;
            s.pending = pending;
        }
        Ok(())
    }
}

/// Append a game: its start (variant name and FEN), its draw rules, and
/// each move as its index among the legal moves.
fn write_game<P: GamePosition>(w: &mut Writer, g: &Game<P>) {
    w.str16(&stored_variant_name::<P>(g.start().variant()));
    w.str16(&g.start().to_setup());
    w.u32(g.rules().no_progress_plies);
    w.u32(g.rules().max_plies);
    w.u32(g.moves().len() as u32);
    let mut replay = Game::new(*g.start(), g.rules());
    for m in g.moves() {
        let legal = replay.position().legal_moves();
        let k = legal.iter().position(|x| x == m).unwrap_or(0);
        w.u16(k as u16);
        replay.play_unchecked(m);
    }
}

/// Read a game written by [`write_game`], checking every move.
fn read_game<P: GamePosition>(r: &mut Reader<'_>) -> Result<Game<P>, BinError> {
    let variant = parse_stored_variant::<P>(r.str16()?).map_err(|e| r.invalid(e))?;
    let fen = r.str16()?;
    let start = P::from_setup(fen, variant).map_err(|e| r.invalid(format!("bad FEN '{fen}': {e}")))?;
    let rules = DrawRules {
        no_progress_plies: r.u32()?,
        max_plies: r.u32()?,
    };
    let n = r.u32()?;
    let mut g = Game::new(start, rules);
    let mut legal = Vec::new();
    for _ in 0..n {
        g.position().legal_moves_into(&mut legal);
        if g.outcome_with(&legal).is_some() {
            return Err(r.invalid("a game in flight has moves after its end"));
        }
        let k = r.u16()? as usize;
        let m = *legal
            .get(k)
            .ok_or_else(|| r.invalid(format!("move index {k} of {} legal moves", legal.len())))?;
        g.play_unchecked(&m);
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{AuxTargets, Sample};
    use crate::game::damone::{Position, Variant};
    use crate::mcts::Wdl;
    use crate::selfplay::SelfPlayConfig;

    /// A driver of one game opened with `opening_plies` random plies.
    fn driver(opening_plies: u32, seed: u64) -> SelfPlay<Position> {
        let cfg = SelfPlayConfig {
            parallel_games: 1,
            opening_plies,
            ..SelfPlayConfig::default()
        };
        SelfPlay::new(
            &cfg,
            Position::start(Variant::Standard),
            DrawRules::default(),
            seed,
        )
    }

    fn sample(aux: bool) -> Sample<Position> {
        Sample {
            pos: Position::start(Variant::Standard),
            repeated: false,
            no_progress: 0.25,
            policy: vec![(5, 0.5), (9, 0.5)],
            z: Wdl::DRAW,
            q: Wdl::new(0.3, 0.4, 0.3),
            surprise: if aux { 0.5 } else { 0.0 },
            aux: aux.then_some(AuxTargets {
                material: -0.25,
                plies_left: 0.4,
            }),
            reply: None,
        }
    }

    /// A games-in-flight file of `version` for `sp`'s one game, whose one
    /// pending sample is written with its last `cut` bytes (the fields that
    /// version lacks) removed; version 1 has a side byte where later ones
    /// have the sample's ply.
    fn old_file(sp: &SelfPlay<Position>, version: u32, s: &Sample<Position>, cut: usize) -> Vec<u8> {
        let mut one = Writer::new();
        write_sample(&mut one, s);
        let one = one.finish();
        let mut w = Writer::header(INFLIGHT_MAGIC, version);
        w.u32(crate::net::ENCODING_VERSION);
        w.u64(5);
        w.u64(1);
        write_game(&mut w, &sp.games()[0]);
        w.u8(1);
        w.u8(2);
        w.u32(1);
        if version == 1 {
            w.u8(0);
        } else {
            w.u32(17);
        }
        w.bytes(&one[..one.len() - cut]);
        w.finish()
    }

    #[test]
    fn round_trip_and_older_versions() {
        let sp = driver(3, 7);
        let game = sp.games()[0].clone();
        assert_eq!(game.moves().len(), 3);
        let check = |bytes: &[u8], s: &Sample<Position>, ply: Option<u32>| {
            // Another game than the file's, so that the restore shows.
            let mut back = driver(1, 8);
            back.restore(bytes).unwrap();
            assert_eq!(back.env.episodes, 5);
            assert_eq!(back.games()[0].moves(), game.moves());
            assert!(back.slots[0].may_resign);
            assert_eq!(back.slots[0].would_resign, Some(Color::Black));
            assert_eq!(back.slots[0].pending.len(), 1);
            assert_eq!(back.slots[0].pending[0].sample, *s);
            assert_eq!(back.slots[0].pending[0].ply, ply);
            back
        };
        // Version 1: a side byte and no ply, no surprise, auxiliary flag or
        // reply flag.
        check(&old_file(&sp, 1, &sample(false), 6), &sample(false), None);
        // Version 2: a ply, and no reply flag.
        check(&old_file(&sp, 2, &sample(true), 1), &sample(true), Some(17));
        // This version round-trips byte for byte.
        let now = old_file(&sp, INFLIGHT_VERSION, &sample(true), 0);
        let back = check(&now, &sample(true), Some(17));
        assert_eq!(back.to_bytes(), now);
        // A version from the future and a cut file are errors, not panics.
        let mut future = now.clone();
        future[8] = INFLIGHT_VERSION as u8 + 1;
        let e = driver(3, 7).restore(&future).unwrap_err().to_string();
        assert!(e.contains("format version 4"), "{e}");
        let e = driver(3, 7)
            .restore(&now[..now.len() - 3])
            .unwrap_err()
            .to_string();
        assert!(e.contains("truncated"), "{e}");
    }
}
