//! Endgame tablebases for every game with [`TableGame`]: the exact value
//! of every position with few pieces, for the side to move, with its
//! distance to conversion. A folder holds one game's tables (each file
//! names its game by its first bytes).
//!
//! - [`build`] generates every table of up to N pieces by retrograde
//!   analysis ([`build`](build::build)), smallest first, since a capture
//!   or a promotion leaves a table for one already built;
//! - [`Tablebase`] opens a folder of tables (into memory or memory-mapped)
//!   and probes positions ([`Tablebase::probe`], [`Tablebase::move_values`]);
//! - [`verify`](verify::verify) checks every entry against a one-ply
//!   search over the entries of its successors.
//!
//! ## What a value means
//!
//! A table holds, for each position with the side to move as White (Black
//! to move is looked up turned, see [`Material`]), a [`Value`]: won, drawn
//! or lost with best play, and for a win or a loss the plies to the
//! *conversion* that settles it: a move that resets the no-progress counter
//! (a capture or a promotion; in Italian draughts and Dameo also a man's
//! step) into a position whose own value is a win for the winner, or a
//! position where the loser has no legal move. The winner converts as
//! soon as it can; the loser puts it off as long as it can.
//!
//! The rules are the game's ([`crate::game`]), its standard variant only.
//! **The no-progress rule** (a draw after `no_progress_plies` plies with no
//! conversion) is built in: a table is built for one limit
//! (80 by default, stored in the file), a conversion resets the count, and
//! a win that needs more plies than the limit allows before its next
//! conversion is a draw. A position reached with its no-progress counter at
//! `c` is won when its distance is at most `limit - c` ([`Value::at_counter`]).
//! **Repetition** is left out: the winner's shortest way never repeats a
//! position, and the loser cannot force a repetition against it, so a draw
//! by repetition changes no value. **The length cap** (`max_plies`) depends
//! on a game's history, not its position, and is left out: the tables
//! assume the cap is not reached.

mod build;
mod file;
mod index;
#[cfg(test)]
mod tests;
mod verify;

pub use build::{build, BuildOptions, TableReport};
pub use file::{table_path, TABLE_VERSION};
pub use index::{draw_positions, Material};
pub use verify::{verify, VerifyReport};

use crate::game::{DrawRules, GameId, GameKind, TableGame};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

/// The longest distance a table entry can hold, so the largest no-progress
/// limit a table can be built for.
pub const MAX_LIMIT: u16 = 126;
/// The entry byte of an index that holds no position.
const NO_POSITION: u8 = 255;

/// The exact value of a position for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Won: the side to move converts into a won position, or leaves the
    /// opponent without a move, within this many plies.
    Win(u16),
    /// Drawn with best play.
    Draw,
    /// Lost: the opponent wins within this many plies however the side to
    /// move plays (0: it has no legal move now).
    Loss(u16),
}

impl Value {
    /// The entry byte: 0 a draw, 1 to 127 a win in that many plies, 128 to
    /// 254 a loss in (byte - 128) plies.
    pub fn to_byte(self) -> u8 {
        match self {
            Value::Draw => 0,
            Value::Win(d) => d.clamp(1, 127) as u8,
            Value::Loss(d) => 128 + d.min(MAX_LIMIT) as u8,
        }
    }

    /// The value of an entry byte; None for an index with no position.
    pub fn from_byte(b: u8) -> Option<Value> {
        match b {
            0 => Some(Value::Draw),
            1..=127 => Some(Value::Win(b as u16)),
            NO_POSITION => None,
            _ => Some(Value::Loss(b as u16 - 128)),
        }
    }

    /// Plies to the conversion (0 for a draw).
    pub fn plies(self) -> u16 {
        match self {
            Value::Win(d) | Value::Loss(d) => d,
            Value::Draw => 0,
        }
    }

    /// The value with the no-progress counter at `counter` under a limit
    /// of `limit` plies (a stored value is for a counter of 0): a win or a
    /// loss further away than the plies left is a draw.
    pub fn at_counter(self, counter: u16, limit: u16) -> Value {
        if self.plies() as u32 + counter as u32 <= limit as u32 {
            self
        } else {
            Value::Draw
        }
    }

    /// The value for the other side.
    pub fn flip(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d),
            Value::Draw => Value::Draw,
            Value::Loss(d) => Value::Win(d),
        }
    }

    /// +1 won, 0 drawn, -1 lost.
    pub fn score(self) -> i32 {
        match self {
            Value::Win(_) => 1,
            Value::Draw => 0,
            Value::Loss(_) => -1,
        }
    }

    /// Larger is better for the side to move: a win beats a draw beats a
    /// loss; a nearer win and a further loss are better.
    fn order_key(self) -> (i32, i32) {
        match self {
            Value::Win(d) => (2, -(d as i32)),
            Value::Draw => (1, 0),
            Value::Loss(d) => (0, d as i32),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Win(d) => write!(f, "win in {d} plies to conversion"),
            Value::Draw => write!(f, "draw"),
            Value::Loss(0) => write!(f, "loss (no legal move)"),
            Value::Loss(d) => write!(f, "loss in {d} plies to conversion"),
        }
    }
}

