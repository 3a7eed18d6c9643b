//! The verifier: every entry of every table checked against a one-ply
//! search over its successors' entries.
//!
//! For a position with no legal move the entry must be a loss at 0. Else
//! each move is worth, to the side to move, its successor's value turned
//! round: a conversion settles in one ply, a quiet move one ply after its
//! successor's distance, and a win or loss further than the no-progress
//! limit is a draw. The entry must be the best of these: the nearest win,
//! else a draw, else the furthest loss. Entries consistent in this way
//! everywhere are exact: every win and loss they claim is forced move by
//! move down to a conversion, and no forced result is missed (by induction
//! on the distance).

use super::{Material, Tablebase, TablebaseError, Value};
use crate::game::TableGame;
use rayon::prelude::*;

/// What the verifier found.
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Tables checked.
    pub tables: usize,
    /// Positions checked.
    pub positions: u64,
    /// Positions whose entry differs from the one-ply search.
    pub mismatches: u64,
    /// The first few mismatches: setup string, entry, one-ply value.
    pub examples: Vec<(String, Value, Value)>,
}

/// Mismatches kept as examples.
const EXAMPLES: usize = 5;

/// One table's findings.
#[derive(Default)]
struct Tally {
    positions: u64,
    mismatches: u64,
    examples: Vec<(String, Value, Value)>,
}

impl Tally {
    fn add(mut self, other: Tally) -> Tally {
        self.positions += other.positions;
        self.mismatches += other.mismatches;
        self.examples.extend(other.examples);
        self.examples.truncate(EXAMPLES);
        self
    }
}

/// Check every table of `tb` (each table needs the tables its conversions
/// lead to); `on_table` hears of each table as it is checked, with the
/// count done and in all.
pub fn verify<P: TableGame>(
    tb: &Tablebase<P>,
    on_table: &mut dyn FnMut(&Material, usize, usize),
) -> Result<VerifyReport, TablebaseError> {
    let materials = tb.materials();
    let mut report = VerifyReport::default();
    for (k, m) in materials.iter().enumerate() {
        let t = check_table(tb, m)?;
        report.positions += t.positions;
        report.mismatches += t.mismatches;
        report.examples.extend(t.examples);
        report.examples.truncate(EXAMPLES);
        report.tables += 1;
        on_table(m, k + 1, materials.len());
    }
    Ok(report)
}

/// Check one table's every position, in parallel.
fn check_table<P: TableGame>(tb: &Tablebase<P>, m: &Material) -> Result<Tally, TablebaseError> {
    (0..m.table_len::<P>())
        .into_par_iter()
        .map(|i| {
            let mut t = Tally::default();
            let Some(pos) = m.position::<P>(i) else {
                return Ok(t);
            };
            t.positions = 1;
            let entry = tb.entry(&pos).expect("the table being checked");
            let searched = one_ply(tb, &pos)?;
            if entry != searched {
                t.mismatches = 1;
                t.examples.push((pos.to_setup(), entry, searched));
            }
            Ok(t)
        })
        .try_reduce(Tally::default, |a, b| Ok(a.add(b)))
}

/// The value of `pos` (a table's position, its counter 0) from a one-ply
/// search over its successors' entries: its best move's value, or a loss
/// where it has none.
fn one_ply<P: TableGame>(tb: &Tablebase<P>, pos: &P) -> Result<Value, TablebaseError> {
    let moves = tb
        .valued_moves(pos, 0)
        .map_err(|m| TablebaseError::Missing(m.name::<P>()))?;
    Ok(moves.first().map_or(Value::Loss(0), |(_, v)| *v))
}
