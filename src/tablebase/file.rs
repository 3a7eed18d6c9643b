//! The table file: one per material balance, named `<balance>.dtb`.
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | magic: the game's ([`TableGame::TABLE_MAGIC`]: `DMNTBASE` Damone, `ITATBASE` Italian draughts, `DMOTBASE` Dameo) |
//! | 4 | format version ([`TABLE_VERSION`]) |
//! | 2 | the no-progress limit the table was built for (plies) |
//! | 6 | the balance: the side to move's pieces of each kind, lowest first (Damone's Pedine, Damas, Damones; men, kings, 0), then the opponent's |
//! | 8 | entries |
//! | entries | one byte per index ([`Value::to_byte`]) |
//! | 4 | CRC-32 of everything before it |
//!
//! All numbers little-endian.

use super::{Material, TablebaseError, Value};
use crate::game::{GameKind, TableGame};
use crate::util::bin::{Reader, Writer};
use std::path::{Path, PathBuf};

/// Version of the table file format.
pub const TABLE_VERSION: u32 = 1;
/// Bytes before the entries.
const HEADER_LEN: usize = 8 + 4 + 2 + 6 + 8;

/// The entries of one table, in memory or memory-mapped.
pub(super) enum Entries {
    Memory(Vec<u8>),
    Mapped(memmap2::Mmap),
}

impl Entries {
    /// The whole file.
    pub(super) fn all(&self) -> &[u8] {
        match self {
            Entries::Memory(v) => v,
            Entries::Mapped(m) => m,
        }
    }
    /// The entry bytes (the header and checksum left out).
    pub(super) fn bytes(&self) -> &[u8] {
        let all = self.all();
        &all[HEADER_LEN..all.len() - 4]
    }
}

/// The game whose tables begin with `magic`.
pub(super) fn game_of_magic(magic: &[u8; 8]) -> Option<GameKind> {
    GameKind::ALL
        .into_iter()
        .find(|&kind| crate::with_game!(kind, P => <P as TableGame>::TABLE_MAGIC == magic))
}

/// The path of a balance's table of `P` in `dir`.
pub fn table_path<P: TableGame>(dir: &Path, material: &Material) -> PathBuf {
    dir.join(format!("{}.dtb", material.name::<P>()))
}

/// The bytes of a table file of `P`.
pub(super) fn table_bytes<P: TableGame>(material: &Material, limit: u16, entries: &[u8]) -> Vec<u8> {
    let mut w = Writer::header(P::TABLE_MAGIC, TABLE_VERSION);
    w.u16(limit);
    for side in material.counts {
        w.bytes(&side);
    }
    w.u64(entries.len() as u64);
    w.bytes(entries);
    w.finish_with_crc32()
}

/// Refuse a table file of another game than `P` by name.
pub(super) fn check_game<P: TableGame>(bytes: &[u8], path: &Path) -> Result<(), TablebaseError> {
    let magic: Option<&[u8; 8]> = bytes.get(..8).and_then(|m| m.try_into().ok());
    match magic.and_then(game_of_magic) {
        Some(other) if other != P::ID => Err(TablebaseError::OtherGame(path.to_path_buf(), other, P::ID)),
        _ => Ok(()),
    }
}

/// Check a table file's bytes: magic, version, balance, length and
/// checksum. Returns the no-progress limit it was built for.
pub(super) fn check_table<P: TableGame>(
    bytes: &[u8],
    material: &Material,
    path: &Path,
) -> Result<u16, TablebaseError> {
    let bad = |why: String| TablebaseError::BadFile(path.to_path_buf(), why);
    check_game::<P>(bytes, path)?;
    let mut r = Reader::new(bytes, "tablebase file");
    r.header(P::TABLE_MAGIC, &[TABLE_VERSION])
        .map_err(|e| bad(e.to_string()))?;
    let limit = r.u16().map_err(|e| bad(e.to_string()))?;
    let mut counts = [[0u8; 3]; 2];
    for side in &mut counts {
        side.copy_from_slice(r.take(3).map_err(|e| bad(e.to_string()))?);
    }
    if counts != material.counts {
        let found = Material { counts }.name::<P>();
        return Err(bad(format!(
            "holds balance {found}, not {}",
            material.name::<P>()
        )));
    }
    let n = r.u64().map_err(|e| bad(e.to_string()))?;
    if n != material.table_len::<P>() || bytes.len() as u64 != HEADER_LEN as u64 + n + 4 {
        return Err(bad(format!(
            "has {} bytes for {n} entries; balance {} has {} entries",
            bytes.len(),
            material.name::<P>(),
            material.table_len::<P>()
        )));
    }
    let Some(body) = crate::util::bin::crc32_body(bytes).map(<[u8]>::len) else {
        return Err(bad(
            "checksum mismatch: the file is damaged; build it again".into()
        ));
    };
    let too_far = |b: &u8| Value::from_byte(*b).is_some_and(|v| v.plies() > limit);
    if let Some(b) = bytes[HEADER_LEN..body].iter().find(|b| too_far(b)) {
        return Err(bad(format!(
            "holds entry {:?}, beyond its no-progress limit of {limit} plies",
            Value::from_byte(*b)
        )));
    }
    Ok(limit)
}
