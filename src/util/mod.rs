//! Shared helpers: seeded RNG streams, atomic file writes, Elo maths, timing,
//! the cosine schedule,
//! process CPU time, thread pools, text lines, SVG charts, stop requests
//! and the range checks of settings.

pub(crate) mod bin;
pub mod chart;
pub mod elo;
pub mod range;
pub mod simd;
pub mod stop;

pub use bin::BinError;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::Path;

/// The RNG used everywhere; seeded streams make runs reproducible.
pub type Rng = ChaCha8Rng;

/// An RNG for a named stream derived from a master seed, so that independent
/// consumers (self-play game 17, training batches, ...) never share draws.
pub fn rng_stream(seed: u64, stream: &str, index: u64) -> Rng {
    Rng::seed_from_u64(derive_seed(seed, stream, index))
}

/// The seed of a named stream derived from a master seed: the one
/// derivation every random stream and every seed handed on (a player's, a
/// game's, an actor's) comes from.
pub fn derive_seed(seed: u64, stream: &str, index: u64) -> u64 {
    let h = fnv1a(stream.as_bytes());
    seed ^ h.rotate_left(17) ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The next line of `input` without its line end: `Ok` with the text,
/// `Err` with a message for a line that is not UTF-8 (the caller answers
/// it and reads on), None at the end of input or on a read error.
pub fn next_line(input: &mut impl std::io::BufRead) -> Option<Result<String, String>> {
    let mut buf = Vec::new();
    match input.read_until(b'\n', &mut buf) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                buf.pop();
            }
            Some(String::from_utf8(buf).map_err(|_| "the line is not valid UTF-8".to_string()))
        }
    }
}

/// `text` cut to at most `max` characters (with "..." when cut), for
/// echoing user input in messages.
pub fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((i, _)) => format!("{}...", &text[..i]),
    }
}

/// A rayon pool of `threads` threads (the run's, an actor's, a learner's,
/// the protocol's one-thread pool); the error names the thread count.
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start a pool of {threads} threads: {e}"))
}

/// CPU seconds (user + system, all threads) this process has used so far,
/// read from Linux's `/proc/self/stat` (clock ticks of 1/100 s). `None`
/// where that file does not exist (other systems).
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in parentheses;
    // utime and stime are the 14th and 15th fields of the whole line.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Share of `threads` cores kept busy between two readings of
/// [`process_cpu_seconds`] over `wall` seconds (NaN when unknown).
pub fn cpu_busy_share(before: Option<f64>, after: Option<f64>, wall: f64, threads: usize) -> f64 {
    match (before, after) {
        (Some(b), Some(a)) if wall > 0.0 => (a - b) / (wall * threads.max(1) as f64),
        _ => f64::NAN,
    }
}

/// A cosine schedule's factor at `progress` in [0, 1]: 1 at the start,
/// falling to `floor` at the end (clamped beyond it).
pub fn cosine_decay(progress: f64, floor: f64) -> f64 {
    let t = progress.clamp(0.0, 1.0);
    floor + (1.0 - floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
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
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        // A full disk or a refused write leaves no partial file behind.
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
