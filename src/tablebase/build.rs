//! The generator: every table of up to N pieces by retrograde analysis.
//!
//! Balances are built fewest pieces first and, among those with as many
//! pieces, highest rank sum first: a capture leaves a balance of fewer
//! pieces and a promotion one of a higher rank sum, so every conversion
//! leads into a table already built. A balance is built together with its
//! colour-swapped partner (a quiet move of the side to move leads from one
//! to the other).
//!
//! A *conversion* is a move that resets the no-progress counter: a
//! capture or a promotion, which leaves the balance, and in games where a
//! man's step resets the counter too (Italian draughts, Dameo), that step,
//! which keeps the balance but raises the men's progress
//! ([`TableGame::progress`]).
//!
//! For a pair of tables the generator
//! 1. scans every position once (in parallel): its legal moves, the value
//!    of each conversion that leaves the balance looked up in the tables
//!    built before, a link for each man's step to its successor, and an
//!    edge for each quiet move to its successor;
//! 2. turns the edges round into predecessor lists;
//! 3. settles the positions a stage at a time, most progress first (a
//!    man's step leads into a stage settled before; a quiet move stays in
//!    its stage). A stage takes its men's steps as conversions, then
//!    settles values by distance, 0 up to the no-progress limit, as a
//!    breadth-first search backwards from the known ones: a position with
//!    a successor lost for the opponent at distance d is won at d + 1 (the
//!    first time one is found is the nearest); a position all of whose
//!    moves lead to the opponent's wins is lost at one more than the
//!    furthest of them, found when the last of them is settled. What is
//!    left unsettled at the limit is drawn.

use super::file::{check_table, table_bytes, table_path, Entries};
use super::index::Material;
use super::{Table, Tablebase, TablebaseError, Value, MAX_LIMIT, NO_POSITION};
use crate::game::TableGame;
use crate::util::atomic_write;
use rayon::prelude::*;
use std::ops::Range;
use std::path::PathBuf;
use std::time::Instant;

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Every balance of 2 up to this many pieces.
    pub max_pieces: u32,
    /// The no-progress limit (plies) the tables are for.
    pub limit: u16,
    /// The folder the tables go to. Tables already there, sound and for
    /// the same limit, are kept rather than built again.
    pub dir: PathBuf,
}

/// One table's figures.
#[derive(Clone, Debug)]
pub struct TableReport {
    /// The table's balance.
    pub material: Material,
    /// The balance's name in its game ([`Material::name`]).
    pub name: String,
    /// Bytes of its file (the entries, the header and the checksum).
    pub file_bytes: u64,
    /// Indices that hold a position.
    pub positions: u64,
    /// Positions won for the side to move.
    pub wins: u64,
    /// Positions drawn.
    pub draws: u64,
    /// Positions lost for the side to move.
    pub losses: u64,
    /// The longest distance to conversion.
    pub longest: u16,
    /// Seconds spent on it (a pair's time shared between its two tables).
    pub seconds: f64,
    /// Found in the folder already, not built again.
    pub kept: bool,
}

impl TableReport {
    fn of<P: TableGame>(material: Material, file: &Entries, seconds: f64, kept: bool) -> TableReport {
        let entries = file.bytes();
        let mut r = TableReport {
            material,
            name: material.name::<P>(),
            file_bytes: file.all().len() as u64,
            positions: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            longest: 0,
            seconds,
            kept,
        };
        for v in entries.iter().filter_map(|&b| Value::from_byte(b)) {
            r.positions += 1;
            match v {
                Value::Win(_) => r.wins += 1,
                Value::Draw => r.draws += 1,
                Value::Loss(_) => r.losses += 1,
            }
            r.longest = r.longest.max(v.plies());
        }
        r
    }
}

/// Positions per task of the scan.
const CHUNK: u64 = 1 << 13;

