//! The alpha-beta baseline's transposition table, shared by the threads of
//! one search (Lazy SMP: every thread searches the same root, and they
//! help each other only through this table). An entry is two atomic
//! words, the data and the key XOR the data, so that a read torn between
//! two writers fails its key check instead of returning a mix (Hyatt and
//! Mann's lockless hashing); no locks, and one thread pays only relaxed
//! loads and stores.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Bound of a stored score.
pub(super) const EXACT: u8 = 1;
pub(super) const LOWER: u8 = 2;
pub(super) const UPPER: u8 = 3;

/// What the table keeps of a searched position.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct TtEntry {
    /// The best move's code ([`Baseline::move_code`](super::Baseline::move_code)).
    pub(super) best: u16,
    pub(super) depth: i16,
    /// The score, relative to the node (mate distances from it); fits in 24 bits.
    pub(super) score: i32,
    /// [`EXACT`], [`LOWER`] or [`UPPER`] (never 0 in a stored entry).
    pub(super) bound: u8,
}

impl TtEntry {
    /// The entry in one word: move, depth, 24 bits of score, bound.
    fn pack(self) -> u64 {
        self.best as u64
            | (self.depth as u16 as u64) << 16
            | ((self.score as u32 as u64) & 0xff_ffff) << 32
            | (self.bound as u64) << 56
    }

    fn unpack(data: u64) -> TtEntry {
        TtEntry {
            best: data as u16,
            depth: (data >> 16) as u16 as i16,
            // The 24-bit score moved to the top and back: sign-extended.
            score: (((data >> 32) as u32) << 8) as i32 >> 8,
            bound: (data >> 56) as u8,
        }
    }
}

/// A table of `2^bits` entries, indexed by the key's top bits.
pub(super) struct SharedTable {
    slots: Vec<[AtomicU64; 2]>,
    bits: u32,
}

impl SharedTable {
    pub(super) fn new(bits: u32) -> SharedTable {
        SharedTable {
            slots: (0..1usize << bits)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            bits,
        }
    }

    fn slot(&self, key: u64) -> &[AtomicU64; 2] {
        &self.slots[(key >> (64 - self.bits)) as usize]
    }

    /// The entry stored for `key`, if its slot holds one for this key.
    pub(super) fn load(&self, key: u64) -> Option<TtEntry> {
        let [check, data] = self.slot(key);
        let data = data.load(Relaxed);
        let check = check.load(Relaxed);
        (data != 0 && check ^ data == key).then(|| TtEntry::unpack(data))
    }

    /// Store `entry` for `key`, replacing whatever its slot held.
    pub(super) fn store(&self, key: u64, entry: TtEntry) {
        let data = entry.pack();
        let [check, slot_data] = self.slot(key);
        check.store(key ^ data, Relaxed);
        slot_data.store(data, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_other_keys_miss() {
        let t = SharedTable::new(4);
        let entries = [
            TtEntry {
                best: 0,
                depth: -8,
                score: -100_063,
                bound: UPPER,
            },
            TtEntry {
                best: 4095,
                depth: 64,
                score: 100_001,
                bound: LOWER,
            },
            TtEntry {
                best: 17,
                depth: 0,
                score: -1,
                bound: EXACT,
            },
        ];
        for (i, e) in entries.iter().enumerate() {
            let key = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1);
            assert_eq!(TtEntry::unpack(e.pack()), *e);
            assert_eq!(t.load(key), None, "an empty slot");
            t.store(key, *e);
            assert_eq!(t.load(key), Some(*e));
            // Another key in the same slot (same top bits) misses.
            assert_eq!(t.load(key ^ 1), None);
        }
    }
}
