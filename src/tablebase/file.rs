//! The table file: one per material balance, named `<balance>.dtb`.
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | magic `DMNTBASE` |
//! | 4 | format version ([`TABLE_VERSION`]) |
//! | 2 | the no-progress limit the table was built for (plies) |
//! | 6 | the balance: the side to move's Pedine, Damas, Damones, then the opponent's |
//! | 8 | entries |
//! | entries | one byte per index ([`Value::to_byte`]) |
//! | 4 | CRC-32 of everything before it |
//!
//! All numbers little-endian.

use super::{Material, TablebaseError, Value};
use crate::util::bin::{Reader, Writer};
use std::path::{Path, PathBuf};

const TABLE_MAGIC: &[u8; 8] = b"DMNTBASE";
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

/// The path of a balance's table in `dir`.
pub fn table_path(dir: &Path, material: &Material) -> PathBuf {
    dir.join(format!("{}.dtb", material.name()))
}

/// The bytes of a table file.
pub(super) fn table_bytes(material: &Material, limit: u16, entries: &[u8]) -> Vec<u8> {
    let mut w = Writer::header(TABLE_MAGIC, TABLE_VERSION);
    w.u16(limit);
    for side in material.counts {
        w.bytes(&side);
    }
    w.u64(entries.len() as u64);
    w.bytes(entries);
    w.finish_with_crc32()
}

/// Check a table file's bytes: magic, version, balance, length and
/// checksum. Returns the no-progress limit it was built for.
pub(super) fn check_table(bytes: &[u8], material: &Material, path: &Path) -> Result<u16, TablebaseError> {
    let bad = |why: String| TablebaseError::BadFile(path.to_path_buf(), why);
    let mut r = Reader::new(bytes, "tablebase file");
    r.header(TABLE_MAGIC, &[TABLE_VERSION])
        .map_err(|e| bad(e.to_string()))?;
    let limit = r.u16().map_err(|e| bad(e.to_string()))?;
    let mut counts = [[0u8; 3]; 2];
    for side in &mut counts {
        side.copy_from_slice(r.take(3).map_err(|e| bad(e.to_string()))?);
    }
    if counts != material.counts {
        let found = Material { counts }.name();
        return Err(bad(format!("holds balance {found}, not {}", material.name())));
    }
    let n = r.u64().map_err(|e| bad(e.to_string()))?;
    if n != material.table_len() || bytes.len() as u64 != HEADER_LEN as u64 + n + 4 {
        return Err(bad(format!(
            "has {} bytes for {n} entries; balance {} has {} entries",
            bytes.len(),
            material.name(),
            material.table_len()
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