/// Build every table of 2 up to `opts.max_pieces` pieces into `opts.dir`
/// (each file written whole or not at all); `on_table` hears of each
/// table as it is done, with the count done and the count in all. Returns
/// the tables, in memory.
pub fn build<P: TableGame>(
    opts: &BuildOptions,
    on_table: &mut dyn FnMut(&TableReport, usize, usize),
) -> Result<Tablebase<P>, TablebaseError> {
    if opts.limit == 0 || opts.limit > MAX_LIMIT {
        return Err(TablebaseError::Limit(opts.limit));
    }
    if !(2..=5).contains(&opts.max_pieces) {
        return Err(TablebaseError::Pieces(opts.max_pieces));
    }
    let io = |e| TablebaseError::Io(opts.dir.clone(), e);
    std::fs::create_dir_all(&opts.dir).map_err(io)?;
    let pairs = build_order::<P>(opts.max_pieces);
    let total: usize = pairs.iter().map(Vec::len).sum();
    let mut tb = Tablebase::<P>::empty(opts.limit);
    let mut done = 0;
    for pair in pairs {
        let t = Instant::now();
        let (tables, kept) = match kept_tables::<P>(&pair, opts) {
            Some(files) => (files, true),
            None => (build_pair(&pair, &tb, opts.limit), false),
        };
        let seconds = t.elapsed().as_secs_f64() / pair.len() as f64;
        for (m, bytes) in pair.iter().zip(tables) {
            let path = table_path::<P>(&opts.dir, m);
            let bytes = if kept {
                bytes
            } else {
                let file = table_bytes::<P>(m, opts.limit, &bytes);
                atomic_write(&path, &file).map_err(|e| TablebaseError::Io(path.clone(), e))?;
                file
            };
            let entries = Entries::Memory(bytes);
            let report = TableReport::of::<P>(*m, &entries, seconds, kept);
            tb.insert(*m, Table { entries });
            done += 1;
            on_table(&report, done, total);
        }
    }
    Ok(tb)
}

/// The balances of up to `max_pieces` pieces in pairs (a balance and its
/// colour-swapped partner, or one alone when they are the same), in the
/// order they can be built.
fn build_order<P: TableGame>(max_pieces: u32) -> Vec<Vec<Material>> {
    let mut pairs: Vec<Vec<Material>> = Vec::new();
    for n in 2..=max_pieces {
        let mut all = Material::all_with::<P>(n);
        all.sort_by_key(|m| (std::cmp::Reverse(m.rank_sum()), m.name::<P>()));
        for m in all {
            if pairs.iter().any(|p| p.contains(&m)) {
                continue;
            }
            let s = m.swapped();
            pairs.push(if s == m { vec![m] } else { vec![m, s] });
        }
    }
    pairs
}

/// The files of a pair already in the folder, whole, when every one is
/// sound and built for the same limit.
fn kept_tables<P: TableGame>(pair: &[Material], opts: &BuildOptions) -> Option<Vec<Vec<u8>>> {
    pair.iter()
        .map(|m| {
            let path = table_path::<P>(&opts.dir, m);
            let bytes = std::fs::read(&path).ok()?;
            let limit = check_table::<P>(&bytes, m, &path).ok()?;
            (limit == opts.limit).then_some(bytes)
        })
        .collect()
}

/// The positions of a pair of tables of `P`, numbered one after the
/// other.
struct PairSpace<'a, P> {
    tables: &'a [Material],
    /// Where each table's numbers start, and the end of the last.
    starts: Vec<u64>,
    game: std::marker::PhantomData<fn() -> P>,
}