/// Why tables could not be built, opened or used.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    /// A file or folder could not be read or written.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// A table file is damaged or not a table; the message says how.
    #[error("{0}: {1}")]
    BadFile(PathBuf, String),
    /// The folder holds no table.
    #[error(
        "no tablebase files (*.dtb) in {0}: build them with `damone tablebase build --pieces 4 --dir {0}`"
    )]
    Empty(PathBuf),
    /// The folder's tables were built for different no-progress limits.
    #[error("{0}: built for a no-progress limit of {1} plies, but the other tables there for {2}")]
    MixedLimits(PathBuf, u16, u16),
    /// A no-progress limit the tables cannot hold.
    #[error("a no-progress limit of {0} plies is not possible: tables hold distances of 1 to 126 plies")]
    Limit(u16),
    /// A piece count outside what can be built.
    #[error("--pieces {0}: tables of 2 to 5 pieces can be built")]
    Pieces(u32),
    /// The tables are another game's.
    #[error("{0}: these are {1} tables, and the game is {2}")]
    OtherGame(PathBuf, GameKind, GameId),
    /// A table a bigger one is built from is missing.
    #[error("table {0} is needed first (build the tables of fewer pieces into the same folder)")]
    Missing(String),
}

/// One table: its entries in memory or memory-mapped.
struct Table {
    entries: file::Entries,
}

/// A set of tables of the game `P` sharing one no-progress limit.
pub struct Tablebase<P: TableGame> {
    tables: HashMap<Material, Table>,
    limit: u16,
    /// The most pieces of any table here: a position with more is not
    /// looked up (a search probes at every node).
    most_pieces: u32,
    game: PhantomData<fn() -> P>,
}

/// The game whose tables are in `dir` (read from its first table file's
/// first bytes).
pub fn game_of_tables(dir: &Path) -> Result<GameKind, TablebaseError> {
    let io = |e| TablebaseError::Io(dir.to_path_buf(), e);
    let first = table_files(dir)?
        .into_iter()
        .next()
        .ok_or_else(|| TablebaseError::Empty(dir.to_path_buf()))?;
    let mut magic = [0u8; 8];
    std::io::Read::read_exact(&mut std::fs::File::open(&first).map_err(io)?, &mut magic)
        .map_err(|e| TablebaseError::Io(first.clone(), e))?;
    file::game_of_magic(&magic)
        .ok_or_else(|| TablebaseError::BadFile(first, "not a table file (unknown first bytes)".into()))
}

/// The table files (`*.dtb`) in `dir`, sorted.
fn table_files(dir: &Path) -> Result<Vec<PathBuf>, TablebaseError> {
    let io = |e| TablebaseError::Io(dir.to_path_buf(), e);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dtb"))
        .collect();
    paths.sort();
    Ok(paths)
}

impl<P: TableGame> Tablebase<P> {
    /// An empty set for `limit` (the builder fills it).
    fn empty(limit: u16) -> Tablebase<P> {
        Tablebase {
            tables: HashMap::new(),
            limit,
            most_pieces: 0,
            game: PhantomData,
        }
    }

    /// Add the table of `material`.
    fn insert(&mut self, material: Material, table: Table) {
        self.most_pieces = self.most_pieces.max(material.pieces());
        self.tables.insert(material, table);
    }

    /// Every table (`*.dtb`) in `dir`, each checked (magic, version,
    /// balance, size, checksum) and read into memory, or memory-mapped with
    /// `mmap`.
    pub fn open(dir: &Path, mmap: bool) -> Result<Tablebase<P>, TablebaseError> {
        let mut tb: Option<Tablebase<P>> = None;
        for path in table_files(dir)? {
            let (material, table, limit) = open_table::<P>(&path, mmap)?;
            let set = tb.get_or_insert_with(|| Tablebase::empty(limit));
            if set.limit != limit {
                return Err(TablebaseError::MixedLimits(path, limit, set.limit));
            }
            set.insert(material, table);
        }
        tb.ok_or_else(|| TablebaseError::Empty(dir.to_path_buf()))
    }

    /// The no-progress limit the tables were built for.
    pub fn limit(&self) -> u16 {
        self.limit
    }

    /// The largest N such that every balance of up to N pieces is here.
    pub fn max_pieces(&self) -> u32 {
        (2..=8)
            .take_while(|&n| {
                Material::all_with::<P>(n)
                    .iter()
                    .all(|m| self.tables.contains_key(m))
            })
            .last()
            .unwrap_or(0)
    }

