//! Shared helpers: seeded RNG streams, atomic file writes, Elo maths, timing.

pub mod elo;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::Path;

/// The RNG used everywhere; seeded streams make runs reproducible.
pub type Rng = ChaCha8Rng;

/// An RNG for a named stream derived from a master seed, so that independent
/// consumers (self-play game 17, training batches, ...) never share draws.
pub fn rng_stream(seed: u64, stream: &str, index: u64) -> Rng {
    let h = fnv1a(stream.as_bytes());
    let mixed = seed ^ h.rotate_left(17) ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    Rng::seed_from_u64(mixed)
}

/// 64-bit FNV-1a hash.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Write a file atomically: write a temporary file beside it, sync, rename.
/// A reader never sees a half-written file.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}