impl<'a, P: TableGame> PairSpace<'a, P> {
    fn new(tables: &'a [Material]) -> PairSpace<'a, P> {
        let mut starts = vec![0];
        for m in tables {
            starts.push(starts.last().copied().unwrap_or(0) + m.table_len::<P>());
        }
        PairSpace {
            tables,
            starts,
            game: std::marker::PhantomData,
        }
    }
    fn len(&self) -> u64 {
        self.starts[self.tables.len()]
    }
    /// The table of position `id` and its index there.
    fn locate(&self, id: u64) -> (usize, u64) {
        let t = if id >= self.starts[1] { 1 } else { 0 };
        (t, id - self.starts[t])
    }
    /// The table a quiet move of table `t` leads to.
    fn partner(&self, t: usize) -> usize {
        if self.tables.len() == 1 {
            0
        } else {
            1 - t
        }
    }
}

/// What the scan learns of one position.
#[derive(Clone, Copy, Default)]
struct Info {
    /// The index holds a position.
    valid: bool,
    no_moves: bool,
    /// Quiet moves whose successors are not yet known to be won for the
    /// opponent.
    open: u8,
    /// A conversion into a position lost for the opponent.
    converts_to_win: bool,
    /// A move that does not lose: a conversion into a position not won
    /// for the opponent, or a quiet move into one the opponent cannot win
    /// within the limit.
    escape: bool,
    /// The furthest loss found so far among its moves.
    floor: u8,
    /// Its men's progress ([`TableGame::progress`]).
    stage: u8,
}

/// The scan of a range of positions: each one's [`Info`], the quiet moves
/// as (successor, position) edges, and the men's steps that keep the
/// balance as (position, successor) links.
#[derive(Default)]
struct Scan {
    info: Vec<Info>,
    edges: Vec<(u32, u32)>,
    steps: Vec<(u32, u32)>,
}

/// Where a move of a position being scanned leads.
enum Successor {
    /// A quiet move, to a position of the pair (an edge recorded).
    Quiet,
    /// A man's step that keeps the balance, to a position of the pair of
    /// more progress (a link recorded).
    Step,
    /// A conversion into a table built before, with its value there.
    Known(Value),
}

/// Scan every position of the pair, in parallel: the parts in order
/// (their edges are not gathered into one list, which would hold them
/// twice at once).
fn scan<P: TableGame>(space: &PairSpace<'_, P>, done: &Tablebase<P>) -> Vec<Scan> {
    let n = space.len();
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| scan_range(space, done, c * CHUNK..((c + 1) * CHUNK).min(n)))
        .collect()
}

fn scan_range<P: TableGame>(space: &PairSpace<'_, P>, done: &Tablebase<P>, range: Range<u64>) -> Scan {
    let mut moves = Vec::new();
    let mut out = Scan::default();
    for id in range {
        let (t, local) = space.locate(id);
        let Some(pos) = space.tables[t].position::<P>(local) else {
            out.info.push(Info::default());
            continue;
        };
        let partner = space.partner(t);
        out.info
            .push(scan_position(&pos, &mut moves, |child, irreversible| {
                let m = space.tables[partner];
                if Material::of(child) != m {
                    let value = done
                        .entry(child)
                        .expect("a conversion leads into a table built before");
                    return Successor::Known(value);
                }
                let child_id = (space.starts[partner] + m.index(child)) as u32;
                if irreversible {
                    out.steps.push((id as u32, child_id));
                    Successor::Step
                } else {
                    out.edges.push((child_id, id as u32));
                    Successor::Quiet
                }
            }));
    }
    out
}

/// The [`Info`] of `pos`; `successor` says where a move leads (the
/// successor, and whether the move was irreversible) and records it.
fn scan_position<P: TableGame>(
    pos: &P,
    moves: &mut Vec<P::Move>,
    mut successor: impl FnMut(&P, bool) -> Successor,
) -> Info {
    pos.legal_moves_into(moves);
    let mut info = Info {
        valid: true,
        no_moves: moves.is_empty(),
        stage: pos.progress() as u8,
        ..Info::default()
    };
    for m in moves.iter() {
        let mut child = *pos;
        let irreversible = child.play_unchecked(m);
        match successor(&child, irreversible) {
            Successor::Quiet => info.open += 1,
            Successor::Step => {}
            Successor::Known(value) => info.take_conversion(value),
        }
    }
    info
}

impl Info {
    /// A conversion into a position of value `value` for the opponent.
    fn take_conversion(&mut self, value: Value) {
        match value {
            Value::Loss(_) => {
                self.converts_to_win = true;
                self.escape = true;
            }
            Value::Draw => self.escape = true,
            Value::Win(_) => self.floor = 1,
        }
    }
}

/// Predecessor lists: those of position `s` are `list[start[s]..start[s + 1]]`.
struct Predecessors {
    start: Vec<usize>,
    list: Vec<u32>,
}