    /// The balances held, fewest pieces first.
    pub fn materials(&self) -> Vec<Material> {
        let mut v: Vec<Material> = self.tables.keys().copied().collect();
        v.sort_by_key(|m| (m.pieces(), m.name::<P>()));
        v
    }

    /// The stored value of `pos` (its no-progress counter taken as 0), or
    /// None where no table covers it (another variant, or a balance not
    /// here). A side without pieces needs no table.
    pub fn entry(&self, pos: &P) -> Option<Value> {
        if !pos.table_variant() {
            return None;
        }
        let material = Material::of(pos);
        let (mine, theirs) = (material.side_pieces(0), material.side_pieces(1));
        if mine == 0 {
            return Some(Value::Loss(0));
        }
        if theirs == 0 {
            // Any move leaves the opponent, without pieces, lost.
            let moves = pos.legal_moves();
            return Some(if moves.is_empty() {
                Value::Loss(0)
            } else {
                Value::Win(1)
            });
        }
        if mine + theirs > self.most_pieces {
            return None;
        }
        let table = self.tables.get(&material)?;
        Value::from_byte(table.entries.bytes()[material.index(pos) as usize])
    }

    /// The value of `pos` with its own no-progress counter, under the
    /// limit the tables were built for ([`Value::at_counter`]).
    pub fn probe(&self, pos: &P) -> Option<Value> {
        self.probe_at(pos, pos.no_progress())
    }

    /// The value of `pos` with its no-progress counter at `counter`.
    pub fn probe_at(&self, pos: &P, counter: u16) -> Option<Value> {
        self.entry(pos).map(|v| v.at_counter(counter, self.limit))
    }

    /// Every legal move of `pos` with the value it leads to for the side
    /// to move (a conversion counts one ply; a quiet move one more than its
    /// successor's distance), best first; None where a successor is not
    /// covered. Empty when `pos` has no legal move.
    pub fn move_values(&self, pos: &P) -> Option<Vec<(P::Move, Value)>> {
        self.valued_moves(pos, pos.no_progress()).ok()
    }

    /// [`Tablebase::move_values`] with the no-progress counter at `counter`.
    pub fn move_values_at(&self, pos: &P, counter: u16) -> Option<Vec<(P::Move, Value)>> {
        self.valued_moves(pos, counter).ok()
    }

    /// [`Tablebase::move_values`], or the balance of a successor no table
    /// here covers.
    fn valued_moves(&self, pos: &P, counter: u16) -> Result<Vec<(P::Move, Value)>, Material> {
        let mut out = Vec::new();
        for m in pos.legal_moves() {
            let mut child = *pos;
            let conversion = child.play_unchecked(&m);
            let v = self.entry(&child).ok_or_else(|| Material::of(&child))?;
            out.push((m, move_value(v, !conversion, counter, self.limit)));
        }
        out.sort_by_key(|(_, v)| std::cmp::Reverse(v.order_key()));
        Ok(out)
    }

    /// Whether the tables serve games under `rules`: they were built for
    /// its no-progress limit.
    pub fn serves(&self, rules: &DrawRules) -> bool {
        self.limit as u32 == rules.no_progress_plies
    }
}

/// A move's value for the mover, from its successor's stored value `child`
/// (for the opponent, counter 0), at no-progress counter `counter`: a
/// conversion settles in one ply (the count starts again after it), a
/// quiet move takes one ply more than the successor's distance and must
/// fit in the plies left.
fn move_value(child: Value, quiet: bool, counter: u16, limit: u16) -> Value {
    let mine = child.flip();
    let plies = if quiet { mine.plies() + 1 } else { 1 };
    let v = match mine {
        Value::Win(_) => Value::Win(plies),
        Value::Loss(_) => Value::Loss(plies),
        Value::Draw => Value::Draw,
    };
    v.at_counter(counter, limit)
}

/// Open and check one table file of `P`.
fn open_table<P: TableGame>(path: &Path, mmap: bool) -> Result<(Material, Table, u16), TablebaseError> {
    let io = |e| TablebaseError::Io(path.to_path_buf(), e);
    let entries = if mmap {
        let f = std::fs::File::open(path).map_err(io)?;
        // SAFETY: the map is read-only; the tables are not written while
        // open (the builder writes a new file and renames it into place).
        let map = unsafe { memmap2::Mmap::map(&f) }.map_err(io)?;
        file::Entries::Mapped(map)
    } else {
        file::Entries::Memory(std::fs::read(path).map_err(io)?)
    };
    file::check_game::<P>(entries.all(), path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let material = Material::parse::<P>(&stem).map_err(|e| TablebaseError::BadFile(path.to_path_buf(), e))?;
    let limit = file::check_table::<P>(entries.all(), &material, path)?;
    Ok((material, Table { entries }, limit))
}