impl Predecessors {
    /// From the quiet-move edges of every part of the scan.
    fn of(n: usize, parts: &[Scan]) -> Predecessors {
        let edges = || parts.iter().flat_map(|p| p.edges.iter());
        let mut start = vec![0usize; n + 1];
        for &(s, _) in edges() {
            start[s as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; start[n]];
        for &(s, p) in edges() {
            list[fill[s as usize]] = p;
            fill[s as usize] += 1;
        }
        Predecessors { start, list }
    }
    fn of_position(&self, s: usize) -> &[u32] {
        &self.list[self.start[s]..self.start[s + 1]]
    }
}

/// Build one pair of tables from the tables `done` before it.
fn build_pair<P: TableGame>(pair: &[Material], done: &Tablebase<P>, limit: u16) -> Vec<Vec<u8>> {
    let space = PairSpace::<P>::new(pair);
    let mut parts = scan(&space, done);
    let preds = Predecessors::of(space.len() as usize, &parts);
    let steps: Vec<(u32, u32)> = parts
        .iter_mut()
        .flat_map(|p| std::mem::take(&mut p.steps))
        .collect();
    let mut info: Vec<Info> = parts.into_iter().flat_map(|p| p.info).collect();
    let values = settle(&mut info, &preds, &steps, limit);
    space
        .starts
        .windows(2)
        .map(|w| values[w[0] as usize..w[1] as usize].to_vec())
        .collect()
}

/// Settle every value, a stage at a time, most progress first (see the
/// module docs); the entry bytes. `steps` are the men's steps that keep
/// the balance, as (position, successor).
fn settle(info: &mut [Info], preds: &Predecessors, steps: &[(u32, u32)], limit: u16) -> Vec<u8> {
    let stages = info
        .iter()
        .filter(|i| i.valid)
        .map(|i| i.stage as usize)
        .max()
        .unwrap_or(0)
        + 1;
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); stages];
    for (id, inf) in info.iter().enumerate().filter(|(_, i)| i.valid) {
        members[inf.stage as usize].push(id as u32);
    }
    let mut steps_of: Vec<Vec<(u32, u32)>> = vec![Vec::new(); stages];
    for &(p, c) in steps {
        steps_of[info[p as usize].stage as usize].push((p, c));
    }
    let mut value: Vec<u8> = info
        .iter()
        .map(|i| if i.valid { 0 } else { NO_POSITION })
        .collect();
    let mut known = vec![false; info.len()];
    for stage in (0..stages).rev() {
        for &(p, c) in &steps_of[stage] {
            let child = Value::from_byte(value[c as usize]).expect("a step leads into a settled stage");
            info[p as usize].take_conversion(child);
        }
        settle_stage(info, preds, &members[stage], limit, &mut value, &mut known);
    }
    value
}

/// Settle the positions `members` of one stage by distance (see the
/// module docs) into `value`: every successor outside the stage is settled
/// already, and quiet moves stay inside it.
fn settle_stage(
    info: &mut [Info],
    preds: &Predecessors,
    members: &[u32],
    limit: u16,
    value: &mut [u8],
    known: &mut [bool],
) {
    let limit = limit as usize;
    let mut wins: Vec<Vec<u32>> = vec![Vec::new(); limit + 2];
    let mut losses: Vec<Vec<u32>> = vec![Vec::new(); limit + 2];
    for &id in members {
        let inf = &info[id as usize];
        if inf.no_moves {
            losses[0].push(id);
        } else if inf.converts_to_win {
            wins[1].push(id);
        } else if inf.open == 0 && !inf.escape {
            losses[1].push(id);
        }
    }
    for d in 0..=limit {
        for p in std::mem::take(&mut losses[d]) {
            let p = p as usize;
            if std::mem::replace(&mut known[p], true) {
                continue;
            }
            value[p] = Value::Loss(d as u16).to_byte();
            if d < limit {
                wins[d + 1].extend(preds.of_position(p).iter().filter(|&&q| !known[q as usize]));
            }
        }
        for p in std::mem::take(&mut wins[d]) {
            let p = p as usize;
            if std::mem::replace(&mut known[p], true) {
                continue;
            }
            value[p] = Value::Win(d as u16).to_byte();
            for &q in preds.of_position(p) {
                let q = q as usize;
                let qi = &mut info[q];
                if known[q] {
                    continue;
                }
                if d == limit {
                    // The opponent's win here comes one ply too late.
                    qi.escape = true;
                    continue;
                }
                qi.open -= 1;
                qi.floor = qi.floor.max(d as u8 + 1);
                if qi.open == 0 && !qi.escape {
                    losses[qi.floor as usize].push(q as u32);
                }
            }
        }
    }
}
